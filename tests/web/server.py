"""What the server has, for the browser tests to check a page against: the page's player (its
token from the tab's sessionStorage), the gateway called as them, the table as a fresh observer
sees it, and the table's own event stream (what is true)."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from libs.eventstore.jetstream import JetStreamEventStore
from libs.platform.natsconn import connect_nats
from libs.tableproto.envelope import decode_commit
from tests.gateway.chat_steps import Person, read_chat
from tests.gateway.stack import GatewayStack, bearer

Event = tuple[int, str, dict[str, Any]]  # sequence, type, data


def person_of(page: Any) -> Person:
    """The player signed in on ``page``."""
    player_id, name = page.evaluate("JSON.parse(sessionStorage.getItem('holdem.player'))")
    return Person(name, player_id, page.evaluate("sessionStorage.getItem('holdem.token')"))


def call(stack: GatewayStack, who: Person, method: str, request: Any) -> Any:
    """One unary gateway call as ``who`` (its errors raise grpc.RpcError)."""
    with grpc.insecure_channel(stack.gateway.address) as channel:
        return getattr(stack.gateway_stub(channel), method)(request, metadata=who.meta, timeout=30)


def table_now(stack: GatewayStack, table_id: str) -> common_pb2.PlayerView:
    """The table as an observer who just opened it sees it (the stream's first snapshot)."""
    token = stack.token("web-test-observer")
    with grpc.insecure_channel(stack.gateway.address) as channel:
        stream = stack.gateway_stub(channel).WatchTable(
            gateway_pb2.WatchTableRequest(table_id=table_id), metadata=bearer(token), timeout=30
        )
        try:
            for update in stream:
                if update.HasField("snapshot"):
                    return update.snapshot
        finally:
            stream.cancel()
    raise AssertionError("no snapshot")


def seated_ids(stack: GatewayStack, table_id: str) -> set[str]:
    empty = common_pb2.SEAT_STATUS_EMPTY
    return {s.player_id for s in table_now(stack, table_id).seats if s.status != empty}


def table_events(stack: GatewayStack, table_id: str) -> list[Event]:
    """Every event of the table's own commit stream, in order."""

    async def read() -> list[Event]:
        nc = await connect_nats(stack.nats_url)
        try:
            commits = await JetStreamEventStore(nc).read(table_id)
        finally:
            await nc.close()
        return [
            (stored.sequence, record.type, json.loads(record.data))
            for stored in commits
            for record in decode_commit(stored.data)[0].recorded
        ]

    with ThreadPoolExecutor(1) as pool:  # Playwright's own event loop runs in this thread
        return pool.submit(asyncio.run, read()).result()


def card_text(n: int) -> str:
    """A card of an event (rank * 4 + suit) as the page writes it in data-card: "As", "Td"."""
    return "23456789TJQKA"[n >> 2] + "cdhs"[n & 3]


def chat_of(
    stack: GatewayStack, who: Person, until_text: str, table_id: str = ""
) -> list[gateway_pb2.ChatMessage]:
    """``who``'s chat as the server sends it (WatchChat from the start), up to ``until_text``."""
    with grpc.insecure_channel(stack.gateway.address) as channel:
        return read_chat(stack.gateway_stub(channel), who, until_text, table_id)


def every_table(gw: Any) -> list[str]:
    """Every open public table, oldest first, a page at a time (the API's pages hold 100)."""
    found: list[str] = []
    token = ""
    while True:
        request = gateway_pb2.ListTablesRequest(page_token=token)
        listed = gw.ListTables(request, timeout=30)
        found.extend(t.table_id for t in listed.tables)
        token = listed.next_page_token
        if not token:
            return found
