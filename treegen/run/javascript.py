"""Run a generated JavaScript module as a program with Node, for real: a process each time
(:func:`run`), or many runs in one Node process (:func:`run_loaded`)."""
from __future__ import annotations

import atexit
import itertools
import json
import os
import shutil
import subprocess
import tempfile

from ..errors import MissingTool
from .kept import KeptProcesses


def file_name(source: str) -> str:
    """The name a module is run under: ``model.cjs`` for the CommonJS build (which starts with
    ``"use strict";``), else ``model.mjs``, so that Node reads each as what it is."""
    return "model.cjs" if source.startswith('"use strict";') else "model.mjs"


def check_node(node: str = "node") -> None:
    """A missing ``node`` is the user's to install: say so, as the C and Java runners say of a
    missing compiler, rather than let subprocess raise an OSError that reads as a failed run."""
    if shutil.which(node) is None:
        raise MissingTool(f"needs Node.js 18+: {node} is not on the PATH (for example: apt-get install nodejs)")


def command(source: str, directory: str, node: str = "node") -> list[str]:
    """Write the module into ``directory``; the command that runs it as a program."""
    path = os.path.join(directory, file_name(source))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    return [node, path]


def run(source: str, csv_text: str, args=(), node: str = "node", timeout: float = 600, **_context) -> str:
    """Run the module with Node on ``csv_text``; its standard output. ``_context`` (the model, engine
    settings) is what every runner receives; a program needs none of it.

    Raises RuntimeError with the standard error when the program fails."""
    check_node(node)
    with tempfile.TemporaryDirectory(prefix="treegen-javascript-") as directory:
        done = subprocess.run(command(source, directory, node) + list(args), input=csv_text.encode("utf-8"),
                              capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"node exited with {done.returncode}: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")


ROW_API = "object API"  # what verify's lines call the row API
# How the driver gives a row's missing values (treegen.run.row_api.WAYS), as verify's lines say it: "u" as a key
# whose value is undefined, which encode() tells from an absent key (the row's own keys); "m" as undefined in a
# Map rather than an object (encode()'s Map branch, get() and has()).
WAYS = {"n": "null", "f": "NaN", "a": "absent keys", "u": "undefined", "m": "undefined"}
WAY_APIS = {"m": "Map API"}  # the ways answered by another API than ROW_API, as verify's lines call it
# The rows API, predictRows(rows) and predictProbaRows(rows), on the rows as objects; its runtime sums the rows of
# a call ROWS_AT_ONCE at a time (combinedRows).
ROWS_API = ("predictRows", "predictProbaRows")
ROWS_AT_ONCE = 1024


def run_row_api(source: str, driver_input: str, node: str = "node", timeout: float = 600) -> str:
    """What :data:`DRIVER` prints for the module ``source`` given ``driver_input``
    (:func:`treegen.run.row_api.driver_input`): the answers of its ``predict(row)``, ``predictProba(row)`` and
    ``predictLeaf(row)``, each row an object (a Map, the rows given so: :data:`WAYS`) as a user's code builds it."""
    check_node(node)
    with tempfile.TemporaryDirectory(prefix="treegen-javascript-") as directory:
        module = command(source, directory, node)[1]
        driver = os.path.join(directory, "driver.mjs")
        with open(driver, "w", encoding="utf-8") as handle:
            handle.write(DRIVER)
        done = subprocess.run([node, driver, module], input=driver_input.encode("utf-8"), capture_output=True,
                              timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"node exited with {done.returncode}: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")


# The module imported by its path (an ES module or a CommonJS build); each CSV row an object of feature name ->
# number or string (a Map, way "m"), its missing values given each way the plan says. Numbers are printed as String() writes
# them, but -0 as "-0.0" (String(-0) is "0").
DRIVER = r"""import {readFileSync, writeSync} from "node:fs";
import {pathToFileURL} from "node:url";

const loaded = await import(pathToFileURL(process.argv[2]).href);
const api = loaded.predict !== undefined ? loaded : loaded.default;
const text = readFileSync(0, "utf8");
const plan = JSON.parse(text.slice(0, text.indexOf("\n")));
const [names, ...records] = csvRecords(text.slice(text.indexOf("\n") + 1));
const MISSING = {n: null, f: NaN, u: undefined, m: undefined};

/** The records of verify's CSV (RFC 4180, lines ending in LF), a field at a time (a character at a time took 8 s
 * over the bench's 60,766 rows). */
function csvRecords(csv) {
  const records = [], field = /(?:"((?:[^"]|"")*)"|([^,\n"]*))(,|\n)/y;
  let record = [];
  while (field.lastIndex < csv.length) {
    const match = field.exec(csv);
    record.push(match[1] !== undefined ? match[1].replaceAll('""', '"') : match[2]);
    if (match[3] === "\n") {
      records.push(record);
      record = [];
    }
  }
  return records;
}

/** A field as a user's code holds it: a number (Python's repr of a double), a string, or null (missing). */
function value(field, numeric) {
  if (["", "?", "NA"].includes(field.replace(/^ +| +$/g, ""))) {  // (spaces only, as treegen's CSV)
    return null;
  }
  if (!numeric) {
    return field;
  }
  const special = {"inf": Infinity, "+inf": Infinity, "-inf": -Infinity, "nan": NaN, "-nan": NaN}[field.toLowerCase()];
  const x = special !== undefined ? special : Number(field);
  return x !== x ? null : x;
}

const shown = (x) => Object.is(x, -0) ? "-0.0" : String(x);

function answer(row) {
  try {
    const label = api.predict(row);
    return [typeof label === "string" ? label : shown(label),
      plan.proba ? Array.from(api.predictProba(row), shown) : null,
      plan.leaf ? api.predictLeaf(row).map((ids) => ids.join("|")).join(";") : null];
  } catch (error) {
    return {error: `${error.name}: ${error.message}`};
  }
}

/** predictRows (and predictProbaRows) of `rows`, `size` rows a call: [label, scores, null] each, or the error of
 * the call that answered it. */
function rowsAnswers(rows, size) {
  const out = [];
  for (let first = 0; first < rows.length; first += size) {
    const some = rows.slice(first, first + size);
    try {
      const labels = api.predictRows(some), scores = plan.proba ? api.predictProbaRows(some) : null;
      some.forEach((_, r) => out.push([typeof labels[r] === "string" ? labels[r] : shown(labels[r]),
        scores === null ? null : Array.from(scores[r], shown), null]));
    } catch (error) {
      some.forEach(() => out.push({error: `${error.name}: ${error.message}`}));
    }
  }
  return out;
}

const out = [], asked = [];  // asked: each row asked, as first given, for the rows API
plan.ways.split(",").forEach((ways, r) => {
  if (ways === "") {  // (a row not asked)
    return;
  }
  const given = names.map((name, i) => [name, value(records[r][i], plan.numeric[i])]);
  for (const way of ways) {
    const entries = way === "a" ? given.filter(([, v]) => v !== null)
      : given.map(([name, v]) => [name, v === null && way !== "-" ? MISSING[way] : v]);
    out.push(answer(way === "m" ? new Map(entries) : Object.fromEntries(entries)));  // (own properties, "__proto__" too)
    if (way === ways[0]) {
      asked.push(Object.fromEntries(entries));
    }
  }
});
const printed = Buffer.from(JSON.stringify(out) + "\n" + JSON.stringify(plan.batches.map((size) => rowsAnswers(asked, size))));
for (let done = 0; done < printed.length;) {
  done += writeSync(1, printed, done);
}
"""


