"""The default CatBoost pairs model's SQL (300 oblivious trees of depth 6) with its trees written as oblivious trees
(a leaf index from each level's answer, each distinct split answered once a row) and as nested CASEs, side by side:
DuckDB's CPU to EXPLAIN and to run 1 and 1,000 rows, SQLite's and PostgreSQL's time for 1, 1,000 and 20,000 rows;
Spark SQL's wall clock for 1, 1,000 and 20,000 rows (a local[1] session as the tests' and verify's); each engine's
answers (label and probabilities) compared between the two.

    python3 bench/bench_sql_oblivious.py MODEL.json FRAME.csv [--postgres DSN] [--spark] [--expression] [--rounds N]

MODEL.json: treegen's model file of ``default_model_of_three_categorical_features`` (tests/test_import_catboost.py;
``treegen import`` of its CatBoost JSON), FRAME.csv its training frame (or a CatBoost fixture's .expected.json, its rows
repeated). The "nested" run is the dialect's strategies without "oblivious" (the SQL before branch oblivious; Spark's
walks a model of over 500 nodes), the "oblivious" run with it first. ``--expression``: the expression, not the query.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import resource
import sqlite3
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def written(model, dialect: str, oblivious: bool, expression: bool = False) -> str:
    """The query (with probabilities) in ``dialect``, its oblivious trees written so or as nested CASEs (or
    walked); ``expression``: a SELECT of the expression."""
    from treegen.emit.sql import DIALECTS, emit
    d = DIALECTS[dialect]
    others = tuple(s for s in d.strategies if s != "oblivious")
    DIALECTS[dialect] = dataclasses.replace(d, strategies=("oblivious",) * oblivious + others)
    try:
        if expression:
            return f"SELECT {emit(model, dialect, expression=True)} AS p FROM input"
        return emit(model, dialect, proba=True)
    finally:
        DIALECTS[dialect] = d


def duckdb_times(sql: str, frame) -> tuple[list[str], list]:
    import duckdb
    figures, answers = [], None
    for rows in (1, 1000):
        connection = duckdb.connect()
        connection.execute("SET threads=1")
        part = frame.head(rows)  # noqa: F841  (read by name)
        connection.execute("CREATE TABLE input AS SELECT * FROM part")
        start = cpu()
        connection.execute("EXPLAIN " + sql).fetchall()
        explained = cpu() - start
        start = cpu()
        answers = connection.execute(sql).fetchall()
        figures.append(f"{rows} rows: EXPLAIN {explained:.2f} s, run {cpu() - start:.2f} s")
    return figures, answers


def sqlite_times(sql: str, frame) -> tuple[list[str], list]:
    figures, answers = [], None
    for rows in (1, 1000, 20000):
        connection = sqlite3.connect(":memory:")
        frame.head(rows).to_sql("input", connection, index=False)
        start = cpu()
        answers = connection.execute(sql).fetchall()
        figures.append(f"{rows} rows: {cpu() - start:.3f} s")
    return figures, answers


def postgres_times(sql: str, frame, dsn: str) -> tuple[list[str], list]:
    import psycopg
    figures, answers = [], None
    with psycopg.connect(dsn, autocommit=True) as connection:
        for rows in (1, 1000, 20000):
            connection.execute("DROP TABLE IF EXISTS input")
            connection.execute('CREATE TABLE input ("x0" float8, "x1" float8, "A" text, "B" text, "C" text)')
            with connection.cursor().copy("COPY input FROM STDIN") as copy:
                for row in frame.head(rows).itertuples(index=False):
                    copy.write_row(list(row))
            start = time.perf_counter()
            answers = connection.execute(sql).fetchall()
            figures.append(f"{rows} rows: {time.perf_counter() - start:.3f} s wall")
    return figures, answers


def spark_times(sql: str, frame, model) -> tuple[list[str], list]:
    """Wall clock of the query's rows collected (parse, plan, compile, run); the rows a temporary view."""
    from treegen.run.sql import local_spark, values
    spark = local_spark()
    figures, answers = [], None
    for rows in (1, 1000, 20000):
        spark.createDataFrame(values(model, frame.head(rows).to_dict("records")), spark_schema(model)) \
            .createOrReplaceTempView("input")
        start = time.perf_counter()
        answers = [tuple(row) for row in spark.sql(sql).collect()]
        figures.append(f"{rows} rows: {time.perf_counter() - start:.2f} s wall")
    return figures, answers


def spark_schema(model):
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType
    return StructType([StructField(f.name, DoubleType() if f.is_numeric else StringType()) for f in model.features])


def read_frame(path: str):
    """The CSV frame, or a fixture's rows repeated to 20,000."""
    import json

    import pandas as pd
    if not path.endswith(".json"):
        return pd.read_csv(path)
    expected = json.loads(open(path).read())
    rows = pd.DataFrame(expected["rows"], columns=expected["features"])
    return pd.concat([rows] * (20000 // len(rows) + 1), ignore_index=True).head(20000)


def main() -> None:
    from treegen.loading import load_model
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("frame")
    parser.add_argument("--postgres", help="a PostgreSQL connection string (default: not measured)")
    parser.add_argument("--spark", action="store_true", help="Spark SQL only (a local session)")
    parser.add_argument("--expression", action="store_true", help="the expression, not the query")
    parser.add_argument("--rounds", type=int, default=1, help="runs of the two, alternated (Spark's JIT warms up)")
    args = parser.parse_args()
    model = load_model(args.model)
    frame = read_frame(args.frame)
    engines = {"duckdb": duckdb_times, "sqlite": sqlite_times}
    if args.postgres:
        engines["postgres"] = lambda sql, frame: postgres_times(sql, frame, args.postgres)
    if args.spark:
        engines = {"spark": lambda sql, frame: spark_times(sql, frame, model)}
    for dialect, timed in engines.items():
        answers = {}
        for _ in range(args.rounds):
            for oblivious in (False, True):
                sql = written(model, dialect, oblivious, args.expression)
                figures, answers[oblivious] = timed(sql, frame)
                kind = "oblivious" if oblivious else "nested"
                print(f"{dialect} {kind} ({len(sql) / 1e6:.2f} MB): " + "; ".join(figures), flush=True)
        # (as texts: a missing value passed through is NaN, unequal to itself)
        print(f"{dialect}: the same answers: {repr(answers[False]) == repr(answers[True])}")


if __name__ == "__main__":
    main()
