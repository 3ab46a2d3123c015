"""The model: treegen's intermediate representation, the one contract between front and back ends.

A model is features + target + one or more trees + how the trees combine + the numeric
comparison semantics of the system that trained it. Everything a prediction depends on is data
here, so that every back end can reproduce it exactly.

Trees are flat lists of nodes (node id = index, root = 0, pre-order), never nested objects:
a chain 10,000 deep must not hit Python's recursion limit anywhere. A learned binary tree may hold
them as columns (:class:`NodeColumns`, a few numbers a node), which make each :class:`Node` when
it is read.

Prediction semantics (the reference every back end must match):

* A numeric split sends ``x`` to ``children[0]`` when it *goes left* under the model's
  :class:`NumericSemantics`, else to ``children[1]``.
* A nominal ``==`` split sends ``x`` to the child whose category it equals; an ``in`` split sends it
  to ``children[0]`` when ``x`` is in ``values``, else to ``children[1]``.
* A nominal value is read as its category by :func:`category_of`: text as it is, a number by its
  double, a Boolean as "true"/"false" or 1/0 -- the one rule of every target's API.
* A number given as text is read by :data:`NUMBER` alone, as CSV is (:func:`number_of`; other text is
  refused).
* A ``tuple`` split combines nominal features: it sends a row to ``children[0]`` when its key -- the category
  of each feature it combines (None: missing), then the child position each of its binary ``parts`` gives --
  is one of its ``tuples``, else to ``children[1]`` (:func:`tuple_key`).
* A missing value (``None``/NaN, pandas' NA and NaT) -- and a category the split does not know -- follows the split's
  :class:`MissingRoute`: one default child, a fractional route down every child (C4.5), or *stop*,
  which predicts the value of the node itself (ID3).
* A leaf may hold a linear model (:class:`Linear`, LightGBM's linear trees): its value is then
  ``const + c1 * x1 + c2 * x2 ...`` in double, left to right, or ``node.value`` when one of its
  features is missing (:func:`leaf_value`).
* A tree's output is J48's arithmetic (``ClassifierTree.getProbs``): a node where evaluation ends
  adds ``weight * node.value``, where weight is the product of the fractional weights taken along
  the path, root first (1.0 when none was taken); a node whose missing value spreads the row over its
  children adds their outputs, left to right, from 0.0. The sums nest as the tree nests -- see
  :func:`tree_output`. Without missing values exactly one leaf is reached.
* The trees' outputs are combined as :class:`Combine` says; for classification the label is the
  class with the highest final score, the first one on ties, and the first NaN where a score is NaN
  (numpy's argmax, the libraries' label: :func:`argmax`) -- except boosted classifiers, which
  decide on the raw sums as scikit-learn does, a NaN never passing (:func:`max_index`, :meth:`Model.predict`).
* Label values (:attr:`Node.label_value`): a classifier whose trees are single or averaged may
  decide its label on other numbers than the scores it reports. Its *label sums* are computed as its
  scores are -- the same nodes, the same weights, the same order -- but with each node's
  ``label_value`` (its ``value`` where it has none), and the label is the combine's decision on
  them. J48 -A reports Laplace-smoothed probabilities and labels a row by the unsmoothed ones
  (``ClassifierTree.classifyInstance`` sums ``getProbs``, ``distributionForInstance`` sums
  ``getProbsLaplace``): they differ where a missing value sends a row to several leaves.
"""
from __future__ import annotations

import math
import numbers
import operator
import re
import sys
from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass, field, fields, replace
from enum import Enum
from functools import cached_property
from itertools import repeat
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from . import arithmetic
from .arithmetic import f32
from .errors import TreegenError, counted


class Kind(str, Enum):
    """An enumerated kind that is also the very string the JSON format and the rule text write: it
    compares, hashes, formats and serialises as that string."""

    __str__ = str.__str__
    __repr__ = str.__repr__
    __format__ = str.__format__
    __hash__ = str.__hash__


class FeatureKind(Kind):
    NUMERIC = "numeric"
    NOMINAL = "nominal"


class Codes(Kind):
    """How a nominal feature whose categories are integer codes reads a number -- given as a number, or
    as text that is none of its categories but reads as a number ("3.0", "3e0"), which is read as that
    number -- as a category (:func:`code_category`; a number whose code names none of them names the
    category whose text reads as the same double, :func:`number_category`: "0.50" is "0.5"). Without
    it, a category is its text as it is ("3.0" is not "3")."""

    INTEGRAL = "integral"  # an integral value, itself (never cast), names the integer's category: 3.0 is "3"
    TRUNCATED = "truncated"  # any finite value, cast, truncated toward zero: 2.7 is "2", -0.5 "0" (LightGBM)
    NONNEGATIVE = "nonnegative"  # truncated, but a value below 0 (after the cast) names none: -0.5 (XGBoost)


class TargetKind(Kind):
    CLASSIFICATION = "classification"
    REGRESSION = "regression"


class Op(Kind):
    """How a split tests its feature."""

    LE = "<="  # numeric threshold: left when the value goes left under NumericSemantics
    EQ = "=="  # nominal multiway: one child per category
    IN = "in"  # nominal subset, binary: children[0] when the category is one of the split's values
    TUPLE = "tuple"  # nominal features combined, binary: children[0] when the row's key is one of the split's tuples


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
    """What turns the raw sums into scores (see :func:`apply_link`)."""

    IDENTITY = "identity"
    SIGMOID = "sigmoid"  # one raw sum: the log-odds of the second class; several: each class's own
    SOFTMAX = "softmax"
    EXP = "exp"  # poisson, gamma, tweedie
    EXP_DOUBLE = "exp_double"  # exp in double of the sum, rounded to the sums' precision (XGBoost's survival:aft)
    STEP = "step"  # 1 where the sum is above 0, else 0 (NaN too): XGBoost's binary:hinge
    SIGN_SQUARE = "sign_square"  # LightGBM's regression on the square root: sign(x) * x * x


class Precision(Kind):
    """The arithmetic of the trees' sums and the link."""

    FLOAT64 = "float64"
    FLOAT32 = "float32"  # every sum, product and the link rounded to float32 (XGBoost)


class Decision(Kind):
    """How a classifier's label follows from its scores or raw sums."""

    ARGMAX = "argmax"  # the first class with the highest score (the first NaN: :func:`argmax`)
    WEKA = "weka"  # the first class, passed only by a score higher by more than 1e-6 (Weka's J48)
    RAW_NONNEGATIVE = "raw_nonnegative"  # binary: the second class when the raw sum is >= 0 (scikit-learn)
    RAW_POSITIVE = "raw_positive"  # binary: the second class when the raw sum is > 0 (HistGB, CatBoost)
    ARGMAX_RAW = "argmax_raw"  # the first class with the highest raw sum (NaN never passes: :func:`max_index`)


NUMERIC, NOMINAL = FeatureKind.NUMERIC, FeatureKind.NOMINAL
CLASSIFICATION, REGRESSION = TargetKind.CLASSIFICATION, TargetKind.REGRESSION


def compared_as_tuples(cls):
    """A dataclass whose equality is its fields' tuple's, as every dataclass's was before Python 3.13: a
    NaN (the threshold of every split but ``<=``, ``math.nan`` itself) equals itself there, where 3.13
    compares field by field and finds a split, its node and its tree unequal to their copies."""
    fields_of = operator.attrgetter(*(f.name for f in fields(cls)))

    def __eq__(self, other):
        if other.__class__ is not self.__class__:
            return NotImplemented
        return fields_of(self) == fields_of(other)

    cls.__eq__ = __eq__
    return cls


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(what: str, text: str, of: str | None = None) -> None:
    """Refuse a name, category or label that is not Unicode text: a lone UTF-16 surrogate (which JSON can
    spell, ``"\\ud800"``, and Python's surrogateescape makes of a byte that is not UTF-8). No target could
    read it from a CSV file or write it in its output, nor could a model file hold it. Checked as a feature
    or target is made, so that every model (trained, imported, parsed, read or built) is refused at once."""
    if not text.isascii():
        lone = _LONE_SURROGATE.search(text)
        if lone is not None:
            where = "" if of is None else f" of {of!r}"
            raise TreegenError(f"the {what} {text!r}{where} holds a lone surrogate (U+{ord(lone.group()):04X}), "
                               "which is not Unicode text: no UTF-8 text (a CSV file, a program's output) can hold it")


def check_feature_names(names: Sequence[str]) -> None:
    """Refuse two features whose names are equal once the spaces around them are stripped ('x' and 'x ', as
    ARFF can declare them): a CSV header's names are stripped (treegen's reader and every program's), so no
    CSV could feed them apart."""
    seen: dict[str, str] = {}
    for name in names:
        stripped = name.strip(" ")  # (treegen.table.SPACE: the one character a header's names lose)
        other = seen.get(stripped)
        if other is None:
            seen[stripped] = name
        else:
            raise TreegenError(f"the feature name {name!r} is given twice" if other == name else
                               f"the features {other!r} and {name!r} have the same name once the spaces around "
                               "them are stripped, as a CSV header's names are: rename one")


