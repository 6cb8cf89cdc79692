"""What the browser tests share: the stack with the gateway's HTTP port serving the built web
client (web/dist: ``make web``), Debian's chromium driven by Playwright (``make browser``), and a
spy in the page that keeps every byte of every gateway answer the page receives, decoded here as
the messages they are (stream updates and replies) for the privacy check."""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message_factory import GetMessageClass
from holdem.gateway.v1 import gateway_pb2

from libs.devstack.processes import free_port
from tests.e2e.play_support import Spy
from tests.gateway.stack import GatewayStack, start_gateway_stack

ROOT = Path(__file__).resolve().parents[2]
WEB_DIST = ROOT / "web" / "dist"
CHROMIUM = Path("/usr/bin/chromium")
#: Screenshots kept by the tests (the lobby, a table mid-hand).
ARTIFACTS = ROOT / "build" / "web-screenshots"
SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"]

#: Runs in the page before its own scripts: every gateway answer's body is teed and kept.
SPY = """
(() => {
  const received = [];
  window.__holdemReceived = received;
  const original = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const response = await original(input, init);
    const url = typeof input === "string" ? input : input.url;
    if (!url.includes("/holdem.gateway.v1.GatewayService/") || !response.body) return response;
    const [mine, page] = response.body.tee();
    const entry = { url, type: response.headers.get("content-type") || "", chunks: [] };
    received.push(entry);
    (async () => {
      const reader = mine.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        let text = "";
        for (const byte of value) text += String.fromCharCode(byte);
        entry.chunks.push(btoa(text));
      }
    })();
    return new Response(page, {
      status: response.status, statusText: response.statusText, headers: response.headers,
    });
  };
})();
"""


def start_web_stack(
    log_dir: Path,
    nats_url: str,
    redis_url: str,
    gateway_env: dict[str, str] | None = None,
    lobby_env: dict[str, str] | None = None,
) -> tuple[GatewayStack, str]:
    """A gateway stack whose HTTP port serves the built web client; its URL."""
    assert (WEB_DIST / "index.html").is_file(), "the web client is not built: run `make web`"
    assert CHROMIUM.is_file(), "Debian's chromium is missing: run `make browser`"
    port = free_port()
    stack = start_gateway_stack(
        log_dir,
        nats_url,
        redis_url,
        {
            "HOLDEM_GATEWAY_HTTP_LISTEN": f"127.0.0.1:{port}",
            "HOLDEM_GATEWAY_WEB_ROOT": str(WEB_DIST),
            "HOLDEM_GATEWAY_RATE_BURST": "1000",
            **(gateway_env or {}),
        },
        lobby_env,
    )
    return stack, f"http://127.0.0.1:{port}/"


@pytest.fixture(scope="module")
def web_stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[tuple[GatewayStack, str]]:
    stack, url = start_web_stack(tmp_path_factory.mktemp("web"), nats_url, redis_url)
    yield stack, url
    stack.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=["--no-sandbox"]
        )
        yield launched
        launched.close()


def received(page: Any, player_id: str) -> Spy:
    """Every gateway message the page got so far, decoded, as the e2e tests' privacy spy."""
    import base64

    spy = Spy(player_id)
    for entry in page.evaluate("window.__holdemReceived"):
        data = b"".join(base64.b64decode(chunk) for chunk in entry["chunks"])
        method = SERVICE.methods_by_name[entry["url"].rsplit("/", 1)[1]]
        reply_type: Any = GetMessageClass(method.output_type)
        if entry["type"].startswith("application/connect+proto"):
            if method.name != "WatchTable":
                continue  # chat and other streams carry no table update
            while len(data) >= 5:
                flags, length = struct.unpack(">BI", data[:5])
                frame, data = data[5 : 5 + length], data[5 + length :]
                if flags == 0 and len(frame) == length:
                    spy.updates.append(reply_type.FromString(frame))
        elif entry["type"].startswith("application/proto"):
            reply = reply_type.FromString(data)
            if "view" in reply.DESCRIPTOR.fields_by_name and reply.HasField("view"):
                spy.views.append(reply.view)
    return spy
