"""Imported XGBoost models predict what XGBoost predicts, bit for bit: float32 margins, probabilities
and values, and labels, at every threshold, the float32 and float64 values either side of where its
float32 cast changes, NaN and the `missing` value, ±0.0, the zero band's ±1e-35 and 1e-36, huge values,
negative, unknown and out-of-range categories.

Files saved by XGBoost 1.7.6, 2.1.4, 3.2.0 and 3.4.1 (tests/fixtures/xgboost, made by make_fixtures.py there)
are checked against what each version predicted, without XGBoost; models trained here are checked
against the installed XGBoost's own predict. XGBoost refuses infinite inputs and inputs beyond float32
unless `missing` is infinite, so no probe has them."""
from __future__ import annotations

import csv
import ctypes
import io
import json
import math
import os
import random
import re
import sqlite3
import struct
import time
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xgboost as xgb
from click.testing import CliRunner

from cli_in_process import treegen_cli
from treegen import arithmetic, from_xgboost, modelio
from treegen.cli import main
from treegen.emit.common import SIGMOID_F32_CUT
from treegen.emit.sql.arithmetic import float32_split
from treegen.emit.sql.dialects import DIALECTS
from treegen.errors import TreegenError
from treegen.importers import IMPORTERS, import_file, ubjson
from treegen.importers.xgboost import INFINITE, OBJECTIVES, UBJSON_START, oracle
from treegen.model import Codes, Combine, Decision, Op, apply_link, decide
from treegen.parse.rule_lines import read_lines
from treegen.parse.rule_grammar import parser
from treegen.parse.rule_text import parse
from treegen.run.sql import query
from treegen.targets import TARGETS
from treegen.verifier import verify
from treegen.walk import encode_column, predict_rows, tree_outputs

FIXTURES = Path(__file__).parent / "fixtures" / "xgboost"
XGB_VERSION = tuple(int(p) for p in xgb.__version__.split(".")[:2])  # the installed XGBoost, the oracle
FLT_MAX = float(np.finfo(np.float32).max)
SPECIAL = [math.nan, 0.0, -0.0, 1e-35, -1e-35, 1e-36, -1e-36, 1e-46, 1e-300, 3e38, -3e38, FLT_MAX, -FLT_MAX]
CATEGORY_PROBES = [-1.0, -0.5, -0.0, 12.0, 100.0, 16777215.0, 16777216.0, 3e9, math.nan]


# -- comparing a model with what XGBoost predicted ---------------------------------------------------


def bits(values) -> list[str]:
    return [float(v).hex() for v in values]


def code_text(value) -> str:
    """A category code as a treegen row holds it: the integer it is, as text."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def rows_for(model, matrix, categorical=()) -> list[dict]:
    """Rows by feature name; None where missing, category codes as text."""
    names = [f.name for f in model.features]
    rows = []
    for values in matrix:
        row = {}
        for name, v in zip(names, values):
            if v is None or (isinstance(v, float) and math.isnan(v)):
                row[name] = None
            elif name in categorical and not isinstance(v, str):
                row[name] = code_text(v)
            else:
                row[name] = v if isinstance(v, str) else float(v)
        rows.append(row)
    return rows


def raw_margins(model, rows) -> list[list[float]]:
    columns = [encode_column(f, rows, model.numeric.cast) for f in model.features]
    outputs = [tree_outputs(model, tree, columns, rows.__getitem__).tolist() for tree in model.trees]
    return [model.raw_sums([out[i] for out in outputs]) for i in range(len(rows))]


def assert_predicts(model, rows, margins, predictions, labels=None) -> int:
    """The model's raw sums, scores and labels are XGBoost's, bit for bit, row by row; the reference
    evaluator (Model.predict/scores) agrees with the vectorised walk on the first rows. Returns how many
    rows were compared."""
    objective = model.meta["xgboost"]["objective"]
    results = predict_rows(model, rows)
    for i, (row, raw, (label, scores)) in enumerate(zip(rows, raw_margins(model, rows), results)):
        where = f"row {i}: {row}"
        assert bits(raw) == bits(margins[i]), where
        expected = [float(v) for v in predictions[i]]
        if objective == "multi:softmax":
            assert label == str(int(expected[0])), where
        elif model.target.is_classification and len(model.target.classes) == 2:
            assert bits(scores) == bits([float(np.float32(1.0) - np.float32(expected[0])), expected[0]]), where
        else:
            assert bits(scores) == bits(expected), where
        if labels is not None:
            assert label == str(int(labels[i])), where
        if i < 40:
            assert (model.predict(row), model.scores(row)) == (label, scores), where
    return len(rows)


# -- fixtures saved by each XGBoost version ----------------------------------------------------------

EXPECTED = sorted(FIXTURES.glob("*.expected.json"))


def test_fixtures_cover_four_versions_and_both_formats():
    versions = {json.loads(p.read_text())["version"] for p in EXPECTED}
    assert versions == {"1.7.6", "2.1.4", "3.2.0", "3.4.1"}
    assert len(list(FIXTURES.glob("*.ubj"))) >= 10


@pytest.mark.parametrize("expected_path", EXPECTED, ids=lambda p: p.name[:-len(".expected.json")])
def test_files_of_every_version_predict_what_that_version_predicted(expected_path):
    expected = json.loads(expected_path.read_text())
    stem = expected_path.name[:-len(".expected.json")]
    paths = [p for p in (FIXTURES / f"{stem}.json", FIXTURES / f"{stem}.ubj") if p.exists()]
    for path in paths:
        model = import_file(str(path), **expected["options"])
        assert model.meta["xgboost"]["version"] == expected["version"]
        rows = rows_for(model, expected["rows"], expected["categorical"])
        assert assert_predicts(model, rows, expected["margins"], expected["predictions"], expected.get("labels")) > 10
        again = modelio.loads(modelio.dumps(model))  # the JSON model format holds all of it
        assert modelio.dumps(again) == modelio.dumps(model) and predict_rows(again, rows) == predict_rows(model, rows)
    assert len(paths) >= 1


def test_xgboost_1_7_wrapper_files_say_their_missing_value():
    model = import_file(str(FIXTURES / "missing-1.7.6.json"))
    assert model.meta["xgboost"]["missing"] == "-1.0"
    assert model.meta["xgboost"]["missing_from"] == "the scikit-learn wrapper's parameters saved in the file"
    assert model.features[0].missing_interval == (float.fromhex("-0x1.000001p+0"), float.fromhex("-0x1.ffffffp-1"))
    later = import_file(str(FIXTURES / "missing-3.2.0.json"))
    assert later.meta["xgboost"]["missing"] == "nan" and later.features[0].missing_interval is None
    # a later wrapper's file records no missing value (the wrapper's missing=-1.0 is lost): import says so, and how
    result = CliRunner().invoke(main, ["import", str(FIXTURES / "missing-3.2.0.json"), "-o", os.devnull])
    assert result.exit_code == 0 and "treegen: note: the file, saved by XGBoost's scikit-learn wrapper, does not " \
        "record the wrapper's missing value" in result.output and "import with --missing 0" in result.output
    for quiet in (["--missing", "-1"], []):  # given; or a 1.7 file, which records it
        path = FIXTURES / ("missing-3.2.0.json" if quiet else "missing-1.7.6.json")
        result = CliRunner().invoke(main, ["import", str(path), *quiet, "-o", os.devnull])
        assert result.exit_code == 0 and "note" not in result.output, result.output


def test_the_deprecated_binary_format_is_refused_with_how_to_resave():
    with pytest.raises(TreegenError, match=r"deprecated binary model format.*save_model\('model.json'\)"):
        import_file(str(FIXTURES / "tiny-1.7.6.model"))


def test_ubjson_and_json_files_are_the_same_model():
    for ubj in FIXTURES.glob("*.ubj"):
        from_ubj, from_json = import_file(str(ubj)), import_file(str(ubj.with_suffix(".json")))
        from_json.meta["xgboost"]["format"] = "ubjson"
        assert modelio.dumps(from_ubj) == modelio.dumps(from_json), ubj.name


# -- glibc's logf -----------------------------------------------------------------------------------


def test_logf_is_glibcs_on_its_hard_cases():
    """Inputs where glibc's logf is not float32(log(double)) (every 400th of the 416,909, with glibc's
    result, listed by logf_hard.c), and where a float32-rounded double logarithm is wrong there."""
    lines = (FIXTURES / "logf_hard.txt").read_text().split()
    pairs = [(arithmetic.bits_float32(int(a, 16)), arithmetic.bits_float32(int(b, 16)))
             for a, b in zip(lines[::2], lines[1::2])]
    assert len(pairs) == 1043
    assert all(arithmetic.logf(x) == expected for x, expected in pairs)
    assert all(arithmetic.f32(math.log(x)) != expected for x, expected in pairs)


def test_logf_is_this_machines_logf():
    """200,000 random positive float32 and the corners, against the C library (glibc on this machine)."""
    libm = ctypes.CDLL("libm.so.6")
    libm.logf.restype, libm.logf.argtypes = ctypes.c_float, [ctypes.c_float]
    rng = random.Random(10)
    inputs = ([rng.randrange(1, 0x7F800000) for _ in range(200_000)] + list(range(1, 3000))
              + [0x00800000, 0x007FFFFF, 0x3F7FFFFF, 0x3F800001, 0x3F330000, 0x3F32FFFF, 0x7F7FFFFF])
    wrong = [hex(b) for b in inputs
             if struct.pack("<f", arithmetic.logf(arithmetic.bits_float32(b)))
             != struct.pack("<f", libm.logf(arithmetic.bits_float32(b)))]
    assert wrong == []
    assert arithmetic.logf(1.0) == 0.0 and arithmetic.logf(0.0) == -math.inf and arithmetic.logf(math.inf) == math.inf
    assert math.isnan(arithmetic.logf(-1.0)) and math.isnan(arithmetic.logf(math.nan))


# -- the label rule ------------------------------------------------------------------------------------


def test_binary_label_p_above_half_is_argmax_of_one_minus_p_and_p():
    """XGBClassifier.predict labels 1 when the float32 probability p > 0.5; the model decides ARGMAX on
    [float32(1 - p), p]. Equal for every float32 p in [0.25, 1] (below 0.25, 1 - p > 0.75 > p)."""
    low, high = np.float32(0.25).view(np.uint32), np.float32(1.0).view(np.uint32)
    p = np.arange(low, high + 1, dtype=np.uint32).view(np.float32)
    first = (np.float32(1.0) - p).astype(np.float32)
    argmax = np.where(p > first, 1, 0)  # the first highest: class 0 on ties
    assert np.array_equal(argmax, (p > np.float32(0.5)).astype(int))
    for value in (0.5, float(np.nextafter(np.float32(0.5), np.float32(1)))):
        scores = [float(np.float32(1.0) - np.float32(value)), value]
        assert decide(Decision.ARGMAX, scores, [0.0]) == int(value > 0.5)


def xgboost_binary_label(raw: float) -> int:
    """The model's own rule for a binary:logistic raw sum: the ARGMAX of its float32 scores [1 - p, p]."""
    combine = Combine("sum", (0.0,), 1.0, "sigmoid", precision="float32", decide="argmax")
    return decide(combine.decision(), apply_link(combine, [raw]), [raw])


def test_label_cut_is_where_the_binary_label_turns():
    """common.label_cut's proof, checked: the cut by bisection over float32 bit patterns; every float32 within
    65,536 ulps of it, the infinities, NaN, zeros, the docstring's bounds and a stride over all 2^32 patterns
    decide as ``raw >= cut``."""
    low, high = 0, arithmetic.float32_bits(1.0)  # class 0 at 0.0, class 1 at 1.0
    assert (xgboost_binary_label(0.0), xgboost_binary_label(1.0)) == (0, 1)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if xgboost_binary_label(arithmetic.bits_float32(middle)) else (middle, high)
    assert arithmetic.bits_float32(high) == SIGMOID_F32_CUT == 1.5 * 2.0 ** -24 + 2.0 ** -47
    near = range(high - 65536, high + 65537)
    bounds = [0.0, -0.0, 2.0 ** -149, 2.0 ** -51, 2.0 ** -22, math.inf, -math.inf, math.nan, FLT_MAX, -FLT_MAX,
              arithmetic.f32(88.7), arithmetic.f32(-88.7), 89.0, -89.0]
    for raw in [arithmetic.bits_float32(b) for b in [*near, *range(0, 2 ** 32, 65521)]] + bounds:
        assert xgboost_binary_label(raw) == int(raw >= SIGMOID_F32_CUT), raw.hex()


def cut_model(path: Path, values: list[float]) -> None:
    """A binary:logistic model of one tree whose leaf ``i`` (reached where ``x0 < i + 0.5``, after the leaves
    before it) holds ``values[i]``, base_score 0.5: its raw sum there is ``0 + values[i]``. XGBoost's own
    file of a model trained here, its tree written anew."""
    trees_model(path, [values])


def trees_model(path: Path, trees: list[list[float]]) -> None:
    """:func:`cut_model` of several trees, tree ``t``'s leaf ``i`` holding ``trees[t][i]``."""
    booster = train({"objective": "binary:logistic", "base_score": 0.5}, np.arange(4.0).reshape(-1, 1),
                    np.array([0, 1, 0, 1]), rounds=len(trees))
    saved = json.loads(booster.save_raw("json"))
    for tree, values in zip(saved["learner"]["gradient_booster"]["model"]["trees"], trees, strict=True):
        _rewrite(tree, values)
    path.write_text(json.dumps(saved))


