"""The SQL back end, run for real in SQLite, DuckDB, PostgreSQL and MariaDB (servers started for the
test run) and Spark SQL (local mode): every answer is checked against the model's reference prediction."""
from __future__ import annotations

import functools
import os
import math
import random
import re
import struct
import sys
from contextlib import closing, contextmanager
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from treegen.targets import emit
from treegen.emit.sql import DIALECTS, STRATEGIES, computed
from treegen.emit.sql.writer import Writer
from treegen.errors import TreegenError
from treegen.model import (CLASSIFICATION, NOMINAL, NUMERIC, REGRESSION, Codes, Combine, Feature, MissingRoute, Model,
                           NUMBER, Node, Op, Split, Target, Tree, argmax, code_category, code_number, leaf_ids,
                           tree_output)
from treegen.probes import probe_rows
from treegen.run.sql import query, read_csv, run
from treegen.testing import (HOSTILE_NAMES, chain_model, is_close, random_model, random_rows, wide_model,
                             with_fractions)
from treegen.walk import leaf_ids_rows, predict_rows

ENGINES = ["sqlite", "duckdb", "postgres", "mysql", "spark"]
SLOW_ENGINES = {"spark"}  # a query costs about a second: fewer, bigger examples


@pytest.fixture(params=ENGINES)
def engine(request):
    """(dialect, connection options) for each engine; the server fixtures start on first use."""
    name = request.param
    if name == "postgres":
        return name, {"dsn": request.getfixturevalue("postgres_dsn")}
    if name == "mysql":
        return name, {"dsn": request.getfixturevalue("mysql_server")}
    if name == "spark":
        return name, {"spark": request.getfixturevalue("spark")}
    return name, {}


# -- checking answers ---------------------------------------------------------------------------

def near_tie(model, row, got_label) -> bool:
    """Two classes whose scores are equal up to rounding: summing in another order may pick either."""
    scores = model.scores(row)
    k = model.target.classes.index(got_label)
    return is_close(scores[k], scores[argmax(scores)], rel=1e-9)


def assert_agrees(model: Model, rows, engine, exact=True, dialect=None, **connection):
    """Prediction, probability and leaf columns of the SQL (in ``dialect``, by default the engine's
    own) equal the model's, row by row (the model's from its batch walk, which tests/test_verify.py
    holds to the row-by-row walk)."""
    classify = model.target.is_classification
    sql = emit(model, "sql", dialect=dialect or engine, proba=classify, leaf=True)
    results = query(sql, model, rows, engine, **connection)
    assert len(results) == len(rows)
    first = len(model.features)
    for row, result, (want, scores), ids in zip(rows, results, predict_rows(model, rows), leaf_ids_rows(model, rows)):
        got = result[first]
        if classify:
            assert got == want or (not exact and near_tie(model, row, got)), (row, want, result[first:])
            assert all(is_close(a, b) for a, b in zip(scores, result[first + 1:])), (row, scores, result)
        else:
            assert is_close(got, want), (row, want, got)
        assert str(result[-1]) == ids, (row, ids, result[-1])
    return results


def boosted_model(seed: int, link: str, trees_per_column: int = 3) -> Model:
    """A boosted classifier: regression trees summed with a learning rate, then the link."""
    classes = ("lo", "hi") if link == "sigmoid" else ("a", "b", "c")
    columns = 1 if link == "sigmoid" else len(classes)
    base = random_model(seed, regression=True, n_trees=trees_per_column * columns, max_depth=3, missing_kinds=("child", "stop"))
    trees = [replace(tree, output=None if link == "sigmoid" else i % columns) for i, tree in enumerate(base.trees)]
    init = tuple(random.Random(seed).uniform(-1, 1) for _ in range(columns))
    return replace(base, target=Target("y", CLASSIFICATION, classes), trees=trees,
                   combine=Combine("sum", init=init, scale=0.1, link=link))


def float32_model(model: Model) -> Model:
    """The boosted model summed in float32, XGBoost's links."""
    return replace(model, combine=replace(model.combine, precision="float32"))


def hostile_model(seed: int, dialect: str) -> Model:
    """Feature names, categories and labels from HOSTILE_NAMES that the dialect can hold."""
    d = DIALECTS[dialect]
    names, seen = [], set()
    for name in HOSTILE_NAMES:
        # MySQL: a column name cannot end with a space (the server says so; an alias can)
        if holds(d, name) and d.folded(name) not in seen and not (dialect == "mysql" and name.endswith(" ")):
            seen.add(d.folded(name))
            names.append(name)
    rng = random.Random(seed)
    rng.shuffle(names)
    model = random_model(seed, n_numeric=3, n_nominal=2, names=names[:5], classes=tuple(HOSTILE_NAMES[:4]))
    return with_categories(model, HOSTILE_NAMES * 2)


def with_categories(model: Model, values) -> Model:
    """The model with its categories renamed, in order, to ``values``."""
    rename = dict(zip([c for f in model.features for c in f.categories], values))
    features = tuple(replace(f, categories=tuple(rename[c] for c in f.categories)) for f in model.features)
    for tree in model.trees:
        for node in tree.nodes:
            if node.split is not None and node.split.values:
                node.split = replace(node.split, values=tuple(rename[v] for v in node.split.values))
    return replace(model, features=features)


def holds(d, name: str) -> bool:
    """The dialect can name a column ``name`` (not empty, nothing its engine refuses)."""
    try:
        d.identifier(name)
    except TreegenError:
        return False
    return True


def model_kinds(seed: int):
    return [random_model(seed), random_model(seed, regression=True), random_model(seed, n_trees=3),
            random_model(seed, missing_kinds=("child",), n_numeric=2, n_nominal=1)]


# -- literals -------------------------------------------------------------------------------------

def some_doubles(count=300, seed=0):
    rng = random.Random(seed)
    values = [0.1, -0.0, 1e-300, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 1e16, 2.0 ** 53 + 2,
              1.355887595698176e+234, 1.325700310403432e+99, 0.30000000000000004, -123456789.12345679]
    while len(values) < count:
        x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(x):
            values += [x, rng.uniform(-20, 20)]
    return values


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "postgres", "mysql", "spark", "ansi"])
def test_double_literals_read_back_exactly(dialect, request):
    engine = "duckdb" if dialect == "ansi" else dialect
    fixture = {"postgres": "postgres_dsn", "mysql": "mysql_server"}.get(engine)
    connection = {"dsn": request.getfixturevalue(fixture)} if fixture else \
        {"spark": request.getfixturevalue("spark")} if engine == "spark" else {}
    d = DIALECTS[dialect]
    doubles = some_doubles()
    sql = "SELECT " + ", ".join(f"{d.double(x)} AS {d.identifier(f'v{i}')}" for i, x in enumerate(doubles))
    [got] = query(sql, random_model(0), [], engine, **connection)
    if engine == "mysql":  # MariaDB sends -0 as "0": the sign is checked inside the engine instead
        [(negative,)] = query(f"SELECT ATAN2({d.double(-0.0)}, -1e0) < 0", random_model(0), [], engine, **connection)
        assert negative == 1
        doubles = [0.0 if x == 0 else x for x in doubles]
    assert [struct.pack("<d", g) for g in got] == [struct.pack("<d", x) for x in doubles]


# -- random models, probes, hostile names ---------------------------------------------------------

@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10 ** 6))
def test_random_models_agree_with_the_model(engine, seed):
    dialect, connection = engine
    kinds = model_kinds(seed)
    for model in kinds[:1] if dialect in SLOW_ENGINES else kinds:
        rows = probe_rows(model, limit=200, aimed=200) + random_rows(model, 50, seed)
        assert_agrees(model, rows, dialect, exact=len(model.trees) == 1, **connection)


def test_every_kind_of_model_agrees(engine):
    dialect, connection = engine
    for seed in range(2):
        for model in model_kinds(seed) + [boosted_model(seed, "sigmoid"), boosted_model(seed, "softmax")]:
            assert_agrees(model, probe_rows(model, limit=300, aimed=300), dialect, exact=False, **connection)


def one_class_models(seed: int) -> list[Model]:
    """Classifiers that saw one class, as scikit-learn fits them (the score is 1.0): a tree, a forest,
    and boosted trees of one softmax sum labelling by the score, by the raw sum in float32 (XGBoost's
    multi:softmax of num_class 1) and by Weka's rule."""
    only = Target("y", CLASSIFICATION, ("only",))
    base = random_model(seed, regression=True, n_trees=3, max_depth=3, missing_kinds=("child", "stop"))
    boosted = [replace(base, target=only, combine=Combine("sum", init=(0.5,), scale=0.1, link="softmax",
                                                          precision=precision, decide=decide))
               for decide, precision in (("argmax", "float64"), ("argmax_raw", "float32"), ("weka", "float64"))]
    return [random_model(seed, classes=only.classes), random_model(seed, classes=only.classes, n_trees=3), *boosted]


