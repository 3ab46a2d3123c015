"""Generated JavaScript, treegen against m2cgen: code generation time, and time per row in Node for a
1,000-leaf tree and a 500-tree forest, one row a call and over a batch.

    python3 bench/bench_javascript.py [--leaves 1000] [--trees 500] [--depth 8] [--rows 10000]
                                      [--seconds 3] [--repeat 3]

Needs scikit-learn and m2cgen (a virtual environment of their own: ``python3 -m venv VENV; VENV/bin/pip
install m2cgen scikit-learn numpy jinja2 lark click``) and Node. Both tools get the same fitted
estimators: ``DecisionTreeClassifier(max_leaf_nodes=LEAVES)`` on ``make_classification`` (20 features, 3
classes) and ``RandomForestClassifier(TREES, max_depth=DEPTH)`` on ``make_classification(4000, 8)``.
"generate" is the best of ``--repeat`` runs: treegen's ``export`` of the imported model (what
bench_codegen.py times for Python and Java), and from the fitted estimator, its scikit-learn import
then ``export``; m2cgen's ``export_to_javascript`` from the estimator (whose recursion over a forest
needs Python's recursion limit raised).

Each module runs in a Node process of its own, on the same rows (the training data, as plain arrays of
numbers: treegen's fast path, m2cgen's only input), for ``--seconds`` per measure:

* batch: passes over the rows, each in a new random order (so that the branch predictor cannot learn
  the sequence), one call a row -- or, for treegen's ``predictProbaRows``, one call a pass over all of
  them; the median of the passes in the second half of the time, per row;
* one row: a single call timed on its own (``process.hrtime.bigint`` around it, less the time of the
  same timing around an empty function), rows in a random order, between calls a pass of unrelated
  work that evicts the caches' recent contents; the median, and the 90th percentile.

treegen's ``predictProba`` is compared with m2cgen's ``score`` (both return the probabilities);
treegen's ``predict`` (the label) is shown beside them. "load" is the time to import the module.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from treegen.importers.sklearn import from_sklearn  # noqa: E402
from treegen.targets import emit  # noqa: E402

BENCH = r"""
import {readFileSync} from "node:fs";
import {pathToFileURL} from "node:url";
const [path, call, rowsPath, seconds] = process.argv.slice(2);
const rows = JSON.parse(readFileSync(rowsPath, "utf8"));
const loadStart = process.hrtime.bigint();
const m = await import(pathToFileURL(path).href);
const load = Number(process.hrtime.bigint() - loadStart) / 1e6;
const f = m[call];
const many = call.endsWith("Rows");  // the rows API: one call a pass; a row alone is a list of one
let seed = 1;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
function shuffle(a) {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
}
let sink = 0;
const use = (r) => { sink += typeof r === "string" ? r.length : r[0]; };
// batch: passes over the rows in a new order each
const passes = [];
const begin = performance.now();
while (passes.length < 5 || performance.now() - begin < seconds * 1000) {
  shuffle(rows);
  const start = process.hrtime.bigint();
  if (many) {
    use(f(rows)[0]);
  } else {
    for (let i = 0; i < rows.length; i++) use(f(rows[i]));
  }
  passes.push(Number(process.hrtime.bigint() - start) / rows.length);
}
const late = passes.slice(Math.floor(passes.length / 2)).sort((a, b) => a - b);
// one row a call, each call timed alone, the caches disturbed between calls
const noise = new Float64Array(1 << 20);
const empty = () => 0;
const timed = [], bare = [];
const end = performance.now() + seconds * 1000;
for (let k = 0; performance.now() < end || k < 1000; k++) {
  const row = rows[Math.floor(random() * rows.length)];
  for (let i = 0; i < noise.length; i += 16) noise[i] += 1;
  let start = process.hrtime.bigint();
  use(many ? f([row])[0] : f(row));
  timed.push(Number(process.hrtime.bigint() - start));
  start = process.hrtime.bigint();
  empty(row);
  bare.push(Number(process.hrtime.bigint() - start));
}
const median = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
const p90 = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length * 0.9)];
const overhead = median(bare);
console.log(JSON.stringify({load, batch: late[Math.floor(late.length / 2)], single: median(timed) - overhead,
  single90: p90(timed) - overhead, passes: passes.length, calls: timed.length, sink}));
