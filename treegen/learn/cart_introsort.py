"""The orders scikit-learn 1.9 leaves a node's rows in, for sums that depend on them: its
introsort (``simultaneous_sort`` in sklearn/utils/_sorting.pyx, 3-way partition), the partition
of a split (``partition_samples_final``) and the move of missing values to the end of a node
(``sort_samples_and_feature_values``), all in place and not stable.

Each function gives a permutation: row ``i`` of the result is the row ``order[i]`` before.
Both partitions scan from the front and swap a row bound for the end with the last row not yet
seen, which is looked at next; numpy replays that scan in a few passes (:func:`_scan`), so a
big node costs no Python loop. The introsort partitions its big segments so and leaves small
ones, and those whose values are distinct (any sort orders them alike), to simpler means.
"""
from __future__ import annotations

import math

import numpy as np

INSERTION_SORT = 15  # the introsort's small segments: insertion sort (stable)
IN_PYTHON = 1024  # segments with ties up to this many rows: the introsort's own loops, in Python
DISTINCT_CHECK = 32  # from this many rows on, the Python loops first look for a tie


def introsort_order(values: np.ndarray) -> np.ndarray:
    """The permutation ``simultaneous_sort(values, indices, n, use_three_way_partition=True)``
    makes: median of three, ``<``/``==``/``>`` partition, heapsort past ``2*log2(n)`` levels,
    insertion sort below 16 values. NaN must not occur."""
    n = len(values)
    order = np.arange(n)
    if n < 2:
        return order
    v = values.copy()
    segments = [(0, n, 2 * int(math.log2(n)))]
    while segments:
        lo, size, depth = segments.pop()
        part = slice(lo, lo + size)
        ordered = np.sort(v[part])
        if size < 2 or (ordered[0] == ordered[-1] and (depth > 0 or size <= INSERTION_SORT)):
            continue  # one value: every row equals the pivot and stays (a heapsort would move them)
        if size <= INSERTION_SORT or not (ordered[1:] == ordered[:-1]).any():  # stable, or distinct
            moved = np.argsort(v[part], kind="stable")
        elif depth <= 0 or size <= IN_PYTHON:
            moved = _in_python(v[part], depth)
        else:
            pivot = _median3(v[lo], v[lo + size // 2], v[lo + size - 1])
            moved, low, high = three_way_partition(v[part], pivot)
            segments += [(lo, low, depth - 1), (lo + high, size - high, depth - 1)]
        v[part], order[part] = v[part][moved], order[part][moved]
    return order


def three_way_partition(values: np.ndarray, pivot) -> tuple[np.ndarray, int, int]:
    """The loop of ``introsort_3way``: a row less than the pivot swaps with the first row equal
    to it, a larger row with the last row not yet seen. The permutation, and where the equal
    rows start and end."""
    less, greater = values < pivot, values > pivot
    kept, bound_for_end = _scan(greater)
    kept_less = less[kept]
    equal = _equal_rows(kept, kept_less)
    low = int(kept_less.sum())
    return np.concatenate([kept[kept_less], equal, bound_for_end[::-1]]), low, low + len(equal)


def swap_partition(goes_left: np.ndarray) -> np.ndarray:
    """The order ``partition_samples_final`` leaves rows in: a row going right swaps with the
    last row not yet seen, which is looked at next."""
    if len(goes_left) <= IN_PYTHON:
        return np.array(_swap_partition_in_python(goes_left.tolist()), dtype=np.int64)
    kept, bound_for_end = _scan(~goes_left)
    return np.concatenate([kept, bound_for_end[::-1]])


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


def _scan(to_end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The rows a front-to-back scan keeps in front, in the order it keeps them, and those it
    sends to the end, in the order it sends them. After a kept row the scan looks at the next row
    from the front; after a row sent to the end, at the last row not yet seen (swapped into its
    place). So the k-th row sent away from the front is followed by the rows of the back, from the
    end, up to the k-th one kept there; the scan stops where front and back meet."""
    n = len(to_end)
    back = to_end[::-1]
    kept_at_back = np.flatnonzero(~back)  # positions from the end of the rows the back keeps
    sent = np.cumsum(to_end)  # rows sent away among the first k + 1 from the front
    ends = np.append(kept_at_back, n)  # (past the last: the scan cannot end on the back's side)
    consumed = np.where(sent == 0, 0, ends[np.minimum(sent, len(ends)) - 1] + 1)
    front = int(np.argmax(np.arange(1, n + 1) + consumed >= n)) + 1  # rows taken from the front
    seen_back = n - front
    # kept rows: walking the front, a kept row itself; a row sent away, the back's next kept row
    back_kept = n - 1 - kept_at_back[kept_at_back < seen_back]
    kept = np.arange(front)
    sent_away = np.flatnonzero(to_end[:front])
    trip = sent[sent_away] - 1
    kept[sent_away] = -1
    reached = trip < len(back_kept)
    kept[sent_away[reached]] = back_kept[trip[reached]]
    kept = kept[kept >= 0]
    # rows sent to the end: each from the front, then the back's rows sent away on its trip
    back_sent = np.flatnonzero(back[:seen_back])
    trip_of_back = np.cumsum(~back[:seen_back])[back_sent]
    keys = np.concatenate([np.arange(len(sent_away)) * (n + 1), trip_of_back * (n + 1) + 1 + back_sent])
    rows = np.concatenate([sent_away, n - 1 - back_sent])
    return kept, rows[np.argsort(keys, kind="stable")]


def _equal_rows(kept: np.ndarray, kept_less: np.ndarray) -> np.ndarray:
    """The order the rows equal to the pivot end in. They sit between the less rows and the scan;
    each less row the scan keeps after one of them swaps with the first, which moves to the back:
    a queue turned once per such less row. Written as a tape (each equal row, each turn's copy of
    the queue's head) whose last entries are the queue; copies are followed to their rows."""
    is_equal = ~kept_less
    turns = kept_less & (np.cumsum(is_equal) > 0)
    on_tape = is_equal | turns
    tape_turns = turns[on_tape]
    source = np.arange(len(tape_turns))
    source[tape_turns] = np.arange(int(tape_turns.sum()))  # the t-th turn copies the t-th entry
    while True:
        followed = source[source]
        if (followed == source).all():
            break
        source = followed
    head = int(tape_turns.sum())
    return kept[on_tape][source[head:]]


def _median3(a, b, c):
    if a < b:
        return b if b < c else (c if a < c else a)
    if b < c:
        return a if a < c else c
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
