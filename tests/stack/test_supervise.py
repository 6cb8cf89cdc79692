"""`holdem stack up` supervises the real stack: SIGKILL one process at a time (each service,
nats-server, redis-server); each is restarted where it was, the others keep running, and a
table of bots keeps committing hands on the same table: no table is lost. Then the stack is
stopped and started again on the same state directory: the table is still there."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.table.v1 import table_pb2, table_pb2_grpc

from libs.devstack import SERVICE_NAMES, pid_alive
from libs.devstack.identity import channel_as, stack_service_key
from libs.devstack.stackstate import read_state
from libs.platform import healthcheck
from tests.stack.stackrun import StackRun, run_holdem

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

TABLE_ID = "supervised"
# every bounded wait below; none is a timing assertion, only a stop for a wedged run
PROGRESS_TIMEOUT = 90.0


def _table_stub(
    state: dict[str, Any], state_dir: Path
) -> tuple[grpc.Channel, table_pb2_grpc.TableServiceStub]:
    address = next(s["address"] for s in state["services"] if s["name"] == "table")
    # as tools, with the stack's own keys (a table takes chips only from the lobby or tools)
    channel = channel_as(address, key=stack_service_key(state_dir))
    return channel, table_pb2_grpc.TableServiceStub(channel)


def _open_bot_table(stub: table_pb2_grpc.TableServiceStub) -> None:
    config = common_pb2.TableConfig(
        variant=common_pb2.VARIANT_HOLDEM,
        betting_structure=common_pb2.BETTING_STRUCTURE_FIXED_LIMIT,  # nobody goes broke
        max_seats=3,
        small_blind=1,
        big_blind=2,
        min_buy_in=100_000,
        max_buy_in=100_000,
        min_players_to_start=3,
    )
    stub.SubmitCommand(
        table_pb2.SubmitCommandRequest(
            table_id=TABLE_ID,
            idempotency_key="open",
            open_table=table_pb2.OpenTable(name="supervised", config=config),
        ),
        timeout=30,
    )
    for seat in range(3):
        bot = table_pb2.SeatPlayer(
            player_id=f"bot{seat}",
            seat=seat,
            buy_in=100_000,
            is_bot=True,
            bot_difficulty=common_pb2.BOT_DIFFICULTY_EASY,
        )
        stub.SubmitCommand(
            table_pb2.SubmitCommandRequest(
                table_id=TABLE_ID, idempotency_key=f"seat-{seat}", seat_player=bot
            ),
            timeout=30,
        )


def _hand_number(stub: table_pb2_grpc.TableServiceStub) -> int | None:
    """The table's current hand number, None while the table service cannot answer."""
    try:
        view = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=TABLE_ID), timeout=5).view
    except grpc.RpcError as exc:
        if exc.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED):
            return None
        raise
    return int(view.hand_number)


def _wait_for(what: str, ready: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + PROGRESS_TIMEOUT
    while time.monotonic() < deadline:
        value = ready()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"{what}: not within {PROGRESS_TIMEOUT:.0f}s")


def _wait_for_hands(stub: table_pb2_grpc.TableServiceStub, what: str) -> int:
    """Wait until the table plays a whole hand from now: it is in hand N (0 reads "between
    hands", so the first N read as more than 0), then in hand N + 2, so hand N + 1 was played
    from start to end after this call began. Returns the last hand number seen."""
    current = int(_wait_for(f"the table cannot be read {what}", lambda: _hand_number(stub)))

    def progressed() -> int | None:
        number = _hand_number(stub)
        return number if number is not None and number >= current + 2 else None

    return int(_wait_for(f"no hand played {what}", progressed))


def _pid_of(state: dict[str, Any], name: str) -> int:
    if name in ("nats", "redis"):
        return int(state[name]["pid"])
    return int(next(s["pid"] for s in state["services"] if s["name"] == name))


def _restarts_of(state: dict[str, Any], name: str) -> int:
    if name in ("nats", "redis"):
        return int(state[name]["restarts"])
    return int(next(s["restarts"] for s in state["services"] if s["name"] == name))


def test_killing_any_one_process_keeps_the_table_playing(
    start_stack: Callable[..., StackRun],
) -> None:
    run = start_stack()
    channel, stub = _table_stub(run.state, run.state_dir)
    with channel:
        _open_bot_table(stub)
        hand = _wait_for_hands(stub, "before any kill")
        for name in [*SERVICE_NAMES, "nats", "redis"]:
            state = read_state(run.state_dir)
            assert state is not None
            victim = _pid_of(state, name)
            others = {n: _pid_of(state, n) for n in [*SERVICE_NAMES, "nats", "redis"] if n != name}
            os.kill(victim, signal.SIGKILL)

            def restarted(name: str = name, victim: int = victim) -> dict[str, Any] | None:
                now = read_state(run.state_dir)
                if now is None or _pid_of(now, name) == victim:
                    return None
                return now if pid_alive(_pid_of(now, name)) else None

            state = _wait_for(f"{name} was not restarted", restarted)
            assert _restarts_of(state, name) == 1
            # the others were left alone
            assert {n: _pid_of(state, n) for n in others} == others
            assert run.proc.poll() is None
            addresses = [s["address"] for s in state["services"]]

            def serving(addresses: list[str] = addresses) -> bool:
                return all(
                    healthcheck.check(a, timeout=2) == healthcheck.SERVING for a in addresses
                )

            _wait_for(f"not every service SERVING after {name} was killed", serving)
            hand = max(hand, _wait_for_hands(stub, f"after {name} was killed"))

        status = run_holdem("stack", "status", "--state-dir", str(run.state_dir))
        assert status.returncode == 0, status.stdout + status.stderr
        assert status.stdout.count("restarts 1") == len(SERVICE_NAMES) + 2

    # stop, then start again on the same state directory: the table comes back from the store
    run.proc.send_signal(signal.SIGTERM)
    assert run.proc.wait(timeout=60) == 0
    assert "table exited with status -9" in run.output()
    again = start_stack(state_dir=run.state_dir)
    channel, stub = _table_stub(again.state, again.state_dir)
    with channel:
        # the same table, from its stored stream: it goes on from where it was
        view = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=TABLE_ID), timeout=30)
        assert [s.player_id for s in view.view.seats] == ["bot0", "bot1", "bot2"]
        assert _wait_for_hands(stub, "after the stack was started again") > hand
