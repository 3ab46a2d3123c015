"""Bad input at the edges: numbers and numbering in rule text, models an importer writes, data a learner refuses.
Each is refused in one line that says what is wrong where it is, or read exactly."""
import math

import pytest

from cli_in_process import treegen_cli
from treegen.errors import TreegenError
from treegen.model import CLASSIFICATION, NUMERIC, Feature, Model, Node, Split, Target, Tree
from treegen.parse.rule_text import parse
from treegen.targets import emit
from treegen.testing import random_model

# -- rule text: a number beyond the largest double --------------------------------------------------

REGRESSION_RULES = """treegen rules, format 1
features
  x: numeric
target y: numeric
numbers: float64
combine: single

tree 1
rules
  rule 1: if x <= 2.5 then 10.0  # n 2.0
  rule 2: if (x > 2.5 or missing) then 20.0  # n 2.0
  default: 15.0
nodes  # the tree these rules come from, for exact round trips
  node 0: x <= 2.5 ? 1 : 2; missing to 2; value [15.0]; n 4.0
  node 1: leaf; value [10.0]; n 2.0
  node 2: leaf; value [20.0]; n 2.0
"""


def refusal(text: str) -> TreegenError:
    with pytest.raises(TreegenError) as err:
        parse(text, "m.rules")
    return err.value


@pytest.mark.parametrize("old, new", [
    ("2.5", "1e400"),  # the threshold, in the rules and the node alike: it read as inf, silently
    ("2.5", "-1e400"),
    ("value [20.0]", "value [1e400]"),  # a leaf's value: it was refused as 'found inf', which was not written
    ("n 4.0", "n 1e400"),
    ("value [15.0]", "value [1" + "0" * 400 + "]"),  # digits alone past the largest double
])
def test_a_number_beyond_the_largest_double_is_refused_at_it(old, new):
    text = REGRESSION_RULES.replace(old, new)
    err = refusal(text)
    written = new.split()[-1].strip("[];")
    line = next(n for n, line in enumerate(text.split("\n"), 1) if written in line)
    assert err.message == (f"{written} is beyond the largest double (1.7976931348623157e+308); an infinite number "
                           f"is written {'-' if written.startswith('-') else ''}inf")
    assert (err.line, err.column) == (line, text.split("\n")[line - 1].index(written) + 1)


def test_a_weight_beyond_the_largest_double_is_refused_at_it():
    """A missing value's share of a branch (C4.5's route): it read as inf and was refused as weights summing to inf."""
    text = REGRESSION_RULES.replace("missing to 2", "missing weights [0.5, 1e400]")
    err = refusal(text)
    assert err.message.startswith("1e400 is beyond the largest double")
    assert (err.line, err.column) == (14, text.split("\n")[13].index("1e400") + 1)


def test_infinite_thresholds_as_the_writer_writes_them_still_read_back():
    model = Model((Feature("x", NUMERIC),), Target("y", CLASSIFICATION, ("a", "b")), [Tree([
        Node((0.5, 0.5), (), 4.0, Split(0, "<=", math.inf), (1, 2)),
        Node((0.5, 0.5), (), 3.0, Split(0, "<=", -math.inf), (3, 4)), Node((0.0, 1.0), (), 1.0),
        Node((1.0, 0.0), (), 1.0), Node((0.0, 1.0), (), 2.0)])])
    text = emit(model, "rules")
    assert "x <= inf ?" in text and "x <= -inf ?" in text
    again = parse(text)
    assert [node.split.threshold for node in again.trees[0].nodes if node.split] == [math.inf, -math.inf]


def test_the_command_says_it_in_one_line(tmp_path):
    path = tmp_path / "m.rules"
    path.write_text(REGRESSION_RULES.replace("2.5", "1e400"), encoding="utf-8")
    done = treegen_cli("parse", path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"treegen: error: {path}:10:19: 1e400 is beyond the largest double "
                           "(1.7976931348623157e+308); an infinite number is written inf\n")


# -- rule text: trees and rules are numbered 1, 2, 3, ... -----------------------------------------

def forest_text() -> str:
    text = emit(random_model(3, n_trees=3, max_depth=2), "rules")
    assert [line for line in text.split("\n") if line.startswith("tree ")] == ["tree 1", "tree 2", "tree 3"]
    return text


def line_of(text: str, statement: str, nth: int = 1) -> int:
    return [n for n, line in enumerate(text.split("\n"), 1) if line == statement][nth - 1]


