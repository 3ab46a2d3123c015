"""Import CatBoost models as a treegen model that predicts what CatBoost predicts: labels and raw values
bit for bit, softmax and Exponent within :data:`EXP_TOLERANCE` (CatBoost's fast exp; see below).

Reads the JSON that ``model.save_model(path, format="json")`` writes -- without CatBoost installed:
the file is data, never code -- and converts a fitted ``CatBoost``, ``CatBoostClassifier`` or
``CatBoostRegressor`` by saving it to that JSON. CatBoost's native ``.cbm`` (``save_model(path)``'s
default) needs CatBoost installed: its own loader parses the file (data, never code), and the model is
converted as a fitted one is, the same model as from its JSON, bit for bit. A ``.cbm``, like a JSON
saved without ``pool=``, knows its categories only by hash (``categories`` names them: see below). Tested with
CatBoost 1.2 and 1.2.10, whose files have the same layout.

How CatBoost predicts (sources in github.com/catboost/catboost, read at the 1.2 releases) and how the
model says the same:

* A float feature is read as a float32 and a split on border ``b`` (a float32) is *true* when
  ``float32(x) > b`` (``catboost/libs/model/cpu/quantization.h`` ``BinarizeFloats``), so it goes
  left (false) when ``float32(x) <= b``: ``NumericSemantics(cast="float32")``, children (false, true).
* NaN: a feature trained without NaN, or with ``nan_value_treatment`` ``AsIs``, compares NaN false
  with every border; ``AsFalse`` (``nan_mode="Min"``) reads NaN as -inf, false everywhere; ``AsTrue``
  (``nan_mode="Max"``) as +inf, true everywhere (``quantization.h`` ``BinarizeFeatures``). So a split's
  missing route is the true child only for an ``AsTrue`` feature that had NaN in training. Infinities
  are compared like any float32 (and doubles beyond FLT_MAX become float32 infinities).
* Oblivious trees (``oblivious_trees``): every level tests one split, ``splits[0]`` decides bit 0 of
  the leaf index, and class ``k`` of leaf ``i`` is ``leaf_values[i * dim + k]``
  (``catboost/libs/model/cpu/evaluator_impl.cpp`` ``CalcIndexesBasic``). They are expanded to full
  binary trees: the root tests the last split, so leaves read left to right are leaf 0, 1, 2, ...
  Non-symmetric trees (``trees``, grow_policy Depthwise or Lossguide) send a true split right.
* One-hot categorical splits are true when the category's hash equals the split's ``value``
  (``quantization.h`` ``OneHotBinsFromTransposedCatFeatures``). The hash is CityHash64 (v1.0) of the
  category's UTF-8 text, low 32 bits (``catboost/libs/cat_feature/cat_feature.cpp``
  ``CalcCatFeatureHash``; ``util/digest/city.cpp``), so numbers are categories by their text (3 is
  ``"3"``; 3.0 is ``"3.0"``, another category). Such a split becomes an ``in`` split on the
  category names whose hash it tests, children (true, false); the names come from the file's
  ``features_info.cat_features_hash`` (written when the model is saved with ``pool=``), else from
  names the user gives (``categories``: they are hashed here), else the model is refused. A category
  the split does not name goes to the false child. CatBoost's Python API refuses a missing category;
  its own file reader reads an empty field as the category ``""``: a missing value takes the route of
  ``""``.
* CTR splits (``OnlineCtr``: a feature of more categories than ``one_hot_max_size``) compare a CTR of the
  category with a border. CatBoost looks the category up in the CTR's table (``ctr_data``) under the
  projection's hash: ``CalcHash(a, b) = M * (a + M * b)`` mod 2^64 (``M = 0x4906BA494954CB65``,
  ``ctr_helpers.h``) from 0, over the category's hash (sign-extended to 64 bits) -- for a CTR combining
  categorical features (``max_ctr_complexity`` above 1, CatBoost's default 4), over each one's in the order of
  ``elements`` -- then, for a CTR combined with float splits or one-hot values, each one's answer (1: ``x >
  border``, NaN as the feature reads it; the category is the value) in that order. It takes (count in class,
  total) from the row --
  Borders: the classes above ``target_border_idx`` of all (the second of two); Buckets: that class of all;
  Counter and FeatureFreq: the row's count of ``counter_denominator``; BinarizedTargetMeanValue and
  FloatTargetMeanValue: (sum, count); a category the table lacks: (0, 0), Counter's (0, denominator) --
  and computes in float32 ``((good + prior_numerator) / (total + prior_denomerator) + shift) * scale``
  (``TModelCtr::Calc``, ``static_ctr_provider.cpp``); the split is true when that float32 ``>`` the border
  (``quantization.h``, as for floats). A split's ``split_index`` counts the float borders, then the
  one-hot values, then the CTRs' borders. So for a CTR of one categorical feature alone each category has a
  fixed answer: the split becomes an ``in`` split on the categories whose value passes, children (true, false).
  Any text the table lacks has the value of the priors alone, and that route is the split's unknown-category
  route; a missing value takes the route of ``""``, as at one-hot splits. Every category the tables count needs
  a name, as for one-hot splits. CatBoost reads an unseen text whose 32-bit hash equals a counted category's as
  that category; treegen reads it as unseen: for a text not in training the odds are ``k / 2**32`` for a feature
  of ``k`` categories (2.3e-10 per category).
  A CTR combining categorical features (CalcHash gives back the last feature's hash from the key, tried with each
  combination of the named categories of the others), or a category with float splits and one-hot values, has a
  value for each key its table holds -- the categories, then the binary parts' answers -- and the priors' for any
  other (a pair never seen in training, an unseen text on any side, whatever the parts answer). Its split becomes
  one ``tuple`` split (:func:`treegen.model.tuple_key`): the features it combines, its binary parts as model
  splits, and the keys whose answer is not the priors' (children: the other answer first); a missing value is
  CatBoost's ``""``, so where ``""`` is a category each key naming it is held with null in its place too. Every
  tree keeps one split a level (2^depth leaves for an oblivious tree).
  FeatureFreq and FloatTargetMeanValue, trained only on GPUs, are evaluated by the code of Counter and
  BinarizedTargetMeanValue (``CalcCtrs``); tested through a renamed Counter model.
* The trees' outputs are summed in double from 0.0 in tree order, then ``raw = scale * sum + bias``
  (``scale_and_bias``; ``catboost/libs/model/scale_and_bias.cpp`` ``ApplyScaleAndBias``):
  ``Combine(init=bias, scale=scale, init_last=True)`` -- plain sums when scale is 1 and bias 0.
* Labels (``catboost/libs/model/eval_processing.h`` ``TEvalResultProcessor``): binary ``raw > 0``
  (``Decision.RAW_POSITIVE``); multiclass the first highest raw value (``Decision.ARGMAX_RAW``). The
  class names are ``model_info.class_params.class_names``; labels that are not strings are kept in
  ``model.meta["catboost"]``.
* Probabilities and values: binary (Logloss, CrossEntropy, Focal) ``1 / (1 + exp(-raw))`` and ``MultiClassOneVsAll``'s per-class
  sigmoid use libm's exp (exact). ``MultiClass`` softmax and the ``Exponent`` of ``Poisson`` and
  ``Tweedie`` (what ``CatBoostRegressor.predict`` returns for them) go through CatBoost's own fast exp
  (``library/cpp/fast_exp``), which differs from libm's by a few ulps and by CPU: the model computes
  them with libm's exp, and agrees with CatBoost within :data:`EXP_TOLERANCE` (relative). Raw values
  and labels are exact.
* Ranking losses (:data:`RANKING_LOSSES`: YetiRank, PairLogit, QueryRMSE, StochasticRank, LambdaMart, ...) and
  the survival losses ``Cox`` and ``SurvivalAft``: ``CatBoost.predict``, ``CatBoostRanker.predict`` and
  ``CatBoostRegressor.predict`` give ``RawFormulaVal`` (``python-package/catboost/core.py``
  ``_get_default_prediction_type``: ``Exponent`` only for Poisson and Tweedie): the raw value, a regression
  whose ``model.meta["predicts"]`` says what it is (a ranking score; the log of a relative hazard or of a
  survival time).
* The JSON holds the trained model's values exactly (17 digits); CatBoost's own JSON *reader* reads
  about one leaf value in nine 1 or 2 ulps away from that text (measured with 1.2 and 1.2.10; the
  ``.cbm`` keeps them). The model equals the trained model and its ``.cbm`` bit for bit, and a
  CatBoost that re-reads the JSON only within a few ulps per leaf.

Refused, each with one line naming it: text and embedding features, multi-target and
multi-label losses (MultiRMSE, MultiLogloss, RMSEWithUncertainty, ...), custom losses, a binary decision threshold set with ``set_probability_threshold``, a multiclass
model whose ``class_names`` name a class the training data lacked (no output scores it: CatBoost gives it the raw
value -inf, probability 0), and a fitted model or
``.cbm`` with a border at an infinity (training on infinities makes one), which CatBoost's JSON writer
cannot write. In a JSON file such a border (any number beyond float32's range) is a split like any other.
"""
from __future__ import annotations

import itertools
import json
import math
import operator
import os
import re
import sys
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from ..arithmetic import f32
from ..collector import collector_paused
from ..errors import BadArgument, TreegenError, did_you_mean, read_text, with_article
from ..model import (CLASSIFICATION, NOMINAL, NUMERIC, REGRESSION, Combine, CombineKind, Decision, Feature,
                     Link, MissingRoute, Model, Node, NumericSemantics, Op, Split, Target, Tree)
from ..modelio import json_loads
from ..packages import package_hint
from ..table import categories_argument
from ..walk import found_in_sorted
from . import file_of, library_meta, ranking_score, resolve_feature_names