"""


def load_average() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def fitted(leaves: int, trees: int, depth: int):
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.tree import DecisionTreeClassifier
    X, y = make_classification(n_samples=max(20 * leaves, 5000), n_features=20, n_informative=12, n_classes=3,
                               random_state=0)
    tree = DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0).fit(X, y)
    Xf, yf = make_classification(n_samples=4000, n_features=8, random_state=0)
    forest = RandomForestClassifier(trees, max_depth=depth, random_state=0, n_jobs=1).fit(Xf, yf)
    return {f"tree, {leaves} leaves": (tree, X), f"forest, {trees} trees of depth {depth}": (forest, Xf)}


def best_time(make, repeat: int) -> tuple[float, str]:
    best, text = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        text = make()
        best = min(best, time.perf_counter() - start)
    return best, text


def generate(estimator, repeat: int) -> dict:
    """Seconds (best of ``repeat``) and text: treegen's export of the imported model, its import and
    export from the estimator, and m2cgen's export from the estimator."""
    import m2cgen
    sys.setrecursionlimit(100_000)  # m2cgen recurses over every tree of a forest
    model = from_sklearn(estimator)
    return {"export": best_time(lambda: emit(model, "javascript"), repeat),
            "treegen": best_time(lambda: emit(from_sklearn(estimator), "javascript"), repeat),
            "m2cgen": best_time(lambda: m2cgen.export_to_javascript(estimator) + "\nexport {score};\n", repeat)}


def measure(directory: str, name: str, source: str, call: str, rows_path: str, seconds: float) -> dict:
    path = os.path.join(directory, name)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    bench = os.path.join(directory, "bench.mjs")
    done = subprocess.run(["node", bench, path, call, rows_path, str(seconds)], capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--leaves", type=int, default=1000)
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    node = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()
    print(f"Node {node}; load average before: {load_average()}")
    print("| model | generate: treegen export, import + export / m2cgen | size: treegen / m2cgen "
          "| load: treegen / m2cgen | batch per row: treegen predictProbaRows / predictProba / predict / m2cgen score "
          "| one row a call (median, 90th pct): treegen predictProba / m2cgen score |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="treegen-bench-js-") as directory:
        with open(os.path.join(directory, "bench.mjs"), "w", encoding="utf-8") as handle:
            handle.write(BENCH)
        for label, (estimator, X) in fitted(args.leaves, args.trees, args.depth).items():
            rows_path = os.path.join(directory, "rows.json")
            with open(rows_path, "w", encoding="utf-8") as handle:
                json.dump(np.asarray(X[:args.rows], dtype=float).tolist(), handle)
            code = generate(estimator, args.repeat)
            ours, theirs = code["treegen"][1], code["m2cgen"][1]
            rows_api = measure(directory, "treegen.mjs", ours, "predictProbaRows", rows_path, args.seconds)
            proba = measure(directory, "treegen.mjs", ours, "predictProba", rows_path, args.seconds)
            label_only = measure(directory, "treegen.mjs", ours, "predict", rows_path, args.seconds)
            m2 = measure(directory, "m2cgen.mjs", theirs, "score", rows_path, args.seconds)
            print(f"| {label} | {code['export'][0]:.3f} s, {code['treegen'][0]:.3f} s / {code['m2cgen'][0]:.3f} s "
                  f"| {len(ours) / 1e6:.1f} MB / {len(theirs) / 1e6:.1f} MB "
                  f"| {proba['load']:.0f} ms / {m2['load']:.0f} ms "
                  f"| {rows_api['batch']:.0f} ns / {proba['batch']:.0f} ns / {label_only['batch']:.0f} ns "
                  f"/ {m2['batch']:.0f} ns "
                  f"| {proba['single']:.0f} ns, {proba['single90']:.0f} ns / {m2['single']:.0f} ns, "
                  f"{m2['single90']:.0f} ns |", flush=True)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
