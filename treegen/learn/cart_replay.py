"""Growing scikit-learn's own tree: a replay of ``DecisionTreeClassifier/Regressor(random_state=N)``
(scikit-learn 1.9, ``splitter="best"``, every feature searched), its arithmetic in its order.

scikit-learn sums a node's rows one at a time in the order its parent's split search left them,
and that order follows from its ``random_state``: the builder (``DepthFirstTreeBuilder``) visits
nodes depth first, left first; at each node the splitter draws the features in a random order
(a Fisher-Yates shuffle fed by ``our_rand_r``, skipping features found constant above), sorts the
node's rows in place by each drawn feature (an introsort, which leaves tied values in an order
set by every sort before), searches its cuts with running sums that ``Criterion.update`` moves
from the last cut forward, or back from the end when that is shorter, and keeps the first best
(strict ``>`` across features in draw order); the chosen split then swaps the rows into two
parts. Replaying all of it gives scikit-learn's node values, impurities, node counts and
across-feature tie choices bit for bit -- including the splits of one-class nodes whose impurity
is a rounding residue above ``EPSILON``.

The walk is sequential (each node's order depends on every one before it), with numpy inside a
node: sorting (the introsort is replayed in Python only where a node's values tie), running sums
(``cumsum`` is a sequential sum) and the proxy of every cut of a feature at once.

Not replayed: missing values and nominal features (an error).
"""
from __future__ import annotations

import math

import numpy as np

from ..data import Dataset
from ..errors import TreegenError
from .cart_problem import (EPSILON, FEATURE_THRESHOLD, Grown, Params, node_impurities, proxy,
                           row_statistics, sample_weights)

RAND_R_MAX = 2147483647  # sklearn/utils/_random.pxd
INSERTION_SORT = 15  # the introsort's small segments: insertion sort


def grow(dataset: Dataset, params: Params, random_state: int) -> Grown:
    """scikit-learn's tree for ``random_state``, with its node ids, as :func:`cart_grow.grow` gives
    trees (plus each node's weight as scikit-learn sums it, and its row count)."""
    replay = _Replay(dataset, params, random_state)
    return replay.run()


def next_random(state: list) -> int:
    """scikit-learn's ``our_rand_r`` (sklearn/utils/_random.pxd): a 32-bit xorshift."""
    s = state[0] or 1
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return s % (RAND_R_MAX + 1)


def first_state(random_state: int) -> list:
    """The splitter's random state: one draw from ``RandomState(random_state)``."""
    return [int(np.random.RandomState(random_state).randint(0, RAND_R_MAX))]


