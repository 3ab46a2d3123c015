"""The generated Python module predicts exactly what the model predicts -- bit for bit -- for every
kind of model, at every threshold and one ulp either side, on missing values and unseen categories,
at any size, with any names; and its program follows the CSV protocol."""
from __future__ import annotations

import ast
import copy
import csv
import functools
import io
import itertools
import json
import math
import numbers
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace

import pytest
from hypothesis import given, settings, strategies as st

from treegen import predict as predict_table
from treegen.collector import collector_paused
from treegen.data import reads_as_missing
from treegen.targets import emit
from treegen.errors import TreegenError
from treegen.model import (CLASSIFICATION, NOMINAL, NUMERIC, REGRESSION, Codes, Combine, Feature, MissingRoute,
                           Model, Node, NumericSemantics, Op, Route, Split, Target, Tree, code_category,
                           NUMBER, MisspeltName, NoFeatureNamed, has_label_values, is_many, reached, scores_nan, tree_output)
from treegen.probes import UNSEEN, probe_rows
from treegen.run.python import run
from treegen.testing import HOSTILE_NAMES, chain_model, is_close, random_model, random_rows, wide_model
from treegen.verifier import as_csv_reads as rows_as_csv_reads, to_csv
from treegen.walk import leaf_ids_rows, predict_rows

from test_rule_text import boosted_models, colour_model, linear_models, rows_for as edge_rows

SEMANTICS = [NumericSemantics(), NumericSemantics("float32"), NumericSemantics(tolerance=1e-6)]


def load(source: str) -> dict:
    """The generated module's namespace (it is compiled as Python 3.8 would parse it; the syntax tree
    of a big module is millions of objects and no cycle: the collector's passes over them would take
    more than half of the parse)."""
    with collector_paused():
        ast.parse(source, feature_version=(3, 8))
    namespace: dict = {"__name__": "generated"}
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace


def leaves(model, row) -> list[list[int]]:
    """Reference leaf ids: per tree, the nodes where the model's own walk ended with a weight above zero."""
    return [[node for node, weight in reached(model, tree, row) if weight > 0] for tree in model.trees]


def rows_leaves(model, rows) -> list[list[list[int]]]:
    """:func:`leaves` of each row, from the model's batch walk (treegen.walk.leaf_ids_rows: leaf_ids' ids, which
    tests/test_verify.py holds to the row walk), for all rows at once: thousands of rows walked one by one take
    seconds."""
    return [[[int(i) for i in ids.split("|") if i] for ids in line.split(";")] if model.trees else []
            for line in leaf_ids_rows(model, rows)]


def rows_for(model, count: int = 300, seed: int = 0) -> list[dict]:
    return probe_rows(model, count) + random_rows(model, count // 3, seed)


def values(model, row) -> list:
    """A row for the fast path: floats (NaN: missing) and strings (None: missing) in feature order."""
    return [(math.nan if row.get(f.name) is None else row[f.name]) if f.is_numeric else row.get(f.name)
            for f in model.features]


def listed_leaves(ids: str) -> list[list[int]]:
    """A leaf column of the program protocol (:func:`treegen.model.leaf_ids`) as ``predict_leaf`` returns it."""
    return [[int(node) for node in tree.split("|")] if tree else [] for tree in ids.split(";")]


def assert_exact(model, module: dict, rows, leaf: bool = False) -> None:
    """The module's four functions (and its leaf ids) answer every row as the model does; the model's
    answers from its batch walk, what ``model.predict``, ``model.scores`` and ``leaves`` return row by
    row (tests/test_verify.py checks that they do)."""
    ids = leaf_ids_rows(model, rows) if leaf else [None] * len(rows)
    for row, (label, expected), row_ids in zip(rows, predict_rows(model, rows), ids):
        assert module["predict"](row) == module["predict_values"](values(model, row)) == label, row
        if model.target.is_classification:
            assert module["predict_proba"](row) == module["predict_proba_values"](values(model, row)) == expected, row
        else:
            assert module["predict"](row) == expected[0], row
        if leaf:
            assert module["predict_leaf"](row) == listed_leaves(row_ids), row


def boosted(seed: int, link: str) -> "object":
    """Per-class boosting trees (tree.output) summed from an initial score, through a link."""
    width = 1 if link == "sigmoid" else 3
    model = random_model(seed, regression=True, n_trees=2 * width)
    for i, tree in enumerate(model.trees):
        tree.output = i % width
    classes = ("no", "yes") if link == "sigmoid" else ("a", "b", "c")
    init = tuple(0.25 * (k + 1) for k in range(width))
    return replace(model, target=Target("y", CLASSIFICATION, classes),
                   combine=Combine("sum", init, 0.1, link))


def test_the_nan_argmax_is_written_only_where_the_label_takes_it():
    """Sums that can overflow make a score NaN (treegen.model.scores_nan), and the label's argmax of scores then
    tests for NaN; but a boosted model's label is read from its raw sums, and its module held that argmax unused."""
    for link in ("sigmoid", "softmax"):
        model = boosted(0, link)
        model.trees[0].nodes[-1].value = (1e308,)
        assert scores_nan(model)
        source = emit(model, "python")
        assert "_argmax_nan" not in source, link
        assert_exact(model, load(source), rows_for(model, 50))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), regression=st.booleans(), semantics=st.sampled_from(SEMANTICS),
       trees=st.sampled_from([1, 1, 3]), missing=st.sampled_from([("stop", "child", "fraction"), ("child",),
                                                                 ("stop",), ("fraction",)]))
def test_random_models_are_exact(seed, regression, semantics, trees, missing):
    model = random_model(seed, regression=regression, numeric=semantics, n_trees=trees, missing_kinds=missing)
    assert_exact(model, load(emit(model, "python", leaf=True)), rows_for(model, seed=seed), leaf=True)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000), link=st.sampled_from(["sigmoid", "softmax", "identity"]))
def test_boosted_models_are_exact(seed, link):
    model = boosted(seed, link)
    assert_exact(model, load(emit(model, "python")), rows_for(model, seed=seed))


def extreme_model():
    """Thresholds at plus and minus infinity and at the smallest subnormal; the largest double as a value."""
    model = random_model(21, regression=True, max_depth=6, missing_kinds=("child", "stop"))
    cuts = iter([math.inf, -math.inf, 5e-324, -0.0] * 100)
    for node in model.trees[0].nodes:
        if node.split is not None and node.split.op == "<=":
            node.split = replace(node.split, threshold=next(cuts))
        elif node.is_leaf:
            node.value = (1.7976931348623157e308,)
            break
    return model


def test_extreme_thresholds_and_values():
    model = extreme_model()
    rows = rows_for(model) + [{f.name: v for f in model.features} for v in (math.inf, -math.inf, 5e-324, -0.0)]
    assert_exact(model, load(emit(model, "python")), rows)


def test_sums_without_output_column():
    model = random_model(3, n_trees=4, max_depth=6)
    model = replace(model, combine=Combine("sum", (0.5, -0.25, 0.0), 0.3, "identity"))
    assert_exact(model, load(emit(model, "python")), rows_for(model))


names = st.lists(st.sampled_from(HOSTILE_NAMES), min_size=5, max_size=5, unique=True)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 1000), features=names,
       classes=st.lists(st.sampled_from(HOSTILE_NAMES), min_size=2, max_size=4, unique=True))
def test_hostile_names_compile_and_predict(seed, features, classes):
    model = random_model(seed, names=features, classes=classes)
    source = emit(model, "python")
    assert source.isascii()  # every name is an escaped literal
    module = load(source)
    assert module["FEATURES"] == tuple(features) and module["CLASSES"] == tuple(classes)
    assert_exact(model, module, rows_for(model, 100, seed))


def test_program_with_hostile_names_follows_the_protocol():
    model = random_model(11, names=HOSTILE_NAMES[10:15], classes=["a,b", 'say "hi"', "new\nline", "\u2028sep"],
                         max_depth=6)
    rows = rows_for(model, 200)
    source = emit(model, "python", proba=True, leaf=True)
    labels = list(csv.reader(io.StringIO(run(source, to_csv(model, rows)), newline="")))
    assert [r[0] for r in labels] == [model.predict(r) for r in rows]
    proba = list(csv.reader(io.StringIO(run(source, to_csv(model, rows), ["--proba"]), newline="")))
    assert proba[0] == list(model.target.classes)
    assert [[float(p) for p in r] for r in proba[1:]] == [model.scores(r) for r in rows]
    printed = run(source, to_csv(model, rows), ["--leaf"]).splitlines()
    assert printed == leaf_ids_rows(model, rows)


def test_program_reads_rfc4180_and_matches_columns_by_name():
    model = random_model(5, regression=True, max_depth=4)
    names = [f.name for f in model.features]
    rows = rows_for(model, 60)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_ALL)
    writer.writerow(["extra, \"column\"\n"] + list(reversed(names)))
    for row in rows:
        values = ["" if row.get(n) is None else repr(row[n]) if isinstance(row[n], float) else row[n]
                  for n in reversed(names)]
        writer.writerow(["ignored\r\nvalue"] + values)
    printed = run(emit(model, "python"), out.getvalue()).splitlines()
    assert [float(v) for v in printed] == [model.predict(r) for r in rows]


def three_features(names=("x0", "it's\n", "c0")):
    """A small tree that tests each of its features (two numeric, one nominal), and a fourth, numeric
    feature that no split tests."""
    from treegen.model import NOMINAL, NUMERIC, Feature, Model, Node, Op, Split
    features = (Feature(names[0], NUMERIC), Feature(names[1], NUMERIC), Feature(names[2], NOMINAL, ("v0_0", "v0_1")),
                Feature("unused", NUMERIC))
    nodes = [Node((0.5, 0.5), split=Split(0, Op.LE, 0.5, missing=MissingRoute.to_child(0)), children=(1, 2)),
             Node((1.0, 0.0)),
             Node((0.5, 0.5), split=Split(1, Op.LE, 1.5, missing=MissingRoute.stop()), children=(3, 4)),
             Node((0.0, 1.0)),
             Node((0.5, 0.5), split=Split(2, Op.EQ, values=("v0_0", "v0_1"), missing=MissingRoute.to_child(1)),
                  children=(5, 6)),
             Node((1.0, 0.0)), Node((0.0, 1.0))]
    return Model(features, Target("y", CLASSIFICATION, ("a", "b")), [Tree(nodes)])


