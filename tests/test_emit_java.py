"""The generated Java class, compiled with javac and run with java, predicts what the model predicts
(bit for bit where the arithmetic is the same; 1e-12 relative through exp), at any size -- with every
method under HotSpot's 8,000-byte JIT limit and every constant pool under 65,535 entries -- with any
names, and its program follows the CSV protocol. Many classes compile in one javac call."""
from __future__ import annotations

import csv
import glob
import io
import json
import os
import re
import subprocess
import tempfile
from dataclasses import replace
from functools import cache

import pytest
from hypothesis import given, settings, strategies as st

from treegen.targets import emit
from treegen.emit.java import JIT_LIMIT, NESTED, POOL_LIMIT, RESERVED
from treegen.errors import TreegenError
from treegen.model import CLASSIFICATION, Combine, MissingRoute, NumericSemantics, Target, leaf_ids
from treegen.probes import probe_rows
from treegen.run.java import compile_sources, run
from treegen.testing import HOSTILE_NAMES, chain_model, is_close, random_model, random_rows, wide_model

from test_emit_python import (check_closed_pipe, check_errors, check_model_part, check_options,
                              check_zero_weight_leaves, extreme_model, hostile_models, leaves, to_csv)


def boosted(seed: int, link: str):
    width = 1 if link == "sigmoid" else 3
    model = random_model(seed, regression=True, n_trees=2 * width)
    for i, tree in enumerate(model.trees):
        tree.output = i % width
    classes = ("no", "yes") if link == "sigmoid" else ("a", "b", "c")
    return replace(model, target=Target("y", CLASSIFICATION, classes),
                   combine=Combine("sum", tuple(0.25 * (k + 1) for k in range(width)), 0.1, link))


def varied_models() -> list:
    """Every kind of model the back end must take: split kinds, missing routes, semantics, forests,
    boosting with per-class trees and links, regression, hostile names."""
    models = []
    for seed in range(6):
        models.append(random_model(seed, max_depth=6))
        models.append(random_model(100 + seed, regression=True, max_depth=6, missing_kinds=("fraction", "stop")))
    models.append(random_model(7, numeric=NumericSemantics("float32"), max_depth=7))
    models.append(random_model(8, numeric=NumericSemantics(tolerance=1e-6), max_depth=7))
    models.append(random_model(9, n_trees=5))
    models.append(random_model(10, n_trees=4, regression=True, missing_kinds=("fraction",)))
    models += [boosted(11, "sigmoid"), boosted(12, "softmax"), boosted(13, "identity")]
    models.append(extreme_model())
    models.append(random_model(14, names=HOSTILE_NAMES[:5], classes=HOSTILE_NAMES[20:25]))
    models.append(random_model(15, names=HOSTILE_NAMES[25:30], classes=HOSTILE_NAMES[30:35]))
    return models


def exact(model) -> bool:
    """Whether Java's arithmetic is the model's: all but Math.exp, which may differ in the last bit."""
    return model.combine.link not in ("sigmoid", "softmax")


def check_program(model, source: str, rows) -> None:
    text = to_csv(model, rows)
    labels = [r[0] for r in csv.reader(io.StringIO(run(source, text), newline=""))]
    if model.target.is_classification:
        assert labels == [model.predict(r) for r in rows]
        proba = list(csv.reader(io.StringIO(run(source, text, ["--proba"]), newline="")))
        assert proba[0] == list(model.target.classes)
        got, expected = [[float(p) for p in r] for r in proba[1:]], [model.scores(r) for r in rows]
    else:
        got, expected = [[float(v)] for v in labels], [[model.predict(r)] for r in rows]
    if exact(model):
        assert got == expected
    else:
        assert all(is_close(a, b) for g, e in zip(got, expected) for a, b in zip(g, e))


def test_every_kind_of_model_is_exact():
    models = varied_models()
    sources = [emit(m, "java", proba=True, leaf=True, package=f"m{i}") for i, m in enumerate(models)]
    compile_sources(sources, lint=True)  # javac -Xlint:all finds nothing
    for model, source in zip(models, sources):
        rows = probe_rows(model, 200) + random_rows(model, 60)
        check_program(model, source, rows)
    for model, source in zip(models, sources):
        fractional = any(n.split is not None and n.split.missing.kind == "fraction" for n in model.trees[0].nodes)
        if model.combine.kind == "average" or fractional:  # several trees, or several leaves in one
            rows = probe_rows(model, 100)
            printed = run(source, to_csv(model, rows), ["--leaf"]).splitlines()
            assert printed == [leaf_ids(model, r) for r in rows]


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 1000), features=st.lists(st.sampled_from(HOSTILE_NAMES), min_size=5, max_size=5, unique=True),
       classes=st.lists(st.sampled_from(HOSTILE_NAMES), min_size=2, max_size=4, unique=True))
def test_hostile_names(seed, features, classes):
    model = random_model(seed, names=features, classes=classes, max_depth=6)
    source = emit(model, "java", proba=True)
    assert source.isascii()
    check_program(model, source, probe_rows(model, 100))


