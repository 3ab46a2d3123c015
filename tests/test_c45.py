"""C4.5 against Weka's J48: the same tree, printed the same, predicting the same.

The fixtures in tests/fixtures/j48/ are J48 3.6's own output (regenerate with make_fixtures.sh):
NAME.VARIANT.tree is its printed tree, NAME.VARIANT.pred its predictions on the training set
(``-p 0 -distribution``). The "nomdl" variant is J48 -J, which only Weka 3.7+ has (3.9.7's output).
"""
from __future__ import annotations

import inspect
import json
import math
import re
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from treegen import modelio
from treegen.data import Dataset, load_dataset, read_table, rows_for_model
from treegen.errors import TreegenError
from treegen.learn import c45_order, c45_split, criteria, fit
from treegen.learn.c45_rep import JavaRandom
from treegen.learn.c45_split import first_better, gr, move_to_training_value
from treegen.learn.j48_text import decimal_format_double_to_string, j48_text, java_double, weka_double_to_string
from treegen.model import CLASSIFICATION, NOMINAL, NUMERIC, Feature, Target, weka_argmax
from treegen.targets import RUNNABLE
from treegen.testing import chain_model
from treegen.verifier import verify

FIXTURES = Path(__file__).parent / "fixtures" / "j48"
DATASETS = sorted(p.name[: -len(".default.tree")] for p in FIXTURES.glob("*.default.tree"))
VARIANTS = {  # fixture name -> fit() parameters (the J48 options are in make_fixtures.sh)
    "default": {},
    "unpruned": {"unpruned": True},
    "c10m5": {"confidence": 0.1, "min_leaf": 5},
    "noraise": {"subtree_raising": False},
    "rep": {"reduced_error": True, "folds": 3, "seed": 1},
    "binary": {"binary_splits": True},
    "laplace": {"laplace": True},
    "nomdl": {"mdl_correction": False},
}
# Weka 3.7+ (the only J48 with -J) differs from 3.6 beyond -J on these: it moves a threshold to a
# training value without 3.6's 1e-6 tolerance (segment-*: values 1e-6 apart), and diabetes' tree
# differs from 3.6's without -J too. Only threshold lines differ (test_weka37_differs_only_in_thresholds).
WEKA37_DIFFERS = {"diabetes", "segment-challenge", "segment-test"}
CASES = [(name, variant) for name in DATASETS for variant in VARIANTS
         if not (variant == "nomdl" and name in WEKA37_DIFFERS)]
CORNERS = ["dates", "escapes", "weights", "missing-class", "missing-class-split-point"]  # ARFF's corners


@lru_cache(maxsize=None)
def dataset(name: str) -> Dataset:
    return load_dataset(str(FIXTURES / f"{name}.arff"))


@lru_cache(maxsize=None)
def trained(name: str, variant: str):
    return fit(dataset(name), "c45", **VARIANTS[variant])


def j48_predictions(path: Path) -> list[tuple[int, list[float]]]:
    """(predicted class index, class distribution) per row of J48's ``-p 0 -distribution`` output.
    A row ends in its distribution, one cell starred; labels may hold line breaks (escapes), so
    rows are found by their distributions."""
    out = []
    for match in re.finditer(r"(?<=\s)((?:[0-9.]+,)*\*[0-9.]+(?:,[0-9.]+)*) *$", path.read_text(encoding="utf-8"),
                             re.MULTILINE):
        fields = match.group(1).split(",")
        predicted = next(i for i, f in enumerate(fields) if f.startswith("*"))
        out.append((predicted, [float(f.lstrip("*")) for f in fields]))
    return out


def j48_printed_distributions(path: Path) -> list[list[str]]:
    """Each row's class distribution as J48's ``-p 0 -distribution`` prints it (3 decimals)."""
    return [match.group(1).replace("*", "").split(",") for match in re.finditer(
        r"(?<=\s)((?:[0-9.]+,)*\*[0-9.]+(?:,[0-9.]+)*) *$", path.read_text(encoding="utf-8"), re.MULTILINE)]


def all_rows(name: str, model) -> list[dict]:
    """Every row of the file, those without a class too: J48 -p 0 predicts them all."""
    return rows_for_model(read_table(str(FIXTURES / f"{name}.arff")), model)


