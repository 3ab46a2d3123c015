"""A score can be NaN: a LightGBM linear leaf reads +inf and -inf (inf * c - inf * c). Where NaN sorts above
every number (DuckDB, PostgreSQL, Spark) the SQL's guards must let it through; SQLite has no NaN and
gives NULL, which `verify` takes for NaN there, and reads as no number anywhere else. Where only some
class scores are NaN (one-vs-all), the label is the first NaN's, as numpy's argmax in LGBMClassifier.predict.
An XGBoost file's infinite leaves make NaN sums too, which its float32 links must pass on."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

import duckdb
import lightgbm
import numpy as np
import pytest

from cli_in_process import treegen_cli
from treegen.emit.sql import DIALECTS
from treegen.emit.sql.arithmetic import exp
from treegen.errors import TreegenError
from treegen.importers import import_file
from treegen.model import argmax, scores_nan
from treegen.run.sql import query
from treegen.targets import emit
from treegen.testing import random_model
from treegen.verifier import judged, verify
from treegen.walk import predict_rows

INFINITE_ROWS = [{"Column_0": math.inf, "Column_1": -math.inf, "Column_2": 0.0},
                 {"Column_0": math.inf, "Column_1": math.inf, "Column_2": 0.0},
                 {"Column_0": 1.0, "Column_1": 2.0, "Column_2": 3.0}]


OBJECTIVES = {"regression": {}, "poisson": {}, "binary": {}, "multiclass": {"num_class": 3}}


@pytest.fixture(scope="module", params=sorted(OBJECTIVES))
def linear_model(request, tmp_path_factory):
    """Scores NaN: the raw sum (identity), its exp, its sigmoid (SQLite: NULL, not 0), a softmax (the
    label: the first class, as the model's argmax, where SQLite's NULLs compare as nothing)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 3))
    signal = 0.3 * X[:, 0] + 0.2 * X[:, 1] + 0.1 * rng.normal(size=2000)
    y = {"binary": signal > 0, "multiclass": np.digitize(signal, [-0.2, 0.2])}.get(request.param, np.exp(signal))
    booster = lightgbm.train({"objective": request.param, "linear_tree": True, "num_leaves": 4, "verbose": -1,
                              **OBJECTIVES[request.param]}, lightgbm.Dataset(X, y.astype(float)), 3)
    path = tmp_path_factory.mktemp("linear") / "model.txt"
    booster.save_model(str(path))
    assert np.isnan(booster.predict(np.array([[math.inf, -math.inf, 0.0]]))).all()  # LightGBM's own NaN
    return import_file(str(path))


# one-vs-all probabilities of the model below: [0, nan, nan], [1, 0, nan], [0.25, nan, 0], [nan, 0, nan]
SOME_NAN_ROWS = [{"Column_0": a, "Column_1": b, "Column_2": c} for a, b, c in
                 [(math.inf, math.inf, math.inf), (-math.inf, math.inf, -3.0), (3.0, math.inf, math.inf),
                  (-math.inf, math.inf, math.inf), (1.0, 2.0, 3.0)]]


