"""J48's split search (Weka 3.6 ``C45Split`` + ``C45ModelSelection``), vectorised with numpy.

Arithmetic follows Weka's: entropies are sums of ``x log2 x`` terms in Weka's order, and every
comparison that Weka makes with its tolerance ``Utils.SMALL = 1e-6`` is made with the same
tolerance here (:func:`gr`, :func:`sm_or_eq` ...). Ties between candidates are broken as J48 does:
scanning in order, a later candidate wins only when it is better by more than 1e-6.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

SMALL = 1e-6  # Weka's Utils.SMALL
LOG2 = math.log(2)


def gr(a: float, b: float) -> bool:
    return a - b > SMALL


def sm(a: float, b: float) -> bool:
    return b - a > SMALL


def eq(a: float, b: float) -> bool:
    return abs(a - b) < SMALL


def sm_or_eq(a: float, b: float) -> bool:
    return a - b < SMALL or a <= b


def gr_or_eq(a: float, b: float) -> bool:
    return b - a < SMALL or a >= b


def log_func(x):
    """Weka's ``x * log2(x)``, 0 below 1e-6; elementwise on arrays."""
    x = np.asarray(x, dtype=np.float64)
    small = x < SMALL
    return np.where(small, 0.0, x * np.log(np.where(small, 1.0, x)) / LOG2)


def seq_sum(values: np.ndarray, start: float = 0.0) -> float:
    """Left-to-right sum, as Java's loops add (numpy's ``sum`` adds pairwise)."""
    return float(np.cumsum(np.concatenate(([start], values)))[-1]) if len(values) else float(start)


def max_class(counts) -> int:
    """Weka's ``Distribution.maxClass``: the first class whose weight beats the others by 1e-6."""
    best, top = 0, 0.0
    for k, c in enumerate(counts):
        if gr(c, top):
            best, top = k, c
    return best


def num_incorrect(counts) -> float:
    return float(sum(counts)) - float(counts[max_class(counts)]) if len(counts) else 0.0


def first_better(gains: np.ndarray, floor: float = 0.0) -> int:
    """Index of the candidate a Weka scan ``if (Utils.gr(g, best)) best = g`` keeps; -1 if none.

    Only strict running maxima can ever be kept, so the scan runs over those alone.
    """
    if len(gains) == 0:
        return -1
    running = np.maximum.accumulate(gains)
    records = np.flatnonzero(gains > np.concatenate(([-np.inf], running[:-1])))
    best, top = -1, floor
    for i in records:
        if gr(gains[i], top):
            best, top = int(i), float(gains[i])
    return best


# -- Weka's entropy-based criteria -------------------------------------------------------------

def old_ent(class_counts: np.ndarray, total: float) -> float:
    return float(log_func(total)) - seq_sum(log_func(class_counts))


def new_ent(bag_class: np.ndarray, bag_totals: np.ndarray) -> np.ndarray:
    """``newEnt`` for a batch of splits: ``bag_class`` is (..., bags, classes). The terms are added
    left to right in Weka's order: each bag's classes, then minus the bag."""
    terms = np.concatenate([log_func(bag_class), -log_func(bag_totals)[..., None]], axis=-1)
    return -np.cumsum(terms.reshape(*terms.shape[:-2], -1), axis=-1)[..., -1]


def info_gain(old: float, bag_class, bag_totals, known: float, total: float) -> np.ndarray:
    """``InfoGainSplitCrit.splitCritValue``: gain scaled by the known fraction, per known weight."""
    unknown_rate = (total - known) / total
    numerator = (old - new_ent(bag_class, bag_totals)) * (1 - unknown_rate)
    return np.where(np.abs(numerator) < SMALL, 0.0, numerator / known)


def gain_ratio(gain: float, bag_totals: np.ndarray, known: float, total: float) -> float:
    """``GainRatioSplitCrit.splitCritValue``: unknowns count as one more bag in the split info."""
    if not gr(known, 0):
        return 0.0
    split_ent = seq_sum(-log_func(bag_totals)) - float(log_func(total - known)) + float(log_func(total))
    if eq(split_ent, 0):
        return 0.0
    return gain / (split_ent / total)


# -- candidate splits of one attribute -----------------------------------------------------------

@dataclass
class Candidate:
    feature: int
    gain: float  # info gain, MDL-corrected for numeric attributes
    ratio: float
    threshold: float = math.nan  # numeric: midpoint, before J48 moves it to a training value


