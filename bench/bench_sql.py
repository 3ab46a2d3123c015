"""SQL in DuckDB on 1M rows: treegen's SQL against orbital's SQL for the same scikit-learn
tree, and how long each engine takes to plan treegen's SQL for bigger trees.

    python3 bench/bench_sql.py [--rows 1000000] [--depths 6,10,14]

Scoring time is ``CREATE TABLE ... AS SELECT <label> FROM (<query>)``: the label column alone is
materialised on both sides, since treegen's query also returns every input column and orbital's the
class probabilities, and writing ten extra DOUBLE columns was half of treegen's time at depth 6.
Best of 3, the two queries taking turns (the machine is shared), one DuckDB connection; both queries
are checked to give the same labels first.
"""
from __future__ import annotations

import argparse
import sqlite3
import time

import numpy as np


def best_of_each(repeats: int, *fns) -> list[float]:
    """The best time of each function, run in turns so that a busy spell slows them alike."""
    times = [[] for _ in fns]
    for _ in range(repeats):
        for fn, spent in zip(fns, times):
            start = time.perf_counter()
            fn()
            spent.append(time.perf_counter() - start)
    return [min(spent) for spent in times]


def fitted_tree(depth: int, n_features: int = 10, seed: int = 0):
    import pandas as pd
    from sklearn.pipeline import Pipeline
    from sklearn.tree import DecisionTreeClassifier
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50_000, n_features))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.3 * rng.normal(size=len(X)) > 0).astype(int)
    frame = pd.DataFrame(X, columns=[f"f{i}" for i in range(n_features)])
    return Pipeline([("tree", DecisionTreeClassifier(max_depth=depth, random_state=seed))]).fit(frame, y)


def orbital_sql(pipeline, table: str) -> str:
    import orbital
    import orbital.types
    features = {name: orbital.types.DoubleColumnType() for name in pipeline.feature_names_in_}
    return orbital.export_sql(table, orbital.parse_pipeline(pipeline, features=features), dialect="duckdb")


def compare_with_orbital(rows: int, depths: list[int]) -> list[str]:
    import duckdb
    import pandas as pd
    from treegen.targets import emit
    from treegen.importers.sklearn import from_sklearn
    con = duckdb.connect()
    data = pd.DataFrame(np.random.default_rng(1).normal(size=(rows, 10)), columns=[f"f{i}" for i in range(10)])
    con.execute("CREATE TABLE data AS SELECT * FROM data")
    lines = ["| max_depth | leaves | treegen s | orbital s | orbital / treegen | same labels |",
             "|---:|---:|---:|---:|---:|:---|"]
    for depth in depths:
        pipeline = fitted_tree(depth)
        tree = pipeline.named_steps["tree"]
        ours = emit(from_sklearn(tree, feature_names=list(pipeline.feature_names_in_)), "sql",
                    dialect="duckdb", table="data")
        theirs = orbital_sql(pipeline, "data")
        same = con.execute(f"SELECT count(*) FROM ({ours}) AS a POSITIONAL JOIN ({theirs}) AS b "
                           "WHERE CAST(a.prediction AS BIGINT) <> b.output_label").fetchone()[0] == 0
        t_ours, t_theirs = best_of_each(
            3, lambda: con.execute(f"CREATE OR REPLACE TEMP TABLE r AS SELECT prediction FROM ({ours})"),
            lambda: con.execute(f"CREATE OR REPLACE TEMP TABLE r AS SELECT output_label FROM ({theirs})"))
        lines.append(f"| {depth} | {tree.get_n_leaves()} | {t_ours:.3f} | {t_theirs:.3f} | "
                     f"{t_theirs / t_ours:.2f} | {'yes' if same else 'NO'} |")
        print(lines[-1], flush=True)
    return lines


def planning_times(leaves: list[int]) -> list[str]:
    """Seconds to prepare and run treegen's SQL for a wide tree over 10 rows, per engine."""
    import duckdb
    from treegen.targets import emit
    from treegen.run.sql import create_table
    from treegen.testing import wide_model
    lines = ["| leaves | SQL MB (duckdb) | SQLite s | DuckDB s |", "|---:|---:|---:|---:|"]
    for n in leaves:
        model = wide_model(n)
        cells = []
        for dialect, connect in (("sqlite", lambda: sqlite3.connect(":memory:")), ("duckdb", duckdb.connect)):
            sql = emit(model, "sql", dialect=dialect)
            con = connect()
            con.execute(create_table(model, dialect))
            start = time.perf_counter()
            con.execute(sql).fetchall()
            cells.append((len(sql), time.perf_counter() - start))
        lines.append(f"| {n} | {cells[1][0] / 1e6:.1f} | {cells[0][1]:.2f} | {cells[1][1]:.2f} |")
        print(lines[-1], flush=True)
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--depths", default="6,10,14")
    parser.add_argument("--leaves", default="1000,4000,16000")
    args = parser.parse_args()
    print("\n".join(compare_with_orbital(args.rows, [int(d) for d in args.depths.split(",")])))
    print()
    print("\n".join(planning_times([int(n) for n in args.leaves.split(",")])))


if __name__ == "__main__":
    main()
