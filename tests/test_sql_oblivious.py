"""Oblivious trees (CatBoost's symmetric trees) in SQL (:mod:`treegen.emit.sql.oblivious`): a tree's leaf index
from its levels' answers, each distinct split's answer written once, a named value that a query computes once a
row; run for real in SQLite, DuckDB and PostgreSQL and checked against the model bit for bit, as a query (label,
scores, leaf ids) and as an expression."""
from __future__ import annotations

import random
import re
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from test_emit_python import symmetric_trees
from test_rule_text import boosted_models, rows_for
from test_sql_extensions import assert_exact

from treegen.emit.common import symmetric_levels
from treegen.emit.sql import DIALECTS
from treegen.model import (CLASSIFICATION, NOMINAL, NUMERIC, Combine, Feature, MissingRoute, Model, Node, Op, Split,
                           Target, Tree)
from treegen.run.sql import query
from treegen.targets import emit
from treegen.walk import predict_rows

OBLIVIOUS = ["sqlite", "postgres", "duckdb", "spark"]  # the dialects that write oblivious trees so (Dialect.strategies)


@pytest.fixture(params=OBLIVIOUS)
def engine(request):
    """(dialect, connection options); PostgreSQL's server and Spark's session start on first use."""
    name = request.param
    if name == "spark":
        return name, {"spark": request.getfixturevalue("spark")}
    return name, ({"dsn": request.getfixturevalue("postgres_dsn")} if name == "postgres" else {})


def test_the_dialects_that_write_oblivious_trees_so():
    assert [name for name, d in DIALECTS.items() if "oblivious" in d.strategies] == OBLIVIOUS
    assert all(d.strategies[0] == "oblivious" for d in map(DIALECTS.get, OBLIVIOUS))


def taken(model: Model) -> int:
    """The trees the oblivious strategy writes: symmetric, deeper than a stump."""
    return sum((levels := symmetric_levels(tree)) is not None and len(levels[0]) > 1 for tree in model.trees)


def answers(sql: str) -> set[str]:
    """The names of the splits' answers the SQL defines (quoted "..." or, in Spark, `...`)."""
    return set(re.findall(r'AS ["`]treegen_(answer\d+)["`]', sql))


def expression_agrees(model: Model, rows, dialect: str, connection: dict) -> None:
    """The expression's prediction is the model's, row by row."""
    d = DIALECTS[dialect]
    expression = emit(model, "sql", dialect=dialect, expression=True)
    got = [answer for (answer,) in query(f"SELECT {expression} FROM {d.identifier('input')}", model, rows, dialect,
                                         **connection)]
    want = [label for label, _ in predict_rows(model, rows)]
    assert got == want if model.target.is_classification else all(a == b for a, b in zip(got, want, strict=True))