@pytest.mark.parametrize("old, new, nth, expected", [
    ("tree 2", "tree 5", 1, "expected tree 2, found tree 5"),  # tree 2 lost, or numbered wrong: it was read
    ("tree 3", "tree 2", 2, "tree 2 is given twice (first on line {first})"),  # a tree pasted twice
    ("tree 1", "tree 0", 1, "expected tree 1, found tree 0"),  # numbered from 0, as nodes are
])
def test_a_tree_out_of_its_number_is_refused_at_the_number(old, new, nth, expected):
    text = forest_text()
    edited = text.replace(f"\n{old}\n", f"\n{new}\n")
    err = refusal(edited)
    first = line_of(edited, new)
    assert err.message == expected.format(first=first) + ": the trees are numbered 1, 2, 3, ... in the order written"
    assert (err.line, err.column) == (line_of(edited, new, nth), 6)


def test_a_rule_given_twice_is_said_so_at_its_number():
    """A rule line pasted twice was 'rule 1 does not match the nodes section', at no column."""
    lines = REGRESSION_RULES.split("\n")
    text = "\n".join(lines[:10] + lines[9:])
    err = refusal(text)
    assert err.message == "rule 1 is given twice (first on line 10): a tree's rules are numbered 1, 2, 3, ... in the " \
                          "order written"
    assert (err.line, err.column) == (11, 8)


def test_a_rule_out_of_its_number_is_refused_at_the_number():
    err = refusal(REGRESSION_RULES.replace("rule 2:", "rule 7:"))
    assert err.message.startswith("expected rule 2, found rule 7: ")
    assert (err.line, err.column) == (11, 8)


# -- rule text: a feature declared twice ----------------------------------------------------------

TENNIS_RULES = """treegen rules, format 1
features
  outlook: nominal {"sunny", "overcast", "rainy"}
  humidity: numeric
  windy: nominal {"TRUE", "FALSE"}
target play: classes {"no", "yes"}
numbers: float64
combine: single

tree 1
rules
  rule 1: if outlook = "overcast" then "yes"  # n 4.0: no 0.0, yes 4.0
  rule 2: if (outlook in {"sunny", "rainy"} or missing) and humidity <= 82.5 then "yes"  # n 5.0: no 1.0, yes 4.0
  rule 3: if (outlook in {"sunny", "rainy"} or missing) and (humidity > 82.5 or missing) then "no"  # n 5.0: no 4.0, yes 1.0
  default: "yes"
nodes  # the tree these rules come from, for exact round trips
  node 0: outlook in {"overcast"} ? 1 : 2; missing to 2; value [0.35714285714285715, 0.6428571428571429]; n 14.0; counts [5.0, 9.0]
  node 1: leaf; value [0.0, 1.0]; n 4.0; counts [0.0, 4.0]
  node 2: humidity <= 82.5 ? 3 : 4; missing to 4; value [0.5, 0.5]; n 10.0; counts [5.0, 5.0]
  node 3: leaf; value [0.2, 0.8]; n 5.0; counts [1.0, 4.0]
  node 4: leaf; value [0.8, 0.2]; n 5.0; counts [4.0, 1.0]
"""


@pytest.mark.parametrize("old, new, name", [
    # humidity renamed outlook: it was "unknown feature 'humidity'" at node 2
    ("  humidity: numeric", "  outlook: numeric", "outlook"),
    # the unused windy renamed outlook: it was "unknown category 'overcast' of feature 'outlook'", the categories
    # the second declaration gives
    ('  windy: nominal {"TRUE", "FALSE"}', '  # a comment\n\n  "outlook": nominal {"sunny"}', "outlook"),
])
def test_a_feature_declared_twice_is_said_so_at_the_second(old, new, name):
    text = TENNIS_RULES.replace(old, new)
    parse(TENNIS_RULES)
    err = refusal(text)
    second = next(n for n, line in enumerate(text.split("\n"), 1)
                  if n > 3 and line.lstrip().strip('"').startswith(name))
    assert err.message == f"feature {name!r} is declared twice (first on line 3)"
    assert (err.line, err.column) == (second, 3)


# -- cart's float32: a value float32 cannot hold --------------------------------------------------

FLOAT32_REFUSED = "is infinite or too large for float32, which scikit-learn refuses (cast float32 learns on float32 " \
                  "copies of the values)"


@pytest.mark.parametrize("options", [["--cast", "float32"], ["--random-state", "0"]])
def test_training_on_float32_casts_refuses_a_value_past_float32_at_its_line(tmp_path, options):
    """It learnt on inf ('x <= 3.0' of 1e39 as inf), where scikit-learn refuses "Input X contains infinity or a value
    too large for dtype('float32')"; --random-state said so without the column or line. A row left out for its
    missing target is no row learnt from."""
    data = tmp_path / "big.csv"
    data.write_text("x,z,y\n1,0,a\n2,0,a\n1e39,0,\n5,-1e39,b\n4,0,b\ninf,0,b\n", encoding="utf-8")
    for command in (["train", data, "-a", "cart", *options, "-o", tmp_path / "m.json"],
                    ["evaluate", data, "-a", "cart", *options, "--folds", "2"]):
        done = treegen_cli(*command)
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == f"treegen: error: {data}:5: column 'z': -1e+39 {FLOAT32_REFUSED}\n"
    assert not (tmp_path / "m.json").exists()
    assert treegen_cli("train", data, "-a", "cart", "-o", tmp_path / "m.json").returncode == 0  # float64 takes it


