"""SQL dialects as data: what differs between engines is a row in :data:`DIALECTS`, never an
``if dialect == ...`` in the emitter (the shape of sqlglot's ``dialects/``). Adding a dialect is adding
a row.

The float literal forms were chosen by measurement, so that every threshold reads back as the very
same double:

* DuckDB, MySQL: a literal with an exponent (``0.1e0``) is a DOUBLE, parsed exactly; a plain ``0.1``
  would be a DECIMAL (DuckDB turns 17-digit decimals into doubles with a second rounding).
* PostgreSQL: ``0.1::float8`` (``0.1e0`` alone would be NUMERIC; the cast goes through ``strtod``).
* Spark SQL: the ``D`` suffix (``0.1D``) is a DOUBLE literal parsed by Java, exactly.
* SQLite: its decimal parser is not correctly rounded (SQLite 3.40 misreads about 1 literal in 500,
  short ones such as 15 digits included), so a non-integral double is written exactly as an integer
  mantissa divided or multiplied by powers of two, which are exact in binary arithmetic, inside
  ``ifnull(..., 0)`` so that preparing many of them stays linear (see the row).
* ANSI: ``CAST('0.1' AS DOUBLE PRECISION)``.
"""
from __future__ import annotations

import math
import re
import string
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from ...data import MISSING_TOKENS
from ...errors import BadArgument, TreegenError, did_you_mean

# A decimal number's text as a pattern (treegen.model.NUMBER, whose inf and nan name no code anyway)
NUMBER = "[+-]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?"
# SQLite has no regular expressions: GLOB keeps out every other character, signs after a digit, two points
# or exponents, and ends without digits (a cast would read a prefix: "1-2" as 1.0). Of those characters, a text
# json_valid takes is a JSON (or JSON5) number, each of them one of NUMBER's: the 13 patterns of its shape, which
# a text of 17 digits took 5.0 us to pass, are matched only where json_valid refuses ('+1', '.5', '007'), 1.9 us
# in all (measured; the two tests, and NUMBER, agree on every text of up to 7 of '0.e+-1E9', 2.4 million)
SQLITE_NUMBER_SHAPE = " AND ".join(["{0} GLOB '*[0-9]*'"] + [f"{{0}} NOT GLOB '{p}'" for p in (
    "*[0-9.][+-]*", "*[.]*[.]*", "*[eE]*[eE]*", "*[eE]", "*[eE][+-]", "[eE]*",
    "*[eE]*[.]*", "*[+-][+-]*", "[.][eE]*", "*[+-][.][eE]*", "?*[+-]*[eE]*", "[+-][eE]*")])
# GLOB and json_valid end a text at its first NUL ('1' || char(0) passed as 1), which instr does not
SQLITE_NUMBER = (f"{{0}} NOT GLOB '*[^0-9.eE+-]*' AND instr({{0}}, char(0)) = 0 AND (json_valid({{0}}) OR "
                 f"{SQLITE_NUMBER_SHAPE})")
# A number's text of no exponent, under 300 characters and of 16 significant digits or more (from a nonzero digit to
# a nonzero digit, 17 characters, or 15 digits and more): none of the texts SQLite's SQL reads exactly, which
# it reads by its cast (below)
SQLITE_CAST_READ = ("{0} NOT GLOB '*[eE]*' AND length({0}) < 300 AND ({0} GLOB '*[1-9]" + "?" * 15 + "*[1-9]*' OR "
                    "{0} GLOB '*[1-9]" + "[0-9]" * 14 + "*[1-9]*')")
# how near a split point (relative, absolute) a number SQLite reads an ulp off is refused: 4 ulps and more, 4 of the
# least subnormal's (the point read an ulp off too, and the number: 2 would do)
NEAR = (2.0 ** -50, 4 * 5e-324)
DBL_MAX = 1.7976931348623157e308  # the largest double (MySQL's cast of a larger number stops, with a warning)
# A magnitude's key, its first ten significant digits, and how far either side of a split point the keys are taken:
# a magnitude within NEAR of the point has one of those two (_maybe_near)
KEY, SPREAD = "%.9e", 1e-12
MISSING_TEXTS = ", ".join(f"'{token}'" for token in sorted(MISSING_TOKENS))  # a field's text, spaces around stripped
POWER = 2 ** 62  # the largest power of two that every engine reads as an exact integer literal
# A decimal text D * 10^k (D of n significant digits) that SQLite's SQL reads exactly, never by its cast: Clinger's
# fast path (n <= 15, |k| <= 22: both exact doubles, one rounding), or beyond every double (inf, 0)
FAST_DIGITS, FAST_POWER, OVERFLOW, UNDERFLOW = 15, 22, 310, -324
EXACT_INTEGERS = 2.0 ** 53  # every integer up to it is a double; past it the model reads an integer as its double


def integers_past_doubles(cuts: list[float] | None) -> bool:
    """Whether an integer column, compared exactly with the split points as SQLite and MySQL compare it, may answer
    otherwise than its double, which the model reads (2^53 + 1 > 2^53, its double 2^53 is not): only at a split point
    (a magnitude of ``cuts``; None: the value is used in arithmetic, any may be) at or past 2^53."""
    return cuts is None or bool(cuts) and cuts[-1] >= EXACT_INTEGERS


def sqlite_reads_exactly(number: str) -> bool:
    """Whether :func:`sqlite_number_text` reads the decimal text ``number`` exactly (a case above), never by
    SQLite's cast, which it refuses near a split point."""
    mantissa, _, exponent = number.lower().partition("e")
    if mantissa.lstrip("+-") in ("inf", "infinity", "nan"):
        return True
    whole, _, fraction = mantissa.lstrip("+-").partition(".")
    digits = whole + fraction
    k = int(exponent or 0) - len(fraction) + len(digits) - len(digits.rstrip("0"))
    n = len(digits.strip("0"))
    return (n == 0 or n <= FAST_DIGITS and -FAST_POWER <= k <= FAST_POWER or n + k >= OVERFLOW
            or n + k <= UNDERFLOW)


