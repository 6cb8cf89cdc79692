"""The lazy filesystem keeps written data until fsync and loses the rest in a crash: the page-cache
model on plain files, then the FUSE mount with a real nats-server on it (the loss JetStream's
default fsync policy allows, and none with ``sync_interval: always``)."""

from __future__ import annotations

import asyncio
import os
import random
from collections.abc import Iterator
from pathlib import Path

import nats
import nats.js.errors
import pytest

from libs.devstack.servers import NatsServer
from libs.nemesis.lazymount import LazyMount, require_fuse
from libs.nemesis.lazystore import PAGE, LazyStore


def _open(path: Path) -> tuple[int, int]:
    fd = os.open(path, os.O_CREAT | os.O_RDWR)
    return fd, os.fstat(fd).st_ino


def test_unsynced_writes_read_back_but_do_not_reach_the_disk(tmp_path: Path) -> None:
    store = LazyStore()
    fd, inode = _open(tmp_path / "f")
    store.write(inode, fd, b"hello", 0)
    assert store.read(inode, fd, 100, 0) == b"hello"
    assert store.size(inode, 0) == 5
    assert (tmp_path / "f").read_bytes() == b""
    store.sync(inode, fd)
    assert (tmp_path / "f").read_bytes() == b"hello"
    os.close(fd)


def test_a_crash_drops_exactly_what_was_written_after_the_last_fsync(tmp_path: Path) -> None:
    store = LazyStore()
    fd, inode = _open(tmp_path / "f")
    store.write(inode, fd, b"synced", 0)
    store.sync(inode, fd)
    store.write(inode, fd, b" lost", 6)
    store.write(inode, fd, b"X", 0)
    assert store.read(inode, fd, 100, 0) == b"Xynced lost"
    assert store.crash() > 0
    assert store.read(inode, fd, 100, 0) == b"synced"
    assert store.size(inode, os.fstat(fd).st_size) == 6
    os.close(fd)


def test_a_closed_file_keeps_its_dirty_pages_until_sync_all(tmp_path: Path) -> None:
    store = LazyStore()
    fd, inode = _open(tmp_path / "f")
    store.write(inode, fd, b"written, closed, never fsynced", 0)
    os.close(fd)  # as a writer that closes without fsync: the page cache still holds it
    assert store.sync_all() == len(b"written, closed, never fsynced")
    assert (tmp_path / "f").read_bytes() == b"written, closed, never fsynced"
    assert store.crash() == 0


def test_random_writes_and_truncates_read_as_a_real_file_would(tmp_path: Path) -> None:
    """The model against the kernel: the same operations on a plain file read the same, before
    and after a sync, at every page boundary, hole and truncation."""
    rng = random.Random(7)
    store = LazyStore()
    fd, inode = _open(tmp_path / "lazy")
    plain = os.open(tmp_path / "plain", os.O_CREAT | os.O_RDWR)
    for step in range(400):
        size = os.fstat(plain).st_size
        if rng.random() < 0.15:
            length = rng.randrange(0, 3 * PAGE)
            store.truncate(inode, fd, length)
            os.ftruncate(plain, length)
        else:
            offset = rng.randrange(0, size + PAGE + 1)
            data = rng.randbytes(rng.randrange(1, 2 * PAGE))
            store.write(inode, fd, data, offset)
            os.pwrite(plain, data, offset)
        if step % 50 == 49:
            store.sync(inode, fd)
        size = os.fstat(plain).st_size
        assert store.size(inode, os.fstat(fd).st_size) == size
        start = rng.randrange(0, size + 1)
        assert store.read(inode, fd, 3 * PAGE, start) == os.pread(plain, 3 * PAGE, start)
    store.sync(inode, fd)
    assert (tmp_path / "lazy").read_bytes() == (tmp_path / "plain").read_bytes()
    os.close(fd)
    os.close(plain)


