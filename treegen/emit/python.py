"""The Python back end: one standalone module (standard library only, Python 3.8+) with
``predict``/``predict_proba``/``predict_leaf`` and a CSV program (``main``).

A module has two parts. The model -- the walkers of each tree, the tables of node values, the API --
is written for each model by ``templates/python/module.py.j2``. The program -- reading CSV, the
conversion of rows, ``main`` -- is the same text in every module, ``templates/python/runtime.py.txt``,
copied in as it is but for a model with features whose categories are integer codes (one line of
``_encode``, rendered only then); it reads the model through a few names the model part defines
(listed at its top).

A feature with codes (:class:`treegen.model.Codes`) reads a value that is none of its categories, but
a number or numeric text, as the category its code names (:func:`treegen.model.code_category`), else
as any number (numeric text read as its number: :func:`treegen.model.number_category`): where
a row is read, ``_as_read`` and the row walkers look the value up among its categories and only on a
miss run ``_coded``, so a known category costs one set lookup.

A number or a Boolean given for a nominal feature is read by its value, as the model reads it
(:func:`treegen.model.category_of`): ``_category`` looks it up in the feature's map of double to category
(``_NAMED``, written here from the model), off the text path: a category given as a str costs what it did.
A model with no nominal feature some split reads gets the runtime as it was.

A ``tuple`` split (CatBoost's CTRs of categories combined) is a bit: ``_as_read`` gives the row, after its
features, the mask of the splits each combination of features and parts holds the row's key for (see
:class:`Combination`), looked up once a row for all the splits that test it.

A tree's walkers return a number for the node where evaluation ends -- its id, or the number of its
value among the tree's distinct values when no one asks for leaf ids -- and a table indexed by that
number gives the value and the label, so one walker serves ``predict``, ``predict_proba`` and
``predict_leaf`` alike.

Every extension of the model is rendered: a feature's missing interval where a row is
read (:func:`treegen.emit.common.missing_intervals`), a child for unknown categories, and the whole
combine -- tree weights, float32 arithmetic (C's cast rounds each step: struct's pack, or a store
into a float32 memoryview where trees are summed inline), the divisor and the bias added last, every
link and label rule. The links in double call ``math.exp``, which is the C library's ``exp``: glibc's
on Linux, what the libraries the models come from computed with; in float32, glibc's ``expf`` as
:mod:`treegen.arithmetic` writes it out, exact on any platform.

Names and labels only ever appear as ASCII string literals made by :func:`ascii` -- in the code, and
in the comment that names the feature of each test, where ``#`` is escaped too -- so nothing in a
model can change the code's meaning, end a comment or pass a linter a directive."""
from __future__ import annotations

import json
import math
import os
import sys

from .. import arithmetic
from ..lower import per_condition
from ..model import (CombineKind, Decision, Link, Model, Op, Precision, codes_float32, has_label_values, has_tuples,
                     scores_nan)
from .common import (CALL, FRACTION, IF, LEAF, Cond, CostModel, Sums, TreePlan, TupleTest, category_codes,
                     category_digits, coded_tuples, decides_on_raw, float_text, label_decision, label_part, leaf_terms,
                     missing_intervals, named_features, numeric_test, output_numbers, plan, scores_part,
                     summed_tree_by_tree, sums)
from ..errors import TreegenError
from .render import render

INDENT = "    "

# Python limits indentation (100 levels) and the parser's recursion, not a function's size: nesting
# is cut at 40 levels, and size only far out (in lines), since every call between functions costs a
# row time while CPython compiles one big function no slower than many small ones (measured: 50,000
# leaves compile in 4.4 s as one function, 7.6 s as 64).
COST = CostModel(condition=lambda cond: 1, leaf=1, call=1, collect=1, fraction_call=1, budget=100_000,
                 max_depth=40)
INLINE_LINES = COST.budget  # the most lines of a function of trees summed inline (_inline_sum)

# The modules a generated module imports, each only where it needs it (numbers: a nominal feature read by a
# number's value; struct: float32 arithmetic; json: the keys of tuple splits).
IMPORTS = ("csv", "io", "json", "math", "numbers", "os", "re", "struct", "sys")


