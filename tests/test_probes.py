"""The probes' rows aimed at splits (treegen.probes.split_rows): each split reached, its own feature either side
of its cut and missing, as many trees' splits as a budget of rows allows."""
import math
import sys

import numpy as np
import pytest

import treegen
from treegen import probes
from treegen.loading import as_model
from treegen.model import Route, child_for


@pytest.fixture(scope="module")
def boosted():
    """40 trees of depth 3 over 6 features: 265 splits, 795 rows aimed at them one split at a time."""
    from sklearn.ensemble import GradientBoostingRegressor
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 6))
    y = X[:, 0] + np.sin(3 * X[:, 1]) + X[:, 2] * X[:, 3] + 0.1 * rng.normal(size=400)
    return as_model(GradientBoostingRegressor(n_estimators=40, max_depth=3, random_state=0).fit(X, y))


def reached(model, rows):
    """(tree, node) of each split for which ``rows`` hold a row reaching it with its feature at its cut, one with
    the next number up, and one missing."""
    seen = {}
    for row in rows:
        for t, tree in enumerate(model.trees):
            node_id = 0
            while (split := tree.nodes[node_id].split) is not None:
                name = model.features[split.feature].name
                cut = model.numeric.effective_threshold(split.threshold)
                seen.setdefault((t, node_id), set()).add(
                    {cut: "cut", math.nextafter(cut, math.inf): "above", None: "missing"}.get(row[name]))
                position = child_for(model, split, row[name])
                if position is None:
                    assert split.missing.kind is Route.CHILD
                    position = split.missing.child
                node_id = tree.nodes[node_id].children[position]
    return {key for key, kinds in seen.items() if {"cut", "above", "missing"} <= kinds}


def test_the_splits_of_later_trees_share_the_rows_aimed_at_earlier_ones(boosted):
    """300 rows, 100 splits' worth one split at a time (with the others' rows, 115 of the 265 splits were reached
    with all three values so), reach 214: a row reaches one split of each tree, so a later tree's split joins rows
    aimed at an earlier tree's where their paths agree. Every tree has splits reached; the budget holds."""
    rows = probes.split_rows(boosted, 300)
    assert len(rows) <= 300
    assert all(set(row) == {f.name for f in boosted.features} for row in rows)
    splits = reached(boosted, rows)
    assert len(splits) > 200, len(splits)
    assert {t for t, _ in splits} == set(range(40))


def test_a_single_trees_rows_are_one_split_at_a_time():
    """A tree's splits cannot share a row (a row reaches one of them a level): each has its own rows."""
    model = treegen.train("examples/play_tennis.csv", target="play", algorithm="id3")
    rows = probes.split_rows(model, 1000)
    splits = sum(node.split is not None for node in model.trees[0].nodes)
    values = sum(len(model.features[n.split.feature].categories) + 2 for n in model.trees[0].nodes if n.split)
    assert splits > 1 and len(rows) == values


def test_a_program_wrong_at_any_split_of_the_last_trees_is_a_mismatch(boosted, tmp_path, monkeypatch):
    """Each comparison of the last two trees made strict (or not strict), one at a time, is caught when the split
    rows' budget reaches only the first trees' splits one at a time (here 100 of 265 splits; one of these 13 mutants
    passed as ok so. A 400-tree LightGBM model's 40,000 rows reached its first 215 trees' splits: 1 of 8 mutants of
    a later tree was caught, 6 of 8 now)."""
    import re
    monkeypatch.setattr(probes, "SPLIT_ROWS", 300)
    text = treegen.export(boosted, "python")
    trees = [m.start() for m in re.finditer(r"\n    while True:\n        if ", text)]
    assert len(trees) == 40
    last_two = text[trees[-2]:text.index("\n\n", trees[-1])]
    comparisons = list(re.finditer(r"x\[\d+\] (<=|>) ", last_two))
    assert len(comparisons) == 13  # (a tree of 6 splits)
    program = tmp_path / "boosted.py"
    for comparison in comparisons:
        at, strict = trees[-2] + comparison.start(1), {"<=": "<", ">": ">="}[comparison[1]]
        program.write_text(text[:at] + strict + text[at + len(comparison[1]):], encoding="utf-8")
        report = treegen.verify(boosted, None, programs=[str(program)])
        assert report.status == 1 and " MISMATCH " in str(report), (text[at - 30:at + 30], str(report))


def test_a_sample_of_probes_bounds_its_rows_aimed_at_splits(boosted):
    """``aimed`` bounds the rows aimed at splits that follow the sample (a test over an engine asks for a few):
    none at 0, at most that many otherwise, the sample itself unchanged."""
    everything = probes.probe_rows(boosted, limit=50)
    sample = probes.probe_rows(boosted, limit=50, aimed=0)
    assert everything[:len(sample)] == sample and len(everything) > len(sample) + 100
    assert len(probes.probe_rows(boosted, limit=50, aimed=20)) - len(sample) in range(1, 21)


def test_each_probe_row_is_given_once_and_a_small_product_whole():
    """A row given twice answers the same twice: a tree over one feature has its values varied alone, and each
    row aimed at one of its splits is one of them again; the demo's tree drew 400 rows of its 400 combinations with
    repeats, 255 distinct. Each row once (-0.0 and 0.0 apart), and a product no bigger than the sample whole."""
    from treegen.data import load_dataset
    from treegen.learn import fit
    from treegen.testing import chain_model
    texts = [repr(tuple(row.values())) for row in probes.probe_rows(chain_model(200))]
    assert len(texts) == len(set(texts)) and {"(0.0,)", "(-0.0,)"} <= set(texts)
    tennis = fit(load_dataset("examples/play_tennis.csv"), "c45")
    sample = probes.probe_rows(tennis, aimed=0)
    values = [{repr(row[f.name]) for row in sample} for f in tennis.features]
    assert len({repr(tuple(row.values())) for row in sample}) == len(sample) == math.prod(map(len, values)) < 2000


def test_a_cut_at_minus_infinity_is_probed_at_it_and_beside_it():
    """x <= -inf holds for -inf alone (CART cuts between -inf and the next value seen there): -inf and the largest
    finite number below zero are probed, and a row aimed at the split reaches the subtree left of it with -inf. The
    SQL wrote that branch as empty and the other as every number, and verify, probing finite cuts only, found
    every row agree."""
    from treegen.model import (CLASSIFICATION, NUMERIC, Feature, MissingRoute, Model, Node, Op, Split, Target,
                               Tree)
    cut = Split(0, Op.LE, threshold=-math.inf, missing=MissingRoute.to_child(1))
    below = Split(1, Op.LE, threshold=0.5, missing=MissingRoute.to_child(0))
    nodes = [Node((0.5, 0.5), split=cut, children=(1, 4)), Node((0.5, 0.5), split=below, children=(2, 3)),
             Node((1.0, 0.0), n=1.0), Node((0.0, 1.0), n=1.0), Node((0.5, 0.5), n=1.0)]
    model = Model((Feature("x", NUMERIC), Feature("z", NUMERIC)), Target("y", CLASSIFICATION, ("a", "b")),
                  [Tree(nodes)])
    assert {-math.inf, -sys.float_info.max} <= set(probes.boundary_values(model)[0])
    rows = probes.split_rows(model, 100)
    assert {row["x"] for row in rows} >= {-math.inf, -sys.float_info.max}
    assert any(row["x"] == -math.inf and row["z"] == math.nextafter(0.5, math.inf) for row in rows)
