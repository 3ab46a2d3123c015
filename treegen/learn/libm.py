"""Logarithms over numpy arrays, bit for bit the C library's.

CART replays scikit-learn's Cython, which calls the C library's ``log``: a split is chosen by comparing
sums of ``p log p`` terms, and one bit of a term can turn a near tie. numpy calls the C library too --
except where it was built with its own SIMD loops and the CPU has AVX-512: there its ``log`` and
``log2`` differ from the C library's in the last bit for about 1 input in 300 (measured on an AMD EPYC
with numpy 2.4). Which numpy does is found out once, on fixed inputs; where it differs, the logarithms
are taken one value at a time with Python's ``math``, which calls the C library. ID3 takes them here
too, so that a tree is the same on every machine. (C4.5 keeps numpy's: J48's Java has a logarithm of
its own, and Weka compares gains with a tolerance of 1e-6, far above a last bit.)
"""
from __future__ import annotations

import functools
import math

import numpy as np


@functools.cache
def numpy_agrees(name: str) -> bool:
    """Whether numpy's ``name`` gives the C library's bits on 20,000 fixed inputs, the fractions
    i / 20,000 (numpy's SIMD loops disagree on 66 of them for ``log``, on 34 for ``log2``; the C
    library's loop on none). (No random numbers: numpy.random would be imported, 6 MB, to learn this.)"""
    values = np.arange(1, 20_001) / 20_000
    ours = getattr(np, name)(values)
    theirs = np.fromiter(map(getattr(math, name), values.tolist()), np.float64, len(values))
    return bool((ours == theirs).all())


def _libm(name: str, values) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    if numpy_agrees(name):
        return getattr(np, name)(values)
    flat = values.ravel().tolist()
    try:
        exact = np.fromiter(map(getattr(math, name), flat), np.float64, len(flat))
    except ValueError:  # 0 or below: -inf or nan, which numpy gives as the C library does
        exact = np.array([getattr(math, name)(v) if v > 0 else getattr(np, name)(v) for v in flat])
    return exact.reshape(values.shape)


def quick_log(values) -> np.ndarray:
    """numpy's natural logarithm: the fastest, but perhaps a bit off the C library's (the searches
    then take the scores that matter again: ``cart_problem.exact_near_best``)."""
    return np.log(values)


def log(values) -> np.ndarray:
    """The natural logarithm of each of ``values``, as C's ``log`` gives it."""
    return _libm("log", values)


def log2(values) -> np.ndarray:
    """The base-2 logarithm of each of ``values``, as C's ``log2`` gives it."""
    return _libm("log2", values)