def test_the_fixtures_cover_the_required_data_sets():
    required = {"weather.nominal", "weather.numeric", "iris", "labor", "contact-lenses", "vote", "soybean",
                "breast-cancer", "credit-g", "diabetes", "glass", "segment-challenge", *CORNERS}
    assert required <= set(DATASETS)
    assert all((FIXTURES / f"{name}.{variant}.tree").exists() for name, variant in CASES)


@pytest.mark.parametrize("name,variant", CASES)
def test_tree_text_is_byte_identical_to_j48(name, variant):
    expected = (FIXTURES / f"{name}.{variant}.tree").read_text(encoding="utf-8")
    weka37 = decimal_format_double_to_string if variant == "nomdl" else None  # how 3.7+ prints thresholds
    assert j48_text(trained(name, variant), double_to_string=weka37) == expected


@pytest.mark.parametrize("name,variant", CASES)
def test_training_set_predictions_match_j48(name, variant):
    model = trained(name, variant)
    expected = j48_predictions(FIXTURES / f"{name}.{variant}.pred")
    rows = all_rows(name, model)
    assert len(expected) == len(rows)
    # (J48 -A prints smoothed probabilities but labels a row by the unsmoothed ones: the model's
    # label values, so the -A model itself labels as J48 does)
    for row, (predicted, distribution) in zip(rows, expected):
        scores = model.scores(row)
        assert model.predict(row) == model.target.classes[predicted]
        assert scores == pytest.approx(distribution, abs=5.1e-4)  # J48 prints 3 decimals


@pytest.mark.parametrize("name,variant", [c for c in CASES if c[1] != "nomdl"])
def test_printed_distributions_are_j48s_to_the_last_digit(name, variant):
    """Each row's distribution prints as J48 prints it, a probability that ends in 5 at the third
    decimal too: a leaf adds its fractional weights in the row order J48's quicksort leaves them in
    (summed in data order, random681 printed another last digit on 25 of its 80 rows under four of
    the option sets, random970 on 7)."""
    model = trained(name, variant)
    printed = j48_printed_distributions(FIXTURES / f"{name}.{variant}.pred")
    ours = [[weka_double_to_string(p, 3) for p in model.scores(row)] for row in all_rows(name, model)]
    assert ours == printed


@pytest.mark.parametrize("by_levels", [False, True])
def test_rows_are_reordered_as_wekas_quicksort_reorders_them(by_levels, monkeypatch):
    """``weka_sort`` is the permutation Weka 3.6's ``Instances.sort`` makes (weka-sort.txt, made by
    WekaSort.java: 200 random cases, ties and missing values abound), in Python and level by level."""
    monkeypatch.setattr(c45_order, "BY_LEVELS", 2 if by_levels else sys.maxsize)
    for line in (FIXTURES / "weka-sort.txt").read_text(encoding="utf-8").splitlines():
        values, order = line.split("\t")
        keys = np.array([math.nan if v == "?" else float(v) for v in values.split()])
        assert c45_order.weka_sort(keys).tolist() == [int(i) for i in order.split()]


@pytest.mark.parametrize("shared_block, block", [(16_384, 100_000), (300, 250)])
def test_nodes_searched_together_find_the_cuts_each_finds_alone(shared_block, block, monkeypatch):
    """The numeric search pads each node's rows to the longest of those searched with it (and, with
    small blocks, splits a node's attributes and the nodes over several searches): the cuts, gains
    and ratios are each node's own, to the last bit, with missing values and fractional weights."""
    rng = np.random.default_rng(7)
    n_rows, n_features = 400, 4
    columns = rng.normal(size=(n_features, n_rows)).round(1)  # ties
    columns[rng.random(columns.shape) < 0.1] = np.nan
    y = np.digitize(np.nan_to_num(columns[0] - columns[1]) + rng.normal(0, 0.5, n_rows), [-0.5, 0.5])
    nodes = []
    for size in (3, 40, 7, 150, 60):
        idx = rng.choice(n_rows, size=size, replace=False)
        w = np.where(rng.random(size) < 0.3, rng.random(size), 1.0)
        keys = np.where(np.isnan(columns[:, idx]), np.inf, columns[:, idx])
        nodes.append((idx, y[idx], w, c45_split.seq_sum(w), np.argsort(keys, axis=1, kind="stable")))
    nodes.append((nodes[3][0], nodes[3][1], nodes[3][2], nodes[3][3], None))  # sorted by the search
    search = [list(range(n_features)), columns, 3, 2.0]
    alone = [c45_split.numeric_candidates(*search[:2], [node], *search[2:])[0] for node in nodes]
    monkeypatch.setattr(c45_split, "SHARED_BLOCK", shared_block)
    monkeypatch.setattr(c45_split, "BLOCK", block)
    together = c45_split.numeric_candidates(*search[:2], nodes, *search[2:])
    assert sum(c is not None for found in alone for c in found) >= 10
    assert together == alone


