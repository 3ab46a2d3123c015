"""CSV and ARFF readers: kinds, missing values, declared order, UTF-8, errors with file and line."""
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cli_in_process import treegen_cli
from treegen.arff import Doubles, java_double, parse_arff, unescape
from treegen.data import load_dataset, parse_csv, read_table, to_dataset, training_warnings
from treegen.errors import TreegenError
from treegen.learn.j48_text import java_double as java_double_text
from treegen.table import Table, name_argument, split_names

WEKA_FIXTURES = Path(__file__).parent / "fixtures" / "j48"


def test_csv_kinds_missing_values_and_first_appearance_order():
    table = parse_csv("a,b,c\n1,x,yes\n?,y,no\n2.5,,yes\nNA,x,no\n")
    ds = to_dataset(table)
    a, b = ds.features
    assert a.kind == "numeric" and b.kind == "nominal" and b.categories == ("x", "y")
    assert math.isnan(ds.columns[0][1]) and math.isnan(ds.columns[0][3]) and ds.columns[1][2] == -1
    assert ds.target.classes == ("yes", "no") and list(ds.y) == [0, 1, 0, 1]


def test_forced_nominal_default_target_and_regression_inference():
    table = parse_csv("zip,price\n1000,3.5\n2000,4\n")
    assert to_dataset(table).target.kind == "regression"
    ds = to_dataset(table, nominal=["zip"], regression=False)
    assert ds.features[0].categories == ("1000", "2000") and ds.target.classes == ("3.5", "4")


def test_rows_with_missing_target_are_left_out():
    ds = to_dataset(parse_csv("x,y\n1,a\n2,\n3,b\n4,?\n"))
    assert len(ds) == 2 and ds.left_out == 2
    regression = to_dataset(parse_csv("x,y\n1,1\n2,nan\n3,2\n"))
    assert len(regression) == 2 and regression.left_out == 1


def test_training_warnings_name_a_column_of_numbers_read_as_categories_and_a_class_per_value():
    rows = "".join(f"{i},{i % 5 + 1},{i % 2},{i / 4}\n" for i in range(100))
    table = parse_csv("x,label,flag,value\n" + rows.replace("\n7,", "\nNULL,", 1) + "#N/A,1,0,0.0\n", "d.csv")
    null = ("d.csv:9: column 'x' is read as categories: 2 of its 101 values are 'NULL' and '#N/A', which treegen's "
            "CSV does not read as missing (only an empty field, '?' or 'NA': replace them), and --nominal x keeps "
            "the column as categories")
    assert training_warnings(table, to_dataset(table, target="label", regression=False), (), "c45") == [null]
    assert training_warnings(table, to_dataset(table, target="flag", regression=False), (), "c45") == [null]
    as_classes = to_dataset(table, target="value", regression=False)
    assert training_warnings(table, as_classes, (), "id3") == [null, (
        "target 'value' is numeric with 100 distinct values: id3 learns them as 100 classes; for a regression "
        "tree use --algorithm cart (--nominal value keeps them as classes)")]
    deliberate = to_dataset(table, target="value", nominal=["x", "value"])
    assert training_warnings(table, deliberate, ["x", "value"], "c45") == []
    empty = parse_csv("x,label\n" + "".join(f"{i},{i % 2}\n" for i in range(40)) + ",1\n")  # missing: no warning
    assert training_warnings(empty, to_dataset(empty, regression=False), (), "c45") == []
    words = parse_csv("x,label\nlow,a\nhigh,b\n3,a\n")  # mostly words: categories, as meant
    assert training_warnings(words, to_dataset(words), (), "c45") == []
    other = parse_csv("x,label\n" + "".join(f"{i},{i % 2}\n" for i in range(40)) + "#REF!,1\n", "r.csv")
    assert training_warnings(other, to_dataset(other, regression=False), (), "c45") == [
        "r.csv:42: column 'x' is read as categories: 1 of its 41 values is not a number, the first '#REF!'; "
        "an empty field, '?' or 'NA' is missing, and --nominal x keeps the column as categories"]


def test_other_tools_spellings_of_missing_are_named_however_many_they_are():
    """N/A, null, None, - ... are text to treegen's CSV (its missing fields are empty, ? and NA, as every
    generated program reads them): a column of numbers but for them says which they are and what to write,
    even where they are most of its values; numbers but for other words too warn as before."""
    rows = "".join(f"{' n/a' if i % 3 else i},{'None' if i == 4 else '-' if i == 9 else i},{i % 2}\n"
                   for i in range(30))
    table = parse_csv("mostly,two,label\n" + rows, "m.csv")
    assert training_warnings(table, to_dataset(table, regression=False), (), "c45") == [
        "m.csv:3: column 'mostly' is read as categories: 20 of its 30 values are ' n/a', which treegen's CSV "
        "does not read as missing (only an empty field, '?' or 'NA': replace them), and --nominal mostly keeps "
        "the column as categories",
        "m.csv:6: column 'two' is read as categories: 2 of its 30 values are 'None' and '-', which treegen's CSV "
        "does not read as missing (only an empty field, '?' or 'NA': replace them), and --nominal two keeps the "
        "column as categories"]
    mixed = parse_csv("x,label\n" + "".join(f"{'NULL' if i % 2 else i},{i % 2}\n" for i in range(30)) + "low,1\n")
    assert training_warnings(mixed, to_dataset(mixed, regression=False), (), "c45") == []  # half words: as meant
    only = parse_csv("x,label\n" + "".join(f"NULL,{i % 2}\n" for i in range(30)))  # no number: nothing to say
    assert training_warnings(only, to_dataset(only, regression=False), (), "c45") == []


def test_a_nominal_column_of_one_value_a_row_is_named_with_ignore():
    rows = "".join(f"c{i},{'ab'[i % 2]},{i % 3},{'yn'[i % 2]}\n" for i in range(21))
    table = parse_csv("Customer ID,plan,x,label\n" + rows)
    assert training_warnings(table, to_dataset(table), (), "cart") == [
        "column 'Customer ID' has a different value in every row (21), as an identifier has: a split on it "
        "predicts nothing for new rows; --ignore 'Customer ID' leaves it out"]
    assert training_warnings(table, to_dataset(table, ignore=["Customer ID"]), (), "cart") == []
    assert training_warnings(table, to_dataset(table, nominal=["Customer ID"]), ["Customer ID"], "cart") == []
    few = parse_csv("Customer ID,plan,x,label\n" + rows.split("c20,")[0])  # 20 rows: too few to tell
    assert training_warnings(few, to_dataset(few), (), "cart") == []
    repeated = parse_csv("Customer ID,plan,x,label\n" + rows + "c3,a,1,y\n")
    assert training_warnings(repeated, to_dataset(repeated), (), "cart") == []


def test_a_nominal_column_of_dates_is_named_as_dates():
    """A CSV's dates are categories, as all text is: train says so, repeated dates or not, where it was silent
    or called unique ones an identifier; --nominal (meant) and an ARFF's declared values (meant) are quiet."""
    days = [f"2026-01-{1 + i % 28:02d}" for i in range(40)]
    times = ["2026-03-01T10:15:00Z", "2026-03-02 08:00", "2026-03-03T23:59:59.5+01:00"]
    table = parse_csv("when,stamp,x,label\n" + "".join(f"{d},{times[i % 3]},{i % 3},{'yn'[i % 2]}\n"
                                                        for i, d in enumerate(days)))
    said = training_warnings(table, to_dataset(table), (), "cart")
    assert said == [
        f"column {name!r} holds dates ({first}, ...), read as categories: a split tests dates one by one, and a "
        "date the training rows lack is an unknown category; to split on time, give it as a number (e.g. days "
        f"since a day you choose), or --ignore {name} leaves it out"
        for name, first in (("when", "2026-01-01"), ("stamp", "2026-03-01T10:15:00Z"))]
    assert training_warnings(table, to_dataset(table, nominal=["when", "stamp"]), ["when", "stamp"], "cart") == []
    unique = parse_csv("when,label\n" + "".join(f"2026-02-{1 + i % 28:02d} 0{i // 28}:00,{i % 2}\n"
                                                 for i in range(30)))
    assert [w.split(":")[0] for w in training_warnings(unique, to_dataset(unique), (), "c45")] == [
        "column 'when' holds dates (2026-02-01 00"]  # not "an identifier"
    words = parse_csv("when,label\n" + "".join(f"2026-01-0{1 + i % 9}x,{i % 2}\n" for i in range(30)))
    assert training_warnings(words, to_dataset(words), (), "c45") == []


