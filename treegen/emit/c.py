"""The C back end: one C99 source file with its header, no dependencies beyond the C standard library
(and ``-lm``): ``PREFIX_predict``, ``PREFIX_predict_proba``, ``PREFIX_predict_leaf`` and
``PREFIX_category`` on a row of doubles, ``PREFIX_predict_rows`` and ``PREFIX_predict_proba_rows`` on
many, and a CSV program when compiled with ``-DTREEGEN_MAIN``.

:func:`emit` returns the ``.c`` text, which begins with the header's text (:func:`header` cuts it
out), so that the one file compiles alone (``cc -DTREEGEN_MAIN model.c -lm``) and a program that
includes the header links the same declarations. ``treegen export --to c -o churn.c`` writes
``churn.h`` beside it, every exported name starting ``churn_`` (:func:`for_output`), so that models exported
to files of their own link into one program.

The file has four parts: the header (``templates/c/header.h.j2``); the model's constants, tables
and tree walkers, written for each model by ``model.c.j2``; and two fixed texts, the same in every
model: ``prelude.c.txt`` (includes, the checks of the compiler's arithmetic, the types of the
tables) before the tables, and ``runtime.c.txt`` after them (the category lookup, the arithmetic of
the combination and its links -- C4.5's fractional walk and glibc's ``expf`` among them -- the API,
and the CSV program, compiled only with ``TREEGEN_MAIN``), which the model's macros select from
with ``#if``. A model with a feature of integer codes (``Feature.codes``) adds ``codes.c.txt`` after its
tables, which the runtime's look-ups of a category call instead (``CODED_LOOKUPS``). The API is
thread-safe: every table is ``static const``, nothing is allocated, and a tree with fractional routes
keeps its work list and its open sums (J48's, nested as the tree nests) on the stack, in arrays whose
sizes are counted here.

Each tree is cut into functions by a cost model of the code size gcc and clang generate (measured: a
function's compile time at ``-O2`` grows faster than linearly with its size), which they are told not
to inline back together, and nesting stays under C99's 127 levels of blocks. Trees that each reach one
node, added up or averaged, are summed by functions that call their walkers directly: ``sum_trees``,
all of them, for one row, and ``add0``, ``add1``... each a group of consecutive trees
(:func:`treegen.emit.common.size_groups`), which the rows API runs over every row before the next group.
Walkers call each other only as the last thing they do (``return f(x)``, a jump at ``-O2``); a tree with
fractional routes pushes instead of calling. Nothing recurses.

Names and labels appear only in string literals (:func:`string`): printable ASCII, with quotes,
backslashes and question marks (trigraphs) escaped and every other byte of their UTF-8 in octal --
in the code and in the line comment that names the feature of each test, which no name can end. The one
exception, the header's index constant of each feature (:func:`feature_constants`), is made of the name's
ASCII letters and digits only, and left out where it would be ambiguous.
The compiler flags that break exactness are refused where the compiler says so (``__FAST_MATH__``,
``FLT_EVAL_METHOD``, ``sizeof(0.1)`` under -fsingle-precision-constant); README.md lists the others. No test
compares a NaN (:func:`condition`), so that a compiler that assumes there are none answers the same."""
from __future__ import annotations

import functools
import math
import os
import re
from collections import Counter
from operator import itemgetter
from typing import NamedTuple

from ..errors import TreegenError
from ..lower import per_condition
from ..model import (
    CombineKind,
    Link,
    Model,
    Precision,
    Tree,
    apply_link,
    decide,
    has_label_values,
    numbers_past_codes,
)
from .common import (
    bit_set_words,
    check_literal_sizes,
    linear_cases,
    CALL,
    CodedTuples,
    FRACTION,
    IF,
    KeyTables,
    LEAF,
    LEVELS,
    Cond,
    CostModel,
    TreePlan,
    category_codes,
    code_size,
    float_text,
    label_decision,
    label_part,
    leaf_index,
    numeric_test,
    output_numbers,
    plan,
    sets_looked_up,
    size_groups,
    tuple_cost,
)
from .render import render, replaced, runtime_with_codes, source

INDENT = "    "
HEADER_END = re.compile(r"^#endif /\* \w+_H_INCLUDED \*/\n", re.MULTILINE)


MASK_CODES = 4  # a set of more categories than this (all below MASK_BITS) is one bit-mask test
MASK_BITS = 64
# The most code (in COST's units) of a group of trees that the rows API adds to each row in turn: about nine
# trees of 63 nodes. On bench_boosting's 500-tree LightGBM model over 2,000 rows, groups of one tree took
# 5.4 us a row, of two to ten trees 4.8-5.0, of twenty 5.2 (a call a row: 8.5). Each group reads its row
# anew (as_read: two copies), which bigger groups pay less often: on a 500-tree XGBoost model of 8 features
# over 2,000 rows (gcc -O2), groups of 450 took 5.1 us a row, of 900 4.1, of 1,800 3.8 (of 450 before rows
# were read so: 4.0); a 3-class 100-tree LightGBM model 2.6 us at 450, 1.6 at 1,800 (2.0 before).
GROUP_SIZE = 1800
# The numbers the rows API sums at once, 16 KB on the stack: the same groups over 2,048 rows at a time
# took 4.9 us a row, over 1,024 5.2, over 256 5.9.
ROWS_SUMS = 2048
# A model with a feature of integer codes (Feature.codes) reads a text that is none of its categories by
# treegen.model.code_category, else as any number (treegen.model.number_category, CODE_NUMBERS): the runtime's
# two look-ups then call codes.c.txt's coded_category, which reads a number only on a miss. Without codes the
# runtime is as written.
CODED_LOOKUPS = (("    return category_code(feature, text, strlen(text));",
                  "    return coded_category(feature, text, strlen(text));"),
                 ("        return (double) category_code(feature, text, length);",
                  "        return (double) coded_category(feature, text, length);"))
