"""Rule text: readable, parsed back by the Lark grammar into a model that predicts identically."""
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
from dataclasses import replace

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from cli_in_process import treegen_cli
from treegen import modelio
from treegen.data import load_dataset
from treegen.targets import emit
from treegen.errors import TreegenError
from treegen.learn import fit
from treegen.model import (CLASSIFICATION, NOMINAL, NUMERIC, Combine, CombineKind, Decision, Feature, Linear,
                           MissingRoute, Model, Node, NumericSemantics, Op, Precision, Route, Split, Target, Tree,
                           listed)
from treegen.cli import main
from treegen.loading import load_model
from treegen.lower import lower_tree
from treegen.parse.grammar_terminals import grammar_text, read_terminals
from treegen.parse.rule_lines import read_lines, terminals
from treegen.parse.rule_grammar import lark_terminals, parser
from treegen.parse.rule_text import _as_written, parse
from treegen.probes import probe_rows
from treegen.show import FLOAT32_NOTE, show
from treegen.testing import (HOSTILE_NAMES, chain_model, random_model, random_rows, wide_model, with_label_values,
                             with_linear_leaves)

names = st.text(min_size=1, max_size=12)


def assert_same_predictions(model, again, rows):
    for row in rows:
        assert again.scores(row) == model.scores(row)
        assert again.predict(row) == model.predict(row)


def test_tennis_rules_read_like_rules():
    model = fit(load_dataset("examples/play_tennis.csv"), "id3")
    text = emit(model, "rules")
    assert 'rule 3: if outlook = "sunny" and humidity = "high" then "no"  # n 3.0: no 3.0, yes 0.0' in text
    assert "default: \"yes\"" in text
    assert_same_predictions(model, parse(text), probe_rows(model))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), regression=st.booleans(), trees=st.integers(1, 3),
       combine=st.sampled_from(["average", "sum"]))
def test_round_trip_of_random_models(seed, regression, trees, combine):
    model = random_model(seed, regression=regression, n_trees=trees)
    if trees > 1 and combine == "sum":
        from treegen.model import Combine
        model.combine = Combine("sum", init=tuple(0.5 for _ in range(model.target.width)), scale=0.1,
                                link="identity")
    text = emit(model, "rules")
    assert emit(model, "rules") == text  # deterministic
    assert_same_predictions(model, parse(text), random_rows(model, 40, seed) + probe_rows(model, 200))


@settings(max_examples=60, deadline=None)
@given(feature_names=st.lists(names, min_size=5, max_size=5, unique=True),
       labels=st.lists(st.text(max_size=8), min_size=3, max_size=3, unique=True),
       seed=st.integers(0, 1000))
def test_any_names_and_labels_round_trip(feature_names, labels, seed):
    model = random_model(seed, names=feature_names, classes=labels)
    again = parse(emit(model, "rules"))
    assert [f.name for f in again.features] == feature_names and list(again.target.classes) == labels
    assert_same_predictions(model, again, random_rows(model, 30, seed))


def test_hostile_names_round_trip():
    model = random_model(7, names=HOSTILE_NAMES[:5], classes=tuple(HOSTILE_NAMES[5:8]))
    text = emit(model, "rules")
    assert all("\n" not in line for line in text.split("\n"))
    assert_same_predictions(model, parse(text), random_rows(model, 50, 7))


def test_float32_and_tolerance_semantics_survive():
    from treegen.model import NumericSemantics
    for semantics in (NumericSemantics(cast="float32"), NumericSemantics(tolerance=1e-6)):
        model = random_model(11, numeric=semantics)
        again = parse(emit(model, "rules"))
        assert again.numeric == semantics
        assert_same_predictions(model, again, probe_rows(model))


def test_big_trees_round_trip():
    deep = chain_model(10_000)
    assert parse(emit(deep, "rules")).predict({"x": 9_998.5}) == deep.predict({"x": 9_998.5})
    wide = wide_model(5_000)
    assert_same_predictions(wide, parse(emit(wide, "rules")), random_rows(wide, 200, 1))


def tennis_text():
    return emit(fit(load_dataset("examples/play_tennis.csv"), "id3"), "rules")


@pytest.mark.parametrize("edit,message,line", [
    (lambda t: t.replace("features", "featurez", 1), "expected 'features', found 'featurez'", 5),
    (lambda t: t.replace('humidity = "high" then "no"', 'humidity = "high" then "yes"'),
     "rule 3 does not match the nodes section", 18),
    (lambda t: t.replace("node 2: leaf", "node 9: leaf"), "node ids must count", 29),
    (lambda t: t.replace("missing stop; value [0.6", "missing to 7; value [0.6"), "not one of its children", 27),
    (lambda t: t.replace('outlook: nominal {"sunny"', 'outlook: nominal {"sunny'), "unexpected 'overcast'", 6),
    (lambda t: t.replace("format 1", "format 2"), "unsupported rules format 2", 1),
])
def test_malformed_rule_text_points_at_the_line(edit, message, line):
    with pytest.raises(TreegenError) as err:
        parse(edit(tennis_text()), "tennis.rules")
    assert message in err.value.message
    assert (err.value.file, err.value.line) == ("tennis.rules", line)


def test_the_last_line_needs_no_newline():
    text = tennis_text()
    model = parse(text.rstrip("\n"), "tennis.rules")
    assert model.trees[0].nodes == parse(text).trees[0].nodes


@pytest.mark.parametrize("edit,message,line", [
    (lambda t: t.replace("numbers: float64", "numbers: float64 scale"),
     "unexpected 'scale'; expected one of: 'strict', 'tolerance', 'zero', end of line", 11),
    (lambda t: t.replace('outlook: nominal {"sunny", ', 'outlook: nominal {"sunny"\n'),
     "unexpected end of line; expected one of: ',', '}'", 6),
    (lambda t: t[:t.index("features")], "unexpected end of file; expected one of: 'features'", 4),
    # what the parser takes at that place, not the lookahead its state shares with other places (which listed
    # ')', '*', '+', ',', ';', '<', '?', ']' -- 8 of them, and cut what did belong there)
    (lambda t: t.replace("n 3.0; counts", "n 3.0.5; counts", 1), "unexpected '.5'; expected one of: ';', end of line",
     28),
    (lambda t: t.replace('value [0.6, 0.4]', 'value [0.6 0.4]', 1), "unexpected '0.4'; expected one of: ',', ']'", 27),
    (lambda t: t.replace('then "no"', 'then "no" "yes"', 1), "unexpected '\"yes\"'; expected one of: end of line", 17),
])
def test_messages_name_no_grammar_token(edit, message, line):
    with pytest.raises(TreegenError) as err:
        parse(edit(tennis_text()), "tennis.rules")
    assert (err.value.message, err.value.line) == (message, line)
    assert "_NL" not in err.value.message and "$END" not in err.value.message


@pytest.mark.parametrize("written,typo,message", [
    ("rule 3: if outlook", "rule 3: iff outlook", "expected 'if', found 'iff'"),  # 'if' then a name 'f', once
    ("rule 3: if outlook", "rule 3: fi outlook", "expected 'if', found 'fi'"),
    ('"sunny" and humidity = "high"', '"sunny" adn humidity = "high"', "expected 'and', found 'adn'"),
    ("nodes  #", "nodez  #", "expected 'nodes', found 'nodez'"),
    ("numbers: float64", "numbers: float64 tolerence 0.5", "expected 'tolerance', found 'tolerence'"),
    ("numbers: float64", "numbers: flaot64", "expected 'float64', found 'flaot64'"),  # a word of CAST's
    ("numbers: float64", "numbers: Float32", "expected 'float32', found 'Float32'"),  # the same but for case
    ("missing stop; value [0.6", "missing stops; value [0.6", "expected 'stop', found 'stops'"),
    ("missing stop; value [0.6", "missing weight [0.5, 0.5]; value [0.6", "expected 'weights', found 'weight'"),
    ("rule 3: if outlook", "rule 3: when outlook", "unexpected 'when'; expected one of: 'always', 'if'"),
])
def test_a_misspelt_keyword_is_named_at_its_place(written, typo, message):
    """Where only keywords may stand, a word that is none of them is the mistake, however it begins."""
    text = tennis_text().replace(written, typo, 1)
    word = next(w for w in typo.split() if w not in written.split())
    line, line_text = next((i, l) for i, l in enumerate(text.split("\n"), 1) if typo in l)
    column = line_text.index(typo) + typo.index(word) + 1
    result, path = parse_command(text)
    assert (result.exit_code, result.stderr) == (2, f"treegen: error: {path}:{line}:{column}: {message}\n")


