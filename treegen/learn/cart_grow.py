"""Growing a CART tree level by level: every node of a depth is searched at once.

Per numeric feature, the rows of all the nodes of a level sit in one array, grouped node by node
(a *segment* per node) and sorted by the feature's value within each segment, missing last. One
cumulative sum over the array, less each segment's running total at its start, gives the
statistics left of every cut of every node; a segmented maximum picks each node's best cut. The
children's segments are then cut out of the parent's by a stable partition, so values are sorted
once, at the root. The number of numpy calls grows with the depth of the tree, not its size.

Ties are broken as scikit-learn 1.9's splitter does within a feature (cuts with the missing rows
sent right, then "present left, missing right", then cuts with the missing rows sent left; the
first of equals) and by the lower feature index across features. Nodes are created level by level, then renumbered in pre-order, left first:
scikit-learn's node ids.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import Dataset
from ..errors import TreegenError
from .cart import (CHUNK_CELLS, EPSILON, Grown, Params, Problem, as_split, drop_light, node_impurities,
                   proxy)
from .cart_nominal import nominal_search
from ..progress import settled


@dataclass
class Level:
    """The nodes of one depth: their rows (one row of ``orders`` per numeric feature, sorted by it,
    plus a last row of the members in any order), segment starts, statistics and parents."""

    orders: np.ndarray  # (numeric features + 1, rows)
    values: np.ndarray  # (numeric features, rows): each feature's values in the order of its row
    starts: np.ndarray  # (nodes + 1,) segment boundaries
    totals: np.ndarray  # (statistics, nodes)
    squares: np.ndarray  # (nodes,) regression: sum of w*y*y
    parents: list[int | None]


@dataclass
class Best:
    """The best split found so far for each node of a level."""

    score: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    codes: list  # nominal: the category codes sent left, else None

    @classmethod
    def empty(cls, nodes: int) -> "Best":
        return cls(np.full(nodes, -np.inf), np.full(nodes, -1), np.full(nodes, np.nan),
                   np.zeros(nodes, dtype=bool), [None] * nodes)

    def offer(self, score, feature, threshold, missing_left, codes=None) -> None:
        """Keep, node by node, the better split: the higher score, else the lower feature index.
        ``codes(node)`` gives a nominal split's categories sent left."""
        better = (score > self.score) | ((score == self.score) & (feature < self.feature) & (score > -np.inf))
        self.score = np.where(better, score, self.score)
        self.feature = np.where(better, feature, self.feature)
        self.threshold = np.where(better, threshold, self.threshold)
        self.missing_left = np.where(better, missing_left, self.missing_left)
        for s in np.flatnonzero(better):
            self.codes[s] = None if codes is None else codes(s)


def grow(dataset: Dataset, params: Params) -> Grown:
    """Grow the full tree (no recursion anywhere: any depth works)."""
    problem = Problem(dataset, params)
    if problem.rows == 0:
        raise TreegenError("every row has weight zero: nothing to learn from")
    index = np.int32 if problem.rows < 2 ** 31 else np.int64  # row numbers: half the memory
    members = np.arange(problem.rows, dtype=index)
    orders = np.empty((len(problem.numeric) + 1, problem.rows), dtype=index)
    orders[:-1] = np.argsort(problem.X, axis=1, kind="stable")  # values sorted once; missing last
    orders[-1] = members
    # float32 values stay float32 (exact); the search widens one chunk at a time to float64
    values = np.take_along_axis(problem.X, orders[:-1], axis=1)
    totals, squares = problem.sums(members)
    level = Level(orders, values, np.array([0, problem.rows]), totals[:, None], np.array([squares]), [None])
    del orders, values
    grown = Grown(problem.width)
    root_weight = _weights(totals[:, None], problem.width)[0]
    depth = 0
    while level is not None:
        level = _grow_level(problem, grown, level, depth, root_weight)
        depth += 1
    return preorder(grown)


