"""The generated C, compiled by gcc and clang, predicts exactly what the model predicts -- bit for bit,
every extension of the model included (float32 steps, glibc's exp and expf) -- through its API and as
a program whose output is byte for byte the reference protocol's; at any size; with any names; with
no warning under -std=c99 -Wall -Wextra -pedantic; several models in one program (--prefix). Many
models are compiled in one compiler run and checked by one program, so that the tests stay fast."""
from __future__ import annotations

import decimal
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, replace
from functools import cache
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from test_emit_javascript import (
    SEMANTICS,
    boosted,
    check_verify,
    expected_output,
    far_out_models,
    imported_models,
    rows_for,
    varied_models,
)
from test_emit_java import as_coded, as_text, coded_models, coded_rows, with_codes
from test_emit_python import (
    FRACTION_NAMES,
    as_csv_reads,
    check_closed_pipe,
    check_errors,
    check_model_part,
    check_options,
    check_zero_weight_leaves,
    code_read,
    extreme_model,
    hostile_models,
    rows_leaves,
    symmetric_trees,
    to_csv,
)
from test_import_catboost import exact_probabilities
from test_import_hist_gradient_boosting import exact_scores
from test_rule_text import boosted_models, linear_models

from treegen import modelio
from treegen.cli import main
from treegen.data import load_dataset
from treegen.emit.c import header, literal, macro_prefix, string
from treegen.errors import TreegenError
from treegen.importers import import_file
from treegen.importers.catboost import EXP_TOLERANCE as CATBOOST_TOLERANCE
from treegen.importers.catboost import class_text
from treegen.importers.hist_gradient_boosting import EXP_TOLERANCE as HGB_TOLERANCE
from treegen.learn import fit
from treegen.model import (
    NOMINAL,
    NUMBER,
    NUMERIC,
    REGRESSION,
    Codes,
    Feature,
    MissingRoute,
    Model,
    Node,
    Op,
    Split,
    Target,
    Tree,
    is_close,
)
from treegen.probes import probe_rows
from treegen.run.c import STANDARD_FLAGS, STRICT_FLAGS, compile_sources, run
from treegen.targets import emit
from treegen.testing import (
    HOSTILE_NAMES,
    category_stump,
    chain_model,
    random_model,
    random_rows,
    wide_model,
    with_linear_leaves,
)
from treegen.walk import predict_rows

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
WARNINGS = ("-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror")
PROGRAM_FLAGS = STANDARD_FLAGS + STRICT_FLAGS  # programs too compile at -O2 without a warning
# A test that checks its models through the API at -O2 (assert_api_exact) checks their programs at -O0:
# the program holds the same API code, its CSV part is one fixed text that the tests of programs alone
# compile at -O2, and a program's -O2 compile costs 3 to 4 times its -O0 one.
PROGRAM_FLAGS_O0 = ("-std=c99", "-O0") + STRICT_FLAGS

# One program checks many models, each compiled with its own prefix: it reads lines "M k" (the model
# to use next) and "R f1 f2 ..." (a row: "m" missing, "n<16 hex digits>" a double's bits, "c<hex>" a
# category's UTF-8 text, looked up with PREFIX_category, "i<int>" a code as it is) and prints, per row,
# the label index or the value's bits, the probabilities' bits and the leaf ids with their counts; after each
# model's rows, a line "B n:same ..." when its rows API (PREFIX_predict_rows, PREFIX_predict_proba_rows) on
# all of them, then on the first 5 (fewer than it takes to add the trees in groups), gives those answers
# bit for bit (else "n:differs@i").
HARNESS = r"""
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
%(includes)s

struct api {
    int n_features, n_classes, n_trees, leaf_capacity;
    int (*label)(const double *);
    double (*value)(const double *);
    void (*proba)(const double *, double *);
    int (*leaf)(const double *, int *, int *);
    int (*category)(int, const char *);
    void (*labels)(const double *, size_t, int *);
    void (*values)(const double *, size_t, double *);
    void (*probas)(const double *, size_t, double *);
};

static const struct api APIS[] = {
%(apis)s
};

static void bits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    printf(" %%016llx", (unsigned long long) u);
}

/* A model's rows so far and its answers one row a call: labels, and values or probabilities. */
static double *rows, *answers, *again;
static int *labels, *labels_again;
static size_t count, capacity;

static void keep(const struct api *m, const double *row, int label, const double *scores)
{
    size_t width = m->n_classes > 0 ? (size_t) m->n_classes : 1;
    if (count == capacity) {
        capacity = 2 * capacity + 64;
        rows = realloc(rows, sizeof(double) * capacity * (size_t) m->n_features);
        answers = realloc(answers, sizeof(double) * capacity * width);
        again = realloc(again, sizeof(double) * capacity * width);
        labels = realloc(labels, sizeof(int) * capacity);
        labels_again = realloc(labels_again, sizeof(int) * capacity);
    }
    memcpy(rows + count * (size_t) m->n_features, row, sizeof(double) * (size_t) m->n_features);
    memcpy(answers + count * width, scores, sizeof(double) * width);
    labels[count++] = label;
}

/* The rows API on the first n rows kept against their answers one row a call. */
static void check_rows(const struct api *m, size_t n)
{
    size_t i, width = m->n_classes > 0 ? (size_t) m->n_classes : 1;
    if (m->n_classes > 0) {
        m->labels(rows, n, labels_again);
        m->probas(rows, n, again);
    } else {
        m->values(rows, n, again);
    }
    for (i = 0; i < n; i++) {
        if ((m->n_classes > 0 && labels[i] != labels_again[i])
            || memcmp(answers + i * width, again + i * width, sizeof(double) * width) != 0) {
            printf(" %%zu:differs@%%zu", n, i);
            return;
        }
    }
    printf(" %%zu:same", n);
}

static void check_model(const struct api *m)
{
    printf("B");
    if (count > 0) {
        check_rows(m, count);
        check_rows(m, count < 5 ? count : 5);
    }
    printf("\n");
    count = capacity = 0;  /* the next model's rows and answers may be wider: made anew */
}

int main(void)
{
    static char line[1 << 20];
    const struct api *m = NULL;
    double row[4096], scores[4096];
    int *ids = NULL, counts[4096];
    while (fgets(line, sizeof line, stdin) != NULL) {
        char *field = strtok(line, " \n");
        int f = 0, n, k, label = 0;
        if (field != NULL && strcmp(field, "M") == 0) {
            if (m != NULL) {
                check_model(m);
            }
            m = &APIS[atoi(strtok(NULL, " \n"))];
            free(ids);
            ids = (int *) malloc(sizeof(int) * (size_t) m->leaf_capacity);
            continue;
        }
        while ((field = strtok(NULL, " \n")) != NULL) {
            if (field[0] == 'm') {
                row[f] = NAN;
            } else if (field[0] == 'n') {
                uint64_t u = strtoull(field + 1, NULL, 16);
                memcpy(&row[f], &u, sizeof u);
            } else if (field[0] == 'i') {
                row[f] = atof(field + 1);
            } else {
                char text[4096];
                size_t i, length = strlen(field + 1) / 2;
                for (i = 0; i < length; i++) {
                    unsigned byte;
                    sscanf(field + 1 + 2 * i, "%%2x", &byte);
                    text[i] = (char) byte;
                }
                text[length] = '\0';
                row[f] = (double) m->category(f, text);
            }
            f++;
        }
        if (m->n_classes > 0) {
            label = m->label(row);
            printf("%%d", label);
            m->proba(row, scores);
            for (k = 0; k < m->n_classes; k++) {
                bits(scores[k]);
            }
        } else {
            scores[0] = m->value(row);
            printf("v");
            bits(scores[0]);
        }
        keep(m, row, label, scores);
        n = m->leaf(row, ids, counts);
        printf(" |");
        for (k = 0; k < m->n_trees; k++) {
            printf(" %%d", counts[k]);
        }
        printf(" |");
        for (k = 0; k < n; k++) {
            printf(" %%d", ids[k]);
        }
        printf("\n");
    }
    if (m != NULL) {
        check_model(m);
    }
    free(ids);
    return 0;
}
"""


def api_entry(prefix: str, classification: bool) -> str:
    macro = macro_prefix(prefix)
    if classification:
        return (f"    {{{macro}_N_FEATURES, {macro}_N_CLASSES, {macro}_N_TREES, {macro}_LEAF_CAPACITY, "
                f"{prefix}_predict, NULL, {prefix}_predict_proba, {prefix}_predict_leaf, {prefix}_category, "
                f"{prefix}_predict_rows, NULL, {prefix}_predict_proba_rows}},")
    return (f"    {{{macro}_N_FEATURES, 0, {macro}_N_TREES, {macro}_LEAF_CAPACITY, NULL, {prefix}_predict, NULL, "
            f"{prefix}_predict_leaf, {prefix}_category, NULL, {prefix}_predict_rows, NULL}},")


def build(directory: str, sources: list[str], main_text: str, cc: str = "gcc", flags=("-O2",)) -> str:
    """Compile model sources (each its own translation unit, with its header beside it) and a main
    into one program, in one compiler run; the program's path."""
    names = []
    for k, source in enumerate(sources):
        Path(directory, f"m{k}.c").write_text(source, encoding="utf-8")
        Path(directory, f"m{k}.h").write_text(header(source), encoding="utf-8")
        names.append(f"m{k}.c")
    Path(directory, "main.c").write_text(main_text, encoding="utf-8")
    done = subprocess.run([cc, *WARNINGS, *flags, *names, "main.c", "-lm", "-o", "program"], cwd=directory,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-5000:]
    return os.path.join(directory, "program")


def encoded_rows(model, rows: list[dict]) -> list[str]:
    """The harness's line of each row: a number by its bits (big-endian: the 64-bit pattern's 16 hex digits), a
    text by its UTF-8 bytes or its code. The features are read once for all rows, not once a row (1,000-feature
    rows: 1.8 s a call, now a third of it)."""
    features = [(f.name, f.is_numeric, f.categories) for f in model.features]
    return ["R " + " ".join(encoded(value, numeric, categories) for name, numeric, categories in features
                            for value in (row.get(name),)) for row in rows]


def encoded(value, numeric: bool, categories) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "m"
    if numeric:
        return "n" + struct.pack(">d", float(value)).hex()
    if "\0" in value or not value:  # text that C cannot pass, or an empty field: by its code
        return "i" + str(categories.index(value) if value in categories else -1)
    return "c" + value.encode("utf-8").hex()


def same(got: str, want: float) -> bool:
    """Bit for bit, any NaN equal to any NaN."""
    value = struct.unpack("<d", struct.pack("<Q", int(got, 16)))[0]
    return struct.pack("<d", value) == struct.pack("<d", want) or (math.isnan(want) and math.isnan(value))


def distinct_sources(models) -> tuple[list[str], list[int]]:
    """The models' sources with leaf ids, each distinct one once, with its own prefix (m0, m1, ...), and
    per model the index of its source: models that emit the same C -- one fixture saved by several
    versions of its library -- share one compiled module (the importers' 103 fixtures are 61 sources)."""
    index, sources, of = {}, [], []
    for model in models:
        text = emit(model, "c", leaf=True, prefix="m")
        if text not in index:
            index[text] = len(sources)
            sources.append(emit(model, "c", leaf=True, prefix=f"m{len(sources)}"))
        of.append(index[text])
    return sources, of