def test_learning_data_says_its_hints_in_the_cli_s_words_or_in_python_s():
    """One decision for the CLI and treegen.train: the same warnings, each hint spelt as its user gives it."""
    from treegen.data import CLI, PYTHON, learning_data
    rows = "".join(f"c{i},{i if i < 39 else 'NULL'},{i % 2}\n" for i in range(40))
    table = parse_csv("Customer ID,x,label\n" + rows, "d.csv")
    cli, python = (learning_data(table, None, (), (), None, "cart", spell)[1] for spell in (CLI, PYTHON))
    spelt = {"--nominal x": "nominal=['x']", "--ignore 'Customer ID'": "ignore=['Customer ID']",
             "--classification": "regression=False", "--regression": "regression=True"}
    assert [sum(flag in line for flag in spelt) for line in cli] == [1, 1, 2]  # read as categories, id, 0/1 target
    for flag, argument in spelt.items():
        cli = [line.replace(flag, argument) for line in cli]
    assert cli == python
    with pytest.raises(TreegenError, match="^ignore names the target column 'label'$"):
        learning_data(table, None, (), ["label"], None, "cart", PYTHON)


def test_a_column_without_a_value_is_no_column_of_dates():
    """all() of no category is True: the date warning took an empty column's first category (IndexError)."""
    table = parse_csv("when,x,label\n" + "".join(f",{i},{i % 2}\n" for i in range(30)), "e.csv")
    assert training_warnings(table, to_dataset(table, regression=False), (), "c45") == [
        "column 'when' has no value (every row's is missing): no split tests it; --ignore when leaves it out"]


def test_cart_says_when_it_learns_a_regression_of_a_few_whole_numbers():
    """A 0/1 (or 1..5) target is numeric: cart learns a regression of it where c45 learns classes."""
    table = parse_csv("x,label\n" + "".join(f"{i},{i % 2 * 5}\n" for i in range(30)))
    regression = to_dataset(table)
    assert training_warnings(table, regression, (), "cart") == [
        "target 'label' is numeric with 2 whole-number values (0, 5): cart learns a regression tree of it; "
        "--classification learns them as classes (--regression keeps the regression)"]
    assert training_warnings(table, regression, (), "cart", regression=True) == []  # --regression: meant
    assert training_warnings(table, to_dataset(table, regression=False), (), "cart", regression=False) == []
    assert training_warnings(table, to_dataset(table, regression=False), (), "c45") == []
    scores = parse_csv("x,y\n" + "".join(f"{i},{i % 11}\n" for i in range(30)))  # 11 values: a number
    assert training_warnings(scores, to_dataset(scores), (), "cart") == []
    halves = parse_csv("x,y\n" + "".join(f"{i},{i % 2 / 2}\n" for i in range(30)))
    assert training_warnings(halves, to_dataset(halves), (), "cart") == []


def bash_word(word: str) -> str:
    """What bash makes of ``word`` pasted as one argument."""
    done = subprocess.run(["bash", "-c", f"printf %s {word}"], capture_output=True, check=True,
                          env={**os.environ, "LC_ALL": "C.UTF-8"})
    return done.stdout.decode("utf-8")


@pytest.mark.parametrize("name", ["income", "Age (years)", "a,b", 'say "hi"', "it's", "price\nusd", "tab\there",
                                  "back\\slash\r\nx", "bell\x07", "next\x85line\u2028x", "größe", "$HOME `ls` *",
                                  "-x", '"quoted"', "\tlead", "trail\t", "\nwrapped\n", "\r"])
def test_a_hinted_name_is_one_line_that_bash_and_split_names_read_back_as_the_name(name):
    """The --nominal NAME of a hint: one printable line (a warning joins lines), pasted into bash it is
    the name as --nominal reads it (comma-separated, as one CSV record)."""
    word = name_argument(name)
    assert word.isprintable(), word
    assert split_names([bash_word(word)]) == [name], word


def test_a_name_with_a_line_break_is_quoted_for_csv_and_bash_and_unquoted_is_one_line_asking_for_quotes():
    assert name_argument("income") == "income" and name_argument("a,b") == "'\"a,b\"'"
    assert name_argument("price\nusd") == "$'\"price\\nusd\"'"
    with pytest.raises(TreegenError, match="^cannot read the column names 'price\\\\nusd': a name with a line break "
                                           "is written in double quotes, as in a CSV header$"):
        split_names(["price\nusd"])
    assert split_names(['"price\nusd", b']) == ["price\nusd", "b"]


def test_arff_declared_order_quotes_comments_and_missing():
    text = """% comment
@relation 'weather test'
@attribute 'out look' {sunny, 'over cast', rain}
@attribute temp numeric
@attribute "play" {yes,no}
@data
% another comment
sunny, 85, no
'over cast',?,yes
?,70,yes
"""
    ds = to_dataset(parse_arff(text, "w.arff"))
    assert ds.features[0].name == "out look" and ds.features[0].categories == ("sunny", "over cast", "rain")
    assert ds.target.classes == ("yes", "no")  # declared order, not first appearance
    assert list(ds.columns[0]) == [0, 1, -1] and math.isnan(ds.columns[1][1])


def test_weka_example_files_load():
    for name in ("weather.nominal", "iris", "labor", "contact-lenses"):
        ds = load_dataset(f"tests/fixtures/j48/{name}.arff")
        assert len(ds) > 0


def test_utf8_chinese_data():
    ds = load_dataset("examples/play_tennis_zh.csv")
    assert ds.features[0].name == "天气" and ds.target.classes == ("否", "是")


@pytest.mark.parametrize("text,message,line", [
    ("a,b\n1,2\n3\n", "expected 2 fields as in the header, found 1", 3),
    ('a,b\n1,2\n\n""\n', "expected 2 fields as in the header, found 1", 4),  # one empty field: not blank
    ("a,b\n1,2\n\n \n", "expected 2 fields as in the header, found 1", 4),  # a space: not blank
    ("\r\n\r\n", "empty file", 1),
    ("\n\na,a\n1,2\n", "appears twice", 3),
    ("a;b\n1;2\n\"3;4\",5\n", "expected 1 field as in the header, found 2; treegen reads comma-separated "
                               "values, and the header is one field with ';' in it", 3),
    ("", "empty file", 1),
    ("a,a\n1,2\n", "appears twice", 1),
    ('a,b\n"1,2\n', "a quoted field is not closed", 2),
    ('a,b\n1,"2"x\n', "text after a closing quote", 2),
])
def test_malformed_csv(text, message, line):
    with pytest.raises(TreegenError) as err:
        parse_csv(text, "bad.csv")
    assert message in err.value.message and err.value.file == "bad.csv"
    assert ("; " in message) == ("; " in err.value.message)  # a hint where it applies, and only there
    if line is not None:
        assert err.value.line == line


def weka_reading(table) -> str:
    """A table in the layout of ArffDump.java's print of what Weka read (make_fixtures.sh)."""
    def quote(text):
        return '"' + "".join(f"\\u{ord(c):04x}" if not " " <= c <= "~" or c in '"\\' else c for c in text) + '"'
    lines = []
    for name in table.names:
        feature = table.declared[name]
        if name in table.dates:
            lines.append(f"@ {quote(name)} 3 {quote(table.dates[name])}")
        else:
            kind = "0" if feature.is_numeric else "1" + "".join(" " + quote(v) for v in feature.categories)
            lines.append(f"@ {quote(name)} {kind}")
    for i in range(len(table)):
        values = []
        for name, column in zip(table.names, table.columns):
            value = column[i]
            numeric = table.declared[name].is_numeric
            if value is None or (numeric and math.isnan(float(value))):
                values.append("?")
            else:
                values.append(java_double_text(float(value)) if numeric else quote(value))
        lines.append(" ".join([java_double_text(table.weights[i]), *values]))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", ["dates", "escapes", "weights", "missing-class", "missing-class-split-point"])
