"""Progress of long work, for a progress bar on a terminal.

Work reports what it has done with :func:`settled`: learners the training weight that ends in each
leaf they create (the sum reaches the data set's total weight when the fit is done, however many
passes over the data it makes: see :func:`scaled`), importers each tree they read. Nothing listens
unless a caller (the CLI) does, so the library stays free of any user interface.
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
def scaled(factor: float) -> Iterator[None]:
    """Reports inside count ``factor`` times: a part of the work reports in its own units (the rows a
    grower settles), and its caller makes them its share of the one total it reports."""
    outer = _listener.get()
    if outer is None:
        yield
        return
    with listening(lambda weight: outer(weight * factor)):
        yield


@contextmanager
def bar_after(seconds: float, total: float, make_bar) -> Iterator[None]:
    """Show a progress bar (made by ``make_bar(length, seconds_run)``) only once the work has taken
    ``seconds``; ``seconds_run`` is how long it has run, for an ETA that counts the work done before."""
    start, done, state = time.monotonic(), [0.0], {}

    def update(weight: float) -> None:
        done[0] += weight
        now = round(done[0])  # scaled shares sum to the total but for rounding: not to the unit below it
        if "bar" not in state and time.monotonic() - start >= seconds:
            state["bar"] = make_bar(int(total), time.monotonic() - start)
            state["bar"].__enter__()
            state["bar"].update(now)
            state["shown"] = now
        elif "bar" in state and now > state["shown"]:
            state["bar"].update(now - state["shown"])
            state["shown"] = now

    with listening(update):
        try:
            yield
        finally:
            if "bar" in state:
                state["bar"].__exit__(None, None, None)