def emit(model: Model, proba: bool = False, leaf: bool = False) -> str:
    """The text of a Python module that predicts exactly as ``model`` does.

    Parameters
    ----------
    model : the model to compile.
    proba : accepted for symmetry with the SQL target: a classification module always has
        ``predict_proba`` and its program always takes ``--proba``.
    leaf : add ``predict_leaf`` and the program's ``--leaf``.
    """
    plans = plan(model, COST)
    categories = category_codes(model)
    names = [f.name for f in model.features]
    shared = Shared(model, categories)
    test = per_condition(lambda cond: f"if {condition(cond, categories[cond.feature], shared)}:"
                         f"{comment(names[cond.feature])}"
                         if cond.tuples is None else f"if {tuple_condition(cond, shared)}:")
    # A boosted model or a forest is summed with its trees written inline where it can be, but for leaf
    # ids: walkers serve them and the sums alike, where both would double the module (a 1,000-tree
    # model: 27.9 MB walked, 60.8 MB with the inline sums too).
    outputs = [output_numbers(p, node_ids=leaf) for p in plans]
    inline = None if leaf else _inline_sum(model, plans, test, outputs)
    functions = [_function(p, f, test, outputs[p.index][0]) for p in plans for f in p.functions
                 if inline is None or f is not p.functions[0]]  # (an inline tree's deeper parts are walked)
    # A single tree reaching one node is also walked on the row mapping itself (see _row_function):
    # the dict API then reads only the features on the row's path.
    single = (len(plans) == 1 and plans[0].exclusive and model.combine.kind == CombineKind.SINGLE
              and not plans[0].linear and not has_tuples(model))  # (a row walker reads one feature a test)
    intervals = missing_intervals(model)
    coded = _coded(model)
    row_walkers = [_row_function(plans[0], f, categories, model, outputs[0][0], intervals, shared)
                   for f in plans[0].functions] if single else []
    combine, (decision, label_cut) = model.combine, label_decision(model)
    boosted = combine.kind == CombineKind.SUM
    # with label values a tree's sums are its scores, then its label sums (common.node_vector)
    cut, votes = _subscript(scores_part(model)), _subscript(label_part(model))
    deciding = "_sums(x)" + votes if has_label_values(model) else "_scores(x)"
    as_read = bool(intervals or coded or shared.combinations)
    helpers = _helpers(model, decision)
    code_float32 = bool(coded) and codes_float32(model)
    named = _named(model)
    needed = {"numbers": bool(named), "struct": helpers["float32"] or code_float32,
              "json": bool(shared.combinations or shared.sets)}
    classification = model.target.is_classification
    return render("python", "module.py.j2", filters={"lit": literal}, read=_reader(as_read),
                  imports=[name for name in IMPORTS if needed.get(name, True)], api=api(classification, leaf),
                  model=model, classification=classification,
                  code_tables=[(f, _json_literal(category_digits(categories[f]))) for f in shared.codes],
                  tuple_tables=[c.table() for c in shared.combinations.values()],
                  row_keys=[(c.name, key) for key, c in shared.combinations.items()],
                  category_sets=[(name, text) for text, name in shared.sets.items()],
                  features=[ascii(name) for name in names], classes=[ascii(c) for c in model.target.classes],
                  nominal=[not f.is_numeric for f in model.features], used=model.used_features(),
                  trees=plans, functions=functions, row_walkers=row_walkers, single=single,
                  values=[] if inline else [_value_table(table) for _, table in outputs], combine=combine,
                  linear=[_linear_table(p) for p in plans], zero_band=literal(model.numeric.zero_band),
                  sums=sums(model), link_lines=_link_lines(combine), inline=inline,
                  raw_lines=_raw_lines(model) if boosted and not inline else [],
                  label=_decide(decision, deciding, "_raw(x)" if boosted else deciding, helpers["nan"], label_cut),
                  leaf_label=_decide(decision, "value" + votes, "value" + votes), cut=cut,
                  labels_apart=has_label_values(model),
                  on_raw=boosted and (decides_on_raw(combine) or label_cut is not None),
                  intervals=[(i, literal(low), literal(high), comment(names[i])) for i, low, high in intervals],
                  coded=coded, code_float32=code_float32, as_read=as_read,
                  named=named,
                  unknown_routes=any(n.split is not None and n.split.unknown is not None
                                     for t in model.trees for n in t.nodes),
                  helpers=helpers, leaf=leaf, leaves=sum(len(t.leaves()) for t in model.trees),
                  runtime=render("python", "runtime.py.txt", coded=bool(coded), named=bool(named_features(model))))


