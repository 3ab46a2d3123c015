"""Models as versioned JSON files (schema: docs/model-format.md). Loading a model reads data, never code."""
from __future__ import annotations

import json
import math
import sys
from dataclasses import replace
from functools import partial
from itertools import chain, compress, repeat
from typing import Any

import numpy as np

from .collector import collector_paused
from .errors import TreegenError, counted, did_you_mean, read_text
from .model import (CLASSIFICATION, NOMINAL, NUMERIC, REGRESSION, Codes, Combine, CombineKind, Decision, Feature,
                    Linear, Link, MissingRoute, Model, Node, NodeColumns, NumericSemantics, Op, Precision, Route, Split,
                    UNPASSABLE, Target, Tree, init_problem, label_value_problem, linear_problem, output_problem,
                    sorted_tuples, split_problem, unpassable_threshold)

FORMAT = "treegen-model"
VERSION = 1


# -- writing -------------------------------------------------------------------------------

def model_to_dict(model: Model) -> dict:
    key_sets: dict[frozenset, tuple[int, list]] = {}  # each tuple split's keys, numbered, once: trees share them
    trees = [_tree_dict(tree, key_sets) for tree in model.trees]
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "features": [_feature_dict(f) for f in model.features],
        "target": _target_dict(model.target),
        "numeric": _numeric_dict(model.numeric),
        "combine": _combine_dict(model.combine),
        "tuple_keys": [keys for _, keys in key_sets.values()],
        "trees": trees,
        "meta": model.meta,
    }
    if not key_sets:
        del doc["tuple_keys"]
    return doc


# Fields written only when they differ from their defaults: a model that does not use them is
# written as before they existed.
NUMERIC_EXTRAS = {"strict": False, "zero_band": 0.0}
COMBINE_EXTRAS = {"link_scale": 1.0, "precision": Precision.FLOAT64, "divisor": 1.0, "init_last": False,
                  "decide": None}


def _numeric_dict(numeric: NumericSemantics) -> dict:
    out: dict[str, Any] = {"cast": numeric.cast, "tolerance": numeric.tolerance}
    return {**out, **_changed(numeric, NUMERIC_EXTRAS)}


def _combine_dict(combine: Combine) -> dict:
    out: dict[str, Any] = {"kind": combine.kind, "init": list(combine.init), "scale": combine.scale,
                           "link": combine.link}
    return {**out, **_changed(combine, COMBINE_EXTRAS)}


def _changed(obj, defaults: dict) -> dict:
    return {name: getattr(obj, name) for name, default in defaults.items() if getattr(obj, name) != default}


def _tree_dict(tree: Tree, key_sets: dict[frozenset, tuple[int, list]]) -> dict:
    out: dict[str, Any] = {"output": tree.output, "nodes": [_node_dict(n, key_sets) for n in tree.nodes]}
    if tree.weight != 1.0:
        out["weight"] = tree.weight
    return out


def _feature_dict(feature: Feature) -> dict:
    out: dict[str, Any] = {"name": feature.name, "kind": feature.kind}
    if feature.kind == NOMINAL:
        out["categories"] = list(feature.categories)
    if feature.missing_interval is not None:
        out["missing_interval"] = list(feature.missing_interval)
    if feature.codes is not None:
        out["codes"] = feature.codes.value
    return out


def _target_dict(target: Target) -> dict:
    out: dict[str, Any] = {"name": target.name, "kind": target.kind}
    if target.is_classification:
        out["classes"] = list(target.classes)
    return out


def _node_dict(node: Node, key_sets: dict[frozenset, tuple[int, list]]) -> dict:
    out: dict[str, Any] = {"value": list(node.value), "n": node.n}
    if node.label_value:
        out["label_value"] = list(node.label_value)
    if node.counts:
        out["counts"] = list(node.counts)
    if node.linear is not None:
        out["linear"] = {"const": node.linear.const, "terms": [[f, c] for f, c in node.linear.terms]}
    if node.split is not None:
        out["split"] = _split_dict(node.split, key_sets)
        out["children"] = list(node.children)
    return out


def _split_dict(s: Split, key_sets: dict[frozenset, tuple[int, list]]) -> dict:
    """A split's fields; a tuple split's keys are the number of their set in ``key_sets`` (added when new)."""
    split: dict[str, Any] = {"feature": s.feature, "op": s.op}
    if s.op == Op.LE:
        split["threshold"] = s.threshold
    elif s.op == Op.TUPLE:
        split["features"] = list(s.features)
        if s.parts:
            split["parts"] = [_split_dict(part, key_sets) for part in s.parts]
        if s.tuples not in key_sets:
            key_sets[s.tuples] = len(key_sets), [list(key) for key in sorted_tuples(s)]
        split["tuples"] = key_sets[s.tuples][0]
    else:
        split["values"] = list(s.values)
    missing: dict[str, Any] = {"kind": s.missing.kind}
    if s.missing.kind == Route.CHILD:
        missing["child"] = s.missing.child
    elif s.missing.kind == Route.FRACTION:
        missing["weights"] = list(s.missing.weights)
    split["missing"] = missing
    if s.unknown is not None:
        split["unknown"] = s.unknown
    return split