def test_training_on_float32_casts_refuses_it_in_the_api_with_the_row():
    import numpy as np
    import pandas as pd
    import treegen
    from treegen.estimator import DecisionTreeClassifier
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.5e38, 4.0], "y": ["a", "a", "b", "b"]}, index=list("pqrs"))
    for cast in ({"cast": "float32"}, {"random_state": 0}):
        with pytest.raises(TreegenError, match=r"^<DataFrame> row 'r' \(iloc 2\): column 'x': 3\.5e\+38 is infinite"):
            treegen.train(frame, algorithm="cart", **cast)
    refused = FLOAT32_REFUSED.replace("(", r"\(").replace(")", r"\)")
    with pytest.raises(TreegenError, match=rf"^column 'x0': 1e\+39 {refused}; row 2 of the data, counting from 0$"):
        DecisionTreeClassifier(cast="float32").fit(np.array([[1.0], [2.0], [1e39], [4.0]]), [0, 0, 1, 1])
    assert treegen.train(frame.assign(x=[1.0, 2.0, 3.4e38, 4.0]), algorithm="cart", cast="float32")  # float32's largest


# -- import: a file treegen's own loader would refuse ----------------------------------------------

def test_importing_a_negative_cover_is_refused_in_one_line_and_the_file_itself_predicts(tmp_path):
    """A custom objective's negative hessians give XGBoost nodes a negative cover (sum_hessian), which import wrote as
    n; export and predict of that JSON model then refused it: 'trees[0].nodes[0].n: expected a finite number >= 0,
    found -200.0'."""
    import numpy as np
    import xgboost
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(200, 2)), (rng.random(200) < 0.5).astype(float)
    booster = xgboost.train({"min_child_weight": 0, "base_score": 0.5}, xgboost.DMatrix(X, y), 2,
                            obj=lambda predicted, data: (predicted - data.get_label(), -np.ones_like(predicted)))
    path, out, rows = tmp_path / "model.json", tmp_path / "imported.json", tmp_path / "rows.csv"
    booster.save_model(path)
    done = treegen_cli("import", path, "-o", out)
    assert (done.returncode, done.stderr, out.exists()) == (2, (
        f"treegen: error: {path}: node 0 of tree 0 has a weight n of -200.0 (its training rows, or the sum of their "
        "hessians), which a treegen model file cannot hold: n is a finite number at least 0; give the file itself to "
        "export, verify or predict\n"), False)
    rows.write_text("x0,x1\n0.5,1\n", encoding="utf-8")
    predicted = treegen_cli("predict", path, rows)
    assert (predicted.returncode, predicted.stdout) == (0, "x0,x1,prediction\n0.5,1,0.5\n"), predicted.stderr


def without_tree_sizes(text: str) -> str:
    """A LightGBM model's text without its tree_sizes line, so that a tree edited to another length is read as LightGBM
    reads it then, in turn (with it, LightGBM refuses the file, and treegen too)."""
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("tree_sizes="))


@pytest.mark.parametrize("fixture, field, written, message", [
    # LightGBM's x <= nan holds for no number: import wrote it, and export of that JSON model refused
    # 'trees[0].nodes[0].split.threshold: a threshold must be a number, not NaN'
    ("binary", "threshold", "nan", "node 0 of tree 0 splits at a NaN threshold, which no number is at most or below "
                                   "(a damaged file?); a treegen model file cannot hold it"),
    # said 'has an infinite value'
    ("binary", "leaf_value", "nan", "node 2 of tree 0 has a value that is NaN, which a treegen model file cannot hold; "
                                    "give the file itself to export, verify or predict"),
    # written, then refused: 'trees[0].nodes[2].linear.const: expected a finite number, found nan'
    ("linear_tree", "leaf_const", "nan", "node 2 of tree 0 is a linear leaf with nan for a number, which a treegen "
                                         "model file cannot hold; give the file itself to export, verify or predict"),
])
def test_importing_a_nan_the_loader_refuses_is_refused_in_one_line(tmp_path, fixture, field, written, message):
    import re
    original = without_tree_sizes(open(f"tests/fixtures/lightgbm/4.7.0/{fixture}.txt", encoding="utf-8").read())
    path, out = tmp_path / "model.txt", tmp_path / "imported.json"
    path.write_text(re.sub(rf"^{field}=\S+", f"{field}={written}", original, count=1, flags=re.M), encoding="utf-8")
    done = treegen_cli("import", path, "-o", out)
    assert (done.returncode, done.stderr, out.exists()) == (2, f"treegen: error: {path}: {message}\n", False)


