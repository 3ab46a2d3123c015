"""Growing a CART tree level by level: every node of a depth is searched at once.

Per numeric feature, the rows of all the nodes of a level sit in one row of ``Level.orders``,
grouped node by node (a *segment* per node) and sorted by the feature's value within each
segment, missing last; a last row holds the same rows in row order. One running sum along a row,
less its value where a segment starts, gives the statistics left of every cut of every node; a
segmented maximum picks each node's best cut. The children's segments are then cut out of the
parent's in place by a stable partition, so values are sorted once, at the root. The number of
numpy calls grows with the depth of the tree, not its size.

Memory: besides a few numbers per row (its statistics), the orders (one int32 per row and numeric
feature, plus one) are all that lives as long as the growth -- about what scikit-learn's float32
copy of X takes; values are read from the dataset's own columns a block at a time, and the search
works through each level in blocks of :data:`BLOCK_CELLS` (positions x features) that fit in a
core's cache, carrying the running sums from one block to the next -- the very sums one pass over
the whole row gives.

Ties are broken as scikit-learn 1.9's splitter does within a feature (cuts with the missing rows
sent right, then "present left, missing right", then cuts with the missing rows sent left; the
first of equals) and by the lower feature index across features. Nodes are created level by
level, then renumbered in pre-order, left first: scikit-learn's node ids.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..data import Dataset
from ..errors import TreegenError
from . import libm
from .cart_nominal import nominal_search
from ..progress import settled
from .cart_problem import (EPSILON, LOG2, Grown, Params, Problem, category_names, drop_light,
                           exact_near_best, node_impurities)

BLOCK_CELLS = 1 << 15  # positions x features searched at once: a few hundred KB per array


@dataclass
class Level:
    """The nodes of one depth: their rows (one row of ``orders`` per numeric feature, sorted by it
    within each node's segment, plus a last row of the same rows in row order), segment starts,
    statistics, impurities and parents. ``orders`` is a view of the first columns of one buffer,
    which every level reuses in place."""

    orders: np.ndarray  # (numeric features + 1, rows)
    starts: np.ndarray  # (nodes + 1,) segment boundaries
    totals: np.ndarray  # (statistics, nodes)
    squares: np.ndarray  # (nodes,) regression: sum of w*y*y
    parents: np.ndarray  # each node's parent id (-1 for the root)
    impurity: np.ndarray  # (nodes,) as scikit-learn records them (see _child_impurities)

    @property
    def sizes(self) -> np.ndarray:
        return np.diff(self.starts)

    def segment_of_positions(self) -> np.ndarray:
        """The segment (node) of every position of a row."""
        return np.repeat(np.arange(len(self.starts) - 1), self.sizes)


@dataclass
class Best:
    """The best split found so far for each node of a level. For numeric splits, ``cut`` rows of
    the node's segment (sorted by the feature) go left, and ``present`` of them hold a value."""

    score: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    missing_left: np.ndarray
    cut: np.ndarray
    present: np.ndarray
    codes: dict  # node -> the category codes a nominal split sends left (numeric splits: absent)

    @classmethod
    def empty(cls, nodes: int) -> "Best":
        return cls(np.full(nodes, -np.inf), np.full(nodes, -1), np.full(nodes, np.nan),
                   np.zeros(nodes, dtype=bool), np.zeros(nodes, dtype=np.int64),
                   np.zeros(nodes, dtype=np.int64), {})

    def beaten_by(self, score, feature) -> np.ndarray:
        """Per node: a split of this score on this feature is the better one."""
        return (score > self.score) | ((score == self.score) & (feature < self.feature) & (score > -np.inf))

    def offer(self, score, feature, threshold, missing_left, codes=None, cut=0, present=0, better=None) -> None:
        """Keep, node by node, the better split: the higher score, else the lower feature index.
        ``codes(node)`` gives a nominal split's categories sent left; ``better``: :meth:`beaten_by`, where the
        caller has it."""
        better = self.beaten_by(score, feature) if better is None else better
        self.score = np.where(better, score, self.score)
        self.feature = np.where(better, feature, self.feature)
        self.threshold = np.where(better, threshold, self.threshold)
        self.missing_left = np.where(better, missing_left, self.missing_left)
        self.cut = np.where(better, cut, self.cut)
        self.present = np.where(better, present, self.present)
        if codes is not None:
            for s in np.flatnonzero(better).tolist():
                self.codes[s] = codes(s)
        elif self.codes:  # a numeric split now beats a nominal one found before
            for s in np.flatnonzero(better).tolist():
                self.codes.pop(s, None)


class _Nodes:
    """The nodes made so far, level by level, numbered in the order they are made (breadth first)."""

    def __init__(self):
        self.totals, self.impurities, self.parents = [], [], []
        self.features, self.thresholds, self.missing_left = [], [], []  # per level: the splits made
        self.values: dict = {}  # node id -> a nominal split's categories sent left
        self.count = 0

    def add(self, level: "Level", impurity: np.ndarray) -> np.ndarray:
        """Number a level's nodes; their ids."""
        ids = np.arange(self.count, self.count + len(impurity))
        self.count += len(impurity)
        self.totals.append(level.totals.T)
        self.impurities.append(impurity)
        self.parents.append(level.parents)
        self.features.append(np.full(len(impurity), -1))
        self.thresholds.append(np.full(len(impurity), np.nan))
        self.missing_left.append(np.zeros(len(impurity), dtype=bool))
        return ids

    def split(self, problem: Problem, splitting: np.ndarray, best: "Best", chosen: np.ndarray) -> None:
        """Record the splits of the last level's nodes marked in ``splitting``: ``best``'s at ``chosen``."""
        self.features[-1][splitting] = best.feature[chosen]
        self.thresholds[-1][splitting] = best.threshold[chosen]
        self.missing_left[-1][splitting] = best.missing_left[chosen]
        first = self.count - len(splitting)
        for node, s in zip(np.flatnonzero(splitting).tolist(), chosen.tolist()):
            if s in best.codes:
                self.values[first + node] = category_names(problem, int(best.feature[s]), best.codes[s])

    def grown(self, width: int) -> Grown:
        """The tree, renumbered in pre-order, left child first: scikit-learn's node ids. Each
        level's arrays are moved to their new places and let go one at a time: the tree's
        arrays are never held twice."""
        parents = np.concatenate(self.parents)
        children = np.full((self.count, 2), -1, dtype=np.int64)
        child = np.arange(1, self.count)
        children[parents[1:], (child - 1) % 2] = child  # each level: left, right, left, right, ...
        del parents, child
        new_id = _preorder_ids(children, [len(p) for p in self.parents])
        inner = children[:, 0] >= 0
        children[inner] = new_id[children[inner]]
        del inner
        placed = np.empty_like(children)
        placed[new_id] = children
        del children
        values = {int(new_id[i]): v for i, v in self.values.items()}
        return Grown(width, _placed(new_id, self.totals), _placed(new_id, self.impurities), placed,
                     _placed(new_id, self.features), _placed(new_id, self.thresholds),
                     _placed(new_id, self.missing_left), values)


def _placed(new_id: np.ndarray, levels: list) -> np.ndarray:
    """The arrays of ``levels`` (emptied) as one, each row at its node's new id."""
    out = np.empty((len(new_id),) + levels[0].shape[1:], dtype=levels[0].dtype)
    start = 0
    for part in levels:
        out[new_id[start:start + len(part)]] = part
        start += len(part)
    levels.clear()
    return out


def _preorder_ids(children: np.ndarray, level_sizes: list[int]) -> np.ndarray:
    """The pre-order id of each breadth-first node: each subtree's size from the deepest level up,
    then each node's place from the root down (a left child right after its parent, the right
    child after the left one's subtree)."""
    ends = np.cumsum(level_sizes)
    levels = list(zip(ends - np.asarray(level_sizes), ends))  # each level's id range
    size = np.ones(len(children), dtype=np.int64)
    for lo, hi in reversed(levels):
        left, right = children[lo:hi, 0], children[lo:hi, 1]
        inner = left >= 0
        size[lo:hi][inner] += size[left[inner]] + size[right[inner]]
    place = np.zeros(len(children), dtype=np.int64)
    for lo, hi in levels:
        left, right = children[lo:hi, 0], children[lo:hi, 1]
        inner = left >= 0
        place[left[inner]] = place[lo:hi][inner] + 1
        place[right[inner]] = place[lo:hi][inner] + 1 + size[left[inner]]
    return place


def grow(dataset: Dataset, params: Params) -> Grown:
    """Grow the full tree (no recursion anywhere: any depth works)."""
    problem = Problem(dataset, params)
    rows = len(problem.learned)
    if rows == 0:
        raise TreegenError("every row has weight zero: nothing to learn from")
    index = np.int32 if problem.size < 2 ** 31 else np.int64  # row numbers: half the memory
    orders = np.empty((len(problem.numeric) + 1, rows), dtype=index)
    for f in range(len(problem.numeric)):
        orders[f] = problem.sorted_rows(f)  # values sorted once; missing last
    orders[-1] = problem.learned
    totals, squares = problem.sums(problem.learned)
    root_impurity = node_impurities(params.criterion, totals[:, None], np.array([squares]))
    level = Level(orders, np.array([0, rows]), totals[:, None], np.array([squares]), np.array([-1]), root_impurity)
    nodes = _Nodes()
    root_weight = _weights(totals[:, None], problem.width)[0]
    depth = 0
    while level is not None:
        level = _grow_level(problem, nodes, level, depth, root_weight)
        depth += 1
    return nodes.grown(problem.width)


def _grow_level(problem: Problem, nodes: _Nodes, level: Level, depth: int, root_weight: float):
    """Add a level's nodes, split those that may be split; the next level or None."""
    params = problem.params
    impurity = level.impurity
    ids = nodes.add(level, impurity)
    settling = np.add.reduceat(problem.base_weights[level.orders[-1]], level.starts[:-1])
    sizes = level.sizes
    # scikit-learn's tests, as written: a NaN impurity (a target beyond 1e154) leaves a node open
    open_ = ((depth < params.max_depth) & (sizes >= params.min_samples_split) & ~(impurity <= EPSILON)
             & (_weights(level.totals, problem.width) >= 2 * problem.min_weight_leaf)
             & ~(_single_target(problem, level) & np.isfinite(impurity)))
    splitting = np.zeros(len(ids), dtype=bool)
    if open_.any():
        level = _only(level, open_)
        best = search(problem, level)
        goes_left = _goes_left(problem, level, best)
        sides = _side_statistics(problem, level, goes_left)
        children = _child_impurities(problem, level, sides)
        improvement = _improvement(problem, level.totals, level.impurity, sides, children, root_weight)
        split = (best.score > -np.inf) & ~(improvement + EPSILON < params.min_impurity_decrease)
        splitting[open_] = split
    settled(float(settling[~splitting].sum()))
    if not splitting.any():
        return None
    nodes.split(problem, splitting, best, np.flatnonzero(split))
    return _children(level, split, goes_left, sides, children, ids[splitting])


def _single_target(problem: Problem, level: Level) -> np.ndarray:
    """Per node: regression, and all its rows hold one target value -- a leaf, whatever rounding
    leaves of its impurity. (scikit-learn splits such a node when the residue of its running sums
    exceeds EPSILON; that residue depends on the order its random_state visits features in, so no
    fixed rule reproduces it. Not so when the node's impurity is NaN or inf: its improvement is
    then NaN or inf, which stops no split, and the caller searches it. A pure class node's impurity
    is 0 exactly here: no such test needed.)"""
    if problem.width:
        return np.zeros(len(level.starts) - 1, dtype=bool)
    y = problem.y[level.orders[-1]]
    starts = level.starts[:-1]
    return np.minimum.reduceat(y, starts) == np.maximum.reduceat(y, starts)


def _side_statistics(problem: Problem, level: Level, goes_left: np.ndarray) -> tuple:
    """Per node: statistics and sums of w*y*y of its left and right child (one statistic at a
    time, to keep the working memory to a row's worth)."""
    members = level.orders[-1]
    starts = level.starts[:-1]
    left = goes_left[members]
    right = ~left
    left_stats = np.empty((len(problem.stats), len(starts)))
    right_stats = np.empty_like(left_stats)
    for k, statistic in enumerate(problem.stats):
        values = statistic[members]
        left_stats[k] = np.add.reduceat(values * left, starts)
        right_stats[k] = np.add.reduceat(values * right, starts)
    if problem.squares is None:
        return left_stats, right_stats, np.zeros(len(starts)), np.zeros(len(starts))
    squares = problem.squares[members]  # chosen, not multiplied: a row's square of inf times 0 would be NaN
    return (left_stats, right_stats, np.add.reduceat(_kept(squares, left), starts),
            np.add.reduceat(_kept(squares, right), starts))


def _kept(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """``np.where(mask, values, 0.0)`` for float64 ``values``, by masking their bits (all or none):
    exact, inf kept, and without ``where``'s branch per element, which a random mask mispredicts."""
    bits = mask.view(np.int8).astype(np.int64)
    np.negative(bits, out=bits)  # 1 -> every bit set
    bits &= values.view(np.int64)
    return bits.view(np.float64)


def _child_impurities(problem: Problem, level: Level, sides) -> tuple[np.ndarray, np.ndarray]:
    """Per node: the impurities of its left and right child as scikit-learn's ``children_impurity``
    gives them. It takes the right child's sum of w*y*y as the node's less the left child's: where
    the node's overflowed (a target beyond 1e154), that is inf, or inf - inf = NaN, whatever the
    right rows' own sum -- and a NaN impurity never makes a leaf. Elsewhere the right rows' own sum,
    which differs from that difference by rounding only (though with targets of widely different
    sizes, rounding can decide scikit-learn's leaves: see :mod:`treegen.learn.cart`). The children's
    own sums are what their splits start from, as scikit-learn sums each node's anew."""
    left, right, left_squares, right_squares = sides
    overflowed = np.isinf(level.squares)
    if overflowed.any():
        right_squares = np.where(overflowed, level.squares - left_squares, right_squares)
    criterion = problem.criterion
    return node_impurities(criterion, left, left_squares), node_impurities(criterion, right, right_squares)


def _improvement(problem: Problem, totals, impurity, sides, children, root_weight: float) -> np.ndarray:
    """scikit-learn's weighted impurity decrease of each node's split."""
    left, right = sides[:2]
    left_impurity, right_impurity = children
    weight, w_left, w_right = (_weights(t, problem.width) for t in (totals, left, right))
    with np.errstate(invalid="ignore", divide="ignore"):
        return weight / root_weight * (impurity - w_right / weight * right_impurity - w_left / weight * left_impurity)


def _weights(totals: np.ndarray, width: int) -> np.ndarray:
    return totals.sum(0) if width else totals[0]


def _only(level: Level, keep: np.ndarray) -> Level:
    """Restrict the level, in place, to the nodes marked in ``keep`` (their segments, in order)."""
    if keep.all():
        return level
    sizes = level.sizes
    positions = np.flatnonzero(np.repeat(keep, sizes))
    for row in level.orders:  # one row at a time, into the front of the same buffer
        row[:len(positions)] = row[positions]
    level.orders = level.orders[:, :len(positions)]
    level.starts = np.concatenate([[0], np.cumsum(sizes[keep])])
    level.totals, level.squares = level.totals[:, keep], level.squares[keep]
    level.parents, level.impurity = level.parents[keep], level.impurity[keep]
    return level


def _children(level: Level, split: np.ndarray, goes_left: np.ndarray, sides, impurities, parents) -> Level:
    """The next level (``impurities``: the children's, as :func:`_child_impurities` gives them):
    each split node's segment cut, in place, into its left then right child's, stably, one row of
    ``orders`` at a time. A position's new place is its child's start plus the rows of the same
    child before it: for a left row, the left rows before it in its segment; for a right row, the
    node's left count plus the right rows before it."""
    sizes = level.sizes
    everything = split.all()
    kept = None if everything else np.flatnonzero(np.repeat(split, sizes))  # the split nodes' rows
    split_sizes = sizes[split]
    members = level.orders[-1] if everything else level.orders[-1, kept]
    rank = np.repeat(np.arange(len(split_sizes)), split_sizes)  # per kept position: its node
    left_sizes = np.bincount(rank, weights=goes_left[members], minlength=len(split_sizes)).astype(np.int64)
    begin = np.concatenate([[0], np.cumsum(split_sizes)[:-1]])  # each node's first kept position
    lefts_before = np.concatenate([[0], np.cumsum(left_sizes)[:-1]])  # left rows of earlier nodes
    # with c = left rows up to and including a position (over the whole row), a left row goes to
    # begin + (c - 1 - lefts_before), a right row to begin + left + (i - begin) - (c - lefts_before)
    index = np.int32 if len(members) < 2 ** 31 else np.int64
    to_left = (begin - 1 - lefts_before).astype(index)[rank]
    to_right = (left_sizes + lefts_before).astype(index)[rank] + np.arange(len(members), dtype=index)
    for row in level.orders:
        rows = row[:len(members)].copy() if everything else np.take(row, kept)
        is_left = np.take(goes_left, rows)
        seen = np.cumsum(is_left, dtype=index)
        row[_select(is_left, to_left + seen, to_right - seen)] = rows
    child_sizes = np.column_stack([left_sizes, split_sizes - left_sizes]).ravel()
    starts = np.concatenate([[0], np.cumsum(child_sizes)])
    left, right, left_squares, right_squares = sides
    child_totals = np.stack([left[:, split], right[:, split]], axis=2).reshape(left.shape[0], -1)
    child_squares = np.column_stack([left_squares[split], right_squares[split]]).ravel()
    child_parents = np.repeat(parents, 2)
    child_impurity = np.column_stack([impurities[0][split], impurities[1][split]]).ravel()
    return Level(level.orders[:, :len(members)], starts, child_totals, child_squares, child_parents, child_impurity)


def _select(mask: np.ndarray, if_true: np.ndarray, if_false: np.ndarray) -> np.ndarray:
    """``np.where(mask, if_true, if_false)`` for integer arrays (``if_false`` overwritten), by
    arithmetic: numpy's ``where`` branches on each element, and a mask as random as a split's
    sides costs it a misprediction every other element (about ten times the arithmetic)."""
    if_true -= if_false  # (both lie in [0, rows): no overflow)
    if_true *= mask
    if_false += if_true
    return if_false


def _goes_left(problem: Problem, level: Level, best: Best) -> np.ndarray:
    """Per dataset row (only the level's rows matter): goes left at its node. A numeric split
    sends left the first ``cut`` rows of the node's segment in its feature's order, and the
    missing ones (the segment's tail after ``present``) if they go left."""
    out = np.zeros(problem.size, dtype=bool)
    starts, sizes = level.starts[:-1], level.sizes
    segment = level.segment_of_positions()
    numeric = np.isin(best.feature, problem.numeric)
    if numeric.any():
        position = np.flatnonzero(numeric[segment])
        node = segment[position]
        row_of_feature = np.searchsorted(problem.numeric, best.feature)  # per node, not per row
        rows = level.orders[row_of_feature[node], position]
        offset = position - starts[node]
        out[rows] = (offset < best.cut[node]) | ((offset >= best.present[node]) & best.missing_left[node])
    members = level.orders[-1]
    for s in np.flatnonzero(~numeric & (best.feature >= 0)):
        rows = members[starts[s]:starts[s] + sizes[s]]
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
    if features:
        geometry = _Geometry(problem, level)
        chunk = max(1, BLOCK_CELLS // max(1, rows))
        for start in range(0, features, chunk):
            _NumericSearch(problem, level, geometry, start, min(start + chunk, features)).offer(best)
    for j in problem.nominal:
        if problem.categories[j]:  # one with none (every row missing) has no split to offer
            nominal_search(problem, level, j, best)
    return best


class _Geometry:
    """What every numeric feature of a level shares: each position's segment, how many rows of
    its segment lie at or before it, and whether a cut after it leaves both sides enough rows."""

    def __init__(self, problem: Problem, level: Level):
        leaf = problem.params.min_samples_leaf
        self.starts = level.starts[:-1]
        self.sizes = level.sizes
        self.segment = level.segment_of_positions()
        self.n_left = np.arange(level.orders.shape[1]) - self.starts[self.segment] + 1
        n_node = self.sizes[self.segment]
        self.n_left_float = self.n_left.astype(np.float64)
        self.n_right_float = (n_node - self.n_left).astype(np.float64)
        self.inside = self.n_left < n_node  # a cut after the position leaves rows on the right
        self.cuttable = self.inside & (self.n_left >= leaf) & (n_node - self.n_left >= leaf)


class _NumericSearch:
    """Every cut of numeric features ``first:stop`` at every node of a level, block by block; each
    feature's best offered to :class:`Best`.

    Running sums go along each feature's row of positions; a block starts its sums from the last
    sum of the block before, so every sum is the one a single pass over the row gives, and the
    statistics left of a cut are that sum less the sum just before the node's segment."""

    def __init__(self, problem: Problem, level: Level, geometry: _Geometry, first: int, stop: int):
        self.problem, self.level, self.geo = problem, level, geometry
        self.first, self.stop = first, stop
        self.count = stop - first
        self.rows = level.orders.shape[1]
        nodes = len(geometry.sizes)
        self.block = max(1, BLOCK_CELLS // self.count)
        self.n_missing = self._missing_counts()
        self.present = geometry.sizes - self.n_missing  # (features, nodes)
        self.last_present = geometry.starts + np.maximum(self.present - 1, 0)
        statistics = len(problem.stats)
        self.present_stats = np.zeros((statistics, self.count, nodes))
        self.missing_stats = None

    def _missing_counts(self) -> np.ndarray:
        """Per feature and node: rows without a value (the tail of its segment)."""
        out = np.zeros((self.count, len(self.geo.sizes)), dtype=np.int64)
        members = self.level.orders[-1]
        for i in range(self.count):
            if self.problem.has_missing[self.first + i]:
                missing = np.isnan(self.problem.columns[self.first + i][members]).astype(np.int64)
                out[i] = np.add.reduceat(missing, self.geo.starts)
        return out

    def offer(self, best: Best) -> None:
        geo = self.geo
        score, position = self._pass(missing_left=False)
        variant = np.zeros(score.shape, dtype=np.int64)
        if self.n_missing.any():
            # scikit-learn 1.9's order: after the cuts with the missing rows right, "present left,
            # missing right", then the cuts with the missing rows left; later ones must be better
            self.missing_stats = self.level.totals[:, None, :] - self.present_stats
            score_split = search_scores(self.problem.criterion, self.present_stats, self.missing_stats)
            leaf = self.problem.params.min_samples_leaf
            score_split[(self.n_missing == 0) | (self.present < leaf) | (self.n_missing < leaf)] = -np.inf
            drop_light(self.problem, score_split, self.present_stats, self.missing_stats)
            better = score_split > score
            score, variant = np.where(better, score_split, score), np.where(better, 2, variant)
            score_left, position_left = self._pass(missing_left=True)
            better = score_left > score
            score, position = np.where(better, score_left, score), np.where(better, position_left, position)
            variant = np.where(better, 1, variant)
        cut = np.where(variant == 2, self.present, position - geo.starts + 1)
        larger_left = cut > geo.sizes - cut  # no missing seen: the larger child takes them
        missing_left = np.where(self.n_missing == 0, larger_left, variant == 1)
        for f in range(self.count):
            feature = np.full(len(geo.sizes), self.problem.numeric[self.first + f])
            # thresholds of the nodes whose best split this is so far only: reading the values
            # round every node's cut for every feature cost more than the rest of this method
            better = best.beaten_by(score[f], feature)
            taken = np.flatnonzero(better)
            threshold = np.full(len(geo.sizes), np.nan)
            threshold[taken] = self._thresholds(f, position[f, taken], variant[f, taken])
            best.offer(score[f], feature, threshold, missing_left[f], cut=cut[f], present=self.present[f],
                       better=better)

    def _thresholds(self, f: int, position: np.ndarray, variant: np.ndarray) -> np.ndarray:
        """The thresholds of cuts after ``position`` in feature ``f``'s row (``variant`` 2: inf)."""
        low = self._values_at(f, np.minimum(position, self.rows - 1))
        high = self._values_at(f, np.minimum(position + 1, self.rows - 1))
        return np.where(variant == 2, np.inf, midpoints(low, high))

    def _values_at(self, f: int, positions: np.ndarray) -> np.ndarray:
        """Values at given positions of feature ``f``'s row."""
        return self.problem.values(self.first + f, self.level.orders[self.first + f, positions])

    def _pass(self, missing_left: bool):
        """One pass over the rows: per feature and node, the best score of the cuts of one kind
        and the first position holding it. Per-node quantities reach the positions of a block by
        ``np.repeat`` over the block's runs of segments (much cheaper than a gather)."""
        geo, problem = self.geo, self.problem
        nodes = len(geo.sizes)
        score = np.full((self.count, nodes), -np.inf)
        position = np.broadcast_to(geo.starts, (self.count, nodes)).copy()
        running = _RunningSums(problem, self.count, nodes)
        orders = self.level.orders[self.first:self.stop]
        stacked = problem.counted is None or bool(self.n_missing.any())
        for begin in range(0, self.rows, self.block):
            end = min(begin + self.block, self.rows)
            order = orders[:, begin:end]
            first, last = geo.segment[begin], geo.segment[end - 1]
            opening = geo.starts[first + 1:last + 1]  # segments that start inside the block
            runs = np.diff(np.concatenate([[begin], opening, [end]]))
            span = slice(first, last + 1)
            sums = running.next_block(order, begin, first, last, opening, runs, geo.starts[first] == begin)
            left = self._left(sums, begin, end, stacked)
            cuts = self._distinct(order, begin, end)
            if missing_left:
                left += np.repeat(self.missing_stats[:, :, span], runs, axis=2)
                cuts &= self._cuttable_with_missing_left(begin, end, runs, span)
            else:
                cuts &= geo.cuttable[begin:end]
                self._keep_present_stats(left, begin, end)
            right = self._right(left, begin, end, runs, span)
            scores = search_scores(problem.criterion, left, right, libm.quick_log)
            np.logical_not(cuts, out=cuts)
            np.putmask(scores, cuts, -np.inf)
            drop_light(problem, scores, left, right)
            top, at = _first_maxima(scores, runs)
            if exact_near_best(problem.criterion, scores, lambda: np.repeat(top, runs, axis=1), left, right,
                               lambda left, right: search_scores(problem.criterion, left, right)):
                top, at = _first_maxima(scores, runs)
            at += begin
            better = top > score[:, span]
            score[:, span] = np.where(better, top, score[:, span])
            position[:, span] = np.where(better, at, position[:, span])
        return score, position

    def _left(self, sums: np.ndarray, begin: int, end: int, stacked: bool):
        """The statistics left of each cut, (statistics, features, positions): the summed ones
        and, with unit weights, the counted one -- as a list of rows (the count row shared by
        every feature) unless a stacked array is wanted."""
        problem = self.problem
        if problem.counted is None:
            return sums
        n_left = self.geo.n_left_float[begin:end]
        if problem.width:  # the last class: the rows less the other classes (exact: counts)
            counted = np.broadcast_to(n_left, sums.shape[1:]).copy()
            for k in range(len(sums)):
                counted -= sums[k]
            rows = [*sums, counted]
        else:
            rows = [n_left, sums[0]]
        if stacked:
            return np.stack(np.broadcast_arrays(*rows))
        return rows

    def _right(self, left, begin: int, end: int, runs: np.ndarray, span: slice):
        """The statistics right of each cut: the node's less the left ones (a regression node's
        weight right of a cut, with unit weights: its rows there)."""
        totals = self.level.totals[:, None, span]
        if isinstance(left, np.ndarray):
            return np.repeat(totals, runs, axis=2) - left
        counted = 0 if self.problem.width else 1  # regression: the weight right is counted
        right = [np.repeat(totals[k], runs, axis=1) - left[k] for k in range(counted, len(left))]
        return right if self.problem.width else [self.geo.n_right_float[begin:end], *right]

    def _cuttable_with_missing_left(self, begin: int, end: int, runs: np.ndarray, span: slice) -> np.ndarray:
        """Cuts that, with the missing rows sent left, leave both sides enough rows."""
        leaf = self.problem.params.min_samples_leaf
        n_left = self.geo.n_left[begin:end]
        missing_here = np.repeat(self.n_missing[:, span], runs, axis=1)
        return (self.geo.inside[begin:end] & (missing_here > 0) & (n_left + missing_here >= leaf)
                & (np.repeat(self.present[:, span], runs, axis=1) - n_left >= leaf))

    def _distinct(self, order: np.ndarray, begin: int, end: int) -> np.ndarray:
        """Per feature and position of a block: the next value of the row is larger, by
        scikit-learn's rule -- a cut may follow."""
        problem = self.problem
        values = np.empty((self.count, end - begin + 1), dtype=problem.compared_dtype)
        for i in range(self.count):
            problem.compared(self.first + i, order[i], out=values[i, :-1])
            follower = self.level.orders[self.first + i, end:end + 1]
            if len(follower):
                problem.compared(self.first + i, follower, out=values[i, -1:])
            else:
                values[i, -1] = np.nan
        return problem.follows(values)

    def _keep_present_stats(self, left: np.ndarray, begin: int, end: int) -> None:
        """Keep the statistics left of each node's last present value, if it lies in this block."""
        if not self.n_missing.any():
            return
        f, node = np.nonzero((self.last_present >= begin) & (self.last_present < end) & (self.present > 0))
        self.present_stats[:, f, node] = left[:, f, self.last_present[f, node] - begin]


class _RunningSums:
    """The running sums of the summed statistics along each feature's row of a level, block after
    block: each block starts from the last sum of the one before (``carry``), so every sum is the
    one a single pass over the row gives; ``base`` holds each segment's sum just before it."""

    def __init__(self, problem: Problem, count: int, nodes: int):
        self.problem = problem
        self.summed = _summed_rows(problem)
        statistics = self.summed.stop - self.summed.start
        self.carry = np.zeros((statistics, count))
        self.base = np.zeros((statistics, count, nodes))
        self.ones = problem.class_ones  # the summed rows as 0 and 1 in bytes, if they are

    def next_block(self, order, begin: int, first: int, last: int, opening, runs, fresh: bool) -> np.ndarray:
        """The summed statistics left of each cut of a block, (statistics, features, positions),
        whose positions from ``begin`` lie in segments ``first`` to ``last``; ``opening``: the
        starts of those after the first, which starts in the block too if ``fresh``."""
        if self.ones is None:
            sums = np.take(self.problem.stats[self.summed], order, axis=1)
            sums[:, :, 0] += self.carry  # continue the running sum of the blocks before
            np.cumsum(sums, axis=2, out=sums)
        else:  # whole numbers: summed in integers (several times faster than doubles), the same sums
            sums = np.cumsum(np.take(self.ones, order, axis=1), axis=2, dtype=np.int32).astype(np.float64)
            sums += self.carry[:, :, None]
        self.base[:, :, first + 1:last + 1] = sums[:, :, opening - 1 - begin]
        if fresh:
            self.base[:, :, first] = self.carry
        self.carry = sums[:, :, -1].copy()
        sums -= np.repeat(self.base[:, :, first:last + 1], runs, axis=2)
        return sums


def _first_maxima(scores: np.ndarray, runs: np.ndarray):
    """Per row of ``scores`` and run of positions (runs of lengths ``runs``): the maximum and the
    first position holding it.

    Runs of a few positions (deep levels) go into a padded (rows, runs, longest) array, where
    ``argmax`` finds both at once: ``reduceat`` pays some 30 ns a run, more than the work."""
    width = scores.shape[1]
    local_starts = np.concatenate([[0], np.cumsum(runs)[:-1]])
    longest = int(runs.max())
    if longest <= 32 and len(runs) * 16 > width:
        padded = np.full((len(scores), len(runs), longest), -np.inf)
        run = np.repeat(np.arange(len(runs)), runs)
        padded[:, run, np.arange(width) - local_starts[run]] = scores
        first = padded.argmax(axis=2)
        top = np.take_along_axis(padded, first[:, :, None], axis=2)[:, :, 0]
        return top, local_starts + first
    top = np.maximum.reduceat(scores, local_starts, axis=1)
    at = np.where(scores == np.repeat(top, runs, axis=1), np.arange(width, dtype=np.int32), np.int32(width))
    return top, np.minimum.reduceat(at, local_starts, axis=1).astype(np.int64)


def _summed_rows(problem: Problem) -> slice:
    """The statistics the search sums along the rows: all of them, or, with every weight 1, all
    but the one counted from the rows (regression's weight, the last class's)."""
    statistics = len(problem.stats)
    if problem.counted is None:
        return slice(0, statistics)
    return slice(1, statistics) if problem.counted == 0 else slice(0, statistics - 1)


def search_scores(criterion: str, left: np.ndarray, right: np.ndarray, log=libm.log) -> np.ndarray:
    """scikit-learn's proxy of the impurity improvement (larger is better) for candidate splits
    whose sides hold ``left`` and ``right`` on their first axis -- bit for bit
    :func:`~treegen.learn.cart_problem.proxy`, with fewer temporaries: sums over the classes in
    their order, and ``-a - b`` written ``-(a + b)``, which rounds alike."""
    with np.errstate(all="ignore"):
        if criterion == "squared_error":
            out = left[1] * left[1]
            out /= left[0]
            other = right[1] * right[1]
            other /= right[0]
            out += other
            return out
        if criterion == "gini":
            out = _weighted_gini(left)
            out += _weighted_gini(right)
            np.negative(out, out=out)
            return out
        out = _weighted_entropy_sum(left, log)
        out += _weighted_entropy_sum(right, log)
        return out


def _weighted_gini(counts: np.ndarray) -> np.ndarray:
    """``w * (1 - sum(c*c) / (w*w))`` with ``w`` the sum of ``counts`` over the classes."""
    weight = counts[0] + counts[1] if len(counts) > 1 else counts[0].copy()
    squares = counts[0] * counts[0]
    for k in range(1, len(counts)):
        weight_k = counts[k] * counts[k]
        squares += weight_k
        if k >= 2:
            weight += counts[k]
    denominator = weight * weight
    squares /= denominator
    np.subtract(1.0, squares, out=squares)
    squares *= weight
    return squares


def _weighted_entropy_sum(counts: np.ndarray, log) -> np.ndarray:
    """``w * sum(p * log2 p)`` over the classes with counts > 0 (minus ``w`` times the entropy)."""
    weight = counts[0] + counts[1] if len(counts) > 1 else counts[0].copy()
    for k in range(2, len(counts)):
        weight += counts[k]
    total = None
    for k in range(len(counts)):
        positive = counts[k] > 0
        p = counts[k] / weight
        term = log(np.where(positive, p, 1.0))
        term /= LOG2
        term *= p
        term[~positive] = 0.0
        total = term if total is None else total + term
    total *= weight
    return total


def midpoints(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """scikit-learn's thresholds between consecutive values (``low`` itself when the midpoint
    rounds up to ``high`` or overflows)."""
    with np.errstate(invalid="ignore", over="ignore"):
        middle = low / 2.0 + high / 2.0
    return np.where((middle == high) | np.isinf(middle), low, middle)
