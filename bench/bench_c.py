"""Generated C, treegen against m2cgen, TL2cgen (treelite), emlearn and the floor of one compare a
level: code generation time, compile time, and time per row for a 1,000-leaf tree and a 500-tree
forest, one row a call and over a batch, side by side in one run.

    python3 bench/bench_c.py [--leaves 1000] [--trees 500] [--depth 8] [--rows 10000] [--seconds 3]
                             [--repeat 3] [--cc gcc] [--flags "-O2"]

Needs scikit-learn and m2cgen, for TL2cgen treelite and tl2cgen, for emlearn emlearn (a virtual
environment of their own: ``python3 -m venv VENV; VENV/bin/pip install m2cgen scikit-learn treelite
tl2cgen emlearn numpy jinja2 lark click``; a peer that does not import is left out and said so), and a
C compiler. Every tool gets
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
  the sequence), one call a row, timed in blocks of consecutive calls of about 20 us each; the median
  per row of the blocks in the second half of the time (a block the scheduler interrupted is an
  outlier the median leaves out, where a whole pass of a big forest would not be);
* one row: a single call timed on its own (``clock_gettime`` around it, less the time of the same
  timing around nothing), rows in a random order, between calls a pass over 8 MB that evicts the
  caches' recent contents; the median, and the 90th percentile.

Every call computes the class probabilities (treegen's ``PREFIX_predict_proba``, m2cgen's ``score``,
TL2cgen's ``predict`` without margins, after zeroing the buffer it adds to); treegen's
``PREFIX_predict`` (the label) is shown beside them. emlearn's ``eml_predict`` gives the label only (its
``method="inline"``, ``dtype="float"``: the rows as floats, converted before timing; its forests vote).
The floor is C generated here from treegen's model, one nested if-chain a tree with the model's
compare and nothing else, summing the leaves' first values; and again as a branch-free walk of flat
arrays. "compares a row" counts the compares on each row's paths, and each tool's batch time is also
given per compare.

Before timing, each program runs every row once in order ("rows agreeing": how many of the numbers
its calls return equal, bit for bit, scikit-learn's probability of the first class, or its label for
the label functions; for the single tree the floor's leaf value is that probability).
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
    int n = atoi(argv[2]), f = atoi(argv[3]), i, k, passes = 0, calls = 0, blocks = 0, block;
    double seconds = atof(argv[4]), *rows = malloc(sizeof(double) * n * f), out[64], sink = 0, begin, end;
    double *block_times = malloc(sizeof(double) * 2000000), *timed = malloc(sizeof(double) * 2000000);
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
    if (argc > 5) {  /* "dump": each row's number, in order, for the agreement check; no timing */
        for (i = 0; i < n; i++) {
            printf("%.17g\n", bench_call(prepared, i, out));
        }
        return 0;
    }
    for (i = 0; i < n; i++) {
        order[i] = i;
    }
    begin = now();
    for (i = 0; i < n; i++) {  /* a first pass: about how long a row takes */
        sink += bench_call(prepared, i, out);
    }
    block = (int) (20000.0 / ((now() - begin) / n)) + 1;  /* rows timed together: about 20 us */
    begin = now();
    while (passes < 5 || now() - begin < seconds * 1e9) {
        int keep = now() - begin >= seconds * 0.5e9;  /* the first half of the time warms up */
        for (i = n - 1; i > 0; i--) {
            int j = random_below(i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (i = 0; i < n; i += block) {
            int stop = i + block < n ? i + block : n;
            double start = now();
            for (k = i; k < stop; k++) {
                sink += bench_call(prepared, order[k], out);
            }
            if (keep && blocks < 2000000) {
                block_times[blocks++] = (now() - start) / (stop - i);
            }
        }
        passes += keep;
    }
    qsort(block_times, blocks, sizeof(double), compare);
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
    printf("%.1f %.1f %.1f %d %d %g\n", block_times[blocks / 2],
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
#include <string.h>
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
    memset(out, 0, sizeof(double) * N_TARGET * MAX_N_CLASS);  /* its predict adds to the caller's buffer */
    predict((union Entry *) rows + (size_t) i * F, 0, out);
    return out[0];
}
"""

