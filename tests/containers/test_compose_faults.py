"""docker-compose.yml under faults, seen from the host: the table's process SIGKILLed mid-hand
comes back by the restart policy and the table plays on with chips exact; Redis stopped makes
the dealer NOT_SERVING until it is back; every container is non-root on a read-only root
filesystem; a wrong or a missing setting stops a service with exit status 2 and the variable's
name in `docker compose logs`."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from functools import partial
from pathlib import Path

import pytest
import yaml
from holdem.gateway.v1.gateway_pb2 import HandRecord, LedgerEntry

from deploy.containers import compose
from libs.poker.phh import replay_text
from tests.conditions import wait_until_sync
from tests.containers.conftest import ComposeStack
from tests.containers.docker import docker, leftovers, main_process
from tests.containers.play import BUY_IN, Played, guest, play_table
from tests.containers.test_compose_play import audit

pytestmark = [pytest.mark.containers, pytest.mark.integration, pytest.mark.timeout(900)]

#: A restart, a health check's start period and a few intervals: far more than it takes.
COMEBACK = 180.0


def health(stack: ComposeStack, service: str, port: int) -> str:
    """The service's gRPC health as its own check command inside its container prints it."""
    result = stack.compose(
        "exec", "-T", service, "python", "-m", "libs.platform.healthcheck", f"127.0.0.1:{port}",
        check=False,
    )  # fmt: skip
    # it prints "<address>: <status>"
    return (result.stdout or result.stderr).strip().rsplit(" ", 1)[-1]


def test_the_table_killed_mid_hand_is_restarted_and_its_table_plays_on(
    compose_stack: ComposeStack,
) -> None:
    container = compose_stack.container("table")
    restarts = int(compose_stack.inspect("table", "{{.RestartCount}}"))
    killed: dict[str, int | str] = {}

    async def kill(hand: int, hand_id: str) -> None:
        # the process itself, as a crash would: `docker kill` would cancel the restart policy
        pid, _ = main_process(container)
        os.kill(pid, signal.SIGKILL)
        killed.update(pid=pid, hand=hand, hand_id=hand_id)

    async def scenario() -> tuple[Played, list[HandRecord], list[LedgerEntry]]:
        async with guest(compose_stack.gateway, "crash") as client:
            played = await play_table(client, 6, during_hand=kill)
            records = await client.hand_history(played.table_id, limit=100)
            return played, records, await client.ledger()

    played, records, ledger = asyncio.run(asyncio.wait_for(scenario(), 600))
    assert killed, "the table never reached its middle hand"
    wait_until_sync(
        lambda: compose_stack.inspect("table", "{{.State.Health.Status}}") == "healthy",
        "the restarted table to be healthy",
        COMEBACK,
    )
    assert int(compose_stack.inspect("table", "{{.RestartCount}}")) > restarts
    assert int(compose_stack.inspect("table", "{{.State.Pid}}")) != killed["pid"]
    assert played.closed, "the table did not play to its hand limit"
    # the hand in play when the process died finished (then it is in the history, which lists
    # finished hands only, and replays) or was voided (every chip back to its owner): either way
    # the table went on to its limit and the books close
    finished = [r for r in records if r.hand_id == killed["hand_id"]]
    for record in finished:
        assert replay_text(record.phh).status == "matched", record.phh
    print(f"the killed hand {killed['hand_id']} {'finished' if finished else 'was voided'}")
    cash_outs = sum(e.amount for e in ledger if e.amount > 0 and e.table_id == played.table_id)
    assert played.final_wallet == played.starting_chips - BUY_IN + cash_outs
    assert audit(compose_stack)["holds"] is True


