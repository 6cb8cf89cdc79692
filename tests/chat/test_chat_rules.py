"""libs/chat, pure: what a message may say, how often, where it goes, who may not speak."""

from __future__ import annotations

import pytest

from libs.chat import moderation
from libs.chat.flood import CHAT_REPEATED, CHAT_TOO_FAST, FloodGuard, FloodRules
from libs.chat.moderation import Action, Sanction
from libs.chat.rooms import lobby_chat, table_chat
from libs.chat.text import (
    CHAT_BAD_CHARACTERS,
    CHAT_EMPTY,
    CHAT_LINK,
    CHAT_TOO_LONG,
    TextRules,
    clean,
    word_list,
)
from libs.errors import InvalidArgument, PermissionDenied, ResourceExhausted

RULES = TextRules(max_chars=20, words=word_list("Darn, heck ,,"))


def test_text_is_tidied_and_listed_words_are_masked_whole_in_any_case() -> None:
    assert clean("  nice   hand  ", RULES) == "nice hand"
    assert clean("DARN it, heck!", RULES) == "**** it, ****!"
    assert clean("darned hecks", RULES) == "darned hecks"  # whole words only
    assert word_list("") == frozenset()


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", CHAT_EMPTY),
        ("   ", CHAT_EMPTY),
        ("x" * 21, CHAT_TOO_LONG),
        ("see https://a.b", CHAT_LINK),
        ("go www.evil", CHAT_LINK),
        ("cheap chips.com", CHAT_LINK),
        ("HTTP://X", CHAT_LINK),
        ("bell\x07", CHAT_BAD_CHARACTERS),
        ("rtl\u202e", CHAT_BAD_CHARACTERS),
    ],
)
def test_empty_long_linked_or_control_text_is_refused(text: str, code: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        clean(text, RULES)
    assert caught.value.code == code


def test_the_length_counts_after_tidying() -> None:
    assert clean("a" + " " * 50 + "b", RULES) == "a b"
    assert clean("x" * 20, RULES) == "x" * 20


def test_flooding_too_fast_waits_for_the_oldest_to_leave_the_window() -> None:
    guard = FloodGuard(FloodRules(messages=2, window_seconds=10, repeat_seconds=0))
    for at, text in ((0.0, "a"), (1.0, "b")):
        guard.check("p", text, at)
        guard.record("p", text, at)
    with pytest.raises(ResourceExhausted) as caught:
        guard.check("p", "c", 2.0)
    assert caught.value.code == CHAT_TOO_FAST
    assert caught.value.retry_after_ms == 8001
    guard.check("q", "c", 2.0)  # another sender is not limited
    guard.check("p", "c", 10.0)  # the first left the window


def test_the_same_text_again_soon_is_flooding_whatever_its_case() -> None:
    guard = FloodGuard(FloodRules(messages=100, window_seconds=1, repeat_seconds=30))
    guard.record("p", "gg", 0.0)
    with pytest.raises(ResourceExhausted) as caught:
        guard.check("p", "GG", 5.0)
    assert caught.value.code == CHAT_REPEATED
    guard.check("p", "gg", 30.0)


def test_the_guard_forgets_the_oldest_senders_past_its_bound() -> None:
    guard = FloodGuard(FloodRules(messages=1, window_seconds=100), max_senders=2)
    for sender in ("a", "b", "c"):
        guard.record(sender, "x", 0.0)
    guard.check("a", "y", 1.0)  # forgotten
    with pytest.raises(ResourceExhausted):
        guard.check("c", "y", 1.0)


def test_rooms_keep_spectators_apart_only_when_the_table_says_so() -> None:
    assert lobby_chat().post == lobby_chat().read == "lobby"
    together = table_chat("t1", seated=False, separate=False)
    assert (together.post, together.read, together.scope) == ("table.t1.main",) * 2 + ("table.t1",)
    seated = table_chat("t1", seated=True, separate=True)
    assert (seated.post, seated.read) == ("table.t1.main", "table.t1.main")
    watching = table_chat("t1", seated=False, separate=True)
    assert (watching.post, watching.read) == ("table.t1.spectators", "table.t1.*")


def test_mutes_refuse_oneself_and_stay_bounded() -> None:
    with pytest.raises(InvalidArgument) as caught:
        moderation.muted([], "me", "me", True)
    assert caught.value.code == moderation.MUTE_SELF
    assert moderation.muted(["b"], "me", "a", True) == ["a", "b"]
    assert moderation.muted(["a", "b"], "me", "a", False) == ["b"]
    full = [f"p{i}" for i in range(moderation.MAX_MUTES)]
    with pytest.raises(ResourceExhausted):
        moderation.muted(full, "me", "one_more", True)
    assert moderation.muted(full, "me", "p1", False) == sorted(set(full) - {"p1"})


def test_a_sanction_mutes_or_removes_until_its_end() -> None:
    mute = moderation.sanction(Action.MUTE, 60, now=1000.0)
    assert mute == Sanction(Action.MUTE, 1060.0)
    with pytest.raises(PermissionDenied) as caught:
        moderation.may_post(mute, 1059.0)
    assert caught.value.code == moderation.CHAT_MUTED
    moderation.may_read(mute, 1059.0)  # a muted player still reads
    moderation.may_post(mute, 1060.0)  # over
    removal = moderation.sanction(Action.REMOVE, 0, now=0.0)
    assert removal.until == moderation.DEFAULT_SANCTION_SECONDS
    for check in (moderation.may_post, moderation.may_read):
        with pytest.raises(PermissionDenied) as caught:
            check(removal, 1.0)
        assert caught.value.code == moderation.CHAT_REMOVED
    restored = moderation.sanction(Action.RESTORE, 0, now=5.0)
    moderation.may_post(restored, 5.0)
    moderation.may_read(restored, 5.0)
    moderation.may_post(None, 5.0)
    with pytest.raises(InvalidArgument):
        moderation.sanction(Action.MUTE, moderation.MAX_SANCTION_SECONDS + 1, now=0.0)