def test_arff_files_are_read_as_weka_reads_them(name):
    """Names, values, escapes, dates (ms since 1970 UTC), numbers and weights, against Weka 3.6's
    own reading of the same file (NAME.read, printed by ArffDump.java)."""
    table = read_table(str(WEKA_FIXTURES / f"{name}.arff"))
    assert weka_reading(table) == (WEKA_FIXTURES / f"{name}.read").read_text(encoding="utf-8")


@pytest.mark.parametrize("quoted,text", [
    (r"a\tb", "a\tb"), (r"k\n1", "k\n1"), (r"it\'s", "it's"), (r"b\\s", "b\\s"), (r"p\%", "p%"),
    (r"\101\60\7", "A0\x07"), (r"\477", "'7"), (r"\x", "x"), (r"\a\b\f\v\r", "\x07\b\x0c\x0b\r"),
])
def test_backslash_escapes_as_javas_stream_tokenizer_reads_them(quoted, text):
    assert unescape(quoted) == text


@pytest.mark.parametrize("text,value", [("1d", 1.0), ("1.1f", 1.1), ("+.5e1", 5.0), ("0x1.8p1", 3.0),
                                        ("-0", -0.0), ("1e400", math.inf), (" 2.5 ", 2.5), ("-Infinity", -math.inf)])
def test_numbers_as_javas_double_value_of_reads_them(text, value):
    assert java_double(text) == value and java_double("inf") is None and java_double("1_0") is None
    assert math.isnan(java_double("+NaN"))


def test_rows_may_be_separated_by_spaces_tabs_and_runs_of_commas_and_carry_weights():
    table = parse_arff("@relation r\n@attribute a numeric\n@attribute 'b c' {x,'y z'}\n@data\n"
                       "1 x\n2\t'y z' {2.5}\n3,,x % c\n{0 4}\n{1 'y z'} {0}\n", "w.arff")
    assert table.names == ["a", "b c"] and table.columns == [["1.0", "2.0", "3.0", "4.0", "0.0"],
                                                              ["x", "y z", "x", "x", "y z"]]
    assert table.weights == [1.0, 2.5, 1.0, 1.0, 0.0] and table.lines == [5, 6, 7, 8, 9]


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_plain_rows_over_many_blocks_keep_their_values_and_lines(end):
    rows = [f"{k}.5,{'xy'[k % 2]}" for k in range(2500)]
    rows[1500] = "'1500.5' x"  # a row for the tokenizer, between blocks of plain rows
    text = end.join(["@relation r", "@attribute a numeric", "@attribute b {x,y}", "@data", *rows]) + end
    table = parse_arff(text, "w.arff")
    assert table.columns == [[f"{k}.5" for k in range(2500)], ["xy"[k % 2] for k in range(2500)]]
    assert table.lines == list(range(5, 2505)) and table.weights == [1.0] * 2500
    with pytest.raises(TreegenError, match="^bad.arff:2205:1: column 'a': 'zz' is not a number$"):
        parse_arff(text.replace(f"{end}2200.5,x{end}", f"{end}zz,x{end}"), "bad.arff")

# Spellings of numbers, and whether a plain row's column reads them at once (the others are java_double's, word by
# word)
TRICKY_NUMBERS = [
    ("1e5", True), ("1E+05", True), (".5", True), ("5.", True), ("-0", True), ("-0.0", True), ("+3", True),
    ("00012", True), ("1E-320", True), ("4.9e-324", True), ("2.4e-324", True), ("2.5e-324", True),
    ("1e999", True), ("-1e999", True), ("1e-999", True), ("1e" + "9" * 40, True), ("-1e-" + "9" * 40, True),
    ("1.7976931348623157e308", True), ("1.7976931348623159e308", True), ("123456789012345678901234567890", True),
    ("0.1000000000000000055511151231257827021181583404541015625", True),
    ("NaN", False), ("-NaN", False), ("Infinity", False), ("-Infinity", False), ("1d", False), ("2.5F", False),
    ("0x1p3", False), ("nan", False), ("inf", False), ("Infinity5", False), ("1_0", False), ("e5", False),
    ("1e", False), (".", False), ("-", False), ("+-1", False), ("1.2.3", False), ("?5", False), ("１", False),
]


def bits(doubles: Doubles) -> tuple[bytes, bytes]:
    return doubles.numbers.tobytes(), doubles.missing.tobytes()


def test_plain_rows_read_tricky_numbers_as_the_tokenizer_does():
    """Rows of words alone are read a block at a time; the same rows with a weight, by the tokenizer:
    the same doubles bit for bit, and where Java refuses a word, the same error at the same place."""
    words = [word for word, _ in TRICKY_NUMBERS]
    rows = [f"{word},{other}" for word in words for other in ("?", "0.25", words[0])] * 2
    refused = {word for word in words if java_double(word) is None}
    accepted = [row for row in rows if refused.isdisjoint(row.split(","))]
    plain, tokenized = read_both_ways(accepted)
    assert plain == tokenized and plain[-1] == [1.0] * len(accepted)
    plain, tokenized = read_both_ways(rows)
    assert plain == tokenized == "w.arff:89:1: column 'a': 'nan' is not a number"


@pytest.mark.parametrize("odd,error", [
    ("", None), ("% a comment", None), ("\x01 3 ,,\t4\x0b ", None), ("3,\u00e9", None), ("'3',4", None),
    ("1,2 {2}", None), ("1,2,3", "w.arff:5:5: expected 2 values as declared, found more"),
    ("7", "w.arff:5:2: expected 2 values as declared, found 1"),
    (("1,2,3", "7"), "w.arff:5:5: expected 2 values as declared, found more")])  # as many words as 2 rows
def test_blocks_of_a_thousand_plain_lines_read_as_the_tokenizer_reads_their_rows(odd, error):
    """Rows read up to 1000 lines at a time, up to a line that
    is not plain (blank, a comment, other separators, non-ASCII, quotes, a weight, too many or too few
    values): the same values, lines, weights and errors as the tokenizer's."""
    rows = [f"{k}.5,{k % 7}" for k in range(2600)]
    odd = odd if isinstance(odd, tuple) else (odd,)
    for n, k in enumerate((0, 999, 1000, 1001, 1998, 2400)):
        rows[k] = odd[n % len(odd)]
    header = "@relation r\n@attribute a numeric\n@attribute b {0,1,2,3,4,5,6,\u00e9}\n@data\n"
    plain, tokenized = read_both_ways(rows, header, odd)
    assert plain == tokenized
    assert plain == error if error else len(plain[-1]) == 2600 - 6 * (odd[0] in ("", "% a comment"))


def read_both_ways(rows: list[str], header: str = "@relation r\n@attribute a numeric\n@attribute b numeric\n@data\n",
                   odd: tuple[str, ...] = ()) -> tuple:
    """The columns of the rows read as plain rows and read by the tokenizer (a weight after each row
    but the odd ones): their bits, lines and weights, or the error."""
    read = []
    weighted = "\n".join(row if row in odd else row + " {1}" for row in rows)
    for text in (header + "\n".join(rows), header + weighted):
        try:
            table = parse_arff(text, "w.arff")
            read.append([bits(column) if isinstance(column, Doubles) else column for column in table.columns]
                        + [table.lines, table.weights])
        except TreegenError as err:
            read.append(str(err))
    return tuple(read)


