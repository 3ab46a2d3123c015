"""scikit-learn-compatible estimators over treegen's learners.

``DecisionTreeClassifier`` and ``DecisionTreeRegressor`` take numpy arrays, pandas DataFrames
(object, category, string or bool columns are nominal) or lists of rows, and keep the learned tree
as a treegen :class:`~treegen.model.Model` in ``model_``, ready for any back end. They work without
scikit-learn; when it is installed they are real scikit-learn estimators (``cross_val_score``,
``Pipeline``, ``GridSearchCV`` and ``clone`` work).
"""
from __future__ import annotations

import inspect
import math
import warnings
from types import SimpleNamespace

import numpy as np

from .data import Dataset, decode, infer_feature
from .errors import TreegenError, did_you_mean
from .inputs import InputError, columns_of, feature_columns, is_category_column, is_frame, is_numeric_column
from .learn import ALGORITHMS, parameters, unknown_algorithm
from .learn import fit as learn
from .model import (CLASSIFICATION, NUMERIC, REGRESSION, CombineKind, Decision, Feature, Model, Target, category_of,
                    is_missing)

try:  # plug into scikit-learn when it is there, stand alone when it is not
    from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
    from sklearn.exceptions import DataConversionWarning, NotFittedError
except ImportError:  # pragma: no cover - exercised by a subprocess test without scikit-learn
    class NotFittedError(ValueError, AttributeError):
        """predict() before fit()."""

    class DataConversionWarning(UserWarning):
        """The input had to be reshaped (a column vector y)."""

    class BaseEstimator:
        """get_params/set_params from the ``__init__`` signature, as scikit-learn's own base."""

        @classmethod
        def _get_param_names(cls) -> list[str]:
            signature = inspect.signature(cls.__init__)
            return sorted(p.name for p in signature.parameters.values()
                          if p.name != "self" and p.kind != p.VAR_KEYWORD)

        def get_params(self, deep: bool = True) -> dict:
            return {name: getattr(self, name) for name in self._get_param_names()}

        def set_params(self, **params) -> "BaseEstimator":
            valid = self._get_param_names()
            for name, value in params.items():
                if name not in valid:
                    raise ValueError(f"invalid parameter {name!r} for {type(self).__name__}")
                setattr(self, name, value)
            return self

        def __repr__(self) -> str:
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
            return f"{type(self).__name__}({args})"

    class ClassifierMixin:
        _estimator_type = "classifier"

        def score(self, X, y, sample_weight=None) -> float:
            """Mean (weighted) accuracy."""
            hits = (np.asarray(self.predict(X)) == np.asarray(y)).astype(np.float64)
            return float(np.average(hits, weights=sample_weight))

    class RegressorMixin:
        _estimator_type = "regressor"

        def score(self, X, y, sample_weight=None) -> float:
            """Coefficient of determination R^2."""
            y = np.asarray(y, dtype=np.float64)
            residual = np.average((y - self.predict(X)) ** 2, weights=sample_weight)
            spread = np.average((y - np.average(y, weights=sample_weight)) ** 2, weights=sample_weight)
            return float(1.0 - residual / spread) if spread > 0 else 0.0