def command(target: str, source: str, directory: str) -> list[str]:
    """The command that runs a generated program: the Python module written to a file, the Java
    class compiled, the JavaScript module written to a file for Node, the C file compiled as a program."""
    if target == "javascript":
        from treegen.run.javascript import command as node_command
        return node_command(source, directory)
    if target == "c":
        from treegen.run.c import STRICT_FLAGS, STANDARD_FLAGS, compile_sources as compile_c
        return [compile_c([source], flags=STANDARD_FLAGS + STRICT_FLAGS)[0]]
    if target == "python":
        path = os.path.join(directory, "model.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        return [sys.executable, path]
    from treegen.run.java import class_name, compile_sources
    return ["java", "-cp", compile_sources([source])[0], class_name(source)]


def program(target: str, source: str, stdin: str, args=()) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of a generated program."""
    with tempfile.TemporaryDirectory() as directory:
        done = subprocess.run(command(target, source, directory) + list(args), input=stdin.encode("utf-8"),
                              capture_output=True, timeout=300)
    return done.returncode, done.stdout.decode("utf-8"), done.stderr.decode("utf-8")


def answers(target: str, source: str, stdin: str, args: list) -> str:
    """A program's standard output for good input (which must not be empty: the test would show nothing)."""
    status, stdout, stderr = program(target, source, stdin, args)
    assert (status, stderr) == (0, "") and stdout.count("\n") >= 2, (status, stdout, stderr)
    return stdout


def check_errors(target: str) -> None:
    """Bad input or usage: exactly one ASCII line on stderr -- naming the line where the record starts
    (a quoted field may span lines) -- and exit status 2."""
    model = three_features()
    source = emit(model, target)
    header = 'x0,"it\'s\n",c0'
    good = f'{header}\n1,2,v0_0\n1,2,"multi\nline"\n'
    expected = [  # (stdin, args, stdout: the answers to the rows before the bad one, stderr)
        (good + "1,abc,v0_0\n", [], answers(target, source, good, []),
         "error: line 6: column 'it\\'s\\u000a': 'abc' is not a number"),
        (good + "\n\r\n\n1\n", ["--proba"], answers(target, source, good, ["--proba"]),  # blank lines: no records
         "error: line 9: expected 3 fields as in the header, found 1"),
        (f"{header}\n 1,2,v0_0\n", [], "", "error: line 3: column 'x0': ' 1' is not a number"),  # used as written
        ('x0,"it\'s\n"\n1,2\n', [], "", "error: line 1: no column named 'c0'"),
        ('\n\r\nx0,"it\'s\n"\n1,2\n', [], "", "error: line 3: no column named 'c0'"),  # the header's own line
        ("c1,unused\n1,2\n", [], "", "error: line 1: no columns named 'x0', 'it\\'s\\u000a', 'c0'; "
                                     "the header's other columns: 'c1'"),  # 'unused' is a feature
        ("x0,c0,X1,,c0_\n", [], "", "error: line 1: no column named 'it\\'s\\u000a'; "  # a misspelt name shows
                                   "the header's other columns: 'X1', 'c0_'"),
        (",".join(["x0", "c0"] + [f"z{i}" for i in range(12)]) + "\n", [], "",
         "error: line 1: no column named 'it\\'s\\u000a'; the header's other columns: "
         + ", ".join(f"'z{i}'" for i in range(10)) + " and 2 more"),
        (f"{header}\n", ["--proba", "--leaf"], "",
         "error: --proba and --leaf ask for different outputs: give one of them"),
        (f"{header}\n", ["--leaf"], "",
         "error: this program was exported without leaf ids; export it again with --leaf"),
        (f"{header}\n", ["--probability"], "", "error: unknown option '--probability' (this program takes --proba, "
                                               "--leaf or --help)"),
    ]
    for stdin, args, stdout, message in expected:  # rows before a bad one are printed, in every target's program
        assert program(target, source, stdin, args) == (2, stdout, message + "\n"), (stdin, args)
    regression = emit(random_model(7, regression=True, max_depth=3), target)
    assert program(target, regression, "x0\n", ["--proba"]) == (
        2, "", "error: --proba: this is a regression model, it predicts a value, not class probabilities\n")


def test_program_errors_exit_2_with_one_line():
    check_errors("python")


def check_options(target: str) -> None:
    """--proba works in every classification program, --leaf in one exported with leaf ids; a program
    needs only the columns of the features some split tests."""
    model = three_features(("x0", "x1", "c0"))
    rows = rows_for(model, 60)
    text = to_csv(model, rows)
    plain, with_leaves = emit(model, target), emit(model, target, leaf=True)
    status, printed, _ = program(target, plain, text, ["--proba"])
    proba = list(csv.reader(io.StringIO(printed)))
    assert status == 0 and proba[0] == ["a", "b"] and [[float(p) for p in r] for r in proba[1:]] == [
        model.scores(r) for r in rows]
    assert program(target, with_leaves, text, ["--leaf"]) == (0, "".join(ids + "\n" for ids in leaf_ids_rows(model, rows)), "")
    without_unused = "\n".join(line.rsplit(",", 1)[0] for line in text.splitlines()) + "\n"
    assert program(target, plain, without_unused) == (0, "".join(model.predict(r) + "\n" for r in rows), "")
    status, printed, _ = program(target, plain, "", ["--help"])
    assert status == 0 and "--proba" in printed and "--leaf" in printed


def test_program_options_and_columns():
    check_options("python")


def check_closed_pipe(target: str) -> None:
    """`program < big.csv | head -1`: the program ends as a Unix tool does when its reader goes away --
    at once, silently (no traceback, nothing on stderr), with status 141 (128 + SIGPIPE)."""
    model = three_features()
    rows = random_rows(model, 1000, 3) * 200  # more than any pipe buffers
    with tempfile.TemporaryDirectory() as directory:
        data = os.path.join(directory, "big.csv")
        with open(data, "w", encoding="utf-8") as handle:
            handle.write(to_csv(model, rows))
        with open(data, "rb") as stdin:
            process = subprocess.Popen(command(target, emit(model, target), directory), stdin=stdin,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            first = process.stdout.readline()
            process.stdout.close()
            stderr = process.stderr.read()
            status = process.wait(timeout=120)
    assert first.decode("utf-8").rstrip("\n") == model.predict(rows[0])
    assert (status, stderr) == (141, b"")


def test_closed_pipe_ends_quietly():
    check_closed_pipe("python")


def test_program_reads_missing_and_special_values():
    model = chain_model(5)
    source = emit(model, "python")
    printed = run(source, 'x\n""\n\nnan\n-inf\ninf\n2.5\n1e0\n').splitlines()  # "" is missing, a blank line no row
    rows = [None, math.nan, -math.inf, math.inf, 2.5, 1.0]
    assert printed == [model.predict({"x": v}) for v in rows]


def test_api_takes_ints_strings_and_unknown_categories():
    model = random_model(2, max_depth=6)
    module = load(emit(model, "python"))
    for row in rows_for(model, 100):
        as_text = {k: (str(v) if isinstance(v, float) and math.isfinite(v) else v) for k, v in row.items()}
        assert module["predict_proba"](as_text) == model.scores(row)
    nominal = [f for f in model.features if not f.is_numeric][0]
    row = {f.name: 0 for f in model.features if f.is_numeric}
    assert module["predict_proba"]({**row, nominal.name: UNSEEN}) == model.scores({**row, nominal.name: None})
    missing = dict.fromkeys(f.name for f in model.features)
    assert module["predict_proba"](missing) == model.scores(missing)


def outcome(function, row):
    """What a call gives: its result, or the type of the exception it raises."""
    try:
        return function(row)
    except Exception as error:  # noqa: BLE001 -- the type is what is compared
        return type(error)


def retyped(model, row: dict, kind: int) -> dict:
    """The row written another way a caller might: ints, numeric strings, numpy scalars, None or
    NaN where missing, a non-str category, an extra key."""
    import numpy as np
    out = {"not a feature": object()}
    for f in model.features:
        v = row.get(f.name)
        if v is None and kind % 3 == 0:
            continue  # no key at all
        if v is None:
            out[f.name] = math.nan if kind % 3 == 1 and f.is_numeric else None
        elif not f.is_numeric:
            out[f.name] = 7 if kind == 4 else v
        elif kind == 1 and math.isfinite(v) and v == int(v):
            out[f.name] = int(v)
        elif kind == 2:
            out[f.name] = repr(v)
        else:
            with np.errstate(over="ignore"):  # a double past float32's range: infinity, as the caller's cast makes it
                out[f.name] = [np.float32, np.float64, float][kind % 3](v)
    return out


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), regression=st.booleans())
def test_dict_rows_of_any_kind_are_read_as_the_model_reads_them(seed, regression):
    """A single tree's dict API reads the row itself; whatever the values' types, a missing key or
    a mapping that is not a dict, it predicts (or fails) as the model does."""
    from collections import defaultdict
    from types import MappingProxyType
    model = random_model(seed, regression=regression, max_depth=7, missing_kinds=("child", "stop"))
    source = emit(model, "python")
    module = load(source)
    call = module["predict_proba" if model.target.is_classification else "predict"]
    reference = model.scores if model.target.is_classification else model.predict
    for row in rows_for(model, 60, seed):
        for kind in range(5):
            typed = retyped(model, row, kind)
            assert outcome(call, typed) == outcome(reference, typed), typed
            assert outcome(module["predict"], typed) == outcome(model.predict, typed), typed
        lenient = defaultdict(float, retyped(model, row, 0))  # row[name] would insert 0.0
        before = dict(lenient)
        assert call(lenient) == reference(lenient) and lenient == before
        assert call(MappingProxyType(row)) == reference(row)
    root = model.trees[0].nodes[0].split
    if root is not None and model.features[root.feature].is_numeric:  # a bad number on the path
        bad = {**rows_for(model, 1)[0], model.features[root.feature].name: "abc"}
        assert issubclass(outcome(call, bad), ValueError) and issubclass(outcome(reference, bad), ValueError)


ONE_VALUE = ["a", b"a", 1, 2.5, math.nan, None, True]  # and numpy's scalars, a 0-d array, pandas' NA: below


def test_many_values_are_told_from_one():
    """The generated module's _many is treegen.model.is_many: a column, a table or a list is many values; text,
    numbers, numpy's scalars (a 0-d array too), None and pandas' NA are one."""
    import numpy as np
    import pandas as pd
    many = load(emit(random_model(0), "python"))["_many"]
    one = ONE_VALUE + [np.float32(1), np.int64(2), np.bool_(True), np.str_("a"), np.array(1.5), pd.NA, pd.NaT,
                       pd.Timestamp(0)]
    several = [[1], (1,), {"a": 1}, {1}, frozenset(), range(2), np.array([1.0]), np.zeros((1, 1)),
               pd.Series([1.0]), pd.DataFrame({"a": [1]}), pd.Index(["a"]), iter([1])]
    assert [is_many(v) for v in one] == [many(v) for v in one] == [False] * len(one)
    assert [is_many(v) for v in several] == [many(v) for v in several] == [True] * len(several)


