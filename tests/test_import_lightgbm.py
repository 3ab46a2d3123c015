"""Imported LightGBM models predict what LightGBM predicts, bit for bit: raw sums, probabilities or
values, and labels, at every threshold and the doubles either side, NaN, +-0.0, the zero band and its
edges, huge values and infinities, and negative, fractional, unknown and out-of-range categories.

The fixtures (tests/fixtures/lightgbm/VERSION/, written by make_fixtures.py there under each LightGBM
version) are read without LightGBM; the rest trains models with the LightGBM installed."""
from __future__ import annotations

import csv
import io
import json
import math
import os
import struct
import subprocess
import sys
import time
from functools import cache
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from cli_in_process import treegen_cli
import treegen
from treegen import arithmetic, modelio
from treegen.cli import main
from treegen.emit.common import SIGMOID_F64_CUT, label_cut, sigmoid_cut
from treegen.emit.sql.dialects import DIALECTS
from treegen.errors import TreegenError
from treegen.importers import IMPORTERS, from_object, import_file
from treegen.importers.lightgbm import K_ZERO_THRESHOLD, from_lightgbm, model_from_text, oracle, read_model_file
from treegen.model import Codes, Combine, Decision, Link, Op, apply_link, decide
from treegen.probes import UNSEEN, probe_rows
from treegen.targets import TARGETS, emit
from treegen.run.java import run_loaded
from treegen.run.sql import query
from treegen.verifier import to_csv, verify
from treegen.walk import encode_column, predict_rows, tree_outputs

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "lightgbm")
VERSIONS = sorted(d for d in os.listdir(FIXTURES) if os.path.isdir(os.path.join(FIXTURES, d)))
KZ = K_ZERO_THRESHOLD
SPECIAL = [math.nan, 0.0, -0.0, 1e-35, -1e-35, 1e-36, -1e-36, KZ, -KZ, math.nextafter(KZ, 1.0),
           math.nextafter(KZ, 0.0), math.nextafter(-KZ, -1.0), math.nextafter(-KZ, 0.0), 1e-46, 1e-300,
           3e38, -3e38, 3.5e38, 1e39, -1e39, math.inf, -math.inf]
CATEGORY_PROBES = [-1.0, -0.5, -0.0, 0.0, 0.3, 0.99, 1.0, 2.7, 3.0, 31.0, 32.0, 33.0, 39.0, 39.9, 40.0, 63.0, 64.0,
                   100.0, 1e6, 2147483647.0, 2147483648.0, 3e9, -3e9, 1e-36, -1e-36, math.inf, -math.inf, math.nan]
PARAMS = {"num_leaves": 7, "learning_rate": 0.3, "min_data_in_leaf": 5, "verbose": -1, "seed": 1, "num_threads": 1,
          "deterministic": True}


def same_bits(a: float, b: float) -> bool:
    """Bit for bit -- but a NaN is any NaN: a linear leaf's inf * coeff + -inf * coeff is NaN in
    LightGBM and here, its sign bit whatever the hardware's operation order gives it."""
    return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))


def category_text(value: float) -> str | None:
    """A code as a treegen row gives it: an integral number as its decimal digits, anything else as
    Python writes the float (a category no model knows)."""
    value = float(value)
    if math.isnan(value):
        return None
    return str(int(value)) if math.isfinite(value) and value == int(value) else repr(value)


def is_fractional(value: float) -> bool:
    return math.isfinite(value) and value != int(value)


def as_rows(model, matrix) -> list[dict]:
    """Rows of numbers (category codes as numbers) as dicts by feature name."""
    rows = []
    for values in matrix:
        rows.append({f.name: (float(v) if f.is_numeric else category_text(float(v)))
                     for f, v in zip(model.features, values)})
    return rows


def raw_sums(model, rows) -> list[list[float]]:
    """The model's raw sums (after the divisor, before the link) for each row, from the vectorised walk."""
    columns = [encode_column(f, rows, model.numeric.cast) for f in model.features]
    outputs = [tree_outputs(model, tree, columns, rows.__getitem__).tolist() for tree in model.trees]
    return [model.raw_sums([out[i] for out in outputs]) for i in range(len(rows))]


def check_against(model, rows, raw, predictions, labels=None, average_output=False):
    """The model's raw sums, scores and labels equal LightGBM's, bit for bit, on every row; returns how
    many rows were compared. ``raw``: ``predict(raw_score=True)`` (undivided in rf mode),
    ``predictions``: ``predict`` (a classifier's probability of class 1, or all probabilities)."""
    raw = np.asarray(raw, dtype=np.float64).reshape(len(rows), -1)
    predictions = np.asarray(predictions, dtype=np.float64).reshape(len(rows), -1)
    iterations = len(model.trees) // len(model.combine.init)
    answers, sums = predict_rows(model, rows), raw_sums(model, rows)
    for i, row in enumerate(rows):
        want_raw = [r / iterations for r in raw[i]] if average_output else list(raw[i])
        assert all(same_bits(a, b) for a, b in zip(sums[i], want_raw)), (i, row, sums[i], want_raw)
        label, scores = answers[i]
        got = scores[1:] if model.target.is_classification and predictions.shape[1] == 1 else scores
        assert len(got) == predictions.shape[1]
        assert all(same_bits(a, b) for a, b in zip(got, predictions[i])), (i, row, got, predictions[i])
        if labels is not None:
            assert label == str(labels[i]), (i, row, label, labels[i])
    return len(rows)


def threshold_probes(model, base: np.ndarray) -> np.ndarray:
    """The base rows; then on each of its first two rows each numeric feature at each threshold and
    the doubles either side, and at every special value."""
    rows = [base]
    for index, feature in enumerate(model.features):
        if not feature.is_numeric:
            continue
        values = set(SPECIAL[1:])
        for tree in model.trees:
            for node in tree.nodes:
                if node.split is not None and node.split.feature == index and node.split.op == Op.LE:
                    t = node.split.threshold
                    values.update((t, math.nextafter(t, -math.inf), math.nextafter(t, math.inf)))
        values = sorted(values) + [math.nan]
        block = np.repeat(base[:2], len(values), axis=0)
        block[:, index] = np.tile(values, 2)
        rows.append(block)
    return np.vstack(rows)


def numeric_data(seed: int = 11, n: int = 500):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 2] = np.round(X[:, 2] * 2)  # exact zeros
    X[::7, 1] = np.nan
    X[::11, 3] = 1e-36
    X[::13, 3] = -KZ
    X[::17, 3] = 0.0
    signal = np.nan_to_num(X)
    y_bin = (signal[:, 0] + signal[:, 1] * 0.5 + (X[:, 2] > 0) + (X[:, 3] == 0) > 0.3).astype(int)
    y_reg = signal[:, 0] * 2 + signal[:, 1] + rng.normal(size=n) * 0.1
    y_multi = np.digitize(signal[:, 0] + signal[:, 1], [-0.5, 0.5])
    return X, y_bin, y_reg, y_multi


# -- fixtures of each version, read without LightGBM -------------------------------------------------


def fixture_names(version: str) -> list[str]:
    return sorted(f[:-4] for f in os.listdir(os.path.join(FIXTURES, version)) if f.endswith(".txt"))


def load_fixture(version: str, name: str) -> tuple[str, dict]:
    path = os.path.join(FIXTURES, version, name)
    with open(path + ".json") as f:
        return path + ".txt", json.load(f)


FIXTURE_CASES = [(v, n) for v in VERSIONS for n in fixture_names(v)]


def test_fixtures_cover_three_versions():
    assert VERSIONS == ["3.3.5", "4.0.0", "4.7.0"]
    assert all(len(fixture_names(v)) == 18 for v in VERSIONS)


@pytest.mark.parametrize("version,name", FIXTURE_CASES)
def test_fixture_predicts_what_lightgbm_predicted(version, name):
    path, expected = load_fixture(version, name)
    model = read_model_file(path)
    assert "library_version" not in model.meta  # the file names its format only
    assert model.meta["lightgbm"]["file_version"] == ("v3" if version.startswith("3.") else "v4")
    kinds = [kind for _, kind in expected["features"]]
    rows = []
    for values in expected["rows"]:
        row = {}
        for feature, kind, value in zip(model.features, kinds, values):
            if kind == "numeric":
                row[feature.name] = math.nan if value is None else value
            elif kind == "pandas":
                row[feature.name] = value
            else:  # a code as its text: "2.7" and "1e-36" name the category LightGBM truncates them to
                row[feature.name] = None if value is None else category_text(value)
        rows.append(row)
    labels = expected["labels"]
    check_against(model, rows, expected["raw"], expected["predictions"], labels,
                  average_output=model.meta["lightgbm"]["average_output"])
    if name == "early_stopping":  # the file holds the best iteration's trees
        assert len(model.trees) == expected["params"]["best_iteration"] < 40
    if name == "categorical_codes":  # fractional codes (-0.5, 0.3, 2.7, 6.9, 1e-36) are among the rows checked
        assert sum(v is not None and is_fractional(v) for values in expected["rows"] for v in values[1:]) == 5
        assert all(f.codes == Codes.TRUNCATED for f in model.features if not f.is_numeric)


@pytest.mark.parametrize("version", VERSIONS)
def test_fixture_linear_trees_as_data(version):
    """Linear leaves hold leaf_const and the (feature, coefficient) pairs in the file's order; a leaf
    without features is its constant, not its leaf_value (Tree::Predict)."""
    for name in ("linear_tree", "linear_tree_categorical"):
        model = read_model_file(os.path.join(FIXTURES, version, name + ".txt"))
        leaves = [node for tree in model.trees for node in tree.nodes if node.is_leaf]
        assert all(node.linear is not None for node in leaves)
        assert any(node.linear.terms for node in leaves)
        assert all(model.features[f].is_numeric for node in leaves for f, _ in node.linear.terms)
    text = open(os.path.join(FIXTURES, version, "linear_tree.txt")).read()
    consts = [float(v) for v in text.split("leaf_const=", 1)[1].split("\n", 1)[0].split()]
    first = read_model_file(os.path.join(FIXTURES, version, "linear_tree.txt")).trees[0]
    assert sorted(node.linear.const for node in first.nodes if node.is_leaf) == sorted(consts)


