"""SQLite SQL over TEXT columns, as the sqlite3 shell's ``.import`` makes them from a CSV (every column TEXT, an
empty field ''): the SQL must give the model's answer on the CSV as treegen reads it, or stop with an error.
Compared as they are, texts are compared with the split points as texts ('10' <= '2.5'): a silent wrong answer."""
from __future__ import annotations

import csv
import io
import itertools
import json
import math
import random
import re
import sqlite3
from contextlib import closing
from dataclasses import replace

import numpy as np
import pytest

import treegen
from treegen.data import parse_csv, reads_as_missing, rows_for_model
from treegen.emit.sql.dialects import DIALECTS
from treegen.model import Op, leaf_ids
from treegen.parse.rule_text import parse as parse_rule_text
from treegen.targets import emit
from treegen.walk import predict_rows

FIXTURES = "tests/fixtures/lightgbm/4.7.0"
MISSING = ["", "?", "NA", " NA ", "  ", "nan", "NaN"]
OTHERS = ["1e-320", "-1e-320", "1e400", "-1e400", "inf", "-Infinity", "-0", ".5", "5.", "+2", "1E2", "0e999"]


def cuts(model, feature: int) -> list[float]:
    return sorted({model.numeric.effective_threshold(node.split.threshold) for tree in model.trees
                   for node in tree.nodes if node.split is not None and node.split.feature == feature
                   and node.split.op == Op.LE})


def texts_near(model, feature: int, rnd: random.Random) -> list[str]:
    """Texts a CSV may hold for a numeric feature: each split point to 15 digits and its neighbours in the 15th
    digit, 17-digit numbers between the points (as pandas writes doubles), missing and odd spellings."""
    texts = list(MISSING + OTHERS)
    for cut in cuts(model, feature):
        short = float(f"{cut:.14e}")
        texts += [f"{cut:.14e}", f"{cut:.15g}", repr(short), repr(short + math.ulp(short) * 2 ** 40)]
        mantissa, exponent = f"{cut:.14e}".split("e")
        last = int(mantissa[-1])
        texts += [f"{mantissa[:-1]}{d}e{exponent}" for d in (last - 1, last + 1) if 0 <= d <= 9]
        texts.append(repr(cut * (1 + rnd.uniform(1e-9, 1e-3))))  # far from the point, 17 digits
        texts.append(repr(cut * (1 - rnd.uniform(1e-9, 1e-3))))
    return texts


def csv_of(model, rows: int, seed: int = 0, fixed: dict | None = None) -> str:
    """A CSV of ``rows`` rows for the model's features, each field drawn from :func:`texts_near` (a nominal
    feature's: its categories, missing spellings and an unseen one)."""
    rnd = random.Random(seed)
    choices = []
    for i, feature in enumerate(model.features):
        if feature.is_numeric:
            choices.append(texts_near(model, i, rnd))
        else:
            choices.append(list(feature.categories) + ["", "?", " NA ", "unseen"])
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([f.name for f in model.features])
    for _ in range(rows):
        writer.writerow([(fixed or {}).get(f.name) or rnd.choice(c) for f, c in zip(model.features, choices)])
    return out.getvalue()


def imported(con, text: str, table: str = "t", types: dict | None = None) -> None:
    """The CSV into ``table`` as the sqlite3 shell's ``.import --csv`` puts it into a table it creates: every
    column TEXT, every field its text (``types``: a column's declared type instead)."""
    rows = list(csv.reader(io.StringIO(text)))
    columns = ", ".join(f'"{name}" {(types or {}).get(name, "TEXT")}' for name in rows[0])
    con.execute(f'CREATE TABLE "{table}" ({columns})')
    con.executemany(f'INSERT INTO "{table}" VALUES ({", ".join("?" * len(rows[0]))})', rows[1:])


def expected(model, text: str) -> list:
    """The model's answer for each row of the CSV as treegen reads it."""
    return [answer for answer, _ in predict_rows(model, rows_for_model(parse_csv(text), model))]


def sql_of(model, expression: bool = False) -> str:
    if expression:
        return f"SELECT {emit(model, 'sql', dialect='sqlite', expression=True)} FROM t"
    return emit(model, "sql", dialect="sqlite", table="t")


def sql_answers(model, text: str, expression: bool = False, types: dict | None = None, sql: str | None = None) -> list:
    with closing(sqlite3.connect(":memory:")) as con:
        imported(con, text, types=types)
        return [row[-1] for row in con.execute(sql or sql_of(model, expression))]


def lightgbm_regression():
    return treegen.load(f"{FIXTURES}/regression.txt")


def lightgbm_codes():
    return treegen.load(f"{FIXTURES}/categorical_codes.txt")


def cart_tree(tmp_path):
    rnd = random.Random(3)
    lines = ["x,colour,y,label"]
    for _ in range(300):
        x, y, colour = rnd.uniform(0, 100), rnd.choice([0.5, 2.5, 10, 25, 100]), rnd.choice(["red", "green", "blue"])
        lines.append(f"{x:.3f},{colour},{y},{'yes' if (x > 40) == (colour == 'red') or y > 20 else 'no'}")
    path = tmp_path / "train.csv"
    path.write_text("\n".join(lines) + "\n")
    return treegen.train(str(path), target="label", algorithm="cart")


def forest():
    from sklearn.ensemble import RandomForestRegressor
    rnd = np.random.default_rng(4)
    X = rnd.uniform(-50, 50, size=(400, 3))
    y = np.where(X[:, 0] > 2.5, 10.0, -3.0) + X[:, 1] * 0.3
    return treegen.from_sklearn(RandomForestRegressor(n_estimators=4, max_depth=4, random_state=0).fit(X, y))


@pytest.fixture(params=["lightgbm_regression", "lightgbm_codes", "cart_tree", "forest"])
def model(request, tmp_path):
    make = globals()[request.param]
    return make(tmp_path) if request.param == "cart_tree" else make()


def readable(model, text: str) -> str:
    """The CSV without the rows whose SQL stops with an error (checked apart): those holding a text of more
    than 15 digits within two ulps of a split point."""
    lines, sql = text.splitlines(), sql_of(model)
    kept = [lines[0]]
    for line in lines[1:]:
        try:
            sql_answers(model, lines[0] + "\n" + line + "\n", sql=sql)
        except sqlite3.OperationalError:
            continue
        kept.append(line)
    assert len(kept) > 50
    return "\n".join(kept) + "\n"


def test_text_columns_give_the_models_answers(model):
    text = readable(model, csv_of(model, 200))
    want = expected(model, text)
    assert sql_answers(model, text) == want
    assert sql_answers(model, text, expression=True) == want


def test_typed_columns_give_the_same_answers(model):
    """A REAL column holds the numbers SQLite reads from their texts; the texts it cannot read as numbers ('',
    '?', 'NA') stay text, and are missing."""
    text = readable(model, csv_of(model, 200, seed=1))
    types = {f.name: "REAL" for f in model.features if f.is_numeric}
    assert sql_answers(model, text, types=types) == sql_answers(model, text)


@pytest.mark.parametrize("field", [" 3.5 ", "abc", "1e", "1,5", "0x10"])
def test_a_text_treegen_does_not_read_as_a_number_stops_the_query(field):
    model = lightgbm_regression()
    name = model.features[0].name
    text = csv_of(model, 5, fixed={name: field})
    with pytest.raises(sqlite3.OperationalError, match=f'treegen: the column {name} holds "{field}", not a number'):
        sql_answers(model, text)


