"""CSV and ARFF readers: kinds, missing values, declared order, UTF-8, errors with file and line."""
import math

import pytest

from treegen.arff import parse_arff
from treegen.data import load_dataset, parse_csv, read_table, to_dataset
from treegen.errors import TreegenError


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
    ds = to_dataset(parse_csv("x,y\n1,a\n2,\n3,b\n"))
    assert len(ds) == 2


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
    ("", "empty file", 1),
    ("a,a\n1,2\n", "appears twice", 1),
    ('a,b\n"1,2\n', "malformed CSV", None),
])
def test_malformed_csv(text, message, line):
    with pytest.raises(TreegenError) as err:
        parse_csv(text, "bad.csv")
    assert message in err.value.message and err.value.file == "bad.csv"
    if line is not None:
        assert err.value.line == line


@pytest.mark.parametrize("text,message,line", [
    ("@relation r\n@attribute a numeric\n@data\n1,2\n", "expected 1 values", 4),
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
    assert "not UTF-8" in err.value.message and err.value.line == 3
