"""`treegen verify`: generate each target, run it for real, compare with the model's own predictions.

Rows come from the user's data (when given) and always from probes: every threshold and one ulp
either side, missing values, an unseen category (see :func:`treegen.probes.probe_rows` for the cap
on big trees), each as the CSV the targets read carries it (:func:`as_csv_reads`). Every number a
target prints must read back as the model's own double, bit for bit; so must a library's own predict
(``--against``), but where its importer declares that the library's arithmetic cannot be reproduced
exactly (:meth:`treegen.importers.Importer.tolerance`): the rows that agree only within that
tolerance are counted in the library's line.

The model's answers for all rows are computed once, before any target runs, by
:func:`treegen.walk.predict_rows`: each tree walked for all rows at once, which gives exactly what
:meth:`Model.scores` and :meth:`Model.predict` give. The targets and their runners come from
:mod:`treegen.targets`.
"""
from __future__ import annotations

import csv
import functools
import importlib.util
import io
import itertools
import math
import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator, Sequence

from .data import ROWS_A_PART, csv_text, read_tables, reads_as_missing, rows_for_model
from .table import Table
from .emit.sql.dialects import find_dialect
from .errors import BadArgument, MissingTool, TreegenError, counted, did_you_mean, with_article
from .importers import Refused
from .model import Model, Tolerance
from .packages import package_hint
from .probes import probe_rows
from .run.row_api import AS_IS, answers, batches, driver_input, rows_answers, ways
from .run.sql import ENGINES, engine_for, is_query, read_csv, server_for
from .targets import RUNNABLE, TARGETS, Option, Target, emit, target_of_file, unknown_target
from .walk import leaf_ids_rows, predict_rows

SHOWN_MISMATCHES = 3
PARALLEL = 2  # targets checked at once


@dataclass
class Result:
    target: str
    rows: "Rows"
    mismatches: list[str] = field(default_factory=list)
    error: str | None = None
    user_error: bool = False  # the user can fix it (a missing package, a name the target refuses)
    # what the line says besides (how the target's arithmetic differs from the model's, and by how much): texts, and
    # notes of counts that add up over the parts of a big file (:class:`Tolerated`, :class:`Apart`, :class:`ApiRows`)
    notes: tuple = ()
    unchecked: str | None = None  # why a target the user did not ask for by name was left out

    @property
    def note(self) -> str | None:
        return "; ".join(filter(None, map(str, self.notes))) or None

    def __add__(self, later: "Result") -> "Result":
        """This line's findings with those of the same check on a later part of the rows; a line that failed is
        done."""
        if self.error or self.unchecked:
            return self
        if later.error or later.unchecked:
            return later
        return replace(self, rows=self.rows + later.rows, mismatches=self.mismatches + later.mismatches,
                       notes=_added(self.notes, later.notes))

    @property
    def ok(self) -> bool:
        return self.error is None and not self.mismatches

    @property
    def status(self) -> int:
        """The exit code this result alone calls for: 0 agrees, 1 disagrees or broke, 2 the user's to fix."""
        return 0 if self.ok else 2 if self.user_error else 1

    def line(self, width: int | None = None) -> str:
        """The result as verify prints it, its name in a first column ``width`` wide (:func:`column_width`;
        default :func:`name_width`)."""
        name = f"{self.target:<{width or name_width()}}"
        if self.unchecked:
            return f"{name} not checked: {self.unchecked}"
        if self.error:
            return f"{name} {'ERROR' if self.user_error else 'FAILED':<9} {self.error}"
        if self.ok:
            note = f"; {self.note}" if self.note else ""
            return f"{name} ok        {self.rows.total} rows agree ({self.rows}){note}"
        shown = "; ".join(self.mismatches[:SHOWN_MISMATCHES])
        return f"{name} MISMATCH  {len(self.mismatches)} of {self.rows.total} rows ({self.rows}) differ: {shown}"


def _added(notes: tuple, later: tuple) -> tuple:
    """Notes of two parts as one: a note of counts added to the same kind of note (``+``), a text said once."""
    out = list(notes)
    for note in later:
        same = next((i for i, mine in enumerate(out) if _same_kind_of_note(mine, note)), None)
        if same is None:
            out.append(note)
        elif not isinstance(note, str):
            out[same] = out[same] + note
    return tuple(out)


def _same_kind_of_note(a, b) -> bool:
    return a == b if isinstance(a, str) else type(a) is type(b) and a.kind == b.kind


@dataclass(frozen=True)
class Tolerated:
    """The note of a line whose arithmetic is declared not exact: how many rows agreed only within the tolerance."""

    tolerance: Tolerance
    close: int
    whose: str = "the library's"

    @property
    def kind(self) -> tuple:
        return self.tolerance, self.whose

    def __add__(self, other: "Tolerated") -> "Tolerated":
        return replace(self, close=self.close + other.close)

    def __str__(self) -> str:
        tolerance = self.tolerance
        if self.close:
            return f"{self.close} within {tolerance.within:g} of {self.whose}, not bit for bit: {tolerance.why}"
        return f"bit for bit ({tolerance.within:g} allowed: {tolerance.why})"


@dataclass(frozen=True)
class Apart:
    """The note of SQL that computes a float32 model in double (``why``): how far its scores were from the model's."""

    why: str
    apart: float

    @property
    def kind(self) -> str:
        return self.why

    def __add__(self, other: "Apart") -> "Apart":
        return replace(self, apart=max(self.apart, other.apart))

    def __str__(self) -> str:
        return f"{self.why}, as the SQL does; scores within {self.apart:.1e} of the model's (relative above 1)"


@dataclass(frozen=True)
class ApiRows:
    """The note of a program's row (or rows) API: it answered the first ``answered`` of the ``data`` data rows."""

    api: str
    answered: int
    data: int

    @property
    def kind(self) -> str:
        return self.api

    def __add__(self, other: "ApiRows") -> "ApiRows":
        return replace(self, answered=self.answered + other.answered, data=self.data + other.data)

    def __str__(self) -> str:
        if self.answered == self.data:
            return ""
        return f"{self.api} on the first {self.answered:,} data rows of {self.data:,}"