def api(classification: bool, leaf: bool) -> list[str]:
    """The names a generated module offers (its __all__, what ``from model import *`` takes): not the modules
    it imports, nor ``main``. Sorted, as linters want __all__ (ruff's RUF022)."""
    return sorted(["predict", *["predict_proba"] * classification, *["predict_leaf"] * leaf, "predict_values",
                   *["predict_proba_values"] * classification, "FEATURES", "CLASSES"])


def for_output(output: str, options: dict) -> dict:
    """The options as they are, -o's file refused where its name is a module of Python's standard library:
    the file would be imported in that module's stead, by the program (``python3 csv.py`` imports itself as
    csv and fails) or by any code run beside it."""
    stem = os.path.splitext(os.path.basename(output))[0]
    if stem in standard_modules():
        raise TreegenError(f"-o {output}: {stem} is a module of Python's standard library, which a file of that "
                           f"name shadows (the program imports {', '.join(IMPORTS)}): choose another name")
    return options


def standard_modules() -> frozenset[str]:
    """The modules of Python's standard library: sys.stdlib_module_names (Python 3.10+), else those the
    generated code imports and those built into the interpreter."""
    names = getattr(sys, "stdlib_module_names", None)
    return frozenset(names or ()) | frozenset(IMPORTS) | frozenset(sys.builtin_module_names)


def literal(value) -> str:
    """A Python expression for a float that reads back bit-identical (``1e999`` is infinity)."""
    return float_text(value, "_NAN", "1e999")


def function_name(prefix: str, tree: int, node: int) -> str:
    return f"{prefix}{tree}_n{node}"


def comment(name: str) -> str:
    """A comment naming a feature: its name as an ASCII literal, with ``#`` escaped too, so that
    it stays one line and no name can read as a directive to a tool (``# noqa``, ``# type:``)."""
    return "  # " + ascii(name).replace("#", "\\x23")


class Shared:
    """The module's constants that tests share, each made once at load from JSON text (a literal of it, by name):
    the sets of more than ``SHARED_SET`` categories (``_IN<n>``, a frozenset of str; a CatBoost model of two
    1,000-category features: 3,412 set displays of 31 sets, 14.4 MB of its 15.5 MB of code) and the tuple splits'
    tables (:class:`Combination`). CPython compiling such constants as literals took 7 GB for a 50 MB module."""

    def __init__(self, model: Model, categories: list[tuple[str, ...]]):
        self.model, self.categories = model, categories
        self.sets: dict[str, str] = {}  # a set's text (a list) -> its name
        self.codes: dict[int, None] = {}  # the features whose codes _as_read computes (a dict keeps the order)
        self.combinations: dict[str, Combination] = {}  # by the expression of their key

    def tuple_test(self, test: TupleTest) -> str:
        """A tuple split's test: the bit of its keys in the mask its combination gives the row."""
        coded = coded_tuples(test, self.categories, lambda f: self.model.features[f].name, most=None)
        self.codes.update(dict.fromkeys(coded.features))
        digits = [f"c{f}" for f in coded.features] + [_part_position(part, self.categories, self)
                                                     for part in test.parts]
        weights = [math.prod(coded.radices[k + 1:]) for k in range(len(digits))]
        key = " + ".join(digit if weight == 1 else f"{digit} * {weight}" for digit, weight in zip(digits, weights))
        if key not in self.combinations:
            self.combinations[key] = Combination(f"x[{len(self.model.features) + len(self.combinations)}]",
                                                 f"_TUPLES{len(self.combinations)}")
        return f"{self.combinations[key].place} & {self.combinations[key].bit(coded.keys)}"

    def category_set(self, categories) -> str:
        """A set of categories as an expression: a set display of a few, the name of a shared frozenset of more."""
        categories = list(categories)
        if len(categories) <= SHARED_SET:
            return f"{{{', '.join(map(ascii, categories))}}}"
        return self.sets.setdefault(_json_literal(categories), f"_IN{len(self.sets)}")


