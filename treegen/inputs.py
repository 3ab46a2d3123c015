"""Tables as the Python API takes them (``X``): a pandas DataFrame, its columns by name; a 2-D numpy array or a
list of sequences, its columns by position; or a list of row dicts, by name. The estimators
(:mod:`treegen.estimator`) learn from them and predict them; :func:`treegen.predict` and
:func:`treegen.predict_proba` predict them with any model, as :meth:`Model.predict <treegen.model.Model.predict>`
and :meth:`Model.scores <treegen.model.Model.scores>` would, row by row."""
from __future__ import annotations

import numbers

import numpy as np

from .data import csv_text, parse_csv
from .errors import TreegenError
from .importers import renamed_hint
from .model import Model, check_keys, is_many, is_missing
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
        names = [str(c) for c in X.columns]
        refuse_twice_named(names)
        return names, one_value_each(names, [frame_column(X.iloc[:, i]) for i in range(len(names))])
    if is_dict_rows(X):
        keys = list(names) if names is not None else list(dict.fromkeys(k for row in X for k in row))
        names = [str(k) for k in keys]
        return names, one_value_each(names, [np.array([row.get(k) for row in X], dtype=object) for k in keys])
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
    return names, one_value_each(names, [array[:, i] for i in range(width)])


def refuse_twice_named(names: list[str]) -> None:
    """Columns are found by name: two of one name (after str(), 1 and '1' are one) are refused."""
    seen = set()
    for name in names:
        if name in seen:
            raise InputError(f"column name {name!r} appears twice in X: give each column its own name")
        seen.add(name)


def one_value_each(names: list[str], columns: list[np.ndarray]) -> list[np.ndarray]:
    """The columns, refused where a cell holds many values (a list, a dict, an array), as no feature can."""
    for name, values in zip(names, columns):
        objects = values if values.dtype.kind == "O" else ()
        many = next((v for v in objects if type(v) is not str and is_many(v)), None)
        if many is not None:
            raise InputError(f"column {name!r} holds many values in a cell ({type(many).__name__}): a feature has "
                             "one value a row; give each value its own column, or its text (astype(str)) if it is "
                             "a category")
    return columns


def frame_column(series) -> np.ndarray:
    if series.dtype.kind in "iuf":
        return series.to_numpy(dtype=np.float64, na_value=np.nan)
    return series.astype(object).to_numpy()


def is_category_column(series) -> bool:
    """Of pandas' category dtype: nominal, whatever its categories (numbers too) are."""
    return type(series.dtype).__name__ == "CategoricalDtype"


def is_numeric_column(values: np.ndarray) -> bool:
    """A column of numbers: of a numeric dtype, or objects that are numbers (not Booleans) or missing."""
    if values.dtype.kind in "iuf":
        return True
    return all(isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))
               for v in values if not is_missing(v))


def frame_table(frame) -> tuple[Table, list[str], list[str]]:
    """A DataFrame as treegen's CSV reader reads its CSV text; the names of its columns that are not of
    numbers (:func:`is_numeric_column`), which its dtypes say are nominal: a column of text that all reads
    as numbers (a code, "02139") too; and of those its category columns, nominal by declaration. Refused, in
    one line, for anything but a frame."""
    if not is_frame(frame):
        raise InputError(f"treegen.train takes a CSV or ARFF file's path or a pandas DataFrame, not "
                         f"{type(frame).__name__}; for arrays: treegen.estimator.DecisionTreeClassifier")
    names, columns = columns_of(frame)
    declared = [is_category_column(frame.iloc[:, i]) for i in range(len(names))]
    numeric = [is_numeric_column(values) and not category for values, category in zip(columns, declared)]
    nominal = [name.strip(SPACE) for name, is_number in zip(names, numeric) if not is_number]
    categories = [name.strip(SPACE) for name, category in zip(names, declared) if category]
    text = frame_as_read(frame, columns, numeric).to_csv(index=False)
    table = parse_csv(text, "<DataFrame>")
    table.row_labels = frame.index  # a message names a row by its label, not by its line in this text
    return table, nominal, categories


def as_csv_table(model: Model, X) -> Table:
    """``X`` as treegen's CSV reader reads its CSV text, for the rows `verify` checks: a frame as
    :func:`frame_table` reads it (``df.to_csv()``: NaN, None and pandas' NA are empty fields, a category its
    text); a 2-D array or list of sequences (a column per feature, in ``model.features`` order), or a list of row
    dicts, each value as the CSV writes it (:func:`treegen.data.csv_text`: a missing value an empty field, a
    number narrower than float64 the float64 it is, the text of anything else)."""
    columns = feature_columns(model, X, "the model")  # refused as treegen.predict refuses it
    if is_frame(X):
        return frame_table(booleans_as_numbers(model, X))[0]
    return rows_table([f.name for f in model.features], columns)