@pytest.mark.parametrize("field", ["1\x00", "1e5\x00x", "nan\x00", "\x00"])
def test_a_text_with_a_nul_stops_the_query(field):
    """SQLite's GLOB and json_valid read a text up to its first NUL: '1' || char(0) was read as 1."""
    model = lightgbm_regression()
    name = model.features[0].name
    text = csv_of(model, 5, fixed={name: field})
    with pytest.raises(treegen.TreegenError, match="is not a number"):
        expected(model, text)
    with pytest.raises(sqlite3.OperationalError, match=f"treegen: the column {name} holds "):
        sql_answers(model, text)


def test_a_long_number_at_a_split_point_stops_the_query():
    """SQLite reads a text of more than 15 digits up to an ulp off Python: at a split point (and two ulps either
    side) that could cross it, so the query stops rather than answer."""
    model = lightgbm_regression()
    feature = next(i for i in range(len(model.features)) if any(len(repr(c)) > 17 for c in cuts(model, i)))
    cut = next(c for c in cuts(model, feature) if len(repr(c)) > 17)
    name = model.features[feature].name
    for value in (cut, math.nextafter(cut, math.inf), math.nextafter(cut, -math.inf)):
        with pytest.raises(sqlite3.OperationalError, match="cannot read as the same double"):
            sql_answers(model, csv_of(model, 3, fixed={name: repr(value)}))


# Split points' magnitudes where the look-up of _maybe_near is at its edges: zero and subnormals (NEAR's absolute
# term), a tie of the key's last digit (12345678905), the first double where a key's last digit turns (3.0000000005:
# a magnitude an ulp below it has the key before), the largest double, ordinary ones
EDGE_CUTS = sorted([0.0, 5e-324, 1e-310, 2.2250738585072014e-308, 1e-300, 1e-5, math.nextafter(1e-5, 0), 0.1, 1.0,
                    3.0000000005, 9.9999999995, 12345678905.0, 123456789.05,
                    0.30000000000000004, 1.7976931348623157e308])


def long_texts_near(cut: float) -> list[str]:
    """Texts of 21 significant digits (SQLite's cast reads them, up to an ulp off) at the cut, up to 8 ulps either
    side, and a hair further (1e-13 and 1e-11 of it: near no cut, but near the look-up's keys' edges)."""
    values, up, down = [cut], cut, cut
    for _ in range(8):
        up, down = math.nextafter(up, math.inf), math.nextafter(down, 0.0)
        values += [up, down]
    values += [cut * (1 + f) for f in (1e-13, -1e-13, 1e-11, -1e-11)]
    return [format(v, ".20e") for v in values if math.isfinite(v)]


def test_a_long_number_stops_the_query_exactly_where_a_scan_of_every_split_point_would():
    """The SQL looks a long text's magnitude up among the split points' keys before it scans them (_maybe_near): it
    must stop wherever the scan alone finds a point within NEAR, and answer wherever it finds none."""
    from treegen.emit.sql.dialects import NEAR, sqlite_number_text, sqlite_reads_exactly
    cast, points = "CAST(ltrim(:text, '+-') AS REAL)", json.dumps(EDGE_CUTS)
    scan = (f"SELECT EXISTS (SELECT 1 FROM json_each(:points) WHERE abs(value - {cast}) <= abs(value) * {NEAR[0]!r} + "
            f"{NEAR[1]!r})")
    reading = f"SELECT {sqlite_number_text(':text', repr('x'), EDGE_CUTS)}"
    stops = []
    with closing(sqlite3.connect(":memory:")) as con:
        for text in (t for cut in EDGE_CUTS for t in long_texts_near(cut)):
            near = not sqlite_reads_exactly(text) and con.execute(scan, {"text": text, "points": points}).fetchone()[0] == 1
            try:
                con.execute(reading, {"text": text}).fetchone()
                stopped = False
            except sqlite3.OperationalError as err:
                assert "cannot read as the same double" in str(err)
                stopped = True
            assert stopped == near, text
            stops.append(stopped)
    assert 50 < sum(stops) < len(stops) - 50  # (both answers seen often)


def test_verify_tells_the_rows_that_stop_as_a_scan_of_every_split_point_would():
    """verify leaves out of the SQL's run over TEXT columns the rows it stops by design (sqlite_text_stops), found
    among the split points between two bounds: the same rows as comparing every point."""
    from treegen.emit.sql.dialects import NEAR, sqlite_reads_exactly, sqlite_text_stops
    texts = [t for cut in EDGE_CUTS for t in long_texts_near(cut)] + [format(cut * 2.5, ".20e") for cut in EDGE_CUTS]
    seen = set()
    for text in texts:
        value = float(text)
        scan = not sqlite_reads_exactly(text) and any(abs(abs(value) - cut) <= 2 * (cut * NEAR[0] + NEAR[1])
                                                      for cut in EDGE_CUTS)
        assert sqlite_text_stops(value, text, EDGE_CUTS) == scan, text
        seen.add(scan)
    assert seen == {True, False}



def test_a_number_of_many_digits_goes_straight_to_the_cast_and_none_the_sql_reads_exactly():
    """A number's text of 16 significant digits or more and no exponent (SQLITE_CAST_READ: most of a CSV's doubles,
    as repr and pandas write them) is read by SQLite's cast without its digits and exponent counted: none that the
    SQL reads exactly (zero, Clinger's fast path, beyond every double) may be among them."""
    from treegen.emit.sql.dialects import NUMBER, SQLITE_CAST_READ, sqlite_reads_exactly
    rnd = random.Random(5)
    texts = ["".join(chars) for n in range(1, 7) for chars in itertools.product("0.e19-", repeat=n)]
    for _ in range(20_000):
        digits = "".join(rnd.choice("0000123456789") for _ in range(rnd.randint(12, 40)))
        point = rnd.randint(0, len(digits))
        texts.append(rnd.choice(["", "-", "+"]) + digits[:point] + rnd.choice([".", ""]) + digits[point:]
                     + rnd.choice(["", "", f"e{rnd.randint(-330, 330)}"]))
    texts += ["9" * 299, "9" * 300, "0." + "0" * 280 + "1" * 30, "1" + "0" * 15 + "1", "1" + "0" * 14 + "1"]
    doubles = [repr(rnd.uniform(-1e3, 1e3)) for _ in range(2_000)] + [repr(rnd.random()) for _ in range(2_000)]
    with closing(sqlite3.connect(":memory:")) as con:
        test = f"SELECT {SQLITE_CAST_READ.format(':text')}"
        cast_read = [t for t in texts + doubles if re.fullmatch(NUMBER, t) and con.execute(test, {"text": t}).fetchone()[0]]
    assert not [t for t in cast_read if sqlite_reads_exactly(t)]
    many = [t for t in doubles if len(t.lstrip("-").replace(".", "").strip("0")) >= 16 and "e" not in t]
    assert len(many) > 3_000 and set(many) <= set(cast_read)
    assert len(cast_read) > 10_000

EXTREME_TEXTS = ["1" + "0" * 308, "1" + "0" * 309, "-" + "9" * 400, "0." + "0" * 323 + "1", "0." + "0" * 324 + "1",
                 "1e-99999999999999999999", "-1e99999999999999999999", "12345678901234567890e290", "1" + "0" * 200 + "e100",
                 "0.00000000000000000000000000000000000000001e-290", "1.5e-307", "+2E+308", "1e308", "1e22", "1e23",
                 "123456789012345e-22", "-0.000", "5e-324"]


