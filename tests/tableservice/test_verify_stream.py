"""``holdem verify --table``: every hand of a table's stream checked against its revealed seed."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import uuid

import pytest

from libs.ai import Level
from libs.cli.main import main as holdem
from libs.fairdeck.audit import outcomes_from_stream
from libs.poker.cards import DECK
from libs.poker.events import StreetDealt
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table.events import Event
from libs.tableproto.envelope import decode_commit
from services.table.app import TableApp
from services.table.bots import Bots, LocalDecider
from services.table.dealing import LocalDealer

pytestmark = pytest.mark.integration


def test_every_hand_of_a_table_verifies_and_a_forged_card_is_caught(
    nats_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    stream = "HOLDEM_TABLES"  # the table service's stream (a second one over its subjects fails)
    table_id = f"v{uuid.uuid4().hex[:10]}"

    async def play() -> list[Event]:
        import nats

        from libs.eventstore.jetstream import JetStreamEventStore

        nc = await nats.connect(nats_url)
        store = JetStreamEventStore(nc, stream=stream)
        await store.ensure_stream()
        # calling stations: every hand reaches the river, and nobody goes broke
        bots = Bots(LocalDecider(Level.CALL))
        app = TableApp(store, None, LocalDealer(), auto_start=False, bots=bots)
        config = TableConfig(seats=4, hand_limit=3, min_players_to_start=3)
        await app.execute(table_id, tc.OpenTable(table_id, config, 0.0), "open")
        for i in range(3):
            await app.execute(table_id, tc.SitDown(f"bot{i}", i, 100, is_bot=True), f"s{i}")
        app.auto_start = True
        await app.drive(table_id)
        events = [e for c in await store.read(table_id) for e in decode_commit(c.data)[1]]
        await nc.close()
        return events

    events = asyncio.run(play())
    command = ["verify", "--table", table_id, "--nats", nats_url, "--stream", stream, "--json"]
    assert holdem(command) == 0
    report = json.loads(capsys.readouterr().out)
    assert [r["path"] for r in report] == ["hand 1", "hand 2", "hand 3"]
    assert all(r["ok"] and r["cards"] >= 6 for r in report)
    # a forged river (any card the seed did not put there) is reported
    river = next(i for i, e in enumerate(events) if isinstance(e, StreetDealt) and e.street == 3)
    original = events[river]
    assert isinstance(original, StreetDealt)
    other = next(c for c in DECK if c not in original.cards)
    forged = [*events[:river], dataclasses.replace(original, cards=(other,)), *events[river + 1 :]]
    outcomes = outcomes_from_stream(forged)
    assert [o.ok for o in outcomes].count(False) == 1
    assert any("street 3" in f or "river" in f for o in outcomes for f in o.failures)