def booleans_as_numbers(model: Model, frame):
    """The frame with the Booleans of the numeric features' columns as the 1.0 and 0.0 treegen.predict reads
    them as (written to CSV they are 'True' and 'False', no number)."""
    numeric = {f.name for f in model.features if f.is_numeric}
    names, columns = columns_of(frame)
    converted = frame.copy(deep=False)
    for i, (name, values) in enumerate(zip(names, columns)):
        if name in numeric and values.dtype.kind in "bO":
            converted.isetitem(i, [float(v) if isinstance(v, (bool, np.bool_)) else v for v in values])
    return converted


def rows_table(names: list[str], columns: list) -> Table:
    """Columns of values (an array's, a list of rows') as their CSV text reads: each value as the CSV writes it
    (:func:`treegen.data.csv_text`), a float narrower than float64 the float64 it is; rows named by position."""
    records = zip(*([None if is_missing(v) else float(v) if isinstance(v, np.floating) else v for v in column]
                    for column in columns))
    table = parse_csv(csv_text([names, *records]), "<data>")
    table.row_labels = range(len(table))
    return table


def frame_as_read(frame, columns: list[np.ndarray], numeric: list[bool]):
    """The frame with each value written as the model reads it at predict. The numbers of its numeric
    columns that are narrower than float64 (float32, float16, in a column of objects too) as the float64
    values they are: their CSV text is their shortest float32 text, which reads back as another number
    (1000.2 for float32's 1000.2000122...), and a threshold at a training value (C4.5's) would not hold
    the training rows it was made of, when the frame itself is predicted. In a nominal column, a value
    that is no text and no number (a date, a time: pandas writes a column of midnights as '2020-01-01')
    as its ``str``, the text it names at predict (:func:`treegen.model.category_of`)."""
    widened = frame.copy(deep=False)
    for i, (dtype, values, is_number) in enumerate(zip(frame.dtypes, columns, numeric)):
        if is_number and dtype.kind == "f" and item_size(dtype) < 8:
            widened.isetitem(i, values)  # (frame_column read them as float64)
        elif dtype.kind in "OMm":
            widened.isetitem(i, [written(v) for v in values])
    return widened


def item_size(dtype) -> int:
    """The bytes of a value of a column's dtype: numpy's, or a pandas sparse dtype's values' (its subtype)."""
    return getattr(dtype, "subtype", dtype).itemsize


def written(value):
    """A value of a column of objects as it is written to the frame's CSV text: numpy's float (a float32)
    as the double it is; a value that is no text and no number (a date, a time, a Decimal) as its ``str``;
    any other (text, a number, a Boolean, missing) as it is."""
    if isinstance(value, np.floating):
        return float(value)
    return value if is_missing(value) or isinstance(value, (str, numbers.Real)) else str(value)


def train_names(names, what: str) -> list[str]:
    """treegen.train's ``nominal`` or ``ignore``: column names (one name given as a str is one)."""
    names = [names] if isinstance(names, str) else list(names)
    wrong = next((name for name in names if not isinstance(name, str)), None)
    if wrong is not None:
        raise InputError(f"{what}= takes column names (str), not {type(wrong).__name__} {wrong!r}")
    return names


def train_target(data, target):
    """treegen.train's ``target``: a column's name, or a frame's column label that is no str (2), by its text."""
    if target is None or isinstance(target, str):
        return target
    if is_frame(data) and not is_many(target) and str(target) in map(str, data.columns):
        return str(target)
    if is_many(target):
        raise InputError("target= takes the target column's name, not its values: "
                         "treegen.train(X.assign(y=y), target='y'), or treegen.estimator's fit(X, y)")
    raise InputError(f"target= takes a column's name (str), not {type(target).__name__} {target!r}")


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
            "name them" if unnamed else renamed_hint(model, missing, list(by_name))))
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


def labelled_table(model: Model, X, y=None, label: str | None = None) -> Table:
    """Labelled rows, as their CSV text reads, for :func:`treegen.evaluate`'s ``test``: a frame or a list of row
    dicts, its columns (the labels' too) by name; or, with ``y`` (the labels, a row each), ``X`` as
    :func:`as_csv_table` reads it and ``y`` as the column ``label`` (default: named as the model's target)."""
    if y is None:
        if is_frame(X):
            return frame_table(X)[0]
        if is_dict_rows(X):
            return rows_table(*columns_of(X))
        raise InputError("test= as rows of values by position (an array, a list of sequences) has no column of "
                         "labels: give them as test=(X, y)")
    labels = np.asarray(y, dtype=object)
    rows = len(X)
    if labels.ndim != 1 or len(labels) != rows:
        raise InputError(f"test=(X, y): y takes a label for each row of X ({rows}), not {labels.shape}")
    name = model.target.name if label is None else label
    if is_frame(X):
        return frame_table(X.assign(**{name: np.asarray(y)}))[0]
    return rows_table([f.name for f in model.features] + [name], [*feature_columns(model, X, "the model"), labels])
