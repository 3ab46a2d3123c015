"""Dump the model JSON of C4.5 fits to a folder, to compare two versions of the learner byte for byte.

Every ARFF file in tests/fixtures/j48 and /usr/share/doc/weka/examples (but the Reuters text sets)
under the eight option sets of tests/test_c45.py, and bench_c45.py's generated files (2% missing
values: fractional weights everywhere, the quicksort replay at work) of 3,000 and 20,000 rows under
the same option sets and of 100,000 rows under the defaults. One file per fit, NAME.VARIANT.json;
``md5sum`` the folders of two checkouts and compare.

Usage: python3 bench/dump_c45_models.py OUT_DIR [--quick]   (--quick: no 100,000-row file)
It fits with the treegen of its own checkout (copy it into the other one to compare).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_c45 import synthetic_arff  # noqa: E402
from test_c45 import VARIANTS  # noqa: E402  (the option sets the tests compare with J48)
from treegen import modelio  # noqa: E402
from treegen.data import load_dataset  # noqa: E402
from treegen.errors import TreegenError  # noqa: E402
from treegen.learn import fit  # noqa: E402


def arff_files(quick: bool) -> list[tuple[Path, list[str]]]:
    """(file, the variants to fit it with)."""
    examples = [p for p in sorted(Path("/usr/share/doc/weka/examples").glob("*.arff"))
                if not p.name.startswith("Reuters")]
    files = [(p, list(VARIANTS)) for p in sorted((ROOT / "tests/fixtures/j48").glob("*.arff")) + examples]
    for rows in (3000, 20_000) if quick else (3000, 20_000, 100_000):
        path = Path(f"/tmp/c45_synthetic_{rows}.arff")
        if not path.exists():
            synthetic_arff(path, rows)
        files.append((path, list(VARIANTS) if rows < 100_000 else ["default"]))
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for path, variants in arff_files(args.quick):
        start = time.process_time()
        for variant in variants:
            try:
                text = modelio.dumps(fit(load_dataset(str(path)), "c45", **VARIANTS[variant]))
            except TreegenError as error:  # a string attribute, a numeric class (cpu.arff)
                text = f"error: {error}\n".replace(str(ROOT), "ROOT")
            prefix = "examples-" if path.parent.name == "examples" else ""
            (args.out / f"{prefix}{path.stem}.{variant}.json").write_text(text, encoding="utf-8")
        print(f"{path.name}: {time.process_time() - start:.2f} s CPU", file=sys.stderr)


if __name__ == "__main__":
    main()
