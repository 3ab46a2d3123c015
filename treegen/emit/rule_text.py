"""The rule text: a person reads the rules; ``treegen parse`` reads the nodes back, exactly.

Names are written bare when they are plain words, else as double-quoted strings with JSON escapes
(every character that is not printable is escaped, so a name can never break a line). Numbers are
written with ``repr``, which reads back to the same double.
"""
from __future__ import annotations

import json
import math
import re

from ..describe import number, quote
from ..lower import INTERVAL, MISSING, Condition, Rule, lower
from ..model import CombineKind, Link, Model, Node, Op, Precision, Route, leaf_class
from .common import per_condition
from .render import render

KEYWORDS = frozenset("""treegen rules format features target numbers combine tree output rule if and
    or then default nodes node leaf missing with weight is in numeric nominal classes always stop to
    weights value label n counts tolerance float32 float64 single average sum init scale link identity
    sigmoid softmax inf nan true false strict zero band unknown but not added last divided by precision
    decide linear else exp sign_square argmax weka raw_nonnegative raw_positive argmax_raw""".split())

_WORD = re.compile(r"[^\W\d]\w*")


def name(text: str) -> str:
    return text if _WORD.fullmatch(text) and text.lower() not in KEYWORDS else quote(text)


def numbers(xs) -> str:
    return "[" + ", ".join(map(number, xs)) + "]"


def strings(xs) -> str:
    return "{" + ", ".join(quote(x) for x in xs) + "}"


class RuleWriter:
    """Renders conditions, rules and nodes of one model (names depend on the model's features)."""

    def __init__(self, model: Model):
        self.model = model
        self.absents: dict[tuple, str] = {}  # (if_missing, if_unknown): its words; a model has few
        self.names = [name(f.name) for f in model.features]  # as written, once: a big model writes millions
        self.classification = model.target.is_classification
        self.classes = [quote(c) for c in model.target.classes]  # a rule's outcome
        self.class_names = [name(c) for c in model.target.classes]  # a rule's summary of its counts
        # the rules of a subtree share the conditions above it: each written once (1,000 trees of depth 8:
        # 878,000 conditions, 229,000 of them distinct objects: lower shares each split's)
        self.condition_text = per_condition(self.condition)

    def absent(self, c: Condition) -> str:
        """The words for what ``c`` says of missing values and unknown categories, remembered."""
        words = self.absents[c.if_missing, c.if_unknown] = absent_text(c.if_missing, c.unknown_factor)
        return words

    def feature(self, index: int) -> str:
        return self.names[index]

    def condition(self, c: Condition) -> str:
        x = self.feature(c.feature)
        absent = self.absents.get((c.if_missing, c.if_unknown))  # inline: a call a condition costs 3% of the export
        if absent is None:
            absent = self.absent(c)
        if c.kind == MISSING:
            return f"{x} is {absent}"
        if c.kind == INTERVAL:
            if c.low == -math.inf:
                text = f"{x} <= {number(c.high)}"
            elif c.high == math.inf:
                text = f"{x} > {number(c.low)}"
            else:
                text = f"{number(c.low)} < {x} <= {number(c.high)}"
        else:
            text = f"{x} = {quote(c.values[0])}" if len(c.values) == 1 else f"{x} in {strings(c.values)}"
        return f"({text} or {absent})" if absent else text

    def outcome(self, node: Node) -> str:
        """What a rule ending at ``node`` predicts: the class the node labels on its own (by its
        label value, where it has one), or its value."""
        if not self.classification:
            return number(node.value[0])
        return self.classes[leaf_class(self.model.combine, node.deciding_value)]

    def rule(self, rule: Rule) -> str:
        conditions = " and ".join(map(self.condition_text, rule.conditions))
        text = f"if {conditions} then " if conditions else "always "
        node = self.tree.nodes[rule.node]
        if node.linear is not None and not self.classification:  # the plain value: an input is missing
            outcome = f"{self.linear(node)} else {number(node.value[0])}" if node.linear.terms else self.linear(node)
        else:
            outcome = self.outcome(node)
        return f"{text}{outcome}  # {self.summary(node)}"

    def linear(self, node: Node) -> str:
        """A linear leaf's sum as it is computed: ``const + coeff * feature + ...``, left to right."""
        linear = node.linear
        return " + ".join([number(linear.const)] + [f"{number(c)} * {self.feature(f)}" for f, c in linear.terms])

    def summary(self, node: Node) -> str:
        if self.classification and node.counts:
            parts = ", ".join(f"{c} {number(k)}" for c, k in zip(self.class_names, node.counts))
            return f"n {number(node.n)}: {parts}"
        return f"n {number(node.n)}"

    def node(self, node: Node) -> str:
        tail = f"value {numbers(node.value)}; " + (f"label value {numbers(node.label_value)}; " if node.label_value else "")
        tail += f"n {number(node.n)}"
        if node.counts:
            tail += f"; counts {numbers(node.counts)}"
        if node.linear is not None:
            tail += f"; linear {self.linear(node)}"
        if node.split is None:
            return f"leaf; {tail}"
        return f"{self.split(node)}; {tail}"

    def split(self, node: Node) -> str:
        """A split node's test, its children and where missing values go."""
        s = node.split
        x = self.names[s.feature]
        if s.op == _LE:
            test = f"{x} <= {number(s.threshold)} ? {node.children[0]} : {node.children[1]}"
        elif s.op == _IN:
            test = f"{x} in {strings(s.values)} ? {node.children[0]} : {node.children[1]}"
        else:
            pairs = ", ".join(f"{quote(v)}: {c}" for v, c in zip(s.values, node.children))
            test = f"{x} == {{{pairs}}}"
        m = s.missing
        if m.kind == _CHILD:
            route = f"missing to {node.children[m.child]}"
        else:
            route = "missing stop" if m.kind == _STOP else f"missing weights {numbers(m.weights)}"
        if s.unknown is not None:
            route += f"; unknown to {node.children[s.unknown]}"
        return f"{test}; {route}"


