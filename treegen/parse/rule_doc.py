"""The document that reading rule text builds, whichever reader reads it.

Two readers build it: the Lark grammar's transformer (rule_grammar.py, the authority on what rule text
is) and the fast reader of the writer's own layout (rule_lines.py). Both build every piece with the
functions here, so that the same text gives the same document, down to the line numbers.

A document is a dict: ``features``, ``target``, ``numbers``, ``combine`` (as in the JSON model) and
``trees``, each with its written ``rules`` (checked later against the rules its nodes lower to) and
its ``nodes`` (features still by name; ``line`` says where each was written).
"""
from __future__ import annotations

import json
import math
import sys

from ..errors import TreegenError
from ..lower import INTERVAL, MISSING, SET, TUPLE

FORMAT_VERSION = 1
MAX_DIGITS = 18  # a whole number in rule text (an id, a count) never needs more; Python refuses over 4300


def whole(text: str, line: int, column: int) -> int:
    """An INT token's value."""
    if len(text) > MAX_DIGITS:
        raise TreegenError(f"{text[:MAX_DIGITS]}... has {len(text)} digits; a whole number here has at most "
                           f"{MAX_DIGITS}", line=line, column=column)
    return int(text)


def number(text: str, line: int | None = None, column: int | None = None) -> float:
    """A NUMBER token's value. One beyond the largest double (1e400) is refused: float() reads it as infinite
    without a word, and the writer writes an infinite number (a threshold may be one) as inf."""
    value = float(text)
    if value in _INFINITIES and text.lstrip("+-") != "inf":
        raise TreegenError(f"{text} is beyond the largest double ({sys.float_info.max!r}); an infinite number is "
                           f"written {'-' if value < 0 else ''}inf", line=line, column=column)
    return value


def numbers_of(texts: list[str]) -> list[float]:
    """NUMBER tokens' values (:func:`number`), at C speed where none is infinite."""
    values = list(map(float, texts))
    if math.inf in values or -math.inf in values:
        return [number(text) for text in texts]
    return values


_INFINITIES = (math.inf, -math.inf)


def string(text: str) -> str:
    """A STRING token's value: the grammar's STRING is exactly a JSON string that json reads."""
    return json.loads(text)


def name(text: str) -> str:
    """A name: a bare word, or a quoted string."""
    return json.loads(text) if text[:1] == '"' else str(text)  # str: a lark Token is a str too


def format_version(text: str, line: int, column: int) -> None:
    version = whole(text, line, column)
    if version != FORMAT_VERSION:
        raise TreegenError(f"unsupported rules format {version}; this treegen reads format {FORMAT_VERSION}",
                           line=line, column=column)


# -- header ------------------------------------------------------------------------------------

def numeric_feature(feature: str, missing_interval: list | None = None) -> dict:
    doc = {"name": feature, "kind": "numeric"}
    if missing_interval is not None:
        doc["missing_interval"] = missing_interval
    return doc


def nominal_feature(feature: str, categories: list, codes: str | None = None) -> dict:
    doc = {"name": feature, "kind": "nominal", "categories": categories}
    if codes is not None:
        doc["codes"] = codes
    return doc


def is_feature(value) -> bool:
    """Whether ``value`` is a feature's document (the target's has a kind of its own)."""
    return isinstance(value, dict) and value.get("kind") in ("numeric", "nominal") and "name" in value


def classification_target(target: str, classes: list) -> dict:
    return {"name": target, "kind": "classification", "classes": classes}


def regression_target(target: str) -> dict:
    return {"name": target, "kind": "regression"}


def numbers(cast: str, tolerance: float | None, strict: bool = False, zero_band: float | None = None) -> dict:
    return {"cast": cast, "tolerance": tolerance or 0.0, "strict": strict, "zero_band": zero_band or 0.0}


