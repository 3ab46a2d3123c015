"""Import fitted scikit-learn trees, forests and gradient boosting as a treegen model.

The model predicts what scikit-learn predicts bit for bit, but for the probabilities of a
gradient-boosting classifier of three or more classes (and HistGradientBoosting's softmax and exp
links): scikit-learn's softmax takes numpy's ``exp``, which on CPUs with AVX-512 differs from the C
library's (the model's) in the last bit on about one input in twenty. :func:`tolerance` declares it for
`verify --against`; labels are exact.

Supported: ``DecisionTree{Classifier,Regressor}``, ``ExtraTree{Classifier,Regressor}``,
``RandomForest{Classifier,Regressor}``, ``ExtraTrees{Classifier,Regressor}`` and
``GradientBoosting{Classifier,Regressor}``, single output, scikit-learn >= 1.4 (where a classifier's
``tree_.value`` holds the class fractions that ``predict_proba`` returns); and
``HistGradientBoosting{Classifier,Regressor}``, whose semantics differ enough to have their own module
(:mod:`treegen.importers.hist_gradient_boosting`).

How scikit-learn predicts, and how the model says the same thing:

* It casts ``X`` to float32 and tests ``float32(x) <= threshold`` with a float64 threshold:
  ``NumericSemantics(cast="float32")``.
* A tree sends NaN to the child ``missing_go_to_left`` names, also when it was trained without NaN
  (``predict`` follows the flag whatever it was set to). Gradient boosting rejects NaN in
  ``predict``; its tree walker would send NaN right (``NaN <= t`` is false), so the model does that.
* Forests built with ``n_jobs > 1`` add the trees' outputs in whatever order the threads finish, so
  scikit-learn itself may differ from the model (and from itself) in the last bits.
* Forests add the trees' ``predict_proba`` (or ``predict``) in order, then divide by the number of
  trees: ``Combine(CombineKind.AVERAGE)``.
* Gradient boosting starts from the init estimator's raw prediction and adds
  ``learning_rate * leaf value`` tree by tree (one tree per class and stage for multiclass):
  ``Combine(CombineKind.SUM, init, scale=learning_rate, link)``. The exponential loss's probability is
  ``expit(2 * raw)``; doubling ``init`` and ``scale`` is exact in binary floating point, so the model
  uses the plain sigmoid on the doubled sums.

Class labels become strings (``str(label)``); the original labels and their type are kept in
``model.meta["sklearn"]`` so a caller can map predictions back.
"""
from __future__ import annotations

import copy
import math
import warnings
from collections import Counter

import numpy as np

from ..collector import collector_paused
from ..errors import TreegenError, with_article
from ..model import (NUMERIC, REGRESSION, Combine, CombineKind, Feature, Link, MissingRoute,
                     Model, Node, NumericSemantics, Op, Split, Target, Tree)
from ..packages import package_hint
from . import Refused, code_or, file_of, library_meta, release
from .sklearn_common import check_finite, estimator_params, feature_names_of, sklearn_version_text, target_of

SUPPORTED = ("DecisionTreeClassifier, DecisionTreeRegressor, ExtraTreeClassifier, ExtraTreeRegressor, "
             "RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier, ExtraTreesRegressor, "
             "GradientBoostingClassifier, GradientBoostingRegressor (single output), "
             "HistGradientBoostingClassifier, HistGradientBoostingRegressor")
MINIMUM_VERSION = (1, 4)
# Types a .skops file may hold beyond the ones skops trusts by itself (scikit-learn estimators, numpy).
# The losses HistGradientBoosting holds, as compiled objects; scikit-learn 1.5 builds their module as
# "_loss" (so its files name them _loss.Cy...), other versions as sklearn._loss._loss.
_HGB_LOSSES = ("HalfSquaredError", "AbsoluteError", "PinballLoss", "HalfPoissonLoss", "HalfGammaLoss",
               "HalfTweedieLoss", "HalfTweedieLossIdentity", "HalfBinomialLoss", "HalfMultinomialLoss")
