"""What a new user trips over in the files they give: values that are a category but for spaces or case,
a file of another kind or delimiter, and the messages that say so (one line; exit 2 for an error)."""
import os
import pickle
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from treegen.cli import main

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
TENNIS = os.path.join(EXAMPLES, "play_tennis.csv")


def run(*args, code=0):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False, prog_name="treegen")
    assert result.exit_code == code, result.output
    return result


@pytest.fixture(scope="module")
def tennis(tmp_path_factory):
    """ID3's tennis model (it tests outlook, humidity and wind) and its rule text."""
    folder = tmp_path_factory.mktemp("tennis")
    model, rules = str(folder / "tennis.json"), str(folder / "tennis.rules")
    run("train", TENNIS, "-a", "id3", "-o", model)
    run("export", model, "--to", "rules", "-o", rules)
    return model, rules


@pytest.fixture
def spaced(tmp_path):
    """The tennis data written with ', ' between fields, as some tools write CSV."""
    path = tmp_path / "spaced.csv"
    path.write_text(open(TENNIS, encoding="utf-8").read().replace(",", ", "), encoding="utf-8")
    return str(path)


def test_predict_notes_values_that_are_categories_but_for_spaces(tennis, spaced):
    result = run("predict", tennis[0], spaced)
    notes = result.stderr.splitlines()
    assert len(notes) == 2  # humidity and wind; outlook starts each line, without a space
    assert notes[0].startswith("treegen: note: column 'humidity': 14 values are no category of the model but one "
                               "with spaces stripped or case aside (' high' for 'high'): spaces and case count")
    assert "column 'wind'" in notes[1]


def test_evaluate_and_verify_note_values_that_are_categories_but_for_case(tennis, tmp_path):
    cased = tmp_path / "cased.csv"
    cased.write_text(open(TENNIS, encoding="utf-8").read().replace("high", "High"), encoding="utf-8")
    expected = "treegen: note: column 'humidity': 7 values are no category of the model but one with spaces "
    assert run("evaluate", tennis[0], "--test", str(cased)).stderr.startswith(expected)
    assert run("evaluate", TENNIS, "-a", "id3", "--test", str(cased)).stderr.startswith(expected)
    assert run("verify", tennis[0], str(cased), "--to", "rules").stderr.startswith(expected)


def test_evaluate_notes_labels_that_are_classes_but_for_spaces(tennis, tmp_path):
    """Labels written with ', ' (' yes') are no class of the model: evaluate counts them as wrong, and says why."""
    spaced = tmp_path / "labels.csv"
    spaced.write_text(re.sub(",(no|yes)$", r", \1", open(TENNIS, encoding="utf-8").read(), flags=re.M),
                      encoding="utf-8")
    expected = ("treegen: note: column 'play': 14 values are no class of the model but one with spaces stripped or "
                "case aside (' no' for 'no'): spaces and case count, so they are labels the model does not know, "
                "counted as wrong\n")
    assert run("evaluate", tennis[0], "--test", str(spaced)).stderr == expected
    assert run("evaluate", TENNIS, "-a", "id3", "--test", str(spaced)).stderr == expected
    assert run("predict", tennis[0], str(spaced)).stderr == ""  # predict reads no labels


def test_evaluate_notes_values_and_labels_that_spell_the_number_of_one(tmp_path):
    """A CSV of an int column that held a NaN (pandas writes 1.0, 2.0) against a model of categories and classes
    '1', '2': text is read as written, so they are unknown categories and labels counted as wrong, and a note
    says why (an audit saw 0% accuracy and nothing said)."""
    train, test, model = tmp_path / "train.csv", tmp_path / "test.csv", str(tmp_path / "m.json")
    rows = [(f"{k % 3}", f"{k % 2 + 1}") for k in range(30)]
    train.write_text("grade,label\n" + "".join(f"{g},{c}\n" for g, c in rows), encoding="utf-8")
    test.write_text("grade,label\n" + "".join(f"{g}.0,{c}.0\n" for g, c in rows) + "1,2\n", encoding="utf-8")
    run("train", str(train), "--target", "label", "--nominal", "grade,label", "-a", "id3", "-o", model)
    result = run("evaluate", model, "--test", str(test))
    assert result.stderr.splitlines() == [
        "treegen: note: column 'grade': 30 values are no category of the model but spell the number of one "
        "('0.0' for '0'): the text counts, not its number, so they take the route of a category the model does not "
        "know (a missing value's)",
        "treegen: note: column 'label': 30 values are no class of the model but spell the number of one ('1.0' for "
        "'1'): the text counts, not its number, so they are labels the model does not know, counted as wrong"]
    assert "accuracy 0.00% (0/31)" in result.output
    assert run("predict", model, str(test)).stderr.splitlines() == result.stderr.splitlines()[:1]


