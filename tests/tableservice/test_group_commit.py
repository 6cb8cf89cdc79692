"""The table service's write path on the group commit (libs/eventstore/jsbatch.py, as
services/table/server.py wires it): many tables of bots playing at once through one ``TableApp``
commit in atomic batches, and every table's stream replays into exactly the state the app
held, its chips all back with their owners at the close. On a nats-server of this module's own
(atomic batches are JetStream 2.12's)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from libs.devstack import start_nats
from libs.table import TableConfig
from libs.table import commands as tc
from services.table.app import TableApp
from services.table.bots import Bots, LocalDecider
from services.table.dealing import LocalDealer
from tests.eventstore.backends import batching_store
from tests.tableservice.test_bots import play_out

pytestmark = pytest.mark.integration

TABLES = [f"g{i}" for i in range(12)]


@pytest.fixture(scope="module")
def nats_url() -> Iterator[str]:
    with start_nats() as server:
        yield server.url


def _table(table_id: str) -> list[tc.TableCommand]:
    config = TableConfig(seats=3, hand_limit=3, min_players_to_start=2, max_buy_in=10_000)
    return [
        tc.OpenTable(table_id, config, 0.0),
        *(tc.SitDown(f"bot{i}", i, 1_000, is_bot=True) for i in range(3)),
    ]


async def _seat(app: TableApp, table_id: str) -> None:
    for i, command in enumerate(_table(table_id)):
        await app.execute(table_id, command, f"{table_id}-setup-{i}")


def test_tables_played_at_once_commit_in_batches_and_replay_exactly(nats_url: str) -> None:
    async def main() -> None:
        async with batching_store(nats_url, min_batch=2) as events:
            app = TableApp(events, None, LocalDealer(), bots=Bots(LocalDecider(), timeout=5.0))
            # every table seated before any hand starts (``setup`` for one table at a time: its
            # switch of auto_start is the app's own, so concurrent setups would turn it back on
            # under each other and a table could play its hands out before its last seat)
            app.auto_start = False
            await asyncio.gather(*(_seat(app, t) for t in TABLES))
            app.auto_start = True
            await asyncio.gather(*(app.drive(t) for t in TABLES))
            await asyncio.gather(*(play_out(app, t, "played out") for t in TABLES))
            held = {t: await app.state(t) for t in TABLES}
            await app.stop()
            assert events.stats.batches > 0 and events.stats.batched > events.stats.batches
            replayed = TableApp(events, None, LocalDealer())
            for table in TABLES:
                state = await replayed.state(table)
                assert state == held[table], table
                assert state.closed and state.hands_started >= 1
                assert state.total_chips() == 0  # every stack went back with the closing
            await replayed.stop()

    asyncio.run(main())
