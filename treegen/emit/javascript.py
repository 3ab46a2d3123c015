"""The JavaScript back end: one module without dependencies (an ES module, or CommonJS with
``module="commonjs"``) for Node 18+ and current browsers, with ``predict``, ``predictProba``, their rows
versions ``predictRows`` and ``predictProbaRows``, ``predictLeaf`` and ``encode``, and run by Node a CSV
program (``node model.mjs < data.csv``).

A module has two parts. The model -- its names, tables, the walkers of each tree and, for trees that
each reach one node added up or averaged, add functions that call a group's walkers directly
(:func:`_adds`) -- is written for each model by ``templates/javascript/module.js.j2``. The rest --
reading rows, combining the trees' outputs and the links, the exact arithmetic, the program -- is the
same text in every module, ``templates/javascript/runtime.js.txt``, copied in as it is but for a model
with features whose categories are integer codes (:class:`treegen.model.Codes`), whose runtime has
``codeOf``: where the lookup of a value's text among a feature's categories misses (``encodeValue``,
``fieldValue``), it reads a number or numeric text as the category its code names
(:func:`treegen.model.code_category`), else as any number (``namedCode``); for a model whose scores take no ``exp`` (a tree, a forest: not
:func:`~treegen.emit.common.takes_exp`), whose runtime leaves out ``exp`` and ``expf`` (a quarter of its
size); and for a model with a nominal feature some split reads, whose
runtime has ``namedCode``: a number, a bigint or a boolean given for one is read by its value
(:func:`treegen.model.category_of`, through ``NAMED``), not by ``String()``. It reads the model through
a few names the model part defines (listed at its top).

Exactness. Numbers are doubles, as in the model; float32 steps round through ``Math.fround``. The
links call glibc's ``exp`` and ``expf`` written out in the runtime, not ``Math.exp`` (which differs
from glibc's in the last bit on about one input in ten): glibc's double ``exp`` needs fused
multiply-adds, which JavaScript lacks, so the runtime computes each one exactly (Dekker's product and
rounding to odd); the tests compare it with the machine's ``exp`` bit for bit.

V8 decides the layout. It never optimises a function whose bytecode exceeds 60 KB
(``--max-optimized-bytecode-size``), and its optimising compiler takes time that grows faster than a
function's size, so each tree is cut into functions of an estimated 15 KB of bytecode at most. A tree
whose missing values take fractional (C4.5) routes is walked from a loop over a work list, never by
nested calls, so that depth does not meet V8's fixed stack.

Names and labels appear only as escaped string literals (:func:`string`), in the code and in the
comment that names the feature of each test: the module is ASCII, and no name can end a comment, a
string or an HTML ``<script>`` element around the code. (A name with a lone UTF-16 surrogate never
reaches a target: :func:`treegen.model.check_text`.)"""
from __future__ import annotations

import math
import os

from ..errors import TreegenError
from ..lower import per_condition
from ..model import CombineKind, Model, codes_float32, has_label_values, read_nominal_features, scores_nan
from .common import (CALL, IF, LEAF, LEVELS, CodedTuples, Cond, CostModel, KeyTables, Sums, TreePlan, bit_set_words,
                     braced_lines, category_codes, code_size, float_text, group_weight, key_differences, label_decision,
                     leaf_index, leaf_terms, named_codes, named_features, numeric_test, output_numbers, plan, size_groups,
                     sets_looked_up, summed_tree_by_tree, sums, takes_exp, tuple_cost, utf16_escaped)
from .render import render

