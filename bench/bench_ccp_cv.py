"""CART's ``ccp_alpha="cv"``: how long choosing alpha by 5-fold cross-validation takes, for one or more
checkouts of treegen, side by side on the same data.

    python3 bench/bench_ccp_cv.py [--tree CHECKOUT ...] [--rows 10000,50000,100000] [--repeat 2]

Each fit runs in a fresh subprocess, the checkouts alternated (``--tree``: each checkout's directory;
default this one). Data: ``make_classification`` and ``make_regression`` (bench_fit.py's), 5 features.
Per fit: wall and CPU seconds of the whole ``fit(data, "cart", ccp_alpha="cv")``, the seconds of it spent
scoring held-out rows (``held_out_scores`` less the folds' ``grow``), the chosen alpha and the tree's
node count (the same for every checkout, or the line says so). The fastest (by CPU) of ``--repeat`` fits.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from bench_fit import make

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r"""
import json, sys, time
import numpy as np
from treegen.learn import cart_prune
from treegen.learn import fit

path, kind = sys.argv[1:3]
sys.path.insert(0, sys.argv[3])
from bench_fit import as_dataset
data = as_dataset(np.load(path + ".X.npy"), np.load(path + ".y.npy"), kind)
spent = {"grow": 0.0, "held_out": 0.0, "inside": False}

def timed(name, function):
    def run(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            if name == "held_out" or spent["inside"]:
                spent[name] += time.perf_counter() - start
    return run

held_out, grow = cart_prune.held_out_scores, cart_prune.grow
def scoring(*args, **kwargs):
    spent["inside"] = True
    try:
        return timed("held_out", held_out)(*args, **kwargs)
    finally:
        spent["inside"] = False
cart_prune.held_out_scores, cart_prune.grow = scoring, timed("grow", grow)
start, cpu = time.perf_counter(), time.process_time()
model = fit(data, "cart", ccp_alpha="cv")
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"seconds": seconds, "cpu": cpu, "scoring": spent["held_out"] - spent["grow"],
                  "alpha": model.meta["ccp_alpha"], "nodes": len(model.trees[0].nodes)}))
"""


def run(tree: str, path: str, kind: str) -> dict:
    env = {**os.environ, "PYTHONPATH": tree}
    done = subprocess.run([sys.executable, "-c", CHILD, path, kind, HERE], env=env, capture_output=True,
                          text=True, check=False, cwd=tree)  # python -c puts the working directory first
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", help="a checkout's directory (repeat; default: this one)")
    parser.add_argument("--rows", default="10000,50000,100000", help="comma-separated row counts")
    parser.add_argument("--repeat", type=int, default=1, help="fits per checkout and data set; the fastest counts")
    args = parser.parse_args()
    trees = args.tree or [ROOT]
    print("| data | checkout | fit s (CPU s) | scoring s | alpha | nodes |")
    print("|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as folder:
        for rows in [int(r) for r in args.rows.split(",")]:
            for kind in ("classification", "regression"):
                X, y = make(kind, rows, 5)
                path = os.path.join(folder, "data")
                np.save(path + ".X.npy", X)
                np.save(path + ".y.npy", y)
                runs = [[run(tree, path, kind) for tree in trees] for _ in range(args.repeat)]
                best = [min((r[t] for r in runs), key=lambda r: r["cpu"]) for t in range(len(trees))]
                same = len({(b["alpha"], b["nodes"]) for b in best}) == 1
                for tree, b in zip(trees, best):
                    print(f"| make_{kind} {rows:,} x 5 | {os.path.basename(tree.rstrip('/'))} | "
                          f"{b['seconds']:.2f} ({b['cpu']:.2f}) | {b['scoring']:.2f} | {b['alpha']:.6g} | "
                          f"{b['nodes']}{'' if same else ' (differs)'} |", flush=True)


if __name__ == "__main__":
    main()
