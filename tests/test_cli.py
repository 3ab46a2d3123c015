"""The command line, as a user runs it: the issue's walk-through, and one-line errors with exit 2."""
import json
import os
import re
import shlex
import subprocess
import sys

import pytest
import click
from click.testing import CliRunner

from cli_in_process import treegen_cli
from treegen.cli import main

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
TENNIS = os.path.join(EXAMPLES, "play_tennis.csv")


def run(*args, ok=True):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


def test_walk_through(tmp_path):
    model, rules, again = (str(tmp_path / n) for n in ("tennis.json", "tennis.rules", "again.json"))
    run("train", TENNIS, "--target", "play", "--algorithm", "id3", "-o", model)
    shown = run("show", model).output
    assert "outlook = sunny\n|   humidity = high: no (no: 3, yes: 0)" in shown
    run("export", model, "--to", "rules", "-o", rules)
    assert "rule 1:" in open(rules, encoding="utf-8").read()
    run("parse", rules, "-o", again)
    assert json.load(open(again))["trees"] == json.load(open(model))["trees"]
    predicted = run("predict", again, TENNIS, "--proba").output.splitlines()
    assert predicted[0] == "outlook,temperature,humidity,wind,play,prediction,P(no),P(yes)"
    assert predicted[1] == "sunny,hot,high,weak,no,no,1.0,0.0"
    evaluated = run("evaluate", TENNIS, "--target", "play", "--algorithm", "id3", "--loo").output
    assert "accuracy 78.57% (11/14)" in evaluated


@pytest.mark.parametrize("model,data", [
    ("examples/boosting/xgboost.json", "examples/boosting/iris_missing.csv"),  # many trees: ids joined by ';'
    ("train", TENNIS),  # C4.5 with missing values: a fractional route ends at several nodes
])
def test_predict_leaf_is_what_every_program_prints(tmp_path, model, data):
    if model == "train":
        missing = tmp_path / "tennis.csv"
        missing.write_text("outlook,temperature,humidity,wind\n,hot,high,strong\nsunny,mild,,weak\nrain,,,\n")
        model, data = str(tmp_path / "t.json"), str(missing)
        run("train", TENNIS, "-o", model)
    program = str(tmp_path / "model.py")
    run("export", model, "--to", "python", "--leaf", "-o", program)
    with open(data, encoding="utf-8") as handle:
        printed = subprocess.run([sys.executable, program, "--leaf"], stdin=handle, capture_output=True, text=True,
                                 check=True).stdout.splitlines()
    table = run("predict", model, data, "--leaf").stdout.splitlines()
    assert table[0].endswith(",prediction,leaf") and [line.rsplit(",", 1)[1] for line in table[1:]] == printed
    assert any("|" in ids or ";" in ids for ids in printed)


def test_import_says_what_it_read(tmp_path):
    """As train says what it built: one line on stderr, the model on stdout or in the file."""
    out = str(tmp_path / "x.json")
    done = cli("import", os.path.join(EXAMPLES, "boosting", "xgboost.json"), "-o", out)
    assert (done.returncode, done.stdout) == (0, "")
    said = done.stderr.splitlines()
    assert said[0] == f"treegen: imported XGBoost: 60 trees, 496 nodes, 4 features, predicting 3 classes ('y'); wrote {out}"
    # (XGBClassifier.save_model's file: the wrapper's missing value is not in it, which import says once)
    assert len(said) == 2 and said[1].startswith("treegen: note: the file, saved by XGBoost's scikit-learn wrapper")
    to_stdout = cli("import", os.path.join(EXAMPLES, "boosting", "xgboost.json"))
    assert json.loads(to_stdout.stdout)["format"] == "treegen-model" and "wrote" not in to_stdout.stderr


def test_a_library_model_file_is_imported_where_a_model_is_read(tmp_path):
    """export, verify, predict and show take XGBoost's or LightGBM's own file as `treegen import`
    with its defaults would read it; a pickle is still refused (loading one runs code)."""
    for native in ("xgboost.json", "lightgbm.txt"):
        path = os.path.join(EXAMPLES, "boosting", native)
        imported = str(tmp_path / f"{native}.model.json")
        run("import", path, "-o", imported)
        assert run("export", path, "--to", "python").output == run("export", imported, "--to", "python").output
        data = os.path.join(EXAMPLES, "boosting", "iris_missing.csv")
        assert run("predict", path, data).output == run("predict", imported, data).output
        assert "ok" in run("verify", path, data, "--to", "python").output
    pickle = tmp_path / "model.pkl"
    pickle.write_bytes(b"\x80\x04K\x01.")
    result = cli("show", str(pickle))
    assert result.returncode == 2 and "model.pkl: a pickle" in result.stderr and "import --trust" in result.stderr
    assert result.stderr.count("\n") == 1


def test_show_reads_rule_text_too(tmp_path):
    rules = tmp_path / "t.rules"
    model = run("train", TENNIS, "-a", "id3").stdout
    (tmp_path / "m.json").write_text(model, encoding="utf-8")
    rules.write_text(run("export", str(tmp_path / "m.json"), "--to", "rules").output, encoding="utf-8")
    assert "outlook = overcast: yes" in run("show", str(rules)).output


def test_blank_lines_are_no_records_to_train_predict_and_verify(tmp_path):
    """Blank lines (leading, between records, several, CRLF, trailing) change nothing: the same model, one
    output line per record with its id, and every target agrees with the model on the file."""
    records = ["1,1.5,x,p", "2,2.5,y,q", "3,0.5,x,p", "4,3.5,y,q", "5,,x,q"]
    plain, blank = tmp_path / "plain.csv", tmp_path / "blank.csv"
    plain.write_text("id,a,b,y\n" + "\n".join(records) + "\n", encoding="utf-8")
    blank.write_bytes(("id,a,b,y\n\n" + records[0] + "\r\n\r\n" + "\n\n\n".join(records[1:]) + "\n\n").encode())
    models = [str(tmp_path / name) for name in ("plain.json", "blank.json")]
    for data, model in zip((plain, blank), models):
        run("train", str(data), "--ignore", "id", "-a", "cart", "--min-samples-leaf", "1", "-o", model)
    plain_model, blank_model = ({**m, "meta": {**m["meta"], "source": None}} for m in map(json.load, map(open, models)))
    assert plain_model == blank_model  # but for the data file's name
    predicted = run("predict", models[0], str(blank), "--proba").output
    assert predicted == run("predict", models[0], str(plain), "--proba").output
    assert [line.split(",")[0] for line in predicted.splitlines()] == ["id", "1", "2", "3", "4", "5"]
    result = cli("verify", models[0], str(blank), "--dialect", "sqlite")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["python", "java", "javascript", "c", "sql/sqlite", "rules"]
    assert all(" ok " in line and "(5 from the data," in line for line in lines), lines


def test_predict_writes_a_file(tmp_path):
    model = tmp_path / "m.json"
    run("train", TENNIS, "-a", "id3", "-o", str(model))
    run("predict", str(model), TENNIS, "-o", str(tmp_path / "p.csv"))
    assert (tmp_path / "p.csv").read_text().splitlines()[1].endswith(",no")