def _rewrite(tree: dict, values: list[float]) -> None:
    n = 2 * len(values) - 1  # a split at each even node: its left child a leaf, its right the next split
    leaf = {2 * i + 1: v for i, v in enumerate(values[:-1])} | {n - 1: values[-1]}
    splits = range(0, n - 1, 2)
    tree.update(
        left_children=[i + 1 if i in splits else -1 for i in range(n)],
        right_children=[i + 2 if i in splits else -1 for i in range(n)],
        parents=[2147483647] + [i - 1 - (i - 1) % 2 for i in range(1, n)],
        split_conditions=[leaf[i] if i in leaf else i // 2 + 0.5 for i in range(n)],
        base_weights=[leaf.get(i, 0.0) for i in range(n)], split_indices=[0] * n, split_type=[0] * n,
        default_left=[0] * n, loss_changes=[0.0] * n, sum_hessian=[1.0] * n)
    tree["tree_param"]["num_nodes"] = str(n)


# The cut, one float32 ulp below and above it, the zeros, and further
CUT_SUMS = [SIGMOID_F32_CUT, *(float(np.nextafter(np.float32(SIGMOID_F32_CUT), np.float32(t))) for t in (0, 1)),
            0.0, -0.0, -SIGMOID_F32_CUT, 2.0 ** -22, -1.0]


def sql_labels(model, dialect: str, rows: list[dict], dsn: str | None = None) -> list[list[str]]:
    """The labels of the SQL without --proba, which computes no link (verify's has the probabilities): the
    SELECT's and the --expression's."""
    d = DIALECTS[dialect]
    select = query(TARGETS["sql"].emit(model, dialect=dialect), model, rows, dialect, dsn=dsn)
    alone = TARGETS["sql"].emit(model, dialect=dialect, expression=True)
    inlined = query(f"SELECT {alone} FROM {d.identifier('input')}", model, rows, dialect, dsn=dsn)
    return [[r[-1] for r in select], [r[0] for r in inlined]]


def test_raw_sums_at_the_label_cut_on_postgres(tmp_path, postgres_dsn):
    """PostgreSQL's float4 sum against the cut, a float8 literal."""
    path = tmp_path / "cut.json"
    cut_model(path, CUT_SUMS)
    model = import_file(str(path))
    results = verify(model, None, ["sql"], ["postgres"], dsns={"postgres": postgres_dsn})
    assert len(results) == 1 and results[0].ok, results[0].line()
    rows = [{"x0": float(i)} for i in range(len(CUT_SUMS))]
    assert sql_labels(model, "postgres", rows, postgres_dsn) == [["1", "0", "1", "0", "0", "0", "1", "0"]] * 2


def test_raw_sums_at_the_label_cut_are_labelled_as_xgboost_does_in_every_target(tmp_path):
    """Raw sums at the cut, one float32 ulp either side, 0.0, -0.0 and further: XGBoost's own labels, the
    model's, and every target's, which decides ``raw >= cut`` (DuckDB in float32; SQLite adds in double and
    is held to the model in double, `verify`'s own rule for it, so it is not asked here)."""
    values = CUT_SUMS
    path = tmp_path / "cut.json"
    cut_model(path, values)
    model = import_file(str(path))
    x = np.arange(len(values), dtype=np.float64).reshape(-1, 1)
    margins, predictions = library(xgb.Booster(model_file=str(path)), x)
    rows = [{"x0": v} for v in x[:, 0]]
    # the sums sit where wanted; a tree's output is 0.0 + its leaf's value in treegen (tree_output), so the
    # -0.0 leaf's sum is 0.0 in the model and the targets, -0.0 in XGBoost: the same label and scores
    assert [m[0] for m in margins] == values == [r[0] for r in raw_margins(model, rows)]
    assert bits([m[0] for m in margins]) == bits(values)
    labels = [int(p[0] > 0.5) for p in predictions]
    assert labels == [1, 0, 1, 0, 0, 0, 1, 0]
    assert [model.predict(row) for row in rows] == [str(v) for v in labels]
    results = verify(model, None, ["python", "java", "javascript", "c", "sql"], ["duckdb"], against=str(path))
    assert all(r.ok for r in results) and len(results) == 6, [r.line() for r in results]
    assert sql_labels(model, "duckdb", rows) == [[str(v) for v in labels]] * 2
    for target in ("python", "java", "javascript", "c"):
        text = TARGETS[target].emit(model)
        assert TARGETS[target].run(text, "x0\n" + "".join(f"{v}\n" for v in x[:, 0]), [], model=model).split() == \
            [str(v) for v in labels], target


def test_sqlite_adds_in_float32_where_a_sum_in_double_would_cross_the_cut(tmp_path):
    """SQLite has no 4-byte float: its query rounds each step in double arithmetic. Row 0 sums 2^24 + 0.9 - 2^24:
    0 in float32 (XGBoost: class 0, p 0.5), 0.9 in double (class 1, the label SQLite gave before); row 1 sums
    0.9 alone. XGBoost's own labels and probabilities, bit for bit, from the query with and without --proba, and
    from the --expression, whose outputs are scalar subqueries of the same steps (it added in double: class 1)."""
    assert_crosses_the_cut_as_xgboost(tmp_path, "sqlite")


def test_mysql_adds_in_float32_where_a_sum_in_double_would_cross_the_cut(tmp_path, mysql_server):
    """The same in MySQL (MariaDB), which rounds with CAST(... AS FLOAT) (before, it added in double)."""
    assert_crosses_the_cut_as_xgboost(tmp_path, "mysql", mysql_server)


def assert_crosses_the_cut_as_xgboost(tmp_path, dialect: str, dsn: str | None = None) -> None:
    path = tmp_path / "straddle.json"
    trees_model(path, [[2.0 ** 24, 0.0], [0.9, 0.9], [-2.0 ** 24, 0.0]])
    model = import_file(str(path))
    x = np.array([[0.0], [1.0]])
    margins, predictions = library(xgb.Booster(model_file=str(path)), x)
    assert [m[0] for m in margins] == [0.0, float(np.float32(0.9))]
    in_double = replace(model, combine=replace(model.combine, precision="float64"))
    rows = [{"x0": 0.0}, {"x0": 1.0}]
    assert [in_double.predict(row) for row in rows] == ["1", "1"]  # what adding in double labels
    labels = [str(int(p[0] > 0.5)) for p in predictions]
    assert labels == ["0", "1"]
    got = query(TARGETS["sql"].emit(model, dialect=dialect, proba=True), model, rows, dialect, dsn=dsn)
    assert [r[1] for r in got] == labels
    assert bits([r[3] for r in got]) == bits([p[0] for p in predictions])
    assert bits([r[2] for r in got]) == bits([float(np.float32(1.0) - np.float32(p[0])) for p in predictions])
    assert [r[-1] for r in query(TARGETS["sql"].emit(model, dialect=dialect), model, rows, dialect, dsn=dsn)] == labels
    alone, items = (TARGETS["sql"].emit(model, dialect=dialect, expression=True, proba=proba) for proba in (False, True))
    assert [r[0] for r in query(f"SELECT {alone} FROM input", model, rows, dialect, dsn=dsn)] == labels
    got = query(f"SELECT {items} FROM input", model, rows, dialect, dsn=dsn)
    assert [r[0] for r in got] == labels
    assert bits([r[2] for r in got]) == bits([p[0] for p in predictions])


@pytest.mark.parametrize("objective, trees", [("binary:logistic", 600), ("multi:softprob", 40)])
def test_sqlite_predicts_xgboosts_float32_probabilities_bit_for_bit(objective, trees):
    """XGBoost's own predict and predict_proba from SQLite's query, a step a tree: 600 trees (a chain that
    nested derived tables would overflow the parser with), and a softmax of three classes; and from its
    --expression, each output a scalar subquery of those steps. Adding in double gives other sums on many rows
    (the SQL's before; the expression's, whose every probability differed in the last bits)."""
    assert_predicts_as_xgboost(objective, trees, "sqlite", expression=True)


@pytest.mark.parametrize("objective, trees", [("binary:logistic", 600), ("multi:softprob", 40)])
def test_mysql_predicts_xgboosts_float32_probabilities_bit_for_bit(objective, trees, mysql_server):
    """The same in MySQL (MariaDB): 600 trees are partial sums of 100 rounded steps, a chain of nested CASTs
    that MariaDB's default thread_stack holds."""
    assert_predicts_as_xgboost(objective, trees, "mysql", mysql_server)


def test_a_mysql_expression_past_100_trees_a_class_computes_in_double(mysql_server):
    """MySQL's --expression has no partial sums: 300 float32 steps would be 300 nested CASTs, which overflow
    MariaDB's default thread_stack. Past 100 trees a class it is given the model in double, with the note (as
    before MySQL rounded to FLOAT), and runs; up to 100 it is the model's own float32."""
    from treegen.emit.sql import computed
    rng = np.random.default_rng(6)
    x = rng.standard_normal((100, 3)).astype(np.float32)
    y = (x[:, 0] > 0).astype(int)
    short, long = (from_xgboost(xgb.XGBClassifier(n_estimators=n, max_depth=2).fit(x, y)) for n in (99, 300))
    assert computed(short, "mysql", expression=True) == (short, None)
    in_double, why = computed(long, "mysql", expression=True)
    assert in_double.combine.precision == "float64" and computed(long, "mysql") == (long, None)
    assert why == ("mysql: an expression of 301 float32 additions nests deeper than the engine holds (a query names "
                   "partial sums); it computes the float32 sums and link in double")
    rows = [{f.name: float(v) for f, v in zip(long.features, row)} for row in x]
    alone = TARGETS["sql"].emit(long, dialect="mysql", expression=True)
    got = query(f"SELECT {alone} FROM input", long, rows, "mysql", dsn=mysql_server)
    assert [r[0] for r in got] == [in_double.predict(row) for row in rows]


def assert_predicts_as_xgboost(objective: str, trees: int, dialect: str, dsn: str | None = None,
                               expression: bool = False) -> None:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((300, 3)).astype(np.float32)
    y = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0.5) * (objective != "binary:logistic")
    booster = xgb.XGBClassifier(n_estimators=trees, max_depth=3, learning_rate=0.3, objective=objective).fit(x, y)
    model = from_xgboost(booster)
    rows = [{f.name: float(v) for f, v in zip(model.features, row)} for row in x]
    in_double = replace(model, combine=replace(model.combine, precision="float64"))
    assert sum(a != b for a, b in zip(raw_margins(model, rows), raw_margins(in_double, rows))) > 10
    got = query(TARGETS["sql"].emit(model, dialect=dialect, proba=True), model, rows, dialect, dsn=dsn)
    width = len(model.target.classes)
    assert [r[3] for r in got] == [str(label) for label in booster.predict(x)]
    assert bits([v for r in got for v in r[4:4 + width]]) == bits(booster.predict_proba(x).ravel().tolist())
    if expression:
        items = TARGETS["sql"].emit(model, dialect=dialect, expression=True, proba=True)
        assert [list(r) for r in query(f"SELECT {items} FROM input", model, rows, dialect, dsn=dsn)] == \
            [list(r[3:]) for r in got]


def test_a_binary_label_is_decided_on_the_raw_sum_without_expf():
    """Every target labels a binary:logistic model by its raw sum against the cut, not through the link: the
    label's code names the cut, and the SQL without --proba computes no link (expf's 88.7 clamp is absent)."""
    model = import_file(str(FIXTURES / "binary-3.2.0.json"))
    cut = repr(SIGMOID_F32_CUT)
    assert f"1 if _raw(x)[0] >= {cut} else 0" in TARGETS["python"].emit(model)
    assert f"raw(x)[0] >= {cut} ? 1 : 0" in TARGETS["java"].emit(model)
    assert 'decide: "raw_nonnegative"' in TARGETS["javascript"].emit(model)
    assert f"#define LABEL_CUT {cut}" in TARGETS["c"].emit(model)
    clamp = repr(arithmetic.f32(88.7))
    for dialect in ("postgres", "duckdb", "spark", "ansi"):
        for expression in (True, False):
            sql = TARGETS["sql"].emit(model, dialect=dialect, expression=expression)
            assert cut in sql and clamp not in sql, (dialect, expression)
        assert clamp in TARGETS["sql"].emit(model, dialect=dialect, proba=True), dialect


# -- models trained here, against the installed XGBoost ---------------------------------------------


def make_data(seed: int, n: int = 300, n_features: int = 3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, n_features))
    X[:, 2] = np.round(X[:, 2] * 2)  # ties and exact zeros
    X[::7, 1] = np.nan
    X[::11, 0] = 1e-36
    X[::13, 0] = -1e-35
    signal = np.nan_to_num(X)
    return X, signal


def train(params: dict, X, y, rounds: int = 4, **dmatrix) -> xgb.Booster:
    return xgb.train({"max_depth": 3, "eta": 0.5, "seed": 0, "nthread": 1, **params},
                     xgb.DMatrix(X, label=y, **dmatrix), rounds)


def probe_matrix(model, base, categorical=None, limit: int = 60) -> np.ndarray:
    """Base rows, then the first base row with one feature set to each probe value: every threshold,
    the float32 either side, the effective float64 cut and the doubles either side of it, and the
    special values (for categorical features: the codes the trees name and CATEGORY_PROBES)."""
    rows = [row.copy() for row in base[:4]]
    for index, feature in enumerate(model.features):
        if not feature.is_numeric:
            values = [float(c) for c in feature.categories] + CATEGORY_PROBES
        else:
            values = set()
            for tree in model.trees:
                for node in tree.nodes:
                    if node.split is not None and node.split.feature == index:
                        values.update(threshold_neighbours(model, node.split.threshold))
            values = sorted(values)
            if len(values) > limit:
                values = [values[int(i)] for i in np.linspace(0, len(values) - 1, limit)]
            values += SPECIAL
        for v in values:
            row = base[0].copy()
            row[index] = v
            rows.append(row)
    return np.array(rows)


def threshold_neighbours(model, t: float) -> set[float]:
    t32 = np.float32(t)
    cut = model.numeric.effective_threshold(t)
    return {float(t32), float(np.nextafter(t32, np.float32(-np.inf))), float(np.nextafter(t32, np.float32(np.inf))),
            cut, math.nextafter(cut, -math.inf), math.nextafter(cut, math.inf)}


def library(booster, P, missing=math.nan, iteration_range=(0, 0), feature_types=None):
    matrix = xgb.DMatrix(P, missing=missing, feature_types=feature_types, enable_categorical=feature_types is not None)
    margins = booster.predict(matrix, output_margin=True, iteration_range=iteration_range)
    predictions = booster.predict(matrix, iteration_range=iteration_range)
    return (np.asarray(margins, dtype=np.float64).reshape(len(P), -1).tolist(),
            np.asarray(predictions, dtype=np.float64).reshape(len(P), -1).tolist())


def imported_three_ways(booster, tmp_path, **options):
    """The model from a JSON file, a UBJSON file and the Booster itself."""
    json_path, ubj_path = tmp_path / "model.json", tmp_path / "model.ubj"
    booster.save_model(str(json_path))
    booster.save_model(str(ubj_path))
    return [import_file(str(json_path), **options), import_file(str(ubj_path), **options),
            from_xgboost(booster, **options)]


