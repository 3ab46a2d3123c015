"""SQL back end: a model becomes one ``SELECT`` (or one expression) in any dialect of
:mod:`treegen.emit.sql.dialects`.

The SQL nests no deeper than a per-dialect limit however deep the tree is (SQLite's parser stack of
100 entries overflows at 18 nested ``CASE``, fewer inside derived tables: :mod:`.depth`; DuckDB's
expression depth is 1000; Spark's Janino gives up on deep generated code). How each tree is written
is a strategy, one module each, tried in the order of the dialect's row (``Dialect.strategies``)
until one takes the tree:

* :mod:`.oblivious` -- SQLite, PostgreSQL, DuckDB, Spark SQL: an oblivious tree (CatBoost's: every level tests one
  split) as the index of its leaf, made of each level's answer, and its outcome picked from the leaves' list by it;
  each distinct split's answer a named value, in a query computed once a row for every tree that tests it.
* :mod:`.nested` -- an exclusive tree (no fractional missing route) as a ``CASE`` nested along its
  own splits down to the dialect's ``nesting``, then a first-match flat ``CASE`` of each remaining
  subtree's rules.
* :mod:`.rules` -- any tree from its flat rules (:func:`treegen.lower.lower`): a first-match ``CASE``
  of an exclusive tree's rules, or, with fractional routes, ``weight * value`` of each rule added
  with J48's arithmetic (path weights multiplied root first, sums nested as the tree nests).
* :mod:`.walk` -- Spark SQL and DuckDB: a big tree as data (arrays of its nodes) and a loop that
  moves the row down one level per step.

:mod:`.writer` holds what every strategy shares: the conditions, the trees combined as the model
says (average; sum with init and scale, then the sigmoid or softmax link), the label, and the query
whose derived tables compute each shared value once (a walk; the number of the leaf a tree reached,
when several class scores read it; the scores).
"""
from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Sequence

from ...errors import TreegenError
from ...model import CombineKind, Link, Model, Precision, Tolerance
from ...table import split_names
from . import nested, oblivious, rules, walk
from .depth import sqlite_reads
from .dialects import DIALECT_ALIASES, DIALECTS, Dialect, find_dialect
from .writer import Writer

__all__ = ["DIALECT_ALIASES", "DIALECTS", "STRATEGIES", "Dialect", "computed", "emit", "find_dialect", "subquery_note", "tolerance"]


# name (as a dialect's row lists it) -> the strategy's class
STRATEGIES = {"nested": nested.NestedCase, "oblivious": oblivious.ObliviousTree, "rules": rules.FlatRules,
              "walk": walk.ArrayWalk}


def computed(model: Model, dialect: str = "ansi", expression: bool = False, **_options) -> tuple[Model, str | None]:
    """The model the SQL computes in ``dialect``, and why it is not ``model`` (None when it is): an
    ``expression`` whose sums of float32 steps nest deeper than the engine holds (``Dialect.rounded_sum_terms``:
    MySQL), where a query names partial sums, adds the sums and applies the link in double. That SQL is exact
    against that model; `treegen verify` measures how far its scores are from the float32 ones (about 1e-7
    relative) and holds the labels to the model's. (In an engine without a 4-byte float, SQLite, an expression
    rounds each float32 step in double arithmetic as a query does, in a scalar subquery of named steps:
    :meth:`.writer.Writer.item`.)"""
    d = find_dialect(dialect)
    if model.combine.precision != Precision.FLOAT32 or not expression or d.float32 is None or not d.rounded_sum_terms:
        return model, None
    terms = _longest_sum(model)
    if terms <= d.rounded_sum_terms:
        return model, None
    in_double = replace(model, combine=replace(model.combine, precision=Precision.FLOAT64))
    return in_double, (f"{d.name}: an expression of {terms} float32 additions nests deeper than the engine holds (a "
                       "query names partial sums); it computes the float32 sums and link in double")


def subquery_note(text: str, dialect: str = "ansi", expression: bool = False, **_options) -> str | None:
    """What `export` says of an expression ``text`` that has an output written as a scalar subquery of steps
    (:meth:`.writer.Writer.item`), which engines refuse in a generated column; None for any other text."""
    d = find_dialect(dialect)

    def starts(prefix: str) -> bool:  # an output (the first, or one after a line end) starting so
        return text.startswith(prefix) or "\n" + prefix in text
    if not expression or not d.correlated_steps:
        return None
    if starts("(WITH ") or starts("(SELECT (WITH "):
        return (f"{d.name}: an output that computes float32 steps (or reads a value more than once) is a scalar "
                "subquery of them, for a SELECT's list or a view (a generated column or an index refuses a subquery)")
    if starts("(SELECT "):  # Writer.read_once
        return (f"{d.name}: each output is a scalar subquery that reads the row's columns as treegen reads a CSV's "
                "fields (a TEXT column's texts too) and answers each split of categories combined once, for a "
                "SELECT's list or a view (a generated column or an index refuses a subquery)")
    return None


