"""SQLite's parser has a stack of 100 entries: the SQL of a deep boosted model, its trees inside the
derived tables of the link's steps, is nested less deep where it would overflow, and still agrees."""
from __future__ import annotations

import sqlite3
from contextlib import closing

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.ensemble import HistGradientBoostingClassifier

from treegen.emit.sql import STRATEGIES, emit, find_dialect
from treegen.emit.sql.depth import depth, sqlite_reads, sqlite_stack_holds
from treegen.emit.sql.writer import Writer
from treegen.importers.sklearn import from_sklearn
from treegen.run.sql import create_table
from treegen.verifier import verify


def _parser_entries(expression: str) -> int:
    """The entries SQLite's parser stack takes to read ``expression``: 94 less the parentheses that still
    fit around it in a SELECT (``x`` alone: 1)."""
    def fits(parentheses: int) -> bool:
        with closing(sqlite3.connect(":memory:")) as connection:
            connection.execute('CREATE TABLE t (x REAL, y REAL, z TEXT)')
            try:
                connection.execute(f"SELECT {'(' * parentheses}{expression}{')' * parentheses} FROM t").fetchall()
            except sqlite3.OperationalError as error:
                assert "parser stack overflow" in str(error)
                return False
            return True
    low, high = -1, 94
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if fits(middle) else (low, middle - 1)
    return 94 - low


def _nested(levels: int, inner: str, where: str) -> str:
    for _ in range(levels):
        inner = (f"CASE WHEN x <= 1.5 THEN {inner} ELSE 2.0 END" if where == "then"
                 else f"CASE WHEN x <= 1.5 THEN 2.0 ELSE {inner} END")
    return inner


@pytest.mark.parametrize("expression", [
    "x", "x <= ifnull((CAST(-4941015558427863 AS REAL) / 144115188075855872 / 4611686018427387904), 0)",
    "CASE WHEN x THEN 0 WHEN y THEN x END", "y > 1 AND (x IS NULL OR x <= ifnull((CAST(1 AS REAL) / 4), 0))",
    "MAX(x, y, 3) - -x", "x NOT IN ('a', 'b') OR NOT x IS NOT NULL", "CAST(CAST(CAST(x AS REAL) AS TEXT) AS TEXT)",
    "z NOT GLOB '*[eE]' AND z GLOB 'a' || 'b'", _nested(8, "x", "then"), _nested(8, "x", "else"),
    _nested(6, "ifnull((CAST(1 AS REAL) / 4), 0)", "then"),
    "coalesce(CASE WHEN CASE WHEN z GLOB 'a' AND z NOT GLOB 'b' THEN CAST(z AS REAL) END > -ifnull(2147483648.0, 0) "
    "THEN CAST(CAST(CASE WHEN CASE WHEN z GLOB 'a' THEN CAST(z AS REAL) END = CAST(x AS INTEGER) THEN 1 END "
    "AS INTEGER) AS TEXT) END, z) IN ('1', '2')",
])
def test_depth_is_what_sqlites_parser_takes_or_a_little_more(expression):
    measured = _parser_entries(expression)
    assert measured <= depth(expression) <= measured + 1


def _deep_three_class_model(categorical: bool):
    X, y = make_classification(2000, 6, n_informative=5, n_redundant=0, n_classes=3, random_state=0)
    if categorical:  # integer codes: each split on it reads the text through a deep CASE
        X[:, 0] = np.digitize(X[:, 0], np.quantile(X[:, 0], np.linspace(0, 1, 9)[1:-1]))
    estimator = HistGradientBoostingClassifier(max_iter=2, max_depth=None, max_leaf_nodes=128, random_state=0,
                                               categorical_features=[0] if categorical else None).fit(X, y)
    return from_sklearn(estimator)


@pytest.mark.parametrize("categorical", [False, True])
def test_a_deep_three_class_model_parses_and_agrees_in_sqlite(categorical):
    """Its trees lie inside five derived tables (scores, maximum, exps, total, probabilities): at the
    nesting of a single tree the parser's stack overflowed."""
    model = _deep_three_class_model(categorical)
    assert max(_depth_of_tree(tree) for tree in model.trees) >= 14
    results = verify(model, None, ["sql"], ["sqlite"])
    assert all(r.ok for r in results), [r.line() for r in results]
    for options in ({"proba": True}, {"expression": True, "proba": True}):
        sql = emit(model, "sqlite", **options)
        with closing(sqlite3.connect(":memory:")) as connection:
            connection.execute(create_table(model, "sqlite"))
            connection.execute(f"SELECT {sql} FROM input" if "expression" in options else sql).fetchall()


