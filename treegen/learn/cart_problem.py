"""What CART learns from and into, shared by the grower, the nominal search and pruning: the
checked parameters, the training data prepared for the search, the grown tree's flat arrays, and
scikit-learn's impurity arithmetic. Nothing here imports another CART module."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..data import Dataset
from ..errors import TreegenError
from ..model import MissingRoute, Node, Split, Tree

EXHAUSTIVE_CATEGORIES = 8  # more classes than two: every subset of features with this many categories
FEATURE_THRESHOLD = 1e-7  # scikit-learn: float32 values closer than this are one value
EPSILON = np.finfo(np.float64).eps
CHUNK_CELLS = 1 << 19  # bound on the search's working arrays (statistics x features x rows)
LOG2 = math.log(2.0)


@dataclass(frozen=True)
class Params:
    """Validated learning parameters, with fractions already turned into row counts."""

    criterion: str
    max_depth: float
    min_samples_split: int
    min_samples_leaf: int
    min_impurity_decrease: float
    class_weight: object
    cast: str
    min_weight_fraction_leaf: float = 0.0

    @classmethod
    def checked(cls, dataset, criterion, max_depth, min_samples_split, min_samples_leaf,
                min_impurity_decrease, class_weight, cast, min_weight_fraction_leaf=0.0) -> "Params":
        regression = not dataset.target.is_classification
        if regression:
            criterion = "squared_error"
        elif criterion not in ("gini", "entropy"):
            raise TreegenError(f"criterion must be 'gini' or 'entropy', not {criterion!r}")
        if cast not in ("float64", "float32"):
            raise TreegenError(f"cast must be 'float64' or 'float32', not {cast!r}")
        if max_depth is not None and (int(max_depth) != max_depth or max_depth < 1):
            raise TreegenError(f"max_depth must be a whole number >= 1, not {max_depth!r}")
        if not 0.0 <= min_weight_fraction_leaf <= 0.5:
            raise TreegenError(f"min_weight_fraction_leaf must be in [0, 0.5], not {min_weight_fraction_leaf!r}")
        if min_impurity_decrease < 0:
            raise TreegenError(f"min_impurity_decrease must be >= 0, not {min_impurity_decrease!r}")
        if regression and class_weight is not None:
            raise TreegenError("class_weight applies to classification only")
        n = len(dataset)
        split = _row_count("min_samples_split", min_samples_split, n, 2)
        leaf = _row_count("min_samples_leaf", min_samples_leaf, n, 1)
        depth = math.inf if max_depth is None else int(max_depth)
        return cls(criterion, depth, max(split, 2 * leaf), leaf, float(min_impurity_decrease),
                   class_weight, cast, float(min_weight_fraction_leaf))


def _row_count(name: str, value, n: int, least: int) -> int:
    if isinstance(value, float) and 0 < value <= 1 and not float(value).is_integer():
        return max(least, math.ceil(value * n))
    if int(value) != value or value < least:
        raise TreegenError(f"{name} must be a whole number >= {least} or a fraction in (0, 1], not {value!r}")
    return int(value)



# -- the grown tree: flat arrays in pre-order (left child first), as scikit-learn numbers nodes ----

@dataclass
class Grown:
    """A tree while it is learned and pruned: per-node lists indexed by node id (pre-order)."""

    width: int  # classification: number of classes; regression: 0
    total: list[list[float]] = field(default_factory=list)  # per node: class weights, or [w, sum w*y]
    impurity: list[float] = field(default_factory=list)
    split: list[Split | None] = field(default_factory=list)
    children: list[tuple[int, ...]] = field(default_factory=list)

    def add(self, total: list[float], impurity: float) -> int:
        self.total.append(total)
        self.impurity.append(impurity)
        self.split.append(None)
        self.children.append(())
        return len(self.total) - 1

    def weight(self, node: int) -> float:
        total = self.total[node]
        return sum(total) if self.width else total[0]

    def node(self, i: int, children: tuple[int, ...] = (), split: Split | None = None) -> Node:
        total = self.total[i]
        if self.width:
            n = sum(total)
            return Node(tuple(c / n for c in total), tuple(total), n, split, children)
        return Node((total[1] / total[0],), (), total[0], split, children)

    def tree(self) -> Tree:
        return Tree([self.node(i, self.children[i], self.split[i]) for i in range(len(self.total))])



# -- impurity and the split-search proxy, as scikit-learn computes them ------------------------

def node_impurity(criterion: str, total, sq_sum: float = 0.0) -> float:
    """Impurity of one node from its statistics (class weights, or [w, sum w*y] and sum w*y*y)."""
    total = np.asarray(total, dtype=np.float64)[:, None]
    return float(node_impurities(criterion, total, np.array([sq_sum]))[0])


def node_impurities(criterion: str, totals: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """Impurity of each node (a column of ``totals``), with scikit-learn's formulas."""
    with np.errstate(all="ignore"):
        if criterion == "squared_error":
            return squares / totals[0] - (totals[1] / totals[0]) ** 2.0
        weight = totals.sum(0)
        if criterion == "gini":
            return 1.0 - (totals * totals).sum(0) / (weight * weight)
        return _entropy(totals, weight)


