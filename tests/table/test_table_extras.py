"""Run it twice and the rabbit hunt at the table (libs.table.extras): who answers how many times
to run the board (the player, their seat's setting, a bot, the short clock), the deck positions
the table asks for, and the rabbit hunt's rules; bad input changes nothing."""

from __future__ import annotations

import pytest

from libs.fairdeck.audit import outcomes_from_stream
from libs.poker import IllegalAction, InvalidCommand, Phase
from libs.poker import errors as E
from libs.poker.cards import DECK
from libs.poker.events import PotAwarded, RunDealt, RunItAnswered, RunItDecided, RunItOffered
from libs.table import TableConfig
from libs.table import commands as tc
from libs.table import errors as TE
from libs.table.automation import (
    BoardDue,
    RunItClockDue,
    next_due,
)
from libs.table.config import SHOWDOWN_SECONDS
from libs.table.events import (
    Event,
    PlayerTimedOut,
    RabbitHunted,
    RunItClockStarted,
    TimeBankUsed,
)
from libs.table.extras import rabbit_positions
from libs.table.timing import wake_at
from tests.table.seeded_table import DECK_OF_SEED, SeededTable


class Table(SeededTable):
    """Two or more named players, 100 chips each."""

    def __init__(self, config: TableConfig, *players: str, bots: tuple[str, ...] = ()) -> None:
        super().__init__(config, players, bots=bots)

    def all_in_preflop(self) -> None:
        """The first to act shoves, the other calls."""
        self.run(tc.Act(self.acting(), tc.PlayerAction.ALL_IN, now=1.0))
        self.run(tc.Act(self.acting(), tc.PlayerAction.CALL, now=1.0))


def _of(events: list[Event], kind: type) -> list[object]:
    return [e for e in events if isinstance(e, kind)]


RUN_TWICE = TableConfig(seats=2, run_it_max=2, rabbit_hunt=True)


def test_both_players_agreeing_deal_two_runs_from_positions_after_the_river() -> None:
    t = Table(RUN_TWICE, "ann", "bob")
    t.start()
    t.all_in_preflop()
    assert t.state.hand is not None and t.state.hand.phase is Phase.AGREEING_RUNS
    clock = _of(t.events, RunItClockStarted)
    assert clock == [RunItClockStarted(1.0 + SHOWDOWN_SECONDS)]
    t.run(tc.AnswerRunIt("ann", 2, 2.0))
    t.run(tc.AnswerRunIt("bob", 3, 2.0))  # agrees up to three: the table offers two
    assert _of(t.events, RunItDecided) == [RunItDecided(2)]
    assert next_due(t.state, 2.0) == BoardDue("deck-1", 1, 4, (5, 6, 7))
    t.automatic(2.0)
    runs = _of(t.events, RunDealt)
    assert len(runs) == 1
    # the second run takes positions 12..19 (burn, flop, burn, turn, burn, river)
    assert runs[0] == RunDealt(
        2,
        tuple(DECK[DECK_OF_SEED[i]] for i in (13, 14, 15, 17, 19)),
        tuple(DECK[DECK_OF_SEED[i]] for i in (12, 16, 18)),
    )
    awards = _of(t.events, PotAwarded)
    assert sum(a.amount for a in awards) == 200  # type: ignore[attr-defined]
    assert {a.run for a in awards} == {0, 1}  # type: ignore[attr-defined]
    assert not t.state.hand_in_progress
    assert sum(seat.stack for seat in t.state.seats.values()) == 200
    # the fairness audit checks the second run against the seed too
    [outcome] = outcomes_from_stream(t.events)
    assert outcome.ok, outcome.failures
    assert outcome.cards == 4 + 8 + 8


def test_a_seat_setting_answers_without_asking() -> None:
    t = Table(RUN_TWICE, "ann", "bob")
    t.run(tc.SetRunItTimes("ann", 2))
    t.run(tc.SetRunItTimes("bob", 2))
    t.start()
    t.all_in_preflop()
    assert _of(t.events, RunItDecided) == [RunItDecided(2)]
    assert not _of(t.events, RunItClockStarted)  # nobody had to be asked


