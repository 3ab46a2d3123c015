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
    with pytest.raises(ValueError, match="^the option 'categories' does not apply to scikit-learn models$"):
        treegen.from_model(fitted, categories={"x0": ["a"]})  # the library's own options, as import_model
    import xgboost
    booster = xgboost.XGBClassifier(n_estimators=3, max_depth=2).fit(np.array(numbers), [0, 1, 1, 0])
    assert (treegen.export(treegen.from_model(booster, missing=0.5), "rules")
            == treegen.export(treegen.from_xgboost(booster, missing=0.5), "rules")
            != treegen.export(treegen.from_model(booster), "rules"))
    with pytest.raises(NotFittedError, match="not fitted yet"):
        treegen.export(DecisionTreeClassifier(), "python")
    for wrong in (None, 3, {"trees": []}):
        for call in (lambda: treegen.export(wrong, "python"), lambda: treegen.predict(wrong, X),
                     lambda: treegen.save(wrong, str(tmp_path / "x.json"))):
            with pytest.raises(TypeError, match="^expected a model: a treegen Model .*; got "):
                call()
            with pytest.raises(TreegenError):
                call()


def generated_python(model):
    """The module that `export --to python` writes for the model, loaded."""
    import types
    module = types.ModuleType("generated")
    exec(treegen.export(model, "python"), module.__dict__)
    return module


def test_dates_and_times_of_a_frame_are_read_at_training_as_at_predict():
    """A datetime64 column of midnights is written '2020-01-01' in a frame's CSV text, but a row's Timestamp
    reads as its str, '2020-01-01 00:00:00' (a timedelta's '0 days' as '0 days 00:00:00'): trained on the
    one and read as the other, every value was unknown and the frame itself was predicted wrong, silently.
    Both read each value by its str now; a column of dates is warned of as the CLI warns of one."""
    import warnings
    import pandas as pd
    y = ["a", "a", "b", "b"] * 10
    columns = {"day": pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03", "2020-01-04"] * 10),
               "since": pd.to_timedelta([0, 1, 2, 3] * 10, unit="D"),
               "zoned": pd.date_range("2020-01-01", periods=4, tz="UTC").tolist() * 10}
    for name, column in columns.items():
        frame = pd.DataFrame({name: column})
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            model = treegen.train(frame.assign(y=y), target="y", algorithm="cart")
        assert model.features[0].categories == tuple(str(value) for value in column[:4])
        assert treegen.predict(model, frame).tolist() == y
        rows = frame.to_dict("records")
        assert [model.predict(row) for row in rows] == [generated_python(model).predict(row) for row in rows] == y
        assert [str(w.message) for w in said] == ([] if name == "since" else [
            f"column {name!r} holds dates ({model.features[0].categories[0]}, ...), read as categories: a split "
            "tests dates one by one, and a date the training rows lack is an unknown category; to split on time, "
            f"give it as a number (e.g. days since a day you choose), or ignore=[{name!r}] leaves it out"])


@pytest.mark.parametrize("algorithm", ["cart", "c45"])
def test_a_column_missing_in_every_row_is_never_split_on(tmp_path, algorithm):
    """A column without a value (all NaN, None or NA) crashed cart (argmax of an empty sequence) and c45
    (IndexError), from a frame and from its CSV: it is a feature no split tests now, warned of; without
    another feature there is nothing to learn from, said in one line."""
    import pandas as pd
    frame = pd.DataFrame({"v": [np.nan] * 20, "w": np.arange(20.0), "y": ["a", "b"] * 10})
    frame.to_csv(tmp_path / "empty.csv", index=False)
    for data in (frame, frame.assign(v=pd.array([pd.NA] * 20, dtype="Int64")), str(tmp_path / "empty.csv")):
        with pytest.warns(treegen.TreegenWarning, match="^column 'v' has no value [(]every row's is missing[)]: "
                                                        r"no split tests it; ignore=\['v'\] leaves it out$"):
            model = treegen.train(data, target="y", algorithm=algorithm)
        assert 0 not in model.used_features()
        assert treegen.predict(model, frame).tolist() == [model.predict(row) for row in frame.to_dict("records")]
    with pytest.raises(TreegenError, match="^<DataFrame>: no feature column has a value [(]every row's is missing"
                                           "[)]: there is nothing to learn 'y' from$"):
        treegen.train(frame.drop(columns="w"), target="y", algorithm=algorithm)


