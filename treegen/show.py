"""`treegen show`: a tree as indented text, each split as the model compares (``<`` where its comparisons
are strict, J48's tolerance added to its split points), with the class and counts at each leaf, or its
value (a boosted tree's score)."""
from __future__ import annotations

from typing import Iterator

from .describe import edge_labels, key_sets, keys_lines, number, outcome, tree_size
from .model import Model, Op, Tree


FLOAT32_NOTE = "Each input is rounded to float32 before it is compared with a threshold."


def tolerance_note(tolerance: float) -> str:
    """The model lets a value a little above a split point go left (J48's tolerance): say so, since the
    thresholds shown are where the model really cuts, not the split points J48 prints."""
    return (f"A value less than {number(tolerance)} above a split point still goes left (J48's tolerance): "
            "each threshold is the largest value that goes left; `show --style j48` prints the split points.")


TUPLE_NOTE = ("A test of categories combined, such as (A, B, x <= 1.5) in keys 3, takes the row's key -- the category "
              "of each feature named (missing when it is missing), then true or false for each condition after them "
              "-- and holds when the key is one of those listed as keys 3 below the trees. An unknown category is in "
              "no key.")


def tree_lines(model: Model, tree: Tree, keysets: dict | None = None) -> Iterator[str]:
    """The tree's lines, one at a time: a tree as deep as its nodes (100,000 in a hostile file) is indented
    into text that grows as its depth squared, which is not to be held in memory whole (``keysets``: the
    numbers of its tuple splits' keys, :func:`treegen.describe.key_sets`)."""
    root = tree.nodes[0]
    if root.is_leaf:
        yield ": " + outcome(model, root)
        return
    stack = [(child, label, 0) for child, label in reversed(list(zip(root.children, edge_labels(model, root, keysets))))]
    while stack:
        node_id, label, depth = stack.pop()
        node = tree.nodes[node_id]
        prefix = "|   " * depth + label
        if node.is_leaf:
            yield f"{prefix}: {outcome(model, node)}"
            continue
        yield prefix
        children = list(zip(node.children, edge_labels(model, node, keysets)))
        stack.extend((child, text, depth + 1) for child, text in reversed(children))


def adds_to(model: Model, tree: Tree) -> str:
    """Which of a boosted model's sums a tree's leaves add to, where it has several (a class's score)."""
    return f" (adds to output {tree.output})" if tree.output is not None and len(model.combine.init) > 1 else ""


def has_numeric_split(model: Model) -> bool:
    return any(not node.is_leaf and node.split.op == Op.LE for tree in model.trees for node in tree.nodes)


def show(model: Model) -> str:
    return "\n".join(show_lines(model))


def show_lines(model: Model) -> Iterator[str]:
    """:func:`show`'s lines, one at a time (:func:`tree_lines`)."""
    if model.meta.get("predicts"):  # an imported model's number that its value alone does not explain
        yield from (f"The prediction is {model.meta['predicts']}.", "")
    if model.numeric.cast == "float32":
        yield from (FLOAT32_NOTE, "")
    if model.numeric.tolerance and has_numeric_split(model):
        yield from (tolerance_note(model.numeric.tolerance), "")
    keysets = key_sets(model)
    if keysets:
        yield from (TUPLE_NOTE, "")
    algorithm = model.meta.get("algorithm", "imported")
    for i, tree in enumerate(model.trees):
        tree = tree.listed()  # every node read by id, and read again
        title = f"{algorithm} tree" + (f" {i + 1} of {len(model.trees)}" if len(model.trees) > 1 else "")
        title += adds_to(model, tree)
        yield from (f"{title}: {tree_size(tree)}", "")
        yield from tree_lines(model, tree, keysets)
        yield ""
    yield from keys_lines(keysets)
