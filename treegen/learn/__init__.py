"""Front ends that learn: each module exposes ``fit(dataset, **params) -> Model``."""
from __future__ import annotations

import importlib
import inspect
from typing import TYPE_CHECKING, Callable

from ..errors import BadArgument, TreegenError, did_you_mean

if TYPE_CHECKING:
    from ..data import Dataset
    from ..model import Model

# algorithm -> its module here, imported on first use (numpy and the learner's code are not for
# `treegen --help` or a command that learns nothing)
LEARNERS = {"id3": "id3", "c45": "c45", "cart": "cart"}
ALGORITHMS = tuple(LEARNERS)
ALGORITHM_ALIASES = {"c4.5": "c45", "c4_5": "c45", "j48": "c45"}  # other names (lower case): a misspelling's hint


def unknown_algorithm(algorithm) -> str:
    """The error for a name that is no learner's, with the learner it may mean."""
    return (f"unknown algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
            + did_you_mean([str(algorithm)], ALGORITHMS, ALGORITHM_ALIASES))


def fit(dataset: Dataset, algorithm: str = "c45", **params) -> Model:
    """Train a tree with one of treegen's learners. Parameters a learner does not take are an error."""
    if algorithm not in ALGORITHMS:
        raise BadArgument(unknown_algorithm(algorithm))
    if len(dataset) == 0:
        raise TreegenError("the data set has no rows to learn from")
    params = {k: v for k, v in params.items() if v is not None}
    accepted = parameters(algorithm)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise BadArgument(f"{algorithm} does not take {', '.join(unknown)}" + did_you_mean(unknown, sorted(accepted)))
    return learner(algorithm)(dataset, **params)


def learner(algorithm: str) -> Callable[..., Model]:
    """The ``fit`` function of one learner."""
    return importlib.import_module(f".{LEARNERS[algorithm]}", __name__).fit


def parameters(algorithm: str) -> set[str]:
    """The parameters a learner takes (its ``fit``'s keyword arguments)."""
    return set(inspect.signature(learner(algorithm)).parameters) - {"dataset"}
