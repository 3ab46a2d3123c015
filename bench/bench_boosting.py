"""Boosted models, treegen against the libraries' own predict and their peers: import, code generation,
time per row, and -- the point -- how many probe rows each tool predicts differently from the library.

    python3 bench/bench_boosting.py [--trees 500] [--rows 5000] [--seconds 1] [--libraries xgboost,...]
                                    [--tools library,python,java,c,sql,...]

One 500-tree binary classifier per library, trained here on synthetic data (fixed seeds; 8 normal
features, one of them rounded to a tenth so that values sit on its thresholds, one a fifth zeros,
5% of the values of seven of them NaN, the eighth never missing in training -- so that a missing
value there takes whatever route each library gives a missing value it never saw, LightGBM's
missing type None, say, reading it as 0.0; LightGBM is trained twice, with a categorical feature of
12 codes and without, the model m2cgen can read):
XGBoost ``XGBClassifier`` (``binary:logistic``, depth 6), LightGBM ``LGBMClassifier`` (31 leaves),
scikit-learn ``HistGradientBoostingClassifier`` (31 leaves, no early stopping), CatBoost
``CatBoostClassifier`` (depth 6, float features). Each is saved in its native file (XGBoost JSON,
LightGBM model.txt, a .skops file, CatBoost JSON), which treegen imports.

Per tool (a tool that is not installed, refuses the model or crashes gets a row saying so):

* import / convert: treegen's ``import_file`` on the native file and ``from_object`` on the fitted
  estimator; a peer's conversion or compilation (m2cgen's export, ONNX conversion, tl2cgen's C
  build with gcc -O3, lleaves' LLVM compilation, javac; treegen's C built by gcc -O3 too into a
  library that Python calls as it calls tl2cgen's, a batch of rows a call through its rows API).
* generate: treegen's ``emit`` per target (Python, Java, JavaScript, C, DuckDB SQL); a target that refuses the model
  is reported with its message.
* one row: the median CPU time of single calls, each on one random row, timed alone, with a pass
  over 8 MB of unrelated memory between calls (so caches are cold as in a service answering one
  request at a time), less the cost of timing an empty call. batch: the CPU time of a call over all
  the timed rows (a loop of one-row calls where the tool has no batch API: generated Python), per
  row, the median of several. Java runs in its own JVM: the probes first (which warms it), then
  ``--seconds`` of passes over the rows in a new random order each (the median of the passes in the
  second half), then single calls as above; thread CPU time (ThreadMXBean). JavaScript runs in Node
  (CommonJS modules) the same way: process CPU time for the passes, wall time for single calls (Node's
  CPU clock counts microseconds); treegen's batch is its rows API. DuckDB: one thread;
  "one row" is the query over a one-row table (mostly parsing and planning), "batch" what each
  further row adds: the query over all the timed rows less that, per row (best of ``--repeat``).
  Everything runs on one thread (OMP_NUM_THREADS=1, nthread/num_threads/n_jobs=1, ONNX Runtime with
  one intra-op thread).
* probes: rows from ``treegen.probes.probe_rows`` on the imported model (each threshold as the
  library compares it, its float64 cut, one ulp either side, a missing value, unknown categories),
  plus, per feature, 0.0, -0.0, +-1e-35 and +-1e-36 (LightGBM's zero band), +-3e38, and for a
  categorical feature -1 and codes past the last one; plus held-out data rows. "label" counts the
  rows whose label differs from the library's ``predict``, "value" those whose probability of the
  positive class is not bit-identical to ``predict_proba``'s (the largest difference in brackets).
  A difference beyond 1e-5 is more than float rounding: some tree reached another leaf (or the
  link differs). A peer that returns probabilities only is given the library's rule for the label
  (p > 0.5). The note says which rows differ: probe rows at thresholds only, with a missing value,
  with an unknown category; the edge value; held-out data.

Peers: m2cgen (Python, Java and JavaScript), treelite's GTIL interpreter and tl2cgen (C, compiled with gcc),
lleaves (LightGBM only), ONNX Runtime on models converted by onnxmltools (skl2onnx for scikit-learn;
for CatBoost, where onnxmltools' ``convert_catboost`` fails, CatBoost's own ONNX export), and CatBoost's own C++
export (``catboost-cpp``: ``save_model(format="cpp")``, built with g++). Install them beside treegen:
``pip install -e '.[bench]'`` (see pyproject.toml's ``bench`` extra).
"""
from __future__ import annotations

import os

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")  # before numpy and the libraries load: one thread everywhere

import argparse  # noqa: E402
import importlib.metadata  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402

try:  # the treegen installed or on PYTHONPATH (say, another worktree's), else this checkout's
    import treegen
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    import treegen

from treegen.importers import from_object, import_file  # noqa: E402
from treegen.probes import UNSEEN, probe_rows  # noqa: E402
from treegen.targets import emit  # noqa: E402

N_NUMERIC = 8
N_CATEGORIES = 12
MISSING_SHARE = 0.05
EDGE_NUMBERS = (0.0, -0.0, 1e-35, -1e-35, 1e-36, -1e-36, 3e38, -3e38)
FAR = 1e-5  # a difference in probability beyond float rounding: some tree reached another leaf
LIBRARIES = ("xgboost", "lightgbm", "lightgbm-numeric", "sklearn", "catboost")


# -- the models ----------------------------------------------------------------------------------


def synthetic(rows: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(numeric features with NaN, category codes, labels): a noisy nonlinear rule of both."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, N_NUMERIC))
    X[:, 1] = np.round(X[:, 1], 1)  # repeated values: rows sit exactly on its thresholds
    X[rng.random(rows) < 0.2, 5] = 0.0  # exact zeros, where LightGBM's zero band applies
    codes = rng.integers(0, N_CATEGORIES, rows)
    logit = (X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] ** 2 + 0.8 * np.sin(3 * X[:, 4]) + 0.7 * X[:, 5]
             + (codes % 3 == 0) - 0.3 + 0.5 * rng.normal(size=rows))
    X[:, :-1][rng.random((rows, N_NUMERIC - 1)) < MISSING_SHARE] = np.nan  # the last: never missing in training
    return X, codes.astype(np.float64), (logit > 0).astype(int)


@dataclass
class Case:
    """One library's fitted model, its native file, and how to ask it."""

    library: str
    version: str
    estimator: object
    path: str
    nominal: tuple[int, ...]  # columns holding category codes
    proba: Callable  # proba(matrix) -> the probability of the second class, float64
    label: Callable  # label(matrix) -> the labels, as text
    note: str = ""


def fit_xgboost(X, codes, y, trees: int, directory: str) -> Case:
    import xgboost
    model = xgboost.XGBClassifier(n_estimators=trees, max_depth=6, learning_rate=0.1, n_jobs=1, random_state=0)
    model.fit(X, y)
    path = os.path.join(directory, "xgboost.json")
    model.save_model(path)
    return Case("XGBoost", xgboost.__version__, model, path, (), lambda m: model.predict_proba(m)[:, 1],
                lambda m: model.predict(m), "binary:logistic, max_depth 6, base_score estimated by XGBoost")