class _TreeEstimator(BaseEstimator):
    _kind = CLASSIFICATION

    def __init__(self, algorithm: str = "cart", criterion: str = "gini", max_depth: int | None = None,
                 min_samples_split: int | float = 2, min_samples_leaf: int | float = 1,
                 min_weight_fraction_leaf: float = 0.0, min_impurity_decrease: float = 0.0,
                 ccp_alpha: float | str = 0.0, class_weight=None, cv_folds: int = 5, seed: int | None = None,
                 cast: str | None = None, feature_names=None, learner_params: dict | None = None,
                 random_state: int | None = None, nominal=None):
        self.algorithm = algorithm
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.ccp_alpha = ccp_alpha
        self.class_weight = class_weight
        self.cv_folds = cv_folds
        self.seed = seed
        self.cast = cast
        self.feature_names = feature_names
        self.learner_params = learner_params
        self.random_state = random_state
        self.nominal = nominal

    def __sklearn_tags__(self):
        """scikit-learn's tags (only scikit-learn asks): missing values, strings and categories welcome."""
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags

    # -- learning ------------------------------------------------------------------------

    def fit(self, X, y, sample_weight=None):
        """Learn a tree from ``X`` (rows x features) and ``y``; ``sample_weight`` weighs rows."""
        dataset = self._dataset(X, y, sample_weight)
        try:
            self.model_ = learn(dataset, self.algorithm, **self._learner_params())
        except InputError:
            raise
        except TreegenError as err:
            raise InputError(str(err)) from None
        self.n_features_in_ = len(dataset.features)
        if is_frame(X):
            self.feature_names_in_ = np.asarray([f.name for f in dataset.features], dtype=object)
        self.feature_importances_ = _importances(self.model_, dataset.columns, dataset.y, dataset.weights,
                                                 self._criterion())
        return self

    def cost_complexity_pruning_path(self, X, y, sample_weight=None) -> SimpleNamespace:
        """CART's pruning path on this data: ``ccp_alphas`` and ``impurities``, as scikit-learn's."""
        from .learn.cart import pruning_path
        if self.algorithm != "cart":
            raise InputError(f"cost_complexity_pruning_path is CART's, not algorithm={self.algorithm!r}'s")
        params = {k: v for k, v in self._cart_params().items()
                  if k not in ("ccp_alpha", "cv_folds", "seed") and v is not None}
        alphas, impurities = pruning_path(self._dataset(X, y, sample_weight), **params)
        return SimpleNamespace(ccp_alphas=alphas, impurities=impurities)

    def _dataset(self, X, y, sample_weight) -> Dataset:
        names, columns = columns_of(X, self._given_names(X))
        chosen = self._nominal_positions(names) | _category_positions(X)
        columns = [_raw_column(X, i) if i in chosen and is_frame(X) else c for i, c in enumerate(columns)]
        features = tuple(_feature(name, values, i in chosen) for i, (name, values) in enumerate(zip(names, columns)))
        encoded = [_encode(f, values) for f, values in zip(features, columns)]
        if any(f.is_numeric and np.isinf(c).any() for f, c in zip(features, encoded)):
            raise InputError("X contains infinity (a missing value is NaN or None)")
        target, codes = self._target(y)
        rows = len(columns[0]) if columns else len(codes)
        if rows != len(codes):
            raise InputError(f"X has {rows} rows but y has {len(codes)}")
        if rows == 0 or not columns:  # scikit-learn's wording
            raise InputError(f"Found array with {rows} sample(s) and {len(columns)} feature(s) "
                             f"(shape=({rows}, {len(columns)})) while a minimum of 1 is required.")
        weights = np.ones(rows) if sample_weight is None else np.asarray(sample_weight, dtype=float)
        if weights.shape != (rows,):
            raise InputError(f"sample_weight has shape {weights.shape}; expected ({rows},)")
        _check_weights(weights)
        return Dataset(features, encoded, target, codes, weights)

    def _given_names(self, X):
        """``feature_names`` for columns that have none; a DataFrame's columns name its features, and
        ``feature_names`` naming them otherwise is refused rather than silently ignored."""
        if self.feature_names is None or not is_frame(X):
            return self.feature_names
        if [str(n) for n in self.feature_names] != [str(c) for c in X.columns]:
            raise InputError("feature_names names the columns of an array or list of rows; a DataFrame's columns "
                             "name its features, and these differ from them: leave feature_names out, or rename "
                             "the columns")
        return None

    def _nominal_positions(self, names: list[str]) -> set[int]:
        """The positions of the columns ``nominal`` names: by name, by index, or by a mask of Booleans."""
        chosen = self.nominal
        if chosen is None:
            return set()
        if isinstance(chosen, (str, int, np.integer)):
            chosen = [chosen]
        chosen = list(chosen)
        if chosen and all(isinstance(c, (bool, np.bool_)) for c in chosen):
            if len(chosen) != len(names):
                raise InputError(f"nominal has {len(chosen)} Booleans for {len(names)} features")
            return {i for i, flag in enumerate(chosen) if flag}
        return {_position(c, names) for c in chosen}

    def _target(self, y) -> tuple[Target, np.ndarray]:
        if y is None:
            raise InputError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        name = getattr(y, "name", None)  # a pandas Series names its target
        name = name if isinstance(name, str) and name else "target"
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected", DataConversionWarning,
                          stacklevel=3)
            y = y.ravel()
        if y.ndim != 1:
            raise InputError(f"y must be one-dimensional, not of shape {y.shape}")
        if y.dtype.kind in "fc" and not np.isfinite(y).all():
            raise InputError("y contains NaN or infinity")
        # Labels of objects (strings, a pandas string or nullable column) may hold None, NaN or pandas NA;
        # np.unique would then fail on comparing them with a TypeError, which tools catching ValueError miss.
        if y.dtype.kind == "O" and any(is_missing(v) for v in y.tolist()):
            raise InputError("y contains a missing label (None, NaN or pandas NA)")
        if self._kind == REGRESSION:
            return Target(name, REGRESSION), y.astype(np.float64)
        if y.dtype.kind in "fc" and (y != np.round(y)).any():
            raise InputError("Unknown label type: continuous values; a classifier needs class labels")
        self.classes_, codes = np.unique(y, return_inverse=True)
        return Target(name, CLASSIFICATION, tuple(str(c) for c in self.classes_)), codes.astype(np.int64)

    def _cart_params(self) -> dict:
        return {"criterion": self.criterion, "max_depth": self.max_depth,
                "min_samples_split": self.min_samples_split, "min_samples_leaf": self.min_samples_leaf,
                "min_weight_fraction_leaf": self.min_weight_fraction_leaf,
                "min_impurity_decrease": self.min_impurity_decrease, "ccp_alpha": self.ccp_alpha,
                "class_weight": self.class_weight, "cv_folds": self.cv_folds, "seed": self.seed,
                "cast": self.cast, "random_state": self.random_state}

    def _learner_params(self) -> dict:
        """The chosen learner's parameters. One set away from its default that the learner does not take is
        refused, as :func:`treegen.train` refuses it: ignored, it would leave the tree unchanged (a grid search
        over it would search nothing). Which learner takes what is its ``fit``'s signature
        (:func:`treegen.learn.parameters`)."""
        if self.algorithm not in ALGORITHMS:
            raise InputError(unknown_algorithm(self.algorithm))
        accepted = parameters(self.algorithm)
        defaults = {name: p.default for name, p in inspect.signature(type(self).__init__).parameters.items()}
        own = self._cart_params()
        for name, value in own.items():
            if name not in accepted and name in defaults and not _same(value, defaults[name]):
                raise InputError(self._not_taken(name, value, accepted))
        own = {k: v for k, v in own.items() if k in accepted}
        extra = self.learner_params or {}
        doubled = sorted(set(extra) & set(own))
        if doubled:  # it would override the parameter itself, and a grid search over that one
            raise InputError(f"learner_params gives {doubled[0]}, a parameter of {type(self).__name__} itself: "
                             f"set {doubled[0]}={extra[doubled[0]]!r} there")
        return {**own, **extra}

    def _not_taken(self, name: str, value, accepted: set[str]) -> str:
        takers = [a for a in ALGORITHMS if name in parameters(a)]
        own = sorted(accepted - set(self._cart_params()))
        hint = f"; {self.algorithm}'s own parameters go in learner_params: {', '.join(own)}" if own else ""
        return (f"algorithm={self.algorithm!r} does not use {name}={value!r} (only algorithm="
                + " or ".join(map(repr, takers)) + f" does): leave {name} at its default{hint}")

    def _criterion(self) -> str:
        if self._kind == REGRESSION:
            return "squared_error"
        return self.criterion if self.algorithm == "cart" else "entropy"

    # -- predicting ----------------------------------------------------------------------

    def fitted_model(self) -> Model:
        """The learned model (``model_``); NotFittedError before fit()."""
        if not hasattr(self, "model_"):
            raise NotFittedError(f"this {type(self).__name__} is not fitted yet: call fit() first")
        return self.model_

    def apply(self, X) -> np.ndarray:
        """The id of the node where each row ends (an index of ``model_.trees[0].nodes``, as
        scikit-learn's ``apply`` gives ``tree_`` node ids): its leaf, or, for a row C4.5 sends down every
        branch (a missing value at a split of fractional route), that split; ``treegen.model.leaf_ids``
        names the leaves such a row reaches."""
        from .walk import node_ends
        model, columns = self._encoded(X)
        return node_ends(model, model.trees[0], columns)

    def get_depth(self) -> int:
        """The depth of the tree: the most splits on a path from the root to a leaf (0 for a lone leaf)."""
        return self.fitted_model().trees[0].listed().depth()

    def get_n_leaves(self) -> int:
        """The number of leaves of the tree."""
        return len(self.fitted_model().trees[0].leaves())

    def export(self, to: str, **options) -> str:
        """The tree in a target language: :func:`treegen.export` of ``model_`` (``to``: python, java,
        javascript, c, sql, rules, dot...; ``options`` as that target takes them)."""
        from .targets import emit
        return emit(self.fitted_model(), to, **options)

    def _encoded(self, X) -> tuple[Model, list[np.ndarray]]:
        """The fitted model and ``X``'s columns encoded for it, one per feature."""
        model = self.fitted_model()
        columns = feature_columns(model, X, type(self).__name__)
        return model, [_encode(f, c) for f, c in zip(model.features, columns)]

    def _scores(self, X, labels: bool = False) -> np.ndarray:
        """Final score vectors, one row per input row (class probabilities or [value]); with
        ``labels``, the sums the label is decided on (a leaf's label values where it has them)."""
        return predict_scores(*self._encoded(X), labels)


