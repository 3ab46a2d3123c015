"""Compile a generated C file as a program (``-DTREEGEN_MAIN``) and run it, for real.

Programs are compiled once per source, compiler and flags, and cached by their hash for the life of
the process; :func:`compile_sources` compiles many sources in one compiler call (each its own
translation unit, then each linked on its own)."""
from __future__ import annotations

import atexit
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import tempfile

from ..errors import MissingTool
from . import compiler_errors

STANDARD_FLAGS = ("-std=c99", "-O2")
STRICT_FLAGS = ("-Wall", "-Wextra", "-pedantic", "-Werror")  # the generated code has no warning
_built: dict[str, str] = {}  # hash of (compiler, flags, source) -> executable (its object file beside it, .o)


def compiler(name: str | None = None) -> str:
    """The C compiler: ``name``, else $CC, else cc; a user's error when there is none."""
    name = name or os.environ.get("CC") or "cc"
    if shutil.which(shlex.split(name)[0]) is None:
        raise MissingTool(f"needs a C compiler: {name} is not on the PATH (for example: apt-get install gcc)")
    return name


def _key(source: str, cc: str, flags) -> str:
    return hashlib.sha256("\0".join([cc, *flags, source]).encode("utf-8")).hexdigest()


def compile_sources(sources, cc: str | None = None, flags=STANDARD_FLAGS) -> list[str]:
    """Compile each source as a program (``-DTREEGEN_MAIN``), all in one compiler call; returns the
    path of each executable. Sources already compiled with the same compiler and flags are not
    compiled again. Raises RuntimeError with the compiler's messages when it fails (on a warning
    too, with ``-Werror`` among the flags)."""
    cc = compiler(cc)
    flags = tuple(flags)
    todo = [s for s in dict.fromkeys(sources) if _key(s, cc, flags) not in _built]
    if todo:
        root = tempfile.mkdtemp(prefix="treegen-c-")
        atexit.register(shutil.rmtree, root, True)  # the programs live as long as the process
        names = [f"m{i}" for i in range(len(todo))]
        for name, text in zip(names, todo):
            with open(os.path.join(root, name + ".c"), "w", encoding="utf-8") as handle:
                handle.write(text)
        _call([*_command(cc, flags), "-DTREEGEN_MAIN", "-c", *(n + ".c" for n in names)], root)
        for name, text in zip(names, todo):
            _call([*_command(cc, flags), name + ".o", "-lm", "-o", name], root)
            _built[_key(text, cc, flags)] = os.path.join(root, name)
    return [_built[_key(s, cc, flags)] for s in sources]


def _command(cc: str, flags) -> list[str]:
    """The compiler's words with ``flags`` after its program (and a wrapper's: ``ccache gcc``) and before the
    flags ``cc`` gives itself, which then win where they disagree: CC="clang -O3 -march=native" compiles at -O3,
    not at STANDARD_FLAGS' -O2 (a later -O or -std overrides an earlier one), so that ``verify`` checks the
    compiler and flags an embedder builds with."""
    words = shlex.split(cc)
    own = next((k for k, word in enumerate(words) if word.startswith("-")), len(words))
    return [*words[:own], *flags, *words[own:]]


def _call(command: list[str], directory: str) -> None:
    done = subprocess.run(command, cwd=directory, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:3])} ... failed:\n{compiler_errors(done.stdout + done.stderr)}")


def run(source: str, csv_text: str, args=(), cc: str | None = None, flags=STANDARD_FLAGS, timeout: float = 600,
        **_context) -> str:
    """Compile (once) and run the program on ``csv_text``; its standard output. ``_context`` (the
    model, engine settings) is what every runner receives; a program needs none of it.

    Raises RuntimeError with the standard error when compiling or running fails."""
    executable = compile_sources([source], cc=cc, flags=flags)[0]
    done = subprocess.run([executable, *args], input=csv_text.encode("utf-8"), capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"the C program exited with {done.returncode}: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")


# The rows API, PREFIX_predict_rows and PREFIX_predict_proba_rows (rows of doubles, a category as the index
# PREFIX_category gives), run by DRIVER linked with the program's object: the program uses the one-row path only.
ROWS_API = ("predict_rows", "predict_proba_rows")


def rows_at_once(source: str) -> int | None:
    """The rows the model's rows API sums together (its PREFIX_ROWS_AT_ONCE), None where it sums none."""
    found = re.search(r"^#define \w+_ROWS_AT_ONCE (\d+)", source, re.MULTILINE)
    return int(found.group(1)) if found else None


def run_rows_api(source: str, answered: list[dict], sizes: list[int], model, cc: str | None = None,
                 flags=STANDARD_FLAGS, timeout: float = 600, **_context) -> list[list]:
    """The answers of the rows API to the rows ``answered`` (as verify holds them) of ``model``, for each of ``sizes`` the rows that many a
    call: ``[label, scores, None]`` each (numbers as text), as :func:`treegen.run.row_api.rows_answers`."""
    prefix = re.search(r"^#define API\(name\) (\w+)_##name", source, re.MULTILINE).group(1)
    classes = model.target.classes if model.target.is_classification else None
    executable = _link_with_driver(source, driver(prefix, classes is not None), cc, flags)
    done = subprocess.run([executable], input=rows_input(model, answered, sizes), capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"the C rows driver exited with {done.returncode}: "
                           f"{done.stderr.decode('utf-8', 'replace')}")
    lines = done.stdout.decode("utf-8").splitlines()
    answers = [[classes[int(label)], scores, None] if classes else [label, None, None]
               for label, *scores in map(str.split, lines)]
    return [answers[k * len(answered):(k + 1) * len(answered)] for k in range(len(sizes))]