def check_against_library(booster, tmp_path, X, missing=math.nan, feature_types=None, categorical=(), **options):
    models = imported_three_ways(booster, tmp_path, missing=None if math.isnan(missing) else missing, **options)
    P = probe_matrix(models[0], X, categorical)
    margins, predictions = library(booster, P, missing, feature_types=feature_types)
    for model in models:
        rows = rows_for(model, P, categorical)
        assert assert_predicts(model, rows, margins, predictions) == len(P)
    return models[0]


OBJECTIVE_TARGETS = {
    "binary:logistic": lambda s: (s[:, 0] + s[:, 1] > 0).astype(int),
    "reg:logistic": lambda s: 1 / (1 + np.exp(-(s[:, 0] + s[:, 1]))),
    "binary:logitraw": lambda s: (s[:, 0] + s[:, 1] > 0).astype(int),
    "multi:softprob": lambda s: np.digitize(s[:, 0] + 0.3 * s[:, 1], [-0.5, 0.5]),
    "multi:softmax": lambda s: np.digitize(s[:, 0] + 0.3 * s[:, 1], [-0.5, 0.5]),
    "count:poisson": lambda s: np.round(np.exp(s[:, 0] + s[:, 2] / 4)),
    "reg:gamma": lambda s: np.exp(s[:, 0] + s[:, 2] / 4) + 0.1,
    "reg:tweedie": lambda s: np.round(np.exp(s[:, 0])),
    "reg:squarederror": lambda s: 2 * s[:, 0] + s[:, 1],
    "reg:linear": lambda s: 2 * s[:, 0] + s[:, 1],
    "reg:squaredlogerror": lambda s: np.exp(s[:, 0]),
    "reg:pseudohubererror": lambda s: 2 * s[:, 0] + s[:, 1],
    "reg:absoluteerror": lambda s: 2 * s[:, 0] + s[:, 1],
    "reg:quantileerror": lambda s: 2 * s[:, 0] + s[:, 1],
    "rank:pairwise": lambda s: np.digitize(s[:, 0] + 0.3 * s[:, 1], [-0.5, 0.5, 1.0]),  # relevance grades
    "rank:ndcg": lambda s: np.digitize(s[:, 0] + 0.3 * s[:, 1], [-0.5, 0.5, 1.0]),
    "rank:map": lambda s: (s[:, 0] + 0.3 * s[:, 1] > 0).astype(int),
    "survival:cox": lambda s: np.where(s[:, 1] > 0.8, -1, 1) * np.exp(s[:, 0] / 2),  # negative: censored
    "survival:aft": lambda s: None,  # its labels are the bounds of SURVIVAL_BOUNDS
    "binary:hinge": lambda s: (s[:, 0] + s[:, 1] > 0).astype(int),
}
# survival:aft's times, interval-censored: [lower, upper], the upper bound infinite where right-censored
SURVIVAL_BOUNDS = {"survival:aft": lambda s: {"label_lower_bound": np.exp(s[:, 0] / 2),
                                              "label_upper_bound": np.where(s[:, 1] > 0.8, np.inf, np.exp(s[:, 0] / 2))}}
EXTRA_PARAMS = {"multi:softprob": {"num_class": 3}, "multi:softmax": {"num_class": 3},
                "reg:quantileerror": {"quantile_alpha": 0.3}}
RANKING = ("rank:pairwise", "rank:ndcg", "rank:map")