@dataclass(frozen=True)
class Feature:
    """One input column of a model, by its name: numeric (a number, compared with each split's threshold) or
    nominal (one of its ``categories``); a row gives its value under ``name`` (see :meth:`Model.predict`)."""

    name: str
    kind: FeatureKind
    categories: tuple[str, ...] = ()  # nominal: the known values, in declared order
    missing_interval: tuple[float, float] | None = None  # numeric: values low <= x <= high count as missing
    codes: Codes | None = None  # nominal: how a number names a category (None: by its text alone)

    def __post_init__(self):
        check_text("feature name", self.name)
        for category in self.categories:
            check_text("category", category, of=self.name)
        if len(set(self.categories)) != len(self.categories):  # (a model file refuses it too: modelio)
            twice = next(c for k, c in enumerate(self.categories) if c in self.categories[:k])
            raise TreegenError(f"the feature {self.name!r} names the category {twice!r} twice: a category is one "
                               f"value, and the targets number categories by their place")

    @property
    def is_numeric(self) -> bool:
        return self.kind == NUMERIC

    @cached_property
    def known(self) -> frozenset[str]:
        """Nominal: the categories as a set, for telling a category from unknown text at once."""
        return frozenset(self.categories)

    @cached_property
    def named_by_number(self) -> dict[float, str]:
        """Nominal: the category each number names (:func:`number_names`), made once."""
        return number_names(self.categories)

    @cached_property
    def named_by_boolean(self) -> tuple[str | None, str | None]:
        """Nominal: the categories False and True name (:func:`boolean_names`), made once."""
        return boolean_names(self)


@dataclass(frozen=True)
class Target:
    """What a model predicts: a class, one of ``classes`` (classification), or a number (regression)."""

    name: str
    kind: TargetKind
    classes: tuple[str, ...] = ()  # classification: labels, in a stable order

    def __post_init__(self):
        check_text("target name", self.name)
        for label in self.classes:
            check_text("class label", label)

    @property
    def is_classification(self) -> bool:
        return self.kind == CLASSIFICATION

    @property
    def width(self) -> int:
        """Length of a node's value vector."""
        return len(self.classes) if self.is_classification else 1


@dataclass(frozen=True, slots=True)
class MissingRoute:
    """Where a missing value (or a category unknown to the split) goes at one split."""

    kind: Route = Route.STOP
    child: int = 0  # Route.CHILD: the position (0-based) of the default child
    weights: tuple[float, ...] = ()  # Route.FRACTION: the weight given to each child

    def __post_init__(self):
        if type(self.kind) is not Route:
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


@compared_as_tuples
@dataclass(frozen=True, slots=True)
class Split:
    feature: int  # index into Model.features
    op: Op
    threshold: float = math.nan  # Op.LE: as the source system stores it
    values: tuple[str, ...] = ()  # Op.EQ: category of each child; Op.IN: categories of children[0]
    missing: MissingRoute = MissingRoute()
    unknown: int | None = None  # EQ, IN: the child a category the feature does not know goes to (None: missing's)
    # Op.TUPLE (see :func:`tuple_key`): the nominal features combined (``feature`` is the first), binary splits
    # on other features whose child positions end the key, and the keys that go to children[0]
    features: tuple[int, ...] = ()
    parts: tuple["Split", ...] = ()
    tuples: frozenset[tuple[str | int | None, ...]] = frozenset()

    def __post_init__(self):
        if type(self.op) is not Op:  # (a check costs a tenth of the enum's look-up)
            object.__setattr__(self, "op", Op(self.op))


@dataclass(frozen=True, slots=True)
class Linear:
    """A leaf's linear model: ``const + coeff * x`` for each term in order, in double (LightGBM's
    linear trees, ``Tree::Predict`` in ``include/LightGBM/tree.h``). See :func:`leaf_value`."""

    const: float
    terms: tuple[tuple[int, float], ...] = ()  # (numeric feature index, coefficient), added in this order


@dataclass(slots=True)  # no __dict__: about 100 bytes less a node, in trees of 200,000 nodes
class Node:
    value: tuple[float, ...]  # prediction when evaluation ends here: class scores or (regression value,)
    counts: tuple[float, ...] = ()  # classification: training weight of each class at this node
    n: float = 0.0  # training weight that reached this node
    split: Split | None = None
    children: tuple[int, ...] = ()
    label_value: tuple[float, ...] = ()  # classification: what the label is decided on, when not value (J48 -A)
    linear: Linear | None = None  # a leaf's linear model; ``value`` (one number) when a term's input is missing

    @property
    def is_leaf(self) -> bool:
        return self.split is None

    @property
    def deciding_value(self) -> tuple[float, ...]:
        """The numbers the label sums add for this node: its label value, or its value."""
        return self.label_value or self.value


class NodeColumns(SequenceABC):
    """The nodes of a binary tree held as columns, one row per node: a tree of 200,000 nodes takes
    a few MB instead of some 70 MB of :class:`Node` objects (about 350 bytes a node). Reading a node
    makes a new :class:`Node` from its row each time: change such a tree by building another one,
    and give code that reads nodes by id over and over a list of them (:func:`listed`; the walk of
    one row at a time takes :meth:`kept`).

    Every split is binary and sends missing values (and unknown categories) to one child: ``x <=
    threshold``, or ``x in`` the categories ``values`` holds for the node.
    """

    CHUNK = 4096  # rows made into nodes at once while iterating (Python lists of that many numbers)

    def __init__(self, value: np.ndarray, counts: np.ndarray | None, n: np.ndarray, children: np.ndarray,
                 feature: np.ndarray, threshold: np.ndarray, missing: np.ndarray,
                 values: Mapping[int, tuple[str, ...]]):
        self.value = value  # (nodes, width): Node.value
        self.counts = counts  # (nodes, width): Node.counts; None: every node's counts are ()
        self.n = n  # (nodes,)
        self.children = children  # (nodes, 2): left and right child, negative for a leaf
        self.feature, self.threshold = feature, threshold  # (nodes,): an inner node's split
        self.missing = missing  # (nodes,): the child (0 or 1) missing values go to
        self.values = dict(values)  # node id -> an "in" split's categories (other splits are "<=")
        self._kept: list[Node] | None = None

    def kept(self) -> list[Node]:
        """Every node, made at the first call and kept with the columns: for the walk of one row after
        another (:func:`by_id`), which reads the nodes of its path by id each time."""
        if self._kept is None:
            self._kept = list(self)
        return self._kept

    def __getstate__(self) -> dict:
        return {**self.__dict__, "_kept": None}  # (a pickle holds the columns, not the nodes made of them)

    def inner(self) -> np.ndarray:
        """Which nodes split (a mask)."""
        return self.children[:, 0] >= 0

    def numeric_splits(self) -> np.ndarray:
        """Which nodes split ``x <= threshold`` (a mask)."""
        numeric = self.inner()
        numeric[list(self.values)] = False
        return numeric

    def __len__(self) -> int:
        return len(self.n)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        i = range(len(self))[index]
        value = tuple(self.value[i].tolist())
        counts = () if self.counts is None else tuple(self.counts[i].tolist())
        left = self.children.item(i, 0)
        if left < 0:
            return Node(value, counts, self.n.item(i))
        split = self._split(i, self.feature.item(i), self.threshold.item(i), self.missing.item(i))
        return Node(value, counts, self.n.item(i), split, (left, self.children.item(i, 1)))

    def __iter__(self):
        for start in range(0, len(self), self.CHUNK):
            yield from self._nodes(start, min(start + self.CHUNK, len(self)))

    def __eq__(self, other) -> bool:
        return (isinstance(other, SequenceABC) and len(self) == len(other)
                and all(a == b for a, b in zip(self, other)))

    def __repr__(self) -> str:
        return f"NodeColumns(<{len(self)} nodes>)"

    def _nodes(self, start: int, stop: int) -> list[Node]:
        """The nodes ``start`` to ``stop``, made from their rows (columns become lists at once: a
        number at a time from numpy costs several times more)."""
        value = zip(*[column.tolist() for column in self.value[start:stop].T])
        counts = repeat(()) if self.counts is None else zip(*[c.tolist() for c in self.counts[start:stop].T])
        left, right = self.children[start:stop].T.tolist()
        nodes = []
        for i, v, c, n, a, b, feature, threshold, missing in zip(
                range(start, stop), value, counts, self.n[start:stop].tolist(), left, right,
                self.feature[start:stop].tolist(), self.threshold[start:stop].tolist(),
                self.missing[start:stop].tolist()):
            if a < 0:
                nodes.append(Node(v, c, n))
            else:
                nodes.append(Node(v, c, n, self._split(i, feature, threshold, missing), (a, b)))
        return nodes

    def _split(self, i: int, feature: int, threshold: float, missing: int) -> Split:
        route = _CHILD_ROUTES[missing]
        if i in self.values:
            return Split(feature, Op.IN, values=self.values[i], missing=route)
        return Split(feature, Op.LE, threshold=threshold, missing=route)


_CHILD_ROUTES = (MissingRoute.to_child(0), MissingRoute.to_child(1))  # frozen: shared by every split