def assert_api_exact(models_rows, cc: str = "gcc", flags=("-O2",), read=lambda model, row: row,
                     flag_sets=None) -> list[list[str]]:
    """Every model, compiled with its own prefix into one program, answers every row as the model does:
    label, probabilities bit for bit, value bit for bit, leaf ids -- for the row as ``read`` says the
    program must take it. ``flag_sets``: several sets of flags (else ``flags`` alone), a program each, given
    the same rows (encoded once: 1,000-feature rows take seconds) and held to the same answers (computed
    once); an output another set printed too is checked once. Returns the program's line for each row,
    per model (the first set's)."""
    sources, of = distinct_sources([model for model, _ in models_rows])
    includes = "\n".join(f'#include "m{j}.h"' for j in range(len(sources)))
    classifies = {j: model.target.is_classification for j, (model, _) in zip(of, models_rows)}
    apis = "\n".join(api_entry(f"m{j}", classifies[j]) for j in range(len(sources)))
    lines = []
    for j, (model, rows) in zip(of, models_rows):
        lines.append(f"M {j}")
        lines.extend(encoded_rows(model, rows))
    # every other model sums its rows 37 at a time, not 2,048 / its sums' width: chunks and the last one short
    at_once = tuple(f"-DM{j}_ROWS_AT_ONCE=37" for j in range(1, len(sources), 2))
    outputs = []
    for flags in flag_sets or [flags]:
        with tempfile.TemporaryDirectory(prefix="treegen-c-test-") as directory:
            program = build(directory, sources, HARNESS % {"includes": includes, "apis": apis}, cc,
                            tuple(flags) + at_once)
            done = subprocess.run([program], input="\n".join(lines) + "\n", capture_output=True, text=True,
                                  timeout=600)
        assert done.returncode == 0, (flags, done.stderr[-3000:])
        outputs.append(done.stdout)
    expected = [(rows, list(zip(predict_rows(model, taken), rows_leaves(model, taken))))
                for model, rows in models_rows for taken in ([read(model, row) for row in rows],)]
    printed = {output: assert_answers(models_rows, expected, output) for output in dict.fromkeys(outputs)}
    return printed[outputs[0]]


def assert_answers(models_rows, expected, output: str) -> list[list[str]]:
    """The harness's output (assert_api_exact's) gives each row the model's answers, ``expected``: per model its rows
    and each row's (label, scores) and leaf ids. Returns the harness's line for each row, per model."""
    answers, printed = iter(output.splitlines()), []
    for (model, _), (rows, wanted) in zip(models_rows, expected):
        printed.append([])
        for row, ((label, scores), want) in zip(rows, wanted):
            printed[-1].append(next(answers))
            head, counts, ids = printed[-1][-1].split(" |")
            fields = head.split()
            if model.target.is_classification:
                assert model.target.classes[int(fields[0])] == label, row
                assert len(fields) == 1 + len(scores) and all(map(same, fields[1:], scores)), (row, fields, scores)
            else:
                assert same(fields[1], label), (row, fields, label)
            assert [int(c) for c in counts.split()] == [len(t) for t in want], row
            assert [int(i) for i in ids.split()] == [i for t in want for i in t], row
        assert next(answers) == "B" + "".join(f" {n}:same" for n in ([len(rows), min(len(rows), 5)] if rows else []))
    assert next(answers, None) is None
    return printed


def assert_programs_exact(models_rows, leaf: bool = True, flags=PROGRAM_FLAGS, read=None, cc=None) -> None:
    """Each program prints, byte for byte, what the protocol says the model's answers are (all the
    programs compiled first, in one compiler run); ``read``: how the program must take a row as CSV gives
    it, where treegen's CSV reader is not the oracle."""
    sources = [emit(model, "c", leaf=leaf) for model, _ in models_rows]
    compile_sources(sources, cc=cc, flags=flags)
    for source, (model, rows) in zip(sources, models_rows):
        text = to_csv(model, rows)
        taken = None if read is None else [read(model, as_csv_reads(model, row)) for row in rows]
        predictions = None if read is None else (taken, predict_rows(model, taken))
        for args in [[]] + [["--proba"]] * model.target.is_classification + [["--leaf"]] * leaf:
            assert run(source, text, args, cc=cc, flags=flags) == expected_output(model, text, args, predictions), args


# -- every kind of model ---------------------------------------------------------------------------

def test_every_kind_of_model_is_exact_through_the_api():
    models = varied_models() + [boosted(k, link, precision) for k, (link, precision) in enumerate(
        [("sigmoid", "float64"), ("softmax", "float64"), ("sigmoid", "float32"), ("softmax", "float32")])]
    assert_api_exact([(m, rows_for(m, 150)) for m in models])


@pytest.mark.slow
@settings(max_examples=3, deadline=None)
@given(models=st.lists(boosted_models(), min_size=12, max_size=12), seed=st.integers(0, 1000))
def test_every_extension_is_exact(models, seed):
    """Random models with random combinations of every field a boosting library's model needs:
    comparisons, missing intervals, the whole combine (float32 steps, links, divisors, bias, label
    rules), weighted and per-output trees, routes for unknown categories -- a dozen in one program."""
    assert_api_exact([(m, rows_for(m, 100, seed + k)) for k, m in enumerate(models)])
    assert_programs_exact([(m, rows_for(m, 60, seed)) for m in models[:3]], flags=PROGRAM_FLAGS_O0)


@settings(max_examples=3, deadline=None)
@given(models=st.lists(linear_models(), min_size=12, max_size=12), seed=st.integers(0, 1000))
def test_linear_leaves_are_exact(models, seed):
    """Linear leaves (LightGBM's linear trees) on random boosted models, a dozen in one program."""
    assert_api_exact([(m, rows_for(m, 100, seed + k)) for k, m in enumerate(models)])
    assert_programs_exact([(m, rows_for(m, 60, seed)) for m in models[:3]], flags=PROGRAM_FLAGS_O0)


@settings(max_examples=2, deadline=None)
@given(models=st.lists(boosted_models(), min_size=8, max_size=8), seed=st.integers(0, 1000))
def test_symmetric_trees_are_exact(models, seed):
    """Symmetric trees (CatBoost's) with every kind of two-way split and missing route, in every kind
    of model, and the CatBoost fixtures: without leaf ids (as programs) each walker computes its leaf's
    index from each level's test, without a branch; with them (through the API) it walks."""
    models = [symmetric_trees(m, seed + k) for k, m in enumerate(models)]
    catboost = [m for _, m in imported_models() if "catboost" in m.meta]
    assert len(catboost) > 5 and all(re.search(r"\n *return \(.* \? [0-9]+ : [0-9]+\);\n", emit(m, "c"))
                                     for m in catboost)
    assert_programs_exact([(m, rows_for(m, 60, seed)) for m in models + catboost[::2]], leaf=False,
                          flags=PROGRAM_FLAGS_O0)
    assert_api_exact([(m, rows_for(m, 60, seed)) for m in models])


