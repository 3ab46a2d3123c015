"""Front ends for models trained elsewhere, one row per library in :data:`IMPORTERS`.

:func:`import_file` recognises a file by its first bytes (never by running it) and hands it to the
library's reader; :func:`from_object` converts a model in memory by the module its type comes from.
Adding an importer is a module here and a row below (CONTRIBUTING.md)."""
from __future__ import annotations

import importlib
import json
import os
import re
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Callable, Sequence

from ..errors import BadArgument, NotAModel, TreegenError, with_article
from ..packages import pip_name

if TYPE_CHECKING:
    from ..model import Model, Tolerance

HEAD_BYTES = 4096  # what is read of a file to recognise it


@dataclass(frozen=True)
class Importer:
    """One library whose models treegen reads. Its functions are in its module of this package, named
    here and imported when first used: reading a treegen model, or any help, loads no importer."""

    library: str  # as its users name it
    extra: str  # treegen's extra that brings what reading needs (`pip install '.[EXTRA]'` in its folder)
    files: str  # the files it reads, as messages name them
    # Its module here, with recognises(path, the file's first bytes) -> is it this library's file, and
    # (if it has one; else `oracle` is None) oracle(source, model, rows) -> the library's own (label or
    # value, scores) for each row (a dict by feature name, as treegen.model.Model.predict takes it), or
    # Refused for a row its predict will not take: `treegen verify --against`. Its source is the model file's
    # path, or the library's fitted object itself (treegen.verify's against=; :func:`file_of` tells which).
    module: str
    reader: str  # the module's read(path, feature_names=None) -> the model
    modules: tuple[str, ...]  # the top-level modules of the objects it converts
    converter: str  # the module's convert(model object, feature_names=None) -> the model
    options: tuple[str, ...] = ()  # the keyword options read and convert take besides feature_names
    # Where the library's own predict cannot be reproduced bit for bit, the module says so with
    # tolerance(source, model) -> Tolerance or None (bit for bit); without one, every model is bit for bit.

    def loaded(self) -> ModuleType:
        return importlib.import_module(f".{self.module}", __name__)

    @property
    def recognises(self) -> Callable[[str, bytes], bool]:
        return self.loaded().recognises

    @property
    def read(self) -> Callable[..., Model]:
        return getattr(self.loaded(), self.reader)

    @property
    def convert(self) -> Callable[..., Model]:
        return getattr(self.loaded(), self.converter)

    @property
    def oracle(self) -> Callable[..., list] | None:
        return getattr(self.loaded(), "oracle", None)

    def tolerance(self, source, model: Model) -> Tolerance | None:
        """How far the library's own answers for ``model`` (read from ``source``, a file or the object) may be
        from the model's, and why; None: bit for bit."""
        declared = getattr(self.loaded(), "tolerance", None)
        return None if declared is None else declared(source, model)


@dataclass(frozen=True)
class Refused:
    """An oracle's answer for a row the library's own predict will not take: `verify --against` leaves
    it out, and its line says how many and ``why``."""

    why: str  # what in the row the library refuses, as its line says it


IMPORTERS = {importer.library: importer for importer in (
    Importer("scikit-learn", "sklearn", "a .skops file (skops.io.dump)", "sklearn", "read_skops", ("sklearn",),
             "from_sklearn"),
    Importer("XGBoost", "xgboost", "a .json or .ubj file (Booster.save_model)", "xgboost", "read_xgboost",
             ("xgboost",), "from_xgboost", ("missing", "use_best_iteration")),
    Importer("LightGBM", "lightgbm", "a LightGBM model.txt (Booster.save_model)", "lightgbm", "read_model_file",
             ("lightgbm",), "from_lightgbm"),
    Importer("CatBoost", "catboost", "a CatBoost JSON file (save_model(path, format='json')) or .cbm file "
             "(save_model(path); read with catboost installed)", "catboost", "read_model_file", ("catboost",),
             "from_catboost", ("categories",)),
)}


def code_or(value, default: float) -> float:
    """A category code as an oracle gives it to its library: the number the value is or its text reads as
    by treegen's own grammar (:func:`treegen.model.code_number`: ASCII digits, no '_'), else ``default`` --
    not float(), which reads '1_0' and other scripts' digits that the model takes for no number."""
    from ..model import code_number
    number = None if value is None else code_number(value)
    return default if number is None else number


