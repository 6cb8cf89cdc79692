"""What a chat message may say: at most ``max_chars`` characters of printable text once its
spaces are tidied, no links (a scheme, ``www.``, or a name with a well-known top-level domain),
and the operator's word list masked (each listed word, whole and in any case, becomes asterisks
of its length). A message that is empty, too long or holds a link is refused whole
(INVALID_ARGUMENT); a listed word is masked, not refused."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from libs.errors import InvalidArgument, echo

CHAT_EMPTY = "CHAT_EMPTY"
CHAT_TOO_LONG = "CHAT_TOO_LONG"
CHAT_LINK = "CHAT_LINK"
CHAT_BAD_CHARACTERS = "CHAT_BAD_CHARACTERS"

_TLDS = "com|net|org|io|gg|ru|info|biz|xyz|me|co|tv|cc|ly|be|to|app|dev|link|site|online|top"
_LINK = re.compile(
    r"([a-z][a-z0-9+.-]*://)|(\bwww\.)|(\b[a-z0-9-]+(\.[a-z0-9-]+)*\.(" + _TLDS + r")\b)",
    re.IGNORECASE,
)
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True)
class TextRules:
    """``max_chars``: the longest message; ``words``: masked wherever they stand as a word."""

    max_chars: int = 200
    words: frozenset[str] = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        if self.max_chars < 1:
            raise ValueError("max_chars must be at least 1")


def clean(text: str, rules: TextRules) -> str:
    """``text`` as it is posted: spaces tidied, listed words masked; refused when empty, too
    long, holding control characters or a link."""
    if any(unicodedata.category(c)[0] == "C" and c not in "\t\n" for c in text):
        raise InvalidArgument(
            CHAT_BAD_CHARACTERS, f"a chat message holds control characters: {echo(text)}"
        )
    tidy = _SPACES.sub(" ", text).strip()
    if not tidy:
        raise InvalidArgument(CHAT_EMPTY, "a chat message needs some text")
    if len(tidy) > rules.max_chars:
        raise InvalidArgument(
            CHAT_TOO_LONG,
            f"a chat message is at most {rules.max_chars} characters, not {len(tidy)}",
        )
    if _LINK.search(tidy):
        raise InvalidArgument(CHAT_LINK, "links are not allowed in chat")
    return mask(tidy, rules.words)


def mask(text: str, words: frozenset[str]) -> str:
    """``text`` with every listed word (whole, any case) replaced by asterisks."""
    if not words:
        return text
    pattern = re.compile(
        r"\b(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b",
        re.IGNORECASE,
    )
    return pattern.sub(lambda m: "*" * len(m.group(0)), text)


def word_list(raw: str) -> frozenset[str]:
    """The word list of a setting: comma-separated, case folded, blanks dropped."""
    return frozenset(w.strip().casefold() for w in raw.split(",") if w.strip())
