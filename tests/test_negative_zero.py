"""The sign of a zero sum is a bit of the prediction, and every source's own: a sum XGBoost starts at its base
score (-0.0 + -0.0 is -0.0), scikit-learn's gradient boosting at its init, a single tree is its leaf as it is;
LightGBM, HistGradientBoosting, a forest's average and CatBoost start at +0.0 (+0.0 + -0.0 is +0.0). The model,
every target and the programs' output (-0.0 printed as "-0.0") give each library's bits, zero's sign included."""
from __future__ import annotations

import json
import math
import re

import lightgbm
import numpy as np
import pytest
import xgboost
from catboost import CatBoostRegressor
from click.testing import CliRunner
from sklearn.ensemble import (ExtraTreesRegressor, GradientBoostingRegressor, HistGradientBoostingRegressor,
                              RandomForestRegressor)
from sklearn.tree import DecisionTreeRegressor

import treegen
from treegen.cli import main
from treegen.importers import import_file
from treegen.importers.sklearn import from_sklearn
from treegen.run.sql import query
from treegen.targets import emit
from treegen.walk import predict_rows

X = np.arange(8.0).reshape(-1, 1)  # the files' trees split x0 at 1.5 (XGBoost: x0 < 1.5)
# each side of the split, at it, one ulp either side, and missing
ROWS = [0.0, 1.0, float(np.nextafter(1.5, 0)), 1.5, float(np.nextafter(1.5, 2)), 2.0, 7.0, math.nan]


def bits(values) -> list[str]:
    """Each number's bits as hex: -0.0 is not 0.0."""
    return [float(v).hex() for v in values]


def model_values(model, rows=ROWS) -> list[float]:
    """What the model predicts for each row, by the vectorised walk (verify's, predict's), after checking that
    Model.predict, row by row, gives the same bits."""
    named = [{model.features[0].name: None if math.isnan(v) else v} for v in rows]
    batch = [value for value, _ in predict_rows(model, named)]
    assert bits(batch) == bits(model.predict(row) for row in named)
    return batch


# -- XGBoost: its sums start at the base score -----------------------------------------------------------------

def xgboost_file(path, base: float, trees: list[tuple[float, float]]) -> str:
    """A reg:squarederror model saved by XGBoost whose base score is ``base`` and whose tree ``t`` holds
    ``trees[t]``: (the leaf where x0 < 1.5, the other)."""
    booster = xgboost.train({"objective": "reg:squarederror", "base_score": 0.5, "max_depth": 1},
                            xgboost.DMatrix(X, label=(X[:, 0] > 1.5).astype(float)), len(trees))
    saved = json.loads(booster.save_raw("json"))
    saved["learner"]["learner_model_param"]["base_score"] = f"[{base!r}]"
    for tree, (left, right) in zip(saved["learner"]["gradient_booster"]["model"]["trees"], trees, strict=True):
        tree.update(left_children=[1, -1, -1], right_children=[2, -1, -1], parents=[2147483647, 0, 0],
                    split_indices=[0, 0, 0], split_conditions=[1.5, left, right], split_type=[0, 0, 0],
                    default_left=[1, 0, 0], base_weights=[0.0, left, right], loss_changes=[1.0, 0.0, 0.0],
                    sum_hessian=[8.0, 2.0, 6.0])
        tree["tree_param"]["num_nodes"] = "3"
    path.write_text(json.dumps(saved))
    return str(path)


XGBOOST_CASES = {  # base score, trees: the sums left of the split and right of it
    "all -0.0": (-0.0, [(-0.0, -0.0), (-0.0, -0.0)]),  # -0.0, -0.0
    "-0.0 left": (-0.0, [(-0.0, 0.0), (-0.0, -0.0)]),  # -0.0, +0.0
    "base +0.0": (0.0, [(-0.0, -0.0)]),  # +0.0, +0.0
}