# no shrinking: a batch of a dozen models shrinks for minutes; the failing model is in the message
@settings(max_examples=2, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(models=st.lists(boosted_models(), min_size=12, max_size=12), seed=st.integers(0, 1000))
def test_symmetric_trees_agree_with_the_model(engine, models, seed):
    """Symmetric trees of depth 0 to 4 made of every kind of two-way split (numeric at the edges of every
    comparison's semantics, 'in' with unknown categories sent apart, missing intervals), missing values sent to
    either child, in every kind of model (float32 sums, weights, per-output trees, links, label values): the
    query's labels, scores and leaf ids and the expression's labels are the model's, bit for bit."""
    dialect, connection = engine
    written = 0
    for k, model in enumerate(models):
        model = symmetric_trees(model, seed + k)
        rows = rows_for(model, seed)
        assert_exact(model, rows, dialect, connection)
        expression_agrees(model, rows[::4], dialect, connection)
        sql = emit(model, "sql", dialect=dialect, proba=model.target.is_classification, leaf=True)
        assert bool(answers(sql)) == bool(taken(model))
        written += taken(model)
    assert written  # (a batch with no tree deep enough to take proves nothing)


def pooled_model(seed: int, trees: int = 40, depth: int = 5, float32: bool = False) -> Model:
    """A boosted classifier of symmetric trees, each level a split drawn from a pool of seven (``<=`` splits on
    two numeric features, an 'in' split whose unknown categories go apart from missing values), missing values
    sent to either child: many trees test each split, at many levels. ``float32``: XGBoost's arithmetic, trees
    weighted (SQLite rounds each tree's step in double, its term a leaf's weighted value)."""
    rng = random.Random(seed)
    features = (Feature("x", NUMERIC), Feature("y", NUMERIC), Feature("c", NOMINAL, ("a", "b", "c")))
    pool = [Split(f, Op.LE, threshold=t, missing=MissingRoute.to_child(m))
            for f, t, m in [(0, 0.5, 0), (0, -1.25, 1), (0, 3.0, 0), (1, 0.25, 1), (1, 1e-300, 0), (1, 7.5, 1)]]
    pool.append(Split(2, Op.IN, values=("a", "c"), missing=MissingRoute.to_child(0), unknown=1))
    result = []
    for _ in range(trees):
        levels = rng.sample(pool, depth)
        nodes = [Node((0.0,))]
        frontier = [0]
        for split in levels:
            following = []
            for n in frontier:
                nodes[n] = replace(nodes[n], split=split, children=(len(nodes), len(nodes) + 1))
                following += [len(nodes), len(nodes) + 1]
                nodes += [Node((rng.uniform(-1, 1),)), Node((rng.uniform(-1, 1),))]
            frontier = following
        result.append(Tree(nodes, weight=0.5 if float32 else 1.0).canonical())
    return Model(features, Target("y", CLASSIFICATION, ("no", "yes")), result,
                 Combine("sum", init=(0.25,), scale=0.1, link="sigmoid", precision="float32" if float32 else "float64"))


def pooled_rows(model: Model) -> list[dict]:
    """Every value at each cut and an ulp either side, missing (NULL, NaN), every category and an unseen one."""
    import math
    xs = [v for t in (0.5, -1.25, 3.0) for v in (math.nextafter(t, -math.inf), t, math.nextafter(t, math.inf))]
    ys = [v for t in (0.25, 1e-300, 7.5) for v in (math.nextafter(t, -math.inf), t, math.nextafter(t, math.inf))]
    return [{"x": x, "y": y, "c": c} for x in xs + [None, math.nan] for y in ys[::2] + [None]
            for c in ("a", "b", "c", "unseen", None)]


@pytest.mark.parametrize("float32", [False, True])
def test_each_distinct_split_is_tested_once_a_query(engine, float32):
    """A query tests each distinct split once, however many trees test it at whatever level (as nested CASEs,
    every split of every tree: 40 trees of depth 5, 1,240 tests written, each cut 100 times and more), and each
    tree picks its leaf by the index its levels' answers make; its answers are the model's, the expression's too
    (in SQLite a float32 model's is a scalar subquery of steps, each passing on the answers later steps read)."""
    dialect, connection = engine
    d = DIALECTS[dialect]
    model = pooled_model(0, float32=float32)
    sql = emit(model, "sql", dialect=dialect, proba=True, leaf=True)
    assert len(answers(sql)) == 7 and taken(model) == 40
    for cut in (0.5, -1.25, 3.0, 0.25, 1e-300, 7.5):
        assert len(re.findall(f"[<>]=? {re.escape(d.double(cut))}", sql)) == 1, cut
    rows = pooled_rows(model)
    assert_exact(model, rows, dialect, connection)
    expression_agrees(model, rows, dialect, connection)


@pytest.mark.parametrize("dialect", ["duckdb", "spark"])
def test_a_big_oblivious_tree_is_not_walked_with_the_others(monkeypatch, request, dialect):
    """DuckDB walks the trees of more than ``walk_tree_nodes`` nodes together, in one loop, Spark every tree of a
    model of more than ``walk_model_nodes``: only those the walk writes -- an oblivious tree that big is an index of
    its levels' answers, not a walk's extra tree (walked for nothing, each row moved down its 11 levels); the
    query's answers are the model's."""
    from treegen.emit.sql import STRATEGIES
    from treegen.emit.sql.oblivious import ObliviousTree
    from treegen.emit.sql.walk import ArrayWalk, _forest
    from treegen.emit.sql.writer import Writer
    from treegen.testing import wide_model
    if dialect == "duckdb":
        monkeypatch.setitem(DIALECTS, "duckdb", replace(DIALECTS["duckdb"], walk_tree_nodes=500))
    assert DIALECTS[dialect].walk_tree_nodes == 500 or DIALECTS[dialect].walk_model_nodes == 500
    big = [wide_model(600, seed=seed, regression=True) for seed in (0, 1)]
    symmetric = symmetric_trees(big[0], 0, depth=10).trees[0]  # 2,047 nodes
    model = replace(big[0], trees=[big[0].trees[0], symmetric, big[1].trees[0]], combine=Combine("sum", init=(0.5,)))
    writer = Writer(model, DIALECTS[dialect], STRATEGIES)
    assert [type(tree) for tree in writer.written] == [ArrayWalk, ObliviousTree, ArrayWalk]
    assert sorted(_forest(writer)) == [0, 2]
    connection = {"spark": request.getfixturevalue("spark")} if dialect == "spark" else {}
    assert_exact(model, rows_for(model, 0), dialect, connection)


def test_mysqls_expression_writes_oblivious_trees_as_leaf_indexes(mysql_server):
    """MySQL writes a query's oblivious trees as nested CASEs (its CASE of a leaf index cost as much a row), but an
    expression's, which no derived table computes answers for, as leaf indexes: nested, every node repeats its
    level's test (the default CatBoost pairs model's expression 14.0 MB, 12.3 s for 5,000 rows in MariaDB 10.11; as
    indexes 3.45 MB, 9.4 s): each level's test written once, and the expression's answers the model's."""
    import math
    d = DIALECTS["mysql"]
    model = pooled_model(0)
    expression = emit(model, "sql", dialect="mysql", expression=True)
    levels = [model.trees[t].nodes[n].split for t in range(len(model.trees)) for n in symmetric_levels(model.trees[t])[0]]
    for cut in (0.5, -1.25, 3.0, 0.25, 1e-300, 7.5):
        tested = sum(split.threshold == cut for split in levels if split.op == Op.LE)
        assert len(re.findall(f"[<>]=? {re.escape(d.double(cut))}", expression)) == tested > 0, cut
    assert "* 16 +" not in emit(model, "sql", dialect="mysql")  # (the query's trees nested)
    rows = [row for row in pooled_rows(model) if not (isinstance(row["x"], float) and math.isnan(row["x"]))]
    expression_agrees(model, rows, "mysql", {"dsn": mysql_server})  # (MySQL holds no NaN)