def test_a_classifier_of_one_class_labels_every_row_with_it(engine):
    """Its label takes no comparison (a CASE without a WHEN is no SQL), with scores or without."""
    dialect, connection = engine
    models = one_class_models(0)
    for model in models[:1] if dialect in SLOW_ENGINES else models:
        rows = probe_rows(model, limit=200, aimed=200)
        assert_agrees(model, rows, dialect, **connection)
        results = query(emit(model, "sql", dialect=dialect), model, rows, dialect, **connection)
        assert [result[len(model.features)] for result in results] == ["only"] * len(rows)


def test_float32_semantics_at_the_boundary(engine):
    from treegen.model import NumericSemantics
    dialect, connection = engine
    model = random_model(5, numeric=NumericSemantics(cast="float32"), n_nominal=0)
    assert_agrees(model, probe_rows(model, limit=400, aimed=400), dialect, **connection)


def test_hostile_names(engine):
    dialect, connection = engine
    for seed in range(2):
        model = hostile_model(seed, dialect)
        assert_agrees(model, probe_rows(model, limit=200, aimed=200), dialect, **connection)


def test_nan_counts_as_missing(engine):
    dialect, connection = engine
    model = random_model(3, missing_kinds=("child",))
    rows = random_rows(model, 100, seed=3, missing=0.5)
    as_nan = [{k: (math.nan if v is None and f.is_numeric else v) for (k, v), f in zip(row.items(), model.features)}
              for row in rows]
    sql = emit(model, "sql", dialect=dialect, proba=True)
    first = len(model.features)
    with_nan = query(sql, model, as_nan, dialect, **connection)
    assert [r[first:] for r in with_nan] == [r[first:] for r in query(sql, model, rows, dialect, **connection)]


CLOSE_CATEGORIES = ("a", "a ", "A", "\u00e1", " a", "a\\", "")


def close_categories_model() -> Model:
    """A split of one child a category of :data:`CLOSE_CATEGORIES`, each its label, and one that the tree never saw
    (or missing) labelled 'missing'."""
    categories = CLOSE_CATEGORIES
    labels = tuple(f"c{i}" for i in range(len(categories))) + ("missing",)
    onehot = [tuple(float(i == k) for i in range(len(labels))) for k in range(len(labels))]
    nodes = [Node(onehot[-1], split=Split(0, "==", values=categories), children=tuple(range(1, len(categories) + 1)))]
    nodes += [Node(onehot[k]) for k in range(len(categories))]
    return Model((Feature("v", NOMINAL, categories),), Target("y", CLASSIFICATION, labels), [Tree(nodes)])


def test_categories_compare_exactly(engine):
    """Values that differ only in case, accents or a trailing space are different categories, and one
    the tree never saw is missing (MySQL's default collations would call all of these equal)."""
    dialect, connection = engine
    model = close_categories_model()
    rows = [{"v": v} for v in CLOSE_CATEGORIES + ("b", "a  ", "\u00c1", "a\\\\", None)]
    assert [model.predict(row) for row in rows][-5:] == ["missing"] * 5
    assert_agrees(model, rows, dialect, **connection)


@pytest.mark.parametrize("dialect, types", [
    ("duckdb", ["VARCHAR COLLATE NOCASE", "VARCHAR COLLATE NOACCENT", "VARCHAR COLLATE NOCASE.NOACCENT",
                "ENUM(" + ", ".join(f"'{v}'" for v in CLOSE_CATEGORIES + ("\u00c1", "NA", "na", " NA", "b")) + ")"]),
    ("postgres", ["VARCHAR COLLATE blind"])])
def test_categories_compare_exactly_whatever_the_columns_collation(dialect, types, request, monkeypatch):
    """A column of DuckDB's NOCASE or NOACCENT collation, or of a PostgreSQL nondeterministic one, finds 'A' = 'a'
    and 'a' = '\u00e1': the query and the expression read 'A' as the category 'a' (DuckDB: 'A' got 'a''s label,
    c0 for c2; its walk too), and PostgreSQL's query stopped ("nondeterministic collations are not supported for
    LIKE"). An ENUM column (a pandas Categorical's) takes no collation: it is read as text."""
    import duckdb
    import psycopg
    model = close_categories_model()
    values = CLOSE_CATEGORIES + ("\u00c1", "NA", "na", " NA", "b")
    want = [model.predict({"v": None if v.strip() == "NA" else v}) for v in values]

    def queries():
        return [emit(model, "sql", dialect=dialect, table="t"),
                f"SELECT {emit(model, 'sql', dialect=dialect, expression=True)} FROM t"]
    written = queries()
    if dialect == "duckdb":  # and walked
        monkeypatch.setitem(DIALECTS, dialect, replace(DIALECTS[dialect], walk_tree_nodes=1))
        written += queries()
        assert is_walked(written[-1], dialect)
    if dialect == "duckdb":
        connection, placeholder = duckdb.connect(), "?"
    else:
        connection, placeholder = psycopg.connect(request.getfixturevalue("postgres_dsn"), autocommit=True), "%s"
        connection.execute("CREATE COLLATION IF NOT EXISTS blind (provider = icu, locale = 'und-u-ks-level1', "
                           "deterministic = false)")
    with closing(connection):
        for column_type in types:
            connection.execute(f"CREATE TEMPORARY TABLE t (v {column_type})")
            for value in values:
                connection.execute(f"INSERT INTO t VALUES ({placeholder})", (value,))
            for sql in written:
                assert [row[-1] for row in connection.execute(sql).fetchall()] == want, (column_type, sql[:20])
            connection.execute("DROP TABLE t")


def empty_in_model() -> Model:
    """A forest of 'in' splits that send no category left (CatBoost writes them: a CTR of every category on
    one side of its border), a tree for each route of a missing value and an unknown category (the leaf ids
    say each tree's answer)."""
    features = (Feature("c", NOMINAL, ("a", "b", "c")), Feature("x", NUMERIC))
    target = Target("y", CLASSIFICATION, ("left", "right"))
    routes = [(MissingRoute.to_child(0), None), (MissingRoute.to_child(1), None), (MissingRoute.stop(), None),
              (MissingRoute.to_child(1), 0), (MissingRoute.to_child(0), 1)]
    return Model(features, target, [Tree([Node((0.5, 0.5), split=Split(0, "in", values=(), missing=missing,
                                                                        unknown=unknown), children=(1, 2)),
                                          Node((1.0, 0.0)), Node((0.0, 1.0))]) for missing, unknown in routes],
                 Combine("average"))


def test_an_in_split_of_no_category_is_sql(engine):
    """SQL has no empty list (``x IN ()`` is a syntax error in PostgreSQL and MariaDB): no present category
    goes left, missing and unknown ones where the split sends them."""
    dialect, connection = engine
    rows = [{"c": c, "x": 0.0} for c in ("a", "b", "c", "d", None)]
    model = empty_in_model()
    assert "()" not in emit(model, "sql", dialect=dialect)
    assert [model.predict(row) for row in rows][:3] == ["right"] * 3
    assert leaf_ids_rows(model, rows)[3:] == ["1;2;0;1;2", "1;2;0;2;1"]  # unknown, missing: each tree its own way
    assert_agrees(model, rows, dialect, **connection)
    if dialect in ("duckdb", "postgres"):
        assert_agrees(model, rows, dialect, dialect="ansi", **connection)


# Codes spelled as numbers: as the text of the category they name, or of none (then unknown); NEAR lie
# within float32 rounding of an integer, which SQLite, without a 4-byte float, rounds in double arithmetic
SPELLED = ("1.0", " 2 ", "2", "2e0", "1.7", "-0.5", "-0.0", "-1.5", "+1", ".5", "3.", "05", "1e300", "inf", "nan", "abc",
           "1-2", "1 2", "e1", "--1",
           # read as their number is: the category of the same double where its code names none (FRACTIONS)
           "0.50", "5e-1", "2.50", "5000000001.0", "5.000000001e9", "-2147483649.0", "2147483648.0")
NEAR = ("0.99999999", "2.9999999999", "1e-50")
# Categories no code names beside codes, as HistGradientBoosting's of a pandas Categorical of floats or big IDs
FRACTIONS = ("0.5", "5000000001", "2.5", "1", "-2147483649", "0")


