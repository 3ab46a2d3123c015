"""The generated Java class, compiled with javac and run with java, predicts what the model predicts
bit for bit (glibc's exp and expf included), at any size -- with every method under HotSpot's
8,000-byte JIT limit and every constant pool under 65,535 entries -- with any names, and its program
follows the CSV protocol. Many classes compile in one javac call and answer in one JVM; programs whose
output is what a test checks run in a JVM kept loaded (run_loaded), and those whose JVM is part of the
point -- the protocol's errors, options and closed pipe, the big classes, the deepest walks with the
default stack, Java 8 -- run as a user runs them, a JVM each."""
from __future__ import annotations

import copy
import csv
import glob
import io
import itertools
import json
import math
import os
import random
import re
import struct
import subprocess
import tempfile
from dataclasses import replace
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from treegen.targets import emit
from treegen.emit.java import INLINED_BYTES, JIT_LIMIT, NESTED, POOL_LIMIT, RESERVED, jdk_packages
from treegen.errors import TreegenError
from treegen.emit.common import category_codes
from treegen.model import (CLASSIFICATION, NOMINAL, NUMERIC, Codes, Combine, MissingRoute, NumericSemantics, Route,
                           Target, has_label_values)
from treegen.probes import probe_rows
from treegen.run.java import class_name, compile_sources, run, run_loaded
from treegen.testing import HOSTILE_NAMES, category_stump, chain_model, random_model, random_rows, wide_model
from treegen.walk import leaf_ids_rows, predict_rows

from test_emit_python import boosted as python_boosted
from test_emit_python import (FRACTION_NAMES, check_closed_pipe, check_errors, check_library, check_model_part, code_read,
                              code_probe_model,
                              fixture_cases,
                              one_node_reached, symmetric_trees,
                              as_csv_reads, check_options, check_printed, check_zero_weight_leaves, extreme_model,
                              hostile_models,
                              latest, leaves, misspelt_models, rows_leaves, misspelt_readings, unnamed_models, unnamed_readings, same, to_csv, REFUSED_SPELLINGS,
                              spelled_readings, spelling_models)
from test_rule_text import boosted_models, colour_model, linear_models, rows_for as edge_rows


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


def check_program(model, source: str, rows) -> None:
    check_printed(model, source, rows, runner=run_loaded)


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
            printed = run_loaded(source, to_csv(model, rows), ["--leaf"]).splitlines()
            assert printed == leaf_ids_rows(model, rows)


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


# Bytes each constant-pool entry holds after its tag, by tag (the class-file format, JVMS 4.4); a
# Utf8 entry (tag 1) gives its own length.
POOL_ENTRY_BYTES = {3: 4, 4: 4, 5: 8, 6: 8, 7: 2, 8: 2, 9: 4, 10: 4, 11: 4, 12: 4, 15: 3, 16: 2, 17: 4, 18: 4, 19: 2,
                    20: 2}


def code_lengths(data: bytes) -> dict[str, int]:
    """The code_length of every method's Code attribute in one class file, by the method's name: the
    bytecode size HotSpot compares with its limits. Read from the format itself (JVMS 4.1), where javap's
    listing of big classes took 17 s of CPU."""
    count, at, index, utf8 = struct.unpack_from(">H", data, 8)[0], 10, 1, {}
    while index < count:
        tag = data[at]
        if tag == 1:
            length = struct.unpack_from(">H", data, at + 1)[0]
            utf8[index] = data[at + 3:at + 3 + length]
            at += 3 + length
        else:
            at += 1 + POOL_ENTRY_BYTES[tag]
        index += 2 if tag in (5, 6) else 1  # a long or a double takes two entries
    at += 6  # access flags, this class, super class
    at += 2 + 2 * struct.unpack_from(">H", data, at)[0]  # the interfaces
    sizes = {}
    for members in ("fields", "methods"):
        count, at = struct.unpack_from(">H", data, at)[0], at + 2
        for _ in range(count):
            method = utf8[struct.unpack_from(">H", data, at + 2)[0]].decode()
            attributes, at = struct.unpack_from(">H", data, at + 6)[0], at + 8
            for _ in range(attributes):
                name, length = struct.unpack_from(">HI", data, at)
                if members == "methods" and utf8[name] == b"Code":
                    size = struct.unpack_from(">I", data, at + 10)[0]  # after max_stack, max_locals
                    sizes[method] = max(size, sizes.get(method, 0))  # an overloaded method: its longest
                at += 6 + length
    return sizes


def method_sizes(directory: str) -> dict[str, int]:
    """Bytecode length of every method in the compiled classes, by ``Class.method`` (a nested class by
    its own name)."""
    sizes = {}
    for path in class_files(directory):
        with open(path, "rb") as handle:
            owner = os.path.basename(path)[:-len(".class")].split("$")[-1]
            sizes |= {f"{owner}.{method}": size for method, size in code_lengths(handle.read()).items()}
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


