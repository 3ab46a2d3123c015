"""SQL in DuckDB and SQLite: treegen's SQL against orbital's for the same scikit-learn models, and the
time each engine takes to parse and plan treegen's SQL for big trees.

    python3 bench/bench_sql.py [--sections orbital,planning,big,forest,steps,xgboost,codes] [--rows 1000000]
        [--depths 6,10,14] [--leaves 1000,4000,16000] [--big-leaves 50000] [--big-rows 200]
        [--forest-trees 20,500] [--forest-rows 200000] [--forest-repeat 3]
        [--steps-rows 20000] [--steps-repeat 2] [--postgres-dsn DSN] [--mysql-dsn DSN]
        [--xgboost-trees 100,500] [--xgboost-rows 10000] [--codes-rows 256000]

orbital: a single tree. Scoring time is ``CREATE TABLE ... AS SELECT <label> FROM (<query>)``: the
label column alone is materialised on both sides, since treegen's query also returns every input
column and orbital's the class probabilities. Best of 3, the two queries taking turns (the machine
is shared), one DuckDB connection; both queries are checked to give the same labels first.

planning: a balanced tree (``wide_model``) over 10 rows, seconds per engine.

big: ``wide_model(--big-leaves)`` over ``--big-rows`` rows, in SQLite and DuckDB: the whole query,
and the part of it spent before the first row (SQLite: the same query over an empty table, its
statement cache off; DuckDB: parsing alone, and the planner and optimizer from its profiler).

forest: a ``RandomForestClassifier(T, max_depth=8)`` on ``make_classification(4000, 8)`` (as
bench_sklearn_import.py), its SQL in DuckDB over ``--forest-rows`` rows, fetched: seconds over one
row (parsing and planning, mostly), and microseconds per further row; treegen and orbital taking
turns, best of 3. Both answers are checked against scikit-learn's labels.

steps: an ensemble's query with its probabilities (a ``RandomForestClassifier(20, max_depth=8)`` and a
3-class ``GradientBoostingClassifier(20, max_depth=4)`` on ``make_classification``) over
``--steps-rows`` rows in SQLite, and in PostgreSQL and MariaDB when ``--postgres-dsn`` and
``--mysql-dsn`` are given (jit off, as treegen's runner sets it): as emitted, and with each step
merged into the next as the engine would do without the dialect's ``kept_apart`` (the SQL before
it). Best of ``--steps-repeat``, in turns; both checked against scikit-learn's labels.

xgboost: an ``XGBClassifier(T, max_depth=6)`` (binary:logistic) on ``make_classification(--xgboost-rows, 10)``:
the bytes of its SQLite and MySQL query with probabilities, microseconds a row in SQLite (best of
``--steps-repeat``), and the rows whose label and probabilities are XGBoost's own bits. Run it in two checkouts
to compare them (PYTHONPATH names the treegen it imports).

codes: the test fixtures whose features are integer codes (XGBoost's, LightGBM's, HistGradientBoosting's), their
DuckDB query over ``--codes-rows`` rows (one thread, best of 3) where the codes' column is VARCHAR and where it is
DOUBLE (as a frame of codes loads), and the query's bytes: run it in two checkouts to compare them.
"""
from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import time

import numpy as np

sys.setrecursionlimit(100_000)  # orbital's SQL builder recurses along a deep tree
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


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


def orbital_sql(pipeline, table: str, names) -> str:
    import orbital
    import orbital.types
    features = {name: orbital.types.DoubleColumnType() for name in names}
    return orbital.export_sql(table, orbital.parse_pipeline(pipeline, features=features), dialect="duckdb")


def compare_with_orbital(rows: int, depths: list[int]) -> list[str]:
    import duckdb
    import pandas as pd
    from treegen.importers.sklearn import from_sklearn
    from treegen.targets import emit
    con = duckdb.connect()
    con.register("data_frame", pd.DataFrame(np.random.default_rng(1).normal(size=(rows, 10)),
                                            columns=[f"f{i}" for i in range(10)]))
    con.execute("CREATE TABLE data AS SELECT * FROM data_frame")
    lines = ["| max_depth | leaves | treegen s | orbital s | orbital / treegen | same labels |",
             "|---:|---:|---:|---:|---:|:---|"]
    for depth in depths:
        pipeline = fitted_tree(depth)
        tree = pipeline.named_steps["tree"]
        ours = emit(from_sklearn(tree, feature_names=list(pipeline.feature_names_in_)), "sql",
                    dialect="duckdb", table="data")
        theirs = orbital_sql(pipeline, "data", pipeline.feature_names_in_)
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
    from treegen.run.sql import create_table
    from treegen.targets import emit
    from treegen.testing import wide_model
    lines = ["| leaves | SQL MB (duckdb) | SQLite s | DuckDB s |", "|---:|---:|---:|---:|"]
    for n in leaves:
        model = wide_model(n)
        cells = []
        for dialect, connect in (("sqlite", lambda: sqlite3.connect(":memory:", cached_statements=0)),
                                 ("duckdb", duckdb.connect)):
            sql = emit(model, "sql", dialect=dialect)
            con = connect()
            con.execute(create_table(model, dialect))
            start = time.perf_counter()
            con.execute(sql).fetchall()
            cells.append((len(sql), time.perf_counter() - start))
        lines.append(f"| {n} | {cells[1][0] / 1e6:.1f} | {cells[0][1]:.2f} | {cells[1][1]:.2f} |")
        print(lines[-1], flush=True)
    return lines


