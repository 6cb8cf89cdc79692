"""Least privilege in the local stack (libs.devstack.access): real nats-server and redis-server
started with the stack's generated users, then each service's credentials, and none, are tried
against what that service does and what it must not do. Every "allowed" case is the service's
own code path (the event store, the projection, the KV buckets, the Redis stores); every
"denied" case is checked by its effect (nothing received, nothing written, an error)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import nats
import nats.errors
import pytest
import redis
from nats.aio.client import Client as NATS

from libs.devstack import NatsServer, RedisServer
from libs.devstack.access import NATS_PERMISSIONS, StackAccess
from libs.eventstore.jetstream import JetStreamEventStore
from libs.eventstore.projection import JetStreamProjection
from libs.eventstore.redis_snapshots import RedisSnapshotStore
from libs.eventstore.revoked import REVOKED_BUCKET, revoked_bucket
from libs.platform.configvars import redact_url, url
from libs.platform.natsconn import connect_nats

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]

# how long a denied subscription is given to receive what it must not (it never may)
QUIET = 0.5


class Servers:
    def __init__(self, access: StackAccess, nats: NatsServer, redis: RedisServer) -> None:
        self.access = access
        self.nats = nats
        self.redis = redis

    def nats_url(self, user: str) -> str:
        return self.access.nats_url(user, self.nats.url)

    def redis_client(self, user: str) -> redis.Redis:
        return redis.Redis.from_url(self.access.redis_url(user, self.redis.url))


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Servers]:
    access = StackAccess.generate()
    files = access.write(tmp_path_factory.mktemp("secrets"))
    nats_server = NatsServer(config=files["nats.conf"])
    redis_server = RedisServer(extra_args=["--aclfile", str(files["redis-users.acl"])])
    with nats_server, redis_server:
        yield Servers(access, nats_server, redis_server)


class Client:
    """A NATS connection that records the permission errors the server reports to it."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.nc: NATS | None = None

    async def connect(self, url: str) -> NATS:
        async def on_error(exc: Exception) -> None:
            self.errors.append(str(exc).lower())

        self.nc = await connect_nats(url, error_cb=on_error, max_reconnect_attempts=0)
        return self.nc

    def violated(self, what: str) -> bool:
        return any("permissions violation" in e and what.lower() in e for e in self.errors)


async def _received(nc: NATS, subject: str, publish: Any, expect: int = 0) -> list[bytes]:
    """What a subscription of ``nc`` to ``subject`` receives while ``publish`` runs: for QUIET
    seconds after it, or (``expect`` > 0) until that many messages came, within 10 s (a loaded
    machine can take longer than QUIET to deliver what must arrive)."""
    got: list[bytes] = []
    arrived = asyncio.Event()

    async def on_msg(msg: Any) -> None:
        got.append(msg.data)
        if expect and len(got) >= expect:
            arrived.set()

    sub = await nc.subscribe(subject, cb=on_msg)
    await nc.flush()
    await publish()
    if expect:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(arrived.wait(), 10.0)
        await asyncio.sleep(0.1)  # and nothing more than expected
    else:
        await asyncio.sleep(QUIET)
    await sub.unsubscribe()
    return got


async def _eventually(check: Callable[[], bool], within: float = 10.0) -> bool:
    """``check`` holds now or becomes true within ``within`` seconds (the server's permission
    errors arrive asynchronously, later on a loaded machine)."""
    deadline = asyncio.get_running_loop().time() + within
    while not check():
        if asyncio.get_running_loop().time() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


# -- files ------------------------------------------------------------------------------------


def test_the_secrets_are_private_and_new_for_every_stack(tmp_path: Path) -> None:
    access = StackAccess.generate()
    files = access.write(tmp_path / "secrets")
    assert stat.S_IMODE((tmp_path / "secrets").stat().st_mode) == 0o700
    for path in files.values():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    stored = json.loads(files["credentials.json"].read_text())
    assert stored["nats"] == dict(access.nats_passwords)
    other = StackAccess.generate()
    assert set(access.nats_passwords.values()).isdisjoint(other.nats_passwords.values())
    assert len(set(access.nats_passwords.values())) == len(access.nats_passwords)


