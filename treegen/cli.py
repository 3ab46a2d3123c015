"""The command line: thin commands over the library. An error the user caused is one line, exit 2."""
from __future__ import annotations

import csv
import errno
import math
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from functools import partial
from typing import Callable, Iterable, Sequence

import click

from . import __version__
from .describe import summary
from .errors import TreegenError, close_names, did_you_mean
from .importers import IMPORTERS, import_file, library_file
from .learn import ALGORITHM_ALIASES, ALGORITHMS
from .loading import is_model_file, load_model
from .targets import RUNNABLE, TARGETS, all_options, check_options, emit, target_hint, target_of_file

# The modules above hold the tables' names and help, all that `treegen --help` needs; the back ends,
# learners and importers they name (and numpy, Jinja, Lark) load in the command that uses them.


class Choice(click.Choice):
    """click's choice, whose refusal says which choice a misspelt value may be ('pyhton': 'python'), as
    click's own errors do for a command or an option; ``hint(value)``, when given, says it instead ('js':
    'javascript')."""

    def __init__(self, choices, hint: Callable[[str], str] | None = None):
        super().__init__(choices)
        self.hint = hint

    def get_invalid_choice_message(self, value, ctx) -> str:
        hint = self.hint(value) if self.hint else did_you_mean([value], self.choices)
        return super().get_invalid_choice_message(value, ctx).rstrip(".") + hint


ALGORITHM = Choice(list(ALGORITHMS), hint=lambda value: did_you_mean([value], ALGORITHMS, ALGORITHM_ALIASES))


class NumberRange(click.FloatRange):
    """click's float range, which refuses NaN as it refuses a number out of range (click's own lets NaN
    through every bound: --min-impurity-decrease nan trained the whole tree without a word)."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if number != number:
            self.fail(f"{value!r} is not a number.", param, ctx)
        return number


class OnceOptions(click.Command):
    """A command that refuses an option of one value given twice: click keeps the last, the first lost without
    a word (`-o a.json -o b.json`, `--target a --target b`). Options that take many values, and flags, may
    repeat."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not ctx.resilient_parsing:
            _, _, order = self.make_parser(ctx).parse_args(args=list(args))  # (click's own errors: the same)
            for param in order:
                if _takes_one_value(param) and order.count(param) > 1:
                    raise click.UsageError(f"{'/'.join(sorted(param.opts, key=len))} is given {order.count(param)} times: give it "
                                           "once", ctx)
        return super().parse_args(ctx, args)


def _takes_one_value(param: click.Parameter) -> bool:
    return isinstance(param, click.Option) and not (param.is_flag or param.multiple or param.count)


class TreegenGroup(click.Group):
    """Turns TreegenError (and unreadable or unwritable files) into one line on stderr and exit 2."""

    command_class = OnceOptions  # (LateOptions is one too)

    def resolve_command(self, ctx, args):
        # click guessed "Did you mean 'verify'?" for `treegen version`
        if args and args[0] in OPTIONS_AS_COMMANDS and not ctx.resilient_parsing:
            raise click.UsageError(f"No such command {args[0]!r}: {OPTIONS_AS_COMMANDS[args[0]]}", ctx)
        return super().resolve_command(ctx, args)

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as err:  # an option of treegen itself
            _usage_error(err)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as err:  # a command's options: a bad value, an unknown option
            _usage_error(err)
        except TreegenError as err:
            if err.command_line is not None:
                err.message = err.command_line
            say_error(str(err))
            ctx.exit(2)
        except BrokenPipeError:  # the reader of stdout went away (`| head -1`): no error, as the programs say
            _stop_quietly()
        except KeyboardInterrupt:  # Ctrl-C: exit 130 (128 + SIGINT) as a shell's tools do; click said "Aborted!", 1
            click.echo("\n" * sys.stderr.isatty() + "treegen: interrupted", err=True)  # (after the terminal's ^C)
            ctx.exit(130)
        except (OSError, UnicodeError) as err:
            say_error(str(err))
            ctx.exit(2)


# Commands a user may try that are options of treegen, and what to type
OPTIONS_AS_COMMANDS = {"help": "'treegen --help' lists the commands, 'treegen COMMAND --help' shows one",
                       "version": "'treegen --version' shows the version"}


ERROR_LENGTH = 2000  # an error line's characters at most: a bad value is echoed, and a value may be megabytes


def say_error(message: str) -> None:
    """The error line on stderr, its middle left out where it is longer than ERROR_LENGTH (the file, line and
    column come first, what is wrong last)."""
    if len(message) > ERROR_LENGTH:
        cut = len(message) - ERROR_LENGTH
        message = f"{message[:ERROR_LENGTH * 2 // 3]} [... {cut:,} characters ...] {message[-ERROR_LENGTH // 3:]}"
    click.echo(f"treegen: error: {message}", err=True)


def _stop_quietly():
    """End as a Unix tool ends when its reader closes the pipe: exit 141 (128 + SIGPIPE), nothing said. Python
    flushes stdout once more on its way out, so point it at nothing first."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    sys.exit(141)


class LateOptions(OnceOptions):
    """A command some of whose options are made from a table that is costly to load (the SQL dialects
    and engines load the whole SQL back end): ``late()`` makes them, after the others, when the command
    is first parsed or its help shown, so that `treegen --help` and the other commands never load it."""

    def __init__(self, *args, late: Callable[[], list[click.Option]], **kwargs):
        super().__init__(*args, **kwargs)
        self.late = late

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        if self.late is not None:
            self.params.extend(self.late())
            self.late = None
        return super().get_params(ctx)


class LateChoice(Choice):
    """A choice among names read when first needed (the SQL dialects load the SQL back end): an export
    that does not give the option, and `treegen --help`, never read them."""

    def __init__(self, names: Callable[[], Sequence[str]], hint: Callable[[str], str] | None = None):
        self.names = names  # (click.Choice's own __init__ reads them at once)
        self.case_sensitive = True
        self.hint = hint

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(self.names())


def _usage_error(err: click.UsageError):
    """Click's usage errors as one line, exit 2; a bare ``treegen`` still shows the help."""
    if isinstance(err, getattr(click.exceptions, "NoArgsIsHelpError", ())):
        raise err
    message = err.format_message()
    if isinstance(err, click.NoSuchOption) and err.ctx is not None:
        message = _option_not_taken(err.ctx, err.option_name) or message
    if isinstance(err, click.MissingParameter) and err.ctx is not None:  # `treegen train` alone: what it takes
        message = f"{message.rstrip('.')}; try '{err.ctx.command_path} -h'"
    say_error(message)
    sys.exit(2)


