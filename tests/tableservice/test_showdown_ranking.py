"""The table ranks showdown hands through its ranker (the evaluator service in production): one
call per showdown covering every live hand, the awards follow the ranker's values, and a ranker
that cannot answer falls back to the in-process evaluator without stopping the game."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from libs.eventstore import InMemoryEventStore, InMemorySnapshotStore
from libs.poker.config import Variant
from libs.poker.evaluation import DEFAULT_EVALUATOR, ReferenceEvaluator
from libs.poker.events import HandEnded, HoleCardsDealt, PotAwarded, StreetDealt
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table.commands import PlayerAction
from libs.table.events import Event
from libs.tableproto.envelope import decode_commit
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from services.table.ranking import EvaluatorUnavailable, HandValues, Holding

CONFIG = TableConfig(seats=6, small_blind=1, big_blind=2)
REFERENCE = ReferenceEvaluator()


class LocalRanker:
    """A ranker answering with the in-process evaluator (what the evaluator service computes)."""

    async def rank(self, variant: Variant, holdings: Sequence[Holding]) -> list[HandValues]:
        out: list[HandValues] = []
        for hole, board in holdings:
            if variant is Variant.HOLDEM:
                out.append((DEFAULT_EVALUATOR.high(hole + board), None))
            else:
                low = (
                    DEFAULT_EVALUATOR.omaha_low(hole, board)
                    if variant is Variant.OMAHA_HI_LO
                    else None
                )
                out.append((DEFAULT_EVALUATOR.omaha_high(hole, board), low))
        return out


class RecordingRanker(LocalRanker):
    def __init__(self) -> None:
        self.calls: list[tuple[Variant, list[Holding]]] = []

    async def rank(self, variant: Variant, holdings: Sequence[Holding]) -> list[HandValues]:
        self.calls.append((variant, list(holdings)))
        return await super().rank(variant, holdings)


class RotatingRanker(LocalRanker):
    """Lies on purpose: each holding gets the next holding's (real) value."""

    async def rank(self, variant: Variant, holdings: Sequence[Holding]) -> list[HandValues]:
        values = await super().rank(variant, holdings)
        return values[1:] + values[:1]


class DownRanker:
    async def rank(self, variant: Variant, holdings: Sequence[Holding]) -> list[HandValues]:
        raise EvaluatorUnavailable("UNAVAILABLE: connection refused")


async def all_in_heads_up(
    app: TableApp, table_id: str, config: TableConfig = CONFIG
) -> list[Event]:
    """Two players, all in preflop; returns every event of the one hand."""
    await app.execute(table_id, tc.OpenTable(table_id, replace(config, hand_limit=1), 0.0), "o")
    await app.execute(table_id, tc.SitDown("a", 0, 100), "sit-a")
    await app.execute(table_id, tc.SitDown("b", 1, 100), "sit-b")
    for key, action in (("shove", PlayerAction.ALL_IN), ("call", PlayerAction.CALL)):
        state = await app.state(table_id)
        seat = state.acting_seat()
        assert seat is not None
        await app.execute(
            table_id, tc.Act(state.seats[seat].player_id, action, now=app.clock()), key
        )
    await app.drive(table_id)
    return [e for c in await app.events.read(table_id) for e in decode_commit(c.data)[1]]


def true_highs(events: list[Event]) -> dict[int, int]:
    holes = {e.player: e.cards for e in events if isinstance(e, HoleCardsDealt)}
    board = tuple(c for e in events if isinstance(e, StreetDealt) for c in e.cards)
    return {p: REFERENCE.high(hole + board) for p, hole in holes.items()}


def test_one_call_per_showdown_covers_every_live_hand() -> None:
    async def main() -> None:
        ranker = RecordingRanker()
        app = TableApp(InMemoryEventStore(), InMemorySnapshotStore(), LocalDealer(), ranker=ranker)
        events = await all_in_heads_up(app, "r1")
        assert any(isinstance(e, HandEnded) for e in events)
        assert len(ranker.calls) == 1
        variant, holdings = ranker.calls[0]
        holes = {e.cards for e in events if isinstance(e, HoleCardsDealt)}
        board = tuple(c for e in events if isinstance(e, StreetDealt) for c in e.cards)
        assert variant is Variant.HOLDEM
        assert {hole for hole, _ in holdings} == holes
        assert all(b == board for _, b in holdings)

    asyncio.run(main())


