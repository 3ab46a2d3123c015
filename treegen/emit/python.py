"""The Python back end: one standalone module (standard library only, Python 3.8+) with
``predict``/``predict_proba``/``predict_leaf`` and a CSV program (``main``).

Names and labels only ever appear as ASCII string literals made by :func:`ascii`, so nothing in a
model can change the code's meaning."""
from __future__ import annotations

from ..model import CombineKind, Model, Op
from .common import (CALL, FRACTION, IF, LEAF, Cond, CostModel, TreePlan, category_codes, float_text,
                     leaf_table, numeric_test, plan)
from .render import render

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
    proba : give the program a ``--proba`` flag (the module always has ``predict_proba`` for
        classification).
    leaf : add ``predict_leaf`` and the program's ``--leaf`` flag.
    """
    plans = plan(model, COST)
    categories = category_codes(model)
    used = {cond_feature for p in plans for f in p.functions for cond_feature in _features_used(f)}
    # A single tree that reaches one node has walkers that return its output itself, as m2cgen's
    # do: the row's time is then one call. Walkers that return node ids serve the rest.
    direct = len(plans) == 1 and plans[0].exclusive and model.combine.kind == CombineKind.SINGLE
    if direct:
        outputs = _outputs(model, plans[0])
        functions = [_function(plans[0], f, categories, "_p", outputs) for f in plans[0].functions]
    else:
        functions = [_function(p, f, categories, "_t") for p in plans for f in p.functions]
    if direct and leaf:
        functions += [_function(plans[0], f, categories, "_t") for f in plans[0].functions]
    # The dict API of such a tree walks the row itself (see _row_function); the rest encode it.
    readers = [_row_function(plans[0], f, categories, model, outputs) for f in plans[0].functions] if direct else []
    return render("python", "module.py.j2", filters={"lit": literal},
                  model=model, classification=model.target.is_classification,
                  features=[ascii(f.name) for f in model.features],
                  classes=[ascii(c) for c in model.target.classes],
                  nominal=[not f.is_numeric for f in model.features],
                  used=used, trees=plans, functions=functions, direct=direct, readers=readers,
                  tables=[] if direct else [_value_table(p) for p in plans], combine=model.combine,
                  proba=proba, leaf=leaf)


def literal(value) -> str:
    """A Python expression for a float that reads back bit-identical (``1e999`` is infinity)."""
    return float_text(value, "_NAN", "1e999")


def function_name(prefix: str, tree: int, node: int) -> str:
    return f"{prefix}{tree}_n{node}"


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


def _function(tree_plan: TreePlan, function, categories, prefix: str, outputs=None) -> dict:
    """A function's name, parameters and body lines. Walkers named ``_p`` return the tree's output
    (a new list of probabilities, or the regression value); ``_t`` ones the id of the node reached,
    or, in a non-exclusive tree, collect (node id, factors) pairs in ``out`` and leave the functions
    still to run, with their factors, in ``todo``."""
    exclusive = tree_plan.exclusive
    name = lambda node: function_name(prefix, function.tree, node)
    lines = []
    for depth, kind, payload in function.lines:
        pad = INDENT * (depth + 1)
        if kind == IF:
            lines.append(f"{pad}if {condition(payload, categories[payload.feature])}:")
        elif kind == LEAF and outputs:
            lines.append(f"{pad}return {outputs[payload]}")
        elif kind == LEAF:
            lines.extend([f"{pad}return {payload}"] if exclusive else
                         [f"{pad}out.append(({payload}, w))", f"{pad}return"])
        elif kind == CALL:  # a non-exclusive tree hands the call to its driver: no recursion
            lines.extend([f"{pad}return {name(payload)}(x)"] if exclusive else
                         [f"{pad}todo.append(({name(payload)}, w))", f"{pad}return"])
        elif kind == FRACTION:
            slot, weights = payload
            lines.extend(f"{pad}todo.append(({name(child)}, _scaled(w, {slot}, {literal(weight)})))"
                         for child, weight in weights)
            lines.append(f"{pad}return")
    return {"name": name(function.node), "params": "x" if exclusive else "x, w, out, todo", "lines": lines}


def _outputs(model: Model, tree_plan: TreePlan) -> dict[int, str]:
    """What a ``_p`` walker returns at each node: a new list each call, or the regression value."""
    if model.target.is_classification:
        return {node: "[" + ", ".join(literal(v) for v in value) + "]"
                for node, value in leaf_table(tree_plan).items()}
    return {node: literal(value[0]) for node, value in leaf_table(tree_plan).items()}


def _features_used(function) -> set:
    return {payload.feature for _, kind, payload in function.lines if kind == IF}


def _value_table(tree_plan: TreePlan) -> list[str]:
    """One ``node: (values...),`` entry per node that evaluation can end at."""
    return [f"{node}: ({''.join(literal(v) + ', ' for v in value).rstrip()}),"
            for node, value in sorted(leaf_table(tree_plan).items())]


def _row_function(tree_plan: TreePlan, function, categories, model: Model, outputs) -> dict:
    """A ``_p`` walker of the row mapping itself, for the dict API: a feature is read (``row[name]``)
    and converted into a local ``v<i>`` just before the first test of it on a path, so a row reads
    only the features its path tests, as the model does, and tests locals (measured: 1.7-2x
    faster than encoding the 20 features of a row first). A number is ``float(value)``, as
    ``_number`` converts it but for None, whose TypeError, like the KeyError of a missing feature,
    sends the caller to the general path: these lines run inside ``try``."""
    prefix = "_r"
    name = lambda node: function_name(prefix, function.tree, node)
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
                    lines += [f"{pad}{v} = {read}", f"{pad}if {v}.__class__ is not str:",
                              f"{pad}{INDENT}{v} = _category({v})"]
            lines.append(f"{pad}if {condition(payload, categories[feature], v)}:")
        elif kind == LEAF:
            lines.append(f"{pad}return {outputs[payload]}")
        elif kind == CALL:
            lines.append(f"{pad}return {name(payload)}(row)")
    return {"name": name(function.node), "params": "row", "lines": lines}
