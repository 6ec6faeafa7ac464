"""Size bounds of the text a submission carries: the form's fields and the file's
`metadata` object, which is stored with the submission and shown in its details."""
from __future__ import annotations

import json

MAX_NAME_LENGTH = 100  # team and model names, on the form and in the file's metadata
MAX_DESCRIPTION_LENGTH = 2000  # the form's description
MAX_LINK_LENGTH = 500
MAX_FILE_DESCRIPTION_LENGTH = 4096  # a description in the file's metadata
# Any other field of the file's metadata, as JSON: a chat template (a few KB) kept per run
# fits many times over; a whole metadata object of such fields stays a small part of a file.
MAX_METADATA_FIELD_BYTES = 65_536
MAX_METADATA_BYTES = 262_144

# Fields of the file's metadata bounded like the form's: (character bound, what it is).
_TEXT_FIELDS = {"team_name": (MAX_NAME_LENGTH, " (as the form's Team name)"),
                "model_name": (MAX_NAME_LENGTH, " (as the form's Model name)"),
                "description": (MAX_FILE_DESCRIPTION_LENGTH, "")}


def _json_bytes(value) -> int:
    return len(json.dumps(value, ensure_ascii=False).encode())


def metadata_problems(metadata) -> list[str]:
    """What is too large in a submission file's `metadata`, one problem per field."""
    if not isinstance(metadata, dict):
        return [] if metadata is None else [f"metadata: must be an object, got {type(metadata).__name__}"]
    problems = []
    for key, value in metadata.items():
        bound, what = _TEXT_FIELDS.get(key, (None, ""))
        if bound is not None and isinstance(value, str):
            if len(value) > bound:
                problems.append(f"metadata.{key}: at most {bound:,} characters{what}, got {len(value):,}")
        elif _json_bytes(value) > MAX_METADATA_FIELD_BYTES:
            problems.append(f"metadata.{key}: at most {MAX_METADATA_FIELD_BYTES:,} bytes as JSON, "
                            f"got {_json_bytes(value):,}")
    if not problems and _json_bytes(metadata) > MAX_METADATA_BYTES:
        problems.append(f"metadata: at most {MAX_METADATA_BYTES:,} bytes as JSON in all, got {_json_bytes(metadata):,}")
    return problems