def test_a_forgotten_inode_leaves_nothing_for_the_next_file(tmp_path: Path) -> None:
    store = LazyStore()
    fd, inode = _open(tmp_path / "f")
    store.write(inode, fd, b"stale", 0)
    store.forget(inode)  # unlinked: a new file may get this inode number
    assert store.read(inode, fd, 10, 0) == b""
    assert store.dirty_bytes() == 0
    os.close(fd)


# ---- the mount, with a real nats-server on it


@pytest.fixture
def lazy_mount(tmp_path: Path) -> Iterator[LazyMount]:
    require_fuse()  # never a silent skip: a machine that cannot mount fails saying why
    with LazyMount(tmp_path / "disk", tmp_path / "mnt") as mount:
        yield mount


def test_a_file_opened_o_sync_is_written_through_and_survives_a_crash(
    lazy_mount: LazyMount,
) -> None:
    """What nats-server's ``writeFileWithSync`` does (raft snapshots, votes, peers): O_SYNC
    write to a temporary file, rename over the old one. No fsync call, yet nothing to lose."""
    mount = lazy_mount.mount
    flags = os.O_CREAT | os.O_WRONLY | os.O_TRUNC
    for name, extra in (("synced", os.O_SYNC), ("dsynced", os.O_DSYNC), ("lazy", 0)):
        fd = os.open(mount / f"{name}.tmp", flags | extra, 0o644)
        os.write(fd, name.encode() * 2000)
        os.close(fd)
        os.rename(mount / f"{name}.tmp", mount / name)
    dropped = lazy_mount.crash()
    assert (mount / "synced").read_bytes() == b"synced" * 2000
    assert (mount / "dsynced").read_bytes() == b"dsynced" * 2000
    assert (mount / "lazy").read_bytes() == b""  # the name is there, its data never was
    assert dropped == 2 * PAGE  # the plain file's 8,000 bytes: two pages


def _nats_on(mount: Path, tmp_path: Path, sync: str | None) -> NatsServer:
    return NatsServer(data_dir=mount / "js", parent_dir=tmp_path, sync_interval=sync)


async def _publish(url: str, count: int) -> int:
    nc = await nats.connect(url)
    try:
        js = nc.jetstream()
        acked = 0
        for i in range(count):
            await js.publish("lazy.x", str(i).encode())
            acked += 1
        return acked
    finally:
        await nc.close()


async def _stored(url: str) -> int:
    nc = await nats.connect(url)
    try:
        try:
            info = await nc.jetstream().stream_info("LAZY")
        except nats.js.errors.NotFoundError:
            return 0  # the whole stream is gone
        return int(info.state.messages)
    finally:
        await nc.close()


async def _create_stream(url: str) -> None:
    nc = await nats.connect(url)
    try:
        await nc.jetstream().add_stream(name="LAZY", subjects=["lazy.>"])
    finally:
        await nc.close()


@pytest.mark.integration
@pytest.mark.parametrize("sync", [None, "always"], ids=["default-policy", "sync-always"])
def test_a_power_cut_loses_acknowledged_messages_only_without_sync_always(
    lazy_mount: LazyMount, tmp_path: Path, sync: str | None
) -> None:
    server = _nats_on(lazy_mount.mount, tmp_path, sync)
    with server:
        asyncio.run(_create_stream(server.url))
        lazy_mount.sync()  # the stream's creation is long on disk; only what follows is at risk
        acked = asyncio.run(_publish(server.url, 300))
        server.kill()  # the power cut: the process dies and with it...
        lost_bytes = lazy_mount.crash()  # ...every page it had not fsynced
        server.restart()
        stored = asyncio.run(_stored(server.url))
    assert acked == 300
    if sync == "always":
        assert (stored, lost_bytes) == (300, 0)
    else:  # JetStream acknowledged what it had not flushed: the cut takes it
        assert lost_bytes > 0
        assert stored < acked
