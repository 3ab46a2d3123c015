"""treegen: a compiler for decision trees.

>>> import treegen
>>> model = treegen.train("examples/play_tennis.csv", target="play", algorithm="id3")
>>> model.predict({"outlook": "overcast"})
'yes'
>>> python_source = treegen.export(model, "python", proba=True)
>>> report = treegen.verify(model, to="python")     # the code generated, run and compared, as `treegen verify`
>>> assert report.ok, str(report)
"""
from __future__ import annotations

from .errors import TreegenError, TreegenWarning  # (a bad argument's TreegenError is a ValueError too)

__version__ = "0.1.0"
__all__ = ["train", "evaluate", "load", "save", "export", "predict", "predict_proba", "verify", "import_model",
           "from_model", "from_sklearn", "from_xgboost", "from_lightgbm", "from_catboost", "TreegenWarning",
           "TreegenError", "Model", "__version__"]


def __getattr__(name: str):
    """treegen.Model, treegen.Feature, treegen.Target: imported when first asked for (they bring numpy)."""
    if name in ("Model", "Feature", "Target"):
        from . import model
        return getattr(model, name)
    raise AttributeError(f"module 'treegen' has no attribute {name!r}")


def train(data, target: str | None = None, algorithm: str = "c45", nominal=(), regression=None, ignore=(),
          **params):
    """Learn a tree with id3, c45 or cart from a CSV or ARFF file, or a pandas DataFrame; returns a
    :class:`treegen.model.Model`. A frame is read as its CSV text is (``df.to_csv()`` in a file trains the
    same tree), but for its columns that are not of numbers (text, category, Boolean), which are nominal,
    and its float32 numbers, read as the float64 values they are (their text is another number); a date or
    time (datetime64, timedelta64) is the category of its text as ``str`` gives it, as predict reads it.
    ``target``: a column's name (default: the last column); ``nominal``, ``ignore``: column names;
    ``regression``: True or False (cart; None: a numeric target is a regression). What the CLI warns of
    (a column of dates read as categories, a 0/1 target learnt as a regression, ...) is a
    :class:`TreegenWarning`."""
    from .learn import fit
    return fit(_learning_data(data, target, algorithm, nominal, regression, ignore, params), algorithm, **params)


def _learning_data(data, target, algorithm, nominal, regression, ignore, params):
    """The data set that :func:`train` and :func:`evaluate` learn from (with the learner's ``params``), what reading
    it decided that its user may not have meant warned of as a TreegenWarning at their caller's line."""
    import os
    import warnings
    from .data import PYTHON, learning_data, learns_float32, read_table, refuse_regression
    from .inputs import frame_table, train_names, train_target
    refuse_regression(algorithm, regression, PYTHON)
    chosen, ignore = train_names(nominal, "nominal"), train_names(ignore, "ignore")
    nominal = chosen
    if isinstance(data, str) or hasattr(data, "__fspath__"):
        table = read_table(os.fspath(data))
    else:
        table, named, categories = frame_table(data)
        nominal, chosen = [*chosen, *named], [*chosen, *categories]  # a category column: nominal as chosen
    dataset, lines = learning_data(table, train_target(data, target), nominal, ignore, regression, algorithm,
                                   PYTHON, chosen, learns_float32(algorithm, params))
    for line in lines:
        warnings.warn(line, TreegenWarning, stacklevel=3)
    return dataset