def test_without_redis_the_dealer_is_not_serving_until_redis_is_back(
    compose_stack: ComposeStack,
) -> None:
    assert health(compose_stack, "dealer", 50054) == "SERVING"
    compose_stack.compose("stop", "redis")
    try:
        wait_until_sync(
            lambda: health(compose_stack, "dealer", 50054) == "NOT_SERVING",
            "the dealer to say NOT_SERVING without Redis",
            COMEBACK,
        )
        # the table keeps serving: Redis is only its snapshot cache
        assert health(compose_stack, "table", 50053) == "SERVING"
    finally:
        compose_stack.compose("start", "redis")
    wait_until_sync(
        lambda: health(compose_stack, "dealer", 50054) == "SERVING",
        "the dealer to serve again once Redis is back",
        COMEBACK,
    )
    for service in ("redis", "dealer"):  # the stack is left as the next tests expect it
        wait_until_sync(
            partial(_healthy, compose_stack, service),
            f"Docker's health check of {service} to pass again",
            COMEBACK,
        )


def _healthy(stack: ComposeStack, service: str) -> bool:
    return stack.inspect(service, "{{.State.Health.Status}}") == "healthy"


def test_every_container_runs_as_non_root_on_a_read_only_root(
    compose_stack: ComposeStack,
) -> None:
    running = compose_stack.compose("ps", "--quiet").stdout.split()
    names = {}
    for container in running:
        details = json.loads(docker("inspect", container))[0]
        name = details["Config"]["Labels"]["com.docker.compose.service"]
        names[name] = container
        _, uid = main_process(container)
        assert uid != 0, f"{name} runs as root"
        assert details["HostConfig"]["ReadonlyRootfs"] is True, name
        assert details["HostConfig"]["CapDrop"] == ["ALL"], name
        assert "no-new-privileges:true" in details["HostConfig"]["SecurityOpt"], name
        # even root cannot write the root filesystem there
        write = docker("exec", "-u", "0", container, "sh", "-c", ": > /holdem-probe", check=False)
        probe = docker(
            "exec", "-u", "0", container, "sh", "-c", "test ! -e /holdem-probe && echo ro"
        )
        assert probe.strip() == "ro", (name, write)
    assert {"nats", "redis", "gateway", "lobby", "table", "dealer", "evaluator", "ai"} <= set(names)


def test_a_wrong_or_missing_setting_stops_the_service_with_exit_2_naming_it(
    compose_stack: ComposeStack, tmp_path: Path
) -> None:
    """In a project of its own: the evaluator with a batch limit of 0, the ai without its
    service key; neither restarts (restart "no" here, so its exit status stays readable)."""
    override = tmp_path / "bad-settings.yml"
    override.write_text(
        yaml.safe_dump(
            {
                "services": {
                    "evaluator": {
                        "restart": "no",
                        "environment": {"HOLDEM_EVALUATOR_MAX_BATCH": "0"},
                    },
                    "ai": {"restart": "no", "environment": {"HOLDEM_SERVICE_KEY": ""}},
                }
            }
        )
    )
    project = f"{compose_stack.project}-bad"
    files = (compose.COMPOSE_FILE, override)
    environment = compose_stack.environment

    def run(*args: str) -> str:
        return compose.compose(args, project, environment, files, timeout=300).stdout

    try:
        # one at a time: an up of both would wait for the evaluator to be healthy first
        for service in ("evaluator", "ai"):
            run("up", "--detach", "--no-deps", "--no-build", "--pull", "never", service)

        def exited() -> bool:
            states = [
                json.loads(line) for line in run("ps", "--all", "--format", "json").splitlines()
            ]
            return len(states) == 2 and all(s["State"] == "exited" for s in states)

        wait_until_sync(exited, "both services to exit", COMEBACK)
        for service, variable in (
            ("evaluator", "HOLDEM_EVALUATOR_MAX_BATCH"),
            ("ai", "HOLDEM_SERVICE_KEY"),
        ):
            (container,) = run("ps", "--all", "--quiet", service).split()
            assert docker("inspect", "--format", "{{.State.ExitCode}}", container).strip() == "2"
            logs = run("logs", "--no-color", service)
            assert variable in logs, logs
    finally:
        compose.down(project, environment, files)
    assert not leftovers(project)
