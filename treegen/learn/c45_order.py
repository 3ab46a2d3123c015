"""The row order J48 leaves a node's instances in (Weka 3.6), for sums that depend on it.

``C45ModelSelection`` evaluates the attributes in turn on one ``Instances`` object, and
``C45Split`` sorts it in place by each numeric attribute it evaluates (``Instances.sort``: a
missing value counts as ``Double.MAX_VALUE``; ``Utils.sortWithNoMissingValues``, a quicksort with
a median-of-three pivot, not stable). The chosen split's distribution is added up in the order
its attribute saw, the rows go to the branches in the order the last sort left, and a leaf adds
its (fractional) weights in that order: their last bits follow it. :func:`weka_sort` replays the
quicksort on a node's values and gives the same permutation; :func:`weka_sort_segments` does it for
many nodes at once (the nodes of one level of the tree).
"""
from __future__ import annotations

import bisect
import math
import sys

import numpy as np

MISSING_KEY = sys.float_info.max  # Instances.sort: a missing value sorts as Double.MAX_VALUE
BY_LEVELS = 3000  # from this many rows on, numpy sorts a level of the recursion at a time
SHIFT, ROW = 32, (1 << 32) - 1  # a rank and a row packed in one integer


def weka_sort(values: np.ndarray) -> np.ndarray:
    """The permutation ``Instances.sort`` makes of rows with these values (NaN: missing):
    row ``i`` of the result is the row ``weka_sort(values)[i]`` before."""
    return weka_sort_segments(ranks_of(values), np.array([0, len(values)]))


def ranks_of(values: np.ndarray) -> np.ndarray:
    """Each value's rank among the distinct values, a missing one last (as ``Instances.sort`` puts
    it, at ``Double.MAX_VALUE``): integers that compare as the values do."""
    return np.unique(np.where(np.isnan(values), MISSING_KEY, values), return_inverse=True)[1].ravel()