@pytest.mark.parametrize("case", list(XGBOOST_CASES))
def test_xgboost_sums_from_its_base_score(tmp_path, case):
    path = xgboost_file(tmp_path / "model.json", *XGBOOST_CASES[case])
    expected = xgboost.Booster(model_file=path).predict(xgboost.DMatrix(np.array(ROWS).reshape(-1, 1)))
    assert bits(model_values(import_file(path))) == bits(expected)


def test_a_negative_zero_sum_in_every_target_and_its_library(tmp_path):
    """-0.0 left of the split, +0.0 right of it: every program, SQLite's, DuckDB's and ANSI's SQL, the rule text,
    each the model's bits (verify compares signs), and XGBoost's own predict."""
    path = xgboost_file(tmp_path / "model.json", *XGBOOST_CASES["-0.0 left"])
    data = tmp_path / "rows.csv"
    data.write_text("x0\n" + "".join(f"{'' if math.isnan(v) else repr(v)}\n" for v in ROWS))
    report = treegen.verify(path, str(data), dialects="sqlite,duckdb,ansi", against=path, leaf=True)
    assert report.ok, str(report)
    assert {result.target for result in report.results} >= {"python", "java", "javascript", "c", "rules"}


def test_a_negative_zero_sum_in_postgres(tmp_path, postgres_dsn):
    path = xgboost_file(tmp_path / "model.json", *XGBOOST_CASES["-0.0 left"])
    [result] = treegen.verify(path, dialects="postgres", to="sql", dsns={"postgres": postgres_dsn}).results
    assert result.ok, result.line()


def test_mariadb_holds_no_negative_zero_and_verify_says_so(tmp_path, mysql_server):
    """MariaDB stores a DOUBLE of -0.0 as 0.0 (in a table, and in the derived tables the MySQL dialect's steps
    are), and prints -0 as 0: its answers differ from the model's on the sign of zero alone, and verify says so."""
    path = xgboost_file(tmp_path / "model.json", *XGBOOST_CASES["-0.0 left"])
    [result] = treegen.verify(path, dialects="mysql", to="sql", dsns={"mysql": mysql_server}).results
    assert not result.ok and result.mismatches
    assert all(mismatch.endswith("model -0.0, got '0.0'") for mismatch in result.mismatches), result.mismatches


def test_a_negative_zero_sum_in_spark(tmp_path, spark):
    """(Spark's optimizer takes CASE WHEN c THEN 0.0 ELSE -0.0 END for -0.0, its literals equal: a tree whose
    leaves are zeros of both signs is not Spark's to get right; one of -0.0 alone is.)"""
    model = import_file(xgboost_file(tmp_path / "model.json", *XGBOOST_CASES["all -0.0"]))
    rows = [{"x0": None if math.isnan(v) else v} for v in ROWS]
    got = [float(row[-1]) for row in query(emit(model, "sql", dialect="spark"), model, rows, "spark", spark=spark)]
    assert bits(got) == bits(model_values(model)) == bits([-0.0] * len(ROWS))


