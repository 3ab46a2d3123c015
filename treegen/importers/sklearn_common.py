"""What the scikit-learn importers share (trees, forests and gradient boosting in sklearn.py; the
histogram-based boosting in hist_gradient_boosting.py): feature names, the target, the record of
parameters and version."""
from __future__ import annotations

import numpy as np

from ..errors import TreegenError
from ..model import CLASSIFICATION, REGRESSION, Target
from . import resolve_feature_names


def sklearn_version_text() -> str:
    import sklearn
    return sklearn.__version__


def estimator_params(estimator) -> dict:
    """The estimator's simple parameters, for the record (JSON-safe)."""
    return {k: v for k, v in sorted(estimator.get_params(deep=False).items())
            if v is None or isinstance(v, (bool, int, float, str))}


def feature_names_of(estimator, feature_names) -> list[str]:
    """The given names, else the ones the estimator was fitted with, else x0, x1, ...
    (:func:`treegen.importers.resolve_feature_names`)."""
    return resolve_feature_names(feature_names, getattr(estimator, "feature_names_in_", None), estimator.n_features_in_)


def target_of(estimator) -> tuple[Target, dict]:
    """The target, and what meta keeps of scikit-learn's original class labels."""
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        return Target("y", REGRESSION), {}
    labels = [c.item() if isinstance(c, np.generic) else c for c in classes]
    names = tuple(str(label) for label in labels)
    if len(set(names)) != len(names):
        raise TreegenError(f"class labels {labels!r} are not distinct as strings")
    kept = {"classes": [label if isinstance(label, (bool, int, float, str)) else str(label) for label in labels],
            "class_type": type(labels[0]).__name__ if labels else "str"}
    return Target("y", CLASSIFICATION, names), kept


def check_finite(values: np.ndarray, what: str) -> None:
    """A model holds finite numbers: scikit-learn's fit gives NaN or an infinity only where its arithmetic
    overflowed (targets near the largest double), and then predicts NaN or an infinity itself."""
    bad = values[~np.isfinite(values)]
    if bad.size:
        raise TreegenError(f"{what} is {float(bad[0])!r}: scikit-learn's fit overflowed (a target near the "
                           "largest double); treegen imports finite numbers only: scale the target down and fit again")