# A model whose scores can be NaN (treegen.model.scores_nan) labels a row by numpy's argmax: the first NaN wins.
# (XGBoost's multi:softmax decides on raw sums as the runtime does: a NaN never passes, treegen.model.max_index.)
NAN_ARGMAX = (("            DECISION == DECIDE_ARGMAX_RAW ? above(raw[k], raw[best]) : above(deciding[k], deciding[best])) {",
               "            DECISION == DECIDE_ARGMAX_RAW ? above(raw[k], raw[best]) :\n"
               "            above(deciding[k], deciding[best]) || (is_nan(deciding[k]) && !is_nan(deciding[best]))) {"),)
# A binary XGBoost's or LightGBM's label is decided on its raw sum against common.label_cut (LABEL_CUT), its
# link (expf, exp) not computed for it: the scores only where they are asked for.
LABEL_CUT_RUNTIME = (("        return !is_nan(raw[0]) && (raw[0] > 0 || (DECISION == DECIDE_RAW_NONNEGATIVE && raw[0] == 0)) ? 1 : 0;",
                      "        return !is_nan(raw[0]) && raw[0] >= LABEL_CUT ? 1 : 0;"),
                     ("    double sums[SUM_WIDTH], scores[N_SCORES];\n    evaluate(x, sums, scores);\n"
                      "    return decide(sums, scores);",
                      "    double sums[SUM_WIDTH];\n    start_sums(sums);\n    add_trees(x, sums);\n"
                      "    return decide(sums, sums);  /* on the raw sum alone: no link (LABEL_CUT) */"),
                     ("            finish(sums + r * SUM_WIDTH, row_scores);\n",
                      "            if (scores != NULL) {  /* the label is decided on the raw sum alone (LABEL_CUT) */\n"
                      "                finish(sums + r * SUM_WIDTH, row_scores);\n            }\n"))
# XGBoost's survival:aft and binary:hinge links (treegen.model.apply_link), in the runtime of their models alone
XGBOOST_LINKS = (("#define LINK_SIGN_SQUARE 4\n", "#define LINK_SIGN_SQUARE 4\n#define LINK_EXP_DOUBLE 5\n#define LINK_STEP 6\n"),
                 ("#elif LINK == LINK_SIGN_SQUARE\n",
                  "#elif LINK == LINK_EXP_DOUBLE\n"
                  "    for (k = 0; k < N_RAW; k++) {  /* C's exp in double, rounded to float32 */\n"
                  "        scores[k] = ROUND(exp(sums[k]));\n"
                  "    }\n"
                  "#elif LINK == LINK_STEP\n"
                  "    if (N_RAW == 1) {  /* 1 where the sum is above 0, else 0 (NaN too): scores [1 - h, h] */\n"
                  "        scores[1] = sums[0] > 0 ? 1.0 : 0.0;\n"
                  "        scores[0] = 1.0 - scores[1];\n"
                  "        return;\n"
                  "    }\n"
                  "    for (k = 0; k < N_RAW; k++) {\n"
                  "        scores[k] = sums[k] > 0 ? 1.0 : 0.0;\n"
                  "    }\n"
                  "#elif LINK == LINK_SIGN_SQUARE\n"))
LITERAL_BYTES = 500  # a long string literal is written as adjacent pieces, which C joins into one literal
STRING_LIMIT = 4095  # the bytes of a string literal C99 promises (its NUL aside), its pieces joined
IDENTIFIER_LIMIT = 63  # the significant initial characters of an identifier C99 promises (5.2.4.1)
BITS_PER_KEY = 64  # a tuple split's keys are a bit set where its possible keys are at most this many a key


def _condition_size(cond: Cond) -> int:
    """About the instructions of one test: a load, a compare, a branch; one per category tested. A tuple split's:
    :func:`_tuple_size`."""
    if cond.tuples is not None:
        return _tuple_size(cond.tuples)
    if cond.op in ("in", "not in", "in or missing"):
        return 3 if _uses_mask(cond.codes) else 1 + 2 * max(1, len(cond.codes))
    return 4 if cond.op == "unknown" else 2


def _tuple_size(test) -> int:
    """A tuple split's test (:func:`tuple_condition`) as gcc -O2 compiles it on x86-64 (85 instructions for two
    features and two parts): each combined feature's digit (key_digit inlined, 18), each ``<=`` part a compare
    and a choice (6), each ``in`` part a choice (4) on its categories' test and on its missing or unknown
    values' (6), the lookup (8)."""
    return tuple_cost(test, 8, 18, 6, lambda names, missing, unknown: 4 + (
        3 if len(names) > MASK_CODES else 2 * len(names)) + (6 if 0 in (missing, unknown) else 0))


# Units are about instructions. gcc -O2's time on one function grows faster than linearly with its
# size, so trees are cut into functions of a few hundred tests; nesting is cut at 40 levels, far from
# C99's 127 (most compilers take more, but the standard promises no more).
COST = CostModel(condition=_condition_size, leaf=1, call=2, collect=2, fraction_call=4, budget=1500, max_depth=40)


