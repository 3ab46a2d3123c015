"""A ``tuple`` split (nominal features combined, with binary parts) as the model, its vectorised walk, the JSON
format and every target read it: each row's key -- the categories (None: missing), then the parts' child
positions -- in the split's tuples goes to children[0]."""
from __future__ import annotations

import itertools
import json
import math
import subprocess
from dataclasses import replace

import pytest

from treegen import modelio
from treegen.errors import TreegenError
from treegen.describe import sorted_keys
from treegen.model import (NOMINAL, NUMERIC, REGRESSION, Combine, CombineKind, Feature, MissingRoute, Model, Node, NumericSemantics, Op,
                           Split, Target, Tree, tuple_key)
from treegen.targets import emit
from treegen.run.python import run
from treegen.walk import predict_rows

CITIES, SHOPS = ("a", "b", ""), ("s", "t")


def tuple_model() -> Model:
    """One tuple split on (city, shop) with a float part (x <= 0.5, NaN right) and a category part (color in
    {red}, missing left, unknown right), a None key (a missing city) among its tuples."""
    features = (Feature("city", NOMINAL, CITIES), Feature("shop", NOMINAL, SHOPS), Feature("x", NUMERIC),
                Feature("color", NOMINAL, ("red", "blue")))
    parts = (Split(2, Op.LE, threshold=0.5, missing=MissingRoute.to_child(1)),
             Split(3, Op.IN, values=("red",), missing=MissingRoute.to_child(0), unknown=1))
    keys = frozenset({("a", "s", 0, 0), ("b", "t", 1, 0), ("", "s", 0, 1), (None, "s", 0, 1), ("a", None, 1, 1)})
    split = Split(0, Op.TUPLE, features=(0, 1), parts=parts, tuples=keys, missing=MissingRoute.to_child(1))
    nodes = [Node((0.0,), split=split, children=(1, 2)), Node((1.5,)), Node((-2.0,))]
    return Model(features, Target("y", REGRESSION), [Tree(nodes)], numeric=NumericSemantics(cast="float32"))


def every_row() -> list[dict]:
    values = {"city": [*CITIES, None, "zz"], "shop": [*SHOPS, None, "zz"], "x": [0.5, math.nextafter(0.5, 1), -1.0,
              None], "color": ["red", "blue", None, "green"]}
    return [dict(zip(values, combination)) for combination in itertools.product(*values.values())]


def test_the_key_decides_and_every_reader_agrees(tmp_path):
    model = tuple_model()
    rows = every_row()
    want = [1.5 if tuple_key(model, model.trees[0].nodes[0].split, row) in model.trees[0].nodes[0].split.tuples
            else -2.0 for row in rows]
    assert want.count(1.5) >= 5 and [model.predict(row) for row in rows] == want
    assert [value for value, _ in predict_rows(model, rows)] == want
    text = modelio.dumps(model)
    assert modelio.dumps(modelio.loads(text)) == text
    csv_rows = ["city,shop,x,color"] + [",".join("" if v is None else str(v) for v in row.values()) for row in rows]
    printed = run(emit(model, "python"), "\n".join(csv_rows) + "\n", [], model=model).split()
    csv_want = [model.predict({k: (None if v == "" else v) for k, v in row.items()}) for row in rows]  # "": missing
    assert [float(p) for p in printed] == csv_want


def test_a_python_module_looks_a_combinations_key_up_once_a_row_for_all_its_splits():
    """Splits that combine the same features and parts (CatBoost's splits of one CTR at several borders) share one
    table in a Python module: a row's key is computed and looked up once, its mask holding a bit a split (the
    default pairs model's rows 187 -> 94 us, the 1,000-category model's module 262 -> 123 MB loaded), and every
    row answers as the model does -- unknown and missing categories, a NaN part, keys of both sets or neither."""
    import types
    features = (Feature("city", NOMINAL, ("Paris", "Rome")), Feature("shop", NOMINAL, ("north", "south")),
                Feature("x", NUMERIC))
    part = Split(2, Op.LE, threshold=0.5, missing=MissingRoute.to_child(1))
    sets = [frozenset({("Paris", "north", 0), ("Paris", "south", 1), ("Rome", "north", 0), (None, "south", 1)}),
            frozenset({("Paris", "north", 0), ("Rome", None, 1)})]
    trees = [Tree([Node((0.0,), split=Split(0, Op.TUPLE, features=(0, 1), parts=(part,), tuples=keys,
                                            missing=MissingRoute.to_child(1)), children=(1, 2)),
                   Node((weight,)), Node((0.0,))]) for keys, weight in zip(sets * 2, (1.0, 2.0, 4.0, 8.0))]
    model = Model(features, Target("y", REGRESSION), trees, Combine(CombineKind.SUM, (0.0,)))
    code = emit(model, "python")
    module = types.ModuleType("model")
    exec(compile(code, "model.py", "exec"), module.__dict__)
    assert code.count("_TUPLES0.get(") == 1 and "_TUPLES1" not in code  # one table, one lookup a row
    assert len(module._TUPLES0) == len(sets[0] | sets[1]) == 5  # each key once, with its splits' bits
    values = {"city": ["Paris", "Rome", "Oslo", None], "shop": ["north", "south", "east", None],
              "x": [0.5, math.nextafter(0.5, 1), -1.0, None]}
    rows = [dict(zip(values, combination)) for combination in itertools.product(*values.values())]
    want = [model.predict(row) for row in rows]
    assert len(set(want)) == 4 and [module.predict(row) for row in rows] == want
    assert [module.predict_values([*module._encode(row), 1e9]) for row in rows] == want  # (a value past the features)


def test_the_model_file_holds_each_set_of_keys_once():
    """Trees that share a tuple split's keys name one set of the file's ``tuple_keys`` by its number (a CatBoost
    model's 300 trees reuse their splits: 26.8 MB of JSON with the keys in every split); a file may also list
    a split's keys in place."""
    one = tuple_model()
    model = Model(one.features, one.target, one.trees * 3, Combine(CombineKind.SUM, (0.0,)), one.numeric)
    doc = json.loads(modelio.dumps(model))
    assert len(doc["tuple_keys"]) == 1 and len(doc["tuple_keys"][0]) == 5
    assert [tree["nodes"][0]["split"]["tuples"] for tree in doc["trees"]] == [0, 0, 0]
    assert modelio.dumps(modelio.loads(modelio.dumps(model))) == modelio.dumps(model)
    doc["trees"][1]["nodes"][0]["split"]["tuples"] = doc["tuple_keys"][0]
    assert modelio.dumps(modelio.loads(json.dumps(doc))) == modelio.dumps(model)
    for bad in (1, -1, "0", None):
        doc["trees"][1]["nodes"][0]["split"]["tuples"] = bad
        with pytest.raises(TreegenError, match=r": trees\[1\]\.nodes\[0\]\.split\.tuples: expected a list of keys, or "
                                               r"the number of a set of the model's tuple_keys \(it has 1\)$"):
            modelio.loads(json.dumps(doc))


def test_a_tuple_splits_keys_are_written_null_first_then_texts_place_by_place():
    """Keys are written in one order: each place in turn, null first, then texts in order, positions 0 then 1. Sorted
    as they are (twenty times faster: a 151 MB CatBoost model's 2.7 million keys took 25 s), unless a null meets a
    text in one place, where the order is built key by key; both give that order."""
    from treegen.model import Split, sorted_tuples

    def in_order(keys):  # the order, spelt out
        return sorted(keys, key=lambda key: [(0, "") if v is None else (1, v) if type(v) is str else (2, str(v))
                                             for v in key])
    names = ["", "a", "b", "B", "\u00e9", "10", "9"]
    every = [(x, y, p) for x in names + [None] for y in names + [None] for p in (0, 1)]
    alike = [(x, None, p) for x in names for p in (0, 1)]  # a null in every key's second place: sorted as they are
    assert sorted(alike)
    for keys in (every, alike, [key for key in every if None not in key], []):  # (every: a null meets a text)
        split = Split(0, Op.TUPLE, features=(0, 1), parts=(0,), tuples=frozenset(keys))
        assert sorted_tuples(split) == in_order(keys)
    assert sorted_tuples(Split(0, Op.TUPLE, tuples=frozenset(every)))[:3] == [(None, None, 0), (None, None, 1),
                                                                              (None, "", 0)]


