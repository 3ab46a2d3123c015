"""The model: JSON round trips, schema errors, exact comparison semantics, and rules that predict
what the tree predicts (property tests over random trees and rows)."""
import itertools
import json
import math
import random
import os
import re
import sys
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from cli_in_process import treegen_cli
from treegen import modelio
from treegen.errors import TreegenError
from treegen.model import NodeColumns, NumericSemantics, Route, _largest_left, by_id, spelt_almost, tree_output
from treegen.lower import lower, rules_output
from treegen.probes import boundary_values
from treegen.testing import chain_model, random_model, random_rows, wide_model, with_label_values
from treegen.walk import predict_rows

SETTINGS = settings(max_examples=60, deadline=None)


@SETTINGS
@given(seed=st.integers(0, 10**6), regression=st.booleans(), trees=st.integers(1, 3))
def test_rules_predict_what_the_tree_predicts(seed, regression, trees):
    model = random_model(seed, regression=regression, n_trees=trees)
    for tree, tree_rules in zip(model.trees, lower(model)):
        for row in random_rows(model, 60, seed):
            assert rules_output(model, tree, tree_rules, row) == tree_output(model, tree, row)


@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_rules_are_exclusive_without_fractional_routes(seed):
    model = random_model(seed, missing_kinds=("stop", "child"))
    [tree_rules] = lower(model)
    assert tree_rules.exclusive
    names = [f.name for f in model.features]
    for row in random_rows(model, 60, seed):
        applying = [r for r in tree_rules.rules
                    if all(c.factor(row.get(names[c.feature]), model.features[c.feature]) == 1.0
                           for c in r.conditions)]
        assert len(applying) == 1


def test_conditions_are_merged_per_feature():
    model = chain_model(50)
    rules = lower(model)[0].rules
    assert all(len(rule.conditions) == 1 for rule in rules)
    assert rules[10].conditions[0].low == 9.0 and rules[10].conditions[0].high == 10.0


def test_deep_and_wide_trees_lower_without_recursion():
    assert len(lower(chain_model(10_000))[0].rules) == 10_001
    assert len(lower(wide_model(50_000))[0].rules) == 50_000


@SETTINGS
@given(seed=st.integers(0, 10**6), trees=st.integers(1, 3))
def test_json_round_trip_is_exact_and_deterministic(seed, trees):
    model = random_model(seed, n_trees=trees, regression=seed % 2 == 0)
    text = modelio.dumps(model)
    again = modelio.loads(text)
    assert modelio.dumps(again) == text
    for row in random_rows(model, 30, seed):
        assert again.scores(row) == model.scores(row)


def test_node_lines_are_what_jsons_own_encoder_writes():
    """The model file's node lines come from json's C encoder made once: the text json.JSONEncoder
    writes, whatever the value holds."""
    values = [{"value": [0.1, -0.0, 1e-310, 1.7976931348623157e308, math.nan, math.inf, -math.inf], "n": 3.0},
              {"split": {"feature": 2**70, "op": "in", "values": ["é", "\u2028", "\x00\"\\", "🌲", "\ud800"]}},
              "a string", 12, None, True, [], {}, [[1, [2.5]], {"k": {"j": None}}]]
    encode = modelio._one_line_encoder()
    assert [encode(v) for v in values] == [modelio._ONE_LINE.encode(v) for v in values]


def test_deep_model_json_round_trip():
    model = chain_model(10_000)
    assert modelio.loads(modelio.dumps(model)).predict({"x": 9_999.5}) == model.predict({"x": 9_999.5})


def test_a_split_equals_its_copy_though_its_threshold_is_nan():
    """Every split but ``<=`` has the threshold NaN: Python 3.13's dataclasses compare field by field, where
    NaN is not NaN, and found such a split, its node and its tree unequal to their copies (the parsed rule
    text of a model was then not its nodes'): they compare as tuples, as before."""
    from dataclasses import replace
    from treegen.model import MissingRoute, Node, Op, Split
    split = Split(0, Op.IN, values=("a", "b"), missing=MissingRoute.to_child(1))
    copy = replace(split)
    assert copy is not split and copy == split and hash(copy) == hash(split) and {split: 1}[copy] == 1
    assert Node((0.5,), split=copy, children=(1, 2)) == Node((0.5,), split=split, children=(1, 2))
    assert split != replace(split, values=("a",)) and split != "split"


@SETTINGS
@given(seed=st.integers(0, 10**6), trees=st.integers(1, 3))
def test_plain_nodes_read_at_once_are_the_nodes_the_checks_read(seed, trees):
    """modelio reads the usual node (floats, a leaf or a numeric '<=' split) without its checks: the
    same model as the checked read gives."""
    from unittest import mock
    text = modelio.dumps(random_model(seed, n_trees=trees, regression=seed % 2 == 0))
    quick = modelio.loads(text)
    with mock.patch.object(modelio, "_plain_node", lambda *args: None):
        checked = modelio.loads(text)
    assert [t.nodes for t in quick.trees] == [t.nodes for t in checked.trees]


@SETTINGS
@given(seed=st.integers(0, 10**6), trees=st.integers(1, 3))
def test_trees_read_as_columns_are_the_trees_the_checks_read(seed, trees):
    """A tree whose every node is plain and sends missing values to a child (what the boosting
    importers write) is read a field at a time into columns: the nodes the checked read gives, the same
    predictions, and the same text written back."""
    from unittest import mock
    model = random_model(seed, n_nominal=0, missing_kinds=(Route.CHILD,), n_trees=trees, regression=seed % 2 == 0)
    text = modelio.dumps(model)
    quick = modelio.loads(text)
    assert all(isinstance(t.nodes, NodeColumns) for t in quick.trees)
    with mock.patch.object(modelio, "_node_columns", lambda *args: None), \
            mock.patch.object(modelio, "_plain_node", lambda *args: None):
        checked = modelio.loads(text)
    assert [list(t.nodes) for t in quick.trees] == [t.nodes for t in checked.trees]
    assert modelio.dumps(quick) == text
    rows = random_rows(model, 60, seed)
    assert predict_rows(quick, rows) == predict_rows(checked, rows)
    assert [(quick.predict(r), quick.scores(r)) for r in rows] == [(checked.predict(r), checked.scores(r)) for r in rows]
    assert all(by_id(t) is by_id(t) for t in quick.trees)  # a row at a time: the nodes made once
    assert [list(map(repr, v)) for v in boundary_values(quick)] == [list(map(repr, v)) for v in boundary_values(checked)]
    assert quick.used_features() == checked.used_features()


def _columns_doc() -> dict:
    """A model of one tree the reader takes as columns: splits 0, 1 and 4, leaves 2, 3, 5 and 6."""
    doc = json.loads(modelio.dumps(wide_model(4, n_features=3)))
    assert [node.get("children") for node in _nodes(doc)] == [[1, 4], [2, 3], None, None, [5, 6], None, None]
    assert isinstance(modelio.model_from_dict(doc).trees[0].nodes, NodeColumns)
    return doc


def _nodes(d: dict) -> list:
    return d["trees"][0]["nodes"]