EMLEARN = r"""
#include <stdint.h>
#include <stdlib.h>
int32_t eml_predict(const float *features, int32_t features_length);
static int F;
void *bench_prepare(const double *rows, int n, int f)
{
    float *floats = malloc(sizeof(float) * n * f);
    int i;
    for (i = 0; i < n * f; i++) {
        floats[i] = (float) rows[i];
    }
    F = f;
    return floats;
}
double bench_call(const void *rows, int i, double *out)
{
    (void) out;
    return eml_predict((const float *) rows + (size_t) i * F, F);
}
"""

FLOOR = 'double floor_score(const double *x);\nstatic int F;\n' + DOUBLES + r"""
double bench_call(const void *rows, int i, double *out)
{
    (void) out;
    return floor_score((const double *) rows + (size_t) i * F);
}
"""


def floor_source(model) -> str:
    """The floor: one compare per level along each row's path and nothing else -- each tree a nested
    if-chain in a function of its own, returning its leaf's first value, and their sum. No missing
    values, no link, no probabilities; the compare is the model's (after its float32 cast where the
    model has one, strict where it is), so every row takes the path it takes in the model."""
    cast = "(float) " if model.numeric.cast == "float32" else ""
    op = "<" if model.numeric.strict else "<="

    def node_code(nodes, index: int, depth: int) -> str:
        node, pad = nodes[index], "    " * depth
        if node.split is None:
            return f"{pad}return {float(node.value[0])!r};\n"
        low, high = node.children
        threshold = repr(node.split.threshold)
        if cast:  # a float compared in float: the same answer, one compare of floats
            threshold = float32_literal(node.split.threshold, model.numeric.strict)
        return (f"{pad}if ({cast}x[{node.split.feature}] {op} {threshold}) {{\n"
                f"{node_code(nodes, low, depth + 1)}{pad}}} else {{\n{node_code(nodes, high, depth + 1)}{pad}}}\n")

    parts = [f"static double tree_{k}(const double *x)\n{{\n{node_code(tree.nodes, 0, 1)}}}\n"
             for k, tree in enumerate(model.trees)]
    total = " + ".join(f"tree_{k}(x)" for k in range(len(model.trees)))
    return "\n".join(parts) + f"\ndouble floor_score(const double *x)\n{{\n    return {total};\n}}\n"


def floor_walk_source(model) -> str:
    """The floor again, branch-free: every tree's nodes in flat arrays, each level one compare whose
    result indexes the next node (no branch on the data to mispredict; the loop's test of whether
    the node is a leaf is the only other work)."""
    cast = "(float) " if model.numeric.cast == "float32" else ""
    feature, threshold, child, value, roots = [], [], [], [], []
    for tree in model.trees:
        base = len(feature)
        roots.append(str(base))
        for node in tree.nodes:
            split = node.split
            feature.append(str(split.feature if split else -1))
            threshold.append("0" if split is None else float32_literal(split.threshold, model.numeric.strict)
                             if cast else repr(split.threshold))
            child.extend(str(base + c) for c in (node.children if split else (0, 0)))
            value.append(repr(float(node.value[0])))
    ctype, op = ("float" if cast else "double"), ("<" if model.numeric.strict else "<=")

    def array(kind: str, name: str, items: list[str]) -> str:
        return f"static const {kind} {name}[] = {{{', '.join(items)}}};\n"

    return (array("int", "FEATURE", feature) + array(ctype, "THRESHOLD", threshold) + array("int", "CHILD", child)
            + array("double", "VALUE", value) + array("int", "ROOT", roots) + f"""
double floor_score(const double *x)
{{
    double sum = 0;
    int t, n;
    for (t = 0; t < {len(roots)}; t++) {{
        for (n = ROOT[t]; FEATURE[n] >= 0;) {{
            n = CHILD[2 * n + !({cast}x[FEATURE[n]] {op} THRESHOLD[n])];
        }}
        sum += VALUE[n];
    }}
    return sum;
}}
""")


def float32_literal(threshold: float, strict: bool) -> str:
    """The float t32 with float(x) <= t32 exactly when float(x) <= threshold (the largest float at or
    below it; for <, the smallest float at or above it), as a C float literal."""
    t32 = np.float32(threshold)
    if strict and float(t32) < threshold:
        t32 = np.nextafter(t32, np.float32(np.inf))
    elif not strict and float(t32) > threshold:
        t32 = np.nextafter(t32, np.float32(-np.inf))
    return f"{float(t32)!r}f"


