"""Rows that test a model where code generators go wrong: at each threshold and one ulp either side,
the ends of each missing interval, zeros of both signs, LightGBM's zero band, numbers beyond
float32's range, missing values, categories never seen in training, numbers that name category codes."""
from __future__ import annotations

import math
import random
from itertools import compress, count
from operator import is_not

from .model import Feature, Model, NodeColumns, Op, Route

UNSEEN = "\u2603 unseen category"


def boundary_values(model: Model) -> list[list[float]]:
    """For each feature: each threshold on it as the source compares it, its effective float64 cut,
    and one ulp either side of both (of an infinite one, the finite side). From one pass over the nodes (a
    1,000-tree model has 511,000), each distinct threshold once, met in node order (which of 0.0 and -0.0 is kept)."""
    thresholds: list[dict[float, None]] = [{} for _ in model.features]
    for nodes in (tree.nodes for tree in model.trees):
        if isinstance(nodes, NodeColumns):  # (without making its nodes)
            numeric = nodes.numeric_splits()
            splits = zip(nodes.feature[numeric].tolist(), nodes.threshold[numeric].tolist())
        else:
            splits = ((p.feature, p.threshold) for node in nodes if (s := node.split) is not None
                      for p in (s.parts if s.op is Op.TUPLE else (s,)) if p.op == Op.LE)  # (a tuple split's parts)
        for feature, threshold in splits:
            thresholds[feature].setdefault(threshold)
    return [_around(model, ts) for ts in thresholds]


def _around(model: Model, thresholds) -> list[float]:
    values = set()
    for threshold in thresholds:
        for t in (threshold, model.numeric.effective_threshold(threshold)):
            if math.isfinite(t):
                values.update((t, math.nextafter(t, -math.inf), math.nextafter(t, math.inf)))
            elif t == t:  # a cut at an infinity (CART's between -inf and a number): it, and the finite number beside it
                values.update((t, math.nextafter(t, 0.0)))
    return sorted(values)


# Numbers where importers' semantics meet: both zeros, either side of LightGBM's zero band
# (|x| <= 1e-35 is zero), near and past float32's largest (3.4e38: a float32 cast overflows to inf).
EDGES = (0.0, -0.0, 1e-35, -1e-35, 1e-36, -1e-36, 3e38, -3e38, 1e39, -1e39)


def edge_values(model: Model, feature: int) -> list[float]:
    """:data:`EDGES` and each end of the feature's missing interval with one ulp either side."""
    values = list(EDGES)
    interval = model.features[feature].missing_interval
    if interval is not None:
        for end in interval:
            if math.isfinite(end):
                values += [end, math.nextafter(end, -math.inf), math.nextafter(end, math.inf)]
    keys = {(v, math.copysign(1.0, v)) for v in values}  # 0.0 and -0.0 both: a set of floats keeps one
    return [v for v, _ in sorted(keys)]


# Numbers for a feature of codes (Feature.codes), as numbers and as texts: integral, spelt otherwise
# ("3.0" as pandas writes an integer column with a NaN), fractional (truncated, or no category),
# both zeros, below zero, beyond an int, infinite; under one half, and what float32 rounds to (-)0 (XGBoost);
# just under an integer, which float32 (XGBoost) rounds up to it and a double (LightGBM) truncates below.
CODE_VALUES = ("3.0", "3e0", "2.7", "-0.5", "-0.0", "-1.5", "1e300", "inf",  # as text: what every program reads
               "-0.25", "0.25", "-1e-300", "1e-46", "2.99999999", "-2.9999999999999996")


def code_values(feature: Feature) -> list:
    """:data:`CODE_VALUES` for a feature of codes, else none."""
    return list(CODE_VALUES) if feature.codes is not None else []


def split_rows(model: Model, budget: int) -> list[dict]:
    """Rows that reach each split (trees and nodes in order, up to ``budget`` rows): the features its path tests
    inside their ranges there, the others at a plain value (finite: a library's own predict takes it); and its
    own feature at each value the split tells apart -- either side of its cut, or each category and an unseen
    one -- and missing. A value varied with the other features at their first choice tests only the splits that
    such a row reaches: in a deep tree, the boundaries and missing routes of most splits went unchecked.

    A row reaches one split of each tree, so an ensemble's splits share rows (:class:`_Aim`): a split of a later
    tree joins rows aimed at earlier trees' where its path's ranges meet theirs and no feature it tests is one they
    vary (or the other way round); once the budget is spent, splits still join rows but open none. A 400-tree
    LightGBM model's 40,000 rows reached its first 215 trees' splits one split at a time, and a comparison made
    strict in a later tree passed as ok (7 of 8); packed, 398 trees' (6 of the 8 caught)."""
    aims: list[_Aim] = []
    rows = cursor = 0  # the rows so far; the next aim a split tries, going round them all as trees come
    effort = JOIN_EFFORT
    for number, tree in enumerate(model.trees):
        if effort <= 0:
            break
        for allowed, feature, values in _splits_reached(model, tree):
            tries = min(JOIN_TRIES, len(aims))
            effort -= tries
            for tried in range(tries):
                aim = aims[(cursor + tried) % len(aims)]
                if aim.takes(number, allowed, feature) and rows + len(values) - len(aim) <= budget:
                    cursor = (cursor + tried + 1) % len(aims)
                    break
            else:
                if rows + len(values) > budget:
                    continue
                aims.append(aim := _Aim())
            rows += aim.join(number, allowed, feature, values)
    plain = {f.name: 0.5 if f.is_numeric else next(iter(f.categories), UNSEEN) for f in model.features}
    return [row for aim in aims for row in aim.rows(model, plain)]


