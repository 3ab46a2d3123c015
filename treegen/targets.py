"""The targets treegen compiles to, one row each: the emitter that writes a model's text, the runner
that runs that text for real, its options and its file ending. The CLI, the API, `treegen verify`
and the tests read this table; adding a target is an emitter module with its template folder, a
runner and a row here (CONTRIBUTING.md)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .emit import c, dot, java, javascript, python, rule_text, sql
from .emit.sql import DIALECTS
from .errors import TreegenError
from .model import Model, listed, model_problem
from .run import c as run_c
from .run import java as run_java
from .run import javascript as run_javascript
from .run import python as run_python
from .run import rule_text as run_rule_text
from .run import sql as run_sql


@dataclass(frozen=True)
class Option:
    """An option a target's emitter takes (a keyword argument of its ``emit``), as the CLI shows it."""

    name: str
    help: str
    flag: bool = False
    choices: tuple[str, ...] | None = None
    cli: str | None = None  # the CLI's spelling, when not --name-with-dashes

    @property
    def flag_name(self) -> str:
        return "--" + (self.cli or self.name.replace("_", "-"))


PROBA = Option("proba", "Also emit class probabilities (sql; every python, java, javascript and c program takes --proba).",
               flag=True)
LEAF = Option("leaf", "Also emit the ids of the leaves reached (python, java, javascript, c: the program's --leaf).",
              flag=True)


@dataclass(frozen=True)
class Target:
    """One output language."""

    name: str
    summary: str
    emit: Callable[..., str]  # emit(model, **options) -> the text
    options: tuple[Option, ...]
    extension: str  # the file ending of the text
    run: Callable[..., str] | None = None  # run(text, csv_text, args, model=, **settings) -> what it prints
    variants: str | None = None  # an option that `verify` runs once per value given (sql: the dialect)
    program: bool = False  # a standalone program that reads CSV on stdin (README, "one protocol")
    # Files written beside the output (`export -o`): (file ending, the file's text from the output's text).
    companions: tuple[tuple[str, Callable[[str], str]], ...] = ()
    # computed(model, **options) -> (the model the text computes, why it is not the model, or None):
    # where the target's arithmetic cannot be the model's (float32 sums in SQLite and MySQL)
    computed: Callable[..., tuple[Model, str | None]] | None = None

    def option_names(self) -> set[str]:
        return {option.name for option in self.options}


TARGETS = {target.name: target for target in (
    Target("python", "a standalone Python module (standard library only)", python.emit, (PROBA, LEAF), ".py",
           run=run_python.run, program=True),
    Target("java", "one Java class without dependencies", java.emit,
           (PROBA, LEAF, Option("class_name", "java: the class name (default TreegenModel)."),
            Option("package", "java: the package (default: none).")), ".java", run=run_java.run, program=True),
    Target("javascript", "one JavaScript module without dependencies (Node 18+, browsers)", javascript.emit,
           (PROBA, LEAF, Option("module", "javascript: an ES module (default) or CommonJS.",
                                choices=javascript.MODULES)), ".mjs",
           run=run_javascript.run, program=True),
    Target("c", "one C99 source file and its header (-o FILE.c writes FILE.h too), no dependencies", c.emit,
           (PROBA, LEAF, Option("prefix", "c: the start of every exported name (default model).")), ".c",
           run=run_c.run, program=True, companions=((".h", c.header),)),
    Target("sql", "one SQL SELECT (or expression) in a dialect", sql.emit,
           (PROBA, LEAF, Option("dialect", "sql: the SQL dialect (default ansi).", choices=tuple(DIALECTS)),
            Option("table", "sql: the input table (default 'input')."),
            Option("expression", "sql: only the CASE expression.", flag=True)), ".sql",
           run=run_sql.run, variants="dialect", computed=sql.computed),
    Target("rules", "the rule text, for people and for `treegen parse`", rule_text.emit, (), ".rules",
           run=run_rule_text.run),
    Target("dot", "a Graphviz diagram", dot.emit,
           (Option("image_format", "dot: render with Graphviz (svg) or write the dot text (default).",
                   choices=("dot", "svg"), cli="format"),), ".dot"),
)}

RUNNABLE = tuple(name for name, target in TARGETS.items() if target.run is not None)
PROGRAMS = tuple(name for name, target in TARGETS.items() if target.program)


def target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise TreegenError(f"unknown target {name!r}; choose one of {', '.join(TARGETS)}") from None


def check_options(to: str, options: dict) -> dict:
    """The options given (not None), once the target is known and takes each of them."""
    chosen = target(to)
    given = {k: v for k, v in options.items() if v is not None}
    taken = {option.name: option for option in chosen.options}
    refused = sorted(_spelling(name) for name in given if name not in taken)
    if refused:
        raise TreegenError(f"the {to} target takes no option {', '.join(refused)}")
    return given


def _spelling(name: str) -> str:
    """How the user wrote an option: its CLI spelling when any target spells it so."""
    for t in TARGETS.values():
        for option in t.options:
            if option.name == name and option.cli:
                return option.cli
    return name


def emit(model: Model, to: str, **options) -> str:
    """The text of one target for ``model``. Options a target does not take are an error."""
    options = check_options(to, options)
    model = listed(model)  # emitters follow the trees' links: each node is read many times
    problem = model_problem(model)  # models built in memory skip the JSON reader's checks
    if problem:
        raise TreegenError(f"the model cannot be compiled: {problem}")
    return TARGETS[to].emit(model, **options)


def all_options() -> list[Option]:
    """Every option of every target once, in table order (the CLI's `export` options)."""
    seen: dict[str, Option] = {}
    for t in TARGETS.values():
        for option in t.options:
            seen.setdefault(option.name, option)
    return list(seen.values())
