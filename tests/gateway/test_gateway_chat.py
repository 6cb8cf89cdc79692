"""Chat through the gateway with real processes (nats-server, redis-server, lobby, table,
gateway): the lobby room and a table's, spectators kept apart when the table says so, the word
list, mutes, a moderator's mute and removal, what is refused (and that a refusal stores
nothing), idempotent posts, and the stream kept for the configured time."""

from __future__ import annotations

import asyncio
import time
import uuid

import grpc
import nats
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from tests.gateway.chat_steps import (
    MODERATOR,
    Person,
    chat_stack,
    code_of,
    person,
    read_chat,
    refused,
    send,
    trailers,
)
from tests.gateway.stack import CONFIG, GatewayStack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["chat_stack"]

S = grpc.StatusCode
g = gateway_pb2


def test_lobby_chat_reaches_everyone_masked_and_never_from_the_server(
    chat_stack: GatewayStack,
) -> None:
    with grpc.insecure_channel(chat_stack.gateway.address) as channel:
        gw = chat_stack.gateway_stub(channel)
        ann, bob = person(gw, "ann"), person(gw, "bob")
        posted = send(gw, ann, "  well   played, DARN  ")
        assert posted.text == "well played, ****" and posted.room == "lobby"
        assert posted.sender_id == ann.player_id and not posted.spectator
        end = f"end {uuid.uuid4().hex[:6]}"
        send(gw, bob, end)
        seen = read_chat(gw, bob, end)
        mine = [m for m in seen if m.sender_id in (ann.player_id, bob.player_id)]
        assert [m.text for m in mine] == ["well played, ****", end]
        assert all(m.sender_id for m in seen)  # only players' messages: the server writes none
        assert seen[-1].sequence > posted.sequence
        # idempotent: the same key posts once
        key = uuid.uuid4().hex
        request = g.SendChatRequest(text="once only", idempotency_key=key)
        first = gw.SendChat(request, metadata=ann.meta, timeout=30).message
        again = gw.SendChat(request, metadata=ann.meta, timeout=30).message
        assert first.sequence == again.sequence


def test_a_table_keeps_its_spectators_apart_when_asked(chat_stack: GatewayStack) -> None:
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.separate_spectator_chat = True
    apart = chat_stack.open_table(config)
    together = chat_stack.open_table()
    with grpc.insecure_channel(chat_stack.gateway.address) as channel:
        gw = chat_stack.gateway_stub(channel)
        seated, watcher = person(gw, "seated"), person(gw, "watcher")
        for table_id in (apart, together):
            chat_stack.seat(table_id, seated.player_id, 100)
        assert chat_stack.view(apart).config.separate_spectator_chat
        said = send(gw, seated, "players only", apart)
        aside = send(gw, watcher, "spectators here", apart)
        assert (said.room, said.spectator) == (f"table.{apart}.main", False)
        assert (aside.room, aside.spectator) == (f"table.{apart}.spectators", True)
        last = send(gw, seated, "last word", apart)
        players_see = read_chat(gw, seated, last.text, apart)
        assert [m.text for m in players_see] == ["players only", "last word"]
        spectators_see = read_chat(gw, watcher, last.text, apart)
        assert [m.text for m in spectators_see] == ["players only", "spectators here", "last word"]
        # a table that does not keep them apart: one room, the spectator flagged
        mixed = send(gw, watcher, "hello all", together)
        assert (mixed.room, mixed.spectator) == (f"table.{together}.main", True)
        assert [m.text for m in read_chat(gw, seated, "hello all", together)] == ["hello all"]
        # nothing of the table's own (seats, hands) ever appears in its chat
        assert {m.sender_id for m in spectators_see} == {seated.player_id, watcher.player_id}
        error = refused(
            gw.SendChat, g.SendChatRequest(table_id="nosuchtable", text="x"), metadata=seated.meta
        )
        assert error.code() == S.NOT_FOUND