INDENT = "  "
MODULES = ("esm", "commonjs")
# Node reads a .cjs file as CommonJS and a .mjs file as an ES module whatever they hold (a .js file as its
# package.json says)
MODULE_OF_ENDING = {".cjs": "commonjs", ".mjs": "esm"}
OPTIMIZED_LIMIT = 61440  # V8's --max-optimized-bytecode-size: bigger functions are never optimised
MASK_BITS = 30  # category codes below this are tested with one 32-bit mask (codes -1 and -2 shift by 31, 30)
NUMBERS_PER_LINE = 8  # values written on one line of a tree's table
KEYS_PER_LINE = 16  # numbers of a tuple split's keys (bit-set words or differences) written on one line
BITS_PER_KEY = 160  # a tuple split's keys are a bit set where its possible keys are at most this many a key
# The most walker bytecode (COST's estimate) of a group of trees that an add function sums: the rows API adds
# a group to every row before the next. On bench_boosting's 500-tree LightGBM model over 2,000 rows, groups
# of one tree took 11.1-13.3 us a row, of four to sixteen 7.7-9.9, of thirty-two 8.2-10.6 (a call a row: 12-14).
GROUP_BYTES = 6000
# V8 inlines a function of at most 460 bytes of bytecode (--max-inlined-bytecode-size), but no more than 920
# into one function (--max-inlined-bytecode-size-cumulative): a walker that small weighs more in its group.
# On bench_boosting's CatBoost model (symmetric trees of depth 6), groups of 38 trees took 3.7-4.1 us a row
# through the rows API, of 10 (weighed four times) 2.1-2.2; its XGBoost and LightGBM models the same either way.
INLINED_BYTES, INLINED_WEIGHT = 460, 4
LOCAL_SUMS = 8  # sums an add function holds in locals; wider outputs are added in their array
ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", '"': '\\"', "\\": "\\\\", "<": "\\u003c"}


def _condition_bytes(cond: Cond) -> int:
    """An upper bound of the bytecode of one test, measured with ``node --print-bytecode`` on walkers
    beyond 256 constants (wide operands): load x[i] and a constant, compare, branch (22 bytes); a
    category set is one mask test (28) or a chain of equality tests; a negation or the test for
    missing adds a test (2, 20); a tuple split's, :func:`_tuple_bytes`."""
    extra = 2 if cond.op.startswith("not") else 20 if cond.op == "in or missing" else 0
    if cond.tuples is not None:
        return extra + _tuple_bytes(cond.tuples)
    if cond.op in ("in", "not in", "in or missing") and len(cond.codes) > 1:
        return extra + (42 if _uses_mask(cond.codes) else 22 * len(cond.codes))
    return extra + 22


def _tuple_bytes(test) -> int:
    """A tuple split's test (:func:`tuple_condition`), measured as :func:`_condition_bytes`: the lookup's call and
    branch (24), each combined feature loaded, weighed and added (18), each ``<=`` part a test and a choice of
    its weight (34), each ``in`` part a choice (12) on its categories' test and its missing and unknown codes'."""
    return tuple_cost(test, 24, 18, 34, lambda names, missing, unknown: 12 + (
        42 if len(names) > 3 else 22 * len(names)) + 22 * ((missing == 0) + (unknown == 0)))


