"""Big trees in Spark SQL: emit, run over random rows in local mode, compare with the model.

    python3 bench/bench_spark_big.py KIND SIZE [reg] [proba] [leaf] [nested] [fraction]

KIND is ``wide``, ``chain`` or ``forest`` (a scikit-learn RandomForestClassifier of SIZE trees of
depth 8 on 10 features, imported); ``reg`` makes the wide tree a regression; ``nested`` writes the tree as
the nested CASE (no array walk) for comparison; ``fraction`` gives every split C4.5's fractional
route, and the rows a missing value in half their features. Prints the SQL size, the query time
(including the first query's warm-up) and the number of rows whose prediction differs from
``model.predict``.
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


def main(kind: str, size: int, options: list[str], n_rows: int = 60) -> None:
    if "nested" in options:
        DIALECTS["spark"] = dataclasses.replace(DIALECTS["spark"], walk_model_nodes=None)
    model = {"wide": lambda: wide_model(size, regression="reg" in options), "chain": lambda: chain_model(size),
             "forest": lambda: forest(size)}[kind]()
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


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
