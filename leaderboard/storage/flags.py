"""Flags: a published model marked by the maintainers (contaminated, leaked, broken), with
a reason and an optional link, stored in the store's `flags.json`:

    {"<submission_id>": {"reason": "...", "link": "https://..." | null, "flagged_at": <epoch seconds>}}

A flagged model stays on the board, marked; the page can leave flagged models out of the
ranking, and new submissions do not duel them.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from leaderboard.submission.bounds import MAX_DESCRIPTION_LENGTH, MAX_LINK_LENGTH
from leaderboard.submission.metadata import hidden_character, is_web_address, normalize_name
from leaderboard.errors import BadInput

FLAGS_FILE = "flags.json"
MARKER = "⚑"


@dataclass(frozen=True)
class Flag:
    reason: str
    link: str | None
    flagged_at: float


def validate_flag(reason: str, link: str | None = None) -> tuple[str, str | None]:
    """(reason, link) as stored: the reason normalized like a name, the link an http(s)
    address or None; raises BadInput naming each problem."""
    problems = []
    reason = normalize_name(reason)
    hidden = hidden_character(reason)
    if not reason:
        problems.append("Reason: required, say why the model is flagged")
    elif len(reason) > MAX_DESCRIPTION_LENGTH:
        problems.append(f"Reason: at most {MAX_DESCRIPTION_LENGTH} characters, got {len(reason):,}")
    elif hidden:
        problems.append(f"Reason: invisible or text-direction characters are not allowed ({hidden})")
    link = str(link or "").strip() or None
    if link is not None and len(link) > MAX_LINK_LENGTH:
        problems.append(f"Link: at most {MAX_LINK_LENGTH} characters, got {len(link):,}")
    elif link is not None and not is_web_address(link):
        problems.append("Link: an http:// or https:// address")
    if problems:
        raise BadInput(problems)
    return reason, link


def parse_flags(data: bytes) -> tuple[dict[str, Flag], list[str]]:
    """The flags of a `flags.json`, and a problem line per entry that is not one."""
    try:
        entries = json.loads(data)
    except ValueError as e:
        return {}, [f"{FLAGS_FILE} is skipped: not JSON ({e})"]
    if not isinstance(entries, dict):
        return {}, [f"{FLAGS_FILE} is skipped: not an object of submission ids"]
    flags, problems = {}, []
    for sid, entry in entries.items():
        try:
            flags[sid] = Flag(str(entry["reason"]), entry.get("link"), float(entry["flagged_at"]))
        except (TypeError, KeyError, ValueError, AttributeError):
            problems.append(f"{FLAGS_FILE}: the entry of {sid} is skipped (it needs a reason and flagged_at)")
    return flags, problems


def flags_json(flags: dict[str, Flag]) -> dict[str, dict[str, object]]:
    return {sid: asdict(flag) for sid, flag in sorted(flags.items())}
