"""Generated C, treegen against m2cgen and TL2cgen (treelite): code generation time, compile time, and
time per row for a 1,000-leaf tree and a 500-tree forest, one row a call and over a batch, side by
side in one run.

    python3 bench/bench_c.py [--leaves 1000] [--trees 500] [--depth 8] [--rows 10000] [--seconds 3]
                             [--repeat 3] [--cc gcc] [--flags "-O2"]

Needs scikit-learn and m2cgen, and for TL2cgen treelite and tl2cgen (a virtual environment of their
own: ``python3 -m venv VENV; VENV/bin/pip install m2cgen scikit-learn treelite tl2cgen numpy jinja2
lark click``; a peer that does not import is left out and said so), and a C compiler. Every tool gets
the same fitted estimators: ``DecisionTreeClassifier(max_leaf_nodes=LEAVES)`` on
``make_classification`` (20 features, 3 classes) and ``RandomForestClassifier(TREES, max_depth=DEPTH)``
on ``make_classification(4000, 8)``. "generate" is the best of ``--repeat`` runs: treegen's
``export`` of the imported model (and, from the fitted estimator, its import then ``export``);
m2cgen's ``export_to_c``; TL2cgen's ``generate_c_code`` of treelite's import of the estimator.

Each tool's code is compiled with the same compiler and flags into one program per tool, with a
main that the tools share, which calls the model through a function of another translation unit
(nothing is inlined into the timing loop). Rows are the training data, converted to each tool's
input before timing (treegen and m2cgen: doubles; TL2cgen: its ``union Entry``):

* batch: passes over the rows, each in a new random order (so that the branch predictor cannot learn
  the sequence), one call a row; the median of the passes in the second half of the time, per row;
* one row: a single call timed on its own (``clock_gettime`` around it, less the time of the same
  timing around nothing), rows in a random order, between calls a pass over 8 MB that evicts the
  caches' recent contents; the median, and the 90th percentile.

Every call computes the class probabilities (treegen's ``PREFIX_predict_proba``, m2cgen's ``score``,
TL2cgen's ``predict`` without margins); treegen's ``PREFIX_predict`` (the label) is shown beside them.
"""
from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_javascript import best_time, fitted, load_average  # noqa: E402  (the same estimators, side by side)

from treegen.emit.c import header  # noqa: E402
from treegen.importers.sklearn import from_sklearn  # noqa: E402
from treegen.targets import emit  # noqa: E402