# Options of other commands that a command does without, and why: click would suggest the command's option
# spelt most alike ('--probas': '--program' for verify)
OPTIONS_NOT_TAKEN = {("verify", "--proba"): "verify checks the probabilities of every target that writes them, "
                                            "without an option"}


def _option_not_taken(ctx: click.Context, option: str) -> str | None:
    """Why the command has no option ``option``, when it is one it does without, or spelt more like one
    than like any it takes."""
    reasons = {name: why for (command, name), why in OPTIONS_NOT_TAKEN.items() if command == ctx.command.name}
    taken = [name for param in ctx.command.get_params(ctx) for name in param.opts]
    close = [option] if option in reasons else close_names(option, [*reasons, *taken], n=1)
    return f"No such option {option!r}: {reasons[close[0]]}" if close and close[0] in reasons else None


@click.group(cls=TreegenGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="treegen")
def main():
    """treegen: train or import decision trees and compile them to Python, Java, JavaScript, C, SQL, rule
    text or Graphviz dot."""


# -- shared options --------------------------------------------------------------------------

def data_options(f):
    for option in reversed([
        click.option("--target", "-t", help="Target column (default: the last column)."),
        click.option("--nominal", multiple=True, help="Treat these columns as nominal (repeat or comma-separate; "
                                                       "quote a name with a comma: '\"a, b\"')."),
        click.option("--ignore", multiple=True, help="Leave these columns out (repeat or comma-separate, as --nominal)."),
        click.option("--regression/--classification", default=None,
                     help="Force the kind of target (default: numeric target means regression for cart)."),
    ]):
        f = option(f)
    return f


def learner_options(f):
    for option in reversed([
        click.option("--algorithm", "-a", type=ALGORITHM, default="c45", show_default=True,
                     help="The learner: id3 (information gain, nominal features), c45 (Weka's J48) or cart "
                          "(scikit-learn's tree)."),
        click.option("--max-depth", type=click.IntRange(min=1), help="id3, cart: maximum depth (default: none)."),
        click.option("--confidence", type=NumberRange(0, 0.5, min_open=True),
                     help="c45: pruning confidence (default 0.25)."),
        click.option("--min-leaf", type=click.IntRange(min=0), help="c45: minimum weight per branch, J48's -M (default 2)."),
        click.option("--unpruned", is_flag=True, default=None, help="c45: do not prune."),
        click.option("--reduced-error", is_flag=True, default=None, help="c45: reduced-error pruning."),
        click.option("--pruning-folds", type=click.IntRange(min=2),
                     help="c45: folds for reduced-error pruning (default 3)."),
        click.option("--no-subtree-raising", "subtree_raising", flag_value=False, default=None,
                     help="c45: prune without subtree raising (J48's -S)."),
        click.option("--no-collapse", "collapse", flag_value=False, default=None,
                     help="c45: keep splits that do not reduce training error (-O of J48 after 3.6)."),
        click.option("--binary-splits", is_flag=True, default=None,
                     help="c45: split a nominal attribute into one value against the rest, J48's -B "
                          "(default: one branch per value)."),
        click.option("--laplace", is_flag=True, default=None,
                     help="c45: Laplace-smoothed leaf probabilities, (count + 1) / (weight + classes), "
                          "J48's -A (default: class frequencies)."),
        click.option("--no-mdl-correction", "mdl_correction", flag_value=False, default=None,
                     help="c45: no MDL correction of numeric splits' gain, J48's -J from Weka 3.7 "
                          "(default: corrected, as J48 3.6 always does)."),
        click.option("--criterion", type=Choice(["gini", "entropy", "squared_error"]),
                     help="cart: impurity to minimise (default gini; squared_error for regression)."),
        click.option("--min-samples-split", type=click.IntRange(min=2),
                     help="cart: fewest rows (weight) a node needs to be split (default 2)."),
        click.option("--min-samples-leaf", type=click.IntRange(min=1),
                     help="cart: fewest rows (weight) in each leaf (default 1)."),
        click.option("--min-impurity-decrease", type=NumberRange(min=0),
                     help="cart: split only when the weighted impurity falls by at least this (default 0)."),
        click.option("--ccp-alpha", help="cart: cost-complexity pruning alpha, or 'cv' to choose by cross-validation "
                                        "(default 0: no pruning)."),
        click.option("--cv-folds", type=click.IntRange(min=2), help="cart: folds for --ccp-alpha cv (default 5)."),
        click.option("--class-weight",
                     help="cart: 'balanced', or weights as CLASS=W,CLASS=W (quote a class with a comma: "
                          "'\"c, d\"=2'; default: every class 1)."),
        click.option("--min-weight-fraction-leaf", type=NumberRange(0, 0.5),
                     help="cart: least fraction of the total weight in each leaf (default 0)."),
        click.option("--cast", type=Choice(["float64", "float32"]),
                     help="cart: compare float32 casts of the inputs as scikit-learn does: its splits and "
                          "thresholds bit for bit but between splits equally good in exact arithmetic, "
                          "leaf values within rounding; --random-state grows its tree bit for bit "
                          "(default float64; float32 with --random-state)."),
        click.option("--random-state", type=click.IntRange(0, 2 ** 32 - 1),
                     help="cart: grow scikit-learn's DecisionTree*(random_state=N) tree bit for bit -- node "
                          "ids, splits, values, ties -- in its order, depth first and slower; float32, "
                          "numeric features (default: treegen's own grower)."),
    ]):
        f = option(f)
    return f


LEARNER_OPTIONS = {  # CLI option -> learner parameter, for the algorithms that take it
    "max_depth": ("max_depth", {"id3", "cart"}),
    "confidence": ("confidence", {"c45"}),
    "min_leaf": ("min_leaf", {"c45"}),
    "unpruned": ("unpruned", {"c45"}),
    "reduced_error": ("reduced_error", {"c45"}),
    "pruning_folds": ("folds", {"c45"}),
    "subtree_raising": ("subtree_raising", {"c45"}),
    "collapse": ("collapse", {"c45"}),
    "binary_splits": ("binary_splits", {"c45"}),
    "laplace": ("laplace", {"c45"}),
    "mdl_correction": ("mdl_correction", {"c45"}),
    "criterion": ("criterion", {"cart"}),
    "min_samples_split": ("min_samples_split", {"cart"}),
    "min_samples_leaf": ("min_samples_leaf", {"cart"}),
    "min_impurity_decrease": ("min_impurity_decrease", {"cart"}),
    "ccp_alpha": ("ccp_alpha", {"cart"}),
    "cv_folds": ("cv_folds", {"cart"}),
    "class_weight": ("class_weight", {"cart"}),
    "min_weight_fraction_leaf": ("min_weight_fraction_leaf", {"cart"}),
    "cast": ("cast", {"cart"}),
    "random_state": ("random_state", {"cart"}),
}


