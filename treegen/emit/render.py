"""Jinja for the back ends: each target's templates live in ``treegen/templates/<folder>/`` inside the
package, so an installed wheel and a source checkout find them the same way."""
from __future__ import annotations

from functools import lru_cache

import jinja2


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
    text = source(folder, template)
    for old, new in replacements:
        if text.count(old) != 1:
            raise AssertionError(f"templates/{folder}/{template}: {old!r} occurs {text.count(old)} times, not once")
        text = text.replace(old, new)
    return text
