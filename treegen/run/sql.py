"""Run generated SQL for real: load rows into a table of the model's columns (DOUBLE for numeric
features, text for nominal ones, NULL for a missing value) in SQLite, DuckDB, PostgreSQL, MySQL
(MariaDB) or Spark SQL, run the query and print its answers as a generated program would (see the
common protocol).

The query is a ``SELECT`` as :func:`treegen.emit.sql.emit` writes it: its columns are the features, the
prediction, then the class probabilities (``proba``), then the leaf ids (``leaf``); which of these it has is
read from how many columns it returns. An ``expression`` (no ``SELECT``) is run as the ``SELECT`` of the
features and it from the table.
"""
from __future__ import annotations

import functools
import math
import os
import re
import sys
import threading
import warnings
from contextlib import closing
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from ..data import reads_as_missing
from ..emit.sql.dialects import Dialect, find_dialect
from ..emit.sql.writer import split_points
from ..errors import TreegenError
from ..model import NOMINAL, Feature, Model, category_of
from ..table import free_names
from .protocol import write_output


def run(sql: str, data: str | Sequence[dict], args: Sequence[str] = (), **context) -> str | None:
    """Run ``sql`` over ``data`` and return the output as a generated program prints it given ``args``
    (see :func:`run_each`)."""
    return run_each(sql, data, [args], **context)[0]


def run_each(sql: str, data: str | Sequence[dict], each_args: Sequence[Sequence[str]], *, model: Model,
             dialect: str = "sqlite", table: str = "input", dsns: dict | None = None, dsn: str | None = None,
             spark=None, rows: Sequence[dict] | None = None, source_name: str | None = None,
             keep: Sequence[str] = ()) -> list[str | None]:
    """Run ``sql``, written in ``dialect``, once over ``data`` (CSV text with a header row, or row dicts)
    on the dialect's engine (:data:`ENGINES`) and return the output as a generated program prints it,
    for each list of arguments in ``each_args``.

    Parameters
    ----------
    sql : a ``SELECT`` or an expression (see the module's description).
    each_args : ``--proba`` prints a header of class labels and the probability columns, ``--leaf`` the
        leaf column; None where the query returns no such columns.
    model : gives the table's columns and the class labels.
    dialect : the SQL dialect; its row in ``DIALECTS`` names the engine that runs it.
    dsns : engine name -> how to reach its server (see :class:`Engine`); ``dsn``: for this engine.
    spark : a SparkSession for the ``spark`` engine (default: a local one).
    rows : ``data`` already read (as :func:`read_csv` reads it), when the caller has it.
    source_name : the file ``sql`` was read from (`verify --program`): the engine's refusal of it is the user's
        to fix, a one-line error, as a query without the columns expected is.
    keep : the columns the query passes through first (its export's ``keep``): the table has them too, NULL.
    """
    engine = engine_for(dialect)
    dsn = dsn if dsn is not None else server_for(dialect, dsns or {})
    if rows is None:
        rows = read_csv(model, data) if isinstance(data, str) else list(data)
    read = with_columns(model, keep)  # the table's columns, and those before the outputs in the query's
    # over text columns too where the SQL reads them: the engine's own dialect (ANSI's, which DuckDB runs, reads none),
    # an expression only where a correlated subquery reads its numbers (SQLite's; Writer.conversions)
    d = find_dialect(dialect)
    as_text = (is_query(sql) or d.correlated_steps and d.numeric_text is not None) and engine.name == dialect
    sql = sql if is_query(sql) else as_query(sql, read, table, dialect)
    apart = named_apart(sql, read, rows, table, dialect)
    try:
        results = engine.query(*apart, dsn=dsn, spark=spark, names_checked=source_name is not None, as_text=as_text)
    except TreegenError:
        raise
    except Exception as err:  # the engine's own error: what a failing program prints on stderr
        if source_name is not None and not isinstance(err, ImportError):  # (a package missing: verify's hint)
            # its first line: what went wrong (the lines after it show where, or Spark's plan of the query)
            said = " ".join(str(err).strip().split("\n")[0].split())
            raise TreegenError(f"{engine.name} cannot run it: {said[:300]} (verify runs it "
                               f"on a table {find_dialect(dialect).table(table)} of the model's features and the "
                               f"--keep columns: are --dialect, --table and --keep the file's?)") from None
        raise RuntimeError(f"{engine.name}: {err}") from err
    if source_name is not None:
        _check_passed_through(results, apart[1], keep)
    return [format_results(read, results, args) for args in each_args]