@pytest.mark.parametrize("change, message", [
    (lambda s: s.update(tuples=[["a", "s", 0]]), r"split\.tuples: each tuple"),
    (lambda s: s.update(tuples=[["q", "s", 0, 0]]), r"split\.tuples: each tuple"),
    (lambda s: s.update(tuples=[["a", "s", 0, 2]]), r"split\.tuples: each tuple"),
    (lambda s: s.update(tuples=[["a", "s", 0, True]]), r"split\.tuples\[0\]: expected a list of categories"),
    (lambda s: s.update(tuples=[["a", "s", 1.0, 0]]), r"split\.tuples\[0\]: expected a list of categories"),
    (lambda s: s.update(tuples=[["a", 0, 0, 0]]), r"split\.tuples: each tuple"),
    (lambda s: s.update(tuples=[["a", "s", 0, 0], ["a", "s", 0]]), r"split\.tuples: each tuple"),
    (lambda s: s.update(features=[1, 0]), r"split\.features: a 'tuple' split names"),
    (lambda s: s.update(features=[0, 2]), r"split\.features: a 'tuple' split combines nominal"),
])
def test_a_bad_tuple_split_is_one_line_naming_its_field(change, message):
    doc = json.loads(modelio.dumps(tuple_model()))
    change(doc["trees"][0]["nodes"][0]["split"])
    with pytest.raises(TreegenError, match=message) as info:
        modelio.loads(json.dumps(doc))
    assert "\n" not in str(info.value)


def test_the_coded_keys_of_java_javascript_and_c_answer_as_the_key_does():
    """Rows as the coded back ends hold them (a category's code, -1 missing, -2 unknown; NaN a missing number):
    the mixed-radix number of each row's digits is one of the split's coded keys exactly when its key is one of
    the tuples."""
    from treegen.emit.common import category_codes, coded_tuples, tuple_test
    model = tuple_model()
    split = model.trees[0].nodes[0].split
    codes = category_codes(model)
    coded = coded_tuples(tuple_test(model, split), codes, lambda f: model.features[f].name)
    assert coded.radices == (5, 4, 2, 2) and len(coded.keys) == len(split.tuples)

    def code(f, value):
        return -1 if value is None else codes[f].index(value) if value in codes[f] else -2

    def position(part, row):
        if part[0] == "<=":
            x = row["x"]
            return part[3] if x is None else 0 if x <= part[2] else 1
        c = code(part[1], row["color"])
        return 0 if c in part[2] else 1 if c >= 0 else part[3] if c == -1 else part[4]

    for row in every_row():
        digits = [0 if c == -2 else c + 2 for c in (code(0, row["city"]), code(1, row["shop"]))]
        digits += [position(part, row) for part in coded.parts]
        number = ((digits[0] * 4 + digits[1]) * 2 + digits[2]) * 2 + digits[3]
        assert (number in coded.keys) == (tuple_key(model, split, row) in split.tuples), row


def test_a_split_whose_keys_a_double_cannot_count_is_refused_naming_its_features():
    from treegen.emit.common import coded_tuples, tuple_test
    model = tuple_model()
    split = model.trees[0].nodes[0].split
    huge = [range(2 ** 27)] * 2  # (only their counts are read)
    with pytest.raises(TreegenError, match=r"^a split combining 'city', 'shop' has [\d,]+ possible keys, more than"):
        coded_tuples(tuple_test(model, split), huge + [(), ()], lambda f: model.features[f].name)


def test_python_numbers_keys_past_what_a_double_or_int64_counts():
    """Five features of 10,000 categories combined: 10^20 possible keys, which Java, JavaScript, C and SQL refuse
    (above) and Python numbers exactly in its integers (numpy's int64 would wrap: coded_tuples numbers them as
    objects), its module answering as the model does."""
    import random
    import types
    features = tuple(Feature(f"f{k}", NOMINAL, tuple(f"c{k}_{i}" for i in range(10_000))) for k in range(5))
    rng = random.Random(0)
    keys = frozenset(tuple(rng.choice(f.categories + (None,)) for f in features) for _ in range(50))
    split = Split(0, Op.TUPLE, features=tuple(range(5)), tuples=keys, missing=MissingRoute.to_child(1))
    model = Model(features, Target("y", REGRESSION), [Tree([Node((0.0,), split=split, children=(1, 2)),
                                                             Node((1.0,)), Node((2.0,))])])
    module = types.ModuleType("model")
    exec(compile(emit(model, "python"), "model.py", "exec"), module.__dict__)
    assert max(module._TUPLES0) >= 2 ** 63
    near = [dict(zip([f.name for f in features], key)) for key in keys]  # each key, then one place changed
    rows = near + [{**row, name: rng.choice([None, "c0_1", "zz"])} for row in near for name in row]
    want = [model.predict(row) for row in rows]
    assert want.count(1.0) >= 50 and [module.predict(row) for row in rows] == want


def test_a_tuple_splits_keys_are_checked_place_by_place():
    """A key that does not fit its split (as a model made in Python may hold): a position not the int 0 or 1, a
    category its feature lacks, a key too short or too long among keys that fit."""
    from treegen.model import split_problem
    model = tuple_model()
    split = model.trees[0].nodes[0].split
    assert split_problem(model.features, split) is None
    for bad in [("a", "s", 0, True), ("a", "s", 1.0, 0), ("a", "s", 0, 2), ("a", "zz", 0, 0), ("a", "s", 0),
                ("a", "s", 0, 0, 0), ("a", 0, 0, 0)]:
        assert split_problem(model.features, replace(split, tuples=split.tuples | {bad}))[0] == "tuples", bad


def test_the_rules_of_a_tuple_split_answer_as_the_model_does():
    """Lowered, a tuple split's children are the rules of its two answers ('tuple', 'not tuple'), each after the
    features' conditions; a path that takes one answer twice keeps it once, one that takes both has no rule."""
    from treegen.lower import NOT_TUPLE, TUPLE, lower, rules_output
    model = tuple_model()
    split = model.trees[0].nodes[0].split
    nodes = [Node((0.0,), split=split, children=(1, 4)), Node((0.0,), split=split, children=(2, 3)), Node((1.5,)),
             Node((7.0,)), Node((-2.0,))]
    model = Model(model.features, model.target, [Tree(nodes)], numeric=model.numeric)
    tree_rules = lower(model)[0]
    assert [(r.node, [c.kind for c in r.conditions]) for r in tree_rules.rules] == [(2, [TUPLE]), (4, [NOT_TUPLE])]
    for row in every_row():
        assert rules_output(model, model.trees[0], tree_rules, row) == [model.predict(row)]


