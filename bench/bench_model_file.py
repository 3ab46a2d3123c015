"""A big boosted model through treegen's model file, each command in a fresh process, for one or more
source trees side by side (runs alternated), against LightGBM reading and predicting with its own file.

    python3 bench/bench_model_file.py --tree before=/tmp/treegen-main --tree after=. [--trees 1000]
                                      [--depth 8] [--rows 5000] [--repeat 2]

The model: the test suite's 1,000 complete trees of depth 8 in LightGBM's text format
(``synthetic_model_text`` of tests/test_import_lightgbm.py: 511,000 nodes, missing values of each
kind). Commands: ``treegen import`` of that file to treegen's model file, then ``treegen predict``
of ``--rows`` random rows (a tenth of the values missing) with that file; the peer, a Python process
that reads the same CSV with pandas, loads the text model with ``lightgbm.Booster(model_file=...)``,
predicts and writes the CSV. Wall seconds, user+system CPU seconds and peak resident memory of each
process (``os.wait4``), the least of ``--repeat`` runs; the predictions of every tree's run are compared
with each other and with LightGBM's (its label at probability 0.5). Needs lightgbm, pandas and numpy.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from bench_cli_startup import environment  # noqa: E402  (a checkout's treegen, its bytecode kept)
from test_import_lightgbm import synthetic_model_text  # noqa: E402  (the suite's 1,000-tree model)

PEER = """
import sys, lightgbm, pandas
rows = pandas.read_csv(sys.argv[2])
p = lightgbm.Booster(model_file=sys.argv[1]).predict(rows.to_numpy())
rows["prediction"] = (p > 0.5).astype(int)
rows.to_csv(sys.argv[3], index=False)
"""


def measured(command: list[str], env: dict | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds and peak resident MB of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed: {process.stderr.read().decode()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def with_trees(parser: argparse.ArgumentParser) -> tuple[argparse.Namespace, dict[str, str]]:
    """The options, and the source trees to measure by name (``--tree NAME=PATH``, repeated; default: this
    checkout)."""
    parser.add_argument("--tree", action="append", metavar="NAME=PATH", help="a source tree (repeat); default: this checkout")
    options = parser.parse_args()
    return options, {name: os.path.abspath(path) for name, path in
                     (tree.split("=", 1) for tree in options.tree or [f"here={ROOT}"])}


def labels(path: str) -> list[str]:
    with open(path) as f:
        return [line.rsplit(",", 1)[1].strip() for line in f][1:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", type=int, default=1000)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=2)
    options, trees = with_trees(parser)
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)  # `python -m` puts the current folder first on the path: not a tree measured
        with open("model.txt", "w") as f:
            f.write(synthetic_model_text(options.trees, options.depth))
        rng = np.random.default_rng(0)
        X = rng.normal(size=(options.rows, 10))
        X[rng.random(X.shape) < 0.1] = np.nan
        with open("rows.csv", "w") as f:
            f.write(",".join(f"f{j}" for j in range(10)) + "\n")
            f.writelines(",".join("" if np.isnan(v) else repr(v) for v in row) + "\n" for row in X.tolist())
        with open("peer.py", "w") as f:
            f.write(PEER)
        steps = {name: {"import": [sys.executable, "-m", "treegen", "import", "model.txt", "-o", f"{name}.json"],
                        "predict": [sys.executable, "-m", "treegen", "predict", f"{name}.json", "rows.csv", "-o",
                                    f"{name}.csv"]} for name in trees}
        best: dict[tuple[str, str], tuple[float, float, int]] = {}
        for _ in range(options.repeat):
            for step in ("import", "predict"):
                for name, path in trees.items():  # alternated, so that a change of load falls on each alike
                    result = measured(steps[name][step], environment(path))
                    best[name, step] = min(best.get((name, step), result), result)
            result = measured([sys.executable, "peer.py", "model.txt", "rows.csv", "peer.csv"])
            best["lightgbm", "predict"] = min(best.get(("lightgbm", "predict"), result), result)
        peer = labels("peer.csv")
        print(f"{options.trees} trees of depth {options.depth}, {options.rows} rows; model file MB: "
              + ", ".join(f"{name} {os.path.getsize(f'{name}.json') / 1e6:.1f}" for name in trees))
        print("| step | process | wall s | CPU s | peak MB | predictions as LightGBM's |")
        print("|---|---|---:|---:|---:|---|")
        for (name, step), (wall, cpu, peak) in best.items():
            ours = labels("peer.csv" if name == "lightgbm" else f"{name}.csv")
            same = "" if step == "import" else f"{sum(a == b for a, b in zip(ours, peer))} / {len(peer)}"
            print(f"| {step} | {name} | {wall:.1f} | {cpu:.1f} | {peak} | {same} |")
        for name in trees:
            wall = best[name, "predict"][0] / best["lightgbm", "predict"][0]
            print(f"{name}: treegen predict / LightGBM's script (wall) {wall:.2f}x")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