@pytest.mark.slow
def test_big_models_compile_under_the_jvm_limits_and_predict_exactly():
    models = {"wide": wide_model(50_000), "chain": chain_model(10_000),
              "forest": random_model(1, n_trees=500, max_depth=6)}
    sources = {name: emit(m, "java", package=name) for name, m in models.items()}
    models["fractions"], sources["fractions"] = c45_chain()
    directories = dict(zip(sources, compile_sources(list(sources.values()), lint=True)))
    for name, model in models.items():
        if name != "forest":  # its trees are small: the limits are the big trees' problem
            assert max(method_sizes(os.path.join(directories[name], name)).values()) < JIT_LIMIT, name
        assert max(pool_sizes(os.path.join(directories[name], name))) < POOL_LIMIT, name
        probes = probe_rows(model, 1000)
        rows = probes[::max(1, len(probes) // 150)] + random_rows(model, 50)
        labels = [r[0] for r in csv.reader(io.StringIO(run(sources[name], to_csv(model, rows))))]
        assert labels == [label for label, _ in predict_rows(model, rows)], name
    assert len(pool_sizes(os.path.join(directories["wide"], "wide"))) > 4  # the tree spans several classes


def test_fractional_routes_at_any_depth():
    """Walkers of a fractional tree run from a loop, not inside each other: no StackOverflowError
    at 10,000 levels, present or missing, with default JVM settings."""
    model, source = c45_chain()
    rows = [{"x": v} for v in (None, -1.0, 0.5, 5.0, 9998.5, 9999.0, 1e9, float("inf"))]
    text = to_csv(model, rows)
    proba = list(csv.reader(io.StringIO(run(source, text, ["--proba"]))))
    assert [[float(p) for p in r] for r in proba[1:]] == [model.scores(r) for r in rows]
    assert run(source, text, ["--leaf"]).splitlines() == leaf_ids_rows(model, rows)


def test_walkers_deferred_keep_the_walks_order():
    """A spreading split calls its first child and pushes the others: on a path that goes on in first
    children, walkers deeper than DEFER_DEPTH are pushed on top of the siblings waiting, and run
    before them, so that the sums still nest as J48's (and the ids, in no pre-order, are sorted)."""
    model = chain_model(1000)
    for node in model.trees[0].nodes:
        if node.split is not None:
            node.split = replace(node.split, missing=MissingRoute.fraction((0.7, 0.3)))
            node.children = node.children[::-1]
    rows = [{"x": v} for v in (None, -1.0, 0.5, 998.5, 1e9)]
    check_printed(model, emit(model, "java", leaf=True, package="first"), rows, runner=run_loaded, leaf=True)


def test_java_8_release():
    """Java 8 compiles every helper: glibc's exp (Math.fma looked up), float32 links, missing intervals,
    unknown categories."""
    xgboost = next(case.model for case in latest(fixture_cases()) if case.name.startswith("missing-"))
    models = [boosted(3, "softmax"), xgboost, colour_model()]
    sources = [emit(model, "java", proba=True, leaf=True, class_name="Scorer", package=f"com.bank.risk{i}")
               for i, model in enumerate(models)]
    compile_sources(sources, release="8")
    for model, source in zip(models, sources):
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
    directory = compile_sources([source, HARNESS])[0]  # together: the harness needs the class
    printed = subprocess.run(["java", "-cp", directory, "Harness"], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    row = {"x0": 0.5, "x1": 2.0, "x2": None, "c0": "v0_1"}
    label = model.predict(row)
    assert printed[0] == f"{label},{label}"
    assert [float(p) for p in printed[1].strip("[]").split(", ")] == model.scores(row)
    assert printed[2] == str(leaves(model, row))
    assert printed[3] == "[x0, x1, x2, c0, c1][a, b, c]"
    assert printed[4] == label + printed[1]  # the encoded fast path



LENGTH_HARNESS = r"""
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.*;

/** Per class named, each API of an encoded row (and of many, and of an Object[]) given a row one value short and
 * one too long: what it throws, or that it answered. */
public class LengthHarness {
    public static void main(String[] args) throws Exception {
        for (String name : args) {
            Class<?> model = Class.forName(name);
            int n = ((List<?>) model.getField("FEATURES").get(null)).size();
            for (int length : new int[] {n - 1, n + 1}) {
                double[] x = new double[length];
                Object[] values = new Object[length];
                for (Method method : model.getMethods()) {
                    Class<?>[] types = method.getParameterTypes();
                    if (!method.getName().startsWith("predict") || types.length != 1 || types[0] == Map.class) continue;
                    Object row = types[0] == double[].class ? x : types[0] == Object[].class ? values : new double[][] {x};
                    String shown = name + "." + method.getName() + "(" + types[0].getSimpleName() + " of " + length + "): ";
                    try {
                        method.invoke(null, row);
                        System.out.println(shown + "answered");
                    } catch (InvocationTargetException thrown) {
                        System.out.println(shown + thrown.getCause());
                    }
                }
            }
        }
    }
}
"""


def test_an_encoded_row_of_another_length_is_refused():
    """A double[] one value short threw ArrayIndexOutOfBoundsException (or was answered, as the walk went), one
    too long was answered: refused as an Object[] is, in every API of encoded rows, of a class of one tree, of a
    forest summed tree by tree (sumsOfRows), of a boosted model, of a regression."""
    forest = random_model(3, n_trees=3, missing_kinds=(Route.CHILD,))
    models = {"OneTree": (random_model(4, max_depth=7), True), "Forest": (forest, False),
              "Boosted": (python_boosted(2, "softmax"), False), "Valued": (random_model(5, regression=True), True)}
    sources = [emit(model, "java", leaf=leaf, class_name=name) for name, (model, leaf) in models.items()]
    assert "sumsOfRows(" in sources[1]  # the forest is summed tree by tree
    directory = compile_sources(sources + [LENGTH_HARNESS])[0]
    printed = subprocess.run(["java", "-cp", directory, "LengthHarness", *models], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    apis = {"OneTree": 8, "Forest": 6, "Boosted": 6, "Valued": 5}  # methods of one row (not Map) or of rows
    assert len(printed) == 2 * sum(apis.values())
    for line in printed:
        length = int(re.search(r" of ([0-9]+)\): ", line).group(1))
        assert line.endswith(f": java.lang.IllegalArgumentException: expected 5 values, got {length}"), line


# One field of a harness's rows file, as harness_field writes it, in both harnesses below.
HARNESS_FIELD = r"""
    /** A field: % missing, n a double's bits, f a float's bits, i an Integer, l a Long, b a Boolean, else
     * text (URL-encoded after its one-letter tag). */
    static Object field(String f) throws Exception {
        return f.equals("%") ? null : f.startsWith("n")
            ? (Object) Double.longBitsToDouble(Long.parseUnsignedLong(f.substring(1), 16))
            : f.startsWith("i") ? (Object) Integer.valueOf(f.substring(1))
            : f.startsWith("l") ? (Object) Long.valueOf(f.substring(1))
            : f.startsWith("f") ? (Object) Float.intBitsToFloat(Integer.parseUnsignedInt(f.substring(1), 16))
            : f.startsWith("b") ? (Object) Boolean.valueOf(f.substring(1))
            : URLDecoder.decode(f.substring(1), "UTF-8");
    }
"""


SPELL_HARNESS = r"""
import java.lang.reflect.InvocationTargetException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;

/** Each row of the file (fields as ApiHarness reads them, "b" a Boolean) through predict of a Map and of an
 * Object[]: the answer (a double as its bits, a label as its UTF-16 units), or "refused: " and the message
 * of a NumberFormatException. */
public class SpellHarness {
""" + HARNESS_FIELD + r"""
    static String answer(Class<?> model, Object row) throws Exception {
        try {
            Object got = model.getMethod("predict", row instanceof Map ? Map.class : Object[].class).invoke(null, row);
            if (got instanceof Double) return Long.toHexString(Double.doubleToRawLongBits((Double) got));
            StringBuilder out = new StringBuilder("s");
            for (char c : ((String) got).toCharArray()) out.append(String.format("%04x", (int) c));
            return out.toString();
        } catch (InvocationTargetException thrown) {
            if (thrown.getCause() instanceof NumberFormatException) return "refused: " + thrown.getCause().getMessage();
            throw thrown;
        }
    }

    public static void main(String[] args) throws Exception {
        Class<?> model = Class.forName(args[0]);
        @SuppressWarnings("unchecked")
        List<String> features = (List<String>) model.getField("FEATURES").get(null);
        StringBuilder out = new StringBuilder();
        for (String line : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            String[] fields = line.split("\t", -1);
            Object[] row = new Object[features.size()];
            Map<String, Object> map = new HashMap<>();
            for (int i = 0; i < fields.length; i++) {
                row[i] = field(fields[i]);
                if (row[i] != null) map.put(features.get(i), row[i]);
            }
            out.append(answer(model, map)).append('\t').append(answer(model, row)).append('\n');
        }
        System.out.print(out);
    }
}
"""


MANY_HARNESS = r"""
import java.lang.reflect.InvocationTargetException;
import java.util.*;

/** For each model class named and each of its features, many values (a List, a String[], a double[], a Set, a
 * Map, an Iterator, a Stream) given for it, the others missing, through predict of a Map and of an Object[]: the message of the
 * IllegalArgumentException each raises, or "answered" where one answers. */
public class ManyHarness {
    static String answer(Class<?> model, Object row) throws Exception {
        try {
            model.getMethod("predict", row instanceof Map ? Map.class : Object[].class).invoke(null, row);
            return "answered";
        } catch (InvocationTargetException thrown) {
            if (thrown.getCause() instanceof IllegalArgumentException) return thrown.getCause().getMessage();
            throw thrown;
        }
    }

    public static void main(String[] args) throws Exception {
        Object[] many = {Arrays.asList("v0_1"), new String[] {"v0_1"}, new double[] {1.0},
                         new HashSet<String>(Arrays.asList("v0_1")), Collections.singletonMap("v0_1", 1.0),
                         Arrays.asList("v0_1").iterator(), Arrays.asList("v0_1").stream()};
        for (String name : args) {
            Class<?> model = Class.forName(name);
            @SuppressWarnings("unchecked")
            List<String> features = (List<String>) model.getField("FEATURES").get(null);
            for (int i = 0; i < features.size(); i++) {
                for (Object value : many) {
                    Object[] row = new Object[features.size()];
                    row[i] = value;
                    System.out.println(answer(model, Collections.singletonMap(features.get(i), value)));
                    System.out.println(answer(model, row));
                }
            }
        }
    }
}
"""


def test_many_values_for_a_feature_are_refused():
    """A List, an array or a Map given for a nominal feature was read by its toString(), no category: the
    missing route, a silent wrong answer (and for a numeric feature a message quoting "[v0_1]"). As the Python
    and JavaScript targets do, the Map and Object[] APIs refuse many values in one line naming the feature --
    for every feature some split reads, of a model with plain, named and coded nominal features."""
    plain = random_model(0, n_numeric=1, n_nominal=3, max_depth=5)
    models = [plain, with_codes(plain, [Codes.TRUNCATED, None]), random_model(4, n_numeric=2, n_nominal=2)]
    sources = [emit(model, "java", package=f"many{i}") for i, model in enumerate(models)]
    directory = compile_sources(sources + [MANY_HARNESS])[0]
    printed = subprocess.run(["java", "-cp", directory, "ManyHarness", *map(class_name, sources)],
                             capture_output=True, text=True, check=True).stdout.splitlines()
    kinds = ["ArrayList", "String[]", "double[]", "HashSet", "SingletonMap", "Iterator", "Stream"]
    expected = [f"feature '{feature.name}': many values ({kind}), not one: predict takes one row, a Map of feature "
                "name to value or an Object[] of one value per feature"
                if i in model.used_features() else "answered"
                for model in models for i, feature in enumerate(model.features)
                for kind in kinds for _ in ("map", "array")]
    assert printed == expected
    assert {f.kind for model in models for i, f in enumerate(model.features) if i in model.used_features()} == {
        NUMERIC, NOMINAL}


def test_numeric_text_is_read_by_the_number_grammar_alone():
    """A Map's or an Object[]'s text for a numeric feature is read as the model and the other targets read
    it (treegen's number grammar), other text refused with their message; a Boolean is 1 or 0."""
    from urllib.parse import quote
    for model in spelling_models():
        rows, readings = spelled_readings(model)
        source = emit(model, "java", package=f"k{next(PACKAGES)}")
        directories = compile_sources([source, SPELL_HARNESS])
        field = lambda f, v: (f"b{str(v).lower()}" if isinstance(v, bool) else "s" + quote(v, safe="")
                              if isinstance(v, str) and f.is_numeric else harness_field(f, v))
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "rows.txt")
            with open(path, "w", encoding="utf-8") as handle:
                handle.writelines("\t".join(field(f, row.get(f.name)) for f in model.features) + "\n" for row in rows)
            done = subprocess.run(["java", "-cp", os.pathsep.join(dict.fromkeys(directories)), "SpellHarness",
                                   class_name(source), path], capture_output=True, text=True, timeout=600, check=True)
        answers = [line.split("\t") for line in done.stdout.splitlines()]
        assert len(answers) == len(rows)
        for row, want, got in zip(rows, readings, answers):
            expected = want if str(want).startswith("refused: ") else None
            assert all(g == expected if expected else same(as_answer(model, g), want) for g in got), (row, got, want)
        assert sum(str(want).startswith("refused: ") for want in readings) == len(REFUSED_SPELLINGS) * sum(
            model.features[i].is_numeric for i in model.used_features())


MAP_HARNESS = r"""
import java.lang.reflect.InvocationTargetException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;

/** Each line of the file, a key (URL-encoded) and a field as ApiHarness reads it, in turns, through predict of
 * a Map: the label, or "refused: " and the message of an IllegalArgumentException. */
public class MapHarness {
""" + HARNESS_FIELD + r"""
    public static void main(String[] args) throws Exception {
        Class<?> model = Class.forName(args[0]);
        StringBuilder out = new StringBuilder();
        for (String line : Files.readAllLines(Paths.get(args[1]), StandardCharsets.UTF_8)) {
            String[] parts = line.split("\t", -1);
            Map<String, Object> row = new HashMap<>();
            for (int i = 0; i + 1 < parts.length; i += 2) row.put(URLDecoder.decode(parts[i], "UTF-8"), field(parts[i + 1]));
            try {
                out.append(model.getMethod("predict", Map.class).invoke(null, row));
            } catch (InvocationTargetException thrown) {
                if (!(thrown.getCause() instanceof IllegalArgumentException)) throw thrown;
                out.append("refused: ").append(thrown.getCause().getMessage());
            }
            out.append('\n');
        }
        System.out.print(out);
    }
}
"""


def test_a_misspelt_key_is_refused_as_the_model_refuses_it():
    """A Map's key spelt almost as a feature that the row lacks ('humidty') is refused with the model's message,
    not read as the feature missing; a key like no feature is left alone."""
    assert_map_answers([(model, *misspelt_readings(model)) for model in misspelt_models()])


def test_a_row_that_names_no_feature_is_refused_as_the_model_refuses_it():
    """A Map that names none of the model's features (empty, a table's raw columns) is refused with the model's
    message (null for None), not answered as a row of missing values; one naming only a feature no split reads
    is answered, as is any row by a model without a split."""
    assert_map_answers([(model, *unnamed_readings(model)) for model in unnamed_models()])


def assert_map_answers(models_rows_readings) -> None:
    """Each model's Java predict of a Map (MapHarness) answers each row as the readings say."""
    from urllib.parse import quote
    for model, rows, readings in models_rows_readings:
        source = emit(model, "java", package=f"k{next(PACKAGES)}")
        directories = compile_sources([source, MAP_HARNESS])
        feature = {f.name: f for f in model.features}
        field = lambda key, v: harness_field(feature.get(key, model.features[0]), v)
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "rows.txt")
            with open(path, "w", encoding="utf-8") as handle:
                handle.writelines("\t".join(f"{quote(k, safe='')}\t{field(k, v)}" for k, v in row.items()) + "\n"
                                  for row in rows)
            done = subprocess.run(["java", "-cp", os.pathsep.join(dict.fromkeys(directories)), "MapHarness",
                                   class_name(source), path], capture_output=True, text=True, timeout=600, check=True)
        assert done.stdout.splitlines() == [want.replace("as None", "as null") for want in readings]


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


@pytest.mark.parametrize("option,name,problem", [
    ("class_name", "_", "not a Java identifier"),  # a keyword since Java 9
    ("class_name", "java", "would hide the package java"),  # exp's java.lang.invoke.MethodHandle: no compile
    ("package", "_", "not a Java identifier"), ("package", "a._.b", "not a Java identifier"),
    ("package", "java", "belong to the JDK"),  # compiled; the JVM refused it: "Prohibited package name"
    ("package", "java.lang", "belong to the JDK"), ("package", "java.util.mine", "belong to the JDK"),
    ("package", "javax.swing", "the JDK's modules has this package"),  # javac: "exists in another module"
    ("package", "sun.nio.ch", "the JDK's modules has this package")])  # not exported: the JVM loaded no class
def test_names_javac_or_the_jvm_refuses_are_refused_in_one_line(option, name, problem):
    model = python_boosted(9, "softmax")  # its exp names java.lang.invoke.MethodHandle
    with pytest.raises(TreegenError, match=problem) as refusal:
        emit(model, "java", **{option: name})
    assert "\n" not in str(refusal.value)
    for fine in ("java_", "Java", "javax2") if option == "class_name" else ("com.java", "javaish", "my.java.x"):
        assert emit(model, "java", **{option: fine})


JDK_PACKAGES = """import java.lang.module.ModuleFinder;

public class JdkPackages {
    public static void main(String[] args) {
        ModuleFinder.ofSystem().findAll().forEach(m -> m.descriptor().packages().forEach(System.out::println));
    }
}
"""


def test_the_installed_jdks_packages_are_refused_and_others_beside_them_compile_and_run(tmp_path):
    """javac refused `--package javax.swing` ("package exists in another module"; a package the module does not
    export compiled, and the JVM found no class in it): every package of the installed JDK's modules is refused,
    while a package within one (javax.swing.mine) or beside them (javax.mine) compiles and runs."""
    program = tmp_path / "JdkPackages.java"
    program.write_text(JDK_PACKAGES)
    listed = subprocess.run(["java", str(program)], capture_output=True, text=True, check=True).stdout.split()
    installed = {package for package in listed if package.split(".")[0] != "java"}
    assert len(installed) > 500 and installed <= jdk_packages(), sorted(installed - jdk_packages())
    model = random_model(1)
    rows = [as_csv_reads(model, row) for row in random_rows(model, 20, 1)]
    sources = [emit(model, "java", package=package) for package in ("javax.mine", "javax.swing.mine", "jdk.mine")]
    compile_sources(sources)
    for source in sources:  # a JVM each, as a user runs it: the application class loader's packages
        assert run(source, to_csv(model, rows)).splitlines() == [model.predict(row) for row in rows]


# Texts at javac's limits of a string constant, 65,535 bytes of modified UTF-8 (NUL 2 bytes, beyond the BMP 6) and
# 65,534 UTF-16 units, and past them
AT_THE_LIMIT = ["L" * 65_534, "\u00e9" * 32_767 + "L", "\0" * 32_767 + "L", "\U0001F332" * 10_922 + "LLL"]
PAST_THE_LIMIT = ["L" * 65_535, "\u00e9" * 32_768, "\0" * 32_768, "\U0001F332" * 10_922 + "LLLL"]


def test_a_string_constant_javac_refuses_is_refused_in_one_line():
    """javac failed 'constant string too long' on a category of 70,000 characters: such a text is refused."""
    for i, text in enumerate(PAST_THE_LIMIT):
        for model, what in [(category_stump(text), "category"), (category_stump("q", label=text), "class label")]:
            with pytest.raises(TreegenError, match=f"^the {what} .* bytes\\) is longer than a Java string constant"):
                emit(model, "java")
    sources = [emit(category_stump(text), "java", package=f"at{i}") for i, text in enumerate(AT_THE_LIMIT)]
    assert len(compile_sources(sources)) == len(sources)


def test_a_javac_failure_shows_javacs_own_error():
    """verify's FAILED line shows the start of the message: javac's error, not the long line it quotes."""
    source = "public final class LongText {\n    static final String S = \"" + "L" * 70_000 + "\";\n}\n"
    with pytest.raises(RuntimeError) as failure:
        compile_sources([source])
    assert "error: constant string too long" in " ".join(str(failure.value).split())[:300]


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
    names = ("Reader", "Long", "Thread", "Model", "Tree", "Node", "Class", "Enum", "USED", "FEATURES", "java")
    sources = [emit(model, "java", class_name=name, proba=True) for name in names]
    # one javac call (each class alone in the default package would need one each: a minute of javac)
    packaged = [emit(model, "java", class_name=name, proba=True, package=f"p{i}") for i, name in enumerate(names)]
    for i, (name, directory) in enumerate(zip(names, compile_sources(packaged))):
        assert os.path.exists(os.path.join(directory, f"p{i}", name + ".class"))
        check_program(model, packaged[i], rows)
    assert packaged == [f"package p{i};\n\n{source}" for i, source in enumerate(sources)]  # the same code


def without_comments_and_literals(source: str) -> str:
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])\'', " ", source, flags=re.S)