def trained(objective: str, X, signal, rounds: int = 4, **params) -> xgb.Booster:
    """A booster of ``objective`` trained on ``X``; a ranking one on queries of 20 rows (qid)."""
    groups = {"qid": np.arange(len(X)) // 20} if objective in RANKING else {}
    bounds = SURVIVAL_BOUNDS[objective](signal) if objective in SURVIVAL_BOUNDS else {}
    return train({"objective": objective, **EXTRA_PARAMS.get(objective, {}), **params}, X,
                 OBJECTIVE_TARGETS[objective](signal), rounds, **groups, **bounds)


def test_every_supported_objective_is_trained_here():
    assert set(OBJECTIVE_TARGETS) == set(OBJECTIVES)


@pytest.mark.parametrize("objective", sorted(OBJECTIVE_TARGETS))
@pytest.mark.filterwarnings("ignore:.*linear is now deprecated:UserWarning")
def test_every_objective_from_files_and_the_booster(objective, tmp_path):
    X, signal = make_data(1)
    booster = trained(objective, X, signal)
    model = check_against_library(booster, tmp_path, X)
    assert model.combine.precision == "float32" and model.numeric.strict
    assert model.meta["xgboost"]["objective"] == {"reg:linear": "reg:squarederror"}.get(objective, objective)


@pytest.mark.parametrize("objective", [*RANKING, "survival:cox"])
def test_ranking_and_cox_models_predict_as_xgboost_in_every_target(objective, tmp_path):
    """A ranking model's predict is its margin (base_score, the intercept XGBoost 3 fits, added as saved); Cox's
    is expf of it, a hazard ratio: in every target and against XGBoost's own predict of the file and of the
    Booster, and the model says what the number is."""
    X, signal = make_data(21)
    booster = trained(objective, X, signal, rounds=6)
    model = check_against_library(booster, tmp_path, X)
    path = str(tmp_path / "model.json")
    assert model.meta["predicts"].startswith("a ranking score" if objective in RANKING else "a hazard ratio")
    assert model.meta["objective"] == objective and not model.target.is_classification
    rows = rows_for(model, probe_matrix(model, X))
    assert oracle(path, model, rows) == oracle(booster, model, rows) == predict_rows(model, rows)
    results = verify(model, None, ["python", "java", "javascript", "c", "sql", "rules"], ["sqlite", "duckdb"],
                     against=path)
    assert all(r.ok for r in results) and len(results) == 8, [r.line() for r in results]


def test_an_xgbranker_predicts_its_boosters_scores(tmp_path):
    """The scikit-learn wrapper of ranking: the model from the object predicts what XGBRanker.predict gives."""
    X, signal = make_data(22)
    ranker = xgb.XGBRanker(n_estimators=5, max_depth=3, objective="rank:ndcg", n_jobs=1)
    ranker.fit(X, OBJECTIVE_TARGETS["rank:ndcg"](signal), qid=np.arange(len(X)) // 20)
    model = from_xgboost(ranker)
    P = probe_matrix(model, X)
    assert bits(v for _, (v,) in predict_rows(model, rows_for(model, P))) == bits(ranker.predict(P))
    assert verify(model, None, ["python"], against=ranker)[0].ok


def exp_hard_margins(count: int) -> list[float]:
    """float32 margins where glibc's expf and exp in double rounded to float32 differ."""
    found = []
    for x in np.random.default_rng(3).uniform(-20, 20, 400_000).astype(np.float32).tolist():
        if arithmetic.expf(x) != float(np.float32(math.exp(x))):
            found.append(x)
            if len(found) == count:
                return found
    raise AssertionError("too few margins where expf and exp differ")


def test_cox_predicts_expf(tmp_path):
    """At margins where glibc's expf and exp in double rounded to float32 differ, XGBoost's survival:cox gives
    expf (regression_obj.cu: std::exp of a float), as the model and every target do."""
    margins = exp_hard_margins(6)
    path = tmp_path / "cox.json"
    trees_model(path, [margins])  # leaf i where i - 0.5 <= x0 < i + 0.5
    saved = json.loads(path.read_text())
    saved["learner"]["objective"] = {"name": "survival:cox"}
    saved["learner"]["learner_model_param"]["base_score"] = "1E0"  # the margin logf(1) = 0
    path.write_text(json.dumps(saved))
    model = import_file(str(path))
    rows = [{"x0": float(i)} for i in range(len(margins))]
    assert bits(predict_rows(model, rows)[i][0] for i in range(len(rows))) == \
        bits(arithmetic.expf(m) for m in margins)
    assert oracle(str(path), model, rows) == predict_rows(model, rows)
    results = verify(model, None, ["python", "java", "javascript", "c", "sql"], ["sqlite", "duckdb"], against=str(path))
    assert all(r.ok for r in results) and len(results) == 7, [r.line() for r in results]


# The 69 float32 margins whose exp in double lies within 2^-24 float32 ulps of a float32 rounding midpoint, of
# all 2^31 whose rounded exp is finite and not 0 (exp_midpoints.py sweeps them): only at these can an exp a few
# double ulps off glibc's (Java's Math.exp, Spark's EXP) round to another float32.
AFT_MIDPOINT_MARGINS = [arithmetic.bits_float32(int(line.split()[0], 16))
                        for line in (FIXTURES / "exp_midpoints.txt").read_text().splitlines()]
# The bounds (expf's, the same for exp in double rounded to float32): the largest margin whose exp is finite,
# the next float32 (inf); the least whose exp is not 0 (the least subnormal), the float32 below it (0).
F32_EXP_BOUNDS = [bound for bound, beyond in ((arithmetic.EXPF_OVERFLOW, np.inf), (arithmetic.EXPF_UNDERFLOW, -np.inf))
                  for bound in (bound, float(np.nextafter(np.float32(bound), np.float32(beyond))))]


def margins_model(path: Path, objective: str, margins: list[float], nan: bool = True) -> list[dict]:
    """A file of ``objective`` whose margin is ``margins[i]`` at the row x0 = i (base_score the margin 0:
    survival:aft's logf(1), binary:hinge's identity of 0), and where ``nan`` at the row after them NaN
    (inf + -inf); those rows."""
    trees_model(path, [[*margins, math.inf][:len(margins) + nan], [0.0] * len(margins) + [-math.inf] * nan])
    saved = json.loads(path.read_text())
    saved["learner"]["objective"] = {"name": objective, **({"aft_loss_param": {
        "aft_loss_distribution": "normal", "aft_loss_distribution_scale": "1"}} if objective == "survival:aft" else {})}
    saved["learner"]["learner_model_param"]["base_score"] = "1E0" if objective == "survival:aft" else "0E0"
    path.write_text(json.dumps(saved))
    return [{"x0": float(i)} for i in range(len(margins) + nan)]


def assert_every_target_predicts(model, path: Path) -> None:
    """Every target but the rules (a model file's infinite leaf is no number the rule text or treegen's JSON
    holds) and the SQL of SQLite and DuckDB predict what the model does, which predicts what XGBoost does."""
    results = verify(model, None, ["python", "java", "javascript", "c", "sql"], ["sqlite", "duckdb"], against=str(path))
    assert all(r.ok for r in results) and len(results) == 7, [r.line() for r in results]


def assert_rules_read_back(model) -> None:
    """The rule text (its link among them) read back by the fast reader and by the Lark grammar alike predicts
    what the model does."""
    text = TARGETS["rules"].emit(model)
    assert repr(read_lines(text)) == repr(parser().parse(text))
    assert modelio.dumps(replace(parse(text), meta=model.meta)) == modelio.dumps(model)
    results = verify(model, None, ["rules"])
    assert all(r.ok for r in results) and len(results) == 1, [r.line() for r in results]


def aft_margins() -> list[float]:
    return [*exp_hard_margins(6), *AFT_MIDPOINT_MARGINS, *F32_EXP_BOUNDS, -100.0, -0.0, 0.0, math.inf, -math.inf]


def test_aft_predicts_exp_in_double_rounded_to_float32_in_every_target(tmp_path):
    """XGBoost's survival:aft predicts C's exp of the float32 margin, in double, rounded to float32 (aft_obj.cu
    PredTransform): not expf (the first six margins are where they differ), at margins whose exp lies nearest a
    float32 midpoint, at the bounds of overflow and underflow, a subnormal, the infinities and NaN -- the model
    and every target, bit for bit."""
    path = tmp_path / "aft.json"
    margins = aft_margins()
    rows = margins_model(path, "survival:aft", margins)
    model = import_file(str(path))
    assert model.combine.link == "exp_double" and not model.target.is_classification
    assert model.meta["predicts"].startswith("a predicted survival time (survival:aft)")
    _, predictions = library(xgb.Booster(model_file=str(path)), np.array([[r["x0"]] for r in rows]))
    expected = [arithmetic.f32(arithmetic.exp(m)) for m in margins] + [math.nan]
    assert bits(p for (p,) in predictions) == bits(expected)
    assert bits(v for v, _ in predict_rows(model, rows)) == bits(expected)
    assert all(arithmetic.expf(m) != e for m, e in zip(margins[:6], expected))
    at_bounds = [expected[margins.index(m)] for m in F32_EXP_BOUNDS]
    assert 3.4e38 < at_bounds[0] < math.inf and at_bounds[1:] == [math.inf, 2.0 ** -149, 0.0]
    assert repr(oracle(str(path), model, rows)) == repr(predict_rows(model, rows))  # (NaN != NaN)
    assert_every_target_predicts(model, path)
    margins_model(path, "survival:aft", [m for m in margins if math.isfinite(m)], nan=False)
    assert_rules_read_back(import_file(str(path)))


# binary:hinge's margins where the label turns: 0 and -0 (0), the least subnormal either side, the least normal
HINGE_MARGINS = [0.0, -0.0, 2.0 ** -149, -2.0 ** -149, 2.0 ** -126, -1.0, 1.0, math.inf, -math.inf]


def test_hinge_is_a_binary_classifier_of_the_margins_sign(tmp_path):
    """XGBoost's binary:hinge predicts 1.0 where the float32 margin is above 0, else 0.0, NaN too (hinge.cu
    PredTransform); XGBClassifier.predict gives that label and predict_proba [1 - it, it]. The model is that
    classifier: its label and scores are the wrapper's, its score of class "1" Booster.predict's -- trained,
    and at the margins where the label turns, in every target."""
    X, signal = make_data(31)
    classifier = xgb.XGBClassifier(objective="binary:hinge", n_estimators=6, max_depth=3, n_jobs=1)
    classifier.fit(X, (signal[:, 0] + signal[:, 1] > 0.3).astype(int))
    model = from_xgboost(classifier)
    assert model.combine.link == "step" and model.target.classes == ("0", "1")
    P = probe_matrix(model, X)
    results = predict_rows(model, rows_for(model, P))
    assert [label for label, _ in results] == [str(v) for v in classifier.predict(P)]
    assert bits(v for _, scores in results for v in scores) == bits(classifier.predict_proba(P).ravel())
    assert {label for label, _ in results} == {"0", "1"}
    path = tmp_path / "hinge.json"
    rows = margins_model(path, "binary:hinge", HINGE_MARGINS)
    model = import_file(str(path))
    _, predictions = library(xgb.Booster(model_file=str(path)), np.array([[r["x0"]] for r in rows]))
    expected = [1.0 if m > 0 else 0.0 for m in HINGE_MARGINS] + [0.0]  # NaN: 0
    assert [p for (p,) in predictions] == expected == [0, 0, 1, 0, 1, 0, 1, 1, 0, 0]
    assert [(label, scores) for label, scores in predict_rows(model, rows)] == \
        [(str(int(e)), [1.0 - e, e]) for e in expected]
    assert repr(oracle(str(path), model, rows)) == repr(predict_rows(model, rows))  # (NaN != NaN)
    assert_every_target_predicts(model, path)
    margins_model(path, "binary:hinge", [m for m in HINGE_MARGINS if math.isfinite(m)], nan=False)
    assert_rules_read_back(import_file(str(path)))


def test_aft_and_hinge_on_postgres_mysql_spark_and_ansi(tmp_path, postgres_dsn, mysql_server, spark):
    """The same margins through the SQL of the server engines and ANSI's (on DuckDB): PostgreSQL's 4-byte cast
    raises an error on overflow and underflow, which the link's bounds keep from it; Spark's EXP, Java's, is
    not glibc's, yet rounds to the same float32 at every margin nearest a midpoint. MySQL has no infinity (a
    leaf, an exp beyond float32: an error, as for the other links): there the finite margins below overflow."""
    dsns = {"postgres": postgres_dsn, "mysql": mysql_server}  # spark: the suite's session, found by getOrCreate
    for objective, margins in (("survival:aft", aft_margins()), ("binary:hinge", HINGE_MARGINS)):
        path = tmp_path / f"{objective[:3]}.json"
        margins_model(path, objective, margins)
        results = verify(import_file(str(path)), None, ["sql"], ["postgres", "spark", "ansi"], dsns=dsns)
        assert all(r.ok for r in results) and len(results) == 3, [r.line() for r in results]
        margins_model(path, objective, [m for m in margins if abs(m) <= arithmetic.EXPF_OVERFLOW], nan=False)
        results = verify(import_file(str(path)), None, ["sql"], ["mysql"], dsns=dsns)
        assert all(r.ok for r in results) and len(results) == 1, [r.line() for r in results]


def test_an_unknown_objective_is_refused_naming_the_supported(tmp_path):
    path = tmp_path / "model.json"
    trees_model(path, [[1.0, 2.0]])
    saved = json.loads(path.read_text())
    saved["learner"]["objective"] = {"name": "reg:made_up"}
    path.write_text(json.dumps(saved))
    assert re.search(r"the XGBoost objective 'reg:made_up' is not supported; supported: binary:logistic, .*"
                     r"survival:aft, binary:hinge$", one_line_error(path))


def test_a_ranking_model_on_the_command_line_says_it_predicts_a_ranking_score(tmp_path):
    X, signal = make_data(23)
    booster = trained("rank:pairwise", X, signal)
    rank, imported = tmp_path / "rank.json", tmp_path / "m.json"
    booster.save_model(str(rank))
    done = CliRunner().invoke(main, ["import", str(rank), "-o", str(imported)], catch_exceptions=False)
    assert done.exit_code == 0 and "treegen: the prediction is a ranking score (rank:pairwise)" in done.output
    java = CliRunner().invoke(main, ["export", str(imported), "--to", "java"], catch_exceptions=False)
    assert java.exit_code == 0 and "public static double predict(" in java.output, java.output[:2000]
    shown = CliRunner().invoke(main, ["show", str(imported)], catch_exceptions=False)
    assert shown.output.startswith("The prediction is a ranking score (rank:pairwise): the trees' sum, by which to "
                                   "order the rows of one query, highest first"), shown.output[:300]


@pytest.mark.parametrize("objective, base_score", [("binary:logistic", 0.3), ("binary:logistic", 1e-7),
                                                   ("binary:logistic", 0.9999999), ("count:poisson", 2.5),
                                                   ("reg:tweedie", 0.0123), ("multi:softprob", 0.7)])
def test_a_given_base_score_becomes_xgboosts_margin(objective, base_score, tmp_path):
    """ProbToMargin with glibc's logf; 3.1+ clamps a logistic base_score to [1e-6, 1 - 1e-6]."""
    X, signal = make_data(2)
    params = {"objective": objective, "base_score": base_score, **EXTRA_PARAMS.get(objective, {})}
    check_against_library(train(params, X, OBJECTIVE_TARGETS[objective](signal), rounds=2), tmp_path, X)
    flat = train({**params, "eta": 0.0}, X, OBJECTIVE_TARGETS[objective](signal), rounds=1)  # a margin of init alone
    model = from_xgboost(flat)
    assert {node.value for tree in model.trees for node in tree.nodes if node.is_leaf} == {(0.0,)}
    assert model.meta["xgboost"]["base_margin"] == list(model.combine.init)
    assert bits(model.combine.init) == bits(flat.predict(xgb.DMatrix(X[:1]), output_margin=True).reshape(-1))


@pytest.mark.parametrize("objective", ["multi:softprob", "multi:softmax"])
def test_num_class_1_is_a_classifier_of_one_class(objective, tmp_path):
    """XGBoost trains, loads and predicts multi:softprob and multi:softmax of num_class 1 (every label 0): the
    softmax of one margin, 1.0, and the label 0 (a column, not a matrix) -- in the model, as the oracle gives
    them, and in every target."""
    X, _ = make_data(13)
    booster = train({"objective": objective, "num_class": 1}, X, np.zeros(len(X)))
    model = check_against_library(booster, tmp_path, X)
    assert model.target.classes == ("0",) and model.meta["xgboost"]["classes"] == [0]
    path = str(tmp_path / "model.json")
    rows = rows_for(model, probe_matrix(model, X))
    assert oracle(path, model, rows) == predict_rows(model, rows) == [("0", [1.0])] * len(rows)
    results = verify(model, None, ["python", "java", "javascript", "c", "sql", "rules"], ["sqlite", "duckdb"],
                     against=path)
    assert all(r.ok for r in results) and len(results) == 8, [r.line() for r in results]


VECTOR_LEAVES = {"multi_strategy": "multi_output_tree", "tree_method": "hist", "num_class": 3}


@pytest.mark.parametrize("objective", ["multi:softprob", "multi:softmax"])
def test_vector_leaves_add_to_every_class(objective, tmp_path):
    """multi_strategy="multi_output_tree": one tree per round whose leaves hold a value per class, each added
    in float32 to its class's margin, tree after tree (src/predictor/cpu_predictor.cc multi::PredValueByOneTree);
    3.2 saves the leaves' values apart (leaf_weights, at the leaf's right child). From JSON, UBJSON and the
    Booster: margins, probabilities and labels bit for bit, with missing values, as the oracle gives them, and
    in every target."""
    X, signal = make_data(16)
    booster = train({"objective": objective, **VECTOR_LEAVES}, X, OBJECTIVE_TARGETS[objective](signal), rounds=5)
    model = check_against_library(booster, tmp_path, X)
    assert [tree.output for tree in model.trees] == [None] * 5
    assert {len(node.value) for tree in model.trees for node in tree.nodes} == {3}
    path = str(tmp_path / "model.json")
    rows = rows_for(model, probe_matrix(model, X))
    assert oracle(path, model, rows) == predict_rows(model, rows)
    results = verify(model, None, ["python", "java", "javascript", "c", "sql", "rules"], ["sqlite", "duckdb"],
                     against=path)
    assert all(r.ok for r in results) and len(results) == 8, [r.line() for r in results]


def test_vector_leaf_fixtures_as_rule_text_and_against_xgboost():
    """The fixtures of vector leaves through the rule text (the programs and SQL take every fixture in
    their own tests), and against the installed XGBoost's own predict of the file: 3.2 keeps the leaves'
    values apart (leaf_weights, 3.2.0's fixture) and crashes on a file of the older layout (base_weights,
    2.1.4's), which the oracle says in one line rather than load."""
    for version in ("2.1.4", "3.2.0"):
        path = str(FIXTURES / f"vector_leaves-{version}.ubj")
        model = import_file(path)
        old = version == "2.1.4"
        assert model.meta["xgboost"]["vector_leaves"] == ("base_weights" if old else "leaf_weights")
        against, rules = verify(model, None, ["rules"], against=path)
        assert rules.ok and against.ok != (old and XGB_VERSION >= (3, 2)), \
            against.line()
        if not against.ok:
            assert (f"XGBoost {xgb.__version__} cannot load this file: its vector-leaf trees were saved by XGBoost "
                    "2.1.4, before 3.2 kept") in against.line()


def test_vector_leaf_trees_that_do_not_add_up_are_one_line(tmp_path):
    X, signal = make_data(17)
    booster = train({"objective": "multi:softprob", **VECTOR_LEAVES}, X, OBJECTIVE_TARGETS["multi:softprob"](signal))
    saved = json.loads(bytes(booster.save_raw(raw_format="json")))
    tree = saved["learner"]["gradient_booster"]["model"]["trees"][1]
    leaf = tree["left_children"].index(-1)
    for key, value, message in (
            ("tree_param", {**tree["tree_param"], "size_leaf_vector": "2"},
             "trees[1].tree_param.size_leaf_vector is 2 for 3 output"),
            ("right_children", tree["right_children"][:leaf] + [99] + tree["right_children"][leaf + 1:],
             "trees[1].right_children names leaf value 99 of "),
            ("base_weights", tree["base_weights"][:-1], "trees[1].base_weights has "),
            ("leaf_weights", tree["leaf_weights"][:-1], "trees[1].leaf_weights has ")):
        document = json.loads(json.dumps(saved))
        document["learner"]["gradient_booster"]["model"]["trees"][1][key] = value
        path = tmp_path / "broken.json"
        path.write_text(json.dumps(document))
        assert f"not a valid XGBoost model: {message}" in one_line_error(path), key


@pytest.mark.parametrize("missing", [-999.0, 0.0, 1.5])
def test_the_missing_value_is_missing_where_its_float32_is(missing, tmp_path):
    X, signal = make_data(3)
    X = np.where(np.isnan(X), missing, X)
    booster = train({"objective": "binary:logistic"}, X, (signal[:, 0] + signal[:, 1] > 0).astype(int))
    model = check_against_library(booster, tmp_path, X, missing=missing)
    low, high = model.features[0].missing_interval
    for x in (missing, math.nextafter(low, -math.inf), low, high, math.nextafter(high, math.inf), -0.0, 1e-46):
        assert (low <= x <= high) == (np.float32(x) == np.float32(missing)), x


@pytest.mark.parametrize("missing", [math.inf, -math.inf])
def test_an_infinite_missing_value_reaches_its_infinity_and_reads_back(missing, tmp_path):
    """With ``missing`` infinite XGBoost takes every input: one whose float32 is that infinity (beyond
    float32's range) is missing; the interval ends at the infinity, which the model file writes as JSON's
    Infinity and reads back, and ``treegen import --missing inf`` writes a model that predicts and verifies."""
    X, signal = make_data(3)
    X = np.where(np.isnan(X), missing, X)
    booster = train({"objective": "binary:logistic"}, X, (signal[:, 0] + signal[:, 1] > 0).astype(int), missing=missing)
    model = check_against_library(booster, tmp_path, X, missing=missing)
    rounds_to_inf = 3.4028235677973366e38  # FLT_MAX plus half an ulp: float32 rounds it (ties to even) to inf
    interval = (rounds_to_inf, math.inf) if missing > 0 else (-math.inf, -rounds_to_inf)
    assert model.features[0].missing_interval == interval
    beyond = [math.inf, -math.inf, 1e39, -1e39, rounds_to_inf, -rounds_to_inf, FLT_MAX, -FLT_MAX,
              math.nextafter(rounds_to_inf, 0.0), math.nextafter(-rounds_to_inf, 0.0)]
    P = np.array([[v, *X[0, 1:]] for v in beyond] + [[*X[0, :2], v, *X[0, 3:]] for v in beyond])
    margins, predictions = library(booster, P, missing)
    assert assert_predicts(model, rows_for(model, P), margins, predictions) == len(P)
    saved = tmp_path / "saved.json"
    modelio.save(model, str(saved))
    assert "Infinity" in saved.read_text() and modelio.dumps(modelio.load(str(saved))) == modelio.dumps(model)
    native, out = tmp_path / "model.json", tmp_path / "cli.json"  # (saved by check_against_library)
    result = CliRunner().invoke(main, ["import", str(native), "--missing", str(missing), "-o", str(out)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["verify", str(out), "--against", str(native), "--to", "python,rules"])
    assert result.exit_code == 0 and re.search(r"XGBoost itself +ok +\d+ rows agree", result.output), result.output


def test_random_forests_add_every_tree_of_a_round(tmp_path):
    X, signal = make_data(4)
    for objective, target in (("binary:logistic", OBJECTIVE_TARGETS["binary:logistic"]),
                              ("multi:softprob", OBJECTIVE_TARGETS["multi:softprob"])):
        params = {"objective": objective, "num_parallel_tree": 3, "subsample": 0.8, "colsample_bynode": 0.8,
                  **EXTRA_PARAMS.get(objective, {})}
        booster = train(params, X, target(signal), rounds=2)
        model = check_against_library(booster, tmp_path, X)
        assert model.meta["xgboost"]["rounds"] == 2 and len(model.trees) == 2 * 3 * (3 if "multi" in objective else 1)


def test_dart_weights_as_booster_predict_applies_them(tmp_path):
    X, signal = make_data(5)
    for objective, target in (("binary:logistic", OBJECTIVE_TARGETS["binary:logistic"]),
                              ("multi:softprob", OBJECTIVE_TARGETS["multi:softprob"])):
        params = {"objective": objective, "booster": "dart", "rate_drop": 0.3, "skip_drop": 0.0,
                  **EXTRA_PARAMS.get(objective, {})}
        model = check_against_library(train(params, X, target(signal), rounds=6), tmp_path, X)
        assert any(tree.weight != 1.0 for tree in model.trees) and "dart" in model.meta["xgboost"]


def test_dart_weights_are_read_where_each_version_keeps_them(tmp_path):
    """Up to 3.2 a DART file is a "dart" booster with its weights beside the trees; 3.3 saves a "gbtree" whose
    model holds them, and reads them beside the model too (gbtree.cc GBTree::LoadModel): the same weights,
    the same model, wherever they are. A list of another length than the trees is refused in one line."""
    document = json.loads((FIXTURES / "dart-3.4.1.json").read_text())
    booster = document["learner"]["gradient_booster"]
    assert booster["name"] == "gbtree" and len(booster["model"]["weight_drop"]) == 6
    model = import_file(str(FIXTURES / "dart-3.4.1.json"))
    assert [tree.weight for tree in model.trees] == np.float32(booster["model"]["weight_drop"]).astype(float).tolist()
    assert model.meta["xgboost"]["booster"] == "dart"
    beside = {**booster, "weight_drop": booster["model"]["weight_drop"],
              "model": {k: v for k, v in booster["model"].items() if k != "weight_drop"}}
    older = {"name": "dart", "gbtree": {"name": "gbtree", "model": beside["model"]},
             "weight_drop": beside["weight_drop"]}
    for layout in (beside, older):
        path = tmp_path / "layout.json"
        path.write_text(json.dumps({**document, "learner": {**document["learner"], "gradient_booster": layout}}))
        assert modelio.dumps(import_file(str(path))) == modelio.dumps(model)
    booster["model"]["weight_drop"] = booster["model"]["weight_drop"][:5]
    (tmp_path / "short.json").write_text(json.dumps(document))
    assert "not a valid XGBoost model: weight_drop has 5 weights for 6 trees" in one_line_error(tmp_path / "short.json")


def test_import_says_where_the_wrappers_predict_differs_from_booster_predict(tmp_path):
    """XGBoost's own ways of predicting differ on three kinds of model (found by fuzzing against the scikit-learn
    wrapper): treegen's model is Booster.predict's, which verify --against runs, and import says so and what the
    wrapper does instead -- each claim checked here against XGBoost itself."""
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=300), "b": rng.normal(size=300)})
    y3 = np.digitize(X.a + X.b, [-1.0, 1.0])
    cases = {"logitraw": xgb.XGBClassifier(objective="binary:logitraw", n_estimators=3, max_depth=2).fit(X, y3 > 0),
             "softmax": xgb.XGBClassifier(objective="multi:softmax", n_estimators=10, max_depth=3).fit(X, y3),
             "dart": xgb.XGBRegressor(booster="dart", base_score=-1e10, n_estimators=5, max_depth=2, rate_drop=0.5,
                                      skip_drop=0.0, random_state=0).fit(X, X.a * 1e3)}
    notes = {"logitraw": "binary:logitraw predicts the raw margin, a regression here as Booster.predict gives it",
             "softmax": "multi:softmax's probabilities are multi:softprob's",
             "dart": "DART: the sums are Booster.predict's, leaf * weight then added"}
    for name, fitted in cases.items():
        path = str(tmp_path / f"{name}.json")
        fitted.save_model(path)
        done = CliRunner().invoke(main, ["import", path, "-o", str(tmp_path / f"{name}.treegen.json")])
        assert done.exit_code == 0 and f"treegen: {notes[name]}" in done.output, done.output
        done = CliRunner().invoke(main, ["export", path, "-o", str(tmp_path / f"{name}.py")])  # imported there too
        assert done.exit_code == 0 and f"treegen: note: {notes[name]}" in done.output, done.output
        model, rows = import_file(path), X.to_dict("records")
        booster = xgb.Booster(model_file=path)
        if name == "logitraw":  # the margin, as Booster.predict; the wrapper's labels cut it at 0.5
            assert not model.target.is_classification and [model.predict(r) for r in rows] == booster.predict(
                xgb.DMatrix(X)).astype(float).tolist()
            assert fitted.predict(X).tolist() == [int(model.predict(r) > 0.5) for r in rows]
        elif name == "softmax":  # the labels agree; the probabilities are softprob's, not the wrapper's
            assert fitted.predict(X).tolist() == [int(model.predict(r)) for r in rows]
            booster.set_param({"objective": "multi:softprob"})
            scores = np.array([model.scores(r) for r in rows])
            assert scores.tolist() == booster.predict(xgb.DMatrix(X)).astype(float).tolist()
            assert 0 < np.abs(scores - fitted.predict_proba(X)).max() <= 2.4e-7
        else:  # Booster.predict's sums; before 3.3 the wrapper's differ, by far more than an ulp at this base_score
            assert [model.predict(r) for r in rows] == booster.predict(xgb.DMatrix(X)).astype(float).tolist()
            apart = np.abs(np.array([model.predict(r) for r in rows]) - fitted.predict(X)).max()
            assert apart > 1 if XGB_VERSION < (3, 3) else apart == 0