def test_a_player_mutes_another_for_themselves_only(chat_stack: GatewayStack) -> None:
    with grpc.insecure_channel(chat_stack.gateway.address) as channel:
        gw = chat_stack.gateway_stub(channel)
        loud, quiet, other = person(gw, "loud"), person(gw, "quiet"), person(gw, "other")
        muted = gw.MuteChatPlayer(
            g.MuteChatPlayerRequest(player_id=loud.player_id, muted=True),
            metadata=quiet.meta,
            timeout=30,
        )
        assert list(muted.muted_player_ids) == [loud.player_id]
        send(gw, loud, "LOUD NOISE")
        end = f"quiet end {uuid.uuid4().hex[:6]}"
        send(gw, other, end)
        assert loud.player_id not in {m.sender_id for m in read_chat(gw, quiet, end)}
        assert "LOUD NOISE" in [m.text for m in read_chat(gw, other, end)]
        unmuted = gw.MuteChatPlayer(
            g.MuteChatPlayerRequest(player_id=loud.player_id, muted=False),
            metadata=quiet.meta,
            timeout=30,
        )
        assert list(unmuted.muted_player_ids) == []
        assert "LOUD NOISE" in [m.text for m in read_chat(gw, quiet, end)]
        # bad input: oneself, an unknown player; nothing changed
        for target, status, code in (
            (quiet.player_id, S.INVALID_ARGUMENT, "CHAT_MUTE_SELF"),
            ("nobody_at_all", S.NOT_FOUND, "UNKNOWN_PLAYER"),
        ):
            error = refused(
                gw.MuteChatPlayer,
                g.MuteChatPlayerRequest(player_id=target, muted=True),
                metadata=quiet.meta,
            )
            assert (error.code(), code_of(error)) == (status, code)
        after = gw.MuteChatPlayer(
            g.MuteChatPlayerRequest(player_id=other.player_id, muted=False),
            metadata=quiet.meta,
            timeout=30,
        )
        assert list(after.muted_player_ids) == []


def test_a_moderator_mutes_removes_and_restores(chat_stack: GatewayStack) -> None:
    with grpc.insecure_channel(chat_stack.gateway.address) as channel:
        gw = chat_stack.gateway_stub(channel)
        mod, troll, bystander = person(gw, MODERATOR), person(gw, "troll"), person(gw, "by")

        def moderate(
            who: Person, sanction: g.ChatSanction.ValueType, seconds: int = 0
        ) -> g.ModerateChatResponse:
            return gw.ModerateChat(
                g.ModerateChatRequest(
                    player_id=troll.player_id, sanction=sanction, duration_seconds=seconds
                ),
                metadata=who.meta,
                timeout=30,
            )

        error = refused(
            gw.ModerateChat,
            g.ModerateChatRequest(player_id=troll.player_id, sanction=g.CHAT_SANCTION_MUTE),
            metadata=bystander.meta,
        )
        assert (error.code(), code_of(error)) == (S.PERMISSION_DENIED, "NOT_A_MODERATOR")
        answer = moderate(mod, g.CHAT_SANCTION_MUTE, 600)
        assert answer.until.seconds > time.time() + 500
        error = refused(gw.SendChat, g.SendChatRequest(text="let me talk"), metadata=troll.meta)
        assert (error.code(), code_of(error)) == (S.PERMISSION_DENIED, "CHAT_MUTED")
        end = f"still reading {uuid.uuid4().hex[:6]}"
        send(gw, bystander, end)
        assert read_chat(gw, troll, end)[-1].text == end  # muted, still reads
        assert "let me talk" not in [m.text for m in read_chat(gw, bystander, end)]
        moderate(mod, g.CHAT_SANCTION_REMOVE)
        stream = gw.WatchChat(g.WatchChatRequest(), metadata=troll.meta, timeout=30)
        with pytest.raises(grpc.RpcError) as caught:
            next(iter(stream))
        assert caught.value.code() == S.PERMISSION_DENIED
        moderate(mod, g.CHAT_SANCTION_RESTORE)
        assert send(gw, troll, "sorry").text == "sorry"
        error = refused(
            gw.ModerateChat,
            g.ModerateChatRequest(player_id="nobody_at_all", sanction=g.CHAT_SANCTION_MUTE),
            metadata=mod.meta,
        )
        assert error.code() == S.NOT_FOUND