def test_java_tests_the_split_natively_each_key_set_once():
    """Java's key is a number in mixed radix of the row's category codes and the parts' children, looked up in its
    split's key set, each set once in the class (two splits share it here): a bitmap from the least key, or, for
    keys too far apart (a shop among 1,202), the sorted keys searched by halves. verify's probes (each category,
    missing, unknown, the cut +-1 ulp, NaN) and every row agree: through a symmetric tree's levels, with leaf ids
    through its walkers' ifs, and where the first child is the larger, through a test that the key is not one."""
    from treegen.run.java import run as run_java
    from treegen.verifier import verify
    model = tuple_model()
    split = model.trees[0].nodes[0].split
    root = Split(2, Op.LE, threshold=-0.5, missing=MissingRoute.to_child(0))
    shared = [Node((0.0,), split=root, children=(1, 2)), Node((0.0,), split=split, children=(3, 4)),
              Node((0.0,), split=split, children=(5, 6)), *(Node((v,)) for v in (1.5, -2.0, 4.0, 8.0))]
    lopsided = [Node((0.0,), split=split, children=(1, 2)), Node((0.0,), split=root, children=(3, 4)),
                *(Node((v,)) for v in (-2.0, 1.5, 4.0))]
    wide_shop = Feature("shop", NOMINAL, tuple(f"f{i}" for i in range(1200)) + SHOPS)
    wide = (model.features[0], wide_shop, *model.features[2:])
    cut = model.numeric.effective_threshold(0.5)  # the highest double that is 0.5 in float32
    rows = every_row() + [{**row, "x": cut} for row in every_row() if row["x"] == 0.5]
    csv_rows = ["city,shop,x,color"] + [",".join("" if v is None else str(v) for v in row.values()) for row in rows]
    bits, halves = ("49153,65568", "hasKey(TUPLE_BITS[0], "), ("9625,14,4801,4822,4811", "binarySearch(TUPLES[0], ")
    for features, nodes, (keys, test), counts in ((model.features, shared, bits, (1, 2)), (wide, shared, halves, (1, 2)),
                                                 (model.features, lopsided, bits, (1, 1)),
                                                 (wide, lopsided, halves, (1, 1))):
        case = Model(features, model.target, [Tree(nodes)], numeric=model.numeric)
        for leaf in (False, True):
            text = emit(case, "java", leaf=leaf)
            assert f'"1|0:{keys}\\n",' in text and text.count(test) == counts[leaf]
            assert "TUPLES[1]" not in text and "TUPLE_BITS[1]" not in text  # (one set; not the split written out)
            assert (nodes is lopsided) == ("not in its 5 keys" in text)
            results = verify(case, None, ["java"], [], leaf=leaf)
            assert len(results) == 1 and results[0].ok, results[0].line()
        printed = run_java(emit(case, "java"), "\n".join(csv_rows) + "\n").split()
        assert [float(p) for p in printed] == [case.predict({k: (None if v == "" else v) for k, v in row.items()})
                                               for row in rows]


FAST_HARNESS = r"""
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Each encoded row (a line of doubles' bits in hex) through each API of encoded rows of the class named (predictLeaf
 * where it has one): the answer, or what it throws, joined by spaces. */
public class FastHarness {
    public static void main(String[] args) throws Exception {
        Class<?> model = Class.forName(args[0]);
        for (int r = 1; r < args.length; r++) {
            String[] fields = args[r].split(",");
            double[] x = new double[fields.length];
            for (int i = 0; i < x.length; i++) {
                x[i] = Double.longBitsToDouble(Long.parseUnsignedLong(fields[i], 16));
            }
            List<String> line = new ArrayList<String>();
            for (String name : new String[] {"predict", "predictRows", "predictLeaf"}) {
                boolean many = name.endsWith("Rows");
                Method method;
                try {
                    method = model.getMethod(name, many ? double[][].class : double[].class);
                } catch (NoSuchMethodException absent) {  // (predictLeaf: only in a class exported with leaf ids)
                    continue;
                }
                try {
                    Object got = method.invoke(null, many ? (Object) new double[][] {x} : (Object) x);
                    line.add(String.valueOf(many ? ((double[]) got)[0]
                        : got instanceof int[][] ? Arrays.deepToString((int[][]) got) : got));
                } catch (InvocationTargetException thrown) {
                    line.add(String.valueOf(thrown.getCause()));
                }
            }
            System.out.println(String.join(" ", line));
        }
    }
}
"""


def test_java_refuses_an_encoded_row_whose_combined_feature_holds_no_code():
    """Java's double[] rows (predict, predictRows) take a combined feature's code (-1 missing, -2 unknown, 0 up) as a
    digit of the key: a number that is no code of it (1.5, one past its categories, -3, NaN, an infinity) would make
    the key of another row, so it is refused, as JavaScript's fast path refuses it (an IllegalArgumentException, as an
    encoded row of another length is); codes, and any number of a part's feature, are answered as the model does."""
    import struct
    from treegen.run.java import compile_sources
    model = tuple_model()
    source = emit(model, "java", class_name="Keyed")
    good = {(0, 1, 0.25, 0): {"city": "a", "shop": "t", "x": 0.25, "color": "red"},
            (-2, -1, 2.0, -1): {"city": "zz", "shop": None, "x": 2.0, "color": None},
            (-1, 0, math.nan, -2): {"city": None, "shop": "s", "x": None, "color": "green"}}
    bad = [(1.5, 0, 0.25, 0), (3, 0, 0.25, 0), (-3, 0, 0.25, 0), (math.nan, 0, 0.25, 0), (0, 2, 0.25, 0),
           (0, -math.inf, 0.25, 0), (0, 1e9, 0.25, 0), (0, -0.5, 0.25, 0)]
    rows = [",".join(format(struct.unpack("<Q", struct.pack("<d", float(v)))[0], "x") for v in row)
            for row in [*good, *bad]]
    directory = compile_sources([source, FAST_HARNESS])[0]
    printed = subprocess.run(["java", "-cp", directory, "FastHarness", "Keyed", *rows], capture_output=True,
                             text=True, check=True).stdout.splitlines()
    assert printed[:len(good)] == [f"{model.predict(row)} {model.predict(row)}" for row in good.values()]
    shown = ("1.5", "3.0", "-3.0", "NaN", "2.0", "-Infinity", "1.0E9", "-0.5")  # (as Java writes each bad value)
    assert len(printed) == len(good) + len(bad)
    for k, line in enumerate(printed[len(good):]):
        f = 0 if k < 4 else 1  # (the feature whose value is no code)
        refused = (f"java.lang.IllegalArgumentException: value {f} (feature '{model.features[f].name}') is {shown[k]}, "
                   f"not a code of its categories (0 to {len(model.features[f].categories) - 1}, -1 missing, -2 "
                   "unknown): pass encode(values) for values as written")
        assert line == f"{refused} {refused}", line


KINDS, COLORS = tuple(f"k{i}" for i in range(6)), tuple(f"r{i}" for i in range(6))
# Numbers that are no code of a feature of six categories, as Java writes them: a bit mask of codes read 3.5 as code 3,
# -62 as code 2 (a shift counts mod 64 in Java, mod 32 in JavaScript, where -30 was code 2).
NO_CODES = {3.5: "3.5", -62.0: "-62.0", -30.0: "-30.0", math.nan: "NaN", 6.0: "6.0", -3.0: "-3.0", 1.5: "1.5",
            math.inf: "Infinity", -0.5: "-0.5"}


def masked_model() -> Model:
    """A plain ``in`` split of four codes (a bit mask in Java and JavaScript) on kind, and under its first child a
    tuple split on (city, shop) whose ``in`` part (color in four codes: a bit mask too) is a place of its key."""
    features = (Feature("kind", NOMINAL, KINDS), Feature("city", NOMINAL, ("a", "b")), Feature("shop", NOMINAL, SHOPS),
                Feature("color", NOMINAL, COLORS))
    part = Split(3, Op.IN, values=COLORS[:4], missing=MissingRoute.to_child(0), unknown=1)
    keys = frozenset({("a", "s", 0), ("b", "t", 1), (None, "s", 0), ("a", None, 1), ("b", "s", 1)})
    tuple_split = Split(1, Op.TUPLE, features=(1, 2), parts=(part,), tuples=keys, missing=MissingRoute.to_child(1))
    in_split = Split(0, Op.IN, values=KINDS[:4], missing=MissingRoute.to_child(1), unknown=1)
    nodes = [Node((0.0,), split=in_split, children=(1, 2)), Node((0.0,), split=tuple_split, children=(3, 4)),
             Node((3.0,)), Node((1.0,)), Node((2.0,))]
    return Model(features, Target("y", REGRESSION), [Tree(nodes)])