def test_early_stopping_as_the_wrapper_or_booster_predict(tmp_path):
    X, signal = make_data(6, n=400)
    y = (signal[:, 0] + signal[:, 1] > 0).astype(int)
    clf = xgb.XGBClassifier(n_estimators=60, max_depth=3, learning_rate=0.5, random_state=1, n_jobs=1,
                            early_stopping_rounds=2, eval_metric="logloss")
    clf.fit(X[:250], y[:250], eval_set=[(X[250:], y[250:])], verbose=False)
    path = str(tmp_path / "early.json")
    clf.save_model(path)
    rounds = clf.best_iteration + 1
    booster = xgb.Booster(model_file=path)
    assert rounds < booster.num_boosted_rounds()
    wrapper_choice = [import_file(path), from_xgboost(clf)]
    P = probe_matrix(wrapper_choice[0], X)
    proba = clf.predict_proba(P)[:, 1]
    for model in wrapper_choice:
        assert model.meta["xgboost"]["rounds_used"] == rounds and len(model.trees) == rounds
        assert "scikit-learn wrapper" in model.meta["xgboost"]["trees_used"]
        assert_predicts(model, rows_for(model, P), clf.predict(P, output_margin=True).reshape(-1, 1).tolist(),
                        proba.reshape(-1, 1).tolist(), clf.predict(P))
    every_tree = [import_file(path, use_best_iteration=False), from_xgboost(clf, use_best_iteration=False),
                  from_xgboost(booster)]
    margins, predictions = library(booster, P)
    for model in every_tree:
        assert model.meta["xgboost"]["rounds_used"] == booster.num_boosted_rounds()
        assert_predicts(model, rows_for(model, P), margins, predictions)
    trained = xgb.train({"objective": "binary:logistic", "nthread": 1, "seed": 0}, xgb.DMatrix(X[:250], label=y[:250]),
                        60, evals=[(xgb.DMatrix(X[250:], label=y[250:]), "valid")], early_stopping_rounds=2,
                        verbose_eval=False)
    trained.save_model(path)
    default = import_file(path)
    assert default.meta["xgboost"]["rounds_used"] == trained.num_boosted_rounds()
    assert "not saved by the scikit-learn wrapper" in default.meta["xgboost"]["trees_used"]
    assert import_file(path, use_best_iteration=True).meta["xgboost"]["rounds_used"] == trained.best_iteration + 1
    for flags, rounds, note in (([], trained.num_boosted_rounds(), "; --best-iteration takes the first"),
                                (["--best-iteration"], trained.best_iteration + 1, "--every-round takes every"),
                                (["--every-round"], trained.num_boosted_rounds(), "--best-iteration takes the first")):
        out = tmp_path / "imported.json"
        done = treegen_cli("import", path, "-o", str(out), *flags)
        assert done.returncode == 0 and modelio.load(str(out)).meta["xgboost"]["rounds_used"] == rounds, done.stderr
        last = done.stderr.splitlines()[-1]
        assert last.startswith("treegen: XGBoost's best_iteration: ") and note in last, last
    document = json.loads(Path(path).read_text())  # best_iteration the last round: nothing to choose, no note
    document["learner"]["attributes"]["best_iteration"] = str(trained.num_boosted_rounds() - 1)
    Path(path).write_text(json.dumps(document))
    done = treegen_cli("import", path, "-o", str(out))
    assert done.returncode == 0 and "best_iteration" not in done.stderr, done.stderr
    assert modelio.load(str(out)).meta["xgboost"]["best_iteration"] == trained.num_boosted_rounds() - 1


def categorical_data(seed: int, n: int = 400, n_codes: int = 10):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_codes, size=n).astype(float)
    codes[::9] = np.nan
    x0 = rng.normal(size=n)
    effect = rng.normal(size=n_codes) * 2
    y = ((effect[np.nan_to_num(codes, nan=0).astype(int)] + x0) > 0).astype(int)
    return np.column_stack([x0, codes]), y


@pytest.mark.parametrize("onehot", [1, 64])
def test_categorical_codes_listed_go_right_and_every_other_code_left(onehot, tmp_path):
    X, y = categorical_data(7)
    types = ["q", "c"]
    booster = train({"objective": "binary:logistic", "tree_method": "hist", "max_cat_to_onehot": onehot}, X, y,
                    feature_types=types, enable_categorical=True)
    model = check_against_library(booster, tmp_path, X, feature_types=types, categorical=("x1",))
    feature = model.features[1]
    assert feature.kind == "nominal" and all(c.isdigit() for c in feature.categories)
    splits = [node.split for tree in model.trees for node in tree.nodes if node.split and node.split.op == "in"]
    assert splits and all(split.unknown == 1 for split in splits)
    assert feature.codes == Codes.NONNEGATIVE  # a fractional code is truncated, as XGBoost does
    assert model.predict({"x0": 0.1, "x1": "2.7"}) == model.predict({"x0": 0.1, "x1": 2.0})


