"""Where Spark's time goes on a generated query, phase by phase, in the tests' session (local_spark).

    python3 bench/bench_spark_phases.py [--expression] [--whole-stage true|false] MODEL.json... [FILE.sql...]

For each model (exported with ``--dialect spark``; ``--expression``: as ``SELECT <expression> FROM input``)
or SQL file (a query over ``input``, whose model is the JSON of the same name up to its first dot): its
parse with ANTLR's caches emptied (a query unlike those seen before; with the number of DFA states the
parser learnt) and again (warm), analysis, optimisation, physical planning, the first collect (code
generation, Janino's compilation, the run over 200 random rows) and a second one (the run alone). Each
phase's wall time and the JVM's CPU (from /proc), and the CPU in microseconds a character of SQL. A
column of a number unseen before (``treegen_nonce``) makes every run's text, and code, new to Spark. The
first query's figures include the JVM's warm-up (about 1 s of CPU in its first collect): list a small model first.
"""
import itertools
import os
import sys
import time

import treegen
from treegen.run.sql import local_spark, values
from treegen.targets import emit
from treegen.testing import random_rows, spark_parser_states

NONCE = itertools.count(int(time.time()))


class Jvm:
    def __init__(self, spark):
        self.spark, self.jvm = spark, spark._jvm
        self.pid = self.jvm.java.lang.ProcessHandle.current().pid()

    def cpu(self) -> float:
        fields = open(f"/proc/{self.pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def timed(self, fn):
        cpu, wall = self.cpu(), time.perf_counter()
        result = fn()
        return result, time.perf_counter() - wall, self.cpu() - cpu


def phases(jvm: Jvm, text: str, model) -> dict:
    from pyspark.sql.types import DoubleType, StringType, StructField, StructType
    spark = jvm.spark
    schema = StructType([StructField(f.name, DoubleType() if f.is_numeric else StringType()) for f in model.features])
    spark.createDataFrame(values(model, random_rows(model, 200, seed=1)), schema).createOrReplaceTempView("input")
    text = text.replace("SELECT", f"SELECT {next(NONCE)} AS `treegen_nonce`,", 1)
    parser = spark._jsparkSession.sessionState().sqlParser()
    out = {"DFA states": spark_parser_states(spark, text), "chars": len(text)}
    out["parse cold"] = jvm.timed(lambda: parser.parsePlan(text))[1:]
    out["parse warm"] = jvm.timed(lambda: parser.parsePlan(text))[1:]
    frame, wall, cpu = jvm.timed(lambda: spark.sql(text))  # parse (warm) and analysis
    out["analyse"] = (wall - out["parse warm"][0], cpu - out["parse warm"][1])
    execution = frame._jdf.queryExecution()
    out["optimise"] = jvm.timed(execution.optimizedPlan)[1:]
    out["plan"] = jvm.timed(execution.executedPlan)[1:]
    out["collect 1"] = jvm.timed(frame.collect)[1:]
    out["collect 2"] = jvm.timed(frame.collect)[1:]
    return out


def main(args: list[str]) -> None:
    expression = "--expression" in args
    whole_stage = args[args.index("--whole-stage") + 1] if "--whole-stage" in args else None
    paths = [a for a in args if a.endswith((".json", ".sql"))]
    spark = local_spark("-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")  # as tests/conftest.py
    if whole_stage:
        spark.conf.set("spark.sql.codegen.wholeStage", whole_stage)
    jvm = Jvm(spark)
    for path in paths:
        model = treegen.load(path if path.endswith(".json") else path.split(".")[0] + ".json")
        if path.endswith(".json"):
            text = emit(model, "sql", dialect="spark", expression=expression)
            text = f"SELECT {text} AS `p` FROM `input`" if expression else text
        else:
            text = open(path).read()
        out = phases(jvm, text, model)
        n = out.pop("chars")
        print(f"{path} ({'expression' if expression else 'query'}): {n:,} chars, {out.pop('DFA states'):,} DFA states "
              f"parsed cold, wholeStage {spark.conf.get('spark.sql.codegen.wholeStage')}, load {os.getloadavg()[0]:.1f}")
        for phase, (wall, cpu) in out.items():
            print(f"  {phase:10s} {wall * 1e3:7.0f} ms wall {cpu * 1e3:6.0f} ms CPU {cpu / n * 1e6:6.1f} us/char")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
