"""treegen.verify: `treegen verify` from Python, as a notebook's user or a test calls it."""
import importlib
import math
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from cli_in_process import treegen_cli
import treegen
from treegen.data import read_table
from treegen.errors import TreegenError

TENNIS = "examples/play_tennis.csv"


@pytest.fixture(scope="module")
def tennis():
    return treegen.train(TENNIS, target="play", algorithm="id3")


def test_the_report_holds_the_lines_the_cli_prints(tennis, tmp_path):
    """str(report) is the CLI's stdout, byte for byte; each Result says its target, ok and status."""
    treegen.save(tennis, str(tmp_path / "tennis.json"))
    report = treegen.verify(tennis, TENNIS, to="python,sql", dialects=["sqlite", "duckdb"])
    done = treegen_cli("verify", str(tmp_path / "tennis.json"), TENNIS, "--to", "python,sql", "--dialect",
                       "sqlite,duckdb")
    assert done.returncode == 0 and report.status == 0, done.stderr
    assert str(report) + "\n" == done.stdout
    assert report.ok and [(r.target, r.ok, r.status, r.mismatches, r.error) for r in report.results] == [
        ("python", True, 0, [], None), ("sql/sqlite", True, 0, [], None), ("sql/duckdb", True, 0, [], None)]
    assert "verify" in treegen.__all__ and treegen.verify.__doc__.count(">>>") >= 3


def test_every_program_target_runs(tennis):
    """Java, JavaScript and C compiled and run for real, the model given as its file's path."""
    report = treegen.verify("examples/boosting/xgboost.json", to=["java", "javascript", "c", "rules"])
    assert report.ok, str(report)
    assert [r.target for r in report.results] == ["java", "javascript", "c", "rules"]
    assert all(r.rows.probes > 100 and r.rows.data == 0 for r in report.results)


def test_a_program_that_answers_wrong_is_a_mismatch(tennis, tmp_path):
    """A file exported and hand-edited (its two classes swapped), checked as --program checks it: the report
    is not ok, its line a MISMATCH naming rows, and the documented idiom fails the test with those lines."""
    source = treegen.export(tennis, "python")
    edited = source.replace("    'no',\n    'yes',\n", "    'yes',\n    'no',\n")
    assert edited != source
    program = tmp_path / "tennis.py"
    program.write_text(edited, encoding="utf-8")
    report = treegen.verify(tennis, TENNIS, programs=program)  # a path: os.PathLike, as the CLI's --program
    assert not report.ok and report.status == 1
    [result] = report.results
    assert result.target == str(program) and result.mismatches and result.rows.data == 14
    assert f"{program} MISMATCH  414 of 414 rows (14 from the data, 400 probes) differ: row 1 " in str(report)
    with pytest.raises(AssertionError, match="MISMATCH"):
        assert report.ok, str(report)
    program.write_text(source, encoding="utf-8")
    assert treegen.verify(tennis, TENNIS, programs=[str(program)]).ok


# -- data as a notebook holds it ---------------------------------------------------------------------

def _holes(frame: pd.DataFrame) -> pd.DataFrame:
    """The tennis frame with missing values of every kind pandas has, and a category column."""
    frame = frame.astype(object)
    frame.loc[1, "outlook"], frame.loc[2, "humidity"], frame.loc[3, "wind"] = None, np.nan, pd.NA
    frame["outlook"] = frame["outlook"].astype("category")
    return frame


def test_a_frame_is_checked_as_its_csv(tennis, tmp_path):
    """NaN, None and pd.NA reach the rows missing and a category column its text, as `treegen verify` reads
    the frame's df.to_csv(): the same table, and the same lines."""
    from treegen.inputs import as_csv_table
    frame = _holes(pd.read_csv(TENNIS))
    path = tmp_path / "holes.csv"
    frame.to_csv(path, index=False)
    read, given = read_table(str(path)), as_csv_table(tennis, frame)
    assert (given.names, given.columns) == (read.names, read.columns)
    assert given.column("outlook")[1] is None and given.column("humidity")[2] is None
    assert given.column("wind")[3] is None and given.column("outlook")[0] == "sunny"
    report = treegen.verify(tennis, frame, to="python")
    assert report.ok and str(report) == str(treegen.verify(tennis, str(path), to="python"))
    assert report.results[0].rows.data == 14


