"""User text in markdown: shown literally, never as HTML, markup or a script link."""
from __future__ import annotations

import re
from urllib.parse import quote

# Markdown's punctuation plus `<` and `&`: a backslash-escaped `<` cannot open a tag and an
# escaped `&` cannot start an entity, so the text shows exactly as typed (apostrophes and
# quotes included) while HTML stays inert; an escaped `:` keeps Gradio's autolinking from
# making a link of an address in the text.
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>:])")


def escape_markdown(text) -> str:
    """User text shown as literal text in a markdown cell: no HTML, no markup, no links."""
    escaped = str(text).replace("&", "&amp;").replace("<", "&lt;")
    return _MARKDOWN_SPECIAL.sub(r"\\\1", escaped)


def code_span(text) -> str:
    """User text as a markdown code span, shown literally. A code span takes no backslash
    escapes, so its fence is one backtick longer than the longest run of backticks inside
    (padded with a space where the text starts or ends with one); line breaks become spaces,
    as a blank line would end the paragraph."""
    text = " ".join(str(text).splitlines())
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown_link(text, url) -> str:
    """A link to an http(s) address; anything else (javascript:, relative) stays plain text."""
    url = str(url or "")
    if not url.startswith(("http://", "https://")):
        return escape_markdown(text)
    return f"[{escape_markdown(text)}]({quote(url, safe=':/?&=#%@+,;~')})"


def app_link(text, query: dict, title: str | None = None) -> str:
    """A link to a view of this app (`?tab=details&model=...`), the query percent-encoded;
    `title` is shown on hover."""
    hover = "" if title is None else ' "' + escape_markdown(title).replace('"', '\\"') + '"'
    return f"[{escape_markdown(text)}](?{app_query(query)}{hover})"


def app_query(query: dict) -> str:
    """A view's query string, its values percent-encoded: "tab=details&model=..."."""
    return "&".join(f"{k}={quote(str(v), safe='')}" for k, v in query.items())