def test_predict_reads_data_from_standard_input(tmp_path):
    """DATA '-' is CSV on standard input (it was a file named '-': "No such file or directory")."""
    model = tmp_path / "m.json"
    run("train", TENNIS, "-a", "id3", "-o", str(model))
    with open(TENNIS, encoding="utf-8") as f:
        piped = subprocess.run([sys.executable, "-m", "treegen", "predict", str(model), "-"], stdin=f,
                               capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stdout == run("predict", str(model), TENNIS).output, piped.stderr


def tennis_rows(count: int) -> str:
    """CSV of ``count`` rows for the tennis model, with what a reader a part at a time must carry over: a quoted
    field spanning lines, CRLF and blank lines, missing fields, and values near a category ('Sunny', ' rain')."""
    values = [("sunny", "hot", "high", "weak"), ("Sunny", "mild", "NA", "strong"), (" rain", "cool", "normal", "?"),
              ("overcast", "", "high", "weak"), ("rain", "mild", "normal", "strong")]
    lines = ["outlook,temperature,humidity,wind,note\n"]
    for i in range(count):
        note = f'"row {i}\nsecond line"' if i % 9 == 4 else f"row {i}"
        lines.append(",".join([*values[i % 5 if i < count // 2 else i % 2 * 4], note]) + ("\r\n" if i % 4 else "\n"))
        lines.append("\n" if i % 11 == 3 else "")
    return "".join(lines)


def tennis_case(tmp_path, algorithm: str, count: int):
    """A tennis model trained by ``algorithm``, and a CSV of ``count`` rows for it (:func:`tennis_rows`)."""
    model, data = str(tmp_path / "tennis.json"), tmp_path / "rows.csv"
    run("train", TENNIS, "-a", algorithm, "-o", model)
    data.write_text(tennis_rows(count), encoding="utf-8", newline="")
    return model, data


def test_predict_reads_a_file_a_part_at_a_time_as_it_reads_it_whole(tmp_path, monkeypatch):
    """`treegen predict` reads, predicts and writes a CSV ROWS_A_PART rows at a time: parts of 7 rows give the text,
    the notes and the line numbers that one part gives, across records spanning lines, blank lines, missing
    fields and near categories that only some parts hold (counted over all of them), fractional routes (C4.5 with
    missing values), --proba and --leaf."""
    import treegen.data
    model, data = tennis_case(tmp_path, "c45", 60)
    answers = {}
    for rows in (7, 1_000_000):
        monkeypatch.setattr(treegen.data, "ROWS_A_PART", rows)
        answers[rows] = treegen_cli("predict", model, str(data), "--proba", "--leaf", check=True)
    assert answers[7].stdout == answers[1_000_000].stdout and answers[7].stderr == answers[1_000_000].stderr
    assert answers[7].stdout.count("\n") == 1 + 60 + 7  # the notes of 7 rows span two lines
    assert "column 'outlook': 12 values are no category" in answers[7].stderr  # 'Sunny' and ' rain' of every part
    assert "('Sunny' for 'sunny')" in answers[7].stderr
    text = tennis_rows(60).replace("row 50", '"row 50')  # a quote opened, closed by row 58's, text after it
    data.write_text(text, encoding="utf-8", newline="")
    line = text[:text.index('"row 50')].count("\n") + 1
    for rows in (7, 1_000_000):
        monkeypatch.setattr(treegen.data, "ROWS_A_PART", rows)
        refused = treegen_cli("predict", model, str(data))
        assert refused.returncode == 2
        assert refused.stderr == f"treegen: error: {data}:{line}: text after a closing quote\n"


def test_evaluate_reads_a_test_file_a_part_at_a_time_as_it_reads_it_whole(tmp_path, monkeypatch):
    """`treegen evaluate MODEL --test FILE` reads FILE a part at a time too, keeping only the labels, the answers and
    the lines: the report and the notes (a category near one of the model's, a label near a class) are those of the
    file read whole."""
    import treegen.data
    model, data = str(tmp_path / "tennis.json"), tmp_path / "rows.csv"
    run("train", TENNIS, "-a", "c45", "-o", model)
    header, *rows = open(TENNIS, encoding="utf-8").read().splitlines(keepends=True)
    data.write_text(header + "".join(rows) * 10 + "Sunny,hot,high,weak,Yes\n" + "".join(rows[:3]), encoding="utf-8")
    answers = {}
    for part in (7, 1_000_000):
        monkeypatch.setattr(treegen.data, "ROWS_A_PART", part)
        answers[part] = treegen_cli("evaluate", model, "--test", str(data), check=True)
    assert answers[7].stdout == answers[1_000_000].stdout and answers[7].stderr == answers[1_000_000].stderr
    assert f"on {data}: 144 predictions\n" in answers[7].stdout
    assert "'Sunny' for 'sunny'" in answers[7].stderr and "'Yes' for 'yes'" in answers[7].stderr


def test_predict_refusing_a_row_in_a_later_part_leaves_the_output_file_as_it_was(tmp_path, monkeypatch):
    """The -o file is written beside itself and takes its name once every part is written: a row refused in the
    third part leaves the old file as it was (and nothing beside it); written, the file keeps its mode. On stdout
    the parts before the refused row have gone down the pipe, as any streaming tool's."""
    import treegen.data
    monkeypatch.setattr(treegen.data, "ROWS_A_PART", 5)
    model, data, out = "examples/boosting/xgboost.json", tmp_path / "iris.csv", tmp_path / "out.csv"
    lines = open("examples/boosting/iris_missing.csv", encoding="utf-8").read().splitlines(keepends=True)[:21]
    data.write_text("".join(lines[:16] + ["5.0,abc,1.4,0.2,0\n"] + lines[16:]), encoding="utf-8")
    out.write_text("the old predictions\n")
    os.chmod(out, 0o640)
    refused = treegen_cli("predict", model, str(data), "-o", str(out))
    assert refused.returncode == 2 and refused.stderr.startswith(f"treegen: error: {data}:17: column 'sepal_width': ")
    assert out.read_text() == "the old predictions\n" and sorted(os.listdir(tmp_path)) == ["iris.csv", "out.csv"]
    piped = treegen_cli("predict", model, str(data))
    assert piped.returncode == 2 and piped.stdout.count("\n") == 1 + 15 and piped.stderr == refused.stderr
    data.write_text("".join(lines), encoding="utf-8")
    assert treegen_cli("predict", model, str(data), "-o", str(out)).returncode == 0
    assert out.read_text() == treegen_cli("predict", model, str(data)).stdout and os.stat(out).st_mode & 0o777 == 0o640
    assert sorted(os.listdir(tmp_path)) == ["iris.csv", "out.csv"]


def test_predict_holds_one_part_of_a_big_file_in_memory(tmp_path, monkeypatch):
    """Its memory is a part's, not the file's: 30,000 rows read in blocks of 64 kB and parts of 1,000 take a tenth of
    what one part of all of them takes (traced Python memory; the whole file read at once held it all, as text
    and as columns)."""
    import tracemalloc
    import treegen.data
    monkeypatch.setattr(treegen.data, "_BLOCK", 1 << 16)
    model, data = tennis_case(tmp_path, "id3", 30_000)
    peaks = {}
    for rows in (1_000, 1_000_000):
        monkeypatch.setattr(treegen.data, "ROWS_A_PART", rows)
        tracemalloc.start()
        done = treegen_cli("predict", model, str(data), "-o", str(tmp_path / f"out{rows}.csv"))
        peaks[rows] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "out1000.csv").read_bytes() == (tmp_path / "out1000000.csv").read_bytes()
    assert peaks[1_000] < peaks[1_000_000] / 10, peaks


def test_predict_names_an_added_column_the_data_has_already_as_sql_does(tmp_path):
    """A header with a name twice is one no reader takes back, and the data's column may be a feature the model
    reads (`prediction`): an added column the data has already is named as the SQL target names it, with one
    note on stderr; the output of an earlier predict, given again, too."""
    model, out = str(tmp_path / "m.json"), tmp_path / "p.csv"
    run("train", TENNIS, "-a", "id3", "-o", model)
    run("predict", model, TENNIS, "--proba", "-o", str(out))
    again = cli("predict", model, str(out), "--proba", "--leaf")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0] == ("outlook,temperature,humidity,wind,play,prediction,P(no),P(yes),"
                                            "prediction_2,P(no)_2,P(yes)_2,leaf")
    assert again.stderr == ("treegen: note: the data has columns 'prediction', 'P(no)', 'P(yes)' already: the output "
                            "names its own 'prediction_2', 'P(no)_2', 'P(yes)_2'\n")
    data = tmp_path / "d.csv"  # features named as the added columns, one named as a renamed one too
    data.write_text("prediction,leaf,prediction_2,y\n" + "".join(f"{i},{i % 3},{i % 2},{'ab'[i % 2]}\n"
                                                                 for i in range(20)), encoding="utf-8")
    run("train", str(data), "-a", "cart", "-o", model)
    done = cli("predict", model, str(data), "--leaf")
    assert done.returncode == 0 and done.stdout.splitlines()[:2] == ["prediction,leaf,prediction_2,y,prediction_3,"
                                                                     "leaf_2", "0,0,0,a,a,1"], done
    assert done.stderr == ("treegen: note: the data has columns 'prediction', 'leaf' already: the output names "
                           "its own 'prediction_3', 'leaf_2'\n")
    assert cli("predict", model, str(data)).stderr == ("treegen: note: the data has a column 'prediction' already: "
                                                       "the output names its own 'prediction_3'\n")


def test_predict_on_huge_inputs_says_no_numpy_warning(tmp_path):
    """Linear leaves at huge inputs make terms of inf and -inf, whose sum is NaN (as LightGBM's, and the
    model's row by row): predict answers it, and numpy's RuntimeWarning is no user's business."""
    model, data = tmp_path / "m.json", tmp_path / "d.csv"
    leaves = [{"nodes": [{"value": [0.0], "linear": {"const": 0.0, "terms": [[0, coeff]]}}]} for coeff in (2.0, -3.0)]
    document = {"format": "treegen-model", "version": 1, "features": [{"name": "x", "kind": "numeric"}],
                "target": {"name": "y", "kind": "regression"}, "combine": {"kind": "sum", "init": [0.0]},
                "trees": leaves}
    model.write_text(json.dumps(document), encoding="utf-8")
    data.write_text("x\n1\n1e308\n-1e308\ninf\n1e300\n", encoding="utf-8")
    done = cli("predict", str(model), str(data))
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    assert done.stdout.splitlines() == ["x,prediction", "1,-1.0", "1e308,nan", "-1e308,nan", "inf,nan", "1e300,-1e+300"]


def test_a_column_name_with_a_comma_is_given_quoted(tmp_path):
    """--nominal, --ignore and --feature-names read each value as one CSV record: a name with a comma
    in it is written quoted, as in the data's header."""
    data = tmp_path / "comma.csv"
    data.write_text('"income, net",b,label\n1,2,x\n3,4,y\n5,6,x\n7,8,y\n', encoding="utf-8")
    model = json.loads(run("train", str(data), "-a", "cart", "--ignore", '"income, net"').stdout)
    assert [f["name"] for f in model["features"]] == ["b"]
    model = json.loads(run("train", str(data), "-a", "cart", "--nominal", 'b, "income, net"').stdout)
    assert [f["kind"] for f in model["features"]] == ["nominal", "nominal"]
    done = cli("train", str(data), "--ignore", "income, net")
    assert done.returncode == 2 and "unknown column 'income'" in done.stderr


def test_evaluate_folds_and_held_out_file():
    out = run("evaluate", TENNIS, "-a", "id3", "--folds", "3", "--seed", "7").output
    assert "stratified 3-fold cross-validation (seed 7): 14 predictions" in out and "precision" in out
    assert run("evaluate", TENNIS, "-a", "id3", "--folds", "3", "--seed", "7").output == out
    held = run("evaluate", TENNIS, "-a", "id3", "--test", TENNIS).output
    assert "accuracy 100.00% (14/14)" in held


def test_help_and_version():
    for command in ("train", "show", "export", "parse", "predict", "evaluate", "import", "verify"):
        assert "Usage:" in run(command, "--help").output
    assert "treegen, version" in run("--version").output


cli = treegen_cli  # the command's exit status, stdout and stderr, as a user's shell sees them


BAD_FILES = {
    "ragged.csv": ("a,b\n1,x\n2\n", "ragged.csv:3: expected 2 fields as in the header, found 1"),
    "empty.csv": ("", "empty.csv:1: empty file: expected a header row"),
    "header_only.csv": ("a,b\n", "no rows with a value for the target column 'b'"),
    "constant.csv": ("a,b\nx,yes\ny,yes\n", "has one value only ('yes'): there is nothing to learn"),
    "bad.arff": ("@relation r\n@attribute a {x,y}\n@data\nz\n", "bad.arff:4:1: 'z' is not a declared value of 'a'"),
    "numeric.csv": ("a,b\n1,x\n2,y\n", "ID3 handles nominal features only and 'a' is numeric"),
    "hostile.csv": ('"""; DROP TABLE x; --",b\n1,x\n2,y\n', "ID3 handles nominal features only and '\"; DROP"),
    "spaced.csv": ("Age (years),b\n1,x\n2,y\n", "or cart, or --nominal 'Age (years)'\n"),
    "spaces.csv": ("a,b\nx,y\n\n  \nz,w\n", "spaces.csv:4: expected 2 fields as in the header, found 1"),
    "no_values.csv": ("a,b\n,x\n?,y\n", "no_values.csv: no feature column has a value (every row's is missing): "
                                       "there is nothing to learn 'b' from"),
    "semicolon.csv": ("a;b\nx;y\n", "no feature columns besides the target 'a;b'; treegen reads comma-separated "
                                     "values, and the header is one field with ';' in it"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_data_is_one_line_and_exit_2(tmp_path, name):
    text, message = BAD_FILES[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = cli("train", str(path), "-a", "id3")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert message in result.stderr


@pytest.mark.parametrize("algorithm", ["cart", "c45"])
def test_a_column_missing_in_every_row_trains_with_a_warning(tmp_path, algorithm):
    """It crashed the learners (cart's argmax of an empty sequence, c45's IndexError) and the date warning
    (IndexError): exit 1 and a traceback. Now no split tests it, and every target predicts as the model."""
    path, model = tmp_path / "empty.csv", str(tmp_path / "m.json")
    path.write_text("v,w,y\n" + "".join(f",{i},{'ab'[i % 2]}\n" for i in range(20)), encoding="utf-8")
    result = cli("train", str(path), "-a", algorithm, "-o", model)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == ("treegen: warning: column 'v' has no value (every row's is missing): "
                                             "no split tests it; --ignore v leaves it out")
    checked = cli("verify", model, str(path), "--to", "python", "--to", "sql")
    assert checked.returncode == 0 and "disagree" not in checked.stdout, checked.stdout + checked.stderr


@pytest.mark.parametrize("args,message", [
    (["train", TENNIS, "--target", "nope"], "unknown column 'nope'"),
    (["train", "missing-file.csv"], "missing-file.csv: cannot read data: No such file or directory"),
    (["train", TENNIS, "-a", "c45", "--criterion", "gini"], "--criterion does not apply to --algorithm c45"),
    (["train", TENNIS, "-a", "cart", "--ccp-alpha", "lots"], "--ccp-alpha takes a number at least 0 or 'cv'"),
    (["show", TENNIS], "play_tennis.csv: neither a treegen model (JSON) nor rule text"),
    (["evaluate", TENNIS, "--loo", "--folds", "3"], "choose one of --folds, --loo and --test"),
    (["evaluate", TENNIS, "-a", "id3", "--folds", "99"], "--folds must be between 2 and the number of rows"),
    # options at their edges, refused before the data is read (no warning of it first), NaN as any number out
    # of range; a negative seed went on to numpy's traceback
    (["train", "examples/boosting/iris_missing.csv", "-a", "cart", "--ccp-alpha", "-1"],
     "--ccp-alpha takes a number at least 0"),
    (["train", TENNIS, "-a", "cart", "--ccp-alpha", "nan"], "--ccp-alpha takes a number at least 0 or 'cv', not 'nan'"),
    (["train", TENNIS, "-a", "cart", "--min-impurity-decrease", "nan"], "'nan' is not a number"),
    (["train", TENNIS, "-a", "cart", "--min-weight-fraction-leaf", "NaN"], "'NaN' is not a number"),
    (["train", TENNIS, "--confidence", "nan"], "'nan' is not a number"),
    (["evaluate", TENNIS, "--seed", "-1"], "Invalid value for '--seed': -1 is not in the range x>=0"),
    (["train", TENNIS, "--reduced-error", "--seed", "-1"], "Invalid value for '--seed'"),
])
def test_bad_usage_is_one_line_and_exit_2(args, message):
    result = cli(*args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr


def test_bad_input_errors_say_where_and_what(tmp_path):
    """Found by a bad-input fuzz (badinput): an ARFF's attribute named twice was placed on line 1, and -o ''
    was "cannot write : No such file or directory"."""
    (tmp_path / "a3.arff").write_text("@relation r\n@attribute a numeric\n@attribute a numeric\n"
                                      "@attribute c {x,y}\n@data\n1,2,x\n", encoding="utf-8")
    for args, said in [
            (["train", str(tmp_path / "a3.arff")], f"{tmp_path / 'a3.arff'}:3:1: column name 'a' appears twice"),
            (["train", TENNIS, "-o", ""], "-o '': an output file needs a name ('-' is stdout)"),
            (["export", os.path.join(EXAMPLES, "boosting", "xgboost.json"), "--to", "rules", "-o", ""],
             "-o '': an output file needs a name ('-' is stdout)")]:
        result = cli(*args)
        assert (result.returncode, result.stderr) == (2, f"treegen: error: {said}\n"), result.stderr


def test_show_writes_a_deep_tree_as_it_goes(tmp_path):
    """A chain 20,000 splits deep is 800 MB of indented text: show held it whole, twice (1.7 GB; a hostile
    file 100,000 deep reached 8.3 GB in badinput's fuzz); it writes each line as made, the model's memory."""
    from treegen import modelio
    from treegen.testing import chain_model
    path = tmp_path / "deep.json"
    path.write_text(modelio.dumps(chain_model(20_000)), encoding="utf-8")
    script = ("import resource, subprocess, sys; subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True); "
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "treegen", "show", str(path)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) < 400_000, done.stdout  # KB, of the show alone (a process of its own measures it)


def test_an_error_line_is_cut_in_its_middle_past_2000_characters(tmp_path):
    """A bad value is echoed in its error: a 2 MB one made a 2 MB line. The line keeps its start (file, line,
    column) and its end (what is wrong), and says how much it left out."""
    arff = tmp_path / "long.arff"
    arff.write_text("@relation r\n@attribute outlook {sunny,rain}\n@attribute play {yes,no}\n@data\n"
                    + "x" * 2_000_000 + ",yes\nsunny,no\n", encoding="utf-8")
    result = cli("train", str(arff))
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr[:300]
    assert len(result.stderr) < 2100
    assert result.stderr.startswith(f"treegen: error: {arff}:5:1: 'xxx")
    assert " [... 1,998," in result.stderr and result.stderr.endswith("xxx' is not a declared value of 'outlook'\n")


def test_malformed_model_files(tmp_path):
    bad_json = tmp_path / "m.json"
    bad_json.write_text('{"format": "treegen-model", "version": 1,\n "features": 3}', encoding="utf-8")
    result = cli("show", str(bad_json))
    assert result.returncode == 2 and "features: expected a list" in result.stderr
    bad_rules = tmp_path / "m.rules"
    bad_rules.write_text("treegen rules, format 1\nfeatures\n  x: numeric\ntarget y: classes {\"a\"\n", encoding="utf-8")
    result = cli("export", str(bad_rules), "--to", "rules")
    assert result.returncode == 2 and f"{bad_rules}:4:" in result.stderr and "Traceback" not in result.stderr


def test_model_from_stdin():
    model = cli("train", TENNIS, "-a", "id3").stdout
    assert "outlook = overcast: yes" in cli("show", "-", input=model).stdout


def test_cart_options_reach_the_learner(tmp_path):
    iris = os.path.join(os.path.dirname(__file__), "fixtures", "j48", "iris.arff")
    out = run("train", iris, "-a", "cart", "--max-depth", "2", "--cast", "float32",
              "--class-weight", "Iris-setosa=1,Iris-versicolor=3,Iris-virginica=1").stdout
    model = json.loads(out)
    assert model["numeric"]["cast"] == "float32" and model["meta"]["params"]["class_weight"]["Iris-versicolor"] == 3.0
    assert cli("train", iris, "-a", "cart", "--class-weight", "lots").returncode == 2


def test_c45_subtree_raising_flag_matches_j48_dash_s():
    fixtures = os.path.join(os.path.dirname(__file__), "fixtures", "j48")
    model = run("train", os.path.join(fixtures, "soybean.arff"), "--no-subtree-raising").stdout
    shown = CliRunner().invoke(main, ["show", "-", "--style", "j48"], input=model).output
    assert shown == open(os.path.join(fixtures, "soybean.noraise.tree"), encoding="utf-8").read()


# -- QA pass: options, verify, usage errors, output paths --------------------------------------

@pytest.fixture(scope="module")
def tennis_model(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("tennis") / "t.json")
    run("train", TENNIS, "--target", "play", "-a", "id3", "-o", path)
    return path


EXPORT_OPTIONS = {"--proba": [], "--leaf": [], "--class-name": ["Tennis"], "--package": ["org.example"],
                  "--dialect": ["sqlite"], "--table": ["rows"], "--expression": [], "--format": ["dot"],
                  "--module": ["commonjs"], "--prefix": ["tennis"], "--keep": ["id"]}
TAKES = {"python": {"--proba", "--leaf"}, "java": {"--proba", "--leaf", "--class-name", "--package"},
         "javascript": {"--proba", "--leaf", "--module"}, "c": {"--proba", "--leaf", "--prefix"},
         "sql": {"--proba", "--leaf", "--dialect", "--table", "--expression", "--keep"}, "rules": set(),
         "dot": {"--format"}}


@pytest.mark.parametrize("target", sorted(TAKES))
@pytest.mark.parametrize("option", sorted(EXPORT_OPTIONS))
def test_every_target_and_option(tennis_model, target, option):
    result = CliRunner().invoke(main, ["export", tennis_model, "--to", target, option, *EXPORT_OPTIONS[option]],
                                catch_exceptions=False)
    if option in TAKES[target]:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 2
        assert result.output == f"treegen: error: {option} does not apply to --to {target}\n"


def test_rules_proba_is_one_line(tennis_model):
    result = cli("export", tennis_model, "--to", "rules", "--proba")
    assert (result.returncode, result.stderr) == (2, "treegen: error: --proba does not apply to --to rules\n")


@pytest.mark.parametrize("args", [["--to", ""], ["--to", ","], ["--to", "sql", "--dialect", ""],
                                  ["--to", "sql", "--dialect", "oracle"]])
def test_verify_needs_something_to_check(tennis_model, args):
    result = cli("verify", tennis_model, *args)
    assert result.returncode == 2 and result.stdout == "" and result.stderr.count("\n") == 1, result.stderr


@pytest.mark.parametrize("args,hint", [
    (["export", "--to", "js"], "; did you mean 'javascript'?"),
    (["export", "--to", "duckdb"], "; 'duckdb' is a SQL dialect: --to sql --dialect duckdb"),
    (["export", "--to", "sql", "--dialect", "mariadb"], "; did you mean 'mysql'?"),
    (["export", "--to", "sql", "--dialect", "pg"], "; did you mean 'postgres'?"),
    (["verify", "--to", "js"], "; did you mean 'javascript'?"),
    (["verify", "--to", "sqlite"], "; 'sqlite' is a SQL dialect: --to sql --dialect sqlite"),
    (["verify", "--to", "sql", "--dialect", "PostgreSQL"], "; did you mean 'postgres'?"),
])
def test_a_target_or_dialect_by_another_name_is_hinted(tennis_model, args, hint):
    """What users call a target or a dialect ('js', 'mariadb'; a dialect for a target) leads to treegen's name."""
    result = cli(args[0], tennis_model, *args[1:])
    assert result.returncode == 2 and result.stderr.endswith(hint + "\n"), result.stderr
    assert result.stderr.count("\n") == 1


@pytest.mark.parametrize("algorithm", ["c4.5", "J48"])
def test_another_name_of_an_algorithm_is_hinted(algorithm):
    result = cli("train", TENNIS, "-a", algorithm)
    assert result.returncode == 2 and result.stderr.endswith("; did you mean 'c45'?\n"), result.stderr


@pytest.mark.parametrize("to", ["python", "python,java", "nosuch-dialect-too"])
def test_verify_refuses_a_dialect_when_no_sql_is_verified(tennis_model, to):
    """--dialect with no SQL to run was ignored, exit 0 (even a dialect that does not exist)."""
    dialect = "nosuch" if to.startswith("nosuch") else "postgres"
    result = cli("verify", tennis_model, "--to", "python" if to.startswith("nosuch") else to, "--dialect", dialect)
    assert (result.returncode, result.stdout) == (2, ""), result.stdout
    assert result.stderr == ("treegen: error: --dialect names the SQL dialects to run, and nothing verified is SQL "
                             "(--to sql, or a .sql --program)\n")


def test_verify_hints_at_a_missing_engine_package(tennis_model):
    """An engine that is not installed (None in sys.modules makes its import fail, as on a core install)."""
    for package, dialect, extra in (("duckdb", "duckdb", "sql"), ("pyspark", "spark", "spark")):
        code = f"import sys; sys.modules[{package!r}] = None; from treegen.cli import main; main(prog_name='treegen')"
        result = subprocess.run([sys.executable, "-c", code, "verify", tennis_model, "--to", "sql,python",
                                 "--dialect", f"{dialect},sqlite"], capture_output=True, text=True)
        assert result.returncode == 2, result.stdout + result.stderr
        assert result.stderr == (f"treegen: error: sql/{dialect}: needs the {package} package: "
                                 f"pip install {package} (treegen's [{extra}] extra)\n")
        assert [line.split()[:2] for line in result.stdout.splitlines()] == [["sql/sqlite", "ok"], ["python", "ok"]]


def test_verify_reports_every_target_after_one_refuses(tennis_model, tmp_path):
    doc = json.load(open(tennis_model))
    doc["features"][3]["name"] = "wi\u0000nd"  # SQL refuses the name; Python and the rules take it
    path = tmp_path / "nul.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = cli("verify", str(path), "--to", "sql,python,rules", "--dialect", "sqlite")
    assert result.returncode == 2
    assert "sql/sqlite: sqlite: a name cannot contain a NUL character" in result.stderr
    assert [line.split()[:2] for line in result.stdout.splitlines()] == [["python", "ok"], ["rules", "ok"]]


@pytest.mark.parametrize("args,message", [
    (["evaluate", TENNIS, "-a", "id3", "--folds", "0"], "Invalid value for '--folds' / '-k': 0 is not in the range x>=2."),
    (["evaluate", TENNIS, "-a", "id3", "--folds", "1"], "1 is not in the range x>=2"),
    (["train", TENNIS, "-a", "id3", "--max-depth", "-1"], "Invalid value for '--max-depth': -1 is not in the range x>=1."),
    (["train", TENNIS, "-a", "c45", "--min-leaf", "-1"], "-1 is not in the range x>=0"),
    (["train", TENNIS, "-a", "id3", "--target", "play", "--ignore", "play"], "--ignore names the target column 'play'"),
    (["train", TENNIS, "-a", "id3", "--ignore", "wind,play"], "--ignore names the target column 'play'"),
    (["evaluate", TENNIS, "-a", "id3", "--ignore", "play"], "--ignore names the target column 'play'"),
    (["export", TENNIS, "--to", "cobol"], "Invalid value for '--to': 'cobol' is not one of"),
    (["export", TENNIS, "--to", "sql", "--dialect", "oracle"], "Invalid value for '--dialect': 'oracle' is not one of"),
    (["export", TENNIS, "--to", "sql", "--bogus"], "No such option '--bogus'"),
    (["--bogus"], "No such option '--bogus'"),
    (["nosuch"], "No such command 'nosuch'"),
    (["train", TENNIS, "-a", "id3", "-o", "/nonexistent/dir/x.json"],
     "cannot write /nonexistent/dir/x.json: No such file or directory"),
])
def test_out_of_range_and_usage_errors_are_one_line(args, message):
    result = cli(*args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("treegen: error: ") and result.stderr.count("\n") == 1, result.stderr
    assert message in result.stderr


def test_folds_still_choose_and_help_still_shows():
    assert "stratified 2-fold" in run("evaluate", TENNIS, "-a", "id3", "--folds", "2").output
    assert cli("export", "--help").stdout.startswith("Usage: treegen export [OPTIONS] MODEL")
    bare = cli()
    assert "Usage: treegen [OPTIONS] COMMAND" in bare.stdout + bare.stderr and "error" not in bare.stderr


@pytest.mark.parametrize("text,message", [
    ("", "empty.json: an empty file: neither a treegen model (JSON) nor rule text"),  # was "invalid JSON: Expecting value"
    ("[]", "empty.json: not a treegen model"),
])
def test_json_models_get_json_errors(tmp_path, text, message):
    path = tmp_path / "empty.json"
    path.write_text(text, encoding="utf-8")
    result = cli("show", str(path))
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_a_list_on_stdin_is_read_as_json():
    result = cli("show", "-", input="  [1]")
    assert result.returncode == 2 and "-: not a treegen model" in result.stderr, result.stderr


def test_rules_without_a_final_newline_parse(tennis_model, tmp_path):
    rules = run("export", tennis_model, "--to", "rules").output.rstrip("\n")
    path = tmp_path / "t.rules"
    path.write_text(rules, encoding="utf-8")
    assert json.loads(run("parse", str(path)).output)["trees"] == json.load(open(tennis_model))["trees"]


def test_nan_threshold_names_the_file_and_path(tmp_path):
    diabetes = os.path.join(os.path.dirname(__file__), "fixtures", "j48", "diabetes.arff")
    doc = json.loads(run("train", diabetes).stdout)
    doc["trees"][0]["nodes"][0]["split"]["threshold"] = float("nan")
    path = tmp_path / "d.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    result = cli("export", str(path), "--to", "python")
    assert result.returncode == 2
    assert result.stderr == f"treegen: error: {path}: trees[0].nodes[0].split.threshold: a threshold must be a number, not NaN\n"


def test_train_says_what_it_built_on_stderr(tmp_path):
    model = tmp_path / "m.json"
    done = cli("train", TENNIS, "-t", "play", "-a", "id3", "-o", str(model))
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr == (f"treegen: trained id3 on 14 rows: 8 nodes, 5 leaves, depth 2, training accuracy "
                           f"100.00% (14/14); wrote {model}\n")
    to_stdout = cli("train", TENNIS, "-t", "play", "-a", "id3")
    assert json.loads(to_stdout.stdout)["format"] == "treegen-model"
    assert to_stdout.stderr.startswith("treegen: trained id3 on 14 rows") and "wrote" not in to_stdout.stderr


def test_train_warns_of_what_reading_the_data_decided(tmp_path):
    """A NULL among numbers, a numeric target learnt as a class per value, rows without a target: each
    said on stderr as training goes on; --nominal silences what it names; evaluate, which learns from the
    data too, says the same."""
    path, model = tmp_path / "income.csv", str(tmp_path / "m.json")
    rows = [f"{'NULL' if i == 30 else 1000 * i},{i / 2},{'' if i in (5, 25) else 'lo' if i < 20 else 'hi'}"
            for i in range(40)]
    path.write_text("income,score,label\n" + "\n".join(rows) + "\n", encoding="utf-8")
    null = (f"treegen: warning: {path}:32: column 'income' is read as categories: 1 of its 40 values is 'NULL', "
            "which treegen's CSV does not read as missing (only an empty field, '?' or 'NA': replace it), and "
            "--nominal income keeps the column as categories\n")
    trained = (f"treegen: trained c45 on 38 rows (2 without a value for 'label' left out): 3 nodes, 2 leaves, "
               f"depth 1, training accuracy 100.00% (38/38); wrote {model}\n")
    assert cli("train", str(path), "-o", model).stderr == null + trained
    assert cli("train", str(path), "--nominal", "income", "-o", model).stderr == trained
    assert cli("train", str(path), "-t", "score", "--ignore", "label", "-o", model).stderr == null + (
        "treegen: warning: target 'score' is numeric with 40 distinct values: c45 learns them as 40 classes; "
        "for a regression tree use --algorithm cart (--nominal score keeps them as classes)\n"
        f"treegen: trained c45 on 40 rows: 1 node, 1 leaf, depth 0, training accuracy 2.50% (1/40); wrote {model}\n")
    assert cli("train", str(path), "-t", "score", "-a", "cart", "-o", model).stderr == null + (
        f"treegen: trained cart on 40 rows: 79 nodes, 40 leaves, depth 6, training RMSE 0; wrote {model}\n")
    evaluated = cli("evaluate", str(path))
    assert evaluated.returncode == 0 and evaluated.stderr == null


def test_train_warns_of_a_cart_regression_of_labels_and_of_an_identifier(tmp_path):
    """cart learns a regression of a 0/1 target (c45 learns classes): said, with the option that makes
    it classes, unless --regression or --classification chose; a nominal column of one value a row (an
    identifier) is named with the --ignore that leaves it out."""
    path, model = tmp_path / "churn.csv", str(tmp_path / "m.json")
    path.write_text("Customer ID,age,churned\n" + "".join(f"C-{i},{i},{int(i > 20)}\n" for i in range(30)),
                    encoding="utf-8")
    identifier = ("treegen: warning: column 'Customer ID' has a different value in every row (30), as an identifier "
                  "has: a split on it predicts nothing for new rows; --ignore 'Customer ID' leaves it out\n")
    labels = ("treegen: warning: target 'churned' is numeric with 2 whole-number values (0, 1): cart learns a "
              "regression tree of it; --classification learns them as classes (--regression keeps the regression)\n")
    regressed = "treegen: trained cart on 30 rows: 3 nodes, 2 leaves, depth 1, training RMSE 0; wrote " + model + "\n"
    assert cli("train", str(path), "-a", "cart", "-o", model).stderr == identifier + labels + regressed
    assert cli("train", str(path), "-a", "cart", "--regression", "--ignore", "Customer ID",
               "-o", model).stderr == regressed
    classes = cli("train", str(path), "-a", "cart", "--classification", "--ignore", "Customer ID", "-o", model)
    assert classes.stderr.startswith("treegen: trained cart on 30 rows: 3 nodes, 2 leaves, depth 1, training "
                                     "accuracy 100.00%"), classes.stderr


def test_a_hint_naming_a_column_with_a_line_break_pastes_into_bash(tmp_path):
    """A header name with a line break (quoted in the CSV): each hint's --nominal NAME is one line, and
    the line pasted into bash is the option that names the column; unquoted, the name is one line of error."""
    path, model = tmp_path / "prices.csv", str(tmp_path / "m.json")
    rows = [f"{'NULL' if i == 3 else i},{i % 7 * 10},{'lo' if i < 20 else 'hi'}" for i in range(40)]
    path.write_text('"price\nusd","tax, %",label\n' + "\n".join(rows) + "\n", encoding="utf-8")
    warned = cli("train", str(path), "-o", model).stderr.splitlines()[0]
    assert warned.endswith(r"""and --nominal $'"price\nusd"' keeps the column as categories"""), warned
    command = " ".join(map(shlex.quote, [sys.executable, "-m", "treegen", "train", str(path), "-o", model]))
    hinted = subprocess.run(["bash", "-c", f"{command} {warned.split(' and ')[-1].split(' keeps ')[0]}"],
                            capture_output=True, text=True, env={**os.environ, "LC_ALL": "C.UTF-8"})
    assert hinted.returncode == 0 and hinted.stderr.startswith("treegen: trained c45 on 40 rows"), hinted.stderr
    refused = cli("train", str(path), "-t", "tax, %", "-a", "cart", "--criterion", "gini")
    assert refused.returncode == 2 and refused.stderr.endswith(
        """add --nominal '"tax, %"' to learn its values as classes\n"""), refused.stderr
    unquoted = cli("train", str(path), "--nominal", "price\nusd")
    assert unquoted.returncode == 2 and unquoted.stderr == (
        "treegen: error: cannot read the column names 'price\\nusd': a name with a line break is written in "
        "double quotes, as in a CSV header\n")


def test_data_not_in_utf8_says_how_to_convert_it(tmp_path):
    path = tmp_path / "excel export.csv"
    path.write_bytes("city,y\nS\xe3o Paulo,a\n".encode("cp1252"))
    done = cli("train", str(path))
    assert done.returncode == 2
    assert done.stderr == (f"treegen: error: {path}:2: cannot read data: not UTF-8 text; convert it first, e.g. "
                           f"iconv -f cp1252 -t utf-8 '{path}' > '{tmp_path / 'excel export-utf8.csv'}'\n")


def test_a_pipeline_is_refused_with_the_way_to_import_its_estimator(tmp_path):
    import skops.io
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier
    pipeline = make_pipeline(StandardScaler(), DecisionTreeClassifier()).fit([[0.0], [1.0]], [0, 1])
    path = tmp_path / "pipe.skops"
    skops.io.dump(pipeline, path)
    done = cli("import", str(path))
    assert done.returncode == 2
    assert done.stderr == (f"treegen: error: {path}: cannot import a Pipeline: import its final estimator "
                           "(pipeline[-1], saved on its own) and apply the pipeline's preprocessing to the data "
                           "before treegen reads it\n")


def test_help_lines_are_whole_and_every_option_says_what_it_does():
    commands = cli("--help").stdout.split("Commands:\n")[1]
    assert "..." not in commands and "…" not in commands
    for command in main.commands.values():
        for param in command.params:
            if isinstance(param, click.Option) and param.name != "help":
                assert param.help and len(param.help) > len("cart: ") + 10, (command.name, param.name, param.help)


def test_confusion_matrix_aligns_wide_characters():
    out = run("evaluate", os.path.join(EXAMPLES, "fish.csv"), "-a", "id3", "--loo").output
    matrix = out.split("confusion matrix (rows: true class, columns: predicted)\n")[1].split("\n\n")[0].splitlines()
    from treegen.evaluation import display_width
    assert len({display_width(line) for line in matrix}) == 1, matrix


# -- new-user audit: refused options, flag names, Java file names, the help --------------------

def test_the_help_names_every_target():
    text = " ".join(cli("--help").stdout.split())
    assert "compile them to Python, Java, JavaScript, C, SQL, rule text or Graphviz dot." in text


def test_export_help_names_every_ending_of_o_and_the_model_commands_a_librarys_file():
    """Each ending export's -o takes names its target in the help (.js, .cjs and .svg were left out); show, export,
    predict and verify say MODEL may be a library's model file, as they read it."""
    from treegen.targets import TARGETS, target_of_file
    text = " ".join(cli("export", "--help").stdout.split())
    named = re.search(r"Default: the one -o's ending names \(([^;]*);", text)[1].split(", ")
    assert named == [e for t in TARGETS.values() for e in t.endings()] and {".js", ".cjs", ".svg"} <= set(named)
    assert all(target_of_file("-o", "model" + ending) for ending in named)
    assert "-o FILE.svg means --to dot --format svg" in text
    for command in ("show", "export", "predict", "verify"):
        assert "or a model file of scikit-learn (.skops), XGBoost, LightGBM or CatBoost, read as `treegen import` " \
               "reads it" in " ".join(cli(command, "--help").stdout.split()), command


IRIS_CODES = os.path.join(EXAMPLES, "boosting", "iris_missing.csv")  # species as codes 0, 1, 2: numeric


@pytest.mark.parametrize("args,line", [
    (["train", IRIS_CODES, "-a", "cart", "--criterion", "entropy"],
     "--criterion entropy is for classes and the target 'species' is numeric (a regression tree); "
     "add --nominal species to learn its values as classes"),
    (["evaluate", IRIS_CODES, "-a", "cart", "--criterion", "gini"],
     "--criterion gini is for classes and the target 'species' is numeric (a regression tree); "
     "add --nominal species to learn its values as classes"),
    (["train", IRIS_CODES, "-a", "cart", "--criterion", "gini", "--regression"],
     "--criterion gini does not apply to --regression"),
    (["train", TENNIS, "-a", "cart", "--criterion", "squared_error"],
     "--criterion squared_error is for a numeric target and 'play' holds classes; use gini or entropy"),
    (["train", TENNIS, "--pruning-folds", "5"], "--pruning-folds applies only with --reduced-error"),
    (["evaluate", TENNIS, "--pruning-folds", "5"], "--pruning-folds applies only with --reduced-error"),
    (["train", IRIS_CODES, "-a", "cart", "--cv-folds", "3"], "--cv-folds applies only with --ccp-alpha cv"),
    (["train", IRIS_CODES, "-a", "cart", "--cv-folds", "3", "--ccp-alpha", "0.1"],
     "--cv-folds applies only with --ccp-alpha cv"),
    (["train", TENNIS, "-a", "id3", "--seed", "3"], "--seed applies only with c45's --reduced-error or cart's "
                                                    "--ccp-alpha cv"),
    (["train", TENNIS, "--seed", "3"], "--seed applies only with c45's --reduced-error or cart's --ccp-alpha cv"),
    (["train", TENNIS, "--confidence", "0.3", "--unpruned"], "--confidence does not apply with --unpruned"),
    (["evaluate", TENNIS, "--no-subtree-raising", "--reduced-error"],
     "--no-subtree-raising does not apply with --reduced-error"),
    (["train", TENNIS, "--no-collapse", "--reduced-error"], "--no-collapse does not apply with --reduced-error"),
])
def test_an_option_that_would_be_ignored_is_refused(args, line):
    result = cli(*args)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"treegen: error: {line}\n")


def test_the_criterion_advice_works():
    """What the refusal of --criterion on codes advises learns a classification tree."""
    model = json.loads(run("train", IRIS_CODES, "-a", "cart", "--criterion", "entropy", "--nominal", "species").stdout)
    assert model["meta"]["criterion"] == "entropy" and model["target"]["kind"] == "classification"


@pytest.fixture(scope="module")
def regression_model(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("codes") / "r.json")
    run("train", IRIS_CODES, "-a", "cart", "--max-depth", "2", "-o", path)
    return path


@pytest.mark.parametrize("target", ["sql", "python", "java"])
def test_export_proba_of_a_regression_model_is_refused_as_predict_refuses_it(regression_model, target):
    refused = "treegen: error: --proba needs a classification model\n"
    assert cli("predict", regression_model, IRIS_CODES, "--proba").stderr == refused
    result = cli("export", regression_model, "--to", target, "--proba")
    assert (result.returncode, result.stdout, result.stderr) == (2, "", refused)


def test_export_notes_a_big_expression_on_stderr_only():
    """An --expression over 1 MB (a boosted model's, each shared value written wherever it is read) gets one
    line on stderr with its size and the SELECT's; the SQL written is the API's, and a small one gets none."""
    from treegen.loading import load_model
    from treegen.targets import emit
    model = "examples/boosting/lightgbm.txt"  # 3.8 MB, its SELECT 61 KB
    done = cli("export", model, "--to", "sql", "--expression")
    assert done.returncode == 0, done.stderr
    assert done.stdout == emit(load_model(model), "sql", expression=True)
    assert re.fullmatch(r"treegen: note: the expression is 3\.[0-9]{2} MB, the SELECT \(without --expression\) "
                        r"[0-9.]+ KB: it computes each shared value once, where the expression writes it wherever "
                        r"it is read\n", done.stderr), done.stderr
    # DuckDB binds each shared value to a lambda's variable (Spark too): as long as the SELECT, and no note
    bound = cli("export", model, "--to", "sql", "--dialect", "duckdb", "--expression")
    assert bound.returncode == 0 and len(bound.stdout) < 100_000 and bound.stderr == "", bound.stderr
    # 217 KB: its probabilities each write the sum in expf's steps (its label, on the raw sum alone, does not)
    small = cli("export", "tests/fixtures/xgboost/binary-3.2.0.json", "--to", "sql", "--expression", "--proba")
    assert small.returncode == 0 and len(small.stdout) > 200_000 and small.stderr == "", small.stderr


def test_export_without_to_takes_the_target_that_o_names(regression_model, tmp_path):
    """-o Model.java is a Java class: the target is told by the file's ending (a JavaScript module's .js and .cjs
    too); without --to and with no such ending, one line names what would do."""
    from treegen.loading import load_model
    from treegen.targets import emit
    for name, target in (("Model.java", "java"), ("model.js", "javascript"), ("m.rules", "rules"), ("m.c", "c"),
                         ("m.dot", "dot")):
        assert cli("export", regression_model, "-o", str(tmp_path / name)).returncode == 0
        options = {"java": {"class_name": "Model"}, "c": {"prefix": "m"}}.get(target, {})  # named after the file
        assert (tmp_path / name).read_text(encoding="utf-8") == emit(load_model(regression_model), target, **options)
    assert (tmp_path / "m.h").exists()
    assert cli("export", regression_model, "-o", str(tmp_path / "m.cjs")).returncode == 0  # Node runs it as CommonJS
    assert (tmp_path / "m.cjs").read_text(encoding="utf-8") == emit(load_model(regression_model), "javascript",
                                                                     module="commonjs")
    clash = cli("export", regression_model, "-o", "m.mjs", "--module", "commonjs")
    assert (clash.returncode, clash.stderr) == (2, "treegen: error: --module commonjs and -o m.mjs disagree: Node "
                                                   "reads a .mjs file as an ES module\n")
    for args, line in (([], "export needs --to (one of python, java, javascript, c, sql, rules, dot), or -o FILE "
                            "whose ending names it"),
                       (["-o", "m.txt"], "-o m.txt: its ending names no target; name a .c, .cjs, .dot, .java, .js, "
                                         ".mjs, .py, .rules, .sql, .svg file")):
        done = cli("export", regression_model, *args)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"treegen: error: {line}\n")


def test_c_to_a_pipe_or_a_device_writes_the_source_alone(tennis_model, tmp_path):
    """-o FIFO or /dev/null is no file of a folder: nothing can be written beside it. The C source holds its header
    at its top, so it goes alone, as on stdout, and no FIFO.h (nor /dev/null.h, a new file in /dev) is made."""
    from treegen.loading import load_model
    from treegen.targets import emit
    fifo = tmp_path / "m.c"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    run("export", tennis_model, "--to", "c", "-o", str(fifo))
    assert reader.communicate()[0].decode() == emit(load_model(tennis_model), "c", prefix="m")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.c"]
    os.remove(fifo)
    existed = {name: os.path.exists(name) for name in ("/dev/null.h", "/dev/stdout.h")}
    try:
        run("export", tennis_model, "--to", "c", "-o", "/dev/null")
        redirected = tmp_path / "out.c"  # /dev/stdout is then a link to a regular file, through /proc/self/fd/1
        with open(redirected, "w") as out:
            subprocess.run([sys.executable, "-m", "treegen", "export", tennis_model, "--to", "c", "--prefix", "m",
                            "-o", "/dev/stdout"], stdout=out, check=True)
        assert redirected.read_text() == emit(load_model(tennis_model), "c", prefix="m")
        assert [name for name, there in existed.items() if not there and os.path.exists(name)] == []
    finally:
        for name, there in existed.items():
            if not there and os.path.isfile(name):  # made by a treegen without the fix
                os.remove(name)
    assert run("export", tennis_model, "--to", "python", "-o", "/dev/null").stdout == ""  # as before


@pytest.mark.parametrize("name,ending", [("T.JAVA", ".java"), ("t.C", ".c"), ("m.Py", ".py"), ("m.MJS", ".mjs")])
def test_an_ending_in_upper_case_names_no_target(regression_model, tmp_path, monkeypatch, name, ending):
    """Compilers read endings as written: javac refuses T.JAVA, gcc compiles t.C as C++ (and writing t.C's header
    beside it as t.h): the target is not told by such an ending, and the line says which one would tell it."""
    monkeypatch.chdir(tmp_path)
    done = run("export", regression_model, "-o", name, ok=False)
    assert (done.exit_code, done.stdout, done.stderr) == (
        2, "", f"treegen: error: -o {name}: its ending names no target: endings count in lower case, as compilers "
               f"read them (javac refuses T.JAVA, gcc compiles t.C as C++); name a {ending} file\n")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("args,line", [
    (["export", "MODEL", "--to", "sql", "--class-name", "X"], "--class-name does not apply to --to sql"),
    (["export", "MODEL", "--to", "rules", "--class-name", "X", "--format", "svg"],
     "--class-name, --format do not apply to --to rules"),
    (["train", IRIS_CODES, "-a", "cart", "--random-state", "3", "--cast", "float64"],
     "--random-state replays scikit-learn's float32 arithmetic: --cast must be float32, not 'float64'"),
    (["train", IRIS_CODES, "-a", "cart", "--random-state", "3", "--ccp-alpha", "cv"],
     "--ccp-alpha 'cv' does not combine with --random-state; give alpha a number"),
    (["train", TENNIS, "-a", "cart", "--random-state", "3"], "--random-state replays scikit-learn, which has no "
     "nominal features; encode them as numbers or leave out --random-state"),
    (["train", TENNIS, "-a", "cart", "--class-weight", "7=2"], "--class-weight names unknown classes: 7"),
    (["evaluate", TENNIS, "-a", "cart", "--class-weight", "7=2"], "--class-weight names unknown classes: 7"),
    (["evaluate", TENNIS, "-a", "cart", "--class-weight", "7=2", "--test", TENNIS],
     "--class-weight names unknown classes: 7"),
    (["train", IRIS_CODES, "-a", "cart", "--class-weight", "balanced"],
     "--class-weight applies to classification only"),
    (["train", TENNIS, "-a", "cart", "--min-samples-leaf", "0"],
     "Invalid value for '--min-samples-leaf': 0 is not in the range x>=1."),
    (["train", TENNIS, "-a", "cart", "--min-samples-split", "1"],
     "Invalid value for '--min-samples-split': 1 is not in the range x>=2."),
    (["train", TENNIS, "-a", "cart", "--min-weight-fraction-leaf", "0.7"],
     "Invalid value for '--min-weight-fraction-leaf': 0.7 is not in the range 0<=x<=0.5."),
    (["train", TENNIS, "-a", "cart", "--min-impurity-decrease", "-1"],
     "Invalid value for '--min-impurity-decrease': -1.0 is not in the range x>=0."),
    (["train", TENNIS, "-a", "cart", "--ccp-alpha", "cv", "--cv-folds", "1"],
     "Invalid value for '--cv-folds': 1 is not in the range x>=2."),
    # (tennis has 14 rows: 15 folds were 14 without a word, and the model's params said 15)
    (["train", TENNIS, "-a", "cart", "--ccp-alpha", "cv", "--cv-folds", "15"],
     "--cv-folds must be 2 to 14 (the number of rows), not 15"),
    (["train", TENNIS, "--confidence", "0.7"], "Invalid value for '--confidence': 0.7 is not in the range 0<x<=0.5."),
    (["train", TENNIS, "--reduced-error", "--pruning-folds", "1"],
     "Invalid value for '--pruning-folds': 1 is not in the range x>=2."),
])
def test_errors_name_the_flags_not_python_parameters(tennis_model, args, line):
    result = cli(*[tennis_model if arg == "MODEL" else arg for arg in args])
    # cart trained on IRIS_CODES's class codes says first, where the learner refuses an option, that it would
    # learn a regression of them (test_train_warns_of_a_cart_regression_of_labels_and_of_an_identifier)
    stderr = result.stderr.removeprefix(CODES_AS_REGRESSION) if IRIS_CODES in args else result.stderr
    assert (result.returncode, result.stdout, stderr) == (2, "", f"treegen: error: {line}\n")


CODES_AS_REGRESSION = ("treegen: warning: target 'species' is numeric with 3 whole-number values (0, 1, 2): cart "
                       "learns a regression tree of it; --classification learns them as classes (--regression keeps "
                       "the regression)\n")


def test_a_column_named_like_a_parameter_keeps_its_name(tmp_path):
    """Only the learners' own words become flags: a quoted name in a message is the user's."""
    path = tmp_path / "d.csv"
    path.write_text("max_depth,y\n1,a\n2,b\n", encoding="utf-8")
    result = cli("train", str(path), "-a", "id3")
    assert result.returncode == 2 and "'max_depth' is numeric" in result.stderr, result.stderr


def test_an_empty_table_name_is_one_line_saying_so(tennis_model):
    result = cli("export", tennis_model, "--to", "sql", "--table", "")
    assert (result.returncode, result.stdout, result.stderr) == (2, "", "treegen: error: the table name is empty\n")


def test_java_is_named_after_its_file_and_compiles(tennis_model, tmp_path):
    """javac takes public class X only from X.java: -o Tennis.java makes class Tennis."""
    java = tmp_path / "Tennis.java"
    run("export", tennis_model, "--to", "java", "-o", str(java))
    assert "public final class Tennis {" in java.read_text(encoding="utf-8")
    subprocess.run(["javac", "Tennis.java"], cwd=tmp_path, check=True, capture_output=True)
    with open(TENNIS, encoding="utf-8") as rows:
        done = subprocess.run(["java", "-cp", ".", "Tennis"], cwd=tmp_path, stdin=rows, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:3] == ["no", "no", "yes"]
    run("export", tennis_model, "--to", "java", "--class-name", "Tennis", "-o", str(java))  # agreeing is fine


@pytest.mark.parametrize("args,line", [
    (["--class-name", "Foo", "-o", "Bar.java"],
     "--class-name Foo and -o Bar.java disagree: Java needs the public class Foo in Foo.java"),
    (["-o", "my-model.java"], "-o my-model.java: 'my-model' is not a Java class name, and javac wants the file "
                              "named after the class; pass --class-name NAME and -o NAME.java"),
    # a qualified class name (a new user's): the package is --package
    (["--class-name", "com.bank.Scorer", "-o", "Scorer.java"],
     "--class-name com.bank.Scorer: a class name has no package; pass --class-name Scorer --package com.bank"),
    (["--class-name", "com.bank.Scorer"],
     "class name 'com.bank.Scorer' is not a Java identifier; pass --class-name Scorer --package com.bank"),
])
def test_java_class_and_file_names_that_javac_refuses_are_refused(tennis_model, tmp_path, args, line):
    result = subprocess.run([sys.executable, "-m", "treegen", "export", tennis_model, "--to", "java", *args],
                            capture_output=True, text=True, cwd=tmp_path)
    assert (result.returncode, result.stdout, result.stderr) == (2, "", f"treegen: error: {line}\n")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("args,line", [
    (["--class-name", "\u9c7c"], "class name '\u9c7c' is not an ASCII Java identifier: treegen writes ASCII Java source"),
    (["--class-name", "Caf\u00e9"], "class name 'Caf\u00e9' is not an ASCII Java identifier: treegen writes ASCII Java "
                                    "source"),
    (["--package", "org.caf\u00e9"], "package name 'caf\u00e9' is not an ASCII Java identifier: treegen writes ASCII "
                                     "Java source"),
    (["-o", "\u9c7c.java"], "-o \u9c7c.java: '\u9c7c' is not an ASCII Java class name, and javac wants the file named "
                           "after the class; pass --class-name NAME and -o NAME.java"),
])
def test_java_names_of_other_letters_are_refused_for_what_they_are(tennis_model, tmp_path, monkeypatch, args, line):
    """javac compiles `public class \u9c7c` (in \u9c7c.java): the name is a Java identifier, and only treegen, which
    writes its Java in ASCII, does not take it; the line says so, not that Java would refuse it."""
    monkeypatch.chdir(tmp_path)
    result = run("export", tennis_model, "--to", "java", *args, ok=False)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"treegen: error: {line}\n")
    assert not list(tmp_path.iterdir())


# -- a misspelt name in an option or a data file: the known name it is close to ------------------------

CATBOOST_COLOR = os.path.join(os.path.dirname(__file__), "fixtures", "catboost", "depthwise_nopool-1.2.json")
IRIS_COLUMNS = "'sepal_length', 'sepal_width', 'petal_length', 'petal_width', 'species'"
TENNIS_COLUMNS = "'outlook', 'temperature', 'humidity', 'wind', 'play'"


@pytest.mark.parametrize("args,line", [
    (["train", IRIS_CODES, "--target", "Specis"],
     f"{IRIS_CODES}: unknown column 'Specis'; the columns are: {IRIS_COLUMNS}; did you mean 'species'?"),
    (["evaluate", IRIS_CODES, "--target", "SPECIES"],
     f"{IRIS_CODES}: unknown column 'SPECIES'; the columns are: {IRIS_COLUMNS}; did you mean 'species'?"),
    (["train", TENNIS, "--nominal", "humidty,wnd"],  # the first named, in every run
     f"{TENNIS}: unknown column 'humidty'; the columns are: {TENNIS_COLUMNS}; did you mean 'humidity'?"),
    (["train", TENNIS, "--ignore", "tempreture"],
     f"{TENNIS}: unknown column 'tempreture'; the columns are: {TENNIS_COLUMNS}; did you mean 'temperature'?"),
    (["train", TENNIS, "--target", "nope"], f"{TENNIS}: unknown column 'nope'; the columns are: {TENNIS_COLUMNS}"),
    (["train", TENNIS, "-a", "cart", "--class-weight", "yse=2,No=3"],
     "--class-weight names unknown classes: No, yse; did you mean 'no' for 'No', 'yes' for 'yse'?"),
    (["import", CATBOOST_COLOR, "--categories", "colr=A,B"],
     f"{CATBOOST_COLOR}: categories given for 'colr', which is not a categorical feature of the model "
     "(categorical features: color); did you mean 'color'?"),
])
def test_a_misspelt_name_in_an_option_says_the_name_it_is_close_to(args, line):
    result = run(*args, ok=False)
    assert (result.exit_code, result.stderr) == (2, f"treegen: error: {line}\n")


@pytest.mark.parametrize("option", ["--best-iteration", "--every-round", "--missing=1"])
def test_an_import_option_of_another_library_is_named_as_typed(option):
    """Not as the keyword (use_best_iteration) that the Python API takes."""
    result = run("import", CATBOOST_COLOR, option, ok=False)
    typed = option.split("=")[0]
    assert (result.exit_code, result.stderr) == (
        2, f"treegen: error: {CATBOOST_COLOR}: {typed} does not apply to CatBoost models\n")


@pytest.mark.parametrize("options,line", [
    (["--best-iteration", "--every-round"], "--best-iteration and --every-round contradict each other: give one"),
    (["--every-round", "--best-iteration"], "--best-iteration and --every-round contradict each other: give one"),
    (["--missing", "1", "--missing=-999"], "--missing is given 2 times, 1.0 and -999.0: give it once"),
    (["--feature-names", "a,b", "--feature-names", "c,d"], "--feature-names is given 2 times, 'a,b' and 'c,d': give it once"),
])
def test_import_options_that_contradict_each_other_are_refused(options, line):
    """click keeps the last of --a/--b, and of an option given twice: the other was lost without a word. Refused
    before the file is read (a CatBoost file, to which none of them applies)."""
    result = run("import", CATBOOST_COLOR, *options, ok=False)
    assert (result.exit_code, result.stdout, result.stderr) == (2, "", f"treegen: error: {line}\n")


@pytest.mark.parametrize("command,option", [
    (["train", TENNIS, "-o", "first.json", "--output", "second.json"], "-o/--output"),
    (["train", TENNIS, "--target", "play", "-t", "wind"], "-t/--target"),
    (["export", CATBOOST_COLOR, "--to", "java", "--to", "python"], "--to"),
    (["export", CATBOOST_COLOR, "--to", "sql", "--dialect", "sqlite", "--dialect", "duckdb"], "--dialect"),
    (["predict", CATBOOST_COLOR, TENNIS, "-o", "a.csv", "-o", "a.csv"], "-o/--output"),
])
def test_an_option_of_one_value_given_twice_is_refused(tmp_path, monkeypatch, command, option):
    """click kept the last value without a word: a model written to second.json alone, a tree of the target
    named second, SQLite's dialect asked for and DuckDB's written. Refused before anything is read or written;
    flags and options of many values may repeat (--nominal a --nominal b is the import's --missing's case)."""
    monkeypatch.chdir(tmp_path)
    result = run(*command, ok=False)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2, "", f"treegen: error: {option} is given 2 times: give it once\n")
    assert os.listdir(tmp_path) == []


HOSTILE_CSV = '"température ""max""",ciel,jouer\n20,"très ""nuageux""",oui\n30,clair,non\n25,clair,oui\n' \
              '15,"très ""nuageux""",non\n12,clair,non\n28,"très ""nuageux""",oui\n'


@pytest.mark.parametrize("command", [["predict"], ["verify", "--to", "python"]])
def test_a_models_column_missing_from_the_data_says_which_column_it_may_be(tmp_path, command):
    """A name with quotes and accents, quoted in the message as Python quotes it."""
    data, model = tmp_path / "hostile.csv", tmp_path / "hostile.json"
    data.write_text(HOSTILE_CSV, encoding="utf-8")
    run("train", str(data), "-a", "cart", "-o", str(model))
    renamed = tmp_path / "renamed.csv"
    renamed.write_text(HOSTILE_CSV.replace("température", "temperature", 1), encoding="utf-8")
    result = run(command[0], str(model), str(renamed), *command[1:], ok=False)
    assert (result.exit_code, result.stderr) == (2, f"treegen: error: {renamed}:1: no column named "
                                                    """'température "max"'; did you mean 'temperature "max"'?\n""")


# -- evaluate MODEL --test FILE ------------------------------------------------------------------

TENNIS_MISSING = ("outlook,temperature,humidity,wind,play\n,hot,high,strong,no\nsunny,mild,,weak,no\n"
                  "rain,,,strong,no\n,cool,normal,,yes\nsunny,cool,normal,weak,yes\novercast,,,,yes\n"
                  ",mild,high,weak,no\nsunny,hot,high,weak,yes\nrain,mild,,,no\n")  # the last three predicted wrong


def accuracy_line(model, data, label_column):
    """The accuracy line evaluate should print: `treegen predict`'s answers against the labels."""
    lines = run("predict", model, data).output.splitlines()
    at = lines[0].split(",").index(label_column)
    right = sum(line.split(",")[at] == line.split(",")[-1] for line in lines[1:])
    return f"accuracy {right / (len(lines) - 1):.2%} ({right}/{len(lines) - 1})"


def test_evaluate_a_model_counts_what_predict_and_model_predict_answer(tmp_path):
    # C4.5 with missing values: fractional routes spread rows down several branches
    model, data = str(tmp_path / "tennis.json"), tmp_path / "missing.csv"
    data.write_text(TENNIS_MISSING, encoding="utf-8")
    run("train", TENNIS, "-o", model)
    out = run("evaluate", model, "--test", str(data)).output
    assert out.startswith(f"{model} on {data}: 9 predictions\n")
    assert accuracy_line(model, str(data), "play") + "\n" in out
    import treegen
    from treegen.data import read_table, rows_for_model
    loaded = treegen.load(model)
    answers = [loaded.predict(row) for row in rows_for_model(read_table(str(data)), loaded)]
    truth = [line.rsplit(",", 1)[1] for line in TENNIS_MISSING.splitlines()[1:]]
    right = sum(a == t for a, t in zip(answers, truth))
    assert f"accuracy {right / 9:.2%} ({right}/9)" in out and right == 6


@pytest.mark.parametrize("model", ["examples/boosting/xgboost.json", "examples/boosting/lightgbm.txt"])
def test_evaluate_an_imported_library_model_file(model):
    out = run("evaluate", model, "--test", IRIS_CODES, "--target", "species").output
    assert accuracy_line(model, IRIS_CODES, "species") + "\n" in out
    assert "confusion matrix (rows: true class, columns: predicted)" in out and "precision recall" in out


@pytest.mark.filterwarnings("error::RuntimeWarning")  # numpy's overflow warnings are not for the user
def test_a_regression_target_of_huge_numbers_trains_and_evaluates(tmp_path):
    """Squares of 1e200 overflow a double: the CART criterion's sum of squares is inf, as in scikit-learn,
    and the RMSE is scaled first, so it reads 1e200s, not inf (and the summary raised OverflowError).
    The impurities are NaN, which stops no split in scikit-learn: both growers grow its tree (the
    level-by-level one grew the root alone)."""
    data, model = tmp_path / "big.csv", str(tmp_path / "big.json")
    data.write_text("x,y\n" + "".join(f"{i},{(-1) ** i * (1 + i) * 1e200!r}\n" for i in range(20)))
    summary = run("train", str(data), "-a", "cart", "--max-depth", "2", "-o", model).output
    rmse = float(re.search(r"training RMSE (\S+);", summary).group(1))
    assert 1e200 < rmse < 1e202, summary
    for grower in ((), ("--random-state", "0")):
        summary = run("train", str(data), "-a", "cart", *grower, "-o", model).output
        assert "39 nodes, 20 leaves, depth 19, training RMSE 0;" in summary, summary
    out = run("evaluate", str(data), "-a", "cart", "--folds", "2").output
    assert re.search(r"RMSE \d\.\d+e\+20\d\nMAE  \d\.\d+e\+20\d\nR2   -?\d", out), out


@pytest.mark.parametrize("values,message", [
    # the file, as every other error of the data names it (the learner's check knew none)
    ([1.6e308, -1.7e308, 1.5e308, 1.7e308], "{data}: the target 'y' is too large: its sum overflows a double (its "
                                            "largest value is 1.7e+308); scale it down"),
    # the file's line, where it named none (badinput)
    ([1.0, float("inf"), 2.0, 3.0], "{data}:3: the target 'y' has an infinite value ('inf'): a regression target "
                                    "must be finite")])
def test_a_regression_target_whose_sums_overflow_is_refused(tmp_path, values, message):
    """A leaf's mean would be inf or NaN, which no model file holds: train wrote a file that the loader then
    refused, after numpy's warnings."""
    data = tmp_path / "big.csv"
    data.write_text("x,y\n" + "".join(f"{i},{v!r}\n" for i, v in enumerate(values * 5)))
    for command in (["train", str(data), "-a", "cart"], ["evaluate", str(data), "-a", "cart", "--folds", "2"]):
        result = run(*command, ok=False)
        assert (result.exit_code, result.output) == (2, f"treegen: error: {message.format(data=data)}\n"), \
            result.output


def test_evaluate_a_rule_text_model_on_an_arff_file(tmp_path):
    model, rules = str(tmp_path / "t.json"), str(tmp_path / "t.rules")
    run("train", TENNIS, "-a", "id3", "-o", model)
    run("export", model, "--to", "rules", "-o", rules)
    arff = os.path.join(EXAMPLES, "play_tennis.arff")
    assert "accuracy 100.00% (14/14)" in run("evaluate", rules, "--test", arff).output


def test_evaluate_a_regression_model(tmp_path):
    weather, model = os.path.join(EXAMPLES, "weather.numeric.arff"), str(tmp_path / "temperature.json")
    run("train", weather, "-a", "cart", "--target", "temperature", "-o", model)
    out = run("evaluate", model, "--test", weather).output
    lines = run("predict", model, weather).output.splitlines()
    at = lines[0].split(",").index("temperature")
    errors = [float(line.split(",")[at]) - float(line.split(",")[-1]) for line in lines[1:]]
    assert f"RMSE {(sum(e * e for e in errors) / len(errors)) ** 0.5:.6g}\n" in out
    assert f"MAE  {sum(abs(e) for e in errors) / len(errors):.6g}\n" in out and any(errors)


def test_evaluate_a_model_counts_labels_it_does_not_know_as_wrong(tmp_path):
    model, data = str(tmp_path / "t.json"), tmp_path / "odd.csv"
    run("train", TENNIS, "-a", "id3", "-o", model)
    rows = open(TENNIS, encoding="utf-8").read().splitlines()
    rows[1], rows[2], rows[3] = rows[1][:-2] + "maybe", rows[2][:-2] + "perhaps", rows[3][:-3] + "maybe"
    rows[4] = rows[4][:-3]  # no label: left out
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = run("evaluate", model, "--test", str(data)).output.splitlines()
    assert out[:4] == [f"{model} on {data}: 13 predictions", "1 row without a label left out",
                       "accuracy 76.92% (10/13)",
                       "3 rows have a label that the model does not know (2 classes: maybe, perhaps), counted as wrong"]
    assert out[6].split() == ["no", "yes", "maybe", "perhaps"] and out[9].split() == ["maybe", "1", "1", "0", "0"]


@pytest.mark.parametrize("args,message", [
    ([], ": a model is evaluated on a labelled file: give it as --test FILE"),
    (["--test", TENNIS, "-a", "cart"], ": --algorithm is for learning from a data file, and this is a model: "
                                        "evaluate tests it as it is, on --test FILE"),
    (["--test", TENNIS, "--folds", "3"], ": --folds is for learning from a data file"),
    (["--test", TENNIS, "--loo"], ": --loo is for learning from a data file"),
    (["--test", TENNIS, "--seed", "1"], ": --seed is for learning from a data file"),
    (["--test", TENNIS, "--nominal", "wind"], ": --nominal is for learning from a data file"),
    (["--test", TENNIS, "--max-depth", "2"], ": --max-depth is for learning from a data file"),
    (["--test", TENNIS, "--target", "Play"],
     f"{TENNIS}: unknown column 'Play'; the columns are: {TENNIS_COLUMNS}; did you mean 'play'?"),
    (["--test", "no-such.csv"], "no-such.csv: cannot read data: No such file or directory"),
])
def test_evaluate_a_model_refuses_in_one_line(tennis_model, args, message):
    result = cli("evaluate", tennis_model, *args)
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert message in result.stderr, result.stderr


def test_evaluate_a_model_without_its_target_column_says_to_name_it(tmp_path, tennis_model):
    data = tmp_path / "renamed.csv"
    data.write_text(open(TENNIS, encoding="utf-8").read().replace(",play\n", ",Play\n", 1), encoding="utf-8")
    result = cli("evaluate", tennis_model, "--test", str(data))
    assert result.returncode == 2
    assert result.stderr == (f"treegen: error: {data}: no column named 'play' as the model's target: name the label "
                             f"column with --target; the columns are: {TENNIS_COLUMNS[:-6]}'Play'; "
                             "did you mean 'Play'?\n")


def test_evaluate_a_regression_model_on_labels_that_are_not_numbers(tmp_path):
    data = tmp_path / "t.csv"
    data.write_text("x,y\n1,2.5\n2,3.5\n3,4\n4,5\n", encoding="utf-8")
    model = str(tmp_path / "m.json")
    run("train", str(data), "-a", "cart", "-o", model)
    data.write_text("x,y\n1,2.5\n2,lots\n", encoding="utf-8")
    result = cli("evaluate", model, "--test", str(data))
    assert result.returncode == 2
    assert f"{data}:3: the label 'lots' is not a number, and the model is a regression" in result.stderr


def test_evaluate_a_pickle_says_how_to_import_it(tmp_path):
    import pickle
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps({"not": "a model"}))
    result = cli("evaluate", str(path), "--test", TENNIS)
    assert result.returncode == 2 and "a pickle or joblib file" in result.stderr and "import --trust" in result.stderr


def test_evaluate_tells_a_model_from_data_by_content_when_the_name_does_not(tmp_path, tennis_model):
    data, model = tmp_path / "tennis.data", tmp_path / "model.txt"
    data.write_text(open(TENNIS, encoding="utf-8").read(), encoding="utf-8")
    model.write_text(open(tennis_model, encoding="utf-8").read(), encoding="utf-8")
    assert "leave-one-out: 14 predictions\naccuracy 78.57% (11/14)\n" in run("evaluate", str(data), "-a", "id3", "--loo").output
    assert f"{model} on {data}: 14 predictions\naccuracy 100.00% (14/14)\n" in run(
        "evaluate", str(model), "--test", str(data)).output


@pytest.mark.parametrize("learner", [[], ["-a", "id3"]])  # a model; a learner trained on DATA
def test_evaluate_on_a_file_without_labels_says_so(tmp_path, tennis_model, learner):
    data = tmp_path / "unlabelled.csv"
    data.write_text("outlook,temperature,humidity,wind,play\nsunny,hot,high,weak,\n", encoding="utf-8")
    result = cli("evaluate", TENNIS if learner else tennis_model, *learner, "--test", str(data))
    assert result.returncode == 2
    assert result.stderr == f"treegen: error: {data}: no rows with a label to test on: the label column is empty\n"


HOSTILE_NAMES_CSV = 'y,"\ufeffx","a\rb",c\n' + "".join(
    f'"{"cr" if i % 3 else "plain"}\rx",{i % 7},{i % 5},"{"p" if i % 2 else "r"}\rq"\n' for i in range(40))


def test_a_cr_or_a_leading_byte_order_mark_in_names_and_values_survives_predict_and_verify(tmp_path):
    """A class label, a category and a feature name holding a bare CR, a first feature whose name starts with a
    byte order mark: predict's output reads back as the data plus its columns, and verify's probe CSV, the SQL
    and rule runners' output carry them, so every target agrees with the model."""
    data, model, out = tmp_path / "d.csv", str(tmp_path / "m.json"), tmp_path / "p.csv"
    data.write_text(HOSTILE_NAMES_CSV, encoding="utf-8", newline="")
    run("train", str(data), "--target", "y", "-a", "cart", "--nominal", "c", "--min-samples-leaf", "1", "-o", model)
    assert [f["name"] for f in json.load(open(model))["features"]] == ["\ufeffx", "a\rb", "c"]
    run("predict", model, str(data), "--proba", "-o", str(out))
    from treegen.data import read_table
    given, predicted = read_table(str(data)), read_table(str(out))
    assert predicted.names == given.names + ["prediction", "P(cr\rx)", "P(plain\rx)"]
    assert predicted.columns[:4] == given.columns and predicted.columns[4] == given.columns[0]
    done = cli("verify", model, str(data), "--dialect", "sqlite")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[:2] for line in done.stdout.splitlines()] == [
        [target, "ok"] for target in ("python", "java", "javascript", "c", "sql/sqlite", "rules")], done.stdout


@pytest.mark.parametrize("algorithm", ["id3", "cart"])
def test_rows_all_of_weight_zero_are_one_error_line(tmp_path, algorithm):
    """ID3 raised a traceback where every row weighs zero (its root had no class to take); like CART, it says
    there is nothing to learn from. (C4.5 grows one leaf of weight 0, as J48 does.)"""
    data = tmp_path / "zero.arff"
    data.write_text("@relation zero\n@attribute outlook {sunny,rain}\n@attribute play {yes,no}\n@data\n"
                    "sunny,yes,{0}\nrain,no,{0}\nsunny,no,{0}\n", encoding="utf-8")
    done = CliRunner().invoke(main, ["train", str(data), "--algorithm", algorithm, "-o", str(tmp_path / "m.json")])
    assert (done.exit_code, done.output) == (2, "treegen: error: every row has weight zero: nothing to learn from\n")
