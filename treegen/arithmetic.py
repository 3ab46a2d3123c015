"""The arithmetic a model's semantics may name, written once as the reference that every back end
reproduces: float32 rounding, glibc's ``expf`` (XGBoost's links call it), and the links of the
libraries whose models treegen imports; and glibc's ``logf``, which only importers need (XGBoost turns
its stored ``base_score`` into a margin with it once, when a model is loaded, so the model stores the
margin and no back end ever computes a logarithm).

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


_FLOAT32 = struct.Struct("f")


def f32(x: float, pack=_FLOAT32.pack, unpack=_FLOAT32.unpack) -> float:
    """``x`` rounded to the nearest float32 (ties to even), as a double."""
    if -FLT_OVERFLOW < x < FLT_OVERFLOW:  # (the reference walk's float32 models call this a split a row)
        return unpack(pack(x))[0]
    return x if x != x else math.copysign(math.inf, x)  # NaN, or infinite in float32


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


# glibc 2.28+ logf (sysdeps/ieee754/flt-32/e_logf.c with e_logf_data.c, bminor/glibc @04277e02; the
# same algorithm in 2.36): x = 2^k z with z in [0x3f330000, 2 * 0x3f330000) as float32 bits, log(x) =
# log1p(z/c - 1) + log(c) + k ln 2 with 1/c and log(c) from a table of 16 and a cubic for log1p, in
# double, rounded once to float32. Unlike expf, the plain double arithmetic below equals the fused
# (FMA) build this machine runs on every positive float32 (all 2,139,095,039 compared, 0 differences),
# while float32(log(double(x))) differs on 416,909 of them.
LOGF_TABLE = tuple((float.fromhex(invc), float.fromhex(logc)) for invc, logc in (  # (1/c, log(c))
    ("0x1.661ec79f8f3bep+0", "-0x1.57bf7808caadep-2"), ("0x1.571ed4aaf883dp+0", "-0x1.2bef0a7c06ddbp-2"),
    ("0x1.49539f0f010bp+0", "-0x1.01eae7f513a67p-2"), ("0x1.3c995b0b80385p+0", "-0x1.b31d8a68224e9p-3"),
    ("0x1.30d190c8864a5p+0", "-0x1.6574f0ac07758p-3"), ("0x1.25e227b0b8eap+0", "-0x1.1aa2bc79c81p-3"),
    ("0x1.1bb4a4a1a343fp+0", "-0x1.a4e76ce8c0e5ep-4"), ("0x1.12358f08ae5bap+0", "-0x1.1973c5a611cccp-4"),
    ("0x1.0953f419900a7p+0", "-0x1.252f438e10c1ep-5"), ("0x1p+0", "0x0p+0"),
    ("0x1.e608cfd9a47acp-1", "0x1.aa5aa5df25984p-5"), ("0x1.ca4b31f026aap-1", "0x1.c5e53aa362eb4p-4"),
    ("0x1.b2036576afce6p-1", "0x1.526e57720db08p-3"), ("0x1.9c2d163a1aa2dp-1", "0x1.bc2860d22477p-3"),
    ("0x1.886e6037841edp-1", "0x1.1058bc8a07ee1p-2"), ("0x1.767dcf5534862p-1", "0x1.4043057b6ee09p-2")))
LOGF_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
LOGF_A0, LOGF_A1, LOGF_A2 = (float.fromhex(a) for a in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2",
                                                         "-0x1.ffffef20a4123p-2"))
LOGF_OFF = 0x3F330000  # the float32 bits where the reduced argument's range begins


def logf(x: float) -> float:
    """glibc's ``logf`` of the float32 ``x``, exactly (C's ``std::log(float)``; XGBoost's
    ``ProbToMargin``)."""
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    if x == math.inf:
        return x
    if x == 1.0:
        return 0.0
    ix = float32_bits(x)
    if ix < 0x00800000:  # subnormal: scale by 2^23 (exact) and take 23 off the exponent
        ix = float32_bits(x * 2.0 ** 23) - (23 << 23)
    tmp = (ix - LOGF_OFF) & 0xFFFFFFFF
    i = (tmp >> 19) % 16
    k = (tmp - (1 << 32) if tmp >= 1 << 31 else tmp) >> 23  # arithmetic shift of the signed value
    z = bits_float32((ix - (tmp & 0xFF800000)) & 0xFFFFFFFF)
    invc, logc = LOGF_TABLE[i]
    r = z * invc - 1.0
    y0 = logc + k * LOGF_LN2
    r2 = r * r
    y = LOGF_A1 * r + LOGF_A2
    y = LOGF_A0 * r2 + y
    y = y * r2 + (y0 + r)
    return f32(y)


def float32_bits(x: float) -> int:
    """The bits of the float32 ``x`` as an unsigned integer."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def bits_float32(bits: int) -> float:
    """The float32 whose bits are ``bits``, as a double."""
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def double_bits(x: float) -> int:
    """The bits of the double ``x`` as an unsigned integer: the nonnegative doubles' order, up to infinity."""
    return struct.unpack("<Q", struct.pack("<d", x))[0]


def bits_double(bits: int) -> float:
    """The double whose bits are ``bits``."""
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def exp(x: float) -> float:
    """C's ``exp`` (Python's math.exp calls it), with C's infinity instead of an OverflowError."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def step(x: float) -> float:
    """XGBoost's hinge link (src/objective/hinge.cu ``PredTransform``): 1.0 where ``x > 0``, else 0.0 (NaN too)."""
    return 1.0 if x > 0.0 else 0.0


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
