"""Reading a model from a file: treegen's JSON model, the rule text that `export --to rules` writes, or a
library's model file that an importer recognises. Loading reads data, never code (a pickle is refused)."""
from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from .errors import NotAModel, NotUtf8, TreegenError, read_text
from .importers import IMPORTERS, file_head, from_object, import_file, importer_of, library_file

if TYPE_CHECKING:
    from .model import Model

NEITHER = 'neither a treegen model (JSON) nor rule text (a file of rule text begins with "treegen rules, format 1")'


def load_model(path: str | os.PathLike, **options) -> Model:
    """A model from JSON (a file named .json, or text starting with '{' or '['), else from rule text;
    or a library's own model file that an importer recognises, imported as `treegen import FILE` would,
    with ``options`` (the library's own, e.g. CatBoost's ``categories``; None: not given; ignored for a
    treegen model). '-' is stdin. A file that is none of these (prose, CSV, binary) is refused as
    such: it is not read as a rule file with a mistake on its first line."""
    path = os.fspath(path)
    kind = None if path == "-" else library_file(path)
    if kind == "model":
        return import_file(path, **options)
    if kind == "pickle":
        said = "a pickle or joblib file, whose loading runs code stored in it: if it is trusted, "
        raise TreegenError(said + "treegen.import_model(path, trust=True) reads it", path,
                           command_line=said + "`treegen import --trust FILE -o model.json` reads it")
    text = _read(path)  # '-' too: a byte order mark, UTF-16 or a byte that is not UTF-8 are told as a file's
    if not text.strip():  # (a model.json that a failed run left empty said "invalid JSON: Expecting value")
        raise TreegenError(f"an empty file: {NEITHER}", path)
    if path.lower().endswith(".json") or text.lstrip()[:1] in ("{", "["):
        from . import modelio
        return modelio.loads(text, path)
    if not _starts_like_rule_text(text):
        raise TreegenError(NEITHER, path)
    from .parse.rule_text import parse  # (for rule text only; Lark for text not in the writer's layout)
    return parse(text, path)


def as_model(given) -> Model:
    """The model that the Python API's ``model`` argument stands for: a :class:`~treegen.model.Model` as it
    is; a path (str or os.PathLike), loaded as :func:`load_model` loads it; a fitted treegen estimator's
    ``model_``; a fitted model of a library that an importer converts, converted as ``treegen.from_model``
    converts it."""
    from .model import Model
    if isinstance(given, Model):
        return given
    if isinstance(given, (str, os.PathLike)):
        return load_model(os.fspath(given))
    estimators = sys.modules.get("treegen.estimator")  # loaded by whoever made an estimator (it imports sklearn)
    if estimators is not None and isinstance(given, estimators._TreeEstimator):
        return given.fitted_model()
    if importer_of(given) is not None:
        return from_object(given)
    raise NotAModel(f"expected a model: a treegen Model (treegen.train, treegen.load), a model file's path, a "
                    f"fitted treegen estimator, or a fitted model of a library treegen imports "
                    f"({', '.join(IMPORTERS)}); got {type(given).__name__}")


def is_model_file(path: str) -> bool:
    """Whether a file that may be data or a model is one that :func:`load_model` reads: a file named .csv
    or .arff is data; else a library's model file or a pickle, a file named .json, or one whose text
    begins as JSON or rule text does. A file that cannot be read is neither (its reader says why)."""
    if path == "-" or path.lower().endswith((".csv", ".arff")):
        return False
    if library_file(path) is not None or path.lower().endswith(".json"):
        return True
    try:
        text = file_head(path).decode("utf-8-sig", errors="replace")
    except TreegenError:
        return False
    return text.lstrip()[:1] in ("{", "[") or _starts_like_rule_text(text)


def refuse_model_as_rule_text(path: str) -> None:
    """`treegen parse` reads rule text only: a model file given to it (treegen's JSON, a library's, a pickle) is
    named as one, where the grammar said "unexpected '{'" at 1:1 and a binary file was told to convert its
    encoding with iconv."""
    if path == "-" or not is_model_file(path):
        return
    if _starts_like_rule_text(file_head(path).decode("utf-8-sig", errors="replace")):
        return  # (rule text in a file named .json)
    if library_file(path) == "pickle":
        raise TreegenError("a pickle or joblib file, not rule text: if it is trusted, `treegen import --trust FILE "
                           "-o model.json` reads it", path, 1)
    raise TreegenError("begins as a model file, not as rule text (which `treegen export --to rules` writes): "
                       "export, predict and show take a model file as it is", path, 1)


def _read(path: str) -> str:
    try:
        return read_text(path, "model")
    except NotUtf8 as err:
        # text, named a model, or rule text up to a byte that is not UTF-8: how to convert it, and the byte's line
        if err.encoding is not None or path.lower().endswith(".json") or _starts_like_rule_text(err.before):
            raise
        raise TreegenError(f"{NEITHER}: it is not UTF-8 text", path, err.line) from None


def _starts_like_rule_text(text: str) -> bool:
    """Whether the first line that is not blank or a comment starts with the word `treegen` (a rule
    file with a mistake in its first statement is still rule text: the grammar then says what)."""
    for line in text.split("\n"):
        statement = line.strip(" \t\r")
        if statement and not statement.startswith("#"):
            return statement.startswith("treegen")
    return False