@collector_paused()  # a big model's dicts: millions of objects, no cycle
def dumps(model: Model, source: str | None = None) -> str:
    """Deterministic JSON text, indented, each node on a line of its own; floats are written as ``repr``
    writes them, so they read back exact. A node value that is not finite is refused (:func:`check_finite`;
    ``source``: the file the model came from, for the message)."""
    check_finite(model, source)
    doc = model_to_dict(model)
    trees, doc["trees"] = doc["trees"], []
    key_sets = doc.get("tuple_keys")
    if key_sets:
        doc["tuple_keys"] = []
    head = json.dumps(doc, ensure_ascii=False, indent=1, allow_nan=True)
    if key_sets:  # one set a line (json.dumps's indent would write every key and category on a line of its own)
        encode = _one_line_encoder()
        head = head.replace('\n "tuple_keys": []', '\n "tuple_keys": [\n  ' + ",\n  ".join(map(encode, key_sets))
                            + "\n ]", 1)
    return head.replace('\n "trees": []', '\n "trees": ' + _trees_text(trees), 1) + "\n"


def check_finite(model: Model, source: str | None = None, holder: str = "a treegen model file",
                 instead: str = "give the file itself to export, verify or predict") -> None:
    """Refuse a model that the loader would refuse for a number of its nodes: a value that is not finite, a weight
    ``n`` that is not finite and at least 0, a NaN threshold, a number of a linear leaf that is not finite. An
    XGBoost file may hold an infinite leaf, which the targets compute with, and a custom objective's negative
    hessians sum to a negative cover, which no prediction uses (export, verify and predict take that file itself);
    a NaN threshold is a damaged file's. ``holder``: what cannot hold it (rule text too, which is read as the model
    file is); ``instead``: what to do."""
    for t, tree in enumerate(model.trees):
        value, n, threshold = _node_numbers(tree)
        bad = np.flatnonzero(~np.isfinite(value).all(axis=1))
        if len(bad):
            kind = "an infinite value" if np.isinf(value[bad[0]]).any() else "a value that is NaN"
            raise TreegenError(f"node {bad[0]} of tree {t} has {kind}, which {holder} cannot hold; {instead}", source)
        bad = np.flatnonzero(~(np.isfinite(n) & (n >= 0.0)))
        if len(bad):
            raise TreegenError(f"node {bad[0]} of tree {t} has a weight n of {float(n[bad[0]])!r} (its training rows, "
                               f"or the sum of their hessians), which {holder} cannot hold: n is a finite number at "
                               f"least 0; {instead}", source)
        bad = np.flatnonzero(np.isnan(threshold))
        if len(bad):
            raise TreegenError(f"node {bad[0]} of tree {t} splits at a NaN threshold, which no number is at most "
                               f"or below (a damaged file?); {holder} cannot hold it", source)
        linear = next(((i, x) for i, node in enumerate(() if isinstance(tree.nodes, NodeColumns) else tree.nodes)
                       if node.linear is not None
                       for x in (node.linear.const, *(c for _, c in node.linear.terms)) if not math.isfinite(x)), None)
        if linear is not None:
            raise TreegenError(f"node {linear[0]} of tree {t} is a linear leaf with {linear[1]!r} for a number, which "
                               f"{holder} cannot hold; {instead}", source)