BINARY_LOSSES = ("Logloss", "CrossEntropy", "Focal")  # Focal: predict_proba the sigmoid of the raw sum too
MULTICLASS_LOSSES = ("MultiClass", "MultiClassOneVsAll")
EXPONENT_LOSSES = ("Poisson", "Tweedie")  # CatBoostRegressor.predict returns exp(raw) for these
IDENTITY_LOSSES = ("RMSE", "MAE", "Quantile", "Expectile", "LogLinQuantile", "MAPE", "Huber", "Lq", "LogCosh",
                   "RMSPE")
# Ranking: CatBoost.predict's default (and CatBoostRanker's) is RawFormulaVal, the score to order a group's rows by
RANKING_LOSSES = ("YetiRank", "YetiRankPairwise", "PairLogit", "PairLogitPairwise", "QueryRMSE", "QuerySoftMax",
                  "QueryCrossEntropy", "StochasticRank", "StochasticFilter", "LambdaMart")
# Survival: RawFormulaVal too (CatBoostRegressor's default prediction_type is Exponent only for Poisson and
# Tweedie), a logarithm; what it is the logarithm of:
SURVIVAL_LOSSES = {"Cox": "the log of the relative hazard (Cox): the raw sum, as CatBoost's predict gives it; "
                          "prediction_type='Exponent' gives the hazard ratio",
                   "SurvivalAft": "the log of the predicted survival time (SurvivalAft): the raw sum, as CatBoost's "
                                  "predict gives it; prediction_type='Exponent' gives the time"}
SUPPORTED_LOSSES = (BINARY_LOSSES + MULTICLASS_LOSSES + IDENTITY_LOSSES + EXPONENT_LOSSES + RANKING_LOSSES
                    + tuple(SURVIVAL_LOSSES))

# How far CatBoost's fast exp (MultiClass probabilities, Exponent) may be from libm's, relative:
# measured on 20,000 rows with 1.2.10, softmax up to 11 ulps (1.4e-15), Exponent up to 4 (4.9e-16).
EXP_TOLERANCE = 1e-14


# -- reading -------------------------------------------------------------------------------------


def recognises(path: str, head: bytes) -> bool:
    """CatBoost's JSON (its writer puts the keys in alphabetical order: ``ctr_data`` when the model
    has CTRs, else ``features_info``, comes first) or its binary ``.cbm``."""
    return head.startswith(CBM_MAGIC) or re.match(rb'\s*\{\s*"(features_info|ctr_data)"\s*:', head) is not None


CBM_MAGIC = b"CBM1"


def is_cbm(path: str) -> bool:
    """Whether the file is CatBoost's binary ``.cbm`` (by its first bytes, whatever its name)."""
    with open(path, "rb") as f:
        return f.read(len(CBM_MAGIC)) == CBM_MAGIC


def read_model_file(path: str, feature_names: Sequence[str] | None = None,
                    categories: Mapping[str, Sequence[str]] | None = None) -> Model:
    """The model in a CatBoost file: its JSON (:func:`read_json`) or its ``.cbm`` (:func:`read_cbm`);
    the parameters are theirs."""
    read = read_cbm if is_cbm(path) else read_json
    return read(path, feature_names=feature_names, categories=categories)


@collector_paused()
def read_json(path: str, feature_names: Sequence[str] | None = None,
              categories: Mapping[str, Sequence[str]] | None = None) -> Model:
    """The model in a CatBoost JSON file, read as data: CatBoost need not be installed.

    Parameters
    ----------
    path : the file ``save_model(path, format="json")`` wrote.
    feature_names : the input columns' names, in order (default: the file's own, else x0, x1, ...).
    categories : for each categorical feature (by name), its category names: they label the model's
        one-hot and CTR splits, which the file knows only by hash unless it was saved with ``pool=``.

    Raises
    ------
    TreegenError
        For a file that is not CatBoost's JSON, or a model that uses what treegen does not support.
    """
    if is_cbm(path):
        raise TreegenError("this is CatBoost's binary .cbm format, not its JSON: read_cbm reads it", path)
    text = read_text(path, "the CatBoost model")
    try:
        document = json_loads(text, path)
    except json.JSONDecodeError as err:
        raise TreegenError(f"not a CatBoost JSON model: {err.msg}", path, err.lineno, err.colno) from None
    _refuse_integers_catboost_reads_as_zero(document, path)
    try:
        return convert_document(document, feature_names, categories)
    except TreegenError as err:
        raise err.at(path)


def _refuse_integers_catboost_reads_as_zero(document: Any, path: str) -> None:
    """Refuse an integer beyond ±2**53 that fits 64 bits, outside ``model_info`` (whose parameters hold 2**64 - 1):
    CatBoost's JSON loader reads one as 0.0 where it reads a number (measured with 1.2.10: a leaf value of 2**53 + 1,
    or a bias of 2**60, adds 0), and it writes every number of a model as a double; treegen would read its value."""
    stack = [[value for key, value in document.items() if key != "model_info"]] if isinstance(document, dict) else []
    while stack:  # (not recursive: a damaged file may nest as deep as json reads)
        value = stack.pop()
        if type(value) is dict:
            value = list(value.values())
        if type(value) is not list:
            continue
        kinds = set(map(type, value))  # (a list of floats, the leaf values' and the borders', looked at in C)
        if dict in kinds or list in kinds:
            stack.extend(v for v in value if type(v) is dict or type(v) is list)
        if int not in kinds:
            continue
        value = next((v for v in value if type(v) is int and 2**53 < abs(v) < 2**64), None)
        if value is not None:
            raise TreegenError(f"the integer {value} is beyond 2**53, which CatBoost's loader reads as 0 where it "
                               "reads a number: the file is damaged (CatBoost writes a model's numbers as doubles)",
                               path)


def read_cbm(path: str, feature_names: Sequence[str] | None = None,
             categories: Mapping[str, Sequence[str]] | None = None) -> Model:
    """The model in CatBoost's binary ``.cbm`` file (``model.save_model(path)``), loaded by CatBoost's
    own loader (the format is data, parsed by CatBoost: no code is run) and converted as
    :func:`from_catboost` converts a fitted model: the same model as from the JSON, bit for bit. The
    file knows its categories only by hash: ``categories`` names them, as for :func:`read_json`.

    Raises
    ------
    TreegenError
        Without the catboost package, for a file CatBoost cannot load, or a model that uses what
        treegen does not support.
    """
    try:
        from catboost import CatBoost, CatBoostError
    except ImportError:
        raise TreegenError(f"reading CatBoost's binary .cbm format {package_hint('catboost', 'catboost')}; "
                           "or save the model as JSON, which treegen reads by itself: "
                           "model.save_model(path, format='json')", path) from None
    booster = CatBoost()
    with _native_stderr_closed():  # CatBoost's C++ warns of a damaged file on fd 2, beside treegen's one line
        try:
            booster.load_model(path, format="cbm")
        except CatBoostError as err:
            raise TreegenError(f"CatBoost cannot load this .cbm file: {_first_line(err)}", path) from None
        try:
            return from_catboost(booster, feature_names, categories)
        except TreegenError as err:
            raise err.at(path)


@contextmanager
def _native_stderr_closed():
    """File descriptor 2 pointed at nothing while inside: what native code writes there ("There are invalid
    params and some of them will be ignored." for a damaged .cbm) is not the user's to read."""
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


@collector_paused()
def from_catboost(model, feature_names: Sequence[str] | None = None,
                  categories: Mapping[str, Sequence[str]] | None = None) -> Model:
    """Convert a fitted ``CatBoost``, ``CatBoostClassifier`` or ``CatBoostRegressor``.

    Parameters
    ----------
    model : the fitted CatBoost model.
    feature_names : the input columns' names, in order (default: the model's own, else x0, x1, ...).
    categories : for each categorical feature (by name), its category names, which label the one-hot
        and CTR splits (a fitted model knows its categories only by hash); or the pandas DataFrame it was
        trained on, whose columns of text or categories name them.

    Returns
    -------
    Model
        The model, predicting what ``model.predict`` predicts.
    """
    from catboost import CatBoost, CatBoostError
    if not isinstance(model, CatBoost):
        raise TreegenError(f"cannot import {with_article(type(model).__name__)} as a CatBoost model; "
                           "supported: CatBoost, CatBoostClassifier, CatBoostRegressor, CatBoostRanker")
    if not model.is_fitted():
        raise TreegenError(f"the {type(model).__name__} is not fitted; call fit before importing")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "model.json")
        try:
            model.save_model(path, format="json")
        except CatBoostError as err:
            raise _unwritable_as_json(model, err, feature_names) from None
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
    return convert_document(document, feature_names, categories)


def _unwritable_as_json(model, err: Exception, feature_names: Sequence[str] | None) -> TreegenError:
    """Why CatBoost cannot write the model as JSON: a border at an infinity (its JSON writer has no
    number for it; training on infinite values makes one), else text or embedding features (it writes
    them only as .cbm)."""
    infinite = [(flat, border) for flat, borders in sorted(model.get_borders().items())
                for border in borders if math.isinf(border)]
    problem = f"CatBoost cannot write this model as JSON ({_first_line(err)})"
    if infinite:
        flat, border = infinite[0]
        names = list(feature_names or model.feature_names_ or ())
        name = names[flat] if flat < len(names) else f"x{flat}"
        return TreegenError(f"{problem}, which treegen reads: the feature {name!r} has a split border at {border} "
                            "(learnt from training values that are infinite as float32, which CatBoost reads them as: "
                            "past 3.4e38 too); train it with them replaced by finite float32 numbers")
    return TreegenError(f"{problem}; text and embedding features are not supported")


