"""A fast reader of rule text laid out exactly as ``treegen export --to rules`` writes it.

Lark lexes and parses rule text a token at a time in Python: the 4.7 MB written for a 9,000-leaf tree
(850,000 tokens) took it ten times as long as writing them (bench/README.md). This reader reads
a line at a time with regular expressions instead, and only text the grammar accepts: each statement in the writer's
layout (one space between tokens, comments where the writer puts them, any indentation), every
token matched by the grammar's own terminal pattern, names that no keyword or other terminal could
also match. It builds the same document as the grammar's transformer (rule_doc.py), and on any other
line, or on anything the transformer would refuse, it gives up (returns None): the grammar then reads
the whole text and reports what is wrong. tests/test_rule_text.py checks on fuzzed text that both
readers give the same document whenever this one accepts.
"""
from __future__ import annotations

import re
from functools import lru_cache

from lark import Lark

from ..errors import TreegenError
from . import rule_doc as doc


class _GiveUp(Exception):
    """The text is not in the writer's layout: leave it to the grammar."""


def read_lines(text: str, grammar: Lark) -> dict | None:
    """The document of rule text in the writer's layout (``text`` ends with a newline), else None."""
    try:
        return _Reader(_patterns(grammar), text).document()
    except (_GiveUp, TreegenError):
        return None


class _Patterns:
    """The statements of the grammar, in the writer's layout, built from the grammar's terminals."""

    def __init__(self, grammar: Lark):
        terminal = {t.name: f"(?:{t.pattern.to_regexp()})" for t in grammar.terminals}
        word, string, number, integer = terminal["WORD"], terminal["STRING"], terminal["NUMBER"], terminal["INT"]
        name = f"(?:{word}|{string})"
        strings = rf"\{{(?:{string}(?:, {string})*)?\}}"
        numbers = rf"\[(?:{number}(?:, {number})*)?\]"
        outcome = f"(?:{string}|{number})"
        # Every word the lexer could read as something other than a WORD: keywords, float64, inf, ...
        self.other_terminals = [re.compile(t.pattern.to_regexp()) for t in grammar.terminals
                                if t.name not in ("WORD", "COMMENT", "_NL") and not t.name.startswith("__IGNORE")]
        self.plain_words: dict[str, bool] = {}

        def line(statement: str) -> re.Pattern:
            return re.compile(rf"[\t ]*{statement}[\t ]*(?:#.*)?\r?")

        self.blank = line("")
        self.format = line(rf"treegen rules, format (?P<version>{integer})")
        self.features = line("features")
        self.feature = line(rf"(?P<name>{name}): (?:numeric|nominal (?P<categories>{strings}))")
        self.target = line(rf"target (?P<name>{name}): (?:numeric|classes (?P<classes>{strings}))")
        self.numbers = line(rf"numbers: (?P<cast>{terminal['CAST']})(?: tolerance (?P<tolerance>{number}))?")
        self.combine = line(rf"combine: (?:(?P<single>single)|average link (?P<average>{terminal['LINK']})"
                            rf"|sum init (?P<init>{numbers}) scale (?P<scale>{number}) link (?P<link>{terminal['LINK']}))")
        self.tree = line(rf"tree (?P<number>{integer})(?: output (?P<output>{integer}))?")
        self.rules = line("rules")
        self.rule = line(rf"rule (?P<number>{integer}): (?:if (?P<conditions>.*?) then |always )(?P<outcome>{outcome})")
        self.default = line(rf"default: (?P<outcome>{outcome})")
        self.nodes = line("nodes")
        test = (rf"(?P<at_most>{name}) <= (?P<high>{number})|(?P<above>{name}) > (?P<low>{number})"
                rf"|(?P<from>{number}) < (?P<between>{name}) <= (?P<to>{number})"
                rf"|(?P<equals>{name}) = (?P<value>{string})|(?P<one_of>{name}) in (?P<values>{strings})")
        self.condition = re.compile(  # one condition and the " and " after it, or the end
            rf"(?:(?P<is_missing>{name}) is missing(?: with weight (?P<missing_weight>{number}))?"
            rf"|(?P<open>\()?(?:{test})(?(open) or missing(?: with weight (?P<weight>{number}))?\)))"
            r"(?: and (?=.)|\Z)")
        body = (rf"(?P<leaf>leaf)"
                rf"|(?P<threshold_split>{name}) <= (?P<threshold>{number}) \? (?P<left>{integer}) : (?P<right>{integer})"
                rf"|(?P<subset_split>{name}) in (?P<subset>{strings}) \? (?P<in_left>{integer}) : (?P<in_right>{integer})"
                rf"|(?P<multiway_split>{name}) == \{{(?P<branches>{string}: {integer}(?:, {string}: {integer})*)\}}")
        route = rf"; missing (?:(?P<stop>stop)|to (?P<child>{integer})|weights (?P<weights>{numbers}))"
        self.node = line(rf"node (?P<number>{integer}): (?:{body})(?(leaf)|{route}); value (?P<value>{numbers}); "
                         rf"n (?P<n>{number})(?:; counts (?P<counts>{numbers}))?")
        self.string = re.compile(string)
        self.branch = re.compile(rf"(?P<value>{string}): (?P<child>{integer})")

    def is_plain_word(self, word: str) -> bool:
        """Whether the lexer reads ``word`` as a WORD wherever a name may stand."""
        plain = self.plain_words.get(word)
        if plain is None:
            plain = self.plain_words[word] = not any(p.fullmatch(word) for p in self.other_terminals)
        return plain