def test_extreme_numbers_read_as_python_reads_them():
    """A text beyond every double (its digits and exponent together) reads as +-inf or +-0 by the SQL's own
    arithmetic, tested only where the text's length and exponent could reach there (an exponent beyond SQLite's
    integers too); one in Clinger's fast path as its exact double; every other as SQLite's cast."""
    from treegen.emit.sql.dialects import sqlite_number_text, sqlite_reads_exactly
    reading = f"SELECT {sqlite_number_text(':text', repr('x'), [])}, CAST(ltrim(:text, '+-') AS REAL), substr(:text, 1, 1) = '-'"
    exact = 0
    with closing(sqlite3.connect(":memory:")) as con:
        for text in EXTREME_TEXTS:
            got, cast, negative = con.execute(reading, {"text": text}).fetchone()
            want = float(text) if sqlite_reads_exactly(text) else -cast if negative else cast
            exact += sqlite_reads_exactly(text)
            assert got == want, text
    assert exact >= 10


def test_verify_runs_the_sql_over_text_columns_too(monkeypatch, tmp_path):
    """`verify --dialect sqlite` runs the SQL over TEXT columns as well as typed ones: the SQL written as it was
    (each column compared as it is) shows mismatching rows there, the SQL that reads texts none."""
    verify_finds_sqlite_mismatches_without(lightgbm_regression(), "numeric_text", monkeypatch, tmp_path)


def verify_finds_sqlite_mismatches_without(model, field: str, monkeypatch, tmp_path) -> None:
    """`verify --dialect sqlite` finds the model's SQL right, and mismatching rows in its SQL written without the
    dialect's ``field`` (None)."""
    from treegen.emit.sql import DIALECTS as dialects
    from treegen.verifier import verify
    path = tmp_path / "model.sql"
    path.write_text(emit(model, "sql", dialect="sqlite"))
    [result] = verify(model, None, [], ["sqlite"], programs=[str(path)])
    assert result.ok, result.line()
    monkeypatch.setitem(dialects, "sqlite", replace(dialects["sqlite"], **{field: None}))
    path.write_text(emit(model, "sql", dialect="sqlite"))
    [result] = verify(model, None, [], ["sqlite"], programs=[str(path)])
    assert not result.ok and "MISMATCH" in result.line(), result.line()


# -- a nominal feature whose categories name numbers, stored as INTEGER, REAL or TEXT ---------------------------------

# categories that name numbers, some not as their canonical text ('01', '2002.0', '-0': 0.0 names it, 1.0 names '1')
NUMBER_CATEGORIES = ["1001", "2002", "2002.0", "2002.5", "1e-7", "-0", "01", "1", "1e300", "9223372036854775807", "abc"]
# (type, value): each a category's number, an unknown number (2002.25, 5, the next double after 1e-7), texts, NULL
STORED = ([("INTEGER", v) for v in (1001, 2002, 1, 0, 9223372036854775807, 5, -1)]
          + [("REAL", v) for v in (2002.0, 2002.5, 1e-7, -0.0, 0.0, 1e300, 1.0, 1001.0, 2002.25,
                                   math.nextafter(1e-7, 1), 9.223372036854776e18)]
          + [("TEXT", v) for v in ("2002", "2002.0", "01", "1", "1e-7", "1e-07", "-0", "0", "abc", "", "NA", "x")]
          + [("INTEGER", None)])


def numbered(tmp_path, algorithm: str, categories=NUMBER_CATEGORIES):
    """A tree over a nominal column of ``categories``, each a label of its own."""
    lines = ["zip,v,y"] + [f"{c},{j % 2},L{i % 4}" for j in range(4) for i, c in enumerate(categories)]
    path = tmp_path / "numbers.csv"
    path.write_text("\n".join(lines) + "\n")
    return treegen.train(str(path), target="y", algorithm=algorithm, nominal=["zip"])


def test_verify_runs_the_sqlite_sql_over_nominal_numbers_too(monkeypatch, tmp_path):
    """`verify --dialect sqlite` also stores each category that names its number as the number (INTEGER 2002 for
    '2002', as a frame's to_sql does): the SQL that compared the column as it was showed no mismatch over the
    text columns verify loaded, and shows one there."""
    verify_finds_sqlite_mismatches_without(numbered(tmp_path, "c45"), "nominal_number", monkeypatch, tmp_path)


def stored_answers(model, sql: str, answer) -> tuple[list, list]:
    """The SQL's answer (``answer(sql, type, values)``: the answers to a table of the values in a column of the type)
    and the model's for each of :data:`STORED`."""
    kinds = {kind: [value for k, value in STORED if k == kind] for kind, _ in STORED}
    answers = {kind: iter(answer(sql, kind, values)) for kind, values in kinds.items()}
    got = [(kind, value, next(answers[kind])) for kind, value in STORED]
    want = [(kind, value, model.predict({"zip": value if value != "NA" else None, "v": 0})) for kind, value in STORED]
    return got, want


def one_at_a_time(answer):
    """:func:`stored_answers`' ``answer`` from one of a one-row table of the value."""
    return lambda sql, kind, values: [answer(sql, kind, value) for value in values]


@one_at_a_time
def sqlite_answer(sql: str, kind: str, value) -> str:
    with closing(sqlite3.connect(":memory:")) as con:
        con.execute(f"CREATE TABLE t (zip {kind}, v REAL)")
        con.execute("INSERT INTO t VALUES (?, 0)", (value,))
        return con.execute(sql).fetchall()[0][-1]


@pytest.mark.parametrize("algorithm", ["c45", "cart"])
def test_a_nominal_column_of_numbers_gives_the_models_answers(algorithm, tmp_path):
    """A number in a nominal column (an INTEGER column of codes, or REAL, an int column made float by a NaN) is the
    category whose text reads as its double, as Model.predict reads it: INTEGER 2002 and REAL 2002.0 are '2002';
    a number that names none is unknown; a text is itself. Compared as it was, through a derived table that lost
    the column's affinity, INTEGER 2002 <> '2002' (an audit: 0.67 of a to_sql frame's rows agreed)."""
    model = numbered(tmp_path, algorithm)
    assert len({model.predict({"zip": c, "v": 0}) for c in NUMBER_CATEGORIES}) > 2
    for expression in (False, True):
        got, want = stored_answers(model, sql_of(model, expression), sqlite_answer)
        assert got == want


def typed_answer(connect, types: dict, placeholder: str = "?"):
    """:func:`stored_answers`' ``answer`` in a DB-API engine whose columns' types are fixed (``types``: SQLite's
    names to the engine's): each row its own table, since a number column cannot hold a text."""
    @one_at_a_time
    def answer(sql: str, kind: str, value) -> str:
        with closing(connect()) as con:
            cursor = con.cursor()
            cursor.execute(f"CREATE TEMPORARY TABLE t (zip {types[kind]}, v {types['REAL']})")
            cursor.execute(f"INSERT INTO t VALUES ({placeholder}, 0)", (value,))
            cursor.execute(sql.encode() if placeholder == "%s" else sql)
            return cursor.fetchall()[0][-1]
    return answer


@pytest.mark.parametrize("dialect", ["sqlite", "mysql", "duckdb", "postgres", "spark"])
def test_a_query_reads_a_nominal_number_column_once_a_row(dialect, tmp_path):
    """A query's derived table reads the column's number once a row, not each test (an expression at each test:
    a 200-category C4.5 model's DuckDB query was 2.3x the text of one over text, now 1.01x)."""
    from treegen.emit.sql import DIALECTS as dialects
    d = dialects[dialect]
    model = numbered(tmp_path, "c45")
    assert emit(model, "sql", dialect=dialect, table="t").count(d.nominal_number[0].format(d.identifier("zip"))) == 1


