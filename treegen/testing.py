"""Synthetic models for tests and benchmarks: random trees with every split kind and missing-value
route, very deep chains, very wide trees, and hostile names."""
from __future__ import annotations

import random
from dataclasses import replace

from .collector import collector_paused
from .model import is_close  # noqa: F401  (tests import it from here too)
from .model import (CLASSIFICATION, NOMINAL, NUMERIC, REGRESSION, Codes, Combine, CombineKind, Feature, Linear,
                    MissingRoute, Model, Node, NumericSemantics, Op, Precision, Route, Split, Target, Tree)

HOSTILE_NAMES = [
    "class", "if", "select", "from", "def", "return", "null", "None", "True", "int", "String",
    "it's", 'say "hi"', "back\\slash", "new\nline", "tab\there", "\"; DROP TABLE x; --", "*/ /*",
    "a,b", "名字", "天气", "🌲 tree", " leading space", "trailing ", "", "$x", "${x}", "{{ x }}",
    "%s", "\u2028sep", "0starts_with_digit", "x-y", "import os", "__init__", "main",
]


def _value(rng: random.Random, target: Target) -> tuple[float, ...]:
    if not target.is_classification:
        return (rng.choice([0.0, 1.5, -2.25, rng.uniform(-1e6, 1e6)]),)
    raw = [rng.choice([0.0, 1.0, 2.0, 3.0, rng.random()]) for _ in target.classes]
    if not any(raw):
        raw[rng.randrange(len(raw))] = 1.0
    total = sum(raw)
    return tuple(r / total for r in raw)


CODES_SHARE = 0.3  # of random nominal features: integer codes that numbers name too (Feature.codes)


def random_features(rng: random.Random, n_numeric: int, n_nominal: int, names=None) -> tuple[Feature, ...]:
    """Numeric features, then nominal ones of 2-4 categories: named, or (:data:`CODES_SHARE`) integer
    codes out of 0-4, some skipped, read as integral or truncated numbers too."""
    names = list(names) if names else [f"x{i}" for i in range(n_numeric)] + [f"c{i}" for i in range(n_nominal)]
    features = [Feature(names[i], NUMERIC) for i in range(n_numeric)]
    aside = random.Random(repr(rng.getstate()[1][:8]))  # codes drawn aside: every seed's trees keep their shape
    for j in range(n_nominal):
        k = rng.randint(2, 4)
        if aside.random() < CODES_SHARE:
            codes = tuple(str(c) for c in sorted(aside.sample(range(5), k)))
            features.append(Feature(names[n_numeric + j], NOMINAL, codes, codes=aside.choice(list(Codes))))
        else:
            features.append(Feature(names[n_numeric + j], NOMINAL, tuple(f"v{j}_{i}" for i in range(k))))
    return tuple(features)


def random_tree(rng: random.Random, features, target: Target, max_depth: int = 5,
                missing_kinds=tuple(Route), leaf_probability: float = 0.25) -> Tree:
    """A random tree, nodes numbered in pre-order. Thresholds come from a small grid (so values sit
    exactly on them often) and from random floats."""
    nodes: list[Node] = []
    stack = [(None, 0)]  # (parent slot to fill, depth)
    pending_children: dict[int, list[int]] = {}
    while stack:
        parent, depth = stack.pop()
        node_id = len(nodes)
        node = Node(_value(rng, target), n=float(rng.randint(0, 50)))
        nodes.append(node)
        if parent is not None:
            pending_children[parent].append(node_id)
        if depth >= max_depth or rng.random() < leaf_probability:
            continue
        index = rng.randrange(len(features))
        feature = features[index]
        if feature.kind == NUMERIC:
            t = rng.choice([0.0, 0.5, 1.0, -1.0, 2.5, 1e-300, rng.uniform(-10, 10)])
            split, arity = Split(index, Op.LE, threshold=t), 2
        elif rng.random() < 0.5:
            values = tuple(rng.sample(feature.categories, len(feature.categories)))
            split, arity = Split(index, Op.EQ, values=values), len(values)
        else:
            chosen = rng.sample(feature.categories, rng.randint(1, len(feature.categories) - 1))
            split, arity = Split(index, Op.IN, values=tuple(chosen)), 2
        kind = rng.choice(missing_kinds)
        if kind == Route.CHILD:
            route = MissingRoute.to_child(rng.randrange(arity))
        elif kind == Route.FRACTION:
            weights = [rng.random() + 0.01 for _ in range(arity)]
            route = MissingRoute.fraction([w / sum(weights) for w in weights])
        else:
            route = MissingRoute.stop()
        node.split = Split(split.feature, split.op, split.threshold, split.values, route)
        pending_children[node_id] = []
        for _ in range(arity):
            stack.append((node_id, depth + 1))
    for node_id, children in pending_children.items():
        # children were pushed then popped in reverse: restore the order of creation
        nodes[node_id].children = tuple(sorted(children))
    return Tree(nodes).canonical()


