"""Plain text for people: names, numbers, a split's edges and a node's outcome, as `treegen show`, the
diagrams and the rule text write them."""
from __future__ import annotations

import json
import re
from functools import lru_cache

from .errors import counted
from .model import CombineKind, Model, Node, Op, Route, Split, leaf_class, sorted_tuples


def quote(text: str) -> str:
    """A JSON string literal in which every character that is not printable is escaped."""
    escaped = json.dumps(text, ensure_ascii=False)
    return "".join(c if c.isprintable() or c == " " else _escape(c) for c in escaped)


def _escape(c: str) -> str:
    code = ord(c)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells characters beyond the BMP as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def summary(model: Model) -> str:
    """One line on a model: what made it, its trees, features and target (:meth:`Model.summary`)."""
    return model.summary()


def number(x: float) -> str:
    """A float that reads back to the same double (``inf``/``-inf``/``nan`` by name, as ``repr`` writes
    them): a big export writes millions."""
    return repr(float(x))


def numbers(xs) -> str:
    return "[" + ", ".join(map(number, xs)) + "]"


def leaves_show_labels(model: Model) -> bool:
    """Whether a leaf's outcome, for people, is the class its value picks: a classifier's single tree
    or forest, whose leaves hold class distributions. Otherwise it is the leaf's value: a regression
    value, or a boosted tree's raw score, which the model adds into the sum of the tree's output (or,
    one number each, into every output's)."""
    return model.target.is_classification and model.combine.kind != CombineKind.SUM


def value_text(value) -> str:
    """A leaf's value: one number, or the numbers of a tree that adds to every output."""
    return number(value[0]) if len(value) == 1 else numbers(value)


_PLAIN = re.compile(r"[^\s,:=(){}|\"']+")


def label(text: str) -> str:
    """Names and labels as they are, quoted only where they would be ambiguous."""
    return text if _PLAIN.fullmatch(text) and text.isprintable() else quote(text)


def edge_labels(model: Model, node: Node, keysets: dict[frozenset, int] | None = None) -> list[str]:
    """What each child's edge says about the split's value, in child order (``keysets``: the number of each
    tuple split's keys, :func:`key_sets`, where the model has such splits)."""
    s = node.split
    if s.op == Op.TUPLE:  # its key reads missing values itself: the parts say where theirs go
        places = [label(model.features[f].name) for f in s.features]
        test = f"({', '.join(places + [edge_labels(model, Node((), split=part))[0] for part in s.parts])})"
        keys = (keysets if keysets is not None else key_sets(model))[s.tuples]
        return [f"{test} in keys {keys}", f"{test} not in keys {keys}"]
    x = label(model.features[s.feature].name)
    if s.op == Op.LE:  # as the model compares: XGBoost's strict x < t sends t itself right
        left, right = ("<", ">=") if model.numeric.strict else ("<=", ">")
        t = number(shown_threshold(model, s.threshold))
        labels = [f"{x} {left} {t}", f"{x} {right} {t}"]
    elif s.op == Op.IN:
        values = "{" + ", ".join(label(v) for v in s.values) + "}"
        labels = [f"{x} in {values}", f"{x} not in {values}"]
    else:
        labels = [f"{x} = {label(v)}" for v in s.values]
    if s.missing.kind == Route.CHILD:
        labels[s.missing.child] += " (or missing)"
    elif s.missing.kind == Route.FRACTION:
        labels = [f"{text} (missing: {w:.3g})" for text, w in zip(labels, s.missing.weights)]
    return labels


def shown_threshold(model: Model, threshold: float) -> float:
    """A threshold as the model compares with it: with J48's tolerance, the largest value that goes left
    (J48's 43.0 lets 43.0000005 through: 43.000001, as the rules and the generated code test it), else
    the threshold itself (a float32 cast is said once, above the tree)."""
    return model.numeric.effective_threshold(threshold) if model.numeric.tolerance else threshold


def linear_text(model: Model, node: Node) -> str:
    """A linear leaf's sum, left to right as it is computed, and the value it predicts when an input is
    missing: ``0.5 + 2.0 * age (0.7 if missing)``."""
    linear = node.linear
    terms = [number(linear.const)] + [f"{number(c)} * {label(model.features[f].name)}" for f, c in linear.terms]
    return " + ".join(terms) + (f" ({number(node.value[0])} if missing)" if linear.terms else "")


def outcome(model: Model, node: Node) -> str:
    """A node's prediction with its class counts, or its value (a boosted tree's score) and weight."""
    target = model.target
    if node.linear is not None:
        return f"{linear_text(model, node)} (n {node.n:g})"
    if not leaves_show_labels(model):
        return f"{value_text(node.value)} (n {node.n:g})"
    predicted = label(target.classes[leaf_class(model.combine, node.deciding_value)])
    if node.counts:
        counts = ", ".join(f"{label(c)}: {k:g}" for c, k in zip(target.classes, node.counts))
        return f"{predicted} ({counts})"
    return predicted


def tree_size(tree) -> str:
    """'8 nodes, 5 leaves, depth 2', as train and show say a tree's size."""
    return f"{counted(len(tree.nodes), 'node')}, {counted(len(tree.leaves()), 'leaf', 'leaves')}, depth {tree.depth()}"


def key_sets(model: Model, by_id: dict[int, int] | None = None) -> dict[frozenset, int]:
    """The keys of each ``tuple`` split, numbered from 1 as they first occur (tree by tree, node by node): a
    CatBoost model's trees repeat a split's thousands of keys, which the rule text, show and the diagrams say
    once, as ``keys N``. ``by_id``: filled with the number of each split's set by its id (a look-up by the
    keys themselves compares them, thousands, where another split holds an equal set)."""
    numbers: dict[frozenset, int] = {}
    by_id = {} if by_id is None else by_id
    for tree in model.trees:
        for node in tree.nodes:
            if node.split is not None and node.split.op is Op.TUPLE and id(node.split.tuples) not in by_id:
                by_id[id(node.split.tuples)] = numbers.setdefault(node.split.tuples, len(numbers) + 1)
    return numbers


ANSWERS = ("true", "false")  # a part's place in a key: the child it sends the row to (0: its condition holds)
_KEY_WORDS = ("missing", *ANSWERS)


def key_text(key: tuple, category=label) -> str:
    """A key: each category (``missing``: the value is missing), then each part's answer; ``category`` writes a
    category (a bare word such as missing or true is quoted)."""
    return "(" + ", ".join("missing" if v is None else ANSWERS[v] if type(v) is not str
                           else quote(v) if v in _KEY_WORDS else category(v) for v in key) + ")"


def keys_lines(keysets: dict[frozenset, int], category=label) -> list[str]:
    """``keys N: {(...), ...}``: each set of keys once, in the one order of :func:`treegen.model.sorted_tuples`."""
    category = lru_cache(maxsize=None)(category)  # a category is in many keys
    return [f"keys {n}: {{{', '.join(key_text(key, category) for key in sorted_keys(keys))}}}" for keys, n in keysets.items()]


def sorted_keys(keys: frozenset) -> list[tuple]:
    """A set of keys in the order :func:`treegen.model.sorted_tuples` gives a tuple split's."""
    return sorted_tuples(Split(0, Op.TUPLE, tuples=keys))
