"""`python -m libs.platform.healthcheck` without an address: the image's HEALTHCHECK, which finds
the service of its container at HOLDEM_LISTEN."""

from __future__ import annotations

import asyncio

import pytest

from libs.platform import healthcheck
from libs.platform.server import start_server

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("listen", "address"),
    [
        ("0.0.0.0:50053", "127.0.0.1:50053"),
        ("[::]:50053", "[::1]:50053"),
        (":50053", "127.0.0.1:50053"),
        ("10.1.2.3:50053", "10.1.2.3:50053"),
    ],
)
def test_a_wildcard_listen_address_is_checked_on_loopback(listen: str, address: str) -> None:
    assert healthcheck.local_address(listen) == address


def test_without_an_address_it_checks_the_server_at_holdem_listen() -> None:
    async def run() -> tuple[int, int]:
        running = await start_server("0.0.0.0:0", [])
        try:
            environ = {"HOLDEM_LISTEN": f"0.0.0.0:{running.port}"}
            serving = await asyncio.to_thread(healthcheck.main, [], environ)
            await running.stop(0)
            stopped = await asyncio.to_thread(healthcheck.main, ["--timeout", "0.5"], environ)
            return serving, stopped
        finally:
            await running.stop(0)

    assert asyncio.run(run()) == (0, 1)


def test_without_an_address_or_holdem_listen_it_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert healthcheck.main([], {}) == 2
    assert "HOLDEM_LISTEN is not set" in capsys.readouterr().err
