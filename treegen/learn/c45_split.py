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
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(x, out=np.empty_like(x))
        out *= x
        out /= LOG2
    np.putmask(out, x < SMALL, 0.0)  # (faster than a boolean index)
    return out


def seq_sum(values, start=0.0):
    """Left-to-right sum along the first axis from ``start``, as Java's loops add (numpy's ``sum``
    adds pairwise). A scalar start gives a float, an array start an array."""
    if (isinstance(start, float) and start == 0 and math.copysign(1, start) > 0 and isinstance(values, np.ndarray)
            and values.ndim == 1 and values.dtype == np.float64):
        # +0 + v is v (+0 for -0): the sum is the running sum of the values, made +0 if it is -0
        return float(np.cumsum(values)[-1]) + 0.0 if len(values) else 0.0
    start = np.asarray(start, dtype=np.float64)
    if len(values):
        start = np.cumsum(np.concatenate((start[None], np.asarray(values, dtype=np.float64))), axis=0)[-1]
    return float(start) if start.ndim == 0 else start


def is_whole(weights: np.ndarray) -> bool:
    """Whole weights whose sums stay below 2**53: added exactly in any order."""
    return bool(np.all(weights == np.floor(weights))) and seq_sum(np.abs(weights)) < 2.0 ** 53


def max_class(counts) -> int:
    """Weka's ``Distribution.maxClass``: the first class whose weight beats the others by 1e-6."""
    best, top = 0, 0.0
    for k, c in enumerate(counts):
        if gr(c, top):
            best, top = k, c
    return best


@dataclass
class Dist:
    """Weka's ``Distribution``: class weights per branch (bag), with the branch, class and overall
    totals kept as Weka keeps them, as separate running sums (their last bits can differ from sums
    of the cells, and J48 prints and decides with them)."""

    cells: np.ndarray  # bags x classes
    per_bag: np.ndarray
    per_class: np.ndarray
    total: float

    @classmethod
    def of_rows(cls, y: np.ndarray, w: np.ndarray, n_classes: int) -> "Dist":
        """One bag holding every row (``new Distribution(instances)``)."""
        per_class = np.bincount(y, weights=w, minlength=n_classes)
        total = seq_sum(w)
        return cls(per_class[None, :].copy(), np.array([total]), per_class, total)

    def incorrect(self) -> float:
        """``numIncorrect()``: the weight outside the majority class."""
        return self.total - float(self.per_class[max_class(self.per_class)])

    def probabilities(self) -> tuple[float, ...]:
        """``prob(c)``: class weight over total, all zeros when there is no weight."""
        if eq(self.total, 0):
            return tuple(0.0 for _ in self.per_class)
        return tuple(float(c) / self.total for c in self.per_class)

    def laplace(self) -> tuple[float, ...]:
        """``laplaceProb(c)``: (class weight + 1) / (total + number of classes)."""
        return tuple((float(c) + 1) / (self.total + len(self.per_class)) for c in self.per_class)

    def bag_laplace(self, bag: int) -> tuple[float, ...]:
        """``laplaceProb(c, bag)``: smoothed in the bag, or over the whole distribution if it is empty."""
        if not gr(self.per_bag[bag], 0):
            return self.laplace()
        return tuple((float(c) + 1.0) / (float(self.per_bag[bag]) + len(self.per_class)) for c in self.cells[bag])

    def bag_probabilities(self, bag: int) -> tuple[float, ...]:
        """``prob(c, bag)``: the bag's class frequencies, or the whole distribution's if it is empty."""
        if not gr(self.per_bag[bag], 0):
            return self.probabilities()
        return tuple(float(c) / float(self.per_bag[bag]) for c in self.cells[bag])


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

def old_ent(class_counts: np.ndarray, known: np.ndarray) -> np.ndarray:
    """``oldEnt`` for a batch: ``class_counts`` is (..., classes), ``known`` their totals."""
    return log_func(known) - np.cumsum(log_func(class_counts), axis=-1)[..., -1]


def new_ent(bag_class: np.ndarray, bag_totals: np.ndarray) -> np.ndarray:
    """``newEnt`` for a batch of splits: ``bag_class`` is (..., bags, classes). The terms are added
    left to right in Weka's order: each bag's classes, then minus the bag."""
    terms = np.concatenate([log_func(bag_class), -log_func(bag_totals)[..., None]], axis=-1)
    return -np.cumsum(terms.reshape(*terms.shape[:-2], -1), axis=-1)[..., -1]


