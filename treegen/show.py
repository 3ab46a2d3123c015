"""`treegen show`: a tree as indented text, with the class counts (or value) at each leaf."""
from __future__ import annotations

from .describe import edge_labels, outcome
from .model import Model, Tree


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
        tree = tree.listed()  # every node read by id, and read again
        leaves = len(tree.leaves())
        title = f"{algorithm} tree" + (f" {i + 1} of {len(model.trees)}" if len(model.trees) > 1 else "")
        out.append(f"{title}: {len(tree.nodes)} nodes, {leaves} leaves, depth {tree.depth()}")
        out.append("")
        out.extend(tree_text(model, tree))
        out.append("")
    return "\n".join(out)