def test_the_awards_follow_the_rankers_values() -> None:
    async def main() -> None:
        for attempt in range(30):  # until the two hands differ (a tie looks the same either way)
            app = TableApp(
                InMemoryEventStore(),
                InMemorySnapshotStore(),
                LocalDealer(),
                ranker=RotatingRanker(),
            )
            events = await all_in_heads_up(app, f"r2-{attempt}")
            highs = true_highs(events)
            if len(set(highs.values())) == 2:
                break
        else:
            raise AssertionError("thirty heads-up hands all tied")
        awards = [e for e in events if isinstance(e, PotAwarded)]
        worse = min(highs, key=lambda p: highs[p])
        assert [w for a in awards for w, _ in a.winners] == [worse]  # the rotated values won
        (ended,) = [e for e in events if isinstance(e, HandEnded)]
        assert sum(ended.stacks) == 200

    asyncio.run(main())


def test_an_unavailable_ranker_falls_back_to_the_same_evaluator_in_process() -> None:
    async def main() -> None:
        app = TableApp(
            InMemoryEventStore(), InMemorySnapshotStore(), LocalDealer(), ranker=DownRanker()
        )
        events = await all_in_heads_up(app, "r3")
        assert app.ranking_fallbacks == 1
        highs = true_highs(events)
        awards = [e for e in events if isinstance(e, PotAwarded)]
        best = max(highs.values())
        assert {w for a in awards for w, _ in a.winners} == {
            p for p, v in highs.items() if v == best
        }

    asyncio.run(main())


def test_omaha_hi_lo_showdowns_get_high_and_low_values() -> None:
    async def main() -> None:
        ranker = RecordingRanker()
        app = TableApp(InMemoryEventStore(), InMemorySnapshotStore(), LocalDealer(), ranker=ranker)
        config = replace(CONFIG, variant=Variant.OMAHA_HI_LO)
        events = await all_in_heads_up(app, "r4", config)
        assert len(ranker.calls) == 1
        variant, holdings = ranker.calls[0]
        assert variant is Variant.OMAHA_HI_LO
        assert all(len(hole) == 4 and len(board) == 5 for hole, board in holdings)
        (ended,) = [e for e in events if isinstance(e, HandEnded)]
        assert sum(ended.stacks) == 200

    asyncio.run(main())


def test_a_board_run_three_times_is_ranked_on_each_board() -> None:
    async def main() -> None:
        from libs.poker.events import RunDealt

        ranker = RecordingRanker()
        app = TableApp(InMemoryEventStore(), InMemorySnapshotStore(), LocalDealer(), ranker=ranker)
        table_id = "r3x"
        config = replace(CONFIG, run_it_max=3)
        await app.execute(table_id, tc.OpenTable(table_id, replace(config, hand_limit=1), 0.0), "o")
        for player, number in (("a", 0), ("b", 1)):
            await app.execute(table_id, tc.SitDown(player, number, 100), f"sit-{player}")
            await app.execute(table_id, tc.SetRunItTimes(player, 3), f"runs-{player}")
        for key, action in (("shove", PlayerAction.ALL_IN), ("call", PlayerAction.CALL)):
            state = await app.state(table_id)
            seat = state.acting_seat()
            assert seat is not None
            await app.execute(
                table_id, tc.Act(state.seats[seat].player_id, action, now=app.clock()), key
            )
        await app.drive(table_id)
        events = [e for c in await app.events.read(table_id) for e in decode_commit(c.data)[1]]
        (ended,) = [e for e in events if isinstance(e, HandEnded)]
        assert sum(ended.stacks) == 200
        runs = [e for e in events if isinstance(e, RunDealt)]
        assert len(runs) == 2
        boards = {tuple(b) for _, holdings in ranker.calls for _, b in holdings}
        assert len(ranker.calls) == 3 and len(boards) == 3  # one call per board

    asyncio.run(main())