@pytest.fixture(scope="module")
def one_vs_all(tmp_path_factory):
    """(model, its file): a one-vs-all classifier with linear leaves, where an infinite input makes some
    class scores NaN but not all (a softmax makes them all NaN)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(2000, 3))
    y = np.digitize(0.3 * X[:, 0] + 0.2 * X[:, 1] - 0.25 * X[:, 2] + 0.1 * rng.normal(size=2000), [-0.2, 0.2])
    booster = lightgbm.train({"objective": "multiclassova", "num_class": 3, "linear_tree": True, "num_leaves": 4,
                              "verbose": -1}, lightgbm.Dataset(X, y.astype(float)), 3)
    path = tmp_path_factory.mktemp("ova") / "model.txt"
    booster.save_model(str(path))
    proba = booster.predict(np.array([list(row.values()) for row in SOME_NAN_ROWS]))
    assert np.isnan(proba).tolist() == [[False, True, True], [False, False, True], [False, True, False],
                                        [True, False, True], [False, False, False]]
    return import_file(str(path)), str(path)


def _rows_file(tmp_path, rows=INFINITE_ROWS) -> str:
    data = tmp_path / "rows.csv"
    data.write_text("Column_0,Column_1,Column_2\n" + "".join(f"{r['Column_0']},{r['Column_1']},{r['Column_2']}\n"
                                                            for r in rows))
    return str(data)


def test_argmax_takes_the_first_nan_as_numpy_does():
    for scores in ([0.0, math.nan, 1.0], [1.0, 0.0, math.nan], [math.nan, 2.0, math.nan], [0.5, 0.5, 0.1]):
        assert argmax(scores) == np.argmax(scores), scores


def test_where_some_class_scores_are_nan_the_label_is_lightgbms(one_vs_all, tmp_path):
    """LGBMClassifier.predict labels [1, 0, nan] as class 2 and [0.25, nan, 0] as class 1 (numpy's argmax):
    the model says so (verify --against runs LightGBM), and so does every target: a NaN-aware argmax in
    the programs, NaN sorting above every number in DuckDB, SQLite's NULLs tested in class order."""
    model, path = one_vs_all
    assert [label for label, _ in predict_rows(model, SOME_NAN_ROWS[:4])] == ["1", "2", "1", "0"]
    results = verify(model, _rows_file(tmp_path, SOME_NAN_ROWS), ["python", "java", "c", "javascript", "sql"],
                     ["sqlite", "duckdb", "ansi"], against=path)
    assert [r.target for r in results] == ["LightGBM itself", "python", "java", "c", "javascript", "sql/sqlite",
                                           "sql/duckdb", "sql/ansi"]
    assert all(r.ok for r in results), [r.line() for r in results]


def test_only_a_model_that_can_score_nan_tests_nan_in_its_argmax(one_vs_all):
    """A model without linear leaves or an infinite sum (scores_nan) has its programs written as they were."""
    tests = {"python": "_argmax_nan(", "java": "argmaxNan(", "javascript": "argmaxNan(", "c": "is_nan(deciding[best])"}
    for target, test in tests.items():
        assert test in emit(one_vs_all[0], target) and test not in emit(random_model(0), target), target


# XGBoost files (JSON reads Infinity, and a float32 leaf of 1e39 is inf) whose trees' leaves, all made infinite,
# sum to NaN or to an infinity a softmax makes NaN (inf - inf): XGBoost loads them and predicts NaN. Each:
# (fixture, objective, tree -> its leaves). multi:softmax labels by the raw sums: XGBoost's FindMaxIndex, which
# no NaN passes (class 1's sum is NaN, the others' numbers: the label is theirs).
INFINITE_LEAVES = {"softprob": ("multiclass", None, {0: math.inf}),
                   "softmax": ("multiclass", "multi:softmax", {1: math.inf, 4: -math.inf}),
                   "logistic": ("binary", None, {0: math.inf, 1: -math.inf}),
                   "gamma": ("gamma", None, {0: 1e39, 1: -math.inf})}


ZERO_ROWS = [{"x0": 0.0, "x1": 0.0, "x2": 0.0}, {"x0": 1.0, "x1": -1.0, "x2": 2.0}]


@pytest.fixture(scope="module", params=sorted(INFINITE_LEAVES))
def infinite_leaves(request, tmp_path_factory):
    """(model, its file): an XGBoost fixture (softmax, sigmoid, exp: its float32 links) with infinite leaves."""
    name, objective, leaves = INFINITE_LEAVES[request.param]
    fixture = Path(__file__).parent / "fixtures" / "xgboost" / f"{name}-3.2.0.json"
    doc = json.loads(fixture.read_text())
    assert not scores_nan(import_file(str(fixture)))
    if objective:
        doc["learner"]["objective"]["name"] = objective
    trees = doc["learner"]["gradient_booster"]["model"]["trees"]
    for k, value in leaves.items():
        for node, left in enumerate(trees[k]["left_children"]):
            if left == -1:
                trees[k]["split_conditions"][node] = trees[k]["base_weights"][node] = value
    path = tmp_path_factory.mktemp("xgboost") / "model.json"
    path.write_text(json.dumps(doc))
    model = import_file(str(path))
    label, scores = predict_rows(model, ZERO_ROWS)[0]
    assert scores_nan(model) and all(math.isnan(s) for s in scores) and (objective is None or label != "1")
    return model, str(path)


def test_xgboosts_float32_links_give_a_nan_sum_nan_in_every_target(infinite_leaves):
    """Where NaN sorts high, glibc's expf written out took NaN for an overflow (infinity), or cast it to an
    integer (an error), and the sigmoid's min(-s, 88.7) took 88.7; SQLite's NULL labels were the last
    class's, and verify read SQLite's NULL as no number where it computed float32 in double (now it rounds each
    step, NULL stays NULL: the model's own NaN). multi:softmax's
    label passes over a NaN raw sum, in the model, the programs and the SQL."""
    model, path = infinite_leaves
    results = verify(model, None, ["python", "java", "c", "javascript", "sql"], ["sqlite", "duckdb", "ansi"],
                     against=path)
    assert [r.target for r in results] == ["XGBoost itself", "python", "java", "c", "javascript", "sql/sqlite",
                                           "sql/duckdb", "sql/ansi"]
    assert all(r.ok for r in results), [r.line() for r in results]
    assert results[5].note is None, results[5].line()


def test_importing_an_infinite_leaf_is_refused_in_one_line_and_the_file_itself_predicts(infinite_leaves, tmp_path):
    """A treegen model file holds finite numbers: import wrote one its loader then refused."""
    path, out, rows = infinite_leaves[1], tmp_path / "imported.json", tmp_path / "rows.csv"
    done = treegen_cli("import", path, "-o", str(out))
    assert done.returncode == 2 and not out.exists(), done.stderr
    assert re.fullmatch(r"treegen: error: .*model\.json: node \d+ of tree \d+ has an infinite value, which a treegen "
                        r"model file cannot hold; give the file itself to export, verify or predict\n", done.stderr)
    rows.write_text("x0,x1,x2\n0,0,0\n", encoding="utf-8")
    predicted = treegen_cli("predict", path, str(rows))
    assert predicted.returncode == 0, predicted.stderr


def test_saving_a_model_with_an_infinite_leaf_is_refused_as_its_loading_would_be(infinite_leaves, tmp_path):
    """treegen.save refuses what the loader refuses (it wrote a file the loader then refused), as import does."""
    import treegen
    with pytest.raises(TreegenError, match=r"^node \d+ of tree \d+ has an infinite value, which a treegen model file"):
        treegen.save(infinite_leaves[0], str(tmp_path / "model.json"))


def test_mysql_refuses_an_infinite_leaf_in_one_line(infinite_leaves):
    """It has no infinity to write (it was a ValueError's traceback)."""
    message = r"^mysql: the model holds an infinite number \(a leaf\), which mysql cannot write: it has no infinity$"
    with pytest.raises(TreegenError, match=message):
        emit(infinite_leaves[0], "sql", dialect="mysql")


def test_an_infinite_input_makes_a_nan_score_the_sql_gives_too(linear_model, tmp_path):
    value, scores = predict_rows(linear_model, INFINITE_ROWS[:1])[0]
    assert all(math.isnan(s) for s in scores)
    results = verify(linear_model, _rows_file(tmp_path), ["sql"], ["sqlite", "duckdb", "ansi"])
    assert all(r.ok for r in results), [r.line() for r in results]


def test_a_nan_score_on_postgres(linear_model, tmp_path, postgres_dsn):
    results = verify(linear_model, _rows_file(tmp_path), ["sql"], ["postgres"], dsns={"postgres": postgres_dsn})
    assert all(r.ok for r in results), [r.line() for r in results]


def test_a_model_that_can_score_nan_on_mysql(linear_model, tmp_path, mysql_server):
    """MySQL holds neither NaN nor infinity: the SQL of a model whose score can be NaN wrote its tests for NaN
    with Python's None for MySQL's infinity ('s0 <= None': "Unknown column 'None'"): a binary classifier with
    linear leaves, an XGBoost model whose float32 sums can overflow (its label and its sigmoid); the rows it
    is given hold no infinity (PyMySQL refuses one)."""
    doc = json.loads((Path(__file__).parent / "fixtures" / "xgboost" / "binary-3.2.0.json").read_text())
    tree = doc["learner"]["gradient_booster"]["model"]["trees"][0]
    for node, left in enumerate(tree["left_children"]):
        if left == -1:
            tree["split_conditions"][node] = tree["base_weights"][node] = 3e38
    (tmp_path / "huge.json").write_text(json.dumps(doc))
    for model in (linear_model, import_file(str(tmp_path / "huge.json"))):
        assert scores_nan(model) and "None" not in emit(model, "sql", dialect="mysql", proba=True)
    if linear_model.target.is_classification:  # (MariaDB raises an error where a regression's exp overflows)
        results = verify(linear_model, _rows_file(tmp_path), ["sql"], ["mysql"], dsns={"mysql": mysql_server})
        assert all(r.ok for r in results), [r.line() for r in results]


def test_some_nan_class_scores_on_postgres(one_vs_all, tmp_path, postgres_dsn):
    results = verify(one_vs_all[0], _rows_file(tmp_path, SOME_NAN_ROWS), ["sql"], ["postgres"],
                     dsns={"postgres": postgres_dsn})
    assert all(r.ok for r in results), [r.line() for r in results]


def test_the_exp_guard_lets_nan_through_where_nan_sorts_high():
    """DuckDB's ``NaN > 709.78`` is true: the overflow's infinity is for numbers only."""
    assert exp(DIALECTS["duckdb"], "s") == ("CASE WHEN s < -745.0e0 THEN 0.0e0 WHEN s > 709.782712893384e0 AND "
                                            "s <> 'NaN'::DOUBLE THEN 'Infinity'::DOUBLE ELSE EXP(s) END")
    for dialect in ("duckdb", "ansi"):
        got = duckdb.sql(f"SELECT {exp(DIALECTS[dialect], 's')} FROM (SELECT CAST(x AS DOUBLE) AS s FROM "
                         "(VALUES ('NaN'), ('Infinity'), ('710'), ('1')) AS t(x))").fetchall()
        assert math.isnan(got[0][0]) and got[1][0] == got[2][0] == math.inf and got[3][0] == math.exp(1), dialect


def test_an_empty_answer_is_nan_only_where_the_engine_writes_nan_so():
    model = random_model(0, regression=True)
    rows = [{f.name: 0.0 for f in model.features}] * 2
    expected = [(math.nan, [math.nan]), (1.5, [1.5])]
    got = [("", None), ("", None)]
    problems, _ = judged(model, rows, got, expected, empty=math.nan)
    assert len(problems) == 1 and problems[0].startswith("row 2 ") and "model 1.5, got ''" in problems[0]
    problems, _ = judged(model, rows, got, expected)
    assert len(problems) == 2 and "model nan, got ''" in problems[0]


def test_a_nan_score_on_spark(linear_model, spark):
    """Spark orders NaN above every number too (its EXP is Java's: within its declared 1e-14)."""
    _assert_spark_agrees(linear_model, INFINITE_ROWS, spark)


def test_some_nan_class_scores_on_spark(one_vs_all, spark):
    _assert_spark_agrees(one_vs_all[0], SOME_NAN_ROWS, spark)


def test_infinite_leaves_on_postgres(infinite_leaves, postgres_dsn):
    results = verify(infinite_leaves[0], None, ["sql"], ["postgres"], dsns={"postgres": postgres_dsn})
    assert all(r.ok for r in results), [r.line() for r in results]


def test_infinite_leaves_on_spark(infinite_leaves, spark):
    _assert_spark_agrees(infinite_leaves[0], ZERO_ROWS, spark)


def _assert_spark_agrees(model, rows, spark):
    proba = model.target.is_classification
    results = query(emit(model, "sql", dialect="spark", proba=proba), model, rows, "spark", spark=spark)
    first = len(model.features)
    for result, (want, scores) in zip(results, predict_rows(model, rows), strict=True):
        assert not proba or result[first] == want, (result, want)
        got = result[first + 1:] if proba else result[first:first + 1]
        assert len(got) == len(scores), (result, scores)
        assert all(math.isclose(a, b, rel_tol=1e-14) or math.isnan(a) and math.isnan(b) for a, b in zip(got, scores)), \
            (result, scores)