def _depth_of_tree(tree) -> int:
    deepest, stack = 0, [(0, 0)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        stack += [(child, level + 1) for child in tree.nodes[node].children]
    return deepest


def _query(model, **fitting) -> tuple[Writer, str]:
    sqlite = find_dialect("sqlite")
    writer = Writer(model, sqlite, STRATEGIES, **fitting)
    return writer, writer.query(sqlite.table("input"), [("prediction", writer.prediction(False))])


def _column_at(writer: Writer, name: str, nesting: int) -> str:
    """The query's column of the named value ``name``, its trees' CASEs nested ``nesting`` deep."""
    writer.nesting = nesting
    return f"{writer.definitions[name][0](writer.column)} AS {writer.column(name)}"


def test_asking_sqlite_writes_each_column_as_deep_as_sqlites_parser_reads_it():
    """A query that overflows at the dialect's nesting: each class's sum of trees (the first step, inside
    every derived table) is written at the deepest nesting that SQLite's own parser reads, found by bisection."""
    model = _deep_three_class_model(False)
    assert not sqlite_reads(_query(model, fit=False)[1])
    writer, sql = _query(model, ask_sqlite=True)
    assert sqlite_reads(sql)
    stages = writer.stages()
    nesting = writer.d.nesting
    deepest = {name: max(n for n in range(nesting + 1) if sqlite_stack_holds(_column_at(writer, name, n), len(stages)))
               for name in stages[0]}
    assert min(deepest.values()) < nesting
    for name, n in deepest.items():
        assert _column_at(writer, name, n) in sql


def test_measuring_in_python_fits_the_query_where_sqlite_is_not_asked():
    """Where the sqlite3 module's SQLite is not a stock build, depth() measures each column instead."""
    model = _deep_three_class_model(True)
    assert not sqlite_reads(_query(model, fit=False)[1])
    assert sqlite_reads(_query(model, ask_sqlite=False)[1])


def test_sqlite_reads_says_what_sqlites_parser_reads():
    """The sqlite3 module's SQLite, a stock build here, tells at once whether SQL fits the stack (the
    writer measures each column with depth() only where it does not): 18 CASEs nested in THEN read, 19
    do not, as a SELECT or as expressions; a missing table or column is no matter."""
    assert sqlite_reads(f"SELECT {_nested(18, 'x', 'then')} AS p FROM elsewhere")
    assert not sqlite_reads(f"SELECT {_nested(19, 'x', 'then')} AS p FROM elsewhere")
    assert sqlite_reads(f"{_nested(18, 'x', 'then')} AS p,\n{_nested(18, 'y', 'else')} AS q\n", expression=True)
    assert not sqlite_reads(_nested(19, "x", "then"), expression=True)
    # the query as it is run: 93 parentheses around x fit (with EXPLAIN before it, which the SQL never has, 92)
    assert sqlite_reads(f"SELECT {'(' * 93}x{')' * 93} FROM elsewhere")
    assert not sqlite_reads(f"SELECT {'(' * 94}x{')' * 94} FROM elsewhere")


def test_sqlite_stack_holds_a_column_inside_its_derived_tables():
    """Each derived table around a column takes 6 entries of the stack, about one CASE level. Nesting less
    cures only an overflow of the stack: a column SQLite refuses otherwise (a syntax error here) is held."""
    assert [sqlite_stack_holds(f"{_nested(18, 'x', 'then')} AS p", tables) for tables in (0, 1)] == [True, False]
    assert sqlite_stack_holds(f"{_nested(17, 'x', 'then')} AS p", 1)
    assert sqlite_stack_holds("x +* 2")


def test_a_long_quoted_text_is_measured_in_memory_proportionate_to_it():
    """A model's category of a megabyte is a string literal of a megabyte in the SQL, which depth() and verify's
    SQLite check (run.sql._SQLITE_QUOTED) read: 150 and 123 MB of the regex engine's points to return to, one a
    character, before their repeats were possessive."""
    import tracemalloc

    from treegen.run.sql import _SQLITE_QUOTED
    text = "CASE WHEN \"x\" = '" + "a" * 1_000_000 + "' THEN \"" + "b" * 500_000 + "\" ELSE `c` END"
    tracemalloc.start()
    try:
        assert depth(text) == depth("CASE WHEN \"x\" = 'a' THEN \"b\" ELSE `c` END")
        assert _SQLITE_QUOTED.sub(lambda m: m.group(), text) == text
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * len(text), peak