def class_files(directory: str) -> list[str]:
    return sorted(glob.glob(os.path.join(directory, "**", "*.class"), recursive=True))


def method_sizes(directory: str) -> list[int]:
    """Bytecode length of every method in the compiled classes (from javap's instruction offsets)."""
    names = [path[len(directory) + 1:-len(".class")].replace(os.sep, ".") for path in class_files(directory)]
    listing = subprocess.run(["javap", "-c", "-p", "-cp", directory, *names], capture_output=True,
                             text=True, check=True).stdout
    sizes, last, in_switch = [], None, False
    for line in listing.splitlines():
        offset = re.match(r"\s+(\d+): (\w+)", line)
        if in_switch or offset and offset.group(2).endswith("switch"):  # its "key: target" lines
            in_switch = line.strip() != "}"
        elif offset:
            last = int(offset.group(1)) + (1 if offset.group(2).endswith("return") else 3)
        elif last is not None:
            sizes.append(last)
            last = None
    return sizes


def pool_sizes(directory: str) -> list[int]:
    """constant_pool_count of every class file (bytes 8-9 of the format)."""
    sizes = []
    for path in class_files(directory):
        with open(path, "rb") as handle:
            sizes.append(int.from_bytes(handle.read(10)[8:10], "big"))
    return sizes


@cache
def c45_chain():
    """chain_model(10_000) with C4.5's fractional route at every split, with weights whose products
    round (a missing value reaches every leaf), and its Java source."""
    model = chain_model(10_000)
    route = MissingRoute.fraction((0.3, 0.7))
    for node in model.trees[0].nodes:
        if node.split is not None:
            node.split = replace(node.split, missing=route)
    return model, emit(model, "java", proba=True, leaf=True, package="fractions")