class Combination:
    """A combination of features and parts that tuple splits test (CatBoost's splits of one CTR at several
    borders: the default pairs model's 4,520 tuple splits test 582 sets of keys of 270 combinations): ``_as_read``
    computes its key once a row and looks it up in its table (``name``), a dict of each key that some split's keys
    hold to the mask of those splits, a bit each; the row as read holds the mask at ``place``. One key and one
    lookup a combination, where each split tested built its key as a tuple and looked it up in a set of its own
    (the pairs model's rows 187 -> 94 us; a model of two 1,000-category features: 176 -> 131 us, loaded in 0.4
    s and 123 MB, not 1.5 s and 262 MB)."""

    def __init__(self, place: str, name: str):
        self.place, self.name = place, name
        self.bits: dict[tuple[int, ...], int] = {}  # a split's keys -> its bit
        self.masks: dict[int, int] = {}  # a key -> the bits of the splits whose keys hold it

    def bit(self, keys: tuple[int, ...]) -> int:
        if keys not in self.bits:
            bit = self.bits[keys] = 1 << len(self.bits)
            for key in keys:
                self.masks[key] = self.masks.get(key, 0) | bit
        return self.bits[keys]

    def table(self) -> tuple[str, str, str]:
        """Its name and the JSON texts of its keys, in order, and of their masks."""
        keys = sorted(self.masks)
        return self.name, _json_literal(keys), _json_literal([self.masks[key] for key in keys])


SHARED_SET = 16  # the most categories a test's set display holds; a set of more is a module constant (Shared)


def _json_literal(value) -> str:
    return ascii(json.dumps(value, separators=(",", ":")))


def condition(cond: Cond, categories: tuple[str, ...], shared: Shared, x: str = "") -> str:
    """A test on ``x`` (by default ``x[feature]``), where a nominal value is its category (a str;
    None when missing): the module compares strings, so rows need no encoding; a big set is ``shared``'s."""
    x = x or f"x[{cond.feature}]"
    number = numeric_test(cond, x, literal, "not {}")
    if number is not None:
        return number
    if cond.op == "unknown":
        return f"{x} not in {shared.category_set(categories)}"
    if cond.op == "in or missing":  # a category the feature does not know is neither
        return f"{x} is None" + (f" or {condition(Cond(cond.feature, Op.IN, codes=cond.codes), categories, shared, x)}"
                                 if cond.codes else "")
    positive = cond.op == Op.IN
    if not cond.codes:
        return "False" if positive else "True"
    if len(cond.codes) == 1:
        return f"{x} {'==' if positive else '!='} {ascii(categories[cond.codes[0]])}"
    return f"{x} {cond.op} {shared.category_set(categories[c] for c in cond.codes)}"


def tuple_condition(cond: Cond, shared: Shared) -> str:
    """A ``tuple`` split's test (:class:`treegen.emit.common.TupleTest`), or its negation, ``shared``'s."""
    test = shared.tuple_test(cond.tuples)
    return test if cond.op == "tuple" else f"not {test}"


def _part_position(part: tuple, categories: list[tuple[str, ...]], shared: Shared) -> str:
    """The child position a part of a ``tuple`` split sends the row to (a bool where it is a comparison: NaN
    answers False to both, and goes to the missing child)."""
    if part[0] == "<=":
        _, f, cut, missing = part
        return f"(x[{f}] > {literal(cut)})" if missing == 0 else f"(not x[{f}] <= {literal(cut)})"
    _, f, names, missing, unknown = part
    others = [c for c in categories[f] if c not in names]
    first = f"x[{f}] in {shared.category_set(names)}" if names else "False"
    rest = f"1 if x[{f}] in {shared.category_set(others)} else {unknown}" if unknown != 1 and others else "1"
    return f"(0 if {first} else {missing} if x[{f}] is None else {rest})"


