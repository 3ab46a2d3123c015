"""The default CatBoost pairs model's SQL (300 oblivious trees of depth 6) with its trees written as oblivious trees
(a leaf index from each level's answer, each distinct split answered once a row) and as nested CASEs, side by side:
DuckDB's CPU to EXPLAIN and to run 1 and 1,000 rows, SQLite's and PostgreSQL's time for 1, 1,000 and 20,000 rows;
each engine's answers (label and probabilities) compared between the two.

    python3 bench/bench_sql_oblivious.py MODEL.json FRAME.csv [--postgres DSN]

MODEL.json: treegen's model file of ``default_model_of_three_categorical_features`` (tests/test_import_catboost.py;
``treegen import`` of its CatBoost JSON), FRAME.csv its training frame. The "nested" run is the dialect's strategies
without "oblivious" (the SQL before branch oblivious).
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


def written(model, dialect: str, oblivious: bool) -> str:
    """The query (with probabilities) in ``dialect``, its oblivious trees written so or as nested CASEs."""
    from treegen.emit.sql import DIALECTS, emit
    d = DIALECTS[dialect]
    strategies = d.strategies if oblivious else tuple(s for s in d.strategies if s != "oblivious")
    DIALECTS[dialect] = dataclasses.replace(d, strategies=strategies)
    try:
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


def main() -> None:
    import pandas as pd

    from treegen.loading import load_model
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("frame")
    parser.add_argument("--postgres", help="a PostgreSQL connection string (default: not measured)")
    args = parser.parse_args()
    model, frame = load_model(args.model), pd.read_csv(args.frame)
    engines = {"duckdb": duckdb_times, "sqlite": sqlite_times}
    if args.postgres:
        engines["postgres"] = lambda sql, frame: postgres_times(sql, frame, args.postgres)
    for dialect, timed in engines.items():
        answers = {}
        for oblivious in (False, True):
            sql = written(model, dialect, oblivious)
            figures, answers[oblivious] = timed(sql, frame)
            kind = "oblivious" if oblivious else "nested"
            print(f"{dialect} {kind} ({len(sql) / 1e6:.2f} MB): " + "; ".join(figures), flush=True)
        print(f"{dialect}: the same answers: {answers[False] == answers[True]}")


if __name__ == "__main__":
    main()