def run_loaded(source: str, csv_text: str, args=(), node: str = "node", **_context) -> str:
    """What :func:`run` prints, the ES module run as the main module of a Node process kept loaded
    for the purpose (:data:`RUNNER`): its standard input, output and error files that it reads and
    writes with the ``fs`` calls it makes as a program of its own. For callers that check what
    programs print, not how Node starts: a run costs its module's load instead of ~0.15 s of CPU. A
    CommonJS build, and a run that throws past the program, run as a process of their own."""
    check_node(node)
    if file_name(source) != "model.mjs":
        return run(source, csv_text, args, node=node)
    answer = _loaded.run(node, source, csv_text, list(args))
    if answer is None:
        return run(source, csv_text, args, node=node)
    status, printed, error = answer
    if status != 0:
        raise RuntimeError(f"node exited with {status}: {error}")
    return printed


class _LoadedNode:
    """One :data:`RUNNER` per node command (:class:`KeptProcesses`); a request is a line of JSON naming
    the run's files in the runner's folder, the reply the exit status."""

    def __init__(self):
        self.runners = KeptProcesses("runner.mjs", RUNNER, lambda node, path: [node, path],
                                     stderr=subprocess.DEVNULL)
        self.runs = itertools.count()

    def run(self, node: str, source: str, csv_text: str, args: list[str]) -> tuple[int, str, str] | None:
        """The exit status, standard output and standard error; None when the runner ended."""
        with self.runners.process(node) as server:
            k = next(self.runs)  # each run a module of its own: Node loads a module once
            folder = self.runners.folders[node]
            paths = {name: os.path.join(folder, f"{k}.{name}") for name in ("mjs", "in", "out", "err")}
            for name, text in (("mjs", source), ("in", csv_text)):
                with open(paths[name], "w", encoding="utf-8") as handle:
                    handle.write(text)
            try:
                server.stdin.write(json.dumps({**paths, "args": args}).encode("utf-8") + b"\n")
                server.stdin.flush()
            except BrokenPipeError:
                return None
            reply = server.stdout.readline()
            if not reply:
                server.wait()
                return None
            texts = []
            for name in ("out", "err"):
                with open(paths[name], "rb") as handle:
                    texts.append(handle.read().decode("utf-8"))
            for path in paths.values():
                os.remove(path)
            return int(reply), *texts


# Node's fs calls on descriptors 0, 1 and 2 go to the run's files: the program reads and writes them
# as it would its standard input, output and error (syncBuiltinESMExports: `import("node:fs")` too).
RUNNER = """import {createRequire, syncBuiltinESMExports} from "node:module";
import {createInterface} from "node:readline";
import {pathToFileURL} from "node:url";

const fs = createRequire(import.meta.url)("node:fs");
const {readSync, writeSync} = fs;
const redirected = [null, null, null];
fs.readSync = (fd, ...rest) => readSync(redirected[fd] ?? fd, ...rest);
fs.writeSync = (fd, ...rest) => writeSync(redirected[fd] ?? fd, ...rest);
syncBuiltinESMExports();
const node = process.argv[0];
for await (const line of createInterface({input: process.stdin})) {
  const run = JSON.parse(line);
  [run.in, run.out, run.err].forEach((path, fd) => { redirected[fd] = fs.openSync(path, fd === 0 ? "r" : "w"); });
  process.argv = [node, run.mjs, ...run.args];
  process.exitCode = undefined;
  await import(pathToFileURL(run.mjs).href);
  while (process.exitCode === undefined) {  // the module runs its program once its imports resolve
    await new Promise(setImmediate);
  }
  redirected.forEach((fd) => fs.closeSync(fd));
  redirected.fill(null);
  writeSync(1, `${process.exitCode}\\n`);
  process.exitCode = undefined;
}
"""
_loaded = _LoadedNode()
atexit.register(_loaded.runners.close)