def test_predict_says_nothing_of_values_as_the_model_knows_them(tennis):
    assert run("predict", tennis[0], TENNIS).stderr == ""


def test_train_warns_of_values_that_begin_with_a_space(spaced):
    result = run("train", spaced, "--target", "play", "-a", "id3")
    warning = result.stderr.splitlines()[0]
    assert warning.startswith("treegen: warning: values begin or end with a space in columns 'temperature' "
                              "(' hot', ...: 14 rows), 'humidity' (' high', ...: 14 rows), 'wind' (' weak', ...: "
                              "14 rows), 'play' (' no', ...: 14 rows): ")
    assert "warning" not in run("train", TENNIS, "-a", "id3").stderr


@pytest.mark.parametrize("command", ["show", "export", "predict"])
def test_a_reader_that_closed_the_pipe_is_no_error(tennis, command):
    """`treegen show m.json | head -1`: the reader goes away; treegen stops quietly, as a Unix tool does."""
    args = {"show": ["show", tennis[0]], "export": ["export", tennis[0], "--to", "python"],
            "predict": ["predict", tennis[0], TENNIS]}[command]
    read, write = os.pipe()
    os.close(read)  # closed before treegen writes: its first write fails
    try:
        done = subprocess.run([sys.executable, "-m", "treegen", *args], stdout=write, stderr=subprocess.PIPE,
                              text=True)
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (141, "")


@pytest.mark.parametrize("args", [
    ["predict", "{model}", "{model}"], ["train", "{model}"], ["evaluate", TENNIS, "--test", "{model}"],
    ["verify", "{model}", "{rules}"], ["evaluate", "{model}", "--test", "{rules}"]])
def test_a_model_given_where_data_is_read_is_named_so(tennis, args):
    args = [arg.format(model=tennis[0], rules=tennis[1]) for arg in args]
    result = run(*args, code=2)
    kind = "rule text" if args[-1].endswith(".rules") else "a model (JSON)"
    assert result.stderr == f"treegen: error: {args[-1]}: this looks like {kind}, not CSV or ARFF data\n"


@pytest.mark.parametrize("delimiter,held", [(";", "';'"), ("\t", "tabs")])
@pytest.mark.parametrize("args", [["train", "{data}", "--target", "play"], ["train", "{data}", "--ignore", "wind"],
                                  ["predict", "{model}", "{data}"], ["evaluate", "{model}", "--test", "{data}"]])
def test_every_unknown_column_of_a_file_of_another_delimiter_says_why(tennis, tmp_path, delimiter, held, args):
    data = tmp_path / "other.csv"
    data.write_text(open(TENNIS, encoding="utf-8").read().replace(",", delimiter), encoding="utf-8")
    result = run(*[arg.format(data=data, model=tennis[0]) for arg in args], code=2)
    assert result.stderr.endswith(f"; treegen reads comma-separated values, and the header is one field with {held} "
                                  "in it\n")


@pytest.mark.parametrize("encoding,named,said", [
    ("utf-16", "utf-16", "UTF-16 text, not UTF-8;"), ("utf-32", "utf-32", "UTF-32 text, not UTF-8;"),  # a BOM
    ("utf-16-le", "utf-16le", "UTF-16 text, not UTF-8;"),  # no BOM: ASCII in it is valid UTF-8
    ("utf-16-be", "utf-16be", "UTF-16 text"), ("utf-32-le", "utf-32le", "UTF-32 text"),
    ("cp1252", "cp1252", "not UTF-8 text;")])
