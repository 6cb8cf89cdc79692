"""RoutedChannel (libs/platform/routing.py): each call goes to its key's owner, is made again on
a new owner after NOT_OWNER or a replica gone (a bounded number of times), and goes to the
default channel when no owner is known. Fake channels: no network."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from libs.platform.errors import ERROR_CODE_HEADER
from libs.platform.routing import NOT_OWNER, RoutedChannel

METHOD = "/holdem.table.v1.TableService/GetTableState"


class Request:
    def __init__(self, table_id: str = "") -> None:
        self.table_id = table_id


def refusal(code: str | None = NOT_OWNER) -> grpc.aio.AioRpcError:
    trailing = grpc.aio.Metadata(*([(ERROR_CODE_HEADER, code)] if code else []))
    return grpc.aio.AioRpcError(
        grpc.StatusCode.UNAVAILABLE, grpc.aio.Metadata(), trailing, "refused"
    )


class FakeChannel:
    """Answers its address, or raises the next of ``failures``."""

    def __init__(self, address: str, failures: list[grpc.aio.AioRpcError] | None = None) -> None:
        self.address = address
        self.failures = failures or []
        self.calls: list[tuple[Any, float | None, Any]] = []
        self.closed = False

    def unary_unary(self, method: str, **_: Any) -> Any:
        async def call(request: Any, *, timeout: float | None = None, **kwargs: Any) -> str:
            self.calls.append((request, timeout, kwargs.get("metadata")))
            if self.failures:
                raise self.failures.pop(0)
            return self.address

        return call

    async def close(self, grace: float | None = None) -> None:
        self.closed = True


class FakeOwners:
    """Owners read from ``table`` (key -> address), one entry per lookup when a list."""

    def __init__(self, table: dict[str, Any]) -> None:
        self.table = table
        self.lookups = 0
        self.forgotten: list[str] = []

    async def address(self, key: str) -> str | None:
        self.lookups += 1
        found = self.table.get(key)
        if isinstance(found, list):
            found = found.pop(0) if len(found) > 1 else found[0]
        return str(found) if found is not None else None

    def forget(self, key: str) -> None:
        self.forgotten.append(key)


def routed(
    owners: FakeOwners, replicas: dict[str, FakeChannel]
) -> tuple[RoutedChannel, FakeChannel]:
    default = replicas.setdefault("a:1", FakeChannel("a:1"))
    channel = RoutedChannel(
        default,  # type: ignore[arg-type]
        "a:1",
        owners,
        lambda address: replicas.setdefault(address, FakeChannel(address)),  # type: ignore[arg-type,return-value]
        backoff_seconds=0.0,
    )
    return channel, default


def call(channel: RoutedChannel, request: Request, **kwargs: Any) -> Any:
    return asyncio.run(channel.unary_unary(METHOD)(request, **kwargs))


def test_each_call_goes_to_its_tables_owner() -> None:
    replicas: dict[str, FakeChannel] = {}
    channel, _ = routed(FakeOwners({"t1": "b:2", "t2": "a:1"}), replicas)
    assert call(channel, Request("t1"), timeout=3.0, metadata=(("k", "v"),)) == "b:2"
    assert call(channel, Request("t2")) == "a:1"  # the default's own address: its channel
    assert set(replicas) == {"a:1", "b:2"}
    _, timeout, metadata = replicas["b:2"].calls[0]
    assert timeout is not None and 0 < timeout <= 3.0 and metadata == (("k", "v"),)


def test_no_owner_known_or_no_table_id_goes_to_the_default() -> None:
    replicas: dict[str, FakeChannel] = {}
    owners = FakeOwners({})
    channel, default = routed(owners, replicas)
    assert call(channel, Request("unheld")) == "a:1"
    assert call(channel, Request("")) == "a:1"
    assert owners.lookups == 1  # a request without a table id is not looked up
    assert len(default.calls) == 2


def test_not_owner_looks_the_owner_up_again_and_retries_there() -> None:
    replicas = {"a:1": FakeChannel("a:1", [refusal()])}
    # the first lookup is stale (a:1 gave the shard away), the next one finds b:2
    owners = FakeOwners({"t1": ["a:1", "b:2"]})
    channel, _ = routed(owners, replicas)
    assert call(channel, Request("t1")) == "b:2"
    assert owners.forgotten == ["t1"] and channel.rerouted == 1


def test_a_replica_gone_is_routed_around_once_its_shard_moves() -> None:
    gone = refusal(None)  # UNAVAILABLE without a code: the replica did not answer
    replicas = {"b:2": FakeChannel("b:2", [gone])}
    owners = FakeOwners({"t1": ["b:2", None]})  # its lease lapsed: nobody holds the shard
    channel, _ = routed(owners, replicas)
    assert call(channel, Request("t1")) == "a:1"  # the default adopts it


def test_an_owner_that_answers_nothing_in_time_is_looked_up_again_by_the_next_call() -> None:
    """A replica cut off from the network lets calls run out their deadline (no UNAVAILABLE):
    the owner is forgotten, so the next call finds the replica that adopted the shard; the
    call itself is not made again (its time is spent)."""
    late = grpc.aio.AioRpcError(
        grpc.StatusCode.DEADLINE_EXCEEDED, grpc.aio.Metadata(), grpc.aio.Metadata(), "late"
    )
    replicas = {"b:2": FakeChannel("b:2", [late])}
    owners = FakeOwners({"t1": ["b:2", "c:3"]})
    channel, _ = routed(owners, replicas)
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        call(channel, Request("t1"))
    assert raised.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert owners.forgotten == ["t1"] and len(replicas["b:2"].calls) == 1
    assert call(channel, Request("t1")) == "c:3"


def test_a_call_to_the_default_that_runs_out_its_time_forgets_nothing() -> None:
    late = grpc.aio.AioRpcError(
        grpc.StatusCode.DEADLINE_EXCEEDED, grpc.aio.Metadata(), grpc.aio.Metadata(), "late"
    )
    replicas = {"a:1": FakeChannel("a:1", [late])}
    owners = FakeOwners({})
    channel, _ = routed(owners, replicas)
    with pytest.raises(grpc.aio.AioRpcError):
        call(channel, Request("t1"))
    assert owners.forgotten == []


def test_retries_are_bounded_and_the_last_refusal_reaches_the_caller() -> None:
    replicas = {"b:2": FakeChannel("b:2", [refusal() for _ in range(10)])}
    owners = FakeOwners({"t1": "b:2"})
    channel, _ = routed(owners, replicas)
    with pytest.raises(grpc.aio.AioRpcError) as raised:
        call(channel, Request("t1"))
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    assert len(replicas["b:2"].calls) == channel.attempts


def test_other_errors_are_not_retried() -> None:
    invalid = grpc.aio.AioRpcError(
        grpc.StatusCode.INVALID_ARGUMENT, grpc.aio.Metadata(), grpc.aio.Metadata(), "bad"
    )
    replicas = {"b:2": FakeChannel("b:2", [invalid])}
    channel, _ = routed(FakeOwners({"t1": "b:2"}), replicas)
    with pytest.raises(grpc.aio.AioRpcError):
        call(channel, Request("t1"))
    assert len(replicas["b:2"].calls) == 1


def test_a_refusal_from_the_default_without_not_owner_is_not_retried() -> None:
    """UNAVAILABLE from the configured address with no owner known: the channel's own retries
    already tried it; nothing else to route to."""
    replicas = {"a:1": FakeChannel("a:1", [refusal(None)])}
    channel, default = routed(FakeOwners({}), replicas)
    with pytest.raises(grpc.aio.AioRpcError):
        call(channel, Request("t1"))
    assert len(default.calls) == 1


def test_close_closes_every_replica_channel() -> None:
    replicas: dict[str, FakeChannel] = {}
    channel, default = routed(FakeOwners({"t1": "b:2"}), replicas)
    call(channel, Request("t1"))
    asyncio.run(channel.close())
    assert default.closed and replicas["b:2"].closed