SKOPS_TRUSTED = (
    "sklearn.tree._tree.Tree",
    # HistGradientBoosting: its trees, its categorical preprocessor's validation step
    # (FunctionTransformer(partial(check_array, ...))) and column list (1.5), its losses (compiled, and
    # as objects) with their links, and its bin mapper. skops 0.14 and later trust the scikit-learn ones
    # by themselves; 0.11 to 0.13 list them as untrusted, and their users could import no such file.
    "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
    "functools.partial",
    "sklearn.utils.validation.check_array",
    "sklearn.compose._column_transformer._RemainderColsList",
    *(f"{module}.Cy{loss}" for loss in _HGB_LOSSES for module in ("sklearn._loss._loss", "_loss")),
    *(f"sklearn._loss.loss.{loss}" for loss in _HGB_LOSSES),
    *(f"sklearn._loss.link.{link}" for link in ("Interval", "IdentityLink", "LogLink", "LogitLink",
                                                 "HalfLogitLink", "MultinomialLogit")),
    "sklearn.ensemble._hist_gradient_boosting.binning._BinMapper",
)


@collector_paused()
def from_sklearn(estimator, feature_names=None) -> Model:
    """Convert a fitted scikit-learn tree ensemble into a treegen model that predicts the same.

    Parameters
    ----------
    estimator : fitted scikit-learn estimator
        One of the estimators listed in ``SUPPORTED``.
    feature_names : sequence of str, optional
        Names of the input columns, in order. Default: ``estimator.feature_names_in_`` when the
        estimator was fitted on a DataFrame, else ``x0, x1, ...``. Given names must be an estimator's own
        (:func:`treegen.importers.resolve_feature_names`): they name the features of one fitted on arrays.

    Returns
    -------
    Model
        Numeric features, float32 comparison semantics, one tree per fitted tree.

    Raises
    ------
    TreegenError
        For an unsupported estimator, setting or scikit-learn version, or an unfitted estimator.
    """
    _check_version()
    from .hist_gradient_boosting import from_hist_gradient_boosting, is_hist_gradient_boosting
    if is_hist_gradient_boosting(estimator):
        _check_fitted(estimator)
        return from_hist_gradient_boosting(estimator, feature_names)
    family = _family(estimator)
    _check_fitted(estimator)
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise TreegenError(f"{type(estimator).__name__} with {estimator.n_outputs_} outputs is not "
                           f"supported; supported: {SUPPORTED}")
    features = _features(estimator, feature_names)
    target, labels = target_of(estimator)
    meta = library_meta("sklearn", type(estimator).__name__, sklearn_version_text(), None,
                        {"version": sklearn_version_text(), "params": estimator_params(estimator), **labels})
    numeric = NumericSemantics(cast="float32")
    if family == "tree":
        trees, combine = [_tree(estimator, target)], Combine()
    elif family == "forest":
        trees, combine = [_tree(e, target) for e in estimator.estimators_], Combine(CombineKind.AVERAGE)
    else:
        trees, combine = _boosting(estimator, len(features))
    return Model(features, target, trees, combine, numeric, meta)


def recognises(path: str, head: bytes) -> bool:
    """A .skops file: a zip archive holding skops' schema."""
    if not head.startswith(b"PK\x03\x04"):
        return False
    import zipfile
    try:
        with zipfile.ZipFile(path) as archive:
            return "schema.json" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return path.lower().endswith(".skops")


@collector_paused()
def read_skops(path: str, feature_names=None) -> Model:
    """The model in a ``.skops`` file (:func:`load_skops`); where another scikit-learn saved it, its note says so."""
    estimator, saved_by = load_skops(path)
    model = from_sklearn(estimator, feature_names=feature_names)
    if saved_by is not None:
        model.meta["sklearn"]["note"] = (
            f"imported with scikit-learn {sklearn_version_text()} from a file scikit-learn {saved_by} saved "
            "(scikit-learn warns that an estimator may not load alike across versions): verify --against the file "
            "checks the model against that scikit-learn's predict")
    return model


def load_skops(path: str):
    """The estimator in a ``.skops`` file, loaded with ``skops.io``, which refuses every type not known
    to be safe: beyond scikit-learn estimators and numpy, only ``SKOPS_TRUSTED`` is accepted; and the
    version of scikit-learn that saved it where that is not this one (scikit-learn's warning of it, six lines
    on a terminal, is not passed on)."""
    try:
        import skops.io
    except ImportError:
        raise TreegenError(f"reading a .skops file {package_hint('skops', 'sklearn')}; skops reads it running "
                           "no code from the file", path) from None
    _refuse_zip_bomb(path)
    try:
        untrusted = skops.io.get_untrusted_types(file=path)
        refused = [name for name in untrusted if name not in SKOPS_TRUSTED]
        if refused:
            search = any(name.startswith("sklearn.model_selection.") for name in refused)  # (a search saved whole)
            raise TreegenError(f"refusing to load types that are not scikit-learn trees: {', '.join(refused)}"
                               + ("; a search (GridSearchCV) saved whole? save its best_estimator_ with skops and "
                                  "import that" if search else ""), path)
        return _loaded(skops.io, path, list(untrusted))
    except TreegenError:
        raise
    except (ImportError, AttributeError) as err:  # a type this scikit-learn does not have
        raise TreegenError(f"cannot load the .skops file with scikit-learn {sklearn_version_text()}: it holds "
                           f"{_missing_name(err)}, which this version does not have; import it where the scikit-learn "
                           "that saved it is installed", path) from None
    except Exception:  # a corrupt or foreign file, or a newer skops's
        newer = _newer_skops(path)
        if newer:
            raise TreegenError(f"cannot load the .skops file: skops {newer} wrote it, and skops {skops.__version__} "
                               "here cannot read it: pip install -U skops", path) from None
        raise TreegenError("cannot load the .skops file: it is damaged or was not written by skops.io.dump",
                           path) from None


