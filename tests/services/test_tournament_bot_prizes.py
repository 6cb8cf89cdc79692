"""A multi-table tournament's bots are told the prizes (``ReleaseHand.payouts`` and
``other_stacks``, committed with the table's ``HandReleased``): a real table service whose ai
service is a stand-in recording every Decide request (``_Spy``), the real director on a real
nats-server and Redis. Twelve bots at four seats: three tables, a bubble at five players (hand for
hand, two tables) and a final table. Every request carries the places still to win and the other
tables' stacks, so that this table's chips and theirs are every chip in the tournament; at the
final table there are no others."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from holdem.ai.v1 import ai_pb2_grpc

from libs.aiproto.reading import read_request
from libs.tournament import commands as C
from libs.tournament.config import TournamentConfig, TournamentKind
from libs.tournament.structure import LevelUnit, preset
from tests.services.conftest import Starter
from tests.services.test_table_bots import PATIENT, _Spy, _table
from tests.services.test_tournament_tables import Wallets, _run
from tests.tournamentservice.conftest import parts

pytestmark = pytest.mark.integration

ENTRANTS, SEATS, STACK = 12, 4, 200


@pytest.fixture
def spy() -> Iterator[tuple[_Spy, str]]:
    servicer = _Spy()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    ai_pb2_grpc.add_AiServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield servicer, f"127.0.0.1:{port}"
    finally:
        server.stop(grace=None)


def test_a_multi_table_tournaments_bots_are_told_the_prizes(
    start: Starter, nats_url: str, redis_url: str, spy: tuple[_Spy, str]
) -> None:
    servicer, address = spy
    table = _table(start, nats_url, redis_url, address, HOLDEM_TABLE_AI_TIMEOUT_MS=PATIENT)
    config = TournamentConfig(
        "prizes",
        TournamentKind.SIT_AND_GO,
        max_entrants=ENTRANTS,
        seats_per_table=SEATS,
        starting_stack=STACK,
        structure=preset("hyper", LevelUnit.HANDS),
    )
    shares = config.payouts.shares_for(ENTRANTS)

    async def scenario() -> None:
        async with parts(nats_url, redis_url) as p:
            tournaments = await p.tournaments()
            tid = f"p{random.getrandbits(40):010x}"
            await tournaments.execute(tid, C.CreateTournament(tid, config, "test", 1.0), "create")
            for i in range(ENTRANTS):
                level = ("easy", "normal")[i % 2]  # the spy: a calling station, Easy
                register = C.Register(f"{tid}b{i}", f"reg{i}", 2.0, True, level)
                await tournaments.execute(tid, register, f"reg{i}")
            s = await _run(p, table.address, tid, Wallets())
            assert s.most_tables == 3 and len(s.closed) == 3

    asyncio.run(scenario())
    by_table: dict[str, list[tuple[int, int]]] = defaultdict(list)  # (players left, others)
    for request in servicer.requests:
        assert request.HasField("prizes"), "a bot of a field of twelve was not told the prizes"
        view = read_request(request).view
        assert view.prizes is not None
        alive_here = sum(1 for stack in view.starting_stacks if stack > 0)
        left = alive_here + len(view.prizes.others)
        # this table's chips and the other tables' are every chip in the tournament
        assert sum(view.starting_stacks) + sum(view.prizes.others) == ENTRANTS * STACK
        assert view.prizes.payouts == shares[:left]
        by_table[request.view.table_id].append((left, len(view.prizes.others)))
    asked = [x for requests in by_table.values() for x in requests]
    assert any(others for _, others in asked), "no request told the other tables' stacks"
    final = [x for x in asked if x[0] <= SEATS and not x[1]]
    assert final, "no request at the final table"
    # a bubble hand (five left, at two tables) carries the other table's stacks
    assert all(others for left, others in asked if left > SEATS)
