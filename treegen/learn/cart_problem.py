"""What CART learns from and into, shared by the grower, the nominal search and pruning: the
checked parameters, the training data prepared for the search, the grown tree's flat arrays, and
scikit-learn's impurity arithmetic. Nothing here imports another CART module."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..data import Dataset, float32_problem, target_sum_problem
from ..errors import TreegenError, did_you_mean
from ..model import NodeColumns, Tree
from . import libm

EXHAUSTIVE_CATEGORIES = 8  # more classes than two: every subset of features with this many categories
FEATURE_THRESHOLD = np.float32(1e-7)  # scikit-learn: float32 values closer than this are one value
EPSILON = np.finfo(np.float64).eps
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
        criterion = "entropy" if criterion == "log_loss" else criterion  # scikit-learn's name for it since 1.1
        if regression:
            if criterion not in (None, "squared_error"):  # (absolute_error, poisson, friedman_mse: not learnt)
                raise TreegenError(f"a regression tree's criterion is 'squared_error', not {criterion!r}")
            criterion = "squared_error"
        elif criterion is None:
            criterion = "gini"
        elif criterion not in ("gini", "entropy"):
            raise TreegenError(f"criterion must be 'gini', 'entropy' or 'log_loss', not {criterion!r}")
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
        if regression:
            _check_target_sums(dataset)
        if cast == "float32" and (problem := float32_problem(dataset)):  # (the data readers say where)
            raise TreegenError(f"{problem[0]}; row {problem[1]} of the data, counting from 0")
        n = len(dataset)
        split = _row_count("min_samples_split", min_samples_split, n, 2)
        leaf = _row_count("min_samples_leaf", min_samples_leaf, n, 1)
        depth = math.inf if max_depth is None else int(max_depth)
        return cls(criterion, depth, max(split, 2 * leaf), leaf, float(min_impurity_decrease),
                   class_weight, cast, float(min_weight_fraction_leaf))


def _check_target_sums(dataset) -> None:
    """A regression target whose sums are numbers (:func:`treegen.data.target_sum_problem`); the data readers
    check it too, naming the file, and this is for a data set made otherwise."""
    problem = target_sum_problem(dataset)
    if problem:
        raise TreegenError(problem)


def _row_count(name: str, value, n: int, least: int) -> int:
    if isinstance(value, float) and 0 < value <= 1 and not float(value).is_integer():
        return max(least, math.ceil(value * n))
    if int(value) != value or value < least:
        raise TreegenError(f"{name} must be a whole number >= {least} or a fraction in (0, 1], not {value!r}")
    return int(value)



# -- the grown tree: flat arrays in pre-order (left child first), as scikit-learn numbers nodes ----

@dataclass
class Grown:
    """A tree while it is learned and pruned: per-node arrays indexed by node id (pre-order once
    grown), so that a tree of a million nodes costs arrays, not a million Python objects -- and
    so does the model's tree :meth:`tree` gives (:class:`~treegen.model.NodeColumns`)."""

    width: int  # classification: number of classes; regression: 0
    total: np.ndarray  # (nodes, statistics): class weights, or [w, sum w*y]
    impurity: np.ndarray  # (nodes,)
    children: np.ndarray  # (nodes, 2): left and right child, -1 for a leaf
    feature: np.ndarray  # (nodes,): an inner node's split feature
    threshold: np.ndarray  # (nodes,): a numeric split's threshold
    missing_left: np.ndarray  # (nodes,): an inner node's missing values go left
    values: dict  # node id -> the categories a nominal split sends left
    weight: np.ndarray | None = None  # (nodes,): each node's weight as scikit-learn sums it, if known
    samples: np.ndarray | None = None  # (nodes,): each node's row count, if known

    def __len__(self) -> int:
        return len(self.total)

    def weights(self) -> np.ndarray:
        """Each node's weight: as scikit-learn summed it when the grower knows it; else its class
        weights summed in order (as Python's ``sum`` adds), or w."""
        if self.weight is not None:
            return self.weight.copy()
        if not self.width:
            return self.total[:, 0].copy()
        weight = self.total[:, 0].copy()
        for k in range(1, self.width):
            weight += self.total[:, k]
        return weight

    def leaves(self) -> np.ndarray:
        return self.children[:, 0] < 0

    def subset(self, keep: np.ndarray, leaf: np.ndarray) -> "Grown":
        """The nodes marked in ``keep`` (a pre-order subtree's), renumbered in order; those marked
        in ``leaf`` lose their children."""
        new_id = np.cumsum(keep) - 1
        kept = np.flatnonzero(keep)
        inner = ~leaf[kept] & (self.children[kept, 0] >= 0)
        children = np.full((len(kept), 2), -1, dtype=np.int64)
        children[inner] = new_id[self.children[kept[inner]]]
        values = {int(new_id[i]): v for i, v in self.values.items() if keep[i] and not leaf[i]}
        known = {name: None if getattr(self, name) is None else getattr(self, name)[kept]
                 for name in ("weight", "samples")}
        return Grown(self.width, self.total[kept], self.impurity[kept], children, self.feature[kept],
                     self.threshold[kept], self.missing_left[kept], values, **known)

    def tree(self, class_order: np.ndarray | None = None) -> Tree:
        """The model's tree, held as columns; a classifier's classes in ``class_order`` (codes) if given."""
        weight = self.weights()
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.width:
                counts = self.total if class_order is None else self.total[:, class_order]
                value = counts / weight[:, None]
            else:
                value, counts = (self.total[:, 1] / self.total[:, 0])[:, None], None
        return Tree(NodeColumns(value, counts, weight, self.children, self.feature, self.threshold,
                                np.where(self.missing_left, 0, 1).astype(np.int8), self.values))


