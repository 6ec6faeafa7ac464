"""JSON as the store and the downloads write it."""

import json
import math
from typing import TypeGuard

import orjson


def dump_json(obj: object) -> bytes:
    """Strict JSON (a NaN or infinity raises instead of writing what parsers refuse)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


# Every digit as 0, the decimal point as 1 and E as e, with + dropped.
_NUMBER_SHAPES = bytes.maketrans(b"123456789.E", b"0000000001e")


def _runs_not_fractions(shapes: bytes, digits: int) -> bool:
    """Whether `digits` digits in a row occur not after a decimal point (more runs of them
    than runs after a point)."""
    run = b"0" * digits
    return shapes.count(run) > shapes.count(b"1" + run)


def may_hold_long_numbers(data: bytes) -> bool:
    """Whether JSON text may hold an integer beyond signed 64 bits (what a submission may
    not hold) or a float that overflows to infinity: somewhere 19 digits in a row that are
    not a fraction's, or an exponent of 3 digits. The submission reader reads such text
    carefully (json, every value checked). Substring counts in the text with its digits made
    alike: a few milliseconds for 4 MB."""
    shapes = data.translate(_NUMBER_SHAPES, b"+")
    return _runs_not_fractions(shapes, 19) or b"e000" in shapes


def orjson_may_misread(data: bytes) -> bool:
    """Whether orjson may read JSON text otherwise than json does: an integer beyond its 64
    bits (above 2**64 - 1, below -2**63), which it reads as a float, has 20 digits in a row
    not a fraction's, or a minus sign and 19. (A float beyond the largest it refuses, and a
    19-digit positive integer, such as a time in nanoseconds, it reads exactly.)"""
    shapes = data.translate(_NUMBER_SHAPES, b"+")
    return _runs_not_fractions(shapes, 20) or b"-" + b"0" * 19 in shapes


# Digits made alike, to find an exponent ("0e") in orjson's text with one substring search.
_DIGITS = bytes.maketrans(b"123456789", b"000000000")


def canonical_json(obj: object) -> bytes:
    """`obj` as JSON with sorted keys, no spaces and non-ASCII characters as they are:
    json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False), UTF-8, the
    text the predictions' hash is taken of.

    orjson writes it ten times faster and alike, but for three things it has no option for:
    floats below 1e-4 or from 1e16 (Python writes 1e-05, orjson 0.00001), NaN and infinities
    (it writes null) and what it cannot write (integers beyond 64 bits, keys that are not
    strings). Its text is kept only when it holds none of them: no digit before an "e", no
    "0.0000", no "null" (inside a string too, which only costs the slower path)."""
    try:
        text = orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        text = None
    if text is None or b"0e" in text.translate(_DIGITS) or b"0.0000" in text or b"null" in text:
        return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return text


def is_json_number(v: object) -> TypeGuard[int | float]:
    """A number as JSON has it: int or float, not a bool (which Python counts as an int);
    NaN and infinity, which Python's parser accepts, included."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_finite_number(v: object) -> bool:
    """A JSON number that is neither NaN nor infinite."""
    return is_json_number(v) and math.isfinite(v)


def exact_text(v: float) -> str:
    """A number as the file wrote it, to the last digit that tells it apart (Python's
    shortest round-trip form): ":g" shows 1.0000001 as "1", hiding why it was refused."""
    text = repr(float(v))
    return text.removesuffix(".0")