def _function(tree_plan: TreePlan, function, test, numbers) -> dict:
    """A list walker's name, parameters and body lines. An exclusive tree's walker returns the number
    of the node reached (``numbers``: its id or its value's, see :func:`output_numbers`); a
    non-exclusive one records its walk's steps in ``out`` -- a (node id, weight) pair where the walk
    ends, the number of children where a fractional route spreads it -- and leaves the functions still
    to run, with their weights, in ``todo`` (its driver runs them: no recursion). A weight multiplies
    the path's fractions root first (``w * fraction``, as :func:`treegen.model.walk`). ``test(cond)``:
    an ``if`` line, unindented."""
    exclusive = tree_plan.exclusive
    name = lambda node: function_name("_t", function.tree, node)
    lines = []
    for depth, kind, payload in function.lines:
        pad = INDENT * (depth + 1)
        if kind == IF:
            lines.append(pad + test(payload))
        elif kind == LEAF:
            lines.extend([f"{pad}return {numbers[payload]}"] if exclusive else
                         [f"{pad}out.append(({payload}, w))", f"{pad}return"])
        elif kind == CALL:
            lines.extend([f"{pad}return {name(payload)}(x)"] if exclusive else
                         [f"{pad}todo.append(({name(payload)}, w))", f"{pad}return"])
        elif kind == FRACTION:  # the spread's mark, then its children pushed last first: the first runs first
            weights = payload
            lines.append(f"{pad}out.append({len(weights)})")
            lines.extend(f"{pad}todo.append(({name(child)}, w * {literal(weight)}))"
                         for child, weight in reversed(weights))
            lines.append(f"{pad}return")
    if lines[-1] == f"{INDENT}return":  # the function's end returns anyway
        lines.pop()
    return {"name": name(function.node), "params": "x" if exclusive else "x, w, out, todo", "lines": lines}


def _value_table(table: dict) -> list[str]:
    """One ``number: (values...),`` entry per number a walker returns."""
    return [f"{number}: {_tuple(literal(v) for v in value)}," for number, value in sorted(table.items())]


def _subscript(part: slice) -> str:
    """A slice of a list in Python: '' for the whole list."""
    return "" if part == slice(None) else f"[{part.start}:{part.stop}]"


def _linear_table(tree_plan: TreePlan) -> list[str]:
    """One ``node id: (const, ((feature, coeff), ...)),`` entry per linear leaf of an exclusive tree,
    whose walkers return node ids for them (:func:`output_numbers`)."""
    entries = []
    for node, m in sorted(tree_plan.linear.items()):
        terms = _tuple(_tuple((str(f), literal(c))) for f, c in m.terms) if m.terms else "()"
        entries.append(f"{node}: ({literal(m.const)}, {terms}),")
    return entries


def _tuple(items) -> str:
    items = list(items)
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _row_function(tree_plan: TreePlan, function, categories, model: Model, numbers, intervals, shared) -> dict:
    """A walker of the row mapping itself, for the dict API: a feature is read (``row[name]``) and
    converted into a local ``v<i>`` just before the first test of it on a path, so a row reads only
    the features its path tests, as the model does, and tests locals (measured: 1.7-2x faster than
    encoding the 20 features of a row first). A float is used as it is, another number is ``float()``
    of it (``_walked_number``), but text (read, or refused, by ``_number`` in the CSV's grammar, which
    float() would not keep to), None and pandas' NA (missing) raise a TypeError which, like the KeyError
    of a missing feature, sends the caller to the general path, as these walkers run inside ``try``.
    (``value.__float__()`` would do the same in one expression, but a slot wrapper's call cost 1.9x the
    row at 1,000 leaves: 770 against 400 ns.) A number in the feature's missing interval (``intervals``,
    see :func:`missing_intervals`) is then NaN. It returns the number of the node reached, as the list
    walker does."""
    name = lambda node: function_name("_w", function.tree, node)
    interval = {i: (low, high) for i, low, high in intervals}
    lines, scopes = [], []  # scopes[d]: the features read in the open block at depth d
    for depth, kind, payload in function.lines:
        del scopes[depth + 1:]
        scopes.extend(set() for _ in range(depth + 1 - len(scopes)))
        pad = INDENT * (depth + 1)
        if kind == IF:
            feature = payload.feature
            v = f"v{feature}"
            if not any(feature in scope for scope in scopes):
                scopes[depth].add(feature)
                read = f"row[{ascii(model.features[feature].name)}]"
                if model.features[feature].is_numeric:
                    lines += [f"{pad}{v} = {read}", f"{pad}if type({v}) is not float:",
                              f"{pad}{INDENT}{v} = _walked_number({v})"]
                    if feature in interval:
                        low, high = interval[feature]
                        lines += [f"{pad}if {literal(low)} <= {v} <= {literal(high)}:", f"{pad}{INDENT}{v} = _NAN"]
                elif model.features[feature].codes is not None:  # the text first, the rule on a miss
                    lines += [f"{pad}{v} = {read}", f"{pad}if type({v}) is not str or {v} not in _KNOWN{feature}:",
                              f"{pad}{INDENT}{v} = _coded({v}, _KNOWN{feature}, {feature})"]
                else:
                    lines += [f"{pad}{v} = {read}", f"{pad}if type({v}) is not str:",
                              f"{pad}{INDENT}{v} = _category({v}, {feature})"]
            lines.append(f"{pad}if {condition(payload, categories[feature], shared, v)}:")
        elif kind == LEAF:
            lines.append(f"{pad}return {numbers[payload]}")
        elif kind == CALL:
            lines.append(f"{pad}return {name(payload)}(row)")
    # the builtins the type guards read, as locals: a local is read faster (5% of a row at 1,000 leaves)
    guarded = [b for b in ("float", "str") if any(f" is not {b}" in line for line in lines)]
    params = ["row", *(["type"] if guarded else []), *guarded]
    return {"name": name(function.node), "params": ", ".join(p if p == "row" else f"{p}={p}" for p in params),
            "lines": lines}