# How many aims a split tries to join before it opens its own, and how many tries in all (a second or so): of a
# 400-tree model of 63 leaves a tree over 8 features, 40,000 rows reached 13,300 of the 24,800 splits one at a
# time, 18,000 trying 8 aims, 21,500 trying 32 (0.97 s), 23,000 trying 64 (1.27 s)
JOIN_TRIES, JOIN_EFFORT = 32, 1_000_000


def _splits_reached(model: Model, tree):
    """Each split of ``tree`` (depth first) as (what its path allows of each feature it tests, see :func:`_narrowed`;
    its feature; the values of it that the split tells apart, and missing)."""
    nodes = tree.nodes.kept() if isinstance(tree.nodes, NodeColumns) else tree.nodes
    stack = [(0, {})]
    while stack:
        index, allowed = stack.pop()
        split = nodes[index].split
        if split is None or split.op is Op.TUPLE:
            continue
        feature = model.features[split.feature]
        values = (_either_side(model.numeric.effective_threshold(split.threshold)) if split.op is Op.LE
                  else [*feature.categories, UNSEEN])
        yield allowed, split.feature, [*values, None]
        stack += [(child, {**allowed, split.feature: _narrowed(model, split, position, allowed.get(split.feature))})
                  for position, child in enumerate(nodes[index].children)]


class _Aim:
    """Rows aimed at splits of different trees at once: what every path allows of the features it tests, and the
    values each split's own feature takes, row by row (a feature neither allows nor varies is plain)."""

    def __init__(self):
        self.allowed: dict = {}
        self.varied: dict[int, list] = {}
        self.last_tree = -1

    def takes(self, tree: int, allowed: dict, feature: int) -> bool:
        """Whether a split of ``tree`` (path ``allowed``, varying ``feature``) is reached by these rows too."""
        return (tree != self.last_tree and feature not in self.allowed and feature not in self.varied
                and not any(f in self.varied or f in self.allowed and not _meet(self.allowed[f], a)
                            for f, a in allowed.items()))

    def join(self, tree: int, allowed: dict, feature: int, values: list) -> int:
        """Take the split on; how many rows that adds."""
        before = len(self)
        for f, a in allowed.items():
            self.allowed[f] = _meet(self.allowed[f], a) if f in self.allowed else a
        self.varied[feature] = values
        self.last_tree = tree
        return len(self) - before

    def __len__(self) -> int:
        return max(map(len, self.varied.values()), default=0)

    def rows(self, model: Model, plain: dict) -> list[dict]:
        base = {**plain, **{model.features[f].name: _within(a) for f, a in self.allowed.items()}}
        varied = [(model.features[f].name, values) for f, values in self.varied.items()]
        return [{**base, **{name: values[i % len(values)] for name, values in varied}} for i in range(len(self))]


def _meet(a, b):
    """What two paths both allow of a feature (see :func:`_narrowed`); None where they allow nothing alike."""
    if isinstance(a, list):
        common = [c for c in a if c in b]
        return common or None
    low, high = max(a[0], b[0]), min(a[1], b[1])
    return (low, high) if low < high else None


def _either_side(cut: float) -> list[float]:
    """The largest number that goes left and the next one up, which goes right (the values around the
    threshold as the source compares it, each feature's once, are the other rows' business)."""
    if math.isfinite(cut) or cut == -math.inf:  # (-inf goes left alone, the largest finite number right)
        return [cut, math.nextafter(cut, math.inf)]
    return []


def _narrowed(model: Model, split, position: int, allowed):
    """What a feature may be after ``split`` sent the row to its child at ``position``, from what it could be
    before (None: anything): a range (low, high] of numbers, or a list of categories."""
    if split.op is Op.LE:
        low, high = allowed or (-math.inf, math.inf)
        return (low, min(high, split.threshold)) if position == 0 else (max(low, split.threshold), high)
    if allowed is None:
        allowed = [*model.features[split.feature].categories, UNSEEN]
    if split.op is Op.IN:
        goes = lambda c: (c in split.values) == (position == 0)
    else:  # EQ: one child per category
        goes = lambda c: position < len(split.values) and c == split.values[position]
    unknown = split.unknown if split.unknown is not None else \
        split.missing.child if split.missing.kind is Route.CHILD else None  # (None: missing's route)
    return [c for c in allowed if (unknown == position if c == UNSEEN else goes(c))]


