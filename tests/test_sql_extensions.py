"""The SQL of models that use the extensions of boosting libraries (treegen.model.extensions: missing
intervals, unknown-category routes, tree weights, the whole combine, label rules, float32 arithmetic),
run for real in every engine and checked against the model row by row, random models and the
importers' fixtures (whose models test_import_* check against the libraries' recorded outputs). Models
are drawn in batches, one engine connection each."""
from __future__ import annotations

import glob
import math
import os

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from test_emit_sql import assert_agrees, engine, without_whole_stage_code  # noqa: F401  (engine: a fixture)
from test_import_catboost import COLORS
from test_rule_text import boosted_models, linear_models, rows_for

from treegen.emit.sql import DIALECTS
from treegen.importers import import_file
from treegen.model import CombineKind, Link, Precision
from treegen.walk import predict_rows

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
BATCH = {"spark": 4}  # models a batch: a Spark query costs about a second
ROWS = {"spark": 120}  # rows a model (random models: all of rows_for)
FIXTURE_ROWS = 200  # rows a fixture model: enough to reach its every leaf and edge, a few seconds an engine


def sample(rows: list, limit: int | None) -> list:
    """Every n-th row, at most about ``limit``: random rows, probes and edge rows alike."""
    return rows if limit is None else rows[::max(1, len(rows) // limit)]


def rounds_to_float32(model) -> bool:
    """The model's sums and links are float32 steps (XGBoost)."""
    return model.combine.kind == CombineKind.SUM and model.combine.precision == Precision.FLOAT32


def assert_exact(model, rows, dialect: str, connection: dict) -> None:
    """The SQL's label, scores and leaf ids are the model's, scores equal (0.0 and -0.0 alike) in every
    engine; but Spark's double EXP is Java's, within 1e-12 (a double link). A float32 model too in an engine
    without float32 (SQLite: each step rounded in double arithmetic)."""
    exact = dialect != "spark" or rounds_to_float32(model) or model.combine.link in (Link.IDENTITY, Link.SIGN_SQUARE)
    answers = predict_rows(model, rows)
    if DIALECTS[dialect].infinity is None:  # MySQL: no infinity, a score beyond the doubles is an error
        kept = [i for i, (_, scores) in enumerate(answers) if all(map(math.isfinite, scores))]
        rows, answers = [rows[i] for i in kept], [answers[i] for i in kept]
    results = assert_agrees(model, rows, dialect, exact=exact, **connection)
    first, classify = len(model.features), model.target.is_classification
    for row, result, (_, scores) in zip(rows, results, answers, strict=True):
        got = result[first + 1:-1] if classify else [result[first]]
        assert len(got) == len(scores)
        assert all(a == b for a, b in zip(scores, got)) or not exact, (model.combine, len(model.trees), row, scores, got)


# no shrinking: a batch of a dozen models shrinks for minutes; the failing model is in the message
@settings(max_examples=2, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate), suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow, HealthCheck.data_too_large])
@given(models=st.lists(boosted_models(), min_size=12, max_size=12), seed=st.integers(0, 1000))
def test_boosted_models_agree_with_the_model(engine, models, seed):  # noqa: F811
    dialect, connection = engine
    for model in models[:BATCH.get(dialect, len(models))]:
        assert_exact(model, sample(rows_for(model, seed), ROWS.get(dialect)), dialect, connection)