def _grow_level(problem: Problem, grown: Grown, level: Level, depth: int, root_weight: float):
    """Add a level's nodes to ``grown``, split those that may be split; the next level or None."""
    params = problem.params
    impurity = node_impurities(params.criterion, level.totals, level.squares)
    ids = _add_nodes(grown, level, impurity)
    settling = np.add.reduceat(problem.base_weights[level.orders[-1]], level.starts[:-1])
    sizes = np.diff(level.starts)
    open_ = ((depth < params.max_depth) & (sizes >= params.min_samples_split) & (impurity > EPSILON)
             & (_weights(level.totals, problem.width) >= 2 * problem.min_weight_leaf))
    splitting = np.zeros(len(ids), dtype=bool)
    if open_.any():
        level = _only(level, open_)
        best = search(problem, level)
        goes_left = _goes_left(problem, level, best)
        sides = _side_statistics(problem, level, goes_left)
        improvement = _improvement(problem, level.totals, impurity[open_], sides, root_weight)
        split = (best.score > -np.inf) & ~(improvement + EPSILON < params.min_impurity_decrease)
        splitting[open_] = split
    settled(float(settling[~splitting].sum()))
    if not splitting.any():
        return None
    parents = [ids[i] for i in np.flatnonzero(splitting)]
    for node, s in zip(parents, np.flatnonzero(split)):
        grown.split[node] = as_split(problem, int(best.feature[s]), float(best.threshold[s]),
                                     best.codes[s], bool(best.missing_left[s]))
    return _children(level, split, goes_left, sides, parents)


def _add_nodes(grown: Grown, level: Level, impurity: np.ndarray) -> list[int]:
    ids = []
    for total, node_impurity, parent in zip(level.totals.T.tolist(), impurity.tolist(), level.parents):
        node = grown.add(total, node_impurity)
        ids.append(node)
        if parent is not None:
            grown.children[parent] += (node,)
    return ids


def _side_statistics(problem: Problem, level: Level, goes_left: np.ndarray) -> tuple:
    """Per node: statistics and sums of w*y*y of its left and right child."""
    members = level.orders[-1]
    starts = level.starts[:-1]
    left, squares = goes_left[members], problem.squares[members]
    stats = problem.stats[:, members]
    return (np.add.reduceat(stats * left, starts, axis=1), np.add.reduceat(stats * ~left, starts, axis=1),
            np.add.reduceat(squares * left, starts), np.add.reduceat(squares * ~left, starts))


def _improvement(problem: Problem, totals, impurity, sides, root_weight: float) -> np.ndarray:
    """scikit-learn's weighted impurity decrease of each node's split."""
    left, right, left_squares, right_squares = sides
    criterion, width = problem.criterion, problem.width
    weight, w_left, w_right = (_weights(t, width) for t in (totals, left, right))
    with np.errstate(invalid="ignore", divide="ignore"):
        return weight / root_weight * (impurity
                                       - w_right / weight * node_impurities(criterion, right, right_squares)
                                       - w_left / weight * node_impurities(criterion, left, left_squares))


def _weights(totals: np.ndarray, width: int) -> np.ndarray:
    return totals.sum(0) if width else totals[0]


def _only(level: Level, keep: np.ndarray) -> Level:
    """Restrict the level, in place, to the nodes marked in ``keep`` (their segments, in order)."""
    sizes = np.diff(level.starts)
    if keep.all():
        return level
    positions = np.repeat(keep, sizes)
    level.orders = level.orders[:, positions]  # in place: the old arrays can go at once
    level.values = level.values[:, positions]
    level.starts = np.concatenate([[0], np.cumsum(sizes[keep])])
    level.totals, level.squares = level.totals[:, keep], level.squares[keep]
    level.parents = [p for p, k in zip(level.parents, keep) if k]
    return level


