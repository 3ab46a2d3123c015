"""Import XGBoost models -- JSON and UBJSON files, ``Booster`` and scikit-learn wrapper objects -- so
that the model predicts exactly what XGBoost's ``Booster.predict`` returns.

Files are read as data, without XGBoost installed: ``Booster.save_model("model.json")`` writes JSON,
``save_model("model.ubj")`` (and, from 2.0 on, any name not ending in ``.json``) UBJSON. Written by
XGBoost 1.7.6, 2.1.4, 3.2.0 and 3.4.1 and tested against each; other 1.x-3.x releases write the same fields
but for DART's weights, which 3.3 moved into the tree model (:meth:`_Conversion.booster`).
The deprecated binary format (1.x's default for other names, starting ``binf``) is refused with how
to re-save it. Sources cited below are dmlc/xgboost at v3.2.0 unless a version is named.

How XGBoost predicts, and how the model says the same thing:

* Inputs and thresholds are float32, and a value goes left when ``float32(x) < threshold``
  (``src/predictor/predict_fn.h`` ``GetDecision``): ``NumericSemantics(cast="float32", strict=True)``.
  XGBoost refuses infinite inputs and inputs beyond float32 unless ``missing`` is infinite
  (``src/common/error_msg.h``); the model sends them where their float32 cast goes.
* A value is missing when its float32 is NaN or equals ``float32(missing)`` (``src/data/entry.h``
  ``IsValidFunctor``); a missing value takes the split's ``default_left`` side, before any test
  (``GetNextNode``). ``missing`` belongs to the data, not the model: XGBoost 2.x and 3.x do not save it;
  1.7's scikit-learn wrapper writes its parameters, ``missing`` among them, into the file's
  ``scikit_learn`` attribute, which is read. Otherwise it is NaN unless the ``missing`` option says
  (``treegen import --missing``). A non-NaN value becomes ``Feature.missing_interval``: the doubles whose
  float32 equals it.
* Categorical splits (``split_type`` 1) list the categories that go **right**; a category not listed,
  negative, ``>= 2^24`` or beyond the node's bit set goes left, NaN takes ``default_left``
  (``src/common/categorical.h`` ``Decision``). The feature becomes nominal and the split an ``in`` split
  whose ``children[0]`` is XGBoost's right child.
* Named categories: XGBoost 3.1+ saves the training categories of pandas columns (``cats``,
  ``src/data/cat_container.cc``); they are the category names, in code order, and a user gives names.
  At predict, XGBoost re-codes a frame's categorical column against them by name
  (``src/encoder/ordinal.h`` ``Recode``, called from ``src/predictor/cpu_predictor.cc``), so a frame
  whose category list is in another order, or a subset, predicts the same. A name not among the
  training categories is missing -- what XGBoost predicts for a frame whose column has the training
  categories, where pandas makes such a name NaN (``pd.Categorical(values, categories=...)``) -- and
  so takes ``default_left`` (``Split.unknown`` is None: the missing route). A frame whose own category
  list holds an unknown name is another matter: XGBoost 3.3+ refuses it ("Found a category not in the
  training set"); 3.1 and 3.2 refuse it only when it sorts after every training category, and
  otherwise silently give it the code of the first training category not below it (``SearchSorted``
  takes ``lower_bound`` without checking it is equal; fixed by dmlc/xgboost#12193 in 3.3.0): with
  training categories blue, green, red, violet, "purple" is red and "aaa" blue. No model reproduces
  that; give XGBoost the training categories. Categories that are integers (a Categorical of ints;
  XGBoost refuses floating point ones) are named by their decimal text, and the feature has
  ``Codes.INTEGRAL``: pandas finds a value among them by its value, so 20.0 and "20.0" (as pandas writes
  an integer column with a missing value) are the category 20 there and in the model -- by the value
  itself, not by the float32 XGBoost reads codes by: "100000001.0" is 100000001, "19.99999999" none.
* Codes: without ``cats`` (1.x, 2.x, 3.0, and any model trained on numbers) only codes exist, and a
  feature's categories are the codes its splits name, written as decimal integers ("0", "3", ...): a
  code the trees never list is an unknown category and goes left, as in XGBoost (``Split.unknown`` on
  the side of the categories not listed). XGBoost reads a number as a code by its
  float32, truncated (``AsCat``: 2.7 is category 2, -0.0 category 0), but a float32 below zero (-0.5)
  as invalid, left (``InvalidCat``): such a feature has ``Codes.NONNEGATIVE`` (the model's cast is
  float32), so a number or a text that reads as one ("3.0", "2.7") names the category XGBoost takes,
  and one below zero, beyond 2^31 or infinite none (left).
* The trees' leaves are added in tree order, in float32, to a float32 base margin, each tree to its
  output group ``tree_info[i]`` (``src/predictor/cpu_predictor.cc``): ``Combine(precision=FLOAT32)``.
  ``base_score`` is saved as a prediction (a probability for the logistic objectives) and turned into
  the margin once when XGBoost loads the model, by the objective's ``ProbToMargin`` in float32 with
  glibc's ``logf`` (:func:`treegen.arithmetic.logf`); the model stores that margin as ``Combine.init``,
  one per output group (3.x saves one ``base_score`` per group, older versions one for all). A leaf may
  be infinite (JSON's ``Infinity``, or a number beyond float32), as XGBoost loads it: a sum of +inf and
  -inf, or a softmax of an infinite sum, is NaN there and in the model (:func:`treegen.model.scores_nan`).
* Vector leaves (``multi_strategy="multi_output_tree"``, 2.0+; multi:softprob, multi:softmax): one tree per round
  whose leaves hold one value per class (``size_leaf_vector`` = ``num_class``), each added in float32 to
  its class's margin, tree after tree (``cpu_predictor.cc`` ``multi::PredValueByOneTree``): a model tree
  whose ``output`` is None, its nodes' values one per class. Up to 3.1 ``base_weights`` holds every node's
  values, a leaf's its prediction; 3.2 keeps the leaves' apart, ``leaf_weights``, a leaf's at the index
  its ``right_children`` entry gives (``src/tree/multi_target_tree_model.cc`` ``SaveModel``,
  ``tree_view.h`` ``LeafValue``). XGBoost 3.2+ reads only the new layout and crashes on the old (no
  ``leaf_weights``): the oracle refuses that pairing; ``model.meta`` says which layout the file has.
  XGBoost refuses DART with vector leaves, and from 3.2 on categorical features (``updater_quantile_hist.cc``);
  before, it splits a categorical feature's codes as numbers there (``split_type`` 0), and so does the model.
* DART trees add ``leaf * weight_drop[i]`` rounded to float32 (up to 3.2 ``gbtree.cc``
  ``Dart::PredictBatchImpl``; from 3.3, where DART is a gbtree with weights, ``cpu_predictor.cc``
  ``scalar::PredValueByOneTree``'s ``tree_weight``, and from 3.4 vector leaves' each value too):
  ``Tree.weight``. This is ``Booster.predict``'s arithmetic. Before 3.3 the scikit-learn wrapper's ``predict``
  goes through ``inplace_predict`` (numpy and pandas input alike), which predicts each tree alone from the
  base margin and adds ``((base + leaf) - base) * weight`` (``Dart::InplacePredict``, ``src/gbm/gbtree.cc``
  3.2): each leaf is rounded to float32 beside the base margin, an error of the size of the base margin's
  ulp, not the leaf's. So it differs wherever the base margin is not 0 (it is 0 for 1.x's default logistic
  base_score 0.5; 2.0 on estimate base_score), by more of the prediction's own ulps the smaller the
  prediction is beside the base margin: measured with 3.2.0 (a DART regressor with early stopping, 2 rounds
  used, base_score 1.03), 1,296 of 4,272 rows differ, by up to 4.8e-7, which is 6 float32 ulps of a
  prediction of 0.039 (1 ulp around 0.5); and by far more where the base margin is large (-338,043,264
  against -338,044,416 at base_score -1e10: the leaf lost in ``base + leaf``). From 3.3 it applies the
  weights as ``Booster.predict`` does. Import notes it, as it notes
  binary:logitraw's margin and multi:softmax's probabilities (:func:`_notes`).
* Early stopping: ``Booster.predict`` uses every tree; the scikit-learn wrapper the first
  ``best_iteration + 1`` rounds (``python-package/xgboost/sklearn.py`` ``_get_iteration_range``,
  the same in 1.7.6, 2.1.4, 3.2.0 and 3.4.1). By default a file saved by the wrapper (it has a
  ``scikit_learn`` attribute) and a wrapper object are imported as the wrapper predicts, anything else
  with every tree; the ``use_best_iteration`` option decides otherwise. ``model.meta`` says which.
* Links (``src/common/math.h``, ``src/objective/``): ``binary:logistic`` and ``reg:logistic`` the float32
  sigmoid, a binary classifier whose label is ``p > 0.5`` in float32, as ``XGBClassifier.predict``
  decides (Decision.ARGMAX on ``[1 - p, p]`` is the same rule; the generated code decides it, equally, on
  the raw sum against one constant: :func:`treegen.emit.common.label_cut`); ``multi:softprob`` the float32
  softmax, label the first highest probability; ``multi:softmax`` the same scores, label the first
  highest margin, as ``Booster.predict`` returns it; ``count:poisson``, ``reg:gamma``, ``reg:tweedie``
  and ``survival:cox`` (a hazard ratio) ``expf``; the other regressions, ``binary:logitraw`` and the
  ranking objectives ``rank:pairwise``, ``rank:ndcg``, ``rank:map`` (a score to order a query's rows by,
  ``base_score`` added as the file holds it: 2.1 and 3.x fit it as an intercept, ``FitIntercept``, a
  Newton step from 0, -3.6e-10 in one test) the margin itself. ``model.meta["predicts"]`` says what a ranking score or hazard ratio is.
  ``reg:logistic`` is a regression in XGBoost (its value is ``p``); the model holds it as a binary
  classifier whose score for class "1" is that value.
* ``survival:aft`` predicts a survival time, C's ``exp`` of the float32 margin computed in double and rounded to
  float32 (``aft_obj.cu`` ``PredTransform``; ``ProbToMargin`` ``logf``): ``Link.EXP_DOUBLE``, not ``expf`` (128 of
  200,000 margins in [-20, 20] differ by an ulp). Every target computes glibc's ``exp`` (C's and the SQL engines'
  own ``exp``; Java's and JavaScript's written out) and rounds it; an ``exp`` within 16 double ulps of glibc's (Spark's
  ``EXP`` is Java's) can round otherwise only at the 69 float32 margins whose ``exp`` lies within 2^-24 float32
  ulps of a rounding midpoint (tests/fixtures/xgboost/exp_midpoints.py sweeps all 2^31), which the tests run
  through every target and engine: the same float32 at each.
* ``binary:hinge`` predicts 1.0 where the float32 margin is above 0, else 0.0, NaN too (``hinge.cu``
  ``PredTransform``; ``ProbToMargin`` the identity); ``XGBClassifier.predict`` gives that label and
  ``predict_proba`` ``[1 - it, it]``. The model is that binary classifier: ``Link.STEP``, scores ``[1 - h, h]``,
  its label where the raw sum is above 0 (``Decision.RAW_POSITIVE``); ``Booster.predict``'s value is the score of
  class "1", as for ``reg:logistic``.

Refused, in one line each: multi-output models (``num_target`` > 1: a treegen model predicts one
target), ``gblinear``, objects trained
with a custom objective (a file cannot tell: XGBoost saves those as ``reg:squarederror`` and predicts
the margin, which is what the model then does), and a non-NaN ``missing`` together with categorical
features.

Classifiers' classes are "0", "1", ... (XGBoost's labels are the integers 0 .. K-1; ``model.meta``
keeps them as integers). ``multi:*`` of ``num_class`` 1, which XGBoost trains (every label 0), is a
classifier of the one class "0": its score the softmax of one margin, 1.0.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .. import arithmetic
from ..arithmetic import f32
from ..collector import collector_paused
from ..errors import TreegenError, with_article
from ..model import (CLASSIFICATION, NOMINAL, NUMERIC, REGRESSION, Codes, Combine, CombineKind, Decision, Feature,
                     Link, MissingRoute, Model, Node, NumericSemantics, Op, Precision, Split, Target, Tree, category_of,
                     code_number, is_missing)
from ..modelio import json_loads
from . import Refused, c_number, code_or, file_of, library_meta, ranking_score, release, resolve_feature_names, ubjson

UBJSON_START = b"{L\x00\x00\x00\x00\x00\x00\x00\x07learner"  # an object whose first key is "learner"
JSON_START = re.compile(rb'\s*\{\s*"learner"\s*:')
BINARY_START = b"binf"  # XGBoost's deprecated binary format (src/learner.cc, 1.x)
TEXT_DUMP_START = b"booster[0]:"  # Booster.dump_model's text
JSON_DUMP = re.compile(rb'\s*\[\s*\{\s*"nodeid"\s*:')  # Booster.dump_model(dump_format="json")
MAX_CATEGORY = 16777216  # categories at or beyond 2^24 are invalid (src/common/categorical.h InvalidCat)
KRT_EPS = f32(1e-6)  # include/xgboost/base.h kRtEps, the logistic base_score's clamp from 3.1 on
NUMERIC_SEMANTICS = NumericSemantics(cast="float32", strict=True)
LEFT, RIGHT = MissingRoute.to_child(0), MissingRoute.to_child(1)


@dataclass(frozen=True)
class Objective:
    """How predictions follow from the margins under one objective."""

    link: Link
    classes: str  # "binary", "multi", or "" for a regression
    decide: Decision | None
    base_to_margin: str  # ProbToMargin: "identity", "logit" (-logf(1/b - 1)) or "log" (logf(b))
    predicts: str | None = None  # what the value is, where a regression's number alone does not tell


# src/objective/regression_loss.h, regression_obj.cu, multiclass_obj.cu (PredTransform, ProbToMargin).
IDENTITY = Objective(Link.IDENTITY, "", None, "identity")
LOGISTIC = Objective(Link.SIGMOID, "binary", Decision.ARGMAX, "logit")
EXPONENTIAL = Objective(Link.EXP, "", None, "log")
OBJECTIVES = {
    "binary:logistic": LOGISTIC,
    "reg:logistic": LOGISTIC,
    "binary:logitraw": IDENTITY,  # LogisticRaw: PredTransform and ProbToMargin are the identity
    "multi:softprob": Objective(Link.SOFTMAX, "multi", Decision.ARGMAX, "identity"),
    "multi:softmax": Objective(Link.SOFTMAX, "multi", Decision.ARGMAX_RAW, "identity"),  # FindMaxIndex
    "count:poisson": EXPONENTIAL,
    "reg:gamma": EXPONENTIAL,
    "reg:tweedie": EXPONENTIAL,
    "reg:squarederror": IDENTITY,
    "reg:linear": IDENTITY,  # the old name of reg:squarederror
    "reg:squaredlogerror": IDENTITY,
    "reg:pseudohubererror": IDENTITY,
    "reg:absoluteerror": IDENTITY,
    "reg:quantileerror": IDENTITY,  # one quantile; several are several targets (refused)
    # src/objective/lambdarank_obj.cc: no PredTransform nor ProbToMargin (ObjFunction's identity); 1.7's
    # rank_obj.cu the same
    **{name: Objective(Link.IDENTITY, "", None, "identity", ranking_score(name))
       for name in ("rank:pairwise", "rank:ndcg", "rank:map")},
    # regression_obj.cu CoxRegression: PredTransform std::exp of a float (expf), ProbToMargin std::log (logf)
    "survival:cox": Objective(Link.EXP, "", None, "log", "a hazard ratio (survival:cox): exp of the trees' sum, "
                                                        "relative to a baseline hazard the model does not hold"),
    # aft_obj.cu PredTransform: C's exp of the float32 margin, in double, rounded to float32 (not expf: 128
    # of 200,000 margins in [-20, 20] differ by an ulp); ProbToMargin std::log of a float (logf)
    "survival:aft": Objective(Link.EXP_DOUBLE, "", None, "log", "a predicted survival time (survival:aft): exp "
                                                                "of the trees' sum"),
    # hinge.cu PredTransform: margin > 0 ? 1 : 0, a label as a number (NaN: 0); no ProbToMargin (the
    # identity). XGBClassifier.predict gives that label, predict_proba [1 - it, it]: a binary classifier
    "binary:hinge": Objective(Link.STEP, "binary", Decision.RAW_POSITIVE, "identity"),
}


# -- entry points --------------------------------------------------------------------------------


def recognises(path: str, head: bytes) -> bool:
    """An XGBoost model file by its first bytes: JSON or UBJSON whose first key is "learner", the
    deprecated binary format, or a text or JSON dump (the last two are refused with how to re-save)."""
    return (head.startswith((UBJSON_START, BINARY_START, TEXT_DUMP_START)) or JSON_START.match(head) is not None
            or JSON_DUMP.match(head) is not None)


@collector_paused()
def read_xgboost(path: str, feature_names: Sequence[str] | None = None, missing: float | None = None,
                 use_best_iteration: bool | None = None) -> Model:
    """The model in an XGBoost JSON or UBJSON file, read without XGBoost.

    Parameters
    ----------
    path : the file (``Booster.save_model``).
    feature_names : the input columns' names (default: the file's own, else x0, x1, ...); the file's own
        may only be repeated (:func:`treegen.importers.resolve_feature_names`).
    missing : the value that stands for a missing input besides NaN, as given to ``DMatrix`` or the
        scikit-learn wrapper (default: the file's, saved by XGBoost 1.7's wrapper, else NaN).
    use_best_iteration : True: the first ``best_iteration + 1`` rounds, as the scikit-learn wrapper
        predicts; False: every tree, as ``Booster.predict``; None: the wrapper's choice when the file
        was saved by the wrapper, else every tree.

    Returns
    -------
    Model

    Raises
    ------
    TreegenError
        For a file that is not a complete XGBoost model, or a model treegen does not support.
    """
    document, form = load_document(path)
    return _Conversion(document, path, form, feature_names, missing, use_best_iteration, None).model()


@collector_paused()
def from_xgboost(model_object, feature_names: Sequence[str] | None = None, missing: float | None = None,
                 use_best_iteration: bool | None = None) -> Model:
    """A treegen model from an ``xgboost.Booster`` or a fitted scikit-learn wrapper (``XGBClassifier``,
    ``XGBRegressor``, ``XGBRF*``), predicting what that object's ``predict`` returns.

    Parameters
    ----------
    model_object : the Booster or estimator.
    feature_names : the input columns' names (default: the model's own, else x0, x1, ...); the model's own
        may only be repeated (:func:`treegen.importers.resolve_feature_names`).
    missing : the value that stands for a missing input besides NaN (default: the estimator's
        ``missing`` parameter; for a Booster NaN).
    use_best_iteration : as for :func:`read_xgboost`; None: True for an estimator, False for a Booster.

    Returns
    -------
    Model
    """
    import xgboost
    missing_from = "given"
    if isinstance(model_object, xgboost.Booster):
        booster, wrapper = model_object, False
    elif isinstance(model_object, xgboost.XGBModel):
        if callable(model_object.objective):
            raise TreegenError("a custom objective is not supported: XGBoost does not save it, and its "
                               f"predictions are not known; supported: {', '.join(OBJECTIVES)}")
        try:
            booster = model_object.get_booster()
        except (xgboost.core.XGBoostError, ValueError, AttributeError):  # scikit-learn's NotFittedError is both
            raise TreegenError(f"the {type(model_object).__name__} is not fitted; call fit before importing") from None
        wrapper = True
        if missing is None and model_object.missing is not None:
            missing, missing_from = float(model_object.missing), "the estimator's missing parameter"
    else:
        raise TreegenError(f"cannot import {with_article(type(model_object).__name__)}; supported: xgboost.Booster "
                           "and the scikit-learn wrappers (XGBClassifier, XGBRegressor, XGBRFClassifier, "
                           "XGBRFRegressor)")
    source = f"the {type(model_object).__name__}"
    document = json.loads(bytes(booster.save_raw(raw_format="json")))
    return _Conversion(document, source, "object", feature_names, missing, use_best_iteration, wrapper,
                       missing_from).model()


def load_document(path: str) -> tuple[dict, str]:
    """The document an XGBoost JSON or UBJSON file holds, and "json" or "ubjson"."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise TreegenError(f"cannot read the model file: {err.strerror}", path) from None
    if data.startswith(BINARY_START):
        raise TreegenError("this is XGBoost's deprecated binary model format, which treegen does not read; load it "
                           "with XGBoost (xgboost.Booster(model_file=...)) and save it with "
                           "booster.save_model('model.json')", path)
    if data.startswith(TEXT_DUMP_START) or JSON_DUMP.match(data[:64]):
        raise TreegenError("this is a dump of XGBoost's trees (Booster.dump_model), which lacks the objective and "
                           "base score; save the model with booster.save_model('model.json')", path)
    if data.startswith(b"{L"):
        try:
            return ubjson.loads(data), "ubjson"
        except ubjson.UBJSONError as err:
            raise TreegenError(f"not a complete XGBoost UBJSON model: {err}", path) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise TreegenError("not an XGBoost model: the file is neither UTF-8 JSON nor UBJSON", path) from None
    try:
        return json_loads(text, path), "json"  # 1.x and 2.x write NaN for a categorical split's threshold
    except json.JSONDecodeError as err:
        raise TreegenError(f"not a complete XGBoost JSON model: {err.msg}", path, err.lineno, err.colno) from None