@pytest.mark.parametrize("mutate", [
    lambda d: _nodes(d)[0]["split"]["missing"].update(kind="stop"),
    lambda d: _nodes(d)[0]["split"]["missing"].update(child=2),
    lambda d: _nodes(d)[0]["split"]["missing"].update(child=True),
    lambda d: _nodes(d)[0]["split"]["missing"].update(weights=[0.5, 0.5]),
    lambda d: _nodes(d)[0]["split"].update(op="in", values=["x"]),
    lambda d: _nodes(d)[0]["split"].update(threshold=1),
    lambda d: _nodes(d)[0]["split"].update(threshold=float("nan")),
    lambda d: _nodes(d)[0]["split"].update(threshold=float("inf")),
    lambda d: _nodes(d)[0]["split"].update(feature=3),
    lambda d: _nodes(d)[0]["split"].update(feature=-1),
    lambda d: _nodes(d)[0]["split"].update(feature=True),
    lambda d: _nodes(d)[0]["split"].pop("threshold"),
    lambda d: _nodes(d)[0]["split"].update(unknown=0),
    lambda d: _nodes(d)[0].update(children=[1, 1]),
    lambda d: _nodes(d)[0].update(children=[1]),
    lambda d: _nodes(d)[0].update(children=[1, 2.0]),
    lambda d: _nodes(d)[0].update(children=[1, len(_nodes(d))]),
    lambda d: _nodes(d)[1].update(children=[0, 2]),
    lambda d: _nodes(d)[-1].update(children=None),
    lambda d: _nodes(d)[-1].update(children=[1, 2]),
    lambda d: _nodes(d)[0].update(split=None),
    lambda d: _nodes(d)[1].update(value=[1, 0.0, 0.0]),
    lambda d: _nodes(d)[1].update(value=[0.5, 0.5]),
    lambda d: _nodes(d)[1].update(value=[float("inf"), 0.0, 0.0]),
    lambda d: _nodes(d)[1].update(n=-1.0),
    lambda d: _nodes(d)[1].update(n=float("nan")),
    lambda d: _nodes(d)[1].pop("n"),
    lambda d: _nodes(d)[1].update(counts=[1.0, 2.0, 3.0]),
    lambda d: [node.update(counts=[1.0, 2.0, 3.0]) for node in _nodes(d)],
    lambda d: [node.update(counts=[]) for node in _nodes(d)],
    lambda d: _nodes(d)[1].update(label_value=[1.0, 0.0, 0.0]),
    lambda d: _nodes(d)[1].update(linear={"const": 1.0, "terms": []}),
    lambda d: _nodes(d)[1].update(comment="x"),
    lambda d: _nodes(d).__setitem__(1, [1.0]),
], ids=range(34))
def test_a_tree_the_columns_do_not_take_as_they_are_is_read_node_by_node(mutate):
    """Whatever one node changes, the reader of columns gives what the reader of nodes gives: the same
    model (as columns where they hold it), or the same error."""
    from unittest import mock
    doc = _columns_doc()
    mutate(doc)

    def outcome():
        try:
            model = modelio.model_from_dict(json.loads(json.dumps(doc)), "m.json")
        except TreegenError as err:
            return str(err)
        return modelio.dumps(model)

    with mock.patch.object(modelio, "_node_columns", lambda *args: None):
        expected = outcome()
    assert outcome() == expected


@pytest.mark.parametrize("mutate,message", [
    (lambda d: d.update(version=99), "unsupported model version 99"),
    (lambda d: d.pop("features"), "missing field 'features'"),
    (lambda d: d["trees"][0]["nodes"][0]["split"].update(feature=42), "no feature number 42"),
    (lambda d: d["trees"][0]["nodes"][0].update(children=[0, 0, 0]), "is not a new node"),
    (lambda d: d["trees"][0]["nodes"][0].update(children=[1, 4, 8]),
     r"^m\.json: trees\[0\]\.nodes\[0\]\.children: child 8 is not one of the tree's 8 nodes$"),
    (lambda d: d["trees"][0]["nodes"][1].update(value="x"), "expected a list"),
    # true and false are JSON's booleans, not numbers: never a node id, a feature's index or a count
    (lambda d: d["trees"][0]["nodes"][0].update(children=[True, 2]), r"nodes\[0\]\.children: expected a list of node ids"),
    (lambda d: d["trees"][0]["nodes"][0]["split"].update(feature=False), "split.feature: expected an integer, found bool"),
    (lambda d: d["trees"][0]["nodes"][1].update(n=True), r"nodes\[1\]\.n: expected a number, found bool"),
    (lambda d: d["trees"][0]["nodes"][0]["split"]["missing"].update(kind="child", child=True),
     "split.missing.child: expected an integer, found bool"),
    (lambda d: d["target"].update(kind="poetry"), "'poetry' is not one of"),
    (lambda d: d["trees"][0]["nodes"][0]["split"].update(values=["sunny"]), "one child for each category"),
    (lambda d: d["trees"][0]["nodes"][1].update(label_value=[1.0]), r"nodes\[1\]\.label_value: expected 2 numbers"),
    (lambda d: (d["trees"][0]["nodes"][1].update(label_value=[1.0, 0.0]), d.update(combine={"kind": "sum", "init": [0.0, 0.0]})),
     r"trees\[0\]\.nodes\[1\]\.label_value: label values belong to single or averaged trees"),
])
def test_malformed_models_name_what_is_wrong(mutate, message):
    model_doc = json.loads(modelio.dumps(_tennis()))
    mutate(model_doc)
    with pytest.raises(TreegenError, match=message):
        modelio.model_from_dict(model_doc, "m.json")


@SETTINGS
@given(seed=st.integers(0, 10**6), trees=st.integers(1, 3))
def test_label_values_decide_the_label_on_sums_of_their_own(seed, trees):
    """With label values the scores stay the values' and the label is what the same trees would
    predict with the label values as their values; JSON keeps them; the vectorised walk agrees."""
    plain = random_model(seed, n_trees=trees)
    model = with_label_values(plain, seed)
    voting = replace(plain, trees=[replace(t, nodes=[replace(n, value=n.label_value) for n in t.nodes])
                                   for t in model.trees])
    again = modelio.loads(modelio.dumps(model))
    rows = random_rows(model, 40, seed)
    for row in rows:
        assert model.scores(row) == plain.scores(row) == again.scores(row)
        assert model.predict(row) == voting.predict(row) == again.predict(row)
    assert predict_rows(model, rows) == [(model.predict(row), model.scores(row)) for row in rows]


def test_invalid_json_gives_line_and_column():
    with pytest.raises(TreegenError) as err:
        modelio.loads('{\n  "format": "treegen-model",\n  oops\n}', "m.json")
    assert (err.value.file, err.value.line, err.value.column) == ("m.json", 3, 3)


def test_not_a_model():
    with pytest.raises(TreegenError, match="not a treegen model"):
        modelio.loads("[1, 2]", "m.json")


def _tennis():
    from treegen.data import load_dataset
    from treegen.learn import fit
    return fit(load_dataset("examples/play_tennis.csv"), "id3")


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False, width=64))
def test_float32_cut_is_the_last_float64_that_goes_left(t):
    semantics = NumericSemantics(cast="float32")
    cut = semantics.effective_threshold(t)
    assert semantics.goes_left(cut, t)
    assert not semantics.goes_left(math.nextafter(cut, math.inf), t)
    assert cut == _largest_left(lambda x: semantics.goes_left(x, t), t)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=-1e6, max_value=1e6, allow_nan=False))
def test_tolerance_cut(t):
    semantics = NumericSemantics(tolerance=1e-6)
    cut = semantics.effective_threshold(t)
    assert semantics.goes_left(cut, t) and not semantics.goes_left(math.nextafter(cut, math.inf), t)



def test_the_cut_of_zero_keeps_its_sign_whichever_is_asked_first():
    """0.0 and -0.0 are equal keys of the cuts' cache: the text of a cut must not depend on the order
    in which thresholds were converted (each order is asked here: -0.0 then 0.0, then -0.0 again)."""
    semantics = NumericSemantics()
    assert [repr(semantics.effective_threshold(t)) for t in (-0.0, 0.0, -0.0)] == ["-0.0", "0.0", "-0.0"]


