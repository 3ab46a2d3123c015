"""Measuring a learner: stratified k-fold, leave-one-out or a held-out set; the usual metrics."""
from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable

import numpy as np

from .batch import predicted_labels
from .data import Dataset, Table, decode, parse_number, rows_for_model
from .describe import label, tree_size
from .errors import BadArgument, TreegenError, did_you_mean
from .learn import fit
from .model import Model, Target
from .table import delimiter_hint
from .walk import predict_columns, predict_rows


@dataclass(repr=False)
class Report:
    """How a learner or a model predicted labelled rows, as `treegen evaluate` says it (``str(report)``, its
    text) and as numbers: ``accuracy``, ``confusion_matrix``, ``precision``, ``recall``, ``f1`` and ``support``
    (each {class: number}) for classes; ``rmse``, ``mae`` and ``r2`` for a regression. ``truth`` and
    ``predicted``: each row's label and the answer it got, in the order of the data's rows; ``weights``: each
    row's instance weight (an ARFF file's ``{w}``), which every figure counts it by, as Weka does (None: 1 each)."""
    target_kind: str
    classes: tuple[str, ...]
    truth: list = field(default_factory=list)
    predicted: list = field(default_factory=list)
    method: str = ""
    unknown_classes: tuple[str, ...] = ()  # true labels that the model does not know (it never predicts them)
    unlabelled: int = 0  # test rows left out: they have no label
    weights: list | None = None

    def _row_weights(self) -> np.ndarray:
        return np.ones(len(self.truth)) if self.weights is None else np.asarray(self.weights, dtype=np.float64)

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        text = self.text()
        first = text.partition("\n")[0]
        return f"<treegen evaluate: {first}>\n{text}"

    # -- classification ---------------------------------------------------------------------
    @property
    def confusion_matrix(self) -> np.ndarray:
        """Rows: true class; columns: predicted class; both in the order of ``classes``."""
        self._for("classification", "confusion_matrix")
        index = {c: i for i, c in enumerate(self.classes)}
        matrix = np.zeros((len(self.classes), len(self.classes)))
        for t, p, w in zip(self.truth, self.predicted, self._row_weights()):
            matrix[index[t], index[p]] += w
        return matrix.astype(int) if (matrix == np.round(matrix)).all() else matrix

    @property
    def accuracy(self) -> float:
        self._for("classification", "accuracy")
        return float(self._correct() / self._row_weights().sum())

    def accuracy_text(self) -> str:
        """The accuracy and the rows (their weight) it counts: '86.87% (77.75/89.5)'."""
        return f"{self.accuracy:.2%} ({count_text(self._correct())}/{count_text(self._row_weights().sum())})"

    def _correct(self) -> float:
        return float(sum(w for t, p, w in zip(self.truth, self.predicted, self._row_weights()) if t == p))

    def per_class(self) -> list[tuple[str, float, float, float, int | float]]:
        """(class, precision, recall, F1, support); 0.0 where a ratio has nothing to divide by."""
        m = self.confusion_matrix
        rows = []
        for i, c in enumerate(self.classes):
            tp, predicted, support = m[i, i], m[:, i].sum(), m[i, :].sum()
            precision = tp / predicted if predicted else 0.0
            recall = tp / support if support else 0.0
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
            rows.append((c, float(precision), float(recall), float(f1), support.item()))
        return rows

    precision = property(lambda self: self._by_class(1), doc="{class: precision}")
    recall = property(lambda self: self._by_class(2), doc="{class: recall}")
    f1 = property(lambda self: self._by_class(3), doc="{class: F1}")
    support = property(lambda self: self._by_class(4), doc="{class: its rows (their weight)}")

    def _by_class(self, column: int) -> dict:
        return {row[0]: row[column] for row in self.per_class()}

    # -- regression ---------------------------------------------------------------------------
    def regression_metrics(self) -> dict[str, float]:
        self._for("regression", "regression_metrics")
        return regression_metrics(self.truth, self.predicted, self.weights)

    rmse = property(lambda self: self._regression("rmse"), doc="root mean squared error")
    mae = property(lambda self: self._regression("mae"), doc="mean absolute error")
    r2 = property(lambda self: self._regression("r2"), doc="coefficient of determination R²")

    def _regression(self, name: str) -> float:
        self._for("regression", name)
        return self.regression_metrics()[name]

    def _for(self, kind: str, name: str) -> None:
        """A number of the other kind of target is refused, saying which numbers this report has."""
        if (self.target_kind == "classification") != (kind == "classification"):
            has = ("accuracy, confusion_matrix, precision, recall, f1, support" if kind != "classification"
                   else "rmse, mae, r2")
            raise AttributeError(f"{name} is for a {kind}, and this report is of a {self.target_kind}: "
                                 f"it has {has}")

    def text(self) -> str:
        lines = [f"{self.method}: {len(self.truth)} predictions"]
        if self.unlabelled:
            lines.append(f"{self.unlabelled} row{'s' * (self.unlabelled > 1)} without a label left out")
        if self.target_kind != "classification":
            m = self.regression_metrics()
            lines += [f"RMSE {m['rmse']:.6g}", f"MAE  {m['mae']:.6g}", f"R2   {m['r2']:.6g}"]
            return "\n".join(lines) + "\n"
        lines.append(f"accuracy {self.accuracy_text()}")
        if self.unknown_classes:
            lines.append(self._unknown_text())
        lines.append("")
        lines.append("confusion matrix (rows: true class, columns: predicted)")
        names = [label(c) for c in self.classes]
        width = max([display_width(n) for n in names] + [6])
        lines.append(" " * width + " " + " ".join(pad(n, width) for n in names))
        for name, row in zip(names, self.confusion_matrix):
            lines.append(pad(name, width) + " " + " ".join(f"{count_text(v):>{width}}" for v in row))
        lines.append("")
        lines.append(f"{'class':>{width}} precision recall     F1 support")
        for name, (_, precision, recall, f1, support) in zip(names, self.per_class()):
            lines.append(f"{pad(name, width)} {precision:9.3f} {recall:6.3f} {f1:6.3f} {count_text(support):>7}")
        return "\n".join(lines) + "\n"

    def _unknown_text(self) -> str:
        rows = sum(t in self.unknown_classes for t in self.truth)
        n = len(self.unknown_classes)
        return (f"{rows} row{'s have' if rows > 1 else ' has'} a label that the model does not know ({n} "
                f"class{'es' * (n > 1)}: {', '.join(label(c) for c in self.unknown_classes)}), counted as wrong")