def test_labels_on_ties_are_j48s():
    """Where two classes' probabilities are one rounding apart, J48 labels by the first class unless
    another beats it by more than 1e-6; so do the model and every target (verify runs them)."""
    model = fit(dataset("ties"), "c45", min_leaf=1)
    assert j48_text(model) == (FIXTURES / "ties.M1.tree").read_text(encoding="utf-8")
    rows = all_rows("ties", model)
    expected = j48_predictions(FIXTURES / "ties.M1.pred")
    assert model.scores(rows[1]) == [0.49999999999999994, 0.5]  # the tie: J48 computes the same bits
    assert [model.predict(row) for row in rows] == [model.target.classes[p] for p, _ in expected]
    results = verify(model, None, RUNNABLE, dialects=("sqlite", "duckdb"))
    assert [(r.target, r.error, r.mismatches) for r in results if not r.ok] == []


def test_distributions_are_j48s_where_missing_values_spread_a_row_down_several_levels():
    """J48 multiplies a path's fractional weights root first and adds each node's children as the
    tree nests (ClassifierTree.getProbs). Multiplied per feature and added flat in node order, rows 3
    and 37 of random2014 printed 0.138 where J48 prints 0.137. Every target labels these rows as the
    model does (verify; each target's own tests hold its sums to the model's bits)."""
    model = fit(dataset("random2014"), "c45", min_leaf=1)
    assert j48_text(model) == (FIXTURES / "random2014.M1.tree").read_text(encoding="utf-8")
    expected = j48_printed_distributions(FIXTURES / "random2014.M1.pred")
    rows = all_rows("random2014", model)
    assert [[weka_double_to_string(p, 3) for p in model.scores(row)] for row in rows] == expected
    assert expected[2] == ["0.138", "0.137", "0.225", "0.5"]
    results = verify(model, str(FIXTURES / "random2014.arff"), RUNNABLE, dialects=("sqlite", "duckdb"))
    assert [(r.target, r.error, r.mismatches) for r in results if not r.ok] == []


@pytest.mark.parametrize("name", ["infinity-after-missing", "max-value-after-missing"])
def test_values_sorted_after_the_missing_ones_count_as_j48_counts_them(name):
    """Weka 3.6's ``Instances.sort`` sorts a missing value as Double.MAX_VALUE: +inf after it, and
    Double.MAX_VALUE where the quicksort leaves it among the ties. ``C45Split`` stops its scan of the
    sorted rows at the first missing value, so the rows after it count as unknown in the gain and
    lie in no bag of the split's distribution. Counted as known, treegen split infinity-after-missing
    where J48 keeps one leaf, and printed max-value-after-missing's leaves as 4.5 and 4.5 rows where
    J48 prints 4.8 and 3.2. The model and every target predict J48's distributions."""
    model = fit(dataset(name), "c45")
    assert j48_text(model) == (FIXTURES / f"{name}.J48.tree").read_text(encoding="utf-8")
    rows = all_rows(name, model)
    ours = [[weka_double_to_string(p, 3) for p in model.scores(row)] for row in rows]
    assert ours == j48_printed_distributions(FIXTURES / f"{name}.J48.pred")
    results = verify(model, str(FIXTURES / f"{name}.arff"), RUNNABLE, dialects=("sqlite", "duckdb"))
    assert [(r.target, r.error, r.mismatches) for r in results if not r.ok] == []


def test_a_split_that_sends_every_known_row_one_way_repeats_as_j48_repeats_it():
    """J48 splits x0 at -Double.MAX_VALUE, which sends -inf and -Double.MAX_VALUE left, and again
    in that child: the rows missing x0 reach it with less weight (the share the cut gave the left
    branch), so its choice can change a few levels down, as it does here (x1, pruned away). treegen
    made the first such split a leaf, as it still does where J48 would repeat it without end
    (test_a_split_that_sends_every_row_one_way_leaves_a_leaf)."""
    model = fit(dataset("repeated-split"), "c45")
    assert j48_text(model) == (FIXTURES / "repeated-split.J48.tree").read_text(encoding="utf-8")
    rows = all_rows("repeated-split", model)
    ours = [[weka_double_to_string(p, 3) for p in model.scores(row)] for row in rows]
    assert ours == j48_printed_distributions(FIXTURES / "repeated-split.J48.pred")
    unpruned = j48_text(fit(dataset("repeated-split"), "c45", unpruned=True))
    assert "|   |   x0 <= -1.7976931348623157E308\n|   |   |   x1 <= 4: c0 (4.02/1.76)\n" in unpruned  # J48 -U