@dataclass(frozen=True)
class Report:
    """What :func:`treegen.verify` returns: a :class:`Result` for each line of `treegen verify`, in its order.
    ``str(report)`` is its lines as the CLI prints them (a line the user must act on, which the CLI prints as an
    error on stderr, as its ``ERROR`` line); ``assert report.ok, str(report)`` fails a test with them (a
    str: pytest shortens the repr of any other message)."""

    results: list[Result]
    width: int = 0  # of the lines' first column (:func:`column_width`)

    @property
    def ok(self) -> bool:
        """Every line agrees (a default dialect whose engine is not installed, not checked, too)."""
        return all(result.ok for result in self.results)

    @property
    def status(self) -> int:
        """`treegen verify`'s exit code: 0 all agree, 1 a target disagrees or fails to run, 2 one needs something
        of the user (a package, a server, a name the target refuses)."""
        return max((result.status for result in self.results), default=0)

    def __str__(self) -> str:
        return "\n".join(result.line(self.width or None) for result in self.results)

    def __repr__(self) -> str:
        return f"<treegen verify: {'ok' if self.ok else 'NOT ok'}, {counted(len(self.results), 'line')}>\n{self}"


@dataclass(frozen=True)
class Rows:
    """How many rows a target was checked on: probes and rows of the user's data."""

    probes: int
    data: int = 0
    # the rows left out, (why, probes, data rows) for each reason: an engine that cannot hold their numbers, a library
    # that refuses them
    left_out: tuple[tuple[str, int, int], ...] = ()

    @property
    def total(self) -> int:
        return self.probes + self.data

    def __add__(self, other: "Rows") -> "Rows":
        left: dict[str, tuple[int, int]] = {}
        for why, probes, data in self.left_out + other.left_out:
            before = left.get(why, (0, 0))
            left[why] = (before[0] + probes, before[1] + data)
        return Rows(self.probes + other.probes, self.data + other.data,
                    tuple((why, probes, data) for why, (probes, data) in left.items()))

    def __str__(self) -> str:
        probes = f"{self.probes} probe{'s' if self.probes != 1 else ''}"
        checked = f"{self.data} from the data, {probes}" if self.data else probes
        left = "; ".join(f"{_rows_left_out(probes, data)} {why}" for why, probes, data in self.left_out)
        return f"{checked}; {left}" if left else checked


def to_csv(model: Model, rows: list[dict]) -> str:
    """Rows in the program protocol's input format: a header, empty fields for missing values."""
    names = [f.name for f in model.features]
    # None is written as an empty field and a float as its repr, which reads back bit-identical
    return csv_text([names, *([row.get(name) for name in names] for row in rows)])


def as_csv_reads(model: Model, rows: list[dict]) -> list[dict]:
    """The rows as the CSV that every target reads carries them: a category spelt as a missing value ('NA',
    '?', empty: a model's category, or an ARFF file's value) is missing there, so that is the row the
    model's answer is computed for. A library's own predict (``--against``) is given the rows as they
    were, with the model's answers for them: through an API such a category is one."""
    nominal = [f.name for f in model.features if not f.is_numeric]
    return [_as_csv_reads(row, nominal) for row in rows]


def _as_csv_reads(row: dict, nominal: list[str]) -> dict:
    missing = [name for name in nominal if isinstance(row.get(name), str) and reads_as_missing(row[name])]
    return {**row, **dict.fromkeys(missing)} if missing else row


def compare(model: Model, rows: list[dict], labels_text: str, proba_text: str | None,
            expected: list[tuple] | None = None) -> list[str]:
    """Differences between the model and a program's output, one description per differing row.
    ``expected``: the rows' :func:`treegen.walk.predict_rows` answers, when already computed."""
    return judged_outputs(model, rows, labels_text, proba_text, predict_rows(model, rows) if expected is None
                          else expected)[0]


def judged_outputs(model: Model, rows: list[dict], labels_text: str, proba_text: str | None, expected: list[tuple],
                   tolerance: Tolerance | None = None, empty: float | None = None, first: RowNumbers = 1
                   ) -> tuple[list[str], int]:
    """:func:`judged` on a program's two outputs (labels; the probabilities' CSV, or None)."""
    labels = [r[0] if r else "" for r in csv.reader(io.StringIO(labels_text))]
    if len(labels) != len(rows):
        return [f"expected {len(rows)} output lines, got {len(labels)}"], 0
    probabilities = list(csv.reader(io.StringIO(proba_text)))[1:] if proba_text is not None else [None] * len(rows)
    return judged(model, rows, list(zip(labels, probabilities)), expected, tolerance, empty, first)


def differences(model: Model, rows: list[dict], got: list, expected: list[tuple]) -> list[str]:
    """One description per row where ``got`` (label or value, and scores or None) is not what the
    model answers (``expected``): labels exactly, every number bit for bit (every target prints the
    shortest text that reads back as its double, and every runner reads it so)."""
    return judged(model, rows, got, expected)[0]


def judged(model: Model, rows: list[dict], got: list, expected: list[tuple],
           tolerance: Tolerance | None = None, empty: float | None = None, first: RowNumbers = 1
           ) -> tuple[list[str], int]:
    """:func:`differences`, where numbers within ``tolerance`` (a library's own predict or an engine whose
    arithmetic cannot be the model's: :meth:`treegen.importers.Importer.tolerance`, ``Target.tolerance``)
    agree too; and how many rows agree only so, not bit for bit. ``empty``: the number an empty field
    stands for (NaN from an engine whose NaN is NULL: ``Dialect.nan_is_null``); otherwise, like any text
    that is no number, it agrees with nothing. ``first``: the number the descriptions give the first row, or
    each row's (:func:`numbered`)."""
    problems, close = [], 0
    number_of = lambda text: empty if text == "" and empty is not None else _number(text)
    classification = model.target.is_classification
    printed = expected.texts if isinstance(expected, Expected) else itertools.repeat(None)
    for number, row, (label, proba), (want, scores), texts in zip(numbered(first), rows, got, expected, printed):
        if texts is not None and label == texts[0] and (proba is None or classification and proba == texts[1]):
            continue  # the text of the model's own answer: the same bits
        pairs = [] if classification else [(number_of(label), want)]
        same = label == want if classification else True
        if proba is not None:
            same = same and len(proba) == len(model.target.classes)
            pairs += [(number_of(p), q) for p, q in zip(proba, scores)]
        same = same and all(a is not None for a, _ in pairs)
        exact = same and all(_same_bits(a, b) for a, b in pairs)
        if exact:
            continue
        if same and tolerance is not None and all(_same_bits(a, b) or tolerance.allows(a, b) for a, b in pairs):
            close += 1
            continue
        # probabilities on both sides where they were compared: the labels may agree
        mine, theirs = ("", "") if proba is None else (f" {list(scores)}", f" {list(proba)}")
        problems.append(f"row {number} {row}: model {want!r}{mine}, got {label!r}{theirs}")
    return problems, close


