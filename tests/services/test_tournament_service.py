"""The tournament service as a process, with a real lobby and table service: its API (what it
refuses, and how), a field of AIs played to the end through it (``holdem tournament``'s own
run: every entrant one place, the prizes reaching the wallets add up to the pool, chips
constant, the lobby's audit holding), and its process killed (SIGKILL) in the middle of a
tournament while a second process takes the tournament over and finishes it the same way."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.tournament.v1 import tournament_pb2 as pb
from holdem.tournament.v1 import tournament_pb2_grpc

from libs.cli.main import main
from libs.cli.stack_metrics import scrape
from libs.cli.tournament import Addresses, Run, adds_up, play
from libs.devstack.identity import channel_as
from tests.services.conftest import ServiceProcess, launch_service
from tests.services.lobby_stack import LobbyStack, lobby_stack

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

TAKEN_OVER = "holdem_tournament_directors_started_total"


def _tournament(stack: LobbyStack, log_dir: Path, ttl: str = "5") -> ServiceProcess:
    return launch_service(
        "tournament",
        log_dir,
        {
            "HOLDEM_NATS_URL": stack.nats_url,
            "HOLDEM_REDIS_URL": stack.redis_url,
            "HOLDEM_TABLE_ADDR": f"127.0.0.1:{stack.table_port}",
            "HOLDEM_LOBBY_ADDR": f"127.0.0.1:{stack.lobby_port}",
            "HOLDEM_TOURNAMENT_LEASE_TTL_SECONDS": ttl,
            "HOLDEM_TOURNAMENT_DIRECTOR_POLL_SECONDS": "0.2",
            "HOLDEM_TOURNAMENT_SAGA_RESUME_SECONDS": "1",
            "HOLDEM_RPC_TIMEOUT_SECONDS": "3",
        },
    ).wait_serving()


@pytest.fixture
def services(tmp_path: Path, redis_url: str) -> Iterator[tuple[LobbyStack, ServiceProcess]]:
    with lobby_stack(tmp_path, redis_url) as stack:
        tournament = _tournament(stack, tmp_path)
        try:
            yield stack, tournament
        finally:
            tournament.kill()


def _call(address: str, method: str, request: Any, identity: str = "tools") -> Any:
    with channel_as(address, identity) as channel:
        stub = tournament_pb2_grpc.TournamentServiceStub(channel)
        return getattr(stub, method)(request, timeout=30)


def _refused(address: str, method: str, request: Any, identity: str = "tools") -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as caught:
        _call(address, method, request, identity)
    return caught.value


def _config(**fields: Any) -> pb.TournamentConfig:
    base: dict[str, Any] = {
        "name": "api",
        "kind": pb.TOURNAMENT_KIND_SIT_AND_GO,
        "max_entrants": 3,
        "seats_per_table": 3,
        "starting_stack": 200,
        "buy_in": 100,
        "structure": pb.BlindStructure(name="hyper", unit=pb.LEVEL_UNIT_HANDS),
    }
    return pb.TournamentConfig(**{**base, **fields})


def test_the_api_refuses_bad_input_unknown_ids_and_wrong_callers_changing_nothing(
    services: tuple[LobbyStack, ServiceProcess],
) -> None:
    stack, service = services
    at = service.address
    bad = {
        "an unknown preset": _config(
            structure=pb.BlindStructure(name="nope", unit=pb.LEVEL_UNIT_HANDS)
        ),
        "too few entrants": _config(max_entrants=1),
        "a stack below the big blind": _config(starting_stack=10),
        "a scheduled one without a start": _config(kind=pb.TOURNAMENT_KIND_SCHEDULED),
        "no unit": _config(structure=pb.BlindStructure(name="hyper")),
    }
    for why, config in bad.items():
        request = pb.CreateTournamentRequest(
            tournament_id="bad", config=config, idempotency_key="k"
        )
        error = _refused(at, "CreateTournament", request)
        assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, why
        assert error.details(), why
    missing = _refused(at, "GetTournament", pb.GetTournamentRequest(tournament_id="bad"))
    assert missing.code() == grpc.StatusCode.NOT_FOUND  # nothing was created
    request = pb.CreateTournamentRequest(
        tournament_id="api1", config=_config(), idempotency_key="k"
    )
    created = _call(at, "CreateTournament", request).tournament
    assert _call(at, "CreateTournament", request).tournament == created  # a retry
    other = pb.CreateTournamentRequest(
        tournament_id="api1", config=_config(name="other"), idempotency_key="k2"
    )
    assert _refused(at, "CreateTournament", other).code() == grpc.StatusCode.ALREADY_EXISTS
    with grpc.insecure_channel(at) as channel:  # no service token: not authenticated
        anonymous = tournament_pb2_grpc.TournamentServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            anonymous.CreateTournament(request, timeout=30)
        assert caught.value.code() == grpc.StatusCode.PERMISSION_DENIED
        shown = anonymous.GetTournament(pb.GetTournamentRequest(tournament_id="api1"))
        assert shown.tournament == created  # reading shows nothing hidden: open
    cancel = pb.CancelRequest(tournament_id="api1", reason="test")
    for identity in ("gateway", "lobby", "table"):
        denied = _refused(at, "Cancel", cancel, identity)
        assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
    player = stack.register(bot=True).player_id
    register = pb.RegisterRequest(tournament_id="api1", player_id=player, idempotency_key="r1")
    assert _call(at, "Register", register).tournament.entrants == 1
    assert _call(at, "Register", register).tournament.entrants == 1  # a retry pays once
    again = pb.RegisterRequest(tournament_id="api1", player_id=player, idempotency_key="r2")
    assert _refused(at, "Register", again).code() == grpc.StatusCode.ALREADY_EXISTS
    nobody = pb.RegisterRequest(tournament_id="nope", player_id=player, idempotency_key="r3")
    assert _refused(at, "Register", nobody).code() == grpc.StatusCode.NOT_FOUND
    assert stack.wallet(player).balance == 10_000 - 100
    buy = pb.PurchaseRequest(tournament_id="api1", player_id=player, idempotency_key="b1")
    for method in ("Rebuy", "AddOn"):  # a freezeout: none sold, nothing paid
        assert _refused(at, method, buy).code() == grpc.StatusCode.FAILED_PRECONDITION
        for identity in ("lobby", "table"):  # players' purchases come through the gateway
            assert _refused(at, method, buy, identity).code() == grpc.StatusCode.PERMISSION_DENIED
    nobody_buys = pb.PurchaseRequest(tournament_id="nope", player_id=player, idempotency_key="b2")
    assert _refused(at, "Rebuy", nobody_buys, "gateway").code() == grpc.StatusCode.NOT_FOUND
    assert stack.wallet(player).balance == 10_000 - 100
    unregister = pb.UnregisterRequest(tournament_id="api1", player_id=player, idempotency_key="u")
    assert _call(at, "Unregister", unregister).refund == 100
    cancelled = _call(at, "Cancel", cancel).tournament
    assert cancelled.status == "cancelled"
    late = pb.RegisterRequest(tournament_id="api1", player_id=player, idempotency_key="r4")
    assert _refused(at, "Register", late).code() == grpc.StatusCode.FAILED_PRECONDITION
    listed = _call(at, "ListTournaments", pb.ListTournamentsRequest(statuses=["cancelled"]))
    assert [t.tournament_id for t in listed.tournaments] == ["api1"]
    deadline = time.monotonic() + 30
    while stack.wallet(player).balance != 10_000:  # the director pays the refund back, once
        assert time.monotonic() < deadline
        time.sleep(0.2)


def test_a_field_of_ais_is_played_to_the_end_through_the_services(
    services: tuple[LobbyStack, ServiceProcess],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """``holdem tournament`` itself, pointed at the services."""
    stack, service = services
    monkeypatch.setenv("HOLDEM_STACK_DIR", str(tmp_path / "no-stack"))  # this run's tools key
    argv = ["tournament", "--entrants", "12", "--ai", "easy,normal,hard", "--structure", "hyper"]
    argv += ["--stack", "500", "--seats", "6", "--seed", "7", "--json", "--quiet"]
    argv += ["--tournament", service.address, "--lobby", f"127.0.0.1:{stack.lobby_port}"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["status"] == "finished" and report["entrants"] == 12
    assert report["paid_total"] == report["prize_pool"] == 12 * 100
    assert len({p["player_id"] for p in report["places"]}) == 12  # every entrant exactly once
    places = sorted((p["place"], p["tied"]) for p in report["places"])
    ranking: list[tuple[int, int]] = []
    while len(ranking) < 12:  # a ranking: ties cover exactly their places
        place, tied = places[len(ranking)]
        assert place == len(ranking) + 1
        ranking += [(place, tied)] * tied
    assert places == ranking
    assert all(p["paid"] == p["prize"] for p in report["places"])
    assert {p["level"] for p in report["places"]} == {"easy", "normal", "hard"}
    assert report["chips_constant"] and report["audit_holds"]
    assert report["tables_max"] == 2 and report["hands"] > 0 and report["moves"] >= 0
    assert adds_up(report)


def _holder(processes: list[ServiceProcess], tournament_id: str) -> ServiceProcess | None:
    """The process whose log says it is directing ``tournament_id`` last."""
    for process in processes:
        lines = [r for r in process.log_lines() if r.get("tournament") == tournament_id]
        if lines and lines[-1].get("event") == "directing":
            return process
    return None


@dataclass
class Takeover:
    report: dict[str, Any]
    faulted: ServiceProcess  # the process that directed the tournament when the fault came
    other: ServiceProcess
    looks: list[pb.TournamentSummary]


@contextmanager
def _takeover(
    tmp_path: Path, redis_url: str, fault: Callable[[ServiceProcess], None]
) -> Iterator[Takeover]:
    """Two tournament processes (leases of 1 s); once hands are being played, ``fault`` is done
    to the one directing the tournament; the tournament is played to its end through both."""
    with lobby_stack(tmp_path, redis_url) as stack:
        first = _tournament(stack, tmp_path, ttl="1")
        second = _tournament(stack, tmp_path, ttl="1")
        processes = [first, second]
        try:
            # both replicas behind one target: the client moves to the other when one dies
            both = f"ipv4:{first.address},{second.address}"
            at = Addresses(both, f"127.0.0.1:{stack.lobby_port}")
            run = Run(entrants=12, levels=("normal",), stack=1000, seats=6, timeout=600)
            looks: list[pb.TournamentSummary] = []
            faulted: list[ServiceProcess] = []

            def progress(s: pb.TournamentSummary) -> None:
                looks.append(s)
                if not faulted and s.status == "running" and s.hands >= 10:
                    holder = _holder(processes, s.tournament_id)
                    if holder is not None:
                        faulted.append(holder)
                        fault(holder)

            report = asyncio.run(play(run, at, progress))
            assert faulted, "the tournament ended before the fault"
            other = next(p for p in processes if p is not faulted[0])
            assert report["status"] == "finished"
            assert report["paid_total"] == report["prize_pool"] == 12 * run.buy_in
            assert all(p["paid"] == p["prize"] for p in report["places"])
            assert len({p["player_id"] for p in report["places"]}) == 12
            assert report["chips_constant"] and report["audit_holds"] and adds_up(report)
            assert looks[-1].hands > 10
            yield Takeover(report, faulted[0], other, looks)
        finally:
            for process in processes:
                process.kill()


def _events(process: ServiceProcess, tournament_id: str, event: str) -> list[dict[str, Any]]:
    return [
        r
        for r in process.log_lines()
        if r.get("tournament") == tournament_id and r.get("event") == event
    ]


def test_a_killed_tournament_process_is_taken_over_and_the_tournament_finishes(
    tmp_path: Path, redis_url: str
) -> None:
    """The process directing the tournament is SIGKILLed once hands are being played; the other
    takes it over when the lease runs out and the tournament ends with every entrant placed
    once, the prizes paid once each, chips constant."""

    def kill(process: ServiceProcess) -> None:
        process.kill()  # SIGKILL: nothing flushed, the lease left to age out

    with _takeover(tmp_path, redis_url, kill) as run:
        survivor, tid = run.other, run.report["tournament_id"]
        assert _events(survivor, tid, "directing"), "the survivor never directed it"
        serving = next(r for r in survivor.log_lines() if r.get("event") == "serving")
        samples = scrape(f"127.0.0.1:{serving['metrics_port']}") or []
        started = [x.value for x in samples if x.name == TAKEN_OVER]
        assert started and started[0] >= 1


def test_a_stalled_director_gives_way_to_the_process_that_took_its_tournament_over(
    tmp_path: Path, redis_url: str
) -> None:
    """The process directing the tournament is stopped (SIGSTOP) past its lease's lifetime
    and then continued: the other took the tournament over meanwhile, and the woken one finds
    its lease lost and stops its director; the tournament ends with the same checks (the
    expected-sequence append keeps the moment both ran harmless)."""

    def stall(process: ServiceProcess) -> None:
        os.kill(process.pid, signal.SIGSTOP)
        try:
            time.sleep(4)  # four lease lifetimes: the other process takes the tournament
        finally:
            os.kill(process.pid, signal.SIGCONT)

    with _takeover(tmp_path, redis_url, stall) as run:
        tid = run.report["tournament_id"]
        assert _events(run.other, tid, "directing"), "nobody took the tournament over"
        assert _events(run.faulted, tid, "lease lost: director stopped")