def count_text(count: float) -> str:
    """A count of rows, or of their weight: whole numbers as such, others as few digits as tell them."""
    return str(int(count)) if count == int(count) and abs(count) < 1e15 else f"{count:.6g}"


def display_width(text: str) -> int:
    """Columns a terminal gives the text: East Asian wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1
               for c in text)


def pad(text: str, width: int) -> str:
    """The text right-aligned in ``width`` terminal columns."""
    return " " * max(0, width - display_width(text)) + text


def regression_metrics(truth, predicted, weights=None) -> dict[str, float]:
    """RMSE, MAE and R2, each row counted by its weight (None: 1 each), as Weka weighs instances and
    scikit-learn's metrics their sample_weight. Squares of values beyond 1e154 overflow a double: then the
    residuals are scaled by the largest first (as ``hypot`` does), so a target of 1e200s has an RMSE of
    1e200s, not inf."""
    t, p = np.asarray(truth, float), np.asarray(predicted, float)
    w = np.ones(len(t)) if weights is None else np.asarray(weights, float)  # (times 1: the same bits)
    with np.errstate(over="ignore", invalid="ignore"):  # inf - inf is NaN, as the predictions say
        residual, spread = t - p, t - (w * t).sum() / w.sum()
        scale = max(float(np.abs(residual).max(initial=0.0)), float(np.abs(spread).max(initial=0.0)), 1.0)
        if not math.isfinite(scale) or scale < 1e150:
            scale = 1.0  # the sums as they were: no overflow to avoid, or nothing finite to scale by
        squares, total = (w * (residual / scale) ** 2).sum(), (w * (spread / scale) ** 2).sum()
        return {"rmse": float(scale * math.sqrt(squares / w.sum())),
                "mae": float((w * np.abs(residual)).sum() / w.sum()),
                "r2": float(1 - squares / total) if total else _r2_of_one_value(squares)}


def _r2_of_one_value(squares: float) -> float:
    """R2 where every label is one value (no spread to explain), as scikit-learn's r2_score has it: 1 for
    predictions that are all right, 0 otherwise."""
    return 1.0 if squares == 0 else 0.0


def training_summary(model: Model, dataset: Dataset) -> str:
    """One line on what was built: algorithm, size, and how well it fits its own training rows."""
    tree = model.trees[0]
    answers = answers_on(model, dataset)
    report = Report(dataset.target.kind, dataset.target.classes, dataset.labels(), answers,
                    weights=counted_weights(dataset.weights))  # each row by its weight, as evaluate counts it
    if dataset.target.is_classification:
        fit_text = f"training accuracy {report.accuracy_text()}"
    else:
        fit_text = f"training RMSE {report.rmse:.6g}"
    left_out = f" ({dataset.left_out} without a value for {dataset.target.name!r} left out)" if dataset.left_out else ""
    return f"{model.meta.get('algorithm', 'tree')} on {len(dataset)} rows{left_out}: {tree_size(tree)}, {fit_text}"


def stratified_folds(dataset: Dataset, k: int, seed: int) -> list[np.ndarray]:
    """Test-row indices of k folds; each class is dealt round-robin after a seeded shuffle."""
    n = len(dataset)
    if k < 2 or k > n:
        said = f"must be between 2 and the number of rows ({n}), not {k}"
        raise BadArgument(f"folds= {said}", command_line=f"--folds {said}")
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    if dataset.target.is_classification:
        order = order[np.argsort(dataset.y[order], kind="stable")]
    folds = [[] for _ in range(k)]
    for position, row in enumerate(order):
        folds[position % k].append(row)
    return [np.array(sorted(f), dtype=int) for f in folds]


def answers_on(model: Model, dataset: Dataset) -> list:
    """The model's label (or value) for each row of ``dataset``, as ``model.predict`` gives them row by row:
    all rows at once from the data set's encoded columns, which are the walk's encoding (floats with NaN
    missing, category codes with -1) where the model has the data set's features; else from its rows."""
    if tuple(model.features) != tuple(dataset.features):
        return [label for label, _ in predict_rows(model, dataset.rows())]

    def row(i: int) -> dict:  # a row a fractional route spreads, for the model's own walk
        return {f.name: decode(f, c[i:i + 1])[0] for f, c in zip(dataset.features, dataset.columns)}
    return [label for label, _ in predict_columns(model, [c.astype(np.float64) for c in dataset.columns], row)]