# skops reads each member of the zip whole into memory; Python's zipfile reads no more of one than its declared size,
# which an honest file's numbers and schema keep within this many times its compressed size, or this size
MAX_EXPANSION, SMALL_MEMBER = 200, 64 << 20


def _refuse_zip_bomb(path: str) -> None:
    """Refuse a .skops file with a member that would expand past :data:`MAX_EXPANSION` times its compressed size
    (a zip bomb: 3 MB that inflates to 3 GB of spaces took skops a minute and 3.4 GB); another damaged zip is left
    to skops, which says what is wrong."""
    import zipfile
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
    except (OSError, zipfile.BadZipFile):
        return
    for member in members:
        if member.file_size > max(SMALL_MEMBER, MAX_EXPANSION * member.compress_size):
            raise TreegenError(f"refusing the .skops file: its {member.filename} would expand from "
                               f"{member.compress_size:,} to {member.file_size:,} bytes (a zip bomb?)", path)


def _loaded(skops_io, path: str, trusted: list[str]):
    """``skops.io.load`` of the file, and the scikit-learn version that saved it where it is not this one (None
    where it is); every other warning passes on."""
    from sklearn.exceptions import InconsistentVersionWarning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator = skops_io.load(path, trusted=trusted)
    saved_by = None
    for warning in caught:
        if issubclass(warning.category, InconsistentVersionWarning):
            saved_by = warning.message.original_sklearn_version
        else:
            warnings.warn_explicit(warning.message, warning.category, warning.filename, warning.lineno)
    return estimator, saved_by


def _newer_skops(path: str) -> str | None:
    """The version of skops that wrote the file, where it is newer than this one (skops 0.9 reads no file of
    0.16's, whose protocol is newer: "Can't find loader"); None when it is not, or the file does not say."""
    import json
    import zipfile

    import skops
    try:
        with zipfile.ZipFile(path) as archive:
            written = json.loads(archive.read("schema.json")).get("_skops_version")
    except (OSError, KeyError, ValueError, AttributeError, RecursionError, zipfile.BadZipFile):  # (damaged, hostile)
        return None
    return written if isinstance(written, str) and release(written) > release(skops.__version__) else None


def _missing_name(err: Exception) -> str:
    if isinstance(err, ImportError) and err.name:
        return f"a type from the module {err.name!r}"
    name = getattr(err, "name", None)
    return f"the type {name!r}" if name else "a type"


# -- the library's own predictions (treegen verify --against) ---------------------------------------


def tolerance(source, model: Model):
    """Where scikit-learn's answers for ``model`` are not bit for bit the model's: a softmax or exp link,
    which scikit-learn (GradientBoostingClassifier of 3+ classes, HistGradientBoosting) computes with
    numpy's ``exp`` and the model with the C library's; None elsewhere (expit is the C library's)."""
    from ..model import Tolerance
    from .hist_gradient_boosting import EXP_TOLERANCE
    if model.combine.link == Link.SOFTMAX:
        return Tolerance(EXP_TOLERANCE, "its softmax takes numpy's exp")
    if model.combine.link == Link.EXP:
        return Tolerance(EXP_TOLERANCE, "its exp link takes numpy's exp")
    return None