def big_tree(leaves: int, n_rows: int) -> list[str]:
    """``wide_model(leaves)`` over ``n_rows`` rows in SQLite and DuckDB: the whole query, and what it
    spends before the first row; the answers are checked against the model."""
    import duckdb
    from treegen.run.sql import create_table, insert, values
    from treegen.targets import emit
    from treegen.testing import random_rows, wide_model
    model = wide_model(leaves)
    rows = random_rows(model, n_rows, seed=1)
    want, first = [model.predict(row) for row in rows], len(model.features)
    lines = ["| engine | SQL MB | emit s | query s (all rows) | before the first row | same predictions |",
             "|---|---:|---:|---:|---|:---|"]
    for dialect in ("sqlite", "duckdb"):
        start = time.perf_counter()
        sql = emit(model, "sql", dialect=dialect)
        emitted = time.perf_counter() - start
        tables = []
        for data in ([], rows):
            con = sqlite3.connect(":memory:", cached_statements=0) if dialect == "sqlite" else duckdb.connect()
            con.execute(create_table(model, dialect))
            if data:
                con.executemany(insert(model, dialect), values(model, data))
            tables.append(con)
        if dialect == "sqlite":
            empty, full = best_of_each(1, lambda: tables[0].execute(sql).fetchall(),
                                       lambda: tables[1].execute(sql).fetchall())
            got = tables[1].execute(sql).fetchall()
            before = f"prepare {empty:.2f} s (the query over no row)"
        else:
            before, full, got = _duckdb_phases(tables[1], sql)
        same = [r[first] for r in got] == want
        lines.append(f"| {dialect} | {len(sql) / 1e6:.1f} | {emitted:.2f} | {full:.2f} | {before} | "
                     f"{'yes' if same else 'NO'} |")
        print(lines[-1], flush=True)
    return lines


def _duckdb_phases(con, sql: str):
    """(parse, planner and optimizer seconds as text; the whole query's seconds; its rows)."""
    start = time.perf_counter()
    con.extract_statements(sql)
    parse = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        profile = os.path.join(folder, "profile.json")
        con.execute("PRAGMA enable_profiling='json'")
        con.execute("PRAGMA profiling_mode='detailed'")
        con.execute(f"PRAGMA profiling_output='{profile}'")
        start = time.perf_counter()
        got = con.execute(sql).fetchall()
        full = time.perf_counter() - start
        con.execute("PRAGMA disable_profiling")
        with open(profile) as text:
            phases = json.load(text)
    plan = phases["planner"]["total_time"] + phases["physical_planner"]["total_time"]
    return f"parse {parse:.2f} s, plan {plan:.2f} s, optimize {phases['optimizer']['total_time']:.2f} s", full, got


def forests(tree_counts: list[int], n_rows: int, repeats: int = 3) -> list[str]:
    """Per row in DuckDB: treegen's SQL and orbital's for the same random forest."""
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.pipeline import Pipeline

    from treegen.importers.sklearn import from_sklearn
    from treegen.targets import emit
    X, y = make_classification(4000, 8, n_informative=5, random_state=0)
    data = X[np.random.default_rng(2).integers(len(X), size=n_rows)]
    names = [f"x{i}" for i in range(X.shape[1])]
    lines = ["| trees | treegen: 1 row s | orbital: 1 row s | treegen per further row | orbital per further row | "
             "orbital / treegen | labels as scikit-learn (treegen, orbital) |", "|---:|---:|---:|---:|---:|---:|---|"]
    for trees in tree_counts:
        forest = RandomForestClassifier(trees, max_depth=8, random_state=0, n_jobs=2).fit(X, y)
        forest.set_params(n_jobs=None)
        ours = emit(from_sklearn(forest, feature_names=names), "sql", dialect="duckdb")
        theirs = orbital_sql(Pipeline([("forest", forest)]), "input", names)
        one, many = _duckdb_table(data[:1], names), _duckdb_table(data, names)
        fixed = best_of_each(repeats, lambda: one.execute(ours).fetchall(), lambda: one.execute(theirs).fetchall())
        total = best_of_each(repeats, lambda: many.execute(ours).fetchall(), lambda: many.execute(theirs).fetchall())
        per_row = [(t - f) / (n_rows - 1) * 1e6 for t, f in zip(total, fixed)]
        want = forest.predict(data)
        ours_right = sum(int(row[-1]) == w for row, w in zip(many.execute(ours).fetchall(), want))
        theirs_right = sum(row[0] == w for row, w in zip(many.execute(theirs).fetchall(), want))
        lines.append(f"| {trees} | {fixed[0]:.2f} | {fixed[1]:.2f} | {per_row[0]:.2f} us | {per_row[1]:.2f} us | "
                     f"{per_row[1] / per_row[0]:.2f} | {ours_right} / {n_rows}, {theirs_right} / {n_rows} |")
        print(lines[-1], flush=True)
    return lines