def test_a_numeric_arff_column_reads_as_the_texts_of_its_doubles_and_encodes_to_them():
    """The reader keeps numbers as doubles; as a table column they read as their reprs, '?' as None
    and 'NaN' as the number NaN ('nan'), in plain rows and in rows the tokenizer reads alike."""
    plain = ["1d,x", "?,y", "NaN,x", "-0,?", "2.50,x", "1e3,y"]
    for rows in (plain, [row + " % a comment: for the tokenizer" for row in plain]):
        table = parse_arff("@relation r\n@attribute a numeric\n@attribute c {x,y}\n@data\n" + "\n".join(rows))
        texts = ["1.0", None, "nan", "-0.0", "2.5", "1000.0"]
        column = table.columns[0]
        assert column == texts and list(column) == texts and column[1:3] == texts[1:3] and column[-1] == "1000.0"
        assert len(column) == 6 and repr(column) == repr(texts)
        ds = to_dataset(table)  # the row without a class is left out
        assert [str(v) for v in ds.columns[0]] == ["1.0", "nan", "nan", "2.5", "1000.0"]


def test_string_attributes_are_refused_in_one_line_as_j48_refuses_them():
    assert "Cannot handle string attributes" in (WEKA_FIXTURES / "string.refused").read_text()
    with pytest.raises(TreegenError, match="string attribute, which J48 refuses") as err:
        read_table(str(WEKA_FIXTURES / "string.arff"))
    assert (err.value.line, err.value.column) == (3, 17)


@pytest.mark.parametrize("text,message,line", [
    ("@relation r\n@attribute a numeric\n@data\n1,2\n", "expected 1 values as declared, found more", 4),
    ("@relation r\n@attribute a numeric\n@data\n'1\n", "a quote that is not closed", 4),
    ("@relation r\n@attribute a numeric\n@data\n1 {x}\n", "instance weight must be a number", 4),
    ("@relation r\n@attribute a numeric\n@data\n1 {-1}\n", "instance weight must be a number", 4),
    ("@relation r\n@attribute a date 'yyyy-ww'\n@data\n", "letter 'w' is not supported", 2),
    ("@relation r\n@attribute a date 'yyyy-MM-dd'\n@data\n2010-13-01\n", "is not a date in the format", 4),
    ("@relation r\n@attribute a {x,y,x}\n@data\n", "declares the value 'x' twice", 2),
    ("@relation r\n@attribute a numeric\n@data\n1d0\n", "'1d0' is not a number", 4),
    ("@relation r\n@attribute a {x,y}\n@attribute b numeric\n@data\nx\n", "expected 2 values as declared, found 1", 5),
    ("@relation r\n@attribute a numeric\n@data\n{1 2}\n", "out of order or out of range", 4),
    ("@relation r\n@attribute a {x,y}\n@data\nz\n", "not a declared value", 4),
    ("@relation r\n@attribute a strange\n@data\n", "unsupported attribute type", 2),
    ("@relation r\n@attribute a numeric\n", "no @data", None),
    ("@relation r\n@bogus\n", "expected @relation", 2),
])
def test_malformed_arff(text, message, line):
    with pytest.raises(TreegenError) as err:
        parse_arff(text, "bad.arff")
    assert message in err.value.message and err.value.line == line


def test_bad_number_unknown_column_and_empty_data():
    from treegen.data import rows_for_model
    from treegen.learn import fit
    model = fit(to_dataset(parse_csv("a,b\n1,x\n2,y\n"), target="b", regression=False), "cart")
    with pytest.raises(TreegenError, match="'foo' is not a number") as err:
        rows_for_model(parse_csv("a,b\n1,x\nfoo,y\n", "new.csv"), model)
    assert err.value.line == 3
    with pytest.raises(TreegenError, match="unknown column 'nope'"):
        to_dataset(parse_csv("a,b\n1,2\n"), target="nope")
    with pytest.raises(TreegenError, match="no rows"):
        to_dataset(parse_csv("a,b\n"))