def test_float32_semantics_match_numpy_on_neighbours():
    semantics = NumericSemantics(cast="float32")
    rng = np.random.default_rng(0)
    for t in rng.normal(size=200):
        cut = semantics.effective_threshold(float(t))
        for x in (cut, math.nextafter(cut, -math.inf), math.nextafter(cut, math.inf), float(np.float32(t))):
            assert (x <= cut) == (float(np.float32(x)) <= t)


def test_models_built_in_memory_are_checked_before_compiling():
    """An '==' split naming only some categories would leave a known category missing there, which
    the JSON reader refuses; a model built in memory meets the same check at emit, in one line."""
    from dataclasses import replace

    from treegen.targets import emit
    model = random_model(4, n_numeric=0, n_nominal=2, max_depth=2, missing_kinds=("child",))
    node = next(n for n in model.trees[0].nodes if n.split is not None and n.split.op == "==")
    node.split = replace(node.split, values=node.split.values[:-1])
    node.children = node.children[:-1]
    for target in ("python", "sql", "rules"):
        with pytest.raises(TreegenError, match=r"tree 0, node \d+: an '==' split needs one child for each category"):
            emit(model, target)


def _c45_missing_doc():
    from treegen.data import load_dataset
    from treegen.learn import fit
    return json.loads(modelio.dumps(fit(load_dataset("tests/fixtures/j48/labor.arff"), "c45")))


def _fraction_node(doc) -> dict:
    return next(n for n in doc["trees"][0]["nodes"] if n.get("split", {}).get("missing", {}).get("kind") == "fraction")


@pytest.mark.parametrize("mutate,where,message", [
    (lambda d: d["trees"][0]["nodes"][2].update(value=[math.nan, 1.0]), "trees[0].nodes[2].value[0]",
     "expected a finite number, found nan"),
    (lambda d: d["trees"][0]["nodes"][2].update(value=[math.inf, 1.0]), "trees[0].nodes[2].value[0]",
     "expected a finite number, found inf"),
    (lambda d: d["trees"][0]["nodes"][2].update(counts=[math.nan, 1.0]), "trees[0].nodes[2].counts[0]",
     "expected a finite number"),
    (lambda d: d["trees"][0]["nodes"][1].update(n=-3), "trees[0].nodes[1].n", "expected a finite number >= 0"),
    (lambda d: d["trees"][0]["nodes"][1].update(n=math.nan), "trees[0].nodes[1].n", "expected a finite number >= 0"),
    (lambda d: d["features"][1].update(name=d["features"][0]["name"]), "features[1]", "duplicate feature name"),
    (lambda d: d["target"].update(classes=["no", "no"]), "target.classes[1]", "duplicate class label 'no'"),
    (lambda d: d["features"][0].update(categories=["sunny", "sunny", "rain"]), "features[0].categories[1]",
     "duplicate category 'sunny'"),
    (lambda d: d.update(numeric={"cast": "float64", "tolerance": -1e-6}), "numeric.tolerance",
     "expected a finite number >= 0"),
    (lambda d: d.update(numeric={"cast": "float64", "tolerance": math.inf}), "numeric.tolerance",
     "expected a finite number >= 0"),
    (lambda d: d.update(combine={"kind": "single", "scale": math.nan}), "combine.scale", "expected a finite number"),
    # integers beyond the largest double (float() would raise OverflowError)
    (lambda d: d["trees"][0]["nodes"][2].update(value=[10 ** 400, 1.0]), "trees[0].nodes[2].value[0]",
     "expected a finite number, found an integer beyond the largest double"),
    (lambda d: d["trees"][0]["nodes"][1].update(n=-10 ** 400), "trees[0].nodes[1].n",
     "expected a finite number, found an integer beyond the largest double"),
    # a child for unknown categories only where every back end has one: an 'in' split sending missing values to a child
    (lambda d: d["trees"][0]["nodes"][0]["split"].update(unknown=0), "trees[0].nodes[0].split.unknown",
     "only an 'in' split whose missing values go to a child has a child for unknown categories"),
])
def test_values_and_names_a_prediction_cannot_use(mutate, where, message):
    doc = json.loads(modelio.dumps(_tennis()))
    mutate(doc)
    with pytest.raises(TreegenError) as err:
        modelio.loads(json.dumps(doc, allow_nan=True), "m.json")
    assert str(err.value).startswith(f"m.json: {where}: {message}"), str(err.value)


def test_a_number_of_more_digits_than_python_reads_is_one_error_line():
    with pytest.raises(TreegenError) as err:
        modelio.loads('{"format": ' + "1" * 5000 + "}", "m.json")
    limited = hasattr(sys, "get_int_max_str_digits")  # Python 3.11 on (and 3.10.7, 3.9.14) reads 4,300 digits at most
    assert str(err.value) == ("m.json: invalid JSON: Exceeds the limit (4300 digits) for integer string conversion"
                              if limited else 'm.json: not a treegen model (expected "format": "treegen-model")')


@pytest.mark.parametrize("weights,where,message", [
    (lambda w: [math.nan] + w[1:], "weights[0]", "expected a finite number, found nan"),
    (lambda w: [-0.25, w[0] + 0.25] + w[2:], "weights[0]", "a weight must be >= 0"),
    (lambda w: [x / 2 for x in w], "weights", "the weights must sum to 1"),
])
def test_fractional_weights_share_a_row(weights, where, message):
    doc = _c45_missing_doc()
    node = _fraction_node(doc)
    node["split"]["missing"]["weights"] = weights(node["split"]["missing"]["weights"])
    with pytest.raises(TreegenError, match=r"split\.missing\." + where.replace("[", r"\[").replace("]", r"\]")
                       + ": " + message):
        modelio.loads(json.dumps(doc, allow_nan=True), "m.json")


@pytest.mark.parametrize("weights,message", [
    ([1.0], "the node has 2 children but 1 weight"),  # summing to 1, yet one short
    ([0.4], "the node has 2 children but 1 weight"),  # not "must sum to 1": the count is what is wrong
    ([0.2, 0.3, 0.5], "the node has 2 children but 3 weights"),
    ([], "the node has 2 children but 0 weights"),
])
def test_fractional_weights_are_one_a_child(weights, message):
    doc = _c45_missing_doc()
    node = _fraction_node(doc)
    assert len(node["children"]) == 2
    node["split"]["missing"]["weights"] = weights
    with pytest.raises(TreegenError) as err:
        modelio.loads(json.dumps(doc), "m.json")
    index = doc["trees"][0]["nodes"].index(node)
    assert str(err.value) == f"m.json: trees[0].nodes[{index}].split.missing.weights: {message}"


def test_real_c45_weights_are_accepted():
    doc = _c45_missing_doc()
    assert _fraction_node(doc)  # C4.5's weights sum to 1 only within rounding: they load
    assert modelio.loads(json.dumps(doc)).trees


def test_nan_threshold_has_the_json_path():
    doc = _c45_missing_doc()
    node = next(i for i, n in enumerate(doc["trees"][0]["nodes"]) if n.get("split", {}).get("op") == "<=")
    doc["trees"][0]["nodes"][node]["split"]["threshold"] = math.nan
    with pytest.raises(TreegenError) as err:
        modelio.loads(json.dumps(doc, allow_nan=True), "m.json")
    assert str(err.value) == f"m.json: trees[0].nodes[{node}].split.threshold: a threshold must be a number, not NaN"


def test_a_missing_interval_may_end_at_an_infinity_but_not_at_nan():
    doc = _c45_missing_doc()
    numeric = next(i for i, f in enumerate(doc["features"]) if f["kind"] == "numeric")
    doc["features"][numeric]["missing_interval"] = [3.4028235677973366e38, math.inf]  # XGBoost's missing=inf
    model = modelio.loads(json.dumps(doc, allow_nan=True), "m.json")
    assert model.features[numeric].missing_interval == (3.4028235677973366e38, math.inf)
    assert modelio.dumps(modelio.loads(modelio.dumps(model))) == modelio.dumps(model)
    doc["features"][numeric]["missing_interval"] = [math.nan, 1.0]
    with pytest.raises(TreegenError) as err:
        modelio.loads(json.dumps(doc, allow_nan=True), "m.json")
    assert str(err.value) == f"m.json: features[{numeric}].missing_interval[0]: expected a number, found nan"