def one_method(folds: int | None, loo: bool, test) -> None:
    """Cross-validation by ``folds``, leave-one-out or a test set: refused in one line where more than one is
    given (in Python's words and the CLI's)."""
    chosen = [name for name, value in (("folds", folds), ("loo", loo or None), ("test", test)) if value is not None]
    if len(chosen) > 1:
        raise BadArgument(f"choose one of folds=, loo= and test=, not {' and '.join(n + '=' for n in chosen)}",
                          command_line="choose one of --folds, --loo and --test, not "
                                       + " and ".join("--" + n for n in chosen))


def fold_count(dataset: Dataset, folds: int | None, loo: bool) -> int:
    """The folds of a cross-validation: one a row for leave-one-out, else ``folds`` (default 10)."""
    return len(dataset) if loo else 10 if folds is None else folds


def cross_validate(dataset: Dataset, algorithm: str, k: int | None = 10, loo: bool = False,
                   seed: int = 1, **params) -> Report:
    folds = [np.array([i]) for i in range(len(dataset))] if loo else stratified_folds(dataset, k, seed)
    report = Report(dataset.target.kind, dataset.target.classes,
                    method="leave-one-out" if loo else
                    f"{'stratified ' if dataset.target.is_classification else ''}{k}-fold cross-validation (seed {seed})")
    truth, predicted = [None] * len(dataset), [None] * len(dataset)
    everything = np.arange(len(dataset))
    for number, test in enumerate(folds, 1):
        train = np.setdiff1d(everything, test)
        model = _fold_model(dataset, train, algorithm, f"cross-validation fold {number}", params)
        for i, p in zip(test, answers_on(model, dataset.subset(test))):
            predicted[i] = p
    truth = dataset.labels()
    report.truth, report.predicted, report.weights = truth, predicted, counted_weights(dataset.weights)
    return report


def _fold_model(dataset: Dataset, rows: np.ndarray, algorithm: str, fold: str, params: dict) -> Model:
    """A fold's model, learnt on ``rows``. A learner's refusal of those rows that it would not say of the
    whole data says that it was of the fold's rows, whose count (in "needs 2 to 4 folds") is not the data's."""
    try:
        return fit(dataset.subset(rows), algorithm, **params)
    except TreegenError as error:
        if not _refused_alike(dataset, algorithm, params, error):
            where = f" ({fold}, trained on {len(rows)} of the {len(dataset)} rows)"
            error.message += where
            if error.command_line is not None:
                error.command_line += where
        raise


def _refused_alike(dataset: Dataset, algorithm: str, params: dict, error: TreegenError) -> bool:
    """Whether the learner refuses the whole data in the same words (an option's error, not a fold's)."""
    try:
        fit(dataset, algorithm, **params)
    except TreegenError as whole:
        return whole.message == error.message
    return False