def test_a_value_float_does_not_read_is_refused_naming_its_feature():
    """A date or a complex number given for a numeric feature raised float()'s bare TypeError, naming neither the
    feature nor the row's part in it: the model, treegen.predict and the generated module say which feature."""
    import datetime

    import pandas as pd
    model = random_model(0, n_numeric=3, n_nominal=0)
    module = load(emit(model, "python"))
    row = rows_for(model, 1)[0]
    name = model.features[next(iter(model.used_features()))].name
    for value, kind in ((pd.Timestamp("2020-01-01"), "Timestamp"), (datetime.date(2020, 1, 1), "date"),
                        (1 + 0j, "complex")):
        given = {**row, name: value}
        for predict in (model.predict, lambda r: predict_table(model, [r]), module["predict"]):
            with pytest.raises(TypeError, match=f"^feature {re.escape(repr(name))}: an? [a-z.]*{kind} is not a "
                                                "number$"):
                predict(given)


def test_a_column_or_a_table_given_as_a_row_is_refused():
    """predict(df.head(1)) read each value as a pandas Series, whose text is no category: the missing route,
    a silent wrong answer. The model and the generated module refuse many values for a feature in one line
    naming it (the module on its dict walk and on its encoded path), the model a table or an array as a row."""
    import numpy as np
    import pandas as pd
    roots = set()
    for seed, kinds in itertools.product((0, 4, 6), [("child", "stop"), tuple(Route)]):  # dict walks, encoded
        model = random_model(seed, n_numeric=1, n_nominal=3, max_depth=5, missing_kinds=kinds)  # roots of each kind
        module = load(emit(model, "python"))
        rows = rows_for(model, 2, seed)
        root = model.trees[0].nodes[0].split.feature
        roots.add(model.features[root].kind)
        name = model.features[root].name
        table = pd.DataFrame(rows)
        for value in (table[name], list(table[name]), tuple(table[name]), np.array(table[name]), set(table[name])):
            row = {**rows[0], name: value}
            for predict in (model.predict, model.scores, module["predict"], module["predict_proba"]):
                with pytest.raises(TypeError, match=f"^feature {re.escape(repr(name))}: many values .*, not one: "
                                                    "predict takes one row, a mapping of feature name to value; "):
                    predict(row)
        with pytest.raises(TypeError, match="^feature .*: many values [(]pandas.Series[)], not one: .*treegen.predict"):
            model.predict({**rows[0], name: table[name].head(1)})  # float() reads a Series of one value
        for table_or_array in (table.head(1), table.to_numpy(), list(rows[0].values())):
            with pytest.raises(TypeError, match="^a row is a mapping of feature name to value, not an? .*; for a "
                                                r"table: treegen.predict\(model, X\)"):
                model.predict(table_or_array)
    assert roots == {NUMERIC, NOMINAL}


def test_a_row_that_is_no_mapping_is_refused_in_one_line():
    """predict(numpy_array) raised AttributeError from row.get deep in the module: a TypeError says what a row
    is and where values in FEATURES order go, for one tree (whose dict walk takes dicts only) and several."""
    import numpy as np
    for model in (random_model(0), random_model(1, n_trees=3)):
        module = load(emit(model, "python"))
        values = rows_for(model, 1)[0].values()
        for row in (np.array([1.0] * len(model.features)), list(values), tuple(values), "x0"):
            for predict in (module["predict"], module["predict_proba"]):
                with pytest.raises(TypeError, match=f"^a row is a mapping of feature name to value; "
                                                    f"{type(row).__name__} is not one: values in FEATURES order "
                                                    "go to predict_values"):
                    predict(row)


def misspelt_models() -> list[Model]:
    """A tree (its module walks the dict itself) and an ensemble, whose roots split on a name of eight letters."""
    names = ["humidity", "outlook", "temperature", "wind", "pressure"]
    return [random_model(1, names=names, max_depth=6), random_model(6, names=names, max_depth=6, n_trees=3)]


def misspelt_readings(model) -> tuple[list[dict], list]:
    """Rows whose key for the root's feature is misspelt (case, a letter dropped, added or changed, two swapped),
    or left out beside a key like no feature, and what every target's row API answers each: the model's answer,
    or "refused: " and the model's message (the generated Python's; None is null in Java and JavaScript).
    The root's feature is read on every path, so each target refuses where the model does."""
    name = model.features[model.trees[0].nodes[0].split.feature].name
    spellings = [name.upper(), name[:-1], name + "s", name[1] + name[0] + name[2:], "x" + name[1:], name[:2]]
    rows, readings = [], []
    for row in rows_for(model, 4, seed=3):
        for key in spellings + ["qq"]:
            rows.append({**{k: v for k, v in row.items() if k != name}, key: row[name]})
            try:
                readings.append(model.predict(rows[-1]))
            except MisspeltName as refused:
                readings.append(f"refused: {refused}")
    return rows, readings


def test_a_misspelt_key_is_refused_as_the_model_refuses_it():
    """A feature a row lacks is read as missing: a key spelt almost as a feature some split reads ('humidty')
    took the missing route without a word in the generated modules too. The module refuses it as the model does,
    where the row's walk reads the feature (the root's here); a key like no feature, or a name spelt with two
    edits, is read as no feature and the row answered."""
    for model in misspelt_models():
        module = load(emit(model, "python"))
        rows, readings = misspelt_readings(model)
        assert sum(str(want).startswith("refused: ") for want in readings) == len(readings) * 5 // 7
        for row, want in zip(rows, readings):
            if not str(want).startswith("refused: "):
                assert module["predict"](row) == want and module["predict_proba"](row) == model.scores(row)
                continue
            for predict in (module["predict"], module["predict_proba"]):
                with pytest.raises(ValueError) as refused:
                    predict(row)
                assert f"refused: {refused.value}" == want


def unnamed_models() -> list[Model]:
    """The misspelt models (their splits read every feature), one whose one split reads the first of its five
    features, and one without a split."""
    names = ["humidity", "outlook", "temperature", "wind", "pressure"]
    models = misspelt_models() + [random_model(4, names=names, max_depth=6), random_model(2, names=names)]
    assert [len(m.used_features()) for m in models[2:]] == [1, 0]
    return models


def unnamed_readings(model) -> tuple[list[dict], list]:
    """Rows that name none of the model's features ({}, a table's raw columns, with more keys than the message
    shows), or only features no split reads, or a feature given as None, and what every target's row API
    answers each: the model's answer, or "refused: " and the model's message (as in misspelt_readings)."""
    used = model.used_features()
    unused = [f.name for i, f in enumerate(model.features) if i not in used]
    rows = [{}, {"x0": 1.0}, {"salary": 9e4, "age": 70.0, "zip": 75001.0, "customer_age": 70.0},
            {model.features[0].name: None}, {model.features[0].name: None, "id": 3.0}]
    rows += [{name: 1.0} for name in unused] + [{"id": 3.0, **{name: 1.0 for name in unused}}] * bool(unused)
    readings = []
    for row in rows:
        try:
            readings.append(model.predict(row))
        except NoFeatureNamed as refused:
            readings.append(f"refused: {refused}")
    return rows, readings


def test_a_row_that_names_no_feature_is_refused_as_the_model_refuses_it():
    """A row that names none of the model's features ({}, a raw table's columns) was answered as a row of
    missing values without a word. The module refuses it with the model's message, on its dict walk (a tree)
    and on its encoded path (an ensemble), where a feature some split reads is absent; a row naming only a
    feature no split reads is a row of the model, and a model without a split answers any row."""
    refused = 0
    for model in unnamed_models():
        module = load(emit(model, "python"))
        rows, readings = unnamed_readings(model)
        for row, want in zip(rows, readings):
            if not str(want).startswith("refused: "):
                assert module["predict"](row) == want and module["predict_proba"](row) == model.scores(row)
                continue
            refused += 1
            for predict in (module["predict"], module["predict_proba"]):
                with pytest.raises(ValueError) as error:
                    predict(row)
                assert f"refused: {error.value}" == want
    assert refused == 3 * 3


def test_a_series_row_is_refused_by_its_keys():
    """A pandas Series given as a row (table.iloc[0]) iterates its values, not its keys: a misspelt key in
    one was answered as the feature missing, by the model and the module alike; keys like no feature are
    named by their index. Both read a Series's keys, as a dict's."""
    import pandas as pd
    for model in misspelt_models():
        module = load(emit(model, "python"))
        row = rows_for(model, 1)[0]
        name = model.features[model.trees[0].nodes[0].split.feature].name
        misspelt = pd.Series({**{k: v for k, v in row.items() if k != name}, name.upper(): row[name]}, dtype=object)
        for series, refusal in [(misspelt, MisspeltName), (pd.Series({"zip": 1.0, "age": 70.0}), NoFeatureNamed)]:
            with pytest.raises(refusal) as want:
                model.predict(series)
            for predict in (module["predict"], module["predict_proba"]):
                with pytest.raises(ValueError) as refused:
                    predict(series)
                assert str(refused.value) == str(want.value)
        assert "its keys: 'age', 'zip' (" in str(want.value)
        assert module["predict"](pd.Series(row, dtype=object)) == model.predict(row)


def test_a_table_given_as_a_row_is_refused_in_one_line():
    """A DataFrame has .get: one without the model's columns read every feature as missing (an answer, no error),
    one with them a Series per feature. Both are refused as a table, as model.predict refuses one."""
    import pandas as pd
    model = random_model(0)
    module = load(emit(model, "python"))
    rows = rows_for(model, 2)
    for table in (pd.DataFrame(rows), pd.DataFrame({"other": [1.0, 2.0]})):
        for predict in (module["predict"], module["predict_proba"]):
            with pytest.raises(TypeError, match=r"^a row is a mapping of feature name to value, not a table "
                                                r"\(DataFrame\): for a table, call predict for each row"):
                predict(table)
    series = pd.DataFrame(rows).iloc[0]  # one row of a table is one row
    assert module["predict"](series) == model.predict(rows[0])


# Text a caller may give for a numeric feature: treegen's number grammar (the CSV's) is read, the rest is
# refused by every API -- float() alone takes ' 90', '9_0' and other scripts' digits, parseDouble '90d'.
READ_SPELLINGS = ["60", "8.25e1", "+9E1", ".5", "95.", "-0", "0.0", "inf", "-Infinity", "NaN", "nan"]
REFUSED_SPELLINGS = [" 90", "90 ", "9_0", "\uff19\uff10", "\u0669\u0660", "90d", "90f", "0x5a", "0x1p6", "1e", "",
                     "NA", "?", "\u0131nf", "1,5", "\u00a090"]


def spelled_rows(model, count: int = 30) -> list[tuple[int, str, dict]]:
    """(feature, text, row): rows of the model with a numeric feature some split reads given as each
    spelling, then as True and False (1 and 0 in every target)."""
    rows = rows_for(model, count)
    numeric = [i for i in model.used_features() if model.features[i].is_numeric]
    assert numeric, "a model that reads a number"
    spellings = list(itertools.product(numeric, READ_SPELLINGS + REFUSED_SPELLINGS + [True, False]))
    return [(i, text, {**rows[k % len(rows)], model.features[i].name: text}) for k, (i, text) in enumerate(spellings)]