def _fractional_stump(weights):
    """x <= 0 -> leaf 1, else leaf 2; a missing x goes down both with ``weights``."""
    from treegen.model import (CLASSIFICATION, NUMERIC, Feature, MissingRoute, Model, Node, Op, Split, Target,
                               Tree)
    split = Split(0, Op.LE, threshold=0.0, missing=MissingRoute.fraction(weights))
    nodes = [Node((0.5, 0.5), split=split, children=(1, 2)), Node((1.0, 0.0)), Node((0.0, 1.0))]
    return Model((Feature("x", NUMERIC), Feature("unused", NUMERIC)), Target("y", CLASSIFICATION, ("a", "b")),
                 [Tree(nodes)])


def test_leaf_ids_list_the_nodes_reached_with_weight_in_node_order():
    from treegen.model import leaf_ids
    model = _fractional_stump([0.25, 0.75])
    assert leaf_ids(model, {"x": -1.0}) == "1"
    assert leaf_ids(model, {"x": None}) == "1|2"
    assert leaf_ids(_fractional_stump([0.0, 1.0]), {"x": None}) == "2"  # C4.5's empty branch weighs 0
    forest = random_model(5, n_trees=3, missing_kinds=("child",))
    row = random_rows(forest, 1, 5)[0]
    assert leaf_ids(forest, row).count(";") == 2


def test_rows_need_only_the_columns_some_split_tests():
    from treegen.data import parse_csv, rows_for_model
    model = _fractional_stump([0.5, 0.5])
    assert model.used_features() == [0]
    assert rows_for_model(parse_csv("x,other\n1.5,zz\n"), model) == [{"x": 1.5, "unused": None}]
    with pytest.raises(TreegenError, match="no column named 'x'"):
        rows_for_model(parse_csv("unused\n1\n"), model)
    wide = wide_model(64, n_features=3)
    with pytest.raises(TreegenError, match="no columns named 'f0', 'f1', 'f2'"):
        rows_for_model(parse_csv("z\n1\n"), wide)


# -- the semantics that imported boosting libraries need (XGBoost, LightGBM, HistGB, CatBoost) ---------

ZERO_BAND = 1.0000000180025095e-35  # LightGBM's kZeroThreshold, 1e-35f as a double
NUMERIC_KIND = "numeric"
THRESHOLDS = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=32),
                       st.floats(allow_nan=False, allow_infinity=False, width=64),
                       st.sampled_from([0.0, -0.0, ZERO_BAND, -ZERO_BAND, ZERO_BAND / 2, -ZERO_BAND / 2,
                                        math.nextafter(ZERO_BAND, 1), math.nextafter(-ZERO_BAND, -1), 1e-300]))
SEMANTICS = st.builds(NumericSemantics, cast=st.sampled_from(["float64", "float32"]), strict=st.booleans(),
                      zero_band=st.sampled_from([0.0, ZERO_BAND]))


@settings(max_examples=600, deadline=None)
@given(t=THRESHOLDS, semantics=SEMANTICS)
def test_every_comparison_is_one_float64_cut(t, semantics):
    from treegen.arithmetic import f32
    """Strict comparisons (XGBoost: float32(x) < t) and the zero band (LightGBM reads |x| <= 1e-35f as
    0.0) still leave a half-line going left: the cut every back end tests as x <= cut."""
    cut = semantics.effective_threshold(t)
    probes = [cut, math.nextafter(cut, math.inf), math.nextafter(cut, -math.inf), t, 0.0, -0.0, ZERO_BAND,
              -ZERO_BAND, math.nextafter(ZERO_BAND, 1), math.nextafter(-ZERO_BAND, -1), f32(t)]
    for x in probes:
        if math.isfinite(x):
            assert semantics.goes_left(x, t) == (x <= cut), (x, t, cut)


def test_strict_float32_is_what_xgboost_compares():
    semantics = NumericSemantics(cast="float32", strict=True)
    t = float(np.float32(0.1))
    below = float(np.nextafter(np.float32(t), np.float32(-1)))
    assert not semantics.goes_left(t, t) and semantics.goes_left(below, t)
    midpoint = (t + below) / 2  # rounds to even: one of the two float32 neighbours
    assert semantics.goes_left(midpoint, t) == (float(np.float32(midpoint)) < t)


def _boosted(combine, outputs_per_tree, outputs=None, weights=None, classes=("a", "b")):
    from treegen.model import CLASSIFICATION, Feature, Model, Node, Target, Tree
    trees = [Tree([Node((v,))], output=(outputs or [0] * len(outputs_per_tree))[i],
                  weight=(weights or [1.0] * len(outputs_per_tree))[i]) for i, v in enumerate(outputs_per_tree)]
    return Model((Feature("x", NUMERIC_KIND),), Target("y", CLASSIFICATION, classes), trees, combine)


def test_float32_sums_round_every_addition():
    from treegen.model import Combine, Link, Precision
    leaves = [0.1, 1e-8, 1e-8, -0.3]
    combine = Combine("sum", (0.5,), 1.0, Link.IDENTITY, precision=Precision.FLOAT32)
    raw = _boosted(combine, leaves).raw_sums([(v,) for v in leaves])
    expected = np.float32(0.5)
    for v in leaves:
        expected = np.float32(expected + np.float32(v))
    assert raw == [float(expected)]


def test_dart_weights_and_catboost_bias_and_lightgbm_divisor():
    from treegen.model import Combine, Link
    leaves = [0.25, 0.5, 2.0]
    dart = _boosted(Combine("sum", (0.0,), 1.0, Link.IDENTITY), leaves, weights=[0.5, 1.0, 0.1])
    assert dart.raw_sums([(v,) for v in leaves]) == [0.25 * 0.5 + 0.5 + 2.0 * 0.1]
    catboost = _boosted(Combine("sum", (1.25,), 0.5, Link.IDENTITY, init_last=True), leaves)
    assert catboost.raw_sums([(v,) for v in leaves]) == [0.5 * (0.25 + 0.5 + 2.0) + 1.25]
    forest = _boosted(Combine("sum", (0.0,), 1.0, Link.IDENTITY, divisor=3.0), leaves)
    assert forest.raw_sums([(v,) for v in leaves]) == [(0.25 + 0.5 + 2.0) / 3.0]


def test_decision_rules():
    from treegen.model import Combine, Decision, Link, decide, weka_argmax
    assert weka_argmax([0.49999999999999994, 0.5]) == 0  # J48: passed only by more than 1e-6
    assert weka_argmax([0.4, 0.6]) == 1
    zero = [(0.0,)]
    cases = {Decision.RAW_NONNEGATIVE: "b", Decision.RAW_POSITIVE: "a", None: "b"}
    for rule, label in cases.items():
        model = _boosted(Combine("sum", (0.0,), 1.0, Link.SIGMOID, decide=rule), [0.0])
        assert model.combined(zero)[0] == label, rule
    assert decide(Decision.ARGMAX_RAW, [0.9, 0.1], [0.0, 1.0]) == 1


def test_xgboost_links_are_float32_with_glibc_expf():
    """XGBoost's label is its float32 probability > 0.5: a margin of 2^-25 gives exactly 0.5."""
    from treegen.model import Combine, Link, Precision
    combine = Combine("sum", (0.0,), 1.0, Link.SIGMOID, precision=Precision.FLOAT32, decide="argmax")
    model = _boosted(combine, [2.0 ** -25])
    label, scores = model.combined([(2.0 ** -25,)])
    assert scores == [0.5, 0.5] and label == "a"
    label, scores = model.combined([(2.0 ** -20,)])
    assert label == "b" and scores[1] > 0.5


