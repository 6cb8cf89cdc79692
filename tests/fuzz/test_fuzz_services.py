"""Fuzz every RPC of a service over real gRPC: no input may break it.

Each service runs as a real process (as in tests/services). Every method of its proto service is
called with requests drawn from its descriptor (tests/fuzz/strategies.py: well-formed, odd and
raw-byte requests). Whatever the request, the answer is never UNKNOWN, INTERNAL or UNAVAILABLE
(nor a call running past its deadline), and afterwards the service still reports SERVING and
still answers a normal call correctly.

Services fuzzed in CI: ``FUZZED``. Adding one is a line there, once a :class:`Target` (how to
start it, and what a normal call is) exists for it in ``TARGETS`` (tests/fuzz/targets.py; all
seven have one). Other services can be fuzzed on demand:
``HOLDEM_TEST_FUZZ_SERVICES=table,lobby,gateway``;
``HOLDEM_TEST_FUZZ_EXAMPLES`` sets the examples per method (docs/hardening.md).
"""

from __future__ import annotations

import itertools
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from google.protobuf.descriptor import MethodDescriptor
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from libs.devstack.identity import channel_as
from libs.platform.callers import (
    AI_CALLERS,
    DEALER_CALLERS,
    EVALUATOR_CALLERS,
    LOBBY_CALLERS,
    TABLE_CALLERS,
    TOURNAMENT_CALLERS,
    Caller,
    CallerPolicy,
)
from tests.fuzz.strategies import requests
from tests.fuzz.targets import (
    CALL_TIMEOUT,
    METADATA,
    TARGETS,
    Metadata,
    Target,
)
from tests.services.conftest import ServiceProcess, start_service

T = TypeVar("T")

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]

#: Services fuzzed in CI (each about 30 s on a quiet 2-core machine).
FUZZED: tuple[str, ...] = (
    "dealer",
    "evaluator",
    "ai",
    "table",
    "lobby",
    "gateway",
    "tournament",
)
EXAMPLES = int(os.environ.get("HOLDEM_TEST_FUZZ_EXAMPLES", "120"))
#: Never an acceptable answer, whatever the request.
BROKEN = frozenset(
    {
        grpc.StatusCode.UNKNOWN,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DATA_LOSS,
        grpc.StatusCode.DEADLINE_EXCEEDED,
    }
)


def _services() -> tuple[str, ...]:
    chosen = os.environ.get("HOLDEM_TEST_FUZZ_SERVICES", "")
    names = tuple(n.strip() for n in chosen.split(",") if n.strip()) or FUZZED
    unknown = [n for n in names if n not in TARGETS]
    assert not unknown, f"no fuzz target for {unknown}; known: {sorted(TARGETS)}"
    return names


CASES = [(name, m.name) for name in _services() for m in TARGETS[name].service.methods]


# ---- running services ---------------------------------------------------------------------------


@dataclass
class Running:
    process: ServiceProcess
    channel: grpc.Channel  # calls carry the target's identity
    by_method: dict[str, grpc.Channel]  # methods called with another identity
    anonymous: grpc.Channel  # calls carry none (restricted methods must refuse them)
    known: dict[str, list[Any]]


@pytest.fixture(scope="module")
def running(
    tmp_path_factory: pytest.TempPathFactory, nats_url: str, redis_url: str
) -> Iterator[Callable[[str], Running]]:
    """``running(name)``: the service as a process (started once per module), with a channel."""
    log_dir: Path = tmp_path_factory.mktemp("fuzz")
    started: dict[str, Running] = {}
    infra = {"nats": nats_url, "redis": redis_url}

    def get(name: str) -> Running:
        if name not in started:
            target = TARGETS[name]
            if target.needs_lobby:
                infra["lobby"] = get("lobby").process.address
            if target.needs_table:
                infra["table"] = get("table").process.address
            if target.needs_tournament:
                infra["tournament"] = get("tournament").process.address
            process = start_service(name, log_dir, target.env(infra))
            channel = channel_as(process.address, target.identity)
            anonymous = grpc.insecure_channel(process.address)
            by_method = {
                method: channel_as(process.address, identity)
                for method, identity in target.method_identities.items()
            }
            known = {k: list(v) for k, v in target.normal_call(channel).items()}
            started[name] = Running(process, channel, by_method, anonymous, known)
        return started[name]

    yield get
    for entry in started.values():
        entry.channel.close()
        entry.anonymous.close()
        for other in entry.by_method.values():
            other.close()
        entry.process.stop()


# ---- calling any method with raw bytes ----------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    code: grpc.StatusCode
    details: str