def _check_passed_through(answers: Answers, table: Model, keep: Sequence[str]) -> None:
    """An error unless a query's first columns are the table's (the features and the ``keep`` columns, in any
    order): its outputs are read by their place after them, and a file exported with other ``--keep`` columns
    would have its prediction read from a feature's column, or a probability from the prediction's."""
    names = [f.name for f in table.features]
    passed = list(answers.columns[:len(names)])
    if len(answers.columns) <= len(names) or sorted(passed) == sorted(names) or sorted(map(str.casefold, passed)) == sorted(map(str.casefold, names)):
        return
    missing, extra = [name for name in names if name not in passed], [name for name in passed if name not in names]
    if missing and set(missing) <= set(keep):
        hint = f": it passes no {', '.join(missing)} through (exported without --keep?)"
    elif extra:
        hint = f": was it exported with --keep {','.join(extra)}?"
    else:
        hint = ": are --keep and --dialect the file's?"
    given = f" and the --keep columns {', '.join(keep)}" if keep else ""
    raise TreegenError(f"its first {len(names)} columns are {', '.join(map(repr, passed))}, where verify expects the "
                       f"table's {len(table.features) - len(keep)} features{given} before the prediction{hint}")


def with_columns(model: Model, names: Sequence[str]) -> Model:
    """``model`` as a table that has the columns ``names`` too, text: the rows leave them NULL."""
    features = {f.name for f in model.features}
    if named := [name for name in names if name in features]:
        raise TreegenError(f"--keep names the feature {', '.join(named)}: a query passes every feature through")
    return replace(model, features=(*model.features, *(Feature(name, NOMINAL) for name in names))) if names else model


# What a statement may start with: an expression (`export --expression`) starts with none of these words
# (a '--' comment runs to its line's end: a comment cut short, then one from a '--' inside it, and so on, was a
# backtracking exponential in the '--' of a line)
_LINE_COMMENT = r"--[^\n]*(?![^\n])"
_QUERY_START = re.compile(rf"\s*(?:(?:{_LINE_COMMENT}|/\*.*?\*/)\s*)*(?:SELECT|WITH)\b", re.IGNORECASE | re.DOTALL)


def is_query(sql: str) -> bool:
    """``sql`` is a statement (a ``SELECT``, maybe after comments), not an expression."""
    return _QUERY_START.match(sql) is not None


def as_query(expression: str, model: Model, table: str, dialect: str) -> str:
    """The ``SELECT`` of the features and ``expression`` (one, or items ``expr AS name`` separated by commas)
    from ``table``, as :func:`treegen.emit.sql.emit` would write the query with those columns. A line end
    before ``FROM``: the expression may end in a comment."""
    d = find_dialect(dialect)
    columns = "".join(f"{d.identifier(f.name)}, " for f in model.features)
    expression = _without_statement_end(expression, d).rstrip()
    if _NOTHING.match(expression):  # (an engine would read the features alone, or a comma before FROM)
        raise TreegenError("it holds no SQL, a SELECT or an --expression: only comments and blank lines")
    return f"SELECT {columns}{expression}\nFROM {d.table(table)}"


_COMMENTS = rf"(?:(?:{_LINE_COMMENT}|/\*(?:[^*]|\*(?!/))*\*/)[\s;]*)*"  # (and the blanks and ';' after each)
_NOTHING = re.compile(rf"[\s;]*{_COMMENTS}\Z")


def _without_statement_end(expression: str, d: Dialect) -> str:
    """The expression without the end of a statement a file may give it: a ';' outside any literal, name or comment
    (:func:`_statement_tokens`: a feature named 'x;--' is no end), then only comments and blank lines."""
    for token in _statement_tokens(d.string_pattern).finditer(expression):
        if token.group() == ";" and _NOTHING.match(expression, token.start()):
            return expression[:token.start()]
    return expression


def query(sql: str, model: Model, rows: Sequence[dict], dialect: str, table: str = "input",
          dsn: str | None = None, spark=None) -> list[tuple]:
    """The rows that ``sql`` returns over a fresh table ``table`` holding ``rows``, on the engine that
    runs ``dialect``."""
    dsn = dsn if dsn is not None else server_for(dialect, {})
    return engine_for(dialect).query(*named_apart(sql, model, rows, table, dialect), dsn=dsn, spark=spark)


# A quoted identifier (group 1, quotes doubled), or what may hold a '"' that is none: a string literal, a comment
# (a comment, or a quoted identifier: group 1, quotes doubled; after a literal, as each dialect writes one)
_COMMENT_OR_NAME = r"--[^\n]*|/\*.*?\*/|" r'"((?:[^"]|"")*)"'


@functools.lru_cache(maxsize=None)
def _quoted(string: str) -> re.Pattern:
    """A quoted identifier (group 1), or what may hold a '"' that is none: a literal (``string``: the dialect's,
    :attr:`Dialect.string_pattern`), a comment."""
    return re.compile(f"{string}|{_COMMENT_OR_NAME}", re.DOTALL)


@functools.lru_cache(maxsize=None)
def _statement_tokens(string: str) -> re.Pattern:
    """What may hold a ';' that ends nothing -- a literal (``string``: the dialect's, Spark's with backslash escapes:
    read with doubled quotes, 'it\\'s' put every later literal out of step), a name (in backquotes too), a comment --
    or one."""
    return re.compile(f"{string}|{_COMMENT_OR_NAME}|`(?:[^`]|``)*`|;", re.DOTALL)