def info_gain(old, new, known, total: float) -> np.ndarray:
    """``InfoGainSplitCrit.splitCritValue``: gain scaled by the known fraction, per known weight."""
    unknown_rate = (total - known) / total
    numerator = (old - new) * (1 - unknown_rate)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(np.abs(numerator) < SMALL, 0.0, numerator / known)


def gain_ratio(gain, bag_totals: np.ndarray, known, total: float) -> np.ndarray:
    """``GainRatioSplitCrit.splitCritValue`` for a batch: unknowns count as one more bag."""
    known = np.asarray(known, dtype=np.float64)
    ends = np.stack(np.broadcast_arrays(-log_func(total - known), log_func(np.full_like(known, total))), -1)
    split_ent = np.cumsum(np.concatenate([-log_func(bag_totals), ends], axis=-1), axis=-1)[..., -1]
    trivial = ~(known > SMALL) | (np.abs(split_ent) < SMALL)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(trivial, 0.0, gain / (split_ent / total))


# -- candidate splits of one node ----------------------------------------------------------------

@dataclass
class Candidate:
    feature: int
    gain: float  # info gain, MDL-corrected for numeric attributes
    ratio: float
    threshold: float = math.nan  # numeric: midpoint, before J48 moves it to a training value
    cut: float = math.nan  # numeric: the largest value of the rows left of the cut
    value: int = -1  # J48 -B, nominal: the category that goes to the first branch (-1: none)


def _nominal_counts(codes: np.ndarray, n_categories: np.ndarray, y: np.ndarray, w: np.ndarray, n_classes: int):
    """Class weights per category of every nominal attribute (``codes``: rows x attributes, -1
    missing), as Weka adds the known rows one by one: (cells, bag totals, class totals, known total),
    shaped (attributes, categories, classes), (attributes, categories), (attributes, classes),
    (attributes,). Counts are bincounts in row order, so each cell adds its weights in Weka's order;
    the attributes are padded to the widest with empty bags, which add exact zeros."""
    width = codes.shape[1]
    wide = int(n_categories.max())
    known = codes >= 0
    attribute = np.broadcast_to(np.arange(width), codes.shape)[known]
    weight = np.broadcast_to(w[:, None], codes.shape)[known]
    label = np.broadcast_to(y[:, None], codes.shape)[known]
    code = codes[known]
    cells = np.bincount((attribute * wide + code) * n_classes + label, weights=weight,
                        minlength=width * wide * n_classes).reshape(width, wide, n_classes)
    bags = np.bincount(attribute * wide + code, weights=weight, minlength=width * wide).reshape(width, wide)
    classes = np.bincount(attribute * n_classes + label, weights=weight,
                          minlength=width * n_classes).reshape(width, n_classes)
    known_total = np.bincount(attribute, weights=weight, minlength=width)
    return cells, bags, classes, known_total


def heavy(weights, min_leaf: float):
    """``Utils.grOrEq(weight, min_leaf)``, elementwise."""
    return (min_leaf - weights < SMALL) | (weights >= min_leaf)


def nominal_candidates(features: list[int], codes: np.ndarray, n_categories: np.ndarray, y: np.ndarray,
                       w: np.ndarray, n_classes: int, min_leaf: float, total: float) -> list[Candidate | None]:
    """Every nominal attribute's multiway split at once (``C45Split.handleEnumeratedAttribute``)."""
    cells, bags, classes, known_total = _nominal_counts(codes, n_categories, y, w, n_classes)
    declared = np.arange(bags.shape[1])[None, :] < n_categories[:, None]
    gains = info_gain(old_ent(classes, known_total), new_ent(cells, bags), known_total, total)
    ratios = gain_ratio(gains, bags, known_total, total)
    return [Candidate(f, float(g), float(r)) if ok else None
            for f, g, r, ok in zip(features, gains, ratios, (declared & heavy(bags, min_leaf)).sum(axis=1) > 1)]