# The learners' parameters a learner's error may name, as the CLI's flags: the names with an
# underscore, and the one-word ones that read as nothing else; "folds", "confidence" and "seed" are
# words in the learners' messages too ("needs 2 to 14 folds").
FLAGS = {param: "--" + option.replace("_", "-") for option, (param, _) in LEARNER_OPTIONS.items()
         if "_" in param or param in ("criterion", "cast")}
# A parameter name standing alone: not inside a quoted name (a column 'max_depth') or a flag.
PARAMETER = re.compile(r"(?<![\w'\"-])(" + "|".join(FLAGS) + r")(?![\w'\"])(=?)")


@contextmanager
def flag_names():
    """A learner's error names its Python parameters (``random_state``); the CLI's user knows the flags."""
    try:
        yield
    except TreegenError as err:
        err.message = PARAMETER.sub(lambda m: FLAGS[m.group(1)] + (" " if m.group(2) else ""), err.message)
        raise


def _split_names(values) -> list[str]:
    from .table import split_names
    return split_names(values)


def learner_params(algorithm: str, options: dict) -> dict:
    given = dict(options)
    params = {}
    for option, (param, algorithms) in LEARNER_OPTIONS.items():
        value = options.pop(option, None)
        if value is None:
            continue
        if algorithm not in algorithms:
            flag = "--" + option.replace("_", "-")
            raise TreegenError(f"{flag} does not apply to --algorithm {algorithm}")
        if option == "ccp_alpha" and value != "cv":
            value = _ccp_alpha(value)
        if option == "class_weight" and value != "balanced":
            value = _class_weights(value)
        params[param] = value
    _refuse_idle(given)
    return params


def _ccp_alpha(text: str) -> float:
    """--ccp-alpha's number, refused here, before the data is read, when it is not one at least 0 (NaN too)."""
    try:
        alpha = float(text)
    except ValueError:
        alpha = math.nan
    if not alpha >= 0:
        raise TreegenError(f"--ccp-alpha takes a number at least 0 or 'cv', not {text!r}")
    return alpha


ONLY_WITH = {  # an option that acts only with another's value -> (that option, the value, as the user writes it)
    "pruning_folds": ("reduced_error", True, "--reduced-error"),
    "cv_folds": ("ccp_alpha", "cv", "--ccp-alpha cv"),
}


NOT_WITH = {  # an option that does not act when another is given (J48 refuses these too) -> those others
    "confidence": ("unpruned", "reduced_error"),
    "subtree_raising": ("unpruned", "reduced_error"),
    "collapse": ("reduced_error",),
}


def _refuse_idle(options: dict) -> None:
    """An option the learner would read only with another is refused without it, and one it would not
    read with another is refused with it: silently ignored, the user would believe it acted."""
    flag = {"subtree_raising": "--no-subtree-raising", "collapse": "--no-collapse"}
    for option, (other, value, needed) in ONLY_WITH.items():
        if options.get(option) is not None and options.get(other) != value:
            raise TreegenError(f"--{option.replace('_', '-')} applies only with {needed}")
    for option, others in NOT_WITH.items():
        given = [other for other in others if options.get(other)]
        if options.get(option) is not None and given:
            name = flag.get(option, "--" + option)
            raise TreegenError(f"{name} does not apply with --{given[0].replace('_', '-')}")


def check_criterion(dataset, criterion: str | None, regression: bool | None) -> None:
    """CART takes its criterion from the kind of target; one for the other kind would be ignored
    (gini on a numeric target) or refused by the learner in Python's words: refuse both here, saying
    how to get the kind of tree the criterion is for."""
    if criterion is None:
        return
    name = dataset.target.name
    if dataset.target.is_classification and criterion == "squared_error":
        raise TreegenError(f"--criterion squared_error is for a numeric target and {name!r} holds classes; "
                           f"use gini or entropy")
    if regression and criterion != "squared_error":
        raise TreegenError(f"--criterion {criterion} does not apply to --regression")
    if not dataset.target.is_classification and criterion != "squared_error":
        from .table import name_argument
        raise TreegenError(f"--criterion {criterion} is for classes and the target {name!r} is numeric "
                           f"(a regression tree); add --nominal {name_argument(name)} to learn its values as classes")


def _class_weights(text: str) -> dict:
    """CLASS=WEIGHT pairs read as one CSV record, so that a class with a comma is written in double quotes
    ('"c, d"=2'); the class is what comes before the last '='. A weight is a finite number at least 0:
    an infinite or NaN one would make leaves that no model file holds, and a negative one no sense."""
    weights = {}
    for part in _csv_fields(text):
        label, sep, weight = part.rpartition("=")
        try:
            weights[label] = float(weight)
        except ValueError:
            sep = ""
        if not sep:
            raise TreegenError(f"--class-weight takes 'balanced' or CLASS=WEIGHT,..., not {text!r}")
        if not (math.isfinite(weights[label]) and weights[label] >= 0):
            raise TreegenError(f"--class-weight: the weight of {label!r} must be a finite number at least 0, "
                               f"not {weight!r}")
    return weights


def _csv_fields(text: str) -> list[str]:
    try:
        return next(csv.reader([text]), None) or [""]  # (an empty text: one empty field, refused)
    except csv.Error:  # a line break outside double quotes
        raise TreegenError(f"--class-weight takes 'balanced' or CLASS=WEIGHT,..., not {text!r}") from None


def load_training_data(path, target, nominal, ignore, regression, algorithm, warn=None, options=None):
    """The data set to learn from; ``warn`` (when given) is called with each line of training_warnings;
    ``options``: the learner's, of which cart's --cast float32 (or --random-state) refuses values float32
    cannot hold."""
    from .data import CLI, learning_data, learns_float32, read_table, refuse_regression
    refuse_regression(algorithm, regression)  # before a file is read
    dataset, warnings = learning_data(read_table(path), target, _split_names(nominal), _split_names(ignore),
                                      regression, algorithm, CLI, float32=learns_float32(algorithm, options or {}))
    for text in warnings if warn else ():
        warn(text)
    return dataset


