"""What every generated program prints (README, "one protocol"): one prediction per line, or with
``--proba`` a header of class labels and the probabilities, or with ``--leaf`` the leaf ids. The
runners of targets that are not programs (SQL, the rule text) print their answers through here."""
from __future__ import annotations

import csv
import io
from typing import Sequence

from ..model import Model


def write_output(model: Model, predictions: Sequence, scores: Sequence[Sequence[float]] | None = None,
                 leaves: Sequence[str] | None = None, args: Sequence[str] = ()) -> str:
    """The text a program prints for these answers, one per input row, given its ``args``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if "--leaf" in args:
        writer.writerows([[str(leaf)] for leaf in leaves])
    elif "--proba" in args:
        writer.writerow(model.target.classes)
        writer.writerows([[_number(p) for p in row] for row in scores])
    elif model.target.is_classification:
        writer.writerows([[label] for label in predictions])
    else:
        writer.writerows([[_number(value)] for value in predictions])
    return out.getvalue()


def _number(value) -> str:
    """A number as its shortest text; a SQL NULL (None) as an empty field."""
    return "" if value is None else repr(float(value))
