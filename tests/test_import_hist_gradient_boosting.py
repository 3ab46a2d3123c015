"""Imported HistGradientBoosting models predict what scikit-learn predicts: raw sums, labels and binary
probabilities bit for bit, at every threshold and one double either side, NaN, zeros, huge values and
infinities, known, unknown, negative and fractional categories; softmax probabilities and exp-link
values within EXP_TOLERANCE (scikit-learn computes them with numpy's exp, which is not libm's).

The committed fixtures (tests/fixtures/hist_gradient_boosting, written by scikit-learn 1.4.2, 1.5.2
and 1.9.1) are .skops files read with the scikit-learn installed, compared with the outputs recorded
by the version that wrote them."""
from __future__ import annotations

import csv
import glob
import io
import json
import math
import os

import numpy as np
import pandas as pd
import pytest
import skops.io
import sklearn
from sklearn._loss.loss import HalfTweedieLoss, HalfTweedieLossIdentity
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.tree import DecisionTreeClassifier

from cli_in_process import treegen_cli
from treegen import modelio
from treegen.errors import TreegenError
from treegen.importers import IMPORTERS, import_file
from treegen.importers.hist_gradient_boosting import EXP_TOLERANCE, category_text
from treegen.importers.sklearn import from_sklearn, oracle
from treegen.model import Codes, Link, Model, is_close, tree_output
from treegen.run.python import run as run_python
from treegen.targets import emit
from treegen.walk import predict_rows

@pytest.fixture(autouse=True)
def one_thread():
    """scikit-learn's OpenMP threads wait for each other badly on a busy machine: one is faster here."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(1):
        yield


FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "hist_gradient_boosting")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # this checkout's treegen, for a process of its own
SPECIAL = [math.nan, 0.0, -0.0, 1e-35, -1e-35, 1e-300, -1e-300, 3.5e38, 1e308, -1e308, math.inf, -math.inf]
COLORS = ["red", "green", "blue", "grün", ""]
CODES = [-1.0, 0.0, 1.0, 2.0, 4.0, 5.0, 25.0]  # 3 never seen; -1 seen, so a category like any other
CODE_PROBES = CODES + [3.0, -0.5, -0.0, 0.3, 2.7, 24.999999999999996, 255.0, 256.0, 300.0, 1e6, -2.0]


# -- comparing ------------------------------------------------------------------------------------


def exact_scores(model: Model) -> bool:
    """Binary probabilities use scipy's expit (libm's exp), as the model does; softmax and the exp link
    use numpy's exp."""
    return model.combine.link == Link.IDENTITY or (model.combine.link == Link.SIGMOID and len(model.combine.init) == 1)


def assert_agrees(model: Model, rows: list[dict], raw, labels=None, scores=None) -> None:
    """The model's raw sums, labels and scores (walked row by row and vectorised) against the library's."""
    exact = exact_scores(model)
    walked = predict_rows(model, rows)
    for i, row in enumerate(rows):
        got_raw = model.raw_sums([tree_output(model, tree, row) for tree in model.trees])
        assert got_raw == list(raw[i]), (row, got_raw, list(raw[i]))
        label, score = model.predict(row), model.scores(row)
        assert walked[i] == (label, score), row
        if labels is not None:
            assert label == labels[i], (row, label, labels[i])
        if exact:
            assert score == list(scores[i]), (row, score, list(scores[i]))
        else:
            assert all(is_close(g, w, EXP_TOLERANCE) for g, w in zip(score, scores[i], strict=True)), (row, score)


def treegen_rows(model: Model, table) -> list[dict]:
    """Rows as treegen takes them: numbers, categories as their text, None for missing."""
    rows = []
    for record in table:
        row = {}
        for feature, value in zip(model.features, record):
            if value is None or (isinstance(value, float) and math.isnan(value)):
                row[feature.name] = None
            else:
                row[feature.name] = float(value) if feature.is_numeric else category_text(value)
        rows.append(row)
    return rows


def assert_agrees_with_sklearn(estimator, model: Model, X) -> None:
    table = X.astype(object).values.tolist() if isinstance(X, pd.DataFrame) else X.tolist()
    rows = treegen_rows(model, table)
    raw = estimator._raw_predict(X).tolist()
    if model.target.is_classification:
        labels = [str(v) for v in estimator.predict(X).tolist()]
        assert_agrees(model, rows, raw, labels, estimator.predict_proba(X).tolist())
    else:
        assert_agrees(model, rows, raw, scores=[[v] for v in estimator.predict(X).tolist()])