def test_category_codes_read_as_xgboost_reads_them(tmp_path):
    """Codes given as numbers and as texts -- 3.0, "3e0", 2.7, -0.0, -1.5, 2^24 and beyond, float32's
    rounding -- predict what XGBoost predicts from a numeric DMatrix with feature type 'c'; `treegen
    predict` on the CSV pandas writes ("3.0" in a column with a NaN) and `verify --against` too."""
    X, y = categorical_data(11, n_codes=6)
    types = ["q", "c"]
    booster = train({"objective": "binary:logistic", "tree_method": "hist", "max_cat_to_onehot": 1}, X, y,
                    feature_types=types, enable_categorical=True, rounds=4)
    native, model_path, data = tmp_path / "model.json", tmp_path / "treegen.json", tmp_path / "data.csv"
    booster.save_model(str(native))
    model = import_file(str(native))
    assert model.features[1].codes == Codes.NONNEGATIVE and model.numeric.cast == "float32"
    codes = [0.0, 3.0, 2.7, 2.9999999, 5.5, -0.0, -1.5, -1.0, 16777216.0, 3e9, 1e30] + X[:30, 1].tolist()
    P = np.column_stack([np.resize(X[:, 0], len(codes)), codes])
    margins, predictions = library(booster, P, feature_types=types)
    numbers = [{"x0": float(x), "x1": None if math.isnan(c) else float(c)} for x, c in P]
    texts = [{**row, "x1": None if row["x1"] is None else repr(row["x1"])} for row in numbers]
    for rows in (numbers, texts, [{**row, "x1": row["x1"] and row["x1"].replace(".0", "e0")} for row in texts]):
        assert assert_predicts(model, rows, margins, predictions) == len(P)
    model_path.write_text(modelio.dumps(model))
    frame = pd.DataFrame(P, columns=["x0", "x1"])
    frame.to_csv(data, index=False)
    assert ",3.0\n" in data.read_text()
    result = CliRunner().invoke(main, ["predict", str(model_path), str(data), "--proba"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    got = [float(row["P(1)"]) for row in csv.DictReader(io.StringIO(result.output))]
    assert got == [float(p[0]) for p in predictions]
    result = CliRunner().invoke(main, ["verify", str(model_path), str(data), "--against", str(native), "--to", "rules"])
    assert "XGBoost itself      ok" in result.output and "rules               ok" in result.output, result.output



def test_category_codes_under_one_half_read_in_sql_as_xgboost_reads_them(tmp_path):
    """Under one half a code is category 0 only where float32 rounds it to (-)0: -0.25 and -1e-10 are
    below zero, no category, and -1e-300 is 0 -- in the dialects with a 4-byte float and in SQLite's
    double; verify's probes hold such codes, and so does the data here."""
    for zero_right in (True, False):  # whichever way XGBoost sends code 0, a negative code goes the other
        codes = np.random.default_rng(0).integers(0, 5, 400).astype(float)
        X, y = np.column_stack([np.zeros(400), codes]), ((codes == 0) == zero_right).astype(int)
        booster = train({"objective": "binary:logistic", "tree_method": "hist", "max_cat_to_onehot": 1,
                         "max_depth": 1}, X, y, feature_types=["q", "c"], enable_categorical=True, rounds=1)
        margins, _ = library(booster, np.array([[0.1, -0.25], [0.1, 0.0]]), feature_types=["q", "c"])
        if margins[0] != margins[1]:
            break
    assert margins[0] != margins[1]
    native, data = tmp_path / "model.json", tmp_path / "data.csv"
    booster.save_model(str(native))
    codes = [-0.4, -0.25, -1e-10, -1e-300, -7e-46, -7.006492321624086e-46, -7.1e-46, 1e-46, 7.1e-46, 0.3, -0.0]
    data.write_text("x0,x1\n" + "".join(f"0.1,{c!r}\n" for c in codes), encoding="utf-8")
    result = CliRunner().invoke(main, ["verify", str(native), str(data), "--against", str(native), "--to", "sql",
                                       "--dialect", "sqlite,duckdb,ansi"])
    assert result.exit_code == 0 and result.output.count(" ok ") == 4, result.output


def test_float32_split_rounds_as_float32_ties_to_even_in_sqlite():
    """The SQL that rounds a code to float32 in plain double arithmetic (SQLite): float32's own rounding
    (numpy's) on ties of random 24-bit mantissas at every exponent from 2^-26 to 2^33, a double either side of
    each, both signs, and random doubles from 2^-126 to FLT_MAX."""
    rng = np.random.default_rng(5)
    mantissas = rng.integers(2 ** 23, 2 ** 24, 1000).astype(np.float64) + 0.5
    ties = np.concatenate([mantissas * 2.0 ** (e - 23) for e in range(-26, 33)])
    patterns = rng.integers(np.float64(2.0 ** -126).view(np.int64), np.float64(FLT_MAX).view(np.int64), 100_000)
    x = np.concatenate([ties, np.nextafter(ties, 0), np.nextafter(ties, np.inf), patterns.view(np.float64)])
    x = np.concatenate([x, -x])
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute("CREATE TABLE t (x REAL)")
        connection.executemany("INSERT INTO t VALUES (?)", ((v,) for v in x.tolist()))
        got = [r[0] for r in connection.execute(f"SELECT {float32_split(DIALECTS['sqlite'], 'x')} FROM t")]
    assert bits(got) == bits(x.astype(np.float32).astype(np.float64))


def codes_stump(tmp_path) -> Path:
    """A one-split XGBoost file on integer codes that sends the even ones right: those under 16 it was
    trained on, and 2^23 and 2^24 - 2 written into the file, so that each code's neighbours go the other way."""
    codes = np.random.default_rng(0).integers(0, 16, 400).astype(float)
    booster = train({"objective": "reg:squarederror", "tree_method": "hist", "max_cat_to_onehot": 1, "max_depth": 1},
                    np.column_stack([np.zeros(400), codes]), codes % 2, feature_types=["q", "c"],
                    enable_categorical=True, rounds=1)
    saved = json.loads(booster.save_raw("json"))
    tree = saved["learner"]["gradient_booster"]["model"]["trees"][0]
    assert tree["categories"] == list(range(0, 16, 2))
    tree["categories"] += [2 ** 23, 2 ** 24 - 2]
    tree["categories_sizes"] = [len(tree["categories"])]
    path = tmp_path / "codes.json"
    path.write_text(json.dumps(saved))
    return path


def code_probes() -> list[float]:
    """Codes at and around each integer k that float32 rounds them to: k, k -/+ 1e-7, the float32 midpoints
    below and above k (ties, to even) and a double either side of each; the same below zero; 2^23 + 0.5 and
    2^24 - 1.5 (ties to the even code, listed, where ties away would give the odd one), 2^24 + 1; near and
    beyond CODE_LIMIT (2^31); and beyond where x * (2^29 + 1) overflows a double."""
    probes = []
    for k in [*map(float, range(16)), 2.0 ** 23, 2.0 ** 23 + 1, 2.0 ** 24 - 2, 2.0 ** 24 - 1]:
        below, above = (float(np.nextafter(np.float32(k), np.float32(t))) for t in (-np.inf, np.inf))
        ties = [(below + k) / 2, (k + above) / 2]
        probes += [k, k - 1e-7, k + 1e-7, *ties, *(math.nextafter(t, s) for t in ties for s in (-math.inf, math.inf))]
    probes += [-p for p in probes if p]
    return probes + [2.0 ** 24 + 1, 2.0 ** 31 - 64, 2.0 ** 31 - 65, 2.0 ** 31, -2.0 ** 31, 3e9, 3e38]


HUGE_CODES = [1e300, -1e300, 1.7e308]  # XGBoost refuses inputs beyond float32: the model's answer (no category)


def assert_codes_read_as_xgboost(tmp_path, dialect: str, dsn: str | None = None) -> None:
    path = codes_stump(tmp_path)
    model, probes = import_file(str(path)), code_probes()
    margins, predictions = library(xgb.Booster(model_file=str(path)), np.column_stack([np.zeros(len(probes)), probes]),
                                   feature_types=["q", "c"])
    assert len({p[0] for p in predictions}) == 2  # both ways taken
    rows = [{"x0": 0.0, "x1": code_text(c)} for c in probes + HUGE_CODES]
    assert assert_predicts(model, rows[:len(probes)], margins, predictions) == len(probes)
    expected = [p[0] for p in predictions] + [model.scores(row)[0] for row in rows[len(probes):]]
    got = [r[-1] for r in query(TARGETS["sql"].emit(model, dialect=dialect), model, rows, dialect, dsn=dsn)]
    wrong = [(row["x1"], e, g) for row, e, g in zip(rows, expected, got) if not abs(e - g) < 1e-6]
    assert not wrong, wrong


def test_category_codes_are_rounded_to_float32_in_sqlite(tmp_path):
    """SQLite has no 4-byte float: a code is rounded to float32 in double arithmetic, as XGBoost reads it
    (3.9999999 is code 4, 2^23 + 0.5 is 2^23), and huge codes, where that arithmetic would overflow, name none."""
    assert_codes_read_as_xgboost(tmp_path, "sqlite")


def test_category_codes_are_rounded_to_float32_in_mysql(tmp_path, mysql_server):
    """The same in MySQL (MariaDB), whose FLOAT rounds as float32 does, and which raises an error where a double
    overflows."""
    assert_codes_read_as_xgboost(tmp_path, "mysql", mysql_server)


def minus_half_and_zero():
    """A model whose split sends code 0 right, and XGBoost's margins for code -0.5 and code 0."""
    codes = np.random.default_rng(0).integers(0, 5, 400).astype(float)
    X, y = np.column_stack([np.zeros(400), codes]), (codes != 0).astype(int)
    booster = train({"objective": "binary:logistic", "tree_method": "hist", "max_cat_to_onehot": 1, "max_depth": 1},
                    X, y, feature_types=["q", "c"], enable_categorical=True, rounds=1)
    margins, _ = library(booster, np.array([[0.1, -0.5], [0.1, 0.0]]), feature_types=["q", "c"])
    return from_xgboost(booster), margins


def test_xgboost_takes_a_code_between_minus_one_and_zero_as_no_category():
    model, (minus_half, zero) = minus_half_and_zero()
    assert minus_half != zero  # -0.5 is not category 0 in XGBoost, where truncation would make it 0
    assert raw_margins(model, [{"x0": 0.1, "x1": -0.5}, {"x0": 0.1, "x1": "-0.0"}]) == [minus_half, zero]
    assert model.scores({"x0": 0.1, "x1": 0}) == model.scores({"x0": 0.1, "x1": "0"})


def test_pandas_categories_saved_by_xgboost_3_are_named(tmp_path):
    rng = np.random.default_rng(8)
    names = ["red", "green", "blue", "light grey", "", "a,b"]
    picks = rng.integers(0, len(names), size=400)
    x0 = rng.normal(size=400)
    frame = pd.DataFrame({"x0": x0, "colour": pd.Categorical([names[i] for i in picks], categories=names)})
    frame.loc[::11, "colour"] = None
    y = ((np.isin(picks, [1, 3, 5]) * 2 - 1 + x0) > 0).astype(int)
    clf = xgb.XGBClassifier(n_estimators=4, max_depth=3, enable_categorical=True, tree_method="hist",
                            max_cat_to_onehot=1, random_state=0, n_jobs=1).fit(frame, y)
    path = str(tmp_path / "pandas.ubj")
    clf.save_model(path)
    for model in (import_file(path), from_xgboost(clf)):
        assert model.features[1].categories == tuple(names)
        assert model.meta["xgboost"]["named_categories"] == ["colour"]
        probe = pd.DataFrame({"x0": np.tile(x0[:4], len(names) + 1),
                              "colour": pd.Categorical(np.repeat(names + [None], 4).tolist(), categories=names)})
        rows = [{"x0": float(a), "colour": b if isinstance(b, str) else None}
                for a, b in zip(probe["x0"], probe["colour"].astype(object))]
        assert_predicts(model, rows, clf.predict(probe, output_margin=True).reshape(-1, 1).tolist(),
                        clf.predict_proba(probe)[:, 1:].tolist(), clf.predict(probe))
        # a name not among the training categories is missing, as in a frame of the training categories
        unknown = [{"x0": float(v), "colour": "purple"} for v in x0[:4]]
        assert raw_margins(model, unknown) == raw_margins(model, [{**row, "colour": None} for row in unknown])


def test_integer_pandas_categories_are_named_as_integers(tmp_path):
    rng = np.random.default_rng(19)
    sizes = [10, 20, -30, 45]
    picks = rng.integers(0, 4, size=300)
    frame = pd.DataFrame({"size": pd.Categorical([sizes[i] for i in picks], categories=sizes)})
    clf = xgb.XGBRegressor(n_estimators=3, max_depth=3, enable_categorical=True, tree_method="hist",
                           max_cat_to_onehot=1, n_jobs=1).fit(frame, np.isin(picks, [1, 3]).astype(float))
    model = from_xgboost(clf)
    assert model.features[0].categories == ("10", "20", "-30", "45")
    assert model.meta["xgboost"]["integer_categories"] == ["size"]
    given = sizes + [None, None]  # 99 and 3, unknown, are missing in a frame of the training categories
    probe = pd.DataFrame({"size": pd.Categorical(given, categories=sizes)})
    rows = [{"size": str(v)} for v in sizes] + [{"size": "99"}, {"size": 3.0}]
    assert_predicts(model, rows, clf.predict(probe, output_margin=True).reshape(-1, 1),
                    clf.predict(probe).reshape(-1, 1))
    path = str(tmp_path / "sizes.json")
    clf.save_model(path)
    assert oracle(path, import_file(path), rows + [{"size": None}]) == predict_rows(model, rows + [{"size": None}])


def test_integer_pandas_categories_read_a_number_by_its_value(tmp_path):
    """XGBoost 3.x's saved integer categories have Codes.INTEGRAL: pandas finds a value among them by its value,
    20.0 as the category 20 (a frame read from CSV, whose int column holding a NaN is float), and so does the
    model, given 20.0, numpy's 20 or the text "20.0"; string categories are read by their text alone. By the
    value itself, not its float32 as XGBoost reads codes: 100000001.0 is 100000001 (float32: 1e8), and
    19.99999999 (float32: 20) none."""
    rng = np.random.default_rng(19)
    sizes, colours = [10, 20, -30, 100000001], ["10", "20", "x"]
    picks = rng.integers(0, 4, size=400)
    frame = pd.DataFrame({"size": pd.Categorical([sizes[i] for i in picks], categories=sizes),
                          "colour": pd.Categorical(rng.choice(colours, 400), categories=colours)})
    y = np.isin(picks, [1, 3]) + (frame["colour"] == "x").to_numpy()
    clf = xgb.XGBRegressor(n_estimators=3, max_depth=3, enable_categorical=True, tree_method="hist",
                           max_cat_to_onehot=1, n_jobs=1).fit(frame, y.astype(float))
    path = str(tmp_path / "sizes.json")
    clf.save_model(path)
    saved = str(tmp_path / "model.json")
    modelio.save(import_file(path), saved)
    for model in (from_xgboost(clf), import_file(path), modelio.load(saved)):
        assert [(f.categories, f.codes) for f in model.features] == [(("10", "20", "-30", "100000001"), Codes.INTEGRAL),
                                                                     (tuple(colours), None)]
    probe = pd.DataFrame({"size": pd.Categorical([float(s) for s in sizes] * 3, categories=sizes),
                          "colour": pd.Categorical(np.repeat(colours, 4), categories=colours)})
    want = clf.predict(probe).tolist()
    for given in (float, np.int64, lambda s: f"{s}.0", lambda s: f"{s}e0"):
        rows = [{"size": given(s), "colour": c} for s, c in zip(sizes * 3, np.repeat(colours, 4))]
        assert [value for value, _ in predict_rows(model, rows)] == want
        assert [value for value, _ in oracle(path, model, rows)] == want
    assert model.scores({"size": "2.0e1", "colour": "x"}) == model.scores({"size": 20, "colour": "x"})
    assert model.scores({"size": 20.0, "colour": 10}) == model.scores({"size": 20, "colour": "10"})
    for near in ("19.99999999", 19.99999999, "100000000", 1e8):
        assert model.scores({"size": near, "colour": "x"}) == model.scores({"size": None, "colour": "x"})


def test_integer_pandas_categories_by_value_in_every_target(tmp_path):
    """Every target reads a CSV's text for XGBoost's saved integer categories as pandas finds it among them (the
    frame XGBoost predicts: ``pd.Categorical(pd.to_numeric(text), categories=...)``): by the value, not the
    text ("-1.0" is -1; main read it as unknown text) and not its float32 ("100000001.0" is 100000001)."""
    rng = np.random.default_rng(23)
    sizes = [-5, -1, 3, 100000001, 100000003, 9007199254740994]
    picks = rng.integers(0, len(sizes), size=600)
    x = rng.normal(size=600)
    frame = pd.DataFrame({"num": x, "ic": pd.Categorical([sizes[i] for i in picks], categories=sizes)})
    y = x + np.isin(picks, [1, 3, 5]) * 2.0
    reg = xgb.XGBRegressor(n_estimators=6, max_depth=3, enable_categorical=True, tree_method="hist",
                           max_cat_to_onehot=1, n_jobs=1).fit(frame, y)
    native = tmp_path / "ic.json"
    reg.save_model(native)
    texts = ["-5.0", "-1e0", "-0.99999999", "2.99999999", "3", "100000001.0", "1.00000001e8", "100000000",
             "100000004", "9.007199254740994e15", "x", ""]
    data = tmp_path / "rows.csv"
    data.write_text("num,ic\n" + "".join(f"{n},{t}\n" for n in (-1.5, 0.1, 1.2) for t in texts))
    read = pd.read_csv(data, dtype={"ic": str}, keep_default_na=False)
    numbers = pd.to_numeric(read["ic"], errors="coerce")
    known = numbers.where(numbers.isin(sizes))
    probe = pd.DataFrame({"num": read["num"], "ic": pd.Categorical(known, categories=sizes)})
    want = reg.get_booster().predict(xgb.DMatrix(probe, enable_categorical=True)).tolist()
    model = tmp_path / "ic.tg.json"
    assert treegen_cli("import", native, "-o", model).returncode == 0
    done = treegen_cli("predict", model, data)
    assert [float(line.rsplit(",", 1)[1]) for line in done.stdout.splitlines()[1:]] == want
    done = treegen_cli("verify", model, data, "--against", native, "--to", "python,java,javascript,c,sql,rules",
                       "--dialect", "sqlite,duckdb")
    assert done.returncode == 0, done.stdout + done.stderr


COLOURS = ["red", "green", "blue", "violet"]


def colour_classifier():
    """The audit's model: the label is num > 0, flipped for red and blue; a tenth of the colours missing."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"num": rng.normal(size=500), "color": pd.Categorical(rng.choice(COLOURS, 500))})
    frame.loc[rng.random(500) < 0.1, "color"] = None
    y = ((frame.num > 0) ^ frame.color.isin(["red", "blue"])).astype(int)
    return xgb.XGBClassifier(n_estimators=20, enable_categorical=True, tree_method="hist", max_depth=3,
                             n_jobs=1).fit(frame, y), frame.color.cat.categories.tolist()


def colour_frame(nums, colours, categories) -> pd.DataFrame:
    """A frame as a user makes it for XGBoost: a name not among ``categories`` is missing (pandas makes it
    NaN, and will refuse it: the frame says so itself)."""
    known = [c if c in categories else None for c in colours]
    return pd.DataFrame({"num": nums, "color": pd.Categorical(known, categories=categories)})


def test_an_unknown_category_name_is_missing_as_in_a_frame_of_the_training_categories(tmp_path):
    clf, training = colour_classifier()
    path = str(tmp_path / "colour.json")
    clf.save_model(path)
    nums = np.repeat([-2.0, -0.5, 0.0, 0.3, 2.0], 9)
    colours = np.tile(COLOURS + ["purple", "aaa", "zzz", "\u2603", None], 5).tolist()
    rows = [{"num": float(a), "color": b} for a, b in zip(nums, colours)]
    frame = colour_frame(nums, colours, training)
    margins = clf.predict(frame, output_margin=True).reshape(-1, 1).tolist()
    for model in (import_file(path), from_xgboost(clf)):
        assert assert_predicts(model, rows, margins, clf.predict_proba(frame)[:, 1:].tolist(), clf.predict(frame))
    # as the audit found: purple at num=-2 is label 0 in XGBoost; as code -1 (its side of the categories
    # not listed) it would be label 1
    purple = colour_frame([-2.0], ["purple"], training)
    assert clf.predict(purple).tolist() == [0] and model.predict({"num": -2.0, "color": "purple"}) == "0"
    as_code = xgb.DMatrix(np.array([[-2.0, -1.0]]), feature_names=["num", "color"], feature_types=["float", "c"],
                          enable_categorical=True)
    assert clf.get_booster().predict(as_code).tolist()[0] > 0.5
    assert oracle(path, model, rows) == predict_rows(model, rows)


def test_a_frame_with_its_categories_in_another_order_is_recoded_by_name():
    """XGBoost 3.1+ re-codes a frame against the training categories by name: a frame listing them
    in another order, or only some of them, predicts as the training order does -- and as the model."""
    clf, training = colour_classifier()
    model = from_xgboost(clf)
    nums = np.repeat([-1.0, 0.7], 5)
    colours = np.tile(["violet", "blue", None, "red", "green"], 2).tolist()
    rows = [{"num": float(a), "color": b} for a, b in zip(nums, colours)]
    expected = clf.predict_proba(colour_frame(nums, colours, training))[:, 1:].tolist()
    for order in (training[::-1], ["violet", "red", "green", "blue"]):
        frame = colour_frame(nums, colours, order)
        assert clf.predict_proba(frame)[:, 1:].tolist() == expected
        assert_predicts(model, rows, clf.predict(frame, output_margin=True).reshape(-1, 1).tolist(), expected)
    subset = colour_frame(nums[:2], ["blue", "red"], ["red", "blue"])
    subset_rows = ({"num": -1.0, "color": "blue"}, {"num": -1.0, "color": "red"})
    assert clf.predict_proba(subset)[:, 1].tolist() == [model.scores(row)[1] for row in subset_rows]


def test_a_frame_whose_own_categories_hold_an_unknown_name_is_not_the_rule():
    """What the module docstring says of XGBoost itself: 3.3+ refuses such a frame; 3.1 and 3.2 refuse
    it only for a name after every training category, and otherwise take the next category's code."""
    clf, _ = colour_classifier()

    def own(name):
        return clf.predict_proba(pd.DataFrame({"num": [2.0], "color": pd.Categorical([name])}))[0, 1]

    with pytest.raises(ValueError, match="Found a category not in the training set"):
        own("zzz")
    if XGB_VERSION >= (3, 3):
        with pytest.raises(ValueError, match="Found a category not in the training set"):
            own("purple")
    else:
        assert own("purple") == own("red") and own("aaa") == own("blue")


def test_verify_against_gives_xgboost_names_and_catches_unknown_names_sent_left(tmp_path):
    """`verify --against` feeds XGBoost a frame of the training categories, as a user does, and the
    generated Python agrees on unknown names and missing values; a model that sent unknown names to
    the side of the categories not listed (code -1's side) is caught."""
    clf, _ = colour_classifier()
    native, good, bad, data = (str(tmp_path / name) for name in ("colour.json", "good.json", "bad.json", "d.csv"))
    clf.save_model(native)
    model = import_file(native)
    with open(good, "w") as f:
        f.write(modelio.dumps(model))
    for tree in model.trees:
        tree.nodes = [replace(node, split=replace(node.split, unknown=1))
                      if node.split is not None and node.split.op == Op.IN else node for node in tree.nodes]
    with open(bad, "w") as f:
        f.write(modelio.dumps(model))
    pd.DataFrame({"num": np.repeat([-2.0, 2.0], 4), "color": ["purple", "", "red", "aaa"] * 2}).to_csv(data,
                                                                                                      index=False)
    done = treegen_cli("verify", good, data, "--against", native, "--to", "python")
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"XGBoost itself +ok", done.stdout) and re.search(r"python +ok", done.stdout), done.stdout
    done = treegen_cli("verify", bad, data, "--against", native)
    assert done.returncode == 1 and re.search(r"XGBoost itself +MISMATCH", done.stdout), done.stdout + done.stderr
    assert "'color': '\u2603 unseen category'" in done.stdout  # verify's probe of an unknown name


def test_category_names_xgboost_3_1_to_3_3_cut_short_are_refused_and_3_4s_read(tmp_path):
    """XGBoost 3.1 to 3.3 measure category names in characters and store UTF-8 bytes: names beyond ASCII
    are lost, and refused; 3.4 stores them whole, and they are read."""
    frame = pd.DataFrame({"colour": pd.Categorical(["naïve", "red", "数据", "red"] * 20)})
    clf = xgb.XGBRegressor(n_estimators=1, enable_categorical=True, tree_method="hist", max_cat_to_onehot=1, n_jobs=1)
    clf.fit(frame, np.arange(80.0) % 3)
    path = tmp_path / "model.json"
    clf.save_model(str(path))
    if XGB_VERSION < (3, 4):
        assert "saved the categories of feature 'colour' cut short" in one_line_error(path)
        return
    model = import_file(str(path))
    assert model.features[0].categories == ("naïve", "red", "数据")
    names = ["naïve", "red", "数据", None]
    expected = clf.predict(pd.DataFrame({"colour": pd.Categorical(names, categories=model.features[0].categories)}))
    assert [value for value, _ in predict_rows(model, [{"colour": name} for name in names])] == expected.tolist()


def test_scikit_learn_wrappers_labels_and_probabilities(tmp_path):
    X, signal = make_data(9)
    binary = OBJECTIVE_TARGETS["binary:logistic"](signal)
    multi = OBJECTIVE_TARGETS["multi:softprob"](signal)
    common = {"n_estimators": 5, "max_depth": 3, "random_state": 0, "n_jobs": 1}
    for estimator, y in ((xgb.XGBClassifier(**common), binary), (xgb.XGBClassifier(**common), multi),
                         (xgb.XGBRFClassifier(**common), binary), (xgb.XGBRegressor(**common), signal[:, 0]),
                         (xgb.XGBClassifier(objective="multi:softmax", **common), multi),
                         (xgb.XGBClassifier(multi_strategy="multi_output_tree", tree_method="hist", **common), multi)):
        estimator.fit(X, y)
        path = str(tmp_path / "wrapper.json")
        estimator.save_model(path)
        for model in (import_file(path), from_xgboost(estimator)):
            P = probe_matrix(model, X)
            margins = np.asarray(estimator.predict(P, output_margin=True), dtype=np.float64).reshape(len(P), -1)
            if hasattr(estimator, "predict_proba") and estimator.objective != "multi:softmax":
                predictions = estimator.predict_proba(P)
                predictions = predictions[:, 1:] if predictions.shape[1] == 2 else predictions
                labels = estimator.predict(P)
            elif hasattr(estimator, "predict_proba"):
                predictions, labels = estimator.predict(P).reshape(-1, 1), estimator.predict(P)
            else:
                predictions, labels = estimator.predict(P).reshape(-1, 1), None
            assert_predicts(model, rows_for(model, P), margins.tolist(), predictions.tolist(), labels)


def test_verify_against_says_how_many_rows_xgboost_refuses_and_why(tmp_path):
    """The rows XGBoost's predict refuses (an infinity in float32) are left out of its line, which counts them by
    kind and says why: every target's line has all the rows, and the library's must add up to the same."""
    path = str(FIXTURES / "binary-3.2.0.json")
    data = tmp_path / "rows.csv"
    data.write_text("x0,x1,x2\n0.5,0.25,2\ninf,0.25,2\n-0.5,1e39,1\n")
    result = CliRunner().invoke(main, ["verify", path, str(data), "--against", path, "--to", "rules"])
    assert result.exit_code == 0, result.output
    rules = re.search(r"^rules +ok +(\d+) rows agree \(3 from the data, (\d+) probes\)$", result.output, re.M)
    itself = re.search(r"^XGBoost itself +ok +(\d+) rows agree \(1 from the data, (\d+) probes; (\d+) probes and "
                       r"2 data rows left out, which XGBoost refuses: a value infinite in float32 \(±inf, or beyond "
                       r"±3.4e38\)\)$", result.output, re.M)
    assert rules and itself, result.output
    assert int(itself[1]) == int(itself[2]) + 1 and int(rules[1]) == int(rules[2]) + 3
    assert int(itself[2]) + int(itself[3]) == int(rules[2]) and int(itself[3]) > 0


def test_the_oracle_is_xgboosts_predict_and_agrees_with_the_model(tmp_path):
    X, signal = make_data(10)
    for objective in ("binary:logistic", "multi:softmax", "multi:softprob", "count:poisson"):
        booster = train({"objective": objective, **EXTRA_PARAMS.get(objective, {})}, X,
                        OBJECTIVE_TARGETS[objective](signal))
        path = str(tmp_path / "model.json")
        booster.save_model(path)
        model = import_file(path)
        rows = rows_for(model, probe_matrix(model, X))
        assert oracle(path, model, rows) == predict_rows(model, rows), objective
    assert IMPORTERS["XGBoost"].oracle is oracle
    X, y = categorical_data(11)
    booster = train({"objective": "binary:logistic", "tree_method": "hist"}, X, y, feature_types=["q", "c"],
                    enable_categorical=True)
    booster.save_model(path)
    model = import_file(path)
    rows = rows_for(model, probe_matrix(model, X), ("x1",)) + [{"x0": 0.5, "x1": "unknown"}]
    assert oracle(path, model, rows) == predict_rows(model, rows)
    refused = [{"x0": 3.5e38, "x1": "1"}, {"x0": -math.inf, "x1": None}, {"x0": 3.4e38, "x1": "1e39"}]
    assert oracle(path, model, refused + rows[:2]) == [INFINITE] * 3 + predict_rows(model, rows[:2])
    other = tmp_path / "other.json"
    train({"objective": "binary:logistic"}, X[:, :1], y).save_model(str(other))
    with pytest.raises(TreegenError, match="takes 1 features, the treegen model 2: give the file the model was"):
        oracle(str(other), model, rows[:2])
    with pytest.raises(TreegenError, match="XGBoost refused: "):
        oracle(str(FIXTURES / "logf_hard.txt"), model, rows[:2])


# -- what is refused, in one line ----------------------------------------------------------------------


def one_line_error(path, **options) -> str:
    with pytest.raises(TreegenError) as caught:
        import_file(str(path), **options)
    text = str(caught.value)
    assert "\n" not in text and "Traceback" not in text
    return text


@pytest.mark.parametrize("params, label, message", [
    ({"booster": "gblinear"}, "regression",
     r"booster 'gblinear' \(a linear model\) is not supported; supported: gbtree"),
    ({"multi_strategy": "multi_output_tree", "tree_method": "hist"}, "two",
     r"2 targets \(multi-output\) are not supported: a treegen model predicts one target"),
    ({"multi_strategy": "one_output_per_tree", "tree_method": "hist"}, "two",
     r"2 targets \(multi-output\) are not supported"),
    # several quantiles are outputs of one target: named as what they are (it said "3 targets (multi-output)")
    ({"objective": "reg:quantileerror", "quantile_alpha": [0.1, 0.5, 0.9]}, "regression",
     r"an XGBoost model of 3 quantiles \(reg:quantileerror with several quantile_alpha\) is not supported: a "
     r"treegen model predicts one value; train one model a quantile"),
])
def test_unsupported_models_are_refused(params, label, message, tmp_path):
    X, signal = make_data(12)
    labels = {"regression": signal[:, 0], "two": np.column_stack([signal[:, 0], signal[:, 1]])}
    matrix = xgb.DMatrix(X, label=labels[label])
    booster = xgb.train({"nthread": 1, **params}, matrix, 2)
    path = tmp_path / "model.json"
    booster.save_model(str(path))
    assert str(path) in one_line_error(path)
    assert re.search(message, one_line_error(path))


def test_a_model_of_no_trees_is_refused_saying_so(tmp_path):
    """Trained for 0 rounds, XGBoost predicts base_score; refused in one line, from a file and from the object."""
    X, signal = make_data(12)
    booster = xgb.train({"objective": "binary:logistic", "nthread": 1}, xgb.DMatrix(X, label=signal[:, 0] > 0), 0)
    path = tmp_path / "model.json"
    booster.save_model(str(path))
    why = "the XGBoost model has no trees (trained for 0 rounds?): it predicts its base_score for every row"
    assert one_line_error(path).startswith(f"{path}: {why}")
    with pytest.raises(TreegenError, match=re.escape(why)):
        from_xgboost(booster)


def test_categorical_features_with_a_missing_value_are_refused(tmp_path):
    X, y = categorical_data(13)
    booster = train({"objective": "binary:logistic", "tree_method": "hist"}, X, y, feature_types=["q", "c"],
                    enable_categorical=True)
    path = tmp_path / "model.json"
    booster.save_model(str(path))
    assert "missing=-1.0 with categorical features is not supported" in one_line_error(path, missing=-1.0)


def test_objects_that_cannot_be_imported():
    X, signal = make_data(14)
    custom = xgb.XGBRegressor(n_estimators=2, objective=lambda y, p: (p - y, np.ones_like(p))).fit(X, signal[:, 0])
    with pytest.raises(TreegenError, match="a custom objective is not supported"):
        from_xgboost(custom)
    with pytest.raises(TreegenError, match="is not fitted"):
        from_xgboost(xgb.XGBClassifier())
    with pytest.raises(TreegenError, match="cannot import a DMatrix"):
        from_xgboost(xgb.DMatrix(X))


def test_files_that_are_not_complete_xgboost_models(tmp_path):
    X, signal = make_data(15)
    booster = train({"objective": "binary:logistic"}, X, (signal[:, 0] > 0).astype(int))
    json_path, ubj_path = tmp_path / "m.json", tmp_path / "m.ubj"
    booster.save_model(str(json_path))
    booster.save_model(str(ubj_path))
    text, data = json_path.read_bytes(), ubj_path.read_bytes()
    cut = tmp_path / "cut.json"
    cut.write_bytes(text[:len(text) // 2])
    assert f"{cut}:1:" in one_line_error(cut) and "not a complete XGBoost JSON model" in one_line_error(cut)
    for length in list(range(len(UBJSON_START), len(data), 97)) + [len(data) - 1]:  # one line each, no crash
        cut.write_bytes(data[:length])
        assert "not a complete XGBoost UBJSON model" in one_line_error(cut) or "not a valid" in one_line_error(cut)
    config = tmp_path / "config.json"
    config.write_text(booster.save_config())
    assert "configuration (Booster.save_config), not a model" in one_line_error(config)
    dump = tmp_path / "dump.txt"
    booster.dump_model(str(dump))
    assert "dump of XGBoost's trees" in one_line_error(dump)
    booster.dump_model(str(dump), dump_format="json")
    assert "dump of XGBoost's trees" in one_line_error(dump)
    document = json.loads(text)
    del document["learner"]["gradient_booster"]["model"]["trees"][1]["split_conditions"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(document))
    assert "not a valid XGBoost model: trees[1].split_conditions is missing" in one_line_error(broken)
    csv = tmp_path / "data.csv"
    csv.write_text("a,b\n1,2\n")
    assert "not a model file treegen reads; expected" in one_line_error(csv)
    assert "XGBoost: a .json or .ubj file" in one_line_error(csv)
    with pytest.raises(TreegenError, match="'missing' does not apply to scikit-learn models"):
        import_file(str(_skops_file(tmp_path)), missing=1.0)


def test_any_field_replaced_or_removed_is_one_line_or_still_a_model(tmp_path):
    """600 documents from the fixtures with one field anywhere replaced by a value of another type, or
    removed: each imports, or is refused with a TreegenError, never another exception."""
    rng = random.Random(20)
    documents = [json.loads(p.read_text()) for p in sorted(FIXTURES.glob("*-*.json"))
                 if not p.name.endswith(".expected.json")]
    junk = ["x", None, [], {}, True, -1, 2 ** 40, 1.5, "3", [1, "a"], math.nan]
    refused = 0
    for _ in range(600):
        document = json.loads(json.dumps(rng.choice(documents)))
        places = list(_places(document))
        *path, key = rng.choice(places)
        parent = document
        for step in path:
            parent = parent[step]
        if isinstance(parent, dict) and rng.random() < 0.2:
            del parent[key]
        else:
            parent[key] = rng.choice(junk)
        target = tmp_path / "mutated.json"
        target.write_text(json.dumps(document))
        try:
            import_file(str(target))
        except TreegenError as err:
            refused += 1
            assert "\n" not in str(err)
    assert refused > 100


def _places(node, path=()):
    """Paths to the values of a document (the first entries of each list)."""
    if path:
        yield path
    children = node.items() if isinstance(node, dict) else enumerate(node[:4]) if isinstance(node, list) else ()
    for key, child in children:
        yield from _places(child, path + (key,))


def _skops_file(tmp_path) -> Path:
    import skops.io
    from sklearn.tree import DecisionTreeClassifier
    path = tmp_path / "tree.skops"
    skops.io.dump(DecisionTreeClassifier(max_depth=1).fit([[0.0], [1.0]], [0, 1]), str(path))
    return path


def test_ubjson_reader_reads_what_the_json_says():
    for ubj in FIXTURES.glob("*.ubj"):
        from_ubj = ubjson.loads(ubj.read_bytes())
        from_json = json.loads(ubj.with_suffix(".json").read_text())
        assert _same(from_ubj, from_json), ubj.name
    with pytest.raises(ubjson.UBJSONError, match="unexpected bytes after the value"):
        ubjson.loads(b"Z" + b"Z")
    assert ubjson.loads(b"[i\x01i\x02]") == [1, 2] and ubjson.loads(b"{#i\x01i\x01aT") == {"a": True}


def _same(a, b) -> bool:
    """Equal documents, where numbers compare as float32 (UBJSON keeps float32, JSON text reads as
    double) and NaN equals NaN."""
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        return np.float32(a).tobytes() == np.float32(b).tobytes()
    return a == b


# -- size, and the command line --------------------------------------------------------------------------


def full_trees_document(n_trees: int, depth: int, n_features: int, seed: int) -> dict:
    """An XGBoost 3 model of complete trees: a trained one-tree model whose trees are replaced by
    complete ones (training such trees takes far longer than reading them), with thresholds on a grid
    of 129 values per feature as the default histogram method's bins give, random leaves and default
    sides."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, n_features))
    document = json.loads(bytes(train({"max_depth": 1}, X, X[:, 0], rounds=1).save_raw(raw_format="json")))
    n, internal = 2 ** (depth + 1) - 1, 2 ** depth - 1
    left = [2 * i + 1 if i < internal else -1 for i in range(n)]
    right = [2 * i + 2 if i < internal else -1 for i in range(n)]
    trees = []
    for k in range(n_trees):
        values = np.concatenate([rng.integers(-64, 65, size=internal) / 16,
                                 rng.integers(-999, 999, size=n - internal) / 4096])
        trees.append({"base_weights": [0.0] * n, "categories": [], "categories_nodes": [],
                      "categories_segments": [], "categories_sizes": [],
                      "default_left": rng.integers(0, 2, size=n).tolist(), "id": k, "left_children": left,
                      "loss_changes": [0.0] * n, "parents": [2147483647] + [(i - 1) // 2 for i in range(1, n)],
                      "right_children": right, "split_conditions": values.tolist(),
                      "split_indices": rng.integers(0, n_features, size=internal).tolist() + [0] * (n - internal),
                      "split_type": [0] * n, "sum_hessian": [1.0] * n,
                      "tree_param": {"num_deleted": "0", "num_feature": str(n_features), "num_nodes": str(n),
                                     "size_leaf_vector": "1"}})
    model = document["learner"]["gradient_booster"]["model"]
    model.update(trees=trees, tree_info=[0] * n_trees, iteration_indptr=list(range(n_trees + 1)))
    model["gbtree_model_param"]["num_trees"] = str(n_trees)
    return document


def test_a_thousand_trees_of_depth_eight_import(tmp_path):
    """511,000 nodes (1.6 s of CPU time when this test was written), compared with XGBoost on a few rows."""
    path = tmp_path / "large.json"
    path.write_text(json.dumps(full_trees_document(1000, 8, 10, 16)))
    started = time.perf_counter()
    model = import_file(str(path))
    seconds = time.perf_counter() - started
    assert len(model.trees) == 1000 and all(len(t.nodes) == 511 and t.depth() == 8 for t in model.trees)
    assert seconds < 60, f"importing 511,000 nodes took {seconds:.1f} s"
    booster = xgb.Booster(model_file=str(path))
    P = np.random.default_rng(17).normal(size=(8, 10)) * 2
    P[::3, 4] = np.nan
    P[1, :] = 0.25  # on thresholds of the grid
    margins, predictions = library(booster, P)
    for row, margin, prediction in zip(rows_for(model, P), margins, predictions):
        assert bits([model.scores(row)[0]]) == bits(margin) == bits(prediction)


def test_command_line_import_with_a_missing_value(tmp_path):
    X, signal = make_data(18)
    X = np.where(np.isnan(X), -999.0, X)
    booster = train({"objective": "binary:logistic"}, X, (signal[:, 0] + signal[:, 1] > 0).astype(int))
    path, out = tmp_path / "model.ubj", tmp_path / "treegen.json"
    booster.save_model(str(path))
    result = CliRunner().invoke(main, ["import", str(path), "--missing", "-999", "-o", str(out)],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    model = modelio.load(str(out))
    assert model.meta["xgboost"]["missing"] == "-999.0"
    P = probe_matrix(model, X)
    margins, predictions = library(booster, P, missing=-999.0)
    assert_predicts(model, rows_for(model, P), margins, predictions)
    result = CliRunner().invoke(main, ["import", str(FIXTURES / "tiny-1.7.6.model")])
    assert result.exit_code == 2 and "deprecated binary model format" in result.output
    result = CliRunner().invoke(main, ["verify", str(out), "--against", str(path), "--to", "python"])
    assert re.search(r"XGBoost itself +ok +\d+ rows agree", result.output), result.output


def test_feature_names_that_contradict_the_models_own_are_refused(tmp_path):
    """A booster fitted on a DataFrame (or a DMatrix with feature_names) keeps its names and reads a frame by
    them: names given in another order, or others, would read each column as another feature, and are refused
    with one line saying which, from the object and from a saved file; one fitted on arrays takes any."""
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.normal(size=(200, 3)), columns=["u", "v", "w"])
    y = (X["u"] > X["w"]).astype(int)
    classifier = xgb.XGBClassifier(n_estimators=4, max_depth=2).fit(X, y)
    with pytest.raises(TreegenError, match=r"^feature_names gives the model's own feature names in another order "
                                           r"\('w' for its feature 0, 'u'\)"):
        from_xgboost(classifier, feature_names=["w", "v", "u"])
    with pytest.raises(TreegenError, match=r"^feature_names gives other names than the model's own \('a' for its "
                                           r"feature 0, 'u'\)"):
        from_xgboost(classifier.get_booster(), feature_names=["a", "b", "c"])
    assert [f.name for f in from_xgboost(classifier, feature_names=["u", "v", "w"]).features] == ["u", "v", "w"]
    path = str(tmp_path / "model.json")
    classifier.save_model(path)
    with pytest.raises(TreegenError, match=r"model.json: feature_names gives the model's own feature names in another"):
        import_file(path, feature_names=["v", "u", "w"])
    arrays = xgb.XGBClassifier(n_estimators=4, max_depth=2).fit(X.to_numpy(), y)
    assert [f.name for f in from_xgboost(arrays, feature_names=["w", "v", "u"]).features] == ["w", "v", "u"]


def test_a_json_model_naming_a_key_twice_is_refused_with_its_path(tmp_path):
    """json keeps the last copy of a key without a word (XGBoost's own reader may keep another): a base_score
    written twice would have chosen the model's every margin. Refused as treegen's own model file refuses it."""
    text = Path("examples/boosting/xgboost.json").read_text(encoding="utf-8")
    path = tmp_path / "twice.json"
    path.write_text(text.replace('"base_score":', '"base_score":"0.9","base_score":', 1), encoding="utf-8")
    with pytest.raises(TreegenError) as err:
        import_file(str(path))
    assert str(err.value) == (f"{path}: learner.learner_model_param: duplicate key 'base_score' (JSON readers differ "
                              "on which copy they keep)")


def stump_split_at(path: Path, written: str) -> None:
    """:func:`cut_model`'s stump (leaves 0.25 and -0.5), its split's condition written as ``written`` (JSON text)."""
    cut_model(path, [0.25, -0.5])
    document = json.loads(path.read_text())
    document["learner"]["gradient_booster"]["model"]["trees"][0]["split_conditions"][0] = "CONDITION"
    path.write_text(json.dumps(document).replace('"CONDITION"', written))


@pytest.mark.parametrize("written,at", [("-Infinity", "-inf (or below float32's range)"),
                                        ("-3.5e38", "-inf (or below float32's range)"), ("NaN", "NaN")])
def test_a_split_no_number_is_below_is_refused_at_import(tmp_path, written, at):
    """XGBoost sends ``x < -inf`` (a condition below float32's range is -inf there) right for every number, -inf
    too (it takes -inf given missing=inf); the targets' cut said ``x <= -inf`` (in float32 every double below
    -FLT_MAX) and sent -inf left, where Model.predict sent it right. ``x < NaN`` sends every number right too: it
    imported as a threshold no model file or target takes (export said "node 0: a split on 'x0' has a NaN
    threshold", naming no tree). No training writes such a split: refused at import, naming XGBoost's node."""
    path = tmp_path / "m.json"
    stump_split_at(path, written)
    booster = xgb.Booster(model_file=str(path))
    inputs = np.array([[-np.inf], [-1e39], [-FLT_MAX], [0.0]])
    assert booster.predict(xgb.DMatrix(inputs, missing=np.inf), output_margin=True).tolist() == [-0.5] * 4
    assert (f"not a valid XGBoost model: trees[0].split_conditions splits node 0 at {at}, which no number is below"
            in one_line_error(path))


def test_a_split_below_every_number_but_minus_infinity_predicts_as_xgboost(tmp_path):
    """At -FLT_MAX (the lowest float32) ``x < t`` holds for the doubles whose float32 is -inf: every target agrees
    with XGBoost given missing=inf, which takes them."""
    path = tmp_path / "m.json"
    stump_split_at(path, repr(-FLT_MAX))
    model = import_file(str(path), missing=math.inf)
    rounds_to_inf = 3.4028235677973366e38
    beyond = [-math.inf, -1e39, -rounds_to_inf, math.nextafter(-rounds_to_inf, 0.0), -FLT_MAX, 0.0]
    margins, predictions = library(xgb.Booster(model_file=str(path)), np.array([[x] for x in beyond]), math.inf)
    assert [m[0] for m in margins] == [0.25] * 3 + [-0.5] * 3
    assert assert_predicts(model, [{"x0": x} for x in beyond], margins, predictions) == len(beyond)
    rows = tmp_path / "rows.csv"
    rows.write_text("x0\n" + "".join(f"{x!r}\n" for x in beyond))
    results = verify(model, str(rows), ["python", "c", "sql"], ["sqlite", "duckdb"], against=str(path))
    assert all(r.ok for r in results) and len(results) == 5, [r.line() for r in results]
