"""Code generation and generated code, treegen against m2cgen, on scikit-learn trees of 1k, 10k and 50k
leaves: time to generate Python and Java, and time per row of the generated Python and Java.

    python3 bench/bench_codegen.py [--leaves 1000,10000,50000] [--rows 2000] [--python-passes 10]
                                   [--java-seconds 3] [--repeat 1]

Both get the same fitted DecisionTreeClassifier (max_leaf_nodes=N on make_classification); treegen reads
it through its scikit-learn importer. Python is timed in this process, the best of ``--python-passes``
passes over the rows for each function in turn (CPython specialises an instruction only after it has run
a few dozen times: the deep parts of a big tree need several passes; and a big tree's walkers do not fit
in the caches together, so functions that took turns pass by pass measured each other's cache misses):
treegen's dict API ``predict(row)`` and ``predict_proba(row)`` (which read and convert the features on
the row's path), its list API ``predict_values(list)`` and ``predict_proba_values(list)``, against
m2cgen's ``score(list)`` (its only API: the probabilities), given the list, and given a dict row as its
caller must: ``score([row[name] for name in NAMES])``. Java runs in one JVM per class and API,
given a ``double[]``: passes over the rows, each in a new random order (so that the branch predictor
cannot learn the rows' sequence), for ``--java-seconds``; it reports the best of the first 40 passes
(what this benchmark reported before: HotSpot is still compiling then) and the median of the passes in
the second half of the time (the steady state). m2cgen's Java fails to compile beyond about 2,000 leaves
("code too large"): reported as such. The load average is printed before and after.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from treegen.targets import emit  # noqa: E402
from treegen.importers.sklearn import from_sklearn  # noqa: E402

JAVA_BENCH = """
import java.io.*;
import java.util.*;

public class Bench {
    public static void main(String[] args) throws IOException {
        List<double[]> rows = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new FileReader(args[0]))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                String[] parts = line.split(",");
                double[] row = new double[parts.length];
                for (int i = 0; i < parts.length; i++) row[i] = Double.parseDouble(parts[i]);
                rows.add(row);
            }
        }
        long seconds = (long) (Double.parseDouble(args[1]) * 1e9);
        Random random = new Random(1);
        List<Long> passes = new ArrayList<>();
        double sink = 0;
        long begin = System.nanoTime(), half = 0;
        while (passes.size() < 40 || System.nanoTime() - begin < seconds) {
            Collections.shuffle(rows, random);  // not timed: a new order each pass
            long start = System.nanoTime();
            for (double[] row : rows) sink += CALL;
            passes.add(System.nanoTime() - start);
            if (half == 0 && System.nanoTime() - begin >= seconds / 2) half = passes.size();
        }
        List<Long> late = new ArrayList<>(passes.subList(half == 0 ? passes.size() / 2 : (int) half, passes.size()));
        Collections.sort(late);
        long first = Collections.min(passes.subList(0, 40));
        System.out.println((double) first / rows.size() + " " + (double) late.get(late.size() / 2) / rows.size()
            + " " + passes.size() + " " + sink);
    }
}
"""


def fit_tree(leaves: int, seed: int = 0):
    from sklearn.datasets import make_classification
    from sklearn.tree import DecisionTreeClassifier
    X, y = make_classification(n_samples=max(20 * leaves, 5000), n_features=20, n_informative=12,
                               n_classes=3, random_state=seed)
    return DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=seed).fit(X, y), X


def timed(function, *args):
    start = time.perf_counter()
    result = function(*args)
    return time.perf_counter() - start, result


def python_row_times(source: str, calls: dict, passes: int) -> dict:
    """Seconds per row of each function (name -> rows), best of ``passes`` passes over the rows."""
    namespace: dict = {}
    exec(compile(source, "<bench>", "exec"), namespace)
    best = {name: float("inf") for name in calls}
    for name, rows in calls.items():
        function = namespace[name]
        for _ in range(passes):
            start = time.perf_counter()
            for row in rows:
                function(row)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: best[name] / len(rows) for name, rows in calls.items()}


def java_row_times(source: str, calls: list[str], rows: np.ndarray, directory: str, seconds: float) -> list:
    """Per call expression: (ns per row in the first 40 passes, ns per row at steady state), or the
    compiler's complaint."""
    name = re.search(r"^public\s+(?:final\s+)?class\s+(\w+)", source, re.MULTILINE).group(1)
    work = tempfile.mkdtemp(dir=directory)
    with open(os.path.join(work, f"{name}.java"), "w", encoding="utf-8") as handle:
        handle.write(source)
    data = os.path.join(work, "rows.csv")
    with open(data, "w") as handle:
        handle.writelines(",".join(repr(float(v)) for v in row) + "\n" for row in rows)
    done = subprocess.run(["javac", "-d", work, os.path.join(work, f"{name}.java")], capture_output=True, text=True)
    if done.returncode != 0:
        error = re.search(r"error: (.*)|(java\.lang\.\w+Error)", done.stderr)
        return [f"javac: {error.group(1) or error.group(2) if error else done.stderr.strip()[:60]}"] * len(calls)
    times = []
    for i, call in enumerate(calls):
        harness = os.path.join(work, f"harness{i}")
        os.makedirs(harness)
        with open(os.path.join(harness, "Bench.java"), "w", encoding="utf-8") as handle:
            handle.write(JAVA_BENCH.replace("CALL", call))
        subprocess.run(["javac", "-cp", work, "-d", harness, os.path.join(harness, "Bench.java")], check=True)
        out = subprocess.run(["java", "-cp", f"{harness}{os.pathsep}{work}", "Bench", data, str(seconds)],
                             capture_output=True, text=True, check=True).stdout.split()
        times.append((float(out[0]), float(out[1])))
    return times