def decoded(model: Model, codes) -> dict:
    """The row whose encoding is ``codes``: -1 missing, -2 a category the model does not know."""
    return {f.name: None if c == -1 else "zz" if c == -2 else f.categories[int(c)] for f, c in zip(model.features, codes)}


def masked_rows(model: Model) -> tuple[list, list]:
    """Every code of kind and color (-0.0 too) with a few keys' codes, and rows whose kind or color is no code."""
    good = [(k, c, s, color) for k in (-2, -1, -0.0, *range(6)) for c in (-2, -1, 0, 1) for s in (-1, 0, 1)
            for color in range(-2, 6)]
    bad = [row for v in NO_CODES for row in ((v, 0, 0, 0), (0, 0, 0, v))]
    return good, bad


def test_java_and_javascript_refuse_an_encoded_row_whose_nominal_feature_holds_no_code(tmp_path):
    """Java's double[] rows (predict, predictRows, predictLeaf) and JavaScript's array rows (predict, predictRows,
    predictLeaf) refuse a value of any nominal feature a split reads that is no code of it -- not only a tuple split's
    combined ones: a category set's bit mask read 3.5 and -62 (and -30 in JavaScript) as codes, answering "in" where
    Model.predict answers an unknown category -- and answer every code as Model.predict does."""
    import struct
    from test_emit_javascript import reference_leaves
    from treegen.run.java import compile_sources
    model = masked_model()
    good, bad = masked_rows(model)
    java, javascript = emit(model, "java", class_name="Masked", leaf=True), emit(model, "javascript", leaf=True)
    assert java.count("L >>> (int) x[") == 2 and javascript.count("0xf >>> x[") == 2  # (both sets are masks)
    want = [(model.predict(decoded(model, row)), reference_leaves(model, decoded(model, row))) for row in good]
    assert {value for value, _ in want} == {1.0, 2.0, 3.0}
    hexed = [",".join(format(struct.unpack("<Q", struct.pack("<d", float(v)))[0], "x") for v in row)
             for row in [*good, *bad]]
    classes = ":".join(dict.fromkeys(compile_sources([java, FAST_HARNESS])))  # (the harness may be compiled already)
    printed = subprocess.run(["java", "-cp", classes, "FastHarness", "Masked", *hexed], capture_output=True,
                             text=True, check=True).stdout.splitlines()
    assert printed[:len(good)] == [f"{value} {value} {leaves}" for value, leaves in want]
    assert len(printed) == len(good) + len(bad)
    for row, line in zip(bad, printed[len(good):]):
        f = 0 if row[3] == 0 else 3  # (the feature whose value is no code; NO_CODES's NaN is the row's own object)
        refused = (f"java.lang.IllegalArgumentException: value {f} (feature '{model.features[f].name}') is "
                   f"{NO_CODES[row[f]]}, not a code of its categories (0 to 5, -1 missing, -2 unknown): pass "
                   "encode(values) for values as written")
        assert line == " ".join([refused] * 3), line
    rows = [list(map(float, row)) for row in [*good, *bad]]
    for call, answer in (("m.predict(row)", lambda value, leaves: value),
                         ("m.predictRows([row])[0]", lambda value, leaves: value),
                         ("m.predictLeaf(row)", lambda value, leaves: leaves)):
        got = javascript_answers(javascript, rows, tmp_path, call)
        assert got == [answer(*w) for w in want] + ["RangeError"] * len(bad), call


def sparse_tuple_model() -> Model:
    """tuple_model() with 300 more cities: its 5 keys among 4,880 possible ones."""
    model = tuple_model()
    city = replace(model.features[0], categories=CITIES + tuple(f"c{i}" for i in range(300)))
    return replace(model, features=(city, *model.features[1:]))