class Expected(list):
    """The model's answers (:func:`treegen.walk.predict_rows`) and, made once for every target, the texts each
    prints for them: a label, a number's repr (which reads back as its double). A row printed so agrees with no
    number read (:func:`judged` of the bench's 60,515 rows: 0.19-0.29 -> 0.02 s a target)."""

    @functools.cached_property
    def texts(self) -> list[tuple]:
        return [(want if isinstance(want, str) else repr(want), list(map(repr, scores))) for want, scores in self]


def _number(text: str) -> float | None:
    """A program's number, None where its text is none (an empty field: SQL's NULL)."""
    try:
        return float(text)
    except ValueError:
        return None


RowNumbers = int | list[int]  # the first row's number, or each row's where some rows were left out


def numbered(first: RowNumbers) -> Iterable[int]:
    """The rows' numbers in mismatch lines: from ``first`` up, or as listed."""
    return itertools.count(first) if isinstance(first, int) else first


def _same_bits(a: float, b: float) -> bool:
    """The same double: equal with the same sign (0.0 is not -0.0), or both NaN."""
    return (a == b and math.copysign(1.0, a) == math.copysign(1.0, b)) or (a != a and b != b)


# -- the checks --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Check:
    """One line of `verify`: a target, with the options it is emitted with (a dialect for SQL)."""

    name: str
    target: Target
    options: dict
    unchecked: str | None = None  # why it is left out: a default dialect whose engine is not installed
    source: str | None = None  # a program's own text (`verify --program`), run instead of an export
    by_default: bool = False  # a target not named (verify's default): left unchecked where its tool is missing


def checks(targets: Sequence[str], variants: Sequence[str] = ()) -> list[Check]:
    """The checks for the targets named, in order; a target with variants (SQL's dialects) gets one
    check per variant given."""
    if not targets:
        raise TreegenError(f"--to names no target; choose from {', '.join(RUNNABLE)}")
    out = []
    for name in targets:
        if name not in RUNNABLE:
            raise unknown_target(f"cannot verify target {name!r}; choose from {', '.join(RUNNABLE)}", name, RUNNABLE)
        target = TARGETS[name]
        if target.variants is None:
            out.append(Check(name, target, {}))
            continue
        variant = _variant_option(target)
        choices = variant.choice_names()
        if not variants:
            raise TreegenError(f"--to {name} needs at least one --{target.variants}")
        for value in variants:
            if value not in choices:
                raise BadArgument(f"cannot verify --{target.variants} {value!r}; choose from {', '.join(choices)}"
                                  + did_you_mean([value], choices, variant.alias_names()))
            out.append(Check(f"{name}/{value}", target, {target.variants: value}))
    return out


def program_checks(paths: Sequence[str], variants: Sequence[str] | None = (), **exported) -> list[Check]:
    """A check for each file given (`verify --program`): that very file run as its target's program (the
    rule text read back, the SQL on its engine), the target told by the file's ending. A target with
    variants (SQL's dialects) runs a file in the one variant ``variants`` names, which the file cannot tell
    (SQLite's, DuckDB's and PostgreSQL's SQL may read alike); ``exported``: options the files were exported
    with that running them needs (SQL's ``table`` and ``keep``), given to the targets that take them."""
    out = []
    for path in paths:
        target = target_of_file("--program", path, RUNNABLE, "program, rule text or SQL treegen writes")
        options = {"source_name": path}  # (what a runner names it by)
        if target.variants is not None:
            options.update(_variant_of_file(path, target, variants))
        options.update((name, value) for name, value in exported.items() if name in target.option_names())
        try:
            with open(path, encoding="utf-8", newline="") as handle:
                source = handle.read()
        except (OSError, UnicodeDecodeError) as err:  # (OSError's text repeats the path: its reason alone)
            raise TreegenError(f"--program {path}: cannot read it ({getattr(err, 'strerror', None) or err})") from None
        out.append(Check(path, target, options, source=source))
    return out


def _variant_of_file(path: str, target: Target, variants: Sequence[str] | None) -> dict:
    """The options of the one variant a file of ``target`` is run in (``{"dialect": name}``); refused in one line
    unless ``variants`` names exactly one."""
    if not variants or len(variants) > 1:
        named = f"given: {', '.join(variants)}" if variants else f"choose from {', '.join(_variant_choices(target))}"
        raise TreegenError(f"--program {path}: name the one --{target.variants} it was exported in ({named})")
    try:
        return checks([target.name], variants)[0].options
    except TreegenError as err:  # a dialect verify does not know
        raise TreegenError(f"--program {path}: {err}") from None


def _variant_option(target: Target) -> Option:
    """A target's variant option (SQL's dialect)."""
    return next(o for o in target.options if o.name == target.variants)


def _variant_choices(target: Target) -> Sequence[str]:
    """The values of a target's variant option (SQL's dialects)."""
    return _variant_option(target).choice_names()


@functools.cache
def name_width() -> int:
    """The width of a line's first column: the longest name any line can have (a target, a target/dialect,
    a library's own predict), so the columns line up whichever lines a run prints."""
    from .importers import IMPORTERS
    names = [_itself(importer.library) for importer in IMPORTERS.values()]
    for name in RUNNABLE:
        target = TARGETS[name]
        variants = [] if target.variants is None else _variant_choices(target)
        names += [check.name for check in checks([name], variants)]
    return max(map(len, names))


def column_width(programs: Sequence[str] = ()) -> int:
    """The width of the first column of a run that checks the files ``programs``, whose lines are named by their
    paths: :func:`name_width`, or the longest path. Each result stays one line (a script may read them so), and
    the columns line up."""
    return max([name_width(), *map(len, programs)])


def default_dialects() -> list[str]:
    """The SQL dialects `verify` runs when none is named."""
    from .emit.sql import DIALECTS
    return [name for name, d in DIALECTS.items() if d.verify_by_default]


def _unless_missing(check: Check) -> Check:
    """``check``, marked left out when it runs a dialect whose engine's package is not installed: on a
    core install the default dialects must not make every run exit 2 for DuckDB, which the user did
    not ask for."""
    engine = engine_for(check.options["dialect"]) if "dialect" in check.options else None
    if engine is None or engine.package is None or importlib.util.find_spec(engine.package) is not None:
        return check
    return replace(check, unchecked=package_hint(engine.package, engine.extra))