def steps(n_rows: int, repeats: int, dsns: dict) -> list[str]:
    """Seconds for an ensemble's query in SQLite (and PostgreSQL, MariaDB), with its steps kept apart
    and merged."""
    from sklearn.datasets import make_classification
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier

    from treegen.emit.sql import DIALECTS
    from treegen.importers.sklearn import from_sklearn
    from treegen.run.sql import query
    from treegen.targets import emit
    X, y = make_classification(n_rows, 10, n_informative=8, n_classes=3, random_state=0)
    names = [f"x{i}" for i in range(X.shape[1])]
    rows = [dict(zip(names, map(float, row))) for row in X]
    lines = ["| model | engine | rows | kept apart s | merged s | merged / kept apart | labels as scikit-learn |",
             "|---|---|---:|---:|---:|---:|---|"]
    estimators = {"RandomForest(20, depth 8)": RandomForestClassifier(20, max_depth=8, random_state=0),
                  "GradientBoosting(20, depth 4), 3 classes": GradientBoostingClassifier(n_estimators=20, max_depth=4,
                                                                                        random_state=0)}
    for title, estimator in estimators.items():
        model = from_sklearn(estimator.fit(X, y), feature_names=names)
        want = [str(label) for label in estimator.predict(X)]
        for engine in ["sqlite"] + [name for name in ("postgres", "mysql") if dsns.get(name)]:
            sql = emit(model, "sql", dialect=engine, proba=True)
            merged = sql.replace(DIALECTS[engine].kept_apart, "")
            run = lambda text: query(text, model, rows, engine, dsn=dsns.get(engine))
            kept, joined = best_of_each(repeats, lambda: run(sql), lambda: run(merged))
            right = sum(str(row[len(names)]) == w for row, w in zip(run(sql), want))
            lines.append(f"| {title} | {engine} | {n_rows} | {kept:.2f} | {joined:.2f} | {joined / kept:.1f} | "
                         f"{right} / {n_rows} |")
            print(lines[-1], flush=True)
    return lines


def xgboost_models(tree_counts: list[int], n_rows: int, repeats: int) -> list[str]:
    """An XGBoost classifier's SQL: its size, its time a row in SQLite, and the rows that are XGBoost's own."""
    import struct

    import xgboost as xgb
    from sklearn.datasets import make_classification

    from treegen.importers.xgboost import from_xgboost
    from treegen.run.sql import query
    from treegen.targets import emit
    X, y = make_classification(n_rows, 10, n_informative=8, random_state=0)
    X = X.astype(np.float32)
    lines = ["| trees | SQLite bytes | MySQL bytes | SQLite us a row | labels as XGBoost | probabilities as XGBoost |",
             "|---:|---:|---:|---:|---:|---:|"]
    bits = lambda values: [struct.pack("<d", float(v)) for v in values]
    for trees in tree_counts:
        booster = xgb.XGBClassifier(n_estimators=trees, max_depth=6, random_state=0).fit(X, y)
        model = from_xgboost(booster)
        rows = [{f.name: float(v) for f, v in zip(model.features, row)} for row in X]
        sql, mysql = (emit(model, "sql", dialect=d, proba=True) for d in ("sqlite", "mysql"))
        [spent] = best_of_each(repeats, lambda: query(sql, model, rows, "sqlite"))
        got = query(sql, model, rows, "sqlite")
        labels = sum(str(r[len(rows[0])]) == str(w) for r, w in zip(got, booster.predict(X)))
        probabilities = sum(bits(r[-2:]) == bits(p.astype(np.float64)) for r, p in zip(got, booster.predict_proba(X)))
        lines.append(f"| {trees} | {len(sql.encode()):,} | {len(mysql.encode()):,} | {spent / n_rows * 1e6:.0f} | "
                     f"{labels} / {n_rows} | {probabilities} / {n_rows} |")
        print(lines[-1], flush=True)
    return lines