def combine(kind: str, link: str | None = None, init: list | None = None, scale: float | None = None,
            init_last: bool = False, divisor: float | None = None, link_scale: float | None = None,
            precision: str | None = None, decide: str | None = None) -> dict:
    """The combine line's fields, those written only (the JSON reader gives the others their defaults)."""
    fields = {"kind": kind, "init": init, "init_last": init_last or None, "scale": scale, "divisor": divisor,
              "link": link, "link_scale": link_scale, "precision": precision, "decide": decide}
    return {key: value for key, value in fields.items() if value is not None}


# -- rules: conditions as (feature name, kind, low, high, values, if_missing, if_unknown) ----------
# if_unknown is None where an unknown category counts as missing (the factor is if_missing's).

def at_most(feature: str, threshold: float) -> tuple:
    return (feature, INTERVAL, -math.inf, threshold, (), 0.0, None)


def above(feature: str, threshold: float) -> tuple:
    return (feature, INTERVAL, threshold, math.inf, (), 0.0, None)


def between(low: float, feature: str, high: float) -> tuple:
    return (feature, INTERVAL, low, high, (), 0.0, None)


def one_of(feature: str, values) -> tuple:
    return (feature, SET, -math.inf, math.inf, tuple(values), 0.0, None)


def factor(weight: float | None) -> float:
    """The factor of a missing value or an unknown category that a condition names: 1.0 unless a weight
    is written."""
    return 1.0 if weight is None else weight


def absent(if_missing: float, if_unknown: float | None) -> tuple:
    """(if_missing, if_unknown) of a condition, if_unknown None where it is if_missing's."""
    return if_missing, unknown_apart(if_missing, if_unknown)


def unknown_apart(if_missing: float, if_unknown: float | None) -> float | None:
    """An unknown category's factor where it differs from a missing value's, else None."""
    return None if if_unknown == if_missing else if_unknown


def is_absent(feature: str, factors: tuple = (1.0, None)) -> tuple:
    return (feature, MISSING, -math.inf, math.inf, ()) + factors


def or_absent(test: tuple, factors: tuple = (1.0, None)) -> tuple:
    return test[:5] + factors


def tuple_test(places) -> tuple:
    """``(features..., parts...)`` of a test of categories combined: the names, then the parts' conditions."""
    names = tuple(place for place in places if isinstance(place, str))
    return names, tuple(places[len(names):])


def tuple_condition(test: tuple, kind: str, keys: int) -> tuple:
    """A rule's test of categories combined (kind TUPLE, or NOT_TUPLE), ``keys`` the number of its keys line."""
    return (test[0][0], kind, -math.inf, math.inf, (*test, keys), 0.0, None)


def rule(line: int, number: int, conditions: tuple, outcome) -> dict:
    return {"line": line, "number": number, "conditions": conditions, "outcome": outcome}


# -- nodes ------------------------------------------------------------------------------------

def route_stop() -> dict:
    return {"kind": "stop"}


def route_child(child: int) -> dict:
    return {"kind": "child", "child_id": child}


def route_weights(weights: list) -> dict:
    return {"kind": "fraction", "weights": weights}


def child_position(number: int, line: int, column: int, children: list, child: int, what: str) -> int:
    """The position among a node's children of the child with id ``child`` (``what`` goes there)."""
    if child not in children:
        raise TreegenError(f"node {number}: {what} go to node {child}, which is not one of its children",
                           line=line, column=column)
    return children.index(child)


def threshold_split(feature: str, threshold: float) -> dict:
    return {"feature": feature, "op": "<=", "threshold": threshold}


def subset_split(feature: str, values: list) -> dict:
    return {"feature": feature, "op": "in", "values": values}


def multiway_split(feature: str, values: list) -> dict:
    return {"feature": feature, "op": "==", "values": values}


def tuple_split(test: tuple, keys: int) -> dict:
    """A tuple split, its parts still conditions and its keys the number of a keys line (both made a model's by
    :func:`part_split` and the reader, which knows the features and the keys lines)."""
    names, parts = test
    return {"feature": names[0], "op": TUPLE, "features": list(names), "parts": list(parts), "tuples": keys}