def infinite_cases() -> list[tuple[str, str, str, dict, str]]:
    """(file name, ARFF text, J48's options, fit() parameters, J48's tree) of each tree in
    infinite.cases (made by fuzz_against_j48.py --pin: see its ``pin``)."""
    parts = re.split(r"^@@@ (.*)\n", (FIXTURES / "infinite.cases").read_text(encoding="utf-8"), flags=re.MULTILINE)
    cases, name, text = [], "", ""
    for header, body in zip(parts[1::2], parts[2::2]):
        if header.startswith("file "):
            name, text = header[len("file "):], body
        else:
            options, params = header.split("\t")
            cases.append((name, text, options, json.loads(params), body))
    return cases


@pytest.mark.parametrize("name,text,options,params,expected", infinite_cases(),
                         ids=[f"{c[0]} {c[2]}" for c in infinite_cases()])
def test_trees_of_files_mixing_infinities_and_missing_values_are_j48s(tmp_path, name, text, options, params,
                                                                         expected):
    """40 small random files mixing +-Infinity, +-Double.MAX_VALUE, missing and ordinary values, each
    under two of J48's option sets (those J48 fails under left out: its stack overflows)."""
    path = tmp_path / f"{name}.arff"
    path.write_text(text, encoding="utf-8")
    assert j48_text(fit(load_dataset(str(path)), "c45", **params)) == expected


def test_laplace_labels_are_j48s():
    """J48 -A reports the smoothed probabilities but labels a row by the unsmoothed ones summed over
    the leaves it reaches: on 10 rows of laplace-ties (those missing x2) the two pick different
    classes. The model carries both (leaves' label values); it and every target label as J48 does."""
    model = fit(dataset("laplace-ties"), "c45", laplace=True)
    assert j48_text(model) == (FIXTURES / "laplace-ties.A.tree").read_text(encoding="utf-8")
    rows = all_rows("laplace-ties", model)
    expected = j48_predictions(FIXTURES / "laplace-ties.A.pred")
    assert len(expected) == len(rows) == 30
    for row, (predicted, distribution) in zip(rows, expected):
        assert model.predict(row) == model.target.classes[predicted]
        assert model.scores(row) == pytest.approx(distribution, abs=5.1e-4)  # J48 prints 3 decimals
    by_scores = [weka_argmax(model.scores(row)) for row in rows]
    assert sum(p != mine for (p, _), mine in zip(expected, by_scores)) == 10  # the smoothed sums would differ
    again = modelio.loads(modelio.dumps(model))
    assert [again.predict(row) for row in rows] == [model.predict(row) for row in rows]
    results = verify(model, str(FIXTURES / "laplace-ties.arff"), RUNNABLE, dialects=("sqlite", "duckdb"))
    assert [(r.target, r.error, r.mismatches) for r in results if not r.ok] == []
    assert {"python", "java", "javascript", "c", "rules", "sql/sqlite", "sql/duckdb"} <= {r.target for r in results}


@pytest.mark.parametrize("name", DATASETS)
def test_laplace_model_labels_rows_as_j48(name):
    """The -A model's own prediction is J48's label on every fixture (no tree without -A needed)."""
    model = trained(name, "laplace")
    expected = j48_predictions(FIXTURES / f"{name}.laplace.pred")
    assert [model.predict(row) for row in all_rows(name, model)] == [model.target.classes[p] for p, _ in expected]


def test_play_tennis_gain_ratios():
    parent = [9, 5]  # yes, no
    splits = {"outlook": [[2, 3], [4, 0], [3, 2]], "humidity": [[3, 4], [6, 1]],
              "wind": [[6, 2], [3, 3]], "temperature": [[2, 2], [4, 2], [3, 1]]}
    ratios = {name: round(float(criteria.gain_ratio(parent, counts)), 3) for name, counts in splits.items()}
    assert ratios == {"outlook": 0.156, "humidity": 0.152, "wind": 0.049, "temperature": 0.019}
    assert round(float(criteria.info_gain(parent, splits["outlook"])), 3) == 0.247
    assert round(float(criteria.entropy(parent)), 3) == 0.940