def sorted_labels(classes) -> np.ndarray:
    """The target's class codes in scikit-learn's order of their labels: as numbers if every
    label is one (a CSV's labels as pandas reads them), else as text."""
    try:
        keys = [float(label) for label in classes]
    except ValueError:
        keys = list(classes)
    return np.array(sorted(range(len(classes)), key=keys.__getitem__), dtype=np.int64)


# -- impurity and the split-search proxy, as scikit-learn computes them ------------------------

def node_impurity(criterion: str, total, sq_sum: float = 0.0) -> float:
    """Impurity of one node from its statistics (class weights, or [w, sum w*y] and sum w*y*y)."""
    total = np.asarray(total, dtype=np.float64)[:, None]
    return float(node_impurities(criterion, total, np.array([sq_sum]))[0])


def node_impurities(criterion: str, totals: np.ndarray, squares: np.ndarray, weight=None) -> np.ndarray:
    """Impurity of each node (a column of ``totals``), with scikit-learn's formulas; a class
    node's weight is ``weight`` if given, else its class weights summed."""
    with np.errstate(all="ignore"):
        if criterion == "squared_error":
            return squares / totals[0] - (totals[1] / totals[0]) ** 2.0
        weight = totals.sum(0) if weight is None else weight
        if criterion == "gini":
            return 1.0 - class_sum(totals * totals) / (weight * weight)
        return _entropy(totals, weight)


def proxy(criterion: str, left: np.ndarray, right: np.ndarray, w_left=None, w_right=None,
          log=libm.log) -> np.ndarray:
    """scikit-learn's proxy of the impurity improvement, for arrays of candidate splits.

    ``left``/``right`` hold the statistics of each side on their first axis; with classes, the
    sides' weights are ``w_left``/``w_right`` if given, else their class weights summed. Larger
    is better. Entropy's logarithms are the C library's, unless ``log`` is
    ``libm.quick_log`` (then :func:`exact_near_best`).
    """
    with np.errstate(all="ignore"):
        if criterion == "squared_error":
            return left[1] ** 2 / left[0] + right[1] ** 2 / right[0]
        if w_left is None:
            w_left, w_right = left.sum(0), right.sum(0)
        if criterion == "gini":  # scikit-learn's own arithmetic, so that its near-ties fall alike
            gini_left = 1.0 - class_sum(left * left) / (w_left * w_left)
            gini_right = 1.0 - class_sum(right * right) / (w_right * w_right)
            return -w_right * gini_right - w_left * gini_left
        return -w_right * _entropy(right, w_right, log) - w_left * _entropy(left, w_left, log)


def _entropy(counts: np.ndarray, total: np.ndarray, log=libm.log) -> np.ndarray:
    p = counts / total
    terms = np.where(counts > 0, p * (log(np.where(counts > 0, p, 1.0)) / LOG2), 0.0)
    return -class_sum(terms)


def class_sum(terms: np.ndarray) -> np.ndarray:
    """The sum over the first axis (the classes) one class after another, as scikit-learn's loops add: numpy's
    ``sum`` adds a run of 8 or more contiguous numbers pairwise (one candidate's classes, a 1-D array), whose
    last bit then differs and turns a near-tie between two splits the other way."""
    total = terms[0].copy()
    for term in terms[1:]:
        total += term
    return total


