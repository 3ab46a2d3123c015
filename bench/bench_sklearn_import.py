"""Bench: a 500-tree scikit-learn random forest through treegen, m2cgen and orbital, side by side.

For each tool: the time to import (read the fitted estimator) and to export code, the time per row
of the generated code (Python called in-process; Java in a JIT-warmed loop; SQL over a DuckDB table),
and how often its predictions differ from scikit-learn's on probe rows (each threshold, its float32
neighbours and the float64 cut between them: where a generator that ignores scikit-learn's float32
cast goes wrong). Tools or targets that are not available are reported as such.

Run:  python3 bench/bench_sklearn_import.py [--trees 500] [--depth 8] [--rows 20000]
"""
from __future__ import annotations

import argparse
import importlib
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from treegen.targets import emit  # noqa: E402
from treegen.importers.sklearn import from_sklearn  # noqa: E402

N_FEATURES = 8


def timed(fn, *args, **kwargs):
    """(result, seconds) of one call."""
    print(f"... {getattr(fn, '__module__', '')}.{fn.__name__}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def attempt(fn, *args, **kwargs):
    """``timed`` or, when the tool fails, (None, the reason)."""
    try:
        return timed(fn, *args, **kwargs)
    except Exception as err:  # a peer's failure is a result to report, not a crash
        return None, f"{type(err).__name__}: {str(err).splitlines()[0][:80]}"


def cost(seconds: float, text: str | None = None) -> str:
    return f"{seconds:.2f} s" + (f", {len(text) / 1e6:.1f} MB of code" if text is not None else "")


def fit_forest(trees: int, depth: int):
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    X, y = make_classification(4000, N_FEATURES, n_informative=5, random_state=0)
    forest = RandomForestClassifier(trees, max_depth=depth, random_state=0, n_jobs=2).fit(X, y)
    forest.set_params(n_jobs=None)  # sklearn adds trees in order: the arithmetic the model reproduces
    return forest, X


def probe_rows(model, count: int, seed: int = 0) -> np.ndarray:
    """Rows whose values sit on thresholds, their float32 neighbours and float64 cuts."""
    rng = np.random.default_rng(seed)
    values = [set() for _ in model.features]
    for tree in model.trees:
        for node in tree.nodes:
            if node.split is not None:
                t = node.split.threshold
                f32 = np.float32(t)
                cut = model.numeric.effective_threshold(t)
                values[node.split.feature].update(
                    (t, cut, math.nextafter(cut, math.inf), float(np.nextafter(f32, np.float32(np.inf))),
                     float(np.nextafter(f32, np.float32(-np.inf)))))
    options = [np.array(sorted(v)) for v in values]
    return np.array([[opts[rng.integers(len(opts))] for opts in options] for _ in range(count)])


def per_row(fn, rows, repeat: int = 3) -> float:
    """Best seconds per row of calling ``fn`` on each row."""
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        for row in rows:
            fn(row)
        best = min(best, (time.perf_counter() - start) / len(rows))
    return best


# -- Python ------------------------------------------------------------------------------------


def load_module(source: str, name: str):
    namespace = {"__name__": name}
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace


def m2cgen_export(forest, language: str):
    """m2cgen's export; at the default recursion limit it fails on big forests, so retry higher."""
    import m2cgen
    export = getattr(m2cgen, f"export_to_{language}")
    source, seconds = attempt(export, forest)
    if source is not None:
        return source, "export", cost(seconds, source)
    first_failure = seconds
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(200_000)
    try:
        source, seconds = attempt(export, forest)
    finally:
        sys.setrecursionlimit(limit)
    if source is None:
        return None, "export", f"fails: {first_failure}"
    return source, "export", f"{cost(seconds, source)} (fails at the default recursion limit: {first_failure})"


def python_rows(forest, model, X, probes, results):
    names = [f.name for f in model.features]
    dict_rows = [dict(zip(names, row)) for row in X.tolist()]
    want = forest.predict(probes).tolist()
    source, seconds = attempt(emit, model, "python")
    if source is None:
        results.append(("treegen python", "export", f"fails: {seconds}"))
    else:
        module = load_module(source, "treegen_forest")
        wrong = sum(str(w) != module["predict"](dict(zip(names, p))) for w, p in zip(want, probes.tolist()))
        results.append(("treegen python", "export", cost(seconds, source)))
        if "predict_proba_values" in module:  # the fast path, a list in FEATURES order as m2cgen takes
            results.append(("treegen python", "per row (predict_proba_values(list))",
                            per_row(module["predict_proba_values"], X.tolist())))
        results.append(("treegen python (dict rows)", "per row (predict_proba(dict))",
                        per_row(module["predict_proba"], dict_rows)))
        results.append(("treegen python", "probe mismatches", f"{wrong} / {len(probes)}"))
    source, measure, outcome = m2cgen_export(forest, "python")
    results.append(("m2cgen python", measure, outcome))
    if source is not None:
        score = load_module(source, "m2cgen_forest")["score"]
        wrong = sum(w != int(np.argmax(score(p))) for w, p in zip(want, probes.tolist()))
        results.append(("m2cgen python", "per row (score(list))", per_row(score, X.tolist())))
        results.append(("m2cgen python", "probe mismatches", f"{wrong} / {len(probes)}"))
    one_row_calls = [row.reshape(1, -1) for row in X[:200]]
    results.append(("scikit-learn", "per row (predict_proba, one row a call)",
                    per_row(forest.predict_proba, one_row_calls, 1)))
    start = time.perf_counter()
    forest.predict_proba(X)
    results.append(("scikit-learn", f"per row (predict_proba, {len(X)} rows a call)",
                    (time.perf_counter() - start) / len(X)))


# -- Java ----------------------------------------------------------------------------------------

# ROW builds one row from the doubles ``v``; CALL is the probability of the second class for ``row``.
JAVA_HARNESS = """
import java.nio.file.*; import java.util.*;
public class Bench {
    public static void main(String[] a) throws Exception {
        List<String> lines = Files.readAllLines(Paths.get(a[0]));
        List<ROWTYPE> rows = new ArrayList<>();
        for (String line : lines) {
            double[] v = Arrays.stream(line.split(",")).mapToDouble(Double::parseDouble).toArray();
            rows.add(ROW);
        }
        double sink = 0; long best = Long.MAX_VALUE;
        for (int round = 0; round < 100; round++) {  // big classes need many rounds to be JIT-compiled
            long start = System.nanoTime();
            for (ROWTYPE row : rows) sink += CALL;
            best = Math.min(best, System.nanoTime() - start);
        }
        System.out.println((double) best / rows.size() + " " + sink);
    }
}
"""
HARNESS_CALLS = {  # tool: (row type, row from v, call)
    "treegen": ("double[]", "v", "TreegenModel.predictProba(row)[1]"),
    "m2cgen": ("double[]", "v", "Model.score(row)[1]"),
}


def java_per_row(tool: str, label: str, source: str, class_name: str, X, results):
    """Compile ``source`` with the harness and time the warmed-up loop."""
    row_type, row, call = HARNESS_CALLS[tool]
    harness = JAVA_HARNESS.replace("ROWTYPE", row_type).replace("ROW", row).replace("CALL", call)
    with tempfile.TemporaryDirectory() as work:
        for name, text in ((class_name + ".java", source), ("Bench.java", harness)):
            with open(os.path.join(work, name), "w", encoding="utf-8") as f:
                f.write(text)
        np.savetxt(os.path.join(work, "rows.csv"), X, delimiter=",", fmt="%.17g")
        start = time.perf_counter()
        compiled = subprocess.run(["javac", "-J-Xss64m", class_name + ".java", "Bench.java"], cwd=work,
                                  capture_output=True, text=True)
        if compiled.returncode != 0:
            results.append((label, "javac", "fails: " + compiled.stderr.strip().splitlines()[0][:80]))
            return
        results.append((label, "javac", f"{time.perf_counter() - start:.1f} s"))
        ran = subprocess.run(["java", "-cp", work, "Bench", os.path.join(work, "rows.csv")],
                             capture_output=True, text=True)
        if ran.returncode != 0:
            results.append((label, "run", "fails: " + ran.stderr.strip().splitlines()[0][:80]))
            return
        results.append((label, "per row (JIT warm)", float(ran.stdout.split()[0]) * 1e-9))


def java_rows(forest, model, X, results, suffix: str = ""):
    ours, theirs = "treegen java" + suffix, "m2cgen java" + suffix
    if importlib.util.find_spec("treegen.emit.java") is None:
        results.append((ours, "export", "not available (no Java back end in this checkout)"))
    else:
        source, seconds = attempt(emit, model, "java")
        results.append((ours, "export", cost(seconds, source) if source else f"fails: {seconds}"))
        if source:
            java_per_row("treegen", ours, source, "TreegenModel", X, results)
    source, measure, outcome = m2cgen_export(forest, "java")
    results.append((theirs, measure, outcome))
    if source is not None:
        java_per_row("m2cgen", theirs, source, "Model", X, results)


# -- SQL (DuckDB) --------------------------------------------------------------------------------


def duckdb_table(X):
    import duckdb
    import pandas as pd
    connection = duckdb.connect()
    connection.register("frame", pd.DataFrame(X, columns=[f"x{i}" for i in range(N_FEATURES)]))
    connection.execute("CREATE TABLE input AS SELECT * FROM frame")
    return connection


def query_costs(sql: str, X) -> tuple[float, float]:
    """Seconds to run ``sql`` over one row (parsing and planning, mostly), and seconds per further row."""
    times = []
    for rows in (X[:1], X):
        connection = duckdb_table(rows)
        best = math.inf
        for _ in range(3):
            start = time.perf_counter()
            connection.execute(sql).fetchall()
            best = min(best, time.perf_counter() - start)
        times.append(best)
    return times[0], (times[1] - times[0]) / (len(X) - 1)


def sql_timings(tool: str, sql: str, X, results) -> None:
    fixed, marginal = query_costs(sql, X)
    results.append((tool, "query over 1 row (DuckDB)", f"{fixed:.2f} s"))
    results.append((tool, f"per further row (DuckDB, {len(X)} rows)", marginal))


def sql_rows(forest, model, X, probes, results):
    small = duckdb_table(probes)
    want = forest.predict(probes).tolist()
    sql, seconds = attempt(emit, model, "sql", dialect="duckdb")
    if sql is None:
        results.append(("treegen sql", "export", f"fails: {seconds}"))
    else:
        results.append(("treegen sql", "export", cost(seconds, sql)))
        sql_timings("treegen sql", sql, X, results)
        got = [row[-1] for row in small.execute(sql).fetchall()]  # the prediction is the last column
        wrong = sum(str(w) != g for w, g in zip(want, got))
        results.append(("treegen sql", "probe mismatches", f"{wrong} / {len(probes)}"))
    try:
        import orbital
        import orbital.types
        from sklearn.pipeline import Pipeline
    except ImportError as err:
        results.append(("orbital sql", "export", f"not available ({err})"))
        return
    features = {f"x{i}": orbital.types.DoubleColumnType() for i in range(N_FEATURES)}
    parsed, seconds = attempt(orbital.parse_pipeline, Pipeline([("forest", forest)]), features=features)
    if parsed is None:
        results.append(("orbital sql", "import", f"fails: {seconds}"))
        return
    results.append(("orbital sql", "import", cost(seconds)))
    sql, seconds = attempt(orbital.export_sql, "input", parsed, dialect="duckdb")
    if sql is None:
        results.append(("orbital sql", "export", f"fails: {seconds}"))
        return
    results.append(("orbital sql", "export", cost(seconds, sql)))
    sql_timings("orbital sql", sql, X, results)
    got = [row[0] for row in small.execute(sql).fetchall()]  # output_label comes first
    results.append(("orbital sql", "probe mismatches", f"{sum(w != g for w, g in zip(want, got))} / {len(probes)}"))


# -- memory --------------------------------------------------------------------------------------

# Each task runs in a fresh process that loads the pickled forest: its peak RSS, less the peak of a
# process that only loads it, is what the task needed.
MEMORY_TASKS = {
    "treegen python": "emit(from_sklearn(forest), 'python')",
    "treegen java": "emit(from_sklearn(forest), 'java')",
    "m2cgen python": "m2cgen.export_to_python(forest)",
    "m2cgen java": "m2cgen.export_to_java(forest)",
    "treegen sql": "emit(from_sklearn(sql_forest), 'sql', dialect='duckdb')",
    "orbital sql": ("orbital.export_sql('input', orbital.parse_pipeline(Pipeline([('f', sql_forest)]), "
                    "features={f'x{i}': orbital.types.DoubleColumnType() for i in range(%d)}), dialect='duckdb')"
                    % N_FEATURES),
}
# VmHWM, not ru_maxrss: Linux carries ru_maxrss over exec, so a child forked from this big process
# would report this process's size.
MEMORY_PRELUDE = """
import re, sys, joblib, m2cgen, orbital, orbital.types
def peak_kib():
    return int(re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1))
from sklearn.pipeline import Pipeline
sys.path.insert(0, {root!r})
from treegen.targets import emit
from treegen.importers.sklearn import from_sklearn
sys.setrecursionlimit(200_000)
forest, sql_forest = joblib.load({path!r})
"""


def peak_memory(forest, sql_forest, results) -> None:
    import joblib
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "forests.joblib")
        joblib.dump((forest, sql_forest), path)
        prelude = MEMORY_PRELUDE.format(root=root, path=path)
        peaks = {}
        for tool, task in {"load only": "pass", **MEMORY_TASKS}.items():
            print(f"... memory: {tool}", file=sys.stderr, flush=True)
            code = prelude + task + "\nprint(peak_kib())\n"
            ran = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            peaks[tool] = int(ran.stdout.split()[-1]) / 1024 if ran.returncode == 0 else None
            if tool == "load only":
                results.append(("(all)", "peak RSS of a process that loads the forests", f"{peaks[tool]:.0f} MiB"))
            else:
                value = ("fails: " + ran.stderr.strip().splitlines()[-1][:80] if peaks[tool] is None
                         else f"+{peaks[tool] - peaks['load only']:.0f} MiB")
                results.append((tool, "peak RSS of import + export, over loading", value))


