"""Compile a generated Java class with ``javac`` and run it with ``java``, for real.

Compiled classes are cached by the hash of their source for the life of the process, and
:func:`compile_sources` compiles many classes in one ``javac`` call (the JVM's start-up dominates).
A process that compiles again and again (the test suite) calls :func:`keep_javac_loaded`: the JDK's
own compiler then stays loaded in one JVM instead of starting and warming up once per call."""
from __future__ import annotations

import atexit
import hashlib
import os
import re
import subprocess
import tempfile
import threading

_compiled: dict[str, tuple[str, str]] = {}  # source hash -> (class directory, qualified class name)
_linted: set[str] = set()  # the sources among them compiled with every warning an error
# javac's own JVM: C1 only and the serial collector. A javac run is too short for C2's compiles to
# pay off: a 37 MB class compiles in 14.5 s instead of 20.7 s, a 10,000-deep one in 12.5 s instead of
# 25 s, with half the memory. The class files are the same; options a JVM does not know are ignored.
JAVAC_JVM = ("-J-XX:+IgnoreUnrecognizedVMOptions", "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC")
# Bigger compiles run in a javac process of their own: the heap they grow ends with it, where the
# loaded javac would keep it.
LOADED_JAVAC_LIMIT = 2_000_000  # characters of source


def class_name(source: str) -> str:
    """The qualified name of the public class declared in ``source``."""
    package = re.search(r"^package\s+([\w.]+)\s*;", source, re.MULTILINE)
    name = re.search(r"^public\s+(?:final\s+)?class\s+(\w+)", source, re.MULTILINE)
    if name is None:
        raise RuntimeError("no public class in the Java source")
    return f"{package.group(1)}.{name.group(1)}" if package else name.group(1)


def _key(source: str, release: str | None = None) -> str:
    return hashlib.sha256(source.encode("utf-8")).hexdigest() + f"/{release}"


def compile_sources(sources, javac: str = "javac", release: str | None = None, lint: bool = False) -> list[str]:
    """Compile several sources (distinct qualified class names) in one ``javac`` call; returns
    the class directory of each. Already compiled sources are not compiled again. ``lint``: with
    ``-Xlint:all -Werror``, so that any warning fails (the generated code must have none)."""
    todo = [s for s in dict.fromkeys(sources)
            if _key(s, release) not in _compiled or lint and _key(s, release) not in _linted]
    if todo:
        root = tempfile.mkdtemp(prefix="treegen-java-")
        paths = []
        for source in todo:
            path = os.path.join(root, "src", *class_name(source).split(".")) + ".java"
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(source)
            paths.append(path)
        out = os.path.join(root, "classes")
        options = ["-encoding", "UTF-8", *(["-Xlint:all", "-Werror"] if lint else ["-nowarn"]), "-d", out]
        options += ["--release", release] if release else []
        big = sum(map(len, todo)) > LOADED_JAVAC_LIMIT
        exit_code, diagnostics = _javac(javac, options + paths, alone=big)
        if exit_code != 0:
            raise RuntimeError(f"javac failed:\n{diagnostics[-5000:]}")
        for source in todo:
            _compiled[_key(source, release)] = (out, class_name(source))
            if lint:
                _linted.add(_key(source, release))
    return [_compiled[_key(s, release)][0] for s in sources]


def _javac(javac: str, arguments: list[str], alone: bool = False) -> tuple[int, str]:
    """Run javac on ``arguments``: in the loaded compiler when :func:`keep_javac_loaded` asked for
    one and the compile is not to run ``alone``, else as a process of its own. Its exit code and
    diagnostics."""
    if _loaded is None or alone:
        done = subprocess.run([javac, *JAVAC_JVM, *arguments], capture_output=True, text=True)
        return done.returncode, done.stderr
    return _loaded.compile(javac, arguments)


class _LoadedJavac:
    """The JDK's compiler (``javax.tools``, what the javac command runs) in long-lived JVMs, one per
    JDK: the java launcher compiles :data:`SERVER` from source and runs it; each compile is a line
    of NUL-separated arguments in, ``EXIT LENGTH`` and the diagnostics out."""

    def __init__(self):
        self.servers: dict[str, subprocess.Popen] = {}  # javac command -> its JDK's server
        self.lock = threading.Lock()  # verify compiles from two threads

    def compile(self, javac: str, arguments: list[str]) -> tuple[int, str]:
        with self.lock:
            server = self.servers.get(javac)
            if server is None or server.poll() is not None:
                server = self.servers[javac] = self._start(javac)
            server.stdin.write("\0".join(arguments).encode("utf-8") + b"\n")
            server.stdin.flush()
            reply = server.stdout.readline().split()
            if len(reply) != 2:
                raise RuntimeError(f"the loaded javac ended (exit {server.wait()})")
            return int(reply[0]), server.stdout.read(int(reply[1])).decode("utf-8", "replace")

    @staticmethod
    def _start(javac: str) -> subprocess.Popen:
        path = os.path.join(tempfile.mkdtemp(prefix="treegen-javac-"), "TreegenJavac.java")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(SERVER)
        java = os.path.join(os.path.dirname(javac), "java") if os.path.dirname(javac) else "java"
        flags = [option[2:] for option in JAVAC_JVM]  # the JVM options given to javac's own JVM
        return subprocess.Popen([java, *flags, path], stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def close(self) -> None:
        for server in self.servers.values():
            server.stdin.close()
            server.wait()


SERVER = """import java.io.*;
import java.nio.charset.StandardCharsets;

public class TreegenJavac {
    public static void main(String[] unused) throws IOException {
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
        for (String line; (line = in.readLine()) != null; ) {
            ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
            int exit = javac.run(null, diagnostics, diagnostics, line.split("\\u0000"));
            byte[] text = diagnostics.toByteArray();
            out.write((exit + " " + text.length + "\\n").getBytes(StandardCharsets.UTF_8));
            out.write(text);
            out.flush();
        }
    }
}
"""
_loaded: _LoadedJavac | None = None


def keep_javac_loaded() -> None:
    """From now on, compile in a JVM that keeps javac loaded (started on the first compile, ended
    with the process): after the first compile a small class takes ~0.2 s of CPU instead of ~1.2 s."""
    global _loaded
    if _loaded is None:
        _loaded = _LoadedJavac()
        atexit.register(_loaded.close)


def run(source: str, csv_text: str, args=(), java: str = "java", javac: str = "javac",
        release: str | None = None, timeout: float = 600, **_context) -> str:
    """Compile (once) and run the class as a program on ``csv_text``; its standard output. ``_context``
    (the model, engine settings) is what every runner receives; a program needs none of it.

    Raises RuntimeError with the standard error when compiling or running fails."""
    directory = compile_sources([source], javac=javac, release=release)[0]
    done = subprocess.run([java, "-cp", directory, class_name(source), *args],
                          input=csv_text.encode("utf-8"), capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"java exited with {done.returncode}: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")
