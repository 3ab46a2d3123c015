"""Front ends that learn: each module exposes ``fit(dataset, **params) -> Model``."""
from __future__ import annotations

import inspect
from typing import Callable

from ..data import Dataset
from ..errors import TreegenError
from ..model import Model
from . import c45, cart, id3

LEARNERS: dict[str, Callable[..., Model]] = {"id3": id3.fit, "c45": c45.fit, "cart": cart.fit}
ALGORITHMS = tuple(LEARNERS)


def fit(dataset: Dataset, algorithm: str = "c45", **params) -> Model:
    """Train a tree with one of treegen's learners. Parameters a learner does not take are an error."""
    if algorithm not in ALGORITHMS:
        raise TreegenError(f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}")
    if len(dataset) == 0:
        raise TreegenError("the data set has no rows to learn from")
    params = {k: v for k, v in params.items() if v is not None}
    accepted = parameters(algorithm)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise TreegenError(f"{algorithm} does not take {', '.join(unknown)}")
    return LEARNERS[algorithm](dataset, **params)


def parameters(algorithm: str) -> set[str]:
    """The parameters a learner takes (its ``fit``'s keyword arguments)."""
    return set(inspect.signature(LEARNERS[algorithm]).parameters) - {"dataset"}