def exact_near_best(criterion: str, scores: np.ndarray, best: Callable[[], np.ndarray], left, right,
                    score: Callable) -> bool:
    """Make exact, in place, the candidates' entropy ``scores`` that could be their group's best.

    The searches score every candidate with numpy's log, which on some CPUs is a bit off the C
    library's (:mod:`.libm`): a score is then off by at most a few parts in 1e16 of itself (the
    terms of a side all have one sign). Scores within 1e-12 of ``best()`` (their group's best,
    broadcast to ``scores``; asked only here) -- and of 1e-300, should a log of 1 not be 0 -- are
    taken again with the C library's log: ``score`` of their sides' statistics (in ``left`` and
    ``right``, as :func:`_picked` takes them). Any other is further below than that error, so the
    best and its ties are scikit-learn's bits. True if any score was taken again."""
    if criterion != "entropy" or libm.numpy_agrees("log"):
        return False
    top = best()
    with np.errstate(invalid="ignore"):
        near = (scores >= top - (1e-12 * np.abs(top) + 1e-300)) & (top > -np.inf)
    if not near.any():
        return False
    scores[near] = score(_picked(left, near), _picked(right, near))
    return True


def _picked(side, near: np.ndarray):
    """The candidates marked in ``near`` of one side's statistics: an array with the statistics on
    its first axis, or a list of rows (each broadcast to ``near``)."""
    if isinstance(side, np.ndarray):
        return side[:, near]
    return [np.broadcast_to(row, near.shape)[near] for row in side]


# -- growing -----------------------------------------------------------------------------------

class Problem:
    """Training data prepared for the search, indexed by the dataset's own row numbers: statistics
    per row, the numeric columns as given (cast block by block when read) and nominal codes.
    ``learned`` lists the rows learned from: scikit-learn leaves out rows of weight zero."""

    def __init__(self, dataset: Dataset, params: Params):
        self.params = params
        self.criterion = params.criterion
        self.float32 = params.cast == "float32"
        weights = sample_weights(dataset, params.class_weight)
        self.learned = np.flatnonzero(weights != 0)
        self.size = len(dataset)
        self.width = len(dataset.target.classes) if dataset.target.is_classification else 0
        self.stats = row_statistics(dataset.y, weights, self.width)  # rows of weight zero: never read
        # with every weight 1, one statistic follows from the row counts, exactly: a regression
        # node's weight is its row count; the last class's weight, the rows less the other classes'
        self.unit_weights = bool((weights[self.learned] == 1.0).all())
        self.counted = (0 if not self.width else self.width - 1) if self.unit_weights else None
        # then the classes summed (all but the counted last) weigh 0 or 1 a row: as bytes, the
        # grower's running sums of them are exact in integers
        self.class_ones = (self.stats[:-1] != 0).view(np.int8) if self.width and self.unit_weights else None
        self.base_weights = np.asarray(dataset.weights, dtype=np.float64)  # for progress
        self.min_weight_leaf = params.min_weight_fraction_leaf * float(weights.sum())
        self.y = None if self.width else np.asarray(dataset.y, dtype=np.float64)
        with np.errstate(over="ignore"):  # a target beyond 1e154: its square is inf, in scikit-learn's C as here
            self.squares = None if self.width else weights * self.y * self.y  # regression's sum of w*y*y
        self.numeric = [j for j, f in enumerate(dataset.features) if f.is_numeric]
        self.nominal = [j for j, f in enumerate(dataset.features) if not f.is_numeric]
        self.columns = [np.asarray(dataset.columns[j], dtype=np.float64) for j in self.numeric]
        self.has_missing = [bool(np.isnan(column[self.learned]).any()) for column in self.columns]
        self.codes = {j: dataset.columns[j] for j in self.nominal}
        self.categories = {j: dataset.features[j].categories for j in self.nominal}

    def values(self, feature: int, rows: np.ndarray) -> np.ndarray:
        """The values of numeric feature number ``feature`` (a position in ``numeric``) at ``rows``,
        as the search compares them: float32 casts when asked for, widened to float64."""
        values = np.take(self.columns[feature], rows)  # (np.take: no copy of int32 row numbers)
        if self.float32:
            with np.errstate(over="ignore"):
                return values.astype(np.float32).astype(np.float64)
        return values

    def follows(self, values: np.ndarray) -> np.ndarray:
        """Per pair of neighbours along the last axis of ``values`` (sorted, as :meth:`compared`
        gives them): the second is a larger value -- a cut may fall between them. In float32 mode
        scikit-learn's rule: larger than the first plus ``FEATURE_THRESHOLD``, the sum rounded to
        float32, as its C code adds two float32 numbers (partitioner ``next_p``, scikit-learn 1.9)."""
        with np.errstate(invalid="ignore", over="ignore"):
            if self.float32:
                return values[..., 1:] > values[..., :-1] + FEATURE_THRESHOLD
            return values[..., 1:] > values[..., :-1]

    def compared(self, feature: int, rows: np.ndarray, out: np.ndarray) -> np.ndarray:
        """The values of numeric feature number ``feature`` at ``rows`` as the search compares
        them with each other, written to ``out``: float32 casts in float32 mode (``out`` then
        float32), else as given."""
        with np.errstate(over="ignore", invalid="ignore"):  # NaN and overflow cast as astype casts
            return np.take(self.columns[feature], rows, out=out)

    @property
    def compared_dtype(self):
        return np.float32 if self.float32 else np.float64

    def sorted_rows(self, feature: int) -> np.ndarray:
        """The learned rows in increasing order of a numeric feature (stable: ties in row order;
        missing last), compared as the search compares them."""
        values = self.columns[feature][self.learned]
        if self.float32 and len(values) < 2 ** 32:
            with np.errstate(over="ignore"):
                return self.learned[np.argsort(float32_sort_keys(values))]
        return self.learned[np.argsort(values, kind="stable")]

    def sums(self, rows: np.ndarray) -> tuple[np.ndarray, float]:
        squares = 0.0 if self.squares is None else float(self.squares[rows].sum())
        return self.stats[:, rows].sum(1), squares