def fit_lightgbm(X, codes, y, trees: int, directory: str, categorical: bool = True) -> Case:
    """With the categorical column, or without it (the model m2cgen can read)."""
    import lightgbm
    data = np.column_stack([X, codes]) if categorical else X
    if categorical:
        data[np.random.default_rng(7).random(len(data)) < MISSING_SHARE, N_NUMERIC] = np.nan
    model = lightgbm.LGBMClassifier(n_estimators=trees, num_leaves=31, learning_rate=0.1, n_jobs=1, random_state=0,
                                    verbose=-1)
    model.fit(data, y, categorical_feature=[N_NUMERIC] if categorical else "auto")
    path = os.path.join(directory, f"lightgbm{'' if categorical else '-numeric'}.txt")
    model.booster_.save_model(path)
    return Case("LightGBM", lightgbm.__version__, model, path, (N_NUMERIC,) if categorical else (),
                lambda m: model.predict_proba(m)[:, 1], lambda m: model.predict(m),
                "binary, 31 leaves, " + (f"column {N_NUMERIC} categorical ({N_CATEGORIES} codes)" if categorical
                                          else "numeric features only"))


def fit_sklearn(X, codes, y, trees: int, directory: str) -> Case:
    import sklearn
    import skops.io
    from sklearn.ensemble import HistGradientBoostingClassifier
    model = HistGradientBoostingClassifier(max_iter=trees, max_leaf_nodes=31, early_stopping=False, random_state=0)
    model.fit(X, y)
    path = os.path.join(directory, "hist_gradient_boosting.skops")
    skops.io.dump(model, path)
    return Case("scikit-learn", sklearn.__version__, model, path, (), lambda m: model.predict_proba(m)[:, 1],
                lambda m: model.predict(m), "HistGradientBoostingClassifier, 31 leaves, no early stopping")


def fit_catboost(X, codes, y, trees: int, directory: str) -> Case:
    import catboost
    model = catboost.CatBoostClassifier(iterations=trees, depth=6, learning_rate=0.1, thread_count=1,
                                        random_seed=0, verbose=False, allow_writing_files=False)
    model.fit(X, y)
    path = os.path.join(directory, "catboost.json")
    model.save_model(path, format="json")
    return Case("CatBoost", catboost.__version__, model, path, (), lambda m: model.predict_proba(m)[:, 1],
                lambda m: model.predict(m), "depth 6 (oblivious trees), float features")


FITTERS = {"xgboost": fit_xgboost, "lightgbm": fit_lightgbm, "sklearn": fit_sklearn, "catboost": fit_catboost,
           "lightgbm-numeric": lambda *args: fit_lightgbm(*args, categorical=False)}


# -- rows ----------------------------------------------------------------------------------------


def as_number(value) -> float:
    """A cell as the libraries and the peers take it: a float, NaN for missing or for a category
    text that is no number (an unknown category)."""
    if value is None:
        return math.nan
    try:
        return float(value)
    except ValueError:
        return math.nan


@dataclass
class Rows:
    """The same rows in each shape the tools take."""

    dicts: list[dict]  # by feature name, as treegen's model and probes give them
    values: list[list]  # in feature order: floats (NaN missing) and category texts (None missing)
    matrix: np.ndarray  # float64, NaN missing, category codes as numbers

    @classmethod
    def of(cls, model, dicts: list[dict]) -> "Rows":
        values = [[(math.nan if row.get(f.name) is None else float(row[f.name])) if f.is_numeric
                   else (None if row.get(f.name) is None else str(row[f.name])) for f in model.features]
                  for row in dicts]
        matrix = np.array([[as_number(v) for v in row] for row in values], dtype=np.float64)
        return cls(dicts, values, matrix.reshape(len(dicts), len(model.features)))


def data_dicts(model, matrix: np.ndarray, nominal: tuple[int, ...]) -> list[dict]:
    """Data rows as treegen's rows: NaN missing, category codes as the model's category texts."""
    rows = []
    for record in matrix.tolist():
        row = {}
        for j, (feature, value) in enumerate(zip(model.features, record)):
            if j in nominal:
                row[feature.name] = None if math.isnan(value) else str(int(value))
            else:
                row[feature.name] = None if math.isnan(value) else value
        rows.append(row)
    return rows


def edge_dicts(model, base: dict) -> tuple[list[dict], list[str]]:
    """``base`` with one feature at a time set to a value where tools go wrong besides thresholds:
    zeros of both signs, LightGBM's zero band, huge values; unknown category codes. And the kind of
    each row: the value it tests."""
    rows, kinds = [], []
    for feature in model.features:
        if feature.is_numeric:
            edges = EDGE_NUMBERS
        else:
            edges = ("-1", str(len(feature.categories)), str(len(feature.categories) + 1), "1000000")
        for value in edges:
            rows.append({**base, feature.name: value})
            kinds.append(f"code {value}" if isinstance(value, str) else f"{value!r}")
    return rows, kinds


def probe_kind(row: dict) -> str:
    """What a row of probe_rows tests: a missing value, an unknown category, else thresholds."""
    if any(value is None for value in row.values()):
        return "missing"
    if any(value == UNSEEN for value in row.values()):
        return "unknown category"
    return "thresholds"


# -- measuring -----------------------------------------------------------------------------------


@dataclass
class Result:
    """One tool's row of the table."""

    tool: str
    prepare: str = ""  # import / convert / compile
    generate: str = ""
    one_row: float | None = None  # seconds
    batch: float | None = None  # seconds per row
    label_wrong: int | None = None
    value_wrong: int | None = None
    largest_difference: float = 0.0
    far: int | None = None  # rows whose value differs by more than FAR
    note: str = ""
    probes: int = 0


def why(err: BaseException) -> str:
    """One line of why a tool failed."""
    text = " ".join(str(err).split()) or type(err).__name__
    cause = err.__cause__  # a converter that wraps the error says less than its cause
    if cause is not None:
        return f"{type(err).__name__}: {text[:70]}... (cause: {why(cause)})"
    return f"{type(err).__name__}: {text[:160]}"


def cpu_seconds(fn) -> tuple[object, float]:
    start = time.process_time_ns()
    result = fn()
    return result, (time.process_time_ns() - start) / 1e9


def best_cpu(fn, repeat: int) -> tuple[object, float]:
    best, result = math.inf, None
    for _ in range(repeat):
        result, spent = cpu_seconds(fn)
        best = min(best, spent)
    return result, best


NOISE = np.zeros(1 << 20)  # 8 MB: passing over it between single calls pushes the tool out of the caches