def _source(model: Model, check: Check, leaf: bool = False) -> str:
    """The text a check runs: the file given, or the target's export of the model (with probabilities for a
    classification model, and with ``leaf`` leaf ids, where the target takes them)."""
    if check.source is not None:
        return check.source
    options = dict(check.options)
    if model.target.is_classification and "proba" in check.target.option_names():
        options["proba"] = True
    if leaf and "leaf" in check.target.option_names():
        options["leaf"] = True
    return emit(model, check.target.name, **options)


def _outputs(model: Model, check: Check, source: str, csv_text: str, settings: dict, leaf: bool = False
             ) -> tuple[str, str | None, str | None]:
    """A target's printed labels for its text ``source`` (:func:`_source`), its probabilities for a
    classification model, and with ``leaf`` its leaf ids, where the target writes them (None where it does not:
    the rule text's leaf ids, a SQL file's columns it was not exported with)."""
    classification = model.target.is_classification
    leaf = leaf and "leaf" in check.target.option_names()
    each_args = ([[], ["--proba"]] if classification else [[]]) + ([["--leaf"]] if leaf else [])
    outputs = check.target.run_each(source, csv_text, each_args, model=model, **check.options, **settings)
    return outputs[0], (outputs[1] if classification else None), (outputs[-1] if leaf else None)


def leaf_mismatches(rows: list[dict], leaf_text: str, leaves: list[str], listed: list[str], first: RowNumbers = 1
                    ) -> list[str]:
    """One line per row whose printed leaf ids are not the model's (:func:`treegen.walk.leaf_ids_rows`), but
    for the rows ``listed`` already (a mismatch counts a row once); ``first``: as :func:`judged`'s."""
    got = [record[0] if record else "" for record in csv.reader(io.StringIO(leaf_text))]
    if len(got) != len(leaves):
        return [f"expected {len(leaves)} lines of leaf ids, got {len(got)}"]
    seen = listed_rows(listed)
    return [f"row {number} {row}: model's leaf ids {want!r}, got {have!r}"
            for number, row, want, have in zip(numbered(first), rows, leaves, got)
            if want != have and number - 1 not in seen]


def listed_rows(listed: list[str]) -> set[int]:
    """The indexes of the rows that mismatch lines ``listed`` already (each begins "row N "): a row counts once."""
    return {int(line.split(" ", 2)[1]) - 1 for line in listed if line.startswith("row ")}


def row_api_mismatches(model: Model, runner, source: str, rows: list[dict], probes: int, csv_text: str,
                       expected: list[tuple], leaves: list[str] | None, listed: list[str]
                       ) -> tuple[list[str], int]:
    """One line per row whose answer through the program's row API (``runner.run_row_api``:
    :mod:`treegen.run.row_api`) is not the model's, each of the ways it was given (its missing values as the
    language's null, as NaN, as absent keys, and the runner's own: ``runner.WAYS``), but for the rows ``listed``
    already; each line names the API (``runner.WAY_APIS``: a way's own). And
    how many of the data rows the API answered (:data:`treegen.run.row_api.DATA_ROWS`)."""
    plan = ways(rows, [model.features[i].name for i in model.used_features()], probes, "".join(runner.WAYS))
    classification = model.target.is_classification
    rows_api = getattr(runner, "ROWS_API", None)
    asked_rows = [index for index, row_ways in enumerate(plan) if row_ways]
    sizes = batches(len(asked_rows), runner.ROWS_AT_ONCE) if rows_api else []
    given = driver_input([f.is_numeric for f in model.features], plan, csv_text, classification, leaves is not None,
                         sizes)
    try:
        printed = runner.run_row_api(source, given)
        got, got_in_batches = answers(printed), rows_answers(printed)
    except Exception as err:  # (the CSV path ran: the API's own failure, named)
        raise RuntimeError(f"{runner.ROW_API}: {err}") from err
    asked = [(index, way) for index, row_ways in enumerate(plan) for way in row_ways]
    answered = sum(map(bool, plan[probes:]))
    if len(got) != len(asked):
        return [f"{runner.ROW_API}: expected {len(asked)} answers, got {len(got)}"], answered
    seen = listed_rows(listed)
    out = []
    for (index, way), answer in zip(asked, got):
        if index in seen or _agrees(answer, expected[index], classification, None if leaves is None else leaves[index]):
            continue
        if isinstance(answer, dict):
            label, scores, leaf = f"raised {answer['error']}", None, None
        else:
            label, scores, leaf = answer
        problem = judged(model, [rows[index]], [(label, scores if classification else None)], [expected[index]],
                         first=index + 1)[0]
        if not problem and leaves is not None and leaf != leaves[index]:
            problem = [f"row {index + 1} {rows[index]}: model's leaf ids {leaves[index]!r}, got {leaf!r}"]
        if problem:
            seen.add(index)
            how = "" if way == AS_IS else f", missing values as {runner.WAYS[way]}"
            out.append(f"{problem[0]} ({runner.WAY_APIS.get(way, runner.ROW_API)}{how})")
    if rows_api:
        out += rows_api_mismatches(model, rows_api, rows, asked_rows, sizes, got_in_batches, expected, seen)
    return out, answered


def rows_api_alone_mismatches(model: Model, check: Check, source: str, rows: list[dict], probes: int,
                              expected: list[tuple], listed: list[str], settings: dict) -> tuple[list[str], int]:
    """:func:`rows_api_mismatches` of a target whose rows API its runner runs on its own (``run_rows_api``: C's),
    on the rows a row API answers (every probe, the first :data:`treegen.run.row_api.DATA_ROWS` data rows); and how
    many of the data rows it answered."""
    from .run import row_api  # (its DATA_ROWS read when called: a test may lower it)
    runner = check.target.rows_api
    asked = list(range(min(len(rows), probes + row_api.DATA_ROWS)))
    sizes = batches(len(asked), runner.rows_at_once(source))
    try:
        got = runner.run_rows_api(source, [rows[i] for i in asked], sizes, model=model, **check.options,
                                   **settings)
    except Exception as err:  # (the CSV path ran: the API's own failure, named)
        raise RuntimeError(f"{runner.ROWS_API[0]}: {err}") from err
    seen = listed_rows(listed)
    return rows_api_mismatches(model, runner.ROWS_API, rows, asked, sizes, got, expected, seen), len(asked) - probes