def coded_model(seed: int, codes: Codes, cast: str, spelt=None) -> Model:
    """A model whose nominal features' categories are the integer codes "0", "1", ... (or the k-th of ``spelt``)
    read by ``codes``."""
    model = random_model(seed, n_numeric=1, n_nominal=2)
    names = {i: {c: str(k) if spelt is None else spelt[k] for k, c in enumerate(f.categories)}
             for i, f in enumerate(model.features)}
    for tree in model.trees:
        for node in tree.nodes:
            if node.split is not None and node.split.values:
                node.split = replace(node.split, values=tuple(names[node.split.feature][v] for v in node.split.values))
    features = tuple(f if f.is_numeric else replace(f, categories=tuple(names[i].values()), codes=codes)
                     for i, f in enumerate(model.features))
    return replace(model, features=features, numeric=replace(model.numeric, cast=cast))


def as_named(model: Model, row: dict) -> dict:
    """The row with each code spelled as a number replaced by the category it names: its code's (code_category),
    if a category, else the category whose text reads as the same double, else none (its text, unknown)."""
    named = dict(row)
    for f in model.features:
        value = row.get(f.name)
        number = None if f.is_numeric or value is None or value in f.categories else code_number(value)
        if number is not None:
            code = code_category(f.codes, number, model.numeric.cast)
            named[f.name] = code if code in f.categories else next(
                (c for c in f.categories if NUMBER.fullmatch(c) and float(c) == number), value)
    return named


def test_category_codes_spelled_as_numbers(engine):
    """A nominal feature of integer codes (LightGBM's, XGBoost's, HistGradientBoosting's) reads a text that
    is none of its categories but spells a number as the category :func:`code_category` names: truncated
    ("1.7" is "1", "-0.5" "0") or only where integral, after the model's cast."""
    dialect, connection = engine
    for codes, cast, spelt in [(Codes.TRUNCATED, "float64", None), (Codes.NONNEGATIVE, "float32", None),
                               (Codes.INTEGRAL, "float32", None), (Codes.INTEGRAL, "float64", FRACTIONS),
                               (Codes.TRUNCATED, "float32", FRACTIONS)]:
        model = coded_model(len(cast) + len(codes), codes, cast, spelt)
        ansi = ["ansi"] if dialect in ("duckdb", "postgres") else []
        check_spelled_codes(model, dialect, connection, [dialect] + ansi)


def test_an_engine_without_float32_reads_a_number_by_the_plain_cast_to_its_double():
    """Where ``text_number`` found a number, Writer._category reads an XGBoost code by the plain cast (without
    the text's tests) to round it in double arithmetic: the same cast."""
    for d in DIALECTS.values():
        if d.float32 is None:
            assert d.text_number.endswith(f" THEN CAST({{0}} AS {d.double_type}) END"), d.name


def test_category_codes_spelled_as_numbers_in_a_walk(walker):
    """The same where the tree is walked as arrays (a category becomes its position among the categories)."""
    dialect, connection = walker
    for spelt in (None, FRACTIONS):
        model = coded_model(3, Codes.TRUNCATED, "float32", spelt)
        model = replace(model, trees=[bushy_tree(random.Random(3), model.features, model.target, 9)])
        assert len(model.trees[0].nodes) > WALK_NODES and is_walked(emit(model, "sql", dialect=dialect), dialect)
        check_spelled_codes(model, dialect, connection, [dialect])


def check_spelled_codes(model: Model, engine: str, connection: dict, dialects: list[str]) -> None:
    """Rows with the model's codes spelled every way, in each dialect run by the engine: the model's answers
    (labels and probabilities, bit for bit) on the rows with the categories the codes name."""
    spelled = SPELLED + NEAR
    first, second = (f.name for f in model.features if not f.is_numeric)
    rows = [{"x0": 0.5, first: a, second: b} for a in spelled for b in ("0", "1.0", "x")]
    expected = predict_rows(model, [as_named(model, r) for r in rows])
    for dialect in dialects:
        results = query(emit(model, "sql", dialect=dialect, proba=True), model, rows, engine, **connection)
        for row, result, (label, scores) in zip(rows, results, expected):
            assert list(result[len(model.features):]) == [label, *scores], (dialect, row)


def test_weka_label_of_two_infinite_scores_is_the_first(engine):
    """Weka's rule passes the best class only by a score greater by more than 1e-6: of two infinite scores
    (an exp link's), the first stays, though their difference is NaN, which PostgreSQL, DuckDB and Spark
    order above every number."""
    dialect, connection = engine
    x = Feature("x", NUMERIC)

    def tree(output: int, value: float) -> Tree:
        return Tree([Node((0.0,), split=Split(0, "<=", 0.0, missing=MissingRoute.to_child(0)), children=(1, 2)),
                     Node((value,)), Node((0.0,))], output=output)
    model = Model((x,), Target("y", CLASSIFICATION, ("a", "b", "c")), [tree(0, 800.0), tree(1, 800.0), tree(2, 1.0)],
                  Combine("sum", init=(0.0, 0.0, 0.0), link="exp", decide="weka"))
    rows = [{"x": -1.0}, {"x": 1.0}, {"x": None}]
    assert [model.predict(row) for row in rows] == ["a", "a", "a"] and model.scores(rows[0])[:2] == [math.inf] * 2
    if DIALECTS[dialect].infinity is None:  # MySQL: no infinity, a score beyond the doubles is an error (README)
        with pytest.raises(Exception, match="out of range"):
            query(emit(model, "sql", dialect=dialect), model, rows, dialect, **connection)
        return
    assert_agrees(model, rows, dialect, **connection)


