"""Reading rule text back: `treegen parse` against `treegen export --to rules` of the same model.

    python3 bench/bench_parse.py [--leaves 1000,9000,50000] [--repeat 3] [--grammar]

For each size, treegen.testing.wide_model(N) (a balanced tree over 10 numeric features) is exported
to rule text and parsed back, timed two ways, export and parse alternating so that both see the same
load: in this process (``emit(model, "rules")`` against ``parse(text)``), and as whole commands
(``treegen export m.json --to rules`` against ``treegen parse m.rules``, each a fresh process; the
CPU time is the child's user + system time). Each figure is the best of ``--repeat``. ``--grammar``
adds the time of the Lark grammar alone (the document only: no model built, no rules checked) on
the same text: what every parse cost before the fast reader of the writer's layout.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from treegen import modelio  # noqa: E402
from treegen.parse.rule_grammar import parser  # noqa: E402
from treegen.parse.rule_text import parse  # noqa: E402
from treegen.targets import emit  # noqa: E402
from treegen.testing import wide_model  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def timed(call) -> tuple[float, float]:
    """(wall seconds, CPU seconds of this process) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def command(*args: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one `python -m treegen ...` process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.perf_counter()
    subprocess.run([sys.executable, "-m", "treegen", *args], check=True, cwd=ROOT,
                   env={**os.environ, "PYTHONPATH": ROOT})
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    return min(p[0] for p in pairs), min(p[1] for p in pairs)


def measure(leaves: int, repeat: int, grammar: bool, folder: str) -> dict:
    model = wide_model(leaves)
    text = emit(model, "rules")
    again = parse(text)
    assert again.trees[0].nodes == model.trees[0].nodes, "the round trip must be exact"
    export_in, parse_in, export_cmd, parse_cmd = [], [], [], []
    model_path, rules_path = os.path.join(folder, "m.json"), os.path.join(folder, "m.rules")
    modelio.save(model, model_path)
    for _ in range(repeat):
        export_in.append(timed(lambda: emit(model, "rules")))
        parse_in.append(timed(lambda: parse(text)))
        export_cmd.append(command("export", model_path, "--to", "rules", "-o", rules_path))
        parse_cmd.append(command("parse", rules_path, "-o", os.path.join(folder, "p.json")))
    result = {"leaves": leaves, "lines": text.count("\n"), "megabytes": len(text.encode()) / 1e6,
              "export": best(export_in), "parse": best(parse_in),
              "export_cmd": best(export_cmd), "parse_cmd": best(parse_cmd)}
    if grammar:
        result["grammar"] = timed(lambda: parser().parse(text))
    return result


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--leaves", default="1000,9000,50000")
    options.add_argument("--repeat", type=int, default=3)
    options.add_argument("--grammar", action="store_true", help="also time the Lark grammar alone")
    args = options.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    head = ("| leaves | lines | MB | export s (CPU) | parse s (CPU) | ratio wall / CPU "
            "| `treegen export` s (CPU) | `treegen parse` s (CPU) | ratio wall / CPU |")
    if args.grammar:
        head += " Lark grammar alone s (CPU) |"
    print(head)
    print("|" + "---:|" * (head.count("|") - 1))
    with tempfile.TemporaryDirectory() as folder:
        for leaves in (int(n) for n in args.leaves.split(",")):
            r = measure(leaves, args.repeat, args.grammar, folder)
            cells = [f"{r['leaves']}", f"{r['lines']}", f"{r['megabytes']:.1f}"]
            for export, parsed in (("export", "parse"), ("export_cmd", "parse_cmd")):
                (ew, ec), (pw, pc) = r[export], r[parsed]
                cells += [f"{ew:.2f} ({ec:.2f})", f"{pw:.2f} ({pc:.2f})", f"{pw / ew:.2f} / {pc / ec:.2f}"]
            if args.grammar:
                cells.append(f"{r['grammar'][0]:.2f} ({r['grammar'][1]:.2f})")
            print("| " + " | ".join(cells) + " |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