def spark_answer(spark):
    """:func:`stored_answers`' ``answer`` in Spark: a view of the values in a typed column, one query a type (a
    query costs Spark about a second; rows come back in order, as treegen.run.sql's Spark runner takes them)."""
    from pyspark.sql.types import DoubleType, LongType, StringType, StructField, StructType
    types = {"INTEGER": LongType(), "REAL": DoubleType(), "TEXT": StringType()}

    def answer(sql: str, kind: str, values) -> list:
        schema = StructType([StructField("zip", types[kind]), StructField("v", DoubleType())])
        spark.createDataFrame([(value, 0.0) for value in values], schema).createOrReplaceTempView("t")
        try:
            return [row[-1] for row in spark.sql(sql).collect()]
        finally:
            spark.catalog.dropTempView("t")
    return answer


@pytest.mark.parametrize("numbers_only", [False, True])
@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "spark"])
def test_a_number_column_of_a_nominal_feature_in_a_typed_engine(dialect, numbers_only, tmp_path, request):
    """DuckDB, PostgreSQL and Spark cast a category literal to the number column's type: '01' and '2002.0' equal 1
    and 2002 where the model reads '1' and '2002' (a wrong answer), a category that is no such number stops the
    query ('abc' as DOUBLE, '1e300' or '2002.0' as BIGINT). The column read by its type, as in SQLite, gives the
    model's answers."""
    if dialect == "spark":
        answer = spark_answer(request.getfixturevalue("spark"))
    elif dialect == "duckdb":
        import duckdb
        answer = typed_answer(duckdb.connect, {"INTEGER": "BIGINT", "REAL": "DOUBLE", "TEXT": "VARCHAR"})
    else:
        import psycopg
        dsn = request.getfixturevalue("postgres_dsn")
        answer = typed_answer(lambda: psycopg.connect(dsn, autocommit=True, options="-c jit=off"),  # as verify runs
                              # it: LLVM took 2.3 s a query compiling the 67 KB expression over a number column
                              {"INTEGER": "bigint", "REAL": "float8", "TEXT": "text"}, "%s")
    # (numbers_only: categories each a number of the column's type, which the cast reads: a silent wrong answer)
    model = numbered(tmp_path, "c45", [c for c in NUMBER_CATEGORIES if c not in ("abc", "1e300", "2002.5", "1e-7")]
                     if numbers_only else NUMBER_CATEGORIES)
    for sql in (emit(model, "sql", dialect=dialect, table="t"),
                f"SELECT {emit(model, 'sql', dialect=dialect, expression=True)} FROM t"):
        got, want = stored_answers(model, sql, answer)
        assert got == want


# A feature of integer codes (LightGBM's, XGBoost's float32 ones, HistGradientBoosting's integral ones) over a column of
# numbers, as a frame of category codes loads (ints, or floats where a NaN made them so): a number is the category its
# code names, NaN missing (Model.predict's rule); each of SQL's types (FLOAT: float32 values, read as they are)
CODED_FIXTURES = ["lightgbm/4.7.0/categorical_codes.txt", "xgboost/categorical-3.2.0.json",
                  "hist_gradient_boosting/multiclass_categorical-1.9.1.skops"]
STORED_CODES = {"BIGINT": [0, 1, 2, 3, 5, 7, 9, -1, 2 ** 31, -2 ** 31, None],
                "DOUBLE": [0.0, 3.0, 5.0, 2.7, -0.5, -0.0, -1.0, 2.9999999999, 0.99999999, 1e-50, 1e300, math.inf,
                           -math.inf, math.nan, 2147483647.0, 2147483648.0, None],
                "FLOAT": [float(np.float32(x)) for x in (2.0, 2.7, 2.9999999, 1e-40, 1e30, math.inf, math.nan)]}


def coded_rows(model, values) -> list[dict]:
    """A row a value of the feature of codes, the other features fixed."""
    fixed = {f.name: 0.5 if f.is_numeric else f.categories[-1] for f in model.features}
    coded = next(f.name for f in model.features if f.codes is not None)
    return [{**fixed, coded: value} for value in values]


def typed_table(model, kind: str, types: dict, typed) -> str:
    """The columns of a table of the model's features: those ``typed`` says of SQL's type ``kind`` (``types``: SQL's
    names to the engine's), the others a DOUBLE or a text."""
    return ", ".join(f'"{f.name}" ' + types[kind if typed(f) else "DOUBLE" if f.is_numeric else "TEXT"]
                     for f in model.features)


def typed_answers(engine: str, connection, typed):
    """(sql, model, kind, rows) -> the SQL's rows over a table ``t`` of the rows, the features ``typed`` says of
    SQL's type ``kind``."""
    if engine == "spark":
        from pyspark.sql.types import BooleanType, DoubleType, FloatType, LongType, StringType, StructField, StructType
        spark_types = {"BIGINT": LongType(), "DOUBLE": DoubleType(), "FLOAT": FloatType(), "TEXT": StringType(),
                       "BOOLEAN": BooleanType()}

        def answers(sql, model, kind, rows):
            schema = StructType([StructField(f.name, spark_types[kind if typed(f) else "DOUBLE"
                                                                 if f.is_numeric else "TEXT"]) for f in model.features])
            connection.createDataFrame([tuple(row.values()) for row in rows], schema).createOrReplaceTempView("t")
            try:
                return [tuple(row) for row in connection.sql(sql).collect()]
            finally:
                connection.catalog.dropTempView("t")
        return answers
    types = {"sqlite": {"BIGINT": "INTEGER", "DOUBLE": "REAL", "FLOAT": "REAL", "TEXT": "TEXT", "BOOLEAN": "INTEGER"},
             "duckdb": {"BIGINT": "BIGINT", "DOUBLE": "DOUBLE", "FLOAT": "FLOAT", "TEXT": "VARCHAR", "BOOLEAN": "BOOLEAN"},
             "postgres": {"BIGINT": "bigint", "DOUBLE": "float8", "FLOAT": "real", "TEXT": "text",
                          "BOOLEAN": "boolean"}}[engine]

    def answers(sql, model, kind, rows):
        with closing(connection()) as con:
            cursor = con.cursor()
            cursor.execute(f"CREATE TEMPORARY TABLE t ({typed_table(model, kind, types, typed)})")
            placeholders = ", ".join(["%s" if engine == "postgres" else "?"] * len(model.features))
            cursor.executemany(f"INSERT INTO t VALUES ({placeholders})", [tuple(row.values()) for row in rows])
            cursor.execute(sql)
            return [tuple(row) for row in cursor.fetchall()]
    return answers


def engine_connection(engine: str, request):
    """Spark's session, or a function that opens a connection to the engine (PostgreSQL: the test run's server)."""
    if engine == "spark":
        return request.getfixturevalue("spark")
    if engine == "postgres":
        import psycopg
        dsn = request.getfixturevalue("postgres_dsn")
        return lambda: psycopg.connect(dsn, autocommit=True, options="-c jit=off")
    import duckdb
    return duckdb.connect if engine == "duckdb" else lambda: sqlite3.connect(":memory:")


def queries(model, engine: str):
    """The model's query and its expression over a table ``t``, each with the leaf ids."""
    return [emit(model, "sql", dialect=engine, table="t", leaf=True),
            f"SELECT {emit(model, 'sql', dialect=engine, expression=True, leaf=True)} FROM t"]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb", "postgres", "spark"])