def test_unknown_categories_and_missing_intervals_route_as_the_model_says():
    from treegen.model import (CLASSIFICATION, NOMINAL, Feature, MissingRoute, Model, Node, Op, Split, Target,
                               Tree, child_for)
    color = Feature("color", NOMINAL, ("red", "green", "blue"))
    size = Feature("size", NUMERIC_KIND, missing_interval=(-ZERO_BAND, ZERO_BAND))
    nodes = [Node((0.5, 0.5)), Node((1.0, 0.0)), Node((0.0, 1.0))]
    model = Model((color, size), Target("y", CLASSIFICATION, ("a", "b")), [Tree(nodes)])
    xgboost_like = Split(0, Op.IN, values=("red",), missing=MissingRoute.to_child(0), unknown=1)
    assert [child_for(model, xgboost_like, v) for v in ("red", "blue", "purple", None)] == [0, 1, 1, None]
    threshold = Split(1, Op.LE, threshold=-1.0, missing=MissingRoute.to_child(0))
    assert [child_for(model, threshold, v) for v in (1e-36, -2.0, 3.0, ZERO_BAND)] == [None, 0, 1, None]


def test_new_fields_round_trip_through_json_and_old_models_are_written_as_before():
    from treegen.model import Combine, Link, NumericSemantics, Precision
    model = random_model(3)
    before = modelio.dumps(model)
    assert '"strict"' not in before and '"precision"' not in before and '"weight"' not in before
    model.numeric = NumericSemantics(cast="float32", strict=True, zero_band=ZERO_BAND)
    model.combine = Combine("sum", (0.25,) * 3, 1.0, Link.SOFTMAX, link_scale=0.5, precision=Precision.FLOAT32,
                            divisor=2.0, init_last=True, decide="argmax_raw")
    model.trees[0].weight = 0.75
    again = modelio.loads(modelio.dumps(model))
    assert again.numeric == model.numeric and again.combine == model.combine and again.trees[0].weight == 0.75
    assert modelio.dumps(again) == modelio.dumps(model)


def test_numpy_nans_are_missing_as_in_the_generated_code():
    from treegen.model import is_missing
    assert is_missing(np.float32("nan")) and is_missing(np.float64("nan")) and not is_missing(np.float32(1.0))


def test_what_a_paused_collector_kept_goes_to_the_oldest_generation():
    """A big model made with the collector paused is not walked by its young passes afterwards: it is
    in the oldest generation when the block ends, and the collector is on again. What a small block
    made stays young; a process that froze objects itself keeps them frozen."""
    import gc
    from treegen.collector import PROMOTED_AFTER, collector_paused

    def kept_by_block():
        with collector_paused():
            return [[] for _ in range(2 * PROMOTED_AFTER)]
    big = kept_by_block()
    assert gc.isenabled()
    assert not any(o is big[0] for o in gc.get_objects(generation=0))
    assert any(o is big[0] for o in gc.get_objects(generation=2))
    with collector_paused():
        small = lower(random_model(3, n_trees=3))
    assert not any(o is small for o in gc.get_objects(generation=2))
    frozen = []
    gc.freeze()
    try:
        kept_by_block()
        assert not any(o is frozen for o in gc.get_objects())  # in no generation: still frozen
    finally:
        gc.unfreeze()
    assert any(o is frozen for o in gc.get_objects(generation=2))


def test_what_the_interpreter_froze_at_start_does_not_stop_the_promotion():
    """CPython 3.12 starts with objects frozen (its builtin types' immortal bases and MROs): the promotion
    counted them as the process's own and never happened there. Objects frozen before treegen is imported
    (here, the same as 3.12's) are the interpreter's; what the process freezes later is still kept frozen."""
    import subprocess
    import sys
    script = """if True:
        import gc
        gc.freeze()  # as CPython 3.12 starts
        from treegen.collector import PROMOTED_AFTER, collector_paused
        assert gc.get_freeze_count() > 0
        def kept_by_block():
            with collector_paused():
                return [[] for _ in range(2 * PROMOTED_AFTER)]
        big = kept_by_block()
        assert any(o is big[0] for o in gc.get_objects(generation=2))
        gc.freeze()
        frozen = gc.get_freeze_count()
        kept_by_block()
        assert gc.get_freeze_count() >= frozen  # the process's own: still frozen
        print("ok")
    """
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout == "ok\n", done.stderr


# -- model files that do not fit themselves: one line through the CLI, exit 2 -------------------------------

EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def softmax_doc(tmp_path_factory):
    """XGBoost's 3-class softmax: init [0, 0, 0], trees adding to outputs 0, 1, 2 in turn."""
    path = tmp_path_factory.mktemp("softmax") / "x.json"
    assert treegen_cli("import", EXAMPLES / "boosting" / "xgboost.json", "-o", path).returncode == 0
    return json.loads(path.read_text(encoding="utf-8"))


def _refused(tmp_path, doc, *command) -> str:
    """The one line of ``command`` (predict by default) on ``doc`` saved as m.json, which must fail with exit 2."""
    path = tmp_path / "m.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    args = command or ("predict", "--proba", path, EXAMPLES / "boosting" / "iris_missing.csv")
    result = treegen_cli(*(path if a == "M" else a for a in args))
    assert result.returncode == 2 and result.stdout == "" and result.stderr.count("\n") == 1, result.stderr
    return result.stderr.replace(str(path), "m.json").rstrip("\n")


@pytest.mark.parametrize("init,found", [([0.0, 0.0], 2), ([], 0), ([0.0] * 4, 4)])
@pytest.mark.parametrize("command", [(), ("export", "M", "--to", "c"), ("export", "M", "--to", "python")])
def test_a_softmax_init_of_another_length_is_refused(tmp_path, softmax_doc, init, found, command):
    doc = json.loads(json.dumps(softmax_doc))
    doc["combine"]["init"] = init
    assert _refused(tmp_path, doc, *command) == (
        f"treegen: error: m.json: combine.init: a softmax over 3 classes needs 3 numbers, found {found}")


@pytest.mark.parametrize("output", [7, -1, 3, True])
@pytest.mark.parametrize("command", [(), ("export", "M", "--to", "c"), ("export", "M", "--to", "python")])
def test_a_tree_output_beyond_the_raw_sums_is_refused(tmp_path, softmax_doc, output, command):
    doc = json.loads(json.dumps(softmax_doc))
    doc["trees"][1]["output"] = output
    problem = ("expected an integer or null" if output is True
               else f"expected null or a raw sum from 0 to 2 (one per combine.init), found {output}")
    assert _refused(tmp_path, doc, *command) == f"treegen: error: m.json: trees[1].output: {problem}"


@pytest.mark.parametrize("kind,link,classes,init,problem", [
    ("sum", "sigmoid", ["a", "b"], [], "a sigmoid over 2 classes needs 1 or 2 numbers, found 0"),
    ("sum", "sigmoid", None, [0.0], "a sigmoid cannot give the scores of a regression"),
    ("sum", "identity", None, [0.0, 0.0], "an identity over a regression needs 1 number, found 2"),
    ("average", "identity", ["a", "b"], [0.0], "only a 'sum' starts from init, an 'average' takes [], found 1 number"),
])
def test_init_fits_the_link_and_the_target(tmp_path, kind, link, classes, init, problem):
    doc = modelio.model_to_dict(random_model(1, regression=classes is None, classes=classes or ()))
    doc["combine"].update(kind=kind, link=link, init=init)
    assert _refused(tmp_path, doc, "show", "M") == f"treegen: error: m.json: combine.init: {problem}"


