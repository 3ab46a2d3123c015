"""The model: treegen's intermediate representation, the one contract between front and back ends.

A model is features + target + one or more trees + how the trees combine + the numeric
comparison semantics of the system that trained it. Everything a prediction depends on is data
here, so that every back end can reproduce it exactly.

Trees are flat lists of nodes (node id = index, root = 0, pre-order), never nested objects:
a chain 10,000 deep must not hit Python's recursion limit anywhere.

Prediction semantics (the reference every back end must match):

* A numeric split sends ``x`` to ``children[0]`` when it *goes left* under the model's
  :class:`NumericSemantics`, else to ``children[1]``.
* A nominal ``==`` split sends ``x`` to the child whose category it equals; an ``in`` split sends it
  to ``children[0]`` when ``x`` is in ``values``, else to ``children[1]``.
* A missing value (``None``/NaN) -- and a category the split does not know -- follows the split's
  :class:`MissingRoute`: one default child, a fractional route down every child (C4.5), or *stop*,
  which predicts the value of the node itself (ID3).
* A tree's output is the sum, over the leaves (and stopping nodes) reached, in node order, of
  ``weight * node.value``, where weight is the product of the fractional weights taken along the
  path (1.0 when none was taken), see :func:`tree_output`. Without missing values exactly one leaf
  is reached.
* The trees' outputs are combined as :class:`Combine` says; for classification the label is the
  class with the highest final score, the first one on ties -- except boosted classifiers, which
  decide on the raw sums as scikit-learn does (:meth:`Model.predict`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import lru_cache
from typing import Any, Mapping, Sequence

import numpy as np


class Kind(str, Enum):
    """An enumerated kind that is also the very string the JSON format and the rule text write: it
    compares, hashes, formats and serialises as that string."""

    __str__ = str.__str__
    __format__ = str.__format__
    __hash__ = str.__hash__


class FeatureKind(Kind):
    NUMERIC = "numeric"
    NOMINAL = "nominal"


class TargetKind(Kind):
    CLASSIFICATION = "classification"
    REGRESSION = "regression"


class Op(Kind):
    """How a split tests its feature."""

    LE = "<="  # numeric threshold: left when the value goes left under NumericSemantics
    EQ = "=="  # nominal multiway: one child per category
    IN = "in"  # nominal subset, binary: children[0] when the category is one of the split's values


class Route(Kind):
    """Where a missing value goes at a split (:class:`MissingRoute`)."""

    STOP = "stop"  # nowhere: evaluation ends at the split, which predicts its own value
    CHILD = "child"  # to one default child
    FRACTION = "fraction"  # down every child, weighted (C4.5)


class CombineKind(Kind):
    SINGLE = "single"  # one tree
    AVERAGE = "average"  # forests: the mean of the trees' outputs
    SUM = "sum"  # boosting: init + scale * each tree's output, then the link


class Link(Kind):
    IDENTITY = "identity"
    SIGMOID = "sigmoid"  # binary: the raw sum is the log-odds of the second class
    SOFTMAX = "softmax"


NUMERIC, NOMINAL = FeatureKind.NUMERIC, FeatureKind.NOMINAL
CLASSIFICATION, REGRESSION = TargetKind.CLASSIFICATION, TargetKind.REGRESSION


@dataclass(frozen=True)
class Feature:
    name: str
    kind: FeatureKind
    categories: tuple[str, ...] = ()  # nominal: the known values, in declared order

    @property
    def is_numeric(self) -> bool:
        return self.kind == NUMERIC


@dataclass(frozen=True)
class Target:
    name: str
    kind: TargetKind
    classes: tuple[str, ...] = ()  # classification: labels, in a stable order

    @property
    def is_classification(self) -> bool:
        return self.kind == CLASSIFICATION

    @property
    def width(self) -> int:
        """Length of a node's value vector."""
        return len(self.classes) if self.is_classification else 1


@dataclass(frozen=True)
class MissingRoute:
    """Where a missing value (or a category unknown to the split) goes at one split."""

    kind: Route = Route.STOP
    child: int = 0  # Route.CHILD: the position (0-based) of the default child
    weights: tuple[float, ...] = ()  # Route.FRACTION: the weight given to each child

    def __post_init__(self):
        object.__setattr__(self, "kind", Route(self.kind))

    @classmethod
    def stop(cls) -> "MissingRoute":
        return cls(Route.STOP)

    @classmethod
    def to_child(cls, child: int) -> "MissingRoute":
        return cls(Route.CHILD, child=child)

    @classmethod
    def fraction(cls, weights: Sequence[float]) -> "MissingRoute":
        return cls(Route.FRACTION, weights=tuple(float(w) for w in weights))