def sqlite_number_text(column: str, name: str, cuts: list[float] | None) -> str:
    """A numeric feature's SQLite ``column`` as treegen reads its CSV field, where it holds TEXT (what the
    sqlite3 shell's ``.import`` stores, and a REAL column a field it cannot read as a number): compared as it
    is, '10' <= '2.5' (text affinity: 64 of 2,000 of a LightGBM model's answers right). ``name``: the
    feature's name as an SQL string, for the error. '', '?', 'NA' (spaces around) and NaN are missing, inf
    and infinity infinite, and a number the double Python's ``float`` reads, or one on the same side of
    every split point. CAST(text AS REAL) is not always it (SQLite 3.40 scales in long double and rounds
    twice: 1 text in 2,000 of 10 to 40 digits differs, exponents near 1e-300 one in ten; by one ulp at most
    in 30 classes of 3,000 texts, measured): a text of at most 15 significant digits with an exponent within
    22 of them is the integer of its digits times or divided by a power of ten, both exact doubles, one
    correctly rounded operation (Clinger's fast path); one beyond every double, +-inf or +-0; any other
    number is SQLite's cast, unless its magnitude lies within :data:`NEAR` of one of ``cuts`` (the feature's split
    points' magnitudes, where a misread could cross one; None: every such text, for a feature whose value is
    used in arithmetic). The points are a JSON array that SQLite reads (an ulp off at most, as a cast) where a
    text is long, a row at a time: an IN list of exact literals, five a point, made a 20,000-leaf tree's query
    4x longer and its typed columns' 200 rows 7x slower (measured). A text that is not a number, or one so
    near, stops the query with the one error SQLite can raise in a SELECT, a JSON path's, naming the column
    and the text: a NULL prediction would pass unseen. (-0 reads as 0, which no comparison tells apart.)"""
    low = f"lower({column})"
    # one flat CASE, each part without a CASE of its own: the parser's stack holds it inside the query's derived
    # tables (and an expression's every test)
    e = f"instr({low} || 'e', 'e')"
    unsigned = f"ltrim(substr({column}, 1, {e} - 1), '+-')"
    digits = f"replace({unsigned}, '.', '')"
    fraction = f"length(substr({unsigned}, instr({unsigned} || '.', '.') + 1))"
    n = f"length(trim({digits}, '0'))"
    # the value is D * 10^k, D the integer of the significant digits; CAST('1e' || |k| AS REAL) is exact to FAST_POWER
    # (measured; a power of ten up to 1e22 is a double)
    k = f"(CAST(substr({column}, {e} + 1) AS INTEGER) - {fraction} + length({digits}) - length(rtrim({digits}, '0')))"
    integer = f"CAST(CAST(trim({digits}, '0') AS INTEGER) AS REAL)"
    sign = f"(CASE WHEN substr({column}, 1, 1) = '-' THEN -1.0 ELSE 1.0 END)"
    # n + k (the leading digit's power of ten, plus one) reaches OVERFLOW or UNDERFLOW only where the text's length
    # and its exponent's magnitude add up to 300 or more: tested first, as it costs a fifth of n + k (the exponent
    # as a REAL: abs of the least INTEGER stops the query)
    extreme = f"length({column}) + abs(CAST(substr({column}, {e} + 1) AS REAL)) >= 300"

    def fail(why: str) -> str:
        return f"json_extract('{{}}', 'treegen: the column ' || {name} || ' holds \"' || {column} || '\"{why}')"
    cast = f"CAST(ltrim({column}, '+-') AS REAL)"
    inexact = fail(", a number SQLite cannot read as the same double (over 15 significant digits, or an exponent "
                   "beyond 22 of them)" + (", so near a split point that a misread would cross it" if cuts else "")
                   + ": load it into a REAL column from a program that reads numbers exactly")
    if cuts is None:
        near = f"WHEN 1 = 1 THEN {inexact} "
    elif cuts:
        points = "[" + ",".join(map(repr, cuts)) + "]"
        near = (f"WHEN {_maybe_near(cast, cuts)} AND EXISTS (SELECT 1 FROM json_each('{points}') WHERE "
                f"abs(value - {cast}) <= abs(value) * {NEAR[0]!r} + {NEAR[1]!r}) THEN {inexact} ")
    else:
        near = ""
    # an INTEGER as its double (integers_past_doubles), where it may matter
    exact = f"WHEN typeof({column}) = 'integer' THEN CAST({column} AS REAL) " if integers_past_doubles(cuts) else ""
    # a text of no digit may be missing or infinite (a GLOB: the tests of words cost a number 1.5 us); one of many
    # digits is read by the cast, not tested for the fast path (n and k cost 3 us; Python's repr and pandas' to_csv
    # write most doubles in 16 or 17)
    wordy, short = f"{column} NOT GLOB '*[0-9]*' AND ", f"NOT ({SQLITE_CAST_READ.format(column)}) AND "
    return (f"CASE {exact}WHEN typeof({column}) <> 'text' THEN {column} WHEN {wordy}(trim({column}, ' ') IN "
            f"({MISSING_TEXTS}) OR {low} IN ('nan', '+nan', '-nan')) THEN NULL "
            f"WHEN {wordy}{low} IN ('inf', '+inf', 'infinity', '+infinity') THEN 9e999 "
            f"WHEN {wordy}{low} IN ('-inf', '-infinity') THEN -9e999 "
            f"WHEN NOT ({SQLITE_NUMBER.format(column)}) THEN {fail(', not a number (nor missing: empty, ? or NA)')} "
            f"WHEN {short}{n} = 0 THEN {sign} * 0.0 "
            # 10^k, k >= 0, times, or 10^-k divided (the other factor 1.0, exact)
            f"WHEN {short}{n} <= {FAST_DIGITS} AND {k} BETWEEN -{FAST_POWER} AND {FAST_POWER} THEN {sign} * "
            f"({integer} * CAST('1e' || max({k}, 0) AS REAL) / CAST('1e' || max(-{k}, 0) AS REAL)) "
            f"WHEN {extreme} AND {n} + {k} >= {OVERFLOW} THEN {sign} * 9e999 "
            f"WHEN {extreme} AND {n} + {k} <= {UNDERFLOW} THEN {sign} * 0.0 "
            f"{near}ELSE {sign} * {cast} END")


def _maybe_near(magnitude: str, cuts: list[float]) -> str:
    """An SQL test that holds wherever ``magnitude`` lies within :data:`NEAR` of one of ``cuts`` (and seldom
    elsewhere), so that the scan of every point runs only then: the magnitude's key (:data:`KEY`, SQLite's printf)
    is the key of such a cut less or more :data:`SPREAD` (Python's format), as keys rise with the number and SPREAD
    holds NEAR many times over (SQLite's printf, where it is not Python's text, off by far less than SPREAD). One
    printf and one look-up in the index SQLite makes of an IN list of constants once a query (the keys of the
    magnitude less and more SPREAD compared with the cuts' own: 0.8 us a field more); the scan took 42 us a field of
    a 4,000-leaf tree's 400 points a feature, 13 times the rest of the field's reading. Below 1e-290 NEAR's
    absolute term counts: every such magnitude is scanned."""
    keys = ", ".join(f"'{key}'" for key in sorted({KEY % min(cut * f, DBL_MAX) for cut in cuts
                                                     for f in (1 - SPREAD, 1 + SPREAD)}))
    return f"({magnitude} <= 1e-290 OR printf('{KEY}', {magnitude}) IN ({keys}))"


def sqlite_text_stops(value: float, text: str, cuts: list[float] | None) -> bool:
    """Whether :func:`sqlite_number_text` stops the query by design at the number ``value`` written ``text``: one it
    takes SQLite's reading of, up to an ulp off, near one of ``cuts`` (twice as near as the SQL refuses, so that a
    row verify runs is never at the edge; None: any cut; else ascending). Only the cuts between bounds that hold
    every cut so near are compared, and the text read only then (verify asks it of every field: a scan of a
    4,000-leaf tree's 400 points a feature took 5.4 s for 50,000 rows; the text's reading first, 2.5 us a field)."""
    if cuts is not None:
        magnitude = abs(value)
        window = cuts[bisect_left(cuts, magnitude * (1 - 4 * NEAR[0]) - 4 * NEAR[1]):
                      bisect_right(cuts, magnitude * (1 + 4 * NEAR[0]) + 4 * NEAR[1])]
        if not any(abs(magnitude - cut) <= 2 * (cut * NEAR[0] + NEAR[1]) for cut in window):
            return False
    return not sqlite_reads_exactly(text)


