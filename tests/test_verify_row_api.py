"""`treegen verify` runs a generated program's row API too (Python's predict(row) with a dict), not only its CSV
path: a module whose dict walker or row encoder is wrong is a MISMATCH that names the API."""
import pytest

import treegen
from cli_in_process import treegen_cli
from test_verify import deep_split_model
from treegen.modelio import save


def exported(tmp_path, model, leaf=False):
    """The model saved and exported to Python: the paths of both."""
    path, program = tmp_path / "model.json", tmp_path / "model.py"
    save(model, str(path))
    treegen_cli("export", str(path), "--to", "python", "-o", str(program), *(["--leaf"] if leaf else []), check=True)
    return path, program


def changed(program, old, new, occurrence):
    """The program with the ``occurrence``-th (0: the first) ``old`` made ``new``."""
    text = program.read_text(encoding="utf-8")
    parts = text.split(old)
    assert len(parts) > occurrence + 1, old
    program.write_text(old.join(parts[:occurrence + 1]) + new + old.join(parts[occurrence + 1:]), encoding="utf-8")


# Mutants of the dict walker (_w0_*) alone, at the deepest splits: the CSV path (_t0_*) stays right.
@pytest.mark.parametrize("old, new, occurrence", [
    ("not v7 <= 2.5:", "not v7 < 2.5:", 0),  # a comparison made strict
    ("not v7 <= 2.5:", "v7 > 2.5:", 0),  # NaN's route flipped (it went right)
    ("if v8 in {'a', 'b'}:", "if v8 in {'a', 'b'} or v8 is None:", 0),  # None's route flipped
    ("{'a', 'b'}", "{'a'}", 1),  # a category dropped (the second set is the dict walker's)
])
def test_a_dict_walker_wrong_at_a_deep_split_is_a_mismatch_of_the_dict_api(tmp_path, old, new, occurrence):
    path, program = exported(tmp_path, deep_split_model())
    assert treegen_cli("verify", str(path), "--program", str(program)).returncode == 0
    assert "def _w0_n0(row" in program.read_text(encoding="utf-8")
    changed(program, old, new, occurrence)
    done = treegen_cli("verify", str(path), "--program", str(program))
    assert done.returncode == 1 and " MISMATCH " in done.stdout and "(dict API" in done.stdout, \
        done.stdout + done.stderr


def test_the_dict_api_is_checked_under_to_python_too(tmp_path, monkeypatch):
    """`--to python` runs the module it exports through its dict API too (here an export whose walker is wrong)."""
    import treegen.emit.python as python
    model = deep_split_model()
    assert treegen.verify(model, None, to="python").ok
    emit = python.emit
    monkeypatch.setattr(python, "emit", lambda *args, **options: emit(*args, **options).replace(
        "not v7 <= 2.5:", "not v7 < 2.5:"))
    report = treegen.verify(model, None, to="python")
    (result,) = report.results
    assert not result.ok and all(line.endswith("(dict API)") for line in result.mismatches), str(report)
    assert "'x7': 2.5, 'c': 'a'}: model 30.0, got '20.0' (dict API)" in str(report), str(report)


@pytest.mark.parametrize("way, old, new", [
    # _number reads a value given as None (not the CSV's path): None made 0.0
    ("None", "        return _NAN\n    if isinstance(value, _TEXT)", "        return 0.0\n    if isinstance(value, _TEXT)"),
    # the absent keys' missing value made 0.0 in _encode
    ("absent keys", "            value = None\n", "            value = 0.0\n"),
])
def test_an_encoder_wrong_for_one_way_of_missing_is_a_mismatch_naming_it(tmp_path, way, old, new):
    """A forest's predict(row) encodes the row (_encode): a mutant that reads one way of giving a missing value
    wrong is caught, and the line says which way. The probes give every missing value each way."""
    model = treegen.train("examples/weather.numeric.arff", algorithm="c45")  # fractional routes: encoded
    path, program = exported(tmp_path, model)
    assert treegen_cli("verify", str(path), "--program", str(program)).returncode == 0
    changed(program, old, new, 0)
    done = treegen_cli("verify", str(path), "--program", str(program))
    assert done.returncode == 1 and f"(dict API, missing values as {way})" in done.stdout, done.stdout + done.stderr