def javascript_answers(source: str, rows: list, tmp_path, call: str = "m.predict(row)") -> list:
    """What the module's predict (or ``call``, of its exports ``m``) answers for each row (an object, or an array: the
    fast path), or the error's class where it throws."""
    import subprocess
    (tmp_path / "model.mjs").write_text(source)
    (tmp_path / "rows.mjs").write_text(f"export default {json.dumps(rows)};\n")  # (JavaScript: NaN, Infinity, -0.0)
    driver = tmp_path / "driver.mjs"
    driver.write_text('import rows from "./rows.mjs";\nimport * as m from "./model.mjs";\n'
                      'console.log(JSON.stringify(rows.map((row) => {\n'
                      f'  try {{ return {call}; }} catch (e) {{ return e.constructor.name; }}\n}})));\n')
    done = subprocess.run(["node", str(driver)], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("make, lookup", [(tuple_model, "inBits(K0, "), (sparse_tuple_model, "K0.has(")])
def test_javascript_looks_up_a_tuple_split_key_natively(make, lookup, tmp_path):
    """JavaScript writes the split's coded keys once (a bit set of the keys it can meet, or a Set where that would
    be bigger) and looks each row's key up: every row of every_row() through the API (an object; the "" city
    too, which CSV reads as missing), verify's probes and those rows through the program predict what the model
    does; an array row whose combined feature holds no code of it is refused, not looked up as another key."""
    from treegen.verifier import verify
    model = make()
    source = emit(model, "javascript")
    assert lookup in source and "x[0] * 16 + x[1] * 4" in source and "x[0] ===" not in source  # (not written out)
    rows = every_row()
    assert javascript_answers(source, rows, tmp_path) == [model.predict(row) for row in rows]
    fast = [[0, 1, 0.25, 0], [-2, -1, 2.0, -1], [0.5, 1, 0, 0], [len(model.features[0].categories), 1, 0, 0]]
    assert javascript_answers(source, fast, tmp_path) == [
        model.predict({"city": "a", "shop": "t", "x": 0.25, "color": "red"}),
        model.predict({"city": "zz", "shop": None, "x": 2.0, "color": None}), "RangeError", "RangeError"]
    data = tmp_path / "rows.csv"
    data.write_text("city,shop,x,color\n" + "".join(",".join("" if v is None else str(v) for v in row.values()) + "\n"
                                                    for row in rows))
    results = verify(model, str(data), ["javascript"], [])
    assert len(results) == 1 and results[0].ok, results[0].line()


@pytest.mark.parametrize("make, lookup", [(tuple_model, "in_bits(K0, "), (sparse_tuple_model, "in_keys(K0, 5, ")])
def test_c_looks_up_a_tuple_split_key_natively(make, lookup, tmp_path):
    """C writes the split's coded keys once (a bit set of the keys it can meet, or the keys ascending, searched)
    and looks each row's key up, from the row as read (a missing category: its copies differ; an unknown one: any
    value that is no code): every row of every_row() through the API, with leaf ids, by gcc and clang, verify's
    probes and those rows through the program predict what the model does; a number that is no code of a combined
    feature (1.5, 99, -1, an infinity) is an unknown category."""
    import subprocess
    from test_emit_c import STRICTER, assert_api_exact
    from treegen.verifier import verify
    model = make()
    source = emit(model, "c", prefix="m")
    assert lookup in source and "key_digit(x[0], x[4], " in source and "x[0] == " not in source  # (not written out)
    rows = every_row()
    for cc in ("gcc", "clang"):
        assert_api_exact([(model, rows)], cc=cc)
    (tmp_path / "m.c").write_text(source)
    (tmp_path / "main.c").write_text(
        '#include <math.h>\n#include <stdio.h>\n#include "m.c"\nint main(void)\n{\n'
        '    const double cities[] = {1.5, 99.0, -1.0, HUGE_VAL, -HUGE_VAL, 0.0};\n    int k;\n'
        '    for (k = 0; k < 6; k++) {\n        double row[4];\n        row[0] = cities[k];\n        row[1] = 0.0;\n'
        '        row[2] = 0.25;\n        row[3] = 0.0;\n        printf("%.17g\\n", m_predict(row));\n    }\n'
        '    return 0;\n}\n')
    subprocess.run(["gcc", *STRICTER, "-O2", "main.c", "-lm", "-o", "main"], cwd=tmp_path, check=True)
    printed = subprocess.run([str(tmp_path / "main")], capture_output=True, text=True, check=True).stdout.split()
    row = {"shop": "s", "x": 0.25, "color": "red"}
    assert [float(p) for p in printed] == [model.predict({**row, "city": "zz"})] * 5 + [
        model.predict({**row, "city": "a"})]
    data = tmp_path / "rows.csv"
    data.write_text("city,shop,x,color\n" + "".join(",".join("" if v is None else str(v) for v in row.values()) + "\n"
                                                    for row in rows))
    results = verify(model, str(data), ["c"], [])
    assert len(results) == 1 and results[0].ok, results[0].line()


@pytest.mark.parametrize("cut", [math.inf, -math.inf, math.nan])
def test_c_and_javascript_answer_a_part_cut_at_an_infinity_or_nan_as_the_model(cut):
    """A ``<=`` part at +-infinity or NaN, its missing value either way, the ``in`` part's missing category right and
    unknown one left, in float32 and float64: C and JavaScript key each probe as the model does (NaN: every number
    right; +infinity: every number left; C's missing value is its copies differing, not an infinity)."""
    from treegen.verifier import verify
    for child, cast in itertools.product((0, 1), ("float32", "float64")):
        model = replace(tuple_model(), numeric=NumericSemantics(cast=cast))
        node = model.trees[0].nodes[0]
        parts = (Split(2, Op.LE, threshold=cut, missing=MissingRoute.to_child(child)),
                 Split(3, Op.IN, values=("red",), missing=MissingRoute.to_child(1), unknown=0))
        model.trees[0].nodes[0] = replace(node, split=replace(node.split, parts=parts))
        results = verify(model, None, ["c", "javascript"], [])
        assert len(results) == 2 and all(r.ok for r in results), [r.line() for r in results]


def test_the_walk_reads_a_part_as_the_model_reads_numbers_that_shares_the_split():
    """Two models sharing a tuple split and its features, one reading numbers in float32 and one in float64,
    each walk the rows as their own Model.predict (the walk keeps a split's test for the models that share it)."""
    float32 = tuple_model()
    float64 = replace(float32, numeric=NumericSemantics())
    rows = every_row() + [{**row, "x": 0.50000001} for row in every_row()]
    for model in (float32, float64, float32):
        assert [value for value, _ in predict_rows(model, rows)] == [model.predict(row) for row in rows]
    assert [float32.predict(row) for row in rows] != [float64.predict(row) for row in rows]


def test_splits_sharing_one_set_of_keys_walk_each_with_its_own_parts():
    """The walk encodes a set of keys once for the splits that share it (a model file read back makes a split a
    node: a CatBoost model of 1,000-category pairs verified in 81 -> 33 s); each split still cuts its own parts."""
    model = tuple_model()
    node = model.trees[0].nodes[0]
    other = replace(node.split, parts=(replace(node.split.parts[0], threshold=-0.5), node.split.parts[1]))
    assert other.tuples is node.split.tuples and other != node.split
    nodes = [Node((0.0,), split=node.split, children=(1, 2)), Node((0.0,), split=other, children=(3, 4)),
             Node((-2.0,)), Node((1.5,)), Node((7.0,))]
    model = replace(model, trees=[Tree(nodes)])
    rows = every_row()
    assert [value for value, _ in predict_rows(model, rows)] == [model.predict(row) for row in rows]
    assert {model.predict(row) for row in rows} == {1.5, 7.0, -2.0}


def test_a_split_whose_keys_pass_int64_is_walked_exactly():
    """Combined features of 2^32 categories each: the walk's key would pass int64, so it compares the digits
    themselves (the Python target's key is the categories; the targets that number keys refuse such a split)."""
    model = tuple_model()
    many = tuple(f"c{i}" for i in range(70_000))
    features = (Feature("city", NOMINAL, CITIES + many), Feature("shop", NOMINAL, SHOPS + many), *model.features[2:])
    model = replace(model, features=features)
    split = model.trees[0].nodes[0].split
    features = list(features) + [Feature(f"more{i}", NOMINAL, many) for i in range(2)]
    wide = replace(split, features=(0, 1, 4, 5), tuples=frozenset(k[:2] + ("c7", None) + k[2:] for k in split.tuples))
    model = replace(model, features=tuple(features), trees=[replace(model.trees[0], nodes=[
        replace(model.trees[0].nodes[0], split=wide), *model.trees[0].nodes[1:]])])
    rows = [{**row, "more0": more, "more1": None} for row in every_row() for more in ("c7", "c8")]
    want = [model.predict(row) for row in rows]
    assert want.count(1.5) >= 5 and [value for value, _ in predict_rows(model, rows)] == want


def test_the_rule_text_writes_a_tuple_split_once_and_reads_it_back_exactly():
    """The rule text tests the split itself -- ``(city, shop, x <= 0.5, ...) in keys 1`` over one ``keys 1`` line,
    not written out -- and both readers (the writer's layout, the grammar) read back the same model; verify's
    probes agree with it."""
    from treegen.parse.rule_lines import read_lines
    from treegen.parse.rule_text import _read_with_grammar, parse
    from treegen.verifier import verify
    model = tuple_model()
    text = emit(model, "rules")
    assert text.count("\nkeys 1: {") == 1 and "node 3:" not in text  # the split itself, its keys once
    assert ('keys 1: {(missing, "s", true, false), ("", "s", true, false), ("a", missing, false, false), '
            '("a", "s", true, true), ("b", "t", false, true)}') in text
    assert ('rule 2: if (city, shop, x <= 0.5000000298023224, (color = "red" or missing but not unknown)) not in keys 1'
            ' then -2.0') in text  # the rules show the cut in float64; the node the float32 threshold
    assert ('node 0: (city, shop, x <= 0.5, (color = "red" or missing but not unknown)) in keys 1 ? 1 : 2; '
            'missing to 2;') in text
    assert read_lines(text) == _read_with_grammar(text, "t")
    relaid = text.replace("rule 1: if", "rule 1:  if")  # not the writer's layout: the grammar reads it
    for again in (parse(text), parse(relaid)):
        assert modelio.dumps(again) == modelio.dumps(model)
    results = verify(model, None, ["rules"], ())
    assert len(results) == 1 and results[0].ok, results[0].line()


@pytest.mark.parametrize("written, edit, message, where", [
    ('("b", "t", false, true)}', '("b", "t", false)}', 'keys 1: the key ("b", "t", false) has 3 places; the test '
     'on line 24 takes 2 categories then 2 answers', '("b", "t", false)}'),
    ('("b", "t", false, true)}', '("bb", "t", false, true)}', 'keys 1: the key ("bb", "t", false, true) place 1 '
     "holds unknown category 'bb' of feature 'city'; did you mean 'b'?", '("bb", "t", false, true)}'),
    ('("b", "t", false, true)}', '(true, "t", false, true)}', "keys 1: the key (true, \"t\", false, true) place 1 "
     "holds true where 'city' needs a category", '(true, "t", false, true)}'),
    ('("b", "t", false, true)}', '("b", "t", "x", true)}', 'keys 1: the key ("b", "t", "x", true) place 3 holds '
     '"x", not true or false', '("b", "t", "x", true)}'),
    ('node 0: (city, shop, x <= 0.5, (color = "red"', 'node 0: (city, shop, x <= 0.5, (color <= 0.5',
     "'<=' does not fit the nominal feature 'color'", "color <= 0.5"),
    ('node 0: (city, shop, x <= 0.5,', 'node 0: (city, shop, x > 0.5,', "a part of a test of categories combined is "
     'x <= t, x = "c" or x in {...}', "x > 0.5"),
    ('node 0: (city, shop,', 'node 0: (city, x,', "a test of categories combined names the numeric feature 'x' "
     "before its conditions; a number is tested by a condition (x <= t)", "x, x"),
    ("in keys 1 ? 1 : 2", "in keys 2 ? 1 : 2", "no keys line numbered 2 (the keys lines: 1)", "2 ? 1"),
    ("rule 2: if (city, shop", "rule 2: if (city, shopp", "rule 2: unknown feature 'shopp'; did you mean 'shop'?",
     "shopp"),
    (") not in keys 1 then", ") not in keys 3 then", "rule 2: no keys line numbered 3", "3 then"),
    ("2: if (city, shop, x <= 0.5000000298023224, (color = \"red\" or missing but not unknown)) not in",
     "2: if (city, shop, x <= 0.5000000298023224, (color = \"red\" or missing but not unknown)) in",
     "rule 2 does not match the nodes section (the rules are derived from the nodes: edit the nodes, or export "
     "again)", None),
])
def test_a_mistake_in_a_tuple_test_is_one_line_at_its_place(written, edit, message, where, tmp_path):
    """treegen parse: a key of the wrong length or with an unknown category, a part that does not fit its
    feature, a keys line that is not there, a rule that says otherwise than its nodes -- one line, exit 2, at
    the line and column of the mistake."""
    from click.testing import CliRunner
    from treegen.cli import main
    text = emit(tuple_model(), "rules")
    assert written in text
    text = text.replace(written, edit, 1)
    line, line_text = next((i, t) for i, t in enumerate(text.split("\n"), 1) if edit in t)
    at = f"{line}:{line_text.index(where) + 1}" if where else f"{line}"
    path = tmp_path / "m.rules"
    path.write_text(text)
    result = CliRunner().invoke(main, ["parse", str(path), "-o", str(tmp_path / "m.json")])
    assert (result.exit_code, result.stderr) == (2, f"treegen: error: {path}:{at}: {message}\n")


def test_show_and_the_diagram_say_a_tuple_split_and_its_keys_once():
    from treegen.show import show
    model = tuple_model()
    test = "(city, shop, x <= 0.5, color in {red} (or missing))"
    keys = '(missing, s, true, false), ("", s, true, false), (a, missing, false, false), (a, s, true, true)'
    shown = show(model)
    assert f"\n{test} in keys 1: 1.5 (n 0)\n{test} not in keys 1: -2.0 (n 0)\n" in shown
    assert shown.endswith(f"\nkeys 1: {{{keys}, (b, t, false, true)}}")
    dot = emit(model, "dot")
    assert f't0n0 -> t0n2 [label="{test} not in keys 1"];' in dot and "t0n3" not in dot  # not written out
    assert 'keys1 [label="keys 1\\n' + keys.replace('"', '\\"') + '\\n(b, t, false, true)", shape=note];' in dot


def test_keys_lines_numbered_and_ordered_otherwise_read_back_the_same_model():
    """A person may renumber the keys lines (the rules and nodes that name them with them) and reorder them: the
    text is read back to the same model. A number given twice is refused at its second line."""
    from dataclasses import replace
    from treegen.parse.rule_text import parse
    model = tuple_model()
    split = model.trees[0].nodes[0].split
    fewer = replace(split, tuples=frozenset(sorted_keys(split.tuples)[:2]))
    nodes = [Node((0.0,), split=split, children=(1, 2)), Node((0.0,), split=fewer, children=(3, 4)), Node((-2.0,)),
             Node((1.0,)), Node((3.0,))]
    model = Model(model.features, model.target, [Tree(nodes)], numeric=model.numeric)
    text = emit(model, "rules")
    lines = text.replace("keys 1", "keys X").replace("keys 2", "keys 1").replace("keys X", "keys 2").split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("keys "))
    assert [lines[first][:7], lines[first + 1][:7]] == ["keys 2:", "keys 1:"]
    lines[first:first + 2] = lines[first + 1], lines[first]
    for edited in (text, "\n".join(lines)):
        assert modelio.dumps(parse(edited)) == modelio.dumps(model)
    with pytest.raises(TreegenError) as err:
        parse(text.replace("keys 2: ", "keys 1: "))
    assert (err.value.message, err.value.line) == ("keys 1 is given twice (first on line 16)", 17)