def _first_line(err: Exception) -> str:
    text = str(err).strip().splitlines()
    return text[0].split(": ", 1)[-1] if text else type(err).__name__


# -- the document --------------------------------------------------------------------------------


def convert_document(document: Any, feature_names: Sequence[str] | None = None,
                     categories: Mapping[str, Sequence[str]] | None = None) -> Model:
    """The model from a parsed CatBoost JSON document."""
    if not isinstance(document, dict) or "features_info" not in document:
        raise TreegenError("not a CatBoost JSON model: expected an object with 'features_info' and "
                           "'oblivious_trees' or 'trees'")
    categories = _given_categories(categories)
    try:
        return _convert(document, feature_names, categories)
    except TreegenError:  # (a BadArgument is a ValueError too: its own message, not the file's fault)
        raise
    except (KeyError, TypeError, IndexError, ValueError, AttributeError, OverflowError) as err:
        detail = f"missing {err}" if isinstance(err, KeyError) else str(err).splitlines()[0]
        raise TreegenError(f"not a CatBoost JSON model as save_model(format='json') writes it: {detail}") from None


class _FrameColumns(dict):
    """categories= read from the frame the model was trained on: the values of its columns not of numbers, some of
    which no categorical feature reads (a bool column CatBoost read as a number, a text feature): not an error."""


def _given_categories(categories) -> dict[str, list] | None:
    """``categories`` as a dict of lists, each feature's names as given in any sequence (a list, a pandas Index,
    ``df.city.unique()``), or the values of each column not of floats of a pandas DataFrame (the frame it was
    trained on: CatBoost takes a categorical column of integers, and names each category by its text); a value
    that is no such sequence (one text: 'Paris,Rome', or a number) or an argument that is no mapping is refused,
    naming the form, where it read as a file that is not CatBoost's."""
    if categories is None:
        return None
    if hasattr(categories, "select_dtypes"):  # the training frame: its columns not of floats name the categories
        text = categories.select_dtypes(exclude="floating")
        return _FrameColumns({str(name): list(text[name].dropna().unique()) for name in text.columns})
    example = "{'city': ['Paris', 'Rome']}"
    if not isinstance(categories, Mapping):
        raise BadArgument(f"categories= takes each categorical feature's category names by the feature's name, "
                          f"as {example}; got {with_article(type(categories).__name__)}")
    given = {}
    for name, values in categories.items():
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise BadArgument(f"categories[{name!r}] is {with_article(type(values).__name__)} ({values!r}): give "
                              f"the feature's category names as a list, as {example}")
        given[name] = list(values)
    return given


def _convert(document: dict, feature_names, categories) -> Model:
    info = document["features_info"]
    _refuse_unsupported_features(document, info)
    loss, loss_params = _loss(document)
    columns = _columns(info)
    names = _feature_names(columns, feature_names)
    ctrs = _Ctrs(document, info, names, _given_hashes(columns, names, categories))
    labels = _category_labels(info, columns, names, categories, ctrs.keys_by_feature())
    features = tuple(Feature(name, NOMINAL, tuple(labels[flat].categories)) if flat in labels
                     else Feature(name, NUMERIC) for flat, name in enumerate(names))
    target, kept = _target(document, loss)
    scale, bias = _scale_and_bias(document, target, loss)
    dim = len(bias)
    _check_named(document, info, labels, names, ctrs)
    splits = _SplitReader(info, labels, names, ctrs)
    if "oblivious_trees" in document:  # null in a model of no trees, which the Model refuses saying so
        trees = [_oblivious_tree(tree, splits, dim) for tree in document["oblivious_trees"] or ()]
        layout = "oblivious"
    elif "trees" in document:
        trees = [_nonsymmetric_tree(tree, splits, dim) for tree in document["trees"] or ()]
        layout = "non-symmetric"
    else:
        raise KeyError("'oblivious_trees' or 'trees'")
    _refuse_non_finite(scale, bias, trees)
    meta = library_meta("catboost", "CatBoost", _version(document), loss,
                        {"trees": layout, "loss_params": loss_params, **kept,
                         "categories": {names[flat]: label.source for flat, label in labels.items()}},
                        ranking_score(loss) if loss in RANKING_LOSSES else SURVIVAL_LOSSES.get(loss))
    return Model(features, target, trees, _combine(loss, scale, bias), NumericSemantics(cast="float32"), meta)


def _given_hashes(columns, names: list[str], categories: Mapping[str, list] | None) -> dict[int, list[int]]:
    """The hashes of the category names the user gives, by the feature's flat index."""
    return {flat: [cat_hash(str(name)) for name in (categories or {}).get(names[flat], ())]
            for flat, column in enumerate(columns) if column and column[0] == "categorical"}


def _refuse_unsupported_features(document: dict, info: dict) -> None:
    for key, what in (("text_features", "text"), ("embedding_features", "embedding")):
        if info.get(key):
            raise TreegenError(f"the model has {what} features, which treegen does not support; supported: float "
                               "and one-hot categorical features")
    threshold = document.get("model_info", {}).get("binclass_probability_threshold")
    if threshold is not None:
        raise TreegenError(f"a binary decision threshold ({threshold}, set_probability_threshold) is not supported; "
                           "remove it with set_probability_threshold(None) to decide on raw > 0")


def _loss(document: dict) -> tuple[str, dict]:
    """The loss function's name and parameters, if treegen supports the loss: from the training
    parameters, or (a model made by sum_models) from model_info's own ``loss_function``, a JSON text."""
    info = document.get("model_info", {})
    params = info.get("params")
    loss = params.get("loss_function") if isinstance(params, dict) else info.get("loss_function")
    if isinstance(loss, str):
        try:
            loss = json.loads(loss)
        except json.JSONDecodeError:
            loss = None
    if not isinstance(loss, dict) or not isinstance(loss.get("type"), str):
        raise TreegenError("the model does not name its loss function (model_info.params.loss_function), which "
                           f"decides how it predicts; supported: {', '.join(SUPPORTED_LOSSES)}")
    name = loss["type"]
    if name not in SUPPORTED_LOSSES:
        raise TreegenError(f"the loss function {name} is not supported; supported: {', '.join(SUPPORTED_LOSSES)}")
    extra = loss.get("params", {})
    return name, {str(k): v for k, v in extra.items() if isinstance(v, (str, int, float, bool))}


def _version(document: dict) -> str | None:
    """CatBoost's version as the file says it (release builds name their tag; sum_models keeps each
    model's as ``modelN:catboost_version_info``), else None."""
    for key, text in sorted(document.get("model_info", {}).items()):
        if key.endswith("catboost_version_info") and isinstance(text, str):
            found = re.search(r"tags/v(\d+(?:\.\d+)+)", text)
            if found:
                return found.group(1)
    return None


# -- features --------------------------------------------------------------------------------------


def _columns(info: dict) -> list[tuple[str, dict] | None]:
    """Each input column's kind ("float" or "categorical") and entry in ``float_features`` or
    ``categorical_features``, by ``flat_feature_index`` (None: a column in neither)."""
    entries = ([("float", e) for e in info.get("float_features", [])]
               + [("categorical", e) for e in info.get("categorical_features", [])])
    indices = [int(entry["flat_feature_index"]) for _, entry in entries]
    # CatBoost numbers its float and categorical columns 0, 1, ... (text and embedding ones are refused before): a
    # damaged index would make a list of that many columns
    damaged = next((index for index in indices if not 0 <= index < len(entries)), None)
    if damaged is not None:
        shown = damaged if abs(damaged) < 2 ** 64 else "beyond 2**64"
        raise ValueError(f"flat_feature_index {shown} is not one of the {len(entries)} features' indices")
    width = 1 + max(indices, default=-1)
    columns: list[tuple[str, dict] | None] = [None] * width
    for kind, entry in entries:
        columns[int(entry["flat_feature_index"])] = (kind, entry)
    return columns


def _feature_names(columns: list, given: Sequence[str] | None) -> list[str]:
    """The features' names by the importers' one rule (:func:`resolve_feature_names`): the model's own, where it
    has a name for each (a DataFrame's columns), are only repeated; a model fitted on arrays ('' each) takes any."""
    stored = [(column[1].get("feature_name") or column[1].get("feature_id")) if column else None for column in columns]
    default = [name or f"x{flat}" for flat, name in enumerate(stored)]
    return resolve_feature_names(given, stored if all(stored) else None, len(columns), default=default)


class _Labels:
    """The category names of one categorical feature, and the names behind each hash."""

    def __init__(self, source: str):
        self.source = source  # where the names came from, for model.meta
        self.categories: list[str] = []
        self.by_hash: dict[int, list[str]] = {}

    def add(self, name: str, hashed: int | None = None) -> None:
        if name in self.categories:
            return
        self.categories.append(name)
        self.by_hash.setdefault(cat_hash(name) if hashed is None else hashed, []).append(name)