def test_leaf_ids_through_the_dict_api(tmp_path):
    """With --leaf, predict_leaf(row) is held to the model's leaf ids: a dict walker returning another node of
    the same value is caught."""
    from treegen.model import NUMERIC, REGRESSION, Feature, MissingRoute, Model, Node, Op, Split, Target, Tree
    nodes = [Node((0.0,), split=Split(0, Op.LE, 0.5, missing=MissingRoute.to_child(0)), children=(1, 2)),
             Node((1.0,)), Node((1.0,))]
    path, program = exported(tmp_path, Model((Feature("x", NUMERIC),), Target("y", REGRESSION), [Tree(nodes)]),
                             leaf=True)
    assert treegen_cli("verify", str(path), "--program", str(program), "--leaf").returncode == 0
    text = program.read_text(encoding="utf-8")
    walker = text.index("def _w0_n0(row")
    program.write_text(text[:walker] + text[walker:].replace("return 2\n", "return 1\n", 1), encoding="utf-8")
    done = treegen_cli("verify", str(path), "--program", str(program), "--leaf")
    assert done.returncode == 1 and "model's leaf ids '2', got '1' (dict API)" in done.stdout, done.stdout


def test_every_way_of_a_missing_value_is_given(monkeypatch):
    """Probes are given each way (but as absent keys where every value is missing: such a row is refused by
    design); data rows one way each, in turn, the first DATA_ROWS of them; a row without missing values as it is."""
    import treegen.run.row_api as row_api
    rows = [{"a": None, "b": 1.0}, {"a": None, "b": None}, {"a": 1.0, "b": 2.0},
            {"a": float("nan"), "b": 1.0}, {"a": None, "b": 1.0}, {"a": 2.0, "b": None}, {"a": None, "b": None},
            {"a": 1.0, "b": 1.0}]
    assert row_api.ways(rows, ["a", "b"], probes=3) == ["nfa", "nf", "-", "n", "f", "a", "f", "-"]
    # a runner's own ways (JavaScript's undefined) too, in turn with the others
    assert row_api.ways(rows, ["a", "b"], probes=3, every="nfau") == ["nfau", "nfu", "-", "n", "f", "a", "n", "-"]
    monkeypatch.setattr(row_api, "DATA_ROWS", 4)
    assert row_api.ways(rows, ["a", "b"], probes=3) == ["nfa", "nf", "-", "n", "f", "a", "f", ""]


def test_a_line_says_when_the_row_api_answered_some_data_rows_only(tmp_path, monkeypatch):
    import treegen.run.row_api as row_api
    monkeypatch.setattr(row_api, "DATA_ROWS", 5)
    (result,) = treegen.verify(treegen.train("examples/play_tennis.csv", target="play", algorithm="id3"),
                               "examples/play_tennis.csv", to="python").results
    assert result.ok and result.line().endswith("; the dict API on the first 5 data rows of 14"), result.line()


@pytest.mark.parametrize("way, new", [
    ("null", "value === null ? 0 : value === undefined ? NaN"),
    ("absent keys", "value === null ? NaN : value === undefined ? 0"),
])
def test_a_javascript_encoder_wrong_for_one_way_of_missing_is_a_mismatch_of_the_object_api(tmp_path, way, new):
    """JavaScript's predict(row) encodes an object (encode, encodeValue), which its CSV path never runs: a mutant
    that reads a numeric feature's null, or its absent key, as 0 is caught, naming the API and the way."""
    path, program = tmp_path / "model.json", tmp_path / "model.mjs"
    save(deep_split_model(), str(path))
    treegen_cli("export", str(path), "--to", "javascript", "-o", str(program), check=True)
    assert treegen_cli("verify", str(path), "--program", str(program)).returncode == 0
    changed(program, "value === null || value === undefined ? NaN", new, 0)
    done = treegen_cli("verify", str(path), "--program", str(program))
    assert done.returncode == 1 and f"(object API, missing values as {way})" in done.stdout, done.stdout


