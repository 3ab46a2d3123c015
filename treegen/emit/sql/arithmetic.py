"""The arithmetic of a model's combine (:mod:`treegen.arithmetic`) as SQL expressions: float32 rounding,
glibc's ``expf`` (XGBoost's links), and ``exp`` guarded where an engine raises an error instead of
returning 0 or infinity (PostgreSQL).

Every function takes SQL text and returns SQL text; an argument that appears more than once in the
result should be a named value (a column of the query), not a long expression.
"""
from __future__ import annotations

from ... import arithmetic as ref
from ...errors import TreegenError
from .dialects import Dialect

EXP_OVERFLOW = 709.782712893384  # glibc's exp is infinite above this double
EXP_UNDERFLOW = -745.0  # and as good as 0 below (5e-324 at most: within is_close's 1e-300)
VELTKAMP = 2.0 ** 29 + 1  # x * VELTKAMP splits a double's 53 significant bits into 24 and 29


def float32(d: Dialect, x: str) -> str:
    """``x`` rounded to the nearest float32, as a double."""
    if d.float32 is None:
        raise TreegenError(f"{d.name}: float32 arithmetic (XGBoost) cannot be written in SQL for this engine: "
                           "it has no 4-byte float type")
    return d.float32.format(x)


def float32_sum(d: Dialect, x: str) -> str:
    """The sum ``x`` (read twice where the dialect guards it: the fold's ``a + b``) rounded to float32, infinite
    where float32 overflows: ``Dialect.float32_sum``, else the plain :func:`float32`."""
    return d.float32_sum.format(x) if d.float32_sum else float32(d, x)


def float32_split(d: Dialect, x: str) -> str:
    """``x`` rounded to 24 significant bits, ties to even, in plain double arithmetic (for an engine with no
    4-byte float): Veltkamp's splitting, ``c - (c - x)`` with ``c = x * (2^29 + 1)``. That is float32's
    rounding where float32 is normal and finite, ``2^-126 <= |x| < FLT_OVERFLOW``; beyond about 2^994 ``c``
    overflows. ``x`` appears three times."""
    c = f"{x} * {d.double(VELTKAMP)}"
    return f"({c} - ({c} - {x}))"


def float32_column(d: Dialect, x: str) -> str:
    """The double ``x`` (a column: it is read up to six times) rounded to the nearest float32, ties to even,
    in plain double arithmetic, as a double: below float32's normal range to a multiple of 2^-149 (added to
    1.5 * 2^-97, whose last bit is worth 2^-149), from ``FLT_OVERFLOW`` on to infinity, else
    :func:`float32_split`. NULL (SQLite's NaN) stays NULL."""
    lit, shift = d.double, d.double(1.5 * 2.0 ** -97)
    return (f"CASE WHEN abs({x}) < {lit(2.0 ** -126)} THEN ({x} + {shift}) - {shift} "
            f"WHEN abs({x}) >= {lit(ref.FLT_OVERFLOW)} THEN {x} * {d.infinity} ELSE {float32_split(d, x)} END")


def exp(d: Dialect, x: str) -> str:
    """C's ``exp(x)`` in double: the engine's ``EXP`` (glibc's in SQLite, DuckDB, PostgreSQL and MariaDB;
    Java's ``Math.exp`` in Spark, 1 to 8 ulps off on some inputs),
    0 where it underflows and infinity where it overflows; NaN for NaN, which sorts above every number
    where the DOUBLE type holds it (PostgreSQL, DuckDB, Spark; ANSI on either: there no NaN literal, and
    NaN is above infinity too; SQLite's NaN is NULL)."""
    not_nan = (f" AND {x} <> {d.nan}" if d.nan else "" if d.nan_is_null else f" AND {x} <= {d.infinity}")
    overflow = f" WHEN {x} > {d.double(EXP_OVERFLOW)}{not_nan} THEN {d.infinity}" if d.infinity else ""
    return f"CASE WHEN {x} < {d.double(EXP_UNDERFLOW)} THEN {d.double(0.0)}{overflow} ELSE EXP({x}) END"


