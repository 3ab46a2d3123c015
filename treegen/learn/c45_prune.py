"""J48's collapse and pessimistic error-based pruning with subtree raising
(Weka 3.6 ``C45PruneableClassifierTree`` and ``Stats.addErrs``), on explicit stacks.
"""
from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np

from . import c45_split as S


def collapse_tree(root) -> None:
    """Turn every subtree whose leaves make no fewer training errors than the node itself into a leaf."""
    errors = {}
    for node in reversed(pre_order(root)):  # children before parents
        errors[id(node)] = (node.dist.incorrect() if node.is_leaf
                            else S.seq_sum(np.array([errors[id(c)] for c in node.children])))
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_leaf:
            continue
        if errors[id(node)] >= node.dist.incorrect() - 1e-3:
            node.make_leaf()
        else:
            stack.extend(reversed(node.children))


def pre_order(root) -> list:
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(node.children))
    return order


class Pessimist:
    """C4.5's upper confidence bound on the errors at a leaf (``Stats.addErrs``)."""

    def __init__(self, confidence: float):
        self.cf = float(np.float32(confidence))  # J48 keeps the confidence as a Java float
        self.z = NormalDist().inv_cdf(float(np.float32(1) - np.float32(confidence)))

    def added_errors(self, n: float, e: float) -> float:
        if e < 1:
            base = n * (1 - math.pow(self.cf, 1 / n))
            return base if e == 0 else base + e * (self.added_errors(n, 1) - base)
        if e + 0.5 >= n:
            return max(n - e, 0.0)
        z, f = self.z, (e + 0.5) / n
        r = (f + (z * z) / (2 * n) + z * math.sqrt((f / n) - (f * f / n) + (z * z / (4 * n * n)))) \
            / (1 + (z * z) / n)
        return (r * n) - e

    def errors(self, dist: S.Dist) -> float:
        """Estimated errors of a leaf with this distribution (``getEstimatedErrorsForDistribution``)."""
        if S.eq(dist.total, 0):
            return 0.0
        wrong = dist.incorrect()
        return wrong + self.added_errors(dist.total, wrong)


def max_bag(per_bag) -> int:
    """``Distribution.maxBag``: the last branch within 1e-6 of the heaviest."""
    best, top = -1, 0.0
    for i, p in enumerate(per_bag):
        if S.gr_or_eq(p, top):
            best, top = i, p
    return best


def prune_tree(root, grower, confidence: float, subtree_raising: bool) -> None:
    """Bottom up: replace a subtree by a leaf, or by its largest branch, when its estimated errors
    are not lower (by 0.1). A raised branch gets the node's training data and is pruned again."""
    pessimist = Pessimist(confidence)
    estimated = {}  # id(node) -> estimated errors of its (pruned) subtree
    stack = [(root, False)]
    while stack:
        node, children_done = stack.pop()
        if node.is_leaf:
            estimated[id(node)] = pessimist.errors(node.dist)
            continue
        if not children_done:
            stack.append((node, True))
            stack.extend((child, False) for child in reversed(node.children))
            continue
        largest = max_bag(node.dist.per_bag)
        errors_branch = (branch_errors(grower, pessimist, node.children[largest], node.idx, node.w)
                         if subtree_raising else math.inf)
        errors_leaf = pessimist.errors(node.dist)
        errors_tree = S.seq_sum(np.array([estimated[id(c)] for c in node.children]))
        if S.sm_or_eq(errors_leaf, errors_tree + 0.1) and S.sm_or_eq(errors_leaf, errors_branch + 0.1):
            node.make_leaf()
            estimated[id(node)] = errors_leaf
        elif S.sm_or_eq(errors_branch, errors_tree + 0.1):
            raise_branch(grower, node, node.children[largest])
            stack.append((node, False))
        else:
            estimated[id(node)] = errors_tree


def branch_errors(grower, pessimist: Pessimist, branch, idx: np.ndarray, w: np.ndarray) -> float:
    """Estimated errors if these rows were classified by ``branch`` (``getEstimatedErrorsForBranch``)."""
    total, stack = 0.0, [(branch, idx, w)]
    while stack:
        node, idx, w = stack.pop()
        if node.is_leaf:
            total += pessimist.errors(grower.leaf_distribution(idx, w))
            continue
        parts = grower.split(node, idx, w)
        stack.extend((child, i, cw) for child, (i, cw) in reversed(list(zip(node.children, parts))))
    return total


def raise_branch(grower, node, branch) -> None:
    """Put ``branch`` in the place of ``node`` and send the node's training rows down it again."""
    node.feature, node.threshold, node.value, node.children = (branch.feature, branch.threshold, branch.value,
                                                                branch.children)
    stack = [(node, node.idx, node.w)]
    while stack:
        current, idx, w = stack.pop()
        current.idx, current.w = idx, w
        if current.is_leaf:
            current.dist = grower.leaf_distribution(idx, w)
            if not S.eq(S.seq_sum(w), 0):
                current.empty = False
            continue
        current.dist = grower.distribution(current, idx, w)
        parts = grower.split(current, idx, w, current.dist)
        stack.extend((child, i, cw) for child, (i, cw) in zip(current.children, parts))