class DecisionTreeClassifier(ClassifierMixin, _TreeEstimator):
    """A decision tree classifier learned by treegen (CART by default; ``algorithm="c45"``/``"id3"``).

    Parameters
    ----------
    algorithm : "cart" (scikit-learn's tree), "c45" (Weka's J48) or "id3"
        The learner. Each takes its own parameters, as :func:`treegen.train` does; a parameter the chosen
        learner does not take is refused at ``fit`` unless left at its default (ignored, it would leave the
        tree unchanged and a grid search over it would search nothing):

        * cart: criterion, max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf,
          min_impurity_decrease, ccp_alpha, cv_folds, seed, class_weight, cast, random_state, with the
          meanings of :func:`treegen.learn.cart.fit` (scikit-learn's).
        * c45: seed (reduced-error pruning; default 1), and J48's own options in ``learner_params``:
          confidence (-C), min_leaf (-M), unpruned, reduced_error, folds, subtree_raising, collapse,
          binary_splits, laplace, mdl_correction (:func:`treegen.learn.c45.fit`). J48's -M is not
          min_samples_leaf: it asks that two branches of a split, not every leaf, weigh that much, and its
          default is 2; weigh classes by ``sample_weight``.
        * id3: max_depth.
    nominal : names, indices or a Boolean mask of columns, optional
        Columns read as categories whatever their values (integer codes, say), as :func:`treegen.train`'s
        ``nominal``; columns that are not of numbers (text, category, Boolean) are nominal anyway.
    feature_names : names for the columns of an array or list of rows
        A DataFrame's columns name its features; feature_names naming them otherwise is an error.
    learner_params : dict, optional
        More parameters for the chosen learner (its ``fit``'s), checked by it; not the estimator's own.
    seed : int, optional
        cart with ``ccp_alpha="cv"``: the folds' seed (default 0); c45 with reduced-error pruning (default 1).

    The target is named by ``y.name`` when ``y`` is a named pandas Series (else "target"): the name the
    model's rule text, its JSON and ``treegen evaluate`` (the label column) use.

    Attributes
    ----------
    model_ : Model
        The learned tree (:class:`treegen.model.Model`), for every treegen back end (:meth:`export`,
        :func:`treegen.save`, ``model_.predict(row)``).
    classes_ : ndarray
        The class labels, sorted.
    feature_importances_ : ndarray
        Weighted impurity decrease per feature, normalised to sum 1.
    n_features_in_, feature_names_in_
        As scikit-learn's (the latter for a DataFrame only).

    Methods as scikit-learn's tree: ``fit``, ``predict``, ``predict_proba``, ``score``, ``apply`` (node ids),
    ``get_depth``, ``get_n_leaves``, ``cost_complexity_pruning_path`` (cart); and ``export(to, **options)``.
    """

    _kind = CLASSIFICATION

    def predict_proba(self, X) -> np.ndarray:
        return self._scores(X)

    def predict(self, X) -> np.ndarray:
        """The labels as the model decides them (J48's first-class rule and -A label values for C4.5)."""
        sums = self._scores(X, labels=True)  # (raises NotFittedError first)
        return self.classes_[_decided(self.model_.combine.decision(), sums)]


