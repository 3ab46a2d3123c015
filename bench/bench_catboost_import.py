"""`treegen import` of a CatBoost model whose CTRs combine two categorical features of many categories, for one
or more source trees side by side (runs alternated), against CatBoost loading and predicting with its own file.

    python3 bench/bench_catboost_import.py --tree before=/tmp/treegen-main --tree after=. [--categories 1000]
                                           [--rows 200000] [--trees 200] [--repeat 1]

The model: CatBoostClassifier(iterations=--trees, depth=6) with CatBoost's other defaults (max_ctr_complexity 4:
CTRs of the pair, with and without float splits) on two categorical features of --categories categories each
and one float feature, the target driven by the pair (a product of the two categories' effects); saved as JSON
with its pool, so the categories are named (trained in a process of its own). Its CTR tables of the pair hold a key for each pair seen in training
(some 180,000 at the defaults). Commands: ``treegen import model.json -o NAME.json`` in a fresh process for each
tree; the peer, a Python process that loads the same JSON with ``CatBoostClassifier().load_model(...,
format="json")`` and predicts 1,000 of the training rows. Wall seconds, user+system CPU seconds and peak resident
memory of each process (``os.wait4``), the least of ``--repeat`` runs; each tree's model file must be the same
bytes. Needs catboost, pandas and numpy.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))

from bench_cli_startup import environment  # noqa: E402  (a checkout's treegen, its bytecode kept)
from bench_model_file import measured, with_trees  # noqa: E402  (one process's wall, CPU, memory)

PEER = """
import sys, pandas
from catboost import CatBoostClassifier
model = CatBoostClassifier().load_model(sys.argv[1], format="json")
model.predict(pandas.read_csv(sys.argv[2], keep_default_na=False))
"""


TRAIN = """
import sys
import numpy as np, pandas as pd
from catboost import CatBoostClassifier
path, categories, rows, trees = sys.argv[1], *map(int, sys.argv[2:])
rng = np.random.default_rng(0)
names = {c: [f"{c}{i}" for i in range(categories)] for c in "AB"}
frame = pd.DataFrame({"x0": rng.normal(size=rows), **{c: rng.choice(v, rows) for c, v in names.items()}})
effect = {c: dict(zip(v, rng.normal(size=categories))) for c, v in names.items()}
signal = frame.x0 + frame.A.map(effect["A"]) * frame.B.map(effect["B"])
model = CatBoostClassifier(iterations=trees, depth=6, verbose=0, random_seed=0, cat_features=list(names))
model.fit(frame, signal > 0)
model.save_model(path, format="json", pool=frame)
frame.iloc[:1000].to_csv("rows.csv", index=False)
"""  # (in a process of its own: a process forked from a big one starts with its pages, and its peak memory with them)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--categories", type=int, default=1000)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--trees", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=1)
    options, trees = with_trees(parser)
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)  # `python -m` puts the current folder first on the path: not a tree measured
        subprocess.run([sys.executable, "-c", TRAIN, "model.json", str(options.categories), str(options.rows),
                        str(options.trees)], check=True)
        with open("peer.py", "w") as f:
            f.write(PEER)
        best: dict[str, tuple[float, float, int]] = {}
        for _ in range(options.repeat):
            for name, path in trees.items():  # alternated, so that a change of load falls on each alike
                result = measured([sys.executable, "-m", "treegen", "import", "model.json", "-o", f"{name}.json"],
                                  environment(path))
                best[name] = min(best.get(name, result), result)
            result = measured([sys.executable, "peer.py", "model.json", "rows.csv"])
            best["catboost"] = min(best.get("catboost", result), result)
        digests = {name: hashlib.sha256(open(f"{name}.json", "rb").read()).hexdigest()[:16] for name in trees}
        print(f"two features of {options.categories} categories, {options.rows} rows, {options.trees} trees; "
              f"model.json {os.path.getsize('model.json') / 1e6:.0f} MB; the model files: "
              + ", ".join(f"{name} {os.path.getsize(f'{name}.json') / 1e6:.0f} MB ({digests[name]})" for name in trees))
        print("| process | wall s | CPU s | peak MB |")
        print("|---|---:|---:|---:|")
        for name, (wall, cpu, peak) in best.items():
            command = "CatBoost: load_model and predict" if name == "catboost" else f"treegen import ({name})"
            print(f"| {command} | {wall:.1f} | {cpu:.1f} | {peak} |")
        if len(set(digests.values())) > 1:
            raise SystemExit("the trees' model files differ")
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