def emit(model: Model, proba: bool = False, leaf: bool = False, prefix: str = "model") -> str:
    """The text of a C source file (with its header at the top) that predicts exactly as ``model`` does.

    Parameters
    ----------
    model : the model to compile.
    proba : accepted for symmetry with the SQL target: a classification model always has
        ``PREFIX_predict_proba`` and its program always takes ``--proba``.
    leaf : add ``PREFIX_predict_leaf`` and the program's ``--leaf``.
    prefix : the start of every name the file exports (``PREFIX_predict``, ``PREFIX_N_FEATURES``...),
        so that several models link into one program.
    """
    _check_prefix(prefix)
    check_literal_sizes(model, lambda text: len(_utf8(text)), STRING_LIMIT, "the string literal C99 promises")
    # a symmetric tree's walker computes its leaf's index
    plans = plan(model, COST, levelled=not leaf, looked_up=sets_looked_up(MASK_BITS))
    outputs = [output_numbers(p, node_ids=leaf) for p in plans]
    categories = category_codes(model)
    single = (len(plans) == 1 and plans[0].exclusive and model.combine.kind == CombineKind.SINGLE
              and not plans[0].linear)
    classification = model.target.is_classification
    fractional = [p for p in plans if not p.exclusive]
    bounds = {p.index: _bounds(p, model.trees[p.index]) for p in fractional}
    combine, (decision, cut) = model.combine, label_decision(model)
    # Trees that each reach one node, averaged or added up: one function calls every walker directly
    # (15% less time a row than the runtime's loop over the table of walkers, on a 500-tree forest)
    direct = (combine.kind in (CombineKind.AVERAGE, CombineKind.SUM)
              and all(p.exclusive and not p.linear for p in plans))
    n_raw = len(combine.init) if combine.kind == CombineKind.SUM else model.target.width  # a raw rule reads the scores
    n_scores = len(apply_link(combine, [0.0] * n_raw)) if combine.kind == CombineKind.SUM else model.target.width
    # (one per class: the reader's and treegen.targets.emit's model.init_problem saw to it)
    adds = size_groups([_direct_term(model, p) for p in plans], itemgetter("size"), GROUP_SIZE) if direct else []
    sum_width = n_raw if combine.kind == CombineKind.SUM else max([n_raw] + [p.width for p in plans])
    names = [f.name for f in model.features]
    keysets = KeySets(model, categories)
    read = RowReads(model, plans, keysets)
    test = per_condition(lambda cond: _if_line(cond, names, categories, read, keysets))
    index_test = lambda cond: condition(cond, len(categories[cond.feature]), read, keysets)
    walkers = [_walker(p, f, test, outputs[p.index][0], entry=k == 0, index_test=index_test)
               for p in plans for k, f in enumerate(p.functions)]
    macro = macro_prefix(prefix)
    context = dict(
        prefix=prefix, macro=macro, feature_index=feature_index(names, macro), classification=classification, leaf=leaf,
        single=single,
        summary=_summary(model), features=[string(n) for n in names], lengths=[len(_utf8(n)) for n in names],
        classes=[string(c) for c in model.target.classes], class_lengths=[len(_utf8(c)) for c in model.target.classes],
        used=model.used_features(), category_tables=_category_tables(model, categories),
        n_read=len(read.features), read_high=read.highs, read_runs=read.runs(), intervals=read.intervals(model),
        walkers=walkers, not_inlined=any(w["not_inlined"] for w in walkers),
        values=[_value_table(p, table) for p, (_, table) in zip(plans, outputs)],
        linear=[_linear_function(model, p, read) for p in plans if p.linear], zero_band=literal(model.numeric.zero_band),
        linear_terms=any(m.terms for p in plans for m in p.linear.values()),  # (linear_input is read)
        labels=_labels(model, outputs[0][1]) if single and classification else None,
        trees=[_tree_entry(model, p, bounds.get(p.index)) for p in plans],
        adds=adds, add_names=[f"add{g}" for g in range(len(adds))], sum_width=sum_width,
        rows_at_once=max(1, ROWS_SUMS // sum_width),
        max_width=max(p.width for p in plans), fractional=bool(fractional),
        todo_capacity=max([b.held for b in bounds.values()] + [1]),
        open_capacity=max([b.open for b in bounds.values()] + [1]),
        sorted_ids=leaf and any(not b.in_order for b in bounds.values()),
        leaf_capacity=sum(1 if p.exclusive else bounds[p.index].reached for p in plans),
        combine=combine, float32=combine.precision == Precision.FLOAT32, n_raw=n_raw, n_scores=max(n_scores, 1),
        decision=decision, label_cut=None if cut is None else literal(cut), init=[literal(v) for v in combine.init],
        label_sums=has_label_values(model), keysets=keysets.written(),
        tuples_runtime=source("c", "tuples.c.txt") if keysets.names else None)
    filters = {"lit": literal, "wrap": wrap}  # Jinja keeps a template's filters: no closures
    context.update(runtime_with_codes(model, "c", CODED_LOOKUPS, NAN_ARGMAX))
    if context["code_rules"]:
        context["code_numbers"] = _code_numbers(model, categories)
    if cut is not None:
        context["runtime"] = replaced(context["runtime"], LABEL_CUT_RUNTIME, "templates/c/runtime.c.txt")
    if combine.link in (Link.EXP_DOUBLE, Link.STEP):
        context["runtime"] = replaced(context["runtime"], XGBOOST_LINKS, "templates/c/runtime.c.txt")
    head = render("c", "header.h.j2", filters, **context)
    return render("c", "model.c.j2", filters, header=head, prelude=source("c", "prelude.c.txt"), **context)


HIGH, LOW = "high", "low"  # the copies of a value as the trees read it: a missing value as +infinity, -infinity


class RowReads:
    """The row as the runtime's ``as_read`` gives it to the trees: only the copies (``HIGH``, ``LOW``) of the
    features that some test or linear leaf reads, the ``HIGH`` ones first, each part in feature order. A wide
    model fills and holds what its trees read, not two numbers a feature (bench/README: 2,000 features, 50 read,
    4.0-4.6 us a call with every feature's two copies, 1.4-1.5 with the 100 read, gcc -O2). Called as :func:`condition`'s
    ``read``: where a copy lies, ``x[place]``."""

    def __init__(self, model: Model, plans: list[TreePlan], keysets: KeySets):
        needed = set()
        record = lambda feature, copy: needed.add((feature, copy)) or "x"
        for cond in _conditions(plans).values():
            condition(cond, 0, record, keysets)
        for p in plans:
            if p.linear:
                _linear_function(model, p, record)
        order = sorted(needed, key=lambda read: (read[1] != HIGH, read[0]))
        self.places = {read: place for place, read in enumerate(order)}
        self.features = [feature for feature, _ in order]
        self.highs = sum(copy == HIGH for _, copy in order)

    def __call__(self, feature: int, copy: str) -> str:
        return f"x[{self.places[feature, copy]}]"

    def runs(self) -> list[tuple[int, int, str, str]]:
        """``(feature, count, high, low)`` per run of consecutive features read as the same copies at consecutive
        places, for model.c.j2's ``as_read``: ``high`` and ``low`` the C pointers to their first places, or NULL.
        A call a run, with constant bounds, that fills both copies of a feature at once: on the 20,000-leaf tree
        of bench/README a loop over a table of features, or over each copy in turn, took 19-21 ns a call, 16 a
        loop over all features filling both copies."""
        runs = []
        for feature in sorted({f for f, _ in self.places}):
            high, low = self.places.get((feature, HIGH)), self.places.get((feature, LOW))
            if runs and _extends(runs[-1], feature, high, low):
                first, count, first_high, first_low = runs[-1]
                runs[-1] = (first, count + 1, first_high, first_low)
            else:
                runs.append((feature, 1, high, low))
        pointer = lambda place: "NULL" if place is None else f"read + {place}"
        return [(feature, count, pointer(high), pointer(low)) for feature, count, high, low in runs]

    def intervals(self, model: Model) -> list[str]:
        """The INTERVALS table (prelude.c.txt's struct interval): per place whose feature has a missing
        interval, the place and the interval."""
        ranges = [(place, model.features[f].missing_interval) for place, f in enumerate(self.features)]
        return [f"{{{place}, {literal(r[0])}, {literal(r[1])}}}" for place, r in ranges if r is not None]


def _extends(run: tuple, feature: int, high: int | None, low: int | None) -> bool:
    """The feature's copies, at ``high`` and ``low`` (None: not read), continue ``run``."""
    first, count, first_high, first_low = run
    follows = lambda start, place: start is None if place is None else start is not None and start + count == place
    return first + count == feature and follows(first_high, high) and follows(first_low, low)


def _conditions(plans: list[TreePlan]) -> dict[int, Cond]:
    """Every condition the walkers test, once each (by id: the trees share theirs, see per_condition)."""
    found = {}
    for p in plans:
        for function in p.functions:
            for _, kind, payload in function.lines:
                for cond in [payload] if kind == IF else [c for c, _ in payload] if kind == LEVELS else []:
                    found.setdefault(id(cond), cond)
    return found


def wrap(items, width: int = 100, indent: int = 4) -> str:
    """Items joined by commas, in lines of about ``width`` characters: the elements of a C initializer."""
    lines, line = [], ""
    for item in map(str, items):
        if line and len(line) + len(item) + 2 > width:
            lines.append(line + ",")
            line = ""
        line = f"{line}, {item}" if line else item
    lines.append(line)
    return ("\n" + " " * indent).join(lines)


def header(text: str) -> str:
    """The header part of a ``.c`` text written by :func:`emit`: what ``model.h`` holds."""
    end = HEADER_END.search(text)
    if end is None:
        raise TreegenError("not a C file written by treegen: no header at its top")
    return text[:end.end()]


def _check_prefix(prefix: str) -> None:
    if not _is_prefix(prefix):
        raise TreegenError(f"--prefix {prefix!r} is not a C identifier that starts with a letter")


def _is_prefix(name: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name or ""))