def _node_numbers(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A tree's node values (nodes x outputs), weights ``n``, and thresholds of its ``<=`` splits (other nodes' 0)."""
    if isinstance(tree.nodes, NodeColumns):  # (without making its nodes)
        nodes = tree.nodes
        threshold = np.where(nodes.feature >= 0, nodes.threshold, 0.0)
        threshold[list(nodes.values)] = 0.0  # ("in" splits)
        return nodes.value, nodes.n, threshold
    value = np.array([node.value for node in tree.nodes], dtype=np.float64)
    n = np.array([node.n for node in tree.nodes], dtype=np.float64)
    threshold = np.array([node.split.threshold if node.split is not None and node.split.op == Op.LE else 0.0
                          for node in tree.nodes], dtype=np.float64)
    return value, n, threshold


# json's C encoder writes only without indent: indenting every field of the 1,000-tree LightGBM
# model's 511,000 nodes took 14 s, one line a node 3 s
_ONE_LINE = json.JSONEncoder(ensure_ascii=False, allow_nan=True)


def _one_line_encoder():
    """``_ONE_LINE.encode``, with json's C encoder made once: ``encode`` makes it anew for each value,
    which was 1.0 of the 2.4 s of the 511,000 nodes' lines (Python's encoder where there is no C one)."""
    from json import encoder
    if encoder.c_make_encoder is None:
        return _ONE_LINE.encode
    make = encoder.c_make_encoder(None, _ONE_LINE.default, encoder.encode_basestring, None, _ONE_LINE.key_separator,
                                  _ONE_LINE.item_separator, False, False, True)
    return lambda value: "".join(make(value, 0))


def _trees_text(trees: list[dict]) -> str:
    """The trees at the indent ``json.dumps(indent=1)`` gives them, each node on one line."""
    encode = _one_line_encoder()

    def field(key: str, value) -> str:
        if key != "nodes":
            return f"   {encode(key)}: {encode(value)}"
        return '   "nodes": [\n' + ",\n".join("    " + encode(node) for node in value) + "\n   ]"

    def tree_text(tree: dict) -> str:
        return "  {\n" + ",\n".join(field(key, value) for key, value in tree.items()) + "\n  }"
    return "[\n" + ",\n".join(map(tree_text, trees)) + "\n ]"


def save(model: Model, path: str) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.write(dumps(model))


# -- reading -------------------------------------------------------------------------------

class _Reader:
    """Checks one JSON document against the schema, naming the path of whatever is wrong."""

    def __init__(self, source: str):
        self.source = source
        self.key_sets: list[frozenset] = []  # the model's "tuple_keys", which tuple splits name by number

    def fail(self, path: str, message: str):
        raise TreegenError(f"{path}: {message}" if path else message, file=self.source)

    def get(self, obj: dict, key: str, path: str, kind, default=...):
        value = obj.get(key, _ABSENT)
        if type(value) is kind:  # the usual case, JSON's own types (a bool is no int here): 8 reads a node
            return value
        if value is _ABSENT:
            if default is ...:
                self.fail(path, f"missing field {key!r}")
            return default
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            if not -_LARGEST <= value <= _LARGEST:  # float() would raise OverflowError
                self.fail(f"{path}.{key}".lstrip("."), _HUGE_INTEGER)
            value = float(value)
        if not isinstance(value, kind) or (kind in (int, float) and isinstance(value, bool)):
            self.fail(f"{path}.{key}".lstrip("."), f"expected {_kind_name(kind)}, found {type(value).__name__}")
        return value

    def known(self, obj: dict, path: str, fields: frozenset, unlisted: frozenset = frozenset()) -> None:
        """Refuse a field the schema does not have: a misspelt optional field would be read as absent,
        its default silently in force (``"tolerence"`` for ``"tolerance"`` changes predictions)."""
        unknown = next((key for key in obj if key not in fields and key not in unlisted), None)
        if unknown is not None:
            self.fail(path, f"unknown field {unknown!r}; the fields here are {', '.join(sorted(fields))}")

    def strings(self, obj: dict, key: str, path: str) -> tuple[str, ...]:
        values = self.get(obj, key, path, list)
        for i, v in enumerate(values):
            if not isinstance(v, str):
                self.fail(f"{path}.{key}[{i}]", "expected a string")
        return tuple(values)

    def floats(self, obj: dict, key: str, path: str, default=..., finite: bool = True) -> tuple[float, ...]:
        """A list of finite numbers (JSON's NaN and Infinity read, but no prediction can use them); not
        ``finite``: numbers that may be infinite, never NaN."""
        if key not in obj and default is not ...:  # an optional list left out: most nodes' counts
            return tuple(default)
        values = self.get(obj, key, path, list)
        try:  # the usual case, at C speed
            if _finite(values, _NUMBERS):
                return tuple(map(float, values))
        except OverflowError:  # an integer beyond the largest double: named below
            pass
        for i, v in enumerate(values):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                self.fail(f"{path}.{key}[{i}]", "expected a number")
            if isinstance(v, int) and not -_LARGEST <= v <= _LARGEST:
                self.fail(f"{path}.{key}[{i}]", _HUGE_INTEGER)
            if math.isnan(v) or finite and math.isinf(v):
                self.fail(f"{path}.{key}[{i}]", f"expected {'a finite number' if finite else 'a number'}, found {v!r}")
        return tuple(float(v) for v in values)

    def number(self, obj: dict, key: str, path: str, default=..., least: float = -math.inf) -> float:
        """A finite number, at least ``least``."""
        value = self.get(obj, key, path, float, default)
        if not math.isfinite(value) or value < least:
            need = "a finite number" if least == -math.inf else f"a finite number >= {least:g}"
            self.fail(f"{path}.{key}".lstrip("."), f"expected {need}, found {value!r}")
        return value

    def unique(self, names, path: str, what: str) -> None:
        seen = set()
        for i, name in enumerate(names):
            if name in seen:
                self.fail(f"{path}[{i}]", f"duplicate {what} {name!r}")
            seen.add(name)

    def choice(self, obj: dict, key: str, path: str, options, default=...):
        """One of ``options``: names, or a mapping of names to what is returned (an enum's members)."""
        value = self.get(obj, key, path, str, default)
        if value not in options:
            names = [getattr(option, "value", option) for option in options]  # an enum's members: their names
            self.fail(f"{path}.{key}".lstrip("."), f"{value!r} is not one of {', '.join(names)}"
                      + did_you_mean([value], names))
        return options[value] if isinstance(options, dict) else value


_NUMBERS = {int, float}  # JSON's numbers (bool, an int's subclass, is not one)
_INTEGER = {int}  # (a bool is no node id)
_DICT, _LIST = {dict}, {list}
_ABSENT = object()  # a field left out
_LARGEST = sys.float_info.max  # finite numbers lie within it (NaN, infinities and huge integers do not)
_HUGE_INTEGER = "expected a finite number, found an integer beyond the largest double"
_OPS = {op.value: op for op in Op}  # made once: iterating an enum costs microseconds, a node's whole read
_ROUTES = {route.value: route for route in Route}


def _kind_name(kind) -> str:
    return {str: "a string", int: "an integer", float: "a number", list: "a list", dict: "an object",
            bool: "true or false"}.get(kind, str(kind))


@collector_paused()  # a big model's nodes: millions of objects, no cycle
def model_from_dict(doc: Any, source: str = "<model>") -> Model:
    r = _Reader(source)
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        r.fail("", f"not a treegen model (expected \"format\": \"{FORMAT}\")")
    version = doc.get("version")
    if version != VERSION:
        r.fail("version", f"unsupported model version {version!r}; this treegen reads version {VERSION}")
    r.known(doc, "", FIELDS["model"])
    features = tuple(_read_feature(r, f, f"features[{i}]") for i, f in enumerate(r.get(doc, "features", "", list)))
    r.unique([f.name for f in features], "features", "feature name")  # a name is a row's column
    target = _read_target(r, r.get(doc, "target", "", dict))
    numeric_doc = r.get(doc, "numeric", "", dict, {})
    r.known(numeric_doc, "numeric", FIELDS["numeric"])
    numeric = NumericSemantics(r.choice(numeric_doc, "cast", "numeric", ("float64", "float32"), "float64"),
                               r.number(numeric_doc, "tolerance", "numeric", 0.0, least=0.0),
                               r.get(numeric_doc, "strict", "numeric", bool, False),
                               r.number(numeric_doc, "zero_band", "numeric", 0.0, least=0.0))
    combine_doc = r.get(doc, "combine", "", dict, {})
    r.known(combine_doc, "combine", FIELDS["combine"])
    decide = r.get(combine_doc, "decide", "combine", str, None)
    if decide is not None:
        decide = r.choice(combine_doc, "decide", "combine", tuple(Decision))
    combine = Combine(r.choice(combine_doc, "kind", "combine", tuple(CombineKind), CombineKind.SINGLE),
                      r.floats(combine_doc, "init", "combine", []),
                      r.number(combine_doc, "scale", "combine", 1.0),
                      r.choice(combine_doc, "link", "combine", tuple(Link), Link.IDENTITY),
                      r.number(combine_doc, "link_scale", "combine", 1.0),
                      r.choice(combine_doc, "precision", "combine", tuple(Precision), Precision.FLOAT64),
                      r.number(combine_doc, "divisor", "combine", 1.0),
                      r.get(combine_doc, "init_last", "combine", bool, False),
                      decide)
    if combine.divisor == 0.0:
        r.fail("combine.divisor", "the divisor cannot be 0")
    problem = init_problem(target, combine)
    if problem:
        r.fail("combine.init", problem)
    r.key_sets = [_read_keys(r, keys, f"tuple_keys[{i}]") for i, keys in enumerate(r.get(doc, "tuple_keys", "", list,
                                                                                           []))]
    trees_doc = r.get(doc, "trees", "", list)
    if not trees_doc:
        r.fail("trees", "a model needs at least one tree")
    trees = [_read_tree(r, t, f"trees[{i}]", features, target, combine) for i, t in enumerate(trees_doc)]
    if combine.kind == CombineKind.SINGLE and len(trees) != 1:
        r.fail("combine.kind", f"'single' takes one tree, found {len(trees)}")
    model = Model(features, target, trees, combine, numeric, r.get(doc, "meta", "", dict, {}))
    _check_linear(r, model)
    place = unpassable_threshold(model)
    if place:
        r.fail(f"trees[{place[0]}].nodes[{place[1]}].split.threshold", UNPASSABLE)
    problem = label_value_problem(model)
    if problem:
        r.fail(_first_label_value(model), problem)
    return model


def _first_label_value(model: Model) -> str:
    """The JSON path of the first node with a label value (what a refusal of label values is about)."""
    return next(f"trees[{t}].nodes[{n}].label_value" for t, tree in enumerate(model.trees)
                for n, node in enumerate(tree.nodes) if node.label_value)


def _read_feature(r: _Reader, doc: Any, path: str) -> Feature:
    if not isinstance(doc, dict):
        r.fail(path, "expected an object")
    r.known(doc, path, FIELDS["feature"])
    kind = r.choice(doc, "kind", path, (NUMERIC, NOMINAL))
    categories = r.strings(doc, "categories", path) if kind == NOMINAL else ()
    r.unique(categories, f"{path}.categories", "category")
    # an end may be infinite: XGBoost's missing=inf makes every double whose float32 is inf missing
    interval = r.floats(doc, "missing_interval", path, None, finite=False) if "missing_interval" in doc else None
    if interval is not None and (kind != NUMERIC or len(interval) != 2 or not interval[0] <= interval[1]):
        r.fail(f"{path}.missing_interval", "a numeric feature's missing interval is [low, high] with low <= high")
    codes = r.choice(doc, "codes", path, {c.value: c for c in Codes}, None) if "codes" in doc else None
    if codes is not None and kind != NOMINAL:
        r.fail(f"{path}.codes", "only a nominal feature reads numbers as category codes")
    return Feature(r.get(doc, "name", path, str), kind, categories, interval, codes)


def _read_target(r: _Reader, doc: dict) -> Target:
    r.known(doc, "target", FIELDS["target"])
    kind = r.choice(doc, "kind", "target", (CLASSIFICATION, REGRESSION))
    classes = r.strings(doc, "classes", "target") if kind == CLASSIFICATION else ()
    r.unique(classes, "target.classes", "class label")
    if kind == CLASSIFICATION and not classes:
        r.fail("target.classes", "a classification target needs at least one class")
    return Target(r.get(doc, "name", "target", str), kind, classes)


def _read_tree(r: _Reader, doc: Any, path: str, features, target: Target, combine: Combine) -> Tree:
    if not isinstance(doc, dict):
        r.fail(path, "expected an object")
    r.known(doc, path, FIELDS["tree"])
    output = doc.get("output")
    if output is not None and type(output) is not int:  # (true is no output number)
        r.fail(f"{path}.output", "expected an integer or null")
    problem = output_problem(combine, output)
    if problem:
        r.fail(f"{path}.output", problem)
    nodes_doc = r.get(doc, "nodes", path, list)
    if not nodes_doc:
        r.fail(f"{path}.nodes", "a tree needs at least one node")
    # a tree adds one number to its output, or one to each raw sum, which a sigmoid's one sum of a
    # binary classifier makes fewer than its classes
    width = 1 if output is not None else len(combine.init) if combine.kind == CombineKind.SUM else target.width
    nodes = _node_columns(nodes_doc, features, width)
    if nodes is None:
        nodes = [_read_node(r, n, f"{path}.nodes[{i}]", features, width) for i, n in enumerate(nodes_doc)]
        _check_structure(r, nodes, path)
    return Tree(nodes, output, r.number(doc, "weight", path, 1.0))


def _node_columns(docs: list, features, width: int) -> NodeColumns | None:
    """The tree as columns where every node is plain (as :func:`_plain_node` takes it) and every split
    sends missing values to a child -- what the importers of boosted models write -- checked and read
    a field at a time over all the nodes, at C speed: a 1,000-tree model's 511,000 nodes in a fraction
    of the time and memory of Node objects. None for any other tree, whose nodes are then read one by
    one with the checks that say what is wrong."""
    if set(map(type, docs)) != _DICT or not (keys := set().union(*docs)) <= _PLAIN_NODE:
        return None
    # the splits first: a tree of another kind (nominal splits, other missing routes) fails soonest there
    splits, children = _field(docs, "split"), _field(docs, "children")
    inner = [split is not None for split in splits]
    if inner != [c is not None for c in children]:  # a leaf has no children, a split two
        return None
    ids = list(compress(range(len(docs)), inner))
    columns = _split_columns(ids, [splits[i] for i in ids], [children[i] for i in ids], features, len(docs))
    if columns is None:
        return None
    value, n, counts = _float_rows(_field(docs, "value"), width), _floats(_field(docs, "n", 0.0)), None
    if value is None or n is None or not (n >= 0.0).all():
        return None
    if "counts" in keys:  # as many at every node; none at any node is no counts
        listed = _field(docs, "counts", [])
        counts = _float_rows(listed, len(listed[0]) if type(listed[0]) is list else -1)
        if counts is None:
            return None
        counts = counts if counts.shape[1] else None
    feature, threshold, missing, kids = (np.full((len(docs),) + column.shape[1:], empty, dtype=column.dtype)
                                         for column, empty in zip(columns, (-1, math.nan, 0, -1)))
    for full, column in zip((feature, threshold, missing, kids), columns):
        full[ids] = column
    return NodeColumns(value, counts, n, kids, feature, threshold, missing, {})


def _split_columns(ids: list[int], splits: list, children: list, features, n_nodes: int) -> tuple | None:
    """The inner nodes' (``ids``) feature, threshold, missing child and children as arrays, where every split
    is a ``<=`` on a numeric feature, with a threshold that is a number, sending missing values to child
    0 or 1, and the children make a tree (each node but the root the child of one node before it)."""
    if not splits:
        return np.zeros(0, dtype=np.int64), np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros((0, 2), dtype=np.int64)
    if set(map(type, splits)) != _DICT or not set().union(*splits) <= _PLAIN_SPLIT:
        return None
    missing = _field(splits, "missing", _STOP)
    if set(map(type, missing)) != _DICT or not set().union(*missing) <= _PLAIN_MISSING:
        return None
    # (counted, not made a set: a damaged file's kind or op may be a list, which a set cannot hold)
    child, kinds, ops = _field(missing, "child", 0), _field(missing, "kind"), _field(splits, "op")
    if kinds.count("child") != len(kinds) or set(map(type, child)) != _INTEGER or not set(child) <= {0, 1}:
        return None
    feature, numeric = _field(splits, "feature"), [f.is_numeric for f in features]
    if (set(map(type, feature)) != _INTEGER or not 0 <= min(feature) <= max(feature) < len(features)
            or not all(map(numeric.__getitem__, feature)) or ops.count("<=") != len(ops)):
        return None
    threshold = _floats(_field(splits, "threshold", math.nan), finite=False)
    if threshold is None or np.isnan(threshold).any():
        return None
    if set(map(type, children)) != _LIST or set(map(len, children)) != {2}:
        return None
    flat = list(chain.from_iterable(children))
    if set(map(type, flat)) != _INTEGER or not 0 < min(flat) <= max(flat) < n_nodes:
        return None
    kids = np.array(flat, dtype=np.int64)
    parents = np.bincount(kids, minlength=n_nodes)
    if parents[0] or not (parents[1:] == 1).all() or not (kids > np.repeat(ids, 2)).all():
        return None
    return np.array(feature), threshold, np.array(child), kids.reshape(-1, 2)


def _field(docs: list, key: str, default: Any = None) -> list:
    """``doc.get(key, default)`` of each object, at C speed."""
    return list(map(dict.get, docs, repeat(key), repeat(default)))


def _float_rows(rows: list, width: int) -> np.ndarray | None:
    """Lists of ``width`` finite floats as a (rows, width) array; None when they are not."""
    if set(map(type, rows)) != _LIST or set(map(len, rows)) != {width}:
        return None
    flat = _floats(list(chain.from_iterable(rows)))
    return None if flat is None else flat.reshape(len(rows), width)


def _floats(values: list, finite: bool = True) -> np.ndarray | None:
    """Floats (finite ones, unless not ``finite``) as an array; None when they are not."""
    if set(map(type, values)) - _FLOAT:
        return None
    array = np.array(values, dtype=np.float64)
    return array if not finite or np.isfinite(array).all() else None


def _read_node(r: _Reader, doc: Any, path: str, features, width: int) -> Node:
    plain = _plain_node(doc, features, width)
    if plain is not None:
        return plain
    if not isinstance(doc, dict):
        r.fail(path, "expected an object")
    r.known(doc, path, FIELDS["node"], RULE_TEXT_NODE)
    value = r.floats(doc, "value", path)
    if len(value) != width:
        r.fail(f"{path}.value", f"expected {width} numbers, found {len(value)}")
    node = Node(value, r.floats(doc, "counts", path, []), r.number(doc, "n", path, 0.0, least=0.0))
    node.label_value = r.floats(doc, "label_value", path, [])
    if node.label_value and len(node.label_value) != width:
        r.fail(f"{path}.label_value", f"expected {width} numbers, found {len(node.label_value)}")
    linear_doc = r.get(doc, "linear", path, dict, None)
    if linear_doc is not None:
        node.linear = _read_linear(r, linear_doc, f"{path}.linear")
    split_doc = r.get(doc, "split", path, dict, None)
    if split_doc is None:
        return node
    node.split = _read_split(r, split_doc, f"{path}.split", features)
    children = r.get(doc, "children", path, list)
    if not set(map(type, children)) <= _INTEGER:
        r.fail(f"{path}.children", "expected a list of node ids")
    node.children = tuple(children)
    expected = len(node.split.values) if node.split.op == Op.EQ else 2
    if len(children) != expected:
        r.fail(f"{path}.children", f"a {node.split.op!r} split needs {expected} children, found {len(children)}")
    m = node.split.missing
    if m.kind == Route.CHILD and not 0 <= m.child < expected:
        r.fail(f"{path}.split.missing", "does not match the number of children")
    if m.kind == Route.FRACTION:  # counted before they are summed: one missing is no matter of rounding
        if len(m.weights) != expected:
            r.fail(f"{path}.split.missing.weights",
                   f"the node has {counted(expected, 'child', 'children')} but {counted(len(m.weights), 'weight')}")
        _check_weights(r, m.weights, f"{path}.split.missing.weights")
    if node.split.unknown is not None and not 0 <= node.split.unknown < expected:
        r.fail(f"{path}.split.unknown", "does not match the number of children")
    return node


def _plain_node(doc: Any, features, width: int) -> Node | None:
    """The node as the writer writes most of a big model's -- numbers that are floats, a leaf or a
    ``<=`` split on a numeric feature whose missing values stop or go to a child -- read at once where
    every check would pass (half the time of a 1,000-tree model's 511,000 nodes); None for any other
    node, which :func:`_read_node` reads with the checks that say what is wrong."""
    if type(doc) is not dict or not doc.keys() <= _PLAIN_NODE:
        return None
    value, n, counts = doc.get("value"), doc.get("n", 0.0), doc.get("counts", [])
    if not (type(value) is list and _finite(value, _FLOAT) and len(value) == width
            and type(n) is float and 0.0 <= n <= _LARGEST and type(counts) is list and _finite(counts, _FLOAT)):
        return None
    split = doc.get("split")
    if split is None:
        return Node(tuple(value), tuple(counts), n) if "children" not in doc else None
    if type(split) is not dict or not split.keys() <= _PLAIN_SPLIT:
        return None
    feature, threshold, missing = split.get("feature"), split.get("threshold"), split.get("missing", _STOP)
    children = doc.get("children")
    if (type(feature) is not int or not 0 <= feature < len(features) or not features[feature].is_numeric
            or split.get("op") != "<=" or type(threshold) is not float or threshold != threshold
            or type(missing) is not dict or not missing.keys() <= _PLAIN_MISSING
            or type(children) is not list or len(children) != 2 or not set(map(type, children)) <= _INTEGER):
        return None
    child, kind = missing.get("child", 0), missing.get("kind")
    route = _PLAIN_ROUTES.get((kind, child)) if type(child) is int and type(kind) is str else None  # (True == 1)
    if route is None:
        return None
    return Node(tuple(value), tuple(counts), n, Split(feature, Op.LE, threshold, (), route), tuple(children))


def _finite(values: list, types: set) -> bool:
    """Every item is of one of ``types`` (numbers) and finite, checked at C speed."""
    return set(map(type, values)) <= types and all(map(math.isfinite, values))


# The fields of each object of a model file, as the writer above writes them.
FIELDS = {name: frozenset(fields) for name, fields in {
    "model": ("format", "version", "features", "target", "numeric", "combine", "tuple_keys", "trees", "meta"),
    "feature": ("name", "kind", "categories", "missing_interval", "codes"),
    "target": ("name", "kind", "classes"),
    "numeric": ("cast", "tolerance", *NUMERIC_EXTRAS),
    "combine": ("kind", "init", "scale", "link", *COMBINE_EXTRAS),
    "tree": ("output", "nodes", "weight"),
    "node": ("value", "n", "counts", "label_value", "linear", "split", "children"),
    "linear": ("const", "terms"),
    "split": ("feature", "op", "threshold", "values", "missing", "unknown", "features", "parts", "tuples"),
    "missing": ("kind", "child", "weights"),
}.items()}
RULE_TEXT_NODE = frozenset({"id", "line"})  # what the rule text's reader adds to a node (not read)
_PLAIN_NODE = {"value", "n", "counts", "split", "children", *RULE_TEXT_NODE}
_PLAIN_SPLIT = {"feature", "op", "threshold", "missing"}
_PLAIN_MISSING = {"kind", "child"}
_STOP = {"kind": "stop"}
_FLOAT = {float}
# (kind, child) -> the route, shared: it is immutable (a child's number of 0 or 1, as a binary split has)
_PLAIN_ROUTES = {("stop", 0): MissingRoute.stop(), ("child", 0): MissingRoute.to_child(0),
                 ("child", 1): MissingRoute.to_child(1)}


def _read_linear(r: _Reader, doc: dict, path: str) -> Linear:
    """A leaf's linear model: ``{"const": c, "terms": [[feature, coeff], ...]}``, finite numbers."""
    r.known(doc, path, FIELDS["linear"])
    terms = []
    for i, term in enumerate(r.get(doc, "terms", path, list, [])):
        if (not isinstance(term, list) or len(term) != 2 or not isinstance(term[0], int) or isinstance(term[0], bool)
                or not isinstance(term[1], (int, float)) or isinstance(term[1], bool) or not math.isfinite(term[1])):
            r.fail(f"{path}.terms[{i}]", "expected [feature index, finite coefficient]")
        terms.append((term[0], float(term[1])))
    return Linear(r.number(doc, "const", path), tuple(terms))


def _check_linear(r: _Reader, model: Model) -> None:
    """Linear leaves only where :func:`treegen.model.linear_problem` allows them."""
    for t, tree in enumerate(model.trees):
        for n, node in enumerate(() if isinstance(tree.nodes, NodeColumns) else tree.nodes):  # (none there)
            problem = linear_problem(model, tree, node)
            if problem:
                r.fail(f"trees[{t}].nodes[{n}].{problem[0]}", problem[1])


def _read_split(r: _Reader, doc: dict, path: str, features) -> Split:
    r.known(doc, path, FIELDS["split"])
    feature = r.get(doc, "feature", path, int)
    if not 0 <= feature < len(features):
        r.fail(f"{path}.feature", f"no feature number {feature}")
    op = r.choice(doc, "op", path, _OPS)
    threshold = r.get(doc, "threshold", path, float) if op == Op.LE else math.nan
    if op == Op.LE and math.isnan(threshold):
        r.fail(f"{path}.threshold", "a threshold must be a number, not NaN")
    values = r.strings(doc, "values", path) if op not in (Op.LE, Op.TUPLE) else ()
    missing_doc = r.get(doc, "missing", path, dict, {"kind": Route.STOP})
    r.known(missing_doc, f"{path}.missing", FIELDS["missing"])
    kind = r.choice(missing_doc, "kind", f"{path}.missing", _ROUTES)
    missing = MissingRoute(kind, r.get(missing_doc, "child", f"{path}.missing", int, 0),
                           r.floats(missing_doc, "weights", f"{path}.missing", []))
    split = Split(feature, op, threshold, values, missing, r.get(doc, "unknown", path, int, None))
    if op == Op.TUPLE:
        split = _read_tuple_fields(r, doc, path, features, split)
    problem = split_problem(features, split)  # the whole split: its unknown child and missing route too
    if problem:
        r.fail(f"{path}.{problem[0]}", problem[1])
    return split


def _read_tuple_fields(r: _Reader, doc: dict, path: str, features, split: Split) -> Split:
    """A ``tuple`` split's features, parts (splits) and tuples (checked by :func:`split_problem`)."""
    combined = r.get(doc, "features", path, list)
    if not set(map(type, combined)) <= _INTEGER or not all(0 <= flat < len(features) for flat in combined):
        r.fail(f"{path}.features", "expected a list of feature numbers")
    parts = r.get(doc, "parts", path, list, [])
    keys = doc.get("tuples")
    if type(keys) is int and 0 <= keys < len(r.key_sets):  # the number of a set of the model's "tuple_keys"
        keys = r.key_sets[keys]
    elif type(keys) is list:
        keys = _read_keys(r, keys, f"{path}.tuples")
    else:
        r.fail(f"{path}.tuples", f"expected a list of keys, or the number of a set of the model's tuple_keys (it has "
                                 f"{len(r.key_sets)})")
    return replace(split, features=tuple(combined), tuples=keys,
                   parts=tuple(_read_part(r, part, f"{path}.parts[{i}]", features) for i, part in enumerate(parts)))


def _read_keys(r: _Reader, keys: Any, path: str) -> frozenset:
    """A tuple split's keys (checked against its features and parts by :func:`split_problem`)."""
    if type(keys) is not list:
        r.fail(path, "expected a list of keys")
    # checked all at once (a CatBoost model's 2 million keys: 0.8 s key by key), then key by key to name one
    if not (set(map(type, keys)) <= {list} and set(map(type, chain.from_iterable(keys))) <= _KEY_TYPES):
        for i, key in enumerate(keys):
            if type(key) is not list or not set(map(type, key)) <= _KEY_TYPES:
                r.fail(f"{path}[{i}]", "expected a list of categories (or null) and child positions")
    return frozenset(map(tuple, keys))


_KEY_TYPES = {str, int, type(None)}  # a key's places: categories, null (missing), child positions


def _read_part(r: _Reader, doc: Any, path: str, features) -> Split:
    if type(doc) is not dict:
        r.fail(path, "expected an object (a split)")
    return _read_split(r, doc, path, features)


FRACTION_SUM_TOLERANCE = 1e-6  # C4.5's weights (per-branch weight / total) sum to 1 within ~3e-15


def _check_weights(r: _Reader, weights: tuple[float, ...], path: str) -> None:
    """Fractional weights share a row among the children (one each): each at least 0, together 1."""
    for i, w in enumerate(weights):
        if w < 0:
            r.fail(f"{path}[{i}]", f"a weight must be >= 0, found {w!r}")
    if weights and abs(sum(weights) - 1.0) > FRACTION_SUM_TOLERANCE:
        r.fail(path, f"the weights must sum to 1, found {sum(weights)!r}")


def _check_structure(r: _Reader, nodes: list[Node], path: str) -> None:
    """Every node but the root has exactly one parent, with a larger id (pre-order): a tree, no cycles."""
    parent = [-1] * len(nodes)
    for i, node in enumerate(nodes):
        for c in node.children:
            if c >= len(nodes):  # a list cut short, or a child's number mistyped: not a matter of order
                r.fail(f"{path}.nodes[{i}].children", f"child {c} is not one of the tree's {len(nodes)} nodes")
            if not i < c or parent[c] != -1:
                r.fail(f"{path}.nodes[{i}].children", f"child {c} is not a new node after {i}")
            parent[c] = i
    orphans = [i for i in range(1, len(nodes)) if parent[i] == -1]
    if orphans:
        r.fail(f"{path}.nodes[{orphans[0]}]", "no node leads here")


@collector_paused()  # json.loads of a 1,000-tree model: 6.7 s with the collector on, 1.9 s paused
def loads(text: str, source: str = "<model>") -> Model:
    try:
        doc = json_loads(text, source)
    except json.JSONDecodeError as err:
        raise TreegenError(f"invalid JSON: {_json_problem(err)}", source, err.lineno, err.colno) from None
    return model_from_dict(doc, source)


def json_loads(text: str, source: str | None = None) -> Any:
    """``json.loads(text)`` (its errors raised as they are), refusing an object that names a key twice with the
    file (``source``) and the object's JSON path: json keeps the last copy without a word, and other readers
    the first. Costs a fifth more than json.loads (a list of pairs made for each object): 4.5 s for 3.4 s of
    CPU for a 138 MB model file. What json raises other than a JSONDecodeError, for what a hostile file may hold
    (brackets nested past Python's recursion limit, an integer of more digits than Python converts), is refused
    here for every reader of JSON files."""
    repeated: list[tuple[dict, str]] = []  # (the object, its key) of each key written twice in one object
    try:
        doc = json.loads(text, object_pairs_hook=partial(_object, repeated))
    except RecursionError:
        raise TreegenError("invalid JSON: nested too deeply", source) from None
    except ValueError as err:
        if isinstance(err, json.JSONDecodeError):
            raise
        raise TreegenError(f"invalid JSON: {str(err).split(':')[0]}", source) from None
    if repeated:
        obj, key = repeated[0]
        _Reader(source).fail(_path_of(doc, obj), f"duplicate key {key!r} (JSON readers differ on which "
                                                  "copy they keep)")
    return doc


def _object(repeated: list, pairs: list) -> dict:
    """A JSON object as json makes it, noting a key written twice (``"threshold": 75, "threshold": 10``), of
    which json keeps the last without a word: refused once the document is read, with its path."""
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen = set()
        repeated.append((obj, next(k for k, _ in pairs if k in seen or seen.add(k))))
    return obj


def _path_of(doc: Any, target: dict, path: str = "") -> str | None:
    """The JSON path (as the reader's errors write it) of the object ``target`` within ``doc``; the first
    object in document order holding a repeated key is found first by walking the document in order."""
    stack = [(doc, path)]
    while stack:
        value, where = stack.pop()
        if value is target:
            return where
        if isinstance(value, dict):
            stack.extend((v, f"{where}.{k}".lstrip(".")) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((v, f"{where}[{i}]") for i, v in reversed(list(enumerate(value))))
    return ""


def _json_problem(err: json.JSONDecodeError) -> str:
    """json's message, whole: a few end in "at" and rely on the position json appends to them
    ("Unterminated string starting at: line 53 column 4"), which is not the position of the error
    (the end of the text) that the prefix FILE:LINE:COL gives."""
    return f"{err.msg} line {err.lineno} column {err.colno}" if err.msg.endswith(" at") else err.msg


def load(path: str) -> Model:
    return loads(read_text(path, "model"), path)