# -- report --------------------------------------------------------------------------------------


def show(value) -> str:
    if isinstance(value, float):
        return f"{value * 1e6:.2f} µs" if value >= 1e-6 else f"{value * 1e9:.0f} ns"
    return str(value)


def ratios(results) -> list[str]:
    """Per-row time of each peer over treegen's, target by target."""
    per_row = {tool: value for tool, measure, value in results
               if measure.startswith(("per row", "per further row")) and isinstance(value, float)}
    lines = []
    for ours in per_row:
        theirs = ours.replace("treegen", "m2cgen" if "sql" not in ours else "orbital")
        if ours.startswith("treegen") and theirs in per_row:
            lines.append(f"{theirs} / {ours} per row: {per_row[theirs] / per_row[ours]:.2f}x")
    return lines


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--rows", type=int, default=20000, help="rows to draw the timed rows from (Python: the "
                        "first 2,000, Java: 5,000, 100 rounds)")
    parser.add_argument("--sql-rows", type=int, default=200_000, help="rows for the SQL timings")
    parser.add_argument("--probes", type=int, default=5000)
    parser.add_argument("--sql-trees", type=int, default=20,
                        help="trees of the smaller forest for SQL (DuckDB plans treegen's SQL in superlinear time) "
                        "and for a Java comparison that m2cgen's output compiles for")
    args = parser.parse_args(argv)
    forest, X = fit_forest(args.trees, args.depth)
    X = X[np.random.default_rng(1).integers(len(X), size=args.rows)]
    model, seconds = timed(from_sklearn, forest)
    results = [("treegen", "import (from_sklearn)", cost(seconds))]
    probes = probe_rows(model, args.probes)
    python_rows(forest, model, X[:2000], probes, results)
    java_rows(forest, model, X[:5000], results)
    sql_forest, _ = fit_forest(args.sql_trees, args.depth)
    sql_model = from_sklearn(sql_forest)
    java_rows(sql_forest, sql_model, X[:5000], results, suffix=f" ({args.sql_trees} trees)")
    sql_X = X[np.random.default_rng(2).integers(len(X), size=args.sql_rows)]
    sql_rows(sql_forest, sql_model, sql_X, probe_rows(sql_model, args.probes), results)
    peak_memory(forest, sql_forest, results)
    import sklearn
    print(f"scikit-learn {sklearn.__version__}, Python {sys.version.split()[0]}, {N_FEATURES} features; "
          f"RandomForestClassifier max_depth={args.depth}: {args.trees} trees "
          f"({sum(len(t.nodes) for t in model.trees)} nodes) for Python and Java, {args.sql_trees} trees "
          f"({sum(len(t.nodes) for t in sql_model.trees)} nodes) for SQL and a Java run m2cgen compiles")
    print("\n| tool | measure | result |\n|---|---|---|")
    for tool, measure, value in results:
        print(f"| {tool} | {measure} | {show(value)} |")
    print()
    for line in ratios(results):
        print(line)


if __name__ == "__main__":
    main()