def named_apart(sql: str, model: Model, rows: Sequence[dict], table: str, dialect: str
                ) -> tuple[str, Model, Sequence[dict], str]:
    """The query, the model, the rows and the table as the engine that runs ``dialect`` tells its names apart.
    ANSI's quoted names are exact ("A" and "a" are two columns), but DuckDB, which runs it, folds A-Z in quotes
    too: each quoted name that its fold would take for an earlier one is renamed, in the query and the table
    alike, which then mean what they meant (a query that names its columns by exact names only). Other
    dialects' engines fold as the dialect does: all as they are."""
    d, engine = find_dialect(dialect), find_dialect(engine_for(dialect).name)
    if d.ignores_case == engine.ignores_case:
        return sql, model, rows, table
    quoted = _quoted(d.string_pattern)
    names = list(dict.fromkeys([f.name for f in model.features] + [table] + [
        name.replace('""', '"') for name in quoted.findall(sql) if name]))
    renamed, kept = {}, {}
    for name in names:
        if kept.setdefault(engine.folded(name), name) != name:
            renamed[name] = free_names([name], names + list(renamed.values()), engine.folded)[0]
    if not renamed:
        return sql, model, rows, table

    def renaming(quoted: re.Match) -> str:
        name = None if quoted[1] is None else quoted[1].replace('""', '"')
        return d.identifier(renamed[name]) if name in renamed else quoted[0]

    sql = quoted.sub(renaming, sql)
    features = tuple(replace(f, name=renamed.get(f.name, f.name)) for f in model.features)
    rows = [{renamed.get(f.name, f.name): row.get(f.name) for f in model.features} for row in rows]
    return sql, replace(model, features=features), rows, renamed.get(table, table)


def engine_for(dialect: str) -> "Engine":
    """The engine that runs SQL written in ``dialect``."""
    return ENGINES[find_dialect(dialect).engine]


def server_for(dialect: str, dsns: dict) -> str | None:
    """How to reach the server of the engine that runs ``dialect`` (``dsns``: engine name -> DSN), or
    None for an engine that runs in process; a server engine without a DSN is the user's to fix."""
    engine = engine_for(dialect)
    if engine.server and not dsns.get(engine.name):
        raise TreegenError(f"--dialect {dialect} needs a {engine.name} server: pass --{engine.name}-dsn "
                           f"(or set {engine.dsn_variable}), e.g. {engine.server!r}")
    return dsns.get(engine.name)


def create_table(model: Model, dialect: str, table: str = "input", temporary: str = "",
                 numbers_as_text: bool = False) -> str:
    """``CREATE TABLE`` with one column per feature: DOUBLE for numeric (text with ``numbers_as_text``), text for
    nominal."""
    d = find_dialect(dialect)
    columns = [f"{d.identifier(f.name)} {d.double_type if f.is_numeric and not numbers_as_text else d.text_type}"
               for f in model.features]
    return f"CREATE {temporary}TABLE {d.table(table)} ({', '.join(columns)})"


def insert(model: Model, dialect: str, table: str = "input", placeholder: str = "?") -> str:
    d = find_dialect(dialect)
    return f"INSERT INTO {d.table(table)} VALUES ({', '.join(placeholder for _ in model.features)})"


def qualifiers(table: str) -> list[str]:
    """The parts of a table's name before its own (``--table schema.table``: the schema, or a database's name)."""
    return table.split(".")[:-1]


def values(model: Model, rows: Sequence[dict]) -> list[tuple]:
    """Each row as a tuple in feature order: floats, strings and None (missing). A column at a time, one of floats
    (or strings) and None as it is: the bench's 60,515 rows 0.27-0.31 -> 0.09-0.12 s."""
    columns = []
    for f in model.features:
        kind, column = float if f.is_numeric else str, [row.get(f.name) for row in rows]
        as_is = set(map(type, column)) <= {kind, type(None)}
        columns.append(column if as_is else [value if value is None else kind(value) for value in column])
    return list(zip(*columns)) if columns else [() for _ in rows]


class Answers(list):
    """The rows a query returned, and the names of their columns."""

    def __init__(self, rows, columns):
        super().__init__(rows)
        self.columns = tuple(columns)

    @classmethod
    def of(cls, cursor) -> "Answers":
        """A DB-API cursor's rows (fetched) and column names."""
        return cls(cursor.fetchall(), [column[0] for column in cursor.description or ()])


def _run_sqlite(sql, model, rows, table, names_checked=False, as_text=False, **_):
    """The answers over a table of typed columns (REAL for numeric features); ``as_text`` (verify's run), those of
    the rows a CSV can carry (:func:`_csv_texts`) over TEXT columns too, as the sqlite3 shell's ``.import``
    makes them from a CSV (:func:`_over_text`). (Not in :func:`query`: a benchmark's time a row is the typed
    table's.)"""
    records = values(model, rows)
    typed = _sqlite_answers(sql, model, records, table, "sqlite", names_checked)
    if not as_text:
        return typed
    typed = _over_text(model, records, typed, "sqlite",
                       lambda texts: _sqlite_answers(sql, model, texts, table, "text"))
    return _replaced(model, typed, _nominal_numbers(model, records),
                     lambda numbers: _sqlite_answers(sql, model, numbers, table, "numbers"))


