"""Graphviz output: edges carry the tests, leaves the distribution and majority class, coloured by class."""
import re
import shutil
import subprocess

import pytest

from treegen.data import load_dataset
from treegen.targets import emit
from treegen.errors import TreegenError
from treegen.importers import import_file
from treegen.learn import fit
from treegen.testing import HOSTILE_NAMES, random_model


def tennis():
    return fit(load_dataset("examples/play_tennis.csv"), "id3")


def test_edges_leaves_and_colours():
    text = emit(tennis(), "dot")
    assert 't0n0 -> t0n1 [label="outlook = sunny"];' in text
    assert 't0n2 [label="no\\nno: 3\\nyes: 0", fillcolor="#f5c48a", shape=ellipse];' in text
    assert 't0n3 [label="yes\\nno: 0\\nyes: 2", fillcolor="#9fd3f2", shape=ellipse];' in text
    assert emit(tennis(), "dot") == text


def test_a_boosted_trees_leaves_show_their_scores_and_strict_splits_their_sides():
    """A boosted tree's leaf adds its score to a sum: no class of its own. XGBoost's splits are strict."""
    text = emit(import_file("examples/boosting/xgboost.json"), "dot")
    assert 't0n0 [label="petal_length ?\\nn = 66.6667", fillcolor="#ffffff"];' in text
    assert 't0n1 [label="value = 0.42901554703712463\\nn = 20.4444", fillcolor="#ffffff", shape=ellipse];' in text
    assert 't0n0 -> t0n1 [label="petal_length < 3.0"];' in text and 'label="petal_length >= 3.0' in text


def test_graphviz_accepts_hostile_names_and_renders_svg():
    model = random_model(5, names=HOSTILE_NAMES[10:15], classes=tuple(HOSTILE_NAMES[15:18]), n_trees=2)
    text = emit(model, "dot")
    result = subprocess.run([shutil.which("dot"), "-Tsvg"], input=text, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    svg = emit(tennis(), "dot", image_format="svg")
    assert svg.lstrip().startswith("<?xml") and len(re.findall(r"<g id=\"node", svg)) == 8


def test_svg_of_a_tree_too_big_for_graphviz_is_one_clear_error():
    """Graphviz took over 24 minutes on 20,001 nodes: refuse rather than hang; the dot text still comes."""
    from treegen.testing import chain_model
    model = chain_model(6_000)  # 12,001 nodes
    with pytest.raises(TreegenError, match="12,001 nodes are more than Graphviz lays out"):
        emit(model, "dot", image_format="svg")
    assert emit(model, "dot").startswith("digraph")


def test_a_wide_trees_diagram_has_a_line_a_node_and_an_edge():
    """Each node's and edge's line is written in Python, not by a loop of Jinja's (50,000 leaves took 2.5-2.7 s
    of CPU so, 1.1-1.3 s now; a 1,000-tree LightGBM model of depth 8: 8.8 s, 3.5 s): every node and edge is there,
    the leaves drawn as ellipses in their colours, the splits white."""
    from treegen.testing import wide_model
    text = emit(wide_model(50_000), "dot")
    assert text.count(" -> t0n") == 99_998 and text.count(", shape=ellipse];\n") == 50_000
    assert text.count('fillcolor="#ffffff"];\n') == 1 + 49_999  # the defaults' line, the splits'
    assert text.endswith("];\n  }\n}\n")
