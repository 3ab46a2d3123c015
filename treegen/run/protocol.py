"""What every generated program prints (README, "one protocol"): one prediction per line, or with
``--proba`` a header of class labels and the probabilities, or with ``--leaf`` the leaf ids. The
runners of targets that are not programs (SQL, the rule text) print their answers through here."""
from __future__ import annotations

from typing import Sequence

from ..data import csv_text
from ..model import Model


def write_output(model: Model, predictions: Sequence, scores: Sequence[Sequence[float]] | None = None,
                 leaves: Sequence[str] | None = None, args: Sequence[str] = ()) -> str:
    """The text a program prints for these answers, one per input row, given its ``args``."""
    if "--leaf" in args:
        return csv_text([str(leaf)] for leaf in leaves)
    if "--proba" in args:
        return csv_text([model.target.classes, *([_number(p) for p in row] for row in scores)])
    if model.target.is_classification:
        return csv_text([label] for label in predictions)
    return csv_text([_number(value)] for value in predictions)


def _number(value) -> str:
    """A number as its shortest text; a SQL NULL (None) as an empty field."""
    return "" if value is None else repr(float(value))
