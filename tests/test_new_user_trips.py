"""What a new user trips over, from the README's commands to a CSV as pandas writes it: each a one-line
error with exit 2 that says what to do, or a warning, and nothing of the user's lost."""
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest

from cli_in_process import treegen_cli

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
TENNIS = os.path.join(EXAMPLES, "play_tennis.csv")
XGBOOST = os.path.join(EXAMPLES, "boosting", "xgboost.json")


@pytest.fixture
def tennis(tmp_path):
    """A copy of the tennis data and an id3 model of it, as rule text too."""
    data = shutil.copy(TENNIS, tmp_path / "tennis.csv")
    model = tmp_path / "tennis.json"
    treegen_cli("train", data, "--algorithm", "id3", "-o", model, check=True)
    rules = tmp_path / "tennis.rules"
    treegen_cli("export", model, "-o", rules, check=True)
    return data, model, rules


@pytest.mark.parametrize("command", [
    lambda data, model, rules: ["train", data, "-o", data],
    lambda data, model, rules: ["train", data, "-o", os.path.join(os.path.dirname(data), ".", "tennis.csv")],
    lambda data, model, rules: ["predict", model, data, "-o", data],
    lambda data, model, rules: ["predict", model, data, "-o", model],
    lambda data, model, rules: ["export", model, "--to", "python", "-o", model],
    lambda data, model, rules: ["parse", rules, "-o", rules],
])
def test_output_onto_an_input_is_refused_and_the_input_kept(tennis, command):
    args = command(*tennis)
    before = {path: open(path, "rb").read() for path in tennis}
    done = treegen_cli(*args)
    assert done.returncode == 2
    assert done.stderr.startswith("treegen: error: -o ") and "input file" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert {path: open(path, "rb").read() for path in tennis} == before


def test_import_onto_the_library_file_is_refused_and_the_file_kept(tmp_path):
    library_file = shutil.copy(XGBOOST, tmp_path / "model.json")
    done = treegen_cli("import", library_file, "-o", library_file)
    assert done.returncode == 2 and "input file" in done.stderr
    assert open(library_file, "rb").read() == open(XGBOOST, "rb").read()


def test_a_c_header_onto_the_model_is_refused(tmp_path):
    model = tmp_path / "tennis.h"  # export -o tennis.c writes tennis.h beside it
    treegen_cli("train", TENNIS, "--algorithm", "id3", "-o", model, check=True)
    before = model.read_bytes()
    done = treegen_cli("export", model, "-o", tmp_path / "tennis.c")
    assert done.returncode == 2 and "input file" in done.stderr
    assert model.read_bytes() == before


def test_output_beside_the_input_is_written(tennis, tmp_path):
    data, model, _ = tennis
    treegen_cli("predict", model, data, "-o", tmp_path / "predicted.csv", check=True)
    assert (tmp_path / "predicted.csv").read_text().startswith("outlook,temperature")


def test_a_pandas_index_column_says_how_to_write_the_file_without(tmp_path):
    data = tmp_path / "frame.csv"  # DataFrame.to_csv("frame.csv"): the index first, its header field empty
    data.write_text(",x,y\n0,1,a\n1,2,b\n2,3,a\n", encoding="utf-8")
    done = treegen_cli("train", data)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: {data}:1: column 1 has no name (pandas' to_csv "
                                                 "writes its index so: write the file with to_csv(..., index=False))\n")


def test_numbers_with_thousands_separators_are_named_so(tmp_path):
    """Read as categories without a word when every value had a separator (a column of prices over 1,000)."""
    data = tmp_path / "prices.csv"
    data.write_text('price,y\n"1,200",a\n"2,500",b\n"1,200",a\n"3,000.5",b\n', encoding="utf-8")
    done = treegen_cli("train", data, "-o", tmp_path / "model.json", check=True)
    assert done.stderr.startswith(f"treegen: warning: {data}:2: column 'price' is read as categories: 4 of its 4 "
                                  "values are written with thousands separators, the first '1,200'; write them "
                                  "without (1200) to read the column as numbers")
    numeric = tmp_path / "numeric.json"
    data.write_text('temperature\n"1,085.5"\n', encoding="utf-8")
    training = tmp_path / "t.csv"
    training.write_text("temperature,y\n1,a\n2,b\n3,a\n4,b\n", encoding="utf-8")
    treegen_cli("train", training, "-a", "cart", "-o", numeric, check=True)
    done = treegen_cli("predict", numeric, data)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: {data}:2: column 'temperature': '1,085.5' is not a "
                                                 "number (thousands separators? write it 1085.5)\n")


