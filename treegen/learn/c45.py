"""C4.5 as Weka 3.6's J48 builds it: ``fit(dataset)`` grows the tree ``J48 -C 0.25 -M 2`` grows.

The search is J48's (see :mod:`.c45_split`): gain ratio among attributes whose gain reaches the
average gain, nominal attributes split one child per declared value, numeric ones in two at the
best cut with the MDL correction, the cut moved to the largest training value below it. Unknown
values go down every branch with fractional weight, in training and in prediction; an unknown
category counts as missing. Then collapse, and pessimistic pruning with subtree raising
(:mod:`.c45_prune`) -- or, with ``reduced_error``, pruning on a held-out fold (:mod:`.c45_rep`).

The resulting model predicts what J48 predicts: numeric tests use Weka's ``x - t < 1e-6`` (the
model's tolerance), a missing value is split by the training weights of the branches (an empty
branch gets none), an empty leaf predicts its parent's class distribution.

Rows without a class are left out of the tree but, as in J48, still count where J48 looks at all
the data it was given: in the 0.3 x rows test for many-valued nominal attributes and where a
threshold moves to (``Dataset.all_columns``). Instance weights (ARFF ``{w}``) weigh every count.
``binary_splits`` is J48 -B (``BinC45Split``), ``laplace`` -A, ``mdl_correction=False`` -J (Weka 3.7+).

Sums are J48's to the last bit where their order matters (fractional weights): J48's model
selection sorts a node's rows in place by each numeric attribute in turn (Weka's quicksort, not
stable), builds the chosen split's distribution in the order its attribute saw, and passes the rows
to the branches in the order the last sort left; :mod:`.c45_order` replays that quicksort, so leaf
weights and probabilities ending in 5 at the third decimal print as J48 prints them. (Where every
weight is whole and no value is missing, any order gives the same sums, and the rows keep theirs.)

Not reproduced: J48 labels a row by ``classifyInstance``: the first class whose probability
beats the ones before by more than 1e-6 (the model's ``Decision.WEKA``), and under -A by the
unsmoothed probabilities (the leaves' label values); it sums a row's probabilities over the leaves
it reaches in its own order (nested sums, products along the path), the model in its own, so a
printed third decimal can differ on a row that reaches several leaves
(tests/fixtures/j48/fuzz_against_j48.py counts where that shows).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..data import Dataset
from ..errors import TreegenError
from ..model import Combine, Decision, Model, Node, NumericSemantics, Split, MissingRoute, Tree
from . import c45_order as O, c45_split as S
from ..progress import scaled, settled

TOLERANCE = 1e-6  # Weka's Utils.smOrEq(x, t): x - t < 1e-6 goes left


@dataclass
class GrowNode:
    """A node while J48 grows and prunes it: its split, its distribution and its training data."""

    idx: np.ndarray  # rows of the data set that reach the node ...
    w: np.ndarray  # ... and their (fractional) weights
    dist: S.Dist  # a leaf's has one bag
    feature: int = -1  # -1: a leaf
    threshold: float = np.nan
    cut: float = np.nan  # numeric, while grown: the largest value left of the chosen cut
    value: int = -1  # J48 -B, nominal: the category of the first branch (the others go to the second)
    children: list["GrowNode"] = field(default_factory=list)
    empty: bool = False  # J48's m_isEmpty: no training weight when the node was grown

    @property
    def is_leaf(self) -> bool:
        return self.feature < 0

    def make_leaf(self) -> None:
        self.feature, self.value, self.children = -1, -1, []

    @property
    def is_binary_nominal(self) -> bool:
        return self.value >= 0


class Grower:
    """The data set in J48's terms and the operations J48's tree nodes perform on their data."""

    def __init__(self, dataset: Dataset, min_leaf: float, mdl_correction: bool, binary_splits: bool = False):
        self.data = dataset
        self.n_classes = len(dataset.target.classes)
        self.min_leaf = min_leaf
        self.mdl = mdl_correction
        self.binary = binary_splits
        self.numeric = [f.is_numeric for f in dataset.features]
        # J48 looks at all the data it was given, rows without a class included (C45ModelSelection's
        # m_allData): where thresholds move (setSplitPoint) and which nominal attributes count.
        every_row = dataset.all_columns or dataset.columns
        self.training_values = [c[~np.isnan(c)] if num else None for c, num in zip(every_row, self.numeric)]
        self.distinct_values = [np.unique(v) if v is not None else None for v in self.training_values]
        n = len(every_row[0]) if every_row else len(dataset)  # "all attributes nominal with many values"
        self.counted_nominal = [S.sm(len(f.categories), 0.3 * n) for f in dataset.features]
        self.multi_valued = not any(num or small for num, small in zip(self.numeric, self.counted_nominal))
        self.numeric_features = [j for j, num in enumerate(self.numeric) if num]
        # an attribute with no category (every row missing) has no split to offer, and an empty search fails
        self.nominal_features = [j for j, num in enumerate(self.numeric) if not num and dataset.features[j].categories]
        # attributes x rows: a node's rows of one attribute are gathered from one contiguous column
        self.numeric_columns = np.array([dataset.columns[j] for j in self.numeric_features], dtype=np.float64)
        self.value_ranks = [O.ranks_of(dataset.columns[j]) for j in self.numeric_features]
        self.nominal_matrix = self.columns_of(self.nominal_features, np.int64)
        self.has_missing = np.zeros(len(dataset), dtype=bool)  # rows with a missing value in any feature
        for column, num in zip(dataset.columns, self.numeric):
            self.has_missing |= np.isnan(column) if num else column < 0
        self.n_categories = np.array([len(dataset.features[j].categories) for j in self.nominal_features])

    def columns_of(self, features: list[int], dtype) -> np.ndarray:
        """Rows x features, so that one fancy index gathers a node's rows for all of them."""
        matrix = np.empty((len(self.data), len(features)), dtype=dtype)
        for k, j in enumerate(features):
            matrix[:, k] = self.data.columns[j]
        return matrix

    # -- distributions ---------------------------------------------------------------------------

    def class_counts(self, idx: np.ndarray, w: np.ndarray) -> np.ndarray:
        return np.bincount(self.data.y[idx], weights=w, minlength=self.n_classes)

    def subset_of(self, node: GrowNode, idx: np.ndarray) -> np.ndarray:
        """``whichSubset`` for many rows: the branch of each row, -1 when its value is missing."""
        column = self.data.columns[node.feature][idx]
        if node.is_binary_nominal:
            return branch_of(column == node.value, column < 0)
        if not self.numeric[node.feature]:
            return column
        with np.errstate(over="ignore", invalid="ignore"):  # huge or infinite values: inf or NaN compares right
            return branch_of((column - node.threshold < TOLERANCE) | (column <= node.threshold), np.isnan(column))

    def chosen_subset_of(self, node: GrowNode, idx: np.ndarray) -> np.ndarray:
        """The rows' branches as the split's search counted them: a numeric split's by its cut
        (values up to ``node.cut`` left). Its moved threshold draws the same line, except where J48
        moves a cut after -inf to -Double.MAX_VALUE: that value then goes left, counted right."""
        if not self.numeric[node.feature]:
            return self.subset_of(node, idx)
        column = self.data.columns[node.feature][idx]
        return branch_of(column <= node.cut, np.isnan(column))

    def leaf_distribution(self, idx: np.ndarray, w: np.ndarray) -> S.Dist:
        return S.Dist.of_rows(self.data.y[idx], w, self.n_classes)

    def distribution(self, node: GrowNode, idx: np.ndarray, w: np.ndarray, chosen: tuple | None = None) -> S.Dist:
        """The split's distribution of the rows: known ones by branch in their order, then the
        unknown ones one by one, spread over the branches in proportion to the known weight
        (``Distribution.addInstWithUnknown``, with its running sums). ``chosen``: the split as model
        selection built it, from the rows in the order its attribute saw them (``(idx, w)``): a
        numeric one adds each branch's weight as a block to the total (``addRange``), of the rows up
        to the first missing value (a row sorted after it, +inf, is in no bag: left out), a J48 -B
        nominal one has its second branch the known total less the first (``new Distribution(dist,
        value)``). Otherwise as pruning makes it anew (``resetDistribution``)."""
        known_idx, known_w = (idx, w) if chosen is None else chosen
        subset = self.subset_of(node, known_idx) if chosen is None else self.chosen_subset_of(node, known_idx)
        bags, classes = self.branches(node), self.n_classes
        known = subset >= 0
        ranges = chosen is not None and self.numeric[node.feature]
        if ranges:  # J48's scan stopped at the first missing value: the rows sorted after it (+inf) are in no bag
            known = S.before_first(~known)
        y, sk, wk = (np.compress(known, a) for a in (self.data.y[known_idx], subset, known_w))
        cells = np.bincount(sk * classes + y, weights=wk, minlength=bags * classes).reshape(bags, classes)
        per_bag = np.bincount(sk, weights=wk, minlength=bags)
        per_class = np.bincount(y, weights=wk, minlength=classes)
        total = S.seq_sum(per_bag) if ranges else S.seq_sum(wk)
        if chosen is not None and node.is_binary_nominal:
            cells[1], per_bag[1] = per_class - cells[0], total - per_bag[0]
        unknown = (subset if chosen is None else self.chosen_subset_of(node, idx)) < 0
        if not unknown.any():
            return S.Dist(cells, per_bag, per_class, total)
        yu, wu = np.compress(unknown, self.data.y[idx]), np.compress(unknown, w)
        spread = spread_unknown(per_bag, total, wu)
        per_bag = S.seq_sum(spread, per_bag)
        for c in range(classes):
            of_class = yu == c
            if of_class.any():
                per_class[c] = S.seq_sum(np.compress(of_class, wu), per_class[c])
                cells[:, c] = S.seq_sum(np.compress(of_class, spread, axis=0), cells[:, c])
        return S.Dist(cells, per_bag, per_class, S.seq_sum(wu, total))

    def split(self, node: GrowNode, idx: np.ndarray, w: np.ndarray, dist: S.Dist | None = None):
        """``ClassifierSplitModel.split``: the rows of each branch, unknown ones with fractional weight
        in proportion to the branches' weights in ``dist`` (by default: these rows' distribution)."""
        subset = self.subset_of(node, idx)
        unknown = subset == -1
        if not unknown.any():
            return [(np.compress(rows, idx), np.compress(rows, w))
                    for rows in (subset == b for b in range(self.branches(node)))]
        per_bag, total = self.bag_weights(node, subset, w) if dist is None else (dist.per_bag, dist.total)
        fractions = per_bag / total if total > 0 else np.zeros(len(per_bag))
        parts = []
        for b, fraction in enumerate(fractions):
            if not fraction > S.SMALL:
                rows = subset == b
                parts.append((np.compress(rows, idx), np.compress(rows, w)))
                continue
            rows = (subset == b) | unknown
            spread, weights = np.compress(rows, unknown), np.compress(rows, w)
            parts.append((np.compress(rows, idx), np.where(spread, fraction * weights, weights)))
        return parts

    def bag_weights(self, node: GrowNode, subset: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, float]:
        """The branch weights and the total of the rows' :meth:`distribution` (as pruning makes it),
        from their branches (``subset_of``) alone."""
        known = subset >= 0
        wk, wu = np.compress(known, w), np.compress(~known, w)
        per_bag = np.bincount(np.compress(known, subset), weights=wk, minlength=self.branches(node))
        total = S.seq_sum(wk)
        if not len(wu):
            return per_bag, total
        return S.seq_sum(spread_unknown(per_bag, total, wu), per_bag), S.seq_sum(wu, total)

    # -- growing ---------------------------------------------------------------------------------

    def worth_searching(self, node: GrowNode) -> bool:
        """J48 looks for a split unless the node is too light or of one class; otherwise it stays a
        leaf. (While it grows, a node's distribution is its rows' one bag: their class weights and
        total.)"""
        if self.stays_leaf(node.dist):
            self.make_leaf(node)
            return False
        return True

    def stays_leaf(self, dist: S.Dist) -> bool:
        counts, total = dist.per_class, dist.total
        return S.sm(total, 2 * self.min_leaf) or S.eq(total, counts[S.max_class(counts)])

    def make_leaf(self, node: GrowNode) -> None:
        node.empty = S.eq(node.dist.total, 0)
        settled(node.dist.total)

    def numeric_searches(self, nodes: list[GrowNode], orders: list[np.ndarray | None]) -> list[list]:
        """Each node's best cut of each numeric attribute, the nodes searched together
        (:func:`.c45_split.numeric_candidates`); ``orders`` as :meth:`weka_orders` gives them."""
        if not self.numeric_features:
            return [[] for _ in nodes]
        return S.numeric_candidates(self.numeric_features, self.numeric_columns,
                                    [(node.idx, self.data.y[node.idx], node.w, node.dist.total, order)
                                     for node, order in zip(nodes, orders)], self.n_classes, self.min_leaf, self.mdl)

    def best_split(self, node: GrowNode, numeric: list) -> S.Candidate | None:
        """J48's split of the node's rows, given its numeric attributes' best cuts (:meth:`numeric_searches`)."""
        idx, w, total = node.idx, node.w, node.dist.total
        y = self.data.y[idx]
        candidates: list[S.Candidate | None] = [None] * len(self.numeric)
        if self.numeric_features:
            for j, c in zip(self.numeric_features, numeric):
                candidates[j] = c
        if self.nominal_features:
            search = S.binary_nominal_candidates if self.binary else S.nominal_candidates
            found = search(self.nominal_features, self.nominal_matrix[idx], self.n_categories,
                           y, w, self.n_classes, self.min_leaf, total)
            for j, c in zip(self.nominal_features, found):
                candidates[j] = c
        counted = [num or self.multi_valued or small for num, small in zip(self.numeric, self.counted_nominal)]
        return S.choose(candidates, counted)

    def grow(self, rows: np.ndarray | None = None) -> GrowNode:
        """Grow the whole tree on ``rows`` (all, by default; their order matters to Weka's float
        sums), a level at a time (no recursion), so that the rows of a level's nodes are sorted
        together (:meth:`weka_orders`)."""
        rows = np.arange(len(self.data)) if rows is None else rows
        root = self.new_node(rows, self.data.weights[rows].astype(np.float64))
        level = [root]
        while level:
            searched = [node for node in level if self.worth_searching(node)]
            level = []
            orders = self.weka_orders(searched)
            for node, sorted_by, numeric in zip(searched, orders, self.numeric_searches(searched, orders)):
                if self.choose_split(node, sorted_by, numeric):
                    level += self.split_node(node, sorted_by)
        return root

    def choose_split(self, node: GrowNode, sorted_by: np.ndarray | None, numeric: list) -> bool:
        """Give the node J48's split (``numeric``: its numeric attributes' best cuts); False when it
        stays a leaf."""
        if not self.find_split(node, numeric) or self.repeats_without_end(node, sorted_by):
            node.make_leaf()
            self.make_leaf(node)
            return False
        return True

    def find_split(self, node: GrowNode, numeric: list) -> bool:
        """Set the node's split to J48's, a threshold moved to a training value; False if there is none."""
        best = self.best_split(node, numeric)
        if best is None:
            return False
        node.feature, node.value = best.feature, best.value
        if self.numeric[best.feature]:
            node.cut = best.cut
            node.threshold = S.move_to_training_value(best.threshold, self.training_values[best.feature],
                                                      self.distinct_values[best.feature])
        return True

    def repeats_without_end(self, node: GrowNode, sorted_by: np.ndarray | None) -> bool:
        """Whether J48 would split the node again and again until its stack overflows. Where a
        numeric split sends every known row to one branch (-inf and -Double.MAX_VALUE both go left
        of the threshold -Double.MAX_VALUE), that child is the node again, but for the rows missing
        the value: their weights shrink by the branch's share, so J48 may choose otherwise a few
        levels down (and then ends). The chain is followed ahead: it has no end once those rows weigh
        less than 1e-12 of the node (J48's choices, made within 1e-6, are then those without them)."""
        probe, order = node, sorted_by
        while self.numeric[probe.feature] and self.splits_off_nothing(probe):
            missing = np.isnan(self.data.columns[probe.feature][probe.idx])
            if not float(probe.w[missing].sum()) > 1e-12 * probe.dist.total:
                return True
            ahead = GrowNode(probe.idx, probe.w, probe.dist, probe.feature, probe.threshold, probe.cut)
            branch = int(self.subset_of(probe, probe.idx[~missing])[0])
            probe = self.split_node(ahead, order)[branch]
            if self.stays_leaf(probe.dist):
                return False
            [order] = self.weka_orders([probe])
            if not self.find_split(probe, self.numeric_searches([probe], [order])[0]):
                return False
        return False

    def splits_off_nothing(self, node: GrowNode) -> bool:
        """Whether the node's split sends every known row to one branch."""
        branches = self.subset_of(node, node.idx)
        return not ((branches == 0).any() and (branches == 1).any())

    def split_node(self, node: GrowNode, sorted_by: np.ndarray | None) -> list[GrowNode]:
        """The split's distribution and children. J48 builds the distribution from the rows in the
        order the split's attribute saw them (sorted by the numeric attributes up to it), and
        passes the rows on in the order the last sort left (its m_train, sorted in place)."""
        if sorted_by is not None:
            sorts = sum(j <= node.feature for j in self.numeric_features)
            seen = sorted_by[sorts - 1] if sorts else np.arange(len(node.idx))
            chosen = node.idx[seen], node.w[seen]
            last = sorted_by[-1]
            node.idx, node.w = node.idx[last], node.w[last]
        else:
            chosen = node.idx, node.w
        node.dist = self.distribution(node, node.idx, node.w, chosen)
        node.children = [self.new_node(i, w) for i, w in self.split(node, node.idx, node.w, node.dist)]
        return node.children

    def weka_orders(self, nodes: list[GrowNode]) -> list[np.ndarray | None]:
        """Each node's rows in the orders J48's model selection leaves them in, as it sorts them by
        each numeric attribute in turn: row ``k`` is the permutation of ``node.idx`` after the
        sort by the k-th numeric attribute. The nodes' rows are sorted together, each node's on
        their own. None where every weight is whole and no value is missing: every sum below is
        exact in any order, and the rows keep theirs."""
        replayed = [k for k, node in enumerate(nodes) if self.numeric_features
                    and not (S.is_whole(node.w) and not self.has_missing[node.idx].any())]
        orders: list[np.ndarray | None] = [None] * len(nodes)
        if not replayed:
            return orders
        bounds = np.concatenate(([0], np.cumsum([len(nodes[k].idx) for k in replayed])))
        rows = np.concatenate([nodes[k].idx for k in replayed])
        positions = np.arange(len(rows))
        sorted_positions = np.empty((len(self.numeric_features), len(rows)), dtype=np.int64)
        for sort, ranks in enumerate(self.value_ranks):
            order = O.weka_sort_segments(ranks[rows], bounds)
            rows, positions = rows[order], positions[order]
            sorted_positions[sort] = positions
        for k, start, end in zip(replayed, bounds[:-1], bounds[1:]):
            orders[k] = sorted_positions[:, start:end] - start
        return orders

    def branches(self, node: GrowNode) -> int:
        if self.numeric[node.feature] or node.is_binary_nominal:
            return 2
        return len(self.data.features[node.feature].categories)

    def new_node(self, idx: np.ndarray, w: np.ndarray) -> GrowNode:
        return GrowNode(idx, w, self.leaf_distribution(idx, w))