def _over_text(model, records, typed, dialect, answers_of):
    """The typed table's answers with the SQL's own columns as it answers over a table of text columns instead,
    each field its CSV text (``answers_of`` the texts of the rows a CSV carries, :func:`_csv_texts`): the SQL
    must read a text as treegen reads the CSV, where a text compared as it is answers otherwise ('10' <= '2.5'
    in SQLite; MariaDB reads '' as 0); a row's answers that differ there show as the row's mismatch. The columns
    it passes through are the typed table's values."""
    return _replaced(model, typed, _csv_texts(model, records, dialect), answers_of)


def _replaced(model, typed, records, answers_of):
    """The typed table's answers with the SQL's own columns as it answers over ``records`` instead (``answers_of``
    them), each row's where its record is not None."""
    carried = [i for i, record in enumerate(records) if record is not None]
    if not carried:
        return typed
    over = answers_of([records[i] for i in carried])
    features = {f.name for f in model.features}
    own = [j for j, name in enumerate(over.columns) if name not in features]
    for i, answer in zip(carried, over):
        row = list(typed[i])
        for j in own:
            row[j] = answer[j]
        typed[i] = tuple(row)
    return typed


def _nominal_numbers(model: Model, records: Sequence[tuple]) -> list[tuple | None]:
    """Each row with its nominal categories that the model reads a number as (Model.predict: '2002' for 2002 and
    2002.0, not '02' nor '2002.0') held as that number, an int where integral (a pandas Int64 column's to_sql
    stores INTEGER), a float otherwise; None for a row with no such category."""
    cast = model.numeric.cast
    named = [{} if f.is_numeric else {name: x for x, name in f.named_by_number.items() if category_of(f, x, cast) == name}
             for f in model.features]  # each feature's category -> the number read as it

    def number(i: int, value):
        x = named[i].get(value) if value is not None else None
        if x is None:
            return value
        return int(x) if x.is_integer() and abs(x) < 2 ** 63 else x
    out = []
    for record in records:
        numbers = tuple(number(i, value) for i, value in enumerate(record))
        out.append(None if numbers == record else numbers)
    return out


def _sqlite_answers(sql, model, records, table, types, names_checked=False):
    """``sql``'s answers over ``records`` in a new SQLite database, the table's columns typed as the dialect
    writes them (``types`` "sqlite"), all TEXT ("text"), or a nominal feature's of no type, which keeps a number
    as a number ("numbers")."""
    import sqlite3
    d = find_dialect("sqlite")
    with closing(sqlite3.connect(":memory:")) as connection:
        for database in qualifiers(table):  # a table of another database: an attached one, in memory too
            if database.lower() not in ("main", "temp"):
                connection.execute(f"ATTACH DATABASE ':memory:' AS {d.identifier(database)}")
        if types in ("text", "numbers"):
            typed = lambda f: "TEXT" if types == "text" else d.double_type if f.is_numeric else ""
            columns = ", ".join(f"{d.identifier(f.name)} {typed(f)}".rstrip() for f in model.features)
            connection.execute(f"CREATE TABLE {d.table(table)} ({columns})")
        else:
            connection.execute(create_table(model, "sqlite", table))
        connection.executemany(insert(model, "sqlite", table), records)
        if names_checked:
            _no_name_read_as_string(connection, sql)
        return _answers_at_once(connection, sql) if is_query(sql) else Answers.of(connection.execute(sql))


def _answers_at_once(connection, sql: str) -> Answers:
    """The query's answers, computed by one statement into a table of no column types (which converts no value),
    then read. sqlite3 lets go of the GIL at each step, a row of a SELECT: beside a thread busy in Python, a step
    long enough to lose the GIL waits its switch interval for it back (60,000 rows of a CASE: 0.08 -> 10 s)."""
    import sqlite3
    cursor = connection.execute(sql)  # (its first row only: the columns)
    columns = [column[0] for column in cursor.description or ()]
    cursor.close()
    table = "treegen_answers"
    while table in sql:  # a name the query cannot read
        table += "_"
    connection.execute(f"CREATE TEMP TABLE {table} ({', '.join(f'c{i}' for i in range(len(columns)))})")
    try:
        connection.execute(f"INSERT INTO temp.{table} {sql}")
    except sqlite3.OperationalError:  # (a query as deep as SQLite parses has no room left for the INSERT around it)
        return Answers.of(connection.execute(sql))  # (or the query's own error)
    return Answers(connection.execute(f"SELECT * FROM temp.{table}").fetchall(), columns)