def rows_api_mismatches(model: Model, names: tuple[str, str], rows: list[dict], asked: list[int], sizes: list[int],
                        got: list[list], expected: list[tuple], seen: set[int]) -> list[str]:
    """One line per row whose answer through the program's rows API (``names``: its labels' function, its
    probabilities') is not the model's, but for the rows ``seen`` already: the rows ``asked`` answered in calls of
    each of ``sizes`` rows (``got``, per size), each line naming the function and the size of its calls."""
    if len(got) != len(sizes) or any(len(answered) != len(asked) for answered in got):
        return [f"{names[0]}: expected {len(asked)} answers for each of {len(sizes)} call sizes, got "
                f"{[len(answered) for answered in got]}"]
    classification = model.target.is_classification
    out = []
    for size, answered in zip(sizes, got):
        for index, answer in zip(asked, answered):
            if index in seen or _agrees(answer, expected[index], classification, None):
                continue
            seen.add(index)
            calls = f"{size:,} row{'s' if size > 1 else ''} a call"
            if isinstance(answer, dict):
                problem = f"row {index + 1} {rows[index]}: raised {answer['error']}"
                out.append(f"{problem} ({names[0]}, {calls})")
                continue
            label, scores = answer[0], answer[1]
            wrong_label = judged(model, [rows[index]], [(label, None)], [expected[index]], first=index + 1)[0]
            wrong_scores = [] if wrong_label or not classification else judged(
                model, [rows[index]], [(label, scores)], [expected[index]], first=index + 1)[0]
            out += [f"{problem} ({names[0]}, {calls})" for problem in wrong_label]
            out += [f"{problem} ({names[1]}, {calls})" for problem in wrong_scores]
    return out


def _agrees(answer, expected: tuple, classification: bool, leaf: str | None) -> bool:
    """A row API driver's answer is the model's (``expected``; ``leaf``: its leaf ids): a fast path past
    :func:`judged`, which describes a difference (its numbers, in the driver's language's text, read as Python
    reads them)."""
    if not isinstance(answer, list) or answer[2] != leaf:
        return False
    label, texts = answer[0], answer[1]
    want, scores = expected
    if not classification:
        return _same_number(label, want)
    return (label == want and texts is not None and len(texts) == len(scores)
            and all(_same_number(text, score) for text, score in zip(texts, scores)))


def _same_number(text, number: float) -> bool:
    read = _number(text) if isinstance(text, str) else None
    return read is not None and _same_bits(read, number)


def _missing_package(err: BaseException) -> str | None:
    """The hint for a target whose optional package (or JDK) is not installed, or None for another failure.
    The runners may wrap the ImportError (run.sql raises RuntimeError from it): follow the chain."""
    extras = {engine.package: engine.extra for engine in ENGINES.values() if engine.package}
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        package = (err.name or "").split(".")[0] if isinstance(err, ImportError) else ""
        if package in extras:
            return package_hint(package, extras[package])
        if isinstance(err, FileNotFoundError) and os.path.basename(str(err.filename)) in ("javac", "java"):
            return f"needs a JDK: {err.filename} is not on the PATH (for example: apt-get install default-jdk-headless)"
        err = err.__cause__ or err.__context__
    return None


def verify(model: Model, data: str | Table | None, targets: Sequence[str], dialects: Sequence[str] | None = (),
           dsns: dict | None = None, report: Callable[[Result], None] | None = None,
           against=None, status: Callable[[str], None] | None = None,
           against_options: dict | None = None, leaf: bool = False, programs: Sequence[str] = (),
           table: str = "input", keep: Sequence[str] = ()) -> list[Result]:
    """Check each target; every target gets a result, whatever the others did.

    Parameters
    ----------
    model : the model whose answers are the reference.
    data : a CSV or ARFF file whose rows are checked besides the probes (or that file read), or None.
    targets : target names (see :data:`treegen.targets.RUNNABLE`); None: every one, each whose tool (a JDK, Node.js,
        a C compiler) is not installed left out (a line each says so) rather than failed.
    dialects : the SQL dialects to run, when ``targets`` has ``sql``; None: :func:`default_dialects`,
        those whose engine is not installed left out (a line each says so) rather than failed.
    dsns : engine name -> connection string, for the engines that need a server.
    report : called with each result as soon as its target is done.
    against : the model file the model was imported from, or that library's fitted object itself: its
        library's own predict is checked on the same rows, first (the library must be installed).
    status : called with a line saying what is being done, for a person watching.
    against_options : the options ``against`` is read with, as `treegen import` takes them (the library's
        own: CatBoost's ``categories`` names the one-hot categories of a .cbm or a JSON saved without pool=).
    leaf : each target that writes leaf ids is exported with them, and they are checked too.
    programs : program files exported before (.py, .java, .mjs, .c), rule text (.rules) or SQL (.sql, its one
        dialect named by ``dialects``): each is run itself and checked as a target is (with ``leaf``, a program must
        have been exported with leaf ids; SQL is checked on the columns it has).
    table, keep : the table a .sql file of ``programs`` reads and the columns it passes through (its export's
        --table and --keep).
    """
    status = status or (lambda text: None)
    if against is not None and not (isinstance(against, str) and not against):  # (--against '' is none)
        against = Against.of(against)
    else:
        against = None
    plan = (checks(RUNNABLE if targets is None else targets, default_dialects() if dialects is None else dialects)
            if targets is None or targets or not (against or programs) else [])
    if targets is None:
        plan = [replace(check, by_default=True) for check in plan]
    if dialects is None:
        plan = [_unless_missing(check) for check in plan]
    plan += program_checks(programs, dialects, table=table, keep=keep)
    if dialects and not any(check.target.variants for check in plan):
        raise BadArgument("dialects= names the SQL dialects to run, and nothing verified is SQL (to='sql', or a .sql "
                          "file of programs=)", command_line="--dialect names the SQL dialects to run, and nothing "
                          "verified is SQL (--to sql, or a .sql --program)")
    if (table != "input" or keep) and not any("table" in check.options for check in plan if check.source):
        raise TreegenError("--table and --keep say how a --program .sql file was exported: give one (verify's own "
                           "SQL reads the table it writes)")
    oracle = _oracle(against, model, against_options or {}) if against is not None else None
    settings = {"dsns": dsns or {}}
    for check in plan:  # a server that is not given is the user's to fix before anything runs
        if "dialect" in check.options:
            server_for(check.options["dialect"], settings["dsns"])
    first_target = int(oracle is not None)  # the library's own line comes first
    lines: list[Result | None] = [None] * (first_target + len(plan))  # each line over the parts so far
    sources: dict[str, str] = {}  # each check's text, made on the first part
    for rows, count, first, last in _row_parts(model, data):
        rows_said = f"{count.total:,} rows" if first == 1 and last else f"rows {first:,}-{first + count.total - 1:,}"
        given, rows = rows, as_csv_reads(model, rows)
        csv_text = to_csv(model, rows)
        status(f"verify: the model's own answers on {rows_said}...")
        expected = Expected(predict_rows(model, rows))
        leaves = leaf_ids_rows(model, rows) if leaf else None
        # the rows as a program reads them, for the engines and the rule text, which read rows, not the CSV: read
        # beside the programs' runs, which need them not (the bench's 60,515 rows: 1.5 s)
        if any("dialect" in check.options or check.target.name == "rules" for check in plan):
            reader = ThreadPoolExecutor(max_workers=1)
            settings["rows"] = reader.submit(read_csv, model, csv_text)
            reader.shutdown(wait=False)  # (the read goes on)

        def done(index: int, result: Result) -> None:
            """A line's result on this part, added to the parts' before; reported once the last part is done."""
            lines[index] = result if lines[index] is None else lines[index] + result
            if last and report is not None:
                report(lines[index])

        if oracle is not None and _failed(lines[0]):
            done(0, Result(lines[0].target, count))  # (its line as it was)
        elif oracle is not None:  # the library reads rows as they are given, where a category 'NA' is one
            changed = any(a is not b for a, b in zip(given, rows))
            done(0, _check_against(model, oracle, against, given, count,
                                   predict_rows(model, given) if changed else expected, first))
        # Targets run two at a time (programs are other processes, engines release the GIL); their lines
        # are reported in the order asked, each as soon as it and those before it are done. A target that failed
        # on a part is not run on the next.
        with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
            futures = [pool.submit(_check, model, check, rows, count, csv_text, expected, settings, leaves, first,
                                   sources)
                       if not _failed(line) else None for check, line in zip(plan, lines[first_target:])]
            for number, future in enumerate(futures):
                status(f"verify: {number} of {len(plan)} targets checked on {rows_said}, "
                       f"running {', '.join(check.name for check in plan[number:number + PARALLEL])}...")
                done(first_target + number, future.result() if future is not None else Result(plan[number].name, count))
    return lines


