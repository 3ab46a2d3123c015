"""Vectorised walk of many rows through one tree: the node path of every row at once, level by level.

The model's own answers for many rows at once: used by `treegen verify`, the rule-text runner, the
estimator API and CART's cross-validation. Rows come as encoded columns (numeric float64 with NaN,
nominal int codes with -1 for missing or unknown), or one array of them (:func:`as_matrix`). A row
whose value is missing at a fractional route (C4.5) has no single path: its walk stops there, and
:func:`tree_outputs` hands it to the model's own walk.
"""
from __future__ import annotations

import math
from itertools import chain
from functools import cached_property
from typing import Any, Callable, Iterator, Mapping, Sequence, Union

import numpy as np

from .collector import collector_paused
from .model import (CombineKind, Decision, Feature, Model, Node, NodeColumns, Op, Precision, Route, Split, Tree,
                    category_of, has_label_values, is_missing, number_of, reached, tree_output)

Columns = Union[list, np.ndarray]  # encoded columns, or the (features, rows) array of them (as_matrix)
MISSING, UNKNOWN = -1, -2  # category codes of a missing value and of a category the feature does not know
CHAIN_ROWS = 256  # rows enough at one split to walk a chain below it by binary searches (_Walk.follow_chain)
LOCKSTEP_DEPTH = 48  # a tree no deeper is walked by every row at every level (_Lockstep): scikit-learn's
# trees of depth 30-40, 1.5-2.6x faster than level by level; as fast at depth 93; a chain of 64, 2.4x slower


def node_paths(model: Model, tree: Tree, columns: Columns) -> np.ndarray:
    """Node ids from the root to where each row ends, one row per input row.

    Returns an int array (rows, levels); a row that ends early repeats its last node.
    """
    return np.stack(list(_levels(_Walk.of(model, tree), as_matrix(columns), every_level=True)), axis=1)


def node_ends(model: Model, tree: Tree, columns: Columns) -> np.ndarray:
    """The node where each row ends (a leaf, or a node whose missing route is "stop" or fractional)."""
    walk, values = _Walk.of(model, tree), as_matrix(columns)
    if walk.lockstep is not None:
        return walk.lockstep.ends(values)
    for current in _levels(walk, values, every_level=False):
        pass
    return current


def tree_outputs(model: Model, tree: Tree, columns: Columns,
                 row: Callable[[int], Mapping[str, Any]], labels: bool = False) -> np.ndarray:
    """Each row's output of one tree (rows, width), exactly as :func:`treegen.model.tree_output`
    gives it: the value of the node the row ends at, or, for a row stopped at a fractional route,
    the model's own walk of ``row(i)``. With ``labels``, the label sums (``deciding_value``)."""
    if isinstance(tree.nodes, NodeColumns):  # no label values, linear leaves or fractional routes
        return tree.nodes.value[node_ends(model, tree, columns)]
    values = np.array([node.deciding_value if labels else node.value for node in tree.nodes], dtype=np.float64)
    ends = node_ends(model, tree, columns)
    out = values[ends]  # a leaf's value as it is: -0.0 stays -0.0, as in tree_output
    linear = [i for i, node in enumerate(tree.nodes) if node.linear is not None]
    if linear:  # the rows at a linear leaf, then each leaf reached (not a pass over all rows per leaf)
        at_linear = np.flatnonzero(np.isin(ends, linear))
        for leaf in np.unique(ends[at_linear]).tolist():
            at = at_linear[ends[at_linear] == leaf]
            out[at, 0] = linear_values(model, tree.nodes[leaf], columns, at)
    for i in spread_rows(tree, ends):
        out[i] = tree_output(model, tree, row(i), labels)
    return out


def spread_rows(tree: Tree, ends: np.ndarray) -> list[int]:
    """The rows that ended at a fractional route (C4.5): they go on down every branch, by the model's own walk."""
    if isinstance(tree.nodes, NodeColumns):
        return []
    fractional = np.array([node.split is not None and node.split.missing.kind == Route.FRACTION for node in tree.nodes])
    return np.flatnonzero(fractional[ends]).tolist()