def library_meta(module: str, algorithm: str, version: str | None, objective: str | None, own: dict,
                 predicts: str | None = None) -> dict:
    """A model's meta as every importer writes it: the ``algorithm``; ``library``, named as
    :data:`IMPORTERS` and `verify --against` name it; the ``library_version`` and ``objective`` as the
    file or object says them (left out where it says none); what the predicted number is where a value
    alone does not tell (``predicts``: a ranking score, a hazard ratio; `treegen show` says it); and under
    the importer's module name (``meta["xgboost"]``, ...) what else it keeps, by which
    :func:`treegen.verifier.source_library` knows the library. No ``source``: in a trained model's meta
    that is the data file (`treegen train`), not a library."""
    library = next(importer.library for importer in IMPORTERS.values() if importer.module == module)
    meta = {"algorithm": algorithm, "library": library, "library_version": version, "objective": objective,
            "predicts": predicts}
    return {**{key: value for key, value in meta.items() if value is not None}, module: own}


def c_number(kind, text: str):
    """``kind(text)`` (int or float) where the libraries' C++ readers read the same number: Python reads digits grouped
    with '_' and digits of other scripts too, which LightGBM and XGBoost stop at ('1_5' is their 1, Python's 15) or
    refuse: a ValueError for those."""
    if "_" in text or not text.isascii():
        raise ValueError(f"not a number as the library reads one: {text!r}")
    return kind(text)


def release(version: str) -> tuple[int, ...]:
    """A library version's numbers: "3.2.0" is (3, 2, 0), "3.1.0rc1" (3, 1, 0)."""
    return tuple(int(part) for part in re.findall(r"\d+", version)[:3])


def ranking_score(objective: str) -> str:
    """What a ranking model predicts (meta's ``predicts``): the libraries' predict gives the trees' sum, a
    number only to order rows by."""
    return (f"a ranking score ({objective}): the trees' sum, by which to order the rows of one query, highest "
            "first; not a probability nor a relevance grade")


def resolve_feature_names(given: Sequence[str] | None, own: Sequence[str] | None, count: int,
                  default: Sequence[str] | None = None, stored_as: Callable[[str], str] = str) -> list[str]:
    """The names of a model's ``count`` features, one rule for every importer: ``given`` (``feature_names=``,
    ``--feature-names``), else the model's ``own``, else ``default``, else x0, x1, ...

    ``own`` are the names the library stored from the data the model was fitted on (a DataFrame's columns,
    a DMatrix's feature_names): None where it stored none, or only its own defaults for a model fitted on
    arrays (``default``: LightGBM's Column_0, ...), which may be named anew. Where the model has its own,
    given names must be those, in that order, as the library writes them (``stored_as``: LightGBM writes a
    name's spaces as '_', so a frame's 'mean radius' gives 'mean_radius' back): the library reads a row
    by position, and names in another order, or others, would read each column as another feature."""
    own = [str(n) for n in own] if own is not None else []  # (scikit-learn's is an array)
    if given is None:
        names = own or [str(n) for n in default or [f"x{i}" for i in range(count)]]
    else:
        names = list(given)
        if not all(isinstance(n, str) for n in names):
            raise BadArgument("feature names must be strings")
    if len(names) != count:
        raise BadArgument(f"{len(names)} feature names given, but the model takes {count} features")
    if len(set(names)) != len(names):
        raise BadArgument(f"feature name {next(n for n in names if names.count(n) > 1)!r} is given twice")
    if given is not None and own:
        _check_own_names(names, own, stored_as)
    return names


