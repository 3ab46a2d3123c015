#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run all of it.
# Real engines only: javac/java, SQLite, DuckDB, a throwaway PostgreSQL server (started by the tests
# themselves, as the `postgres` user when run as root) and Spark SQL in local mode.
set -euo pipefail
cd "$(dirname "$0")/.."

bash .ci/engines.sh                      # system packages: JDK, PostgreSQL binaries, Graphviz
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
exec .venv/bin/python -m pytest -q -p no:cacheprovider "$@"
