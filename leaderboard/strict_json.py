"""JSON as the store and the downloads write it."""

import json
import math


def dump_json(obj) -> bytes:
    """Strict JSON (a NaN or infinity raises instead of writing what parsers refuse)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


def is_json_number(v) -> bool:
    """A number as JSON has it: int or float, not a bool (which Python counts as an int);
    NaN and infinity, which Python's parser accepts, included."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def is_finite_number(v) -> bool:
    """A JSON number that is neither NaN nor infinite."""
    return is_json_number(v) and math.isfinite(v)


def exact_text(v: float) -> str:
    """A number as the file wrote it, to the last digit that tells it apart (Python's
    shortest round-trip form): ":g" shows 1.0000001 as "1", hiding why it was refused."""
    text = repr(float(v))
    return text.removesuffix(".0")
