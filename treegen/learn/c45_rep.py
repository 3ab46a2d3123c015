"""J48's reduced-error pruning (``J48 -R -N folds -Q seed``, Weka 3.6 ``PruneableClassifierTree``).

The data are stratified into folds as Weka's ``Instances.stratify`` does, the last fold is held
out for pruning, the rest shuffled with ``java.util.Random(seed)`` (order matters to Weka's ties),
the tree grown on them and pruned bottom up wherever a leaf makes no more errors on the held-out
rows than the subtree.
"""
from __future__ import annotations

import numpy as np

from . import c45_split as S

MASK = (1 << 48) - 1


class JavaRandom:
    """``java.util.Random``: the 48-bit linear congruential generator, bit for bit."""

    def __init__(self, seed: int):
        self.seed = (seed ^ 0x5DEECE66D) & MASK

    def next(self, bits: int) -> int:
        self.seed = (self.seed * 0x5DEECE66D + 0xB) & MASK
        value = self.seed >> (48 - bits)
        return value - (1 << bits) if value >= 1 << (bits - 1) and bits == 32 else value

    def next_int(self, bound: int) -> int:
        if bound & -bound == bound:  # a power of two
            return (bound * self.next(31)) >> 31
        while True:
            bits = self.next(31)
            value = bits % bound
            if bits - value + (bound - 1) < 1 << 31:  # Java's int overflow test
                return value


def stratified_order(y: np.ndarray, folds: int) -> list[int]:
    """Row order after ``Instances.stratify(folds)``: grouped by class as Weka's swapping loop
    groups them, then dealt round-robin into ``folds`` (``stratStep``)."""
    order = list(range(len(y)))
    index = 1
    while index < len(order):
        first = y[order[index - 1]]
        for j in range(index, len(order)):
            if y[order[j]] == first:
                order[index], order[j] = order[j], order[index]
                index += 1
        index += 1
    return [order[j] for start in range(folds) for j in range(start, len(order), folds)]


def train_and_prune_rows(y: np.ndarray, folds: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``trainCV(folds, folds - 1, Random(seed))`` and ``testCV(folds, folds - 1)`` of the stratified data."""
    order = stratified_order(y, folds)
    n, fold = len(order), folds - 1
    size = n // folds + (1 if fold < n % folds else 0)
    first = fold * (n // folds) + (fold if fold < n % folds else n % folds)
    test = order[first:first + size]
    train = order[:first] + order[first + size:]
    random = JavaRandom(seed)
    for j in range(len(train) - 1, 0, -1):  # Instances.randomize
        k = random.next_int(j + 1)
        train[j], train[k] = train[k], train[j]
    return np.array(train, dtype=np.int64), np.array(test, dtype=np.int64)


def reduced_error_prune(root, grower, test_rows: np.ndarray) -> None:
    """Send the held-out rows down the tree, then make a leaf of every node (bottom up) whose
    training majority class misclassifies no more held-out weight than its subtree does. A branch
    without training weight counts its held-out rows against its parent's majority class, as
    J48 predicts for it."""
    held_out = {}  # id(node) -> class weights of the held-out rows reaching it
    order, stack = [], [(root, test_rows, grower.data.weights[test_rows].astype(np.float64))]
    while stack:
        node, idx, w = stack.pop()
        order.append(node)
        held_out[id(node)] = grower.class_counts(idx, w)
        if not node.is_leaf:
            parts = grower.split(node, idx, w, node.dist)
            stack.extend((child, i, cw) for child, (i, cw) in zip(node.children, parts))
    errors = {}
    for node in reversed(order):  # children before parents
        as_leaf = misclassified(held_out[id(node)], node.dist.per_class)
        if node.is_leaf:
            errors[id(node)] = as_leaf
            continue
        majority = node.dist.per_class
        tree = 0.0
        for child, weight in zip(node.children, node.dist.per_bag):
            tree += misclassified(held_out[id(child)], majority) if S.eq(weight, 0) else errors[id(child)]
        if S.sm_or_eq(as_leaf, tree):
            node.make_leaf()
        errors[id(node)] = as_leaf if node.is_leaf else tree


def misclassified(held_out: np.ndarray, training: np.ndarray) -> float:
    """Held-out weight not of the training majority class."""
    return float(held_out.sum()) - float(held_out[S.max_class(training)])
