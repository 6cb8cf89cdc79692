"""``holdem play``'s tournament screens (libs/tui/tournaments.py) driven by textual's headless pilot
against the stand-in gateway with one tournament modelled (80x24): from the lobby to the tournament
lobby, registering (the wallet pays the buy-in), opening the tournament: its clock, the field, the
payouts, the standings and the player's seat, and a move told as it happens."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from holdem.gateway.v1 import gateway_pb2 as gw
from holdem.tournament.v1 import tournament_pb2 as tpb

from libs.tui.app import PlayApp
from libs.tui.screens import LobbyScreen
from libs.tui.tournaments import TournamentScreen, TournamentsScreen
from tests.client import fake_gateway
from tests.client.test_play_tui import SIZE, screen_text, until

BUY_IN = 100


class TournamentGateway(fake_gateway.FakeGateway):
    """The fake gateway with one sit & go: registering pays the buy-in; once registered the
    watch stream shows it running, the player at table t1, then moved to t2."""

    def __init__(self) -> None:
        super().__init__()
        self.registered: set[str] = set()
        self.moved = asyncio.Event()

    def summary(self) -> tpb.TournamentSummary:
        running = bool(self.registered)
        clock = tpb.TournamentClock(
            level=2, small_blind=15, big_blind=30, ante=3, next_change="level", seconds_left=42
        )
        return tpb.TournamentSummary(
            tournament_id="T1",
            name="Sunday",
            status="running" if running else "registering",
            entrants=6 if running else 5,
            max_entrants=6,
            players_left=5 if running else 0,
            average_stack=1200,
            largest_stack=2100,
            prize_pool=600 if running else 500,
            prizes=[390, 210] if running else [],
            buy_in=BUY_IN,
            clock=clock if running else None,
        )

    def standings(self, me: str) -> list[tpb.Standing]:
        rows = [tpb.Standing(player_id=me, stack=1500, table_id="t2", seat=4)]
        rows.append(tpb.Standing(player_id="bot-1", is_bot=True, stack=0, place=6))
        return rows

    async def ListTournaments(self, request: Any, context: Any) -> gw.ListTournamentsResponse:
        return gw.ListTournamentsResponse(tournaments=[self.summary()])

    async def GetTournament(self, request: Any, context: Any) -> gw.GetTournamentResponse:
        me = self._player(context).player_id
        tournament = tpb.Tournament(summary=self.summary(), standings=self.standings(me))
        return gw.GetTournamentResponse(tournament=tournament)

    async def RegisterTournament(self, request: Any, context: Any) -> gw.RegisterTournamentResponse:
        me = self._player(context).player_id
        if me not in self.registered:
            self.registered.add(me)
            self.balances[me] -= BUY_IN
        return gw.RegisterTournamentResponse(tournament=self.summary())

    async def WatchTournament(
        self, request: Any, context: Any
    ) -> AsyncIterator[gw.TournamentUpdate]:
        me = self._player(context).player_id
        seat = gw.TournamentSeat(registered=True, table_id="t1", seat=2, stack=1400)
        yield gw.TournamentUpdate(tournament=self.summary(), me=seat)
        await self.moved.wait()
        moved = gw.TournamentSeat(
            registered=True, table_id="t2", seat=4, stack=1500, moved_from_table_id="t1"
        )
        yield gw.TournamentUpdate(tournament=self.summary(), me=moved)
        assert me in self.registered


def test_a_player_registers_and_follows_the_tournament_s_clock_standings_and_a_move() -> None:
    async def main() -> None:
        gateway = TournamentGateway()
        server = await fake_gateway.start(gateway)
        app = PlayApp(server.address, guest="Alice", clock=lambda: 1_000.0)
        try:
            async with app.run_test(size=SIZE) as pilot:
                await until(pilot, lambda: isinstance(app.screen, LobbyScreen), "the lobby")
                await pilot.press("f6")
                await until(pilot, lambda: isinstance(app.screen, TournamentsScreen), "the list")
                await until(pilot, lambda: "Sunday" in screen_text(app), "the tournament row")
                assert "registering" in screen_text(app) and "5/6" in screen_text(app)
                before = int((await app.client.wallet()).balance)
                await pilot.click("#register-tournament")
                await until(pilot, lambda: "registered for T1" in screen_text(app), "registered")
                assert int((await app.client.wallet()).balance) == before - BUY_IN
                await pilot.click("#open-tournament")
                await until(pilot, lambda: isinstance(app.screen, TournamentScreen), "the screen")
                await until(pilot, lambda: "table t1 seat 3" in screen_text(app), "the seat")
                text = screen_text(app)
                assert "level 2  blinds 15/30 ante 3  level in 42 s" in text
                assert "5 of 6 left  average 1200  largest 2100" in text
                assert "pool 600  payouts 1: 390, 2: 210" in text
                await until(pilot, lambda: "place 6" in screen_text(app), "the standings")
                gateway.moved.set()
                await until(pilot, lambda: "MOVED from t1" in screen_text(app), "the move")
                assert "table t2 seat 5" in screen_text(app)
                screen = app.screen
                assert isinstance(screen, TournamentScreen) and screen.table_id == "t2"
        finally:
            await server.server.stop(None)

    asyncio.run(asyncio.wait_for(main(), 60))
