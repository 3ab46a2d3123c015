"""Spark SQL walks big trees as arrays (see :mod:`treegen.emit.sql.walk`): here, trees with
C4.5's fractional routes, where a missing value spreads a row over several leaves. Every answer is
compared with the model's, bit for bit: scores, labels and leaf ids."""
from __future__ import annotations

import math
from contextlib import contextmanager

from treegen.targets import emit
from treegen.emit.sql import DIALECTS
from treegen.model import Model, has_label_values, leaf_ids, tree_output
from treegen.probes import each_once, probe_rows
from treegen.run.sql import query
from treegen.testing import (HOSTILE_NAMES, chain_model, random_model, random_rows, spark_parser_states, wide_model,
                             with_fractions)


def assert_exact(model: Model, rows, spark) -> None:
    """The walked SQL's label (or value), scores and leaf ids are the model's own, bit for bit. The label and
    scores come from one walk of the row (no node holds a label value: the label is the one Model.predict decides
    from the same trees' outputs), not a walk each (a row spread over 50,000 leaves walks them all); predict itself
    on every tenth row."""
    assert not has_label_values(model)
    classify = model.target.is_classification
    sql = emit(model, "sql", dialect="spark", proba=classify, leaf=True)
    assert "aggregate(sequence(" in sql, "the tree was not walked"
    results = query(sql, model, rows, "spark", spark=spark)
    first = len(model.features)
    for number, (row, result) in enumerate(zip(rows, results)):
        label, scores = model.combined([tree_output(model, tree, row) for tree in model.trees])
        want = [label] + (list(scores) if classify else [])
        assert number % 10 or model.predict(row) == label, row
        assert list(result[first:-1]) == want, (row, want, result[first:])
        assert str(result[-1]) == leaf_ids(model, row), row


def walked_random_model(seed: int, **options) -> Model:
    """The first random model from ``seed`` on whose every tree is big enough to be walked."""
    options = dict(n_numeric=3, n_nominal=2, max_depth=12, missing_kinds=("fraction", "stop", "child"), **options)
    while True:
        model = random_model(seed, **options)
        if min(len(tree.nodes) for tree in model.trees) > DIALECTS["spark"].walk_model_nodes:
            return model
        seed += 1


def fractional_models(seed: int):
    """Random trees with every kind of split and missing route, fractional ones among them: one
    tree, regression, two trees averaged, names a loop variable could hide, hostile labels."""
    return [walked_random_model(seed), walked_random_model(seed, regression=True), walked_random_model(seed, n_trees=2),
            walked_random_model(seed, names=("n", "LEVEL", "treegen_entry", "a`b", "t"), classes=tuple(HOSTILE_NAMES[:4]))]


def test_fractional_trees_are_walked_exactly(spark):
    for model in fractional_models(0) + fractional_models(20)[:2]:
        assert any(node.split is not None and node.split.missing.kind == "fraction" for node in model.trees[0].nodes)
        rows = probe_rows(model, limit=120, aimed=120) + random_rows(model, 60, seed=1, missing=0.3)
        rows.append(dict.fromkeys(f.name for f in model.features))
        assert_exact(model, rows, spark)


def test_walked_sums_are_j48s(spark):
    """A row missing the feature of a fractional chain reaches all its leaves: J48's arithmetic (the
    weights multiplied root first, the sums nested as the chain nests), bit for bit -- not the
    leaves' weighted values added in node order, which differ in the last bits."""
    model = with_fractions(chain_model(600))
    rows = [dict.fromkeys(f.name for f in model.features)] + random_rows(model, 20, seed=1, missing=0.5)
    sql, first = emit(model, "sql", dialect="spark", proba=True), len(model.features)
    assert "aggregate(sequence(" in sql, "the tree was not walked"
    results = query(sql, model, rows, "spark", spark=spark)
    assert [list(r[first + 1:]) for r in results] == [tree_output(model, model.trees[0], row) for row in rows]


def test_nan_is_missing_in_a_walk(spark):
    model = fractional_models(0)[0]
    rows = random_rows(model, 60, seed=2, missing=0.4)
    as_nan = [{k: math.nan if v is None and model.features[i].is_numeric else v for i, (k, v) in enumerate(row.items())}
              for row in rows]
    sql, first = emit(model, "sql", dialect="spark", proba=True, leaf=True), len(model.features)
    results = query(sql, model, rows + as_nan, "spark", spark=spark)  # one query: each costs Spark its planning
    with_null, with_nan = results[:len(rows)], results[len(rows):]
    assert [r[first:] for r in with_nan] == [r[first:] for r in with_null]


