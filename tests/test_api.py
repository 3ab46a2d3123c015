"""The top-level Python API."""
import doctest

import numpy as np
import pytest

import treegen
from treegen.errors import TreegenError


def test_docstring_examples_run():
    assert doctest.testmod(treegen).failed == 0


def test_save_load_and_export(tmp_path):
    model = treegen.train("examples/play_tennis.csv", algorithm="id3")
    treegen.save(model, str(tmp_path / "m.json"))
    (tmp_path / "m.rules").write_text(treegen.export(model, "rules"), encoding="utf-8")
    for path in ("m.json", "m.rules"):
        again = treegen.load(str(tmp_path / path))
        assert again.predict({"outlook": "rain", "wind": "strong"}) == "no"


@pytest.mark.parametrize("path", ["examples/boosting/xgboost.json", "tests/fixtures/xgboost/binary-3.2.0.ubj",
                                  "examples/boosting/lightgbm.txt",
                                  "tests/fixtures/hist_gradient_boosting/binary-1.9.1.skops"])
def test_load_reads_a_library_model_file_as_import_model_does(path):
    """As the README says of treegen.load: JSON, rule text or a library's model file."""
    from treegen import modelio
    assert modelio.dumps(treegen.load(path)) == modelio.dumps(treegen.import_model(path))


def test_load_refuses_a_pickle(tmp_path):
    import pickle
    path = tmp_path / "model.pkl"
    path.write_bytes(pickle.dumps([1, 2]))
    with pytest.raises(TreegenError, match="a pickle or joblib file, whose loading runs code"):
        treegen.load(str(path))


def assert_table_predicted_as_rows(model, frame):
    """Given as the frame, its array and list of rows in feature order, or its dict rows, a table is predicted
    as its rows are, one by one."""
    import numpy as np
    ordered = frame[[f.name for f in model.features]]
    records = frame.to_dict("records")
    for table in (frame, ordered.to_numpy(dtype=object), ordered.values.tolist(), records):
        assert treegen.predict(model, table).tolist() == [model.predict(r) for r in records]
        if model.target.is_classification:
            assert np.array_equal(treegen.predict_proba(model, table), [model.scores(r) for r in records])


def test_predict_a_table_as_the_model_predicts_each_row():
    """treegen.predict / predict_proba give exactly what model.predict / model.scores give row by row: a C4.5
    tree whose missing values take fractional routes, an imported XGBoost model (missing values, float32),
    a regression tree."""
    import math
    import numpy as np
    import pandas as pd
    tennis = pd.read_csv("examples/play_tennis.csv")
    c45 = treegen.train(tennis, target="play")
    frame = tennis.drop(columns="play").astype(object)
    frame.iloc[::3, 0] = None  # outlook missing: the root's fractional route
    frame.iloc[1::4, 2] = math.nan
    frame.iloc[2, 3] = "unheard of"
    assert len({c45.predict(r) for r in frame.to_dict("records")}) == 2
    assert_table_predicted_as_rows(c45, frame)
    boosted = treegen.import_model("examples/boosting/xgboost.json")
    iris = pd.read_csv("examples/boosting/iris_missing.csv").drop(columns="species")
    assert iris.isna().any().any()
    assert_table_predicted_as_rows(boosted, iris)
    assert treegen.predict(boosted, iris.to_numpy()).dtype.kind == "U"
    regression = treegen.train("examples/boosting/iris_missing.csv", target="sepal_length", algorithm="cart",
                               max_depth=3)
    features = iris.drop(columns="sepal_length").assign(species=0)
    assert_table_predicted_as_rows(regression, features)
    assert treegen.predict(regression, features).dtype == np.float64
    with pytest.raises(TreegenError, match="^predict_proba: this is a regression model, it predicts a value"):
        treegen.predict_proba(regression, features)


def test_predict_refuses_a_table_of_other_columns():
    """The estimators' messages: a column per feature by position, every feature's by name."""
    import pandas as pd
    model = treegen.import_model("examples/boosting/xgboost.json")
    iris = pd.read_csv("examples/boosting/iris_missing.csv")
    with pytest.raises(TreegenError, match="^X has 5 features, but the model is expecting 4 features as input$"):
        treegen.predict(model, iris.to_numpy())
    with pytest.raises(TreegenError, match="^X lacks the feature column[(]s[)]: petal_width$"):
        treegen.predict_proba(model, iris.drop(columns="petal_width"))
    numbered = iris.drop(columns="species").set_axis(range(4), axis=1)  # scikit-learn names its features x0...
    with pytest.raises(TreegenError, match="^X lacks the feature column[(]s[)]: .*; its columns have numbers for "
                                           "names: give X.to_numpy[(][)] to read them in the features' order"):
        treegen.predict(model, numbered)
    by_name = treegen.predict(model, iris.drop(columns="species"))
    assert list(treegen.predict(model, numbered.to_numpy())) == list(by_name)