def test_a_text_cut_short_in_its_nodes_names_the_first_node_missing():
    text = tennis_text()  # node 0 goes to 1, 4 and 5; node 1 to 2 and 3
    result, path = parse_command(text[:text.index("  node 3:")])
    assert (result.exit_code, result.stderr) == (
        2, f"treegen: error: {path}:{line_of(text, 'node 1:')}: the text ends before node 3, which node 1 refers to\n")


def test_a_tree_whose_last_nodes_are_gone_names_the_first_node_missing():
    model = fit(load_dataset("examples/play_tennis.csv"), "id3")
    text = emit(replace(model, trees=model.trees * 2, combine=Combine(CombineKind.AVERAGE)), "rules")
    first_tree = text[:text.index("\ntree 2")]
    cut = first_tree[:first_tree.index("  node 6:")] + text[len(first_tree) + 1:]  # tree 1's nodes 6 and 7
    result, path = parse_command(cut)
    line = line_of(text, "node 5:")
    assert (result.exit_code, result.stderr) == (
        2, f"treegen: error: {path}:{line}: the tree's nodes end before node 6, which node 5 refers to\n")


def test_missing_weights_one_short_of_the_children_say_so():
    text = emit(fit(load_dataset("examples/weather.numeric.arff"), "c45"), "rules")
    written = "missing weights [0.4, 0.6]; value [0.4, 0.6]"  # node 1's, two children
    assert text.count(written) == 1
    result, path = parse_command(text.replace(written, "missing weights [0.4]; value [0.4, 0.6]"))
    assert (result.exit_code, result.stderr) == (
        2, f"treegen: error: {path}:{line_of(text, 'node 1:')}: trees[0].nodes[1].split.missing.weights: "
           "the node has 2 children but 1 weight\n")


def test_a_nan_node_value_is_refused_at_its_line():
    text = tennis_text()
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "node 2: leaf; value [" in l)
    bad = text.replace("node 2: leaf; value [1.0, 0.0]", "node 2: leaf; value [nan, 0.0]")
    assert bad != text
    with pytest.raises(TreegenError) as err:
        parse(bad, "tennis.rules")
    assert err.value.line == line and "trees[0].nodes[2].value" in err.value.message, str(err.value)


@pytest.mark.parametrize("target", ["rules", "dot"])
def test_options_a_target_does_not_take_are_named(target):
    model = fit(load_dataset("examples/play_tennis.csv"), "id3")
    with pytest.raises(TreegenError, match=f"the {target} target takes no option leaf, proba"):
        emit(model, target, proba=True, leaf=True)


# -- malformed strings and numbers: one line, FILE:LINE:COLUMN, exit 2 --------------------------------

def parse_command(text: str):
    """`treegen parse` of a file holding ``text`` (encoded as is, even a lone surrogate), as the CLI
    runs it: (click's result, the file's path)."""
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m.rules")
        with open(path, "wb") as f:
            f.write(text.encode("utf-8", "surrogatepass"))
        result = CliRunner().invoke(main, ["parse", path, "-o", os.path.join(folder, "m.json")],
                                    catch_exceptions=False)
    return result, path


def assert_parsed_or_one_located_line(text: str):
    result, path = parse_command(text)
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert re.fullmatch(rf"treegen: error: {re.escape(path)}:\d+(:\d+)?: \S.*", lines[0]), result.stderr
    return result


def assert_readers_agree(text: str):
    """Whatever the fast reader of the writer's layout accepts, the grammar accepts too, into the same
    document (so the grammar alone decides what rule text is)."""
    text = text if text.endswith("\n") else text + "\n"
    fast = read_lines(text)
    if fast is not None:
        assert repr(fast) == repr(parser().parse(text))


def outlook_line(text: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.startswith("  outlook: nominal"))


@pytest.mark.parametrize("written,message,offset", [
    (r'"\q"', r"invalid escape \q in a quoted string; the escapes are", 1),
    (r'"ab\u12"', r"\u needs four hexadecimal digits in a quoted string", 3),
    ('"a\tb"', r"a tab in a quoted string; write it as \t", 2),
    ('"a\rb"', r"a carriage return in a quoted string; write it as \r", 2),
    ('"\x01"', r"control character U+0001 in a quoted string; write it as \u0001", 1),
    (r'"\ud800"', r"\ud800 is a lone surrogate, not a character (a pair needs \udc00-\udfff after it)", 1),
    (r'"x\ud800\u0041"', r"\ud800 is a lone surrogate", 2),
    (r'"\udc00"', r"\udc00 is a lone surrogate, not a character (it may only follow \ud800-\udbff)", 1),
    ('"sunny, "overcast"', "unexpected 'overcast'", 9),  # the string closed early: the next word is wrong
])
def test_a_malformed_string_is_named_at_its_character(written, message, offset):
    text = tennis_text()
    line = outlook_line(text)
    column = text.split("\n")[line - 1].index('"sunny"') + 1
    with pytest.raises(TreegenError) as err:
        parse(text.replace('"sunny"', written, 1), "tennis.rules")
    assert err.value.message.startswith(message), err.value.message
    assert (err.value.file, err.value.line, err.value.column) == ("tennis.rules", line, column + offset)


def test_a_string_that_does_not_end_is_named_at_its_quote():
    text = tennis_text().replace('outlook: nominal {"sunny", "overcast", "rain"}', 'outlook: nominal {"sunny')
    with pytest.raises(TreegenError) as err:
        parse(text, "tennis.rules")
    assert (err.value.message, err.value.line, err.value.column) == (
        "a quoted string that does not end on its line", outlook_line(text), 21)


def test_a_pair_of_surrogate_escapes_is_one_character():
    text = tennis_text().replace('"sunny"', r'"\ud83c\udf1e"')
    assert parse(text).features[0].categories[0] == "\U0001f31e"


def test_the_issues_strings_end_the_command_in_one_line(tmp_path):
    """The issue's cases, as a user's shell sees them: exit 2 and one line, no traceback."""
    for i, written in enumerate([r'"\q"', r'"\u12"', '"a\tb"', '"a\rb"', r'"\ud800"']):
        path = tmp_path / f"bad{i}.rules"
        path.write_bytes(tennis_text().replace('"sunny"', written).encode("utf-8"))
        result = subprocess.run([sys.executable, "-m", "treegen", "parse", str(path)], capture_output=True,
                                text=True, encoding="utf-8")
        assert result.returncode == 2 and result.stdout == "", result.stderr
        where = f"{re.escape(str(path))}:{outlook_line(tennis_text())}:\\d+"
        assert re.fullmatch(rf"treegen: error: {where}: [^\n]*\n", result.stderr), result.stderr


def test_a_whole_number_of_many_digits_is_refused_at_its_place():
    text = tennis_text().replace("node 3: leaf", "node " + "3" * 5000 + ": leaf")
    with pytest.raises(TreegenError) as err:
        parse(text, "tennis.rules")
    assert err.value.message.startswith("333333333333333333... has 5000 digits; a whole number here has at most 18")
    assert (err.value.line, err.value.column) == (text.split("\n").index("  node " + "3" * 5000 + ": leaf; value [0.0, 1.0]; n 2.0; counts [0.0, 2.0]") + 1, 8)


