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

Missing values go as scikit-learn 1.9's splitter sends them: moved to the end of the node before
each sort, cuts tried with them on the right, then "present left, missing right" (threshold
inf), then -- moved to the front -- each cut with them on the left.

The walk is sequential (each node's order depends on every one before it), with numpy inside a
node: the features whose values there are distinct are searched at once (:class:`_Batch`), the
others one at a time; the in-place orders are :mod:`treegen.learn.cart_introsort`'s; running sums
are ``cumsum`` (a sequential sum). scikit-learn has no nominal features: they are an error.
"""
from __future__ import annotations

import numpy as np

from ..data import Dataset
from ..errors import TreegenError
from ..progress import settled
from . import libm
from .cart_introsort import introsort_order, missing_to_the_end, swap_partition
from .cart_problem import (EPSILON, FEATURE_THRESHOLD, Grown, Params, exact_near_best, node_impurities,
                           proxy, row_statistics, sample_weights, sorted_labels)

RAND_R_MAX = 2147483647  # sklearn/utils/_random.pxd
BATCH_CELLS = 1 << 20  # rows x features of a node searched at once, at most


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
        self.base_weights = np.asarray(dataset.weights, dtype=np.float64)  # for progress
        self.width = len(dataset.target.classes) if dataset.target.is_classification else 0
        y = dataset.y
        if self.width:  # scikit-learn sums over its classes_: the labels sorted
            self.class_order = sorted_labels(dataset.target.classes)
            y = np.argsort(self.class_order)[y]
        stats = row_statistics(y, weights, self.width)
        # per row: what Criterion sums -- class weights then the weight, or [w, w*y] -- and w*y*y
        self.stats = np.vstack([stats, weights]) if self.width else stats
        self.weight_row = self.width if self.width else 0
        self.squares = None if self.width else stats[1] * np.asarray(dataset.y, dtype=np.float64)
        self.samples = np.flatnonzero(weights != 0)
        if len(self.samples) == 0:
            raise TreegenError("every row has weight zero: nothing to learn from")
        self.X = _float32_matrix(dataset)
        with np.errstate(over="ignore", invalid="ignore"):  # scikit-learn's test, on every row
            self.has_missing = np.isnan(self.X.sum(axis=0)).tolist()
        self.total_weight = float(_sequential_sum(weights, 0))  # Splitter.init: every row, in order
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
            squares = 0.0 if self.squares is None else float(_sequential_sum(self.squares[rows], 0))
            if impurity is None:
                impurity = self._impurity(total[:, None], np.array([squares]))[0]
            node = nodes.add(parent, is_left, total, impurity, end - start)
            split = None
            if not self._leaf(depth, end - start, total, impurity):
                split, known = self._split(start, end, total, squares, impurity, known)
            if split is None:
                settled(float(self.base_weights[rows].sum()))  # a leaf: its rows are done (progress)
                continue
            feature, threshold, missing_left, cut, left_impurity, right_impurity = split
            nodes.split(node, feature, threshold, missing_left)
            stack.append((cut, end, depth + 1, node, False, right_impurity, known))
            stack.append((start, cut, depth + 1, node, True, left_impurity, known))
        grown = nodes.grown(self.width, self.weight_row)
        if self.width:
            grown.total = grown.total[:, np.argsort(self.class_order)]  # back to the target's order
        return grown

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
        batch = _Batch(self, start, end, features[known:])
        searched, found_splits, pending = [], {}, {}  # in draw order; pending: rows and values
        while f_i > known + found and (visited < n_features or visited <= found + drawn):
            visited += 1
            f_j = drawn + next_random(state) % (f_i - found - drawn)
            if f_j < known:
                features[drawn], features[f_j] = features[f_j], features[drawn]
                drawn += 1
                continue
            f_j += found
            feature = features[f_j]
            if feature in batch.column:
                constant = batch.sort(feature)
            else:
                batch.settle()
                values, n_missing = self._sort(start, end, feature)
                constant = not len(values) or (n_missing == 0 and values[-1] <= values[0] + FEATURE_THRESHOLD)
            if constant:  # (float32 arithmetic, as in C) or all missing
                features[f_j], features[known + found] = features[known + found], features[f_j]
                found += 1
                continue
            f_i -= 1
            features[f_i], features[f_j] = features[f_j], features[f_i]
            searched.append(feature)
            if feature in batch.column:
                continue  # (scored with the batch)
            if n_missing:  # (moves the missing rows to the front: before the next sort)
                found_splits[feature] = self._best_cut(start, end, values, n_missing, total)
            else:
                pending[feature] = (self.samples[start:end].copy(), values)
        batch.settle()
        features[:known] = self.constant[:known]
        self.constant[known:known + found] = features[known:known + found]
        best = self._best(searched, found_splits, pending, batch, total)
        if best is None:
            return None, known + found
        return self._final(start, end, total, squares, impurity, best), known + found

    def _best(self, searched: list, found_splits: dict, pending: dict, batch: _Batch, total: np.ndarray):
        """The first best split of the features searched, in draw order (a later one must be
        strictly better). The batch's features are scored together, and so are the ``pending``
        ones (rows and values sorted by them), in chunks of :data:`BATCH_CELLS`."""
        in_batch = [f for f in searched if f in batch.column]
        if in_batch:
            columns = [batch.column[f] for f in in_batch]
            found_splits.update(zip(in_batch, self._score_columns(
                batch.rows[:, columns], batch.values[:, columns], total)))
        features = list(pending)
        width = max(1, BATCH_CELLS // len(pending[features[0]][0])) if pending else 1
        for first in range(0, len(features), width):
            chunk = features[first:first + width]
            rows = np.column_stack([pending[f][0] for f in chunk])
            values = np.column_stack([pending[f][1] for f in chunk])
            found_splits.update(zip(chunk, self._score_columns(rows, values, total)))
        best, best_score = None, -np.inf
        for feature in searched:
            score, threshold, missing_left = found_splits[feature]
            if score > best_score:
                best_score, best = score, (feature, threshold, missing_left)
        return best

    def _score_columns(self, rows: np.ndarray, values: np.ndarray, total: np.ndarray) -> list:
        """Each column's best split (proxy, threshold, missing values' side), for a node whose
        rows sorted by a feature are a column of ``rows`` (its sorted values one of ``values``,
        none missing): the first best cut where the next value is larger by scikit-learn's rule,
        both sides at least ``min_samples_leaf`` rows and ``min_weight_leaf`` weight. The running
        sums at the cuts are one ``cumsum`` from the node's first row where ``Criterion.update``
        goes forward only, else :func:`left_sums` for that column."""
        n, k = values.shape
        leaf = self.params.min_samples_leaf
        with np.errstate(over="ignore", invalid="ignore"):
            follows = values[1:] > values[:-1] + FEATURE_THRESHOLD
        cuts = np.arange(1, n)[:, None]
        allowed = follows & (cuts >= leaf) & (n - cuts >= leaf)
        before = np.maximum.accumulate(np.where(allowed, cuts, 0), axis=0)
        previous = np.zeros_like(before)
        previous[1:] = before[:-1]
        stats = self.stats[:, rows]
        left = np.cumsum(stats, axis=1)[:, :-1]
        for c in np.flatnonzero((allowed & (cuts - previous > n - cuts)).any(0)).tolist():
            at = np.flatnonzero(allowed[:, c]) + 1  # a step goes back from the end: the real sums
            left[:, at - 1, c] = left_sums(stats[:, :, c], total, at)
        right = total[:, None, None] - left
        scores = self._proxy(left, right, libm.quick_log)
        w = self.weight_row
        if self.min_weight_leaf > 0:
            allowed &= (left[w] >= self.min_weight_leaf) & (right[w] >= self.min_weight_leaf)
        scores[~allowed] = -np.inf
        exact_near_best(self.params.criterion, scores, lambda: scores.max(axis=0), left, right, self._proxy)
        at = np.argmax(scores, axis=0)
        columns = np.arange(k)
        low, high = values[at, columns].astype(np.float64), values[at + 1, columns].astype(np.float64)
        return list(zip(scores[at, columns].tolist(), (low / 2.0 + high / 2.0).tolist(),
                        (at + 1 > n - (at + 1)).tolist()))

    def _sort(self, start: int, end: int, feature: int) -> tuple[np.ndarray, int]:
        """``sort_samples_and_feature_values``: the rows missing the feature swapped to the end of
        the node (each with the last present row not yet passed), the others sorted in place as
        scikit-learn's introsort leaves them. The sorted present float32 values; the missing count."""
        rows = self.samples[start:end]
        values = self.X[rows, feature]
        if self.has_missing[feature]:
            rows = rows[missing_to_the_end(np.isnan(values))]
            values = self.X[rows, feature]
        n_missing = int(np.isnan(values).sum()) if self.has_missing[feature] else 0
        present = len(values) - n_missing
        order = introsort_order(values[:present])
        ordered = values[order]
        rows[:present] = rows[order]
        self.samples[start:end] = rows
        return ordered, n_missing

    def _best_cut(self, start: int, end: int, values: np.ndarray, n_missing: int, total: np.ndarray):
        """The best split of a feature that some rows of the node miss, as the search finds it:
        its proxy (-inf when no cut is allowed), threshold and missing values' side. Cuts between
        present values larger by scikit-learn's rule, with the missing rows on the right, then
        "present left, missing right"; then (the missing rows moved in front,
        ``shift_missing_to_the_left``) the same cuts with them left. A later cut must be strictly
        better."""
        present = len(values)
        with np.errstate(over="ignore"):
            follows = values[1:] > values[:-1] + FEATURE_THRESHOLD
        cuts = np.flatnonzero(follows) + 1
        thresholds = values[cuts - 1].astype(np.float64) / 2.0 + values[cuts].astype(np.float64) / 2.0
        score, at = self._scores(start, end, np.append(cuts, present), total)
        threshold = np.inf if at == len(cuts) else (thresholds[at] if at >= 0 else np.nan)
        rows = self.samples[start:end]
        self.samples[start:end] = np.concatenate([rows[present:], rows[:present]])
        score_left, at_left = self._scores(start, end, cuts + n_missing, total)
        if score_left > score:
            return score_left, thresholds[at_left], True
        return score, threshold, False

    def _scores(self, start: int, end: int, cuts: np.ndarray, total: np.ndarray) -> tuple[float, int]:
        """The best proxy of cuts (positions from ``start``, increasing) and the index of the first
        cut holding it (-1: none allowed), for a node whose statistics sum to ``total``: both
        sides at least ``min_samples_leaf`` rows and ``min_weight_leaf`` weight; the running sums
        at each follow ``Criterion.update`` from the cut before (:func:`left_sums`)."""
        n, leaf = end - start, self.params.min_samples_leaf
        allowed = np.flatnonzero((cuts >= leaf) & (n - cuts >= leaf))
        if not len(allowed):
            return -np.inf, -1
        left = left_sums(self.stats[:, self.samples[start:end]], total, cuts[allowed])
        right = total[:, None] - left
        w = self.weight_row
        scores = self._proxy(left, right, libm.quick_log)
        if self.min_weight_leaf > 0:
            scores[(left[w] < self.min_weight_leaf) | (right[w] < self.min_weight_leaf)] = -np.inf
        exact_near_best(self.params.criterion, scores, scores.max, left, right, self._proxy)
        best = int(np.argmax(scores))
        if scores[best] == -np.inf:
            return -np.inf, -1
        return scores[best], int(allowed[best])

    def _proxy(self, left: np.ndarray, right: np.ndarray, log=libm.log) -> np.ndarray:
        if self.width:
            return proxy(self.params.criterion, left[:-1], right[:-1], left[-1], right[-1], log)
        return proxy(self.params.criterion, left, right, log=log)

    def _final(self, start, end, total, squares, impurity, best):
        """``partition_samples_final`` and the children's impurities from one ``update`` at the
        cut; None when the improvement falls short of ``min_impurity_decrease``."""
        feature, threshold, missing_left = best
        rows = self.samples[start:end]
        values = self.X[rows, feature].astype(np.float64)
        goes_left = np.where(np.isnan(values), missing_left, values <= threshold)
        self.samples[start:end] = rows[swap_partition(goes_left)]
        cut = int(goes_left.sum())
        rows = self.samples[start:end]
        stats = self.stats[:, rows]
        left = left_at(stats, total, cut)[:, None]
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
        return feature, threshold, missing_left, start + cut, left_impurity, right_impurity


