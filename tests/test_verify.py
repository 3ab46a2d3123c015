"""`treegen verify` runs every target for real and catches a program that disagrees with the model."""
import os
import re
import subprocess
import sys

import pytest

from cli_in_process import treegen_cli
from treegen.data import load_dataset
from treegen.learn import fit
from treegen.probes import probe_rows
from treegen.verifier import compare, to_csv, verify

WEKA = "tests/fixtures/j48/"


def test_verify_cli_on_c45_with_missing_values(tmp_path):
    model = tmp_path / "labor.json"
    treegen_cli("train", WEKA + "labor.arff", "-o", str(model), check=True)
    result = treegen_cli("verify", str(model), WEKA + "labor.arff", "--to", "python,java,sql,rules", "--dialect",
                         "sqlite,duckdb")
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["python", "java", "sql/sqlite", "sql/duckdb", "rules"]
    probes = len(probe_rows(fit(load_dataset(WEKA + "labor.arff"), "c45")))
    assert all(line.endswith(f" ok        {probes + 57} rows agree (57 from the data, {probes} probes)")
               for line in lines), lines


def test_verify_every_learner_on_probes():
    for algorithm, path in (("id3", "examples/play_tennis.csv"), ("cart", WEKA + "iris.arff"),
                            ("c45", WEKA + "weather.numeric.arff")):
        model = fit(load_dataset(path, regression=False), algorithm)
        results = verify(model, None, ["python", "rules", "sql"], ["sqlite"])
        assert all(r.ok for r in results), [r.line() for r in results]



def test_a_set_of_small_category_codes_tested_as_a_bit_mask_holds_for_codes_beyond_the_masks_width(tmp_path):
    """JavaScript tests a set of codes below 30 with a 32-bit mask, Java below 62 with a 64-bit one; a
    shift counts modulo the width, so code 34 (JS) and 66 (Java) read bits 2 of the mask without a bound."""
    categories = [f"c{k}" for k in range(70)]
    data = tmp_path / "many.csv"
    lines = [f"{c},{'yes' if c in ('c0', 'c2', 'c4', 'c5', 'c6') else 'no'}" for c in categories * 3]
    data.write_text("k,y\n" + "\n".join(lines) + "\n", encoding="utf-8")
    model = fit(load_dataset(str(data), target="y"), "cart")
    results = verify(model, str(data), ["javascript", "java"])
    assert all(r.ok for r in results), [r.line() for r in results]


def test_a_set_of_thousands_of_category_codes_is_looked_up_exactly_where_a_chain_of_tests_broke_javac(tmp_path):
    """many_categories_model(): a nominal split on 3,000 categories, missing values with its first child and
    unknown ones with its second (an ``in or missing`` test of 1,500 codes), and under it one of 2,000 codes
    (``in``, then ``not in``). Java, JavaScript and C look each set up as a one-feature tuple split's keys, a bit
    set, where they compared the code with each (javac died of a StackOverflowError on such a chain; gcc -O2 took
    90 s on a CatBoost model's 292); every category, missing and unknown values answer as the model does."""
    from test_emit_python import many_categories_model
    from treegen.targets import emit
    model = many_categories_model()
    names = model.features[0].categories
    for target in ("java", "javascript", "c"):
        assert not re.search(r"== 3(\.0)? \|\|", emit(model, target)), target  # (no chain of comparisons)
    data = tmp_path / "every.csv"
    data.write_text("k\n" + "\n".join([*names, "", "zz"]) + "\n", encoding="utf-8")
    assert {model.predict({"k": k}) for k in [*names, None, "zz"]} == {1.0, 2.0, 3.0}
    results = verify(model, str(data), ["java", "javascript", "c"])
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


def test_leaf_ids_are_checked_with_leaf(tmp_path):
    """--leaf exports each target that writes leaf ids with them and checks them: a C4.5 tree's fractional
    routes end at several leaves ('3|5'); the rule text writes none, and its line says so. A target's wrong
    leaf ids are a mismatch, a row counted once."""
    from treegen.verifier import leaf_mismatches
    model = tmp_path / "labor.json"
    treegen_cli("train", WEKA + "labor.arff", "-o", str(model), check=True)
    done = treegen_cli("verify", str(model), WEKA + "labor.arff", "--leaf", "--to", "python,javascript,sql,rules",
                       "--dialect", "sqlite")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 4 and all(" ok " in line for line in lines), lines
    assert lines[-1].endswith("; no leaf ids: rules writes none")
    c45 = fit(load_dataset(WEKA + "labor.arff"), "c45")
    rows = probe_rows(c45)
    leaves = leaf_ids_rows(c45, rows)
    assert any("|" in ids for ids in leaves)
    wrong = leaves[:2] + ["0"] + leaves[3:]
    text = "\n".join(wrong) + "\n"
    assert leaf_mismatches(rows, text, leaves, []) == [f"row 3 {rows[2]}: model's leaf ids {leaves[2]!r}, got '0'"]
    assert leaf_mismatches(rows, text, leaves, [f"row 3 {rows[2]}: model 'good', got 'bad'"]) == []
    assert leaf_mismatches(rows, "0\n", leaves, []) == [f"expected {len(rows)} lines of leaf ids, got 1"]


def test_a_program_exported_before_is_run_itself(tmp_path):
    """--program runs the very file a user ships, told by its ending, and checks it as a target is checked:
    one exported with a package and a class name of its own, a CommonJS build named .js, C with --leaf;
    a file changed by hand is a mismatch; an ending no program has is the user's to fix."""
    model = tmp_path / "labor.json"
    treegen_cli("train", WEKA + "labor.arff", "-o", str(model), check=True)
    exports = {"Labor.java": ["--to", "java", "--package", "com.example.models"],
               "labor.py": ["--to", "python"], "labor.js": ["--to", "javascript", "--module", "commonjs"],
               "labor.c": ["--to", "c", "--prefix", "labor", "--leaf"]}
    for name, options in exports.items():
        treegen_cli("export", str(model), *options, "-o", str(tmp_path / name), check=True)
    programs = [option for name in exports for option in ("--program", str(tmp_path / name))]
    done = treegen_cli("verify", str(model), WEKA + "labor.arff", *programs)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[:2] for line in done.stdout.splitlines()] == [[str(tmp_path / name), "ok"] for name in exports]
    with_rules = treegen_cli("verify", str(model), "--program", str(tmp_path / "labor.c"), "--leaf", "--to", "rules")
    assert with_rules.returncode == 0 and [line.split()[1] for line in with_rules.stdout.splitlines()] == ["ok", "ok"]
    python = tmp_path / "labor.py"
    python.write_text(python.read_text(encoding="utf-8").replace("'good'", "'bad'", 1), encoding="utf-8")
    changed = treegen_cli("verify", str(model), "--program", str(python))
    assert changed.returncode == 1 and " MISMATCH " in changed.stdout, changed.stdout + changed.stderr
    rules = tmp_path / "labor.rules"
    treegen_cli("export", str(model), "-o", str(rules), check=True)
    assert treegen_cli("verify", str(model), "--program", str(rules)).returncode == 0
    text = rules.read_text(encoding="utf-8")  # a threshold moved by hand, in the rules and the nodes they come from
    rules.write_text(text.replace("2.5000009999999997", "3.5000009999999997").replace("<= 2.5 ?", "<= 3.5 ?"),
                     encoding="utf-8")
    edited = treegen_cli("verify", str(model), "--program", str(rules))
    assert edited.returncode == 1 and " MISMATCH " in edited.stdout, edited.stdout + edited.stderr
    other = treegen_cli("verify", str(model), "--program", str(model))
    assert other.returncode == 2 and other.stderr == (
        f"treegen: error: --program {model}: its ending names no program, rule text or SQL treegen writes; name a "
        ".c, .cjs, .java, .js, .mjs, .py, .rules, .sql file\n")


def test_a_sql_file_exported_before_is_run_itself(tmp_path):
    """--program runs a .sql file on its dialect's engine, in the one --dialect named, on the --table it reads
    with the --keep columns it passes through: a SELECT (after a comment) or an --expression (ending in one and ';'),
    its --proba and --leaf columns checked where it has them; a threshold changed by hand is a mismatch; a file
    the engine refuses, one without the columns expected, a dialect verify does not know, or a file without SQL is
    one error line naming it (exit 2)."""
    model = tmp_path / "labor.json"
    treegen_cli("train", WEKA + "labor.arff", "-o", str(model), check=True)
    query, expression = tmp_path / "labor.sql", tmp_path / "expression.sql"
    exported = ["--table", "scores", "--keep", 'id,"the, key"']
    treegen_cli("export", str(model), "--to", "sql", "--dialect", "sqlite", *exported, "--proba", "--leaf", "-o",
                str(query), check=True)
    treegen_cli("export", str(model), "--to", "sql", "--dialect", "duckdb", "--expression", "-o", str(expression),
                check=True)
    text = query.read_text(encoding="utf-8")
    query.write_text("-- the labor model, exported once\n" + text, encoding="utf-8")
    expression.write_text(expression.read_text(encoding="utf-8") + "-- checked by hand\n;\n\n", encoding="utf-8")
    verify_sql = lambda path, *options: treegen_cli("verify", str(model), "--program", str(path), *options)
    done = verify_sql(query, WEKA + "labor.arff", "--dialect", "sqlite", *exported, "--leaf")
    assert done.returncode == 0 and done.stdout.split()[:2] == [str(query), "ok"], done.stdout + done.stderr
    assert "labels only" not in done.stdout and "no leaf ids" not in done.stdout
    done = verify_sql(expression, "--dialect", "duckdb", "--leaf")
    assert done.returncode == 0 and done.stdout.split()[:2] == [str(expression), "ok"], done.stdout + done.stderr
    assert done.stdout.endswith("; no leaf ids: the file writes none; labels only: the file writes no probabilities\n")
    assert "5629501786012933 AS REAL" in text  # wage-increase-first-year <= 2.5 moved to 2.56
    query.write_text(text.replace("5629501786012933 AS REAL", "5764607523034235 AS REAL"), encoding="utf-8")
    edited = verify_sql(query, "--dialect", "sqlite", *exported)
    assert edited.returncode == 1 and " MISMATCH " in edited.stdout, edited.stdout + edited.stderr
    unnamed = verify_sql(query, *exported)
    assert unnamed.returncode == 2 and unnamed.stderr == (
        f"treegen: error: --program {query}: name the one --dialect it was exported in (choose from ansi, sqlite, "
        "postgres, duckdb, mysql, spark)\n")
    other_table = verify_sql(query, "--dialect", "sqlite", "--keep", 'id,"the, key"')
    assert verify_sql(query, "--dialect", "sqlite", "--table", "scores", "--keep", "id,duration").stderr == (
        f"treegen: error: {query}: --keep names the feature duration: a query passes every feature through\n")
    assert other_table.returncode == 2 and other_table.stderr == (
        f"treegen: error: {query}: sqlite cannot run it: no such table: scores (verify runs it on a table \"input\" "
        "of the model's features and the --keep columns: are --dialect, --table and --keep the file's?)\n")
    expression.write_text(expression.read_text(encoding="utf-8").replace('"statutory-holidays"', '"holidays"'),
                          encoding="utf-8")
    renamed = verify_sql(expression, "--dialect", "duckdb")
    assert renamed.returncode == 2 and renamed.stderr.startswith(
        f"treegen: error: {expression}: duckdb cannot run it: Binder Error: ") and renamed.stderr.count("\n") == 1
    assert "holidays" in renamed.stderr and not renamed.stdout
    alone = treegen_cli("verify", str(model), "--to", "sql", *exported)
    assert alone.returncode == 2 and alone.stderr == (
        "treegen: error: --table and --keep say how a --program .sql file was exported: give one (verify's own SQL "
        "reads the table it writes)\n")
    query.write_text('SELECT "duration" FROM scores', encoding="utf-8")
    columns = verify_sql(query, "--dialect", "sqlite", "--table", "scores")
    assert columns.returncode == 2 and columns.stderr == (
        f"treegen: error: {query}: the query returns 1 column, not 17 or 18 or 19 or 20: the input table's 16 columns, "
        "the prediction, the class probabilities (--proba) and the leaf ids (--leaf), in this order\n")
    unknown = verify_sql(query, "--dialect", "sqlite3")
    assert unknown.returncode == 2 and unknown.stderr == (
        f"treegen: error: --program {query}: cannot verify --dialect 'sqlite3'; choose from ansi, sqlite, postgres, "
        "duckdb, mysql, spark; did you mean 'sqlite'?\n")
    for text in ("", "-- the labor model\n;\n"):
        expression.write_text(text, encoding="utf-8")
        for dialect in ("sqlite", "duckdb"):  # (DuckDB read the features alone, a comma before FROM)
            empty = verify_sql(expression, "--dialect", dialect)
            assert empty.returncode == 2 and empty.stderr == (
                f"treegen: error: {expression}: it holds no SQL, a SELECT or an --expression: only comments and blank "
                "lines\n"), empty.stderr