def test_text_in_another_encoding_is_named_with_how_to_convert_it(tmp_path, encoding, named, said):
    data = tmp_path / "wide.csv"
    data.write_bytes("outlook,play\nsunny,no\ncaf\u00e9,yes\n".encode(encoding))
    result = run("train", str(data), code=2)
    assert said in result.stderr
    assert result.stderr.endswith(f"; convert it first, e.g. iconv -f {named} -t utf-8 {data} > "
                                  f"{tmp_path / 'wide-utf8.csv'}\n")


@pytest.mark.parametrize("which,encoding,named,said", [
    (0, "utf-16", "utf-16", "UTF-16 text, not UTF-8;"), (1, "utf-16", "utf-16", "UTF-16 text, not UTF-8;"),
    (0, "utf-16-le", "utf-16le", "UTF-16 text, not UTF-8;"), (1, "utf-32", "utf-32", "UTF-32 text, not UTF-8;"),
    (0, "cp1252", "cp1252", "not UTF-8 text;")])  # a file named .json is a model: how to convert it too
def test_a_model_in_another_encoding_is_named_with_how_to_convert_it(tennis, tmp_path, which, encoding, named, said):
    """As a CSV file or `parse`'s rule text is: the JSON model and the rule text that `show` (every command
    that reads a model) reads."""
    text = open(tennis[which], encoding="utf-8").read().replace('"id3"', '"caf\u00e9"').replace("id3", "caf\u00e9")
    model = tmp_path / ("wide.json", "wide.rules")[which]
    model.write_bytes(text.encode(encoding))
    result = run("show", str(model), code=2)
    line = 1 if encoding != "cp1252" else 1 + text[:text.index("caf")].count("\n")  # that of the first é
    assert result.stderr.startswith(f"treegen: error: {model}:{line}: cannot read model: {said}")
    assert result.stderr.endswith(f"; convert it first, e.g. iconv -f {named} -t utf-8 {model} > "
                                  f"{tmp_path / ('wide-utf8' + model.suffix)}\n")


def test_evaluate_warns_of_the_data_as_train_does():
    iris = os.path.join(EXAMPLES, "boosting", "iris_missing.csv")
    trained, evaluated = (run(*command, iris, "-a", "cart").stderr.splitlines()
                          for command in (["train"], ["evaluate", "--folds", "3"]))
    assert trained[0].startswith("treegen: warning: target 'species' is numeric with 3 whole-number values")
    assert evaluated == trained[:1]


@pytest.mark.parametrize("args,message", [
    (["export", "{model}", "--to", "pyhton"], "Invalid value for '--to': 'pyhton' is not one of 'python', 'java', "
                                              "'javascript', 'c', 'sql', 'rules', 'dot'; did you mean 'python'?"),
    (["verify", "{model}", "--to", "pyhton"], "cannot verify target 'pyhton'; choose from python, java, "
                                              "javascript, c, sql, rules; did you mean 'python'?"),
    (["train", TENNIS, "-a", "c4.5"], "Invalid value for '--algorithm' / '-a': 'c4.5' is not one of 'id3', 'c45', "
                                      "'cart'; did you mean 'c45'?"),
    (["verify", "{model}", "--probas"], "No such option '--probas': verify checks the probabilities of every "
                                        "target that writes them, without an option"),
    (["verify", "{model}", "--progrm"], "No such option '--progrm'. Did you mean '--program'?"),
    (["train"], "Missing argument 'DATA'; try 'treegen train -h'"),
])
def test_a_usage_mistake_says_what_was_meant(tennis, args, message):
    result = run(*[arg.format(model=tennis[0]) for arg in args], code=2)
    assert result.stderr == f"treegen: error: {message}\n"


ARFF = "@relation r\n@attribute outlook {sunny,overcast}\n@attribute t numeric\n@attribute play {yes,no}\n@data\n"