@settings(max_examples=2, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(models=st.lists(linear_models(), min_size=12, max_size=12), seed=st.integers(0, 1000))
def test_linear_leaves_agree_with_the_model(engine, models, seed):  # noqa: F811
    """Linear leaves (LightGBM's linear trees), written by the nested or rules strategy in every dialect."""
    dialect, connection = engine
    for model in models[:BATCH.get(dialect, len(models))]:
        rows = sample(rows_for(model, seed), ROWS.get(dialect))
        if dialect in RANGE_ERRORS:  # (a constant of 1e-300 times a weight and the scale can underflow there too)
            if tiny_constants(model) and all(len(tree.nodes) == 1 for tree in model.trees):
                continue  # its one score underflows, and PostgreSQL computes a constant while planning: no row runs
            rows = [] if tiny_constants(model) else [row for row in rows if not leaves_range(model, row)]
        assert_exact(model, rows, dialect, connection)


RANGE_ERRORS = ("postgres", "mysql")  # a double product or sum that underflows to 0 or overflows raises


def tiny_constants(model) -> bool:
    """A linear leaf's constant or a leaf value so small (1e-300) that the products of the boosted sum
    can underflow to 0.0, which PostgreSQL and MariaDB refuse with an error."""
    return any(0.0 < abs(v) < 1e-290 for tree in model.trees for node in tree.nodes
               for v in node.value + ((node.linear.const,) if node.linear is not None else ()))


def leaves_range(model, row) -> bool:
    """A number of the row so small or so large that a linear term's product can underflow to 0.0 or
    overflow (the coefficients of linear_models are 1e-3 to 1e5 in size), which PostgreSQL and MariaDB
    refuse with an error where the model computes 0.0 or infinity."""
    numbers = [row.get(f.name) for f in model.features if f.is_numeric and row.get(f.name) is not None]
    return any(0.0 < abs(x) < 1e-300 or 1e300 < abs(x) for x in numbers if not math.isnan(x))


# The importers' fixtures, newest version of each library (test_import_* prove that the model predicts
# what the library recorded for them; here the SQL predicts what the model does), and XGBoost 1.7.6's
# missing= model, the one with a missing interval.
FIXTURE_FILES = ["xgboost/*-3.4.1.json", "xgboost/missing-1.7.6.json", "lightgbm/4.7.0/*.txt",
                 "catboost/*-1.2.10.json", "hist_gradient_boosting/*-1.9.1.skops"]


def fixture_models():
    paths = sorted(path for pattern in FIXTURE_FILES for path in glob.glob(os.path.join(FIXTURES, pattern))
                   if not path.endswith(".expected.json"))
    # CatBoost's model saved without its pool knows its categories only by hash: name them
    return [(path, import_file(path, trust=True, **({"categories": {"color": COLORS}} if "nopool" in path else {})))
            for path in paths]


def test_importer_fixtures_agree_with_the_model(engine):  # noqa: F811
    dialect, connection = engine
    models = fixture_models()
    assert len(models) >= 25
    for path, model in models:
        assert_exact(model, sample(rows_for(model, 0), ROWS.get(dialect, FIXTURE_ROWS)), dialect, connection)


def test_label_values_decide_in_every_engine(engine):  # noqa: F811
    """Labels decided on sums of their own (treegen.model.Node.label_value): J48 -A's tree, whose label
    differs from its smoothed scores' on 10 of its rows (test_c45.py), and an average of three trees
    with fractional routes and random label values."""
    from treegen.data import load_dataset, read_table, rows_for_model
    from treegen.learn import fit
    from treegen.testing import random_model, with_fractions, with_label_values

    dialect, connection = engine
    path = os.path.join(FIXTURES, "j48", "laplace-ties.arff")
    j48 = fit(load_dataset(path), "c45", laplace=True)
    assert_exact(j48, rows_for_model(read_table(path), j48) + rows_for(j48, 0), dialect, connection)
    forest = with_label_values(with_fractions(random_model(5, n_trees=3, max_depth=4), seed=5), seed=5)
    with without_whole_stage_code(connection):  # Janino cannot compile the forest's (Spark CPU 5.9 -> 2.7 s)
        assert_exact(forest, sample(rows_for(forest, 0), ROWS.get(dialect)), dialect, connection)


def test_float32_models_without_steps_or_with_a_double_link_in_sqlite():
    """SQLite rounds a float32 model's steps as named values of a WITH chain: a one-tree model has no steps
    (its WITH of none was a syntax error), and LightGBM's sign-square link, computed in double whatever the
    sums' precision, was refused ('does not know the float32 link')."""
    from dataclasses import replace

    from treegen.model import Combine
    from treegen.testing import random_model
    for seed in range(3):
        single = random_model(seed, regression=True)
        single = replace(single, combine=replace(single.combine, precision=Precision.FLOAT32))
        boosted = random_model(seed, regression=True, n_trees=3)
        boosted = replace(boosted, combine=Combine(CombineKind.SUM, init=(0.5,), link=Link.SIGN_SQUARE,
                                                   precision=Precision.FLOAT32))
        for model in (single, boosted):
            assert_exact(model, rows_for(model, seed), "sqlite", {})


def test_a_float32_sum_of_a_leaf_that_is_no_float32_below_the_normal_range_in_sqlite():
    """SQLite's float32 sum step leaves a sum below float32's normal range as it is, which is right for the sum
    of two float32 (a multiple of 2^-149 already), not for a leaf that is no float32 (a model file may hold one):
    there the step rounds it to float32's subnormals, as the model does (it gave 1.5e-39 for 1.5000003e-39)."""
    from dataclasses import replace

    from treegen.model import Combine, Node, Tree
    from treegen.testing import random_model
    base = random_model(0, regression=True)
    leaf = Tree([Node((1.5e-39,), n=1.0)])
    model = replace(base, trees=[leaf, Tree([Node((0.0,), n=1.0)])],
                    combine=Combine(CombineKind.SUM, init=(0.0,), precision=Precision.FLOAT32))
    rows = rows_for(model, 0)[:5]
    assert {predict for predict, _ in predict_rows(model, rows)} == {1.500000322958e-39}  # float32(1.5e-39)
    assert_exact(model, rows, "sqlite", {})


def test_a_nan_leaf_is_refused_in_one_line_in_every_dialect():
    """A model file may hold a NaN leaf (an XGBoost model whose training diverged): the SQL back end raised a
    ValueError (a traceback) on it; now one line that says why."""
    import math
    from dataclasses import replace

    import pytest

    from treegen.errors import TreegenError
    from treegen.model import Tree
    from treegen.targets import emit
    from treegen.testing import random_model
    model = random_model(0, regression=True)
    nodes = list(model.trees[0].nodes)
    leaf = model.trees[0].leaves()[0]
    nodes[leaf] = replace(nodes[leaf], value=(math.nan,))
    for dialect in DIALECTS:
        with pytest.raises(TreegenError, match=f"^{dialect}: the model holds a NaN value"):
            emit(replace(model, trees=[Tree(nodes)]), "sql", dialect=dialect)


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "duckdb", "spark"])
def test_float32_expressions_are_the_models_bit_for_bit(dialect, tmp_path, request):
    """SQLite has no 4-byte float: its --expression of a float32 model makes each output a correlated scalar
    subquery of the query's own steps, each rounded in double arithmetic, so it is the model's bit for bit (it
    added in double: other probabilities, and labels where the sums fall either side of a cut). PostgreSQL does
    so where inlining would double an output (expf of each sum, 8-300x smaller: it was 4.1 MB for the
    multiclass fixture); DuckDB and Spark bind those steps to lambdas' variables instead (they were 4.5 MB
    and 4.6 MB). Every XGBoost 3.4.1 fixture (categorical codes, missing=, vector leaves, DART's weighted ones),
    one tree (no step), a double link over float32 sums, and names that could be read wrong inside the subquery
    (quotes, a name like the steps' columns, "1"), with --proba and --leaf, on verify's probes (thresholds, an ulp
    either side, NULL, unknown categories)."""
    from dataclasses import replace

    from test_emit_sql import boosted_model, float32_model, with_categories

    from treegen.emit.sql import computed
    from treegen.model import Combine, Target
    from treegen.targets import emit
    from treegen.testing import HOSTILE_NAMES, random_model
    from treegen.verifier import verify
    fixtures = sorted(p for pattern in ("xgboost/*-3.4.1.json", "xgboost/missing-1.7.6.json",
                                        "xgboost/vector_leaves-2.1.4.json")
                      for p in glob.glob(os.path.join(FIXTURES, pattern)) if not p.endswith(".expected.json"))
    models = [import_file(path) for path in fixtures]
    single = random_model(1, regression=True)
    models.append(replace(single, combine=replace(single.combine, precision=Precision.FLOAT32)))
    one_tree = random_model(2, regression=True)
    models.append(replace(one_tree, combine=Combine(CombineKind.SUM, init=(0.5,), precision=Precision.FLOAT32)))
    square = random_model(3, regression=True, n_trees=3)
    models.append(replace(square, combine=Combine(CombineKind.SUM, init=(0.5,), link=Link.SIGN_SQUARE,
                                                  precision=Precision.FLOAT32)))
    names = ["1", "treegen_s0_sum_0", '"; DROP TABLE x; --', "new\nline", "名字"]
    for seed, link in ((4, "sigmoid"), (5, "softmax")):
        model = with_categories(float32_model(boosted_model(seed, link)), HOSTILE_NAMES * 2)
        features = tuple(replace(f, name=name) for f, name in zip(model.features, names))
        labels = Target("y", "classification", tuple(HOSTILE_NAMES[10:10 + len(model.target.classes)]))
        models.append(replace(model, features=features, target=labels))
    assert len(models) == 20
    table = 'say "hi".it\'s' if dialect == "sqlite" else "input"  # (PostgreSQL: the schema must exist)
    dsns = {"postgres": request.getfixturevalue("postgres_dsn")} if dialect == "postgres" else {}
    if dialect == "spark":  # the suite's session, which verify's own getOrCreate finds: not a JVM without its options
        request.getfixturevalue("spark")
    subqueries, steps = 0, "(WITH" if DIALECTS[dialect].correlated_steps else "treegen_step0"  # (a lambda's variable)
    for number, model in enumerate(models):
        assert computed(model, dialect, expression=True) == (model, None)
        path = tmp_path / f"{number}.sql"
        text = emit(model, "sql", dialect=dialect, expression=True, leaf=True, table=table,
                    proba=model.target.is_classification)
        subqueries += steps in text
        if fixtures[number:number + 1] == [os.path.join(FIXTURES, "xgboost", "multiclass-3.4.1.json")]:
            assert len(text) < 200_000, len(text)  # inlined: 4 MB or more
        path.write_text(text, encoding="utf-8")
        [result] = verify(model, None, [], [dialect], programs=[str(path)], leaf=True, table=table, dsns=dsns)
        assert result.ok and result.note is None, (number, result.line())
    assert subqueries == {"sqlite": 19, "postgres": 17}.get(dialect, 17), subqueries