def test_a_sql_file_exported_with_other_keep_columns_is_one_error_line(tmp_path):
    """The outputs of a --program .sql file are read by their place after the table's columns: a file exported
    without the --keep columns verify is given (or with others) is refused saying so, where its prediction was
    read from a probability's column and every row a mismatch (exit 1)."""
    model = tmp_path / "labor.json"
    treegen_cli("train", WEKA + "labor.arff", "-o", str(model), check=True)
    query = tmp_path / "labor.sql"
    treegen_cli("export", str(model), "--to", "sql", "--dialect", "duckdb", "--proba", "-o", str(query), check=True)
    done = treegen_cli("verify", str(model), "--program", str(query), "--dialect", "duckdb", "--keep", "id")
    assert done.returncode == 2 and not done.stdout and done.stderr == (
        f"treegen: error: {query}: its first 17 columns are 'duration', 'wage-increase-first-year', "
        "'wage-increase-second-year', 'wage-increase-third-year', 'cost-of-living-adjustment', 'working-hours', "
        "'pension', 'standby-pay', 'shift-differential', 'education-allowance', 'statutory-holidays', "
        "'vacation', 'longterm-disability-assistance', 'contribution-to-dental-plan', 'bereavement-assistance', "
        "'contribution-to-health-plan', 'prediction', where verify expects the table's 16 features and the --keep "
        "columns id before the prediction: it passes no id through (exported without --keep?)\n"), done.stderr


NOTE_SUBQUERY = ("treegen: note: sqlite: an output that computes float32 steps (or reads a value more than once) "
                 "is a scalar subquery of them, for a SELECT's list or a view (a generated column or an index "
                 "refuses a subquery)\n")


def test_an_expression_file_of_a_float32_model_in_sqlite_is_the_models_bit_for_bit(tmp_path):
    """SQLite's --expression of an XGBoost model rounds each float32 step as its query does (each output a scalar
    subquery of the steps): given as a --program with its leaf ids, it is held to the model bit for bit, with no
    note (it computed in double, and its line said how far its scores were)."""
    model = XGB_FIXTURES + "multiclass-3.2.0.json"
    expression = tmp_path / "expression.sql"
    exported = treegen_cli("export", model, "--to", "sql", "--dialect", "sqlite", "--expression", "--proba", "--leaf",
                           "-o", str(expression))
    assert exported.returncode == 0, exported.stderr
    assert exported.stderr == NOTE_SUBQUERY, exported.stderr
    done = treegen_cli("verify", model, "--program", str(expression), "--dialect", "sqlite", "--leaf")
    assert done.returncode == 0 and done.stdout.split()[1] == "ok", done.stdout + done.stderr
    assert done.stdout.strip().endswith("rows agree (2118 probes)"), done.stdout


def test_a_sql_file_reading_a_table_in_a_schema_is_run_on_that_table(tmp_path):
    """A file exported with --table schema.table (SQLite: database.table; DuckDB: catalog.schema.table too) runs on
    that table, made in the engine with its schema (an attached database in SQLite), or in the schema there is."""
    from treegen.targets import emit
    model = fit(load_dataset(WEKA + "labor.arff"), "c45")
    for dialect, table in (("sqlite", "labor data.labor rows"), ("sqlite", "main.labor"), ("duckdb", "labor.rows"),
                           ("duckdb", "db.labor.rows"), ("duckdb", "memory.main.rows")):
        path = tmp_path / f"{dialect}.sql"
        path.write_text(emit(model, "sql", dialect=dialect, table=table, proba=True), encoding="utf-8")
        [result] = verify(model, WEKA + "labor.arff", [], [dialect], programs=[str(path)], table=table)
        assert result.ok and result.note is None, (dialect, table, result.line())


def test_a_name_sqlite_would_read_as_a_string_is_named(tmp_path):
    """SQLite reads a double-quoted name that no column has as a string: a file whose column was renamed is one
    error line naming the column, not rows that mismatch. A name in backticks or brackets is read as one."""
    model = tmp_path / "labor.json"
    treegen_cli("train", WEKA + "labor.arff", "-o", str(model), check=True)
    path = tmp_path / "labor.sql"
    treegen_cli("export", str(model), "--to", "sql", "--dialect", "sqlite", "--expression", "-o", str(path),
                check=True)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('"statutory-holidays"', "`statutory-holidays`").replace('"duration"', "[duration]"),
                    encoding="utf-8")
    verify_sql = lambda: treegen_cli("verify", str(model), "--program", str(path), "--dialect", "sqlite")
    done = verify_sql()
    assert done.returncode == 0 and done.stdout.split()[:2] == [str(path), "ok"], done.stdout + done.stderr
    path.write_text(text.replace('"statutory-holidays"', '"holidays"'), encoding="utf-8")
    renamed = verify_sql()
    assert (renamed.returncode, renamed.stdout) == (2, ""), renamed.stdout + renamed.stderr
    assert renamed.stderr.startswith(
        f"treegen: error: {path}: sqlite cannot run it: no such column: holidays (SQLite reads a double-quoted name "
        "that no column has as a string) (verify runs it") and renamed.stderr.count("\n") == 1, renamed.stderr


def test_verify_runs_ansi_sql_on_duckdb():
    """ANSI SQL has no engine of its own: verify runs it on DuckDB, as the dialect table says."""
    model = fit(load_dataset(WEKA + "labor.arff"), "c45")
    [result] = verify(model, WEKA + "labor.arff", ["sql"], ["ansi"])
    assert result.ok and result.line().startswith("sql/ansi"), result.line()


def test_verify_on_postgres(postgres_dsn, tmp_path):
    """The SQL verify generates, and a file exported before (--program) with its table, probabilities and leaf ids;
    the same file on a table of another name is the user's to fix."""
    from treegen.targets import emit
    model = fit(load_dataset(WEKA + "labor.arff"), "c45")
    [result] = verify(model, WEKA + "labor.arff", ["sql"], ["postgres"], dsns={"postgres": postgres_dsn})
    assert result.ok, result.line()
    path = tmp_path / "labor.sql"
    path.write_text(emit(model, "sql", dialect="postgres", table="labor rows", proba=True, leaf=True), encoding="utf-8")
    run = lambda table: verify(model, WEKA + "labor.arff", [], ["postgres"], dsns={"postgres": postgres_dsn},
                               programs=[str(path)], table=table, leaf=True)[0]
    result = run("labor rows")
    assert result.ok and result.note is None, result.line()
    result = run("input")
    assert result.user_error and result.error.startswith(
        'postgres cannot run it: relation "labor rows" does not exist (verify runs it')  # (not the lines showing where)
    # A table in a schema: made with its schema in a transaction rolled back, which leaves the server as it was
    import psycopg
    for table in ("labor schema.labor rows", "postgres.labor schema.labor rows"):  # (the database connected to)
        path.write_text(emit(model, "sql", dialect="postgres", table=table, proba=True, leaf=True), encoding="utf-8")
        result = run(table)
        assert result.ok and result.note is None, result.line()
    with psycopg.connect(postgres_dsn) as connection:
        assert not connection.execute("SELECT 1 FROM pg_namespace WHERE nspname = 'labor schema'").fetchall()


def test_verify_on_mysql(mysql_server, tmp_path):
    model = fit(load_dataset(WEKA + "labor.arff"), "c45")
    [result] = verify(model, WEKA + "labor.arff", ["sql"], ["mysql"], dsns={"mysql": mysql_server})
    assert result.ok, result.line()
    saved = tmp_path / "labor.json"
    treegen_cli("train", WEKA + "labor.arff", "-o", str(saved), check=True)
    result = subprocess.run([sys.executable, "-m", "treegen", "verify", str(saved), "--to", "sql", "--dialect", "mysql"],
                            capture_output=True, text=True, env={**os.environ, "TREEGEN_MYSQL_DSN": mysql_server})
    assert result.returncode == 0 and result.stdout.split()[:2] == ["sql/mysql", "ok"], result.stdout + result.stderr
    missing = subprocess.run([sys.executable, "-m", "treegen", "verify", str(saved), "--to", "sql", "--dialect", "mysql"],
                             capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                                  if k != "TREEGEN_MYSQL_DSN"})
    assert missing.returncode == 2 and "--mysql-dsn" in missing.stderr, missing.stderr


