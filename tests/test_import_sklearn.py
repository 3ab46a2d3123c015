"""Imported scikit-learn models predict what scikit-learn predicts: labels exactly, probabilities and
regression values within 1e-12 relative, at every threshold, one float32 step either side, and NaN."""
from __future__ import annotations

import csv
import functools
import io
import json
import math
import pickle
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.ensemble import (AdaBoostClassifier, ExtraTreesClassifier, ExtraTreesRegressor,
                              GradientBoostingClassifier, GradientBoostingRegressor, RandomForestClassifier,
                              RandomForestRegressor)
from sklearn.linear_model import LinearRegression
from sklearn.tree import (DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier,
                          ExtraTreeRegressor)

import treegen
from click.testing import CliRunner
from treegen import modelio
from treegen.cli import main
from treegen.run.sql import ENGINES
from treegen.run.sql import format_results, read_csv
from treegen.run.sql import query as query_sql
from treegen.targets import PROGRAMS, emit
from treegen.targets import TARGETS as TARGET_TABLE
from treegen.errors import TreegenError
from treegen.importers import import_file
from treegen.importers.sklearn import from_sklearn, load_skops
from treegen.testing import is_close
from treegen.walk import predict_rows


# -- data and probes ------------------------------------------------------------------------------

FLOAT32_MAX = float(np.finfo(np.float32).max)


def make_data(seed: int, n: int = 200, n_features: int = 4, nan: float = 0.1):
    """Features on a coarse grid (many ties, thresholds between float32 neighbours) plus noise."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, n_features)) * 4) / 4 + rng.normal(scale=1e-7, size=(n, n_features))
    signal = np.nan_to_num(X)
    X[rng.random(X.shape) < nan] = np.nan
    y_reg = signal[:, 0] * 3.0 - signal[:, 1] ** 2 + rng.normal(scale=0.1, size=n)
    y_codes = (signal[:, 0] > 0).astype(int) + (signal[:, 1] + signal[:, 2] > 0.5).astype(int)
    return X, y_reg, y_codes


def probe_matrix(model, nan: bool = True, limit: int = 1500, seed: int = 0) -> np.ndarray:
    """Rows at every threshold, its float32 neighbours and its effective float64 cut (one ulp either
    side), and NaN: each such value in turn on a base row, then random mixtures."""
    options = []
    for index in range(len(model.features)):
        values = {0.0}
        for tree in model.trees:
            for node in tree.nodes:
                if node.split is not None and node.split.feature == index:
                    values.update(threshold_neighbours(node.split.threshold, model))
        options.append(sorted(values) + ([math.nan] if nan else []))
    base = [opts[len(opts) // 2] for opts in options]
    rows = []
    for index, opts in enumerate(options):
        for value in opts:
            row = list(base)
            row[index] = value
            rows.append(row)
    rng = np.random.default_rng(seed)
    while len(rows) < limit:
        rows.append([opts[rng.integers(len(opts))] for opts in options])
    return np.array(rows, dtype=np.float64)


def threshold_neighbours(t: float, model) -> set[float]:
    f32 = np.float32(t)
    steps = {float(f32), float(np.nextafter(f32, np.float32(-np.inf))), float(np.nextafter(f32, np.float32(np.inf)))}
    cut = model.numeric.effective_threshold(t)
    values = steps | {t, cut, math.nextafter(cut, -math.inf), math.nextafter(cut, math.inf)}
    # sklearn refuses inputs beyond float32 (its "NaN or not" splits have threshold inf)
    return {v for v in values if abs(v) <= FLOAT32_MAX}


def as_rows(model, X: np.ndarray) -> list[dict]:
    names = [f.name for f in model.features]
    return [{name: (None if math.isnan(v) else float(v)) for name, v in zip(names, row)} for row in X.tolist()]


def assert_same_predictions(estimator, model, X: np.ndarray) -> None:
    """The model's labels and scores (from its batch walk, which `treegen predict` and `verify` use and
    tests/test_verify.py holds to the row-by-row walk) are scikit-learn's."""
    rows = as_rows(model, X)
    answers = predict_rows(model, rows)
    if not model.target.is_classification:
        for row, (got, _), want in zip(rows, answers, estimator.predict(X).tolist(), strict=True):
            assert is_close(got, want), (row, got, want)
        return
    assert [label for label, _ in answers] == [str(label) for label in estimator.predict(X).tolist()]
    for row, (_, got), want in zip(rows, answers, estimator.predict_proba(X).tolist(), strict=True):
        assert all(is_close(g, w) for g, w in zip(got, want)), (row, got, want)