def test_a_number_column_of_codes_gives_the_models_answers(engine, request):
    """DuckDB, PostgreSQL and Spark stopped such a query as they bound it: the codes' text read as a number by a
    regular expression of a number column (DuckDB: "No function matches ... regexp_full_match(DOUBLE, ...)",
    PostgreSQL: "operator does not exist: double precision ~ unknown"). Each form, each type: the model's labels
    and leaves (SQLite reads a number as it is)."""
    answers = typed_answers(engine, engine_connection(engine, request), lambda f: f.codes is not None)
    for path in CODED_FIXTURES:
        model = treegen.load(f"tests/fixtures/{path}")
        for sql in queries(model, engine):
            for kind, values in STORED_CODES.items():
                rows = coded_rows(model, values)
                got = [tuple(str(x) for x in answer[-2:]) for answer in answers(sql, model, kind, rows)]
                want = [(model.predict(row), leaf_ids(model, row)) for row in rows]
                assert got == want, (engine, path, sql[:20], kind)


@pytest.mark.parametrize("engine", ["sqlite", "duckdb", "spark"])
def test_a_boolean_column_of_a_numeric_feature_gives_the_models_answers(engine, request):
    """pandas' get_dummies makes BOOLEAN columns, which DuckDB and Spark compare with no number: the query stopped
    as the engine bound it (DuckDB: "Cannot compare values of type BOOLEAN and type DOUBLE", Spark:
    DATATYPE_MISMATCH). True is 1.0 and false 0.0, as Model.predict reads them; the query and the expression.
    (PostgreSQL casts no boolean to a double: README.)"""
    from sklearn.tree import DecisionTreeRegressor
    rnd = random.Random(5)
    X = [[rnd.random() < 0.5 for _ in range(3)] + [rnd.uniform(-2, 2)] for _ in range(400)]
    y = [a * 4 + b * 2 - c + (x > 0.5) + x / 8 for a, b, c, x in X]
    model = treegen.from_sklearn(DecisionTreeRegressor(max_depth=6, random_state=0).fit(X, y),
                                 feature_names=["is_red", "is_blue", "is_big", "x"])
    answers = typed_answers(engine, engine_connection(engine, request), lambda f: f.name.startswith("is_"))
    rows = [dict(zip(["is_red", "is_blue", "is_big", "x"], values))
            for values in itertools.product([True, False, None], [True, False], [False, None], [-1.0, 0.25, 0.75])]
    for sql in queries(model, engine):
        got = [tuple(str(x) for x in answer[-2:]) for answer in answers(sql, model, "BOOLEAN", rows)]
        assert got == [(str(model.predict(row)), leaf_ids(model, row)) for row in rows], sql[:20]


# a split at 2^53, where integers and their doubles part: 2^53 + 1 is past it, its double (2^53), which the model
# reads, is not
PAST_DOUBLES = """treegen rules, format 1
features
  x: numeric
target y: classes {"low", "high"}
numbers: float64
combine: single

tree 1
rules
  rule 1: if x <= 9007199254740992.0 then "low"
  rule 2: if (x > 9007199254740992.0 or missing) then "high"
  default: "low"
nodes
  node 0: x <= 9007199254740992.0 ? 1 : 2; missing to 2; value [1.0, 0.0]; n 1.0; counts [1.0, 0.0]
  node 1: leaf; value [1.0, 0.0]; n 1.0; counts [1.0, 0.0]
  node 2: leaf; value [0.0, 1.0]; n 1.0; counts [0.0, 1.0]
"""
BIG_INTEGERS = [2 ** 53 - 1, 2 ** 53, 2 ** 53 + 1, 2 ** 53 + 2, -2 ** 53 - 1, 2 ** 63 - 1]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb", "postgres"])
def test_an_integer_column_past_2_53_gives_the_models_answers(engine, request):
    """SQLite compares an INTEGER with a REAL exactly: its query and expression sent 2^53 + 1 past the split at
    2^53, where the model reads its double, 2^53, and goes left (DuckDB and PostgreSQL compare the double)."""
    model = parse_rule_text(PAST_DOUBLES)
    answers = typed_answers(engine, engine_connection(engine, request), lambda f: True)
    rows = [{"x": x} for x in BIG_INTEGERS + [None]]
    for sql in queries(model, engine):
        got = [tuple(str(x) for x in answer[-2:]) for answer in answers(sql, model, "BIGINT", rows)]
        assert got == [(model.predict(row), leaf_ids(model, row)) for row in rows], sql[:20]


def test_mysql_an_integer_column_past_2_53_gives_the_models_answers(mysql_server):
    """MariaDB makes an integral constant beside an integer column an integer, and compares the two exactly: the
    expression, which reads the column as it is, sent BIGINT 2^53 + 1 past the split at 2^53 (its query reads a
    double)."""
    model = parse_rule_text(PAST_DOUBLES)
    text = "x\n" + "".join(f"{x}\n" for x in BIG_INTEGERS)
    assert expected(model, text) == ["low", "low", "low", "high", "low", "high"]
    for expression in (False, True):
        assert mysql_answers(mysql_server, model, text, expression, types="BIGINT") == expected(model, text)


@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "spark"])
def test_the_category_of_a_code_is_read_once_a_row(dialect):
    """Its reading (the column's type, its number, its text) is written once: in the query's first derived table, in
    an expression a lambda's variable (DuckDB, Spark) or a scalar subquery's row (PostgreSQL), not at each test
    (there the XGBoost fixture's DuckDB expression was 4.6 times its query's length, the query 1.9 times)."""
    d = DIALECTS[dialect]
    for path in CODED_FIXTURES:
        model = treegen.load(f"tests/fixtures/{path}")
        for feature in (f for f in model.features if f.codes is not None):
            holds_number = d.nominal_number[0].format(d.identifier(feature.name))
            for expression in (False, True):
                sql = emit(model, "sql", dialect=dialect, expression=expression, leaf=not expression)  # (one output)
                assert sql.count(holds_number) == 1, (path, expression)


# -- MySQL/MariaDB: a table of TEXT columns, as LOAD DATA of a CSV fills one ------------------------------------------

def mysql_answers(dsn: str, model, text: str, expression: bool = False, types: str = "TEXT") -> list:
    """The SQL's answers over the CSV in a MariaDB table of ``types`` columns, every field its text."""
    import pymysql

    from treegen.run.sql import _mysql_parameters
    rows = list(csv.reader(io.StringIO(text)))
    sql = (f"SELECT {emit(model, 'sql', dialect='mysql', expression=True)} FROM t" if expression
           else emit(model, "sql", dialect="mysql", table="t"))
    with closing(pymysql.connect(**_mysql_parameters(dsn), charset="utf8mb4", autocommit=True)) as con:
        with con.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE t (" + ", ".join(f"`{n}` {types}" for n in rows[0]) + ")")
            cursor.executemany(f"INSERT INTO t VALUES ({', '.join(['%s'] * len(rows[0]))})", rows[1:])
            cursor.execute(sql)
            return [row[-1] for row in cursor.fetchall()]


def mysql_readable(model, text: str) -> str:
    """The CSV without the rows whose MySQL SQL stops by design (inf, a number beyond MySQL's DOUBLE): checked
    apart (test_mysql_a_text_treegen_does_not_read_as_a_number_stops_the_query)."""
    lines = text.splitlines()
    kept = [lines[0]] + [line for line in lines[1:] if not any(
        field.strip().lower().lstrip("+-") in ("inf", "infinity") or "e400" in field for field in line.split(","))]
    assert len(kept) > 50
    return "\n".join(kept) + "\n"