# What XGBoost refuses in a row (the DMatrix would take it; predict fails): unless `missing` is infinite.
UNRECORDED = "default (the scikit-learn wrapper's file records no missing value)"
INFINITE = Refused("a value infinite in float32 (±inf, or beyond ±3.4e38)")


def oracle(source, model: Model, rows: Sequence[dict]) -> list[tuple | Refused]:
    """XGBoost's own predictions for ``rows`` (dicts by feature name) from the model file ``source`` that
    ``model`` was imported from (or the Booster or scikit-learn wrapper itself): ``(label or value, scores)``
    per row, as ``Model.predict`` and ``Model.scores`` give them, with the missing value and the rounds the import chose
    (``model.meta["xgboost"]``), through ``Booster.predict`` on a ``DMatrix``; :data:`INFINITE` for a row
    XGBoost refuses (a value that is infinite in float32, unless ``missing`` is infinite).

    The rows are given as a user gives them. A model whose file names its categories (3.1+, trained on a
    pandas frame) takes a pandas frame whose categorical columns have the training categories: a
    name not among them is missing there, as pandas makes it (``pd.Categorical(values, categories=...)``),
    and XGBoost re-codes the frame against the categories it saved; among integer categories pandas finds
    the number a value is or its text reads as by its value (20.0 and "20.0" are 20, 2.7 none). A model of
    codes takes a matrix of numbers: a category is the number it is or spells (:func:`treegen.model.code_number`), else -1
    (no category: the side of the categories not listed).
    """
    import xgboost  # not installed: verify says which package brings it on this platform (packages.pip_name)
    info, path = model.meta["xgboost"], file_of(source)
    if path is not None and info.get("vector_leaves") == "base_weights" and release(xgboost.__version__) >= (3, 2):
        # src/tree/multi_target_tree_model.cc LoadModel (3.2+) looks up leaf_weights unchecked: a crash
        raise TreegenError(f"XGBoost {xgboost.__version__} cannot load this file: its vector-leaf trees were saved "
                           f"by XGBoost {info['version']}, before 3.2 kept the leaves' values apart (leaf_weights), "
                           "and 3.2 on read no other layout (it crashes); check it against XGBoost 2.0 to 3.1", path)
    rounds, objective, missing = (0, info["rounds_used"]), info["objective"], float(info["missing"])
    codes = _codes(model, rows)
    with np.errstate(over="ignore"):
        taken = math.isinf(missing) | ~np.isinf(codes.astype(np.float32)).any(axis=1)
    try:
        booster = xgboost.Booster(model_file=path) if path is not None else (
            source if isinstance(source, xgboost.Booster) else source.get_booster())
        if booster.num_features() != len(model.features):
            raise TreegenError(f"this XGBoost model takes {booster.num_features()} features, the treegen model "
                               f"{len(model.features)}: give the file the model was imported from", path)
        columns = booster.feature_names or [feature.name for feature in model.features]
        data = _named_frame(model, rows, codes, taken, columns) \
            if model.meta["xgboost"].get("named_categories") else codes[taken]
        matrix = xgboost.DMatrix(data, missing=missing, feature_names=booster.feature_names,
                                 feature_types=booster.feature_types, enable_categorical=True)
        predictions = booster.predict(matrix, iteration_range=rounds)
        if objective == "multi:softmax":  # the probabilities, computed by XGBoost as multi:softprob does
            softprob = booster.copy()
            softprob.set_param({"objective": "multi:softprob"})
            probabilities = softprob.predict(matrix, iteration_range=rounds).reshape(len(predictions), -1)
    except (xgboost.core.XGBoostError, ValueError) as err:  # not the file the model came from, or not a model
        raise TreegenError(f"XGBoost refused: {_first_line(err)}", path) from None
    classes = model.target.classes
    if objective == "multi:softmax":
        answers = [(classes[int(label)], [float(p) for p in scores])
                   for label, scores in zip(predictions, probabilities)]
    elif not model.target.is_classification:
        answers = [(float(v), [float(v)]) for v in predictions]
    elif OBJECTIVES[objective].classes == "binary":  # XGBClassifier: predict p > 0.5, predict_proba [1 - p, p]
        answers = [(classes[int(p > 0.5)], [float(np.float32(1.0) - p), float(p)]) for p in predictions]
    else:
        answers = [(classes[int(np.argmax(scores))], [float(p) for p in scores])  # one class: a column, not a matrix
                   for scores in predictions.reshape(len(predictions), -1)]
    given = iter(answers)
    return [next(given) if kept else INFINITE for kept in taken]


