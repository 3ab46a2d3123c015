#!/usr/bin/env bash
# Set up everything the test suite needs on a fresh machine, then run all of it.
# Real engines only: javac/java, SQLite, DuckDB, throwaway PostgreSQL and MariaDB servers (started by
# the tests themselves; PostgreSQL as the `postgres` user when run as root) and Spark SQL in local mode.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages: a JDK for the generated Java, Node and Chromium for the JavaScript, gcc and clang
# (and a German locale to build) for the C, Graphviz for diagrams, then the SQL engines' needs.
need=""
command -v javac >/dev/null 2>&1 || need="$need default-jdk-headless"
command -v dot >/dev/null 2>&1 || need="$need graphviz"
command -v node >/dev/null 2>&1 || need="$need nodejs"        # the generated JavaScript
command -v gcc >/dev/null 2>&1 || need="$need gcc libc6-dev"   # the generated C, with both compilers
command -v clang >/dev/null 2>&1 || need="$need clang"
test -e /usr/share/i18n/locales/de_DE || need="$need locales"  # localedef's sources: the C under a host's locale
command -v chromium >/dev/null 2>&1 || need="$need chromium"  # examples/web in a headless browser
command -v sqlite3 >/dev/null 2>&1 || need="$need sqlite3"    # examples/README.md's SQLite recipe
if [ -n "$need" ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need
fi
bash .ci/engines.sh
sh scripts/need_python.sh || exit 2
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[test]'
# The tests start many Python processes (the CLI, generated programs): let them reuse treegen's
# bytecode rather than compile it in each (the suite of 5b0f1c6: 12 min 47 s, 14 min 10 s with it set).
unset PYTHONDONTWRITEBYTECODE
# Two workers (pytest-xdist), one per core of the CI machine; a worker starts the servers and Spark it
# needs (unix sockets in its own temporary folders), and the tests that need them run first, on one
# worker (tests/conftest.py). worksteal: an idle worker takes queued tests from the busy one, so the
# few minute-long tests do not leave one core waiting. `-n 0` runs in one process.
exec .venv/bin/python -m pytest -q -p no:cacheprovider -n 2 --dist worksteal "$@"
