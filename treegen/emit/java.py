"""The Java back end: one public class (Java 8 source level, no dependencies) with ``predict``,
``predictProba``, ``predictLeaf`` and a CSV program (``main``).

A class has two parts. The model -- constants, the API, the walkers of each tree -- is written for
each model by ``templates/java/Model.java.j2`` (with ``single.java.j2`` for one tree that reaches one
node, whose walker's node id indexes its values and labels, or ``ensemble.java.j2``). The helpers,
the encoding of rows and the program are the same text in every class, ``templates/java/
runtime.java.txt``, copied in as it is; a model with a feature of integer codes (``Feature.codes``) adds
``codes.java.txt``, which the runtime's look-ups of a category call when a value's text is none of its
categories (``CODED_LOOKUPS``); a model with a nominal feature some split reads adds ``named.java.txt``,
which reads a ``Number`` or a ``Boolean`` given for one by its value (:func:`treegen.model.category_of`,
``NAMED_LOOKUP``), not by its ``toString()``.

The JVM's walls decide the layout. Each tree is cut into static methods whose estimated bytecode
stays well under HotSpot's 8,000-byte JIT limit (and so under the 64 KB hard limit); the methods are
spread over nested classes whose estimated constant pools stay under 65,535 entries. Node values
live in string data parsed once at class initialisation, not in code. Names and labels appear only
as escaped string literals (:func:`string`) -- in the code, and in the line comment that says what
each test reads -- never in identifiers.

Trees that each reach one node, added up (boosting) or averaged (a forest), are added in tree order
by methods of nested classes ``S0``, ``S1``... that call each tree's walker directly, the sums in
locals (:func:`_direct_sums`): each leaf's terms -- its value times the tree's weight and the scale,
rounded as the sums round -- are worked out when the code is written, and without leaf ids a walker of
a tree of one number returns its term itself (a symmetric tree's, its leaf's index, computed without a
branch: see :func:`treegen.emit.common._levels`). Measured on bench_boosting's 500-tree models: 18-32
µs a row through the accumulator, 3-16 µs so. Each method adds a group of trees of a few KB of walker
code (``GROUP_BYTES``), and ``predictRows`` / ``predictProbaRows`` run each group over every row before
the next (each class's ``rows``), so that its code stays in the processor's caches.

A tree with a fractional (C4.5) route cuts a method at every child of such a split, and its walk
must meet the nodes depth first, children in order: the output is J48's nested sums
(:func:`treegen.model.nested_sum`), folded from what the walk records in that order -- each node
where it ends with its path's weight (J48's ``weights[i] * weight``, root first), and each split that
spreads the row with its number of children. A spreading split pushes its other children, last
first, on a work list that one loop (``drain``) empties through switch dispatch, and calls its first
child directly. Every call is the last thing its caller does, so a walker's methods count their
nesting: deeper than ``DEFER_DEPTH`` a method does not run but pushes itself (its number and its
path's weight) on top of the work list, where it runs next, starting the count again. The order
holds, the stack stays shallow at any depth, and most calls stay direct.

A ``tuple`` split (CatBoost's CTR of categories combined: :func:`treegen.model.tuple_key`) is tested on
the row's key as one number (:class:`treegen.emit.common.CodedTuples`, exact in a double), computed inline
from the codes and the parts' children and looked up in its key set (:func:`tuple_condition`). Each
distinct set is held once, as string data parsed by ``parseValues`` at class initialisation, as node
values are: a bitmap from its least key, or, where its keys lie too far apart for one, its keys sorted (written
as differences) for a binary search.

A ``double[]`` row whose value of a nominal feature some split reads is no code of it (1.5, NaN, one past its
categories) is refused (``checkCodes``), as JavaScript's fast path refuses it: a category set's bit mask would read
3.5 as code 3 and -62 as code 2 (a shift counts mod 64), and a tuple split's key would be another row's.

Every extension of the model is rendered: a feature's missing interval where a row is
read (``read``, on every path into the model, the ``double[]`` fast path too), a child for unknown
categories (a category code is -1 when missing and -2 when the feature does not know it), and the
whole combine -- tree weights, float32 arithmetic (each step cast to ``float``, which Java rounds to
nearest as C does; strict IEEE arithmetic, since Java 17 always and before it on every x86-64 and
AArch64 JVM: no ``strictfp``, which javac 17 warns of), the divisor and the bias added last, every
link and label rule. The links in double compute glibc's ``exp`` (``templates/java/exp.java.j2``), in
float32 glibc's ``expf`` as :mod:`treegen.arithmetic` writes it out."""

from __future__ import annotations

import os
import re
from decimal import Decimal, localcontext
from functools import lru_cache

from .. import arithmetic
from ..errors import TreegenError
from ..lower import per_condition
from ..model import (CombineKind, Decision, Link, Model, Op, Precision, has_label_values, read_nominal_features,
                     scores_nan)
from .common import (CALL, FRACTION, IF, LEAF, LEVELS, CodedTuples, Cond, CostModel, Sums, TreePlan, bit_set_words,
                     braced_lines, category_codes, code_size, coded_tuples, decides_on_raw, float_text, group_weight,
                     label_part, leaf_index, check_literal_sizes, key_differences, label_decision, leaf_terms,
                     missing_intervals, named_codes, named_features, numeric_test, output_numbers, plan, scores_part,
                     sets_looked_up, summed_tree_by_tree, sums, takes_exp, utf16_escaped)
from .render import render, replaced, runtime_with_codes, source

INDENT = "    "
JIT_LIMIT = 8000  # bytes of bytecode above which HotSpot never compiles a method
POOL_LIMIT = 65535  # constant-pool entries of one class
STRING_LIMIT = 65535  # bytes of modified UTF-8 of one string constant
# Category codes below this are tested with one bit mask: a long shifted right by the code, whose bit
# 63 (a missing value, -1) and bit 62 (an unknown category, -2) are then clear.
MASK_BITS = 62
TREES_PER_DISPATCH = 256  # cases of one tableswitch dispatching to the trees (about 20 bytes each)
BLOCK_BITS = 8  # walkers are resumed in blocks of 256 numbers, each block dispatched by one method
DEFER_DEPTH = 100  # nested calls before a walk defers to the work list: far from any stack's end
# A model with a feature of integer codes (Feature.codes) reads a value that is none of its categories' texts
# by treegen.model.code_category (else, as any number, treegen.model.number_category): the runtime's two
# look-ups then call codes.java.txt on a miss (only then), in the rows API (valueCode) and in the CSV program
# (fieldCode). Without codes the runtime is as written.
CODED_LOOKUPS = (
    ("oneValue(feature, value).toString());\n        return code == null ? UNKNOWN : code;",
     "oneValue(feature, value).toString());\n        return code == null ? valueCode(feature, value) : code;"),
    ("codes.get(text);\n            return code == null ? UNKNOWN : code;",
     "codes.get(text);\n            return code == null ? fieldCode(feature, text) : code;"))
