"""The words of the rule text: how ``treegen export --to rules`` writes names, numbers, conditions,
rules and nodes. The writer (:mod:`treegen.emit.rule_text`) writes with them; the reader
(:mod:`treegen.parse.rule_text`) compares a text's rules with what they write for its nodes, line for
line, rather than parse every condition of an unedited export (a third of the parse's time).

Names are written bare when they are plain words, else as double-quoted strings with JSON escapes
(every character that is not printable is escaped, so a name can never break a line). Numbers are
written with ``repr``, which reads back to the same double.
"""
from __future__ import annotations

import math
import re

from .describe import key_sets, leaves_show_labels, number, numbers, quote, value_text
from .lower import INTERVAL, MISSING, TUPLE, Condition, Rule, per_condition
from .model import Model, Node, Op, Route, Split, Tree, leaf_class

KEYWORDS = frozenset("""treegen rules format features target numbers combine tree output rule if and
    or then default nodes node leaf missing with weight is in numeric nominal classes always stop to
    weights value label n counts tolerance float32 float64 single average sum init scale link identity
    sigmoid softmax inf nan true false strict zero band unknown but not added last divided by precision
    decide linear else exp exp_double sign_square step argmax weka raw_nonnegative raw_positive argmax_raw codes integral
    truncated""".split())  # (not "keys": it stands only after 'in' and at a keys line's start, where no name does)

_WORD = re.compile(r"[^\W\d]\w*")


def name(text: str) -> str:
    return text if _WORD.fullmatch(text) and text.lower() not in KEYWORDS else quote(text)


def strings(xs) -> str:
    return "{" + ", ".join(quote(x) for x in xs) + "}"


class RuleWriter:
    """Renders conditions, rules and nodes of one model (names depend on the model's features)."""

    def __init__(self, model: Model):
        self.model = model
        self.absents: dict[tuple, str] = {}  # (if_missing, if_unknown): its words; a model has few
        self.names = [name(f.name) for f in model.features]  # as written, once: a big model writes millions
        self.classification = model.target.is_classification
        self.labels = leaves_show_labels(model)  # a rule's outcome: a class, or the leaf's value (a boosted score)
        self.classes = [quote(c) for c in model.target.classes]  # a rule's outcome
        self.class_names = [name(c) for c in model.target.classes]  # a rule's summary of its counts
        # the rules of a subtree share the conditions above it: each written once (1,000 trees of depth 8:
        # 878,000 conditions, 229,000 of them distinct objects: lower shares each split's)
        self.condition_text = per_condition(self.condition)
        self.keys_of: dict[int, int] = {}  # the id of a tuple split's keys: the number of their ``keys`` line
        self.keysets = key_sets(model, self.keys_of)  # its keys: that number

    def absent(self, c: Condition) -> str:
        """The words for what ``c`` says of missing values and unknown categories, remembered."""
        words = self.absents[c.if_missing, c.if_unknown] = absent_text(c.if_missing, c.unknown_factor)
        return words

    def feature(self, index: int) -> str:
        return self.names[index]

    def condition(self, c: Condition) -> str:
        if c.split is not None:  # a tuple split's answer
            test = self.tuple_test(c.split, self.model.numeric.effective_threshold)
            return f"{test} {'in' if c.kind == TUPLE else 'not in'} keys {self.keys_number(c.split)}"
        x = self.feature(c.feature)
        absent = self.absents.get((c.if_missing, c.if_unknown))  # inline: a call a condition costs 3% of the export
        if absent is None:
            absent = self.absent(c)
        if c.kind == MISSING:
            return f"{x} is {absent}"
        if c.kind == INTERVAL:
            if c.unbounded_below:
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
        label value, where it has one), or its value (a boosted tree's: the score it adds)."""
        if not self.labels:
            return value_text(node.value)
        return self.classes[leaf_class(self.model.combine, node.deciding_value)]

    def rule_lines(self, tree: Tree, rules: list[Rule]) -> list[str]:
        """The lines of a tree's rules, numbered from 1, as the text holds them (without line ends)."""
        self.tree = tree
        return [f"  rule {i}: {self.rule(rule)}" for i, rule in enumerate(rules, 1)]

    def rule(self, rule: Rule) -> str:
        conditions = " and ".join(map(self.condition_text, rule.conditions))
        text = f"if {conditions} then " if conditions else "always "
        node = self.tree.nodes[rule.node]
        if node.linear is not None and not self.labels:  # the plain value: an input is missing
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
        elif s.op == _TUPLE:
            test = f"{self.tuple_test(s, float)} in keys {self.keys_number(s)} ? {node.children[0]} : {node.children[1]}"
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


    def keys_number(self, split: Split) -> int:
        return self.keys_of[id(split.tuples)]  # (the model's splits, which it keeps alive)

    def tuple_test(self, split: Split, cut) -> str:
        """``(features..., parts...)``: what a ``tuple`` split's key is made of, each part as a condition whose
        answer (true, false) is a place of the key -- its threshold ``cut(threshold)`` (the rules show where the
        model cuts, the nodes the threshold as stored), and where a missing value or an unknown category goes."""
        places = [self.names[f] for f in split.features] + [self.part(part, cut) for part in split.parts]
        return f"({', '.join(places)})"

    def part(self, part: Split, cut) -> str:
        x = self.names[part.feature]
        if part.op == _LE:
            text = f"{x} <= {number(cut(part.threshold))}"
        else:
            text = f"{x} = {quote(part.values[0])}" if len(part.values) == 1 else f"{x} in {strings(part.values)}"
        absent = absent_text(*part_factors(part))
        return f"({text} or {absent})" if absent else text


_LE, _IN, _TUPLE, _CHILD, _STOP = Op.LE, Op.IN, Op.TUPLE, Route.CHILD, Route.STOP  # a global costs less than an enum's


def part_factors(part: Split) -> tuple[float, float]:
    """The factors of a missing value and of an unknown category in a part of a ``tuple`` split: 1.0 where its
    route is children[0] (the part's answer is true), else 0.0 -- as a rule's condition says them."""
    unknown = part.missing.child if part.unknown is None else part.unknown
    return float(part.missing.child == 0), float(unknown == 0)


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