def one_row_time(call: Callable[[int], object], count: int, seconds: float) -> float:
    """Median CPU seconds of ``call(i)`` on random rows, each timed alone after disturbing the caches,
    less the median of timing an empty call."""
    rng = random.Random(1)
    timed, bare = [], []
    end = time.perf_counter() + seconds
    while len(timed) < 20 or (time.perf_counter() < end and len(timed) < 20_000):
        i = rng.randrange(count)
        NOISE[::8] += 1.0
        start = time.process_time_ns()
        call(i)
        timed.append(time.process_time_ns() - start)
        start = time.process_time_ns()
        bare.append(time.process_time_ns() - start)
    return (float(np.median(timed)) - float(np.median(bare))) / 1e9


def batch_time(run_all: Callable[[], object], count: int, seconds: float) -> float:
    """CPU seconds per row of ``run_all()`` over ``count`` rows: the median of the runs made in
    ``seconds`` (at least 3)."""
    spent = []
    end = time.perf_counter() + seconds
    while len(spent) < 3 or time.perf_counter() < end:
        spent.append(cpu_seconds(run_all)[1])
    return float(np.median(spent)) / count


def compare(bench: "Bench", result: Result, labels, p) -> None:
    """Count the probe rows where a tool's labels and probabilities differ from the library's, and
    say what kind of rows they are."""
    got = np.asarray(p, dtype=np.float64)
    want = bench.want_p
    same = (got == want) | (np.isnan(got) & np.isnan(want))
    label_wrong = [str(a) != str(b) for a, b in zip(bench.want_labels, labels)]
    result.probes = len(want)
    result.value_wrong = int((~same).sum())
    result.label_wrong = sum(label_wrong)
    differences = np.abs(got - want)[~same]
    result.largest_difference = (0.0 if not differences.size else math.nan if np.isnan(differences).all()
                                 else float(np.nanmax(differences)))
    with np.errstate(invalid="ignore"):
        far = ~same & ~(np.abs(got - want) <= FAR)  # NaN on one side only is far too
    result.far = int(far.sum())
    where = [f"labels differ at {kinds_of(bench.kinds, label_wrong)}"] if result.label_wrong else []
    where += [f"values beyond {FAR:g} at {kinds_of(bench.kinds, far)}"] if result.far else []
    result.note = "; ".join(filter(None, [result.note, *where]))


def kinds_of(kinds: list[str], wrong) -> str:
    """The kinds of the rows marked wrong, counted, in the order the kinds first come."""
    counts = {}
    for kind, bad in zip(kinds, wrong):
        if bad:
            counts[kind] = counts.get(kind, 0) + 1
    return ", ".join(f"{kind} {count}" for kind, count in counts.items())


def python_module(source: str, name: str) -> dict:
    namespace = {"__name__": name}
    exec(compile(source, f"<{name}>", "exec"), namespace)
    return namespace


def label_by_rule(case: Case, p) -> list[str]:
    """The label a library gives a probability of the second class (p > 0.5: predict's rule for
    XGBoost and LightGBM; scikit-learn's argmax and CatBoost's raw > 0 differ only at p == 0.5)."""
    classes = case.estimator.classes_
    return [str(classes[int(v > 0.5)]) for v in np.asarray(p, dtype=np.float64).tolist()]


# -- the tools -----------------------------------------------------------------------------------


@dataclass
class Bench:
    """What every tool is given: the case, the imported model, the probe rows and the timed rows."""

    case: Case
    model: object
    probes: Rows
    timed: Rows
    kinds: list[str]  # what each probe row tests (probe_kind)
    want_labels: list
    want_p: np.ndarray
    seconds: float
    repeat: int
    directory: str
    sql_timeout: float
    results: list = field(default_factory=list)

    def add(self, result: Result) -> Result:
        self.results.append(result)
        print(f"... {self.case.library}: {result.tool} {result.note}", file=sys.stderr, flush=True)
        return result

    def time_calls(self, result: Result, one: Callable[[int], object], run_all: Callable[[], object]) -> None:
        result.one_row = one_row_time(one, len(self.timed.values), self.seconds)
        result.batch = batch_time(run_all, len(self.timed.values), self.seconds)


def library_itself(bench: Bench) -> None:
    case, X = bench.case, bench.timed.matrix
    result = bench.add(Result(f"{case.library} {case.version} predict_proba", note="the reference"))
    bench.time_calls(result, lambda i: case.proba(X[i:i + 1]), lambda: case.proba(X))


def treegen_import(bench: Bench) -> None:
    case = bench.case
    _, seconds = best_cpu(lambda: import_file(case.path), bench.repeat)
    bench.add(Result("treegen import_file", prepare=f"{seconds:.2f} s"))
    try:
        _, seconds = best_cpu(lambda: from_object(case.estimator), bench.repeat)
        bench.add(Result("treegen from_object", prepare=f"{seconds:.2f} s"))
    except Exception as err:
        bench.add(Result("treegen from_object", note=why(err)))


def treegen_source(bench: Bench, target: str, **options) -> tuple[Result, str | None]:
    result = bench.add(Result(f"treegen {target}" + (f" ({options['dialect']})" if "dialect" in options else "")))
    try:
        source, seconds = best_cpu(lambda: emit(bench.model, target, **options), bench.repeat)
    except Exception as err:  # a target that cannot render the model yet says so
        result.note = ("refused: " if type(err).__name__ == "TreegenError" else "fails: ") + why(err)
        return result, None
    result.generate = f"{seconds:.2f} s, {len(source) / 1e6:.1f} MB"
    return result, source


def treegen_python(bench: Bench) -> None:
    result, source = treegen_source(bench, "python")
    if source is not None:
        generated_python(bench, result, source, "predict_proba_values", "predict_values", bench.probes.values,
                         bench.timed.values)


def generated_python(bench: Bench, result: Result, source: str, proba: str, label: str | None, probes: list,
                     rows: list) -> None:
    """Load a generated module and measure its function ``proba`` (the class probabilities of a row)
    and ``label`` (the label; None: decided from the probability), given rows as ``probes`` and
    ``rows`` hold them."""
    module, seconds = cpu_seconds(lambda: python_module(source, "generated_model"))
    result.prepare = f"{seconds:.2f} s (compile)"
    call = module[proba]
    p = [call(v)[1] for v in probes]
    compare(bench, result, [module[label](v) for v in probes] if label else label_by_rule(bench.case, p), p)
    bench.time_calls(result, lambda i: call(rows[i]), lambda: [call(v) for v in rows])


