"""A binary XGBoost classifier's label, and a binary LightGBM classifier's: the size of its PostgreSQL
--expression and SELECT, and the time of the generated Python's label-only predict a row.

    python3 bench/bench_xgboost_label.py [--rows 20000] [--repeat 5] [--only xgboost|lightgbm]

The models: ``XGBClassifier(n_estimators=30, max_depth=3, random_state=0)`` and ``LGBMClassifier(n_estimators=30,
num_leaves=8, random_state=0)`` on scikit-learn's breast cancer data (569 rows, 30 features). Python:
``predict_values`` over ``--rows`` rows (the data repeated), the module loaded once, best of ``--repeat``; its
labels checked against the library's ``predict`` first. Run it with PYTHONPATH at two checkouts to compare them.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=("xgboost", "lightgbm"))
    args = parser.parse_args()
    from sklearn.datasets import load_breast_cancer

    import treegen
    X, y = load_breast_cancer(return_X_y=True)
    print(f"treegen at {os.path.dirname(treegen.__file__)}")
    for name, fitted in (("xgboost", _xgboost), ("lightgbm", _lightgbm)):
        if args.only in (None, name):
            classifier, model = fitted(X, y)
            _measure(name, model, classifier.predict(X).tolist(), X, args)


def _xgboost(X, y):
    import xgboost

    import treegen
    classifier = xgboost.XGBClassifier(n_estimators=30, max_depth=3, random_state=0).fit(X, y)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.json")
        classifier.get_booster().save_model(path)
        return classifier, treegen.import_model(path)


def _lightgbm(X, y):
    import lightgbm

    import treegen
    classifier = lightgbm.LGBMClassifier(n_estimators=30, num_leaves=8, random_state=0, n_jobs=1, verbose=-1)
    classifier.fit(X, y)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.txt")
        classifier.booster_.save_model(path)
        return classifier, treegen.import_model(path)


def _measure(name: str, model, labels: list, X, args) -> None:
    import treegen
    expression = treegen.export(model, "sql", dialect="postgres", expression=True)
    select = treegen.export(model, "sql", dialect="postgres")
    print(f"{name}: PostgreSQL --expression {len(expression.encode()):,} bytes, SELECT {len(select.encode()):,} bytes")
    namespace: dict = {"__name__": "model"}
    exec(compile(treegen.export(model, "python"), "model.py", "exec"), namespace)
    predict = namespace["predict_values"]
    rows = [[float(v) for v in X[i % len(X)]] for i in range(args.rows)]
    assert [int(predict(r)) for r in rows[:len(X)]] == labels
    best = min(_timed(predict, rows) for _ in range(args.repeat))
    print(f"{name}: Python predict_values (label only): {best / len(rows) * 1e6:.2f} us a row (best of {args.repeat})")


def _timed(predict, rows) -> float:
    start = time.perf_counter()
    for row in rows:
        predict(row)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