def test_only_a_sum_adds_a_tree_to_one_output(tmp_path):
    doc = modelio.model_to_dict(random_model(1))
    doc["trees"][0]["output"] = 0
    assert _refused(tmp_path, doc, "show", "M") == ("treegen: error: m.json: trees[0].output: a 'single' combine "
                                                    "reads every output of a tree: expected null, found 0")


def test_a_truncated_json_says_the_whole_json_message(tmp_path):
    path = tmp_path / "m.json"
    path.write_text('{"format": "treegen-model",\n "features": [{"name": "ab', encoding="utf-8")
    result = treegen_cli("show", path)
    assert result.returncode == 2 and result.stderr == (
        f"treegen: error: {path}:2:24: invalid JSON: Unterminated string starting at line 2 column 24\n")


@pytest.mark.parametrize("edit,line", [
    (lambda d: d["numeric"].update(tolerence=d["numeric"].pop("tolerance")),
     "numeric: unknown field 'tolerence'; the fields here are cast, strict, tolerance, zero_band"),
    (lambda d: d["combine"].update(decid="argmax"),
     "combine: unknown field 'decid'; the fields here are decide, divisor, init, init_last, kind, link, link_scale, "
     "precision, scale"),
    (lambda d: d["trees"][0]["nodes"][0].update(splt=None),
     "trees[0].nodes[0]: unknown field 'splt'; the fields here are children, counts, label_value, linear, n, split, "
     "value"),
    (lambda d: d["trees"][0]["nodes"][0]["split"]["missing"].update(chlid=0),
     "trees[0].nodes[0].split.missing: unknown field 'chlid'; the fields here are child, kind, weights"),
    (lambda d: d.update(metadata={}), "unknown field 'metadata'; the fields here are combine, features, format, meta, "
     "numeric, target, trees, tuple_keys, version"),
])
def test_a_field_the_format_does_not_have_is_refused(tmp_path, softmax_doc, edit, line):
    """A misspelt optional field would be read as absent, its default in force: it changes predictions."""
    doc = json.loads(json.dumps(softmax_doc))
    edit(doc)
    assert _refused(tmp_path, doc) == f"treegen: error: m.json: {line}"


FORMAT_PAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "model-format.md")


def _format_page() -> str:
    with open(FORMAT_PAGE, encoding="utf-8") as page:
        return page.read()


def test_every_field_the_reader_knows_is_on_the_format_page():
    """docs/model-format.md names every field of modelio.FIELDS (as `field`, `path.field` or a key of its example)."""
    page = _format_page()
    missing = [f"{obj}.{name}" for obj, fields in modelio.FIELDS.items() for name in sorted(fields)
               if not re.search(rf"`[^`\s]*\b{name}`", page) and f'"{name}"' not in page]
    assert not missing, missing


def _stump(missing: dict = None, linear: dict = None) -> dict:
    """A regression stump's model file, with only the fields that must be present (and those given)."""
    split = {"feature": 0, "op": "<=", "threshold": 0.5, **({"missing": missing} if missing else {})}
    leaf = {"value": [1.0], **({"linear": linear} if linear else {})}
    return {"format": "treegen-model", "version": 1, "features": [{"name": "x", "kind": "numeric"}],
            "target": {"name": "y", "kind": "regression"},
            "trees": [{"nodes": [{"value": [0.0], "split": split, "children": [1, 2]}, leaf, {"value": [2.0]}]}]}


def _holder(where: str) -> tuple[dict, dict]:
    """A model file where the page's path ``where`` (the object a field is in) can be given, and that object."""
    if where == "split.missing":
        doc = _stump(missing={"kind": "child"})
        return doc, doc["trees"][0]["nodes"][0]["split"]["missing"]
    if where == "node.linear":  # a linear leaf needs every split to send missing values to a child
        doc = _stump(missing={"kind": "child", "child": 0}, linear={"const": 1.0})
        return doc, doc["trees"][0]["nodes"][1]["linear"]
    doc = _stump()
    nodes = doc["trees"][0]["nodes"]
    return doc, {"": doc, "numeric": doc.setdefault("numeric", {}), "combine": doc.setdefault("combine", {}),
                 "features[]": doc["features"][0], "trees[]": doc["trees"][0], "node": nodes[1],
                 "split": nodes[0]["split"]}[where]


def test_the_format_pages_defaults_are_what_the_reader_assumes():
    """Each field of the page's table of optional fields with a JSON value as its default: the model
    read with the field left out is the model read with the field given that value."""
    table = _format_page().split("| field | when absent | meaning |")[1].split("\n\n")[0]
    defaults = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \|", table, re.M)
    assert len(defaults) >= 20 and ("numeric.cast", '"float64"') in defaults, defaults
    for path, default in defaults:
        where, _, name = path.rpartition(".")
        doc, holder = _holder(where)
        absent = modelio.dumps(modelio.model_from_dict(doc))
        holder[name] = json.loads(default)
        assert modelio.dumps(modelio.model_from_dict(doc)) == absent, path


def _surrogate_doc(where: str) -> dict:
    """A model's JSON with a lone surrogate (JSON spells it \\ud800) where a name, category or label is."""
    doc = json.loads(modelio.dumps(random_model(2, max_depth=4)))
    nominal = next(f for f in doc["features"] if f["kind"] == "nominal")
    if where == "feature name":
        doc["features"][0]["name"] = "x\ud800"
    elif where == "class label":
        doc["target"]["classes"][1] = "\udfffb"
    elif where == "category":
        nominal["categories"].append("\udc80")
    else:
        doc["target"]["name"] = "y\udcff"
    return doc


@pytest.mark.parametrize("where", ["feature name", "class label", "category", "target name"])
@pytest.mark.parametrize("command", [("export", "M", "--to", "python"), ("export", "M", "--to", "java"),
                                     ("export", "M", "--to", "c"), ("export", "M", "--to", "javascript"),
                                     ("export", "M", "--to", "sql"), ("export", "M", "--to", "rules"),
                                     ("verify", "M"), ("show", "M")])
def test_a_lone_surrogate_is_refused_in_one_line_before_any_target(tmp_path, where, command):
    """No target can read or write a lone surrogate as UTF-8 (Java wrote '?', Python and save raised, C wrote
    invalid UTF-8): every model is refused as its features and target are made, naming what holds it."""
    line = _refused(tmp_path, _surrogate_doc(where), *command)
    assert f"treegen: error: the {where} " in line and "holds a lone surrogate (U+D" in line


def test_a_lone_surrogate_is_refused_from_the_api():
    """A label that surrogateescape decoded (a byte that is not UTF-8) stops at the import, not at a save."""
    from sklearn.tree import DecisionTreeClassifier
    from treegen import from_sklearn
    from treegen.model import CLASSIFICATION, NOMINAL, Feature, Target
    X = np.random.RandomState(0).rand(40, 2)
    y = np.where(X[:, 0] > .5, b"caf\xe9".decode("utf-8", "surrogateescape"), "tea")
    with pytest.raises(TreegenError, match=r"^the class label 'caf\\udce9' holds a lone surrogate \(U\+DCE9\)"):
        from_sklearn(DecisionTreeClassifier(max_depth=2).fit(X, y))
    with pytest.raises(TreegenError, match=r"^the category '\\ud800' of 'c' holds"):
        Feature("c", NOMINAL, ("a", "\ud800"))
    with pytest.raises(TreegenError, match=r"^the class label"):
        replace(Target("y", CLASSIFICATION, ("a", "b")), classes=("a", "b\udbff"))
    assert Feature("c", NOMINAL, ("é", "🌲", "\u2028")).categories[1] == "🌲"  # a pair is one character