def boosted_example() -> Model:
    """A model that uses every field boosting libraries need, for the fuzzers: its rules name unknown
    categories in several ways."""
    model = random_model(3, n_trees=3, max_depth=3)
    model.numeric = NumericSemantics("float32", 0.0, True, 1.0000000180025095e-35)
    model.features = tuple(replace(f, missing_interval=(-1.0, 0.5)) if f.is_numeric else f for f in model.features)
    model.combine = Combine("sum", (0.5, 0.0, -0.5), 0.3, "softmax", 1.5, "float32", 2.0, True, "weka")
    for k, tree in enumerate(model.trees):
        tree.weight = 0.5
        for node in tree.nodes:
            if node.split is not None and node.split.op == Op.IN and node.split.missing.kind == Route.CHILD:
                node.split = replace(node.split, unknown=(k + 1) % 2)
    model.trees[2] = Tree([replace(node, value=(node.value[1],)) for node in model.trees[2].nodes], 1, 2.0)
    return model


# Rule files with strings, numbers and whole numbers; one with no string at all (no nominal feature); one
# with every field of a boosted model.
FUZZED_TEXTS = [emit(random_model(3, n_trees=2), "rules"), emit(random_model(4, n_nominal=0, regression=True), "rules"),
                emit(boosted_example(), "rules")]
# Where each text has a string, a number or a whole number (names and keywords are left alone).
TOKENS = [(text, m.span()) for text in FUZZED_TEXTS
          for m in re.finditer(r'"(?:[^"\\\n]|\\.)*"|[+-]?\d[\w.+-]*|\b(?:inf|nan)\b', text)]
STRING_PARTS = st.sampled_from(['\\', '"', 'u', 'd', '8', '0', 'c', 'F', 'n', 't', '/', '\t', '\r', '\x01',
                                '\x7f', 'é', ' ', '#', '\ud800', '\udc00', '\u2028', '\n']) | st.characters()
NUMBER_PARTS = st.sampled_from(list("0123456789.eE+-infa_x "))


@settings(max_examples=300, deadline=None)
@given(where=st.sampled_from(TOKENS), inside=st.text(STRING_PARTS, max_size=8))
def test_any_quoted_string_parses_or_is_one_located_line(where, inside):
    original, (start, end) = where
    text = original[:start] + '"' + inside + '"' + original[end:]
    assert_parsed_or_one_located_line(text)
    assert_readers_agree(text)


@settings(max_examples=300, deadline=None)
@given(where=st.sampled_from(TOKENS), written=st.text(NUMBER_PARTS, min_size=1, max_size=8))
def test_any_number_like_token_parses_or_is_one_located_line(where, written):
    original, (start, end) = where
    text = original[:start] + written + original[end:]
    assert_parsed_or_one_located_line(text)
    assert_readers_agree(text)


def exported_texts() -> list[str]:
    """Rule files as the writer writes them, of every kind of model and split."""
    from treegen.model import Combine
    boosted = random_model(9, regression=True, n_trees=2)
    boosted.combine = Combine("sum", init=(0.5,), scale=0.1, link="identity")
    models = [fit(load_dataset("examples/play_tennis.csv"), "c45"), fit(load_dataset("examples/play_tennis.csv"), "cart"),
              random_model(3, n_trees=3), random_model(5, regression=True), boosted, chain_model(30),
              random_model(4, n_nominal=0),
              random_model(7, names=HOSTILE_NAMES[:5], classes=tuple(HOSTILE_NAMES[5:8])), boosted_example()]
    return [emit(model, "rules") for model in models]


EXPORTED = exported_texts()
EDIT_CHARACTERS = st.sampled_from(['"', "\\", "\t", "\r", "\n", " ", "  ", "#", "0", "9", ".", "-", "e", "x",
                                   "{", "}", ",", ";", ":", "[", "]", "(", ")", "\x00", "é", "\ud800", "and"])


@st.composite
def mutated_rule_file(draw):
    """An exported rule file, then cut, a line duplicated, swapped or deleted, or a character changed
    or inserted; once or a few times."""
    text = draw(st.sampled_from(EXPORTED))
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
        edit = draw(st.sampled_from(["cut", "duplicate", "swap", "delete", "change", "insert"]))
        if edit == "cut":
            text = text[:draw(st.integers(0, len(text)))]
            continue
        if edit == "duplicate":
            lines.insert(i, lines[j])
        elif edit == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        elif edit == "delete":
            del lines[i]
        else:
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(EDIT_CHARACTERS) + lines[i][at + (edit == "change"):]
        text = "\n".join(lines)
    return text


@settings(max_examples=400, deadline=None)
@given(text=mutated_rule_file())
def test_a_mutated_rule_file_parses_or_is_one_located_line(text):
    assert_parsed_or_one_located_line(text)
    assert_readers_agree(text)


# -- the fast reader of the writer's layout ---------------------------------------------------------

def test_every_text_the_writer_writes_takes_the_fast_reader():
    """Big files are read fast only if the writer's whole layout is the fast reader's, and their rules
    compared as the writer writes them, not read condition by condition."""
    for text in EXPORTED + [emit(wide_model(300), "rules"), emit(random_model(11, n_trees=2, regression=True), "rules")]:
        fast = read_lines(text)
        assert fast is not None and repr(fast) == repr(parser().parse(text))
        assert_read_as_written(text)


def assert_read_as_written(text: str):
    """The text's rules are what the writer writes for its nodes: the model comes without reading them
    (and without the grammar's parser, whose tables take most of a small file's time to build), the
    same model as from reading them. (The parser is not asked for at all: counted by its cache, not cleared for
    the check, which made each call build its tables again, ~0.08 s.)"""
    asked = parser.cache_info()
    model, as_written = _as_written(text, "x")
    assert parser.cache_info()[:2] == asked[:2]  # (hits, misses)
    read = parse(text.replace("  rule 1: ", "  rule 1:  ", 1))  # not the writer's layout: read whole
    assert as_written and modelio.dumps(model) == modelio.dumps(read)


def test_an_export_is_read_without_importing_lark(tmp_path):
    """The reader of the writer's layout takes the grammar's terminals from the grammar file itself: Lark (50-60 ms
    of a `treegen parse` to import and compile the grammar) is imported for text in another layout only."""
    path = tmp_path / "m.rules"
    path.write_text(emit(random_model(3, n_trees=2), "rules"), encoding="utf-8")
    program = ("import sys; from treegen.parse.rule_text import load; load(sys.argv[1]); "
               "print(sorted(name for name in sys.modules if name.split('.')[0] == 'lark'))")
    result = subprocess.run([sys.executable, "-c", program, str(path)], capture_output=True, text=True, check=True,
                            env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))})
    assert result.stdout.strip() == "[]"


def test_the_grammar_files_terminals_read_without_lark_are_larks():
    """Every terminal's pattern as grammar_terminals reads it from rule_text.lark is the one Lark compiles (a
    choice of words longest first, Python's escapes of a pattern made characters), and the words the lexer may
    read other than as a name are Lark's: the fast reader accepts what it did with Lark's."""
    read, compiled = read_terminals(grammar_text()), lark_terminals()
    assert read is not None  # (else the fast reader would take Lark's, and import Lark for every text)
    assert read.named == {name: compiled.named[name] for name in read.named}
    assert {"WORD", "STRING", "NUMBER", "INT", "CODES", "CAST", "LINK", "DECISION"} <= set(read.named)
    assert sorted(read.others) == sorted(compiled.others)
    assert read_terminals(grammar_text()) == terminals()


@pytest.mark.parametrize("grammar", ['start: "a"\nX: "a" "b"\n', 'start: X\nX: /a/i\n', 'start: X\nX: Y | "b"\n',
                                     'start: /x/ X\nX: "a"\n', 'start: "\\n"\n', '%import common.WORD\nstart: WORD\n'])