def _csv_texts(model: Model, records: Sequence[tuple], dialect: str) -> list[tuple | None]:
    """Each row's values (:func:`values`) as the texts of its CSV fields (a number's repr, missing empty); None for
    a row a CSV cannot carry as it is (a missing value or a category that reads as missing, of a feature with such
    a category), or whose SQL over text may stop by design (``Dialect.text_stops``). A column at a time."""
    stops = find_dialect(dialect).text_stops
    cuts = split_points(model)
    carried = [True] * len(records)
    columns = []
    for i, (feature, values) in enumerate(zip(model.features, zip(*records))):
        if feature.is_numeric:
            texts = _number_texts(values)
            left_out = stops(values, texts, cuts[i])
        else:
            texts = ["" if value is None else value for value in values]
            uncarried = any(map(reads_as_missing, feature.categories))  # (the CSV cannot tell missing from one)
            left_out = [row for row, value in enumerate(values) if value is None or reads_as_missing(value)
                        ] if uncarried else ()
        for row in left_out:
            carried[row] = False
        columns.append(texts)
    rows = zip(*columns) if columns else (() for _ in records)
    return [texts if carry else None for texts, carry in zip(rows, carried)]


def _number_texts(values: Sequence[float | None]) -> list[str]:
    """A numeric column's CSV texts: a number's repr, missing empty."""
    return ["" if value is None else repr(value) for value in values]


# What SQLite reads as a name or may hold a '"' that is none: a double-quoted name (group 1, quotes doubled),
# a name in backticks or brackets, a string literal, a comment (one left open ends the text)
_SQLITE_QUOTED = re.compile(r"'(?:[^']|'')*+'|--[^\n]*|/\*.*?(?:\*/|\Z)|`(?:[^`]|``)*+`|\[[^\]]*\]|"
                            r'"((?:[^"]|"")*+)"', re.DOTALL)  # (*+: as depth.TOKEN's)


def _no_name_read_as_string(connection, sql: str) -> None:
    """An error naming the double-quoted name of ``sql`` that no column has, which SQLite would read as a string
    (its double-quoted string literals, which Python 3.11's sqlite3 cannot turn off): a file whose column was
    renamed would show as mismatching rows. Names in backticks are never strings: the query so written is
    compiled (EXPLAIN, not run), and its 'no such column' is that name. Its other errors are the query's own:
    the query run reports them."""
    import sqlite3

    def backticked(quoted: re.Match) -> str:
        return quoted[0] if quoted[1] is None else "`" + quoted[1].replace('""', '"').replace("`", "``") + "`"
    try:
        connection.execute("EXPLAIN " + _SQLITE_QUOTED.sub(backticked, sql))
    except sqlite3.OperationalError as err:
        if str(err).startswith("no such column: "):
            raise sqlite3.OperationalError(f"{err} (SQLite reads a double-quoted name that no column has as a "
                                           "string)") from None


def _run_duckdb(sql, model, rows, table, as_text=False, **_):
    """The answers over a table of typed columns (DOUBLE for numeric features); ``as_text`` (verify's run of a
    query), those over VARCHAR numeric columns too (:func:`_over_number_texts`), as read_csv makes a column that holds
    NA or ?, where the SQL binds over them."""
    import duckdb
    records = values(model, rows)
    typed = _duckdb_answers(sql, model, records, table)
    if not as_text:
        return typed
    # (BinderException: SQL that compares a VARCHAR column with a number, a file of ANSI's)
    return _over_number_texts(model, records, typed, duckdb.BinderException,
                              lambda texts: _duckdb_answers(sql, model, texts, table, numbers_as_text=True))


def _duckdb_answers(sql, model, records, table, numbers_as_text=False):
    import duckdb
    with duckdb.connect() as connection:
        _duckdb_schema(connection, qualifiers(table))
        connection.execute(create_table(model, "duckdb", table, numbers_as_text=numbers_as_text))
        if records and model.features:
            _load_duckdb(connection, model, records, table, numbers_as_text)
        elif records:
            raise TreegenError("a model without features cannot be run on rows in SQL")
        return Answers.of(connection.execute(sql))


def _over_number_texts(model, records, typed, refused, answers_of):
    """The typed table's answers with the SQL's own columns as it answers over numeric columns of text instead, each
    field its CSV text (``answers_of`` the records so, :func:`_replaced`); the typed ones where the engine refuses
    the SQL there (``refused``: its error for a text compared with a number, SQL that reads no such column)."""
    columns = [_number_texts(values) if feature.is_numeric else values
               for feature, values in zip(model.features, zip(*records))]
    texts = list(zip(*columns)) if columns else [() for _ in records]
    try:
        return _replaced(model, typed, texts, answers_of)
    except refused:
        return typed


def _duckdb_schema(connection, names: list[str]) -> None:
    """The schema (``[schema]``) or catalog and schema (``[catalog, schema]``) a table is named in, made in memory
    where the fresh connection has none."""
    if not names:
        return
    d = find_dialect("duckdb")
    catalogs = connection.execute("SELECT lower(database_name) FROM duckdb_databases()").fetchall()
    if len(names) == 2 and (names[0].lower(),) not in catalogs:
        connection.execute(f"ATTACH ':memory:' AS {d.identifier(names[0])}")
    connection.execute(f"CREATE SCHEMA IF NOT EXISTS {'.'.join(map(d.identifier, names))}")