MAIN = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void *bench_prepare(const double *rows, int n, int f);  /* the rows in the tool's input form */
double bench_call(const void *rows, int i, double *out);  /* one prediction; a number from it */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static unsigned long seed = 1;
static int random_below(int n)
{
    seed = (seed * 1103515245 + 12345) % 2147483648UL;
    return (int) ((double) seed / 2147483648.0 * n);
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[2]), f = atoi(argv[3]), i, k, passes = 0, calls = 0;
    double seconds = atof(argv[4]), *rows = malloc(sizeof(double) * n * f), out[64], sink = 0, begin, end;
    double *pass_times = malloc(sizeof(double) * 100000), *timed = malloc(sizeof(double) * 2000000);
    double *bare = malloc(sizeof(double) * 2000000);
    int *order = malloc(sizeof(int) * n);
    static volatile char noise[8 << 20];
    FILE *file = fopen(argv[1], "rb");
    void *prepared;
    if (fread(rows, sizeof(double), (size_t) n * f, file) != (size_t) n * f) {
        return 1;
    }
    fclose(file);
    prepared = bench_prepare(rows, n, f);
    for (i = 0; i < n; i++) {
        order[i] = i;
    }
    begin = now();
    while (passes < 5 || now() - begin < seconds * 1e9) {
        double start;
        for (i = n - 1; i > 0; i--) {
            int j = random_below(i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        start = now();
        for (i = 0; i < n; i++) {
            sink += bench_call(prepared, order[i], out);
        }
        pass_times[passes++] = (now() - start) / n;
    }
    qsort(pass_times + passes / 2, passes - passes / 2, sizeof(double), compare);
    end = now() + seconds * 1e9;
    while ((now() < end || calls < 1000) && calls < 2000000) {
        double start;
        int row = random_below(n);
        for (k = 0; k < (int) sizeof noise; k += 64) {
            noise[k] += 1;
        }
        start = now();
        sink += bench_call(prepared, row, out);
        timed[calls] = now() - start;
        start = now();
        bare[calls] = now() - start;
        calls++;
    }
    qsort(timed, calls, sizeof(double), compare);
    qsort(bare, calls, sizeof(double), compare);
    printf("%.1f %.1f %.1f %d %d %g\n", pass_times[passes / 2 + (passes - passes / 2) / 2],
           timed[calls / 2] - bare[calls / 2], timed[calls * 9 / 10] - bare[calls / 2], passes, calls, sink);
    return 0;
}
"""

DOUBLES = r"""
#include <stdlib.h>
#include <string.h>
void *bench_prepare(const double *rows, int n, int f)
{
    double *copy = malloc(sizeof(double) * n * f);
    memcpy(copy, rows, sizeof(double) * n * f);
    F = f;
    return copy;
}
"""

TREEGEN_PROBA = '#include "model.h"\nstatic int F;\n' + DOUBLES + r"""
double bench_call(const void *rows, int i, double *out)
{
    tg_predict_proba((const double *) rows + (size_t) i * F, out);
    return out[0];
}
"""

TREEGEN_LABEL = '#include "model.h"\nstatic int F;\n' + DOUBLES + r"""
double bench_call(const void *rows, int i, double *out)
{
    (void) out;
    return tg_predict((const double *) rows + (size_t) i * F);
}
"""

M2CGEN = 'void score(double *input, double *output);\nstatic int F;\n' + DOUBLES + r"""
double bench_call(const void *rows, int i, double *out)
{
    score((double *) rows + (size_t) i * F, out);
    return out[0];
}
"""

TL2CGEN = r"""
#include <stdlib.h>
#include "header.h"
static int F;
void *bench_prepare(const double *rows, int n, int f)
{
    union Entry *entries = malloc(sizeof(union Entry) * n * f);
    int i;
    for (i = 0; i < n * f; i++) {
        entries[i].fvalue = rows[i];
    }
    F = f;
    return entries;
}
double bench_call(const void *rows, int i, double *out)
{
    predict((union Entry *) rows + (size_t) i * F, 0, out);
    return out[0];
}
"""


def as_forest(estimator):
    """treelite imports forests, not single trees: a tree as the forest of that one tree, whose
    probabilities (the average over one tree) are the tree's."""
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier
    if not isinstance(estimator, DecisionTreeClassifier):
        return estimator
    forest = RandomForestClassifier(n_estimators=1)
    forest.estimators_ = [estimator]
    for name in ("classes_", "n_classes_", "n_features_in_", "n_outputs_"):
        setattr(forest, name, getattr(estimator, name))
    return forest


def tl2cgen_files(estimator, directory: str) -> dict[str, str]:
    """TL2cgen's C files for the estimator (treelite's scikit-learn import), by name."""
    import tl2cgen
    import treelite
    model = treelite.sklearn.import_model(as_forest(estimator))
    tl2cgen.generate_c_code(model, dirpath=directory, params={})
    return {name: open(os.path.join(directory, name), encoding="utf-8").read()
            for name in os.listdir(directory) if name.endswith((".c", ".h"))}


def generate(estimator, repeat: int, directory: str) -> dict:
    """(seconds, files) per tool: the best of ``repeat`` generations."""
    import m2cgen
    sys.setrecursionlimit(100_000)  # m2cgen recurses over every tree of a forest
    model = from_sklearn(estimator)
    found = {"export": best_time(lambda: emit(model, "c", prefix="tg"), repeat)}
    seconds, source = best_time(lambda: emit(from_sklearn(estimator), "c", prefix="tg"), repeat)
    found["treegen"] = (seconds, {"model.c": source, "model.h": header(source)})
    seconds, text = best_time(lambda: m2cgen.export_to_c(estimator), repeat)
    found["m2cgen"] = (seconds, {"model.c": "#include <string.h>\n" + text})
    try:
        count = iter(range(repeat))
        found["tl2cgen"] = best_time(lambda: tl2cgen_files(estimator, os.path.join(directory, f"tl{next(count)}")),
                                     repeat)
    except ImportError as error:
        print(f"TL2cgen left out: {error}")
    return found


def build(directory: str, files: dict[str, str], glue: str, cc: str, flags: list[str]) -> tuple[str, float]:
    """One program of the tool's files, its glue and the shared main; (path, seconds to compile)."""
    os.makedirs(directory, exist_ok=True)
    for name, text in {**files, "glue.c": glue, "bench_main.c": MAIN}.items():
        with open(os.path.join(directory, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    sources = sorted(name for name in os.listdir(directory) if name.endswith(".c"))
    start = time.perf_counter()
    subprocess.run([*shlex.split(cc), *flags, *sources, "-lm", "-o", "bench"], cwd=directory, check=True)
    return os.path.join(directory, "bench"), time.perf_counter() - start


def measure(program: str, rows_path: str, n: int, f: int, seconds: float) -> dict:
    done = subprocess.run([program, rows_path, str(n), str(f), str(seconds)], capture_output=True, text=True,
                          check=True)
    batch, single, single90, *_ = done.stdout.split()
    return {"batch": float(batch), "single": float(single), "single90": float(single90)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leaves", type=int, default=1000)
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cc", default="gcc")
    parser.add_argument("--flags", default="-O2")
    args = parser.parse_args()
    flags = ["-std=c99", *shlex.split(args.flags)]
    version = subprocess.run([*shlex.split(args.cc), "--version"], capture_output=True, text=True,
                             check=True).stdout.splitlines()[0]
    print(f"{version}, {' '.join(flags)}; load average before: {load_average()}")
    print("| model | tool | generate | compile | batch per row | one row a call (median, 90th pct) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="treegen-bench-c-") as directory:
        for label, (estimator, X) in fitted(args.leaves, args.trees, args.depth).items():
            rows = np.ascontiguousarray(X[:args.rows], dtype=np.float64)
            rows_path = os.path.join(directory, "rows.bin")
            rows.tofile(rows_path)
            code = generate(estimator, args.repeat, directory)
            contestants = [("treegen predict_proba", "treegen", TREEGEN_PROBA),
                           ("treegen predict", "treegen", TREEGEN_LABEL), ("m2cgen score", "m2cgen", M2CGEN)]
            if "tl2cgen" in code:
                contestants.append(("tl2cgen predict", "tl2cgen", TL2CGEN))
            for k, (name, tool, glue) in enumerate(contestants):
                seconds, files = code[tool]
                program, compile_seconds = build(os.path.join(directory, f"{tool}{k}"), files, glue, args.cc, flags)
                got = measure(program, rows_path, len(rows), rows.shape[1], args.seconds)
                generated = (f"{code['export'][0]:.3f} s (import + export {seconds:.3f} s)" if tool == "treegen"
                             else f"{seconds:.3f} s")
                print(f"| {label} | {name} | {generated} | {compile_seconds:.1f} s | {got['batch']:.1f} ns "
                      f"| {got['single']:.0f} ns, {got['single90']:.0f} ns |", flush=True)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