def test_train_warns_and_refuses_as_the_cli_does():
    """The CLI's warnings (a 0/1 target learnt as a regression, an identifier column, numbers read as
    categories) are TreegenWarnings of treegen.train, their hints in its arguments; a constant target and a
    regression asked of c45 are refused alike."""
    import warnings
    import pandas as pd
    rows = 40
    frame = pd.DataFrame({"id": [f"c{i}" for i in range(rows)], "x": [str(i) for i in range(rows - 1)] + ["NULL"],
                          "w": np.arange(rows) % 7, "label": np.arange(rows) % 2})
    with pytest.warns(treegen.TreegenWarning) as said:
        treegen.train(frame, target="label", algorithm="cart")
    assert [str(w.message) for w in said] == [
        "<DataFrame> row 39: column 'x' is read as categories: 1 of its 40 values is 'NULL', which treegen's CSV does "
        "not read as missing (only an empty field, '?' or 'NA': replace it), and nominal=['x'] keeps the column as "
        "categories",
        "column 'id' has a different value in every row (40), as an identifier has: a split on it predicts nothing "
        "for new rows; ignore=['id'] leaves it out",
        "target 'label' is numeric with 2 whole-number values (0, 1): cart learns a regression tree of it; "
        "regression=False learns them as classes (regression=True keeps the regression)"]
    assert all(w.filename == __file__ for w in said)  # the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # what the user chose is not warned of
        model = treegen.train(frame, target="label", algorithm="cart", regression=False, ignore=["id"],
                              nominal=["x"])
    assert model.target.is_classification and [f.name for f in model.features] == ["x", "w"]
    with pytest.raises(TreegenError, match="^<DataFrame>: the target 'label' has one value only [(]1.0[)]: there is "
                                           "nothing to learn$"):
        treegen.train(frame.assign(label=1), target="label", algorithm="cart")
    with pytest.raises(TreegenError, match="^c45 learns classes only; use algorithm='cart' for regression$"):
        treegen.train(frame, target="w", algorithm="c45", regression=True)


