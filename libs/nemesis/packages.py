"""Debian packages the nemesis needs on the machine it runs on (libfuse for the lazy filesystem,
nftables for partitions), installed with apt-get when missing and this process is root: a test
that needs one fails saying why when it cannot be had, never skips."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from shutil import which


def install_packages(packages: Sequence[str]) -> str | None:
    """Install ``packages`` with apt-get; None when done, else why it could not be."""
    if os.geteuid() != 0:
        return f"installing {' '.join(packages)} needs root"
    if which("apt-get") is None:
        return f"{' '.join(packages)} missing and there is no apt-get to install them"
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for argv in (
        ["apt-get", "update", "-q"],
        ["apt-get", "install", "-y", "-q", *packages],
    ):
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        if done.returncode != 0:
            return f"{' '.join(argv)} failed: {done.stderr.strip()[-300:]}"
    return None