def test_mysql_text_columns_give_the_models_answers(model, mysql_server):
    """MariaDB reads a text compared with a number as the number it starts with, '' '?' 'NA' as 0, warning only:
    the SQL reads each text as treegen reads the CSV field, numbers at and an ulp around every split point (a
    nominal feature's '', '?' and ' NA ' missing, not unseen)."""
    text = mysql_readable(model, csv_of(model, 200))
    want = expected(model, text)
    assert mysql_answers(mysql_server, model, text) == want
    numbers = "\n".join(line for line in text.splitlines() if not any(  # a DOUBLE column's: read as it is
        f.strip().lower() in ("", "?", "na", "nan") or f in ("-0", "5.") for f in line.split(","))) + "\n"
    types = "DOUBLE" if all(f.is_numeric for f in model.features) else "TEXT"
    assert mysql_answers(mysql_server, model, numbers, types=types) == expected(model, numbers)


@pytest.mark.parametrize("field", [" 3.5 ", "abc", "1e", "1,5", "0x10", "3.5\n", "inf", "1e400", "1\x00", "1\t",
                                   "\u00a01", "\u0661", "\uff11"])
def test_mysql_a_text_treegen_does_not_read_as_a_number_stops_the_query(field, mysql_server):
    import pymysql
    model = lightgbm_regression()
    name = model.features[0].name
    with pytest.raises(pymysql.err.OperationalError, match=f"treegen: the column ',.{name}.,' holds "):
        mysql_answers(mysql_server, model, csv_of(model, 5, fixed={name: field}))


def test_verify_runs_the_mysql_sql_over_text_columns_too(monkeypatch, tmp_path, mysql_server):
    """`verify --dialect mysql` runs the SQL over TEXT columns as well as typed ones: the SQL that compares each
    column as it is shows mismatching rows there, the SQL that reads texts none."""
    from treegen.emit.sql import DIALECTS as dialects
    from treegen.verifier import verify
    model = lightgbm_regression()
    path = tmp_path / "model.sql"
    path.write_text(emit(model, "sql", dialect="mysql"))
    dsns = {"mysql": mysql_server}
    [result] = verify(model, None, [], ["mysql"], dsns=dsns, programs=[str(path)])
    assert result.ok, result.line()
    # an --expression reads the columns as they are (MariaDB reads no outer column in a derived table): typed only
    path.write_text(emit(model, "sql", dialect="mysql", expression=True))
    [result] = verify(model, None, [], ["mysql"], dsns=dsns, programs=[str(path)])
    assert result.ok, result.line()
    monkeypatch.setitem(dialects, "mysql", replace(dialects["mysql"], numeric_text=None))
    path.write_text(emit(model, "sql", dialect="mysql"))
    [result] = verify(model, None, [], ["mysql"], dsns=dsns, programs=[str(path)])
    assert not result.ok and "MISMATCH" in result.line(), result.line()


# a nominal field's texts: '', ? and NA with spaces around are missing in a CSV; case and inner spaces count
NOMINAL_TEXTS = ["", " ", "?", " NA ", "NA", "na", "?a", "a ", "N A"]
# models that route a missing category apart from an unknown one: XGBoost's categorical splits (a feature of codes);
# CatBoost's one-hot, '' one of its categories (a table may hold it), where ? and NA are still missing
APART = ["xgboost/categorical-3.4.1.json", "catboost/binary_onehot_nan_max-1.2.json"]


def test_mysql_reads_a_nominal_columns_missing_texts_as_missing(mysql_server):
    """'', '?' and 'NA', spaces around, compared as bytes (a _ci collation finds 'na' = 'NA' and 'a ' = 'a')."""
    import pymysql

    from treegen.emit.sql import DIALECTS as dialects
    from treegen.run.sql import _mysql_parameters
    missing = dialects["mysql"].nominal_trimmed.format("c") + " IN ('', '?', 'NA')"
    with closing(pymysql.connect(**_mysql_parameters(mysql_server), charset="utf8mb4", autocommit=True)) as con:
        with con.cursor() as cursor:
            cursor.execute("CREATE TEMPORARY TABLE t (n INT, c TEXT)")
            cursor.executemany("INSERT INTO t VALUES (%s, %s)", list(enumerate(NOMINAL_TEXTS)))
            cursor.execute(f"SELECT CASE WHEN {missing} THEN NULL ELSE c END FROM t ORDER BY n")
            assert [row[0] for row in cursor.fetchall()] == [None] * 5 + ["na", "?a", "a ", "N A"]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb", "postgres", "spark"])
def test_a_nominal_columns_missing_texts_are_missing_in_every_engine(engine, request):
    """A query reads a nominal column's '', ? and NA (spaces around) as missing, as treegen reads the CSV field,
    in every engine (MySQL: the test above): DuckDB, PostgreSQL and Spark read them as unknown categories, and
    answered otherwise for a model that routes those apart (4 and 11 rows of 60 of each model, measured), where
    SQLite and MySQL read them missing. A category of the feature that reads as missing ('') is itself."""
    answers = typed_answers(engine, engine_connection(engine, request), lambda f: False)
    for path in APART:
        model = treegen.load(f"tests/fixtures/{path}")
        nominal = next(f for f in model.features if not f.is_numeric)
        rows = [{**{f.name: 0.5 if f.is_numeric else f.categories[0] for f in model.features}, nominal.name: text}
                for text in NOMINAL_TEXTS + list(nominal.categories) + ["unseen"]]
        read = [{**row, nominal.name: None if reads_as_missing(row[nominal.name])
                 and row[nominal.name] not in nominal.categories else row[nominal.name]} for row in rows]
        want = [(str(model.predict(row)), leaf_ids(model, row)) for row in read]
        for sql in queries(model, engine)[:1 + (engine == "sqlite")]:  # (the others' expressions: the column as it is)
            got = [tuple(str(x) for x in answer[-2:]) for answer in answers(sql, model, "TEXT", rows)]
            assert got == want, (path, sql[:40])


def test_mysql_a_nominal_column_of_numbers_gives_the_models_answers(mysql_server, tmp_path):
    """A number column's value is the category its double names, as in SQLite: compared as its text's bytes, 0 was
    not '-0' (the category 0.0 names), 1e-7 not '1e-7'. (A query reads it once a row, an expression at each test.)"""
    import pymysql

    from treegen.run.sql import _mysql_parameters
    types = {"INTEGER": "BIGINT", "REAL": "DOUBLE", "TEXT": "TEXT"}

    @one_at_a_time
    def answer(sql: str, kind: str, value) -> str:
        with closing(pymysql.connect(**_mysql_parameters(mysql_server), charset="utf8mb4", autocommit=True)) as con:
            with con.cursor() as cursor:
                cursor.execute(f"CREATE TEMPORARY TABLE t (zip {types[kind]}, v DOUBLE)")
                cursor.execute("INSERT INTO t VALUES (%s, 0)", (value,))
                cursor.execute(sql)
                return cursor.fetchall()[0][-1]
    model = numbered(tmp_path, "c45")
    for sql in (emit(model, "sql", dialect="mysql", table="t"),
                f"SELECT {emit(model, 'sql', dialect='mysql', expression=True)} FROM t"):
        got, want = stored_answers(model, sql, answer)
        assert got == want


# -- DuckDB: read_csv makes a VARCHAR column of one that holds NA or ? (and every column, with all_varchar) ----------