def warn(lines: list[str]) -> None:
    """Say what reading the data decided that its user may not have meant (training_warnings), once the
    options are known good: an error is the one line of a run that fails."""
    for line in lines:
        click.echo(f"treegen: warning: {line}", err=True)


def fit_with_progress(dataset, algorithm: str, params: dict):
    """Fit; on a terminal, a fit that takes more than two seconds shows a progress bar on stderr."""
    from .learn import fit
    with progress_bar(f"fitting {algorithm}", float(dataset.weights.sum())), flag_names():
        return fit(dataset, algorithm, **params)


@contextmanager
def progress_bar(label: str, total: float | None):
    """A bar on stderr, with an ETA, for work that reports through treegen.progress and runs longer than
    two seconds (TREEGEN_PROGRESS_AFTER seconds, when set); nothing when stderr is not a terminal, or when
    the total is not known (None)."""
    from .progress import bar_after
    if total is None or not sys.stderr.isatty():
        yield
        return
    with bar_after(float(os.environ.get("TREEGEN_PROGRESS_AFTER", 2.0)), total, partial(started_bar, label)):
        yield


def started_bar(label: str, length: int, seconds_run: float):
    """click's bar for work that has run ``seconds_run`` already: its clock starts then, or the work
    done before the bar appeared would seem to have taken no time, and the ETA would say 00:00:00."""
    bar = click.progressbar(length=length, label=label, file=sys.stderr, show_eta=True)
    bar.start = time.time() - seconds_run
    return bar


def write_text(text: str, output: str | None) -> None:
    write_parts([text], output)


def write_parts(parts: Iterable[str], output: str | None) -> None:
    """Texts written in turn to stdout (None or '-') or to the file ``output``. A file is written beside itself
    and then takes its name, so that it is never seen half written: an error while the parts are made (a row
    refused a million rows in) leaves it as it was. A device or a pipe (/dev/stdout), or a folder where no
    file can be made beside it, is written as it is."""
    if output == "":
        raise TreegenError("-o '': an output file needs a name ('-' is stdout)")
    if output is None or output == "-":
        for part in parts:
            click.echo(part, nl=False)
        return
    target = os.path.realpath(output)  # a link's file, not the link, takes the new text
    if os.path.isfile(target) and not os.access(target, os.W_OK):  # refused, as writing it in place is
        raise TreegenError(f"cannot write {output}: {os.strerror(errno.EACCES)}")
    if os.path.exists(target) and not os.path.isfile(target):  # a device or a pipe
        return _write_in_place(parts, output)
    try:
        handle, beside = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", dir=os.path.dirname(target))
    except OSError:  # a folder where no file can be made
        return _write_in_place(parts, output)
    try:
        with open(handle, "w", encoding="utf-8", newline="") as f:
            f.writelines(parts)
        _give_mode(beside, target)
        os.replace(beside, target)
    except OSError as err:
        raise TreegenError(f"cannot write {output}: {err.strerror or err}") from None
    finally:
        if os.path.exists(beside):
            os.unlink(beside)


def _write_in_place(parts: Iterable[str], output: str) -> None:
    try:
        with open(output, "w", encoding="utf-8", newline="") as f:
            f.writelines(parts)
    except OSError as err:
        raise TreegenError(f"cannot write {output}: {err.strerror or err}") from None


def _give_mode(beside: str, target: str) -> None:
    """The mode the file would have had written in place: the old file's, or a new file's under the umask
    (mkstemp makes its file 0600)."""
    if os.path.exists(target):
        shutil.copymode(target, beside)
    else:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(beside, 0o666 & ~umask)


def refuse_overwriting(output: str | None, *inputs: str | None) -> None:
    """-o naming a file the command reads (`train data.csv -o data.csv`, `import model.json -o model.json`):
    writing it would replace the user's data or model, lost; refused before anything is read or written."""
    if output in (None, "", "-") or not os.path.exists(output):
        return
    for path in inputs:
        if path not in (None, "-") and os.path.exists(path) and os.path.samefile(path, output):
            raise TreegenError(f"-o {output}: that is the input file {path}, which writing would replace; "
                               "name another output file")


def refuse_code_ending(command: str, output: str | None) -> None:
    """-o of a command that writes a treegen model (train, import, parse) whose ending names a target (model.py):
    the JSON model was written there as if it were the code."""
    ending = os.path.splitext(output or "")[1]
    found = next((t for t in TARGETS.values() if ending and ending in t.endings()), None)
    if found is not None:
        json_file = shlex.quote(os.path.splitext(output)[0] + ".json")
        raise TreegenError(f"-o {output}: {command} writes a treegen model (JSON), not {found.name}; write it to "
                           f"{json_file}, then `treegen export {json_file} -o {shlex.quote(output)}` compiles it")


def refuse_swapped(model: str, data: str | None) -> None:
    """MODEL and DATA given the other way round (`predict data.csv model.json`): said so, where the model's
    loader said only that the data file is neither a model nor rule text."""
    if data not in (None, "-") and model != "-" and is_model_file(data) and not is_model_file(model):
        raise TreegenError(f"MODEL comes first, then DATA: {model} is no model and {data} is one; give them the "
                           "other way round")


# -- commands --------------------------------------------------------------------------------

@main.command()
@click.argument("data", type=click.Path(dir_okay=False))
@data_options
@learner_options
@click.option("--seed", type=click.IntRange(min=0),
              help="Random seed (cart with --ccp-alpha cv: default 0; c45 reduced-error pruning: default 1).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the model here (default: stdout).")
def train(data, target, nominal, ignore, regression, algorithm, seed, output, **options):
    """Learn a tree from a CSV or ARFF file.

    Saves it as a JSON model (docs/model-format.md) and says on stderr what was built."""
    from . import modelio
    from .evaluation import training_summary
    refuse_overwriting(output, data)
    refuse_code_ending("train", output)
    warnings = []  # said once the options are known good: an error is the one line of a run that fails
    dataset = load_training_data(data, target, nominal, ignore, regression, algorithm, warn=warnings.append,
                                 options=options)
    params = learner_params(algorithm, options)
    check_criterion(dataset, params.get("criterion"), regression)
    if seed is not None:
        if not (params.get("reduced_error") or params.get("ccp_alpha") == "cv"):  # nothing else draws
            raise TreegenError("--seed applies only with c45's --reduced-error or cart's --ccp-alpha cv")
        params["seed"] = seed
    warn(warnings)
    model = fit_with_progress(dataset, algorithm, params)
    model.meta.setdefault("source", data)
    write_text(modelio.dumps(model), output)
    where = f"; wrote {output}" if output not in (None, "-") else ""
    click.echo(f"treegen: trained {training_summary(model, dataset)}{where}", err=True)