@dataclass
class Tree:
    nodes: Sequence[Node]  # a list, or NodeColumns
    output: int | None = None  # CombineKind.SUM: the output column this tree adds to (None: all)
    weight: float = 1.0  # CombineKind.SUM: the tree's output is multiplied by this first (XGBoost DART)

    def __repr__(self) -> str:  # not each node's: a model's trees may hold millions
        return f"<Tree of {len(self.nodes)} nodes, output {self.output}, weight {self.weight!r}>"

    def leaves(self) -> list[int]:
        return [i for i, node in enumerate(self.nodes) if node.is_leaf]

    def listed(self) -> "Tree":
        """This tree with its nodes in a list (itself when they are): for code that reads every
        node several times (:class:`NodeColumns` makes a new Node at each read)."""
        return self if isinstance(self.nodes, list) else replace(self, nodes=list(self.nodes))

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
        return Tree(nodes, self.output, self.weight), order

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
    init: tuple[float, ...] = ()  # SUM: the starting raw scores, one per raw output
    scale: float = 1.0  # SUM: each tree's output is multiplied by this (the learning rate)
    link: Link = Link.IDENTITY  # applied after summing
    link_scale: float = 1.0  # SIGMOID: 1 / (1 + exp(-link_scale * raw)) (LightGBM's sigmoid parameter)
    precision: Precision = Precision.FLOAT64
    divisor: float = 1.0  # SUM: the sums are divided by this before the link (LightGBM's average_output)
    init_last: bool = False  # SUM: raw = scale * (sum of the outputs) + init, as CatBoost adds its bias
    decide: Decision | None = None  # classification; None: what the link implies (see decision())

    def __post_init__(self):
        object.__setattr__(self, "kind", CombineKind(self.kind))
        object.__setattr__(self, "link", Link(self.link))
        object.__setattr__(self, "precision", Precision(self.precision))
        if self.decide is not None:
            object.__setattr__(self, "decide", Decision(self.decide))

    def decision(self) -> Decision:
        """The rule that picks a classifier's label: the one set, or the link's own (boosted sums
        with a sigmoid decide on raw >= 0, with a softmax on the highest raw sum, as scikit-learn's
        gradient boosting does; everything else on the highest score)."""
        if self.decide is not None:
            return self.decide
        if self.kind == CombineKind.SUM and self.link == Link.SIGMOID and len(self.init) == 1:
            return Decision.RAW_NONNEGATIVE
        if self.kind == CombineKind.SUM and self.link == Link.STEP and len(self.init) == 1:
            return Decision.RAW_POSITIVE  # the class whose score is 1
        if self.kind == CombineKind.SUM and self.link == Link.SOFTMAX:
            return Decision.ARGMAX_RAW
        return Decision.ARGMAX


@dataclass(frozen=True)
class NumericSemantics:
    """How the source system compared a numeric input ``x`` with a stored threshold ``t``.

    ``x`` is first read: a value with ``|x| <= zero_band`` as 0.0 (LightGBM), then cast (scikit-learn
    and XGBoost compare float32 casts). It goes left when ``cast(x) <= t``, or ``cast(x) < t`` when
    ``strict`` (XGBoost), or ``cast(x) - t < tolerance`` (Weka's J48 allows 1e-6).
    """

    cast: str = "float64"  # "float64" | "float32"
    tolerance: float = 0.0
    strict: bool = False
    zero_band: float = 0.0

    def goes_left(self, x: float, t: float) -> bool:
        if self.zero_band and -self.zero_band <= x <= self.zero_band:
            x = 0.0
        if self.cast == "float32":
            x = f32(x)
        if self.strict:
            return x < t
        return x <= t or (self.tolerance > 0 and x - t < self.tolerance)

    def effective_threshold(self, t: float) -> float:
        """The largest float64 ``x`` that goes left: ``goes_left(x, t)`` iff ``x <= result``.

        This lets every back end test a plain float64 ``x <= result`` and still agree with the
        source system at the boundary, one ulp either side included. Kept per threshold: a model's
        thresholds are converted once however many places ask.
        """
        if self._plain:
            return t
        cuts = self._cuts
        cut = cuts.get(t)
        if cut is None or t == 0.0:  # 0.0 and -0.0 share a key: worked out each time (the cut keeps the sign)
            cut = cuts[t] = _effective_threshold(self, t)
        return cut

    @cached_property
    def _plain(self) -> bool:
        """Python's own ``x <= t``: every threshold is its own cut."""
        return self == NumericSemantics()

    @cached_property
    def _cuts(self) -> dict[float, float]:
        # in the instance, not an lru_cache keyed by it: hashing the dataclass cost half of each call
        return {}

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def _effective_threshold(semantics: NumericSemantics, t: float) -> float:
    if semantics.tolerance:
        return _largest_left(lambda x: semantics.goes_left(x, t), t)
    if semantics.cast == "float32":
        cut = _float32_cut(_float32_below(t) if semantics.strict else t)
    else:
        cut = math.nextafter(t, -math.inf) if semantics.strict else t
    band = semantics.zero_band
    if not band:
        return cut
    # The band reads as 0.0: it goes where 0.0 goes, and the left side stays a half-line.
    if 0.0 <= cut:
        return max(cut, band)
    return cut if cut < -band else math.nextafter(-band, -math.inf)


def _float32_below(t: float) -> float:
    """The largest float32 value below ``t`` (``float32(x) < t`` iff ``float32(x) <= result``)."""
    if math.isnan(t) or t == -math.inf:
        return -math.inf
    below = f32(t)
    if below >= t:
        below = _next_float32(below, -math.inf)
    return below


def _next_float32(x: float, toward: float) -> float:
    """The float32 value next to the float32 ``x`` in the direction of ``toward``."""
    with np.errstate(over="ignore"):  # past FLT_MAX: infinity, as wanted
        return float(np.nextafter(np.float32(x), np.float32(toward)))


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
    """A model of decision trees, whichever way it was made (:func:`treegen.train`, :func:`treegen.load`, an
    importer): its ``features`` and ``target``, its ``trees`` and how their outputs are combined (one tree, a
    forest's average, boosting's sum and link), and the arithmetic it compares numbers in. ``predict(row)``,
    ``predict_proba(row)`` and ``scores(row)`` answer one row, a mapping of feature name to value; the
    generated programs answer as it does (docs/model-format.md: its JSON)."""

    features: tuple[Feature, ...]
    target: Target
    trees: list[Tree]
    combine: Combine = Combine()
    numeric: NumericSemantics = NumericSemantics()
    meta: dict = field(default_factory=dict)  # algorithm, parameters, source: informative only

    def __post_init__(self):
        check_feature_names([f.name for f in self.features])
        if not self.trees:  # every way of making a model passes here (a model file's reader names the field first)
            raise TreegenError("the model has no trees (a booster trained for 0 rounds, or saved without its trees?): "
                               "it would predict one constant for every row, and treegen compiles trees")

    def __repr__(self) -> str:  # the fields' own repr of a boosted model runs to megabytes
        algorithm = self.meta.get("algorithm")
        return f"<Model{f' {algorithm}' if algorithm else ''}: {self.shape()}>"

    def summary(self) -> str:
        """One line on the model: what made it, its trees, features and target."""
        return f"{self.meta.get('algorithm', 'a model')}: {self.shape()}"

    def shape(self) -> str:
        """The model's trees, nodes, features and target, in words."""
        nodes = sum(len(tree.nodes) for tree in self.trees)
        target = counted(len(self.target.classes), "class", "classes") if self.target.is_classification else "a number"
        return (f"{counted(len(self.trees), 'tree')}, {counted(nodes, 'node')}, {counted(len(self.features), 'feature')}, "
                f"predicting {target} ({self.target.name!r})")

    def used_features(self) -> list[int]:
        """The features some split tests, in feature order: the columns a row must have."""
        used: set[int] = set()
        for nodes in (tree.nodes for tree in self.trees):
            if isinstance(nodes, NodeColumns):  # (without making its nodes)
                used.update(nodes.feature[nodes.inner()].tolist())
            else:
                used.update(flat for node in nodes if node.split is not None for flat in read_features(node.split))
        return sorted(used | set(self.linear_features()))

    def linear_features(self) -> list[int]:
        """The features some linear leaf reads, in feature order (their raw values: see :func:`leaf_value`)."""
        return sorted({f for tree in trees_of_nodes(self) for node in tree.nodes if node.linear is not None
                       for f, _ in node.linear.terms})

    # -- reference prediction -------------------------------------------------------------

    def scores(self, row: Mapping[str, Any]) -> list[float]:
        """The final score vector for one row: class probabilities, or [regression value]."""
        check_numbers(self, row)
        return self.combined([tree_output(self, tree, row) for tree in self.trees])[1]

    def predict_proba(self, row: Mapping[str, Any]) -> list[float]:
        """The class probabilities for one row, in ``target.classes`` order: :meth:`scores`, by the name the
        generated programs and scikit-learn give them. A regression model has none."""
        if not self.target.is_classification:
            raise TreegenError("predict_proba: a regression model predicts a value (predict), not probabilities")
        return self.scores(row)

    def predict(self, row: Mapping[str, Any]):
        """The label (classification) or value (regression) for one row.

        Boosted classifiers decide on the raw sums, as scikit-learn does: sigmoid -> the second class
        when raw >= 0 (p = 0.5 included), softmax -> the first highest raw score. Deciding on the
        rounded probabilities would differ where they tie (raw == 0: balanced data). Where a node
        reached has a label value, the label is decided on the label sums (see the module's docstring).
        """
        check_numbers(self, row)
        walks = [list(walk(self, tree, row)) for tree in self.trees]
        outputs = [nested_sum(tree, w, node_value(self, row)) for tree, w in zip(self.trees, walks)]
        if any(by_id(tree)[n].label_value for tree, w in zip(self.trees, walks) for n, _, spread in w if not spread):
            labels = node_value(self, row, labels=True)
            return self.combined(outputs, [nested_sum(tree, w, labels) for tree, w in zip(self.trees, walks)])[0]
        return self.combined(outputs)[0]

    def combined(self, outputs: Sequence[Sequence[float]],
                 label_outputs: Sequence[Sequence[float]] | None = None) -> tuple[Any, list[float]]:
        """(prediction, scores) from the trees' outputs for one row, in tree order: the trees
        combined as :class:`Combine` says (sums left to right, as every back end adds them).
        ``label_outputs``: the trees' label sums (:attr:`Node.label_value`), when the label is
        decided on them -- combined as the outputs are, and decided on as the scores would be."""
        prediction, scores = self.decided(self.sums(outputs))
        if label_outputs is not None:
            prediction = self.decided(self.sums(label_outputs))[0]
        return prediction, scores

    def sums(self, outputs: Iterable[Sequence[float]], rounded: Callable | None = None) -> list:
        """The trees' outputs, one per tree in tree order, combined before any link: the single
        tree's output, the average, or the raw sums (:meth:`raw_sums`). The same arithmetic serves
        a batch: each output a sequence of numpy columns, one entry per row, and ``rounded`` what
        rounds them to the model's precision (see :meth:`raw_sums`)."""
        kind = self.combine.kind
        if kind == CombineKind.SINGLE:
            return list(next(iter(outputs)))
        if kind == CombineKind.AVERAGE:
            total = [0.0] * self.target.width
            for out in outputs:
                total = [a + b for a, b in zip(total, out)]
            return [a / len(self.trees) for a in total]
        if kind == CombineKind.SUM:
            return self.raw_sums(outputs, rounded)
        raise ValueError(f"unknown combine kind {kind!r}")

    def decided(self, sums: list[float]) -> tuple[Any, list[float]]:
        """(prediction, scores) of one row from its :meth:`sums`: a boosted model's link applied to
        its raw sums, then the label decided (a boosted classifier on its raw sums, see
        :class:`Decision`)."""
        scores = apply_link(self.combine, sums) if self.combine.kind == CombineKind.SUM else sums
        if not self.target.is_classification:
            return scores[0], scores
        return self.target.classes[decide(self.combine.decision(), scores, sums)], scores

    def raw_sums(self, outputs: Iterable[Sequence[float]], rounded: Callable | None = None) -> list[float]:
        """The raw sums of a boosted model (:attr:`CombineKind.SUM`), before the link, in the model's
        precision: from ``init``, each tree's output times its weight, times ``scale``, added in tree
        order to its output column; with ``init_last``, ``scale * sum + init`` at the end instead;
        then divided by ``divisor``. Every operation is rounded (to float32 in FLOAT32), by
        ``rounded`` when given (numpy's rounding, for a batch of rows: see :meth:`sums`)."""
        combine = self.combine
        if rounded is None:
            rounded = f32 if combine.precision == Precision.FLOAT32 else float
        raw = [0.0] * len(combine.init) if combine.init_last else [rounded(v) for v in combine.init]
        per_tree_scale = 1.0 if combine.init_last else combine.scale
        for tree, out in zip(self.trees, outputs):
            for k in (range(len(raw)) if tree.output is None else [tree.output]):
                term = out[0 if tree.output is not None else k]
                if tree.weight != 1.0:
                    term = rounded(term * tree.weight)
                if per_tree_scale != 1.0:
                    term = rounded(per_tree_scale * term)
                raw[k] = rounded(raw[k] + term)
        if combine.init_last:
            raw = [rounded(rounded(combine.scale * r) + v) for r, v in zip(raw, combine.init)]
        if combine.divisor != 1.0:
            raw = [rounded(r / combine.divisor) for r in raw]
        return raw