# Bytes: a leaf loads its number and returns (5), a call loads the function, calls and returns (14);
# collecting (a tree with fractional routes) pushes to an array (16 more); a fractional branch pushes a
# walker and its weight (30). Functions are cut at a quarter of V8's limit: the estimate is an
# upper bound, and TurboFan compiles a 15 KB function in a tenth of the time of a 60 KB one.
COST = CostModel(condition=_condition_bytes, leaf=5, call=14, collect=16, fraction_call=30,
                 budget=OPTIMIZED_LIMIT // 4, max_depth=40)


def for_output(output: str, options: dict) -> dict:
    """The options with the module kind -o's ending calls for (.cjs: CommonJS) where --module does not say;
    refused where it says the other."""
    ending = os.path.splitext(output)[1].lower()
    wanted, module = MODULE_OF_ENDING.get(ending), options.get("module")
    if wanted is not None and module not in (None, wanted):
        raise TreegenError(f"--module {module} and -o {output} disagree: Node reads a {ending} file as "
                           f"{'CommonJS' if wanted == 'commonjs' else 'an ES module'}")
    return {**options, "module": module or wanted}


def emit(model: Model, proba: bool = False, leaf: bool = False, module: str = "esm") -> str:
    """The text of a JavaScript module that predicts exactly as ``model`` does.

    Parameters
    ----------
    model : the model to compile.
    proba : accepted for symmetry with the SQL target: a classification module always has
        ``predictProba`` and its program always takes ``--proba``.
    leaf : add ``predictLeaf`` and the program's ``--leaf``.
    module : ``"esm"`` (an ES module, ``export``) or ``"commonjs"`` (``module.exports``).
    """
    if module not in MODULES:
        raise TreegenError(f"unknown JavaScript module kind {module!r}; choose one of {', '.join(MODULES)}")
    # a symmetric tree's walker computes its leaf's index
    plans = plan(model, COST, levelled=not leaf, looked_up=sets_looked_up(MASK_BITS))
    codes = category_codes(model)
    names = [f.name for f in model.features]
    outputs = [output_numbers(p, node_ids=leaf) for p in plans]  # what walkers return, the values it indexes
    direct = summed_tree_by_tree(model, plans)
    steps = sums(model) if direct and model.combine.kind == CombineKind.SUM else None
    if direct:  # the tables hold each leaf's terms, as the sums add them
        outputs = [(numbers, {n: leaf_terms(steps, p.index, value) for n, value in table.items()})
                   for p, (numbers, table) in zip(plans, outputs)]
    width = len(steps.start) if steps else plans[0].width
    quoted = [(string(f.name), [string(c) for c in table]) for f, table in zip(model.features, codes)]
    keysets = KeySets(model, codes)
    written = per_condition(lambda cond: condition(cond, keysets))  # (a tuple split's key is costly to write)
    test = per_condition(lambda cond: f"if ({written(cond)}) {{{comment(cond, *quoted[cond.feature], quoted)}")
    # per feature, how a number names a category (treegen.model.Codes); none at all when no feature has codes
    coded = ([string(f.codes.value) if f.codes is not None else "null" for f in model.features]
             if any(f.codes is not None for f in model.features) else [])
    walkers = [_walker(p, f, test, outputs[p.index][0], written) for p in plans for f in p.functions]
    decision, cut = label_decision(model)
    return render("javascript", "module.js.j2", filters={"lit": literal},
                  commonjs=module == "commonjs", classification=model.target.is_classification,
                  features=[string(n) for n in names], classes=[string(c) for c in model.target.classes],
                  categories=[_list(codes[i]) if not f.is_numeric else "null" for i, f in enumerate(model.features)],
                  used=model.used_features(), intervals=_intervals(model), leaf=leaf,
                  combine=model.combine, init=[literal(v) for v in model.combine.init],
                  decision=decision if model.target.is_classification else "argmax",
                  label_sums=has_label_values(model),
                  trees=plans, weights=[literal(t.weight) for t in model.trees], walkers=walkers,
                  values=[_value_lines(table, p.width) for p, (_, table) in zip(plans, outputs)],
                  linear=[_linear_map(p) for p in plans], zero_band=literal(model.numeric.zero_band),
                  adds=_adds(plans, steps, width) if direct else [],
                  start=[literal(v) for v in (steps.start if steps else (0.0,) * width)] if direct else [],
                  leaves=sum(len(t.leaves()) for t in model.trees), coded=coded,
                  code_float32=codes_float32(model),
                  named=[None if c is None else (f"{c[0]}, {c[1]}", string(c[2])) for c in named_codes(model)]
                  if named_features(model) else None,
                  keysets=keysets.written(), nominal_read=read_nominal_features(model),
                  runtime=runtime(model, coded=bool(coded), tuples=bool(keysets.names)))


def runtime(model: Model, coded: bool = False, tuples: bool = False) -> str:
    """The runtime part of a module: one fixed text for every model of its kind (``coded``: with category codes;
    ``tuples``: with tuple splits; its link; with ``checkCodes`` where a split reads a nominal feature)."""
    cut = label_decision(model)[1]
    return render("javascript", "runtime.js.txt", coded=coded, named=bool(named_features(model)), nan=scores_nan(model),
                  exp=takes_exp(model.combine), link=model.combine.link, cut="0" if cut is None else literal(cut),
                  tuples=tuples, nominal=bool(read_nominal_features(model)))


def literal(value) -> str:
    """A JavaScript number that reads back bit-identical (V8 parses decimals correctly rounded)."""
    return float_text(value, "NaN", "Infinity")


def string(text: str) -> str:
    """A JavaScript string literal in ASCII: every UTF-16 unit outside printable ASCII escaped (line
    and paragraph separators too), quotes and backslashes escaped, and ``<`` escaped so that no name
    can close a ``<script>`` element or open an HTML comment in a page that inlines the module."""
    return '"' + utf16_escaped(text, ESCAPES) + '"'


def _list(items) -> str:
    return "[" + ", ".join(string(item) for item in items) + "]"


def _intervals(model: Model) -> str:
    if all(f.missing_interval is None for f in model.features):
        return "null"
    return "[" + ", ".join("null" if f.missing_interval is None else f"[{literal(f.missing_interval[0])}, "
                           f"{literal(f.missing_interval[1])}]" for f in model.features) + "]"


def walker_name(tree: int, node: int) -> str:
    return f"t{tree}n{node}"


def condition(cond: Cond, keysets: KeySets | None = None) -> str:
    """A test on the encoded row ``x``: numbers (NaN: missing) and category codes (-1 missing, -2 unknown); a
    tuple split's through ``keysets`` (:func:`tuple_condition`)."""
    if cond.tuples is not None:
        return tuple_condition(cond, keysets)
    x = f"x[{cond.feature}]"
    number = numeric_test(cond, x, literal, "!({})")
    if number is not None:
        return number
    if cond.op == "unknown":
        return f"{x} < 0"
    test = _in_codes(x, cond.codes)
    if cond.op == "in or missing":
        return f"{x} === -1" if not cond.codes else f"{x} === -1 || {test}"
    return test if cond.op == "in" else f"!({test})"


def _uses_mask(codes) -> bool:
    return len(codes) > 3 and max(codes) < MASK_BITS


def _in_codes(x: str, codes) -> str:
    if not codes:
        return "false"
    if _uses_mask(codes):  # -1 and -2 shift by 31 and 30: those bits are clear; a shift counts mod 32
        return f"({x} < 32 && ((0x{sum(1 << c for c in codes):x} >>> {x}) & 1) === 1)"
    return " || ".join(f"{x} === {c}" for c in codes)


class KeySets(KeyTables):
    """The tuple splits' keys as the module holds them (:class:`treegen.emit.common.KeyTables`): a bit set (a
    Uint32Array, its words written out) of every key a split can meet where that is at most ``BITS_PER_KEY``
    bits a key, else a Set of numbers made at load from the keys' differences (``keySet``). A bit set is looked
    up 4x faster (the default CatBoost model of tests/test_import_catboost.py, 4,000 rows: 10.6 us a row, a Set
    40.1, a sorted Float64Array searched 76.2), and its words are 0.4 of the keys' differences written."""

    def __init__(self, model: Model, codes: list[tuple[str, ...]]):
        super().__init__(model, codes, BITS_PER_KEY, 2 ** 31)  # (a key below 2^31: >>> and & read it whole)

    def lookup(self, coded: CodedTuples, key: str) -> str:
        """Whether ``key`` (an expression) is one of ``coded``'s keys."""
        name, bits = self.table(coded)
        return f"inBits({name}, {key})" if bits else f"{name}.has({key})"

    def written(self) -> list[tuple[str, str, list[str]]]:
        """Each set's name, what makes it (``new Uint32Array(`` or ``keySet(``) and the lines of its array: the bit
        set's words, or the keys' differences, ascending (the first: the first key)."""
        sets = []
        for (keys, bits), name in self.names.items():
            if bits:
                numbers = list(map(str, bit_set_words(keys, bits)))
            else:
                numbers = list(map(str, key_differences(keys)))
            lines = [",".join(numbers[i:i + KEYS_PER_LINE]) + "," for i in range(0, len(numbers), KEYS_PER_LINE)]
            sets.append((name, "new Uint32Array(" if bits else "keySet(", lines))
        return sets


def tuple_condition(cond: Cond, keysets: KeySets) -> str:
    """A ``tuple`` split's test: its key (:func:`tuple_key`) is (not) one of its keys."""
    coded = keysets.coded(cond.tuples)
    test = keysets.lookup(coded, tuple_key(coded))
    return test if cond.op == "tuple" else f"!({test})"


def tuple_key(coded: CodedTuples) -> str:
    """A row's key as a sum: each combined feature's code times its digit's weight (the digit is the code + 2,
    its constant part summed once at the end), each part's child position times its weight. Integers below
    2^53 (coded_tuples refuses others): a double adds them exactly, in any order."""
    weights = [math.prod(coded.radices[i + 1:]) for i in range(len(coded.radices))]
    terms = [f"x[{f}]" if w == 1 else f"x[{f}] * {w}" for f, w in zip(coded.features, weights)]
    terms += [_part_term(part, w) for part, w in zip(coded.parts, weights[len(coded.features):])]
    offset = sum(2 * w for w in weights[:len(coded.features)])
    return " + ".join(terms + [str(offset)])


def _part_term(part: tuple, weight: int) -> str:
    """A part's child position (0 or 1) times ``weight``: a ``<=`` part's missing value (NaN, which no comparison
    passes) takes its missing child; an ``in`` part's first child takes its categories' codes, and missing (-1)
    and unknown (-2) where their children are the first."""
    x = f"x[{part[1]}]"
    if part[0] == "<=":
        _, _, cut, missing = part
        if math.isnan(cut):  # every number goes right
            return f"({x} === {x} ? {weight} : 0)" if missing == 0 else str(weight)
        return f"({x} <= {literal(cut)} ? 0 : {weight})" if missing else f"({x} > {literal(cut)} ? {weight} : 0)"
    _, _, codes, missing, unknown = part
    first = [f"{x} === {code}" for code, child in ((-1, missing), (-2, unknown)) if child == 0]
    first += [_in_codes(x, codes)] if codes else []
    return f"({' || '.join(first)} ? 0 : {weight})" if first else str(weight)


def tuple_comment(cond: Cond, quoted) -> str:
    """What a tuple split's test reads: its features, then its parts, as :func:`comment` names them."""
    test = cond.tuples
    parts = [f"{quoted[part[1]][0]} <= {literal(part[2])}" if part[0] == "<=" else
             f"{quoted[part[1]][0]} in {{{', '.join(string(c) for c in part[2])}}}" for part in test.parts]
    combined = ", ".join([quoted[f][0] for f in test.features] + parts)
    return f"  // ({combined}) {'in' if cond.op == 'tuple' else 'not in'} its keys"


def comment(cond: Cond, name: str, categories, quoted=()) -> str:
    """A comment that says what a test reads: the feature's name and, for a nominal feature, the
    categories its codes stand for, as escaped string literals (:func:`string`: no line break, no
    ``<``), given as such (``name``, and ``categories`` by code; ``quoted``: both, per feature, for a
    tuple split's comment)."""
    if cond.tuples is not None:
        return tuple_comment(cond, quoted)
    if cond.op in ("<=", ">", "not <=", "not >"):
        return f"  // {name}"
    if cond.op == "unknown":
        return f"  // {name} is missing or unknown"
    listed = ", ".join(categories[c] for c in cond.codes)
    if cond.op == "in or missing":
        return f"  // {name} in {{{listed}}} or missing"
    if len(cond.codes) == 1:
        return f"  // {name} {'==' if cond.op == 'in' else '!='} {listed}"
    return f"  // {name} {cond.op} {{{listed}}}"


def _walker(tree_plan: TreePlan, function, test, numbers, condition_text) -> dict:
    """A walker: an exclusive tree's returns the number of the node reached (``numbers``: its id or its
    value's, see :func:`output_numbers`); a non-exclusive one adds its walk's steps to ``out`` -- (node
    id, weight) where the walk ends, (minus the number of children, weight) where a fractional route
    spreads it -- and the walkers still to run, with their weights, to ``todo`` (the runtime's ``walk``
    runs them). A weight multiplies the path's fractions root first, as :func:`treegen.model.walk`.
    ``test(cond)``: an ``if`` line, unindented, its comment with the feature's name and categories;
    ``condition_text(cond)`` the test alone (a symmetric tree's leaf index)."""
    exclusive = tree_plan.exclusive
    name = lambda node: walker_name(function.tree, node)

    def statement(pad: str, kind: str, payload) -> list[str]:
        if kind == IF:
            return [pad + test(payload)]
        if kind == LEVELS:
            return [f"{pad}return {leaf_index(payload, condition_text, shifted=True)};"]
        if kind == LEAF and exclusive:
            return [f"{pad}return {numbers[payload]};"]
        if kind == LEAF:
            return [f"{pad}out.push({payload}, w);", f"{pad}return;"]
        if kind == CALL and exclusive:
            return [f"{pad}return {name(payload)}(x);"]
        if kind == CALL:
            return [f"{pad}todo.push({name(payload)}, w);", f"{pad}return;"]
        weights = payload  # a fractional route: its mark, then its children pushed last first: the first runs first
        pushes = [f"{pad}todo.push({name(child)}, w * {literal(weight)});" for child, weight in reversed(weights)]
        return [f"{pad}out.push({-len(weights)}, w);"] + pushes + [f"{pad}return;"]

    lines = braced_lines(function, INDENT, 1, statement)
    if lines and lines[-1] == f"{INDENT}return;":  # the function's end returns anyway
        lines.pop()
    return {"name": name(function.node), "params": "x" if exclusive else "x, w, out, todo", "lines": lines}


def _adds(plans: list[TreePlan], steps: Sums | None, width: int) -> list[dict]:
    """Trees that each reach one node, added up (``steps``: a boosted model's sums) or averaged (None), in
    groups (:func:`treegen.emit.common.size_groups`): per group an add function, ``add0(x, s, o)``..., that
    adds its trees' terms (the tables hold them: :func:`treegen.emit.common.leaf_terms`) to the sums
    ``s[o]``, ``s[o + 1]``..., calling each walker directly. A row's sums go through every group in turn;
    the rows API runs a group over every row before the next."""
    held = width <= LOCAL_SUMS
    at = lambda k: "s[o]" if k == 0 else f"s[o + {k}]"
    sum_k = (lambda k: f"s{k}") if held else at
    rounded = (lambda e: f"Math.fround({e})") if steps and steps.float32 else (lambda e: e)
    adds = []
    for group in size_groups(plans, lambda p: group_weight(code_size(p, COST), INLINED_BYTES, INLINED_WEIGHT),
                             GROUP_BYTES):
        lines = [f"let {', '.join(f's{k} = {at(k)}' for k in range(width))};"] if held else []
        for tree_plan in group:
            walk = f"{walker_name(tree_plan.index, 0)}(x)"
            if width == 1 or steps and tree_plan.output is not None:
                k = tree_plan.output if steps and tree_plan.output is not None else 0
                lines.append(f"{sum_k(k)} = {rounded(f'{sum_k(k)} + VALUES[{tree_plan.index}][{walk}]')};")
                continue
            lines += [f"v = VALUES[{tree_plan.index}];", f"b = {width} * {walk};"]
            if held:
                lines += [f"{sum_k(k)} = {rounded(f'{sum_k(k)} + v[b + {k}]')};" for k in range(width)]
            else:
                added = rounded("s[o + k] + v[b + k]")
                lines += [f"for (let k = 0; k < {width}; k++) {{", f"{INDENT}s[o + k] = {added};", "}"]
        if any(line.startswith("v = ") for line in lines):
            lines.insert(1 if held else 0, "let v, b;")
        lines += [f"{at(k)} = s{k};" for k in range(width)] if held else []
        adds.append({"name": f"add{len(adds)}", "lines": lines})
    return adds


def _linear_map(tree_plan: TreePlan) -> str:
    """A tree's linear leaves as a ``Map`` from the node id its walkers return (:func:`output_numbers`) to
    ``[const, feature, coefficient, ...]``, or ``null``."""
    if not tree_plan.linear:
        return "null"
    entries = (f"[{node}, [{', '.join([literal(m.const)] + [f'{f}, {literal(c)}' for f, c in m.terms])}]]"
               for node, m in sorted(tree_plan.linear.items()))
    return f"new Map([{', '.join(entries)}])"


def _value_lines(table: dict, width: int) -> list[str]:
    """A tree's values, ``width`` numbers for each number its walkers return (zeros where none does),
    a few to a line."""
    flat = []
    for number in range(max(table) + 1):
        flat.extend(literal(v) for v in table.get(number, (0.0,) * width))
    return [", ".join(flat[i:i + NUMBERS_PER_LINE]) + "," for i in range(0, len(flat), NUMBERS_PER_LINE)]