def test_features_named_like_the_keys_words_read_back_by_both_readers():
    """'keys' names a keys line only after 'in' and at a line's start: a feature (or target) of that name is
    written bare, as before the word was the rule text's, and both readers take it as a name; 'true' is quoted."""
    from dataclasses import replace as changed
    from treegen.parse.rule_lines import read_lines
    from treegen.parse.rule_text import _read_with_grammar, parse
    model = tuple_model()
    features = tuple(changed(f, name=n) for f, n in zip(model.features, ["keys", "true", "keys1", "Keys"]))
    model = Model(features, Target("keys", REGRESSION), model.trees, numeric=model.numeric)
    text = emit(model, "rules")
    assert "\n  keys: nominal" in text and "\ntarget keys: numeric" in text and '(keys, "true", keys1 <= 0.5,' in text
    assert read_lines(text) == _read_with_grammar(text, "t") is not None
    assert modelio.dumps(parse(text)) == modelio.dumps(model)


def test_hostile_names_and_categories_in_a_tuple_test_read_back_by_both_readers():
    """Names with commas, parentheses and quotes, and categories that spell the rest of a node's line, are quoted
    where the rule text writes them: both readers read the same model back, and it predicts what the model does."""
    from dataclasses import replace as changed
    from treegen.parse.rule_lines import read_lines
    from treegen.parse.rule_text import _read_with_grammar, parse
    from treegen.verifier import verify
    model = tuple_model()
    tail = ") in keys 1 ? 1 : 2; missing to 2; value [0.0]; n 0.0"
    cities, colors = ("a", "b" + tail, ""), ("red", "r" + tail)
    names = ["ci, ty)", 'sh"op (', "x", "col = or missing"]
    features = [changed(f, name=n) for f, n in zip(model.features, names)]
    features[0], features[3] = changed(features[0], categories=cities), changed(features[3], categories=colors)
    split = model.trees[0].nodes[0].split
    split = changed(split, tuples=frozenset((cities[1],) + k[1:] if k[0] == "b" else k for k in split.tuples),
                    parts=(split.parts[0], changed(split.parts[1], values=colors[1:])))
    model = Model(tuple(features), model.target, [Tree([Node((0.0,), split=split, children=(1, 2)), Node((1.5,)),
                                                        Node((-2.0,))])], numeric=model.numeric)
    text = emit(model, "rules")
    node = next(line for line in text.split("\n") if line.startswith("  node 0: "))
    assert node.startswith('  node 0: ("ci, ty)", "sh\\"op (", x <= 0.5, ("col = or missing" = "r) in keys 1 ? 1 : 2;')
    assert read_lines(text) == _read_with_grammar(text, "t") is not None
    assert modelio.dumps(parse(text)) == modelio.dumps(model)
    results = verify(model, None, ["rules"], ())
    assert results[0].ok, results[0].line()


