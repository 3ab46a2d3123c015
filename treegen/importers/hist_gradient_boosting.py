"""Import scikit-learn's HistGradientBoosting{Classifier,Regressor} as a treegen model: bit for bit but
for the softmax and exp links, within :data:`EXP_TOLERANCE` (numpy's exp; see below).

scikit-learn >= 1.4; :func:`treegen.importers.sklearn.from_sklearn` hands these estimators here.
Sources: ``sklearn/ensemble/_hist_gradient_boosting/`` (``gradient_boosting.py``, ``_predictor.pyx``,
``binning.py``) and ``sklearn/_loss/`` (``link.py``, ``loss.py``) as installed with 1.4.2 and 1.9.1.

How scikit-learn predicts, and how the model says the same:

* A numeric feature is compared in float64: left when ``x <= num_threshold``
  (``_predictor.pyx`` ``_predict_one_from_raw_data``), no float32 cast unlike the other scikit-learn
  trees: ``NumericSemantics(cast="float64")``. NaN goes where the node's ``missing_go_to_left`` says.
  Infinities and huge values are compared like any double.
* Categorical features (``categorical_features`` as indices, a mask, names, or pandas' category dtype
  with ``"from_dtype"``) go through an ``OrdinalEncoder`` whose output puts the categorical columns
  first (``gradient_boosting.py`` ``_preprocess_X``): the trees' ``feature_idx`` counts in that
  re-ordered matrix and is mapped back to the user's columns here. A categorical feature becomes a
  nominal feature whose categories are the encoder's ``categories_`` that the bin mapper knows
  (``binning.py`` ``make_known_categories_bitsets``), named by :func:`category_text`: strings as they
  are, numbers by their value (3 and 3.0 are ``"3"``, 2.5 is ``"2.5"``; -0.0 is the category 0).
  The encoder finds a number among number categories by its value, so such a feature has
  ``Codes.INTEGRAL``: 3.0, "3.0" and "3e0" are category 3; a text that reads as a number is read as
  that number is, so a non-integral category is found by value too (2.5, "2.5", "2.50" and "25e-1"
  are category 2.5), and so is one at or beyond 2^31, which no code names ("5000000001.0", as pandas
  writes an int ID column holding a NaN, is category 5000000001). A
  split sends the categories in its ``raw_left_cat_bitsets`` left and the other known ones right; a
  category the encoder does not know (an unseen value, a fractional code, a negative one never seen
  in training) and a missing value take ``missing_go_to_left`` -- the model's route for unknown
  categories is the missing route, as here. (scikit-learn 1.4's encoder makes ``None`` in an object
  column a category of its own, and only NaN missing; the model reads both as missing, so it follows
  the NaN path where such an estimator was trained with ``None`` values.)
* Leaf values already carry the learning rate. The raw sums start from ``_baseline_prediction`` and
  add each iteration's trees in order, in float64 (``gradient_boosting.py`` ``_raw_predict``):
  ``Combine(CombineKind.SUM, init=baseline)``, one tree per class and iteration for multiclass.
  Early stopping keeps only the iterations it used (``n_iter_``); so does the model.
* Links (``sklearn/_loss/link.py``): binary ``LogitLink`` -> sigmoid, probabilities ``[1 - p, p]``
  with ``p = expit(raw)`` (scipy, libm's exp: exact); multiclass ``MultinomialLogit`` -> softmax;
  ``LogLink`` (poisson, gamma, tweedie) -> exp; identity otherwise (squared, absolute, quantile).
  Softmax and exp are computed by scikit-learn with numpy's ``exp``, which differs from libm's by one
  ulp on some inputs, and by CPU and numpy version: the model computes them with libm's exp and
  agrees with scikit-learn within :data:`EXP_TOLERANCE` (relative). Raw sums and labels are exact.
* Labels (``HistGradientBoostingClassifier.predict``): binary the second class when ``raw > 0``
  (``Decision.RAW_POSITIVE``), multiclass the first highest raw sum (``Decision.ARGMAX_RAW``).
"""
from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ..errors import TreegenError
from ..model import (NOMINAL, NUMERIC, Codes, Combine, CombineKind, Decision, Feature, Link, MissingRoute, Model, Node,
                     NumericSemantics, Op, Split, Tree)
from . import library_meta
from .sklearn_common import check_finite, estimator_params, feature_names_of, sklearn_version_text, target_of

