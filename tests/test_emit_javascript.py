"""The generated JavaScript module, run by Node, predicts exactly what the model predicts -- bit for bit,
every extension of the model included (float32 steps, glibc's exp and expf) -- through its API and
as a program whose output is byte for byte the reference protocol's; at any size, with every
function under V8's limit for optimisation; with any names; as an ES module, as CommonJS and in a
browser (headless Chromium). Many models share one Node process where the API is what is checked, and
programs run in one loaded Node process (run_loaded) where what they print is; the protocol's errors,
options and closed pipe, the big models, the 500-tree forest and the comparison with Python's program
run as a user runs them, a process each."""
from __future__ import annotations

import http.server
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
from dataclasses import replace
from decimal import Decimal, getcontext
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from treegen import arithmetic, modelio
from treegen.cli import main
from treegen.data import load_dataset
from treegen.emit.javascript import OPTIMIZED_LIMIT
from treegen.emit.render import render
from treegen.errors import TreegenError
from treegen.importers import import_file
from treegen.learn import fit
from treegen.model import Codes, Combine, MissingRoute, NumericSemantics, reached, tree_output
from treegen.probes import UNSEEN, probe_rows
from treegen.run.javascript import run, run_loaded
from treegen.run.protocol import write_output
from treegen.run.sql import read_csv
from treegen.targets import emit
from treegen.testing import HOSTILE_NAMES, chain_model, random_model, random_rows, wide_model
from treegen.walk import leaf_ids_rows, predict_rows

from test_emit_python import boosted as python_boosted
from test_emit_python import (CODE_FIELDS, CODE_NUMBERS, CODE_TEXTS, check_closed_pipe, check_codes_program,
                              check_errors, check_model_part, check_options, check_zero_weight_leaves, code_oracle,
                              code_rows, coded_models, extreme_model, hostile_models, misspelt_models,
                              misspelt_readings, rows_leaves, unnamed_models, unnamed_readings, spelled_readings, spelling_models,
                              symmetric_trees, to_csv,
                              with_codes)
from test_rule_text import boosted_models, edge_values, linear_models

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"

# One Node process checks many modules: each job names a module and rows; it prints, per row, what
# predict, predictProba and predictLeaf give for the row as an object and on the fast path, and where the
# rows API (predictRows, predictProbaRows) first differs from them by a bit, if anywhere: on the rows as
# objects and encoded, the first five, and 2,100 of them (the rows again and again) so that groups of
# trees go over ROWS_AT_ONCE rows and then a short chunk.
HARNESS = r"""
import {readFileSync} from "node:fs";
import {createRequire} from "node:module";
import {pathToFileURL} from "node:url";
const require = createRequire(import.meta.url);
const value = (v) => v !== null && typeof v === "object" ? (v.n === "nan" ? NaN : v.n === "inf" ? Infinity
  : v.n === "-inf" ? -Infinity : Number(v.n)) : v;
const text = (v) => typeof v === "number" ? (Object.is(v, -0) ? "-0" : String(v)) : v;
const jobs = JSON.parse(readFileSync(process.argv[2], "utf8"));
const rowsDiffer = (m, rows, what) => {
  const labels = m.predictRows(rows), probas = m.predictProba ? m.predictProbaRows(rows) : null;
  if (labels.length !== rows.length || probas !== null && probas.length !== rows.length) {
    return `${what}: ${labels.length} answers for ${rows.length} rows`;
  }
  for (let i = 0; i < rows.length; i++) {
    const one = m.predict(rows[i]), scores = probas === null ? [] : m.predictProba(rows[i]);
    if (!Object.is(labels[i], one) || probas !== null && (probas[i].length !== scores.length
        || probas[i].some((p, k) => !Object.is(p, scores[k])))) {
      return `${what}, row ${i}: ${labels[i]} ${probas && probas[i]} against ${one} ${scores}`;
    }
  }
  return null;
};
const results = [];
for (const job of jobs) {
  const m = job.path.endsWith(".cjs") ? require(job.path) : await import(pathToFileURL(job.path).href);
  const answers = [];
  for (const raw of job.rows) {
    const row = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, value(v)]));
    const x = m.encode(row);
    const answer = {predict: text(m.predict(row)), fast: text(m.predict(x))};
    if (m.predictProba) {
      answer.proba = m.predictProba(row).map(text);
      answer.fastProba = m.predictProba(x).map(text);
    }
    if (m.predictLeaf) {
      answer.leaf = m.predictLeaf(row);
    }
    answers.push(answer);
  }
  const objects = job.rows.map((raw) => Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, value(v)])));
  const many = Array.from({length: 2100}, (_, i) => objects[i % objects.length]);
  const rowsApi = [["objects", objects], ["encoded", objects.map(m.encode)], ["first five", objects.slice(0, 5)],
    ["2,100", many]].map(([what, rows]) => rowsDiffer(m, rows, what)).find((d) => d !== null) ?? "same";
  results.push({features: m.FEATURES, classes: m.CLASSES, answers, rowsApi});
}
console.log(JSON.stringify(results));
"""


def number(v: float) -> dict:
    """A number for the harness's JSON (which has no NaN, infinities or -0.0)."""
    return {"n": "nan" if math.isnan(v) else "inf" if v == math.inf else "-inf" if v == -math.inf else repr(v)}


def to_js(row: dict) -> dict:
    """A row for the harness: None stays null, numbers travel as text, categories as they are."""
    return {k: number(v) if isinstance(v, float) else v for k, v in row.items()}


def from_js(text: str):
    return float(text) if text not in ("NaN",) else math.nan