@pytest.mark.parametrize("dialect", ["duckdb", "spark"])
def test_boosted_expressions_in_duckdb_and_spark_compute_each_shared_value_once(dialect, tmp_path, request):
    """XGBoost's float32 softmax (expf written out reads its argument about ten times) and LightGBM's in double
    (each probability reads every class's sum): written inline wherever read, DuckDB's and Spark's --expression
    was 12.3 MB (--proba 18.4 MB; LightGBM's 2.8 and 6 MB) against a SELECT of 34-47 KB, and DuckDB took 7 minutes
    over 2,000 rows. Each output binds the steps it reads to lambdas' variables: as long as the SELECT, or two
    (Spark walks each tree alone in an expression), and the model's answers on verify's probes, with --proba and
    --leaf (XGBoost's bit for bit; Spark's EXP, in LightGBM's double softmax, within its exp_error)."""
    from treegen.loading import load_model
    from treegen.targets import emit
    from treegen.verifier import verify
    if dialect == "spark":  # the suite's session, which verify's own getOrCreate finds: not a JVM without its options
        request.getfixturevalue("spark")
    for path in ("examples/boosting/xgboost.json", "examples/boosting/lightgbm.txt"):
        model = load_model(path)
        select = len(emit(model, "sql", dialect=dialect))
        assert len(emit(model, "sql", dialect=dialect, expression=True)) < 3 * select
        items = emit(model, "sql", dialect=dialect, expression=True, proba=True, leaf=True)
        assert len(items) < 3 * select * (2 + len(model.target.classes)), (path, len(items), select)
        program = tmp_path / "expression.sql"
        program.write_text(items, encoding="utf-8")
        [result] = verify(model, None, [], [dialect], programs=[str(program)], leaf=True)
        assert result.ok, (path, result.line())