def listed(model: Model) -> Model:
    """The model with every tree's nodes in a list, made once: for code that follows a tree's links,
    reading each node many times (a :class:`NodeColumns` tree makes a new Node at each read). The
    lists live as long as the model returned; ``model`` itself when its trees hold lists already."""
    if all(isinstance(tree.nodes, list) for tree in model.trees):
        return model
    return replace(model, trees=[tree.listed() for tree in model.trees])


def with_used_features_known(model: Model) -> Model:
    """A copy of ``model`` (its trees shared) whose :meth:`Model.used_features` is worked out once, for a back end
    that asks it of an unchanging model five times (Python, Java, JavaScript: 0.6 s of a 1,000-tree model's 5 s;
    each asking reads every node). Each answer is a list of its own."""
    used = model.used_features()
    known = replace(model)
    known.used_features = lambda: list(used)
    return known


def argmax(scores: Sequence[float]) -> int:
    """Index of the highest score, the first one on ties (as numpy, Weka and scikit-learn); where a score
    is NaN, the first NaN: numpy's argmax, by which ``LGBMClassifier.predict`` labels a row whose
    one-vs-all probabilities are ``[0, nan, 1]`` (a linear leaf reading +inf and -inf) with class 1.
    The targets write the test for NaN where a score can be NaN (:func:`scores_nan`)."""
    best = 0
    for i, s in enumerate(scores):
        if s > scores[best] or math.isnan(s) and not math.isnan(scores[best]):
            best = i
    return best


def max_index(scores: Sequence[float]) -> int:
    """Index of the highest score, the first one on ties, passed by no NaN (the first stays where it is NaN):
    XGBoost's ``FindMaxIndex``, multi:softmax's label from its raw sums, which may be NaN (infinite leaves).
    The other models that decide on raw sums (scikit-learn's, CatBoost's) score no NaN (:func:`scores_nan`)."""
    best = 0
    for i, s in enumerate(scores):
        if s > scores[best]:
            best = i
    return best


def scores_nan(model: Model) -> bool:
    """Whether a score of the model can be NaN: a linear leaf reads +inf and -inf (``inf * c - inf * c``), or
    a boosted sum can reach an infinity (a leaf of inf, as an XGBoost file may hold, or leaves whose sum
    overflows the model's precision), which an opposite infinity or a softmax's ``inf - inf`` makes NaN.
    Only then do the targets write the tests for NaN (:func:`argmax`'s; the SQL's in XGBoost's links)."""
    if any(node.linear is not None for tree in model.trees for node in tree.nodes):
        return True
    combine = model.combine
    if combine.kind != CombineKind.SUM:
        return False
    largest = arithmetic.FLT_MAX if combine.precision == Precision.FLOAT32 else sys.float_info.max
    # each term at most its tree's largest value times its weight and the scale (the sum: rounded, hence / 2)
    bound = sum(max(abs(v) for node in tree.nodes for v in node.value) * abs(tree.weight) for tree in model.trees)
    bound = bound * max(1.0, abs(combine.scale)) + max((abs(v) for v in combine.init), default=0.0)
    return not bound < largest / 2


def weka_argmax(scores: Sequence[float]) -> int:
    """Weka's choice of class: the first, passed only by a score greater by more than 1e-6
    (``Utils.gr`` in ``Classifier.classifyInstance``)."""
    best = 0
    for i, s in enumerate(scores):
        if s - scores[best] > 1e-6:
            best = i
    return best


def leaf_class(combine: Combine, value: Sequence[float]) -> int:
    """The class a leaf's value predicts on its own: by Weka's rule in J48's trees (ties within 1e-6
    go to the first class), else the first highest."""
    return weka_argmax(value) if combine.decide == Decision.WEKA else argmax(value)


def decide(decision: Decision, scores: Sequence[float], raw: Sequence[float]) -> int:
    """Index of the predicted class under ``decision``, from the scores and the raw sums."""
    if decision == Decision.ARGMAX:
        return argmax(scores)
    if decision == Decision.WEKA:
        return weka_argmax(scores)
    if decision == Decision.RAW_NONNEGATIVE:
        return 1 if raw[0] >= 0 else 0
    if decision == Decision.RAW_POSITIVE:
        return 1 if raw[0] > 0 else 0
    if decision == Decision.ARGMAX_RAW:
        return max_index(raw)
    raise ValueError(f"unknown decision {decision!r}")


def apply_link(combine: Combine, raw: list[float]) -> list[float]:
    """The scores from the raw sums, computed as the source library computes them: in double, or
    in float32 with glibc's ``expf`` (XGBoost). One sigmoid sum is a binary classifier's log-odds
    (scores ``[1 - p, p]``); several are each class's own (LightGBM's one-vs-all)."""
    link, single = combine.link, combine.precision == Precision.FLOAT32
    if link == Link.IDENTITY:
        return raw
    if link == Link.SIGMOID:
        if single:
            p = arithmetic.sigmoid_f32(raw[0])
            return [f32(1.0 - p), p] if len(raw) == 1 else [arithmetic.sigmoid_f32(r) for r in raw]
        if len(raw) == 1:
            p = arithmetic.sigmoid(raw[0], combine.link_scale)
            return [1.0 - p, p]
        return [arithmetic.sigmoid(r, combine.link_scale) for r in raw]
    if link == Link.SOFTMAX:
        return arithmetic.softmax_f32(raw) if single else arithmetic.softmax(raw)
    if link == Link.EXP:
        return [arithmetic.expf(r) if single else arithmetic.exp(r) for r in raw]
    if link == Link.EXP_DOUBLE:
        return [f32(arithmetic.exp(r)) if single else arithmetic.exp(r) for r in raw]
    if link == Link.STEP:
        steps = [arithmetic.step(r) for r in raw]
        return [1.0 - steps[0], steps[0]] if len(raw) == 1 else steps
    if link == Link.SIGN_SQUARE:
        return [(1.0 if r > 0 else -1.0 if r < 0 else 0.0) * r * r for r in raw]
    raise ValueError(f"unknown link {link!r}")


CODE_LIMIT = 2.0 ** 31  # a code at or beyond (in size) names no category: LightGBM's codes are ints