@pytest.mark.parametrize("dialect", ["mysql", "spark"])
def test_a_sql_file_exported_before_on_mysql_and_spark(connect, dialect, tmp_path, capfd):
    """--program on MariaDB and Spark: a SELECT with its probabilities, on a table in a database (MySQL) or in Spark's
    global_temp, and an --expression without them, each ending in ';', a comment and blank lines; an --expression
    with them; a threshold changed by hand is a mismatch; a renamed column, or a table Spark cannot make, is the
    user's to fix, in one line."""
    from treegen.targets import emit
    model = fit(load_dataset(WEKA + "labor.arff"), "c45")
    dsns = {"mysql": connect("mysql")["dsn"]} if dialect == "mysql" else {}
    table = {"mysql": "treegen.labor rows", "spark": "Global_Temp.labor"}[dialect]  # (Spark's names ignore case)

    def run(name: str, text: str, **options):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return verify(model, WEKA + "labor.arff", [], [dialect], dsns=dsns, programs=[str(path)], **options)[0]
    query = emit(model, "sql", dialect=dialect, table=table, proba=True)
    result = run("query.sql", query + ";\n-- the labor model\n\n", table=table)
    assert result.ok and result.note is None, result.line()
    result = run("proba.sql", emit(model, "sql", dialect=dialect, expression=True, proba=True))
    assert result.ok and result.note is None, result.line()
    expression = emit(model, "sql", dialect=dialect, expression=True) + ";\n-- the labor model\n\n"
    result = run("expression.sql", expression)
    assert result.ok and result.note == "labels only: the file writes no probabilities", result.line()
    assert "2.5000009999999997" in query  # wage-increase-first-year <= 2.5
    result = run("edited.sql", query.replace("2.5000009999999997", "2.6"), table=table)
    assert " MISMATCH " in result.line(), result.line()
    result = run("renamed.sql", expression.replace("`statutory-holidays`", "`holidays`"))
    assert result.user_error and result.error.startswith(f"{dialect} cannot run it: ") and "holidays" in result.error
    if dialect == "mysql":  # MySQL's message, not PyMySQL's tuple of its code and message ("(1054, ...")
        assert result.error.startswith("mysql cannot run it: Unknown column 'holidays'"), result.error
    assert "\n" not in result.error and "SQLQueryContextLogger" not in capfd.readouterr().err, result.error
    assert "Project [" not in result.error  # the first line of Spark's error, not its plan of the query
    if dialect == "spark":
        result = run("schema.sql", emit(model, "sql", dialect=dialect, table="labor.rows"), table="labor.rows")
        assert result.user_error and result.error == (
            "spark: verify holds the rows in a temporary view, which Spark names by one part or as global_temp.NAME, "
            "not 'labor.rows': it cannot make that table"), result.line()


@pytest.mark.parametrize("engine,dsn,reason", [  # the drivers' own words, up to where libpq's versions differ
    ("postgres", "host=127.0.0.1 port={port}",
     'connection failed: connection to server at "127.0.0.1", port {port} failed: Connection refused'),
    ("mysql", "host=127.0.0.1 port={port} user=root",
     "Can't connect to MySQL server on '127.0.0.1' ([Errno 111] Connection refused)")])
def test_a_server_that_cannot_be_reached_is_the_users_to_fix(tmp_path, engine, dsn, reason):
    """A DSN that reaches no server is exit 2 with a 'needs' line, as a missing driver is."""
    import socket
    with socket.socket() as s:  # a port nothing listens on: bound, then let go
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = tmp_path / "t.json"
    treegen_cli("train", "examples/play_tennis.csv", "-a", "id3", "-o", str(model), check=True)
    done = treegen_cli("verify", str(model), "--to", "sql", "--dialect", engine, f"--{engine}-dsn",
                       dsn.format(port=port))
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    assert done.stderr.startswith(f"treegen: error: sql/{engine}: needs a {engine} server it can connect to, "
                                  f"check --{engine}-dsn (or TREEGEN_{engine.upper()}_DSN): {reason.format(port=port)}")
    assert done.stderr.count("\n") == 1 and done.stderr.endswith("\n")


@pytest.mark.parametrize("engine,dsn,reason", [
    ("postgres", "garbage", 'missing "=" after "garbage" in connection info string'),
    ("postgres", "host=/tmp colour=blue", 'invalid connection option "colour"'),
    ("mysql", "host=127.0.0.1 port=notanumber", "the port must be a number, got 'notanumber'"),
    ("mysql", "host='127.0.0.1", "No closing quotation"),
    ("mysql", "host=127.0.0.1 dbname=x", "expected host, port, user, password, database or unix_socket as key=value, "
                                         "got 'dbname=x'")])
def test_a_connection_string_the_driver_cannot_read_is_the_users_to_fix(tmp_path, engine, dsn, reason):
    """A malformed DSN is exit 2 with one line naming the option, as an unreachable server is."""
    model = tmp_path / "t.json"
    treegen_cli("train", "examples/play_tennis.csv", "-a", "id3", "-o", str(model), check=True)
    done = treegen_cli("verify", str(model), "--to", "sql", "--dialect", engine, f"--{engine}-dsn", dsn)
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    assert done.stderr == (f"treegen: error: sql/{engine}: --{engine}-dsn (or TREEGEN_{engine.upper()}_DSN) cannot be "
                           f"read: {reason}\n")

BOOSTING = "examples/boosting/"
XGB_FIXTURES = "tests/fixtures/xgboost/"


@pytest.mark.parametrize("model,against,message", [
    ("tennis", BOOSTING + "xgboost.json", "this is a model file of XGBoost, but the model was not imported from a "
     "library (its meta names none): there is no library's predict to check it against"),
    ("tennis", "tests/fixtures/hist_gradient_boosting/binary-1.9.1.skops", "this is a model file of scikit-learn, "
     "but the model was not imported from a library (its meta names none): there is no library's predict to "
     "check it against"),
    (BOOSTING + "xgboost.json", BOOSTING + "lightgbm.txt", "this is a model file of LightGBM, but the model was "
     "imported from XGBoost (its meta says so): give the XGBoost file it was imported from"),
    (BOOSTING + "lightgbm.txt", BOOSTING + "xgboost.json", "this is a model file of XGBoost, but the model was "
     "imported from LightGBM (its meta says so): give the LightGBM file it was imported from"),
    ("tests/fixtures/lightgbm/4.7.0/binary.txt", "tests/fixtures/lightgbm/4.7.0/categorical_codes.txt",
     "this LightGBM model takes 2 features, the treegen model 3: give the file the model was imported from"),
    (XGB_FIXTURES + "multiclass-3.2.0.json", XGB_FIXTURES + "binary-3.2.0.json", "this XGBoost file holds another "
     "model than the one verified (target: 3 classes in the model, 2 classes in the file; objective: "
     "multi:softprob in the model, binary:logistic in the file): give the file the model was imported from"),
])
def test_against_a_file_the_model_did_not_come_from_is_refused(tmp_path, model, against, message):
    """An --against file of another library, or another kind of model, is refused in one line before
    anything runs (it used to be a KeyError or ValueError traceback, or a MISMATCH on every row)."""
    if model == "tennis":
        model = str(tmp_path / "tennis.json")
        treegen_cli("train", "examples/play_tennis.csv", "-a", "id3", "-o", model, check=True)
    done = treegen_cli("verify", model, "--to", "python", "--against", against)
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    assert done.stderr == f"treegen: error: {against}: --against: {message}\n"


def test_categories_apply_to_a_library_file_that_takes_them(tmp_path):
    """verify's --categories names the categories of a CatBoost file, MODEL or --against's: with neither a
    library's file it is refused, and a library that takes no categories refuses it, in one line."""
    tennis = str(tmp_path / "tennis.json")
    treegen_cli("train", "examples/play_tennis.csv", "-a", "id3", "-o", tennis, check=True)
    xgb = XGB_FIXTURES + "binary-3.2.0.json"
    for model, against, message in (
            (tennis, [], "--categories names the categories of a library's model file, given as MODEL or --against; "
                         "MODEL is a treegen model"),
            (xgb, ["--against", xgb], f"{xgb}: --categories does not apply to XGBoost models")):
        done = treegen_cli("verify", model, "--to", "python", *against, "--categories", "x0=a,b")
        assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
        assert done.stderr == f"treegen: error: {message}\n"


def test_against_another_model_of_the_same_kind_shows_both_sides():
    """A file of the right library and kind whose trees differ disagrees (exit 1); each row shows the
    probabilities of both sides, not only two labels that may be the same. A row keeps its number among every
    row checked, where rows before it are refused (it was "row 1": the first row XGBoost took)."""
    done = treegen_cli("verify", XGB_FIXTURES + "binary-3.2.0.json", "--to", "python", "--against",
                       XGB_FIXTURES + "dart-3.2.0.json")
    assert done.returncode == 1, done.stdout + done.stderr
    against, python = done.stdout.splitlines()
    assert against.startswith("XGBoost itself      MISMATCH  1498 of 1498 rows (1498 probes; 561 probes left out, "
                              "which XGBoost refuses: a value infinite in float32 (±inf, or beyond ±3.4e38)) "
                              "differ: row 136 {'x0': "
                              "-0.7807729542255404, 'x1': -0.8132819235324862, 'x2': -3e+38}: model '0' "
                              "[0.9385218620300293, 0.061478108167648315], got '0' [0.9320710897445679, "
                              "0.06792893260717392]; row 137 "), against
    assert python.split()[:2] == ["python", "ok"]


def test_columns_line_up_with_the_library_row(tmp_path):
    """The library's own line ("scikit-learn itself", the longest name a line can have) and the targets'
    lines start their second column at the same offset: the first column fits every name."""
    skops = "tests/fixtures/hist_gradient_boosting/binary-1.9.1.skops"
    model = str(tmp_path / "hgb.json")
    treegen_cli("import", skops, "-o", model, check=True)
    done = treegen_cli("verify", model, "--to", "python,rules,sql", "--dialect", "sqlite", "--against", skops)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    names = ["scikit-learn itself", "python", "rules", "sql/sqlite"]
    assert [line[:len(name)] for line, name in zip(lines, names)] == names, lines
    starts = {len(line) - len(line[len(name):].lstrip(" ")) for line, name in zip(lines, names)}
    assert len(starts) == 1 and starts.pop() > len(names[0]), lines
    assert all(line[len(name):].split()[0] == "ok" for line, name in zip(lines, names)), lines


def test_columns_line_up_with_the_paths_of_programs(tmp_path):
    """A --program line is named by the file's path: the first column widens to fit the longest, each result still
    one line."""
    from treegen.verifier import name_width
    model = tmp_path / "labor.json"
    treegen_cli("train", WEKA + "labor.arff", "-o", str(model), check=True)
    paths = [str(tmp_path / "exported/programs/of/the/labor/model/labor.sql"), str(tmp_path / "labor.sql")]
    os.makedirs(os.path.dirname(paths[0]))
    for path in paths:
        treegen_cli("export", str(model), "--to", "sql", "--dialect", "sqlite", "-o", path, check=True)
    done = treegen_cli("verify", str(model), "--to", "python", *(f"--program={p}" for p in paths), "--dialect",
                       "sqlite")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    width = len(paths[0]) + 1
    assert width > name_width() + 1 and all(line[width - 1:width + 3] == " ok " for line in lines), lines
    assert [line[:width].rstrip() for line in lines] == ["python", *paths], lines


@pytest.mark.parametrize("path,library,objective", [
    ("tests/fixtures/xgboost/binary-3.2.0.json", "XGBoost", "binary:logistic"),
    ("tests/fixtures/lightgbm/4.7.0/binary.txt", "LightGBM", "binary sigmoid:1"),
    ("tests/fixtures/catboost/binary_onehot_nan_max-1.2.10.json", "CatBoost", "Logloss"),
    ("tests/fixtures/hist_gradient_boosting/binary-1.9.1.skops", "scikit-learn", "log_loss"),
    ("tree", "scikit-learn", None),
])
def test_every_importer_names_its_library_in_meta_as_verify_does(path, library, objective):
    """The same keys from every importer (treegen.importers.library_meta): ``library`` as --against's
    messages name it, and what else it keeps under its module's name; no ``source``, which in a trained
    model's meta is the data file."""
    from treegen.importers import IMPORTERS, from_object, import_file
    from treegen.verifier import source_library
    if path == "tree":
        from sklearn.tree import DecisionTreeClassifier
        model = from_object(DecisionTreeClassifier().fit([[0.0], [1.0]], [0, 1]))
    else:
        model = import_file(path)
    module = IMPORTERS[library].module
    assert set(model.meta) <= {"algorithm", "library", "library_version", "objective", module} and module in model.meta
    assert model.meta["library"] == source_library(model) == library and model.meta.get("objective") == objective