def m2cgen_export(bench: Bench, language: str) -> tuple[Result, str | None]:
    result = bench.add(Result(f"m2cgen {language}"))
    try:
        import m2cgen
    except ImportError as err:
        result.note = f"not installed ({err})"
        return result, None
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100_000)  # m2cgen recurses over the sum of every tree
    try:
        source, seconds = cpu_seconds(lambda: getattr(m2cgen, f"export_to_{language}")(bench.case.estimator))
    except Exception as err:
        result.note = f"m2cgen {m2cgen.__version__} fails: {why(err)}"
        return result, None
    finally:
        sys.setrecursionlimit(limit)
    result.generate = f"{seconds:.2f} s, {len(source) / 1e6:.1f} MB"
    return result, source


def m2cgen_python(bench: Bench) -> None:
    result, source = m2cgen_export(bench, "python")
    if source is not None:
        generated_python(bench, result, source, "score", None, bench.probes.matrix.tolist(),
                         bench.timed.matrix.tolist())


# -- Java --------------------------------------------------------------------------------------------

# Reads rows (one a line, cells separated by tabs, empty = missing), ROW turns the Object[] ``cells``
# (Double, String or null) and the double[] ``numbers`` (NaN for missing or a non-number) into what
# the model takes, PROBA is the probability of the second class, LABEL the label or "" (decided in
# Python). Prints each probe row's label and probability bits, then the batch and one-row times.
JAVA_HARNESS = r"""
import java.lang.management.*; import java.nio.file.*; import java.util.*;
public class Bench {
    static final ThreadMXBean CPU = ManagementFactory.getThreadMXBean();
    static List<ROWTYPE> read(String path) throws Exception {
        List<ROWTYPE> rows = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(path))) {
            String[] parts = line.split("\t", -1);
            Object[] cells = new Object[parts.length]; double[] numbers = new double[parts.length];
            for (int j = 0; j < parts.length; j++) {
                String s = parts[j];
                boolean text = s.startsWith("s");
                cells[j] = s.isEmpty() ? null : text ? (Object) s.substring(1) : (Object) Double.valueOf(s);
                double v = Double.NaN;
                try { v = s.isEmpty() ? Double.NaN : Double.parseDouble(text ? s.substring(1) : s); }
                catch (NumberFormatException e) { v = Double.NaN; }
                numbers[j] = v;
            }
            rows.add(ROW);
        }
        return rows;
    }
    static double sink = 0;
    static double proba(ROWTYPE row) { return PROBA; }
    static String label(ROWTYPE row) { return LABEL; }
    static double[] probas(List<ROWTYPE> rows) { PROBAS }
    public static void main(String[] a) throws Exception {
        StringBuilder out = new StringBuilder();
        List<ROWTYPE> probes = read(a[0]);
        double[] p = probas(probes);
        for (int i = 0; i < p.length; i++)
            out.append(label(probes.get(i))).append('\t').append(Long.toHexString(Double.doubleToRawLongBits(p[i]))).append('\n');
        System.out.print(out);
        List<ROWTYPE> rows = read(a[1]);
        double seconds = Double.parseDouble(a[2]);
        Random random = new Random(1);
        List<Double> passes = new ArrayList<>();
        long begin = System.nanoTime();
        while (passes.size() < 5 || System.nanoTime() - begin < seconds * 1e9) {
            Collections.shuffle(rows, random);
            long start = CPU.getCurrentThreadCpuTime();
            sink += probas(rows)[0];
            passes.add((double) (CPU.getCurrentThreadCpuTime() - start) / rows.size());
        }
        List<Double> late = new ArrayList<>(passes.subList(passes.size() / 2, passes.size()));
        Collections.sort(late);
        double[] noise = new double[1 << 20];
        List<Long> timed = new ArrayList<>(), bare = new ArrayList<>();
        long end = System.nanoTime() + (long) (seconds * 1e9);
        while (timed.size() < 20 || System.nanoTime() < end && timed.size() < 20000) {
            ROWTYPE row = rows.get(random.nextInt(rows.size()));
            for (int i = 0; i < noise.length; i += 8) noise[i] += 1;
            long start = CPU.getCurrentThreadCpuTime();
            sink += proba(row);
            timed.add(CPU.getCurrentThreadCpuTime() - start);
            start = CPU.getCurrentThreadCpuTime();
            bare.add(CPU.getCurrentThreadCpuTime() - start);
        }
        Collections.sort(timed); Collections.sort(bare);
        System.out.println("TIMES " + late.get(late.size() / 2) + " "
            + (timed.get(timed.size() / 2) - bare.get(bare.size() / 2)) + " " + (sink + noise[0] > 0 ? "" : " "));
    }
}
"""
# PROBAS: the probabilities of the second class of a list of rows -- a batch: treegen's rows API, a
# loop of one-row calls where the tool has none.
ONE_BY_ONE = ("double[] p = new double[rows.size()]; for (int i = 0; i < p.length; i++) p[i] = proba(rows.get(i)); "
              "return p;")
JAVA_CALLS = {  # tool: (row type, row, probability of the second class, label or "", probabilities of a list)
    "treegen": ("double[]", "TreegenModel.encode(cells)", "TreegenModel.predictProba(row)[1]",
                "TreegenModel.predict(row)",
                "double[][] s = TreegenModel.predictProbaRows(rows.toArray(new double[0][])); double[] p = "
                "new double[s.length]; for (int i = 0; i < p.length; i++) p[i] = s[i][1]; return p;"),
    "m2cgen": ("double[]", "numbers", "Model.score(row)[1]", "\"\"", ONE_BY_ONE),
}


def write_cells(path: str, rows: Rows, model) -> None:
    """Rows for the harness: numbers as Python writes them (Java reads them back exactly), category
    texts after an ``s``, empty for missing."""
    with open(path, "w", encoding="utf-8") as handle:
        for values in rows.values:
            cells = []
            for feature, value in zip(model.features, values):
                if feature.is_numeric:  # (Java's and JavaScript's infinities are spelt so)
                    cells.append("" if math.isnan(value) else {math.inf: "Infinity", -math.inf: "-Infinity"}.get(
                        value, repr(value)))
                else:
                    cells.append("" if value is None else "s" + value)
            handle.write("\t".join(cells) + "\n")


def run_java(bench: Bench, result: Result, tool: str, source: str, class_name: str) -> None:
    row_type, row, proba, label, probas = JAVA_CALLS[tool]
    harness = (JAVA_HARNESS.replace("ROWTYPE", row_type).replace("ROW", row).replace("PROBAS", probas)
               .replace("PROBA", proba).replace("LABEL", label))
    work, probes_path, timed_path = harness_directory(bench, f"{tool}-java-",
                                                      {class_name + ".java": source, "Bench.java": harness})
    start = time.perf_counter()
    compiled = subprocess.run(["javac", "-J-Xss64m", "-nowarn", class_name + ".java", "Bench.java"], cwd=work,
                              capture_output=True, text=True)
    if compiled.returncode != 0:
        result.note = "javac fails: " + " ".join(compiled.stderr.strip().splitlines()[:1])[:160]
        return
    result.prepare = f"{time.perf_counter() - start:.1f} s (javac, wall)"
    ran = subprocess.run(["java", "-Xss64m", "-cp", work, "Bench", probes_path, timed_path, str(bench.seconds)],
                         capture_output=True, text=True)
    if ran.returncode != 0:
        result.note = "java fails: " + " ".join(ran.stderr.strip().splitlines()[:1])[:160]
        return
    read_harness(bench, result, tool, ran.stdout)