def code_category(codes: Codes, value: float, cast: str = "float64") -> str | None:
    """The category a number names under ``codes`` (None for none): the decimal integer of its value
    if integral (INTEGRAL: the value itself, as pandas finds a number among a Categorical's categories),
    or truncated toward zero as the model reads numbers (``cast``; TRUNCATED: LightGBM's
    ``static_cast<int>``; NONNEGATIVE: XGBoost's float32, ``InvalidCat`` below 0, then ``AsCat``); -0.0
    is "0". A value that is not finite or not under 2^31 in size names none."""
    value = f32(value) if cast == "float32" and codes != Codes.INTEGRAL else float(value)
    if not -CODE_LIMIT < value < CODE_LIMIT:  # NaN and the infinities too
        return None
    if codes == Codes.NONNEGATIVE and value < 0:
        return None
    if codes != Codes.INTEGRAL:
        value = math.trunc(value)
    elif not value.is_integer():
        return None
    return str(int(value))


# The number grammar of every reader of treegen's CSV: the generated programs hold this very regex.
# ASCII digits only, no spaces, no '_', no hex or Java's '1d'; float() and Double.parseDouble read
# every string it matches to the same double. (treegen.data reads CSV numbers by it too.)
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
                    re.IGNORECASE | re.ASCII)  # ASCII: Unicode case folding would let 'ınf' (dotless i) in


def code_number(value: Any) -> float | None:
    """A value given for a nominal feature as the number it is, or its text reads as (:data:`NUMBER`,
    as a numeric feature's text is read); None for anything else. An int too large for a double is
    infinite (it names no category)."""
    if isinstance(value, str):
        return float(value) if NUMBER.fullmatch(value) else None
    if isinstance(value, numbers.Real):
        try:
            return float(value)
        except OverflowError:
            return math.inf if value > 0 else -math.inf
    return None


def category_of(feature: Feature, value: Any, cast: str = "float64") -> str | None:
    """The category a present value is of a nominal feature, None for one it does not know -- the
    reading rule of every reader, in every target's API:

    * text (a str) is the category of that very text; for a feature of codes (:attr:`Feature.codes`),
      text that is none but reads as a number (:data:`NUMBER`) is read as that number is
      (:func:`number_category`: the category its code names under the model's ``cast``, else the one
      whose text reads as the same double: "0.50" and "5e-1" are "0.5", "5000000001.0" is
      "5000000001", as scikit-learn finds a number category by its value). Without codes, CSV fields
      are text: "1.0" is not "1".
    * a Boolean (bool, numpy's bool) names :attr:`Feature.named_by_boolean` (:func:`boolean_names`).
    * a number (int, float, numpy's numbers: :class:`numbers.Real`) names :func:`number_category`: the
      category of its code first for a feature of codes, else the one whose text reads as its double.
    * any other value is its text, ``str(value)``, if that is a category -- but many values (:func:`is_many`:
      a pandas Series, a list...) are refused, not read as their text.

    A number is read by its double, not by its text, which each language spells its own way (Python
    '1e-07' and 'True', Java "1.0E-7" and "true", JavaScript "1e-7"): the same row takes the same route
    in every target, and a frame's int column turned float by a NaN (1.0, 2.0) still names "1", "2"."""
    if isinstance(value, str):
        if value in feature.known:
            return value
        if feature.codes is None or not NUMBER.fullmatch(value):
            return None
        return number_category(feature, float(value), cast)  # "0.50", "5e-1" as 0.5; "3.0" as 3.0
    if isinstance(value, (bool, np.bool_)):
        return feature.named_by_boolean[bool(value)]
    if isinstance(value, numbers.Real):
        return number_category(feature, code_number(value), cast)
    if is_many(value):
        raise NotOneValue(many_values(feature.name, value))
    text = str(value)
    return text if text in feature.known else None


def number_category(feature: Feature, number: float, cast: str = "float64") -> str | None:
    """The category a number names, None for none: for a feature of codes, the category its code names
    (:func:`code_category`, the library's rule) if the feature has it; else the category whose text reads
    as the same double (:attr:`Feature.named_by_number`; -0.0 is 0.0, NaN names none)."""
    if feature.codes is not None:
        name = code_category(feature.codes, number, cast)
        if name in feature.known:
            return name
    return feature.named_by_number.get(number)


def codes_float32(model: Model) -> bool:
    """Whether a feature's codes read a number as its float32 (:func:`code_category`): the model reads
    numbers so and some feature's code rule is the library's own (not INTEGRAL, which reads the value)."""
    return model.numeric.cast == "float32" and any(f.codes not in (None, Codes.INTEGRAL) for f in model.features)


def numbers_past_codes(feature: Feature, cast: str = "float64") -> dict[float, str]:
    """For a feature of codes, the numbers of :attr:`Feature.named_by_number` whose code names none of its
    categories: what :func:`number_category` finds after the code (the table a back end writes for it)."""
    return {number: name for number, name in feature.named_by_number.items()
            if code_category(feature.codes, number, cast) not in feature.known}


def number_names(categories: Sequence[str]) -> dict[float, str]:
    """The category each number names, by double (keys: -0.0 is 0.0): the categories whose text reads as
    a number by the CSV's grammar (:data:`NUMBER`; "nan" names nothing), the first in category order
    where several read as one double ("3", "3.0", "3e0") -- but the one spelt as its decimal integer
    ("3", as ``str(3)``, ``Integer.toString(3)`` and ``String(3)`` spell an int) before any other. The
    map is data in every generated module, computed here once, so the one rule is the same everywhere."""
    names: dict[float, str] = {}
    for category in categories:
        number = float(category) + 0.0 if NUMBER.fullmatch(category) else math.nan
        if not math.isnan(number) and (number not in names or category == integer_text(number) != names[number]):
            names[number] = category
    return names


def integer_text(number: float) -> str | None:
    """A finite integral double's decimal integer ("3", "0" for -0.0), None for another number."""
    return str(int(number)) if math.isfinite(number) and number.is_integer() else None


BOOLEAN_TEXTS = ("false", "true")


def boolean_names(feature: Feature) -> tuple[str | None, str | None]:
    """The categories False and True name: the first category spelt "false" / "true" in any letter case
    (ASCII), else the category the number 0 / 1 names (:func:`number_category`; a code's rule reads
    0 and 1 alike in float32), else None."""
    def named(truth: int) -> str | None:
        spelt = [c for c in feature.categories if c.isascii() and c.lower() == BOOLEAN_TEXTS[truth]]
        return spelt[0] if spelt else number_category(feature, float(truth))
    return named(0), named(1)


@dataclass(frozen=True)
class Tolerance:
    """How far another program's scores may be from the model's where its arithmetic cannot be the model's
    (a library's own predict, an engine's EXP): ``within``, relative above 1 and absolute below; labels
    are always exact."""

    within: float
    why: str  # the reason, as `verify` says it: "its softmax takes numpy's exp"

    def allows(self, got: float, want: float) -> bool:
        return abs(got - want) <= self.within * max(abs(want), 1.0)


def is_close(a: float, b: float, rel: float = 1e-12) -> bool:
    """Equal, or within ``rel`` relative: how far a target whose arithmetic differs may stray."""
    return a == b or math.isclose(a, b, rel_tol=rel, abs_tol=1e-300)


# pandas' missing values, by their types' names: pd.NA (a nullable column's) and pd.NaT, without importing pandas
PANDAS_MISSING = ("NAType", "NaTType")


def is_missing(value: Any) -> bool:
    """None, a NaN of any float type (numpy's float32 NaN too, as the generated code reads it), or
    pandas' NA or NaT."""
    if type(value) is float:  # the usual values, in one test each
        return value != value
    if type(value) is str:
        return False
    return (value is None or (isinstance(value, (float, np.floating)) and math.isnan(value))
            or type(value).__name__ in PANDAS_MISSING)


class NotANumber(TreegenError, ValueError):
    """Text given for a numeric feature that is not in the :data:`NUMBER` grammar: a ValueError too, as
    float()'s own and the generated Python module's are."""


TEXT = (str, bytes, bytearray)  # what float() reads as text


class MisspeltName(TreegenError, ValueError):
    """A row that lacks a feature some split reads and has a key spelt almost as it (:func:`check_names`): a
    ValueError too, as the generated Python module's is."""


class NoFeatureNamed(TreegenError, ValueError):
    """A row that names none of the model's features and lacks every feature some split reads
    (:func:`check_names`): a ValueError too, as the generated Python module's is."""


class BeyondDoubles(TreegenError, OverflowError):
    """A number beyond the largest double (an int, a Fraction) given for a numeric feature: an OverflowError, as
    float()'s own and the generated Python module's are."""


class NoNumber(TreegenError, TypeError):
    """A value of a type float() does not read (a date, a complex number) given for a numeric feature: a
    TypeError, as float()'s own and the generated Python module's are."""


class NotOneValue(TreegenError, TypeError):
    """Many values given where a row has one (:func:`is_many`), or a table or an array given as a row:
    a TypeError, as the generated Python module's."""


FOR_A_TABLE = "for a table: treegen.predict(model, X), treegen.predict_proba(model, X)"


def is_many(value: Any) -> bool:
    """Many values rather than one: an array of one dimension or more (numpy's, a pandas Series or
    DataFrame), or any other iterable but text (a list, tuple, dict, set). Numbers, numpy's scalars (and
    0-d arrays), text, None and pandas' NA are one value. The generated Python's ``_many`` is this."""
    ndim = getattr(value, "ndim", None)
    if ndim is not None:
        return ndim != 0
    return hasattr(type(value), "__iter__") and not isinstance(value, TEXT)


def many_values(name: str, value: Any) -> str:
    """The message refusing many values given for feature ``name``: a column or a table passed as a row."""
    return (f"feature {name!r}: many values ({_type_name(value)}), not one: predict takes one row, a mapping "
            f"of feature name to value; {FOR_A_TABLE}")