def weka_sort_segments(ranks: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """``weka_sort`` of several row sets at once, each sorted on its own, by their values'
    ``ranks_of``: the rows ``bounds[i]:bounds[i + 1]`` are one set. The result is a permutation of
    all positions that keeps every set in its place."""
    sizes = np.diff(bounds)
    keys = ranks if len(sizes) == 1 else np.repeat(np.arange(len(sizes)), sizes) * (int(ranks.max()) + 1) + ranks
    order, ordered = _sorted_keys(keys)
    tie = ordered[1:] == ordered[:-1]
    if not tie.any():  # distinct keys have one sorted order
        return order
    if len(keys) < BY_LEVELS:
        out = np.empty(len(keys), dtype=np.int64)
        for start, end in zip(bounds[:-1], bounds[1:]):
            out[start:end] = start + _sort_in_python(keys[start:end])
        return out
    return _sort_by_levels(order, tie, bounds)


def _sorted_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """An order that sorts the (non-negative) keys, and the keys in it: a sort of each key packed
    with its position takes half the time of an argsort."""
    n = len(keys)
    shift = max(1, (n - 1).bit_length())
    if n and int(keys.max()) >> (62 - shift):
        order = np.argsort(keys)
        return order, keys[order]
    packed = np.sort((keys << shift) | np.arange(n))
    return packed & ((1 << shift) - 1), packed >> shift


def _sort_in_python(keys: np.ndarray) -> np.ndarray:
    """One set's quicksort in Python (:func:`_sort_segment`), for few rows."""
    ordered = np.sort(keys)
    tied = np.unique(ordered[1:][ordered[1:] == ordered[:-1]])  # keys that repeat, sorted
    k, ix = keys.tolist(), list(range(len(keys)))
    if len(tied):
        _sort_segment(k, ix, tied.tolist())
    else:
        ix = np.argsort(keys, kind="stable").tolist()
    return np.array(ix, dtype=np.int64)


def _sort_by_levels(order: np.ndarray, tie: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """The quicksort of every set, one level of its recursion at a time: every segment of a level
    is partitioned at once with numpy (the segments are disjoint, so the order they are done in
    does not matter). The keys are replaced by their ranks (sets apart: the ranks of one set all
    lie below the next set's), which compare as the keys do; rank and row are packed in one
    integer, so a swap moves one array. A segment whose rank range holds no repeated rank can
    only end sorted: it is left as it is. At the end each key that does not repeat goes to its
    place in sorted order (the keys that repeat are in theirs: their segments were sorted to the
    end, by partitions and by the median of three of two or three keys)."""
    n = len(order)
    new_rank = np.concatenate(([0], ~tie))
    rank_of_sorted = np.cumsum(new_rank)
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = rank_of_sorted
    repeated = np.bincount(rank_of_sorted[1:][tie], minlength=rank_of_sorted[-1] + 1) > 0
    repeats = np.concatenate(([0], np.cumsum(repeated)))  # repeated ranks below each rank
    steps = np.arange(n)
    packed = (ranks << SHIFT) | steps
    starts = bounds[:-1]
    segments = np.stack((starts, bounds[1:] - 1, rank_of_sorted[starts], rank_of_sorted[bounds[1:] - 1]))
    while segments.shape[1]:  # a column a segment: its first and last position, lowest and highest rank
        tied = repeats[segments[3] + 1] - repeats[segments[2]] > 0  # its rank range holds a repeated rank
        left, right, low, high = segments[:, tied & (segments[1] > segments[0])]
        center = (left + right) // 2  # two or three keys: the median of three sorts them
        _conditional_swaps(packed, left, center)
        _conditional_swaps(packed, left, right)
        _conditional_swaps(packed, center, right)
        large = right - left >= 3
        left, right, center, low, high = left[large], right[large], center[large], low[large], high[large]
        _swaps(packed, center, right - 1)
        pivot = packed[right - 1] >> SHIFT
        center = _partitions(packed, left, right, pivot, steps)
        _swaps(packed, center, right - 1)
        segments = np.concatenate((np.stack((left, center - 1, low, pivot)), np.stack((center + 1, right, pivot, high))),
                                  axis=1)
    alone = packed[~repeated[packed >> SHIFT]]
    first = np.concatenate(([0], np.flatnonzero(~tie) + 1))  # where each rank starts in sorted order
    packed[first[alone >> SHIFT]] = alone
    return packed & ROW


def _partitions(packed: np.ndarray, left: np.ndarray, right: np.ndarray, pivot: np.ndarray,
                steps: np.ndarray) -> np.ndarray:
    """``Utils.partition`` of every segment around its pivot (at ``right - 1``; the median of three
    put a key <= pivot at ``left``, >= pivot at ``right``). Its left scan stops at the keys >=
    pivot, its right scan at the keys <= pivot; the k-th stops of the two are swapped while the
    left one comes first. Over the inner positions of all segments in a row, with running counts
    A and B of the left and right stops: the left stop at x comes before the right stop of the
    same rank when the right stops after x are at least its rank, that is when A(x) + B(x) is at
    most A before the segment plus B at its end. Every key stops one scan or both (those equal to
    the pivot, few), so A(x) + B(x) is x plus the keys equal to the pivot before x: one search per
    segment among those finds how many (K) are swapped: its first K left stops with its last K
    right stops. The scan that ends it stops at the next left stop (or the pivot), or at the last
    position swapped from the right (it holds a key >= pivot now), whichever is first. ``steps``:
    0, 1, 2, ... (as many as there are positions), made once for every level."""
    inner = right - left - 2
    first = np.cumsum(inner) - inner
    offset = left + 1 - first  # position of an inner key = its index in the row + offset
    at = np.repeat(offset, inner)
    at += steps[:len(at)]
    key = _ranks_view(packed)[at]
    pivots = np.repeat(pivot.astype(np.int32), inner)
    at_left, at_right = np.flatnonzero(key >= pivots), np.flatnonzero(key <= pivots)
    at_pivot = np.flatnonzero(key == pivots)
    edges = np.append(first, len(at))  # where each segment starts in the row, and the row's end
    lefts = np.searchsorted(at_left, edges)
    before_left, end_left = lefts[:-1], lefts[1:]
    end_right = np.searchsorted(at_right, edges[1:])
    ahead = _positions_counted(at_pivot, before_left + end_right)
    swaps = np.searchsorted(at_left, ahead) - before_left
    done_before = np.cumsum(swaps) - swaps
    kth = steps[:int(swaps.sum())]
    lo = at[at_left[np.repeat(before_left - done_before, swaps) + kth]]
    hi = at[at_right[np.repeat(end_right - 1 + done_before, swaps) - kth]]
    packed[lo], packed[hi] = packed[hi], packed[lo]
    out = right - 1
    more = before_left + swaps < end_left
    out[more] = at[at_left[(before_left + swaps)[more]]]
    done = swaps > 0
    out[done] = np.minimum(out[done], at[at_right[(end_right - swaps)[done]]])
    return out


def _positions_counted(at_pivot: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """For each count v, how many positions i have ``i + 1 + (keys equal to the pivot at i or
    before) <= v`` (A + B through i): that sum grows by one at each position and by one more at
    each of ``at_pivot``. With k of those at or before the answer, it is ``v - k``, short of the
    next one."""
    k = np.searchsorted(at_pivot + np.arange(2, len(at_pivot) + 2), counts, side="right")
    next_pivot = np.append(at_pivot, np.iinfo(np.int64).max)[k]
    return np.minimum(counts - k, next_pivot)


def _ranks_view(packed: np.ndarray) -> np.ndarray:
    """The ranks of ``packed`` (its high 32 bits) as an int32 view: compared without a shift, in
    half the memory."""
    return packed.view(np.int32)[1::2] if sys.byteorder == "little" else packed.view(np.int32)[::2]


def _conditional_swaps(packed: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    greater = packed[a] > packed[b] | ROW  # a greater rank
    _swaps(packed, a[greater], b[greater])


def _swaps(packed: np.ndarray, a: np.ndarray, b: np.ndarray) -> None:
    packed[a], packed[b] = packed[b], packed[a].copy()


def _sort_segment(k: list, ix: list, tied: list) -> None:
    """``Utils.quickSort`` on keys ``k`` kept in the index's order, on an explicit stack, its steps
    written out (for few rows: ~1.3 us a row, where the numpy levels take ~0.4 us with many):
    compare-and-swap one to three keys; else the median of three to the pivot (at ``right - 1``),
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