# What MODEL may be, for the commands that read one.
MODEL_FILES = ("MODEL: a treegen model (JSON), rule text (export --to rules), or a model file of scikit-learn "
               "(.skops), XGBoost, LightGBM or CatBoost, read as `treegen import` reads it.")


@main.command(epilog=MODEL_FILES)
@click.argument("model", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--style", type=Choice(["plain", "j48"]), default="plain", show_default=True,
              help="j48: print the tree exactly as Weka's J48 does.")
def show(model, style):
    """Print a model's tree as indented text.

    Each leaf shows its prediction and class counts (or its value and weight: a boosted tree's, the score
    it adds); --style j48 prints a C4.5 tree exactly as Weka's J48 does."""
    loaded = load_model(model)
    if style == "j48":
        from .learn.j48_text import j48_text
        click.echo(j48_text(loaded), nl=False)
    else:
        from .show import show_lines
        for line in show_lines(loaded):  # written as made: a deep tree's text is not held whole
            sys.stdout.write(line + "\n")


def target_options(f):
    """The options of every target (treegen.targets), each saying which targets take it."""
    for option in reversed(all_options()):
        if option.flag:
            kind = {"is_flag": True, "default": None}
        else:
            kind = {"type": LateChoice(option.choice_names, hint=lambda value, option=option: did_you_mean(
                [value], option.choice_names(), option.alias_names())) if option.choices else str}
        f = click.option(option.flag_name, option.name, help=option.help, **kind)(f)
    return f


@main.command(epilog=MODEL_FILES)
@click.argument("model", type=click.Path(dir_okay=False))
@click.option("--to", "target", type=Choice(list(TARGETS), hint=lambda value: target_hint(value)[1]),
              help="The target: " + "; ".join(f"{t.name}, {t.summary}" for t in TARGETS.values())
                   + ". Default: the one -o's ending names ("
                   + ", ".join(ending for t in TARGETS.values() for ending in t.endings())
                   + "; -o FILE.svg means --to dot --format svg, -o FILE.cjs --module commonjs).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here (default: stdout).")
@target_options
def export(model, target, output, **options):
    """Generate code, rule text or a diagram from a model.

    With -o, a target that comes in two files writes the second beside the first (c: FILE.h), unless -o is
    no file (/dev/null, /dev/stdout, a pipe): the first alone then, as on stdout."""
    if target is None:
        if output in (None, "-"):
            raise TreegenError(f"export needs --to (one of {', '.join(TARGETS)}), or -o FILE whose ending names it")
        target = target_of_file("-o", output).name
    refuse_target_options(target, options)  # before the model is loaded
    refuse_overwriting(output, model)
    if output not in (None, "-") and TARGETS[target].for_output is not None:
        options = TARGETS[target].for_output(output, options)  # what the file's name implies (java: the class)
    loaded = load_model(model)
    for line in _import_notes(loaded):  # a library's model (imported here or before): what import said of it
        click.echo(f"treegen: note: {line}", err=True)
    if options.get("proba") and not loaded.target.is_classification:
        raise TreegenError("--proba needs a classification model")  # as predict says: there are no classes
    text = emit(loaded, target, **options)
    if TARGETS[target].computed is not None:
        why = TARGETS[target].computed(loaded, **check_options(target, options))[1]
        if why:
            click.echo(f"treegen: note: {why}; `treegen verify` measures how far from the model", err=True)
    if target == "sql" and options.get("expression"):
        from .emit.sql import subquery_note
        if note := subquery_note(text, **check_options(target, options)):
            click.echo(f"treegen: note: {note}", err=True)
        if len(text.encode()) > BIG_EXPRESSION:
            _note_big_expression(loaded, text, options)
    beside = {} if output in (None, "-") or not_a_file(output) else {
        os.path.splitext(output)[0] + ending: make for ending, make in TARGETS[target].companions}
    for path in beside:
        refuse_overwriting(path, model)
    if output in beside:
        raise TreegenError(f"-o {output}: the {target} target writes its own {os.path.splitext(output)[1]} file "
                           f"beside the output; name the output {os.path.splitext(output)[0] + TARGETS[target].extension}")
    write_text(text, output)
    for path, make in beside.items():  # C's header beside its source
        write_text(make(text), path)


def not_a_file(path: str) -> bool:
    """Whether -o names something that is no file of a folder, which nothing can be written beside: a device
    (/dev/null), a pipe (>(gcc -x c -)), or a descriptor, whose name goes through /proc (/dev/stdout, a link to
    /proc/self/fd/1, and /dev/fd/1 are regular files when stdout is redirected to one; /dev/stdout.h would be a
    new file in /dev). A file in /dev/shm is a file."""
    if os.path.exists(path) and not os.path.isfile(path):
        return True
    where = os.path.abspath(path)
    names = [where, os.path.join(os.path.dirname(where), os.readlink(where))] if os.path.islink(where) else [where]
    return any(os.path.realpath(os.path.dirname(name)).startswith("/proc/") or name.startswith("/proc/")
               for name in names)


# An --expression this long (in bytes) is noted: each shared value (a sum, a class's score) is written wherever
# it is read. Measured on 95 models in two dialects: the 34 expressions over 1 MB were 9 to 600 times their
# SELECT, those with nothing shared (as long as their SELECT) below 300 KB. A 15-tree XGBoost --proba
# expression is 1.5 MB against a 16 KB SELECT: DuckDB took 13.8 s against 0.06 s; Spark ran out of memory on
# a 700 KB one; MariaDB's default max_allowed_packet (16 MiB) refuses a 20 MB one.
BIG_EXPRESSION = 1_000_000


def _note_big_expression(model, text: str, options: dict) -> None:
    """Say on stderr, not in the SQL, how much shorter the SELECT is, when it is."""
    select = emit(model, "sql", **dict(options, expression=False))
    if 2 * len(select) < len(text):
        click.echo(f"treegen: note: the expression is {_size(len(text.encode()))}, the SELECT (without "
                   f"--expression) {_size(len(select.encode()))}: it computes each shared value once, where the "
                   f"expression writes it wherever it is read", err=True)


