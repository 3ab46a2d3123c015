"""Import LightGBM models as treegen models that predict what LightGBM predicts, bit for bit.

The text model (``model.txt``, written by ``Booster.save_model``) is read without LightGBM: it is data,
never code. ``lightgbm.Booster`` and ``LGBMClassifier``/``LGBMRegressor`` objects are converted through
the same text (``Booster.model_to_string``), so there is one reader. Files written by LightGBM 3.x and
4.x (``version=v3``, ``v4``) are read as LightGBM 3.x and 4.x predict them (tested with 3.3.5, 4.0.0
and 4.7.0). LightGBM 2.x wrote ``v3`` too, but sent NaN to category 0 at a categorical split unless
the feature's missing type was NaN (``tree.h`` at v2.3.1); its files are read as 3.x predicts them.

How LightGBM predicts, and how the model says the same thing. Sources: ``microsoft/LightGBM`` at
v4.6.0, the same at v3.3.5 unless said otherwise.

* Inputs are doubles, and the C API drops every value with ``|x| <= kZeroThreshold``, which then
  reads as 0.0 (``src/c_api.cpp`` ``RowPairFunctionFromDenseMatric``); ``kZeroThreshold`` is
  ``1e-35f`` stored in a double, 1.0000000180025095e-35 (``include/LightGBM/meta.h``). A numeric
  split goes left when ``x <= threshold`` in double (``include/LightGBM/tree.h``
  ``NumericalDecision``): ``NumericSemantics(cast="float64", zero_band=K_ZERO_THRESHOLD)``.
* ``decision_type`` holds, per split, bit 0 categorical, bit 1 default-left and in bits 2-3 the
  missing type of the feature (``tree.h`` ``kCategoricalMask``, ``kDefaultLeftMask``,
  ``GetMissingType``):

  - *None*: NaN becomes 0.0 and is compared: ``MissingRoute.to_child(0 if 0.0 <= t else 1)``;
  - *Zero*: NaN and every value in the zero band go to the default side: the feature's
    ``missing_interval`` is ``(-kZeroThreshold, kZeroThreshold)`` and the route
    ``MissingRoute.to_child(default)``;
  - *NaN*: NaN goes to the default side: ``MissingRoute.to_child(default)``.

  A feature has one missing type in a training run (its bin mapper's,
  ``src/treelearner/serial_tree_learner.cpp`` ``SplitInner``); a model whose splits mix missing
  types on one feature is refused, since the zero band is missing for the whole feature or not.
* A categorical split's ``threshold`` indexes ``cat_boundaries``, which delimit its words of
  ``cat_threshold``: a bitset of the category codes that go **left** (bit ``c % 32`` of word
  ``c / 32``). NaN, negative codes and codes not in the set go right (``tree.h``
  ``CategoricalDecision``, ``include/LightGBM/utils/common.h`` ``FindInBitset``). The feature is
  nominal and the split ``Op.IN`` with the set's categories, ``MissingRoute.to_child(1)``; a
  category the feature does not know follows that route, right.
* Category names: a model trained on a pandas DataFrame lists the categories of each column of
  category dtype in ``pandas_categorical``, in column order (the Python package codes such a column by
  them before training and before predicting, ``python-package/lightgbm/basic.py`` ``_data_from_pandas``):
  code ``c`` is the ``c``-th of them, as a string (``str``). Where every category is a number (ints
  and floats, as JSON holds them; not bools), pandas finds a value among them by its value, and the
  feature has ``Codes.INTEGRAL``: 20.0 and "20.0" name the category 20, as ``pd.Categorical`` codes them
  (:func:`treegen.model.category_of`; a number names a fractional category, 1.5, by its value). The file does not say which columns those
  were: :func:`pandas_columns` pairs the lists with the categorical features where they fit them one for
  one (``categorical_feature='auto'``), else with the one set of features they fit. A Categorical that
  LightGBM took as numbers (an ordered one, or one left out of an explicit ``categorical_feature``) is a
  nominal feature of its categories, and a numeric split on it, ``code <= threshold``, an ``in`` split
  of the categories whose code goes left (code 0 to the default side where the zero band is missing);
  a missing value and a category not in the list, which pandas codes NaN, take the split's missing
  route. Otherwise the categories are the integer codes as decimal strings: "0", "1", ...
  (those in ``feature_infos`` and in the splits), and the feature reads a number as LightGBM does,
  truncated to its code (``static_cast<int>``: -0.5 and 1e-36 are category 0, 2.7 is category 2):
  ``Codes.TRUNCATED``, so 2.7, "2.7", "2.0" or "3e0" names the category LightGBM takes; a number
  beyond an int or infinite (LightGBM's cast makes it negative) names none and goes right.
* A tree's output adds to raw output ``i % num_tree_per_iteration``; the sums are doubles from 0.0,
  iteration by iteration, in class order (``src/boosting/gbdt_prediction.cpp`` ``PredictRaw``):
  ``Tree.output``, ``Combine.init`` zeros. ``boost_from_average`` is already in the first trees'
  leaves; DART's weights are already in the leaves. A model trained with early stopping is what its
  file holds: ``save_model`` and ``model_to_string`` keep the best iteration's trees, and a Booster
  read from a file predicts with all of them.
* ``average_output`` (random-forest mode): ``Predict`` divides the sums by the number of iterations
  before the link (``gbdt_prediction.cpp`` ``GBDT::Predict``): ``Combine.divisor``. Its
  ``raw_score=True`` is the undivided sum.
* Links (``ConvertOutput`` in ``src/objective/``): ``binary`` ``1 / (1 + exp(-sigmoid * x))`` with the
  objective's ``sigmoid:`` parameter (``Combine.link_scale``); ``multiclass`` softmax
  (``common.h`` ``Softmax``); ``multiclassova`` that sigmoid per class; ``cross_entropy`` the plain
  sigmoid; ``poisson``, ``gamma``, ``tweedie`` ``exp``; ``regression``, ``regression_l1``,
  ``quantile``, ``mape`` and ``fair`` with ``sqrt`` in the objective ``sign(x) * x * x``, otherwise
  identity (``huber`` and ``poisson`` ignore ``sqrt``, ``regression_objective.hpp``); the ranking objectives
  ``lambdarank`` and ``rank_xendcg`` identity too (``rank_objective.hpp`` converts nothing): a score to order
  a query's rows by, as ``model.meta["predicts"]`` says. The text holds
  ``sigmoid`` to 6 significant digits (``BinaryLogloss::ToString``), and so predicts every Booster read
  from it, and ``LGBMClassifier``; a Booster that ``lgb.train`` kept for training
  (``keep_training_booster=True``) predicts with the exact value until it is saved and read again.
* Linear trees (``linear_tree=True``; a tree with ``is_linear=1``): each leaf has ``leaf_const`` and, per
  ``num_features``, pairs of ``leaf_features`` (raw feature indices) and ``leaf_coeff``
  (``Tree::Tree(const char*)``, ``src/io/tree.cpp``). ``Tree::Predict`` (``include/LightGBM/tree.h``,
  v3.3.5 and v4.6.0 alike) starts from ``leaf_const``, adds ``coeff * x`` term by term in double, and
  returns the plain ``leaf_value`` as soon as an input is NaN -- the raw value, whatever the split's
  missing type (None sends NaN to 0.0 at the splits, not in the sum); every leaf is linear, a leaf
  without features its constant, a one-leaf tree too. A value the C API dropped from the row
  (``|x| <= kZeroThreshold``) is 0.0 there: ``Node.linear``, :func:`treegen.model.leaf_value`.
  LightGBM refuses ``zero_as_missing`` with linear trees (``src/io/config.cpp``) and leaves categorical
  features out of the leaves' models, so a term's feature is numeric without a missing interval.
* Labels: ``LGBMClassifier.predict`` is numpy's argmax of ``predict_proba``, ``[1 - p, p]`` for binary:
  ``Decision.ARGMAX`` on the scores, the first NaN where one is NaN (:func:`treegen.model.argmax`); the
  generated code decides a binary label, equally, on the raw sum against one cut that depends on
  ``sigmoid`` alone (:func:`treegen.emit.common.label_cut`). A file has no class labels: they are "0",
  "1", ...; a classifier object's ``classes_`` name them (the originals are kept in ``model.meta["lightgbm"]``).
  ``cross_entropy`` (labels in [0, 1]) is imported as a classifier whose second score is what
  LightGBM predicts.
* Custom objectives (``objective`` a callable in ``lgb.train`` or a scikit-learn wrapper): the file has no
  ``objective=`` line (``GBDT::SaveModelToString`` writes it only with an objective function; a line that
  ``ParseObjectiveAlias`` reads as ``custom`` loads as none, ``CreateObjectiveFunction``), and
  ``Predict`` converts nothing without one: it returns the raw sum. ``BoostFromAverage`` adds no bias
  without an objective function, and a ``Dataset``'s ``init_score`` is never in the model. The
  scikit-learn wrappers with a callable objective return that raw score from ``predict`` and
  ``predict_proba`` too (``python-package/lightgbm/sklearn.py`` v4.6.0 ``LGBMClassifier.predict_proba``),
  an ``LGBMClassifier`` included. Such a model is a regression of the raw sum (``Link.IDENTITY``, its
  ``meta["objective"]`` ``custom`` and ``meta["lightgbm"]["note"]`` saying the value is the raw score, for
  the user's own transform). With several trees per iteration (a custom multi-class objective)
  ``predict`` gives a raw score per class, an n x K matrix, which a regression of one value cannot hold:
  refused.

Refused, in one line: ``cross_entropy_lambda``, custom objectives with several
trees per iteration, and ``pandas_categorical`` whose lists fit no set of features, or several, where
they are not the categorical features one for one (the file cannot say which columns they were), and a
linear leaf that reads a Categorical's codes.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..collector import collector_paused
from ..errors import TreegenError, read_text, with_article
from ..model import (CLASSIFICATION, NOMINAL, NUMERIC, REGRESSION, Codes, Combine, CombineKind, Decision, Feature,
                     Linear, Link, MissingRoute, Model, Node, NumericSemantics, Op, Split, Target, Tree, code_number)
from . import IMPORTERS, c_number, code_or, file_of, library_meta, ranking_score, resolve_feature_names
from .hist_gradient_boosting import category_text

K_ZERO_THRESHOLD = 1.0000000180025095e-35  # include/LightGBM/meta.h: const double kZeroThreshold = 1e-35f;
FILE_VERSIONS = ("v3", "v4")  # src/boosting/gbdt_model_text.cpp kModelVersion: 3.x writes v3, 4.x v4

# decision_type bits (include/LightGBM/tree.h): kCategoricalMask, kDefaultLeftMask, missing type in bits 2-3
CATEGORICAL_BIT, DEFAULT_LEFT_BIT = 1, 2
MISSING_NONE, MISSING_ZERO, MISSING_NAN = 0, 1, 2
MISSING_TYPE_NAMES = {MISSING_NONE: "None", MISSING_ZERO: "Zero", MISSING_NAN: "NaN"}
TO_CHILD = (MissingRoute.to_child(0), MissingRoute.to_child(1))  # shared: a big model has one per split

CLASSIFIERS = {"binary": Link.SIGMOID, "cross_entropy": Link.SIGMOID, "multiclass": Link.SOFTMAX,
               "multiclassova": Link.SIGMOID}
REGRESSIONS = {"regression": Link.IDENTITY, "regression_l1": Link.IDENTITY, "quantile": Link.IDENTITY,
               "mape": Link.IDENTITY, "fair": Link.IDENTITY, "huber": Link.IDENTITY,
               "poisson": Link.EXP, "gamma": Link.EXP, "tweedie": Link.EXP,
               "lambdarank": Link.IDENTITY, "rank_xendcg": Link.IDENTITY}
# ranking: a score to order a query's rows by (RankingObjective keeps ObjectiveFunction's identity ConvertOutput)
RANKINGS = ("lambdarank", "rank_xendcg")
# the objectives whose `sqrt` squares the prediction back (RegressionL2loss::ConvertOutput; Huber and
# Poisson, with its subclasses Gamma and Tweedie, switch it off in their constructors)
SQRT_OBJECTIVES = ("regression", "regression_l1", "quantile", "mape", "fair")
SUPPORTED_OBJECTIVES = ", ".join([*CLASSIFIERS, *REGRESSIONS])
REFUSED_OBJECTIVES = {"cross_entropy_lambda": "its log1p(exp(x)) link is not in the model"}
CUSTOM = "custom"  # the objective LightGBM names a custom one (the file's parameters: [objective: custom])
CUSTOM_ALIASES = ("custom", "none", "null", "na")  # include/LightGBM/config.h ParseObjectiveAlias
RAW_SCORE_NOTE = ("a custom objective: the prediction is the raw score, the trees' sum without a link, as "
                  "LightGBM's predict gives it (Booster and scikit-learn wrapper alike); apply your own transform")
WHAT_IS_READ = IMPORTERS["LightGBM"].files  # as the table of importers says it


def recognises(path: str, head: bytes) -> bool:
    """A LightGBM text model: its first line is ``tree`` (``GBDT::SubModelName``); or the JSON of
    ``Booster.dump_model()`` (refused by :func:`read_model_file` with how to save the model instead)."""
    return head.startswith((b"tree\n", b"tree\r\n")) or JSON_DUMP.match(head) is not None


JSON_DUMP = re.compile(rb'\s*\{\s*"name"\s*:\s*"tree"\s*,\s*"version"\s*:')  # json.dumps(booster.dump_model())


@collector_paused()
def read_model_file(path: str, feature_names: Sequence[str] | None = None) -> Model:
    """The model in a LightGBM ``model.txt`` file, read without LightGBM.

    Parameters
    ----------
    path : str
        The file ``Booster.save_model`` wrote.
    feature_names : sequence of str, optional
        Names for the input columns, in order. Default: the file's ``feature_names``. A model fitted on a
        frame keeps its columns' names (a space written '_'): they may only be repeated, spaces and all
        (:func:`treegen.importers.resolve_feature_names`); Column_0, ... may be named anew.

    Returns
    -------
    Model

    Raises
    ------
    TreegenError
        For a file that is not a whole LightGBM model (FILE:LINE where it applies), or one that uses
        what the model cannot hold (see the module's docstring).
    """
    text = read_text(path, "the LightGBM model file")
    if JSON_DUMP.match(text[:256].encode()):
        raise TreegenError("this is the JSON of LightGBM's Booster.dump_model(), which treegen does not read: save "
                           "the model with booster.save_model('model.txt')", path)
    return model_from_text(text, feature_names, source=path)


@collector_paused()
def from_lightgbm(model_object, feature_names: Sequence[str] | None = None) -> Model:
    """Convert a ``lightgbm.Booster`` or a fitted ``LGBMClassifier``/``LGBMRegressor``.

    The booster's text (``model_to_string()``: the best iteration when early stopping found one,
    which is also what its ``predict`` uses) is read as :func:`read_model_file` reads a file; a
    classifier's ``classes_`` name the classes (but for a callable objective, whose model is the
    regression of the raw score, as its ``predict`` and ``predict_proba`` return it).

    Parameters
    ----------
    model_object : lightgbm.Booster or lightgbm.LGBMModel
    feature_names : sequence of str, optional
        Names for the input columns, in order. Default: the booster's own; as :func:`read_model_file` takes them
        (``X.columns`` of the frame it was fitted on gives back the spaces LightGBM wrote '_').

    Returns
    -------
    Model
    """
    booster, classes = _booster_and_classes(model_object)
    model = model_from_text(booster.model_to_string(), feature_names, classes=classes)
    best = getattr(booster, "best_iteration", 0) or 0
    model.meta["lightgbm"]["trees_used"] = (f"best_iteration {best} (early stopping)" if best > 0
                                            else "every tree of the booster")
    return model


def _booster_and_classes(model_object) -> tuple[Any, list | None]:
    import lightgbm
    if isinstance(model_object, lightgbm.Booster):
        return model_object, None
    if isinstance(model_object, lightgbm.LGBMModel):
        try:
            booster = model_object.booster_
        except (AttributeError, ValueError):  # LGBMNotFittedError is both
            raise TreegenError(f"the {type(model_object).__name__} is not fitted; call fit before importing") from None
        return booster, (list(model_object.classes_) if hasattr(model_object, "classes_") else None)
    raise TreegenError(f"cannot import {with_article(type(model_object).__name__)} from lightgbm; supported: "
                       "lightgbm.Booster, LGBMClassifier, LGBMRegressor, LGBMRanker")


def model_from_text(text: str, feature_names: Sequence[str] | None = None, source: str | None = None,
                    classes: Sequence | None = None) -> Model:
    """The model in LightGBM's text format (what ``save_model`` writes and ``model_to_string`` returns).

    Parameters
    ----------
    text : str
    feature_names : sequence of str, optional
        Names for the input columns, in order. Default: the text's ``feature_names``.
    source : str, optional
        The file the text came from, for messages.
    classes : sequence, optional
        A classifier's class labels (``LGBMClassifier.classes_``). Default: "0", "1", ...

    Returns
    -------
    Model
    """
    parsed = _Text(text, source).parse()
    objective = _objective(parsed)
    target, kept_classes = _target(parsed, objective, classes)
    features, category_names = _features(parsed, feature_names)
    splits: dict = {}
    trees = [_tree(parsed, tree, features, category_names, number % parsed.per_iteration, splits)
             for number, tree in enumerate(parsed.trees)]
    iterations = len(parsed.trees) // parsed.per_iteration
    combine = Combine(CombineKind.SUM, init=(0.0,) * parsed.per_iteration, link=objective.link,
                      link_scale=objective.sigmoid, divisor=float(iterations) if parsed.average_output else 1.0,
                      decide=Decision.ARGMAX if target.is_classification else None)
    details = {"file_version": parsed.version, "trees": len(parsed.trees), "iterations": iterations, "num_tree_per_iteration": parsed.per_iteration,
               "average_output": parsed.average_output, "trees_used": "every tree in the file", **kept_classes}
    if "boosting" in parsed.parameters:
        details["boosting"] = parsed.parameters["boosting"]
    if parsed.pandas_categorical:
        details["pandas_categorical"] = parsed.pandas_categorical
    if objective.name == CUSTOM:
        details["note"] = RAW_SCORE_NOTE
    # The file names its format (v3, v4), not the LightGBM that wrote it: no library_version from a file.
    meta = library_meta("lightgbm", "LightGBM", None, parsed.header.get("objective", CUSTOM), details,
                        objective.predicts)
    numeric = NumericSemantics("float64", zero_band=K_ZERO_THRESHOLD)
    return Model(features, target, trees, combine, numeric, meta)


# -- the text --------------------------------------------------------------------------------------


@dataclass
class _Block:
    """One ``Tree=`` block as text: its fields, and the line each is on."""

    number: int
    line: int
    fields: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


@dataclass
class _Tree:
    """One tree's fields as numbers (``Tree::Tree(const char*)``): internal nodes 0 .. num_leaves - 2,
    children below 0 are leaves (~j)."""

    number: int
    lines: dict[str, int]
    num_leaves: int
    leaf_value: list[float]
    leaf_count: list[float]
    split_feature: list[int]
    threshold: list[float]
    decision_type: list[int]
    left_child: list[int]
    right_child: list[int]
    internal_value: list[float]
    internal_count: list[float]
    cat_boundaries: list[int]
    cat_threshold: list[int]
    linear: list[Linear] | None = None  # is_linear=1: each leaf's linear model

    def is_categorical(self, node: int) -> bool:
        return bool(self.decision_type[node] & CATEGORICAL_BIT)


@dataclass
class _Parsed:
    source: str | None
    version: str
    header: dict[str, str]
    header_lines: dict[str, int]
    per_iteration: int
    average_output: bool
    trees: list[_Tree]
    parameters: dict[str, str]
    pandas_categorical: list | None

    def fail(self, message: str, line: int | None = None) -> TreegenError:
        return TreegenError(message, self.source, line)


class _Text:
    """Reads the text: its header, its ``Tree=`` blocks, and the parameters and ``pandas_categorical``
    after ``end of trees`` (``GBDT::SaveModelToString``, ``GBDT::LoadModelFromString``)."""

    def __init__(self, text: str, source: str | None):
        self.lines = re.split(r"\r\n|\r|\n", text)  # Common::GetLine; not str.splitlines, which splits on more
        self.text, self.source = text, source

    def fail(self, message: str, line: int | None = None) -> TreegenError:
        return TreegenError(message, self.source, line)

    def parse(self) -> _Parsed:
        if not self.lines or self.lines[0] != "tree":
            raise self.fail(f"not a LightGBM model: the first line is not 'tree'; expected {WHAT_IS_READ}", 1)
        header, lines, average_output, position = {}, {}, False, 1
        while position < len(self.lines) and not self.lines[position].startswith("Tree=") \
                and self.lines[position] != "end of trees":  # (straight after the header when there are no trees)
            line = self.lines[position]
            if line == "average_output":
                average_output = True
            elif "=" in line:
                key, value = line.split("=", 1)
                header[key], lines[key] = value, position + 1
            position += 1
        for key in ("version", "num_class", "max_feature_idx", "feature_names", "feature_infos"):
            if key not in header:
                raise self.fail(f"not a whole LightGBM model: its header has no {key}= line", position)
        if header["version"] not in FILE_VERSIONS:
            raise self.fail(f"LightGBM model file version {header['version'][:20]} is not supported; supported: "
                            f"{', '.join(FILE_VERSIONS)} (LightGBM 3.x and 4.x)", lines["version"])
        blocks, position = self._blocks(position)
        parsed = _Parsed(self.source, header["version"], header, lines,
                         self._integer(header, lines, "num_tree_per_iteration", header["num_class"]),
                         average_output, [], _parameters(self.lines[position:]), self._pandas_categorical(position))
        self._check_counts(parsed, blocks)
        trees = [self._tree(block) for block in blocks]  # (each block's own faults said first, at their lines)
        parsed.trees = [trees[block.number] for block in self._blocks_read(parsed, blocks)]
        return parsed

    def _blocks(self, position: int) -> tuple[list[_Block], int]:
        blocks: list[_Block] = []
        while position < len(self.lines):
            line = self.lines[position]
            if line == "end of trees":
                return blocks, position + 1
            if line.startswith("Tree="):
                if line != f"Tree={len(blocks)}":
                    raise self.fail(f"expected 'Tree={len(blocks)}', found {line[:40]!r}", position + 1)
                blocks.append(_Block(len(blocks), position + 1))
            elif line and "=" in line and blocks:
                key, value = line.split("=", 1)
                blocks[-1].fields[key], blocks[-1].lines[key] = value, position + 1
            elif line and position + 1 < len(self.lines):
                raise self.fail(f"unexpected line {line[:40]!r} among the trees", position + 1)
            position += 1
        raise self.fail(f"the LightGBM model is truncated: no 'end of trees' line after {len(blocks)} trees",
                        len(self.lines))

    def _integer(self, header: dict, lines: dict, key: str, default: str) -> int:
        text = header.get(key, default)
        try:
            return c_number(int, text)
        except ValueError:
            raise self.fail(f"{key}={text[:40]} is not an integer", lines.get(key)) from None

    def _check_counts(self, parsed: _Parsed, blocks: list[_Block]) -> None:
        header, lines = parsed.header, parsed.header_lines
        n_features = self._integer(header, lines, "max_feature_idx", "") + 1
        for key in ("feature_names", "feature_infos"):
            count = len(header[key].split(" "))
            if count != n_features:
                raise self.fail(f"{key} has {count} entries, but max_feature_idx says {n_features} features",
                                lines[key])
        if parsed.per_iteration < 1:
            raise self.fail("num_tree_per_iteration must be at least 1", lines.get("num_tree_per_iteration"))
        if not blocks:
            raise self.fail("the LightGBM model has no trees (saved with a start_iteration past its last tree?): "
                            "it predicts one constant for every row, and treegen compiles trees")
        if len(blocks) % parsed.per_iteration:
            raise self.fail(f"{len(blocks)} trees are not whole iterations of {parsed.per_iteration} trees")
        sizes = header.get("tree_sizes")
        if sizes is not None and len(sizes.split()) != len(blocks):
            raise self.fail(f"tree_sizes lists {len(sizes.split())} trees, but the file has {len(blocks)}: "
                            "it is truncated or damaged", lines["tree_sizes"])

    def _blocks_read(self, parsed: _Parsed, blocks: list[_Block]) -> list[_Block]:
        """The blocks LightGBM reads as its trees. Without ``tree_sizes=``, each in turn. With it, tree i is the one
        whose text begins ``sum(tree_sizes[:i])`` bytes past the first ``Tree=`` line, and that place must begin a
        line ``Tree=`` (src/boosting/gbdt_model_text.cpp, GBDT::LoadModelFromString: else ``Log::Fatal("Model format
        error, expect a tree here...")`` in an OpenMP loop, which aborts the process): a tree edited to another length
        (a space, its blank line, line ends made CRLF) is refused, as LightGBM refuses it; sizes that put a tree at
        another tree's line read that tree there, as LightGBM does. The last tree's size is never used."""
        text, line = parsed.header.get("tree_sizes"), parsed.header_lines.get("tree_sizes")
        if text is None:
            return blocks
        try:
            sizes = [c_number(int, size) for size in text.split()]
        except ValueError:
            sizes = [-1]
        if min(sizes) < 0:
            raise self.fail(f"tree_sizes={text[:40]} is not a list of byte counts: the file is damaged", line)
        starts = self._byte_starts(blocks)
        at = dict(zip(starts, blocks))
        read, offset = [], 0
        for number, size in enumerate(sizes):
            if offset not in at:
                if [block.number for block in read] != list(range(number)):  # (not the trees in turn so far)
                    raise self.fail(f"tree_sizes puts tree {number} {offset} bytes past the first tree, where no tree "
                                    "begins: LightGBM refuses the file (it is damaged or was edited)", line)
                length, said = starts[number] - starts[number - 1], sizes[number - 1]
                raise self.fail(f"tree {number - 1} is {length} bytes long, but tree_sizes says {said}: LightGBM refuses "
                                "the file (a tree edited, its line ends changed?)", blocks[number - 1].line)
            read.append(at[offset])
            offset += size
        return read

    def _byte_starts(self, blocks: list[_Block]) -> list[int]:
        """Where each block's ``Tree=`` line begins, in bytes of UTF-8 past the first's (tree_sizes counts bytes)."""
        line_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", self.text)]  # (the lines of self.lines)
        chars = [line_starts[block.line - 1] for block in blocks]
        if self.text.isascii():
            return [start - chars[0] for start in chars]
        starts = [0]
        for begin, end in zip(chars, chars[1:]):
            starts.append(starts[-1] + len(self.text[begin:end].encode("utf-8", "surrogatepass")))
        return starts

    def _pandas_categorical(self, position: int) -> list | None:
        """The last ``pandas_categorical:`` line, as the Python package reads it
        (``python-package/lightgbm/basic.py`` ``_load_pandas_categorical``)."""
        for number in range(len(self.lines) - 1, position - 1, -1):
            line = self.lines[number]
            if line.startswith("pandas_categorical:"):
                try:
                    value = json.loads(line[len("pandas_categorical:"):])
                except (ValueError, RecursionError):  # (a hostile file's brackets nested past the recursion limit)
                    raise self.fail("pandas_categorical is not valid JSON (a truncated file?)", number + 1) from None
                if value is not None and not (isinstance(value, list) and all(isinstance(v, list) for v in value)):
                    raise self.fail("pandas_categorical is not a list of lists", number + 1)
                return value
        return None

    def _tree(self, block: _Block) -> _Tree:
        """A block's fields as numbers, counted as ``Tree::Tree(const char*)`` counts them."""
        def numbers(key: str, count: int, kind=float, default=None) -> list:
            if key not in block.fields:
                if default is not None or count == 0:
                    return [default] * count
                raise self.fail(f"tree {block.number} has no {key}= line: the file is truncated or damaged",
                                block.line)
            return self._numbers(block, key, count, kind)

        leaves, categories = numbers("num_leaves", 1, int)[0], numbers("num_cat", 1, int)[0]
        if leaves < 1 or categories < 0:
            raise self.fail(f"tree {block.number}: num_leaves={leaves}, num_cat={categories}", block.line)
        internal = leaves - 1
        boundaries = numbers("cat_boundaries", categories + 1, int) if categories else [0]
        if boundaries[0] < 0 or any(later < earlier for earlier, later in zip(boundaries, boundaries[1:])):
            # (each set's words are cat_threshold[boundaries[i]:boundaries[i + 1]]: a slice of Python's
            # would read a negative or falling bound as some other words)
            raise self.fail(f"tree {block.number}: cat_boundaries {' '.join(map(str, boundaries))} do not rise from "
                            "0 or more: the file is damaged", block.lines["cat_boundaries"])
        linear = None
        if block.fields.get("is_linear", "0").strip() not in ("", "0"):
            linear = self._linear(block, leaves, numbers)
        return _Tree(block.number, block.lines, leaves, numbers("leaf_value", leaves),
                     numbers("leaf_count", leaves, float, 0.0),
                     numbers("split_feature", internal, int), numbers("threshold", internal),
                     numbers("decision_type", internal, int, 0), numbers("left_child", internal, int),
                     numbers("right_child", internal, int), numbers("internal_value", internal, float, 0.0),
                     numbers("internal_count", internal, float, 0.0), boundaries,
                     numbers("cat_threshold", boundaries[-1], int) if categories else [], linear)

    def _linear(self, block: _Block, leaves: int, numbers) -> list[Linear]:
        """Each leaf's linear model, read as ``Tree::Tree(const char*)`` reads it (``src/io/tree.cpp``,
        v4.6.0): ``leaf_const`` per leaf, ``num_features`` per leaf, then ``leaf_features`` (feature
        indices) and ``leaf_coeff`` flattened leaf after leaf."""
        consts, counts = numbers("leaf_const", leaves), numbers("num_features", leaves, int)
        if any(c < 0 for c in counts):
            raise self.fail(f"tree {block.number}: num_features has a negative count", block.lines["num_features"])
        features, coeffs = numbers("leaf_features", sum(counts), int), numbers("leaf_coeff", sum(counts))
        out, start = [], 0
        for const, count in zip(consts, counts):
            out.append(Linear(const, tuple(zip(features[start:start + count], coeffs[start:start + count]))))
            start += count
        return out

    def _numbers(self, block: _Block, key: str, count: int, kind) -> list:
        field = block.fields[key]
        text = field.split()
        try:
            plain = field.isascii() and "_" not in field  # (checked once for the line: a big model has millions)
            values = [kind(v) if plain else c_number(kind, v) for v in text]
        except ValueError:
            bad = next(v for v in text if not _parses(kind, v))
            raise self.fail(f"tree {block.number}: {key} has {bad[:30]!r}, not a number", block.lines[key]) from None
        if len(values) != count:
            raise self.fail(f"tree {block.number}: {key} has {len(values)} values, expected {count}: the file is "
                            "truncated or damaged", block.lines[key])
        return values


def _parses(kind, text: str) -> bool:
    try:
        c_number(kind, text)
        return True
    except ValueError:
        return False


def _parameters(lines: Sequence[str]) -> dict[str, str]:
    """The ``[name: value]`` lines of the ``parameters:`` section."""
    out = {}
    for line in lines:
        if line.startswith("[") and line.endswith("]") and ": " in line:
            name, value = line[1:-1].split(": ", 1)
            out[name] = value
    return out


# -- objective and target ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Objective:
    name: str
    link: Link
    sigmoid: float = 1.0
    classification: bool = False
    predicts: str | None = None  # what the value is, where a regression's number alone does not tell


def _objective(parsed: _Parsed) -> _Objective:
    line = parsed.header_lines.get("objective")
    if _is_custom(parsed):
        if parsed.per_iteration != 1:
            raise parsed.fail(f"a custom objective with {parsed.per_iteration} trees per iteration is not supported: "
                              f"LightGBM predicts {parsed.per_iteration} raw scores per row, and a treegen regression "
                              "has one; supported: one tree per iteration", line)
        return _Objective(CUSTOM, Link.IDENTITY)
    name, *params = parsed.header["objective"].split(" ")
    if name not in CLASSIFIERS and name not in REGRESSIONS:
        why = f" ({REFUSED_OBJECTIVES[name]})" if name in REFUSED_OBJECTIVES else ""
        raise parsed.fail(f"objective {name[:40]}{why} is not supported; supported: {SUPPORTED_OBJECTIVES}", line)
    if name in REGRESSIONS:
        if parsed.per_iteration != 1:
            raise parsed.fail(f"objective {name} with {parsed.per_iteration} trees per iteration is not "
                              "supported; supported: one", line)
        if _class_count(parsed) != 1:  # (LightGBM predicts num_class columns, all but the first never written)
            raise parsed.fail(f"objective {name} has one output, the file says num_class={_class_count(parsed)}: "
                              "it is damaged", parsed.header_lines["num_class"])
        return _Objective(name, Link.SIGN_SQUARE if name in SQRT_OBJECTIVES and "sqrt" in params
                          else REGRESSIONS[name], predicts=ranking_score(name) if name in RANKINGS else None)
    values = dict(p.split(":", 1) for p in params if ":" in p)
    try:
        sigmoid = c_number(float, values.get("sigmoid", "1")) if name in ("binary", "multiclassova") else 1.0
    except ValueError:
        raise parsed.fail(f"the objective's sigmoid:{values['sigmoid'][:30]} is not a number", line) from None
    expected = 1 if name in ("binary", "cross_entropy") else _class_count(parsed)
    if parsed.per_iteration != expected:
        raise parsed.fail(f"objective {name} needs {expected} trees per iteration, the file says "
                          f"{parsed.per_iteration}", line)
    return _Objective(name, CLASSIFIERS[name], sigmoid, classification=True)


def _is_custom(parsed: _Parsed) -> bool:
    """A custom objective: no ``objective=`` line (``GBDT::SaveModelToString`` writes none without an
    objective function), or one LightGBM reads as none (``ParseObjectiveAlias``, then
    ``ObjectiveFunction::CreateObjectiveFunction``, which makes none of ``custom``)."""
    text = parsed.header.get("objective")
    return text is None or text in CUSTOM_ALIASES or text.split(" ")[0] == CUSTOM


def _class_count(parsed: _Parsed) -> int:
    try:
        return c_number(int, parsed.header["num_class"])
    except ValueError:
        raise parsed.fail(f"num_class={parsed.header['num_class'][:40]} is not an integer",
                          parsed.header_lines["num_class"]) from None


def _target(parsed: _Parsed, objective: _Objective, classes: Sequence | None) -> tuple[Target, dict]:
    """The target, and what meta keeps of a classifier object's original labels."""
    if not objective.classification:
        return Target("y", REGRESSION), {}
    count = 2 if parsed.per_iteration == 1 else parsed.per_iteration
    if classes is None:
        return Target("y", CLASSIFICATION, tuple(str(k) for k in range(count))), {}
    labels = [c.item() if hasattr(c, "item") else c for c in classes]
    names = tuple(str(label) for label in labels)
    if len(names) != count:
        raise parsed.fail(f"the classifier has {len(names)} classes, but its booster predicts {count}")
    if len(set(names)) != len(names):
        raise parsed.fail(f"class labels {labels!r} are not distinct as strings")
    return Target("y", CLASSIFICATION, names), {
        "classes": [label if isinstance(label, (bool, int, float, str)) else str(label) for label in labels],
        "class_type": type(labels[0]).__name__}


# -- features -----------------------------------------------------------------------------------------


def _features(parsed: _Parsed, feature_names: Sequence[str] | None) -> tuple[tuple[Feature, ...], dict]:
    """The features, and for each categorical one the name of each category code (a tuple: code c is
    its c-th entry) or None when the codes are the names (see the module's docstring)."""
    names = _feature_names(parsed, feature_names)
    infos = parsed.header["feature_infos"].split(" ")
    categorical = _categorical_features(parsed, infos)
    named = _pandas_names(parsed)
    missing_types = _missing_types(parsed, names, set(categorical))
    in_splits = _codes_in_splits(parsed)
    features, category_names = [], {}
    for index, name in enumerate(names):
        if index in named:  # numbers: an integral one names its integer's category, as pandas finds it
            features.append(Feature(name, NOMINAL, named[index][0], codes=Codes.INTEGRAL if named[index][1] else None))
            category_names[index] = named[index][0]
        elif index in categorical:
            codes = sorted(_info_codes(infos[index]) | in_splits.get(index, set()))
            features.append(Feature(name, NOMINAL, tuple(str(c) for c in codes), codes=Codes.TRUNCATED))
            category_names[index] = None
        elif missing_types.get(index) == MISSING_ZERO:  # NumericalDecision: IsZero(fval) takes the default side
            features.append(Feature(name, NUMERIC, missing_interval=(-K_ZERO_THRESHOLD, K_ZERO_THRESHOLD)))
        else:
            features.append(Feature(name, NUMERIC))
    return tuple(features), category_names


def _feature_names(parsed: _Parsed, feature_names: Sequence[str] | None) -> list[str]:
    """The given names, else the model's own (:func:`treegen.importers.resolve_feature_names`): those of the frame it
    was fitted on, each space written '_'; LightGBM's Column_0, ... for arrays, which may be named anew."""
    names = parsed.header["feature_names"].split(" ")
    fitted_on_arrays = names == [f"Column_{i}" for i in range(len(names))]
    return resolve_feature_names(feature_names, None if fitted_on_arrays else names, len(names), default=names,
                                 stored_as=stored_name)


def stored_name(name: str) -> str:
    """A column's name as LightGBM stores it in its model (``Dataset.set_feature_names``: a space is written
    '_'; names with JSON's special characters it refuses)."""
    return name.replace(" ", "_")


def renamed_hint(missing: Sequence[str], columns: Sequence[str]) -> str:
    """The end of the message refusing X that lacks the features ``missing`` of a LightGBM model, where X
    has them as the frame the model was fitted on named them (``stored_name`` of one of ``columns``): how to
    import the model with those names; '' where X has none of them."""
    spelt = {stored_name(column): column for column in columns if stored_name(column) != column}
    name = next((name for name in missing if name in spelt), None)
    if name is None:
        return ""
    return (f"; LightGBM stored the names of the columns it was fitted on with each space written '_' "
            f"({spelt[name]!r} as {name!r}): import the model with the frame's own names, "
            "feature_names=X.columns (X: the frame it was fitted on)")


def _categorical_features(parsed: _Parsed, infos: list[str]) -> list[int]:
    """The categorical features, in order: those the training parameters name (``categorical_feature``
    holds their indices), those whose ``feature_infos`` lists categories (``a:b:c``, where a numeric
    feature has ``[min:max]`` and an unused one ``none``), and those a categorical split tests."""
    found = {int(v) for v in parsed.parameters.get("categorical_feature", "").split(",") if v.strip().isdigit()}
    found |= {i for i, info in enumerate(infos) if info != "none" and not info.startswith("[")}
    for tree in parsed.trees:
        for node, feature in enumerate(tree.split_feature):
            if tree.is_categorical(node):
                _check_feature(parsed, tree, node, len(infos))
                found.add(feature)
    return sorted(f for f in found if 0 <= f < len(infos))


def pandas_columns(parsed: _Parsed) -> dict[int, list]:
    """Which features the lists of ``pandas_categorical`` are: feature index -> its list (the training
    categories, code c the c-th), {} when there are none. One pairing for the import and for
    :func:`oracle`.

    The Python package writes one list per column of the training frame that has pandas' category dtype,
    in column order (``python-package/lightgbm/basic.py`` ``_data_from_pandas``), and codes each such
    column by its list before LightGBM sees it -- whether LightGBM then takes the codes as a categorical
    feature (``categorical_feature='auto'`` takes the unordered Categoricals) or as numbers (an ordered
    Categorical, or one that an explicit ``categorical_feature`` leaves out, while it may name an integer
    column instead). The file does not say which columns those were; it says which features are
    categorical, and ``feature_infos`` holds each one's codes and each numeric feature's ``[min:max]``.
    So: the lists are the categorical features in order when they are as many and each one's codes are
    within its list (how every frame trained with ``categorical_feature='auto'`` without an ordered
    Categorical is saved); else the one way the lists fit features in order -- a categorical feature
    whose codes are within the list, a numeric one whose range is of codes of the list, an unused one
    (``none``) -- or, where none or several fit, the model is refused."""
    lists = parsed.pandas_categorical or []
    if not lists:
        return {}
    infos = parsed.header["feature_infos"].split(" ")
    categorical = _categorical_features(parsed, infos)
    in_splits = _codes_in_splits(parsed)

    def fits(values: list, feature: int) -> bool:
        info = infos[feature]
        if feature in categorical:
            return all(code < len(values) for code in _info_codes(info) | in_splits.get(feature, set()))
        if info == "none":
            return True
        try:
            low, high = (float(v) for v in info.strip("[]").split(":"))
        except ValueError:
            return False
        return 0 <= low <= high <= len(values) - 1 and low.is_integer() and high.is_integer()

    if len(lists) == len(categorical) and all(fits(v, f) for v, f in zip(lists, categorical)):
        return dict(zip(categorical, lists))
    # ways[i][j]: how many ways lists i.. fit features j.. in order (counted up to 2: one, or several)
    count, width = len(lists), len(infos)
    ways = [[0] * (width + 1) for _ in range(count)] + [[1] * (width + 1)]
    for i in range(count - 1, -1, -1):
        for j in range(width - 1, -1, -1):
            ways[i][j] = min(2, ways[i][j + 1] + (ways[i + 1][j + 1] if fits(lists[i], j) else 0))
    if ways[0][0] != 1:
        how = "no features fit them" if ways[0][0] == 0 else "they fit several sets of features"
        raise parsed.fail(f"pandas_categorical lists the categories of {count} Categorical column(s) of the training "
                          f"frame, but the model has {len(categorical)} categorical feature(s), and {how} in order, so "
                          "the file does not say which columns they were (categorical_feature naming columns that are "
                          "not Categoricals, or an ordered Categorical); supported: the frame's unordered Categoricals "
                          "as the categorical features (categorical_feature='auto'), or integer codes")
    out, j = {}, 0
    for i, values in enumerate(lists):
        while not (fits(values, j) and ways[i + 1][j + 1]):
            j += 1
        out[j] = values
        j += 1
    return out


def _pandas_names(parsed: _Parsed) -> dict[int, tuple[tuple[str, ...], bool]]:
    """The category names of each feature a list of ``pandas_categorical`` is (:func:`pandas_columns`),
    code c the c-th, ``str`` of each, but for categories that are all numbers (:func:`numbered`), each named
    by its value as HistGradientBoosting's are (7.0 is "7", 1.5 "1.5"); and whether they are numbers."""
    out = {}
    for feature, values in pandas_columns(parsed).items():
        names = tuple(map(category_text if numbered(values) else str, values))
        if len(set(names)) != len(names):
            raise parsed.fail(f"the categories {values[:10]!r} of feature {feature} are not distinct as strings")
        out[feature] = names, numbered(values)
    return out


def numbered(values: Sequence) -> bool:
    """Every category a number (ints and floats; a bool is a category of its own, as a string is): pandas
    finds a number among them by its value, 20.0 as the category 20 (``pd.Categorical``)."""
    return bool(values) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _info_codes(info: str) -> set[int]:
    """The category codes ``feature_infos`` lists for a categorical feature (its bins' categories; -1
    is the bin of NaN, ``src/io/bin.cpp`` ``BinMapper::FindBin``)."""
    if info == "none" or info.startswith("["):
        return set()
    return {int(v) for v in info.split(":") if v.isdigit()}


def _codes_in_splits(parsed: _Parsed) -> dict[int, set[int]]:
    """The codes the categorical splits send left, per feature."""
    codes: dict[int, set[int]] = {}
    for tree in parsed.trees:
        for node, feature in enumerate(tree.split_feature):
            if tree.is_categorical(node):
                codes.setdefault(feature, set()).update(_bitset_codes(parsed, tree, node))
    return codes


def _bitset_codes(parsed: _Parsed, tree: _Tree, node: int) -> list[int]:
    """The codes in a categorical split's bitset: bit ``c % 32`` of word ``c / 32`` (``FindInBitset``)."""
    index, boundaries = tree.threshold[node], tree.cat_boundaries
    if not 0 <= index < len(boundaries) - 1 or index != int(index):
        raise parsed.fail(f"tree {tree.number}, node {node}: categorical threshold {index!r} is not one of its "
                          f"{len(boundaries) - 1} category sets", tree.lines.get("threshold"))
    words = tree.cat_threshold[boundaries[int(index)]:boundaries[int(index) + 1]]
    return [32 * w + bit for w, word in enumerate(words) for bit in range(32) if word >> bit & 1]


def _check_feature(parsed: _Parsed, tree: _Tree, node: int, count: int) -> None:
    if not 0 <= tree.split_feature[node] < count:
        raise parsed.fail(f"tree {tree.number}, node {node}: split_feature {tree.split_feature[node]} is not one "
                          f"of the {count} features", tree.lines.get("split_feature"))


def _check_linear_features(parsed: _Parsed, tree: _Tree, linear: Linear, features: Sequence[Feature],
                           category_names: dict) -> None:
    """A linear model reads numeric features (LightGBM leaves categorical ones out of them,
    ``src/treelearner/linear_tree_learner.cpp``)."""
    for feature, _ in linear.terms:
        if category_names.get(feature) is not None:  # (LightGBM leaves its categorical features out)
            raise parsed.fail(f"tree {tree.number}: its linear model reads the codes of the pandas Categorical "
                              f"{features[feature].name!r}, which LightGBM took as numbers; supported: linear trees "
                              "over numeric features (the Categorical unordered, or its codes as an integer column)",
                              tree.lines.get("leaf_features"))
        if not 0 <= feature < len(features) or not features[feature].is_numeric:
            raise parsed.fail(f"tree {tree.number}: leaf_features names {feature}, which is not one of the "
                              f"{len(features)} features or is categorical", tree.lines.get("leaf_features"))


def _missing_types(parsed: _Parsed, names: list[str], categorical: set[int]) -> dict[int, int]:
    """The missing type of each feature a numeric split tests. A training run gives each feature one
    (its bin mapper's); a model mixing them on one feature is refused, as is a numeric split on a
    categorical feature."""
    seen: dict[int, tuple[int, int, int]] = {}  # feature -> (missing type, tree, node) where first seen
    for tree in parsed.trees:
        for node, (feature, kind) in enumerate(zip(tree.split_feature, tree.decision_type)):
            if kind & CATEGORICAL_BIT:
                continue
            _check_feature(parsed, tree, node, len(names))
            where = tree.lines.get("decision_type")
            if feature in categorical:
                raise parsed.fail(f"tree {tree.number}, node {node}: a numeric split on the categorical feature "
                                  f"{names[feature]!r}", where)
            missing = kind >> 2 & 3
            if missing not in MISSING_TYPE_NAMES:
                raise parsed.fail(f"tree {tree.number}, node {node}: decision_type {kind} has no known missing "
                                  "type", where)
            first = seen.setdefault(feature, (missing, tree.number, node))
            if first[0] != missing:
                raise parsed.fail(f"feature {names[feature]!r} has splits of missing type "
                                  f"{MISSING_TYPE_NAMES[first[0]]} (tree {first[1]}, node {first[2]}) and "
                                  f"{MISSING_TYPE_NAMES[missing]} (tree {tree.number}, node {node}); supported: one "
                                  "missing type per feature, as one training run writes them", where)
    return {feature: missing for feature, (missing, _, _) in seen.items()}


# -- trees --------------------------------------------------------------------------------------------


def _tree(parsed: _Parsed, tree: _Tree, features: Sequence[Feature], category_names: dict, output: int,
          splits: dict) -> Tree:
    """One LightGBM tree as a model tree, its nodes in pre-order. ``splits`` holds the splits made so
    far, shared: LightGBM's thresholds are bin boundaries, so the trees of a big model test the same
    few splits again and again."""
    linear = tree.linear or [None] * tree.num_leaves
    for model in tree.linear or []:
        _check_linear_features(parsed, tree, model, features, category_names)
    if tree.num_leaves == 1:  # Tree::Predict: leaf_value[0], or leaf 0's linear model
        return Tree([Node((tree.leaf_value[0],), n=tree.leaf_count[0], linear=linear[0])], output)
    order = _preorder(parsed, tree)
    position = {ref: i for i, ref in enumerate(order)}
    left, right, values, counts = tree.left_child, tree.right_child, tree.internal_value, tree.internal_count
    nodes = []
    for ref in order:
        if ref < 0:
            nodes.append(Node((tree.leaf_value[~ref],), n=tree.leaf_count[~ref], linear=linear[~ref]))
            continue
        # numeric splits only (a categorical one's threshold indexes its tree's sets), and not at 0.0,
        # which as a key would stand for -0.0 too
        key = (tree.split_feature[ref], tree.threshold[ref], tree.decision_type[ref])
        shared = not tree.is_categorical(ref) and key[1] != 0.0
        split = splits.get(key) if shared else None
        if split is None:
            split = _split(parsed, tree, ref, features, category_names)
            if shared:
                splits[key] = split
        nodes.append(Node((values[ref],), n=counts[ref], split=split,
                          children=(position[left[ref]], position[right[ref]])))
    return Tree(nodes, output)


def _preorder(parsed: _Parsed, tree: _Tree) -> list[int]:
    """Node references (internal i >= 0, leaf ~j < 0) from the root, node 0: parents first, left
    before right, each node once -- or the tree is damaged."""
    internal, left, right = tree.num_leaves - 1, tree.left_child, tree.right_child
    size = 2 * tree.num_leaves - 1
    order, stack = [], [0]
    while stack and len(order) <= size:  # a cycle would go on forever
        ref = stack.pop()
        order.append(ref)
        if 0 <= ref < internal:
            stack.append(right[ref])
            stack.append(left[ref])
    if len(order) != size or len(set(order)) != size or not -tree.num_leaves <= min(order) <= max(order) < internal:
        raise parsed.fail(f"tree {tree.number}: its nodes do not form one tree from node 0 (left_child, right_child): "
                          "the tree is damaged", tree.lines.get("left_child"))
    return order


def _split(parsed: _Parsed, tree: _Tree, node: int, features: Sequence[Feature], category_names: dict) -> Split:
    feature, kind = tree.split_feature[node], tree.decision_type[node]
    if kind & CATEGORICAL_BIT:  # CategoricalDecision: in the set -> left; NaN, negative, not in it -> right
        codes, names = _bitset_codes(parsed, tree, node), category_names[feature]
        values = [str(c) for c in codes] if names is None else [names[c] for c in codes if c < len(names)]
        return Split(feature, Op.IN, values=tuple(values), missing=TO_CHILD[1])
    threshold, missing = tree.threshold[node], kind >> 2 & 3
    if missing == MISSING_NONE:  # NumericalDecision: NaN is compared as 0.0
        route = TO_CHILD[0 if 0.0 <= threshold else 1]
    else:  # Zero (with the feature's missing interval) and NaN: the default side
        route = TO_CHILD[0 if kind & DEFAULT_LEFT_BIT else 1]
    if not features[feature].is_numeric:  # a Categorical's codes taken as numbers (pandas_columns)
        return _coded_split(feature, category_names[feature], threshold, missing, route)
    return Split(feature, Op.LE, threshold=threshold, missing=route)


def _coded_split(feature: int, names: tuple[str, ...], threshold: float, missing: int, route: MissingRoute) -> Split:
    """A numeric split on a pandas Categorical that LightGBM read as its codes: the categories whose code
    goes left, ``code <= threshold`` (``NumericalDecision``), but that of code 0, which the zero band sends
    to the default side where the missing type is Zero; a missing value and a category not in the list,
    which pandas codes NaN, take ``route``."""
    left = [c for c in range(len(names)) if c <= threshold]
    if missing == MISSING_ZERO:
        left = [c for c in left if c != 0] + ([0] if route == TO_CHILD[0] else [])
    return Split(feature, Op.IN, values=tuple(names[c] for c in sorted(left)), missing=route)


# -- the library's own predictions -----------------------------------------------------------------


def oracle(source, model: Model, rows: Sequence[Mapping[str, Any]]) -> list[tuple]:
    """LightGBM's own predictions for ``rows`` (dicts by feature name) from the file at ``source`` (or the
    Booster or fitted scikit-learn wrapper itself):
    ``(label or value, scores)`` per row, as :meth:`Model.predict` and :meth:`Model.scores` give them
    (the label: numpy's argmax of the probabilities, as ``LGBMClassifier.predict`` takes it).

    Numbers go to ``Booster.predict`` as doubles, missing values as NaN. A category of a model with
    ``pandas_categorical`` goes in a pandas Categorical of the training categories, as the Python
    package codes a frame (an unknown one is NaN there); a category code goes as the number it is or
    its text reads as (:func:`treegen.model.code_number`), NaN when it is none, so that LightGBM
    truncates 2.7 and "2.7" to 2 as it does.
    """
    import lightgbm  # verify says how to install it where it is not (treegen.packages.package_hint)
    path = file_of(source)
    booster = lightgbm.Booster(model_file=path) if path is not None else _booster_and_classes(source)[0]
    text = read_text(path, "the LightGBM model file") if path is not None else booster.model_to_string()
    paired = pandas_columns(_Text(text, path).parse())  # the Categorical columns: the import's pairing
    if len(paired) != len(booster.pandas_categorical or []):
        raise TreegenError("the booster's pandas_categorical is not its text's", path)
    columns = []
    for index, feature in enumerate(model.features):
        values = [row.get(feature.name) for row in rows]
        if index in paired:
            import pandas as pd
            columns.append(pd.Categorical(_originals(feature, paired[index], values), categories=paired[index]))
        elif feature.is_numeric:
            columns.append([math.nan if v is None else float(v) for v in values])
        else:
            columns.append([code_or(v, math.nan) for v in values])
    if paired:
        import pandas as pd
        data = pd.DataFrame({f"f{i}": column for i, column in enumerate(columns)})
    else:
        import numpy as np
        data = np.array(columns, dtype=np.float64).T.reshape(len(rows), len(columns))
    return [_as_answer(model, p) for p in booster.predict(data).tolist()]


def _originals(feature: Feature, originals: list, values: list) -> list:
    """Each value as a pandas Categorical of the training categories ``originals`` holds it, None where it
    holds none (missing, or unknown: pandas codes it NaN): among numbers (:func:`numbered`), the one equal to
    the number the value is or its text reads as (pandas matches by value: 20.0 and "20.0" are 20, "1.50"
    is 1.5, as a frame read from CSV has them); else the one named by the value's text."""
    if numbered(originals):
        by_value = {float(v): v for v in reversed(originals)}
        return [None if v is None or (number := code_number(v)) is None else by_value.get(number) for v in values]
    lookup = dict(zip(feature.categories, originals))
    return [None if v is None else lookup.get(str(v)) for v in values]


def _as_answer(model: Model, prediction) -> tuple:
    import numpy as np
    if not model.target.is_classification:
        return prediction, [prediction]
    scores = prediction if isinstance(prediction, list) else [1.0 - prediction, prediction]
    return model.target.classes[int(np.argmax(scores))], scores  # numpy's: the first NaN wins
