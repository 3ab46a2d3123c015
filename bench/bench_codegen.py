"""Code generation and generated code, treegen against m2cgen, on scikit-learn trees of 1k, 10k and 50k
leaves: time to generate Python and Java, and time per row of the generated Python and Java.

    python3 bench/bench_codegen.py [--leaves 1000,10000,50000] [--rows 2000]

Both get the same fitted DecisionTreeClassifier (max_leaf_nodes=N on make_classification); treegen
reads it through its scikit-learn importer. Python is timed in this process: treegen's
``predict_proba(dict)`` (which reads and converts the features on the row's path) and
``predict_proba_values(list)`` against m2cgen's ``score(list)``; Java in one JVM per class, best of
40 passes (the first warm up), both given a ``double[]``. m2cgen's Java fails to compile beyond
about 2,000 leaves ("code too large"): reported as such.
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
        double sink = 0;
        long best = Long.MAX_VALUE;
        for (int round = 0; round < 40; round++) {  // the first rounds warm up the JIT
            long start = System.nanoTime();
            for (double[] row : rows) sink += CALL(row)[0];
            best = Math.min(best, System.nanoTime() - start);
        }
        System.out.println((double) best / rows.size() + " " + sink);
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


def python_row_time(source: str, call: str, rows) -> float:
    """Best of 5 passes over the rows, seconds per row."""
    namespace: dict = {}
    exec(compile(source, "<bench>", "exec"), namespace)
    function = namespace[call]
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for row in rows:
            function(row)
        best = min(best, time.perf_counter() - start)
    return best / len(rows)


def java_row_time(source: str, call: str, rows: np.ndarray, directory: str) -> float | str:
    """Nanoseconds per row, or the compiler's complaint."""
    name = re.search(r"^public\s+(?:final\s+)?class\s+(\w+)", source, re.MULTILINE).group(1)
    work = tempfile.mkdtemp(dir=directory)
    for file_name, text in ((f"{name}.java", source), ("Bench.java", JAVA_BENCH.replace("CALL", call))):
        with open(os.path.join(work, file_name), "w", encoding="utf-8") as handle:
            handle.write(text)
    data = os.path.join(work, "rows.csv")
    with open(data, "w") as handle:
        handle.writelines(",".join(repr(float(v)) for v in row) + "\n" for row in rows)
    done = subprocess.run(["javac", "-d", work, os.path.join(work, f"{name}.java"),
                           os.path.join(work, "Bench.java")], capture_output=True, text=True)
    if done.returncode != 0:
        error = re.search(r"error: (.*)|(java\.lang\.\w+Error)", done.stderr)
        return f"javac: {error.group(1) or error.group(2) if error else done.stderr.strip()[:60]}"
    out = subprocess.run(["java", "-cp", work, "Bench", data], capture_output=True, text=True, check=True)
    return float(out.stdout.split()[0])


def bench(leaves: int, n_rows: int, directory: str) -> dict:
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
    result["row_py"] = python_row_time(py_source, "predict_proba", dict_rows)
    result["row_py_values"] = python_row_time(py_source, "predict_proba_values", list_rows)
    result["row_py_m2c"] = python_row_time(py_m2c, "score", list_rows)
    result["row_java"] = java_row_time(java_source, "TreegenModel.predictProba", rows, directory)
    result["row_java_m2c"] = java_row_time(java_m2c, "Model.score", rows, directory)
    return result


def _ns(value) -> str:
    return f"{value:.0f} ns" if isinstance(value, float) else value


def table(results: list[dict]) -> str:
    lines = ["| leaves (depth) | generate Python: treegen / m2cgen | generate Java: treegen / m2cgen "
             "| per row, Python: treegen dict / list / m2cgen list | per row, Java: treegen / m2cgen |",
             "|---|---|---|---|---|"]
    for r in results:
        lines.append(
            f"| {r['leaves']} ({r['depth']}) | {r['gen_py']:.2f} s / {r['gen_py_m2c']:.2f} s "
            f"| {r['gen_java']:.2f} s / {r['gen_java_m2c']:.2f} s "
            f"| {r['row_py'] * 1e9:.0f} ns / {r['row_py_values'] * 1e9:.0f} ns / {r['row_py_m2c'] * 1e9:.0f} ns "
            f"| {_ns(r['row_java'])} / {_ns(r['row_java_m2c'])} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leaves", default="1000,10000,50000")
    parser.add_argument("--rows", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        results = [bench(int(n), args.rows, directory) for n in args.leaves.split(",")]
    print(table(results))


if __name__ == "__main__":
    main()
