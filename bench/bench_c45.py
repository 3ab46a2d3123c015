"""C4.5 (treegen) against Weka's J48 on the same ARFF files: fit CPU time in process, whole-process
wall and CPU time (``ru_utime + ru_stime``) and peak memory (``ru_maxrss``) of each child process.
CPU time is the fairer measure on a busy machine; the JVM uses more than one core for its JIT and GC.

Usage: python3 bench/bench_c45.py [--rows 100000] [--repeat 3]
Prints a Markdown table and the load averages before and after. Needs java and /usr/share/java/weka.jar.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
WEKA = "/usr/share/java/weka.jar"
EXAMPLES = Path("/usr/share/doc/weka/examples")
WEKA_SETS = ["diabetes", "credit-g", "soybean", "ionosphere", "segment-challenge", "segment-test"]


def synthetic_arff(path: Path, rows: int, seed: int = 0) -> Path:
    """Ten numeric features, three classes from a noisy rule, 2% missing values."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(rows, 10)).round(4)
    score = x[:, 0] + 0.5 * x[:, 1] * x[:, 2] - np.abs(x[:, 3]) + 0.3 * rng.normal(size=rows)
    y = np.digitize(score, [-0.8, 0.4])
    text = x.astype(str).astype(object)
    text[rng.random(x.shape) < 0.02] = "?"
    with open(path, "w") as f:
        f.write("@relation synthetic\n")
        f.writelines(f"@attribute x{j} numeric\n" for j in range(10))
        f.write("@attribute class {c0,c1,c2}\n@data\n")
        f.writelines(",".join(r) + f",c{k}\n" for r, k in zip(text, y))
    return path


MEASURE = """
import os, subprocess, sys, time
start = time.perf_counter()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(child.pid, 0)
print(time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, status)
"""


def run(cmd: list[str]) -> tuple[float, float, float]:
    """Wall time (s), CPU time (s) and peak resident memory (MiB) of one child process. A small
    launcher starts it, so that the child's ru_maxrss does not include this process's memory."""
    out = subprocess.run([sys.executable, "-c", MEASURE, *cmd], capture_output=True, text=True, cwd=ROOT,
                         check=True).stdout.split()
    if out[3] != "0":
        raise RuntimeError(f"{cmd} failed with status {out[3]}")
    return float(out[0]), float(out[1]), float(out[2])


def in_process_fit(path: Path, repeat: int) -> float:
    sys.path.insert(0, str(ROOT))
    from treegen.data import load_dataset
    from treegen.learn import fit

    data = load_dataset(str(path))
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fit(data, "c45")
        best = min(best, time.process_time() - start)
    return best


def best_of(cmd: list[str], repeat: int) -> tuple[float, float, float]:
    """Fastest wall and CPU time over the repeats, and the highest peak memory."""
    results = [run(cmd) for _ in range(repeat)]
    return min(r[0] for r in results), min(r[1] for r in results), max(r[2] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    files = [EXAMPLES / f"{name}.arff" for name in WEKA_SETS]
    files.append(synthetic_arff(Path(f"/tmp/c45_synthetic_{args.rows}.arff"), args.rows))
    load_before = os.getloadavg()
    print("| data set | rows | treegen fit CPU (in process) | treegen process wall / CPU | "
          "J48 process wall / CPU | CPU ratio | treegen peak MiB | J48 peak MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for path in files:
        rows = sum(1 for line in open(path) if line.strip() and not line.lstrip().startswith(("@", "%")))
        fit_s = in_process_fit(path, args.repeat)
        ours = best_of([sys.executable, "-c", "from treegen.data import load_dataset; "
                        "from treegen.learn import fit; "
                        f"fit(load_dataset({str(path)!r}), 'c45')"], args.repeat)
        j48 = best_of(["java", "-cp", WEKA, "weka.classifiers.trees.J48", "-t", str(path), "-no-cv", "-v"],
                      args.repeat)
        print(f"| {path.stem} | {rows} | {fit_s:.3f} s | {ours[0]:.2f} / {ours[1]:.2f} s | "
              f"{j48[0]:.2f} / {j48[1]:.2f} s | {ours[1] / j48[1]:.2f} | {ours[2]:.0f} | {j48[2]:.0f} |")
    print("\nload average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}, after: {:.2f} {:.2f} {:.2f}".format(
        *load_before, *os.getloadavg()))


if __name__ == "__main__":
    main()
