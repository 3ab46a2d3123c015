"""Back ends: a model becomes program text through Jinja templates (``templates/<target>/``) and one
small module of per-target helpers (``treegen/emit/<target>.py``), each exposing
``emit(model, **options) -> str``. Back ends read the model and its rules, never the learners."""
from __future__ import annotations

import importlib
import inspect
import os
from functools import lru_cache

import jinja2

from ..errors import TreegenError
from ..model import Model, model_problem

TARGETS = ("python", "java", "sql", "rules", "dot")


def emit(model: Model, to: str, **options) -> str:
    """Generate the text of one target. Options a target does not take are an error."""
    options = check_options(to, options)
    problem = model_problem(model)  # models built in memory skip the JSON reader's checks
    if problem:
        raise TreegenError(f"the model cannot be compiled: {problem}")
    return importlib.import_module(f"{__name__}.{to}").emit(model, **options)


def check_options(to: str, options: dict, shown: dict | None = None) -> dict:
    """The options given (not None), once the target is known and its ``emit`` takes each of them
    (its signature says what it takes). ``shown``: how the user spelled a parameter, when otherwise."""
    if to not in TARGETS:
        raise TreegenError(f"unknown target {to!r}; choose one of {', '.join(TARGETS)}")
    given = {k: v for k, v in options.items() if v is not None}
    taken = inspect.signature(importlib.import_module(f"{__name__}.{to}").emit).parameters
    refused = sorted((shown or {}).get(k, k) for k in given if k not in taken or k == "model")
    if refused:
        raise TreegenError(f"the {to} target takes no option {', '.join(refused)}")
    return given


def templates_dir() -> str:
    """Installed wheels carry the templates inside the package; a source checkout has them at top level."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for candidate in (os.path.join(here, "templates"), os.path.join(os.path.dirname(here), "templates")):
        if os.path.isdir(candidate):
            return candidate
    raise RuntimeError("treegen's templates are missing from this installation")


@lru_cache(maxsize=None)
def environment(target: str) -> jinja2.Environment:
    """A Jinja environment for one target's templates. Filters are added by the target's module."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(os.path.join(templates_dir(), target)),
        autoescape=False, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
        undefined=jinja2.StrictUndefined)


def render(target: str, template: str, filters: dict | None = None, **context) -> str:
    env = environment(target)
    env.filters.update(filters or {})
    return env.get_template(template).render(**context)