def nominal_candidate(feature: int, codes: np.ndarray, y: np.ndarray, w: np.ndarray,
                      n_categories: int, n_classes: int, min_leaf: float, total: float) -> Candidate | None:
    known = codes >= 0
    bags = np.bincount(codes[known], weights=w[known], minlength=n_categories)
    cells = np.bincount(codes[known] * n_classes + y[known], weights=w[known],
                        minlength=n_categories * n_classes).reshape(n_categories, n_classes)
    if sum(gr_or_eq(b, min_leaf) for b in bags) <= 1:
        return None
    known_total = seq_sum(w[known])
    old = old_ent(np.bincount(y[known], weights=w[known], minlength=n_classes), known_total)
    gain = float(info_gain(old, cells, bags, known_total, total))
    return Candidate(feature, gain, gain_ratio(gain, bags, known_total, total))


def numeric_candidate(feature: int, values: np.ndarray, y: np.ndarray, w: np.ndarray,
                      n_classes: int, min_leaf: float, total: float, mdl: bool = True) -> Candidate | None:
    """The best binary cut of a numeric attribute, as ``C45Split.handleNumericAttribute`` finds it."""
    known = ~np.isnan(values)
    order = np.argsort(values[known], kind="stable")
    v, yk, wk = values[known][order], y[known][order], w[known][order]
    left_weight = np.cumsum(wk)
    known_total = float(left_weight[-1]) if len(wk) else 0.0
    min_split = 0.1 * known_total / n_classes
    min_split = min_leaf if sm_or_eq(min_split, min_leaf) else 25.0 if gr(min_split, 25) else min_split
    if sm(len(v), 2 * min_split):
        return None
    cuts = np.flatnonzero(v[:-1] + 1e-5 < v[1:])  # cut after position i: left is v[0..i]
    left_w = left_weight[cuts]
    right_w = known_total - left_w
    valid = (min_split - left_w < SMALL) | (left_w >= min_split)
    valid &= (min_split - right_w < SMALL) | (right_w >= min_split)
    cuts = cuts[valid]
    if len(cuts) == 0:
        return None
    onehot = np.zeros((len(v), n_classes))
    onehot[np.arange(len(v)), yk] = wk
    running = np.cumsum(onehot, axis=0)
    left, class_total = running[cuts], running[-1]
    bag_class = np.stack([left, class_total - left], axis=1)
    bag_totals = np.stack([left_weight[cuts], known_total - left_weight[cuts]], axis=1)
    old = old_ent(class_total, known_total)
    gains = info_gain(old, bag_class, bag_totals, known_total, total)
    best = first_better(gains)
    gain = float(gains[best]) if best >= 0 else 0.0
    if mdl:
        gain -= math.log(len(cuts)) / LOG2 / total
    if sm_or_eq(gain, 0):
        return None
    i = cuts[best]
    threshold = (v[i + 1] + v[i]) / 2
    if threshold == v[i + 1]:
        threshold = v[i]
    return Candidate(feature, gain, gain_ratio(gain, bag_totals[best], known_total, total), float(threshold))


def choose(candidates: list[Candidate | None], counted: list[bool]) -> Candidate | None:
    """``C45ModelSelection``: best gain ratio among candidates whose gain is at least the average
    gain (less 1e-3) of the counted candidates."""
    gains = [c.gain for c, keep in zip(candidates, counted) if c is not None and keep]
    if not gains:
        return None
    average = seq_sum(np.array(gains)) / len(gains)
    best, top = None, 0.0
    for c in candidates:
        if c is not None and c.gain >= average - 1e-3 and gr(c.ratio, top):
            best, top = c, c.ratio
    return best if best is not None and not eq(top, 0) else None


def move_to_training_value(threshold: float, values: np.ndarray, distinct: np.ndarray) -> float:
    """``C45Split.setSplitPoint``: the largest training value not above the threshold (within 1e-6).

    ``values`` are the known training values in data order, ``distinct`` the same sorted and
    unique. Weka scans in data order with its 1e-6 tolerance, so when values closer than 1e-6
    compete the scan is replayed; otherwise the largest one wins.
    """
    end = int(np.searchsorted(distinct, threshold, side="right"))
    while end < len(distinct) and distinct[end] - threshold < SMALL:
        end += 1
    if end == 0:
        return -float(np.finfo(np.float64).max)
    if end == 1 or distinct[end - 1] - distinct[end - 2] > SMALL:
        return float(distinct[end - 1])
    below = values[(values - threshold < SMALL) | (values <= threshold)]
    return float(below[first_better(below, -np.finfo(np.float64).max)])
