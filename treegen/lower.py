"""Lowering: each tree becomes a list of if-then rules, one per leaf (and per node that stops on a
missing value), with the tests on each feature along the path merged into one condition.

A condition on a feature is an interval ``low < x <= high`` (numeric) or a set ``x in values``
(nominal), or a ``tuple`` split's answer (kind ``tuple``: the row's key is one of its tuples; ``not tuple``:
it is not; :func:`treegen.model.tuple_key`, which reads missing and unknown values itself). Every other condition also says what happens when ``x`` is missing (None/NaN, or a category the
feature does not know): its ``if_missing`` factor -- 0.0 (the rule does not apply), 1.0 (it applies),
or a fraction (C4.5's fractional route). A condition of kind ``missing`` applies only to a missing x.

A rule applies to a row when none of its conditions' factors is 0.0 (1.0 when x satisfies the
condition). Its weight is then J48's: 1.0 times the fraction of each fractional branch its path takes
(:attr:`Rule.shares`) whose feature is missing, in path order, root first -- a condition's
``if_missing`` is the product of its feature's fractions, for the reader, not the arithmetic. A
tree's output adds ``weight * value`` over its rules nested as the tree nests: each split adds its
children's sums left to right from 0.0 (a rule that does not apply adds an exact 0.0), see
:func:`rules_output`. Back ends that keep to this arithmetic reproduce
:func:`treegen.model.tree_output` bit for bit. When no split
routes missing values fractionally (``TreeRules.exclusive``), exactly one rule applies to every row,
so a back end may test the rules in order and stop at the first that applies.

Thresholds here are already *effective* float64 thresholds (see NumericSemantics), so a back end
only ever renders a plain float64 ``<=``.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Callable, Iterator, Mapping, NamedTuple

from .collector import collector_paused
from .model import (Feature, MissingRoute, Model, Op, Route, Split, Tree, by_id, category_of, in_missing_interval,
                    is_missing, nested_sum, number_of, tuple_key)

INTERVAL, SET, MISSING = "interval", "set", "missing"
TUPLE, NOT_TUPLE = "tuple", "not tuple"  # the answers of a tuple split (Condition.split), which combines features
UNKNOWN = "unknown"


def absence(value: Any, feature: Feature, cast: str = "float64") -> str | None:
    """MISSING where the feature reads the value as missing, UNKNOWN for a category it does not know
    (read as the model reads it, :func:`treegen.model.category_of` under the model's ``cast``), else
    None: what both a condition's factor and a share's test ask first."""
    if is_missing(value) or in_missing_interval(feature, value):
        return MISSING
    if not feature.is_numeric and category_of(feature, value, cast) is None:
        return UNKNOWN
    return None


class Condition(NamedTuple):
    """Immutable, compared and hashed by value; a named tuple rather than a frozen dataclass because a
    big model's lowering makes hundreds of thousands, and a frozen dataclass takes several times as
    long to make (it sets each field through object.__setattr__)."""
    feature: int
    kind: str  # INTERVAL | SET | MISSING | TUPLE | NOT_TUPLE
    low: float = -math.inf  # interval: exclusive
    high: float = math.inf  # interval: inclusive
    values: tuple[str, ...] = ()  # set: in the feature's category order
    if_missing: float = 0.0
    if_unknown: float | None = None  # a category the feature does not know; None: as if missing
    split: Split | None = None  # TUPLE, NOT_TUPLE: the tuple split (``feature`` is its first feature)
    # interval: a low of -inf bounds it (x > -inf: the right branch of a cut at -inf), where otherwise it bounds
    # nothing (x <= cut holds for -inf); a float has no number below -inf to stand for the bound
    above_minus_inf: bool = False

    @property
    def unknown_factor(self) -> float:
        return self.if_missing if self.if_unknown is None else self.if_unknown

    def factor(self, value: Any, feature: Feature, cast: str = "float64") -> float:
        """1.0 if the value satisfies the condition, ``if_missing`` if it is missing (as the feature
        reads it), ``if_unknown`` if it is a category the feature does not know, else 0.0: the value
        read as the model reads it (:func:`treegen.model.number_of`, :func:`treegen.model.category_of`)."""
        absent = absence(value, feature, cast)
        if absent == MISSING:
            return self.if_missing
        if absent == UNKNOWN:
            return self.unknown_factor
        if self.kind == INTERVAL:
            x = number_of(feature, value)
            return 1.0 if self.above(x) and x <= self.high else 0.0
        if self.kind == SET:
            return 1.0 if category_of(feature, value, cast) in self.values else 0.0
        return 0.0

    def above(self, x: float) -> bool:
        """Whether a number is above the interval's low end (-inf too where -inf bounds nothing)."""
        return self.low < x or self.unbounded_below

    @property
    def unbounded_below(self) -> bool:
        """An interval whose low end bounds nothing: every number up to its high end is in it."""
        return self.low == -math.inf and not self.above_minus_inf


@dataclass(frozen=True)
class Share:
    """A fractional branch a rule's path takes: a missing value goes on with ``fraction`` of its weight."""
    feature: int
    fraction: float
    by_unknown: bool  # a category the feature does not know takes it too (it counts as missing)

    def applies(self, value: Any, feature: Feature, cast: str = "float64") -> bool:
        absent = absence(value, feature, cast)
        return absent == MISSING or (self.by_unknown and absent == UNKNOWN)


@dataclass(frozen=True)
class Rule:
    conditions: tuple[Condition, ...]  # one per feature, in feature order, then the tuple splits' in path order
    node: int  # the leaf (or stopping node) id in its tree
    value: tuple[float, ...]
    shares: tuple[Share, ...] = ()  # the fractional branches of its path, root first

    def weight(self, row: Mapping[str, Any], model: Model) -> float:
        """0.0 where a condition excludes the row, else 1.0 times the shares that apply, in path order
        (values read as the model reads them)."""
        features, cast = model.features, model.numeric.cast
        for c in self.conditions:
            if c.split is not None:
                if (tuple_key(model, c.split, row) in c.split.tuples) != (c.kind == TUPLE):
                    return 0.0
            elif c.factor(row.get(features[c.feature].name), features[c.feature], cast) == 0.0:
                return 0.0
        weight = 1.0
        for share in self.shares:
            if share.applies(row.get(features[share.feature].name), features[share.feature], cast):
                weight = weight * share.fraction
        return weight


@dataclass
class TreeRules:
    rules: list[Rule]
    output: int | None
    exclusive: bool  # exactly one rule applies to any row


@collector_paused()  # millions of conditions and rules, no cycle
def lower(model: Model) -> list[TreeRules]:
    """The rules of every tree of the model, in tree order."""
    lowering = _Lowering(model)  # shared by the trees: an ensemble repeats its splits
    return [lowering.rules(tree) for tree in model.trees]


def lower_tree(model: Model, tree: Tree) -> TreeRules:
    return _Lowering(model).rules(tree)


class _Lowering:
    """Lowers the trees of one model, making each split's conditions once: 1,000 LightGBM trees of
    depth 8 have 255,000 splits but 67,000 distinct ones. (Merges are not remembered: in that model
    three in four are new, and remembering them cost more than it saved.)"""

    def __init__(self, model: Model):
        self.model = model
        self.branches: dict[tuple, tuple] = {}  # a split's key: its children's (Condition, Share or None)
        self.stops: dict[tuple, Condition] = {}  # (feature, unknown routed): a stopping split's condition
        self.places: dict[Split, int] = {}  # a tuple split's key in a path: a number after every feature's

    def rules(self, tree: Tree) -> TreeRules:
        rules: list[Rule] = []
        exclusive = True
        nodes = tree.nodes  # (a list: every caller lists the model first, as emit and parse do)
        # Depth-first with an explicit stack: (node id, conditions so far as {feature: Condition}, shares).
        stack: list[tuple[int, dict[int, Condition], tuple[Share, ...]]] = [(0, {}, ())]
        while stack:
            node_id, path, shares = stack.pop()
            node = nodes[node_id]
            split = node.split
            if split is None:
                rules.append(_rule(path, node_id, node.value, shares))
                continue
            route = split.missing.kind
            exclusive = exclusive and route != _FRACTION
            children = []
            for child, (branch, share) in zip(node.children, self.branches_of(split)):
                merged = self.add(path, branch)
                if merged is not None:
                    children.append((child, merged, shares if share is None else shares + (share,)))
            if route == _STOP:
                merged = self.add(path, self.stop_of(split))
                if merged is not None:  # this node's own value applies: it comes before its children
                    rules.append(_rule(merged, node_id, node.value, shares))
            stack.extend(reversed(children))
        rules.sort(key=_NODE)  # node order, as the model sums them
        return TreeRules(rules, tree.output, exclusive)

    def branches_of(self, split: Split) -> tuple[tuple[Condition, Share | None], ...]:
        """Each child's condition, and its share of a missing value where the route is fractional.
        Fractional routes are made anew: they are rare, and a key would have to tell their weights'
        -0.0 from 0.0; a threshold's key does (0.0 and -0.0 are equal, and written apart)."""
        missing = split.missing
        if missing.kind == _FRACTION:
            return _branches(self.model, split)
        if split.op is _TUPLE:
            return (Condition(split.feature, TUPLE, split=split), None), (Condition(split.feature, NOT_TUPLE,
                                                                                   split=split), None)
        key = (split.feature, split.op, split.threshold or str(split.threshold), split.values, missing.kind,
               missing.child, split.unknown)
        branches = self.branches.get(key)
        if branches is None:
            branches = self.branches[key] = _branches(self.model, split)
        return branches

    def stop_of(self, split: Split) -> Condition:
        """The condition of a missing value stopping at the split."""
        key = (split.feature, split.unknown is None)
        stop = self.stops.get(key)
        if stop is None:
            stop = self.stops[key] = Condition(split.feature, MISSING, if_missing=1.0,
                                               if_unknown=None if split.unknown is None else 0.0)
        return stop

    def add(self, path: dict[int, Condition], new: Condition) -> dict[int, Condition] | None:
        """The path with one more test, merged with an earlier test on the same feature.
        None when no row can satisfy the result."""
        if new.split is not None:  # a tuple split's answer: the same answer again, or no row
            place = self.places.setdefault(new.split, len(self.model.features) + len(self.places))
            old = path.get(place)
            if old is not None:
                return path if old.kind == new.kind else None
            return {**path, place: new}
        feature = new.feature
        old = path.get(feature)
        merged = new if old is None else _merge(old, new)
        if merged is None:
            return None
        out = path.copy()
        if _always(merged, self.model.features[feature].categories):
            out.pop(feature, None)
        else:
            out[feature] = merged
        return out


_FRACTION, _STOP, _TUPLE = Route.FRACTION, Route.STOP, Op.TUPLE  # (a look-up in the enum costs more than a global's)
_NODE = attrgetter("node")  # a rule's node id, without a Python call per rule


def _branches(model: Model, split: Split) -> tuple[tuple[Condition, Share | None], ...]:
    f, missing, unknown = split.feature, split.missing, split.unknown
    if split.op == Op.LE:
        cut = model.numeric.effective_threshold(split.threshold)
        bounds = [(INTERVAL, -math.inf, cut, ()), (INTERVAL, cut, math.inf, ())]
    elif split.op == Op.EQ:
        bounds = [(SET, -math.inf, math.inf, (v,)) for v in split.values]
    else:
        categories = model.features[f].categories
        rest = tuple(c for c in categories if c not in split.values)
        bounds = [(SET, -math.inf, math.inf, _in_order(split.values, categories)), (SET, -math.inf, math.inf, rest)]
    branches = []
    for position, (kind, low, high, values) in enumerate(bounds):
        if_unknown = None if unknown is None else 1.0 if position == unknown else 0.0
        condition = Condition(f, kind, low, high, values, _if_missing(missing, position), if_unknown,
                              above_minus_inf=position == 1 and kind == INTERVAL and low == -math.inf)
        share = Share(f, missing.weights[position], unknown is None) if missing.kind == _FRACTION else None
        branches.append((condition, share))
    return tuple(branches)


def _if_missing(missing: MissingRoute, position: int) -> float:
    """The factor a missing value takes into the child at ``position`` of a split."""
    if missing.kind == Route.CHILD:
        return 1.0 if position == missing.child else 0.0
    if missing.kind == Route.FRACTION:
        return missing.weights[position]
    return 0.0


def _rule(path: dict[int, Condition], node_id: int, value, shares: tuple[Share, ...]) -> Rule:
    """Conditions in feature order, then the tuple splits' (their places follow the features')."""
    return Rule(tuple([path[f] for f in sorted(path)]), node_id, value, shares)


def _in_order(values, categories):
    chosen = set(values)
    ordered = tuple(c for c in categories if c in chosen)
    return ordered + tuple(v for v in values if v not in set(categories))


def _merge(a: Condition, b: Condition) -> Condition | None:
    missing = a.if_missing * b.if_missing
    unknown = None if a.if_unknown is None and b.if_unknown is None else a.unknown_factor * b.unknown_factor
    above_minus_inf = False
    if MISSING in (a.kind, b.kind):
        kind, low, high, values = MISSING, -math.inf, math.inf, ()
    elif a.kind == INTERVAL:
        kind, low, high, values = INTERVAL, max(a.low, b.low), min(a.high, b.high), ()
        above_minus_inf = low == -math.inf and (a.above_minus_inf or b.above_minus_inf)
        if not low < high and not (low == high == -math.inf and not above_minus_inf):  # (x <= -inf: {-inf})
            kind = MISSING
    else:
        keep = set(b.values)
        kind, low, high, values = SET, -math.inf, math.inf, tuple(v for v in a.values if v in keep)
        if not values:
            kind = MISSING
    if kind != MISSING:
        return Condition(a.feature, kind, low, high, values, missing, unknown, above_minus_inf=above_minus_inf)
    if missing == 0.0 and not unknown:
        return None
    return Condition(a.feature, MISSING, if_missing=missing, if_unknown=unknown)


def _always(c: Condition, categories) -> bool:
    """A condition that every row satisfies with factor 1 says nothing."""
    if c.if_missing != 1.0 or c.unknown_factor != 1.0:
        return False
    if c.kind == INTERVAL:
        return c.unbounded_below and c.high == math.inf
    return c.kind == SET and set(c.values) >= set(categories)


def rules_output(model: Model, tree: Tree, tree_rules: TreeRules, row: Mapping[str, Any]) -> list[float]:
    """A tree's output computed from its rules: what every back end computes. An exclusive tree's is
    the value of the first rule that applies; otherwise ``weight * value`` of each rule, summed as the
    tree nests (:func:`treegen.model.nested_sum` over every node, see :func:`tree_shape`). Values are
    read as the model reads them."""
    if tree_rules.exclusive:
        for rule in tree_rules.rules:
            if rule.weight(row, model) != 0.0:
                return list(rule.value)
        return [0.0] * len(tree_rules.rules[0].value)
    weights = {rule.node: rule.weight(row, model) for rule in tree_rules.rules}
    return nested_sum(tree, tree_shape(tree, weights), lambda node: node.value)


def per_condition(text: Callable[[object], str]) -> Callable[[object], str]:
    """``text``, made once per condition and remembered: the trees of an ensemble share their conditions
    (the rules of a subtree the ones above it; the back ends' plans each split's), and 1,000 trees of
    depth 8 write 255,000 tests of 74,000 conditions. Keyed by the condition's id (a frozen dataclass
    hashes slowly), with the condition kept beside its text so that its id cannot pass to another
    object while the cache lives."""
    made: dict[int, tuple[object, str]] = {}

    def remembered(cond) -> str:
        kept = made.get(id(cond))
        if kept is None:
            kept = made[id(cond)] = (cond, text(cond))
        return kept[1]
    return remembered


def tree_shape(tree: Tree, weights: Mapping[int, float]) -> Iterator[tuple[int, float, int]]:
    """Every node of the tree as :func:`treegen.model.walk` would give it if the row went down every
    branch, each end with its weight from ``weights`` (0.0 where absent): the nesting of a fractional
    tree's sums, which the rows it does not reach fill with exact zeros. A split whose missing route
    stops is an end before its children."""
    stack, nodes = [0], by_id(tree)
    while stack:
        node_id = stack.pop()
        node = nodes[node_id]
        if node.is_leaf:
            yield node_id, weights.get(node_id, 0.0), 0
            continue
        stops = node.split.missing.kind == Route.STOP
        yield node_id, 0.0, len(node.children) + stops
        if stops:
            yield node_id, weights.get(node_id, 0.0), 0
        stack.extend(reversed(node.children))
