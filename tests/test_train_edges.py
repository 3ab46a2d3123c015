"""Training and evaluation at the edges on the command line: options a new user mistypes, refused in one line
with exit 2, and figures checked against scikit-learn's."""
import json
import os

import pytest
from click.testing import CliRunner

from treegen.cli import main


def run(*args, code=0):
    result = CliRunner().invoke(main, list(args), catch_exceptions=False, prog_name="treegen")
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def labels_with_commas(tmp_path):
    path = tmp_path / "weights.csv"
    path.write_text('a,y\n1,x\n2,"c, d"\n3,x\n4,"a=b"\n5,"c, d"\n6,x\n', encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("weight", ["nan", "inf", "1e400", "-1"])
def test_a_class_weight_that_is_not_a_finite_number_at_least_0_is_refused_as_such(labels_with_commas, weight):
    """Before, NaN and infinite weights trained a tree whose leaves no model file holds, and the line blamed
    "node 0 of tree 0" and asked for a file to be given to export; -1 trained a tree of nonsense."""
    result = run("train", labels_with_commas, "-a", "cart", "--class-weight", f"x={weight}", code=2)
    assert result.stderr == (f"treegen: error: --class-weight: the weight of 'x' must be a finite number at "
                             f"least 0, not '{weight}'\n")


def test_a_class_with_a_comma_takes_its_weight_in_double_quotes(labels_with_commas, tmp_path):
    """As --nominal reads names: the pairs are one CSV record (before, '"c, d"=3' was refused as malformed)."""
    out = str(tmp_path / "model.json")
    run("train", labels_with_commas, "-a", "cart", "--class-weight", 'x=2,"c, d"=3,a=b=0.5', "-o", out)
    with open(out, encoding="utf-8") as file:
        weights = json.load(file)["meta"]["params"]["class_weight"]
    assert weights == {"x": 2.0, "c, d": 3.0, "a=b": 0.5}


def test_an_empty_class_weight_is_refused(labels_with_commas):
    result = run("train", labels_with_commas, "-a", "cart", "--class-weight", "", code=2)
    assert result.stderr == "treegen: error: --class-weight takes 'balanced' or CLASS=WEIGHT,..., not ''\n"


@pytest.mark.parametrize("labels", ["5,5", "5,6"])
def test_r2_of_labels_of_one_value_is_scikit_learns(tmp_path, labels):
    """Labels all alike leave R2 undefined; scikit-learn's r2_score gives 1 for predictions all right and 0
    otherwise. Before, treegen printed 0 for perfect predictions too."""
    from sklearn.metrics import r2_score
    train, test = tmp_path / "train.csv", tmp_path / "test.csv"
    train.write_text("a,y\n1,5\n2,6\n3,7\n", encoding="utf-8")
    truth = [float(v) for v in labels.split(",")]
    test.write_text(f"a,y\n1,{truth[0]:g}\n1,{truth[1]:g}\n", encoding="utf-8")  # both predicted 5
    out = run("evaluate", str(train), "-a", "cart", "--regression", "--test", str(test)).stdout
    assert f"\nR2   {r2_score(truth, [5.0, 5.0]):.6g}\n" in out


WEIGHTS_ARFF = os.path.join(os.path.dirname(__file__), "fixtures", "j48", "weights.arff")


def test_evaluate_counts_each_row_by_its_instance_weight_as_weka():
    """J48 -t weights.arff -T weights.arff: 'Correctly Classified Instances 77.75 86.8715 %' of 89.5, the
    'no' class's precision 1, recall 0.767, F-measure 0.868 (Weka 3.6). Before, each row counted once:
    'accuracy 81.67% (49/60)'."""
    out = run("evaluate", WEIGHTS_ARFF, "--test", WEIGHTS_ARFF).stdout
    assert "\naccuracy 86.87% (77.75/89.5)\n" in out
    assert "\n    no  11.75  38.75\n" in out  # the confusion matrix's row of class no
    assert "\n    no     1.000  0.767  0.868    50.5\n" in out


def test_evaluate_weighs_a_regressions_rows_as_scikit_learns_metrics(tmp_path):
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score
    head = "@relation r\n@attribute a numeric\n@attribute y numeric\n@data\n"
    train, test = tmp_path / "train.arff", tmp_path / "test.arff"
    train.write_text(head + "1,1\n2,2\n3,3\n4,10\n5,11\n6,12\n", encoding="utf-8")
    rows = [(1, 0, 2.5), (3.5, 5, 1), (6, 12, 0.25), (2, 7, 4)]
    test.write_text(head + "".join(f"{a},{y},{{{w}}}\n" for a, y, w in rows), encoding="utf-8")
    out = run("evaluate", str(train), "-a", "cart", "--max-depth", "1", "--test", str(test)).stdout
    truth, weights, predicted = [y for _, y, _ in rows], [w for *_, w in rows], [2, 2, 11, 2]
    rmse = mean_squared_error(truth, predicted, sample_weight=weights) ** 0.5
    mae = mean_absolute_error(truth, predicted, sample_weight=weights)
    r2 = r2_score(truth, predicted, sample_weight=weights)
    assert f"\nRMSE {rmse:.6g}\nMAE  {mae:.6g}\nR2   {r2:.6g}\n" in out


def test_test_rows_that_all_weigh_0_are_refused(tmp_path):
    """Before: 'accuracy nan% (0/0)' and a RuntimeWarning."""
    head = "@relation r\n@attribute a numeric\n@attribute class {s,t}\n@data\n"
    train, test = tmp_path / "train.arff", tmp_path / "test.arff"
    train.write_text(head + "1,s\n2,t\n3,s\n4,t\n", encoding="utf-8")
    test.write_text(head + "1,s,{0}\n2,t,{0}\n3,?,{1}\n", encoding="utf-8")
    result = run("evaluate", str(train), "-a", "cart", "--test", str(test), code=2)
    assert result.stderr == f"treegen: error: {test}: the rows with a label all have weight 0: nothing to measure\n"


TENNIS = os.path.join(os.path.dirname(__file__), "..", "examples", "play_tennis.csv")


def test_an_arff_files_missing_column_is_not_put_on_its_first_line(tmp_path):
    """An ARFF file has no header line: its first line is '@relation' or a comment. Before, the line said
    'test.arff:1: no columns named ...' and 'data.arff:1: column 1 has no name'."""
    test = tmp_path / "test.arff"
    test.write_text("% tennis\n@relation r\n@attribute outlook {sunny,rainy}\n@attribute play {yes,no}\n@data\n"
                    "sunny,no\n", encoding="utf-8")
    result = run("evaluate", TENNIS, "-a", "id3", "--test", str(test), code=2)
    assert result.stderr == f"treegen: error: {test}: no columns named 'humidity', 'wind'\n"
    nameless = tmp_path / "data.arff"
    nameless.write_text("@relation r\n@attribute '' numeric\n@attribute c {s,t}\n@data\n1,s\n2,t\n", encoding="utf-8")
    result = run("train", str(nameless), code=2)
    assert result.stderr == f"treegen: error: {nameless}: column 1 has no name\n"


def test_a_learners_refusal_in_a_fold_says_it_was_a_folds_rows(tmp_path):
    """Six rows, 3 folds: each fold trains on 4, and reduced-error pruning in 5 folds is refused. Before, the
    line said only 'needs 2 to 4 folds, not 5', of a file of 6 rows."""
    data = tmp_path / "six.csv"
    data.write_text("a,y\n1,x\n2,x\n3,z\n4,z\n5,x\n6,z\n", encoding="utf-8")
    result = run("evaluate", str(data), "--reduced-error", "--pruning-folds", "5", "-k", "3", code=2)
    assert result.stderr == ("treegen: error: reduced-error pruning needs 2 to 4 folds, not 5 (cross-validation "
                             "fold 1, trained on 4 of the 6 rows)\n")


def test_trainings_accuracy_counts_rows_by_their_weight_as_evaluate_does():
    """J48's 'Error on training data' on weights.arff: 77.75 of 89.5 correct. Before: '81.67% (49/60)'."""
    result = run("train", WEIGHTS_ARFF, "-o", os.devnull)
    assert "training accuracy 86.87% (77.75/89.5)" in result.stderr


@pytest.mark.parametrize("weight,message", [
    (float("nan"), "Input sample_weight contains NaN."),
    (float("inf"), "Input sample_weight contains infinity or a value too large for dtype('float64')."),
    (-1.0, "sample_weight has a negative value (-1.0): treegen learns from weights at least 0"),
])
def test_sample_weights_scikit_learn_refuses_or_treegen_cannot_follow_are_refused(weight, message):
    """scikit-learn refuses NaN and infinite weights; with a weight of -1 it grows a tree of 3 leaves on these
    rows (random_state=0), where treegen's own grew one leaf. Before, treegen learnt one leaf from all three."""
    import numpy as np
    from treegen.estimator import DecisionTreeClassifier
    X, y = np.arange(1, 7.0).reshape(-1, 1), np.array(["x", "z"] * 3)
    with pytest.raises(ValueError) as error:
        DecisionTreeClassifier(random_state=0).fit(X, y, sample_weight=[weight, 1, 1, 1, 1, 1])
    assert str(error.value) == message


def test_a_target_declared_numeric_learnt_as_classes_is_warned_of(tmp_path):
    """J48 refuses a numeric class ("Cannot handle numeric class!"); c45 learnt an ARFF file's numeric target
    as one class per value without a word (iris' sepallength: 35 classes, 52.67% of the training rows)."""
    iris = os.path.join(os.path.dirname(__file__), "fixtures", "j48", "iris.arff")
    out = str(tmp_path / "model.json")
    said = run("train", iris, "-a", "c45", "--target", "sepallength", "-o", out).stderr
    assert said.startswith("treegen: warning: target 'sepallength' is declared numeric: c45 learns its 35 distinct "
                           "values as 35 classes (Weka's J48 refuses a numeric class); for a regression tree use "
                           "--algorithm cart (--nominal sepallength keeps them as classes)\n")
    chosen = run("train", iris, "-a", "c45", "--target", "sepallength", "--nominal", "sepallength", "-o", out)
    assert "warning" not in chosen.stderr
    assert "warning" not in run("train", iris, "-a", "cart", "--target", "sepallength", "-o", out).stderr
    assert "warning" not in run("train", iris, "-a", "c45", "-o", out).stderr