def for_output(output: str, options: dict) -> dict:
    """The options with the prefix named after -o's file where --prefix does not say (churn.c: churn_predict,
    CHURN_H_INCLUDED), as Java's class is: two models exported to two files link into one program. A file name
    that is no prefix is refused rather than changed into one."""
    if options.get("prefix") is not None:
        return options
    stem = os.path.splitext(os.path.basename(output))[0]
    if not _is_prefix(stem):
        raise TreegenError(f"-o {output}: {stem!r} is not a C identifier that starts with a letter, to start the "
                           "exported names; pass --prefix NAME")
    return {**options, "prefix": stem}


def macro_prefix(prefix: str) -> str:
    """The start of the header's macro names, distinct for distinct prefixes, so that two models link into one
    program (their include guards too): the prefix in upper case (iris: IRIS_N_FEATURES) -- but that is also the
    upper-case prefix's (IRIS), which is then written in lower case (iris_N_FEATURES), and a prefix with both
    cases as it is (Iris: Iris_N_FEATURES). The three kinds differ in the cases of their letters."""
    if prefix == prefix.lower():
        return prefix.upper()
    return prefix.lower() if prefix == prefix.upper() else prefix


def feature_index(names: list[str], macro: str) -> str:
    """The header's list of the features in the order of a row: an ``enum`` of their indices, MACRO_NAME, where a
    name makes one clear constant (:func:`feature_constants`), a comment saying why not where it does not; each
    line names its feature in a string literal (:func:`comment_string`), which no name can end. Block comments
    only: the header is C89 too, for the programs that include it."""
    lines, constants = [], feature_constants(names, macro)
    last = max((i for i, (constant, _) in enumerate(constants) if constant), default=None)
    for i, (name, (constant, why)) in enumerate(zip(names, constants)):
        if constant:
            lines.append(f"{INDENT}{constant} = {i}{',' * (i != last)}  /* {comment_string(name)} */")
        else:
            lines.append(f"{INDENT}/* {i} {comment_string(name)}: no constant, {why} */")
    if last is None:
        return "\n".join(lines)
    return "\n".join(["enum {"] + lines + ["};"])