@pytest.mark.parametrize("which", ["treegen", "xgboost", "pickle"])
def test_parse_names_a_model_file_as_one(tennis, tmp_path, which):
    """Before: "tennis.json:1:1: unexpected '{'; expected one of: 'treegen', end of line", and of a pickle
    "cannot read rules: not UTF-8 text; convert it first, e.g. iconv -f cp1252 -t utf-8 tree.pkl > ..."."""
    path = {"treegen": tennis[1], "xgboost": XGBOOST, "pickle": tmp_path / "tree.pkl"}[which]
    if which == "pickle":
        path.write_bytes(b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\xff\xfe.")
    said = ("a pickle or joblib file, not rule text: if it is trusted, `treegen import --trust FILE -o model.json` "
            "reads it") if which == "pickle" else ("begins as a model file, not as rule text (which `treegen export "
                                                  "--to rules` writes): export, predict and show take a model file "
                                                  "as it is")
    done = treegen_cli("parse", path)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: {path}:1: {said}\n")


def test_parse_still_reads_rule_text_and_locates_its_mistakes(tennis, tmp_path):
    _, model, rules = tennis
    assert json.loads(treegen_cli("parse", rules, check=True).stdout)["trees"] == json.load(open(model))["trees"]
    broken = tmp_path / "broken.rules"
    broken.write_text("treegen rules, format 1\nfeature outlook: nominal {sunny\n", encoding="utf-8")
    done = treegen_cli("parse", broken)
    assert done.returncode == 2 and done.stderr.startswith(f"treegen: error: {broken}:2:")


def reading_stdin(pid: int) -> bool:
    """Whether the process waits in read(0, ...): Linux's /proc names its system call (read is 0 on x86-64, 63 on
    arm64) and the call's first argument."""
    try:
        with open(f"/proc/{pid}/syscall", encoding="ascii") as call:
            fields = call.read().split()
    except OSError:
        return False
    return fields[:2] in (["0", "0x0"], ["63", "0x0"])


def test_ctrl_c_ends_with_one_line_and_the_shells_code(tennis):
    """SIGINT while predict waits for its rows on stdin: 'Aborted!' and exit 1 before, as click ends; now
    130 (128 + SIGINT), as a shell's tools end, and the output file is not written."""
    _, model, _ = tennis
    output = os.path.join(os.path.dirname(model), "out.csv")
    with subprocess.Popen([sys.executable, "-m", "treegen", "predict", model, "-", "-o", output],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) as program:
        deadline = time.monotonic() + 60
        while not reading_stdin(program.pid) and time.monotonic() < deadline:  # (not in Python's start-up)
            time.sleep(0.05)
        program.send_signal(signal.SIGINT)
        _, stderr = program.communicate(timeout=60)
    assert (program.returncode, stderr) == (130, "treegen: interrupted\n")
    assert not os.path.exists(output)


def test_a_csv_of_the_frame_lightgbm_respelt_says_how_to_import_with_its_names(tmp_path):
    """LightGBM keeps a frame's 'mean radius' as 'mean_radius'; a CSV of that frame (to_csv) lacks the model's
    names. Before: 'did you mean' with three guesses for each feature, the right import not said."""
    import lightgbm as lgb  # (the test extra's oracles)
    import numpy as np
    import pandas as pd
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(200, 3)), columns=["mean radius", "plain", "mean texture"])
    y = (frame["mean radius"] + frame["mean texture"] > 0).astype(int)
    lgb.LGBMClassifier(n_estimators=3, verbose=-1).fit(frame, y).booster_.save_model(tmp_path / "model.txt")
    frame.to_csv(tmp_path / "frame.csv", index=False)
    done = treegen_cli("predict", tmp_path / "model.txt", tmp_path / "frame.csv")
    hint = "--feature-names 'mean radius,plain,mean texture'"
    assert (done.returncode, done.stderr) == (2, (
        f"treegen: error: {tmp_path / 'frame.csv'}:1: no columns named 'mean_radius', 'mean_texture'; LightGBM "
        "stored the names of the columns it was fitted on respelt ('mean radius' as 'mean_radius'): import it "
        f"again with treegen import {hint}\n"))
    treegen_cli("import", tmp_path / "model.txt", "--feature-names", "mean radius,plain,mean texture", "-o",
                tmp_path / "model.json", check=True)
    predicted = treegen_cli("predict", tmp_path / "model.json", tmp_path / "frame.csv", check=True).stdout
    assert len(predicted.splitlines()) == 201


