"""The command line, as a user runs it: the issue's walk-through, and one-line errors with exit 2."""
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

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


def test_show_reads_rule_text_too(tmp_path):
    rules = tmp_path / "t.rules"
    model = run("train", TENNIS, "-a", "id3").output
    (tmp_path / "m.json").write_text(model, encoding="utf-8")
    rules.write_text(run("export", str(tmp_path / "m.json"), "--to", "rules").output, encoding="utf-8")
    assert "outlook = overcast: yes" in run("show", str(rules)).output


def test_predict_writes_a_file(tmp_path):
    model = tmp_path / "m.json"
    run("train", TENNIS, "-a", "id3", "-o", str(model))
    run("predict", str(model), TENNIS, "-o", str(tmp_path / "p.csv"))
    assert (tmp_path / "p.csv").read_text().splitlines()[1].endswith(",no")


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


def cli(*args, stdin=None):
    """The installed entry point in a subprocess: what a user's shell sees."""
    return subprocess.run([sys.executable, "-m", "treegen", *args], capture_output=True, text=True,
                          input=stdin, encoding="utf-8")


BAD_FILES = {
    "ragged.csv": ("a,b\n1,x\n2\n", "ragged.csv:3: expected 2 fields as in the header, found 1"),
    "empty.csv": ("", "empty.csv:1: empty file: expected a header row"),
    "header_only.csv": ("a,b\n", "no rows with a value for the target column 'b'"),
    "constant.csv": ("a,b\nx,yes\ny,yes\n", "has one value only ('yes'): there is nothing to learn"),
    "bad.arff": ("@relation r\n@attribute a {x,y}\n@data\nz\n", "bad.arff:4: 'z' is not a declared value of 'a'"),
    "numeric.csv": ("a,b\n1,x\n2,y\n", "ID3 handles nominal features only and 'a' is numeric"),
    "hostile.csv": ('"""; DROP TABLE x; --",b\n1,x\n2,y\n', "ID3 handles nominal features only and '\"; DROP"),
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


@pytest.mark.parametrize("args,message", [
    (["train", TENNIS, "--target", "nope"], "unknown column 'nope'"),
    (["train", "missing-file.csv"], "missing-file.csv: cannot read data: No such file or directory"),
    (["train", TENNIS, "-a", "c45", "--criterion", "gini"], "--criterion does not apply to --algorithm c45"),
    (["train", TENNIS, "-a", "cart", "--ccp-alpha", "lots"], "--ccp-alpha takes a number or 'cv'"),
    (["show", TENNIS], "unexpected"),
    (["evaluate", TENNIS, "--loo", "--folds", "3"], "choose one of --folds, --loo and --test"),
    (["evaluate", TENNIS, "-a", "id3", "--folds", "99"], "--folds must be between 2 and the number of rows"),
])
def test_bad_usage_is_one_line_and_exit_2(args, message):
    result = cli(*args)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and "Traceback" not in result.stderr


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
    assert "outlook = overcast: yes" in cli("show", "-", stdin=model).stdout


def test_cart_options_reach_the_learner(tmp_path):
    iris = os.path.join(os.path.dirname(__file__), "fixtures", "j48", "iris.arff")
    out = run("train", iris, "-a", "cart", "--max-depth", "2", "--cast", "float32",
              "--class-weight", "Iris-setosa=1,Iris-versicolor=3,Iris-virginica=1").output
    model = json.loads(out)
    assert model["numeric"]["cast"] == "float32" and model["meta"]["params"]["class_weight"]["Iris-versicolor"] == 3.0
    assert cli("train", iris, "-a", "cart", "--class-weight", "lots").returncode == 2


def test_c45_subtree_raising_flag_matches_j48_dash_s():
    fixtures = os.path.join(os.path.dirname(__file__), "fixtures", "j48")
    model = run("train", os.path.join(fixtures, "soybean.arff"), "--no-subtree-raising").output
    shown = CliRunner().invoke(main, ["show", "-", "--style", "j48"], input=model).output
    assert shown == open(os.path.join(fixtures, "soybean.noraise.tree"), encoding="utf-8").read()