def test_default_dialects_leave_out_an_engine_that_is_not_installed(tmp_path):
    """On a core install (no duckdb: None in sys.modules makes its import fail), verify without --dialect
    checks SQLite, says in a line that DuckDB was not checked, and exits 0; --dialect duckdb named
    is still exit 2."""
    model = tmp_path / "t.json"
    treegen_cli("train", "examples/play_tennis.csv", "-a", "id3", "-o", str(model), check=True)
    code = "import sys; sys.modules['duckdb'] = None; from treegen.cli import main; main(prog_name='treegen')"
    core = [sys.executable, "-c", code, "verify", str(model), "--to", "sql,python"]
    done = subprocess.run(core, capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr
    probes = len(probe_rows(fit(load_dataset("examples/play_tennis.csv"), "id3")))
    assert done.stdout.splitlines() == [
        f"sql/sqlite          ok        {probes} rows agree ({probes} probes)",
        "sql/duckdb          not checked: needs the duckdb package: pip install duckdb (treegen's [sql] extra)",
        f"python              ok        {probes} rows agree ({probes} probes)"]
    named = subprocess.run(core + ["--dialect", "duckdb"], capture_output=True, text=True)
    assert named.returncode == 2, named.stdout + named.stderr
    assert named.stderr == ("treegen: error: sql/duckdb: needs the duckdb package: pip install duckdb "
                            "(treegen's [sql] extra)\n")


def test_default_targets_leave_out_those_whose_tool_is_not_installed(tmp_path, monkeypatch):
    """On a machine without a JDK, Node.js or a C compiler (a PATH without them), verify without --to checks
    Python, SQL and the rule text, says in a line each that Java, JavaScript and C were not checked, and exits 0
    (it ended with an error and exit 2 for Java, which the user did not ask for); --to java named is still exit 2."""
    model = tmp_path / "t.json"
    treegen_cli("train", "examples/play_tennis.csv", "-a", "id3", "-o", str(model), check=True)
    bare = {**os.environ, "PATH": str(tmp_path)}  # (the interpreter runs by its full path; nothing else is found)
    verify = [sys.executable, "-m", "treegen", "verify", str(model), "--dialect", "sqlite"]
    done = subprocess.run(verify, capture_output=True, text=True, env=bare)
    assert (done.returncode, done.stderr) == (0, ""), done.stdout + done.stderr
    lines = {line.split()[0]: " ".join(line.split()[1:]) for line in done.stdout.splitlines()}
    assert list(lines) == ["python", "java", "javascript", "c", "sql/sqlite", "rules"], done.stdout
    assert lines["java"].startswith("not checked: needs a JDK: javac is not on the PATH")
    assert lines["javascript"].startswith("not checked: needs Node.js 18+: node is not on the PATH")
    assert lines["c"].startswith("not checked: needs a C compiler: cc is not on the PATH")
    assert all(lines[name].startswith("ok ") for name in ("python", "sql/sqlite", "rules")), done.stdout
    named = subprocess.run(verify + ["--to", "sql,java"], capture_output=True, text=True, env=bare)
    assert named.returncode == 2 and named.stderr.startswith("treegen: error: java: needs a JDK"), named.stderr
    import treegen
    monkeypatch.setenv("PATH", str(tmp_path))
    report = treegen.verify(str(model), dialects="sqlite")  # the API's default is the same
    assert report.ok and [r.target for r in report.results if r.unchecked] == ["java", "javascript", "c"], str(report)
    with pytest.raises(AssertionError):
        assert treegen.verify(str(model), to="c").ok


@pytest.mark.parametrize("library, model, data", [
    ("xgboost", "examples/boosting/xgboost.json", "examples/boosting/iris_missing.csv"),
    ("lightgbm", "examples/boosting/lightgbm.txt", "examples/boosting/iris_missing.csv")])
def test_against_without_the_library_names_the_package_for_this_platform(library, model, data):
    """verify --against a library's file, the library not installed: one line naming what to pip install here
    (xgboost-cpu where it has wheels, no CUDA libraries), as treegen's extra installs."""
    from treegen.packages import pip_name
    code = f"import sys; sys.modules[{library!r}] = None; from treegen.cli import main; main(prog_name='treegen')"
    done = subprocess.run([sys.executable, "-c", code, "verify", model, data, "--to", "python", "--against", model],
                          capture_output=True, text=True)
    title = {"xgboost": "XGBoost", "lightgbm": "LightGBM"}[library]
    assert done.returncode == 2 and done.stderr == (
        f"treegen: error: {title} itself: needs the {library} package: pip install {pip_name(library)} "
        f"(treegen's [{library}] extra)\n"), done.stderr
    assert pip_name("xgboost") in ("xgboost-cpu", "xgboost") and pip_name("sklearn") == "scikit-learn"


# -- the model's answers, computed once for all rows -------------------------------------------

from dataclasses import replace  # noqa: E402

from hypothesis import given, settings, strategies as st  # noqa: E402

from treegen.model import CLASSIFICATION, Combine, NumericSemantics, Target, leaf_ids  # noqa: E402
from treegen.testing import chain_model, random_model, random_rows, wide_model, with_fractions  # noqa: E402
from treegen.walk import leaf_ids_rows, predict_rows  # noqa: E402


def _boosted(model, link: str):
    width = 1 if link == "sigmoid" else 3
    model = random_model(model.meta["seed"], regression=True, n_trees=2 * width)
    for i, tree in enumerate(model.trees):
        tree.output = i % width
    classes = ("no", "yes") if link == "sigmoid" else ("a", "b", "c")
    return replace(model, target=Target("y", CLASSIFICATION, classes),
                   combine=Combine("sum", tuple(0.25 * (k + 1) for k in range(width)), 0.1, link))


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 10**6), regression=st.booleans(), trees=st.integers(1, 3),
       kind=st.sampled_from(["plain", "fractions", "float32", "tolerance", "sum", "sum32", "sum_last",
                             "sigmoid", "softmax"]))
def test_reference_is_exactly_what_the_model_predicts(seed, regression, trees, kind):
    numeric = {"float32": NumericSemantics("float32"), "tolerance": NumericSemantics("float64", 1e-6)}
    model = random_model(seed, regression=regression, n_trees=trees, numeric=numeric.get(kind, NumericSemantics()))
    if kind == "fractions":
        model = with_fractions(model, seed)
    elif kind == "sum":
        model.combine = Combine("sum", init=tuple(0.5 for _ in range(model.target.width)), scale=0.1)
    elif kind in ("sum32", "sum_last"):  # every rounding and step of the raw sums (the batch's too)
        model.combine = Combine("sum", init=tuple(0.1 * (k + 1) for k in range(model.target.width)), scale=0.3,
                                precision="float32" if kind == "sum32" else "float64", divisor=3.0,
                                init_last=kind == "sum_last")
        model.trees = [replace(tree, weight=0.7 + t) for t, tree in enumerate(model.trees)]
    elif kind in ("sigmoid", "softmax"):
        model = _boosted(model, kind)
    rows = random_rows(model, 60, seed, missing=0.2) + probe_rows(model, 100)
    assert predict_rows(model, rows) == [(model.predict(r), model.scores(r)) for r in rows]
    assert leaf_ids_rows(model, rows) == [leaf_ids(model, r) for r in rows]


def test_reference_on_a_deep_chain():
    model = chain_model(10_000)
    rows = probe_rows(model)
    answers = predict_rows(model, rows)
    for i in range(0, len(rows), 997):  # the model walks 10,000 nodes per row: a sample
        assert answers[i] == (model.predict(rows[i]), model.scores(rows[i]))


def test_chains_walked_as_sorted_runs_end_where_the_level_walk_ends():
    """A chain's rows walk as one sorted run (walk.follow_chain): they end where the level-by-level walk
    (node_paths) ends them, whatever the missing route (stop, fractional, a leaf child or the next split),
    on the thresholds, between them, at both zeros, infinities and NaN, and where the chain turns to
    another feature or splits the rows between two subtrees."""
    from treegen.model import MissingRoute
    from treegen.walk import as_matrix, encode_column, node_ends, node_paths
    models = []
    for route in (MissingRoute.stop(), MissingRoute.fraction((0.3, 0.7)), MissingRoute.to_child(0),
                  MissingRoute.to_child(1)):
        model = chain_model(600)
        for node in model.trees[0].nodes:
            if node.split is not None:
                node.split = replace(node.split, missing=route)
        models.append(model)
    models += [random_model(seed, max_depth=12) for seed in range(8)] + [wide_model(300)]
    for model in models:
        rows = probe_rows(model) * 3 + random_rows(model, 600, missing=0.2)
        columns = as_matrix([encode_column(f, rows) for f in model.features])
        assert (node_ends(model, model.trees[0], columns) == node_paths(model, model.trees[0], columns)[:, -1]).all()


@pytest.mark.parametrize("numeric", [NumericSemantics(), NumericSemantics(cast="float32"),
                                     NumericSemantics(cast="float32", strict=True), NumericSemantics(zero_band=1e-35),
                                     NumericSemantics(tolerance=1e-9)])
def test_shallow_trees_walked_in_lockstep_end_where_the_level_walk_ends(numeric):
    """A tree of numeric splits that send missing values to a child, at most LOCKSTEP_DEPTH deep, is
    walked by every row at every level (walk._Lockstep): its rows end where the level-by-level walk
    ends them -- on the cuts, one ulp either side, at both zeros, infinities and NaN, either side for
    missing, a tree held as nodes or as columns, a leaf alone."""
    from treegen import modelio
    from treegen.model import Route
    from treegen.walk import _Walk, as_matrix, encode_column, node_ends, node_paths
    models = [random_model(seed, n_nominal=0, max_depth=depth, missing_kinds=(Route.CHILD,), numeric=numeric)
              for seed, depth in zip(range(10), (1, 2, 3, 5, 8, 8, 10, 10, 10, 10))]
    models += [replace(wide_model(500), numeric=numeric), replace(chain_model(32), numeric=numeric)]
    models += [modelio.loads(modelio.dumps(model)) for model in models]  # as columns
    walked = 0
    for model in models:
        rows = probe_rows(model) * 2 + random_rows(model, 300, missing=0.2)
        columns = as_matrix([encode_column(f, rows) for f in model.features])
        tree = model.trees[0]
        walked += _Walk.of(model, tree).lockstep is not None
        assert (node_ends(model, tree, columns) == node_paths(model, tree, columns)[:, -1]).all()
    assert walked >= len(models) - 4  # the trees that are more than a leaf


def test_each_target_is_reported_as_it_finishes():
    model = fit(load_dataset("examples/play_tennis.csv"), "id3")
    seen = []
    results = verify(model, None, ["rules", "python"], [], report=seen.append)
    assert seen == results and [r.target for r in seen] == ["rules", "python"] and all(r.ok for r in seen)


@pytest.mark.slow
def test_verify_big_trees():
    """Every boundary row of a 10,000-deep chain and of a 5,000-leaf tree, through Python and the rules."""
    for model in (chain_model(10_000), wide_model(5_000)):
        results = verify(model, None, ["python", "rules"], [])
        assert all(r.ok for r in results), [r.line() for r in results]
        assert results[0].rows.total == len(probe_rows(model))