def api_answers(jobs: list[tuple[str, list[dict]]], module_names=None) -> list[dict]:
    """Run sources through the API in one Node process: per (source, rows), per row its answers."""
    with tempfile.TemporaryDirectory(prefix="treegen-js-test-") as directory:
        listed = []
        for k, (source, rows) in enumerate(jobs):
            ending = ".cjs" if source.startswith('"use strict";') else ".mjs"
            path = os.path.join(directory, f"model{k}{ending}")
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(source)
            listed.append({"path": path, "rows": [to_js(r) for r in rows]})
        with open(os.path.join(directory, "jobs.json"), "w", encoding="utf-8") as handle:
            json.dump(listed, handle)
        harness = os.path.join(directory, "harness.mjs")
        with open(harness, "w", encoding="utf-8") as handle:
            handle.write(HARNESS)
        done = subprocess.run(["node", "--stack-size=984", harness, os.path.join(directory, "jobs.json")],
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def reference_leaves(model, row) -> list[list[int]]:
    return [[node for node, weight in reached(model, tree, row) if weight > 0] for tree in model.trees]


def same(got: str, want: float) -> bool:
    """Bit for bit, NaN equal to NaN."""
    return struct.pack("<d", from_js(got)) == struct.pack("<d", want) or (math.isnan(want) and got == "NaN")


def assert_api_exact(models_rows, leaf: bool = False, module: str = "esm") -> None:
    """Every model's module answers every row as the model does, as an object and on the fast path."""
    sources = [emit(model, "javascript", leaf=leaf, module=module) for model, _ in models_rows]
    results = api_answers([(source, rows) for source, (_, rows) in zip(sources, models_rows)])
    for (model, rows), result in zip(models_rows, results):
        assert result["rowsApi"] == "same"
        assert result["features"] == [f.name for f in model.features]
        assert result["classes"] == list(model.target.classes)
        leaves = rows_leaves(model, rows) if leaf else [None] * len(rows)
        for row, answer, (label, scores), want in zip(rows, result["answers"], predict_rows(model, rows), leaves):
            if model.target.is_classification:
                assert answer["predict"] == answer["fast"] == label, row
                for key in ("proba", "fastProba"):
                    assert len(answer[key]) == len(scores) and all(map(same, answer[key], scores)), (row, answer)
            else:
                assert same(answer["predict"], label) and same(answer["fast"], label), (row, answer, label)
            if leaf:
                assert answer["leaf"] == want, row


def rows_for(model, count: int = 200, seed: int = 0) -> list[dict]:
    """Probes, random rows, and rows with a number moved onto an edge of the model's semantics (the
    ends of missing intervals and of the zero band, zeros of both signs)."""
    rng = random.Random(seed)
    probes = probe_rows(model, count)
    rows = probes[::max(1, len(probes) // (3 * count))] + random_rows(model, count // 3, seed)  # big models: a sample
    numeric = [f.name for f in model.features if f.is_numeric]
    edges = edge_values(model)
    return rows + ([{**row, rng.choice(numeric): rng.choice(edges)} for row in rows[:count]] if numeric else [])


def predicted(model, text: str) -> tuple[list[dict], list]:
    """The rows of this CSV as a program reads them, and the model's answers."""
    rows = read_csv(model, text)
    return rows, predict_rows(model, rows)


def expected_output(model, text: str, args=(), predictions=None) -> str:
    """What every program prints for this CSV: the model's answers in the protocol's words
    (``predictions``: what :func:`predicted` gives for it, if known)."""
    rows, answers = predictions or predicted(model, text)
    return write_output(model, [label for label, _ in answers], [scores for _, scores in answers],
                        leaf_ids_rows(model, rows) if "--leaf" in args else None, args)


def assert_program_exact(model, source: str, rows, leaf: bool = False, runner=run_loaded) -> None:
    """The program prints, byte for byte, what the protocol says the model's answers are: run in one
    loaded Node process, or with ``runner=run`` as a user runs it, a process each time."""
    text = to_csv(model, rows)
    predictions = predicted(model, text)  # once for every option: the big models' take seconds
    for args in [[]] + [["--proba"]] * model.target.is_classification + [["--leaf"]] * leaf:
        assert runner(source, text, args) == expected_output(model, text, args, predictions), args


# -- every kind of model ---------------------------------------------------------------------------

SEMANTICS = [NumericSemantics(), NumericSemantics("float32"), NumericSemantics(tolerance=1e-6),
             NumericSemantics("float32", strict=True), NumericSemantics(zero_band=1e-35)]


def varied_models() -> list:
    """Split kinds, missing routes, comparison semantics, forests, boosting, regression, hostile names."""
    models = []
    for seed in range(8):
        models.append(random_model(seed, max_depth=6, numeric=SEMANTICS[seed % len(SEMANTICS)]))
        models.append(random_model(100 + seed, regression=True, max_depth=6, missing_kinds=("fraction", "stop"),
                                   n_trees=1 + seed % 3))
    models.append(random_model(9, n_trees=5))
    models.append(extreme_model())
    models.append(random_model(14, names=HOSTILE_NAMES[:5], classes=HOSTILE_NAMES[20:25]))
    return models


def test_every_kind_of_model_is_exact_through_the_api():
    models = varied_models()
    assert_api_exact([(m, rows_for(m, 150)) for m in models], leaf=True)


def assert_random_models_exact(models, seed: int) -> None:
    """The models through the API in one Node process, with their leaves; the first as a program too."""
    assert_api_exact([(model, rows_for(model, 120, seed + k)) for k, model in enumerate(models)], leaf=True)
    assert_program_exact(models[0], emit(models[0], "javascript", leaf=True), rows_for(models[0], 120, seed)[:80],
                         leaf=True)


@settings(max_examples=6, deadline=None)
@given(models=st.lists(boosted_models(), min_size=5, max_size=5), seed=st.integers(0, 1000))
def test_every_extension_is_exact(models, seed):
    """Random models with random combinations of every field a boosting library's model needs:
    comparisons, missing intervals, the whole combine (float32 steps, links, divisors, bias, label
    rules), weighted and per-output trees, routes for unknown categories. 30 models, five to a Node
    process (its start cost more than the checks; an example more than 25 / 5 because Hypothesis's
    first may be five of its simplest model); one in five as a program too."""
    assert_random_models_exact(models, seed)


@settings(max_examples=3, deadline=None)
@given(models=st.lists(boosted_models(), min_size=5, max_size=5), seed=st.integers(0, 1000))
def test_symmetric_trees_are_exact(models, seed):
    """Symmetric trees (CatBoost's) with every kind of two-way split and missing route, in every kind
    of model, and the CatBoost fixtures: without leaf ids each walker computes its leaf's index from
    each level's test, without a branch (its boolean shifted into place); with them it walks."""
    models = [symmetric_trees(m, seed + k) for k, m in enumerate(models)]
    catboost = [m for _, m in imported_models() if "catboost" in m.meta]
    assert len(catboost) > 5 and all(re.search(r"\n *return \(\(.*\) << [0-9]+\)( \| \(\(.*\) << [0-9]+\))*;\n",
                                               emit(m, "javascript")) for m in catboost)
    assert_api_exact([(m, rows_for(m, 80, seed + k)) for k, m in enumerate(models + catboost)])
    assert_random_models_exact(models, seed)


@settings(max_examples=6, deadline=None)
@given(models=st.lists(linear_models(), min_size=5, max_size=5), seed=st.integers(0, 1000))
def test_linear_leaves_are_exact(models, seed):
    """Linear leaves (LightGBM's linear trees) on random boosted models, through the API and the program:
    30 models, five to a Node process."""
    assert_random_models_exact(models, seed)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), regression=st.booleans(), semantics=st.sampled_from(SEMANTICS),
       trees=st.sampled_from([1, 3]), missing=st.sampled_from([("stop", "child", "fraction"), ("child",),
                                                               ("fraction",)]))
def test_random_models_as_programs(seed, regression, semantics, trees, missing):
    model = random_model(seed, regression=regression, numeric=semantics, n_trees=trees, missing_kinds=missing)
    assert_program_exact(model, emit(model, "javascript", leaf=True), rows_for(model, 100, seed), leaf=True)


def boosted(seed: int, link: str, precision: str = "float64", **combine):
    """test_emit_python's per-class boosting trees, summed in ``precision``, with more of the combine."""
    model = python_boosted(seed, link)
    return replace(model, combine=replace(model.combine, precision=precision, **combine))


def test_fractional_sums_are_j48s():
    """J48's arithmetic, bit for bit: a path's fractions multiplied root first, the sums nested as the
    tree nests. On two of these rows, weights multiplied per feature or sums added in node order differ."""
    model = random_model(1)
    rows = random_rows(model, 60, 1)
    [result] = api_answers([(emit(model, "javascript", leaf=True), rows)])
    for row, answer in zip(rows, result["answers"]):
        expected = tree_output(model, model.trees[0], row)
        for key in ("proba", "fastProba"):
            assert len(answer[key]) == len(expected) and all(map(same, answer[key], expected)), (row, answer)
        assert answer["leaf"] == reference_leaves(model, row), row


def test_links_at_large_raw_sums_are_exact():
    """Raw sums far out, where exp overflows, underflows or leaves the normal doubles (the branch of
    glibc's exp beyond |x| = 512), in double and in float32."""
    assert_api_exact([(m, rows_for(m, 300)) for m in far_out_models()])


def far_out_models() -> list:
    """Boosted models whose raw sums reach far out, for every link that calls exp or expf."""
    models = []
    for k, (link, precision) in enumerate([("sigmoid", "float64"), ("softmax", "float64"), ("sigmoid", "float32"),
                                           ("softmax", "float32")]):
        model = boosted(k, link, precision)
        for tree in model.trees:
            for node in tree.nodes:
                node.value = tuple(v * 700.0 for v in node.value)
        models.append(model)
    exp_link = replace(random_model(3, regression=True, n_trees=2), combine=Combine("sum", (0.0,), 1.0, "exp"))
    for tree in exp_link.trees:
        for node in tree.nodes:
            node.value = (node.value[0] / 1000.0 * 0.75 - 200,)  # raw sums between about -1,000 and 600
    models.append(exp_link)
    return models


def test_commonjs_build_is_the_same_model():
    models = [random_model(4, n_trees=3), boosted(5, "softmax", "float32")]
    assert_api_exact([(m, rows_for(m, 100)) for m in models], leaf=True, module="commonjs")
    model = models[1]
    source = emit(model, "javascript", module="commonjs")
    assert source.startswith('"use strict";') and "\nexport " not in source and "import(" not in source
    assert_program_exact(model, source, rows_for(model, 60))


def test_an_es_module_imports_the_commonjs_builds_names(tmp_path):
    """Node finds a CommonJS module's names for `import {predict} from "./model.cjs"` only in an object literal
    assigned to module.exports: Object.freeze({...}) hid them (SyntaxError: Named export 'predict' not found)."""
    model = random_model(4, n_trees=3)
    (tmp_path / "model.cjs").write_text(emit(model, "javascript", module="commonjs", leaf=True), encoding="utf-8")
    row = random_rows(model, 1, seed=3)[0]
    (tmp_path / "use.mjs").write_text(
        'import model, {FEATURES, CLASSES, predict, predictProba, predictRows, predictProbaRows, predictLeaf, encode}'
        ' from "./model.cjs";\n'
        f"const row = {json.dumps(row)};\n"
        "console.log(JSON.stringify([predict(row), predictRows([row])[0], FEATURES.length, CLASSES.length,\n"
        "  predictProba === model.predictProba, Object.isFrozen(model), typeof predictProbaRows,\n"
        "  typeof predictLeaf, typeof encode]));\n", encoding="utf-8")
    done = subprocess.run(["node", str(tmp_path / "use.mjs")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    label = str(model.predict(row))
    assert json.loads(done.stdout) == [label, label, len(model.features), len(model.target.classes), True, True,
                                       "function", "function", "function"]


# -- models from the importers and learners -----------------------------------------------------------

def imported_models() -> list[tuple[str, object]]:
    """Every fixture file of the boosting importers (one per library version and kind), and C4.5 trees
    learned on Weka's data sets with missing values (fractional routes, Weka's label rule): imported once a
    process (4 s; hypothesis tests ask for them in each example), a new list each call."""
    return list(_imported_models())


@cache
def _imported_models() -> tuple[tuple[str, object], ...]:
    models = []
    for path in sorted((FIXTURES / "xgboost").glob("*.expected.json")):
        expected = json.loads(path.read_text())
        stem = path.name[:-len(".expected.json")]
        models.append((stem, import_file(str(FIXTURES / "xgboost" / f"{stem}.json"), **expected["options"])))
    for path in sorted((FIXTURES / "lightgbm").glob("*/*.txt")):
        models.append((f"lightgbm {path.parent.name} {path.stem}", import_file(str(path))))
    for path in sorted((FIXTURES / "catboost").glob("*.json")):
        if not path.name.endswith(".expected.json") and "depthwise" not in path.name:  # depthwise: refused
            models.append((path.stem, import_file(str(path))))
    for path in sorted((FIXTURES / "hist_gradient_boosting").glob("*.skops")):
        models.append((path.stem, import_file(str(path))))
    for name in ("labor", "soybean", "breast-cancer", "credit-g"):
        models.append((f"j48 {name}", fit(load_dataset(str(FIXTURES / "j48" / f"{name}.arff")), "c45")))
    return tuple(models)


@pytest.mark.slow
def test_imported_forests_and_boosting_and_c45_are_exact():
    cases = imported_models()
    kinds = {type(m.combine.decision()).__name__ for _, m in cases}
    assert len(cases) > 40 and kinds
    assert_api_exact([(m, rows_for(m, 150)) for _, m in cases], leaf=True)


def test_imported_models_as_programs():
    for name, model in imported_models()[::6]:
        assert_program_exact(model, emit(model, "javascript", leaf=True), rows_for(model, 60), leaf=True)


def test_scikit_learn_forest_of_500_trees_loads_and_runs():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from treegen.importers.sklearn import from_sklearn
    X, y = make_classification(n_samples=600, n_features=6, random_state=0)
    model = from_sklearn(RandomForestClassifier(500, max_depth=6, random_state=0).fit(X, y))
    rows = rows_for(model, 150)
    assert_api_exact([(model, rows)])
    assert_program_exact(model, emit(model, "javascript"), rows[:100], runner=run)


# -- any size -----------------------------------------------------------------------------------------

def walker_sizes(source: str) -> dict[str, int]:
    """The bytecode length of every walker, compiled eagerly by V8 (``--no-lazy``): the size of each
    function's code-creation event in V8's log, which is its bytecode array's length (the same as
    ``--print-bytecode`` shows, for a tenth of the CPU: the listing of the walkers is 32 MB)."""
    with tempfile.TemporaryDirectory() as directory:
        path, log = os.path.join(directory, "model.mjs"), os.path.join(directory, "v8.log")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        subprocess.run(["node", "--no-lazy", "--log-code", "--no-logfile-per-isolate", f"--logfile={log}", path],
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600,
                       check=False)  # as a program it then finds no CSV: exit 2
        with open(log, encoding="utf-8", errors="replace") as handle:
            printed = handle.read()
    # code-creation,JS,kind,time,address,size,name location,function,~ (~: bytecode, not optimised code)
    sizes = re.findall(r"^code-creation,JS,\d+,\d+,0x[0-9a-f]+,(\d+),(t\d+n\d+) .*,~$", printed, re.MULTILINE)
    return {name: int(size) for size, name in sizes}


@cache
def c45_chain():
    """chain_model(10_000) with C4.5's fractional route at every split, with weights whose products
    round: a missing value reaches every leaf."""
    model = chain_model(10_000)
    route = MissingRoute.fraction((0.3, 0.7))
    for node in model.trees[0].nodes:
        if node.split is not None:
            node.split = replace(node.split, missing=route)
    return model


@pytest.mark.slow
def test_big_models_load_run_and_stay_under_v8s_limit():
    """50,000 leaves, a path 10,000 splits deep (also with fractional routes, all of whose 10,001
    leaves a missing value reaches), a 500-tree forest: every walker's bytecode is under the size V8
    optimises, and the modules predict exactly (the program with Node's default stack)."""
    models = {"wide": wide_model(50_000), "chain": chain_model(10_000), "fractions": c45_chain(),
              "forest": random_model(1, n_trees=500, max_depth=6)}
    for name, model in models.items():
        source = emit(model, "javascript", leaf=True)
        if name in ("wide", "chain"):  # the other two have small walkers by construction
            sizes = walker_sizes(source)
            assert len(sizes) == len(re.findall(r"^function t\d+n\d+\(", source, re.MULTILINE)), name
            assert max(sizes.values()) < OPTIMIZED_LIMIT, name
            assert len(sizes) > 10
        probes = probe_rows(model, 1000)
        rows = probes[::max(1, len(probes) // 150)] + random_rows(model, 50)
        if name == "fractions":
            rows = [{"x": v} for v in (None, -1.0, 0.5, 5.0, 9998.5, 9999.0, 1e9, math.inf)]
        assert_program_exact(model, source, rows, leaf=True, runner=run)


# -- names --------------------------------------------------------------------------------------------

JS_HOSTILE = ["</script>", "<!-- x", "-->", "\u2028", "a\u2029b", "`${x}`", "\\u0041", "__proto__", "constructor",
              "toString", "hasOwnProperty", "\x00nul", "x\ufeffbom", "'; alert(1); '"]


def test_hostile_names_and_labels():
    """Quotes, `</script>`, line and paragraph separators, template syntax, escapes, the names every
    object inherits ("__proto__", "constructor"): the module is ASCII, reads them back, and predicts."""
    models = hostile_models()
    names = JS_HOSTILE + HOSTILE_NAMES
    for start in range(0, len(JS_HOSTILE), 4):
        features = (names[start:] + names)[:5]
        models.append(random_model(start, names=features, classes=(names[start + 1:] + names)[:3], max_depth=6))
    for model in models:
        source = emit(model, "javascript", leaf=True)
        assert source.isascii() and "</" not in source and "<!--" not in source
    assert_api_exact([(m, rows_for(m, 80)) for m in models], leaf=True)
    for model in models[-3:]:
        assert_program_exact(model, emit(model, "javascript"), rows_for(model, 40))


def test_each_test_names_its_feature_in_a_comment_no_name_can_end():
    for model in hostile_models():
        source = emit(model, "javascript")
        walkers = source[source.index("// -- the model"):source.index("// Per tree:")].splitlines()
        tests = [line for line in walkers if line.lstrip().startswith("if (")]
        assert tests
        for line in tests:
            match = re.search(r"x\[(\d+)\].*\{  // (.*)$", line)
            feature = model.features[int(match.group(1))]
            literals = [json.loads(text) for text in re.findall(r'"(?:\\.|[^"\\])*"', match.group(2))]
            assert literals[0] == feature.name and set(literals[1:]) <= set(feature.categories), line


# -- the program: the protocol every program follows ------------------------------------------------

def test_program_errors_exit_2_with_one_line():
    check_errors("javascript")


def test_program_options_and_columns():
    check_options("javascript")


def test_closed_pipe_ends_quietly():
    check_closed_pipe("javascript")


def test_leaf_ids_leave_out_nodes_reached_with_weight_zero():
    check_zero_weight_leaves("javascript")


def test_the_program_is_one_fixed_text_and_the_model_part_is_short():
    from treegen.emit.javascript import runtime
    check_model_part("javascript", runtime, 200)


def test_same_bytes_as_the_python_program():
    """On the same CSV, the JavaScript program prints what the Python program prints, byte for byte:
    labels, Python's repr of every number, quoting, errors."""
    from treegen.run.python import run as run_python
    models = [random_model(11, names=HOSTILE_NAMES[10:15], classes=["a,b", 'say "hi"', "new\nline", ""], max_depth=6),
              random_model(12, regression=True, n_trees=3), extreme_model(), boosted(3, "softmax")]
    for model in models:
        text = to_csv(model, rows_for(model, 120))
        for args in [[]] + [["--proba"]] * model.target.is_classification:
            assert run(emit(model, "javascript"), text, args) == run_python(emit(model, "python"), text, args)


def test_numbers_print_as_pythons_repr():
    """Every kind of double: Python's repr, the text the protocol prints (regression values)."""
    rng = random.Random(5)
    values = [0.0, -0.0, 1.0, -1.0, 0.1, 1e16, 1e15, 123456789012345.6, 1e-4, 1e-5, 5e-324, 1.7976931348623157e308,
              2.5e-308, 1e21, 1e22, 100.0, 0.5, 1 / 3, math.inf, -math.inf, math.nan]
    values += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(3000)]
    values += [rng.uniform(-1e6, 1e6) for _ in range(1000)] + [float(rng.randint(-10**17, 10**17)) for _ in range(500)]
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "repr.mjs")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(runtime_module() + 'import {readFileSync} from "node:fs";\n'
                         'for (const line of readFileSync(0, "utf8").trim().split("\\n")) '
                         'console.log(repr(parseNumber(line)));\n')
        done = subprocess.run(["node", path], input="".join(repr(v) + "\n" for v in values), capture_output=True,
                              text=True, check=True)
    assert done.stdout.splitlines() == [repr(v) for v in values]


# -- exact arithmetic ---------------------------------------------------------------------------------

def runtime_module() -> str:
    """The runtime alone, as a module: the model's names given trivial values."""
    stub = ("const FEATURES = [], CLASSES = [], CATEGORIES = [], USED = [], INTERVALS = null, LEAF_IDS = false;\n"
            "const COMBINE = {kind: 'single', init: [], scale: 1, initLast: false, link: 'identity', linkScale: 1,"
            " float32: false, divisor: 1, decide: 'argmax'};\n"
            "const WALK = [() => 0], EXCLUSIVE = [true], WIDTH = [1], OUTPUT = [-1], WEIGHT = [1];\n"
            "const VALUES = [new Float64Array([0])], LINEAR = [null], ZERO_BAND = 0;\n")
    return stub + render("javascript", "runtime.js.txt", coded=False, named=False, nan=False, exp=True, link="identity",
                         cut="0", tuples=False, nominal=False)


def run_runtime(code: str, lines: list[str]) -> list[str]:
    """Evaluate ``code`` (which reads ``lines`` and prints) after the runtime, in Node."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "check.mjs")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(runtime_module() + 'import {readFileSync} from "node:fs";\n'
                         'const lines = readFileSync(0, "utf8").trim().split("\\n");\n'
                         'const f64 = new Float64Array(1), u64 = new BigUint64Array(f64.buffer);\n'
                         'const hex = (v) => { f64[0] = v; return u64[0].toString(16); };\n'
                         'const fromHex = (h) => { u64[0] = BigInt("0x" + h); return f64[0]; };\n' + code)
        done = subprocess.run(["node", path], input="\n".join(lines) + "\n", capture_output=True, text=True,
                              check=True, timeout=600)
    return done.stdout.splitlines()


def bits(v: float) -> str:
    return format(struct.unpack("<Q", struct.pack("<d", v))[0], "x")


def test_exp_is_glibcs_bit_for_bit():
    """The runtime's exp against this machine's (Python's math.exp calls glibc's) on 200,000 doubles:
    uniform in [-40, 40] and over the whole range where exp is finite and not zero (the |x| >= 512
    branch and subnormal results), and over 60 binades of small magnitudes; and on the special cases.
    Math.exp differs from glibc's on about one in ten of them."""
    rng = random.Random(8)
    xs = [rng.uniform(-40, 40) for _ in range(60_000)] + [rng.uniform(-745.2, 709.8) for _ in range(80_000)]
    xs += [math.copysign(math.ldexp(rng.random() + 0.5, rng.randint(-60, 6)), rng.choice([-1, 1]))
           for _ in range(60_000)]
    xs += [0.0, -0.0, 5e-324, 2.0 ** -54, -(2.0 ** -54), 2.0 ** -55, 512.0, -512.0, math.nextafter(512.0, 0),
           709.782712893384, 709.7827128933841, -745.1332191019411, -745.1332191019412, -708.3964185322641,
           1023.99, -1023.99, 1024.0, -1024.0, 1e300, -1e300, math.inf, -math.inf, math.nan]
    got = run_runtime("for (const h of lines) console.log(hex(exp(fromHex(h))), hex(Math.exp(fromHex(h))));",
                      [bits(x) for x in xs])
    expected = [bits(arithmetic.exp(x)) for x in xs]
    differ = [x for x, g, e in zip(xs, got, expected) if g.split()[0] != e and not (math.isnan(x))]
    assert differ == []
    assert sum(g.split()[1] != e for g, e in zip(got, expected)) > len(xs) // 20  # Math.exp would not do


def test_expf_is_glibcs_on_every_kind_of_float32():
    """The runtime's expf against the model's (treegen.arithmetic.expf: glibc's, exact for every float32)
    on 200,000 float32 values, the two inputs where plain double arithmetic differs, and the bounds."""
    rng = random.Random(9)
    xs = [arithmetic.f32(rng.uniform(-104, 89)) for _ in range(150_000)]
    xs += [arithmetic.f32(math.copysign(math.ldexp(rng.random() + 0.5, rng.randint(-30, 6)), rng.choice([-1, 1])))
           for _ in range(50_000)]
    xs += list(arithmetic.EXPF_EXCEPTIONS) + [arithmetic.EXPF_OVERFLOW, arithmetic.EXPF_UNDERFLOW, 0.0, -0.0, 88.7,
                                              math.inf, -math.inf, math.nan]
    got = run_runtime("for (const h of lines) console.log(hex(expf(fromHex(h))));", [bits(x) for x in xs])
    assert got == [bits(arithmetic.expf(x)) for x in xs]


def test_exp_tables_are_the_powers_of_two_they_stand_for():
    """HEAD[j] is 2^(j/128) rounded, TAIL[j] the rest of it relative to HEAD[j], from 80-digit decimals
    (glibc's e_exp_data.c holds the same); HEAD[4 i] is expf's table, 2^(i/32)."""
    getcontext().prec = 80
    heads, tails = [], []
    for j in range(128):
        exact = Decimal(2) ** (Decimal(j) / 128)
        heads.append(float(exact))
        tails.append(float(exact / Decimal(float(exact)) - 1))
    got = run_runtime("console.log(EXP_HEAD.map(hex).join(' ')); console.log(EXP_TAIL.map(hex).join(' '));", [""])
    assert got == [" ".join(map(bits, heads)), " ".join(map(bits, tails))]
    assert [heads[4 * i] for i in range(32)] == list(arithmetic.EXPF_TABLE)


def test_fused_multiply_add_is_exact():
    """fma(a, b, c) rounds a * b + c once: against exact rational arithmetic, on products near their
    sums' cancellation and at rounding ties."""
    from fractions import Fraction
    rng = random.Random(10)
    triples = []
    for _ in range(20_000):
        a, b = rng.uniform(-4, 4), rng.uniform(-4, 4)
        c = -(a * b) * rng.choice([1.0, 1.0 + 2.0 ** -52, 0.5, -3.0])
        triples.append((a, b, c))
        triples.append((rng.uniform(-1e3, 1e3), 2.0 ** rng.randint(-60, 60), rng.uniform(-1, 1)))
    triples += [(1.0 + 2.0 ** -52, 1.0 + 2.0 ** -52, -1.0), (1.0 + 2.0 ** -30, 1.0 - 2.0 ** -30, -1.0)]
    got = run_runtime("for (const l of lines) { const [a, b, c] = l.split(' ').map(fromHex); "
                      "console.log(hex(fma(a, b, c))); }",
                      [" ".join(bits(v) for v in t) for t in triples])
    assert got == [bits(float(Fraction(a) * Fraction(b) + Fraction(c))) for a, b, c in triples]


# -- the API in detail --------------------------------------------------------------------------------

API_CHECK = r"""
import * as m from "./model.mjs";
const row = {x0: 0.5, x1: "2", x2: null, c0: "v0_1", c1: "unseen", extra: 1};
const out = [m.predict(row), m.predictProba(row), m.predictLeaf(row), m.predict(new Map(Object.entries(row))),
  m.predict(m.encode([0.5, 2, undefined, "v0_1", "unseen"])) === m.predict(row), Array.from(m.encode(row)),
  m.predict(m.encode(row)) === m.predict(row), m.predict({x0: null}), Object.isFrozen(m.FEATURES), m.FEATURES, m.CLASSES];
let thrown = [];
for (const bad of [() => m.predict({x0: "abc"}), () => m.predict({x0: {}}), () => m.encode([1, 2]),
  () => m.predict(0.5), () => m.predict(null), () => m.predictRows({x0: 0.5}), () => m.predictRows([row, 7]),
  () => m.predictProbaRows(null)]) {
  try { bad(); thrown.push("no error"); } catch (error) { thrown.push(error.constructor.name + ": " + error.message); }
}
console.log(JSON.stringify([out, thrown]));
"""


def test_the_api_takes_objects_maps_arrays_and_strings():
    model = random_model(4, max_depth=7)
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "model.mjs"), "w", encoding="utf-8") as handle:
            handle.write(emit(model, "javascript", leaf=True))
        with open(os.path.join(directory, "check.mjs"), "w", encoding="utf-8") as handle:
            handle.write(API_CHECK)
        done = subprocess.run(["node", "check.mjs"], cwd=directory, capture_output=True, text=True, check=True)
    (label, proba, leaves, by_map, positional, encoded, fast, empty, frozen, features, classes), thrown = json.loads(
        done.stdout)
    row = {"x0": 0.5, "x1": 2.0, "x2": None, "c0": "v0_1", "c1": UNSEEN}
    assert label == by_map == model.predict(row) and proba == model.scores(row)
    assert leaves == reference_leaves(model, row) and positional and fast and frozen
    full = [0.5, 2.0, None, 1, -2]  # NaN is null in JSON; c0 is code 1, c1 unknown
    unread = [None, None, None, -1, -1]  # a feature that no split tests is not read
    assert encoded == [full[i] if i in model.used_features() else unread[i] for i in range(5)]
    assert empty == model.predict({"x0": None}) and features == ["x0", "x1", "x2", "c0", "c1"] and classes == ["a", "b", "c"]
    assert thrown == ["TypeError: feature 'x0': 'abc' is not a number",
                      "TypeError: feature 'x0': '[object Object]' is not a number",
                      "RangeError: expected 5 values, one per feature, got 2",
                      "TypeError: a row is an object, a Map or an array of values, not number",
                      "TypeError: a row is an object, a Map or an array of values, not null",
                      "TypeError: rows: expected an array (or an iterable) of rows",
                      "TypeError: a row is an object, a Map or an array of values, not number",
                      "TypeError: rows: expected an array (or an iterable) of rows"]



FAST_PATH_CHECK = r"""
import * as m from "./model.mjs";
const values = ["sunny", 85, 85, "FALSE"];  // as written, in FEATURES order: not what the fast path takes
const asObject = {outlook: "sunny", temperature: 85, humidity: 85, windy: "FALSE"};
const answers = [m.predict(asObject), m.predict(m.encode(values)), m.predict(Array.from(m.encode(values))),
  m.predictProba(m.encode(values)), m.predictRows([m.encode(values), Array.from(m.encode(values))])];
const thrown = [];
for (const bad of [() => m.predict(values), () => m.predictProba(values), () => m.predictLeaf(values),
  () => m.predictRows([m.encode(values), values]), () => m.predict([0, 85, null, 1]), () => m.predict(["sunny"]),
  () => m.predict(new Float64Array(3)), () => m.predictProba(new Float64Array(5)), () => m.predict([0, 85, 85, 1, 7]),
  () => m.predictProbaRows([new Float64Array(2)]), () => m.predict(new BigInt64Array(4))]) {
  try { thrown.push("no error: " + JSON.stringify(bad())); } catch (error) { thrown.push(error.constructor.name + ": " + error.message); }
}
console.log(JSON.stringify([answers, thrown]));
"""


def test_an_array_is_the_fast_path_or_refused():
    """An array given to predict is the fast path: an array of values as written (["sunny", 85, 85, "FALSE"])
    was read as one with "sunny" missing ("yes" where the row is "no"), a short one with the rest missing."""
    model = fit(load_dataset(str(ROOT / "examples" / "weather.numeric.arff")), "c45")
    with tempfile.TemporaryDirectory() as directory:
        Path(directory, "model.mjs").write_text(emit(model, "javascript", leaf=True), encoding="utf-8")
        Path(directory, "check.mjs").write_text(FAST_PATH_CHECK, encoding="utf-8")
        done = subprocess.run(["node", "check.mjs"], cwd=directory, capture_output=True, text=True, check=True)
    answers, thrown = json.loads(done.stdout)
    row = {"outlook": "sunny", "temperature": 85, "humidity": 85, "windy": "FALSE"}
    assert answers == [model.predict(row)] * 3 + [model.scores(row), [model.predict(row)] * 2] and answers[0] == "no"
    assert model.used_features() == [0, 2, 3]  # J48's tree: outlook, humidity, windy
    not_number = ("TypeError: an array row is the fast path, numbers as encode() returns them, but value {} (feature "
                  "'{}') is not a number ({}): pass encode(values) for values as written, or an object")
    assert thrown == [not_number.format(0, "outlook", "string")] * 4 + [
        not_number.format(2, "humidity", "null")] + [
        f"RangeError: expected 4 values, one per feature, got {n}" for n in (1, 3, 5, 5, 2)] + [
        not_number.format(0, "outlook", "bigint")]


ROW_CHECK = """
import * as fs from "node:fs";
const model = await import(process.argv[2]);
const special = {nan: NaN, inf: Infinity, "-inf": -Infinity};
const number = (v) => v !== null && typeof v === "object" ? (special[v.n] ?? Number(v.n)) : v;  // to_js's numbers
const answer = (row) => {
  try {
    const got = model.predict(row);
    return typeof got === "number" ? String(got) : got;
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return "refused: " + error.message;
  }
};
const answers = JSON.parse(fs.readFileSync(process.argv[3], "utf8")).map((row) => {  // as an object, as a Map
  const entries = Object.entries(row).map(([name, v]) => [name, number(v)]);
  return [answer(Object.fromEntries(entries)), answer(new Map(entries))];
});
console.log(JSON.stringify(answers));
"""


def row_answers(model, rows: list[dict]) -> list[list]:
    """What the model's module answers each row given as an object and as a Map (ROW_CHECK)."""
    with tempfile.TemporaryDirectory() as directory:
        paths = [os.path.join(directory, name) for name in ("model.mjs", "rows.json", "check.mjs")]
        texts = [emit(model, "javascript"), json.dumps([to_js(row) for row in rows]), ROW_CHECK]
        for path, text in zip(paths, texts):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        done = subprocess.run(["node", paths[2], paths[0], paths[1]], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_numeric_text_is_read_by_the_number_grammar_alone():
    """An object's or a Map's text for a numeric feature is read as the model and the other targets read it
    (treegen's number grammar), other text refused with their message; a boolean is 1 or 0."""
    for model in spelling_models():
        rows, readings = spelled_readings(model)
        for row, want, got in zip(rows, readings, row_answers(model, rows), strict=True):
            for answer in got:  # an object's, a Map's
                assert answer == want if str(want).startswith("refused: ") or isinstance(want, str) else \
                    same(answer, want), row


def test_a_misspelt_key_is_refused_as_the_model_refuses_it():
    """An object's or a Map's key spelt almost as a feature that the row lacks ('humidty') is refused with the
    model's message, not read as the feature missing; a key like no feature is left alone."""
    for model in misspelt_models():
        rows, readings = misspelt_readings(model)
        for row, want, got in zip(rows, readings, row_answers(model, rows), strict=True):
            assert got == [want.replace("as None", "as null")] * 2, row


def test_a_row_that_names_no_feature_is_refused_as_the_model_refuses_it():
    """An object or a Map that names none of the model's features ({}, a table's raw columns) is refused with
    the model's message (null for None), not answered as a row of missing values; one naming only a feature no
    split reads is answered, as is any row by a model without a split."""
    for model in unnamed_models():
        rows, readings = unnamed_readings(model)
        for row, want, got in zip(rows, readings, row_answers(model, rows), strict=True):
            assert got == [want.replace("as None", "as null") if isinstance(want, str) else want] * 2, row


def test_names_every_object_inherits_are_read_only_as_the_rows_own():
    """A feature named "constructor" or "__proto__": an object row without it has it missing."""
    model = random_model(6, names=["constructor", "__proto__", "toString", "c0", "c1"], max_depth=5)
    rows = [{"c0": None}, {"constructor": 1.0}, {"toString": -1.0}] + rows_for(model, 60)
    assert_api_exact([(model, rows)])


def test_output_is_deterministic_and_options_are_checked():
    model = random_model(9, n_trees=3, max_depth=6)
    again = random_model(9, n_trees=3, max_depth=6)
    assert emit(model, "javascript", leaf=True) == emit(again, "javascript", leaf=True)
    with pytest.raises(TreegenError, match="class_name"):
        emit(model, "javascript", class_name="X")
    result = CliRunner().invoke(main, ["export", "--help"])
    assert "--module [esm|commonjs]" in result.output


def test_verify_runs_it_for_real(tmp_path):
    check_verify("javascript", tmp_path)


def check_verify(target: str, tmp_path) -> None:
    """`treegen verify --to TARGET` on a C4.5 tree with missing values and on a float32 boosted model."""
    model = fit(load_dataset(str(FIXTURES / "j48" / "labor.arff")), "c45")
    boosted_path = tmp_path / "boosted.json"
    modelio.save(boosted(7, "sigmoid", "float32", divisor=3.0), str(boosted_path))
    labor = tmp_path / "labor.json"
    modelio.save(model, str(labor))
    for path, data in ((labor, [str(FIXTURES / "j48" / "labor.arff")]), (boosted_path, [])):
        done = subprocess.run([sys.executable, "-m", "treegen", "verify", str(path), *data, "--to", target],
                              capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0 and done.stdout.startswith(target + " ") and " ok " in done.stdout, done.stdout


# -- the browser ----------------------------------------------------------------------------------------

def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    assert path, "the browser test needs Chromium: apt-get install chromium (scripts/test.sh installs it)"
    return path


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # noqa: D102 -- the test's output stays clean
        pass

    def end_headers(self):
        self.send_header("Cache-Control", "no-store")
        super().end_headers()


def test_the_web_example_runs_the_module_in_chromium(tmp_path):
    """examples/web/index.html imports the module generated for play-tennis and shows its predictions:
    headless Chromium, served on 127.0.0.1 only, prints the page once its script has run."""
    web = tmp_path / "web"
    shutil.copytree(ROOT / "examples" / "web", web)
    model = fit(load_dataset(str(ROOT / "examples" / "play_tennis.csv"), target="play"), "id3")
    (web / "tennis.mjs").write_text(emit(model, "javascript"), encoding="utf-8")
    handler = lambda *args: QuietHandler(*args, directory=str(web))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
        done = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                               "--disable-background-networking", "--disable-component-update", "--disable-sync",
                               "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
                               "--virtual-time-budget=10000", "--dump-dom", url],
                              capture_output=True, text=True, timeout=120)
    finally:
        server.shutdown()
        server.server_close()
    rows = [{"outlook": o, "temperature": t, "humidity": h, "wind": w} for o, t, h, w in
            [("sunny", "hot", "high", "weak"), ("overcast", "mild", "normal", "strong"),
             ("rain", "cool", "high", "strong"), ("sunny", "mild", "normal", "weak")]]
    assert 'id="status">done<' in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    for row in rows:
        assert f"<td>{model.predict(row)}</td>" in done.stdout


# -- features whose categories are integer codes: a number names its category (treegen.model.code_category) --

# Per job (a module and rows): per row, what predict and predictProba give for it as an object, a Map and an
# array of values (encoded), and what predictRows and predictProbaRows give for the rows each way.
CODES_HARNESS = r"""
import {readFileSync} from "node:fs";
import {pathToFileURL} from "node:url";
const value = (v) => v !== null && typeof v === "object" ? (v.n === "nan" ? NaN : v.n === "inf" ? Infinity
  : v.n === "-inf" ? -Infinity : Number(v.n)) : v;
const text = (v) => typeof v === "number" ? (Object.is(v, -0) ? "-0" : String(v)) : v;
const results = [];
for (const job of JSON.parse(readFileSync(process.argv[2], "utf8"))) {
  const m = await import(pathToFileURL(job.path).href);
  const objects = job.rows.map((raw) => Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, value(v)])));
  const ways = {object: objects, map: objects.map((row) => new Map(Object.entries(row))),
    array: objects.map((row) => m.encode(m.FEATURES.map((name) => row[name]))),
    boxed: objects.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v == null ? v : Object(v)])))};
  const result = {};
  for (const [way, rows] of Object.entries(ways)) {
    result[way] = rows.map((row) => text(m.predict(row)));
    result[way + "Rows"] = m.predictRows(rows).map(text);
    if (m.predictProba) {
      result[way + "Proba"] = rows.map((row) => m.predictProba(row).map(text));
      result[way + "ProbaRows"] = m.predictProbaRows(rows).map((p) => p.map(text));
    }
  }
  results.push(result);
}
console.log(JSON.stringify(results));
"""


def js_text(value) -> str:
    """A number's text in JavaScript (String): an integer below 1e21 without a fraction, -0 as "0"."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def codes_answers(jobs: list[tuple[str, list[dict]]]) -> list[dict]:
    """Run ES module sources on their rows in one Node process (CODES_HARNESS)."""
    with tempfile.TemporaryDirectory(prefix="treegen-js-codes-") as directory:
        listed = []
        for k, (source, rows) in enumerate(jobs):
            path = os.path.join(directory, f"model{k}.mjs")
            Path(path).write_text(source, encoding="utf-8")
            listed.append({"path": path, "rows": [to_js(row) for row in rows]})
        Path(directory, "jobs.json").write_text(json.dumps(listed), encoding="utf-8")
        Path(directory, "harness.mjs").write_text(CODES_HARNESS, encoding="utf-8")
        done = subprocess.run(["node", os.path.join(directory, "harness.mjs"), os.path.join(directory, "jobs.json")],
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def assert_codes_exact(models_rows) -> None:
    """Every way a module takes a row reads each row as the reading rule does, bit for bit."""
    results = codes_answers([(emit(model, "javascript"), rows) for model, rows in models_rows])
    for (model, rows), result in zip(models_rows, results):
        expected = predict_rows(model, [code_oracle(model, row) for row in rows])
        for way in ("object", "map", "array", "boxed"):
            for k, (label, scores) in enumerate(expected):
                for got in (result[way][k], result[way + "Rows"][k]):
                    assert got == label if model.target.is_classification else same(got, label), (way, rows[k])
                if model.target.is_classification:
                    for got in (result[way + "Proba"][k], result[way + "ProbaRows"][k]):
                        assert len(got) == len(scores) and all(map(same, got, scores)), (way, rows[k])


def test_features_with_codes_read_numbers_as_their_categories():
    """Objects, Maps, arrays and the rows API; single trees, forests, boosting summed by the add functions
    (the rows API's groups), truncated and integral codes, numbers read as doubles and as float32s. Each value
    boxed too (Object(v): new Number(0.5), new String("3.0"), of NaN): read as its primitive is (it was refused,
    "'70' is not a number", named a category by its text, and a Number of NaN was no missing value)."""
    models = coded_models(0) + coded_models(50)
    given = [v for v in CODE_NUMBERS if not isinstance(v, int) or abs(v) < 2 ** 31] + list(CODE_TEXTS) + [None, "1"]
    assert_codes_exact([(model, code_rows(model, k, given, count=4)) for k, model in enumerate(models)])


@settings(max_examples=4, deadline=None)
@given(models=st.lists(boosted_models(), min_size=5, max_size=5), codes=st.sampled_from(list(Codes)),
       seed=st.integers(0, 1000))
def test_boosted_models_with_codes_read_numbers_as_their_categories(models, codes, seed):
    models = [with_codes(model, codes, model.numeric.cast) for model in models]
    given = [v for v in CODE_NUMBERS if not isinstance(v, int)] + list(CODE_TEXTS) + [None, "1"]
    assert_codes_exact([(model, code_rows(model, seed, given, count=3)) for model in models])


def test_features_with_codes_read_csv_fields_as_their_categories():
    for model in coded_models(40):
        check_codes_program(model, emit(model, "javascript"), code_rows(model, 40, CODE_FIELDS, count=4),
                            runner=run_loaded)


def test_exp_is_written_only_into_a_module_whose_scores_take_it():
    """A tree's module (52 KB for the tennis tree with it) leaves out glibc's exp and expf; a boosted
    sigmoid's has them, and its scores are the model's (the exactness tests run them bit for bit)."""
    tree, sigmoid = random_model(3), python_boosted(2, "sigmoid")
    assert "function exp(" not in emit(tree, "javascript") and "function expf(" not in emit(tree, "javascript")
    assert "function exp(" in emit(sigmoid, "javascript")
    assert len(emit(tree, "javascript")) < len(emit(sigmoid, "javascript")) - 10_000


def test_codes_are_read_only_by_a_model_whose_features_have_them():
    """A model without codes is written as before: nothing of the rule is in it; with codes, the rule
    runs where the text lookup of a category misses, never on a hit."""
    from treegen.emit.javascript import runtime
    for model in [random_model(3, n_trees=3), random_model(6, missing_kinds=("child",)), python_boosted(2, "softmax")]:
        model = replace(model, features=tuple(replace(f, codes=None) for f in model.features))
        for module in ("esm", "commonjs"):
            source = emit(model, "javascript", module=module)
            assert "CODED" not in source and "codeOf" not in source and "CODE_FLOAT32" not in source
            assert source.count(runtime(model)) == 1
            coded = emit(with_codes(model, Codes.TRUNCATED), "javascript", module=module)
            assert "const CODED = [" in coded
            assert coded.count("return code !== undefined ? code : CODED[i] === null ? UNKNOWN : codeOf(i, ") == 2


MANY_CHECK = r"""
import * as m from "./model.mjs";
const thrown = [];
for (const value of [["v0_0", "v0_1"], ["v0_0"], new Float64Array([0.5])]) {
  for (const name of ["x0", "c0"]) {
    try { m.predict({[name]: value}); thrown.push("no error"); } catch (error) { thrown.push(error.message); }
  }
}
console.log(JSON.stringify(thrown));
"""


def test_many_values_for_one_feature_are_refused():
    """An array given for a nominal feature was read as its values joined by commas, a category the model does
    not know (the missing route: a silent wrong answer); for a numeric one it was refused as no number."""
    model = random_model(0, n_numeric=1, n_nominal=3, max_depth=5)
    assert {0, 1} <= set(model.used_features()) and [f.name for f in model.features[:2]] == ["x0", "c0"]
    with tempfile.TemporaryDirectory() as directory:
        with open(os.path.join(directory, "model.mjs"), "w", encoding="utf-8") as handle:
            handle.write(emit(model, "javascript"))
        with open(os.path.join(directory, "check.mjs"), "w", encoding="utf-8") as handle:
            handle.write(MANY_CHECK)
        done = subprocess.run(["node", "check.mjs"], cwd=directory, capture_output=True, text=True, check=True)
    refused = ("feature '{}': many values (an array), not one: predict takes one row, an object, a Map or an array of "
               "one value per feature")
    assert json.loads(done.stdout) == [refused.format(name) for name in ["x0", "c0"] * 3]


BIGINT_CHECK = r"""
import * as m from "./model.mjs";
const out = [];
for (const x of [2n ** 1024n - 2n ** 970n - 1n, 2n ** 1024n - 2n ** 970n, -(10n ** 400n)]) {
  for (const row of [{x}, new Map([["x", x]]), [x, 0]]) {
    try { out.push(m.predict(Array.isArray(row) ? m.encode(row) : row)); } catch (error) { out.push(`${error.name}: ${error.message}`); }
  }
}
console.log(JSON.stringify(out));
"""


def test_a_bigint_beyond_the_largest_double_is_refused_as_the_model_refuses_it():
    """A bigint beyond the largest double, given for a numeric feature, was read as an infinity (Number() of it)
    and answered where the model refuses such an int (float() raises OverflowError): an object, a Map and encode()
    of an array refuse it now, a RangeError. The largest one float() reads is read as the largest double."""
    from treegen.model import CLASSIFICATION, NUMERIC, Feature, Model, Node, Op, Route, Split, Target, Tree
    model = Model((Feature("x", NUMERIC), Feature("y", NUMERIC)), Target("t", CLASSIFICATION, ("a", "b")),
                  [Tree([Node((0.5, 0.5), split=Split(0, Op.LE, threshold=1e308, missing=MissingRoute(Route.CHILD, 1)),
                              children=(1, 2)), Node((1.0, 0.0)), Node((0.0, 1.0))])])
    with tempfile.TemporaryDirectory() as directory:
        Path(directory, "model.mjs").write_text(emit(model, "javascript"), encoding="utf-8")
        Path(directory, "check.mjs").write_text(BIGINT_CHECK, encoding="utf-8")
        done = subprocess.run(["node", "check.mjs"], cwd=directory, capture_output=True, text=True, check=True)
    assert model.predict({"x": 2 ** 1024 - 2 ** 970 - 1}) == "b"
    for value in (2 ** 1024 - 2 ** 970, -10 ** 400):
        with pytest.raises(OverflowError):
            model.predict({"x": value})
    assert json.loads(done.stdout) == ["b"] * 3 + ["RangeError: feature 'x': a bigint beyond the largest double"] * 6