@pytest.mark.parametrize(("setting", "runs"), [(0, 1), (2, 2)])
def test_a_bot_runs_it_once_unless_its_seat_says_otherwise(setting: int, runs: int) -> None:
    t = Table(RUN_TWICE, "ann", "bot", bots=("bot",))
    t.run(tc.SetRunItTimes("ann", 2))
    t.run(tc.SetRunItTimes("bot", setting))
    t.start()
    if t.acting() == "bot":
        t.run(tc.Act("bot", tc.PlayerAction.ALL_IN, now=1.0))
        t.run(tc.Act("ann", tc.PlayerAction.CALL, now=1.0))
    else:
        t.all_in_preflop()
    assert _of(t.events, RunItDecided) == [RunItDecided(runs)]


def test_the_short_clock_runs_it_once_without_a_time_out_or_the_time_bank() -> None:
    t = Table(RUN_TWICE, "ann", "bob")
    t.start()
    t.all_in_preflop()
    t.run(tc.AnswerRunIt("ann", 2, 2.0))
    assert next_due(t.state, 2.0) is None  # bob is waited for
    deadline = 1.0 + SHOWDOWN_SECONDS
    assert next_due(t.state, deadline) == RunItClockDue()
    assert wake_at(t.state) == deadline
    new = t.run(tc.Tick(deadline))
    assert _of(new, RunItAnswered) == [
        RunItAnswered(t.state.position_of(t.state.seat_of("bob") or 0) or 0, 1)
    ]
    assert _of(new, RunItDecided) == [RunItDecided(1)]
    assert not _of(new, PlayerTimedOut) and not _of(new, TimeBankUsed)
    assert all(seat.time_bank == RUN_TWICE.time_bank_seconds for seat in t.state.seats.values())


def test_bad_run_it_input_is_refused_and_changes_nothing() -> None:
    t = Table(RUN_TWICE, "ann", "bob")
    with pytest.raises(InvalidCommand) as too_many:
        t.run(tc.SetRunItTimes("ann", 4))
    assert too_many.value.code == TE.RUN_IT_TIMES_OUT_OF_RANGE
    with pytest.raises(IllegalAction) as stranger:
        t.run(tc.SetRunItTimes("carl", 2))
    assert stranger.value.code == TE.NOT_SEATED
    t.start()
    before = t.state
    with pytest.raises(IllegalAction) as early:
        t.run(tc.AnswerRunIt("ann", 2))  # players can still bet
    assert early.value.code == E.RUN_IT_NOT_OFFERED
    with pytest.raises(InvalidCommand) as zero:
        t.run(tc.AnswerRunIt("ann", 0))
    assert zero.value.code == E.BAD_RUN_COUNT
    with pytest.raises(InvalidCommand):
        t.run(tc.AnswerRunIt("ann", 4))
    assert t.state is before


def test_not_offered_at_a_table_without_it() -> None:
    t = Table(TableConfig(seats=2), "ann", "bob")
    with pytest.raises(IllegalAction) as refused:
        t.run(tc.SetRunItTimes("ann", 2))
    assert refused.value.code == E.RUN_IT_NOT_OFFERED
    t.run(tc.SetRunItTimes("ann", 1))  # "always once" is no request
    t.start()
    t.all_in_preflop()
    t.automatic()
    assert not _of(t.events, RunItOffered)
    assert not t.state.hand_in_progress


def _fold_preflop(config: TableConfig = RUN_TWICE) -> Table:
    t = Table(config, "ann", "bob")
    t.start()
    t.run(tc.Act(t.acting(), tc.PlayerAction.FOLD, now=1.0))
    t.automatic()  # the seed is revealed
    return t


def test_rabbit_hunt_shows_the_board_that_would_have_come() -> None:
    t = _fold_preflop()
    positions = rabbit_positions(t.state, "bob")
    assert positions == (5, 6, 7, 9, 11)  # flop, turn, river of two players (burns skipped)
    cards = tuple(DECK[DECK_OF_SEED[i]] for i in positions)
    new = t.run(tc.RabbitHunt("bob", "h1", cards, 3.0))
    assert new == [RabbitHunted("h1", t.state.seat_of("bob") or 0, 1, cards)]
    assert t.run(tc.RabbitHunt("ann", "h1", cards, 3.0)) == []  # hunted already
    stacks = {seat.player_id: seat.stack for seat in t.state.seats.values()}
    assert sum(stacks.values()) == 200


