"""Compile a generated C file as a program (``-DTREEGEN_MAIN``) and run it, for real.

Programs are compiled once per source, compiler and flags, and cached by their hash for the life of
the process; :func:`compile_sources` compiles many sources in one compiler call (each its own
translation unit, then each linked on its own)."""
from __future__ import annotations

import atexit
import hashlib
import os
import shlex
import shutil
import subprocess
import tempfile

from ..errors import TreegenError
from . import compiler_errors

STANDARD_FLAGS = ("-std=c99", "-O2")
STRICT_FLAGS = ("-Wall", "-Wextra", "-pedantic", "-Werror")  # the generated code has no warning
_built: dict[str, str] = {}  # hash of (compiler, flags, source) -> executable


def compiler(name: str | None = None) -> str:
    """The C compiler: ``name``, else $CC, else cc; a user's error when there is none."""
    name = name or os.environ.get("CC") or "cc"
    if shutil.which(shlex.split(name)[0]) is None:
        raise TreegenError(f"needs a C compiler: {name} is not on the PATH (for example: apt-get install gcc)")
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