def _check_own_names(names: list[str], own: list[str], stored_as: Callable[[str], str]) -> None:
    """Refuse given ``names`` that are not the model's ``own`` in their order, saying which they are: the
    same in another order, or others."""
    stored = [stored_as(name) for name in names]
    if stored == own:
        return
    which = "the model's own feature names in another order" if sorted(stored) == sorted(own) else \
        "other names than the model's own"
    i = next(i for i, (name, its) in enumerate(zip(stored, own)) if name != its)
    said = (f"gives {which} ({names[i]!r} for its feature {i}, {own[i]!r}): the model keeps the names of the "
            "columns it was fitted on and reads a row by them")
    raise BadArgument(f"feature_names {said}; leave feature_names out and name X's columns as the model does "
                       "(feature_names names the features of a model fitted on arrays, which keeps none)",
                       command_line=f"--feature-names {said}; leave --feature-names out and name the data's columns "
                       "as the model does (--feature-names names the features of a model fitted on arrays, which "
                       "keeps none)")


def renamed_hint(model: Model, missing: Sequence[str], columns: Sequence[str]) -> str:
    """The end of a message refusing X, a table that lacks the features ``missing`` of an imported ``model``,
    where its library stored the names of the columns it was fitted on renamed and X has them as they were
    (the module's ``renamed_hint``: LightGBM's 'mean radius' is 'mean_radius'); '' where none did."""
    importer = IMPORTERS.get(model.meta.get("library"))
    hint = getattr(importer.loaded(), "renamed_hint", None) if importer is not None else None
    return hint(missing, columns) if hint is not None else ""


def from_object(model_object, feature_names: Sequence[str] | None = None, **options) -> Model:
    """A treegen model from a fitted model of any supported library; ``options`` are the library's own
    (:attr:`Importer.options`), None meaning not given."""
    importer = importer_of(model_object)
    if importer is not None:
        return importer.convert(model_object, feature_names=feature_names, **_options(importer, options))
    raise NotAModel(f"cannot import {with_article(type(model_object).__name__)} "
                    f"(from {_module_of(model_object)}); supported libraries: {', '.join(IMPORTERS)}")


def importer_of(model_object) -> Importer | None:
    """The importer of the library a model object's type comes from (by its module), or None."""
    return next((i for i in IMPORTERS.values() if _module_of(model_object) in i.modules), None)


def _module_of(model_object) -> str:
    return type(model_object).__module__.split(".")[0]


def file_of(source) -> str | None:
    """Where an oracle's or a tolerance's ``source`` comes from: the model file's path, or None for the library's
    model object itself (`treegen.verify(..., against=booster)`), which an error names no file for."""
    return os.fspath(source) if isinstance(source, (str, os.PathLike)) else None


def import_file(path: str, feature_names: Sequence[str] | None = None, trust: bool = False, **options) -> Model:
    """A treegen model from a model file of any supported library.

    Parameters
    ----------
    path : the file.
    feature_names : the input columns' names, when the file has none (default: the file's own, else
        x0, x1, ...; the file's own may only be repeated: :func:`resolve_feature_names`).
    trust : allow a pickle or joblib file, whose loading runs code stored in it.
    options : settings of the file's library (:attr:`Importer.options`, e.g. XGBoost's ``missing``);
        None means not given.
    """
    head = file_head(path)
    if _is_treegen_model(head):
        raise TreegenError("this is already a treegen model: give it to export, verify or predict as it is", path)
    try:  # a converter's error knows the object it was given (a LogisticRegression), not the file
        for importer in IMPORTERS.values():
            if importer.recognises(path, head):
                return importer.read(path, feature_names=feature_names, **_options(importer, options, path))
        if _is_pickle(head):
            if not trust:
                raise TreegenError(_untrusted("trust=True"), path, command_line=_untrusted("--trust"))
            return from_object(_unpickle(path), feature_names=feature_names, **options)
    except TreegenError as err:
        raise err.at(path)
    expected = f"{_looks_like(head)}, not a model file treegen reads; expected " + "; ".join(
        f"{i.library}: {i.files}" for i in IMPORTERS.values()) + "; or a pickle/joblib file with "
    raise TreegenError(expected + "trust=True", path, command_line=expected + "--trust")


def _untrusted(trust: str) -> str:
    """The message refusing a pickle or joblib file not trusted, ``trust`` the argument that trusts it."""
    return (f"loading a pickle or joblib file runs code stored in it; pass {trust} if the file is trusted, or save "
            "the model in its library's own format (scikit-learn: skops.io.dump; XGBoost, LightGBM, CatBoost: "
            "save_model), which treegen reads as data")


