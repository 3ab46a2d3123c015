#!/bin/sh
# treegen needs Python 3.11 or later (pyproject.toml's requires-python): one line, before any virtualenv is made.
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {
    echo "treegen needs Python 3.11 or later; python3 here is $(python3 -V 2>&1) (README.md says how)" >&2; exit 2; }
