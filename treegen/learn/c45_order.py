"""The row order J48 leaves a node's instances in (Weka 3.6), for sums that depend on it.

``C45ModelSelection`` evaluates the attributes in turn on one ``Instances`` object, and
``C45Split`` sorts it in place by each numeric attribute it evaluates (``Instances.sort``: a
missing value counts as ``Double.MAX_VALUE``; ``Utils.sortWithNoMissingValues``, a quicksort with
a median-of-three pivot, not stable). The chosen split's distribution is added up in the order
its attribute saw, the rows go to the branches in the order the last sort left, and a leaf adds
its (fractional) weights in that order: their last bits follow it. :func:`weka_sort` replays the
quicksort on a node's values and gives the same permutation.
"""
from __future__ import annotations

import bisect
import math
import sys

import numpy as np

MISSING_KEY = sys.float_info.max  # Instances.sort: a missing value sorts as Double.MAX_VALUE
BY_LEVELS = 3000  # from this many rows on, numpy sorts a level of the recursion at a time


def weka_sort(values: np.ndarray) -> np.ndarray:
    """The permutation ``Instances.sort`` makes of rows with these values (NaN: missing):
    row ``i`` of the result is the row ``weka_sort(values)[i]`` before."""
    keys = np.where(np.isnan(values), MISSING_KEY, values)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    if not (ordered[1:] == ordered[:-1]).any():  # distinct keys have one sorted order
        return order
    tied = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])  # keys that repeat, sorted
    if len(keys) >= BY_LEVELS:
        return _sort_by_levels(keys, tied)
    k, ix = keys.tolist(), list(range(len(keys)))
    _sort_segment(k, ix, tied.tolist())
    return np.array(ix, dtype=np.int64)


def _sort_by_levels(keys: np.ndarray, tied: np.ndarray) -> np.ndarray:
    """The same quicksort, one level of its recursion at a time: every segment of a level is
    partitioned at once with numpy (the segments are disjoint, so the order they are done in does
    not matter). A segment whose key range holds no repeated key is put aside and sorted at the end."""
    k, ix = keys.copy(), np.arange(len(keys))
    lefts, rights = np.array([0]), np.array([len(keys) - 1])
    lows, highs = np.array([-np.inf]), np.array([np.inf])
    distinct_lefts, distinct_rights = [], []
    while len(lefts):
        first_tie = np.minimum(np.searchsorted(tied, lows), len(tied) - 1)
        distinct = (tied[first_tie] < lows) | (tied[first_tie] > highs)
        distinct_lefts.append(lefts[distinct])
        distinct_rights.append(rights[distinct])
        lefts, rights, lows, highs = lefts[~distinct], rights[~distinct], lows[~distinct], highs[~distinct]
        diff = rights - lefts
        left, right = lefts[diff == 1], rights[diff == 1]
        _conditional_swaps(k, ix, left, right)
        left, right = lefts[diff == 2], rights[diff == 2]
        _conditional_swaps(k, ix, left, left + 1)
        _conditional_swaps(k, ix, left, right)
        _conditional_swaps(k, ix, left + 1, right)
        big = diff >= 3
        left, right, low, high = lefts[big], rights[big], lows[big], highs[big]
        center = (left + right) // 2
        _conditional_swaps(k, ix, left, center)
        _conditional_swaps(k, ix, left, right)
        _conditional_swaps(k, ix, center, right)
        _swaps(k, ix, center, right - 1)
        pivot = k[right - 1]
        center = _partitions(k, ix, left, right)
        _swaps(k, ix, center, right - 1)
        lefts, rights = np.concatenate((left, center + 1)), np.concatenate((center - 1, right))
        lows, highs = np.concatenate((low, pivot)), np.concatenate((pivot, high))
    position, segment = _positions(np.concatenate(distinct_lefts), np.concatenate(distinct_rights))
    in_order = position[np.lexsort((k[position], segment))]
    k[position], ix[position] = k[in_order], ix[in_order]
    return ix