def test_a_grammar_of_other_terminals_is_left_to_lark(grammar):
    """A terminal this reader does not know (a sequence, a flag, another terminal, a pattern in a rule, an escape
    in a string, an import) gives no terminals at all, rather than other patterns than Lark's."""
    assert read_terminals(grammar) is None


def test_rules_written_otherwise_are_read_and_compared_condition_by_condition():
    """A rule written in other words than the writer's (a number spelled otherwise, a comment of one's
    own) is not the writer's line: the rules are read and compared by what they say, and either the
    model or the rule that disagrees with the nodes comes out."""
    text = emit(wide_model(40), "rules")
    line = next(line for line in text.splitlines() if line.startswith("  rule 7: "))
    number = re.search(r"<= (-?\d+\.\d+)", line).group(1)
    for edited in (line.replace(f"<= {number}", f"<= {number}0"), line.split("  #")[0] + "  # mine"):
        again = text.replace(line, edited)
        assert not _as_written(again, "x")[1]  # (its model built from its nodes, which the rules are then read for)
        assert modelio.dumps(parse(again)) == modelio.dumps(parse(text))
    wrong = text.replace(line, line.replace(f"<= {number}", f"<= {float(number) + 1}"))
    with pytest.raises(TreegenError, match="rule 7 does not match the nodes section"):
        parse(wrong)


def test_another_layout_is_read_by_the_grammar_to_the_same_model():
    text = tennis_text()
    edited = (text.replace("rule 1: if", "rule 1 :\tif").replace("node 0: ", "node 0 :  ")
              .replace("features\n", "\n# a comment of mine\nfeatures   # and another\n"))
    assert read_lines(edited) is None
    assert parse(edited).trees[0].nodes == parse(text).trees[0].nodes


# -- meta ---------------------------------------------------------------------------------------------

def test_parse_keeps_the_meta_the_writer_writes():
    model = fit(load_dataset("examples/play_tennis.csv"), "c45")
    again = parse(emit(model, "rules"))
    assert again.meta == {k: v for k, v in model.meta.items() if isinstance(v, (str, int, float))}
    assert again.meta["algorithm"] == "c45" and "params" not in again.meta  # a dict is not written
    assert show(again).startswith("c45 tree: 8 nodes")


def test_a_comment_of_a_persons_in_the_header_is_no_trouble():
    text = tennis_text().replace("features\n", "# note: " + "7" * 5000 + "\n# \\q: x\n# just words\nfeatures\n", 1)
    assert parse(text).meta == {"algorithm": "id3"}


META_VALUES = (st.text(max_size=8) | st.integers(-10**20, 10**20) | st.floats(allow_nan=True) | st.booleans()
               | st.sampled_from(["3", "-1.5e3", "true", "NaN", '"q"', "a: b", ""]))


@settings(max_examples=100, deadline=None)
@given(meta=st.dictionaries(st.text(max_size=8) | st.sampled_from(['"k', "a: b", "x:", " k"]), META_VALUES, max_size=5))
def test_any_scalar_meta_round_trips(meta):
    model = random_model(1)
    model.meta = meta
    again = parse(emit(model, "rules"))
    assert json.dumps(again.meta, sort_keys=True) == json.dumps(meta, sort_keys=True)
    assert {k: type(v) for k, v in again.meta.items()} == {k: type(v) for k, v in meta.items()}


# -- a file that is neither a model nor rule text ------------------------------------------------------

@pytest.mark.parametrize("content", [b"hello world\n", b"a,b\n1,2\n", b"", b"\n# only a comment\n",
                                     b"PK\x03\x04\x00\xff\xfe binary"])
def test_show_says_a_file_is_neither_a_model_nor_rule_text(tmp_path, content):
    path = tmp_path / "random.txt"
    path.write_bytes(content)
    result = CliRunner().invoke(main, ["show", str(path)], catch_exceptions=False)
    assert result.exit_code == 2
    where = f"{path}:1" if b"\xff" in content else f"{path}" + ("" if content else ": an empty file")
    expected = (f"treegen: error: {where}: neither a treegen model (JSON) nor rule text "
                '(a file of rule text begins with "treegen rules, format 1")')
    assert result.stderr == expected + (": it is not UTF-8 text\n" if b"\xff" in content else "\n")


def test_rule_text_and_json_read_from_standard_input_as_from_a_file(tmp_path):
    """Standard input was read as text by Python: a byte order mark made a rule file or a JSON model "neither a
    treegen model (JSON) nor rule text", and so did UTF-16; a byte that is not UTF-8 was "a lone surrogate
    U+DCFF in a quoted string". A rule file with such a byte was "neither", from a file too."""
    text = tennis_text()
    bom = "\ufeff" + text
    json_bom = "\ufeff" + modelio.dumps(parse(text))
    bad = text.encode().replace(b'"high"', b'"h\xffgh"', 1)
    line = text[:text.index('"high"')].count("\n") + 1
    path = tmp_path / "bad.rules"
    path.write_bytes(bad)
    runs = {"bom": ["show", "-"], "json": ["show", "-"], "utf16": ["show", "-"], "bad": ["show", "-"],
            "bad file": ["show", str(path)]}
    inputs = {"bom": bom.encode(), "json": json_bom.encode(), "utf16": text.encode("utf-16"), "bad": bad, "bad file": b""}
    results = {name: CliRunner().invoke(main, args, input=inputs[name], catch_exceptions=False)
               for name, args in runs.items()}
    assert results["bom"].exit_code == results["json"].exit_code == 0
    assert results["bom"].stdout == results["json"].stdout == show(parse(text)) + "\n"
    assert results["utf16"].stderr == ("treegen: error: -:1: cannot read model: UTF-16 text, not UTF-8; convert it "
                                       "first, e.g. through iconv -f utf-16 -t utf-8\n")
    assert results["bad"].stderr == (f"treegen: error: -:{line}: cannot read model: not UTF-8 text; convert it first, "
                                     "e.g. through iconv -f cp1252 -t utf-8\n")
    assert results["bad file"].stderr.startswith(f"treegen: error: {path}:{line}: cannot read model: not UTF-8 text")
    assert all(result.exit_code == 2 for name, result in results.items() if "bad" in name or name == "utf16")


def test_a_rule_file_with_a_mistake_on_its_first_line_is_still_rule_text(tmp_path):
    path = tmp_path / "t.rules"
    path.write_text(tennis_text().replace("format 1", "format one"), encoding="utf-8")
    result = CliRunner().invoke(main, ["show", str(path)], catch_exceptions=False)
    assert (result.exit_code, result.stderr) == (
        2, f"treegen: error: {path}:1:23: unexpected 'one'; expected one of: a whole number\n")


# -- what boosting libraries compute: every new field of the model, held exactly --------------------

def edge_values(model) -> list[float]:
    """Numbers where the new semantics turn: the ends of each missing interval and of the zero band,
    one ulp either side, and zeros of both signs."""
    values = {0.0, -0.0}
    ends = [end for f in model.features if f.missing_interval for end in f.missing_interval]
    ends += [model.numeric.zero_band, -model.numeric.zero_band]
    for end in ends:
        values.update((end, math.nextafter(end, -math.inf), math.nextafter(end, math.inf)))
    return sorted(values)


def rows_for(model, seed: int) -> list[dict]:
    """Random rows (unknown categories and missing values among them), then each with one numeric
    value moved onto an edge of the new semantics."""
    rng = random.Random(seed)
    rows = random_rows(model, 60, seed) + probe_rows(model, 200, aimed=200)
    numeric = [f.name for f in model.features if f.is_numeric]
    edges = edge_values(model)
    return rows + [{**row, rng.choice(numeric): rng.choice(edges)} for row in rows]