@dataclass(frozen=True)
class Split:
    feature: int  # index into Model.features
    op: Op
    threshold: float = math.nan  # Op.LE: as the source system stores it
    values: tuple[str, ...] = ()  # Op.EQ: category of each child; Op.IN: categories of children[0]
    missing: MissingRoute = MissingRoute()

    def __post_init__(self):
        object.__setattr__(self, "op", Op(self.op))


@dataclass
class Node:
    value: tuple[float, ...]  # prediction when evaluation ends here: class scores or (regression value,)
    counts: tuple[float, ...] = ()  # classification: training weight of each class at this node
    n: float = 0.0  # training weight that reached this node
    split: Split | None = None
    children: tuple[int, ...] = ()

    @property
    def is_leaf(self) -> bool:
        return self.split is None


@dataclass
class Tree:
    nodes: list[Node]
    output: int | None = None  # CombineKind.SUM: the output column this tree adds to (None: all)

    def leaves(self) -> list[int]:
        return [i for i, node in enumerate(self.nodes) if node.is_leaf]

    def depth(self) -> int:
        depth = [0] * len(self.nodes)
        for i, node in enumerate(self.nodes):  # pre-order: parents come first
            for child in node.children:
                depth[child] = depth[i] + 1
        return max(depth)

    def preorder(self, root: int = 0) -> list[int]:
        """The ids of ``root`` and every node below it, parents before children, children in order."""
        order, stack = [], [root]
        while stack:
            i = stack.pop()
            order.append(i)
            stack.extend(reversed(self.nodes[i].children))
        return order

    def subtree(self, root: int = 0) -> tuple["Tree", list[int]]:
        """The tree under ``root``, renumbered in pre-order, and the old id of each new node."""
        order = self.preorder(root)
        new_id = {old: new for new, old in enumerate(order)}
        nodes = [replace(self.nodes[old], children=tuple(new_id[c] for c in self.nodes[old].children))
                 for old in order]
        return Tree(nodes, self.output), order

    def is_preorder(self) -> bool:
        """Node ids already count in pre-order."""
        return self.preorder() == list(range(len(self.nodes)))

    def canonical(self) -> "Tree":
        """The same tree with its nodes renumbered in pre-order (children in order)."""
        return self.subtree(0)[0]


@dataclass(frozen=True)
class Combine:
    """How the outputs of several trees become one prediction."""

    kind: CombineKind = CombineKind.SINGLE
    init: tuple[float, ...] = ()  # SUM: the starting raw scores
    scale: float = 1.0  # SUM: each tree's output is multiplied by this (the learning rate)
    link: Link = Link.IDENTITY  # applied after summing

    def __post_init__(self):
        object.__setattr__(self, "kind", CombineKind(self.kind))
        object.__setattr__(self, "link", Link(self.link))


@dataclass(frozen=True)
class NumericSemantics:
    """How the source system compared a numeric input ``x`` with a stored threshold ``t``.

    ``x`` goes left when ``cast(x) <= t`` or ``cast(x) - t < tolerance``. scikit-learn casts to
    float32; Weka's J48 allows a tolerance of 1e-6.
    """

    cast: str = "float64"  # "float64" | "float32"
    tolerance: float = 0.0

    def goes_left(self, x: float, t: float) -> bool:
        if self.cast == "float32":
            with np.errstate(over="ignore"):
                x = float(np.float32(x))
        return x <= t or (self.tolerance > 0 and x - t < self.tolerance)

    def effective_threshold(self, t: float) -> float:
        """The largest float64 ``x`` that goes left: ``goes_left(x, t)`` iff ``x <= result``.

        This lets every back end test a plain float64 ``x <= result`` and still agree with the
        source system at the boundary, one ulp either side included. Cached: a model's thresholds
        are converted once however many places ask.
        """
        return _effective_threshold(self, t)


@lru_cache(maxsize=1 << 20)
def _effective_threshold(semantics: NumericSemantics, t: float) -> float:
    if semantics.cast == "float64" and semantics.tolerance == 0.0:
        return t
    if semantics.cast == "float32" and semantics.tolerance == 0.0:
        return _float32_cut(t)
    return _largest_left(lambda x: semantics.goes_left(x, t), t)


def _float32_cut(t: float) -> float:
    """Largest float64 x with float32(x) <= t (round to nearest, ties to even)."""
    if math.isnan(t):
        return -math.inf
    if t == math.inf:
        return math.inf
    with np.errstate(over="ignore"):  # beyond FLT_MAX the cast is infinite, which is handled below
        below = np.float32(t)
    if float(below) > t:
        below = np.nextafter(below, np.float32(-np.inf))
    if below == np.inf:  # t is above every finite float32
        return math.inf
    with np.errstate(over="ignore"):
        above = float(np.nextafter(below, np.float32(np.inf)))
    if math.isinf(above):  # rounding past FLT_MAX goes to infinity at FLT_MAX + half an ulp
        above = float(np.finfo(np.float32).max) + 2.0 ** 104
    if math.isinf(float(below)):  # t is below every finite float32: only what rounds to -inf
        return -(float(np.finfo(np.float32).max) + 2.0 ** 103)
    midpoint = (float(below) + above) / 2  # exact: a float32 midpoint needs 25 bits
    even = int(np.array(below, dtype=np.float32).view(np.uint32)) % 2 == 0
    return midpoint if even else math.nextafter(midpoint, -math.inf)


