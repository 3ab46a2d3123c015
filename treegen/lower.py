"""Lowering: each tree becomes a list of if-then rules, one per leaf (and per node that stops on a
missing value), with the tests on each feature along the path merged into one condition.

A condition on a feature is an interval ``low < x <= high`` (numeric) or a set ``x in values``
(nominal). Every condition also says what happens when ``x`` is missing (None/NaN, or a category the
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
from typing import Any, Iterator, Mapping

from .model import Feature, MissingRoute, Model, Op, Route, Tree, in_missing_interval, is_missing, nested_sum

INTERVAL, SET, MISSING = "interval", "set", "missing"
UNKNOWN = "unknown"


def absence(value: Any, feature: Feature) -> str | None:
    """MISSING where the feature reads the value as missing, UNKNOWN for a category it does not know,
    else None: what both a condition's factor and a share's test ask first."""
    if is_missing(value) or in_missing_interval(feature, value):
        return MISSING
    if not feature.is_numeric and str(value) not in feature.categories:
        return UNKNOWN
    return None


@dataclass(frozen=True)
class Condition:
    feature: int
    kind: str  # INTERVAL | SET | MISSING
    low: float = -math.inf  # interval: exclusive
    high: float = math.inf  # interval: inclusive
    values: tuple[str, ...] = ()  # set: in the feature's category order
    if_missing: float = 0.0
    if_unknown: float | None = None  # a category the feature does not know; None: as if missing

    @property
    def unknown_factor(self) -> float:
        return self.if_missing if self.if_unknown is None else self.if_unknown

    def factor(self, value: Any, feature: Feature) -> float:
        """1.0 if the value satisfies the condition, ``if_missing`` if it is missing (as the feature
        reads it), ``if_unknown`` if it is a category the feature does not know, else 0.0."""
        absent = absence(value, feature)
        if absent == MISSING:
            return self.if_missing
        if absent == UNKNOWN:
            return self.unknown_factor
        if self.kind == INTERVAL:
            return 1.0 if self.low < float(value) <= self.high else 0.0
        if self.kind == SET:
            return 1.0 if str(value) in self.values else 0.0
        return 0.0


@dataclass(frozen=True)
class Share:
    """A fractional branch a rule's path takes: a missing value goes on with ``fraction`` of its weight."""
    feature: int
    fraction: float
    by_unknown: bool  # a category the feature does not know takes it too (it counts as missing)

    def applies(self, value: Any, feature: Feature) -> bool:
        absent = absence(value, feature)
        return absent == MISSING or (self.by_unknown and absent == UNKNOWN)


@dataclass(frozen=True)
class Rule:
    conditions: tuple[Condition, ...]  # one per feature, in feature order
    node: int  # the leaf (or stopping node) id in its tree
    value: tuple[float, ...]
    shares: tuple[Share, ...] = ()  # the fractional branches of its path, root first

    def weight(self, row: Mapping[str, Any], features) -> float:
        """0.0 where a condition excludes the row, else 1.0 times the shares that apply, in path order."""
        for c in self.conditions:
            if c.factor(row.get(features[c.feature].name), features[c.feature]) == 0.0:
                return 0.0
        weight = 1.0
        for share in self.shares:
            if share.applies(row.get(features[share.feature].name), features[share.feature]):
                weight = weight * share.fraction
        return weight


@dataclass
class TreeRules:
    rules: list[Rule]
    output: int | None
    exclusive: bool  # exactly one rule applies to any row


def lower(model: Model) -> list[TreeRules]:
    """The rules of every tree of the model, in tree order."""
    return [lower_tree(model, tree) for tree in model.trees]


def lower_tree(model: Model, tree: Tree) -> TreeRules:
    rules: list[Rule] = []
    exclusive = True
    # Depth-first with an explicit stack: (node id, conditions so far as {feature: Condition}, shares).
    stack: list[tuple[int, dict[int, Condition], tuple[Share, ...]]] = [(0, {}, ())]
    while stack:
        node_id, path, shares = stack.pop()
        node = tree.nodes[node_id]
        if node.is_leaf:
            rules.append(_rule(path, node_id, node.value, shares))
            continue
        split = node.split
        feature = model.features[split.feature]
        missing = split.missing
        exclusive = exclusive and missing.kind != Route.FRACTION
        if split.op == Op.LE:
            cut = model.numeric.effective_threshold(split.threshold)
            branches = [(INTERVAL, {"high": cut}), (INTERVAL, {"low": cut})]
        elif split.op == Op.EQ:
            branches = [(SET, {"values": (v,)}) for v in split.values]
        else:
            rest = tuple(c for c in feature.categories if c not in split.values)
            branches = [(SET, {"values": _in_order(split.values, feature.categories)}), (SET, {"values": rest})]
        children = []
        for position, (child, (kind, bounds)) in enumerate(zip(node.children, branches)):
            # made whole at once: dataclasses.replace costs several times a Condition
            branch = Condition(split.feature, kind, **bounds, if_missing=_if_missing(missing, position),
                               if_unknown=None if split.unknown is None else 1.0 if position == split.unknown else 0.0)
            merged = _add(path, branch, feature.categories)
            if merged is not None:
                if missing.kind == Route.FRACTION:
                    children.append((child, merged, shares + (Share(split.feature, missing.weights[position],
                                                                     split.unknown is None),)))
                else:
                    children.append((child, merged, shares))
        if missing.kind == Route.STOP:
            stops = Condition(split.feature, MISSING, if_missing=1.0, if_unknown=None if split.unknown is None else 0.0)
            merged = _add(path, stops, feature.categories)
            if merged is not None:  # this node's own value applies: it comes before its children
                rules.append(_rule(merged, node_id, node.value, shares))
        stack.extend(reversed(children))
    rules.sort(key=lambda rule: rule.node)  # node order, as the model sums them
    return TreeRules(rules, tree.output, exclusive)


