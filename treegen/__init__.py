"""treegen: a compiler for decision trees.

>>> import treegen
>>> model = treegen.train("examples/play_tennis.csv", target="play", algorithm="id3")
>>> model.predict({"outlook": "overcast"})
'yes'
>>> python_source = treegen.export(model, "python", proba=True)
"""
from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["train", "load", "save", "export", "import_model", "from_model", "from_sklearn", "from_xgboost",
           "from_lightgbm", "from_catboost", "__version__"]


def train(data: str, target: str | None = None, algorithm: str = "c45", nominal=(), regression=None, **params):
    """Learn a tree from a CSV or ARFF file with id3, c45 or cart; returns a :class:`treegen.model.Model`."""
    from .data import load_dataset
    from .learn import fit
    if algorithm in ("id3", "c45"):
        regression = False
    return fit(load_dataset(data, target=target, nominal=nominal, regression=regression), algorithm, **params)


def load(path: str):
    """A model from a JSON model file or a rule-text file."""
    from .loading import load_model
    return load_model(path)


def save(model, path: str) -> None:
    """Write a model as JSON (docs/model-format.md)."""
    from .modelio import save as save_json
    save_json(model, path)


def export(model, to: str, **options) -> str:
    """Generate python, java, sql, rules or dot text for a model."""
    from .targets import emit
    return emit(model, to, **options)


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