def _children(level: Level, split: np.ndarray, goes_left: np.ndarray, sides, parents) -> Level:
    """The next level: each split node's segment cut into its left then right child's, stably,
    one feature at a time (to keep the working memory to a few rows' worth)."""
    sizes = np.diff(level.starts)
    segment = np.repeat(np.arange(len(sizes)), sizes)
    keep = split[segment]
    rank = (np.cumsum(split) - 1)[segment[keep]]  # per kept position: its node among the split ones
    members = level.orders[-1, keep]
    left_sizes = np.bincount(rank, weights=goes_left[members], minlength=int(split.sum())).astype(np.int64)
    split_sizes = sizes[split]
    before = np.concatenate([[0], np.cumsum(split_sizes)[:-1]])[rank]  # rows of earlier split nodes
    left_before = np.concatenate([[0], np.cumsum(left_sizes)[:-1]])[rank]
    right_start = before + left_sizes[rank]
    right_before = before - left_before
    orders = np.empty((level.orders.shape[0], len(members)), dtype=level.orders.dtype)
    values = np.empty((level.values.shape[0], len(members)), dtype=level.values.dtype)
    for r in range(len(orders)):
        row = level.orders[r, keep]
        is_left = goes_left[row]
        lefts = np.cumsum(is_left) - 1  # per position: lefts before it in the row, less one
        rights = np.arange(len(row)) - lefts - 1
        position = np.where(is_left, before + lefts - left_before, right_start + rights - right_before)
        orders[r, position] = row
        if r < len(values):
            values[r, position] = level.values[r, keep]
    child_sizes = np.column_stack([left_sizes, split_sizes - left_sizes]).ravel()
    starts = np.concatenate([[0], np.cumsum(child_sizes)])
    left, right, left_squares, right_squares = sides
    child_totals = np.stack([left[:, split], right[:, split]], axis=2).reshape(left.shape[0], -1)
    child_squares = np.column_stack([left_squares[split], right_squares[split]]).ravel()
    child_parents = [p for p in parents for _ in (0, 1)]
    return Level(orders, values, starts, child_totals, child_squares, child_parents)


def _goes_left(problem: Problem, level: Level, best: Best) -> np.ndarray:
    """Per training row (all of them; only the level's members matter): goes left at its node."""
    out = np.zeros(problem.rows, dtype=bool)
    members = level.orders[-1]
    sizes = np.diff(level.starts)
    segment = np.repeat(np.arange(len(sizes)), sizes)
    feature = best.feature[segment]
    numeric = np.isin(feature, problem.numeric)
    index = np.searchsorted(problem.numeric, feature[numeric])
    rows = members[numeric]
    values = problem.X[index, rows].astype(np.float64)  # compared with float64 thresholds
    with np.errstate(invalid="ignore"):
        left = values <= best.threshold[segment[numeric]]
    missing = np.isnan(values)
    left[missing] = best.missing_left[segment[numeric]][missing]
    out[rows] = left
    for s in np.flatnonzero(~np.isin(best.feature, problem.numeric) & (best.feature >= 0)):
        rows = members[level.starts[s]:level.starts[s + 1]]
        codes = problem.codes[int(best.feature[s])][rows]
        left = np.isin(codes, best.codes[s])
        left[codes < 0] = best.missing_left[s]
        out[rows] = left
    return out