class _Batch:
    """The features of a node sorted before the draws: those whose values at the node are
    distinct and present, which any sort leaves in one order, whatever the order before. A sort
    by one of them is only noted; :meth:`settle` puts the node's rows in its order."""

    def __init__(self, replay: _Replay, start: int, end: int, features: list):
        self.replay, self.start, self.end = replay, start, end
        self.column: dict = {}
        self.pending = None
        n = end - start
        if n * len(features) > BATCH_CELLS:
            return
        rows = replay.samples[start:end].copy()  # (the samples change as other features sort them)
        columns = np.arange(len(features))
        values = replay.X[rows[:, None], np.array(features)]
        order = np.argsort(values, axis=0)
        values = values[order, columns]
        keep = np.flatnonzero(~((values[1:] == values[:-1]).any(0) | np.isnan(values[-1])))
        self.rows, self.values = rows[order[:, keep]], values[:, keep]
        self.constant = (self.values[-1] <= self.values[0] + FEATURE_THRESHOLD).tolist()
        self.column = {features[k]: c for c, k in enumerate(keep.tolist())}

    def sort(self, feature: int) -> bool:
        """Note the rows sorted by a feature of the batch; whether it is constant at the node."""
        self.pending = self.column[feature]
        return self.constant[self.pending]

    def settle(self) -> None:
        if self.pending is not None:
            self.replay.samples[self.start:self.end] = self.rows[:, self.pending]
            self.pending = None


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
        bases.append((k, int(cuts[k]), left_at(stats, total, int(cuts[k]))))
    for b, (k, position, base) in enumerate(bases):
        stop = bases[b + 1][0] if b + 1 < len(bases) else len(cuts)
        if k == stop:
            continue
        last = int(cuts[stop - 1])
        running = np.cumsum(np.concatenate([base[:, None], stats[:, position:last]], axis=1), axis=1)
        out[:, k:stop] = running[:, cuts[k:stop] - position]
    return out


def left_at(stats: np.ndarray, total: np.ndarray, cut: int) -> np.ndarray:
    """The statistics left of a cut after ``reset`` and one ``update``: the rows before it summed
    forward or, when fewer rows follow it, the total less those from the end back to the cut."""
    if cut <= stats.shape[1] - cut:
        return _sequential_sum(stats[:, :cut], axis=1)
    tail = stats[:, cut:][:, ::-1]
    return np.subtract.accumulate(np.concatenate([total[:, None], tail], axis=1), axis=1)[:, -1]


def _sequential_sum(values: np.ndarray, axis: int) -> np.ndarray:
    """Sums added one value at a time, in order (``np.sum`` adds pairwise)."""
    return np.cumsum(values, axis=axis).take(-1, axis=axis)


def _float32_matrix(dataset: Dataset) -> np.ndarray:
    """The numeric columns as scikit-learn's float32 copy of X (rows x features)."""
    X = np.empty((len(dataset), len(dataset.features)), dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for j, column in enumerate(dataset.columns):
            X[:, j] = np.asarray(column, dtype=np.float64)
    if np.isinf(X).any():
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
