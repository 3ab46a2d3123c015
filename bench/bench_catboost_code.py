"""The code treegen generates for a CatBoost model whose CTRs combine two categorical features of many categories,
for one or more source trees side by side, against CatBoost's own predict: export, build and time a row.

    python3 bench/bench_catboost_code.py --tree before=/tmp/treegen-main --tree after=. [--categories 1000]
                                         [--rows 200000] [--trees 200] [--targets c,javascript,java,python]

The model is bench_catboost_import.py's (trained in a process of its own), imported once by each tree. Per tree and
target: ``treegen export`` (wall seconds of the process), the build -- C: ``gcc -O2`` of the model with a harness;
Java: ``javac``, which may fail (its first error line is shown); Python: the module's first import, which compiles
it and writes its bytecode, then a second (each a process of its own) -- and the time a row over the first 1,000
training rows: C's ``<prefix>_predict`` a row, Java's ``predict(double[])`` a row (passes for 2 s), JavaScript's
``predictRows`` (Node), Python's ``predict_values`` a row; the best of at least three passes and of those in about a
second. CatBoost: ``predict`` of a DataFrame of the same rows, one thread, the best of five, per row. Every tree's
labels must be CatBoost's. Needs catboost, pandas, numpy, gcc, javac and node.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from bench_catboost_import import TRAIN  # noqa: E402  (the model, and rows.csv: its first 1,000 rows)
from bench_cli_startup import environment  # noqa: E402  (a checkout's treegen, its bytecode kept)
from bench_model_file import with_trees  # noqa: E402

C_HARNESS = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "model.h"

int main(int argc, char **argv)
{
    FILE *f = fopen(argv[1], "r");
    char line[256];
    static double rows[1000 * MODEL_N_FEATURES];
    int n = 0;
    if (!f || !fgets(line, sizeof line, f)) return 1;  /* the header: x0,A,B */
    while (n < 1000 && fgets(line, sizeof line, f)) {
        double *row = rows + n++ * MODEL_N_FEATURES;
        row[MODEL_X0] = atof(strtok(line, ",\n"));
        row[MODEL_A] = model_category(MODEL_A, strtok(NULL, ",\n"));
        row[MODEL_B] = model_category(MODEL_B, strtok(NULL, ",\n"));
    }
    double best = 1e99, spent = 0;
    long labels = 0;
    for (int pass = 0; pass < 3 || spent < 1.0; pass++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (int i = 0; i < n; i++) labels += model_predict(rows + i * MODEL_N_FEATURES);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double t = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
        spent += t;
        best = t < best ? t : best;
    }
    for (int i = 0; i < n; i++) fprintf(stderr, "%d\n", model_predict(rows + i * MODEL_N_FEATURES));
    printf("%.1f %ld\n", best / n * 1e9, labels);
    return 0;
}
"""

JS_HARNESS = """
import {readFileSync} from "fs";
const m = await import(process.argv[2]);
const lines = readFileSync(process.argv[3], "utf8").trim().split("\\n").slice(1);
const rows = lines.map((line) => { const [x0, A, B] = line.split(","); return m.encode({x0: Number(x0), A, B}); });
let best = Infinity, spent = 0, labels;
for (let pass = 0; pass < 3 || spent < 1e9; pass++) {
  const start = process.hrtime.bigint();
  labels = m.predictRows(rows);
  const t = Number(process.hrtime.bigint() - start);
  spent += t;
  best = Math.min(best, t);
}
console.error(labels.map((label) => m.CLASSES.indexOf(label)).join("\\n"));
console.log((best / rows.length).toFixed(1));
"""

JAVA_HARNESS = """
import java.nio.file.*;
import java.util.*;

public class Harness {
    public static void main(String[] args) throws Exception {
        List<String> lines = Files.readAllLines(Paths.get(args[0]));
        double[][] rows = new double[lines.size() - 1][];
        for (int i = 0; i < rows.length; i++) {
            String[] fields = lines.get(i + 1).split(",");
            rows[i] = Model.encode(new Object[] {Double.parseDouble(fields[0]), fields[1], fields[2]});
        }
        String[] labels = new String[rows.length];
        long best = Long.MAX_VALUE, begin = System.nanoTime();
        for (int pass = 0; pass < 3 || System.nanoTime() - begin < 2_000_000_000L; pass++) {  // (HotSpot compiles)
            long start = System.nanoTime();
            for (int i = 0; i < rows.length; i++) labels[i] = Model.predict(rows[i]);
            best = Math.min(best, System.nanoTime() - start);
        }
        for (String label : labels) System.err.println(Model.CLASSES.indexOf(label));
        System.out.printf("%.1f%n", best / (double) rows.length);
    }
}
"""

PYTHON_HARNESS = """
import csv, sys, time
import model
rows = [[float(r["x0"]), r["A"], r["B"]] for r in csv.DictReader(open(sys.argv[1]))]
assert model.FEATURES == ("x0", "A", "B")
best, spent, passes = float("inf"), 0.0, 0
while passes < 3 or spent < 1.0:
    passes += 1
    start = time.perf_counter()
    labels = [model.predict_values(row) for row in rows]
    elapsed = time.perf_counter() - start
    spent, best = spent + elapsed, min(best, elapsed)
print("\\n".join(str(model.CLASSES.index(label)) for label in labels), file=sys.stderr)
print(f"{best / len(rows) * 1e9:.1f}")
"""