def _first_line(err: Exception) -> str:
    """XGBoost's message without its time stamp, source location and stack trace."""
    line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return re.sub(r"^\[[0-9:]+\] [^ ]+:[0-9]+: (Check failed: [^:]*: )?", "", line)


def _codes(model: Model, rows: Sequence[dict]) -> np.ndarray:
    """The rows as XGBoost takes them: numbers, NaN where missing, category codes."""
    named = set(model.meta["xgboost"].get("named_categories", ()))
    columns = []
    for feature in model.features:
        values = [row.get(feature.name) for row in rows]
        if feature.is_numeric:
            columns.append([math.nan if v is None else float(v) for v in values])
        elif feature.name in named:
            code = {c: float(k) for k, c in enumerate(feature.categories)}
            columns.append([math.nan if v is None else code.get(str(v), -1.0) for v in values])
        else:
            columns.append([math.nan if v is None else code_or(v, -1.0) for v in values])
    return np.array(columns, dtype=np.float64).T.reshape(len(rows), len(model.features))


def _named_frame(model: Model, rows: Sequence[dict], codes: np.ndarray, taken: np.ndarray, columns: list[str]):
    """The ``taken`` rows as a pandas frame in the file's column names: numbers as in ``codes``, named
    categorical columns of the training categories, with None for a missing value or an unknown name."""
    try:
        import pandas as pd
    except ImportError:
        raise TreegenError("running XGBoost's own predict on named categories needs pandas: pip install pandas") \
            from None
    info = model.meta["xgboost"]
    named, integers = set(info["named_categories"]), set(info.get("integer_categories", ()))
    kept = [row for row, keep in zip(rows, taken) if keep]
    frame = {}
    for j, (feature, column) in enumerate(zip(model.features, columns)):
        if feature.name not in named:
            frame[column] = codes[taken, j]
            continue
        if feature.name in integers:  # pandas finds a number among them by its value: 20.0 and "20.0" are 20
            by_value = {float(c): int(c) for c in feature.categories}
            values = [None if is_missing(v) or (number := code_number(v)) is None else by_value.get(number)
                      for v in (row.get(feature.name) for row in kept)]
            frame[column] = pd.Categorical(values, categories=[int(c) for c in feature.categories])
            continue
        values = [None if is_missing(v) or (name := category_of(feature, v)) is None else name
                  for v in (row.get(feature.name) for row in kept)]
        frame[column] = pd.Categorical(values, categories=list(feature.categories))
    return pd.DataFrame(frame)


