"""An XGBoost model's categorical codes in SQLite, which has no 4-byte float: the size of the SQLite and MySQL
SQL, the time a row in SQLite, and the rows whose code is read as XGBoost reads it (the input's float32).

    python3 bench/bench_sql_codes.py [--rows 100000] [--repeat 3]

The models: an XGBoost regressor of 8 trees (max_depth 6, partition splits: max_cat_to_onehot 1) on a numeric
feature and a categorical one of 40 integer codes, and the test fixture ``xgboost/categorical-3.2.0.json``. The
rows: every third code given as ``k - 1e-7`` (XGBoost's float32 reads it as k). SQLite added the float32 sums in
double before branch f32sql (now its query rounds each step: exact): a value within 1e-5 of XGBoost's counts as
agreeing, a label as it is; a code read as the double's truncation takes another branch, far from it. Run it in two checkouts to compare them (it imports the treegen beside it).
"""
from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def trained(path: str):
    """The 8-tree regressor, saved to ``path``; its feature types for a DMatrix."""
    import xgboost as xgb
    rng = np.random.default_rng(16)
    x = np.c_[rng.normal(size=800), rng.integers(0, 40, 800).astype(float)]
    y = x[:, 0] + (x[:, 1] % 7) - (x[:, 1] > 30) * 5
    matrix = xgb.DMatrix(x, label=y, feature_types=["q", "c"], enable_categorical=True, feature_names=["x", "c"])
    xgb.train(dict(objective="reg:squarederror", max_depth=6, max_cat_to_onehot=1), matrix, 8).save_model(path)
    return path


def rows_for(model, n: int) -> list[list[float]]:
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 40, n).astype(float)
    codes[::3] -= 1e-7  # float32 rounds these up to the code
    numbers = rng.normal(size=n)
    return [[float(code) if f.codes else float(v) for f in model.features]
            for code, v in zip(codes, numbers)]


def same_answer(model, expected: np.ndarray):
    """For each row in turn, whether the SQL's answer is XGBoost's: a classifier's label (p > 0.5 of a binary
    one's probability, else the highest), a value within 1e-5 (SQLite adds the float32 sums in double)."""
    if not model.target.is_classification:
        return lambda got, e=iter(expected): abs(float(next(e)) - float(got)) <= 1e-5 * max(1.0, abs(float(got)))
    scores = expected.reshape(len(expected), -1)
    labels = iter(model.target.classes[int(p[0] > 0.5) if len(p) == 1 else int(np.argmax(p))] for p in scores)
    return lambda got: got == next(labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import xgboost as xgb

    import treegen
    with tempfile.TemporaryDirectory() as scratch:
        paths = [trained(os.path.join(scratch, "codes.json")),
                 os.path.join(ROOT, "tests", "fixtures", "xgboost", "categorical-3.2.0.json")]
        print("| model | SQLite SQL bytes | MySQL SQL bytes | SQLite us a row | rows as XGBoost |")
        print("|---|---:|---:|---:|---:|")
        for path in paths:
            model = treegen.import_model(path)
            sql = treegen.export(model, "sql", dialect="sqlite", table="t")
            mysql = treegen.export(model, "sql", dialect="mysql", table="t")
            rows = rows_for(model, args.rows)
            booster = xgb.Booster(model_file=path)
            types = ["c" if f.codes else "q" for f in model.features]
            names = [f.name for f in model.features]
            expected = booster.predict(xgb.DMatrix(np.array(rows), feature_types=types, enable_categorical=True,
                                                   feature_names=names))
            con = sqlite3.connect(":memory:")
            con.execute("CREATE TABLE t (" + ", ".join(f'"{name}" REAL' for name in names) + ")")
            con.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(names))})", rows)
            best, got = float("inf"), []
            for _ in range(args.repeat):
                start = time.perf_counter()
                got = [row[-1] for row in con.execute(sql)]  # a label, or a value as its shortest text
                best = min(best, time.perf_counter() - start)
            agree = sum(map(same_answer(model, expected), got))
            print(f"| {os.path.basename(path)} | {len(sql):,} | {len(mysql):,} | {best / len(rows) * 1e6:.1f} | "
                  f"{agree:,} of {len(rows):,} |")


if __name__ == "__main__":
    main()