@collector_paused()
def leaf_ids_rows(model: Model, rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """:func:`treegen.model.leaf_ids` of each row (the program protocol's leaf column), for all rows
    at once: each tree walked vectorised, a row spread by a fractional route by the model's own walk."""
    columns = encode_columns(model, rows)
    return leaf_ids_columns(model, columns, rows.__getitem__)


def leaf_ids_columns(model: Model, columns: Columns, row: Callable[[int], Mapping[str, Any]]) -> list[str]:
    """:func:`leaf_ids_rows` for rows given as encoded columns, as :func:`predict_columns` takes them."""
    values = as_matrix(columns)
    per_tree = []
    for tree in model.trees:
        ends = node_ends(model, tree, values)
        ids = [str(node) for node in ends.tolist()]
        for i in spread_rows(tree, ends):
            ids[i] = "|".join(str(node) for node, weight in reached(model, tree, row(i)) if weight > 0)
        per_tree.append(ids)
    return [";".join(ids) for ids in zip(*per_tree)] if per_tree else ["" for _ in range(values.shape[1])]


def linear_values(model: Model, node: Node, columns: Columns, at: np.ndarray) -> np.ndarray:
    """A linear leaf's value for the rows ``at``, as :func:`treegen.model.leaf_value` computes it: const,
    then ``+ coeff * x`` term by term (numpy's separate multiply and add: double, never fused), and the
    leaf's plain value where an input is missing (NaN; its feature has no missing interval)."""
    linear = node.linear
    out = np.full(at.size, linear.const)
    missing = np.zeros(at.size, dtype=bool)
    band = model.numeric.zero_band
    for feature, coeff in linear.terms:
        x = columns[feature][at]
        if band:
            x = np.where(np.abs(x) <= band, 0.0, x)
        missing |= np.isnan(x)
        with np.errstate(invalid="ignore", over="ignore"):
            out = out + coeff * x
    return np.where(missing, node.value[0], out)


def as_matrix(columns: Columns) -> np.ndarray:
    """Encoded columns as one (features, rows) float64 array in C order, the form the walk reads: made
    once for all of a model's trees (an array already made is taken as it is)."""
    return np.ascontiguousarray(columns, dtype=np.float64) if len(columns) else np.zeros((0, 0))


def _levels(walk: _Walk, values: np.ndarray, every_level: bool) -> Iterator[np.ndarray]:
    """Each row's node, level after level, until every row has ended: a new array each level when
    ``every_level`` is wanted, else one array updated in place. Only the rows still walking are
    touched (a chain 10,000 deep has 10,000 levels)."""
    n_rows = values.shape[1]
    current = np.zeros(n_rows, dtype=np.int64)
    yield current
    active = np.flatnonzero(walk.feature[current] >= 0)  # the rows still walking, and their nodes:
    nodes = current[active]
    while active.size:
        if not every_level and walk.starts_chain(nodes):
            active, nodes = walk.follow_chain(values, current, active, int(nodes[0]))
            if not active.size:
                break
        position = walk.positions(nodes, values[walk.feature[nodes], active])
        if walk.tuples:
            walk.tuple_positions(nodes, values, active, position)
        lost = position < 0
        position[lost] = walk.missing_child[nodes[lost]]
        moving = position >= 0  # a "stop" or fractional route ends the walk at this node
        active, nodes = active[moving], walk.child(nodes[moving], position[moving])
        current = current.copy() if every_level else current
        current[active] = nodes
        yield current
        inner = walk.feature[nodes] >= 0
        active, nodes = active[inner], nodes[inner]


class _Walk:
    """Per-node arrays of one tree: feature, effective threshold, children, missing child, and for
    nominal splits the child position of each category code.

    A node's children, and a nominal split's child position for each code of its feature, are runs of
    one flat array each (``child_list`` from ``child_start[node]``, ``category_list`` from
    ``category_start[node]``), not rows as wide as the widest split: a split of 10,000 categories
    made a table of nodes x 10,000 (825 MB for an ID3 tree of one such attribute)."""

    def __init__(self, model: Model, tree: Tree):
        # One pass over the nodes, then each array filled at once: an item set at a time, or a pass
        # over the nodes per array (a cache miss a node each time), cost a 511,000-node forest seconds.
        n = len(tree.nodes)
        splits = [(i, split, node.children) for i, node in enumerate(tree.nodes) if (split := node.split) is not None]
        self.feature = np.full(n, -1)
        self.cut = np.full(n, np.nan)
        self.nominal = np.zeros(n, dtype=bool)
        self.missing_child = np.full(n, -1)
        self.unknown_child = np.full(n, -1)  # -1: an unknown category follows the missing route
        inner = [i for i, _, _ in splits]
        self.feature[inner] = [split.feature for _, split, _ in splits]
        self.child_start, _, self.child_list = _runs(n, {i: children for i, _, children in splits})
        le, to_a_child = Op.LE, Route.CHILD  # an enum member read from its class is slow, a local is not
        routed = [(i, split.missing.child) for i, split, _ in splits if split.missing.kind == to_a_child]
        if routed:
            self.missing_child[[i for i, _ in routed]] = [child for _, child in routed]
        cut = model.numeric.effective_threshold
        numeric = [(i, cut(split.threshold)) for i, split, _ in splits if split.op == le]
        if numeric:
            self.cut[[i for i, _ in numeric]] = [t for _, t in numeric]
        self.tuples = {i: _TupleTest.of(model, split) for i, split, _ in splits if split.op is Op.TUPLE}
        positions = {}
        for i, split, _ in splits:
            if split.op == le:
                continue
            self.nominal[i] = True
            if split.unknown is not None:
                self.unknown_child[i] = split.unknown
            categories = model.features[split.feature].categories
            positions[i] = _category_positions(split.op, split.values, categories)
        self.category_start, self.category_width, self.category_list = _runs(n, positions)

    def child(self, nodes, positions):
        """The child at ``positions`` (0: the first) of each of ``nodes`` (arrays, or a node and a position)."""
        return self.child_list[self.child_start[nodes] + positions]

    @classmethod
    def of(cls, model: Model, tree: Tree) -> _Walk:
        return cls.of_columns(model, tree.nodes) if isinstance(tree.nodes, NodeColumns) else cls(model, tree)

    @classmethod
    def of_columns(cls, model: Model, nodes: NodeColumns) -> "_Walk":
        """The arrays of a tree held as columns, taken from them (binary splits, missing values to a
        child), without making its nodes."""
        walk = cls(model, Tree([]))
        inner, numeric = nodes.inner(), nodes.numeric_splits()
        walk.feature = np.where(inner, nodes.feature, -1)
        walk.child_start = 2 * np.arange(len(nodes))  # (two children a node, a leaf's 0 and 0)
        walk.child_list = np.where(inner[:, None], nodes.children, 0).ravel()
        walk.missing_child = np.where(inner, nodes.missing, -1)
        walk.cut = np.full(len(nodes), np.nan)
        walk.cut[numeric] = list(map(model.numeric.effective_threshold, nodes.threshold[numeric].tolist()))
        walk.nominal = inner & ~numeric
        walk.unknown_child = np.full(len(nodes), -1)
        walk.category_start, walk.category_width, walk.category_list = _runs(len(nodes), {  # the "in" splits
            i: _category_positions(Op.IN, values, model.features[int(nodes.feature[i])].categories)
            for i, values in nodes.values.items()})
        return walk

    def tuple_positions(self, nodes: np.ndarray, values: np.ndarray, active: np.ndarray,
                        position: np.ndarray) -> None:
        """Set the child position of the rows at ``tuple`` splits (``positions`` read one feature of them)."""
        for node, test in self.tuples.items():
            at = np.flatnonzero(nodes == node)
            if at.size:
                position[at] = test.positions(values[:, active[at]])

    def positions(self, nodes: np.ndarray, values: np.ndarray) -> np.ndarray:
        """Child position for each (node, value); -1 where the missing route applies."""
        missing = np.isnan(values)
        with np.errstate(invalid="ignore"):
            position = np.where(values <= self.cut[nodes], 0, 1)
        position[missing] = -1
        if not self.any_nominal:
            return position
        nominal = self.nominal[nodes] & ~missing
        codes, at = values[nominal].astype(np.int64), nodes[nominal]
        known = (codes >= 0) & (codes < self.category_width[at])
        picked = np.full(codes.shape, -1)
        picked[known] = self.category_list[self.category_start[at[known]] + codes[known]]
        unknown = codes == UNKNOWN
        picked[unknown] = self.unknown_child[at[unknown]]
        position[nominal] = picked
        return position

    def starts_chain(self, nodes: np.ndarray) -> bool:
        """Whether the rows walking are many, all at one numeric split with a leaf child: the top of
        a chain (a tree 10,000 splits deep has 10,000 levels, each a pass over its rows)."""
        node = nodes[0]
        return (nodes.size >= CHAIN_ROWS and self._numeric(node) and nodes[-1] == node
                and bool((self.feature[self.child(node, _BOTH)] < 0).any()) and bool((nodes == node).all()))

    def _numeric(self, node) -> bool:
        return not self.nominal[node] and not math.isnan(self.cut[node])

    def follow_chain(self, values: np.ndarray, current: np.ndarray, active: np.ndarray,
                     node: int) -> tuple[np.ndarray, np.ndarray]:
        """Walk rows all at ``node`` as one run sorted on the split's feature, while they stay at one
        numeric split on that feature: each split cuts the run in three slices (``<=`` the cut, above
        it, missing: NaN sorts last) in a binary search, the rows of a slice whose child is a leaf
        (or a missing route that stops) end there, and one slice at most goes on. Where the rows part
        for several splits, or another feature, the rows still walking and their nodes are returned
        to the level-by-level walk (``current`` holds every row's node so far)."""
        feature = self.feature[node]
        column = values[feature, active]
        order = np.argsort(column, kind="stable")
        active, column = active[order], column[order]
        present = len(column) - int(np.count_nonzero(np.isnan(column)))
        while True:
            left = int(np.searchsorted(column[:present], self.cut[node], side="right"))
            missing = self.missing_child[node]  # the child position missing values take; -1: they end here
            slices = ((0, left, self.child(node, 0)), (left, present, self.child(node, 1)),
                      (present, len(column), node if missing < 0 else self.child(node, missing)))
            going_on = [(start, end, child) for start, end, child in slices if end > start and child != node
                        and self.feature[child] >= 0]
            for start, end, child in slices:
                if end > start and (child == node or self.feature[child] < 0):
                    current[active[start:end]] = child
            if len(going_on) != 1 or self.feature[going_on[0][2]] != feature or not self._numeric(going_on[0][2]):
                parts = [(active[start:end], child) for start, end, child in going_on]
                for rows, child in parts:
                    current[rows] = child
                rows = np.concatenate([rows for rows, _ in parts]) if parts else active[:0]
                return rows, current[rows]
            start, end, node = going_on[0]
            active, column = active[start:end], column[start:end]
            present = max(0, min(present, end) - start)

    @cached_property
    def any_nominal(self) -> bool:
        return bool(self.nominal.any())

    def binary_children(self) -> np.ndarray:
        """(nodes, 2): each node's two children, 0 for a leaf's (a tree of binary splits only)."""
        inner = np.flatnonzero(self.feature >= 0)
        pairs = np.zeros((len(self.feature), 2), dtype=np.int64)
        pairs[inner] = self.child(inner[:, None], _BOTH)
        return pairs

    @cached_property
    def lockstep(self) -> _Lockstep | None:
        """The tree's lockstep walk, where it has one: binary numeric splits that send missing
        values to a child, at most LOCKSTEP_DEPTH levels."""
        inner = self.feature >= 0
        if not inner.any() or self.any_nominal or (self.missing_child[inner] < 0).any():
            return None
        depth = _depth(self.binary_children(), inner)
        return _Lockstep(self, depth) if depth <= LOCKSTEP_DEPTH else None


class _TupleTest:
    """A ``tuple`` split over encoded columns: each row's key (:func:`treegen.model.tuple_key`) as one integer,
    a digit per feature combined (its category code + 2: 0 unknown, 1 missing) and per part (its child
    position), looked up among the split's tuples so encoded."""

    def __init__(self, model: Model, split: Split):
        self.features = list(split.features)
        self.parts = [_Walk(model, Tree([Node((0.0,), split=part, children=(1, 2)), Node((0.0,)), Node((0.0,))]))
                      for part in split.parts]
        self.part_features = [part.feature for part in split.parts]
        self.radix = [len(model.features[flat].categories) + 2 for flat in split.features] + [2] * len(split.parts)
        codes = [{name: k + 2 for k, name in enumerate(model.features[flat].categories)} | {None: 1}
                 for flat in split.features]
        count = len(split.tuples)
        places = list(zip(*split.tuples)) or [()] * len(self.radix)  # the keys place by place
        digits = [np.fromiter(map(codes[i].__getitem__, names), dtype=np.int64, count=count)
                  for i, names in enumerate(places[:len(codes)])]
        digits += [np.array(positions, dtype=np.int64) for positions in places[len(codes):]]
        # keys past int64 (four features of 100,000 categories) are compared as tuples of digits, row by row
        self.wide = math.prod(self.radix) >= 2 ** 63
        if self.wide:
            self.key_set = set(zip(*(digit.tolist() for digit in digits)))
        else:
            self.keys = np.sort(self._number(np.array(digits, dtype=np.int64).reshape(len(self.radix), count)))

    @classmethod
    def of(cls, model: Model, split: Split) -> "_TupleTest":
        """The test of ``split``, made once for the splits of one set of tuples (CatBoost's repeat one CTR's split
        in many trees, each of thousands of tuples, and a model file read back makes a split a node)."""
        # (its parts' cuts are read as the numbers are: the model's numeric semantics)
        key = id(model.features), id(model.numeric), split.features, split.parts, id(split.tuples)
        made = _TUPLE_TESTS.get(key)
        if (made is None or made[0] is not split.tuples or made[1] is not model.features
                or made[2] is not model.numeric):
            if len(_TUPLE_TESTS) > 100_000:
                _TUPLE_TESTS.clear()
            made = _TUPLE_TESTS[key] = (split.tuples, model.features, model.numeric, cls(model, split))
        return made[3]

    def _number(self, digits: np.ndarray) -> np.ndarray:
        number = np.zeros(digits.shape[1], dtype=np.int64)
        for digit, radix in zip(digits, self.radix):
            number = number * radix + digit
        return number

    def positions(self, values: np.ndarray) -> np.ndarray:
        """Child 0 or 1 for each row of ``values`` (features, rows)."""
        zero = np.zeros(values.shape[1], dtype=np.int64)
        digits = [np.where(values[flat] == MISSING, 1, np.where(values[flat] < 0, 0, values[flat] + 2)).astype(np.int64)
                  for flat in self.features]
        for walk, flat in zip(self.parts, self.part_features):
            position = walk.positions(zero, values[flat])
            lost = position < 0
            position[lost] = walk.missing_child[0]
            digits.append(position)
        if self.wide:
            found = np.fromiter((key in self.key_set for key in zip(*(d.tolist() for d in digits))), bool,
                                count=values.shape[1])
        else:  # (the keys are sorted: a search, where isin would sort them again with the rows' at every call)
            _, found = found_in_sorted(self.keys, self._number(np.array(digits)))
        return np.where(found, 0, 1)


# (features and numeric semantics ids, the split's features and parts, its tuples' id) -> the test made, beside
# what the ids are of (which it keeps alive)
_TUPLE_TESTS: dict[tuple, tuple[frozenset, Any, Any, _TupleTest]] = {}


class _Lockstep:
    """Every row one step a level, the same steps for all, a leaf stepping to itself: a level is a
    few numpy calls over all the rows. In a shallow tree that is cheaper than setting aside the rows
    that have ended (:func:`_levels`): 5,000 rows through a 1,000-tree boosted model of depth 8 took
    0.3 s instead of 1.0 s. Node ``i``'s two ways out are numbered ``2 i`` (left) and ``2 i + 1``."""

    def __init__(self, walk: _Walk, depth: int):
        inner = walk.feature >= 0
        stay = np.arange(len(inner))
        self.depth = depth
        self.next = 2 * np.where(inner[:, None], walk.binary_children(), stay[:, None]).ravel()  # way -> 2 * child
        self.feature = np.repeat(np.where(inner, walk.feature, 0), 2)  # per way, its node's
        self.cut = np.repeat(np.where(inner, walk.cut, 0.0), 2)
        self.missing_right = np.repeat(inner & (walk.missing_child == 1), 2)

    def ends(self, values: np.ndarray) -> np.ndarray:
        """The node each row ends at (``values``: :func:`as_matrix`'s)."""
        n_rows = values.shape[1]
        flat, row = values.ravel(), np.arange(n_rows)
        at = self.feature * n_rows  # per way, where its feature's column starts in ``flat``
        way = np.zeros(n_rows, dtype=np.int64)
        for _ in range(self.depth):
            x = flat.take(at.take(way) + row)
            right = x > self.cut.take(way)  # x <= cut goes left; NaN goes where the node sends it
            right |= np.isnan(x) & self.missing_right.take(way)
            way = self.next.take(way + right)
        return way >> 1


_BOTH = np.arange(2)  # a binary split's child positions


def _runs(n: int, runs: dict[int, Sequence[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Nodes' runs of numbers laid end to end in one flat array: for each of nodes 0..n-1, where its run starts and
    its length (0 for a node without one), and the flat array."""
    start, length = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
    if runs:
        at, lengths = list(runs), np.fromiter(map(len, runs.values()), dtype=np.int64, count=len(runs))
        length[at] = lengths
        start[at] = np.cumsum(lengths) - lengths  # (in the dict's order, as the flat array)
    return start, length, np.fromiter(chain.from_iterable(runs.values()), dtype=np.int64)


def _depth(children: np.ndarray, inner: np.ndarray) -> int:
    """The tree's depth, in a few passes however deep it is: each node counts the levels up to a node
    above it, and takes over that node's count and pointer (pointer jumping: a pass doubles the reach)."""
    up = np.full(len(inner), -1)
    up[children[inner].ravel()] = np.repeat(np.flatnonzero(inner), children.shape[1])
    levels = (up >= 0).astype(np.int64)
    while (counting := up >= 0).any():
        above = up[counting]
        levels[counting] += levels[above]
        up[counting] = up[above]
    return int(levels.max())


def found_in_sorted(ordered: np.ndarray, needles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each needle would sit among ``ordered`` (sorted; clipped to its last place) and whether it is there:
    a search, where ``np.isin`` sorts both again at every call."""
    if not len(ordered):
        return np.zeros(needles.shape, dtype=np.int64), np.zeros(needles.shape, dtype=bool)
    at = np.minimum(np.searchsorted(ordered, needles), len(ordered) - 1)
    return at, ordered[at] == needles


def _category_positions(op: Op, values: Sequence[str], categories: Sequence[str]) -> list[int]:
    """The child position of each category at a nominal split: an ``=`` split's child of that
    category (-1: none, the unknown route), an ``in`` split's first child for its categories."""
    if op == Op.EQ:
        child = {value: position for position, value in reversed(list(enumerate(values)))}  # (the first, as index)
        return [child.get(c, -1) for c in categories]
    chosen = set(values)
    return [0 if c in chosen else 1 for c in categories]


def predict_rows(model: Model, rows: Sequence[Mapping[str, Any]]) -> list[tuple]:
    """(label or value, scores) for each row, exactly what ``model.predict`` and ``model.scores`` return,
    computed for all rows at once: each tree walked vectorised, the trees' outputs combined column by
    column (:func:`combined_rows`), then each row's label decided."""
    columns = encode_columns(model, rows)
    return predict_columns(model, columns, rows.__getitem__)


@collector_paused()  # the rows' answers: millions of small objects, no cycle
def predict_columns(model: Model, columns: Columns, row: Callable[[int], Mapping[str, Any]]) -> list[tuple]:
    """:func:`predict_rows` for rows given as encoded columns (see :func:`encode_column`); ``row(i)``
    gives row i as a mapping, for the few rows a fractional route sends down several branches."""
    columns = as_matrix(columns)  # once for both walks and every tree
    decided = decided_rows(model, combined_sums(model, columns, row))
    if not has_label_values(model):
        return decided
    votes = decided_rows(model, combined_sums(model, columns, row, labels=True))
    return [(label, scores) for (label, _), (_, scores) in zip(votes, decided)]


def decided_rows(model: Model, sums: np.ndarray) -> list[tuple]:
    """:meth:`Model.decided` of each row of ``sums`` (rows, width); a tree's or a forest's highest score (no link,
    :func:`treegen.model.argmax`: the first highest, or the first NaN, as numpy's) for every row at once."""
    rows = sums.tolist()
    combine, target = model.combine, model.target
    if combine.kind == CombineKind.SUM or target.is_classification and combine.decision() != Decision.ARGMAX:
        return [model.decided(scores) for scores in rows]  # a link, or Weka's rule: row by row
    if not target.is_classification:
        return list(zip(sums[:, 0].tolist(), rows))
    return list(zip(map(target.classes.__getitem__, np.argmax(sums, axis=1).tolist()), rows))


def combined_rows(model: Model, columns: Columns, row: Callable[[int], Mapping[str, Any]],
                  labels: bool = False) -> list[list[float]]:
    """Each row's :meth:`Model.sums <treegen.model.Model.sums>` (see :func:`combined_sums`)."""
    return combined_sums(model, columns, row, labels).tolist()


def combined_sums(model: Model, columns: Columns, row: Callable[[int], Mapping[str, Any]],
                  labels: bool = False) -> np.ndarray:
    """Each row's :meth:`Model.sums <treegen.model.Model.sums>` (rows, width): the trees' outputs for all rows
    at once, one tree at a time, combined column by column with the model's own arithmetic (every
    addition and rounding is elementwise, so each row's sums are bit for bit the row's own)."""
    columns = as_matrix(columns)
    outputs = (list(tree_outputs(model, tree, columns, row, labels).T) for tree in model.trees)
    # IEEE results, as the model's own float arithmetic gives them: a sum beyond range is inf (f32
    # rounds a float32 one so), and inf + -inf (linear leaves' terms at huge inputs) is NaN
    with np.errstate(over="ignore", invalid="ignore"):
        sums = model.sums(outputs, rounded=_float32 if model.combine.precision == Precision.FLOAT32 else _double)
    return np.column_stack(np.broadcast_arrays(*sums))


def _float32(x):
    """``x`` (a number or a column) rounded to float32, in float64: :func:`treegen.arithmetic.f32` for columns."""
    return np.asarray(x, dtype=np.float64).astype(np.float32).astype(np.float64)


def _double(x):
    return np.asarray(x, dtype=np.float64)


def encode_columns(model: Model, rows: Sequence[Mapping[str, Any]]) -> list[np.ndarray]:
    """Each feature's column (:func:`encode_column`); a feature no split reads is left missing unread, as
    the model and the generated code leave it (text in it that is no number is not refused)."""
    return encode_features(model, lambda feature: [row.get(feature.name) for row in rows], len(rows))


def encode_features(model: Model, values: Callable[[Feature], Sequence], count: int) -> list[np.ndarray]:
    """Each feature's ``values(feature)`` (``count`` of them) as :func:`encode_values` encodes them; a
    feature no split reads is left missing, its values not asked for."""
    used = set(model.used_features())
    return [encode_values(f, values(f), model.numeric.cast) if i in used
            else np.full(count, math.nan if f.is_numeric else MISSING) for i, f in enumerate(model.features)]


def encode_column(feature: Feature, rows: Sequence[Mapping[str, Any]], cast: str = "float64") -> np.ndarray:
    """One feature of the rows as the vectorised walk takes it (:func:`encode_values`)."""
    return encode_values(feature, [row.get(feature.name) for row in rows], cast)


def encode_values(feature: Feature, values: Sequence, cast: str = "float64") -> np.ndarray:
    """One feature's values as the vectorised walk takes them: floats with NaN for missing, or
    category codes: -1 for missing, -2 (UNKNOWN) for a category the feature does not know (a value
    read as :func:`treegen.model.category_of` reads it, under the model's ``cast``). A numpy column of
    numbers is read as float() reads each of them, at once."""
    if feature.is_numeric and isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
        return as_read(feature, values.astype(np.float64))
    if feature.is_numeric and set(map(type, values)) <= FLOAT_OR_NONE:  # (the bench's 60,515 rows: 0.2-0.3 -> 0.08 s)
        return as_read(feature, np.array(values, dtype=np.float64))
    if feature.is_numeric:
        return as_read(feature, np.array([math.nan if is_missing(v) else number_of(feature, v) for v in values],
                                         dtype=np.float64))
    code = {c: k for k, c in enumerate(feature.categories)}

    def read(value) -> int:
        name = category_of(feature, value, cast)
        return UNKNOWN if name is None else code[name]
    if feature.codes is None:  # a category's text costs one look-up
        return np.array([MISSING if is_missing(v) else code[v] if type(v) is str and v in code else read(v)
                         for v in values], dtype=np.float64)
    return np.array([MISSING if is_missing(v) else read(v) for v in values], dtype=np.float64)


FLOAT_OR_NONE = {float, type(None)}  # a column of these numpy reads as float() does, None as NaN (missing)


def as_read(feature: Feature, column: np.ndarray) -> np.ndarray:
    """A numeric column as the model reads it: values in the feature's missing interval are missing."""
    if feature.missing_interval is None:
        return column
    low, high = feature.missing_interval
    with np.errstate(invalid="ignore"):
        return np.where((low <= column) & (column <= high), np.nan, column)