def exp_float32(d: Dialect, x: str, nan: bool = False) -> str:
    """C's ``exp`` of the float32 ``x`` in double, rounded to float32 (XGBoost's survival:aft): infinite above
    ``expf``'s overflow bound and 0 below its underflow bound, which are this rounding's too for every float32
    (tests/test_import_xgboost.py checks both bounds), so that the engine's 4-byte cast never overflows nor
    underflows (PostgreSQL raises an error for either). ``nan`` as for :func:`expf`."""
    lit = d.double
    nan_first = f"WHEN {x} > {d.infinity} THEN {x} " if nan and d.infinity else ""  # only NaN is above infinity
    infinite = d.infinity or f"EXP({lit(1000.0)})"  # MySQL: an error, as a double link's overflow
    return (f"CASE {nan_first}WHEN {x} > {lit(ref.EXPF_OVERFLOW)} THEN {infinite} WHEN {x} < "
            f"{lit(ref.EXPF_UNDERFLOW)} THEN {lit(0.0)} ELSE {float32(d, f'EXP({x})')} END")


def expf(d: Dialect, x: str, nan: bool = False, rounded: bool = True) -> str:
    """glibc's ``expf`` of the float32 ``x`` (see :func:`treegen.arithmetic.expf`): the nearest integer
    ``k`` to ``x * 32 / ln 2`` by the shift trick, ``2^(k mod 32 / 32)`` from a table times the power of
    two ``2^((k - k mod 32) / 32)``, a cubic in the rest, all in double, rounded once to float32; and the
    two inputs where that differs from glibc's fused build. Exact in DuckDB, PostgreSQL and Spark
    (plain double arithmetic, no library function but ``POWER`` of 2 to an integer). ``nan``: ``x`` may be
    NaN (:func:`treegen.model.scores_nan`), which is given back: where NaN sorts above every number, the
    overflow's test would take it for infinity, and its integer cast raises an error. Not ``rounded``: the
    last product left in double, for an engine without a 4-byte float to round as a named value."""
    lit = d.double
    z = f"({x} * {lit(ref.EXPF_INV_LN2_N)})"
    kd = f"(({z} + {lit(ref.EXPF_SHIFT)}) - {lit(ref.EXPF_SHIFT)})"  # round half even, as glibc does
    k = d.cast(kd, d.integer_type)
    m = f"MOD(MOD({k}, {ref.EXPF_N}) + {ref.EXPF_N}, {ref.EXPF_N})"  # k mod 32, from 0 also for k < 0
    table = f"CASE {m} " + " ".join(f"WHEN {i} THEN {lit(t)}" for i, t in enumerate(ref.EXPF_TABLE)) + " END"
    scale = f"({table} * POWER({lit(2.0)}, ({kd} - {m}) / {lit(float(ref.EXPF_N))}))"
    r = f"({z} - {kd})"
    y = (f"(({lit(ref.EXPF_C0)} * {r} + {lit(ref.EXPF_C1)}) * ({r} * {r}) + ({lit(ref.EXPF_C2)} * {r} + {lit(1.0)}))")
    exceptions = " ".join(f"WHEN {x} = {lit(a)} THEN {lit(b)}" for a, b in ref.EXPF_EXCEPTIONS.items())
    product = f"{y} * {scale}"
    nan_first = f"WHEN {x} > {d.infinity} THEN {x} " if nan and d.infinity else ""  # only NaN is above infinity
    # MySQL has no infinity: there a DOUBLE out of range raises an error, as a double link's overflow does
    infinite = d.infinity or f"EXP({lit(1000.0)})"
    return (f"CASE {nan_first}WHEN {x} > {lit(ref.EXPF_OVERFLOW)} THEN {infinite} WHEN {x} < "
            f"{lit(ref.EXPF_UNDERFLOW)} THEN {lit(0.0)} {exceptions} "
            f"ELSE {float32(d, product) if rounded else product} END")