def _largest_left(goes_left, t: float) -> float:
    """Bisection over the ordered float64 values for the last one that goes left (monotone)."""
    lo, hi, step = t, t, max(abs(t), 1.0)
    while not goes_left(lo):
        lo, step = t - step, step * 2
        if math.isinf(lo):
            return -math.inf
    step = max(abs(t), 1.0)
    while goes_left(hi):
        hi, step = t + step, step * 2
        if math.isinf(hi):
            return math.inf if goes_left(hi) else _bisect(goes_left, lo, hi)
    return _bisect(goes_left, lo, hi)


def _bisect(goes_left, lo: float, hi: float) -> float:
    a, b = _float_key(lo), _float_key(hi)
    while b - a > 1:
        mid = (a + b) // 2
        a, b = (mid, b) if goes_left(_key_float(mid)) else (a, mid)
    return _key_float(a)


def _float_key(x: float) -> int:
    bits = int(np.array(x, dtype=np.float64).view(np.int64))
    return bits if bits >= 0 else -(bits & 0x7FFFFFFFFFFFFFFF)


def _key_float(k: int) -> float:
    bits = k if k >= 0 else (-k) | -0x8000000000000000
    return float(np.array(bits, dtype=np.int64).view(np.float64))


@dataclass
class Model:
    features: tuple[Feature, ...]
    target: Target
    trees: list[Tree]
    combine: Combine = Combine()
    numeric: NumericSemantics = NumericSemantics()
    meta: dict = field(default_factory=dict)  # algorithm, parameters, source: informative only

    def used_features(self) -> list[int]:
        """The features some split tests, in feature order: the columns a row must have."""
        return sorted({node.split.feature for tree in self.trees for node in tree.nodes if node.split is not None})

    # -- reference prediction -------------------------------------------------------------

    def scores(self, row: Mapping[str, Any]) -> list[float]:
        """The final score vector for one row: class probabilities, or [regression value]."""
        return self.combined([tree_output(self, tree, row) for tree in self.trees])[1]

    def predict(self, row: Mapping[str, Any]):
        """The label (classification) or value (regression) for one row.

        Boosted classifiers decide on the raw sums, as scikit-learn does: sigmoid -> the second class
        when raw >= 0 (p = 0.5 included), softmax -> the first highest raw score. Deciding on the
        rounded probabilities would differ where they tie (raw == 0: balanced data).
        """
        return self.combined([tree_output(self, tree, row) for tree in self.trees])[0]

    def combined(self, outputs: Sequence[Sequence[float]]) -> tuple[Any, list[float]]:
        """(prediction, scores) from the trees' outputs for one row, in tree order: the trees
        combined as :class:`Combine` says (sums left to right, as every back end adds them)."""
        target, combine = self.target, self.combine
        if combine.kind == CombineKind.SINGLE:
            scores = list(outputs[0])
        elif combine.kind == CombineKind.AVERAGE:
            total = [0.0] * target.width
            for out in outputs:
                total = [a + b for a, b in zip(total, out)]
            scores = [a / len(outputs) for a in total]
        elif combine.kind == CombineKind.SUM:
            raw = list(combine.init)
            for tree, out in zip(self.trees, outputs):
                for k in (range(len(raw)) if tree.output is None else [tree.output]):
                    raw[k] += combine.scale * out[0 if tree.output is not None else k]
            scores = apply_link(combine.link, raw)
            if target.is_classification and combine.link != Link.IDENTITY:
                return target.classes[raw_label(combine.link, raw)], scores
        else:
            raise ValueError(f"unknown combine kind {combine.kind!r}")
        if not target.is_classification:
            return scores[0], scores
        return target.classes[argmax(scores)], scores


def argmax(scores: Sequence[float]) -> int:
    """Index of the highest score, the first one on ties (as numpy, Weka and scikit-learn)."""
    best = 0
    for i, s in enumerate(scores):
        if s > scores[best]:
            best = i
    return best


def raw_label(link: str, raw: Sequence[float]) -> int:
    """Index of the predicted class from boosted raw sums (see :meth:`Model.predict`)."""
    if link == Link.SIGMOID:
        return 1 if raw[0] >= 0 else 0
    return argmax(raw)