def compares_per_row(model, rows: np.ndarray) -> np.ndarray:
    """How many compares each row makes on its paths through every tree (the floor's work)."""
    found = np.zeros(len(rows), dtype=np.int64)
    values = rows.astype(np.float32).astype(np.float64) if model.numeric.cast == "float32" else rows
    for tree in model.trees:
        internal = [node.split is not None for node in tree.nodes]
        feature = np.array([n.split.feature if n.split else 0 for n in tree.nodes])
        threshold = np.array([n.split.threshold if n.split else 0.0 for n in tree.nodes])
        children = np.array([n.children if n.split else (0, 0) for n in tree.nodes])
        at, internal = np.zeros(len(rows), dtype=np.int64), np.array(internal)
        while internal[at].any():
            going = internal[at]
            x = values[np.arange(len(rows)), feature[at]]
            low = x < threshold[at] if model.numeric.strict else x <= threshold[at]
            found += going
            at = np.where(going, children[at, np.where(low, 0, 1)], at)
    return found


def emlearn_source(estimator) -> str:
    """emlearn's C for the estimator: its "inline" method (if-chains) on float features (its default,
    int16_t, casts the inputs to 16-bit integers)."""
    import emlearn
    with tempfile.TemporaryDirectory(prefix="treegen-bench-emlearn-") as directory:
        path = os.path.join(directory, "eml.h")
        emlearn.convert(estimator, method="inline", dtype="float").save(name="eml", file=path)
        with open(path, encoding="utf-8") as handle:
            return handle.read()



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


def treegen_and_m2cgen(load, estimator, repeat: int, includes: str) -> tuple:
    """The model ``load()`` gives and (seconds, files) of treegen's export alone, of treegen's import
    and export ("treegen") and of m2cgen's, each the best of ``repeat``."""
    import m2cgen
    sys.setrecursionlimit(100_000)  # m2cgen recurses over every tree of a forest
    model = load()
    emit(model, "c", prefix="tg")  # untimed: Jinja compiles the templates on the first export of a process
    found = {"export": best_time(lambda: emit(model, "c", prefix="tg"), repeat)}
    seconds, source = best_time(lambda: emit(load(), "c", prefix="tg"), repeat)
    found["treegen"] = (seconds, {"model.c": source, "model.h": header(source)})
    seconds, text = best_time(lambda: m2cgen.export_to_c(estimator), repeat)
    found["m2cgen"] = (seconds, {"model.c": includes + text})
    return model, found


def generate(estimator, repeat: int, directory: str) -> dict:
    """(seconds, files) per tool: the best of ``repeat`` generations."""
    model, found = treegen_and_m2cgen(lambda: from_sklearn(estimator), estimator, repeat, "#include <string.h>\n")
    try:
        count = iter(range(repeat))
        found["tl2cgen"] = best_time(lambda: tl2cgen_files(estimator, os.path.join(directory, f"tl{next(count)}")),
                                     repeat)
    except ImportError as error:
        print(f"TL2cgen left out: {error}")
    try:
        seconds, text = best_time(lambda: emlearn_source(estimator), repeat)
        found["emlearn"] = (seconds, {"model.c": text})
    except ImportError as error:
        print(f"emlearn left out: {error}")
    found["floor"] = (0.0, {"model.c": floor_source(model)})
    found["floor walk"] = (0.0, {"model.c": floor_walk_source(model)})
    return found


def build(directory: str, files: dict[str, str], glue: str, cc: str, flags: list[str]) -> tuple[str, float]:
    """One program of the tool's files, its glue and the shared main; (path, seconds to compile)."""
    os.makedirs(directory, exist_ok=True)
    for name, text in {**files, "glue.c": glue, "bench_main.c": MAIN}.items():
        with open(os.path.join(directory, name), "wb") as handle:  # bytes: an object file (lleaves')
            handle.write(text if isinstance(text, bytes) else text.encode("utf-8"))
    sources = sorted(name for name in os.listdir(directory) if name.endswith((".c", ".o")))
    start = time.perf_counter()
    subprocess.run([*shlex.split(cc), *flags, *sources, "-lm", "-o", "bench"], cwd=directory, check=True)
    return os.path.join(directory, "bench"), time.perf_counter() - start


def measure(program: str, rows_path: str, n: int, f: int, seconds: float) -> dict:
    done = subprocess.run([program, rows_path, str(n), str(f), str(seconds)], capture_output=True, text=True,
                          check=True)
    batch, single, single90, *_ = done.stdout.split()
    return {"batch": float(batch), "single": float(single), "single90": float(single90)}


