"""A lazy filesystem (libs.nemesis.lazyfs) mounted as a managed process, and its controls.

``LazyMount(backing, mount)`` starts the FUSE process like any other dev-stack process
(``start``/``stop``); ``crash()`` drops every unsynced page (call it while nothing that wrote is
running, as after a power cut), ``sync()`` writes every dirty page back (as time would), and
``fill(True)`` makes the disk full. Mounting needs root, /dev/fuse and libfuse 3:
:func:`require_fuse` says what is missing and installs libfuse with apt when it can.
"""

from __future__ import annotations

import ctypes.util
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

from libs.devstack.processes import ManagedProcess
from libs.nemesis.packages import install_packages

FUSE_PACKAGES = ("fuse3", "libfuse3-3")


class FuseUnavailable(RuntimeError):
    """This machine cannot mount the lazy filesystem; the message says why."""


def require_fuse() -> None:
    """Make sure a FUSE mount can work here: root, /dev/fuse, libfuse 3 (installed with apt-get
    when missing and this process is root). Raises FuseUnavailable saying what is missing."""
    if os.geteuid() != 0:
        raise FuseUnavailable("mounting the lazy filesystem needs root (FUSE mounts as root)")
    if not os.path.exists("/dev/fuse"):
        raise FuseUnavailable("/dev/fuse is missing: the kernel offers no FUSE here")
    if ctypes.util.find_library("fuse3") is None or shutil.which("fusermount3") is None:
        why = install_packages(FUSE_PACKAGES)
        if why is not None:
            raise FuseUnavailable(f"libfuse 3 is missing: {why}")


class LazyMount(ManagedProcess):
    """The lazy filesystem over ``backing``, mounted at ``mount`` while it runs."""

    start_timeout = 15.0

    def __init__(self, backing: Path, mount: Path, log_path: Path | None = None) -> None:
        self.backing = backing
        self.mount = mount
        self.control_path = mount.parent / f".{mount.name}.lazyfs"
        super().__init__(f"lazyfs {mount.name}", log_path or mount.parent / f"{mount.name}.log")
        backing.mkdir(parents=True, exist_ok=True)
        mount.mkdir(parents=True, exist_ok=True)

    def argv(self) -> list[str]:
        return [
            sys.executable, "-m", "libs.nemesis.lazyfs",
            str(self.backing), str(self.mount), str(self.control_path),
        ]  # fmt: skip

    def wait_ready(self, deadline: float) -> None:
        while time.monotonic() < deadline and self.running:
            if os.path.ismount(self.mount) and self.control_path.exists():
                return
            time.sleep(0.05)
        raise self.failed("did not mount")

    def halt(self, timeout: float = 10.0) -> int | None:
        if os.path.ismount(self.mount):  # unmounting ends the FUSE loop; SIGTERM is the fallback
            subprocess.run(["umount", "-l", str(self.mount)], capture_output=True, check=False)
        return super().halt(timeout)

    def _ask(self, request: str) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
            conn.settimeout(30)
            conn.connect(str(self.control_path))
            conn.sendall(request.encode() + b"\n")
            answer = conn.makefile().readline().strip()
        if not answer.startswith("ok"):
            raise RuntimeError(f"lazyfs refused {request!r}: {answer}")
        return answer

    def crash(self) -> int:
        """The power fails under this store: unsynced data is gone. Returns the bytes lost."""
        return int(self._ask("crash").split()[1])

    def sync(self) -> int:
        """Everything written so far reaches the disk. Returns the bytes written back."""
        return int(self._ask("sync").split()[1])

    def fill(self, full: bool) -> None:
        """The disk is full (writes fail ENOSPC) or has space again."""
        self._ask("full on" if full else "full off")

    def dirty_bytes(self) -> int:
        return int(self._ask("stats").split()[1])