def call(
    channel: grpc.Channel,
    service: str,
    method: MethodDescriptor,
    payload: bytes,
    metadata: Metadata = (),
) -> Outcome:
    path = f"/{service}/{method.name}"
    try:
        if method.server_streaming:
            watch: grpc.UnaryStreamMultiCallable[bytes, bytes] = channel.unary_stream(path)
            stream = watch(payload, timeout=2.0, metadata=metadata)
            for _ in itertools.islice(stream, 3):
                pass
            stream.cancel()
        else:
            unary: grpc.UnaryUnaryMultiCallable[bytes, bytes] = channel.unary_unary(path)
            unary(payload, timeout=CALL_TIMEOUT, metadata=metadata)
    except grpc.RpcError as error:
        code = error.code()
        if method.server_streaming and code in (
            grpc.StatusCode.DEADLINE_EXCEEDED,
            grpc.StatusCode.CANCELLED,
        ):
            return Outcome(grpc.StatusCode.OK, "stream open")  # a watch stays open: fine
        return Outcome(code, str(error.details()))
    return Outcome(grpc.StatusCode.OK, "")


POLICIES: Mapping[str, CallerPolicy] = {
    "dealer": DEALER_CALLERS,
    "evaluator": EVALUATOR_CALLERS,
    "ai": AI_CALLERS,
    "table": TABLE_CALLERS,
    "lobby": LOBBY_CALLERS,
    "tournament": TOURNAMENT_CALLERS,
}


def name_of(service: str) -> str:
    return next(name for name, target in TARGETS.items() if target.service.full_name == service)


def _restricted(name: str, rpc: str) -> bool:
    """Is ``rpc`` of service ``name`` closed to a caller without identity?"""
    policy = POLICIES.get(name)
    return policy is not None and not policy.allows(Caller("anyone"), rpc)


def healthy(channel: grpc.Channel, service: str) -> int:
    health = health_pb2_grpc.HealthStub(channel)
    reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=CALL_TIMEOUT)  # type: ignore[attr-defined]
    return int(reply.status)


def _fuzz(entry: Running, target: Target, method: MethodDescriptor, seen: dict[str, int]) -> None:
    service = target.service.full_name
    broken = BROKEN - target.ok_codes if target.ok_codes else BROKEN

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        phases=(Phase.generate, Phase.shrink),
        suppress_health_check=list(HealthCheck),
    )
    @given(payload=st.data())
    def run(payload: st.DataObject) -> None:
        request = payload.draw(requests(method.input_type, entry.known), label="request")
        metadata = payload.draw(st.sampled_from([(), *entry.known.get(METADATA, [])]))
        # mostly as the identity that may call everything; sometimes as no service at all
        anonymous = payload.draw(st.integers(0, 3), label="anonymous") == 0
        outcome = call(
            entry.anonymous if anonymous else entry.by_method.get(method.name, entry.channel),
            service,
            method,
            request,
            metadata,
        )
        if anonymous and _restricted(name_of(service), method.name):
            assert outcome.code == grpc.StatusCode.PERMISSION_DENIED, (method.full_name, outcome)
        seen[outcome.code.name] = seen.get(outcome.code.name, 0) + 1
        assert outcome.code not in broken, (
            f"{method.full_name} answered {outcome.code.name}: {outcome.details[:200]!r} "
            f"to {request[:120]!r}"
        )

    run()


@pytest.mark.parametrize(("name", "method_name"), CASES)
def test_no_request_breaks_the_service(
    running: Callable[[str], Running], name: str, method_name: str
) -> None:
    target = TARGETS[name]
    entry = running(name)
    method = target.service.methods_by_name[method_name]
    seen: dict[str, int] = {}
    try:
        _fuzz(entry, target, method, seen)
    finally:
        print(f"{target.service.full_name}/{method_name}: {sorted(seen.items())}")
    assert entry.process.process.poll() is None, f"{name} died"
    serving = health_pb2.HealthCheckResponse.SERVING
    assert healthy(entry.channel, "") == serving
    assert healthy(entry.channel, target.service.full_name) == serving
    for key, values in _after_the_limit(lambda: target.normal_call(entry.channel)).items():
        known = entry.known.setdefault(key, [])
        known += [v for v in values if v not in known]
    assert sum(seen.values()) > 0


def _after_the_limit(call: Callable[[], T]) -> T:
    """``call()``, again while it is refused RESOURCE_EXHAUSTED: the fuzzer used up this
    caller's rate limit (part of the contract), and a normal call must work once it refills."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return call()
        except grpc.RpcError as exc:
            if exc.code() != grpc.StatusCode.RESOURCE_EXHAUSTED or time.monotonic() > deadline:
                raise
            time.sleep(0.2)