def test_non_utf8_file_names_its_line(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes("a,b\n1,x\n2,caf\xe9\n".encode("latin-1"))
    with pytest.raises(TreegenError) as err:
        read_table(str(path))
    assert err.value.message == ("cannot read data: not UTF-8 text; convert it first, e.g. "
                                 f"iconv -f cp1252 -t utf-8 {path} > {tmp_path / 'latin1-utf8.csv'}")
    assert err.value.line == 3


CSV_FIELDS = ["a", "1", "2.5", "", "NA", " ?", '"q\nr"', '"x,y"', '""', '"\r\n"', "é", "\x00", "\ufeffb"]


@settings(max_examples=300, deadline=None)
@given(width=st.integers(1, 3), fields=st.lists(st.sampled_from(CSV_FIELDS), min_size=20, max_size=180),
       ends=st.lists(st.sampled_from(["\n", "\r\n", "\r", "\n\n"]), min_size=60, max_size=60),
       bom=st.booleans(), noise=st.sampled_from(["", '"', "x,", "\n,\n", "\udcff"]), at=st.floats(0, 1),
       rows=st.integers(1, 3), block=st.sampled_from([64, 70, 97, 128]))
def test_a_file_read_in_parts_over_blocks_reads_as_it_does_whole(width, fields, ends, bom, noise, at, rows, block):
    """`treegen predict`'s reader (parts of ``rows`` records over blocks of ``block`` bytes) gives the columns, lines
    and errors of the whole file read at once, whatever its quoted line ends, line ends, blank lines, BOMs and NULs,
    and a quote, a field, blank lines or a byte that is no UTF-8 put anywhere. (A part at a time, such a byte is
    found when its block is read: an error before it is said first.)"""
    import tempfile

    import treegen.data
    records = [",".join(fields[i:i + width]) for i in range(0, len(fields) - width + 1, width)]
    text = ",".join(f"c{j}" for j in range(width)) + "\n" + "".join(r + e for r, e in zip(records, ends))
    cut = int(at * len(text))
    data = (b"\xef\xbb\xbf" if bom else b"") + (text[:cut] + noise + text[cut:]).encode("utf-8", "surrogateescape")
    with tempfile.NamedTemporaryFile(suffix=".csv") as f:
        f.write(data)
        f.flush()
        whole, parts = _read_or_error(lambda: [read_table(f.name)]), None
        default, treegen.data._BLOCK = treegen.data._BLOCK, block
        try:
            parts = _read_or_error(lambda: list(treegen.data.read_tables(f.name, rows)))
        finally:
            treegen.data._BLOCK = default
    if isinstance(whole, str) and "UTF-8" in whole and "UTF-8" not in str(parts):
        assert isinstance(parts, str)  # a record before the byte found wrong first
        return
    assert parts == whole


def _read_or_error(read):
    """The tables' names, header line, columns and lines, each part's appended; or the error's text."""
    try:
        tables = read()
    except TreegenError as err:
        return str(err)
    return (tables[0].names, tables[0].header_line, [sum((t.columns[j] for t in tables), [])
                                                      for j in range(len(tables[0].names))],
            sum((t.lines for t in tables), []))


@pytest.mark.parametrize("rest,line", [(b"a,b\n\xff,c\n", 2), (b"\xc3\xa9\xc3\xa9\xff,b\n", 1)])
def test_a_byte_that_is_no_utf8_after_a_byte_order_mark_is_placed_on_its_line(tmp_path, rest, line):
    """utf-8-sig counts an error's place in the bytes after the BOM: the line was counted three bytes short (line 1
    for a byte on line 2), and the text before it cut inside a character, whose decoding raised a traceback."""
    path = tmp_path / "bom.csv"
    path.write_bytes(b"\xef\xbb\xbf" + rest)
    with pytest.raises(TreegenError) as err:
        read_table(str(path))
    assert err.value.message.startswith("cannot read data: not UTF-8 text; ") and err.value.line == line


def test_semicolons_in_a_one_column_header_say_that_treegen_reads_commas():
    with pytest.raises(TreegenError) as err:
        to_dataset(parse_csv("a;b\n1;2\n", "semi.csv"))
    assert str(err.value) == ("semi.csv: no feature columns besides the target 'a;b'; treegen reads "
                              "comma-separated values, and the header is one field with ';' in it")
    assert parse_csv("a;b\n1;2\n").columns == [["1;2"]]  # still one column: the syntax is the same


def test_a_model_fitted_on_arrays_says_how_to_name_its_features():
    from treegen.data import rows_for_model
    from treegen.learn import fit
    model = fit(to_dataset(parse_csv("x0,x1,y\n1,2,a\n2,1,b\n")), "cart")
    with pytest.raises(TreegenError) as err:
        rows_for_model(parse_csv("width,height\n1,2\n"), model)
    assert err.value.message == "no column named 'x0'"  # treegen's own: named from its CSV, nothing to import
    model.meta["library"] = "sklearn"
    with pytest.raises(TreegenError) as err:
        rows_for_model(parse_csv("width,height\n1,2\n"), model)
    assert err.value.message == ("no column named 'x0'; the model was fitted on arrays, without column names: "
                                 "import it again with treegen import --feature-names width,height (the columns' "
                                 "names in the order it was fitted on)")


def test_an_imported_model_whose_names_a_csv_lacks_says_how_to_rename_them():
    """The names of an imported model come from its file (LightGBM names a numpy array's columns Column_0,
    ...): where a CSV has none or few of them, the error says how to name them anew, with the CSV's own
    names when it has as many columns as the model has features."""
    from treegen.data import rows_for_model
    from treegen.learn import fit
    model = fit(to_dataset(parse_csv("Column_0,Column_1,y\n1,2,a\n2,1,b\n1,1,a\n")), "cart")
    model.meta["library"] = "LightGBM"
    with pytest.raises(TreegenError) as err:
        rows_for_model(parse_csv("width,height,label\n1,2,a\n"), model)
    assert err.value.message.endswith("; the model was fitted on arrays, without column names: import it again "
                                      "with treegen import --feature-names NAME,... (the columns' names in the "
                                      "order it was fitted on)")
    with pytest.raises(TreegenError) as err:
        rows_for_model(parse_csv('width,"size, cm"\n1,2\n'), model)
    assert err.value.message.endswith("""import it again with treegen import --feature-names 'width,"size, cm"' """
                                      "(the columns' names in the order it was fitted on)")
    model = fit(to_dataset(parse_csv("amount,hour,country,y\n" + "".join(f"{i},{i % 5},{i % 3},{'ab'[i % 2]}\n"
                                                                          for i in range(20)))), "cart")
    model.meta["library"] = "XGBoost"
    used = ", ".join(repr(model.features[i].name) for i in sorted(model.used_features()))
    with pytest.raises(TreegenError) as err:
        rows_for_model(parse_csv("a,b,c\n1,2,3\n"), model)
    assert err.value.message == (f"no column{'s' if len(model.used_features()) > 1 else ''} named {used}; the "
                                 "model's feature names are those of the columns it was fitted on, which its file "
                                 "keeps: name the table's columns as the model does (in the order of its features)")


# -- one CSV syntax: data.py and the generated programs read the same bytes the same way ------------

# Trained on "num" (numeric) and "c" (nominal); every case below is read by data.py (treegen predict)
# and by each generated program, which must print the same predictions or the same error.
CSV_TRAINING = "num,c,y\n" + "".join(f"{n},{c},{'p' if n <= 2 else 'q' if c == 'a' else 'r'}\n"
                                     for n in range(5) for c in "ab")
CSV_CASES = [  # (what, bytes)
    ("byte order mark", b"\xef\xbb\xbfnum,c\n1,a\n3,b\n"),
    ("two byte order marks", b"\xef\xbb\xbf\xef\xbb\xbfnum,c\n1,a\n3,b\n"),  # one skipped, one in the name
    ("header names padded with spaces", b" num , c \n1,a\n3,b\n"),
    ("missing tokens with spaces around", b"num,c\n,a\n?,b\nNA,a\n NA ,b\n   ,a\n3, ? \n3,NA\n3,\n3,  \n"),
    ("NaN in a numeric column is missing", b"num,c\nNaN,a\nnan,b\n-nan,a\n"),
    ("categories exactly as written", b"num,c\n3, a\n3,a \n3,NaN\n3,na\n3,A\n"),
    ("number grammar", b"num,c\n1.5,a\n-2,b\n+3e0,a\n.5,b\n5.,a\ninf,a\n-Infinity,b\n1E+2,a\n007,b\n"),
    ("quoted fields and names", b'"num","c"\n"3","a"\n3,"b"\n3,"a\nb"\n3,"a,b"\n'),
    ("CRLF and lone CR line ends", b"num,c\r\n1,a\r\n3,b\r3,a\r\n"),
    ("columns in another order, and more", b"x,c,num\n1,a,3\n2,b,1\n"),
    ("space before a number", b"num,c\n1,a\n 3,b\n"),
    ("space after a number", b"num,c\n3 ,b\n"),
    ("underscore in a number", b"num,c\n1_000,b\n"),
    ("Java's double suffix", b"num,c\n1d,b\n"),
    ("hexadecimal float", b"num,c\n0x1p3,b\n"),
    ("exponent without digits", b"num,c\n1e,b\n"),
    # numbers on both sides of a line break inside quotes: each line reads as a number, the field as none
    ("a line break inside a quoted number", b'num,c\n"1\n2",b\n'),
    ("full-width digits", "num,c\n２００,b\n".encode()),
    ("a dotless i in inf", "num,c\n\u0131nf,b\n".encode()),
    ("a row too short", b"num,c\n1,a\n3\n"),
    ("a row too long", b"num,c\n1,a,x\n"),
    ("line breaks inside quotes, then a row too long", b'num,c\n3,"a\rb\r\nc\nd"\n3,x,y\n'),
    ("a blank line in two columns", b"num,c\n1,a\n\n3,b\n"),  # no record: skipped, as pandas and R skip it
    ("blank lines before and after the header", b"\n\r\nnum,c\n\n\n1,a\n3,b\n\n\n"),
    ("blank CRLF and CR lines", b"num,c\r\n\r\n1,a\r\n\r\r3,b\r\n\r\n"),
    ("a byte order mark then a blank line", b"\xef\xbb\xbf\nnum,c\n1,a\n3,b\n"),
    ("a blank line inside quotes is text", b'num,c\n3,"a\n\nb"\n\n1,a\n'),
    ("a header and blank lines only", b"num,c\n\n\r\n"),
    ("blank lines only", b"\n\r\n\r"),
    ("a line of spaces is a record", b"num,c\n1,a\n  \n"),
    ("an empty quoted field is a record", b'num,c\n1,a\n""\n'),
    ("a row too short after blank lines", b'num,c\n\n3,"x\n\ny"\r\n\r\n3\n'),
    ("a number error after blank lines", b"num,c\n\n\n1,a\n\nz,b\n"),
    ("a name twice after blank lines", b"\n\nnum,c,num\n1,a,2\n"),
    ("a column missing after a blank line", b"\r\nnumber,c\n1,a\n"),
    ("text after a closing quote", b'num,c\n1,a\n"3"x,b\n'),
    ("a quoted field not closed", b'num,c\n1,a\n3,"b\n4,a\n'),
    ("a name twice", b"num,c,num \n1,a,2\n"),
    ("a header of empty names", b", \n1,a\n"),
    ("a column missing", b"number,c\n1,a\n"),
    ("empty input", b""),
    ("not UTF-8", b"num,c\n1,a\n3,caf\xe9\n"),
    ("a UTF-16 surrogate in UTF-8", b"num,c\n3,\xed\xa0\x80\n"),
    ("an overlong UTF-8 form", b"num,c\n3,a\n3,\xc0\xaf\n"),
    # a field holds at most 131,072 characters (Python's csv.field_size_limit()), counted as code points
    ("fields of 131,072 characters", b"num,c\n3," + "\u00e9".encode() * 131072 + b"\n3,"
     + "\U0001f600".encode() * 131072 + b'\n3,"' + b'""' * 131070 + b'\r\n"\n1,a\n'),
    ("a field of 131,073 characters", b"num,c\n1,a\n3," + b"x" * 131073 + b"\n"),
    ("131,073 characters outside the BMP", b"num,c\n1,a\n3," + "\U0001f600".encode() * 131073 + b"\n"),
    ("a long field in a column no feature reads", b"num,c,note\n1,a,\n3,b," + b"x" * 131073 + b"\n"),
    ("131,073 characters of quotes and line breaks", b'num,c\n1,a\n3,"' + b'"",\r\n' * 32768 + b'x"\n'),
    ("a quote left open for longer than a field", b'num,c\n1,a\n3,"b\n' + b"4,a\n" * 40000),
]


def csv_model():
    from treegen.learn import fit
    return fit(to_dataset(parse_csv(CSV_TRAINING)), "cart")


def read_as_treegen_predicts(model, raw: bytes, tmp_path) -> list[str] | str:
    """What `treegen predict` makes of the bytes: the predictions, or the error as `line N: message`."""
    from treegen.data import rows_for_model
    path = tmp_path / "input.csv"
    path.write_bytes(raw)
    try:
        return [model.predict(row) for row in rows_for_model(read_table(str(path)), model)]
    except TreegenError as err:
        message = "not UTF-8" if "not UTF-8" in err.message else err.message  # read_text words it longer
        return f"line {err.line}: {message}"


def test_tricky_csv_is_read_by_one_syntax(tmp_path):
    model = csv_model()
    got = {what: read_as_treegen_predicts(model, raw, tmp_path) for what, raw in CSV_CASES}
    assert got["byte order mark"] == got["header names padded with spaces"] == ["p", "r"]
    assert got["missing tokens with spaces around"] == [model.predict({"num": None, "c": c}) for c in "abab"] + [
        model.predict({"num": None, "c": "a"})] + [model.predict({"num": 3.0, "c": None})] * 4
    assert got["NaN in a numeric column is missing"] == [model.predict({"num": None, "c": c}) for c in "aba"]
    assert got["categories exactly as written"] == [model.predict({"num": 3.0, "c": None})] * 5
    assert got["number grammar"] == [model.predict({"num": v, "c": c}) for v, c in [
        (1.5, "a"), (-2.0, "b"), (3.0, "a"), (0.5, "b"), (5.0, "a"), (math.inf, "a"), (-math.inf, "b"),
        (100.0, "a"), (7.0, "b")]]
    assert got["quoted fields and names"] == ["q", "r"] + [model.predict({"num": 3.0, "c": None})] * 2
    assert got["CRLF and lone CR line ends"] == ["p", "r", "q"]
    for blank_lines in ("a blank line in two columns", "blank lines before and after the header",
                        "blank CRLF and CR lines", "a byte order mark then a blank line"):
        assert got[blank_lines] == ["p", "r"], blank_lines
    assert got["a blank line inside quotes is text"] == [model.predict({"num": 3.0, "c": None}), "p"]
    assert got["a header and blank lines only"] == []
    assert got["fields of 131,072 characters"] == [model.predict({"num": 3.0, "c": None})] * 3 + ["p"]
    assert got["columns in another order, and more"] == ["q", "p"]
    for what, text in [("space before a number", "line 3: column 'num': ' 3' is not a number"),
                       ("space after a number", "line 2: column 'num': '3 ' is not a number"),
                       ("underscore in a number", "line 2: column 'num': '1_000' is not a number"),
                       ("Java's double suffix", "line 2: column 'num': '1d' is not a number"),
                       ("hexadecimal float", "line 2: column 'num': '0x1p3' is not a number"),
                       ("exponent without digits", "line 2: column 'num': '1e' is not a number"),
                       ("a line break inside a quoted number", "line 2: column 'num': '1\\n2' is not a number"),
                       ("a row too short", "line 3: expected 2 fields as in the header, found 1"),
                       ("a row too long", "line 2: expected 2 fields as in the header, found 3"),
                       ("line breaks inside quotes, then a row too long",
                        "line 6: expected 2 fields as in the header, found 3"),
                       ("a line of spaces is a record", "line 3: expected 2 fields as in the header, found 1"),
                       ("an empty quoted field is a record", "line 3: expected 2 fields as in the header, found 1"),
                       ("a row too short after blank lines", "line 7: expected 2 fields as in the header, found 1"),
                       ("a number error after blank lines", "line 6: column 'num': 'z' is not a number"),
                       ("a name twice after blank lines", "line 3: column name 'num' appears twice"),
                       ("a column missing after a blank line",
                        "line 2: no column named 'num'; did you mean 'number'?"),
                       ("blank lines only", "line 1: empty file: expected a header row"),
                       ("text after a closing quote", "line 3: text after a closing quote"),
                       ("a quoted field not closed", "line 3: a quoted field is not closed"),
                       ("a name twice", "line 1: column name 'num' appears twice"),
                       ("a header of empty names", "line 1: empty file: expected a header row"),
                       ("a column missing", "line 1: no column named 'num'; did you mean 'number'?"),
                       ("two byte order marks", "line 1: no column named 'num'; did you mean '\\ufeffnum'?"),
                       ("empty input", "line 1: empty file: expected a header row"),
                       ("not UTF-8", "line 3: not UTF-8"),
                       ("a UTF-16 surrogate in UTF-8", "line 2: not UTF-8"),
                       ("an overlong UTF-8 form", "line 3: not UTF-8"),
                       *((what, "line 3: malformed CSV: field larger than field limit (131072)") for what in (
                           "a field of 131,073 characters", "131,073 characters outside the BMP",
                           "a long field in a column no feature reads", "131,073 characters of quotes and line breaks",
                           "a quote left open for longer than a field"))]:
        assert got[what] == text, what
    assert got["a dotless i in inf"].startswith("line 2: column 'num': ") and "is not a number" in got["a dotless i in inf"]
    assert got["full-width digits"].startswith("line 2: column 'num': ") and "is not a number" in got["full-width digits"]


def program_reads(target: str, source: str, raw: bytes, directory) -> list[str] | str:
    """A generated program's predictions for the bytes on its standard input, or its one-line error
    without 'error: ' (which must come with exit status 2)."""
    import csv
    import io
    import subprocess
    import sys
    if target == "java":
        from treegen.run.java import class_name, compile_sources
        command = ["java", "-cp", compile_sources([source])[0], class_name(source)]
    elif target == "c":
        from treegen.run.c import compile_sources as compile_c
        command = [compile_c([source])[0]]
    elif target == "javascript":
        from treegen.run.javascript import command as node_command
        command = node_command(source, str(directory))
    else:
        path = directory / "model.py"
        path.write_text(source, encoding="utf-8")
        command = [sys.executable, str(path)]
    done = subprocess.run(command, input=raw, capture_output=True)
    if done.returncode == 0:
        return [r[0] for r in csv.reader(io.StringIO(done.stdout.decode("utf-8"), newline=""))]
    error = done.stderr.decode("ascii")
    assert done.returncode == 2 and error.startswith("error: ") and error.count("\n") == 1, error
    return error[len("error: "):-1]


@pytest.mark.parametrize("target", ["python", "java", "javascript", "c"])
def test_generated_programs_read_csv_as_treegen_predict_does(target, tmp_path):
    """Every tricky input above: the same predictions, or the same error on the same line."""
    from treegen.targets import emit
    model = csv_model()
    source = emit(model, target)
    escaped = {"full-width digits": "'\\uff12\\uff10\\uff10'", "a dotless i in inf": "'\\u0131nf'",
               "a line break inside a quoted number": "'1\\u000a2'"}
    for what, raw in CSV_CASES:
        got = program_reads(target, source, raw, tmp_path)
        if what in escaped:  # Python's repr keeps the characters, the programs ASCII-escape them
            assert got == f"line 2: column 'num': {escaped[what]} is not a number", (what, got)
        else:  # each says more after a '; ': treegen which column a missing one may be, a program the header's others
            expected = read_as_treegen_predicts(model, raw, tmp_path)
            if isinstance(expected, str):
                got, expected = got.split("; the header's other columns: ")[0], expected.split("; ")[0]
            assert got == expected, what


def test_blank_lines_are_no_records_and_lines_count_physical_lines():
    """A line with no characters is skipped anywhere; "" (how Python's csv writes one empty field) and a
    line of spaces are records of one missing value. Rows and the header keep their physical lines."""
    table = parse_csv('\n\r\nx\n\n1\r\n\r\n""\n  \n\n', "one.csv")
    assert (table.names, table.columns, table.lines, table.header_line) == (["x"], [["1", None, None]], [5, 7, 8], 3)
    assert len(parse_csv("x,y\n\n\n")) == 0
    with pytest.raises(TreegenError, match="no rows with a value for the target column 'y'"):
        to_dataset(parse_csv("x,y\n\n\n"))
    with pytest.raises(TreegenError) as err:
        to_dataset(parse_csv("\n\na,,y\n1,2,3\n"))
    assert (err.value.message, err.value.line) == ("column 2 has no name", 3)


@pytest.mark.parametrize("target", ["python", "java", "javascript", "c"])
def test_a_one_column_file_reads_an_empty_quoted_field_and_skips_a_blank_line(target, tmp_path):
    from treegen.learn import fit
    from treegen.targets import emit
    model = fit(to_dataset(parse_csv("x,y\n1,a\n2,a\n3,b\n4,b\n,b\n")), "cart")
    raw = b'x\n""\n\n3\n\n1\n'
    expected = [model.predict({"x": x}) for x in (None, 3.0, 1.0)]
    assert read_as_treegen_predicts(model, raw, tmp_path) == expected and len(set(expected)) > 1
    assert program_reads(target, emit(model, target), raw, tmp_path) == expected


@pytest.mark.parametrize("target", ["python", "java", "javascript", "c"])
def test_a_row_too_long_for_a_one_column_header_counts_one_field(target, tmp_path):
    """'expected 1 field', not '1 fields': in treegen and in every generated program alike."""
    from treegen.learn import fit
    from treegen.targets import emit
    model = fit(to_dataset(parse_csv("x,y\n1,a\n2,a\n3,b\n4,b\n")), "cart")
    raw = b"x\n1\n2,3\n"
    expected = "line 3: expected 1 field as in the header, found 2"
    assert read_as_treegen_predicts(model, raw, tmp_path) == expected
    assert program_reads(target, emit(model, target), raw, tmp_path) == expected


def test_training_reads_the_same_syntax():
    """Padding, a BOM, every missing token and infinities: the same tree as from the plain file."""
    from treegen.learn import fit
    from treegen.modelio import dumps
    plain = CSV_TRAINING + "?,a,p\n1,,p\n"
    tricky = ("\ufeff num , c ,y \n" + CSV_TRAINING.split("\n", 1)[1] + " NA ,a,p\n1,NA,p\n"
              + "NaN,?,\n3,b,?\n")
    assert dumps(fit(to_dataset(parse_csv(tricky)), "cart")) == dumps(fit(to_dataset(parse_csv(plain)), "cart"))
    ds = to_dataset(parse_csv("x,y\ninf,1\n-inf,2\nnan,3\n1,nan\n"))  # the last row's target is missing
    assert ds.features[0].is_numeric and list(ds.columns[0][:2]) == [math.inf, -math.inf] and list(ds.y) == [1, 2, 3]
    assert math.isnan(ds.columns[0][2])
    assert to_dataset(parse_csv("x,y\n 1,a\n2,b\n")).features[0].categories == (" 1", "2")  # as written
    with pytest.raises(TreegenError, match="column 2 has no name"):
        to_dataset(parse_csv("a,,y\n1,2,3\n"))


def test_one_byte_order_mark_is_skipped_in_a_file_and_in_text(tmp_path):
    """A second BOM is text, part of the first name, in a file as in text given to parse_csv."""
    path = tmp_path / "bom2.csv"
    path.write_bytes(b"\xef\xbb\xbf\xef\xbb\xbfa,b\n1,2\n")
    assert read_table(str(path)).names == ["\ufeffa", "b"]
    assert parse_csv("\ufeff\ufeffa,b\n1,2\n").names == ["\ufeffa", "b"]
    assert parse_csv("\ufeffa,b\n1,2\n").names == ["a", "b"]


def test_an_unknown_column_says_which_it_may_be_quoted_as_python_quotes_it():
    """A quote, a line break and Chinese characters in a name: the message stays one line, each name quoted."""
    table = parse_csv('"it\'s ""x""","new\nline",名字,y\n1,2,3,a\n4,5,6,b\n', "h.csv")
    columns = "'it\\'s \"x\"', 'new\\nline', '名字', 'y'"
    for option, name, meant in [("target", 'its "x"', "'it\\'s \"x\"'"), ("nominal", ["new line"], "'new\\nline'"),
                                ("ignore", ["名子"], None), ("target", "Y", "'y'")]:
        with pytest.raises(TreegenError) as err:
            to_dataset(table, **{option: name})
        unknown = name if isinstance(name, str) else name[0]
        suggestion = f"; did you mean {meant}?" if meant else ""
        assert str(err.value) == f"h.csv: unknown column {unknown!r}; the columns are: {columns}{suggestion}"


def test_a_models_columns_missing_from_the_data_are_each_matched_to_one_left_unread():
    from treegen.data import rows_for_model
    from treegen.learn import fit
    data = parse_csv("outlook,humidity,play\nsun,1,y\nsun,3,n\nrain,1,n\nrain,3,n\nsun,1,y\n")
    model = fit(to_dataset(data, target="play"), "cart")
    assert [model.features[i].name for i in sorted(model.used_features())] == ["outlook", "humidity"]
    with pytest.raises(TreegenError) as err:
        rows_for_model(parse_csv("outlok,humidty,play\nsun,1,y\n", "new.csv"), model)
    assert str(err.value) == ("new.csv:1: no columns named 'outlook', 'humidity'; "
                              "did you mean 'outlok' for 'outlook', 'humidty' for 'humidity'?")
    with pytest.raises(TreegenError) as err:  # 'outlook' is read: no guess for 'humidity' among the others
        rows_for_model(parse_csv("outlook,play\nsun,y\n", "new.csv"), model)
    assert str(err.value) == "new.csv:1: no column named 'humidity'"


def test_csv_text_writes_what_csv_writer_writes_and_quotes_what_the_readers_would_misread():
    """Treegen's one CSV writer: byte for byte csv.writer(lineterminator="\\n") on ordinary fields; a bare CR
    (a line end to every reader) and a leading byte order mark (skipped at the start of a text) quoted,
    so that each field reads back as itself."""
    import csv
    import io
    from treegen.data import csv_text
    ordinary = [["a", "b,c", 'say "hi"', "x\ny", "", None, 0.1, 3], [""], [None], ["\t é ", "1e+300"]]
    written = io.StringIO()
    csv.writer(written, lineterminator="\n").writerows(ordinary)
    assert csv_text(ordinary) == written.getvalue()
    hostile = [["\ufeffx", "a\rb", "y\ufeff"], ["cr\r", "\r", "\ufeff"]]
    assert csv_text(hostile) == '"\ufeffx","a\rb",y\ufeff\n"cr\r","\r","\ufeff"\n'
    table = parse_csv(csv_text(hostile))
    assert table.names == hostile[0] and [column[0] for column in table.columns] == ["cr\r", "\r", "\ufeff"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(st.sampled_from(["a", "", ",", '"', "\n", "\r", "\ufeff", " ", "1.5", "NA", None, 2.5]),
                         max_size=4), max_size=5))