def search(problem: Problem, level: Level) -> Best:
    """The best split of every node of a level, over all features."""
    best = Best.empty(len(level.starts) - 1)
    features = len(problem.numeric)
    rows = level.orders.shape[1]
    chunk = max(1, CHUNK_CELLS // max(1, rows * level.totals.shape[0]))
    for start in range(0, features, chunk):
        stop = min(start + chunk, features)
        _numeric_search(problem, level, start, stop, best)
    for j in problem.nominal:
        nominal_search(problem, level, j, best)
    return best


def _numeric_search(problem: Problem, level: Level, start: int, stop: int, best: Best) -> None:
    """Evaluate every cut of numeric features ``start:stop`` at every node; offer each feature's best."""
    params = problem.params
    leaf = params.min_samples_leaf
    order = level.orders[start:stop]
    count, rows = order.shape
    starts = level.starts[:-1]
    sizes = np.diff(level.starts)
    segment = np.repeat(np.arange(len(sizes)), sizes)
    values = level.values[start:stop].astype(np.float64)
    present = np.add.reduceat((~np.isnan(values)).astype(np.int64), starts, axis=1)  # (features, nodes)
    n_missing = sizes - present
    cumulative = np.cumsum(problem.stats[:, order], axis=2)  # (statistics, features, rows)
    before = np.concatenate([np.zeros(cumulative.shape[:2] + (1,)), cumulative[:, :, starts[1:] - 1]], axis=2)
    left = cumulative - before[:, :, segment]  # cut after position p: the segment's rows up to p go left
    total = level.totals[:, None, segment]
    features = np.arange(count)[:, None]
    last_present = starts + np.maximum(present - 1, 0)
    present_stats = np.where(present > 0, left[:, features, last_present], 0.0)  # (stats, features, nodes)
    missing_stats = level.totals[:, None, :] - present_stats
    n_left = np.arange(rows) - starts[segment] + 1
    n_node = sizes[segment]
    distinct = np.zeros((count, rows), dtype=bool)
    with np.errstate(invalid="ignore"):
        distinct[:, :-1] = values[:, 1:] > values[:, :-1] + problem.tolerance
    distinct &= n_left < n_node  # a cut inside the segment
    first = values[:, starts]
    last = np.take_along_axis(values, last_present, axis=1)
    # as scikit-learn 1.9: present values all alike make a feature constant only without missing ones
    constant = (present == 0) | (~(last > first + problem.tolerance) & (n_missing == 0))

    # scikit-learn 1.9's order: cuts with the missing rows right, then "present left, missing
    # right", then cuts with the missing rows left; a later candidate must be strictly better
    right = total - left
    scores = proxy(params.criterion, left, right)
    scores[~(distinct & (n_left >= leaf) & (n_node - n_left >= leaf))] = -np.inf
    drop_light(problem, scores, left, right)
    score, position = _segment_argmax(scores, starts, segment)
    variant = np.zeros(score.shape, dtype=np.int64)
    if n_missing.any():
        score_split = proxy(params.criterion, present_stats, missing_stats)
        score_split[constant | (n_missing == 0) | (present < leaf) | (n_missing < leaf)] = -np.inf
        drop_light(problem, score_split, present_stats, missing_stats)
        better = score_split > score
        score, variant = np.where(better, score_split, score), np.where(better, 2, variant)
        with_missing = left + missing_stats[:, :, segment]
        right = total - with_missing
        scores = proxy(params.criterion, with_missing, right)
        missing_here = n_missing[:, segment]
        valid = (distinct & (missing_here > 0) & (n_left + missing_here >= leaf)
                 & (present[:, segment] - n_left >= leaf))
        scores[~valid] = -np.inf
        drop_light(problem, scores, with_missing, right)
        score_left, position_left = _segment_argmax(scores, starts, segment)
        better = score_left > score
        score, position = np.where(better, score_left, score), np.where(better, position_left, position)
        variant = np.where(better, 1, variant)

    low = np.take_along_axis(values, np.minimum(position, rows - 1), axis=1)
    high = np.take_along_axis(values, np.minimum(position + 1, rows - 1), axis=1)
    threshold = np.where(variant == 2, np.inf, midpoints(low, high))
    cut_left = position - starts + 1
    larger_left = cut_left > sizes - cut_left  # no missing seen: the larger child takes them
    missing_left = np.where(n_missing == 0, larger_left, variant == 1)
    for f in range(count):
        best.offer(score[f], np.full(len(sizes), problem.numeric[start + f]), threshold[f], missing_left[f])


def _segment_argmax(scores: np.ndarray, starts: np.ndarray, segment: np.ndarray):
    """Per feature and segment: the highest score and the first position holding it."""
    top = np.maximum.reduceat(scores, starts, axis=1)
    positions = np.where(scores == top[:, segment], np.arange(scores.shape[1]), scores.shape[1])
    return top, np.minimum.reduceat(positions, starts, axis=1)


def midpoints(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """scikit-learn's thresholds between consecutive values (``low`` itself when the midpoint
    rounds up to ``high`` or overflows)."""
    with np.errstate(invalid="ignore", over="ignore"):
        middle = low / 2.0 + high / 2.0
    return np.where((middle == high) | np.isinf(middle), low, middle)


def preorder(grown: Grown) -> Grown:
    """Renumber the nodes in pre-order, left child first (in place; the lists are re-ordered)."""
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(grown.children[node]))
    new_id = [0] * len(order)
    for new, old in enumerate(order):
        new_id[old] = new
    grown.total = [grown.total[old] for old in order]
    grown.impurity = [grown.impurity[old] for old in order]
    grown.split = [grown.split[old] for old in order]
    grown.children = [tuple(new_id[c] for c in grown.children[old]) for old in order]
    return grown
