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
from operator import itemgetter

from ..errors import TreegenError
from ..lower import NOT_TUPLE, TUPLE
from . import rule_doc as doc
from .grammar_terminals import Terminals, grammar_text, read_terminals


_whole_match, _first_group = re.Match.group, itemgetter(1)  # (the grammar's patterns hold groups: not findall)


def _numbers_in(text: str) -> list[float]:
    """The numbers of a list as written, ``[1.5, -2.0]``: :func:`rule_doc.numbers_of`, inline where none is infinite."""
    if len(text) == 2:
        return []
    values = list(map(float, text[1:-1].split(", ")))
    return doc.numbers_of(text[1:-1].split(", ")) if _INFINITE in values or -_INFINITE in values else values


_INFINITE = float("inf")


class _GiveUp(Exception):
    """The text is not in the writer's layout: leave it to the grammar."""


def read_lines(text: str, rules_as_written: bool = False) -> dict | None:
    """The document of rule text in the writer's layout (``text`` ends with a newline), else None.
    ``rules_as_written``: each tree's rules are the lines as written (``  rule 1: ...``), not read,
    for a comparison with the rules its nodes give (treegen.parse.rule_text)."""
    try:
        return _Reader(_patterns(), text, rules_as_written).document()
    except (_GiveUp, TreegenError):
        return None


