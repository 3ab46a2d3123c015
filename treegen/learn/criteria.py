"""Split criteria over weighted class counts, in bits, vectorised with numpy.

Every function takes count arrays whose *last* axis is the classes (or the children, for
``split_info``); leading axes are batches, so a learner can score every candidate split at once.
A zero count contributes nothing (``0 log 0 = 0``).
"""
from __future__ import annotations

import numpy as np

from . import libm


def _xlog2x(counts: np.ndarray) -> np.ndarray:
    """``c * log2(c)`` elementwise, 0 where ``c`` is 0 (or negative rounding noise)."""
    counts = np.asarray(counts, dtype=np.float64)
    positive = counts > 0
    return np.where(positive, counts * libm.log2(np.where(positive, counts, 1.0)), 0.0)


def entropy(counts) -> np.ndarray | float:
    """Entropy (bits) of the class distribution given by weighted ``counts`` along the last axis."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (_xlog2x(total) - _xlog2x(counts).sum(axis=-1)) / total
    return np.where(total > 0, value, 0.0)[()]


def info_gain(parent_counts, child_counts) -> np.ndarray | float:
    """Information gain (bits) of splitting ``parent_counts`` into ``child_counts`` (children x classes).

    Leading axes of ``child_counts`` beyond the last two are batches of candidate splits.
    """
    child_counts = np.asarray(child_counts, dtype=np.float64)
    child_weights = child_counts.sum(axis=-1)
    total = np.asarray(parent_counts, dtype=np.float64).sum(axis=-1)
    children = (child_weights * entropy(child_counts)).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, entropy(parent_counts) - children / total, 0.0)[()]


def gini(counts) -> np.ndarray | float:
    """Gini impurity ``1 - sum p_k**2`` of weighted ``counts`` along the last axis (0 when empty).

    >>> round(float(gini([9, 5])), 3)
    0.459
    """
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 1.0 - (counts * counts).sum(axis=-1) / (total * total)
    return np.where(total > 0, value, 0.0)[()]


def split_info(child_weights) -> np.ndarray | float:
    """Split information (bits): the entropy of the weights sent to each child (last axis)."""
    return entropy(child_weights)


def gain_ratio(parent_counts, child_counts) -> np.ndarray | float:
    """Information gain divided by split information; 0 where the split is trivial."""
    child_counts = np.asarray(child_counts, dtype=np.float64)
    gain = info_gain(parent_counts, child_counts)
    info = split_info(child_counts.sum(axis=-1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(info > 0, gain / np.where(info > 0, info, 1.0), 0.0)[()]