# How far numpy's exp (softmax probabilities, exp-link values) may be from libm's, relative: measured
# on 20,000 rows, exp 1 ulp (2.2e-16), softmax up to 3 ulps (4.4e-16; scikit-learn 1.4.2 to 1.9.1).
EXP_TOLERANCE = 1e-15


def is_hist_gradient_boosting(estimator) -> bool:
    from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
    return isinstance(estimator, (HistGradientBoostingClassifier, HistGradientBoostingRegressor))


def from_hist_gradient_boosting(estimator, feature_names=None) -> Model:
    """Convert a fitted HistGradientBoostingClassifier or HistGradientBoostingRegressor.

    Parameters
    ----------
    estimator : the fitted estimator.
    feature_names : the input columns' names, in order (default: ``feature_names_in_``, else
        x0, x1, ...); an estimator's own may only be repeated (:func:`treegen.importers.resolve_feature_names`).

    Returns
    -------
    Model
        Numeric features compared in float64, categorical features as nominal features, one tree
        per fitted predictor.
    """
    names = feature_names_of(estimator, feature_names)
    target, labels = target_of(estimator)
    _check_classes(estimator, target)
    columns = _tree_columns(estimator)
    categories = _categories(estimator, columns)
    numbered = {j for j, (known, _) in category_values(estimator).items() if all(map(_is_number, known.values()))}
    features = tuple(Feature(name, NOMINAL, tuple(t for t in categories[j] if t is not None),
                             codes=Codes.INTEGRAL if j in numbered else None) if j in categories
                     else Feature(name, NUMERIC) for j, name in enumerate(names))
    trees = [_tree(predictor, columns, categories, output=k)
             for iteration in estimator._predictors for k, predictor in enumerate(iteration)]
    check_finite(np.asarray(estimator._baseline_prediction), "the initial raw score")
    # scikit-learn adds the baseline to zeros: -0.0 would start as 0.0
    init = tuple(float(v) + 0.0 for v in np.asarray(estimator._baseline_prediction).ravel())
    meta = library_meta("sklearn", type(estimator).__name__, sklearn_version_text(), _objective(estimator),
                        {"version": sklearn_version_text(), "params": estimator_params(estimator),
                         "iterations": int(estimator.n_iter_), **labels})
    return Model(features, target, trees, _combine(estimator, init, target), NumericSemantics(), meta)


def _check_classes(estimator, target) -> None:
    """Refuse a classifier fitted on one class: scikit-learn fits it as a binary one whose classes_ hold
    that class alone, and its predict_proba gives two columns for it (the second close to 0, not 0), so no
    model of one class gives its probabilities, and no binary one its classes."""
    if target.is_classification and len(target.classes) < 2:
        raise TreegenError(f"{type(estimator).__name__} fitted on one class ({', '.join(map(repr, target.classes))}) "
                           f"is not imported: scikit-learn's predict_proba gives 2 columns for its 1 class; "
                           "fit it on two classes or more")


def category_text(value: Any) -> str:
    """A category as a nominal feature names it: strings as they are, integral numbers without a
    decimal point ("3" for 3 and 3.0), other numbers as Python writes them ("2.5")."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        return str(int(number)) if number.is_integer() else repr(number)
    return str(value)


def _objective(estimator) -> str:
    return estimator.loss if isinstance(estimator.loss, str) else type(estimator.loss).__name__


def _tree_columns(estimator) -> list[int]:
    """The user's column behind each column the trees test: categorical columns come first."""
    is_categorical = getattr(estimator, "is_categorical_", None)
    count = estimator.n_features_in_
    if is_categorical is None or getattr(estimator, "_preprocessor", None) is None:
        return list(range(count))
    flags = np.asarray(is_categorical, dtype=bool).tolist()
    return [j for j in range(count) if flags[j]] + [j for j in range(count) if not flags[j]]


