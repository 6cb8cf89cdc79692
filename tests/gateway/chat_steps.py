"""Helpers of the chat tests through the gateway: a gateway of their own (tight chat limits, a
word list, a moderator), accounts registered at the lobby, and reading a WatchChat stream."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from tests.gateway.stack import GatewayStack, bearer, start_gateway_stack

PASSWORD = "correct horse battery"
MODERATOR = "chatmod"
CHAT_ENV = {
    "HOLDEM_CHAT_BANNED_WORDS": "darn,heck",
    "HOLDEM_CHAT_MODERATORS": MODERATOR,
    "HOLDEM_CHAT_MESSAGES_PER_WINDOW": "4",
    "HOLDEM_CHAT_WINDOW_SECONDS": "3600",
    "HOLDEM_CHAT_REPEAT_SECONDS": "3600",
    "HOLDEM_CHAT_MAX_CHARS": "50",
    "HOLDEM_CHAT_RETENTION_SECONDS": "7200",
    "HOLDEM_CHAT_KEEP_PER_ROOM": "500",
    "HOLDEM_GATEWAY_RATE_BURST": "500",
}


@pytest.fixture(scope="module")
def chat_stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[GatewayStack]:
    stack = start_gateway_stack(tmp_path_factory.mktemp("chat"), nats_url, redis_url, CHAT_ENV)
    yield stack
    stack.stop()


@dataclass(frozen=True)
class Person:
    name: str
    player_id: str
    token: str

    @property
    def meta(self) -> tuple[tuple[str, str], ...]:
        return bearer(self.token)


def person(gw: gateway_pb2_grpc.GatewayServiceStub, name: str) -> Person:
    """A registered player (so mutes and sanctions can name them)."""
    username = f"{name}_{uuid.uuid4().hex[:6]}" if name != MODERATOR else name
    gw.Register(gateway_pb2.RegisterRequest(username=username, password=PASSWORD), timeout=30)
    login = gw.Login(gateway_pb2.LoginRequest(username=username, password=PASSWORD), timeout=30)
    return Person(username, login.player.player_id, login.token)


def send(gw: Any, who: Person, text: str, table_id: str = "") -> gateway_pb2.ChatMessage:
    request = gateway_pb2.SendChatRequest(table_id=table_id, text=text)
    return gw.SendChat(request, metadata=who.meta, timeout=30).message  # type: ignore[no-any-return]


def refused(call: Any, *args: Any, **kwargs: Any) -> grpc.RpcError:
    """The error ``call`` fails with (the test fails if it succeeds)."""
    try:
        call(*args, timeout=30, **kwargs)
    except grpc.RpcError as exc:
        return exc
    raise AssertionError("the call was accepted")


def code_of(error: grpc.RpcError) -> str:
    return trailers(error).get("x-error-code", "")


def trailers(error: grpc.RpcError) -> dict[str, str]:
    metadata: Any = error.trailing_metadata()
    return {str(key): str(value) for key, value in metadata or ()}


def read_chat(
    gw: Any, who: Person, until_text: str, table_id: str = "", seconds: float = 20.0
) -> list[gateway_pb2.ChatMessage]:
    """``who``'s WatchChat from the start, read until a message says ``until_text`` (the test
    posts it last, so everything before it has come); fails if it does not come in time."""
    stream = gw.WatchChat(
        gateway_pb2.WatchChatRequest(table_id=table_id), metadata=who.meta, timeout=seconds
    )
    timer = threading.Timer(seconds, stream.cancel)
    timer.start()
    got: list[gateway_pb2.ChatMessage] = []
    try:
        for message in stream:
            got.append(message)
            if message.text == until_text:
                return got
    except grpc.RpcError as exc:
        raise AssertionError(f"the chat stream ended: {exc.code()} after {len(got)}") from None
    finally:
        timer.cancel()
        stream.cancel()
    raise AssertionError(f"{until_text!r} never came ({len(got)} messages)")
