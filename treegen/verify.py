"""`treegen verify`: generate each target, run it for real, compare with the model's own predictions.

Rows come from the user's data (when given) and always from probes: every threshold and one ulp
either side, missing values, an unseen category (see :func:`treegen.probes.probe_rows` for the cap
on big trees).

The model's answers for all rows are computed once, before any target runs, by :func:`reference`:
each tree walked for all rows at once (:func:`treegen.learn.cart_apply.tree_outputs`), which gives
exactly what :meth:`Model.scores` and :meth:`Model.predict` give.
"""
from __future__ import annotations

import csv
import io
import math
import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .data import parse_csv, read_table, rows_for_model
from .errors import TreegenError
from .model import Model, is_close
from .probes import probe_rows

SHOWN_MISMATCHES = 3
TARGETS = ("python", "java", "sql", "rules")
EXTRAS = {"duckdb": "sql", "psycopg": "sql", "pymysql": "sql", "pyspark": "spark"}  # package -> extra


@dataclass
class Result:
    target: str
    rows: int
    mismatches: list[str] = field(default_factory=list)
    error: str | None = None
    user_error: bool = False  # the user can fix it (a missing package, a name the target refuses)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.mismatches

    @property
    def status(self) -> int:
        """The exit code this result alone calls for: 0 agrees, 1 disagrees or broke, 2 the user's to fix."""
        return 0 if self.ok else 2 if self.user_error else 1

    def line(self) -> str:
        if self.error:
            return f"{self.target:<16} {'ERROR' if self.user_error else 'FAILED':<9} {self.error}"
        if self.ok:
            return f"{self.target:<16} ok        {self.rows} rows agree"
        shown = "; ".join(self.mismatches[:SHOWN_MISMATCHES])
        return f"{self.target:<16} MISMATCH  {len(self.mismatches)} of {self.rows} rows differ: {shown}"


def to_csv(model: Model, rows: list[dict]) -> str:
    """Rows in the program protocol's input format: a header, empty fields for missing values."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([f.name for f in model.features])
    for row in rows:
        writer.writerow(["" if row.get(f.name) is None else (repr(row[f.name]) if f.is_numeric else row[f.name])
                         for f in model.features])
    return out.getvalue()


# -- the model's own answers ---------------------------------------------------------------

def reference(model: Model, rows: list[dict]) -> list[tuple]:
    """(label or value, scores) for each row: what ``model.predict`` and ``model.scores`` return."""
    from .learn.cart_apply import tree_outputs
    columns = [_encoded(f, rows) for f in model.features]
    outputs = [tree_outputs(model, tree, columns, rows.__getitem__).tolist() for tree in model.trees]
    return [model.combined([out[i] for out in outputs]) for i in range(len(rows))]


def _encoded(feature, rows: list[dict]) -> np.ndarray:
    """One feature of the rows as the vectorised walk takes it: floats with NaN for missing, or
    category codes with -1 for missing or unknown."""
    values = [row.get(feature.name) for row in rows]
    if feature.is_numeric:
        return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)
    code = {c: k for k, c in enumerate(feature.categories)}
    return np.array([-1 if v is None or v != v else code.get(str(v), -1) for v in values], dtype=np.float64)


def compare(model: Model, rows: list[dict], labels_text: str, proba_text: str | None,
            expected: list[tuple] | None = None) -> list[str]:
    """Differences between the model and a program's output, one description per differing row.
    ``expected``: the rows' :func:`reference` answers, when already computed."""
    labels = [r[0] if r else "" for r in csv.reader(io.StringIO(labels_text))]
    if len(labels) != len(rows):
        return [f"expected {len(rows)} output lines, got {len(labels)}"]
    probabilities = list(csv.reader(io.StringIO(proba_text)))[1:] if proba_text is not None else [None] * len(rows)
    if expected is None:
        expected = reference(model, rows)
    problems = []
    for number, (row, label, proba, (want, scores)) in enumerate(zip(rows, labels, probabilities, expected), 1):
        if model.target.is_classification:
            same = label == want
        else:
            same = is_close(float(label), want)
        if same and proba is not None:
            same = len(proba) == len(model.target.classes) and all(
                is_close(float(p), q) for p, q in zip(proba, scores))
        if not same:
            problems.append(f"row {number} {row}: model {want!r}, got {label!r}"
                            + (f" {proba}" if proba is not None else ""))
    return problems


# -- the targets -------------------------------------------------------------------------------

Runner = Callable[[Model, str], "tuple[str, str | None]"]  # (labels output, probabilities output or None)


def _both(model: Model, csv_text: str, run_once: Callable[[list[str]], str]) -> tuple[str, str | None]:
    """A program's labels, and its probabilities for a classification model."""
    return run_once([]), (run_once(["--proba"]) if model.target.is_classification else None)


def _program_runner(target: str) -> Runner:
    from importlib import import_module
    from .emit import emit
    run = import_module(f"treegen.run.{target}").run

    def runner(model: Model, csv_text: str) -> tuple[str, str | None]:
        source = emit(model, target, proba=model.target.is_classification or None)
        return _both(model, csv_text, lambda args: run(source, csv_text, args))
    return runner


