"""Tables as the Python API takes them (``X``): a pandas DataFrame, its columns by name; a 2-D numpy array or a
list of sequences, its columns by position; or a list of row dicts, by name. The estimators
(:mod:`treegen.estimator`) learn from them and predict them; :func:`treegen.predict` and
:func:`treegen.predict_proba` predict them with any model, as :meth:`Model.predict <treegen.model.Model.predict>`
and :meth:`Model.scores <treegen.model.Model.scores>` would, row by row."""
from __future__ import annotations

import numpy as np

from .data import csv_text, parse_csv
from .errors import TreegenError
from .model import Model, check_keys, is_missing
from .table import SPACE, Table
from .walk import encode_features, predict_columns


class InputError(TreegenError, ValueError):
    """Bad input to an estimator: a TreegenError for treegen's CLI, a ValueError for scikit-learn."""


def is_frame(X) -> bool:
    return hasattr(X, "columns") and hasattr(X, "iloc")


def is_dict_rows(X) -> bool:
    return isinstance(X, (list, tuple)) and bool(X) and isinstance(X[0], dict)


def by_position(X) -> bool:
    """Columns are matched to features by position (arrays, lists of sequences), not by name."""
    return not is_frame(X) and not is_dict_rows(X)


def columns_of(X, names=None) -> tuple[list[str], list[np.ndarray]]:
    """Column names and raw columns of a DataFrame, a 2-D array, or a list of rows (dicts or sequences)."""
    if hasattr(X, "tocsr") or hasattr(X, "tocsc"):
        raise InputError("sparse input is not supported: pass a dense array (X.toarray())")
    if is_frame(X):
        return [str(c) for c in X.columns], [frame_column(X[c]) for c in X.columns]
    if is_dict_rows(X):
        keys = list(names) if names is not None else list(dict.fromkeys(k for row in X for k in row))
        return [str(k) for k in keys], [np.array([row.get(k) for row in X], dtype=object) for k in keys]
    array = np.asarray(X)
    if array.dtype.kind == "c":
        raise InputError("Complex data not supported")
    if array.dtype.kind not in "biuf":
        array = np.asarray(X, dtype=object)
    if array.ndim != 2:
        raise InputError(f"X must be two-dimensional (rows x features), not of shape {array.shape}: "
                         "Reshape your data")
    width = array.shape[1]
    names = [str(n) for n in names] if names is not None else [f"x{i}" for i in range(width)]
    if len(names) != width:
        raise InputError(f"{len(names)} feature names for {width} columns")
    return names, [array[:, i] for i in range(width)]


def frame_column(series) -> np.ndarray:
    if series.dtype.kind in "iuf":
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    return series.astype(object).to_numpy()


def is_numeric_column(values: np.ndarray) -> bool:
    """A column of numbers: of a numeric dtype, or objects that are numbers (not Booleans) or missing."""
    if values.dtype.kind in "iuf":
        return True
    return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
               for v in values if not is_missing(v))


def frame_table(frame) -> tuple[Table, list[str]]:
    """A DataFrame as treegen's CSV reader reads its CSV text, and the names of its columns that are not of
    numbers (:func:`is_numeric_column`), which its dtypes say are nominal: a column of text that all reads
    as numbers (a code, "02139") too. Refused, in one line, for anything but a frame."""
    if not is_frame(frame):
        raise InputError(f"treegen.train takes a CSV or ARFF file's path or a pandas DataFrame, not "
                         f"{type(frame).__name__}; for arrays: treegen.estimator.DecisionTreeClassifier")
    names, columns = columns_of(frame)
    numeric = [is_numeric_column(values) for values in columns]
    nominal = [name.strip(SPACE) for name, is_number in zip(names, numeric) if not is_number]
    return parse_csv(exact_numbers(frame, columns, numeric).to_csv(index=False), "<DataFrame>"), nominal


