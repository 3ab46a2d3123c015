"""treegen's CART against scikit-learn's DecisionTree*, side by side, one data set at a time.

Each fit runs in its own subprocess on the same saved data, so that the peak memory of one fit
(resident set high-water mark, reset just before fitting) does not hide another's. treegen fits
with ``cast="float32"``, the setting that grows scikit-learn's very tree. Each fit reports its
wall time and its CPU time (the process's, so time the fit waited for a core on a busy machine
is not counted); the ratios are treegen's over scikit-learn's.

    python3 bench/bench_fit.py              # the three data sets of bench/README.md
    python3 bench/bench_fit.py --quick      # smaller data, for a smoke run
    python3 bench/bench_fit.py --repeat 3   # the fastest of three fits each (a busy machine)
    python3 bench/bench_fit.py --replay     # treegen with random_state=0 (scikit-learn's tree
                                            # bit for bit, replayed depth first) instead
    python3 bench/bench_fit.py --criterion entropy   # the classification data sets, by entropy
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CASES = {  # name: (generator, rows, features)
    "make_classification 100k x 20": ("classification", 100_000, 20),
    "make_classification 1M x 10": ("classification", 1_000_000, 10),
    "make_regression 100k x 20": ("regression", 100_000, 20),
}

CHILD = r"""
import json, sys, time
import numpy as np

def memory(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    return 0

who, path, kind, criterion = sys.argv[1:5]
X, y = np.load(path + ".X.npy"), np.load(path + ".y.npy")
if who == "sklearn":
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
    make = DecisionTreeRegressor if kind == "regression" else DecisionTreeClassifier
    learner = lambda: make(criterion=criterion, random_state=0).fit(X, y)
    count = lambda fitted: fitted.tree_.node_count
else:
    from treegen.learn.cart import fit
    sys.path.insert(0, sys.argv[5])
    from bench_fit import as_dataset
    data = as_dataset(X, y, kind)
    learner = lambda: (fit(data, criterion, cast="float32") if who == "treegen"
                       else fit(data, criterion, random_state=0))
    count = lambda model: len(model.trees[0].nodes)
before = memory("VmRSS")
with open("/proc/self/clear_refs", "w") as refs:
    refs.write("5")  # reset the resident high-water mark
start, cpu = time.perf_counter(), time.process_time()
fitted = learner()
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"seconds": seconds, "cpu": cpu, "peak": memory("VmHWM") - before, "nodes": count(fitted)}))
"""


def as_dataset(X, y, kind: str):
    """The data :func:`make` made as treegen's ``Dataset`` (run where ``treegen`` is the one measured)."""
    from treegen.data import Dataset
    from treegen.model import Feature, Target
    features = tuple(Feature(f"x{i}", "numeric") for i in range(X.shape[1]))
    columns = [np.ascontiguousarray(X[:, i]) for i in range(X.shape[1])]
    if kind == "regression":
        return Dataset(features, columns, Target("y", "regression"), y.astype(float), np.ones(len(y)))
    return Dataset(features, columns, Target("y", "classification", ("0", "1")), y, np.ones(len(y)))


def make(kind: str, rows: int, features: int):
    from sklearn.datasets import make_classification, make_regression
    if kind == "regression":
        return make_regression(n_samples=rows, n_features=features, noise=10.0, random_state=0)
    return make_classification(n_samples=rows, n_features=features, random_state=0)


def run(who: str, path: str, kind: str, criterion: str) -> dict:
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run([sys.executable, "-c", CHILD, who, path, kind, criterion, HERE], env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return json.loads(done.stdout)


def fastest(repeat: int, path: str, kind: str, ours: str, criterion: str) -> tuple[dict, dict]:
    """Alternate the two learners ``repeat`` times; keep each one's fastest fit (by CPU time)."""
    runs = [(run("sklearn", path, kind, criterion), run(ours, path, kind, criterion)) for _ in range(repeat)]
    return (min((r[0] for r in runs), key=lambda r: r["cpu"]),
            min((r[1] for r in runs), key=lambda r: r["cpu"]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the rows")
    parser.add_argument("--repeat", type=int, default=1,
                        help="fits per learner and data set; the fastest counts")
    parser.add_argument("--replay", action="store_true",
                        help="treegen with random_state=0: scikit-learn's tree replayed bit for bit")
    parser.add_argument("--criterion", choices=("gini", "entropy"), default="gini",
                        help="of the classification data sets (entropy: those alone)")
    args = parser.parse_args()
    print("| data | sklearn fit s (CPU s) | treegen fit s (CPU s) | ratio wall / CPU "
          "| sklearn peak MB | treegen peak MB | ratio | nodes (sklearn / treegen) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as folder:
        for name, (kind, rows, features) in CASES.items():
            if kind == "regression" and args.criterion != "gini":
                continue
            criterion = "squared_error" if kind == "regression" else args.criterion
            rows = rows // 10 if args.quick else rows
            X, y = make(kind, rows, features)
            path = os.path.join(folder, "data")
            np.save(path + ".X.npy", X)
            np.save(path + ".y.npy", y)
            theirs, ours = fastest(args.repeat, path, kind, "replay" if args.replay else "treegen", criterion)
            label = name if not args.quick else f"{name} (/10)"
            label += " random_state=0" if args.replay else ""
            label += f", {criterion}" if criterion == "entropy" else ""
            print(f"| {label} | {theirs['seconds']:.2f} ({theirs['cpu']:.2f}) | "
                  f"{ours['seconds']:.2f} ({ours['cpu']:.2f}) | {ours['seconds'] / theirs['seconds']:.2f} / "
                  f"{ours['cpu'] / theirs['cpu']:.2f} | {theirs['peak'] / 1e6:.0f} | {ours['peak'] / 1e6:.0f} | "
                  f"{ours['peak'] / theirs['peak']:.2f} | {theirs['nodes']} / {ours['nodes']} |", flush=True)


if __name__ == "__main__":
    main()