def _reader(as_read: bool):
    """A function that writes the encoded row ``x`` as the model reads it: through ``_as_read`` when some
    feature has a missing interval or codes."""
    return (lambda x: f"_as_read({x})") if as_read else (lambda x: x)


def _coded(model: Model) -> list[tuple]:
    """Per feature some split tests whose categories are integer codes (:class:`treegen.model.Codes`):
    (feature, its rule's name as a literal, its categories as set items, a comment naming it)."""
    used = set(model.used_features())
    return [(i, repr(f.codes.value), ", ".join(ascii(c) for c in f.categories), comment(f.name))
            for i, f in enumerate(model.features) if f.codes is not None and i in used]


def _named(model: Model) -> list[tuple]:
    """Per nominal feature some split reads (:func:`treegen.emit.common.named_features`): (feature, the
    items of its map of number to category, the categories False and True name, a comment naming it)."""
    text = lambda name: "None" if name is None else ascii(name)
    return [(i, ", ".join(f"{literal(number)}: {ascii(name)}" for number, name in f.named_by_number.items()),
             *map(text, f.named_by_boolean), comment(f.name))
            for i, f in ((i, model.features[i]) for i in named_features(model))]


def _raw_lines(model: Model) -> list[str]:
    """The body of ``_raw(x)`` for sums that are not scikit-learn's plain ones (see
    :class:`treegen.emit.common.Sums`): the model's steps, each rounded by ``_f32`` in float32."""
    steps = sums(model)
    rounded = _rounding(steps)
    weighted = steps.weights is not None
    lines = [f"raw = [{', '.join(literal(v) for v in steps.start)}]",
             "for tree, weight in zip(_TREES, _WEIGHTS):" if weighted else "for tree in _TREES:",
             f"{INDENT}out = _output(tree, x)",
             f"{INDENT}for k in (range(len(raw)) if tree[3] is None else (tree[3],)):",
             f"{INDENT * 2}term = out[k if tree[3] is None else 0]"]
    if weighted:
        lines += [f"{INDENT * 2}if weight != 1.0:", f"{INDENT * 3}term = {rounded('term * weight')}"]
    if steps.scale is not None:
        lines.append(f"{INDENT * 2}term = {rounded(literal(steps.scale) + ' * term')}")
    lines.append(f"{INDENT * 2}raw[k] = {rounded('raw[k] + term')}")
    return lines + _raw_ending(steps)


def _rounding(steps: Sums):
    """A function that writes an expression rounded as the sums round: through ``_f32`` in float32."""
    return (lambda e: f"_f32({e})") if steps.float32 else (lambda e: e)


def _raw_ending(steps: Sums) -> list[str]:
    """The last lines of ``_raw(x)``, from the sums of the trees in ``raw``: the scale and init added
    last, the divisor."""
    rounded = _rounding(steps)
    lines = []
    if steps.last_scale is not None:
        scaled = rounded(f"{literal(steps.last_scale)} * r")
        lines.append(f"raw = [{rounded(scaled + ' + v')} for r, v in zip(raw, {_tuple(map(literal, steps.init))})]")
    if steps.divisor is not None:
        lines.append(f"raw = [{rounded('r / ' + literal(steps.divisor))} for r in raw]")
    return lines + ["return raw"]