def test_arrays_and_dict_rows_are_checked_as_their_csv(tennis):
    """A 2-D array (columns in the model's feature order) and a list of row dicts give the rows the frame
    gives; None and NaN are missing in both."""
    frame = _holes(pd.read_csv(TENNIS))
    names = [f.name for f in tennis.features]
    array = frame[names].astype(object).where(frame[names].notna(), None).to_numpy()
    array[2, names.index("humidity")] = math.nan
    rows = [{name: (None if pd.isna(v) else v) for name, v in row.items()} for row in frame[names].to_dict("records")]
    rows[2]["humidity"] = float("nan")
    expected = str(treegen.verify(tennis, frame, to="python"))
    for data in (array, rows, array.tolist()):
        assert str(treegen.verify(tennis, data, to="python")) == expected


def test_float32_numbers_reach_the_rows_as_the_doubles_they_are():
    """A float32 array's 0.1 is the double 0.10000000149011612, as treegen.predict reads it, not the 0.1 of
    its shortest float32 text."""
    from treegen.inputs import as_csv_table
    X = np.array([[0.1, 1.0], [0.3, 2.0], [0.7, 3.0], [0.9, 4.0]], dtype=np.float32)
    model = treegen.train(pd.DataFrame({"a": X[:, 0].astype(np.float64), "b": X[:, 1].astype(np.float64),
                                        "y": ["p", "q", "p", "q"]}), target="y", algorithm="cart", min_samples_leaf=1)
    assert as_csv_table(model, X).column("a")[0] == repr(float(np.float32(0.1))) == "0.10000000149011612"
    assert treegen.verify(model, X, to="python,javascript").ok


def test_a_frame_of_booleans_a_model_reads_as_numbers_is_verified(tmp_path):
    """A bool column a library used as a number (scikit-learn, XGBoost, LightGBM all do) is 1.0 and 0.0 to
    treegen.predict, and so to verify (its CSV text 'True' is no number); a CSV of them says so."""
    from sklearn.tree import DecisionTreeClassifier
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"member": rng.random(200) < 0.5, "v": rng.random(200)})
    clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, (X.member & (X.v > 0.3)).astype(int))
    model = treegen.from_model(clf)
    nullable = X.astype({"member": "boolean"})
    nullable.loc[3, "member"] = pd.NA
    objects = X.astype({"member": object})
    objects.loc[2, "member"] = None
    for frame in (X, nullable, objects):
        report = treegen.verify(model, frame, to="python,sql", dialects="sqlite", against=clf if frame is X else None)
        assert report.ok and "200 from the data" in str(report), str(report)
    X.to_csv(tmp_path / "x.csv", index=False)
    with pytest.raises(TreegenError, match=r"x.csv:2: column 'member': 'False' is not a number \(a Boolean\? the "
                                           r"model reads it as a number: write 1 or 0\)$"):
        treegen.verify(model, str(tmp_path / "x.csv"), to="python")


# -- against: the library's fitted object itself ------------------------------------------------------

@pytest.fixture(scope="module")
def numbers():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 3))
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 0]) + np.nan_to_num(X[:, 1]) > 0).astype(int)
    return X, y


def test_against_an_xgboost_classifier_object(numbers):
    import xgboost  # (the test extras install every library: nothing here skips)
    X, y = numbers
    fitted = xgboost.XGBClassifier(n_estimators=8, max_depth=3).fit(X, y)
    model = treegen.from_model(fitted)
    report = treegen.verify(model, X[:50], to="python", against=fitted)
    assert report.ok, str(report)
    assert [r.target for r in report.results] == ["XGBoost itself", "python"]
    assert report.results[0].rows.data == 50 and "left out, which XGBoost refuses" in str(report)
    booster = treegen.verify(fitted, X[:50], to="python", against=fitted.get_booster())  # a Booster: the same
    assert str(booster) == str(report)
    # another model of the same kind: its own predict is run, so its rows differ
    other = xgboost.XGBClassifier(n_estimators=8, max_depth=2).fit(X, y)
    differs = treegen.verify(model, X[:50], to=[], against=other)
    assert not differs.ok and differs.results[0].target == "XGBoost itself" and "MISMATCH" in str(differs)


def test_against_a_scikit_learn_forest_object(numbers):
    from sklearn.ensemble import RandomForestRegressor
    X, y = numbers
    forest = RandomForestRegressor(n_estimators=4, max_depth=4, random_state=0, n_jobs=2).fit(X, y + np.nan_to_num(X[:, 2]))
    report = treegen.verify(treegen.from_model(forest), X[:40], to="c", against=forest)
    assert report.ok, str(report)
    assert [r.target for r in report.results] == ["scikit-learn itself", "c"]
    assert forest.n_jobs == 2  # the oracle's one job is a copy's