def _sql_runner(dialect: str, dsn: str | None) -> Runner:
    from .emit import emit
    from .emit.sql_dialects import dialect as find_dialect
    from .run.sql import run

    engine = find_dialect(dialect).runs_on or dialect

    def runner(model: Model, csv_text: str) -> tuple[str, str | None]:
        sql = emit(model, "sql", dialect=dialect, proba=model.target.is_classification or None)
        return _both(model, csv_text, lambda args: run(sql, csv_text, args, model=model, dialect=engine, dsn=dsn))
    return runner


def _rules_runner(model: Model, csv_text: str) -> tuple[str, str | None]:
    """The rule text, parsed back, predicts through the model's own evaluator."""
    from .emit import emit
    from .parse.rules import parse
    again = parse(emit(model, "rules"), "<exported rules>")
    answers = reference(again, rows_for_model(parse_csv(csv_text, "<rows>"), again))
    labels, proba = io.StringIO(), io.StringIO()
    csv.writer(labels, lineterminator="\n").writerows(
        [[label if again.target.is_classification else repr(label)] for label, _ in answers])
    if not again.target.is_classification:
        return labels.getvalue(), None
    writer = csv.writer(proba, lineterminator="\n")
    writer.writerow(again.target.classes)
    writer.writerows([[repr(p) for p in scores] for _, scores in answers])
    return labels.getvalue(), proba.getvalue()


def _runners(targets: list[str], dialects: list[str], dsns: dict) -> list[tuple[str, Runner]]:
    if not targets:
        raise TreegenError(f"--to names no target; choose from {', '.join(TARGETS)}")
    runners: list[tuple[str, Runner]] = []
    for target in targets:
        if target == "sql":
            from .emit.sql_dialects import DIALECTS
            from .run.sql import ENGINES
            if not dialects:
                raise TreegenError("--to sql needs at least one --dialect")
            runnable = [name for name, d in DIALECTS.items() if name in ENGINES or d.runs_on]
            for d in dialects:
                if d not in runnable:
                    raise TreegenError(f"cannot verify --dialect {d!r}; choose from {', '.join(runnable)}")
            runners += [(f"sql/{d}", _sql_runner(d, dsns.get(d))) for d in dialects]
        elif target == "rules":
            runners.append(("rules", _rules_runner))
        elif target in ("python", "java"):
            runners.append((target, _program_runner(target)))
        else:
            raise TreegenError(f"cannot verify target {target!r}; choose from {', '.join(TARGETS)}")
    return runners


def _missing_package(err: BaseException) -> str | None:
    """The hint for a target whose optional package (or JDK) is not installed, or None for another failure.
    The runners may wrap the ImportError (run.sql raises RuntimeError from it): follow the chain."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        package = (err.name or "").split(".")[0] if isinstance(err, ImportError) else ""
        if package in EXTRAS:
            return f"needs the {package} package: pip install 'treegen[{EXTRAS[package]}]'"
        if isinstance(err, FileNotFoundError) and os.path.basename(str(err.filename)) in ("javac", "java"):
            return f"needs a JDK: {err.filename} is not on the PATH (for example: apt-get install default-jdk-headless)"
        err = err.__cause__ or err.__context__
    return None


def verify(model: Model, data: str | None, targets: list[str], dialects: list[str],
           postgres_dsn: str | None = None, mysql_dsn: str | None = None,
           report: Callable[[Result], None] | None = None) -> list[Result]:
    """Check each target; every target gets a result, whatever the others did. ``report`` is called
    with each result as soon as its target is done."""
    if "sql" in targets and "postgres" in dialects and not postgres_dsn:
        raise TreegenError("--dialect postgres needs a server: pass --postgres-dsn "
                           "(or set TREEGEN_POSTGRES_DSN), e.g. 'host=/tmp port=5432 user=postgres'")
    if "sql" in targets and "mysql" in dialects and not mysql_dsn:
        raise TreegenError("--dialect mysql needs a server: pass --mysql-dsn "
                           "(or set TREEGEN_MYSQL_DSN), e.g. 'host=127.0.0.1 port=3306 user=root database=test'")
    runners = _runners(targets, dialects, {"postgres": postgres_dsn, "mysql": mysql_dsn})
    rows = probe_rows(model)
    if data:
        rows += rows_for_model(read_table(data), model)
    csv_text = to_csv(model, rows)
    expected = reference(model, rows)
    results = []
    for name, runner in runners:
        results.append(_check(model, name, runner, rows, csv_text, expected))
        if report is not None:
            report(results[-1])
    return results


def _check(model: Model, name: str, runner: Runner, rows: list[dict], csv_text: str,
           expected: list[tuple]) -> Result:
    try:
        labels, proba = runner(model, csv_text)
        return Result(name, len(rows), compare(model, rows, labels, proba, expected))
    except TreegenError as err:  # the target refuses this model (a name, a dialect's limit)
        return Result(name, len(rows), error=str(err), user_error=True)
    except Exception as err:  # the target failed to build or run: report it, go on with the rest
        hint = _missing_package(err)
        if hint is not None:
            return Result(name, len(rows), error=hint, user_error=True)
        return Result(name, len(rows), error=" ".join(str(err).split())[:300])