def _load_duckdb(connection, model: Model, records: Sequence[tuple], table: str, numbers_as_text: bool = False) -> None:
    """Insert the records (:func:`values`; numbers as texts with ``numbers_as_text``) as columns (numpy arrays DuckDB
    scans in place: 0.05 s for 56,000 rows, where executemany took 17 s). DuckDB reads a NaN in an array as NULL, so
    each numeric column comes with a column saying which values were NaN, and the INSERT writes those back as NaN."""
    import numpy as np
    d = find_dialect("duckdb")
    arrays, selected = {}, []
    for k, feature in enumerate(model.features):
        column = [record[k] for record in records]
        if feature.is_numeric and not numbers_as_text:
            arrays[f"v{k}"] = np.array([math.nan if v is None else v for v in column], dtype=np.float64)
            arrays[f"n{k}"] = np.array([v is not None and math.isnan(v) for v in column], dtype=bool)
            selected.append(f"CASE WHEN n{k} THEN {d.nan} ELSE v{k} END")
        else:
            arrays[f"v{k}"] = np.array(column, dtype=object)
            selected.append(f"v{k}")
    connection.register("treegen_loaded_rows", arrays)
    connection.execute(f"INSERT INTO {d.table(table)} SELECT {', '.join(selected)} FROM treegen_loaded_rows")
    connection.unregister("treegen_loaded_rows")


def _run_postgres(sql, model, rows, table, dsn=None, as_text=False, **_):
    """The answers over a table of typed columns (DOUBLE PRECISION for numeric features); ``as_text`` (verify's run),
    those over TEXT numeric columns too (:func:`_over_number_texts`), where the SQL reads them (a query: its
    --expression compares the column as it is)."""
    import psycopg
    try:
        connection = psycopg.connect(dsn, autocommit=True)
    except psycopg.OperationalError as err:
        raise _unreachable("postgres", err) from None
    except psycopg.ProgrammingError as err:  # at connecting: a connection string libpq cannot read
        raise _malformed("postgres", err) from None
    records = values(model, rows)
    with connection:
        # LLVM would spend minutes compiling a big tree's expression (bench/README.md): no JIT.
        connection.execute("SET jit = off")
        typed = _postgres_answers(connection, sql, model, records, table)
        if not as_text:
            return typed
        # (UndefinedFunction: a text compared with a number, a file exported before the query read text)
        return _over_number_texts(model, records, typed, psycopg.errors.UndefinedFunction,
                                  lambda texts: _postgres_answers(connection, sql, model, texts, table,
                                                                  numbers_as_text=True))


def _postgres_answers(connection, sql, model, records, table, numbers_as_text=False):
    """``sql``'s answers over ``records`` in a table made in a transaction rolled back at the end, which no other
    session sees (a temporary table, private to us, where the name has no schema; a table named in a schema cannot
    be one: it and its schema are made in the transaction)."""
    d = find_dialect("postgres")
    schema = qualifiers(table)[-1:]  # (a catalog before it can only be the database connected to)
    stored, number = table + " rows", d.identifier("treegen row")
    columns = ", ".join(d.identifier(f.name) for f in model.features)
    temporary = "" if schema else "TEMPORARY "
    with connection.transaction(force_rollback=True):
        if schema:
            connection.execute(f"CREATE SCHEMA IF NOT EXISTS {d.identifier(schema[0])}")
        connection.execute(create_table(model, "postgres", stored, temporary=temporary, numbers_as_text=numbers_as_text))
        connection.execute(f"ALTER TABLE {d.table(stored)} ADD COLUMN {number} integer")
        # PostgreSQL may store a short row in space left on an earlier page: a plain scan would
        # return the rows out of order. The table the query reads is a view sorted by row number.
        connection.execute(f"CREATE {temporary}VIEW {d.table(table)} AS "
                           f"SELECT {columns} FROM {d.table(stored)} ORDER BY {number}")
        with connection.cursor() as cursor:
            with cursor.copy(f"COPY {d.table(stored)} FROM STDIN") as copy:
                for n, record in enumerate(records):
                    copy.write_row(record + (n,))
            cursor.execute(sql.encode())  # bytes: psycopg must not read % in the SQL as placeholders
            return Answers.of(cursor)