def test_fractional_routes_at_the_required_sizes(spark):
    """50,000 leaves, and a chain 10,000 deep, with a fractional route at every split: a row with
    missing values reaches every leaf below. Every row missing the chain's one feature reaches its
    10,001 leaves with the same weights, so one (all missing) shows it: its sum must start from the deepest
    leaf (J48's nesting), so the walk keeps every ended entry and each step copies them (seconds a
    row in Spark)."""
    for model, count, missing in [(with_fractions(wide_model(50_000)), 30, 0.5),
                                  (with_fractions(chain_model(10_000)), 12, 0.0)]:
        probes = probe_rows(model)
        rows = random_rows(model, count, seed=1, missing=missing) + probes[::len(probes) // count]
        rows.append(dict.fromkeys(f.name for f in model.features))
        # each row once (its all-missing row is a probe too: ~8 s of Spark each)
        rows = each_once(rows)
        assert_exact(model, rows, spark)


def test_proba_reads_one_walk_per_tree():
    """Scores, label and leaf read the walk from a derived table: its arrays are written once."""
    for model in (wide_model(2_000), with_fractions(wide_model(2_000))):
        assert emit(model, "sql", dialect="spark", proba=True, leaf=True).count("aggregate(sequence(") == 1


def test_ensembles_of_small_trees_are_walked_in_one_loop_that_spark_compiles(spark):
    """Forty trees of a few dozen nodes: too small to walk one by one, too big together as nested CASEs
    (a 100-tree forest of 11,000 nodes filled the heap). The trees without fractional routes are walked
    together, in one loop, whose code Spark generates once: a walk of its own a tree made one method of
    the stage's code beyond Janino's 64 KB from about 30 trees, and Spark then ran the query without
    it, after logging the failure (here, with Spark's fallback off, an error). A tree with fractional
    routes is still walked alone; every answer exact."""
    from dataclasses import replace

    from treegen.model import Combine, Route
    forest = random_model(4, n_trees=40, max_depth=4, missing_kinds=("child", "stop", "fraction"))
    boosted = replace(random_model(5, regression=True, n_trees=40, max_depth=4, missing_kinds=("child", "stop")),
                      combine=Combine("sum", init=(0.5,), scale=0.1, link="identity"))
    for model in (forest, boosted):
        walked = [tree for tree in model.trees if len(tree.nodes) > 1]
        fractional = sum(any(n.split is not None and n.split.missing.kind == Route.FRACTION for n in tree.nodes)
                         for tree in walked)
        assert len(walked) - fractional >= 2 and (fractional > 10 or model is boosted)
        assert emit(model, "sql", dialect="spark", proba=True, leaf=True).count("aggregate(sequence(") == fractional + 1
        with whole_stage_code_required(spark, fractional == 0):
            rows = probe_rows(model, limit=100, aimed=100) + random_rows(model, 40, seed=2, missing=0.3)
            assert_exact(model, rows, spark)


def test_each_sum_reads_its_walked_trees_as_one_array(spark):
    """The outputs' sums of trees walked together read their trees' terms as one array -- a slice of
    the walks, each node's term computed in Python as the model computes it (tree weight, scale,
    float32 steps) -- folded in tree order: the code Spark generates no longer grows with the trees
    (300 made a method beyond Janino's 64 KB). Exact for boosted sums (trees per output or of every
    output, init first or last, double or float32) and averages; a model whose trees of one output
    are not side by side among the walked ones adds a term a tree, also exactly."""
    from dataclasses import replace

    from test_rule_text import per_output

    from treegen.model import Combine, NumericSemantics
    walked = lambda seed, n: random_model(seed, n_trees=n, max_depth=4, missing_kinds=("child", "stop"))
    many = walked(7, 300)
    boosted = replace(many, trees=[replace(per_output(tree, i % 3), weight=(1.0, 0.5, 0.3)[i % 3])
                                   for i, tree in enumerate(many.trees)],
                      combine=Combine("sum", init=(0.5, -1.25, 0.0), scale=0.1, link="softmax", precision="float32"),
                      numeric=NumericSemantics("float32"))
    model = walked(8, 40)
    variants = [replace(model, combine=Combine("sum", init=(0.5, -1.25, 0.0), scale=0.3, init_last=True, divisor=3.0)),
                replace(model, combine=Combine("average")),
                replace(model, trees=[per_output(t, 2) if i == 5 else t for i, t in enumerate(model.trees)],
                        combine=Combine("sum", init=(0.0, 0.5, 1.0), scale=0.1))]
    with whole_stage_code_required(spark):
        for model in [boosted] + variants:
            sql = emit(model, "sql", dialect="spark", proba=True)
            assert sql.count("aggregate(transform(") == (3 if model is not variants[-1] else 2)  # the last: not output 2
            rows = probe_rows(model, limit=60, aimed=60) + random_rows(model, 20, seed=3, missing=0.3)
            for row, result in zip(rows, query(sql, model, rows, "spark", spark=spark)):
                assert list(result[len(model.features):]) == [model.predict(row)] + list(model.scores(row)), row


def whole_stage_code_required(spark, required: bool = True):
    """Spark's whole-stage code (which the session leaves off: local_spark) is made and must compile
    (``required``): no fallback to the plan without it."""
    return spark_settings(spark, {"spark.sql.codegen.wholeStage": "true",
                                  "spark.sql.codegen.fallback": str(not required).lower()})


@contextmanager
def spark_settings(spark, settings: dict):
    """The session's ``settings`` for the block, then the values they had."""
    before = {key: spark.conf.get(key) for key in settings}
    for key, value in settings.items():
        spark.conf.set(key, value)
    try:
        yield
    finally:
        for key, value in before.items():
            spark.conf.set(key, value)


def test_the_session_flushes_its_parser_caches(spark):
    """Spark's SQL parser keeps in ANTLR's caches what every query taught it, and never lets go: a
    run of big generated queries filled the 2 GB heap, and each query then spent most of its time in
    full collections (the test above: 93 s in the suite, 19 s alone). The session verify starts, and
    the tests', flushes the caches past a tenth of the heap."""
    assert spark.conf.get("spark.sql.parser.manageParserCaches") == "true"
    assert float(spark.conf.get("spark.sql.parser.parserDfaCacheFlushRatio")) == 10


def test_the_session_spares_the_compilation_of_whole_stage_code(spark):
    """The session verify starts, and the tests', makes no whole-stage code: a nested tree of 240 leaves, whose
    whole-stage code is beyond Janino's 64 KB a method (a scikit-learn tree's as big: 1.1 s of CPU compiling it
    before the failure), runs with Spark's fallback off, which would raise at that failure; its expressions are
    compiled each in small methods."""
    model = wide_model(240, seed=3)
    sql = emit(model, "sql", dialect="spark")
    assert "aggregate(sequence(" not in sql, "the tree was walked"
    rows = random_rows(model, 20, seed=1)
    with spark_settings(spark, {"spark.sql.codegen.fallback": "false"}):
        results = query(sql, model, rows, "spark", spark=spark)
    assert [r[len(model.features)] for r in results] == [model.predict(row) for row in rows]


def test_the_parser_reads_a_float32_sum_without_looking_ahead_over_it(spark):
    """ANTLR reads ahead over the whole operand of CAST( (a cast, or a call of a function named cast) and of a
    "(" (an expression, or a row (a, b)) before it chooses: over nested casts of a sum of trees, Spark's parser
    learnt 25,000 states for a 29 KB query of 30 float32 trees (a text as long of flat arithmetic: 120), most of
    its time on the query, and enough to fill its caches past the session's flush. The Spark SQL writes cast
    aliases, double(float(x)), and groups as coalesce(x), which it tells in two tokens (960 states)."""
    from test_emit_sql import boosted_model, float32_model
    model = float32_model(boosted_model(4, "sigmoid", trees_per_column=30))
    for expression in (False, True):
        sql = emit(model, "sql", dialect="spark", expression=expression, proba=True, leaf=True)
        statement = f"SELECT {sql} FROM input" if expression else sql
        assert spark_parser_states(spark, statement) < len(statement) // 10, expression
