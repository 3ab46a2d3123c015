"""A binary XGBoost classifier's label: the size of its PostgreSQL --expression and SELECT, and the time of
the generated Python's label-only predict a row.

    python3 bench/bench_xgboost_label.py [--rows 20000] [--repeat 5]

The model: ``XGBClassifier(n_estimators=30, max_depth=3, random_state=0)`` on scikit-learn's breast cancer
data (569 rows, 30 features). Python: ``predict_values`` over ``--rows`` rows (the data repeated), the
module loaded once, best of ``--repeat``; its labels checked against XGBoost's ``predict`` first. Run it
with PYTHONPATH at two checkouts to compare them.
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
    args = parser.parse_args()
    import xgboost
    from sklearn.datasets import load_breast_cancer

    import treegen
    X, y = load_breast_cancer(return_X_y=True)
    classifier = xgboost.XGBClassifier(n_estimators=30, max_depth=3, random_state=0).fit(X, y)
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "model.json")
        classifier.get_booster().save_model(path)
        model = treegen.import_model(path)
    expression = treegen.export(model, "sql", dialect="postgres", expression=True)
    select = treegen.export(model, "sql", dialect="postgres")
    print(f"treegen at {os.path.dirname(treegen.__file__)}")
    print(f"PostgreSQL --expression {len(expression.encode()):,} bytes, SELECT {len(select.encode()):,} bytes")
    namespace: dict = {"__name__": "model"}
    exec(compile(treegen.export(model, "python"), "model.py", "exec"), namespace)
    predict = namespace["predict_values"]
    rows = [[float(v) for v in X[i % len(X)]] for i in range(args.rows)]
    assert [int(predict(r)) for r in rows[:len(X)]] == classifier.predict(X).tolist()
    best = min(_timed(predict, rows) for _ in range(args.repeat))
    print(f"Python predict_values (label only): {best / len(rows) * 1e6:.2f} us a row (best of {args.repeat})")


def _timed(predict, rows) -> float:
    start = time.perf_counter()
    for row in rows:
        predict(row)
    return time.perf_counter() - start


if __name__ == "__main__":
    main()