def _lightgbm():
    import lightgbm
    return lightgbm.LGBMClassifier(n_estimators=6, num_leaves=6, verbose=-1)


def _catboost():
    import catboost
    return catboost.CatBoostClassifier(iterations=6, depth=3, verbose=0, allow_writing_files=False)


@pytest.mark.parametrize("make, library, booster", [(_lightgbm, "LightGBM", "booster_"),
                                                    (_catboost, "CatBoost", None)])
def test_against_a_lightgbm_or_catboost_object(numbers, make, library, booster):
    """Their own predict, run on the fitted object (and a LightGBM wrapper's Booster), agrees bit for bit."""
    X, y = numbers
    fitted = make().fit(X, y)
    model = treegen.from_model(fitted)
    for against in [fitted] + ([getattr(fitted, booster)] if booster else []):
        report = treegen.verify(model, X[:30], to="javascript", against=against)
        assert report.ok and report.results[0].note is None, str(report)
        assert [r.target for r in report.results] == [f"{library} itself", "javascript"]
        assert report.results[0].rows.data == 30


def test_against_what_the_model_did_not_come_from_is_one_error(tennis, numbers):
    import xgboost
    X, y = numbers
    fitted = xgboost.XGBClassifier(n_estimators=2).fit(X, y)
    with pytest.raises(TreegenError, match=r"^against: this is XGBoost's XGBClassifier, but the model was not "
                                           "imported from a library"):
        treegen.verify(tennis, to="python", against=fitted)
    with pytest.raises(TreegenError, match=r"^against takes the model the model was imported from: .*got a list$"):
        treegen.verify(treegen.from_model(fitted), to="python", against=[1, 2])
    three = xgboost.XGBClassifier(n_estimators=2).fit(X[:, :2], y)
    with pytest.raises(TreegenError, match="^against: this XGBoost model takes 2 features, the treegen model 3: "
                                           "give the model the model was imported from$"):
        treegen.verify(treegen.from_model(fitted), to="python", against=three)


# -- bad input: one line, a TreegenError ---------------------------------------------------------------

@pytest.mark.parametrize("options, message", [
    ({"to": "pyhton"}, "cannot verify target 'pyhton'; choose from .*; did you mean 'python'"),
    ({"to": "sql", "dialects": "sqlit"}, "cannot verify --dialect 'sqlit'; choose from .*; did you mean 'sqlite'"),
    ({"to": 5}, "to= takes names: a list of them, or one text of them comma-separated; got 5"),
    ({"to": "python", "data": "no/such.csv"}, "no/such.csv"),
    ({"to": "python", "data": np.zeros((2, 3))}, "X has 3 features, but the model is expecting 4 features"),
    ({"to": "python", "data": [{"outlook": "sunny", "wnd": "weak"}]}, "wnd"),
    ({"to": "python", "data": pd.DataFrame(np.zeros((2, 4)))}, "X lacks the feature column.*: outlook, temperature, "
                                                              "humidity, wind; its columns have numbers for names"),
    ({"to": "python", "against": "examples/boosting/xgboost.json"}, "model was not imported from a library"),
])
def test_bad_input_is_one_treegen_error(tennis, options, message):
    with pytest.raises(TreegenError, match=message) as raised:
        treegen.verify(tennis, **options)
    assert "\n" not in str(raised.value)


def test_a_missing_package_is_a_line_with_its_install_hint():
    """A dialect named whose engine is not installed: its line says what to pip install, status 2."""
    code = ("import sys; sys.modules['duckdb'] = None; import treegen; "
            "r = treegen.verify('examples/boosting/xgboost.json', to='sql', dialects='duckdb'); "
            "print(r.status); print([x.error for x in r.results])")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["2", "[\"needs the duckdb package: pip install duckdb (treegen's [sql] "
                                              "extra)\"]"]


def test_importing_the_verifier_module_keeps_the_function():
    """treegen.verify is the function, whatever is imported (its module is treegen.verifier: a submodule named
    verify would be set over the function when loaded)."""
    module = importlib.import_module("treegen.verifier")
    assert callable(treegen.verify) and treegen.verify is not module
    from treegen import verify
    assert verify is treegen.verify and module.Report.__module__ == "treegen.verifier"