def sqlite_column_stops(values: Sequence[float | None], texts: Sequence[str], cuts: list[float] | None) -> list[int]:
    """The rows of a numeric column (its values, None missing, and their texts) at which :func:`sqlite_text_stops`:
    asked only of those whose window holds a split point (found by numpy; asked of every row, the bench's 60,515
    rows of 10 columns took 1.2 s)."""
    if cuts is None:
        rows = range(len(values))
    else:  # the windows of sqlite_text_stops, the same arithmetic (a missing value's NaN has none)
        magnitudes, points = np.abs(np.array(values, dtype=float)), np.array(cuts, dtype=float)
        with np.errstate(over="ignore"):  # (the largest doubles' windows end at infinity, as Python's do: no warning)
            low = np.searchsorted(points, magnitudes * (1 - 4 * NEAR[0]) - 4 * NEAR[1], "left")
            high = np.searchsorted(points, magnitudes * (1 + 4 * NEAR[0]) + 4 * NEAR[1], "right")
        rows = np.flatnonzero(high > low).tolist()
    return [i for i in rows if values[i] is not None and sqlite_text_stops(values[i], texts[i], cuts)]


# (test, double) of a MySQL column that holds a number: its collation is 'binary', its text's not (a binary string's
# is 'binary' too); plus 0e0 to be a DOUBLE whatever the other branches of a CASE
MYSQL_NUMBER_COLUMN = ("COLLATION({0}) = 'binary' AND COLLATION(CONCAT({0})) <> 'binary'", "{0} + 0e0")


def mysql_column_stops(values: Sequence[float | None], texts: Sequence[str], cuts: list[float] | None) -> list[int]:
    """The rows of a numeric column at which :func:`mysql_number_text` stops the query by design: a number its DOUBLE
    cannot hold."""
    return [i for i, value in enumerate(values) if value is not None and abs(value) >= DBL_MAX]


def mysql_number_text(column: str, name: str, cuts: list[float] | None = None) -> str:
    """A numeric feature's MySQL/MariaDB ``column`` as treegen reads its CSV field, where it holds text (a table of
    VARCHAR or TEXT columns, as LOAD DATA of a CSV fills): compared as it is, MariaDB reads the number a text starts
    with, '', '?' and 'NA' as 0, with a warning only. A number column (:data:`MYSQL_NUMBER_COLUMN`) is read as it
    is; a text
    as missing where it is '', '?' or 'NA' (spaces around, compared as bytes: a _ci collation finds 'na' = 'NA'),
    or nan; a decimal number as MySQL's cast reads it, correctly rounded as Python's float (MariaDB 10.11: 20,000
    texts, subnormals and 40 digits included, none off). MySQL has no infinity: inf and a number at or beyond the
    largest DOUBLE stop the query, as any other text does. The one error with a text of ours MariaDB raises in a
    SELECT is an out-of-range EXP, whose message is the expression as written: it names the column, not the text
    (EXTRACTVALUE's XPath error takes constant paths only; JSON functions and casts warn). ``cuts``: unused (the
    cast is exact)."""
    text = f"CAST(CONVERT({column} USING utf8mb4) AS BINARY)"  # the bytes, whatever the collation

    def fail(why: str) -> str:
        return f"EXP(710 + LENGTH(CONCAT('treegen: the column ', {name}, ' holds {why}', {column})))"
    cast = f"CAST({column} AS DOUBLE)"
    holds_number, number = (part.format(column) for part in MYSQL_NUMBER_COLUMN)
    return (f"CASE WHEN {holds_number} THEN {number} "
            f"WHEN TRIM({text}) IN ({MISSING_TEXTS}) OR LOWER({column}) IN ('nan', '+nan', '-nan') THEN NULL "
            f"WHEN LOWER({column}) IN ('inf', '+inf', 'infinity', '+infinity', '-inf', '-infinity') "
            f"THEN {fail('an infinite number, which MySQL cannot hold: ')} "
            # a sentinel at the end: REGEXP's $ matches before a final line end too
            f"WHEN CONCAT({column}, ';') NOT REGEXP '^{NUMBER};$' "
            f"THEN {fail('a text that is not a number (nor missing: empty, ? or NA): ')} "
            f"WHEN ABS({cast}) < {DBL_MAX!r} THEN {cast} "
            f"ELSE {fail('a number as large as MySQL can hold or larger (treegen reads a larger one as infinite): ')} END")


@dataclass(frozen=True)
class NumberRead:
    """How an engine of typed columns reads a numeric feature's column as treegen reads its CSV field, whatever the
    column's type (``Dialect.number_read``). A text column (what DuckDB's read_csv makes of a column that holds NA or
    ?, or a user's table of texts): '', '?' and 'NA' (spaces around) and nan are missing; a decimal number, inf and
    infinity are what the engine's cast reads, the double Python's ``float`` reads (20,000 texts of up to 40 digits,
    subnormals among them: none off, DuckDB 2.0.1 and PostgreSQL 15); any other text stops the query with an error
    naming the column and the text (DuckDB's cast alone stopped at '' and NA, and read ' 1' and '1_000' as numbers,
    which treegen refuses; PostgreSQL compared no text with a number). Any other type as its cast to a double reads
    it (a DuckDB BOOLEAN's true 1: pandas' get_dummies makes them)."""

    text: str  # the type a cast makes text of
    typed: str  # whether the column {0} is of a type other than text
    matches: str  # whether the text {0} is all of the regular expression {1}
    trimmed: str  # the text {0} without the spaces around it
    double: str  # the double type
    infinity: str  # the double +{0}infinity (an empty {0}) or -infinity ({0} a minus)
    stop: str  # an error with the message {0}, an SQL string, where a double is read

    def __call__(self, column: str, name: str) -> str:
        """The ``column`` read so (``name``: the feature's name as an SQL string, for the error)."""
        text = f"CAST({column} AS {self.text})"  # (binds whatever the column's type; read only where it holds text)
        low = f"lower({text})"
        stop = self.stop.format(f"'treegen: the column ' || {name} || ' holds \"' || {text} || "
                                "'\", not a number (nor missing: empty, ? or NA)'")
        return (f"CASE WHEN {self.typed.format(column)} THEN CAST({column} AS {self.double}) "
                f"WHEN {column} IS NULL THEN NULL "
                f"WHEN {self.matches.format(text, NUMBER)} THEN CAST({text} AS {self.double}) "
                f"WHEN {self.trimmed.format(text)} IN ({MISSING_TEXTS}) OR {low} IN ('nan', '+nan', '-nan') THEN NULL "
                f"WHEN {low} IN ('inf', '+inf', 'infinity', '+infinity') THEN {self.infinity.format('')} "
                f"WHEN {low} IN ('-inf', '-infinity') THEN {self.infinity.format('-')} ELSE {stop} END")


DUCKDB_NUMBER_READ = NumberRead("VARCHAR", "typeof({0}) <> 'VARCHAR'", "regexp_full_match({0}, '{1}')",
                                "trim({0}, ' ')", "DOUBLE", "'{0}Infinity'::DOUBLE", "error({0})")
# PostgreSQL raises no error of our own in a SELECT: the cast of the message to a double stops it, quoting it ("invalid
# input syntax for type double precision: ..."); its cast of a text stops at a number past a double's range too
# ("1e400" is out of range), where treegen reads infinity or zero
POSTGRES_NUMBER_READ = NumberRead(
    "TEXT", "pg_typeof({0}) NOT IN ('text'::regtype, 'character varying'::regtype, 'character'::regtype)",
    "{0} ~ '^{1}$'", "btrim({0}, ' ')", "DOUBLE PRECISION", "'{0}Infinity'::float8", "CAST({0} AS DOUBLE PRECISION)")
