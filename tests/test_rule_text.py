"""Rule text: readable, parsed back by the Lark grammar into a model that predicts identically."""
import json
import os
import re
import subprocess
import sys
import tempfile

import pytest
from click.testing import CliRunner
from hypothesis import given, settings, strategies as st

from treegen.data import load_dataset
from treegen.targets import emit
from treegen.errors import TreegenError
from treegen.learn import fit
from treegen.cli import main
from treegen.parse.rule_lines import read_lines
from treegen.parse.rule_text import parse, parser
from treegen.probes import probe_rows
from treegen.show import show
from treegen.testing import HOSTILE_NAMES, chain_model, random_model, random_rows, wide_model

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
    (lambda t: t.replace("features", "featurez", 1), "unexpected 'featurez'; expected one of: 'features'", 5),
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
     "unexpected 'scale'; expected one of: 'tolerance', end of line", 11),
    (lambda t: t.replace('outlook: nominal {"sunny", ', 'outlook: nominal {"sunny"\n'),
     "unexpected end of line; expected one of: ',', '}'", 6),
    (lambda t: t[:t.index("features")], "unexpected end of file; expected one of: 'features'", 4),
])
def test_messages_name_no_grammar_token(edit, message, line):
    with pytest.raises(TreegenError) as err:
        parse(edit(tennis_text()), "tennis.rules")
    assert (err.value.message, err.value.line) == (message, line)
    assert "_NL" not in err.value.message and "$END" not in err.value.message


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
    fast = read_lines(text, parser())
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


# Rule files with strings, numbers and whole numbers; one with no string at all (no nominal feature).
FUZZED_TEXTS = [emit(random_model(3, n_trees=2), "rules"), emit(random_model(4, n_nominal=0, regression=True), "rules")]
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
              random_model(7, names=HOSTILE_NAMES[:5], classes=tuple(HOSTILE_NAMES[5:8]))]
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
    """Big files are read fast only if the writer's whole layout is the fast reader's."""
    for text in EXPORTED + [emit(wide_model(300), "rules"), emit(random_model(11, n_trees=2, regression=True), "rules")]:
        fast = read_lines(text, parser())
        assert fast is not None and repr(fast) == repr(parser().parse(text))


def test_another_layout_is_read_by_the_grammar_to_the_same_model():
    text = tennis_text()
    edited = (text.replace("rule 1: if", "rule 1 :\tif").replace("node 0: ", "node 0 :  ")
              .replace("features\n", "\n# a comment of mine\nfeatures   # and another\n"))
    assert read_lines(edited, parser()) is None
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
    where = f"{path}:1" if b"\xff" in content else f"{path}"
    expected = (f"treegen: error: {where}: neither a treegen model (JSON) nor rule text "
                '(a file of rule text begins with "treegen rules, format 1")')
    assert result.stderr == expected + (": it is not UTF-8 text\n" if b"\xff" in content else "\n")


def test_a_rule_file_with_a_mistake_on_its_first_line_is_still_rule_text(tmp_path):
    path = tmp_path / "t.rules"
    path.write_text(tennis_text().replace("format 1", "format one"), encoding="utf-8")
    result = CliRunner().invoke(main, ["show", str(path)], catch_exceptions=False)
    assert (result.exit_code, result.stderr) == (
        2, f"treegen: error: {path}:1:23: unexpected 'one'; expected one of: a whole number\n")