def counted_weights(weights) -> list | None:
    """Rows' weights for a report: None where every row weighs 1 (a CSV file's, most ARFF files')."""
    return None if weights is None or all(w == 1 for w in weights) else [float(w) for w in weights]


def holdout(train: Dataset, test: Table | Callable[[Model], Table], algorithm: str, say=None, **params) -> Report:
    """Train on one data set, predict the rows of another file (matched to the model by column name);
    ``test``: the file's table, or a function that reads it for the model (rows whose values are in the
    order of its features); ``say(test, model)``, when given, is called with the model before it predicts."""
    truth = _training_labels(train, test) if isinstance(test, Table) else None  # before a fit that may be long
    model = fit(train, algorithm, **params)
    test = test if isinstance(test, Table) else test(model)
    if say is not None:
        say(test, model)
    return scored(train.target, test, _training_labels(train, test) if truth is None else truth,
                  [model.predict(row) for row in rows_for_model(test, model)], f"held-out test set {test.source}")


def _training_labels(train: Dataset, test: Table) -> list[str | None]:
    """The test file's labels: its column named as the training data's target, the one name a learnt model
    knows them by. Another name is refused, saying so (it was the 'unknown column' of any column)."""
    if train.target.name in test.names:
        return test.column(train.target.name)
    raise TreegenError(f"no column named {train.target.name!r} as the training data's target, which holds the test "
                       "rows' labels: name the test file's label column as the training file's; "
                       + _columns_hint(test, {feature.name for feature in train.features}, train.target.name),
                       test.source)


def test_model(model: Model, test: Table | Iterable[Table], target: str | None = None,
               name: str = "the model") -> Report:
    """How a model (learnt by treegen, or imported) predicts the labelled rows of a file, each predicted
    as `treegen predict` predicts it. ``test``: the file's table, or its parts as `treegen predict` reads them
    (:func:`treegen.data.read_tables`), of which only the labels, the answers and the lines are kept. ``target``:
    the label column, when it is not named as the model's target; ``name``: what the report calls the model
    (its file)."""
    truth, predicted, lines, part = [], [], [], None
    for part in [test] if isinstance(test, Table) else test:
        truth += label_column(model, part, target)
        predicted += predicted_labels(model, part)
        lines += part.lines
    kept = test if isinstance(test, Table) else replace(part, names=[], columns=[], lines=lines)
    return scored(model.target, kept, truth, predicted, f"{name} on {kept.source}")


def label_column(model: Model, test: Table, target: str | None) -> list[str | None]:
    """The test file's column of true labels: ``target``, else the one named as the model's target."""
    if target is not None or model.target.name in test.names:
        return test.column(model.target.name if target is None else target)
    where = _columns_hint(test, {feature.name for feature in model.features}, model.target.name)
    message = f"no column named {model.target.name!r} as the model's target: name the label column with "
    raise TreegenError(message + f"target=; {where}", test.source, command_line=message + f"--target; {where}")


def _columns_hint(test: Table, features: set[str], target: str) -> str:
    """The test file's columns, and the one not a feature that ``target`` may be a misspelling of."""
    guess = did_you_mean([target], [n for n in test.names if n not in features]) or delimiter_hint(test.names)
    return f"the columns are: {', '.join(map(repr, test.names))}{guess}"


def scored(target: Target, test: Table, truth: list[str | None], predicted: list, method: str) -> Report:
    """A report on the rows of ``test`` that have a label (``truth``, the column of labels; ``predicted``,
    the model's answer for every row). A label that the model does not know is a class of the report
    (the model never predicts it: counted as wrong)."""
    labelled = [i for i, value in enumerate(truth) if value is not None]
    if not labelled:
        raise TreegenError("no rows with a label to test on: the label column is empty", test.source)
    labels = [truth[i] for i in labelled]
    if target.is_classification:
        unknown = tuple(dict.fromkeys(value for value in labels if value not in target.classes))
        classes = target.classes + unknown
    else:
        unknown, classes = (), target.classes
        labels = [_number(value, test, i) for value, i in zip(labels, labelled)]
    weights = None if test.weights is None else counted_weights([test.weights[i] for i in labelled])
    if weights is not None and not sum(weights) > 0:
        raise TreegenError("the rows with a label all have weight 0: nothing to measure", test.source)
    return Report(target.kind, classes, labels, [predicted[i] for i in labelled], method,
                  unknown_classes=unknown, unlabelled=len(truth) - len(labelled), weights=weights)


def _number(text: str, test: Table, row: int) -> float:
    number = parse_number(text)
    if number is None:
        raise TreegenError(f"the label {text!r} is not a number, and the model is a regression",
                           *test.place(row))
    return number