def random_model(seed: int = 0, n_numeric: int = 3, n_nominal: int = 2, max_depth: int = 5,
                 classes=("a", "b", "c"), regression: bool = False, missing_kinds=tuple(Route),
                 numeric: NumericSemantics = NumericSemantics(), names=None, n_trees: int = 1) -> Model:
    rng = random.Random(seed)
    features = random_features(rng, n_numeric, n_nominal, names)
    target = Target("y", REGRESSION) if regression else Target("y", CLASSIFICATION, tuple(classes))
    trees = [random_tree(rng, features, target, max_depth, missing_kinds) for _ in range(n_trees)]
    combine = Combine() if n_trees == 1 else Combine(CombineKind.AVERAGE)
    return Model(features, target, trees, combine, numeric, {"algorithm": "random", "seed": seed})


def chain_model(depth: int, classes=("left", "right")) -> Model:
    """x <= 0 -> leaf, else x <= 1 -> leaf, else ... : one path ``depth`` splits deep."""
    target = Target("y", CLASSIFICATION, tuple(classes))
    nodes = []
    for i in range(depth):
        leaf_value = tuple(1.0 if k == i % len(classes) else 0.0 for k in range(len(classes)))
        split = Split(0, Op.LE, threshold=float(i), missing=MissingRoute.to_child(0))
        nodes.append(Node(leaf_value, split=split, children=(len(nodes) + 1, len(nodes) + 2)))
        nodes.append(Node(leaf_value, n=1.0))
    nodes.append(Node(tuple(1.0 / len(classes) for _ in classes), n=1.0))
    # pre-order: node 2i is the split, 2i+1 its left leaf, 2i+2 the next split
    return Model((Feature("x", NUMERIC),), target, [Tree(nodes)], meta={"algorithm": "chain"})


def category_stump(category: str, label: str = "b") -> Model:
    """c in {category} -> label "a", else ``label``: a model whose generated code holds ``category`` and
    ``label`` as string literals."""
    split = Split(0, Op.IN, values=(category,), missing=MissingRoute.to_child(1))
    nodes = [Node((0.5, 0.5), split=split, children=(1, 2)), Node((1.0, 0.0), n=1.0), Node((0.0, 1.0), n=1.0)]
    return Model((Feature("c", NOMINAL, ("p", category)),), Target("y", CLASSIFICATION, ("a", label)), [Tree(nodes)],
                 meta={"algorithm": "stump"})


@collector_paused()
def wide_model(leaves: int, n_features: int = 10, seed: int = 0, regression: bool = False) -> Model:
    """A balanced binary tree with ``leaves`` leaves over ``n_features`` numeric features."""
    rng = random.Random(seed)
    features = tuple(Feature(f"f{i}", NUMERIC) for i in range(n_features))
    target = Target("y", REGRESSION) if regression else Target("y", CLASSIFICATION, ("no", "yes", "maybe"))
    nodes: list[Node] = []
    children_of: dict[int, list[int]] = {}
    box = tuple((-1000.0, 1000.0) for _ in features)  # the region of inputs that reach a node
    stack = [(None, leaves, box)]
    while stack:
        parent, count, box = stack.pop()
        node_id = len(nodes)
        nodes.append(Node(_value(rng, target), n=float(count)))
        if parent is not None:
            children_of[parent].append(node_id)
        if count == 1:
            continue
        feature = rng.randrange(n_features)
        low, high = box[feature]
        t = low + (high - low) * rng.uniform(0.2, 0.8)  # inside the box: every leaf stays reachable
        nodes[node_id].split = Split(feature, Op.LE, threshold=t, missing=MissingRoute.to_child(rng.randrange(2)))
        children_of[node_id] = []
        left = count // 2
        left_box = box[:feature] + ((low, t),) + box[feature + 1:]
        right_box = box[:feature] + ((t, high),) + box[feature + 1:]
        stack.append((node_id, count - left, right_box))
        stack.append((node_id, left, left_box))
    for node_id, children in children_of.items():
        nodes[node_id].children = tuple(sorted(children))
    # ids are given as the stack pops, left child first: the nodes are in pre-order already
    return Model(features, target, [Tree(nodes)], meta={"algorithm": "wide"})


def with_fractions(model: Model, seed: int = 0) -> Model:
    """The model with C4.5's fractional route, random weights, at every split: a missing value then
    reaches every leaf below it (the worst case for walking a tree)."""
    rng = random.Random(seed)
    trees = []
    for tree in model.trees:
        nodes = []
        for node in tree.nodes:
            if node.split is not None:
                weights = [rng.random() + 0.01 for _ in node.children]
                route = MissingRoute.fraction([w / sum(weights) for w in weights])
                node = replace(node, split=replace(node.split, missing=route))
            nodes.append(node)
        trees.append(replace(tree, nodes=nodes))
    return replace(model, trees=trees)