def test_probes_of_a_big_tree_keep_every_boundary_value():
    from treegen.probes import EDGES, ONE_AT_A_TIME_ROWS, SPLIT_ROWS, boundary_values, edge_values, split_rows
    small, big = wide_model(1_000), wide_model(20_000)  # 3,000 and 60,000 boundary values
    for model in (small, big):
        rows = probe_rows(model)
        for feature, values in zip(model.features, boundary_values(model), strict=True):
            seen = {row[feature.name] for row in rows}
            assert set(values) | set(EDGES) <= seen and None in seen
            assert {repr(v) for v in EDGES} <= {repr(row[feature.name]) for row in rows}  # -0.0 too
    def counts(model):  # the values of each feature, the missing value included
        return [len(values) + len(edge_values(model, i)) + 1 for i, values in enumerate(boundary_values(model))]
    one_at_a_time = sum(counts(small))
    splits = 3 * (len(small.trees[0].nodes) // 2)  # each split reached: either side of its cut, and missing
    one_each = one_at_a_time - (len(small.features) - 1)  # every value of a feature, the others at their first
    assert len(probe_rows(small, aimed=0)) == one_each and one_at_a_time <= ONE_AT_A_TIME_ROWS
    # and each split reached, either side of its cut and missing: rows that are no row before, each once
    texts = [repr(tuple(row.values())) for row in probe_rows(small)]
    aimed = {repr(tuple(row.values())) for row in split_rows(small, SPLIT_ROWS)}
    assert len(texts) == len(set(texts)) and set(texts) == set(texts[:one_each]) | aimed
    assert one_each < len(texts) < one_each + splits
    longest = max(counts(big))
    assert len(probe_rows(big)) == longest


def test_a_missing_jdk_is_a_hint_not_a_crash(tmp_path):
    """Without javac on the PATH, the java target says what to install (exit 2); the others still run."""
    model_path = tmp_path / "t.json"
    treegen = os.path.join(os.path.dirname(sys.executable), "treegen")
    subprocess.run([treegen, "train", "examples/play_tennis.csv", "-a", "id3", "-o", str(model_path)], check=True)
    done = subprocess.run([treegen, "verify", str(model_path), "--to", "java,python"], capture_output=True, text=True,
                          env={**os.environ, "PATH": os.path.dirname(sys.executable)})
    assert done.returncode == 2, done.stderr
    assert "java: needs a JDK: javac is not on the PATH" in done.stderr and "python " in done.stdout


@pytest.mark.engines
def test_verify_on_spark_says_only_its_result(tmp_path):
    """Spark's JVM logs errors only, with no progress bar: a terminal shows verify's line, not ten lines
    about the host name, native libraries and pandas around it. (The JVM's own notice of the incubator
    module Spark asks for is printed before anything can be configured.) Spark's Python workers run the
    Python treegen runs on, not the PATH's `python3` (a virtualenv not activated; Spark refuses another
    minor version): here one that cannot run at all."""
    model = tmp_path / "t.json"
    treegen_cli("train", "examples/play_tennis.csv", "-a", "id3", "-o", str(model), check=True)
    other = tmp_path / "bin"
    other.mkdir()
    for name in ("python3", "python"):
        (other / name).write_text("#!/bin/sh\necho 'not the Python treegen runs on' >&2\nexit 1\n")
        (other / name).chmod(0o755)
    env = {key: value for key, value in os.environ.items() if key != "PYSPARK_PYTHON"}
    done = subprocess.run([sys.executable, "-m", "treegen", "verify", str(model), "--to", "sql", "--dialect", "spark"],
                          capture_output=True, text=True, env={**env, "PATH": f"{other}{os.pathsep}{env['PATH']}"})
    assert done.returncode == 0 and done.stdout.split()[:2] == ["sql/spark", "ok"], done.stdout + done.stderr
    assert [line for line in done.stderr.splitlines() if "incubator modules" not in line] == [], done.stderr


def test_a_missing_node_is_a_hint_not_a_crash(tmp_path):
    """Without node on the PATH, the javascript target says what to install (exit 2), as java and c do."""
    model_path = tmp_path / "t.json"
    treegen = os.path.join(os.path.dirname(sys.executable), "treegen")
    subprocess.run([treegen, "train", "examples/play_tennis.csv", "-a", "id3", "-o", str(model_path)], check=True)
    done = subprocess.run([treegen, "verify", str(model_path), "--to", "javascript,python"], capture_output=True,
                          text=True, env={**os.environ, "PATH": os.path.dirname(sys.executable)})
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == ("treegen: error: javascript: needs Node.js 18+: node is not on the PATH "
                           "(for example: apt-get install nodejs)\n")
    assert done.stdout.split()[:2] == ["python", "ok"]


def test_probes_reach_each_end_of_a_missing_interval():
    """A feature's missing interval (LightGBM's zero band, XGBoost's missing=) is probed at both ends
    and one ulp outside each."""
    import math
    import dataclasses
    model = chain_model(3)
    low, high = -2.5, 7.0
    features = (dataclasses.replace(model.features[0], missing_interval=(low, high)),) + model.features[1:]
    model = dataclasses.replace(model, features=features)
    seen = {row[features[0].name] for row in probe_rows(model)}
    assert {low, high, math.nextafter(low, -math.inf), math.nextafter(high, math.inf)} <= seen


def test_float32_sums_in_sqlite_and_mysql_are_the_models(mysql_server, tmp_path):
    """SQLite has no 4-byte float: an XGBoost model's query rounds each step in double arithmetic; MySQL casts
    to FLOAT. verify holds both bit for bit to the model, no note, as DuckDB's; `export` says nothing on stderr.
    SQLite's --expression rounds the same steps, in scalar subqueries: `export` says where they serve (it added
    in double, and said so)."""
    import glob

    from treegen.importers import import_file
    path = sorted(p for p in glob.glob("tests/fixtures/xgboost/binary-*.json") if not p.endswith(".expected.json"))[-1]
    model = import_file(path)
    results = verify(model, None, ["sql"], ["sqlite", "mysql", "duckdb"], dsns={"mysql": mysql_server})
    assert all(r.ok for r in results), [r.line() for r in results]
    assert all(r.note is None for r in results), [r.line() for r in results]
    saved = tmp_path / "xgboost.json"
    treegen_cli("import", path, "-o", str(saved), check=True)
    exported = treegen_cli("export", str(saved), "--to", "sql", "--dialect", "sqlite")
    assert exported.returncode == 0 and exported.stdout.startswith("WITH"), exported.stderr
    assert exported.stderr == ""
    exported = treegen_cli("export", str(saved), "--to", "sql", "--dialect", "sqlite", "--expression")
    # (the steps inside the subquery that reads the row's columns as treegen reads a CSV: Writer.read_once)
    assert exported.returncode == 0 and exported.stdout.startswith("(SELECT (WITH"), exported.stderr
    assert exported.stderr == NOTE_SUBQUERY


def test_a_float32_sum_that_overflows_in_the_model_overflows_in_sqlite():
    """Two leaves of 3e38 sum to inf in float32 (the model), and in SQLite's query, which rounds each step to
    float32 in double arithmetic (before, it added in double: 6e38)."""
    base = random_model(3, regression=True, n_trees=2, n_nominal=0)
    model = replace(base, combine=Combine("sum", init=(0.0,), precision="float32"))
    for tree in model.trees:
        for node in tree.nodes:
            if node.is_leaf:
                node.value = (3e38,)
    [result] = verify(model, None, ["sql"], ["sqlite"])
    assert result.ok and result.note is None, result.line()

def test_a_float32_sum_that_overflows_in_the_model_overflows_in_duckdb(tmp_path):
    """The same in DuckDB, a query and an --expression, leaves of 3e38 and -3e38: its FLOAT cast raised an error
    for a finite double that float32 rounds to infinity ("out of range": sqlfuzz); a float32 sum is a fold whose
    step gives the infinity there."""
    base = random_model(3, regression=True, n_trees=3, n_nominal=0)
    model = replace(base, combine=Combine("sum", init=(0.0,), precision="float32"))
    for tree in model.trees:
        for number, node in enumerate(tree.nodes):
            if node.is_leaf:
                node.value = (3e38 if number % 3 else -3e38,)
    import math
    from treegen.targets import emit
    expression = tmp_path / "expression.sql"
    expression.write_text(emit(model, "sql", dialect="duckdb", expression=True), encoding="utf-8")
    results = verify(model, None, ["sql"], ["duckdb"], programs=[str(expression)])
    assert all(r.ok for r in results), [r.line() for r in results]
    assert any(math.isinf(v) for _, (v,) in predict_rows(model, probe_rows(model)))  # (the sums overflow)


def test_mysql_leaves_out_the_data_rows_with_an_infinity(mysql_server, tmp_path):
    """MySQL's DOUBLE holds no infinity: the data rows that have one are left out of its line, which
    says how many, instead of failing the whole dialect; other dialects run them."""
    model = random_model(2, n_nominal=0)
    data = tmp_path / "rows.csv"
    data.write_text("x0,x1,x2\n1,2,3\ninf,2,3\n1,-inf,3\n")
    mysql, sqlite = verify(model, str(data), ["sql"], ["mysql", "sqlite"], dsns={"mysql": mysql_server})
    assert mysql.ok, mysql.line()
    assert (mysql.rows.data, sqlite.rows.data) == (1, 3)
    assert mysql.line().endswith(f"(1 from the data, {mysql.rows.probes} probes; 2 data rows with an infinite "
                                 "number left out: mysql has no infinity)"), mysql.line()
    assert sqlite.ok and "left out" not in sqlite.line(), sqlite.line()


def test_rows_left_out_keep_the_numbers_of_the_rows_after_them(mysql_server, tmp_path):
    """A mismatch names its row by its number among every row checked (the probes, then the data), whichever
    rows a line leaves out: MySQL's line, without the rows that hold an infinity, numbered the rows it kept one
    after the other, so a row after one left out had another number than in SQLite's line."""
    model = random_model(2, n_nominal=0)
    wrong = replace(model, trees=[replace(model.trees[0], nodes=[replace(node, value=node.value[::-1])
                                                               for node in model.trees[0].nodes])])
    data = tmp_path / "rows.csv"
    rows = random_rows(model, 60, seed=3, missing=0.0)
    for row in rows[::4]:
        row["x1"] = float("inf")
    data.write_text(to_csv(model, rows), encoding="utf-8")
    from treegen.targets import emit
    results = {}
    for dialect, dsns in (("mysql", {"mysql": mysql_server}), ("sqlite", {})):
        path = tmp_path / f"{dialect}.sql"
        path.write_text(emit(wrong, "sql", dialect=dialect), encoding="utf-8")
        [results[dialect]] = verify(model, str(data), [], [dialect], programs=[str(path)], dsns=dsns)
    mysql, sqlite = results["mysql"], results["sqlite"]
    assert "infinite number left out" in mysql.line() and "left out" not in sqlite.line(), mysql.line()
    assert mysql.mismatches and set(mysql.mismatches) < set(sqlite.mismatches), \
        sorted(set(mysql.mismatches) - set(sqlite.mismatches))[:2]


def test_repeated_to_and_dialect_options_add_up(tmp_path):
    """`--dialect sqlite --dialect duckdb` runs both, as `--dialect sqlite,duckdb` does (and so for --to)."""
    model = tmp_path / "tennis.json"
    treegen_cli("train", "examples/play_tennis.csv", "--target", "play", "--algorithm", "id3", "-o", str(model),
                check=True)
    result = treegen_cli("verify", str(model), "--to", "python", "--to", "sql", "--dialect", "sqlite", "--dialect",
                         "duckdb")
    assert result.returncode == 0, result.stdout + result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()] == ["python", "sql/sqlite", "sql/duckdb"]