def _size(size: int) -> str:
    return f"{size / 1e6:.2f} MB" if size >= 1e6 else f"{size / 1e3:.1f} KB"


def refuse_target_options(target: str, options: dict) -> None:
    """An option the target does not take, refused by its flag (check_options says the Python keyword)."""
    taken = TARGETS[target].option_names()
    refused = [option.flag_name for option in all_options() if options.get(option.name) is not None
               and option.name not in taken]
    if refused:
        verb = "does" if len(refused) == 1 else "do"
        raise TreegenError(f"{', '.join(refused)} {verb} not apply to --to {target}")


@main.command(name="parse")
@click.argument("rules", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the JSON model here (default: stdout).")
def parse_command(rules, output):
    """Read rule text back into a JSON model.

    The text is what `export --to rules` writes; the model predicts exactly as the one exported."""
    from . import modelio
    from .loading import refuse_model_as_rule_text
    from .parse.rule_text import load
    refuse_overwriting(output, rules)
    refuse_code_ending("parse", output)
    refuse_model_as_rule_text(rules)
    write_text(modelio.dumps(load(rules)), output)


@main.command(epilog=MODEL_FILES)
@click.argument("model", type=click.Path(dir_okay=False))
@click.argument("data", type=click.Path(dir_okay=False))
@click.option("--proba", is_flag=True, help="Add one probability column per class.")
@click.option("--leaf", is_flag=True, help="Add a leaf column: per tree, the ids of the nodes where the row ended "
                                           "('|' between them, ';' between trees), as every generated program prints.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the CSV here (default: stdout).")
def predict(model, data, proba, leaf, output):
    """Predict every row of a CSV or ARFF file.

    DATA '-' is CSV on standard input. Writes the input columns plus a `prediction` column (and the probabilities with --proba, the leaf
    ids with --leaf). An added column that the data has already is named as the SQL target names it,
    `prediction_2` say, and said so on stderr. A CSV file is read, predicted and written 65,536 rows at a time, so
    that any size fits in memory; the -o file appears once every row is written (a row refused leaves it as it
    was)."""
    from .batch import predict_tables
    from .data import ROWS_A_PART, read_tables
    refuse_overwriting(output, model, data)
    refuse_swapped(model, data)
    loaded = load_model(model)
    tables, notes = noting_near_categories(read_tables(data, ROWS_A_PART), loaded)  # a part of the file at a time
    size = os.path.getsize(data) if data != "-" and os.path.isfile(data) else None  # a pipe's: not known
    shown = output not in (None, "-") or not sys.stdout.isatty()  # (a bar among the rows on the terminal: none)
    with progress_bar("predicting", size if shown else None):
        write_parts(predict_tables(loaded, tables, proba, leaf, note), output)
    for line in notes():
        note(line)


def note(line: str) -> None:
    click.echo(f"treegen: note: {line}", err=True)


def note_near_categories(table, model, label_column: str | None = None) -> None:
    """Say which values of a data file read for a model are no category of it but for spaces or case (and of
    ``label_column``, evaluate's labels, no class of it)."""
    from .data import near_category_notes
    for line in near_category_notes(table, model, label_column):
        note(line)


def noting_near_categories(tables: Iterable, model, label_column: str | None = None
                           ) -> tuple[Iterable, Callable[[], list[str]]]:
    """The tables as they come, and what gives, once they have all come, the lines note_near_categories would say
    of them as one table."""
    from collections import Counter

    from .data import model_columns, near_notes, unknown_values
    unknown, names = {}, []

    def noted():
        for table in tables:
            if not names:  # the columns the model reads: the first part's, as every part's
                names.append(model_columns(table, model))
            for key, counts in unknown_values(table, model, label_column).items():
                unknown.setdefault(key, Counter()).update(counts)
            yield table

    return noted(), lambda: near_notes(model, names[0], unknown, label_column)


@main.command(short_help="Measure a learner or a model on labelled data.")
@click.argument("data", metavar="DATA|MODEL", type=click.Path(dir_okay=False))
@data_options
@learner_options
@click.option("--folds", "-k", type=click.IntRange(min=2), help="Stratified k-fold cross-validation (default 10).")
@click.option("--loo", is_flag=True, help="Leave-one-out cross-validation.")
@click.option("--test", "test_file", type=click.Path(dir_okay=False),
              help="Train on DATA, test on this file; or test MODEL on it.")
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True,
              help="Seed for the fold assignment.")
def evaluate(data, target, nominal, ignore, regression, algorithm, folds, loo, test_file, seed, **options):
    """Measure a learner by cross-validation or on a test file, or a model on a test file.

    DATA (a CSV or ARFF file): a learner learns from it, and is tested by cross-validation or on --test.
    MODEL (a treegen model, rule text, or a library's model file as `predict` takes it): its predictions
    for the rows of --test, which are what `predict` writes, are measured against the file's labels, in
    the column named as the model's target or by --target; labels the model does not know count as
    wrong.

    Prints accuracy, the confusion matrix and per-class precision, recall and F1, or RMSE, MAE and R²
    for regression."""
    from . import evaluation as ev
    from .data import read_table
    if is_model_file(data):
        return evaluate_model(data, target, test_file)
    ev.one_method(folds, loo, test_file)
    warnings = []  # as train says them: the data is learnt from alike
    dataset = load_training_data(data, target, nominal, ignore, regression, algorithm, warn=warnings.append,
                                 options=options)
    params = learner_params(algorithm, options)
    check_criterion(dataset, params.get("criterion"), regression)
    warn(warnings)
    if test_file:
        with flag_names():
            report = ev.holdout(dataset, read_table(test_file), algorithm, **params, say=lambda test, model:
                                note_near_categories(test, model, model.target.name))
    else:
        k = ev.fold_count(dataset, folds, loo)
        with progress_bar(f"evaluating {algorithm}", (k - 1) * float(dataset.weights.sum())), \
                flag_names():  # every fit settles its rows
            report = ev.cross_validate(dataset, algorithm, k=k, loo=loo, seed=seed, **params)
    click.echo(report.text(), nl=False)


MODEL_EVALUATION_OPTIONS = ("data", "target", "test_file")