def binary_nominal_candidates(features: list[int], codes: np.ndarray, n_categories: np.ndarray, y: np.ndarray,
                              w: np.ndarray, n_classes: int, min_leaf: float,
                              total: float) -> list[Candidate | None]:
    """J48 -B: each nominal attribute's best split into one value against the others
    (``BinC45Split.handleEnumeratedAttribute``, Weka 3.6).

    The "others" bag is the known total less the value's bag (``new Distribution(dist, i)``
    subtracts). Values are scanned in declared order: one takes part when it and the others each
    weigh at least ``min_leaf``; the first that takes part is kept, a later one only when its gain
    ratio is higher by more than 1e-6 (so a split can exist with gain 0 when none ever was kept).
    """
    cells, bags, classes, known_total = _nominal_counts(codes, n_categories, y, w, n_classes)
    pair_cells = np.stack([cells, classes[:, None, :] - cells], axis=2)  # attribute x value x bag x class
    pair_bags = np.stack([bags, known_total[:, None] - bags], axis=2)
    known = np.broadcast_to(known_total[:, None], bags.shape)
    gains = info_gain(old_ent(classes, known_total)[:, None], new_ent(pair_cells, pair_bags), known, total)
    ratios = gain_ratio(gains, pair_bags, known, total)
    usable = heavy(bags, min_leaf) & (heavy(pair_bags, min_leaf).sum(axis=2) > 1)
    out: list[Candidate | None] = []
    for a, feature in enumerate(features):
        values = np.flatnonzero(usable[a, :n_categories[a]])
        best = Candidate(feature, 0.0, 0.0)  # numSubsets is 2 once a value takes part, even if none is kept
        for v in values:
            if v == 0 or gr(ratios[a, v], best.ratio):
                best = Candidate(feature, float(gains[a, v]), float(ratios[a, v]), value=int(v))
        out.append(best if len(values) else None)
    return out


BLOCK = 100_000  # values a search works on at once (see numeric_candidates) ...
SHARED_BLOCK = 16_384  # ... and, when it covers several nodes, at most this many (malloc's threshold for mmap)