# Spark's cast alone read NA as NULL or stopped at it (spark.sql.ansi.enabled, Spark 4's default), and ' 1' and '1\n'
# as 1; its $ matches before a last line end, \z does not (a backslash in a literal written as the dialect writes one)
SPARK_NUMBER_READ = NumberRead("STRING", "typeof({0}) <> 'string'", "{0} RLIKE '^{1}\\\\z'", "trim(BOTH ' ' FROM {0})",
                               "DOUBLE", "CAST('{0}Infinity' AS DOUBLE)", "raise_error({0})")


@dataclass(frozen=True)
class Arrays:
    """How a dialect writes arrays and a loop over a row's value: what the array walk (:mod:`.walk`)
    needs. Every index counts from 1."""

    at: str  # the {1}th element of the array {0}
    of: str  # an array of the items {0}
    typed: str  # an array of {type} read from {text}, numbers separated by commas (one literal to parse)
    position: str  # where {1} is in the array {0}; 0 or NULL when it is not there
    loop: str  # {start}, then {body} over the value so far {acc}, {steps} times ({step}: the step's name)
    each: str  # the array {0} with each item {1} made {2}
    part: str  # the items {start} to {end} (from 1, {count} of them) of the array {array}
    fold: str  # {first} then each item of the array {array}, {add}ed left to right (a lambda of a and b)
    weighted: bool = False  # fractional routes walked too (structs, transform, filter: Spark's functions)
    # the {body} of the loop with the arrays' record ({items}, each ``item``) bound to {name} once per row;
    # None: the arrays are written in the loop (Spark folds them once)
    bind: str | None = None
    item: str = ""  # one field {0} = {1} of that record


@dataclass(frozen=True)
class Binding:
    """How a dialect binds values to a lambda's variable, computed once a row and read many times: the record
    (a struct, which keeps each field's type: a list would make a FLOAT a DOUBLE, an INT a DOUBLE) of one
    list's one item, the lambda's body the list's one result."""

    bind: str  # {body} with the record of the {items} bound to the variable {name}
    item: str  # one field {0} = {1} of that record (read as ``name.field``)


# (a list of one record is never empty, and a record of NULL fields is no NULL record: the body always runs)
DUCKDB_BINDING = Binding(bind="list_transform([{{{items}}}], lambda {name}: {body})[1]", item="'{0}': {1}")
SPARK_BINDING = Binding(bind="element_at(transform(array(named_struct({items})), {name} -> {body}), 1)",
                        item="'{0}', {1}")
SPARK_ARRAYS = Arrays(at="element_at({0}, {1})", of="array({0})", typed="CAST(split('{text}', ',') AS ARRAY<{type}>)",
                      position="array_position({0}, {1})",
                      loop="aggregate(sequence(1, {steps}), {start}, ({acc}, {step}) -> {body})",
                      each="transform({0}, {1} -> {2})", part="slice({array}, {start}, {count})",
                      fold="aggregate({array}, {first}, (a, b) -> {add})", weighted=True)
DUCKDB_ARRAYS = Arrays(at="list_extract({0}, {1})", of="[{0}]", typed="CAST(string_split('{text}', ',') AS {type}[])",
                       position="list_position({0}, {1})",
                       # the start then a NULL a step, and no initial value: DuckDB before 2.0 binds none of
                       # another type than the list's items (a walk of several trees starts from a list)
                       loop="list_reduce(list_resize([{start}], {steps} + 1), lambda {acc}, {step}: {body})",
                       each="list_transform({0}, lambda {1}: {2})", part="list_slice({array}, {start}, {end})",
                       fold="list_reduce({array}, lambda a, b: {add}, {first})",
                       # an array literal inside a lambda is read again at every step: 81 s for a chain
                       # 10,000 deep over 80 rows, 1.6 s bound once per row (0.75 s in a derived table)
                       bind=DUCKDB_BINDING.bind, item=DUCKDB_BINDING.item)