def branch_of(first: np.ndarray, missing: np.ndarray) -> np.ndarray:
    """0 where ``first``, -1 where ``missing`` (never first), else 1 (np.where of scalars is slow)."""
    return (~first).astype(np.int64) - 2 * missing


def spread_unknown(per_bag: np.ndarray, total: float, wu: np.ndarray) -> np.ndarray:
    """The weights of rows with an unknown value spread over the branches in proportion to the
    known weight (row x branch; evenly when there is none)."""
    probs = np.full(len(per_bag), 1.0 / len(per_bag)) if S.eq(total, 0) else per_bag / total
    return wu[:, None] * probs[None, :]


def fit(dataset: Dataset, confidence: float = 0.25, min_leaf: int = 2, unpruned: bool = False,
        subtree_raising: bool = True, reduced_error: bool = False, folds: int = 3, seed: int = 1,
        mdl_correction: bool = True, collapse: bool = True, binary_splits: bool = False,
        laplace: bool = False) -> Model:
    """Train C4.5 the way Weka's J48 does (``J48 -C confidence -M min_leaf``, optionally ``-U``, ``-S``,
    ``-R``, ``-B``, ``-A``).

    Parameters
    ----------
    dataset : Dataset
        Classification data; rows are weighted by ``dataset.weights``.
    confidence : float
        Pruning confidence (J48 ``-C``), in (0, 0.5].
    min_leaf : int
        Minimum weight in at least two branches of a split (J48 ``-M``).
    unpruned : bool
        Skip pruning (J48 ``-U``); the collapse step still runs.
    subtree_raising : bool
        Consider raising the largest branch when pruning (``False`` is J48 ``-S``).
    reduced_error, folds, seed
        Reduced-error pruning (J48 ``-R -N folds -Q seed``): grow on all folds but one, prune on
        that one; no collapse step, ``confidence`` and ``subtree_raising`` unused.
    mdl_correction : bool
        Subtract log2(number of candidate cuts) / N from a numeric split's gain, as J48 always does
        in Weka 3.6 (``False`` is J48 ``-J``, an option from Weka 3.7 on; 3.7+ also moves a
        threshold to a training value without 3.6's 1e-6 tolerance, treegen keeps 3.6's).
    collapse : bool
        Replace a subtree by a leaf when it does not reduce the training error.
    binary_splits : bool
        Split nominal attributes into one value against the others (J48 ``-B``).
    laplace : bool
        Leaf probabilities with Laplace smoothing, (count + 1) / (weight + classes) (J48 ``-A``);
        the tree is the same. J48 then still labels a row by the unsmoothed probabilities: each
        leaf keeps them as its label value (:attr:`treegen.model.Node.label_value`), which decides
        where a row's missing values send it to several leaves.
    """
    from .c45_prune import collapse_tree, prune_tree
    from .c45_rep import reduced_error_prune, train_and_prune_rows

    if not dataset.target.is_classification:
        raise TreegenError("C4.5 learns classification trees; the target is numeric (use cart)")
    if reduced_error and len(dataset) < 2:
        raise TreegenError(f"reduced-error pruning needs 2 rows or more (grown on some, pruned on others), not "
                           f"{len(dataset)}")
    if reduced_error and not 2 <= folds <= len(dataset):
        raise TreegenError(f"reduced-error pruning needs 2 to {len(dataset)} folds, not {folds}")
    if reduced_error and unpruned:
        raise TreegenError("an unpruned tree and reduced-error pruning exclude each other (as in J48)")
    if not 0 < confidence <= 0.5:
        raise TreegenError(f"the pruning confidence must be in (0, 0.5], not {confidence}")
    grower = Grower(dataset, float(min_leaf), mdl_correction, binary_splits)
    common = dict(min_leaf=min_leaf, mdl_correction=mdl_correction, binary_splits=binary_splits, laplace=laplace)
    if reduced_error:
        train, held_out = train_and_prune_rows(dataset.y, folds, seed)
        grown_weight = float(dataset.weights[train].sum())
        with scaled(float(dataset.weights.sum()) / grown_weight if grown_weight else 0.0):  # the fit's progress
            root = grower.grow(train)
        reduced_error_prune(root, grower, held_out)
        return to_model(root, dataset, dict(reduced_error=True, folds=folds, seed=seed, **common))
    root = grower.grow()
    if collapse:
        collapse_tree(root)
    if not unpruned:
        prune_tree(root, grower, confidence, subtree_raising)
    params = dict(confidence=confidence, unpruned=unpruned, subtree_raising=subtree_raising, collapse=collapse,
                  **common)
    return to_model(root, dataset, params)