def answers(program: str, rows_path: str, n: int, f: int) -> np.ndarray:
    """The number each row's call returned (the program's "dump" mode)."""
    done = subprocess.run([program, rows_path, str(n), str(f), "0", "dump"], capture_output=True, text=True,
                          check=True)
    return np.array([float(line) for line in done.stdout.split()])


def agreement(got: np.ndarray, want: np.ndarray | None) -> str:
    """How many rows' numbers equal the library's, bit for bit (labels: as numbers)."""
    if want is None:
        return "-"
    return f"{int(np.sum(got == want))}/{len(want)}"


def time_all(label: str, code: dict, contestants, rows: np.ndarray, directory: str, args, flags) -> dict:
    """Build, check and time each contestant (name, tool, glue, the numbers its calls should return or
    None); print a table row each; the batch times by name."""
    rows_path = os.path.join(directory, "rows.bin")
    rows.tofile(rows_path)
    times = {}
    for k, (name, tool, glue, want) in enumerate(contestants):
        seconds, files = code[tool]
        program, compile_seconds = build(os.path.join(directory, f"{tool}{k}"), files, glue, args.cc, flags)
        agrees = agreement(answers(program, rows_path, *rows.shape), want)
        got = measure(program, rows_path, len(rows), rows.shape[1], args.seconds)
        generated = (f"{code['export'][0]:.3f} s (import + export {seconds:.3f} s)" if tool == "treegen"
                     else "-" if tool.startswith("floor") else f"{seconds:.3f} s")
        print(f"| {label} | {name} | {generated} | {compile_seconds:.1f} s | {got['batch']:.1f} ns "
              f"| {got['single']:.0f} ns, {got['single90']:.0f} ns | {agrees} |", flush=True)
        times[name] = got["batch"]
    return times


def report_floor(label: str, model, rows: np.ndarray, times: dict) -> None:
    """The compares a row makes on its paths, and each tool's batch time per compare and against treegen."""
    compares = compares_per_row(model, rows).mean()
    print(f"\n{label}: {compares:.2f} compares a row on average (its paths' depths summed over the trees); "
          "batch ns per compare: " + ", ".join(f"{name} {t / compares:.2f}" for name, t in times.items()))
    mine = times["treegen predict_proba"]
    print("treegen predict_proba against each: " + ", ".join(f"{name} {mine / t:.2f}x" for name, t in times.items()
                                                              if not name.startswith("treegen")) + "\n")


def sklearn_contestants(estimator, rows: np.ndarray, code: dict) -> list:
    """(name, tool, glue, what its calls should return) for each tool that generated code."""
    proba0 = estimator.predict_proba(rows)[:, 0]
    labels = np.searchsorted(estimator.classes_, estimator.predict(rows)).astype(np.float64)
    found = [("treegen predict_proba", "treegen", TREEGEN_PROBA, proba0),
             ("treegen predict", "treegen", TREEGEN_LABEL, labels), ("m2cgen score", "m2cgen", M2CGEN, proba0)]
    if "tl2cgen" in code:
        found.append(("tl2cgen predict", "tl2cgen", TL2CGEN, proba0))
    if "emlearn" in code:
        found.append(("emlearn predict (label)", "emlearn", EMLEARN, labels))
    single_tree = not hasattr(estimator, "estimators_")  # a forest's floor sums the trees' first values
    found.append(("floor (one compare a level)", "floor", FLOOR, proba0 if single_tree else None))
    found.append(("floor, array walk", "floor walk", FLOOR, proba0 if single_tree else None))
    return found


HEADER = ("| model | tool | generate | compile | batch per row | one row a call (median, 90th pct) | rows agreeing |\n"
          "|---|---|---|---|---|---|---|")


def arguments(doc: str):
    """The command line (the same for the C benches), and the compiler flags; prints the compiler,
    the flags, the load and the table's header."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
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
    print(HEADER)
    return args, flags


def main() -> None:
    args, flags = arguments(__doc__)
    with tempfile.TemporaryDirectory(prefix="treegen-bench-c-") as directory:
        for label, (estimator, X) in fitted(args.leaves, args.trees, args.depth).items():
            rows = np.ascontiguousarray(X[:args.rows], dtype=np.float64)
            code = generate(estimator, args.repeat, directory)
            times = time_all(label, code, sklearn_contestants(estimator, rows, code), rows, directory, args, flags)
            report_floor(label, from_sklearn(estimator), rows, times)
            print(HEADER)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