def test_csv_text_joins_plain_records_as_csv_writer_writes_them(records):
    """Records that need no quotes are joined by commas and line ends: byte for byte csv.writer's text."""
    import csv
    import io
    from treegen.data import csv_text
    written = io.StringIO()
    csv.writer(written, lineterminator="\n").writerows(records)
    if "\r" not in written.getvalue() and "\ufeff" not in written.getvalue():
        assert csv_text(records) == written.getvalue()


PLAIN_FIELDS = ["a", "1", "2.5", "", "NA", " ?", " ", "é", "\x00", "\ufeffb", "x" * 40]


@settings(max_examples=400, deadline=None)
@given(width=st.integers(1, 3), fields=st.lists(st.sampled_from(PLAIN_FIELDS), max_size=60),
       ends=st.lists(st.sampled_from(["\n", "\n", "\n\n"]), min_size=30, max_size=30),
       extra=st.sampled_from(["", ",", "x,", ",x,"]), at=st.floats(0, 1), last=st.booleans(),
       block=st.sampled_from([None, 64, 70, 97]))
def test_a_file_without_quotes_or_cr_reads_as_csvs_reader_reads_it(width, fields, ends, extra, at, last, block):
    """A text with no quote and no CR is split at its commas and line ends: the names, columns (missing fields
    None), lines and field-count errors that csv's own reader gives, with blank lines anywhere and a record of
    another width put anywhere; read whole or as a file of small blocks, in parts of two rows."""
    import csv
    import io
    import tempfile

    import treegen.data
    records = [",".join(fields[i:i + width]) for i in range(0, len(fields) - width + 1, width)]
    body = "".join(r + e for r, e in zip(records, ends[1:]))
    cut = body.find("\n", int(at * len(body))) + 1
    body = body[:cut] + extra + "\n" + body[cut:] if extra else body
    text = "\n" + ",".join(f"c{j}" for j in range(width)) + ends[0] + body
    text = text if last else text.rstrip("\n")
    numbered = [(line, record) for line, record in
                enumerate(csv.reader(io.StringIO(text, newline=""), strict=True), 1) if record]
    (header_line, header), rows = numbered[0], numbered[1:]
    wrong = next(((line, record) for line, record in rows if len(record) != width), None)

    def parse_csv(text, source):  # whole, or a file read over blocks of ``block`` bytes
        if block is None:
            return treegen.data.parse_csv(text, source)
        default, treegen.data._BLOCK = treegen.data._BLOCK, block
        with tempfile.NamedTemporaryFile("w", suffix=".csv", encoding="utf-8", newline="") as f:
            f.write(text)
            f.flush()
            try:
                tables = list(treegen.data.read_tables(f.name, 2))
            finally:
                treegen.data._BLOCK = default
        return Table(source, tables[0].names, [sum((t.columns[j] for t in tables), []) for j in range(width)],
                     sum((t.lines for t in tables), []), {}, header_line=tables[0].header_line)

    if wrong is not None:
        with pytest.raises(TreegenError) as err:
            parse_csv(text, "p.csv")
        assert (err.value.line, err.value.message.split(" as")[0]) == (wrong[0], f"expected {width} field"
                                                                                 f"{'s' if width > 1 else ''}")
        assert err.value.message.split(", found ")[1].startswith(str(len(wrong[1])))
        return
    table = parse_csv(text, "p.csv")
    missing = {"", "?", "NA"}
    assert (table.names, table.header_line, table.lines) == (header, header_line, [line for line, _ in rows])
    assert table.columns == [[None if r[j].strip(" ") in missing else r[j] for _, r in rows] for j in range(width)]


