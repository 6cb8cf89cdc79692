"""The gateway's chat settings (HOLDEM_CHAT_*): how long and how often a player may write, the
word list masked in messages, who moderates, and how long messages are kept (the JetStream
stream's max age and its messages per room). Declared here, read with the gateway's others
(config.py); the rules themselves are libs/chat's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from libs.chat.flood import FloodRules
from libs.chat.text import TextRules, word_list
from libs.platform.configvars import Values, Var, VarType, integer, number

WORDS: VarType[frozenset[str]] = VarType("comma-separated words", word_list)

MAX_CHARS = Var(
    "HOLDEM_CHAT_MAX_CHARS",
    integer(minimum=1, maximum=1000),
    "200",
    "longest chat message, in characters (spaces tidied)",
)
MESSAGES = Var(
    "HOLDEM_CHAT_MESSAGES_PER_WINDOW",
    integer(minimum=1, maximum=1000),
    "5",
    "chat messages one player may post in HOLDEM_CHAT_WINDOW_SECONDS (at one gateway)",
)
WINDOW = Var(
    "HOLDEM_CHAT_WINDOW_SECONDS",
    number(minimum=0.1, maximum=3600),
    "10",
    "the window of HOLDEM_CHAT_MESSAGES_PER_WINDOW",
)
REPEAT = Var(
    "HOLDEM_CHAT_REPEAT_SECONDS",
    number(minimum=0, maximum=3600),
    "30",
    "the same chat message again from one player within this many seconds is refused (flooding)",
)
BANNED_WORDS = Var(
    "HOLDEM_CHAT_BANNED_WORDS",
    WORDS,
    "",
    "words masked with asterisks in chat (comma-separated, any case)",
)
MODERATORS = Var(
    "HOLDEM_CHAT_MODERATORS",
    WORDS,
    "",
    "usernames of registered players who may mute or remove players from chat (comma-separated)",
)
RETENTION = Var(
    "HOLDEM_CHAT_RETENTION_SECONDS",
    integer(minimum=60, maximum=31_622_400),
    "86400",
    "how long chat messages are kept (the HOLDEM_CHAT stream's max age)",
)
KEEP_PER_ROOM = Var(
    "HOLDEM_CHAT_KEEP_PER_ROOM",
    integer(minimum=10, maximum=100_000),
    "1000",
    "most chat messages kept per room (the oldest go first)",
)
CHAT_VARIABLES: tuple[Var[Any], ...] = (
    MAX_CHARS,
    MESSAGES,
    WINDOW,
    REPEAT,
    BANNED_WORDS,
    MODERATORS,
    RETENTION,
    KEEP_PER_ROOM,
)


@dataclass(frozen=True)
class ChatConfig:
    text: TextRules = field(default_factory=TextRules)
    flood: FloodRules = field(default_factory=FloodRules)
    moderators: frozenset[str] = frozenset()
    retention_seconds: int = 86400
    keep_per_room: int = 1000


def chat_config(values: Values) -> ChatConfig:
    return ChatConfig(
        text=TextRules(max_chars=values[MAX_CHARS], words=values[BANNED_WORDS]),
        flood=FloodRules(
            messages=values[MESSAGES],
            window_seconds=values[WINDOW],
            repeat_seconds=values[REPEAT],
        ),
        moderators=values[MODERATORS],
        retention_seconds=values[RETENTION],
        keep_per_room=values[KEEP_PER_ROOM],
    )
