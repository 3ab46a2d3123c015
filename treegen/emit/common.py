"""What the Python and Java back ends share: the plan of a tree as small functions of flat statements.

A tree becomes nested ``if`` code, evaluated in O(depth) per row (flat rules would cost O(leaves)).
Each branch ends in ``return``, so a split needs no ``else``: the larger child follows the ``if``
at the same indentation and only the smaller one is indented. Indentation therefore grows with
log2(size), not with depth, and a path 10,000 splits deep stays flat.

Functions are cut by a per-language cost model (an estimate of the code size of each node) so
that none exceeds a budget, and by nesting depth. Everything here is iterative: no recursion over
trees.

The statements of a function are ``(depth, kind, payload)`` triples:

* ``("if", Cond)``: the statements that follow at ``depth + 1`` run when the condition holds;
* ``("leaf", node id)``: evaluation ends at this node (a leaf, or a split that stops on missing);
* ``("call", node id)``: continue in the function that starts at that node;
* ``("fraction", ((node id, weight), ...))``: C4.5's fractional route, every child
  weighted.

A model with label values (:attr:`treegen.model.Node.label_value`) decides its label on other sums
than its scores: its plans carry each node's value followed by its deciding value (``width`` twice
the classes), so that one walk and one weighted sum give both, each number summed exactly as the
model sums it; a back end reports the first half (:func:`scores_part`) and decides on the second
(:func:`label_part`).

Trees with a fractional route are *non-exclusive*: a row may reach several nodes, and their output
is J48's arithmetic (:func:`treegen.model.tree_output`). Their functions carry the path's weight,
which a fractional branch multiplies by its fraction (``1.0`` at the root, root first), and record
the walk's steps in the order they come: a node reached with its weight, a fractional route with its
number of children. A function runs exactly one of its ``leaf``, ``call`` and ``fraction``
statements, and those still to run wait on a stack, last in first out, a fractional route's children
pushed last first: so the steps come depth first, children in order, as :func:`treegen.model.walk`
yields them, and a back end folds them as :func:`treegen.model.nested_sum` does. The other trees
return the id of the one node reached.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Callable, Sequence

import numpy as np

from ..arithmetic import bits_double, double_bits, f32
from ..errors import TreegenError
from ..model import CombineKind, Decision, Linear, Link, Model, Node, Op, Precision, Route, Tree, has_label_values

IF, LEAF, CALL, FRACTION = "if", "leaf", "call", "fraction"
LEVELS = "levels"  # a symmetric tree's whole walk: the number of its leaf, from each level's test
NODE = "node"  # on the stack of _emit_functions: a node still to be written
# Enum members read once: looking one up on its class costs more than the rest of a test of a split
_LE, _EQ, _TUPLE = Op.LE, Op.EQ, Op.TUPLE
_STOP, _CHILD, _FRACTIONAL = Route.STOP, Route.CHILD, Route.FRACTION


@dataclass(frozen=True)
class Cond:
    """A test on one encoded input ``x[feature]``.

    Numeric features hold a float (NaN when missing); nominal ones a category code (-1 when
    missing, -2 when unknown). ops: ``<=``/``>`` (threshold; NaN passes neither) and their negations
    ``not <=``/``not >`` (which NaN passes), ``in``/``not in`` (codes; ``not in`` includes missing
    and unknown), ``unknown`` (a code below 0: missing or unknown), ``in or missing`` (codes, or
    missing, but not unknown: for a split with a child of its own for unknown categories,
    :attr:`treegen.model.Split.unknown`)."""

    feature: int
    op: str
    threshold: float = 0.0
    codes: tuple[int, ...] = ()
    tuples: TupleTest | None = None  # ``tuple``/``not tuple``: the key of a ``tuple`` split is (not) one of these


@dataclass(frozen=True, eq=False)
class TupleTest:
    """A ``tuple`` split as back ends test it (:func:`treegen.model.tuple_key`): the nominal features combined,
    then the parts, each ``("<=", feature, cut, missing child)`` (a numeric split: the effective threshold) or
    ``("in", feature, categories of child 0, missing child, unknown child)``; the keys that pass, in the set's
    order: the back ends number them and sort the numbers (:func:`coded_tuples`), so none sorts the keys (1.8 s of
    each export of a CatBoost model of 2 million keys). Equal, and hashed, as itself: a hash of its keys took
    another 0.4 s (a split's test is made once, :meth:`_Conditions.of`)."""

    features: tuple[int, ...]
    parts: tuple[tuple, ...]
    keys: tuple[tuple, ...]


@dataclass(frozen=True)
class CostModel:
    """Estimated code size of each construct, and the limits a function must stay within."""

    condition: Callable[[Cond], int]
    leaf: int  # ends the walk of an exclusive tree
    call: int  # continues it in another function
    collect: int  # what a leaf or a call costs more in a non-exclusive tree
    fraction_call: int
    budget: int  # the estimated size a function may reach
    max_depth: int  # nesting levels of ``if`` inside one function


@dataclass
class Function:
    tree: int
    node: int  # the root of the subtree the function evaluates
    lines: list = field(default_factory=list)  # (depth, kind, payload)


@dataclass
class TreePlan:
    index: int
    exclusive: bool  # no fractional route: exactly one node is reached
    output: int | None
    width: int
    functions: list[Function]  # the tree's entry point first
    values: dict[int, tuple[float, ...]]  # node id -> value, for every node evaluation can end at
    linear: dict[int, Linear] = field(default_factory=dict)  # node id -> a linear leaf's model (exclusive trees)
    levels: tuple[int, ...] | None = None  # a symmetric tree's leaves by index (see _levels)


UNKNOWN_CODE = -2  # an encoded row's code of a category the model does not know


def check_literal_sizes(model: Model, size: Callable[[str], int], limit: int, refusal: str) -> None:
    """Refuse a name, category or label whose string literal would be longer than a target takes: ``size``
    counts a text as the target does (bytes of its encoding), ``refusal`` says why, after the text named."""
    texts = [("feature name", f.name, None) for f in model.features]
    texts += [("category", c, f.name) for f in model.features for c in f.categories]
    texts += [("class label", c, None) for c in model.target.classes]
    for what, text, of in texts:
        if len(text) > limit // 6 and size(text) > limit:  # (6: the most bytes a character takes in any)
            shown = repr(text) if len(text) <= 40 else repr(text[:20]) + "..."
            raise TreegenError(f"the {what} {shown}{'' if of is None else f' of {of!r}'} ({size(text):,} bytes) "
                               f"is longer than {refusal} ({limit:,} bytes)")


def named_features(model: Model) -> list[int]:
    """The nominal features some split reads: those whose values the APIs read as categories, a number or a
    Boolean too (:func:`treegen.model.category_of`)."""
    return [i for i in model.used_features() if not model.features[i].is_numeric]


def named_codes(model: Model) -> list[tuple[int, int, str] | None]:
    """Per feature, how the APIs of Java and JavaScript read a Boolean or a number given for a nominal
    feature some split reads (:func:`treegen.model.category_of`): the codes of the categories False and
    True name (:attr:`treegen.model.Feature.named_by_boolean`; ``UNKNOWN_CODE`` for none), and a mark per
    category, "1" for those numbers name (:attr:`treegen.model.Feature.named_by_number`), whose texts the
    runtime reads as numbers once, at load, by the CSV's grammar: one character a category, where a list of
    codes would cost Java's class initialiser bytecode (8 bytes) a category. None for other features."""
    out: list[tuple[int, int, str] | None] = [None] * len(model.features)
    for i in named_features(model):
        feature = model.features[i]
        code = {c: k for k, c in reversed(list(enumerate(feature.categories)))}  # the first, should one repeat
        no, yes = (UNKNOWN_CODE if name is None else code[name] for name in feature.named_by_boolean)
        numbered = {code[name] for name in feature.named_by_number.values()}
        out[i] = (no, yes, "".join("1" if k in numbered else "0" for k in range(len(feature.categories))))
    return out


def category_codes(model: Model) -> list[tuple[str, ...]]:
    """For each nominal feature, the categories in code order: its declared categories, then any
    value a split names that the feature does not declare (numeric features: empty)."""
    tables = [list(f.categories) if not f.is_numeric else [] for f in model.features]
    known = [set(t) for t in tables]
    for tree in model.trees:
        for node in tree.nodes:
            split = node.split
            if split is not None and split.op != _LE:
                for value in split.values:
                    if value not in known[split.feature]:
                        known[split.feature].add(value)
                        tables[split.feature].append(value)
    return [tuple(t) for t in tables]


def plan(model: Model, cost: CostModel, levelled: bool = False,
         looked_up: Callable[[tuple[int, ...]], bool] | None = None) -> list[TreePlan]:
    """The functions of every tree of the model; ``levelled``: a symmetric tree's is one ``LEVELS``
    line (see :func:`_levels`), for targets that compute its leaf's index without branches, and that
    do not report node ids (its walker returns the index); ``looked_up(codes)``: whether a target looks a
    set of category codes up as a one-feature ``tuple`` test's keys (:meth:`_Conditions.make`)."""
    vector = node_vector(model)  # once: whether the model has label values is a walk of all its nodes
    conditions = _Conditions(model, cost, looked_up)  # shared by the trees: an ensemble repeats its tests
    return [_plan_tree(index, tree, conditions, cost, vector, levelled) for index, tree in enumerate(model.trees)]


LOOKUP_CODES = 16  # a set of more category codes than this that no bit mask holds is looked up (sets_looked_up)


def sets_looked_up(mask_bits: int) -> Callable[[tuple[int, ...]], bool]:
    """:func:`plan`'s ``looked_up`` for a target that tests a set of codes below ``mask_bits`` with one bit mask,
    another with a comparison a code: the sets of more than ``LOOKUP_CODES`` codes that no mask holds."""
    return lambda codes: len(codes) > LOOKUP_CODES and max(codes) >= mask_bits


def _plan_tree(index, tree: Tree, conditions, cost: CostModel, vector, levelled: bool) -> TreePlan:
    order = tree.preorder()
    fractional, values, linear = False, {}, {}
    for i in order:  # one pass: a tree may have hundreds of thousands of nodes
        node = tree.nodes[i]
        route = node.split.missing.kind if node.split is not None else None
        fractional = fractional or route == _FRACTIONAL
        if node.split is None or route == _STOP:  # evaluation can end here
            values[i] = vector(node)
        if node.linear is not None:
            linear[i] = node.linear
    exclusive = not fractional
    width = len(vector(tree.nodes[0]))
    symmetric = _levels(tree, conditions) if levelled and exclusive and not linear else None
    if symmetric is not None:
        tests, leaves = symmetric
        return TreePlan(index, True, tree.output, width, [Function(index, 0, [(0, LEVELS, tests)])], values,
                        levels=leaves)
    if not exclusive:
        cost = replace(cost, leaf=cost.leaf + cost.collect, call=cost.call + cost.collect)
    parts, roots = _layout(tree, order, conditions, cost)
    functions = _emit_functions(index, tree, parts, roots, cost)
    return TreePlan(index, exclusive, tree.output, width, functions, values, linear)


def _levels(tree: Tree, conditions) -> tuple[tuple[tuple[Cond, int], ...], tuple[int, ...]] | None:
    """A symmetric tree's (:func:`symmetric_levels`) test of each level, root first, and the child (0 or 1) a row
    that passes it goes to; and the leaves by index: the index of the leaf a row reaches has the bit ``1 <<
    (depth - 1 - level)`` set where it goes to that level's second child. None for any other tree. The tests of
    nested ``if``s branch, half of them mispredicted; an index is computed without a branch: bench_boosting's
    500-tree CatBoost model takes 2.9 µs a row in Java so, 14.1 walked, and in C 2.3 µs against 10.4-10.9."""
    symmetric = symmetric_levels(tree)
    if symmetric is None:
        return None
    firsts, leaves = symmetric
    tests = []
    for n in firsts:
        first = tree.nodes[n]
        test, _, child = _parts(n, first, conditions.of(first.split, n), [0, 0], conditions)[0]
        tests.append((test, first.children.index(child)))
    return tuple(tests), leaves


def symmetric_levels(tree: Tree) -> tuple[list[int], tuple[int, ...]] | None:
    """A symmetric tree (CatBoost's oblivious trees): a complete binary tree whose every level tests one split,
    sending missing values to a child. The first node of each level, root first, and the leaves in order, so that
    a leaf's index has the bit ``1 << (depth - 1 - level)`` set where the row goes to that level's second child.
    None for any other tree (a leaf alone too): most fail at their second level."""
    nodes, level, firsts = tree.nodes, [0], []
    while nodes[level[0]].split is not None:
        first = nodes[level[0]]
        split = first.split
        if split.missing.kind != _CHILD or split.op == _EQ or len(first.children) != 2:
            return None
        if any(nodes[i].split != split for i in level):
            return None
        firsts.append(level[0])
        level = [child for i in level for child in nodes[i].children]
    if not firsts or any(nodes[i].split is not None for i in level):
        return None
    return firsts, tuple(level)


def node_vector(model: Model) -> Callable[[Node], tuple[float, ...]]:
    """What a back end sums for a node: its value, followed by its deciding value when the model has
    label values (the numbers its label sums add, see the module's docstring)."""
    if has_label_values(model):
        return lambda node: node.value + node.deciding_value
    return lambda node: node.value


def scores_part(model: Model) -> slice:
    """Where the scores are in the sums of :func:`node_vector`: all of them, or the first half."""
    return slice(0, model.target.width) if has_label_values(model) else slice(None)


def label_part(model: Model) -> slice:
    """Where the label sums are in the sums of :func:`node_vector`: the second half with label
    values, else the scores themselves."""
    width = model.target.width
    return slice(width, 2 * width) if has_label_values(model) else slice(None)


def _layout(tree: Tree, order: list[int], conditions, cost: CostModel):
    """Children before parents: each split's parts, and the nodes that start a function (the root,
    the children of fractional splits, and the largest subtrees wherever a function would exceed
    the budget)."""
    nodes, parts, roots = tree.nodes, {}, {0}
    size = {}  # a node's estimated size, as its parent counts it: a call once it starts a function

    def start_function(node_id):
        roots.add(node_id)
        size[node_id] = cost.call

    for node_id in reversed(order):
        node = nodes[node_id]
        split, children = node.split, node.children
        if split is None:
            size[node_id] = cost.leaf
            continue
        if split.missing.kind == _FRACTIONAL:
            for child in children:
                start_function(child)
        tests = conditions.of(split, node_id)
        sizes = list(map(size.__getitem__, children))
        laid_out = _parts(node_id, node, tests, sizes, conditions)
        total = _parts_cost(laid_out, cost, len(children), conditions) + sum(sizes)
        if total > cost.budget:  # the largest subtrees written inline become functions of their own
            inline = [c for c in children if c not in roots and not nodes[c].is_leaf]
            for child in sorted(inline, key=lambda c: (-size[c], c)):
                if total <= cost.budget:
                    break
                total -= size[child] - cost.call
                start_function(child)
            # laid out again with the sizes after cutting, which may change the child tested first
            laid_out = _parts(node_id, node, tests, list(map(size.__getitem__, children)), conditions)
        size[node_id] = total
        parts[node_id] = laid_out
    return parts, roots


def _parts_cost(parts, cost: CostModel, arity: int, conditions) -> int:
    total = 0
    for cond, kind, _ in parts:
        if cond is not None:
            total += conditions.cost[id(cond)]
        if kind == LEAF:
            total += cost.leaf
        elif kind == FRACTION:
            total += cost.fraction_call * arity
    return total


def _parts(node_id: int, node: Node, tests, sizes: list[int], conditions):
    """How one split is laid out, given its tests (:meth:`_Conditions.of`) and the estimated size of
    each child: ``(condition or None, kind, node id)`` in order, where kind is ``NODE`` (go on at a
    child), ``LEAF`` (stop at the split) or ``FRACTION`` (the split's fractional route); the last
    part has no condition."""
    split, children = node.split, node.children
    route = split.missing.kind
    if split.op == _EQ:
        default = split.missing.child if route == _CHILD else None
        branches = [(tests[i], NODE, children[i]) for i in range(len(children)) if i != default]
        return branches + [(None, NODE, children[default]) if route == _CHILD else (None, *_missing(route, node_id))]
    small = 0 if sizes[0] <= sizes[1] else 1
    if route == _CHILD:
        r = split.missing.child
        if split.unknown is not None and split.unknown != r:  # missing values one way, unknown the other
            return [(conditions.make(split.feature, "in or missing", codes=tests[r].codes), NODE, children[r]),
                    (None, NODE, children[split.unknown])]
        if small == 1 - r:
            return [(tests[1 - r], NODE, children[small]), (None, NODE, children[r])]
        return [(conditions.negated(tests[1 - r]), NODE, children[r]), (None, NODE, children[1 - r])]
    if split.op == _LE:
        # NaN fails both tests: what is left after the smaller child's test is missing when it fails
        # the larger child's test too. No test of its own, and a row on the smaller side takes one.
        return [(tests[small], NODE, children[small]),
                (conditions.negated(tests[1 - small]), *_missing(route, node_id)), (None, NODE, children[1 - small])]
    return [(tests[2], *_missing(route, node_id)), (tests[small], NODE, children[small]),
            (None, NODE, children[1 - small])]


def _missing(route: Route, node_id: int) -> tuple[str, int]:
    """Where a split's missing values go when they go to no child: they stop there, or every child."""
    return (LEAF, node_id) if route == _STOP else (FRACTION, node_id)


class _Conditions:
    """The conditions of a model's splits, each made once: a Cond takes microseconds to make, and a
    boosted ensemble tests the same feature at the same threshold in many of its trees."""

    NEGATED = {"<=": "not <=", ">": "not >", "in": "not in", "tuple": "not tuple"}
    SETS = ("in", "not in", "in or missing")  # the tests of a set of codes

    def __init__(self, model: Model, cost: CostModel, looked_up):
        self.model, self.cost_of, self.looked_up = model, cost.condition, looked_up  # (looked_up: see plan)
        self.tables = category_codes(model)  # each feature's categories in code order
        self.codes = [{c: i for i, c in enumerate(table)} for table in self.tables]  # and their codes
        self.made: dict[tuple, Cond] = {}  # (feature, op, threshold, codes) -> Cond
        # by the id of a Cond made here (each is kept, and a frozen dataclass hashes slowly):
        self.cost: dict[int, int] = {}  # its cost, as the cost model estimates it
        self.negations: dict[int, Cond] = {}  # its negation
        self.tests: dict[tuple, tuple] = {}  # (feature, threshold or categories) -> a split's tests

    def make(self, feature: int, op: str, threshold: float = 0.0, codes: tuple[int, ...] = (),
             tuples: TupleTest | None = None) -> Cond:
        key = (feature, op, threshold_key(threshold), codes, tuples)
        cond = self.made.get(key)
        if cond is None:
            if op in self.SETS and self.looked_up is not None and self.looked_up(codes):
                op, tuples = self._as_tuple(feature, op, codes)
            cond = self.made[key] = Cond(feature, op, threshold, codes, tuples)
            self.cost[id(cond)] = self.cost_of(cond)
        return cond

    def _as_tuple(self, feature: int, op: str, codes: tuple[int, ...]) -> tuple[str, TupleTest]:
        """A test of a set of codes as a ``tuple`` test of the one feature, whose key is its category (None:
        missing): a bit set looked up, where a chain of comparisons, one a code, grows with the set (a CatBoost
        model's 292 sets of up to 1,000 codes: javac's stack overflowed, gcc -O2 took 93-99 s and C 177-247 us a row,
        with look-ups 2.6-3.1 s and 3.2-3.3 us). The Cond keeps its codes, which an ``in or missing`` test is made
        from."""
        keys = [(self.tables[feature][c],) for c in codes] + [(None,)] * (op == "in or missing")
        return ("not tuple" if op == "not in" else "tuple"), TupleTest((feature,), (), tuple(keys))

    def negated(self, cond: Cond) -> Cond:
        negation = self.negations.get(id(cond))
        if negation is None:
            negation = self.make(cond.feature, self.NEGATED[cond.op], cond.threshold, cond.codes, cond.tuples)
            self.negations[id(cond)] = negation
        return negation

    def of(self, split, node_id: int) -> tuple:
        """A split's tests: an ``==`` split's test of each child, or (goes to child 0, goes to child
        1, is missing) for a ``<=`` or ``in`` split, whose missing test is None for ``<=``: NaN is
        what fails both of its tests."""
        f, op = split.feature, split.op
        key = ((f, threshold_key(split.threshold), op) if op == _LE else (f, split.values, op) if op != _TUPLE
               else (f, split, op))
        tests = self.tests.get(key)
        if tests is None:
            tests = self.tests[key] = self._tests(split, node_id)
        return tests

    def _tests(self, split, node_id: int) -> tuple:
        f, table = split.feature, self.codes[split.feature]
        if split.op == _TUPLE:
            test = self.make(f, "tuple", tuples=tuple_test(self.model, split))
            return test, self.negated(test), None
        if split.op == _EQ:
            return tuple(self.make(f, "in", codes=(table[v],)) for v in split.values)
        if split.op == _LE:
            if math.isnan(split.threshold):
                raise TreegenError(f"node {node_id}: a split on {self.model.features[f].name!r} has a NaN threshold")
            t = self.model.numeric.effective_threshold(split.threshold)
            return self.make(f, "<=", t), self.make(f, ">", t), None
        left = tuple(sorted({table[v] for v in split.values}))
        right = tuple(sorted({table[c] for c in self.model.features[f].categories} - set(left)))
        known = set(left) | set(right)
        missing = (self.make(f, "unknown") if known == set(table.values())
                   else self.make(f, "not in", codes=tuple(sorted(known))))
        return self.make(f, "in", codes=left), self.make(f, "in", codes=right), missing


def tuple_test(model: Model, split) -> TupleTest:
    """The :class:`TupleTest` of a ``tuple`` split of ``model``."""
    parts = tuple(("<=", part.feature, model.numeric.effective_threshold(part.threshold), part.missing.child)
                  if part.op == _LE else
                  ("in", part.feature, part.values, part.missing.child,
                   part.missing.child if part.unknown is None else part.unknown) for part in split.parts)
    return TupleTest(split.features, parts, tuple(split.tuples))


MAX_EXACT_KEY = 2 ** 53  # every integer up to it is a double: JavaScript's numbers, Java's and C's rows hold doubles


@dataclass(frozen=True)
class CodedTuples:
    """A ``tuple`` split's keys as numbers, for the back ends whose rows hold category codes (Java, JavaScript,
    C) and for Python's sets of integers: in mixed radix, most significant first, each feature's digit (0: a
    category it does not know, 1: missing, then 2 + its code, in radix 2 + its codes' count), then each part's
    child position (radix 2). For the first three every key is an integer below :data:`MAX_EXACT_KEY`, so a
    double computes and compares it exactly."""

    features: tuple[int, ...]
    radices: tuple[int, ...]  # of each feature, then 2 for each part
    parts: tuple[tuple, ...]  # ``("<=", feature, cut, missing child)`` or ``("in", feature, codes of child 0,
    #                           missing child, unknown child)``: a code >= 0 not listed goes to child 1
    keys: tuple[int, ...]  # ascending: the keys that go to children[0]


def category_digits(categories: Sequence[str]) -> dict[str, int]:
    """Each category's digit in a tuple split's key (:class:`CodedTuples`): 2 + its code, its place among the
    feature's categories in code order (:func:`category_codes`); 0 and 1 are an unknown category and a missing
    value."""
    return {category: 2 + code for code, category in enumerate(categories)}


def coded_tuples(test: TupleTest, codes: list[tuple[str, ...]], name: Callable[[int], str],
                 most: int | None = MAX_EXACT_KEY) -> CodedTuples:
    """The :class:`CodedTuples` of a tuple split's test, ``codes`` the categories in code order of each feature
    (:func:`category_codes`); a split whose keys could pass ``most`` is refused naming its features (``name``: a
    feature's name; None: no bound, for Python's integers)."""
    radices = tuple(len(codes[f]) + 2 for f in test.features) + (2,) * len(test.parts)
    if most is not None and math.prod(radices) > most:
        combined = ", ".join(repr(name(f)) for f in test.features)
        raise TreegenError(f"a split combining {combined} has {math.prod(radices):,} possible keys, more than a "
                           f"double counts exactly (2^53)")
    code_of = {part[1]: {c: k for k, c in enumerate(codes[part[1]])} for part in test.parts if part[0] == "in"}
    parts = tuple(part if part[0] == "<=" else
                  ("in", part[1], tuple(sorted(code_of[part[1]][c] for c in part[2])), *part[3:]) for part in test.parts)
    digit_of = [{None: 1, **category_digits(codes[f])}.__getitem__ for f in test.features]
    digit_of += [int] * len(test.parts)  # (a part's digit is its child position)
    # the keys place by place, in int64 where the biggest fits (a CatBoost model's 2 million keys: 1.9 -> 0.2 s)
    total = np.zeros(len(test.keys), dtype=object if math.prod(radices) >= 2 ** 63 else np.int64)
    for place, digit, radix in zip(zip(*test.keys), digit_of, radices):
        total = total * radix + np.fromiter(map(digit, place), dtype=np.int64, count=len(total))
    return CodedTuples(test.features, radices, parts, tuple(sorted(total.tolist())))


def tuple_cost(test: TupleTest, lookup: int, feature: int, le_part: int, in_part: Callable[[tuple, int, int], int]
               ) -> int:
    """A tuple split's test in a back end's units of cost: its lookup, each combined feature's digit, each ``<=``
    part, each ``in`` part's (``in_part(categories of child 0, missing child, unknown child)``)."""
    return lookup + feature * len(test.features) + sum(le_part if part[0] == "<=" else in_part(*part[2:])
                                                       for part in test.parts)


class KeyTables:
    """The coded keys of a model's tuple splits (:func:`coded_tuples`) for a back end that writes each distinct set
    once, a table ``K0``, ``K1``... that every split with those keys looks up (a default CatBoost model's 4,520
    tuple splits have 533 sets of 174,655 keys): a bit set of every key the split can meet, where that is at most
    ``bits_per_key`` bits a key and ``most_bits`` in all, else a list of its keys."""

    def __init__(self, model: Model, codes: list[tuple[str, ...]], bits_per_key: int, most_bits: int):
        self.model, self.codes, self.bits_per_key, self.most_bits = model, codes, bits_per_key, most_bits
        self.names: dict[tuple[tuple[int, ...], int], str] = {}  # (a set of keys, its bit set's size or 0) -> name
        self.made: dict[int, tuple] = {}  # id of a TupleTest -> (the test, kept alive; its CodedTuples)

    def coded(self, test: TupleTest) -> CodedTuples:
        made = self.made.get(id(test))
        if made is None:
            made = self.made[id(test)] = (test, coded_tuples(test, self.codes, lambda f: self.model.features[f].name))
        return made[1]

    def table(self, coded: CodedTuples) -> tuple[str, int]:
        """The name of the table of ``coded``'s keys, and the size of its bit set (0: a list of keys)."""
        space = math.prod(coded.radices)
        bits = space if space <= min(self.bits_per_key * len(coded.keys), self.most_bits) else 0
        return self.names.setdefault((coded.keys, bits), f"K{len(self.names)}"), bits


def key_differences(keys: tuple[int, ...]) -> list[int]:
    """Ascending keys as the first, then each one's difference from the one before: short to write, added up at
    load."""
    return [b - a for a, b in zip((0, *keys), keys)]


def bit_set_words(keys: tuple[int, ...], bits: int) -> list[int]:
    """A bit set of ``bits`` bits holding ``keys``, in 32-bit words: bit ``k & 31`` of word ``k >> 5``."""
    words = [0] * ((bits + 31) // 32)
    for key in keys:
        words[key >> 5] |= 1 << (key & 31)
    return words


def _emit_functions(index: int, tree: Tree, parts, roots: set, cost: CostModel) -> list[Function]:
    """Write each function's statements, top-down with an explicit stack of statements: a node is
    written where it is popped, a fractional route too (with its weights), the others as they are."""
    nodes, functions, max_depth = tree.nodes, [], cost.max_depth
    queue, seen = [0], {0}
    while queue:
        function = Function(index, queue.pop(0))
        lines, start = function.lines, function.node
        write, stack = lines.append, [(0, NODE, start)]
        push = stack.append
        while stack:
            statement = stack.pop()
            depth, kind, item = statement
            if kind != NODE:
                if kind == FRACTION:
                    split, children = nodes[item].split, nodes[item].children
                    write((depth, FRACTION, tuple(zip(children, split.missing.weights))))
                    _schedule(children, queue, seen)
                else:
                    write(statement)
            elif nodes[item].split is None:
                write((depth, LEAF, item))
            elif item != start and (item in roots or depth > max_depth):
                write((depth, CALL, item))
                _schedule([item], queue, seen)
            else:
                for cond, target_kind, target in reversed(parts[item]):
                    if cond is None:
                        push((depth, target_kind, target))
                    else:
                        push((depth + 1, target_kind, target))
                        push((depth, IF, cond))
        functions.append(function)
    return functions


def _schedule(node_ids, queue: list, seen: set) -> None:
    for node_id in node_ids:
        if node_id not in seen:
            seen.add(node_id)
            queue.append(node_id)


def float_text(value: float, nan: str, infinity: str) -> str:
    """A float as a target writes it: finite ones by ``repr`` (the shortest text that reads back
    bit-identical), NaN and infinity by the target's names (minus infinity with a minus sign)."""
    value = float(value)
    if math.isnan(value):
        return nan
    if math.isinf(value):
        return infinity if value > 0 else "-" + infinity
    return repr(value)


def numeric_test(cond: Cond, x: str, literal: Callable[[float], str], negate: str) -> str | None:
    """A test on a number written the way Python and Java share (``negate`` formats a negation,
    ``literal`` a threshold), or None for a test on categories."""
    if cond.op in ("<=", ">"):
        return f"{x} {cond.op} {literal(cond.threshold)}"
    if cond.op in ("not <=", "not >"):
        return negate.format(f"{x} {cond.op[4:]} {literal(cond.threshold)}")
    return None


def threshold_key(threshold: float):
    """A threshold as a key of what is written from it: 0.0 and -0.0 are equal, and written apart."""
    return threshold or str(threshold)


def leaf_table(plan: TreePlan) -> dict[int, tuple[float, ...]]:
    """The values a tree's output is made of: an exclusive tree's output is its leaf's value as it is
    (``1.0 * value``: -0.0 stays -0.0, as :func:`treegen.model.tree_output` gives it)."""
    return plan.values



def output_numbers(plan: TreePlan, node_ids: bool) -> tuple[dict[int, int], dict[int, tuple[float, ...]]]:
    """What a tree's walkers return at each node where evaluation can end, and the table of values
    that number indexes. The node id, with the values by node id -- always for a non-exclusive tree,
    whose nodes are summed in node order, and when ``node_ids`` are wanted (leaf ids). Otherwise the
    number of the node's value among the tree's distinct values, in the order they first appear, so
    that the table holds each value once: a 50,000-leaf scikit-learn tree has 1,262, a table that
    stays in the caches (measured at 50,000 leaves: Python's predict_proba over a list takes 0.76x the
    time a row of a node-indexed table)."""
    values = leaf_table(plan)
    if plan.levels is not None:  # a symmetric tree's walker returns its leaf's index (never a node id)
        return {leaf: i for i, leaf in enumerate(plan.levels)}, {i: values[leaf] for i, leaf in enumerate(plan.levels)}
    if node_ids or not plan.exclusive or plan.linear:  # a linear leaf is more than its value: its own number
        return {node: node for node in values}, values
    numbers: dict[int, int] = {}
    first: dict[tuple[str, ...], tuple[int, tuple[float, ...]]] = {}  # by the values' bits: -0.0 is not 0.0
    for node, value in sorted(values.items()):
        numbers[node] = first.setdefault(tuple(float(v).hex() for v in value), (len(first), value))[0]
    return numbers, dict(first.values())


def linear_sum(linear: Linear, x: Callable[[int], str], literal: Callable[[float], str]) -> str:
    """A linear leaf's sum as an expression of the languages that share C's arithmetic (Python, Java,
    JavaScript, C, SQL): ``const + c1 * x1 + c2 * x2 ...``, which they all evaluate left to right in
    double, each product rounded before it is added (no fused multiply-add: C's file turns contraction
    off). ``x(feature)`` writes a term's input as :func:`treegen.model.linear_input` reads it."""
    return " + ".join([f"{literal(linear.const)}"] + [f"{literal(c)} * {x(f)}" for f, c in linear.terms])


def linear_cases(tree_plan: TreePlan, x: Callable[[int], str], is_missing: Callable[[int], str],
                 literal: Callable[[float], str]) -> list[tuple[int, str | None, str]]:
    """Per linear leaf of a tree, for the languages that write it as one ``case`` of a switch on the node
    id its walkers return (C, Java): (node id, the test that one of its inputs is missing, or None,
    its output: the sum, -0.0 kept as :func:`treegen.model.leaf_value` keeps it). Where an input is missing, the leaf's
    plain value is its entry in the tree's table of values."""
    cases = []
    for node, linear in sorted(tree_plan.linear.items()):
        missing = " || ".join(is_missing(f) for f in sorted({f for f, _ in linear.terms}))
        cases.append((node, missing or None, linear_sum(linear, x, literal)))
    return cases


def missing_intervals(model: Model) -> list[tuple[int, float, float]]:
    """``(feature, low, high)`` for each feature a split tests whose numbers in ``[low, high]`` are missing
    (:attr:`treegen.model.Feature.missing_interval`): a back end applies them where it reads a row."""
    return [(i, *model.features[i].missing_interval) for i in model.used_features()
            if model.features[i].missing_interval is not None]


@dataclass(frozen=True)
class Sums:
    """A boosted model's raw sums step by step, as :meth:`treegen.model.Model.raw_sums` computes them:
    from ``start``, for each tree in order and each output column it adds to, its output times its
    weight (when not 1.0), times ``scale`` (when given), added; then ``last_scale * sum + init`` (with
    ``init_last``), then divided by ``divisor`` (when given). With ``float32`` every step is rounded to
    float32."""

    float32: bool
    start: tuple[float, ...]  # the sums before the first tree, rounded (zeros with init_last)
    weights: tuple[float, ...] | None  # per tree, when some tree's weight is not 1.0
    scale: float | None  # each term is multiplied by this, unless it is 1.0 or comes last
    last_scale: float | None  # init_last: the sums are scaled at the end, then the init added
    init: tuple[float, ...]
    divisor: float | None

    @property
    def plain(self) -> bool:
        """In double, unweighted, scaled term by term and never divided: scikit-learn's sums."""
        return not self.float32 and self.weights is None and self.last_scale is None and self.divisor is None


def sums(model: Model) -> Sums:
    """The steps of a boosted model's raw sums (see :class:`Sums`)."""
    combine = model.combine
    float32 = combine.precision == Precision.FLOAT32
    weights = tuple(tree.weight for tree in model.trees)
    return Sums(float32, tuple(0.0 for _ in combine.init) if combine.init_last else
                tuple(f32(v) if float32 else v for v in combine.init),
                weights if any(w != 1.0 for w in weights) else None,
                None if combine.init_last or combine.scale == 1.0 else combine.scale,
                combine.scale if combine.init_last else None, combine.init,
                None if combine.divisor == 1.0 else combine.divisor)


def code_size(tree_plan: TreePlan, cost: CostModel) -> int:
    """A cost model's estimate of a tree's code: its tests (a symmetric tree's levels), leaves and calls."""
    size = 0
    for function in tree_plan.functions:
        for _, kind, payload in function.lines:
            if kind == IF:
                size += cost.condition(payload)
            elif kind == LEVELS:
                size += sum(cost.condition(test) for test, _ in payload)
            else:
                size += cost.leaf if kind == LEAF else cost.call
    return size


def group_weight(walker: int, inlined: int, weight: int) -> int:
    """What a tree's walker of ``walker`` bytes weighs in a group of trees that one function adds: a JIT
    inlines a walker of at most ``inlined`` bytes into that function, but only so much into one function
    (past that, the walkers stay calls), so such a walker counts ``weight`` times; a bigger one as it is."""
    return walker * weight if walker <= inlined else walker


def size_groups(items: list, size: Callable[[object], int], budget: int) -> list[list]:
    """``items`` cut into runs of consecutive items whose sizes add up to at most ``budget`` (or one item):
    the rows APIs add one such group of trees to every row before the next, so that the group's code
    stays in the processor's caches."""
    groups, total = [], 0
    for item in items:
        if not groups or total + size(item) > budget:
            groups.append([])
            total = 0
        groups[-1].append(item)
        total += size(item)
    return groups


def summed_tree_by_tree(model: Model, plans: list[TreePlan]) -> bool:
    """Whether code can add the trees' outputs up one tree at a time, each leaf's terms worked out when
    the code is written (:func:`leaf_terms`): a boosted sum or a forest's average of trees that each
    reach one node, with no linear leaves and no label values."""
    return (model.combine.kind in (CombineKind.SUM, CombineKind.AVERAGE) and not has_label_values(model)
            and all(p.exclusive and not p.linear for p in plans))


def leaf_terms(steps: Sums | None, tree: int, value: tuple[float, ...]) -> tuple[float, ...]:
    """A leaf's terms as the sums add them: its value times the tree's weight, then the scale, each
    product rounded as the sums round (see :class:`Sums`); a forest's, its value."""
    if steps is None:
        return value
    rounded = f32 if steps.float32 else float
    weight = 1.0 if steps.weights is None else steps.weights[tree]
    terms = []
    for term in value:
        if weight != 1.0:
            term = rounded(term * weight)
        if steps.scale is not None:
            term = rounded(steps.scale * term)
        terms.append(term)
    return tuple(terms)


def takes_exp(combine) -> bool:
    """Whether a model's scores take ``exp`` (or float32's ``expf``): a boosted sum's sigmoid, softmax or exp
    link; a module without it leaves out the code of the two functions."""
    return combine.kind == CombineKind.SUM and combine.link in (Link.SIGMOID, Link.SOFTMAX, Link.EXP, Link.EXP_DOUBLE)


# XGBoost's binary label (binary:logistic) is class 1 exactly when its float32 raw sum is at or above this
# float32, 0x33c00001: 1.5 * 2^-24 and one float32 ulp (see label_cut).
SIGMOID_F32_CUT = float.fromhex("0x1.800002p-24")
# A binary classifier's label from its double raw sum S through the double sigmoid (LightGBM's binary) is class
# 1 exactly when link_scale * S, rounded, is at or above this double: 1.5 * 2^-53 and one ulp (see label_cut).
SIGMOID_F64_CUT = float.fromhex("0x1.8000000000001p-53")


def label_cut(model: Model) -> float | None:
    """The raw sum at and above which a binary classifier's label is its second class, where the model's own
    rule (the first highest of its scores ``[1 - p, p]``, ``p`` the sigmoid of its one raw sum) comes to that:
    :data:`SIGMOID_F32_CUT` for float32 sums (XGBoost's binary:logistic), :func:`sigmoid_cut` of the link's
    scale for double ones (LightGBM's binary and cross_entropy; XGBoost's as an SQLite expression computes it, in
    double: :func:`treegen.emit.sql.computed`). A target then decides ``raw >= cut`` as
    :attr:`Decision.RAW_NONNEGATIVE` decides ``raw >= 0`` (:func:`label_decision`), without the ``exp`` its
    label would cost (the --proba scores keep it). None for every other model (scikit-learn's, CatBoost's
    and HistGradientBoosting's binary models decide on the raw sum's sign already), and where the sums are
    not the library's alone (``init_last``, a divisor: the targets' label paths skip the steps after the
    sums). The model is not changed: this is an equivalence of the emitted code.

    Why (float32). ``p = f32(1 / f32(f32(e + 1) + f32(1e-16)))`` with ``e = expf(min(-S, 88.7f))``, ``S`` the
    raw sum (float32). ``f32(1e-16)`` is below half an ulp of ``f32(e + 1) >= 1``, so ``d = f32(e + 1)`` is the
    divisor. If ``d >= 2``, ``p <= 0.5 <= f32(1 - p)``: class 0 (a tie goes to the first). If ``d < 2``, ``d <=
    2 - 2^-23``, ``1 / d > 0.5 + 2^-25`` rounds to ``p >= 0.5 + 2^-24`` and ``1 - p <= 0.5 - 2^-24 < p``: class
    1. ``d < 2`` exactly when ``e + 1 < 2 - 2^-24`` (at ``e = 1 - 2^-24`` a tie, rounded to the even 2), so:
    class 1 exactly when ``e <= 1 - 2^-23`` (the float32s below 1 are 2^-24 apart).

    * NaN: ``p`` is NaN and the argmax of ``[NaN, NaN]`` is 0; ``NaN >= cut`` is false (in SQL engines where
      NaN sorts above every number it is not: the SQL tests the sum is a number there). ``S = -inf``: ``e =
      expf(88.7f)``, about 3.3e38: 0. ``S = +inf``: ``e = 0``: 1.
    * ``S <= 0``: ``exp(-S) >= 1`` and glibc's ``expf`` (which treegen's and every target's is, bit for bit)
      errs by under 0.502 ulp (e_expf.c), so ``e >= 1 - 0.502 * 2^-24``, a float32: ``e >= 1 - 2^-24``: 0.
    * ``S >= 2^-22``: ``exp(-S) < 1 - 2^-22 + 2^-45``, so ``e < 1 - 3.49 * 2^-24``: ``e <= 1 - 2^-23``: 1.
    * ``0 < S < 2^-22``: ``expf`` rounds ``32 (-S) / ln 2`` to ``k = 0``, so ``e`` is its cubic in double,
      ``y``, rounded once to float32; ``y`` is ``1 - S + S^2 / 2`` but for its last two additions near 1
      (2^-53 each) and the cubic term: ``1 - S - 2^-51 < y < 1 - S + S^2 + 2^-51``. Class 1 needs ``y`` at or
      below the midpoint ``1 - 1.5 * 2^-24`` (ties to the even ``1 - 2^-23``): ``S`` below ``1.5 * 2^-24 -
      2^-51`` gives 0, ``S`` above ``1.5 * 2^-24 + 2^-44`` gives 1. Between them lie fewer than 10 float32s
      (2^-47 apart there): tests/test_import_xgboost.py (``test_label_cut_is_where_the_binary_label_turns``)
      finds the cut by bisection and checks every float32 within 65,536 ulps of it against the model's own
      rule, besides the bounds above.

    Why (double): :func:`sigmoid_cut`."""
    combine = model.combine
    if not (model.target.is_classification and len(model.target.classes) == 2 and combine.kind == CombineKind.SUM
            and combine.link == Link.SIGMOID and len(combine.init) == 1 and not combine.init_last
            and combine.divisor == 1.0 and combine.decision() == Decision.ARGMAX and not has_label_values(model)):
        return None
    if combine.precision == Precision.FLOAT32:  # XGBoost's float32 sigmoid has no scale (model.apply_link)
        return SIGMOID_F32_CUT if combine.link_scale == 1.0 else None
    return sigmoid_cut(combine.link_scale)


@lru_cache(maxsize=64)  # label_cut asks once per target and per use in it: the 63 steps once per scale
def sigmoid_cut(scale: float) -> float | None:
    """The least double ``S`` whose label is the second class, where the label is the first highest of ``[1 - p,
    p]``, ``p = 1 / (1 + exp(-(scale * S)))`` in double with glibc's ``exp`` (:func:`treegen.arithmetic.sigmoid`,
    LightGBM's ``BinaryLogloss::ConvertOutput`` and its ``LGBMClassifier.predict``): the least double whose
    product by ``scale``, rounded, is at least :data:`SIGMOID_F64_CUT`, found by bisection over the doubles'
    bits (63 steps); finite for every positive scale (the least, 2^-1074, maps the largest double to 2^-50).
    None for a scale not positive and finite (a negative one turns the order round).

    Why. Let ``s = fl(scale * S)`` (``fl``: rounded to double), ``e = exp(-s)``, ``d = fl(1 + e)``, ``p = fl(1 /
    d)``. ``p > 0.5`` makes ``1 - p`` exact (Sterbenz) and below ``p``: class 1; ``p <= 0.5`` makes ``fl(1 - p)
    >= 0.5 >= p``: class 0 (a tie goes to the first). If ``d >= 2``, ``p <= 0.5``. If ``d < 2``, ``d <= 2 -
    2^-52``, so ``1 / d > 0.5 + 2^-54``, the midpoint above 0.5: ``p >= 0.5 + 2^-53``. ``d < 2`` exactly when ``1
    + e < 2 - 2^-53`` (the tie there rounds to the even 2), so: class 1 exactly when ``e <= 1 - 2^-52`` (the
    doubles below 1 are 2^-53 apart). Then in ``s``:

    * NaN: ``p`` is NaN and the argmax of ``[NaN, NaN]`` is 0; ``NaN >= cut`` is false (the SQL tests the sum is
      a number where NaN sorts high). ``s = -inf``: ``e = inf``, ``p = 0``: 0. ``s = +inf``: ``e = 0``: 1.
    * ``s <= 0``: ``exp(-s) >= 1``, and glibc's ``exp`` errs by well under an ulp (0.5 + 1.11/128 and its
      polynomial's, e_exp.c), so ``e >= 1 - 2^-53``: 0.
    * ``s >= 2^-51``: ``exp(-s) < 1 - 2^-51 + 2^-103``, so ``e < 1 - 3 * 2^-53 + 2^-103``: ``e <= 1 - 2^-52``: 1.
    * ``0 < s < 2^-51``, glibc's ``exp(x)``, ``x = -s``: below 2^-54 it returns ``1 + x``, which rounds to 1: 0.
      Above, ``k = 0``, so ``r = x``, ``tail = 0``, ``scale = 1`` and ``e = fl(1 + tmp)``, ``tmp = x + x^2 (C2 +
      x C3) + x^4 (...)`` in double: ``x`` and ``x^2 / 2 < 2^-103`` but for roundings of at most 2^-105 each.
      Class 1 needs ``1 + tmp`` at or below the midpoint ``1 - 1.5 * 2^-53`` (ties to the even ``1 - 2^-52``):
      ``s`` below ``1.5 * 2^-53 - 2^-103`` gives 0, above ``1.5 * 2^-53 + 2^-103`` gives 1. Between lie 9
      doubles (2^-105 apart there): tests/test_import_lightgbm.py (``test_sigmoid_cut_is_where_the_label_turns``)
      bisects the model's own rule and checks every double within 2^20 ulps of the cut, besides the bounds.
      Class 1 starts at 0x1.8000000000001p-53: at 0x1.8p-53, ``x^2 / 2`` (0.56 of its ulp) leaves ``tmp`` one
      ulp above ``x`` and ``1 + tmp`` above the midpoint.

    ``fl(scale * S)`` is monotone in ``S`` for a positive scale, so class 1 is exactly ``S`` at or above the
    least double it maps to :data:`SIGMOID_F64_CUT` or above; ``S = +inf`` (``s = inf``) is class 1, ``S = -inf``
    and NaN class 0. The cut rests on glibc's ``exp`` near 0: the model's (Python's ``math.exp``), C's, the SQL
    engines' that compute in double (SQLite, DuckDB, PostgreSQL, MariaDB) and the Java and JavaScript targets',
    which write it out. Spark's ``EXP`` is Java's ``StrictMath.exp``, fdlibm's, which returns ``1 + x`` below
    2^-28 and so puts 0x1.8p-53 in class 1: a label decided on the raw sum takes no ``exp``, so it is the
    model's in Spark too."""
    if not 0.0 < scale < math.inf:
        return None
    low, high = 0, double_bits(math.inf)  # fl(scale * 0.0) is below the cut, fl(scale * inf) above it
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if scale * bits_double(middle) >= SIGMOID_F64_CUT else (middle, high)
    return bits_double(high)


def label_decision(model: Model) -> tuple[Decision, float | None]:
    """The rule a target writes for a classifier's label, and the raw sum :attr:`Decision.RAW_NONNEGATIVE` then
    compares with (None: 0): the model's own decision, or where :func:`label_cut` applies, the raw sum at or
    above the cut."""
    cut = label_cut(model)
    return (model.combine.decision(), None) if cut is None else (Decision.RAW_NONNEGATIVE, cut)


def decides_on_raw(combine) -> bool:
    """Whether a boosted classifier decides on the raw sums, not on what its link made of them."""
    return combine.link != Link.IDENTITY and combine.decision() in (
        Decision.RAW_NONNEGATIVE, Decision.RAW_POSITIVE, Decision.ARGMAX_RAW)


def leaf_index(tests: tuple[tuple[Cond, int], ...], condition: Callable[[Cond], str], shifted: bool = False) -> str:
    """A symmetric tree's leaf index (a ``LEVELS`` line, see :func:`_levels`) in the languages of braces:
    each level's test, as ``condition`` writes it, gives its bit, by ``?:``, which C and Java compilers
    turn into a conditional move; or, ``shifted`` (JavaScript, whose V8 branches on ``?:``: CatBoost's
    500 trees took 2.5 times as long), as the test's boolean shifted into place (``true << 3`` is 8)."""
    levels = list(reversed(range(len(tests))))  # the root's bit is the highest
    if shifted:
        return " | ".join(f"(({condition(test) if child else negated(condition(test))}) << {level})"
                          for (test, child), level in zip(tests, levels))
    return " | ".join(f"({condition(test)} ? {child << level} : {(1 - child) << level})"
                      for (test, child), level in zip(tests, levels))


def negated(test: str) -> str:
    """``!(test)``, or the test ``!(...)`` negates (a test that is one negation of a parenthesised whole)."""
    if test.startswith("!("):
        depth = 0
        for i, c in enumerate(test[1:], 1):
            depth += {"(": 1, ")": -1}.get(c, 0)
            if depth == 0:
                if i == len(test) - 1:
                    return test[2:-1]
                break
    return f"!({test})"


def braced_lines(function: Function, indent: str, base: int, statement: Callable[[str, str, object], list[str]]
                 ) -> list[str]:
    """The body of a function in a language of braces (Java, JavaScript, C): ``statement(pad, kind,
    payload)`` writes the lines of one statement at its indentation (an ``if`` ending with its opening
    brace), and each ``if`` block is closed where the statements come back to its depth. ``base``: the
    indentation of the function's first statements, in ``indent`` units."""
    lines, open_blocks = [], []
    for depth, kind, payload in function.lines:
        while open_blocks and open_blocks[-1] >= depth:
            lines.append(indent * (open_blocks.pop() + base) + "}")
        lines.extend(statement(indent * (depth + base), kind, payload))
        if kind == IF:
            open_blocks.append(depth)
    while open_blocks:
        lines.append(indent * (open_blocks.pop() + base) + "}")
    return lines


def utf16_escaped(text: str, named: dict[str, str]) -> str:
    """``text`` in printable ASCII for a string literal of a language whose strings are UTF-16 (Java,
    JavaScript): each character in ``named`` by its escape, every other UTF-16 unit outside printable
    ASCII as ``\\uXXXX``."""
    if text.isascii():  # a unit a character: translated at once (a Java class's data runs to megabytes)
        return text.translate(_ascii_escapes(tuple(named.items())))
    units = text.encode("utf-16-be", "surrogatepass")
    return "".join(_unit_escaped(chr(int.from_bytes(units[i:i + 2], "big")), named) for i in range(0, len(units), 2))


def _unit_escaped(c: str, named: dict[str, str]) -> str:
    return named.get(c) or (c if " " <= c <= "~" else f"\\u{ord(c):04x}")


@lru_cache(maxsize=None)
def _ascii_escapes(named: tuple[tuple[str, str], ...]) -> dict[int, str]:
    """What :func:`utf16_escaped` writes for each ASCII character, as a table for ``str.translate``."""
    return {i: _unit_escaped(chr(i), dict(named)) for i in range(128)}