# -- the committed fixtures -------------------------------------------------------------------------


def fixture_names() -> list[str]:
    return sorted(os.path.basename(p)[:-len(".expected.json")] for p in glob.glob(f"{FIXTURES}/*.expected.json"))


def test_fixtures_cover_older_and_the_latest_scikit_learn():
    versions = {name.rsplit("-", 1)[1] for name in fixture_names()}
    assert {"1.4.2", "1.9.1"} <= versions


@pytest.mark.parametrize("name", fixture_names())
def test_fixture_predicts_what_scikit_learn_recorded(name):
    with open(f"{FIXTURES}/{name}.expected.json", encoding="utf-8") as f:
        expected = json.load(f)
    model = import_file(f"{FIXTURES}/{name}.skops")
    assert [f.name for f in model.features] == expected["features"]
    rows = treegen_rows(model, expected["rows"])
    if "labels" in expected:
        assert_agrees(model, rows, expected["raw"], [str(v) for v in expected["labels"]], expected["probabilities"])
    else:
        assert_agrees(model, rows, expected["raw"], scores=[[v] for v in expected["values"]])
    assert len(rows) > 60


def test_a_file_another_scikit_learn_saved_imports_with_one_note(tmp_path):
    """scikit-learn's own warning of a file pickled by another version (six lines on a terminal, the same again at
    each use of the file) is one note of import's, kept with the model; a file this version saved has none."""
    older, newer = f"{FIXTURES}/binary-1.4.2.skops", f"{FIXTURES}/binary-1.9.1.skops"
    done = treegen_cli("import", older, "-o", tmp_path / "older.json")
    assert done.returncode == 0 and len(done.stderr.splitlines()) == 2, done.stderr
    note = (f"treegen: imported with scikit-learn {sklearn.__version__} from a file scikit-learn 1.4.2 saved "
            "(scikit-learn warns that an estimator may not load alike across versions): verify --against the file "
            "checks the model against that scikit-learn's predict\n")
    assert done.stderr.endswith(note)
    against = treegen_cli("verify", tmp_path / "older.json", "--against", older, "--to", "python")
    assert against.returncode == 0 and "InconsistentVersionWarning" not in against.stderr, against.stderr
    done = treegen_cli("import", newer, "-o", tmp_path / "newer.json")
    assert done.returncode == 0 and done.stderr.count("\n") == 1, done.stderr


# -- models trained here ----------------------------------------------------------------------------


def numeric_data(seed: int = 0, n: int = 400, nan: bool = True):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 2)
    if nan:
        X[::6, 1] = np.nan
    return X, X[:, 0] + np.nan_to_num(X[:, 1], nan=1.0) + (X[:, 2] > 0)


def categorical_frame(seed: int = 0, n: int = 400, pandas_categories: bool = False):
    rng = np.random.default_rng(seed)
    color = rng.choice(COLORS, n).astype(object)
    color[::9] = np.nan
    frame = pd.DataFrame({"x0": np.round(rng.normal(size=n), 2), "color": color, "code": rng.choice(CODES, n)})
    frame.loc[::11, "code"] = np.nan
    effect = {c: i - 2 for i, c in enumerate(COLORS)}
    signal = frame.x0 + frame.color.map(effect).fillna(0) + (frame.code.fillna(0) > 1)
    if pandas_categories:
        frame["color"] = pd.Categorical(frame.color, categories=COLORS[::-1])
    return frame, signal


def thresholds(model: Model, j: int) -> list[float]:
    cuts = {n.split.threshold for t in model.trees for n in t.nodes if n.split and n.split.feature == j}
    return sorted({v for t in cuts if math.isfinite(t) for v in (math.nextafter(t, -math.inf), t,
                                                                  math.nextafter(t, math.inf))})


def numeric_probes(model: Model, X: np.ndarray) -> np.ndarray:
    blocks = [X[:20]]
    for j in range(X.shape[1]):
        values = thresholds(model, j) + SPECIAL
        block = np.repeat(X[:2], len(values), axis=0)
        block[:, j] = np.tile(values, 2)
        blocks.append(block)
    return np.vstack(blocks)