def tuple_rows(model: Model) -> list[dict]:
    """:func:`every_row`, and the part's number at its effective cut, an ulp either side and NaN."""
    cut = model.numeric.effective_threshold(model.trees[0].nodes[0].split.parts[0].threshold)
    around = [cut, math.nextafter(cut, -math.inf), math.nextafter(cut, math.inf), math.nan]
    return every_row() + [{**row, "x": x} for row in every_row() if row["x"] == 0.5 for x in around]


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "ansi", "postgres", "mysql", "spark"])
def test_sql_tests_a_tuple_split_natively_in_every_dialect(dialect, request):
    """The query reads the split's answer from a column computed once a row (its keys written once), and so does the
    expression (a scalar subquery's column, a lambda's variable), but MySQL's and ANSI's, which test the key itself; both predict what the model does for every
    category, missing and unknown ones, and the part's cut an ulp either side, in every engine."""
    from treegen.emit.common import category_codes, coded_tuples, tuple_test
    from treegen.emit.sql import DIALECTS
    from treegen.run.sql import query
    engine = DIALECTS[dialect].engine
    fixture = {"postgres": "postgres_dsn", "mysql": "mysql_server", "spark": "spark"}.get(engine)
    connection = {} if fixture is None else {"spark" if engine == "spark" else "dsn": request.getfixturevalue(fixture)}
    model = tuple_model()
    split = model.trees[0].nodes[0].split
    coded = coded_tuples(tuple_test(model, split), category_codes(model), lambda f: model.features[f].name)
    keys = DIALECTS[dialect].keys_written(coded.keys)  # the keys' list (or blob): not the split written out
    rows = tuple_rows(model)
    if engine == "mysql":  # (MySQL holds no NaN)
        rows = [row for row in rows if not (isinstance(row["x"], float) and math.isnan(row["x"]))]
    want = [model.predict(row) for row in rows]
    sql = emit(model, "sql", dialect=dialect)
    assert sql.count(keys) == 1
    assert [answer[-1] for answer in query(sql, model, rows, engine, **connection)] == want
    expression = emit(model, "sql", dialect=dialect, expression=True)
    assert expression.count(keys) == 1
    table = DIALECTS[dialect].identifier("input")
    assert [answer for (answer,) in query(f"SELECT {expression} FROM {table}", model, rows, engine, **connection)] == want


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "postgres", "spark"])
def test_an_expression_answers_a_tuple_split_once_a_row_for_every_tree_that_tests_it(dialect, request):
    """Trees that test one tuple split (CatBoost's repeat a CTR's split in many) read its answer computed once a row,
    as the query's derived table does: in the expression's scalar subquery (SQLite, PostgreSQL) or a lambda's
    variable (DuckDB, Spark), its keys written once, not at each test (the default CatBoost pairs model's DuckDB
    expression took 22.6 s to run one row so); the expression predicts what the model does."""
    from treegen.emit.common import category_codes, coded_tuples, tuple_test
    from treegen.emit.sql import DIALECTS
    from treegen.run.sql import query
    engine = DIALECTS[dialect].engine
    fixture = {"postgres": "postgres_dsn", "spark": "spark"}.get(engine)
    connection = {} if fixture is None else {"spark" if engine == "spark" else "dsn": request.getfixturevalue(fixture)}
    one = tuple_model()
    split = one.trees[0].nodes[0].split
    trees = [Tree([Node((0.0,), split=split, children=(1, 2)), Node((k + 0.5,)), Node((-0.25 * k,))]) for k in range(3)]
    model = Model(one.features, one.target, trees, combine=Combine(CombineKind.SUM, init=(0.125,)), numeric=one.numeric)
    coded = coded_tuples(tuple_test(model, split), category_codes(model), lambda f: model.features[f].name)
    expression = emit(model, "sql", dialect=dialect, expression=True)
    assert expression.count(DIALECTS[dialect].keys_written(coded.keys)) == 1  # (at each test: 3)
    rows = tuple_rows(model)
    table = DIALECTS[dialect].identifier("input")
    answers = [answer for (answer,) in query(f"SELECT {expression} FROM {table}", model, rows, engine, **connection)]
    assert answers == [model.predict(row) for row in rows]


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb", "ansi", "postgres", "mysql", "spark"])
def test_a_combined_features_digit_compares_its_text_once(dialect):
    """A tuple split's key reads each combined feature's digit from one simple CASE of its text, not from a test a
    category (MySQL's binary comparison, written a category at a time, made the default CatBoost pairs model's
    expression 24.4 MB, which MariaDB's default max_allowed_packet refuses: 14.0 MB so); every engine runs it in
    test_sql_tests_a_tuple_split_natively_in_every_dialect."""
    from treegen.emit.sql import DIALECTS
    d = DIALECTS[dialect]
    model = tuple_model()
    for sql in (emit(model, "sql", dialect=dialect), emit(model, "sql", dialect=dialect, expression=True)):
        for feature in ("city", "shop"):
            assert sql.count(f"CASE {d.text_key.format(d.identifier(feature))} WHEN ") == 1, (feature, sql)


def test_sqlite_reads_dense_keys_as_a_blobs_bytes():
    """SQLite tests a tuple split's key by the byte at its place in a blob of one byte a key (an IN list seeks an
    index at every row) where the blob's text is at most four times the list's: exact for every key, the first, the
    last, those past the last, and with NOT's form; the list where the keys are sparse."""
    import sqlite3

    from treegen.emit.sql import DIALECTS
    sqlite = DIALECTS["sqlite"]
    connection = sqlite3.connect(":memory:")
    for keys in ([0], [0, 1], [1, 2, 3], [0, 5, 9], [2, 19], list(range(0, 40, 2)), [3, 700]):
        for among in (True, False):
            tests = [sqlite.keys_test(f"(CAST({key} AS INTEGER))", keys, among) for key in range(keys[-1] + 3)]
            answers = connection.execute("SELECT " + ", ".join(f"CASE WHEN {t} THEN 1 ELSE 0 END" for t in tests))
            assert list(answers.fetchone()) == [int((key in keys) == among) for key in range(keys[-1] + 3)], keys
    assert sqlite.keys_test("k", list(range(0, 40, 2))).startswith("substr(X'01000100")
    assert sqlite.keys_test("k", [3, 700]) == "k IN (3, 700)" and DIALECTS["duckdb"].key_bytes is None


def numbered_tuple_model() -> Model:
    """tuple_model() whose city and color categories are numbers ("1", "2", "3"; "10", "20"), as a frame's number
    columns give them, with keys of a missing city (and a missing color: the part's missing child, 0)."""
    model = tuple_model()
    city, color = replace(model.features[0], categories=("1", "2", "3")), replace(model.features[3], categories=("10", "20"))
    split = model.trees[0].nodes[0].split
    split = replace(split, tuples=frozenset({("1", "s", 0, 0), (None, "s", 0, 1), (None, "s", 0, 0), ("2", "t", 1, 0)}),
                    parts=(split.parts[0], replace(split.parts[1], values=("10",))))
    root = replace(model.trees[0].nodes[0], split=split)
    return replace(model, features=(city, *model.features[1:3], color), trees=[Tree([root, *model.trees[0].nodes[1:]])])


def in_split_apart_model() -> Model:
    """An 'in' split on numbered_tuple_model()'s city whose missing values go left and unknown categories right."""
    model = numbered_tuple_model()
    split = Split(0, Op.IN, values=("1",), missing=MissingRoute.to_child(0), unknown=1)
    return replace(model, trees=[Tree([Node((0.0,), split=split, children=(1, 2)), Node((1.5,)), Node((-2.0,))])])


def typed_answers(engine: str, sql: str, rows: list[dict], connection) -> list:
    """The last column ``sql`` answers over a table ``input`` of numbered_tuple_model()'s features in columns of
    their own types, numbers in DOUBLE (NaN and all), texts in text; the rows come back in order, as treegen.run.sql
    takes them."""
    columns = [("city", "DOUBLE"), ("shop", "VARCHAR"), ("x", "DOUBLE"), ("color", "DOUBLE")]
    values = [tuple(row[name] for name, _ in columns) for row in rows]
    if engine == "spark":
        from pyspark.sql.types import DoubleType, StringType, StructField, StructType
        types = {"DOUBLE": DoubleType(), "VARCHAR": StringType()}
        connection.createDataFrame(values, StructType([StructField(n, types[t]) for n, t in columns])
                                   ).createOrReplaceTempView("input")
        try:
            return [row[-1] for row in connection.sql(sql).collect()]
        finally:
            connection.catalog.dropTempView("input")
    if engine == "duckdb":
        import duckdb
        con = duckdb.connect()
    else:
        import psycopg
        con = psycopg.connect(connection, autocommit=True)
    with con:
        cursor = con.cursor()
        typed = ", ".join(f"{n} {'float8' if t == 'DOUBLE' and engine == 'postgres' else t}" for n, t in columns)
        cursor.execute(f"CREATE TEMPORARY TABLE input ({typed})")
        cursor.executemany(f"INSERT INTO input VALUES ({', '.join(['?' if engine == 'duckdb' else '%s'] * 4)})", values)
        cursor.execute(sql)
        return [row[-1] for row in cursor.fetchall()]


