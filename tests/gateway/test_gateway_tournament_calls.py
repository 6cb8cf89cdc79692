"""The gateway's tournament calls in process (services/gateway/tournaments.py), against a
recording tournament service: the player sent on is always the token's, keys are the player's
own, a call without a valid token reaches nothing, and WatchTournament sends an update only when
something but the countdown changed, tells a moved player where they went, ends after the
tournament does and gives its stream slot back. Through real processes:
test_gateway_tournaments.py."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from holdem.gateway.v1 import gateway_pb2
from holdem.tournament.v1 import tournament_pb2 as tpb

from libs.auth import KeyRing, issue_for
from libs.devstack.services import service_key_env
from libs.errors import Unauthenticated, Unavailable
from services.gateway.auth import Authenticator
from services.gateway.config import load_config
from services.gateway.server import GatewayServicer
from services.gateway.tournaments import my_seat, tournament_key
from tests.gateway.stack import KEYS, bearer


class _Context:
    def __init__(self, token: str) -> None:
        self.token = token

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return bearer(self.token) if self.token else ()

    def peer(self) -> str:
        return "ipv4:127.0.0.1:5000"

    def time_remaining(self) -> float | None:
        return None


class _Tournaments:
    """A tournament service that records what it is asked and answers GetTournament from a
    script (the last answer repeats)."""

    def __init__(self, script: list[tpb.Tournament] | None = None) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.script = list(script or [])

    def __getattr__(self, name: str) -> Any:
        async def call(request: Any, **_: Any) -> Any:
            self.calls.append((name, request))
            if name == "GetTournament":
                answer = self.script.pop(0) if len(self.script) > 1 else self.script[0]
                return tpb.GetTournamentResponse(tournament=answer)
            if name in ("Rebuy", "AddOn"):
                return tpb.PurchaseResponse(chips=1000, cost=100, stack=1500)
            if name == "Unregister":
                return tpb.UnregisterResponse(refund=100)
            if name == "ListTournaments":
                return tpb.ListTournamentsResponse()
            return tpb.RegisterResponse()

        return call


class _Unreached:
    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"{name} was reached")


def _servicer(tournaments: Any, **env: str) -> GatewayServicer:
    config = load_config({**service_key_env("gateway"), "HOLDEM_TOKEN_KEYS": KEYS, **env})
    return GatewayServicer(
        config,
        _Unreached(),  # type: ignore[arg-type]
        _Unreached(),  # type: ignore[arg-type]
        Authenticator(config.token_keys),
        feeds=None,
        tournaments=tournaments,
    )


def _token(player_id: str) -> str:
    return issue_for(KeyRing.parse(KEYS), player_id, now=time.time(), ttl_seconds=3600, guest=True)


def _tournament(
    status: str = "running", seconds_left: float = 60.0, table: str = "t1", seat: int = 2
) -> tpb.Tournament:
    clock = tpb.TournamentClock(level=1, small_blind=10, big_blind=20, seconds_left=seconds_left)
    summary = tpb.TournamentSummary(
        tournament_id="T", status=status, players_left=3, prize_pool=300, clock=clock
    )
    standings = [
        tpb.Standing(player_id="p1", stack=1200, table_id=table, seat=seat),
        tpb.Standing(player_id="p2", stack=900, table_id="t2", seat=0),
    ]
    return tpb.Tournament(summary=summary, standings=standings)


def test_every_call_is_for_the_token_s_player_with_keys_of_their_own() -> None:
    service = _Tournaments()
    gateway = _servicer(service)

    async def calls() -> None:
        for player in ("p1", "p2"):
            context: Any = _Context(_token(player))
            register = gateway_pb2.RegisterTournamentRequest(tournament_id="T", idempotency_key="k")
            await gateway.RegisterTournament(register, context)
            unregister = gateway_pb2.UnregisterTournamentRequest(
                tournament_id="T", idempotency_key="k"
            )
            assert (await gateway.UnregisterTournament(unregister, context)).refund == 100
            purchase = gateway_pb2.TournamentPurchaseRequest(tournament_id="T", idempotency_key="k")
            bought = await gateway.RebuyTournament(purchase, context)
            assert (bought.chips, bought.cost, bought.stack) == (1000, 100, 1500)
            await gateway.AddOnTournament(purchase, context)

    asyncio.run(calls())
    assert [name for name, _ in service.calls] == ["Register", "Unregister", "Rebuy", "AddOn"] * 2
    players = [request.player_id for _, request in service.calls]
    assert players == ["p1"] * 4 + ["p2"] * 4
    keys = [request.idempotency_key for _, request in service.calls]
    assert len(set(keys)) == 8  # one client key "k": none of them meets another
    assert keys[0] == tournament_key("p1", "register", "k")
    assert all(len(key) <= 100 for key in keys)  # the service's purchase keys' limit


def test_a_call_without_a_valid_token_reaches_nothing() -> None:
    service = _Tournaments([_tournament()])
    gateway = _servicer(service)
    requests: dict[str, Any] = {
        "ListTournaments": gateway_pb2.ListTournamentsRequest(),
        "GetTournament": gateway_pb2.GetTournamentRequest(tournament_id="T"),
        "RegisterTournament": gateway_pb2.RegisterTournamentRequest(tournament_id="T"),
        "UnregisterTournament": gateway_pb2.UnregisterTournamentRequest(tournament_id="T"),
        "RebuyTournament": gateway_pb2.TournamentPurchaseRequest(tournament_id="T"),
        "AddOnTournament": gateway_pb2.TournamentPurchaseRequest(tournament_id="T"),
    }

    async def refused(name: str, token: str) -> None:
        with pytest.raises(Unauthenticated):
            await getattr(gateway, name)(requests[name], _Context(token))

    async def refused_watch(token: str) -> None:
        stream = gateway.WatchTournament(
            gateway_pb2.WatchTournamentRequest(tournament_id="T"),
            _Context(token),  # type: ignore[arg-type]
        )
        with pytest.raises(Unauthenticated):
            await anext(stream)

    for token in ("", "garbage"):
        for name in requests:
            asyncio.run(refused(name, token))
        asyncio.run(refused_watch(token))
    assert service.calls == []


def test_a_gateway_without_a_tournament_service_answers_unavailable() -> None:
    gateway = _servicer(None)
    request = gateway_pb2.GetTournamentRequest(tournament_id="T")
    with pytest.raises(Unavailable):
        asyncio.run(gateway.GetTournament(request, _Context(_token("p1"))))  # type: ignore[arg-type]


async def _updates(stream: AsyncIterator[gateway_pb2.TournamentUpdate]) -> list[Any]:
    return [update async for update in stream]


def test_watch_sends_changes_tells_a_move_and_ends_with_the_tournament() -> None:
    script = [
        _tournament(seconds_left=60),
        _tournament(seconds_left=59),  # only the countdown: not sent
        _tournament(seconds_left=58, table="t3", seat=5),  # moved
        _tournament(seconds_left=57, table="t3", seat=5),
        _tournament(status="finished", seconds_left=-1, table=""),
    ]
    service = _Tournaments(script)
    gateway = _servicer(service, HOLDEM_GATEWAY_TOURNAMENT_POLL_SECONDS="0.1")
    stream = gateway.WatchTournament(
        gateway_pb2.WatchTournamentRequest(tournament_id="T"),
        _Context(_token("p1")),  # type: ignore[arg-type]
    )
    updates = asyncio.run(asyncio.wait_for(_updates(stream), 10))
    assert len([n for n, _ in service.calls if n == "GetTournament"]) == 5
    seats = [(u.me.table_id, u.me.seat, u.me.moved_from_table_id) for u in updates]
    assert seats == [("t1", 2, ""), ("t3", 5, "t1"), ("t3", 5, ""), ("", 0, "")]
    assert updates[0].tournament.clock.seconds_left == 60
    assert updates[-1].tournament.status == "finished"
    assert gateway.watches.try_acquire("p1")  # the stream's slot was given back


def test_my_seat_of_a_player_not_registered_is_empty() -> None:
    seat = my_seat(_tournament(), "someone", "")
    assert not seat.registered and not seat.table_id


def test_three_watchers_of_a_tournament_share_one_read_per_poll() -> None:
    script = [
        _tournament(seconds_left=60),
        _tournament(seconds_left=58, table="t3", seat=5),
        _tournament(status="finished", seconds_left=-1, table=""),
    ]
    service = _Tournaments(script)
    gateway = _servicer(service, HOLDEM_GATEWAY_TOURNAMENT_POLL_SECONDS="0.1")

    async def everyone() -> list[list[gateway_pb2.TournamentUpdate]]:
        streams = [
            gateway.WatchTournament(
                gateway_pb2.WatchTournamentRequest(tournament_id="T"),
                _Context(_token(player)),  # type: ignore[arg-type]
            )
            for player in ("p1", "p2", "p1")
        ]
        return list(await asyncio.gather(*(_updates(s) for s in streams)))

    seen = asyncio.run(asyncio.wait_for(everyone(), 10))
    assert len([n for n, _ in service.calls if n == "GetTournament"]) == 3  # not 9
    assert all(updates[-1].tournament.status == "finished" for updates in seen)
    # p2 saw only what changed for them: the start, and the end (p1's move is not theirs)
    assert [u.tournament.status for u in seen[1]] == ["running", "finished"]
    assert [u.me.table_id for u in seen[0]] == ["t1", "t3", ""]
    assert gateway.tournament_feeds.loops == 0
