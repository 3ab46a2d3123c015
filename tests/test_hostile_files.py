"""Hostile and damaged model files, as a mutation fuzzer made them: each is refused in one line
``treegen: error: FILE: ...`` with exit code 2, in bounded time and memory, never a traceback."""
import json
import re
import struct
import zipfile
from pathlib import Path

import pytest

from cli_in_process import treegen_cli

FIXTURES = Path(__file__).parent / "fixtures"
DEEP = "[" * 100_000 + "]" * 100_000  # past Python's recursion limit, and its json decoder's
HUGE_INTEGER = "1" + "0" * 5_000  # more digits than Python converts to an int (4,300)


def refused(path: Path, *command: str) -> str:
    """The one line that ``treegen COMMAND path`` ends with, its exit code 2."""
    done = treegen_cli(*(command or ("show",)), path)
    assert done.returncode == 2, done
    assert done.stderr.startswith(f"treegen: error: {path}") and done.stderr.count("\n") == 1, done.stderr
    return done.stderr.strip()


def with_extra_key(text: str, value: str) -> str:
    """A JSON object's text with one more key, holding ``value``, after the others."""
    return text.rstrip()[:-1] + f', "extra": {value}}}'


JSON_MODELS = {"xgboost": FIXTURES / "xgboost" / "binary-3.2.0.json",
               "catboost": FIXTURES / "catboost" / "poisson-1.2.10.json"}


@pytest.mark.parametrize("library", JSON_MODELS)
@pytest.mark.parametrize("value, problem", [(DEEP, "nested too deeply"),
                                            (HUGE_INTEGER, "Exceeds the limit (4300 digits)")])
def test_a_json_model_nested_too_deeply_or_with_a_huge_integer_is_refused(tmp_path, library, value, problem):
    """Both were a RecursionError or a ValueError traceback from json (treegen's own model file said so already)."""
    path = tmp_path / "model.json"
    path.write_text(with_extra_key(JSON_MODELS[library].read_text(), value))
    assert refused(path).endswith(f"invalid JSON: {problem}" + ("" if "deep" in problem else
                                                               " for integer string conversion"))


def test_lightgbm_pandas_categorical_nested_too_deeply_is_refused(tmp_path):
    text = (FIXTURES / "lightgbm" / "4.7.0" / "categorical_pandas.txt").read_text()
    path = tmp_path / "model.txt"
    path.write_text(re.sub(r"pandas_categorical:.*", "pandas_categorical:" + DEEP, text))
    assert refused(path).endswith(": pandas_categorical is not valid JSON (a truncated file?)")


UBJSON_START = b"{L" + struct.pack(">q", 7) + b"learner"  # an object whose first key is "learner"


def test_ubjson_nested_too_deeply_is_refused(tmp_path):
    path = tmp_path / "model.ubj"
    path.write_bytes(UBJSON_START + b"[" * 100_000 + b"]" * 100_000 + b"}")
    assert refused(path).endswith("not a complete XGBoost UBJSON model: containers nested too deeply")


def test_a_ubjson_typed_array_of_values_without_bytes_cannot_claim_more_than_the_file_holds(tmp_path):
    """``[$Z#L n``: n nulls in no bytes. A damaged count (2**40) made a list of that many Nones: memory and
    time without end. Any count past the file's size is refused (here a small one, for a quick test)."""
    path = tmp_path / "model.ubj"
    path.write_bytes(UBJSON_START + b"[$Z#L" + struct.pack(">q", 1_000_000) + b"}")
    assert refused(path).endswith("not a complete XGBoost UBJSON model: a typed array of 1000000 values, "
                                  "more than the file's 31 bytes")