def feature_constants(names: list[str], macro: str) -> list[tuple[str | None, str | None]]:
    """Each feature's index constant: MACRO_NAME, its name's ASCII letters and digits in upper case, each run of
    other characters one ``_`` (``petal length (cm)``: ``IRIS_PETAL_LENGTH_CM``). None, with why, where that makes
    no clear name: a name with a character that is not printable ASCII or with no letter or digit, a constant that
    two features would share (``a b``, ``A_B``), one the generated code or C's headers use (:func:`taken_names`),
    one longer than C99 promises. Upper-case words after the prefix are none of the functions' names (lower case)."""
    wanted = [_constant(name, macro) for name in names]
    shared, taken = Counter(wanted), taken_names(macro)
    whys = [_why_no_constant(name, constant, shared[constant], taken) for name, constant in zip(names, wanted)]
    return [(None, why) if why else (constant, None) for constant, why in zip(wanted, whys)]


def _printable(name: str) -> bool:
    return name.isascii() and name.isprintable()


def _constant(name: str, macro: str) -> str | None:
    words = re.findall(r"[A-Za-z0-9]+", name)
    return f"{macro}_{'_'.join(words).upper()}" if words and _printable(name) else None


def _why_no_constant(name: str, constant: str | None, sharing: int, taken: frozenset[str]) -> str | None:
    if constant is None:
        return "its name has no ASCII letter or digit" if _printable(name) else "its name is not all printable ASCII"
    if sharing > 1:
        return f"{constant} would name another feature too"
    if constant in taken:
        return f"{constant} is a name of the generated code or of C's headers"
    if len(constant) > IDENTIFIER_LIMIT:
        return f"{constant} is longer than the {IDENTIFIER_LIMIT} characters C99 promises"
    return None


def taken_names(macro: str) -> frozenset[str]:
    """The names a feature's constant must not be: the header's macros (MACRO_N_FEATURES...), every name of the
    C templates' fixed text (SUM_WIDTH, LABEL_CUT...), the standard headers' macros (templates/c/std_macros.txt)."""
    own, tokens = _template_names()
    return tokens | {f"{macro}_{suffix}" for suffix in own}


@functools.lru_cache(maxsize=1)
def _template_names() -> tuple[frozenset[str], frozenset[str]]:
    """The suffixes of the header's macros, and every identifier of the C templates and of std_macros.txt."""
    texts = [source("c", name) for name in ("header.h.j2", "model.c.j2", "prelude.c.txt", "runtime.c.txt",
                                            "codes.c.txt", "tuples.c.txt")]
    macros = [line for line in source("c", "std_macros.txt").splitlines() if line and not line.startswith("#")]
    suffixes = {suffix for text in texts for suffix in re.findall(r"\{\{ macro \}\}_(\w+)", text)}
    tokens = {token for text in texts for token in re.findall(r"[A-Za-z_]\w*", text)}
    return frozenset(suffixes), frozenset(tokens | set(macros))


def _summary(model: Model) -> str:
    trees = len(model.trees)
    leaves = sum(len(t.leaves()) for t in model.trees)
    kind = "classifier" if model.target.is_classification else "regressor"
    return f"{trees} tree{'s' if trees != 1 else ''}, {leaves} leaves, a {kind}"


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@functools.lru_cache(maxsize=4096)  # a feature's name is written in a comment at each of its tests
def string(text: str) -> str:
    """A C string literal of the UTF-8 of ``text``: printable ASCII as it is, but for ``"``, ``\\`` and
    ``?`` (which could start a trigraph), escaped; every other byte as a three-digit octal escape,
    which no following character can extend. Long texts are adjacent literals, which C joins."""
    pieces, current = [], []
    for byte in _utf8(text):
        c = chr(byte)
        current.append("\\" + c if c in '"\\?' else c if 0x20 <= byte <= 0x7E else f"\\{byte:03o}")
        if len(current) >= LITERAL_BYTES:
            pieces.append(current)
            current = []
    if current or not pieces:
        pieces.append(current)
    return " ".join('"' + "".join(piece) + '"' for piece in pieces)


def comment_string(text: str) -> str:
    """:func:`string` for a block comment: a ``/`` next to a ``*`` as its octal escape, so that no name ends
    the comment (``*/``) or opens one in it (``/*``, which -Wcomment warns of)."""
    return string(text).replace("/*", "\\057*").replace("*/", "*\\057")


def literal(value) -> str:
    """A C double constant that reads back bit-identical: the shortest decimal (Python's repr), which
    C compilers read correctly rounded (C99 Annex F: up to DECIMAL_DIG digits, 17 here); infinity as
    HUGE_VAL and NaN cast, doubles both (math.h's INFINITY and NAN are floats: -Wdouble-promotion)."""
    return float_text(value, "(double) NAN", "HUGE_VAL")


def function_name(tree: int, node: int) -> str:
    return f"t{tree}_n{node}"


# -- the walkers ---------------------------------------------------------------------------------

def _uses_mask(codes) -> bool:
    return len(codes) > MASK_CODES and max(codes) < MASK_BITS


def _in_codes(x: str, codes) -> str:
    if not codes:
        return "0"
    if _uses_mask(codes):
        return f"in_mask({x}, 0x{sum(1 << c for c in codes):x}ULL)"
    return " || ".join(f"{x} == {c}.0" for c in codes)


