"""The Java back end: one public class (Java 8 source level, no dependencies) with ``predict``,
``predictProba``, ``predictLeaf`` and a CSV program (``main``).

A class has two parts. The model -- constants, the API, the walkers of each tree -- is written for
each model by ``templates/java/Model.java.j2`` (with ``single.java.j2`` for one tree that reaches one
node, whose walker's node id indexes its values and labels, or ``ensemble.java.j2``). The helpers,
the encoding of rows and the program are the same text in every class, ``templates/java/
runtime.java.txt``, copied in as it is.

The JVM's walls decide the layout. Each tree is cut into static methods whose estimated bytecode
stays well under HotSpot's 8,000-byte JIT limit (and so under the 64 KB hard limit); the methods are
spread over nested classes whose estimated constant pools stay under 65,535 entries. Node values
live in string data parsed once at class initialisation, not in code. Names and labels appear only
as escaped string literals (:func:`string`) -- in the code, and in the line comment that says what
each test reads -- never in identifiers.

A tree with a fractional (C4.5) route cuts a method at every child of such a split, so a path
10,000 splits deep would nest 10,000 calls. Its methods count their nesting: deeper than
``DEFER_DEPTH`` a method does not run but pushes itself (its number and its path's factors) on a
work list that one loop (``drain``) empties through switch dispatch, starting the count again. Calls
stay direct, as fast as before, and the stack stays shallow at any depth."""
from __future__ import annotations

import re

from ..errors import TreegenError
from ..model import CombineKind, Model, Op
from .common import (CALL, FRACTION, IF, LEAF, Cond, CostModel, TreePlan, category_codes, float_text,
                     numeric_test, output_numbers, plan)
from .render import render, source

INDENT = "    "
JIT_LIMIT = 8000  # bytes of bytecode above which HotSpot never compiles a method
POOL_LIMIT = 65535  # constant-pool entries of one class
STRING_LIMIT = 65535  # UTF-8 bytes of one string constant
MASK_BITS = 63  # category codes below this are tested with one bit mask
TREES_PER_DISPATCH = 256  # cases of one tableswitch dispatching to the trees (about 20 bytes each)
BLOCK_BITS = 8  # walkers are resumed in blocks of 256 numbers, each block dispatched by one method
DEFER_DEPTH = 100  # nested calls before a walk defers to the work list: far from any stack's end


def _condition_bytes(cond: Cond) -> int:
    """An upper bound of the bytecode of one test: load x[i] (5), a constant (3), compare and branch
    (4); a category set is one bit-mask test (17) or a chain of equality tests; a negation may
    cost a jump (3)."""
    negation = 3 if cond.op.startswith("not") else 0
    if cond.op in ("in", "not in") and len(cond.codes) > 1:
        return negation + (17 if _uses_mask(cond.codes) else 12 * len(cond.codes))
    return negation + 12


