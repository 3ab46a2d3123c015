"""The targets treegen compiles to, one row each: the emitter that writes a model's text, the runner
that runs that text for real, its options and its file ending. The CLI, the API, `treegen verify`
and the tests read this table; adding a target is an emitter module with its template folder, a
runner and a row here (CONTRIBUTING.md)."""
from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Iterable

from .collector import collector_paused
from .errors import BadArgument, TreegenError, did_you_mean

if TYPE_CHECKING:
    from .model import Model, Tolerance


@dataclass(frozen=True)
class Option:
    """An option a target's emitter takes (a keyword argument of its ``emit``), as the CLI shows it."""

    name: str
    help: str
    flag: bool = False
    # The values it takes: a tuple, or "MODULE.NAME" of treegen.emit whose items (a dict's keys) they
    # are, read when first needed (the SQL dialects load the whole SQL back end).
    choices: tuple[str, ...] | str | None = None
    cli: str | None = None  # the CLI's spelling, when not --name-with-dashes
    aliases: str | None = None  # "MODULE.NAME" of a dict: other names of the choices (lower case) -> the choice

    def alias_names(self) -> dict[str, str]:
        """Other names users give the choices ('pg': 'postgres'), each the choice's name."""
        if self.aliases is None:
            return {}
        module, name = self.aliases.rsplit(".", 1)
        return dict(getattr(emitter(module), name))

    @property
    def flag_name(self) -> str:
        return "--" + (self.cli or self.name.replace("_", "-"))

    def choice_names(self) -> tuple[str, ...] | None:
        if not isinstance(self.choices, str):
            return self.choices
        module, name = self.choices.rsplit(".", 1)
        return tuple(getattr(emitter(module), name))


PROBA = Option("proba", "Also emit class probabilities (sql; every python, java, javascript and c program takes --proba).",
               flag=True)
LEAF = Option("leaf", "Also emit the ids of the leaves reached (sql: a leaf column; python, java, javascript, c: "
                      "the program's --leaf too).", flag=True)


@dataclass(frozen=True)
class Target:
    """One output language. Its emitter and runner are modules named here and imported when first
    used: a command loads the back end it runs, not all of them (nor numpy and Jinja for `--help`)."""

    name: str
    summary: str
    emitter: str  # its module in treegen.emit, whose emit(model, **options) -> the text
    options: tuple[Option, ...]
    extension: str  # the file ending of the text
    runner: str | None = None  # its module in treegen.run, whose run(text, csv_text, args, model=, **settings)
    variants: str | None = None  # an option that `verify` runs once per value given (sql: the dialect)
    program: bool = False  # a standalone program that reads CSV on stdin (README, "one protocol")
    # Files written beside the output (`export -o`): (file ending, the emitter's function that makes the
    # file's text from the output's text).
    beside: tuple[tuple[str, str], ...] = ()
    # The emitter's function computed(model, **options) -> (the model the text computes, why it is not
    # the model, or None): where the target's arithmetic cannot be the model's (float32 sums in a long MySQL
    # expression)
    computes: str | None = None
    # The emitter's function tolerance(model, **options) -> Tolerance or None (bit for bit): where the
    # target's engine computes a step otherwise than the model (Spark's EXP is Java's)
    tolerates: str | None = None
    also_read: tuple[str, ...] = ()  # other endings its files may have (`export -o`, `verify --program`)
    # The emitter's function for_output(output, options) -> the options with what -o's file name implies
    # (java: the class named after the file; c: the prefix), or refuses the name (python: a standard module's)
    named_by_output: bool = False
    aliases: tuple[str, ...] = ()  # other names users give it (lower case): a misspelt --to's hint

    def endings(self) -> tuple[str, ...]:
        return (self.extension, *self.also_read)

    def option_names(self) -> set[str]:
        return {option.name for option in self.options}

    @property
    def emit(self) -> Callable[..., str]:
        return emitter(self.emitter).emit

    @property
    def run(self) -> Callable[..., str] | None:
        return None if self.runner is None else self._runner_module().run

    @property
    def run_each(self) -> Callable[..., list[str]] | None:
        """run_each(text, csv_text, each_args, model=, **settings): the outputs for each list of
        arguments; a runner that is not a program computes the answers once and prints them each way."""
        if self.runner is None:
            return None
        module = self._runner_module()
        return getattr(module, "run_each", None) or (
            lambda text, csv_text, each_args, **context: [module.run(text, csv_text, args, **context) for args in each_args])

    @property
    def row_api(self) -> ModuleType | None:
        """The runner module that also runs the target's row API (its ``run_row_api``, ``ROW_API``, ``WAYS`` and
        ``WAY_APIS``: :mod:`treegen.run.row_api`), or None."""
        if self.runner is None:
            return None
        module = self._runner_module()
        return module if hasattr(module, "run_row_api") else None

    @property
    def rows_api(self) -> ModuleType | None:
        """The runner module that runs the target's many-rows API on its own (its ``run_rows_api``, ``ROWS_API``
        and ``rows_at_once``), where no row API driver does; or None."""
        if self.runner is None:
            return None
        module = self._runner_module()
        return module if hasattr(module, "run_rows_api") else None

    def _runner_module(self) -> ModuleType:
        return importlib.import_module(f".run.{self.runner}", __package__)

    @property
    def companions(self) -> tuple[tuple[str, Callable[[str], str]], ...]:
        return tuple((ending, getattr(emitter(self.emitter), make)) for ending, make in self.beside)

    @property
    def for_output(self) -> Callable[[str, dict], dict] | None:
        return emitter(self.emitter).for_output if self.named_by_output else None

    @property
    def computed(self) -> Callable[..., tuple[Model, str | None]] | None:
        return None if self.computes is None else getattr(emitter(self.emitter), self.computes)

    @property
    def tolerance(self) -> Callable[..., Tolerance | None] | None:
        return None if self.tolerates is None else getattr(emitter(self.emitter), self.tolerates)