def _category_labels(info: dict, columns, names: list[str], given,
                     ctr_hashes: Mapping[int, Sequence[int]]) -> dict[int, _Labels]:
    """For each categorical column (by flat index), the names of its categories: those the user gives,
    and those of the file's ``cat_features_hash`` that the feature's one-hot splits test or its CTR
    tables count (``ctr_hashes``: flat index -> the category hashes its tables hold)."""
    table: dict[int, list[str]] = {}
    for entry in info.get("cat_features_hash") or []:
        table.setdefault(int(entry["hash"]) & 0xFFFFFFFF, []).append(str(entry["value"]))
    categorical = {flat: column[1] for flat, column in enumerate(columns) if column and column[0] == "categorical"}
    if isinstance(given, _FrameColumns):
        given = {name: values for name, values in given.items() if name in {names[flat] for flat in categorical}}
    given = dict(given or {})
    unknown = [name for name in given if name not in {names[flat] for flat in categorical}]
    if unknown:
        known = ", ".join(names[flat] for flat in categorical) or "none"
        problem = (f"categories given for {unknown[0]!r}, which is not a categorical feature of the model "
                   f"(categorical features: {known})")
        # on the command line, a feature whose name holds '=' was cut at its first '=' unless written quoted
        cut = next((names[flat] for flat in categorical if names[flat].startswith(unknown[0] + "=")), None)
        raise BadArgument(problem + did_you_mean(unknown[:1], [names[flat] for flat in categorical]),
                          command_line=None if cut is None else
                          f"{problem}; a feature whose name holds '=' is written in double quotes: "
                          f"--categories {categories_argument(cut)}")
    labels = {}
    for flat, entry in categorical.items():
        user = given.get(names[flat])
        label = _Labels("given" if user is not None else "cat_features_hash" if table else "none")
        for name in user or ():
            label.add(str(name))
        for hashed in [*entry.get("values", []), *ctr_hashes.get(flat, ())]:
            for name in table.get(int(hashed) & 0xFFFFFFFF, []):
                label.add(name, int(hashed) & 0xFFFFFFFF)
        labels[flat] = label
    return labels


# -- target and combination --------------------------------------------------------------------------


def _target(document: dict, loss: str) -> tuple[Target, dict]:
    """The target, and what meta keeps of CatBoost's class labels."""
    if loss not in BINARY_LOSSES + MULTICLASS_LOSSES:
        return Target("y", REGRESSION), {}
    params = document.get("model_info", {}).get("class_params", {})
    label_type = params.get("class_label_type", "Integer")
    original = list(params.get("class_names", []))
    if not original:  # CrossEntropy, or a model trained on class indices: the classes are 0, 1, ...
        count = 2 if loss in BINARY_LOSSES else len(document["scale_and_bias"][1])
        original, label_type = list(range(count)), "Integer"
    classes = tuple(class_text(label, label_type) for label in original)
    if len(set(classes)) != len(classes):
        raise TreegenError(f"class labels {original!r} are not distinct as strings")
    _check_scored(params, classes, loss)
    return Target("y", CLASSIFICATION, classes), {"classes": original, "class_type": label_type}


def _check_scored(params: dict, classes: tuple[str, ...], loss: str) -> None:
    """Refuse a multiclass model whose ``class_names`` name a class the training data lacked: no output
    scores it (``class_to_label`` lists the class of each output), CatBoost gives it the raw value -inf and
    the probability 0, and a treegen model scores each class by a finite sum of its own."""
    scored = params.get("class_to_label")
    if loss not in MULTICLASS_LOSSES or not isinstance(scored, list) or len(scored) >= len(classes):
        return
    absent = [name for k, name in enumerate(classes) if k not in {int(c) for c in scored}]
    one = len(absent) == 1
    raise TreegenError(f"class_names names {len(classes)} classes and the trees score {len(scored)}: "
                       f"{', '.join(map(repr, absent))} {'was' if one else 'were'} not in the training data (CatBoost "
                       f"gives {'it' if one else 'them'} probability 0 always, which a treegen model cannot hold); "
                       "train again with class_names naming only the classes in the data")


def class_text(label: Any, label_type: str) -> str:
    """A CatBoost class label as treegen's class name: as Python prints the label CatBoost's
    ``predict`` returns (``3``, ``2.5``, ``True``, ``yes``)."""
    if label_type == "Integer":
        return str(int(label))
    if label_type == "Float":
        return repr(float(label))
    if label_type == "Boolean":
        return str(label if isinstance(label, bool) else str(label).lower() == "true")
    return str(label)


def _scale_and_bias(document: dict, target: Target, loss: str) -> tuple[float, list[float]]:
    """CatBoost's ``[scale, [bias per output]]``; the output count is the model's dimension."""
    scale, bias = document.get("scale_and_bias", [1.0, [0.0]])
    bias = [float(b) for b in (bias if isinstance(bias, list) else [bias])]
    dim = target.width if loss in MULTICLASS_LOSSES else 1
    if len(bias) == 1 and dim > 1:
        bias = bias * dim
    if len(bias) != dim:
        raise TreegenError(f"the model has {len(bias)} outputs; the {loss} loss has {dim}")
    return float(scale), bias


def _refuse_non_finite(scale: float, bias: list[float], trees: list[Tree]) -> None:
    """CatBoost writes no number that is not finite: it refuses a non-finite bias where it makes a model
    (``catboost/libs/model/model.cpp``: "Invalid bias[0] : nan"), and its JSON loader (measured with 1.2.10) reads
    Infinity, -Infinity or NaN as a bias of 0.0, crashes on such a scale, and loses every leaf value of an oblivious
    tree file with one among them (its predict then fails an assertion). A damaged file: refused, where treegen summed
    the infinity."""
    if not all(map(math.isfinite, [scale, *bias])):
        raise ValueError(f"scale_and_bias {[scale, bias]!r} is not finite, which CatBoost neither writes nor reads")
    for t, tree in enumerate(trees):
        leaf = next((node.value for node in tree.nodes if not all(map(math.isfinite, node.value))), None)
        if leaf is not None:
            raise ValueError(f"tree {t} has a leaf value of {[*leaf]!r}, which CatBoost neither writes nor reads")


def _combine(loss: str, scale: float, bias: list[float]) -> Combine:
    if loss in BINARY_LOSSES:
        link, decide = Link.SIGMOID, Decision.RAW_POSITIVE
    elif loss == "MultiClass":
        link, decide = Link.SOFTMAX, Decision.ARGMAX_RAW
    elif loss == "MultiClassOneVsAll":
        link, decide = Link.SIGMOID, Decision.ARGMAX_RAW
    else:
        link, decide = (Link.EXP if loss in EXPONENT_LOSSES else Link.IDENTITY), None
    # Without a bias and a scale, scale * sum + bias is the plain sum from 0.0: say so, it is simpler. From
    # +0.0 even where the bias is -0.0: CatBoost's sum starts at 0.0, so leaves of -0.0 give +0.0.
    plain = scale == 1.0 and all(b == 0.0 for b in bias)
    init = (0.0,) * len(bias) if plain else tuple(bias)
    return Combine(CombineKind.SUM, init, scale, link, init_last=not plain, decide=decide)


# -- splits and trees ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Test:
    """What one CatBoost split tests, as one model split: ``split`` sends CatBoost's true outcome to child
    ``true_position``."""

    split: Split
    true_position: int


class _SplitReader:
    """Turns a split of the JSON into the :class:`_Test` of model splits that decides it."""

    def __init__(self, info: dict, labels: dict[int, _Labels], names: list[str], ctrs: "_Ctrs"):
        self.floats = {int(f["feature_index"]): f for f in info.get("float_features", [])}
        # what each split_index names, which CatBoost reads: the float borders, then the one-hot values
        self.by_split_index = ([("float", int(f["feature_index"]), f32(float(border)))
                                for f in info.get("float_features", []) for border in f.get("borders", [])]
                               + [("categorical", int(c["feature_index"]), int(value))
                                  for c in info.get("categorical_features", []) for value in c.get("values", [])])
        self.cats = {int(c["feature_index"]): c for c in info.get("categorical_features", [])}
        self.labels, self.names, self.ctrs = labels, names, ctrs
        self.cache: dict[str, _Test | bool] = {}

    def read(self, split: dict) -> _Test | bool:
        key = json.dumps(split, sort_keys=True)
        if key not in self.cache:
            self.cache[key] = self._read(split)
        return self.cache[key]

    def _read(self, split: dict) -> _Test | bool:
        kind = split.get("split_type")
        if kind == "FloatFeature":
            index, border = int(split["float_feature_index"]), float(split["border"])
            self._check_split_index(split, ("float", index, f32(border)))
            return _Test(self.float_split(index, border), 1)
        if kind == "OneHotFeature":
            index, value = int(split["cat_feature_index"]), int(split["value"])
            self._check_split_index(split, ("categorical", index, value))
            return self.one_hot_test(index, value)
        if kind == "OnlineCtr":
            return self.ctrs.test(split, self.labels, self.part_test)
        raise TreegenError(f"the split type {kind} is not supported; supported: FloatFeature, OneHotFeature, "
                           "OnlineCtr")

    def one_hot_test(self, cat_index: int, value: int) -> _Test:
        """The category of that hash (true: child 0); a missing value reads as "" (see the module's docstring)."""
        flat = int(self.cats[cat_index]["flat_feature_index"])
        names = self.labels[flat].by_hash[value & 0xFFFFFFFF]  # named: _check_named
        empty_true = "" in names
        return _Test(Split(flat, Op.IN, values=tuple(names), missing=MissingRoute.to_child(0 if empty_true else 1),
                           unknown=1 if empty_true else None), 0)

    def _check_split_index(self, split: dict, tested: tuple) -> None:
        """A split names what it tests twice; where its split_index, which CatBoost reads, names another
        border or value than the fields treegen reads, the file is damaged (edited by hand)."""
        named = int(split.get("split_index", -1))
        if "split_index" not in split or named in range(len(self.by_split_index)) and \
                self.by_split_index[named] == tested:
            return
        def words(kind, index, value):
            return f"{kind} feature {index} {'at' if kind == 'float' else 'value'} {value}"
        read = words(*self.by_split_index[named]) if named in range(len(self.by_split_index)) else "nothing"
        raise ValueError(f"a {split.get('split_type')} split tests {words(*tested)}, but its split_index {named}, "
                         f"which CatBoost reads, names {read}")

    def part_test(self, part: "_Part") -> _Test:
        """The test of a binary part of a CTR's projection, answering True and False."""
        if part.kind == "float":
            return _Test(self.float_split(part.index, part.value), 1)
        return self.one_hot_test(part.index, int(part.value))

    def float_split(self, index: int, border: float) -> Split:
        """``float32(x) > border`` (true: child 1), NaN as the feature's ``nan_value_treatment`` reads it."""
        feature = self.floats[index]
        nan_true = bool(feature.get("has_nans")) and feature.get("nan_value_treatment") == "AsTrue"
        # Borders are float32 (written as the double of the float32): f32 keeps a hand-edited file
        # reading as CatBoost reads it.
        return Split(int(feature["flat_feature_index"]), Op.LE, threshold=f32(border),
                     missing=MissingRoute.to_child(1 if nan_true else 0))


