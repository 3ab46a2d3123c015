"""`treegen show`: a tree as indented text, with the class counts (or value) at each leaf."""
from __future__ import annotations

import re

from .emit.rules import number, quote
from .model import Model, Node, Tree, argmax

_PLAIN = re.compile(r"[^\s,:=(){}|\"']+")


def name(text: str) -> str:
    """Names and labels as they are, quoted only where they would be ambiguous."""
    return text if _PLAIN.fullmatch(text) and text.isprintable() else quote(text)


def edge_labels(model: Model, node: Node) -> list[str]:
    s = node.split
    x = name(model.features[s.feature].name)
    if s.op == "<=":
        labels = [f"{x} <= {number(s.threshold)}", f"{x} > {number(s.threshold)}"]
    elif s.op == "in":
        values = "{" + ", ".join(name(v) for v in s.values) + "}"
        labels = [f"{x} in {values}", f"{x} not in {values}"]
    else:
        labels = [f"{x} = {name(v)}" for v in s.values]
    if s.missing.kind == "child":
        labels[s.missing.child] += " (or missing)"
    elif s.missing.kind == "fraction":
        labels = [f"{label} (missing: {w:.3g})" for label, w in zip(labels, s.missing.weights)]
    return labels


def outcome(model: Model, node: Node) -> str:
    target = model.target
    if not target.is_classification:
        return f"{number(node.value[0])} (n {node.n:g})"
    label = name(target.classes[argmax(node.value)])
    if node.counts:
        counts = ", ".join(f"{name(c)}: {k:g}" for c, k in zip(target.classes, node.counts))
        return f"{label} ({counts})"
    return label


def tree_text(model: Model, tree: Tree) -> list[str]:
    lines = []
    root = tree.nodes[0]
    if root.is_leaf:
        return [": " + outcome(model, root)]
    stack = [(child, label, 0) for child, label in reversed(list(zip(root.children, edge_labels(model, root))))]
    while stack:
        node_id, label, depth = stack.pop()
        node = tree.nodes[node_id]
        prefix = "|   " * depth + label
        if node.is_leaf:
            lines.append(f"{prefix}: {outcome(model, node)}")
            continue
        lines.append(prefix)
        children = list(zip(node.children, edge_labels(model, node)))
        stack.extend((child, text, depth + 1) for child, text in reversed(children))
    return lines


def show(model: Model) -> str:
    out = []
    algorithm = model.meta.get("algorithm", "imported")
    for i, tree in enumerate(model.trees):
        leaves = len(tree.leaves())
        title = f"{algorithm} tree" + (f" {i + 1} of {len(model.trees)}" if len(model.trees) > 1 else "")
        out.append(f"{title}: {len(tree.nodes)} nodes, {leaves} leaves, depth {tree.depth()}")
        out.append("")
        out.extend(tree_text(model, tree))
        out.append("")
    return "\n".join(out)
