"""Minimal cost-complexity pruning for CART, with the same arithmetic as scikit-learn, and the choice
of its parameter alpha by k-fold cross-validation.

A node's cost is ``R(t) = w_t / w_root * impurity(t)``; a branch's cost is the sum over its leaves.
Pruning repeatedly turns into a leaf the branch with the smallest effective alpha
``(R(t) - R(branch)) / (leaves - 1)`` (the first node on ties) until that alpha exceeds the
requested one. Nodes are numbered in pre-order, so every branch is a contiguous run of node ids.
"""
from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass

import numpy as np

from ..data import Dataset
from ..errors import TreegenError
from ..model import Model, NumericSemantics
from ..progress import scaled, settled
from ..walk import node_paths
from .cart_problem import Grown, Params, sorted_labels
from .cart_grow import grow


@dataclass
class Sequence:
    """The pruning sequence of one tree: step j turns node ``nodes[j]`` into a leaf at ``alphas[j]``."""

    alphas: list[float]
    nodes: list[int]
    impurities: list[float]  # total leaf cost before any step, then after each step


def prune_sequence(grown: Grown, ccp_alpha: float = math.inf) -> Sequence:
    """Prune weakest links while their effective alpha is <= ``ccp_alpha`` (all of them by default).

    scikit-learn scans every node for the weakest link at each step; only the ancestors of a
    pruned branch change, so a heap of (alpha, node) finds the same node (the first one on ties)
    with the same arithmetic, and the whole path costs O(n log n) rather than O(n^2). Each node
    has one live entry in the heap, never above its alpha: pruning a branch raises its ancestors'
    alphas (all but by rounding), so an ancestor is queued again only when its entry comes up
    (or at once when its alpha fell), not at every step below it (a tree of 80,000 leaves and
    depth 28 took 1.3 million entries, and 5 s).
    """
    n = len(grown)
    children = [() if left < 0 else (left, right) for left, right in grown.children.tolist()]
    weight = grown.weights().tolist()
    impurity = grown.impurity.tolist()
    r_node = [weight[i] * impurity[i] / weight[0] for i in range(n)]
    parent = [-1] * n
    for i in range(n):
        for child in children[i]:
            parent[child] = i
    r_branch = [0.0] * n
    n_leaves = [0] * n
    for leaf in (i for i in range(n) if not children[i]):  # leaf by leaf: scikit-learn's sums exactly
        current = r_node[leaf]
        r_branch[leaf] = current
        node = parent[leaf]
        while node != -1:
            r_branch[node] += current
            n_leaves[node] += 1
            node = parent[node]
    candidate = [bool(c) for c in children]
    alpha_of = lambda i: (r_node[i] - r_branch[i]) / (n_leaves[i] - 1)
    # a NaN alpha (a target beyond 1e154: scikit-learn's NaN impurities) is never the weakest, as
    # scikit-learn's ``<`` scan never picks one; when only such nodes are left, pruning stops
    queued = [math.nan] * n  # the alpha of each node's entry in the heap; NaN: none
    heap = []
    for i in range(n):
        if candidate[i] and not math.isnan(alpha := alpha_of(i)):
            heap.append((alpha, i))
            queued[i] = alpha
    heapq.heapify(heap)
    sequence = Sequence([], [], [r_branch[0]])
    while candidate[0] and heap:
        queued_alpha, weakest = heap[0]
        if not candidate[weakest] or queued_alpha != queued[weakest]:
            heapq.heappop(heap)  # the node was pruned away, or queued again below this alpha
            continue
        alpha = alpha_of(weakest)
        if alpha != queued_alpha:  # its alpha rose since it was queued: queue it again, where it is now
            queued[weakest] = alpha
            if math.isnan(alpha):
                heapq.heappop(heap)
            else:
                heapq.heapreplace(heap, (alpha, weakest))
            continue
        if ccp_alpha < alpha:
            break
        heapq.heappop(heap)
        _drop_branch(children, candidate, weakest)
        pruned_leaves = n_leaves[weakest] - 1
        n_leaves[weakest] = 0
        r_diff = r_node[weakest] - r_branch[weakest]
        r_branch[weakest] = r_node[weakest]
        node = parent[weakest]
        while node != -1:
            n_leaves[node] -= pruned_leaves
            r_branch[node] += r_diff
            if (changed := alpha_of(node)) < queued[node] or (math.isnan(queued[node]) and not math.isnan(changed)):
                heapq.heappush(heap, (changed, node))
                queued[node] = changed
            node = parent[node]
        sequence.alphas.append(alpha)
        sequence.nodes.append(weakest)
        sequence.impurities.append(r_branch[0])
    return sequence