def test_fish_split_information():
    assert round(float(criteria.split_info([3, 2])), 3) == 0.971
    assert round(float(criteria.split_info([4, 1])), 3) == 0.722
    assert criteria.split_info([5, 0]) == 0.0


def test_criteria_score_many_candidate_splits_at_once():
    batch = np.array([[[2, 3], [4, 0], [3, 2]], [[3, 4], [6, 1], [0, 0]]])
    assert criteria.gain_ratio([9, 5], batch) == pytest.approx([0.15643, 0.15184], abs=1e-5)


def test_the_model_compares_numbers_as_weka_does():
    model = trained("iris", "default")
    assert model.numeric.tolerance == 1e-6
    root = model.trees[0].nodes[0]
    assert root.split.op == "<=" and root.split.threshold == 0.6  # a training value, not a midpoint
    assert model.predict({"petalwidth": 0.6 + 5e-7}) == "Iris-setosa"  # Utils.smOrEq
    assert model.predict({"petalwidth": 0.6 + 2e-6}) != "Iris-setosa"


def test_missing_and_unseen_values_are_spread_over_branches_by_training_weight():
    model = trained("vote", "default")
    root = model.trees[0].nodes[0]
    assert root.split.op == "==" and root.split.missing.kind == "fraction"
    children = [model.trees[0].nodes[c] for c in root.children]
    total = sum(c.n for c in children)
    assert root.split.missing.weights == pytest.approx([c.n / total for c in children])
    name = model.features[root.split.feature].name
    assert model.scores({name: "no such vote"}) == model.scores({name: None})


def test_empty_leaves_predict_the_parents_distribution():
    model = trained("soybean", "default")
    nodes = model.trees[0].nodes
    empty = [(parent, c) for parent in nodes for c in parent.children if nodes[c].n == 0]
    assert empty
    for parent, c in empty:
        assert nodes[c].value == pytest.approx([k / parent.n for k in parent.counts])
        assert parent.split.missing.weights[parent.children.index(c)] == 0.0


def test_leaf_values_are_training_class_frequencies_and_survive_json():
    model = trained("labor", "default")
    for node in model.trees[0].nodes:
        if node.n > 0:
            assert node.value == pytest.approx([c / node.n for c in node.counts])
    again = modelio.loads(modelio.dumps(model))
    rows = dataset("labor").rows()
    assert [again.scores(r) for r in rows] == [model.scores(r) for r in rows]


def test_a_deep_chain_prints_without_recursion():
    text = j48_text(chain_model(3_000))  # deeper than Python's recursion limit; the text grows as depth**2
    assert text.count("\n") == 2 * 3_000 + 1 + 4  # two branches per split, leading blank, totals


def test_learning_and_printing_do_not_recurse_over_tree_levels():
    """Alternating pairs of classes give a tree over 100 levels deep; growing, collapsing, pruning
    and printing it must fit in a stack only 80 frames deeper than the test's."""
    x = np.repeat(np.arange(1_201), 2).astype(np.float64)
    y = (np.arange(len(x)) // 2 % 2).astype(np.int64)
    data = Dataset((Feature("x", NUMERIC),), [x], Target("y", CLASSIFICATION, ("a", "b")), y, np.ones(len(x)))
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 80)
    try:
        deep = fit(data, "c45", unpruned=True, mdl_correction=False, min_leaf=1)
        pruned = fit(data, "c45", mdl_correction=False, min_leaf=1)
        j48_text(deep)
    finally:
        sys.setrecursionlimit(limit)
    assert deep.trees[0].depth() > 100
    assert all(deep.predict({"x": float(v)}) == "ab"[k] for v, k in zip(x, y))
    assert len(pruned.trees[0].nodes) <= len(deep.trees[0].nodes)


def test_java_random_reproduces_java_util_random():
    random = JavaRandom(1)  # new java.util.Random(1).nextInt(10) x 5, nextInt(16), nextInt(1000)
    assert [random.next_int(10) for _ in range(5)] + [random.next_int(16), random.next_int(1000)] == \
        [5, 8, 7, 3, 4, 0, 434]  # printed by Java 17