def test_quote_characters_and_names_at_the_length_limit(engine):
    """Each engine's own quote characters inside names, categories and labels; a feature name as long
    as the engine allows (in UTF-8 bytes; MySQL: characters, where 33 two-byte ones were refused); labels that
    are the same for the engine's first bytes."""
    dialect, connection = engine
    limit = DIALECTS[dialect].name_limit or 100
    longest = "\u00e9" * limit if dialect == "mysql" else "\u00e9" * (limit // 2) + "x" * (limit % 2)
    names = ["back`tick", "two``ticks", 'dq"uote', "it's", longest]
    labels = ("L" * 70 + "1", "L" * 70 + "2", "` ", "IT'S")  # "` ": an alias may end with a space
    model = random_model(12, n_numeric=3, n_nominal=2, names=names, classes=labels)
    model = with_categories(model, ["x`y", "`", "``", "\\`", 'q"', "'", "\\'", "x'`\"y"] * 3)
    assert_agrees(model, probe_rows(model, limit=200, aimed=200), dialect, **connection)
    if DIALECTS[dialect].name_limit:
        too_long = replace(model, features=(replace(model.features[0], name=longest + "y"),) + model.features[1:])
        with pytest.raises(TreegenError, match="longer than"):
            emit(too_long, "sql", dialect=dialect)


# ASCII, a Latin-1 letter, the Kelvin sign; a dotted I and sigmas, which MySQL folds a character at a time, Spark as
# str.lower does (a final sigma)
CASE_TWINS = [("x", "X"), ("\u00e9", "\u00c9"), ("k", "\u212a"), ("i", "\u0130"), ("\u03c3", "\u03c2"),
              ("\u0391\u03a3", "\u03b1\u03c3"), ("\u0391\u03a3", "\u03b1\u03c2")]


def test_names_that_differ_only_in_case(engine):
    """Where the engine folds two feature names alike (SQLite and DuckDB fold A-Z only; MySQL every letter, a
    character at a time; Spark every letter), the SQL is refused as it is written, in one line, and the engine
    itself cannot tell the two columns apart; elsewhere they are two columns and the SQL runs (MySQL: 'i' and
    '\u0130', '\u0391\u03a3' and '\u03b1\u03c3' were written, and MariaDB found them the same column)."""
    dialect, connection = engine
    d = DIALECTS[dialect]
    for low, high in CASE_TWINS:
        model = random_model(6, names=(low, high, "x2", "c0", "c1"))
        if d.folded(low) != d.folded(high):
            assert_agrees(model, probe_rows(model, limit=100, aimed=100), dialect, **connection)
            continue
        with pytest.raises(TreegenError, match=f"^{dialect}: the features {low!r} and {high!r} would be the same column$"):
            emit(model, "sql", dialect=dialect)
        with pytest.raises(Exception):  # its CREATE TABLE, or the query, refuses them as well
            query(f"SELECT {d.identifier(low)}, {d.identifier(high)} FROM {d.identifier('input')}", model, [],
                  dialect, **connection)


def test_leaf_column_lists_the_leaves_reached_with_weight(engine):
    """C4.5's fractional routes send a row missing a value to several leaves: the leaf column lists
    those whose weight is above zero, in node order (Model.leaf_ids, as every target prints it) --
    not a child whose fraction is 0, nor one whose weight underflows to 0 across two features."""
    dialect, connection = engine
    model = random_model(11, missing_kinds=("fraction", "stop", "child"))
    rows = probe_rows(model, limit=200, aimed=200) + random_rows(model, 100, seed=11, missing=0.5)
    assert_agrees(model, rows, dialect, **connection)
    assert any("|" in leaf_ids(model, row) for row in rows)
    tiny = MissingRoute.fraction((1e-200, 1.0))
    nodes = [Node((0.5, 0.5), split=Split(0, "<=", threshold=0.0, missing=tiny), children=(1, 4)),
             Node((0.5, 0.5), split=Split(1, "<=", threshold=0.0, missing=tiny), children=(2, 3)),
             Node((1.0, 0.0)), Node((0.0, 1.0)),
             Node((0.5, 0.5), split=Split(1, "<=", threshold=1.0, missing=MissingRoute.fraction((0.0, 1.0))),
                  children=(5, 6)),
             Node((1.0, 0.0)), Node((0.0, 1.0))]
    model = Model((Feature("a", NUMERIC), Feature("b", NUMERIC)), Target("y", CLASSIFICATION, ("n", "p")), [Tree(nodes)])
    rows = [{"a": a, "b": b} for a in (None, -1.0, 1.0) for b in (None, -1.0, 0.5, 2.0)]
    assert leaf_ids(model, {"a": None, "b": None}) == "3|6"  # 2 underflows, 5 has weight 0
    if dialect == "postgres":  # PostgreSQL raises an error where a product underflows to 0
        rows = [row for row in rows if row["a"] is not None or row["b"] is not None]
    assert_agrees(model, rows, dialect, **connection)


def test_fractional_sums_are_j48s(engine):
    """A row missing values at C4.5's fractional splits: J48's arithmetic (each path's fractions
    multiplied root first, the sums nested as the tree nests), bit for bit -- a model whose flat sum
    with weights multiplied per feature differs from it in two of these rows."""
    dialect, connection = engine
    model = random_model(1)
    rows = random_rows(model, 60, 1)
    results, first = query(emit(model, "sql", dialect=dialect, proba=True), model, rows, dialect, **connection), len(model.features)
    assert [list(r[first + 1:]) for r in results] == [tree_output(model, model.trees[0], row) for row in rows]


def test_duckdb_writes_each_path_weight_of_a_fractional_tree_once():
    """DuckDB's query names each path weight of a tree with fractional routes, which every class's sum and
    the leaf ids read: written in each class's sum (as ANSI's are), a 386-node C4.5 tree of 4 classes was a
    2.8 MB query that DuckDB's common subexpression optimizer took 65 s to plan (named: 0.8 MB, 2.5 s). Its
    answers, probabilities and leaf ids stay the model's."""
    model = with_fractions(random_model(5, max_depth=6, classes=("a", "b", "c", "d")), seed=5)
    assert len(model.trees[0].nodes) > 50
    ansi, duckdb = (emit(model, "sql", dialect=d, proba=True, leaf=True) for d in ("ansi", "duckdb"))
    assert len(duckdb) < 0.35 * len(ansi)
    rows = probe_rows(model, limit=300, aimed=300) + random_rows(model, 100, seed=5, missing=0.5)
    assert any("|" in leaf_ids(model, row) for row in rows)
    assert_agrees(model, rows, "duckdb")


# -- size --------------------------------------------------------------------------------------

# Sizes a test run affords (figures for 50,000 leaves are in bench/README.md). Spark and DuckDB walk
# big trees as arrays, and SQLite prepares a big nested CASE in linear time: they take the required sizes.
BIG = {"wide": wide_model, "chain": chain_model}
BIG_SIZES = {"wide": 5_000, "chain": 10_000}
REQUIRED_SIZES = {"wide": 50_000, "chain": 10_000}
TAKE_REQUIRED_SIZES = {"spark", "duckdb", "sqlite"}


@functools.cache
def big_model_and_rows(kind: str, size: int) -> tuple[Model, list[dict]]:
    """A big tree and its rows, made once a process: three engines read the same 50,000 leaves (the
    model is not changed by the tests that share it)."""
    model = BIG[kind](size)
    probes = probe_rows(model)  # one row per threshold and ulp: 30,000 for the chain
    return model, random_rows(model, 40, seed=1) + probes[::max(1, len(probes) // 40)]


@pytest.mark.parametrize("kind", sorted(BIG))
def test_big_trees(engine, kind):
    dialect, connection = engine
    model, rows = big_model_and_rows(kind, (REQUIRED_SIZES if dialect in TAKE_REQUIRED_SIZES else BIG_SIZES)[kind])
    sql = emit(model, "sql", dialect=dialect)
    first = len(model.features)
    results = query(sql, model, rows, dialect, **connection)
    assert [r[first] for r in results] == [label for label, _ in predict_rows(model, rows)]


WALK_NODES = 500  # the smallest tree walked, here: Spark's own limit, lowered to it for DuckDB's walk


@pytest.fixture(params=["spark", "duckdb"])
def walker(request, monkeypatch):
    """(dialect, connection options) of each dialect that walks big trees as arrays, walking every tree
    of more than WALK_NODES nodes."""
    name = request.param
    if name == "duckdb":
        monkeypatch.setitem(DIALECTS, name, replace(DIALECTS[name], walk_tree_nodes=WALK_NODES))
        return name, {}
    assert DIALECTS[name].walk_model_nodes == WALK_NODES
    return name, {"spark": request.getfixturevalue("spark")}


def loops(sql: str, dialect: str) -> int:
    """The number of walks' loops in the query."""
    loop = DIALECTS[dialect].arrays.loop
    return sql.count(loop[:loop.index("{")])


def folded_walks(sql: str, dialect: str) -> int:
    """The number of sums that read the terms of trees walked together as one array."""
    arrays = DIALECTS[dialect].arrays
    return sql.count(arrays.fold[:arrays.fold.index("{")] + arrays.each[:arrays.each.index("{")])


def is_walked(sql: str, dialect: str) -> bool:
    return loops(sql, dialect) > 0


def walked_models(seed: int):
    """Numeric trees big enough to walk as arrays: thresholds on a grid and on random floats,
    missing values stopping or sent to a child, several trees, float32 cuts, regression, names that a
    loop variable could hide, hostile labels, missing intervals (read before the walk)."""
    from treegen.model import NumericSemantics
    big = dict(n_numeric=4, n_nominal=0, max_depth=14, missing_kinds=("stop", "child"))
    intervals = random_model(seed, **big)
    intervals.features = tuple(replace(f, missing_interval=interval) for f, interval in
                               zip(intervals.features, [(-0.5, 0.25), (0.0, 0.0), None, (-1e300, -2.0)]))
    return [random_model(seed, n_trees=3, **big), random_model(seed, regression=True, **big),
            random_model(seed, numeric=NumericSemantics(cast="float32"), **big),
            random_model(seed, names=("n", "LEVEL", "treegen_node", "a`b"), classes=tuple(HOSTILE_NAMES[:4]), **big),
            intervals]


def test_walks_of_big_numeric_trees_are_exact(walker):
    dialect, connection = walker
    for seed in (0, 3):  # seeds whose every tree is big enough
        for model in walked_models(seed):
            assert min(len(tree.nodes) for tree in model.trees) > WALK_NODES
            sql = emit(model, "sql", dialect=dialect)
            # three trees: each class's average adds the last two as one array (ArrayWalk.together)
            assert is_walked(sql, dialect) and folded_walks(sql, dialect) == (3 if len(model.trees) == 3 else 0)
            rows = probe_rows(model, limit=150, aimed=150) + random_rows(model, 50, seed=seed, missing=0.3)
            as_nan = [{k: math.nan if v is None else v for k, v in row.items()} for row in rows]
            # NaN is missing, in the model and in the SQL alike; one query (each costs Spark a parse,
            # an analysis, a plan and its compilation)
            results, first = assert_agrees(model, rows + as_nan, dialect, **connection), len(model.features)
            assert [r[first:] for r in results[len(rows):]] == [r[first:] for r in results[:len(rows)]]


DUCKDB_LTS = "1.4.5"  # DuckDB's long-term support release, which warehouses keep while 2.x moves on


def test_walks_run_on_duckdb_lts(installed_beside, monkeypatch):
    """The walks of big trees, one tree and several side by side, run on DuckDB's LTS release as on the suite's
    DuckDB, row for row (1.4 binds no list_reduce whose initial value is of another type than the list's items:
    the walks of several trees did not bind). The LTS release is installed beside the suite's, for a process of
    its own."""
    import json
    import subprocess
    import sys
    import duckdb
    from treegen.run.sql import create_table
    monkeypatch.setitem(DIALECTS, "duckdb", replace(DIALECTS["duckdb"], walk_tree_nodes=WALK_NODES))
    lts = installed_beside(f"duckdb=={DUCKDB_LTS}")
    # (no progress bar: DuckDB prints one on stdout for a query of over 2 s, as a busy machine makes the walk's)
    script = ("import duckdb, json, sys; job = json.load(sys.stdin); "
              "connection = duckdb.connect(); connection.execute('SET enable_progress_bar = false'); "
              "print(duckdb.__version__); connection.execute(job['create']); "
              "connection.executemany(job['insert'], job['rows']); "
              "print(json.dumps(connection.execute(job['sql']).fetchall()))")
    for model in walked_models(0)[:2]:
        sql = emit(model, "sql", dialect="duckdb", proba=model.target.is_classification, leaf=True)
        assert is_walked(sql, "duckdb")
        rows = [[row.get(f.name) for f in model.features] for row in probe_rows(model, limit=100, aimed=100)]
        job = {"create": create_table(model, "duckdb"), "sql": sql, "rows": rows,
               "insert": f"INSERT INTO input VALUES ({', '.join('?' * len(model.features))})"}
        done = subprocess.run([sys.executable, "-c", script], input=json.dumps(job), capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": lts})
        assert done.returncode == 0, done.stderr[-2000:]
        version, printed = done.stdout.splitlines()
        with closing(duckdb.connect()) as connection:
            connection.execute(job["create"])
            connection.executemany(job["insert"], rows)
            here = json.loads(json.dumps(connection.execute(sql).fetchall()))
        assert version == DUCKDB_LTS and json.loads(printed) == here


HOSTILE_CATEGORIES = ["it's", 'say "hi"', "back\\slash", "a,b", "", " leading space", "new\nline", "\\'",
                      "%s", "名字", "null", "{{ x }}"]


def bushy_tree(rng: random.Random, features, target: Target, depth: int) -> Tree:
    """A tree split at every node down to ``depth``: ``<=`` on numeric features; on nominal ones
    ``in`` or an ``==`` over the categories shuffled; missing values stopping or sent to a random
    child. Built level by level."""
    def value():
        if not target.is_classification:
            return (rng.uniform(-100, 100),)
        raw = [rng.random() for _ in target.classes]
        return tuple(r / sum(raw) for r in raw)
    nodes, level = [Node(value())], [0]
    for _ in range(depth):
        below = []
        for node_id in level:
            index = rng.randrange(len(features))
            categories = features[index].categories
            if features[index].is_numeric:
                split = Split(index, "<=", threshold=rng.choice([0.0, 0.5, -1.0, rng.uniform(-10, 10)]))
            elif rng.random() < 0.5:
                split = Split(index, "==", values=tuple(rng.sample(categories, len(categories))))
            else:
                split = Split(index, "in", values=tuple(rng.sample(categories, rng.randint(1, len(categories) - 1))))
            arity = len(split.values) if split.op == "==" else 2
            route = MissingRoute.stop() if rng.random() < 0.3 else MissingRoute.to_child(rng.randrange(arity))
            children = tuple(range(len(nodes), len(nodes) + arity))
            nodes += [Node(value()) for _ in children]
            nodes[node_id] = replace(nodes[node_id], split=replace(split, missing=route), children=children)
            below += children
        level = below
    return Tree(nodes).canonical()


def nominal_walked_models(seed: int):
    """Trees big enough to walk with nominal ``==`` and ``in`` splits: mixed with numeric
    ones, nominal only, several trees, regression; hostile categories and labels."""
    rng = random.Random(seed)
    pool = iter(HOSTILE_CATEGORIES * 10)
    nominal = tuple(Feature(f"c{j}", NOMINAL, tuple(f"{next(pool)}{i}" for i in range(4))) for j in range(3))
    mixed = (Feature("n", NUMERIC), Feature("x", NUMERIC)) + nominal
    labels = Target("y", CLASSIFICATION, tuple(HOSTILE_NAMES[:4]))
    regression = Target("y", REGRESSION)
    return [Model(mixed, labels, [bushy_tree(rng, mixed, labels, 8)]),
            Model(nominal, regression, [bushy_tree(rng, nominal, regression, 7)]),
            Model(nominal, labels, [bushy_tree(rng, nominal, labels, 7) for _ in range(2)], Combine("average"))]


def test_walks_of_big_nominal_trees_are_exact(walker):
    dialect, connection = walker
    for seed in (0, 1):
        for model in nominal_walked_models(seed):
            assert min(len(tree.nodes) for tree in model.trees) > WALK_NODES
            assert any(node.split is not None and node.split.op == op for node in model.trees[0].nodes for op in ("==", "in"))
            sql = emit(model, "sql", dialect=dialect)
            # several trees walked together, in one loop (treegen.emit.sql.walk.ArrayWalk.forest_walk)
            assert loops(sql, dialect) == 1 and DIALECTS[dialect].arrays.position.split("(")[0] in sql
            rows = probe_rows(model, limit=150, aimed=150) + random_rows(model, 80, seed=seed, missing=0.3)
            assert_agrees(model, rows, dialect, **connection)


# -- long sums ----------------------------------------------------------------------------------

def test_ensembles_longer_than_a_chain_add_up_bit_for_bit(engine):
    """Trees summed (boosting, with tree weights) and averaged (a forest), 50 more than the longest
    chain of additions the dialect writes (SQLite's and MariaDB's 500, PostgreSQL's 1,000): in the
    model's order, bit for bit, as a fold over a list (DuckDB, Spark) or in named partial sums, one
    step of the query each. Their leaf ids, joined pairwise in parentheses, nest log2(trees) deep
    (without them ``a || b || c ...`` read as a chain: beyond SQLite's and DuckDB's depth of 1,000)."""
    dialect, connection = engine
    d = DIALECTS[dialect]
    n_trees = max(d.sum_terms, d.lookup_sum_terms or 0) + 50
    base = random_model(5, regression=True, n_trees=n_trees, max_depth=2, missing_kinds=("child", "stop"))
    rng = random.Random(5)
    weighted = [replace(tree, weight=rng.uniform(0.5, 2.0)) for tree in base.trees]
    boosted = replace(base, trees=weighted, combine=Combine("sum", init=(0.3,), scale=0.1, link="identity"))
    for model in (boosted, base):
        rows = random_rows(model, 40, seed=3)
        sql, first = emit(model, "sql", dialect=dialect, leaf=True), len(model.features)
        with without_whole_stage_code(connection):
            results = query(sql, model, rows, dialect, **connection)
        assert [r[first] for r in results] == [value for value, _ in predict_rows(model, rows)]
        assert [str(r[-1]) for r in results] == leaf_ids_rows(model, rows)


# How an engine's plan shows a derived table computed as a step of its own
STEP_IN_PLAN = {"sqlite": ("EXPLAIN QUERY PLAN ", "CO-ROUTINE"), "postgres": ("EXPLAIN ", "Subquery Scan"),
                "mysql": ("EXPLAIN ", "DERIVED")}


@pytest.mark.parametrize("engine", sorted(STEP_IN_PLAN), indirect=True)
def test_each_step_of_an_ensemble_is_computed_once_a_row(engine):
    """SQLite, PostgreSQL and MariaDB merge a derived table into the query around it, writing its
    expressions into every place that names their column: a boosted model's trees would run once for
    each use of its scores (SQLite: 82 s instead of 0.5 s, bench/README.md). The dialect's
    ``kept_apart`` keeps every step a node of the plan of its own."""
    dialect, connection = engine
    model = boosted_model(3, "softmax")
    rows = random_rows(model, 20, seed=3)
    sql, kept_apart = emit(model, "sql", dialect=dialect, proba=True), DIALECTS[dialect].kept_apart
    explain, step = STEP_IN_PLAN[dialect]

    def steps_in_plan(text: str) -> int:
        return sum(step in str(line) for line in query(explain + text, model, rows, dialect, **connection))
    steps = sql.count(kept_apart)
    assert steps >= 4 and steps_in_plan(sql) >= steps
    # without it, the engine merges them (SQLite's first, the features read once a row, stays: merged, it
    # overflows the parser's stack)
    first = sql.index(kept_apart) + len(kept_apart) if DIALECTS[dialect].numeric_text else 0
    assert steps_in_plan(sql[:first] + sql[first:].replace(kept_apart, "")) < steps


@contextmanager
def without_whole_stage_code(connection: dict):
    """Spark's queries without whole-stage code generation, for a query whose whole-stage code Janino
    cannot compile: Spark logs the failure and runs the plan without it, the plan this asks for at
    once, sparing the failed compilation (the ensembles above: 11 of 21 s of Spark's CPU)."""
    spark, key = connection.get("spark"), "spark.sql.codegen.wholeStage"
    if spark is None:
        yield
        return
    before = spark.conf.get(key)
    spark.conf.set(key, "false")
    try:
        yield
    finally:
        spark.conf.set(key, before)


@pytest.mark.parametrize("engine", [name for name in ENGINES if not DIALECTS[name].fold], indirect=True)
def test_a_tree_with_fractional_routes_over_more_leaves_than_a_chain_adds_up_bit_for_bit(engine):
    """A missing value at a fractional split reaches every leaf below it: its weighted values summed in
    node order, bit for bit, over more leaves than the dialect's chain of additions (in named partial
    sums; the engines with a fold are tested on long sums above)."""
    dialect, connection = engine
    d = DIALECTS[dialect]
    model = with_fractions(wide_model(2 * d.sum_terms, n_features=4, seed=2, regression=True), seed=2)
    rows = random_rows(model, 30, seed=4, missing=0.5)
    sql, first = emit(model, "sql", dialect=dialect), len(model.features)
    assert [r[first] for r in query(sql, model, rows, dialect, **connection)] == [model.predict(row) for row in rows]


# -- expression mode, options, protocol -----------------------------------------------------------

def test_expression_mode_is_the_query_inlined(engine):
    dialect, connection = engine
    d = DIALECTS[dialect]
    models = [random_model(7, n_trees=2), boosted_model(7, "softmax"), random_model(8, regression=True),
              replace(random_model(9, n_trees=2), combine=Combine("average", decide="weka"))]
    # XGBoost's links: each expf reads its argument about ten times; written inline, 1.2 MB for 9 trees filled
    # Spark's 1 GB parser heap, and one tree a class (245,000 characters) took DuckDB 12 s of CPU to plan. Where an
    # output would double so, DuckDB and Spark bind the steps to lambdas' variables (Writer.bound), SQLite and
    # PostgreSQL make it a scalar subquery of them (Writer.item).
    if d.float32:
        models.append(float32_model(boosted_model(7, "softmax", trees_per_column=1)))
    for model in models:
        rows = probe_rows(model, limit=100, aimed=100)
        proba = model.target.is_classification
        full = query(emit(model, "sql", dialect=dialect, proba=proba, leaf=True), model, rows, dialect, **connection)
        items = emit(model, "sql", dialect=dialect, expression=True, proba=proba, leaf=True)
        columns = ", ".join(d.identifier(f.name) for f in model.features)
        inlined = query(f"SELECT {columns}, {items} FROM {d.identifier('input')}", model, rows, dialect, **connection)
        assert inlined == full
        alone = emit(model, "sql", dialect=dialect, expression=True)
        assert not alone.rstrip().endswith(d.identifier("prediction"))
        predicted = query(f"SELECT {alone} FROM {d.identifier('input')}", model, rows, dialect, **connection)
        assert [p for (p,) in predicted] == [r[len(model.features)] for r in full]



@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_an_expression_is_as_long_as_counted_before_it_is_written(dialect):
    """The length counted without writing (each named value once) is the written expression's, so that
    one too long for the engine is refused before treegen builds gigabytes of text."""
    for model in (boosted_model(3, "softmax"), float32_model(boosted_model(3, "sigmoid")), random_model(3)):
        writer = Writer(computed(model, dialect, expression=True)[0], DIALECTS[dialect], STRATEGIES, expression=True,
                        fit=False)
        if not writer.inlines:  # SQLite's float32 steps: a scalar subquery of named steps, nothing inlined
            assert (dialect, model.combine.precision) == ("sqlite", "float32")
            continue
        prediction = writer.prediction(False)
        assert writer.inlined_length(prediction) == len(writer.fitted(prediction))


def test_an_expression_longer_than_sqlite_reads_is_refused_before_it_is_written():
    model = boosted_model(3, "softmax")
    length = len(emit(model, "sql", dialect="sqlite", expression=True)) - 1
    shorter = replace(DIALECTS["sqlite"], sql_length=length - 1)
    writer = Writer(model, shorter, STRATEGIES, expression=True)
    with pytest.raises(TreegenError, match=f"^sqlite: the expression would be {length:,} bytes, more than the engine "
                                           f"reads \\({length - 1:,}\\): it writes each shared value"):
        writer.fitted(writer.prediction(False))
    assert DIALECTS["sqlite"].sql_length == 1_000_000_000  # SQLITE_MAX_SQL_LENGTH, SQLite's "query string is too large"


KEPT = ["customer_id", "it's", 'say "hi"', "back`tick", "a,b", "名字", "treegen_t0", "amount"]


def kept_columns(dialect: str) -> list[str]:
    """Hostile names the dialect can hold as columns (one starting as the SQL's internal names do)."""
    return [name for name in KEPT if holds(DIALECTS[dialect], name)]


def with_kept(model: Model, kept: list[str], rows: list[dict]) -> tuple[Model, list[dict]]:
    """A model whose columns are the model's and the kept ones ("amount" numeric, the others text), to
    load the table with, and the rows with a value (or NULL) in each kept column."""
    extra = tuple(Feature(name, NUMERIC if name == "amount" else NOMINAL) for name in kept)
    values = [{name: (None if n % 7 == 3 else n + 0.5 if name == "amount" else f"{name} {n}") for name in kept}
              for n in range(len(rows))]
    return replace(model, features=model.features + extra), [{**row, **v} for row, v in zip(rows, values)]


def check_kept(model: Model, dialect: str, engine: str, connection: dict) -> None:
    """With --keep the SELECT returns the kept columns first, then exactly what it returns without."""
    kept = kept_columns(dialect)
    table, rows = with_kept(model, kept, probe_rows(model, limit=60, aimed=60))
    options = {"dialect": dialect, "proba": model.target.is_classification, "leaf": True}
    plain = query(emit(model, "sql", **options), table, rows, engine, **connection)
    got = query(emit(model, "sql", keep=kept, **options), table, rows, engine, **connection)
    assert [r[len(kept):] for r in got] == plain
    assert [list(r[:len(kept)]) for r in got] == [[row[name] for name in kept] for row in rows]
    assert [r[len(model.features)] for r in plain] == [want for want, _ in predict_rows(model, rows)]


def test_kept_columns_pass_through(engine):
    """A single tree's SELECT and an ensemble's chain of derived tables, whose "treegen_tN".* carries
    the kept columns to the end (a kept "treegen_t0" moves the internal names aside)."""
    dialect, connection = engine
    for model in [random_model(3), random_model(5, regression=True), boosted_model(3, "softmax")]:
        check_kept(model, dialect, dialect, connection)


def test_kept_columns_in_ansi_on_duckdb():
    check_kept(boosted_model(4, "sigmoid"), "ansi", "duckdb", {})


def test_kept_columns_that_clash_are_refused():
    model = random_model(1, names=("x0", "x1", "x2", "c0", "c1"))
    assert emit(model, "sql", dialect="sqlite", keep=" id , region,").startswith('SELECT\n  "id",\n  "region",\n  "x0"')
    refused = [({"keep": "id,X0"}, "sqlite: --keep 'X0' is the feature 'x0', in the result already"),
               ({"keep": "Prediction"},
                "sqlite: --keep 'Prediction' would be the same column as the output column 'prediction'"),
               ({"keep": "leaf", "leaf": True}, "--keep 'leaf' would be the same column as the output column 'leaf'"),
               ({"keep": "b", "proba": True}, "--keep 'b' would be the same column as the output column 'b'"),
               ({"keep": "id,ID"}, "sqlite: --keep 'ID' is named twice"),
               ({"keep": "id", "expression": True},
                "--keep names columns of the SELECT; --expression writes no SELECT"),
               ({"keep": ["a\0b"]}, "a name cannot contain a NUL character"),
               ({"keep": "x" * 64, "dialect": "postgres"}, "postgres: the kept column 'xxx.*' is longer than 63 bytes")]
    for options, message in refused:
        with pytest.raises(TreegenError, match=message.replace("(", "\\(")):
            emit(model, "sql", **{"dialect": "sqlite", **options})
    emit(model, "sql", dialect="postgres", keep="X0,Prediction,leaf")  # PostgreSQL keeps quoted names apart


def test_output_columns_are_named_apart_from_the_features():
    """A feature named prediction or leaf (or a label's probability column) is in the result already: the
    output columns take prediction_2, leaf_2, as the engine folds names, so the query nests as a subquery or
    a view; the answers are still the model's."""
    import sqlite3
    from treegen.run.sql import create_table, insert, values
    model = random_model(7, names=("Prediction", "leaf", "a", "c0", "c1"))
    sql = emit(model, "sql", dialect="sqlite", proba=True, leaf=True)
    rows = random_rows(model, 60, seed=7)
    with closing(sqlite3.connect(":memory:")) as connection:
        connection.execute(create_table(model, "sqlite"))
        connection.executemany(insert(model, "sqlite"), values(model, rows))
        cursor = connection.execute(f"SELECT * FROM ({sql.rstrip().rstrip(';')})")
        names = [column[0] for column in cursor.description]
        answers = cursor.fetchall()
    assert names == ["Prediction", "leaf", "a", "c0", "c1", "prediction_2", "a_2", "b", "c", "leaf_2"]
    assert [row[5] for row in answers] == [label for label, _ in predict_rows(model, rows)]
    assert [row[-1] for row in answers] == leaf_ids_rows(model, rows)
    assert emit(random_model(7), "sql", dialect="sqlite", proba=True, leaf=True).count("AS \"prediction\"") == 1


def test_ansi_runs_in_duckdb_and_postgres(postgres_dsn):
    for model in [random_model(4, n_trees=2), boosted_model(4, "sigmoid"), hostile_model(4, "ansi"),
                  float32_model(boosted_model(4, "sigmoid"))]:
        rows = probe_rows(model, limit=200, aimed=200)
        sql = emit(model, "sql", dialect="ansi", proba=True, leaf=True)
        assert query(sql, model, rows, "duckdb") == query(sql, model, rows, "postgres", dsn=postgres_dsn)
        assert_agrees(model, rows, "duckdb", exact=False, dialect="ansi")


def test_ansi_names_that_differ_only_in_case_run_apart_in_duckdb():
    """ANSI's quoted names are exact, so its SQL keeps features x and X (and labels a and A) apart; DuckDB, which
    verify runs it on, folds them in quotes too: verify said FAILED ("Column with name ... already exists").
    The runner renames them apart in the table and the query alike, and the answers are the model's."""
    from treegen.verifier import verify
    model = random_model(6, names=("x", "X", "input", "c0", "C0"), classes=("a", "A", "b"))
    sql = emit(model, "sql", dialect="ansi", proba=True, leaf=True)
    assert '"x"' in sql and '"X"' in sql and '"A"' in sql and '"input"' in sql
    results = verify(model, None, ["sql"], dialects=["ansi"], leaf=True)
    assert [(result.target, result.ok) for result in results] == [("sql/ansi", True)], results


def test_protocol_output():
    model = random_model(6, classes=("a,b", 'say "hi"', "plain"))
    assert len(model.used_features()) == len(model.features)  # read_csv reads only the columns used
    rows = probe_rows(model, limit=50, aimed=50)
    header = ",".join(f.name for f in model.features)
    lines = [",".join("" if row[f.name] is None else repr(row[f.name]) if f.is_numeric else row[f.name]
                      for f in model.features) for row in rows]
    csv_text = header + "\n" + "\n".join(lines) + "\n"
    assert read_csv(model, csv_text) == rows
    sql = emit(model, "sql", dialect="sqlite", proba=True, leaf=True)
    import csv
    import io
    predictions = [r[0] for r in csv.reader(io.StringIO(run(sql, csv_text, model=model)))]
    assert predictions == [model.predict(row) for row in rows]
    proba = list(csv.reader(io.StringIO(run(sql, csv_text, ["--proba"], model=model))))
    assert tuple(proba[0]) == model.target.classes
    assert all(all(is_close(float(p), s) for p, s in zip(line, model.scores(row))) for line, row in zip(proba[1:], rows))
    leaves = run(sql, csv_text, ["--leaf"], model=model).split()
    assert leaves == [leaf_ids(model, row) for row in rows]


def test_protocol_errors():
    model = random_model(6)
    assert len(model.used_features()) == len(model.features)
    with pytest.raises(TreegenError, match="no column"):
        read_csv(model, "x0,x1\n1,2\n")
    names = ",".join(f.name for f in model.features)
    with pytest.raises(TreegenError, match="not a number") as caught:
        read_csv(model, names + "\n1,2,3,v0_0,v1_0\n1,x,3,v0_0,v1_0\n")
    assert caught.value.line == 3
    with pytest.raises(RuntimeError, match="sqlite"):
        run("SELECT nonsense FROM input", names + "\n", model=model)


BACKSLASHED = ["a\\b", "\\", "c\\'", "d\\", "\\\\'", "e\\\nf", "\\n"]  # strings holding backslashes, at either end


def test_mysql_sql_reads_alike_under_every_sql_mode(mysql_server):
    """The mysql SQL writes no backslash escape: its strings mean the same with NO_BACKSLASH_ESCAPES in the
    server's sql_mode as without, and the runner runs it under the server's own mode."""
    import pymysql

    from treegen.run.sql import _mysql_parameters
    model = with_categories(random_model(6, classes=("a\\b", "\\", "it's")), BACKSLASHED * 2)
    with closing(pymysql.connect(**_mysql_parameters(mysql_server), autocommit=True)) as connection:
        with connection.cursor() as cursor:
            cursor.execute("SELECT @@GLOBAL.sql_mode")
            [default] = cursor.fetchone()
            try:
                for mode in (default, "NO_BACKSLASH_ESCAPES"):
                    cursor.execute("SET GLOBAL sql_mode = %s", (mode,))  # the runner's new connection's
                    assert_agrees(model, probe_rows(model, limit=100, aimed=100), "mysql", dsn=mysql_server)
            finally:
                cursor.execute("SET GLOBAL sql_mode = %s", (default,))


def test_mysql_strings_keep_the_connections_collation(mysql_server):
    """A string holding a backslash is of the connection's collation and as coercible as a literal, in every
    sql_mode: a category equals the column's text it spells, and labels mix with other literals."""
    import pymysql

    from treegen.run.sql import _mysql_parameters
    d = DIALECTS["mysql"]
    with closing(pymysql.connect(**_mysql_parameters(mysql_server), charset="utf8mb4", autocommit=True)) as connection:
        with connection.cursor() as cursor:
            for collation in ("utf8mb4_general_ci", "utf8mb4_unicode_ci"):
                for mode in ("", "NO_BACKSLASH_ESCAPES"):
                    cursor.execute(f"SET NAMES utf8mb4 COLLATE {collation}")
                    cursor.execute("SET SESSION sql_mode = %s", (mode,))
                    for text in BACKSLASHED + HOSTILE_NAMES:
                        s = d.string(text).replace("%", "%%")  # the text as an argument, %s
                        cursor.execute(f"SELECT {s}, COLLATION({s}), COERCIBILITY({s}), "
                                       f"{d.text_key.format('%s')} = {s}, CASE WHEN %s IS NULL THEN 'x' ELSE {s} END",
                                       (text, text))
                        assert cursor.fetchone() == (text, collation, 4, 1, text), (collation, mode, text)


def test_postgres_strings_read_alike_whatever_standard_conforming_strings(postgres_dsn):
    import psycopg
    d = DIALECTS["postgres"]
    texts = BACKSLASHED + HOSTILE_NAMES
    assert d.string("it's") == "'it''s'"  # a string without a backslash is the plain literal
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        for setting in ("on", "off"):
            connection.execute(f"SET standard_conforming_strings = {setting}")
            sql = "SELECT " + ", ".join(d.string(text) for text in texts)
            assert list(connection.execute(sql.encode()).fetchone()) == texts, setting


def test_mysql_needs_connection_parameters():
    model = random_model(1)
    sql = emit(model, "sql", dialect="mysql")
    with pytest.raises(TreegenError, match="needs a mysql server: pass --mysql-dsn"):
        run(sql, [], model=model, dialect="mysql")
    with pytest.raises(TreegenError, match="got 'dbname=x'"):
        run(sql, [], model=model, dialect="mysql", dsn="user=root dbname=x")


def test_user_errors():
    model = random_model(1)
    with pytest.raises(TreegenError, match="unknown SQL dialect"):
        emit(model, "sql", dialect="oracle")
    twins = replace(model, features=(Feature("x", "numeric"), Feature("X", "numeric")) + model.features[2:])
    with pytest.raises(TreegenError, match="same column"):
        emit(twins, "sql", dialect="duckdb")
    emit(twins, "sql", dialect="postgres")  # PostgreSQL keeps quoted names apart
    with pytest.raises(TreegenError, match="empty name"):
        emit(replace(model, features=(Feature("", "numeric"),) + model.features[1:]), "sql", dialect="postgres")
    tree = replace(model, features=(Feature("\U0001F332 tree", "numeric"),) + model.features[1:])
    with pytest.raises(TreegenError, match="beyond U\\+FFFF"):  # no MySQL name holds it, column or alias
        emit(tree, "sql", dialect="mysql")
    emit(tree, "sql", dialect="postgres")


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_output_is_deterministic(dialect):
    model = hostile_model(0, dialect)
    first = emit(model, "sql", dialect=dialect, proba=True, leaf=True)
    assert first == emit(model, "sql", dialect=dialect, proba=True, leaf=True)


def test_table_option_quotes_each_part():
    sql = emit(random_model(1), "sql", dialect="postgres", table="my schema.my table")
    assert 'FROM "my schema"."my table" AS' in sql


def test_a_missing_interval_may_end_at_an_infinity(engine):
    """XGBoost's missing=inf makes every double whose float32 is infinite missing: an interval that ends
    at an infinity, which bounds nothing and so is not written (MySQL has no infinity to write); an
    interval of every number makes each value missing."""
    name, connection = engine
    beyond_float32 = 3.4028235677973366e38  # FLT_MAX plus half an ulp: float32 rounds it to inf
    model = random_model(5, n_numeric=4, n_nominal=0, max_depth=4, missing_kinds=("stop", "child"))
    intervals = [(beyond_float32, math.inf), (-math.inf, -beyond_float32), (-math.inf, math.inf), None]
    model.features = tuple(replace(f, missing_interval=i) for f, i in zip(model.features, intervals))
    sql = emit(model, "sql", dialect=name)
    assert "inf" not in re.sub("'[^']*'", "", sql).lower() or name != "mysql"  # (a text column's 'inf' is text)
    edges = [beyond_float32, -beyond_float32, math.nextafter(beyond_float32, 0), 1e39, -1e39, 0.5]
    rows = probe_rows(model, limit=60, aimed=60) + [{f.name: v for f in model.features} for v in edges]
    if name == "mysql":  # a MySQL double holds no infinity
        rows = [row for row in rows if not any(isinstance(v, float) and math.isinf(v) for v in row.values())]
    assert_agrees(model, rows, name, **connection)


def with_cuts_at_minus_infinity(model: Model, seed: int) -> Model:
    """The model with about a third of its numeric splits at -inf: CART's cut between -inf and the next value
    seen (their midpoint), where -inf alone goes left."""
    rng = random.Random(seed)
    trees = [replace(tree, nodes=[replace(node, split=replace(node.split, threshold=-math.inf))
                                  if node.split is not None and node.split.op == Op.LE and rng.random() < 0.35
                                  else node for node in tree.nodes]) for tree in model.trees]
    return replace(model, trees=trees)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_split_at_minus_infinity_sends_minus_infinity_left(engine, seed):
    """x <= -inf holds for -inf: the rules wrote its branch as empty and the other as every number (-inf too)."""
    name, connection = engine
    model = with_cuts_at_minus_infinity(random_model(seed, n_trees=2, max_depth=5), seed)
    assert any(node.split.threshold == -math.inf for tree in model.trees for node in tree.nodes
               if node.split is not None and node.split.op == Op.LE)
    rows = probe_rows(model, limit=200, aimed=200)
    numeric = [f.name for f in model.features if f.is_numeric]
    rows += [{**row, x: value} for row in rows[:40] for x in numeric for value in (-math.inf, -sys.float_info.max)]
    if name == "mysql":  # a MySQL double holds no infinity
        rows = [row for row in rows if not any(isinstance(v, float) and math.isinf(v) for v in row.values())]
    assert_agrees(model, rows, name, **connection)


@pytest.mark.parametrize("table, message", [
    ("", "the table name is empty"),
    ("  ", "the table name is blank ('  ')"),
    ("a..b", "the table name 'a..b' has an empty part; dots separate schema and table names"),
    ("s. ", "the table name 's. ' has an empty part; dots separate schema and table names"),
    ("a\0b", "the table name 'a\\x00b' contains a NUL character"),
])
def test_a_bad_table_name_is_refused_as_the_table_name(table, message):
    """Not as a column name, in every dialect (SQLite's "" included: an empty --table is a mistake);
    --expression writes no FROM and takes any."""
    for dialect in sorted(DIALECTS):
        with pytest.raises(TreegenError, match=f"^{re.escape(message)}$"):
            emit(random_model(1), "sql", dialect=dialect, table=table)
    assert emit(random_model(1), "sql", table=table, expression=True)


@pytest.mark.parametrize("dialect, parts", [("sqlite", 2), ("mysql", 2), ("postgres", 3), ("duckdb", 3), ("ansi", 3)])
def test_a_table_name_of_more_parts_than_the_engine_takes_is_refused(dialect, parts):
    """SQLite and MySQL name a table by database and table, the others by catalog, schema and table."""
    name = ".".join("abcd"[:parts + 1])
    with pytest.raises(TreegenError, match=f"^the table name '{name}' has {parts + 1} parts; {dialect} takes at most"):
        emit(random_model(1), "sql", dialect=dialect, table=name)
    assert emit(random_model(1), "sql", dialect=dialect, table=name[:-2])


def test_spark_takes_a_table_in_nested_namespaces():
    assert "FROM `c`.`a`.`b`.`t`" in emit(random_model(1), "sql", dialect="spark", table="c.a.b.t")


def test_sqlites_answers_keep_their_types_and_names_and_read_no_table_of_treegens():
    """SQLite's answers are computed by one statement into a table of treegen's, then read (sqlite3 lets go of the
    GIL at each row of a SELECT; run.sql._answers_at_once): that table converts no value, the answers have the
    query's column names, and its name is none the query reads (a table named as it is the query's own)."""
    model = chain_model(2)
    rows = [{"x": 2.0}, {"x": None}]
    sql = ('SELECT "x", 2 AS "i", 2.0 AS "r", \'2\' AS "t", CAST(3.0 AS INTEGER) AS "c", x || \'\' AS "x" '
           'FROM "input"')
    answers = query(sql, model, rows, "sqlite")
    assert answers.columns == ("x", "i", "r", "t", "c", "x")
    assert [[(type(v).__name__, v) for v in row] for row in answers] == [
        [("float", 2.0), ("int", 2), ("float", 2.0), ("str", "2"), ("int", 3), ("str", "2.0")],
        [("NoneType", None), ("int", 2), ("float", 2.0), ("str", "2"), ("int", 3), ("NoneType", None)]]
    for table in ("treegen_answers", "temp.treegen_answers"):
        assert query(f'SELECT "x" FROM {table}', model, rows, "sqlite", table=table) == [(2.0,), (None,)]


def test_sqlite_reads_a_column_named_true_or_false_under_a_name_of_its_own():
    """SQLite 3.40 names a derived table's or a CTE's column 'true' or 'false' (any case) 'columnN', and reads
    the name as the Boolean: a forest's query passed the feature through as 1 and read leaf ids off it, or
    failed ("no such column"), found by a fuzz (sqlfuzz). Such a feature goes through the derived tables under a
    name of treegen's own, and comes out under its own; a --keep column so named is refused."""
    forest = random_model(3, names=("True", "x1", "x2", "c0", "c1"), n_trees=3)
    tree = random_model(4, names=("x0", "x1", "FALSE", "c0", "c1"), max_depth=4)
    for model in (forest, tree):
        rows = probe_rows(model, limit=200, aimed=200)
        results = assert_agrees(model, rows, "sqlite")  # labels, probabilities, leaf ids
        duckdb = query(emit(model, "sql", dialect="duckdb"), model, rows, "duckdb")
        assert [r[:len(model.features)] for r in results] == [r[:len(model.features)] for r in duckdb]
        columns = ", ".join(DIALECTS["sqlite"].identifier(f.name) for f in model.features)
        expression = emit(model, "sql", dialect="sqlite", expression=True)
        answers = query(f'SELECT {columns}, {expression} FROM "input"', model, rows, "sqlite")
        assert [row[len(model.features)] for row in answers] == [want for want, _ in predict_rows(model, rows)]
    with pytest.raises(TreegenError, match="^sqlite: --keep 'false': the engine renames such a column"):
        emit(random_model(3, n_trees=3), "sql", dialect="sqlite", keep="false")
