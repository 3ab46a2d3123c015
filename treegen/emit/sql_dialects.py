"""Moved to :mod:`treegen.emit.sql.dialects`; kept only while ``treegen.cli`` imports DIALECTS from
here (then delete this file)."""
from .sql.dialects import DIALECTS, Dialect, find_dialect  # noqa: F401