# -- evaluate: a learner tested on a file whose label column is named otherwise --------------------

def test_a_test_file_without_the_training_target_says_what_its_labels_need(tmp_path):
    """It was "te.csv: unknown column 'y'; the columns are: 'x', 'label'", after the fit, and --target names the
    training file's target only."""
    train, test = tmp_path / "tr.csv", tmp_path / "te.csv"
    train.write_text("x,y\n1,a\n2,a\n3,b\n4,b\n", encoding="utf-8")
    for header, hint in (("x,label", ""), ("x,Y", "; did you mean 'Y'?")):
        test.write_text(f"{header}\n1,a\n4,b\n", encoding="utf-8")
        done = treegen_cli("evaluate", train, "-a", "cart", "--test", test)
        columns = ", ".join(repr(name) for name in header.split(","))
        assert (done.returncode, done.stdout, done.stderr) == (2, "", (
            f"treegen: error: {test}: no column named 'y' as the training data's target, which holds the test rows' "
            f"labels: name the test file's label column as the training file's; the columns are: {columns}{hint}\n"))
    test.write_text("x,y\n1,a\n4,b\n", encoding="utf-8")
    assert treegen_cli("evaluate", train, "-a", "cart", "--test", test).stdout.startswith(
        f"held-out test set {test}: 2 predictions\naccuracy 100.00% (2/2)\n")


def test_rule_text_of_an_infinite_leaf_is_refused_as_its_reading_would_be(tmp_path):
    """export --to rules wrote 'value [inf]', which treegen parse (and verify --program) then refused:
    'trees[0].nodes[2].value[0]: expected a finite number, found inf'."""
    import re
    original = without_tree_sizes(open("tests/fixtures/lightgbm/4.7.0/binary.txt", encoding="utf-8").read())
    path, out = tmp_path / "model.txt", tmp_path / "model.rules"
    path.write_text(re.sub(r"^leaf_value=\S+", "leaf_value=inf", original, count=1, flags=re.M), encoding="utf-8")
    done = treegen_cli("export", path, "--to", "rules", "-o", out)
    assert (done.returncode, done.stderr) == (2, "treegen: error: node 2 of tree 0 has an infinite value, which rule "
                                                 "text cannot hold; export it to another target, or give the file "
                                                 "itself to verify or predict\n")
    assert treegen_cli("export", path, "--to", "python", "-o", tmp_path / "model.py").returncode == 0


def test_a_nan_threshold_in_rule_text_is_refused_at_it():
    """It was 'trees[0].nodes[0].split.threshold: a threshold must be a number, not NaN' at the line only."""
    err = refusal(REGRESSION_RULES.replace("x <= 2.5 ?", "x <= nan ?"))
    assert err.message == "a threshold is a number, not nan (no number is at most nan)"
    assert (err.line, err.column) == (14, 16)


# -- a split no number passes ------------------------------------------------------------------------

def strict_split_at_minus_infinity() -> Model:
    """XGBoost's ``x < t`` at t = -inf: Model.predict sends every number right; the targets' cut (``x <= -inf``, in
    float32 every double below -FLT_MAX) sent -inf left."""
    from treegen.model import NumericSemantics
    return Model((Feature("x", NUMERIC),), Target("y", CLASSIFICATION, ("a", "b")), [Tree([
        Node((0.5, 0.5), (), 4.0, Split(0, "<=", -math.inf), (1, 2)), Node((1.0, 0.0), (), 1.0),
        Node((0.0, 1.0), (), 3.0)])], numeric=NumericSemantics(cast="float32", strict=True))


@pytest.mark.parametrize("to", ["python", "sql", "rules"])
def test_a_strict_split_at_minus_infinity_is_not_compiled(to):
    with pytest.raises(TreegenError, match=r"cannot be compiled: tree 0, node 0: a split at -inf with 'x < t' "
                                           r"\(strict\), which no number is below"):
        emit(strict_split_at_minus_infinity(), to)


def test_a_model_file_with_a_strict_split_at_minus_infinity_is_refused_at_it(tmp_path):
    from treegen import modelio
    model = strict_split_at_minus_infinity()
    text = modelio.dumps(model)
    path = tmp_path / "m.json"
    path.write_text(text, encoding="utf-8")
    done = treegen_cli("predict", path, path)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"treegen: error: {path}: trees[0].nodes[0].split.threshold: a split at -inf with "
                                  "'x < t' (strict), which no number is below"), done.stderr