def per_output(tree: Tree, output: int) -> Tree:
    """The tree as a boosting library writes one: adding to one raw sum, one number a node."""
    return Tree([replace(node, value=(node.value[output],)) for node in tree.nodes], output, tree.weight)


@st.composite
def boosted_models(draw):
    """A random model (every split kind and missing route) with random values of every field a boosting
    library's model needs: comparisons, missing intervals, combine, per-output and weighted trees,
    routes for unknown categories."""
    regression = draw(st.booleans())
    trees = draw(st.integers(1, 3))
    model = random_model(draw(st.integers(0, 10**6)), regression=regression, n_trees=trees, max_depth=4)
    model.numeric = NumericSemantics(draw(st.sampled_from(["float64", "float32"])), draw(st.sampled_from([0.0, 1e-6])),
                                     draw(st.booleans()), draw(st.sampled_from([0.0, 1.0000000180025095e-35, 0.5])))
    interval = st.sampled_from([(-1.0000000180025095e-35, 1.0000000180025095e-35), (0.0, 0.0), (-999.0, -999.0),
                                (-1.0, 2.5), (0.5, 0.5)])
    model.features = tuple(replace(f, missing_interval=draw(st.none() | interval)) if f.is_numeric else f
                           for f in model.features)
    for tree in model.trees:
        tree.weight = draw(st.sampled_from([1.0, 0.5, 0.3, 2.0]))
        for node in tree.nodes:
            if node.split is not None and node.split.op == Op.IN and node.split.missing.kind == Route.CHILD:
                node.split = replace(node.split, unknown=draw(st.none() | st.integers(0, 1)))
    width = model.target.width
    kind = draw(st.sampled_from(["single", "average", "sum"] if trees == 1 else ["average", "sum"]))
    links = ["identity", "exp", "sign_square"] + ([] if regression else ["sigmoid", "softmax"])
    extras = {"link": draw(st.sampled_from(links)), "link_scale": draw(st.sampled_from([1.0, 0.5, 2.0])),
              "precision": draw(st.sampled_from(list(Precision))), "divisor": draw(st.sampled_from([1.0, 3.0, 0.5])),
              "decide": draw(st.none() | st.sampled_from(list(Decision)))}
    if kind == "sum":
        model.combine = Combine("sum", tuple(draw(st.sampled_from([0.0, 0.5, -1.25])) for _ in range(width)),
                                draw(st.sampled_from([1.0, 0.1, 0.3])), init_last=draw(st.booleans()), **extras)
        model.trees = [per_output(tree, k % width) if draw(st.booleans()) else tree
                       for k, tree in enumerate(model.trees)]
    else:
        model.combine = Combine(kind, **extras)
        if not regression and draw(st.booleans()):  # labels decided on sums of their own (J48 -A)
            model = with_label_values(model, draw(st.integers(0, 10**6)))
    return model


@st.composite
def linear_models(draw):
    """A boosted model (:func:`boosted_models`) with linear leaves wherever a model may hold them."""
    return with_linear_leaves(draw(boosted_models()), draw(st.integers(0, 10**6)))


def assert_same_model(model, again, rows):
    assert modelio.dumps(again) == modelio.dumps(model)
    for row in rows:  # repr: NaN and infinities compare too
        assert repr(again.scores(row)) == repr(model.scores(row)), row
        assert repr(again.predict(row)) == repr(model.predict(row)), row


@pytest.mark.slow
@settings(max_examples=80, deadline=None)
@given(model=boosted_models(), seed=st.integers(0, 1000))
def test_every_field_of_a_boosted_model_round_trips(model, seed):
    text = emit(model, "rules")
    fast = read_lines(text)
    assert fast is not None and repr(fast) == repr(parser().parse(text))  # the writer's layout: the fast reader
    assert_same_model(model, parse(text), rows_for(model, seed))
    assert_read_as_written(text)


@settings(max_examples=60, deadline=None)
@given(model=linear_models(), seed=st.integers(0, 1000))
def test_linear_leaves_round_trip(model, seed):
    """Linear leaves read back from their nodes (``linear const + coeff * name ...``), and each rule of
    a regression model shows its leaf's sum and plain value, which the reader checks."""
    text = emit(model, "rules")
    assert_same_model(model, parse(text), rows_for(model, seed))
    ruled = [(t, r.node) for t in model.trees for r in lower_tree(model, t).rules]  # (a leaf may have no rule)
    linear = [node for t, node in ruled if t.nodes[node].linear is not None and t.nodes[node].linear.terms]
    if linear and not model.target.is_classification:
        assert any(" else " in line for line in text.splitlines() if line.lstrip().startswith("rule "))


def test_a_rule_that_does_not_show_its_linear_leaf_is_refused():
    model = with_linear_leaves(random_model(4, regression=True, n_trees=1, max_depth=3), 1)
    numeric = next(i for i, f in enumerate(model.features) if f.is_numeric)
    leaf = next(n for n in model.trees[0].nodes if n.is_leaf)
    leaf.linear = Linear(0.5, ((numeric, 2.0),))
    text = emit(model, "rules")
    rule = next(line for line in text.splitlines() if " else " in line)
    edited = text.replace(rule, rule.replace(" else ", " + 1.0 * " + model.features[0].name + " else ", 1))
    with pytest.raises(TreegenError, match="does not match the nodes section"):
        parse(edited)


@settings(max_examples=15, deadline=None)
@given(model=boosted_models())
def test_verify_to_rules_passes_on_boosted_models(model, tmp_path_factory):
    path = tmp_path_factory.mktemp("boosted") / "m.json"
    modelio.save(model, str(path))
    result = CliRunner().invoke(main, ["verify", str(path), "--to", "rules"], catch_exceptions=False)
    assert result.exit_code == 0 and "rules" in result.output and " ok " in result.output, result.output


def colour_tree(root_missing: int, root_unknown, inner_missing: int, inner_unknown) -> Tree:
    """color in {"red"} ? (color in {"green"} ? leaf : leaf) : (size <= 2.5 ? leaf : leaf), missing values
    and unknown categories going to the children given: the inner test on color meets the outer one, so
    their factors multiply."""
    return Tree([Node((0.5, 0.5), split=Split(0, Op.IN, values=("red",), missing=MissingRoute.to_child(root_missing),
                                              unknown=root_unknown), children=(1, 4)),
                 Node((0.4, 0.6), split=Split(0, Op.IN, values=("green",), missing=MissingRoute.to_child(inner_missing),
                                              unknown=inner_unknown), children=(2, 3)),
                 Node((1.0, 0.0)), Node((0.0, 1.0)),
                 Node((0.3, 0.7), split=Split(1, Op.LE, threshold=2.5, missing=MissingRoute.to_child(1)),
                      children=(5, 6)),
                 Node((0.9, 0.1)), Node((0.2, 0.8))])


def colour_model() -> Model:
    """Trees whose rules speak of unknown categories in every way the lowering gives."""
    color = Feature("color", NOMINAL, ("red", "green", "blue"))
    size = Feature("size", NUMERIC, missing_interval=(-1.0, 0.0))
    trees = [colour_tree(1, 0, 0, 1), colour_tree(0, 0, 1, 0), colour_tree(1, None, 0, None)]
    return Model((color, size), Target("y", CLASSIFICATION, ("no", "yes")), trees, Combine("average"))