def emitter(name: str) -> ModuleType:
    """A back end's module of treegen.emit, imported on first use."""
    return importlib.import_module(f".emit.{name}", __package__)


TARGETS = {target.name: target for target in (
    Target("python", "a standalone Python module (standard library only)", "python", (PROBA, LEAF), ".py",
           runner="python", program=True, named_by_output=True, aliases=("py", "python3")),
    Target("java", "one Java class without dependencies", "java",
           (PROBA, LEAF, Option("class_name", "java: the class name (default: the -o file's name, else TreegenModel)."),
            Option("package", "java: the package (default: none).")), ".java", runner="java", program=True,
           named_by_output=True),
    Target("javascript", "one JavaScript module without dependencies (Node 18+, browsers)", "javascript",
           (PROBA, LEAF, Option("module", "javascript: an ES module (default) or CommonJS.",
                                choices="javascript.MODULES")), ".mjs",
           runner="javascript", program=True, also_read=(".js", ".cjs"), named_by_output=True,
           aliases=("js", "mjs", "node", "nodejs", "ecmascript")),
    Target("c", "one C99 source file and its header (-o FILE.c writes FILE.h too), no dependencies", "c",
           (PROBA, LEAF, Option("prefix", "c: the start of every exported name (default: the -o file's name, "
                                          "else model).")), ".c",
           runner="c", program=True, beside=((".h", "header"),), named_by_output=True),
    Target("sql", "one SQL SELECT in a dialect, over --table: it returns the --keep columns, the features and "
                  "`prediction` (--proba: a column per class, named by its label; --leaf: `leaf`)", "sql",
           (PROBA, LEAF, Option("dialect", "sql: the SQL dialect (default ansi).", choices="sql.DIALECTS",
                                aliases="sql.DIALECT_ALIASES"),
            Option("table", "sql: the input table (default 'input'): its columns named as the features, of "
                            "their types (numbers in numeric columns)."),
            Option("expression", "sql: only the expression of the prediction (of each column with --proba, "
                                 "--leaf), for a SELECT's list or a view of your own.", flag=True),
            Option("keep", "sql: input columns the SELECT passes through, comma-separated (a key to join the "
                           "predictions back on).")), ".sql",
           runner="sql", variants="dialect", computes="computed", tolerates="tolerance"),
    Target("rules", "the rule text, for people and for `treegen parse`", "rule_text", (), ".rules",
           runner="rule_text", aliases=("rule", "rule_text", "text", "txt")),
    Target("dot", "a Graphviz diagram", "dot",
           (Option("image_format", "dot: render with Graphviz (svg) or write the dot text (default).",
                   choices=("dot", "svg"), cli="format"),), ".dot", also_read=(".svg",), named_by_output=True,
           aliases=("graphviz", "gv", "svg")),
)}

RUNNABLE = tuple(name for name, target in TARGETS.items() if target.runner is not None)
PROGRAMS = tuple(name for name, target in TARGETS.items() if target.program)