def test_reserved_names_are_the_types_the_code_names():
    """RESERVED lists the types the generated code names unqualified, no more and no fewer: over every
    kind of model, with and without leaf ids, the capitalised names it uses are those, the nested
    classes, its own constants and itself."""
    used = set()
    weka = replace(random_model(3, max_depth=6), combine=Combine(decide="weka"))
    for model in varied_models() + [case.model for case in latest(fixture_cases())] + [colour_model(), weka]:
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
    from treegen.emit.java import _runtime
    check_model_part("java", lambda model: _runtime(model)["runtime"], 224)  # (NAMED's table and words: 207; tennis: 222)


def test_fractional_sums_nest_as_j48s():
    """J48's arithmetic (treegen.model.nested_sum): a path's weight multiplies its fractions root first,
    and a split that spreads a row adds its children's sums in order from 0.0 -- not per feature, nor
    flat in node order, which differ in bits on some of these rows."""
    model = random_model(1)
    check_printed(model, emit(model, "java", leaf=True), random_rows(model, 60, 1), runner=run_loaded, leaf=True)


def test_leaf_ids_leave_out_nodes_reached_with_weight_zero():
    check_zero_weight_leaves("java")


# -- every extension of the model: missing intervals, unknown categories, the whole combine -------------


API_HARNESS = r"""
import java.lang.reflect.Method;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.*;

/** For each (class, rows file) given: each row through predict, predictProba and predictLeaf of an Object[],
 * a Map and the double[] that encode makes of it; doubles as their bits. Then a line "rows:same" when
 * predictRows and predictProbaRows, given all the encoded rows at once, answer as the double[] calls did
 * (else "rows:differ@" and the first row that differs). */
public class ApiHarness {
""" + HARNESS_FIELD + r"""
    static String bits(double v) {
        return Long.toHexString(Double.doubleToRawLongBits(v));
    }

    static String answer(Object value) {
        if (value instanceof Double) return bits((Double) value);
        if (value instanceof double[]) {
            StringBuilder out = new StringBuilder();
            for (double v : (double[]) value) out.append(out.length() > 0 ? "," : "").append(bits(v));
            return out.toString();
        }
        if (value instanceof int[][]) return Arrays.deepToString((int[][]) value);
        return URLEncoderless((String) value);
    }

    static String URLEncoderless(String text) {  // a label, as its UTF-16 units in hex
        StringBuilder out = new StringBuilder("s");
        for (char c : text.toCharArray()) out.append(String.format("%04x", (int) c));
        return out.toString();
    }

    /** predictRows, then predictProbaRows where there is one, on all the rows against the answers of the
     * double[] calls, row after row. */
    static String rowsAtOnce(Class<?> model, double[][] rows, List<String> oneByOne) throws Exception {
        List<Object> batches = new ArrayList<>();
        for (String name : new String[] {"predictRows", "predictProbaRows"}) {
            try {
                batches.add(model.getMethod(name, double[][].class).invoke(null, (Object) rows));
            } catch (NoSuchMethodException absent) {
                // a regression model: no probabilities
            }
        }
        for (int i = 0; i < rows.length; i++) {
            for (int k = 0; k < batches.size(); k++) {
                String got = answer(java.lang.reflect.Array.get(batches.get(k), i));
                if (!got.equals(oneByOne.get(i * batches.size() + k))) {
                    return "rows:differ@" + i;
                }
            }
        }
        return "rows:same";
    }

    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        for (int a = 0; a < args.length; a += 2) {
            Class<?> model = Class.forName(args[a]);
            @SuppressWarnings("unchecked")
            List<String> features = (List<String>) model.getField("FEATURES").get(null);
            List<String> lines = Files.readAllLines(Paths.get(args[a + 1]), StandardCharsets.UTF_8);
            List<double[]> encodedRows = new ArrayList<>();
            List<String> oneByOne = new ArrayList<>();
            for (String line : lines) {
                String[] fields = line.isEmpty() ? new String[0] : line.split("\t", -1);
                Object[] row = new Object[features.size()];
                Map<String, Object> map = new HashMap<>();
                for (int i = 0; i < fields.length; i++) {
                    row[i] = field(fields[i]);
                    if (row[i] != null) map.put(features.get(i), row[i]);  // an absent name is missing
                }
                if (map.isEmpty()) {  // (a row that names no feature is refused: all missing, given as null)
                    for (String name : features) map.put(name, null);
                }
                double[] encoded = (double[]) model.getMethod("encode", Object[].class).invoke(null, (Object) row);
                List<String> answers = new ArrayList<>();
                for (String name : new String[] {"predict", "predictProba", "predictLeaf"}) {
                    Method positional;
                    try {
                        positional = model.getMethod(name, Object[].class);
                    } catch (NoSuchMethodException absent) {
                        continue;
                    }
                    answers.add(answer(positional.invoke(null, (Object) row)));
                    answers.add(answer(model.getMethod(name, Map.class).invoke(null, map)));
                    answers.add(answer(model.getMethod(name, double[].class).invoke(null, (Object) encoded)));
                    if (!name.equals("predictLeaf")) oneByOne.add(answers.get(answers.size() - 1));
                }
                encodedRows.add(encoded);
                out.append(String.join("\t", answers)).append('\n');
            }
            out.append(rowsAtOnce(model, encodedRows.toArray(new double[0][]), oneByOne)).append("\n--\n");
        }
        System.out.print(out);
    }
}
"""