def reading(function, row):
    """What a call gives: its answer, or "refused" for the ValueError of text that is not a number."""
    try:
        return function(row)
    except ValueError as error:
        assert str(error).startswith("feature '") and str(error).endswith(" is not a number"), error
        return "refused"


def spelled_readings(model) -> tuple[list[dict], list]:
    """The rows of :func:`spelled_rows` and what every target's API answers each: the model's prediction,
    or where the model refuses it, "refused: " and the message of every target (the generated Python's)."""
    number = load(emit(model, "python"))["_number"]
    rows, readings = [], []
    for i, text, row in spelled_rows(model):
        rows.append(row)
        if reading(model.predict, row) != "refused":
            readings.append(model.predict(row))
            continue
        with pytest.raises(ValueError) as refused:
            number(text, i)
        readings.append(f"refused: {refused.value}")
    return rows, readings


def spelling_models() -> list:
    """Single trees (the first and the last walked on the dict itself, the third with fractional routes:
    encoded), an ensemble, the last read through codes."""
    fast = ("child", "stop")
    return [random_model(6, max_depth=6, missing_kinds=fast), random_model(5, regression=True, n_trees=3),
            random_model(10, max_depth=6),
            with_codes(random_model(7, n_nominal=2, max_depth=5, missing_kinds=fast), Codes.TRUNCATED)]


def test_numeric_text_is_read_by_the_number_grammar_alone():
    """The model and the generated module read text for a numeric feature as the CSV readers do, as the
    number it spells; other text is refused by the model wherever the row's walk goes, and by the module
    too but where a single tree's walker of the dict does not read it (it reads the features on the
    row's path only: the answer is then the row's without it)."""
    models = spelling_models()
    sources = [emit(model, "python") for model in models]
    fast = ["_w0_n0(row)" in source for source in sources]
    assert fast == [True, False, False, True]  # the dict's own walkers
    for model, source, lazy in zip(models, sources, fast):
        module = load(source)
        spelled = spelled_rows(model)
        for i, text, row in spelled:
            want = reading(model.predict, row)
            assert (want == "refused") == (text in REFUSED_SPELLINGS), (text, want)
            unread = {**row, model.features[i].name: None}
            assert reading(module["predict"], row) in ([want, model.predict(unread)] if lazy else [want]), row
            if model.target.is_classification:
                scores = reading(model.scores, row)
                assert reading(module["predict_proba"], row) in ([scores, model.scores(unread)] if lazy else [scores])
            if want != "refused":
                assert want == model.predict({**row, model.features[i].name: float(text)}), row
        refused = [reading(module["predict"], row) == "refused"
                   for _, text, row in spelled if text in REFUSED_SPELLINGS]
        assert all(refused) if not lazy else any(refused)
        read = [row for _, text, row in spelled if text not in REFUSED_SPELLINGS]
        assert [label for label, _ in predict_rows(model, read)] == [model.predict(row) for row in read]


def test_pandas_missing_values_are_missing():
    """A row of a frame of pandas' nullable dtypes (Float64, Int64, string) has pd.NA where a value is
    missing, and pd.NaT in a datetime column: both read as None does, by the model and the module."""
    import pandas as pd
    for model in spelling_models():
        module = load(emit(model, "python"))
        rows = rows_for(model, 40)
        rows = [{f.name: row.get(f.name) for f in model.features} for row in rows]
        dtypes = {f.name: "Float64" if f.is_numeric else "string" for f in model.features}
        frame = pd.DataFrame(rows).astype(dtypes)
        records = [dict(frame.iloc[k]) for k in range(len(frame))]  # (to_dict would turn pd.NA into None)
        assert any(value is pd.NA for record in records for value in record.values())
        for row, record in zip(rows, records):
            na_t = {name: pd.NaT if value is None else value for name, value in row.items()}
            for marked in (record, na_t):
                assert model.predict(marked) == module["predict"](marked) == model.predict(row), marked
                if model.target.is_classification:
                    assert model.scores(marked) == module["predict_proba"](marked) == model.scores(row), marked
        ints = pd.DataFrame({"x0": [1, None]}, dtype="Int64")
        ints = [dict(ints.iloc[k]) for k in range(2)]
        assert [module["predict"](r) for r in ints] == [model.predict({"x0": 1.0}), model.predict({"x0": None})]


