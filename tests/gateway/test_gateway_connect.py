"""The gateway's HTTP port over real HTTP: GatewayService over Connect (binary and JSON) and
gRPC-Web, answered by the same handlers in the same layers as the gRPC port (tokens, validation,
error codes, request ids), WatchTable as a server stream, allowed origins (CORS), the body limit,
gRPC itself refused there, and the static files' Content-Security-Policy."""

from __future__ import annotations

import json
import struct
from collections.abc import Iterator

import pytest
import requests
from holdem.gateway.v1 import gateway_pb2

from libs.devstack.processes import free_port
from tests.gateway.stack import GatewayStack, start_gateway_stack

pytestmark = pytest.mark.integration

SERVICE = "/holdem.gateway.v1.GatewayService/"
ALLOWED = "https://play.example.org"


@pytest.fixture(scope="module")
def http_stack(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[tuple[GatewayStack, str]]:
    port = free_port()
    web = tmp_path_factory.mktemp("web")
    (web / "index.html").write_text("<!doctype html><title>holdem</title>")
    stack = start_gateway_stack(
        tmp_path_factory.mktemp("gateway-http"),
        nats_url,
        redis_url,
        {
            "HOLDEM_GATEWAY_HTTP_LISTEN": f"127.0.0.1:{port}",
            "HOLDEM_GATEWAY_HTTP_ORIGINS": ALLOWED,
            "HOLDEM_GATEWAY_HTTP_MAX_BODY_BYTES": "2048",
            "HOLDEM_GATEWAY_WEB_ROOT": str(web),
        },
    )
    yield stack, f"http://127.0.0.1:{port}"
    stack.stop()


def post(base: str, method: str, body: bytes, **headers: str) -> requests.Response:
    return requests.post(
        base + SERVICE + method,
        data=body,
        headers={"content-type": "application/proto", **headers},
        timeout=20,
    )


def test_a_unary_call_over_connect_answers_like_grpc(http_stack: tuple[GatewayStack, str]) -> None:
    _, base = http_stack
    reply = post(
        base, "GuestLogin", gateway_pb2.GuestLoginRequest(display_name="web").SerializeToString()
    )
    assert reply.status_code == 200, reply.text
    login = gateway_pb2.LoginResponse.FromString(reply.content)
    assert login.token and login.player.player_id
    wallet = post(
        base, "GetWallet", b"", authorization=f"Bearer {login.token}", **{"x-request-id": "rq-1"}
    )
    assert wallet.status_code == 200, wallet.text
    assert gateway_pb2.GetWalletResponse.FromString(wallet.content).wallet.balance > 0
    assert wallet.headers.get("trailer-x-request-id") == "rq-1"  # the logging layer's id
    as_json = requests.post(
        base + SERVICE + "GuestLogin",
        data=json.dumps({"displayName": "json"}),
        headers={"content-type": "application/json"},
        timeout=20,
    )
    assert as_json.status_code == 200 and as_json.json()["token"]


def test_refusals_carry_the_same_codes(http_stack: tuple[GatewayStack, str]) -> None:
    _, base = http_stack
    no_token = post(base, "GetWallet", b"")
    assert no_token.status_code == 401 and no_token.json()["code"] == "unauthenticated"
    forged = post(base, "GetWallet", b"", authorization="Bearer nonsense")
    assert forged.status_code == 401
    invalid = post(base, "GuestLogin", gateway_pb2.GuestLoginRequest().SerializeToString())
    assert invalid.status_code == 400 and invalid.json()["code"] == "invalid_argument"
    assert "display_name" in invalid.json()["message"]
    assert invalid.headers.get("trailer-x-error-code") == "INVALID_FIELD"
    garbage = post(base, "GuestLogin", b"\xff\xff\xff")
    assert garbage.headers.get("trailer-x-error-code") == "MALFORMED_REQUEST"
    too_big = post(base, "GuestLogin", b"\x0a" + b"x" * 4000)
    assert too_big.status_code == 413
    grpc_here = post(base, "GuestLogin", b"", **{"content-type": "application/grpc"})
    assert grpc_here.status_code == 415


def test_grpc_web_frames_answer_with_a_trailer_frame(http_stack: tuple[GatewayStack, str]) -> None:
    _, base = http_stack
    message = gateway_pb2.GuestLoginRequest(display_name="grpcweb").SerializeToString()
    reply = post(
        base,
        "GuestLogin",
        struct.pack(">BI", 0, len(message)) + message,
        **{"content-type": "application/grpc-web+proto", "x-grpc-web": "1"},
    )
    assert reply.status_code == 200
    frames = list(_frames(reply.content))
    assert frames[0][0] == 0 and gateway_pb2.LoginResponse.FromString(frames[0][1]).token
    assert frames[-1][0] & 0x80 and b"grpc-status:0" in frames[-1][1].replace(b" ", b"")


def _frames(data: bytes) -> Iterator[tuple[int, bytes]]:
    while data:
        flags, length = struct.unpack(">BI", data[:5])
        yield flags, data[5 : 5 + length]
        data = data[5 + length :]


def test_watch_table_is_a_server_stream(http_stack: tuple[GatewayStack, str]) -> None:
    stack, base = http_stack
    login = gateway_pb2.LoginResponse.FromString(
        post(
            base, "GuestLogin", gateway_pb2.GuestLoginRequest(display_name="w").SerializeToString()
        ).content
    )
    table_id = stack.open_table()
    body = gateway_pb2.WatchTableRequest(table_id=table_id).SerializeToString()
    with requests.post(
        base + SERVICE + "WatchTable",
        data=struct.pack(">BI", 0, len(body)) + body,
        headers={
            "content-type": "application/connect+proto",
            "authorization": f"Bearer {login.token}",
        },
        stream=True,
        timeout=20,
    ) as reply:
        assert reply.status_code == 200
        head = reply.raw.read(5)
        flags, length = struct.unpack(">BI", head)
        assert flags == 0
        update = gateway_pb2.TableUpdate.FromString(reply.raw.read(length))
        assert update.table_id == table_id and update.HasField("snapshot")
        assert update.view.viewer_player_id == login.player.player_id


def test_origins_and_the_page(http_stack: tuple[GatewayStack, str]) -> None:
    _, base = http_stack
    preflight = requests.options(
        base + SERVICE + "GuestLogin",
        headers={"origin": ALLOWED, "access-control-request-method": "POST"},
        timeout=20,
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == ALLOWED
    assert "x-error-code" in preflight.headers["access-control-expose-headers"]
    other = requests.options(
        base + SERVICE + "GuestLogin", headers={"origin": "https://evil.example"}, timeout=20
    )
    assert other.status_code == 403 and "access-control-allow-origin" not in other.headers
    own = post(
        base,
        "GuestLogin",
        gateway_pb2.GuestLoginRequest(display_name="same").SerializeToString(),
        origin=base,  # a page's own origin: browsers send it too, and it needs no permission
    )
    assert own.status_code == 200
    page = requests.get(base + "/lobby", timeout=20)  # the page's own route: index.html
    assert page.status_code == 200 and "holdem" in page.text
    assert "default-src 'none'" in page.headers["content-security-policy"]
    assert requests.get(base + "/../../etc/passwd", timeout=20).text == page.text
