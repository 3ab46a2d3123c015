"""What `treegen verify` asks of a generated program's row API (Python's ``predict(row)`` with a dict, ...),
besides its CSV path: a driver, one per target (its runner's ``run_row_api``), reads the CSV the program reads,
builds each row as a user's code would (a number as a number, a category as text) and answers it through the API.

The driver's standard input is one line of JSON, then the CSV: ``numeric`` (per column, whether it is a number),
``ways`` (per CSV row, how to give its missing values: :data:`WAYS`, one answer each), ``proba`` and ``leaf``
(which answers to give besides the label). It prints a JSON array of its answers, each ``[label, scores, leaf
ids]`` (each number as its language's text of it, the leaf ids as a program prints them; null where not asked)
or ``{"error": what the API raised}``. A driver of a target with a rows API (its runner's ``ROWS_API``: the
names of its many-rows functions) prints a second line: per size in the plan's ``batches``, the answers of that
API called on the rows asked (each as first given), that many a call, ``[label, scores, null]`` each."""
from __future__ import annotations

import json
from typing import Sequence

# How a row's missing values are given: as the language's null (None), as NaN, as absent keys; AS_IS: the row
# has none. A row of probes is answered each way; a data row one way, in turn. A runner's WAYS may add ways of its
# language's own (JavaScript's undefined, Java's Object[] row), each a letter the driver knows.
WAYS = "nfa"
AS_IS = "-"
# The data rows a row API answers, the first ones, beside every probe (which reach every split either side and
# missing): the bench's 50,000 data rows took the Python, Java and Node drivers 1.5, 3.0 and 3.4 s.
DATA_ROWS = 10_000


def ways(rows: list[dict], names: Sequence[str], probes: int, every: str = WAYS) -> list[str]:
    """Per row, the ways its missing values are given (``every``: :data:`WAYS`, or a runner's): every way for a
    probe (they reach every split's missing route), one in turn for a data row, none ("") for a data row past
    :data:`DATA_ROWS`. A row whose every value is missing is never given as absent keys: a row that names no
    feature is refused by design."""
    out, turn = [], 0
    for index, row in enumerate(rows):
        if index >= probes + DATA_ROWS:
            out.append("")
            continue
        missing = sum(v is None or v != v for v in map(row.get, names))  # (NaN is not equal to itself)
        if not missing:
            out.append(AS_IS)
            continue
        allowed = every if missing < len(names) else every.replace("a", "")
        if index < probes:
            out.append(allowed)
        else:
            out.append(allowed[turn % len(allowed)])
            turn += 1
    return out


def batches(asked: int, rows_at_once: int | None) -> list[int]:
    """The sizes of the calls a rows API answers the ``asked`` rows in, in turn: all at once, one a call (its
    path for a few rows), and where its runtime sums ``rows_at_once`` rows together, one more, so that a call
    ends in a group of one."""
    smaller = [1] + ([rows_at_once + 1] if rows_at_once else [])
    return list(dict.fromkeys(size for size in [asked, *smaller] if 0 < size <= asked))


def driver_input(numeric: Sequence[bool], ways_of_rows: Sequence[str], csv_text: str, proba: bool,
                 leaf: bool, batch_sizes: Sequence[int] = ()) -> str:
    """The driver's standard input: the line of JSON, then the CSV."""
    plan = {"numeric": list(numeric), "ways": ",".join(ways_of_rows), "proba": proba, "leaf": leaf,
            "batches": list(batch_sizes)}
    return json.dumps(plan) + "\n" + csv_text


def answers(printed: str) -> list:
    """The driver's answers: ``[label, scores, leaf ids]`` or ``{"error": ...}`` each."""
    return json.loads(printed.partition("\n")[0])


def rows_answers(printed: str) -> list[list]:
    """The rows API's answers, per batch size (the driver's second line; none from a driver without one)."""
    second = printed.partition("\n")[2]
    return json.loads(second) if second.strip() else []