def _drop_branch(children: list, candidate: list[bool], node: int) -> None:
    """The branch under ``node`` leaves the tree: none of its nodes can be pruned any more."""
    stack = [node]
    while stack:
        i = stack.pop()
        if candidate[i]:
            candidate[i] = False
            stack.extend(children[i])


def prune(grown: Grown, ccp_alpha: float, sequence: Sequence | None = None) -> Grown:
    """The subtree that cost-complexity pruning with ``ccp_alpha`` keeps, renumbered in pre-order
    (the steps it takes of the tree's whole pruning ``sequence``, if that is known)."""
    if sequence is None:
        sequence = prune_sequence(grown, ccp_alpha)
    steps = _steps_taken(sequence.alphas, np.array([ccp_alpha]))[0]
    keep = np.ones(len(grown), dtype=bool)
    is_leaf = np.zeros(len(grown), dtype=bool)
    for node in sequence.nodes[:steps]:
        if keep[node]:
            keep[node + 1:_branch_end(grown, node)] = False
            is_leaf[node] = True
    return grown.subset(keep, is_leaf)


def _branch_end(grown: Grown, node: int) -> int:
    """One past the last node id of the branch rooted at ``node`` (pre-order)."""
    while grown.children[node, 1] >= 0:
        node = int(grown.children[node, 1])
    return node + 1


def pruning_path(dataset: Dataset, params: Params) -> tuple[np.ndarray, np.ndarray]:
    """Effective alphas and total leaf impurities of the pruning sequence, as scikit-learn's
    ``cost_complexity_pruning_path`` (starting with alpha 0 and the full tree)."""
    sequence = prune_sequence(grow(dataset, params))
    return np.array([0.0] + sequence.alphas), np.array(sequence.impurities)


# -- choosing alpha by cross-validation --------------------------------------------------------

def fold_ids(dataset: Dataset, folds: int, seed: int) -> np.ndarray:
    """A fold number per row: seeded shuffle, then round robin (within each class: stratified)."""
    n = len(dataset)
    shuffled = np.random.default_rng(seed).permutation(n)
    ids = np.empty(n, dtype=np.int64)
    if dataset.target.is_classification:
        shuffled = shuffled[np.argsort(dataset.y[shuffled], kind="stable")]
        starts = np.searchsorted(dataset.y[shuffled], dataset.y[shuffled])
        ids[shuffled] = (np.arange(n) - starts) % folds
    else:
        ids[shuffled] = np.arange(n) % folds
    return ids