def condition(cond: Cond, count: int, read, keysets: KeySets | None = None) -> str:
    """A test on the row as the runtime's ``as_read`` gives it to the trees: ``read(feature, copy)`` writes a
    copy of a feature (:class:`RowReads`), ``HIGH`` with a missing value as +infinity, ``LOW`` as -infinity,
    neither one NaN, so that no test compares a NaN (whose outcome a compiler that assumes there are none
    chooses). A number's test reads the copy whose infinity goes where a missing value goes; a test at
    +infinity, which both the row's infinity and that copy's pass, asks whether the copies differ (missing)
    instead. A category's code is tested on ``HIGH`` (an infinity is no code, so no category); any value that is
    no code of the feature's ``count`` is a category it does not know. A tuple split's test:
    :func:`tuple_condition`, its keys named by ``keysets``."""
    if cond.tuples is not None:
        return tuple_condition(cond, read, keysets)
    f = cond.feature
    if cond.op in ("<=", "not <=", ">", "not >"):
        if math.isnan(cond.threshold):  # no number passes a test at NaN: a missing value goes by not
            return "1" if cond.op.startswith("not") else "0"
        if cond.op in ("<=", "not <=") and cond.threshold == math.inf:
            return _missing(f, read) if cond.op == "not <=" else f"!({_missing(f, read)})"
        return numeric_test(cond, read(f, HIGH if cond.op in ("<=", "not <=") else LOW), literal, "!({})")
    if cond.op == "unknown":
        return f"!is_code({read(f, HIGH)}, {count})"
    test = _in_codes(read(f, HIGH), cond.codes)
    if cond.op == "in or missing":
        return f"{_missing(f, read)} || {test}"
    if cond.op == "in":
        return test
    return f"!({test})"


def _missing(feature: int, read) -> str:
    """The feature's value is missing: its two copies differ."""
    return f"{read(feature, HIGH)} != {read(feature, LOW)}"


def comment(cond: Cond, name: str, categories) -> str:
    """What a test reads, as C string literals in a line comment: the feature's name and, for a nominal
    feature, the categories its codes stand for. :func:`string` writes no line break, no trigraph and
    no backslash at a line's end, so no name can end the comment or continue it."""
    if cond.op in ("<=", ">", "not <=", "not >"):
        return f"  // {string(name)}"
    if cond.op == "unknown":
        return f"  // {string(name)} is missing or unknown"
    listed = ", ".join(string(categories[c]) for c in cond.codes)
    more = " or missing" if cond.op == "in or missing" else ""
    return f"  // {string(name)} {'not in' if cond.op == 'not in' else 'in'} {{{listed}}}{more}"


def _if_line(cond: Cond, names: list[str], categories: list[tuple[str, ...]], read, keysets: KeySets) -> str:
    """An ``if`` that opens its block, with a comment on what it tests."""
    f = cond.feature
    said = tuple_comment(cond, names) if cond.tuples is not None else comment(cond, names[f], categories[f])
    return f"if ({condition(cond, len(categories[f]), read, keysets)}) {{{said}"


class KeySets(KeyTables):
    """The tuple splits' keys as the file holds them (:class:`treegen.emit.common.KeyTables`), ``static const``
    tables: a bit set of every key a split can meet where that is at most ``BITS_PER_KEY`` bits a key, else its
    keys ascending, searched. A bit set is looked up 14x faster (the default CatBoost model of
    tests/test_import_catboost.py, gcc -O2: 3.5 us a row, 50.0 with lists only; the source 0.9 MB, 2.1 MB)."""

    def __init__(self, model: Model, codes: list[tuple[str, ...]]):
        super().__init__(model, codes, BITS_PER_KEY, 2 ** 32)  # (a key below 2^32: in_bits reads it as uint32_t)

    def lookup(self, coded: CodedTuples, key: str) -> str:
        """Whether ``key`` (an expression) is one of ``coded``'s keys."""
        name, bits = self.table(coded)
        return f"in_bits({name}, {key})" if bits else f"in_keys({name}, {len(coded.keys)}, {key})"

    def written(self) -> list[dict]:
        """Each set's table for model.c.j2: its name, whether it is a bit set, its size and entries."""
        tables = []
        for (keys, bits), name in self.names.items():
            if bits:
                items = [f"0x{word:x}u" for word in bit_set_words(keys, bits)]
            else:
                items = [literal(float(key)) for key in keys] or ["0.0"]  # (C has no empty array)
            tables.append({"name": name, "bits": bool(bits), "size": len(items), "entries": items})
        return tables


def tuple_condition(cond: Cond, read, keysets: KeySets) -> str:
    """A ``tuple`` split's test: its key, a sum of whole numbers in double (:func:`tuple_key`), is (not) one of
    its keys."""
    coded = keysets.coded(cond.tuples)
    test = keysets.lookup(coded, tuple_key(coded, read, [len(table) for table in keysets.codes]))
    return test if cond.op == "tuple" else f"!{test}"


def tuple_key(coded: CodedTuples, read, counts: list[int]) -> str:
    """A row's key: each combined feature's digit (the runtime's ``key_digit``) times its weight, each part's child
    position times its weight, added in double, exactly (below 2^53: coded_tuples refuses others). ``counts``: each
    feature's categories."""
    weights = [math.prod(coded.radices[i + 1:]) for i in range(len(coded.radices))]
    terms = [f"key_digit({read(f, HIGH)}, {read(f, LOW)}, {radix - 2})" + ("" if w == 1 else f" * {literal(float(w))}")
             for f, radix, w in zip(coded.features, coded.radices, weights)]
    terms += [_part_term(part, literal(float(w)), read, counts[part[1]])
              for part, w in zip(coded.parts, weights[len(coded.features):])]
    return " + ".join(terms)