def categorical_probes(model: Model, frame: pd.DataFrame) -> pd.DataFrame:
    """The categorical path refuses infinities (check_array): finite probes only."""
    blocks = [frame.iloc[:20].astype(object)]
    finite = [v for v in SPECIAL if not math.isinf(v) and abs(v) < 1e300]
    for j, feature in enumerate(model.features):
        if feature.name == "color":
            values = COLORS + [None, "unseen", "Red", "数据"]
        elif not feature.is_numeric:
            values = CODE_PROBES + [math.nan]
        else:
            values = thresholds(model, j) + finite
        block = pd.concat([frame.iloc[:2].astype(object)] * len(values), ignore_index=True)
        block[feature.name] = pd.Series(np.repeat(np.array(values, dtype=object), 2), dtype=object)
        blocks.append(block)
    probe = pd.concat(blocks, ignore_index=True)
    return probe.astype({f.name: float for f in model.features if f.name != "color"})


KW = {"max_iter": 10, "max_leaf_nodes": 8, "random_state": 1, "early_stopping": False}
LABELS = {"int": np.array([3, 7, 11]), "str": np.array(["no", "yes, maybe", "名字"]),
          "bool": np.array([False, True, True])}


@pytest.mark.parametrize("labels", sorted(LABELS))
@pytest.mark.parametrize("classes", [2, 3])
def test_classifiers_agree_with_sklearn(classes, labels):
    X, signal = numeric_data(1)
    codes = np.digitize(signal, [0.3, 1.5]) if classes == 3 else (signal > 0.3).astype(int)
    if labels == "bool" and classes == 3:  # codes 1 and 2 both name True: one class, which is refused
        estimator = HistGradientBoostingClassifier(**KW).fit(X, LABELS[labels][np.minimum(codes, 1) + 1])
        with pytest.raises(TreegenError, match=r"fitted on one class \('True'\)"):
            from_sklearn(estimator)
        return
    estimator = HistGradientBoostingClassifier(**KW).fit(X, LABELS[labels][codes])
    model = from_sklearn(estimator)
    assert model.numeric.cast == "float64" and model.combine.decide is not None
    assert model.target.classes == tuple(str(c) for c in estimator.classes_.tolist())
    assert_agrees_with_sklearn(estimator, model, numeric_probes(model, X))


REGRESSORS = {
    "squared_error": HistGradientBoostingRegressor(**KW),
    "absolute_error": HistGradientBoostingRegressor(loss="absolute_error", **KW),
    "quantile": HistGradientBoostingRegressor(loss="quantile", quantile=0.8, **KW),
    "poisson": HistGradientBoostingRegressor(loss="poisson", **KW),
    "gamma": HistGradientBoostingRegressor(loss="gamma", **KW),
    "tweedie": HistGradientBoostingRegressor(loss=HalfTweedieLoss(power=1.5), **KW),
    "tweedie_identity": HistGradientBoostingRegressor(loss=HalfTweedieLossIdentity(power=1.5), **KW),
}


@pytest.mark.parametrize("loss", sorted(REGRESSORS))
def test_regressors_agree_with_sklearn(loss):
    X, signal = numeric_data(2)
    estimator = REGRESSORS[loss].fit(X, np.exp(signal / 2))
    model = from_sklearn(estimator)
    assert model.combine.link == (Link.EXP if loss in ("poisson", "gamma", "tweedie") else Link.IDENTITY)
    assert_agrees_with_sklearn(estimator, model, numeric_probes(model, X))


def test_early_stopping_keeps_the_iterations_it_used():
    X, signal = numeric_data(3, n=1000)
    estimator = HistGradientBoostingClassifier(max_iter=300, learning_rate=0.5, early_stopping=True, n_iter_no_change=2,
                                               validation_fraction=0.3, random_state=1).fit(X, signal > 0.3)
    model = from_sklearn(estimator)
    assert len(model.trees) == estimator.n_iter_ < 300 and model.meta["sklearn"]["iterations"] == estimator.n_iter_
    assert_agrees_with_sklearn(estimator, model, numeric_probes(model, X))


CATEGORICAL_WAYS = {
    "names": ["color", "code"],
    "indices": [1, 2],
    "mask": [False, True, True],
}