# -- bit for bit, or within what an importer declares -------------------------------------------

def test_a_program_one_ulp_off_is_a_mismatch():
    """A program's numbers are compared bit for bit: one ulp off (a value, a probability) or the other
    zero is a MISMATCH naming the row and both values; the same doubles agree."""
    import math
    from treegen.importers import import_file
    from treegen.verifier import differences
    regression = import_file("tests/fixtures/lightgbm/4.7.0/regression.txt")
    rows = probe_rows(regression)[:3]
    want = [regression.predict(row) for row in rows]
    assert compare(regression, rows, "".join(repr(v) + "\n" for v in want), None) == []
    up = math.nextafter(want[1], math.inf)
    off = "".join(repr(up if i == 1 else v) + "\n" for i, v in enumerate(want))
    assert compare(regression, rows, off, None) == [f"row 2 {rows[1]}: model {want[1]!r}, got {repr(up)!r}"]
    assert differences(regression, rows[:1], [("-0.0", None)], [(0.0, [0.0])]) == [
        f"row 1 {rows[0]}: model 0.0, got '-0.0'"]
    classifier = fit(load_dataset(WEKA + "iris.arff"), "cart")
    rows = probe_rows(classifier)[:2]
    answers = [(classifier.predict(row), list(classifier.scores(row))) for row in rows]
    got = [(label, [repr(p) for p in scores]) for label, scores in answers]
    assert differences(classifier, rows, got, answers) == []
    nudged = [got[0], (got[1][0], [repr(math.nextafter(answers[1][1][0], 2.0))] + got[1][1][1:])]
    [problem] = differences(classifier, rows, nudged, answers)
    assert problem == f"row 2 {rows[1]}: model {answers[1][0]!r} {answers[1][1]}, got {answers[1][0]!r} {nudged[1][1]}"


def test_the_texts_of_the_models_answers_agree_as_their_numbers_read_do():
    """verify judges a printed row that is the text of the model's answer (its label, its numbers' repr) at once,
    with no number read (Expected.texts); every other text is read and compared bit for bit: the judgement the
    same either way, an ulp, the other zero, another spelling of the same number, NaN and NULL included."""
    import math
    from treegen.importers import import_file
    from treegen.model import Tolerance
    from treegen.verifier import Expected, judged
    classifier = fit(load_dataset(WEKA + "iris.arff"), "cart")
    regression = import_file("tests/fixtures/lightgbm/4.7.0/regression.txt")
    spellings = [lambda x: repr(x), lambda x: f"{x:.17g}", lambda x: repr(-x), lambda x: repr(math.nextafter(x, 9)),
                 lambda x: "NaN", lambda x: "", lambda x: repr(x) + " "]
    for model in (classifier, regression):
        rows = probe_rows(model, limit=40, aimed=40)
        answers = [(model.predict(row), list(model.scores(row))) for row in rows]
        answers[:2] = [(answers[0][0], [-0.0 * s for s in answers[0][1]]), (answers[1][0], [math.nan] * 3)]
        if not model.target.is_classification:
            answers[:2] = [(-0.0, []), (math.nan, [])]
        got = []
        for i, (want, scores) in enumerate(answers):
            spell = spellings[i % len(spellings)]
            label = want if model.target.is_classification else spell(want)
            got.append((label, [spell(s) for s in scores] if model.target.is_classification else None))
        got += [(want if model.target.is_classification else repr(want),
                 [repr(s) for s in scores] if model.target.is_classification else None) for want, scores in answers]
        rows, answers = rows + rows, answers + answers
        for options in ({}, {"tolerance": Tolerance(1e-15, "a library's exp")}, {"empty": math.nan}):
            assert judged(model, rows, got, Expected(answers), **options) == judged(model, rows, got, answers, **options)
        problems, _ = judged(model, rows, got, Expected(answers))
        assert 0 < len(problems) < len(rows) // 2


def test_a_declared_tolerance_counts_the_rows_it_lets_through():
    """judged: within an importer's Tolerance a row agrees, counted apart from the bit-for-bit ones;
    beyond it, or with another label, it is a problem."""
    import math
    from treegen.model import Tolerance
    from treegen.verifier import judged
    model = fit(load_dataset(WEKA + "iris.arff"), "cart")
    rows = probe_rows(model)[:4]
    answers = [(model.predict(row), list(model.scores(row))) for row in rows]
    off = [(label, [math.nextafter(scores[0], 2.0)] + scores[1:]) for label, scores in answers]
    far = (answers[2][0], [answers[2][1][0] + 1e-9] + answers[2][1][1:])
    other = ("Iris-virginica" if answers[3][0] != "Iris-virginica" else "Iris-setosa", answers[3][1])
    tolerance = Tolerance(1e-15, "its softmax takes numpy's exp")
    assert judged(model, rows, answers, answers, tolerance) == ([], 0)
    assert judged(model, rows, [answers[0], off[1], answers[2], answers[3]], answers, tolerance) == ([], 1)
    problems, close = judged(model, rows, [off[0], off[1], far, other], answers, tolerance)
    assert close == 2 and [p.split(": model")[0] for p in problems] == [f"row 3 {rows[2]}", f"row 4 {rows[3]}"]
    assert judged(model, rows, off, answers)[1] == 0 and len(judged(model, rows, off, answers)[0]) == 4


def test_gradient_boosting_of_three_classes_against_scikit_learn(tmp_path):
    """scikit-learn's softmax takes numpy's exp, which on CPUs with AVX-512 differs from the C library's
    in the last bit on a few inputs: the library's line says how many rows agree only within the
    declared tolerance (0 where numpy's exp is the C library's: then it says bit for bit)."""
    import re
    import skops.io
    from sklearn.datasets import make_classification
    from sklearn.ensemble import GradientBoostingClassifier
    X, y = make_classification(400, 4, n_informative=3, n_redundant=0, n_classes=3, random_state=1)
    path, out = tmp_path / "gbc.skops", tmp_path / "gbc.json"
    skops.io.dump(GradientBoostingClassifier(n_estimators=15, random_state=0).fit(X, y), str(path))
    treegen_cli("import", str(path), "-o", str(out), check=True)
    done = treegen_cli("verify", out, "--to", "python", "--against", path)
    assert done.returncode == 0, done.stdout + done.stderr
    line = done.stdout.splitlines()[0]
    why = "its softmax takes numpy's exp"
    refused = r"(?:; \d+ probes left out, which scikit-learn refuses: Input X contains [^;]*?)*"  # infinity, NaN
    match = re.fullmatch(rf"scikit-learn itself ok        (\d+) rows agree \(\1 probes{refused}\); "
                         rf"(?:([1-9]\d*) within 1e-15 of the library's, not bit for bit: {why}"
                         rf"|bit for bit \(1e-15 allowed: {why}\))", line)
    assert match and int(match[2] or 0) < int(match[1]), line


@pytest.mark.parametrize("model", [XGB_FIXTURES + "multiclass-3.2.0.json", XGB_FIXTURES + "vector_leaves-3.2.0.ubj",
                                   "tests/fixtures/lightgbm/4.7.0/multiclass.txt",
                                   "tests/fixtures/lightgbm/4.7.0/poisson.txt"])
def test_xgboost_and_lightgbm_agree_with_themselves_bit_for_bit(tmp_path, model):
    """No tolerance is declared for XGBoost and LightGBM: their own predict agrees bit for bit, softmax
    and exp included, and the line says no more than that (and the rows XGBoost refuses)."""
    import re
    out = tmp_path / "model.json"
    treegen_cli("import", model, "-o", str(out), check=True)
    done = treegen_cli("verify", out, "--to", "python", "--against", model)
    assert done.returncode == 0, done.stdout + done.stderr
    library = "XGBoost" if "xgboost" in model else "LightGBM"
    refused = (r"(?:; \d+ probes left out, which XGBoost refuses: a value infinite in float32 \(±inf, or beyond "
               r"±3.4e38\))?")
    assert re.fullmatch(rf"{library} itself +ok        \d+ rows agree \(\d+ probes{refused}\)",
                        done.stdout.splitlines()[0]), done.stdout


def test_an_engine_whose_exp_is_not_glibcs_is_held_within_its_declared_tolerance():
    """Spark's EXP is Java's Math.exp, 1 to 8 ulps off glibc's on some inputs: its scores of a link in
    double are held within the dialect's declared tolerance, the rows that need it counted in its line;
    every other engine, and a float32 link (expf written out in SQL), bit for bit."""
    from test_emit_sql import boosted_model, float32_model
    from treegen.emit.sql import tolerance
    model = boosted_model(3, "softmax")
    assert tolerance(model, "sqlite") is None and tolerance(float32_model(model), "spark") is None
    spark, sqlite = verify(model, None, ["sql"], ["spark", "sqlite"])
    assert spark.ok and spark.note.endswith("of the model's, not bit for bit: Spark's EXP is Java's Math.exp, "
                                            "not glibc's exp"), spark.line()
    assert int(spark.note.split()[0]) > 0, spark.line()  # some rows differ in their last bits
    assert sqlite.ok and sqlite.note is None, sqlite.line()


@pytest.mark.parametrize("target", ["python", "java", "javascript", "c", "sql", "rules"])
def test_blank_lines_in_the_input_change_no_target_s_answers(target):
    """Each target's own reading of CSV text (a program's, or data.py's for SQL and the rules): blank
    lines -- after the header, between records, several, CRLF and CR, at the end -- are no records."""
    from treegen.data import parse_csv, to_dataset
    from treegen.targets import TARGETS
    model = fit(to_dataset(parse_csv("n,c,y\n" + "".join(f"{n},{c},{'p' if n < 2 else c}\n"
                                                         for n in range(5) for c in "ab"))), "cart")
    records = ["n,c", "1,a", "3,b", ",a", "4,", '3,"b"']
    blank = "\n\n".join(records[:2]) + "\r\n\r\n\r" + "\n\n\n".join(records[2:]) + "\n\n"
    dialect = {"dialect": "sqlite"} if target == "sql" else {}
    proba = {"proba": True} if "proba" in TARGETS[target].option_names() else {}
    text = TARGETS[target].emit(model, **proba, **dialect)
    for args in ([], ["--proba"]):
        expected = TARGETS[target].run(text, "\n".join(records) + "\n", args, model=model, **dialect)
        assert TARGETS[target].run(text, blank, args, model=model, **dialect) == expected
        assert len(expected.splitlines()) == len(records) - 1 + len(args)
        assert len(set(expected.splitlines()[len(args):])) > 1  # rows told apart: the file is read


