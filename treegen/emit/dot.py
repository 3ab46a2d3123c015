"""Graphviz diagrams: tests on the edges, class distribution and majority class at the nodes (a regression
or boosted tree's leaves: their value, the score a boosted tree adds), leaves coloured by their class (``--format svg`` renders with Graphviz's ``dot`` when installed)."""
from __future__ import annotations

import os
import shutil
import subprocess

from ..describe import (edge_labels, key_sets, key_text, label, leaves_show_labels, linear_text, sorted_keys,
                        value_text)
from ..errors import TreegenError
from ..model import Model, Op, leaf_class, read_features
from .render import render

# Colour-blind friendly (Okabe-Ito), lightened for black text; cycled for many classes.
PALETTE = ["#f5c48a", "#9fd3f2", "#8fd6bd", "#f7f0a0", "#8fb8dc", "#f0b08a", "#e2b6cf", "#d9d9d9"]


def dot_string(text: str) -> str:
    """A DOT quoted string: quotes and backslashes escaped, line breaks as DOT's centred \\n."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + escaped.replace("\r", "").replace("\n", "\\n") + '"'


def node_label(model: Model, node) -> tuple[str, str]:
    """The text of a node and its fill colour."""
    target = model.target
    if node.linear is not None:
        return f"value = {linear_text(model, node)}\nn = {node.n:g}", "#ffffff"
    if not leaves_show_labels(model):  # a regression value, or a boosted tree's score
        return f"value = {value_text(node.value)}\nn = {node.n:g}", "#ffffff"
    best = leaf_class(model.combine, node.deciding_value)
    counts = node.counts or node.value
    lines = [f"{c}: {k:g}" for c, k in zip(target.classes, counts)]
    return f"{target.classes[best]}\n" + "\n".join(lines), PALETTE[best % len(PALETTE)]


def tree_context(model: Model, index: int, tree, keysets: dict[frozenset, int]) -> dict:
    """A tree's nodes and edges (``keysets``: the numbers of its tuple splits' keys, :func:`key_sets`)."""
    nodes, edges = [], []
    for node_id, node in enumerate(tree.nodes):
        text, color = node_label(model, node)
        if not node.is_leaf:  # the test, the weight, a classifier's distribution; the majority shows at leaves
            counts = text.split("\n", 1)[-1] if leaves_show_labels(model) and node.linear is None else None
            text = f"{split_name(model, node.split)} ?\nn = {node.n:g}" + (f"\n{counts}" if counts else "")
        nodes.append({"id": f"t{index}n{node_id}", "label": dot_string(text), "leaf": node.is_leaf,
                      "color": dot_string(color if node.is_leaf else "#ffffff")})
        if not node.is_leaf:
            for child, label in zip(node.children, edge_labels(model, node, keysets)):
                edges.append({"source": f"t{index}n{node_id}", "target": f"t{index}n{child}",
                              "label": dot_string(label)})
    # a "cluster_" subgraph draws a frame: only worth it to tell several trees apart
    return {"cluster": f"cluster_{index}" if len(model.trees) > 1 else f"tree_{index}", "label": dot_string(f"tree {index + 1}"), "nodes": nodes,
            "edges": edges}


def split_name(model: Model, split) -> str:
    """What a split node reads: its feature, or the features a tuple split combines and its parts read."""
    if split.op != Op.TUPLE:
        return model.features[split.feature].name
    return f"({', '.join(model.features[f].name for f in read_features(split))})"


KEYS_A_LINE = 4  # keys on each line of a keys note


def keys_context(keysets: dict[frozenset, int]) -> list[dict]:
    """A note for each set of keys the tuple splits' edges name (``keys 3``), its keys a few to a line."""
    notes = []
    for keys, n in keysets.items():
        texts = [key_text(key, label) for key in sorted_keys(keys)]
        lines = [", ".join(texts[i:i + KEYS_A_LINE]) for i in range(0, len(texts), KEYS_A_LINE)]
        notes.append({"id": f"keys{n}", "label": dot_string("\n".join([f"keys {n}"] + lines))})
    return notes


SVG_NODES = 10_000  # the most nodes rendered to SVG: Graphviz's layout time grows about as the square


def for_output(output: str, options: dict) -> dict:
    """The options with -o FILE.svg rendered as SVG where --format does not say."""
    if options.get("image_format") is None and os.path.splitext(output)[1].lower() == ".svg":
        return {**options, "image_format": "svg"}
    return options


def emit(model: Model, image_format: str = "dot") -> str:
    keysets = key_sets(model)
    text = render("dot", "tree.dot.j2", trees=[tree_context(model, i, t, keysets) for i, t in enumerate(model.trees)],
                  keys=keys_context(keysets))
    if image_format == "dot":
        return text
    if shutil.which("dot") is None:
        raise TreegenError("an SVG (--format svg, -o FILE.svg) needs Graphviz's `dot` program "
                           "(for example: apt-get install graphviz)")
    nodes = sum(len(tree.nodes) for tree in model.trees)
    if nodes > SVG_NODES:
        raise TreegenError(f"{nodes:,} nodes are more than Graphviz lays out in reasonable time (measured: 5,000 "
                           f"nodes 15 s, 10,000 nodes 73 s, growing about as the square); write --format dot")
    done = subprocess.run(["dot", "-Tsvg"], input=text, capture_output=True, text=True)
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        raise TreegenError(f"Graphviz's dot failed: {last}")
    return done.stdout
