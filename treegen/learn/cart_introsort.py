"""The orders scikit-learn 1.9 leaves a node's rows in, for sums that depend on them: its
introsort (``simultaneous_sort`` in sklearn/utils/_sorting.pyx, 3-way partition), the partition
of a split (``partition_samples_final``) and the move of missing values to the end of a node
(``sort_samples_and_feature_values``), all in place and not stable.

Each function gives a permutation: row ``i`` of the result is the row ``order[i]`` before.
Both partitions scan from the front and swap a row bound for the end with the last row not yet
seen, which is looked at next; numpy replays that scan for many segments at once in a few passes
(:func:`partition_segments`), so the introsort of many rows goes one level of its recursion at a
time and costs no Python loop; few rows go through its own loops in Python.
"""
from __future__ import annotations

import math

import numpy as np

INSERTION_SORT = 15  # the introsort's small segments: insertion sort (stable)
IN_PYTHON = 4096  # up to this many rows, the introsort's own loops in Python (faster there)
DISTINCT_CHECK = 32  # from this many rows on, the Python loops first look for a tie


def introsort_order(values: np.ndarray) -> np.ndarray:
    """The permutation ``simultaneous_sort(values, indices, n, use_three_way_partition=True)``
    makes: median of three, ``<``/``==``/``>`` partition, heapsort past ``2*log2(n)`` levels,
    insertion sort below 16 values. NaN must not occur. Few values: its own loops in Python;
    more: one level of its recursion at a time, every segment of a level partitioned at once."""
    n = len(values)
    if n <= IN_PYTHON:
        return _in_python(values, 2 * int(math.log2(n))) if n > 1 else np.arange(n)
    v, order = values.copy(), np.arange(n)
    _, value, count = np.unique(values, return_inverse=True, return_counts=True)
    copies = count[value]  # per row: the rows of its value
    lo, size, depth = np.array([0]), np.array([n]), np.array([2 * int(math.log2(n))])
    stable = []  # (starts, sizes) of segments that end stably sorted: small, or without ties
    while len(lo):
        # the rows of one value always share a segment (a partition parts rows by value)
        positions, segment, _ = _positions(lo, size)
        ties = np.bincount(segment, weights=copies[positions] > 1, minlength=len(lo)) > 0
        one_value = copies[lo] == size
        still = ~(one_value & ((depth > 0) | (size <= INSERTION_SORT)))  # one value: rows stay
        sort = still & ((size <= INSERTION_SORT) | ~ties)
        stable.append((lo[sort], size[sort]))
        for start, rows, d in zip(*(x[still & ~sort & (depth <= 0)] for x in (lo, size, depth))):
            part = slice(start, start + rows)  # heapsort: rare, in Python
            moved = _in_python(v[part], d)
            v[part], order[part], copies[part] = v[part][moved], order[part][moved], copies[part][moved]
        split = still & ~sort & (depth > 0)
        lo, size, depth = lo[split], size[split], depth[split] - 1
        if not len(lo):
            break
        positions, arranged, low, high = partition_segments(v, lo, size, _medians_of_three(
            v[lo], v[lo + size // 2], v[lo + size - 1]))
        v[positions], order[positions], copies[positions] = v[arranged], order[arranged], copies[arranged]
        lo, size, depth = (np.concatenate([lo, lo + high]), np.concatenate([low, size - high]),
                           np.concatenate([depth, depth]))
        keep = size > 1
        lo, size, depth = lo[keep], size[keep], depth[keep]
    starts, sizes = (np.concatenate(x) for x in zip(*stable))
    if len(starts):
        positions, segment, _ = _positions(starts, sizes)
        moved = positions[np.lexsort((v[positions], segment))]
        v[positions], order[positions] = v[moved], order[moved]
    return order


def swap_partition(goes_left: np.ndarray) -> np.ndarray:
    """The order ``partition_samples_final`` leaves rows in: a row going right swaps with the
    last row not yet seen, which is looked at next (:func:`partition_segments` with every row
    going left equal to the pivot)."""
    if len(goes_left) <= IN_PYTHON:
        return np.array(_swap_partition_in_python(goes_left.tolist()), dtype=np.int64)
    n = len(goes_left)
    return partition_segments((~goes_left).astype(np.float32), np.array([0]), np.array([n]),
                              np.zeros(1, dtype=np.float32))[1]


def _swap_partition_in_python(goes_left: list) -> list:
    order = list(range(len(goes_left)))
    low, high = 0, len(order)
    while low < high:
        if goes_left[order[low]]:
            low += 1
        else:
            high -= 1
            order[low], order[high] = order[high], order[low]
    return order


def missing_to_the_end(missing: np.ndarray) -> np.ndarray:
    """The order ``sort_samples_and_feature_values`` leaves rows in before sorting: scanning from
    the front, each missing row swaps with the last present row not yet passed."""
    order = np.arange(len(missing))
    present = len(missing) - int(missing.sum())
    front = np.flatnonzero(missing[:present])
    back = present + np.flatnonzero(~missing[present:])[::-1]
    order[front], order[back] = back, front
    return order


def partition_segments(v: np.ndarray, starts: np.ndarray, sizes: np.ndarray, pivots: np.ndarray):
    """The loop of ``introsort_3way`` on every segment ``v[starts[g]:starts[g] + sizes[g]]`` at
    once: a row less than the pivot swaps with the first row equal to it, a larger one with the
    last row not yet seen. The segments' positions (in segment order), the positions whose values
    go there, and per segment where the equal rows start and end.

    The scan looks at the next row from the front after a row it keeps, at the last row not yet
    seen (swapped into its place) after a larger one. So the k-th larger row from the front is
    followed by the rows from the back up to the k-th one kept there; the scan stops where front
    and back meet. Larger rows fill the segment from the end in the order the scan meets them;
    kept rows from the front, the less ones first (:func:`_equal_rows` for the others)."""
    positions, segment, offset = _positions(starts, sizes)  # offset: each segment's first place in them
    local = positions - starts[segment]
    size = sizes[segment]
    values = v[positions]
    less, greater = values < pivots[segment], values > pivots[segment]
    from_back = offset[segment] + size - 1 - local  # the place of the row at the same place from the end
    back_greater = greater[from_back]
    back_kept = np.flatnonzero(~back_greater)  # (places in back order, by segment, from the end)
    kept_count = np.bincount(segment[back_kept], minlength=len(starts))
    kept_first = np.concatenate([[0], np.cumsum(kept_count)[:-1]])
    back_at = local[back_kept]  # their distances from the end
    sent = _running_count(greater, offset, segment)  # larger rows from the front so far
    trips = sent - 1
    reached = (sent >= 1) & (sent <= kept_count[segment])
    consumed = np.where(sent == 0, 0, size)  # rows the back has given once this row is done
    consumed[reached] = back_at[kept_first[segment[reached]] + trips[reached]] + 1
    done = np.where(local + 1 + consumed >= size, np.arange(len(local)), len(local))
    front = np.minimum.reduceat(done, offset) - offset + 1  # rows taken from the front
    seen_back = (sizes - front)[segment]
    in_front = local < front[segment]
    kept_seen = np.bincount(segment[back_kept][back_at < seen_back[back_kept]], minlength=len(starts))
    refilled = in_front & greater & (trips < kept_seen[segment])
    kept = np.arange(len(local))
    rows = np.flatnonzero(refilled)
    kept[rows] = from_back[back_kept[kept_first[segment[rows]] + trips[rows]]]
    kept = kept[in_front & (~greater | refilled)]
    front_sent = np.flatnonzero(in_front & greater)
    back_sent = np.flatnonzero(back_greater & (local < seen_back))
    key_trip = np.concatenate([trips[front_sent], _running_count(~back_greater, offset, segment)[back_sent]])
    key_back = np.concatenate([np.zeros(len(front_sent), np.int64), local[back_sent] + 1])
    sent_rows = np.concatenate([front_sent, from_back[back_sent]])
    sent_rows = sent_rows[np.lexsort((-key_back, -key_trip, segment[sent_rows]))]  # from the end
    kept_less = less[kept]
    equal = _equal_rows(kept, kept_less, segment[kept], len(starts))
    low = np.bincount(segment[kept[kept_less]], minlength=len(starts))
    high = low + np.bincount(segment[equal], minlength=len(starts))
    placed = np.concatenate([kept[kept_less], equal, sent_rows])
    part = np.repeat([0, 1, 2], [int(kept_less.sum()), len(equal), len(sent_rows)])
    placed = placed[np.lexsort((part, segment[placed]))]
    return positions, positions[placed], low, high


def _equal_rows(kept: np.ndarray, kept_less: np.ndarray, segment: np.ndarray, segments: int):
    """The order the rows equal to the pivot end in, per segment. They sit between the less rows
    and the scan; each less row kept after one of them swaps with the first, which moves to the
    back: a queue turned once per such less row. Written as a tape (each equal row, each turn's
    copy of the queue's head) whose last entries are the queue; copies are followed to rows."""
    starts = np.searchsorted(segment, np.arange(segments))
    turns = kept_less & (_running_count(~kept_less, starts, segment) > 0)
    on_tape = ~kept_less | turns
    tape, tape_segment, tape_turns = kept[on_tape], segment[on_tape], turns[on_tape]
    tape_starts = np.searchsorted(tape_segment, np.arange(segments))
    source = np.arange(len(tape))
    turned = np.flatnonzero(tape_turns)  # the t-th turn of a segment copies its t-th entry
    turn = _running_count(tape_turns, tape_starts, tape_segment)[turned] - 1
    source[turned] = tape_starts[tape_segment[turned]] + turn
    while True:
        followed = source[source]
        if (followed == source).all():
            break
        source = followed
    head = np.bincount(tape_segment[turned], minlength=segments)
    queue = np.arange(len(tape)) - tape_starts[tape_segment] >= head[tape_segment]
    return tape[source[queue]]


def _running_count(flags: np.ndarray, starts: np.ndarray, segment: np.ndarray) -> np.ndarray:
    """Per place: the flags set from its segment's start up to it (inclusive)."""
    count = np.cumsum(flags)
    before = np.concatenate([[0], count])[starts]
    return count - before[segment]


def _positions(starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positions of segments, one after the other, the segment of each, and where each
    segment's positions begin among them."""
    segment = np.repeat(np.arange(len(starts)), sizes)
    offset = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return starts[segment] + np.arange(len(segment)) - offset[segment], segment, offset


def _medians_of_three(a, b, c):
    """``median3`` of the introsort, elementwise."""
    return np.where(a < b, np.where(b < c, b, np.maximum(a, c)), np.where(b < c, np.minimum(a, c), b))


def _median3(a, b, c):
    if a < b:
        return b if b < c else max(a, c)
    if b < c:
        return min(c, a)
    return b


def _in_python(values: np.ndarray, depth: int) -> np.ndarray:
    """``introsort_3way`` of one segment, its own loops in Python (small segments, heapsort)."""
    keys = values.tolist()
    index = list(range(len(keys)))
    _introsort(keys, index, 0, len(keys), depth)
    return np.array(index, dtype=np.int64)


def _introsort(v: list, ix: list, lo: int, n: int, depth: int) -> None:
    while n > INSERTION_SORT:
        if n >= DISTINCT_CHECK and len(set(v[lo:lo + n])) == n:  # distinct: any sort, in C
            rows = sorted(range(lo, lo + n), key=v.__getitem__)
            v[lo:lo + n], ix[lo:lo + n] = [v[r] for r in rows], [ix[r] for r in rows]
            return
        if depth <= 0:
            _heapsort(v, ix, lo, n)
            return
        depth -= 1
        pivot = _median3(v[lo], v[lo + n // 2], v[lo + n - 1])
        i = low = lo
        high = lo + n
        while i < high:
            if v[i] < pivot:
                v[i], v[low] = v[low], v[i]
                ix[i], ix[low] = ix[low], ix[i]
                i += 1
                low += 1
            elif v[i] > pivot:
                high -= 1
                v[i], v[high] = v[high], v[i]
                ix[i], ix[high] = ix[high], ix[i]
            else:
                i += 1
        _introsort(v, ix, lo, low - lo, depth)
        n -= high - lo
        lo = high
    _insertion_sort(v, ix, lo, n)


def _insertion_sort(v: list, ix: list, lo: int, n: int) -> None:
    for i in range(lo + 1, lo + n):
        value, row = v[i], ix[i]
        j = i
        while j > lo and v[j - 1] > value:
            v[j], ix[j] = v[j - 1], ix[j - 1]
            j -= 1
        v[j], ix[j] = value, row


def _heapsort(v: list, ix: list, lo: int, n: int) -> None:
    start = (n - 2) // 2
    while True:
        _sift_down(v, ix, lo, start, n)
        if start == 0:
            break
        start -= 1
    end = n - 1
    while end > 0:
        v[lo], v[lo + end] = v[lo + end], v[lo]
        ix[lo], ix[lo + end] = ix[lo + end], ix[lo]
        _sift_down(v, ix, lo, 0, end)
        end -= 1


def _sift_down(v: list, ix: list, lo: int, root: int, end: int) -> None:
    while True:
        child = root * 2 + 1
        top = root
        if child < end and v[lo + top] < v[lo + child]:
            top = child
        if child + 1 < end and v[lo + top] < v[lo + child + 1]:
            top = child + 1
        if top == root:
            return
        a, b = lo + root, lo + top
        v[a], v[b] = v[b], v[a]
        ix[a], ix[b] = ix[b], ix[a]
        root = top