@pytest.mark.parametrize("field, wrong, error", [("a", "7", "expected 2 fields"), ('"a"', "7", "expected 2 fields"),
                                                 ('"a"', '7,"a"b', "text after a closing quote")])
def test_the_parts_before_a_wrong_record_are_given_before_its_error(tmp_path, monkeypatch, field, wrong, error):
    """A file read a part at a time gives each whole part before a wrong record, then the error, as csv's reader read
    it a part at a time: `predict` writes their predictions first. A piece of the text split or read at once reaches
    past a part (pieces of 8 here: lines 2-9 split at their commas, or 8 records of csv's reader): its wrong record
    must not take the part before it with it."""
    import treegen.data
    monkeypatch.setattr(treegen.data, "ROWS_A_PART", 8)
    path = tmp_path / "d.csv"
    path.write_text("\n".join(["x,y", "", "", *[f"{i},{field}" for i in range(10)], wrong, "8,a"]) + "\n")
    tables = treegen.data.read_tables(str(path), 5)
    assert [next(tables).lines for _ in range(2)] == [[4, 5, 6, 7, 8], [9, 10, 11, 12, 13]]
    with pytest.raises(TreegenError, match=error) as err:
        next(tables)
    assert err.value.line == 14


def test_floats_language_over_the_characters_of_decimals_is_numbers():
    """Where a column holds only digits, points, signs, exponents and nan, float() alone judges its numbers: over
    those characters it takes exactly the texts NUMBER matches (every text of up to five of them)."""
    import itertools

    from treegen.data import DECIMALS, NUMBER
    for size in range(1, 6):
        for text in map("".join, itertools.product("0.eE+-na", repeat=size)):
            assert DECIMALS.fullmatch(text)
            try:
                float(text)
                taken = True
            except ValueError:
                taken = False
            assert taken == (NUMBER.fullmatch(text) is not None), text