def test_a_comma_at_the_end_of_every_line_is_named_so(tmp_path):
    data = tmp_path / "trailing.csv"
    data.write_text("x,y,\n1,a,\n2,b,\n", encoding="utf-8")
    done = treegen_cli("train", data)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: {data}:1: column 3 has no name and no value: "
                                                 "every line ends with a comma; remove it\n")
    data.write_text("x,y,\n1,a,\n2,b,3\n", encoding="utf-8")  # a value: no guess
    assert treegen_cli("train", data).stderr == f"treegen: error: {data}:1: column 3 has no name\n"


def test_import_from_standard_input_says_it_takes_a_path():
    done = treegen_cli("import", "-", input="{}")
    assert (done.returncode, done.stderr) == (2, "treegen: error: import reads a model file by its path, not standard "
                                                 "input ('-'): give the file\n")


def test_an_empty_model_file_is_named_so(tmp_path):
    (tmp_path / "model.json").write_text("", encoding="utf-8")
    done = treegen_cli("predict", tmp_path / "model.json", TENNIS)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: {tmp_path / 'model.json'}: an empty file: neither "
                                                 "a treegen model (JSON) nor rule text (a file of rule text begins "
                                                 "with \"treegen rules, format 1\")\n")


@pytest.mark.parametrize("command", ["predict", "verify"])
def test_data_and_model_swapped_are_named_so(tennis, command):
    """Before: 'tennis.csv: neither a treegen model (JSON) nor rule text (...)', the order not said."""
    data, model, _ = tennis
    done = treegen_cli(command, data, model)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: MODEL comes first, then DATA: {data} is no model "
                                                 f"and {model} is one; give them the other way round\n")


@pytest.mark.parametrize("word,said", [
    ("version", "'treegen --version' shows the version"),  # click guessed "Did you mean 'verify'?"
    ("help", "'treegen --help' lists the commands, 'treegen COMMAND --help' shows one"),
])
def test_help_and_version_as_commands_say_the_option(word, said):
    done = treegen_cli(word)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: No such command {word!r}: {said}\n")


@pytest.mark.parametrize("command", ["train", "predict"])
def test_a_library_model_given_as_data_is_named_so(tennis, tmp_path, command):
    """Before: a LightGBM model.txt trained as data said "no feature columns besides the target 'tree'", an
    XGBoost .ubj "UTF-16 text, not UTF-8; convert it first, e.g. iconv -f utf-16le ...", a pickle to iconv it."""
    lightgbm = os.path.join(EXAMPLES, "boosting", "lightgbm.txt")
    pickle_file = tmp_path / "model.pkl"
    pickle_file.write_bytes(b"\x80\x04\x95\x10\x00\x00\x00\x00\x00\x00\x00\xff\xfe.")
    for path, kind in ((lightgbm, "a model file (as `treegen import` reads it)"),
                       (pickle_file, "a pickle or joblib file")):
        args = [command, path] if command == "train" else [command, tennis[1], path]
        done = treegen_cli(*args)
        assert (done.returncode, done.stderr) == (2, f"treegen: error: {path}: this is {kind}, not CSV or ARFF data\n")


@pytest.mark.parametrize("name,start,said", [
    ("data.xlsx", b"PK\x03\x04\x14\x00\x06\x00", "a zip archive (an Excel .xlsx workbook is one), not CSV or ARFF "
                                                 "data: save the sheet as CSV (UTF-8), or unzip the CSV file in it"),
    ("data.parquet", b"PAR1\x15\x04\x15\x00", "a Parquet file, not CSV or ARFF data: write it as CSV, e.g. "
                                             "pandas.read_parquet(path).to_csv('data.csv', index=False)"),
    ("data.csv.gz", b"\x1f\x8b\x08\x00\x00\x00\x00\x00", "a gzip-compressed file, not CSV or ARFF data: gunzip it "
                                                         "first"),  # was read as a joblib pickle
])
def test_a_binary_data_file_says_what_it_is_and_what_to_do(tmp_path, name, start, said):
    """Before: "cannot read data: not UTF-8 text; convert it first, e.g. iconv -f cp1252 ..." (or UTF-16)."""
    path = tmp_path / name
    path.write_bytes(start + bytes(range(256)) * 4)
    done = treegen_cli("train", path)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: {path}: this is {said}\n")


