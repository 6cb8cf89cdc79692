"""The Debian bookworm root every stand-in base is built on: made once by ``debootstrap`` from
the mirror this machine's apt uses, slimmed as Debian's -slim images are, cached as a tarball
under ``~/.cache/holdem`` and imported as ``holdem-base/debian:bookworm`` (re-imported only
when its recipe changes)."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from deploy.containers.docker import ImageError, docker, label, say

DEBIAN_IMAGE = "holdem-base/debian:bookworm"
DEBIAN_SUITE = "bookworm"

#: What dpkg leaves out of the stand-ins, as Debian's own -slim images do.
SLIM_EXCLUDES = (
    "path-exclude /usr/share/doc/*",
    "path-include /usr/share/doc/*/copyright",
    "path-exclude /usr/share/man/*",
    "path-exclude /usr/share/info/*",
    "path-exclude /usr/share/locale/*",
    "path-include /usr/share/locale/locale.alias",
    "path-exclude /usr/share/lintian/*",
)
RECIPE_LABEL = "org.holdem.recipe"
_APT_RM = (
    '"rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb '
    '/var/cache/apt/*.bin || true"'
)
APT_CLEAN = (
    'APT::Install-Recommends "false";\n'
    f"DPkg::Post-Invoke {{ {_APT_RM}; }};\n"
    f"APT::Update::Post-Invoke {{ {_APT_RM}; }};\n"
    'Dir::Cache::pkgcache "";\n'
    'Dir::Cache::srcpkgcache "";\n'
)


def debian_mirror() -> str:
    """The Debian mirror this machine's apt uses (``$HOLDEM_DEBIAN_MIRROR`` first)."""
    if mirror := os.environ.get("HOLDEM_DEBIAN_MIRROR"):
        return mirror
    sources = Path("/etc/apt/sources.list.d/debian.sources")
    if sources.is_file():
        for stanza in sources.read_text().split("\n\n"):
            fields = dict(
                line.split(":", 1) for line in stanza.splitlines() if ":" in line and line[0] != "#"
            )
            suites = fields.get("Suites", "").split()
            if DEBIAN_SUITE in suites and fields.get("URIs"):
                return fields["URIs"].split()[0].strip()
    listing = Path("/etc/apt/sources.list")
    if listing.is_file():
        for line in listing.read_text().splitlines():
            words = line.split()
            if len(words) >= 3 and words[0] == "deb" and words[2] == DEBIAN_SUITE:
                return words[1]
    return "http://deb.debian.org/debian"


def _debian_recipe(mirror: str) -> str:
    text = "\n".join([DEBIAN_SUITE, "minbase", mirror, *SLIM_EXCLUDES, APT_CLEAN])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "holdem"


@contextlib.contextmanager
def build_lock() -> Iterator[None]:
    """One builder at a time on this machine (`make images`, the tier, testcontainers' images):
    two would debootstrap into the same cache and tag the same images."""
    path = _cache_dir() / "images.lock"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _slim(root: Path, mirror: str) -> None:
    """What Debian's slim images do, and the sources a container's apt should use."""
    config = root / "etc" / "dpkg" / "dpkg.cfg.d" / "holdem-slim"
    config.write_text("\n".join(SLIM_EXCLUDES) + "\n")
    for directory in ("usr/share/man", "usr/share/info", "usr/share/lintian"):
        shutil.rmtree(root / directory, ignore_errors=True)
    locales = root / "usr" / "share" / "locale"
    for entry in locales.glob("*"):
        if entry.name != "locale.alias":
            shutil.rmtree(entry, ignore_errors=True)
    for doc in (root / "usr" / "share" / "doc").glob("*/*"):
        if doc.name == "copyright":
            continue
        if doc.is_dir() and not doc.is_symlink():
            shutil.rmtree(doc, ignore_errors=True)
        else:
            doc.unlink()
    for directory in ("var/lib/apt/lists", "var/cache/apt/archives"):
        for item in (root / directory).glob("*"):
            if item.is_file():
                item.unlink()
    security = mirror.replace("/debian", "/debian-security", 1) if "/debian" in mirror else ""
    lines = [
        f"deb {mirror} {DEBIAN_SUITE} main",
        f"deb {mirror} {DEBIAN_SUITE}-updates main",
    ]
    if security:
        lines.append(f"deb {security} {DEBIAN_SUITE}-security main")
    (root / "etc" / "apt" / "sources.list").write_text("\n".join(lines) + "\n")
    # as Debian's images: no recommends, and neither packages nor apt's caches left in a layer
    (root / "etc" / "apt" / "apt.conf.d" / "docker-clean").write_text(APT_CLEAN)
    for cache in (root / "var" / "cache" / "apt").glob("*.bin"):
        cache.unlink()


def _debootstrap(tarball: Path, mirror: str) -> None:
    if os.geteuid() != 0:
        raise ImageError(
            "the Debian stand-in base is made with debootstrap, which needs root: run "
            "`make images` as root once, or let it pull the public images"
        )
    debootstrap = shutil.which("debootstrap")
    if debootstrap is None:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        for command in (
            ["apt-get", "update"],
            ["apt-get", "install", "-y", "--no-install-recommends", "debootstrap"],
        ):
            result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        debootstrap = shutil.which("debootstrap")
        if debootstrap is None:
            raise ImageError(f"debootstrap is missing and could not be installed: {result.stderr}")
    tarball.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="holdem-debootstrap-") as scratch:
        root = Path(scratch) / "root"
        started = time.monotonic()
        say(f"debootstrap {DEBIAN_SUITE} from {mirror} (a few minutes, once)")
        result = subprocess.run(
            [debootstrap, "--variant=minbase", DEBIAN_SUITE, str(root), mirror],
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0:
            tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-15:])
            raise ImageError(f"debootstrap failed ({result.returncode}):\n{tail}")
        _slim(root, mirror)
        partial = tarball.with_suffix(".partial")
        subprocess.run(
            ["tar", "--numeric-owner", "-C", str(root), "-cf", str(partial), "."], check=True
        )
        partial.replace(tarball)
        say(f"debootstrap done in {time.monotonic() - started:.0f} s")


def ensure_debian() -> str:
    """``holdem-base/debian:bookworm``, imported from the cached root (made first if need be)."""
    mirror = debian_mirror()
    recipe = _debian_recipe(mirror)
    if label(DEBIAN_IMAGE, RECIPE_LABEL) == recipe:
        return DEBIAN_IMAGE
    tarball = _cache_dir() / f"debian-{DEBIAN_SUITE}-{recipe}.tar"
    if not tarball.is_file():
        _debootstrap(tarball, mirror)
    result = docker(
        "import",
        "--change",
        f"LABEL {RECIPE_LABEL}={recipe}",
        "--change",
        'CMD ["bash"]',
        "--change",
        "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        str(tarball),
        DEBIAN_IMAGE,
    )
    if result.returncode != 0:
        raise ImageError(f"docker import of {tarball} failed: {result.stderr.strip()}")
    say(f"imported {DEBIAN_IMAGE} from {tarball}")
    return DEBIAN_IMAGE