# -- the conversion ------------------------------------------------------------------------------


@dataclass
class _RawTree:
    """One tree's arrays as the file has them (node ids as XGBoost numbers them)."""

    left: list[int]
    right: list[int]
    feature: list[int]
    condition: list[float]  # float32 values: thresholds at splits, leaf values at leaves
    default_left: list[int]
    categorical: list[int]  # split_type: 1 for a categorical split
    categories: dict[int, list[int]]  # node id -> the categories that go right
    weight: list[float]  # base_weights: a node's value were it a leaf (empty for vector leaves)
    cover: list[float]  # sum_hessian
    vectors: list[tuple[float, ...]] | None = None  # vector-leaf trees: each node's values, one per class
    leaf_values: str = ""  # vector-leaf trees: the field the leaves' values are in, leaf_weights or base_weights


class _Conversion:
    """One XGBoost model document turned into a treegen model, checked field by field: a missing or
    malformed field, or a feature treegen does not support, is one line naming it."""

    def __init__(self, document, source: str, form: str, feature_names, missing, use_best_iteration, wrapper,
                 missing_from: str = "given"):
        self.document, self.source, self.form = document, source, form
        self.feature_names, self.missing_option, self.missing_from = feature_names, missing, missing_from
        self.use_best_iteration, self.wrapper = use_best_iteration, wrapper
        self.numeric_splits: dict[tuple, Split] = {}
        self.named: dict[int, tuple[str, ...]] = {}  # feature -> its training categories (3.1+ ``cats``)
        self.integer_named: list[str] = []  # the named features whose categories are integers

    def fail(self, message: str) -> TreegenError:
        return TreegenError(message, self.source if self.form != "object" else None)

    def invalid(self, where: str, problem: str) -> TreegenError:
        return self.fail(f"not a valid XGBoost model: {where} {problem}")

    def field(self, container, key: str, where: str, kind=None, default=...):
        """``container[key]``, which must be of ``kind``; ``default`` when it is absent, if given."""
        if not isinstance(container, dict):
            raise self.invalid(where, "is not an object")
        if key not in container:
            if default is not ...:
                return default
            raise self.invalid(f"{where}.{key}", "is missing")
        value = container[key]
        if kind is not None and not isinstance(value, kind):
            raise self.invalid(f"{where}.{key}", f"is not {_KIND_NAMES.get(kind, 'of the expected type')}")
        return value

    def integer(self, container, key: str, where: str, default=...) -> int:
        """An integer field; the ``*_param`` objects write their numbers as strings."""
        value = self.field(container, key, where, (int, str), default)
        try:
            return c_number(int, value) if isinstance(value, str) else int(value)
        except ValueError:
            raise self.invalid(f"{where}.{key}", f"is not an integer: {value!r}") from None

    # -- the whole model ------------------------------------------------------------------------

    def model(self) -> Model:
        learner = self.learner()
        self.version = self.version_of()
        objective_name = self.objective_name(learner)
        objective = OBJECTIVES[objective_name]
        model_part, weights, booster = self.booster(learner)
        params = self.field(learner, "learner_model_param", "learner", dict)
        groups = self.output_groups(params, objective, objective_name)
        raw_trees = [self.raw_tree(t, f"trees[{i}]", groups)
                     for i, t in enumerate(self.field(model_part, "trees", "model", list))]
        groups_of_trees = self.tree_groups(model_part, len(raw_trees), groups,
                                           vectors=any(tree.vectors is not None for tree in raw_trees))
        if weights is not None and len(weights) != len(raw_trees):
            raise self.invalid("weight_drop", f"has {len(weights)} weights for {len(raw_trees)} trees")
        indptr = self.rounds(model_part, len(raw_trees), groups)
        used, choice, best = self.rounds_used(learner, len(indptr) - 1)
        if indptr[used] == 0:
            raise self.fail("the XGBoost model has no trees (trained for 0 rounds?): it predicts its base_score for "
                            "every row, and treegen compiles trees")
        n_features = self.integer(params, "num_feature", "learner_model_param")
        names = self.names(learner, n_features)
        missing, missing_from = self.missing(learner)
        categories, named = self.categories(model_part, raw_trees, n_features, names)
        features = self.features(names, categories, missing, set(named))
        trees = []
        for i in range(indptr[used]):
            tree = self.tree(raw_trees[i], categories, n_features, i)
            tree.output = groups_of_trees[i] if raw_trees[i].vectors is None else None  # a vector adds to all
            if weights is not None:
                tree.weight = weights[i]
            trees.append(tree)
        margins = self.base_margins(params, objective, objective_name, groups)
        target = self.target(objective, groups)
        vector_leaves = next((tree.leaf_values for tree in raw_trees if tree.vectors is not None), None)
        combine = Combine(CombineKind.SUM, tuple(margins), 1.0, objective.link, precision=Precision.FLOAT32,
                          decide=objective.decide if target.is_classification else None)
        version = ".".join(map(str, self.version)) if self.version else None
        meta = library_meta("xgboost", "XGBoost", version, objective_name, predicts=objective.predicts, own={
            "version": version or "unknown",
            "format": self.form, "objective": objective_name, "booster": booster,
            "base_score": self.field(params, "base_score", "learner_model_param", str), "base_margin": margins,
            "missing": repr(missing), "missing_from": missing_from,
            "rounds": len(indptr) - 1, "rounds_used": used, "trees_used": choice,
            **({"best_iteration": best} if best is not None else {}),
            "named_categories": named, "integer_categories": self.integer_named,
            **({"vector_leaves": vector_leaves} if vector_leaves else {}),
            **({"classes": list(range(len(target.classes)))} if target.is_classification else {}),
            **({"dart": "Booster.predict's arithmetic (leaf * weight, then added); before XGBoost 3.3 the "
                        "scikit-learn wrapper's predict (numpy and pandas input) rounds ((base + leaf) - base) * "
                        "weight"}
               if weights else {}),
            **({"note": "; ".join(notes)} if (notes := _notes(objective_name, bool(weights))) else {}),
        })
        return Model(features, target, trees, combine, NUMERIC_SEMANTICS, meta)

    def learner(self) -> dict:
        document = self.document
        if not isinstance(document, dict) or not isinstance(document.get("learner"), dict):
            raise self.fail("not an XGBoost model: expected an object with a 'learner' (Booster.save_model)")
        learner = document["learner"]
        if "learner_train_param" in learner or "generic_param" in learner:  # what only a configuration holds
            raise self.fail("this is XGBoost's configuration (Booster.save_config), not a model; save the model "
                            "with booster.save_model('model.json')")
        return learner

    def version_of(self) -> tuple[int, ...]:
        version = self.document.get("version", [])
        if not isinstance(version, list) or not all(isinstance(v, int) for v in version):
            raise self.invalid("version", "is not a list of integers")
        return tuple(version)

    def objective_name(self, learner: dict) -> str:
        name = self.field(self.field(learner, "objective", "learner", dict), "name", "learner.objective", str)
        if name in OBJECTIVES:
            return name
        raise self.fail(f"the XGBoost objective {name!r} is not supported; "
                        f"supported: {', '.join(OBJECTIVES)}")

    def booster(self, learner: dict) -> tuple[dict, list[float] | None, str]:
        """The gbtree model object, DART's tree weights (None without), and the booster's name ("dart" where
        there are weights). Up to 3.2 DART saves ``{"name": "dart", "gbtree": {"model": ...}, "weight_drop"}``;
        3.3 made DART a gbtree that keeps its weights in its model, ``{"name": "gbtree", "model": {...,
        "weight_drop"}}``; 3.3+ reads both, the weights beside the model over those in it (``gbtree.cc``
        ``GBTree::LoadModel``), and an empty or absent list is every weight 1 (``gbtree_model.h``
        ``TreeWeights``)."""
        gradient_booster = self.field(learner, "gradient_booster", "learner", dict)
        name = self.field(gradient_booster, "name", "gradient_booster", str)
        if name not in ("gbtree", "dart"):
            raise self.fail(f"the XGBoost booster {name!r}{' (a linear model)' if name == 'gblinear' else ''} is "
                            "not supported; supported: gbtree and dart")
        if name == "dart":
            outer, where = self.field(gradient_booster, "gbtree", "gradient_booster", dict), "gradient_booster.gbtree"
        else:
            outer, where = gradient_booster, "gradient_booster"
        model = self.field(outer, "model", where, dict)
        weights = (self.floats(gradient_booster, "weight_drop", "gradient_booster") if "weight_drop" in gradient_booster
                   else self.floats(model, "weight_drop", f"{where}.model", default=[])) or None
        return model, weights, "dart" if weights else name

    def output_groups(self, params: dict, objective: Objective, objective_name: str) -> int:
        targets = self.integer(params, "num_target", "learner_model_param", default="1")
        if targets > 1 and objective_name == "reg:quantileerror":  # (one output a quantile: quantile_alpha's)
            raise self.fail(f"an XGBoost model of {targets} quantiles (reg:quantileerror with several quantile_alpha) "
                            "is not supported: a treegen model predicts one value; train one model a quantile")
        if targets > 1:
            raise self.fail(f"XGBoost models with {targets} targets (multi-output) are not supported: a treegen model "
                            "predicts one target, a value or a class; supported: one target, with one output per "
                            "class for multi:softprob and multi:softmax (vector leaves too)")
        classes = self.integer(params, "num_class", "learner_model_param", default="0")
        if objective.classes == "multi" and classes < 1:  # 1: every label 0, a softmax of one margin (1.0)
            raise self.invalid("learner_model_param.num_class", f"is {classes} for {objective_name}")
        return classes if objective.classes == "multi" else 1

    def tree_groups(self, model_part: dict, n_trees: int, groups: int, vectors: bool) -> list[int]:
        """The output group of each tree (``tree_info``): every group has trees, as each round grows one a class
        (``gbm/gbtree.cc`` ``BoostNewTrees``), unless its trees' leaves are vectors of every group's values."""
        declared = self.integer(self.field(model_part, "gbtree_model_param", "model", dict), "num_trees",
                                "gbtree_model_param")
        if declared != n_trees:
            raise self.invalid("model.trees", f"has {n_trees} trees where gbtree_model_param says {declared}")
        info = self.integers(model_part, "tree_info", "model")
        if len(info) != n_trees or not all(0 <= g < groups for g in info):
            raise self.invalid("model.tree_info", f"is not one output group in 0..{groups - 1} for each of the "
                                                  f"{n_trees} trees")
        if info and not vectors and len(set(info)) != groups:  # (a damaged num_class of 2**31 made lists of that many)
            raise self.invalid("learner_model_param.num_class", f"is {groups}, but the trees add to "
                                                                f"{len(set(info))} output group(s)")
        return info

    def rounds(self, model_part: dict, n_trees: int, groups: int) -> list[int]:
        """The first tree of each boosting round, and the end (``iteration_indptr``, 2.0+; in 1.x every
        round has ``num_parallel_tree`` trees per output group: gbm/gbtree.cc ``LayerToTree``)."""
        indptr = model_part.get("iteration_indptr")
        if indptr is None:
            per_round = groups * self.integer(model_part["gbtree_model_param"], "num_parallel_tree",
                                              "gbtree_model_param", default="1")
            if per_round < 1 or n_trees % per_round:
                raise self.invalid("model.trees", f"has {n_trees} trees, not a whole number of rounds of {per_round}")
            return list(range(0, n_trees + 1, per_round))
        indptr = self.integers(model_part, "iteration_indptr", "model")
        if not indptr or indptr[0] != 0 or indptr[-1] != n_trees or any(a > b for a, b in zip(indptr, indptr[1:])):
            raise self.invalid("model.iteration_indptr", f"does not divide the {n_trees} trees into rounds")
        return indptr

    def rounds_used(self, learner: dict, rounds: int) -> tuple[int, str, int | None]:
        """How many rounds the model takes, why, and the file's best_iteration (None: none, or no rounds)."""
        attributes = self.field(learner, "attributes", "learner", dict, default={})
        best = attributes.get("best_iteration")
        wrapper = self.wrapper if self.wrapper is not None else "scikit_learn" in attributes
        use_best = self.use_best_iteration if self.use_best_iteration is not None else wrapper
        if best is None:
            return rounds, "every tree (no best_iteration)", None
        try:
            best = int(best)
        except (TypeError, ValueError):
            raise self.invalid("learner.attributes.best_iteration", f"is not an integer: {best!r}") from None
        # 1.x's train() saves the last round as best_iteration without early stopping too, -1 for no rounds
        # (python-package/xgboost/callback.py CallbackContainer.after_training, v1.7.6)
        if best == -1 and rounds == 0:
            return rounds, "every tree (no rounds)", None
        if not 0 <= best < rounds:
            raise self.invalid("learner.attributes.best_iteration", f"is {best}, beyond the {rounds} rounds")
        if not use_best:
            why = "" if self.use_best_iteration is not None else ": not saved by the scikit-learn wrapper"
            return rounds, f"every tree, as Booster.predict (best_iteration {best} ignored{why})", best
        why = "as chosen" if self.use_best_iteration else "as the scikit-learn wrapper predicts"
        return best + 1, f"the first best_iteration + 1 = {best + 1} rounds, {why}", best

    def names(self, learner: dict, count: int) -> list[str]:
        own = self.field(learner, "feature_names", "learner", list, default=[])
        return resolve_feature_names(self.feature_names, own, count)  # (import_file names the file in its errors)

    def missing(self, learner: dict) -> tuple[float, str]:
        """The value that stands for missing besides NaN, and where it came from."""
        if self.missing_option is not None:
            return float(self.missing_option), self.missing_from
        if self.wrapper is not None:
            return math.nan, "default"
        attributes = self.field(learner, "attributes", "learner", dict, default={})
        try:
            saved = json.loads(attributes.get("scikit_learn", "{}")).get("missing")
        except (ValueError, AttributeError, TypeError):
            raise self.invalid("learner.attributes.scikit_learn", "is not a JSON object") from None
        if isinstance(saved, (int, float)) and not isinstance(saved, bool):
            return float(saved), "the scikit-learn wrapper's parameters saved in the file"
        return math.nan, UNRECORDED if "scikit_learn" in attributes else "default"

    def categories(self, model_part: dict, raw_trees: list[_RawTree], n_features: int,
                   names: list[str]) -> tuple[dict[int, dict[int, str]], list[str]]:
        """Each categorical feature's categories, as {code: name} in code order, and the names of the
        features whose categories are named (3.1+ ``cats``) rather than codes."""
        named = self.named = self.named_categories(model_part, n_features, names)
        used: dict[int, set[int]] = {}
        for tree in raw_trees:
            for node, codes in tree.categories.items():
                used.setdefault(tree.feature[node], set()).update(codes)
        labels = {}
        for feature, codes in sorted(used.items()):
            if feature not in named:
                labels[feature] = {code: str(code) for code in sorted(codes)}
            elif max(codes) < len(named[feature]):
                labels[feature] = dict(enumerate(named[feature]))
            else:
                raise self.invalid("model.trees", f"name a category code {max(codes)} of feature "
                                                  f"{names[feature]!r}, which has {len(named[feature])}")
        for feature, values in named.items():
            labels.setdefault(feature, dict(enumerate(values)))
        return labels, [names[f] for f in sorted(named)]

    def named_categories(self, model_part: dict, n_features: int, names: list[str]) -> dict[int, tuple[str, ...]]:
        """XGBoost 3.1+'s training categories (``cats``, src/data/cat_container.cc ``CatContainer::Save``):
        per feature, in code order, strings (UTF-8 bytes between offsets) or numbers."""
        cats = self.field(model_part, "cats", "model", dict, default={})
        encodings = self.field(cats, "enc", "model.cats", list, default=[])
        if not encodings:
            return {}
        segments = self.integers(cats, "feature_segments", "model.cats")
        if len(encodings) != n_features or len(segments) != n_features + 1:
            raise self.invalid("model.cats", f"does not describe the {n_features} features")
        named = {}
        for feature, column in enumerate(encodings):
            where = f"model.cats.enc[{feature}]"
            if not isinstance(column, dict):
                raise self.invalid(where, "is not an object")
            if segments[feature + 1] == segments[feature]:
                continue
            if "offsets" in column:
                labels = self.category_strings(column, where, names[feature])
            else:
                labels = self.category_numbers(column, where)
                self.integer_named.append(names[feature])
            if len(labels) != segments[feature + 1] - segments[feature] or len(set(labels)) != len(labels):
                raise self.invalid(where, "does not list its categories once each")
            named[feature] = labels
        return named

    def category_strings(self, column: dict, where: str, name: str) -> tuple[str, ...]:
        text = bytes(v & 0xFF for v in self.integers(column, "values", where))
        offsets = self.integers(column, "offsets", where)
        if (3, 1) <= self.version < (3, 4) and any(byte >= 0x80 for byte in text):
            # python-package/xgboost/_data_utils.py npstr_to_arrow_strarr, 3.1.0 to 3.3.0 (fixed by #12371)
            raise self.fail(f"XGBoost {'.'.join(map(str, self.version))} saved the categories of feature {name!r} "
                            "cut short (it measured their names in characters but stored UTF-8 bytes; fixed in 3.4), "
                            "so they cannot be read; supported: category names in ASCII, integer category codes, "
                            "or a model saved by XGBoost 3.4+")
        try:
            return tuple(text[a:b].decode("utf-8") for a, b in zip(offsets, offsets[1:]))
        except UnicodeDecodeError:
            raise self.invalid(where, "has a category that is not UTF-8") from None

    def category_numbers(self, column: dict, where: str) -> tuple[str, ...]:
        """Integer categories as decimal text (XGBoost refuses floating point categories:
        src/data/columnar.h)."""
        self.integer(column, "type", where)  # include/xgboost/json.h ValueKind of the array: 9-16, integers
        return tuple(str(v) for v in self.integers(column, "values", where))

    def features(self, names: list[str], categories: dict[int, dict[int, str]], missing: float,
                 named: set[str]) -> tuple:
        """The features: nominal for the categorical ones, those named by codes (not in ``named``)
        reading a number as XGBoost does, its float32 truncated unless below zero (``Codes.NONNEGATIVE``)."""
        if not math.isnan(missing) and categories:
            raise self.fail(f"missing={missing!r} with categorical features is not supported (XGBoost reads a "
                            "category equal to it as missing); supported: missing=NaN with categorical features")
        interval = _missing_interval(missing)
        return tuple(Feature(name, NOMINAL, tuple(categories[i].values()), codes=self.codes_of(name, named))
                     if i in categories else Feature(name, NUMERIC, missing_interval=interval)
                     for i, name in enumerate(names))

    def codes_of(self, name: str, named: set[str]) -> Codes | None:
        """How the feature reads a number: as XGBoost a code (``Codes.NONNEGATIVE``); where the file names its
        categories, by their value if they are integers (``Codes.INTEGRAL``: a frame's Categorical of them
        finds 20.0 and "20.0" as the category 20, as pandas matches a value), else by text alone (None)."""
        if name not in named:
            return Codes.NONNEGATIVE
        return Codes.INTEGRAL if name in self.integer_named else None

    def base_margins(self, params: dict, objective: Objective, objective_name: str, groups: int) -> list[float]:
        """``base_score`` (one, or one per group in 3.x: ``[a,b,c]``) turned into margins as XGBoost does
        on loading (src/learner.cc ``InitModelParam`` -> the objective's ``ProbToMargin``), in float32."""
        text = self.field(params, "base_score", "learner_model_param", str)
        try:
            scores = [f32(c_number(float, t)) for t in text.strip().strip("[]").split(",")]
        except ValueError:
            raise self.invalid("learner_model_param.base_score", f"is not a number or a list of numbers: {text!r}") \
                from None
        if len(scores) == 1:  # LearnerModelParam::HandleOldFormat: one value for every group
            scores = scores * groups
        if len(scores) != groups:
            raise self.invalid("learner_model_param.base_score", f"has {len(scores)} values for {groups} outputs")
        margins = [self.margin(b, objective, objective_name) for b in scores]
        if not all(math.isfinite(m) for m in margins):
            raise self.fail(f"base_score {text} has no finite margin under {objective_name}")
        return margins

    def margin(self, b: float, objective: Objective, objective_name: str) -> float:
        if objective.base_to_margin == "log":  # std::log(float) is logf
            return arithmetic.logf(b)
        if objective.base_to_margin == "identity":
            return b
        # regression_loss.h LogisticRegression::ProbToMargin: -logf(1.0f / b - 1.0f); 3.1 on clamps b to
        # [kRtEps, 1 - kRtEps] (1.7.6 to 3.0.5 CHECK that 0 < b < 1 instead)
        if self.version >= (3, 1):
            b = min(max(b, KRT_EPS), f32(1.0 - KRT_EPS))
        elif not 0.0 < b < 1.0:
            raise self.fail(f"base_score {b!r} is outside (0, 1), which XGBoost "
                            f"{'.'.join(map(str, self.version))} refuses for {objective_name}")
        return -arithmetic.logf(f32(f32(1.0 / b) - 1.0))

    def target(self, objective: Objective, groups: int) -> Target:
        if objective.classes == "binary":
            return Target("y", CLASSIFICATION, ("0", "1"))
        if objective.classes == "multi":
            return Target("y", CLASSIFICATION, tuple(str(k) for k in range(groups)))
        return Target("y", REGRESSION)

    # -- trees ------------------------------------------------------------------------------------

    def raw_tree(self, t: dict, where: str, groups: int) -> _RawTree:
        params = self.field(t, "tree_param", where, dict)
        leaf_size = self.integer(params, "size_leaf_vector", f"{where}.tree_param", default="1")
        if leaf_size > 1 and leaf_size != groups:
            raise self.invalid(f"{where}.tree_param.size_leaf_vector", f"is {leaf_size} for {groups} output(s)")
        left = self.integers(t, "left_children", where)
        n = len(left)
        if n < 1 or n != self.integer(params, "num_nodes", f"{where}.tree_param"):
            raise self.invalid(f"{where}.left_children", f"has {n} entries for tree_param.num_nodes nodes")
        right, feature, default_left = (self.integers(t, key, where, n) for key in
                                        ("right_children", "split_indices", "default_left"))
        split_type = self.integers(t, "split_type", where, n, default=[0] * n)
        if leaf_size == 1:
            children = np.asarray(left + right)
        else:  # a vector leaf's right child may name its value (3.2+): only splits name children
            splits = [i for i, child in enumerate(left) if child != -1]
            children = np.asarray([left[i] for i in splits] + [right[i] for i in splits] + [-1])
        if children.min() < -1 or children.max() >= n or 0 in children:
            raise self.invalid(f"{where}", "has a child id out of range")
        conditions = self.floats(t, "split_conditions", where, n)
        self.check_some_number_below(where, left, split_type, conditions)
        vectors = self.vector_values(t, where, left, right, leaf_size) if leaf_size > 1 else None
        return _RawTree(left, right, feature, conditions, default_left, split_type,
                        self.tree_categories(t, where, split_type, n),
                        [] if vectors is not None else self.floats(t, "base_weights", where, n, default=conditions),
                        self.floats(t, "sum_hessian", where, n, default=[0.0] * n), vectors,
                        "" if vectors is None else "leaf_weights" if "leaf_weights" in t else "base_weights")

    def check_some_number_below(self, where: str, left: list[int], split_type: list[int],
                                conditions: list[float]) -> None:
        """XGBoost sends ``x < t`` left: at t = -inf (or a number below float32's range, which it reads as -inf) or
        NaN no number goes left, which no cut in the targets says (:func:`treegen.model.unpassable_threshold`; a NaN
        threshold no model holds). No training writes such a split (XGBoost refuses infinite inputs; a categorical
        split's NaN is no threshold): refused, as a damaged file."""
        for node, (child, kind, t) in enumerate(zip(left, split_type, conditions)):
            if child != -1 and kind == 0 and (t == -math.inf or math.isnan(t)):
                at = "NaN" if math.isnan(t) else "-inf (or below float32's range)"
                raise self.invalid(f"{where}.split_conditions", f"splits node {node} at {at}, which no number is "
                                   "below; XGBoost writes no such split (a damaged file?)")

    def vector_values(self, t: dict, where: str, left: list[int], right: list[int],
                      size: int) -> list[tuple[float, ...]]:
        """Each node's values in a tree of vector leaves (multi_strategy="multi_output_tree", 2.0+;
        src/tree/multi_target_tree_model.cc ``SaveModel``): ``base_weights`` holds ``size`` numbers per
        node, the leaves' values among them up to 3.1; from 3.2 on a leaf's values are the
        ``right_children[leaf]``-th ``size`` numbers of ``leaf_weights``, which XGBoost predicts with
        (``MultiTargetTreeView::LeafValue``)."""
        n = len(left)
        weights = self.floats(t, "base_weights", where)
        if len(weights) != n * size:
            raise self.invalid(f"{where}.base_weights", f"has {len(weights)} entries for {n} nodes of {size} values")
        values = [tuple(weights[i * size:(i + 1) * size]) for i in range(n)]
        if "leaf_weights" not in t:
            return values
        leaf_weights = self.floats(t, "leaf_weights", where)
        count = len(leaf_weights) // size
        if len(leaf_weights) != count * size:
            raise self.invalid(f"{where}.leaf_weights", f"has {len(leaf_weights)} entries, not {size} per leaf")
        for i, child in enumerate(left):
            if child == -1:
                if not 0 <= right[i] < count:
                    raise self.invalid(f"{where}.right_children", f"names leaf value {right[i]} of {count}")
                values[i] = tuple(leaf_weights[right[i] * size:(right[i] + 1) * size])
        return values

    def integers(self, container, key: str, where: str, length: int | None = None, default=...) -> list[int]:
        """A list of integers (of ``length`` entries, if given)."""
        values = self.field(container, key, where, list, default)
        if not all(type(v) is int or type(v) is bool for v in values):
            raise self.invalid(f"{where}.{key}", "is not a list of integers")
        if length is not None and len(values) != length:
            raise self.invalid(f"{where}.{key}", f"has {len(values)} entries for {length} nodes")
        return values

    def floats(self, container, key: str, where: str, length: int | None = None, default=...) -> list[float]:
        """A list of numbers as the float32 values XGBoost holds (JSON writes each float32 as the shortest
        text that reads back to it; 1.x and 2.x write NaN for categorical splits' thresholds)."""
        values = self.field(container, key, where, list, default)
        if not all(type(v) in (int, float) for v in values):
            raise self.invalid(f"{where}.{key}", "is not a list of numbers")
        if length is not None and len(values) != length:
            raise self.invalid(f"{where}.{key}", f"has {len(values)} entries for {length} nodes")
        return _float32_list(values)

    def tree_categories(self, t: dict, where: str, split_type: list, n: int) -> dict[int, list[int]]:
        """The categories each categorical split sends right (src/tree/tree_model.cc ``LoadCategoricalSplit``)."""
        nodes, segments, sizes, values = (self.integers(t, key, where, default=[]) for key in
                                          ("categories_nodes", "categories_segments", "categories_sizes",
                                           "categories"))
        if not len(nodes) == len(segments) == len(sizes):
            raise self.invalid(where, "has categories_nodes, categories_segments and categories_sizes of "
                                      "different lengths")
        out = {}
        for node, start, size in zip(nodes, segments, sizes):
            codes = values[start:start + size] if start >= 0 else []
            if (not 0 <= node < n or split_type[node] != 1 or len(codes) != size or size < 1
                    or not all(0 <= c < MAX_CATEGORY for c in codes)):
                raise self.invalid(where, f"has a malformed category list for node {node}")
            out[node] = codes
        if any(kind == 1 and i not in out for i, kind in enumerate(split_type)):
            raise self.invalid(where, "has a categorical split without categories")
        return out

    def tree(self, raw: _RawTree, categories: dict[int, dict[int, str]], n_features: int, index: int) -> Tree:
        """A model tree in pre-order from XGBoost's arrays (XGBoost numbers nodes breadth first). A
        categorical split's children are swapped: its listed categories go right in XGBoost, and are
        ``children[0]`` of an ``in`` split."""
        left, right, categorical = raw.left, raw.right, raw.categorical
        children = [(right[i], left[i]) if categorical[i] == 1 else (left[i], right[i]) for i in range(len(left))]
        order, new_id, stack = [], [-1] * len(left), [0]
        while stack:
            old = stack.pop()
            if new_id[old] != -1:
                raise self.invalid(f"trees[{index}]", f"reaches node {old} twice (not a tree)")
            new_id[old] = len(order)
            order.append(old)
            if left[old] != -1:
                first, second = children[old]
                stack.append(second)
                stack.append(first)
        nodes = []
        for old in order:
            if left[old] == -1:
                value = (raw.condition[old],) if raw.vectors is None else raw.vectors[old]
                nodes.append(Node(value, n=raw.cover[old]))
                continue
            feature = raw.feature[old]
            if not (type(feature) is int and 0 <= feature < n_features):
                raise self.invalid(f"trees[{index}]", f"splits on feature {feature!r}, but the model has {n_features}")
            if (categorical[old] == 1) != (feature in categories):
                raise self.invalid(f"trees[{index}]", f"has numeric and categorical splits on feature {feature}")
            first, second = children[old]
            value = (raw.weight[old],) if raw.vectors is None else raw.vectors[old]
            nodes.append(Node(value, n=raw.cover[old], split=self.split(raw, old, categories),
                              children=(new_id[first], new_id[second])))
        return Tree(nodes)

    def split(self, raw: _RawTree, node: int, categories: dict[int, dict[int, str]]) -> Split:
        """The split at ``node``; numeric splits are shared between nodes that test the same (histogram
        methods reuse their bin edges as thresholds), which halves the import time of large models."""
        feature, default_left = raw.feature[node], raw.default_left[node] == 1
        if raw.categorical[node] == 1:
            names = categories[feature]
            # a name not among the training categories is missing (see the module docstring); a code
            # no split lists goes left
            return Split(feature, Op.IN, values=tuple(names[c] for c in raw.categories[node]),
                         missing=RIGHT if default_left else LEFT, unknown=None if feature in self.named else 1)
        key = (feature, raw.condition[node], default_left)
        split = self.numeric_splits.get(key)
        if split is None:
            split = Split(feature, Op.LE, threshold=raw.condition[node], missing=LEFT if default_left else RIGHT)
            self.numeric_splits[key] = split
        return split