def _failed(line: Result | None) -> bool:
    """A line that failed on a part (or is not checked): its check is not run on the next."""
    return line is not None and bool(line.error or line.unchecked)


def _row_parts(model: Model, data: str | Table | Iterable[Table] | None
               ) -> Iterator[tuple[list[dict], Rows, int, bool]]:
    """The rows verify checks, a part at a time: the probes and the first part of the data, then each next part of
    a big data file (:data:`treegen.data.ROWS_A_PART` rows), so that its memory stays flat however big the file;
    with each part its count, the number of its first row, and whether it is the last."""
    rows = probe_rows(model)
    probes = len(rows)
    tables = iter(() if not data else [data] if isinstance(data, Table) else
                  read_tables(data, ROWS_A_PART) if isinstance(data, str) else data)
    table, first = next(tables, None), 1
    while True:
        if table is not None:
            rows += rows_for_model(table, model)
            table = next(tables, None)  # read ahead (this part's texts let go): is this part the last?
        yield rows, Rows(probes, len(rows) - probes), first, table is None
        if table is None:
            return
        first, rows, probes = first + len(rows), [], 0


def _check(model: Model, check: Check, rows: list[dict], count: Rows, csv_text: str, expected: list[tuple],
           settings: dict, leaves: list[str] | None, first: int, sources: dict[str, str]) -> Result:
    """The target's line: its answers on the rows against the model's (``expected``; ``leaves``: the leaf
    ids, when they are checked too); ``first``, the number of the first row (a part of a big file's after the
    first: through its row APIs only the first part's rows are checked); ``sources``, the checks' texts by name,
    made once for all the parts."""
    if check.unchecked:
        return Result(check.name, count, unchecked=check.unchecked)
    if isinstance(settings.get("rows"), Future):  # (being read: verify)
        settings = {**settings, "rows": settings["rows"].result()}
    numbers = first  # the rows' numbers: those of the rows kept, where some are left out
    if "dialect" in check.options and find_dialect(check.options["dialect"]).infinity is None:
        rows, count, csv_text, expected, settings, leaves, numbers = _finite(model, check, rows, count, csv_text,
                                                                             expected, settings, leaves, first)
    try:
        if check.name not in sources:
            sources[check.name] = _source(model, check, leaves is not None)
        source = sources[check.name]
        labels, proba, leaf_text = _outputs(model, check, source, csv_text, settings, leaves is not None)
        result = _judged(model, check, rows, count, (labels, proba), expected, numbers)
        notes = list(result.notes)
        if leaf_text is not None:
            result.mismatches += leaf_mismatches(rows, leaf_text, leaves, result.mismatches, numbers)
        elif leaves is not None:
            notes.append(f"no leaf ids: {_whose(check)} writes none")
        answered = 0  # the data rows a row API answered: on a later part none (the first part's were the API's)
        if first == 1 and check.target.row_api is not None:
            mismatches, answered = row_api_mismatches(model, check.target.row_api, source, rows, count.probes,
                                                      csv_text, expected, leaves if leaf_text is not None else None,
                                                      result.mismatches)
            result.mismatches += mismatches
        elif first == 1 and check.target.rows_api is not None:
            mismatches, answered = rows_api_alone_mismatches(model, check, source, rows, count.probes, expected,
                                                             result.mismatches, settings)
            result.mismatches += mismatches
        if check.target.row_api is not None or check.target.rows_api is not None:
            notes.append(_api_rows(check.target, answered, count.data))
        if proba is None and model.target.is_classification and "proba" in check.target.option_names():
            notes.append(f"labels only: {_whose(check)} writes no probabilities")
        return replace(result, notes=tuple(notes))
    except TreegenError as err:  # the target refuses this model (a name, a dialect's limit), or its tool is missing
        return _users_to_fix(check, count, str(err), isinstance(err, MissingTool))
    except Exception as err:  # the target failed to build or run: report it, go on with the rest
        hint = _missing_package(err)
        if hint is not None:
            return _users_to_fix(check, count, hint, missing=True)
        return Result(check.name, count, error=" ".join(str(err).split())[:300])


