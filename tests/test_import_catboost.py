"""Imported CatBoost models predict what CatBoost predicts: raw values, labels and binary probabilities
bit for bit, at every border, its float32 and float64 neighbours, NaN, zeros, tiny and huge values and
infinities, known, unknown and empty categories; MultiClass probabilities and Poisson's and Tweedie's
Exponent within EXP_TOLERANCE (CatBoost's fast exp is not libm's).

The committed fixtures (tests/fixtures/catboost, written by CatBoost 1.2 and 1.2.10) are checked
without CatBoost; every other test trains with the CatBoost installed."""
from __future__ import annotations

import glob
import itertools
import json
import math
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import treegen
from treegen import from_catboost, modelio
from treegen.cli import main as cli
from treegen.errors import TreegenError
from treegen.importers import IMPORTERS, import_file
from treegen.importers.catboost import (EXP_TOLERANCE, JSON_READER_TOLERANCE, cat_hash, class_text, oracle, read_cbm,
                                        read_json)
from treegen.model import Link, Model, has_label_values, is_close, tree_output
from treegen.verifier import verify
from treegen.walk import combined_rows, encode_columns, predict_rows

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "catboost")
COLORS = ["red", "green", "blue", "grün", ""]  # as tests/fixtures/catboost/make_fixtures.py has them
PROBE_COLORS = COLORS + ["unseen", "Red", "数据"]
SPECIAL = [math.nan, 0.0, -0.0, 1e-35, -1e-35, 1e-36, -1e-36, 1e-46, -1e-46, 1e-300, 3.0e38, 3.5e38, -3.5e38,
           1e39, -1e39, math.inf, -math.inf]


# -- comparing ------------------------------------------------------------------------------------


def raw_sums(model: Model, row: dict) -> list[float]:
    return model.raw_sums([tree_output(model, tree, row) for tree in model.trees])


def exact_probabilities(model: Model) -> bool:
    """Sigmoids (binary, one-vs-all) use libm's exp, as the model does; softmax and Exponent use
    CatBoost's fast exp."""
    return model.combine.link in (Link.IDENTITY, Link.SIGMOID)


def assert_close(got: list[float], want: list[float], exact: bool, context) -> None:
    if exact:
        assert got == want, context
    else:
        assert all(is_close(g, w, EXP_TOLERANCE) for g, w in zip(got, want, strict=True)), (context, got, want)


ROW_WALK_EVERY = 10  # the row walk (Model.predict's, 300 trees a row in Python) on every tenth row


def assert_agrees(model: Model, rows: list[dict], raw, labels=None, scores=None, walk_every=ROW_WALK_EVERY) -> None:
    """The model's raw sums, labels and scores against the library's: on every row by the batch walk (the one
    ``verify`` and ``treegen predict`` use), and on every ``walk_every``-th row by the row walk too
    (:func:`tree_output` each tree, then :meth:`Model.predict`), which must answer as the batch walk does."""
    exact = exact_probabilities(model)
    assert not has_label_values(model)  # each label is the one Model.predict decides from the trees' outputs
    assert combined_rows(model, encode_columns(model, rows), rows.__getitem__) == [list(r) for r in raw]
    walked = predict_rows(model, rows)
    for i, (row, (label, score)) in enumerate(zip(rows, walked, strict=True)):
        if i % walk_every == 0:
            outputs = [tree_output(model, tree, row) for tree in model.trees]
            assert model.raw_sums(outputs) == list(raw[i]), (row, model.raw_sums(outputs), list(raw[i]))
            assert model.combined(outputs) == (label, score) and model.predict(row) == label, row
        if labels is not None:
            assert label == labels[i], (row, label, labels[i])
        if scores is not None:
            assert_close(score, list(scores[i]), exact, row)


# -- the committed fixtures, without CatBoost ---------------------------------------------------------


def fixture_names() -> list[str]:
    return sorted(os.path.basename(p)[:-len(".expected.json")] for p in glob.glob(f"{FIXTURES}/*.expected.json"))


def test_fixtures_cover_an_older_and_the_latest_catboost():
    versions = {name.rsplit("-", 1)[1] for name in fixture_names()}
    assert {"1.2", "1.2.10"} <= versions


@pytest.mark.parametrize("name", fixture_names())
def test_fixture_predicts_what_catboost_recorded(name):
    with open(f"{FIXTURES}/{name}.expected.json", encoding="utf-8") as f:
        expected = json.load(f)
    categories = {"color": COLORS} if name.startswith("depthwise_nopool") else None
    model = read_json(f"{FIXTURES}/{name}.json", categories=categories)
    assert model.meta.get("library_version") == (None if expected["version"] == "1.2" else expected["version"])
    rows = [{feature: value for feature, value in zip(expected["features"], row)} for row in expected["rows"]]
    if "labels" in expected:
        kind = model.meta["catboost"]["class_type"]
        labels = [class_text(label, kind) for label in expected["labels"]]
        assert_agrees(model, rows, expected["raw"], labels, expected["probabilities"], walk_every=1)
    else:
        values = expected.get("values", [r[0] for r in expected["raw"]])
        assert_agrees(model, rows, expected["raw"], scores=[[v] for v in values], walk_every=1)
    assert len(rows) > 60 and model.used_features()


def test_fixture_without_pool_needs_category_names():
    """The advice names how to give the categories where the user is: the Python argument from Python,
    the option from the command line."""
    path = next(p for p in glob.glob(f"{FIXTURES}/depthwise_nopool-*.json") if not p.endswith(".expected.json"))
    with pytest.raises(TreegenError, match="known only by its hash .*save_model\\(path, format='json', "
                                           "pool=training_pool\\), or name the feature's categories: "
                                           "treegen.from_catboost\\(model, categories=\\{'color': \\['A', 'B', "
                                           "...\\]\\}\\) or categories=the DataFrame it was trained on "
                                           "\\(or that argument of treegen.import_model for a file\\)$") as info:
        import_file(path)
    assert str(info.value).startswith(path + ": ")
    done = CliRunner().invoke(cli, ["import", path])
    assert done.exit_code == 2 and done.output.endswith(
        "or name the feature's categories (predict, export, show and evaluate read a model imported with them; import and verify take them: --categories color=A,B,...)\n"), done.output
    assert done.output.startswith(f"treegen: error: {path}: a one-hot split") and done.output.count("\n") == 1


def test_every_unnamed_categorical_feature_is_named_at_once(tmp_path):
    """Two categorical features known only by hash: one error names both, with an option for each, where it
    named the first alone and a user found the second on the next run."""
    from catboost import CatBoostRegressor
    frame, signal = make_data(3)
    frame["shade"] = frame["color"].map({"red": "dark", "green": "light", "blue": "dark", "grün": "mid", "": "mid"})
    estimator = CatBoostRegressor(one_hot_max_size=8, cat_features=["color", "shade"], **KW).fit(frame, signal)
    path = saved(estimator, tmp_path)
    with pytest.raises(TreegenError, match="categorical features 'color', 'shade' test categories known only by "
                                           "their hash.*categories=\\{'color': \\['A', 'B', ...\\], 'shade': "
                                           "\\['A', 'B', ...\\]\\}"):
        import_file(path)
    done = CliRunner().invoke(cli, ["import", path])
    assert done.exit_code == 2 and done.output.count("\n") == 1, done.output
    assert done.output.endswith("--categories color=A,B,... --categories shade=A,B,...)\n"), done.output
    named = CliRunner().invoke(cli, ["import", path, "-o", str(tmp_path / "m.json"), "--categories",
                                     "color=red,green,blue,grün,", "--categories", "shade=dark,light,mid"])
    assert named.exit_code == 0, named.output


def test_from_model_without_category_names_names_the_python_argument():
    """A fitted model knows its one-hot categories only by hash: treegen.from_model says to give them to
    treegen.from_catboost, which takes them (it used to advise the CLI's --categories)."""
    import treegen
    from catboost import CatBoostClassifier
    frame, signal = make_data(11)
    estimator = CatBoostClassifier(one_hot_max_size=8, cat_features=["color"], **KW).fit(frame, signal > 0)
    with pytest.raises(TreegenError, match="treegen.from_catboost\\(model, categories=\\{'color': ") as info:
        treegen.from_model(estimator)
    assert "--categories" not in str(info.value)
    model = treegen.from_catboost(estimator, categories={"color": COLORS})
    assert model.features[1].categories == tuple(COLORS)


# -- CatBoost's category hash ----------------------------------------------------------------------


def test_category_hash_is_catboosts_for_every_length_and_script(tmp_path):
    """CityHash64 v1.0 takes another path for 0, 1-3, 4-8, 9-16, 17-32, 33-64 and more bytes."""
    from catboost import CatBoostClassifier, Pool
    strings = [""] + ["".join(chr(97 + (i * 7 + j) % 26) for j in range(n)) for i, n in enumerate(range(1, 140))]
    strings += ["naïve", "数据", "😀 emoji", "a,b", "-1", "3.5", "0"]
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"c": rng.choice(strings, 3000), "x": rng.normal(size=3000)})
    pool = Pool(frame, (rng.random(3000) > 0.5).astype(int), cat_features=["c"])
    model = CatBoostClassifier(iterations=1, depth=1, verbose=0, one_hot_max_size=255, thread_count=1,
                               allow_writing_files=False).fit(pool)
    model.save_model(str(tmp_path / "m.json"), format="json", pool=pool)
    table = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))["features_info"]["cat_features_hash"]
    assert len(table) == len(strings)
    assert [cat_hash(e["value"]) for e in table] == [e["hash"] for e in table]



def test_a_model_without_categorical_features_saved_with_its_pool_imports(tmp_path):
    """save_model(..., pool=) writes "cat_features_hash": null when no feature is categorical."""
    from catboost import CatBoostRegressor, Pool
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=200), "z": rng.normal(size=200)})
    pool = Pool(frame, frame["x"] * 2 + rng.normal(size=200))
    model = CatBoostRegressor(iterations=3, depth=2, verbose=0, thread_count=1, allow_writing_files=False).fit(pool)
    model.save_model(str(tmp_path / "m.json"), format="json", pool=pool)
    assert json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))["features_info"]["cat_features_hash"] is None
    imported = import_file(str(tmp_path / "m.json"))
    predicted = [value for value, _ in predict_rows(imported, frame.to_dict("records"))]
    assert predicted == pytest.approx(model.predict(frame), rel=1e-12)


# -- models trained here ----------------------------------------------------------------------------


def make_data(seed: int = 0, n: int = 400, nan: bool = True) -> tuple[pd.DataFrame, pd.Series]:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"x0": np.round(rng.normal(size=n), 3), "color": rng.choice(COLORS, n),
                          "x1": rng.normal(size=n), "x2": np.round(rng.normal(size=n) * 2)})
    if nan:
        frame.loc[::7, "x1"] = np.nan
    signal = frame.x0 + frame.x1.fillna(1.0) + (frame.color == "red") - (frame.color == "") + (frame.x2 > 0)
    return frame, signal


def border_neighbours(border: float) -> list[float]:
    """The border, the float32 either side, the float64 midpoints between them (where the float32
    cast flips) and the doubles either side of each."""
    b32 = np.float32(border)
    with np.errstate(over="ignore"):  # a border at FLT_MAX has infinity above it
        points = [float(np.nextafter(b32, np.float32(-np.inf))), float(b32),
                  float(np.nextafter(b32, np.float32(np.inf)))]
    points += [(points[0] + points[1]) / 2, (points[1] + points[2]) / 2]
    return sorted({v for p in points for v in (math.nextafter(p, -math.inf), p, math.nextafter(p, math.inf))})


