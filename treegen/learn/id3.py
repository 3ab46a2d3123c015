"""ID3 (Quinlan 1986): information gain over nominal features, one child per category.

* Stops at a pure node, or when no feature is left.
* A category with no training rows at a node gets a leaf that predicts the node's own class
  distribution (its majority class), as does a value never seen in training or a missing value
  at prediction time: every split routes them to "stop".
* Ties: among features with equal gain, the first in column order; among classes with equal
  weight, the first in the target's class order.
* Numeric features and missing values in training are refused: ID3 has no rule for them; C4.5 and
  CART do.
"""
from __future__ import annotations

import numpy as np

from ..data import Dataset
from ..errors import TreegenError
from ..model import Model, MissingRoute, Node, Split, Tree
from .criteria import info_gain
from ..progress import settled
from ..table import name_argument


def fit(dataset: Dataset, max_depth: int | None = None) -> Model:
    _check(dataset)
    width = len(dataset.target.classes)
    codes = np.column_stack(dataset.columns) if dataset.columns else np.zeros((len(dataset), 0), int)
    y, w = dataset.y, dataset.weights
    nodes: list[Node] = []
    children_of: dict[int, list[int]] = {}
    # Explicit stack of (parent id, rows, features still available, depth, fallback distribution).
    stack = [(None, np.arange(len(y)), tuple(range(len(dataset.features))), 0, None)]
    while stack:
        parent, rows, available, depth, fallback = stack.pop()
        counts = np.bincount(y[rows], weights=w[rows], minlength=width)
        node_id = len(nodes)
        value = fallback if counts.sum() == 0 else counts / counts.sum()
        nodes.append(Node(tuple(float(v) for v in value), tuple(float(c) for c in counts), float(counts.sum())))
        if parent is not None:
            children_of[parent].append(node_id)
        pure = np.count_nonzero(counts) <= 1
        if pure or not available or (max_depth is not None and depth >= max_depth):
            settled(counts.sum())
            continue
        best = _best_feature(dataset, codes, rows, available, counts, width)
        feature = dataset.features[best]
        nodes[node_id].split = Split(best, "==", values=feature.categories, missing=MissingRoute.stop())
        children_of[node_id] = []
        remaining = tuple(f for f in available if f != best)
        column = codes[rows, best]
        for k in reversed(range(len(feature.categories))):
            stack.append((node_id, rows[column == k], remaining, depth + 1, value))
    for node_id, children in children_of.items():
        nodes[node_id].children = tuple(children)
    return Model(dataset.features, dataset.target, [Tree(nodes)],
                 meta={"algorithm": "id3", "params": {"max_depth": max_depth}})


def _best_feature(dataset: Dataset, codes: np.ndarray, rows: np.ndarray, available, counts, width) -> int:
    best, best_gain = available[0], -np.inf
    for f in available:
        k = len(dataset.features[f].categories)
        table = np.bincount(codes[rows, f] * width + dataset.y[rows], weights=dataset.weights[rows],
                            minlength=k * width).reshape(k, width)
        gain = info_gain(counts, table)
        if gain > best_gain + 1e-12:  # strictly better beyond rounding noise: first feature wins ties
            best, best_gain = f, gain
    return best


def _check(dataset: Dataset) -> None:
    if not (dataset.weights > 0).any():  # (no class to give the root: its weights sum to 0)
        raise TreegenError("every row has weight zero: nothing to learn from")
    if not dataset.target.is_classification:
        said = f"ID3 classifies; the target {dataset.target.name!r} is numeric "
        raise TreegenError(said + "(use algorithm='cart' for regression, or nominal= to treat it as classes)",
                           command_line=said + "(use --algorithm cart for regression, or --nominal to treat it as "
                           "classes)")
    for feature, column in zip(dataset.features, dataset.columns):
        if feature.is_numeric:
            said = f"ID3 handles nominal features only and {feature.name!r} is numeric: use "
            raise TreegenError(said + f"algorithm='c45' or 'cart', or nominal=[{feature.name!r}]",
                               command_line=f"{said}--algorithm c45 or cart, or --nominal "
                                            + name_argument(feature.name))
        if (column < 0).any():
            said = f"ID3 cannot learn from missing values (feature {feature.name!r}): use "
            raise TreegenError(said + "algorithm='c45' or 'cart'", command_line=said + "--algorithm c45 or cart")
