"""docker-compose.yml plays: from the host, through the gateway's published port only, a guest
creates a table with AIs, plays its 10 hands and is cashed out with every chip accounted for;
the hands' histories export as PHH that replays and PokerStars text PokerKit reads; the lobby's
chip audit (run as an operator would, inside the lobby's container) holds; the gateway's HTTP port
serves the web client the image carries."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from pathlib import Path

import pytest
from pokerkit.notation import HandHistory as PokerKitHistory

from libs.client import GatewayClient
from libs.poker.phh import replay_text
from tests.containers.conftest import ComposeStack
from tests.containers.play import BUY_IN, Played, guest, histories, play_table

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.containers, pytest.mark.integration, pytest.mark.timeout(900)]

HANDS = 10
#: The CLI's development key of the tools identity (docker-compose.yml names it).
TOOLS_KEY = "dev1:/cUXFp0gXQQuFW7j6SF0apB2NcQBNktozTOeh3Yb22I="


def audit(stack: ComposeStack) -> dict[str, object]:
    """`holdem audit chips --json` inside the lobby's container, as the tools identity."""
    result = stack.compose(
        "exec", "-T", "-e", f"HOLDEM_SERVICE_KEY={TOOLS_KEY}", "lobby",
        "holdem", "audit", "chips", "--lobby", "127.0.0.1:50052", "--json",
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    found: dict[str, object] = json.loads(result.stdout)
    return found


def test_every_container_became_healthy(compose_stack: ComposeStack) -> None:
    listed = compose_stack.compose("ps", "--all", "--format", "json").stdout
    states = [json.loads(line) for line in listed.splitlines() if line.strip()]
    by_service = {state["Service"]: state for state in states}
    expected = {"nats", "redis", "gateway", "lobby", "table", "dealer", "evaluator", "ai"}
    assert expected | {"prometheus"} <= set(by_service)
    for name in expected | {"prometheus"}:
        assert by_service[name]["Health"] == "healthy", by_service[name]
    helper = by_service["nats-data"]
    assert helper["State"] == "exited" and helper["ExitCode"] == 0, helper
    print(f"compose up: every container healthy in {compose_stack.healthy_after:.0f} s")


def test_a_client_plays_ten_hands_through_the_published_gateway_with_chips_exact(
    compose_stack: ComposeStack,
) -> None:
    async def scenario() -> tuple[Played, list[object]]:
        async with guest(compose_stack.gateway, "tier") as client:
            played = await play_table(client, HANDS)
            records = await histories(client, played.table_id)
            ledger = await client.ledger()
            return played, [records, ledger]

    played, (records, ledger) = asyncio.run(asyncio.wait_for(scenario(), 600))
    assert played.closed
    # chips exact: what left the wallet came back as the stack the table closed with
    assert isinstance(ledger, list)
    cash_outs = [entry.amount for entry in ledger if entry.amount > 0 and entry.table_id]
    buy_ins = [entry.amount for entry in ledger if entry.amount < 0 and entry.table_id]
    assert buy_ins == [-BUY_IN], ledger
    assert played.final_wallet == played.starting_chips - BUY_IN + sum(cash_outs)
    assert ledger[-1].balance_after == played.final_wallet
    assert isinstance(records, list)
    assert sorted(int(record.hand_number) for record in records) == list(range(1, HANDS + 1))
    for record in records:
        assert replay_text(record.phh).status == "matched", record.phh
        assert len(list(PokerKitHistory.from_pokerstars(record.pokerstars))) == 1
    found = audit(compose_stack)
    assert found["holds"] is True, found


def test_two_clients_at_once_get_their_own_tables(compose_stack: ComposeStack) -> None:
    """Two players through the same published port at the same time, a table each."""

    async def one(name: str) -> tuple[Played, int]:
        async with guest(compose_stack.gateway, name) as client:
            played = await play_table(client, 3, bots=1)
            return played, len(await histories(client, played.table_id))

    async def both() -> list[tuple[Played, int]]:
        return list(await asyncio.gather(one("left"), one("right")))

    (left, left_hands), (right, right_hands) = asyncio.run(asyncio.wait_for(both(), 300))
    assert left.table_id != right.table_id and left.player_id != right.player_id
    assert left.closed and right.closed and left_hands == right_hands == 3
    assert audit(compose_stack)["holds"] is True


def test_the_gateway_is_the_only_published_service(compose_stack: ComposeStack) -> None:
    listed = compose_stack.compose("ps", "--format", "json").stdout
    states = [json.loads(line) for line in listed.splitlines() if line.strip()]
    published = {
        state["Service"]: sorted(
            (p["URL"], p["TargetPort"]) for p in state["Publishers"] or [] if p["PublishedPort"]
        )
        for state in states
    }
    with_ports = {service: ports for service, ports in published.items() if ports}
    assert with_ports == {
        "gateway": [("127.0.0.1", 8080), ("127.0.0.1", 50051)],
        "prometheus": [("127.0.0.1", 9090)],
    }

    async def wallet() -> int:
        async with GatewayClient(compose_stack.gateway) as client:
            await client.guest_login("peek")
            return (await client.wallet()).balance

    assert asyncio.run(wallet()) > 0


def test_the_gateway_serves_the_web_client_from_the_image(compose_stack: ComposeStack) -> None:
    """The page the image carries (web/dist at HOLDEM_GATEWAY_WEB_ROOT), on the published HTTP
    port, with its Content-Security-Policy; the same files as this checkout's build."""
    with urllib.request.urlopen(compose_stack.web, timeout=30) as response:
        page = response.read()
        policy = response.headers["Content-Security-Policy"]
    assert page == (ROOT / "web" / "dist" / "index.html").read_bytes()
    assert policy and "script-src 'self'" in policy
