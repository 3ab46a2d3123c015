"""Training and evaluation at the edges on the command line: options a new user mistypes, refused in one line
with exit 2, and figures checked against scikit-learn's."""
import json

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