def evaluate_model(path: str, target: str | None, test_file: str | None) -> None:
    """`treegen evaluate MODEL --test FILE`: the model as it is, on the labelled rows of FILE."""
    from .data import ROWS_A_PART, read_tables
    from .evaluation import test_model
    ctx = click.get_current_context()
    for param in ctx.command.get_params(ctx):
        if param.name not in MODEL_EVALUATION_OPTIONS and ctx.get_parameter_source(param.name) not in (
                None, click.core.ParameterSource.DEFAULT):
            raise TreegenError(f"{param.opts[0]} is for learning from a data file, and this is a model: evaluate "
                               "tests it as it is, on --test FILE", path)
    if test_file is None:
        raise TreegenError("a model is evaluated on a labelled file: give it as --test FILE", path)
    model = load_model(path)
    tables, notes = noting_near_categories(read_tables(test_file, ROWS_A_PART), model,  # a part at a time, as predict
                                           model.target.name if target is None else target)
    report = test_model(model, tables, target, name=path)
    for line in notes():
        note(line)
    click.echo(report.text(), nl=False)


def categories_option(which: str):
    """--categories, for the CatBoost files a command reads (``which``: of its files, those it applies to)."""
    return click.option("--categories", multiple=True, metavar="FEATURE=A,B,...",
                        help=f"CatBoost{which}: the category names of a categorical feature, comma-separated and "
                             "exactly as written; they name the one-hot and CTR splits that a .cbm file, or a JSON "
                             "file saved without pool=, knows only by hash. Repeat for each feature. As in a CSV "
                             'header, a category with a comma is written in double quotes (city="New York, NY",'
                             'Paris), and so is a feature whose name holds "=" ("city=x"=A,B).')


@main.command(name="import", short_help="Import a model trained elsewhere.",
              help="Import a model trained elsewhere: " + "; ".join(
                  f"{importer.library}: {importer.files}" for importer in IMPORTERS.values())
              + "; a pickle or joblib file of any of these with --trust.")
@click.argument("model_file", type=click.Path(dir_okay=False))
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write the JSON model here (default: stdout).")
@click.option("--feature-names", multiple=True,
              help="Comma-separated feature names, for a model fitted on arrays (x0, x1, ..., LightGBM's Column_0, "
                   "...): a model's own are kept (LightGBM's as the frame named them, the spaces it wrote '_' "
                   "given back), and others refused.")
@click.option("--trust", is_flag=True, help="Allow pickle/joblib files: loading them runs code from the file.")
@click.option("--missing", type=float, multiple=True,
              help="XGBoost: the number that stands for a missing value besides NaN, as "
                   "given to DMatrix or the estimator (default: the file's, else NaN).")
@click.option("--best-iteration", "best_iteration", flag_value=True, default=None,
              help="XGBoost, a file saved after early stopping (best_iteration): predict with the first "
                   "best_iteration + 1 rounds, as the scikit-learn wrapper does (default for a file the wrapper "
                   "saved).")
@click.option("--every-round", "every_round", is_flag=True, default=None,
              help="XGBoost, a file saved after early stopping: predict with every round, as Booster.predict does "
                   "(default for a file the wrapper did not save).")
@categories_option("")
def import_command(model_file, output, feature_names, trust, missing, best_iteration, every_round, categories):
    from . import modelio
    if best_iteration and every_round:  # click's --a/--b pair let the last one win without a word
        raise TreegenError("--best-iteration and --every-round contradict each other: give one")
    best_iteration = False if every_round else best_iteration
    missing, feature_names = _once("--missing", missing), _once("--feature-names", feature_names)
    names = _split_names([feature_names]) if feature_names else None
    if model_file == "-":  # (it said "-: no such model file")
        raise TreegenError("import reads a model file by its path, not standard input ('-'): give the file")
    refuse_overwriting(output, model_file)
    refuse_code_ending("import", output)
    model = import_file(model_file, feature_names=names, trust=trust, missing=missing,
                        use_best_iteration=best_iteration, categories=_category_names(categories))
    write_text(modelio.dumps(model, source=model_file), output)
    where = f"; wrote {output}" if output not in (None, "-") else ""
    click.echo(f"treegen: imported {summary(model)}{where}", err=True)  # as train says what it built
    for line in _import_notes(model):
        click.echo(f"treegen: {line}", err=True)
    from .importers.xgboost import unrecorded_missing
    if (line := unrecorded_missing(model)) is not None:
        click.echo(f"treegen: note: {line}", err=True)


def _once(flag: str, values: tuple):
    """An option's one value (None when not given), refused when given twice with different values: click
    keeps the last of an option given twice, the other lost without a word."""
    if len(set(values)) > 1:
        raise TreegenError(f"{flag} is given {len(values)} times, {' and '.join(map(repr, values))}: give it once")
    return values[0] if values else None


def _import_notes(model) -> list[str]:
    """What import says of an imported model's prediction: what the number is (a ranking score), which rounds
    it predicts with, and its importer's note."""
    predicts = model.meta.get("predicts")
    return [line for line in (predicts and f"the prediction is {predicts}", _rounds_note(model), _library_note(model))
            if line]


def _library_note(model) -> str | None:
    """What an importer noted of the model's prediction (its ``note`` in ``meta[library module]``): a LightGBM
    custom objective's raw score, XGBoost's reg:logistic a regression."""
    return next((own["note"] for own in model.meta.values() if isinstance(own, dict) and "note" in own), None)


def _rounds_note(model) -> str | None:
    """Which rounds of an early-stopped XGBoost model it predicts with, and the option that takes the others:
    the two ways of XGBoost's own predicts differ on every row."""
    xgboost = model.meta.get("xgboost", {})
    best = xgboost.get("best_iteration")
    if best is None or best + 1 == xgboost["rounds"]:  # none, or the last round: both ways take every round
        return None
    other = ("--every-round takes every round" if xgboost["rounds_used"] == best + 1
             else "--best-iteration takes the first best_iteration + 1 rounds")
    return f"XGBoost's best_iteration: {xgboost['trees_used']}; {other}"


def _category_names(options) -> dict[str, list[str]] | None:
    """--categories FEATURE=A,B,... (repeated) as {feature: [A, B, ...]}; None when not given."""
    from .table import feature_categories
    if not options:
        return None
    names: dict[str, list[str]] = {}
    for option in options:
        feature, categories = feature_categories(option)
        names.setdefault(feature, []).extend(categories)
    for feature, categories in names.items():
        if twice := next((c for i, c in enumerate(categories) if c in categories[:i]), None):
            raise TreegenError(f"--categories names the category {twice!r} of {feature!r} twice")
    return names


