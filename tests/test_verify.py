"""`treegen verify` runs every target for real and catches a program that disagrees with the model."""
import os
import subprocess
import sys

from treegen.data import load_dataset
from treegen.learn import fit
from treegen.probes import probe_rows
from treegen.verify import compare, to_csv, verify

WEKA = "tests/fixtures/j48/"


def test_verify_cli_on_c45_with_missing_values(tmp_path):
    model = tmp_path / "labor.json"
    subprocess.run([sys.executable, "-m", "treegen", "train", WEKA + "labor.arff", "-o", str(model)], check=True)
    result = subprocess.run([sys.executable, "-m", "treegen", "verify", str(model), WEKA + "labor.arff",
                             "--to", "python,java,sql,rules", "--dialect", "sqlite,duckdb"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["python", "java", "sql/sqlite", "sql/duckdb", "rules"]
    assert all(" ok " in line for line in lines)


def test_verify_every_learner_on_probes():
    for algorithm, path in (("id3", "examples/play_tennis.csv"), ("cart", WEKA + "iris.arff"),
                            ("c45", WEKA + "weather.numeric.arff")):
        model = fit(load_dataset(path, regression=False), algorithm)
        results = verify(model, None, ["python", "rules", "sql"], ["sqlite"])
        assert all(r.ok for r in results), [r.line() for r in results]


def test_a_disagreeing_program_is_reported():
    model = fit(load_dataset("examples/play_tennis.csv"), "id3")
    rows = probe_rows(model)[:5]
    wrong = "\n".join("no" for _ in rows) + "\n"
    problems = compare(model, rows, wrong, None)
    assert problems and all("model 'yes', got 'no'" in p for p in problems)
    assert compare(model, rows, "no\n", None) == [f"expected {len(rows)} output lines, got 1"]
    assert to_csv(model, [{"outlook": None, "temperature": "hot", "humidity": "high", "wind": "weak"}]) == \
        "outlook,temperature,humidity,wind\n,hot,high,weak\n"


def test_verify_on_postgres(postgres_dsn):
    model = fit(load_dataset(WEKA + "labor.arff"), "c45")
    [result] = verify(model, WEKA + "labor.arff", ["sql"], ["postgres"], postgres_dsn=postgres_dsn)
    assert result.ok, result.line()


def test_verify_on_mysql(mysql_server, tmp_path):
    model = fit(load_dataset(WEKA + "labor.arff"), "c45")
    [result] = verify(model, WEKA + "labor.arff", ["sql"], ["mysql"], mysql_dsn=mysql_server)
    assert result.ok, result.line()
    saved = tmp_path / "labor.json"
    subprocess.run([sys.executable, "-m", "treegen", "train", WEKA + "labor.arff", "-o", str(saved)], check=True)
    result = subprocess.run([sys.executable, "-m", "treegen", "verify", str(saved), "--to", "sql", "--dialect", "mysql"],
                            capture_output=True, text=True, env={**os.environ, "TREEGEN_MYSQL_DSN": mysql_server})
    assert result.returncode == 0 and result.stdout.split()[:2] == ["sql/mysql", "ok"], result.stdout + result.stderr
    missing = subprocess.run([sys.executable, "-m", "treegen", "verify", str(saved), "--to", "sql", "--dialect", "mysql"],
                             capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                                  if k != "TREEGEN_MYSQL_DSN"})
    assert missing.returncode == 2 and "--mysql-dsn" in missing.stderr, missing.stderr