def bench(leaves: int, n_rows: int, directory: str, python_passes: int, java_seconds: float) -> dict:
    import m2cgen
    sys.setrecursionlimit(100_000)
    tree, X = fit_tree(leaves)
    model = from_sklearn(tree)
    rows = X[:n_rows]
    names = [f.name for f in model.features]
    dict_rows = [dict(zip(names, map(float, r))) for r in rows]
    list_rows = [list(map(float, r)) for r in rows]
    result = {"leaves": tree.get_n_leaves(), "depth": tree.get_depth()}
    result["gen_py"], py_source = timed(emit, model, "python")
    result["gen_py_m2c"], py_m2c = timed(m2cgen.export_to_python, tree)
    result["gen_java"], java_source = timed(emit, model, "java")
    result["gen_java_m2c"], java_m2c = timed(m2cgen.export_to_java, tree)
    result["py"] = python_row_times(py_source, {"predict": dict_rows, "predict_proba": dict_rows,
                                                "predict_values": list_rows, "predict_proba_values": list_rows},
                                    python_passes)
    # m2cgen reads a list only: a caller whose rows are dicts first makes the list, in FEATURES order.
    from_dict = py_m2c + f"\n\nNAMES = {names!r}\n\ndef score_dict(row):\n    return score([row[n] for n in NAMES])\n"
    m2c = python_row_times(from_dict, {"score": list_rows, "score_dict": dict_rows}, python_passes)
    result["py_m2c"], result["py_m2c_dict"] = m2c["score"], m2c["score_dict"]
    result["java"] = java_row_times(java_source, ["TreegenModel.predictProba(row)[0]",
                                                  "TreegenModel.predict(row).length()"], rows, directory, java_seconds)
    result["java_m2c"] = java_row_times(java_m2c, ["Model.score(row)[0]"], rows, directory, java_seconds)[0]
    return result


def _java(value, steady: bool) -> str:
    return value if isinstance(value, str) else f"{value[steady]:.0f} ns"


def table(results: list[dict]) -> str:
    lines = ["| leaves (depth) | generate Python: treegen / m2cgen | generate Java: treegen / m2cgen "
             "| per row, Python: treegen predict / predict_proba (dict) | treegen predict / predict_proba (list) "
             "| m2cgen score (list) / from a dict | per row, Java, first 40 passes: treegen predictProba / m2cgen score "
             "| Java, steady: treegen predictProba / predict / m2cgen score |",
             "|---|---|---|---|---|---|---|---|"]
    for r in results:
        py, proba, label = r["py"], r["java"][0], r["java"][1]
        lines.append(
            f"| {r['leaves']} ({r['depth']}) | {r['gen_py']:.2f} s / {r['gen_py_m2c']:.2f} s "
            f"| {r['gen_java']:.2f} s / {r['gen_java_m2c']:.2f} s "
            f"| {py['predict'] * 1e9:.0f} ns / {py['predict_proba'] * 1e9:.0f} ns "
            f"| {py['predict_values'] * 1e9:.0f} ns / {py['predict_proba_values'] * 1e9:.0f} ns "
            f"| {r['py_m2c'] * 1e9:.0f} ns / {r['py_m2c_dict'] * 1e9:.0f} ns "
            f"| {_java(proba, False)} / {_java(r['java_m2c'], False)} "
            f"| {_java(proba, True)} / {_java(label, True)} / {_java(r['java_m2c'], True)} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leaves", default="1000,10000,50000")
    parser.add_argument("--rows", type=int, default=2000)
    parser.add_argument("--python-passes", type=int, default=10)
    parser.add_argument("--java-seconds", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=1, help="run everything this many times, one row each")
    args = parser.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory() as directory:
        results = [bench(int(n), args.rows, directory, args.python_passes, args.java_seconds)
                   for _ in range(args.repeat) for n in args.leaves.split(",")]
    print(table(results))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