# -- estimators ----------------------------------------------------------------------------------

LABELS = {"int": np.array([3, 7, 11]), "str": np.array(["no", "yes, maybe", "名字"]),
          "bool": np.array([False, True, True])}

NAN_CAPABLE = [
    DecisionTreeClassifier(random_state=0),
    DecisionTreeClassifier(max_depth=4, min_samples_leaf=5, random_state=1),
    DecisionTreeClassifier(max_leaf_nodes=12, random_state=2),  # best-first: renumbered to pre-order
    ExtraTreeClassifier(random_state=0),
    RandomForestClassifier(n_estimators=15, max_depth=6, random_state=0),
    ExtraTreesClassifier(n_estimators=15, max_depth=6, random_state=0),
]
NAN_CAPABLE_REGRESSORS = [
    DecisionTreeRegressor(random_state=0),
    DecisionTreeRegressor(criterion="absolute_error", max_depth=5, random_state=0),
    ExtraTreeRegressor(random_state=0),
    RandomForestRegressor(n_estimators=15, max_depth=6, random_state=0),
    ExtraTreesRegressor(n_estimators=15, max_depth=6, random_state=0),
]
BOOSTED = [
    GradientBoostingClassifier(n_estimators=15, max_depth=3, random_state=0),
    GradientBoostingClassifier(n_estimators=10, learning_rate=0.3, subsample=0.7, random_state=0),
    GradientBoostingClassifier(n_estimators=10, init="zero", random_state=0),
]
BOOSTED_REGRESSORS = [
    GradientBoostingRegressor(n_estimators=15, random_state=0),
    GradientBoostingRegressor(n_estimators=10, loss="huber", random_state=0),
    GradientBoostingRegressor(n_estimators=10, loss="absolute_error", init="zero", random_state=0),
    GradientBoostingRegressor(n_estimators=10, loss="quantile", alpha=0.8, random_state=0),
]


def name(estimator) -> str:
    params = estimator.get_params(deep=False)
    defaults = (None, "gini", "squared_error", "friedman_mse", "deprecated", 1.0)
    extra = [f"{k}={params[k]}" for k in ("max_leaf_nodes", "criterion", "init", "loss", "subsample")
             if k in params and params[k] not in defaults]
    return type(estimator).__name__ + ("(" + ",".join(extra) + ")" if extra else "")


@pytest.mark.parametrize("labels", sorted(LABELS))
@pytest.mark.parametrize("estimator", NAN_CAPABLE, ids=name)
def test_classifiers_with_missing_values(estimator, labels):
    X, _, codes = make_data(0)
    estimator.fit(X, LABELS[labels][codes])
    model = from_sklearn(estimator)
    assert model.numeric.cast == "float32"
    assert model.target.classes == tuple(str(c) for c in estimator.classes_)
    assert_same_predictions(estimator, model, probe_matrix(model))


@pytest.mark.parametrize("estimator", [DecisionTreeClassifier(random_state=0), ExtraTreeRegressor(random_state=0),
                                       RandomForestClassifier(n_estimators=5, random_state=0)], ids=name)
def test_missing_values_never_seen_in_training(estimator):
    X, y, codes = make_data(13, nan=0.0)
    model = from_sklearn(estimator.fit(X, y if isinstance(estimator, ExtraTreeRegressor) else codes))
    assert_same_predictions(estimator, model, probe_matrix(model, limit=1000))


@pytest.mark.parametrize("estimator", NAN_CAPABLE_REGRESSORS, ids=name)
def test_regressors_with_missing_values(estimator):
    X, y, _ = make_data(1)
    model = from_sklearn(estimator.fit(X, y))
    assert_same_predictions(estimator, model, probe_matrix(model))