def apply_link(link: str, raw: list[float]) -> list[float]:
    if link == Link.IDENTITY:
        return raw
    if link == Link.SIGMOID:  # binary: raw[0] is the log-odds of the second class
        p = 1.0 / (1.0 + math.exp(-raw[0])) if raw[0] > -709 else 0.0
        return [1.0 - p, p]
    if link == Link.SOFTMAX:
        top = max(raw)
        exps = [math.exp(r - top) for r in raw]
        total = sum(exps)
        return [e / total for e in exps]
    raise ValueError(f"unknown link {link!r}")


def is_close(a: float, b: float, rel: float = 1e-12) -> bool:
    """Equal, or within ``rel`` relative: how far a target whose arithmetic differs may stray."""
    return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


def is_missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def child_for(model: Model, split: Split, value: Any) -> int | None:
    """Position of the child that ``value`` goes to, or None when the missing route applies."""
    if is_missing(value):
        return None
    if split.op == Op.LE:
        return 0 if model.numeric.goes_left(float(value), split.threshold) else 1
    value = str(value)
    if split.op == Op.EQ:
        return split.values.index(value) if value in split.values else None
    known = model.features[split.feature].categories
    if value in split.values:
        return 0
    return 1 if value in known else None


def split_problem(features: Sequence[Feature], split: Split) -> tuple[str, str] | None:
    """Why ``split`` cannot be in a model over ``features``: (the split's field at fault, message),
    or None when it can. This is the shape every back end relies on: an ``==`` split has one child per
    category of its feature, so that a known category is never missing there."""
    feature = features[split.feature]
    if (split.op == Op.LE) != feature.is_numeric:
        return "op", f"{split.op!r} does not fit the {feature.kind} feature {feature.name!r}"
    known = set(feature.categories)
    if split.op == Op.EQ and (set(split.values) != known or len(split.values) != len(known)):
        return "values", "an '==' split needs one child for each category of its feature"
    if split.op == Op.IN and not set(split.values) <= known:
        return "values", "an 'in' split may only name categories of its feature"
    return None


def model_problem(model: Model) -> str | None:
    """Where and why a model built in memory breaks :func:`split_problem`, or None."""
    for t, tree in enumerate(model.trees):
        for n, node in enumerate(tree.nodes):
            problem = node.split is not None and split_problem(model.features, node.split)
            if problem:
                return f"tree {t}, node {n}: {problem[1]}"
    return None


def tree_output(model: Model, tree: Tree, row: Mapping[str, Any]) -> list[float]:
    """One tree's output for one row: the sum, in node order, of ``weight * value`` over the nodes
    where evaluation ended (see :func:`reached`)."""
    total = [0.0] * len(tree.nodes[0].value)
    for node_id, weight in reached(model, tree, row):
        total = [t + weight * v for t, v in zip(total, tree.nodes[node_id].value)]
    return total


def reached(model: Model, tree: Tree, row: Mapping[str, Any]) -> list[tuple[int, float]]:
    """The (node id, weight) pairs where one row's walk of one tree ended, in node order: a leaf, or a
    split whose missing route stops. Walked iteratively.

    A path's weight multiplies the fractional weights it took, per feature in path order, and then
    across features in feature order: the order in which a rule's conditions are multiplied, so
    flat rules reproduce it bit for bit.
    """
    names = [f.name for f in model.features]
    ends: list[tuple[int, dict]] = []
    stack: list[tuple[int, dict]] = [(0, {})]  # (node id, {feature: product of its fractional weights})
    while stack:
        node_id, factors = stack.pop()
        node = tree.nodes[node_id]
        if node.is_leaf:
            ends.append((node_id, factors))
            continue
        split = node.split
        position = child_for(model, split, row.get(names[split.feature]))
        if position is not None:
            stack.append((node.children[position], factors))
        elif split.missing.kind == Route.CHILD:
            stack.append((node.children[split.missing.child], factors))
        elif split.missing.kind == Route.FRACTION:
            for child, w in reversed(list(zip(node.children, split.missing.weights))):
                stack.append((child, {**factors, split.feature: factors.get(split.feature, 1.0) * w}))
        else:
            ends.append((node_id, factors))
    out = []
    for node_id, factors in sorted(ends, key=lambda item: item[0]):
        weight = 1.0
        for feature in sorted(factors):
            weight = weight * factors[feature]
        out.append((node_id, weight))
    return out


def leaf_ids(model: Model, row: Mapping[str, Any]) -> str:
    """The leaf column of the program protocol: per tree, the ids of the nodes where the row's
    evaluation ended with a weight above zero, in node order, joined by ``|``; trees joined by ``;``."""
    return ";".join("|".join(str(node_id) for node_id, weight in reached(model, tree, row) if weight > 0)
                    for tree in model.trees)