class _Patterns:
    """The statements of the grammar, in the writer's layout, built from the grammar's terminals."""

    def __init__(self, terminals: Terminals):
        terminal = {name: f"(?:{pattern})" for name, pattern in terminals.named.items()}
        word, string, number, integer = terminal["WORD"], terminal["STRING"], terminal["NUMBER"], terminal["INT"]
        name = f"(?:{word}|{string})"
        # A list's items repeated possessively (*+: not given back, which no item could be): a plain * keeps a point to
        # return to at each item, 4.7 KB each -- 955 MB for a 2.2 MB line of 200,000 categories
        strings = rf"\{{(?:{string}(?:, {string})*+)?\}}"
        numbers = rf"\[(?:{number}(?:, {number})*+)?\]"
        outcome = f"(?:{string}|{number}|{numbers})"
        # Every word the lexer could read as something other than a WORD: keywords, float64, inf, ... -- but
        # 'keys', which the parser takes only after 'in' and at a keys line's start, where no name stands (its
        # lexer of each state reads a name 'keys' as a WORD), and which the writer writes bare, as before it was one
        self.other_terminals = [re.compile(pattern) for pattern in terminals.others]
        self.plain_words: dict[str, bool] = {}

        def line(statement: str) -> re.Pattern:
            return re.compile(rf"[\t ]*{statement}[\t ]*(?:#.*)?\r?")

        self.blank = line("")
        self.format = line(rf"treegen rules, format (?P<version>{integer})")
        self.features = line("features")
        self.feature = line(rf"(?P<name>{name}): (?:numeric(?:, missing in \[(?P<low>{number}), (?P<high>{number})\])?"
                            rf"|nominal (?P<categories>{strings})(?:, codes (?P<codes>{terminal['CODES']}))?)")
        self.target = line(rf"target (?P<name>{name}): (?:numeric|classes (?P<classes>{strings}))")
        self.numbers = line(rf"numbers: (?P<cast>{terminal['CAST']})(?: tolerance (?P<tolerance>{number}))?"
                            rf"(?P<strict> strict)?(?: zero band (?P<zero_band>{number}))?")
        self.combine = line(rf"combine: (?:(?P<single>single)|(?P<average>average)"
                            rf"|sum init (?P<init>{numbers})(?P<added_last> added last)? scale (?P<scale>{number}))"
                            rf"(?: divided by (?P<divisor>{number}))?"
                            rf"(?: link (?P<link>{terminal['LINK']})(?: scale (?P<link_scale>{number}))?)?"
                            rf"(?: precision (?P<precision>{terminal['CAST']}))?(?: decide (?P<decide>{terminal['DECISION']}))?")
        self.tree = line(rf"tree (?P<number>{integer})(?: output (?P<output>{integer}))?(?: weight (?P<weight>{number}))?")
        self.rules = line("rules")
        self.rule = line(rf"rule (?P<number>{integer}): (?:if (?P<conditions>.*?) then |always )(?P<outcome>{outcome})")
        self.default = line(rf"default: (?P<outcome>{outcome})")
        self.nodes = line("nodes")
        test = (rf"(?P<at_most>{name}) <= (?P<high>{number})|(?P<above>{name}) > (?P<low>{number})"
                rf"|(?P<from>{number}) < (?P<between>{name}) <= (?P<to>{number})"
                rf"|(?P<equals>{name}) = (?P<value>{string})|(?P<one_of>{name}) in (?P<values>{strings})")
        absent = (rf"(?:missing(?: with weight {number})?(?: but not unknown| or unknown(?: with weight {number})?)?"
                  rf"|unknown(?: with weight {number})?)")
        self.keyset = line(rf"keys (?P<number>{integer}): \{{(?P<keys>.*)\}}")
        key_place = rf"(?:{string}|missing|true|false)"
        key = rf"\({key_place}(?:, {key_place})*+\)"
        # Compiled when first used (__getattr__): an export of no tuple split whose rules are the writer's (read as
        # lines) needs none of these, which took half the time of compiling the patterns (9 of 19 ms)
        self.later = {"keys": rf"(?:{key}(?:, {key})*+)?",  # a keys line's keys, checked whole at once
                      "key": rf"\(({key_place}(?:, {key_place})*+)\)",  # then each key's places
                      "key_place": key_place}
        # A test of categories combined, ``(places) in keys N``: its places as a whole (.+?: the first ') in keys N'
        # that the rest of the line fits) are read one by one by this pattern, and given up on unless they are whole
        self.later["place"] = (  # a place: a feature, or a part (a condition)
            rf"(?:(?P<open>\()?(?:(?P<at_most>{name}) <= (?P<high>{number})|(?P<equals>{name}) = (?P<value>{string})"
            rf"|(?P<one_of>{name}) in (?P<values>{strings}))(?(open) or (?P<or_factors>{absent})\))"
            rf"|(?P<feature>{name}))(?:, |\Z)")
        self.later["condition"] = (  # one condition and the " and " after it, or the end
            rf"(?:(?P<is_absent>{name}) is (?P<is_factors>{absent})"
            rf"|(?P<open>\()?(?:{test})(?(open) or (?P<or_factors>{absent})\))"
            rf"|\((?P<tuple>.+?)\) (?P<negated>not )?in keys (?P<tuple_keys>{integer}))"
            r"(?: and (?=.)|\Z)")
        self.later["absent"] = (  # what a condition says of missing values and unknown categories
            rf"missing(?: with weight (?P<missing>{number}))?"
            rf"(?:(?P<not_unknown> but not unknown)|(?P<or_unknown> or unknown)(?: with weight (?P<unknown>{number}))?)?"
            rf"|(?P<only_unknown>unknown)(?: with weight (?P<only>{number}))?")
        body = (rf"(?P<leaf>leaf)"
                rf"|(?P<threshold_split>{name}) <= (?P<threshold>{number}) \? (?P<left>{integer}) : (?P<right>{integer})"
                rf"|(?P<subset_split>{name}) in (?P<subset>{strings}) \? (?P<in_left>{integer}) : (?P<in_right>{integer})"
                rf"|(?P<multiway_split>{name}) == \{{(?P<branches>{string}: {integer}(?:, {string}: {integer})*+)\}}"
                rf"|\((?P<places>.+?)\) in keys (?P<keys>{integer}) \? (?P<t_left>{integer}) : "
                rf"(?P<t_right>{integer})")
        route = rf"; missing (?:(?P<stop>stop)|to (?P<child>{integer})|weights (?P<weights>{numbers}))"
        unknown = rf"; unknown to (?P<unknown>{integer})"
        self.node = line(rf"node (?P<number>{integer}): (?:{body})(?(leaf)|{route}(?:{unknown})?); value (?P<value>{numbers}); "
                         rf"(?:label value (?P<label_value>{numbers}); )?n (?P<n>{number})(?:; counts (?P<counts>{numbers}))?")
        self.string = re.compile(string)
        self.branch = re.compile(rf"(?P<value>{string}): (?P<child>{integer})")

    def __getattr__(self, name: str) -> re.Pattern:
        """A pattern of ``later``, compiled the first time it is asked for (then an attribute: not asked again)."""
        later = self.__dict__.get("later", {})
        if name not in later:
            raise AttributeError(name)
        pattern = re.compile(later[name])
        setattr(self, name, pattern)
        return pattern

    def is_plain_word(self, word: str) -> bool:
        """Whether the lexer reads ``word`` as a WORD wherever a name may stand."""
        plain = self.plain_words.get(word)
        if plain is None:
            plain = self.plain_words[word] = not any(p.fullmatch(word) for p in self.other_terminals)
        return plain


