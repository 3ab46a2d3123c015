"""Predicting every row of a data file at once, as `treegen predict` does: the trees walked vectorised
(:mod:`treegen.walk`), the table's own columns written back with the answers."""
from __future__ import annotations

from typing import Callable, Iterable, Iterator

import numpy as np

from .data import csv_text, encode, model_columns, rows_for_model
from .errors import TreegenError
from .model import Model
from .table import Table, free_names
from .walk import UNKNOWN, as_read, leaf_ids_columns, predict_columns


def predict_table(model: Model, table: Table, proba: bool = False, leaf: bool = False,
                  say: Callable[[str], None] = lambda line: None) -> str:
    """CSV text: the table's columns as read, then ``prediction`` and, with ``proba``, ``P(class)`` columns,
    with ``leaf`` a ``leaf`` column (the leaf ids every generated program's ``--leaf`` prints). An added
    column named as one of the table's is renamed (:func:`treegen.table.free_names`: a header with a name twice
    is one no reader takes back), which ``say`` is told in one line."""
    return "".join(predict_tables(model, [table], proba, leaf, say))


def predict_tables(model: Model, tables: Iterable[Table], proba: bool = False, leaf: bool = False,
                   say: Callable[[str], None] = lambda line: None) -> Iterator[str]:
    """:func:`predict_table` of a file read a part at a time (:func:`treegen.data.read_tables`): the first part's
    CSV text with the header, then each next part's rows."""
    classification = model.target.is_classification
    if proba and not classification:
        raise TreegenError("--proba needs a classification model")
    for number, table in enumerate(tables):
        header = []
        if number == 0:
            wanted = (["prediction"] + ([f"P({c})" for c in model.target.classes] if proba else [])
                      + (["leaf"] if leaf else []))
            added = free_names(wanted, table.names)  # as the SQL target names its output columns
            clashes = [(name, new) for name, new in zip(wanted, added) if new != name]
            if clashes:
                one = len(clashes) == 1
                say(f"the data has {'a column' if one else 'columns'} {', '.join(repr(name) for name, _ in clashes)} "
                    f"already: the output names its own {', '.join(repr(new) for _, new in clashes)}")
            header = [list(table.names) + added]
        yield csv_text(header + list(zip(*table.columns, *answer_columns(model, table, proba, leaf))))


def answer_columns(model: Model, table: Table, proba: bool, leaf: bool) -> list[list]:
    """The columns predict adds to a table: each row's label (or value, as its repr), with ``proba`` its
    probabilities (reprs), with ``leaf`` its leaf ids."""
    columns, row = walk_inputs(table, model)
    answers = predict_columns(model, columns, row)
    labels = [label for label, _ in answers] if model.target.is_classification else [repr(v) for v, _ in answers]
    scores = [[repr(p) for p in column] for column in zip(*(s for _, s in answers))] if proba else []
    return [labels, *scores, *([leaf_ids_columns(model, columns, row)] if leaf else [])]


def predicted_labels(model: Model, table: Table) -> list:
    """Each row's label (classification) or value (regression), as `treegen predict` writes it."""
    return [label for label, _ in predict_columns(model, *walk_inputs(table, model))]


def walk_inputs(table: Table, model: Model) -> tuple[list[np.ndarray], Callable[[int], dict]]:
    """What :func:`treegen.walk.predict_columns` takes for a table: its encoded columns, and row i as a
    dict, made only when first asked for (only rows that a fractional route spreads need theirs)."""
    rows: list[dict] | None = None

    def row(i: int) -> dict:
        nonlocal rows
        rows = rows if rows is not None else rows_for_model(table, model)
        return rows[i]

    return encoded_for_model(table, model), row


def encoded_for_model(table: Table, model: Model) -> list[np.ndarray]:
    """A table's columns as the vectorised walk takes them (:func:`treegen.walk.encode_column`): the
    columns of the features some split tests, read as the model reads them; other features missing."""
    columns = []
    for feature, name in zip(model.features, model_columns(table, model)):
        if name is None:
            columns.append(np.full(len(table), np.nan if feature.is_numeric else -1.0))
        elif feature.is_numeric:
            columns.append(as_read(feature, encode(feature, table.column(name), table, feature.name)))
        else:
            columns.append(encode(feature, table.column(name), table, feature.name, unknown=UNKNOWN,
                                  cast=model.numeric.cast).astype(float))
    return columns