# A nominal feature with a category spelt as CSV's missing value, as an ARFF file may declare it; '?' quoted is
# a category too, and ' NA ' (the CSV strips spaces around a missing token).
SPELT_MISSING_ARFF = """@relation spelt
@attribute x {NA,'?',' NA ',a,b}
@attribute z {p,q}
@attribute class {yes,no}
@data
NA,p,yes
NA,q,yes
'?',p,yes
' NA ',q,yes
a,p,no
a,q,no
a,p,no
b,p,yes
b,q,no
b,q,no
"""
SPELT_MISSING_WARNING = (
    "treegen: warning: a CSV cannot carry the categories 'NA', '?', ' NA ' of feature 'x': an empty field, '?' or "
    "'NA' (spaces around them aside) reads as missing, so a CSV row with one of them predicts as a row with the value missing (verify checks it "
    "so); through the generated code's APIs (a Python dict or list, Java, ...) the categories work\n")


def test_a_category_spelt_as_a_missing_value_is_checked_as_the_csv_reads_it(tmp_path):
    """The CSV every target reads carries the category 'NA' as a missing value: verify expects the model's
    answer for a missing value there, on its probes and on the rows of an ARFF file that holds 'NA', and
    warns once that a CSV cannot carry the category."""
    data, model = tmp_path / "spelt.arff", tmp_path / "spelt.json"
    data.write_text(SPELT_MISSING_ARFF, encoding="utf-8")
    treegen_cli("train", str(data), "--algorithm", "id3", "-o", str(model), check=True)
    done = treegen_cli("verify", str(model), str(data), "--to", "python,java,sql,rules", "--dialect", "sqlite")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line.split()[:2] for line in done.stdout.splitlines()] == [
        ["python", "ok"], ["java", "ok"], ["sql/sqlite", "ok"], ["rules", "ok"]], done.stdout
    assert done.stderr == SPELT_MISSING_WARNING


def test_the_answer_expected_for_a_category_the_csv_reads_as_missing_is_the_models_missing_answer(tmp_path):
    from treegen.data import read_table, rows_for_model
    from treegen.verifier import as_csv_reads
    from treegen.walk import predict_rows
    path = tmp_path / "spelt.arff"
    path.write_text(SPELT_MISSING_ARFF, encoding="utf-8")
    model = fit(load_dataset(str(path)), "id3")
    rows = probe_rows(model) + rows_for_model(read_table(str(path)), model)
    spelt = [row for row in rows if row["x"] in ("NA", "?", " NA ")]
    assert len(spelt) > 4  # probes and the file's rows
    read = as_csv_reads(model, spelt)
    assert read == [{**row, "x": None} for row in spelt]
    missing = [(model.predict({**row, "x": None}), model.scores({**row, "x": None})) for row in spelt]
    assert [(label, list(scores)) for label, scores in predict_rows(model, read)] == missing
    # through the API each category is answered as itself
    assert all(model.scores(row) != scores for row, (_, scores) in zip(spelt, missing))
    others = [row for row in rows if row not in spelt]
    assert as_csv_reads(model, others) == others
    assert all(result.ok for result in verify(model, str(path), ["python", "rules"])), "verify agrees"


def test_only_a_category_that_changes_predictions_is_warned_of():
    from treegen.data import parse_csv, to_dataset, uncarried_categories_warning
    from treegen.model import NOMINAL, Feature
    model = fit(to_dataset(parse_csv("c,d,y\na,u,p\nb,u,q\na,v,p\nb,v,q\n")), "id3")  # d tests nothing
    assert model.used_features() == [0] and uncarried_categories_warning(model) is None
    unused = replace(model, features=(model.features[0], Feature("d", NOMINAL, ("NA", "v"))))
    assert uncarried_categories_warning(unused) is None
    used = replace(model, features=(Feature("c", NOMINAL, ("a", "")), model.features[1]))
    assert uncarried_categories_warning(used).startswith("a CSV cannot carry the category '' of feature 'c': ")


def test_a_library_category_spelt_as_a_missing_value_agrees_against_the_library(tmp_path):
    """A LightGBM model of pandas categories 'NA' and '?': its own predict is given the rows as they are (the
    category itself, which the label depends on), the targets the CSV that carries them as missing; each
    is held to the model's answers for the rows it was given."""
    import lightgbm
    import numpy as np
    import pandas as pd
    from treegen.importers import import_file
    rng = np.random.default_rng(0)
    x, z = rng.choice(["NA", "a", "b", "?"], 400), rng.normal(size=400)
    frame = pd.DataFrame({"x": pd.Categorical(x, categories=["NA", "a", "b", "?"]), "z": z})
    path = str(tmp_path / "lightgbm.txt")
    lightgbm.LGBMClassifier(n_estimators=5, min_child_samples=5, min_data_per_group=5, cat_smooth=1, verbose=-1).fit(
        frame, (x == "NA") | (z > 0.5)).booster_.save_model(path)
    model = import_file(path)
    results = verify(model, None, ["python", "sql"], ["sqlite"], against=path)
    assert [(r.target, r.ok) for r in results] == [("LightGBM itself", True), ("python", True), ("sql/sqlite", True)], \
        [r.line() for r in results]


def test_export_notes_an_expression_of_scalar_subqueries_only_where_it_writes_one(tmp_path):
    """PostgreSQL's float32 expression is a subquery where inlining would double an output (--proba: expf reads
    the sum about ten times), not its label alone (the sum against a cut): `export` notes the one only."""
    model = XGB_FIXTURES + "binary-3.2.0.json"
    export = ["export", model, "--to", "sql", "--dialect", "postgres", "--expression"]
    alone = treegen_cli(*export)
    assert alone.returncode == 0 and "(WITH" not in alone.stdout and alone.stderr == "", alone.stderr
    proba = treegen_cli(*export, "--proba")
    assert proba.returncode == 0 and proba.stdout.count("(WITH ") == 2, proba.stderr
    assert proba.stderr == NOTE_SUBQUERY.replace("sqlite:", "postgres:")


def test_a_statement_end_is_found_after_spark_s_escaped_quotes_and_a_line_of_dashes():
    """Spark writes a quote in a literal as \\' (a class 'it\\'s'): read with quotes doubled, every later literal was
    out of step, and a ';' then inside one was kept (the query "a syntax error"). A ';' followed by a line of '--' and
    more SQL is no end: the comments' pattern backtracked exponentially in the line's '--' (16: 2.5 s, 20: over a
    minute; verify of a Spark expression of such a class, whose hostile name held '; --', hung)."""
    from treegen.run.sql import as_query
    from treegen.model import NUMERIC, Feature
    model = replace(chain_model(5), features=(Feature("x", NUMERIC),))
    expression = "CASE WHEN `x` > 1.0D THEN 'it\\'s' END"
    assert as_query(expression + ";\n-- it's the model\n", model, "input", "spark") == \
        f"SELECT `x`, {expression}\nFROM `input`"
    dashes = "1;" + " --" * 40 + "\n+ 1"
    assert as_query(dashes, model, "input", "sqlite") == f'SELECT "x", {dashes}\nFROM "input"'


def test_a_statement_end_is_cut_only_outside_names_literals_and_comments(tmp_path):
    """--program's expression loses a ';' and the comments after it, but not a ';--' inside a quoted name (a
    feature named 'x;--': the runner cut the expression there and the file was "a syntax error"; sqlfuzz)."""
    from treegen.run.sql import as_query
    from treegen.targets import emit
    from treegen.model import NUMERIC, Feature
    model = replace(chain_model(5), features=(Feature("x;--", NUMERIC),))
    expression = emit(model, "sql", dialect="sqlite", expression=True)
    assert sum('"x;--"' in line for line in expression.splitlines()) > 1  # to a regex, a comment from ';--' on
    whole = f'SELECT "x;--", {expression.rstrip()}\nFROM "input"'
    for ending in ("", ";", ";\n-- the model\n\n", " ; /* a ; */ ;\n", ";;-- x;--\n"):
        assert as_query(expression + ending, model, "input", "sqlite") == whole, ending
    literal = "CASE WHEN \"x;--\" = 'a;--' THEN 1 END"
    assert as_query(literal, model, "input", "sqlite").endswith(f"{literal}\nFROM \"input\"")
    backquoted = "CASE WHEN `x;--` > 4.0 THEN 1 END"
    assert as_query(backquoted + ";", model, "input", "mysql").endswith(f"{backquoted}\nFROM `input`")
    path = tmp_path / "e.sql"
    path.write_text(expression + ";\n", encoding="utf-8")
    (tmp_path / "rows.csv").write_text("x;--\n" + "".join(f"{v}\n" for v in (-1, 0, 2.5, 4, 4.5, 7, "")))
    result = verify(model, str(tmp_path / "rows.csv"), [], ["sqlite"], programs=[str(path)])[0]
    assert result.ok, result.line()


def test_several_sql_files_on_spark_at_once(spark, tmp_path):
    """verify checks two files at a time, and on Spark each holds the rows in the session's one temporary view
    `input`: neither may replace or drop it under the other's query (one file of four failed with
    TABLE_OR_VIEW_NOT_FOUND in two runs of three, or could have read the other's rows: sqlfuzz)."""
    from treegen import import_model
    from treegen.targets import emit
    model = import_model("tests/fixtures/xgboost/categorical-3.2.0.json")
    paths = []
    for k, options in enumerate([{}, {"leaf": True}, {"expression": True},
                                 {"expression": True, "proba": True, "leaf": True}] * 3):
        paths.append(tmp_path / f"model{k}.sql")
        paths[-1].write_text(emit(model, "sql", dialect="spark", **options), encoding="utf-8")
    results = verify(model, None, [], ["spark"], leaf=True, programs=[str(path) for path in paths])
    assert len(results) == len(paths) and all(r.ok for r in results), [r.line() for r in results]


@pytest.mark.slow
def test_an_expression_file_that_adds_a_long_sum_in_groups_is_within_its_stated_bound(tmp_path):
    """An ANSI --expression of a model of more than 100 trees adds its sum in groups (no steps to name partial
    sums in): within 1e-12, as the README says, which `verify --program` allows and says (it said MISMATCH for
    the last ulps); the same model's query, which names partial sums, is bit for bit."""
    import treegen
    # stumps: the sum's length is the point (DuckDB plans the ANSI nested CASEs of 110 trees of depth 3 in 2.7 s)
    model = replace(random_model(5, regression=True, n_trees=110, max_depth=1),
                    combine=Combine("sum", init=(0.3,), scale=0.1))
    path = tmp_path / "model.sql"
    path.write_text(treegen.export(model, "sql", dialect="ansi", expression=True), encoding="utf-8")
    (line,) = str(treegen.verify(model, None, programs=[str(path)], dialects="duckdb")).splitlines()
    assert " ok " in line and "within 1e-12 of the model's, not bit for bit: an expression may add a sum of more " \
                              "than 100 terms in groups" in line, line
    query = tmp_path / "query.sql"
    query.write_text(treegen.export(model, "sql", dialect="ansi"), encoding="utf-8")
    (line,) = str(treegen.verify(model, None, programs=[str(query)], dialects="duckdb")).splitlines()
    assert line.split()[1] == "ok" and "within" not in line, line