# A model with codes but no nominal feature some split reads has no numberCategory (named.java.txt): its CSV
# program reads a field of codes by its code alone, which no split reads.
NUMBER_CATEGORY = (("return numberCategory(feature, parseNumber(text));", "return numberCode(feature, parseNumber(text));"),)
# A model with a nominal feature some split reads reads a Number or a Boolean given for one by its value
# (treegen.model.category_of: named.java.txt's namedCode), not by its toString(). Without one the runtime is as written.
NAMED_LOOKUP = ("        Integer code = codes.get(value instanceof String",
                "        if (value instanceof Number || value instanceof Boolean) {\n"
                "            return namedCode(feature, value);\n"
                "        }\n"
                "        Integer code = codes.get(value instanceof String")
# A model whose splits read a nominal feature refuses a double[] row whose value of one is no code of it
# (NOMINAL_READ, checkCodes), as JavaScript's fast path does: a bit mask would read 3.5 as code 3, and a tuple
# split's key would be another row's.
CODE_CHECKS = (("        checkLength(x.length);\n        return x;",
                "        checkLength(x.length);\n        checkCodes(x);\n        return x;"),
               ("            checkLength(x.length);\n        }",
                "            checkLength(x.length);\n            checkCodes(x);\n        }"))
# A model whose scores can be NaN (treegen.model.scores_nan) labels a row by numpy's argmax: the first NaN wins.
NAN_ARGMAX = (("    /** The code of a category the model does not know (a missing one is -1). */",
               "    /** numpy's argmax: the first NaN where a score is NaN, else the first highest. */\n"
               "    private static int argmaxNan(double[] scores) {\n"
               "        for (int i = 0; i < scores.length; i++) {\n"
               "            if (Double.isNaN(scores[i])) {\n"
               "                return i;\n"
               "            }\n"
               "        }\n"
               "        return argmax(scores);\n"
               "    }\n\n"
               "    /** The code of a category the model does not know (a missing one is -1). */"),)
# A class's lists (names, categories, per-tree numbers) with more entries than this in all are written as string
# data read at class initialisation (_lists_as_data): as array initialisers each entry takes about 8 bytes of the
# class initialiser, whose 64 KB javac passed at 9,000 features or 12,000 categories ("code too large"), and its
# strings two of the constant pool's entries.
LITERAL_ENTRIES = 2000
ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", '"': '\\"', "\\": "\\\\"}


def _condition_bytes(cond: Cond) -> int:
    """An upper bound of the bytecode of one test: load x[i] (5), a constant (3), compare and branch
    (4); a category set is one bit-mask test (17) or a chain of equality tests; a negation may
    cost a jump (3)."""
    negation = 3 if cond.op.startswith("not") else 0
    if cond.tuples is not None:
        return negation + _tuple_bytes(cond.tuples)
    missing = 12 if cond.op == "in or missing" else 0
    if cond.op in ("in", "not in", "in or missing") and len(cond.codes) > 1:
        return negation + missing + (24 if _uses_mask(cond.codes) else 12 * len(cond.codes))
    return negation + missing + 12


def _tuple_bytes(test) -> int:
    """An upper bound of the bytecode of a tuple split's test (:func:`tuple_condition`): its keys' array
    (getstatic, sipush, aaload: 7), a bitmap's least key taken off (4), the look-up and its branch (6); a
    combined feature's digit is x[f] + 2.0 (9), then times the next radix plus the next digit (5); a ``<=``
    part's child is a compare and two constants (19); an ``in`` part's its test of codes (at most 12 a code)
    and three more compares (43)."""
    parts = sum(19 if part[0] == "<=" else 43 + 12 * len(part[2]) for part in test.parts)
    return 17 + 14 * len(test.features) + 5 * len(test.parts) + parts