def library_file(path: str) -> str | None:
    """What ``path`` is, if not a treegen model: "model", a model file of a library that an importer
    reads; "pickle", a pickle or joblib file (loading one runs code: only `treegen import --trust`
    does); None, neither (or unreadable: the loader that reads it says what is wrong)."""
    try:
        head = file_head(path)
    except TreegenError:
        return None
    if _is_treegen_model(head):
        return None
    if any(i.recognises(path, head) for i in IMPORTERS.values()):
        return "model"
    return "pickle" if _is_pickle(head) else None


def _options(importer: Importer, options: dict, path: str | None = None) -> dict:
    """The options given (not None), which must be ones the importer takes."""
    given = {name: value for name, value in options.items() if value is not None}
    foreign = [name for name in given if name not in importer.options]
    if foreign:
        name = foreign[0]
        raise BadArgument(f"the option {name!r} does not apply to {importer.library} models"
                           + (f"; it takes {', '.join(importer.options)}" if importer.options else ""), path,
                           command_line=f"{_typed(name, given[name])} does not apply to {importer.library} models")
    return given


def _typed(name: str, value) -> str:
    """The command-line option that gave the keyword option ``name`` its ``value`` (the CLI's user typed
    that, not the keyword)."""
    if name == "use_best_iteration":
        return "--best-iteration" if value else "--every-round"
    return "--" + name.replace("_", "-")


def file_head(path: str) -> bytes:
    """The first bytes of a model file, from which importers recognise it."""
    if not os.path.isfile(path):
        raise TreegenError("no such model file", path)
    try:
        with open(path, "rb") as f:
            return f.read(HEAD_BYTES)
    except OSError as err:
        raise TreegenError(f"cannot read the model file: {err.strerror}", path) from None


# Pickle protocols 2 and later start with PROTO; joblib may compress the pickle (zlib, gzip, bz2,
# xz, lzma or lz4 framing).
PICKLE_STARTS = (b"\x80", b"\x78\x01", b"\x78\x5e", b"\x78\x9c", b"\x78\xda", b"\x1f\x8b", b"BZh",
                 b"\xfd7zXZ\x00", b"\x5d\x00\x00", b"\x04\x22\x4d\x18")


def _is_pickle(head: bytes) -> bool:
    return head.startswith(PICKLE_STARTS)


def _is_treegen_model(head: bytes) -> bool:
    return b'"format"' in head and b'"treegen-model"' in head


def _unpickle(path: str):
    """The object a trusted pickle or joblib file holds; a failure is a bad file, named as such."""
    try:
        import joblib
        return joblib.load(path)
    except ImportError:
        import pickle
        try:
            with open(path, "rb") as f:
                return pickle.load(f)
        except Exception as err:
            raise TreegenError(_unpickling_failed(err), path) from None
    except Exception as err:  # a damaged file, or one that needs a module this Python lacks
        raise TreegenError(_unpickling_failed(err), path) from None


def _unpickling_failed(err: Exception) -> str:
    if isinstance(err, ModuleNotFoundError) and err.name:
        module = err.name.split(".")[0]
        importer = next((i for i in IMPORTERS.values() if module in i.modules), None)
        if importer is None:
            return f"cannot load the pickle: it needs the Python package {module!r}"
        return (f"cannot load the pickle: it needs {importer.library} (the Python package {module!r}): pip install "
                f"{pip_name(module)} (treegen's [{importer.extra}] extra)")
    return "cannot load the pickle: the file is damaged, or was not written by pickle or joblib"


def _looks_like(head: bytes) -> str:
    """What a file that no importer reads seems to be, for the message."""
    if not head.strip():
        return "an empty file"
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return "binary data"
    if any(c < " " and c not in "\t\r\n" for c in text):
        return "binary data"
    if text.lstrip().startswith("{"):
        try:
            keys = list(json.loads(text))[:5] if len(head) < HEAD_BYTES else None
        except ValueError:
            keys = None
        return f"JSON (keys: {', '.join(keys)})" if keys else "JSON"
    first = text.splitlines()[0] if text.splitlines() else ""
    return f"text (first line: {first[:40]!r})"