def test_a_float32_expression_in_sqlite_serves_a_view_not_a_generated_column():
    """What `export` says of SQLite's float32 expression, its outputs scalar subqueries: a view reads it, with the
    query's answers; SQLite refuses it as a generated column."""
    import sqlite3
    from contextlib import closing

    import pytest

    from treegen.targets import emit
    model = import_file(os.path.join(FIXTURES, "xgboost", "binary-3.2.0.json"))
    expression = emit(model, "sql", dialect="sqlite", expression=True)
    rows = [(x0 / 4, x1 / 4, None if x0 == x1 else 0.5) for x0 in range(-6, 6) for x1 in range(-6, 6)]
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute('CREATE TABLE "input" ("x0" REAL, "x1" REAL, "x2" REAL)')
        connection.executemany('INSERT INTO "input" VALUES (?, ?, ?)', rows)
        connection.execute(f'CREATE VIEW "scored" AS SELECT "x0", {expression} AS "p" FROM "input"')
        viewed = connection.execute('SELECT "p" FROM "scored"').fetchall()
        assert viewed == [r[-1:] for r in connection.execute(emit(model, "sql", dialect="sqlite")).fetchall()]
        assert {p for (p,) in viewed} == {"0", "1"}
        with pytest.raises(sqlite3.OperationalError, match="subqueries prohibited in generated columns"):
            connection.execute(f'CREATE TABLE "stored" ("x0" REAL, "x1" REAL, "x2" REAL, '
                               f'"p" TEXT GENERATED ALWAYS AS ({expression}))')
