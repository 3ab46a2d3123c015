"""Reading rule text back into a model (grammar: rule_text.lark beside this file).

The ``nodes`` section rebuilds each tree exactly; the ``rules`` section, written for people, is then
checked against the rules that the rebuilt tree lowers to, so an edit that would make the two
disagree is reported at its line instead of being silently ignored.
"""
from __future__ import annotations

import json
import math
import os
import re
from functools import lru_cache

from lark import Lark, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ..errors import TreegenError, read_text
from ..lower import Condition, lower
from ..model import Model, argmax
from ..modelio import FORMAT, VERSION, model_from_dict

FORMAT_VERSION = 1


@lru_cache(maxsize=1)
def parser() -> Lark:
    """LALR with the transformer applied while parsing: no parse tree is built (big models parse fast)."""
    with open(os.path.join(os.path.dirname(__file__), "rule_text.lark"), encoding="utf-8") as f:
        return Lark(f.read(), parser="lalr", maybe_placeholders=True, transformer=RulesToModel())


@v_args(inline=True)
class RulesToModel(Transformer):
    """Turns the parse tree into the model's JSON document (checked by modelio) and parsed rules.
    Method names are the grammar's rule names."""

    # -- atoms -----------------------------------------------------------------------------
    def name(self, token):
        return json.loads(token) if token.type == "STRING" else str(token)

    def string(self, token):
        return json.loads(token)

    def string_set(self, *tokens):
        return [json.loads(t) for t in tokens if t is not None]

    def number(self, token):
        return float(token)

    def number_list(self, *numbers):
        return [n for n in numbers if n is not None]

    def format(self, version):
        if int(version) != FORMAT_VERSION:
            raise TreegenError(f"unsupported rules format {version}; this treegen reads format {FORMAT_VERSION}",
                               line=version.line, column=version.column)
        return None

    # -- header ----------------------------------------------------------------------------
    def numeric_feature(self, name):
        return {"name": name, "kind": "numeric"}

    def nominal_feature(self, name, categories):
        return {"name": name, "kind": "nominal", "categories": categories}

    def features(self, *features):
        return list(features)

    def classification_target(self, name, classes):
        return {"name": name, "kind": "classification", "classes": classes}

    def regression_target(self, name):
        return {"name": name, "kind": "regression"}

    def numbers(self, cast, tolerance):
        return {"cast": str(cast), "tolerance": tolerance or 0.0}

    def single(self):
        return {"kind": "single"}

    def average(self, link):
        return {"kind": "average", "link": str(link)}

    def sum(self, init, scale, link):
        return {"kind": "sum", "init": init, "scale": scale, "link": str(link)}

    # -- rules (kept as written, checked later) -----------------------------------------------
    def at_most(self, x, t):
        return ("interval", x, -math.inf, t, ())

    def above(self, x, t):
        return ("interval", x, t, math.inf, ())

    def between(self, low, x, high):
        return ("interval", x, low, high, ())

    def equals(self, x, value):
        return ("set", x, -math.inf, math.inf, (value,))

    def one_of(self, x, values):
        return ("set", x, -math.inf, math.inf, tuple(values))

    def is_missing(self, x):
        return ("missing", x, -math.inf, math.inf, (), 1.0)

    def is_missing_weighted(self, x, weight):
        return ("missing", x, -math.inf, math.inf, (), weight)

    def or_missing(self, test):
        return test + (1.0,)

    def or_weighted(self, test, weight):
        return test + (weight,)

    def rule(self, number, *parts):
        *conditions, outcome = parts
        return {"line": number.line, "number": int(number), "conditions": conditions, "outcome": outcome}

    def always_rule(self, number, outcome):
        return self.rule(number, outcome)

    def default(self, outcome):
        return outcome

    def rules(self, *items):
        return list(items[:-1])

    # -- nodes -----------------------------------------------------------------------------
    def route_stop(self):
        return {"kind": "stop"}

    def route_child(self, child):
        return {"kind": "child", "child_id": int(child)}

    def route_weights(self, weights):
        return {"kind": "fraction", "weights": weights}

    def leaf(self):
        return None

    def threshold_split(self, x, t, left, right, route):
        return {"feature": x, "op": "<=", "threshold": t}, [int(left), int(right)], route

    def subset_split(self, x, values, left, right, route):
        return {"feature": x, "op": "in", "values": values}, [int(left), int(right)], route

    def branch(self, value, child):
        return value, int(child)

    def multiway_split(self, x, *parts):
        *branches, route = parts
        return ({"feature": x, "op": "==", "values": [v for v, _ in branches]}, [c for _, c in branches], route)

    def node(self, number, body, value, n, counts):
        node = {"id": int(number), "line": number.line, "value": value, "n": n}
        if counts is not None:
            node["counts"] = counts
        if body is not None:
            split, children, route = body
            node["split"], node["children"] = split, children
            if route["kind"] == "child":
                if route["child_id"] not in children:
                    raise TreegenError(f"node {number}: missing values go to node {route['child_id']}, "
                                       "which is not one of its children", line=number.line, column=number.column)
                route = {"kind": "child", "child": children.index(route.pop("child_id"))}
            split["missing"] = route
        return node

    def nodes(self, *nodes):
        return list(nodes)

    def tree(self, number, output, rules, nodes):
        return {"output": None if output is None else int(output), "rules": rules, "nodes": nodes,
                "line": number.line}

    def start(self, _format, features, target, numbers, combine, *trees):
        return {"features": features, "target": target, "numbers": numbers, "combine": combine,
                "trees": list(trees)}