def _type_name(value: Any) -> str:
    """'pandas.Series', 'numpy.ndarray', 'list': the type named with its package, but for builtins."""
    kind = type(value)
    package = kind.__module__.split(".")[0]
    return kind.__qualname__ if package == "builtins" else f"{package}.{kind.__qualname__}"


def is_not_a_number(value: Any) -> bool:
    """Text (of any kind float() reads) that is not a str in the :data:`NUMBER` grammar."""
    return isinstance(value, TEXT) and not (isinstance(value, str) and NUMBER.fullmatch(value))


def number_of(feature: Feature, value: Any) -> float:
    """A present value of a numeric feature as every reader takes it: ``float(value)``, but text only
    in the :data:`NUMBER` grammar, as the CSV readers read it -- float() alone takes ' 1', '1_000' and
    other scripts' digits, Java's parseDouble '1d': the same text would predict differently by target.
    Many values (:func:`is_many`) are refused: float() would read a pandas Series of one value as that value."""
    if not isinstance(value, (int, float)):  # neither text nor many values (an int's failed look-up of ndim is slow)
        if is_not_a_number(value):
            raise NotANumber(f"feature {feature.name!r}: {value!r} is not a number")
        if is_many(value):
            raise NotOneValue(many_values(feature.name, value))
    try:
        return float(value)
    except TypeError:  # a date, a complex number
        raise NoNumber(f"feature {feature.name!r}: {_a(_type_name(value))} is not a number") from None
    # TreegenErrors, which check_numbers lets a feature no split reads hold, as the generated APIs do not read it
    except ValueError:  # Decimal('sNaN')
        raise NotANumber(f"feature {feature.name!r}: {value!r} is not a number") from None
    except OverflowError:  # an int or Fraction beyond the largest double, which float() refuses
        raise BeyondDoubles(f"feature {feature.name!r}: {_a(_type_name(value))} beyond the largest double") from None


_ABSENT = object()  # what a row gives for a feature it has no key for


def check_numbers(model: Model, row: Mapping[str, Any]) -> None:
    """Refuse a value that a feature some split reads cannot take, wherever the row's walk goes, as
    ``treegen.predict`` refuses it and the generated APIs, which read every such feature of a row before they
    walk: for a numeric feature, what :func:`number_of` refuses (text that is no number, a date, a complex
    number, many values); for a nominal one, many values. A row that is no mapping, or is a table (a pandas
    DataFrame), is refused: rows of a table are predicted by ``treegen.predict``. So is a row that lacks a
    feature and has a key spelt almost like it, and one that names no feature at all (:func:`check_names`)."""
    if not hasattr(row, "get") or getattr(row, "ndim", 1) != 1:
        raise NotOneValue(f"a row is a mapping of feature name to value, not {_a(_type_name(row))}; {FOR_A_TABLE}")
    absent = []
    for index, feature in enumerate(model.features):
        value = row.get(feature.name, _ABSENT)
        if value is _ABSENT:
            absent.append(index)
        elif not _read_as_given(feature, value) and not is_missing(value):
            try:
                _check_value(feature, value)
            except TreegenError:  # (the features splits read are looked up for a refused value alone: a forest's cost)
                if index in model.used_features():
                    raise
    if absent and len(row) > len(model.features) - len(absent) or len(absent) == len(model.features):
        used = model.used_features()  # (a key that names no feature, or none that names one)
        check_names(model, row, [model.features[i].name for i in absent if i in used])


def _read_as_given(feature: Feature, value: Any) -> bool:
    """A value that a feature of its kind takes, known at a glance (the cheap path of :func:`check_numbers`):
    for a numeric feature a number (Python's, numpy's; an int within the doubles) or text in the number grammar;
    for a nominal one text."""
    if not feature.is_numeric:
        return isinstance(value, str)
    if isinstance(value, int):  # (an int beyond the doubles is refused off the row's path too, as the APIs do)
        return -INT_LIMIT < value < INT_LIMIT
    return isinstance(value, PLAIN_NUMBERS) or type(value) is str and NUMBER.fullmatch(value) is not None


PLAIN_NUMBERS = (int, float, np.integer, np.floating)  # what float() reads without fail (an int within INT_LIMIT)
INT_LIMIT = 2 ** 1024 - 2 ** 970  # the least int whose float() overflows: it would round to 2^1024


def _check_value(feature: Feature, value: Any) -> None:
    """Refuse a present value that ``feature`` cannot take, as ``treegen.predict`` reads it."""
    if feature.is_numeric:
        number_of(feature, value)
    elif is_many(value):
        raise NotOneValue(many_values(feature.name, value))


def check_names(model: Model, row: Mapping[str, Any], absent: list[str]) -> None:
    """Refuse a row that lacks the features ``absent`` and has a key that names no feature but is spelt almost
    as one of them ('humidty' for 'humidity', 'Wind' for 'wind'): a feature a row lacks is read as missing,
    and the misspelt one would take the missing route without a word. Refuse too a row that lacks every
    feature some split reads and names no feature at all ({}, or a table's column names where the model's
    are 'x0', 'x1'): it would be answered as a row of missing values. The generated row APIs check the same
    where a feature a split reads is absent (a model without splits answers any row alike)."""
    features = [f.name for f in model.features]
    names = set(features)
    keys = list(row.keys())  # (iterating a pandas Series gives its values)
    for key in keys:
        if not isinstance(key, str) or key in names:
            continue
        for name in absent:
            if spelt_almost(key, name):
                raise MisspeltName(f"the row has {key!r}, which is no feature's name, and lacks {name!r}: did you "
                                   f"mean {name!r}? (a feature a row lacks is read as missing: give it as None to "
                                   "mean so)")
    if absent and len(absent) == len(model.used_features()) and not any(key in names for key in keys):
        raise NoFeatureNamed(no_feature_named(keys, features))


def check_keys(model: Model, rows: Iterable[Mapping[str, Any]]) -> None:
    """Refuse, as :func:`check_numbers` does, a row whose keys :func:`check_names` refuses, with the row's
    index in X: rows of a table given as dicts, read by name (``treegen.predict(model, [row, ...])``)."""
    names = {f.name for f in model.features}
    used = [model.features[i].name for i in model.used_features()]
    for number, row in enumerate(rows):
        if row and row.keys() <= names:  # (a key for a feature at least, and none for no feature)
            continue
        try:
            check_names(model, row, [name for name in used if name not in row])
        except (MisspeltName, NoFeatureNamed) as refused:
            raise type(refused)(f"X[{number}]: {refused}") from None


def no_feature_named(keys: Iterable, names: list[str], few: int = 3) -> str:
    """The message refusing a row of these keys, none of them the name of one of the features ``names``: a few
    of each, the keys by their text in sorted order (every target's maps order keys their own way)."""
    def listed(texts: list[str]) -> str:
        return ", ".join([repr(text) for text in texts[:few]] + ["..."] * (len(texts) > few))
    keys = sorted(str(key) for key in keys)
    return (f"the row names none of the model's features ({listed(names)}); "
            + (f"its keys: {listed(keys)}" if keys else "it has no keys")
            + " (a feature a row lacks is read as missing: give each as None to mean so)")


def spelt_almost(key: str, name: str) -> bool:
    """The same name but for case, or for one character added, dropped or changed or two neighbours swapped in a
    name of three or more. The generated programs' row APIs apply this same rule (each in its runtime), so it is
    written for them: no difflib, a rule short enough to say and to write in each language."""
    a, b = sorted((key.lower(), name.lower()), key=len)
    if a == b:
        return True
    if len(name) < 3 or len(b) - len(a) > 1:
        return False
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1:]
    return a[i + 1:] == b[i + 1:] or (a[i:i + 1] == b[i + 1:i + 2] and a[i + 1:i + 2] == b[i:i + 1]
                                      and a[i + 2:] == b[i + 2:])


def has_tuples(model: Model) -> bool:
    """Some split of the model is a ``tuple`` split (a tree held as :class:`NodeColumns` has none)."""
    return any(node.split is not None and node.split.op is Op.TUPLE for tree in trees_of_nodes(model)
               for node in tree.nodes)


def read_nominal_features(model: Model) -> list[int]:
    """The nominal features some split reads, ascending (a linear leaf reads numeric ones only): where a row encoded
    as numbers must hold a code of each one's categories (-1 missing, -2 unknown, 0 up), as a split tests codes."""
    return [i for i in model.used_features() if not model.features[i].is_numeric]


def read_features(split: Split) -> tuple[int, ...]:
    """The features a split reads: its feature, or a ``tuple`` split's features and its parts'."""
    if split.op is not Op.TUPLE:
        return (split.feature,)
    return split.features + tuple(part.feature for part in split.parts)


def tuple_key(model: Model, split: Split, row: Mapping[str, Any]) -> tuple[str | int | None, ...]:
    """The key an :data:`Op.TUPLE` split looks up for ``row``: the category of each feature it combines (None where
    the value is missing; an unknown one's text, which no tuple holds), then each part's child position (its
    missing route's child for a missing value). The row goes to children[0] when the key is one of ``tuples``, else
    to children[1] (CatBoost's CTR of categories combined with float splits: ``importers/catboost.py``)."""
    key: list[Any] = []
    for flat in split.features:
        feature = model.features[flat]
        value = row.get(feature.name)
        if is_missing(value):
            key.append(None)
        else:
            name = category_of(feature, value, model.numeric.cast)
            key.append(_UNKNOWN_TEXT if name is None else name)
    for part in split.parts:
        position = child_for(model, part, row.get(model.features[part.feature].name))
        key.append(part.missing.child if position is None else position)
    return tuple(key)