def _within(allowed) -> float | str | None:
    """A value that ``allowed`` (see :func:`_narrowed`) takes: a number well inside the range, the first category;
    None (missing) where nothing else is."""
    if isinstance(allowed, list):
        return allowed[0] if allowed else None
    low, high = allowed
    if high == -math.inf:  # below a cut at -inf: -inf alone
        return high
    if not low < high:
        return None
    if math.isinf(low) and math.isinf(high):
        return 0.5
    if math.isinf(low):
        return high - max(1.0, abs(high))
    if math.isinf(high):
        return low + max(1.0, abs(low))
    return low / 2 + high / 2


SPLIT_ROWS = 40_000  # at most this many rows aimed at splits
ONE_AT_A_TIME_ROWS = 40_000  # up to this many, each row varies one feature (a 13,000-threshold tree)


def probe_rows(model: Model, limit: int = 2000, seed: int = 0, aimed: int = SPLIT_ROWS) -> list[dict]:
    """Rows built from every feature's boundary values, categories, a missing value and an unseen
    category. When the full cross product is too large, a seeded sample of it, always including one
    row per interesting value with the other features at their first choice.

    Every value always appears: each threshold at, one ulp below and one ulp above. Up to
    ``ONE_AT_A_TIME_ROWS`` rows, each row varies one feature; beyond (big trees over several
    features, such as 50,000 leaves over 10 features: 150,000 rows), the features share rows, row k
    taking each feature's k-th value, so that the rows are as many as the values of the feature with
    the most, not of all features together. Up to ``ONE_AT_A_TIME_ROWS`` too, rows aimed at each split follow
    (:func:`split_rows`), at most ``aimed`` of them (0: none, a sample of the model's values alone)."""
    choices = []
    boundaries = boundary_values(model)
    for index, feature in enumerate(model.features):
        if feature.is_numeric:
            options = boundaries[index] + edge_values(model, index)
        else:
            options = list(feature.categories) + [UNSEEN] + code_values(feature)
        choices.append(list({repr(value): value for value in options + [None]}.values()))  # each value once
    names = [f.name for f in model.features]
    if sum(len(options) for options in choices) <= ONE_AT_A_TIME_ROWS:
        rows, first = [], {name: opts[0] for name, opts in zip(names, choices)}
        for index, options in enumerate(choices):  # one-at-a-time variations
            for value in options[1 if index else 0:]:  # (the first row once)
                row = first.copy()  # a copy, not a new dict: 1,000 features, 11,000 rows 0.45 -> 0.05 s
                row[names[index]] = value
                rows.append(row)
        aimed_rows = split_rows(model, aimed) if aimed else []
    else:
        longest = max(len(options) for options in choices)
        rows = [{name: opts[k % len(opts)] for name, opts in zip(names, choices)} for k in range(longest)]
        aimed_rows = []
    # each row once: a row given twice answers the same twice (a tree over one feature: each row aimed at a split is
    # a value varied alone, 30,000 of a 10,000-deep chain's 60,011; the demo's C4.5 tree: 145 of the 400 its sample
    # drew, so that 255 of its 400 combinations were checked, now all)
    fresh = _first_times()
    rows = list(filter(fresh, rows))
    rng, combinations = random.Random(seed), math.prod(len(options) for options in choices) if choices else 0
    while len(rows) < min(limit, combinations):
        row = {name: rng.choice(opts) for name, opts in zip(names, choices)}
        if fresh(row):
            rows.append(row)
    # after the sample, which they do not replace: its rows mix what a split's children do
    return rows + list(filter(fresh, aimed_rows))


def each_once(rows) -> list[dict]:
    """The rows, each the first time its values are seen (-0.0 apart from 0.0): see :func:`_first_times`."""
    return list(filter(_first_times(), rows))


def _first_times():
    """A test that holds for a row (its values in feature order) the first time its values are seen. Rows == finds
    equal are the same where their values are the same objects, or, where not, have the same text (-0.0 is not 0.0,
    which == and so a dict's keys find the same). A 1,000-feature tree's 22,000 rows: the text of every row took 16 s;
    the text of rows == finds equal, 2.5 s more than none; of their values that are other objects alone, 0.8 s."""
    seen: dict[tuple, list[tuple]] = {}  # values -> the rows' values so far that == finds equal to them

    def fresh(row: dict) -> bool:
        values = tuple(row.values())
        same = seen.setdefault(values, [])
        for other in same:
            if all(repr(values[i]) == repr(other[i]) for i in compress(count(), map(is_not, values, other))):
                return False
        same.append(values)
        return True
    return fresh