def _inline_sum(model: Model, plans: list[TreePlan], test, outputs) -> dict | None:
    """A boosted model's ``_raw(x)`` or a forest's ``_scores(x)`` with every tree written inline, in
    order, adding its leaf's terms to locals ``r0``, ``r1``...: 1.6-2.9x faster a row than a walker
    call per tree through the loop over ``_TREES`` (bench/README.md, 500 trees: LightGBM 126.5-155.6 ->
    51.8-53.9 µs, m2cgen's one function 57-66 µs; XGBoost's float32 sums 183.8-207.3 -> 113.8-120.8 µs).
    A tree is a ``while True:`` block whose leaves ``break``, so the walkers' flat ``if``s stay flat;
    the parts of a tree cut into functions below its first are walked, and a table ``_T<tree>`` gives
    the terms of the number they return (``outputs``: per tree, the walkers' numbers and values).
    Trees go into functions of up to ``INLINE_LINES`` lines, called in turn with the sums so far.
    None where trees are walked one by one: fractional routes, linear leaves, label values."""
    if not summed_tree_by_tree(model, plans):
        return None
    steps = sums(model) if model.combine.kind == CombineKind.SUM else None
    width = len(steps.start) if steps else plans[0].width
    sums_so_far = ", ".join(f"r{k}" for k in range(width))
    functions, body, tables = [], [], []
    for tree_plan, (numbers, values) in zip(plans, outputs):
        terms = {number: leaf_terms(steps, tree_plan.index, value) for number, value in values.items()}
        tree = _inline_tree(tree_plan, test, steps, numbers, terms)
        if not functions or len(body) + len(tree) > INLINE_LINES:
            body = [f'{INDENT}f32 = memoryview(bytearray(4)).cast("f")  # a double stored is rounded as _f32 rounds'
                    ] if steps and steps.float32 else []
            functions.append({"name": f"_add{len(functions)}", "params": f"x, {sums_so_far}", "lines": body})
        body.extend(tree)
        if len(tree_plan.functions) > 1:
            tables.append((f"_T{tree_plan.index}", _value_table(terms)))
    for function in functions:
        function["lines"].append(f"{INDENT}return {sums_so_far}")
    start = steps.start if steps else (0.0,) * width
    lines = [f"r{k} = {literal(v)}" for k, v in enumerate(start)]
    lines += [f"{sums_so_far} = {f['name']}(x, {sums_so_far})" for f in functions]
    if steps:
        lines += [f"raw = [{sums_so_far}]"] + _raw_ending(steps)
    else:
        lines.append(f"return [{', '.join(f'r{k} / {len(plans)}' for k in range(width))}]")
    return {"lines": lines, "functions": functions, "tables": tables}


def _inline_tree(tree_plan: TreePlan, test, steps: Sums | None, numbers: dict[int, int],
                 terms: dict[int, tuple[float, ...]]) -> list[str]:
    """One tree's lines in :func:`_inline_sum`: where it ends, its terms (``terms`` by the number
    ``numbers`` gives a node) added to the sums -- all of them in a forest; in a boosted model the tree's
    output column, or all when it has none -- then ``break``. Several terms are a tuple ``v`` there, added
    after the block: a forest of 100 two-class trees is then 7.4 MB of code rather than 8.9 (5.2 MB
    walked)."""
    entry, index = tree_plan.functions[0], tree_plan.index
    columns = [tree_plan.output] if steps and tree_plan.output is not None else range(tree_plan.width)
    # In float32 a sum goes through a float32 of its own (a store into it is C's cast, as _f32's
    # struct.pack), with no call: 1.3x faster a row than _f32 (a 500-tree XGBoost model, 112 -> 85 µs).
    add = ((lambda k, term: [f"f32[0] = r{k} + {term}", f"r{k} = f32[0]"]) if steps and steps.float32 else
           (lambda k, term: [f"r{k} += {term}"]))
    lines = [f"{INDENT}while True:"]
    for depth, kind, payload in entry.lines:
        pad = INDENT * (depth + 2)
        if kind == IF:
            lines.append(pad + test(payload))
            continue
        if kind == LEAF:
            found = [literal(t) for t in terms[numbers[payload]]]
            term, every = found[0], _tuple(found)
        else:  # CALL: a deeper part of the tree, walked; the number it returns indexes the tree's terms
            every = f"_T{index}[{function_name('_t', index, payload)}(x)]"
            term = every + "[0]"
        lines += [pad + line for line in (add(columns[0], term) if len(columns) == 1 else [f"v = {every}"])]
        lines.append(pad + "break")
    if len(columns) > 1:
        lines += [INDENT + line for i, k in enumerate(columns) for line in add(k, f"v[{i}]")]
    return lines


