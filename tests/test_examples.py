"""The examples do what examples/README.md says, run as a user runs them."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def treegen(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "treegen", *args], capture_output=True, text=True, cwd=cwd)


def test_the_scikit_learn_example_imports_and_verifies(tmp_path):
    script = os.path.join(ROOT, "examples", "sklearn", "make_forest.py")
    subprocess.run([sys.executable, script], check=True, capture_output=True)
    model = str(tmp_path / "forest.json")
    assert treegen("import", "examples/sklearn/forest.skops", "-o", model).returncode == 0
    done = treegen("verify", model, "examples/sklearn/iris.csv", "--to", "python,rules,sql", "--dialect", "duckdb")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[:2] for line in done.stdout.splitlines()] == [["python", "ok"], ["rules", "ok"],
                                                                       ["sql/duckdb", "ok"]]
    assert "(150 from the data," in done.stdout


@pytest.mark.slow
def test_the_boosting_examples_import_and_verify_against_their_libraries(tmp_path):
    """The committed XGBoost and LightGBM files, as examples/README.md shows them: imported, then every
    program target and the libraries' own predict agree on the data and the probes."""
    for native, library in (("xgboost.json", "XGBoost"), ("lightgbm.txt", "LightGBM")):
        model = str(tmp_path / (native + ".model.json"))
        assert treegen("import", f"examples/boosting/{native}", "-o", model).returncode == 0
        done = treegen("verify", model, "examples/boosting/iris_missing.csv", "--to", "python,java,javascript,rules",
                       "--against", f"examples/boosting/{native}")
        assert done.returncode == 0, done.stdout + done.stderr
        assert [line.split()[0] for line in done.stdout.splitlines() if " ok " in line] == [
            library, "python", "java", "javascript", "rules"], done.stdout
