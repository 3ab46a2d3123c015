"""Front ends that learn: each module exposes ``fit(dataset, **params) -> Model``."""
from __future__ import annotations

import importlib
import inspect

from ..data import Dataset
from ..errors import TreegenError
from ..model import Model

ALGORITHMS = ("id3", "c45", "cart")


def fit(dataset: Dataset, algorithm: str = "c45", **params) -> Model:
    """Train a tree with one of treegen's learners. Parameters a learner does not take are an error."""
    if algorithm not in ALGORITHMS:
        raise TreegenError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if len(dataset) == 0:
        raise TreegenError("the data set has no rows to learn from")
    module = importlib.import_module(f"{__name__}.{algorithm}")
    params = {k: v for k, v in params.items() if v is not None}
    accepted = inspect.signature(module.fit).parameters
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise TreegenError(f"{algorithm} does not take {', '.join(unknown)}")
    return module.fit(dataset, **params)