def test_predict_prints_a_negative_zero_that_reads_back(tmp_path):
    path = xgboost_file(tmp_path / "model.json", *XGBOOST_CASES["-0.0 left"])
    data = tmp_path / "rows.csv"
    data.write_text("x0\n1\n2\n")
    result = CliRunner().invoke(main, ["predict", path, str(data)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["x0,prediction", "1,-0.0", "2,0.0"]
    assert bits(float(line.split(",")[1]) for line in result.output.splitlines()[1:]) == bits([-0.0, 0.0])


# -- scikit-learn: a single tree is its leaf, gradient boosting starts at its init, the rest at +0.0 --------------

def negative_leaves(estimator):
    """``estimator`` with every leaf of every tree -0.0 (a file could hold them; a tree's value array is its own)."""
    for tree in np.ravel(getattr(estimator, "estimators_", [estimator])):
        tree.tree_.value[...] = -0.0
    return estimator


Y = np.full(8, -0.0)
STEP = np.where(X[:, 0] < 3.5, -0.0, 1.0)  # a tree splits it at 3.5
# scikit-learn's gradient boosting takes no NaN: each side of 3.5, at it and one ulp either side
SKLEARN_ROWS = [0.0, 3.0, float(np.nextafter(3.5, 0)), 3.5, float(np.nextafter(3.5, 4)), 4.0, 7.0]
SKLEARN_CASES = {  # the estimator and what it predicts at 0.0
    # the median of -0.0s: a leaf of -0.0, its prediction too
    "tree of medians": (lambda: DecisionTreeRegressor(criterion="absolute_error").fit(X, STEP), -0.0),
    # init -0.0 (the median) plus leaves of -0.0
    "boosting from -0.0": (lambda: negative_leaves(GradientBoostingRegressor(
        n_estimators=2, loss="absolute_error", max_depth=1).fit(X, Y)), -0.0),
    "boosting from +0.0": (lambda: negative_leaves(GradientBoostingRegressor(
        n_estimators=2, init="zero", max_depth=1).fit(X, Y)), 0.0),
    # averages start at +0.0
    "forest": (lambda: RandomForestRegressor(n_estimators=2, criterion="absolute_error", random_state=0).fit(X, Y),
               0.0),
    "extra trees": (lambda: negative_leaves(ExtraTreesRegressor(n_estimators=2, random_state=0).fit(X, Y)), 0.0),
    "histogram boosting": (lambda: negative_histogram_leaves(HistGradientBoostingRegressor(
        max_iter=2, min_samples_leaf=1).fit(X, np.arange(8.0))), 0.0),
}


def negative_histogram_leaves(estimator):
    """A HistGradientBoosting model whose baseline and leaves are -0.0: scikit-learn adds the baseline to
    zeros (``_raw_predict``), so its sums start at +0.0."""
    estimator._baseline_prediction = np.full_like(estimator._baseline_prediction, -0.0)
    for predictors in estimator._predictors:
        for predictor in predictors:
            predictor.nodes["value"] = -0.0
    return estimator


@pytest.mark.parametrize("case", list(SKLEARN_CASES))
def test_scikit_learn_zero_sums(case):
    make, at_zero = SKLEARN_CASES[case]
    estimator = make()
    expected = estimator.predict(np.array(SKLEARN_ROWS).reshape(-1, 1))
    assert bits(expected[:1]) == bits([at_zero])  # the case is what it says
    assert bits(model_values(from_sklearn(estimator), SKLEARN_ROWS)) == bits(expected)


def test_a_scikit_learn_tree_of_negative_zero_in_every_target():
    estimator = SKLEARN_CASES["tree of medians"][0]()
    report = treegen.verify(estimator, dialects="sqlite,duckdb", against=estimator, leaf=True)
    assert report.ok, str(report)


# -- LightGBM and CatBoost: sums from +0.0 ---------------------------------------------------------------------

def test_lightgbm_sums_from_positive_zero(tmp_path):
    booster = lightgbm.train({"objective": "regression", "num_leaves": 2, "min_data_in_leaf": 1,
                              "min_data_in_bin": 1, "verbose": -1}, lightgbm.Dataset(X, np.arange(8.0)), 2)
    text = re.sub(r"^leaf_value=.*$", "leaf_value=-0 -0", booster.model_to_string(), flags=re.M)
    path = tmp_path / "model.txt"
    path.write_text(re.sub(r"^tree_sizes=.*\n", "", text, flags=re.M))  # the trees' sizes have changed
    cut = 3.5000000000000004  # LightGBM's threshold between 3 and 4
    rows = SKLEARN_ROWS + [cut, float(np.nextafter(cut, 4)), math.nan]
    expected = lightgbm.Booster(model_file=str(path)).predict(np.array(rows).reshape(-1, 1))
    assert bits(expected) == bits([0.0] * len(rows))
    assert bits(model_values(import_file(str(path)), rows)) == bits(expected)


@pytest.mark.parametrize("scale", [1.0, 2.0])
def test_catboost_sums_from_positive_zero_whatever_its_bias(tmp_path, scale):
    """CatBoost adds its trees from 0.0, then scale * sum + bias: leaves and bias of -0.0 give +0.0. (verify
    --against CatBoost allows 1e-13, which a sign does not show: the bits are compared here.)"""
    model = CatBoostRegressor(iterations=2, depth=1, verbose=0, allow_writing_files=False).fit(X, np.arange(8.0))
    model.save_model(str(tmp_path / "trained.json"), format="json")
    saved = json.loads((tmp_path / "trained.json").read_text())
    saved["scale_and_bias"] = [scale, [-0.0]]
    for tree in saved["oblivious_trees"]:
        tree["leaf_values"] = [-0.0] * len(tree["leaf_values"])
    path = tmp_path / "model.json"
    path.write_text(json.dumps(saved))
    loaded = CatBoostRegressor()
    loaded.load_model(str(path), format="json")
    expected = loaded.predict(np.array(ROWS).reshape(-1, 1))
    assert bits(expected) == bits([0.0] * len(ROWS))
    assert bits(model_values(import_file(str(path)))) == bits(expected)


# -- linear leaves: a value computed as -0.0 stays -0.0 ----------------------------------------------------------

LINEAR_MODEL = {
    "format": "treegen-model", "version": 1,
    "features": [{"name": "x0", "kind": "numeric"}, {"name": "x1", "kind": "numeric"}],
    "target": {"name": "y", "kind": "regression"},
    "combine": {"kind": "sum", "init": [-0.0], "scale": 1.0, "link": "identity"},
    "trees": [{"output": 0, "nodes": [
        {"value": [0.0], "split": {"feature": 0, "op": "<=", "threshold": 1.5, "missing": {"kind": "child", "child": 0}},
         "children": [1, 2]},
        {"value": [-0.0]},
        {"value": [-0.0], "linear": {"const": -0.0, "terms": [[1, 1.0]]}}]}]}


def test_a_linear_leaf_of_negative_zero_in_every_target(tmp_path):
    """-0.0 + 1.0 * x1 is -0.0 at x1 = -0.0, and the sum from -0.0 keeps it: Java's trees that are not added
    tree by tree summed a tree's one node from 0.0. (SQLite is left out: it stores a REAL -0.0 as 0, the
    input's sign lost before the SQL reads it.)"""
    path = tmp_path / "model.json"
    path.write_text(json.dumps(LINEAR_MODEL))
    data = tmp_path / "rows.csv"
    data.write_text("x0,x1\n0,0\n2,-0.0\n2,0\n2,\n")
    model = treegen.load(str(path))
    named = [{"x0": 0.0, "x1": 0.0}, {"x0": 2.0, "x1": -0.0}, {"x0": 2.0, "x1": 0.0}, {"x0": 2.0, "x1": None}]
    assert bits(model.predict(row) for row in named) == bits([-0.0, -0.0, 0.0, -0.0])
    report = treegen.verify(str(path), str(data), dialects="duckdb", leaf=True)
    assert report.ok, str(report)


def test_a_tree_of_both_zeros_in_every_target(tmp_path):
    """A single tree whose leaves are 0.0 and -0.0: the programs' tables of distinct values keep them apart
    (a dict keyed by value took -0.0 for 0.0)."""
    tree = {"nodes": [
        {"value": [0.0], "split": {"feature": 0, "op": "<=", "threshold": 1.5, "missing": {"kind": "child", "child": 1}},
         "children": [1, 2]},
        {"value": [0.0]}, {"value": [-0.0]}]}
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"format": "treegen-model", "version": 1, "features": [{"name": "x0", "kind": "numeric"}],
                                "target": {"name": "y", "kind": "regression"}, "trees": [tree]}))
    assert bits(model_values(treegen.load(str(path)))) == bits([0.0, 0.0, 0.0, 0.0, -0.0, -0.0, -0.0, -0.0])
    for leaf in (False, True):  # (the table of distinct values is for programs without leaf ids)
        report = treegen.verify(str(path), dialects="sqlite,duckdb", leaf=leaf)
        assert report.ok, str(report)