def choose_alpha(dataset: Dataset, params: Params, folds: int = 5, seed: int = 0) -> tuple[float, Grown]:
    """The alpha of the full data's pruning path with the best mean held-out score over ``folds``
    folds (accuracy, or minus the squared error); the largest such alpha on ties. Also the full data's
    tree pruned with that alpha.

    Progress: the data set's weight in all, as one fit reports it: the growth of each tree, and the
    pruning and scoring after it (:func:`_pruning_cost`), which take longer than the growth on a
    tree of a leaf or two per row."""
    folds = int(folds)
    if not 2 <= folds <= len(dataset):  # (capped, the model's params would name folds it was not chosen by)
        raise TreegenError(f"cv_folds must be 2 to {len(dataset)} (the number of rows), not {folds}")
    total = float(dataset.weights.sum())
    first_share = 1 / (folds + 1)  # a guess: the scoring's cost is known only once the tree is grown
    with scaled(first_share):
        grown = grow(dataset, params)
    sequence = prune_sequence(grown)
    candidates = np.unique([0.0] + sequence.alphas)  # pruning_path's alphas
    ids = fold_ids(dataset, folds, seed)
    parts = [(dataset.subset(np.flatnonzero(ids != fold)), dataset.subset(np.flatnonzero(ids == fold)))
             for fold in range(folds)]
    parts = [(train, test) for train, test in parts if len(train) and len(test)]
    full_pruning = _pruning_cost(dataset, len(sequence.alphas))
    cost = full_pruning + sum(_fold_cost(train, test, len(candidates)) for train, test in parts)
    score = np.zeros(len(candidates))
    with scaled(total * (1 - first_share) / cost if cost else 0.0):
        settled(full_pruning)
        for train, test in parts:
            score += held_out_scores(train, test, params, candidates)
    alpha = float(candidates[np.flatnonzero(score == score.max())[-1]])
    return alpha, prune(grown, alpha, sequence) if alpha > 0 else grown  # as fit: alpha 0 prunes nothing


# The work after a tree is grown, as many features of grown rows (growing takes ~1.3 us a row and feature): a
# step of the pruning sequence takes ~16 us, its scoring included; scoring a held-out row ~3.6 us (measured with
# 5 features, 10,000 and 100,000 rows, classification and regression)
PRUNING_STEP_COST, HELD_OUT_ROW_COST = 12, 3


def _fold_cost(train: Dataset, test: Dataset, candidates: int) -> float:
    """A fold's work in grown rows, as :func:`held_out_scores` reports it: its growth, then its tree's
    pruning (as many steps as the full tree's, for as many rows) and the scoring of its held-out rows."""
    return float(train.weights.sum()) + _held_out_cost(train, test, candidates)


def _held_out_cost(train: Dataset, test: Dataset, candidates: int) -> float:
    steps = candidates * len(train) / (len(train) + len(test))
    return _pruning_cost(train, steps, float(test.weights.sum()))


def _pruning_cost(dataset: Dataset, steps: float, held_out: float = 0.0) -> float:
    """``steps`` of the pruning sequence of a tree grown on ``dataset``, and scoring ``held_out`` weight
    of rows, in rows grown on ``dataset``."""
    return (steps * PRUNING_STEP_COST + held_out * HELD_OUT_ROW_COST) / max(len(dataset.features), 1)


def held_out_scores(train: Dataset, test: Dataset, params: Params, candidates: np.ndarray) -> np.ndarray:
    """Score on ``test`` of the tree grown on ``train`` pruned at each candidate alpha (ascending). Progress:
    the training weight, then the pruning and scoring, in grown rows (:func:`_fold_cost`).

    A row's prediction changes only at the alphas where a node on its path is pruned: each row is walked
    once down the full tree, and each node it can stop at holds for a run of candidates
    (:func:`_stops`), so the work grows with the rows, not with rows times alphas."""
    grown = grow(train, params)
    sequence = prune_sequence(grown)
    model = Model(train.features, train.target, [grown.tree()], numeric=NumericSemantics(cast=params.cast))
    paths = node_paths(model, model.trees[0], test.columns)
    steps = _steps_taken(sequence.alphas, candidates)
    rows, nodes, start, end = _stops(paths, _pruned_at(grown, sequence), steps)
    predictions = _node_predictions(grown, sorted_labels(train.target.classes) if grown.width else None)
    weights = np.asarray(test.weights, dtype=np.float64)
    if train.target.is_classification:
        values = weights[rows] * (predictions[nodes] == test.y[rows])
    else:
        values = weights[rows] * (predictions[nodes] - test.y[rows]) ** 2
    sums = _interval_sums(start, end, values, len(candidates))
    settled(_held_out_cost(train, test, len(candidates)))
    return (sums if train.target.is_classification else -sums) / weights.sum()