@pytest.mark.parametrize("row,where,message", [
    ("overcastt,83,yes", "6:1", "'overcastt' is not a declared value of 'outlook'; did you mean 'overcast'?"),
    ("'overcastt',83,yes", "6:1", "'overcastt' is not a declared value of 'outlook'; did you mean 'overcast'?"),
    ("sunny,83,yes\nsunny,80,noo", "7:10", "'noo' is not a declared value of 'play'; did you mean 'no'?"),
    ("sunny,,yes", "6:8", "column 't': 'yes' is not a number; an empty field is no value in ARFF, and the values "
                          "after it shift: a missing value is '?'"),
    ("sunny,83,", "6:10", "expected 3 values as declared, found 2; an empty field is no value in ARFF, and the "
                          "values after it shift: a missing value is '?'"),
])
def test_a_bad_arff_value_is_located_with_what_was_meant(row, where, message):
    from treegen.arff import parse_arff
    from treegen.errors import TreegenError
    with pytest.raises(TreegenError) as err:
        parse_arff(ARFF + row + "\n", "e.arff")
    assert str(err.value) == f"e.arff:{where}: {message}"


def test_a_misspelt_kind_in_a_model_says_what_it_may_be(tennis, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(open(tennis[0], encoding="utf-8").read().replace('"nominal"', '"nominl"', 1), encoding="utf-8")
    assert run("show", str(bad), code=2).stderr == (f"treegen: error: {bad}: features[0].kind: 'nominl' is not one "
                                                    "of numeric, nominal; did you mean 'nominal'?\n")


def test_counts_of_one_are_singular(tmp_path):
    data, model = tmp_path / "one.csv", str(tmp_path / "one.json")
    data.write_text("a,b\nx,y\nx,y\nz,n\n", encoding="utf-8")
    assert "c45 on 3 rows: 1 node, 1 leaf, depth 0," in run("train", str(data), "-o", model).stderr
    assert "c45 tree: 1 node, 1 leaf, depth 0" in run("show", model).stdout


def test_an_imported_library_is_spelt_as_its_makers_spell_it(tmp_path):
    fixture = os.path.join(os.path.dirname(__file__), "fixtures", "catboost", "binary_onehot_nan_max-1.2.10.json")
    said = run("import", fixture, "-o", str(tmp_path / "m.json")).stderr
    assert said.startswith("treegen: imported CatBoost: 4 trees, 60 nodes, 4 features, predicting 2 classes")


def test_an_unsupported_model_in_a_file_is_named_with_the_file(tmp_path):
    import skops.io
    from sklearn.linear_model import LogisticRegression
    path = tmp_path / "lr.skops"
    skops.io.dump(LogisticRegression().fit([[0.0], [1.0]], [0, 1]), path)
    assert run("import", str(path), code=2).stderr.startswith(
        f"treegen: error: {path}: cannot import a LogisticRegression; supported: DecisionTreeClassifier")
    pickled = tmp_path / "object.pkl"
    pickled.write_bytes(pickle.dumps(object()))
    assert run("import", "--trust", str(pickled), code=2).stderr == (
        f"treegen: error: {pickled}: cannot import an object (from builtins); supported libraries: scikit-learn, "
        "XGBoost, LightGBM, CatBoost\n")


@pytest.mark.parametrize("module, library", [("sklearn", "scikit-learn"), ("xgboost", "XGBoost")])
def test_a_pickle_that_needs_a_library_names_its_pip_package(tmp_path, module, library):
    """The package pip should install here, as verify names it: xgboost-cpu where it has wheels (Linux x86-64)."""
    from treegen.packages import pip_name
    pickled = tmp_path / "model.pkl"
    pickled.write_bytes(b"\x80\x02c" + module.encode() + b".no_such_module\nX\n.")  # a model of a missing module
    assert run("import", "--trust", str(pickled), code=2).stderr == (
        f"treegen: error: {pickled}: cannot load the pickle: it needs {library} (the Python package {module!r}): "
        f"pip install {pip_name(module)} (treegen's [{module}] extra)\n")  # the extras are named as the modules
    assert pip_name("sklearn") == "scikit-learn"