@pytest.mark.parametrize("labels", ["int", "str"])
@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("estimator", BOOSTED, ids=name)
def test_gradient_boosting_classifiers(estimator, n_classes, labels):
    X, _, codes = make_data(2, nan=0.0)
    codes = np.minimum(codes, n_classes - 1)
    model = from_sklearn(estimator.fit(X, LABELS[labels][codes]))
    assert model.combine.link == ("sigmoid" if n_classes == 2 else "softmax")
    assert len(model.trees) == estimator.estimators_.size
    assert_same_predictions(estimator, model, probe_matrix(model, nan=False))


def test_gradient_boosting_exponential_loss():
    X, _, codes = make_data(3, nan=0.0)
    estimator = GradientBoostingClassifier(n_estimators=15, loss="exponential", random_state=0)
    model = from_sklearn(estimator.fit(X, codes > 0))
    assert_same_predictions(estimator, model, probe_matrix(model, nan=False))


@pytest.mark.parametrize("estimator", BOOSTED_REGRESSORS, ids=name)
def test_gradient_boosting_regressors(estimator):
    X, y, _ = make_data(4, nan=0.0)
    model = from_sklearn(estimator.fit(X, y))
    assert model.combine.kind == "sum" and model.combine.link == "identity"
    assert_same_predictions(estimator, model, probe_matrix(model, nan=False))


def test_gradient_boosting_missing_value_goes_right():
    """sklearn refuses NaN for gradient boosting; its tree walker would send it right (NaN <= t is false)."""
    X, y, _ = make_data(5, nan=0.0)
    model = from_sklearn(GradientBoostingRegressor(n_estimators=3).fit(X, y))
    splits = [node.split for tree in model.trees for node in tree.nodes if node.split]
    assert {s.missing.kind for s in splits} == {"child"} and {s.missing.child for s in splits} == {1}


def test_boosted_label_at_raw_zero_is_the_second_class():
    """Balanced data: raw score exactly 0, probabilities tie at 0.5; sklearn predicts the second class."""
    X = np.repeat(np.arange(4.0), 2).reshape(-1, 1)
    y = np.tile(["no", "yes"], 4)
    estimator = GradientBoostingClassifier(n_estimators=2, max_depth=1).fit(X, y)
    model = from_sklearn(estimator)
    assert estimator.decision_function(X).tolist() == [0.0] * 8
    assert_same_predictions(estimator, model, X)
    assert model.predict({"x0": 0.0}) == "yes"


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), depth=st.sampled_from([1, 3, None]),
       regression=st.booleans(), n_trees=st.sampled_from([1, 4]))
def test_random_forests_agree_everywhere(seed, depth, regression, n_trees):
    X, y, codes = make_data(seed, n=80, n_features=3)
    cls = RandomForestRegressor if regression else RandomForestClassifier
    estimator = cls(n_estimators=n_trees, max_depth=depth, random_state=seed).fit(X, y if regression else codes)
    model = from_sklearn(estimator)
    assert_same_predictions(estimator, model, probe_matrix(model, limit=300, seed=seed))


# -- names, labels, meta ----------------------------------------------------------------------------


def test_feature_names_from_dataframe_argument_or_default():
    import pandas as pd
    X, y, _ = make_data(6, nan=0.0)
    frame = pd.DataFrame(X, columns=["select", "it's", "名字", "a,b"])
    tree = DecisionTreeRegressor(max_depth=3).fit(frame, y)
    assert [f.name for f in from_sklearn(tree).features] == ["select", "it's", "名字", "a,b"]
    assert [f.name for f in from_sklearn(tree, ["select", "it's", "名字", "a,b"]).features] == list(frame.columns)
    plain = DecisionTreeRegressor(max_depth=3).fit(X, y)
    assert [f.name for f in from_sklearn(plain).features] == ["x0", "x1", "x2", "x3"]
    assert [f.name for f in from_sklearn(plain, ["p", "q", "r", "s"]).features] == ["p", "q", "r", "s"]
    with pytest.raises(TreegenError, match="3 feature names given, but the model takes 4"):
        from_sklearn(plain, ["a", "b", "c"])
    with pytest.raises(TreegenError, match="given twice"):
        from_sklearn(plain, ["a", "b", "a", "c"])