def _api_rows(target: Target, answered: int, data: int) -> ApiRows:
    """The note of a target's row API (else of its rows API alone): it answered ``answered`` of ``data`` data rows."""
    name = f"the {target.row_api.ROW_API}" if target.row_api is not None else target.rows_api.ROWS_API[0]
    return ApiRows(name, answered, data)


def _users_to_fix(check: Check, count: Rows, error: str, missing: bool) -> Result:
    """The line of a target that needs something of the user: an ERROR, but a target verify runs by default whose
    tool or package is not installed is not checked (a machine without a JDK verifies the rest)."""
    if missing and check.by_default:
        return Result(check.name, count, unchecked=error)
    return Result(check.name, count, error=error, user_error=True)


def _whose(check: Check) -> str:
    """What a line's note calls the text checked: its target, or a file given that may have been exported
    without an output."""
    return "the file" if check.source is not None else check.target.name


def _judged(model: Model, check: Check, rows: list[dict], count: Rows, outputs: tuple[str, str | None],
            expected: list[tuple], first: RowNumbers = 1) -> Result:
    """The line of a target whose labels and probabilities are ``outputs``."""
    options = _as_exported(check)
    if check.target.computed is not None:
        computed, why = check.target.computed(model, **options)
        if why is not None:
            return _check_computed(model, computed, why, check, rows, count, outputs, expected, first)
    tolerance = check.target.tolerance(model, **options) if check.target.tolerance else None
    empty = math.nan if _nan_is_null(check) else None
    problems, close = judged_outputs(model, rows, *outputs, expected, tolerance, empty, first)
    notes = () if tolerance is None else (Tolerated(tolerance, close, "the model's"),)
    return Result(check.name, count, problems, notes=notes)


def _as_exported(check: Check) -> dict:
    """The options a check's text was written with, as far as what it computes goes: a SQL file given that is
    no query is an ``--expression``, which computes a float32 model in double where its sums nest deeper than
    the engine holds (:func:`treegen.emit.sql.computed`: MySQL past 100 trees a class)."""
    if check.source is not None and "dialect" in check.options and not is_query(check.source):
        return {**check.options, "expression": True, "program": True}
    return check.options


def _finite(model: Model, check: Check, rows: list[dict], count: Rows, csv_text: str, expected: list[tuple],
            settings: dict, leaves: list[str] | None, first: int
            ) -> tuple[list[dict], Rows, str, list[tuple], dict, list | None, RowNumbers]:
    """The rows, their count, CSV, answers, settings, leaf ids and numbers (the first row's ``first``) without
    the rows that hold an infinite number, for a dialect whose DOUBLE holds no infinity (MySQL): its line says
    how many were left out."""
    read = settings["rows"]
    numeric = [f.name for f in model.features if f.is_numeric]
    kept = [i for i, row in enumerate(read)
            if not any(isinstance(row.get(name), float) and math.isinf(row[name]) for name in numeric)]
    if len(kept) == len(rows):
        return rows, count, csv_text, expected, settings, leaves, first
    probes = sum(i < count.probes for i in kept)
    left = (f"with an infinite number left out: {check.options['dialect']} has no infinity",
            count.probes - probes, count.data - (len(kept) - probes))
    count = Rows(probes, len(kept) - probes, (left,))
    rows, read = [rows[i] for i in kept], [read[i] for i in kept]
    return (rows, count, to_csv(model, rows), [expected[i] for i in kept], {**settings, "rows": read},
            None if leaves is None else [leaves[i] for i in kept], [first + i for i in kept])


def _nan_is_null(check: Check) -> bool:
    """The check runs SQL on an engine whose NaN is NULL (SQLite)."""
    return "dialect" in check.options and find_dialect(check.options["dialect"]).nan_is_null


def _check_computed(model: Model, computed: Model, why: str, check: Check, rows: list[dict], count: Rows,
                    outputs: tuple[str, str | None], expected: list[tuple], first: RowNumbers = 1) -> Result:
    """A target whose arithmetic is not the model's (float32 sums in double): its answers are exactly
    ``computed``'s, its labels the model's, and the line says how far its scores are from the model's."""
    own = predict_rows(computed, rows)
    problems = judged_outputs(computed, rows, *outputs, own, empty=math.nan if _nan_is_null(check) else None,
                              first=first)[0]
    if model.target.is_classification:
        problems += [f"row {number} {row}: model {want!r}, got {label!r} ({why})"
                     for number, row, (want, _), (label, _) in zip(numbered(first), rows, expected, own)
                     if label != want]
    # no distance measures how far an infinity or a NaN is from another number (inf/inf is NaN): one line a row
    problems += [f"row {number} {row}: model's scores {list(theirs)}, got {list(mine)} ({why})"
                 for number, row, (want, theirs), (label, mine) in zip(numbered(first), rows, expected, own)
                 if any(_unmeasured(a, b) for a, b in zip(mine, theirs))
                 and not (model.target.is_classification and label != want)]
    apart = max((abs(a - b) / max(abs(b), 1.0) for (_, mine), (_, theirs) in zip(own, expected)
                 for a, b in zip(mine, theirs) if not _same_bits(a, b) and not _unmeasured(a, b)), default=0.0)
    return Result(check.name, count, problems, notes=(Apart(why, apart),))


def _unmeasured(a: float, b: float) -> bool:
    """Two scores that differ, one of them not finite (infinite or NaN)."""
    return not _same_bits(a, b) and not (math.isfinite(a) and math.isfinite(b))


# -- the source library itself ------------------------------------------------------------------

@dataclass(frozen=True)
class Against:
    """What a check against a library's own predict is given: a model file (`verify --against FILE`) or the
    library's fitted object (`treegen.verify(..., against=booster)`), and how messages name it."""

    source: object  # the path, or the object
    path: str | None  # the path; None for an object
    option: str  # "--against", or the Python API's "against"
    noun: str  # "file", or "model"

    @classmethod
    def of(cls, source) -> "Against":
        from .importers import file_of
        path = file_of(source)
        return cls(source, path, "--against", "file") if path is not None else cls(source, None, "against", "model")