def _pruned_at(grown: Grown, sequence: Sequence) -> np.ndarray:
    """The step of the pruning sequence that makes each node a leaf: -1 for a leaf of the full tree,
    the sequence's length for a node never pruned."""
    pruned_at = np.full(len(grown), len(sequence.nodes), dtype=np.int64)
    pruned_at[grown.leaves()] = -1
    for step, node in enumerate(sequence.nodes):
        pruned_at[node] = min(pruned_at[node], step)
    return pruned_at


def _steps_taken(alphas: list[float], candidates: np.ndarray) -> np.ndarray:
    """How many steps of a pruning sequence each of the ascending ``candidates`` takes: all up to the
    first larger alpha (the running maximum exceeds a candidate first where an alpha does)."""
    if not alphas:
        return np.zeros(len(candidates), dtype=np.int64)
    return np.searchsorted(np.maximum.accumulate(np.asarray(alphas)), candidates, side="right")


def _stops(paths: np.ndarray, pruned_at: np.ndarray, steps: np.ndarray) -> tuple[np.ndarray, ...]:
    """Where each row stops under each candidate: (row, node, first candidate, last candidate + 1) for
    each node of a row's path that it stops at under some candidates.

    After ``s`` steps a row stops at the first node of its path pruned at a step below ``s``: as ``s``
    grows it stops higher, at the nodes pruned earlier than every node above them (the path's running
    minimum of ``pruned_at`` drops there), each from the step after its own on."""
    pruned = pruned_at[paths]
    earliest = np.minimum.accumulate(pruned, axis=1)
    stop = np.ones(paths.shape, dtype=bool)
    stop[:, 1:] = pruned[:, 1:] < earliest[:, :-1]
    rows, levels = np.nonzero(stop)  # row by row, from the root down
    start = np.searchsorted(steps, pruned[rows, levels] + 1)
    end = np.empty_like(start)  # where the next node up takes over
    end[1:] = start[:-1]
    end[levels == 0] = len(steps)
    held = start < end
    return rows[held], paths[rows, levels][held], start[held], end[held]


def _interval_sums(start: np.ndarray, end: np.ndarray, values: np.ndarray, length: int) -> np.ndarray:
    """For each k below ``length`` the sum of the ``values`` whose run ``start`` <= k < ``end`` holds it,
    correctly rounded. Each value is added where its run starts and taken off where it ends, in Python's
    exact integers (each value is an integer times 2**lowest), and each sum divided once: a running float
    sum would round differently from one k to the next, and could break a tie between alphas whose
    predictions score the same (the largest such alpha wins)."""
    if not np.abs(values).sum() < 1e300:  # inf or NaN (targets beyond 1e154), or a sum that may overflow
        return np.array([values[(start <= k) & (k < end)].sum() for k in range(length)])
    mantissa, exponent = np.frexp(values)
    digits = (mantissa * 2.0 ** 53).astype(np.int64)  # a value is its digits times 2**(exponent - 53), exactly
    lowest = int(exponent.min()) - 53 if len(values) else 0
    changes = [0] * (length + 1)
    for first, after, digit, shift in zip(start.tolist(), np.minimum(end, length).tolist(), digits.tolist(),
                                          (exponent - 53 - lowest).tolist()):
        changes[first] += digit << shift
        changes[after] -= digit << shift
    scale = 1 << max(-lowest, 0)  # int / int is correctly rounded
    return np.array([total / scale if lowest < 0 else float(total << lowest)
                     for total in itertools.accumulate(changes[:length])], dtype=np.float64)


def _node_predictions(grown: Grown, class_order: np.ndarray | None) -> np.ndarray:
    """Each node's class code (the first most weighty one in ``class_order``, as the model labels),
    or its mean."""
    totals = grown.total
    if grown.width:
        return class_order[np.argmax(totals[:, class_order], axis=1)]
    return totals[:, 1] / totals[:, 0]
