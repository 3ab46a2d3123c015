"""The paths a user waits on around the generated code: `treegen predict` and `treegen verify` on a
big CSV, side by side with the obvious peer (a script that reads the CSV with pandas, predicts with the
scikit-learn tree the model came from, and writes CSV).

One scikit-learn tree of at most 4,000 leaves (max_leaf_nodes; it grows 1,360 on these 50,000 rows, where
it separates them) over 10 numeric features, imported into treegen; 50,000 rows of CSV. Each command runs
as its own process (as a user starts it), timed whole, with its peak resident memory (the child's ru_maxrss,
started by a small launcher).

    python3 bench/bench_predict.py                 # predict and verify, 50,000 rows
    python3 bench/bench_predict.py --rows 5000     # smaller, for a smoke run
    python3 bench/bench_predict.py --skip-verify   # predict only
    python3 bench/bench_predict.py --rows 1000000 --skip-verify   # a big file: time and memory at scale
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYTHON = sys.executable

PEER = r"""
import sys
import pandas as pd
import skops.io
model_path, data_path, out_path = sys.argv[1:4]
estimator = skops.io.load(model_path, trusted=skops.io.get_untrusted_types(file=model_path))
frame = pd.read_csv(data_path)
frame["prediction"] = estimator.predict(frame[estimator.feature_names_in_])
frame.to_csv(out_path, index=False)
"""


# A small process starts each command and waits for it: Linux carries ru_maxrss over exec, so a child forked from
# this process (holding the case it made: 526 MB at a million rows) reported this process's size, both tools alike.
LAUNCHER = """
import os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=sys.stderr)
_, status, usage = os.wait4(child.pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status))
"""


def timed(command: list[str], repeat: int) -> tuple[float, float]:
    """(best wall seconds of ``repeat`` runs, the highest peak resident MB) of a child process."""
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        done = subprocess.run([PYTHON, "-c", LAUNCHER, *command], capture_output=True, text=True, cwd=ROOT)
        seconds, megabytes, status = done.stdout.split()
        if status != "0":
            raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr[-4000:]}")
        best, peak = min(best, float(seconds)), max(peak, float(megabytes))
    return best, peak


def make_case(directory: str, rows: int) -> tuple[str, str, str]:
    """A scikit-learn tree of at most 4,000 leaves (.skops), its treegen model (.json) and ``rows`` rows of CSV."""
    import pandas as pd
    import skops.io
    from sklearn.datasets import make_classification
    from sklearn.tree import DecisionTreeClassifier
    X, y = make_classification(n_samples=max(rows, 40_000), n_features=10, n_informative=8, random_state=0)
    columns = [f"f{i}" for i in range(10)]
    frame = pd.DataFrame(X, columns=columns)
    tree = DecisionTreeClassifier(max_leaf_nodes=4000, random_state=0).fit(frame, y)
    skops_path, json_path, csv_path = (os.path.join(directory, name) for name in
                                       ("tree.skops", "tree.json", "data.csv"))
    skops.io.dump(tree, skops_path)
    subprocess.run([PYTHON, "-m", "treegen", "import", skops_path, "-o", json_path], check=True, cwd=ROOT)
    frame.iloc[:rows].assign(label=y[:rows]).to_csv(csv_path, index=False)
    return skops_path, json_path, csv_path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--skip-verify", action="store_true")
    parser.add_argument("--targets", default="python,java,sql,rules")
    parser.add_argument("--dialects", default="sqlite,duckdb")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        skops_path, json_path, csv_path = make_case(directory, args.rows)
        out = os.path.join(directory, "out.csv")
        peer, peer_mb = timed([PYTHON, "-c", PEER, skops_path, csv_path, out], args.repeat)
        ours, ours_mb = timed([PYTHON, "-m", "treegen", "predict", json_path, csv_path, "-o", out], args.repeat)
        leaves = json.load(open(json_path))["trees"][0]["nodes"]
        leaves = sum("split" not in node for node in leaves)
        print(f"predict, {args.rows:,} rows x 10, {leaves:,} leaves (whole process, best of {args.repeat})")
        print(f"  pandas + scikit-learn   {peer:7.2f} s  {peer_mb:7.0f} MB")
        print(f"  treegen predict         {ours:7.2f} s  {ours_mb:7.0f} MB   ratio {ours / peer:.2f}")
        if args.skip_verify:
            return
        command = [PYTHON, "-m", "treegen", "verify", json_path, csv_path, "--to", args.targets,
                   "--dialect", args.dialects]
        seconds, mb = timed(command, 1)
        print(f"verify --to {args.targets} --dialect {args.dialects}: {seconds:.1f} s, {mb:.0f} MB")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
