"""`treegen verify`: generate each target, run it for real, compare with the model's own predictions.

Rows come from the user's data (when given) and always from probes: every threshold and one ulp
either side, missing values, an unseen category.
"""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from typing import Callable

from .data import read_table, rows_for_model
from .errors import TreegenError
from .model import Model, is_close
from .probes import probe_rows

SHOWN_MISMATCHES = 3


@dataclass
class Result:
    target: str
    rows: int
    mismatches: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and not self.mismatches

    def line(self) -> str:
        if self.error:
            return f"{self.target:<16} FAILED    {self.error}"
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


def compare(model: Model, rows: list[dict], labels_text: str, proba_text: str | None) -> list[str]:
    """Differences between the model and a program's output, one description per differing row."""
    labels = [r[0] if r else "" for r in csv.reader(io.StringIO(labels_text))]
    if len(labels) != len(rows):
        return [f"expected {len(rows)} output lines, got {len(labels)}"]
    probabilities = list(csv.reader(io.StringIO(proba_text)))[1:] if proba_text is not None else [None] * len(rows)
    problems = []
    for number, (row, label, proba) in enumerate(zip(rows, labels, probabilities), start=1):
        expected = model.predict(row)
        if model.target.is_classification:
            same = label == expected
        else:
            same = is_close(float(label), expected)
        if same and proba is not None:
            same = len(proba) == len(model.target.classes) and all(
                is_close(float(p), q) for p, q in zip(proba, model.scores(row)))
        if not same:
            problems.append(f"row {number} {row}: model {expected!r}, got {label!r}"
                            + (f" {proba}" if proba is not None else ""))
    return problems


def _program_runner(target: str) -> Callable[[Model, str, list[str]], str]:
    from importlib import import_module
    from .emit import emit
    run = import_module(f"treegen.run.{target}").run

    def runner(model: Model, csv_text: str, args: list[str]) -> str:
        source = emit(model, target, proba=model.target.is_classification or None)
        return run(source, csv_text, args)
    return runner


def _sql_runner(dialect: str, dsn: str | None) -> Callable[[Model, str, list[str]], str]:
    from .emit import emit
    from .run.sql import run

    def runner(model: Model, csv_text: str, args: list[str]) -> str:
        sql = emit(model, "sql", dialect=dialect, proba=model.target.is_classification or None)
        return run(sql, csv_text, args, model=model, dialect=dialect, dsn=dsn)
    return runner


def _rules_runner(model: Model, csv_text: str, args: list[str]) -> str:
    """The rule text, parsed back, predicts through the model's own evaluator."""
    from .emit import emit
    from .parse.rules import parse
    again = parse(emit(model, "rules"), "<exported rules>")
    rows = list(csv.DictReader(io.StringIO(csv_text)))
    decoded = [{f.name: (None if r[f.name] == "" else float(r[f.name]) if f.is_numeric else r[f.name])
                for f in again.features} for r in rows]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if "--proba" in args:
        writer.writerow(again.target.classes)
        writer.writerows([[repr(p) for p in again.scores(r)] for r in decoded])
    else:
        writer.writerows([[again.predict(r) if again.target.is_classification else repr(again.predict(r))]
                          for r in decoded])
    return out.getvalue()


def verify(model: Model, data: str | None, targets: list[str], dialects: list[str],
           postgres_dsn: str | None = None, mysql_dsn: str | None = None) -> list[Result]:
    if "sql" in targets and "postgres" in dialects and not postgres_dsn:
        raise TreegenError("--dialect postgres needs a server: pass --postgres-dsn "
                           "(or set TREEGEN_POSTGRES_DSN), e.g. 'host=/tmp port=5432 user=postgres'")
    if "sql" in targets and "mysql" in dialects and not mysql_dsn:
        raise TreegenError("--dialect mysql needs a server: pass --mysql-dsn "
                           "(or set TREEGEN_MYSQL_DSN), e.g. 'host=127.0.0.1 port=3306 user=root database=test'")
    dsns = {"postgres": postgres_dsn, "mysql": mysql_dsn}
    rows = probe_rows(model)
    if data:
        rows += rows_for_model(read_table(data), model)
    csv_text = to_csv(model, rows)
    runners: list[tuple[str, Callable]] = []
    for target in targets:
        if target == "sql":
            runners += [(f"sql/{d}", _sql_runner(d, dsns.get(d))) for d in dialects]
        elif target == "rules":
            runners.append(("rules", _rules_runner))
        elif target in ("python", "java"):
            runners.append((target, _program_runner(target)))
        else:
            raise TreegenError(f"cannot verify target {target!r}; choose from python, java, sql, rules")
    results = []
    for name, runner in runners:
        try:
            labels = runner(model, csv_text, [])
            proba = runner(model, csv_text, ["--proba"]) if model.target.is_classification else None
            results.append(Result(name, len(rows), compare(model, rows, labels, proba)))
        except TreegenError:
            raise
        except Exception as err:  # the target failed to build or run: report it, go on with the rest
            results.append(Result(name, len(rows), error=" ".join(str(err).split())[:300]))
    return results