def test_options_that_make_no_sense_are_user_errors():
    data = dataset("iris")
    with pytest.raises(TreegenError):
        fit(data, "c45", confidence=0.9)
    with pytest.raises(TreegenError):
        fit(data, "c45", reduced_error=True, folds=1)
    with pytest.raises(TreegenError):  # J48 refuses -R -U too
        fit(data, "c45", reduced_error=True, unpruned=True)
    regression = Dataset(data.features, data.columns, Target("y", "regression"), data.columns[0], data.weights)
    with pytest.raises(TreegenError):
        fit(regression, "c45")


@pytest.mark.parametrize("value,text", [(0.6, "0.6"), (2.5, "2.5"), (115.0, "115"), (-4.777777777, "-4.777778"),
                                        (0.8333345, "0.833335"), (0.0, "0"), (-0.0000004, "0"),
                                        (-0.25, "-0.25"), (1e-7, "0"), (123456.0000004, "123456")])
def test_weka_number_format(value, text):
    assert weka_double_to_string(value, 6) == text


@pytest.mark.parametrize("value,text", [(0.0, "0.0"), (10.77, "10.77"), (82.5, "82.5"), (1e7, "1.0E7"),
                                        (0.00099, "9.9E-4"), (123456789.0, "1.23456789E8"), (-2.5, "-2.5"),
                                        (0.1 + 0.2, "0.30000000000000004")])
def test_java_double_to_string(value, text):  # as printed by Java 17's Double.toString
    assert java_double(value) == text


def test_other_models_print_in_j48_style():
    from treegen.testing import random_model
    for seed in range(5):
        for regression in (False, True):
            text = j48_text(random_model(seed, regression=regression))
            assert text.endswith("\n") and "Size of the tree" in text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 10, allow_nan=False), max_size=30))
def test_weka_scans_keep_the_first_candidate_better_by_more_than_1e6(gains):
    best, top = -1, 0.0
    for i, g in enumerate(gains):  # Weka's loop
        if gr(g, top):
            best, top = i, g
    assert first_better(np.array(gains)) == best


def nominal_data(rows: list[tuple[str, str, str]]) -> Dataset:
    features = (Feature("a", NOMINAL, ("p", "q", "r")), Feature("b", NOMINAL, ("s", "t")))
    columns = [np.array([features[j].categories.index(r[j]) if r[j] else -1 for r in rows]) for j in range(2)]
    y = np.array([("yes", "no").index(r[2]) for r in rows])
    return Dataset(features, columns, Target("c", CLASSIFICATION, ("yes", "no")), y, np.ones(len(rows)))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["p", "q", "r", ""]), st.sampled_from(["s", "t", ""]),
                          st.sampled_from(["yes", "no"])), min_size=1, max_size=40))
def test_any_small_nominal_data_gives_a_consistent_model(rows):
    model = fit(nominal_data(rows), "c45")
    nodes = model.trees[0].nodes
    assert nodes[0].n == pytest.approx(len(rows))
    for node in nodes:
        if not node.is_leaf:
            assert sum(nodes[c].n for c in node.children) == pytest.approx(node.n)
            assert sum(node.split.missing.weights) <= 1 + 1e-9
    for row in nominal_data(rows).rows():
        assert math.fsum(model.scores(row)) == pytest.approx(1.0) or math.fsum(model.scores(row)) == 0.0
    assert j48_text(model).endswith(f"Size of the tree : \t{len(nodes)}\n")


def test_j48_style_refuses_an_ensemble():
    """J48's layout holds one tree: an ensemble is one clear error, not its first tree alone."""
    from treegen.errors import TreegenError
    from treegen.learn.j48_text import j48_text
    from treegen.testing import random_model
    with pytest.raises(TreegenError, match="this model has 3"):
        j48_text(random_model(1, n_trees=3))


def test_dates_are_numeric_features_and_the_model_keeps_their_formats():
    model = trained("dates", "default")
    stamp = model.features[0]
    assert stamp.is_numeric and model.meta["dates"]["stamp"] == "yyyy-MM-dd'T'HH:mm:ss"
    assert model.meta["dates"]["day"] == "dd/MM/yyyy HH:mm"
    root = model.trees[0].nodes[0]
    assert root.split.feature == 0 and root.split.threshold == -241315939000.0  # 1962-05-09T22:27:41Z
    again = modelio.loads(modelio.dumps(model))
    assert again.meta["dates"] == model.meta["dates"]