def test_a_nan_for_a_nominal_feature_of_numbers_is_missing_in_every_api(tmp_path):
    """A NaN given for a nominal feature whose categories are numbers is a missing value in the walk and in the APIs
    of Python (a dict), JavaScript (an object) and Java (a Map, an Object[]), as Model.predict reads it: through a
    tuple split's place and its 'in' part, and an 'in' split whose missing values and unknown categories go apart."""
    from treegen.run.java import compile_sources
    nan = math.nan
    rows = [{"city": city, "shop": "s", "x": 0.25, "color": color}
            for city in (nan, 1.0, 7.0, None) for color in (nan, 10.0, 5.0, None)]
    for n, model in enumerate((numbered_tuple_model(), in_split_apart_model())):
        want = [model.predict(row) for row in rows]
        assert [value for value, _ in predict_rows(model, rows)] == want
        module: dict = {}
        exec(compile(emit(model, "python"), "model.py", "exec"), module)
        assert [module["predict"](row) for row in rows] == want
        (tmp_path / "model.mjs").write_text(emit(model, "javascript"))
        (tmp_path / "driver.mjs").write_text(f'import {{predict}} from "./model.mjs";\n'
                                             f'console.log(JSON.stringify({json.dumps(rows)}.map(predict)));\n')
        done = subprocess.run(["node", str(tmp_path / "driver.mjs")], capture_output=True, text=True, check=True)
        assert json.loads(done.stdout) == want
        java_rows = ", ".join("{" + ", ".join("null" if v is None else "Double.NaN" if v != v else json.dumps(v)
                                              for v in row.values()) + "}" for row in rows)
        harness = (f"import java.util.*;\npublic class NanHarness{n} {{\n    public static void main(String[] args) {{\n"
                   f"        Object[][] rows = {{{java_rows}}};\n        for (Object[] row : rows) {{\n"
                   "            Map<String, Object> named = new HashMap<>();\n"
                   f"            for (int i = 0; i < row.length; i++) named.put(Numbered{n}.FEATURES.get(i), row[i]);\n"
                   f"            System.out.println(Numbered{n}.predict(named) + \" \" + Numbered{n}.predict(row));\n"
                   "        }\n    }\n}\n")
        directory = compile_sources([emit(model, "java", class_name=f"Numbered{n}"), harness])[0]
        printed = subprocess.run(["java", "-cp", directory, f"NanHarness{n}"], capture_output=True, text=True,
                                 check=True).stdout.splitlines()
        assert printed == [f"{value} {value}" for value in want]


@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "spark"])
def test_a_nan_in_a_number_column_of_a_nominal_feature_is_missing_in_sql(dialect, request, monkeypatch):
    """A NaN in a nominal feature's number column is a missing value, as Model.predict reads NaN (and Python, Java,
    JavaScript and the walk do; CatBoost takes no NaN for a categorical feature): a tuple split's place of a combined
    feature reads missing, not unknown, its 'in' part sends the row to its missing child, and so does an 'in' split
    whose missing values and unknown categories go apart -- in the query and in the expression, nested, as flat
    rules and walked (DuckDB, Spark), in every engine that holds a NaN in its DOUBLE columns."""
    from treegen.emit.sql import DIALECTS
    connection = {"postgres": "postgres_dsn", "spark": "spark"}.get(dialect)
    connection = connection and request.getfixturevalue(connection)
    nan = math.nan
    rows = [{"city": city, "shop": shop, "x": 0.25, "color": color}
            for city in (nan, 1.0, 2.0, 7.0, None) for shop in ("s", "t") for color in (nan, 10.0, 20.0, 5.0, None)]
    for model in (numbered_tuple_model(), in_split_apart_model()):
        want = [model.predict(row) for row in rows]
        assert want != [model.predict({**row, "city": 7.0 if row["city"] != row["city"] else row["city"],
                                       "color": 5.0 if row["color"] != row["color"] else row["color"]})
                        for row in rows]  # (NaN read as an unknown category would answer otherwise)
        d = DIALECTS[dialect]
        walked = [("walk", "rules")] if d.arrays else []  # (the walk takes a tree of more than walk_tree_nodes)
        for strategies in [d.strategies, ("rules",)] + walked:
            monkeypatch.setitem(DIALECTS, dialect, replace(d, strategies=strategies, walk_tree_nodes=0))
            for sql in (emit(model, "sql", dialect=dialect, table="input"),
                        f"SELECT {emit(model, 'sql', dialect=dialect, expression=True)} FROM {d.identifier('input')}"):
                assert typed_answers(d.engine, sql, rows, connection) == want, (strategies, sql)


@pytest.mark.parametrize("dialect", ["sqlite", "duckdb"])
def test_sql_tests_a_tuple_split_in_flat_rules_and_leaf_ids(dialect, monkeypatch):
    """A tree written as its flat rules (below a CASE's nesting, or with fractional routes) tests the split's answer
    and its negation ('tuple', 'not tuple'); its leaf ids, its nested form and its walk (DuckDB) agree with the
    model."""
    from dataclasses import replace
    from treegen.emit.sql import DIALECTS
    from treegen.run.sql import query
    from treegen.walk import leaf_ids_rows
    model = tuple_model()
    split = model.trees[0].nodes[0].split
    nodes = [Node((0.0,), split=split, children=(1, 4)), Node((0.0,), split=split, children=(2, 3)), Node((1.5,)),
             Node((7.0,)), Node((-2.0,))]
    model = Model(model.features, model.target, [Tree(nodes)], numeric=model.numeric)
    rows = tuple_rows(model)
    want = [(model.predict(row), ids) for row, ids in zip(rows, leaf_ids_rows(model, rows))]
    d = DIALECTS[dialect]
    walked = [("walk", "rules")] if d.arrays else []  # (DuckDB walks a tree of more than walk_tree_nodes nodes)
    for strategies in [("rules",), d.strategies] + walked:
        monkeypatch.setitem(DIALECTS, dialect, replace(d, strategies=strategies, walk_tree_nodes=0))
        sql = emit(model, "sql", dialect=dialect, leaf=True)
        assert ('NOT "treegen_tuple0"' in sql) == (strategies == ("rules",))  # (nested: the ELSE is the negation)
        assert ('CASE WHEN "treegen_tuple0" THEN 1 ELSE 2 END' in sql) == ("walk" in strategies)  # its walk's code
        assert [(answer[-2], str(answer[-1])) for answer in query(sql, model, rows, dialect)] == want, strategies
        expression = emit(model, "sql", dialect=dialect, expression=True)
        assert [answer for (answer,) in query(f"SELECT {expression} FROM input", model, rows, dialect)] == [
            value for value, _ in want]


def test_the_probes_hold_a_tuple_split_parts_cuts_and_their_neighbours():
    """verify's probes test every threshold one ulp either side: a tuple split's '<=' parts' too."""
    from treegen.probes import boundary_values
    model = tuple_model()
    cut = model.numeric.effective_threshold(0.5)
    assert {0.5, math.nextafter(0.5, 1), cut, math.nextafter(cut, 2)} <= set(boundary_values(model)[2])