def parse(text: str, source: str = "<rules>") -> Model:
    """Read rule text into a model that predicts exactly what the written model predicted."""
    if not text.endswith("\n"):  # every statement ends a line, the last one too: an editor may not add it
        text += "\n"
    try:
        doc = parser().parse(text)
    except UnexpectedInput as err:
        if isinstance(err, UnexpectedToken) and err.token.type == "$END":  # lark places it at the last token
            raise TreegenError(_describe(err, text), source, text.count("\n")) from None
        raise TreegenError(_describe(err, text), source, err.line, err.column) from None
    except TreegenError as err:
        raise err.at(source) from None
    model = _build(doc, source)
    _check_rules(model, doc, source)
    return model


def _describe(err: UnexpectedInput, text: str) -> str:
    if isinstance(err, UnexpectedCharacters):
        return f"unexpected character {text[err.pos_in_stream]!r}"
    if isinstance(err, UnexpectedToken):
        found = TERMINAL_TEXT[err.token.type] if err.token.type in ("$END", "_NL") else repr(str(err.token))
        expected = sorted(_terminal_text(name) for name in err.expected)[:8]
        return f"unexpected {found}; expected one of: {', '.join(expected)}"
    return "malformed rule text"


TERMINAL_TEXT = {"_NL": "end of line", "$END": "end of file", "INT": "a whole number", "NUMBER": "a number",
                 "STRING": "a quoted string", "WORD": "a name", "CAST": "float64 or float32",
                 "LINK": "identity, sigmoid or softmax"}  # the grammar's names, as a user reads them


def _terminal_text(name: str) -> str:
    """'features' for a keyword, a description for a pattern (never a grammar name such as _NL)."""
    if name in TERMINAL_TEXT:
        return TERMINAL_TEXT[name]
    try:
        pattern = parser().get_terminal(name).pattern
    except KeyError:
        return name.strip("_").lower()
    return repr(pattern.value) if pattern.type == "str" else name.strip("_").lower()


def _build(doc: dict, source: str) -> Model:
    names = {f["name"]: i for i, f in enumerate(doc["features"])}
    trees = []
    for tree in doc["trees"]:
        nodes = sorted(tree["nodes"], key=lambda node: node["id"])
        for position, node in enumerate(nodes):
            if node["id"] != position:
                raise TreegenError(f"node ids must count 0, 1, 2, ... (expected node {position})", source, node["line"])
            if "split" in node:
                feature = node["split"]["feature"]
                if feature not in names:
                    raise TreegenError(f"unknown feature {feature!r}", source, node["line"])
                node["split"]["feature"] = names[feature]
        trees.append({"output": tree["output"], "nodes": nodes})
    document = {"format": FORMAT, "version": VERSION, "features": doc["features"], "target": doc["target"],
                "numeric": doc["numbers"], "combine": doc["combine"], "trees": trees}
    try:
        return model_from_dict(document, source)
    except TreegenError as err:
        line = _line_of(err.message, doc)
        raise TreegenError(err.message, source, line) from None


def _line_of(message: str, doc: dict) -> int | None:
    match = re.match(r"trees\[(\d+)\](?:\.nodes\[(\d+)\])?", message)
    if not match:
        return None
    tree = doc["trees"][int(match.group(1))]
    return tree["nodes"][int(match.group(2))]["line"] if match.group(2) else tree["line"]


def _check_rules(model: Model, doc: dict, source: str) -> None:
    names = {f.name: i for i, f in enumerate(model.features)}
    for tree_doc, tree_rules in zip(doc["trees"], lower(model)):
        written, expected = tree_doc["rules"], tree_rules.rules
        for rule_doc, rule in zip(written, expected):
            conditions = tuple(_condition(c, names, rule_doc, source) for c in rule_doc["conditions"])
            outcome = _outcome(model, rule.value)
            if conditions != rule.conditions or rule_doc["outcome"] != outcome:
                raise TreegenError(f"rule {rule_doc['number']} does not match the nodes section "
                                   "(the rules are derived from the nodes: edit the nodes, or export again)",
                                   source, rule_doc["line"])
        if len(written) != len(expected):
            raise TreegenError(f"the nodes section gives {len(expected)} rules, the text lists {len(written)}",
                               source, tree_doc["line"])


def _condition(parsed: tuple, names: dict, rule_doc: dict, source: str) -> Condition:
    kind, feature, low, high, values, *factor = parsed
    if feature not in names:
        raise TreegenError(f"rule {rule_doc['number']}: unknown feature {feature!r}", source, rule_doc["line"])
    return Condition(names[feature], kind, low, high, values, factor[0] if factor else 0.0)


def _outcome(model: Model, value):
    if model.target.is_classification:
        return model.target.classes[argmax(value)]
    return value[0]


def load(path: str) -> Model:
    return parse(read_text(path, "rules"), path)