def test_big_models_compile_under_the_jvm_limits_and_predict_exactly():
    models = {"wide": wide_model(50_000), "chain": chain_model(10_000),
              "forest": random_model(1, n_trees=500, max_depth=6)}
    sources = {name: emit(m, "java", package=name) for name, m in models.items()}
    models["fractions"], sources["fractions"] = c45_chain()
    directories = dict(zip(sources, compile_sources(list(sources.values()), lint=True)))
    for name, model in models.items():
        if name != "forest":  # its trees are small: the limits are the big trees' problem
            assert max(method_sizes(os.path.join(directories[name], name))) < JIT_LIMIT, name
        assert max(pool_sizes(os.path.join(directories[name], name))) < POOL_LIMIT, name
        probes = probe_rows(model, 1000)
        rows = probes[::max(1, len(probes) // 150)] + random_rows(model, 50)
        labels = [r[0] for r in csv.reader(io.StringIO(run(sources[name], to_csv(model, rows))))]
        assert labels == [model.predict(r) for r in rows], name
    assert len(pool_sizes(os.path.join(directories["wide"], "wide"))) > 4  # the tree spans several classes


def test_fractional_routes_at_any_depth():
    """Walkers of a fractional tree run from a loop, not inside each other: no StackOverflowError
    at 10,000 levels, present or missing, with default JVM settings."""
    model, source = c45_chain()
    rows = [{"x": v} for v in (None, -1.0, 0.5, 5.0, 9998.5, 9999.0, 1e9, float("inf"))]
    text = to_csv(model, rows)
    proba = list(csv.reader(io.StringIO(run(source, text, ["--proba"]))))
    assert [[float(p) for p in r] for r in proba[1:]] == [model.scores(r) for r in rows]
    assert run(source, text, ["--leaf"]).splitlines() == [leaf_ids(model, r) for r in rows]


def test_java_8_release():
    model = boosted(3, "softmax")
    source = emit(model, "java", proba=True, leaf=True, class_name="Scorer", package="com.bank.risk")
    assert run(source, to_csv(model, []), release="8") == ""


HARNESS = """
import java.util.*;
public class Harness {
    public static void main(String[] args) {
        Map<String, Object> row = new HashMap<>();
        row.put("x0", 0.5);
        row.put("x1", 2);
        row.put("x2", null);
        row.put("c0", "v0_1");
        Object[] positional = {0.5, 2, null, "v0_1", "unseen"};
        System.out.println(Scorer.predict(row) + "," + Scorer.predict(positional));
        System.out.println(Arrays.toString(Scorer.predictProba(row)));
        System.out.println(Arrays.deepToString(Scorer.predictLeaf(positional)));
        System.out.println(Scorer.FEATURES + "" + Scorer.CLASSES);
        System.out.println(Scorer.predict(Scorer.encode(row)) + Arrays.toString(Scorer.predictProba(Scorer.encode(row))));
    }
}
"""


def test_the_api_embeds_in_a_java_program():
    model = random_model(4, max_depth=7)
    source = emit(model, "java", leaf=True, class_name="Scorer")
    with tempfile.TemporaryDirectory() as directory:
        for name, text in (("Scorer.java", source), ("Harness.java", HARNESS)):
            with open(os.path.join(directory, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        subprocess.run(["javac", "-d", directory, *glob.glob(os.path.join(directory, "*.java"))], check=True)
        printed = subprocess.run(["java", "-cp", directory, "Harness"], capture_output=True, text=True,
                                 check=True).stdout.splitlines()
    row = {"x0": 0.5, "x1": 2.0, "x2": None, "c0": "v0_1"}
    label = model.predict(row)
    assert printed[0] == f"{label},{label}"
    assert [float(p) for p in printed[1].strip("[]").split(", ")] == model.scores(row)
    assert printed[2] == str(leaves(model, row))
    assert printed[3] == "[x0, x1, x2, c0, c1][a, b, c]"
    assert printed[4] == label + printed[1]  # the encoded fast path


def test_program_errors_exit_2():
    check_errors("java")


def test_program_options_and_columns():
    check_options("java")


def test_closed_pipe_ends_quietly():
    check_closed_pipe("java")


def test_deterministic_and_names_checked():
    model = random_model(9, n_trees=3, max_depth=6)
    assert emit(model, "java", proba=True) == emit(random_model(9, n_trees=3, max_depth=6), "java", proba=True)
    for bad in ("class", "1abc", "a-b", "P0", "Acc", ""):
        with pytest.raises(TreegenError):
            emit(model, "java", class_name=bad)
    with pytest.raises(TreegenError):
        emit(model, "java", package="com.if.x")


def test_program_matches_names_stripped_of_spaces():
    """A model's names may have spaces around them (quoted ARFF names); a CSV header's are stripped."""
    model = random_model(3, names=[" leading space", "trailing ", "both", "x", "y"], max_depth=5)
    rows = random_rows(model, 40)
    text = to_csv(model, rows)
    padded = "  leading space ,trailing,  both  " + text[text.index(",x,y\n"):]
    assert run(emit(model, "java"), padded).splitlines() == run(emit(model, "java"), text).splitlines()


@pytest.mark.parametrize("name", ["Map", "List", "Arrays", "Pattern", "String", "Object", "Math", "Double",
                                  "Integer", "System", "StringBuilder", "IOException"])
def test_class_names_the_generated_code_uses_are_refused(name):
    model = random_model(1)
    with pytest.raises(TreegenError, match=f"class name '{name}' is a name the generated code uses"):
        emit(model, "java", class_name=name)


def test_unusual_class_names_that_are_accepted_compile():
    """Every name the generated code does not refuse compiles: names of JDK types it does not use, too."""
    model = random_model(1)
    rows = random_rows(model, 20, 1)
    for name in ("Reader", "Long", "Thread", "Model", "Tree", "Node", "Class", "Enum", "USED", "FEATURES", "java"):
        source = emit(model, "java", class_name=name, proba=True)
        [directory] = compile_sources([source])
        assert os.path.exists(os.path.join(directory, name + ".class"))
        check_program(model, source, rows)


def without_comments_and_literals(source: str) -> str:
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'', " ", source, flags=re.S)


def test_reserved_names_are_the_types_the_code_names():
    """RESERVED lists the types the generated code names unqualified, no more and no fewer: over every
    kind of model, with and without leaf ids, the capitalised names it uses are those, the nested
    classes, its own constants and itself."""
    used = set()
    for model in varied_models():
        for leaf in (False, True):
            code = without_comments_and_literals(emit(model, "java", leaf=leaf))
            used |= set(re.findall(r"(?<![\w.$])[A-Z][\w$]*", code))
    own = {name for name in used if re.fullmatch(r"[A-Z][A-Z0-9_]*|P[0-9]+", name)} | {"TreegenModel"}
    assert used - own == RESERVED | set(NESTED)


def test_each_test_names_its_feature_and_categories_in_a_comment_no_name_can_end():
    """The comment beside a test holds the feature's name (and categories) as Java string literals:
    they read back as the names, and no name can end the comment -- javac reads a \\u000a escape as a
    line break even there, so the source holds none that javac would read."""
    models = hostile_models()
    sources = [emit(m, "java", package=f"h{i}") for i, m in enumerate(models)]
    compile_sources(sources, lint=True)
    for model, source in zip(models, sources):
        for escape in re.findall(r"\\+u+000[aAdD]", source):
            assert (len(escape) - len(escape.lstrip("\\"))) % 2 == 0, escape  # a backslash escaped, not an escape
        walkers = source[source.index("static final class P0"):source.index("// -- helpers")].splitlines()
        tests = [line for line in walkers if line.lstrip().startswith("if (") and "x[" in line]
        assert tests
        for line in tests:
            match = re.search(r"x\[(\d+)\].*\{  // (.*)$", line)
            feature = model.features[int(match.group(1))]
            literals = [json.loads(text) for text in re.findall(r'"(?:\\.|[^"\\])*"', match.group(2))]
            assert literals[0] == feature.name and set(literals[1:]) <= set(feature.categories), line


def test_the_program_is_one_fixed_text_and_the_model_part_is_short():
    check_model_part("java", "runtime.java.txt", 200)


def test_leaf_ids_leave_out_nodes_reached_with_weight_zero():
    check_zero_weight_leaves("java")