# The rules of colour_model's trees, worked out by hand: (if_missing, if_unknown) of color on the path,
# multiplied split by split; an empty set of categories leaves only missing values and unknown ones.
COLOUR_RULES = [
    # tree 1: missing values go right, unknown ones left: left is (0, 1), right (1, 0); the inner split
    # sends missing values left (1, 0) and unknown ones right (0, 1): {red} & {green} is empty and 0
    ['if (color = "red" or unknown) then "yes"'],  # {red} & {red, blue}: (0 * 0, 1 * 1)
    # tree 2: both go left: left is (1, 1) as if missing; the inner split (0, 1) | (1, 0)
    ['if color is unknown then "no"',  # {red} & {green}: (1 * 0, 1 * 1)
     'if (color = "red" or missing but not unknown) then "yes"'],  # (1 * 1, 1 * 0)
    # tree 3: no split has a child for unknown categories: they go where missing values go
    ['if color = "red" then "yes"'],
]
SIZE_RULES = {"right": ['if color in {"green", "blue"} and size <= 2.5 then "no"',
                        'if color in {"green", "blue"} and (size > 2.5 or missing) then "yes"'],
              "right, missing": ['if (color in {"green", "blue"} or missing) and size <= 2.5 then "no"',
                                 'if (color in {"green", "blue"} or missing) and (size > 2.5 or missing) then "yes"'],
              "right, missing only": [
                  'if (color in {"green", "blue"} or missing but not unknown) and size <= 2.5 then "no"',
                  ('if (color in {"green", "blue"} or missing but not unknown) and (size > 2.5 or missing)'
                   ' then "yes"')]}


def test_rules_say_where_unknown_categories_go():
    model = colour_model()
    text = emit(model, "rules")
    trees = [[line.split(": ", 1)[1].split("  #")[0] for line in tree.splitlines() if line.startswith("  rule ")]
             for tree in text.split("\ntree ")[1:]]
    assert trees == [COLOUR_RULES[0] + SIZE_RULES["right, missing only"], COLOUR_RULES[1] + SIZE_RULES["right"],
                     COLOUR_RULES[2] + SIZE_RULES["right, missing"]]
    assert "  size: numeric, missing in [-1.0, 0.0]\n" in text
    assert '  node 0: color in {"red"} ? 1 : 4; missing to 4; unknown to 1; value' in text
    rows = [{"color": c, "size": s} for c in ("red", "green", "blue", None, "purple") for s in (-1.0, 0.0, 1e-300, 3.0, None)]
    assert_same_model(model, parse(text), rows)


def test_the_combine_line_says_every_field():
    model = random_model(2, regression=True, n_trees=2)  # trees of one number: a binary classifier's raw sum
    model.target = Target("y", CLASSIFICATION, ("no", "yes"))
    model.combine = Combine("sum", (0.5,), 0.1, "sigmoid", 2.0, "float32", 4.0, True, "raw_positive")
    model.numeric = NumericSemantics("float32", 0.0, True, 1e-35)
    model.trees[1].weight, model.trees[1].output = 0.5, 0
    text = emit(model, "rules")
    assert ("numbers: float32 strict zero band 1e-35\n"
            "combine: sum init [0.5] added last scale 0.1 divided by 4.0 link sigmoid scale 2.0 precision float32"
            " decide raw_positive\n") in text
    assert "\ntree 2 output 0 weight 0.5\n" in text
    assert modelio.dumps(parse(text)) == modelio.dumps(model)


def test_a_single_tree_says_its_decision_and_link():
    model = random_model(3)
    model.combine = Combine(decide="weka")
    assert "combine: single decide weka\n" in emit(model, "rules")
    model.combine = Combine(link="exp", link_scale=0.5)
    assert "combine: single link exp scale 0.5\n" in emit(model, "rules")
    assert parse(emit(model, "rules")).combine == model.combine


def colour_text() -> str:
    return emit(colour_model(), "rules")


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if line.lstrip().startswith(start))


@pytest.mark.parametrize("edit,message,where", [
    (lambda t: t.replace("unknown to 1;", "unknown to 9;", 1),
     "node 0: unknown categories go to node 9, which is not one of its children", "node 0:"),
    (lambda t: t.replace("node 2: leaf;", "node 2: leaf; unknown to 3;", 1),
     "node 2 is a leaf: it has no child for unknown categories to go to", "node 2:"),
    (lambda t: t.replace("missing to 6;", "missing to 6; unknown to 5;", 1),
     "trees[0].nodes[4].split.unknown: only a split on categories has a child for unknown categories", "node 4:"),
    (lambda t: t.replace("missing in [-1.0, 0.0]", "missing in [0.0, -1.0]"),
     "features[1].missing_interval: a numeric feature's missing interval is [low, high] with low <= high", "size:"),
    (lambda t: t.replace("combine: average", "combine: average divided by 0.0"),
     "combine.divisor: the divisor cannot be 0", "combine:"),
    (lambda t: t.replace("if color is unknown then", "if color is missing then"),
     "rule 1 does not match the nodes section", "rule 1: if color is missing then"),
    (lambda t: t.replace('or missing but not unknown) then "yes"', 'or missing) then "yes"'),
     "rule 2 does not match the nodes section", 'rule 2: if (color = "red"'),
    (lambda t: t.replace("combine: average link identity", "combine: average decide best"),
     "unexpected 'best'; expected one of: argmax, weka, raw_nonnegative, raw_positive or argmax_raw", "combine:"),
])
def test_a_mistake_in_the_new_forms_is_one_located_line(edit, message, where):
    text = edit(colour_text())
    assert text != colour_text()
    with pytest.raises(TreegenError) as err:
        parse(text, "colour.rules")
    assert err.value.message.startswith(message), err.value.message
    assert (err.value.file, err.value.line) == ("colour.rules", line_of(text, where))
    assert_parsed_or_one_located_line(text)


def test_the_new_words_are_quoted_as_names_and_old_text_with_them_bare_still_reads():
    words = ["strict", "zero", "band", "unknown", "but", "not", "added", "last", "divided", "by", "precision", "decide",
             "exp", "sign_square", "argmax", "weka", "raw_nonnegative", "raw_positive", "argmax_raw"]
    model = random_model(5, n_numeric=len(words) - 2, names=words)
    text = emit(model, "rules")
    assert all(f'  "{word}": ' in text for word in words)
    bare = text
    for word in words:
        bare = bare.replace(f'"{word}"', word)
    assert bare != text
    assert modelio.dumps(parse(bare)) == modelio.dumps(parse(text)) == modelio.dumps(model)


# -- a boosted tree's rules and `show` say the score a leaf adds ---------------------------------------

BOOSTED_EXAMPLES = {  # file: (rule 1 of tree 1, as written; a split and a leaf of tree 1 as `show` prints them)
    "examples/boosting/xgboost.json": (
        "  rule 1: if petal_length <= 2.99999988079071 then 0.42901554703712463  # n 20.444442749023438",
        ["XGBoost tree 1 of 60 (adds to output 0): 7 nodes, 4 leaves, depth 3",
         "petal_length < 3.0: 0.42901554703712463 (n 20.4444)", "petal_length >= 3.0 (or missing)",
         "|   |   sepal_width < 3.5 (or missing): -0.2198992669582367 (n 43.1111)"]),
    "examples/boosting/lightgbm.txt": (
        "  rule 1: if (sepal_length <= 5.250000000000001 or missing) and petal_length <= 3.1500000000000004 and "
        "petal_width <= 1.0500000000000003 then -0.8986122886681097  # n 34.0",
        ["LightGBM tree 1 of 60 (adds to output 0): 9 nodes, 5 leaves, depth 3",
         "petal_length <= 3.1500000000000004", "|   |   sepal_length > 5.250000000000001: -0.8986122886681099 (n 7)"]),
}


def written_outcomes(text: str) -> list[list[str]]:
    """Each tree's rules' outcomes as written (``then X`` or ``always X``, before the comment)."""
    return [re.findall(r"^  rule \d+: (?:if .* then |always )(.*?)  # ", tree, re.MULTILINE)
            for tree in text.split("\ntree ")[1:]]


def leaf_texts(model) -> list[list[str]]:
    """What each tree's rules should say: the repr of the value of the leaf each rule ends at."""
    return [[repr(tree.nodes[rule.node].value[0]) for rule in lower_tree(model, tree).rules]
            for tree in listed(model).trees]