def test_rabbit_hunt_refusals() -> None:
    t = Table(RUN_TWICE, "ann", "bob")
    t.start()
    with pytest.raises(IllegalAction) as during:
        rabbit_positions(t.state, "ann")
    assert during.value.code == TE.HAND_IN_PROGRESS
    with pytest.raises(IllegalAction) as off:
        rabbit_positions(_fold_preflop(TableConfig(seats=2)).state, "ann")
    assert off.value.code == TE.RABBIT_HUNT_OFF
    folded = _fold_preflop()
    with pytest.raises(IllegalAction) as stranger:
        rabbit_positions(folded.state, "carl")
    assert stranger.value.code == TE.NOT_SEATED
    with pytest.raises(InvalidCommand):
        folded.run(tc.RabbitHunt("ann", "h1", (DECK[0],), 3.0))  # not the rabbit's size
    river = Table(RUN_TWICE, "ann", "bob")
    river.start()
    river.all_in_preflop()
    river.run(tc.AnswerRunIt("ann", 1))
    river.run(tc.AnswerRunIt("bob", 1))
    river.automatic()
    with pytest.raises(IllegalAction) as dealt:
        rabbit_positions(river.state, "ann")
    assert dealt.value.code == TE.RABBIT_HUNT_RIVER_REACHED


def test_rabbit_hunt_waits_for_the_revealed_seed() -> None:
    t = Table(RUN_TWICE, "ann", "bob")
    t.start()
    t.run(tc.Act(t.acting(), tc.PlayerAction.FOLD, now=1.0))
    with pytest.raises(IllegalAction) as early:
        rabbit_positions(t.state, "ann")
    assert early.value.code == TE.SEED_NOT_REVEALED


def test_the_next_hand_waits_a_moment_for_a_rabbit_hunt() -> None:
    from libs.table.automation import HandDue
    from libs.table.config import RABBIT_HUNT_SECONDS

    t = Table(RUN_TWICE, "ann", "bob")
    t.start()
    t.run(tc.Act(t.acting(), tc.PlayerAction.FOLD, now=1.0))
    t.automatic()
    until = 1.0 + RABBIT_HUNT_SECONDS
    assert wake_at(t.state) == until
    assert next_due(t.state, until - 0.1) is None  # time to ask
    assert next_due(t.state, until) == HandDue("2")
    cards = tuple(DECK[DECK_OF_SEED[i]] for i in rabbit_positions(t.state, "ann"))
    t.run(tc.RabbitHunt("ann", "h1", cards, 2.0))
    assert next_due(t.state, 2.0) == HandDue("2")  # hunted: no need to wait


def test_no_wait_at_a_table_without_the_rabbit_hunt() -> None:
    from libs.table.automation import HandDue

    t = Table(TableConfig(seats=2), "ann", "bob")
    t.start()
    t.run(tc.Act(t.acting(), tc.PlayerAction.FOLD, now=1.0))
    t.automatic()
    assert next_due(t.state, 1.0) == HandDue("2")


def test_a_snapshot_mid_runs_loads_back_the_same_state() -> None:
    from libs.table.codec import decode, encode, state_dumps, state_loads

    t = Table(RUN_TWICE, "ann", "bob")
    t.start()
    t.all_in_preflop()
    t.run(tc.AnswerRunIt("ann", 2, 2.0))
    assert state_loads(state_dumps(t.state)) == t.state  # asked, one answer in
    t.run(tc.AnswerRunIt("bob", 2, 2.0))
    t.automatic(2.0)
    assert state_loads(state_dumps(t.state)) == t.state  # two runs dealt, the hand over
    for event in t.events:
        assert decode(encode(event)) == event


def test_histories_of_a_hand_run_twice_keep_the_first_run_and_name_the_second() -> None:
    from libs.history.histories import hands_of_player
    from libs.poker import phh

    t = Table(RUN_TWICE, "ann", "bob")
    t.start()
    t.all_in_preflop()
    t.run(tc.AnswerRunIt("ann", 2, 2.0))
    t.run(tc.AnswerRunIt("bob", 2, 2.0))
    t.automatic(2.0)
    [history] = hands_of_player([(1, 1.0, t.events)], "ann")
    doc = phh.loads(history.phh)  # still a readable PHH hand
    assert doc.extra["_runs"] == 2 and len(doc.extra["_run_boards"]) == 1
    assert sum(1 for action in doc.actions if action.startswith("d db")) == 3  # the first run
    assert sum(doc.finishing_stacks or ()) == 200
    assert "*** RUN 2 ***" in history.pokerstars and "Board run 2 [" in history.pokerstars
    run = next(e for e in history.hand.events if isinstance(e, RunDealt))
    assert run.burns == ()  # a player's history shows no burn card