def test_a_feature_that_names_a_category_twice_is_refused_as_its_model_file_is():
    """Every target numbers categories by their place, so a category named twice (which a Model built in Python
    could hold; a model file is refused) answered wrong in Java, JavaScript and C (an 'in' split of it, `verify`)."""
    from treegen.model import NOMINAL, Feature
    with pytest.raises(TreegenError, match=r"^the feature 'city' names the category 'Paris' twice: a category is one"):
        Feature("city", NOMINAL, ("Paris", "Rome", "Paris"))
    assert Feature("city", NOMINAL, ("Paris", "paris", "Paris ")).categories[2] == "Paris "


@pytest.mark.parametrize("names,line", [
    (["x", "x "], "the features 'x' and 'x ' have the same name once the spaces around them are stripped"),
    (["  a", "b", "a"], "the features '  a' and 'a' have the same name once the spaces around them are stripped"),
    (["b", "b"], "the feature name 'b' is given twice")])
def test_feature_names_equal_once_stripped_are_refused(names, line):
    """A CSV header's names are stripped: 'x' and 'x ' could never be fed apart (a CSV with x fed both)."""
    with pytest.raises(TreegenError, match="^" + re.escape(line)):
        random_model(1, n_numeric=len(names), n_nominal=0, names=names)
    model = random_model(1, n_numeric=2, n_nominal=0, names=["x", " y"])  # equal to no other once stripped
    with pytest.raises(TreegenError, match="'x' and ' x '"):
        replace(model, features=(model.features[0], replace(model.features[1], name=" x ")))


def test_a_model_of_no_trees_is_refused_as_it_is_made():
    """It would predict one constant, and every path that reads the trees assumed one (predict answered one
    row for many, the C target raised): refused however it is made, by the API too."""
    model = random_model(1)
    why = "the model has no trees (a booster trained for 0 rounds, or saved without its trees?): it would predict"
    with pytest.raises(TreegenError, match="^" + re.escape(why)):
        replace(model, trees=[])


def test_an_arff_with_names_equal_once_stripped_is_refused_in_one_line(tmp_path):
    path = tmp_path / "d.arff"
    path.write_text("@relation r\n@attribute x numeric\n@attribute 'x ' numeric\n@attribute c {a,b}\n@data\n"
                    + "".join(f"{i % 9},{(i * 7) % 9},{'ab'[i % 2]}\n" for i in range(30)), encoding="utf-8")
    result = treegen_cli("train", path, "-a", "cart", "-o", tmp_path / "m.json")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "'x' and 'x '" in result.stderr
    assert not (tmp_path / "m.json").exists()


def test_a_model_prints_as_one_short_line():
    """A boosted model in a REPL is a line of what it is, not the ~80 KB of its fields; equality is still
    the fields'."""
    import treegen
    model = treegen.import_model("examples/boosting/xgboost.json")
    nodes = sum(len(tree.nodes) for tree in model.trees)
    assert repr(model) == f"<Model XGBoost: 60 trees, {nodes} nodes, 4 features, predicting 3 classes ('y')>"
    assert repr(model.trees[0]) == f"<Tree of {len(model.trees[0].nodes)} nodes, output 0, weight 1.0>"
    assert repr(replace(model, meta={})) == f"<Model: 60 trees, {nodes} nodes, 4 features, predicting 3 classes ('y')>"
    again = treegen.import_model("examples/boosting/xgboost.json")
    assert again == model and again is not model
    assert replace(again, trees=again.trees[:-1]) != model
    one = replace(model, trees=model.trees[:1], features=model.features[:1], target=replace(model.target, classes=("a",)))
    assert repr(one).endswith(f": 1 tree, {len(model.trees[0].nodes)} nodes, 1 feature, predicting 1 class ('y')>")


def test_every_model_in_the_format_doc_loads():
    """docs/model-format.md's JSON examples of a whole model (its "format" says so) load, and predict as they read."""
    doc = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "model-format.md")
    blocks = re.findall(r"```json\n(.*?)```", open(doc, encoding="utf-8").read(), re.DOTALL)
    models = [modelio.loads(block, "docs/model-format.md") for block in blocks if '"treegen-model"' in block]
    assert models
    example = models[0]
    assert [example.predict({"outlook": "sunny", "humidity": h}) for h in (70.0, 80.0, None)] == ["yes", "no", "no"]
    assert example.predict({"outlook": "overcast"}) == "yes" and example.scores({"outlook": None}) == [0.357, 0.643]


def test_a_row_with_a_misspelt_feature_name_is_refused():
    """A feature a row lacks is read as missing, so a key spelt almost as that feature ('humidty', 'Humidity')
    took the missing route without a word (the tennis tree answered 'no' where 'humidity' gives 'yes'). Keys
    that are like no absent feature (an id) are left alone, as is a row that lacks a feature and nothing else."""
    model = _tennis()
    assert model.predict({"outlook": "sunny", "humidity": "normal"}) == "yes"
    for key in ("humidty", "Humidity", "humidity "):
        with pytest.raises(TreegenError, match=f"the row has {key!r}, which is no feature's name, and lacks "
                                               "'humidity': did you mean 'humidity'"):
            model.predict({"outlook": "sunny", key: "normal"})
        with pytest.raises(TreegenError, match="did you mean 'humidity'"):
            model.scores({"outlook": "sunny", key: "normal"})
    assert model.predict({"outlook": "sunny", "humidity": "normal", "id": 3, "humid": "x"}) == "yes"
    assert model.predict({"outlook": "sunny", "id": 3}) == model.predict({"outlook": "sunny"}) == "no"


def test_a_row_that_names_no_feature_is_refused():
    """A row that names none of the model's features was answered as a row of missing values without a word:
    {}, or a table's raw columns given to the last step of a pipeline whose features are 'x0', 'x1'. It is
    refused, naming a few of the row's keys (by their text, sorted) and of the features; a row naming only a
    feature no split reads, or giving a feature as None, is a row of this model, and a model that has no
    feature takes {}."""
    model = _tennis()
    start = "the row names none of the model's features ('outlook', 'temperature', 'humidity', ...); "
    end = " (a feature a row lacks is read as missing: give each as None to mean so)"
    for row, keys in [({}, "it has no keys"), ({"x0": 1.0}, "its keys: 'x0'"),
                      ({"salary": 9e4, 3: "a", "age": 70, "town": "Paris"}, "its keys: '3', 'age', 'salary', ...")]:
        for predict in (model.predict, model.scores):
            with pytest.raises(TreegenError) as refused:
                predict(row)
            assert isinstance(refused.value, ValueError) and str(refused.value) == start + keys + end
    from treegen.model import Feature, Model, Node, Tree
    missing = model.predict({"outlook": None})
    assert model.predict({"outlook": None, "id": 3}) == missing
    unused = replace(model, features=[*model.features, Feature("id", NUMERIC_KIND)])
    assert unused.predict({"id": 3.0}) == unused.predict({"id": 3.0, "x0": 1.0}) == missing
    constant = Model((), model.target, [Tree([Node((0.25, 0.75))])])
    assert constant.predict({}) == constant.predict({"x0": 1.0}) == model.target.classes[1]


def _edits(a: str, b: str) -> int:
    """The optimal string alignment distance: edits of one character, and swaps of two neighbours."""
    d = [[i + j if not i or not j else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i, j in itertools.product(range(1, len(a) + 1), range(1, len(b) + 1)):
        d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]))
        if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
            d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[-1][-1]


def test_spelt_almost_is_one_edit_or_the_case():
    """The rule every target's row API applies, written out in each runtime: against the edit distance."""
    rng = random.Random(5)
    for _ in range(20000):
        name = "".join(rng.choice("abC") for _ in range(rng.randint(0, 6)))
        i = rng.randint(0, len(name))
        key = rng.choice(["".join(rng.choice("aBc") for _ in range(rng.randint(0, 6))),  # anything
                          name[:i] + rng.choice(["", "a", "B"]) + name[i + rng.randint(0, 1):],  # one edit or none
                          name[:i] + name[i + 1:i + 2] + name[i:i + 1] + name[i + 2:]])  # a swap
        want = key.lower() == name.lower() or (len(name) >= 3 and _edits(key.lower(), name.lower()) <= 1)
        assert spelt_almost(key, name) == want, (key, name)



