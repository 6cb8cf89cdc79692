"""The terminal client's statistics key: "i" shows the next seat's statistics (as the gateway
counted them from our own hands) and our note about them in the log, a seat per press; and the
text those lines are made of."""

from __future__ import annotations

from holdem.gateway.v1 import gateway_pb2 as gw
from textual.pilot import Pilot

from libs.client.stats import stats_lines
from libs.tui.app import PlayApp
from tests.client import fake_gateway
from tests.client.test_play_tui import log_in_and_create, run, until


def test_the_stats_key_shows_each_seat_in_turn() -> None:
    async def body(pilot: Pilot[None], app: PlayApp, server: fake_gateway.Server) -> None:
        screen = await log_in_and_create(pilot, app, "easy")
        await until(pilot, lambda: len(screen.model.players) == 2, "both seats")
        names = [screen.model.names[s] for s in sorted(screen.model.players)]
        for name in names:
            await pilot.press("i")
            await until(
                pilot,
                lambda n=name: any(  # type: ignore[misc]
                    line.startswith(f"{n}: 4 hands, VPIP 25%") for line in screen.model.log
                ),
                f"{name}'s statistics",
            )

    run(body)


def test_stats_lines_say_dash_without_a_chance_and_show_the_note() -> None:
    stats = gw.PlayerStats(player_id="p", hands=2, three_bet_chances=1, three_bets=1)
    stats.three_bet = 1.0
    stats.aggression_factor = 1.5
    answer = gw.GetPlayerStatsResponse(stats=stats, note=gw.PlayerNote(text="sticky"))
    assert stats_lines("Bob", answer) == [
        "Bob: 2 hands, VPIP - PFR - 3-bet 100% (1/1)",
        "Bob: WTSD - W$SD - AF 1.5 AFq -",
        "your note on Bob: sticky",
    ]
