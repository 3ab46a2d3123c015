"""The document that reading rule text builds, whichever reader reads it.

Two readers build it: the Lark grammar's transformer (rule_text.py, the authority on what rule text
is) and the fast reader of the writer's own layout (rule_lines.py). Both build every piece with the
functions here, so that the same text gives the same document, down to the line numbers.

A document is a dict: ``features``, ``target``, ``numbers``, ``combine`` (as in the JSON model) and
``trees``, each with its written ``rules`` (checked later against the rules its nodes lower to) and
its ``nodes`` (features still by name; ``line`` says where each was written).
"""
from __future__ import annotations

import json
import math

from ..errors import TreegenError
from ..lower import INTERVAL, MISSING, SET

FORMAT_VERSION = 1
MAX_DIGITS = 18  # a whole number in rule text (an id, a count) never needs more; Python refuses over 4300


def whole(text: str, line: int, column: int) -> int:
    """An INT token's value."""
    if len(text) > MAX_DIGITS:
        raise TreegenError(f"{text[:MAX_DIGITS]}... has {len(text)} digits; a whole number here has at most "
                           f"{MAX_DIGITS}", line=line, column=column)
    return int(text)


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

def numeric_feature(feature: str) -> dict:
    return {"name": feature, "kind": "numeric"}


def nominal_feature(feature: str, categories: list) -> dict:
    return {"name": feature, "kind": "nominal", "categories": categories}


def classification_target(target: str, classes: list) -> dict:
    return {"name": target, "kind": "classification", "classes": classes}


def regression_target(target: str) -> dict:
    return {"name": target, "kind": "regression"}


def numbers(cast: str, tolerance: float | None) -> dict:
    return {"cast": cast, "tolerance": tolerance or 0.0}


def combine(kind: str, link: str | None = None, init: list | None = None, scale: float | None = None) -> dict:
    if kind == "single":
        return {"kind": kind}
    if kind == "average":
        return {"kind": kind, "link": link}
    return {"kind": kind, "init": init, "scale": scale, "link": link}


# -- rules: conditions as (feature name, kind, low, high, values, if_missing) -----------------------

def at_most(feature: str, threshold: float) -> tuple:
    return (feature, INTERVAL, -math.inf, threshold, (), 0.0)


def above(feature: str, threshold: float) -> tuple:
    return (feature, INTERVAL, threshold, math.inf, (), 0.0)


def between(low: float, feature: str, high: float) -> tuple:
    return (feature, INTERVAL, low, high, (), 0.0)


def one_of(feature: str, values) -> tuple:
    return (feature, SET, -math.inf, math.inf, tuple(values), 0.0)


def is_missing(feature: str, weight: float = 1.0) -> tuple:
    return (feature, MISSING, -math.inf, math.inf, (), weight)


def or_missing(test: tuple, weight: float = 1.0) -> tuple:
    return test[:5] + (weight,)


def rule(line: int, number: int, conditions: tuple, outcome) -> dict:
    return {"line": line, "number": number, "conditions": conditions, "outcome": outcome}


# -- nodes ------------------------------------------------------------------------------------

def route_stop() -> dict:
    return {"kind": "stop"}


def route_child(child: int) -> dict:
    return {"kind": "child", "child_id": child}


def route_weights(weights: list) -> dict:
    return {"kind": "fraction", "weights": weights}


def threshold_split(feature: str, threshold: float) -> dict:
    return {"feature": feature, "op": "<=", "threshold": threshold}


def subset_split(feature: str, values: list) -> dict:
    return {"feature": feature, "op": "in", "values": values}


def multiway_split(feature: str, values: list) -> dict:
    return {"feature": feature, "op": "==", "values": values}


def node(number: int, line: int, column: int, value: list, n: float, counts: list | None,
         split: dict | None = None, children: list | None = None, route: dict | None = None) -> dict:
    """A node; a route to a child names the child's id, which must be one of the node's children."""
    doc = {"id": number, "line": line, "value": value, "n": n}
    if counts is not None:
        doc["counts"] = counts
    if split is not None:
        doc["split"], doc["children"] = split, children
        if route["kind"] == "child":
            if route["child_id"] not in children:
                raise TreegenError(f"node {number}: missing values go to node {route['child_id']}, "
                                   "which is not one of its children", line=line, column=column)
            route = {"kind": "child", "child": children.index(route["child_id"])}
        split["missing"] = route
    return doc


def tree(line: int, output: int | None, rules: list, nodes: list) -> dict:
    return {"output": output, "rules": rules, "nodes": nodes, "line": line}


def document(features: list, target: dict, numbers_doc: dict, combine_doc: dict, trees: list) -> dict:
    return {"features": features, "target": target, "numbers": numbers_doc, "combine": combine_doc,
            "trees": trees}