def test_rows_without_a_class_count_where_j48_counts_them():
    """missing-class: 8 rows with a class, 10 without. J48 counts all 18 in its 0.3 x rows test, so
    the 5-valued attribute takes part in the average gain; counting 8, it would split on x."""
    data = dataset("missing-class")
    assert len(data) == 8 and len(data.all_columns[0]) == 18
    assert fit(data, "c45").trees[0].nodes[0].is_leaf
    split_point = fit(dataset("missing-class-split-point"), "c45").trees[0].nodes[0].split
    assert split_point.threshold == 7.0  # a value of a row without a class: the nearest labeled one is 6


def test_instance_weights_are_the_rows_weights():
    data = dataset("weights")
    assert sorted(set(data.weights)) == [0.5, 1.0, 1.25, 2.0, 3.5]
    root = trained("weights", "default").trees[0].nodes[0]
    assert root.n == pytest.approx(float(data.weights.sum()))


def test_binary_splits_are_one_value_against_the_others():
    model = trained("weather.nominal", "binary")
    root = model.trees[0].nodes[0]
    assert root.split.op == "in" and root.split.values == ("overcast",)
    assert model.predict({"outlook": "overcast", "humidity": "high"}) == "yes"
    assert model.meta["params"]["binary_splits"] is True


def test_laplace_smooths_leaf_values_only():
    plain, smoothed = trained("contact-lenses", "default"), trained("contact-lenses", "laplace")
    assert j48_text(plain) == j48_text(smoothed)
    k = len(plain.target.classes)
    for node in smoothed.trees[0].nodes:
        if node.is_leaf and node.n > 0:
            assert node.value == pytest.approx([(c + 1) / (node.n + k) for c in node.counts])


@pytest.mark.parametrize("flags,variant", [(["--binary-splits"], "binary"), (["--laplace"], "laplace"),
                                           (["--no-mdl-correction"], "nomdl")])
def test_cli_options_give_j48s_tree(flags, variant):
    from click.testing import CliRunner
    from treegen.cli import main
    runner = CliRunner()
    model = runner.invoke(main, ["train", str(FIXTURES / "glass.arff"), *flags], catch_exceptions=False).stdout
    params = modelio.loads(model).meta["params"]
    assert params == {**params, **VARIANTS[variant]}
    style = ["--style", "j48"]
    shown = runner.invoke(main, ["show", "-", *style], input=model, catch_exceptions=False).output
    if variant != "nomdl":  # 3.7+ prints thresholds its own way; the tree test above compares them
        assert shown.endswith((FIXTURES / f"glass.{variant}.tree").read_text())
    help_text = runner.invoke(main, ["train", "--help"]).output
    assert all(flag in help_text for flag in ("--binary-splits", "--laplace", "--no-mdl-correction"))


@pytest.mark.parametrize("name", sorted(WEKA37_DIFFERS))
def test_weka37_differs_only_in_thresholds(name):
    """Where the -J fixture (Weka 3.9.7) is not compared line for line, the trees have the same
    shape, leaves and counts: only a threshold's digits differ."""
    expected = (FIXTURES / f"{name}.nomdl.tree").read_text().splitlines()
    got = j48_text(trained(name, "nomdl"), double_to_string=decimal_format_double_to_string).splitlines()
    number = re.compile(r"(<=|>) -?[0-9.E-]+")
    assert [number.sub(r"\1 t", line) for line in expected] == [number.sub(r"\1 t", line) for line in got]
    assert expected != got


