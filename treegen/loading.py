"""Reading a model from a file: treegen's JSON model, or the rule text that `export --to rules` writes.
Loading reads data, never code."""
from __future__ import annotations

import sys

from . import modelio
from .errors import read_text
from .model import Model
from .parse.rule_text import parse


def load_model(path: str) -> Model:
    """A model from JSON (a file named .json, or text starting with '{' or '['), else from rule text.
    '-' is stdin."""
    text = sys.stdin.read() if path == "-" else read_text(path, "model")
    is_json = path.lower().endswith(".json") or text.lstrip()[:1] in ("{", "[")
    return modelio.loads(text, path) if is_json else parse(text, path)