def test_reading_a_file_needs_no_lightgbm():
    """The file is data: reading it imports neither LightGBM nor pandas (None in sys.modules makes
    their import fail, as on a core install)."""
    path = os.path.join(FIXTURES, VERSIONS[-1], "categorical_pandas.txt")
    code = ("import sys; sys.modules['lightgbm'] = sys.modules['pandas'] = None\n"
            "from treegen.importers import import_file\n"
            f"model = import_file({path!r})\n"
            "print(len(model.trees), model.features[1].categories[0])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(treegen.__file__))})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["4", "red"]


def test_zero_threshold_is_lightgbms():
    """kZeroThreshold is the float 1e-35f held in a double (include/LightGBM/meta.h)."""
    assert KZ == float(np.float32(1e-35)) and KZ != 1e-35


@pytest.mark.parametrize("version", VERSIONS)
def test_fixture_semantics_as_data(version):
    """What the fixtures hold, as the model holds it: the zero band, missing types as routes and
    intervals, the link and its scale, the divisor, categories by name or code."""
    def read(name):
        return read_model_file(os.path.join(FIXTURES, version, name + ".txt"))
    binary = read("binary")
    assert binary.numeric.zero_band == KZ and binary.numeric.cast == "float64" and not binary.numeric.strict
    assert binary.combine.link == Link.SIGMOID and binary.combine.init == (0.0,) and binary.target.classes == ("0", "1")
    assert read("binary_sigmoid").combine.link_scale == 0.7
    zero = read("binary_zero_as_missing")
    assert {f.missing_interval for f in zero.features} == {(-KZ, KZ)}
    assert all(f.missing_interval is None for f in binary.features)
    none = read("binary_no_missing")  # NaN is 0.0: it goes where 0.0 goes
    for tree in none.trees:
        for node in tree.nodes:
            if node.split is not None:
                assert node.split.missing.child == (0 if 0.0 <= node.split.threshold else 1)
    assert read("multiclass").combine.link == Link.SOFTMAX
    ova = read("multiclassova")
    assert ova.combine.link == Link.SIGMOID and len(ova.combine.init) == 3
    assert [t.output for t in ova.trees] == [0, 1, 2] * (len(ova.trees) // 3)
    rf = read("rf")
    assert rf.combine.divisor == len(rf.trees) == 4
    assert read("regression_sqrt").combine.link == Link.SIGN_SQUARE
    assert read("poisson").combine.link == read("gamma").combine.link == Link.EXP
    assert read("cross_entropy").target.classes == ("0", "1")
    codes = read("categorical_codes")
    assert codes.features[1].categories == tuple(str(c) for c in range(8))
    split = next(n.split for t in codes.trees for n in t.nodes if n.split is not None and n.split.op == Op.IN)
    assert split.values == ("1", "4", "6") and split.missing.child == 1 and split.unknown is None
    named = read("categorical_pandas")
    assert named.features[1].name == "colour" and named.features[1].categories[:2] == ("red", "green")
    split = next(n.split for t in named.trees for n in t.nodes if n.split is not None and n.split.op == Op.IN)
    assert split.values == ("green", "magenta", "black")


# -- trained here, with the LightGBM installed --------------------------------------------------------


OBJECTIVES = [
    ("binary", {"objective": "binary"}, "bin"), ("sigmoid", {"objective": "binary", "sigmoid": 0.7}, "bin"),
    ("zero_as_missing", {"objective": "binary", "zero_as_missing": True}, "bin"),
    ("no_missing", {"objective": "binary", "use_missing": False}, "bin"),
    ("regression", {"objective": "regression"}, "reg"), ("sqrt", {"objective": "regression", "reg_sqrt": True}, "reg"),
    ("l1_sqrt", {"objective": "regression_l1", "reg_sqrt": True}, "reg"),
    ("huber_sqrt", {"objective": "huber", "reg_sqrt": True}, "reg"),  # huber ignores sqrt
    ("fair_sqrt", {"objective": "fair", "reg_sqrt": True}, "reg"),
    ("quantile", {"objective": "quantile", "alpha": 0.7}, "reg"), ("mape", {"objective": "mape"}, "pos"),
    ("poisson", {"objective": "poisson"}, "count"), ("gamma", {"objective": "gamma"}, "pos"),
    ("tweedie", {"objective": "tweedie"}, "pos"), ("cross_entropy", {"objective": "cross_entropy"}, "unit"),
    ("multiclass", {"objective": "multiclass", "num_class": 3}, "multi"),
    ("multiclassova", {"objective": "multiclassova", "num_class": 3, "sigmoid": 1.3}, "multi"),
    ("rf", {"objective": "binary", "boosting": "rf", "bagging_freq": 1, "bagging_fraction": 0.7,
            "feature_fraction": 0.8}, "bin"),
    ("rf_regression", {"objective": "regression", "boosting": "rf", "bagging_freq": 1, "bagging_fraction": 0.7}, "reg"),
    ("dart", {"objective": "binary", "boosting": "dart", "drop_rate": 0.3}, "bin"),
    ("goss", {"objective": "binary", "data_sample_strategy": "goss"}, "bin"),
    ("no_boost_from_average", {"objective": "binary", "boost_from_average": False}, "bin"),
    ("linear_tree", {"objective": "regression", "linear_tree": True}, "reg"),
    ("linear_tree_no_missing", {"objective": "regression", "linear_tree": True, "use_missing": False}, "reg"),
    ("linear_tree_binary", {"objective": "binary", "linear_tree": True, "linear_lambda": 0.1}, "bin"),
    ("linear_tree_multiclass", {"objective": "multiclass", "num_class": 3, "linear_tree": True}, "multi"),
    ("lambdarank", {"objective": "lambdarank"}, "rank"), ("rank_xendcg", {"objective": "rank_xendcg"}, "rank"),
]
QUERIES = [50] * 10  # numeric_data's 500 rows as ten queries, for the ranking objectives


def targets(y_bin, y_reg, y_multi) -> dict:
    y_pos = np.exp(y_reg / 3) + 0.01
    return {"bin": y_bin, "reg": y_reg, "pos": y_pos, "count": np.round(y_pos), "unit": y_bin * 0.8 + 0.1,
            "multi": y_multi, "rank": np.digitize(y_reg, [-1, 0, 1])}


@pytest.mark.parametrize("name,params,target", OBJECTIVES, ids=[o[0] for o in OBJECTIVES])
def test_trained_model_from_file_and_object(tmp_path, name, params, target):
    X, y_bin, y_reg, y_multi = numeric_data()
    groups = QUERIES if target == "rank" else None
    booster = lgb.train({**PARAMS, **params}, lgb.Dataset(X, targets(y_bin, y_reg, y_multi)[target], group=groups), 8)
    path = str(tmp_path / "model.txt")
    booster.save_model(path)
    from_file, from_booster = read_model_file(path), from_lightgbm(booster)
    assert modelio.dumps(from_file) == modelio.dumps(from_booster).replace("every tree of the booster",
                                                                            "every tree in the file")
    probes = threshold_probes(from_file, X[:4])
    rows = as_rows(from_file, probes)
    average = params.get("boosting") == "rf"
    count = check_against(from_file, rows, booster.predict(probes, raw_score=True), booster.predict(probes),
                          average_output=average)
    assert count > 250
    check_against(modelio.loads(modelio.dumps(from_file)), rows, booster.predict(probes, raw_score=True),
                  booster.predict(probes), average_output=average)


def test_zero_band_edges_are_where_lightgbm_puts_them(tmp_path):
    """Thresholds at +-kZeroThreshold occur; x = -kZeroThreshold reads as 0.0 and goes right of
    threshold -kZeroThreshold, where a plain x <= t would send it left."""
    X, y_bin, _, _ = numeric_data()
    found = set()
    for params in ({"objective": "binary"}, {"objective": "binary", "zero_as_missing": True}):
        booster = lgb.train({**PARAMS, **params, "num_leaves": 15}, lgb.Dataset(X, y_bin), 20)
        model = from_lightgbm(booster)
        found |= {n.split.threshold for t in model.trees for n in t.nodes
                  if n.split is not None and abs(n.split.threshold) == KZ}
        probes = threshold_probes(model, X[:4])
        check_against(model, as_rows(model, probes), booster.predict(probes, raw_score=True), booster.predict(probes))
    assert found  # the edge itself is a threshold in these models


def test_sigmoid_as_the_text_holds_it():
    """The text rounds sigmoid to 6 digits, and a booster read from it predicts with that: so does the
    model (a booster kept for training would use the exact value until saved; documented)."""
    X, y_bin, _, _ = numeric_data()
    booster = lgb.train({**PARAMS, "objective": "binary", "sigmoid": 0.123456789}, lgb.Dataset(X, y_bin), 5)
    model = from_lightgbm(booster)
    assert model.combine.link_scale == 0.123457
    probes = threshold_probes(model, X[:4])
    reread = lgb.Booster(model_str=booster.model_to_string())
    check_against(model, as_rows(model, probes), reread.predict(probes, raw_score=True), reread.predict(probes))
    check_against(model, as_rows(model, probes), booster.predict(probes, raw_score=True), booster.predict(probes))


def own_label(raw: float, scale: float) -> int:
    """The model's own rule for a LightGBM binary raw sum: the ARGMAX of its double scores [1 - p, p]."""
    combine, decision = own_rule(arithmetic.double_bits(scale))
    return decide(decision, apply_link(combine, [raw]), [raw])


@cache
def own_rule(scale_bits: int) -> tuple[Combine, Decision]:
    """The Combine of :func:`own_label` and its decision, made once a scale (by its bits: 0.0 and -0.0 differ): made
    at each call, the checks of 2,000,000 sums took 14 s, 60% of it building the Combine."""
    combine = Combine("sum", (0.0,), 1.0, "sigmoid", link_scale=arithmetic.bits_double(scale_bits), decide="argmax")
    return combine, combine.decision()


def bisected_cut(scale: float) -> float:
    """The least nonnegative double whose own label is class 1, by bisection over the doubles' bits."""
    low, high = 0, arithmetic.double_bits(math.inf)
    assert (own_label(0.0, scale), own_label(math.inf, scale)) == (0, 1)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if own_label(arithmetic.bits_double(middle), scale) else (middle, high)
    return arithmetic.bits_double(high)


CUT_SCALES = [1.0, 0.7, 0.123457, 2.0, 3.7, 1e-20, 1e300, 5e-324]


@pytest.mark.parametrize("scale", CUT_SCALES)
def test_sigmoid_cut_is_where_the_label_turns(scale):
    """common.sigmoid_cut's proof, checked: the cut found by bisecting the model's own rule is sigmoid_cut's, and
    every double within 2^20 ulps of it (2^14 for scales other than 1), the infinities, NaN, zeros, the bounds of
    the docstring and a stride over all 2^64 bit patterns decide as ``raw >= cut``."""
    cut = sigmoid_cut(scale)
    assert bisected_cut(scale) == cut
    if scale == 1.0:
        assert cut == SIGMOID_F64_CUT == 1.5 * 2.0 ** -53 + 2.0 ** -105
        assert own_label(1.5 * 2.0 ** -53, scale) == 0  # fdlibm's exp (Spark's) labels this one 1
    bits = arithmetic.double_bits(cut)
    width = 2 ** 20 if scale == 1.0 else 2 ** 14
    near = [arithmetic.bits_double(b) for b in range(bits - width, bits + width + 1)]
    stride = [arithmetic.bits_double(b) for b in range(0, 2 ** 64, 2 ** 64 // 100003)]
    bounds = [0.0, -0.0, 5e-324, -5e-324, 2.0 ** -54, 2.0 ** -51, 1.5 * 2.0 ** -53 - 2.0 ** -103,
              1.5 * 2.0 ** -53 + 2.0 ** -103, math.inf, -math.inf, math.nan, -math.nan, sys.float_info.max,
              -sys.float_info.max, -cut, 745.0, -745.0, 710.0, -710.0]
    for raw in near + stride + [b / scale for b in bounds] + bounds:
        assert own_label(raw, scale) == int(raw >= cut), (scale, raw.hex())


def test_sigmoid_cut_needs_a_positive_finite_scale():
    """A scale of 0 labels every sum 0, a negative one turns the order round: no cut, the model's own rule is
    written. The least positive scale still has a finite cut."""
    assert [sigmoid_cut(s) for s in (0.0, -0.0, -1.0, math.inf, math.nan)] == [None] * 5
    assert own_label(sys.float_info.max, 0.0) == 0 and (own_label(-1.0, -1.0), own_label(1.0, -1.0)) == (1, 0)
    assert math.isfinite(sigmoid_cut(5e-324))


def cut_model_text(values: list[float], sigmoid: float) -> str:
    """A binary model whose leaf ``i`` (reached where ``x0 <= i + 0.5``, after the leaves before it) holds
    ``values[i]`` in its first tree: its raw sum there is ``0.0 + values[i]``. A NaN value is made by the sum
    (SQL writes no NaN leaf): ``inf`` there, and ``-inf`` in a second tree whose other leaves are 0.0."""
    first = [math.inf if math.isnan(v) else v for v in values]
    second = [-math.inf if math.isnan(v) else 0.0 for v in values]
    n = len(values)
    nodes = range(n - 1)
    lines = ["tree", "version=v4", "num_class=1", "num_tree_per_iteration=1", "label_index=0", "max_feature_idx=0",
             f"objective=binary sigmoid:{sigmoid}", "feature_names=x0", f"feature_infos=[0:{n - 1}]", ""]
    for number, leaves in enumerate([first, second] if any(map(math.isnan, values)) else [first]):
        tree = {"num_leaves": n, "num_cat": 0, "split_feature": [0] * (n - 1), "split_gain": [1] * (n - 1),
                "threshold": [i + 0.5 for i in nodes], "decision_type": [2] * (n - 1),
                "left_child": [-(i + 1) for i in nodes], "right_child": [i + 1 for i in nodes][:-1] + [-n],
                "leaf_value": [repr(v) for v in leaves], "leaf_weight": [1] * n, "leaf_count": [1] * n,
                "internal_value": [0] * (n - 1), "internal_weight": [1] * (n - 1), "internal_count": [1] * (n - 1),
                "is_linear": 0, "shrinkage": 1}
        lines += [f"Tree={number}", *(f"{k}={' '.join(map(str, v)) if isinstance(v, list) else v}"
                                      for k, v in tree.items()), "", ""]
    return "\n".join(lines + ["end of trees", "", "pandas_categorical:null", ""])


@pytest.mark.parametrize("sigmoid", [1.0, 0.7])
def test_raw_sums_at_the_sigmoid_cut_are_labelled_as_lightgbm_does_in_every_target(tmp_path, sigmoid):
    """Raw sums at the cut, one ulp either side, 0x1.8p-53 (the cut's neighbour at scale 1), 0.0, -0.0, further,
    the infinities and NaN: LightGBM's own labels (LGBMClassifier.predict: numpy's argmax of [1 - p, p]), the
    model's, and every target's, which decides ``raw >= cut`` without ``exp`` (SQLite and DuckDB, where NaN is
    NULL and where it sorts high: the SELECT and the --expression)."""
    cut = sigmoid_cut(sigmoid)
    values = [cut, math.nextafter(cut, 0.0), math.nextafter(cut, 1.0), 1.5 * 2.0 ** -53, 0.0, -0.0, -cut,
              4 * cut, -1.0, 2.0, math.inf, -math.inf, math.nan]
    path = tmp_path / "cut.txt"
    path.write_text(cut_model_text(values, sigmoid))
    booster = lgb.Booster(model_file=str(path))
    x = np.arange(len(values), dtype=np.float64).reshape(-1, 1)
    raw, p = booster.predict(x, raw_score=True), booster.predict(x)
    assert all(same_bits(r, v + 0.0) for r, v in zip(raw, values))  # inf + -inf: NaN
    labels = [str(k) for k in np.argmax(np.column_stack([1.0 - p, p]), axis=1)]  # the first NaN: 0
    assert labels == [str(int(v >= cut)) for v in values] and labels.count("1") == 5
    model = import_file(str(path))
    rows = [{"x0": v} for v in x[:, 0]]
    assert [model.predict(row) for row in rows] == labels
    csv = "x0\n" + "".join(f"{v}\n" for v in x[:, 0])
    for target in ("python", "java", "javascript", "c"):
        text = TARGETS[target].emit(model)
        assert TARGETS[target].run(text, csv, [], model=model).split() == labels, target
    for dialect in ("sqlite", "duckdb"):
        assert sql_labels(model, dialect, rows) == [labels] * 2, dialect
    results = verify(model, None, ["python", "java", "javascript", "c", "sql"], ["sqlite", "duckdb"], against=str(path))
    assert all(r.ok for r in results) and len(results) == 7, [r.line() for r in results]


def sql_labels(model, dialect: str, rows: list[dict], **connection) -> list[list[str]]:
    """The labels of the SQL without --proba, which computes no link: the SELECT's and the --expression's."""
    d = DIALECTS[dialect]
    select = query(TARGETS["sql"].emit(model, dialect=dialect), model, rows, dialect, **connection)
    alone = TARGETS["sql"].emit(model, dialect=dialect, expression=True)
    inlined = query(f"SELECT {alone} FROM {d.identifier('input')}", model, rows, dialect, **connection)
    return [[r[-1] for r in select], [r[0] for r in inlined]]


def test_raw_sums_at_the_sigmoid_cut_on_spark(tmp_path, spark):
    """Spark's EXP is Java's StrictMath.exp (fdlibm: 1 + x for x this small), which made p > 0.5 of the sum
    0x1.8p-53, class 0 in LightGBM: decided on the raw sum, Spark's label is LightGBM's."""
    cut = SIGMOID_F64_CUT
    values = [cut, 1.5 * 2.0 ** -53, math.nextafter(cut, 1.0), 0.0, -cut]
    path = tmp_path / "cut.txt"
    path.write_text(cut_model_text(values, 1.0))
    model = import_file(str(path))
    rows = [{"x0": float(i)} for i in range(len(values))]
    labels = [str(int(v >= cut)) for v in values]
    assert [model.predict(row) for row in rows] == labels == ["1", "0", "1", "0", "0"]
    assert sql_labels(model, "spark", rows, spark=spark) == [labels] * 2


def test_raw_sums_at_the_sigmoid_cut_on_postgres(tmp_path, postgres_dsn):
    """PostgreSQL's float8 sum against the cut's literal; a NaN sum, which sorts above every number there, is
    class 0 as in LightGBM."""
    cut = sigmoid_cut(0.7)
    values = [cut, math.nextafter(cut, 0.0), math.nextafter(cut, 1.0), 0.0, -cut, math.inf, -math.inf, math.nan]
    path = tmp_path / "cut.txt"
    path.write_text(cut_model_text(values, 0.7))
    model = import_file(str(path))
    rows = [{"x0": float(i)} for i in range(len(values))]
    labels = [str(int(v >= cut)) for v in values]
    assert [model.predict(row) for row in rows] == labels == ["1", "0", "1", "0", "0", "1", "0", "0"]
    assert sql_labels(model, "postgres", rows, dsn=postgres_dsn) == [labels] * 2


def test_a_binary_label_is_decided_on_the_raw_sum_without_exp():
    """Every target labels a LightGBM binary model (its sigmoid 0.7) by its raw sum against the cut, not through
    the link: the label's code names the cut, and the SQL without --proba computes no EXP."""
    model = import_file(os.path.join(FIXTURES, VERSIONS[-1], "binary_sigmoid.txt"))
    cut = repr(sigmoid_cut(0.7))
    assert model.combine.link_scale == 0.7 and label_cut(model) == sigmoid_cut(0.7)
    assert f"1 if _raw(x)[0] >= {cut} else 0" in TARGETS["python"].emit(model)
    assert f"raw(x)[0] >= {cut} ? 1 : 0" in TARGETS["java"].emit(model)
    assert 'decide: "raw_nonnegative"' in TARGETS["javascript"].emit(model)
    assert f"#define LABEL_CUT {cut}" in TARGETS["c"].emit(model)
    for dialect in ("postgres", "duckdb", "spark", "sqlite"):
        for expression in (True, False):
            sql = TARGETS["sql"].emit(model, dialect=dialect, expression=expression)
            assert DIALECTS[dialect].double(sigmoid_cut(0.7)) in sql and "EXP(" not in sql, (dialect, expression)
        assert "EXP(" in TARGETS["sql"].emit(model, dialect=dialect, proba=True), dialect


def test_only_a_binary_sigmoid_label_has_a_cut():
    """cross_entropy's plain sigmoid has the cut; multiclassova's sigmoids, random-forest mode's divisor, a
    softmax, a regression keep the model's own rule."""
    assert label_cut(import_file(os.path.join(FIXTURES, VERSIONS[-1], "cross_entropy.txt"))) == SIGMOID_F64_CUT
    for name in ("multiclassova", "multiclass", "rf", "regression"):
        assert label_cut(import_file(os.path.join(FIXTURES, VERSIONS[-1], name + ".txt"))) is None, name


def test_sklearn_classifiers_keep_their_labels():
    X, y_bin, _, y_multi = numeric_data()
    for y in (np.where(y_bin == 1, "yes", "no"), np.array(["low", "mid", "high"])[y_multi]):
        clf = lgb.LGBMClassifier(n_estimators=8, num_leaves=7, random_state=1, n_jobs=1, verbose=-1).fit(X, y)
        model = treegen.from_lightgbm(clf)
        assert model.target.classes == tuple(clf.classes_) and model.meta["lightgbm"]["classes"] == list(clf.classes_)
        probes = threshold_probes(model, X[:4])
        proba = clf.predict_proba(probes)
        check_against(model, as_rows(model, probes), clf.predict(probes, raw_score=True),
                      proba[:, 1] if proba.shape[1] == 2 else proba, clf.predict(probes))
    regressor = lgb.LGBMRegressor(n_estimators=5, verbose=-1).fit(X, y_multi * 1.5)
    assert from_object(regressor).target.kind == "regression"


def test_early_stopping_uses_what_predict_uses(tmp_path):
    X, y_bin, _, _ = numeric_data()
    train, valid = lgb.Dataset(X[:350], y_bin[:350]), lgb.Dataset(X[350:], y_bin[350:])
    booster = lgb.train({**PARAMS, "objective": "binary", "learning_rate": 0.8}, train, 60, valid_sets=[valid],
                        callbacks=[lgb.early_stopping(3, verbose=False)])
    assert 0 < booster.best_iteration < 60
    model = from_lightgbm(booster)
    assert len(model.trees) == booster.best_iteration
    assert model.meta["lightgbm"]["trees_used"] == f"best_iteration {booster.best_iteration} (early stopping)"
    probes = threshold_probes(model, X[:4])
    check_against(model, as_rows(model, probes), booster.predict(probes, raw_score=True), booster.predict(probes))
    path = str(tmp_path / "model.txt")
    booster.save_model(path)
    assert len(read_model_file(path).trees) == booster.best_iteration


def categorical_data(seed: int = 5, n: int = 600):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 40, size=n).astype(float)
    codes[::9] = np.nan
    x0 = rng.normal(size=n)
    effect = rng.normal(size=40) * 2
    y = ((effect[np.nan_to_num(codes, nan=0).astype(int)] + x0) > 0).astype(int)
    return np.column_stack([x0, codes]), y


@pytest.mark.parametrize("onehot", [4, 64])
def test_category_codes(onehot):
    """Codes predict exactly as LightGBM truncates them (Codes.TRUNCATED), given as numbers or as
    texts: fractional, negative, -0.0, beyond an int, infinite."""
    X, y = categorical_data()
    booster = lgb.train({**PARAMS, "objective": "binary", "max_cat_to_onehot": onehot, "cat_smooth": 1,
                         "min_data_per_group": 5}, lgb.Dataset(X, y, categorical_feature=[1]), 10)
    model = from_lightgbm(booster)
    assert model.features[1].codes == Codes.TRUNCATED
    assert model.features[1].categories == tuple(str(c) for c in range(40))
    probes = np.vstack([threshold_probes(model, X[:4])] + [np.column_stack([np.full(len(CATEGORY_PROBES), x),
                                                                           CATEGORY_PROBES]) for x in X[:4, 0]])
    raw, predictions = booster.predict(probes, raw_score=True), booster.predict(probes)
    check_against(model, as_rows(model, probes), raw, predictions)  # integral codes as "3", others as "2.7"
    as_numbers = [{"Column_0": float(x), "Column_1": None if math.isnan(c) else float(c)} for x, c in probes]
    check_against(model, as_numbers, raw, predictions)
    as_texts = [{**row, "Column_1": None if row["Column_1"] is None else repr(row["Column_1"])} for row in as_numbers]
    check_against(model, as_texts, raw, predictions)


def test_category_codes_from_a_csv_and_verify_against(tmp_path):
    """`treegen predict` on the CSV pandas writes for a code column with NaN ("3.0"), and `treegen
    verify --against` with codes among its probes (3.0, "3e0", 2.7, -0.5, 1e300, inf), agree with
    LightGBM."""
    X, y = categorical_data()
    booster = lgb.train({**PARAMS, "objective": "binary", "cat_smooth": 1, "min_data_per_group": 5},
                        lgb.Dataset(X, y, categorical_feature=[1]), 4)
    native, model_path, data = str(tmp_path / "model.txt"), str(tmp_path / "model.json"), str(tmp_path / "data.csv")
    booster.save_model(native)
    model = read_model_file(native)
    with open(model_path, "w") as f:
        f.write(modelio.dumps(model))
    codes = np.concatenate([X[:40, 1], [2.7, -0.5, -0.0, -1.5, 1e300, math.inf, 39.9, 40.0]])
    frame = pd.DataFrame({"Column_0": np.resize(X[:, 0], len(codes)), "Column_1": codes})
    frame.to_csv(data, index=False)
    assert ",32.0\n" in Path(data).read_text()  # an integer code, as pandas writes a column with a NaN
    result = CliRunner().invoke(main, ["predict", model_path, data, "--proba"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    got = [float(row["P(1)"]) for row in csv.DictReader(io.StringIO(result.output))]
    assert got == booster.predict(frame.to_numpy()).tolist()
    done = treegen_cli("verify", model_path, data, "--against", native, "--to", "rules")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "LightGBM itself     ok" in done.stdout


def test_linear_tree_with_category_codes(tmp_path):
    """A linear tree splits on a categorical feature (which its leaves' linear models leave out)
    and reads NaN, the zero band and huge values in its linear terms as LightGBM does."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(400, 2))
    x[::9, 1] = np.nan
    codes = rng.integers(0, 6, 400).astype(float)
    codes[::10] = np.nan
    y = np.isin(codes, [1, 3]) * 2.0 + 3 * x[:, 0] - np.nan_to_num(x[:, 1])
    X = np.column_stack([x, codes])
    booster = lgb.train({**PARAMS, "objective": "regression", "linear_tree": True, "min_data_per_group": 5,
                         "cat_smooth": 1}, lgb.Dataset(X, y, categorical_feature=[2]), 6)
    model = from_lightgbm(booster)
    assert any(n.split is not None and n.split.op == Op.IN for t in model.trees for n in t.nodes)
    probes = threshold_probes(model, X[:4])
    probes = np.vstack([probes, [[v, w, c] for v in SPECIAL for w in (0.5, math.nan) for c in (1.0, 2.0, math.nan)]])
    count = check_against(model, as_rows(model, probes), booster.predict(probes, raw_score=True), booster.predict(probes))
    assert count > 200


def test_pandas_categories_by_name(tmp_path):
    rng = np.random.default_rng(3)
    n = 800
    colours = ["red", "green", "blue", "cyan", "magenta", "yellow", "black", "white", "grey", "pink"]
    sizes = [3, 1, 2, 10, 7]  # integer categories, not in order
    frame = pd.DataFrame({"x": rng.normal(size=n),
                          "colour": pd.Categorical(rng.choice(colours, n), categories=colours),
                          "size": pd.Categorical(rng.choice(sizes, n), categories=sizes)})
    frame.loc[::13, "colour"] = None
    y = ((frame["colour"].isin(["red", "cyan", "black", "pink"])) * 1.5 + frame["x"]
         + (frame["size"].astype(float) > 2.5) > 1).astype(int)
    clf = lgb.LGBMClassifier(n_estimators=10, num_leaves=7, min_child_samples=5, min_data_per_group=5, cat_smooth=1,
                             max_cat_to_onehot=2, random_state=1, n_jobs=1, verbose=-1).fit(frame, y)
    path = str(tmp_path / "model.txt")
    clf.booster_.save_model(path)
    model = read_model_file(path)
    assert model.features[1].categories == tuple(colours) and model.features[2].categories == ("3", "1", "2", "10", "7")
    assert any(n.split is not None and n.split.op == Op.IN and len(n.split.values) > 1 for t in model.trees
               for n in t.nodes)
    # every category, an unknown one and a missing one, in a frame whose categories are in another order
    cases = [(c, s) for c in colours + ["zz", None] for s in sizes + [4, None]]
    probe = pd.DataFrame({"x": np.tile(frame["x"][:3].to_numpy(), len(cases)),
                          "colour": pd.Categorical([c for c, _ in cases for _ in range(3)],
                                                   categories=["zz"] + colours[::-1]),
                          "size": pd.Categorical([s for _, s in cases for _ in range(3)], categories=[4] + sizes)})
    rows = [{"x": float(x), "colour": c, "size": None if s != s or s is None else str(int(s))}
            for x, c, s in zip(probe["x"], probe["colour"].astype(object), probe["size"].astype(object))]
    for imported in (model, from_lightgbm(clf)):
        check_against(imported, rows, clf.predict(probe, raw_score=True), clf.predict_proba(probe)[:, 1],
                      clf.predict(probe))


def coded_categorical_frame(ordered: bool, n: int = 1500, seed: int = 0) -> pd.DataFrame:
    """A frame of a number, a pandas Categorical (ordered or not) with missing values, and an integer column."""
    rng = np.random.default_rng(seed)
    categories = ["S", "M", "L", "XL"] if ordered else ["b", "g", "r"]
    frame = pd.DataFrame({"num": rng.normal(size=n),
                          "col": pd.Categorical(rng.choice(categories, n), categories=categories, ordered=ordered),
                          "code": rng.integers(0, 8, n)})
    frame.loc[::17, "col"] = None
    return frame


@pytest.mark.parametrize("ordered, categorical_feature", [(True, "auto"), (True, ["code"]), (False, ["code"])])
@pytest.mark.parametrize("missing", [{}, {"zero_as_missing": True}, {"use_missing": False}])
def test_a_categorical_read_as_its_codes(tmp_path, ordered, categorical_feature, missing):
    """pandas_categorical lists the frame's Categorical columns, which LightGBM codes before it sees them,
    whether it then splits the codes as categories or as numbers: an ordered Categorical (numbers, with
    'auto'), or one beside an integer column that categorical_feature names (LightGBM reads the Categorical's
    codes as numbers and the integer column as categories). The list is the Categorical's, and the model
    predicts what LightGBM predicts for the frame, every category, a missing and an unknown one."""
    frame = coded_categorical_frame(ordered)
    y = frame["num"].to_numpy() + frame["col"].cat.codes.to_numpy() + np.sin(frame["code"].to_numpy()) * 2
    booster = lgb.train({**PARAMS, "min_data_per_group": 5, "cat_smooth": 1, **missing},
                        lgb.Dataset(frame, y, categorical_feature=categorical_feature), 10)
    path = str(tmp_path / "model.txt")
    booster.save_model(path)
    categories = list(frame["col"].cat.categories)
    for model in (read_model_file(path), from_lightgbm(booster)):
        col, code = model.features[1], model.features[2]
        assert col.categories == tuple(categories) and not col.is_numeric
        assert code.categories == tuple(map(str, range(8))) if categorical_feature != "auto" else code.is_numeric
        assert any(n.split is not None and n.split.feature == 1 for t in model.trees for n in t.nodes)
        cases = [(x, c, k) for x in frame["num"][:6] for c in categories + [None, "zz"] for k in range(9)]
        probe = pd.DataFrame({"num": [x for x, _, _ in cases],
                              "col": pd.Categorical([None if c == "zz" else c for _, c, _ in cases],
                                                    categories=categories),
                              "code": [k for _, _, k in cases]})
        rows = [{"num": float(x), "col": c, "code": k if categorical_feature == "auto" else str(k)} for x, c, k in cases]
        assert check_against(model, rows, booster.predict(probe, raw_score=True), booster.predict(probe)) == len(rows)
        library = oracle(path, model, probe_rows(model))  # verify --against pairs the lists as the import does
        assert [answer for answer, _ in library] == [answer for answer, _ in predict_rows(model, probe_rows(model))]


def test_categorical_columns_the_file_cannot_tell_are_refused(tmp_path):
    """An ordered Categorical beside an integer column of the same range, neither of them categorical: the
    list of pandas_categorical may be either's, and the file does not say which."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.normal(size=300),
                          "level": pd.Categorical(rng.choice(["lo", "mid", "hi"], 300), categories=["lo", "mid", "hi"],
                                                  ordered=True),
                          "k": rng.integers(0, 3, 300)})
    y = frame["x"] + frame["level"].cat.codes + frame["k"]
    booster = lgb.train({**PARAMS, "objective": "regression"}, lgb.Dataset(frame, y), 3)
    message = refusal(booster.model_to_string(), tmp_path)
    assert message.endswith(": pandas_categorical lists the categories of 1 Categorical column(s) of the training "
                            "frame, but the model has 0 categorical feature(s), and they fit several sets of features "
                            "in order, so the file does not say which columns they were (categorical_feature naming "
                            "columns that are not Categoricals, or an ordered Categorical); supported: the frame's "
                            "unordered Categoricals as the categorical features (categorical_feature='auto'), or "
                            "integer codes")
    with pytest.raises(TreegenError, match="they fit several sets of features"):
        from_lightgbm(booster)


def test_a_linear_model_of_a_categoricals_codes_is_refused(tmp_path):
    """A linear tree's leaves may read an ordered Categorical's codes, which a nominal feature cannot give."""
    frame = coded_categorical_frame(True)
    y = frame["num"].to_numpy() + frame["col"].cat.codes.to_numpy() * 3.3 + np.sin(frame["code"].to_numpy()) * 2
    booster = lgb.train({**PARAMS, "linear_tree": True}, lgb.Dataset(frame, y), 10)
    message = refusal(booster.model_to_string(), tmp_path)
    assert message.endswith("its linear model reads the codes of the pandas Categorical 'col', which LightGBM took as "
                            "numbers; supported: linear trees over numeric features (the Categorical unordered, or "
                            "its codes as an integer column)")


INTS, FLOATS = [10, 20, 30, 40, 55, 70], [-3.0, 0.5, 1.5, 2.25, 7.0]


@cache
def number_categories_model():
    """A booster fitted on a frame of a number and Categoricals of ints, floats, strings, bools and a mix."""
    rng = np.random.default_rng(0)
    n = 3000
    frame = pd.DataFrame({"num": rng.normal(size=n),
                          "ic": pd.Categorical(rng.choice(INTS, n), categories=INTS),
                          "fc": pd.Categorical(rng.choice(FLOATS, n), categories=FLOATS),
                          "sc": pd.Categorical(rng.choice(["10", "20", "x"], n)),
                          "bc": pd.Categorical(rng.choice([False, True], n)),
                          "mc": pd.Categorical(rng.choice(np.array([1, "a"], dtype=object), n))})
    y = (frame["num"] + frame["ic"].astype(float) / 10 * np.sign(np.sin(frame["ic"].astype(float)))
         + frame["fc"].astype(float) + (frame["sc"] == "x") + frame["bc"].astype(bool) + (frame["mc"] == "a"))
    booster = lgb.train({**PARAMS, "num_leaves": 15, "min_data_per_group": 5, "cat_smooth": 1, "max_cat_to_onehot": 2},
                        lgb.Dataset(frame, y), 15)
    return booster, frame


def test_number_categories_read_a_number_by_its_value(tmp_path):
    """Categoricals whose categories are all numbers (ints or floats) are named by their value and have
    Codes.INTEGRAL: pandas finds a value among them by its value (20.0 is the category 20), and so does the
    model, a number or an integral text; strings, bools and a mix of kinds are named by their text alone."""
    booster, frame = number_categories_model()
    path = str(tmp_path / "model.txt")
    booster.save_model(path)
    model = read_model_file(path)
    saved = tmp_path / "model.json"
    treegen.save(model, str(saved))
    for imported in (model, from_lightgbm(booster), treegen.load(str(saved))):
        kinds = {f.name: (f.categories, f.codes) for f in imported.features}
        assert kinds["ic"] == (tuple(map(str, INTS)), Codes.INTEGRAL)
        assert kinds["fc"] == (("-3", "0.5", "1.5", "2.25", "7"), Codes.INTEGRAL)
        assert kinds["sc"] == (("10", "20", "x"), None) and kinds["bc"] == (("False", "True"), None)
        assert kinds["mc"][1] is None
    probe = frame.iloc[:200]
    want = booster.predict(probe)
    as_given = [[{"ic": int(i), "fc": float(f)}, {"ic": float(i), "fc": f}, {"ic": np.int64(i), "fc": np.float64(f)},
                 {"ic": f"{i}.0", "fc": str(float(f))}]  # 20 as "20.0", a float category as Python writes it
                for i, f in zip(probe["ic"], probe["fc"])]
    for k in range(4):
        rows = [{"num": x, "sc": s, "bc": str(b), "mc": str(m), **given[k]}
                for x, s, b, m, given in zip(probe["num"], probe["sc"], probe["bc"], probe["mc"], as_given)]
        assert [value for value, _ in predict_rows(model, rows)] == want.tolist(), k
    rows = [{"num": x, "ic": str(i), "fc": str(f), "sc": s, "bc": str(b), "mc": str(m)} for x, i, f, s, b, m in
            zip(probe["num"], probe["ic"], probe["fc"], probe["sc"], probe["bc"], probe["mc"])]
    library = oracle(path, model, probe_rows(model) + rows)  # verify's: a Categorical of the training categories
    assert library == predict_rows(model, probe_rows(model) + rows)
    assert [value for value, _ in library[-len(rows):]] == want.tolist()


def test_number_categories_in_csv_text_are_read_as_pandas_reads_them(tmp_path):
    """A CSV field spells a number category as pandas writes it, "20.0" for 20 in an integer column holding a
    NaN, or as anyone may, "1.50" for 1.5: LightGBM on the frame pd.read_csv makes of it, coded by the
    training categories, takes the categories 20 and 1.5, and so do treegen's predict and every target."""
    booster, frame = number_categories_model()
    path, model_path, data = tmp_path / "model.txt", tmp_path / "model.json", tmp_path / "rows.csv"
    booster.save_model(str(path))
    treegen.save(read_model_file(str(path)), str(model_path))
    probe = frame.iloc[:60]
    spelt = {"ic": lambda i: f"{i}.0", "fc": lambda f: f"{f:.2f}"}  # 20.0; 1.50, -3.00, 2.25
    data.write_text("num,ic,fc,sc,bc,mc\n" + "".join(
        f"{x!r},{spelt['ic'](i)},{spelt['fc'](f)},{s},{b},{m}\n"
        for x, i, f, s, b, m in zip(probe["num"], probe["ic"], probe["fc"], probe["sc"], probe["bc"], probe["mc"])))
    read = pd.read_csv(data, dtype={"sc": str, "bc": str, "mc": str})
    assert read["ic"].tolist()[:1] == [float(probe["ic"].iloc[0])]
    given = pd.DataFrame({"num": read["num"],
                          "ic": pd.Categorical(read["ic"], categories=INTS),
                          "fc": pd.Categorical(read["fc"], categories=FLOATS),
                          "sc": pd.Categorical(read["sc"], categories=frame["sc"].cat.categories),
                          "bc": pd.Categorical(read["bc"] == "True", categories=frame["bc"].cat.categories),
                          "mc": pd.Categorical(read["mc"].map(lambda v: 1 if v == "1" else v),
                                               categories=frame["mc"].cat.categories)})
    want = booster.predict(given)
    assert want.tolist() == booster.predict(probe).tolist()  # the frame pandas read is the training rows
    done = treegen_cli("predict", model_path, data, check=True)
    assert [float(line.rsplit(",", 1)[1]) for line in done.stdout.splitlines()[1:]] == want.tolist()
    done = treegen_cli("verify", model_path, data, "--against", path, "--to", "python,java,javascript,c")
    assert done.returncode == 0 and done.stdout.count(" ok ") == 5, done.stdout + done.stderr


@pytest.mark.parametrize("kind", ["numeric", "codes", "pandas"])
def test_oracle_agrees_with_the_model_on_verify_probes(tmp_path, kind):
    """oracle() runs LightGBM's predict on the rows verify builds (thresholds, missing values and an
    unseen category): it agrees with the model everywhere, labels and scores bit for bit."""
    path = str(tmp_path / "model.txt")
    if kind == "numeric":
        X, _, _, y_multi = numeric_data()
        lgb.train({**PARAMS, "objective": "multiclass", "num_class": 3, "zero_as_missing": True},
                  lgb.Dataset(X, y_multi), 5).save_model(path)
    elif kind == "codes":
        X, y = categorical_data()
        lgb.train({**PARAMS, "objective": "binary", "cat_smooth": 1, "min_data_per_group": 5},
                  lgb.Dataset(X, y, categorical_feature=[1]), 5).save_model(path)
    else:
        rng = np.random.default_rng(4)
        frame = pd.DataFrame({"x": rng.normal(size=400), "c": pd.Categorical(rng.choice(list("abcdefg"), 400))})
        y = (frame["c"].isin(["a", "d", "f"]) * 1.0 + frame["x"] > 0.5).astype(int)
        lgb.LGBMClassifier(n_estimators=5, min_data_per_group=5, cat_smooth=1, verbose=-1).fit(frame, y) \
            .booster_.save_model(path)
    model = import_file(path)
    rows = probe_rows(model)
    if kind != "numeric":
        assert any(row.get(model.features[1].name) == UNSEEN for row in rows)
    library = oracle(path, model, rows)
    ours = predict_rows(model, rows)
    assert len(library) == len(ours) == len(rows)
    for row, (label, scores), (want_label, want_scores) in zip(rows, ours, library):
        assert label == want_label and all(same_bits(a, b) for a, b in zip(scores, want_scores)), row
    assert IMPORTERS["LightGBM"].oracle is oracle


def test_cli_import_writes_the_model(tmp_path):
    path = os.path.join(FIXTURES, VERSIONS[-1], "categorical_pandas.txt")
    out = str(tmp_path / "model.json")
    result = CliRunner().invoke(main, ["import", path, "-o", out], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    model = treegen.load(out)
    assert model.meta["library"] == "LightGBM" and model.features[1].kind == "nominal"
    assert modelio.dumps(model) == modelio.dumps(treegen.import_model(path))
    with pytest.raises(TreegenError, match="other names than the model's own"):  # (its frame's: x0, colour)
        treegen.import_model(path, feature_names=["a", "b"])
    arrays = os.path.join(FIXTURES, VERSIONS[-1], "categorical_codes.txt")  # Column_0, Column_1: fitted on arrays
    renamed = treegen.import_model(arrays, feature_names=["a", "b"])
    assert [f.name for f in renamed.features] == ["a", "b"]
    result = CliRunner().invoke(main, ["import", path, "--feature-names", "colour,x0"])
    assert result.exit_code == 2 and result.output.endswith(
        "categorical_pandas.txt: --feature-names gives the model's own feature names in another order ('colour' "
        "for its feature 0, 'x0'): the model keeps the names of the columns it was fitted on and reads a row by "
        "them; leave --feature-names out and name the data's columns as the model does (--feature-names names the "
        "features of a model fitted on arrays, which keeps none)\n")


def test_names_lightgbm_wrote_with_underscores():
    """LightGBM keeps a frame's column 'mean radius' as 'mean_radius' (its wrapper's feature_names_in_ too: the
    frame's own names are lost). X with the frame's names lacks the model's, and the message says why and what to
    do: import the model with feature_names=X.columns, which are the model's names as LightGBM writes them and
    are kept; the frame's names in another order are refused."""
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.normal(size=(300, 3)), columns=["mean radius", "a b c", "plain"])
    y = (X["mean radius"] + X["plain"] > 0).astype(int)
    classifier = lgb.LGBMClassifier(n_estimators=5, verbose=-1).fit(X, y)
    model = treegen.from_lightgbm(classifier)
    assert [f.name for f in model.features] == ["mean_radius", "a_b_c", "plain"]
    with pytest.raises(TreegenError) as err:
        treegen.predict(model, X)
    assert str(err.value) == ("X lacks the feature column(s): mean_radius, a_b_c; LightGBM stored the names of the "
                              "columns it was fitted on with each space written '_' ('mean radius' as "
                              "'mean_radius'): import the model with the frame's own names, feature_names=X.columns "
                              "(X: the frame it was fitted on)")
    with pytest.raises(TreegenError, match="^X lacks the feature column.s.: mean_radius, a_b_c$"):
        treegen.predict(model, X.rename(columns={"mean radius": "r", "a b c": "s"}))
    named = treegen.from_lightgbm(classifier, feature_names=X.columns)
    assert [f.name for f in named.features] == list(X.columns)
    assert (treegen.predict(named, X) == classifier.predict(X).astype(str)).all()
    with pytest.raises(TreegenError, match=r"another order \('plain' for its feature 0, 'mean_radius'\)"):
        treegen.from_lightgbm(classifier, feature_names=list(X.columns)[::-1])
    with pytest.raises(TreegenError, match=r"other names than the model's own \('mean-radius' for its feature 0"):
        treegen.from_lightgbm(classifier.booster_, feature_names=["mean-radius", "a b c", "plain"])


# -- refused, and bad input: one line ---------------------------------------------------------------


def fixture_text(name: str = "binary", version: str = VERSIONS[-1]) -> str:
    with open(os.path.join(FIXTURES, version, name + ".txt")) as f:
        return f.read()


def refusal(text: str, tmp_path) -> str:
    path = tmp_path / "model.txt"
    path.write_text(text)
    with pytest.raises(TreegenError) as caught:
        import_file(str(path))
    message = str(caught.value)
    assert "\n" not in message and message.startswith(str(path))
    return message


def replace_line(text: str, prefix: str, line: str | None) -> str:
    lines = text.split("\n")
    index = next(i for i, x in enumerate(lines) if x.startswith(prefix))
    return "\n".join(lines[:index] + ([] if line is None else [line]) + lines[index + 1:])


@pytest.mark.parametrize("objective,why", [("cross_entropy_lambda", "log1p"), ("survival", "")])
def test_unsupported_objectives(tmp_path, objective, why):
    message = refusal(replace_line(fixture_text(), "objective=", f"objective={objective}"), tmp_path)
    assert f":7: objective {objective}" in message and why in message
    assert "supported: binary, cross_entropy, multiclass, multiclassova, regression" in message


@pytest.mark.parametrize("line", [None, "objective=custom", "objective=none", "objective=custom sigmoid:1"])
def test_a_file_without_objective_is_the_raw_sum(tmp_path, line):
    """No objective= line, or one LightGBM reads as no objective function (ParseObjectiveAlias; the first
    word custom, CreateObjectiveFunction): LightGBM's predict is the raw sum, and so is the model's."""
    version = VERSIONS[-1]
    path, expected = load_fixture(version, "binary")
    text = tmp_path / "model.txt"
    text.write_text(replace_line(fixture_text("binary", version), "objective=", line))
    model = import_file(str(text))
    assert model.target.kind == "regression" and model.combine.link == Link.IDENTITY
    assert model.meta["objective"] == ("custom" if line is None else line.split("=", 1)[1])
    assert "raw score" in model.meta["lightgbm"]["note"]
    assert [t.nodes for t in model.trees] == [t.nodes for t in read_model_file(path).trees]
    X = np.array([[math.nan if v is None else v for v in values] for values in expected["rows"]])
    booster = lgb.Booster(model_file=str(text))
    assert booster.predict(X).tolist() == [r[0] for r in np.reshape(expected["raw"], (len(X), -1)).tolist()]
    check_against(model, as_rows(model, X), booster.predict(X, raw_score=True), booster.predict(X))


def squared_error(preds, data):
    """A custom objective (lgb.train's signature): the gradient and hessian of squared error."""
    g = preds - data.get_label()
    return g, np.ones_like(g)


def sklearn_squared_error(y_true, y_pred):
    """The same for the scikit-learn wrappers' callable objective."""
    g = y_pred - y_true
    return g, np.ones_like(g)


@pytest.mark.parametrize("how", ["train", "train_init_score", "LGBMRegressor", "LGBMClassifier"])
def test_custom_objective_from_file_and_object(tmp_path, how):
    """A custom objective's model, from its file and from the live object, predicts LightGBM's raw sum bit for bit:
    Booster.predict's and the wrapper's predict (an LGBMClassifier's predict and predict_proba are that raw score
    too). The labels' mean is far from 0, where boost_from_average would add a bias with a built-in objective: a
    custom objective starts from 0.0; and a Dataset's init_score is not in the model, nor in predict."""
    X, y_bin, y_reg, _ = numeric_data()
    if how.startswith("train"):
        init = np.full(len(X), 5.0) if how == "train_init_score" else None
        fitted = lgb.train({**PARAMS, "objective": squared_error}, lgb.Dataset(X, y_reg + 10, init_score=init), 8)
        booster = fitted
    else:
        kind = getattr(lgb, how)
        fitted = kind(objective=sklearn_squared_error, n_estimators=8, num_leaves=7, random_state=1, n_jobs=1,
                      verbose=-1).fit(X, y_bin if how == "LGBMClassifier" else y_reg + 10)
        booster = fitted.booster_
    path = str(tmp_path / "model.txt")
    booster.save_model(path)
    assert "\nobjective=" not in open(path).read()
    from_file, from_object_ = read_model_file(path), from_lightgbm(fitted)
    assert modelio.dumps(from_file) == modelio.dumps(from_object_).replace("every tree of the booster",
                                                                             "every tree in the file")
    assert from_file.target.kind == "regression" and from_file.combine.link == Link.IDENTITY
    assert from_file.combine.init == (0.0,) and from_file.meta["objective"] == "custom"
    assert from_file.meta["lightgbm"]["note"].startswith("a custom objective: the prediction is the raw score")
    probes = threshold_probes(from_file, X[:4])
    raw = booster.predict(probes, raw_score=True)
    reread = lgb.Booster(model_file=path)
    assert raw.tolist() == booster.predict(probes).tolist() == reread.predict(probes).tolist()
    # no bias: the first tree's leaves are learning_rate (0.3) times the labels' residuals from 0.0 (or from the
    # init_score, 5.0), not the labels' mean (about 10) plus a step
    assert np.mean(booster.predict(X, num_iteration=1)) < 4
    if how == "LGBMRegressor":
        assert fitted.predict(probes).tolist() == raw.tolist()
    elif how == "LGBMClassifier":  # no labels, no probabilities: both are the raw score
        for predict in (fitted.predict, fitted.predict_proba):
            with pytest.warns(UserWarning, match="Returning raw scores instead"):
                assert predict(probes).tolist() == raw.tolist()
    rows = as_rows(from_file, probes)
    for model in (from_file, from_object_):
        assert check_against(model, rows, raw, reread.predict(probes)) > 250


def test_custom_objective_verify_against_the_file(tmp_path):
    """`treegen verify --against` runs LightGBM on a file without objective (its raw sum) and agrees; `treegen
    import` says the prediction is the raw score (its line said "predicting a number", no more)."""
    X, _, y_reg, _ = numeric_data()
    native, data = str(tmp_path / "model.txt"), str(tmp_path / "data.csv")
    lgb.train({**PARAMS, "objective": squared_error}, lgb.Dataset(X, y_reg), 4).save_model(native)
    pd.DataFrame(X[:30], columns=[f"Column_{i}" for i in range(4)]).to_csv(data, index=False)
    result = CliRunner().invoke(main, ["verify", native, data, "--against", native, "--to", "python,rules"],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert "LightGBM itself     ok" in result.output and result.output.count(" ok ") == 3
    imported = CliRunner().invoke(main, ["import", native, "-o", str(tmp_path / "model.json")])
    assert imported.exit_code == 0 and imported.output.splitlines()[1] == (
        "treegen: a custom objective: the prediction is the raw score, the trees' sum without a link, as "
        "LightGBM's predict gives it (Booster and scikit-learn wrapper alike); apply your own transform")


def multiclass_custom_objective(preds, data):
    """A custom softmax objective over 3 classes: preds is n x 3 (LightGBM 4)."""
    p = np.exp(preds - preds.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p -= np.eye(3)[data.get_label().astype(int)]
    return p, np.ones_like(p)


def test_custom_multiclass_objective_is_refused(tmp_path):
    """Several trees per iteration under a custom objective: LightGBM predicts K raw sums per row (n x K), which a
    regression cannot hold; refused in one line, the file, the booster and `treegen import` alike."""
    X, _, _, y_multi = numeric_data()
    booster = lgb.train({**PARAMS, "objective": multiclass_custom_objective, "num_class": 3},
                        lgb.Dataset(X, y_multi), 3)
    assert booster.predict(X[:5]).shape == (5, 3)
    assert booster.predict(X[:5]).tolist() == booster.predict(X[:5], raw_score=True).tolist()
    why = ("a custom objective with 3 trees per iteration is not supported: LightGBM predicts 3 raw scores per row, "
           "and a treegen regression has one; supported: one tree per iteration")
    message = refusal(booster.model_to_string(), tmp_path)
    assert message.endswith(f"model.txt: {why}")
    with pytest.raises(TreegenError, match=why):
        from_lightgbm(booster)
    result = CliRunner().invoke(main, ["import", str(tmp_path / "model.txt")])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and why in result.output


@pytest.mark.parametrize("objective", ["lambdarank", "rank_xendcg"])
def test_ranking_models_predict_their_score_in_every_target(tmp_path, objective):
    """A ranking model's predict is the raw sum (RankingObjective converts nothing): from the file and from an
    LGBMRanker, in every target and against LightGBM's own predict of each; the model says it is a ranking score."""
    X, _, y_reg, _ = numeric_data()
    ranker = lgb.LGBMRanker(objective=objective, n_estimators=6, **PARAMS).fit(X, np.digitize(y_reg, [-1, 0, 1]),
                                                                            group=QUERIES)
    path = str(tmp_path / "rank.txt")
    ranker.booster_.save_model(path)
    model = import_file(path)
    assert model.meta["predicts"].startswith(f"a ranking score ({objective}): the trees' sum")
    probes = threshold_probes(model, X[:4])
    rows = as_rows(model, probes)
    assert check_against(from_lightgbm(ranker), rows, ranker.predict(probes, raw_score=True), ranker.predict(probes))
    results = verify(model, None, ["python", "java", "javascript", "c", "sql"], ["sqlite", "duckdb"], against=path)
    assert all(r.ok for r in results) and len(results) == 7, [r.line() for r in results]
    assert verify(from_lightgbm(ranker), None, ["python"], against=ranker)[0].ok


def test_mixed_missing_types_on_one_feature(tmp_path):
    text = replace_line(fixture_text("binary_zero_as_missing"), "tree_sizes=", None)  # decision types 6 and 4: Zero
    first = next(line for line in text.split("\n") if line.startswith("decision_type="))
    mixed = replace_line(text, "decision_type=", first.replace("=6", "=10", 1))  # NaN, default left
    message = refusal(mixed, tmp_path)
    assert message.endswith(":36: feature 'Column_0' has splits of missing type NaN (tree 0, node 0) and Zero "
                            "(tree 1, node 0); supported: one missing type per feature, as one training run "
                            "writes them")


@pytest.mark.parametrize("damage,expected", [
    (lambda t: t[:t.index("Tree=2") + 40], "truncated: no 'end of trees' line after 3 trees"),
    (lambda t: t[:60], "its header has no"),
    (lambda t: replace_line(t, "leaf_value=", "leaf_value=0.5 abc 1 2"), "leaf_value has 'abc', not a number"),
    (lambda t: replace_line(t, "leaf_value=", "leaf_value=0.5 1"), "leaf_value has 2 values, expected 4"),
    (lambda t: replace_line(replace_line(t, "left_child=", "left_child=1 -1 0"), "tree_sizes=", None),
     "the tree is damaged"),
    (lambda t: replace_line(t, "split_feature=", "split_feature=0 9 1"), "split_feature 9 is not one of the 3"),
    (lambda t: replace_line(t, "version=", "version=v2"), "version v2 is not supported; supported: v3, v4"),
    (lambda t: replace_line(t, "feature_names=", "feature_names=a b"), "feature_names has 2 entries"),
    (lambda t: replace_line(t, "Tree=1", "Tree=7"), "expected 'Tree=1', found 'Tree=7'"),
    (lambda t: replace_line(t, "tree_sizes=", "tree_sizes=1 2"), "tree_sizes lists 2 trees, but the file has 4"),
    (lambda t: t.replace("is_linear=0", "is_linear=1", 1), "tree 0 has no leaf_const= line"),
])
def test_damaged_files(tmp_path, damage, expected):
    message = refusal(damage(fixture_text()), tmp_path)
    assert expected in message


def lightgbm_reads(path) -> np.ndarray | None:
    """LightGBM's predictions of the file's model on a few rows, or None where it refuses the file (a
    Log::Fatal in an OpenMP loop aborts the process: run in one of its own)."""
    code = ("import sys, numpy, lightgbm; numpy.save(sys.argv[2], lightgbm.Booster(model_file=sys.argv[1])"
            ".predict(numpy.linspace(-2, 2, 60).reshape(20, 3)))")
    done = subprocess.run([sys.executable, "-c", code, str(path), str(path) + ".npy"], capture_output=True)
    return np.load(str(path) + ".npy") if done.returncode == 0 else None


def tree_text(text: str, number: int) -> str:
    """Tree ``number``'s block: its ``Tree=`` line up to the next tree's (its blank line included)."""
    start = text.index(f"Tree={number}\n")
    end = text.index("Tree=" if f"Tree={number + 1}\n" in text else "end of trees", start + 5)
    return text[start:end]


def edited_tree(text: str, number: int, edit) -> str:
    return text.replace(tree_text(text, number), edit(tree_text(text, number)), 1)


SIZES = "tree_sizes=555 559 557 565"  # binary.txt of 4.7.0


@pytest.mark.parametrize("damage, refused", [
    (lambda t: edited_tree(t, 1, lambda tree: tree.replace("\nshrinkage=", " \nshrinkage=")), ":31: tree 1 is 560 bytes "
     "long, but tree_sizes says 559"),
    (lambda t: edited_tree(t, 0, lambda tree: tree[:-1]), ":12: tree 0 is 554 bytes long, but tree_sizes says 555"),
    (lambda t: t.replace("\n", "\r\n"), ":12: tree 0 is 574 bytes long, but tree_sizes says 555"),
    (lambda t: t.replace(SIZES, "tree_sizes=555 559 -1 565"), ":10: tree_sizes=555 559 -1 565 is not a list of byte "
     "counts: the file is damaged"),
    (lambda t: t.replace(SIZES, "tree_sizes=555 559 1 565"), ":50: tree 2 is 557 bytes long, but tree_sizes says 1"),
    (lambda t: t.replace(SIZES, "tree_sizes=1114 1 557 565"), ":10: tree_sizes puts tree 2 1115 bytes past the first "
     "tree, where no tree begins: LightGBM refuses the file (it is damaged or was edited)"),
    # LightGBM reads these: the last tree's size is never used; without tree_sizes the trees are read in turn;
    # sizes that put a tree at another's line read that one there (trees 0, 2, 2, 3)
    (lambda t: edited_tree(t, 3, lambda tree: tree.replace("\nshrinkage=", " \nshrinkage=")), None),
    (lambda t: edited_tree(t, 0, lambda tree: tree[:-1]).replace(SIZES + "\n", ""), None),
    (lambda t: t.replace(SIZES, "tree_sizes=1114 0 557 565"), None),
], ids=["a space in tree 1", "tree 0's blank line lost", "CRLF", "a negative size", "a size off", "trees out of turn",
        "a space in the last tree", "no tree_sizes", "a tree read twice"])
def test_tree_sizes_are_read_as_lightgbm_reads_them(tmp_path, damage, refused):
    """LightGBM finds tree i at the sum of the sizes before it, and aborts where no 'Tree=' line is there; treegen
    read the trees in turn whatever tree_sizes said: a file LightGBM refuses was compiled, and one whose sizes
    put trees at others' places was compiled to other trees than LightGBM's."""
    text = fixture_text("binary", "4.7.0")
    assert SIZES + "\n" in text
    path = tmp_path / "model.txt"
    path.write_bytes(damage(text).encode())
    expected = lightgbm_reads(path)
    if refused is not None:
        assert expected is None
        assert refusal(damage(text), tmp_path).endswith(refused + (": LightGBM refuses the file (a tree edited, its "
                                                                  "line ends changed?)" if " bytes long" in refused
                                                                  else ""))
        return
    model = import_file(str(path))
    rows = [dict(zip(["Column_0", "Column_1", "Column_2"], row)) for row in np.linspace(-2, 2, 60).reshape(20, 3)]
    assert treegen.predict_proba(model, rows)[:, 1].tolist() == expected.tolist()


def test_a_file_of_no_trees_is_refused_saying_so(tmp_path):
    """save_model(start_iteration=...) past the last tree writes the header and 'end of trees' straight after it
    (LightGBM loads it and predicts a constant): a file of no trees, not a truncated one."""
    X, y_bin, _, _ = numeric_data()
    booster = lgb.train({**PARAMS, "objective": "binary"}, lgb.Dataset(X, y_bin), 3)
    message = refusal(booster.model_to_string(start_iteration=10), tmp_path)
    assert message.endswith(": the LightGBM model has no trees (saved with a start_iteration past its last tree?): "
                            "it predicts one constant for every row, and treegen compiles trees")


def test_pandas_categorical_that_does_not_fit(tmp_path):
    text = fixture_text("categorical_pandas").rstrip("\n")
    message = refusal(text[:text.rindex("\n")] + '\npandas_categorical:[["a"], ["b"]]\n', tmp_path)
    assert ("pandas_categorical lists the categories of 2 Categorical column(s) of the training frame, but the model "
            "has 1 categorical feature(s), and no features fit them in order") in message
    message = refusal(text[:text.rindex("\n")] + '\npandas_categorical:[["a", "b"\n', tmp_path)
    assert "pandas_categorical is not valid JSON" in message


def test_files_of_another_kind(tmp_path):
    for content, seen in (('{"layers": {}}', "JSON"), ("a,b\n1,2\n", "text (first line: 'a,b')")):
        path = tmp_path / "other.txt"
        path.write_text(content)
        with pytest.raises(TreegenError) as caught:
            import_file(str(path))
        assert seen in str(caught.value) and "LightGBM: a LightGBM model.txt (Booster.save_model)" in str(caught.value)
    with pytest.raises(TreegenError, match="not a LightGBM model: the first line is not 'tree'"):
        model_from_text("trees\nversion=v4\n")
    with pytest.raises(TreegenError, match="LGBMClassifier is not fitted"):
        from_lightgbm(lgb.LGBMClassifier())
    with pytest.raises(TreegenError, match="cannot import a Dataset from lightgbm"):
        from_lightgbm(lgb.Dataset(np.zeros((3, 2))))
    booster = lgb.train({"objective": "binary", "verbose": -1, "num_leaves": 4},
                        lgb.Dataset(np.arange(40.0).reshape(20, 2), np.arange(20) % 2), 2)
    for indent in (None, 2):  # dump_model()'s JSON, as json.dump writes it: how to save the model instead
        dump = tmp_path / "dump.json"
        dump.write_text(json.dumps(booster.dump_model(), indent=indent))
        done = treegen_cli("import", str(dump))
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (f"treegen: error: {dump}: this is the JSON of LightGBM's Booster.dump_model(), which "
                               "treegen does not read: save the model with booster.save_model('model.txt')\n")


# -- size --------------------------------------------------------------------------------------------


def synthetic_model_text(n_trees: int, depth: int, n_features: int = 10, seed: int = 0) -> str:
    """A binary LightGBM model of complete trees, as save_model writes one: internal nodes numbered
    breadth first, children of node k at 2k+1 and 2k+2, leaves ~j; features 0-5 of missing type NaN,
    6-7 None, 8-9 Zero."""
    rng = np.random.default_rng(seed)
    internal, leaves = 2 ** depth - 1, 2 ** depth
    missing_type = [2] * 6 + [0] * 2 + [1] * (n_features - 8)

    def child(c):
        return c if c < internal else ~(c - internal)
    blocks = []
    for i in range(n_trees):
        features = rng.integers(0, n_features, internal)
        thresholds = np.round(rng.normal(size=internal), 3)
        kinds = [missing_type[f] << 2 | (2 if rng.random() < 0.5 else 0) for f in features]
        fields = {"num_leaves": leaves, "num_cat": 0, "split_feature": " ".join(map(str, features)),
                  "threshold": " ".join(map(repr, thresholds.tolist())), "decision_type": " ".join(map(str, kinds)),
                  "left_child": " ".join(str(child(2 * k + 1)) for k in range(internal)),
                  "right_child": " ".join(str(child(2 * k + 2)) for k in range(internal)),
                  "leaf_value": " ".join(map(repr, (rng.normal(size=leaves) * 0.05).tolist())),
                  "is_linear": 0, "shrinkage": 0.1}
        blocks.append(f"Tree={i}\n" + "".join(f"{k}={v}\n" for k, v in fields.items()) + "\n\n")
    header = {"version": "v4", "num_class": 1, "num_tree_per_iteration": 1, "label_index": 0,
              "max_feature_idx": n_features - 1, "objective": "binary sigmoid:1",
              "feature_names": " ".join(f"f{j}" for j in range(n_features)),
              "feature_infos": " ".join(["[-5:5]"] * n_features)}
    return ("tree\n" + "".join(f"{k}={v}\n" for k, v in header.items()) + "\n" + "".join(blocks)
            + "end of trees\n\npandas_categorical:null\n")


@pytest.mark.slow
def test_thousand_trees_of_depth_eight(tmp_path):
    text = synthetic_model_text(1000, 8)
    path = tmp_path / "big.txt"
    path.write_text(text)
    started = time.perf_counter()
    model = import_file(str(path))
    seconds = time.perf_counter() - started
    assert len(model.trees) == 1000 and {t.depth() for t in model.trees} == {8}
    assert sum(len(t.nodes) for t in model.trees) == 1000 * 511
    assert seconds < 60, seconds  # 3 to 7 s on a loaded 2-core machine
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 10))
    X[rng.random(X.shape) < 0.1] = np.nan
    X[rng.random(X.shape) < 0.05] = 0.0
    X[:, 9][::3] = 1e-36
    probabilities = lgb.Booster(model_str=text).predict(X)
    # the model's answers from its batch walk, the reference verify uses (model.scores row by row walks
    # 1,000 trees in Python: 74 s for 3,604 rows against 9 s), for X and the Java rows below at once:
    # every fourth probe row (probe_rows gives one row per threshold value here: 14,336, not 200) and
    # 20 rows of X
    java_rows = probe_rows(model, 200)[::4] + as_rows(model, X[:20])
    answers = predict_rows(model, as_rows(model, X) + java_rows)
    assert all(same_bits(scores[1], p) for (_, scores), p in zip(answers[:len(X)], probabilities, strict=True))
    # its Java (511,000 nodes: the plan Python, JavaScript and C share, and a 37 MB class) compiles and
    # predicts what the model predicts, and its rule text (147,816 rules) is written. The other targets
    # compile and run the models of their own big-model tests, of 50,000 leaves (tests/test_emit_python.py,
    # test_emit_javascript.py, test_emit_c.py; SQL: test_sql_spark_walk.py and test_emit_sql.py's big trees).
    # The program runs in the JVM kept loaded (C1 only): what it prints is checked, not how a JVM starts
    # (a JVM of its own, tiered: 8.9-9.8 s of CPU; kept: 4.7-5.1 s, the same output).
    rules = emit(model, "rules")
    assert rules.count("\ntree ") == 1000 and "\ntree 1000 " in rules
    printed = run_loaded(emit(model, "java"), to_csv(model, java_rows), ["--proba"]).splitlines()[1:]
    assert [[float(p) for p in line.split(",")] for line in printed] == [scores for _, scores in answers[len(X):]]


@pytest.mark.parametrize("boundaries", ["cat_boundaries=-1 1", "cat_boundaries=0 2 1"])
def test_category_sets_whose_bounds_do_not_rise_are_refused(tmp_path, boundaries):
    """A categorical split's codes are the words cat_threshold[cat_boundaries[i]:cat_boundaries[i + 1]]; a
    damaged file's negative or falling bound was read as Python slices it (-1 as the last word) and imported
    as some other set of codes, where LightGBM reads out of its array. Such a file is one line saying so."""
    text = fixture_text("categorical_codes")
    if boundaries.count(" ") == 2:  # a second set, for a falling bound (the split reads set 0)
        text = replace_line(text, "num_cat=", "num_cat=2")
    message = refusal(replace_line(text, "cat_boundaries=", boundaries), tmp_path)
    assert message.endswith(f"tree 0: {boundaries.replace('=', ' ')} do not rise from 0 or more: the file is "
                            "damaged")