def numeric_candidates(features: list[int], columns: np.ndarray, nodes: list[tuple], n_classes: int,
                       min_leaf: float, mdl: bool = True) -> list[list[Candidate | None]]:
    """The best binary cut of each numeric attribute (``columns``: attributes x all rows) for each
    node, as ``C45Split.handleNumericAttribute`` finds it. A node is ``(idx, y, w, total,
    sorted_by)``: its rows, their classes and weights, its total weight, and the rows' order by
    each attribute as ``Instances.sort`` leaves it (missing values as Double.MAX_VALUE, so before
    +inf), if known; None sorts here, as Weka only without missing values (numpy puts them after
    +inf).
    Attribute by attribute in rows: each one's values, weights and running sums lie together. A
    search covers the attributes of many nodes of about the same size, each row padded after its
    node's values (as missing values of no weight): a small node's search alone is mostly numpy's
    cost per call. Blocks of ~100,000 values, 16,384 when they cover several nodes: with arrays of
    millions the allocator gave their pages back to the system after each node and took them anew
    (page faults: ~1 s of system time in a fit), and blocks of many nodes at 65,536 took 2.5-4x the
    faults of these."""
    out: list[list[Candidate | None]] = [[None] * len(features) for _ in nodes]
    pieces = []  # (node, first attribute, end), the smallest nodes first
    for k in sorted(range(len(nodes)), key=lambda k: len(nodes[k][0])):
        per = max(1, BLOCK // max(1, len(nodes[k][0])))
        pieces += [(k, start, min(start + per, len(features))) for start in range(0, len(features), per)]
    block: list[tuple] = []
    for piece in pieces:  # the rows padded to the block's last (longest) node
        rows = sum(end - start for _, start, end in block) + piece[2] - piece[1]
        if block and rows * len(nodes[piece[0]][0]) > SHARED_BLOCK:
            _search_block(features, columns, nodes, block, n_classes, min_leaf, mdl, out)
            block = []
        block.append(piece)
    if block:
        _search_block(features, columns, nodes, block, n_classes, min_leaf, mdl, out)
    return out


def _search_block(features, columns, nodes, block, n_classes, min_leaf, mdl, out) -> None:
    """:func:`_numeric_block` of these (node, attributes) pieces, each attribute of a node a row."""
    width = max(len(nodes[k][0]) for k, _, _ in block)
    n_rows = sum(end - start for _, start, end in block)
    values, ws = np.full((n_rows, width), np.nan), np.zeros((n_rows, width))
    ys, totals = np.zeros((n_rows, width), dtype=nodes[block[0][0]][1].dtype), np.empty(n_rows)
    row = 0
    for k, start, end in block:
        idx, y, w, total, sorted_by = nodes[k]
        these, n = slice(row, row + end - start), len(idx)
        if sorted_by is None:
            order = np.argsort(columns[start:end][:, idx], axis=1)
        else:
            order = sorted_by[start:end]
        for column, rows, out_row in zip(columns[start:end], idx[order], values[these]):
            np.take(column, rows, out=out_row[:n])
        ws[these, :n], ys[these, :n], totals[these] = w[order], y[order], total
        row += end - start
    found = _numeric_block([f for _, start, end in block for f in features[start:end]], values, ws, ys,
                           n_classes, min_leaf, totals, mdl)
    row = 0
    for k, start, end in block:
        out[k][start:end] = found[row:row + end - start]
        row += end - start


def before_first(flags: np.ndarray) -> np.ndarray:
    """True where no flag is set up to and including that position, along the last axis: the positions a
    scan that stops at the first flag reaches (a sixth of ``~np.logical_or.accumulate(flags)``'s time)."""
    n = flags.shape[-1]
    first = np.where(flags.any(axis=-1), flags.argmax(axis=-1), n)
    return np.arange(n) < np.expand_dims(first, -1)


def _numeric_block(features, v, w, yk, n_classes, min_leaf, total, mdl) -> list[Candidate | None]:
    """``v``: each attribute's values (attributes x rows) sorted as ``Instances.sort`` sorts them (a
    missing value as Double.MAX_VALUE), ``w`` and ``yk`` their rows' weights and classes, ``total``
    the total weight of each attribute's node; ties in any order (Weka's quicksort leaves them in
    its own). J48's scan stops at the first missing value: the values sorted after it (+inf, and
    Double.MAX_VALUE where the quicksort left it among them) count as unknown too."""
    known = before_first(np.isnan(v))
    wk = w * known  # unknown rows add zeros to the running sums (np.where of a scalar is slow)
    left_weight = np.cumsum(wk, axis=1)
    known_total = left_weight[:, -1]
    min_split = 0.1 * known_total / n_classes
    min_split = np.where((min_split - min_leaf < SMALL) | (min_split <= min_leaf), min_leaf,
                         np.where(min_split - 25 > SMALL, 25.0, min_split))[:, None]
    enough = ~(2 * min_split - known.sum(axis=1)[:, None] > SMALL)
    left_w, right_w = left_weight[:, :-1], known_total[:, None] - left_weight[:, :-1]
    valid = (v[:, :-1] + 1e-5 < v[:, 1:]) & known[:, 1:] & enough  # a cut after sorted position i
    valid &= min_split - left_w < SMALL  # heavy(left_w): (left_w >= min_split) adds nothing when finite
    valid &= min_split - right_w < SMALL
    at = np.flatnonzero(valid)  # the cuts, attribute by attribute, in the order of the scan
    if not len(at):
        return [None] * len(features)
    cuts_per_row = valid.shape[1]
    column = at // cuts_per_row
    in_rows = at + column  # the cut after sorted position i is at (attribute, i) of the rows
    class_totals = np.empty((len(v), n_classes))
    at_cuts = []
    for k in range(n_classes):  # each class's running sum, kept at the cuts
        left = wk * (yk == k)
        np.cumsum(left, axis=1, out=left)
        class_totals[:, k] = left[:, -1]
        at_cuts.append(np.take(left, in_rows))
    left_at = np.take(left_weight, in_rows)
    new = _cut_entropies(at_cuts, class_totals[column], left_at, known_total[column] - left_at)
    gains = info_gain(old_ent(class_totals, known_total)[column], new, known_total[column], total[column])
    best_cuts = _first_better_cuts(valid.shape, at, gains)
    n_cuts, totals = valid.sum(axis=1).tolist(), total.tolist()
    kept = {}  # column -> (cut, gain)
    for j, (i, gain) in best_cuts.items():  # (none in a column: no cut, or none gains)
        if mdl:
            gain -= math.log(n_cuts[j]) / LOG2 / totals[j]
        if not sm_or_eq(gain, 0):
            kept[j] = i, gain
    if not kept:
        return [None] * len(features)
    columns = list(kept)
    cuts, gains = np.array([kept[j][0] for j in columns]), np.array([kept[j][1] for j in columns])
    bags = np.stack([left_w[columns, cuts], right_w[columns, cuts]], axis=-1)
    ratios = gain_ratio(gains, bags, known_total[columns], total[columns]).tolist()
    out: list[Candidate | None] = [None] * len(features)
    for j, i, gain, ratio in zip(columns, cuts.tolist(), gains.tolist(), ratios):
        low = float(v[j, i])
        out[j] = Candidate(features[j], gain, ratio, midpoint(low, float(v[j, i + 1])), low)
    return out


def midpoint(low: float, high: float) -> float:
    """J48's split point between consecutive values, ``(low + high) / 2`` (``low`` when that rounds
    to ``high``). Where the sum overflows, J48's infinity moves to the largest value and sends every
    row left, again and again until its stack overflows: the halves are added there instead. (An
    infinite value is no overflow: -inf + inf is NaN, as in J48.)"""
    total = low + high
    middle = low / 2 + high / 2 if math.isinf(total) and math.isfinite(low) and math.isfinite(high) else total / 2
    return low if middle == high else middle


def _first_better_cuts(shape: tuple[int, int], at: np.ndarray, gains: np.ndarray) -> dict:
    """:func:`first_better` of every attribute's cuts at once: attribute -> (cut, gain) Weka's scan
    keeps. ``at``: the cuts' flat positions in an (attributes x cuts) table. Only an attribute's
    strict running maxima (records) can be kept, and a record is kept for certain when it beats
    the one before it (or 0) by more than 1e-6, as the last kept one is no higher: the scan is run
    in Python from the last such record on."""
    table = np.full(shape, -np.inf)
    table.ravel()[at] = gains
    running = np.maximum.accumulate(table, axis=1)
    record = np.empty(shape, dtype=bool)
    record[:, 0], record[:, 1:] = table[:, 0] > -np.inf, table[:, 1:] > running[:, :-1]
    where = np.flatnonzero(record)
    column, cut, g = where // shape[1], where % shape[1], table.ravel()[where]
    first = np.concatenate(([True], column[1:] != column[:-1]))
    before = np.maximum(np.concatenate(([0.0], g[:-1])), 0.0)
    before[first] = 0.0
    certain = g - before > SMALL
    last_certain = np.maximum.accumulate(np.where(certain | first, np.arange(len(g)), 0))
    ends = np.append(np.flatnonzero(first)[1:], len(g))
    best: dict = {}
    for start, end in zip(last_certain[ends - 1].tolist(), ends.tolist()):
        top, j = 0.0, int(column[start])
        for i, value in zip(cut[start:end].tolist(), g[start:end].tolist()):
            if value - top > SMALL:  # gr(g, top)
                best[j], top = (i, value), value
    return best


def _cut_entropies(left_by_class, class_totals, left_w, right_w):
    """``newEnt`` of cuts, adding terms in Weka's order (left bag's classes, minus the left bag,
    right bag's classes, minus the right bag) one class at a time."""
    acc = log_func(left_by_class[0])  # 0 + t is t: x log2 x is never -0
    for left in left_by_class[1:]:
        acc += log_func(left)
    acc -= log_func(left_w)
    for k, left in enumerate(left_by_class):
        acc += log_func(class_totals[:, k] - left)
    acc -= log_func(right_w)
    return -acc


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
    lowest = -float(np.finfo(np.float64).max)  # Weka starts from -Double.MAX_VALUE and keeps values above it
    if math.isnan(threshold):  # (-inf + inf) / 2: no value is below NaN
        return lowest
    with np.errstate(over="ignore"):  # values 1e308 apart: their difference is inf, as Java's, not a warning
        end = int(np.searchsorted(distinct, threshold, side="right"))
        while end < len(distinct) and distinct[end] - threshold < SMALL:
            end += 1
        if end == 0 or not distinct[end - 1] > lowest:  # only -inf or -Double.MAX_VALUE below: it stays
            return lowest
        # (a zero is the first of -0.0 and 0.0 in data order, which the scan keeps: np.unique keeps either)
        if (end == 1 or distinct[end - 1] - distinct[end - 2] > SMALL) and distinct[end - 1] != 0:
            return float(distinct[end - 1])
        below = values[(values - threshold < SMALL) | (values <= threshold)]
        return float(below[first_better(below, lowest)])