class DecisionTreeRegressor(RegressorMixin, _TreeEstimator):
    """A CART regression tree (squared error) learned by treegen; parameters, attributes and methods as
    :class:`DecisionTreeClassifier`'s (but class_weight and classes_; algorithm is "cart", the one learner
    of regression trees)."""

    _kind = REGRESSION

    def __init__(self, algorithm: str = "cart", criterion: str = "squared_error",
                 max_depth: int | None = None, min_samples_split: int | float = 2,
                 min_samples_leaf: int | float = 1, min_weight_fraction_leaf: float = 0.0,
                 min_impurity_decrease: float = 0.0, ccp_alpha: float | str = 0.0, cv_folds: int = 5,
                 seed: int | None = None, cast: str | None = None, feature_names=None,
                 learner_params: dict | None = None, random_state: int | None = None, nominal=None):
        super().__init__(algorithm, criterion, max_depth, min_samples_split, min_samples_leaf,
                         min_weight_fraction_leaf, min_impurity_decrease, ccp_alpha, None, cv_folds, seed,
                         cast, feature_names, learner_params, random_state, nominal)

    def predict(self, X) -> np.ndarray:
        return self._scores(X)[:, 0]


# -- from raw columns to encoded ones ------------------------------------------------------------

def _check_weights(weights: np.ndarray) -> None:
    """NaN and infinite weights are refused in scikit-learn's words (treegen learnt a leaf of them); a negative
    weight too, where scikit-learn grows a tree that treegen's learners do not reproduce."""
    if np.isnan(weights).any():
        raise InputError("Input sample_weight contains NaN.")
    if np.isinf(weights).any():
        raise InputError("Input sample_weight contains infinity or a value too large for dtype('float64').")
    if (weights < 0).any():
        first = float(weights[weights < 0][0])
        raise InputError(f"sample_weight has a negative value ({first!r}): treegen learns from weights at least 0")