def _run_mysql(sql, model, rows, table, dsn=None, as_text=False, **_):
    """The answers over a table of typed columns (DOUBLE for numeric features); ``as_text`` (verify's run), those of
    the rows a CSV can carry over TEXT columns too, as LOAD DATA of a CSV fills them (:func:`_over_text`)."""
    import pymysql
    # The DOUBLE type holds no NaN: a NaN is missing, as in the model (SQLite stores it as NULL too).
    records = [tuple(None if isinstance(v, float) and math.isnan(v) else v for v in record)
               for record in values(model, rows)]
    try:
        connection = pymysql.connect(**_mysql_parameters(dsn), charset="utf8mb4", autocommit=True)
    except pymysql.err.OperationalError as err:
        raise _unreachable("mysql", err.args[-1]) from None
    with closing(connection), connection.cursor() as cursor:
        try:
            typed = _mysql_answers(cursor, sql, model, records, table, create_table(model, "mysql", table, "TEMPORARY "))
            if not as_text:
                return typed
            over_text = create_table(model, "mysql", table, "TEMPORARY ", numbers_as_text=True)
            cursor.execute(f"DROP TEMPORARY TABLE {find_dialect('mysql').table(table)}")
            return _over_text(model, records, typed, "mysql",
                              lambda texts: _mysql_answers(cursor, sql, model, texts, table, over_text))
        except pymysql.err.MySQLError as err:  # its args are (code, message): the message, as other engines say it
            raise RuntimeError(err.args[-1] if err.args else type(err).__name__) from err


def _mysql_answers(cursor, sql, model, records, table, create):
    """``sql``'s answers over ``records`` in a temporary table (private to this connection, its rows read back in
    insertion order) that ``create`` makes."""
    cursor.execute(create)
    if records and model.features:
        cursor.executemany(insert(model, "mysql", table, placeholder="%s"), records)
    elif records:
        raise TreegenError("a model without features cannot be run on rows in SQL")
    cursor.execute(sql)  # no arguments: PyMySQL leaves any % in the SQL alone
    return Answers.of(cursor)


def _unreachable(engine: str, reason: object) -> TreegenError:
    """A server the DSN does not reach (refused, unknown host, wrong password) is the user's to fix,
    as a missing driver is: a one-line 'needs' error, not a failed run."""
    why = " ".join(str(reason).split())
    return TreegenError(f"needs a {engine} server it can connect to, check --{engine}-dsn "
                        f"(or {ENGINES[engine].dsn_variable}): {why}")


def _malformed(engine: str, reason: object) -> TreegenError:
    """A connection string the driver cannot read is the user's to fix, as an unreachable server is."""
    return TreegenError(f"--{engine}-dsn (or {ENGINES[engine].dsn_variable}) cannot be read: "
                        f"{' '.join(str(reason).split())}")


def _mysql_parameters(dsn: str) -> dict:
    """PyMySQL's connection arguments from ``key=value`` pairs separated by spaces (shell quoting)."""
    import shlex
    parameters = {}
    try:
        pairs = shlex.split(dsn)
    except ValueError as err:  # an unclosed quotation
        raise _malformed("mysql", err) from None
    for pair in pairs:
        key, equals, value = pair.partition("=")
        if not equals or key not in ("host", "port", "user", "password", "database", "unix_socket"):
            raise _malformed("mysql", f"expected host, port, user, password, database or unix_socket as key=value, "
                                      f"got {pair!r}")
        try:
            parameters[key] = int(value) if key == "port" else value
        except ValueError:
            raise _malformed("mysql", f"the port must be a number, got {value!r}") from None
    if "unix_socket" in parameters:
        # No TLS on a local socket, as MySQL's own client: it protects nothing there, and PyMySQL's
        # preferred TLS loads the system's certificates at every connection (30 ms of CPU a query).
        parameters["ssl_disabled"] = True
    return parameters


# A temporary view is the session's: two queries at once (verify checks two files at a time) would replace
# and drop each other's ("TABLE_OR_VIEW_NOT_FOUND `input`": sqlfuzz), so one view lives at a time
_SPARK_VIEW = threading.Lock()


def _run_spark(sql, model, rows, table, spark=None, **_):
    with _SPARK_VIEW:
        from pyspark.sql.types import DoubleType, StringType, StructField, StructType
        spark = spark or local_spark()
        schema = StructType([StructField(f.name, DoubleType() if f.is_numeric else StringType())
                             for f in model.features])
        frame = spark.createDataFrame(values(model, rows), schema)
        shared = spark.conf.get("spark.sql.globalTempDatabase", "global_temp")
        if [name.lower() for name in qualifiers(table)] == [shared.lower()]:  # a global temporary view
            frame.createOrReplaceGlobalTempView(table.split(".")[-1])
            drop = lambda: spark.catalog.dropGlobalTempView(table.split(".")[-1])
        elif not qualifiers(table):
            frame.createOrReplaceTempView(table)
            drop = lambda: spark.catalog.dropTempView(table)
        else:
            raise TreegenError(f"spark: verify holds the rows in a temporary view, which Spark names by one part or "
                               f"as {shared}.NAME, not {table!r}: it cannot make that table")
        try:
            answers = spark.sql(sql)
            return Answers([tuple(row) for row in answers.collect()], answers.columns)
        finally:
            drop()


SPARK_LOG4J2 = os.path.join(os.path.dirname(os.path.abspath(__file__)), "spark-log4j2.properties")


