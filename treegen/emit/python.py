"""The Python back end: one standalone module (standard library only, Python 3.8+) with
``predict``/``predict_proba``/``predict_leaf`` and a CSV program (``main``).

A module has two parts. The model -- the walkers of each tree, the tables of node values, the API --
is written for each model by ``templates/python/module.py.j2``. The program -- reading CSV, the
conversion of rows, ``main`` -- is the same text in every module, ``templates/python/runtime.py.txt``,
copied in as it is; it reads the model through a few names the model part defines (listed at its top).

A tree's walkers return a number for the node where evaluation ends -- its id, or the number of its
value among the tree's distinct values when no one asks for leaf ids -- and a table indexed by that
number gives the value and the label, so one walker serves ``predict``, ``predict_proba`` and
``predict_leaf`` alike.

Names and labels only ever appear as ASCII string literals made by :func:`ascii` -- in the code, and
in the comment that names the feature of each test, where ``#`` is escaped too -- so nothing in a
model can change the code's meaning, end a comment or pass a linter a directive."""
from __future__ import annotations

from ..model import CombineKind, Model, Op
from .common import (CALL, FRACTION, IF, LEAF, Cond, CostModel, TreePlan, category_codes, float_text,
                     numeric_test, output_numbers, plan)
from .render import render, source

INDENT = "    "

# Python limits indentation (100 levels) and the parser's recursion, not a function's size: nesting
# is cut at 40 levels, and size only far out (in lines), since every call between functions costs a
# row time while CPython compiles one big function no slower than many small ones (measured: 50,000
# leaves compile in 4.4 s as one function, 7.6 s as 64).
COST = CostModel(condition=lambda cond: 1, leaf=1, call=1, collect=1, fraction_call=1, budget=100_000,
                 max_depth=40)


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
    outputs = [output_numbers(p, node_ids=leaf) for p in plans]
    functions = [_function(p, f, categories, names, outputs[p.index][0]) for p in plans for f in p.functions]
    # A single tree reaching one node is also walked on the row mapping itself (see _row_function):
    # the dict API then reads only the features on the row's path.
    single = len(plans) == 1 and plans[0].exclusive and model.combine.kind == CombineKind.SINGLE
    row_walkers = [_row_function(plans[0], f, categories, model, outputs[0][0])
                   for f in plans[0].functions] if single else []
    return render("python", "module.py.j2", filters={"lit": literal},
                  model=model, classification=model.target.is_classification,
                  features=[ascii(name) for name in names], classes=[ascii(c) for c in model.target.classes],
                  nominal=[not f.is_numeric for f in model.features], used=model.used_features(),
                  trees=plans, functions=functions, row_walkers=row_walkers, single=single,
                  values=[_value_table(table) for _, table in outputs],
                  combine=model.combine, leaf=leaf, leaves=sum(len(t.leaves()) for t in model.trees),
                  runtime=source("python", "runtime.py.txt"))


def literal(value) -> str:
    """A Python expression for a float that reads back bit-identical (``1e999`` is infinity)."""
    return float_text(value, "_NAN", "1e999")


def function_name(prefix: str, tree: int, node: int) -> str:
    return f"{prefix}{tree}_n{node}"


def comment(name: str) -> str:
    """A comment naming a feature: its name as an ASCII literal, with ``#`` escaped too, so that
    it stays one line and no name can read as a directive to a tool (``# noqa``, ``# type:``)."""
    return "  # " + ascii(name).replace("#", "\\x23")


def condition(cond: Cond, categories: tuple[str, ...], x: str = "") -> str:
    """A test on ``x`` (by default ``x[feature]``), where a nominal value is its category (a str;
    None when missing): the module compares strings, so rows need no encoding."""
    x = x or f"x[{cond.feature}]"
    number = numeric_test(cond, x, literal, "not {}")
    if number is not None:
        return number
    if cond.op == "unknown":
        return f"{x} not in {{{', '.join(ascii(c) for c in categories)}}}"
    positive = cond.op == Op.IN
    if not cond.codes:
        return "False" if positive else "True"
    if len(cond.codes) == 1:
        return f"{x} {'==' if positive else '!='} {ascii(categories[cond.codes[0]])}"
    return f"{x} {cond.op} {{{', '.join(ascii(categories[c]) for c in cond.codes)}}}"


def _function(tree_plan: TreePlan, function, categories, names, numbers) -> dict:
    """A list walker's name, parameters and body lines. An exclusive tree's walker returns the number
    of the node reached (``numbers``: its id or its value's, see :func:`output_numbers`); a
    non-exclusive one collects (node id, factors) pairs in ``out`` and leaves the functions still to
    run, with their factors, in ``todo`` (its driver runs them: no recursion)."""
    exclusive = tree_plan.exclusive
    name = lambda node: function_name("_t", function.tree, node)
    lines = []
    for depth, kind, payload in function.lines:
        pad = INDENT * (depth + 1)
        if kind == IF:
            lines.append(f"{pad}if {condition(payload, categories[payload.feature])}:{comment(names[payload.feature])}")
        elif kind == LEAF:
            lines.extend([f"{pad}return {numbers[payload]}"] if exclusive else
                         [f"{pad}out.append(({payload}, w))", f"{pad}return"])
        elif kind == CALL:
            lines.extend([f"{pad}return {name(payload)}(x)"] if exclusive else
                         [f"{pad}todo.append(({name(payload)}, w))", f"{pad}return"])
        elif kind == FRACTION:
            slot, weights = payload
            lines.extend(f"{pad}todo.append(({name(child)}, _scaled(w, {slot}, {literal(weight)})))"
                         for child, weight in weights)
            lines.append(f"{pad}return")
    if lines[-1] == f"{INDENT}return":  # the function's end returns anyway
        lines.pop()
    return {"name": name(function.node), "params": "x" if exclusive else "x, w, out, todo", "lines": lines}


def _value_table(table: dict) -> list[str]:
    """One ``number: (values...),`` entry per number a walker returns."""
    return [f"{number}: {_tuple(literal(v) for v in value)}," for number, value in sorted(table.items())]


def _tuple(items) -> str:
    items = list(items)
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _row_function(tree_plan: TreePlan, function, categories, model: Model, numbers) -> dict:
    """A walker of the row mapping itself, for the dict API: a feature is read (``row[name]``) and
    converted into a local ``v<i>`` just before the first test of it on a path, so a row reads only
    the features its path tests, as the model does, and tests locals (measured: 1.7-2x faster than
    encoding the 20 features of a row first). A number is ``float(value)``, as ``_number`` converts
    it but for None, whose TypeError, like the KeyError of a missing feature, sends the caller to
    the general path: these walkers run inside ``try``. It returns the number of the node reached, as
    the list walker does."""
    name = lambda node: function_name("_w", function.tree, node)
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
                if model.features[feature].is_numeric:  # float(None) raises TypeError
                    lines.append(f"{pad}{v} = float({read})")
                else:
                    lines += [f"{pad}{v} = {read}", f"{pad}if type({v}) is not str:",
                              f"{pad}{INDENT}{v} = _category({v})"]
            lines.append(f"{pad}if {condition(payload, categories[feature], v)}:")
        elif kind == LEAF:
            lines.append(f"{pad}return {numbers[payload]}")
        elif kind == CALL:
            lines.append(f"{pad}return {name(payload)}(row)")
    return {"name": name(function.node), "params": "row", "lines": lines}