# Bytes: a leaf is ldc_w + ireturn, a call aload + invokestatic + ireturn; collecting adds the
# accumulator, the factors, the nesting count and a call; a fractional branch scales the factors (a
# call) and calls (18). The check of the nesting count at a method's start (16) is not counted: it
# fits in the margin. Functions are cut at 3/4 of the JIT limit: the estimate is an upper bound,
# and greedy cutting leaves most functions between half the budget and the budget.
COST = CostModel(condition=_condition_bytes, leaf=4, call=5, collect=5, fraction_call=18,
                 budget=JIT_LIMIT * 3 // 4, max_depth=40)
# The per-method estimate counts entries that methods share once per method: an upper bound. The
# other quarter holds the class's own entries (names, descriptors, the classes it calls) with room to spare.
POOL_BUDGET = POOL_LIMIT * 3 // 4
RESUME_ENTRIES = 5  # what a walker adds: its reference in its class's dispatcher, its number

NESTED = ("Acc", "InputError", "CsvReader")  # the nested classes' names besides P0, P1, ...
# The types the generated code names without qualification: a class of the same name would shadow
# one, or clash with its import, and not compile. A test checks this list against the code.
RESERVED = frozenset("""ArrayList Arrays BufferedWriter Character Collections Double Exception FileDescriptor
FileOutputStream Float HashMap IOException IllegalArgumentException InputStream Integer List Locale Map Math
Number Object OutputStreamWriter Pattern StandardCharsets String StringBuilder System Writer""".split())
KEYWORDS = set("""abstract assert boolean break byte case catch char class const continue default do double
else enum extends final finally float for goto if implements import instanceof int interface long native
new package private protected public return short static strictfp super switch synchronized this throw
throws transient try void volatile while true false null var record yield sealed permits""".split())


def emit(model: Model, proba: bool = False, leaf: bool = False, class_name: str = "TreegenModel",
         package: str | None = None) -> str:
    """The text of a Java source file whose class predicts exactly as ``model`` does.

    Parameters
    ----------
    model : the model to compile.
    proba : accepted for symmetry with the SQL target: a classification class always has
        ``predictProba`` and its program always takes ``--proba``.
    leaf : add ``predictLeaf`` and the program's ``--leaf``.
    class_name : the public class's name; package : its package (none by default).
    """
    _check_name(class_name, "class name")
    if class_name in NESTED or re.fullmatch(r"P[0-9]+", class_name):
        raise TreegenError(f"class name {class_name!r} is taken by a nested class of the generated code")
    if class_name in RESERVED:
        raise TreegenError(f"class name {class_name!r} is a name the generated code uses (a JDK type or a member); "
                           "choose another --class-name")
    for part in (package.split(".") if package else []):
        _check_name(part, "package name")
    plans = plan(model, COST)
    home = _assign_classes(plans)
    walkers = _walker_numbers(plans, home)
    codes = category_codes(model)
    names = [f.name for f in model.features]
    outputs = [output_numbers(p, node_ids=leaf) for p in plans]  # what walkers return, the values it indexes
    # A single tree that reaches one node is read straight from its walker: no accumulator, no dispatch.
    single = len(plans) == 1 and plans[0].exclusive and model.combine.kind == CombineKind.SINGLE
    return render("java", "Model.java.j2", filters={"lit": literal, "str": string},
                  model=model, name=class_name, package=package,
                  classification=model.target.is_classification,
                  features=model.features, classes=model.target.classes, used=model.used_features(),
                  codes=[table if not f.is_numeric else None for f, table in zip(model.features, codes)],
                  parts=_parts(plans, home, walkers, names, codes, outputs),
                  resumers=_resumers(walkers, home, len(set(home.values()))),
                  resume=_resume_groups(walkers, home), trees=plans, dispatch=_dispatch(plans, home),
                  data=_data_chunks([table for _, table in outputs]), combine=model.combine, single=single,
                  dispatch_size=TREES_PER_DISPATCH, block_bits=BLOCK_BITS, leaf=leaf,
                  leaves=sum(len(t.leaves()) for t in model.trees), runtime=source("java", "runtime.java.txt"))


def _check_name(name: str, what: str) -> None:
    if not re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name or "") or name in KEYWORDS:
        raise TreegenError(f"{what} {name!r} is not a Java identifier")


def literal(value) -> str:
    """A Java double expression that reads back bit-identical (Java parses decimals correctly rounded)."""
    return float_text(value, "Double.NaN", "Double.POSITIVE_INFINITY")


def string(text: str) -> str:
    """A Java string literal. Every UTF-16 unit outside printable ASCII is escaped; line breaks,
    quotes and backslashes get their own escapes, since ``\\u000a`` would end the line before javac
    reads the literal."""
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", '"': '\\"', "\\": "\\\\"}
    units = text.encode("utf-16-be")
    out = []
    for i in range(0, len(units), 2):
        c = chr(int.from_bytes(units[i:i + 2], "big"))
        out.append(named.get(c) or (c if " " <= c <= "~" else f"\\u{ord(c):04x}"))
    return '"' + "".join(out) + '"'


def method_name(tree: int, node: int) -> str:
    return f"t{tree}n{node}"


def condition(cond: Cond) -> str:
    x = f"x[{cond.feature}]"
    number = numeric_test(cond, x, literal, "!({})")
    if number is not None:
        return number
    if cond.op == "unknown":
        return f"{x} < 0.0"
    test = _in_codes(x, cond.codes)
    return test if cond.op == Op.IN else f"!({test})"