def _position(column, names: list[str]) -> int:
    """A column ``nominal`` names: an int is its index (a negative one from the end), else its name."""
    if isinstance(column, (int, np.integer)) and not isinstance(column, (bool, np.bool_)):
        if not -len(names) <= column < len(names):
            raise InputError(f"nominal names column {column}, but X has {len(names)} features")
        return int(column) % len(names)
    if str(column) not in names:
        raise InputError(f"nominal names {column!r}, which is no feature of X" + did_you_mean([str(column)], names))
    return names.index(str(column))


def _category_positions(X) -> set[int]:
    """The positions of a frame's columns of pandas' category dtype: nominal, whatever their categories (numbers
    too), as :func:`treegen.train` reads them."""
    return {i for i in range(X.shape[1]) if is_category_column(X.iloc[:, i])} if is_frame(X) else set()


def _raw_column(X, i: int) -> np.ndarray:
    """A frame's column as the values it holds (the column's own ints: 3, which names "3", not 3.0)."""
    return X.iloc[:, i].astype(object).to_numpy()


def _feature(name: str, values: np.ndarray, nominal: bool = False) -> Feature:
    if not nominal and is_numeric_column(values):
        return Feature(name, NUMERIC)
    return infer_feature(name, [None if is_missing(v) else _category_text(v) for v in values], nominal=True)


def _category_text(value) -> str:
    """A training value's category: a float (a float32 too) by the shortest text of its double, which the
    model's reading rule reads back as that double (str gives a float32 its float32 text, another number)."""
    return repr(float(value)) if isinstance(value, (float, np.floating)) else str(value)


def _encode(feature: Feature, values: np.ndarray) -> np.ndarray:
    """Numeric: float64 with NaN missing; nominal: category codes, -1 for missing or unknown."""
    if feature.is_numeric:
        if values.dtype.kind in "iuf":
            return values.astype(np.float64)
        try:
            return np.array([math.nan if is_missing(v) else float(v) for v in values])
        except (TypeError, ValueError):
            raise InputError(f"feature {feature.name!r} is numeric but has non-numeric values") from None
    return _category_codes(feature, values)