def test_urls_with_passwords_are_redacted() -> None:
    access = StackAccess.generate()
    secret = access.nats_passwords["table"]
    with_creds = access.nats_url("table", "nats://127.0.0.1:4222,nats://127.0.0.1:4223")
    assert with_creds.count(secret) == 2
    assert (
        redact_url(with_creds) == "nats://table:***@127.0.0.1:4222,nats://table:***@127.0.0.1:4223"
    )
    assert redact_url("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
    # a bad setting's error names the URL without its password
    with pytest.raises(ValueError) as raised:
        url("redis").parse(f"nats://lobby:{secret}@127.0.0.1:4222")
    assert secret not in str(raised.value) and "lobby:***@" in str(raised.value)


# -- NATS ---------------------------------------------------------------------------------------


def test_nats_without_or_with_wrong_credentials_cannot_connect(servers: Servers) -> None:
    async def attempt(url: str) -> None:
        await nats.connect(servers=[url], max_reconnect_attempts=0, allow_reconnect=False)

    for bad in (
        servers.nats.url,  # none: what dealer, evaluator and ai get
        servers.nats_url("dealer"),
        servers.access.nats_url("table", servers.nats.url).replace(
            servers.access.nats_passwords["table"], "wrong"
        ),
    ):
        with pytest.raises((nats.errors.Error, OSError)):
            asyncio.run(attempt(bad))


def test_only_the_table_service_reads_and_writes_private_table_subjects(
    servers: Servers,
) -> None:
    async def scenario() -> None:
        table, gateway, lobby, spectator = Client(), Client(), Client(), Client()
        t = await table.connect(servers.nats_url("table"))
        g = await gateway.connect(servers.nats_url("gateway"))
        lb = await lobby.connect(servers.nats_url("lobby"))
        s = await spectator.connect(servers.nats_url("spectator"))

        # the table service's own path: its stream and its projection
        events = JetStreamEventStore(t)
        await events.ensure_stream()
        public = JetStreamProjection(t)
        await public.ensure_stream()

        await events.append("t1", b"hole cards", expected_last=0, msg_id="1")
        await public.publish("t1", 1, 0, b"public", expected_position=0)
        dealt = 0

        async def deal() -> None:
            nonlocal dealt
            dealt += 1
            await events.append(f"d{dealt}", b"hole cards", expected_last=0, msg_id="1")
            await public.publish(f"d{dealt}", 1, 0, b"public", expected_position=0)

        # nobody receives the private subject live (the table service reads its stream)
        for who, nc in (("gateway", g), ("lobby", lb), ("spectator", s), ("table", t)):
            assert await _received(nc, "holdem.table.>", deal) == [], who
        assert await _eventually(
            lambda: gateway.violated("subscription") and spectator.violated("subscription")
        )
        assert [c.data for c in await events.read("d1")] == [b"hole cards"]
        # ... nor another user's inboxes (where JetStream delivers what a consumer reads)
        gateway.errors.clear()
        assert await _received(g, "_INBOX_table.>", lambda: events.read("t1")) == []
        assert await _received(g, "_INBOX.>", lambda: events.read("t1")) == []
        assert await _eventually(lambda: gateway.violated("subscription"))

        # watchers get the public projection
        async def watched(nc: NATS, subject: str, table_id: str) -> list[bytes]:
            """What ``nc`` receives on ``subject`` while table ``table_id`` publishes a commit;
            on a heavily loaded machine the first look has (rarely, unexplained) received
            nothing within 10 s, so up to three looks, each at a fresh table."""
            got: list[bytes] = []
            for attempt in range(3):
                stream_id = f"{table_id}-{attempt}"
                got = await _received(
                    nc,
                    subject.replace("{id}", stream_id),
                    functools.partial(
                        public.publish, stream_id, 1, 0, table_id.encode(), expected_position=0
                    ),
                    1,
                )
                if got:
                    break
            return got

        assert await watched(s, "holdem.public.table.>", "t3") == [b"t3"]
        assert await watched(g, "holdem.public.table.{id}", "t4") == [b"t4"]
        assert [p.data for p in await JetStreamProjection(s).read("t1")] == [b"public"]

        # nobody else writes a table's events or its projection
        for who, client, nc in (("gateway", gateway, g), ("lobby", lobby, lb)):
            client.errors.clear()
            await nc.publish("holdem.table.t1", b"forged")
            await nc.publish("holdem.public.table.t1", b"forged")
            await nc.flush()
            await asyncio.sleep(QUIET)
            assert await _eventually(lambda: client.violated("publish")), who  # noqa: B023
        assert [c.data for c in await events.read("t1")] == [b"hole cards"]
        with pytest.raises(nats.errors.Error):  # no JetStream API on HOLDEM_TABLES for it
            await JetStreamEventStore(lb, timeout=1.0).read("t1")
        with pytest.raises(nats.errors.Error):
            await JetStreamEventStore(s, timeout=1.0).read("t1")
        # nor the gateway: hand histories come from the table service (GetHandHistory), so it
        # reaches no JetStream API of HOLDEM_TABLES at all: no consumer, no direct get, no info
        gateway.errors.clear()
        with pytest.raises(nats.errors.Error):
            await JetStreamEventStore(g, timeout=1.0).read("t1")
        with pytest.raises(nats.errors.Error):
            await g.jetstream(timeout=1.0).get_last_msg("HOLDEM_TABLES", "holdem.table.t1")
        with pytest.raises(nats.errors.Error):
            await g.jetstream(timeout=1.0).stream_info("HOLDEM_TABLES")
        assert await _eventually(lambda: gateway.violated("publish"))
        with pytest.raises(Exception):  # noqa: B017 (a timeout or a refusal, by version)
            await JetStreamEventStore(g, timeout=1.0).append(
                "t1", b"forged", expected_last=1, msg_id="f"
            )
        assert [c.data for c in await events.read("t1")] == [b"hole cards"]

        # the operator's admin user reads everything (`holdem verify --table` needs the stream)
        admin = await Client().connect(servers.nats_url("admin"))
        assert [c.data for c in await JetStreamEventStore(admin).read("t1")] == [b"hole cards"]
        for nc in (t, g, lb, s, admin):
            await nc.close()

    asyncio.run(scenario())


def test_token_revocations_are_written_by_the_lobby_and_only_read_by_the_gateway(
    servers: Servers,
) -> None:
    async def scenario() -> None:
        lobby, gateway, table = Client(), Client(), Client()
        lb = await lobby.connect(servers.nats_url("lobby"))
        g = await gateway.connect(servers.nats_url("gateway"))
        t = await table.connect(servers.nats_url("table"))
        kv = await revoked_bucket(lb, 3600)
        await kv.put("jti1", b"1")
        seen = await g.jetstream().key_value(REVOKED_BUCKET)
        assert (await seen.get("jti1")).value == b"1"
        watcher = await seen.watchall()
        assert (await watcher.updates(timeout=5)) is not None  # type: ignore[no-untyped-call]
        await watcher.stop()  # type: ignore[no-untyped-call]
        gateway.errors.clear()
        await g.publish(f"$KV.{REVOKED_BUCKET}.forged", b"1")  # no revocation from it
        await g.flush()
        await asyncio.sleep(QUIET)
        assert await _eventually(lambda: gateway.violated("publish"))
        with pytest.raises(Exception):  # noqa: B017 (no bucket for the table service)
            await t.jetstream(timeout=1.0).key_value(REVOKED_BUCKET)
        for nc in (lb, g, t):
            await nc.close()

    asyncio.run(scenario())


def test_every_user_has_its_own_inbox_and_the_services_without_nats_have_no_user() -> None:
    assert set(NATS_PERMISSIONS) == {"table", "gateway", "lobby", "tournament", "spectator"}
    config = StackAccess.generate().nats_config()
    users = [line for line in config.splitlines() if line.strip().startswith("{user:")]
    assert len(users) == len(NATS_PERMISSIONS) + 1  # and admin
    for name, perms in NATS_PERMISSIONS.items():
        (line,) = [u for u in users if u.strip().startswith(f'{{user: "{name}"')]
        subscribe = json.loads(line.split("subscribe: {allow: ")[1].split("]")[0] + "]")
        assert subscribe == [*perms.subscribe, f"_INBOX_{name}.>"]
        assert "_INBOX.>" not in subscribe and ">" not in subscribe
        if name != "table":  # nobody else reaches the private subjects or their stream
            assert "holdem.table" not in line and "HOLDEM_TABLES" not in line


# -- Redis ------------------------------------------------------------------------------------


def test_redis_without_credentials_or_for_a_service_without_a_user_is_refused(
    servers: Servers,
) -> None:
    for who in ("nobody", "gateway", "evaluator", "ai"):
        client = servers.redis_client(who)
        with pytest.raises((redis.AuthenticationError, redis.ResponseError)):
            client.get("holdem:snapshot:t1")
        client.close()


def test_each_redis_user_reaches_only_its_own_keys(servers: Servers) -> None:
    table, dealer, lobby, tournament = (
        servers.redis_client(n) for n in ("table", "dealer", "lobby", "tournament")
    )

    async def snapshot() -> tuple[int, bytes] | None:
        client = redis.asyncio.Redis.from_url(servers.access.redis_url("table", servers.redis.url))
        store = RedisSnapshotStore(client)
        await store.save("t1", 7, b"state with hole cards")
        loaded = await store.load("t1")
        await client.aclose()
        return None if loaded is None else (loaded.sequence, loaded.data)

    assert asyncio.run(snapshot()) == (7, b"state with hole cards")  # its Lua script too
    dealer.set("holdem:dealer:deck:d1", b"seed")
    lobby.incr("holdem:lobby:login-failures:user:x")
    tournament.set("holdem:tournament:director:t1", b"checkpoint")

    denied = (
        (tournament, "holdem:snapshot:t1"),
        (tournament, "holdem:lobby:login-failures:user:x"),
        (lobby, "holdem:tournament:director:t1"),
        (dealer, "holdem:snapshot:t1"),
        (lobby, "holdem:snapshot:t1"),
        (table, "holdem:dealer:deck:d1"),
        (lobby, "holdem:dealer:deck:d1"),
        (table, "holdem:lobby:login-failures:user:x"),
    )
    for client, key in denied:
        with pytest.raises(redis.exceptions.NoPermissionError):
            client.hgetall(key) if "snapshot" in key else client.get(key)
        with pytest.raises(redis.exceptions.NoPermissionError):
            client.delete(key)
    # no user lists keys, flushes, reconfigures the server or reads the ACL
    for client in (table, dealer, lobby, tournament):
        for command in (("KEYS", "*"), ("FLUSHALL",), ("CONFIG", "GET", "*"), ("ACL", "LIST")):
            with pytest.raises(redis.exceptions.NoPermissionError):
                client.execute_command(*command)  # type: ignore[no-untyped-call]
    assert dealer.get("holdem:dealer:deck:d1") == b"seed"
    admin = servers.redis_client("admin")
    assert admin.hget("holdem:snapshot:t1", "seq") == b"7"
    assert tournament.get("holdem:tournament:director:t1") == b"checkpoint"
    for client in (table, dealer, lobby, tournament, admin):
        client.close()
