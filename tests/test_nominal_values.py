"""A number or a Boolean given through an API for a nominal feature: one rule, the model's
(treegen.model.category_of), in the model, its rule evaluator, its vectorised walk and the generated Python,
Java and JavaScript -- by the value, not by each language's spelling of it."""
from __future__ import annotations

import json
import math
import os
import struct
import subprocess
import tempfile
from types import MappingProxyType

import numpy as np

from treegen.lower import lower, rules_output
from treegen.model import (NOMINAL, NUMERIC, REGRESSION, Codes, Combine, Feature, MissingRoute, Model, Node, Op,
                           Split, Target, Tree, category_of, tree_output)
from treegen.run.java import class_name, compile_sources
from treegen.targets import emit
from treegen.walk import predict_rows

from test_emit_java import PACKAGES, SPELL_HARNESS, as_answer
from test_emit_python import load

# Categories that read as numbers, several as one double ("3.0", "3"; "-0" and "0"), Booleans' spellings,
# and an int beyond 2^53 that reads as 2^53.
SPELT = ("3.0", "3", "1e-7", "TRUE", "false", "-0", "0", "inf", "9007199254740993", "0.5", "x")
NUMBERED = ("1", "0", "2", "2.5")  # no "true": a Boolean names the category of 1 or 0
CODED = ("0", "1", "2", "2.5")  # integral codes (HistGradientBoosting): 2.5 is read by its double


def probe_model(categories, codes=None, trees: int = 1) -> Model:
    """A regression on one nominal feature "c" whose category k predicts k + 1, and -1 when it is missing
    or unknown: every reading shows. Two trees are averaged: the APIs' encoded path."""
    def tree():
        split = Split(0, Op.EQ, values=tuple(categories), missing=MissingRoute.stop())
        return Tree([Node((-1.0,), split=split, children=tuple(range(1, len(categories) + 1)))]
                    + [Node((float(k + 1),), n=1.0) for k in range(len(categories))])
    return Model((Feature("c", NOMINAL, tuple(categories), codes=codes), Feature("x", NUMERIC)),
                 Target("y", REGRESSION), [tree() for _ in range(trees)], Combine("average" if trees > 1 else "single"))


# Values as Python gives them; below, as Java and JavaScript do.
VALUES = [3, 3.0, -3.0, 1e-7, True, False, np.bool_(True), np.float32(3.0), np.int64(3), np.float64(0.5),
          np.float32(0.5), np.float32(0.1), -0.0, 0, 0.0, math.inf, -math.inf, 2 ** 53 + 1, 2 ** 53, 1, 1.0,
          2.5, 2, 7, math.nan, np.float32(math.nan), None, "3.0", "3", "1.0", "true", "x"]


def java_field(value) -> str:
    """A value as SpellHarness reads it: a Boolean, a Long (numpy's int64, an int beyond an Integer), an
    Integer, a Float (numpy's float32), a Double, a String."""
    from urllib.parse import quote
    if value is None:
        return "%"
    if isinstance(value, (bool, np.bool_)):
        return f"b{str(bool(value)).lower()}"
    if isinstance(value, np.int64) or isinstance(value, int) and not -2 ** 31 <= value < 2 ** 31:
        return f"l{int(value)}"
    if isinstance(value, int):
        return f"i{value}"
    if isinstance(value, np.float32):
        return "f" + struct.pack(">f", value).hex()
    if isinstance(value, float):
        return "n" + struct.pack(">d", value).hex()
    return "s" + quote(value, safe="")


def js_value(value):
    """A value as JS_CHECK builds it: a boolean, a bigint (numpy's int64, an int beyond 2^53), a number, a
    string, null."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, np.int64) or isinstance(value, int) and abs(value) > 2 ** 53:
        return {"bigint": str(int(value))}
    return {"number": repr(float(value))}


JS_CHECK = """
import * as fs from "node:fs";
const model = await import(process.argv[2]);
const special = {nan: NaN, inf: Infinity, "-inf": -Infinity};
const value = (v) => v === null || typeof v !== "object" ? v
  : "bigint" in v ? BigInt(v.bigint) : (special[v.number] ?? Number(v.number));