def with_label_values(model: Model, seed: int = 0) -> Model:
    """The classifier with a random label value at every node (:attr:`treegen.model.Node.label_value`):
    its labels are decided on other sums than its scores. The numbers come from a grid with near
    ties (0.4 and 0.4000005, within Weka's 1e-6) and exact ones, so both decision rules meet them."""
    rng = random.Random(seed)
    grid = [0.0, 0.2, 0.4, 0.4000005, 0.6, 1.0]
    width = model.target.width
    trees = [replace(tree, nodes=[replace(node, label_value=tuple(rng.choice(grid) for _ in range(width)))
                                  for node in tree.nodes]) for tree in model.trees]
    return replace(model, trees=trees)


def with_linear_leaves(model: Model, seed: int = 0) -> Model:
    """The model with linear leaves (LightGBM's linear trees) wherever :func:`treegen.model.linear_problem`
    allows them: its sums in double, and in each tree of one-number leaves every missing route sent to a
    child, then most leaves given a constant and terms on features without a missing interval, in a
    random order, with coefficients whose products round."""
    rng = random.Random(seed)
    readable = [i for i, f in enumerate(model.features) if f.is_numeric and f.missing_interval is None]
    trees = []
    for tree in model.trees:
        if len(tree.nodes[0].value) != 1 or not readable:
            trees.append(tree)
            continue
        nodes = []
        for node in tree.nodes:
            node = replace(node)
            if node.split is not None and node.split.missing.kind != Route.CHILD:
                node.split = replace(node.split, missing=MissingRoute.to_child(rng.randrange(len(node.children))),
                                     unknown=None)
            if node.is_leaf and rng.random() < 0.8:
                terms = rng.sample(readable, rng.randint(0, len(readable)))
                node.linear = Linear(rng.choice([0.0, -0.0, 0.1, -2.5, 1e-300, node.value[0]]),
                                     tuple((f, rng.choice([1 / 3, -0.7, 2.0, 1e-3, -1e5, 0.0])) for f in terms))
            nodes.append(node)
        trees.append(Tree(nodes, tree.output, tree.weight))
    return Model(model.features, model.target, trees, replace(model.combine, precision=Precision.FLOAT64),
                 model.numeric, dict(model.meta))


def random_rows(model: Model, count: int, seed: int = 0, missing: float = 0.1) -> list[dict]:
    """Random rows for a model: values near its thresholds, categories, missing and unseen values."""
    from .probes import UNSEEN, boundary_values, code_values
    rng = random.Random(seed)
    options = []
    boundaries = boundary_values(model)
    for index, feature in enumerate(model.features):
        if feature.is_numeric:
            options.append(boundaries[index] or [0.0])
        else:
            options.append(list(feature.categories) + [UNSEEN] + code_values(feature))
    rows = []
    for _ in range(count):
        row = {}
        for feature, opts in zip(model.features, options):
            if rng.random() < missing:
                row[feature.name] = None
            elif feature.is_numeric and rng.random() < 0.3:
                row[feature.name] = rng.uniform(-20, 20)
            else:
                row[feature.name] = rng.choice(opts)
        rows.append(row)
    return rows



def spark_parser_states(spark, text: str) -> int:
    """The states Spark's SQL parser (ANTLR, in the SLL mode Spark tries first) learns reading the statement
    ``text`` from empty caches: each a look-ahead it worked out, the cost of a query unlike those it has seen.
    The caches are left empty."""
    from py4j.java_gateway import get_field
    jvm, parsers = spark._jvm, "org.apache.spark.sql.catalyst.parser."
    chars = getattr(jvm, parsers + "UpperCaseCharStream")(jvm.org.antlr.v4.runtime.CharStreams.fromString(text))
    tokens = jvm.org.antlr.v4.runtime.CommonTokenStream(getattr(jvm, parsers + "SqlBaseLexer")(chars))
    parser = getattr(jvm, parsers + "SqlBaseParser")(tokens)
    module = getattr(getattr(jvm, parsers + "AbstractParser$"), "MODULE$")
    module.configureParser(parser, text, tokens, jvm.org.apache.spark.sql.internal.SqlApiConf.get())
    module.clearParserCaches(parser)
    parser.getInterpreter().setPredictionMode(jvm.org.antlr.v4.runtime.atn.PredictionMode.SLL)
    parser.singleStatement()
    dfas = get_field(parser.getInterpreter(), "decisionToDFA")
    states = sum(get_field(dfas[i], "states").size() for i in range(len(dfas)))
    module.clearParserCaches(parser)
    return states
