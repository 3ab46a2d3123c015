"""Start-up of the treegen CLI: the wall time of each command a user (or a test) runs, each in a
fresh process, for one or more source trees side by side (runs alternated), and which of the heavy
core libraries the command imported.

    python3 bench/bench_cli_startup.py --tree before=/tmp/treegen-main --tree after=. --repeat 15

Bytecode is written and reused (PYTHONDONTWRITEBYTECODE is unset) as it is for an installed package;
the first run of each command is a warm-up and is not counted. The floor is ``python -c pass``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HEAVY = ("numpy", "jinja2", "lark", "click")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "examples", "play_tennis.csv")
COMMANDS = {  # name -> arguments after `python -m treegen`; {data}, {model}, {out} are filled in
    "--help": ["--help"],
    "export --help": ["export", "--help"],
    "verify --help": ["verify", "--help"],
    "train": ["train", "{data}", "-o", "{out}"],
    "export --to python": ["export", "{model}", "--to", "python"],
    "predict": ["predict", "{model}", "{data}"],
    "verify --to python": ["verify", "{model}", "{data}", "--to", "python"],
    "verify --to rules": ["verify", "{model}", "{data}", "--to", "rules"],
}


def environment(tree: str) -> dict:
    env = dict(os.environ, PYTHONPATH=tree)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run(args: list[str], env: dict, flags: tuple[str, ...] = ()) -> tuple[float, str]:
    """Wall seconds of one process, and its stderr."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, *flags, *args], env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed ({done.returncode}): {done.stderr[-500:]}")
    return elapsed, done.stderr


def heavy_imported(args: list[str], env: dict) -> str:
    """The heavy libraries a command imports, from ``-X importtime``."""
    _, stderr = run(args, env, ("-X", "importtime"))
    names = {line.rsplit("|", 1)[1].strip().split(".")[0] for line in stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return ", ".join(name for name in HEAVY if name in names) or "none"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", metavar="NAME=PATH",
                        help="a source tree to measure (repeat); default: this checkout")
    parser.add_argument("--repeat", type=int, default=15, help="runs counted per command and tree")
    options = parser.parse_args()
    trees = {name: os.path.abspath(path) for name, path in
             (tree.split("=", 1) for tree in options.tree or [f"here={ROOT}"])}
    with tempfile.TemporaryDirectory() as work:
        os.chdir(work)  # `python -m` puts the current folder first on the path: not a tree measured
        model = os.path.join(work, "model.json")
        first_env = environment(next(iter(trees.values())))
        run(["-m", "treegen", "train", DATA, "-o", model], first_env)
        fill = {"data": DATA, "model": model, "out": os.path.join(work, "trained.json")}
        commands = {"python -c pass (the floor)": ["-c", "pass"]}
        commands.update({name: ["-m", "treegen", *(a.format(**fill) for a in args)] for name, args in COMMANDS.items()})
        names = list(trees)
        print(f"| command | {' | '.join(f'{n} ms' for n in names)} | {' | '.join(f'{n} imports' for n in names)} |")
        print("|---|" + "---:|" * len(names) + "---|" * len(names))
        for label, args in commands.items():
            envs = {name: environment(path) for name, path in trees.items()}
            times = {name: [] for name in names}
            for name in names:  # warm-up: bytecode written, files in the page cache
                run(args, envs[name])
            for _ in range(options.repeat):
                for name in names:  # alternated, so that a change of load falls on every tree alike
                    times[name].append(run(args, envs[name])[0])
            medians = [f"{1000 * statistics.median(times[n]):.0f}" for n in names]
            heavy = [heavy_imported(args, envs[n]) if args[0] == "-m" else "" for n in names]
            print(f"| `{label}` | {' | '.join(medians)} | {' | '.join(heavy)} |", flush=True)


if __name__ == "__main__":
    main()