def _if_missing(missing: MissingRoute, position: int) -> float:
    """The factor a missing value takes into the child at ``position`` of a split."""
    if missing.kind == Route.CHILD:
        return 1.0 if position == missing.child else 0.0
    if missing.kind == Route.FRACTION:
        return missing.weights[position]
    return 0.0


def _rule(path: dict[int, Condition], node_id: int, value, shares: tuple[Share, ...]) -> Rule:
    """Conditions in feature order."""
    return Rule(tuple(path[f] for f in sorted(path)), node_id, value, shares)


def _in_order(values, categories):
    chosen = set(values)
    ordered = tuple(c for c in categories if c in chosen)
    return ordered + tuple(v for v in values if v not in set(categories))


def _add(path: dict[int, Condition], new: Condition, categories) -> dict[int, Condition] | None:
    """The path with one more test, merged with an earlier test on the same feature.
    None when no row can satisfy the result."""
    old = path.get(new.feature)
    merged = new if old is None else _merge(old, new, categories)
    if merged is None:
        return None
    out = dict(path)
    if _always(merged, categories):
        out.pop(new.feature, None)
    else:
        out[new.feature] = merged
    return out


def _merge(a: Condition, b: Condition, categories) -> Condition | None:
    missing = a.if_missing * b.if_missing
    unknown = None if a.if_unknown is None and b.if_unknown is None else a.unknown_factor * b.unknown_factor
    if MISSING in (a.kind, b.kind):
        kind, low, high, values = MISSING, -math.inf, math.inf, ()
    elif a.kind == INTERVAL:
        kind, low, high, values = INTERVAL, max(a.low, b.low), min(a.high, b.high), ()
        if not low < high:
            kind = MISSING
    else:
        keep = set(b.values)
        kind, low, high, values = SET, -math.inf, math.inf, tuple(v for v in a.values if v in keep)
        if not values:
            kind = MISSING
    if kind != MISSING:
        return Condition(a.feature, kind, low, high, values, missing, unknown)
    if missing == 0.0 and not unknown:
        return None
    return Condition(a.feature, MISSING, if_missing=missing, if_unknown=unknown)


def _always(c: Condition, categories) -> bool:
    """A condition that every row satisfies with factor 1 says nothing."""
    if c.if_missing != 1.0 or c.unknown_factor != 1.0:
        return False
    if c.kind == INTERVAL:
        return c.low == -math.inf and c.high == math.inf
    return c.kind == SET and set(c.values) >= set(categories)


def rules_output(model: Model, tree: Tree, tree_rules: TreeRules, row: Mapping[str, Any]) -> list[float]:
    """A tree's output computed from its rules: what every back end computes. An exclusive tree's is
    the value of the first rule that applies; otherwise ``weight * value`` of each rule, summed as the
    tree nests (:func:`treegen.model.nested_sum` over every node, see :func:`tree_shape`)."""
    if tree_rules.exclusive:
        for rule in tree_rules.rules:
            if rule.weight(row, model.features) != 0.0:
                return [0.0 + v for v in rule.value]
        return [0.0] * len(tree_rules.rules[0].value)
    weights = {rule.node: rule.weight(row, model.features) for rule in tree_rules.rules}
    return nested_sum(tree, tree_shape(tree, weights), lambda node: node.value)


def tree_shape(tree: Tree, weights: Mapping[int, float]) -> Iterator[tuple[int, float, int]]:
    """Every node of the tree as :func:`treegen.model.walk` would give it if the row went down every
    branch, each end with its weight from ``weights`` (0.0 where absent): the nesting of a fractional
    tree's sums, which the rows it does not reach fill with exact zeros. A split whose missing route
    stops is an end before its children."""
    stack = [0]
    while stack:
        node_id = stack.pop()
        node = tree.nodes[node_id]
        if node.is_leaf:
            yield node_id, weights.get(node_id, 0.0), 0
            continue
        stops = node.split.missing.kind == Route.STOP
        yield node_id, 0.0, len(node.children) + stops
        if stops:
            yield node_id, weights.get(node_id, 0.0), 0
        stack.extend(reversed(node.children))
