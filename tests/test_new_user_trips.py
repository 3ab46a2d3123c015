"""What a new user trips over, from the README's commands to a CSV as pandas writes it: each a one-line
error with exit 2 that says what to do, or a warning, and nothing of the user's lost."""
import os
import shutil

import pytest

from cli_in_process import treegen_cli

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")
TENNIS = os.path.join(EXAMPLES, "play_tennis.csv")
XGBOOST = os.path.join(EXAMPLES, "boosting", "xgboost.json")


@pytest.fixture
def tennis(tmp_path):
    """A copy of the tennis data and an id3 model of it, as rule text too."""
    data = shutil.copy(TENNIS, tmp_path / "tennis.csv")
    model = tmp_path / "tennis.json"
    treegen_cli("train", data, "--algorithm", "id3", "-o", model, check=True)
    rules = tmp_path / "tennis.rules"
    treegen_cli("export", model, "-o", rules, check=True)
    return data, model, rules


@pytest.mark.parametrize("command", [
    lambda data, model, rules: ["train", data, "-o", data],
    lambda data, model, rules: ["train", data, "-o", os.path.join(os.path.dirname(data), ".", "tennis.csv")],
    lambda data, model, rules: ["predict", model, data, "-o", data],
    lambda data, model, rules: ["predict", model, data, "-o", model],
    lambda data, model, rules: ["export", model, "--to", "python", "-o", model],
    lambda data, model, rules: ["parse", rules, "-o", rules],
])
def test_output_onto_an_input_is_refused_and_the_input_kept(tennis, command):
    args = command(*tennis)
    before = {path: open(path, "rb").read() for path in tennis}
    done = treegen_cli(*args)
    assert done.returncode == 2
    assert done.stderr.startswith("treegen: error: -o ") and "input file" in done.stderr
    assert len(done.stderr.splitlines()) == 1
    assert {path: open(path, "rb").read() for path in tennis} == before


def test_import_onto_the_library_file_is_refused_and_the_file_kept(tmp_path):
    library_file = shutil.copy(XGBOOST, tmp_path / "model.json")
    done = treegen_cli("import", library_file, "-o", library_file)
    assert done.returncode == 2 and "input file" in done.stderr
    assert open(library_file, "rb").read() == open(XGBOOST, "rb").read()


def test_a_c_header_onto_the_model_is_refused(tmp_path):
    model = tmp_path / "tennis.h"  # export -o tennis.c writes tennis.h beside it
    treegen_cli("train", TENNIS, "--algorithm", "id3", "-o", model, check=True)
    before = model.read_bytes()
    done = treegen_cli("export", model, "-o", tmp_path / "tennis.c")
    assert done.returncode == 2 and "input file" in done.stderr
    assert model.read_bytes() == before


def test_output_beside_the_input_is_written(tennis, tmp_path):
    data, model, _ = tennis
    treegen_cli("predict", model, data, "-o", tmp_path / "predicted.csv", check=True)
    assert (tmp_path / "predicted.csv").read_text().startswith("outlook,temperature")