@dataclass(frozen=True)
class Dialect:
    name: str
    quotes: str = '""'  # identifier quote characters (open, close); a close quote inside is doubled
    string_escapes: tuple[tuple[str, str], ...] = (("'", "''"),)  # applied in order inside '...'
    # A string holding a backslash, which a server setting may read as an escape in '...' or not (MySQL's
    # sql_mode NO_BACKSLASH_ESCAPES, PostgreSQL's standard_conforming_strings): written as ``backslashed``
    # of its escaped text with each backslash written as ``backslash``, a form that both settings read alike
    backslashed: str = "'{0}'"
    backslash: str = "\\"
    double_type: str = "DOUBLE PRECISION"
    text_type: str = "VARCHAR"
    cast_text: str = "VARCHAR"  # the type in CAST(x AS ...) that makes text of a number
    double_form: str = "CAST('{repr}' AS DOUBLE PRECISION)"  # {repr} | {exp} (with an exponent) | {binary}
    infinity: str | None = "CAST('Infinity' AS DOUBLE PRECISION)"  # None: the DOUBLE type has no infinities
    nan: str | None = None  # a NaN literal when the DOUBLE type holds NaN (then NaN counts as missing)
    nan_is_null: bool = False  # a NaN result is NULL (SQLite has no NaN: inf - inf, 0 * inf are NULL)
    greatest: str = "GREATEST"
    least: str = "LEAST"
    # {0} rounded to the nearest float32 and read back as a double: a cast to the engine's 4-byte
    # float (round to nearest, ties to even: checked against the model in every test); None: the engine
    # has no float32 type (SQLite): a model in float32 arithmetic rounds each step in double arithmetic, a
    # named value each (Writer.round_step; an expression's output, a scalar subquery of them: Writer.item), its
    # XGBoost codes too (.arithmetic.float32_split)
    float32: str | None = None
    # {0} (read twice: the fold's ``a + b``) rounded to float32 where a sum of float32s may overflow it, infinite
    # there as in the model; every such sum is then a fold. None: ``float32`` there (PostgreSQL's REAL raises an
    # error where the model's sum overflows, MySQL's FLOAT saturates at FLT_MAX)
    float32_sum: str | None = None
    integer_type: str = "BIGINT"  # CAST(x AS ...) of a double holding an integer
    concat: str = "({0} || {1})"  # in parentheses: the pairs nest as a balanced tree (Writer.concat)
    group: str = "({0})"  # an expression {0} in parentheses, where it may be long (a tree's value, a sum, a named value)
    drop_first: str = "SUBSTRING({0} FROM 2)"  # the text without its first character
    # identifiers that differ only in case name the same column: "ascii" (only A-Z fold: SQLite, DuckDB),
    # "unicode" (every letter: str.lower, Java's toLowerCase: Spark), "characters" (each character by its own lower
    # case: MySQL), "" (quoted names are exact)
    ignores_case: str = ""
    empty_names: bool = False  # a zero-length quoted identifier is allowed
    name_limit: int | None = None  # longest identifier in UTF-8 bytes; longer ones are cut by the engine
    name_in_characters: bool = False  # name_limit counts characters, whatever their bytes (MySQL: 64)
    sql_length: int | None = None  # the longest statement the engine reads, in bytes (None: no fixed limit)
    table_parts: int | None = 3  # the most dot-separated parts of a table's name (catalog.schema.table)
    bad_names: tuple[tuple[str, str], ...] = ()  # (regex, why): an identifier it finds is refused, why
    text_key: str = "{0}"  # a text column as compared with category literals: byte for byte
    bytewise: str = ""  # after a text in a LIKE, so that its column's collation takes it byte for byte
    # types the engine casts to by a function named as the type (Spark's cast aliases: double(x) is CAST(x AS
    # DOUBLE)), written so where the cast's operand may be long (:meth:`Dialect.cast`)
    cast_functions: tuple[str, ...] = ()
    # The double a text spells, NULL when it spells none (the category codes of a nominal feature,
    # Writer.category): a cast where the text matches a decimal number, or the engine's TRY_CAST.
    text_number: str = f"CASE WHEN {{0}} SIMILAR TO '{NUMBER}' THEN CAST({{0}} AS DOUBLE PRECISION) END"
    truncated: str = "CASE WHEN {0} < 0 THEN CEIL({0}) ELSE FLOOR({0}) END"  # an integer's double, toward zero
    # A numeric feature's column read as the model reads it whatever it holds (column, its name as an SQL string,
    # the magnitudes near its split points as an SQL list or None: sqlite_number_text), in an engine that compares
    # a text with a number silently (SQLite: as texts); None: the column as it is, or as number_read reads it
    numeric_text: Callable[[str, str, str | None], str] | None = None
    # a nominal feature's column {0} as text without the spaces around it, whatever the column's type: a query reads
    # '', ? and NA missing there, as in a CSV (Writer._nominal_read)
    nominal_trimmed: str | None = None
    # (test, double) of a nominal feature's column {0} that holds a number (its type: the test binds for any), which
    # the model reads by its double as the category it names (treegen.model.number_names), a number that names none
    # as unknown (Writer._named_by_number, Writer.among): SQLite compares a number with a text as unequal where the
    # column's affinity is lost (a derived table's CASE), INTEGER 2002 <> '2002'; DuckDB, PostgreSQL and Spark cast
    # a category literal to a number column's type ('01' = 1, 'abc' an error); MariaDB compares the number's text
    nominal_number: tuple[str, str] | None = None
    # that a nominal feature's column {0} holds a BOOLEAN (its text 'true' or 'false'; a pandas bool column as DuckDB's
    # read_csv or a frame loads it), which the model reads as the category a Boolean names (Feature.named_by_boolean:
    # 'True' as pandas writes it), as every target's API does (Writer._booleans_read); None: the engine has none
    nominal_boolean: str | None = None
    # where the engine compares no number with a BOOLEAN column (pandas' get_dummies makes them), a numeric feature's
    # column {0} read as a double: true 1.0, false 0.0, a DOUBLE as it is (a cast the planners drop)
    number_cast: str | None = None
    # in place of number_cast in a query (its first derived table, once a row; an --expression casts at each test), a
    # numeric feature's column read as the model reads it whatever its type (column, its name as an SQL string)
    number_read: Callable[[str, str], str] | None = None
    # where an expression reads a numeric feature's column as it is: {0} as a double, for a feature an integer column
    # of which the engine would compare with a split point exactly (integers_past_doubles). None: the engine compares
    # an integer's double, or the expression's read already is one (number_cast, numeric_text)
    integer_as_double: str | None = None
    # with numeric_text: the rows of a numeric column (its values, None missing; their texts; the feature's split
    # points) at which it stops the query by design, which a test over text columns (verify) leaves out
    text_stops: Callable[[Sequence[float | None], Sequence[str], list[float] | None], list[int]] | None = None
    nesting: int = 10  # CASE levels nested along a tree's splits before the rest is flat (SQL Server: 10)
    # the deepest expression a SELECT's column may be, in parser stack entries (treegen.emit.sql.depth): where
    # a column would be deeper, its trees' CASEs nest less deep (None: ``nesting`` is all the limit)
    parser_depth: int | None = None
    sum_terms: int = 100  # the longest ``a + b + ...`` written: its depth counts against the engine's limit
    lookup_sum_terms: int | None = None  # the same for a sum of values picked by number (shallow terms)
    rounded_sum_terms: int | None = None  # the same for a sum whose every step is rounded (float32); None: sum_terms
    fold: str | None = None  # {add}s {first} and {rest} left to right at any length (a lambda of a and b over a list)
    pick: str | None = None  # the {index}th (from 1) of the {items}: a label looked up by its number
    strategies: tuple[str, ...] = ("nested", "rules")  # how trees are written, tried in order (see .__init__)
    expression_strategies: tuple[str, ...] | None = None  # those of an --expression, where not ``strategies``
    arrays: Arrays | None = None  # the dialect's arrays, for the "walk" strategy
    walk_tree_nodes: int | None = None  # a tree of more nodes is walked as arrays
    walk_model_nodes: int | None = None  # every tree of a model of more nodes in all is walked as arrays
    # a query names each path weight of a tree with fractional routes (rules.py), computed once a row, which the
    # tree's class sums and leaf ids read: written in each sum, DuckDB's common subexpression optimizer took 65
    # of the 74 s it planned a 386-node C4.5 tree of 4 classes in (2.8 MB); named, 2 s (0.8 MB)
    named_weights: bool = False
    # a tuple split's key (a BIGINT) {not} among its integer {keys}, joined by the second text (Writer.tuple_answer)
    key_among: tuple[str, str] = ("{key} {not}IN ({keys})", ", ")
    # ... or the byte at the key's place in a blob of one byte a key, 01 where it is one ({bytes}: hex; {op}: = or
    # <>), where that text is at most four times the list's (keys_test): SQLite reads a constant blob's byte in
    # place, where its IN list seeks an index (the default CatBoost pairs model: 0.50-0.55 -> 0.42-0.45 ms a row,
    # prepared in 0.2-0.3 instead of 0.7-1.0 s, 2.08 -> 1.88 MB: bench/README.md)
    key_bytes: str | None = None
    # Ends each derived table of a model's steps (sums, probabilities): an engine that merges a derived
    # table into the query around it copies its expressions into every place naming their column, so
    # a boosted model's trees run once per use (SQLite: 82 s instead of 0.5 s, bench/README.md). With
    # it they run once a row. "": DuckDB and Spark compute a shared column once; ANSI writes none, as
    # a distributed engine (Spark, Trino) may gather every row into one task for an OFFSET.
    kept_apart: str = ""
    # an expression's output may be a scalar subquery of WITH steps that read the outer row's columns
    # (Writer.item), each row's in the rows' order; MariaDB 10.11 refuses an outer column in a CTE or a derived
    # table ("Unknown column")
    correlated_steps: bool = False
    # (a pattern) column names a derived table or a CTE renames: SQLite 3.40 names a column true or false (any case)
    # 'columnN' there, reading the name as the Boolean (a forest passed the feature through as 1; sqlfuzz). The
    # SQL reads such a feature under a name of its own (Writer.values); a --keep column so named is refused
    renamed_in_tables: str | None = None
    # an expression's output may bind its shared values to lambdas' variables, a step a lambda (Writer.bound):
    # where an engine has no correlated_steps (DuckDB reorders the rows of such a subquery), yet has lambdas
    binding: Binding | None = None
    engine: str = ""  # the engine that runs this dialect (treegen.run.sql.ENGINES); default: its name
    verify_by_default: bool = False  # `treegen verify` runs it when no --dialect is given
    exp_error: tuple[float, str] | None = None  # how far (relative) and why its EXP is not glibc's exp

    def __post_init__(self):
        if not self.engine:
            object.__setattr__(self, "engine", self.name)

    # -- literals and names --------------------------------------------------------------

    def folded(self, name: str) -> str:
        """``name`` as the engine compares identifiers: two names that fold alike are one column."""
        if self.ignores_case == "ascii":
            return name.translate(_ASCII_LOWER)
        if self.ignores_case == "characters":  # (MariaDB 10.11 finds 'İ' = 'i' and 'ΑΣ' = 'ασ'; str.lower does not)
            return "".join(c.lower()[0] for c in name)  # (Unicode's simple mapping: str.lower makes 'İ' 'i' and a dot)
        return name.lower() if self.ignores_case == "unicode" else name

    def name_length(self, name: str) -> int:
        """``name``'s length as ``name_limit`` counts it."""
        return len(name) if self.name_in_characters else len(name.encode())

    def identifier(self, name: str) -> str:
        """A quoted identifier for any name the engine can hold."""
        if "\0" in name:
            raise TreegenError(f"{self.name}: a name cannot contain a NUL character: {name!r}")
        if not name and not self.empty_names:
            raise TreegenError(f"{self.name}: an empty name cannot be a column name")
        for pattern, why in self.bad_names:
            if re.search(pattern, name):
                raise TreegenError(f"{self.name}: {name!r} cannot be a name: {why}")
        opening, closing = self.quotes
        return opening + name.replace(closing, closing * 2) + closing

    def table(self, name: str) -> str:
        """The input table's quoted name, part by part (dots separate schema and table names): one that
        is empty or blank, whole or in part, is refused as such, not as a column's."""
        if not name.strip():
            raise TreegenError(f"the table name is {'empty' if not name else f'blank ({name!r})'}")
        if any(not part.strip() for part in name.split(".")):
            raise TreegenError(f"the table name {name!r} has an empty part; dots separate schema and table names")
        if self.table_parts and name.count(".") >= self.table_parts:
            most = {2: "database.table", 3: "catalog.schema.table"}[self.table_parts]
            raise TreegenError(f"the table name {name!r} has {name.count('.') + 1} parts; {self.name} takes at most "
                               f"{self.table_parts} ({most})")
        if "\0" in name:
            raise TreegenError(f"the table name {name!r} contains a NUL character")
        return ".".join(self.identifier(part) for part in name.split("."))

    @property
    def string_pattern(self) -> str:
        """A regular expression of a '...' literal as the dialect reads one: with backslash escapes where it writes
        a quote as one (Spark: 'it\\'s'), else with quotes doubled."""
        if ("'", "\\'") in self.string_escapes:
            return r"'(?:[^'\\]|\\.|'')*'"
        return r"'(?:[^']|'')*'"

    def string(self, text: str) -> str:
        if "\0" in text:
            raise TreegenError(f"{self.name}: a string cannot contain a NUL character: {text!r}")
        for old, new in self.string_escapes:
            text = text.replace(old, new)
        if "\\" in text:
            return self.backslashed.format(text.replace("\\", self.backslash))
        return "'" + text + "'"

    def double(self, x: float) -> str:
        """A literal that the engine reads as exactly the double ``x``."""
        # cached by repr, not by value: -0.0 == 0.0 would share one entry and lose the sign bit; and by the
        # fields it reads, not by the dialect, whose hash (all its fields) was over a third of the cost of a call
        return _double(repr(float(x)), self.name, self.infinity, self.double_type, self.double_form)

    def picked(self, items: list[str], index: str) -> str:
        """The ``index``th (from 1) of ``items``: the dialect's ``pick``, else a CASE of the index (SQLite: 1.3
        times faster than nested CASEs of an oblivious tree's splits, 20,000 rows: :mod:`.oblivious`)."""
        if self.pick:
            return self.pick.format(items=", ".join(items), index=index)
        return f"CASE {index} " + " ".join(f"WHEN {k} THEN {item}" for k, item in enumerate(items, 1)) + " END"

    def keys_written(self, keys: Sequence[int]) -> str:
        """A tuple split's keys (ascending, not negative) as :meth:`keys_test` writes them: a list, or the hex of a
        blob of one byte a key up to the last (``key_bytes``) where it takes at most four times the list's text."""
        return self._keys(keys)[1]

    def keys_test(self, key: str, keys: Sequence[int], among: bool = True) -> str:
        """Whether the integer ``key`` is (``among``), or is not, one of ``keys`` (not empty), written as
        :meth:`keys_written` says. A key past the blob's end reads an empty blob, which is not X'01'."""
        as_bytes, written = self._keys(keys)
        if as_bytes:
            return self.key_bytes.format(key=key, bytes=written, op="=" if among else "<>")
        return self.key_among[0].format(key=key, keys=written, **{"not": "" if among else "NOT "})

    def _keys(self, keys: Sequence[int]) -> tuple[bool, str]:
        """(whether as bytes, the text): see :meth:`keys_written`."""
        listed = self.key_among[1].join(map(str, keys))
        if self.key_bytes is None or keys[-1] + 1 > 2 * len(listed):
            return False, listed
        among = set(keys)
        return True, "".join("01" if k in among else "00" for k in range(keys[-1] + 1))

    def cast(self, x: str, type_name: str) -> str:
        """``x`` cast to the type ``type_name``."""
        if type_name in self.cast_functions:
            return f"{type_name.lower()}({x})"
        return f"CAST({x} AS {type_name})"

    def array_of(self, numbers, element_type: str) -> str:
        """An array of numbers as one string literal cast to the array type: short to parse, and the
        cast reads each double exactly (Spark: Java's ``Double.parseDouble``, as the ``D`` literal does;
        DuckDB: its correctly rounded reader of literals)."""
        text = ",".join(_INFINITE.get(x, repr(x)) for x in numbers)
        return self.arrays.typed.format(text=text, type=element_type)