def sql_options() -> list[click.Option]:
    """verify's options about SQL: the dialects to run (treegen.emit.sql.DIALECTS), and a connection
    option for each SQL engine that runs as a server (treegen.run.sql.ENGINES)."""
    from .emit.sql import DIALECTS
    from .run.sql import ENGINES
    dialects = click.Option(
        ["--dialect", "dialects"], multiple=True, show_default=True,
        default=(",".join(name for name, d in DIALECTS.items() if d.verify_by_default),),
        help="Comma-separated SQL dialects to run (or the option repeated): " + ", ".join(
            f"{name} (on {d.engine})" if d.engine != name else name for name, d in DIALECTS.items())
        + ". Without --dialect, a default one whose engine is not installed is left out, with a line saying "
          "so; a dialect named must run. A --program .sql file runs in the one dialect named.")
    return [dialects] + [
        click.Option([f"--{engine.name}-dsn", f"{engine.name}_dsn"], envvar=engine.dsn_variable,
                     help=f"How to reach a {engine.name} server for the dialects it runs "
                          f"(or set {engine.dsn_variable}), e.g. '{engine.server}'.")
        for engine in ENGINES.values() if engine.server]


@main.command(cls=LateOptions, late=sql_options, epilog=MODEL_FILES)
@click.argument("model", type=click.Path(dir_okay=False))
@click.argument("data", type=click.Path(dir_okay=False), required=False)
@click.option("--to", "targets", multiple=True, default=(",".join(RUNNABLE),), show_default=True,
              help="Comma-separated targets to check (or the option repeated).")
@click.option("--against", type=click.Path(dir_okay=False),
              help="The file the model was imported from: its library's own predict is checked on the same "
                   "rows too (the library must be installed).")
@click.option("--leaf", is_flag=True,
              help="Export each target that writes leaf ids (python, java, javascript, c, sql) with them, and check "
                   "them too: per tree, the node ids where the row ends, as the model's own walk gives them.")
@click.option("--program", "programs", multiple=True, metavar="FILE",
              help="A program exported before (.py, .java, .mjs/.js/.cjs, .c), rule text (.rules) or SQL (.sql): run "
                   "that very file and check it as a target is checked (the option repeated for more). SQL runs in "
                   "the one --dialect named, as it was exported (the file does not say which), on a table of the "
                   "model's features (--table, --keep); a SELECT or an --expression (either may end in ';'), its "
                   "--proba and --leaf columns are checked where it has them. With --program, only the targets --to "
                   "names are generated and checked too.")
@click.option("--table", default="input", show_default=True,
              help="The table a --program .sql file reads, as it was exported with --table: a schema.table is made "
                   "with its schema (nothing is left on a server; Spark takes no schema but global_temp).")
@click.option("--keep", metavar="NAMES",
              help="The columns a --program .sql file passes through, as it was exported with --keep "
                   "(comma-separated): the table it runs on has them too, empty.")
@categories_option(" (MODEL or --against's file, which takes the model's own names when none are given)")
def verify(model, data, targets, dialects, against, leaf, programs, table, keep, categories, **servers):
    """Run the generated code and check it against the model.

    Each target is generated, run for real and compared on probe rows (every threshold and one ulp
    either side, missing values, unseen categories) and the rows of DATA if given; a Python, Java or
    JavaScript program through its row API too (a dict, Map or object per row), and a Java, JavaScript
    or C program through its many-rows API (predictRows, PREFIX_predict_rows). One line per target
    as it finishes; the exit code is the worst of them: 0 all agree, 1 a target disagrees or fails to
    run, 2 a target needs something of the user (a package, a server it can reach, a different name).
    A default target or SQL dialect whose tool or engine is not installed (a JDK, Node.js, a C compiler,
    DuckDB) is not checked, and its line says so. A CSV file DATA is checked 65,536 rows at a time, so that any
    size fits in memory."""
    from .data import uncarried_categories_warning
    from .verifier import column_width, verify as run_verify
    given = click.get_current_context().get_parameter_source
    if given("dialects") is click.core.ParameterSource.DEFAULT:
        dialects = None  # verify leaves out the default dialects whose engine is not installed
    if given("targets") is click.core.ParameterSource.DEFAULT:  # the files given, not every target; or every one,
        targets = () if programs else None  # those whose tool (a JDK, Node.js, a C compiler) is missing left out
    options = {"categories": _category_names(categories)}  # for the library files among MODEL and --against
    if categories and not against and library_file(model) != "model":
        raise TreegenError("--categories names the categories of a library's model file, given as MODEL or "
                           "--against; MODEL is a treegen model")
    refuse_swapped(model, data)
    loaded = load_model(model, **options)
    if (warning := uncarried_categories_warning(loaded)) is not None:
        click.echo(f"treegen: warning: {warning}", err=True)  # as train warns
    notes = list
    if data is not None:  # read by verify a part at a time; its notes said before verify's lines, which come once
        from .data import ROWS_A_PART, read_tables  # every part is read
        data, notes = noting_near_categories(read_tables(data, ROWS_A_PART), loaded)
    dsns = {name[:-len("_dsn")]: dsn for name, dsn in servers.items() if dsn}
    status = StatusLine()
    said = False

    def say_notes() -> None:  # once
        nonlocal said
        for line in [] if said else notes():
            note(line)
        said = True

    def report(result) -> None:
        """A target's line: on stdout, or as an error line on stderr when it is the user's to fix."""
        status.clear()
        say_notes()
        if result.status == 2:  # (an error in a --program file says where in it already: its name once)
            said = result.error.startswith(f"{result.target}:")
            say_error(result.error if said else f"{result.target}: {result.error}")
        else:
            click.echo(result.line(column_width(programs)))

    dialects = None if dialects is None else _split_names(dialects)
    results = run_verify(loaded, data, None if targets is None else _split_names(targets), dialects, dsns=dsns,
                         report=report, against=against, status=status.show, against_options=options, leaf=leaf,
                         programs=programs, table=table,
                         keep=_split_names([keep]) if keep else ())
    status.clear()
    say_notes()
    sys.exit(max(result.status for result in results))


class StatusLine:
    """What a long command is doing, on one line of a terminal's stderr rewritten in place; nothing
    when stderr is not a terminal."""

    def __init__(self):
        self.live = sys.stderr.isatty()

    def show(self, text: str) -> None:
        if self.live:
            sys.stderr.write("\r\033[K" + text)
            sys.stderr.flush()

    def clear(self) -> None:
        self.show("")


if __name__ == "__main__":  # pragma: no cover
    main()