def evaluate(data, target: str | None = None, algorithm: str | None = None, nominal=(), regression=None, ignore=(),
             *, test=None, folds: int | None = None, loo: bool = False, seed: int | None = None, **params):
    """Measure a learner by cross-validation or on test rows, or a model on test rows, as ``treegen evaluate``
    does: the same numbers, and ``str(report)`` its text.

    >>> import treegen
    >>> report = treegen.evaluate("examples/play_tennis.csv", target="play", algorithm="id3", loo=True)
    >>> report.accuracy, report.recall["yes"]
    (0.7857142857142857, 0.8888888888888888)
    >>> print(report)                           # doctest: +NORMALIZE_WHITESPACE
    leave-one-out: 14 predictions
    accuracy 78.57% (11/14)
    <BLANKLINE>
    confusion matrix (rows: true class, columns: predicted)
               no    yes
        no      3      2
       yes      1      8
    <BLANKLINE>
     class precision recall     F1 support
        no     0.750  0.600  0.667       5
       yes     0.800  0.889  0.842       9

    data : what a learner learns from, as :func:`train` takes it (a CSV or ARFF file's path, a pandas
        DataFrame), with ``target``, ``algorithm`` (default 'c45'), ``nominal``, ``regression``, ``ignore`` and
        the learner's parameters (``params``: c45's confidence, min_leaf, unpruned, ...; cart's max_depth,
        criterion, ccp_alpha, ...) as :func:`train` takes them; tested by stratified ``folds``-fold
        cross-validation (default 10, the folds drawn by ``seed``, default 1), leave-one-out (``loo=True``), or
        on ``test``. Or a model, as :func:`export` takes it (a Model, a model file's path, a fitted estimator),
        tested as it is on ``test``, its labels in the column named as its target or ``target``.
    test : labelled rows: a CSV or ARFF file's path, a pandas DataFrame or a list of row dicts (the labels in
        their column); or ``(X, y)``: ``X`` as :func:`verify` takes its data (a frame, a 2-D array or list of
        sequences with a column per feature in the model's order, a list of row dicts) and ``y`` the labels.

    Returns a :class:`treegen.evaluation.Report`: for classes ``accuracy``, ``confusion_matrix`` (rows: true
    class, columns: predicted, in the order of ``classes``), ``precision``, ``recall``, ``f1`` and ``support``
    ({class: number}); for a regression ``rmse``, ``mae`` and ``r2``; ``truth`` and ``predicted``, each row's
    label and answer. A bad argument raises a one-line :class:`~treegen.errors.TreegenError`; what the CLI warns
    or notes of the data is a :class:`TreegenWarning`."""
    import os
    from .evaluation import cross_validate, fold_count, holdout, one_method
    model = _model_of(data)
    if model is not None:
        given = {"algorithm": algorithm, "nominal": nominal or None, "regression": regression,
                 "ignore": ignore or None, "folds": folds, "loo": loo or None, "seed": seed, **params}
        where = os.fspath(data) if isinstance(data, (str, os.PathLike)) else None
        return _evaluate_model(model, where, target, test, [name for name, value in given.items()
                                                            if value is not None])
    from .errors import BadArgument
    one_method(folds, loo, test)
    if seed is not None and (loo or test is not None):
        raise BadArgument("seed= draws the folds of folds=: it does not apply to " + ("loo=" if loo else "test="))
    algorithm = "c45" if algorithm is None else algorithm
    dataset = _learning_data(data, target, algorithm, nominal, regression, ignore, params)
    if test is not None:
        return holdout(dataset, _test_rows(test), algorithm, say=_near_categories, **params)
    return cross_validate(dataset, algorithm, k=fold_count(dataset, folds, loo), loo=loo, seed=1 if seed is None else seed, **params)


def _model_of(data):
    """:func:`evaluate`'s ``data`` as a model, or None for data (a path is told by its file, as the CLI tells it)."""
    import os
    from .errors import NotAModel
    from .inputs import is_frame
    from .loading import as_model, is_model_file
    if isinstance(data, (str, os.PathLike)):
        return as_model(data) if is_model_file(os.fspath(data)) else None
    if is_frame(data):
        return None
    try:
        return as_model(data)
    except NotAModel:
        raise NotAModel("treegen.evaluate takes data to learn from (a CSV or ARFF file's path, a pandas DataFrame) "
                        f"or a model to test on test=; got {type(data).__name__}") from None


def _evaluate_model(model, where: str | None, target, test, learning: list[str]):
    """:func:`evaluate` of a model as it is (read from the file ``where``, if from one), on the labelled rows
    ``test``; ``learning``: the arguments given that are for learning, refused."""
    from .errors import BadArgument
    from .evaluation import test_model
    if learning:
        raise BadArgument(f"{learning[0]}= is for learning from data, and this is a model: evaluate tests it as "
                          "it is, on test=", where)
    if test is None:
        raise BadArgument("a model is evaluated on labelled rows: give them as test=", where)
    table = _test_rows(test, target)
    table = table(model) if callable(table) else table
    _near_categories(table, model, target)
    return test_model(model, table, target, name=where or "the model")


def _test_rows(test, target: str | None = None):
    """:func:`evaluate`'s ``test``: a file's table, or a function that reads the rows for the model (``(X, y)``:
    ``y`` as the column ``target``, else named as the model's target)."""
    import os
    from .inputs import labelled_table
    if isinstance(test, (str, os.PathLike)):
        from .data import read_table
        return read_table(os.fspath(test))
    if isinstance(test, tuple) and len(test) == 2 and not isinstance(test[0], dict):
        return lambda model: labelled_table(model, *test, label=target)
    return lambda model: labelled_table(model, test)


def _near_categories(table, model, label=None) -> None:
    """The CLI's notes on values of the test rows that are no category of the model but for spaces or case."""
    import warnings
    from .data import near_category_notes
    for line in near_category_notes(table, model, model.target.name if label is None else label):
        warnings.warn(line, TreegenWarning, stacklevel=4)