const answers = JSON.parse(fs.readFileSync(process.argv[3], "utf8")).map((v) => {
  const c = value(v);
  return [model.predict({c, x: 0}), model.predict(new Map([["c", c], ["x", 0]]))];  // (an array is an encoded row)
});
console.log(JSON.stringify(answers));
"""


def java_answers(model, rows) -> list[list[float]]:
    source = emit(model, "java", package=f"n{next(PACKAGES)}")
    directories = compile_sources([source, SPELL_HARNESS])
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "rows.txt")
        with open(path, "w", encoding="utf-8") as handle:
            handle.writelines(f"{java_field(row['c'])}\t{java_field(row['x'])}\n" for row in rows)
        done = subprocess.run(["java", "-cp", os.pathsep.join(dict.fromkeys(directories)), "SpellHarness",
                               class_name(source), path], capture_output=True, text=True, timeout=600, check=True)
    return [[as_answer(model, text) for text in line.split("\t")] for line in done.stdout.splitlines()]


def js_answers(model, rows) -> list[list[float]]:
    with tempfile.TemporaryDirectory() as work:
        paths = [os.path.join(work, name) for name in ("model.mjs", "rows.json", "check.mjs")]
        texts = [emit(model, "javascript"), json.dumps([js_value(row["c"]) for row in rows]), JS_CHECK]
        for path, text in zip(paths, texts):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        done = subprocess.run(["node", paths[2], paths[0], paths[1]], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_a_number_or_a_boolean_names_one_category_in_every_target():
    """The same rows give Model.predict's answer in the model's other readers and in every target's API:
    the generated Python (the dict walker, the encoded path), Java (a Map, an Object[]) and JavaScript
    (an object, a Map)."""
    models = [probe_model(SPELT), probe_model(SPELT, trees=2), probe_model(NUMBERED),
              probe_model(CODED, codes=Codes.INTEGRAL)]
    for model in models:
        check_every_reader(model, VALUES)


def check_every_reader(model, values) -> None:
    """Each value of "c" (x 0) answered as Model.predict answers it by the rule evaluator, the vectorised walk,
    and the APIs of the generated Python, Java and JavaScript."""
    rows = [{"c": value, "x": 0.0} for value in values]
    want = [model.predict(row) for row in rows]
    [rules] = lower(model)[:1]
    assert [rules_output(model, model.trees[0], rules, row) for row in rows] == [
        tree_output(model, model.trees[0], row) for row in rows]
    assert [label for label, _ in predict_rows(model, rows)] == want
    module = load(emit(model, "python"))
    assert [module["predict"](row) for row in rows] == want
    assert [module["predict"](MappingProxyType(row)) for row in rows] == want  # encoded, not walked
    for row, expected, got in zip(rows, want, java_answers(model, rows), strict=True):
        assert got == [expected, expected], (row, got, expected)
    for row, expected, got in zip(rows, want, js_answers(model, rows), strict=True):
        assert got == [expected] * 2, (row, got, expected)


def test_a_category_spelt_as_a_csv_missing_value_is_that_category_through_every_api():
    """'NA', '?', '' and ' NA ' read as missing from a CSV field, but given through an API they are the
    categories of those names (category k predicts k + 1, a missing value -1)."""
    spelt = ("NA", "?", "", " NA ", "x")
    model = probe_model(spelt)
    assert [model.predict({"c": value, "x": 0.0}) for value in spelt + (None, "na")] == [1, 2, 3, 4, 5, -1, -1]
    check_every_reader(model, spelt + (None, "na"))


def test_the_rule_names_these_categories():
    """What the rule makes of each value, for the record: a number by its double (the decimal integer's
    spelling first, else the first category), a Boolean by "true"/"false" (any case) or 1/0, text as it is."""
    spelt, numbered, coded = (probe_model(SPELT).features[0], probe_model(NUMBERED).features[0],
                              probe_model(CODED, codes=Codes.INTEGRAL).features[0])
    named = {repr(v): category_of(spelt, v) for v in VALUES if v is not None and not (
        isinstance(v, float) and math.isnan(v))}
    assert named == {
        "3": "3", "3.0": "3", "-3.0": None, "1e-07": "1e-7", "True": "TRUE", "False": "false",
        "np.True_": "TRUE", "np.float32(3.0)": "3", "np.int64(3)": "3", "np.float64(0.5)": "0.5",
        "np.float32(0.5)": "0.5", "np.float32(0.1)": None, "-0.0": "0", "0": "0", "0.0": "0", "inf": "inf",
        "-inf": None, "9007199254740993": "9007199254740993", "9007199254740992": "9007199254740993", "1": None,
        "1.0": None, "2.5": None, "2": None, "7": None, "np.float32(nan)": None, "'3.0'": "3.0", "'3'": "3",
        "'1.0'": None, "'true'": None, "'x'": "x"}
    assert [category_of(numbered, v) for v in (True, False, 2.0, np.float32(2.5), "2.50", 1.0)] == [
        "1", "0", "2", "2.5", None, "1"]
    # the code's category first, then the category of the same double: 2.5 is no integral code
    assert [category_of(coded, v) for v in (2.0, "2.0", 2.5, "2.5", "2.50", True, -0.0)] == [
        "2", "2", "2.5", "2.5", "2.5", "1", "0"]


# Codes beside categories no code names: fractions, and integers beyond 2^31 (HistGradientBoosting on a pandas
# Categorical of floats, or of int IDs); texts that read as their numbers, one per edge of the rule.
BEYOND = ("0", "0.5", "2.5", "5000000001", "1", "-2147483649")
NUMBER_TEXTS = ("0.50", "5e-1", ".5", "2.50", "25e-1", "5000000001.0", "5.000000001e9", "-2147483649.0", "1.0",
                "1e0", "-0.0", "0.51", "2.7", "nan", "inf", "5000000002", "2147483648.0")


def test_a_text_that_reads_as_a_number_names_what_that_number_names():
    """A text of a feature with codes that is none of its categories but reads as a number is read as that
    number is: its code's category, else the category of the same double ("0.50", "5e-1" are "0.5";
    "5000000001.0", as pandas writes an int ID column holding a NaN, is "5000000001"), as scikit-learn's
    encoder finds a number category by its value -- under each rule; "nan" names none (no category, not
    missing). Then every reader of the model and every target's API on those texts."""
    for codes in Codes:
        feature = probe_model(BEYOND, codes=codes).features[0]
        for text in NUMBER_TEXTS:
            assert category_of(feature, text) == (None if text == "nan" else category_of(feature, float(text))), text
    integral = probe_model(BEYOND, codes=Codes.INTEGRAL).features[0]
    assert [category_of(integral, text) for text in NUMBER_TEXTS] == [
        "0.5", "0.5", "0.5", "2.5", "2.5", "5000000001", "5000000001", "-2147483649", "1", "1", "0", None, None,
        None, None, None, None]
    truncated = probe_model(BEYOND, codes=Codes.TRUNCATED).features[0]  # the code first: 0.5 is "0", 2.5 names none
    assert [category_of(truncated, text) for text in ("0.50", "2.50", "2.7", "5000000001.0", "-0.5")] == [
        "0", "2.5", None, "5000000001", "0"]
    for model in (probe_model(BEYOND, codes=Codes.INTEGRAL), probe_model(BEYOND, codes=Codes.TRUNCATED, trees=2)):
        check_every_reader(model, NUMBER_TEXTS)
