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
from ..model import CombineKind, Model, Node, Op, Route, argmax
from .render import render

KEYWORDS = frozenset("""treegen rules format features target numbers combine tree output rule if and
    or then default nodes node leaf missing with weight is in numeric nominal classes always stop to
    weights value n counts tolerance float32 float64 single average sum init scale link identity
    sigmoid softmax inf nan true false""".split())
_WORD = re.compile(r"[^\W\d]\w*")


def name(text: str) -> str:
    return text if _WORD.fullmatch(text) and text.lower() not in KEYWORDS else quote(text)


def numbers(xs) -> str:
    return "[" + ", ".join(number(x) for x in xs) + "]"


def strings(xs) -> str:
    return "{" + ", ".join(quote(x) for x in xs) + "}"


class RuleWriter:
    """Renders conditions, rules and nodes of one model (names depend on the model's features)."""

    def __init__(self, model: Model):
        self.model = model

    def feature(self, index: int) -> str:
        return name(self.model.features[index].name)

    def condition(self, c: Condition) -> str:
        x = self.feature(c.feature)
        if c.kind == MISSING:
            return f"{x} is missing" + (f" with weight {number(c.if_missing)}" if c.if_missing != 1.0 else "")
        if c.kind == INTERVAL:
            if c.low == -math.inf:
                text = f"{x} <= {number(c.high)}"
            elif c.high == math.inf:
                text = f"{x} > {number(c.low)}"
            else:
                text = f"{number(c.low)} < {x} <= {number(c.high)}"
        else:
            text = f"{x} = {quote(c.values[0])}" if len(c.values) == 1 else f"{x} in {strings(c.values)}"
        if c.if_missing == 1.0:
            return f"({text} or missing)"
        if c.if_missing > 0.0:
            return f"({text} or missing with weight {number(c.if_missing)})"
        return text

    def outcome(self, value) -> str:
        target = self.model.target
        if not target.is_classification:
            return number(value[0])
        return quote(target.classes[argmax(value)])

    def rule(self, rule: Rule) -> str:
        conditions = " and ".join(self.condition(c) for c in rule.conditions)
        text = f"if {conditions} then " if conditions else "always "
        return f"{text}{self.outcome(rule.value)}  # {self.summary(self.tree.nodes[rule.node])}"

    def summary(self, node: Node) -> str:
        target = self.model.target
        if target.is_classification and node.counts:
            parts = ", ".join(f"{name(c)} {number(k)}" for c, k in zip(target.classes, node.counts))
            return f"n {number(node.n)}: {parts}"
        return f"n {number(node.n)}"

    def node(self, node: Node) -> str:
        tail = f"value {numbers(node.value)}; n {number(node.n)}"
        if node.counts:
            tail += f"; counts {numbers(node.counts)}"
        if node.split is None:
            return f"leaf; {tail}"
        s = node.split
        x = self.feature(s.feature)
        if s.op == Op.LE:
            test = f"{x} <= {number(s.threshold)} ? {node.children[0]} : {node.children[1]}"
        elif s.op == Op.IN:
            test = f"{x} in {strings(s.values)} ? {node.children[0]} : {node.children[1]}"
        else:
            pairs = ", ".join(f"{quote(v)}: {c}" for v, c in zip(s.values, node.children))
            test = f"{x} == {{{pairs}}}"
        m = s.missing
        if m.kind == Route.CHILD:
            route = f"missing to {node.children[m.child]}"
        else:
            route = "missing stop" if m.kind == Route.STOP else f"missing weights {numbers(m.weights)}"
        return f"{test}; {route}; {tail}"


def emit(model: Model) -> str:
    writer = RuleWriter(model)
    trees = []
    for tree, tree_rules in zip(model.trees, lower(model)):
        writer.tree = tree
        trees.append({"output": tree.output, "exclusive": tree_rules.exclusive,
                      "rules": [writer.rule(rule) for rule in tree_rules.rules],
                      "nodes": [writer.node(node) for node in tree.nodes],
                      "default": writer.outcome(tree.nodes[0].value)})
    filters = {"feature_decl": feature_decl, "target_decl": target_decl, "numbers_decl": numbers_decl,
               "combine_decl": combine_decl}
    comments = [meta_line(k, v) for k, v in sorted(model.meta.items()) if isinstance(v, (str, int, float))]
    return render("rule_text", "rule_text.txt.j2", filters, model=model, trees=trees,
                  header_comments=[quote(c)[1:-1] for c in comments])


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
    if feature.is_numeric:
        return f"{name(feature.name)}: numeric"
    return f"{name(feature.name)}: nominal {strings(feature.categories)}"


def target_decl(target) -> str:
    if target.is_classification:
        return f"{name(target.name)}: classes {strings(target.classes)}"
    return f"{name(target.name)}: numeric"


def numbers_decl(numeric) -> str:
    text = numeric.cast
    return text + (f" tolerance {number(numeric.tolerance)}" if numeric.tolerance else "")


def combine_decl(combine) -> str:
    if combine.kind == CombineKind.SINGLE:
        return str(combine.kind)
    text = combine.kind
    if combine.kind == CombineKind.SUM:
        text += f" init {numbers(combine.init)} scale {number(combine.scale)}"
    return text + f" link {combine.link}"
