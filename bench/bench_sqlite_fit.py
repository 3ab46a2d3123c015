"""SQLite SQL of deep 5-class boosted models, which overflow SQLite's parser stack at the dialect's nesting
and so take the writer's fitting path (:meth:`treegen.emit.sql.writer.Writer.fitted`): CPU seconds to emit.

    python3 bench/bench_sqlite_fit.py [--tree CHECKOUT] [--models DIR] [--out DIR] [--repeat 1]

The models, trained once into ``--models`` (default: a directory in the temporary one; kept there, so
that several checkouts time the same ones): ``LGBMClassifier(n_estimators=40, num_leaves=256, max_depth=-1,
min_child_samples=5)`` and ``GradientBoostingClassifier(n_estimators=20, max_depth=None, max_leaf_nodes=800,
min_samples_leaf=2)``, both on ``make_classification(20000, 20, n_informative=12, n_classes=5)``, saved as treegen
model files. ``--tree``: the checkout whose ``treegen`` writes the SQL (default: this one). Each model is written
as a query with ``proba`` (not as expressions: a softmax inlines every tree's sum hundreds of times, gigabytes);
the best of ``--repeat`` CPU times (``time.process_time``), and whether the ``sqlite3`` module's SQLite (a stock
build) parses the SQL as it is run (prepared in an empty database: a missing table means it parsed). ``--out``:
also write each SQL there (to ``cmp`` two checkouts' SQL). Needs lightgbm and scikit-learn.
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = {"lightgbm5": "LightGBM 5-class", "gbc5": "GradientBoosting 5-class"}


def train(directory: str) -> None:
    """The two models as treegen model files in ``directory`` (each trained only when its file is missing)."""
    from sklearn.datasets import make_classification
    from treegen.importers.lightgbm import from_lightgbm
    from treegen.importers.sklearn import from_sklearn
    from treegen.modelio import save
    X, y = make_classification(20000, 20, n_informative=12, n_redundant=0, n_classes=5, random_state=0)
    for name in MODELS:
        path = os.path.join(directory, f"{name}.json")
        if os.path.exists(path):
            continue
        if name == "lightgbm5":
            import lightgbm as lgb
            estimator = lgb.LGBMClassifier(n_estimators=40, num_leaves=256, max_depth=-1, min_child_samples=5,
                                           verbose=-1, random_state=0).fit(X, y)
            model = from_lightgbm(estimator.booster_)
        else:
            from sklearn.ensemble import GradientBoostingClassifier
            estimator = GradientBoostingClassifier(n_estimators=20, max_depth=None, max_leaf_nodes=800,
                                                   min_samples_leaf=2, random_state=0).fit(X, y)
            model = from_sklearn(estimator)
        save(model, path)


def parses(sql: str, expression: bool) -> bool:
    """Whether SQLite's parser reads the SQL, checked here the same way for every checkout."""
    connection = sqlite3.connect(":memory:")
    try:
        connection.execute(f"SELECT {sql} FROM input" if expression else sql)
    except sqlite3.Error as err:
        return str(err).startswith("no such table")
    finally:
        connection.close()
    return True


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", default=os.path.dirname(HERE))
    parser.add_argument("--models", default=os.path.join(tempfile.gettempdir(), "treegen-bench-sqlite-fit"))
    parser.add_argument("--out")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    sys.path.insert(0, os.path.abspath(args.tree))
    os.makedirs(args.models, exist_ok=True)
    train(args.models)
    from treegen.modelio import load
    from treegen.targets import emit
    print(f"treegen from {args.tree}; load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for name, title in MODELS.items():
        model = load(os.path.join(args.models, f"{name}.json"))
        nodes = sum(len(tree.nodes) for tree in model.trees)
        for expression in (False,):
            best = None
            for _ in range(args.repeat):
                start = time.process_time()
                sql = emit(model, "sql", dialect="sqlite", proba=True, expression=expression)
                seconds = time.process_time() - start
                best = seconds if best is None else min(best, seconds)
            mode = "expression" if expression else "query"
            print(f"{title} ({len(model.trees)} trees, {nodes} nodes), {mode}: {best:.2f} s, "
                  f"{len(sql) / 1e6:.1f} MB, SQLite parses it: {parses(sql, expression)}", flush=True)
            if args.out:
                os.makedirs(args.out, exist_ok=True)
                with open(os.path.join(args.out, f"{name}-{mode}.sql"), "w") as f:
                    f.write(sql)


if __name__ == "__main__":
    main()