# -- from grown nodes to the model ---------------------------------------------------------------

def to_model(root: GrowNode, dataset: Dataset, params: dict) -> Model:
    """Number the nodes in pre-order and describe each as the model's Node."""
    nodes: list[Node] = []
    stack: list[tuple[GrowNode, GrowNode | None, int, int]] = [(root, None, 0, -1)]
    while stack:
        node, parent, branch, slot = stack.pop()
        my_id = len(nodes)
        if slot >= 0:
            nodes[slot].children = nodes[slot].children + (my_id,)
        nodes.append(describe(node, parent, branch, dataset, params["laplace"]))
        for b in reversed(range(len(node.children))):
            stack.append((node.children[b], node, b, my_id))
    meta = {"algorithm": "c45", "reference": "Weka 3.6 J48", "params": params}
    if dataset.dates:  # the numbers of these features are dates (ms since 1970-01-01 UTC)
        meta["dates"] = dict(dataset.dates)
    # J48 labels a row by the first class no other beats by more than 1e-6 (ClassifierTree.classifyInstance)
    return Model(dataset.features, dataset.target, [Tree(nodes)], combine=Combine(decide=Decision.WEKA),
                 numeric=NumericSemantics(tolerance=TOLERANCE), meta=meta)


def describe(node: GrowNode, parent: GrowNode | None, branch: int, dataset: Dataset, laplace: bool = False) -> Node:
    """The model's node. A leaf's counts and weight are its parent's view of the branch (what J48
    prints); its value is its own distribution (what J48 predicts), or for an empty leaf its
    parent's (``C45Split.classProb``); with ``laplace``, smoothed (``classProbLaplace``)."""
    dist = node.dist
    value = dist.laplace() if laplace else dist.probabilities()
    label_value = dist.probabilities() if laplace else ()
    counts, n = dist.per_class, dist.total
    if node.is_leaf and parent is not None:
        counts, n = parent.dist.cells[branch], float(parent.dist.per_bag[branch])
        if node.empty:
            value = parent.dist.bag_laplace(branch) if laplace else parent.dist.bag_probabilities(branch)
            label_value = parent.dist.bag_probabilities(branch) if laplace else ()
    common = dict(value=value, counts=tuple(float(c) for c in counts), n=float(n))
    if node.is_leaf:  # J48 -A: scores smoothed, labels by the unsmoothed sums (classifyInstance's getProbs)
        return Node(**common, label_value=label_value)
    feature = dataset.features[node.feature]
    weights = [0.0 if child.is_leaf and child.empty else float(p) / dist.total
               for child, p in zip(node.children, dist.per_bag)]
    if feature.is_numeric:
        split = Split(node.feature, "<=", threshold=node.threshold, missing=MissingRoute.fraction(weights))
    elif node.is_binary_nominal:
        split = Split(node.feature, "in", values=(feature.categories[node.value],),
                      missing=MissingRoute.fraction(weights))
    else:
        split = Split(node.feature, "==", values=feature.categories, missing=MissingRoute.fraction(weights))
    return Node(split=split, **common)