def _link_lines(combine) -> list[str]:
    """The end of ``_scores(x)`` for boosted sums, from ``raw``: the link, as
    :func:`treegen.model.apply_link` computes it."""
    link, single = combine.link, combine.precision == Precision.FLOAT32
    one = len(combine.init) == 1
    if link == Link.SIGMOID and single:
        return ["p = _sigmoid32(raw[0])", "return [_f32(1.0 - p), p]"] if one else [
            "return [_sigmoid32(r) for r in raw]"]
    if link == Link.SIGMOID:
        scaled = (lambda r: r) if combine.link_scale == 1.0 else (lambda r: f"({literal(combine.link_scale)} * {r})")
        return ([f"p = 1.0 / (1.0 + _exp(-{scaled('raw[0]')}))", "return [1.0 - p, p]"] if one else
                [f"return [1.0 / (1.0 + _exp(-{scaled('r')})) for r in raw]"])
    if link == Link.SOFTMAX and single:
        return ["return _softmax32(raw)"]
    if link == Link.SOFTMAX:  # added in order: sum() adds compensated since Python 3.12
        return ["top = max(raw)", "exps = [math.exp(r - top) for r in raw]", "total = 0.0", "for e in exps:",
                f"{INDENT}total += e", "return [e / total for e in exps]"]
    if link == Link.EXP:
        return [f"return [{'_expf' if single else '_exp'}(r) for r in raw]"]
    if link == Link.EXP_DOUBLE:
        return [f"return [{'_f32(_exp(r))' if single else '_exp(r)'} for r in raw]"]
    if link == Link.STEP:
        return ["p = 1.0 if raw[0] > 0 else 0.0", "return [1.0 - p, p]"] if one else [
            "return [1.0 if r > 0 else 0.0 for r in raw]"]
    if link == Link.SIGN_SQUARE:
        return ["return [(1.0 if r > 0 else -1.0 if r < 0 else 0.0) * r * r for r in raw]"]
    return ["return raw"]


def _decide(decision: Decision, scores: str, raw: str, nan: bool = False, cut: float | None = None) -> str:
    """The index of the predicted class under ``decision``, from the scores and the raw sums (``nan``: which
    may be NaN, :func:`treegen.model.scores_nan`; ``cut``: what RAW_NONNEGATIVE compares with, None: 0)."""
    return {Decision.ARGMAX: f"_argmax{'_nan' if nan else ''}({scores})", Decision.WEKA: f"_weka({scores})",
            Decision.RAW_NONNEGATIVE: f"1 if {raw}[0] >= {'0' if cut is None else literal(cut)} else 0",
            Decision.RAW_POSITIVE: f"1 if {raw}[0] > 0 else 0",
            Decision.ARGMAX_RAW: f"_argmax({raw})"}[decision]


def _helpers(model: Model, decision: Decision) -> dict:
    """The arithmetic a module needs beyond its walkers: C's ``exp``, float32 (with XGBoost's links),
    Weka's choice of class, the argmax's test for NaN scores (:func:`_decide`'s) -- and the constants of
    glibc's ``expf``."""
    combine = model.combine
    boosted = combine.kind == CombineKind.SUM
    float32 = boosted and combine.precision == Precision.FLOAT32
    return {"exp": boosted and (combine.link == Link.EXP_DOUBLE or not float32 and combine.link in (Link.SIGMOID,
                                                                                                   Link.EXP)),
            "float32": float32, "weka": combine.decision() == Decision.WEKA,
            "nan": decision == Decision.ARGMAX and scores_nan(model),
            "expf": {name: literal(getattr(arithmetic, name)) for name in (
                "EXPF_INV_LN2_N", "EXPF_SHIFT", "EXPF_C0", "EXPF_C1", "EXPF_C2", "EXPF_OVERFLOW", "EXPF_UNDERFLOW")},
            "expf_table": [literal(v) for v in arithmetic.EXPF_TABLE],
            "expf_exceptions": [(literal(x), literal(y)) for x, y in arithmetic.EXPF_EXCEPTIONS.items()],
            "sigmoid_clamp": literal(arithmetic.f32(88.7)), "sigmoid_epsilon": literal(arithmetic.f32(1e-16))}