def j48_text_learned_apart(tmp_path, rows) -> str:
    """J48's text of the C4.5 tree of ``rows`` (x, class), learned in a subprocess that must end
    within a minute (the learner has looped forever on such data), numpy's warnings errors."""
    path = tmp_path / "data.csv"
    path.write_text("x,y\n" + "".join(f"{x!r},{y}\n" for x, y in rows))
    code = ("import sys; from treegen.data import load_dataset; from treegen.learn import fit; "
            "from treegen.learn.j48_text import j48_text; print(j48_text(fit(load_dataset(sys.argv[1]), 'c45')))")
    done = subprocess.run([sys.executable, "-W", "error", "-c", code, str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_values_whose_sum_overflows_are_split_between_their_halves(tmp_path):
    """(1.5e308 + 1.6e308) / 2 is infinite: J48 moves that threshold to the largest value, sends every
    row left and recurses until its stack overflows. treegen adds the halves there (1.55e308, moved
    to the training value 1.5e308), without a warning."""
    xs = [1e308, 1.797e308, 1.5e308, -1e308, 1.2e308, 1.6e308, -1.5e308, 1.7e308, 0.0, 1.79e308]
    text = j48_text_learned_apart(tmp_path, zip(xs, "abababab" + "ab"))
    assert "\nx <= 1.5E308: a (6.0/1.0)\nx > 1.5E308: b (4.0)\n" in text


def test_values_whose_difference_overflows_move_the_threshold_without_a_warning(tmp_path):
    """Moving the threshold to a training value subtracts neighbours: 1e308 - -1e308 is inf, as in Java,
    where numpy printed 'RuntimeWarning: overflow encountered in scalar subtract' on train's stderr."""
    text = j48_text_learned_apart(tmp_path, zip([1e308, 1e308, 1.7e308, 1.7e308, -1e308], "aabba"))
    assert "\nx <= 1.0E308: a (3.0)\nx > 1.0E308: b (2.0)\n" in text


@pytest.mark.parametrize("low,high", [(-math.inf, math.inf), (-math.inf, 5.0), (1.0, math.inf)])
def test_infinite_values_split_where_j48_splits_them(tmp_path, low, high):
    """J48 3.6.14 (java -cp weka.jar weka.classifiers.trees.J48 -no-cv): -inf + inf is NaN, below
    which no value lies, and no value below -Double.MAX_VALUE can be a split point: both give
    -Double.MAX_VALUE; x + inf is inf, the upper value, so the lower one is taken."""
    rows = [(low - k, "a") if math.isinf(low) else (low + k, "a") for k in range(3)]
    rows += [(high + k, "b") for k in range(3)]
    threshold = "-1.7976931348623157E308" if math.isinf(low) else "3"
    assert f"\nx <= {threshold}: a (3.0)\nx > {threshold}: b (3.0)\n" in j48_text_learned_apart(tmp_path, rows)


def test_a_split_that_sends_every_row_one_way_leaves_a_leaf(tmp_path):
    """-inf and -Double.MAX_VALUE both go left of J48's threshold -Double.MAX_VALUE: J48 would split
    the same rows again and again (its stack overflows); treegen keeps the node a leaf."""
    rows = [(-math.inf, "a"), (-1.7976931348623157e308, "b")] * 3
    assert j48_text_learned_apart(tmp_path, rows).startswith(": a (6.0/3.0)\n")


def test_a_numeric_split_counts_its_rows_by_its_cut_as_j48_does(tmp_path):
    """J48 (3.6.14) cuts after -inf, moves the threshold to -Double.MAX_VALUE, routes that value
    left but counts it right, as it counted the cut: left 3.0, right 4.0."""
    rows = [(-math.inf, "a")] * 3 + [(-1.7976931348623157e308, "b")] + [(5.0, "b")] * 3
    expected = "\nx <= -1.7976931348623157E308: a (3.0)\nx > -1.7976931348623157E308: b (4.0)\n"
    assert expected in j48_text_learned_apart(tmp_path, rows)


def test_a_threshold_moved_to_zero_is_the_zero_met_first():
    """J48's setSplitPoint keeps the first training value it meets that is above the one before (by more than
    1e-6): of 0.0 and -0.0, the first in data order, which its tree text prints (``n1 <= 0.0``); treegen took the
    zero np.unique kept."""
    for first, then in ((0.0, -0.0), (-0.0, 0.0)):
        values = np.array([-1.0, first, 1.0, then, -1.0])
        moved = move_to_training_value(0.5, values, np.unique(values))
        assert moved == 0 and math.copysign(1, moved) == math.copysign(1, first)
    values = np.array([-1.0, 2.0, 1.0])
    assert move_to_training_value(1.5, values, np.unique(values)) == 1.0


def test_reduced_error_pruning_of_one_row_says_it_needs_two():
    """One row gave "needs 2 to 1 folds, not 3", a range with nothing in it."""
    one = Dataset((Feature("x", NUMERIC),), [np.array([1.0])], Target("y", "classification", ("a", "b")),
                  np.array([0]), np.ones(1))
    with pytest.raises(TreegenError, match="^reduced-error pruning needs 2 rows or more .*, not 1$"):
        fit(one, "c45", reduced_error=True)