def oracle(source, model: Model, rows) -> list[tuple | Refused]:
    """scikit-learn's own (label or value, scores) for each row (a dict by feature name), from the
    estimator in the .skops file at ``source`` (or a shallow copy of the fitted estimator itself, whose
    ``n_jobs`` is the copy's to set): ``predict``, and ``predict_proba`` for classifiers; Refused
    (its message) for a row the estimator refuses (trees, forests and gradient boosting take no infinity and no
    number beyond float32, and some no NaN). A forest predicts with one job: with several, its threads
    add the trees' outputs in whatever order they finish, and the last bits change from call to call."""
    path = file_of(source)
    estimator = load_skops(path)[0] if path is not None else copy.copy(source)
    width = getattr(estimator, "n_features_in_", len(model.features))
    if width != len(model.features):
        raise TreegenError(f"this scikit-learn model takes {width} features, the treegen model "
                           f"{len(model.features)}: give the file the model was imported from", path)
    if "n_jobs" in estimator.get_params(deep=False):
        estimator.set_params(n_jobs=1)
    X = _library_rows(estimator, model, rows)
    with np.errstate(over="ignore", invalid="ignore"):  # rows refused, not warned of at each try
        answers = _answers(estimator, X, model.target.is_classification)
    if rows and all(isinstance(answer, Refused) for answer in answers):
        why = Counter(answer.why for answer in answers).most_common(1)[0][0]
        raise TreegenError(f"scikit-learn refused every row: {why}", path)
    return answers


def _answers(estimator, X, classification: bool) -> list[tuple | Refused]:
    """The estimator's answers for the rows of ``X``; a batch it refuses is halved until each row it
    refuses is alone, and Refused with the first line of its message (a few dozen rows among thousands of
    probes: a few calls each)."""
    try:
        predicted = estimator.predict(X).tolist()
        if not classification:
            return [(value, [value]) for value in predicted]
        return [(str(label), p) for label, p in zip(predicted, estimator.predict_proba(X).tolist())]
    except ValueError as refusal:
        if len(X) <= 1:
            return [Refused(str(refusal).splitlines()[0].rstrip("."))] * len(X)
        take = X.iloc.__getitem__ if hasattr(X, "iloc") else X.__getitem__
        half = len(X) // 2
        return (_answers(estimator, take(slice(None, half)), classification)
                + _answers(estimator, take(slice(half, None)), classification))


def _library_rows(estimator, model: Model, rows):
    """The rows as the estimator takes them: a DataFrame when it was fitted on one, missing values as
    NaN, and a HistGradientBoosting model's categories as its encoder's values (a text the encoder
    does not know is passed as it is, or as a number when the categories are numbers). Columns are
    objects then, so the encoder takes an infinite category as unknown where a float column would be
    refused whole. A feature no split tests has no value in verify's rows: it is given as 0.0, which
    changes no answer, since GradientBoosting refuses a row holding NaN."""
    from .hist_gradient_boosting import category_values
    categorical = category_values(estimator)
    used = set(model.used_features())
    table = []
    for row in rows:
        record = []
        for j, feature in enumerate(model.features):
            value = row.get(feature.name)
            if value is None:
                record.append(math.nan if j in used or j in categorical else 0.0)
            elif j in categorical:
                known, numeric = categorical[j]
                record.append(known.get(str(value), code_or(value, math.nan) if numeric else str(value)))
            else:
                record.append(float(value))
        table.append(record)
    dtype = object if categorical else np.float64
    names = getattr(estimator, "feature_names_in_", None)
    if names is None:
        return np.array(table, dtype=dtype)
    import pandas as pd
    return pd.DataFrame(table, columns=list(names), dtype=dtype)


# -- checks ------------------------------------------------------------------------------------


def _check_version() -> None:
    text = sklearn_version_text()
    if release(text) < MINIMUM_VERSION:
        raise TreegenError(f"scikit-learn {text} is too old: importing needs scikit-learn >= "
                           f"{'.'.join(map(str, MINIMUM_VERSION))}")