def test_predict_proba_is_the_scores_of_a_classifier():
    """A notebook user reached for model.predict_proba (the generated programs' and scikit-learn's name) and
    found scores; a regression model has no probabilities and says so."""
    model = random_model(5, max_depth=4)
    for row in random_rows(model, 50, 1):
        assert model.predict_proba(row) == model.scores(row) and len(model.predict_proba(row)) == 3
    regression = random_model(5, regression=True)
    with pytest.raises(TreegenError, match="^predict_proba: a regression model predicts a value"):
        regression.predict_proba(random_rows(regression, 1, 1)[0])


def _three_feature_model():
    """x <= 0 -> 'a'; else y <= 1 -> 'b', else c in {'u'} -> 'a', 'b' otherwise; z is read by no split."""
    from treegen.model import (CLASSIFICATION, NOMINAL, NUMERIC, Feature, Model, Node, Op, Split, Target,
                               Tree)
    leaf = {label: Node((1.0, 0.0) if label == "a" else (0.0, 1.0), n=1.0) for label in "ab"}
    nodes = [Node((0.5, 0.5), split=Split(0, Op.LE, threshold=0.0), children=(1, 2)), leaf["a"],
             Node((0.5, 0.5), split=Split(1, Op.LE, threshold=1.0), children=(3, 4)), leaf["b"],
             Node((0.5, 0.5), split=Split(2, Op.IN, values=("u",)), children=(5, 6)), leaf["a"], leaf["b"]]
    features = (Feature("x", NUMERIC), Feature("y", NUMERIC), Feature("c", NOMINAL, ("u", "v")), Feature("z", NUMERIC))
    return Model(features, Target("t", CLASSIFICATION, ("a", "b")), [Tree(nodes)])


@pytest.mark.parametrize("feature, value", [
    ("y", 1 + 2j), ("y", [4.9]), ("y", (4.9,)), ("y", object()), ("y", __import__("datetime").timedelta(1)),
    ("y", __import__("datetime").datetime(2020, 1, 1)), ("y", np.array([1.0])), ("y", " 1"), ("c", ["u"]),
    ("c", {"u"}), ("y", __import__("decimal").Decimal("sNaN")), ("y", __import__("fractions").Fraction(10 ** 400, 3))])
def test_a_value_a_split_reads_is_refused_wherever_the_walk_goes(feature, value):
    """A value that a feature some split reads cannot take (a complex number, a date, many values...) is
    refused by model.predict, predict_proba and scores although this row's walk ends before that split, as
    treegen.predict refuses it (README: whichever way the row's walk goes); a feature no split reads is
    not read, as the generated APIs do not read it."""
    import treegen
    model = _three_feature_model()
    row = {"x": -1.0, "y": 0.0, "c": "u", "z": 0.0}
    assert model.predict(row) == "a"
    bad = {**row, feature: value}
    with pytest.raises(TreegenError):  # (many values in a table's cell: an InputError of the column)
        treegen.predict(model, [bad])
    for read in (model.predict, model.predict_proba, model.scores):
        with pytest.raises(TreegenError, match=f"^feature {feature!r}: "):
            read(bad)
    assert model.predict({**row, "z": value}) == "a"  # (as the generated APIs; treegen.predict refuses many values)
    for fine in (np.float32(0.5), np.int64(0), True, "1e0", None, float("nan"), __import__("decimal").Decimal("0.5")):
        assert model.predict({**row, "y": fine}) == treegen.predict(model, [{**row, "y": fine}])[0] == "a"


@pytest.mark.parametrize("edit,where", [
    # a threshold written twice: json keeps the last, 10 for 75, and every prediction under it changes
    (lambda text: re.sub(r'("threshold": [^,}]+)', r'\1, "threshold": 10.0', text, count=1),
     r"trees\[0\]\.nodes\[\d+\]\.split: duplicate key 'threshold'"),
    (lambda text: text.replace('"version": 1', '"version": 1, "version": 1', 1), "duplicate key 'version'"),
    (lambda text: text.replace('"meta": {', '"meta": {"a": 1, "a": 2, ', 1), r"meta: duplicate key 'a'"),
])
def test_a_key_written_twice_in_an_object_is_refused_with_its_path(edit, where):
    text = json.dumps(_c45_missing_doc())
    edited = edit(text)
    assert edited != text and json.loads(edited)  # json itself reads it, the last copy winning
    with pytest.raises(TreegenError, match=rf"^m\.json: {where} \(JSON readers differ on which copy they keep\)$"):
        modelio.loads(edited, "m.json")


def test_a_split_of_many_categories_is_walked_in_memory_of_the_trees_size():
    """The vectorised walk held each node's children, and each nominal split's child for each category, in rows as
    wide as the widest split: an ID3 tree of one attribute of 10,000 values took 7 GB to give its training accuracy.
    Each is now a run of one flat array: the same answers as the model's own walk of each row."""
    import tracemalloc

    from treegen.model import CLASSIFICATION, NOMINAL, Feature, Model, Node, Op, Split, Target, Tree
    width, rng = 3000, np.random.default_rng(0)
    wide = Feature("a", NOMINAL, tuple(f"v{i}" for i in range(width)))
    narrow = Feature("b", NOMINAL, ("x", "y"))
    # the root splits on the wide feature, each child on the narrow one: 1 + 3,000 + 6,000 nodes
    nodes = [Node((0.0, 0.0), split=Split(0, Op.EQ, values=wide.categories), children=tuple(range(1, width + 1)))]
    nodes += [Node((0.0, 0.0), split=Split(1, Op.EQ, values=narrow.categories),
                   children=(width + 1 + 2 * i, width + 2 + 2 * i)) for i in range(width)]
    nodes += [Node((float(i % 2), float(1 - i % 2)), n=1.0) for i in range(2 * width)]
    model = Model((wide, narrow), Target("y", CLASSIFICATION, ("p", "q")), [Tree(nodes)])
    rows = [{"a": f"v{rng.integers(width)}", "b": "xy"[rng.integers(2)]} for _ in range(500)]
    rows += [{"a": "unseen", "b": "x"}, {"a": None, "b": "y"}]
    tracemalloc.start()
    try:
        answers = predict_rows(model, rows)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [label for label, _ in answers] == [model.predict(row) for row in rows]
    assert peak < 20_000_000, peak  # (before: 577 MB, two tables of 9,001 x 3,000 int64 and what indexing them made)


@pytest.mark.parametrize("regression,n_trees", [(False, 1), (False, 3), (True, 1), (True, 3)])
def test_rows_decided_at_once_are_model_decided_row_by_row(regression, n_trees):
    """A tree's or a forest's label for every row at once (np.argmax) is Model.decided's: the first highest score,
    the first NaN over any number, -0.0 tying 0.0, infinities; a regression's value its first sum."""
    from treegen.walk import decided_rows
    model = random_model(5, regression=regression, n_trees=n_trees, classes=None if regression else ("a", "b", "c"))
    width = model.target.width
    rng = np.random.default_rng(0)
    choices = np.array([0.0, -0.0, 0.25, 0.5, 1.0, np.nan, np.inf, -np.inf])
    sums = choices[rng.integers(0, len(choices), size=(2000, width))]
    shown = lambda decided: [repr(answer) for answer in decided]  # (a NaN equals no NaN but itself)
    assert shown(decided_rows(model, sums)) == shown(model.decided(row) for row in sums.tolist())