def float32_sort_keys(values: np.ndarray) -> np.ndarray:
    """Keys whose order is the stable order of the values cast to float32: the float32 bits made
    to sort as numbers (-0.0 as 0.0, every NaN last) above the row's position. Unique keys sort
    alike with numpy's fast unstable sort, several times faster than its stable one."""
    single = values.astype(np.float32) + np.float32(0.0)  # -0.0 becomes 0.0, as numpy compares
    bits = single.view(np.uint32)
    # negatives: every bit flipped; the others: the sign bit set (by arithmetic: ``np.where`` on
    # the signs of random values mispredicts a branch every other element)
    flip = (bits >> np.uint32(31)) * np.uint32(0x7FFFFFFF) | np.uint32(1 << 31)
    keys = (bits ^ flip).astype(np.uint64)
    keys[np.isnan(single)] = np.uint64(0xFFFFFFFF)
    keys <<= np.uint64(32)
    keys |= np.arange(len(values), dtype=np.uint64)
    return keys


def sample_weights(dataset: Dataset, class_weight) -> np.ndarray:
    """The dataset's weights times the class weights ("balanced": n / (classes * class count), the
    classes the rows hold, as scikit-learn counts them)."""
    weights = np.asarray(dataset.weights, dtype=np.float64)
    if class_weight is None:
        return weights
    classes = dataset.target.classes
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise TreegenError(f"class_weight must be 'balanced' or a dict, not {class_weight!r}")
        count = np.bincount(dataset.y, minlength=len(classes)).astype(np.float64)
        with np.errstate(divide="ignore"):
            per_class = len(dataset.y) / (np.count_nonzero(count) * count)
    else:
        by_name = {str(k): float(v) for k, v in dict(class_weight).items()}
        unknown = sorted(set(by_name) - set(classes))
        if unknown:
            raise TreegenError(f"class_weight names unknown classes: {', '.join(unknown)}"
                               + did_you_mean(unknown, classes))
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
        light = (side_weight(left, problem.width) < limit) | (side_weight(right, problem.width) < limit)
        np.copyto(scores, -np.inf, where=light)  # (a side's weight may be one row for all features)


def side_weight(side, width: int) -> np.ndarray:
    """The weight of one side of candidate splits whose statistics are ``side`` (an array or a
    list of rows): its class weights summed in order, or w."""
    if not width:
        return side[0]
    weight = side[0] + side[1] if len(side) > 1 else side[0]
    for k in range(2, len(side)):
        weight = weight + side[k]
    return weight


def category_names(problem: Problem, feature: int, codes) -> tuple[str, ...]:
    """The categories of a nominal split that sends the category ``codes`` left, in code order."""
    categories = problem.categories[feature]
    return tuple(categories[c] for c in sorted(codes))