def test_gcc_inlines_symmetric_trees_into_the_sums_at_o2(tmp_path):
    """A symmetric tree's walker (a few tests) is inline: gcc -O2 inlined none of them (above its limit for a
    function not marked so) and called each from the sums, one call a tree a row (CatBoost's 500 trees through
    the rows API: 1.46 µs a row, inlined 0.93 µs, as -O3 gives). No walker is left a function of its own."""
    model = symmetric_trees(random_model(3, regression=True, n_trees=60, max_depth=6), 3, depth=6)
    source = emit(model, "c")
    walkers = re.findall(r"\nstatic inline int (t[0-9]+_n0)\(const double \*x\)\n", source)
    assert len(walkers) > 20 and "ADDS" in source
    (tmp_path / "model.c").write_text(source, encoding="utf-8")
    subprocess.run(["gcc", "-O2", "-c", "model.c"], cwd=tmp_path, check=True)
    symbols = subprocess.run(["nm", "model.o"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert not set(walkers) & set(re.findall(r" t (t[0-9]+_n0)\b", symbols)), symbols[:500]


def test_a_model_that_reads_no_feature_compiles_without_a_warning():
    """Trees of one leaf read no number of a row (N_READ 0): gcc -O2 said "'read_' may be used uninitialized" of the
    row passed on unwritten (-Werror: no program), found by a linear-leaf model whose leaves read nothing."""
    models = [random_model(seed, max_depth=0, regression=seed == 3, n_trees=seed) for seed in (1, 2, 3)]
    models.append(with_linear_leaves(random_model(6, max_depth=0, regression=True, n_trees=2), 6))  # terms: none
    assert all(not model.used_features() for model in models) and models[-1].linear_features() == []
    assert all(node.linear is not None for tree in models[-1].trees for node in tree.nodes)
    assert_api_exact([(m, rows_for(m, 20, k)) for k, m in enumerate(models)])
    assert_programs_exact([(m, rows_for(m, 20, k)) for k, m in enumerate(models)])


def test_random_models_as_programs():
    models = [random_model(seed, regression=seed % 2 == 1, numeric=SEMANTICS[seed % len(SEMANTICS)],
                           n_trees=1 + 2 * (seed % 2), missing_kinds=missing)
              for seed, missing in enumerate([("stop", "child", "fraction"), ("child",), ("fraction",)] * 2)]
    assert_programs_exact([(m, rows_for(m, 100, k)) for k, m in enumerate(models)])


def test_links_at_large_raw_sums_are_exact():
    """Raw sums far out, where exp overflows, underflows or leaves the normal doubles, in double and
    in float32 (libm's exp, glibc's here; expf written out as glibc computes it)."""
    assert_api_exact([(m, rows_for(m, 300)) for m in far_out_models()])


# -- models from the importers and learners -----------------------------------------------------------

@pytest.mark.slow
def test_imported_forests_and_boosting_and_c45_are_exact():
    """Every fixture of the XGBoost, LightGBM, CatBoost and HistGradientBoosting importers, and C4.5
    with fractional routes on Weka's data sets with missing values: the C answers as the model does,
    and on the rows each library predicted when its fixture was made, as the library did -- its label,
    and its probabilities or value bit for bit (to the importer's stated tolerance where the library's
    own exp is not libm's)."""
    cases = imported_models()
    assert len(cases) > 40
    recorded = recordings(cases)
    assert len(recorded) > 30
    printed = assert_api_exact([(m, (recorded[name].rows if name in recorded else []) + rows_for(m, 100))
                                for name, m in cases])
    compared = sum(assert_as_recorded(model, recorded[name], lines) for (name, model), lines in zip(cases, printed)
                   if name in recorded)
    assert compared > 2000
    assert_programs_exact([(m, rows_for(m, 60)) for _, m in cases[::12]], flags=PROGRAM_FLAGS_O0)


def as_row(model, values) -> dict:
    """A row a library was given (numbers, None, category codes or texts) as treegen reads it: a code
    as its decimal digits, as the importers name categories."""
    row = {}
    for feature, value in zip(model.features, values):
        if value is None or (isinstance(value, float) and math.isnan(value)):
            row[feature.name] = None
        elif feature.is_numeric or isinstance(value, str):
            row[feature.name] = float(value) if feature.is_numeric else value
        else:
            row[feature.name] = str(int(value)) if float(value).is_integer() else repr(float(value))
    return row


@dataclass
class Recording:
    """What a library predicted for the rows it was given when a fixture was made (as its importer's
    tests read the fixture): per row its label as treegen names the classes (None: not recorded), and
    its probabilities or value from position ``first`` of treegen's scores on (None: not recorded);
    bit for bit where ``tolerance`` is 0."""
    rows: list[dict]
    labels: list[str | None]
    scores: list[list[float] | None]
    first: int = 0
    tolerance: float = 0.0


def recordings(cases) -> dict[str, Recording]:
    """Per fixture of ``imported_models()``, by its name there, the rows its library predicted and
    what it predicted; C4.5's fixtures have none."""
    found = {}
    for name, model in cases:
        if name.startswith("lightgbm "):
            _, version, stem = name.split(" ")
            found[name] = lightgbm_recording(model, json.loads((FIXTURES / "lightgbm" / version / f"{stem}.json")
                                                               .read_text()))
        elif not name.startswith("j48 "):
            library = next(d for d in ("xgboost", "catboost", "hist_gradient_boosting")
                           if (FIXTURES / d / f"{name}.expected.json").exists())
            expected = json.loads((FIXTURES / library / f"{name}.expected.json").read_text())
            found[name] = RECORDING_READERS[library](model, expected)
    return found


def xgboost_recording(model, expected: dict) -> Recording:
    """As test_import_xgboost reads it: multi:softmax records the label as its prediction; a binary
    classifier's probability p is treegen's [float32(1 - p), p]."""
    rows = [as_row(model, values) for values in expected["rows"]]
    predictions = [[float(v) for v in p] for p in expected["predictions"]]
    recorded = expected.get("labels")
    labels = [None] * len(rows) if recorded is None else [str(int(v)) for v in recorded]
    if model.meta["xgboost"]["objective"] == "multi:softmax":
        return Recording(rows, [str(int(p[0])) for p in predictions], [None] * len(rows))
    if model.target.is_classification and len(model.target.classes) == 2:
        predictions = [[float(np.float32(1.0) - np.float32(p[0])), p[0]] for p in predictions]
    return Recording(rows, labels, predictions)


def lightgbm_recording(model, expected: dict) -> Recording:
    """As test_import_lightgbm reads it: a binary classifier records the probability of class 1 only;
    rows with a fractional category code are left out (LightGBM truncates it to a category, treegen
    sends a category the model does not know the missing value's way, as that test says)."""
    kinds = [kind for _, kind in expected["features"]]
    keep = [i for i, values in enumerate(expected["rows"])
            if not any(kind == "codes" and v is not None and math.isfinite(v) and v != int(v)
                       for kind, v in zip(kinds, values))]
    predictions = [[float(v) for v in np.ravel(expected["predictions"][i])] for i in keep]
    labels = expected["labels"]
    first = 1 if model.target.is_classification and len(predictions[0]) == 1 else 0
    return Recording([as_row(model, expected["rows"][i]) for i in keep],
                     [None if labels is None else str(labels[i]) for i in keep], predictions, first)


def catboost_recording(model, expected: dict) -> Recording:
    """As test_import_catboost reads it: softmax and Exponent are CatBoost's fast exp, to its tolerance."""
    rows = [as_row(model, values) for values in expected["rows"]]
    tolerance = 0.0 if exact_probabilities(model) else CATBOOST_TOLERANCE
    if "labels" in expected:
        kind = model.meta["catboost"]["class_type"]
        return Recording(rows, [class_text(v, kind) for v in expected["labels"]], expected["probabilities"],
                         tolerance=tolerance)
    values = expected.get("values", [r[0] for r in expected["raw"]])
    return Recording(rows, [None] * len(rows), [[v] for v in values], tolerance=tolerance)


def hist_gradient_boosting_recording(model, expected: dict) -> Recording:
    """As test_import_hist_gradient_boosting reads it: softmax and the exp link are numpy's exp, to
    its tolerance."""
    rows = [as_row(model, values) for values in expected["rows"]]
    tolerance = 0.0 if exact_scores(model) else HGB_TOLERANCE
    if "labels" in expected:
        return Recording(rows, [str(v) for v in expected["labels"]], expected["probabilities"], tolerance=tolerance)
    return Recording(rows, [None] * len(rows), [[v] for v in expected["values"]], tolerance=tolerance)


RECORDING_READERS = {"xgboost": xgboost_recording, "catboost": catboost_recording,
                     "hist_gradient_boosting": hist_gradient_boosting_recording}


def assert_as_recorded(model, recording: Recording, lines: list[str]) -> int:
    """The C program's answers (the harness's lines, the recorded rows first) are the library's: the
    label, and the probabilities or value bit for bit (or to the recording's tolerance). Returns the
    number of rows compared."""
    n = len(recording.rows)
    for row, label, scores, line in zip(recording.rows, recording.labels, recording.scores, lines[:n], strict=True):
        fields = line.split(" |")[0].split()
        if model.target.is_classification:
            assert label is None or model.target.classes[int(fields[0])] == label, (row, fields[0], label)
        got = [struct.unpack("<d", struct.pack("<Q", int(f, 16)))[0] for f in fields[1:]][recording.first:]
        if scores is not None:
            want = [float(w) for w in scores]
            assert len(got) == len(want), (row, got, want)
            if recording.tolerance:
                assert all(is_close(g, w, recording.tolerance) for g, w in zip(got, want)), (row, got, want)
            else:
                assert struct.pack(f"<{len(got)}d", *got) == struct.pack(f"<{len(want)}d", *want), (row, got, want)
    return n


@pytest.mark.slow
def test_scikit_learn_forest_of_500_trees():
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    from treegen.importers.sklearn import from_sklearn
    X, y = make_classification(n_samples=600, n_features=6, random_state=0)
    model = from_sklearn(RandomForestClassifier(500, max_depth=6, random_state=0).fit(X, y))
    rows = rows_for(model, 150)
    assert_api_exact([(model, rows)])
    assert_programs_exact([(model, rows[:100])], leaf=False, flags=PROGRAM_FLAGS_O0)


# -- any size -----------------------------------------------------------------------------------------

def compile_measured(directory: str, name: str, source: str) -> tuple[float, int]:
    """Compile one source with gcc -O2 as a program: (seconds, peak resident kilobytes of the compiler)."""
    Path(directory, f"{name}.c").write_text(source, encoding="utf-8")
    start = time.perf_counter()
    process = subprocess.Popen(["gcc", *STANDARD_FLAGS, *STRICT_FLAGS, "-DTREEGEN_MAIN", f"{name}.c", "-lm", "-o",
                                name], cwd=directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    assert process.returncode == 0, process.stdout.read().decode()[-3000:]
    return seconds, usage.ru_maxrss


@pytest.mark.slow
def test_50000_leaves_and_depth_10000_compile_in_bounded_time_and_memory_and_run():
    """gcc -O2 on a 50,000-leaf tree and a 10,000-deep chain: the trees are cut into functions, so
    compile time and memory grow with the size, not faster; then the programs are exact. The figures
    go to the test's output (pytest -s) for the README."""
    models = {"wide": wide_model(50_000), "chain": chain_model(10_000)}
    with tempfile.TemporaryDirectory(prefix="treegen-c-big-") as directory:
        for name, model in models.items():
            source = emit(model, "c", leaf=True)
            seconds, kilobytes = compile_measured(directory, name, source)
            print(f"\n{name}: {len(source.splitlines())} lines, gcc -O2 {seconds:.1f} s, {kilobytes // 1024} MB "
                  f"(load {os.getloadavg()[0]:.1f})")
            assert kilobytes < 1_500_000 and seconds < 300, name
            probes = probe_rows(model, 1000)
            rows = probes[::max(1, len(probes) // 150)] + random_rows(model, 50)
            text = to_csv(model, rows)
            for args in ([], ["--leaf"]):
                done = subprocess.run([os.path.join(directory, name), *args], input=text.encode(),
                                      capture_output=True, timeout=120)
                assert done.stdout.decode() == expected_output(model, text, args), (name, args)


def test_fractional_routes_at_depth_1000_run_in_a_flat_stack():
    """C4.5's fractional route at every split of a 1,000-deep chain: a missing value reaches all 1,001
    leaves from a work list of fixed size, with no recursion, its sums nested 1,000 deep -- also where
    the path goes on in first children (its ids, in no pre-order, sorted)."""
    models = [chain_model(1000), chain_model(1000)]
    for model, first in zip(models, (False, True)):
        for node in model.trees[0].nodes:
            if node.split is not None:
                node.split = replace(node.split, missing=MissingRoute.fraction((0.7, 0.3) if first else (0.3, 0.7)))
                node.children = node.children[::-1] if first else node.children
    rows = [{"x": v} for v in (None, -1.0, 0.5, 5.0, 998.5, 999.0, 1e9, math.inf)]
    # At -O0: the work list and its fixed size are the generated code's, not the optimiser's (and gcc -O2
    # takes 9 s a chain, -O0 2); fractional routes at -O2: test_fractional_sums_nest_as_j48s and the J48
    # models of the importers' test.
    assert_programs_exact([(model, rows) for model in models], flags=PROGRAM_FLAGS_O0)


def test_fractional_sums_nest_as_j48s():
    """J48's arithmetic (treegen.model.nested_sum): a path's weight multiplies its fractions root first,
    and a split that spreads a row adds its children's sums in order from 0.0 -- not per feature, nor
    flat in node order, which differ in bits on some of these rows."""
    model = random_model(1)
    rows = random_rows(model, 60, 1)
    assert_api_exact([(model, rows)])
    assert_programs_exact([(model, rows)], flags=PROGRAM_FLAGS_O0)


# -- compilers, flags, several models in one program ------------------------------------------------

def warning_models() -> list:
    return [random_model(3, max_depth=6), random_model(4, regression=True, n_trees=3, missing_kinds=("fraction",)),
            boosted(1, "softmax", "float32"), boosted(2, "sigmoid", "float64", divisor=2.0), extreme_model(),
            hostile_models()[0], fit(load_dataset(str(FIXTURES / "j48" / "labor.arff")), "c45"),
            # trees without fractional routes: summed by direct calls (sum_trees), no table of trees
            import_file(str(ROOT / "examples" / "boosting" / "xgboost.json")),
            import_file(str(ROOT / "examples" / "boosting" / "lightgbm.txt")),
            import_file(str(FIXTURES / "lightgbm" / "4.7.0" / "linear_tree_categorical.txt")),  # linear leaves
            with_codes(random_model(5), [Codes.NONNEGATIVE, Codes.INTEGRAL], "float32")]  # numbers read as codes


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_no_warning_under_gcc_and_clang_at_O0_and_O2(cc, tmp_path):
    """-std=c99 -Wall -Wextra -pedantic -Werror, the API and the program, at -O0 (at -O2: the next test's
    compile, under these warnings and more); the API compiled at -O0 predicts exactly as well
    (assert_api_exact compiles at -O2)."""
    assert shutil.which(cc), f"{cc} is needed: scripts/test.sh installs it"
    models = warning_models()
    for k, model in enumerate(models):
        for leaf in (False, True):
            (tmp_path / f"m{k}_{int(leaf)}.c").write_text(emit(model, "c", leaf=leaf, prefix=f"m{k}"), encoding="utf-8")
    files = sorted(p.name for p in tmp_path.glob("m*.c"))
    # The program holds the API: all is compiled. -O2 is test_no_warning_under_conversion_and_double_promotion
    # _warnings's: these models' modules, with leaf ids and without, under WARNINGS and more (gcc's -O2 compile
    # serves both tests; clang's warnings do not depend on -O: there it reads them). gcc at -O2 compiles the API
    # of every model of every other test with -Werror too (assert_api_exact), and the programs of the tests of
    # programs alone; the tests that check the API compile their programs at -O0.
    done = subprocess.run([cc, *WARNINGS, "-O0", "-DTREEGEN_MAIN", "-c", *files], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]
    assert_api_exact([(m, rows_for(m, 60)) for m in models], cc=cc, flags=("-O0",))


@pytest.mark.parametrize("flag", ["-ffast-math", "-ffinite-math-only"])
def test_the_source_refuses_fast_math_a_caller_may_use_it(flag, tmp_path):
    """The source refuses the flag; a program that includes the header may be built with it (the header refused it
    too, and with it every program built so: firmware built with -Ofast could not call a model at all)."""
    source = emit(random_model(1), "c")
    (tmp_path / "m.c").write_text(source, encoding="utf-8")
    (tmp_path / "m.h").write_text(header(source), encoding="utf-8")
    (tmp_path / "user.c").write_text('#include "m.h"\nint main(void) { return 0; }\n', encoding="utf-8")
    for cc in ("gcc", "clang"):
        done = subprocess.run([cc, "-std=c99", "-O2", flag, "-c", "m.c"], cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode != 0 and "-ffast-math" in done.stderr, (cc, done.stderr)
        assert subprocess.run([cc, "-std=c99", "-O2", flag, "-c", "user.c"], cwd=tmp_path).returncode == 0


FAST_MATH_CALLER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "m.h"
int main(void) {  /* rows of hex floats on standard input, a prediction each out, as hex */
    double row[MODEL_N_FEATURES];
    char field[64];
    for (;;) {
        for (int f = 0; f < MODEL_N_FEATURES; f++) {
            if (scanf("%63s", field) != 1) return 0;
            row[f] = strtod(field, NULL);
        }
        printf("%a\n", model_predict(row));
    }
}
"""


@pytest.mark.slow
def test_a_caller_built_with_fast_math_gets_the_models_answers(tmp_path):
    """A model compiled as it asks, called from a program built with -ffast-math, linked with link-time
    optimisation (which inlines across files), answers as the model does: gcc and clang keep each file's
    flags. The model is one the flag changes (24 trees summed, reassociated: checked on a copy without its
    #error), so the test would see a leak."""
    from sklearn.ensemble import RandomForestRegressor
    from treegen.importers.sklearn import from_sklearn
    rng = np.random.default_rng(3)
    X = rng.normal(size=(2000, 4))
    model = from_sklearn(RandomForestRegressor(24, max_depth=6, random_state=0).fit(X, X[:, 0] * 3 + np.sin(X[:, 1])))
    source = emit(model, "c")
    check = re.search(r"#if defined\(__FAST_MATH__\).*?#endif\n", source, re.DOTALL)
    (tmp_path / "m.c").write_text(source, encoding="utf-8")
    (tmp_path / "unchecked.c").write_text(source[:check.start()] + source[check.end():], encoding="utf-8")
    (tmp_path / "m.h").write_text(header(source), encoding="utf-8")
    (tmp_path / "user.c").write_text(FAST_MATH_CALLER, encoding="utf-8")
    rows = rng.normal(scale=3.0, size=(5000, 4))
    rows[rng.random(rows.shape) < 0.03] = np.nan
    text = "".join(" ".join(v.hex() if v == v else "nan" for v in row) + "\n" for row in rows.tolist())
    want = [model.predict(dict(zip(("x0", "x1", "x2", "x3"), row))) for row in rows.tolist()[:300]]

    def answers(cc: str, model_flags: list[str], user_flags: list[str], source: str = "m.c") -> list[float]:
        build = [[cc, "-std=c99", "-O2", *model_flags, "-c", source, "-o", "m.o"],
                 [cc, "-std=c99", "-O2", *user_flags, "-c", "user.c", "-o", "user.o"],
                 [cc, "-O2", *user_flags, "user.o", "m.o", "-lm", "-o", "program"]]
        for command in build:
            subprocess.run(command, cwd=tmp_path, check=True, capture_output=True)
        done = subprocess.run(["./program"], cwd=tmp_path, input=text, capture_output=True, text=True, check=True)
        return [float.fromhex(line) for line in done.stdout.split()]

    for cc in ("gcc", "clang"):
        plain = answers(cc, [], [])
        assert plain[:300] == want
        assert answers(cc, ["-ffast-math"], [], "unchecked.c") != plain  # the flag in the model's file changes it
        assert answers(cc, ["-flto"], ["-flto", "-ffast-math"]) == plain, cc


# The parts of -funsafe-math-optimizations, each of which changed answers (audit: an XGBoost model's labels, 9 of
# 3,000, under -fassociative-math -fno-signed-zeros -fno-trapping-math; -freciprocal-math its probabilities; clang's
# -fno-signed-zeros a sum of +0.0 and -0.0 into -0.0), with the macro gcc defines for each. Clang 14 defines none.
UNSAFE_MATH = {"-funsafe-math-optimizations": "__ASSOCIATIVE_MATH__", "-freciprocal-math": "__RECIPROCAL_MATH__",
               "-fassociative-math -fno-signed-zeros -fno-trapping-math": "__ASSOCIATIVE_MATH__",
               "-fno-signed-zeros": "__NO_SIGNED_ZEROS__"}


@pytest.mark.parametrize("flags", list(UNSAFE_MATH))
def test_the_source_refuses_unsafe_math_where_the_compiler_says_so(flags, tmp_path):
    """The source refuses each flag wherever the compiler leaves its macro (gcc always: checked); a program that
    includes the header may be built with it."""
    source = emit(random_model(1), "c")
    (tmp_path / "m.c").write_text(source, encoding="utf-8")
    (tmp_path / "m.h").write_text(header(source), encoding="utf-8")
    (tmp_path / "user.c").write_text('#include "m.h"\nint main(void) { return 0; }\n', encoding="utf-8")
    marked = []
    for cc in ("gcc", "clang"):
        macros = subprocess.run([cc, *flags.split(), "-dM", "-E", "-"], input="", capture_output=True, text=True,
                                check=True).stdout
        if f"#define {UNSAFE_MATH[flags]} " not in macros:
            continue
        marked.append(cc)
        done = subprocess.run([cc, "-std=c99", "-O2", *flags.split(), "-c", "m.c"], cwd=tmp_path,
                              capture_output=True, text=True)
        assert done.returncode != 0 and "-funsafe-math-optimizations" in done.stderr, (cc, done.stderr)
        assert subprocess.run([cc, "-std=c99", "-O2", *flags.split(), "-c", "user.c"], cwd=tmp_path).returncode == 0
    assert "gcc" in marked


def test_the_source_takes_the_parts_of_fast_math_that_change_no_answer(tmp_path):
    """-fno-trapping-math and -fno-math-errno change no answer: the source compiles with each (checked once, not
    again with each flag of test_the_source_refuses_unsafe_math_where_the_compiler_says_so, the same compile)."""
    (tmp_path / "m.c").write_text(emit(random_model(1), "c"), encoding="utf-8")
    for flag in ("-fno-trapping-math", "-fno-math-errno"):
        assert subprocess.run(["gcc", "-std=c99", "-O2", flag, "-c", "m.c"], cwd=tmp_path).returncode == 0


def test_gcc_keeps_associative_math_alone_off():
    """gcc takes -fassociative-math alone back (without -fno-signed-zeros -fno-trapping-math; it warns, and leaves
    no macro), but the runtime's #pragma GCC optimize turned it on again for what follows: answers changed (an
    XGBoost model's probabilities, every row of 3,000). The pragma keeps it off."""
    models = [import_file(str(ROOT / "examples" / "boosting" / name)) for name in ("xgboost.json", "lightgbm.txt")]
    models += [boosted(3, "softmax", "float32"), boosted(4, "sigmoid", "float64"), random_model(5, n_trees=7)]
    assert_api_exact([(m, rows_for(m, 300)) for m in models], flags=("-O2", "-fassociative-math", "-Wno-error"))  # (gcc warns)


def nan_models() -> list:
    """Models whose every test meets missing values: split kinds and missing routes, boosting with float32
    and softmax links, categories (codes and masks), linear leaves, integer codes, NaN leaf values."""
    return varied_models()[:6] + warning_models() + [boosted(3, "softmax", "float32"), boosted(4, "sigmoid", "float32")]


# A compiler told that there is no NaN, and silent about it: clang's -fno-honor-nans leaves __FINITE_MATH_ONLY__
# at 0; -ffinite-math-only with the macro taken back is gcc's nearest (gcc has no -fno-honor-nans).
NO_NANS = {"clang": [("-O2", "-fno-honor-nans"), ("-O2", "-ffinite-math-only", "-U__FINITE_MATH_ONLY__")],
           "gcc": [("-O2", "-ffinite-math-only", "-U__FINITE_MATH_ONLY__")]}


@pytest.mark.slow
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_missing_values_are_exact_where_the_compiler_assumes_no_nan(cc):
    """Every missing value is tested by its bits, never by comparing a NaN, whose outcome such a compiler
    chooses (it also folds isnan to 0): the answers stay the model's, bit for bit, on rows with NaNs."""
    assert_api_exact([(m, rows_for(m, 80)) for m in nan_models()], cc=cc, flag_sets=NO_NANS[cc])


def widened(model, width: int):
    """The model with its features spread over ``width``, the k-th at ``k * (width // n) + 1``, the others numbers
    no test reads: a wide model whose trees test few features."""
    step = width // len(model.features)
    features = [Feature(f"pad{k}", NUMERIC) for k in range(width)]
    for k, feature in enumerate(model.features):
        features[k * step + 1] = feature
    at = lambda k: k * step + 1
    moved = lambda node: replace(
        node, split=node.split and replace(node.split, feature=at(node.split.feature)),
        linear=node.linear and replace(node.linear, terms=tuple((at(f), c) for f, c in node.linear.terms)))
    trees = [replace(tree, nodes=[moved(node) for node in tree.listed().nodes]) for tree in model.trees]
    return replace(model, features=tuple(features), trees=trees)


def one_sided_model():
    """Three features: a's missing values always go where its numbers above the thresholds go, b's where those
    at or below go, c's both ways."""
    le = lambda feature, t, missing: Split(feature, Op.LE, threshold=t, missing=MissingRoute.to_child(missing))
    nodes = [Node((0.0,), split=le(0, 0.5, 1), children=(1, 2)), Node((0.0,), split=le(1, -0.25, 0), children=(3, 4)),
             Node((0.0,), split=le(2, 1.5, 0), children=(5, 6)), Node((0.0,), split=le(0, -1.0, 1), children=(7, 8)),
             Node((1.0,), n=1.0), Node((0.0,), split=le(2, 0.0, 1), children=(9, 10)), Node((2.0,), n=1.0),
             Node((3.0,), n=1.0), Node((4.0,), split=le(1, -2.0, 0), children=(11, 12)), Node((5.0,), n=1.0),
             Node((6.0,), n=1.0), Node((7.0,), n=1.0), Node((8.0,), n=1.0)]
    features = tuple(Feature(name, NUMERIC) for name in "abc")
    return Model(features, Target("y", REGRESSION), [Tree(nodes)])


# No infinity either, and no macro says so: clang's -fno-honor-infinities leaves __FINITE_MATH_ONLY__ at 0.
HOSTILE_FLAGS = {"clang": NO_NANS["clang"] + [("-O2", "-fno-honor-infinities")], "gcc": NO_NANS["gcc"]}


@pytest.mark.slow
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_a_wide_model_reads_only_the_copies_its_tests_read(cc):
    """A row is read into the copies the trees test, not two of every feature: 1,000 features of which a few are
    read; a feature whose missing values go one way relative to its thresholds once, others twice. Exact under
    the flags that assume no NaN or no infinity, with infinities and missing values in the rows."""
    models_rows = wide_models_rows()
    one_sided = models_rows[0][0]
    source = emit(one_sided, "c")
    assert re.search(r"#define N_READ 4\b", source) and "#define N_HIGH 2\n" in source
    assert Counter(one_sided.features[f].name for f in read_features(source)) == {"a": 1, "b": 1, "c": 2}
    assert max(int(k) for k in re.findall(r"\bx\[(\d+)\]", source)) == 3
    for model, _ in models_rows[1:]:
        read = read_features(emit(model, "c"))
        assert set(read) == set(model.used_features()) and len(read) <= 2 * len(model.used_features())
    assert_api_exact(models_rows, cc=cc, flag_sets=HOSTILE_FLAGS[cc])


@cache
def wide_models_rows() -> list[tuple]:
    """test_a_wide_model_reads_only_the_copies_its_tests_read's models and rows, made once for both compilers:
    the rows of 1,000 features take seconds to make (probe_rows)."""
    models = [widened(one_sided_model(), 1000)]
    models += [widened(m, 1000) for m in nan_models()[:6] + [with_intervals(nan_models()[0])]]
    return [(m, rows_for(m, 40) + infinite_rows(m, rows_for(m, 20, 1))) for m in models]


def with_intervals(model):
    """The model with the numbers in [-1, 0.5] of each numeric feature missing (as_read's read_intervals)."""
    return replace(model, features=tuple(replace(f, missing_interval=(-1.0, 0.5)) if f.is_numeric else f
                                         for f in model.features))


def infinite_rows(model, rows) -> list[dict]:
    """The rows with about half the numbers each read, at random, +infinity or -infinity."""
    rng, numeric = random.Random(4), [model.features[f].name for f in model.used_features()
                                      if model.features[f].is_numeric]
    return [{**row, **{name: rng.choice([math.inf, -math.inf]) for name in numeric if rng.random() < 0.5}}
            for row in rows]


def test_a_program_under_no_honor_nans_reads_missing_fields_as_the_model_does():
    model = import_file(str(ROOT / "examples" / "boosting" / "xgboost.json"))
    rows = rows_for(model, 100)
    assert any(value is None or value != value for row in rows for value in row.values())
    assert_programs_exact([(model, rows)], leaf=False, flags=("-std=c99", "-O2", "-fno-honor-nans"),
                          cc="clang")


def test_single_precision_constants_are_refused(tmp_path):
    """gcc's -fsingle-precision-constant makes every constant a float (a threshold 0.1 is 0.1f): refused by
    name; a cast or a hex constant would not escape it."""
    (tmp_path / "m.c").write_text(emit(random_model(1), "c"), encoding="utf-8")
    done = subprocess.run(["gcc", "-std=c99", "-O2", "-fsingle-precision-constant", "-c", "m.c"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert done.returncode != 0 and "treegen_refuses_fsingle_precision_constant" in done.stderr, done.stderr


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_the_header_is_c89(cc, tmp_path):
    """A C89 program includes the header: block comments only, whatever the names (one would end a comment)."""
    for k, model in enumerate([random_model(1), random_model(2, names=["*/ x /*", "a/*b", "ok", "a b", "A_B"]),
                               hostile_models()[0]]):
        (tmp_path / f"m{k}.h").write_text(header(emit(model, "c", prefix=f"m{k}")), encoding="utf-8")
        (tmp_path / f"user{k}.c").write_text(f'#include "m{k}.h"\nint main(void) {{ return M{k}_N_FEATURES; }}\n',
                                             encoding="utf-8")
        done = subprocess.run([cc, "-std=c89", "-pedantic-errors", "-Wall", "-Wextra", "-Werror", "-c", f"user{k}.c"],
                              cwd=tmp_path, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


# WARNINGS and more: this -O2 compile is test_no_warning_under_gcc_and_clang_at_O0_and_O2's too
STRICTER = WARNINGS + ("-Wconversion", "-Wdouble-promotion", "-Wshadow")


@pytest.mark.slow
@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_no_warning_under_conversion_and_double_promotion_warnings(cc, tmp_path):
    """-Wconversion (-Wsign-conversion with it), -Wdouble-promotion, -Wshadow, besides -std=c99 -Wall -Wextra
    -pedantic: the API and the program, with leaf ids and without, at -O2; an infinite threshold is HUGE_VAL,
    a double (math.h's INFINITY is a float). clang's warnings are its front end's, the same at every -O level:
    it only reads the sources (-fsyntax-only: 0.8 s of CPU where compiling them at -O2 took 14 s); gcc warns of
    some things only as its optimizer sees them (-Wmaybe-uninitialized, -Warray-bounds): it compiles at -O2."""
    models = warning_models() + [boosted(3, "softmax", "float32")]  # extreme_model: thresholds at +-inf
    for k, model in enumerate(models):
        for leaf in (False, True):
            (tmp_path / f"m{k}_{int(leaf)}.c").write_text(emit(model, "c", leaf=leaf, prefix=f"m{k}"), encoding="utf-8")
    files = sorted(p.name for p in tmp_path.glob("m*.c"))
    how = ["-fsyntax-only"] if cc == "clang" else ["-O2", "-c"]
    done = subprocess.run([cc, *STRICTER, *how, "-DTREEGEN_MAIN", *files], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr[-3000:]


def test_the_source_refuses_x87_excess_precision(tmp_path):
    """FLT_EVAL_METHOD 2 (x87 arithmetic, 32-bit x86 without SSE) is refused; gcc's -fexcess-precision
    =standard with -mfpmath=387 sets it on x86-64 too."""
    (tmp_path / "m.c").write_text(emit(random_model(1), "c"), encoding="utf-8")
    done = subprocess.run(["gcc", "-std=c99", "-O2", "-mfpmath=387", "-c", "m.c"], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode != 0 and "FLT_EVAL_METHOD" in done.stderr, done.stderr


def test_two_models_link_into_one_program_and_export_only_prefixed_names(tmp_path):
    """Every external name a model's object file defines starts with its prefix, so models link side by
    side (assert_api_exact links a dozen); the header's macros are prefixed too."""
    models = {"first": random_model(1, n_trees=3), "second_model": boosted(2, "softmax", "float32")}
    for prefix, model in models.items():
        source = emit(model, "c", leaf=True, prefix=prefix)
        (tmp_path / f"{prefix}.c").write_text(source, encoding="utf-8")
        subprocess.run(["gcc", *WARNINGS, "-O2", "-c", f"{prefix}.c"], cwd=tmp_path, check=True)
        symbols = subprocess.run(["nm", "-g", "--defined-only", f"{prefix}.o"], cwd=tmp_path, capture_output=True,
                                 text=True, check=True).stdout.split()[2::3]
        assert symbols and all(s.startswith(prefix + "_") for s in symbols), symbols
        defined = re.findall(r"^#define (\w+)", header(source), re.MULTILINE)
        assert all(name.startswith(prefix.upper() + "_") for name in defined), defined
    assert_api_exact([(m, rows_for(m, 50)) for m in models.values()])


def test_prefixes_that_differ_in_case_only_link_into_one_program(tmp_path):
    """--prefix iris and --prefix Iris wrote the same include guard and macros (IRIS_H_INCLUDED, IRIS_N_CLASSES):
    one program could not hold both. A prefix without upper-case letters keeps its upper-case macros."""
    models = {"iris": random_model(1, classes=("a", "b")), "Iris": random_model(2, n_numeric=4),
              "IRIS": random_model(3, n_numeric=5, classes=("a", "b", "c", "d")), "iRIS": random_model(4, n_trees=2)}
    sources = [emit(model, "c", prefix=prefix) for prefix, model in models.items()]
    macros = ["IRIS", "Iris", "iris", "iRIS"]
    assert [macro_prefix(prefix) for prefix in models] == macros
    assert [re.search(r"^#ifndef (\w+)", source, re.MULTILINE)[1] for source in sources] == [
        f"{macro}_H_INCLUDED" for macro in macros]
    includes = "".join(f'#include "m{k}.h"\n' for k in range(len(models)))
    counts = " ".join(f"{macro}_N_FEATURES, {macro}_N_CLASSES," for macro in macros)
    main_text = f"#include <stdio.h>\n{includes}int main(void) {{\n    int counts[] = {{{counts}}};\n" \
                "    for (unsigned k = 0; k < sizeof counts / sizeof counts[0]; k++) printf(\"%d \", counts[k]);\n" \
                "    return 0;\n}\n"
    printed = subprocess.run([build(str(tmp_path), sources, main_text)], capture_output=True, text=True, check=True)
    assert printed.stdout.split() == [str(n) for m in models.values()
                                      for n in (len(m.features), len(m.target.classes))]


def test_the_c_api_in_detail(tmp_path):
    """The category lookup (exact bytes; -1 for a text the feature lacks, a numeric feature, a feature
    out of range, NULL), names and labels, and a regression model's value."""
    model = random_model(4, names=["x0", "x1", "x2", "c0", "c1"], max_depth=6)
    source = emit(model, "c", prefix="tree")
    (tmp_path / "tree.c").write_text(source, encoding="utf-8")
    (tmp_path / "tree.h").write_text(header(source), encoding="utf-8")
    (tmp_path / "main.c").write_text(r"""
#include <math.h>
#include <stdio.h>
#include "tree.h"
int main(void)
{
    double row[TREE_N_FEATURES] = {0.5, 2.0, NAN, 0, -1}, p[TREE_N_CLASSES];
    int k;
    row[3] = tree_category(3, "v0_1");
    printf("%d %d %d %d %d %d %d\n", tree_category(3, "v0_1"), tree_category(3, "v0_1 "), tree_category(3, ""),
           tree_category(0, "v0_1"), tree_category(-1, "v0_1"), tree_category(TREE_N_FEATURES, "v0_1"),
           tree_category(3, NULL));
    printf("%s %s %s\n", tree_features[0], tree_features[TREE_N_FEATURES - 1], tree_classes[0]);
    printf("%s", tree_classes[tree_predict(row)]);
    tree_predict_proba(row, p);
    for (k = 0; k < TREE_N_CLASSES; k++) {
        printf(" %.17g", p[k]);
    }
    printf("\n");
    return 0;
}
""", encoding="utf-8")
    subprocess.run(["gcc", *WARNINGS, "-O2", "tree.c", "main.c", "-lm", "-o", "main"], cwd=tmp_path, check=True)
    lines = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.splitlines()
    assert lines[0] == "1 -1 -1 -1 -1 -1 -1"
    assert lines[1] == "x0 c1 a"
    row = {"x0": 0.5, "x1": 2.0, "x2": None, "c0": "v0_1", "c1": "\u2603 unseen category"}
    label, *scores = lines[2].split()
    assert label == model.predict(row) and [float(s) for s in scores] == model.scores(row)


# -- categories that are integer codes (Feature.codes) ----------------------------------------------------
# The models, rows and oracle (code_category, not treegen's own readers) are tests/test_emit_java.py's.

SANITIZED = PROGRAM_FLAGS + ("-fsanitize=undefined,float-cast-overflow", "-fno-sanitize-recover=all")


def coded_text_rows(model, seed: int) -> list[dict]:
    """:func:`coded_rows` as text: the C API takes a category as its text, and so does CSV."""
    return [as_text(model, row) for row in coded_rows(model, seed)]


@pytest.mark.slow
def test_integer_codes_read_numbers_as_their_category():
    """PREFIX_category and the program read a text that is none of the categories of a feature of
    integer codes, but reads as a number, as the category code_category names: "3.0", "2.7" (truncated),
    "-0.0", "3e0", float32's rounding, 2^31, the infinities, NaN; the program compiled with UBSan's
    checks of every conversion, which no number trips."""
    models = coded_models()
    assert_api_exact([(m, coded_text_rows(m, k)) for k, m in enumerate(models)], read=as_coded)
    assert_programs_exact([(m, coded_text_rows(m, k)) for k, m in enumerate(models)], flags=SANITIZED,
                          read=as_coded)


@settings(max_examples=2, deadline=None)
@given(models=st.lists(boosted_models(), min_size=8, max_size=8), seed=st.integers(0, 1000),
       codes=st.lists(st.sampled_from([*Codes, None]), min_size=1, max_size=3))
def test_integer_codes_in_every_extension_of_the_model(models, seed, codes):
    """Boosted models with every field a boosting library's model has (unknown categories' own children
    among them), their numbers cast as they are, with integer codes: through the API, and a few as programs."""
    models = [with_codes(m, codes) for m in models]
    assert_api_exact([(m, coded_text_rows(m, seed + k)) for k, m in enumerate(models)], read=as_coded)
    assert_programs_exact([(m, coded_text_rows(m, seed)) for m in models[:3]], flags=PROGRAM_FLAGS_O0,
                          read=as_coded)


def test_category_of_a_number_in_detail(tmp_path):
    """PREFIX_category with integer codes: a category's text first, then a number's code; a feature
    without codes, a numeric one and NULL as before."""
    model = with_codes(random_model(4, names=["x0", "x1", "x2", "c0", "c1"]), [Codes.TRUNCATED, None], "float32")
    source = emit(model, "c", prefix="tree")
    (tmp_path / "tree.c").write_text(source, encoding="utf-8")
    (tmp_path / "tree.h").write_text(header(source), encoding="utf-8")
    texts = ["1", "1.0", "1.9", "0.99999999", "-0.5", "-1", "1e300", "nan", "one", "", "1 "]
    calls = ", ".join(f'tree_category(3, "{t}"), tree_category(4, "{t}")' for t in texts)
    (tmp_path / "main.c").write_text(f"""
#include <stdio.h>
#include "tree.h"
int main(void)
{{
    int codes[] = {{{calls}, tree_category(0, "1"), tree_category(3, NULL)}};
    size_t k;
    for (k = 0; k < sizeof codes / sizeof codes[0]; k++) {{
        printf("%d ", codes[k]);
    }}
    return 0;
}}
""", encoding="utf-8")
    subprocess.run(["gcc", *WARNINGS, "-O2", "tree.c", "main.c", "-lm", "-o", "main"], cwd=tmp_path, check=True)
    printed = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split()
    # c0 truncates (0.99999999 is 1.0 in float32); c1 reads only its categories' texts
    assert printed == ["1", "1", "1", "-1", "1", "-1", "1", "-1", "0", "-1"] + ["-1"] * 14
    assert "coded_category" not in emit(with_codes(model, [None]), "c")  # without codes, nothing of it


# -- a host's locale: PREFIX_category reads a number's text as the "C" locale does ---------------------------
# strtod reads '.' as LC_NUMERIC's decimal point: a host that calls setlocale(LC_ALL, "de_DE.UTF-8") (a German
# UI) read "1.5" as 1, which names category "1" of integral codes. The locale is made by localedef from Debian's
# `locales` (scripts/test.sh installs it; 1.2 s) into the module's own folder, read through LOCPATH.
LOCALE_HOST = r"""
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
%s
/* The locale as a host sets it; refused (status 3) where it is missing, so that no test passes without it. */
static void german(void)
{
    if (setlocale(LC_ALL, "de_DE.UTF-8") == NULL || strcmp(localeconv()->decimal_point, ",") != 0) {
        fputs("no de_DE.UTF-8 locale\n", stderr);
        exit(3);
    }
}
"""
LOCALE_TEXTS = ["1.5", "2.0", "1e0", "10e-1", ".5e1", "1.", "0.50", "2.50", "-0.0", "+1.0", "3.999", "0.1e1",
                "100e-2", "12.0", "1.2e1", "5000000001.0", "5.000000001e9", "2147483647.0", "INF", "-Infinity",
                "nan", "1e-400", "1" + "0" * 30 + "e-30", "0." + "0" * 400 + "1e401", "1", "0.5", "1,5"]


@pytest.fixture(scope="module")
def german_locale(tmp_path_factory) -> dict:
    """The environment of a program that finds de_DE.UTF-8 (',' its decimal point) in LOCPATH."""
    folder = tmp_path_factory.mktemp("locales")
    subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", str(folder / "de_DE.UTF-8")], check=True,
                   capture_output=True)
    return {**os.environ, "LOCPATH": str(folder)}


def locale_model() -> Model:
    """Features of integral, truncated and nonnegative codes, and integral codes where some categories no code
    names (fractions: "0.50" is "0.5" by its double)."""
    digits = tuple(str(k) for k in range(13))
    features = (Feature("i", NOMINAL, digits, codes=Codes.INTEGRAL), Feature("t", NOMINAL, digits, codes=Codes.TRUNCATED),
                Feature("n", NOMINAL, digits, codes=Codes.NONNEGATIVE),
                Feature("f", NOMINAL, FRACTION_NAMES, codes=Codes.INTEGRAL))
    split = Split(0, Op.IN, values=("1",), missing=MissingRoute.stop())
    nodes = [Node((0.0,), split=split, children=(1, 2)), Node((1.0,), n=1.0), Node((2.0,), n=1.0)]
    return Model(features, Target("y", REGRESSION), [Tree(nodes)])


def locale_program(tmp_path, cc: str, main: str, include: str = '#include "tree.h"') -> Path:
    """The model's C (locale_model) and a host's main, built with cc."""
    source = emit(locale_model(), "c", prefix="tree")
    (tmp_path / "tree.c").write_text(source, encoding="utf-8")
    (tmp_path / "tree.h").write_text(header(source), encoding="utf-8")
    (tmp_path / "main.c").write_text(LOCALE_HOST % include + main, encoding="utf-8")
    files = ["main.c"] if include.endswith('tree.c"') else ["tree.c", "main.c"]
    subprocess.run([cc, *WARNINGS, "-O2", *files, "-lm", "-o", "main"], cwd=tmp_path, check=True)
    return tmp_path / "main"


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_integer_codes_read_numbers_under_a_host_locale(cc, tmp_path, german_locale):
    """A host that sets de_DE.UTF-8 (',' the decimal point) gets the model's categories for numbers' texts:
    "1.5" names none of integral codes (it read as 1), ".5e1" is 5 (it read as 0), "0.50" is "0.5"."""
    model = locale_model()
    texts = ", ".join(json.dumps(t) for t in LOCALE_TEXTS)
    program = locale_program(tmp_path, cc, f"""
int main(void)
{{
    static const char *const texts[] = {{{texts}}};
    size_t k;
    int f;
    german();
    for (f = 0; f < TREE_N_FEATURES; f++) {{
        for (k = 0; k < sizeof texts / sizeof texts[0]; k++) {{
            printf("%d ", tree_category(f, texts[k]));
        }}
    }}
    return 0;
}}
""")
    printed = subprocess.run([program], env=german_locale, capture_output=True, text=True, check=True).stdout.split()
    expected = [f.categories.index(name) if name in f.categories else -1
                for f in model.features for name in (code_read(model, f, text) for text in LOCALE_TEXTS)]
    assert printed == [str(code) for code in expected]
    assert expected[:5] == [-1, 2, 1, 1, 5]  # "1.5" names none of integral codes


def spelled(rng: random.Random, digits: str, exponent: int) -> str:
    """int(digits) * 10^exponent in treegen's number grammar, spelled at random: a sign, leading and trailing
    zeros, the point anywhere (or none), the exponent's letter, sign and leading zeros (or none where it is 0)."""
    trailing = rng.choice([0, 0, 1, 2, 20])
    full = "0" * rng.choice([0, 0, 1, 3, 30]) + digits + "0" * trailing
    point = rng.choice([None, 0, len(full), rng.randint(0, len(full))])
    mantissa = full if point is None else full[:point] + "." + full[point:]
    shift = exponent - trailing + (0 if point is None else len(full) - point)
    sign = rng.choice(["", "", "+", "-"])
    if shift == 0 and rng.random() < 0.5:
        return sign + mantissa
    return (sign + mantissa + rng.choice("eE") + ("-" if shift < 0 else rng.choice(["", "+"]))
            + "0" * rng.choice([0, 0, 1, 5]) + str(abs(shift)))


def random_double(rng: random.Random) -> float:
    """A finite double above 0 with bits at random, subnormal a time in eight."""
    field = 0 if rng.random() < 0.125 else rng.randint(1, 2046)
    return struct.unpack("<d", struct.pack("<Q", field << 52 | rng.getrandbits(52)))[0]


def halfway(rng: random.Random) -> tuple[str, int]:
    """The digits and exponent of the point halfway between a random double and the next one up (from the
    largest: 2^1024's half-way, from which a number is infinite)."""
    low = random_double(rng)
    high = math.nextafter(low, math.inf)
    with decimal.localcontext(decimal.Context(prec=2000)):
        middle = (Decimal(low) + (Decimal(2) ** 1024 if math.isinf(high) else Decimal(high))) / 2
    _, digits, exponent = middle.as_tuple()
    return "".join(map(str, digits)), exponent


def number_texts(seed: int, count: int) -> list[str]:
    """Texts of treegen's number grammar: halfway points between doubles (767 significant digits at most),
    and just above and below them (some past 768 digits), 17 to 20 digits near random doubles, short ones at
    random, extreme exponents and lengths, the words."""
    rng = random.Random(seed)
    texts = ["inf", "+INF", "-Infinity", "iNfInItY", "nan", "-NaN", "+nan", "0", "-0", "-.0", "0.", "-0e5",
             "0e999999999999999999999", "1e99999999999999999999999", "1e-99999999999999999999", "1e400", "1e-400",
             "0.0000001e9999999999999999999999", "123e-99999999999999999999999999", "1e+0000000000000000000000000000001",
             "1e308", "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308",
             "2.4703282292062327e-324", "2.4703282292062328e-324", "4.9406564584124654e-324", "1e-323",
             "1" + "0" * 100000 + "e-100000", "0." + "0" * 100000 + "1e100001", "9" * 2000, "1." + "0" * 2000 + "1",
             "0" * 5000 + "1.5", "." + "0" * 100000 + "5e100003", "1" + "0" * 800 + "1" + "e-801",
             "9007199254740993", "9007199254740993." + "0" * 1000, "9007199254740993." + "0" * 1000 + "1",
             "9007199254740992." + "9" * 1000, "0.1", "1.5", ".5e1", "10e-1", "2147483647.9999999"]
    for _ in range(count):
        digits, exponent = halfway(rng)
        beyond = rng.choice([0, 5, 800])
        texts += [spelled(rng, digits, exponent),
                  spelled(rng, digits + "0" * beyond + "1", exponent - beyond - 1),
                  spelled(rng, str(int(digits) - 1) + "9" * beyond, exponent - beyond)]
        near = Decimal(random_double(rng))
        _, digits, exponent = round(near, rng.randint(17, 20) - near.adjusted() - 1).as_tuple()
        texts.append(spelled(rng, "".join(map(str, digits)), exponent))
        texts.append(spelled(rng, str(rng.randint(1, 10 ** rng.randint(1, 40))), rng.randint(-360, 320)))
    assert all(NUMBER.fullmatch(text) for text in texts)
    return texts


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_number_text_read_exactly_under_a_host_locale(cc, tmp_path, german_locale):
    """The reading of a number's text (read_number, compiled into a host that sets de_DE.UTF-8) is Python's
    float() of it, bit for bit, on halfway cases, 17+ digits, leading zeros, extreme exponents and lengths."""
    texts = number_texts(7, 1000)
    program = locale_program(tmp_path, cc, r"""
static char line[1 << 20];
int main(void)
{
    german();
    while (fgets(line, sizeof line, stdin) != NULL) {
        size_t length = strcspn(line, "\n");
        double v = read_number(line, length);
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        printf(!reads_as_number(line, length) ? "none\n" : is_nan(v) ? "nan\n" : "%016llx\n", (unsigned long long) bits);
    }
    return 0;
}
""", include='#include "tree.c"')
    printed = subprocess.run([program], input="\n".join(texts) + "\n", env=german_locale, capture_output=True,
                             text=True, check=True).stdout.splitlines()
    expected = ["nan" if math.isnan(float(t)) else struct.pack(">d", float(t)).hex() for t in texts]
    assert len(printed) == len(texts)
    wrong = [(t[:80], p, e) for t, p, e in zip(texts, printed, expected) if p != e]
    assert not wrong, f"{len(wrong)} of {len(texts)} texts read otherwise, the first: {wrong[:3]}"


# -- names --------------------------------------------------------------------------------------------

C_HOSTILE = ["??=", "??/", "a??'b", "*/ x /*", "// x", "\\", "line\\", "\x00nul", "x\x7f", "#define x 1", "%d",
             "\\u0041", "é", "\U0001f332"]


def test_hostile_names_and_labels():
    """Quotes, backslashes (also at a line's end), trigraphs, comment markers, NUL, non-ASCII: the
    source is ASCII, compiles, reads them back and predicts; names with NUL are whole in the program."""
    models = hostile_models()
    names = C_HOSTILE + HOSTILE_NAMES
    for start in range(0, len(C_HOSTILE), 4):
        features = (names[start:] + names)[:5]
        models.append(random_model(start, names=features, classes=(names[start + 1:] + names)[:3], max_depth=6))
    for model in models:
        assert emit(model, "c", leaf=True).isascii()
    assert_api_exact([(m, rows_for(m, 80)) for m in models])
    assert_programs_exact([(m, rows_for(m, 40)) for m in models[-4:]], flags=PROGRAM_FLAGS_O0)


def test_each_test_names_its_feature_in_a_comment_no_name_can_end():
    for model in hostile_models():
        source = emit(model, "c")
        tests = [line for line in source.splitlines() if line.lstrip().startswith("if (x[")]
        assert tests
        read = read_features(source)
        for line in tests:
            match = re.search(r"x\[(\d+)\].*\{  // (.*)$", line)
            feature = model.features[read[int(match.group(1))]]
            literals = [c_string(text) for text in re.findall(r'"(?:\\.|[^"\\])*"', match.group(2))]
            assert literals[0] == feature.name and set(literals[1:]) <= set(feature.categories), line


def read_features(source: str) -> list[int]:
    """The feature of each number the trees read of a row (as_read's places), from as_read's runs."""
    runs = re.findall(r"read_run\(row \+ (\d+), (\d+), (?:read \+ (\d+)|NULL), (?:read \+ (\d+)|NULL)\);", source)
    places = {int(place) + i: int(feature) + i for feature, count, *copies in runs for place in copies if place
              for i in range(int(count))}
    return [places[place] for place in range(len(places))]


def c_string(literal: str) -> str:
    """The text of a C string literal written by the emitter: escapes of one character or three octal
    digits, over UTF-8."""
    body, out, i = literal[1:-1], bytearray(), 0
    while i < len(body):
        if body[i] == "\\" and body[i + 1] in "01234567":
            out.append(int(body[i + 1:i + 4], 8))
            i += 4
        elif body[i] == "\\":
            out.append(ord(body[i + 1]))
            i += 2
        else:
            out.append(ord(body[i]))
            i += 1
    return out.decode("utf-8")


def test_a_string_literal_over_c99s_limit_is_refused_in_one_line():
    """C99 promises string literals of 4,095 bytes (pieces joined); gcc -pedantic warned of a longer category."""
    for text in ["L" * 4096, "\u00e9" * 2048, "\U0001F332" * 1024]:
        for model, what in [(category_stump(text), "category"), (category_stump("q", label=text), "class label")]:
            with pytest.raises(TreegenError, match=f"^the {what} .* bytes\\) is longer than the string literal C99"):
                emit(model, "c")
    at_the_limit = ["L" * 4095, "\u00e9" * 2047 + "L", "\U0001F332" * 1023 + "LLL"]
    assert len(compile_sources([emit(category_stump(t), "c") for t in at_the_limit], flags=PROGRAM_FLAGS)) == 3


def test_a_compiler_failure_shows_its_own_error():
    """verify's FAILED line shows the start of the message: the compiler's error, not a long line it quotes."""
    with pytest.raises(RuntimeError) as failure:
        compile_sources(['const char *s = "' + "L" * 9000 + '" oops;\nint main(void) { return 0; }\n'])
    assert "error: expected" in " ".join(str(failure.value).split())[:300]


@pytest.mark.parametrize("prefix", ["", "1model", "my-model", "model name", "_x"])
def test_a_prefix_that_is_no_c_identifier_is_refused_in_one_line(prefix, tmp_path):
    path = tmp_path / "m.json"
    modelio.save(random_model(1), str(path))
    with pytest.raises(TreegenError, match="--prefix"):
        emit(random_model(1), "c", prefix=prefix)
    result = CliRunner().invoke(main, ["export", str(path), "--to", "c", "--prefix", prefix])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "--prefix" in result.output


def test_export_writes_the_header_beside_the_source(tmp_path):
    path = tmp_path / "m.json"
    model = random_model(5, n_trees=2)
    modelio.save(model, str(path))
    result = CliRunner().invoke(main, ["export", str(path), "--to", "c", "--prefix", "tennis", "--leaf",
                                       "-o", str(tmp_path / "out.c")])
    assert result.exit_code == 0, result.output
    source = (tmp_path / "out.c").read_text()
    assert source == emit(model, "c", prefix="tennis", leaf=True)
    assert (tmp_path / "out.h").read_text() == header(source) and source.startswith(header(source))
    result = CliRunner().invoke(main, ["export", str(path), "--to", "c", "-o", str(tmp_path / "out.h")])
    assert result.exit_code == 2 and result.output.count("\n") == 1 and "out.c" in result.output


def test_export_names_the_prefix_after_the_output_file(tmp_path):
    """-o churn.c exports churn_predict, CHURN_N_FEATURES and the include guard CHURN_H_INCLUDED, as -o Churn.java
    names Java's class (every file was model_ before); --prefix still decides, stdout keeps model; a file name that
    is no prefix is refused in one line."""
    path = tmp_path / "m.json"
    model = random_model(5)
    modelio.save(model, str(path))
    export = lambda *args: CliRunner().invoke(main, ["export", str(path), *args])
    assert export("-o", str(tmp_path / "churn.c")).exit_code == 0
    source = (tmp_path / "churn.c").read_text()
    assert source == emit(model, "c", prefix="churn") and "\n#ifndef CHURN_H_INCLUDED\n" in source
    assert (tmp_path / "churn.h").read_text() == header(source)
    assert export("--to", "c", "--prefix", "tennis", "-o", str(tmp_path / "churn.c")).exit_code == 0
    assert (tmp_path / "churn.c").read_text() == emit(model, "c", prefix="tennis")
    assert export("--to", "c").output == emit(model, "c")
    for name in ["my-model.c", "2churn.c", "_churn.c", "mod\u00e8le.c"]:
        result = export("-o", str(tmp_path / name))
        assert result.exit_code == 2 and result.output.count("\n") == 1 and "--prefix" in result.output, result.output
        assert not (tmp_path / name).exists()


def row_literals(model, row: dict, prefix: str) -> list[str]:
    """A row as C expressions: numbers as they are, NAN where missing, a category as PREFIX_category finds its text."""
    values = []
    for index, feature in enumerate(model.features):
        value = row.get(feature.name)
        if value is None or (isinstance(value, float) and math.isnan(value)):
            values.append("NAN")
        elif feature.is_numeric:
            values.append(literal(float(value)))
        else:
            values.append(f"{prefix}_category({index}, {string(value)})")
    return values


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_two_models_exported_to_two_files_link_into_one_program(cc, tmp_path):
    """A new user's churn.c and other.c, exported without --prefix: both were model_predict under MODEL_H_INCLUDED
    ("multiple definition of `model_features'"). Named after their files, they link, and each answers as its model."""
    models = {"churn": random_model(1, n_trees=2), "other": random_model(2, classes=("x", "y"), max_depth=7)}
    calls = []
    for name, model in models.items():
        modelio.save(model, str(tmp_path / f"{name}.json"))
        result = CliRunner().invoke(main, ["export", str(tmp_path / f"{name}.json"), "-o", str(tmp_path / f"{name}.c")])
        assert result.exit_code == 0, result.output
        for row in rows_for(model, 30):
            calls.append(f"    {{ double row[] = {{{', '.join(row_literals(model, row, name))}}}; "
                         f"printf(\"%s\\n\", {name}_classes[{name}_predict(row)]); }}")
    main_text = ("#include <math.h>\n#include <stdio.h>\n#include \"churn.h\"\n#include \"other.h\"\n"
                 "int main(void)\n{\n" + "\n".join(calls) + "\n    return 0;\n}\n")
    (tmp_path / "main.c").write_text(main_text, encoding="utf-8")
    subprocess.run([cc, *WARNINGS, "-O2", "main.c", "churn.c", "other.c", "-lm", "-o", "both"], cwd=tmp_path,
                   check=True)
    printed = subprocess.run(["./both"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.splitlines()
    assert printed == [model.predict(row) for model in models.values() for row in rows_for(model, 30)]


def header_constants(text: str) -> dict[str, int]:
    """The header's index constants of the features: name -> index."""
    return {name: int(index) for name, index in re.findall(r"^    (\w+) = (\d+),?  /\* ", header(text), re.MULTILINE)}


def test_the_index_constants_fill_a_row(tmp_path):
    """The header lists the features in row order, each with its index constant: a program fills its row by name
    (IRIS_PETAL_LENGTH_CM), not by a strcmp over iris_features, and predicts as the model does."""
    names = ["age", "income", "petal length (cm)", "city", "plan"]
    model = random_model(3, names=names, max_depth=7)
    modelio.save(model, str(tmp_path / "iris.json"))
    result = CliRunner().invoke(main, ["export", str(tmp_path / "iris.json"), "-o", str(tmp_path / "iris.c")])
    assert result.exit_code == 0, result.output
    constants = ["IRIS_AGE", "IRIS_INCOME", "IRIS_PETAL_LENGTH_CM", "IRIS_CITY", "IRIS_PLAN"]
    assert header_constants((tmp_path / "iris.c").read_text()) == {c: i for i, c in enumerate(constants)}
    rows = rows_for(model, 40)
    calls = []
    for row in rows:
        values = dict(zip(constants, row_literals(model, row, "iris")))
        fills = [f"row[{c}] = {values[c].replace(f'iris_category({i},', f'iris_category({c},')};"
                 for i, c in reversed(list(enumerate(constants)))]  # in any order: by name
        calls.append(f"    {' '.join(fills)} printf(\"%s\\n\", iris_classes[iris_predict(row)]);")
    main_text = ("#include <math.h>\n#include <stdio.h>\n#include \"iris.h\"\nint main(void)\n{\n"
                 "    double row[IRIS_N_FEATURES];\n" + "\n".join(calls) + "\n    return 0;\n}\n")
    (tmp_path / "main.c").write_text(main_text, encoding="utf-8")
    subprocess.run(["gcc", *WARNINGS, "-O2", "main.c", "iris.c", "-lm", "-o", "iris"], cwd=tmp_path, check=True)
    printed = subprocess.run(["./iris"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.splitlines()
    assert printed == [model.predict(row) for row in rows]


# Names whose constants would clash: with each other (a b, A_B; x and HOSTILE_NAMES' $x), with the header's
# macros (N features), the generated code's (width with prefix sum: SUM_WIDTH) or C's headers' (max with prefix
# dbl: DBL_MAX); one too long for C99's promise.
CLASHING = ["a b", "A_B", "N features", "width", "max", "x", "ok" * 40]


@pytest.mark.parametrize("cc", ["gcc", "clang", "g++", "clang++"])
def test_hostile_names_make_constants_that_compile_or_none(cc, tmp_path):
    """Every feature has its line in the header's list, in row order; hostile names (quotes, comment markers,
    trigraphs, backslashes, NUL, non-ASCII, C keywords) and names whose constants would clash make none, with a
    comment: the header compiles after every standard header a program may include before it, as C and as C++,
    and each constant is its feature's index."""
    names = C_HOSTILE + HOSTILE_NAMES + CLASHING
    model = random_model(7, n_numeric=len(names) - 2, names=names)
    sources = {prefix: emit(model, "c", prefix=prefix) for prefix in ("dbl", "sum", "m")}
    skipped = {"dbl": {"DBL_MAX"}, "sum": {"SUM_WIDTH"}, "m": set()}
    for prefix, source in sources.items():
        macro = macro_prefix(prefix)
        listed = re.findall(r"^    (?:(\w+) = (\d+),?  /\* |/\* (\d+) )", header(source), re.MULTILINE)
        assert [int(index or other) for _, index, other in listed] == list(range(len(names)))
        constants = header_constants(source)
        assert {f"{macro}_A_B", f"{macro}_N_FEATURES", f"{macro}_X", f"{macro}_{'OK' * 40}"}.isdisjoint(constants)
        assert skipped[prefix].isdisjoint(constants) and f"{macro}_INT" in constants and f"{macro}_IF" in constants
        assert constants[f"{macro}_IT_S"] == names.index("it's")
        assert constants[f"{macro}_SAY_HI"] == names.index('say "hi"')
        (tmp_path / f"{prefix}.c").write_text(source, encoding="utf-8")
        (tmp_path / f"{prefix}.h").write_text(header(source), encoding="utf-8")
        standard = "".join(f"#include <{h}.h>\n" for h in ("errno", "float", "limits", "math", "signal", "stdint",
                                                            "stdio", "stdlib", "string", "time"))
        prints = "".join(f'    printf("%d\\n", (int) {c});\n' for c in constants)
        (tmp_path / "main.c").write_text(f"{standard}#include \"{prefix}.h\"\nint main(void)\n{{\n{prints}"
                                         "    return 0;\n}\n", encoding="utf-8")
        language = ["-x", "c++", "-std=c++11"] if cc.endswith("++") else ["-std=c99"]
        subprocess.run([cc, *language, *WARNINGS[1:], "main.c", "-o", "main"], cwd=tmp_path, check=True)
        printed = subprocess.run(["./main"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.split()
        assert printed == [str(i) for i in constants.values()]
        if not cc.endswith("++"):
            subprocess.run([cc, *WARNINGS, "-c", f"{prefix}.c"], cwd=tmp_path, check=True)


# -- the program: the protocol every program follows ------------------------------------------------

def test_program_errors_exit_2_with_one_line():
    check_errors("c")


def test_program_options_and_columns():
    check_options("c")


def test_closed_pipe_ends_quietly():
    check_closed_pipe("c")


def test_leaf_ids_leave_out_nodes_reached_with_weight_zero():
    check_zero_weight_leaves("c")


def test_the_program_is_one_fixed_text_and_the_model_part_is_short():
    from treegen.emit.render import source
    # 239 lines: the header declares the rows API too, lists the 4 features' indices (10 lines) and says which
    # flags change answers (7); the source refuses those that leave a macro (5 lines); the prelude tests NaN by
    # its bits and refuses -fsingle-precision-constant (17); the numbers the trees read of a row (4)
    check_model_part("c", source("c", "runtime.c.txt"), 240)


def test_same_bytes_as_the_python_program():
    """On the same CSV, the C program prints what the Python program prints, byte for byte: labels,
    Python's repr of every number, quoting, errors."""
    from treegen.run.python import run as run_python
    models = [random_model(11, names=HOSTILE_NAMES[10:15], classes=["a,b", 'say "hi"', "new\nline", ""], max_depth=6),
              random_model(12, regression=True, n_trees=3), extreme_model(), boosted(3, "softmax")]
    compile_sources([emit(m, "c") for m in models])
    for model in models:
        text = to_csv(model, rows_for(model, 120))
        for args in [[]] + [["--proba"]] * model.target.is_classification:
            assert run(emit(model, "c"), text, args) == run_python(emit(model, "python"), text, args)


def test_numbers_print_as_pythons_repr():
    """Every kind of double, as the values of a regression chain's leaves: Python's repr, the text the
    protocol prints (a leaf's -0.0 is predicted -0.0, printed "-0.0")."""
    rng = random.Random(5)
    values = [0.0, -0.0, 1.0, -1.0, 0.1, 1e16, 1e15, 123456789012345.6, 1e-4, 1e-5, 5e-324, 1.7976931348623157e308,
              2.5e-308, 1e21, 1e22, 100.0, 0.5, 1 / 3, math.inf, -math.inf]
    values += [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(1500)]
    values += [rng.uniform(-1e6, 1e6) for _ in range(300)] + [float(rng.randint(-10**17, 10**17)) for _ in range(200)]
    values = [v for v in values if not math.isnan(v)]
    nodes = []
    for i, value in enumerate(values[:-1]):  # x <= i: the i-th value
        nodes.append(Node((0.0,), split=Split(0, Op.LE, threshold=float(i), missing=MissingRoute.to_child(0)),
                          children=(len(nodes) + 1, len(nodes) + 2)))
        nodes.append(Node((value,), n=1.0))
    nodes.append(Node((values[-1],), n=1.0))
    model = Model((Feature("x", NUMERIC),), Target("y", REGRESSION), [Tree(nodes)])
    rows = [{"x": float(k)} for k in range(len(values))]
    assert run(emit(model, "c"), to_csv(model, rows)).splitlines() == [repr(v) for v, _ in predict_rows(model, rows)]


def test_the_program_frees_what_it_allocates_under_address_sanitizer(tmp_path):
    """Built with -fsanitize=address,undefined, the program runs over a CSV and exits 0 with the output of the
    plain build: no leak (LeakSanitizer found the input's 64 KB and the records' buffers) and no undefined
    behaviour, labels, probabilities and leaf ids."""
    models = [fit(load_dataset(str(ROOT / "examples" / "play_tennis.csv"), target="play"), "id3"),
              import_file(str(ROOT / "examples" / "boosting" / "xgboost.json")), random_model(6, regression=True, n_trees=3)]
    for k, model in enumerate(models):
        source = emit(model, "c", leaf=True)
        (tmp_path / f"m{k}.c").write_text(source, encoding="utf-8")
        subprocess.run(["gcc", "-std=c99", "-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                        "-DTREEGEN_MAIN", f"m{k}.c", "-lm", "-o", f"m{k}"], cwd=tmp_path, check=True)
        text = to_csv(model, rows_for(model, 300))
        for args in [[], ["--leaf"]] + [["--proba"]] * model.target.is_classification:
            done = subprocess.run([str(tmp_path / f"m{k}"), *args], input=text, capture_output=True, text=True)
            assert (done.returncode, done.stderr) == (0, ""), done.stderr[-3000:]
            assert done.stdout == run(source, text, args), (k, args)


@pytest.mark.parametrize("cxx", ["g++", "clang++"])
def test_a_model_with_glibcs_expf_compiles_as_cplusplus11(cxx, tmp_path):
    """The header has extern "C", so the file is compiled as C++ too: XGBoost's float32 links carry glibc's expf,
    whose constants were hex floats, which C++ has only from C++17 (g++ -std=c++14: "exponent has no digits").
    Written in decimal, -std=c++11 -pedantic -Werror compiles them, and the program prints what the Python
    program prints: labels, probabilities, leaf ids."""
    from treegen.run.python import run as run_python
    models = [import_file(str(ROOT / "examples" / "boosting" / "xgboost.json")), boosted(1, "softmax", "float32"),
              boosted(4, "sigmoid", "float32")]
    for k, model in enumerate(models):
        source = emit(model, "c", leaf=True)
        assert "expf_glibc" in source
        (tmp_path / f"m{k}.c").write_text(source, encoding="utf-8")
        done = subprocess.run([cxx, "-x", "c++", "-std=c++11", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2",
                               "-DTREEGEN_MAIN", f"m{k}.c", "-x", "none", "-lm", "-o", f"m{k}"], cwd=tmp_path,
                              capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-3000:]
        text = to_csv(model, rows_for(model, 300))
        for args in ([], ["--proba"], ["--leaf"]):
            done = subprocess.run([str(tmp_path / f"m{k}"), *args], input=text, capture_output=True, text=True)
            assert done.returncode == 0, done.stderr
            assert done.stdout == run_python(emit(model, "python", leaf=True), text, args), (k, args)


def test_verify_runs_it_for_real(tmp_path):
    check_verify("c", tmp_path)


def test_verify_compiles_with_the_compiler_and_flags_cc_names(tmp_path):
    """`verify --to c` compiles with $CC, its flags after treegen's own (-std=c99 -O2), so that they win where they
    disagree (CC="gcc -O3": -O3); an embedder checks their own build so: clang's -mfma -ffp-contract=fast, which no
    macro reveals, changes the last bits of a scikit-learn gradient boosting's probabilities, and verify says so."""
    from sklearn.ensemble import GradientBoostingClassifier

    from treegen.importers.sklearn import from_sklearn
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    model = from_sklearn(GradientBoostingClassifier(n_estimators=10, max_depth=3, random_state=0)
                         .fit(X, (X[:, 0] + X[:, 1] > 0).astype(int)))
    path = tmp_path / "gb.json"
    modelio.save(model, str(path))
    log = tmp_path / "log"
    wrapper = tmp_path / "logged-gcc"  # a real compile, its command line kept
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {log}\nexec gcc "$@"\n')
    wrapper.chmod(0o755)
    verify = lambda cc: CliRunner().invoke(main, ["verify", str(path), "--to", "c"], env={"CC": cc})
    result = verify(f"{wrapper} -O3 -march=native")
    assert result.exit_code == 0 and " ok " in result.output, result.output
    lines = log.read_text().splitlines()
    # the program's compile and link, and the rows API driver's (compiled and linked with the program's object)
    assert lines and all(re.match(r"-std=c99 -O2 -O3 -march=native (-DTREEGEN_MAIN -c |(driver\.c )?(\S+\.o )+-lm -o )",
                                  line) for line in lines), lines
    assert any(" driver.c " in line for line in lines), lines
    assert sum(" -c " in line for line in lines) == 1, lines  # the model compiled once: the driver links its object
    result = verify("clang -mfma -ffp-contract=fast")
    assert result.exit_code != 0 and "MISMATCH" in result.output, result.output
    result = verify("gcc -freciprocal-math")  # refused by the header
    assert result.exit_code != 0 and "-funsafe-math-optimizations" in result.output, result.output


def test_the_example_program_links_the_model(tmp_path):
    """examples/c/main.c, compiled with the model exported as its comment says (-o tennis.c: tennis_predict, the
    features' indices TENNIS_OUTLOOK...), prints the tree's predictions and probabilities, then the labels of all
    the rows at once."""
    model = fit(load_dataset(str(ROOT / "examples" / "play_tennis.csv"), target="play"), "id3")
    path = tmp_path / "tennis.json"
    modelio.save(model, str(path))
    shutil.copy(ROOT / "examples" / "c" / "main.c", tmp_path / "main.c")
    result = CliRunner().invoke(main, ["export", str(path), "--to", "c", "-o", str(tmp_path / "tennis.c")])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tennis.c").read_text() == emit(model, "c", prefix="tennis")
    subprocess.run(["gcc", *WARNINGS, "-O2", "main.c", "tennis.c", "-lm", "-o", "tennis"], cwd=tmp_path, check=True)
    lines = subprocess.run(["./tennis"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout.splitlines()
    days = [("sunny", "cool", "high", "strong"), ("overcast", None, "normal", None), ("rain", "mild", "normal", "weak"),
            ("foggy", None, None, "weak")]
    assert len(lines) == len(days) + 1
    rows = [dict(zip(("outlook", "temperature", "humidity", "wind"), day)) for day in days]
    assert lines.pop() == "all at once: " + " ".join(model.predict(row) for row in rows)
    for line, day in zip(lines, days):
        row = dict(zip(("outlook", "temperature", "humidity", "wind"), day))
        label, printed = line.split(" -> ")[1].split(" (")
        pairs = [pair.split(" ") for pair in printed.rstrip(")").split(", ")]
        assert label == model.predict(row), line
        assert [(c, float(p)) for c, p in pairs] == list(zip(model.target.classes, model.scores(row))), line