def test_bad_messages_are_refused_and_store_nothing(chat_stack: GatewayStack) -> None:
    with grpc.insecure_channel(chat_stack.gateway.address) as channel:
        gw = chat_stack.gateway_stub(channel)
        spammer, reader = person(gw, "spammer"), person(gw, "reader")
        cases = (
            ("x" * 51, S.INVALID_ARGUMENT, "CHAT_TOO_LONG"),
            ("x" * 1001, S.INVALID_ARGUMENT, ""),  # the edge's bound
            ("visit https://cheap.example", S.INVALID_ARGUMENT, "CHAT_LINK"),
            ("buy at chips.com", S.INVALID_ARGUMENT, "CHAT_LINK"),
            ("   ", S.INVALID_ARGUMENT, "CHAT_EMPTY"),
            ("", S.INVALID_ARGUMENT, ""),
        )
        for text, status, code in cases:
            error = refused(gw.SendChat, g.SendChatRequest(text=text), metadata=spammer.meta)
            assert error.code() == status, text[:40]
            if code:
                assert code_of(error) == code, text[:40]
        send(gw, spammer, "buy chips")  # 1 of 4 this hour
        error = refused(gw.SendChat, g.SendChatRequest(text="BUY CHIPS"), metadata=spammer.meta)
        assert (error.code(), code_of(error)) == (S.RESOURCE_EXHAUSTED, "CHAT_REPEATED")
        for n in range(3):
            send(gw, spammer, f"spam {n}")
        error = refused(gw.SendChat, g.SendChatRequest(text="spam 3"), metadata=spammer.meta)
        assert (error.code(), code_of(error)) == (S.RESOURCE_EXHAUSTED, "CHAT_TOO_FAST")
        hints = trailers(error)
        assert any("retry" in key for key in hints), hints
        end = f"reader end {uuid.uuid4().hex[:6]}"
        send(gw, reader, end)
        stored = [m.text for m in read_chat(gw, reader, end) if m.sender_id == spammer.player_id]
        assert stored == ["buy chips", "spam 0", "spam 1", "spam 2"]


def test_the_chat_stream_keeps_messages_for_the_configured_time(
    chat_stack: GatewayStack,
) -> None:
    async def stream_config() -> tuple[float, int]:
        nc = await nats.connect(chat_stack.nats_url)
        try:
            info = await nc.jetstream().stream_info("HOLDEM_CHAT")
        finally:
            await nc.close()
        return float(info.config.max_age or 0), int(info.config.max_msgs_per_subject or 0)

    assert asyncio.run(stream_config()) == (7200.0, 500)


def test_the_terminal_command_posts_and_mutes(
    chat_stack: GatewayStack, capsys: pytest.CaptureFixture[str]
) -> None:
    from libs.cli.main import main

    address = chat_stack.gateway.address
    text = f"from the terminal {uuid.uuid4().hex[:6]}"
    assert main(["chat", "--gateway", address, "--guest", "Term", "--say", text]) == 0
    printed = capsys.readouterr().out
    assert printed.strip().endswith(f"Term: {text}")
    with grpc.insecure_channel(address) as channel:
        gw = chat_stack.gateway_stub(channel)
        reader = person(gw, "termreader")
        said = [m for m in read_chat(gw, reader, text) if m.text == text]
        assert said and said[0].sender_name == "Term"
    assert main(["chat", "--gateway", address, "--guest", "Term", "--mute", "no_such_one"]) == 1
    assert "no player has that id" in capsys.readouterr().err


def test_one_who_sits_down_stops_reading_the_spectators_on_the_same_stream(
    chat_stack: GatewayStack,
) -> None:
    """A chat stream opened as a spectator follows the seat: once seated, the spectators' room
    is no longer passed on, though the stream was never reopened."""
    config = common_pb2.TableConfig()
    config.CopyFrom(CONFIG)
    config.separate_spectator_chat = True
    apart = chat_stack.open_table(config)
    with grpc.insecure_channel(chat_stack.gateway.address) as channel:
        gw = chat_stack.gateway_stub(channel)
        sitter, rail, player = person(gw, "sitter"), person(gw, "rail"), person(gw, "player")
        chat_stack.seat(apart, player.player_id, 100)
        stream = gw.WatchChat(g.WatchChatRequest(table_id=apart), metadata=sitter.meta, timeout=60)
        got: list[str] = []

        def until(text: str) -> None:
            for message in stream:
                got.append(message.text)
                if message.text == text:
                    return
            raise AssertionError(f"{text!r} never came: {got}")

        try:
            send(gw, rail, "rail before", apart)
            send(gw, player, "mark one", apart)
            until("mark one")
            chat_stack.seat(apart, sitter.player_id, 100)
            send(gw, rail, "rail while seated", apart)
            send(gw, player, "mark two", apart)
            until("mark two")
        finally:
            stream.cancel()
    assert got == ["rail before", "mark one", "mark two"]