class _Replay:
    """The builder's and splitter's state: ``samples`` (rows of nonzero weight, reordered in place
    as scikit-learn reorders them), the feature order and known constants, the random state."""

    def __init__(self, dataset: Dataset, params: Params, random_state: int):
        if any(not f.is_numeric for f in dataset.features):
            raise TreegenError("random_state replays scikit-learn, which has no nominal features; "
                               "encode them as numbers or leave out random_state")
        self.params = params
        weights = sample_weights(dataset, params.class_weight)
        self.width = len(dataset.target.classes) if dataset.target.is_classification else 0
        stats = row_statistics(dataset.y, weights, self.width)
        # per row: what Criterion sums -- class weights then the weight, or [w, w*y] -- and w*y*y
        self.stats = np.vstack([stats, weights]) if self.width else stats
        self.weight_row = self.width if self.width else 0
        self.squares = None if self.width else stats[1] * np.asarray(dataset.y, dtype=np.float64)
        self.samples = np.flatnonzero(weights != 0)
        if len(self.samples) == 0:
            raise TreegenError("every row has weight zero: nothing to learn from")
        self.X = _float32_matrix(dataset, self.samples)
        self.total_weight = float(np.cumsum(weights)[-1])  # Splitter.init: every row, in order
        self.min_weight_leaf = params.min_weight_fraction_leaf * float(weights.sum())
        self.features = list(range(self.X.shape[1]))
        self.constant = list(self.features)
        self.state = first_state(random_state)

    def run(self) -> Grown:
        nodes = _Nodes(len(self.stats))
        stack = [(0, len(self.samples), 0, -1, False, None, 0)]
        while stack:
            start, end, depth, parent, is_left, impurity, known = stack.pop()
            rows = self.samples[start:end]
            total = _sequential_sum(self.stats[:, rows], axis=1)
            squares = 0.0 if self.squares is None else float(np.cumsum(self.squares[rows])[-1])
            if impurity is None:
                impurity = self._impurity(total[:, None], np.array([squares]))[0]
            node = nodes.add(parent, is_left, total, impurity, end - start)
            if self._leaf(depth, end - start, total, impurity):
                continue
            split, known = self._split(start, end, total, squares, impurity, known)
            if split is None:
                continue
            feature, threshold, missing_left, cut, left_impurity, right_impurity = split
            nodes.split(node, feature, threshold, missing_left)
            stack.append((cut, end, depth + 1, node, False, right_impurity, known))
            stack.append((start, cut, depth + 1, node, True, left_impurity, known))
        return nodes.grown(self.width, self.weight_row)

    def _leaf(self, depth: int, n: int, total: np.ndarray, impurity: float) -> bool:
        params = self.params
        return (depth >= params.max_depth or n < params.min_samples_split
                or n < 2 * params.min_samples_leaf
                or total[self.weight_row] < 2 * self.min_weight_leaf or impurity <= EPSILON)

    def _impurity(self, totals: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """Impurities of columns of statistics, with scikit-learn's weights (summed on their own)."""
        if self.width:
            return node_impurities(self.params.criterion, totals[:-1], squares, totals[-1])
        return node_impurities(self.params.criterion, totals, squares)

    # -- node_split_best ---------------------------------------------------------------------

    def _split(self, start, end, total, squares, impurity, known):
        """The node's best split (feature, threshold, missing values left, cut position, the
        children's impurities) or None, and the number of known constant features for its
        children. Features drawn as ``node_split_best`` draws them (every feature searched)."""
        features, state = self.features, self.state
        n_features = len(features)
        f_i, visited, found, drawn = n_features, 0, 0, 0
        best, best_score = None, -np.inf
        while f_i > known + found and (visited < n_features or visited <= found + drawn):
            visited += 1
            f_j = drawn + next_random(state) % (f_i - found - drawn)
            if f_j < known:
                features[drawn], features[f_j] = features[f_j], features[drawn]
                drawn += 1
                continue
            f_j += found
            values = self._sort(start, end, features[f_j])
            if values[-1] <= values[0] + FEATURE_THRESHOLD:  # float32 arithmetic, as in C
                features[f_j], features[known + found] = features[known + found], features[f_j]
                found += 1
                continue
            f_i -= 1
            features[f_i], features[f_j] = features[f_j], features[f_i]
            score, position = self._best_cut(start, end, values, total)
            if score > best_score:
                best_score = score
                threshold = float(values[position - 1]) / 2.0 + float(values[position]) / 2.0
                best = (features[f_i], threshold, position)
        features[:known] = self.constant[:known]
        self.constant[known:known + found] = features[known:known + found]
        if best is None:
            return None, known + found
        return self._final(start, end, total, squares, impurity, best), known + found

    def _sort(self, start: int, end: int, feature: int) -> np.ndarray:
        """Sort the node's rows in place by a feature, as scikit-learn's introsort leaves them;
        the sorted float32 values."""
        rows = self.samples[start:end]
        values = self.X[rows, feature]
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        if (ordered[1:] == ordered[:-1]).any():  # ties: their order is the introsort's
            order = introsort_order(values)
            ordered = values[order]
        self.samples[start:end] = rows[order]
        return ordered

    def _best_cut(self, start: int, end: int, values: np.ndarray, total: np.ndarray):
        """The best proxy of the feature's cuts and the first position holding it (relative to
        ``start``); -inf when no cut is allowed. Cuts where the next value is larger by scikit-
        learn's rule, both sides at least ``min_samples_leaf`` rows, in increasing order: the
        running sums at each follow ``Criterion.update`` from the cut before."""
        n, leaf = end - start, self.params.min_samples_leaf
        with np.errstate(over="ignore"):
            follows = values[1:] > values[:-1] + FEATURE_THRESHOLD
        cuts = np.flatnonzero(follows) + 1
        cuts = cuts[(cuts >= leaf) & (n - cuts >= leaf)]
        if not len(cuts):
            return -np.inf, 0
        stats = self.stats[:, self.samples[start:end]]
        left = left_sums(stats, total, cuts)
        right = total[:, None] - left
        w = self.weight_row
        scores = self._proxy(left, right)
        if self.min_weight_leaf > 0:
            scores[(left[w] < self.min_weight_leaf) | (right[w] < self.min_weight_leaf)] = -np.inf
        at = int(np.argmax(scores))
        return scores[at], int(cuts[at])

    def _proxy(self, left: np.ndarray, right: np.ndarray) -> np.ndarray:
        if self.width:
            return proxy(self.params.criterion, left[:-1], right[:-1], left[-1], right[-1])
        return proxy(self.params.criterion, left, right)

    def _final(self, start, end, total, squares, impurity, best):
        """``partition_samples_final`` and the children's impurities from one ``update`` at the
        cut; None when the improvement falls short of ``min_impurity_decrease``."""
        feature, threshold, _ = best
        rows = self.samples[start:end]
        goes_left = self.X[rows, feature].astype(np.float64) <= threshold
        self.samples[start:end] = rows[swap_partition(goes_left)]
        cut = int(goes_left.sum())
        rows = self.samples[start:end]
        stats = self.stats[:, rows]
        left = left_sums(stats, total, np.array([cut]))
        right = total[:, None] - left
        if self.squares is None:
            left_squares = right_squares = np.zeros(1)
        else:
            left_squares = np.cumsum(self.squares[rows[:cut]])[-1:]
            right_squares = squares - left_squares
        left_impurity = self._impurity(left, left_squares)[0]
        right_impurity = self._impurity(right, right_squares)[0]
        w = self.weight_row
        weight, w_left, w_right = total[w], left[w, 0], right[w, 0]
        improvement = (weight / self.total_weight) * (impurity - w_right / weight * right_impurity
                                                      - w_left / weight * left_impurity)
        if improvement + EPSILON < self.params.min_impurity_decrease:
            return None
        missing_left = cut > (end - start) - cut
        return feature, threshold, missing_left, start + cut, left_impurity, right_impurity


def left_sums(stats: np.ndarray, total: np.ndarray, cuts: np.ndarray) -> np.ndarray:
    """The statistics left of each cut (columns), as ``Criterion.update`` leaves them when it is
    called at the cuts in increasing order after ``reset``: from the last position forward, one
    row at a time -- or, when the rows left to the end are fewer, the node's total less the rows
    from the end back to the cut. A backward step sets a new base that later forward steps add
    to; there are at most about log2(rows) of them, as each halves the rows left."""
    n = stats.shape[1]
    previous = np.concatenate([[0], cuts[:-1]])
    backward = np.flatnonzero(cuts - previous > n - cuts)
    out = np.empty((len(stats), len(cuts)))
    bases = [(0, 0, np.zeros(len(stats)))]  # (first cut index, its position, the sums there)
    for k in backward.tolist():
        tail = stats[:, cuts[k]:][:, ::-1]
        sums = np.subtract.accumulate(np.concatenate([total[:, None], tail], axis=1), axis=1)[:, -1]
        bases.append((k, int(cuts[k]), sums))
    for b, (k, position, base) in enumerate(bases):
        stop = bases[b + 1][0] if b + 1 < len(bases) else len(cuts)
        if k == stop:
            continue
        last = int(cuts[stop - 1])
        running = np.cumsum(np.concatenate([base[:, None], stats[:, position:last]], axis=1), axis=1)
        out[:, k:stop] = running[:, cuts[k:stop] - position]
    return out


def swap_partition(goes_left: np.ndarray) -> np.ndarray:
    """The order ``partition_samples_final`` leaves rows in: a row going right swaps with the
    last row not yet seen, which is looked at next."""
    order = list(range(len(goes_left)))
    left = goes_left.tolist()
    low, high = 0, len(order)
    while low < high:
        if left[order[low]]:
            low += 1
        else:
            high -= 1
            order[low], order[high] = order[high], order[low]
    return np.array(order, dtype=np.int64)


def introsort_order(values: np.ndarray) -> np.ndarray:
    """The permutation scikit-learn's ``simultaneous_sort`` (sklearn/utils/_sorting.pyx, 3-way
    partition) makes of these values: median of three, ``<``/``==``/``>`` partition, heapsort
    past ``2*log2(n)`` levels, insertion sort below 16 values."""
    keys = values.tolist()
    index = list(range(len(keys)))
    if keys:
        _introsort(keys, index, 0, len(keys), 2 * int(math.log2(len(keys))))
    return np.array(index, dtype=np.int64)


def _introsort(v: list, ix: list, lo: int, n: int, maxd: int) -> None:
    while n > INSERTION_SORT:
        if maxd <= 0:
            _heapsort(v, ix, lo, n)
            return
        maxd -= 1
        pivot = _median3(v[lo], v[lo + n // 2], v[lo + n - 1])
        i = low = lo
        high = lo + n
        while i < high:
            if v[i] < pivot:
                v[i], v[low] = v[low], v[i]
                ix[i], ix[low] = ix[low], ix[i]
                i += 1
                low += 1
            elif v[i] > pivot:
                high -= 1
                v[i], v[high] = v[high], v[i]
                ix[i], ix[high] = ix[high], ix[i]
            else:
                i += 1
        _introsort(v, ix, lo, low - lo, maxd)
        n -= high - lo
        lo = high
    _insertion_sort(v, ix, lo, n)


def _median3(a, b, c):
    if a < b:
        return b if b < c else (c if a < c else a)
    if b < c:
        return a if a < c else c
    return b


def _insertion_sort(v: list, ix: list, lo: int, n: int) -> None:
    for i in range(lo + 1, lo + n):
        value, row = v[i], ix[i]
        j = i
        while j > lo and v[j - 1] > value:
            v[j], ix[j] = v[j - 1], ix[j - 1]
            j -= 1
        v[j], ix[j] = value, row


def _heapsort(v: list, ix: list, lo: int, n: int) -> None:
    start = (n - 2) // 2
    while True:
        _sift_down(v, ix, lo, start, n)
        if start == 0:
            break
        start -= 1
    end = n - 1
    while end > 0:
        v[lo], v[lo + end] = v[lo + end], v[lo]
        ix[lo], ix[lo + end] = ix[lo + end], ix[lo]
        _sift_down(v, ix, lo, 0, end)
        end -= 1


def _sift_down(v: list, ix: list, lo: int, root: int, end: int) -> None:
    while True:
        child = root * 2 + 1
        top = root
        if child < end and v[lo + top] < v[lo + child]:
            top = child
        if child + 1 < end and v[lo + top] < v[lo + child + 1]:
            top = child + 1
        if top == root:
            return
        a, b = lo + root, lo + top
        v[a], v[b] = v[b], v[a]
        ix[a], ix[b] = ix[b], ix[a]
        root = top


def _sequential_sum(values: np.ndarray, axis: int) -> np.ndarray:
    """Sums added one value at a time, in order (``np.sum`` adds pairwise)."""
    return np.cumsum(values, axis=axis).take(-1, axis=axis)


def _float32_matrix(dataset: Dataset, rows: np.ndarray) -> np.ndarray:
    """The numeric columns as scikit-learn's float32 copy of X (rows x features)."""
    X = np.empty((len(dataset), len(dataset.features)), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for j, column in enumerate(dataset.columns):
            X[:, j] = np.asarray(column, dtype=np.float64)
    learned = X[rows]
    if np.isnan(learned).any():
        raise TreegenError("random_state does not replay scikit-learn's handling of missing values "
                           "yet; leave out random_state or fill them in")
    if np.isinf(learned).any():
        raise TreegenError("random_state: a value is infinite or too large for float32, which "
                           "scikit-learn refuses")
    return X


class _Nodes:
    """The nodes in the order the builder adds them (pre-order, left first: scikit-learn's ids)."""

    def __init__(self, statistics: int):
        self.totals, self.impurity, self.samples = [], [], []
        self.children, self.feature, self.threshold, self.missing_left = [], [], [], []

    def add(self, parent: int, is_left: bool, total, impurity: float, samples: int) -> int:
        node = len(self.totals)
        if parent >= 0:
            self.children[parent][0 if is_left else 1] = node
        self.totals.append(total)
        self.impurity.append(impurity)
        self.samples.append(samples)
        self.children.append([-1, -1])
        self.feature.append(-1)
        self.threshold.append(np.nan)
        self.missing_left.append(False)
        return node

    def split(self, node: int, feature: int, threshold: float, missing_left: bool) -> None:
        self.feature[node], self.threshold[node], self.missing_left[node] = feature, threshold, missing_left

    def grown(self, width: int, weight_row: int) -> Grown:
        totals = np.array(self.totals)
        total = totals[:, :width] if width else totals
        return Grown(width, total, np.array(self.impurity), np.array(self.children, dtype=np.int64),
                     np.array(self.feature), np.array(self.threshold), np.array(self.missing_left),
                     {}, weight=totals[:, weight_row].copy(), samples=np.array(self.samples))