@pytest.mark.parametrize("command", [["train", TENNIS], ["import", XGBOOST]])
def test_a_model_written_to_a_code_file_is_refused_with_the_export_to_run(tmp_path, command):
    """`treegen train data.csv -o model.py` wrote the JSON model into model.py, without a word."""
    output = tmp_path / "model.py"
    done = treegen_cli(*command, "-o", output)
    json_file = tmp_path / "model.json"
    assert (done.returncode, done.stderr) == (2, f"treegen: error: -o {output}: {command[0]} writes a treegen model "
                                                 f"(JSON), not python; write it to {json_file}, then `treegen export "
                                                 f"{json_file} -o {output}` compiles it\n")
    assert not output.exists()


def test_a_column_of_true_and_false_warns_that_sql_tables_hold_it_otherwise(tmp_path):
    """pandas writes a bool column True/False: categories here and in every program, which pandas' to_sql into
    SQLite (1 and 0) does not match: 13 of 60 rows answered otherwise, without a word. The warning says so, and
    what to write (a BOOLEAN column names them: DuckDB's read_csv makes one)."""
    data = tmp_path / "members.csv"
    data.write_text("member,amount,y\n" + "".join(f"{('True', 'False')[i % 2]},{i},{'ab'[i % 3 == 0]}\n"
                                                  for i in range(30)), encoding="utf-8")
    done = treegen_cli("train", data, "-o", tmp_path / "model.json", check=True)
    assert done.stderr.startswith(
        "treegen: warning: column 'member' holds True and False, read as categories: a SQL table that holds it as 1 "
        "and 0 (pandas' to_sql into SQLite, MySQL's BOOLEAN) matches no category, and the SQL reads every row's as "
        "unknown; write the column as 1 and 0 to read it as a number, or --nominal member says the categories are "
        "meant\n")
    meant = treegen_cli("train", data, "--nominal", "member", "-o", tmp_path / "model.json", check=True)
    assert "warning" not in meant.stderr


def test_another_tools_missing_value_at_predict_says_what_treegen_reads_as_missing(tmp_path):
    """A SQL export's NULL in a numeric column: before, only "'NULL' is not a number"."""
    training, rows = tmp_path / "t.csv", tmp_path / "rows.csv"
    training.write_text("x,y\n1,a\n2,b\n3,a\n4,b\n", encoding="utf-8")
    rows.write_text("x\n1\nNULL\n", encoding="utf-8")
    treegen_cli("train", training, "-a", "cart", "-o", tmp_path / "m.json", check=True)
    done = treegen_cli("predict", tmp_path / "m.json", rows)
    assert (done.returncode, done.stderr) == (2, f"treegen: error: {rows}:3: column 'x': 'NULL' is not a number "
                                                 "(missing? treegen's CSV reads only an empty field, '?' or 'NA' as "
                                                 "missing)\n")


def test_a_search_is_refused_with_its_best_estimator_named(tmp_path):
    """A GridSearchCV, given to the API or saved whole with skops, names its best_estimator_ (the search's
    refit model) as what to import; the skops file's refusal named only the search's internal types."""
    import skops.io
    from sklearn.model_selection import GridSearchCV
    from sklearn.tree import DecisionTreeClassifier

    import treegen
    X, y = [[float(i % 7), float(i % 3)] for i in range(60)], [i % 2 for i in range(60)]
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), {"max_depth": [2, 3]}, cv=3).fit(X, y)
    with pytest.raises(treegen.TreegenError, match="^cannot import a GridSearchCV: import its best_estimator_, "):
        treegen.from_sklearn(search)
    assert treegen.from_sklearn(search.best_estimator_).trees
    skops.io.dump(search, tmp_path / "search.skops")
    done = treegen_cli("import", tmp_path / "search.skops")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert done.stderr.rstrip().endswith("save its best_estimator_ with skops and import that"), done.stderr


def test_data_from_a_pipe_is_read_whole(tmp_path):
    """A CSV given through a pipe (a shell's `<(zcat data.csv.gz)`): the look at a data file's first bytes (is it a
    workbook, a model?) took them from the pipe, and the rest read as an empty file."""
    command = f"{shlex.quote(sys.executable)} -m treegen train <(cat {shlex.quote(TENNIS)}) --target play -o m.json"
    done = subprocess.run(["bash", "-c", command], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "trained c45 on 14 rows" in done.stderr, done.stderr