def _oracle(against: Against, model: Model, options: dict):
    """The importer whose library wrote ``against``'s file or made its object (and can predict with it), or a
    one-line error. It must be of the library the model was imported from: another library's predict would
    fail on the model's rows, or disagree on every row for a reason that is not the targets'."""
    importer, this = _against_importer(against)
    path, option = against.path, against.option
    source = source_library(model)
    if source is None:
        raise TreegenError(f"{option}: this is {this}, but the model was not "
                           "imported from a library (its meta names none): there is no library's predict "
                           "to check it against", path)
    if source != importer.library:
        raise TreegenError(f"{option}: this is {this}, but the model was imported from {source} (its meta says "
                           f"so): give the {source} {against.noun} it was imported from", path)
    if importer.oracle is None:
        raise TreegenError(f"{option}: treegen cannot run {importer.library}'s own predict yet", path)
    _same_kind(model, importer, against, options)
    return importer


def _against_importer(against: Against) -> tuple:
    """The importer of ``against``'s library, and what the messages call it ("a model file of XGBoost", "XGBoost's
    XGBClassifier")."""
    from .importers import IMPORTERS, file_head, importer_of
    if against.path is None:
        importer = importer_of(against.source)
        if importer is None:
            raise TreegenError(f"against takes the model the model was imported from: its model file's path, or the "
                               f"fitted model itself of a library treegen imports ({', '.join(IMPORTERS)}); got "
                               f"{with_article(type(against.source).__name__)}")
        return importer, f"{importer.library}'s {type(against.source).__name__}"
    path = against.path
    head = file_head(path)
    importer = next((i for i in IMPORTERS.values() if i.recognises(path, head)), None)
    if importer is None:
        raise TreegenError("--against takes the model file the model was imported from, in its library's own "
                           "format (a pickle is not run)", path)
    return importer, f"a model file of {importer.library}"


def _same_kind(model: Model, importer, against: Against, options: dict) -> None:
    """A one-line error when ``against`` (a file read as `treegen import` reads it with ``options``, or the object
    converted so) holds a model of another kind than ``model`` (features, classes, objective): the library's
    predict would fail on the model's rows, or disagree everywhere. The trees are not compared: import options
    (the rounds used) may take fewer of them; a file that differs only there shows as mismatching rows."""
    from .importers import from_object, import_file
    if "categories" in importer.options and not options.get("categories"):
        # A file that knows its categories only by hash (a CatBoost .cbm) names them as the model does:
        # the model holds the names it was imported with.
        options = {**options, "categories": {f.name: f.categories for f in model.features if not f.is_numeric}}
    path, option, noun = against.path, against.option, against.noun
    other = import_file(path, **options) if path is not None else from_object(against.source, **options)
    if len(other.features) != len(model.features):  # worded as the libraries' own predict checks word it
        raise TreegenError(f"{option}: this {importer.library} model takes {len(other.features)} features, the "
                           f"treegen model {len(model.features)}: give the {noun} the model was imported from", path)
    mine, theirs = _kind(model, importer), _kind(other, importer)
    differ = [f"{what}: {mine[what]} in the model, {theirs[what]} in the {noun}" for what in mine
              if mine[what] != theirs[what]]
    if differ:
        raise TreegenError(f"{option}: this {importer.library} {noun} holds another model than the one verified "
                           f"({'; '.join(differ)}): give the {noun} the model was imported from", path)


def _kind(model: Model, importer) -> dict:
    """What must be the same in a model and the file it came from, as words for the message."""
    nominal = sum(not f.is_numeric for f in model.features)
    own = model.meta.get(importer.module, {})
    return {"nominal features": nominal,
            "target": f"{len(model.target.classes)} classes" if model.target.is_classification else "a number",
            "objective": model.meta.get("objective") or own.get("objective") or model.meta.get("algorithm")}


def source_library(model: Model) -> str | None:
    """The library ``model`` was imported from, or None: each importer keeps what it read in the
    model's meta under its module's name (``meta["xgboost"]``, ``meta["sklearn"]``, ...)."""
    from .importers import IMPORTERS
    return next((i.library for i in IMPORTERS.values() if i.module in model.meta), None)


def _itself(library: str) -> str:
    """The name of the line that checks a library's own predict."""
    return f"{library} itself"


def _check_against(model: Model, importer, against: Against, rows: list[dict], count: Rows,
                   expected: list[tuple], first: int = 1) -> Result:
    """The library's own answers on the rows, compared with the model's; rows the library refuses (an
    infinity XGBoost will not take) are left out, and the line says how many and why."""
    name = _itself(importer.library)
    try:
        answers = importer.oracle(against.source, model, rows)
    except TreegenError as err:
        return Result(name, count, error=str(err), user_error=True)
    except ImportError as err:
        return Result(name, count, error=package_hint((err.name or "").split(".")[0], importer.extra),
                      user_error=True)
    except Exception as err:  # the library broke on the rows: a line as a target's, not a traceback
        return Result(name, count, error=f"{type(err).__name__}: {' '.join(str(err).split())[:300]}")
    kept = [i for i, answer in enumerate(answers) if not isinstance(answer, Refused)]
    got = [(answers[i][0], answers[i][1] if model.target.is_classification else None) for i in kept]
    tolerance = importer.tolerance(against.source, model)
    problems, close = judged(model, [rows[i] for i in kept], got, [expected[i] for i in kept], tolerance,
                             first=[first + i for i in kept])
    probes = sum(i < count.probes for i in kept)
    checked = Rows(probes, len(kept) - probes, _refused(answers, count, importer.library))
    return Result(name, checked, problems, notes=() if tolerance is None else (Tolerated(tolerance, close),))


def _refused(answers: list, count: Rows, library: str) -> tuple[tuple[str, int, int], ...]:
    """How many probes and data rows the library refused, for each reason it has (:attr:`Rows.left_out`)."""
    refused: dict[str, list[int]] = {}
    for i, answer in enumerate(answers):
        if isinstance(answer, Refused):
            refused.setdefault(answer.why, [0, 0])[i >= count.probes] += 1
    return tuple((f"left out, which {library} refuses: {why}", probes, data) for why, (probes, data) in refused.items())


def _rows_left_out(probes: int, data: int) -> str:
    """``3 probes and 1 data row``: the rows a line leaves out, of each kind it has."""
    return " and ".join(counted(n, what) for n, what in ((probes, "probe"), (data, "data row")) if n)