def _part_term(part: tuple, weight: str, read, count: int) -> str:
    """A part's child position (0 or 1) times ``weight``, from the row as read (:func:`condition`): a ``<=`` part
    reads the copy whose infinity goes where a missing value goes (a cut at +infinity or NaN, whether the copies
    differ); an ``in`` part its categories' codes, and missing (the copies differ) and unknown (no code) values
    where their children are the first."""
    f = part[1]
    if part[0] == "<=":
        _, _, cut, child = part
        if math.isnan(cut):  # every number goes right
            first = _missing(f, read) if child == 0 else None
        elif cut == math.inf:  # every number goes left
            first = None if child == 0 else f"!({_missing(f, read)})"
        else:
            first = f"{read(f, LOW if child == 0 else HIGH)} <= {literal(cut)}"
        return f"({first} ? 0.0 : {weight})" if first else ("0.0" if cut == math.inf else weight)
    _, _, codes, missing_child, unknown_child = part
    tests = [_in_codes(read(f, HIGH), codes)] if codes else []
    if missing_child == 0 and unknown_child == 0:
        tests.append(f"!is_code({read(f, HIGH)}, {count})")
    elif missing_child == 0:
        tests.append(_missing(f, read))
    elif unknown_child == 0:
        tests.append(f"(!is_code({read(f, HIGH)}, {count}) && {read(f, HIGH)} == {read(f, LOW)})")
    return f"({' || '.join(tests)} ? 0.0 : {weight})" if tests else weight


def tuple_comment(cond: Cond, names: list[str]) -> str:
    """What a tuple split's test reads, as :func:`comment` says it: its features, then its parts."""
    test = cond.tuples
    parts = [f"{string(names[part[1]])} <= {literal(part[2])}" if part[0] == "<=" else
             f"{string(names[part[1]])} in {{{', '.join(string(c) for c in part[2])}}}" for part in test.parts]
    combined = ", ".join([string(names[f]) for f in test.features] + parts)
    return f"  // ({combined}) {'in' if cond.op == 'tuple' else 'not in'} its keys"


def _walker(tree_plan: TreePlan, function, test, numbers, entry: bool, index_test) -> dict:
    """One function of a tree, ready to print. An exclusive tree's returns the number of the node where
    evaluation ends (``numbers``: its id, or its value's, see :func:`output_numbers`); a fractional
    tree's reports the nodes it reaches (``reach``) and the splits that spread the row (``spread``),
    and pushes the walkers still to run (``push``), each with its path's weight.
    ``test(cond)``: an ``if`` line, unindented (:func:`_if_line`), ``index_test(cond)`` the test alone
    (a symmetric tree's leaf index); ``entry``: the tree's first function.
    An exclusive tree's other functions are each called once, last: ``NOT_INLINED`` (model.c.j2) keeps
    the compiler from joining them back into the functions the cost model cut them from."""
    exclusive = tree_plan.exclusive
    name = lambda node: function_name(function.tree, node)
    lines, open_blocks = [], []
    for depth, kind, payload in function.lines:
        while open_blocks and open_blocks[-1] >= depth:
            lines.append(INDENT * (open_blocks.pop() + 1) + "}")
        pad = INDENT * (depth + 1)
        if kind == IF:
            lines.append(pad + test(payload))
            open_blocks.append(depth)
        elif kind == LEVELS:
            lines.append(f"{pad}return {leaf_index(payload, index_test)};")
        elif kind == LEAF:
            lines.extend([f"{pad}return {numbers[payload]};"] if exclusive else
                         [f"{pad}reach(s, {payload}, w);", f"{pad}return;"])
        elif kind == CALL:
            lines.extend([f"{pad}return {name(payload)}(x);"] if exclusive else
                         [f"{pad}push(s, {name(payload)}, w);", f"{pad}return;"])
        elif kind == FRACTION:
            weights = payload
            lines.append(f"{pad}spread(s, {len(weights)});")
            lines.extend(f"{pad}push(s, {name(child)}, w * {literal(weight)});"
                         for child, weight in reversed(weights))  # the first child runs first
            lines.append(f"{pad}return;")
    while open_blocks:
        lines.append(INDENT * (open_blocks.pop() + 1) + "}")
    if not exclusive and lines and lines[-1] == f"{INDENT}return;":
        lines.pop()  # the end of the function returns anyway
    if not any(kind in (IF, LEVELS) for _, kind, _ in function.lines):
        lines.insert(0, f"{INDENT}(void) x;")
    not_inlined = exclusive and not entry
    # a symmetric tree's walker, a few tests: gcc -O2 inlines no function of that size into the sums unless asked
    # (CatBoost's 500 trees of depth 6 through the rows API: 1.46 -> 0.93 µs a row; -O3 inlines it anyway)
    inlined = any(kind == LEVELS for _, kind, _ in function.lines)
    qualifiers = "NOT_INLINED " * not_inlined + "inline " * inlined
    signature = (f"static {qualifiers}int {name(function.node)}(const double *x)" if exclusive else
                 f"static void {name(function.node)}(const double *x, double w, struct walk *s)")
    return {"signature": signature, "lines": lines, "not_inlined": not_inlined}


class Bounds(NamedTuple):
    """The sizes of a fractional tree's walk (:func:`_bounds`)."""

    held: int  # the most walkers its work list ever holds
    reached: int  # the most nodes one row can reach
    open: int  # the most sums open at once: spreading splits on one path
    in_order: bool  # numbered in pre-order: the walk meets the nodes in node order