@pytest.mark.parametrize("path", sorted(BOOSTED_EXAMPLES))
def test_a_boosted_trees_rules_say_the_score_each_leaf_adds(path):
    model = load_model(path)
    text = emit(model, "rules")
    assert BOOSTED_EXAMPLES[path][0] + "\n" in text
    assert "\ntree 2 output 1\n" in text and ' then "' not in text
    assert written_outcomes(text) == leaf_texts(model)  # every rule: its leaf's value, as repr writes it
    assert_readers_agree(text)
    assert_read_as_written(text)
    again = parse(text, path)
    again.meta = model.meta  # (meta that is not a scalar is not written)
    assert modelio.dumps(again) == modelio.dumps(model)
    assert_same_predictions(model, again, random_rows(model, 40, 1) + probe_rows(model, 200))


@pytest.mark.parametrize("path", sorted(BOOSTED_EXAMPLES))
def test_show_prints_a_boosted_trees_splits_as_compared_and_its_leaf_values(path):
    model = load_model(path)
    shown = show(model).splitlines()
    assert all(line in shown for line in BOOSTED_EXAMPLES[path][1]), "\n".join(shown[:20])
    assert (shown[0] == FLOAT32_NOTE) == path.endswith(".json")  # XGBoost compares float32 casts, LightGBM doubles
    first = shown[:shown.index("", shown.index(BOOSTED_EXAMPLES[path][1][0]) + 2)]  # tree 1's lines
    leaves = [line.rsplit(": ", 1)[1].split(" (n ")[0] for line in first if " (n " in line]
    assert sorted(leaves) == sorted(repr(node.value[0]) for node in model.trees[0].listed().nodes if node.is_leaf)


def test_show_prints_a_c45_threshold_where_the_model_cuts(tmp_path):
    """J48 sends x left when x - t < 1e-6: its split point 43.0 lets 43.0000005 through. show prints the
    cut the model makes, as the rules write it (not 43.0, which would put 43.0000005 on the right),
    and says why it is not the split point J48 prints."""
    data = tmp_path / "ages.csv"
    data.write_text("age,old\n" + "".join(f"{age},{'no' if age <= 43 else 'yes'}\n" for age in range(30, 57)))
    model = fit(load_dataset(str(data)), "c45")
    shown = show(model).splitlines()
    assert shown[0].startswith("A value less than 1e-06 above a split point still goes left")
    assert shown[4:6] == ["age <= 43.000001 (missing: 0.519): no (no: 14, yes: 0)",
                          "age > 43.000001 (missing: 0.481): yes (no: 0, yes: 13)"]
    assert "43.000001" in emit(model, "rules") and "43.0" not in show(model).replace("43.000001", "")
    for age, side in [(43.0, "no"), (43.0000005, "no"), (43.000001, "no"), (math.nextafter(43.000001, 99), "yes")]:
        assert model.predict({"age": age}) == side
    assert show(fit(load_dataset("examples/play_tennis.csv"), "c45")).startswith("c45 tree")  # no numeric split


def test_rules_of_boosted_classifiers_written_before_still_parse():
    """Rule text written when a boosted classifier's rules said a class (the label its leaf's one
    number picks: the first) reads to the same model; a wrong score is refused at its rule."""
    model = load_model("examples/boosting/xgboost.json")
    text = emit(model, "rules")
    old = re.sub(r"^(  rule \d+: .* then |  default: )\S+", r'\1"0"', text, flags=re.MULTILINE)
    assert old.count(' then "0"  # n ') == sum(map(len, leaf_texts(model)))
    assert modelio.dumps(parse(old)) == modelio.dumps(parse(text))
    wrong = text.replace("then 0.42901554703712463  #", "then 0.429  #", 1)
    with pytest.raises(TreegenError, match="rule 1 does not match the nodes section") as err:
        parse(wrong, "x.rules")
    assert err.value.line == line_of(wrong, "rule 1: if petal_length <= 2.99999988079071 then 0.429 ")


def summed_over_every_output() -> Model:
    """A boosted classifier whose trees add a number to every output (CatBoost's multiclass)."""
    model = random_model(6, n_trees=2, max_depth=3)
    model.combine = Combine("sum", (0.0, 0.5, -0.5), 1.0, "softmax")
    return model


def test_a_tree_that_adds_to_every_output_says_each_number():
    model = summed_over_every_output()
    text = emit(model, "rules")
    rules = [line for line in text.splitlines() if line.startswith("  rule ")]
    assert rules and all(re.search(r" (then|always) \[\S+, \S+, \S+\]  # n ", line) for line in rules)
    first = model.trees[0].nodes[lower_tree(model, model.trees[0]).rules[0].node]
    assert written_outcomes(text)[0][0] == "[" + ", ".join(map(repr, first.value)) + "]"
    assert_read_as_written(text)
    assert modelio.dumps(parse(text)) == modelio.dumps(model)
    shown = show(model)
    assert "(adds to output" not in shown and re.search(r": \[\S+, \S+, \S+\] \(n ", shown)


@pytest.mark.parametrize("edit,message", [
    (lambda t: re.sub(r"\]  # n ", ",]  # n ", t, count=1), "unexpected ']'"),
    (lambda t: re.sub(r"then \[(\S+), ", r"then [\1; ", t, count=1), "unexpected ';'; expected one of: ',', ']'"),
    (lambda t: re.sub(r"then \[(\S+), ", r"then [\1, 9.5, ", t, count=1), "rule 1 does not match the nodes section"),
])
def test_a_mistake_in_a_rules_list_of_values_is_one_located_line(edit, message):
    text = emit(summed_over_every_output(), "rules")
    edited = edit(text)
    assert edited != text
    with pytest.raises(TreegenError) as err:
        parse(edited, "m.rules")
    assert err.value.message.startswith(message), err.value.message
    assert err.value.line == line_of(edited, "rule 1:")
    assert_parsed_or_one_located_line(edited)
    assert_readers_agree(edited)


@pytest.mark.parametrize("default", ["42", '"no"', '   42  # spaced: the grammar reads it'])  # "maybe": no class
def test_a_default_that_is_not_the_roots_outcome_is_refused_at_its_line(tmp_path, default):
    rules = tmp_path / "t.rules"
    model = tmp_path / "t.json"
    treegen_cli("train", "examples/play_tennis.csv", "--target", "play", "-a", "id3", "-o", str(model), check=True)
    text = emit(modelio.load(str(model)), "rules")
    line = text.split("\n").index('  default: "yes"') + 1
    rules.write_text(text.replace('  default: "yes"', f"  default: {default}"), encoding="utf-8")
    result = treegen_cli("show", str(rules))
    assert result.returncode == 2 and result.stderr == (
        f"treegen: error: {rules}:{line}: the default does not match the nodes section (it is what the root, "
        "node 0, predicts: edit the nodes, or export again)\n")


@pytest.mark.parametrize("codes", ["integral", "truncated"])
def test_codes_round_trip_and_read_numbers(codes):
    """A feature's codes are on its line (`, codes truncated`), read back by both readers, and the
    parsed model reads 3.0, "3e0" and 2.7 as the model does."""
    from treegen.model import Codes, MissingRoute, Model, Node, NumericSemantics, Op, Split, Target, Tree
    from treegen.parse.rule_lines import read_lines
    from treegen.parse.rule_grammar import parser
    feature = Feature("c", NOMINAL, ("0", "2", "3"), codes=Codes(codes))
    split = Split(0, Op.IN, values=("2",), missing=MissingRoute.to_child(1))
    tree = Tree([Node((1.0, 0.0), split=split, children=(1, 2)), Node((0.0, 1.0)), Node((1.0, 0.0))])
    model = Model((feature,), Target("y", CLASSIFICATION, ("a", "b")), [tree], numeric=NumericSemantics("float32"))
    text = emit(model, "rules")
    assert f'c: nominal {{"0", "2", "3"}}, codes {codes}' in text
    assert repr(read_lines(text)) == repr(parser().parse(text))
    again = parse(text)
    assert again.features == model.features
    assert modelio.dumps(again) == modelio.dumps(model)
    for value in (2, 2.0, "2.0", "2e0", 2.7, "2.7", "2.9999999", -0.5, "-0.0", 1e300, math.inf, "x"):
        assert again.predict({"c": value}) == model.predict({"c": value}), value
    assert model.predict({"c": "2e0"}) == "b" and model.predict({"c": 2.7}) == ("b" if codes == "truncated" else "a")