CODED_FIXTURES = ["xgboost/categorical-3.2.0.json", "lightgbm/4.7.0/categorical_codes.txt",
                  "hist_gradient_boosting/multiclass_categorical-1.9.1.skops"]


def coded_features(n_rows: int) -> list[str]:
    """The coded fixtures' DuckDB queries over a column of codes as text and as numbers: CPU seconds, or the error."""
    import random

    import duckdb

    import treegen
    from treegen.targets import emit
    lines = ["| fixture | codes as VARCHAR: CPU s | as DOUBLE: CPU s | query bytes |", "|---|---:|---:|---:|"]
    for path in CODED_FIXTURES:
        model = treegen.load(os.path.join(ROOT, "tests", "fixtures", path))
        sql = emit(model, "sql", dialect="duckdb", table="t")
        spent = [coded_query_time(model, sql, kind, n_rows, random.Random(0), duckdb) for kind in ("VARCHAR", "DOUBLE")]
        lines.append(f"| {path} | {spent[0]} | {spent[1]} | {len(sql.encode()):,} |")
        print(lines[-1], flush=True)
    return lines


def coded_query_time(model, sql: str, kind: str, n_rows: int, rng, duckdb) -> str:
    """The query's CPU seconds over ``n_rows`` random rows (codes one past the categories too), the codes' column
    of SQL type ``kind``; its error's first words where DuckDB refuses it."""
    connection = duckdb.connect()
    connection.execute("SET threads = 1")
    columns = ", ".join(f'"{f.name}" ' + (kind if f.codes is not None else "DOUBLE" if f.is_numeric else "VARCHAR")
                        for f in model.features)
    connection.execute(f"CREATE TABLE t ({columns})")
    code = (lambda c: str(c)) if kind == "VARCHAR" else float
    rows = [tuple(code(rng.randrange(len(f.categories) + 2)) if f.codes is not None else rng.gauss(0, 2)
                  if f.is_numeric else rng.choice(f.categories) for f in model.features) for _ in range(2000)]
    connection.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(model.features))})", rows)
    while connection.execute("SELECT count(*) FROM t").fetchone()[0] < n_rows:
        connection.execute("INSERT INTO t SELECT * FROM t")
    try:
        times = []
        for _ in range(3):
            start = time.process_time()
            connection.execute(f"SELECT count(*), sum(hash(prediction)) FROM ({sql})").fetchall()
            times.append(time.process_time() - start)
        return f"{min(times):.3f}"
    except duckdb.Error as error:
        return str(error).split(":")[0]


def _duckdb_table(X, names):
    import duckdb
    import pandas as pd
    connection = duckdb.connect()
    connection.register("frame", pd.DataFrame(X, columns=names))
    connection.execute("CREATE TABLE input AS SELECT * FROM frame")
    return connection


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default="orbital,planning,big,forest")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--depths", default="6,10,14")
    parser.add_argument("--leaves", default="1000,4000,16000")
    parser.add_argument("--big-leaves", type=int, default=50_000)
    parser.add_argument("--big-rows", type=int, default=200)
    parser.add_argument("--forest-trees", default="20,500")
    parser.add_argument("--forest-rows", type=int, default=200_000)
    parser.add_argument("--forest-repeat", type=int, default=3, help="runs of each forest query (the best counts)")
    parser.add_argument("--steps-rows", type=int, default=20_000)
    parser.add_argument("--steps-repeat", type=int, default=2)
    parser.add_argument("--postgres-dsn", help="steps: a PostgreSQL server to run them on too")
    parser.add_argument("--mysql-dsn", help="steps: a MariaDB or MySQL server (treegen.run.sql's key=value form)")
    parser.add_argument("--xgboost-trees", default="100,500")
    parser.add_argument("--xgboost-rows", type=int, default=10_000)
    parser.add_argument("--codes-rows", type=int, default=256_000)
    args = parser.parse_args()
    numbers = lambda text: [int(n) for n in text.split(",")]
    sections = {"orbital": lambda: compare_with_orbital(args.rows, numbers(args.depths)),
                "planning": lambda: planning_times(numbers(args.leaves)),
                "big": lambda: big_tree(args.big_leaves, args.big_rows),
                "forest": lambda: forests(numbers(args.forest_trees), args.forest_rows, args.forest_repeat),
                "steps": lambda: steps(args.steps_rows, args.steps_repeat,
                                       {"postgres": args.postgres_dsn, "mysql": args.mysql_dsn}),
                "xgboost": lambda: xgboost_models(numbers(args.xgboost_trees), args.xgboost_rows, args.steps_repeat),
                "codes": lambda: coded_features(args.codes_rows)}
    for name in args.sections.split(","):
        print("\n".join(sections[name]()))
        print()


if __name__ == "__main__":
    main()