def proxy(criterion: str, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """scikit-learn's proxy of the impurity improvement, for arrays of candidate splits.

    ``left``/``right`` hold the statistics of each side on their first axis. Larger is better.
    """
    with np.errstate(all="ignore"):
        if criterion == "squared_error":
            return left[1] ** 2 / left[0] + right[1] ** 2 / right[0]
        w_left, w_right = left.sum(0), right.sum(0)
        if criterion == "gini":  # scikit-learn's own arithmetic, so that its near-ties fall alike
            gini_left = 1.0 - (left * left).sum(0) / (w_left * w_left)
            gini_right = 1.0 - (right * right).sum(0) / (w_right * w_right)
            return -w_right * gini_right - w_left * gini_left
        return -w_right * _entropy(right, w_right) - w_left * _entropy(left, w_left)


def _entropy(counts: np.ndarray, total: np.ndarray) -> np.ndarray:
    p = counts / total
    terms = np.where(counts > 0, p * (np.log(np.where(counts > 0, p, 1.0)) / LOG2), 0.0)
    return -terms.sum(0)


# -- growing -----------------------------------------------------------------------------------

class Problem:
    """Training data prepared for the search: rows of weight zero left out, statistics per row,
    numeric columns (cast as asked) and nominal codes."""

    def __init__(self, dataset: Dataset, params: Params):
        self.params = params
        self.criterion = params.criterion
        self.tolerance = FEATURE_THRESHOLD if params.cast == "float32" else 0.0
        weights = sample_weights(dataset, params.class_weight)
        keep = np.flatnonzero(weights != 0)  # scikit-learn ignores rows of weight zero
        self.width = len(dataset.target.classes) if dataset.target.is_classification else 0
        self.stats = row_statistics(dataset.y[keep], weights[keep], self.width)
        self.base_weights = np.asarray(dataset.weights, dtype=np.float64)[keep]  # for progress
        self.min_weight_leaf = params.min_weight_fraction_leaf * float(weights.sum())
        y = dataset.y[keep].astype(np.float64)
        self.squares = weights[keep] * y * y
        self.y = y  # regression: a node whose rows all hold one value is a leaf
        self.numeric = [j for j, f in enumerate(dataset.features) if f.is_numeric]
        self.nominal = [j for j, f in enumerate(dataset.features) if not f.is_numeric]
        dtype = np.float32 if params.cast == "float32" else np.float64  # what the values are
        self.X = np.array([_cast(dataset.columns[j][keep], params.cast) for j in self.numeric],
                          dtype=dtype).reshape(len(self.numeric), len(keep))
        self.codes = {j: dataset.columns[j][keep] for j in self.nominal}
        self.categories = {j: dataset.features[j].categories for j in self.nominal}
        self.rows = len(keep)

    def sums(self, rows: np.ndarray) -> tuple[np.ndarray, float]:
        return self.stats[:, rows].sum(1), float(self.squares[rows].sum())


def _cast(column: np.ndarray, cast: str) -> np.ndarray:
    if cast == "float32":
        with np.errstate(over="ignore"):
            return column.astype(np.float32)
    return column


def sample_weights(dataset: Dataset, class_weight) -> np.ndarray:
    """The dataset's weights times the class weights ("balanced": n / (classes * class count))."""
    weights = np.asarray(dataset.weights, dtype=np.float64)
    if class_weight is None:
        return weights
    classes = dataset.target.classes
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise TreegenError(f"class_weight must be 'balanced' or a dict, not {class_weight!r}")
        count = np.bincount(dataset.y, minlength=len(classes)).astype(np.float64)
        with np.errstate(divide="ignore"):
            per_class = len(dataset.y) / (len(classes) * count)
    else:
        by_name = {str(k): float(v) for k, v in dict(class_weight).items()}
        unknown = set(by_name) - set(classes)
        if unknown:
            raise TreegenError(f"class_weight names unknown classes: {', '.join(sorted(unknown))}")
        per_class = np.array([by_name.get(c, 1.0) for c in classes])
    return weights * per_class[dataset.y]


def row_statistics(y: np.ndarray, weights: np.ndarray, width: int) -> np.ndarray:
    """Per row (a column of the result), the vector summed over a node: weight on its class, or
    [w, w*y]."""
    if width:
        stats = np.zeros((width, len(y)))
        stats[y, np.arange(len(y))] = weights
        return stats
    return np.vstack([weights, weights * y])


def drop_light(problem: Problem, scores: np.ndarray, left: np.ndarray, right: np.ndarray) -> None:
    """Rule out (in place) the candidates with a side lighter than ``min_weight_fraction_leaf`` allows."""
    limit = problem.min_weight_leaf
    if limit > 0:
        weight = (lambda side: side.sum(0)) if problem.width else (lambda side: side[0])
        scores[(weight(left) < limit) | (weight(right) < limit)] = -np.inf


def as_split(problem: Problem, feature: int, threshold: float, codes, missing_left: bool) -> Split:
    """The model's split: ``x <= threshold``, or ``x in`` the categories of ``codes`` when given."""
    route = MissingRoute.to_child(0 if missing_left else 1)
    if codes is None:
        return Split(feature, "<=", threshold=threshold, missing=route)
    categories = problem.categories[feature]
    return Split(feature, "in", values=tuple(categories[c] for c in sorted(codes)), missing=route)