# -- CTRs: categorical features' counts, compared with a border ---------------------------------------

CTR_TYPES = ("Borders", "Buckets", "BinarizedTargetMeanValue", "FloatTargetMeanValue", "Counter", "FeatureFreq")
_MEAN_CTRS = ("BinarizedTargetMeanValue", "FloatTargetMeanValue")  # a table row is (sum, count)
_COUNTER_CTRS = ("Counter", "FeatureFreq")  # a table row is (count,), over the table's counter_denominator

# A CTR table's key is CatBoost's CalcHash over the projection: each of its categories' hashes (a signed
# 32-bit number widened to 64 bits) in order, then each binary part's answer (1 or 0: a float split, then a
# one-hot value), CalcHash(a, b) = M * (a + M * b) mod 2^64 from a = 0 (ctr_helpers.h CalcHashes; the
# elements of a CTR in the JSON are in that order).
_CTR_MULT = 0x4906BA494954CB65
_CTR_MULT_INVERSE = pow(_CTR_MULT, -1, 1 << 64)
_EMPTY_SLOT = (1 << 64) - 1  # the key of an empty slot, which CatBoost's writer puts among a table's rows

def _calc_hash(a: int, b: int) -> int:
    return (_CTR_MULT * ((a + _CTR_MULT * b) & _M64)) & _M64


def _widened(category_hash: int) -> int:
    """A category's 32-bit hash as CatBoost hashes it into a key: signed, widened to 64 bits."""
    return category_hash - (1 << 32) if category_hash >= 1 << 31 else category_hash


def _ctr_keys(category_hashes: np.ndarray, bits: tuple[int, ...] = ()) -> np.ndarray:
    """The keys under which a CTR's table holds the categories of those hashes (a row of ``category_hashes``, one
    per categorical feature of the projection, uint64) when its binary parts answer ``bits``."""
    multiplier = np.uint64(_CTR_MULT)
    keys = np.zeros(len(category_hashes), dtype=np.uint64)
    for hashes in category_hashes.T:  # (uint64 arithmetic wraps as CatBoost's)
        widened = np.where(hashes >= 1 << 31, hashes - np.uint64(1 << 32), hashes)
        keys = multiplier * (keys + multiplier * widened)
    for bit in bits:
        keys = multiplier * (keys + np.uint64(_CTR_MULT * bit & _M64))
    return keys


def _before_bits(keys: np.ndarray, bits: tuple[int, ...]) -> np.ndarray:
    """Each key (uint64) with the answers ``bits`` taken back out of it, times M's inverse (CalcHash(a, b) =
    M (a + M b) is invertible): the state before the last category plus M times that category's widened hash."""
    inverse = np.uint64(_CTR_MULT_INVERSE)
    for bit in reversed(bits):  # (uint64 arithmetic wraps as CatBoost's)
        keys = keys * inverse - np.uint64(_CTR_MULT * bit & _M64)
    return keys * inverse


def _category_hashes_in(keys: np.ndarray, width: int) -> list[int]:
    """The category hashes of a CTR of one feature whose keys (with ``width`` binary answers) these are, key by
    key (CalcHash is invertible): none for a key no category has, such as an empty slot's."""
    inverse = np.uint64(_CTR_MULT_INVERSE)
    widened = np.stack([_before_bits(keys, bits) * inverse for bits in itertools.product((1, 0), repeat=width)],
                       axis=-1)
    return (widened[(widened < 1 << 31) | (widened >= (1 << 64) - (1 << 31))] & np.uint64(0xFFFFFFFF)).tolist()


@dataclass(frozen=True)
class _Part:
    """A binary part of a CTR's projection: a float split (``index``: float_feature_index, ``value``: its border)
    or a one-hot value (``index``: cat_feature_index, ``value``: the category's hash)."""

    kind: str  # "float" or "one_hot"
    index: int
    value: float | int


def _part(element: dict) -> _Part:
    if element.get("combination_element") == "float_feature":
        return _Part("float", int(element["float_feature_index"]), float(element["border"]))
    return _Part("one_hot", int(element["cat_feature_index"]), int(element["value"]) & 0xFFFFFFFF)


class _Ctr:
    """One CTR of ``info.ctrs`` with its table: its value for a category, or one category per feature of its
    projection (and the answers of the binary parts it is combined with), in float32 as CatBoost computes it
    (``TModelCtr::Calc``, ``static_ctr_provider.cpp`` ``CalcCtrs``)."""

    def __init__(self, entry: dict, table: dict, cats: Mapping[int, int]):
        self.kind = entry["ctr_type"]
        elements = entry["elements"]  # its categories first (_refuse_unsupported_ctrs), in CalcHashes' order
        self.cats = tuple(cats[int(e["cat_feature_index"])] for e in elements
                          if e.get("combination_element") == "cat_feature_value")
        self.flat = self.cats[0]
        self.parts = [_part(e) for e in elements[len(self.cats):]]
        self.prior = (f32(float(entry["prior_numerator"])), f32(float(entry["prior_denomerator"])))
        self.shift, self.scale = f32(float(entry["shift"])), f32(float(entry["scale"]))
        self.target_border = int(entry["target_border_idx"])
        self.borders = [f32(float(b)) for b in entry["borders"]]
        stride, row = int(table["hash_stride"]), table["hash_map"]
        # a row is a key, then its counts: a damaged stride would make a list of that many rows
        if stride < 1 or len(row) % stride or stride > max(len(row), 1024):
            raise ValueError(f"a CTR table's hash_stride {stride} does not divide its hash_map of {len(row)} values")
        keys = row[::stride]
        self.rows = dict(zip(map(int, keys), range(len(keys))))  # key -> its row (the last, if the file repeats one)
        self.denominator = int(table.get("counter_denominator", 0))
        counts = np.array([row[i::stride] for i in range(1, stride)], dtype=np.float64).reshape(stride - 1, len(keys))
        self.row_values = self._values(*self._counts(counts))  # each table row's value, for all the borders
        self.unseen = float(self._values(*self._counts(None)))  # the priors' alone: a key the table lacks
        # a CTR of several categorical features: its table's category hashes by the parts' answers
        self.combinations: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        self.unexplained = 0  # rows of such a CTR that no named categories explain
        self._answers: dict[tuple[int, ...], tuple[np.ndarray, list[list[tuple]]]] = {}
        self._sorted: tuple[np.ndarray, np.ndarray] | None = None

    def values_of(self, combinations: Sequence[tuple[int, ...]], bits: tuple[int, ...] = ()) -> np.ndarray:
        """The CTR of each combination of categories (the hash of each feature's) given the binary parts'
        answers ``bits``: its table row's value, or the priors' alone where the table lacks its key."""
        keys = _ctr_keys(np.array(combinations, dtype=np.uint64).reshape(len(combinations), len(self.cats)), bits)
        if self._sorted is None:  # the table's keys in order, and their rows
            table_keys = np.fromiter(self.rows, dtype=np.uint64, count=len(self.rows))
            order = np.argsort(table_keys)
            self._sorted = table_keys[order], np.fromiter(self.rows.values(), dtype=np.int64, count=len(order))[order]
        ordered, rows = self._sorted
        at, held = found_in_sorted(ordered, keys)
        return np.where(held, self.row_values[rows[at]] if len(rows) else self.unseen, self.unseen)

    def value(self, category_hash: int | None, bits: tuple[int, ...] = ()) -> float:
        """The CTR of the category of that hash (of a CTR of one feature) given ``bits``; None: the priors'."""
        return self.unseen if category_hash is None else float(self.values_of([(category_hash,)], bits)[0])

    def _values(self, good, total) -> np.ndarray:
        """CatBoost's CTR value of counts in float32 (``TModelCtr::Calc``): (good + prior numerator) / (total +
        prior denominator), shifted and scaled; b == 0 gives infinity, or NaN where a == 0 too (C++'s float
        division with a zero prior denominator). As doubles, as the borders are compared."""
        single = np.float32
        with np.errstate(all="ignore"):  # (each float32 operation rounds once, as C++'s)
            a = np.asarray(good, dtype=single) + single(self.prior[0])
            b = np.asarray(total, dtype=single) + single(self.prior[1])
            ctr = np.where(b == 0, np.where(a == 0, single(math.nan), np.copysign(single(math.inf), a)), a / b)
            return ((ctr + single(self.shift)) * single(self.scale)).astype(np.float64)

    def answers(self, bits: tuple[int, ...], labels: dict[int, "_Labels"]) -> tuple[np.ndarray, list[list[tuple]]]:
        """Given the binary parts' answers ``bits``, each category (or combination of categories) the CTR may hold:
        its value, and the names a key reads it by (one per feature; a missing value too where "" is one). Made
        once for every split on the CTR: a combination of two features of a thousand categories each has some
        10^5 of them."""
        if bits not in self._answers:
            combinations = (self.combinations.get(bits, ()) if len(self.cats) > 1
                            else [(hashed,) for hashed in labels[self.flat].by_hash])
            values = self.values_of(combinations, bits)
            reads = [{hashed: _read_as(names) for hashed, names in labels[flat].by_hash.items()} for flat in self.cats]
            columns = [[read[c[k]] for c in combinations] for k, read in enumerate(reads)]  # each feature's places
            if all(len(places) == 1 for read in reads for places in read.values()):  # (usually: a name a hash)
                places = [[names] for names in zip(*([first for first, in column] for column in columns))]
            else:
                places = [list(itertools.product(*lists)) for lists in zip(*columns)]
            self._answers[bits] = values, places
        return self._answers[bits]

    def _counts(self, counts: np.ndarray | None) -> tuple:
        """(count in class, total count) of each table row, from the rows' ``counts`` (a column a row); None: of
        a category the table lacks. Sums add in the rows' order, as CatBoost's loops do."""
        if self.kind in _COUNTER_CTRS:
            return (0.0 if counts is None else counts[0]), float(self.denominator)
        if counts is None:
            return 0.0, 0.0
        if self.kind in _MEAN_CTRS:
            return counts[0], counts[1]
        if self.kind == "Buckets":
            return counts[self.target_border], _in_order_sum(counts)
        if len(counts) > 2:  # Borders over several target classes: those above the target border are good
            return _in_order_sum(counts[self.target_border + 1:]), _in_order_sum(counts)
        return counts[1], counts[0] + counts[1]

    def combine(self, candidates: Callable[[int], list[int]]) -> None:
        """Find the categories behind each row of a CTR of several categorical features: CalcHash's state before
        the last feature's hash is the row's key less that hash's share, which is tried for each candidate of the
        last feature against the states the candidates of the features before make (their keys made forward): a
        row costs the last feature's candidates, not the combinations of the others'. A row no candidates
        explain counts in ``unexplained``."""
        prefixes = {0: ()}
        for flat in self.cats[:-1]:
            prefixes = {_calc_hash(state, _widened(hashed)): known + (hashed,)
                        for state, known in prefixes.items() for hashed in candidates(flat)}
        before = np.array(sorted(prefixes), dtype=np.uint64)
        known_before = [prefixes[state] for state in sorted(prefixes)]
        lasts = list(dict.fromkeys(candidates(self.cats[-1])))
        shares = np.array([_CTR_MULT * _widened(hashed) & _M64 for hashed in lasts], dtype=np.uint64)
        last_hashes = np.array(lasts, dtype=np.int64)
        keys = np.array([key for key in self.rows if key != _EMPTY_SLOT], dtype=np.uint64)
        explained = np.zeros(len(keys), dtype=bool)
        for bits in itertools.product((1, 0), repeat=len(self.parts)):
            p, c, r = _sums_found(before, shares, _before_bits(keys, bits))
            if not len(r):
                continue
            order = np.lexsort((last_hashes[c], r, p))  # by the state before: the order of the categories
            self.combinations[bits] = [known_before[i] + (lasts[j],)
                                       for i, j in zip(p[order].tolist(), c[order].tolist())]
            explained[r] = True
        self.unexplained = int((~explained).sum())


