"""The arithmetic a model's semantics may name, written once as the reference that every back end
reproduces: float32 rounding, glibc's ``expf`` (XGBoost's links call it), and the links of the
libraries whose models treegen imports.

Everything here is plain double arithmetic, so the same steps give the same bits in Python, Java,
JavaScript, C and SQL: a float32 operation on float32 operands is the double result rounded to
float32 (exact for +, -, *, / since a double carries more than twice float32's precision).
"""
from __future__ import annotations

import math
import struct

FLT_MAX = 3.4028234663852886e38
# Doubles at or beyond this round to infinity in float32 (FLT_MAX plus half an ulp, ties to even).
FLT_OVERFLOW = FLT_MAX + 2.0 ** 103


def f32(x: float) -> float:
    """``x`` rounded to the nearest float32 (ties to even), as a double."""
    if math.isnan(x) or math.isinf(x):
        return x
    if abs(x) >= FLT_OVERFLOW:
        return math.copysign(math.inf, x)
    return struct.unpack("f", struct.pack("f", x))[0]


# glibc 2.27+ expf (sysdeps/ieee754/flt-32/e_expf.c with e_exp2f_data.c): 2^(k/32) from a table of
# 32 doubles times a cubic in r, all in double, rounded once to float32. The x86-64 build glibc runs
# on a CPU with FMA fuses the multiply-adds; written in plain double arithmetic the result differs
# from that build for exactly two float32 inputs (measured over all 2^32), kept as exceptions.
EXPF_N = 32
EXPF_INV_LN2_N = float.fromhex("0x1.71547652b82fep+0") * EXPF_N
EXPF_SHIFT = float.fromhex("0x1.8p+52")
EXPF_C0 = float.fromhex("0x1.c6af84b912394p-5") / EXPF_N ** 3
EXPF_C1 = float.fromhex("0x1.ebfce50fac4f3p-3") / EXPF_N ** 2
EXPF_C2 = float.fromhex("0x1.62e42ff0c52d6p-1") / EXPF_N
EXPF_TABLE = tuple(2.0 ** (i / EXPF_N) for i in range(EXPF_N))  # equal to glibc's 32 entries, bit for bit
EXPF_OVERFLOW = float.fromhex("0x1.62e42ep6")  # above: +inf
EXPF_UNDERFLOW = -float.fromhex("0x1.9fe368p6")  # below: 0
EXPF_EXCEPTIONS = {float.fromhex("0x1.04845ep+5"): float.fromhex("0x1.f93e38p+46"),
                   -float.fromhex("0x1.f8cbb2p+5"): float.fromhex("0x1.f45326p-92")}


def expf(x: float) -> float:
    """glibc's ``expf`` of the float32 ``x`` (x86-64, FMA build), exactly."""
    if math.isnan(x):
        return x
    if x in EXPF_EXCEPTIONS:
        return EXPF_EXCEPTIONS[x]
    if x > EXPF_OVERFLOW:
        return math.inf
    if x < EXPF_UNDERFLOW:
        return 0.0
    z = EXPF_INV_LN2_N * x
    k = (z + EXPF_SHIFT) - EXPF_SHIFT  # round to the nearest integer, ties to even
    r = z - k
    m = int(k) % EXPF_N
    scale = EXPF_TABLE[m] * 2.0 ** ((int(k) - m) // EXPF_N)  # exact: a power of two
    y = (EXPF_C0 * r + EXPF_C1) * (r * r) + (EXPF_C2 * r + 1.0)
    return f32(y * scale)


def exp(x: float) -> float:
    """C's ``exp`` (Python's math.exp calls it), with C's infinity instead of an OverflowError."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def sigmoid(x: float, scale: float = 1.0) -> float:
    """``1 / (1 + exp(-scale * x))`` in double (scikit-learn, LightGBM with its sigmoid parameter,
    HistGradientBoosting, CatBoost)."""
    return 1.0 / (1.0 + exp(-(scale * x)))


def sigmoid_f32(x: float) -> float:
    """XGBoost's float32 sigmoid (src/common/math.h ``Sigmoid``): ``1.0f / (expf(min(-x, 88.7f)) +
    1.0f + 1e-16f)``, every step in float32."""
    e = expf(min(-x, f32(88.7)))
    return f32(1.0 / f32(f32(e + 1.0) + f32(1e-16)))


def softmax(raw: list[float]) -> list[float]:
    """The maximum subtracted, ``exp`` of each, summed in order, each divided by the sum (double)."""
    top = max(raw)
    exps = [exp(r - top) for r in raw]
    total = 0.0
    for e in exps:
        total = total + e
    return [e / total for e in exps]


def softmax_f32(raw: list[float]) -> list[float]:
    """XGBoost's softmax (src/common/math.h ``Softmax``): float32 differences from the maximum,
    ``expf`` of each, their sum in double, each divided in float32 by the sum rounded to float32."""
    top = max(raw)
    exps = [expf(f32(r - top)) for r in raw]
    total = 0.0
    for e in exps:
        total = total + e
    divisor = f32(total)
    return [f32(e / divisor) for e in exps]