@lru_cache(maxsize=1 << 16)  # a big tree repeats its thresholds and values
def _double(text: str, name: str, infinity: str | None, double_type: str, double_form: str) -> str:
    """:meth:`Dialect.double` of the number ``text`` (its repr)."""
    x = float(text)
    if math.isnan(x):  # (a threshold never is: a model file's leaf may be, where its library diverged)
        raise TreegenError(f"{name}: the model holds a NaN value (a leaf's), which the SQL does not write; a model "
                           "that predicts NaN has diverged in training")
    if math.isinf(x):
        if infinity is None:
            raise TreegenError(f"{name}: the model holds an infinite number (a leaf), which {name} "
                               "cannot write: it has no infinity")
        return infinity if x > 0 else "-" + infinity
    with_exponent = text if "e" in text else text + "e0"
    binary = _binary(x, double_type) if "{binary}" in double_form else ""
    return double_form.format(repr=text, exp=with_exponent, binary=binary)


_INFINITE = {math.inf: "Infinity", -math.inf: "-Infinity"}
_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _binary(x: float, double_type: str) -> str:
    """``x`` as exact binary arithmetic: an integral double, or an integer mantissa scaled by powers of
    two (each step exact: the intermediate results lie between the mantissa and ``x``)."""
    if x == int(x) and abs(x) < 2 ** 53:
        return repr(float(x))
    mantissa, exponent = x.as_integer_ratio()  # x = mantissa / exponent, exponent a power of two
    if exponent == 1:  # a big integer: mantissa * 2**k with an odd-free mantissa below 2**53
        shift = (mantissa & -mantissa).bit_length() - 1
        return _scaled(mantissa >> shift, "*", shift, double_type)
    return _scaled(mantissa, "/", exponent.bit_length() - 1, double_type)