def harness_directory(bench: Bench, prefix: str, files: dict) -> tuple[str, str, str]:
    """A new directory holding ``files`` (name: text) and the probe and timed rows as write_cells writes
    them: the directory, and the paths of the two files of rows."""
    work = tempfile.mkdtemp(prefix=prefix, dir=bench.directory)
    for name, text in files.items():
        with open(os.path.join(work, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    probes_path, timed_path = os.path.join(work, "probes.tsv"), os.path.join(work, "timed.tsv")
    write_cells(probes_path, bench.probes, bench.model)
    write_cells(timed_path, bench.timed, bench.model)
    return work, probes_path, timed_path


def read_harness(bench: Bench, result: Result, tool: str, printed: str) -> None:
    """What a Java or JavaScript harness printed: per probe row its label (treegen's; the library's rule
    for a peer's) and probability bits, compared with the library's, then the batch and one-row times."""
    lines = printed.splitlines()
    answers = [line.split("\t") for line in lines[:-1]]
    p = [float(np.frombuffer(int(bits, 16).to_bytes(8, "little"), dtype=np.float64)[0]) for _, bits in answers]
    compare(bench, result, [text for text, _ in answers] if tool == "treegen" else label_by_rule(bench.case, p), p)
    _, batch_ns, one_ns, *_ = lines[-1].split()
    result.batch, result.one_row = float(batch_ns) / 1e9, float(one_ns) / 1e9


def treegen_java(bench: Bench) -> None:
    result, source = treegen_source(bench, "java")
    if source is not None:
        run_java(bench, result, "treegen", source, "TreegenModel")


def m2cgen_java(bench: Bench) -> None:
    result, source = m2cgen_export(bench, "java")
    if source is not None:
        run_java(bench, result, "m2cgen", source, "Model")


# -- JavaScript --------------------------------------------------------------------------------------

# Node runs the module (CommonJS) on the rows of write_cells: ROW turns ``cells`` (a number, a string or
# null each) and ``numbers`` (NaN for missing or a non-number) into what the model takes, PROBAS(rows) gives
# the probabilities of the second class of a list of rows, LABELS(rows) their labels (null: decided in
# Python). Prints each probe row's label and probability bits, then the batch and one-row times in ns.
JS_HARNESS = r"""
const fs = require("node:fs");
const m = require(process.argv[2]);
const read = (path) => fs.readFileSync(path, "utf8").split("\n").filter((line) => line !== "").map((line) => {
  const parts = line.split("\t");
  const cells = parts.map((s) => s === "" ? null : s.startsWith("s") ? s.slice(1) : Number(s));
  const numbers = parts.map((s) => s === "" || s.startsWith("s") ? NaN : Number(s));
  return ROW;
});
const probas = (rows) => PROBAS;
const labels = (rows) => LABELS;
const probes = read(process.argv[3]);
const p = probas(probes), l = labels(probes), bits = new BigUint64Array(1), number = new Float64Array(bits.buffer);
const out = [];
for (let i = 0; i < p.length; i++) {
  number[0] = p[i];
  out.push(`${l === null ? "" : l[i]}\t${bits[0].toString(16)}`);
}
console.log(out.join("\n"));
const rows = read(process.argv[4]), seconds = Number(process.argv[5]);
let sink = 0, seed = 1;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
const passes = [], begin = process.hrtime.bigint();
while (passes.length < 5 || Number(process.hrtime.bigint() - begin) < seconds * 1e9) {
  for (let i = rows.length - 1; i > 0; i--) {  // a new order each pass, not timed
    const j = Math.floor(random() * (i + 1));
    [rows[i], rows[j]] = [rows[j], rows[i]];
  }
  const start = process.cpuUsage();
  sink += probas(rows)[0];
  const used = process.cpuUsage(start);
  passes.push((used.user + used.system) * 1000 / rows.length);
}
const late = passes.slice(passes.length >> 1).sort((a, b) => a - b);
const noise = new Float64Array(1 << 20), timed = [], bare = [];
const end = process.hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
while (timed.length < 20 || process.hrtime.bigint() < end && timed.length < 20000) {
  const one = [rows[Math.floor(random() * rows.length)]];
  for (let i = 0; i < noise.length; i += 8) noise[i] += 1;
  let start = process.hrtime.bigint();
  sink += probas(one)[0];
  timed.push(Number(process.hrtime.bigint() - start));
  start = process.hrtime.bigint();
  bare.push(Number(process.hrtime.bigint() - start));
}
timed.sort((a, b) => a - b);
bare.sort((a, b) => a - b);
const one = timed[timed.length >> 1] - bare[bare.length >> 1];
console.log(`TIMES ${late[late.length >> 1]} ${one} ${sink + noise[0] > 0 ? "" : " "}`);
"""
JS_CALLS = {  # tool: (row, probabilities of the second class of a list of rows, their labels or null)
    "treegen": ("m.encode(Object.fromEntries(m.FEATURES.map((name, j) => [name, cells[j]])))",
                "m.predictProbaRows(rows).map((s) => s[1])", "m.predictRows(rows)"),
    "m2cgen": ("numbers", "rows.map((row) => m.score(row)[1])", "null"),
}


def run_javascript(bench: Bench, result: Result, tool: str, source: str) -> None:
    """The module in Node: the probes' answers and times through JS_HARNESS. treegen's batch is its rows
    API; m2cgen's a loop of one-row calls. One row a call: wall time (Node's CPU clock counts microseconds)."""
    row, probas, labels = JS_CALLS[tool]
    harness = JS_HARNESS.replace("ROW", row).replace("PROBAS", probas).replace("LABELS", labels)
    work, probes_path, timed_path = harness_directory(bench, f"{tool}-js-", {"model.cjs": source, "bench.cjs": harness})
    ran = subprocess.run(["node", "--stack-size=65500", "bench.cjs", "./model.cjs", probes_path, timed_path,
                          str(bench.seconds)], cwd=work, capture_output=True, text=True)
    if ran.returncode != 0:
        result.note = "node fails: " + " ".join(ran.stderr.strip().splitlines()[:1])[:160]
        return
    read_harness(bench, result, tool, ran.stdout)


def treegen_javascript(bench: Bench) -> None:
    result, source = treegen_source(bench, "javascript", module="commonjs")
    if source is not None:
        run_javascript(bench, result, "treegen", source)


def m2cgen_javascript(bench: Bench) -> None:
    result, source = m2cgen_export(bench, "javascript")
    if source is not None:
        run_javascript(bench, result, "m2cgen", source + "\nmodule.exports = {score};\n")


# -- C ----------------------------------------------------------------------------------------------

# The rows through treegen's C API for many rows (a group of trees over every row before the next), in a
# function compiled beside the model: the probability of the second class, and the labels unless
# ``label`` is NULL (the timed calls).
C_GLUE = r"""
#include <stdlib.h>
#include "model.h"
void batch(const double *rows, long n, double *p, int *label) {
    double *scores = malloc(sizeof(double) * MODEL_N_CLASSES * (size_t) n);
    model_predict_proba_rows(rows, (size_t) n, scores);
    for (long i = 0; i < n; i++) {
        p[i] = scores[i * MODEL_N_CLASSES + 1];
    }
    free(scores);
    if (label != NULL) {
        model_predict_rows(rows, (size_t) n, label);
    }
}
"""


def c_rows(model, rows: Rows) -> np.ndarray:
    """Rows as treegen's C API takes them: numbers, NaN missing, a category's index (-1 unknown) as
    ``model_category`` gives it from the text: a text that reads as a number names the category its code
    does ("2.7" is "2" where LightGBM truncates codes)."""
    from treegen.emit.common import category_codes
    from treegen.model import category_of
    codes = [{c: i for i, c in enumerate(table)} for table in category_codes(model)]
    cast = model.numeric.cast

    def index(j: int, feature, value) -> float:
        category = category_of(feature, value, cast)
        return -1 if category is None else codes[j][category]

    return np.array([[value if feature.is_numeric else math.nan if value is None else index(j, feature, value)
                      for j, (feature, value) in enumerate(zip(model.features, values))]
                     for values in rows.values], dtype=np.float64).reshape(len(rows.values), len(model.features))


def treegen_c(bench: Bench) -> None:
    """treegen's C, built by gcc -O3 into a library that Python calls as it calls tl2cgen's (which builds
    with -O3 too): a batch of rows a call (one row a call for the one-row time)."""
    import ctypes
    from treegen.emit.c import header
    result, source = treegen_source(bench, "c")
    if source is None:
        return
    work = tempfile.mkdtemp(prefix="treegen-c-", dir=bench.directory)
    for name, text in (("model.c", source), ("model.h", header(source)), ("glue.c", C_GLUE)):
        with open(os.path.join(work, name), "w", encoding="utf-8") as handle:
            handle.write(text)
    start = time.perf_counter()
    built = subprocess.run(["gcc", "-O3", "-shared", "-fPIC", "-o", "model.so", "model.c", "glue.c", "-lm"],
                           cwd=work, capture_output=True, text=True)
    if built.returncode != 0:
        result.note = "gcc fails: " + " ".join(built.stderr.strip().splitlines()[:1])[:160]
        return
    result.prepare = f"{time.perf_counter() - start:.1f} s (gcc, wall)"
    library = ctypes.CDLL(os.path.join(work, "model.so"))

    def predict(rows: np.ndarray, label: np.ndarray | None = None) -> np.ndarray:
        p = np.empty(len(rows))
        library.batch(rows.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(len(rows)), p.ctypes.data_as(ctypes.c_void_p),
                      None if label is None else label.ctypes.data_as(ctypes.c_void_p))
        return p

    probes = c_rows(bench.model, bench.probes)
    label = np.empty(len(probes), dtype=np.int32)
    p = predict(probes, label)
    compare(bench, result, [bench.model.target.classes[k] for k in label], p)
    timed = c_rows(bench.model, bench.timed)
    bench.time_calls(result, lambda i: predict(timed[i:i + 1]), lambda: predict(timed))


# -- SQL (DuckDB) ----------------------------------------------------------------------------------


def duckdb_with(model, rows: Rows):
    """A one-thread DuckDB connection with the rows in table ``input`` (NaN stays NaN, None is NULL)."""
    import duckdb
    from treegen.run.sql import create_table
    connection = duckdb.connect()
    connection.execute("SET threads = 1")
    connection.execute(create_table(model, "duckdb"))
    columns = {}
    for k, feature in enumerate(model.features):
        column = [values[k] for values in rows.values]
        if feature.is_numeric:
            columns[f"v{k}"] = np.array(column, dtype=np.float64)
            columns[f"n{k}"] = np.isnan(columns[f"v{k}"])
        else:
            columns[f"v{k}"] = np.array(column, dtype=object)
    selected = [f"CASE WHEN n{k} THEN NULL ELSE v{k} END" if f.is_numeric else f"v{k}"
                for k, f in enumerate(model.features)]
    connection.register("loaded", columns)
    connection.execute(f"INSERT INTO input SELECT {', '.join(selected)} FROM loaded")
    connection.unregister("loaded")
    return connection


def with_timeout(connection, seconds: float, fn):
    """``fn()``, interrupting the connection's query after ``seconds``."""
    timer = threading.Timer(seconds, connection.interrupt)
    timer.start()
    try:
        return fn()
    finally:
        timer.cancel()


def treegen_duckdb(bench: Bench) -> None:
    result, source = treegen_source(bench, "sql", dialect="duckdb", proba=True)
    if source is None:
        return
    width = len(bench.model.features)  # the query's columns: the features, the label, the probabilities

    def answers(connection) -> list[tuple]:
        return with_timeout(connection, bench.sql_timeout, lambda: connection.execute(source).fetchall())

    try:
        got = answers(duckdb_with(bench.model, bench.probes))
        compare(bench, result, [str(r[width]) for r in got],
                [math.nan if r[width + 2] is None else r[width + 2] for r in got])
        timed = bench.timed
        one = duckdb_with(bench.model, Rows(timed.dicts[:1], timed.values[:1], timed.matrix[:1]))
        everything = duckdb_with(bench.model, timed)
        _, result.one_row = best_cpu(lambda: answers(one), bench.repeat)
        _, seconds = best_cpu(lambda: answers(everything), bench.repeat)
        result.batch = (seconds - result.one_row) / (len(timed.values) - 1)  # planning is in the one row
    except Exception as err:
        result.note = f"DuckDB fails or took over {bench.sql_timeout:.0f} s: {why(err)}"


# -- treelite, tl2cgen, lleaves, ONNX Runtime ----------------------------------------------------------


def treelite_model(case: Case):
    """The model as treelite reads it, or an exception naming why not."""
    import treelite
    if case.library == "XGBoost":
        return treelite.frontend.load_xgboost_model(case.path, format_choice="json")
    if case.library == "LightGBM":
        return treelite.frontend.load_lightgbm_model(case.path)
    if case.library == "scikit-learn":
        import treelite.sklearn
        return treelite.sklearn.import_model(case.estimator)
    raise NotImplementedError(f"treelite {treelite.__version__} has no {case.library} front end")


def second_class(output) -> np.ndarray:
    """The probability of the second class from an (n, 1, 1) or (n, 2) array of probabilities."""
    output = np.asarray(output, dtype=np.float64).reshape(len(output), -1)
    return output[:, -1]


def peer_from_matrix(bench: Bench, result: Result, predict: Callable[[np.ndarray], np.ndarray]) -> None:
    """Probes and times of a peer that takes a float64 matrix and returns the second class's probability."""
    p = predict(bench.probes.matrix)
    compare(bench, result, label_by_rule(bench.case, p), p)
    X = bench.timed.matrix
    bench.time_calls(result, lambda i: predict(X[i:i + 1]), lambda: predict(X))


def treelite_gtil(bench: Bench) -> None:
    result = bench.add(Result("treelite GTIL"))
    try:
        import treelite
        model, seconds = cpu_seconds(lambda: treelite_model(bench.case))
        result.tool = f"treelite {treelite.__version__} GTIL"
        result.prepare = f"{seconds:.2f} s (import)"
        dtype = np.float32 if "float32" in str(model.input_type) else np.float64
        peer_from_matrix(bench, result, lambda X: second_class(
            treelite.gtil.predict(model, np.asarray(X, dtype=dtype), nthread=1)))
    except Exception as err:
        result.note = why(err)


def tl2cgen_library(bench: Bench) -> None:
    result = bench.add(Result("tl2cgen (C, gcc)"))
    try:
        import tl2cgen
        model = treelite_model(bench.case)
        result.tool = f"tl2cgen {tl2cgen.__version__} (C, gcc)"
        path = os.path.join(bench.directory, f"tl2cgen-{bench.case.library}.so")
        start = time.perf_counter()
        tl2cgen.export_lib(model, toolchain="gcc", libpath=path, params={"parallel_comp": 8}, nthread=2)
        result.prepare = f"{time.perf_counter() - start:.1f} s (gcc, wall)"
        predictor = tl2cgen.Predictor(path, nthread=1)
        dtype = "float32" if "float32" in str(model.input_type) else "float64"
        peer_from_matrix(bench, result, lambda X: second_class(
            predictor.predict(tl2cgen.DMatrix(np.asarray(X, dtype=dtype), dtype=dtype))))
    except Exception as err:
        result.note = why(err)


def lleaves_model(bench: Bench) -> None:
    if bench.case.library != "LightGBM":
        return
    result = bench.add(Result("lleaves"))
    try:
        import lleaves
        model = lleaves.Model(model_file=bench.case.path)
        result.tool = f"lleaves {importlib.metadata.version('lleaves')} (LLVM)"
        start = time.perf_counter()
        model.compile()
        result.prepare = f"{time.perf_counter() - start:.1f} s (LLVM, wall)"
        peer_from_matrix(bench, result, lambda X: np.asarray(model.predict(X, n_jobs=1), dtype=np.float64))
    except Exception as err:
        result.note = why(err)


CATBOOST_CPP_GLUE = r"""
#include <cmath>
#include <vector>
#include "model.cpp"
extern "C" void batch(const double *rows, long n, long width, double *p) {
    std::vector<float> row(width);
    for (long i = 0; i < n; i++) {
        for (long j = 0; j < width; j++) {
            row[j] = (float) rows[i * width + j];  // as CatBoost's predict reads a float64 matrix
        }
        p[i] = 1.0 / (1.0 + std::exp(-ApplyCatboostModel(row)));  // CatBoost's sigmoid of the raw sum
    }
}
"""


def catboost_cpp(bench: Bench) -> None:
    """CatBoost's own C++ export (``save_model(format="cpp")``), built by g++ -O3 into a library that
    Python calls as it calls treegen's C: a batch of rows a call, each row's doubles made floats as
    CatBoost's predict makes them, the probability its sigmoid of the raw sum."""
    if bench.case.library != "CatBoost":
        return
    import ctypes
    result = bench.add(Result("CatBoost's C++ export (g++)"))
    work = tempfile.mkdtemp(prefix="catboost-cpp-", dir=bench.directory)
    bench.case.estimator.save_model(os.path.join(work, "model.cpp"), format="cpp")
    with open(os.path.join(work, "glue.cpp"), "w", encoding="utf-8") as handle:
        handle.write(CATBOOST_CPP_GLUE)
    start = time.perf_counter()
    built = subprocess.run(["g++", "-O3", "-shared", "-fPIC", "-o", "model.so", "glue.cpp"], cwd=work,
                           capture_output=True, text=True)
    if built.returncode != 0:
        result.note = "g++ fails: " + " ".join(built.stderr.strip().splitlines()[:1])[:160]
        return
    result.prepare = f"{time.perf_counter() - start:.1f} s (g++, wall)"
    library = ctypes.CDLL(os.path.join(work, "model.so"))

    def predict(X: np.ndarray) -> np.ndarray:
        X = np.ascontiguousarray(X, dtype=np.float64)
        p = np.empty(len(X))
        library.batch(X.ctypes.data_as(ctypes.c_void_p), ctypes.c_long(len(X)), ctypes.c_long(X.shape[1]),
                      p.ctypes.data_as(ctypes.c_void_p))
        return p

    peer_from_matrix(bench, result, predict)


def onnx_model(case: Case, directory: str) -> tuple[bytes, str]:
    """The fitted model converted to ONNX by onnxmltools (skl2onnx for scikit-learn), and a note.
    Where onnxmltools fails on a CatBoost model, CatBoost's own ONNX export (what onnxmltools calls)."""
    import onnxmltools
    from onnxmltools.convert.common.data_types import FloatTensorType
    width = case.estimator.n_features_in_
    types = [("input", FloatTensorType([None, width]))]
    if case.library == "XGBoost":
        return onnxmltools.convert_xgboost(case.estimator, initial_types=types).SerializeToString(), ""
    if case.library == "LightGBM":
        return onnxmltools.convert_lightgbm(case.estimator, initial_types=types, zipmap=False).SerializeToString(), ""
    if case.library == "scikit-learn":
        import skl2onnx
        from skl2onnx.common.data_types import FloatTensorType as SklearnFloats
        return skl2onnx.to_onnx(case.estimator, initial_types=[("input", SklearnFloats([None, width]))],
                                options={"zipmap": False}).SerializeToString(), ""
    try:
        return onnxmltools.convert_catboost(case.estimator).SerializeToString(), ""
    except Exception as err:
        path = os.path.join(directory, "catboost.onnx")
        case.estimator.save_model(path, format="onnx")
        with open(path, "rb") as handle:
            return handle.read(), f"onnxmltools fails ({why(err)}): CatBoost's own save_model(format='onnx')"


def onnx_runtime(bench: Bench) -> None:
    result = bench.add(Result("ONNX Runtime"))
    try:
        import onnxruntime
        (converted, result.note), seconds = cpu_seconds(lambda: onnx_model(bench.case, bench.directory))
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.log_severity_level = 3
        session = onnxruntime.InferenceSession(converted, options,
                                               providers=["CPUExecutionProvider"])
        result.tool = f"ONNX Runtime {onnxruntime.__version__} (onnxmltools)"
        result.prepare = f"{seconds:.2f} s (convert)"
        given = session.get_inputs()[0]
        dtype = np.float64 if given.type == "tensor(double)" else np.float32
        outputs = [o.name for o in session.get_outputs()]
        probabilities = next(name for name in outputs if "prob" in name.lower())

        def predict(X):
            answer = session.run([probabilities], {given.name: np.asarray(X, dtype=dtype)})[0]
            if isinstance(answer, list):  # a ZipMap: one dict of class -> probability a row
                return np.array([row[list(row)[-1]] for row in answer], dtype=np.float64)
            return second_class(answer)

        peer_from_matrix(bench, result, predict)
    except Exception as err:
        result.note = why(err)


TOOLS = {"library": library_itself, "import": treegen_import, "python": treegen_python, "java": treegen_java,
         "javascript": treegen_javascript, "c": treegen_c, "sql": treegen_duckdb, "m2cgen-python": m2cgen_python,
         "m2cgen-java": m2cgen_java, "m2cgen-javascript": m2cgen_javascript,
         "treelite": treelite_gtil, "tl2cgen": tl2cgen_library, "lleaves": lleaves_model, "onnx": onnx_runtime,
         "catboost-cpp": catboost_cpp}


# -- the report ----------------------------------------------------------------------------------


def duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    if seconds < 0:  # a difference of two timings (DuckDB's further rows) smaller than their noise
        return "within noise"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e6:.1f} µs" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"


def table(case: Case, model, bench: Bench) -> list[str]:
    nodes = sum(len(tree.nodes) for tree in model.trees)
    lines = [f"### {case.library} {case.version}: {case.note}; {len(model.trees)} trees, {nodes} nodes; "
             f"{len(bench.probes.values)} probe rows, {len(bench.timed.values)} timed rows",
             "",
             "| tool | import / build | generate | one row | batch, per row | probes: label differs "
             f"| probes: value not bit-identical (largest difference) / beyond {FAR:g} | note |",
             "|---|---|---|---:|---:|---:|---:|---|"]
    for r in bench.results:
        wrong = "" if r.label_wrong is None else f"{r.label_wrong}"
        value = "" if r.value_wrong is None else (
            f"{r.value_wrong}" + (f" ({r.largest_difference:.2g})" if r.value_wrong else "") + f" / {r.far}")
        lines.append(f"| {r.tool} | {r.prepare} | {r.generate} | {duration(r.one_row)} | {duration(r.batch)} "
                     f"| {wrong} | {value} | {r.note} |")
    return lines


def treegen_origin() -> str:
    """Where the treegen measured comes from: its folder, and the commit and branch there."""
    folder = os.path.dirname(os.path.dirname(os.path.abspath(treegen.__file__)))

    def git(*args):
        done = subprocess.run(["git", "-C", folder, *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else "?"

    dirty = " with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    branch, commit = git("rev-parse", "--abbrev-ref", "HEAD"), git("rev-parse", "--short", "HEAD")
    return f"treegen from {folder}: {branch} at {commit}{dirty}"


def load_average() -> str:
    return " ".join(f"{v:.1f}" for v in os.getloadavg())


def bench_library(name: str, args, directory: str) -> list[str]:
    X, codes, y = synthetic(args.rows, seed=0)
    X_held, codes_held, _ = synthetic(max(args.random, args.timed), seed=1)
    print(f"... fitting {name}", file=sys.stderr, flush=True)
    case, seconds = cpu_seconds(lambda: FITTERS[name](X, codes, y, args.trees, directory))
    case.note += f"; fitted in {seconds:.1f} s CPU on {args.rows} rows"
    model = import_file(case.path)
    held = np.column_stack([X_held, codes_held]) if case.nominal else X_held
    probe_dicts = probe_rows(model, args.probes)
    kinds = [probe_kind(row) for row in probe_dicts]
    edges, edge_kinds = edge_dicts(model, probe_dicts[0])
    data = data_dicts(model, held[:args.random], case.nominal)
    probes = Rows.of(model, probe_dicts + edges + data)
    kinds += edge_kinds + ["data"] * len(data)
    timed = Rows.of(model, data_dicts(model, held[:args.timed], case.nominal))
    want_labels = [str(v) for v in case.label(probes.matrix)]
    want_p = np.asarray(case.proba(probes.matrix), dtype=np.float64)
    bench = Bench(case, model, probes, timed, kinds, want_labels, want_p, args.seconds, args.repeat, directory,
                  args.sql_timeout)
    for tool in [TOOLS[name] for name in args.tools.split(",")]:
        try:
            tool(bench)
        except Exception as err:  # a tool's crash is a row of the table, never the end of the bench
            bench.add(Result(tool.__name__, note=f"fails: {why(err)}"))
    return table(case, model, bench)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", type=int, default=500)
    parser.add_argument("--rows", type=int, default=5000, help="training rows")
    parser.add_argument("--probes", type=int, default=2000, help="the least number of rows from probe_rows")
    parser.add_argument("--random", type=int, default=2000, help="held-out data rows added to the probes")
    parser.add_argument("--timed", type=int, default=1000, help="held-out data rows that the timings use")
    parser.add_argument("--seconds", type=float, default=1.0, help="per timing (one row, batch)")
    parser.add_argument("--repeat", type=int, default=2, help="imports and code generation: best of")
    parser.add_argument("--sql-timeout", type=float, default=120.0)
    parser.add_argument("--libraries", default=",".join(LIBRARIES), help=f"some of {','.join(LIBRARIES)}")
    parser.add_argument("--tools", default=",".join(TOOLS), help=f"some of {','.join(TOOLS)}")
    args = parser.parse_args(argv)
    for option, given, known in (("--libraries", args.libraries, LIBRARIES), ("--tools", args.tools, TOOLS)):
        unknown = [name for name in given.split(",") if name not in known]
        if unknown:
            parser.error(f"{option}: unknown {', '.join(unknown)}; choose from {','.join(known)}")
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr.splitlines()
    print(f"{treegen_origin()}; Python {sys.version.split()[0]}, numpy {np.__version__}, "
          f"{java[0] if java else 'no Java'}; {os.cpu_count()} cores; load average before: {load_average()}")
    with tempfile.TemporaryDirectory(prefix="treegen-bench-boosting-") as directory:
        for name in args.libraries.split(","):
            try:
                lines = bench_library(name, args, directory)
            except Exception as err:  # a library that is not installed or cannot fit
                lines = [f"### {name}: not measured ({why(err)})"]
            print("\n" + "\n".join(lines), flush=True)
    print(f"\nload average after: {load_average()}")


if __name__ == "__main__":
    main()
