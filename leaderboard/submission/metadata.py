"""A submission's metadata (the form's fields), its title and its id."""
from __future__ import annotations

import functools
import math
import re
import unicodedata
from dataclasses import asdict, dataclass
from urllib.parse import urlparse

try:  # PyICU (the `app` extra) compiles against ICU: a model team's light install may lack it
    import icu
except ModuleNotFoundError:
    icu = None

from leaderboard.errors import BadInput
from leaderboard.submission.bounds import MAX_DESCRIPTION_LENGTH, MAX_LINK_LENGTH, MAX_NAME_LENGTH
from leaderboard.submission.parsing import ParsedSubmission

MODEL_TYPES = ("chat", "pretrained", "ensemble")
PRECISIONS = ("float32", "float16", "bfloat16", "8bit", "4bit")
MAX_PARAMETERS = 100_000.0  # billions
MAX_INPUT_LENGTH = 100_000_000  # tokens


@dataclass(frozen=True)
class SubmissionMetadata:
    team_name: str
    model_name: str
    model_type: str
    parameters: float  # billions
    input_length: int  # tokens
    precision: str
    description: str
    link_to_model: str

    @property
    def title(self) -> str:
        return f"{self.team_name}/{self.model_name}"

    def to_dict(self) -> dict:
        return asdict(self)


# Invisible and direction-changing characters: control (Cc), format (Cf: zero-width
# spaces and joiners, bidirectional overrides), surrogates (Cs), line/paragraph separators,
# and the default-ignorable code points fonts draw as nothing (U+3164 HANGUL FILLER, ...).
_HIDDEN_CATEGORIES = {"Cc", "Cf", "Cs", "Zl", "Zp"}
# UTS #39 confusable skeletons: the Unicode Consortium's own implementation (ICU).
_SPOOF_CHECKER = icu.SpoofChecker() if icu else None
LOOKALIKES_UNCHECKED = ("PyICU is not installed, so this pre-submission did not check for published titles that "
                        "only look alike nor for default-ignorable characters in names; publication checks both "
                        "(pip install 'duel-leaderboard[app]' installs it)")
PUBLISHING_NEEDS_ICU = ("publishing needs PyICU, which checks titles for look-alikes of published ones: "
                        "pip install 'duel-leaderboard[app]' (it compiles against ICU: Debian's libicu-dev)")


def lookalikes_checked() -> bool:
    """Whether titles are compared by their confusable skeletons (PyICU is installed)."""
    return _SPOOF_CHECKER is not None


def _is_hidden(c: str) -> bool:
    return (unicodedata.category(c) in _HIDDEN_CATEGORIES
            or (icu is not None and icu.Char.hasBinaryProperty(c, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT)))


def normalize_name(text) -> str:
    """A name as stored and compared: Unicode NFKC, whitespace runs collapsed to one space."""
    return " ".join(unicodedata.normalize("NFKC", str(text or "")).split())


def title_keys(title: str) -> tuple[str, str]:
    """What two titles must differ in to be different models: the UTS #39 confusable
    skeletons of the title in lower case and in upper case, after NFKC and removing hidden
    characters (older stored titles may hold them). Titles are the same when either key
    is: lower case catches "I" for "i" and a Greek "ο" for "o", upper case a Greek "Β" for
    "B" (whose lower case is no "b"). Without PyICU, the two cases alone."""
    return _title_keys(title, _SPOOF_CHECKER)


@functools.lru_cache(maxsize=65_536)  # a pre-submission compares every published title's (10,000: 0.13 s)
def _title_keys(title: str, checker) -> tuple[str, str]:
    visible = _visible(normalize_name(title))
    if checker is None:
        return visible.casefold(), visible.upper()
    return checker.getSkeleton(0, visible.casefold()), checker.getSkeleton(0, visible.upper())


def _visible(name: str) -> str:
    """`name` without its hidden characters. Printable ASCII holds none (its only hidden
    characters are the controls), so such a name is kept whole without looking at each
    character: a pre-submission compares the keys of every published title (10,000 titles:
    0.5 s character by character)."""
    if name.isascii() and name.isprintable():
        return name
    return "".join(c for c in name if not _is_hidden(c))


_UNNAMED = {"Cc": "control character", "Cs": "lone surrogate"}


def _describe_character(c: str) -> str:
    return f"U+{ord(c):04X} {unicodedata.name(c, None) or _UNNAMED.get(unicodedata.category(c), 'unnamed character')}"