PEER = """
import sys, time, pandas
from catboost import CatBoostClassifier
model = CatBoostClassifier(thread_count=1).load_model(sys.argv[1], format="json")
rows = pandas.read_csv(sys.argv[2], keep_default_na=False)
best = float("inf")
for _ in range(5):
    start = time.perf_counter()
    labels = model.predict(rows)
    best = min(best, time.perf_counter() - start)
print("\\n".join(str(int(label)) for label in labels), file=sys.stderr)
print(f"{best / len(rows) * 1e9:.1f}")
"""


def timed(command: list[str], env: dict | None = None, cwd: str | None = None) -> tuple[float, subprocess.CompletedProcess]:
    """Wall seconds of a process, and what it did."""
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - start, done


def checked(done: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(done.args)} failed: {done.stderr[-500:]}")
    return done


def first_error(done: subprocess.CompletedProcess) -> str:
    lines = [line.strip() for line in done.stderr.splitlines() if "Error" in line or "error:" in line]
    return lines[0][:60] if lines else f"exit {done.returncode}"


def measure(target: str, work: str, env: dict, rows: str) -> tuple[str, str, list[str]]:
    """The build's seconds (or why it failed), the time a row, and the labels, of one target's export in ``work``."""
    if target == "c":
        with open(os.path.join(work, "harness.c"), "w") as f:
            f.write(C_HARNESS)
        seconds, done = timed(["gcc", "-O2", "-o", "harness", "harness.c", "model.c", "-lm"], cwd=work)
        run = checked(subprocess.run([os.path.join(work, "harness"), rows], capture_output=True, text=True))
        return f"gcc -O2 {checked(done) and seconds:.1f} s", f"{run.stdout.split()[0]} ns", run.stderr.split()
    if target == "java":
        with open(os.path.join(work, "Harness.java"), "w") as f:
            f.write(JAVA_HARNESS)
        seconds, done = timed(["javac", "-d", work, os.path.join(work, "Model.java"), os.path.join(work, "Harness.java")])
        if done.returncode != 0:
            return f"javac failed: {first_error(done)}", "-", []
        run = checked(subprocess.run(["java", "-cp", work, "Harness", rows], capture_output=True, text=True))
        return f"javac {seconds:.1f} s", f"{run.stdout.split()[0]} ns", run.stderr.split()
    if target == "javascript":
        with open(os.path.join(work, "harness.mjs"), "w") as f:
            f.write(JS_HARNESS)
        run = checked(subprocess.run(["node", os.path.join(work, "harness.mjs"), os.path.join(work, "model.mjs"),
                                      rows], capture_output=True, text=True))
        return "-", f"{run.stdout.split()[0]} ns", run.stderr.split()
    with open(os.path.join(work, "harness.py"), "w") as f:
        f.write(PYTHON_HARNESS)
    python_env = dict(environment(work))
    first, done = timed([sys.executable, "-c", "import model"], python_env, cwd=work)
    second, _ = timed([sys.executable, "-c", "import model"], python_env, cwd=work)
    run = checked(subprocess.run([sys.executable, "harness.py", rows], env=python_env, cwd=work, capture_output=True,
                                 text=True))
    return f"import {checked(done) and first:.1f} s, again {second:.1f} s", f"{run.stdout.split()[0]} ns", run.stderr.split()


FILES = {"c": "model.c", "java": "Model.java", "javascript": "model.mjs", "python": "model.py"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--categories", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--trees", type=int, default=200)
    parser.add_argument("--targets", default="c,javascript,java,python")
    options, trees = with_trees(parser)
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)  # `python -m` puts the current folder first on the path: not a tree measured
        checked(subprocess.run([sys.executable, "-c", TRAIN, "model.json", str(options.categories),
                                str(options.rows), str(options.trees)], capture_output=True, text=True))
        rows = os.path.join(work, "rows.csv")
        with open("peer.py", "w") as f:
            f.write(PEER)
        peer = checked(subprocess.run([sys.executable, "peer.py", "model.json", rows], capture_output=True, text=True))
        expected = peer.stderr.split()
        print(f"two features of {options.categories} categories, {options.rows} rows, {options.trees} trees; "
              f"CatBoost's predict: {peer.stdout.split()[0]} ns a row (a DataFrame of {len(expected)} rows)")
        print("| tree | target | export s | size MB | build | a row |")
        print("|---|---|---:|---:|---|---:|")
        for name, path in trees.items():
            checked(subprocess.run([sys.executable, "-m", "treegen", "import", "model.json", "-o", f"{name}.json"],
                                   env=environment(path), capture_output=True, text=True))
            for target in options.targets.split(","):
                out = os.path.join(work, name, target)
                os.makedirs(out)
                seconds, done = timed([sys.executable, "-m", "treegen", "export", f"{name}.json", "--to", target,
                                       "-o", os.path.join(out, FILES[target])], environment(path))
                checked(done)
                size = os.path.getsize(os.path.join(out, FILES[target])) / 1e6
                build, per_row, labels = measure(target, out, environment(path), rows)
                if labels and labels != expected:
                    raise SystemExit(f"{name} {target}: labels differ from CatBoost's")
                print(f"| {name} | {target} | {seconds:.1f} | {size:.1f} | {build} | {per_row} |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