@pytest.mark.parametrize("way", sorted(CATEGORICAL_WAYS) + ["from_dtype"])
@pytest.mark.parametrize("classes", [2, 3])
def test_categorical_features_agree_with_sklearn(way, classes):
    """The encoder puts the categorical columns first: the model maps them back to the user's."""
    frame, signal = categorical_frame(4, pandas_categories=way == "from_dtype")
    codes = np.digitize(signal, [-0.5, 1.0]) if classes == 3 else (signal > 0.3).astype(int)
    if way == "from_dtype":
        estimator = HistGradientBoostingClassifier(categorical_features="from_dtype", **KW)
        frame["code"] = frame.code.fillna(0.0)  # a numeric column here
    else:
        estimator = HistGradientBoostingClassifier(categorical_features=CATEGORICAL_WAYS[way], **KW)
    estimator.fit(frame, LABELS["str"][codes])
    model = from_sklearn(estimator)
    kinds = [f.kind for f in model.features]
    assert kinds == (["numeric", "nominal", "numeric"] if way == "from_dtype" else ["numeric", "nominal", "nominal"])
    assert set(model.features[1].categories) == set(COLORS)
    if way != "from_dtype":
        assert model.features[2].categories == ("-1", "0", "1", "2", "4", "5", "25")
    assert_agrees_with_sklearn(estimator, model, categorical_probes(model, frame))
    assert_oracle_agrees(estimator, model, categorical_probes(model, frame))


def test_categorical_regressor_on_a_numpy_array():
    frame, signal = categorical_frame(5)
    X = frame[["x0", "code"]].to_numpy(dtype=float)
    estimator = HistGradientBoostingRegressor(categorical_features=[1], **KW).fit(X, signal)
    model = from_sklearn(estimator)
    assert [f.name for f in model.features] == ["x0", "x1"] and not model.features[1].is_numeric
    probe = categorical_probes(model, pd.DataFrame(X, columns=["x0", "x1"]))
    assert_agrees_with_sklearn(estimator, model, probe.to_numpy(dtype=float))


def assert_oracle_agrees(estimator, model: Model, X, path: str | None = None) -> None:
    """verify --against: scikit-learn's (label or value, scores) for treegen's rows, from a .skops file."""
    import tempfile
    table = X.astype(object).values.tolist() if isinstance(X, pd.DataFrame) else X.tolist()
    rows = treegen_rows(model, table)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.skops")
        skops.io.dump(estimator, path)
        answers = oracle(path, model, rows)
    exact = exact_scores(model)
    for (label, scores), (want_label, want_scores), row in zip(predict_rows(model, rows), answers, rows, strict=True):
        assert label == want_label if model.target.is_classification else True, row
        assert scores == want_scores if exact else all(is_close(g, w, EXP_TOLERANCE)
                                                       for g, w in zip(scores, want_scores)), row


def test_oracle_for_every_scikit_learn_family():
    X, signal = numeric_data(6)
    for estimator in (HistGradientBoostingRegressor(loss="poisson", **KW),
                      HistGradientBoostingClassifier(**KW)):
        estimator.fit(X, np.exp(signal / 2) if "Regressor" in type(estimator).__name__ else signal > 0.3)
        model = from_sklearn(estimator)
        assert_oracle_agrees(estimator, model, numeric_probes(model, X))
    tree = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, signal > 0.3)
    assert_oracle_agrees(tree, from_sklearn(tree), X[:50])
    assert IMPORTERS["scikit-learn"].oracle is oracle


def test_skops_file_imports_as_the_estimator(tmp_path):
    frame, signal = categorical_frame(7)
    estimator = HistGradientBoostingClassifier(categorical_features=["color", "code"], **KW).fit(frame, signal > 0)
    path = str(tmp_path / "hgb.skops")
    skops.io.dump(estimator, path)
    assert modelio.dumps(import_file(path)) == modelio.dumps(from_sklearn(estimator))
    model = from_sklearn(estimator)
    assert modelio.loads(modelio.dumps(model)).meta == model.meta
    assert model.meta["library"] == "scikit-learn" and model.meta["objective"] == "log_loss"


SKOPS_OLDEST = "0.11.0"  # the oldest skops that reads the files skops 0.11 and later write (protocol 2)


