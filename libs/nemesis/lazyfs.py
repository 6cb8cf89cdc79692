"""A filesystem that forgets what was never fsynced: the nemesis's power cut for one store.

Mounted over a backing folder (FUSE, as root), it passes every metadata operation (create,
mkdir, rename, unlink, chmod) straight to the backing folder, but keeps each file's written data
in memory, page by page, until the file is fsynced, exactly as the kernel's page cache holds
dirty pages. A file opened with O_SYNC or O_DSYNC is written through: each write is synced
before it returns, as the kernel does (nats-server writes its raft snapshots, peer and vote
files and stream metadata that way, ``writeFileWithSync``; dropping them would be a crash no
real disk makes). A simulated crash (``crash`` on the control socket) drops every page not
yet synced: what a process that wrote and was acknowledged, but never fsynced, loses when the
power fails. This is the model of Jepsen's LazyFS (data only: metadata is durable at once
here, which makes the filesystem kinder than a real one, never harsher, so a loss it shows is
real).

It also fills up on request (``full on``): writes and creates fail ENOSPC and statfs reports no
space, until ``full off``.

Control: a Unix socket speaking one line per request, answered by one line:
``crash`` -> ``ok <bytes dropped>``; ``sync`` (write every dirty page back, as sync(1) or the
kernel's writeback would) -> ``ok <bytes written>``; ``full on|off`` -> ``ok``; ``stats`` ->
``ok <dirty bytes> <synced bytes> <fsyncs>``. Run it with
``python -m libs.nemesis.lazyfs BACKING MOUNT SOCKET``; it serves until unmounted
(``fusermount3 -u MOUNT``, or SIGTERM: libfuse then unmounts).
"""

from __future__ import annotations

import argparse
import errno
import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import mfusepy  # type: ignore[import-untyped]

from libs.nemesis.lazystore import LazyStore

_T = TypeVar("_T")