def _positions(left: np.ndarray, right: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every position of the segments [left, right] and the segment it is in."""
    sizes = right - left + 1
    segment = np.repeat(np.arange(len(left)), sizes)
    return np.arange(len(segment)) - np.repeat(np.cumsum(sizes) - sizes, sizes) + left[segment], segment


def _partitions(k: np.ndarray, ix: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``Utils.partition`` of every segment around its pivot (at ``right - 1``). Its left scan stops
    at the keys >= pivot, its right scan at the keys <= pivot; the k-th stops of the two are swapped
    while the left one comes first. The scan that ends it stops at the next stop from the left, or
    at the last position swapped from the right (it holds a key >= pivot now), whichever is first."""
    position, segment = _positions(left, right)
    key, pivot, end = k[position], k[right - 1][segment], right[segment]
    stops_left = (key >= pivot) & (position > left[segment]) & (position < end)
    stops_right = (key <= pivot) & (position < end - 1)
    from_left, from_right = position[stops_left], position[stops_right]
    n_left = np.bincount(segment[stops_left], minlength=len(left))
    n_right = np.bincount(segment[stops_right], minlength=len(left))
    start_left, end_right = np.cumsum(n_left) - n_left, np.cumsum(n_right) - 1
    pairs = np.minimum(n_left, n_right)
    pair_segment = np.repeat(np.arange(len(left)), pairs)
    kth = np.arange(len(pair_segment)) - np.repeat(np.cumsum(pairs) - pairs, pairs)
    lo, hi = from_left[start_left[pair_segment] + kth], from_right[end_right[pair_segment] - kth]
    swapped = lo < hi
    _swaps(k, ix, lo[swapped], hi[swapped])
    done = np.bincount(pair_segment[swapped], minlength=len(left))
    next_stop = from_left[start_left + done]
    last_swapped = np.where(done > 0, from_right[np.where(done > 0, end_right - done + 1, 0)], right - 1)
    return np.minimum(next_stop, last_swapped)


def _conditional_swaps(k: np.ndarray, ix: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    greater = k[a] > k[b]
    _swaps(k, ix, a[greater], b[greater])


def _swaps(k: np.ndarray, ix: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    k[a], k[b] = k[b], k[a].copy()
    ix[a], ix[b] = ix[b], ix[a].copy()


def _sort_segment(k: list, ix: list, tied: list) -> None:
    """``Utils.quickSort`` on keys ``k`` kept in the index's order, on an explicit stack, its steps
    written out (this loop is where a fit with missing values spends its time): compare-and-swap
    one to three keys; else the median of three to the pivot (at ``right - 1``),
    ``Utils.partition`` around it, the pivot to its place between the two sides. A side's keys lie
    between the pivots around it; where no key repeated in the whole array (``tied``, sorted) lies
    there, its keys are distinct and can only end sorted, so it is sorted at once."""
    stack = [(0, len(k) - 1, -math.inf, math.inf)]
    while stack:
        left, right, low, high = stack.pop()
        if right - left < 3:
            steps = ((left, left + 1), (left, right), (left + 1, right)) if right - left == 2 else ((left, right),)
        else:
            first_tie = bisect.bisect_left(tied, low)
            if first_tie == len(tied) or tied[first_tie] > high:
                pairs = sorted(zip(k[left:right + 1], ix[left:right + 1]))
                k[left:right + 1], ix[left:right + 1] = [key for key, _ in pairs], [row for _, row in pairs]
                continue
            center, last = (left + right) // 2, right - 1
            steps = ((left, center), (left, right), (center, right))
        for a, b in steps:
            if k[a] > k[b]:
                k[a], k[b], ix[a], ix[b] = k[b], k[a], ix[b], ix[a]
        if right - left < 3:
            continue
        k[center], k[last], ix[center], ix[last] = k[last], k[center], ix[last], ix[center]
        pivot, lo, hi = k[last], left, last
        while True:
            lo += 1
            while k[lo] < pivot:
                lo += 1
            hi -= 1
            while k[hi] > pivot:
                hi -= 1
            if lo >= hi:
                break
            k[lo], k[hi], ix[lo], ix[hi] = k[hi], k[lo], ix[hi], ix[lo]
        k[lo], k[last], ix[lo], ix[last] = k[last], k[lo], ix[last], ix[lo]
        stack.append((lo + 1, right, pivot, high))
        stack.append((left, lo - 1, low, pivot))