def _bounds(tree_plan: TreePlan, tree: Tree) -> Bounds:
    """The :class:`Bounds` of a tree with fractional routes. In pre-order, every subtree's ids come
    after its root's, children in order: a walk then meets the nodes it reaches in node order, and
    its leaf ids need no sorting. Each function's figures come from those it pushes; functions come
    after the ones that push them, so they are counted from the last."""
    held, reached, opened = {}, {}, {}
    for function in reversed(tree_plan.functions):
        most_held, most_reached, most_open = 0, 0, 0
        for _, kind, payload in function.lines:
            if kind == LEAF:
                most_reached = max(most_reached, 1)
            elif kind == CALL:
                most_held = max(most_held, 1, held[payload])
                most_reached = max(most_reached, reached[payload])
                most_open = max(most_open, opened[payload])
            elif kind == FRACTION:
                children = [child for child, _ in payload]
                k = len(children)
                # all k pushed, then the i-th (from 1) runs with k - i still waiting below it
                most_held = max([most_held, k] + [k - i + held[c] for i, c in enumerate(children, 1)])
                most_reached = max(most_reached, sum(reached[c] for c in children))
                most_open = max([most_open] + [1 + opened[c] for c in children])  # its sum, open while they run
        held[function.node], reached[function.node], opened[function.node] = most_held, most_reached, most_open
    return Bounds(max(1, held[0]), max(1, reached[0]), max(1, opened[0]), tree.is_preorder())


def _value_table(tree_plan: TreePlan, table: dict) -> dict:
    """A tree's values by the number its walkers return; numbers no walker returns hold zeros."""
    rows = [f"{{{', '.join(literal(v) for v in table[n])}}},  /* {n} */" if n in table else "{0.0},"
            for n in range(max(table) + 1)]
    return {"index": tree_plan.index, "size": len(rows), "width": tree_plan.width, "rows": rows}


def _linear_function(model: Model, tree_plan: TreePlan, read) -> dict:
    """A tree's linear leaves as one function of the node id its walker returned: 1 with the leaf's
    output in ``out[0]``, or 0 where the node is not linear or an input is NaN (the plain value, in the
    tree's table), the row as the trees read it (``read``: :func:`condition`). Written after the runtime,
    under its ``fp-contract=off``."""
    value = (lambda f: f"linear_input({read(f, HIGH)})") if model.numeric.zero_band else (lambda f: read(f, HIGH))
    lines = []
    for node, missing, output in linear_cases(tree_plan, value, lambda f: _missing(f, read), literal):
        lines.append(f"    case {node}:")
        if missing:
            lines.append(f"        if ({missing}) {{")
            lines.append("            return 0;")
            lines.append("        }")
        lines += [f"        out[0] = {output};", "        return 1;"]
    return {"name": f"t{tree_plan.index}_linear", "lines": lines}


def _labels(model: Model, table: dict) -> list[int]:
    """For one tree that reaches one node: the label of each number its walker returns."""
    decision, votes = model.combine.decision(), label_part(model)
    return [decide(decision, table[n][votes], table[n][votes]) if n in table else 0 for n in range(max(table) + 1)]


def _category_tables(model: Model, categories) -> list[dict | None]:
    """Per feature: its index, its categories (string literals and byte lengths) in code order, and
    the codes in the order of their UTF-8 bytes, for a binary search; None for a numeric feature."""
    tables = []
    for index, (feature, table) in enumerate(zip(model.features, categories)):
        if feature.is_numeric:
            tables.append(None)
            continue
        order = sorted(range(len(table)), key=lambda code: _utf8(table[code]))
        tables.append({"feature": index, "texts": [string(c) for c in table],
                       "lengths": [len(_utf8(c)) for c in table], "order": order})
    return tables


def _code_numbers(model: Model, categories) -> list[tuple[int, list[str], list[int]]]:
    """Per feature: its index, and for a feature of integer codes the numbers (C literals) that name a category
    by its text (:attr:`treegen.model.Feature.named_by_number`) where their code names none of its categories
    (:func:`treegen.model.code_category`, which number_code reads first), with those categories' codes: what
    a text that reads as a number names after its code (:func:`treegen.model.number_category`)."""
    out = []
    for index, (feature, table) in enumerate(zip(model.features, categories)):
        named = [] if feature.codes is None else list(numbers_past_codes(feature, model.numeric.cast).items())
        out.append((index, [literal(number) for number, _ in named], [table.index(name) for _, name in named]))
    return out


def _tree_entry(model: Model, tree_plan: TreePlan, bounds) -> str:
    """A tree's row of the TREES table (struct tree in prelude.c.txt)."""
    t = tree_plan.index
    walkers = f"t{t}_n0, NULL" if tree_plan.exclusive else f"NULL, t{t}_n0"
    output = _output(tree_plan)
    in_order = 1 if bounds is None else int(bounds.in_order)
    linear = f"t{t}_linear" if tree_plan.linear else "NULL"
    return (f"{{{walkers}, &V{t}[0][0], {tree_plan.width}, {output}, {literal(model.trees[t].weight)}, "
            f"{in_order}, {linear}}}")


def _direct_term(model: Model, tree_plan: TreePlan) -> dict:
    """What an add function (model.c.j2) needs of a tree: its number, the raw sum it adds to, its weight,
    the estimated size of its code."""
    return dict(index=tree_plan.index, output=_output(tree_plan), weight=literal(model.trees[tree_plan.index].weight),
                size=code_size(tree_plan, COST))


def _output(tree_plan: TreePlan) -> int:
    """The raw sum a tree adds to, as C reads it: -1 for each of them."""
    return -1 if tree_plan.output is None else tree_plan.output