@lru_cache(maxsize=1)
def _patterns() -> _Patterns:
    return _Patterns(terminals())


@lru_cache(maxsize=1)
def terminals() -> Terminals:
    """The grammar's terminals, read from its file; from Lark where that reading gives up."""
    terminals = read_terminals(grammar_text())
    if terminals is None:
        from .rule_grammar import lark_terminals
        terminals = lark_terminals()
    return terminals


class _Reader:
    """Reads the statements in the grammar's order, one line each; gives up on anything else."""

    def __init__(self, patterns: _Patterns, text: str, rules_as_written: bool = False):
        self.p, self.rules_as_written = patterns, rules_as_written
        self.lines = text.split("\n")[:-1]  # the text ends with a newline
        self.index = 0  # of the next line to read
        self.conditions: dict[str, tuple] = {}  # a condition's text: rules repeat conditions often
        self.absents: dict[str, tuple] = {"missing": doc.absent(1.0, None)}  # by text: (if_missing, if_unknown)
        self.names: dict[str, str] = {}  # a name as written: its value
        self.labels: dict[str, str] = {}  # a class label as written (an outcome): its value
        self.key_values: dict[str, list] = {}  # a key's places as written: its values (shared: nothing changes them)
        self.place_values = {"missing": None, "true": 0, "false": 1}  # a key's place as written: its value (0: child 0)

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
        return _numbers_in(text)

    @staticmethod
    def number(text: str | None) -> float | None:
        return None if text is None else doc.number(text)

    # -- the document --------------------------------------------------------------------------
    def document(self) -> dict:
        m = self.next(self.p.format)
        doc.format_version(m.group("version"), self.line, self.column(m, "version"))
        features = self.features()
        target, numbers, combine = self.target(), self.numbers(), self.combine()
        keysets = []
        while m := self.next(self.p.keyset, optional=True):
            keysets.append(doc.keyset(self.whole(m.group("number")), self.line, self.keys(m.group("keys"))))
        trees = [self.tree()]
        while self.at(self.p.tree):
            trees.append(self.tree())
        if any(not self.p.blank.fullmatch(line) for line in self.lines[self.index:]):
            raise _GiveUp
        return doc.document(features, target, numbers, combine, trees, keysets)

    def keys(self, text: str) -> list[list]:
        """The keys of a keys line: ``(place, ...), ...``, each place a quoted category, missing, true or false."""
        if not self.p.keys.fullmatch(text):
            raise _GiveUp
        return [self.key(places) for places in map(_first_group, self.p.key.finditer(text))]

    def key(self, places: str) -> list:
        """A key's values from its places as written (the keys lines of a model repeat many keys: read once)."""
        key = self.key_values.get(places)
        if key is None:
            values = self.place_values
            key = self.key_values[places] = [values[place] if place in values else
                                              values.setdefault(place, doc.string(place))
                                              for place in map(_whole_match, self.p.key_place.finditer(places))]
        return key

    def features(self) -> list[dict]:
        self.next(self.p.features)
        features = []
        while m := self.next(self.p.feature, optional=True):
            name, categories, low = self.name(m.group("name")), m.group("categories"), m.group("low")
            if categories is not None:
                features.append(doc.nominal_feature(name, self.strings(categories), m.group("codes")))
            else:
                interval = None if low is None else [doc.number(low), doc.number(m.group("high"))]
                features.append(doc.numeric_feature(name, interval))
        return features

    def target(self) -> dict:
        m = self.next(self.p.target)
        name = self.name(m.group("name"))
        classes = m.group("classes")
        return doc.regression_target(name) if classes is None else doc.classification_target(name, self.strings(classes))

    def numbers(self) -> dict:
        m = self.next(self.p.numbers)
        return doc.numbers(m.group("cast"), self.number(m.group("tolerance")), m.group("strict") is not None,
                           self.number(m.group("zero_band")))

    def combine(self) -> dict:
        m = self.next(self.p.combine)
        kind = "single" if m.group("single") else "average" if m.group("average") else "sum"
        init = None if kind != "sum" else self.number_list(m.group("init"))
        return doc.combine(kind, m.group("link"), init, self.number(m.group("scale")), m.group("added_last") is not None,
                           self.number(m.group("divisor")), self.number(m.group("link_scale")), m.group("precision"),
                           m.group("decide"))

    def tree(self) -> dict:
        m = self.next(self.p.tree)
        line, tree_number = self.line, self.whole(m.group("number"))
        output = None if m.group("output") is None else self.whole(m.group("output"))
        weight = self.number(m.group("weight"))
        self.next(self.p.rules)
        rules = self.written_rules() if self.rules_as_written else []
        while m := self.next(self.p.rule, optional=True):
            number, conditions, outcome = m.group("number", "conditions", "outcome")
            rules.append(doc.rule(self.line, self.whole(number), self.conditions_of(conditions), self.outcome(outcome)))
        default = self.outcome(self.next(self.p.default).group("outcome"))
        self.next(self.p.nodes)
        nodes = [self.node(self.next(self.p.node), self.line)]
        nodes += self.more_nodes()
        return doc.tree(line, tree_number, output, weight, rules, nodes, default)

    def written_rules(self) -> list[str]:
        """The rule lines that follow, as the writer indents them."""
        start, lines = self.index, self.lines
        while self.index < len(lines) and lines[self.index].startswith("  rule "):
            self.index += 1
        return lines[start:self.index]

    def outcome(self, text: str):
        if text[0] == "[":  # the values of a boosted tree that adds to every output
            return self.number_list(text)
        if text[0] != '"':
            return doc.number(text)
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
        # A string may hold " and ": read the conditions one after the other, each where the last ended (a
        # search for the next, over a hostile line of 100,000 parentheses, took time quadratic in its length: 38 s)
        conditions = []
        position = 0
        while position < len(text):
            m = self.p.condition.match(text, position)
            if m is None:
                raise _GiveUp
            conditions.append(self.condition(m.group(), m))
            position = m.end()
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
        if m.group("tuple"):
            return doc.tuple_condition(self.tuple_test(m.group("tuple")), NOT_TUPLE if m.group("negated") else TUPLE,
                                       self.whole(m.group("tuple_keys")))
        if m.group("is_absent"):
            return doc.is_absent(self.name(m.group("is_absent")), self.factors(m.group("is_factors")))
        if m.group("at_most"):
            test = doc.at_most(self.name(m.group("at_most")), doc.number(m.group("high")))
        elif m.group("above"):
            test = doc.above(self.name(m.group("above")), doc.number(m.group("low")))
        elif m.group("between"):
            test = doc.between(doc.number(m.group("from")), self.name(m.group("between")), doc.number(m.group("to")))
        elif m.group("equals"):
            test = doc.one_of(self.name(m.group("equals")), (doc.string(m.group("value")),))
        else:
            test = doc.one_of(self.name(m.group("one_of")), self.strings(m.group("values")))
        if not m.group("open"):
            return test
        return doc.or_absent(test, self.factors(m.group("or_factors")))

    def factors(self, text: str) -> tuple:
        """(if_missing, if_unknown) of what a condition says of missing values and unknown categories."""
        factors = self.absents.get(text)
        if factors is None:
            m = self.p.absent.fullmatch(text)
            missing, unknown = self.number(m.group("missing")), self.number(m.group("unknown"))
            if m.group("only_unknown"):
                factors = doc.absent(0.0, doc.factor(self.number(m.group("only"))))
            elif m.group("not_unknown"):
                factors = doc.absent(doc.factor(missing), 0.0)
            elif m.group("or_unknown"):
                factors = doc.absent(doc.factor(missing), doc.factor(unknown))
            else:
                factors = doc.absent(doc.factor(missing), None)
            self.absents[text] = factors
        return factors

    # -- nodes ------------------------------------------------------------------------------
    NODE_PARTS = ("number", "value", "label_value", "n", "counts", "leaf", "threshold_split", "threshold", "left", "right",
                  "subset_split", "subset", "in_left", "in_right", "multiway_split", "branches",
                  "stop", "child", "weights", "unknown", "places")

    def node(self, m: re.Match, line: int) -> dict:
        """The node of a node statement (``m``) on line ``line``. A big text's lines are mostly these: the common
        parts are read inline, not by a call each (a leaf, a split at a threshold: 90 -> 60 ms at 9,000 leaves)."""
        (number, value, label_value, n, counts, leaf, threshold_split, threshold, left, right, subset_split, subset,
         in_left, in_right, multiway_split, branches, stop, child, weights, unknown,
         places) = m.group(*self.NODE_PARTS)  # one call: fast
        whole = self.whole
        value = _numbers_in(value)
        counts = None if counts is None else _numbers_in(counts)
        label_value = None if label_value is None else _numbers_in(label_value)
        number, column, n = whole(number), m.start("number") + 1, doc.number(n)
        if leaf:
            return doc.node(number, line, column, value, n, counts, label_value=label_value)
        if threshold_split:
            split = doc.threshold_split(self.name(threshold_split), doc.number(threshold))
            children = [whole(left), whole(right)]
        elif subset_split:
            split = doc.subset_split(self.name(subset_split), self.strings(subset))
            children = [whole(in_left), whole(in_right)]
        elif places is not None:
            split = doc.tuple_split(self.tuple_test(places), whole(m.group("keys")))
            children = [whole(m.group("t_left")), whole(m.group("t_right"))]
        else:
            pairs = list(self.p.branch.finditer(branches))
            split = doc.multiway_split(self.name(multiway_split), [doc.string(b.group("value")) for b in pairs])
            children = [whole(b.group("child")) for b in pairs]
        if stop:
            route = doc.route_stop()
        elif child:
            route = doc.route_child(whole(child))
        else:
            route = doc.route_weights(_numbers_in(weights))
        unknown = None if unknown is None else whole(unknown)
        return doc.node(number, line, column, value, n, counts, split, children, route, unknown, label_value)

    def more_nodes(self):
        """The node statements that follow, as :meth:`next` would read them one by one (blank lines and comments
        between them skipped, the index left at the first other statement), in a loop of its own: most of a big
        text's lines."""
        lines, node, blank, index = self.lines, self.p.node.fullmatch, self.p.blank.fullmatch, self.index
        while index < len(lines):
            m = node(lines[index])
            index += 1
            if m is not None:
                yield self.node(m, index)  # (the index past its line: its line number)
            elif blank(lines[index - 1]) is None:
                index -= 1
                break
        self.index = index

    def tuple_test(self, text: str) -> tuple:
        """The places of a test of categories combined: the features, then the parts, each whole."""
        places, covered = [], 0
        for m in self.p.place.finditer(text):
            covered += len(m.group())
            feature = m.group("feature")
            if feature is not None:
                if len(places) > sum(isinstance(place, str) for place in places):  # a feature after a part
                    raise _GiveUp
                places.append(self.name(feature))
                continue
            if m.group("at_most"):
                part = doc.at_most(self.name(m.group("at_most")), doc.number(m.group("high")))
            elif m.group("equals"):
                part = doc.one_of(self.name(m.group("equals")), (doc.string(m.group("value")),))
            else:
                part = doc.one_of(self.name(m.group("one_of")), self.strings(m.group("values")))
            places.append(doc.or_absent(part, self.factors(m.group("or_factors"))) if m.group("open") else part)
        if covered != len(text) or not places or not isinstance(places[0], str):
            raise _GiveUp
        return doc.tuple_test(places)
