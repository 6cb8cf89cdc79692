"""The docker CLI as the image builds use it: the classic builder (no BuildKit here), quiet
unless a command fails, and the few questions asked of images (exists, a label)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

from deploy.containers.engine import docker_command


class ImageError(RuntimeError):
    """An image could not be had or built; the message says which and why."""


def say(message: str) -> None:
    print(f"images: {message}", file=sys.stderr, flush=True)


def docker(*args: str, quiet: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [docker_command(), *args],
        capture_output=quiet,
        text=True,
        check=False,
        env={**os.environ, "DOCKER_BUILDKIT": "0"},
    )


def image_exists(image: str) -> bool:
    return docker("image", "inspect", "--format", "{{.Id}}", image).returncode == 0


def label(image: str, label: str) -> str | None:
    result = docker(
        "image", "inspect", "--format", f'{{{{index .Config.Labels "{label}"}}}}', image
    )
    value = result.stdout.strip()
    return value if result.returncode == 0 and value not in ("", "<no value>") else None


def pull(image: str) -> bool:
    result = docker("pull", "--quiet", image)
    if result.returncode != 0:
        reason = (result.stderr or result.stdout).strip().splitlines()
        say(f"cannot pull {image}: {reason[-1] if reason else result.returncode}")
    return result.returncode == 0


def build(tag: str, context: Path, dockerfile: Path, args: Mapping[str, str]) -> None:
    """``docker build`` (classic builder), its output shown only when it fails."""
    command = ["build", "--tag", tag, "--file", str(dockerfile)]
    for key, value in args.items():
        command += ["--build-arg", f"{key}={value}"]
    started = time.monotonic()
    result = docker(*command, str(context))
    if result.returncode != 0:
        tail = "\n".join((result.stdout + result.stderr).strip().splitlines()[-30:])
        raise ImageError(f"docker build of {tag} failed ({result.returncode}):\n{tail}")
    say(f"built {tag} in {time.monotonic() - started:.0f} s")
