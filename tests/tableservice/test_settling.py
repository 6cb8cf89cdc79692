"""A replay that settles the hands that are over (libs/table/settling.py, the table's
``fold_many``) gives what folding every commit in turn gives: the same state, the same keys in
the idempotency window with the same first outcomes, from every starting point of a stream,
over random tables of people (actions, showdowns, time-outs and the time bank, sitting out and
in, leaving, top-ups, auto-muck) in every variant; and it builds no event and plays no hand
through the engine for hands that are over."""

from __future__ import annotations

import asyncio
import contextlib
import random

import pytest

from libs.eventstore import Commit, InMemoryEventStore
from libs.poker.config import BettingStructure, Variant
from libs.poker.errors import IllegalAction, InvalidCommand
from libs.table import TableConfig, codec
from libs.table import commands as tc
from libs.table import state as table_state
from libs.table.commands import PlayerAction
from services.table.app import TableApp
from services.table.dealing import LocalDealer
from services.table.folding import TableCodec

GAMES = [
    (Variant.HOLDEM, BettingStructure.NO_LIMIT),
    (Variant.OMAHA, BettingStructure.POT_LIMIT),
    (Variant.OMAHA_HI_LO, BettingStructure.FIXED_LIMIT),
]


async def _random_table(seed: int, variant: Variant, structure: BettingStructure) -> list[Commit]:
    """A table of up to six people playing at random for a few dozen hands."""
    rng = random.Random(seed)
    now = [1_000.0]
    store = InMemoryEventStore()
    app = TableApp(store, None, LocalDealer(), clock=lambda: now[0], snapshot_every=0)
    config = TableConfig(
        variant=variant,
        structure=structure,
        seats=6,
        small_blind=1,
        big_blind=2,
        ante=rng.choice([0, 1]),
        min_buy_in=20,
        max_buy_in=400,
        action_seconds=5.0,
        time_bank_seconds=rng.choice([0.0, 8.0]),
    )
    keys = iter(range(10**9))

    async def run(command: tc.TableCommand) -> None:
        with contextlib.suppress(IllegalAction, InvalidCommand):
            await app.execute("t", command, f"k{next(keys)}")

    await run(tc.OpenTable("t", config, now[0]))
    people = [f"p{i}" for i in range(8)]
    for player in people[:4]:
        await run(tc.SitDown(player, None, rng.randrange(20, 401)))
    for _ in range(900):
        await app.drive("t")
        state = await app.state("t")
        if state.hands_started >= 40:
            break
        now[0] += rng.choice([0.1, 0.5, 1.0])
        roll = rng.random()
        player = rng.choice(people)
        if roll < 0.08:  # the clock runs out (the time bank first, where there is one)
            now[0] += rng.choice([6.0, 15.0])
            continue
        if roll < 0.11:
            await run(rng.choice([tc.SitOut, tc.SitIn])(player, now=now[0]))
        elif roll < 0.13:
            await run(tc.Leave(player, now=now[0]))
        elif roll < 0.17:
            await run(tc.SitDown(player, None, rng.randrange(20, 401), now=now[0]))
        elif roll < 0.19:
            await run(tc.AddChips(player, rng.randrange(1, 200), now=now[0]))
        elif roll < 0.21:
            await run(tc.SetAutoMuck(player, rng.random() < 0.5, now=now[0]))
        seat = state.acting_seat()
        if seat is None or seat not in state.seats:
            continue
        actor = state.seats[seat].player_id
        await run(tc.ShowOrMuck(actor, rng.random() < 0.6, now=now[0]))
        action = rng.choice(list(PlayerAction))
        amount = rng.choice([0, 2, 4, 7, 30, 500])
        await run(tc.Act(actor, action, amount, now=now[0]))
        await run(tc.Act(actor, rng.choice([PlayerAction.CHECK, PlayerAction.CALL]), now=now[0]))
    return await store.read("t")


def _one_by_one(codec_: TableCodec, commits: list[Commit]) -> tuple[bytes, list[object]]:
    folded = codec_.initial("t")
    for commit in commits:
        folded = codec_.fold(folded, commit)
    return _seen(folded)


def _seen(folded: object) -> tuple[bytes, list[object]]:
    state, recent = folded.state, folded.recent  # type: ignore[attr-defined]
    keys = recent.snapshot_keys()
    outcomes = [recent.first_outcome(key) for key, _, _ in keys]
    return codec.state_dumps(state), [keys, outcomes]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("variant", "structure"), GAMES)
def test_settling_replay_equals_folding_every_commit_from_every_start(
    seed: int, variant: Variant, structure: BettingStructure
) -> None:
    commits = asyncio.run(_random_table(seed, variant, structure))
    counts: dict[str, int] = {}
    for commit in commits:
        _, _, kinds, _, _ = split(commit)
        for kind in kinds:
            counts[kind] = counts.get(kind, 0) + 1
    # the stream has what the settling must get right
    assert counts.get("HandStarted", 0) >= 10, counts
    for kind in ("PlayerTimedOut", "HandShown", "ActionTaken", "PlayerLeft", "PlayerSatOut"):
        assert counts.get(kind, 0) > 0, (kind, counts)
    codec_ = TableCodec(window=1e9)  # every client key kept: all their outcomes compared
    expected = _one_by_one(codec_, commits)
    for start in range(0, len(commits), 7):
        folded = codec_.initial("t")
        for commit in commits[:start]:
            folded = codec_.fold(folded, commit)
        folded = codec_.fold_many(folded, commits[start:])
        assert _seen(folded) == expected, f"from commit {start} of {len(commits)}"
    # and from a snapshot taken there, as a load does it
    middle = len(commits) // 2
    folded = codec_.initial("t")
    for commit in commits[:middle]:
        folded = codec_.fold(folded, commit)
    restored = codec_.decode(codec_.encode(folded))
    assert _seen(codec_.fold_many(restored, commits[middle:]))[0] == expected[0]


def split(commit: Commit) -> tuple[float, bool, list[str], list[int], list[object]]:
    from libs.tableproto.envelope import split_stored

    return split_stored(commit.data)


def test_hands_that_are_over_are_not_played_through_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    commits = asyncio.run(_random_table(4, Variant.HOLDEM, BettingStructure.NO_LIMIT))
    played: list[object] = []
    real = table_state.apply_hand_event  # type: ignore[attr-defined]

    def counting(hand: object, event: object) -> None:
        played.append(event)
        real(hand, event)  # type: ignore[arg-type]

    monkeypatch.setattr(table_state, "apply_hand_event", counting)
    codec_ = TableCodec(window=300.0)
    codec_.fold_many(codec_.initial("t"), commits)
    settled = len(played)
    played.clear()
    _one_by_one(codec_, commits)
    assert 0 < settled < len(played) / 5, (settled, len(played))
