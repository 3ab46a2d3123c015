"""Jinja for the back ends: each target's templates live in ``treegen/templates/<folder>/`` inside the
package, so an installed wheel and a source checkout find them the same way."""
from __future__ import annotations

from functools import lru_cache

import jinja2

from ..model import Codes, Model, codes_float32, scores_nan

CODE_RULES = {None: 0, Codes.INTEGRAL: 1, Codes.TRUNCATED: 2, Codes.NONNEGATIVE: 3}  # codes.<folder>.txt's numbers


@lru_cache(maxsize=None)
def environment(folder: str) -> jinja2.Environment:
    """A Jinja environment for one template folder. Filters are added by the target's module."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("treegen", f"templates/{folder}"),
        autoescape=False, keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
        undefined=jinja2.StrictUndefined)


def render(folder: str, template: str, filters: dict | None = None, **context) -> str:
    env = environment(folder)
    env.filters.update(filters or {})
    return env.get_template(template).render(**context)


def source(folder: str, template: str) -> str:
    """The text of a template, as written."""
    env = environment(folder)
    return env.loader.get_source(env, template)[0]


def source_with(folder: str, template: str, replacements: tuple[tuple[str, str], ...]) -> str:
    """The text of a template with each ``(old, new)`` of ``replacements`` made, where ``old`` occurs
    exactly once (else the template and its emitter have drifted apart: an error, not a silent skip)."""
    return replaced(source(folder, template), replacements, f"templates/{folder}/{template}")


def replaced(text: str, replacements: tuple[tuple[str, str], ...], where: str) -> str:
    """``text`` with each ``(old, new)`` of ``replacements`` made, where ``old`` occurs exactly once (``where``
    names the text in the error)."""
    for old, new in replacements:
        if text.count(old) != 1:
            raise AssertionError(f"{where}: {old!r} occurs {text.count(old)} times, not once")
        text = text.replace(old, new)
    return text


def runtime_with_codes(model: Model, folder: str, lookups: tuple[tuple[str, str], ...],
                       nan_argmax: tuple[tuple[str, str], ...] = ()) -> dict:
    """A target's fixed runtime (``runtime.<folder>.txt``) as the model needs it. For a model with a feature
    of integer codes (``Feature.codes``) also what reads them: the runtime's look-ups of a category made to
    call ``codes.<folder>.txt`` on a miss (``lookups``), each feature's rule by number (:data:`CODE_RULES`)
    and whether numbers are read as float32. For a model whose scores can be NaN
    (:func:`treegen.model.scores_nan`), what labels by numpy's argmax, the first NaN (``nan_argmax``).
    Otherwise the runtime is as written."""
    rules = [CODE_RULES[f.codes] for f in model.features]
    replacements = (lookups if any(rules) else ()) + (nan_argmax if scores_nan(model) else ())
    runtime = source_with(folder, f"runtime.{folder}.txt", replacements)
    if not any(rules):
        return {"runtime": runtime, "code_rules": None}
    return {"runtime": runtime, "code_rules": rules,
            "codes_float32": codes_float32(model), "codes_runtime": source(folder, f"codes.{folder}.txt")}