def test_feature_names_that_contradict_the_fitted_frames_are_refused():
    """A model fitted on a DataFrame reads its columns by the names it keeps (feature_names_in_): names given
    in another order, or others, would read each column as another feature (a third of the answers right),
    and are refused with one line saying which; a model fitted on arrays keeps none, and takes any."""
    import pandas as pd
    X, y, _ = make_data(6, nan=0.0)
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"])
    for estimator in (DecisionTreeRegressor(max_depth=3), HistGradientBoostingRegressor(max_iter=3)):
        estimator.fit(frame, y)
        with pytest.raises(TreegenError) as err:
            from_sklearn(estimator, ["d", "c", "b", "a"])
        assert str(err.value).startswith("feature_names gives the model's own feature names in another order "
                                         "('d' for its feature 0, 'a'): ")
        with pytest.raises(TreegenError, match=r"^feature_names gives other names than the model's own \('p' for "
                                               r"its feature 0, 'a'\): .*leave feature_names out"):
            from_sklearn(estimator, ["p", "b", "c", "d"])
        assert [f.name for f in from_sklearn(estimator, list(frame.columns)).features] == ["a", "b", "c", "d"]
        estimator.fit(X, y)
        assert [f.name for f in from_sklearn(estimator, ["d", "c", "b", "a"]).features] == ["d", "c", "b", "a"]


@pytest.mark.parametrize("labels", sorted(LABELS))
def test_original_labels_are_kept_in_meta(labels):
    X, _, codes = make_data(7)
    estimator = DecisionTreeClassifier(max_depth=3).fit(X, LABELS[labels][codes])
    kept = from_sklearn(estimator).meta["sklearn"]
    assert kept["classes"] == estimator.classes_.tolist()
    assert kept["class_type"] == type(estimator.classes_.tolist()[0]).__name__


def test_counts_and_leaf_ids_follow_sklearn():
    X, _, codes = make_data(8)
    estimator = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, codes)
    model = from_sklearn(estimator)
    t = estimator.tree_
    assert [node.n for node in model.trees[0].nodes] == t.weighted_n_node_samples.tolist()
    root = model.trees[0].nodes[0]
    assert [round(c) for c in root.counts] == np.bincount(codes).tolist()
    assert model.trees[0].leaves() == [i for i in range(t.node_count) if t.children_left[i] == -1]


# -- round trip through JSON ---------------------------------------------------------------------


@pytest.mark.parametrize("estimator", [RandomForestClassifier(n_estimators=5, random_state=0),
                                       GradientBoostingClassifier(n_estimators=5, random_state=0),
                                       GradientBoostingRegressor(n_estimators=5, random_state=0)], ids=name)
def test_json_round_trip_predicts_the_same(estimator):
    """With NaN in training, forests get "NaN or not" splits whose threshold is infinite."""
    nan = not isinstance(estimator, (GradientBoostingClassifier, GradientBoostingRegressor))
    X, y, codes = make_data(9, nan=0.2 if nan else 0.0)
    estimator.fit(X, y if "Regressor" in type(estimator).__name__ else codes)
    model = from_sklearn(estimator)
    loaded = modelio.loads(modelio.dumps(model))
    rows = as_rows(model, probe_matrix(model, nan=True, limit=500))
    assert [loaded.scores(r) for r in rows] == [model.scores(r) for r in rows]
    assert [loaded.predict(r) for r in rows] == [model.predict(r) for r in rows]
    assert loaded.meta == model.meta


# -- what is refused -------------------------------------------------------------------------------


def test_unsupported_estimators_and_settings_are_refused():
    X, y, codes = make_data(10, nan=0.0)
    with pytest.raises(TreegenError, match="cannot import an AdaBoostClassifier; supported: Decision"):
        from_sklearn(AdaBoostClassifier(n_estimators=2).fit(X, codes))
    with pytest.raises(TreegenError, match="cannot import a LinearRegression"):
        from_sklearn(LinearRegression().fit(X, y))
    with pytest.raises(TreegenError, match="2 outputs is not supported"):
        from_sklearn(DecisionTreeRegressor().fit(X, np.c_[y, y]))
    with pytest.raises(TreegenError, match="not fitted"):
        from_sklearn(RandomForestClassifier())
    with pytest.raises(TreegenError, match="init=LinearRegression is not supported"):
        from_sklearn(GradientBoostingRegressor(n_estimators=2, init=LinearRegression()).fit(X, y))
    with pytest.raises(TreegenError, match="init=DummyClassifier is not supported"):
        from_sklearn(GradientBoostingClassifier(n_estimators=2, init=DummyClassifier(strategy="stratified"))
                     .fit(X, codes))