def numeric_model() -> dict:
    """A treegen model of numeric splits only, the kind read a column at a time."""
    done = treegen_cli("train", Path(__file__).parents[1] / "examples" / "boosting" / "iris_missing.csv",
                       "--algorithm", "cart", "--max-depth", "2", "-o", "-", check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("where, value", [("op", ["<="]), ("kind", ["child"]), ("kind", {})])
def test_a_treegen_model_with_a_list_for_a_name_is_refused_at_it(tmp_path, where, value):
    """A split's op or missing kind that is a list or an object: it was a TypeError (unhashable) where the
    reader of plain trees made a set of them."""
    model = numeric_model()
    split = model["trees"][0]["nodes"][0]["split"]
    (split if where == "op" else split["missing"])[where] = value
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model))
    found = type(value).__name__
    assert refused(path).endswith(f"split{'.missing' if where == 'kind' else ''}.{where}: expected a string, "
                                  f"found {found}")


def test_a_skops_file_whose_schema_is_nested_too_deeply_is_refused_as_damaged(tmp_path):
    """skops's reader fails on it (a RecursionError), and so did treegen's look for the skops version that wrote
    it, which let the RecursionError through as a traceback."""
    source = FIXTURES / "hist_gradient_boosting" / "binary-1.9.1.skops"
    path = tmp_path / "model.skops"
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(path, "w") as damaged:
        for name in original.namelist():
            damaged.writestr(name, '{"a": ' + DEEP + "}" if name == "schema.json" else original.read(name))
    assert refused(path).endswith("cannot load the .skops file: it is damaged or was not written by skops.io.dump")


def test_a_skops_file_that_is_a_zip_bomb_is_refused_before_skops_reads_it(tmp_path):
    """A member that inflates past 200 times its compressed size (and 64 MB): skops reads each member whole, and
    a 3 MB file of 3 GB of spaces in its schema.json took a minute and 3.4 GB before. Here 65 MB, written a
    megabyte at a time, which skops would have read (spaces in JSON) and loaded."""
    source = FIXTURES / "hist_gradient_boosting" / "binary-1.9.1.skops"
    path = tmp_path / "model.skops"
    with zipfile.ZipFile(source) as original, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as bomb:
        for name in original.namelist():
            if name != "schema.json":
                bomb.writestr(name, original.read(name))
                continue
            with bomb.open(name, "w") as member:
                member.write(original.read(name)[:-1])
                for _ in range(65):
                    member.write(b" " * (1 << 20))
                member.write(b"}")
    assert re.search(r": refusing the .skops file: its schema.json would expand from [\d,]+ to [\d,]+ bytes "
                     r"\(a zip bomb\?\)$", refused(path))


def catboost_raw(path: Path, rows) -> list:
    import catboost
    model = catboost.CatBoost()
    model.load_model(str(path), format="json")
    return model.predict(rows, prediction_type="RawFormulaVal").tolist()


def test_a_catboost_json_integer_that_catboost_reads_as_zero_is_refused(tmp_path):
    """CatBoost's loader reads a leaf value of 2**53 + 1 (an integer beyond a double's, in 64 bits) as 0.0;
    treegen read 9.0e15, and predicted other numbers than CatBoost's on the file without a word."""
    document = json.loads((FIXTURES / "catboost" / "poisson-1.2.10.json").read_text())
    rows = [[-2.556, 0.706, 0.5], [1.0, -1.0, 2.0]]
    for leaf, name in ((0.0, "zero.json"), (2**53 + 1, "model.json")):
        document["oblivious_trees"][1]["leaf_values"] = [leaf] * len(document["oblivious_trees"][1]["leaf_values"])
        (tmp_path / name).write_text(json.dumps(document))
    assert catboost_raw(tmp_path / "model.json", rows) == catboost_raw(tmp_path / "zero.json", rows)
    assert refused(tmp_path / "model.json").endswith(
        f": the integer {2**53 + 1} is beyond 2**53, which CatBoost's loader reads as 0 where it reads a number: the "
        "file is damaged (CatBoost writes a model's numbers as doubles)")


def lightgbm_text_with(first_leaf: str) -> str:
    """The regression fixture without its tree_sizes (LightGBM then reads the trees in turn, whatever their
    length), its first tree's first leaf value written ``first_leaf``."""
    lines = [line for line in (FIXTURES / "lightgbm" / "4.7.0" / "regression.txt").read_text().split("\n")
             if not line.startswith("tree_sizes=")]
    at = next(n for n, line in enumerate(lines) if line.startswith("leaf_value="))
    lines[at] = "leaf_value=" + " ".join([first_leaf, *lines[at].split("=")[1].split()[1:]])
    return "\n".join(lines)