def target_of_file(option: str, path: str, among: Iterable[str] = tuple(TARGETS), what: str = "target") -> Target:
    """The target (of those named ``among``) whose files end as ``path`` (given as ``option``) does: its
    extension, or another ending its programs may have; refused in one line, naming the endings, where none does.
    The ending counts as written, as compilers read it: javac refuses T.JAVA, and gcc compiles t.C as C++."""
    chosen = [TARGETS[name] for name in among]
    ending = os.path.splitext(path)[1]
    found = next((t for t in chosen if ending in t.endings()), None)
    if found is None:
        endings = sorted(e for t in chosen for e in t.endings())
        if ending.lower() in endings:
            raise TreegenError(f"{option} {path}: its ending names no {what}: endings count in lower case, as "
                               f"compilers read them (javac refuses T.JAVA, gcc compiles t.C as C++); name a "
                               f"{ending.lower()} file")
        raise TreegenError(f"{option} {path}: its ending names no {what}; name a {', '.join(endings)} file")
    return found


def target(name: str) -> Target:
    try:
        return TARGETS[name]
    except KeyError:
        raise unknown_target(f"unknown target {name!r}; choose one of {', '.join(TARGETS)}", name) from None


def unknown_target(said: str, name: str, among: Iterable[str] = tuple(TARGETS)) -> BadArgument:
    """The refusal ``said`` of ``name``, no target ``among`` those, with what it may mean, in Python's words and
    the CLI's: another name of a target ('js'), a SQL dialect (the sql target in it), or a close spelling."""
    python, cli = target_hint(name, among)
    return BadArgument(said + python, command_line=said + cli)


def target_hint(name: str, among: Iterable[str] = tuple(TARGETS)) -> tuple[str, str]:
    """What ``name``, no target ``among`` those, may mean: (Python's words, the CLI's)."""
    among = tuple(among)
    if "sql" in among:
        dialect = _dialect_named(name)
        if dialect is not None:
            said = f"; {name!r} is a SQL dialect: "
            return said + f"to='sql', dialect={dialect!r}", said + f"--to sql --dialect {dialect}"
    hint = did_you_mean([name], among, {alias: t for t in among for alias in TARGETS[t].aliases})
    return hint, hint


def _dialect_named(name: str) -> str | None:
    """The SQL dialect that ``name`` names, by its name or another ('PostgreSQL'), or None."""
    dialect = next(option for option in TARGETS["sql"].options if option.name == "dialect")
    folded = name.strip().casefold()
    return folded if folded in dialect.choice_names() else dialect.alias_names().get(folded)


def check_options(to: str, options: dict) -> dict:
    """The options given (not None), once the target is known and takes each of them."""
    chosen = target(to)
    given = {k: v for k, v in options.items() if v is not None}
    taken = {option.name: option for option in chosen.options}
    unknown = sorted(name for name in given if name not in taken)
    if unknown:
        refused = sorted(_spelling(name) for name in unknown)
        raise BadArgument(f"the {to} target takes no option {', '.join(refused)}" + did_you_mean(unknown, taken))
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
    from .model import listed, model_problem, with_used_features_known
    options = check_options(to, options)
    with collector_paused():  # a big model's export makes millions of objects and no cycle
        model = listed(model)  # emitters follow the trees' links: each node is read many times
        problem = model_problem(model)  # models built in memory skip the JSON reader's checks
        if problem:
            raise TreegenError(f"the model cannot be compiled: {problem}")
        return TARGETS[to].emit(with_used_features_known(model), **options)


def api_doc(doc: str) -> str:
    """``doc`` (:func:`treegen.export`'s docstring) and what ``help(treegen.export)`` lists from this table:
    each target, and each option once with the targets that take it, the values it takes and its CLI flag.
    A choice of the SQL back end (its dialects) is named, not listed: listing loads the back end."""
    lines = ["", "Targets (``to``):"] + [f"    {name}: {target.summary}" for name, target in TARGETS.items()]
    lines += ["", "Options (keyword arguments; a target refuses one it does not take):"]
    for option in all_options():
        takers = [name for name, target in TARGETS.items() if option.name in target.option_names()]
        if option.flag:
            value = "True"
        elif isinstance(option.choices, tuple):
            value = " or ".join(repr(choice) for choice in option.choices)
        elif option.choices:
            value = f"a key of treegen.emit.{option.choices}"
        else:
            value = "str"
        meaning = option.help.removeprefix(f"{takers[0]}: ") if len(takers) == 1 else option.help
        lines.append(f"    {option.name}={value} ({', '.join(takers)}; the CLI's {option.flag_name}): {meaning}")
    import textwrap
    wrapped = [textwrap.fill(line, 110, initial_indent=" " * 4, subsequent_indent=" " * 12) if line else ""
               for line in lines]
    return doc.rstrip() + "\n" + "\n".join(wrapped) + "\n"


def all_options() -> list[Option]:
    """Every option of every target once, in table order (the CLI's `export` options)."""
    seen: dict[str, Option] = {}
    for t in TARGETS.values():
        for option in t.options:
            seen.setdefault(option.name, option)
    return list(seen.values())