def _scaled(mantissa: int, op: str, shift: int, double_type: str) -> str:
    steps = []
    while shift > 0:
        step = min(shift, POWER.bit_length() - 1)
        steps.append(str(2 ** step))
        shift -= step
    return "(" + f"CAST({mantissa} AS {double_type})" + "".join(f" {op} {s}" for s in steps) + ")"


# (bytewise) PostgreSQL's nondeterministic collations (ICU's 'und-u-ks-level2') and DuckDB's NOCASE and NOACCENT find
# 'A' = 'a', and PostgreSQL's take no LIKE; C compares bytes, and every database has it
BYTEWISE = ' COLLATE "C"'
ANSI = Dialect("ansi", engine="duckdb", float32="CAST(CAST({0} AS REAL) AS DOUBLE PRECISION)")  # also tested on PostgreSQL
DIALECTS = {dialect.name: dialect for dialect in (
    ANSI,
    # SQLite computes each constant operand once per statement, and checks every new one against all
    # those it has (quadratic: 124 s to prepare a 50,000-leaf tree); a constant in a function call is
    # computed once where it is first reached instead (measured: 4% more instructions a row)
    Dialect("sqlite", double_type="REAL", text_type="TEXT", double_form="ifnull({binary}, 0)", infinity="9e999",
            greatest="MAX", least="MIN", drop_first="substr({0}, 2)", ignores_case="ascii", empty_names=True, nesting=12,
            table_parts=2,  # an attached database's name, then the table's
            sql_length=1_000_000_000,  # SQLITE_MAX_SQL_LENGTH: "query string is too large"
            sum_terms=500, verify_by_default=True, strategies=("oblivious", "nested", "rules"),
            # SQLite 3.40: parser stack overflow at 18 nested CASE alone, fewer inside derived tables and
            # around deep tests; an expression deeper than 1000 is refused
            parser_depth=94,  # a stack of 100 entries, 6 of them the SELECT's own
            nan_is_null=True,  # inf - inf is NULL
            kept_apart=" LIMIT -1 OFFSET 0", correlated_steps=True,
            renamed_in_tables="(?i)true|false",
            text_number=f"CASE WHEN {SQLITE_NUMBER} THEN CAST({{0}} AS REAL) END", truncated="CAST({0} AS INTEGER)",
            numeric_text=sqlite_number_text, text_stops=sqlite_column_stops,
            nominal_trimmed="trim({0}, ' ')",
            nominal_number=("typeof({0}) IN ('integer', 'real')", "CAST({0} AS REAL)"),
            key_bytes="substr(X'{bytes}', {key} + 1, 1) {op} X'01'"),
    # E'...' reads \\ as a backslash whatever standard_conforming_strings says ('...' does only when it is off)
    Dialect("postgres", backslashed="E'{0}'", backslash="\\\\",
            text_type="TEXT", double_form="{repr}::float8", infinity="'Infinity'::float8",
            kept_apart=" OFFSET 0",  # also keeps LLVM's JIT from compiling each copy (150 s instead of 3 s)
            correlated_steps=True,
            nan="'NaN'::float8", name_limit=63, nesting=24, sum_terms=1000,  # 800 measured
            pick="(ARRAY[{items}])[{index}]", strategies=("oblivious", "nested", "rules"),
            # float4 raises an error where float32 overflows, or rounds a number other than 0 to 0
            float32="CAST(CAST({0} AS REAL) AS DOUBLE PRECISION)",
            text_number=f"CASE WHEN {{0}} ~ '^{NUMBER}$' THEN CAST({{0}} AS DOUBLE PRECISION) END",
            # (text first, as DuckDB's; a double's text reads back as it since PostgreSQL 12, a real's as real)
            nominal_number=("pg_typeof({0}) IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype, "
                            "'real'::regtype, 'double precision'::regtype)",
                            "CASE WHEN pg_typeof({0}) = 'real'::regtype THEN CAST(CAST(CAST({0} AS TEXT) AS REAL) "
                            "AS DOUBLE PRECISION) ELSE CAST(CAST({0} AS TEXT) AS DOUBLE PRECISION) END"),
            # (cast first: an enum column takes no collation)
            nominal_boolean="pg_typeof({0}) = 'boolean'::regtype",
            bytewise=BYTEWISE, text_key="CAST({0} AS TEXT)" + BYTEWISE,
            nominal_trimmed="btrim(CAST({0} AS TEXT), ' ')" + BYTEWISE,
            number_read=POSTGRES_NUMBER_READ,
            truncated="trunc({0})"),
    Dialect("duckdb", double_type="DOUBLE", number_cast="{0}::DOUBLE", number_read=DUCKDB_NUMBER_READ,
            double_form="{exp}",
            infinity="'Infinity'::DOUBLE",
            nan="'NaN'::DOUBLE", ignores_case="ascii", nesting=24, verify_by_default=True, fold="list_reduce([{first}, {rest}], lambda a, b: {add})",
            lookup_sum_terms=500,  # a chain of 500 adds runs 3x faster a row than the list_reduce fold
            pick="[{items}][{index}]", strategies=("oblivious", "walk", "nested", "rules"), arrays=DUCKDB_ARRAYS,
            walk_tree_nodes=20_000,  # planning a nested CASE costs ~0.1 ms a node; a walk ~2 us a row more
            named_weights=True,
            # (a list of constants takes DuckDB (2.0) time quadratic in all the lists' elements to plan: the 582 lists of
            # 300 keys of a default CatBoost model 33 s, where a regular expression of each takes 1.4 s and a row 0.1 ms)
            key_among=("{not}regexp_full_match(CAST({key} AS VARCHAR), '{keys}')", "|"),
            # (no correlated_steps: DuckDB decorrelates such a subquery into a join, which gives the rows back in
            # another order, each with its own answers: measured on 5,000 rows of a walked model; lambdas instead)
            binding=DUCKDB_BINDING,
            # (text first: a cast binds from any type; a number's text reads back as its value, a FLOAT's as FLOAT)
            nominal_number=("typeof({0}) IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT', 'UTINYINT', "
                            "'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT', 'FLOAT', 'DOUBLE')",
                            "CASE typeof({0}) WHEN 'FLOAT' THEN CAST(TRY_CAST(CAST({0} AS VARCHAR) AS FLOAT) AS DOUBLE) "
                            "ELSE TRY_CAST(CAST({0} AS VARCHAR) AS DOUBLE) END"),
            float32="CAST(CAST({0} AS FLOAT) AS DOUBLE)", truncated="trunc({0})",
            # (cast first: an ENUM column, as a pandas Categorical loads, takes no collation)
            nominal_boolean="typeof({0}) = 'BOOLEAN'",
            bytewise=BYTEWISE, text_key="CAST({0} AS VARCHAR)" + BYTEWISE,
            nominal_trimmed="trim(CAST({0} AS VARCHAR), ' ')" + BYTEWISE,
            # FLOAT raises an error for a finite double float32 rounds to infinity (it casts an infinite one):
            # a fold of this step, one thread, 20,000 rows: 94 us a row for 60 trees, 221 for 500, where the
            # chain of casts (or past 100 terms their fold) took 283 and 265 (sqlfuzz, best of 5 each)
            float32_sum="CASE WHEN abs({0}) >= 3.4028235677973366e38 THEN ({0}) * 'Infinity'::DOUBLE "
                        "ELSE CAST(CAST({0} AS FLOAT) AS DOUBLE) END"),
    # MySQL's default collations ignore case, accents and trailing spaces: categories are compared as
    # bytes, whatever the column's collation ('a' <> 'a ', 'a' <> 'A'); the runner's columns use the
    # charset's default collation (utf8mb4_general_ci) to show it.
    # A backslash is QUOTE's escape of a quote, whatever the sql_mode ('...' reads one as an escape unless
    # NO_BACKSLASH_ESCAPES), in the connection's character set and collation as a literal is (CHAR(92 USING
    # utf8mb4) and _utf8mb4 X'5C' are in utf8mb4's default collation: where the connection's is another,
    # an illegal mix of collations with the literals and the BINARY key around them)
    Dialect("mysql", quotes="``", backslashed="CONCAT('{0}')", backslash="', SUBSTRING(QUOTE(''''), 2, 1), '",
            double_type="DOUBLE",
            text_type="TEXT CHARACTER SET utf8mb4", text_key="CAST(CONVERT({0} USING utf8mb4) AS BINARY)",
            cast_text="CHAR", double_form="{exp}", integer_type="SIGNED",
            infinity=None, concat="CONCAT({0}, {1})", ignores_case="characters", name_limit=64, nesting=24, table_parts=2,
            name_in_characters=True,  # (MariaDB 10.11: a column of 64 CJK characters, 192 bytes, is one)
            kept_apart=" LIMIT 18446744073709551615",  # all rows; a LIMIT keeps it from being merged
            # an oblivious tree as nested CASEs repeats each level's test in every node: the default CatBoost pairs
            # model's expression (no derived table holds its answers) 14.0 MB, 12.3 s for 5,000 rows in MariaDB 10.11;
            # as leaf indexes 3.45 MB, 9.4 s (the query, whose answers a derived table holds, the same either way)
            expression_strategies=("oblivious", "nested", "rules"),
            sum_terms=500,  # MariaDB's default thread_stack overflows at a chain of 800
            rounded_sum_terms=100,  # and at 200 adds each rounded to float32 (a CAST in a CAST a step)
            # MySQL 8.0.17+, MariaDB 10.4.5+: FLOAT rounds as float32 does (ties to even, subnormals; MariaDB 10.11
            # measured), but saturates at FLT_MAX where float32 overflows to infinity, which MySQL has none of
            float32="CAST(CAST({0} AS FLOAT) AS DOUBLE)",
            # (a sentinel at the end, as mysql_number_text's: REGEXP's $ matches before a final line end too)
            text_number=f"CASE WHEN CONCAT({{0}}, ';') REGEXP '^{NUMBER};$' THEN CAST({{0}} AS DOUBLE) END",
            truncated="TRUNCATE({0}, 0)",
            numeric_text=mysql_number_text, text_stops=mysql_column_stops,
            # (an integral constant beside an integer column is made an integer: BIGINT 2^53 + 1 <= 2^53e0 is false)
            integer_as_double="({0} + 0e0)",
            # a number column's collation is 'binary', its text's not (mysql_number_text); compared as their
            # texts' bytes (text_key), 0 is not '-0', nor 1e-7 '1e-7'
            nominal_number=MYSQL_NUMBER_COLUMN,
            nominal_trimmed="TRIM(CAST(CONVERT({0} USING utf8mb4) AS BINARY))",
            bad_names=(("[\U00010000-\U0010FFFF]", "identifiers hold no character beyond U+FFFF"),)),
    Dialect("spark", quotes="``", string_escapes=(("\\", "\\\\"), ("'", "\\'")), double_type="DOUBLE",
            number_cast="double({0})",
            text_type="STRING", cast_text="STRING", double_form="{repr}D", infinity="CAST('Infinity' AS DOUBLE)",
            nan="CAST('NaN' AS DOUBLE)", ignores_case="unicode", nesting=6,
            table_parts=None,  # a catalog's namespaces may nest
            # (an oblivious tree's index: the default CatBoost pairs model's query, its trees walked before, 3.11 ->
            # 1.27 MB, 20,000 rows 42 -> 12-16 s; the first row of a fresh session 6.2 -> 6.9 s: bench/README.md)
            strategies=("oblivious", "walk", "nested", "rules"),
            arrays=SPARK_ARRAYS, walk_model_nodes=500,  # Janino fails on deeper
            # (one string literal: Spark parses a list of constants token by token -- the default CatBoost model's
            # 582 lists of 300 keys: its query took 114 s for a row, so 31 s)
            key_among=("{not}array_contains(CAST(split('{keys}', ',') AS ARRAY<BIGINT>), {key})", ","),
            binding=SPARK_BINDING,
            # Java's Math.exp: 1 to 8 ulps off glibc's on about one input in seven (a sigmoid's 1.6e-15)
            exp_error=(1e-14, "Spark's EXP is Java's Math.exp, not glibc's exp"),
            # Spark's parser (ANTLR) reads CAST( as a cast or as a call of a function named cast (a non-reserved
            # keyword): it looks ahead over the whole operand for its AS before it chooses, and learns each such
            # look-ahead as new states of its DFA. Nested over a sum of trees that is most of its time (30 trees
            # of float32 sums, 17 KB: 1.3 s of CPU, 10,900 states; double(float(x)): 0.03 s, 380), and a run of such
            # queries fills the parser's cache past the session's flush (AbstractParser), which it empties, so the
            # next query starts cold. A cast alias, a plain function, is told in two tokens.
            cast_functions=("DOUBLE", "FLOAT", "BIGINT", "STRING", "INT"),
            # So does "(": a row's constructor (a, b) begins as a parenthesised expression does (a tree's value
            # in a sum of 81 KB: 62,000 states, 9 s of CPU; as function calls with the casts above, 6,600 and 1.1 s).
            # coalesce of one operand is the operand, which the optimiser's NullPropagation leaves bare.
            group="coalesce({0})", concat="concat({0}, {1})",
            float32="double(float({0}))",
            text_number=f"CASE WHEN {{0}} RLIKE '^{NUMBER}\\\\z' THEN CAST({{0}} AS DOUBLE) END",  # (not $: SPARK_NUMBER_READ)
            # (text first, as DuckDB's; a double's text is Java's, which reads back as it, a float's as float)
            nominal_trimmed="trim(BOTH ' ' FROM CAST({0} AS STRING))", number_read=SPARK_NUMBER_READ,
            nominal_number=("typeof({0}) IN ('tinyint', 'smallint', 'int', 'bigint', 'float', 'double')",
                            "CASE typeof({0}) WHEN 'float' THEN CAST(CAST(CAST({0} AS STRING) AS FLOAT) AS DOUBLE) "
                            "ELSE CAST(CAST({0} AS STRING) AS DOUBLE) END"),
            nominal_boolean="typeof({0}) = 'boolean'",
            truncated="bigint({0})",
            fold="aggregate(array({rest}), {first}, (a, b) -> {add})", pick="element_at(array({items}), {index})"),  # or bigger code
)}


# Other names users call the dialects by (lower case): a misspelt dialect's hint names the one they mean
DIALECT_ALIASES = {"postgresql": "postgres", "pg": "postgres", "psql": "postgres", "mariadb": "mysql",
                   "sqlite3": "sqlite", "sparksql": "spark", "spark_sql": "spark", "spark-sql": "spark"}


def find_dialect(name: str) -> Dialect:
    """The row of the dialect called ``name``."""
    try:
        return DIALECTS[name]
    except KeyError:
        raise BadArgument(f"unknown SQL dialect {name!r}; choose one of {', '.join(DIALECTS)}"
                          + did_you_mean([name], DIALECTS, DIALECT_ALIASES)) from None
