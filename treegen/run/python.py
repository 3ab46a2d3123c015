"""Run a generated Python module as a program, in a subprocess, for real; and its row API (``predict(row)``
with a dict, :mod:`treegen.run.row_api`) through a driver that imports it."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile

ROW_API = "dict API"  # what verify's lines call the row API
# How the driver gives a row's missing values (treegen.run.row_api.WAYS), as verify's lines say it.
WAYS = {"n": "None", "f": "float('nan')", "a": "absent keys"}
WAY_APIS: dict[str, str] = {}  # the ways answered by another API than ROW_API: none


def run(source: str, csv_text: str, args=(), python: str = sys.executable, timeout: float = 600,
        **_context) -> str:
    """Write the module to a temporary file, run it on ``csv_text``; its standard output. ``_context``
    (the model, engine settings) is what every runner receives; a program needs none of it.

    Raises RuntimeError with the standard error when the program fails."""
    return _run_beside(source, [], csv_text, args, python, timeout)


def run_row_api(source: str, driver_input: str, python: str = sys.executable, timeout: float = 600) -> str:
    """What :data:`DRIVER` prints for the module ``source`` given ``driver_input``
    (:func:`treegen.run.row_api.driver_input`): the answers of its ``predict(row)``, ``predict_proba(row)``
    and ``predict_leaf(row)``, each row a dict as a user's code builds it."""
    return _run_beside(source, [("driver.py", DRIVER)], driver_input, (), python, timeout)


def _run_beside(source: str, scripts: list[tuple[str, str]], stdin_text: str, args, python: str,
                timeout: float) -> str:
    """Write the module as model.py, and ``scripts`` (name, text) beside it; run the first script, else the
    module itself, on ``stdin_text``: its standard output. RuntimeError with the standard error if it fails."""
    with tempfile.TemporaryDirectory(prefix="treegen-python-") as directory:
        paths = []
        for name, text in [("model.py", source), *scripts]:
            paths.append(os.path.join(directory, name))
            with open(paths[-1], "w", encoding="utf-8") as handle:
                handle.write(text)
        done = subprocess.run([python, paths[-1], *args, *paths[:-1]], input=stdin_text.encode("utf-8"),
                              capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"python exited with {done.returncode}: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")


# The module imported by its path (a file given to `verify --program` may have any name); each CSV row a dict
# of feature name -> float or str, its missing values given each way the plan says.
DRIVER = r'''
import csv, importlib.util, io, json, sys

spec = importlib.util.spec_from_file_location("treegen_model_under_test", sys.argv[1])
model = importlib.util.module_from_spec(spec)
spec.loader.exec_module(model)
source = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")
plan = json.loads(source.readline())
proba = model.predict_proba if plan["proba"] else None
leaf = model.predict_leaf if plan["leaf"] else None
reader = csv.reader(source)
names = next(reader)
kinds = [float if number else str for number in plan["numeric"]]
MISSING = {"n": None, "f": float("nan")}


def answer(row):
    try:
        label = model.predict(row)
        return [label if type(label) is str else repr(label), proba and [repr(p) for p in proba(row)],
                leaf and ";".join("|".join(str(n) for n in nodes) for nodes in leaf(row))]
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}


out = []
for record, ways in zip(reader, plan["ways"].split(",")):
    if not ways:  # (a row not asked)
        continue
    given = {name: kind(text) if text else None for name, kind, text in zip(names, kinds, record)}
    if ways == "-":  # (no value missing)
        out.append(answer(given))
        continue
    given = {name: None if v is None or v != v or type(v) is str and v.strip(" ") in ("?", "NA") else v
             for name, v in given.items()}
    for way in ways:
        if way == "a":
            out.append(answer({name: v for name, v in given.items() if v is not None}))
        else:
            out.append(answer({name: MISSING[way] if v is None else v for name, v in given.items()}))
json.dump(out, io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8"))
'''
