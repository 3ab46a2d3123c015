"""Python's cycle collector, paused where treegen makes millions of small objects and no reference
cycles: reading a big model (a parse, an import), learning a big tree, lowering it to rules, walking
rows through it, writing a big export. Each full pass of the collector walks every object made so far
and finds nothing to collect; measured, it cost a sixth of a big parse, three quarters of a 1,000-tree
XGBoost import, 1.5-2 of an 8 s export, a third of lowering a 50,000-leaf tree, a sixth of the batch
walk of 3,564 rows through 1,000 trees."""
from __future__ import annotations

import gc
from contextlib import contextmanager


@contextmanager
def collector_paused():
    """The collector off for the block (or, as a decorator, the call); back on after it if it was on.

    When the block made and kept many objects, the collector's next passes would walk them, young
    generation first (a 1,000-tree model's rule text: 0.97 s in one pass); they are moved to the
    oldest generation instead, which only a full pass walks. freeze() then unfreeze() does that move
    without walking anything. Not after a small block (a caller's young garbage would wait for a full
    pass each time), nor in a process that froze objects itself (they would be let go)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_count()[0] > PROMOTED_AFTER and gc.get_freeze_count() <= FROZEN_AT_START:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


PROMOTED_AFTER = 100_000  # new objects still alive (lowering a 5,000-leaf tree keeps 17,000)
# What the interpreter keeps frozen itself: CPython 3.12 starts with its builtin types' immortal bases and MROs
# frozen (375 tuples in 3.12.1; 3.11 and 3.13 none). More than these: the process froze objects itself, as
# freeze() takes every object tracked, thousands by then. (unfreeze() lets the interpreter's go too, into the
# oldest generation: a few hundred immortal tuples for a full pass to walk, which 3.13 does not track at all.
# Objects frozen before treegen is imported count as the interpreter's.)
FROZEN_AT_START = gc.get_freeze_count()
