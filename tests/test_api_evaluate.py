"""treegen.evaluate: `treegen evaluate` from Python, its numbers as attributes and its text as str()."""
import importlib
import os
import pydoc
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import treegen
from treegen.cli import main
from treegen.errors import BadArgument, NotAModel, TreegenError

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
TENNIS = os.path.join(EXAMPLES, "play_tennis.csv")
FISH = os.path.join(EXAMPLES, "fish.csv")
WEATHER = os.path.join(EXAMPLES, "weather.numeric.arff")


def cli(*args) -> str:
    result = CliRunner().invoke(main, ["evaluate", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def regression_csv(tmp_path):
    rng = np.random.default_rng(3)
    a, b = rng.random(60), rng.choice(list("pqr"), 60)
    frame = pd.DataFrame({"a": a, "b": b, "c": rng.integers(0, 10, 60), "y": a * 3 + (b == "p") + rng.random(60)})
    frame.to_csv(tmp_path / "reg.csv", index=False)
    return str(tmp_path / "reg.csv")


def test_its_text_is_the_clis_on_the_same_data_and_seed(tmp_path, regression_csv):
    """Cross-validation (stratified, seeded; leave-one-out; a regression), a held-out file and a model on a file:
    str() is byte for byte what the CLI prints, so every number in it is the CLI's."""
    model_file = str(tmp_path / "m.json")
    treegen.save(treegen.train(TENNIS, algorithm="id3"), model_file)
    runs = [
        (["-a", "id3", "--loo", TENNIS], dict(data=TENNIS, algorithm="id3", loo=True)),
        (["-k", "3", "--seed", "4", TENNIS], dict(data=TENNIS, folds=3, seed=4)),
        (["-k", "2", WEATHER], dict(data=WEATHER, folds=2)),
        (["-a", "cart", "--max-depth", "2", "-k", "5", "--seed", "2", regression_csv],
         dict(data=regression_csv, algorithm="cart", max_depth=2, folds=5, seed=2)),
        (["--test", FISH, FISH], dict(data=FISH, test=FISH)),
        (["--test", TENNIS, model_file], dict(data=model_file, test=TENNIS)),
    ]
    for args, kwargs in runs:
        assert str(treegen.evaluate(kwargs.pop("data"), **kwargs)) == cli(*args)


def test_the_numbers_are_attributes():
    report = treegen.evaluate(TENNIS, target="play", algorithm="id3", loo=True)
    assert report.accuracy == 11 / 14
    assert report.confusion_matrix.tolist() == [[3, 2], [1, 8]] and report.classes == ("no", "yes")
    assert report.precision == {"no": 0.75, "yes": 0.8}
    assert report.recall == {"no": 3 / 5, "yes": 8 / 9}
    assert report.f1["yes"] == pytest.approx(2 * 0.8 * (8 / 9) / (0.8 + 8 / 9))
    assert report.support == {"no": 5, "yes": 9}
    assert len(report.truth) == len(report.predicted) == 14
    assert repr(report).startswith("<treegen evaluate: leave-one-out: 14 predictions>\n")
    with pytest.raises(AttributeError, match="^rmse is for a regression, and this report is of a classification: "
                                             "it has accuracy, confusion_matrix"):
        report.rmse


def test_a_regressions_numbers(regression_csv):
    report = treegen.evaluate(regression_csv, algorithm="cart", folds=5, seed=2)
    truth, predicted = np.array(report.truth), np.array(report.predicted)
    assert report.mae == pytest.approx(np.abs(truth - predicted).mean(), rel=1e-12)
    assert report.rmse == pytest.approx(np.sqrt(((truth - predicted) ** 2).mean()), rel=1e-12)
    assert report.r2 == pytest.approx(1 - ((truth - predicted) ** 2).sum() / ((truth - truth.mean()) ** 2).sum())
    assert f"RMSE {report.rmse:.6g}\nMAE  {report.mae:.6g}\nR2   {report.r2:.6g}\n" in str(report)
    assert not hasattr(report, "accuracy")


def test_each_form_of_data_and_test_rows_measures_alike():
    """Data to learn from as a path or a DataFrame; test rows as a path, a frame, row dicts, or (X, y) with X a
    frame, an array, a list of sequences or row dicts; a model as a Model or its file."""
    frame = pd.read_csv(TENNIS)
    assert str(treegen.evaluate(frame, target="play", folds=4)) == str(treegen.evaluate(TENNIS, folds=4))
    model = treegen.train(TENNIS, algorithm="id3")
    features, labels = frame.drop(columns="play"), frame["play"]
    forms = [TENNIS, frame, frame.to_dict("records"), (features, labels), (features.to_numpy(), labels.tolist()),
             (features.values.tolist(), np.asarray(labels)), (features.to_dict("records"), labels)]
    expected = str(treegen.evaluate(model, test=TENNIS)).partition("\n")[2]
    for test in forms:
        report = treegen.evaluate(model, test=test)
        assert str(report).partition("\n")[2] == expected, type(test)
        assert report.accuracy == 1.0
    assert str(treegen.evaluate(model, target="truth", test=(features, labels))).partition("\n")[2] == expected
    learnt = str(treegen.evaluate(TENNIS, algorithm="id3", test=TENNIS)).partition("\n")[2]
    for test in forms:
        assert str(treegen.evaluate(frame, algorithm="id3", test=test)).partition("\n")[2] == learnt, type(test)
    assert treegen.evaluate(model, test=frame).method == "the model on <DataFrame>"


def test_a_model_of_a_library_is_measured_as_predict_predicts_it():
    from sklearn.tree import DecisionTreeClassifier
    frame = pd.read_csv(TENNIS)
    X, y = pd.get_dummies(frame.drop(columns="play"), dtype=float), frame["play"]
    clf = DecisionTreeClassifier(max_depth=2, random_state=0).fit(X, y)
    report = treegen.evaluate(clf, test=(X, y))
    assert report.predicted == clf.predict(X).tolist()
    assert report.accuracy == clf.score(X, y)


def test_bad_arguments_are_one_line_in_pythons_words():
    model = treegen.train(TENNIS, algorithm="id3")
    refused = [
        (dict(data=TENNIS, folds=3, loo=True), BadArgument,
         "choose one of folds=, loo= and test=, not folds= and loo="),
        (dict(data=TENNIS, loo=True, seed=3), BadArgument,
         "seed= draws the folds of folds=: it does not apply to loo="),
        (dict(data=TENNIS, folds=30), BadArgument, "folds= must be between 2 and the number of rows (14), not 30"),
        (dict(data=model, algorithm="id3", test=TENNIS), BadArgument,
         "algorithm= is for learning from data, and this is a model: evaluate tests it as it is, on test="),
        (dict(data=model, max_depth=3, test=TENNIS), BadArgument, "max_depth= is for learning from data"),
        (dict(data=model), BadArgument, "a model is evaluated on labelled rows: give them as test="),
        (dict(data=np.zeros((3, 3))), NotAModel, "treegen.evaluate takes data to learn from (a CSV or ARFF file's "
                                                 "path, a pandas DataFrame) or a model to test on test=; got ndarray"),
        (dict(data=model, test=np.zeros((3, 4))), ValueError, "test= as rows of values by position (an array, a "
                                                             "list of sequences) has no column of labels"),
        (dict(data=model, test=(np.zeros((3, 4)), ["no"])), ValueError,
         "test=(X, y): y takes a label for each row of X (3), not (1,)"),
        (dict(data=TENNIS, algorithm="c45", max_depth=2), TreegenError, "c45 does not take max_depth"),
        (dict(data=model, test=pd.read_csv(TENNIS).drop(columns="play")), TreegenError,
         "<DataFrame>: no column named 'play' as the model's target: name the label column with target=;"),
    ]
    for kwargs, kind, message in refused:
        with pytest.raises(kind) as raised:
            treegen.evaluate(kwargs.pop("data"), **kwargs)
        assert str(raised.value).startswith(message), str(raised.value)
        assert "\n" not in str(raised.value) and isinstance(raised.value, TreegenError)


def test_what_the_cli_warns_or_notes_is_a_treegen_warning_at_the_callers_line():
    rows = 40
    frame = pd.DataFrame({"id": [f"c{i}" for i in range(rows)], "w": np.arange(rows) % 7, "label": np.arange(rows) % 2})
    with pytest.warns(treegen.TreegenWarning) as said:
        treegen.evaluate(frame, target="label", algorithm="cart", folds=4)
    assert [str(w.message)[:30] for w in said] == ["column 'id' has a different va", "target 'label' is numeric with"]
    assert "regression=False learns them" in str(said[1].message) and all(w.filename == __file__ for w in said)
    model = treegen.train(TENNIS, algorithm="id3")
    odd = pd.read_csv(TENNIS).replace({"outlook": {"sunny": "Sunny"}})
    for data in (model, TENNIS):
        with pytest.warns(treegen.TreegenWarning, match="^column 'outlook': 5 values are no category of the model but "
                                                        "one with spaces stripped or case aside") as said:
            treegen.evaluate(data, algorithm=None if data is model else "id3", test=odd)
        assert [w.filename for w in said] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        treegen.evaluate(model, test=TENNIS)


def test_a_test_frames_row_is_named_by_its_index_label():
    """As treegen.train's warnings name a frame's row (tests/test_api.py), so does evaluate's error of a test row."""
    regression = treegen.train(pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "y": [1.0, 2.0, 3.0, 4.0]}), algorithm="cart",
                               regression=True)
    test = pd.DataFrame({"a": [1.0, 2.0], "y": ["1", "two"]}, index=["first", "second"])
    with pytest.raises(TreegenError, match=r"^<DataFrame> row 'second' \(iloc 1\): the label 'two' is not a number, "
                                           "and the model is a regression$"):
        treegen.evaluate(regression, test=test)
    with pytest.raises(TreegenError, match=r"^<data> row 1: the label 'two' is not a number"):
        treegen.evaluate(regression, test=test.to_dict("records"))


def test_help_documents_it():
    text = pydoc.render_doc(treegen.evaluate, renderer=pydoc.plaintext)
    text = re.sub(r"([(,])\s+", r"\1 ", text).replace("( ", "(")  # Python 3.13 writes a parameter a line
    for said in ("evaluate(data, target", "test=None, folds", "leave-one-out (``loo=True``)", "``(X, y)``",
                 "``accuracy``, ``confusion_matrix``", "``rmse``, ``mae`` and ``r2``", "TreegenWarning"):
        assert said in text
    assert "evaluate" in treegen.__all__ and callable(treegen.evaluate)
    importlib.import_module("treegen.evaluation")  # the module's name is not the function's: importing it keeps it
    assert callable(treegen.evaluate)