def deep_split_model():
    """x0 > 0.5 and x1 > 0.5 ... and x6 > 0.5 lead to a split on x7 (its missing values right) and one on c: no row
    that varies one feature with the others at their first choice reaches them, and few random rows do."""
    from treegen.model import NOMINAL, NUMERIC, REGRESSION, Feature, MissingRoute, Model, Node, Op, Split, Target, Tree
    nodes = []
    for i in range(7):  # node 2i splits, 2i + 1 is a leaf, 2i + 2 the next split
        nodes += [Node((0.0,), split=Split(i, Op.LE, 0.5, missing=MissingRoute.to_child(0)), children=(2 * i + 1, 2 * i + 2)),
                  Node((float(i),))]
    nodes += [Node((0.0,), split=Split(7, Op.LE, 2.5, missing=MissingRoute.to_child(1)), children=(15, 16)),
              Node((10.0,), split=Split(8, Op.IN, values=("a", "b"), missing=MissingRoute.to_child(1)), children=(17, 18)),
              Node((20.0,)), Node((30.0,)), Node((40.0,))]
    features = tuple(Feature(f"x{i}", NUMERIC) for i in range(8)) + (Feature("c", NOMINAL, ("a", "b", "c", "d")),)
    return Model(features, Target("y", REGRESSION), [Tree(nodes)])


@pytest.mark.parametrize("change", [("x[7] <= 2.5:", "x[7] < 2.5:"), ("x[7] <= 2.5:", "not x[7] > 2.5:"),
                                    ("x[7] <= 2.5:", "x[7] <= 2.5000000000000004:"), ("{'a', 'b'}", "{'a'}"),
                                    ("{'a', 'b'}", "{'a', 'b', 'c'}")])
def test_a_program_wrong_at_a_deep_split_is_a_mismatch(tmp_path, change):
    """A program wrong at a split deep in its tree (a comparison made strict, the missing route flipped, the
    threshold moved one ulp, a category dropped or added) is caught: the probes reach every split with its own
    feature either side of its cut, at each category, and missing."""
    from treegen.modelio import save
    model, program = tmp_path / "deep.json", tmp_path / "deep.py"
    save(deep_split_model(), str(model))
    treegen_cli("export", str(model), "--to", "python", "-o", str(program), check=True)
    assert treegen_cli("verify", str(model), "--program", str(program)).returncode == 0
    text = program.read_text(encoding="utf-8")
    assert change[0] in text
    program.write_text(text.replace(change[0], change[1], 1), encoding="utf-8")
    done = treegen_cli("verify", str(model), "--program", str(program))
    assert done.returncode == 1 and " MISMATCH " in done.stdout, done.stdout + done.stderr


def test_an_error_in_a_program_file_names_the_file_once(tmp_path):
    """A rule file that `treegen parse` refuses is refused by verify --program in parse's one line, the file named
    once (it was 'treegen: error: t.rules: t.rules:15:6: ...')."""
    model, rules = str(tmp_path / "t.json"), tmp_path / "t.rules"
    treegen_cli("train", "examples/play_tennis.csv", "-a", "id3", "-o", model, check=True)
    treegen_cli("export", model, "--to", "rules", "-o", str(rules), check=True)
    rules.write_text(rules.read_text(encoding="utf-8").replace("tree 1", "tree 2"), encoding="utf-8")
    parsed = treegen_cli("parse", str(rules))
    done = treegen_cli("verify", model, "--program", str(rules))
    assert (done.returncode, done.stdout) == (2, ""), done.stdout + done.stderr
    assert done.stderr == parsed.stderr and done.stderr.count(str(rules)) == 1, done.stderr
    assert re.fullmatch(rf"treegen: error: {re.escape(str(rules))}:\d+:6: expected tree 1, found tree 2: .*\n",
                        done.stderr), done.stderr


def test_a_program_file_that_is_not_there_is_named_once_with_the_reason(tmp_path):
    """verify --program of a file that is not there: one line, the path once and the reason (it was '--program
    x.py: cannot read it ([Errno 2] No such file or directory: 'x.py')')."""
    model = str(tmp_path / "t.json")
    treegen_cli("train", "examples/play_tennis.csv", "-a", "id3", "-o", model, check=True)
    done = treegen_cli("verify", model, "--program", "nothere.py")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == "treegen: error: --program nothere.py: cannot read it (No such file or directory)\n"


def _case_of_many_rows(tmp_path, rows: int, missing: int = 17):
    """A CART model of three classes over three numeric features (every ``missing``-th value missing), and a CSV of
    its rows."""
    import numpy as np
    rng = np.random.default_rng(7)
    x = rng.normal(size=(rows, 3)).round(3)
    labels = np.array(["a", "b", "c"])[(x[:, 0] > 0.2).astype(int) + (x[:, 1] > -0.4)]
    lines = [",".join("" if (i + j + 1) % missing == 0 else repr(float(v)) for j, v in enumerate(row)) + "," + label
             for i, (row, label) in enumerate(zip(x, labels))]
    data = tmp_path / "many.csv"
    data.write_text("x0,x1,x2,y\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return fit(load_dataset(str(data)), "cart"), str(data)


def test_a_data_file_checked_a_part_at_a_time_gives_the_lines_of_it_checked_at_once(tmp_path, monkeypatch):
    """verify reads a data file a part at a time (treegen.data.ROWS_A_PART rows) and checks every target on each
    part: its lines, counts, notes and the rows its mismatches name (and their leaf ids) are those of the file
    checked at once, a program's row APIs checked on the first data rows, a wrong program too."""
    import treegen
    import treegen.verifier
    from treegen.run import row_api
    from treegen.targets import emit
    model, data = _case_of_many_rows(tmp_path, 60)
    wrong = tmp_path / "wrong.py"
    text = emit(model, "python", proba=True, leaf=True)
    assert "    'a',\n    'b',\n" in text
    wrong.write_text(text.replace("    'a',\n    'b',\n", "    'b',\n    'a',\n", 1), encoding="utf-8")  # a for b
    wrong_leaf = tmp_path / "wrong_leaf.py"  # each leaf's id printed one more
    assert text.count("str(node) for node in nodes") == 1
    wrong_leaf.write_text(text.replace("str(node) for node in nodes", "str(node + 1) for node in nodes"),
                          encoding="utf-8")
    monkeypatch.setattr(row_api, "DATA_ROWS", 5)
    reports = []
    for rows in (7, 10 ** 9):
        monkeypatch.setattr(treegen.verifier, "ROWS_A_PART", rows)
        reports.append(treegen.verify(model, data, to=["python", "c", "sql", "rules"], dialects="sqlite", leaf=True,
                                      programs=[str(wrong), str(wrong_leaf)]))
    parts, whole = reports
    assert str(parts) == str(whole) and [r.mismatches for r in parts.results] == [r.mismatches for r in
                                                                                   whole.results]
    lines = str(whole).splitlines()
    assert all("(60 from the data" in line for line in lines), lines
    assert "the dict API on the first 5 data rows of 60" in lines[0] and "first 5 data rows of 60" in lines[1]
    for result in whole.results[-2:]:
        assert " MISMATCH " in result.line() and result.mismatches[-1].startswith("row ")
        assert int(result.mismatches[-1].split()[1]) > len(probe_rows(model)) + 7  # a row of a later part
    assert "model's leaf ids" in whole.results[-1].mismatches[-1]


def test_the_lines_of_two_parts_add_up():
    """A line over two parts: its rows and the rows it left out (by reason) added, its mismatches in turn, a note of
    counts added (rows within a tolerance, how far computed scores are, the rows a row API answered), a text
    said once; a line that failed on a part stays failed."""
    from treegen.model import Tolerance
    from treegen.verifier import Apart, ApiRows, Result, Rows, Tolerated
    tolerance = Tolerance(1e-15, "its exp")
    one = Result("python", Rows(10, 5, (("left out, which X refuses: inf", 1, 2),)), ["row 3 ..."],
                 notes=(Tolerated(tolerance, 2), Apart("float32 sums", 1e-9), ApiRows("the dict API", 5, 5),
                        "labels only"))
    two = Result("python", Rows(0, 7, (("left out, which X refuses: nan", 0, 1), ("left out, which X refuses: inf",
                                                                                 0, 3))), ["row 19 ..."],
                 notes=(Tolerated(tolerance, 1), Apart("float32 sums", 3e-9), ApiRows("the dict API", 0, 7),
                        "labels only"))
    both = one + two
    assert both.rows == Rows(10, 12, (("left out, which X refuses: inf", 1, 5), ("left out, which X refuses: nan", 0,
                                                                                  1)))
    assert str(both.rows) == ("12 from the data, 10 probes; 1 probe and 5 data rows left out, which X refuses: inf; "
                              "1 data row left out, which X refuses: nan")
    assert both.mismatches == ["row 3 ...", "row 19 ..."]
    assert both.note == ("3 within 1e-15 of the library's, not bit for bit: its exp; float32 sums, as the SQL does; "
                         "scores within 3.0e-09 of the model's (relative above 1); the dict API on the first 5 data "
                         "rows of 12; labels only")
    assert (one + Result("python", Rows(0, 7), error="it broke")).error == "it broke"
    assert (Result("python", Rows(10, 5), error="it broke") + two).rows == Rows(10, 5)


def test_a_big_data_file_is_checked_in_the_memory_of_a_part(tmp_path, monkeypatch):
    """verify holds one part of a data file at a time: the peak of Python's memory checking 24,000 rows in parts of
    2,000 is a fraction of checking them at once (the rows as dicts, their CSV, the model's answers, the outputs:
    8 against 51 MB)."""
    import tracemalloc

    import treegen.data
    import treegen.verifier
    model, data = _case_of_many_rows(tmp_path, 24_000, missing=10 ** 9)
    monkeypatch.setattr(treegen.data, "_BLOCK", 1 << 16)  # read 64 kB at a time: the file as a big one is read
    verify(model, None, ["python", "rules"])  # what is imported the first time, not measured
    peaks = []
    for rows in (2_000, 10 ** 9):
        monkeypatch.setattr(treegen.verifier, "ROWS_A_PART", rows)
        tracemalloc.start()
        results = verify(model, data, ["python", "rules"])
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert all(r.ok for r in results) and results[0].rows.data == 24_000, [r.line() for r in results]
    assert peaks[0] * 4 < peaks[1], peaks


def test_a_check_that_failed_on_a_part_is_not_run_on_the_next(tmp_path, monkeypatch):
    """A line that failed on a part (here the library's own predict, broken) is not checked on the next parts; it is
    reported once, as it was, with the other lines."""
    import numpy as np
    from sklearn.tree import DecisionTreeClassifier

    import treegen
    import treegen.importers.sklearn
    import treegen.verifier
    _, data = _case_of_many_rows(tmp_path, 30, missing=10 ** 9)
    x = np.loadtxt(data, delimiter=",", skiprows=1, usecols=(0, 1, 2))
    y = np.loadtxt(data, delimiter=",", skiprows=1, usecols=3, dtype=str)
    clf = DecisionTreeClassifier(random_state=0).fit(x, y)
    calls = []

    def broken(*args):
        calls.append(args)
        raise RuntimeError("broken")

    monkeypatch.setattr(treegen.importers.sklearn, "oracle", broken)
    monkeypatch.setattr(treegen.verifier, "ROWS_A_PART", 7)
    seen = []
    lines = verify(treegen.from_model(clf), data, ["rules"], report=seen.append, against=clf)
    assert len(calls) == 1 and seen == lines and [line.rows.data for line in lines] == [7, 30], seen
    assert lines[0].error == "RuntimeError: broken" and lines[1].ok, [line.line() for line in lines]