def test_skops_files_import_with_the_oldest_skops_that_reads_them(tmp_path, installed_beside):
    """skops 0.9 to 0.13 list HistGradientBoosting's losses, links and bin mapper as untrusted types, which 0.14
    and later trust by themselves: with SKOPS_OLDEST (installed beside the suite's, for a process of its own) every
    loss's model, and the fixtures, import as with the suite's skops, where they were refused as "not
    scikit-learn trees"."""
    import subprocess
    import sys
    X, signal = numeric_data(2)
    paths = sorted(glob.glob(os.path.join(FIXTURES, "*.skops")))
    for loss, estimator in sorted(REGRESSORS.items()):
        paths.append(str(tmp_path / f"{loss}.skops"))
        skops.io.dump(estimator.fit(X, np.exp(signal / 2)), paths[-1])
    paths.append(str(tmp_path / "classifier.skops"))
    skops.io.dump(HistGradientBoostingClassifier(**KW).fit(X, np.digitize(signal, [0.3, 1.5])), paths[-1])
    oldest = installed_beside(f"skops=={SKOPS_OLDEST}")
    script = ("import json, sys, skops; from treegen import modelio; from treegen.importers import import_file; "
              "print(skops.__version__); print(json.dumps([modelio.dumps(import_file(p)) for p in sys.argv[1:]]))")
    done = subprocess.run([sys.executable, "-c", script, *paths], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join([oldest, ROOT])})
    assert done.returncode == 0, done.stderr[-2000:]
    version, printed = done.stdout.splitlines()
    assert version == SKOPS_OLDEST and json.loads(printed) == [modelio.dumps(import_file(p)) for p in paths]


def test_names_and_meta():
    X, signal = numeric_data(8)
    estimator = HistGradientBoostingRegressor(**KW).fit(pd.DataFrame(X, columns=["a", "b", "c"]), signal)
    assert [f.name for f in from_sklearn(estimator).features] == ["a", "b", "c"]
    with pytest.raises(ValueError, match="gives other names than the model's own"):  # a frame's names are its own
        from_sklearn(estimator, ["p", "q", "r"])
    on_array = HistGradientBoostingRegressor(**KW).fit(X, signal)  # no names of its own: any may be given
    assert [f.name for f in from_sklearn(on_array, ["p", "q", "r"]).features] == ["p", "q", "r"]
    model = from_sklearn(estimator)
    assert model.meta["algorithm"] == "HistGradientBoostingRegressor"
    assert model.combine.init == (float(estimator._baseline_prediction.ravel()[0]),)


def test_category_text():
    assert [category_text(v) for v in (3, 3.0, -0.0, 2.5, "x", True, np.int64(7), np.float64(1e20))] == \
        ["3", "3", "0", "2.5", "x", "True", "7", "100000000000000000000"]


# -- size ---------------------------------------------------------------------------------------------


def test_a_1000_tree_depth_8_model_imports_and_agrees():
    """50 iterations of depth-8 trees trained, their predictors repeated 20 times: scikit-learn
    predicts with the 1,000 trees as with any fitted estimator."""
    rng = np.random.default_rng(9)
    X = rng.normal(size=(3000, 6))
    estimator = HistGradientBoostingClassifier(max_iter=50, max_depth=8, max_leaf_nodes=256, min_samples_leaf=2,
                                               early_stopping=False, random_state=0)
    estimator.fit(X, X[:, 0] + X[:, 1] * X[:, 2] > 0)
    estimator._predictors = estimator._predictors * 20
    if "n_iter_" in vars(estimator):  # an attribute since scikit-learn 1.5, a property before
        estimator.n_iter_ = len(estimator._predictors)
    model = from_sklearn(estimator)
    assert len(model.trees) == 1000 and max(t.depth() for t in model.trees) == 8
    assert_agrees_with_sklearn(estimator, model, X[:5])
    rows = treegen_rows(model, X[:300].tolist())
    labels = [str(v) for v in estimator.predict(X[:300]).tolist()]
    assert predict_rows(model, rows) == list(zip(labels, estimator.predict_proba(X[:300]).tolist()))