def test_a_java_encoder_wrong_for_null_is_a_mismatch_of_the_map_api(tmp_path):
    """Java's predict(Map) encodes the map (encodeValue), which its CSV path never runs: a mutant that reads a
    numeric feature's null as 0.0 is caught, naming the API and the way."""
    path, program = tmp_path / "model.json", tmp_path / "Deep.java"
    save(deep_split_model(), str(path))
    treegen_cli("export", str(path), "--to", "java", "-o", str(program), check=True)
    assert treegen_cli("verify", str(path), "--program", str(program)).returncode == 0
    changed(program, "if (value == null) {\n                return Double.NaN;",
            "if (value == null) {\n                return 0.0;", 0)
    done = treegen_cli("verify", str(path), "--program", str(program))
    assert done.returncode == 1 and "(Map API, missing values as null)" in done.stdout, done.stdout


def boosted_export(tmp_path, to, file_name):
    """A gradient-boosted model (its trees summed by add functions: the rows API's group-wise sums), saved and
    exported to ``to``, and 1,100 rows of its data: the paths of the three. Its probes and rows are more than
    the ROWS_AT_ONCE of JavaScript (1,024) and C (2,048, for this model): a call ends in a partial group."""
    import numpy as np
    from sklearn.ensemble import GradientBoostingClassifier
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1100, 3))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    model = treegen.from_sklearn(GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=0).fit(X, y),
                                 feature_names=["a", "b", "c"])
    path, program, data = tmp_path / "model.json", tmp_path / file_name, tmp_path / "data.csv"
    save(model, str(path))
    data.write_text("a,b,c\n" + "".join(",".join(map(repr, map(float, row))) + "\n" for row in X), encoding="utf-8")
    treegen_cli("export", str(path), "--to", to, "-o", str(program), check=True)
    return path, program, data


@pytest.mark.parametrize("to, file_name, old, new, api", [
    # in the group-wise sum, a row's sums taken from the next row's values
    ("java", "Gb.java", "                add0(x[r], s[r]);", "                add0(x[Math.min(r + 1, x.length - 1)], s[r]);",
     "(predictProbaRows, "),
    ("javascript", "gb.mjs", "add(xs[first + r], sums, r * width);",
     "add(xs[Math.min(first + r + 1, xs.length - 1)], sums, r * width);", "(predictProbaRows, "),
    # the sums of the groups after the first not started again (a call of more than ROWS_AT_ONCE rows)
    ("javascript", "gb.mjs", "sums.set(START, r * width);", "if (first === 0) sums.set(START, r * width);",
     "rows a call)"),
    # C's rows API (PREFIX_predict_rows, run by a driver of its own: the program's main takes a row at a time),
    # a row's sums from the next row's values, and the last row of a partial group never summed
    ("c", "gb.c", "READ_ROW(rows + r * N_FEATURES);", "READ_ROW(rows + (r + 1 < n ? r + 1 : r) * N_FEATURES);",
     "(predict_proba_rows, "),
    ("c", "gb.c", "sum_rows(rows + i * N_FEATURES, m, sums);",
     "sum_rows(rows + i * N_FEATURES, m == ROWS_AT_ONCE ? m : m - 1, sums);", "rows a call)"),
])
def test_a_rows_api_wrong_in_its_group_wise_sums_is_a_mismatch_naming_it(tmp_path, to, file_name, old, new, api):
    """The many-rows API (Java's predictRows(double[][]), JavaScript's predictRows(rows), and their
    predictProbaRows; C's PREFIX_predict_rows and PREFIX_predict_proba_rows) sums the trees a group over many rows at a time, a path the CSV program and the row API never
    take: a mutant of it alone is a MISMATCH naming the function and the size of its calls."""
    path, program, data = boosted_export(tmp_path, to, file_name)
    assert treegen_cli("verify", str(path), str(data), "--program", str(program)).returncode == 0
    changed(program, old, new, 0)
    done = treegen_cli("verify", str(path), str(data), "--program", str(program))
    assert done.returncode == 1 and " MISMATCH " in done.stdout and api in done.stdout, done.stdout + done.stderr