def part_split(condition: tuple) -> dict:
    """The split of a tuple split's part, written as a condition whose answer is true (children[0]) or false."""
    feature, kind, low, high, values, if_missing, if_unknown = condition
    if kind == INTERVAL and low == -math.inf:
        split = {"feature": feature, "op": "<=", "threshold": high}
    elif kind == SET:
        split = {"feature": feature, "op": "in", "values": list(values)}
    else:
        raise ValueError(f"a part of a test of categories combined is {feature} <= t, {feature} = \"c\" or "
                         f"{feature} in {{...}}")
    if if_missing not in (0.0, 1.0) or if_unknown not in (None, 0.0, 1.0):
        raise ValueError("a part's missing value and unknown category answer true or false, with no weight")
    split["missing"] = {"kind": "child", "child": 0 if if_missing == 1.0 else 1}
    if if_unknown is not None:
        split["unknown"] = 0 if if_unknown == 1.0 else 1
    return split


def keyset(number: int, line: int, keys: list) -> dict:
    """A keys line: its number, its line and its keys (lists: categories, None for missing, then 0 for true and
    1 for false, the child each answer goes to)."""
    return {"number": number, "line": line, "keys": keys}


def linear(const: float, coeffs, names) -> dict:
    """A linear leaf's model as the JSON model holds it, its terms naming features by name."""
    return {"const": const, "terms": [[name, coeff] for coeff, name in zip(coeffs, names)]}


def linear_outcome(const: float, coeffs, names, plain: float) -> tuple:
    """A rule's outcome that is a linear leaf's sum (``const + coeff * name ... else plain``), comparable."""
    return ("linear", const, tuple(zip(coeffs, names)), plain)


def node(number: int, line: int, column: int, value: list, n: float, counts: list | None,
         split: dict | None = None, children: list | None = None, route: dict | None = None,
         unknown: int | None = None, label_value: list | None = None, linear: dict | None = None) -> dict:
    """A node; a route to a child (of missing values, of unknown categories) names the child's id,
    which must be one of the node's children."""
    doc = {"id": number, "line": line, "value": value, "n": n}
    if label_value is not None:
        doc["label_value"] = label_value
    if counts is not None:
        doc["counts"] = counts
    if linear is not None:
        doc["linear"] = linear
    if split is None and unknown is not None:
        raise TreegenError(f"node {number} is a leaf: it has no child for unknown categories to go to",
                           line=line, column=column)
    if split is not None:
        doc["split"], doc["children"] = split, children
        if route["kind"] == "child":
            route = {"kind": "child", "child": child_position(number, line, column, children, route["child_id"],
                                                              "missing values")}
        split["missing"] = route
        if unknown is not None:
            split["unknown"] = child_position(number, line, column, children, unknown, "unknown categories")
    return doc


def tree(line: int, number: int, output: int | None, weight: float | None, rules: list, nodes: list,
         default) -> dict:
    """A tree's document; ``number``: the one its ``tree`` line says; ``default``: the outcome its ``default:`` line
    says."""
    doc = {"number": number, "output": output, "rules": rules, "nodes": nodes, "line": line, "default": default}
    if weight is not None:
        doc["weight"] = weight
    return doc


def document(features: list, target: dict, numbers_doc: dict, combine_doc: dict, trees: list,
             keysets: list = ()) -> dict:
    """``keys``: each keys line by its number (a number given twice is an error at its second line)."""
    keys: dict[int, dict] = {}
    for keyset_doc in keysets:
        if keys.setdefault(keyset_doc["number"], keyset_doc) is not keyset_doc:
            raise TreegenError(f"keys {keyset_doc['number']} is given twice (first on line "
                               f"{keys[keyset_doc['number']]['line']})", line=keyset_doc["line"])
    return {"features": features, "target": target, "numbers": numbers_doc, "combine": combine_doc,
            "trees": trees, "keys": keys}