def as_csv_table(model: Model, X) -> Table:
    """``X`` as treegen's CSV reader reads its CSV text, for the rows `verify` checks: a frame as
    :func:`frame_table` reads it (``df.to_csv()``: NaN, None and pandas' NA are empty fields, a category its
    text); a 2-D array or list of sequences (a column per feature, in ``model.features`` order), or a list of row
    dicts, each value as the CSV writes it (:func:`treegen.data.csv_text`: a missing value an empty field, a
    number narrower than float64 the float64 it is, the text of anything else)."""
    columns = feature_columns(model, X, "the model")  # refused as treegen.predict refuses it
    if is_frame(X):
        return frame_table(X)[0]
    records = zip(*([None if is_missing(v) else float(v) if isinstance(v, np.floating) else v for v in column]
                    for column in columns))
    return parse_csv(csv_text([[f.name for f in model.features], *records]), "<data>")


def exact_numbers(frame, columns: list[np.ndarray], numeric: list[bool]):
    """The frame with the numbers of its numeric columns that are narrower than float64 (float32, float16, in
    a column of objects too) as the float64 values they are. Their CSV text is their shortest float32 text,
    which reads back as another number (1000.2 for float32's 1000.2000122...): a threshold at a training
    value (C4.5's) would not hold the training rows it was made of, when the frame itself is predicted."""
    widened = frame.copy(deep=False)
    for i, (dtype, values, is_number) in enumerate(zip(frame.dtypes, columns, numeric)):
        if is_number and dtype.kind == "f" and dtype.itemsize < 8:
            widened.isetitem(i, values)  # (frame_column read them as float64)
        elif is_number and dtype.kind == "O":
            widened.isetitem(i, [float(v) if isinstance(v, np.floating) else v for v in values])
    return widened


def feature_columns(model: Model, X, expecting: str) -> list[np.ndarray]:
    """The raw column of each of the model's features in ``X``, in feature order: by position for an array
    or a list of sequences, which must have a column per feature; by name for a frame or dict rows, which
    must have every feature's (``expecting``: who expects them, for the message)."""
    names = [f.name for f in model.features]
    if by_position(X):
        columns = columns_of(X)[1]
        if len(columns) != len(names):
            raise InputError(f"X has {len(columns)} features, but {expecting} is expecting {len(names)} features "
                             "as input")
        return columns
    by_name = dict(zip(*columns_of(X, names)))
    if is_dict_rows(X):  # each a row as model.predict reads it: an absent name is missing
        check_keys(model, X)
    missing = [name for name in names if name not in by_name]
    if missing:
        unnamed = any(not isinstance(column, str) for column in getattr(X, "columns", ()))  # 0, 1, ...
        raise InputError(f"X lacks the feature column(s): {', '.join(missing)}" + (
            "; its columns have numbers for names: give X.to_numpy() to read them in the features' order, or "
            "name them" if unnamed else ""))
    return [by_name[name] for name in names]


def predicted(model: Model, X) -> list[tuple]:
    """(label or value, scores) for each row of ``X``: what ``model.predict`` and ``model.scores`` give for
    it, each value read as they read it (:func:`treegen.walk.encode_values`), all rows at once."""
    columns = feature_columns(model, X, "the model")
    count = len(columns[0]) if columns else 0
    position = {f.name: i for i, f in enumerate(model.features)}
    encoded = encode_features(model, lambda feature: columns[position[feature.name]], count)

    def row(i: int) -> dict:  # a row a fractional route spreads, for the model's own walk
        return {f.name: column[i] for f, column in zip(model.features, columns)}
    return predict_columns(model, encoded, row)


def predict(model: Model, X) -> np.ndarray:
    """Each row's label (classification) or value (regression)."""
    labels = [label for label, _ in predicted(model, X)]
    return np.array(labels, dtype=None if model.target.is_classification else np.float64)


def predict_proba(model: Model, X) -> np.ndarray:
    """Each row's class probabilities, in the order of ``model.target.classes``."""
    if not model.target.is_classification:
        raise InputError("predict_proba: this is a regression model, it predicts a value, not class probabilities: "
                         "call treegen.predict")
    return np.array([scores for _, scores in predicted(model, X)], dtype=np.float64).reshape(-1, model.target.width)
