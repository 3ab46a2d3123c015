#!/usr/bin/env bash
# Install treegen in .venv and run the main job on bundled data: train a tree, show it, compile it
# to rules, Python, Java, JavaScript and SQL, run the generated program, and verify every target for real.
# Java needs a JDK: installed with apt-get when this runs as root on Debian, else left out (said why).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v javac >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        default-jdk-headless >/dev/null
fi
targets=python,java,sql,rules
if ! command -v javac >/dev/null 2>&1; then
    echo "demo: no JDK (javac) on the PATH and none could be installed here: Java is left out" >&2
    targets=python,sql,rules
fi
if command -v node >/dev/null 2>&1; then
    targets=$targets,javascript
else
    echo "demo: no Node.js (node) on the PATH: JavaScript is left out" >&2
fi

sh scripts/need_python.sh || exit 2
python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q .
treegen=.venv/bin/treegen
mkdir -p build

set -x
$treegen train examples/play_tennis.csv --target play --algorithm id3 -o build/tennis.json
$treegen show build/tennis.json
$treegen export build/tennis.json --to rules -o build/tennis.rules
$treegen export build/tennis.json --to python -o build/tennis.py
$treegen export build/tennis.json --to java --class-name Tennis -o build/Tennis.java
$treegen export build/tennis.json --to javascript -o build/tennis.mjs
$treegen export build/tennis.json --to sql --dialect sqlite --table weather -o build/tennis.sql
.venv/bin/python build/tennis.py < examples/play_tennis.csv
$treegen evaluate examples/play_tennis.csv --target play --algorithm id3 --loo
$treegen verify build/tennis.json examples/play_tennis.csv --to "$targets" --dialect sqlite
{ set +x; } 2>/dev/null
echo "treegen is installed in .venv: '. .venv/bin/activate' puts the treegen of README.md's examples on the PATH"