def test_a_category_column_is_nominal_whatever_its_categories():
    """pandas' category dtype of numbers was learnt as a numeric feature, against the docstring: nominal now,
    each category the text the frame's CSV gives it, which a row's number names at predict ('3.0' for 3.0,
    '10' for 10), in treegen and the generated programs. A category target is learnt as classes."""
    import pandas as pd
    rng = np.random.default_rng(1)
    codes = rng.choice([10, 20, 30, 40], 200)
    y = np.where(np.isin(codes, [10, 40]), "A", "B").tolist()
    for values, texts in ((codes, {"10", "20", "30", "40"}), (codes / 10 + 0.5, {"1.5", "2.5", "3.5", "4.5"}),
                          (codes / 10, {"1.0", "2.0", "3.0", "4.0"})):
        frame = pd.DataFrame({"region": pd.Categorical(values)})
        model = treegen.train(frame.assign(y=y), target="y", algorithm="cart", max_depth=1)
        assert not model.features[0].is_numeric and set(model.features[0].categories) == texts
        for given in (frame, pd.DataFrame({"region": values})):
            assert treegen.predict(model, given).tolist() == y
        rows = [{"region": value} for value in values.tolist()]
        assert [generated_python(model).predict(row) for row in rows] == y
    classes = treegen.train(pd.DataFrame({"x": codes, "k": pd.Categorical(codes // 20)}), target="k",
                            algorithm="cart")
    assert classes.target.is_classification and classes.target.classes == ("0", "1", "2")


def test_paths_are_taken_as_str_or_pathlike(tmp_path):
    from pathlib import Path
    model = treegen.train(Path("examples/play_tennis.csv"), target="play")
    assert treegen.export(model, "rules") == treegen.export(treegen.train("examples/play_tennis.csv"), "rules")
    treegen.save(model, tmp_path / "m.json")
    assert treegen.export(treegen.load(tmp_path / "m.json"), "rules") == treegen.export(model, "rules")


def test_frames_treegen_cannot_learn_from_are_refused_in_one_line():
    """Duplicate column names, a target that is no column's name, a column of lists: each an AttributeError or
    pandas' ambiguous truth value from deep inside before; one line saying what to do now. A sparse column is
    read as the numbers it holds, as the estimators read it."""
    import pandas as pd
    from treegen.estimator import DecisionTreeClassifier
    frame = pd.DataFrame({"a": np.arange(20.0), "b": np.arange(20) % 3, "y": ["p", "q"] * 10})
    twice = frame.set_axis(["a", "a", "y"], axis=1)
    message = "^column name 'a' appears twice in X: give each column its own name$"
    with pytest.raises(TreegenError, match=message):
        treegen.train(twice, target="y")
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier().fit(twice.drop(columns="y"), frame.y)
    with pytest.raises(TreegenError, match="^target= takes a column's name [(]str[)], not int 2$"):
        treegen.train(frame, target=2)
    numbered = frame.set_axis([0, 1, 2], axis=1)  # a frame's own labels name its columns
    assert treegen.train(numbered, target=2).target.name == "2"
    with pytest.raises(TreegenError, match=r"^target= takes the target column's name, not its values: "
                                           r"treegen.train\(X.assign\(y=y\), target='y'\)"):
        treegen.train(frame[["a", "b"]], target=frame.y)
    lists = frame.assign(b=[[1], [2]] * 10)
    message = (r"^column 'b' holds many values in a cell [(]list[)]: a feature has one value a row; give each "
               r"value its own column, or its text [(]astype[(]str[)][)] if it is a category$")
    with pytest.raises(TreegenError, match=message):
        treegen.train(lists, target="y")
    with pytest.raises(ValueError, match=message):
        DecisionTreeClassifier().fit(lists.drop(columns="y"), frame.y)
    sparse = frame.assign(a=pd.arrays.SparseArray(np.arange(20.0) % 2))
    model = treegen.train(sparse, target="y", algorithm="cart")
    assert model.features[0].is_numeric and treegen.predict(model, sparse).tolist() == frame.y.tolist()


def test_a_bool_column_is_read_as_the_readme_says():
    """A bool column is the categories 'True' / 'False', which a row's Booleans name but 1 / 0 do not (as
    df.to_sql stores them in SQLite: 53% agreement); the two ways the README gives agree on every row."""
    import sqlite3
    import pandas as pd
    rng = np.random.default_rng(13)
    X = pd.DataFrame({"flag": rng.random(200) > 0.5, "x": rng.normal(size=200)})
    y = np.where(X.flag ^ (X.x > 0), "A", "B").tolist()
    with pytest.warns(treegen.TreegenWarning, match="^column 'flag' holds True and False, read as categories: "):
        as_categories = treegen.train(X.assign(y=y), target="y", algorithm="cart")
    as_numbers = treegen.train(X.astype({"flag": int}).assign(y=y), target="y", algorithm="cart")
    assert as_categories.features[0].categories == ("True", "False") and as_numbers.features[0].is_numeric
    for model, table in ((as_categories, X.astype({"flag": str})), (as_numbers, X)):
        connection = sqlite3.connect(":memory:")
        table.to_sql("t", connection, index=False)
        sql = treegen.export(model, "sql", dialect="sqlite", table="t")
        assert [row[-1] for row in connection.execute(sql)] == y == treegen.predict(model, X).tolist()
        assert [generated_python(model).predict(row) for row in X.to_dict("records")] == y
    from treegen.model import category_of
    flag = as_categories.features[0]
    assert (category_of(flag, True), category_of(flag, False), category_of(flag, 1), category_of(flag, 0)) == (
        "True", "False", None, None)


def test_errors_and_model_classes_are_at_the_top_level_and_bad_arguments_are_value_errors():
    """`from treegen import TreegenError, Model` works; a bad argument (an unknown target or option, feature
    names that contradict a model's) is a ValueError too, and something that is no model a TypeError, from
    export and from_model alike, which a user's natural except clause catches; the CLI's lines are as they were."""
    from click.testing import CliRunner
    from treegen import Model, TreegenError as TopLevel
    from treegen.cli import main
    assert TopLevel is TreegenError and Model is treegen.model.Model and treegen.Target is treegen.model.Target
    model = treegen.train("examples/play_tennis.csv", algorithm="id3")
    assert isinstance(model, treegen.Model)
    for call in (lambda: treegen.export(model, "pyhton"), lambda: treegen.export(model, "python", formt=1),
                 lambda: treegen.import_model("examples/boosting/lightgbm.txt", missing=0.0)):
        with pytest.raises(ValueError) as caught:
            call()
        assert isinstance(caught.value, TreegenError)
    # an unknown dialect, verify target, algorithm or learner's parameter too (TreegenError only before), each
    # with a hint in Python's words where the name is another's (README: a did-you-mean where one is close)
    tennis = "examples/play_tennis.csv"
    for call, hint in (
            (lambda: treegen.export(model, "sql", dialect="postgresql"), "did you mean 'postgres'?"),
            (lambda: treegen.export(model, "js"), "did you mean 'javascript'?"),
            (lambda: treegen.export(model, "duckdb"), "'duckdb' is a SQL dialect: to='sql', dialect='duckdb'"),
            (lambda: treegen.verify(model, to="jav"), "did you mean 'java'?"),
            (lambda: treegen.verify(model, to="sql", dialects="mariadb"), "did you mean 'mysql'?"),
            (lambda: treegen.verify(model, to="python", dialects="sqlite"), "nothing verified is SQL [(]to='sql'"),
            (lambda: treegen.train(tennis, target="play", algorithm="c4.5"), "did you mean 'c45'?"),
            (lambda: treegen.train(tennis, target="play", algorithm="cart", max_dept=3), "did you mean 'max_depth'?")):
        with pytest.raises(ValueError, match=hint):
            call()
    for call in (lambda: treegen.export(None, "python"), lambda: treegen.from_model(None)):
        with pytest.raises(TypeError) as caught:
            call()
        assert isinstance(caught.value, TreegenError)
    result = CliRunner().invoke(main, ["import", "examples/boosting/lightgbm.txt", "--missing", "0"])
    assert (result.exit_code, result.output) == (2, "treegen: error: examples/boosting/lightgbm.txt: --missing does "
                                                    "not apply to LightGBM models\n")


def test_export_help_lists_every_target_and_option_from_the_targets_table():
    """help(treegen.export) names each target and each option with what it means, the targets that take it and
    the CLI's flag (the dot target's image_format is --format), from the table the CLI reads its options from."""
    from treegen.targets import TARGETS, all_options
    doc = " ".join(treegen.export.__doc__.split())
    for name, target in TARGETS.items():
        assert f"{name}: {' '.join(target.summary.split())}" in doc
    for option in all_options():
        assert f"{option.name}=" in doc and f"the CLI's {option.flag_name})" in doc
        assert " ".join(option.help.split()[1:]) in doc
    assert "image_format='dot' or 'svg' (dot; the CLI's --format): render with Graphviz" in doc


def test_id3_refusals_name_the_python_arguments_from_python_and_the_options_from_the_cli(tmp_path):
    """An error raised from Python names the argument that fixes it (nominal=['temperature']), the CLI its option."""
    with pytest.raises(treegen.TreegenError) as err:
        treegen.train("examples/weather.numeric.arff", algorithm="id3")
    assert str(err.value).endswith("use algorithm='c45' or 'cart', or nominal=['temperature']")
    from click.testing import CliRunner
    from treegen.cli import main
    done = CliRunner().invoke(main, ["train", "examples/weather.numeric.arff", "-a", "id3", "-o", str(tmp_path / "m")])
    assert done.exit_code == 2 and done.output.endswith("use --algorithm c45 or cart, or --nominal temperature\n")


def test_a_frames_row_is_named_by_its_index_label_not_a_line_of_its_csv():
    """A warning about a DataFrame's row named '<DataFrame>:41', the line of the frame's CSV text (apiuser); its
    user knows the row by its index label, and by its position (iloc) where the two differ."""
    import pandas as pd
    rows = 40
    frame = pd.DataFrame({"id": [f"c{i}" for i in range(rows)], "x": [str(i) for i in range(rows - 1)] + ["NULL"],
                          "label": np.arange(rows) % 2})
    for data, where in ((frame, "<DataFrame> row 39:"), (frame.set_index("id"), "<DataFrame> row 'c39' (iloc 39):"),
                        (frame.iloc[::-1], "<DataFrame> row 39 (iloc 0):")):
        with pytest.warns(treegen.TreegenWarning) as said:
            treegen.train(data, target="label", algorithm="c45", ignore=["id"] if "id" in data else ())
        assert str(said[0].message).startswith(where + " column 'x' is read as categories"), str(said[0].message)
    infinite = pd.DataFrame({"a": [1.0, 2.0, 3.0], "y": [1.5, np.inf, 2.5]}, index=["p", "q", "r"])
    with pytest.raises(TreegenError, match=r"^<DataFrame> row 'q' \(iloc 1\): the target 'y' has an infinite value"):
        treegen.train(infinite, algorithm="cart")


@pytest.mark.parametrize("to", ["python", "java", "javascript"])
def test_an_export_reads_the_features_splits_test_once(monkeypatch, to):
    """Python, Java and JavaScript asked Model.used_features five times an export, each a walk of every node (a
    1,000-tree LightGBM model of depth 8: 0.8-1.0 s of CPU, 0.13-0.19 s once); the text is the same."""
    from treegen.model import Model
    from treegen.testing import random_model
    model = random_model(3, n_trees=3)
    before = treegen.export(model, to)
    asked, used_features = [], Model.used_features
    monkeypatch.setattr(Model, "used_features", lambda self: asked.append(1) or used_features(self))
    assert treegen.export(model, to) == before and len(asked) == 1
    assert model.used_features() == used_features(model) and len(asked) == 2  # the model's own: asked again