def _categories(estimator, columns: list[int]) -> dict[int, list[str]]:
    """For each categorical column of the user's (by index), its categories by encoded code: the
    encoder's ``categories_`` that the bin mapper knows, as text (None for a code it does not know)."""
    preprocessor = getattr(estimator, "_preprocessor", None)
    if preprocessor is None:
        return {}
    encoder = preprocessor.named_transformers_["encoder"]
    known, row_of = estimator._bin_mapper.make_known_categories_bitsets()
    categories = {}
    for tree_index, values in enumerate(encoder.categories_):  # the categorical columns come first
        bits = known[row_of[tree_index]]
        texts = [category_text(v) if _in_bitset(bits, code) and not _is_missing(v) else None
                 for code, v in enumerate(values.tolist())]
        known_texts = [t for t in texts if t is not None]
        if len(set(known_texts)) != len(known_texts):
            raise TreegenError(f"the categories of feature {columns[tree_index]} are not distinct as text: "
                               f"{known_texts!r}")
        categories[columns[tree_index]] = texts
    return categories


def _in_bitset(bitset, code: int) -> bool:
    return code < 256 and (int(bitset[code // 32]) >> (code % 32)) & 1 == 1


def _is_number(value) -> bool:
    """A number category (bools are categories True and False, not 1 and 0)."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _is_missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


# The two routes a split's missing values can take (made once: a large model has many splits).
_MISSING_ROUTES = (MissingRoute.to_child(0), MissingRoute.to_child(1))


def _tree(predictor, columns: list[int], categories: dict[int, list[str]], output: int) -> Tree:
    """One fitted predictor as a model tree (its node ids are already in pre-order)."""
    left_bitsets = np.asarray(predictor.raw_left_cat_bitsets)
    check_finite(predictor.nodes["value"], "a node value")
    fields = {name: predictor.nodes[name].tolist() for name in ("value", "count", "feature_idx", "num_threshold",
                                                                 "missing_go_to_left", "left", "right", "is_leaf",
                                                                 "is_categorical", "bitset_idx")}
    nodes = []
    for i, value in enumerate(fields["value"]):
        node = Node((value,), n=float(fields["count"][i]))
        if not fields["is_leaf"][i]:
            column = columns[fields["feature_idx"][i]]
            missing = _MISSING_ROUTES[0 if fields["missing_go_to_left"][i] else 1]
            if fields["is_categorical"][i]:
                bits = left_bitsets[fields["bitset_idx"][i]]
                left = tuple(text for code, text in enumerate(categories[column])
                             if text is not None and _in_bitset(bits, code))
                node.split = Split(column, Op.IN, values=left, missing=missing)
            else:
                node.split = Split(column, Op.LE, threshold=fields["num_threshold"][i], missing=missing)
            node.children = (fields["left"][i], fields["right"][i])
        nodes.append(node)
    tree = Tree(nodes, output)
    return tree if tree.is_preorder() else tree.canonical()


def _combine(estimator, init: tuple[float, ...], target) -> Combine:
    from sklearn._loss.link import IdentityLink, LogitLink, LogLink, MultinomialLogit
    link = estimator._loss.link
    if target.is_classification:
        if isinstance(link, LogitLink) and len(init) == 1:
            return Combine(CombineKind.SUM, init, 1.0, Link.SIGMOID, decide=Decision.RAW_POSITIVE)
        if isinstance(link, MultinomialLogit):
            return Combine(CombineKind.SUM, init, 1.0, Link.SOFTMAX, decide=Decision.ARGMAX_RAW)
    elif isinstance(link, (IdentityLink, LogLink)):
        return Combine(CombineKind.SUM, init, 1.0, Link.EXP if isinstance(link, LogLink) else Link.IDENTITY)
    raise TreegenError(f"{type(estimator).__name__} with the loss {_objective(estimator)} "
                       f"({type(link).__name__}) is not supported; supported: log_loss (classifier), "
                       "squared_error, absolute_error, quantile, poisson, gamma and Tweedie losses (regressor)")


# -- the library's input, for its own predictions ---------------------------------------------------


def category_values(estimator) -> dict[int, tuple[dict[str, Any], bool]]:
    """For each categorical column of the user's (by index): the encoder's value behind each category
    text, and whether the categories are numbers."""
    preprocessor = getattr(estimator, "_preprocessor", None)
    if preprocessor is None:
        return {}
    columns = _tree_columns(estimator)
    out = {}
    for tree_index, values in enumerate(preprocessor.named_transformers_["encoder"].categories_):
        values = [v for v in values.tolist() if not _is_missing(v)]
        out[columns[tree_index]] = ({category_text(v): v for v in values},
                                    all(isinstance(v, numbers.Real) for v in values))
    return out