@lru_cache(maxsize=1)
def _patterns(grammar: Lark) -> _Patterns:
    return _Patterns(grammar)


class _Reader:
    """Reads the statements in the grammar's order, one line each; gives up on anything else."""

    def __init__(self, patterns: _Patterns, text: str):
        self.p = patterns
        self.lines = text.split("\n")[:-1]  # the text ends with a newline
        self.index = 0  # of the next line to read
        self.conditions: dict[str, tuple] = {}  # a condition's text: rules repeat conditions often
        self.names: dict[str, str] = {}  # a name as written: its value
        self.labels: dict[str, str] = {}  # a class label as written (an outcome): its value

    # -- lines -------------------------------------------------------------------------------
    def next(self, pattern: re.Pattern, optional: bool = False) -> re.Match | None:
        """The next statement, which must match ``pattern`` (else give up, or None if optional)."""
        while self.index < len(self.lines):
            line = self.lines[self.index]
            match = pattern.fullmatch(line)
            if match is not None:
                self.index += 1
                return match
            if not self.p.blank.fullmatch(line):  # blank lines and comments are rare: tried second
                break
            self.index += 1
        if optional:
            return None
        raise _GiveUp

    def at(self, pattern: re.Pattern) -> bool:
        """Whether the next statement matches ``pattern`` (nothing is read)."""
        if self.next(pattern, optional=True) is None:
            return False
        self.index -= 1
        return True

    @property
    def line(self) -> int:
        """The line number of the statement read last."""
        return self.index

    def column(self, match: re.Match, group: str) -> int:
        return match.start(group) + 1

    @staticmethod
    def whole(text: str) -> int:
        if len(text) > doc.MAX_DIGITS:  # the grammar's transformer refuses it: the grammar says so
            raise _GiveUp
        return int(text)

    # -- tokens ------------------------------------------------------------------------------
    def name(self, text: str) -> str:
        value = self.names.get(text)
        if value is None:
            if text[0] != '"' and not self.p.is_plain_word(text):
                raise _GiveUp
            value = self.names[text] = doc.name(text)
        return value

    def strings(self, text: str) -> list[str]:
        return [doc.string(s.group()) for s in self.p.string.finditer(text)]

    @staticmethod
    def number_list(text: str) -> list[float]:
        return list(map(float, text[1:-1].split(", "))) if len(text) > 2 else []

    @staticmethod
    def number(text: str | None) -> float | None:
        return None if text is None else float(text)

    # -- the document --------------------------------------------------------------------------
    def document(self) -> dict:
        m = self.next(self.p.format)
        doc.format_version(m.group("version"), self.line, self.column(m, "version"))
        features = self.features()
        target, numbers, combine = self.target(), self.numbers(), self.combine()
        trees = [self.tree()]
        while self.at(self.p.tree):
            trees.append(self.tree())
        if any(not self.p.blank.fullmatch(line) for line in self.lines[self.index:]):
            raise _GiveUp
        return doc.document(features, target, numbers, combine, trees)

    def features(self) -> list[dict]:
        self.next(self.p.features)
        features = []
        while m := self.next(self.p.feature, optional=True):
            name = self.name(m.group("name"))
            categories = m.group("categories")
            features.append(doc.numeric_feature(name) if categories is None
                            else doc.nominal_feature(name, self.strings(categories)))
        return features

    def target(self) -> dict:
        m = self.next(self.p.target)
        name = self.name(m.group("name"))
        classes = m.group("classes")
        return doc.regression_target(name) if classes is None else doc.classification_target(name, self.strings(classes))

    def numbers(self) -> dict:
        m = self.next(self.p.numbers)
        return doc.numbers(m.group("cast"), self.number(m.group("tolerance")))

    def combine(self) -> dict:
        m = self.next(self.p.combine)
        if m.group("single"):
            return doc.combine("single")
        if m.group("average"):
            return doc.combine("average", m.group("average"))
        return doc.combine("sum", m.group("link"), self.number_list(m.group("init")), float(m.group("scale")))

    def tree(self) -> dict:
        m = self.next(self.p.tree)
        line = self.line
        self.whole(m.group("number"))
        output = None if m.group("output") is None else self.whole(m.group("output"))
        self.next(self.p.rules)
        rules = []
        while m := self.next(self.p.rule, optional=True):
            number, conditions, outcome = m.group("number", "conditions", "outcome")
            rules.append(doc.rule(self.line, self.whole(number), self.conditions_of(conditions), self.outcome(outcome)))
        self.outcome(self.next(self.p.default).group("outcome"))
        self.next(self.p.nodes)
        nodes = [self.node(self.next(self.p.node))]
        while m := self.next(self.p.node, optional=True):
            nodes.append(self.node(m))
        return doc.tree(line, output, rules, nodes)

    def outcome(self, text: str):
        if text[0] != '"':
            return float(text)
        value = self.labels.get(text)
        if value is None:
            value = self.labels[text] = doc.string(text)
        return value

    # -- rules ------------------------------------------------------------------------------
    def conditions_of(self, text: str | None) -> tuple:
        """``c and c and ...``, each c one whole condition."""
        if text is None:  # always
            return ()
        if '"' not in text:  # no string: " and " can only be the keyword between two conditions
            return tuple(self.condition(written, None) for written in text.split(" and "))
        # A string may hold " and ": find the conditions one after the other, without overlap; their
        # lengths add up to the text's only if there is no gap between them.
        conditions = []
        covered = 0
        for m in self.p.condition.finditer(text):
            written = m.group()
            covered += len(written)
            conditions.append(self.condition(written, m))
        if covered != len(text):
            raise _GiveUp
        return tuple(conditions)

    def condition(self, written: str, m: re.Match | None) -> tuple:
        """The condition written, matched by the condition pattern (``m``; None: not matched yet)."""
        condition = self.conditions.get(written)
        if condition is None:
            m = m or self.p.condition.fullmatch(written)
            if m is None:
                raise _GiveUp
            condition = self.conditions[written] = self.read_condition(m)
        return condition

    def read_condition(self, m: re.Match) -> tuple:
        if m.group("is_missing"):
            weight = m.group("missing_weight")
            return doc.is_missing(self.name(m.group("is_missing")), *([float(weight)] if weight else []))
        if m.group("at_most"):
            test = doc.at_most(self.name(m.group("at_most")), float(m.group("high")))
        elif m.group("above"):
            test = doc.above(self.name(m.group("above")), float(m.group("low")))
        elif m.group("between"):
            test = doc.between(float(m.group("from")), self.name(m.group("between")), float(m.group("to")))
        elif m.group("equals"):
            test = doc.one_of(self.name(m.group("equals")), (doc.string(m.group("value")),))
        else:
            test = doc.one_of(self.name(m.group("one_of")), self.strings(m.group("values")))
        if not m.group("open"):
            return test
        weight = m.group("weight")
        return doc.or_missing(test, *([float(weight)] if weight else []))

    # -- nodes ------------------------------------------------------------------------------
    NODE_PARTS = ("number", "value", "n", "counts", "leaf", "threshold_split", "threshold", "left", "right",
                  "subset_split", "subset", "in_left", "in_right", "multiway_split", "branches",
                  "stop", "child", "weights")

    def node(self, m: re.Match) -> dict:
        (number, value, n, counts, leaf, threshold_split, threshold, left, right, subset_split, subset, in_left,
         in_right, multiway_split, branches, stop, child, weights) = m.group(*self.NODE_PARTS)  # one call: fast
        number, value, n = self.whole(number), self.number_list(value), float(n)
        counts = None if counts is None else self.number_list(counts)
        if leaf:
            return doc.node(number, self.line, self.column(m, "number"), value, n, counts)
        if threshold_split:
            split = doc.threshold_split(self.name(threshold_split), float(threshold))
            children = [self.whole(left), self.whole(right)]
        elif subset_split:
            split = doc.subset_split(self.name(subset_split), self.strings(subset))
            children = [self.whole(in_left), self.whole(in_right)]
        else:
            pairs = list(self.p.branch.finditer(branches))
            split = doc.multiway_split(self.name(multiway_split), [doc.string(b.group("value")) for b in pairs])
            children = [self.whole(b.group("child")) for b in pairs]
        if stop:
            route = doc.route_stop()
        elif child:
            route = doc.route_child(self.whole(child))
        else:
            route = doc.route_weights(self.number_list(weights))
        return doc.node(number, self.line, self.column(m, "number"), value, n, counts, split, children, route)
