"""JSON as the store and the downloads write it."""

import json


def dump_json(obj) -> bytes:
    """Strict JSON (a NaN or infinity raises instead of writing what parsers refuse)."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