def sorted_tuples(split: Split) -> list[tuple[str | int | None, ...]]:
    """A ``tuple`` split's tuples in one order (null first, then texts, each place in turn): what is written.
    Compared as they are, texts with texts and positions (0, 1) with positions, they sort so, and some twenty
    times faster, unless a null meets a text in one place: then Python refuses the comparison."""
    try:
        return sorted(split.tuples)
    except TypeError:
        return sorted(split.tuples, key=lambda key: [(0, "") if v is None else (1, v) if type(v) is str
                                                     else (2, str(v)) for v in key])


_UNKNOWN_TEXT = object()  # a key's place for a category its feature does not know: in no split's tuples


def child_for(model: Model, split: Split, value: Any) -> int | None:
    """Position of the child that ``value`` goes to, or None when the missing route applies."""
    feature = model.features[split.feature]
    if split.op is Op.LE:  # a numeric feature (split_problem)
        x = (value if type(value) is float else math.nan if is_missing(value)
             else number_of(feature, value))  # text too: "nan" is missing, as in CSV
        if x != x or in_missing_interval(feature, x):  # NaN
            return None
        return 0 if model.numeric.goes_left(x, split.threshold) else 1
    if is_missing(value):
        return None
    name = category_of(feature, value, model.numeric.cast)
    if name is None:
        return split.unknown
    if split.op == Op.EQ:
        return split.values.index(name) if name in split.values else split.unknown
    return 0 if name in split.values else 1


def in_missing_interval(feature: Feature, value: Any) -> bool:
    """A number that the feature's source reads as missing (XGBoost's ``missing``, LightGBM's zero
    band for a feature whose zeros are missing)."""
    low_high = feature.missing_interval
    return low_high is not None and low_high[0] <= number_of(feature, value) <= low_high[1]


def split_problem(features: Sequence[Feature], split: Split) -> tuple[str, str] | None:
    """Why ``split`` cannot be in a model over ``features``: (the split's field at fault, message),
    or None when it can. This is the shape every back end relies on: an ``==`` split has one child per
    category of its feature, so that a known category is never missing there."""
    if split.op == Op.TUPLE:
        return tuple_problem(features, split)
    feature = features[split.feature]
    if (split.op == Op.LE) != feature.is_numeric:
        return "op", f"{split.op!r} does not fit the {feature.kind} feature {feature.name!r}"
    if split.op == Op.LE:
        if split.unknown is not None:
            return "unknown", "only a split on categories has a child for unknown categories"
        return None
    known = feature.known
    if split.op == Op.EQ and (set(split.values) != known or len(split.values) != len(known)):
        return "values", "an '==' split needs one child for each category of its feature"
    if split.op == Op.IN and not set(split.values) <= known:
        return "values", "an 'in' split may only name categories of its feature"
    if split.unknown is not None and (split.op != Op.IN or split.missing.kind != Route.CHILD):
        return "unknown", "only an 'in' split whose missing values go to a child has a child for unknown categories"
    return None


def tuple_problem(features: Sequence[Feature], split: Split) -> tuple[str, str] | None:
    """Why an :data:`Op.TUPLE` split cannot be (see :func:`split_problem`): it combines nominal features, the
    first its ``feature``; its parts are binary splits on other features sending missing values to a child; each
    tuple holds a category of each feature combined (or None: missing), then a child position (0, 1) per part."""
    if not split.features or split.features[0] != split.feature:
        return "features", "a 'tuple' split names the features it combines, its feature first"
    if any(not 0 <= flat < len(features) or features[flat].is_numeric for flat in split.features):
        return "features", "a 'tuple' split combines nominal features"
    for part in split.parts:
        if part.op not in (Op.LE, Op.IN) or split_problem(features, part) or part.missing.kind != Route.CHILD:
            return "parts", "a part of a 'tuple' split is an '<=' or 'in' split sending missing values to a child"
    if not _keys_fit(features, split.features, len(split.parts), split.tuples):
        return "tuples", (f"each tuple of this 'tuple' split holds a category (or null) of each of its "
                          f"{len(split.features)} features, then 0 or 1 for each of its {len(split.parts)} parts")
    if split.unknown is not None or split.values or not math.isnan(split.threshold):
        return "op", "a 'tuple' split has no values, threshold or unknown child: its tuples say it all"
    return None


def _keys_fit(features: Sequence[Feature], combined: tuple[int, ...], parts: int, tuples: frozenset) -> bool:
    """Each key names a category (or None) of each feature combined, then 0 or 1 for each part. Checked once for
    the splits that share a set of keys (a CatBoost model's 4,520 tuple splits hold 536 sets of 174,815 keys):
    remembered by the objects' ids, beside the objects themselves, which it keeps alive."""
    id_key = (id(features), combined, parts, id(tuples))
    kept = _FITTING_KEYS.get(id_key)
    if kept is not None and kept[0] is features and kept[1] is tuples:
        return True
    known = [set(features[flat].categories) | {None} for flat in combined]
    if set(map(len, tuples)) - {len(known) + parts}:
        return False
    places = list(zip(*tuples)) or [()] * (len(known) + parts)  # (place by place, in set operations: 3x faster)
    if any(not names.issuperset(place) for names, place in zip(known, places)):
        return False
    if any(not {0, 1}.issuperset(place) or set(map(type, place)) - {int} for place in places[len(known):]):
        return False
    if len(_FITTING_KEYS) > 10_000:
        _FITTING_KEYS.clear()
    _FITTING_KEYS[id_key] = (features, tuples)
    return True


_FITTING_KEYS: dict[tuple, tuple] = {}  # (ids of the features and the keys, ...) -> those objects: keys that fit


def link_width(link: Link, n_raw: int) -> int:
    """How many scores :func:`apply_link` makes of ``n_raw`` raw sums: one sigmoid (or step) sum is a binary
    classifier's, two scores; every other link gives a score per sum."""
    return 2 if link in (Link.SIGMOID, Link.STEP) and n_raw == 1 else n_raw


def init_problem(target: Target, combine: Combine) -> str | None:
    """Why ``combine.init`` does not fit: a boosted sum has one raw sum per ``init`` number, and its
    link must make one score per class (or the one value of a regression) of them; ``single`` and
    ``average`` add nothing to the trees' outputs, so an init there would be silently ignored."""
    n = len(combine.init)
    if combine.kind != CombineKind.SUM:
        return f"only a 'sum' starts from init, {_a(repr(combine.kind))} takes [], found {_numbers(n)}" if n else None
    valid = [k for k in range(1, target.width + 1) if link_width(combine.link, k) == target.width]
    if n in valid:
        return None
    over = f"{target.width} classes" if target.is_classification else "a regression"
    if not valid:
        return f"{_a(combine.link)} cannot give the scores of {over}"
    needs = " or ".join(map(str, valid)) + (" number" if valid == [1] else " numbers")
    return f"{_a(combine.link)} over {over} needs {needs}, found {n}"


def output_problem(combine: Combine, output: int | None) -> str | None:
    """Why a tree cannot add to ``output``: only a boosted sum adds a tree to one of its raw sums (one
    per ``init`` number); null adds it to all of them, and is all that ``single`` and ``average`` read."""
    if output is None:
        return None
    if combine.kind != CombineKind.SUM:
        return f"{_a(repr(combine.kind))} combine reads every output of a tree: expected null, found {output}"
    if not 0 <= output < len(combine.init):
        return f"expected null or a raw sum from 0 to {len(combine.init) - 1} (one per combine.init), found {output}"
    return None


def _a(word: str) -> str:
    return f"an {word}" if word.strip("'")[:1] in "aeiou" else f"a {word}"


def _numbers(n: int) -> str:
    return "1 number" if n == 1 else f"{n} numbers"


def linear_problem(model: Model, tree: Tree, node: Node) -> tuple[str, str] | None:
    """Why ``node``'s linear model cannot be in ``tree`` of ``model``: (the field at fault, message), or
    None. A linear model sits on a leaf of one number, reads numeric features, in a tree whose missing
    values go to a child and a model whose sums are in double: what LightGBM's linear trees are, and
    what lets every back end compute it where it looks up a leaf's value, from the row as the splits
    read it (LightGBM refuses ``zero_as_missing`` with linear trees, ``src/io/config.cpp`` v4.6.0, and
    only that gives a feature the Zero missing type, ``src/io/bin.cpp`` ``BinMapper::FindBin``: a
    linear term's feature has no missing interval)."""
    if node.linear is None:
        return None
    if not node.is_leaf or len(node.value) != 1:
        return "linear", "only a leaf with one value (a regression value or one raw score) may be linear"
    for feature, _ in node.linear.terms:
        if not 0 <= feature < len(model.features) or not model.features[feature].is_numeric:
            return "linear", f"a linear term must name a numeric feature, not {feature}"
        if model.features[feature].missing_interval is not None:  # LightGBM: zero_as_missing is refused
            return "linear", f"a linear term cannot read {model.features[feature].name!r}, which has a missing interval"
    if model.combine.precision != Precision.FLOAT64:
        return "linear", "linear leaves compute in double: the model's precision must be float64"
    if any(n.split is not None and n.split.missing.kind != Route.CHILD for n in tree.nodes):
        return "linear", "a tree with linear leaves must send missing values to a child at every split"
    return None