class LazyFs(mfusepy.Operations):  # type: ignore[misc]
    """The FUSE side: a passthrough of ``backing`` whose file data goes through a LazyStore."""

    use_ns = True

    def __init__(self, backing: Path) -> None:
        self.backing = backing
        self.store = LazyStore()
        self.full = False
        self._mutex = threading.Lock()
        self._inode_of: dict[int, int] = {}
        self._synchronous: set[int] = set()  # handles opened O_SYNC/O_DSYNC: written through

    def _real(self, path: str) -> str:
        return str(self.backing / path.lstrip("/"))

    def _locked(self, call: Callable[[], _T]) -> _T:
        with self._mutex:
            try:
                return call()
            except OSError as exc:
                raise mfusepy.FuseOSError(exc.errno or errno.EIO) from exc

    def _no_space(self) -> None:
        if self.full:
            raise mfusepy.FuseOSError(errno.ENOSPC)

    # ---- metadata: passed through, durable at once
    def getattr(self, path: str, fh: int | None = None) -> dict[str, Any]:
        def stat() -> dict[str, Any]:
            st = os.lstat(self._real(path))
            keys = ("st_mode", "st_nlink", "st_uid", "st_gid", "st_ino")
            attrs: dict[str, Any] = {key: getattr(st, key) for key in keys}
            attrs.update(st_atime=st.st_atime_ns, st_mtime=st.st_mtime_ns, st_ctime=st.st_ctime_ns)
            attrs["st_size"] = self.store.size(st.st_ino, st.st_size)
            return attrs

        return self._locked(stat)

    def readdir(self, path: str, fh: int) -> list[str]:
        return [".", "..", *self._locked(lambda: os.listdir(self._real(path)))]

    def access(self, path: str, amode: int) -> int:
        self._locked(lambda: os.access(self._real(path), amode) or _raise(errno.EACCES))
        return 0

    def mkdir(self, path: str, mode: int) -> int:
        self._no_space()
        self._locked(lambda: os.mkdir(self._real(path), mode))
        return 0

    def rmdir(self, path: str) -> int:
        self._locked(lambda: os.rmdir(self._real(path)))
        return 0

    def unlink(self, path: str) -> int:
        def unlink() -> None:
            inode = os.lstat(self._real(path)).st_ino
            os.unlink(self._real(path))
            self.store.forget(inode)

        self._locked(unlink)
        return 0

    def rename(self, old: str, new: str) -> int:
        def rename() -> None:
            try:
                replaced = os.lstat(self._real(new)).st_ino
            except FileNotFoundError:
                replaced = None
            os.rename(self._real(old), self._real(new))
            if replaced is not None:
                self.store.forget(replaced)

        self._locked(rename)
        return 0

    def chmod(self, path: str, mode: int) -> int:
        self._locked(lambda: os.chmod(self._real(path), mode))
        return 0

    def chown(self, path: str, uid: int, gid: int) -> int:
        self._locked(lambda: os.chown(self._real(path), uid, gid))
        return 0

    def utimens(self, path: str, times: tuple[int, int] | None = None) -> int:
        if times is None:
            self._locked(lambda: os.utime(self._real(path)))
        else:
            self._locked(lambda: os.utime(self._real(path), ns=times))
        return 0

    def statfs(self, path: str) -> dict[str, int]:
        st = self._locked(lambda: os.statvfs(self._real(path)))
        keys = ("f_bsize", "f_frsize", "f_blocks", "f_bfree", "f_bavail", "f_files", "f_ffree")
        out = {key: getattr(st, key) for key in keys}
        out["f_namemax"] = st.f_namemax
        if self.full:
            out["f_bfree"] = out["f_bavail"] = 0
        return out

    # ---- data: through the page-cache model
    def _opened(self, fd: int, flags: int) -> int:
        self._inode_of[fd] = os.fstat(fd).st_ino
        if flags & os.O_DSYNC:  # O_SYNC includes it: each write is on disk when it returns
            self._synchronous.add(fd)
        return fd

    def open(self, path: str, flags: int) -> int:
        wanted = flags & ~(os.O_APPEND | os.O_DIRECT | os.O_SYNC | os.O_DSYNC | os.O_TRUNC)
        fd = self._locked(lambda: self._opened(os.open(self._real(path), wanted), flags))
        if flags & os.O_TRUNC:
            self.truncate(path, 0, fd)
        return fd

    def create(self, path: str, mode: int, flags: int = 0) -> int:
        """(mfusepy passes the open flags as the third argument.)"""
        self._no_space()
        made = os.O_CREAT | os.O_RDWR
        return self._locked(lambda: self._opened(os.open(self._real(path), made, mode), flags))

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        return self._locked(lambda: self.store.read(self._inode_of[fh], fh, size, offset))

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        self._no_space()

        def write() -> int:
            written = self.store.write(self._inode_of[fh], fh, bytes(data), offset)
            if fh in self._synchronous:
                self.store.sync(self._inode_of[fh], fh)
            return written

        return self._locked(write)

    def truncate(self, path: str, length: int, fh: int | None = None) -> int:
        def truncate() -> None:
            if fh is not None:
                self.store.truncate(self._inode_of[fh], fh, length)
                return
            fd = os.open(self._real(path), os.O_RDWR)
            try:
                self.store.truncate(os.fstat(fd).st_ino, fd, length)
            finally:
                os.close(fd)

        self._locked(truncate)
        return 0

    def fsync(self, path: str, datasync: int, fh: int) -> int:
        self._locked(lambda: self.store.sync(self._inode_of[fh], fh))
        return 0

    def flush(self, path: str, fh: int) -> int:
        return 0  # close() does not sync: the page cache keeps the data

    def release(self, path: str, fh: int) -> int:
        def release() -> None:
            self._inode_of.pop(fh, None)
            self._synchronous.discard(fh)
            os.close(fh)

        self._locked(release)
        return 0

    # ---- the control socket
    def control(self, line: str) -> str:
        with self._mutex:
            words = line.split()
            if words == ["crash"]:
                return f"ok {self.store.crash()}"
            if words == ["sync"]:
                return f"ok {self.store.sync_all()}"
            if words[:1] == ["full"] and words[1:] in (["on"], ["off"]):
                self.full = words[1] == "on"
                return "ok"
            if words == ["stats"]:
                return (
                    f"ok {self.store.dirty_bytes()} {self.store.synced_bytes} {self.store.fsyncs}"
                )
            return f"error unknown request {line[:40]!r}"


def _raise(code: int) -> bool:
    raise OSError(code, os.strerror(code))


def _serve_control(fs: LazyFs, path: Path) -> None:
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    path.unlink(missing_ok=True)
    listener.bind(str(path))
    listener.listen(8)

    def serve() -> None:
        while True:
            connection, _ = listener.accept()
            with connection, connection.makefile("rw") as stream:
                for line in _lines(stream):
                    stream.write(fs.control(line) + "\n")
                    stream.flush()

    threading.Thread(target=serve, name="lazyfs-control", daemon=True).start()


def _lines(stream: Any) -> Iterator[str]:
    for line in stream:
        yield line.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("backing", type=Path, help="the folder that holds what was synced")
    parser.add_argument("mount", type=Path, help="where the lazy view is mounted")
    parser.add_argument("control", type=Path, help="the control socket's path")
    args = parser.parse_args(argv)
    fs = LazyFs(args.backing.resolve())
    _serve_control(fs, args.control)
    mfusepy.FUSE(
        fs,
        str(args.mount),
        foreground=True,
        nothreads=True,
        direct_io=True,  # no kernel page cache over ours: a crash must not leave stale pages
        attr_timeout=0,
        entry_timeout=0,
        negative_timeout=0,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