@pytest.mark.parametrize("spelled", ["1_0", "\uff11\uff10"])  # digits grouped; full-width digits
def test_a_lightgbm_number_python_reads_otherwise_than_lightgbm_is_refused(tmp_path, spelled):
    """Python's float reads '1_0' as 10.0, LightGBM as 1.0 (it stops at '_'): treegen imported the file and
    predicted otherwise than LightGBM without a word. Digits of other scripts LightGBM refuses."""
    import lightgbm
    path, plain = tmp_path / "model.txt", tmp_path / "plain.txt"
    path.write_text(lightgbm_text_with(spelled))
    plain.write_text(lightgbm_text_with("1"))
    if spelled == "1_0":
        rows = [[0.0, 0.0, 0.0], [1.0, -1.0, 2.0], [-3.0, 3.0, -1.0]]
        assert (lightgbm.Booster(model_file=str(path)).predict(rows) ==
                lightgbm.Booster(model_file=str(plain)).predict(rows)).all()
    assert refused(path).endswith(f": tree 0: leaf_value has {spelled!r}, not a number")


def test_an_xgboost_base_score_python_reads_otherwise_than_xgboost_is_refused(tmp_path):
    """XGBoost reads a base_score of '1_5' as 1 (its parser stops at '_'), Python's float as 15: treegen imported
    the file and predicted 14 more than XGBoost for every row, without a word."""
    import xgboost
    document = json.loads((FIXTURES / "xgboost" / "regression-3.2.0.json").read_text())
    rows = [[0.1, 0.2, 0.3], [1.0, -1.0, 2.0]]
    predictions = []
    for score, name in (("1_5", "model.json"), ("1", "plain.json")):
        document["learner"]["learner_model_param"]["base_score"] = score
        (tmp_path / name).write_text(json.dumps(document))
        booster = xgboost.Booster(model_file=str(tmp_path / name))
        predictions.append(booster.predict(xgboost.DMatrix(rows, feature_names=booster.feature_names)).tolist())
    assert predictions[0] == predictions[1]
    assert refused(tmp_path / "model.json").endswith(
        "learner_model_param.base_score is not a number or a list of numbers: '1_5'")


def test_an_xgboost_num_class_beyond_the_trees_output_groups_is_refused(tmp_path):
    """Each round grows one tree a class: a num_class the trees do not have is damage. Edited to 2**31 - 1 in a
    file with one base_score (2.x), it made lists of that many margins and classes: killed for memory, or a
    MemoryError traceback under a limit. (1,000 here, which was read as a model of 1,000 classes.)"""
    document = json.loads((FIXTURES / "xgboost" / "multiclass-2.1.4.json").read_text())
    document["learner"]["learner_model_param"]["num_class"] = "1000"
    document["learner"]["objective"]["softmax_multiclass_param"]["num_class"] = "1000"
    path = tmp_path / "model.json"
    path.write_text(json.dumps(document))
    assert refused(path).endswith("learner_model_param.num_class is 1000, but the trees add to 3 output group(s)")