def load(path: str):
    """A model from a file: a treegen JSON model, rule text, or a model file of a library that
    :func:`import_model` reads (XGBoost, LightGBM, CatBoost, scikit-learn's .skops: see ``treegen import
    --help``), read as it reads it without options. A pickle or joblib file is refused: loading one runs
    code stored in it (``import_model(path, trust=True)`` does, for a trusted file)."""
    from .loading import load_model
    return load_model(path)


def save(model, path: str) -> None:
    """Write a model (any that :func:`export` takes) as JSON (docs/model-format.md)."""
    from .loading import as_model
    from .modelio import save as save_json
    save_json(as_model(model), path)


def export(model, to: str, **options) -> str:
    """Generate python, java, javascript, c, sql, rules or dot text (or an SVG) for a model: a
    :class:`treegen.model.Model`; a model file's path, read as :func:`load` reads it; a fitted
    :mod:`treegen.estimator` (its ``model_``); or a fitted scikit-learn, XGBoost, LightGBM or CatBoost model,
    converted as :func:`from_model` converts it. Anything else is a TypeError (a TreegenError)."""
    from .loading import as_model
    from .targets import emit
    return emit(as_model(model), to, **options)


from .targets import api_doc as _api_doc  # noqa: E402

export.__doc__ = _api_doc(export.__doc__)  # the targets and their options, from the table the CLI reads too


def predict(model, X):
    """Each row's label (classification) or value (regression) as a numpy array, exactly what
    ``model.predict(row)`` gives row by row. ``X``: a pandas DataFrame (columns by feature name), a 2-D array
    or a list of sequences (a value per feature, in ``model.features`` order) or a list of row dicts. ``model``:
    any that :func:`export` takes."""
    from .inputs import predict as predict_table
    from .loading import as_model
    return predict_table(as_model(model), X)


def predict_proba(model, X):
    """Each row's class probabilities (columns in ``model.target.classes`` order) as a numpy array, exactly
    what ``model.scores(row)`` gives row by row; ``X`` as :func:`predict` takes it. Classification only."""
    from .inputs import predict_proba as proba_table
    from .loading import as_model
    return proba_table(as_model(model), X)


def verify(model, data=None, to=None, dialects=None, against=None, leaf: bool = False, programs=(),
           table: str = "input", keep=(), dsns: dict | None = None):
    """Generate each target's code, run it for real and compare its answers with the model's, as ``treegen
    verify`` does: on probe rows (every threshold and one ulp either side, missing values, an unseen category)
    and the rows of ``data``. Returns a :class:`treegen.verifier.Report`: ``.ok``, ``.status`` (the CLI's exit
    code), ``.results`` (a :class:`treegen.verifier.Result` a line: ``target``, ``ok``, ``status``,
    ``mismatches``, ``error``, ``note``) and, as ``str(report)``, the lines the CLI prints.

    >>> import treegen
    >>> model = treegen.train("examples/play_tennis.csv", target="play", algorithm="id3")
    >>> report = treegen.verify(model, "examples/play_tennis.csv", to=["python", "sql"], dialects="sqlite")
    >>> assert report.ok, str(report)       # in a test or CI: fails with the lines, a MISMATCH's rows in them
    >>> print(report)                       # doctest: +ELLIPSIS
    python ... ok        ... rows agree (14 from the data, ... probes)
    sql/sqlite ... ok        ... rows agree (14 from the data, ... probes)

    The options are ``treegen verify``'s:

    model : any model :func:`export` takes (a Model, a model file's path, a fitted estimator of a library).
    data : rows checked besides the probes: a CSV or ARFF file's path; a pandas DataFrame, read as its CSV
        (``df.to_csv()``: NaN, None and pandas' NA are missing, a category is its text); a 2-D numpy array or a
        list of sequences (a column per feature, in ``model.features`` order) or a list of row dicts (None or
        NaN missing), each value as a CSV of them carries it; or a :class:`treegen.table.Table`.
    to : the targets (``--to``): names in a list or comma-separated; default every target verify runs
        (``treegen.targets.RUNNABLE``), each whose tool (a JDK, Node.js, a C compiler) is not installed left out
        with a line saying so; none when ``programs`` are given.
    dialects : the SQL dialects (``--dialect``), a list or comma-separated; default: the default ones, each
        whose engine is not installed left out, with a line saying so.
    against : the model file the model was imported from (``--against``), or the library's fitted object
        itself (an XGBoost Booster or XGBClassifier, a LightGBM Booster or LGBMClassifier, a scikit-learn
        estimator, a CatBoost model): its own predict is checked on the same rows.
    leaf : check each target's leaf ids too (``--leaf``).
    programs : files exported before, each run and checked itself (``--program``); ``table`` and ``keep``:
        how a .sql one was exported (``--table``, ``--keep``).
    dsns : {engine: connection string} for the SQL engines that run as servers (``--postgres-dsn``, ...);
        default: their environment variables, as the CLI reads them.

    A bad option (an unknown target or dialect, a file that cannot be read, an ``against`` that is not the
    model's source) raises a :class:`~treegen.errors.TreegenError` of one line; a target that cannot run here
    (a package or a JDK missing) is a line of the report, its ``status`` 2."""
    import os
    from .loading import as_model
    from .verifier import Report, column_width, verify as run_verify
    loaded = as_model(model)
    paths = [os.fspath(path) for path in ([programs] if isinstance(programs, (str, os.PathLike)) else programs)]
    targets = _names(to, "to") if to is not None else [] if paths else None  # (None: each runnable one)
    results = run_verify(loaded, _verified_rows(loaded, data), targets,
                         None if dialects is None else _names(dialects, "dialects"), dsns=_servers(dsns),
                         against=against, leaf=leaf, programs=paths, table=table, keep=_names(keep, "keep"))
    return Report(results, column_width(paths))


