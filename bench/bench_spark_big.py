"""Big trees in Spark SQL: emit, run over random rows in local mode, compare with the model.

    python3 bench/bench_spark_big.py KIND SIZE [reg] [proba] [leaf] [nested] [fraction]

KIND is ``wide``, ``chain``, ``forest`` (a scikit-learn RandomForestClassifier of SIZE trees of
depth 8 on 10 features, imported) or ``boosted`` (a 3-class GradientBoostingClassifier of SIZE rounds of
depth 4: 3 x SIZE trees); ``reg`` makes the wide tree a regression; ``nested`` writes the tree as
the nested CASE (no array walk) for comparison; ``fraction`` gives every split C4.5's fractional
route, and the rows a missing value in half their features. Prints the SQL size, the query time
(including the first query's warm-up) and the number of rows whose prediction differs from
``model.predict``; then whether Spark compiled the query's whole-stage code (Janino's 64 KB a
method: else Spark logs an error and runs the plan without it), and the query again with that code
and without (``spark.sql.codegen.wholeStage``).
"""
import dataclasses
import sys
import time

from treegen.emit.sql import DIALECTS
from treegen.targets import emit
from treegen.run.sql import local_spark, query
from treegen.testing import chain_model, is_close, random_rows, wide_model, with_fractions


def forest(trees: int):
    from sklearn.datasets import make_classification
    from sklearn.ensemble import RandomForestClassifier

    from treegen import from_sklearn
    x, y = make_classification(3000, 10, random_state=0)
    return from_sklearn(RandomForestClassifier(n_estimators=trees, max_depth=8, random_state=0).fit(x, y))


def boosted(rounds: int):
    from sklearn.datasets import make_classification
    from sklearn.ensemble import GradientBoostingClassifier

    from treegen import from_sklearn
    x, y = make_classification(2000, 10, n_informative=8, n_classes=3, random_state=0)
    return from_sklearn(GradientBoostingClassifier(n_estimators=rounds, max_depth=4, random_state=0).fit(x, y))


def timed(sql, model, rows, spark, setting: str, value: str) -> float:
    """Seconds of the query with Spark's ``setting`` set to ``value``."""
    spark.conf.set(setting, value)
    start = time.perf_counter()
    query(sql, model, rows, "spark", spark=spark)
    return time.perf_counter() - start


def main(kind: str, size: int, options: list[str], n_rows: int = 60) -> None:
    if "nested" in options:
        DIALECTS["spark"] = dataclasses.replace(DIALECTS["spark"], walk_model_nodes=None)
    model = {"wide": lambda: wide_model(size, regression="reg" in options), "chain": lambda: chain_model(size),
             "forest": lambda: forest(size), "boosted": lambda: boosted(size)}[kind]()
    if "fraction" in options:
        model = with_fractions(model)
    start = time.perf_counter()
    sql = emit(model, "sql", dialect="spark", proba="proba" in options, leaf="leaf" in options)
    print(f"emit {time.perf_counter() - start:.2f} s, {len(sql) / 1e6:.2f} MB of SQL", flush=True)
    spark = local_spark()
    spark.sparkContext.setLogLevel("OFF")
    rows = random_rows(model, n_rows, seed=1, missing=0.5 if "fraction" in options else 0.1)
    start = time.perf_counter()
    results = query(sql, model, rows, "spark", spark=spark)
    print(f"query over {n_rows} rows {time.perf_counter() - start:.2f} s", flush=True)
    first = len(model.features)
    same = (lambda a, b: a == b) if model.target.is_classification else is_close
    wrong = sum(not same(result[first], model.predict(row)) for result, row in zip(results, rows))
    print(f"mismatches {wrong} / {n_rows}")
    try:
        timed(sql, model, rows, spark, "spark.sql.codegen.fallback", "false")
        print("whole-stage code compiled")
    except Exception:  # Janino's error, raised with the fallback off
        print("whole-stage code failed to compile: Spark runs the plan without it")
    spark.conf.set("spark.sql.codegen.fallback", "true")
    for whole_stage in ("true", "false"):
        seconds = timed(sql, model, rows, spark, "spark.sql.codegen.wholeStage", whole_stage)
        print(f"again, spark.sql.codegen.wholeStage={whole_stage}: {seconds:.2f} s")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