@pytest.mark.slow
def test_deep_chain_and_wide_tree():
    """At any size, with walkers that return node ids (leaf ids exported) and value numbers (not)."""
    for model, leaf in ((chain_model(10_000), True), (wide_model(50_000), False)):
        source = emit(model, "python", leaf=leaf)
        assert max(len(line) - len(line.lstrip(" ")) for line in source.splitlines()) // 4 < 60
        namespace: dict = {}
        exec(compile(source, "<generated>", "exec"), namespace)
        probes = probe_rows(model, 1500)
        rows = probes[::len(probes) // 300] + random_rows(model, 100)
        assert_exact(model, namespace, rows, leaf=leaf)


def fraction_chain(depth: int):
    """chain_model with C4.5's fractional route at every split: a missing value reaches every leaf."""
    model = chain_model(depth)
    for node in model.trees[0].nodes:
        if node.split is not None:
            node.split = replace(node.split, missing=MissingRoute.fraction((0.25, 0.75)))
    return model


def test_fractional_routes_at_any_depth():
    model = fraction_chain(10_000)
    rows = [{"x": v} for v in (-1.0, 5.0, 9999.0, 1e9, None)]
    assert_exact(model, load(emit(model, "python", leaf=True)), rows, leaf=True)


def test_fractional_sums_are_j48s():
    """J48's arithmetic, bit for bit: a path's fractions multiplied root first, the sums nested as the
    tree nests. On two of these rows, weights multiplied per feature or sums added in node order differ."""
    model = random_model(1)
    module = load(emit(model, "python", leaf=True))
    for row in random_rows(model, 60, 1):
        assert same(module["predict_proba"](row), tree_output(model, model.trees[0], row)), row
        assert module["predict_leaf"](row) == leaves(model, row), row


def test_output_is_deterministic_and_python38():
    model = random_model(9, n_trees=3, max_depth=6)
    source = emit(model, "python", proba=True, leaf=True)
    assert source == emit(random_model(9, n_trees=3, max_depth=6), "python", proba=True, leaf=True)
    tree = ast.parse(source, feature_version=(3, 8))
    assert not any(isinstance(node, (ast.NamedExpr, ast.Match)) for node in ast.walk(tree))


def test_options_the_target_does_not_take_are_errors():
    with pytest.raises(TreegenError, match="class_name"):
        emit(random_model(1), "python", class_name="X")


def test_program_matches_names_stripped_of_spaces():
    """A model's names may have spaces around them (quoted ARFF names); a CSV header's are stripped."""
    model = random_model(3, names=[" leading space", "trailing ", "both", "x", "y"], max_depth=5)
    rows = rows_for(model, 40)
    text = to_csv(model, rows)
    padded = "  leading space ,trailing,  both  " + text[text.index(",x,y\n"):]
    assert run(emit(model, "python"), padded).splitlines() == [model.predict(r) for r in rows]


def with_categories(model, names):
    """The model with its nominal features' categories renamed to ``names`` (cycled), in its splits too."""
    from treegen.model import Feature
    renamed = {}
    features = []
    for index, feature in enumerate(model.features):
        mapping = {c: names[(index + k) % len(names)] for k, c in enumerate(feature.categories)}
        renamed[index] = mapping
        features.append(Feature(feature.name, feature.kind, tuple(mapping[c] for c in feature.categories)))
    trees = []
    for tree in model.trees:
        nodes = [replace(n, split=replace(n.split, values=tuple(renamed[n.split.feature][v] for v in n.split.values)))
                 if n.split is not None and n.split.values else n for n in tree.nodes]
        trees.append(replace(tree, nodes=nodes))
    return replace(model, features=tuple(features), trees=trees)


# Names that would be directives to a linter or a type checker if a comment held them as they are.
DIRECTIVES = ["# noqa: F401", "# type: ignore", "#"]


def hostile_models() -> list:
    """Every hostile name as a feature, a category and a label somewhere."""
    names = HOSTILE_NAMES + DIRECTIVES
    models = []
    for start in range(0, len(names), 5):
        features = (names[start:] + names)[:5]
        classes = (names[start + 2:] + names)[:4]
        for seed in range(start, start + 100):  # the first tree that tests at least 4 of the 5 features
            model = random_model(seed, names=features, classes=classes, max_depth=6, n_trees=1 + start % 2)
            if len(model.used_features()) >= 4:
                break
        models.append(with_categories(model, [n for n in names if n.strip(" ")]))
    return models


def lint_models() -> list:
    """Hostile names, every kind of model, big ones, and every extension: the imported fixtures of each
    library's latest version."""
    return hostile_models() + [
        random_model(1, regression=True, missing_kinds=("stop",)), fraction_chain(300), boosted(2, "sigmoid"),
        boosted(3, "softmax"), random_model(4, n_trees=3, missing_kinds=("fraction",)), chain_model(10_000),
        wide_model(50_000), colour_model()] + [case.model for case in latest(fixture_cases())]


def tool(name: str) -> str:
    """A test dependency's executable (ruff, vermin), installed beside this Python."""
    path = shutil.which(name, path=os.path.dirname(sys.executable)) or shutil.which(name)
    assert path, f"the lint test needs {name}: pip install -e '.[test]'"
    return path


# Runs each module's program as `python -W error -m MODULE ARGS < CSV` would, all in one process: the module
# imported (compiled with warnings as errors), its main(args) given the CSV as standard input. A program's
# answers are other tests' point; here: exit status 0 and nothing on standard error.
PROGRAMS_UNDER_W_ERROR = r"""
import importlib, io, json, sys
failed = []
with open(sys.argv[1], encoding="utf-8") as file:
    runs = json.load(file)
for name, args, text in runs:
    stdin, stdout, stderr = sys.stdin, sys.stdout, sys.stderr
    sys.stdin = io.TextIOWrapper(io.BytesIO(text.encode("utf-8")), encoding="utf-8")
    sys.stdout, sys.stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8"), io.StringIO()
    try:
        status = importlib.import_module(name).main(args)
    except BaseException as error:
        status = repr(error)
    said, (sys.stdin, sys.stdout, sys.stderr) = sys.stderr.getvalue(), (stdin, stdout, stderr)
    if status != 0 or said:
        failed.append((name, args, status, said[:500]))
print(json.dumps(failed))
"""


@pytest.mark.slow
def test_generated_modules_pass_ruff_need_python_3_8_only_and_run_with_warnings_as_errors(tmp_path):
    """ruff's default rules find nothing in a generated module, vermin nothing newer than Python 3.8, and its
    program runs under ``python -W error`` (with each of its options) with nothing on standard error."""
    # an ensemble is also written without leaf ids: its trees are then summed inline
    models = lint_models()
    modules = [(model, True) for model in models] + [(model, False) for model in models if len(model.trees) > 1]
    runs = []
    for i, (model, leaf) in enumerate(modules):
        path = tmp_path / f"model_{i}.py"
        path.write_text(emit(model, "python", leaf=leaf), encoding="utf-8")
        text = to_csv(model, rows_for(model, 30)[:30])
        runs += [(path.stem, args, text)
                 for args in ([],) + (["--leaf"],) * leaf + (["--proba"],) * model.target.is_classification]
    (tmp_path / "runs.json").write_text(json.dumps(runs), encoding="utf-8")
    done = subprocess.run([sys.executable, "-W", "error", "-c", PROGRAMS_UNDER_W_ERROR, "runs.json"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert done.returncode == 0 and done.stderr == "" and json.loads(done.stdout) == [], done.stdout + done.stderr
    done = subprocess.run([tool("ruff"), "check", "--isolated", "--no-cache", "--output-format", "concise",
                           str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_runs_on_python_3_8([path for path in tmp_path.glob("*.py") if path.stat().st_size < 1_000_000])


def assert_runs_on_python_3_8(paths: list) -> None:
    """Each module's docstring promises Python 3.8 or later: vermin finds no syntax, standard-library module,
    function or argument (annotations read as 3.8 reads them) newer than 3.8. (A method on a value it cannot
    type, ``text.removeprefix``, it does not see; the suite runs on 3.11+.) The 50,000-leaf module, whose
    lines are the shapes of the others' repeated, is left out: vermin reads it in 25 s; so is the 10,000-deep chain's
    (1.2 MB: 2.3 of vermin's 5.4 s of CPU over the others)."""
    assert paths
    done = subprocess.run([tool("vermin"), "--target=3.8-", "--violations", "--eval-annotations",
                           "--no-tips", "--no-parse-comments", *map(str, paths)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_each_test_names_its_feature_in_a_comment_no_name_can_end():
    """The comment beside a test is the feature's name as an ASCII literal, ``#`` escaped: it reads back
    as the name, stays on its line, and holds nothing a tool would read as a directive."""
    import tokenize
    for model in hostile_models():
        source = emit(model, "python")
        module = load(source)
        tests = 0
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            line = token.line.strip()
            if token.type == tokenize.COMMENT and line.startswith("if x[") and line.endswith(token.string):
                feature = int(line[len("if x["):line.index("]")])
                assert token.string.isascii() and "#" not in token.string[1:]
                assert ast.literal_eval(token.string[1:].strip()) == module["FEATURES"][feature]
                tests += 1
        assert tests == source.count("    if x[")


def tennis_model():
    """ID3 on the play-tennis data: a 5-leaf tree over 4 nominal features."""
    from treegen.data import load_dataset
    from treegen.learn import fit
    return fit(load_dataset(os.path.join(os.path.dirname(__file__), "..", "examples", "play_tennis.csv"),
                            target="play"), "id3")


def check_model_part(target: str, runtime, most_lines: int) -> None:
    """Every program carries one fixed text, ``runtime`` (the CSV program, the encoding of rows) as a
    model without codes has it (or ``runtime(model)``: whether it reads categories); what is written for
    the model is the rest, and for a 5-leaf tree it is short."""
    models = [tennis_model(), random_model(3, n_trees=3), random_model(5, regression=True, missing_kinds=("fraction",))]
    models = [replace(m, features=tuple(replace(f, codes=None) for f in m.features)) for m in models]
    text = runtime if callable(runtime) else lambda model: runtime
    for model in models:
        for leaf in (False, True):
            assert emit(model, target, leaf=leaf).count(text(model)) == 1
    tennis = emit(models[0], target)
    assert len(tennis[:tennis.index(text(models[0]))].splitlines()) < most_lines


def test_the_program_is_one_fixed_text_and_the_model_part_is_short():
    from treegen.emit.render import render
    from treegen.emit.common import named_features
    check_model_part("python", lambda model: render("python", "runtime.py.txt", coded=False,
                                                    named=bool(named_features(model))), 200)


def check_zero_weight_leaves(target: str) -> None:
    """C4.5 gives an empty branch weight 0: a fractional route goes down it, but the row has not reached
    its leaf, which --leaf leaves out (Model.leaf_ids). soybean's tree has such branches."""
    from treegen.data import load_dataset
    from treegen.learn import fit
    model = fit(load_dataset(os.path.join(os.path.dirname(__file__), "fixtures", "j48", "soybean.arff")), "c45")
    rows = probe_rows(model, 400)
    assert any(weight == 0 for row in rows for _, weight in reached(model, model.trees[0], row))
    status, printed, _ = program(target, emit(model, target, leaf=True), to_csv(model, rows), ["--leaf"])
    assert (status, printed.splitlines()) == (0, leaf_ids_rows(model, rows))


def test_leaf_ids_leave_out_nodes_reached_with_weight_zero():
    check_zero_weight_leaves("python")


# -- every extension of the model: missing intervals, unknown categories, the whole combine -------------



def same(got, expected) -> bool:
    """Equal bit for bit (repr tells -0.0 from 0.0, and NaN equals NaN)."""
    return repr(got) == repr(expected)


def check_api(model, module: dict, rows) -> None:
    """The module's dict API, its fast path and its leaf ids against the model, bit for bit."""
    for row in rows:
        label, scores = model.predict(row), model.scores(row)
        assert same(module["predict"](row), label) and same(module["predict_values"](values(model, row)), label), row
        if model.target.is_classification:
            assert same(module["predict_proba"](row), scores), row
            assert same(module["predict_proba_values"](values(model, row)), scores), row
        if "predict_leaf" in module:
            assert module["predict_leaf"](row) == leaves(model, row), row


def as_csv_reads(model, row: dict) -> dict:
    """A row as it reads back from the CSV ``to_csv`` writes (verify's rule: a category written as a
    missing token is missing)."""
    return rows_as_csv_reads(model, [row])[0]


def printed_numbers(text: str) -> list[list[float]]:
    return [[float(v) for v in record] for record in csv.reader(io.StringIO(text))]


def check_printed(model, source: str, rows, runner=None, leaf: bool = False) -> None:
    """The program on the rows written as CSV: its labels (or values), probabilities and leaf ids are the
    model's, bit for bit, for the rows as CSV reads them."""
    runner = runner or run
    rows = [as_csv_reads(model, row) for row in rows]
    text = to_csv(model, rows)
    if model.target.is_classification:
        labels = [record[0] for record in csv.reader(io.StringIO(runner(source, text), newline=""))]
        assert labels == [model.predict(row) for row in rows]
        header, *records = csv.reader(io.StringIO(runner(source, text, ["--proba"]), newline=""))
        assert header == list(model.target.classes)  # a class name may hold a line break: read as CSV
        got = [[float(v) for v in record] for record in records]
    else:
        got = [[p[0]] for p in printed_numbers(runner(source, text))]
    assert all(same(g, model.scores(row)) for g, row in zip(got, rows)) and len(got) == len(rows)
    if leaf:
        assert runner(source, text, ["--leaf"]).splitlines() == leaf_ids_rows(model, rows)


@settings(max_examples=60, deadline=None)
@given(model=boosted_models(), seed=st.integers(0, 1000))
def test_every_extension_of_the_model_is_exact(model, seed):
    """Random models with random values of every field boosting libraries need -- missing intervals,
    unknown categories' own children, tree weights, float32 sums, divisors, the bias added last, every
    link and label rule -- through the dict API, the fast path and the leaf ids."""
    check_api(model, load(emit(model, "python", leaf=True)), edge_rows(model, seed))


@settings(max_examples=20, deadline=None)
@given(model=boosted_models(), seed=st.integers(0, 1000))
def test_every_extension_of_the_model_is_exact_in_the_program(model, seed):
    rows = edge_rows(model, seed)[::3]
    check_printed(model, emit(model, "python", leaf=True), rows, leaf=True)


def one_node_reached(model):
    """The model with each fractional route sent to the first child instead: every tree reaches one node."""
    for tree in model.trees:
        for node in tree.nodes:
            if node.split is not None and node.split.missing.kind == Route.FRACTION:
                node.split = replace(node.split, missing=MissingRoute.to_child(0))
    return model


def symmetric_trees(model, seed: int, depth: int | None = None):
    """The model with each tree replaced by a symmetric one (CatBoost's kind: every level tests one
    split) of depth 0 to 4 (or ``depth``), made of the model's own two-way splits, each sending missing
    values to a random child, and of its own nodes' values and label values; a tree with no such split
    stays."""
    rng = random.Random(seed)
    trees = []
    for tree in model.trees:
        splits = [n.split for n in tree.nodes if n.split is not None and len(n.children) == 2
                  and n.split.missing.kind != Route.FRACTION]
        if not splits:
            trees.append(tree)
            continue
        levels = [replace(rng.choice(splits), missing=MissingRoute.to_child(rng.randint(0, 1)))
                  for _ in range(rng.randint(0, 4) if depth is None else depth)]
        nodes = []

        def grow(level: int) -> int:
            me = len(nodes)
            nodes.append(replace(rng.choice(tree.nodes), split=None, children=(), linear=None))
            if level < len(levels):
                first = grow(level + 1)
                nodes[me] = replace(nodes[me], split=levels[level], children=(first, grow(level + 1)))
            return me

        grow(0)
        trees.append(replace(tree, nodes=nodes))
    return replace(model, trees=trees)


def emitted_inline(model, lines: int, leaf: bool, nesting: int = 40) -> str:
    """The module, with trees summed inline in functions of at most ``lines`` lines (one a tree at 1),
    each tree's walkers cut at ``nesting`` levels."""
    import treegen.emit.python as python
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(python, "INLINE_LINES", lines)
        patch.setattr(python, "COST", replace(python.COST, max_depth=nesting))
        return emit(model, "python", leaf=leaf)


@settings(max_examples=80, deadline=None)
@given(model=boosted_models(), seed=st.integers(0, 1000), lines=st.sampled_from([1, 30, 100_000]),
       leaf=st.booleans(), nesting=st.sampled_from([1, 2, 40]))
def test_trees_summed_inline_are_the_models(model, seed, lines, leaf, nesting):
    """A boosted model or a forest whose trees each reach one node adds each leaf's terms where the
    tree's code reaches it (every kind of sum: float32, weights, scale, the bias added last, divisors,
    per-output trees), its trees cut into functions of a given size, the deeper parts of a tree cut at
    some nesting walked; with leaf ids, the walkers serve the sums too."""
    model = one_node_reached(model)
    source = emitted_inline(model, lines, leaf, nesting)
    inline = model.combine.kind != "single" and not has_label_values(model) and not leaf
    functions = source.count("\ndef _add")
    if not inline:
        assert functions == 0
    elif lines == 1:
        assert functions == len(model.trees)
    else:
        assert 1 <= functions <= (1 if lines == 100_000 else len(model.trees))
    if inline:  # no walker beside the sums
        assert "\n_TREES = (" not in source
    check_api(model, load(source), edge_rows(model, seed))


def test_trees_summed_inline_keep_a_sum_of_minus_zero():
    """A tree's output is its leaf's value as it is (treegen.model.tree_output): to a sum of -0.0, a leaf
    of -0.0 adds -0.0, as XGBoost adds its leaves to its base score (tests/test_negative_zero.py)."""
    model = one_node_reached(random_model(5, regression=True, n_trees=2, max_depth=3))
    for tree in model.trees:
        for node in tree.nodes:
            node.value = (-0.0,)
    model = replace(model, combine=Combine("sum", (-0.0,), 1.0, "identity"))
    source = emit(model, "python")
    assert "def _add0(" in source
    check_api(model, load(source), edge_rows(model, 0))
    missing = dict.fromkeys(f.name for f in model.features)
    assert repr(load(source)["predict"](missing)) == repr(model.predict(missing)) == "-0.0"


@settings(max_examples=8, deadline=None)
@given(model=boosted_models(), seed=st.integers(0, 1000))
def test_trees_summed_inline_are_the_models_in_the_program(model, seed):
    model = one_node_reached(model)
    check_printed(model, emitted_inline(model, 30, leaf=False), edge_rows(model, seed)[::3])


@settings(max_examples=60, deadline=None)
@given(model=linear_models(), seed=st.integers(0, 1000))
def test_linear_leaves_are_exact(model, seed):
    """Linear leaves (LightGBM's linear trees) on random boosted models: const + coeff * x term by term,
    the plain value on a missing input, the zero band read as 0.0."""
    check_api(model, load(emit(model, "python", leaf=True)), edge_rows(model, seed))


@settings(max_examples=10, deadline=None)
@given(model=linear_models(), seed=st.integers(0, 1000))
def test_linear_leaves_are_exact_in_the_program(model, seed):
    check_printed(model, emit(model, "python", leaf=True), edge_rows(model, seed)[::3], leaf=True)


def test_unknown_categories_go_to_their_own_child():
    """Where a split sends unknown categories one way and missing values the other, both the dict API
    and the fast path tell them apart (the test of the walker reads 'or missing', not 'or unknown')."""
    model = colour_model()
    rows = [{"color": c, "size": s} for c in ("red", "green", "blue", None, "purple", "")
            for s in (-1.0, -0.5, 0.0, 1e-300, -1e-300, 3.0, None, math.nan)]
    source = emit(model, "python", leaf=True)
    assert "is None or x[0]" in source
    check_api(model, load(source), rows)
    check_printed(model, source, rows, leaf=True)


def many_categories_model() -> Model:
    """A tree on one feature of 3,000 categories: a set of 1,500 of them (missing values with it, unknown ones
    apart), under it a set of 2,000."""
    names = tuple(f"c{i}" for i in range(3000))
    odd = Split(0, Op.IN, values=names[1::2], missing=MissingRoute.to_child(0), unknown=1)
    low = Split(0, Op.IN, values=names[:2000], missing=MissingRoute.to_child(1))
    nodes = [Node((0.0,), split=odd, children=(1, 2)), Node((0.0,), split=low, children=(3, 4)), Node((1.0,)),
             Node((2.0,)), Node((3.0,))]
    return Model((Feature("k", NOMINAL, names),), Target("y", REGRESSION), [Tree(nodes)])


def test_a_set_of_many_categories_is_one_module_constant_that_every_test_of_it_shares():
    """A set of more than 16 categories is a frozenset made once at load (``_IN<n>``), which every test of it
    reads: ten trees of many_categories_model() write each set once, where each test wrote it out (a CatBoost
    model of two 1,000-category features: 3,412 sets written, 31 distinct). Every category, missing and unknown
    values answer as the model does: the dict API (a lone tree's own walker too), the fast path, the program."""
    single = many_categories_model()
    summed = replace(single, trees=single.trees * 10, combine=Combine("sum", (0.5,), 1.0))
    rows = [{"k": k} for k in (*single.features[0].categories, None, "zz")]
    for model in (single, summed):
        source = emit(model, "python")
        assert source.count("= frozenset(json.loads(") == 2 and len(source) < 100_000  # (written out: 319 KB)
        check_api(model, load(source), rows)
        check_printed(model, source, rows)


# -- models imported from XGBoost, LightGBM, CatBoost and HistGradientBoosting ------------------------

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


@dataclass
class Fixture:
    """An imported model, the rows its library predicted, and what it predicted: labels, and the scores
    as the model lays them out (``exact``: bit for bit; else the library's exp is its own, within
    the importer's tolerance). ``compared``: the rows the library's answers are compared on (LightGBM
    reads a fractional category code as no category: the model knowingly differs there)."""

    name: str
    model: object
    rows: list
    labels: list | None
    scores: list | None
    exact: bool = True
    compared: list | None = None


def code_text(value) -> str | None:
    """A category code as a treegen row gives it: an integral number as its digits, any other number as
    Python writes it."""
    if value is None or isinstance(value, str):
        return value
    return str(int(value)) if math.isfinite(value) and value == int(value) else repr(float(value))


def read_json_file(path: str):
    import json
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


@functools.cache
def fixture_cases() -> list[Fixture]:
    """Every fixture model with the library's recorded answers (read on first use, not when the tests
    are collected: 3 s in each pytest-xdist worker)."""
    import glob
    import warnings
    from treegen.importers import import_file
    from treegen.importers.catboost import class_text, read_json
    from treegen.importers.hist_gradient_boosting import category_text
    from treegen.importers.lightgbm import read_model_file
    cases = []
    for path in sorted(glob.glob(f"{FIXTURES}/xgboost/*.expected.json")):
        expected = read_json_file(path)
        model = import_file(path.replace(".expected.json", ".json"), **expected["options"])
        rows = [{f.name: None if v is None else code_text(v) if f.name in expected["categorical"] else v
                 for f, v in zip(model.features, values)} for values in expected["rows"]]
        softmax_labels = model.meta["xgboost"]["objective"] == "multi:softmax"
        labels = ([str(int(p[0])) for p in expected["predictions"]] if softmax_labels else
                  [str(int(v)) for v in expected["labels"]] if "labels" in expected else None)
        cases.append(Fixture(os.path.basename(path)[:-14], model, rows, labels,
                             None if softmax_labels else expected["predictions"]))
    for path in sorted(glob.glob(f"{FIXTURES}/lightgbm/*/*.json")):
        expected = read_json_file(path)
        if expected.get("refused"):
            continue
        model = read_model_file(path[:-5] + ".txt")
        kinds = [kind for _, kind in expected["features"]]
        rows = [{f.name: v if kind != "codes" else code_text(v) for f, kind, v in zip(model.features, kinds, values)}
                for values in expected["rows"]]
        fractional = [any(kind == "codes" and v is not None and math.isfinite(v) and v != int(v)
                          for kind, v in zip(kinds, values)) for values in expected["rows"]]
        labels = None if expected["labels"] is None else [str(v) for v in expected["labels"]]
        cases.append(Fixture("lightgbm-" + path.split("/")[-2] + "-" + os.path.basename(path)[:-5], model, rows,
                             labels, expected["predictions"],
                             compared=[i for i, f in enumerate(fractional) if not f]))
    for path in sorted(glob.glob(f"{FIXTURES}/catboost/*.expected.json")):
        expected = read_json_file(path)
        colours = {"color": ["red", "green", "blue", "gr\u00fcn", ""]} if "nopool" in path else None
        model = read_json(path.replace(".expected.json", ".json"), categories=colours)
        rows = [dict(zip(expected["features"], values)) for values in expected["rows"]]
        kind = model.meta["catboost"].get("class_type")
        labels = [class_text(v, kind) for v in expected["labels"]] if "labels" in expected else None
        scores = expected.get("probabilities") or [[v] for v in expected.get("values", [r[0] for r in expected["raw"]])]
        cases.append(Fixture("catboost-" + os.path.basename(path)[:-14], model, rows, labels, scores,
                             exact=model.combine.link in ("identity", "sigmoid")))
    for path in sorted(glob.glob(f"{FIXTURES}/hist_gradient_boosting/*.expected.json")):
        expected = read_json_file(path)
        with warnings.catch_warnings():  # pickled by another version of scikit-learn
            warnings.simplefilter("ignore")
            model = import_file(path.replace(".expected.json", ".skops"))
        rows = [{f.name: None if v is None or isinstance(v, float) and math.isnan(v) else float(v) if f.is_numeric else category_text(v)
                 for f, v in zip(model.features, values)} for values in expected["rows"]]
        labels = [str(v) for v in expected["labels"]] if "labels" in expected else None
        scores = expected.get("probabilities") or [[v] for v in expected["values"]]
        exact = model.combine.link == "identity" or (model.combine.link == "sigmoid" and len(model.combine.init) == 1)
        cases.append(Fixture("hgb-" + os.path.basename(path)[:-14], model, rows, labels, scores, exact=exact))
    return cases


def check_library(case: Fixture, labels: list, scores: list) -> None:
    """What generated code answered on a fixture's rows against what the library recorded. A library
    that gives a binary classifier's probability of the second class gives one number a row."""
    from treegen.importers.catboost import EXP_TOLERANCE as CATBOOST
    from treegen.importers.hist_gradient_boosting import EXP_TOLERANCE as HGB
    tolerance = CATBOOST if case.name.startswith("catboost") else HGB
    for i in case.compared if case.compared is not None else range(len(case.rows)):
        if case.labels is not None:
            assert labels[i] == case.labels[i], (case.name, i)
        if case.scores is not None:
            want = [float(v) for v in case.scores[i]]
            got = scores[i][-len(want):]
            assert (same(got, want) if case.exact else all(is_close(g, w, tolerance) for g, w in zip(got, want))), (
                case.name, i, got, want)



def test_fixtures_of_every_library_are_here():
    libraries = {case.name.split("-")[0] for case in fixture_cases()}
    assert {"lightgbm", "catboost", "hgb"} <= libraries and len(fixture_cases()) > 80
    assert all(case.labels is not None or case.scores is not None for case in fixture_cases())


def test_imported_models_predict_what_their_library_predicted():
    """Every fixture model, compiled: what its module answers is the model's, bit for bit, and the
    library's -- through the dict API and the fast path."""
    for case in fixture_cases():
        module = load(emit(case.model, "python", leaf=True))
        check_api(case.model, module, case.rows)
        proba = module.get("predict_proba")
        check_library(case, [module["predict"](row) for row in case.rows],
                      [proba(row) if proba else [module["predict"](row)] for row in case.rows])


def latest(cases) -> list:
    """The fixtures of each library's latest version only."""
    newest = {}
    for case in cases:
        kind = re.sub(r"-?\d+(\.\d+)+-?", "-", case.name)
        newest[kind] = case
    return list(newest.values())


def test_imported_models_run_as_programs():
    """The latest version's fixtures run as programs, on their rows as CSV."""
    for case in latest(fixture_cases()):
        check_printed(case.model, emit(case.model, "python"), case.rows)


def one_leaf_model(link: str, precision: str = "float64", classes=("no", "yes"), init=(0.0,)):
    """A boosted model of one tree, one leaf of value 0.0: its raw sums are its init."""
    from treegen.model import NUMERIC, Feature, Model, Node
    target = Target("y", CLASSIFICATION, classes) if classes else Target("y", "regression")
    return Model((Feature("x", NUMERIC),), target, [Tree([Node((0.0,) * len(init))])],
                 Combine("sum", init, 1.0, link, precision=precision))


def test_the_arithmetic_of_the_links_is_the_models():
    """C's exp where it overflows (infinity, not OverflowError) and where the sigmoid is below 1e-307;
    float32 rounding to infinity and to subnormals; glibc's expf on float32 inputs of every range and its
    two exceptions; XGBoost's sigmoid and softmax."""
    import random as random_module
    from treegen import arithmetic
    for raw in (-745.2, -709.9, -709.5, -709.0, -50.0, -0.0, 0.0, 36.8, 709.5, 709.9, 800.0, math.inf, -math.inf):
        for link, precision in (("sigmoid", "float64"), ("exp", "float64"), ("sigmoid", "float32"), ("exp", "float32")):
            if link == "sigmoid":  # a binary classifier's probabilities
                model = one_leaf_model(link, precision, init=(raw,))
                got = load(emit(model, "python"))["predict_proba"]({"x": 1.0})
            else:  # exp: a regression's value (Poisson, Tweedie, gamma)
                model = one_leaf_model(link, precision, classes=(), init=(raw,))
                got = [load(emit(model, "python"))["predict"]({"x": 1.0})]
            assert same(got, model.scores({"x": 1.0})), (raw, link)
    module = load(emit(one_leaf_model("softmax", "float32", ("a", "b", "c"), (0.5, 1.0, -2.0)), "python"))
    rng = random_module.Random(5)
    edges = [3.4028234663852886e38, 3.4028235677973366e38, 3.4028235677973362e38, 1.401298464324817e-45,
             7.006492321624085e-46, 7.006492321624087e-46, 1e-40, 1.0 + 2.0 ** -24, 1.0 + 3 * 2.0 ** -24]
    for x in edges + [-x for x in edges] + [rng.uniform(-1e39, 1e39) for _ in range(500)] + [math.nan, math.inf]:
        assert same(module["_f32"](x), arithmetic.f32(x)), x
    inputs = [arithmetic.f32(rng.uniform(-110.0, 95.0)) for _ in range(20_000)] + list(arithmetic.EXPF_EXCEPTIONS)
    inputs += [arithmetic.EXPF_OVERFLOW, arithmetic.EXPF_UNDERFLOW, math.nan, math.inf, -math.inf, 0.0, -0.0]
    for x in inputs:
        assert same(module["_expf"](x), arithmetic.expf(x)), x
        assert same(module["_sigmoid32"](x), arithmetic.sigmoid_f32(x)), x
    for _ in range(200):
        raw = [arithmetic.f32(rng.uniform(-100, 100)) for _ in range(3)]
        assert same(module["_softmax32"](raw), arithmetic.softmax_f32(raw)), raw


# -- features whose categories are integer codes: a number names its category (treegen.model.code_category) --

CODE_NAMES = ("0", "1", "-1", "2147483647")  # a random feature's 2-4 categories, renamed in order
# Text a value of a feature with codes may be given as, with the number the CSV's grammar reads in it (None: none).
CODE_TEXTS = {"3.0": 3.0, "1.0": 1.0, "2.7": 2.7, "1.9": 1.9, "-0.5": -0.5, "-0.0": -0.0, "1e0": 1.0, "-1.5": -1.5,
              "-1.0": -1.0, "1e300": 1e300, "inf": math.inf, "-Infinity": -math.inf, "nan": math.nan,
              "2147483647.0": 2147483647.0, "2147483647.5": 2147483647.5, "2147483646.6": 2147483646.6,
              "-2147483648": -2147483648.0, ".9": 0.9, "+1.": 1.0, "x": None, " 1": None, "1_0": None, "0x1": None,
              "1 ": None, "\u0661": None,
              # read as their number is, its code's category else the category of that double (FRACTION_NAMES)
              "0.50": 0.5, "5e-1": 0.5, "2.50": 2.5, "5000000001.0": 5000000001.0, "5.000000001e9": 5000000001.0,
              "2147483648.0": 2147483648.0, "-2147483649.0": -2147483649.0}
# Codes beside categories no code names: a fraction, and integers at or beyond 2^31 in size (as a pandas
# Categorical of floats or of IDs gives HistGradientBoosting), which text is read by as its number is.
FRACTION_NAMES = ("0.5", "5000000001", "2.5", "-2147483649", "1")
CODE_NUMBERS = [3.0, 1.0, 2.7, 1.9, -0.5, -0.0, -1.5, -1.0, 1e300, math.inf, -math.inf, math.nan, 2147483647.0,
                2147483647.5, 2147483646.6, -1.0000001, 1, 0, -1, 2 ** 40, 5e-324, 0.5, 2.5, 5000000001.0]


def with_codes(model, codes, cast: str = "float64", every: int = 1, names=CODE_NAMES):
    """The model with its nominal features' categories renamed integer codes (``names``, in the splits
    too) and every ``every``-th of them reading numbers by ``codes``, numbers cast as ``cast`` (a copy: the
    model stays as it was)."""
    model = copy.deepcopy(model)
    renamed, features = {}, []
    for i, feature in enumerate(model.features):
        if not feature.is_numeric:
            renamed[i] = dict(zip(feature.categories, names))
            feature = replace(feature, categories=tuple(renamed[i][c] for c in feature.categories),
                              codes=codes if len(renamed) % every == 0 else None)
        features.append(feature)
    for tree in model.trees:
        for node in tree.nodes:
            if node.split is not None and node.split.feature in renamed:
                renames = renamed[node.split.feature]
                node.split = replace(node.split, values=tuple(renames[v] for v in node.split.values))
    return replace(model, features=tuple(features), numeric=replace(model.numeric, cast=cast))


def code_probe_model(codes, cast: str = "float64", names=CODE_NAMES, trees: int = 1):
    """A regression on one feature with codes whose every category has a value of its own (1, 2...),
    missing and unknown values the root's (-1): every reading shows."""
    def tree():
        split = Split(0, Op.EQ, values=tuple(names), missing=MissingRoute.stop())
        return Tree([Node((-1.0,), split=split, children=tuple(range(1, len(names) + 1)))]
                    + [Node((float(k + 1),), n=1.0) for k in range(len(names))])
    return Model((Feature("c", NOMINAL, tuple(names), codes=codes), Feature("x", NUMERIC)), Target("y", REGRESSION),
                 [tree() for _ in range(trees)], Combine("average" if trees > 1 else "single"),
                 numeric=NumericSemantics(cast))


def code_read(model, feature, value):
    """What the reading rule makes of a value of ``feature`` (the oracle, from treegen.model.code_category):
    None when missing, a category, or UNSEEN for a category the model does not know. Text is a category
    by itself first, else (codes) read as the number it reads as ("0.50" as 0.5; NaN's text, "nan", is no
    category, not missing); a number (numbers.Real) is read by its value alone, never its text: the
    category its code names, else the first category whose text is the same double; another value by its text."""
    if value is None or isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, str):
        if value in feature.categories or feature.codes is None or not NUMBER.fullmatch(value):
            return value if value in feature.categories else UNSEEN
        number = float(value)
    elif not isinstance(value, numbers.Real):
        return str(value) if str(value) in feature.categories else UNSEEN
    else:
        number = float(value)
    if math.isnan(number):
        return None if not isinstance(value, str) else UNSEEN
    code = None if feature.codes is None else code_category(feature.codes, number, model.numeric.cast)
    if code in feature.categories:
        return code
    return next((c for c in feature.categories if NUMBER.fullmatch(c) and float(c) == number), UNSEEN)


def code_rows(model, seed: int, given: list, count: int = 8) -> list[dict]:
    """Rows of the model with each value of ``given`` in each nominal feature some split tests (a feature
    without codes: each text, which it reads as it is: "1.0" is no category)."""
    rows = rows_for(model, 30, seed)[:count]
    used = [f for i, f in enumerate(model.features) if not f.is_numeric and i in model.used_features()]
    return [{**row, f.name: value} for row in rows for f in used for value in given
            if f.codes is not None or isinstance(value, str)]


def code_oracle(model, row: dict) -> dict:
    """The row as the reading rule reads it: every nominal value replaced by what code_read makes of it."""
    return {f.name: code_read(model, f, row.get(f.name)) if not f.is_numeric else row.get(f.name)
            for f in model.features if f.name in row}


def coded_models(seed: int) -> list:
    """Models whose nominal features have codes: truncated with numbers read as doubles, nonnegative as
    float32s, and integral; single trees walked on the row, forests, fractional routes, features without codes beside."""
    return [code_probe_model(Codes.TRUNCATED), code_probe_model(Codes.NONNEGATIVE, "float32", trees=2),
            code_probe_model(Codes.INTEGRAL), code_probe_model(Codes.INTEGRAL, "float32"),
            code_probe_model(Codes.INTEGRAL, names=FRACTION_NAMES), code_probe_model(Codes.TRUNCATED, names=FRACTION_NAMES),
            with_codes(random_model(seed, missing_kinds=("child",)), Codes.TRUNCATED),
            with_codes(random_model(seed + 1, regression=True, n_trees=3), Codes.NONNEGATIVE, "float32"),
            with_codes(random_model(seed + 2, missing_kinds=("fraction", "stop")), Codes.INTEGRAL),
            with_codes(random_model(seed + 3, n_trees=2, missing_kinds=("child",)), Codes.INTEGRAL, "float32"),
            with_codes(random_model(seed + 4, regression=True, missing_kinds=("child", "stop")), Codes.TRUNCATED,
                       every=2)]


def check_codes_api(model, module: dict, rows) -> None:
    """The dict API and the fast path (a list) read each row as the reading rule does, bit for bit."""
    for row, (label, scores) in zip(rows, predict_rows(model, [code_oracle(model, row) for row in rows])):
        assert same(module["predict"](row), label) and same(module["predict_values"](values(model, row)), label), row
        if model.target.is_classification:
            assert same(module["predict_proba"](row), scores), row
            assert same(module["predict_proba_values"](values(model, row)), scores), row


@pytest.mark.parametrize("seed", [0, 10, 20, 30])
def test_features_with_codes_read_numbers_as_their_categories(seed):
    for model in coded_models(seed):
        rows = code_rows(model, seed, CODE_NUMBERS + list(CODE_TEXTS) + [None, "0", "1", "-1", UNSEEN])
        check_codes_api(model, load(emit(model, "python")), rows)


def other_numbers() -> list:
    """Numbers of other types a caller may give: numpy's (float32 exactly as it is), a Decimal."""
    import numpy as np
    from decimal import Decimal
    return [np.float32(2.7), np.float32(1073741952.0), np.float32(-1073741952.0), np.float64(1.0), np.int64(1),
            np.float32(-0.5), Decimal("1.5"), np.float32(math.inf)]


def test_features_with_codes_read_numbers_of_any_type_exactly():
    """A number is read as the model reads it, not through its text: numpy's float32 1073741952 names
    "1073741952", although its str() is 1.073742e+09 (1073742000)."""
    for model in [code_probe_model(Codes.TRUNCATED, names=("1073741952", "1", "2", "-1073741952")),
                  code_probe_model(Codes.INTEGRAL, names=("1073741952", "1", "0"), trees=2)]:
        check_codes_api(model, load(emit(model, "python")), code_rows(model, 1, other_numbers(), count=2))


@settings(max_examples=25, deadline=None)
@given(model=boosted_models(), codes=st.sampled_from(list(Codes)), seed=st.integers(0, 1000))
def test_boosted_models_with_codes_read_numbers_as_their_categories(model, codes, seed):
    """Every extension of a boosted model (unknown categories' own children, missing intervals, float32...)
    with codes; numbers cast as the model casts them."""
    model = with_codes(model, codes, model.numeric.cast)
    rows = code_rows(model, seed, CODE_NUMBERS + list(CODE_TEXTS) + [None, "1"], count=3)
    check_codes_api(model, load(emit(model, "python")), rows)


def code_csv(model, rows) -> str:
    """The rows as CSV text, every value written as it is (numbers by repr), None as an empty field."""
    def field(value):
        text = "" if value is None else value if isinstance(value, str) else repr(value)
        return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\r\n') or text == "" else text
    names = [f.name for f in model.features]
    return "\n".join([",".join(field(n) for n in names)] + [",".join(field(row.get(n)) for n in names)
                                                            for row in rows]) + "\n"


def code_csv_oracle(model, rows) -> list:
    """The model's answers for the rows written by code_csv, as the reading rule reads the CSV."""
    as_read = [{f.name: (None if isinstance(row.get(f.name), str) and reads_as_missing(row[f.name])
                         else row.get(f.name)) for f in model.features} for row in rows]
    return predict_rows(model, [code_oracle(model, row) for row in as_read])


def check_codes_program(model, source: str, rows, runner=None) -> None:
    """The CSV program reads each field of a feature with codes as the reading rule does."""
    runner = runner or run
    text = code_csv(model, rows)
    answers = code_csv_oracle(model, rows)
    if model.target.is_classification:
        assert runner(source, text).splitlines() == [label for label, _ in answers]
        got = printed_numbers(runner(source, text, ["--proba"]).split("\n", 1)[1])
    else:
        got = [[p[0]] for p in printed_numbers(runner(source, text))]
    assert len(got) == len(rows) and all(same(g, scores) for g, (_, scores) in zip(got, answers))


CODE_FIELDS = list(CODE_TEXTS) + ["NA", " ", "0", "1", "-1", "2147483647"]


def test_features_with_codes_read_csv_fields_as_their_categories():
    for model in coded_models(40):
        check_codes_program(model, emit(model, "python"), code_rows(model, 40, CODE_FIELDS, count=4))


def test_codes_are_read_only_by_a_model_whose_features_have_them():
    """A model without codes is written as before: nothing of the rule is in it; with codes, the reading
    is where rows are read, and a known category costs one lookup (the rule runs on a miss only)."""
    for model in [random_model(3, n_trees=3), random_model(6, missing_kinds=("child",)), tennis_model()]:
        model = replace(model, features=tuple(replace(f, codes=None) for f in model.features))
        source = emit(model, "python", leaf=True)
        assert "_CODE" not in source and "_coded" not in source and "_code(" not in source
        coded = emit(with_codes(model, Codes.TRUNCATED), "python", leaf=True)
        assert "_coded(" in coded and "_CODED" in coded
    single = emit(code_probe_model(Codes.INTEGRAL), "python")
    assert re.search(r"if type\(v0\) is not str or v0 not in _KNOWN0:\n +v0 = _coded\(v0, ", single)


STAR_IMPORT = """
import sys as _sys
_sys.path.insert(0, _sys.argv[1])
from {module} import *
print(sorted(name for name in dir() if not name.startswith("_")))
print(predict({row!r}))
"""


@pytest.mark.parametrize("leaf", [False, True])
def test_a_star_import_takes_the_api_alone(tmp_path, leaf):
    """`from model import *` brought csv, io, math, os, re, sys and main besides the API: __all__ says the API,
    as the module's docstring lists it."""
    for model, name in ((tennis_model(), "tennis"), (random_model(5, regression=True), "valued")):
        (tmp_path / f"{name}.py").write_text(emit(model, "python", leaf=leaf), encoding="utf-8")
        row = {"outlook": "sunny", "humidity": "high"} if name == "tennis" else {"x0": 0.5}
        done = subprocess.run([sys.executable, "-c", STAR_IMPORT.format(module=name, row=row), str(tmp_path)],
                              capture_output=True, text=True, check=True)
        names, answer = done.stdout.splitlines()
        api = {"predict", "predict_values", "FEATURES", "CLASSES"} | (
            {"predict_proba", "predict_proba_values"} if name == "tennis" else set()) | ({"predict_leaf"} if leaf else set())
        assert eval(names) == sorted(api) and answer == str(model.predict(row))


def test_an_output_named_as_a_standard_module_is_refused(tmp_path):
    """`export --to python -o csv.py` wrote a file that, run, imports itself as csv and fails (AttributeError);
    imported, it takes the place of the module everywhere: refused, as the modules it imports or any other of
    the standard library (re, json), in one line."""
    from click.testing import CliRunner
    from treegen.cli import main
    from treegen.modelio import save
    model = tennis_model()
    save(model, str(tmp_path / "tennis.json"))
    premise = tmp_path / "premise"
    premise.mkdir()
    (premise / "csv.py").write_text(emit(model, "python"), encoding="utf-8")
    ran = subprocess.run([sys.executable, "csv.py"], cwd=premise, input="outlook\nsunny\n", capture_output=True,
                         text=True)
    assert ran.returncode == 1 and "AttributeError" in ran.stderr  # why the name is refused
    for name in ("csv", "re", "io", "math", "json"):
        output = str(tmp_path / f"{name}.py")
        result = CliRunner().invoke(main, ["export", str(tmp_path / "tennis.json"), "--to", "python", "-o", output])
        assert result.exit_code == 2 and not os.path.exists(output)
        assert result.output.splitlines() == [
            f"treegen: error: -o {output}: {name} is a module of Python's standard library, which a file of that name "
            "shadows (the program imports csv, io, json, math, numbers, os, re, struct, sys): choose another name"]
    result = CliRunner().invoke(main, ["export", str(tmp_path / "tennis.json"), "--to", "python", "-o",
                                       str(tmp_path / "tennis_model.py")])
    assert result.exit_code == 0
    ran = subprocess.run([sys.executable, "tennis_model.py"], cwd=tmp_path, input="outlook,temperature,humidity,wind\n"
                         "sunny,hot,high,weak\n", capture_output=True, text=True, check=True)
    row = {"outlook": "sunny", "temperature": "hot", "humidity": "high", "wind": "weak"}
    assert ran.stdout == model.predict(row) + "\n"


def test_a_number_float_refuses_is_refused_where_read_as_the_model_refuses_it():
    """Decimal('sNaN') and a Fraction beyond the largest double, which float() refuses: the model refused them
    (float()'s ValueError, OverflowError) even for a feature no split reads, which the module does not read; read,
    both refuse them, as they refuse an int beyond the largest double; Decimal('NaN') is missing in both."""
    from decimal import Decimal
    from fractions import Fraction
    leaf = lambda label: Node((1.0, 0.0) if label == "a" else (0.0, 1.0), n=1.0)
    model = Model((Feature("x", NUMERIC), Feature("unread", NUMERIC)), Target("t", CLASSIFICATION, ("a", "b")),
                  [Tree([Node((0.5, 0.5), split=Split(0, Op.LE, threshold=0.0, missing=MissingRoute(Route.CHILD, 1)),
                              children=(1, 2)), leaf("a"), leaf("b")])])
    module = load(emit(model, "python"))
    huge = Fraction(10 ** 400, 3)
    for row, want in [({"x": -1.0, "unread": Decimal("sNaN")}, "a"), ({"x": Decimal("sNaN"), "unread": 0.0}, "refused"),
                      ({"x": -1.0, "unread": huge}, "a"), ({"x": huge, "unread": 0.0}, "refused"),
                      ({"x": 10 ** 400, "unread": 0.0}, "refused"), ({"x": Decimal("NaN"), "unread": 0.0}, "b")]:
        assert refused_or(model.predict, row) == refused_or(module["predict"], row) == want, row


def refused_or(function, row):
    """What a call gives: its answer, or "refused" for float()'s errors."""
    try:
        return function(row)
    except (ValueError, OverflowError):
        return "refused"


def test_an_int_beyond_the_largest_double_is_refused_off_the_rows_path_as_the_module_refuses_it():
    """An int beyond the largest double, given for a feature a split reads but not on the row's path: the model
    refused it where its walk read it only, and answered it off the path, where the module's encoder (every
    feature some split reads, before the walk) refuses it, as it refuses text that is no number there. Both
    refuse it now; an int just inside the doubles is read, as float() reads it."""
    from collections import OrderedDict
    leaf = lambda label: Node((1.0, 0.0) if label == "a" else (0.0, 1.0), n=1.0)
    model = Model((Feature("x", NUMERIC), Feature("y", NUMERIC)), Target("t", CLASSIFICATION, ("a", "b")),
                  [Tree([Node((0.5, 0.5), split=Split(0, Op.LE, threshold=0.0, missing=MissingRoute(Route.CHILD, 1)),
                              children=(1, 2)),
                         Node((0.5, 0.5), split=Split(1, Op.LE, threshold=0.0, missing=MissingRoute(Route.CHILD, 1)),
                              children=(3, 4)), leaf("b"), leaf("a"), leaf("b")])])
    module = load(emit(model, "python"))
    general = lambda row: module["predict"](OrderedDict(row))  # (a plain dict takes the walker of the path)
    inside = 2 ** 1024 - 2 ** 970 - 1  # the largest int float() reads (to the largest double)
    for row, want in [({"x": 1.0, "y": 10 ** 400}, "refused"), ({"x": 1.0, "y": -(2 ** 1024 - 2 ** 970)}, "refused"),
                      ({"x": 1.0, "y": inside}, "b"), ({"x": -1.0, "y": inside}, "b"),
                      ({"x": -1.0, "y": 10 ** 400}, "refused"), ({"x": 1.0, "y": "1_0"}, "refused")]:
        assert refused_or(model.predict, row) == refused_or(general, row) == want, row