def comment(cond: Cond, name: str, categories) -> str:
    """A comment that says what a test reads: the feature's name and, for a nominal feature, the
    categories its codes stand for, as escaped Java string literals. A line comment ends only at a
    line break (CR or LF, which javac also reads from a ``\\u000a`` escape, comments included), and
    :func:`string` writes neither: line breaks as ``\\n``/``\\r``, a backslash doubled."""
    if categories is None:
        return f"  // {string(name)}"
    if cond.op == "unknown":
        return f"  // {string(name)} is missing or unknown"
    listed = ", ".join(string(categories[c]) for c in cond.codes)
    if len(cond.codes) == 1:
        return f"  // {string(name)} {'==' if cond.op == Op.IN else '!='} {listed}"
    return f"  // {string(name)} {cond.op} {{{listed}}}"


def _uses_mask(codes) -> bool:
    return len(codes) > 3 and max(codes) < MASK_BITS


def _in_codes(x: str, codes) -> str:
    if not codes:
        return "false"
    if _uses_mask(codes):  # a code of -1 shifts by 63: that bit is clear
        mask = sum(1 << c for c in codes)
        return f"(0x{mask:x}L >>> (int) {x} & 1L) != 0L"
    return " || ".join(f"{x} == {c}.0" for c in codes)


def _assign_classes(plans: list[TreePlan]) -> dict:
    """Which nested class each method lives in, filling classes up to the constant-pool budget."""
    home, part, used = {}, 0, 0
    for tree_plan in plans:
        for function in tree_plan.functions:
            need = _pool_entries(function) + (0 if tree_plan.exclusive else RESUME_ENTRIES)
            if used and used + need > POOL_BUDGET:
                part, used = part + 1, 0
            home[(function.tree, function.node)] = part
            used += need
    return home


def _pool_entries(function) -> int:
    """Constant-pool entries a method may add: 2 per double constant, 4 per method it calls
    (reference, name and type, name, class), 1 per int above a short, and its own name and type."""
    entries = 4
    for _, kind, payload in function.lines:
        if kind == IF:
            entries += 2 * max(1, len(payload.codes))
        elif kind == CALL:
            entries += 4
        elif kind == FRACTION:
            entries += 6 * len(payload[1])
        elif kind == LEAF:
            entries += payload > 32767
    return entries