def duckdb_answers(model, text: str, tmp_path, all_varchar: bool = True) -> list:
    """The DuckDB query's answers over the CSV as read_csv puts it into a table (an empty field NULL)."""
    import duckdb
    path = tmp_path / "rows.csv"
    path.write_text(text, encoding="utf-8")
    with duckdb.connect() as con:
        con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv(?, all_varchar = {all_varchar})", [str(path)])
        return [row[-1] for row in con.execute(emit(model, "sql", dialect="duckdb", table="t")).fetchall()]


@pytest.mark.parametrize("make", [lightgbm_regression, forest])
def test_duckdb_varchar_columns_give_the_models_answers(make, tmp_path):
    """A numeric feature's VARCHAR column is read as treegen reads the CSV: '', '?', 'NA' (spaces around) and nan
    missing, numbers at and an ulp around every split point, 17-digit ones, subnormals, inf and 1e400 (the column's
    cast alone stopped at '' and NA, 'Could not convert string'); a DOUBLE column as it is."""
    model = make()
    text = csv_of(model, 300)
    assert duckdb_answers(model, text, tmp_path) == expected(model, text)
    numbers = "\n".join(line for line in text.splitlines() if not any(
        f.strip().lower() in ("?", "na", "nan") for f in line.split(","))) + "\n"
    assert duckdb_answers(model, numbers, tmp_path, all_varchar=False) == expected(model, numbers)


@pytest.mark.parametrize("field", [" 3.5 ", "abc", "1e", "1,5", "0x10", "1_000", "3.5\n"])
def test_duckdb_a_text_treegen_does_not_read_as_a_number_stops_the_query(field):
    """What DuckDB's cast reads and treegen refuses (' 3.5 ', '1_000' are numbers to it) stops the query, with the
    column and the text in the error."""
    import duckdb
    model = lightgbm_regression()
    name = model.features[0].name
    with duckdb.connect() as con:
        columns = ", ".join(DIALECTS["duckdb"].identifier(f.name) + " VARCHAR" for f in model.features)
        con.execute(f"CREATE TABLE t ({columns})")
        con.execute(f"INSERT INTO t VALUES ({', '.join('?' * len(model.features))})",
                    [field] + ["1.5"] * (len(model.features) - 1))
        with pytest.raises(duckdb.InvalidInputException, match=f'treegen: the column {name} holds "{re.escape(field)}"'):
            con.execute(emit(model, "sql", dialect="duckdb", table="t")).fetchall()


def test_verify_runs_the_duckdb_query_over_varchar_columns_too(monkeypatch, tmp_path):
    """`verify --dialect duckdb` runs a query over VARCHAR numeric columns as well as typed ones (an --expression,
    which casts each column at each test, over typed ones only): a query that casts the column shows it there."""
    from treegen.emit.sql import DIALECTS as dialects
    from treegen.verifier import verify
    model = lightgbm_regression()
    path = tmp_path / "model.sql"
    for expression in (False, True):
        path.write_text(emit(model, "sql", dialect="duckdb", expression=expression))
        [result] = verify(model, None, [], ["duckdb"], programs=[str(path)])
        assert result.ok, result.line()
    monkeypatch.setitem(dialects, "duckdb", replace(dialects["duckdb"], number_read=None))
    path.write_text(emit(model, "sql", dialect="duckdb"))
    [result] = verify(model, None, [], ["duckdb"], programs=[str(path)])
    assert not result.ok and "Could not convert string" in result.line(), result.line()


def postgres_answers(dsn: str, model, text: str) -> list:
    """The PostgreSQL query's answers over the CSV in TEXT columns, every other empty field NULL (as `COPY ... CSV`
    reads an unquoted one), the others ''."""
    import psycopg
    rows = list(csv.reader(io.StringIO(text)))
    columns = ", ".join(f"{DIALECTS['postgres'].identifier(name)} text" for name in rows[0])
    sql = emit(model, "sql", dialect="postgres", table="t")
    with psycopg.connect(dsn, autocommit=True) as con, con.cursor() as cursor:
        cursor.execute(f"CREATE TEMPORARY TABLE stored ({columns}, n int)")
        cursor.execute("CREATE TEMPORARY VIEW t AS SELECT * FROM stored ORDER BY n")  # (the rows in their order)
        with cursor.copy("COPY stored FROM STDIN") as copy:
            for n, row in enumerate(rows[1:]):
                copy.write_row([None if field == "" and n % 2 else field for field in row] + [n])
        cursor.execute(sql.encode())
        return [row[-1] for row in cursor.fetchall()]


def postgres_readable(text: str) -> str:
    """The CSV without the rows PostgreSQL's cast stops at: a number past a double's range ("1e400" is out of
    range for type double precision), where treegen reads infinity or zero."""
    lines = text.splitlines()
    return "\n".join([lines[0]] + [line for line in lines[1:] if "e400" not in line and "e-400" not in line]) + "\n"


@pytest.mark.parametrize("make", [lightgbm_regression, forest])
def test_postgres_text_columns_give_the_models_answers(make, postgres_dsn):
    """A numeric feature's TEXT column is read as treegen reads the CSV: '', '?', 'NA' (spaces around) and nan
    missing, numbers at and an ulp around every split point, 17-digit ones, subnormals, inf (the column compared
    with a number stopped the query: "operator does not exist: text <= double precision")."""
    model = make()
    text = postgres_readable(csv_of(model, 300))
    assert postgres_answers(postgres_dsn, model, text) == expected(model, text)


@pytest.mark.parametrize("field", [" 3.5 ", "abc", "1e", "1,5", "0x10", "1_000", "3.5\n", "1e400", "1\t", "\u00a01",
                                   "\u0661", "\uff11"])
def test_postgres_a_text_treegen_does_not_read_as_a_number_stops_the_query(field, postgres_dsn):
    """What PostgreSQL's cast reads and treegen refuses (' 3.5 ' is a number to it) stops the query, with the
    column and the text in the error; a number past a double's range with PostgreSQL's own."""
    import psycopg
    model = lightgbm_regression()
    name = model.features[0].name
    header = ",".join(f.name for f in model.features)
    said = "is out of range" if field == "1e400" else f'treegen: the column {name} holds "{re.escape(field)}"'
    line = io.StringIO()
    csv.writer(line, lineterminator="\n").writerow([field] + ["1.5"] * (len(model.features) - 1))
    with pytest.raises(psycopg.errors.DataError, match=said):
        postgres_answers(postgres_dsn, model, f"{header}\n{line.getvalue()}")


def test_verify_runs_the_postgres_sql_over_text_columns_too(monkeypatch, tmp_path, postgres_dsn):
    """`verify --dialect postgres` runs a query over TEXT numeric columns as well as typed ones (an --expression,
    which compares the column as it is, over typed ones only): a query that does not read them so shows it there."""
    from treegen.emit.sql import DIALECTS as dialects
    from treegen.verifier import verify
    model = lightgbm_regression()
    path, dsns = tmp_path / "model.sql", {"postgres": postgres_dsn}
    for expression in (False, True):
        path.write_text(emit(model, "sql", dialect="postgres", expression=expression))
        [result] = verify(model, None, [], ["postgres"], programs=[str(path)], dsns=dsns)
        assert result.ok, result.line()
    unsigned = replace(dialects["postgres"].number_read, matches="{0} ~ '^[0-9.]+$'")  # (no sign, no exponent)
    monkeypatch.setitem(dialects, "postgres", replace(dialects["postgres"], number_read=unsigned))
    path.write_text(emit(model, "sql", dialect="postgres"))
    [result] = verify(model, None, [], ["postgres"], programs=[str(path)], dsns=dsns)
    assert not result.ok and "not a number" in result.line(), result.line()


