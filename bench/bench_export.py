"""Code generation of a big boosted model: treegen's export to every target against m2cgen's, on one
LightGBM model, side by side in one run.

    python3 bench/bench_export.py [--trees 500] [--depth 8] [--repeat 3]

The model: ``LGBMClassifier(n_estimators=TREES, max_depth=DEPTH, num_leaves=2**DEPTH - 1,
min_child_samples=5)`` on ``make_classification(4000, 8)`` (as bench_c_lightgbm.py), saved as
LightGBM's text model. treegen: ``import_file`` of that file (timed), then ``emit`` to each target, in
process, the best of ``--repeat`` after one untimed export (the first export of a process compiles
the Jinja templates). m2cgen: ``export_to_<language>`` of the fitted estimator, once (it takes tens of
seconds a language). CPU time of this process (``time.process_time``); the load average is printed
before and after. Needs lightgbm, m2cgen and scikit-learn.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from treegen.importers import import_file  # noqa: E402
from treegen.targets import emit  # noqa: E402

TARGETS = (("python", {}, "python"), ("java", {}, "java"), ("c", {}, "c"), ("javascript", {}, "javascript"),
           ("sql", {"dialect": "duckdb"}, None), ("rules", {}, None))


def fit_model(trees: int, depth: int):
    import lightgbm as lgb
    from sklearn.datasets import make_classification
    X, y = make_classification(4000, 8, random_state=0)
    return lgb.LGBMClassifier(n_estimators=trees, max_depth=depth, num_leaves=2 ** depth - 1,
                              min_child_samples=5, verbose=-1, random_state=0).fit(X, y)


def cpu(function, *args, **options):
    """(CPU seconds, result) of one call."""
    start = time.process_time()
    result = function(*args, **options)
    return time.process_time() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import m2cgen
    sys.setrecursionlimit(100_000)  # m2cgen's exporters recurse over the trees
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    estimator = fit_model(args.trees, args.depth)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.txt")
        estimator.booster_.save_model(path)
        seconds, model = cpu(import_file, path)
    nodes = sum(len(tree.nodes) for tree in model.trees)
    print(f"\n{len(model.trees)} trees, {nodes} nodes; treegen import_file: {seconds:.2f} s\n")
    print("| target | treegen export | size | m2cgen export | treegen / m2cgen |")
    print("|---|---:|---:|---:|---:|")
    emit(model, "python")  # the templates compiled once, untimed
    for target, options, language in TARGETS:
        best, text = min(cpu(emit, model, target, **options) for _ in range(args.repeat))
        theirs = cpu(getattr(m2cgen, f"export_to_{language}"), estimator)[0] if language else None
        name = target + (f" ({options['dialect']})" if options else "")
        print(f"| {name} | {best:.2f} s | {len(text) / 1e6:.1f} MB | "
              + (f"{theirs:.2f} s | {best / theirs:.2f}x |" if theirs is not None else "no such target | |"))
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