_LE, _IN, _CHILD, _STOP = Op.LE, Op.IN, Route.CHILD, Route.STOP  # a global costs less than a look-up in an enum


def absent_text(if_missing: float, if_unknown: float) -> str:
    """What a condition says of a missing value and of an unknown category (a category its feature
    does not know), given the factor of each; '' when neither satisfies it. An unknown category is
    named only where it is not taken as missing."""
    missing = "missing" + with_weight(if_missing)
    if if_unknown == if_missing:
        return missing if if_missing != 0.0 else ""
    if if_missing == 0.0:
        return "unknown" + with_weight(if_unknown)
    if if_unknown == 0.0:
        return f"{missing} but not unknown"
    return f"{missing} or unknown{with_weight(if_unknown)}"


def with_weight(factor: float) -> str:
    return "" if factor == 1.0 else f" with weight {number(factor)}"


def emit(model: Model) -> str:
    writer = RuleWriter(model)
    trees = []
    for tree, tree_rules in zip(model.trees, lower(model)):
        writer.tree = tree
        trees.append({"output": tree.output, "weight": None if tree.weight == 1.0 else number(tree.weight),
                      "exclusive": tree_rules.exclusive,
                      # numbered lines made here: a loop of Jinja's costs several times the text
                      "rules": "".join(f"  rule {i}: {writer.rule(r)}\n" for i, r in enumerate(tree_rules.rules, 1)),
                      "nodes": "".join(f"  node {i}: {writer.node(node)}\n" for i, node in enumerate(tree.nodes)),
                      "default": writer.outcome(tree.nodes[0])})
    filters = {"feature_decl": feature_decl, "target_decl": target_decl, "numbers_decl": numbers_decl,
               "combine_decl": combine_decl}
    comments = [meta_line(k, v) for k, v in sorted(model.meta.items()) if isinstance(v, (str, int, float))]
    return render("rule_text", "rule_text.txt.j2", filters, model=model, trees=trees,
                  header_comments=[quote(c)[1:-1] for c in comments], unknown_routes=has_unknown_routes(model),
                  missing_intervals=any(f.missing_interval is not None for f in model.features))


def has_unknown_routes(model: Model) -> bool:
    """Some split sends unknown categories elsewhere than missing values."""
    return any(node.split is not None and node.split.unknown is not None for tree in model.trees for node in tree.nodes)


_JSON_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?")  # as parse/rule_text.py reads a value


def meta_line(key: str, value) -> str:
    """`key: value`, which `treegen parse` reads back into the model's meta (a value written as a JSON
    number is that number); key and value in JSON where that would read back otherwise: a string
    that looks like a number, true/false, inf, nan, a key that holds ': ' or starts with a quote."""
    plain_value = isinstance(value, str) != bool(_JSON_NUMBER.fullmatch(str(value))) and not isinstance(value, bool)
    if plain_value and ": " not in key and not key.startswith('"'):
        return f"{key}: {value}"
    return f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)}"


def feature_decl(feature) -> str:
    if not feature.is_numeric:
        return f"{name(feature.name)}: nominal {strings(feature.categories)}"
    if feature.missing_interval is None:
        return f"{name(feature.name)}: numeric"
    return f"{name(feature.name)}: numeric, missing in {numbers(feature.missing_interval)}"


def target_decl(target) -> str:
    if target.is_classification:
        return f"{name(target.name)}: classes {strings(target.classes)}"
    return f"{name(target.name)}: numeric"


def numbers_decl(numeric) -> str:
    text = numeric.cast
    text += f" tolerance {number(numeric.tolerance)}" if numeric.tolerance else ""
    text += " strict" if numeric.strict else ""
    return text + (f" zero band {number(numeric.zero_band)}" if numeric.zero_band else "")


def combine_decl(combine) -> str:
    """The combine line, in the order of the computation; what a model does not use is left out (a
    single tree's link when it is the identity; the divisor 1, float64 precision, the link's decision)."""
    text = str(combine.kind)
    if combine.kind == CombineKind.SUM:
        text += f" init {numbers(combine.init)}" + (" added last" if combine.init_last else "")
        text += f" scale {number(combine.scale)}"
    text += f" divided by {number(combine.divisor)}" if combine.divisor != 1.0 else ""
    if combine.kind != CombineKind.SINGLE or combine.link != Link.IDENTITY or combine.link_scale != 1.0:
        text += f" link {combine.link}" + (f" scale {number(combine.link_scale)}" if combine.link_scale != 1.0 else "")
    text += f" precision {combine.precision}" if combine.precision != Precision.FLOAT64 else ""
    return text + (f" decide {combine.decide}" if combine.decide is not None else "")