def rows_input(model, rows: list[dict], sizes: list[int]) -> bytes:
    """DRIVER's standard input: a line of the numbers of features, classes (0: regression), sizes, the sizes and
    rows; then each row's values in feature order: ``m`` (missing), ``n`` and a number's repr and a line break,
    or ``c``, the length in bytes of a category's text, a space and the text (which PREFIX_category codes)."""
    classes = len(model.target.classes) if model.target.is_classification else 0
    out = [f"{len(model.features)} {classes} {len(sizes)} {' '.join(map(str, sizes))} {len(rows)}\n".encode()]
    for row in rows:
        for feature in model.features:
            value = row.get(feature.name)
            if value is None or value != value:  # (NaN is not equal to itself)
                out.append(b"m")
            elif feature.is_numeric:
                out.append(b"n" + repr(float(value)).encode() + b"\n")
            elif "\0" in str(value):  # no C string: its index, as a caller gives it (none: -1, unknown)
                code = feature.categories.index(value) if value in feature.categories else -1
                out.append(b"n" + repr(float(code)).encode() + b"\n")
            else:
                text = str(value).encode("utf-8")
                out.append(b"c" + str(len(text)).encode() + b" " + text)
    return b"".join(out)


def driver(prefix: str, classification: bool) -> str:
    """DRIVER for the model whose functions begin ``prefix``."""
    return DRIVER.replace("PREFIX", prefix).replace("CLASSIFICATION", "1" if classification else "0")


# Reads rows_input, calls the rows API on them each size a call and prints, per size, a line a row: the label's
# index and the probabilities, or the value, each number with 17 digits (they read back as the same double).
DRIVER = r"""#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int PREFIX_category(int feature, const char *text);
#if CLASSIFICATION
void PREFIX_predict_rows(const double *rows, size_t n, int *labels);
void PREFIX_predict_proba_rows(const double *rows, size_t n, double *probabilities);
#else
void PREFIX_predict_rows(const double *rows, size_t n, double *values);
#endif

static char *input;
static size_t at;

static size_t count(void)
{
    char *end;
    size_t n = (size_t) strtoul(input + at, &end, 10);
    at = (size_t) (end - input) + 1;  /* past the space or line break after it */
    return n;
}

/* Linked with the program's own object (its main too): runs before that main, and ends the process. */
__attribute__((constructor)) static void answer_rows(void)
{
    size_t length = 0, capacity = 1 << 16, got, features, classes, n_sizes, *sizes, n, r, j, k, first;
    double *rows, *scores;
    int *labels;
    input = malloc(capacity + 1);
    while ((got = fread(input + length, 1, capacity - length, stdin)) > 0) {
        length += got;
        if (length == capacity) {
            input = realloc(input, (capacity *= 2) + 1);
        }
    }
    input[length] = '\0';
    features = count();
    classes = count();
    n_sizes = count();
    sizes = malloc((n_sizes + 1) * sizeof *sizes);
    for (k = 0; k < n_sizes; k++) {
        sizes[k] = count();
    }
    n = count();
    rows = malloc((n * features + 1) * sizeof *rows);
    for (r = 0; r < n; r++) {
        for (j = 0; j < features; j++) {
            char kind = input[at++];
            double *value = rows + r * features + j;
            if (kind == 'm') {
                *value = NAN;
            } else if (kind == 'n') {
                char *end;
                *value = strtod(input + at, &end);
                at = (size_t) (end - input) + 1;
            } else {
                size_t size = count();
                char *text = malloc(size + 1);
                memcpy(text, input + at, size);
                text[size] = '\0';
                *value = PREFIX_category((int) j, text);
                free(text);
                at += size;
            }
        }
    }
    labels = malloc((n + 1) * sizeof *labels);
    scores = malloc((n * (classes ? classes : 1) + 1) * sizeof *scores);
    for (k = 0; k < n_sizes; k++) {
        for (first = 0; first < n; first += sizes[k]) {
            size_t m = n - first < sizes[k] ? n - first : sizes[k];
#if CLASSIFICATION
            PREFIX_predict_rows(rows + first * features, m, labels + first);
            PREFIX_predict_proba_rows(rows + first * features, m, scores + first * classes);
#else
            PREFIX_predict_rows(rows + first * features, m, scores + first);
#endif
        }
        for (r = 0; r < n; r++) {
#if CLASSIFICATION
            printf("%d", labels[r]);
            for (j = 0; j < classes; j++) {
                printf(" %.17g", scores[r * classes + j]);
            }
            printf("\n");
#else
            printf("%.17g\n", scores[r]);
#endif
        }
    }
    fflush(stdout);
    exit(0);
}
"""
_with_driver: dict[str, str] = {}  # hash of (compiler, flags, model, driver) -> executable


def _link_with_driver(source: str, driver_text: str, cc: str | None, flags) -> str:
    """The executable of ``driver_text`` linked with the object file the program ``source`` was compiled to
    (:func:`compile_sources`: the same code of the API the program runs, and one compile of the model, not two:
    a big model's compile is most of verify's C time); the driver's constructor answers before the program's
    ``main`` would run. Linked once a process."""
    program = compile_sources([source], cc=cc, flags=flags)[0]
    cc = compiler(cc)
    flags = tuple(flags)
    key = _key(source + "\0" + driver_text, cc, flags)
    if key not in _with_driver:
        root = tempfile.mkdtemp(prefix="treegen-c-rows-")
        atexit.register(shutil.rmtree, root, True)
        with open(os.path.join(root, "driver.c"), "w", encoding="utf-8") as handle:
            handle.write(driver_text)
        _call([*_command(cc, flags), "driver.c", program + ".o", "-lm", "-o", "rows"], root)
        _with_driver[key] = os.path.join(root, "rows")
    return _with_driver[key]