def probe_frame(model: Model, frame: pd.DataFrame, texts: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """Rows of the training frame with one value replaced: every border's neighbours and SPECIAL for
    a numeric feature, PROBE_COLORS for a categorical one (or its ``texts``)."""
    blocks = [frame.iloc[:20]]
    for j, feature in enumerate(model.features):
        if feature.is_numeric:
            borders = {n.split.threshold for t in model.trees for n in t.nodes if n.split and n.split.feature == j}
            values = sorted({v for b in borders for v in border_neighbours(b)}) + SPECIAL
        else:
            values = (texts or {}).get(feature.name, PROBE_COLORS)
        block = pd.concat([frame.iloc[:2]] * len(values), ignore_index=True)
        block[feature.name] = np.repeat(np.array(values, dtype=object if not feature.is_numeric else float), 2)
        blocks.append(block)
    probe = pd.concat(blocks, ignore_index=True)
    return probe.astype({f.name: float for f in model.features if f.is_numeric})


def as_rows(probe: pd.DataFrame) -> list[dict]:
    return [{k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
            for row in probe.astype(object).to_dict("records")]


def assert_agrees_with_catboost(estimator, model: Model, frame: pd.DataFrame,
                                texts: dict[str, list[str]] | None = None) -> None:
    from catboost import CatBoost
    probe = probe_frame(model, frame, texts)
    # CatBoost's own predict: CatBoostRanker's takes no prediction_type
    raw = np.asarray(CatBoost.predict(estimator, probe, prediction_type="RawFormulaVal")).reshape(len(probe), -1)
    rows = as_rows(probe)
    if model.target.is_classification:
        kind = model.meta["catboost"]["class_type"]
        labels = [class_text(v, kind) for v in np.asarray(estimator.predict(probe)).reshape(-1).tolist()]
        assert_agrees(model, rows, raw.tolist(), labels, estimator.predict_proba(probe).tolist())
    else:
        values = np.asarray(estimator.predict(probe)).reshape(-1).tolist()
        assert_agrees(model, rows, raw.tolist(), scores=[[v] for v in values])


def saved(estimator, tmp_path, frame=None, categorical=()) -> str:
    """The model saved as JSON (returned) and as model.cbm beside it, for the oracle."""
    from catboost import Pool
    path = str(tmp_path / "model.json")
    pool = Pool(frame, cat_features=list(categorical)) if categorical else None
    estimator.save_model(path, format="json", pool=pool)
    estimator.save_model(str(tmp_path / "model.cbm"))
    return path


KW = {"iterations": 8, "depth": 3, "verbose": 0, "random_seed": 1, "thread_count": 1,
      "allow_writing_files": False}  # no catboost_info folder in the working directory


def classifier_cases():
    from catboost import CatBoostClassifier
    return {
        "logloss_nan_min": (CatBoostClassifier(**KW), ["x0", "x1", "x2"], "int"),
        "logloss_nan_max": (CatBoostClassifier(nan_mode="Max", **KW), ["x0", "x1", "x2"], "int"),
        "onehot": (CatBoostClassifier(one_hot_max_size=8, cat_features=["color"], **KW), None, "str"),
        "boost_from_average": (CatBoostClassifier(boost_from_average=True, **KW), ["x0", "x1", "x2"], "bool"),
        "crossentropy": (CatBoostClassifier(loss_function="CrossEntropy", **KW), ["x0", "x1", "x2"], "fraction"),
        "focal": (CatBoostClassifier(loss_function="Focal:focal_alpha=0.25;focal_gamma=2", **KW), ["x0", "x1", "x2"],
                  "int"),
        "multiclass": (CatBoostClassifier(loss_function="MultiClass", **KW), ["x0", "x1", "x2"], "three"),
        "multiclass_onehot": (CatBoostClassifier(loss_function="MultiClass", one_hot_max_size=8,
                                                 cat_features=["color"], **KW), None, "three_int"),
        "one_vs_all": (CatBoostClassifier(loss_function="MultiClassOneVsAll", **KW), ["x0", "x1", "x2"], "three"),
        "depthwise": (CatBoostClassifier(grow_policy="Depthwise", one_hot_max_size=8, cat_features=["color"], **KW),
                      None, "float"),
        "lossguide": (CatBoostClassifier(grow_policy="Lossguide", max_leaves=7, **KW), ["x0", "x1", "x2"], "str"),
    }


def labels_for(kind: str, signal: pd.Series):
    binary = (signal > 0.3).astype(int).to_numpy()
    three = np.digitize(signal, [-0.5, 1.0])
    return {"int": binary, "str": np.array(["no", "yes"])[binary], "bool": binary.astype(bool),
            "float": np.array([0.0, 2.5])[binary], "fraction": binary * 0.8 + 0.1,
            "three": np.array(["low", "mid", "high"])[three], "three_int": np.array([3, 7, 11])[three]}[kind]


@pytest.mark.parametrize("case", sorted(classifier_cases()))
def test_classifiers_agree_with_catboost(case, tmp_path):
    estimator, columns, kind = classifier_cases()[case]
    frame, signal = make_data(1)
    frame = frame if columns is None else frame[columns]
    categorical = [] if columns is not None else ["color"]
    estimator.fit(frame, labels_for(kind, signal))
    model = import_file(saved(estimator, tmp_path, frame, categorical))
    assert model.target.classes == tuple(class_text(c, model.meta["catboost"]["class_type"])
                                         for c in estimator.classes_) or kind == "fraction"
    assert model.numeric.cast == "float32" and model.combine.decide is not None
    assert_agrees_with_catboost(estimator, model, frame)
    assert_oracle_agrees(model, str(tmp_path / "model.cbm"), probe_frame(model, frame))


def regressor_cases():
    from catboost import CatBoostRegressor
    cases = {loss: (CatBoostRegressor(loss_function=loss, **KW), "plain")
             for loss in ("RMSE", "MAE", "Quantile:alpha=0.8", "Expectile:alpha=0.3", "MAPE", "Huber:delta=0.5",
                          "Lq:q=1.5", "LogCosh", "LogLinQuantile", "RMSPE")}
    cases.update({
        "Poisson": (CatBoostRegressor(loss_function="Poisson", **KW), "counts"),
        "Tweedie": (CatBoostRegressor(loss_function="Tweedie:variance_power=1.5", **KW), "counts"),
        "nan_max_without_nan": (CatBoostRegressor(nan_mode="Max", **KW), "no_nan"),
        "depthwise_onehot": (CatBoostRegressor(grow_policy="Depthwise", one_hot_max_size=8, cat_features=["color"],
                                               **KW), "color"),
        "lossguide": (CatBoostRegressor(grow_policy="Lossguide", max_leaves=9, **KW), "plain"),
    })
    return cases


@pytest.mark.parametrize("case", sorted(regressor_cases()))
def test_regressors_agree_with_catboost(case, tmp_path):
    estimator, data = regressor_cases()[case]
    frame, signal = make_data(2, nan=data != "no_nan")
    categorical = ["color"] if data == "color" else []
    frame = frame if categorical else frame[["x0", "x1", "x2"]]
    target = np.round(np.exp(signal / 2)) if data == "counts" else signal * 2 + 0.5 + (data == "plain") * 3
    estimator.fit(frame, np.abs(target) + 0.1 if case in ("MAPE", "RMSPE", "LogLinQuantile") else target)
    model = import_file(saved(estimator, tmp_path, frame, categorical))
    assert model.combine.link == (Link.EXP if data == "counts" else Link.IDENTITY)
    assert_agrees_with_catboost(estimator, model, frame)
    assert_oracle_agrees(model, str(tmp_path / "model.cbm"), probe_frame(model, frame))


RANKING_CASES = ["YetiRank", "YetiRankPairwise", "PairLogit", "PairLogitPairwise", "QueryRMSE", "QuerySoftMax",
                 "StochasticRank:metric=NDCG", "StochasticFilter", "LambdaMart"]


def survival_labels(loss: str, signal: pd.Series):
    """Cox: a time, negative where censored; SurvivalAft: an interval [low, high], high -1 where right-censored."""
    time = np.exp(signal.to_numpy() / 3)
    censored = np.arange(len(time)) % 4 == 0
    if loss == "Cox":
        return np.where(censored, -time, time)
    return np.c_[time, np.where(censored, -1.0, time)]


@pytest.mark.parametrize("loss", [*RANKING_CASES, "Cox", "SurvivalAft"])
def test_ranking_and_survival_models_predict_their_raw_value(loss, tmp_path):
    """CatBoost's predict of a ranking loss (CatBoostRanker) or a survival loss (CatBoostRegressor) is the raw
    value, RawFormulaVal: from the JSON, bit for bit at every border, one ulp either side and NaN, in every
    target and against CatBoost's own predict of the .cbm; the model says what the number is."""
    from catboost import CatBoostRanker, CatBoostRegressor
    frame, signal = make_data(3)
    frame = frame[["x0", "x1", "x2"]]
    if loss in ("Cox", "SurvivalAft"):
        estimator = CatBoostRegressor(loss_function=loss, **KW).fit(frame, survival_labels(loss, signal))
    else:
        estimator = CatBoostRanker(loss_function=loss, **KW).fit(
            frame, np.digitize(signal, [-0.5, 0.5, 1.5]), group_id=np.arange(len(frame)) // 20)
    path = saved(estimator, tmp_path)
    model = import_file(path)
    name = loss.split(":")[0]
    assert model.combine.link == Link.IDENTITY and not model.target.is_classification
    assert model.meta["predicts"].startswith({"Cox": "the log of the relative hazard (Cox)",
                                              "SurvivalAft": "the log of the predicted survival time"}.get(
        name, f"a ranking score ({name}): the trees' sum"))
    assert modelio.dumps(from_catboost(estimator)) == modelio.dumps(model)
    assert_agrees_with_catboost(estimator, model, frame)
    cbm = str(tmp_path / "model.cbm")
    assert_oracle_agrees(model, cbm, probe_frame(model, frame))
    results = verify(model, None, ["python", "java", "javascript", "c", "sql"], ["sqlite", "duckdb"], against=cbm)
    assert len(results) == 7 and all(r.ok for r in results), [r.line() for r in results]


def test_query_cross_entropy_trained_on_gpus_is_its_raw_value(tmp_path):
    """QueryCrossEntropy trains only on GPUs: a QueryRMSE model renamed, which CatBoost predicts as its raw value."""
    from catboost import CatBoostRanker
    frame, signal = make_data(4)
    frame = frame[["x0", "x1", "x2"]]
    estimator = CatBoostRanker(loss_function="QueryRMSE", **KW).fit(frame, signal, group_id=np.arange(400) // 20)
    path = saved(estimator, tmp_path)
    document = json.load(open(path, encoding="utf-8"))
    document["model_info"]["params"]["loss_function"] = {"type": "QueryCrossEntropy", "params": {"alpha": "0.95"}}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(document, f)
    model = import_file(path)
    assert model.meta["objective"] == "QueryCrossEntropy" and model.meta["predicts"].startswith("a ranking score")
    assert_oracle_agrees(model, path, probe_frame(model, frame), JSON_READER_TOLERANCE)


def test_scale_and_bias_is_one_multiplication_then_one_addition(tmp_path):
    """0.3 * sum + 1.1: any fused multiply-add or reordering would show in the last bits."""
    from catboost import CatBoostRegressor
    frame, signal = make_data(3)
    estimator = CatBoostRegressor(**KW).fit(frame[["x0", "x1", "x2"]], signal)
    estimator.set_scale_and_bias(0.3, 1.1)
    model = import_file(saved(estimator, tmp_path))
    assert model.combine.init_last and model.combine.scale == 0.3 and model.combine.init == (1.1,)
    assert_agrees_with_catboost(estimator, model, frame[["x0", "x1", "x2"]])


def test_plain_sums_need_no_bias():
    frame, signal = make_data(4)
    from catboost import CatBoostClassifier
    estimator = CatBoostClassifier(**KW).fit(frame[["x0", "x1"]], signal > 0)
    model = from_catboost(estimator)
    assert not model.combine.init_last and model.combine.init == (0.0,)


def test_nan_routes_follow_nan_value_treatment():
    from catboost import CatBoostClassifier
    frame, signal = make_data(5)
    numeric = frame[["x0", "x1"]]
    for mode, route in (("Min", 0), ("Max", 1), ("Forbidden", None)):
        if mode == "Forbidden":
            numeric = numeric.fillna(0.0)
        model = from_catboost(CatBoostClassifier(nan_mode=mode, **KW).fit(numeric, signal > 0))
        routes = {n.split.missing.child for t in model.trees for n in t.nodes if n.split and n.split.feature == 1}
        assert routes == ({route} if route is not None else {0}), mode


def test_early_stopping_keeps_the_best_trees(tmp_path):
    from catboost import CatBoostClassifier
    frame, signal = make_data(6, n=600)
    numeric, label = frame[["x0", "x1", "x2"]], (signal > 0.3).astype(int)
    estimator = CatBoostClassifier(iterations=300, learning_rate=0.5, depth=3, verbose=0, random_seed=1,
                                   thread_count=1, early_stopping_rounds=5, use_best_model=True,
                                   allow_writing_files=False)
    estimator.fit(numeric[:400], label[:400], eval_set=(numeric[400:], label[400:]))
    model = import_file(saved(estimator, tmp_path))
    assert len(model.trees) == estimator.tree_count_ == estimator.get_best_iteration() + 1 < 300
    assert_agrees_with_catboost(estimator, model, numeric)


def test_object_and_file_import_alike(tmp_path):
    from catboost import CatBoostClassifier
    frame, signal = make_data(7)
    estimator = CatBoostClassifier(one_hot_max_size=8, cat_features=["color"], **KW).fit(frame, signal > 0)
    from_file = import_file(saved(estimator, tmp_path, frame, ["color"]))
    from_object = from_catboost(estimator, categories={"color": COLORS})
    assert from_object.meta["catboost"]["categories"] == {"color": "given"}
    rows = as_rows(probe_frame(from_file, frame))
    assert predict_rows(from_object, rows) == predict_rows(from_file, rows)
    numeric = CatBoostClassifier(**KW).fit(frame[["x0", "x1"]], signal > 0)
    assert modelio.dumps(from_catboost(numeric)) == modelio.dumps(import_file(saved(numeric, tmp_path)))


def test_names_categories_and_meta(tmp_path):
    from catboost import CatBoostClassifier
    frame, signal = make_data(8)
    estimator = CatBoostClassifier(one_hot_max_size=8, cat_features=["color"], **KW).fit(frame, signal > 0)
    path = saved(estimator, tmp_path)  # no pool: categories from the user
    model = import_file(path, categories={"color": COLORS + ["purple"]})
    assert [f.name for f in model.features] == ["x0", "color", "x1", "x2"]
    assert model.features[1].categories == tuple(COLORS + ["purple"])
    assert model.meta["library"] == "CatBoost" and model.meta["objective"] == "Logloss"
    assert [str(c) for c in model.meta["catboost"]["classes"]] == ["False", "True"]  # 1.2 writes them as text
    # the names of the frame it was fitted on are the model's own: repeated, not renamed (a renamed column is
    # read as another feature), as for every library; a model fitted on arrays takes any
    with pytest.raises(ValueError, match="gives other names than the model's own"):
        import_file(path, feature_names=["a", "b", "c", "d"], categories={"b": COLORS})
    with pytest.raises(ValueError, match="the model's own feature names in another order"):
        import_file(path, feature_names=["color", "x0", "x1", "x2"], categories={"color": COLORS})
    again = import_file(path, feature_names=["x0", "color", "x1", "x2"], categories={"color": COLORS})
    assert [f.name for f in again.features] == ["x0", "color", "x1", "x2"]
    loaded = modelio.loads(modelio.dumps(model))
    rows = as_rows(probe_frame(model, frame))
    assert predict_rows(loaded, rows) == predict_rows(model, rows)
    plain = CatBoostClassifier(**KW).fit(frame[["x0", "x1"]].to_numpy(), signal > 0)
    assert [f.name for f in from_catboost(plain).features] == ["x0", "x1"]
    assert [f.name for f in from_catboost(plain, feature_names=["p", "q"]).features] == ["p", "q"]


def assert_oracle_agrees(model: Model, path: str, probe: pd.DataFrame, tolerance: float | None = None) -> None:
    """verify --against: the library's (label or value, scores) for treegen's rows; ``tolerance``
    (relative, or absolute below 1) where CatBoost reads the model from JSON."""
    rows = as_rows(probe)
    exact = exact_probabilities(model)
    for (label, scores), (want_label, want_scores), row in zip(predict_rows(model, rows), oracle(path, model, rows),
                                                                rows, strict=True):
        if model.target.is_classification:
            assert label == want_label, row
        if tolerance is None:
            assert_close(scores, want_scores, exact, row)
        else:
            assert all(abs(g - w) <= tolerance * max(1.0, abs(w)) for g, w in zip(scores, want_scores)), row




def test_oracle_on_cbm_is_exact_and_on_json_close(tmp_path):
    from catboost import CatBoost, CatBoostRegressor
    frame, signal = make_data(9)
    estimator = CatBoostRegressor(**{**KW, "iterations": 40}).fit(frame[["x0", "x1", "x2"]], signal)
    path = saved(estimator, tmp_path)
    reread = CatBoost()
    reread.load_model(path, format="json")
    written = [v for tree in json.load(open(path, encoding="utf-8"))["oblivious_trees"] for v in tree["leaf_values"]]
    assert estimator.get_leaf_values().tolist() == written
    assert reread.get_leaf_values().tolist() != written  # CatBoost's JSON reader, not treegen's
    model = import_file(path)
    probe = probe_frame(model, frame[["x0", "x1", "x2"]])
    assert_oracle_agrees(model, str(tmp_path / "model.cbm"), probe)
    assert_oracle_agrees(model, path, probe, JSON_READER_TOLERANCE)


def test_oracle_gives_missing_categories_as_empty(tmp_path):
    from catboost import CatBoostClassifier
    frame, signal = make_data(9)
    estimator = CatBoostClassifier(one_hot_max_size=8, cat_features=["color"], **KW).fit(frame, signal > 0)
    model = import_file(saved(estimator, tmp_path, frame, ["color"]))
    rows = as_rows(probe_frame(model, frame))
    missing = [{**row, "color": None} for row in rows[:30]]
    empty = [{**row, "color": ""} for row in rows[:30]]
    assert predict_rows(model, missing) == predict_rows(model, empty) == oracle(str(tmp_path / "model.cbm"),
                                                                                model, missing)


def test_cli_import_with_categories(tmp_path):
    from catboost import CatBoostClassifier
    frame, signal = make_data(10)
    estimator = CatBoostClassifier(one_hot_max_size=8, cat_features=["color"], **KW).fit(frame, signal > 0)
    path = saved(estimator, tmp_path)
    out = str(tmp_path / "imported.json")
    runner = CliRunner()
    done = runner.invoke(cli, ["import", path, "-o", out, "--categories", "color=red,green,blue,grün,"])
    assert done.exit_code == 0, done.output
    assert modelio.loads(open(out, encoding="utf-8").read()).features[1].categories == tuple(COLORS)
    bad = runner.invoke(cli, ["import", path, "--categories", "red,green"])
    assert bad.exit_code == 2 and "--categories 'red,green': expected FEATURE=A,B,..." in bad.output
    twice = runner.invoke(cli, ["import", path, "--categories", "color=red,green", "--categories", "color=red"])
    assert twice.exit_code == 2 and "--categories names the category 'red' of 'color' twice" in twice.output
    unknown = runner.invoke(cli, ["import", path, "--categories", "x0=1,2"])
    assert unknown.exit_code == 2 and "'x0', which is not a categorical feature" in unknown.output



def test_categories_option_names_a_category_with_a_comma_and_a_feature_with_an_equals_sign(tmp_path):
    """--categories reads its categories as one CSV record ('"New York, NY"') and a feature whose name holds
    '=' in double quotes, as the hint for the file's unnamed categories spells it: pasted into bash, it imports."""
    import random
    import shlex
    from catboost import CatBoostClassifier
    cities = ["New York, NY", "Paris", "a=b"]
    rng = random.Random(0)
    rows = [(rng.choice(cities), rng.random()) for _ in range(200)]
    frame = pd.DataFrame(rows, columns=["city=x", "v"])
    estimator = CatBoostClassifier(**{**KW, "iterations": 5, "depth": 2}, one_hot_max_size=10)
    estimator.fit(frame, [int(c == "New York, NY") ^ (v > 0.7) for c, v in rows], cat_features=[0])
    path = str(tmp_path / "model.cbm")
    estimator.save_model(path)
    runner = CliRunner()
    hint = runner.invoke(cli, ["import", path]).output
    assert hint.endswith("""take them: --categories '"city=x"=A,B,...')\n"""), hint
    spelt = shlex.split(hint[hint.rindex(" --categories ") + 1:-2])[1].replace("A,B,...", '"New York, NY",Paris,a=b')
    out = str(tmp_path / "m.json")
    done = runner.invoke(cli, ["import", path, "--categories", spelt, "-o", out])
    assert done.exit_code == 0, done.output
    assert modelio.loads(open(out, encoding="utf-8").read()).features[0].categories == tuple(cities)
    verified = runner.invoke(cli, ["verify", path, "--categories", spelt, "--against", path, "--to", "python"])
    assert verified.exit_code == 0 and " ok " in verified.output, verified.output
    unquoted = runner.invoke(cli, ["import", path, "--categories", "city=x=Paris"]).output  # read as 'city'
    assert unquoted.endswith("""(categorical features: city=x); a feature whose name holds '=' is written in """
                             """double quotes: --categories '"city=x"=A,B,...'\n"""), unquoted
    for bad, message in [('"city=x=A', "expected FEATURE=A,B,... (a feature whose name holds '=' in double quotes"),
                         ('"city=x"="New York, NY"x', "cannot read the categories '\"New York, NY\"x' as one CSV")]:
        refused = runner.invoke(cli, ["import", path, "--categories", bad])
        assert refused.exit_code == 2 and message in refused.output, refused.output

# -- CTRs: a categorical feature of many categories --------------------------------------------------

CITIES = [f"city{i}" for i in range(22)] + ["São Paulo", "x y", ""]  # 25 categories, the empty one among them
PROBE_CITIES = CITIES + ["unseen", "City0", "city0 ", "数据", "None", "nan"]
CTR_KW = {**KW, "iterations": 30, "depth": 4, "max_ctr_complexity": 1}
WITH_FLOATS_KW = {**KW, "iterations": 200, "depth": 3}


def make_ctr_data(seed: int, n: int = 600) -> tuple[pd.DataFrame, pd.Series]:
    """A city of 25 categories (CTRs: more than one_hot_max_size) that drives the target, and numbers."""
    rng = np.random.default_rng(seed)
    effect = dict(zip(CITIES, rng.normal(size=len(CITIES)) * 1.5))
    frame = pd.DataFrame({"x0": np.round(rng.normal(size=n), 3), "city": rng.choice(CITIES, n),
                          "x1": rng.normal(size=n), "color": rng.choice(COLORS, n)})
    frame.loc[::9, "x1"] = np.nan
    signal = frame.x0 + frame.x1.fillna(1.0) / 2 + frame.city.map(effect) + (frame.color == "red")
    return frame, signal


def ctr_cases():
    """(estimator, columns, target kind, the CTR types the model must have)."""
    from catboost import CatBoostClassifier, CatBoostRegressor
    city = ["x0", "city", "x1"]
    return {
        "binary": (CatBoostClassifier(cat_features=["city"], **CTR_KW), city, "str", {"Borders", "Counter"}),
        "binary_buckets": (CatBoostClassifier(cat_features=["city"], simple_ctr=["Buckets"], **CTR_KW), city, "int",
                           {"Buckets"}),
        "binary_mean": (CatBoostClassifier(cat_features=["city"], simple_ctr=[
            "BinarizedTargetMeanValue:Prior=0.3", "Borders:Prior=0.2"], **CTR_KW), city, "bool",
            {"BinarizedTargetMeanValue", "Borders"}),
        "multiclass": (CatBoostClassifier(loss_function="MultiClass", cat_features=["city"], simple_ctr=[
            "Borders:TargetBorderCount=2", "Buckets", "Counter"], **CTR_KW), city, "three",
            {"Borders", "Buckets", "Counter"}),
        "regression_onehot": (CatBoostRegressor(one_hot_max_size=5, cat_features=["city", "color"], simple_ctr=[
            "Borders:TargetBorderCount=3", "Counter"], **CTR_KW), city + ["color"], "value", {"Borders", "Counter"}),
        "depthwise": (CatBoostRegressor(grow_policy="Depthwise", cat_features=["city"], **CTR_KW), city, "value",
                      {"Borders", "Counter"}),
        # CatBoost's default max_ctr_complexity (4) combines the city with float splits
        "binary_with_floats": (CatBoostClassifier(cat_features=["city"], **WITH_FLOATS_KW), city, "+str",
                               {"Borders", "Counter"}),
        "regression_with_floats_nan_max": (CatBoostRegressor(cat_features=["city"], nan_mode="Max", **WITH_FLOATS_KW),
                                           city, "+value", {"Borders", "Counter"}),
    }


def ctr_target(kind: str, signal: pd.Series, frame: pd.DataFrame):
    """The target of that kind; "+" in it: with the city's effect turned by x0's sign, for CTRs combined with
    float splits."""
    if kind.startswith("+"):
        kind, signal = kind[1:], signal + frame.city.map(lambda c: cat_hash(c) % 3 - 1) * np.sign(frame.x0) * 2
    return signal * 2 + 0.5 if kind == "value" else labels_for(kind, signal)


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(ctr_cases()))
def test_ctr_models_predict_what_catboost_predicts(case, tmp_path):
    """A CTR of one categorical feature is, for each category (and each answer of the float splits it is
    combined with, as CatBoost's default max_ctr_complexity does), a fixed value against the split's border: the
    model tests the float splits, then the categories whose value passes, and sends a text the tables lack where
    the prior alone sends it. The JSON saved with pool=, the .cbm and the fitted model import alike; the model
    and the generated Python, Java, JavaScript, C and SQL predict what CatBoost does on every category, unseen
    ones, a missing one (CatBoost's ""), and every border one ulp either side."""
    estimator, columns, kind, ctr_types = ctr_cases()[case]
    frame, signal = make_ctr_data(21)
    frame = frame[columns]
    categorical = [c for c in columns if c in ("city", "color")]
    estimator.fit(frame, ctr_target(kind, signal, frame))
    path = saved(estimator, tmp_path, frame, categorical)
    document = json.load(open(path, encoding="utf-8"))
    assert {c["ctr_type"] for c in document["features_info"]["ctrs"]} == ctr_types
    widths = {len(c["elements"]) for c in document["features_info"]["ctrs"]}
    assert widths == ({1} if "max_ctr_complexity" in estimator.get_params() else {1, 2, 3}), widths
    names = {"city": CITIES, "color": COLORS}
    categories = {c: names[c] for c in categorical}
    from_pool = import_file(path)  # the cities named by the file, in its order
    assert set(from_pool.features[1].categories) == set(CITIES)
    assert_agrees_with_catboost(estimator, from_pool, frame, {"city": PROBE_CITIES})
    model = treegen.import_model(str(tmp_path / "model.cbm"), categories=categories)
    assert modelio.dumps(model) == modelio.dumps(from_catboost(estimator, categories=categories)) == modelio.dumps(
        import_file(path, categories=categories))
    assert any(n.split and n.split.feature == 1 for t in model.trees for n in t.nodes)
    rows = as_rows(probe_frame(model, frame, {"city": PROBE_CITIES}))
    missing, empty = ([{**row, "city": city} for row in rows] for city in (None, ""))
    assert predict_rows(model, missing) == predict_rows(model, empty)
    results = verify(model, None, ["python", "java", "javascript", "c", "sql"], ["sqlite", "duckdb"],
                     against=str(tmp_path / "model.cbm"), against_options={"categories": categories})
    assert len(results) == 7 and all(r.ok for r in results), [r.line() for r in results]


def test_ctr_categories_known_only_by_hash_are_asked_for(tmp_path):
    """A .cbm, a JSON saved without pool= and a fitted model know the cities only by hash: one line asks for
    their names, as for one-hot splits; names given for all but one city are refused the same way."""
    from catboost import CatBoostClassifier
    frame, signal = make_ctr_data(22)
    frame = frame[["x0", "city"]]
    estimator = CatBoostClassifier(cat_features=["city"], **CTR_KW).fit(frame, signal > 0.3)
    path = saved(estimator, tmp_path)
    hashes = "|".join(str(cat_hash(c)) for c in CITIES)
    asks = (rf"a CTR split on the categorical feature 'city' tests a category known only by its hash \(({hashes})\); "
            r"save the model with save_model\(path, format='json', pool=training_pool\), or name the feature's "
            r"categories: treegen.from_catboost\(model, categories=\{'city': \['A', 'B', ...\]\}\)")
    for source in (path, str(tmp_path / "model.cbm")):
        with pytest.raises(TreegenError, match=asks):
            import_file(source)
        with pytest.raises(TreegenError, match=asks):
            import_file(source, categories={"city": CITIES[1:]})
        assert import_file(source, categories={"city": CITIES}).features[1].categories[:len(CITIES)] == tuple(CITIES)
    with pytest.raises(TreegenError, match=asks):
        from_catboost(estimator)
    done = CliRunner().invoke(cli, ["import", str(tmp_path / "model.cbm")])
    assert done.exit_code == 2 and done.output.count("\n") == 1 and "--categories city=A,B,..." in done.output
    out = str(tmp_path / "imported.json")
    done = CliRunner().invoke(cli, ["import", str(tmp_path / "model.cbm"), "-o", out, "--categories",
                                    "city=" + ",".join(CITIES)])
    assert done.exit_code == 0, done.output
    assert open(out, encoding="utf-8").read() == modelio.dumps(from_catboost(estimator, categories={"city": CITIES}))


def test_feature_freq_is_evaluated_as_counter(tmp_path):
    """FeatureFreq (GPU training only) is, in CatBoost's evaluator, Counter under another name: a model
    with its Counter CTRs renamed predicts, in CatBoost and in treegen alike, what the model predicts."""
    from catboost import CatBoost, CatBoostClassifier
    frame, signal = make_ctr_data(23)
    frame = frame[["x0", "city"]]
    estimator = CatBoostClassifier(cat_features=["city"], simple_ctr=["Counter"], **CTR_KW).fit(frame, signal > 0.3)
    path, renamed = saved(estimator, tmp_path, frame, ["city"]), str(tmp_path / "freq.json")
    text = open(path, encoding="utf-8").read()
    assert '"Counter"' in text and "FeatureFreq" not in text
    with open(renamed, "w", encoding="utf-8") as f:
        f.write(text.replace("Counter", "FeatureFreq"))
    counter, freq = CatBoost(), CatBoost()
    counter.load_model(path, format="json")
    freq.load_model(renamed, format="json")
    model = import_file(path)
    assert modelio.dumps(import_file(renamed)) == modelio.dumps(model)
    probe = probe_frame(model, frame, {"city": PROBE_CITIES})
    assert (freq.predict(probe, prediction_type="RawFormulaVal").tolist()
            == counter.predict(probe, prediction_type="RawFormulaVal").tolist())
    assert_agrees_with_catboost(estimator, model, frame, {"city": PROBE_CITIES})


def test_ctrs_of_categorical_features_combined_import_and_other_projections_are_refused(tmp_path):
    """max_ctr_complexity=2 makes CTRs of a city with a color (refused before: "CTRs of categorical features
    combined"): the model predicts what CatBoost does for every pair; a projection in another order than CatBoost
    writes (its categories, then float splits and one-hot values) is refused in one line naming its parts."""
    from catboost import CatBoostClassifier
    frame, signal = make_ctr_data(24, n=1000)
    frame = frame[["x0", "city", "color"]]
    label = (signal + (frame.city.str.len() % 2) * (frame.color == "red") * 3 > 0.3).astype(int)
    estimator = CatBoostClassifier(cat_features=["city", "color"], one_hot_max_size=1, max_ctr_complexity=2,
                                   **{**KW, "iterations": 30, "depth": 4}).fit(frame, label)
    path = saved(estimator, tmp_path, frame, ["city", "color"])
    document = json.load(open(path, encoding="utf-8"))
    combined = [c for c in document["features_info"]["ctrs"]
                if sum(e["combination_element"] == "cat_feature_value" for e in c["elements"]) == 2]
    assert combined
    model = import_file(path)
    probe = every_pair_probe(frame, ["city", "color"])
    raw = estimator.predict(probe, prediction_type="RawFormulaVal").tolist()
    assert [raw_sums(model, row)[0] for row in as_rows(probe)] == raw
    entry = next(c for c in document["features_info"]["ctrs"] if c["elements"][-1]["combination_element"]
                 == "float_feature")
    entry["elements"] = entry["elements"][-1:] + entry["elements"][:-1]
    edited = str(tmp_path / "edited.json")
    with open(edited, "w", encoding="utf-8") as f:
        json.dump(document, f)
    with pytest.raises(TreegenError, match=r"^[^:]+: the model has a CTR of 'x0' with '(city|color)'.* in an order "
                                           r"or of parts treegen does not read; supported: CTRs of categorical "
                                           r"features, then float splits and one-hot values$"):
        import_file(edited)


def test_a_tree_of_no_splits_is_one_leaf(tmp_path):
    """CatBoost writes a tree that found no split (small data, CTR models) as "splits": null with one leaf."""
    from catboost import CatBoost
    path = f"{FIXTURES}/regression_scaled-1.2.10.json"
    document = json.load(open(path, encoding="utf-8"))
    document["oblivious_trees"].append({"leaf_values": [0.25], "leaf_weights": [400], "splits": None})
    edited = str(tmp_path / "edited.json")
    with open(edited, "w", encoding="utf-8") as f:
        json.dump(document, f)
    before, after = import_file(path), import_file(edited)
    assert len(after.trees) == len(before.trees) + 1 and after.trees[-1].nodes[0].value == (0.25,)
    reread = CatBoost()
    reread.load_model(edited, format="json")
    frame = pd.DataFrame([[0.5, 1.0, -2.0]], columns=[f.name for f in after.features])
    want = reread.predict(frame, prediction_type="RawFormulaVal").tolist()
    assert raw_sums(after, frame.iloc[0].to_dict()) == pytest.approx(want, rel=JSON_READER_TOLERANCE)


# -- what is refused -------------------------------------------------------------------------------


def refused(tmp_path, estimator, frame, message: str) -> None:
    """Refused alike from the JSON and from the .cbm."""
    for path in (saved(estimator, tmp_path), str(tmp_path / "model.cbm")):
        with pytest.raises(TreegenError, match=message) as info:
            import_file(path)
        assert "\n" not in str(info.value) and str(info.value).startswith(path + ": ")


def test_unsupported_models_are_refused(tmp_path):
    from catboost import CatBoostClassifier, CatBoostRegressor
    frame, signal = make_data(11, n=500)
    numeric, label = frame[["x0", "x1"]], (signal > 0.3).astype(int)
    multi = CatBoostRegressor(loss_function="MultiRMSE", **KW).fit(numeric, np.c_[signal, -signal])
    refused(tmp_path, multi, numeric, "the loss function MultiRMSE is not supported; supported: Logloss, CrossEntropy")
    multilabel = CatBoostClassifier(loss_function="MultiLogloss", **KW).fit(numeric, np.c_[label, 1 - label])
    refused(tmp_path, multilabel, numeric, "MultiLogloss is not supported")
    uncertainty = CatBoostRegressor(loss_function="RMSEWithUncertainty", **KW).fit(numeric, signal)
    refused(tmp_path, uncertainty, numeric, "RMSEWithUncertainty is not supported")
    threshold = CatBoostClassifier(**KW).fit(numeric, label)
    threshold.set_probability_threshold(0.7)
    refused(tmp_path, threshold, numeric, "a binary decision threshold \\(0.7, set_probability_threshold\\) is not "
                                          "supported")
    texts = pd.DataFrame({"x0": frame.x0, "t": np.where(label == 1, "good film", "bad movie")})
    text = CatBoostClassifier(text_features=["t"], **KW).fit(texts, label)
    with pytest.raises(TreegenError, match="text and embedding features are not supported"):
        from_catboost(text)
    text.save_model(str(tmp_path / "text.cbm"))
    with pytest.raises(TreegenError, match="text.cbm: CatBoost cannot write this model as JSON .*; text and "
                                           "embedding features are not supported$"):
        import_file(str(tmp_path / "text.cbm"))
    with pytest.raises(TreegenError, match="not fitted"):
        from_catboost(CatBoostClassifier())


def test_a_model_of_no_trees_is_refused_saying_so(tmp_path):
    """shrink(ntree_end=0) leaves CatBoost a model of no trees, saved as "oblivious_trees": null."""
    from catboost import CatBoostRegressor
    frame, signal = make_data(11)
    empty = CatBoostRegressor(**KW).fit(frame[["x0", "x1"]], signal)
    empty.shrink(ntree_end=0)
    refused(tmp_path, empty, frame, "^[^:]+: the model has no trees \\(a booster trained for 0 rounds")


def test_a_border_at_minus_infinity_imports_from_json_and_is_named_where_catboost_cannot_write_it(tmp_path):
    """Training on -inf and 0 puts a border at -inf: a valid split (-inf goes left, any other number
    right), but CatBoost's JSON writer has no number for it, so a fitted model or its .cbm is refused
    naming the border (not text features). A JSON border beyond float32's range reads as -inf, in
    CatBoost as in treegen: that model imports and predicts what the estimator with the -inf border does."""
    from catboost import CatBoost, CatBoostClassifier
    frame, signal = make_data(15)
    frame = frame[["x0", "x1"]].assign(x0=np.where(frame.x0 > 0, 0.0, -np.inf))
    label = (frame.x0 == 0) ^ (signal > 0.5)
    estimator = CatBoostClassifier(**KW).fit(frame, label)
    assert estimator.get_borders()[0] == [-math.inf]
    message = ("CatBoost cannot write this model as JSON (JSON writer: invalid float value: -inf), which treegen "
               "reads: the feature 'x0' has a split border at -inf (learnt from training values that are infinite as "
               "float32, which CatBoost reads them as: past 3.4e38 too); train it with them replaced by finite float32 "
               "numbers")
    with pytest.raises(TreegenError, match=f"^{re.escape(message)}$"):
        from_catboost(estimator)
    past = CatBoostClassifier(**KW).fit(frame.replace(-np.inf, -1e308), label)  # finite, but not as float32
    with pytest.raises(TreegenError, match=f"^{re.escape(message)}$"):  # (it said "infinite training values")
        from_catboost(past)
    cbm = str(tmp_path / "model.cbm")
    estimator.save_model(cbm)
    done = CliRunner().invoke(cli, ["import", cbm])
    assert (done.exit_code, done.output) == (2, f"treegen: error: {cbm}: {message}\n"), done.output
    twin = CatBoostClassifier(**KW).fit(frame.replace(-np.inf, -3e38), label)  # its border: -1.5e38
    path = saved(twin, tmp_path)
    border = repr(twin.get_borders()[0][0])
    text = open(path, encoding="utf-8").read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(border, "-1e39"))
    reread = CatBoost()
    reread.load_model(path, format="json")
    assert reread.get_borders()[0] == [-math.inf]
    model = import_file(path)
    assert {n.split.threshold for t in model.trees for n in t.nodes if n.split and n.split.feature == 0} == {-math.inf}
    assert_agrees_with_catboost(estimator, model, frame)


@pytest.mark.parametrize("content, message", [
    (b"CBM1\x00\x01binary", "CatBoost cannot load this .cbm file: Failed to read required number of bytes from "
                            "stream! Expected: 1768030464, gained: 4!$"),
    (b'{\n  "features_info": {"float_features": [', "not a CatBoost JSON model: Expecting value"),
    (b'{"features_info": {}, "model_info": {"params": {"loss_function": {"type": "MultiQuantile"}}}, "trees": []}',
     "the loss function MultiQuantile is not supported; supported: Logloss"),
    (b'{"features_info": {}, "model_info": {}}', "does not name its loss function"),
    (b'{"features_info": {"float_features": [{"flat_feature_index": 0, "feature_index": 0}]}, "model_info": {"params": '
     b'{"loss_function": {"type": "RMSE"}}}, "oblivious_trees": [{"splits": []}]}',
     "not a CatBoost JSON model as save_model\\(format='json'\\) writes it: missing 'leaf_values'"),
])
def test_bad_files_are_one_line_errors(tmp_path, content, message):
    path = tmp_path / "model.json"
    path.write_bytes(content)
    with pytest.raises(TreegenError, match=message) as info:
        import_file(str(path))
    assert str(info.value).startswith(str(path) + ":") and "\n" not in str(info.value)


@pytest.mark.parametrize("layout", ["Depthwise", "SymmetricTree"])
@pytest.mark.parametrize("place", ["leaf", "bias"])
@pytest.mark.parametrize("written", ["Infinity", "-Infinity", "NaN", "1e309"])
def test_a_number_that_is_not_finite_is_refused(tmp_path, layout, place, written):
    """CatBoost refuses a non-finite bias where it makes a model and writes none; its JSON loader reads one as a bias
    of 0.0 and loses an oblivious tree file's leaf values for one (its predict fails): treegen summed the infinity."""
    from catboost import CatBoostRegressor
    frame, signal = make_data(12, nan=False)
    path = saved(CatBoostRegressor(**KW, grow_policy=layout).fit(frame[["x0", "x1"]], signal), tmp_path)
    document = json.loads(open(path, encoding="utf-8").read())
    if place == "bias":
        document["scale_and_bias"][1] = ["NUMBER"]
        expected = r"scale_and_bias \[1.0, \[(-?inf|nan)\]\] is not finite"
    elif layout == "Depthwise":
        leaf = document["trees"][0]
        while "split" in leaf:
            leaf = leaf["left"]
        leaf["value"] = "NUMBER"
        expected = r"tree 0 has a leaf value of \[(-?inf|nan)\], which CatBoost neither writes nor reads"
    else:
        document["oblivious_trees"][0]["leaf_values"][1] = "NUMBER"
        expected = r"tree 0 has a leaf value of \[(-?inf|nan)\], which CatBoost neither writes nor reads"
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(document).replace('"NUMBER"', written))
    with pytest.raises(TreegenError, match=expected) as info:
        import_file(path)
    assert "\n" not in str(info.value)


def test_a_truncated_file_says_where(tmp_path):
    from catboost import CatBoostClassifier
    frame, signal = make_data(12)
    path = saved(CatBoostClassifier(**KW).fit(frame[["x0", "x1"]], signal > 0), tmp_path)
    text = open(path, encoding="utf-8").read()
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:len(text) // 2])
    with pytest.raises(TreegenError, match=r"model.json:\d+:\d+: not a CatBoost JSON model: "):
        import_file(path)


def test_categories_apply_only_to_catboost(tmp_path):
    import skops.io
    from sklearn.tree import DecisionTreeClassifier
    path = str(tmp_path / "tree.skops")
    skops.io.dump(DecisionTreeClassifier().fit([[0.0], [1.0]], [0, 1]), path)
    with pytest.raises(TreegenError, match="the option 'categories' does not apply to scikit-learn models"):
        import_file(path, categories={"x0": ["a"]})
    assert IMPORTERS["CatBoost"].oracle is oracle


# -- size ---------------------------------------------------------------------------------------------


def test_a_1000_tree_depth_8_model_imports_and_agrees(tmp_path):
    """50 trees of depth 8 trained, summed 20 times over by CatBoost (sum_models): 1,000 trees."""
    from catboost import CatBoostClassifier, sum_models
    rng = np.random.default_rng(13)
    X = pd.DataFrame(rng.normal(size=(1500, 6)), columns=[f"f{i}" for i in range(6)])
    estimator = CatBoostClassifier(iterations=50, depth=8, verbose=0, random_seed=0, thread_count=1,
                                   allow_writing_files=False)
    estimator.fit(X, (X.f0 + X.f1 * X.f2 > 0).astype(int))
    big = sum_models([estimator] * 20)
    path = saved(big, tmp_path)
    model = import_file(path)
    assert len(model.trees) == 1000 and max(t.depth() for t in model.trees) == 8
    assert_oracle_agrees(model, str(tmp_path / "model.cbm"), X.iloc[:200])


def test_verify_against_the_json_counts_the_rows_its_reader_moves(tmp_path):
    """CatBoost re-reading its own JSON moves some leaf values 1-2 ulps: verify --against says how many
    rows agree only within the declared tolerance, and why; a softmax adds CatBoost's fast exp."""
    import re
    for name, why in (("regression_scaled", "its JSON reader reads some leaf values 1-2 ulps off"),
                      ("multiclass", "its JSON reader reads some leaf values 1-2 ulps off; its softmax takes "
                                     "its own fast exp")):
        path, out = f"{FIXTURES}/{name}-1.2.10.json", str(tmp_path / f"{name}.json")
        assert CliRunner().invoke(cli, ["import", path, "-o", out]).exit_code == 0
        done = CliRunner().invoke(cli, ["verify", out, "--to", "python", "--against", path])
        assert done.exit_code == 0, done.output
        line = done.output.splitlines()[0]
        match = re.fullmatch(r"CatBoost itself +ok        (\d+) rows agree \(\1 probes\); ([1-9]\d*) within 1e-13 "
                             rf"of the library's, not bit for bit: {re.escape(why)}", line)
        assert match and int(match[2]) < int(match[1]), line


# -- the .cbm file: CatBoost's own loader, then as a fitted model ----------------------------------------


def cbm_cases():
    """Numeric binary, multiclass and regression, and one-hot categories a .cbm knows only by hash."""
    from catboost import CatBoostClassifier, CatBoostRegressor
    numeric = ["x0", "x1", "x2"]
    return {
        "binary": (CatBoostClassifier(**KW), numeric, lambda s: s > 0.3, None),
        "multiclass": (CatBoostClassifier(loss_function="MultiClass", **KW), numeric,
                       lambda s: np.array(["low", "mid", "high"])[np.digitize(s, [-0.5, 1.0])], None),
        "regression": (CatBoostRegressor(**KW), numeric, lambda s: s * 2 + 0.5, None),
        "onehot": (CatBoostRegressor(grow_policy="Depthwise", one_hot_max_size=8, cat_features=["color"], **KW),
                   ["x0", "color", "x1", "x2"], lambda s: s, {"color": COLORS}),
    }


def trained_cbm(case: str, tmp_path):
    """The case's estimator fitted, its training frame and categories, and its .cbm and JSON (no pool=)."""
    estimator, columns, target, categories = cbm_cases()[case]
    frame, signal = make_data(14)
    frame = frame[columns]
    estimator.fit(frame, target(signal))
    path = saved(estimator, tmp_path)
    return estimator, frame, categories, str(tmp_path / "model.cbm"), path


def answers(output: str) -> list[str]:
    """verify's lines, one per target, without the warning for a category spelt as a missing field
    (CatBoost's own missing category is '': a CSV cannot carry it)."""
    return [line for line in output.splitlines() if not line.startswith("treegen: warning: a CSV cannot carry")]


def category_options(categories) -> list[str]:
    return [arg for name, names in (categories or {}).items() for arg in ("--categories", f"{name}={','.join(names)}")]


@pytest.mark.parametrize("case", sorted(cbm_cases()))
def test_cbm_imports_as_its_json_and_predicts_what_catboost_predicts(case, tmp_path):
    """The .cbm and the JSON of one model import as the same model, bit for bit, by the CLI and the API
    alike; it predicts what the estimator predicts, and the generated Python what CatBoost, reading the
    .cbm, predicts (verify --against: exact but for a softmax's fast exp)."""
    estimator, frame, categories, cbm, json_path = trained_cbm(case, tmp_path)
    from_json = modelio.dumps(import_file(json_path, categories=categories))
    model = treegen.import_model(cbm, categories=categories)
    assert modelio.dumps(model) == modelio.dumps(read_cbm(cbm, categories=categories)) == from_json
    out = str(tmp_path / "imported.json")
    done = CliRunner().invoke(cli, ["import", cbm, "-o", out, *category_options(categories)])
    assert done.exit_code == 0, done.output
    assert open(out, encoding="utf-8").read() == from_json
    assert_agrees_with_catboost(estimator, model, frame)
    done = CliRunner().invoke(cli, ["verify", out, "--to", "python", "--against", cbm, *category_options(categories)])
    assert done.exit_code == 0, done.output
    itself, python = answers(done.output)
    why = "its softmax takes its own fast exp"
    exact = "" if case != "multiclass" else (rf"; (?:[1-9]\d* within 1e-14 of the library's, not bit for bit: {why}"
                                             rf"|bit for bit \(1e-14 allowed: {why}\))")
    assert re.fullmatch(rf"CatBoost itself +ok        (\d+) rows agree \(\1 probes\){exact}", itself), itself
    assert re.fullmatch(r"python +ok        (\d+) rows agree \(\1 probes\)", python), python


def test_a_cbm_verifies_itself_with_its_categories(tmp_path):
    """verify's MODEL may be the .cbm itself: --categories names its categories, and the against-file's;
    the Python API passes them as against_options."""
    from treegen.verifier import verify
    _, frame, categories, cbm, _ = trained_cbm("onehot", tmp_path)
    data = str(tmp_path / "data.csv")
    frame.to_csv(data, index=False)
    done = CliRunner().invoke(cli, ["verify", cbm, data, "--to", "python", "--against", cbm,
                                    *category_options(categories)])
    assert done.exit_code == 0, done.output
    lines = answers(done.output)
    assert [line.split()[:2] for line in lines] == [["CatBoost", "itself"], ["python", "ok"]], done.output
    assert all(re.search(r" ok +\d+ rows agree \(400 from the data, \d+ probes\)$", line) for line in lines), lines
    model = read_cbm(cbm, categories=categories)
    results = verify(model, data, ["python"], against=cbm, against_options={"categories": categories})
    assert [(r.target, r.ok) for r in results] == [("CatBoost itself", True), ("python", True)]


def test_a_cbm_without_category_names_is_one_line_asking_for_them(tmp_path):
    """Importing a .cbm of one-hot categories asks for their names; verify --against it needs none: the
    model holds the names it was imported with."""
    _, _, _, cbm, json_path = trained_cbm("onehot", tmp_path)
    model = str(tmp_path / "model-given.json")
    assert CliRunner().invoke(cli, ["import", json_path, "-o", model, "--categories", "color=red,green,blue,grün,"]
                              ).exit_code == 0
    asks = (f"treegen: error: {cbm}: a one-hot split on the categorical feature 'color' tests a category known only "
            r"by its hash \(\d+\); save the model with save_model\(path, format='json', pool=training_pool\), or "
            r"name the feature's categories \(predict, export, show and evaluate read a model imported with them; "
            r"import and verify take them: --categories color=A,B,...\)\n")
    done = subprocess.run([sys.executable, "-m", "treegen", "import", cbm], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    assert re.fullmatch(asks, done.stderr), done.stderr
    done = subprocess.run([sys.executable, "-m", "treegen", "verify", model, "--to", "python", "--against", cbm],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[:2] for line in lines] == [["CatBoost", "itself"], ["python", "ok"]], done.stdout
    assert all(re.search(r" ok +(\d+) rows agree \(\1 probes\)$", line) for line in lines), lines


def test_a_cbm_without_catboost_says_to_install_it_or_save_json(tmp_path):
    """On an install without catboost (None in sys.modules makes its import fail), a .cbm is one line
    naming the package and the JSON, which treegen reads by itself."""
    _, _, _, cbm, _ = trained_cbm("binary", tmp_path)
    code = "import sys; sys.modules['catboost'] = None; from treegen.cli import main; main(prog_name='treegen')"
    done = subprocess.run([sys.executable, "-c", code, "import", cbm], capture_output=True, text=True)
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    assert done.stderr == (f"treegen: error: {cbm}: reading CatBoost's binary .cbm format needs the catboost "
                           "package: pip install catboost (treegen's [catboost] extra); or save the model as JSON, "
                           "which treegen reads by itself: model.save_model(path, format='json')\n")


def test_a_damaged_cbm_is_one_line_without_catboosts_own_warnings(tmp_path):
    """CatBoost's C++ writes to file descriptor 2 of a .cbm whose parameters do not parse ("There are invalid
    params ..."): found by a bad-input fuzz, three lines before treegen's one."""
    _, _, _, cbm, _ = trained_cbm("binary", tmp_path)
    bad = tmp_path / "bad.cbm"
    bad.write_bytes(open(cbm, "rb").read().replace(b'"loss_function"', b'"loss_functiom"'))
    done = subprocess.run([sys.executable, "-m", "treegen", "import", str(bad)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"treegen: error: {bad}: the model does not name its loss function")


def test_read_json_names_the_reader_of_a_cbm(tmp_path):
    _, _, _, cbm, _ = trained_cbm("binary", tmp_path)
    with pytest.raises(TreegenError, match="model.cbm: this is CatBoost's binary .cbm format, not its JSON: "
                                           "read_cbm reads it$"):
        read_json(cbm)


def test_categories_given_in_a_users_forms(tmp_path):
    """categories= takes each feature's names in any sequence a notebook holds (a pandas Index, an array); one
    text, or a list where the mapping belongs, is refused saying the form (they read as a file not CatBoost's)."""
    from catboost import CatBoostClassifier
    frame, signal = make_data(8)
    estimator = CatBoostClassifier(one_hot_max_size=8, cat_features=["color"], **KW).fit(frame, signal > 0)
    expected = from_catboost(estimator, categories={"color": COLORS}).features[1].categories
    for names in (pd.Index(COLORS), np.array(COLORS, dtype=object), tuple(COLORS)):
        assert from_catboost(estimator, categories={"color": names}).features[1].categories == expected
    # the frame it was trained on names them (a notebook's model object knows its categories by hash only)
    trained = from_catboost(estimator, categories=frame)
    assert set(trained.features[1].categories) == set(frame.color.dropna()) >= set(expected)
    # ... also where a column of it is no categorical feature: a bool one CatBoost read as a number (an audit)
    flagged = frame.assign(flag=signal > 0.5)
    with_flag = CatBoostClassifier(one_hot_max_size=8, cat_features=["color"], **KW).fit(flagged, signal > 0)
    assert treegen.verify(from_catboost(with_flag, categories=flagged), flagged, to="python", against=with_flag).ok
    with pytest.raises(ValueError, match="categories given for 'flag', which is not a categorical feature"):
        from_catboost(with_flag, categories={"color": COLORS, "flag": [True, False]})  # named: a mistake
    rows = as_rows(probe_frame(trained, frame))
    assert predict_rows(trained, rows) == predict_rows(from_catboost(estimator, categories={"color": COLORS}), rows)
    for wrong, said in (({"color": ",".join(COLORS)}, "categories['color'] is a str"), (COLORS, "got a list")):
        with pytest.raises(ValueError, match=re.escape(said)) as err:
            from_catboost(estimator, categories=wrong)
        assert "not a CatBoost JSON model" not in str(err.value)


# -- CTRs combining categorical features (CatBoost's default max_ctr_complexity) ------------------------

SHOPS = [f"shop{i}" for i in range(7)] + [""]  # a third categorical feature, combined with the city and the color
PROBE_SHOPS = SHOPS + ["unseen shop"]
COMBINED_KW = {**KW, "iterations": 200, "depth": 4}  # CatBoost's defaults otherwise: max_ctr_complexity=4
# (CatBoost combines categorical features only in the trees after some 130, at the default learning rate)


def make_combined_data(seed: int, n: int = 1500) -> tuple[pd.DataFrame, pd.Series]:
    """A city, a color and a shop whose pairs drive the target (so CatBoost combines them), and numbers."""
    frame, signal = make_ctr_data(seed, n)
    rng = np.random.default_rng(seed + 100)
    frame["shop"] = rng.choice(SHOPS, n)
    city, shop, color = (frame[c].map(lambda text: cat_hash(text) % 3) for c in ("city", "shop", "color"))
    pairs = (city == shop) * 2.0 + (shop == color) - (city == color)  # no effect of any feature alone
    return frame, frame.x0 * 0.3 + frame.x1.fillna(0.0) * 0.2 + pairs


def combined_cases():
    """(estimator, categorical columns, target kind, the targets run besides Python and CatBoost itself: the
    generated programs of some 50,000 nodes take a minute to compile and run, so one case runs every target, the
    three-feature one SQLite's, the SQL being the target whose text differs most). (CatBoost 1.2.10's Depthwise
    trees combined no categorical features on such data.)"""
    from catboost import CatBoostClassifier, CatBoostRegressor
    return {
        "binary_two": (CatBoostClassifier(**COMBINED_KW), ["city", "shop"], "str",
                       (["java", "javascript", "c", "sql"], ["sqlite", "duckdb"])),
        "multiclass_two": (CatBoostClassifier(loss_function="MultiClass", **COMBINED_KW), ["city", "shop"], "three",
                           ([], ())),
        "regression_three": (CatBoostRegressor(**COMBINED_KW), ["city", "color", "shop"], "value", (["sql"], ["sqlite"])),
        "one_hot_in_combination": (CatBoostClassifier(one_hot_max_size=5, **COMBINED_KW), ["city", "color", "shop"],
                                   "int", ([], ())),
    }


@pytest.mark.parametrize("prefixes, rows", [(40, 3000), (3000, 40), (1, 1), (0, 5), (5, 0)])
def test_the_categories_behind_a_combined_ctrs_keys_are_found_either_way(prefixes, rows):
    """A key of a CTR of several features is CalcHash's state before the last category plus M times that
    category's widened hash. Which (state, category) pairs make each key is found by looking each key less each
    category's share up among the states, or, where there are fewer states than keys, each state plus each share
    up by every key (a CTR of two features of 1,000 categories each and some 180,000 keys: 200 s of import
    -> 7 s): both find every pair a brute force finds, sums that wrap past 2^64 and two pairs of one sum
    included."""
    from treegen.importers.catboost import _sums_found
    rng = np.random.default_rng(prefixes * 7 + rows)
    top = np.iinfo(np.uint64).max
    before = np.unique(rng.integers(0, top, size=prefixes, dtype=np.uint64, endpoint=True))
    shares = rng.integers(top - 2**40, top, size=30, dtype=np.uint64, endpoint=True)  # (most sums wrap)
    state = rng.integers(0, top, size=rows, dtype=np.uint64, endpoint=True)
    twice = len(before) > 1 and rows > 0  # one sum of two pairs: before[0] + shares[1] == before[1] + shares[0]
    if twice:
        shares[1] = (int(before[1]) + int(shares[0]) - int(before[0])) % 2**64
    planted = rng.integers(0, rows, size=rows // 2 + 1) if len(before) and rows else np.zeros(0, dtype=np.int64)
    if len(planted):
        state[planted] = before[rng.integers(0, len(before), len(planted))] + shares[rng.integers(0, 30, len(planted))]
    if twice:
        state[0] = (int(before[0]) + int(shares[1])) % 2**64
    ints = [array.tolist() for array in (before, shares, state)]  # (Python's integers: numpy warns of a wrap)
    brute = {(p, c, r) for r, t in enumerate(ints[2]) for p, b in enumerate(ints[0]) for c, a in enumerate(ints[1])
             if (b + a) % 2**64 == t}
    assert set(planted.tolist()) <= {r for _, _, r in brute} and (not twice or {(0, 1, 0), (1, 0, 0)} <= brute)
    found = _sums_found(before, shares, state, block=64)  # (blocks of a few shares: the seams are crossed)
    assert set(zip(*(part.tolist() for part in found))) == brute


def every_pair_probe(frame: pd.DataFrame, categorical: list[str]) -> pd.DataFrame:
    """Rows of the frame with every pair of its categorical features' texts (each known category, an unseen text,
    and "" which a missing value reads as) set, the others left as the row has them."""
    texts = {"city": CITIES + ["unseen"], "color": PROBE_COLORS[:6], "shop": PROBE_SHOPS}
    blocks = []
    for i, first in enumerate(categorical):
        for second in categorical[i + 1:]:
            pairs = [(a, b) for a in texts[first] for b in texts[second]]
            block = pd.concat([frame.iloc[:len(pairs)]] * 2, ignore_index=True).iloc[:len(pairs)].copy()
            block[first], block[second] = [a for a, _ in pairs], [b for _, b in pairs]
            blocks.append(block)
    return pd.concat(blocks, ignore_index=True)


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(combined_cases()))
def test_ctrs_combining_categorical_features_predict_what_catboost_predicts(case, tmp_path):
    """A CTR of two or three categorical features (CatBoost's default max_ctr_complexity combines them, with float
    splits and one-hot values too) has a fixed value for each combination its table holds and the prior's for any
    other (a pair never seen, an unseen text on either side): the model tests one feature's categories in groups,
    then the next one's in each group. The JSON saved with pool=, the .cbm with the categories named and the fitted
    model import alike, and the model and the generated Python, Java, JavaScript, C and SQL predict what CatBoost
    does for every pair of texts, with a missing text read as ""."""
    estimator, categorical, kind, (others, dialects) = combined_cases()[case]
    frame, signal = make_combined_data(31)
    frame = frame[["x0", "x1", *categorical]]
    estimator.set_params(cat_features=categorical)
    target = signal * 2 + 0.5 if kind == "value" else labels_for(kind, signal)
    estimator.fit(frame, target)
    path = saved(estimator, tmp_path, frame, categorical)
    entries = json.load(open(path, encoding="utf-8"))["features_info"]["ctrs"]
    kinds = [[e["combination_element"] for e in entry["elements"]] for entry in entries]
    assert any(k.count("cat_feature_value") > 1 for k in kinds), kinds
    if case == "one_hot_in_combination":
        assert any("cat_feature_exact_value" in k for k in kinds), kinds
    model = import_file(path)
    names = {"city": CITIES, "color": COLORS, "shop": SHOPS}
    categories = {c: names[c] for c in categorical}
    assert modelio.dumps(model) != "" and modelio.dumps(
        treegen.import_model(str(tmp_path / "model.cbm"), categories=categories)) == modelio.dumps(
        from_catboost(estimator, categories=categories))
    probe = every_pair_probe(frame, categorical)
    raw = np.asarray(estimator.predict(probe, prediction_type="RawFormulaVal")).reshape(len(probe), -1).tolist()
    rows = as_rows(probe)
    assert [raw_sums(model, row) for row in rows] == raw
    assert_agrees_with_catboost(estimator, model, frame, {"city": PROBE_CITIES, "color": PROBE_COLORS,
                                                          "shop": PROBE_SHOPS})
    for feature in categorical:  # a missing text is CatBoost's ""
        missing = [{**row, feature: None} for row in rows if row[feature] == ""]
        assert predict_rows(model, missing) == predict_rows(model, [row for row in rows if row[feature] == ""])
    data = str(tmp_path / "pairs.csv")
    probe.to_csv(data, index=False)
    results = verify(model, data, ["python", *others], dialects,
                     against=str(tmp_path / "model.cbm"), against_options={"categories": categories})
    lines = 2 + len([t for t in others if t != "sql"]) + len(dialects)  # CatBoost itself, Python, a line a dialect
    assert len(results) == lines and all(r.ok for r in results), [r.line() for r in results]


@pytest.fixture(scope="module")
def default_pairs(tmp_path_factory):
    """:func:`default_model_of_three_categorical_features`, trained once for the tests that read it."""
    return default_model_of_three_categorical_features(tmp_path_factory.mktemp("pairs"))


def default_model_of_three_categorical_features(tmp_path):
    """CatBoost's defaults (max_ctr_complexity=4) on three categorical features of 40 categories whose pairs and
    whose turn by x1's sign drive the target: 300 trees of depth 6, CTRs of two categorical features and of
    categories with float splits (treegen before the tuple split refused it: more than 1,000,000 nodes)."""
    from catboost import CatBoostClassifier
    rng = np.random.default_rng(3)
    n = 20000
    names = {c: [f"{c}{i}" for i in range(40)] for c in "ABC"}
    frame = pd.DataFrame({"x0": rng.normal(size=n), "x1": rng.normal(size=n),
                          **{c: rng.choice(v, n) for c, v in names.items()}})
    effect = {c: dict(zip(v, rng.normal(size=40))) for c, v in names.items()}
    signal = frame.x0 + frame.A.map(effect["A"]) * frame.B.map(effect["B"]) + frame.C.map(effect["C"]) * np.sign(
        frame.x1)
    estimator = CatBoostClassifier(**{**KW, "iterations": 300, "depth": 6}, cat_features=list(names))
    estimator.fit(frame, signal > 0)
    return estimator, frame, names, saved(estimator, tmp_path, frame, list(names))


@pytest.fixture(scope="module")
def default_pairs_imported(default_pairs):
    """The default model's JSON imported once for the tests that read it: as the file names its categories (in the
    file's order), and with the categories named."""
    _, _, names, path = default_pairs
    return import_file(path), import_file(path, categories=names)


@pytest.mark.slow
def test_a_default_model_of_categorical_pairs_imports_as_a_tree_of_one_split_a_level(default_pairs,
                                                                                     default_pairs_imported):
    """Each split on a CTR of categorical features combined (or of categories with float splits) is one ``tuple``
    split: every tree keeps its 2^depth leaves, the model imports whole from the JSON and the .cbm alike, and it
    predicts what CatBoost does (raw values and probabilities bit for bit) for seen pairs, pairs never seen,
    unseen and missing categories and every border one ulp either side (the generated Python: the test through
    every target)."""
    estimator, frame, names, path = default_pairs
    cbm = os.path.join(os.path.dirname(path), "model.cbm")
    model, named = default_pairs_imported
    assert all(len(tree.nodes) <= 127 for tree in model.trees)  # (before: refused at tree 18, past 1,000,000 nodes)
    tuples = [n.split for t in model.trees for n in t.nodes if n.split and n.split.op == "tuple"]
    assert any(len(s.features) == 2 for s in tuples) and any(s.parts for s in tuples)
    text = modelio.dumps(named)
    assert modelio.dumps(treegen.import_model(cbm, categories=names)) == text
    assert modelio.dumps(modelio.loads(text)) == text
    probe = pd.concat([every_combination_probe(frame, names), probe_frame(model, frame.iloc[:40], {
        c: v[:3] + ["unseen", "", "a0"] for c, v in names.items()})], ignore_index=True)
    raw = np.asarray(estimator.predict(probe, prediction_type="RawFormulaVal")).reshape(len(probe), -1).tolist()
    rows = as_rows(probe)
    kind = model.meta["catboost"]["class_type"]
    labels = [class_text(v, kind) for v in estimator.predict(probe).tolist()]
    scores = estimator.predict_proba(probe).tolist()
    assert_agrees(model, rows, raw, labels, scores)
    for feature in names:  # a missing text is CatBoost's "" (here no category, as an unseen one)
        missing = [{**row, feature: None} for row in rows[:200]]
        assert predict_rows(model, missing) == predict_rows(model, [{**row, feature: ""} for row in rows[:200]])


def every_combination_probe(frame: pd.DataFrame, names: dict[str, list[str]]) -> pd.DataFrame:
    """Rows of the frame with each pair of categorical features set to every pair of a few of their categories
    and an unseen text, x1 on either side of 0 (CatBoost's splits of x1 come with the categories' CTRs)."""
    blocks = []
    for first, second in itertools.combinations(names, 2):
        pairs = list(itertools.product(names[first][:12] + ["unseen"], names[second][:12] + ["unseen"]))
        block = frame.iloc[:len(pairs)].copy()
        block[first], block[second] = [a for a, _ in pairs], [b for _, b in pairs]
        blocks += [block, block.assign(x1=-block.x1)]
    return pd.concat(blocks, ignore_index=True)


@pytest.mark.slow
def test_the_default_model_of_categorical_pairs_through_every_target(default_pairs, default_pairs_imported, tmp_path):
    """Every target tests a tuple split as one test, each distinct set of keys written once however many trees
    split on it (533 sets of 174,655 keys for 4,520 splits), and predicts what CatBoost does on every pair of a
    few categories and unseen ones, x1 either side of 0, unseen, empty and missing categories, every border's
    neighbours and the probes. (Written out as nested splits instead, no target's text was done in 5 minutes;
    now Java 0.60 MB, JavaScript 0.66 MB, C 0.9 MB, the rule text 10.6 MB, SQLite's query 2.0 MB, its oblivious
    trees as leaf indexes (2.9 MB as nested CASEs): bench/README.md.)"""
    estimator, frame, names, path = default_pairs
    cbm = os.path.join(os.path.dirname(path), "model.cbm")
    model = default_pairs_imported[1]
    java = treegen.export(model, "java")
    tests = re.findall(r"hasKey\(TUPLE_BITS\[(\d+)\]", java)
    assert len(set(tests)) < len(tests) and len(java) < 1_000_000  # (a set shared; no split written out)
    splits = {n.split for t in model.trees for n in t.nodes if n.split is not None and n.split.op == "tuple"}
    sql = treegen.export(model, "sql", dialect="sqlite")
    answers = re.findall(r' AS "treegen_tuple\d+"', sql)  # each split's answer once, a column a row reads
    assert len(answers) == len(splits) > 100 and len(sql) < 4_000_000
    probe = pd.concat([every_combination_probe(frame, names), probe_frame(model, frame.iloc[:40], {
        c: v[:3] + ["unseen", "", "a0"] for c, v in names.items()})], ignore_index=True)
    data = str(tmp_path / "pairs.csv")
    probe.iloc[::3].to_csv(data, index=False)
    targets, dialects = ["python", "java", "javascript", "c", "rules", "sql"], ["sqlite", "duckdb"]
    results = verify(model, data, targets, dialects, against=cbm, against_options={"categories": names})
    assert len(results) == len(targets) + len(dialects) and all(r.ok for r in results), [r.line() for r in results]


@pytest.mark.slow
def test_the_default_model_of_categorical_pairs_reads_back_from_its_rule_text(default_pairs_imported):
    """The rule text of the default model tests each tuple split itself, its keys once on a ``keys N`` line that
    the splits of every tree refer to, and ``treegen parse`` reads it back to the same model (the text predicts
    what CatBoost does: the test through every target)."""
    from treegen.parse.rule_text import parse
    from treegen.targets import emit
    model = default_pairs_imported[0]
    text = emit(model, "rules")
    keysets = {n.split.tuples for t in model.trees for n in t.nodes if n.split is not None and n.split.op == "tuple"}
    assert text.count("\nkeys ") == len(keysets) and len(text) < 20_000_000  # (written inline: 287 MB)
    again = parse(text)
    again.meta = model.meta  # (meta that is not a scalar is not written)
    assert modelio.dumps(again) == modelio.dumps(model)


def test_combined_ctrs_of_categories_their_own_tables_do_not_keep_import(tmp_path):
    """With ``ctr_leaf_count_limit`` a feature's own CTR table keeps only its most frequent categories; the others
    behind a combined CTR's rows are found among the names the file gives (saved with pool=), not refused as
    known only by their hash, and the model predicts what CatBoost does."""
    from catboost import CatBoostClassifier
    rng = np.random.default_rng(9)
    n = 4000
    frame = pd.DataFrame({"x0": rng.normal(size=n), **{c: rng.choice([f"{c}{i}" for i in range(k)], n)
                                                      for c, k in (("A", 30), ("B", 30))}})
    sign = {c: {v: rng.choice([-1.0, 1.0]) for v in frame[c].unique()} for c in "AB"}
    target = frame.A.map(sign["A"]) * frame.B.map(sign["B"]) + 0.3 * frame.x0 > 0
    estimator = CatBoostClassifier(**{**KW, "iterations": 20, "depth": 4}, ctr_leaf_count_limit=5,
                                   max_ctr_complexity=2, cat_features=["A", "B"])
    estimator.fit(frame, target)
    model = import_file(saved(estimator, tmp_path, frame, ["A", "B"]))
    assert any(n.split is not None and n.split.op == "tuple" for t in model.trees for n in t.nodes)
    probe = pd.concat([frame.iloc[:300], frame.iloc[:50].assign(A="unseen")], ignore_index=True)
    raw = np.asarray(estimator.predict(probe, prediction_type="RawFormulaVal")).reshape(len(probe), -1).tolist()
    assert_agrees(model, as_rows(probe), raw, [class_text(v, "bool") for v in estimator.predict(probe).tolist()],
                  estimator.predict_proba(probe).tolist())


@pytest.mark.parametrize("loss", ["MultiClass", "MultiClassOneVsAll"])
def test_class_names_naming_a_class_the_data_lacks_is_refused_saying_so(tmp_path, loss):
    """class_names=[0, 1, 2, 3] on labels 0..2 (or 0, 1, 3): CatBoost scores three outputs and gives the
    absent class the raw value -inf, probability 0. A treegen model cannot hold that: the fitted model, its
    .cbm and its JSON are refused with one line naming the class and what to do, and no file is written."""
    from catboost import CatBoostClassifier
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    y = np.digitize(X["a"] + X["b"], [-0.5, 0.5])
    for labels, absent in ((y, "'3' was"), (np.array([0, 1, 3])[y], "'2' was")):
        fitted = CatBoostClassifier(iterations=5, depth=2, verbose=0, random_seed=0, loss_function=loss,
                                    class_names=[0, 1, 2, 3]).fit(X, labels)
        assert fitted.predict_proba(X[:1]).shape == (1, 4)
        fitted.save_model(str(tmp_path / "m.cbm"))
        fitted.save_model(str(tmp_path / "m.json"), format="json")
        why = f"class_names names 4 classes and the trees score 3: {absent} not in the training data"
        with pytest.raises(TreegenError, match=re.escape(why) + ".*class_names naming only the classes in the data"):
            from_catboost(fitted)
        for name in ("m.cbm", "m.json"):
            result = CliRunner().invoke(cli, ["import", str(tmp_path / name), "-o", str(tmp_path / "out.json")])
            assert result.exit_code == 2 and why in result.stderr, result.output
            assert len(result.stderr.splitlines()) == 1 and not (tmp_path / "out.json").exists()


def test_a_json_model_naming_a_key_twice_is_refused_with_its_path(tmp_path):
    """As treegen's own model file (json would keep the last copy without a word)."""
    source = os.path.join(os.path.dirname(__file__), "fixtures", "catboost", "depthwise_nopool-1.2.json")
    text = open(source, encoding="utf-8").read()
    path = tmp_path / "twice.json"
    path.write_text(text.replace('"feature_index":0,', '"feature_index":0, "feature_index":1,', 1), encoding="utf-8")
    with pytest.raises(TreegenError) as err:
        import_file(str(path))
    assert str(err.value) == (f"{path}: features_info.categorical_features[0]: duplicate key 'feature_index' (JSON "
                              "readers differ on which copy they keep)")


def test_the_training_frame_names_the_categories_of_a_column_of_integers():
    """CatBoost takes a categorical column of integers and hashes each one's text ('2'); categories= the frame
    it was trained on read only its columns not of numbers, so the import was refused with "a one-hot split on
    the categorical feature 'code' tests a category known only by its hash (3010176887); ... or categories=the
    DataFrame it was trained on" -- the argument just given. The frame's integer columns name them too."""
    from catboost import CatBoostClassifier
    frame, signal = make_data(3, nan=False)
    frame["code"] = np.arange(len(frame)) % 4
    signal = signal + (frame.code == 2) * 3
    estimator = CatBoostClassifier(one_hot_max_size=8, cat_features=["color", "code"], **KW).fit(frame, signal > 0)
    model = from_catboost(estimator, categories=frame)
    assert set(model.features[4].categories) <= {"0", "1", "2", "3"}
    assert "2" in model.features[4].categories
    assert treegen.verify(model, frame, to=[], against=estimator).ok


@pytest.mark.parametrize("damage, said", [
    (lambda doc: doc["features_info"]["float_features"][0].update(flat_feature_index=2 ** 40),
     "flat_feature_index 1099511627776 is not one of the 4 features' indices"),  # was a MemoryError's traceback
    (lambda doc: doc["features_info"]["float_features"][0].update(flat_feature_index=1e308),
     "flat_feature_index beyond 2**64 is not one of the 4"),  # an OverflowError's traceback
    (lambda doc: next(iter(doc["ctr_data"].values()))["hash_map"].__setitem__(0, -1),
     "Python integer -1 out of bounds for uint64"),  # an OverflowError's traceback
])
def test_a_damaged_index_or_hash_in_a_json_model_is_one_line(tmp_path, damage, said):
    """Fuzzing a CatBoost 1.2.10 JSON model's fields: a flat_feature_index too large made a list of that many
    columns (2**40: MemoryError; a larger damaged stride in a CTR table grew memory until the process was
    killed), and numbers beyond an index or a uint64 raised OverflowError, each a traceback. Each is one line."""
    from catboost import CatBoostClassifier, Pool
    frame, signal = make_data(5)
    path = tmp_path / "model.json"
    CatBoostClassifier(cat_features=["color"], **KW).fit(frame, signal > 0).save_model(
        str(path), format="json", pool=Pool(frame, cat_features=["color"]))
    document = json.loads(path.read_text())
    damage(document)
    path.write_text(json.dumps(document))
    with pytest.raises(TreegenError) as info:
        import_file(str(path))
    assert said in str(info.value) and "\n" not in str(info.value) and str(info.value).startswith(str(path)), info.value


@pytest.mark.parametrize("grow_policy", ["SymmetricTree", "Lossguide"])
def test_a_float_split_whose_border_is_not_its_split_index_is_refused(tmp_path, grow_policy):
    """A float split names its border twice: split_index, which CatBoost's JSON loader reads, and
    float_feature_index with border, which treegen read. A file whose two disagree (a border edited by
    hand: 0 made 7.0) imported as a model 0.39 apart from CatBoost's predict_proba; it is one line now."""
    from catboost import CatBoostClassifier
    frame, signal = make_data(6, nan=False)
    shape = {"max_leaves": 5, "depth": None} if grow_policy == "Lossguide" else {}
    estimator = CatBoostClassifier(**{**KW, "grow_policy": grow_policy, **shape}).fit(frame[["x0", "x1", "x2"]],
                                                                                    signal > 0)
    path = tmp_path / "model.json"
    estimator.save_model(str(path), format="json")
    document = json.loads(path.read_text())
    split = (document["oblivious_trees"][0]["splits"][0] if grow_policy == "SymmetricTree"
             else document["trees"][0]["split"])
    assert from_catboost(estimator).features  # the file as saved imports
    split["border"] = 7.0
    path.write_text(json.dumps(document))
    with pytest.raises(TreegenError, match=rf"a FloatFeature split tests float feature {split['float_feature_index']} "
                                           rf"at 7.0, but its split_index {split['split_index']}, which CatBoost reads, "
                                           r"names float feature \d+ at ") as info:
        import_file(str(path))
    assert "\n" not in str(info.value)


def test_a_one_hot_split_whose_value_is_not_its_split_index_is_refused(tmp_path):
    """As a float split's border: a one-hot split's value edited to another category's hash imported as a
    model 0.24 apart from CatBoost, which reads the split_index; it is one line now."""
    from catboost import CatBoostClassifier, Pool
    frame, signal = make_data(7, nan=False)
    estimator = CatBoostClassifier(one_hot_max_size=8, cat_features=["color"], **KW).fit(frame, signal > 0)
    path = tmp_path / "model.json"
    estimator.save_model(str(path), format="json", pool=Pool(frame, cat_features=["color"]))
    document = json.loads(path.read_text())
    split = next(s for tree in document["oblivious_trees"] for s in tree["splits"] if s["split_type"] == "OneHotFeature")
    values = document["features_info"]["categorical_features"][0]["values"]
    split["value"] = next(value for value in values if value != split["value"])
    path.write_text(json.dumps(document))
    with pytest.raises(TreegenError, match=rf"a OneHotFeature split tests categorical feature 0 value {split['value']}, "
                                           rf"but its split_index {split['split_index']}, which CatBoost reads, names "
                                           r"categorical feature 0 value -?\d+$"):
        import_file(str(path))
