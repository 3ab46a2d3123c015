"""Helper processes kept running between requests -- a JVM with the JDK's compiler loaded, a JVM or a
Node process that runs generated programs -- so that a caller making many requests pays their start
once: one process per command (``java``, ``node``), started on first use and again when it has ended."""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from contextlib import contextmanager
from typing import Callable, Iterator


class KeptProcesses:
    """Processes that each run a script of ours: ``text`` written as ``file_name`` in a folder of
    their own, then ``command_line(command, script path)`` started there with pipes to its standard
    input and output. The script's folder is the process's: a request may leave files in it."""

    def __init__(self, file_name: str, text: str, command_line: Callable[[str, str], list[str]], **popen):
        self.file_name, self.text, self.command_line, self.popen = file_name, text, command_line, popen
        self.processes: dict[str, subprocess.Popen] = {}
        self.folders: dict[str, str] = {}  # command -> its process's folder
        self.lock = threading.Lock()  # verify runs targets from two threads

    @contextmanager
    def process(self, command: str) -> Iterator[subprocess.Popen]:
        """The process for ``command``, held for one request."""
        with self.lock:
            process = self.processes.get(command)
            if process is None or process.poll() is not None:
                if process is not None:
                    _end(process)
                process = self.processes[command] = self._start(command)
            yield process

    def _start(self, command: str) -> subprocess.Popen:
        if command in self.folders:  # the one that ended
            shutil.rmtree(self.folders[command], ignore_errors=True)
        folder = self.folders[command] = os.path.realpath(tempfile.mkdtemp(prefix="treegen-kept-"))
        script = os.path.join(folder, self.file_name)
        with open(script, "w", encoding="utf-8") as handle:
            handle.write(self.text)
        return subprocess.Popen(self.command_line(command, script), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                cwd=folder, **self.popen)

    def close(self) -> None:
        for process in self.processes.values():
            _end(process)
        for folder in self.folders.values():
            shutil.rmtree(folder, ignore_errors=True)


def _end(process: subprocess.Popen) -> None:
    """Close our ends of its pipes (its input last: the end of its requests) and wait for it to end."""
    with process:  # Popen's exit does exactly that
        pass