def test_a_catboost_oblivious_tree_of_60_levels_is_refused_by_its_leaf_count(tmp_path):
    """Its weights' default, 2**60 zeros, was made before the leaf values were counted: a MemoryError traceback."""
    document = json.loads((FIXTURES / "catboost" / "poisson-1.2.10.json").read_text())
    tree = document["oblivious_trees"][0]
    tree["splits"] = tree["splits"] * (60 // len(tree["splits"]))
    path = tmp_path / "model.json"
    path.write_text(json.dumps(document))
    assert refused(path).endswith(f"a tree of depth 60 needs {2**60} leaf values and {2**60} weights")


def test_a_rule_line_of_100_000_parentheses_is_refused_in_time_linear_in_its_length(tmp_path):
    """The reader of the lines the writer writes searched for each condition at every place of the line, the
    search reading on to the line's end: 38 s of CPU for this line of 200,000 characters (quadratic: 6.4 s at
    40,000). Now each condition is read where the last ended: a fraction of a second. (A time, not behaviour,
    is what failed: the bound is a hundred times what it takes.)"""
    import time
    model = tmp_path / "fish.json"
    treegen_cli("train", Path(__file__).parents[1] / "examples" / "fish.csv", "--algorithm", "cart", "-o", model,
                check=True)
    text = treegen_cli("export", model, "--to", "rules", "-o", "-", check=True).stdout
    rule = next(line for line in text.split("\n") if line.startswith("  rule ") and '"' in line)
    condition = rule.split(" if ")[1].split(" then ")[0].split(" and ")[0]
    path = tmp_path / "hostile.rules"
    path.write_text(text.replace(rule, rule.replace(condition, "(" * 100_000 + condition + ")" * 100_000, 1)))
    start = time.process_time()
    assert "unexpected '('" in refused(path, "parse")
    assert time.process_time() - start < 5.0


def test_a_lightgbm_regression_with_a_num_class_of_several_is_refused(tmp_path):
    """LightGBM predicts num_class columns for it, all but the first never written (edited to 99,999: numbers such
    as 1e166 in them); treegen imported it as the regression of the first without a word."""
    import lightgbm
    path = tmp_path / "model.txt"
    path.write_text(lightgbm_text_with("1").replace("\nnum_class=1\n", "\nnum_class=3\n"))
    assert lightgbm.Booster(model_file=str(path)).predict([[0.0, 0.0, 0.0]]).shape == (1, 3)
    assert refused(path).endswith(":3: objective regression has one output, the file says num_class=3: it is damaged")


def tennis_rules(tmp_path: Path) -> str:
    model = tmp_path / "tennis.json"
    treegen_cli("train", Path(__file__).parents[1] / "examples" / "play_tennis.csv", "--algorithm", "id3", "-o", model,
                check=True)
    return treegen_cli("export", model, "--to", "rules", "-o", "-", check=True).stdout


def traced_peak(run) -> int:
    """The most memory that Python allocated at once while ``run()`` ran (its regular expressions' too)."""
    import tracemalloc
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


OUTLOOK = 'outlook: nominal {"sunny", "overcast", "rain"}'
MANY_CATEGORIES = ", ".join(f'"{i:040d}"' for i in range(50_000))  # 2.1 MB
LONG_CATEGORY = '"' + "x" * 2_000_000 + '"'


@pytest.mark.parametrize("added, edited", [(MANY_CATEGORIES, False), (LONG_CATEGORY, False), (LONG_CATEGORY, True)],
                         ids=["50,000 categories", "a category of 2 MB", "a category of 2 MB, edited"])
def test_a_rule_file_of_many_or_long_categories_is_read_in_memory_proportionate_to_it(tmp_path, added, edited):
    """The regular expressions of rule text kept a point to go back to at each category of a list (4.7 KB each:
    200,000 categories, a 2.2 MB file, took 955 MB) and at each character of a string (150 bytes each, in each pattern that read it: 1 GB for a
    name of 2 MB), none of which could be given back; now repeated possessively. Here the split of node 0 names
    three of them, as refused as before; "edited" (a space more) is read by the grammar (Lark's lexer, the same
    pattern for a string)."""
    text = tennis_rules(tmp_path).replace(OUTLOOK, OUTLOOK[:-1] + ", " + added + "}")
    if edited:
        text = text.replace("rule 1: if outlook", "rule 1: if  outlook")
    path = tmp_path / "many.rules"
    path.write_text(text)
    errors = []
    peak = traced_peak(lambda: errors.append(refused(path, "parse")))
    assert errors == [f"treegen: error: {path}:27: trees[0].nodes[0].split.values: an '==' split needs one child for "
                      "each category of its feature"]
    assert peak < 10 * len(text), (peak, len(text))
