#!/usr/bin/env bash
# Install treegen in .venv and run the main job on bundled data: train a tree, show it, compile it
# to rules, Python, Java and SQL, run the generated program, and verify every target for real.
set -euo pipefail
cd "$(dirname "$0")/.."

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q .
treegen=.venv/bin/treegen
mkdir -p build

set -x
$treegen train examples/play_tennis.csv --target play --algorithm id3 -o build/tennis.json
$treegen show build/tennis.json
$treegen export build/tennis.json --to rules -o build/tennis.rules
$treegen export build/tennis.json --to python --proba -o build/tennis.py
$treegen export build/tennis.json --to java --class-name Tennis -o build/Tennis.java
$treegen export build/tennis.json --to sql --dialect sqlite --table weather -o build/tennis.sql
.venv/bin/python build/tennis.py < examples/play_tennis.csv
$treegen evaluate examples/play_tennis.csv --target play --algorithm id3 --loo
$treegen verify build/tennis.json examples/play_tennis.csv --to python,java,sql,rules --dialect sqlite