def test_the_rows_api_is_called_all_at_once_one_a_call_and_past_a_group():
    """The call sizes: every row, one (a few rows' own path), and where the runtime sums ROWS_AT_ONCE rows
    together, one more, so that a call ends in a group of one."""
    import treegen.run.row_api as row_api
    assert row_api.batches(3000, 1024) == [3000, 1, 1025]
    assert row_api.batches(3000, None) == [3000, 1]
    assert row_api.batches(500, 1024) == [500, 1]  # (a bigger call is the same call)
    assert row_api.batches(1, 1024) == [1]
    assert row_api.batches(0, 1024) == []


def test_a_line_says_when_c_rows_api_answered_some_data_rows_only(monkeypatch):
    import treegen.run.row_api as row_api
    monkeypatch.setattr(row_api, "DATA_ROWS", 5)
    (result,) = treegen.verify(treegen.train("examples/play_tennis.csv", target="play", algorithm="id3"),
                               "examples/play_tennis.csv", to="c").results
    assert result.ok and result.line().endswith("; predict_rows on the first 5 data rows of 14"), result.line()


def test_c_rows_api_takes_a_category_holding_a_nul_by_its_index(tmp_path):
    """PREFIX_category takes a C string, which cannot hold a NUL: the driver gives such a category's index, as a
    caller does, rather than the code of the text before the NUL (a MISMATCH the program did not make)."""
    data = tmp_path / "data.csv"
    data.write_bytes(b"c,y\na\0b,p\na,q\nb,q\na\0b,p\nb,q\na\0b,p\na,q\n")
    model = treegen.train(str(data), target="y", algorithm="id3")
    (result,) = treegen.verify(model, str(data), to="c").results
    assert result.ok and result.rows.total > 7, result.line()


@pytest.mark.parametrize("old, new, line", [
    # a key the row has read as a value: undefined as 0 (null, NaN and absent keys still missing)
    ("const value = INHERITED[i] && !Object.prototype.hasOwnProperty.call(row, name) ? undefined : row[name];",
     "const value = INHERITED[i] && !Object.prototype.hasOwnProperty.call(row, name) ? undefined "
     ": name in row && row[name] === undefined ? 0 : row[name];", "(object API, missing values as undefined)"),
    # a Map read as an object: every value missing
    ("const value = row.get(FEATURES[i]);", "const value = row[FEATURES[i]];", "(Map API, missing values as undefined)"),
])
def test_a_javascript_encoder_wrong_for_undefined_or_a_map_is_a_mismatch_naming_it(tmp_path, old, new, line):
    """encode() reads a key whose value is undefined (a missing value, not an absent key) and a Map row (a branch of
    its own): verify gives missing values as undefined, in an object and in a Map, and a mutant wrong for either
    is caught, the line naming the API and the way."""
    path, program = tmp_path / "model.json", tmp_path / "model.mjs"
    save(deep_split_model(), str(path))
    treegen_cli("export", str(path), "--to", "javascript", "-o", str(program), check=True)
    assert treegen_cli("verify", str(path), "--program", str(program)).returncode == 0
    changed(program, old, new, 0)
    done = treegen_cli("verify", str(path), "--program", str(program))
    assert done.returncode == 1 and line in done.stdout, done.stdout


def test_a_java_object_array_encoder_wrong_for_null_is_a_mismatch_of_the_object_array_api(tmp_path):
    """predict(Object[]) has an encoder of its own (encode(Object[])), which neither the CSV path nor the Map API
    runs: a mutant that reads its null as 0.0 is caught, naming that API."""
    path, program = tmp_path / "model.json", tmp_path / "Deep.java"
    save(deep_split_model(), str(path))
    treegen_cli("export", str(path), "--to", "java", "-o", str(program), check=True)
    assert treegen_cli("verify", str(path), "--program", str(program)).returncode == 0
    changed(program, "x[i] = encodeValue(i, row[i]);", "x[i] = row[i] == null ? 0.0 : encodeValue(i, row[i]);", 0)
    done = treegen_cli("verify", str(path), "--program", str(program))
    assert done.returncode == 1 and "(Object[] API, missing values as null)" in done.stdout, done.stdout
