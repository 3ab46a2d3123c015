"""Progress of long work, for a progress bar on a terminal.

Work reports what it has done with :func:`settled`: learners the training weight that ends in each
leaf they create (the sum reaches the data set's total weight when growing is done), importers each
tree they read. Nothing listens unless a caller (the CLI) does, so the library stays free of any user
interface.
"""
from __future__ import annotations

import contextvars
import time
from contextlib import contextmanager
from typing import Callable, Iterator

_listener: contextvars.ContextVar[Callable[[float], None] | None] = contextvars.ContextVar("listener", default=None)


def settled(weight: float) -> None:
    listener = _listener.get()
    if listener is not None:
        listener(float(weight))


@contextmanager
def listening(callback: Callable[[float], None]) -> Iterator[None]:
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)


@contextmanager
def bar_after(seconds: float, total: float, make_bar) -> Iterator[None]:
    """Show a progress bar (made by ``make_bar(length)``) only once the work has taken ``seconds``."""
    start, done, state = time.monotonic(), [0.0], {}

    def update(weight: float) -> None:
        done[0] += weight
        if "bar" not in state and time.monotonic() - start >= seconds:
            state["bar"] = make_bar(int(total))
            state["bar"].__enter__()
            state["bar"].update(int(done[0]))
            state["shown"] = int(done[0])
        elif "bar" in state and int(done[0]) > state["shown"]:
            state["bar"].update(int(done[0]) - state["shown"])
            state["shown"] = int(done[0])

    with listening(update):
        try:
            yield
        finally:
            if "bar" in state:
                state["bar"].__exit__(None, None, None)