def model_problem(model: Model) -> str | None:
    """Where and why a model built in memory breaks :func:`init_problem`, :func:`output_problem`,
    :func:`split_problem`, :func:`linear_problem` or :func:`label_value_problem`, or None."""
    numeric, le = [f.is_numeric for f in model.features], Op.LE  # (an enum member read once)
    problem = init_problem(model.target, model.combine)
    if problem:
        return f"combine.init: {problem}"
    for t, tree in enumerate(model.trees):
        problem = output_problem(model.combine, tree.output)
        if problem:
            return f"tree {t}: {problem}"
        for n, node in enumerate(tree.nodes):
            split = node.split  # the usual numeric split passes split_problem: checked here at once
            usual = split is None or (split.op is le and split.unknown is None and numeric[split.feature])
            problem = ((not usual and split_problem(model.features, split))
                       or (node.linear is not None and linear_problem(model, tree, node)))
            if problem:
                return f"tree {t}, node {n}: {problem[1]}"
    place = unpassable_threshold(model)
    if place:
        return f"tree {place[0]}, node {place[1]}: {UNPASSABLE}"
    return label_value_problem(model)


UNPASSABLE = ("a split at -inf with 'x < t' (strict), which no number is below: no cut in a target says that, and no "
              "library writes it (a damaged file?)")


def unpassable_threshold(model: Model) -> tuple[int, int] | None:
    """(tree, node) of a ``<=`` split whose threshold no number goes left at under the model's semantics (XGBoost's
    strict ``x < -inf``), or None. No cut says that: :meth:`NumericSemantics.effective_threshold` lets -inf (in
    float32, every double below -FLT_MAX) pass, as ``x <= -inf`` would, where :meth:`~NumericSemantics.goes_left` (and
    XGBoost, given ``missing=inf``) sends it right."""
    if not model.numeric.strict:  # (NaN thresholds: refused where read and emitted)
        return None
    for t, tree in enumerate(model.trees):
        nodes = tree.nodes
        if isinstance(nodes, NodeColumns):
            bad = np.flatnonzero((nodes.feature >= 0) & (nodes.threshold == -math.inf))
            found = next((int(i) for i in bad if int(i) not in nodes.values), None)
        else:
            found = next((n for n, node in enumerate(nodes) if node.split is not None and node.split.op is Op.LE
                          and node.split.threshold == -math.inf), None)
        if found is not None:
            return t, found
    return None


def linear_input(model: Model, feature: Feature, value: Any) -> float | None:
    """A linear term's input as LightGBM reads it: None when missing (None or NaN: LightGBM tests
    ``std::isnan`` on the raw value, whatever the split's missing type), else the number,
    with ``|x| <= zero_band`` read as 0.0 (its C API drops those values from a row, which then read as
    0.0: ``src/c_api.cpp`` ``RowPairFunctionFromDenseMatrix``, v4.6.0). No cast applies: a value in
    LightGBM's zero band is a number here, 0.0 (the feature has no missing interval: :func:`linear_problem`)."""
    x = math.nan if is_missing(value) else number_of(feature, value)
    if math.isnan(x):  # "nan" too
        return None
    band = model.numeric.zero_band
    return 0.0 if band and -band <= x <= band else x


def leaf_value(model: Model, node: Node, row: Mapping[str, Any]) -> tuple[float, ...]:
    """The value of a node where evaluation ends: ``node.value``, or for a linear leaf ``const``, then
    ``+ coeff * x`` for each term in order, in double -- ``node.value`` when one of its inputs is
    missing (``Tree::Predict`` in ``include/LightGBM/tree.h``, v4.6.0; :func:`linear_input`)."""
    linear = node.linear
    if linear is None:
        return node.value
    out = linear.const
    for feature, coeff in linear.terms:
        x = linear_input(model, model.features[feature], row.get(model.features[feature].name))
        if x is None:
            return node.value
        out = out + coeff * x
    return (out,)


def tree_output(model: Model, tree: Tree, row: Mapping[str, Any], labels: bool = False) -> list[float]:
    """One tree's output for one row (see :func:`nested_sum`); with ``labels``, its label sums
    (``weight * deciding_value``)."""
    return nested_sum(tree, walk(model, tree, row), node_value(model, row, labels))


def node_value(model: Model, row: Mapping[str, Any], labels: bool = False) -> Callable[[Node], tuple[float, ...]]:
    """What a node where evaluation ended adds for ``row``: its label value (``labels``), or its value,
    a linear leaf's computed from the row (:func:`leaf_value`)."""
    if labels:
        return lambda node: node.label_value or leaf_value(model, node, row)
    return lambda node: leaf_value(model, node, row)


def by_id(tree: Tree) -> Sequence[Node]:
    """The tree's nodes for reading by id row after row: its list, or the list a :class:`NodeColumns`
    tree makes once and keeps (a node made at each read tripled a 1,000-tree model's time a row)."""
    nodes = tree.nodes
    if type(nodes) is list:  # most trees (NodeColumns is an abstract Sequence's: its isinstance costs more)
        return nodes
    return nodes.kept() if isinstance(nodes, NodeColumns) else nodes


def walk(model: Model, tree: Tree, row: Mapping[str, Any]) -> Iterator[tuple[int, float, int]]:
    """One row's walk of one tree, depth first, children in order, iteratively: (node id, weight,
    spread) for each node where the walk ends (a leaf, or a split whose missing route stops; spread
    0) and for each split whose fractional route sends the row down all its children (spread: how
    many). A weight multiplies the fractional weights taken along the path, root first (J48's
    ``weights[i] * weight``)."""
    features, nodes, pair = model.features, by_id(tree), Op.TUPLE
    stack = [(0, 1.0)]  # the children a fractional route spread the row to, yet to walk
    while stack:
        node_id, weight = stack.pop()
        while True:  # down one path, to where it ends or spreads
            node = nodes[node_id]
            split = node.split
            if split is None:  # a leaf
                yield node_id, weight, 0
                break
            position = (child_for(model, split, row.get(features[split.feature].name)) if split.op is not pair
                        else 0 if tuple_key(model, split, row) in split.tuples else 1)
            if position is None and split.missing.kind == Route.CHILD:
                position = split.missing.child
            if position is not None:
                node_id = node.children[position]
                continue
            if split.missing.kind == Route.FRACTION:
                yield node_id, weight, len(node.children)
                stack.extend((child, weight * w)
                             for child, w in reversed(list(zip(node.children, split.missing.weights))))
            else:
                yield node_id, weight, 0
            break


def nested_sum(tree: Tree, steps: Iterable[tuple[int, float, int]],
               value: Callable[[Node], tuple[float, ...]]) -> list[float]:
    """A tree's output from its :func:`walk`: a node where the walk ends gives ``weight *
    value(node)``; a split that spreads the row gives its children's outputs added left to right
    from 0.0, as J48's ``getProbs`` recurses. A child the row does not reach would add an exact 0.0,
    so the nesting is the tree's own, whichever nodes a row reaches: flat back ends nest their sums
    as the tree does. The result is not added to 0.0: a leaf of -0.0 gives -0.0, as the libraries' trees do."""
    nodes = by_id(tree)
    width = len(nodes[0].value)
    open_sums: list[list] = []  # per spreading split not yet summed: [its sum so far, children left]
    done = [0.0] * width
    for node_id, weight, spread in steps:
        if spread:
            open_sums.append([[0.0] * width, spread])
            continue
        done = [weight * v for v in value(nodes[node_id])]
        while open_sums:  # a finished child goes into its parent's sum, which may finish in turn
            parent = open_sums[-1]
            parent[0] = [s + d for s, d in zip(parent[0], done)]
            parent[1] -= 1
            if parent[1]:
                break
            done = open_sums.pop()[0]
    return done


def has_label_values(model: Model) -> bool:
    """Some node of the model has a label value: its label is decided on label sums."""
    return any(node.label_value for tree in trees_of_nodes(model) for node in tree.nodes)


def trees_of_nodes(model: Model) -> Iterator[Tree]:
    """The trees whose nodes are Node objects: what holds label values and linear leaves (a tree held
    as :class:`NodeColumns` has neither, and reading its nodes would make every one)."""
    return (tree for tree in model.trees if not isinstance(tree.nodes, NodeColumns))


def label_value_problem(model: Model) -> str | None:
    """Why the model's label values (:attr:`Node.label_value`) cannot be, or None: they belong to a
    classifier whose trees are single or averaged, one number per class."""
    if not has_label_values(model):
        return None
    if not model.target.is_classification:
        return "label values belong to classifiers"
    if model.combine.kind == CombineKind.SUM:
        return "label values belong to single or averaged trees, not to boosted sums"
    width = model.target.width
    for t, tree in enumerate(model.trees):
        for n, node in enumerate(tree.nodes):
            if node.label_value and len(node.label_value) != width:
                return f"tree {t}, node {n}: a label value needs {width} numbers, found {len(node.label_value)}"
    return None


def reached(model: Model, tree: Tree, row: Mapping[str, Any]) -> list[tuple[int, float]]:
    """The (node id, weight) pairs where one row's walk of one tree ended (see :func:`walk`), in node
    order: a leaf, or a split whose missing route stops."""
    return sorted(((node_id, weight) for node_id, weight, spread in walk(model, tree, row) if not spread),
                  key=lambda end: end[0])


def leaf_ids(model: Model, row: Mapping[str, Any]) -> str:
    """The leaf column of the program protocol: per tree, the ids of the nodes where the row's
    evaluation ended with a weight above zero, in node order, joined by ``|``; trees joined by ``;``."""
    check_numbers(model, row)
    return ";".join("|".join(str(node_id) for node_id, weight in reached(model, tree, row) if weight > 0)
                    for tree in model.trees)