# -- a user's typo: said at the word, with the word meant ------------------------------------------------

def weather_text():
    return emit(fit(load_dataset("examples/weather.numeric.arff"), "cart"), "rules")


def at_the_word(text: str, typo: str, word: str) -> str:
    """FILE:LINE:COLUMN of ``word`` in the line that holds ``typo``, as the error names it."""
    line, line_text = next((i, l) for i, l in enumerate(text.split("\n"), 1) if typo in l)
    return f"{line}:{line_text.index(typo) + typo.index(word) + 1}"


@pytest.mark.parametrize("written,typo,word,message", [
    ("node 1: leaf;", "node 1: leef;", "leef", "expected 'leaf' or a feature, found 'leef'"),
    ("node 1: leaf;", "node 1: LEAF;", "LEAF", "expected 'leaf' or a feature, found 'LEAF'"),
    ("target play:", "traget play:", "traget", "expected 'target' or a feature, found 'traget'"),
])
def test_a_misspelt_keyword_read_as_a_name_is_named_at_the_word(written, typo, word, message):
    """Where a keyword or a name may stand, the parser takes the word for a name and refuses what follows
    it; a word that is no feature and is close to such a keyword is the mistake."""
    assert_refused_at_the_word(weather_text(), written, typo, word, message)


def assert_refused_at_the_word(text: str, written: str, typo: str, word: str, message: str) -> None:
    """``text`` with ``written`` (once in it) replaced by ``typo`` is refused at ``word`` of the typo."""
    assert text.count(written) == 1
    edited = text.replace(written, typo)
    result, path = parse_command(edited)
    assert (result.exit_code, result.stderr) == (
        2, f"treegen: error: {path}:{at_the_word(edited, typo, word)}: {message}\n")


def test_a_feature_close_to_a_keyword_is_a_name_and_the_mistake_is_after_it():
    text = weather_text().replace("humidity", "leafs").replace("node 1: leaf;", "node 1: leafs;")
    result, path = parse_command(text)
    assert (result.exit_code, result.stderr) == (
        2, f"treegen: error: {path}:{at_the_word(text, 'node 1: leafs;', ';')}: unexpected ';'; expected one of: "
           "'<=', '==', 'in'\n")  # a node's split, no other place's words


@pytest.mark.parametrize("written,typo,word,message", [
    ("humidity <= 82.5 ? 3 : 6", "humidty <= 82.5 ? 3 : 6", "humidty",
     "unknown feature 'humidty'; did you mean 'humidity'?"),
    ('outlook in {"overcast"} ?', 'outlook in {"overcst"} ?', '"overcst"',
     "unknown category 'overcst' of feature 'outlook'; did you mean 'overcast'?"),
    ("rule 1: if outlook", "rule 1: if outlok", "outlok", "rule 1: unknown feature 'outlok'; did you mean 'outlook'?"),
    ('if outlook = "overcast"', 'if outlook = "Overcast"', '"Overcast"',
     "rule 1: unknown category 'Overcast' of feature 'outlook'; did you mean 'overcast'?"),
    ('"overcast" then "yes"', '"overcast" then "yse"', '"yse"', "rule 1: unknown class 'yse'; did you mean 'yes'?"),
    ('default: "yes"', 'default: "yse"', '"yse"', "unknown class 'yse'; did you mean 'yes'?"),
    ('default: "yes"', 'default: "maybe"', '"maybe"', "unknown class 'maybe'"),
    # laid out otherwise (two spaces): read by the grammar, said at the same place
    ("missing) and temperature <= 66.5", "missing) and  60 < tempreature <= 66.5", "tempreature",
     "rule 2: unknown feature 'tempreature'; did you mean 'temperature'?"),
    ('{"sunny", "rainy"} or missing) and temperature <= 66.5', '{"sunny",  "rany"} or missing) and temperature <= 66.5',
     '"rany"', "rule 2: unknown category 'rany' of feature 'outlook'; did you mean 'rainy'?"),
])
def test_an_unknown_name_is_named_at_its_column_with_the_name_meant(written, typo, word, message):
    assert_refused_at_the_word(weather_text(), written, typo, word, message)


HOSTILE_RULES = r'''treegen rules, format 1
features
  "température \"max\"": numeric
  ciel: nominal {"très \"nuageux\"", "clair"}
target jouer: classes {"oui", "l'été"}
numbers: float64
combine: single

tree 1
rules
  rule 1: if "température \"max\"" <= 17.5 then "l'été"
  rule 2: if ("température \"max\"" > 17.5 or missing) and ciel = "clair" then "oui"
  rule 3: if ("température \"max\"" > 17.5 or missing) and (ciel in {"très \"nuageux\""} or missing) then "l'été"
  default: "oui"
nodes
  node 0: "température \"max\"" <= 17.5 ? 1 : 2; missing to 2; value [0.5, 0.5]; n 6.0
  node 1: leaf; value [0.0, 1.0]; n 2.0
  node 2: ciel in {"clair"} ? 3 : 4; missing to 4; value [0.75, 0.25]; n 4.0
  node 3: leaf; value [1.0, 0.0]; n 3.0
  node 4: leaf; value [0.0, 1.0]; n 1.0
'''


@pytest.mark.parametrize("written,typo,word,message", [
    (r'node 0: "température \"max\""', r'node 0: "temperature \"max\""', '"',
     """unknown feature 'temperature "max"'; did you mean 'température "max"'?"""),
    (r'or missing) and (ciel in {"très \"nuageux\""}', r'or missing) and (ciel in {"tres \"nuageux\""}', '"tres',
     """rule 3: unknown category 'tres "nuageux"' of feature 'ciel'; did you mean 'très "nuageux"'?"""),
    ('<= 17.5 then "l\'été"', '<= 17.5 then "l\'ete"', '"l',
     """rule 1: unknown class "l'ete"; did you mean "l'été"?"""),
])
def test_hostile_names_are_quoted_in_the_name_meant(written, typo, word, message):
    assert parse(HOSTILE_RULES).predict({'température "max"': 20.0, "ciel": "clair"}) == "oui"  # as written: sound
    assert_refused_at_the_word(HOSTILE_RULES, written, typo, word, message)


def test_an_unknown_feature_in_a_linear_leaf_is_named_at_it():
    model = with_linear_leaves(random_model(4, regression=True, n_trees=1, max_depth=3), 1)
    numeric = next(i for i, f in enumerate(model.features) if f.is_numeric)
    next(n for n in model.trees[0].nodes if n.is_leaf).linear = Linear(0.5, ((numeric, 2.0),))
    text, name = emit(model, "rules"), model.features[numeric].name
    for rule, where in [("rule ", "rule 1: "), ("node ", "")]:  # the rule's sum, and the node's linear terms
        line = next(line for line in text.splitlines() if line.lstrip().startswith(rule) and f"* {name}" in line)
        typo = line.replace(f"* {name}", f"* {name}e", 1)
        edited = text.replace(line, typo, 1)
        result, path = parse_command(edited)
        place = at_the_word(edited, typo, name + "e")
        assert (result.exit_code, result.stderr) == (
            2, f"treegen: error: {path}:{place}: {where}unknown feature '{name}e'; did you mean '{name}'?\n")