def _verified_rows(model, data):
    """``data`` as :func:`verify` passes it on: None, a file's path (read a part at a time), or a table as its CSV
    reads."""
    import os
    from .inputs import as_csv_table
    from .table import Table
    if data is None or isinstance(data, Table):
        return data
    if isinstance(data, (str, os.PathLike)):
        return os.fspath(data)
    return as_csv_table(model, data)


def _names(value, option: str) -> list[str]:
    """Names given as the CLI takes them: comma-separated text, or a list of such texts."""
    from .inputs import InputError
    from .table import split_names
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, (list, tuple)) or not all(isinstance(v, str) for v in values):
        raise InputError(f"{option}= takes names: a list of them, or one text of them comma-separated; "
                         f"got {value!r}")
    return split_names(values)


def _servers(dsns: dict | None) -> dict:
    """The DSN of each SQL engine that runs as a server: given, else from its environment variable."""
    import os
    from .run.sql import ENGINES
    found = {e.name: os.environ.get(e.dsn_variable) for e in ENGINES.values() if e.server}
    return {name: dsn for name, dsn in {**found, **(dsns or {})}.items() if dsn}


def from_sklearn(estimator, feature_names=None):
    """A treegen model from a fitted scikit-learn tree, forest, gradient boosting or HistGradientBoosting
    estimator."""
    from .importers.sklearn import from_sklearn as convert
    return convert(estimator, feature_names=feature_names)


def from_xgboost(booster_or_estimator, feature_names=None, missing=None, use_best_iteration=None):
    """A treegen model from an XGBoost Booster or scikit-learn wrapper, predicting what it predicts
    (see :func:`treegen.importers.xgboost.from_xgboost` for ``missing`` and ``use_best_iteration``)."""
    from .importers.xgboost import from_xgboost as convert
    return convert(booster_or_estimator, feature_names=feature_names, missing=missing,
                   use_best_iteration=use_best_iteration)


def from_lightgbm(booster_or_estimator, feature_names=None):
    """A treegen model from a ``lightgbm.Booster`` or a fitted ``LGBMClassifier``/``LGBMRegressor``."""
    from .importers.lightgbm import from_lightgbm as convert
    return convert(booster_or_estimator, feature_names=feature_names)


def from_catboost(model, feature_names=None, categories=None):
    """A treegen model from a fitted CatBoost model; ``categories`` ({feature name: its category names}, or
    the DataFrame it was trained on) names the one-hot and CTR splits, which a fitted model knows only by hash."""
    from .importers.catboost import from_catboost as convert
    return convert(model, feature_names=feature_names, categories=categories)


def import_model(path: str, feature_names=None, trust: bool = False, **options):
    """A treegen model from a model file of a supported library (see ``treegen import --help``);
    ``options`` are the library's own, e.g. XGBoost's ``missing``, CatBoost's ``categories``."""
    from .importers import import_file
    return import_file(path, feature_names=feature_names, trust=trust, **options)


def from_model(model_object, feature_names=None, **options):
    """A treegen model from a fitted model object of any supported library; ``options`` are the library's own,
    as :func:`import_model` takes them (XGBoost's ``missing``, CatBoost's ``categories``)."""
    from .importers import from_object
    return from_object(model_object, feature_names=feature_names, **options)