def hidden_character(text: str) -> str | None:
    c = next((c for c in text if _is_hidden(c)), None)
    return None if c is None else _describe_character(c)


def _name_problem(raw, name: str) -> str | None:
    """What is wrong with a team or model name (`name`: `raw` normalized), or None. Hidden
    characters are named as typed (NFKC turns U+3164 into another filler)."""
    if not name:
        return "required"
    if len(name) > MAX_NAME_LENGTH:
        return f"at most {MAX_NAME_LENGTH} characters, got {len(name)}"
    hidden = hidden_character(" ".join(str(raw).split())) or hidden_character(name)
    if hidden:
        return f"invisible or text-direction characters are not allowed ({hidden})"
    if not any(unicodedata.category(c)[0] in "LN" for c in name):
        return f"needs a letter or digit (got only {_describe_character(name.replace(' ', '')[0])})"
    return None


def is_web_address(text: str) -> bool:
    try:
        url = urlparse(text)
    except ValueError:  # e.g. a malformed IPv6 host
        return False
    return (url.scheme in ("http", "https") and bool(url.netloc) and not hidden_character(text)
            and not any(c.isspace() for c in text))


def _field_problem(label: str, expect: str, value) -> str:
    if value is None or str(value).strip() == "":
        return f"{label}: required, {expect}"
    return f"{label}: {expect}, got {str(value)[:40]}"


def _whole_number(value) -> int:
    """An integer from a form value (int, integral float or digit string); else ValueError."""
    if isinstance(value, bool):
        raise ValueError
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError
        return int(value)
    return value if isinstance(value, int) else int(str(value).strip())


def validate_metadata(team_name, model_name, model_type, parameters, input_length, precision,
                      link_to_model, description="") -> SubmissionMetadata:
    """The reference's form rules plus length and range caps; raises BadInput
    naming each bad field."""
    problems = []
    given_team, given_model = team_name or "", model_name or ""
    team_name, model_name = normalize_name(team_name), normalize_name(model_name)
    for label, raw, value in (("Team name", given_team, team_name), ("Model name", given_model, model_name)):
        problem = _name_problem(raw, value)
        if problem:
            problems.append(f"{label}: {problem}")
    if model_type not in MODEL_TYPES:
        problems.append(f"Model type: choose one of {', '.join(MODEL_TYPES)}")
    given_parameters = parameters
    try:
        parameters = float(given_parameters)
        if not (math.isfinite(parameters) and 0 < parameters <= MAX_PARAMETERS):
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        problems.append(_field_problem("Parameters", f"a number of billions greater than 0 and at most "
                                                     f"{MAX_PARAMETERS:,.0f}", given_parameters))
    given_length = input_length
    try:
        input_length = _whole_number(given_length)
        if not 0 < input_length <= MAX_INPUT_LENGTH:
            raise ValueError
    except (TypeError, ValueError, OverflowError):
        problems.append(_field_problem("Input length", f"a whole number of tokens from 1 to {MAX_INPUT_LENGTH:,}",
                                       given_length))
    if precision not in PRECISIONS:
        problems.append(f"Precision: choose one of {', '.join(PRECISIONS)}")
    link_to_model = str(link_to_model or "").strip()
    if len(link_to_model) > MAX_LINK_LENGTH:
        problems.append(f"Link to model: at most {MAX_LINK_LENGTH} characters, got {len(link_to_model):,}")
    elif not is_web_address(link_to_model):
        problems.append("Link to model: an http:// or https:// address")
    description = str(description or "").strip()
    if len(description) > MAX_DESCRIPTION_LENGTH:
        problems.append(f"Description: at most {MAX_DESCRIPTION_LENGTH} characters, got {len(description):,}")
    if problems:
        raise BadInput(problems)
    return SubmissionMetadata(team_name, model_name, model_type, parameters, input_length, precision,
                              description, link_to_model)


def submission_id(metadata: SubmissionMetadata, parsed: ParsedSubmission) -> str:
    """`<team[:7]>_<model[:7]>_<sha7 predictions>_<sha7 results>`, safe in a file name."""
    def safe(text: str) -> str:
        return re.sub(r"[^A-Za-z0-9-]", "-", text[:7])
    return (f"{safe(metadata.team_name)}_{safe(metadata.model_name)}_"
            f"{parsed.predictions_sha256[:7]}_{parsed.results_sha256[:7]}")
