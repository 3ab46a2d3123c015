"""Generated C for LightGBM models: treegen (through its LightGBM importer) against lleaves, m2cgen,
TL2cgen (treelite) and the floor of one compare a level, for a 1,000-leaf tree and a 500-tree model,
one row a call and over a batch, side by side in one run -- bench_c.py's harness, on LightGBM models.

    python3 bench/bench_c_lightgbm.py [--leaves 1000] [--trees 500] [--depth 8] [--rows 10000]
                                      [--seconds 3] [--repeat 3] [--cc gcc] [--flags "-O2"]

Needs lightgbm, lleaves, m2cgen, treelite, tl2cgen and scikit-learn in one virtual environment
(``python3 -m venv VENV; VENV/bin/pip install lightgbm lleaves m2cgen treelite tl2cgen scikit-learn
numpy jinja2 lark click``), and a C compiler. The models: ``LGBMClassifier(n_estimators=1,
num_leaves=LEAVES, min_child_samples=5)`` on ``make_classification`` (20 features, 2 classes), and
``LGBMClassifier(n_estimators=TREES, max_depth=DEPTH, num_leaves=2**DEPTH - 1, min_child_samples=5)``
on ``make_classification(4000, 8)``, saved as LightGBM's text model; every tool reads that file (m2cgen
the fitted estimator). treegen: ``import_file`` of the file, then ``export --to c``. lleaves:
``Model(model_file).compile(cache=OBJECT)``, whose object file (the machine code LLVM made; "generate"
is its whole compilation) is linked into the same harness and called through its C entry point
``forest_root(row, out, 0, 1)`` (the rows from index 0 to 1 of the block it is given: that row;
row k's answer goes to ``out[k]``) -- the way its documentation gives for calling it from C -- with
its defaults, and again with ``fblocksize`` the number of trees (no cache blocking: its documentation's
advice for single rows). Its own batch path, ``Model.predict(rows, n_jobs=1)`` over all the rows from
Python (one call into its compiled loop), is timed too and given per row, beside LightGBM's
``Booster.predict(rows, num_threads=1)``.

Timing as in bench_c.py (its docstring); "rows agreeing": the numbers each program's calls return
against LightGBM's own (``predict_proba``'s first column for treegen's and m2cgen's probabilities, the
probability of class 1 for TL2cgen's and lleaves', the label index for treegen's predict, the raw
score for the floor of the single tree), bit for bit.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_c import (  # noqa: E402  (the same harness, glue and floor as for scikit-learn's models)
    DOUBLES,
    FLOOR,
    HEADER,
    M2CGEN,
    TL2CGEN,
    TREEGEN_LABEL,
    TREEGEN_PROBA,
    arguments,
    floor_source,
    floor_walk_source,
    report_floor,
    time_all,
    treegen_and_m2cgen,
)
from bench_javascript import best_time, load_average  # noqa: E402

from treegen.importers import import_file  # noqa: E402

LLEAVES = 'void forest_root(double *rows, double *out, int start, int end);\nstatic int F;\n' + DOUBLES + r"""
double bench_call(const void *rows, int i, double *out)
{
    forest_root((double *) rows + (size_t) i * F, out, 0, 1);  /* it writes row k's answer to out[k] */
    return out[0];
}
"""


def trained(leaves: int, trees: int, depth: int) -> dict:
    """The two LightGBM classifiers and their training rows, by label."""
    from lightgbm import LGBMClassifier
    from sklearn.datasets import make_classification
    common = {"min_child_samples": 5, "random_state": 0, "n_jobs": 1, "verbose": -1}
    X, y = make_classification(n_samples=max(20 * leaves, 5000), n_features=20, n_informative=12, random_state=0)
    tree = LGBMClassifier(n_estimators=1, num_leaves=leaves, **common).fit(X, y)
    Xf, yf = make_classification(n_samples=4000, n_features=8, random_state=0)
    forest = LGBMClassifier(n_estimators=trees, max_depth=depth, num_leaves=2 ** depth - 1, **common).fit(Xf, yf)
    grown = tree.booster_.dump_model()["tree_info"][0]["num_leaves"]
    return {f"LightGBM tree, {grown} leaves": (tree, X), f"LightGBM, {trees} trees of depth {depth}": (forest, Xf)}


def tl2cgen_files(path: str, directory: str) -> dict[str, str]:
    """TL2cgen's C files for the LightGBM model file (treelite's LightGBM reader), by name."""
    import tl2cgen
    import treelite
    tl2cgen.generate_c_code(treelite.frontend.load_lightgbm_model(path), dirpath=directory, params={})
    return {name: open(os.path.join(directory, name), encoding="utf-8").read()
            for name in os.listdir(directory) if name.endswith((".c", ".h"))}


def lleaves_object(path: str, directory: str, **options) -> dict[str, bytes]:
    """lleaves' compiled model as an object file to link (its cache file), by name."""
    import lleaves
    os.makedirs(directory, exist_ok=True)
    cache = os.path.join(directory, f"lleaves{len(os.listdir(directory))}.o")
    lleaves.Model(model_file=path).compile(cache=cache, **options)
    with open(cache, "rb") as handle:
        return {"lleaves.o": handle.read()}