def test_non_random_dummy_init_is_accepted():
    X, _, codes = make_data(11, nan=0.0)
    estimator = GradientBoostingClassifier(n_estimators=5, init=DummyClassifier(strategy="uniform")).fit(X, codes)
    model = from_sklearn(estimator)
    assert_same_predictions(estimator, model, probe_matrix(model, nan=False, limit=300))


# -- loading files ---------------------------------------------------------------------------------


def fitted_forest():
    X, _, codes = make_data(12)
    return RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0).fit(X, codes), X


def test_skops_file_loads_safely(tmp_path):
    import skops.io
    estimator, X = fitted_forest()
    path = str(tmp_path / "forest.skops")
    skops.io.dump(estimator, path)
    loaded, saved_by = load_skops(path)
    assert saved_by is None  # (this scikit-learn saved it)
    assert loaded.predict_proba(X).tolist() == estimator.predict_proba(X).tolist()
    assert modelio.dumps(import_file(path)) == modelio.dumps(from_sklearn(estimator))


def test_a_skops_file_without_skops_says_to_install_it(tmp_path):
    """On an install without skops (None in sys.modules makes its import fail): one line naming the package
    and the extra that brings it."""
    import skops.io
    path = str(tmp_path / "forest.skops")
    skops.io.dump(fitted_forest()[0], path)
    code = "import sys; sys.modules['skops'] = None; from treegen.cli import main; main(prog_name='treegen')"
    done = subprocess.run([sys.executable, "-c", code, "import", path], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    assert done.stderr == (f"treegen: error: {path}: reading a .skops file needs the skops package: pip install "
                           "skops (treegen's [sklearn] extra); skops reads it running no code from the file\n")


def test_verify_against_leaves_out_the_rows_scikit_learn_refuses(tmp_path):
    """A forest and gradient boosting refuse infinity and numbers beyond float32 (gradient boosting NaN
    too): `verify --against` leaves those probe rows out of the library's line, where it failed with a
    traceback; a forest fitted with two jobs predicts with one (its threads add the trees in no fixed
    order), so it agrees bit for bit; a file of another width is one error line."""
    import skops.io
    from click.testing import CliRunner
    from sklearn.datasets import make_classification
    from treegen.cli import main
    X, y = make_classification(600, 5, random_state=0)
    data = tmp_path / "rows.csv"
    data.write_text("x0,x1,x2,x3,x4\n" + "".join(",".join(map(repr, row)) + "\n" for row in X[:100].tolist()))
    for estimator in (RandomForestClassifier(30, max_depth=6, random_state=0, n_jobs=2).fit(X, y),
                      GradientBoostingClassifier(n_estimators=20, random_state=0).fit(X, y)):
        path, out = tmp_path / f"{type(estimator).__name__}.skops", tmp_path / "model.json"
        skops.io.dump(estimator, str(path))
        assert CliRunner().invoke(main, ["import", str(path), "-o", str(out)]).exit_code == 0
        result = CliRunner().invoke(main, ["verify", str(out), str(data), "--to", "python", "--against", str(path)])
        assert result.exit_code == 0, result.output
        library = re.search(r"scikit-learn itself +ok +(\d+) rows agree \(100 from the data", result.output)
        python = re.search(r"python +ok +(\d+) rows agree \(100 from the data", result.output)
        assert library and python and 0 < int(library[1]) < int(python[1]), result.output
    wider = tmp_path / "wider.skops"
    skops.io.dump(GradientBoostingClassifier(n_estimators=2).fit(np.hstack([X, X]), y), str(wider))
    result = CliRunner().invoke(main, ["verify", str(out), str(data), "--to", "python", "--against", str(wider)])
    assert result.exit_code == 2 and "this scikit-learn model takes 10 features, the treegen model 5" in result.output


def test_skops_file_with_foreign_types_is_refused(tmp_path):
    import fractions
    import skops.io
    estimator, _ = fitted_forest()
    estimator.note = fractions.Fraction(1, 3)
    path = str(tmp_path / "odd.skops")
    skops.io.dump(estimator, path)
    with pytest.raises(TreegenError, match="refusing to load types that are not scikit-learn trees: "
                                           "fractions.Fraction"):
        import_file(path)


def test_pickle_needs_trust(tmp_path):
    import joblib
    estimator, X = fitted_forest()
    pickled, dumped = str(tmp_path / "forest.pkl"), str(tmp_path / "forest.joblib")
    with open(pickled, "wb") as f:
        pickle.dump(estimator, f)
    joblib.dump(estimator, dumped)
    for path in (pickled, dumped):
        with pytest.raises(TreegenError, match="runs code stored in it; pass trust=True if") as info:
            import_file(path)
        assert str(info.value).startswith(path + ": ")
        assert info.value.command_line.startswith("loading a pickle or joblib file runs code stored in it; pass "
                                                  "--trust if the file is trusted")  # (the CLI's, as it was)
        with pytest.raises(TreegenError, match="treegen.import_model.path, trust=True. reads it$") as info:
            treegen.load(path)
        assert info.value.command_line.endswith("`treegen import --trust FILE -o model.json` reads it")
        result = CliRunner().invoke(main, ["import", path])
        assert result.exit_code == 2 and result.output.startswith(
            f"treegen: error: {path}: loading a pickle or joblib file runs code stored in it; pass --trust if")
        assert modelio.dumps(import_file(path, trust=True)) == modelio.dumps(from_sklearn(estimator))


@pytest.mark.parametrize("content, message", [
    (None, "no such model file"),
    (b"", "an empty file, not a model file treegen reads; expected scikit-learn: a .skops file"),
    (b"hello world\nsecond line\n", "text (first line: 'hello world'), not a model file treegen reads"),
    (b'{"a": 1, "b": [2]}', "JSON (keys: a, b), not a model file treegen reads"),
    (b"\x00\x01\x02garbage", "binary data, not a model file treegen reads"),
    (b'{"format": "treegen-model", "version": 1}', "this is already a treegen model"),
    (b"\x80\x04garbage", "runs code stored in it; pass trust=True"),
])
@pytest.mark.parametrize("name", ["model.skops", "model.pkl", "model.json", "model.txt"])
def test_bad_files_are_one_line_errors(tmp_path, name, content, message):
    """Each file is recognised by its first bytes and refused with what it looks like, whatever its
    name says; nothing is unpickled without --trust."""
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(TreegenError, match=re.escape(message)) as info:
        import_file(str(path))
    assert str(info.value).startswith(str(path) + ": ") and "\n" not in str(info.value)


def test_a_damaged_skops_file_says_so(tmp_path):
    path = tmp_path / "model.skops"
    path.write_bytes(b"PK\x03\x04not a zip")
    with pytest.raises(TreegenError, match="cannot load the .skops file: it is damaged"):
        import_file(str(path))


def test_a_skops_file_of_a_newer_skops_says_to_upgrade(tmp_path):
    """skops reads files of its own protocol or older: one a newer skops wrote (skops 0.9 reading 0.16's: "Can't
    find loader") is named as such, not as damaged."""
    import zipfile

    import skops
    import skops.io
    path, future = tmp_path / "model.skops", tmp_path / "future.skops"
    skops.io.dump(DecisionTreeClassifier(max_depth=2, random_state=0).fit([[0], [1], [2]], [0, 1, 1]), str(path))
    with zipfile.ZipFile(path) as archive, zipfile.ZipFile(future, "w") as written:
        for name in archive.namelist():
            content = archive.read(name)
            if name == "schema.json":
                schema = json.loads(content)
                content = json.dumps({**schema, "protocol": schema["protocol"] + 1, "_skops_version": "99.0.0"})
            written.writestr(name, content)
    with pytest.raises(TreegenError) as info:
        import_file(str(future))
    assert str(info.value) == (f"{future}: cannot load the .skops file: skops 99.0.0 wrote it, and skops "
                               f"{skops.__version__} here cannot read it: pip install -U skops")


def test_a_damaged_pickle_says_so_with_trust(tmp_path):
    path = tmp_path / "junk.pkl"
    path.write_bytes(b"\x80\x04garbage")
    with pytest.raises(TreegenError, match="cannot load the pickle: the file is damaged") as info:
        import_file(str(path), trust=True)
    assert "Error" not in str(info.value)  # no internal exception text


# -- end to end: import -> emit -> run the generated program -> compare with sklearn -------------------

SQL_ENGINES = tuple(ENGINES)
TARGETS = PROGRAMS + SQL_ENGINES


def csv_input(model, X: np.ndarray) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([f.name for f in model.features])
    writer.writerows([["" if math.isnan(v) else repr(v) for v in row] for row in X.tolist()])
    return out.getvalue()


def program(model, target: str, name: str = "TreegenModel") -> str:
    """The generated program (SQL: query). Classifiers always get ``--proba`` support, so that one
    compilation serves both runs; Java classes are named, so that several compile in one javac call."""
    options = {"proba": model.target.is_classification}
    if target in SQL_ENGINES:
        return emit(model, "sql", dialect=target, **options)
    return emit(model, target, **options, **({"class_name": name} if target == "java" else {}))


def run_generated(model, target: str, X: np.ndarray, arg_sets=((),), name: str = "TreegenModel",
                  engine: dict | None = None) -> list[list[list[str]]]:
    """Run the model's program for ``target`` (a language, or a SQL engine) on ``X`` with each of
    ``arg_sets``; the parsed CSV of each. A SQL engine runs the query once and its rows are printed
    as each set of arguments asks (a query costs Spark its planning and compilation).
    ``engine``: connection options of a server engine (``dsn`` for PostgreSQL and MySQL, ``spark``)."""
    source, text = program(model, target, name), csv_input(model, X)
    if target in SQL_ENGINES:
        results = query_sql(source, model, read_csv(model, text), target, **(engine or {}))
        outputs = [format_results(model, results, list(args)) for args in arg_sets]
    else:
        outputs = [TARGET_TABLE[target].run(source, text, list(args)) for args in arg_sets]
    return [list(csv.reader(io.StringIO(output, newline=""))) for output in outputs]


def assert_program_agrees(estimator, model, target: str, X: np.ndarray, name: str = "TreegenModel",
                          engine: dict | None = None) -> None:
    classify = model.target.is_classification
    labels, *proba = run_generated(model, target, X, [(), ("--proba",)] if classify else [()], name, engine)
    printed = [record[0] for record in labels]
    if not classify:
        for got, want in zip(printed, estimator.predict(X).tolist(), strict=True):
            assert is_close(float(got), want), (name, got, want)
        return
    assert printed == [str(label) for label in estimator.predict(X).tolist()], name
    header, *rows = proba[0]
    assert tuple(header) == model.target.classes
    for got, want in zip(rows, estimator.predict_proba(X).tolist(), strict=True):
        assert all(is_close(float(g), w) for g, w in zip(got, want, strict=True)), (name, got, want)


@functools.lru_cache(maxsize=None)
def end_to_end_cases() -> dict:
    """Fitted estimators of every family and link: name -> (estimator, model, probe rows)."""
    X, y, codes = make_data(20, n=150)
    dense = np.nan_to_num(X)
    labels = LABELS["str"][codes]
    cases = {
        "Tree": (DecisionTreeClassifier(max_depth=6, random_state=0), X, labels),
        "ForestRegressor": (RandomForestRegressor(n_estimators=8, max_depth=5, random_state=0), X, y),
        "ExtraTrees": (ExtraTreesClassifier(n_estimators=8, max_depth=5, random_state=0), X, codes),
        "GbSoftmax": (GradientBoostingClassifier(n_estimators=6, max_depth=2, random_state=0), dense, labels),
        "GbSigmoid": (GradientBoostingClassifier(n_estimators=6, max_depth=2, random_state=0), dense, codes > 0),
        "GbExponential": (GradientBoostingClassifier(n_estimators=6, loss="exponential", random_state=0), dense,
                          codes > 0),
        "GbRegressor": (GradientBoostingRegressor(n_estimators=6, random_state=0), dense, y),
        "GbRawZero": (GradientBoostingClassifier(n_estimators=2, max_depth=1),  # balanced: raw == 0
                      np.repeat(np.arange(4.0), 2).reshape(-1, 1), np.tile(["no", "yes"], 4)),
    }
    fitted = {}
    for name, (estimator, X, y) in cases.items():
        model = from_sklearn(estimator.fit(X, y))
        boosted = isinstance(estimator, (GradientBoostingClassifier, GradientBoostingRegressor))
        probes = np.vstack([probe_matrix(model, nan=not boosted, limit=400), X[:50]])
        fitted[name] = (estimator, model, probes)
    return fitted


@pytest.mark.parametrize("target", TARGETS)
def test_generated_programs_predict_what_sklearn_predicts(target, connect):
    cases = end_to_end_cases()
    engine = connect(target)
    if target == "java":  # one javac run for all the classes
        from treegen.run.java import compile_sources
        compile_sources([program(model, "java", name) for name, (_, model, _) in cases.items()])
    for name, (estimator, model, probes) in cases.items():
        assert_program_agrees(estimator, model, target, probes, name, engine)


def test_500_tree_forest_compiles_and_runs_in_java():
    X, _, codes = make_data(21, n=400, nan=0.05)
    estimator = RandomForestClassifier(n_estimators=500, max_depth=5, random_state=0).fit(X, codes)
    model = from_sklearn(estimator)
    assert_program_agrees(estimator, model, "java", probe_matrix(model, limit=500))


def test_rule_text_parsed_back_predicts_what_sklearn_predicts():
    from treegen.parse.rule_text import parse
    for name, (estimator, model, probes) in end_to_end_cases().items():
        again = parse(emit(model, "rules"), name)
        rows = [{f.name: (None if math.isnan(v) else v) for f, v in zip(again.features, row)}
                for row in probes.tolist()]
        predicted = [again.predict(row) for row in rows]
        if not model.target.is_classification:
            assert all(is_close(p, w) for p, w in zip(predicted, estimator.predict(probes).tolist())), name
            continue
        assert predicted == [str(label) for label in estimator.predict(probes).tolist()], name
        for row, want in zip(rows, estimator.predict_proba(probes).tolist()):
            assert all(is_close(g, w) for g, w in zip(again.scores(row), want)), name


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # scikit-learn's own overflow, the point of the test
@pytest.mark.parametrize("estimator", [GradientBoostingRegressor(n_estimators=3, max_depth=2), DecisionTreeRegressor(),
                                       HistGradientBoostingRegressor(max_iter=3)])
def test_a_fit_that_overflowed_is_refused_as_such(estimator, tmp_path):
    """Targets near the largest double overflow scikit-learn's sums: its tree (an inner node's mean, here)
    or its initial score holds NaN or an infinity, which a treegen model cannot; treegen says so on
    import, rather than write a model file that its own loader then refuses."""
    from click.testing import CliRunner
    from skops.io import dump
    from treegen.cli import main
    X = np.arange(8.0).reshape(-1, 1)
    estimator.fit(X, np.array([1.5e308, 1.6e308] * 4))
    with pytest.raises(TreegenError, match=r"is (nan|inf): scikit-learn's fit overflowed"):
        from_sklearn(estimator)
    dump(estimator, tmp_path / "m.skops")
    result = CliRunner().invoke(main, ["import", str(tmp_path / "m.skops")])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "overflowed" in result.output, result.output


def test_verify_against_gives_gradient_boosting_a_value_for_a_feature_no_split_tests():
    """verify's rows leave a feature no split tests empty, and GradientBoosting refuses a row holding
    NaN: every data row was left out of the library's line ("100 data rows left out, which scikit-learn
    refuses: Input X contains NaN", of rows holding none) and the line still said ok. Such a feature
    changes no answer, so the oracle gives it 0.0 and every data row is checked."""
    rng = np.random.default_rng(0)
    X = np.c_[rng.normal(size=(100, 2)).round(2), np.ones(100)]  # x2 constant: no split tests it
    estimator = GradientBoostingRegressor(n_estimators=3, max_depth=2).fit(X, X[:, 0] - X[:, 1])
    model = from_sklearn(estimator)
    assert model.used_features() == [0, 1]
    report = treegen.verify(model, X, to=[], against=estimator)
    assert report.ok and "100 from the data" in str(report) and "data rows left out" not in str(report), str(report)