def local_spark(java_options: str = ""):
    """A small local SparkSession (one core, few shuffle partitions, no UI, a 2 GB heap: Janino's
    compilation of a big model's query once ran out of Spark's default 1 GB); ``java_options`` for
    its JVM, when this call starts it. Quiet: no progress bar, and only errors logged (a user's
    terminal showed ten lines of warnings about the host name and native libraries around verify's
    result line). Its SQL parser's ANTLR caches are flushed past a tenth of the heap (Spark 4.1 and
    later): they keep what every query taught them, and a session's big generated queries filled the
    2 GB with them, after which each query spent most of its time in full collections. Without whole-stage
    code generation: a query runs over a few rows here, and Janino's compilation of each new query was most
    of its cost, half of it spared so (expressions are still compiled, each split into small methods; a
    big tree's whole-stage code did not compile at all, and Spark logged the failure and ran without it)."""
    from pyspark.logger import PySparkLogger
    from pyspark.sql import SparkSession
    # PySpark logs a query's error as JSON with Java's stack (25 kB) on stderr, besides raising it: the
    # exception is the caller's to report
    PySparkLogger.getLogger("SQLQueryContextLogger").disabled = True
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # local: no warning that the host is a loopback
    # Spark's Python workers (which turn the rows into a table) run `python3` from the PATH unless told: not
    # this Python where treegen runs from a virtualenv not activated, and Spark refuses another minor version
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (SparkSession.builder.master("local[1]").appName("treegen")
               .config("spark.sql.shuffle.partitions", "1").config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.driver.memory", "2g").config("spark.sql.codegen.wholeStage", "false")
               .config("spark.sql.parser.manageParserCaches", "true")
               .config("spark.sql.parser.parserDfaCacheFlushRatio", "10")
               .config("spark.driver.extraJavaOptions", f"-Dlog4j2.configurationFile={SPARK_LOG4J2} {java_options}"))
    with warnings.catch_warnings():  # PySpark's, at the session's start, of a pandas newer than it knows: no frames here
        warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
        return builder.getOrCreate()


@dataclass(frozen=True)
class Engine:
    """A database engine that runs generated SQL for `verify` and the tests."""

    name: str
    query: Callable[..., Answers]  # (sql, model, rows, table, dsn=, spark=, names_checked=, as_text=) -> the result rows
    package: str | None  # the Python package it needs, for the hint when it is missing
    extra: str | None  # the pip extra of treegen that installs that package
    server: str | None = None  # an example of how to reach its server (a DSN); None: runs in process

    @property
    def dsn_variable(self) -> str:
        """The environment variable that holds the connection string of a server engine."""
        return f"TREEGEN_{self.name.upper()}_DSN"


ENGINES = {engine.name: engine for engine in (
    Engine("sqlite", _run_sqlite, None, None),
    Engine("duckdb", _run_duckdb, "duckdb", "sql"),
    Engine("postgres", _run_postgres, "psycopg", "sql", server="host=/tmp port=5432 user=postgres"),
    Engine("mysql", _run_mysql, "pymysql", "sql", server="host=127.0.0.1 port=3306 user=root database=test"),
    Engine("spark", _run_spark, "pyspark", "spark"),
)}


# -- the program protocol -------------------------------------------------------------------------

def read_csv(model: Model, text: str) -> list[dict]:
    """Rows of CSV text with a header, read as treegen and every generated program read CSV."""
    from ..data import parse_csv, rows_for_model
    return rows_for_model(parse_csv(text, "<stdin>"), model)


def format_results(model: Model, results: Sequence[tuple], args: Sequence[str] = ()) -> str | None:
    """Query results (features, prediction, probabilities, leaf) as the program protocol prints them; None
    for ``--proba`` or ``--leaf`` where the results have no such columns."""
    first = len(model.features)
    proba, leaf = output_columns(model, len(results[0])) if results else (True, True)
    if ("--proba" in args and not proba) or ("--leaf" in args and not leaf):
        return None
    width = len(model.target.classes) if proba else 0
    return write_output(model, [row[first] for row in results], [row[first + 1:first + 1 + width] for row in results],
                        [row[-1] for row in results], args)


def output_columns(model: Model, count: int) -> tuple[bool, bool]:
    """Whether a query returning ``count`` columns has the probabilities' and the leaf ids': after the
    features, the prediction, a probability per class (a classification model's, ``proba``), the leaf ids
    (``leaf``). No two of the four counts are the same, but with a model of one class: its two columns are
    read as the prediction and the probability, as `verify` exports such a model."""
    classes = len(model.target.classes) if model.target.is_classification else None
    layouts = {1: (False, False), 2: (False, True)}
    if classes:
        layouts.update({1 + classes: (True, False), 2 + classes: (True, True)})
    found = layouts.get(count - len(model.features))
    if found is None:
        expected = " or ".join(str(len(model.features) + n) for n in sorted(layouts))
        probabilities = ", the class probabilities (--proba)" if classes else ""
        raise TreegenError(f"the query returns {count} column{'s' if count != 1 else ''}, not {expected}: the input "
                           f"table's {len(model.features)} columns, the prediction{probabilities} and the leaf ids "
                           "(--leaf), in this order")
    return found