def _walker_numbers(plans: list[TreePlan], home: dict) -> dict:
    """The number by which the driver loop resumes each method of a non-exclusive tree. Numbers
    follow the methods' order; a new class starts a new block, so each block lies in one class."""
    numbers, number, last_part = {}, 0, None
    block = 1 << BLOCK_BITS
    for tree_plan in plans:
        for function in [] if tree_plan.exclusive else tree_plan.functions:
            key = (function.tree, function.node)
            if home[key] != last_part:
                number, last_part = -(-number // block) * block, home[key]
            numbers[key] = number
            number += 1
    return numbers


def _resumers(walkers: dict, home: dict, classes: int) -> list[list[dict]]:
    """Per nested class, its dispatchers: per block of walker numbers, the cases that call them."""
    blocks: list[dict] = [{} for _ in range(classes)]
    for (tree, node), number in walkers.items():
        cases = blocks[home[(tree, node)]].setdefault(number >> BLOCK_BITS, [])
        cases.append((number, method_name(tree, node)))
    return [[{"block": b, "cases": cases} for b, cases in sorted(part.items())] for part in blocks]


def _resume_groups(walkers: dict, home: dict) -> list[list[tuple[int, int]]]:
    """(block, class) pairs of the top-level dispatch, grouped 256 blocks to a method."""
    parts = {number >> BLOCK_BITS: home[key] for key, number in walkers.items()}
    groups: dict[int, list] = {}
    for b in sorted(parts):
        groups.setdefault(b >> BLOCK_BITS, []).append((b, parts[b]))
    return [groups.get(g, []) for g in range(max(groups) + 1)] if groups else []


def _parts(plans: list[TreePlan], home: dict, walkers: dict, names, codes, outputs) -> list[list[dict]]:
    """The nested classes, each a list of methods ready to print."""
    classes: list[list[dict]] = [[] for _ in range(max(home.values()) + 1)] if home else []
    for tree_plan in plans:
        for function in tree_plan.functions:
            method = _method(tree_plan, function, home, walkers, names, codes, outputs[tree_plan.index][0])
            classes[home[(function.tree, function.node)]].append(method)
    return classes


def _method(tree_plan: TreePlan, function, home: dict, walkers: dict, names, codes, numbers) -> dict:
    """A walker: an exclusive tree's returns the number of the node reached (``numbers``: its id or its
    value's, see :func:`output_numbers`); a non-exclusive one adds (node id, weight) to ``out``."""
    exclusive = tree_plan.exclusive
    call = lambda node: f"P{home[(function.tree, node)]}.{method_name(function.tree, node)}"
    lines, open_blocks = [], []
    if not exclusive:  # too deep: leave this walker to the driver loop
        pad, number = INDENT * 3, walkers[(function.tree, function.node)]
        lines += [f"{pad}if (d > {DEFER_DEPTH}) {{", f"{pad}{INDENT}out.push({number}, w);", f"{pad}{INDENT}return;",
                  f"{pad}}}"]
    for depth, kind, payload in function.lines:
        while open_blocks and open_blocks[-1] >= depth:
            lines.append(INDENT * (open_blocks.pop() + 3) + "}")
        pad = INDENT * (depth + 3)
        if kind == IF:
            categories = codes[payload.feature] if payload.op not in ("<=", ">", "not <=", "not >") else None
            lines.append(f"{pad}if ({condition(payload)}) {{{comment(payload, names[payload.feature], categories)}")
            open_blocks.append(depth)
        elif kind == LEAF:
            lines.extend([f"{pad}return {numbers[payload]};"] if exclusive else
                         [f"{pad}out.add({payload}, w);", f"{pad}return;"])
        elif kind == CALL:
            lines.extend([f"{pad}return {call(payload)}(x);"] if exclusive else
                         [f"{pad}{call(payload)}(x, w, out, d + 1);", f"{pad}return;"])
        elif kind == FRACTION:
            slot, weights = payload
            lines.extend(f"{pad}{call(child)}(x, scaled(w, {slot}, {literal(weight)}), out, d + 1);"
                         for child, weight in weights)
            lines.append(f"{pad}return;")
    while open_blocks:
        lines.append(INDENT * (open_blocks.pop() + 3) + "}")
    signature = "int {}(double[] x)" if exclusive else "void {}(double[] x, double[] w, Acc out, int d)"
    return {"signature": signature.format(method_name(function.tree, function.node)), "lines": lines}


def _dispatch(plans: list[TreePlan], home: dict) -> list[list[str]]:
    """Groups of switch cases that start each tree's walk (one small method per group)."""
    cases = []
    for p in plans:
        entry = f"P{home[(p.index, 0)]}.{method_name(p.index, 0)}"
        walk = f"{entry}(x, ones({len(p.factors)}), acc, 0); drain(x, acc)"  # then the deferred walkers
        call = f"acc.add({entry}(x), 1.0)" if p.exclusive else walk
        cases.append(f"case {p.index}: {call}; return;")
    return [cases[i:i + TREES_PER_DISPATCH] for i in range(0, len(cases), TREES_PER_DISPATCH)]


def _data_chunks(tables: list[dict]) -> list[str]:
    """Each tree's values by the numbers its walkers return, as text cut into string constants: per
    tree a line ``size|number:v,v number:v,v`` (read by the class's ``parseValues``)."""
    lines = []
    for table in tables:
        entries = " ".join(f"{number}:" + ",".join(float_text(v, "NaN", "Infinity") for v in value)
                           for number, value in sorted(table.items()))
        lines.append(f"{max(table) + 1}|{entries}\n")
    text = "".join(lines)
    size = STRING_LIMIT // 4  # ASCII: one byte per character, and a short line of source
    return [text[i:i + size] for i in range(0, len(text), size)]
