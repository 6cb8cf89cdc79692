"""GetHandHistory, served by the table service from its own stream (the gateway no longer reads
that stream): a real table service plays a few hands of bots, then each player's history is
exactly libs.history's projection of the stored commits for that player (no card they never saw),
pages follow each other, and bad requests are refused at the edge."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, cast

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.devstack.identity import channel_as
from libs.eventstore.store import Commit
from libs.history import history_page
from libs.platform.errors import ERROR_CODE_HEADER
from libs.poker.cards import format_cards
from libs.poker.events import HandShown, HoleCardsDealt
from libs.table.events import HandBegan
from libs.tableproto.envelope import encode_commit
from services.table.history import stored_commits
from tests.history.tables import play
from tests.services.conftest import Starter
from tests.services.test_table_bots import LEVELS, _config, _play

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

BOTS = ("bot0", "bot1", "bot2")


def _commits(nats_url: str, table_id: str) -> list[Commit]:
    async def read() -> list[Commit]:
        import nats

        from libs.eventstore.jetstream import JetStreamEventStore

        nc = await nats.connect(nats_url)
        try:
            return await JetStreamEventStore(nc, stream="HOLDEM_TABLES").read(table_id)
        finally:
            await nc.close()

    return asyncio.run(read())


def _refused(call: object) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        call()  # type: ignore[operator]
    error = caught.value
    metadata: Any = error.trailing_metadata()
    codes = dict(metadata or ())
    return error.code(), str(codes.get(ERROR_CODE_HEADER, ""))


def test_a_players_history_is_the_stream_projected_for_that_player(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    table = start(
        "table",
        {
            "HOLDEM_NATS_URL": nats_url,
            "HOLDEM_REDIS_URL": redis_url,
            "HOLDEM_TABLE_DEALER": "local",
            "HOLDEM_TABLE_EVALUATOR": "local",
            "HOLDEM_TABLE_AI": "local",
        },
    )
    config = _config(common_pb2.VARIANT_HOLDEM, common_pb2.BETTING_STRUCTURE_NO_LIMIT, 6, 3)
    table_id = _play(table, config, LEVELS)
    stored = stored_commits(_commits(nats_url, table_id))

    # what each player was dealt, and who showed, hand by hand (the truth, from the stream)
    dealt: dict[str, dict[str, str]] = {}
    shown: dict[str, set[str]] = {}
    hand_id, players = "", cast(tuple[str, ...], ("",))
    for _, _, events in stored:
        for event in events:
            if isinstance(event, HandBegan):
                hand_id, players = event.hand_id, tuple(f"bot{s}" for s in event.seats)
            elif isinstance(event, HoleCardsDealt):
                dealt.setdefault(hand_id, {})[players[event.player]] = format_cards(event.cards)
            elif isinstance(event, HandShown):
                shown.setdefault(hand_id, set()).add(players[event.player])

    def history(
        stub: table_pb2_grpc.TableServiceStub, **fields: object
    ) -> table_pb2.GetHandHistoryResponse:
        request = table_pb2.GetHandHistoryRequest(table_id=table_id, **fields)  # type: ignore[arg-type]
        return stub.GetHandHistory(request, timeout=30)

    with channel_as(table.address, "gateway") as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        for player in BOTS:
            got = history(stub, player_id=player, limit=100)
            expected = history_page(stored, player, limit=100)
            assert got.hands and len(got.hands) == len(expected.hands) and not got.more
            assert [(h.hand_id, h.hand_number, h.phh, h.pokerstars) for h in got.hands] == [
                (h.hand_id, h.hand_number, h.phh, h.pokerstars) for h in expected.hands
            ]
            numbers = [h.hand_number for h in got.hands]
            assert numbers == sorted(numbers, reverse=True)  # newest first
            for record in got.hands:
                assert record.ended_at.seconds >= record.started_at.seconds > 0
                for owner, cards in dealt[record.hand_id].items():
                    if owner == player or owner in shown.get(record.hand_id, set()):
                        continue
                    spaced = " ".join(cards[i : i + 2] for i in range(0, len(cards), 2))
                    assert cards not in record.phh and spaced not in record.pokerstars
                mine = dealt[record.hand_id][player]
                assert mine in record.phh.replace(" ", "").replace("'", "")

            # pages of one hand follow each other to the oldest hand; one hand by its id
            seen: list[int] = []
            before = 0
            while True:
                page = history(stub, player_id=player, limit=1, before_hand_number=before)
                assert len(page.hands) == 1
                seen += [h.hand_number for h in page.hands]
                if not page.more:
                    break
                before = page.hands[-1].hand_number
            assert seen == numbers
            one = history(stub, player_id=player, hand_id=got.hands[-1].hand_id)
            assert [h.hand_number for h in one.hands] == [numbers[-1]] and not one.more

        # someone who never sat here has no hands (and learns nothing of others')
        assert list(history(stub, player_id="stranger").hands) == []
        # a table never opened; bad input refused at the edge
        unknown = table_pb2.GetHandHistoryRequest(table_id="nosuchtable", player_id="bot0")
        assert _refused(lambda: stub.GetHandHistory(unknown, timeout=10)) == (
            grpc.StatusCode.NOT_FOUND,
            "TABLE_NOT_FOUND",
        )
        for bad in (
            table_pb2.GetHandHistoryRequest(table_id=table_id),  # whose?
            table_pb2.GetHandHistoryRequest(table_id="a.b", player_id="bot0"),
            table_pb2.GetHandHistoryRequest(table_id=table_id, player_id="bot0", limit=1001),
            table_pb2.GetHandHistoryRequest(table_id=table_id, player_id="x" * 65),
            table_pb2.GetHandHistoryRequest(table_id=table_id, player_id="b", hand_id="$JS"),
        ):
            code, _ = _refused(lambda: stub.GetHandHistory(bad, timeout=10))  # noqa: B023
            assert code == grpc.StatusCode.INVALID_ARGUMENT, bad

    # tools (the CLI, audits) may ask too
    with channel_as(table.address, "tools") as channel:
        got = table_pb2_grpc.TableServiceStub(channel).GetHandHistory(
            table_pb2.GetHandHistoryRequest(table_id=table_id, player_id="bot1"), timeout=30
        )
    assert len(got.hands) == min(10, len(history_page(stored, "bot1", limit=100).hands))


def test_pages_of_a_stored_table_are_libs_history_pages(
    start: Starter, nats_url: str, redis_url: str
) -> None:
    """A table's stream written here (12 hands of three people, shows and mucks: tests/history's
    table) is served page by page exactly as libs.history pages it."""
    table = start("table", {"HOLDEM_NATS_URL": nats_url, "HOLDEM_REDIS_URL": redis_url})
    table_id = f"h{uuid.uuid4().hex[:10]}"
    played = play(12, seed=5)

    async def write() -> None:
        import nats

        nc = await nats.connect(nats_url)
        try:
            js = nc.jetstream()
            for number, (_, at, events) in enumerate(played):
                payload = encode_commit(table_id, events, f"k{number}", "Test", at)
                await js.publish(f"holdem.table.{table_id}", payload, stream="HOLDEM_TABLES")
        finally:
            await nc.close()

    asyncio.run(write())
    stored = stored_commits(_commits(nats_url, table_id))
    with channel_as(table.address, "gateway") as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        for player in ("alice", "bob", "carol"):
            for limit, before in ((0, 0), (5, 0), (5, 8), (100, 3), (1, 1), (3, 2**63)):
                got = stub.GetHandHistory(
                    table_pb2.GetHandHistoryRequest(
                        table_id=table_id, player_id=player, limit=limit, before_hand_number=before
                    ),
                    timeout=30,
                )
                want = history_page(stored, player, limit=limit, before=before)
                assert got.more == want.more, (player, limit, before)
                assert [(h.hand_number, h.phh, h.pokerstars) for h in got.hands] == [
                    (h.hand_number, h.phh, h.pokerstars) for h in want.hands
                ], (player, limit, before)
        assert len(want.hands) == 3 and want.more  # the last: 3 of 12, more to come
