"""Bomb pots and the straddle through the gateway, with real processes (lobby, table, gateway,
nats-server, redis-server): tables created with the options (an absurd ante refused by the
lobby); a bomb pot voted for during a hand, seen in the players' views, then dealt from the
flop with every player's ante and no blind, chips exact and the deck verified; the straddle
posted by a seat that opted in; bad input (a vote at a table without it, a refusal with no vote
open, a straddle where it is not allowed, a stranger) refused with a clear status, nothing
changed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from libs.fairdeck.audit import outcomes_from_stream
from libs.poker.events import HandEnded
from libs.table.events import BombPotVoteClosed
from tests.gateway.chat_steps import Person, code_of, person, refused
from tests.gateway.play import truth
from tests.gateway.stack import CONFIG, GatewayStack, gateway_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

S = grpc.StatusCode
g = gateway_pb2
pb = common_pb2


def _config(**options: object) -> pb.TableConfig:
    config = pb.TableConfig()
    config.CopyFrom(CONFIG)
    for name, value in options.items():
        setattr(config, name, value)
    return config


def _table(gw: object, host: Person, **options: object) -> str:
    created = gw.CreateTable(  # type: ignore[attr-defined]
        g.CreateTableRequest(name="bomb", config=_config(**options)), metadata=host.meta, timeout=60
    )
    return str(created.table.table_id)


def _until(check: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"waited {seconds} s for {what}")


def _events(stack: GatewayStack, table_id: str) -> list[object]:
    return list(asyncio.run(truth(stack.nats_url, table_id))[2])


def _join(gw: object, table_id: str, *people: Person) -> None:
    for who in people:
        gw.JoinTable(  # type: ignore[attr-defined]
            g.JoinTableRequest(table_id=table_id, buy_in=100), metadata=who.meta, timeout=60
        )


def _acting(stack: GatewayStack, table_id: str, people: list[Person]) -> Person:
    view = stack.view(table_id)
    seat = next(s for s in view.seats if s.seat == view.acting_seat)
    return next(p for p in people if p.player_id == seat.player_id)


def _act(
    gw: object, who: Person, view: pb.PlayerView, action: pb.ActionType.ValueType, key: str
) -> None:
    gw.Act(  # type: ignore[attr-defined]
        g.ActRequest(
            table_id=view.table_id, hand_id=view.hand_id, action=action, idempotency_key=key
        ),
        metadata=who.meta,
        timeout=30,
    )


def test_an_absurd_bomb_pot_ante_is_refused_by_the_lobby(gateway_stack: GatewayStack) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        ann = person(gw, "ann")
        for options in (
            {"bomb_pot_ante": 41, "bomb_pot_every": 2},  # above the minimum buy-in (40)
            {"bomb_pot_every": 2},  # no ante
            {"bomb_pot_ante": 4},  # never dealt
        ):
            bad = refused(
                gw.CreateTable,
                g.CreateTableRequest(name="bomb", config=_config(**options)),
                metadata=ann.meta,
            )
            assert bad.code() == S.INVALID_ARGUMENT and "bomb_pot" in (bad.details() or "")
            assert code_of(bad) == "INVALID_TABLE_CONFIG"
        too_often = refused(
            gw.CreateTable,
            g.CreateTableRequest(
                name="bomb", config=_config(bomb_pot_ante=4, bomb_pot_every=100_000)
            ),
            metadata=ann.meta,
        )
        assert too_often.code() == S.INVALID_ARGUMENT


def test_a_bomb_pot_voted_for_is_dealt_from_the_flop_and_bad_input_changes_nothing(
    gateway_stack: GatewayStack,
) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        ann, bob, eve = (person(gw, n) for n in ("ann", "bob", "eve"))
        table_id = _table(gw, ann, bomb_pot_ante=4, bomb_pot_vote=True)
        _join(gw, table_id, ann, bob)
        _until(lambda: bool(gateway_stack.view(table_id).hand_id), "the first hand")
        view = gateway_stack.view(table_id)
        assert view.config.bomb_pot_ante == 4 and view.config.bomb_pot_vote
        assert not view.bomb_pot
        sequence = view.sequence

        # bad input: clear statuses, nothing changed
        nothing = refused(
            gw.VoteBombPot, g.BombPotVoteRequest(table_id=table_id, agree=False), metadata=bob.meta
        )
        assert nothing.code() == S.FAILED_PRECONDITION and code_of(nothing) == "BOMB_POT_NO_VOTE"
        no_straddle = refused(
            gw.SetStraddle,
            g.StraddleSetRequest(table_id=table_id, straddle=True),
            metadata=ann.meta,
        )
        assert code_of(no_straddle) == "STRADDLE_NOT_ALLOWED"
        assert no_straddle.code() == S.FAILED_PRECONDITION
        stranger = refused(
            gw.VoteBombPot, g.BombPotVoteRequest(table_id=table_id, agree=True), metadata=eve.meta
        )
        assert stranger.code() == S.PERMISSION_DENIED
        unknown = refused(
            gw.VoteBombPot, g.BombPotVoteRequest(table_id="no-such-table"), metadata=ann.meta
        )
        assert unknown.code() == S.NOT_FOUND
        assert gateway_stack.view(table_id).sequence == sequence

        # ann proposes during the first hand; bob sees the vote, then agrees
        gw.VoteBombPot(g.BombPotVoteRequest(table_id=table_id, agree=True), metadata=ann.meta)
        seen = gateway_stack.view(table_id, bob.player_id).bomb_pot_vote
        ann_seat = next(s.seat for s in view.seats if s.player_id == ann.player_id)
        bob_seat = next(s.seat for s in view.seats if s.player_id == bob.player_id)
        assert seen.proposer_seat == ann_seat and list(seen.agreed_seats) == [ann_seat]
        assert sorted(seen.asked_seats) == sorted((ann_seat, bob_seat))
        assert seen.HasField("deadline") and not seen.agreed and not seen.viewer_agreed
        gw.VoteBombPot(g.BombPotVoteRequest(table_id=table_id, agree=True), metadata=bob.meta)
        agreed = gateway_stack.view(table_id, bob.player_id).bomb_pot_vote
        assert agreed.agreed and agreed.viewer_agreed

        # the first hand ends (a fold); the next is the bomb pot
        first = gateway_stack.view(table_id)
        _act(gw, _acting(gateway_stack, table_id, [ann, bob]), first, pb.ACTION_TYPE_FOLD, "f1")
        _until(lambda: gateway_stack.view(table_id).bomb_pot, "the bomb pot")
        _until(lambda: gateway_stack.view(table_id).HasField("acting_seat"), "the flop's action")
        bomb = gateway_stack.view(table_id)
        assert bomb.street == pb.STREET_FLOP and len(bomb.board) == 3
        assert [(a.kind, a.amount) for a in bomb.actions] == [(pb.PUBLIC_ACTION_KIND_ANTE, 4)] * 2
        assert sum(p.amount for p in bomb.pots) == 8
        assert not bomb.HasField("bomb_pot_vote")  # spent
        shover = _acting(gateway_stack, table_id, [ann, bob])
        _act(gw, shover, bomb, pb.ACTION_TYPE_ALL_IN, "shove")
        folder = _acting(gateway_stack, table_id, [ann, bob])
        _act(gw, folder, gateway_stack.view(table_id), pb.ACTION_TYPE_FOLD, "f2")

        def two_hands_over() -> bool:
            return sum(isinstance(e, HandEnded) for e in _events(gateway_stack, table_id)) >= 2

        _until(two_hands_over, "the bomb pot's end")
        _until(
            lambda: len([o for o in outcomes_from_stream(_events(gateway_stack, table_id))]) >= 2,
            "the seeds",
        )
        events = _events(gateway_stack, table_id)
        assert [e for e in events if isinstance(e, BombPotVoteClosed)] == [
            BombPotVoteClosed(True, "agreed")
        ]
        for outcome in outcomes_from_stream(events)[:2]:
            assert outcome.ok, outcome.failures
        after = gateway_stack.view(table_id)
        assert sum(s.stack for s in after.seats) + sum(p.amount for p in after.pots) == 200


def test_a_seat_that_opted_in_posts_the_straddle(gateway_stack: GatewayStack) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        ann, bob, cid = (person(gw, n) for n in ("ann", "bob", "cid"))
        table_id = _table(gw, ann, straddle_allowed=True, min_players_to_start=3)
        _join(gw, table_id, ann, bob)
        for who in (ann, bob):  # no hand before the third player: seats 0 and 1 opt in
            gw.SetStraddle(
                g.StraddleSetRequest(table_id=table_id, straddle=True), metadata=who.meta
            )
        nothing = refused(
            gw.VoteBombPot, g.BombPotVoteRequest(table_id=table_id, agree=True), metadata=ann.meta
        )
        assert nothing.code() == S.FAILED_PRECONDITION and code_of(nothing) == "BOMB_POT_OFF"
        _join(gw, table_id, cid)
        _until(lambda: bool(gateway_stack.view(table_id).hand_id), "the first hand")
        view = gateway_stack.view(table_id)
        assert [s.straddle for s in view.seats] == [True, True, False]
        # three-handed the button (seat 0) is first left of the big blind (seat 2)
        blinds = [a.amount for a in view.actions if a.kind == pb.PUBLIC_ACTION_KIND_BLIND]
        assert blinds == [1, 2, 4]  # small blind, big blind, the straddle (live, 2 x 2)