def test_oracle_takes_an_infinite_category_as_unknown(tmp_path):
    """Given as objects, an infinite category is unknown to the encoder (a float column would be refused
    whole): the missing route, as the model has it."""
    frame, signal = categorical_frame(10)
    estimator = HistGradientBoostingClassifier(categorical_features=["color", "code"], **KW).fit(frame, signal > 0)
    path = str(tmp_path / "hgb.skops")
    skops.io.dump(estimator, path)
    model = import_file(path)
    rows = [{"x0": 0.5, "color": "red", "code": "2"}, {"x0": 0.5, "color": "red", "code": "inf"},
            {"x0": 0.5, "color": "red", "code": None}, {"x0": math.inf, "color": None, "code": "7"}]
    assert oracle(path, model, rows) == predict_rows(model, rows)
    assert predict_rows(model, rows)[1] == predict_rows(model, rows)[2]


def test_oracle_reads_category_numbers_by_treegen_grammar(tmp_path):
    """Text that float() reads and treegen's number grammar does not ('1_0', the Arabic-Indic digit 3) is
    no category code to the model: the oracle gives it to scikit-learn as unknown too, so `verify --against`
    agrees with the model, where it reported a mismatch when the oracle read it as 10 and 3."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"band": pd.Categorical(rng.choice([1, 3, 10], 600, p=[0.45, 0.1, 0.45])),
                      "x": rng.normal(size=600).round(2)})
    y = X["band"].astype(int).map({1: 0.0, 3: 10.0, 10: 20.0}) + X["x"]
    estimator = HistGradientBoostingRegressor(max_iter=20, categorical_features="from_dtype", random_state=0).fit(X, y)
    path = tmp_path / "hgb.skops"
    skops.io.dump(estimator, path)
    model = import_file(str(path))
    rows = [{"band": text, "x": 0.1} for text in ("3", "\u0663", "10", "1_0", "99", None)]
    assert oracle(str(path), model, rows) == predict_rows(model, rows)
    assert predict_rows(model, rows)[1] == predict_rows(model, rows)[3] == predict_rows(model, rows)[5]
    data = tmp_path / "rows.csv"
    data.write_text("band,x\n3,0.1\n\u0663,0.1\n10,0.1\n1_0,0.1\n99,0.1\n", encoding="utf-8")
    result = treegen_cli("verify", path, data, "--to", "python", "--against", path)
    assert result.returncode == 0, result.stdout + result.stderr


def test_number_categories_read_as_the_encoder_reads_them(tmp_path):
    """Categories of a float column (Codes.INTEGRAL): 3.0, "3.0", "3e0" are category 3; 2.7, -0.5 and
    -1.5 none (the missing route, as the encoder's unknown); -0.0 is 0. The model predicts what
    predict_proba predicts, from the Python API and from the CSV pandas writes (`treegen predict`)."""
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 6, 300).astype(float)
    codes[::7] = np.nan
    X = np.column_stack([rng.normal(size=300), codes])
    y = (np.isin(codes, [1, 3, 4]) ^ (X[:, 0] > 0.5)).astype(int)
    estimator = HistGradientBoostingClassifier(categorical_features=[1], **KW).fit(X, y)
    model = from_sklearn(estimator)
    assert model.features[1].codes == Codes.INTEGRAL
    probes = [0.0, 1.0, 3.0, 5.0, 2.7, -0.5, -0.0, -1.5, 1e300, 6.0, 2.0 ** 31, math.nan]
    P = np.column_stack([np.resize(X[:, 0], len(probes) + 20), probes + X[:20, 1].tolist()])
    want = estimator.predict_proba(P)[:, 1].tolist()
    numbers = [{"x0": float(x), "x1": None if math.isnan(c) else float(c)} for x, c in P]
    texts = [{**row, "x1": None if row["x1"] is None else repr(row["x1"])} for row in numbers]
    for rows in (numbers, texts, [{**row, "x1": row["x1"] and row["x1"].replace(".0", "e0")} for row in texts]):
        assert [model.scores(row)[1] for row in rows] == want
        assert [scores[1] for _, scores in predict_rows(model, rows)] == want
    model_path, data = tmp_path / "model.json", tmp_path / "data.csv"
    model_path.write_text(modelio.dumps(model))
    pd.DataFrame(P, columns=["x0", "x1"]).to_csv(data, index=False)
    assert ",3.0\n" in data.read_text()
    from click.testing import CliRunner
    from treegen.cli import main
    result = CliRunner().invoke(main, ["predict", str(model_path), str(data), "--proba"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert [float(row["P(1)"]) for row in csv.DictReader(io.StringIO(result.output))] == want


def test_a_classifier_fitted_on_one_class_is_refused_at_import(tmp_path):
    """scikit-learn fits a classifier on one class as a binary one: classes_ ['z'], predict_proba two
    columns. No model gives that: from_sklearn refuses it, and `treegen import` says why in one line,
    exit 2, writing no file a later command would refuse; `verify --against` says the same."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=100), "b": rng.normal(size=100)})
    estimator = HistGradientBoostingClassifier(max_iter=5).fit(X, np.full(100, "z"))
    assert estimator.classes_.tolist() == ["z"] and estimator.predict_proba(X[:1]).shape == (1, 2)
    why = "HistGradientBoostingClassifier fitted on one class ('z') is not imported"
    with pytest.raises(TreegenError, match=r"fitted on one class \('z'\).*fit it on two classes or more"):
        from_sklearn(estimator)
    skops.io.dump(estimator, tmp_path / "one.skops")
    X.head(3).to_csv(tmp_path / "rows.csv", index=False)
    result = treegen_cli("import", tmp_path / "one.skops", "-o", tmp_path / "m.json")
    assert result.returncode == 2 and why in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr
    assert not (tmp_path / "m.json").exists()
    result = treegen_cli("verify", tmp_path / "one.skops", tmp_path / "rows.csv", "--to", "python",
                         "--against", tmp_path / "one.skops")
    assert result.returncode == 2 and why in result.stderr and len(result.stderr.splitlines()) == 1, result.stderr


def test_number_categories_in_csv_text_read_by_value_as_the_encoder_reads_them(tmp_path):
    """A pandas Categorical of floats (0.5, 1.5, 2.5) and one of int IDs at and beyond 2^31: scikit-learn, on the
    CSV as pd.read_csv reads it, finds "0.50", "15e-1" and "5000000001.0" (pandas writes an int ID column that
    holds a NaN so) by value, as their categories 0.5, 1.5 and 5000000001; `treegen predict` answers the same (it
    read them as unknown categories, their code naming none), and so does the generated Python's program."""
    rng = np.random.default_rng(0)
    n = 600
    ids = np.array([5_000_000_001, 2 ** 40, 7, 2 ** 31])
    frame = pd.DataFrame({"band": pd.Categorical(rng.choice([0.5, 1.5, 2.5], n)),
                          "id": pd.Categorical(rng.choice(ids, n)), "x": rng.normal(size=n).round(2)})
    y = (frame["band"].astype(float).map({0.5: 10.0, 1.5: 20.0, 2.5: 0.0})
         + frame["id"].astype("int64").map({5_000_000_001: 0.0, 2 ** 40: 5.0, 7: 12.0, 2 ** 31: 3.0}) + frame["x"])
    estimator = HistGradientBoostingRegressor(max_iter=20, categorical_features="from_dtype", random_state=0)
    estimator.fit(frame, y)
    model_path, data = tmp_path / "hgb.skops", tmp_path / "rows.csv"
    skops.io.dump(estimator, str(model_path))
    model = import_file(str(model_path))
    assert [f.codes for f in model.features] == [Codes.INTEGRAL, Codes.INTEGRAL, None]
    bands = ["0.5", "0.50", "5e-1", "1.5", "15e-1", "1.50", "2.5", "2.50", "9.5"]
    id_texts = ["5000000001", "5000000001.0", "5.000000001e9", "1099511627776.0", "2147483648.0", "7.0", "7", "8.0"]
    data.write_text("band,id,x\n" + "".join(f"{b},{i},0.1\n" for b in bands for i in id_texts))
    read = pd.read_csv(data)  # band float64, id float64 (the fractions and e-notation)
    bands_known = frame["band"].cat.categories  # (a value none of them: NaN, as the encoder reads an unknown one)
    read["band"] = pd.Categorical(read["band"].where(read["band"].isin(bands_known)), categories=bands_known)
    read["id"] = pd.Categorical(read["id"].where(read["id"].isin(ids.astype(float))).astype("Int64"),
                                categories=frame["id"].cat.categories)
    want = estimator.predict(read).tolist()
    from click.testing import CliRunner
    from treegen.cli import main
    result = CliRunner().invoke(main, ["predict", str(model_path), str(data)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    got = [float(row["prediction"]) for row in csv.DictReader(io.StringIO(result.stdout))]
    assert got == want
    assert [float(line) for line in run_python(emit(model, "python"), data.read_text()).split()] == got