def _in_order_sum(columns: np.ndarray) -> np.ndarray:
    """The sum of each column, its entries added first to last (numpy's sum adds pairwise)."""
    total = np.zeros(columns.shape[1:])
    for column in columns:
        total = total + column
    return total


def _sums_found(before: np.ndarray, shares: np.ndarray, state: np.ndarray, block: int = 1 << 22):
    """Every (p, c, r) with ``before[p] + shares[c] == state[r]`` (uint64, wrapping; ``before`` sorted, distinct):
    either each state less each share looked up among ``before`` (some len(shares) x len(state) searches), or
    each sum of the two looked up by every state (len(before) x len(shares) sums sorted), whichever is fewer:
    a CTR of two features of a thousand categories has a thousand of each and some 10^5 table rows."""
    found = []
    if len(before) < len(state):
        per = max(1, block // max(1, len(before)))
        for start in range(0, len(shares), per):
            sums = (before[:, None] + shares[None, start:start + per]).ravel()
            order = np.argsort(sums)
            ordered = sums[order]
            rows = np.argsort(state)  # (sorted needles: a search that walks the sums in order)
            low, high = np.searchsorted(ordered, state[rows]), np.searchsorted(ordered, state[rows], side="right")
            counts = high - low
            r = np.repeat(rows, counts)
            at = order[np.repeat(low - (np.cumsum(counts) - counts), counts) + np.arange(counts.sum())]
            width = min(per, len(shares) - start)
            found.append((at // width, at % width + start, r))
    else:
        per = max(1, block // max(1, len(state)))
        for start in range(0, len(shares), per):
            earlier = state[None, :] - shares[start:start + per, None]  # per candidate, per row
            at, held = found_in_sorted(before, earlier)
            c, r = np.nonzero(held)
            found.append((at[c, r], c + start, r))
    if not found:
        return (np.zeros(0, dtype=np.int64),) * 3
    return tuple(np.concatenate(parts) for parts in zip(*found))


class _Ctrs:
    """The model's CTRs, each of one categorical feature or several, alone or with binary parts (float splits,
    one-hot values): a split on one tests the binary parts, then the categories whose CTR value exceeds its
    border."""

    def __init__(self, document: dict, info: dict, names: list[str], given: Mapping[int, list[int]] | None = None):
        self.entries = info.get("ctrs") or []
        self.cat_entries = {int(c["feature_index"]): c for c in info.get("categorical_features", [])}
        cats = {index: int(c["flat_feature_index"]) for index, c in self.cat_entries.items()}
        _refuse_unsupported_ctrs(self.entries, info, names)
        tables = document.get("ctr_data") or {}
        self.ctrs = [_Ctr(entry, tables[entry["identifier"]], cats) for entry in self.entries]
        # a split's split_index counts the float borders, then the one-hot values, then the CTRs' borders
        self.first = (sum(len(f.get("borders", [])) for f in info.get("float_features", []))
                      + sum(len(c.get("values", [])) for c in info.get("categorical_features", [])))
        self.by_index = [(ctr, border) for ctr in self.ctrs for border in ctr.borders]
        self.given = given or {}  # flat index -> the hashes of the category names the user gives
        self.file_hashes = [int(e["hash"]) & 0xFFFFFFFF for e in info.get("cat_features_hash") or []]
        self.hashes: dict[int, list[int]] | None = None

    def keys_by_feature(self) -> dict[int, list[int]]:
        """Each CTR feature's (by flat index) category hashes that its tables hold, in table order: those of CTRs
        of one feature first, which CalcHash gives back from the keys alone."""
        if self.hashes is None:
            known: dict[int, dict[int, None]] = {}  # (a dict keeps the order)
            for ctr in self.ctrs:
                if len(ctr.cats) == 1 and ctr.rows:
                    keys = np.array(list(ctr.rows), dtype=np.uint64)
                    known.setdefault(ctr.flat, {}).update(dict.fromkeys(_category_hashes_in(keys, len(ctr.parts))))
            single = {flat: list(hashes) for flat, hashes in known.items()}
            for ctr in self.ctrs:
                if len(ctr.cats) > 1:
                    ctr.combine(lambda flat: self._candidates(flat, single))
                    if ctr.unexplained and self.file_hashes:  # (a feature's own CTRs may keep only some of its
                        ctr.combinations = {}                 # categories: ctr_leaf_count_limit)
                        ctr.combine(lambda flat: self._candidates(flat, single) + self.file_hashes)
                    for combination in itertools.chain.from_iterable(ctr.combinations.values()):
                        for flat, hashed in zip(ctr.cats, combination):
                            known.setdefault(flat, {})[hashed] = None
            self.hashes = {flat: list(hashes) for flat, hashes in known.items()}
        return self.hashes

    def _candidates(self, flat: int, single: Mapping[int, list[int]]) -> list[int]:
        """The hashes a feature's categories may have in a CTR combining it: the names the user gives, the hashes
        its own CTRs and one-hot values hold, else every hash the file names."""
        entry = next(c for c in self.cat_entries.values() if int(c["flat_feature_index"]) == flat)
        found = dict.fromkeys([*self.given.get(flat, ()), *single.get(flat, ()),
                               *(int(v) & 0xFFFFFFFF for v in entry.get("values", []))])
        return list(found or dict.fromkeys(self.file_hashes))

    def test(self, split: dict, labels: dict[int, "_Labels"], part_test: Callable[[_Part], _Test]) -> _Test | bool:
        """The split as a test of its binary parts, then of the categories whose value passes the border given
        their answers (an answer that changes nothing is not asked; a constant answer is True or False)."""
        ctr, border = self.by_index[int(split["split_index"]) - self.first]
        if f32(float(split["border"])) != border:
            raise ValueError(f"the OnlineCtr split {split['split_index']} has the border {split['border']}, "
                             f"its CTR {border}")

        if len(ctr.cats) > 1 or ctr.parts:
            return _tuple_test(ctr, border, labels, [part_test(part) for part in ctr.parts])
        return _category_test(ctr, border, labels, ())


def _tuple_test(ctr: _Ctr, border: float, labels: dict[int, "_Labels"], parts: list[_Test]) -> _Test | bool:
    """A CTR of several categorical features, or of categories with binary parts, against the border as one
    ``tuple`` split: its key is the category of each feature and each part's answer, and the keys it holds are
    those whose answer is not the prior's. The prior's answer is that of every key the table lacks (an unseen
    text on any side, a combination never seen in training), whatever the parts answer; a missing text is
    CatBoost's "": where "" is a category, each key naming it is held with null (missing) in its place too."""
    usual = ctr.value(None, ()) > border  # (no row: the priors alone, the same for every answer of the parts)
    keys: set[tuple] = set()
    for bits in itertools.product((1, 0), repeat=len(ctr.parts)):
        positions = tuple(part.true_position if bit else 1 - part.true_position for part, bit in zip(parts, bits))
        values, places = ctr.answers(bits, labels)
        passing = np.flatnonzero((values > border) != usual).tolist()
        names = itertools.chain.from_iterable(map(places.__getitem__, passing))  # (no Python loop a key: 2 million)
        keys.update(map(operator.add, names, itertools.repeat(positions)) if positions else names)
    if not keys:
        return usual
    split = Split(ctr.flat, Op.TUPLE, features=ctr.cats, parts=tuple(part.split for part in parts),
                  tuples=frozenset(keys), missing=MissingRoute.to_child(1))
    return _Test(split, 1 if usual else 0)


def _read_as(names: list[str]) -> list[str | None]:
    """The key places a category of these names is read from: each name, and a missing value for "" (CatBoost
    reads a missing text as "")."""
    return names + [None] if "" in names else names


def _category_test(ctr: _Ctr, border: float, labels: dict[int, "_Labels"], bits: tuple[int, ...]) -> _Test | bool:
    """The ``in`` split on the categories whose value passes the border (the true child, first); a text the
    table lacks has the prior's value, and a missing one the value of ``""`` (as at one-hot splits)."""
    label = labels[ctr.flat]
    ctrs, _ = ctr.answers(bits, labels)  # (each category's, in label.by_hash's order: once for all the borders)
    passing = {hashed for hashed, value in zip(label.by_hash, ctrs.tolist()) if value > border}
    values = tuple(name for name in label.categories if cat_hash(name) in passing)
    empty_true = ctr.value(cat_hash(""), bits) > border
    unseen_true = ctr.value(None, bits) > border
    if empty_true == unseen_true and len(values) == (len(label.categories) if unseen_true else 0):
        return unseen_true  # every text has the same answer
    return _Test(Split(ctr.flat, Op.IN, values=values, missing=MissingRoute.to_child(0 if empty_true else 1),
                       unknown=None if unseen_true == empty_true else 0 if unseen_true else 1), 0)


def _refuse_unsupported_ctrs(entries: list, info: dict, names: list[str]) -> None:
    """One line for a CTR whose projection is not its categorical features then binary parts (float splits,
    one-hot values), as CatBoost writes every one, or of a type CatBoost's evaluator does not name."""
    floats = {int(f["feature_index"]): names[int(f["flat_feature_index"])] for f in info.get("float_features", [])}
    cats = {int(c["feature_index"]): names[int(c["flat_feature_index"])]
            for c in info.get("categorical_features", [])}
    binary = ("float_feature", "cat_feature_exact_value")
    for entry in entries:
        kinds = [e.get("combination_element") for e in entry["elements"]]
        leading = len(kinds) - len(list(itertools.dropwhile(lambda kind: kind == "cat_feature_value", kinds)))
        if not leading or any(kind not in binary for kind in kinds[leading:]):
            parts = [floats[int(e["float_feature_index"])] if e.get("combination_element") == "float_feature"
                     else cats[int(e["cat_feature_index"])] for e in entry["elements"]]
            raise TreegenError(f"the model has a CTR of {' with '.join(map(repr, parts))} in an order or of parts "
                               "treegen does not read; supported: CTRs of categorical features, then float splits "
                               "and one-hot values")
    unknown = sorted({entry["ctr_type"] for entry in entries} - set(CTR_TYPES))
    if unknown:
        raise TreegenError(f"the CTR type {unknown[0]} is not supported; supported: {', '.join(CTR_TYPES)}")


def _check_named(document: dict, info: dict, labels: dict[int, _Labels], names: list[str], ctrs: "_Ctrs") -> None:
    """Refuse a model whose one-hot splits test, or whose CTRs count, categories known only by hash, naming
    every such feature at once (naming the first alone took a user a run per feature to find them all)."""
    flat_of = {int(c["feature_index"]): int(c["flat_feature_index"]) for c in info.get("categorical_features", [])}
    unnamed: dict[int, int | None] = {}  # flat index -> a hash it tests (None: not known)
    tested = [(int(split["cat_feature_index"]), int(split["value"])) for split in _splits(document)
              if split.get("split_type") == "OneHotFeature"]
    tested += [(part.index, part.value) for ctr in ctrs.ctrs for part in ctr.parts if part.kind == "one_hot"]
    for index, value in tested:
        flat, hashed = flat_of[index], value & 0xFFFFFFFF
        if hashed not in labels[flat].by_hash:
            unnamed.setdefault(flat, hashed)
    one_hot = set(unnamed)
    for flat, hashes in ctrs.keys_by_feature().items():
        nameless = [hashed for hashed in hashes if hashed not in labels[flat].by_hash]
        if nameless:
            unnamed.setdefault(flat, nameless[0])
    for ctr in ctrs.ctrs:  # a combination no names explain: some category of its features is not named
        for flat in ctr.cats if ctr.unexplained else ():
            unnamed.setdefault(flat, None)
    if unnamed:
        kind = "one-hot" if set(unnamed) <= one_hot else "CTR" if not one_hot & set(unnamed) else "categorical"
        raise _unnamed_categories({names[flat]: unnamed[flat] for flat in sorted(unnamed)}, kind)


def _splits(document: dict):
    """The splits of the trees, either layout."""
    for tree in document.get("oblivious_trees") or ():
        yield from tree["splits"] or ()  # null in a tree of no splits
    stack = list(document.get("trees") or ())
    while stack:
        node = stack.pop()
        if "split" in node:
            yield node["split"]
            stack += [node["left"], node["right"]]


def _unnamed_categories(unnamed: dict[str, int | None], kind: str = "one-hot") -> TreegenError:
    """The error for ``kind`` (one-hot, CTR or categorical) splits whose categories have no name (feature name
    -> a hash it tests, None where a combination's keys do not tell which), naming how to give the names in the interface the user is in: ``categories=`` in
    Python, ``--categories`` on the command line (of the commands that take it: the others read the model
    imported so)."""
    first, *more = unnamed
    if more:
        listed = ", ".join(map(repr, unnamed))
        problem = (f"{kind} splits on the categorical features {listed} test categories known only by their hash; "
                   "save the model with save_model(path, format='json', pool=training_pool), or name the features' "
                   "categories")
    else:
        problem = (f"a {kind} split on the categorical feature {first!r} tests a category known only by its "
                   f"hash{'' if unnamed[first] is None else f' ({unnamed[first]})'}; save the model with save_model(path, format='json', pool=training_pool), "
                   "or name the feature's categories")
    argument = ", ".join(f"{name!r}: ['A', 'B', ...]" for name in unnamed)
    options = " ".join(f"--categories {categories_argument(name)}" for name in unnamed)
    return TreegenError(f"{problem}: treegen.from_catboost(model, categories={{{argument}}}) or "
                        "categories=the DataFrame it was trained on (or that argument of treegen.import_model for a "
                        "file)",
                        command_line=f"{problem} (predict, export, show and evaluate read a model imported with "
                                     f"them; import and verify take them: {options})")


def _oblivious_tree(tree: dict, splits: _SplitReader, dim: int) -> Tree:
    """A symmetric tree as a full binary tree in pre-order: level ``l`` of ``d`` tests
    ``splits[d - 1 - l]``, which sets bit ``d - 1 - l`` of the leaf index when true."""
    levels = [splits.read(s) for s in tree["splits"] or ()]  # null in a tree of no splits (one leaf)
    depth = len(levels)
    values = [float(v) for v in tree["leaf_values"]]
    counts = f"a tree of depth {depth} needs {dim << depth} leaf values and {1 << depth} weights"
    if len(values) != dim << depth:  # (counted first: a damaged tree's 60 splits made a default of 2**60 weights)
        raise ValueError(counts)
    weights = [float(w) for w in tree["leaf_weights"]] if "leaf_weights" in tree else [0.0] * (1 << depth)
    if len(weights) != 1 << depth:
        raise ValueError(counts)
    nodes: list[Node] = []

    def grow(level: int, index: int) -> None:  # index: the leaf index bits decided so far
        if level == depth:
            nodes.append(Node(tuple(values[index * dim:(index + 1) * dim]), n=weights[index]))
            return
        bit = 1 << (depth - 1 - level)
        _append_test(nodes, levels[depth - 1 - level], dim,
                     lambda true: grow(level + 1, index | bit if true else index))

    grow(0, 0)
    _sum_weights(nodes)
    return Tree(nodes, output=0 if dim == 1 else None)


def _nonsymmetric_tree(tree: dict, splits: _SplitReader, dim: int) -> Tree:
    """A Depthwise or Lossguide tree: ``{"split", "left", "right"}`` or ``{"value", "weight"}``; a true
    split goes right."""
    nodes: list[Node] = []

    def grow(doc: dict) -> None:
        if "split" in doc:
            _append_test(nodes, splits.read(doc["split"]), dim,
                         lambda true: grow(doc["right"] if true else doc["left"]))
            return
        value = doc["value"]
        value = [float(v) for v in value] if isinstance(value, list) else [float(value)]
        if len(value) != dim:
            raise ValueError(f"a leaf has {len(value)} values, the model {dim} outputs")
        nodes.append(Node(tuple(value), n=float(doc.get("weight", 0.0))))

    grow(tree)
    _sum_weights(nodes)
    return Tree(nodes, output=0 if dim == 1 else None)


def _append_test(nodes: list[Node], test: _Test | bool, dim: int, then: Callable[[bool], None]) -> None:
    """Append, in pre-order, the split of ``test``, and under each of its answers what ``then(answer)`` appends."""
    if isinstance(test, bool):  # a CTR split that every text answers alike
        then(test)
        return
    me = len(nodes)
    nodes.append(Node((0.0,) * dim, split=test.split))
    children = []
    for outcome in (test.true_position == 0, test.true_position == 1):
        children.append(len(nodes))
        then(outcome)
    nodes[me].children = tuple(children)


def _sum_weights(nodes: list[Node]) -> None:
    """A split's training weight: the sum of its children's (nodes are in pre-order)."""
    for node in reversed(nodes):
        if node.children:
            node.n = sum(nodes[c].n for c in node.children)


# -- CatBoost's category hash --------------------------------------------------------------------------


def cat_hash(category: str) -> int:
    """CatBoost's hash of a category: CityHash64 v1.0 of its UTF-8 text, low 32 bits (unsigned; the
    splits in the JSON hold it as a signed 32-bit number)."""
    return city_hash64(category.encode("utf-8")) & 0xFFFFFFFF


# CityHash64 as CatBoost's util/digest/city.cpp has it: Google's CityHash v1.0 (v1.1 changed the
# 9-16 byte case, among others). 64-bit unsigned arithmetic, little-endian reads.
_M64 = (1 << 64) - 1
_K0, _K1, _K2, _K3 = 0xC3A5C85C97CB3127, 0xB492B66FBE98F273, 0x9AE16A3B2F90404F, 0xC949D7C7509E6557
_KMUL = 0x9DDFEA08EB382D69


def _fetch64(data: bytes, at: int) -> int:
    return int.from_bytes(data[at:at + 8], "little")


def _fetch32(data: bytes, at: int) -> int:
    return int.from_bytes(data[at:at + 4], "little")


def _rotate(value: int, shift: int) -> int:
    return value if shift == 0 else ((value >> shift) | (value << (64 - shift))) & _M64


def _shift_mix(value: int) -> int:
    return value ^ (value >> 47)


def _hash_128_to_64(low: int, high: int) -> int:
    a = ((low ^ high) * _KMUL) & _M64
    a ^= a >> 47
    b = ((high ^ a) * _KMUL) & _M64
    b ^= b >> 47
    return (b * _KMUL) & _M64


def _hash_0_to_16(data: bytes) -> int:
    n = len(data)
    if n > 8:
        a, b = _fetch64(data, 0), _fetch64(data, n - 8)
        return _hash_128_to_64(a, _rotate((b + n) & _M64, n)) ^ b
    if n >= 4:
        return _hash_128_to_64((n + (_fetch32(data, 0) << 3)) & _M64, _fetch32(data, n - 4))
    if n > 0:
        y = data[0] + (data[n >> 1] << 8)
        z = n + (data[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K3)) & _M64) * _K2) & _M64
    return _K2


def _hash_17_to_32(data: bytes) -> int:
    n = len(data)
    a = (_fetch64(data, 0) * _K1) & _M64
    b = _fetch64(data, 8)
    c = (_fetch64(data, n - 8) * _K2) & _M64
    d = (_fetch64(data, n - 16) * _K0) & _M64
    return _hash_128_to_64((_rotate((a - b) & _M64, 43) + _rotate(c, 30) + d) & _M64,
                           (a + _rotate(b ^ _K3, 20) - c + n) & _M64)


def _hash_33_to_64(data: bytes) -> int:
    n = len(data)
    z = _fetch64(data, 24)
    a = (_fetch64(data, 0) + (n + _fetch64(data, n - 16)) * _K0) & _M64
    b = _rotate((a + z) & _M64, 52)
    c = _rotate(a, 37)
    a = (a + _fetch64(data, 8)) & _M64
    c = (c + _rotate(a, 7)) & _M64
    a = (a + _fetch64(data, 16)) & _M64
    vf, vs = (a + z) & _M64, (b + _rotate(a, 31) + c) & _M64
    a = (_fetch64(data, 16) + _fetch64(data, n - 32)) & _M64
    z = _fetch64(data, n - 8)
    b = _rotate((a + z) & _M64, 52)
    c = _rotate(a, 37)
    a = (a + _fetch64(data, n - 24)) & _M64
    c = (c + _rotate(a, 7)) & _M64
    a = (a + _fetch64(data, n - 16)) & _M64
    wf, ws = (a + z) & _M64, (b + _rotate(a, 31) + c) & _M64
    r = _shift_mix(((vf + ws) * _K2 + (wf + vs) * _K0) & _M64)
    return (_shift_mix((r * _K0 + vs) & _M64) * _K2) & _M64


def _weak_hash_32(data: bytes, at: int, a: int, b: int) -> tuple[int, int]:
    w, x, y, z = (_fetch64(data, at + 8 * i) for i in range(4))
    a = (a + w) & _M64
    b = _rotate((b + a + z) & _M64, 21)
    c = a
    a = (a + x + y) & _M64
    b = (b + _rotate(a, 44)) & _M64
    return (a + z) & _M64, (b + c) & _M64


def city_hash64(data: bytes) -> int:
    """CityHash64 (v1.0) of ``data``."""
    n = len(data)
    if n <= 16:
        return _hash_0_to_16(data)
    if n <= 32:
        return _hash_17_to_32(data)
    if n <= 64:
        return _hash_33_to_64(data)
    # More than 64 bytes: 56 bytes of state, then 64-byte chunks (the last chunk ends at the end).
    x = _fetch64(data, 0)
    y = _fetch64(data, n - 16) ^ _K1
    z = _fetch64(data, n - 56) ^ _K0
    v = _weak_hash_32(data, n - 64, n, y)
    w = _weak_hash_32(data, n - 32, (n * _K1) & _M64, _K0)
    z = (z + _shift_mix(v[1]) * _K1) & _M64
    x = (_rotate((z + x) & _M64, 39) * _K1) & _M64
    y = (_rotate(y, 33) * _K1) & _M64
    at, left = 0, (n - 1) & ~63
    while left:
        x = (_rotate((x + y + v[0] + _fetch64(data, at + 16)) & _M64, 37) * _K1) & _M64
        y = (_rotate((y + v[1] + _fetch64(data, at + 48)) & _M64, 42) * _K1) & _M64
        x ^= w[1]
        y ^= v[0]
        z = _rotate(z ^ w[0], 33)
        v = _weak_hash_32(data, at, (v[1] * _K1) & _M64, (x + w[0]) & _M64)
        w = _weak_hash_32(data, at + 32, (z + w[1]) & _M64, y)
        z, x = x, z
        at += 64
        left -= 64
    return _hash_128_to_64((_hash_128_to_64(v[0], w[0]) + _shift_mix(y) * _K1 + z) & _M64,
                           (_hash_128_to_64(v[1], w[1]) + x) & _M64)


# -- the library's own predictions (treegen verify --against) ------------------------------------------

# CatBoost's own JSON reader reads about one leaf value in nine 1 or 2 ulps away from the text its
# writer wrote (measured with 1.2 and 1.2.10; the .cbm keeps them exactly). The model reads the text
# exactly: it equals the trained model and its .cbm, and CatBoost re-reading the JSON within this
# (relative above 1, absolute below).
JSON_READER_TOLERANCE = 1e-13


def tolerance(source, model: Model):
    """Where CatBoost's own answers for ``model`` are not bit for bit the model's: from its JSON file (its
    reader's leaf values), and a softmax or Exponent (its fast exp); None for a .cbm, the fitted object itself
    and other losses."""
    from ..model import Tolerance
    path = file_of(source)
    binary = path is None or is_cbm(path)
    link = {Link.SOFTMAX: "softmax", Link.EXP: "Exponent"}.get(model.combine.link)
    reasons = ([] if binary else ["its JSON reader reads some leaf values 1-2 ulps off"]) + (
        [f"its {link} takes its own fast exp"] if link else [])
    if not reasons:
        return None
    return Tolerance(EXP_TOLERANCE if binary else JSON_READER_TOLERANCE, "; ".join(reasons))



def oracle(source, model: Model, rows: Sequence[Mapping[str, Any]]) -> list[tuple]:
    """CatBoost's own (label or value, scores) for each row, from the model file at ``source`` (or the fitted
    model itself, which predicts through the CatBoost class's own predict as a file's model does): labels,
    probabilities, and what ``CatBoostRegressor.predict`` returns (raw values, or their Exponent for
    Poisson and Tweedie). A missing category is given to CatBoost as ``""``. Give it the ``.cbm``
    for an exact comparison: CatBoost reads its own JSON a few ulps off (see the module's docstring)."""
    from catboost import CatBoost, Pool
    path = file_of(source)
    if path is None:
        booster = source
    else:
        booster = CatBoost()
        booster.load_model(path, format="cbm" if is_cbm(path) else "json")
    categorical = [j for j, f in enumerate(model.features) if not f.is_numeric]
    data = [[_library_value(f, row.get(f.name)) for f in model.features] for row in rows]
    pool = Pool(data, cat_features=categorical or None)
    # CatBoost's own predict, for an object too: a CatBoostClassifier's takes other defaults and arguments
    if model.target.is_classification:
        label_type = model.meta.get("catboost", {}).get("class_type", "String")
        labels = CatBoost.predict(booster, pool, prediction_type="Class").reshape(len(rows), -1)[:, 0].tolist()
        probabilities = CatBoost.predict(booster, pool, prediction_type="Probability").tolist()
        return [(class_text(label, label_type), p) for label, p in zip(labels, probabilities)]
    kind = "Exponent" if model.meta.get("objective") in EXPONENT_LOSSES else "RawFormulaVal"
    values = CatBoost.predict(booster, pool, prediction_type=kind).reshape(-1).tolist()
    return [(v, [v]) for v in values]


def _library_value(feature: Feature, value: Any):
    if feature.is_numeric:
        return math.nan if value is None else float(value)
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) else str(value)
