"""treegen: a compiler for decision trees.

>>> import treegen
>>> model = treegen.train("examples/play_tennis.csv", target="play", algorithm="id3")
>>> model.predict({"outlook": "overcast"})
'yes'
>>> python_source = treegen.export(model, "python", proba=True)
"""
from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["train", "load", "save", "export", "predict", "predict_proba", "import_model", "from_model",
           "from_sklearn", "from_xgboost", "from_lightgbm", "from_catboost", "__version__"]


def train(data, target: str | None = None, algorithm: str = "c45", nominal=(), regression=None, **params):
    """Learn a tree with id3, c45 or cart from a CSV or ARFF file, or a pandas DataFrame; returns a
    :class:`treegen.model.Model`. A frame is read as its CSV text is (``df.to_csv()`` in a file trains the
    same tree), but for its columns that are not of numbers (text, category, Boolean), which are nominal,
    and its float32 numbers, read as the float64 values they are (their text is another number)."""
    from .data import load_dataset, to_dataset
    from .learn import fit
    if algorithm in ("id3", "c45"):
        regression = False
    if isinstance(data, str) or hasattr(data, "__fspath__"):
        dataset = load_dataset(data, target=target, nominal=nominal, regression=regression)
    else:
        from .inputs import frame_table
        table, named = frame_table(data)
        dataset = to_dataset(table, target=target, nominal=[*nominal, *named], regression=regression)
    return fit(dataset, algorithm, **params)


def load(path: str):
    """A model from a file: a treegen JSON model, rule text, or a model file of a library that
    :func:`import_model` reads (XGBoost, LightGBM, CatBoost, scikit-learn's .skops: see ``treegen import
    --help``), read as it reads it without options. A pickle or joblib file is refused: loading one runs
    code stored in it (``import_model(path, trust=True)`` does, for a trusted file)."""
    from .loading import load_model
    return load_model(path)


def save(model, path: str) -> None:
    """Write a model (any that :func:`export` takes) as JSON (docs/model-format.md)."""
    from .loading import as_model
    from .modelio import save as save_json
    save_json(as_model(model), path)


def export(model, to: str, **options) -> str:
    """Generate python, java, javascript, c, sql, rules or dot text (or an SVG) for a model: a
    :class:`treegen.model.Model`; a model file's path, read as :func:`load` reads it; a fitted
    :mod:`treegen.estimator` (its ``model_``); or a fitted scikit-learn, XGBoost, LightGBM or CatBoost model,
    converted as :func:`from_model` converts it. Anything else is a TypeError (a TreegenError)."""
    from .loading import as_model
    from .targets import emit
    return emit(as_model(model), to, **options)


def predict(model, X):
    """Each row's label (classification) or value (regression) as a numpy array, exactly what
    ``model.predict(row)`` gives row by row. ``X``: a pandas DataFrame (columns by feature name), a 2-D array
    or a list of sequences (a value per feature, in ``model.features`` order) or a list of row dicts. ``model``:
    any that :func:`export` takes."""
    from .inputs import predict as predict_table
    from .loading import as_model
    return predict_table(as_model(model), X)


def predict_proba(model, X):
    """Each row's class probabilities (columns in ``model.target.classes`` order) as a numpy array, exactly
    what ``model.scores(row)`` gives row by row; ``X`` as :func:`predict` takes it. Classification only."""
    from .inputs import predict_proba as proba_table
    from .loading import as_model
    return proba_table(as_model(model), X)


def from_sklearn(estimator, feature_names=None):
    """A treegen model from a fitted scikit-learn tree, forest, gradient boosting or HistGradientBoosting
    estimator."""
    from .importers.sklearn import from_sklearn as convert
    return convert(estimator, feature_names=feature_names)


def from_xgboost(booster_or_estimator, feature_names=None, missing=None, use_best_iteration=None):
    """A treegen model from an XGBoost Booster or scikit-learn wrapper, predicting what it predicts
    (see :func:`treegen.importers.xgboost.from_xgboost` for ``missing`` and ``use_best_iteration``)."""
    from .importers.xgboost import from_xgboost as convert
    return convert(booster_or_estimator, feature_names=feature_names, missing=missing,
                   use_best_iteration=use_best_iteration)


def from_lightgbm(booster_or_estimator, feature_names=None):
    """A treegen model from a ``lightgbm.Booster`` or a fitted ``LGBMClassifier``/``LGBMRegressor``."""
    from .importers.lightgbm import from_lightgbm as convert
    return convert(booster_or_estimator, feature_names=feature_names)


def from_catboost(model, feature_names=None, categories=None):
    """A treegen model from a fitted CatBoost model; ``categories`` ({feature name: its category names})
    names the one-hot splits, which a fitted model knows only by hash."""
    from .importers.catboost import from_catboost as convert
    return convert(model, feature_names=feature_names, categories=categories)


def import_model(path: str, feature_names=None, trust: bool = False, **options):
    """A treegen model from a model file of a supported library (see ``treegen import --help``);
    ``options`` are the library's own, e.g. XGBoost's ``missing``, CatBoost's ``categories``."""
    from .importers import import_file
    return import_file(path, feature_names=feature_names, trust=trust, **options)


def from_model(model_object, feature_names=None):
    """A treegen model from a fitted model object of any supported library."""
    from .importers import from_object
    return from_object(model_object, feature_names=feature_names)