_KIND_NAMES = {dict: "an object", list: "a list", str: "a string", (int, str): "an integer"}


def _float32_list(values: list) -> list[float]:
    """Numbers rounded to float32, as Python floats."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float64).tolist()


def _missing_interval(missing: float) -> tuple[float, float] | None:
    """The doubles ``x`` with ``float32(x) == float32(missing)`` (None for NaN): from just above the
    largest double whose float32 is smaller, to the largest double whose float32 is not larger."""
    if math.isnan(missing):
        return None
    value = f32(missing)
    high = NumericSemantics(cast="float32").effective_threshold(value)
    if value == -math.inf:  # no float32 is smaller: every double from -inf up
        return -math.inf, high
    below = NumericSemantics(cast="float32", strict=True).effective_threshold(value)
    return math.nextafter(below, math.inf), high


def unrecorded_missing(model: Model) -> str | None:
    """What `treegen import` says of a file saved by the scikit-learn wrapper, which leaves out the wrapper's
    missing value (XGBRegressor(missing=0.0): XGBoost itself reads the file with NaN missing, as treegen
    does, where the estimator answered otherwise); said once, at import, not at each use of the model."""
    if model.meta.get("xgboost", {}).get("missing_from") != UNRECORDED:
        return None
    return ("the file, saved by XGBoost's scikit-learn wrapper, does not record the wrapper's missing value: only "
            "NaN is missing here; if the wrapper had another (missing=0), import with --missing 0 (from Python, "
            "from_xgboost(estimator) reads it off the estimator)")


def _notes(objective: str, dart: bool) -> list[str]:
    """What import says of a model that XGBoost's own ways of predicting answer differently, and which one the
    model is: its ``Booster.predict`` on a DMatrix, which `verify --against` runs (found by fuzzing against the
    scikit-learn wrapper's predict and predict_proba)."""
    notes = []
    if objective == "reg:logistic":
        notes.append("reg:logistic is a regression in XGBoost: its predicted value is the score of class '1'")
    if objective == "binary:logitraw":
        notes.append("binary:logitraw predicts the raw margin, a regression here as Booster.predict gives it "
                     "(XGBClassifier.predict labels a row 1 where the margin is above 0.5)")
    if objective == "multi:softmax":
        notes.append("multi:softmax's probabilities are multi:softprob's, XGBoost's float32 softmax "
                     "(XGBClassifier.predict_proba applies scipy's softmax to the margins: 1 or 2 float32 ulps "
                     "apart; the labels agree)")
    if dart:
        notes.append("DART: the sums are Booster.predict's, leaf * weight then added (before XGBoost 3.3 the "
                     "scikit-learn wrapper's predict, numpy and pandas rows alike, adds ((base + leaf) - base) * "
                     "weight, each leaf rounded beside the base margin: measured with 3.2, 1,296 of 4,272 rows "
                     "apart by up to 4.8e-7 at base_score 1.03, 6 float32 ulps of a prediction of 0.039; far more "
                     "where the base_score is large)")
    return notes

