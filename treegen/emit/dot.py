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
    """A tree's node lines and edge lines (``keysets``: the numbers of its tuple splits' keys, :func:`key_sets`),
    written here: Jinja's loops over them made a 1,000-tree model's export (511,000 nodes) 2.5 times as slow
    (8.8 s of CPU against 3.5 s)."""
    nodes, edges = [], []
    shows_labels = leaves_show_labels(model)
    for node_id, node in enumerate(tree.nodes):
        text, color = node_label(model, node)
        name = f"t{index}n{node_id}"
        if node.is_leaf:
            nodes.append(f"    {name} [label={dot_string(text)}, fillcolor={dot_string(color)}, shape=ellipse];\n")
            continue
        # the test, the weight, a classifier's distribution; the majority shows at leaves
        counts = text.split("\n", 1)[-1] if shows_labels and node.linear is None else None
        text = f"{split_name(model, node.split)} ?\nn = {node.n:g}" + (f"\n{counts}" if counts else "")
        nodes.append(f"    {name} [label={dot_string(text)}, fillcolor={dot_string('#ffffff')}];\n")
        for child, edge_label in zip(node.children, edge_labels(model, node, keysets)):
            edges.append(f"    {name} -> t{index}n{child} [label={dot_string(edge_label)}];\n")
    # a "cluster_" subgraph draws a frame: only worth it to tell several trees apart
    return {"cluster": f"cluster_{index}" if len(model.trees) > 1 else f"tree_{index}",
            "label": dot_string(f"tree {index + 1}"),
            "lines": "".join(nodes) + "".join(edges)}


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