def _family(estimator) -> str:
    """'tree', 'forest' or 'boosting'; anything else is refused."""
    from sklearn.ensemble import (
        ExtraTreesClassifier,
        ExtraTreesRegressor,
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
    families = {"tree": (DecisionTreeClassifier, DecisionTreeRegressor),  # ExtraTree* are subclasses
                "forest": (RandomForestClassifier, RandomForestRegressor, ExtraTreesClassifier,
                           ExtraTreesRegressor),
                "boosting": (GradientBoostingClassifier, GradientBoostingRegressor)}
    for family, classes in families.items():
        if isinstance(estimator, classes):
            return family
    from sklearn.pipeline import Pipeline
    if hasattr(estimator, "best_estimator_"):  # GridSearchCV, RandomizedSearchCV (refit: the best one, fitted again)
        raise TreegenError(f"cannot import {with_article(type(estimator).__name__)}: import its best_estimator_, "
                           "the model refit on the whole data")
    if isinstance(estimator, Pipeline):
        raise TreegenError("cannot import a Pipeline: import its final estimator (pipeline[-1], saved on its own) "
                           "and apply the pipeline's preprocessing to the data before treegen reads it")
    raise TreegenError(f"cannot import {with_article(type(estimator).__name__)}; supported: {SUPPORTED}")


def _check_fitted(estimator) -> None:
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        raise TreegenError(f"the {type(estimator).__name__} is not fitted; call fit before importing") from None
    criterion = getattr(estimator, "criterion", None)
    if criterion is not None and not isinstance(criterion, str):
        raise TreegenError(f"a custom criterion ({type(criterion).__name__}) is not supported; use one "
                           f"of scikit-learn's named criteria")


# -- features and target ------------------------------------------------------------------------


def _features(estimator, feature_names) -> tuple[Feature, ...]:
    return tuple(Feature(name, NUMERIC) for name in feature_names_of(estimator, feature_names))


# -- trees --------------------------------------------------------------------------------------


def _tree(estimator, target: Target, output: int | None = None, nan_left=None) -> Tree:
    """One fitted tree as a model tree with scikit-learn's node ids (pre-order unless it was grown
    best-first). ``nan_left`` overrides where NaN goes (gradient boosting); default: the tree's own
    ``missing_go_to_left``."""
    t = estimator.tree_
    check_finite(t.value, "a node value")
    left, right = t.children_left.tolist(), t.children_right.tolist()
    feature, threshold = t.feature.tolist(), t.threshold.tolist()
    go_left = (t.missing_go_to_left.tolist() if nan_left is None else [nan_left] * t.node_count)
    n = t.weighted_n_node_samples.tolist()
    if target.is_classification and output is None:
        fractions = t.value[:, 0, :]
        values = [tuple(row) for row in fractions.tolist()]
        counts = [tuple(row) for row in (t.weighted_n_node_samples[:, None] * fractions).tolist()]
    else:
        values = [(v,) for v in t.value[:, 0, 0].tolist()]
        counts = [()] * t.node_count
    nodes = []
    for i in range(t.node_count):
        node = Node(values[i], counts[i], n[i])
        if left[i] != -1:
            route = MissingRoute.to_child(0 if go_left[i] else 1)
            node.split = Split(feature[i], Op.LE, threshold=threshold[i], missing=route)
            node.children = (left[i], right[i])
        nodes.append(node)
    tree = Tree(nodes, output)
    return tree if tree.is_preorder() else tree.canonical()


# -- gradient boosting ---------------------------------------------------------------------------


def _boosting(estimator, n_features: int) -> tuple[list[Tree], Combine]:
    init = _boosting_init(estimator, n_features)
    link, doubled = _boosting_link(estimator)
    scale = float(estimator.learning_rate)
    if doubled:  # exact: multiplying by 2 commutes with rounding
        init, scale = [2.0 * r for r in init], 2.0 * scale
    regression_target = Target("y", REGRESSION)
    trees = [_tree(stage[k], regression_target, output=k, nan_left=False)
             for stage in estimator.estimators_ for k in range(len(stage))]
    return trees, Combine(CombineKind.SUM, tuple(init), scale, link)


def _boosting_init(estimator, n_features: int) -> list[float]:
    """The raw score every prediction starts from (constant: the init is 'zero' or a dummy)."""
    from sklearn.dummy import DummyClassifier, DummyRegressor
    init = estimator.init_
    constant = (init == "zero" if isinstance(init, str)
                else isinstance(init, DummyRegressor)
                or (isinstance(init, DummyClassifier) and init.strategy != "stratified"))
    if not constant:
        raise TreegenError(f"gradient boosting with init={type(init).__name__} is not supported; "
                           "supported: the default init, init='zero' or a non-random Dummy estimator")
    raw = estimator._raw_predict_init(np.zeros((1, n_features), dtype=np.float32))
    check_finite(raw, "the initial raw score")
    return [float(r) for r in raw[0]]



def _boosting_link(estimator) -> tuple[str, bool]:
    """The link from raw scores to predictions, and whether raw scores must be doubled first."""
    from sklearn.ensemble import GradientBoostingRegressor
    if isinstance(estimator, GradientBoostingRegressor):
        return Link.IDENTITY, False
    if estimator.loss == "exponential":
        return Link.SIGMOID, True
    if estimator.loss == "log_loss":
        return (Link.SIGMOID if len(estimator.classes_) == 2 else Link.SOFTMAX), False
    raise TreegenError(f"gradient boosting loss {estimator.loss!r} is not supported; "
                       "supported: 'log_loss', 'exponential' and the regression losses")