# Bytes: a leaf is ldc_w + ireturn, a call aload + invokestatic + ireturn; collecting adds the
# accumulator, the weight, the nesting count and a call; a fractional branch multiplies the weight and
# pushes a walker's number or calls (18), once a split records that it spreads (counted in the margin). The check of the nesting count at a method's start (16) is not counted: it
# fits in the margin. Functions are cut at 3/4 of the JIT limit: the estimate is an upper bound,
# and greedy cutting leaves most functions between half the budget and the budget.
COST = CostModel(condition=_condition_bytes, leaf=4, call=5, collect=5, fraction_call=18,
                 budget=JIT_LIMIT * 3 // 4, max_depth=40)
# The per-method estimate counts entries that methods share once per method: an upper bound. The
# other quarter holds the class's own entries (names, descriptors, the classes it calls) with room to spare.
POOL_BUDGET = POOL_LIMIT * 3 // 4
RESUME_ENTRIES = 5  # what a walker adds: its reference in its class's dispatcher, its number
# Trees added up by direct calls: a tree's bytes are its walker's call and its table's row (16), and
# per line (a sum it adds to: a load, the add, float32's casts, a store) 14; its constant-pool entries
# the walker's reference, name and type, name, and the tree's number.
TREE_BYTES, COLUMN_BYTES, SUM_ENTRIES = 16, 14, 6
# A method of S0, S1... adds trees of at most this much walker code (COST's estimate, one tree at least): the
# rows API runs each over every row before the next. On bench_boosting's 500-tree LightGBM model, methods of
# 2 trees of 31 leaves took 10.7 us a row, 4 5.7-5.9, 10 to 25 5.4-5.5, 50 5.7, 170 7.4 (one row a call: 8.1-8.7).
GROUP_BYTES = 8000
# A walker of at most this many bytes (HotSpot's FreqInlineSize) is inlined into the method that calls it
# when hot, so its code weighs more there: a symmetric tree of depth 6 (99 bytes). On bench_boosting's
# CatBoost model, methods of 84 such trees (8,000 bytes) took 2.7 us a row through the rows API, 51 2.3,
# 42 2.0, 31 1.9, 16 1.9: C2 stopped inlining past its limits (DesiredMethodLimit, the node count). Weighed
# three times, 31 such trees make a group; bigger walkers, which stay calls, count as they are.
INLINED_BYTES, INLINED_WEIGHT = 325, 3
CLASS_GROUPS = 200  # the most such methods in one class, so that its rows method (a loop each) stays under JIT_LIMIT
LOCAL_SUMS = 8  # sums held in locals while trees are added; wider outputs are added in their array

NESTED = ("Acc", "InputError", "CsvReader")  # the nested classes' names besides P0, P1, ... and S0, S1, ...
# The types the generated code names without qualification: a class of the same name would shadow
# one, or clash with its import, and not compile. A test checks this list against the code.
RESERVED = frozenset("""ArithmeticException ArrayList Arrays AssertionError BaseStream BigInteger Boolean BufferedWriter Character
Collections Double Exception FileDescriptor FileOutputStream Float HashMap IOException IllegalArgumentException
InputStream Integer Iterable Iterator List Locale Map Math Number NumberFormatException Object
OutputStreamWriter Pattern ReflectiveOperationException StandardCharsets String StringBuilder System Throwable
Writer""".split())
KEYWORDS = set("""abstract assert boolean break byte case catch char class const continue default do double
else enum extends final finally float for goto if implements import instanceof int interface long native
new package private protected public return short static strictfp super switch synchronized this throw
throws transient try void volatile while true false null var record yield sealed permits _""".split())  # _: Java 9+


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
    if class_name in NESTED or re.fullmatch(r"[PS][0-9]+", class_name):
        raise TreegenError(f"class name {class_name!r} is taken by a nested class of the generated code")
    if class_name == "java" and _helpers(model)["exp"]:  # a class java hides the package of exp's java.lang.invoke
        raise TreegenError("class name 'java' would hide the package java, which the generated code names; "
                           "choose another --class-name")
    if class_name in RESERVED:
        raise TreegenError(f"class name {class_name!r} is a name the generated code uses (a JDK type or a member); "
                           "choose another --class-name")
    for part in (package.split(".") if package else []):
        _check_name(part, "package name")
    if package and package.split(".")[0] == "java":  # javac: "exists in another module"; the JVM: "Prohibited"
        raise TreegenError(f"package name {package!r}: the package java and those within it belong to the JDK; "
                           "choose another --package")
    if package in jdk_packages():  # javac: "exists in another module"; the JVM loads no class of it
        raise TreegenError(f"package name {package!r}: one of the JDK's modules has this package, and javac refuses "
                           "a class in it (or the JVM cannot load one); choose another --package")
    check_literal_sizes(model, constant_bytes, STRING_LIMIT, "a Java string constant can be")
    plans = plan(model, COST, levelled=not leaf, looked_up=sets_looked_up(MASK_BITS))
    direct = summed_tree_by_tree(model, plans)
    # Without leaf ids, the walkers of such trees of one number each return their leaf's term itself,
    # but a symmetric tree's, which returns its leaf's index (see common._levels)
    terms_returned = direct and not leaf and all(p.width == 1 for p in plans)
    returns_term = [terms_returned and p.levels is None for p in plans]
    home = _assign_classes(plans, returns_term)
    walkers = _walker_numbers(plans, home)
    codes = category_codes(model)
    names = [f.name for f in model.features]
    outputs = [output_numbers(p, node_ids=leaf) for p in plans]  # what walkers return, the values it indexes
    all_sums = sums(model)
    steps = all_sums if direct and model.combine.kind == CombineKind.SUM else None
    if direct:  # the tables hold each leaf's terms, as the sums add them
        outputs = [(numbers, {n: leaf_terms(steps, p.index, value) for n, value in table.items()})
                   for p, (numbers, table) in zip(plans, outputs)]
    returned = [{node: literal(table[n][0]) if term else str(n) for node, n in numbers.items()}
                for term, (numbers, table) in zip(returns_term, outputs)]
    tables = [{} if term else table for term, (_, table) in zip(returns_term, outputs)]
    # A single tree that reaches one node is read straight from its walker: no accumulator, no dispatch.
    single = (len(plans) == 1 and plans[0].exclusive and model.combine.kind == CombineKind.SINGLE
              and not plans[0].linear)
    linear = any(p.linear for p in plans)
    intervals = missing_intervals(model)
    combine, (decision, cut) = model.combine, label_decision(model)
    boosted = combine.kind == CombineKind.SUM
    read = (lambda x: f"read({x})") if intervals else (lambda x: x)
    # with label values a tree's sums are its scores, then its label sums (common.node_vector)
    apart = has_label_values(model)
    scores_of, votes_of = _part(scores_part(model)), _part(label_part(model))
    deciding = votes_of("sums(x)") if apart else "scores(x)"
    nan = scores_nan(model)
    reached = f"VALUES[0][P0.t0n0({read('x')})]"  # a single tree's values at the node reached
    written, keysets = _written_conditions(codes, names)
    parts = _parts(plans, home, walkers, per_condition(lambda cond: _if_line(cond, names, codes, written)), returned,
                   returns_term, written)  # (fills keysets)
    runtime = _runtime(model)
    classes = model.target.classes
    categories = [table if not f.is_numeric else None for f, table in zip(model.features, codes)]
    lists = _lists_as_data(model, categories, classes, intervals, plans, all_sums, runtime)
    return render("java", "Model.java.j2", filters={"lit": literal, "str": string}, read=read,
                  lists=lists, lists_runtime=source("java", "lists.java.txt") if lists else None,
                  intervals=[(i, literal(low), literal(high), string(names[i])) for i, low, high in intervals],
                  unknown_routes=any(n.split is not None and n.split.unknown is not None
                                     for t in model.trees for n in t.nodes),
                  sums=all_sums, raw_lines=_raw_lines(all_sums) if boosted and not direct else [],
                  link_lines=_link_lines(combine), terms_returned=terms_returned,
                  direct=_direct_sums(plans, home, steps, returns_term) if direct else None,
                  label=_decide(decision, deciding, "raw(x)" if boosted else deciding, nan, cut),
                  rows_scores="scoresOf(sums[r])" if boosted else "sums[r]",
                  rows_label=_decide(decision, "scoresOf(sums[r])" if boosted else "sums[r]", "sums[r]", nan, cut),
                  leaf_label=_decide(decision, votes_of("values[node]"), votes_of("values[node]")), labels_apart=apart,
                  single_scores=scores_of(reached) if apart else reached + ".clone()", sums_scores=scores_of("sums(x)"),
                  on_raw=boosted and (decides_on_raw(combine) or cut is not None),
                  helpers=_helpers(model),
                  model=model, name=class_name, package=package,
                  classification=model.target.is_classification,
                  features=model.features, classes=model.target.classes, used=model.used_features(),
                  codes=categories,
                  parts=parts, tuple_bits=_key_chunks(keysets["bits"], True), tuples=_key_chunks(keysets["sorted"], False),
                  tuple_sets={kind: len(sets) for kind, sets in keysets.items()},
                  resumers=_resumers(walkers, home, len(set(home.values()))),
                  resume=_resume_groups(walkers, home), trees=plans, fractional=bool(walkers), dispatch=_dispatch(plans, home),
                  data=_data_chunks(tables) if any(tables) else [], combine=model.combine, single=single,
                  linear=_data_chunks([_linear_table(p) for p in plans]) if linear else None,
                  zero_band=literal(model.numeric.zero_band),
                  dispatch_size=TREES_PER_DISPATCH, block_bits=BLOCK_BITS, leaf=leaf,
                  leaves=sum(len(t.leaves()) for t in model.trees),
                  **runtime)


def _lists_as_data(model: Model, tables, classes, intervals, plans, steps: Sums, runtime: dict) -> dict | None:
    """The class's lists -- names, categories, classes, the features read, per-tree numbers -- as string data
    that ``templates/java/lists.java.txt`` reads at class initialisation, where they hold more than
    ``LITERAL_ENTRIES`` entries in all; else None, and the template writes them as array initialisers."""
    named = named_codes(model) if runtime["named"] else []
    code_rules = runtime["code_rules"] or []
    used, nominal_read = model.used_features(), runtime["nominal_read"]
    weights = steps.weights if steps is not None and steps.weights else []
    categories = [text for table in tables for text in ([None] if table is None else [str(len(table)), *table])]
    entries = (len(model.features) + len(classes) + len(categories) + len(used) + 2 * len(named) + 3 * len(intervals)
               + len(nominal_read) + len(code_rules) + 2 * len(plans) + len(weights))
    if entries <= LITERAL_ENTRIES:
        return None
    return {"features": _text_chunks(f.name for f in model.features), "classes": _text_chunks(classes),
            "categories": _text_chunks(categories), "used": _number_chunks(used),
            "named": _text_chunks(None if n is None else f"{n[0]},{n[1]}" for n in named),
            "named_numbers": _text_chunks(None if n is None else n[2] for n in named),
            "interval_feature": _number_chunks(i for i, _, _ in intervals),
            "interval_low": _number_chunks(low for _, low, _ in intervals),
            "interval_high": _number_chunks(high for _, _, high in intervals),
            "nominal_read": _number_chunks(nominal_read), "code_rules": _number_chunks(code_rules),
            "output": _number_chunks(-1 if p.output is None else p.output for p in plans),
            "weight": _number_chunks(weights), "width": _number_chunks(p.width for p in plans)}


def _text_chunks(texts) -> list[str]:
    """Texts (None: null) as string data for ``texts``: each its length in UTF-16 units, ':' and itself, or '-'."""
    data = "".join("-" if t is None else f"{len(t.encode('utf-16-le', 'surrogatepass')) // 2}:{t}" for t in texts)
    size = STRING_LIMIT // 6  # characters: one beyond the BMP takes 6 bytes of modified UTF-8
    return [data[i:i + size] for i in range(0, len(data), size)]


def _number_chunks(numbers) -> list[str]:
    """Numbers as ``numbers`` reads them (Double.parseDouble: ints as they are), comma-separated, as string data."""
    return _chunks(",".join(str(n) if isinstance(n, int) else float_text(n, "NaN", "Infinity") for n in numbers))


def _runtime(model: Model) -> dict:
    """The runtime's texts for the model (:func:`treegen.emit.render.runtime_with_codes`), with what reads a
    Number or a Boolean given for a nominal feature where a split reads one: ``named``, per feature, the
    Boolean codes and the marks of :func:`treegen.emit.common.named_codes` as Java literals; with the nominal
    features splits read (``nominal_read``), whose codes an encoded row is refused without (CODE_CHECKS)."""
    texts = runtime_with_codes(model, "java", CODED_LOOKUPS, NAN_ARGMAX)
    nominal_read = read_nominal_features(model)
    if nominal_read:
        texts["runtime"] = replaced(texts["runtime"], CODE_CHECKS, "templates/java/runtime.java.txt")
    texts["nominal_read"] = nominal_read
    if not named_features(model):  # no split reads a nominal feature: what a feature of codes names goes nowhere
        if texts["code_rules"]:  # (numberCategory is named.java.txt's, not written then)
            texts["codes_runtime"] = replaced(texts["codes_runtime"], NUMBER_CATEGORY, "templates/java/codes.java.txt")
        return {**texts, "named": None}
    old, new = NAMED_LOOKUP
    if texts["runtime"].count(old) != 1:
        raise AssertionError(f"templates/java/runtime.java.txt: {old!r} does not occur once")
    return {**texts, "runtime": texts["runtime"].replace(old, new),
            "named": [None if codes is None else (f"{codes[0]}, {codes[1]}", string(codes[2]))
                      for codes in named_codes(model)],
            "named_runtime": render("java", "named.java.txt", coded=bool(texts["code_rules"]))}


@lru_cache(maxsize=1)
def jdk_packages() -> frozenset[str]:
    """The packages of the JDK's modules but java.* (templates/java/jdk_packages.txt, which says why)."""
    lines = source("java", "jdk_packages.txt").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


def for_output(output: str, options: dict) -> dict:
    """The options with the class named after -o's file: javac takes a public class only from the file of its
    name (a --class-name that names another is refused)."""
    stem = os.path.splitext(os.path.basename(output))[0]
    class_name = options.get("class_name")
    if class_name is not None and class_name != stem:
        package, dot, simple = class_name.rpartition(".")
        if dot and simple == stem:  # (a qualified name: the package is an option of its own)
            raise TreegenError(f"--class-name {class_name}: a class name has no package; pass --class-name {simple} "
                               f"--package {package}")
        raise TreegenError(f"--class-name {class_name} and -o {output} disagree: Java needs the public class "
                           f"{class_name} in {class_name}.java")
    if not is_identifier(stem):
        raise TreegenError(f"-o {output}: {stem!r} is not {_kind_of_identifier(stem)} class name, and javac wants "
                           "the file named after the class; pass --class-name NAME and -o NAME.java")
    return {**options, "class_name": stem}


def is_identifier(name: str) -> bool:
    """Whether javac takes ``name`` as a class, package or member name."""
    return bool(re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", name or "")) and name not in KEYWORDS


def _kind_of_identifier(name: str) -> str:
    """What a name that :func:`is_identifier` refuses is not: Java takes letters of any script (``class 鱼``,
    ``Café``), treegen only ASCII ones, as it writes its Java source in ASCII (javac reads a file in the
    platform's encoding, UTF-8 or not, before Java 18)."""
    return "a Java" if name.isascii() else "an ASCII Java"


def _check_name(name: str, what: str) -> None:
    if not is_identifier(name):
        why = "" if name.isascii() else ": treegen writes ASCII Java source"
        package, dot, simple = name.rpartition(".")
        if what == "class name" and dot and is_identifier(simple):  # (a qualified name: --package names the rest)
            why = f"; pass --class-name {simple} --package {package}"
        raise TreegenError(f"{what} {name!r} is not {_kind_of_identifier(name)} identifier{why}")


def literal(value) -> str:
    """A Java double expression that reads back bit-identical (Java parses decimals correctly rounded)."""
    return float_text(value, "Double.NaN", "Double.POSITIVE_INFINITY")


def constant_bytes(text: str) -> int:
    """The bytes of ``text`` in a class file's constant pool: modified UTF-8, where NUL takes two bytes and a
    character beyond the BMP six (its two UTF-16 units, three each). javac also refuses a string of 65,535
    UTF-16 units (an ASCII one of 65,535 bytes): counted one byte more."""
    supplementary = sum(c > "\uffff" for c in text)
    modified = len(text.encode("utf-8")) + text.count("\0") + 2 * supplementary
    return modified if len(text) + supplementary < STRING_LIMIT else max(modified, STRING_LIMIT + 1)


def string(text: str) -> str:
    """A Java string literal. Every UTF-16 unit outside printable ASCII is escaped; line breaks,
    quotes and backslashes get their own escapes, since ``\\u000a`` would end the line before javac
    reads the literal."""
    return '"' + utf16_escaped(text, ESCAPES) + '"'


def method_name(tree: int, node: int) -> str:
    return f"t{tree}n{node}"


def _written_conditions(codes, names) -> tuple:
    """What writes each test's condition, once (``per_condition``), and the distinct key sets of the tuple splits
    it has written: ``bits`` those held as bitmaps, ``sorted`` the others, each kind in order (a set's index in
    ``TUPLE_BITS`` or ``TUPLES``): the trees of a CatBoost model repeat a split."""
    keysets: dict[str, dict[tuple[int, ...], int]] = {"bits": {}, "sorted": {}}

    def written(cond: Cond) -> str:
        if cond.tuples is None:
            return condition(cond)
        return tuple_condition(cond.op, coded_tuples(cond.tuples, codes, names.__getitem__), keysets)
    return per_condition(written), keysets


def _as_bits(keys: tuple[int, ...]) -> bool:
    """Whether a key set is held as a bitmap, one bit from its least key to its greatest (one load and a shift a
    test), or else sorted, searched by halves: where the bitmap takes at most 8 bytes a key (a sorted double's)
    and 512 more. The default CatBoost model's 533 sets are all bitmaps, 50 KB: 6.5 us of CPU a row through
    ``predictProba`` where binary search took 39 (its sets' 174,655 keys: 1.4 MB), 2.1 without the look-ups."""
    return keys[-1] - keys[0] < min(64 * (len(keys) + 64), 2 ** 31 - 64)


def tuple_condition(op: str, coded: CodedTuples, keysets: dict) -> str:
    """A tuple split's test (``op``: ``tuple`` or ``not tuple``): the row's key -- each combined feature's code +
    2 (0: unknown, 1: missing), then each part's child position, in mixed radix, exact in a double -- in its key
    set (or not): a bitmap ``TUPLE_BITS[i]`` whose bit 0 is its least key (:func:`_as_bits`) or else sorted,
    ``TUPLES[i]``, ``i`` its index in ``keysets`` (added when new)."""
    if not coded.keys:
        return "false" if op == "tuple" else "true"
    bits = _as_bits(coded.keys)
    sets = keysets["bits" if bits else "sorted"]
    index = sets.setdefault(coded.keys, len(sets))
    digits = [f"(x[{f}] + 2.0)" for f in coded.features] + [_part_position(part) for part in coded.parts]
    key = digits[0]
    for digit, radix in zip(digits[1:], coded.radices[1:]):
        key = f"{key if key is digits[0] else f'({key})'} * {radix}.0 + {digit}"
    if bits:
        return f"{'' if op == 'tuple' else '!'}hasKey(TUPLE_BITS[{index}], {key} - {coded.keys[0]}.0)"
    return f"Arrays.binarySearch(TUPLES[{index}], {key}) {'>=' if op == 'tuple' else '<'} 0"


def _part_position(part: tuple) -> str:
    """The child position (0.0 or 1.0) a part of a tuple split (:class:`treegen.emit.common.CodedTuples`) sends
    the row to: a missing value (NaN, or a code of -1) its missing child, an unknown category (-2) its unknown
    child."""
    x = f"x[{part[1]}]"
    if part[0] == "<=":
        _, _, cut, missing = part
        return f"({x} <= {literal(cut)} ? 0.0 : 1.0)" if missing else f"({x} > {literal(cut)} ? 1.0 : 0.0)"
    _, _, codes, missing, unknown = part
    if missing == unknown:
        other = "1.0" if missing else f"{x} >= 0.0 ? 1.0 : 0.0"
    else:
        other = f"{x} >= 0.0 ? 1.0 : {x} == -1.0 ? {missing}.0 : {unknown}.0"
    return f"({_in_codes(x, codes)} ? 0.0 : {other})"


def condition(cond: Cond) -> str:
    x = f"x[{cond.feature}]"
    number = numeric_test(cond, x, literal, "!({})")
    if number is not None:
        return number
    if cond.op == "unknown":  # missing (-1) or unknown (-2)
        return f"{x} < 0.0"
    if cond.op == "in or missing":  # not unknown (-2)
        return f"{x} == -1.0" + (f" || {_in_codes(x, cond.codes)}" if cond.codes else "")
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
    if cond.op == "in or missing":
        return f"  // {string(name)} is missing" + (f" or in {{{listed}}}" if cond.codes else "")
    if len(cond.codes) == 1:
        return f"  // {string(name)} {'==' if cond.op == Op.IN else '!='} {listed}"
    return f"  // {string(name)} {cond.op} {{{listed}}}"


def tuple_comment(cond: Cond, names) -> str:
    """A comment that says what a tuple split's test reads: the features combined, then its parts, and whether the
    key is one of its keys (escaped as :func:`comment` does)."""
    test = cond.tuples
    parts = [f"{string(names[part[1]])} <= {literal(part[2])}" if part[0] == "<=" else
             f"{string(names[part[1]])} in {{{', '.join(string(c) for c in part[2])}}}" for part in test.parts]
    read = ", ".join([string(names[f]) for f in test.features] + parts)
    return f"  // ({read}) {'in' if cond.op == 'tuple' else 'not in'} its {len(test.keys)} keys"


def _if_line(cond: Cond, names, codes, written) -> str:
    """An ``if`` that opens its block, with a comment on what it tests (``written``: its condition)."""
    if cond.tuples is not None:
        return f"if ({written(cond)}) {{{tuple_comment(cond, names)}"
    categories = codes[cond.feature] if cond.op not in ("<=", ">", "not <=", "not >") else None
    return f"if ({condition(cond)}) {{{comment(cond, names[cond.feature], categories)}"


def _uses_mask(codes) -> bool:
    return len(codes) > 3 and max(codes) < MASK_BITS


def _in_codes(x: str, codes) -> str:
    if not codes:
        return "false"
    if _uses_mask(codes):  # a code of -1 shifts by 63, -2 by 62: those bits are clear; a shift counts mod 64
        mask = sum(1 << c for c in codes)
        return f"({x} < 64.0 && (0x{mask:x}L >>> (int) {x} & 1L) != 0L)"
    return " || ".join(f"{x} == {c}.0" for c in codes)


def _assign_classes(plans: list[TreePlan], returns_term: list[bool]) -> dict:
    """Which nested class each method lives in, filling classes up to the constant-pool budget."""
    home, part, used = {}, 0, 0
    for tree_plan, term in zip(plans, returns_term):
        for function in tree_plan.functions:
            need = _pool_entries(function, term) + (0 if tree_plan.exclusive else RESUME_ENTRIES)
            if used and used + need > POOL_BUDGET:
                part, used = part + 1, 0
            home[(function.tree, function.node)] = part
            used += need
    return home


def _pool_entries(function, returns_term: bool) -> int:
    """Constant-pool entries a method may add: 2 per double constant (a leaf's term where walkers return
    terms), 4 per method it calls (reference, name and type, name, class), 1 per int above a short, and
    its own name and type."""
    entries = 4
    for _, kind, payload in function.lines:
        if kind == IF:
            entries += _tuple_entries(payload.tuples) if payload.tuples else 2 * max(1, len(payload.codes))
        elif kind == CALL:
            entries += 4
        elif kind == FRACTION:
            entries += 6 * len(payload)
        elif kind == LEAF:
            entries += 2 if returns_term else payload > 32767
        elif kind == LEVELS:
            entries += 4 * len(payload) + 2  # a test's constants, and the largest bits
            entries += sum(_tuple_entries(test.tuples) for test, _ in payload if test.tuples)
    return entries


def _tuple_entries(test) -> int:
    """Constant-pool entries a tuple split's test may add: 2 per double (a radix, a cut, a bitmap's least key)
    and per code of an ``in`` part, 2.0's, and the references to the key sets and their look-up (4 each)."""
    codes = sum(len(part[2]) for part in test.parts if part[0] == "in")
    return 2 * (len(test.features) + len(test.parts) + codes) + 12


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


def _parts(plans: list[TreePlan], home: dict, walkers: dict, test, returned, returns_term, written
           ) -> list[list[dict]]:
    """The nested classes, each a list of methods ready to print; an exclusive tree's walkers return a
    ``double`` where ``returns_term`` says so, else an ``int``; ``written(cond)``: a condition's text."""
    classes: list[list[dict]] = [[] for _ in range(max(home.values()) + 1)] if home else []
    for tree_plan, term in zip(plans, returns_term):
        for function in tree_plan.functions:
            method = _method(tree_plan, function, home, walkers, test, returned[tree_plan.index],
                             "double" if term else "int", written)
            classes[home[(function.tree, function.node)]].append(method)
    return classes


def _method(tree_plan: TreePlan, function, home: dict, walkers: dict, test, returned, returns: str, written
            ) -> dict:
    """A walker: an exclusive tree's returns, as type ``returns``, what ``returned`` writes for the node
    reached: the ``int`` that indexes its values (its id or its value's, see :func:`output_numbers`), or
    the ``double`` it adds to the sums; a non-exclusive one records in ``out``, in the order of the walk,
    (node id, weight) where it ends and the number of children of a split that spreads the row, whose
    first child it calls and whose others it pushes, last first. ``test(cond)``: an ``if`` line,
    unindented (:func:`_if_line`); ``written(cond)``: a condition (a symmetric tree's levels)."""
    exclusive = tree_plan.exclusive
    call = lambda node: f"P{home[(function.tree, node)]}.{method_name(function.tree, node)}"

    def statement(pad: str, kind: str, payload) -> list[str]:
        if kind == IF:
            return [pad + test(payload)]
        if kind == LEVELS:
            return [f"{pad}return {leaf_index(payload, written)};"]
        if kind == LEAF:
            return ([f"{pad}return {returned[payload]};"] if exclusive else
                    [f"{pad}out.add({payload}, w);", f"{pad}return;"])
        if kind == CALL:
            return ([f"{pad}return {call(payload)}(x);"] if exclusive else
                    [f"{pad}{call(payload)}(x, w, out, d + 1);", f"{pad}return;"])
        weights = payload  # FRACTION
        (first, first_weight), *others = weights
        pushes = [f"{pad}out.push({walkers[(function.tree, child)]}, w * {literal(weight)});"
                  for child, weight in reversed(others)]
        return [f"{pad}out.spread({len(weights)});", *pushes,
                f"{pad}{call(first)}(x, w * {literal(first_weight)}, out, d + 1);", f"{pad}return;"]

    lines = []
    if not exclusive:  # too deep: leave this walker to the driver loop
        pad, number = INDENT * 3, walkers[(function.tree, function.node)]
        lines += [f"{pad}if (d > {DEFER_DEPTH}) {{", f"{pad}{INDENT}out.push({number}, w);", f"{pad}{INDENT}return;",
                  f"{pad}}}"]
    lines += braced_lines(function, INDENT, 3, statement)
    signature = returns + " {}(double[] x)" if exclusive else "void {}(double[] x, double w, Acc out, int d)"
    return {"signature": signature.format(method_name(function.tree, function.node)), "lines": lines}


def _dispatch(plans: list[TreePlan], home: dict) -> list[list[str]]:
    """Groups of switch cases that start each tree's walk (one small method per group)."""
    cases = []
    for p in plans:
        entry = f"P{home[(p.index, 0)]}.{method_name(p.index, 0)}"
        walk = f"{entry}(x, 1.0, acc, 0); drain(x, acc)"  # then the walkers pushed
        call = f"acc.add({entry}(x), 1.0)" if p.exclusive else walk
        cases.append(f"case {p.index}: {call}; return;")
    return [cases[i:i + TREES_PER_DISPATCH] for i in range(0, len(cases), TREES_PER_DISPATCH)]


def _linear_table(tree_plan: TreePlan) -> dict[int, tuple[float, ...]]:
    """A tree's linear leaves by the node id its walkers return (:func:`output_numbers`): const, then
    feature and coefficient of each term, as numbers (``_data_chunks`` writes them as the values)."""
    return {node: (m.const, *(v for f, c in m.terms for v in (float(f), c)))
            for node, m in tree_plan.linear.items()}


def _data_chunks(tables: list[dict]) -> list[str]:
    """Each tree's values by the numbers its walkers return, as text cut into string constants: per
    tree a line ``size|number:v,v number:v,v`` (read by the class's ``parseValues``)."""
    lines = []
    for table in tables:
        entries = " ".join(f"{number}:" + ",".join(float_text(v, "NaN", "Infinity") for v in value)
                           for number, value in sorted(table.items()))
        lines.append(f"{max(table, default=-1) + 1}|{entries}\n")
    return _chunks("".join(lines))


def _key_chunks(keysets: dict[tuple[int, ...], int], bits: bool) -> list[str]:
    """Key sets of the tuple splits, in index order, as ``parseValues`` reads a tree's values: per set a line
    ``1|0:n,n,n`` of whole numbers -- a bitmap's words (``bits``: from its least key, 32 bits each,
    put together by the class's ``bitSets``), or a sorted set's least key and the differences of the next (which
    ``keySets`` adds up). The default CatBoost model's 174,655 keys take 128 KB as bitmaps, 354 KB as
    differences, 782 KB whole."""
    lines = [f"1|0:{','.join(map(str, _bit_words(keys) if bits else key_differences(keys)))}\n" for keys in keysets]
    return _chunks("".join(lines))


def _bit_words(keys: tuple[int, ...]) -> list[int]:
    """A key set's bitmap from its least key (bit 0), in words of 32 bits, the lowest first."""
    return bit_set_words(tuple(key - keys[0] for key in keys), keys[-1] - keys[0] + 1)


def _chunks(text: str) -> list[str]:
    """ASCII text cut into string constants."""
    size = STRING_LIMIT // 4  # ASCII: one byte per character, and a short line of source
    return [text[i:i + size] for i in range(0, len(text), size)]


def _raw_lines(steps: Sums) -> list[str]:
    """The body of ``raw(x)`` for sums that are not scikit-learn's plain ones (see
    :class:`treegen.emit.common.Sums`), tree by tree through ``output``: the model's steps, each cast to
    ``float`` in float32."""
    rounded = _rounding(steps)
    body = ["double term = out[OUTPUT[t] < 0 ? k : 0];"]
    if steps.weights is not None:
        body += ["if (WEIGHT[t] != 1.0) {", f"{INDENT}term = {rounded('term * WEIGHT[t]')};", "}"]
    if steps.scale is not None:
        body.append(f"term = {rounded(literal(steps.scale) + ' * term')};")
    body.append(f"raw[k] = {rounded('raw[k] + term')};")
    lines = ["Acc acc = new Acc();", f"double[] raw = {{ {', '.join(literal(v) for v in steps.start)} }};",
             "for (int t = 0; t < WIDTH.length; t++) {", f"{INDENT}double[] out = output(t, x, acc);",
             f"{INDENT}for (int k = Math.max(OUTPUT[t], 0); k < (OUTPUT[t] < 0 ? raw.length : OUTPUT[t] + 1); k++) {{",
             *(INDENT * 2 + line for line in body), f"{INDENT}}}", "}"]
    return lines + _raw_ending(steps)


def _rounding(steps: Sums | None):
    """A function that writes an expression rounded as the sums round: cast to ``float`` in float32."""
    return (lambda e: f"(float) ({e})") if steps is not None and steps.float32 else (lambda e: e)


def _raw_ending(steps: Sums) -> list[str]:
    """The last lines of ``raw(x)``, from the trees' sums in ``raw``: the scale and init added last, the
    divisor."""
    rounded, lines, last = _rounding(steps), [], []
    if steps.last_scale is not None:
        lines.append(f"double[] init = {{ {', '.join(literal(v) for v in steps.init)} }};")
        last.append(f"raw[k] = {rounded(rounded(literal(steps.last_scale) + ' * raw[k]') + ' + init[k]')};")
    if steps.divisor is not None:
        last.append(f"raw[k] = {rounded('raw[k] / ' + literal(steps.divisor))};")
    if last:
        lines += ["for (int k = 0; k < raw.length; k++) {", *(INDENT + line for line in last), "}"]
    return lines + ["return raw;"]


def _direct_sums(plans: list[TreePlan], home: dict, steps: Sums | None, returns_term: list[bool]) -> dict:
    """Trees that each reach one node, added up (``steps``: a boosted model's sums) or averaged (None):
    the body of ``raw(x)`` or ``scores(x)``, and the nested classes ``S0``, ``S1``... of the methods it
    calls in turn, each of which adds the terms of a run of trees to the sums (the tables hold the
    terms: :func:`treegen.emit.common.leaf_terms`), calling each walker directly, the sums in locals.
    Not through ``output``, a tree at a time: a switch, an accumulator and a new array each. Also the
    parts the rows API needs: the sums' ``start`` statement, their name, and the ``ending`` of
    ``ended(sums)``, which the body returns."""
    width = len(steps.start) if steps else plans[0].width
    held = range(width) if width <= LOCAL_SUMS else range(0)
    classes: list[list[dict]] = []
    methods, pool = [], 0
    for tree_plan, term in zip(plans, returns_term):
        lines = _added(tree_plan, home, steps, width, term)
        size = TREE_BYTES + COLUMN_BYTES * len(lines)
        walkers = group_weight(code_size(tree_plan, COST), INLINED_BYTES, INLINED_WEIGHT)
        method = (not methods or methods[-1]["size"] + size > COST.budget
                  or methods[-1]["walkers"] + walkers > GROUP_BYTES)
        if not classes or pool + SUM_ENTRIES > POOL_BUDGET or method and len(classes[-1]) == CLASS_GROUPS:
            classes.append([])
            pool, method = 0, True
        if method:
            methods.append({"name": f"add{len(methods)}", "part": len(classes) - 1, "size": 16 * len(held),
                            "walkers": 0,
                            "lines": [f"double {', '.join(f's{k} = s[{k}]' for k in held)};"] if held else []})
            classes[-1].append(methods[-1])
        methods[-1]["lines"] += lines
        methods[-1]["size"] += size
        methods[-1]["walkers"] += walkers
        pool += SUM_ENTRIES
    for method in methods:
        if any(line.startswith("v = ") for line in method["lines"]):
            method["lines"].insert(1 if held else 0, "double[] v;")
        method["lines"] += [f"s[{k}] = s{k};" for k in held]
    total = "raw" if steps else "total"
    start = (f"double[] raw = {{ {', '.join(literal(v) for v in steps.start)} }};" if steps else
             f"double[] total = new double[{width}];")
    calls = [f"S{m['part']}.{m['name']}(x, {total});" for m in methods]
    ending = _raw_ending(steps) if steps else [
        "for (int k = 0; k < total.length; k++) {", f"{INDENT}total[k] = total[k] / {len(plans)};", "}",
        "return total;"]
    return {"lines": [start, *calls, f"return ended({total});"], "classes": classes, "start": start, "sums": total,
            "ending": ending}


def _added(tree_plan: TreePlan, home: dict, steps: Sums | None, width: int, returns_term: bool) -> list[str]:
    """The lines of :func:`_direct_sums` that add a tree's terms: to its output column's sum, or to
    each (every column of a forest), in locals ``s0``, ``s1``... or, wider than ``LOCAL_SUMS``, in a
    loop over the array ``s``. The walker returns the term, or the number of the tree's terms."""
    rounded = _rounding(steps)
    walk = f"P{home[(tree_plan.index, 0)]}.{method_name(tree_plan.index, 0)}(x)"
    reached = f"VALUES[{tree_plan.index}][{walk}]"
    if width == 1 or steps and tree_plan.output is not None:
        k = tree_plan.output if steps and tree_plan.output is not None else 0
        sum_k = f"s{k}" if width <= LOCAL_SUMS else f"s[{k}]"
        term = walk if returns_term else f"{reached}[0]"
        return [f"{sum_k} = {rounded(f'{sum_k} + {term}')};"]
    if width <= LOCAL_SUMS:
        return [f"v = {reached};", *(f"s{k} = {rounded(f's{k} + v[{k}]')};" for k in range(width))]
    return [f"v = {reached};", f"for (int k = 0; k < {width}; k++) {{", f"{INDENT}s[k] = {rounded('s[k] + v[k]')};",
            "}"]


def _link_lines(combine) -> list[str]:
    """The end of ``scores(x)`` for boosted sums, from ``raw``: the link, as
    :func:`treegen.model.apply_link` computes it."""
    link, single = combine.link, combine.precision == Precision.FLOAT32
    one = len(combine.init) == 1
    if link == Link.SIGMOID and single:
        return (["double p = sigmoid32(raw[0]);", "return new double[] {(float) (1.0 - p), p};"] if one else
                _each_call("sigmoid32"))
    if link == Link.SIGMOID:
        scaled = (lambda r: r) if combine.link_scale == 1.0 else (lambda r: f"({literal(combine.link_scale)} * {r})")
        if one:
            return [f"double p = 1.0 / (1.0 + exp(-{scaled('raw[0]')}));", "return new double[] {1.0 - p, p};"]
        return _each_value(f"1.0 / (1.0 + exp(-{scaled('raw[k]')}))")
    if link == Link.SOFTMAX and single:
        return ["return softmax32(raw);"]
    if link == Link.SOFTMAX:
        return ["double top = raw[0];", "for (double r : raw) {", f"{INDENT}top = r > top ? r : top;", "}",
                "double[] exps = new double[raw.length];", "double total = 0.0;",
                "for (int k = 0; k < raw.length; k++) {", f"{INDENT}exps[k] = exp(raw[k] - top);",
                f"{INDENT}total += exps[k];", "}", "for (int k = 0; k < raw.length; k++) {",
                f"{INDENT}exps[k] = exps[k] / total;", "}", "return exps;"]
    if link == Link.EXP:
        return _each_call("expf" if single else "exp")
    if link == Link.EXP_DOUBLE:
        return _each_value("(float) exp(raw[k])") if single else _each_call("exp")
    if link == Link.STEP:
        return (["double p = raw[0] > 0 ? 1.0 : 0.0;", "return new double[] {1.0 - p, p};"] if one else
                _each_value("raw[k] > 0 ? 1.0 : 0.0"))
    if link == Link.SIGN_SQUARE:
        return _each_value("(raw[k] > 0 ? 1.0 : raw[k] < 0 ? -1.0 : 0.0) * raw[k] * raw[k]")
    return ["return raw;"]


def _each_call(function: str) -> list[str]:
    return _each_value(f"{function}(raw[k])")


def _each_value(expression: str) -> list[str]:
    """Lines that return ``expression`` (of ``raw[k]``) for each raw sum."""
    return ["double[] scores = new double[raw.length];", "for (int k = 0; k < raw.length; k++) {",
            f"{INDENT}scores[k] = {expression};", "}", "return scores;"]


def _part(part: slice):
    """A function that writes the part ``part`` of a double[] expression in Java (all of it: as is)."""
    if part == slice(None):
        return lambda array: array
    return lambda array: f"Arrays.copyOfRange({array}, {part.start}, {part.stop})"


def _decide(decision: Decision, scores: str, raw: str, nan: bool = False, cut: float | None = None) -> str:
    """The index of the predicted class under ``decision``, from the scores and the raw sums (``nan``: which
    may be NaN, :func:`treegen.model.scores_nan`; ``cut``: what RAW_NONNEGATIVE compares with, None: 0)."""
    return {Decision.ARGMAX: f"argmax{'Nan' if nan else ''}({scores})", Decision.WEKA: f"wekaArgmax({scores})",
            Decision.RAW_NONNEGATIVE: f"{raw}[0] >= {'0' if cut is None else literal(cut)} ? 1 : 0",
            Decision.RAW_POSITIVE: f"{raw}[0] > 0 ? 1 : 0",
            Decision.ARGMAX_RAW: f"argmax({raw})"}[decision]


def _helpers(model: Model) -> dict:
    """The arithmetic a class needs beyond its walkers: glibc's ``exp`` (the links in double), float32
    (XGBoost's links), Weka's choice of class."""
    combine = model.combine
    boosted = combine.kind == CombineKind.SUM
    float32 = boosted and combine.precision == Precision.FLOAT32
    expf = float32 and combine.link != Link.EXP_DOUBLE  # survival:aft's float32 link rounds exp in double
    return {"exp": takes_exp(combine) and not expf,
            "exp_table": _exp_table() if boosted else (),
            "float32": expf and takes_exp(combine),
            "weka": combine.decision() == Decision.WEKA,
            "expf": {name: literal(getattr(arithmetic, name)) for name in (
                "EXPF_INV_LN2_N", "EXPF_SHIFT", "EXPF_C0", "EXPF_C1", "EXPF_C2", "EXPF_OVERFLOW", "EXPF_UNDERFLOW")},
            "expf_table": [literal(v) for v in arithmetic.EXPF_TABLE],
            "expf_exceptions": [(literal(x), literal(y)) for x, y in arithmetic.EXPF_EXCEPTIONS.items()],
            "sigmoid_clamp": literal(arithmetic.f32(88.7)), "sigmoid_epsilon": literal(arithmetic.f32(1e-16))}


@lru_cache(maxsize=1)
def _exp_table() -> list[str]:
    """glibc's table for ``exp`` (e_exp_data.c, 128 entries: 2^(k/128) = H * (1 + T) with H rounded to
    double), as its 256 words: the bits of T, then the bits of H less k << 45 (the exponent of the result
    is added to them), computed from 2^(k/128) to 80 digits."""
    words = []
    with localcontext() as context:
        context.prec = 80
        for k in range(128):
            exact = Decimal(2) ** (Decimal(k) / 128)
            high = float(exact)
            tail = float(exact / Decimal(high) - 1)
            words += [arithmetic.double_bits(tail) if tail else 0, (arithmetic.double_bits(high) - (k << 45)) % 2 ** 64]
    return [f"0x{word:016x}L" for word in words]