def test_predict_refuses_dict_rows_as_model_predict_refuses_a_row():
    """Rows given as dicts are read as model.predict reads a row, an absent name missing: a row that named no
    feature (a table's raw columns) or that misspelt one was answered as missing values without a word. Each
    is refused with model.predict's message and its index; a row naming one feature is a row of the model."""
    model = treegen.train("examples/play_tennis.csv", target="play", algorithm="id3")
    rows = [{"outlook": "sunny", "humidity": "high"}, {"temperature": None}, {"outlook": "rainy", "id": 3}]
    assert list(treegen.predict(model, rows)) == [model.predict(row) for row in rows]
    for bad, refusal in [({"customer_age": 70, "salary": 9e4}, "the row names none of the model's features"),
                         ({}, "the row names none of the model's features"), ({"outlok": "sunny"}, "the row has 'outlok'")]:
        with pytest.raises(TreegenError) as want:
            model.predict(bad)
        for predict in (treegen.predict, treegen.predict_proba):
            with pytest.raises(TreegenError, match=f"^X\\[3\\]: {refusal}") as refused:
                predict(model, rows + [bad])
            assert str(refused.value) == f"X[3]: {want.value}"


def test_train_takes_a_dataframe(tmp_path):
    """A frame trains the tree its CSV text trains, but for columns that are not of numbers: nominal."""
    import pandas as pd
    tennis = pd.read_csv("examples/play_tennis.csv")
    for algorithm in ("c45", "cart"):
        from_frame = treegen.train(tennis, target="play", algorithm=algorithm)
        assert treegen.export(from_frame, "rules") == treegen.export(
            treegen.train("examples/play_tennis.csv", target="play", algorithm=algorithm), "rules")
    codes = pd.DataFrame({"zip": ["02139", "10001", "02139", "10001"], "y": ["a", "b", "a", "b"]})
    assert not treegen.train(codes, target="y").features[0].is_numeric  # its CSV text reads as numbers
    with pytest.raises(TreegenError, match="^treegen.train takes a CSV or ARFF file's path or a pandas DataFrame, "
                                           "not ndarray; for arrays: treegen.estimator"):
        treegen.train(tennis.to_numpy(), target="play")


def test_a_frame_of_float32_trains_on_its_numbers_not_their_text():
    """float32's 1000.2 is 1000.2000122...; its CSV text "1000.2" reads as 1000.2, where C4.5 puts its
    threshold (1e-6 tolerance): predicting the frame itself then sent its 'a' rows right (all 'b')."""
    import pandas as pd
    x = np.array([1000.2, 1000.4] * 15, dtype=np.float32)
    y = ["a", "b"] * 15
    for column in (x, pd.Series(x, dtype=object), pd.Series(x, dtype="Float32")):
        frame = pd.DataFrame({"x": column, "y": y})
        for algorithm in ("c45", "cart"):
            model = treegen.train(frame, target="y", algorithm=algorithm)
            assert list(treegen.predict(model, frame[["x"]])) == y
            assert model.trees[0].nodes[0].split.threshold == (1000.2000122070312 if algorithm == "c45"
                                                                 else 1000.3000183105469)


def test_a_misspelt_keyword_is_told_its_spelling():
    model = treegen.train("examples/play_tennis.csv", target="play")
    with pytest.raises(TreegenError, match="^the java target takes no option classname; did you mean 'class_name'[?]$"):
        treegen.export(model, "java", classname="X")
    with pytest.raises(TreegenError, match="^cart does not take maxdepth; did you mean 'max_depth'[?]$"):
        treegen.train("examples/play_tennis.csv", target="play", algorithm="cart", maxdepth=3)
    with pytest.raises(TreegenError, match="^c45 does not take colour$"):  # nothing close: nothing said
        treegen.train("examples/play_tennis.csv", target="play", colour=3)


def test_every_model_argument_takes_what_stands_for_a_model(tmp_path):
    """export, save, predict and predict_proba take a Model, a model file's path (str or PathLike), a fitted
    treegen estimator (its model_) or a fitted library model (converted as from_model converts it); anything
    else, or an unfitted estimator, is refused saying so, not with an AttributeError from deep inside."""
    import pandas as pd
    from sklearn.tree import DecisionTreeClassifier as SklearnTree

    from treegen.estimator import DecisionTreeClassifier, NotFittedError
    tennis = pd.read_csv("examples/play_tennis.csv")
    X, y = tennis.drop(columns="play"), tennis["play"]
    estimator = DecisionTreeClassifier(algorithm="id3").fit(X, y)
    treegen.save(estimator, str(tmp_path / "tennis.json"))
    for given in (estimator, str(tmp_path / "tennis.json"), tmp_path / "tennis.json"):
        assert treegen.export(given, "python") == treegen.export(estimator.model_, "python")
        assert treegen.predict(given, X).tolist() == estimator.predict(X).tolist()
        assert np.array_equal(treegen.predict_proba(given, X), estimator.predict_proba(X))
    numbers = [[0.0, 1.0], [1.0, 0.0], [1.0, 1.0], [0.5, 0.25]]
    fitted = SklearnTree(random_state=0).fit(numbers, [0, 1, 1, 0])
    assert treegen.export(fitted, "rules") == treegen.export(treegen.from_model(fitted), "rules")
    assert treegen.predict(fitted, numbers).tolist() == ["0", "1", "1", "0"]
    with pytest.raises(NotFittedError, match="not fitted yet"):
        treegen.export(DecisionTreeClassifier(), "python")
    for wrong in (None, 3, {"trees": []}):
        for call in (lambda: treegen.export(wrong, "python"), lambda: treegen.predict(wrong, X),
                     lambda: treegen.save(wrong, str(tmp_path / "x.json"))):
            with pytest.raises(TypeError, match="^expected a model: a treegen Model .*; got "):
                call()
            with pytest.raises(TreegenError):
                call()