GROUPED_SUM_ERROR = 1e-12  # README: an expression's long sum, added in groups


def tolerance(model: Model, dialect: str = "ansi", expression: bool = False, program: bool = False,
              **_options) -> Tolerance | None:
    """How far the dialect's scores may be from the model's (None: bit for bit): an engine whose ``EXP``
    is not glibc's (``Dialect.exp_error``), where a link computes ``exp`` in double; an ``expression`` whose
    sums in double are longer than one chain of the dialect, which it adds in groups (a query names partial
    sums instead, :meth:`.writer.Writer.total`) -- a ``program`` (a file given to verify) may be another
    dialect's text run on the engine (ANSI's: the shortest chain, no fold)."""
    d = find_dialect(dialect)
    in_double = model.combine.precision != Precision.FLOAT32  # (float32 steps are added one by one)
    exp_link = model.combine.link in (Link.SIGMOID, Link.SOFTMAX, Link.EXP, Link.EXP_DOUBLE)
    chain = min(d.sum_terms, DIALECTS["ansi"].sum_terms) if program else d.sum_terms
    grouped = expression and in_double and (program or not d.fold) and _longest_sum(model) > chain
    if grouped and (d.exp_error is None or not exp_link or d.exp_error[0] < GROUPED_SUM_ERROR):
        return Tolerance(GROUPED_SUM_ERROR, f"an expression may add a sum of more than {chain} terms in groups")
    if d.exp_error is None or not exp_link or not in_double:
        return None
    return Tolerance(*d.exp_error)


def _longest_sum(model: Model) -> int:
    """The most terms a sum of the model adds: a raw sum's init and trees, or a forest's trees."""
    if model.combine.kind != CombineKind.SUM:
        return len(model.trees)
    return 1 + max(sum(tree.output in (None, k) for tree in model.trees) for k in range(len(model.combine.init)))


def emit(model: Model, dialect: str = "ansi", table: str = "input", expression: bool = False,
         proba: bool = False, leaf: bool = False, keep: str | Sequence[str] = ()) -> str:
    """The SQL that computes the model's prediction.

    Parameters
    ----------
    model : the model to write.
    dialect : one of ``ansi``, ``sqlite``, ``postgres``, ``duckdb``, ``mysql``, ``spark``.
    table : the input table (dots separate schema and table names); its columns are the features.
    expression : write only the expression(s), no ``SELECT``: the prediction alone, or
        ``expr AS name`` items separated by commas when ``proba`` or ``leaf`` add columns.
    proba : add one column of probability (score) per class, named after the class labels.
    leaf : add a ``leaf`` column, as :func:`treegen.model.leaf_ids` says: per tree the ids of the nodes
        where the row ended with a weight above zero, joined by ``|``; several trees joined by ``;``.
    keep : input columns the ``SELECT`` passes through, first, so that its rows can be joined back (a
        key): names separated by commas, or a list of names. A feature or an output column's name
        is an error.
    """
    d = find_dialect(dialect)
    source = None if expression else d.table(table)  # before the work, a bad name
    model, _ = computed(model, dialect, expression)
    kept = tuple(kept_names(keep))
    if kept and expression:
        raise TreegenError("--keep names columns of the SELECT; --expression writes no SELECT")
    write = partial(_written, model, d, source, expression, proba, leaf, kept)
    if not expression or d.parser_depth is None:
        # SQLite: each column at the dialect's nesting, less deep only where SQLite's parser stack would overflow:
        # asked of SQLite's own parser where the sqlite3 module's is a stock build, else measured in Python
        return write()
    # an expression writes each named value wherever it is read (a softmax: every sum of trees ~20 times), too
    # much to write again at each nesting tried (12-15x slower): parsed whole once, measured in Python if it overflows
    sql = write(fit=False)
    return sql if sqlite_reads(sql, expression) else write(ask_sqlite=False)


def _written(model: Model, d, source: str | None, expression: bool, proba: bool, leaf: bool, kept: tuple[str, ...],
             **fitting) -> str:
    """The query (or with ``expression`` its expressions); ``fitting``: :class:`Writer`'s ``fit`` and
    ``ask_sqlite``."""
    sql = Writer(model, d, STRATEGIES, with_leaf=leaf, expression=expression, kept=kept, **fitting)
    prediction, classes, leaf_name = sql.output_names()
    outputs = [(prediction, sql.prediction(proba))]
    if proba and model.target.is_classification:
        outputs += [(name, sql.score_ref(k)) for k, name in enumerate(classes)]
    if leaf:
        outputs.append((leaf_name, sql.leaf()))
    if expression:
        if len(outputs) == 1:
            return sql.item(outputs[0][1]) + "\n"
        return ",\n".join(sql.item(fn, name) for name, fn in outputs) + "\n"
    return sql.query(source, outputs)


def kept_names(keep: str | Sequence[str]) -> list[str]:
    """The names of ``keep``: a text is read as the CLI's lists of names are (:func:`treegen.table.split_names`)."""
    return split_names([keep]) if isinstance(keep, str) else list(keep)