def _category_codes(feature: Feature, values: np.ndarray) -> np.ndarray:
    """Category codes, -1 for a missing or unknown value, each value read by the model's own rule
    (:func:`treegen.model.category_of`), as ``model_.predict`` and every target read it: a float32 by its
    double, True as the category spelt "true", 3 as "3.0" where the training values were floats."""
    index = {c: k for k, c in enumerate(feature.categories)}

    def code(value) -> int:
        if isinstance(value, str) and value in index:
            return index[value]
        name = None if is_missing(value) else category_of(feature, value)
        return -1 if name is None else index[name]
    return np.fromiter(map(code, values), dtype=np.int64, count=len(values))


# -- predicting and importances from encoded columns -------------------------------------------

def predict_scores(model: Model, columns: list[np.ndarray], labels: bool = False) -> np.ndarray:
    """Score vectors for encoded columns: each tree walked for all rows at once (a row meeting a
    fractional missing route by the model's own walk), then combined as the model says. ``labels``:
    a single tree's label sums instead (see :func:`treegen.walk.tree_outputs`)."""
    from .walk import combined_rows, tree_outputs
    names = [f.name for f in model.features]

    def row(i: int) -> dict:
        return {name: decode(f, c[i:i + 1])[0] for name, f, c in zip(names, model.features, columns)}
    if model.combine.kind == CombineKind.SINGLE:
        return tree_outputs(model, model.trees[0], columns, row, labels)
    assert not labels, "the estimators learn single trees"
    return np.array([model.decided(sums)[1] for sums in combined_rows(model, columns, row)])


def _decided(decision: Decision, sums: np.ndarray) -> np.ndarray:
    """Each row's class index from its label sums, as :func:`treegen.model.decide` picks it."""
    if decision == Decision.ARGMAX:
        return np.argmax(sums, axis=1)  # the first of the highest
    if decision == Decision.WEKA:  # the first class, passed only by a sum higher by more than 1e-6
        best, rows = np.zeros(len(sums), dtype=np.int64), np.arange(len(sums))
        for k in range(1, sums.shape[1]):
            best[sums[:, k] - sums[rows, best] > 1e-6] = k
        return best
    raise InputError(f"the estimator cannot decide by {decision.value!r}")


def _importances(model: Model, columns, y, weights, criterion: str) -> np.ndarray:
    """Weighted impurity decrease per feature, summed over the splits and normalised to sum 1."""
    nodes = model.trees[0].listed().nodes  # read in several passes
    weight, impurity = _node_impurities(model, nodes, columns, y, weights, criterion)
    out = np.zeros(len(model.features))
    for i, node in enumerate(nodes):
        if node.split is not None:
            decrease = weight[i] * impurity[i] - sum(weight[c] * impurity[c] for c in node.children)
            out[node.split.feature] += decrease
    total = out.sum()
    return out / total if total > 0 else out


def _node_impurities(model: Model, nodes: list, columns, y, weights, criterion: str):
    """Each node's weight and impurity: ``nodes`` are those of the model's one tree."""
    from .learn.cart import node_impurity
    if model.target.is_classification:
        weight = np.array([sum(node.counts) if node.counts else node.n for node in nodes])
        impurity = np.array([node_impurity(criterion, np.asarray(node.counts, dtype=np.float64))
                             if sum(node.counts) > 0 else 0.0 for node in nodes])
        return weight, impurity
    from .walk import node_paths
    paths = node_paths(model, model.trees[0], columns)
    first = np.ones(paths.shape, dtype=bool)
    first[:, 1:] = paths[:, 1:] != paths[:, :-1]  # each node once per row
    where = paths[first]
    rows = np.broadcast_to(np.arange(len(y))[:, None], paths.shape)[first]
    size = len(nodes)
    w = np.bincount(where, weights[rows], size)
    s = np.bincount(where, weights[rows] * y[rows], size)
    sq = np.bincount(where, weights[rows] * y[rows] ** 2, size)
    with np.errstate(all="ignore"):
        impurity = np.where(w > 0, sq / w - (s / w) ** 2, 0.0)
    return w, impurity


def _same(value, default) -> bool:
    """Whether a parameter is at its default (an array or other value that will not compare is not)."""
    try:
        return value is default or bool(value == default)
    except (TypeError, ValueError):
        return False