def spark_text_answers(spark, model, text: str) -> list:
    """The Spark query's answers over the CSV in STRING columns, every other empty field NULL (as Spark's CSV reader
    reads an empty one), the others ''."""
    from pyspark.sql.types import StringType, StructField, StructType
    rows = list(csv.reader(io.StringIO(text)))
    schema = StructType([StructField(name, StringType()) for name in rows[0]])
    fields = [tuple(None if field == "" and n % 2 else field for field in row) for n, row in enumerate(rows[1:])]
    spark.createDataFrame(fields, schema).createOrReplaceTempView("t")
    try:
        return [row[-1] for row in spark.sql(emit(model, "sql", dialect="spark", table="t")).collect()]
    finally:
        spark.catalog.dropTempView("t")


@pytest.mark.parametrize("make", [lightgbm_regression, forest])
def test_spark_string_columns_give_the_models_answers(make, spark):
    """A numeric feature's STRING column is read as treegen reads the CSV: '', '?', 'NA' (spaces around) and nan
    missing, numbers at and an ulp around every split point, 17-digit ones, subnormals, inf and 1e400 (the cast
    alone stopped at '', ? and NA under spark.sql.ansi.enabled, Spark 4's default)."""
    model = make()
    text = csv_of(model, 300)
    assert spark_text_answers(spark, model, text) == expected(model, text)


@pytest.mark.parametrize("field", [" 3.5 ", "abc", "1e", "1,5", "0x10", "1_000", "3.5\n", "1d", "1\x00", "1\t",
                                   "\u00a01", "\u0661", "\uff11"])
def test_spark_a_text_treegen_does_not_read_as_a_number_stops_the_query(field, spark):
    """What Spark's cast reads and treegen refuses (' 3.5 ', '3.5\\n' and '1d' are numbers to it) stops the query,
    with the column and the text in the error."""
    model = lightgbm_regression()
    name = model.features[0].name
    line = io.StringIO()
    csv.writer(line, lineterminator="\n").writerow([field] + ["1.5"] * (len(model.features) - 1))
    with pytest.raises(Exception, match=f'treegen: the column {name} holds "{re.escape(field)}"'):
        spark_text_answers(spark, model, ",".join(f.name for f in model.features) + "\n" + line.getvalue())


def test_spark_reads_a_code_with_a_line_end_as_no_number(spark):
    """Spark's RLIKE '$' matches before a last line end: a feature of codes' text '3\\n' was read as the code 3
    (and its cast reads it so), where treegen reads no number in it, an unknown category."""
    answers = typed_answers("spark", spark, lambda f: False)
    model = treegen.load("tests/fixtures/xgboost/categorical-3.4.1.json")
    rows = coded_rows(model, ["3\n", "3", "7\n", "2\r\n", " 3"])
    got = [tuple(str(x) for x in answer[-2:]) for answer in answers(queries(model, "spark")[0], model, "TEXT", rows)]
    assert got == [(model.predict(row), leaf_ids(model, row)) for row in rows]


def test_mysql_reads_a_code_with_a_line_end_as_no_number(mysql_server):
    """MariaDB's REGEXP '$' matches before a last line end, as Spark's does: a feature of codes' text '3\\n' was read
    as the code 3 (and its cast reads it so), where treegen reads no number in it, an unknown category."""
    import pymysql

    from treegen.run.sql import _mysql_parameters
    model = treegen.load("tests/fixtures/xgboost/categorical-3.4.1.json")
    rows = coded_rows(model, ["3\n", "3", "7\n", "2\r\n", " 3"])
    columns = ", ".join(f"{f.name} {'DOUBLE' if f.is_numeric else 'TEXT'}" for f in model.features)
    with closing(pymysql.connect(**_mysql_parameters(mysql_server), charset="utf8mb4", autocommit=True)) as con:
        with con.cursor() as cursor:
            cursor.execute(f"CREATE TEMPORARY TABLE t (n INT, {columns})")
            cursor.executemany(f"INSERT INTO t VALUES (%s{', %s' * len(model.features)})",
                               [(n, *row.values()) for n, row in enumerate(rows)])
            cursor.execute(emit(model, "sql", dialect="mysql", table="t", leaf=True))
            got = [tuple(str(x) for x in answer[-2:]) for answer in cursor.fetchall()]
    assert got == [(model.predict(row), leaf_ids(model, row)) for row in rows]


def test_the_largest_doubles_windows_end_at_infinity_without_a_warning():
    """verify finds the rows near a split point with numpy (sqlite_column_stops): a window of the largest doubles ends
    at infinity, as Python's arithmetic has it, with no RuntimeWarning on a user's terminal."""
    import warnings
    from treegen.emit.sql.dialects import sqlite_column_stops, sqlite_text_stops
    values = [1.7976931348623157e308, -1.7976931348623157e308, 1.0, None]
    texts = [repr(v) if v is not None else "" for v in values]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        stops = sqlite_column_stops(values, texts, [1.0, 1.7976931348623157e308])
    assert stops == [i for i, v in enumerate(values)
                     if v is not None and sqlite_text_stops(v, texts[i], [1.0, 1.7976931348623157e308])]


@pytest.mark.parametrize("engine", ["duckdb", "postgres", "spark"])
def test_a_boolean_column_of_a_nominal_feature_names_the_category_a_boolean_names(engine, request):
    """A pandas bool column is the categories 'True' and 'False' (and a Boolean names the category spelt "true" or
    "false" in any letter case, else the one 1 or 0 names: Model.predict, every target's API), where DuckDB's
    read_csv of the frame's CSV makes a BOOLEAN column, whose text is 'true': the SQL read every row's as unknown
    (86 of 200 rows answered otherwise). Now a BOOLEAN names what a Boolean names; the query and the expression,
    in every engine that holds Booleans (SQLite and MySQL hold 1 and 0, the numbers: README)."""
    import pandas as pd
    rnd = random.Random(7)
    frame = pd.DataFrame({"flag": [rnd.random() < 0.5 for _ in range(300)],
                          "level": pd.Categorical([rnd.choice("012") for _ in range(300)]),
                          "spelt": pd.Categorical([rnd.choice(["TRUE", "other"]) for _ in range(300)]),
                          "x": [rnd.uniform(-2, 2) for _ in range(300)]})
    y = ["A" if f ^ (lv == "1") ^ (s == "TRUE") ^ (x > 0) else "B"
         for f, lv, s, x in zip(frame.flag, frame.level, frame.spelt, frame.x)]
    with pytest.warns(treegen.TreegenWarning, match="^column 'flag' holds True and False"):  # (of SQLite's 1 and 0)
        model = treegen.train(frame.assign(y=y), target="y", algorithm="cart")
    assert set(model.used_features()) == {0, 1, 2, 3}
    assert [f.named_by_boolean for f in model.features[:3]] == [("False", "True"), ("0", "1"), (None, "TRUE")]
    answers = typed_answers(engine, engine_connection(engine, request), lambda f: not f.is_numeric)
    rows = [dict(zip(["flag", "level", "spelt", "x"], values))
            for values in itertools.product([True, False, None], [True, False, None], [True, False], [-1.0, 0.5])]
    for sql in queries(model, engine):
        got = [tuple(str(x) for x in answer[-2:]) for answer in answers(sql, model, "BOOLEAN", rows)]
        assert got == [(model.predict(row), leaf_ids(model, row)) for row in rows], (engine, sql[:20])