def generate(estimator, path: str, repeat: int, directory: str) -> dict:
    """(seconds, files) per tool: the best of ``repeat`` generations."""
    model, found = treegen_and_m2cgen(lambda: import_file(path), estimator, repeat,
                                      "#include <string.h>\n#include <math.h>\n")
    count = iter(range(repeat))
    found["tl2cgen"] = best_time(lambda: tl2cgen_files(path, os.path.join(directory, f"tl{next(count)}")), repeat)
    found["lleaves"] = best_time(lambda: lleaves_object(path, os.path.join(directory, "lleaves")), repeat)
    trees = estimator.booster_.num_trees()
    if trees > 1:
        found["lleaves unblocked"] = best_time(
            lambda: lleaves_object(path, os.path.join(directory, "lleaves"), fblocksize=trees), repeat)
    found["floor"] = (0.0, {"model.c": floor_source(model)})
    found["floor walk"] = (0.0, {"model.c": floor_walk_source(model)})
    return found


def contestants(estimator, rows: np.ndarray, code: dict) -> list:
    """(name, tool, glue, what its calls should return) for each tool."""
    booster = estimator.booster_
    proba0, proba1 = estimator.predict_proba(rows)[:, 0], booster.predict(rows)
    labels = np.searchsorted(estimator.classes_, estimator.predict(rows)).astype(np.float64)
    found = [("treegen predict_proba", "treegen", TREEGEN_PROBA, proba0),
             ("treegen predict", "treegen", TREEGEN_LABEL, labels), ("m2cgen score", "m2cgen", M2CGEN, proba0),
             ("tl2cgen predict", "tl2cgen", TL2CGEN, proba1), ("lleaves forest_root", "lleaves", LLEAVES, proba1)]
    if "lleaves unblocked" in code:
        found.append(("lleaves forest_root, fblocksize=trees", "lleaves unblocked", LLEAVES, proba1))
    raw = booster.predict(rows, raw_score=True) if booster.num_trees() == 1 else None
    found.append(("floor (one compare a level)", "floor", FLOOR, raw))
    found.append(("floor, array walk", "floor walk", FLOOR, raw))
    return found


def python_batches(estimator, path: str, rows: np.ndarray, repeat: int) -> str:
    """lleaves' and LightGBM's own batch predict from Python over all the rows, per row."""
    import lleaves
    compiled = lleaves.Model(model_file=path)
    compiled.compile()
    booster = estimator.booster_
    batch, _ = best_time(lambda: compiled.predict(rows, n_jobs=1), repeat)
    native, _ = best_time(lambda: booster.predict(rows, num_threads=1), repeat)
    same = int(np.sum(compiled.predict(rows, n_jobs=1) == booster.predict(rows)))
    return (f"from Python, all {len(rows)} rows in one call (best of {repeat}), per row: lleaves "
            f"predict(n_jobs=1) {batch / len(rows) * 1e9:.1f} ns ({same}/{len(rows)} equal to LightGBM's), "
            f"LightGBM Booster.predict(num_threads=1) {native / len(rows) * 1e9:.1f} ns")


def main() -> None:
    args, flags = arguments(__doc__)
    with tempfile.TemporaryDirectory(prefix="treegen-bench-c-lightgbm-") as directory:
        for label, (estimator, X) in trained(args.leaves, args.trees, args.depth).items():
            rows = np.ascontiguousarray(X[:args.rows], dtype=np.float64)
            path = os.path.join(directory, "model.txt")
            estimator.booster_.save_model(path)
            start = time.perf_counter()
            code = generate(estimator, path, args.repeat, directory)
            print(f"({label}: every tool's code in {time.perf_counter() - start:.0f} s)")
            times = time_all(label, code, contestants(estimator, rows, code), rows, directory, args, flags)
            report_floor(label, import_file(path), rows, times)
            print(python_batches(estimator, path, rows, args.repeat) + "\n")
            print(HEADER)
    print(f"load average after: {load_average()}")


if __name__ == "__main__":
    main()