def harness_field(feature, value) -> str:
    """A value as ApiHarness reads it: "%" null, "n" a Double (a number), "i" an Integer (a Python int for a
    nominal feature), "f" a Float (a numpy float32), "s" a String."""
    from urllib.parse import quote
    if value is None or (feature.is_numeric and isinstance(value, float) and math.isnan(value)):
        return "%"
    if isinstance(value, np.float32):
        return "f" + struct.pack(">f", value).hex()
    if not feature.is_numeric and isinstance(value, int):
        return f"i{value}"
    if feature.is_numeric or isinstance(value, float):
        return "n" + struct.pack(">d", float(value)).hex()
    return "s" + quote(str(value), safe="")


def java_api(models_sources_rows) -> list[list[list[str]]]:
    """Per class, per row: the answers of ApiHarness (see there), all classes in one JVM."""
    sources = [source for _, source, _ in models_sources_rows]
    directories = compile_sources(sources + [API_HARNESS])  # the harness once a session: javac is slow to start
    with tempfile.TemporaryDirectory() as work:
        args = []
        for i, (model, source, rows) in enumerate(models_sources_rows):
            path = os.path.join(work, f"rows{i}.txt")
            with open(path, "w", encoding="utf-8") as handle:
                handle.writelines("\t".join(harness_field(f, row.get(f.name)) for f in model.features) + "\n"
                                  for row in rows)
            args += [class_name(source), path]
        classpath = os.pathsep.join(dict.fromkeys(directories))
        done = subprocess.run(["java", "-cp", classpath, "ApiHarness", *args], capture_output=True, text=True,
                              timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    blocks = [block.splitlines() for block in done.stdout.split("--\n")[:-1]]
    assert [block.pop() for block in blocks] == ["rows:same"] * len(blocks)  # the rows API's answers
    return [[line.split("\t") for line in block] for block in blocks]


def from_bits(text: str) -> float:
    return struct.unpack("<d", struct.pack("<Q", int(text, 16)))[0]


def as_answer(model, text: str):
    """One answer of ApiHarness back in Python: a label, a value, scores or leaf ids."""
    if text.startswith("s"):
        return "".join(chr(int(text[i:i + 4], 16)) for i in range(1, len(text), 4))
    if text.startswith("["):
        return json.loads(text)
    return [from_bits(v) for v in text.split(",")] if "," in text or model.target.is_classification else from_bits(text)


def check_java_api(model, rows, answers, leaf: bool) -> list:
    """ApiHarness's answers for one class against the model, bit for bit; the labels (values) and scores."""
    labels, scores = [], []
    wanted = rows_leaves(model, rows) if leaf else [None] * len(rows)
    for row, line, (label, expected), want in zip(rows, answers, predict_rows(model, rows), wanted, strict=True):
        got = [as_answer(model, text) for text in line]
        assert all(same(g, label) for g in got[:3]), (row, got[:3], label)
        if model.target.is_classification:
            assert all(same(g if isinstance(g, list) else [g], expected) for g in got[3:6]), (row, got[3:6], expected)
        if leaf:
            assert got[-3:] == [want] * 3, row
        labels.append(got[0])
        scores.append(got[3] if model.target.is_classification else [got[0]])
    return labels, scores


PACKAGES = itertools.count()


def check_random_models(models, seed: int, leaf: bool = True) -> list[str]:
    """The models through the Map, Object[] and double[] APIs, bit for bit, in one javac and one JVM,
    and the first three as programs; their sources. A package of its own for every class the process
    compiles: java_api's classpath holds the class directories of earlier examples too, where another
    x0.Model would be found first."""
    sources = [emit(m, "java", leaf=leaf, package=f"x{next(PACKAGES)}") for m in models]
    compile_sources(sources, lint=True)
    rows = [edge_rows(m, seed) for m in models]
    for model, answers, model_rows in zip(models, java_api(list(zip(models, sources, rows))), rows):
        check_java_api(model, model_rows, answers, leaf=leaf)
    for model, source, model_rows in list(zip(models, sources, rows))[:3]:
        check_printed(model, source, model_rows[::2], runner=run_loaded, leaf=leaf and model is models[0])
    return sources


@settings(max_examples=2, deadline=None)
@given(models=st.lists(boosted_models(), min_size=10, max_size=10), seed=st.integers(0, 1000))
def test_every_extension_of_the_model_is_exact(models, seed):
    """Random models with random values of every field boosting libraries need -- missing intervals,
    unknown categories' own children, tree weights, float32 sums, divisors, the bias added last, every
    link and label rule -- through the Map, Object[] and double[] APIs, bit for bit, all in one javac
    and one JVM; and a few as programs (the CSV reader is the one part the APIs skip)."""
    check_random_models(models, seed)


@settings(max_examples=4, deadline=None)
@given(models=st.lists(boosted_models(), min_size=10, max_size=10), seed=st.integers(0, 1000), leaf=st.booleans(),
       apart=st.booleans())
def test_trees_added_by_direct_calls_are_the_models(models, seed, leaf, apart):
    """A boosted model or a forest whose trees each reach one node adds their terms up by calling each
    tree's walker in turn (every kind of sum: float32, weights, scale, the bias added last, divisors,
    per-output trees): its walkers return the term itself, or the number of a row of terms (node ids
    with leaf ids, else distinct terms); ``apart``: each tree in a method and a class of its own, the sums
    in their array."""
    import treegen.emit.java as java
    models = [one_node_reached(m) for m in models]
    with pytest.MonkeyPatch.context() as patch:
        if apart:
            patch.setattr(java, "TREE_BYTES", java.COST.budget)
            patch.setattr(java, "SUM_ENTRIES", java.POOL_BUDGET)
            patch.setattr(java, "LOCAL_SUMS", 0)
        sources = check_random_models(models, seed, leaf=leaf)
    for model, source in zip(models, sources):
        direct = model.combine.kind != "single" and not has_label_values(model)
        methods, classes = source.count("(double[] x, double[] s) {"), source.count("static final class S")
        if not direct:
            assert methods == classes == 0
        elif apart:
            assert methods == classes == len(model.trees)
        else:
            assert methods == classes == 1
        if direct:  # no tree through the general machinery
            assert " output(" not in source
        width_one = all(len(t.nodes[i].value) == 1 for t in model.trees for i in t.leaves())
        # without leaf ids, trees of one number each return their leaf's term: no table of values, but
        # for a symmetric tree, whose walker returns its leaf's index
        levelled = re.search(r"static int t[0-9]+n0\(double\[\] x\) \{\n *return .* \? ", source)
        assert (" VALUES = " in source) == (not direct or leaf or not width_one or bool(levelled))


def test_a_method_adds_no_more_small_trees_than_the_jit_inlines():
    """HotSpot inlines a hot walker of at most 325 bytes (FreqInlineSize; a symmetric tree of depth 6 is
    about 100) into the method of S0, S1... that adds it, but stops inlining past 8,000 bytes of bytecode
    in one compilation (C2's DesiredMethodLimit), leaving the rest calls: groups of 84 CatBoost trees
    took 2.7 us a row through the rows API, groups of 31 1.9 (bench/README.md)."""
    model = symmetric_trees(random_model(7, n_numeric=8, n_nominal=0, regression=True, n_trees=300,
                                         missing_kinds=(Route.CHILD,)), 7, depth=6)
    source = emit(model, "java", package="symmetric")
    sizes = method_sizes(os.path.join(compile_sources([source])[0], "symmetric"))
    methods = re.findall(r"\n {8}static void (add[0-9]+)\(double\[\] x, double\[\] s\) \{\n(.*?)\n {8}\}", source, re.S)
    assert len(methods) > 2
    for name, body in methods:
        walkers = [sizes[f"{part}.{walker}"] for part, walker in re.findall(r"\b(P[0-9]+)\.(t[0-9]+n0)\(x\)", body)]
        assert 50 < max(walkers) <= INLINED_BYTES
        assert sizes[f"S0.{name}"] + sum(walkers) <= 8000, name


@settings(max_examples=3, deadline=None)
@given(models=st.lists(boosted_models(), min_size=10, max_size=10), seed=st.integers(0, 1000), leaf=st.booleans())
def test_symmetric_trees_are_the_models(models, seed, leaf):
    """Symmetric trees (CatBoost's) with every kind of two-way split and missing route, in every kind
    of model: without leaf ids each walker computes its leaf's index from each level's test, without a
    branch; with them it walks."""
    models = [symmetric_trees(m, seed + k) for k, m in enumerate(models)]
    sources = check_random_models(models, seed, leaf=leaf)
    indexed = sum(len(re.findall(r"\n *return \(.* \? [0-9]+ : [0-9]+\);\n", source)) for source in sources)
    assert (indexed > 0) == (not leaf)


@settings(max_examples=2, deadline=None)
@given(models=st.lists(linear_models(), min_size=10, max_size=10), seed=st.integers(0, 1000))
def test_linear_leaves_are_exact(models, seed):
    """Linear leaves (LightGBM's linear trees) on random boosted models, through the APIs, bit for bit,
    in one javac and one JVM; and a few as programs."""
    check_random_models(models, seed)


def test_unknown_categories_go_to_their_own_child():
    """A missing category is -1 and an unknown one -2: where a split sends them different ways, every
    shape of row, and the program, tell them apart."""
    model = colour_model()
    rows = [{"color": c, "size": s} for c in ("red", "green", "blue", None, "purple", "")
            for s in (-1.0, -0.5, 0.0, 1e-300, -1e-300, 3.0, None, math.nan)]
    source = emit(model, "java", leaf=True, package="colour")
    assert "x[0] == -1.0 || x[0] == 0.0" in source
    check_java_api(model, rows, java_api([(model, source, rows)])[0], leaf=True)
    check_printed(model, source, rows, runner=run_loaded, leaf=True)


@pytest.mark.slow
def test_imported_models_predict_what_their_library_predicted():
    """Every fixture model, compiled (javac -Xlint:all finds nothing): what its class answers is the
    model's, bit for bit, and the library's; the latest version's fixtures whose rows the CSV reader must
    read the model's way (categories, numbers in a missing interval) run as programs too."""
    sources = [emit(case.model, "java", package=f"f{i}") for i, case in enumerate(fixture_cases())]
    compile_sources(sources, lint=True)
    answers = java_api([(case.model, source, case.rows) for case, source in zip(fixture_cases(), sources)])
    for case, class_answers in zip(fixture_cases(), answers):
        check_library(case, *check_java_api(case.model, case.rows, class_answers, leaf=False))
    newest = latest(fixture_cases())
    for case, source in zip(fixture_cases(), sources):
        if case in newest and any(not f.is_numeric or f.missing_interval for f in case.model.features):
            check_program(case.model, source, case.rows)


# -- categories that are integer codes (Feature.codes) ------------------------------------------------------
#
# A value for a feature of integer codes that is none of its categories' texts but a number (a Double, an
# Integer, a Float), or text that reads as one, is the category treegen.model.code_category names. The
# oracle is code_category itself: the row with such a value replaced by that category's text (or a text
# that is no category) goes through the model as today.

# Numbers on every edge of the rule: integral or not, -0.0, truncated toward zero, float32's rounding
# (0.99999999 and 2.9999999 are 1 and 3 in float32), 2^31, the infinities, NaN, and beyond any code.
CODE_NUMBERS = [3.0, 1.0, 0.0, -0.0, 2.0, 2.7, 1.5, 0.99999999, 2.9999999, -0.5, -1.5, 1e300, -1e300, math.inf,
                -math.inf, math.nan, 2147483647.0, 2147483647.5, -2147483647.5, 2147483520.0, 2147483648.0,
                -2147483648.0, 16777217.0, 5e-324]
CODE_TEXTS = ["3.0", "1.0", "0.0", "-0.0", "+1", "01", "1.", ".5", "2.7", "3e0", "1E0", "-0.5", "-1.5", "1e300",
              "inf", "-Infinity", "NaN", "2147483647", "2147483647.5", "2147483648", "-2147483648", "-2147483647.5",
              "2.9999999", "0x1", "1.5e", "+", "-", "1,0", " 3", "3 ", "3d", "3_0", "\uff13",
              # read as their number is: the category of the same double where no code names one
              "0.50", "5e-1", "2.50", "2147483648.0", "2.147483648e9", "-2147483648.0", "5000000001.0", "5.000000001e9"]
CODE_OBJECTS = [1, 2, 3, 99, -1, np.float32(2.7), np.float32(0.99999999), np.float32(1.5), np.float32(-0.5)]


def with_codes(model, codes, cast: str | None = None, top: bool = False):
    """The model with categories "0", "1"... for its nominal features (in the features and the splits'
    values, in code order: a value a split names that the feature lacks gets the next number), each
    read as integer codes by the next of ``codes`` (None: by its text); its numbers cast by ``cast``;
    ``top``: each feature's first and last categories are -2^31 and 2^31 - 1 (which no number names, and
    the largest code), its second 2^31 (none) where it has three."""
    model = copy.deepcopy(model)
    tables = category_codes(model)
    ends = lambda size: {0: str(-2**31), size - 1: str(2**31 - 1), **({1: str(2**31)} if size > 2 else {})}
    names = {i: {c: ends(len(table)).get(k, str(k)) if top else str(k) for k, c in enumerate(table)}
             for i, table in enumerate(tables) if table}
    rules = itertools.cycle(codes)
    model.features = tuple(f if f.is_numeric else replace(f, categories=tuple(names[i][c] for c in f.categories),
                                                          codes=next(rules)) for i, f in enumerate(model.features))
    for tree in model.trees:
        for node in tree.nodes:
            if node.split is not None and node.split.feature in names:
                node.split = replace(node.split, values=tuple(names[node.split.feature][v] for v in node.split.values))
    if cast is not None:
        model.numeric = replace(model.numeric, cast=cast)
    return model


def coded_rows(model, seed: int) -> list[dict]:
    """Rows with numbers, numeric text and objects (Integer, Float) for the features of integer codes:
    each spelling once in each such feature, then at random in a few of them at once."""
    rng = random.Random(seed)
    base = edge_rows(model, seed)[:120]
    coded = [f.name for f in model.features if not f.is_numeric]
    spellings = CODE_NUMBERS + CODE_TEXTS + CODE_OBJECTS
    rows = list(base)
    for k, (name, value) in enumerate(itertools.product(coded, spellings)):
        rows.append({**base[k % len(base)], name: value})
    for row in base:
        rows.append({**row, **{name: rng.choice(spellings) for name in rng.sample(coded, rng.randint(1, len(coded)))}})
    return rows


def as_text(model, row: dict) -> dict:
    """The row as text (CSV fields, the C API's category texts): a nominal feature's number written as its
    repr (a float32, as the double it is)."""
    return {f.name: str(value) if isinstance(value, int) else repr(float(value))
            if isinstance(value, (float, np.float32)) and not f.is_numeric else value
            for f, value in ((f, row.get(f.name)) for f in model.features)}


def as_coded(model, row: dict) -> dict:
    """The row as a reader of the model must take it (the oracle, :func:`test_emit_python.code_read`): a
    nominal value that is no category's text replaced by the category it names, None where it is missing,
    or a text that is no category. A Java Double, Integer or Float is read by its value, as a Python
    number is, not by its toString()."""
    read = dict(row)
    for feature in model.features:
        value = row.get(feature.name)
        if not feature.is_numeric and value is not None:
            read[feature.name] = code_read(model, feature, value)
    return read


def coded_models() -> list:
    """Random models and boosted ones with integer categories: truncated codes read in float64 and in
    float32, integral ones, a feature of each kind (or without codes) in one model, and codes up to 2^31 - 1."""
    T, I, N = Codes.TRUNCATED, Codes.INTEGRAL, Codes.NONNEGATIVE
    models = [with_codes(random_model(seed, n_nominal=3), codes, cast)
              for seed, codes, cast in [(0, [T], "float64"), (1, [N], "float32"), (2, [I], "float64"),
                                        (3, [I], "float32"), (4, [T, I, None], "float64"), (5, [None, T], "float32")]]
    models += [with_codes(boosted(11, "sigmoid"), [N], "float32"), with_codes(boosted(12, "softmax"), [T, I]),
               with_codes(random_model(13, regression=True, n_trees=3), [I, T], "float32"),
               with_codes(random_model(16), [T], "float64", top=True),  # (seeds whose trees tell those codes apart)
               with_codes(random_model(27), [T, I], "float32", top=True)]
    # categories no code names (a fraction, integers beyond 2^31): numbers and numeric text name them by value
    models += [code_probe_model(I, names=FRACTION_NAMES), code_probe_model(T, "float32", names=FRACTION_NAMES, trees=2)]
    return models


def check_coded_program(model, source: str, rows) -> None:
    """The program on the rows as CSV: its labels (values) and probabilities are the model's for the rows
    as it must read them (:func:`as_coded`)."""
    rows = [as_text(model, row) for row in rows]
    text = to_csv(model, rows)
    read = [as_coded(model, as_csv_reads(model, row)) for row in rows]
    if model.target.is_classification:
        labels = [record[0] for record in csv.reader(io.StringIO(run_loaded(source, text), newline=""))]
        assert labels == [model.predict(row) for row in read]
        _, *records = csv.reader(io.StringIO(run_loaded(source, text, ["--proba"]), newline=""))
        got = [[float(v) for v in record] for record in records]
    else:
        got = [[float(record[0])] for record in csv.reader(io.StringIO(run_loaded(source, text)))]
    assert len(got) == len(read) and all(same(g, model.scores(row)) for g, row in zip(got, read))


def check_coded_models(models, seed: int) -> None:
    """The models through the Map, Object[] and double[] APIs, with numbers as Double, Integer, Float and
    text, and as programs, against :func:`as_coded`'s rows."""
    sources = [emit(m, "java", leaf=True, package=f"k{next(PACKAGES)}") for m in models]
    compile_sources(sources, lint=True)
    rows = [coded_rows(m, seed + k) for k, m in enumerate(models)]
    for model, answers, model_rows in zip(models, java_api(list(zip(models, sources, rows))), rows):
        check_java_api(model, [as_coded(model, row) for row in model_rows], answers, leaf=True)
    for model, source, model_rows in zip(models, sources, rows):
        check_coded_program(model, source, model_rows)


def test_integer_codes_read_numbers_as_their_category():
    models = coded_models()
    check_coded_models(models, 0)
    for model in models:  # the rule in force: some rows move to another category than a text reader's
        rows = coded_rows(model, 0)
        assert any(as_coded(model, row) != row for row in rows)


@settings(max_examples=2, deadline=None)
@given(models=st.lists(boosted_models(), min_size=6, max_size=6), seed=st.integers(0, 1000),
       codes=st.lists(st.sampled_from([*Codes, None]), min_size=1, max_size=3))
def test_integer_codes_in_every_extension_of_the_model(models, seed, codes):
    """Boosted models with every field a boosting library's model has (unknown categories' own children
    among them), their numbers cast as they are, with integer codes."""
    check_coded_models([with_codes(m, codes) for m in models], seed)


def test_a_model_without_codes_reads_categories_by_their_text_alone():
    """Without codes, nothing of the rule is written, and a number is an unknown category as before; with
    them, the runtime's look-ups call it only when the text is none of the categories."""
    plain = emit(with_codes(random_model(4, n_nominal=3), [None]), "java")
    assert "valueCode" not in plain and "fieldCode" not in plain and "CODE_RULES" not in plain
    coded = emit(with_codes(random_model(4, n_nominal=3), [Codes.TRUNCATED]), "java")
    assert coded.count("return code == null ? valueCode(feature, value) : code;") == 1
    assert coded.count("return code == null ? fieldCode(feature, text) : code;") == 1


EXP_MAIN = r"""
    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder();
        for (String line : java.nio.file.Files.readAllLines(java.nio.file.Paths.get(args[0]))) {
            double x = Double.longBitsToDouble(Long.parseUnsignedLong(line, 16));
            out.append(Long.toHexString(Double.doubleToRawLongBits(exp(x)))).append('\n');
        }
        System.out.print(out);
    }
"""


def glibc_exp_samples(count: int, seed: int = 0) -> list[float]:
    """Doubles where exp is finite and not 1, in every range its algorithm treats its own way: |x| >= 512
    scales in two steps, below -708.4 the result is subnormal."""
    import random as random_module
    rng = random_module.Random(seed)
    samples = [rng.uniform(-40, 40) for _ in range(count)] + [rng.uniform(-745.2, 709.8) for _ in range(count)]
    samples += [math.ldexp(rng.uniform(-1, 1), rng.randint(-60, 9)) for _ in range(count)]
    samples += [rng.uniform(512, 709.78) for _ in range(count // 4)]
    samples += [rng.uniform(-745.2, -512) for _ in range(count // 2)]
    return samples + [0.0, -0.0, 5e-324, 709.782712893384, 709.7827128933841, -745.1332191019411, -745.1332191019412,
                      512.0, -512.0, math.nextafter(512.0, 0), 1024.0, -1024.0, math.inf, -math.inf, math.nan]


def test_glibc_exp_is_pythons_exp():
    """The Java exp the double links call is glibc's (what Python's math.exp calls on this machine) bit
    for bit -- with Math.fma (Java 9 and later) and with the exact fused multiply-add in double
    arithmetic that Java 8 runs."""
    from treegen.emit.java import _exp_table
    from treegen.emit.render import render
    helper = render("java", "exp.java.j2", helpers={"exp_table": _exp_table()})
    samples = glibc_exp_samples(40_000)
    expected = [arithmetic_exp(x) for x in samples]
    classes = {"ExpFused": helper, "ExpEmulated": helper.replace("if (FMA == null) {", "if (FMA != FMA) {", 1)}
    assert classes["ExpEmulated"] != helper
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "x.txt")
        with open(data, "w") as handle:
            handle.writelines(struct.pack(">d", x).hex() + "\n" for x in samples)
        for name, text in classes.items():
            with open(os.path.join(work, f"{name}.java"), "w") as handle:
                handle.write(f"public class {name} {{\n{text}\n{EXP_MAIN}}}\n")
        subprocess.run(["javac", "--release", "8", "-Xlint:all,-options", "-Werror", "-d", work,
                        *[os.path.join(work, f"{name}.java") for name in classes]], check=True)
        for name in classes:
            printed = subprocess.run(["java", "-cp", work, name, data], capture_output=True, text=True,
                                     check=True).stdout.split()
            got = [from_bits(text) for text in printed]
            wrong = [(x, g, e) for x, g, e in zip(samples, got, expected, strict=True) if not same(g, e)]
            assert not wrong, (name, len(wrong), wrong[:5])


def arithmetic_exp(x: float) -> float:
    from treegen.arithmetic import exp
    return exp(x)


def test_a_models_big_lists_compile_and_are_exact():
    """As array initialisers, the lists of a model of 5,000 features, of a feature's 20,000 categories or of
    9,000 classes passed the class initialiser's 64 KB ("code too large"): they are string data read at class
    initialisation, every API and the program reading them as they read the arrays (hostile names, missing
    intervals, integer codes, the Booleans and numbers that name categories)."""
    wide = random_model(3, n_numeric=2500, n_nominal=2500, max_depth=6)
    used = wide.used_features()
    numeric = next(i for i in used if wide.features[i].is_numeric)
    coded = next(i for i in used if not wide.features[i].is_numeric and all(c.isdigit() for c in wide.features[i].categories))
    features = list(wide.features)
    features[numeric] = replace(features[numeric], missing_interval=(-1.0, 0.0))
    features[coded] = replace(features[coded], codes=Codes.INTEGRAL)
    features[:len(HOSTILE_NAMES)] = [replace(f, name=name) for f, name in zip(features, HOSTILE_NAMES)]
    wide = replace(wide, features=tuple(features))
    categories = random_model(2, n_numeric=2, n_nominal=1)
    many = replace(categories.features[2], categories=categories.features[2].categories + tuple(map(str, range(20_000))))
    categories = replace(categories, features=categories.features[:2] + (many,))
    classes = random_model(1, max_depth=3, classes=(*HOSTILE_NAMES, *(f"k{i}" for i in range(9_000))))
    models = [wide, categories, classes]
    sources = [emit(m, "java", leaf=True, package=f"x{next(PACKAGES)}") for m in models]
    rows = [edge_rows(m, 0)[::20] for m in models]  # a few: each row of the wide model holds 5,000 values
    for model, answers, model_rows in zip(models, java_api(list(zip(models, sources, rows))), rows):
        check_java_api(model, model_rows, answers, leaf=True)
    for model, source, model_rows in zip(models, sources, rows):
        check_printed(model, source, model_rows, runner=run_loaded, leaf=True)


BIG_INTEGER_HARNESS = r"""
import java.lang.reflect.InvocationTargetException;
import java.math.BigInteger;
import java.util.*;

/** predict of a Map and of an Object[] whose value of feature "x" (the first) is each BigInteger given: the
 * label, or the name of the exception and its message. */
public class BigIntegerHarness {
    public static void main(String[] args) throws Exception {
        Class<?> model = Class.forName(args[0]);
        for (int k = 1; k < args.length; k++) {
            BigInteger x = new BigInteger(args[k]);
            for (Object row : new Object[] {Collections.singletonMap("x", x), new Object[] {x, 0.0}}) {
                try {
                    System.out.println(model.getMethod("predict", row instanceof Map ? Map.class : Object[].class)
                        .invoke(null, row));
                } catch (InvocationTargetException thrown) {
                    System.out.println(thrown.getCause().getClass().getSimpleName() + ": " + thrown.getCause().getMessage());
                }
            }
        }
    }
}
"""


def test_a_big_integer_beyond_the_largest_double_is_refused_as_the_model_refuses_it():
    """A BigInteger beyond the largest double, given for a numeric feature, was read as an infinity (its
    doubleValue()) and answered where the model refuses such an int (float() raises OverflowError): the Map and
    Object[] APIs throw an ArithmeticException now. The largest one float() reads is read as the largest double."""
    from treegen.model import Feature, Model, Node, Op, Split, Tree
    model = Model((Feature("x", NUMERIC), Feature("y", NUMERIC)), Target("t", CLASSIFICATION, ("a", "b")),
                  [Tree([Node((0.5, 0.5), split=Split(0, Op.LE, threshold=1e308, missing=MissingRoute(Route.CHILD, 1)),
                              children=(1, 2)), Node((1.0, 0.0)), Node((0.0, 1.0))])])
    source = emit(model, "java", package="bigint")
    directory = compile_sources([source, BIG_INTEGER_HARNESS])[0]
    inside, beyond = 2 ** 1024 - 2 ** 970 - 1, 2 ** 1024 - 2 ** 970
    printed = subprocess.run(["java", "-cp", directory, "BigIntegerHarness", class_name(source), str(inside),
                              str(beyond), str(-10 ** 400)], capture_output=True, text=True, check=True).stdout
    assert model.predict({"x": inside}) == "b"
    for value in (beyond, -10 ** 400):
        with pytest.raises(OverflowError):
            model.predict({"x": value})
    refused = "ArithmeticException: feature 'x': a BigInteger beyond the largest double"
    assert printed.splitlines() == ["b", "b"] + [refused] * 4