@pytest.mark.parametrize("feature", ["city", "city=x", "=", '"quoted"', 'a "b"', " padded ", "a,b", "line\nbreak", ""])
def test_a_categories_hint_pasted_into_bash_names_the_feature_as_categories_reads_it(feature):
    from treegen.table import categories_argument, feature_categories
    word = categories_argument(feature)
    assert word.isprintable(), word
    assert feature_categories(bash_word(word).replace("A,B,...", 'A,"B, C",""')) == (feature, ["A", "B, C", ""])


def test_categories_are_kept_as_written_and_a_feature_as_before_up_to_the_first_equals_sign():
    from treegen.table import feature_categories
    assert feature_categories(" city = x, y,") == ("city", [" x", " y", ""])
    assert feature_categories("city=") == ("city", [""]) and feature_categories("c=a=b") == ("c", ["a=b"])
    assert feature_categories('c=say "hi",x') == ("c", ['say "hi"', "x"])  # a quote inside a field is text


def test_a_word_after_many_numbers_is_refused_at_once(tmp_path):
    """A column's texts are matched as numbers joined by line ends: NUMBER's [0-9]+\\.?[0-9]* split a run of
    digits anywhere, and a match that failed on a word after 100 numbers backtracked through every split (predict
    did not end). The one-way grammar reads the same texts as numbers."""
    import random
    import re
    from treegen.data import NUMBER_ONE_WAY
    from treegen.model import NUMBER
    one_way, alphabet = re.compile(NUMBER_ONE_WAY, NUMBER.flags), "0123456789.eE+-infatyINF_ "
    rng = random.Random(0)
    for text in ("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8))) for _ in range(50_000)):
        assert bool(NUMBER.fullmatch(text)) == bool(one_way.fullmatch(text)), text
    model, data = tmp_path / "m.json", tmp_path / "d.csv"
    data.write_text("x,y\n" + "".join(f"{i},{i % 3}\n" for i in range(100)), encoding="utf-8")
    treegen_cli("train", str(data), "-a", "cart", "-o", str(model), check=True)
    data.write_text(data.read_text(encoding="utf-8") + "oops,1\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "treegen", "predict", str(model), str(data)], capture_output=True,
                          text=True, timeout=60)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: {data}:102: column 'x': 'oops' is not a number\n")


def test_a_long_numeric_column_is_checked_in_memory_proportionate_to_it():
    """The check that every text of a column is a number, one regular expression over them joined, kept a point to
    go back to at each line (670 bytes each: 134 MB for a column of 200,000 numbers, a 2.4 MB file's); none could
    ever be given back, and now none is kept."""
    import tracemalloc
    text = "x,y\n" + "".join(f"{i}.25,{'ab'[i % 3 == 0]}\n" for i in range(200_000))
    table = parse_csv(text)
    tracemalloc.start()
    try:
        dataset = to_dataset(table)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert dataset.features[0].is_numeric and dataset.columns[0][-1] == 199_999.25
    assert peak < 10 * len(text), (peak, len(text))  # (176 MB before, 14 MB now)
