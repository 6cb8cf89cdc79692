"""deploy/containers without Docker: which image each base resolves to, the Debian mirror read
from apt's sources, what `make images` writes for compose, and what the engine check does when
no daemon answers (the containers tier runs all of it for real)."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from deploy.containers import debian, engine, images
from deploy.containers.docker import ImageError
from deploy.containers.images import BASES, Base

PYTHON, NATS, REDIS, PROMETHEUS, GRAFANA = BASES


class FakeDocker:
    """Which images are here and which could be pulled; what was built."""

    def __init__(self, here: set[str], pullable: set[str]) -> None:
        self.here, self.pullable = set(here), set(pullable)
        self.built: list[str] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(images, "image_exists", lambda image: image in self.here)
        monkeypatch.setattr(images, "pull", self.pull)
        monkeypatch.setattr(images, "build_stand_in", self.build)

    def pull(self, image: str) -> bool:
        if image in self.pullable:
            self.here.add(image)
            return True
        return False

    def build(self, base: Base) -> str:
        assert base.stand_in is not None
        self.built.append(base.stand_in)
        self.here.add(base.stand_in)
        return base.stand_in


def test_a_base_is_the_public_image_when_here_or_pullable(monkeypatch: pytest.MonkeyPatch) -> None:
    docker = FakeDocker(here={PYTHON.public}, pullable={NATS.public})
    docker.install(monkeypatch)
    assert images.resolve(PYTHON, {}) == PYTHON.public
    assert images.resolve(NATS, {}) == NATS.public
    assert docker.built == []


def test_else_its_stand_in_is_built_and_grafana_has_none(monkeypatch: pytest.MonkeyPatch) -> None:
    docker = FakeDocker(here=set(), pullable=set())
    docker.install(monkeypatch)
    assert [images.resolve(base, {}) for base in BASES] == [
        PYTHON.stand_in,
        NATS.stand_in,
        REDIS.stand_in,
        PROMETHEUS.stand_in,
        None,
    ]
    assert docker.built == [PYTHON.stand_in, NATS.stand_in, REDIS.stand_in, PROMETHEUS.stand_in]
    # without building: only a stand-in that is already here
    assert images.resolve(REDIS, {}, build=False) == REDIS.stand_in
    docker.here.discard(REDIS.stand_in)
    assert images.resolve(REDIS, {}, build=False) is None


def test_the_operators_variable_wins_and_must_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    docker = FakeDocker(here={"mirror.local/redis:7", REDIS.public}, pullable=set())
    docker.install(monkeypatch)
    assert images.resolve(REDIS, {REDIS.variable: "mirror.local/redis:7"}) == "mirror.local/redis:7"
    with pytest.raises(ImageError, match="HOLDEM_NATS_IMAGE=nope:1"):
        images.resolve(NATS, {NATS.variable: "nope:1"})


def test_the_choice_round_trips_through_the_env_file(tmp_path: Path) -> None:
    chosen = {"HOLDEM_IMAGE": "holdem:local", NATS.variable: NATS.stand_in or ""}
    path = tmp_path / ".images.env"
    images.write_env(chosen, path)
    assert images.chosen_images(path) == chosen
    assert images.chosen_images(tmp_path / "absent") == {}


def test_the_debian_mirror_comes_from_apt_sources(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("HOLDEM_DEBIAN_MIRROR", raising=False)
    sources = tmp_path / "debian.sources"
    sources.write_text(
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\n\n"
        "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n"
    )
    real = Path

    def fake_path(name: str) -> Path:
        return sources if name == "/etc/apt/sources.list.d/debian.sources" else real(name)

    monkeypatch.setattr(debian, "Path", fake_path)
    assert debian.debian_mirror() == "http://mirror.example/debian"
    monkeypatch.setenv("HOLDEM_DEBIAN_MIRROR", "http://other/debian")
    assert debian.debian_mirror() == "http://other/debian"


def test_without_a_daemon_and_without_root_the_engine_check_says_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(engine, "engine_answers", lambda timeout=20.0: "socket: no such file")
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(engine.EngineError) as error:
        engine.ensure_engine()
    message = str(error.value)
    assert "socket: no such file" in message and "-m 'not containers'" in message


def test_as_root_it_installs_docker_io_and_starts_dockerd(monkeypatch: pytest.MonkeyPatch) -> None:
    answers = iter(["no daemon", "no daemon", None])
    monkeypatch.setattr(engine, "engine_answers", lambda timeout=20.0: next(answers))
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    installed: list[str] = []
    monkeypatch.setattr(engine, "_install_docker_io", lambda: installed.append("docker.io"))
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}" if installed else None)
    monkeypatch.setattr(engine, "_dockerd_running", lambda: False)
    started: list[str] = []
    monkeypatch.setattr(engine, "_start_dockerd", started.append)
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    assert engine.ensure_engine().startswith("installed docker.io, started dockerd")
    assert started == ["/usr/bin/dockerd"]


def test_a_dockerd_that_never_answers_fails_with_its_log(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    log = tmp_path / "dockerd.log"
    log.write_text('level=error msg="failed to start daemon: iptables not found"\n')
    monkeypatch.setattr(engine, "DOCKERD_LOG", log)
    monkeypatch.setattr(engine, "START_TIMEOUT", 0.0)
    monkeypatch.setattr(engine, "engine_answers", lambda timeout=20.0: "no daemon")
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}")
    monkeypatch.setattr(engine, "_dockerd_running", lambda: False)
    monkeypatch.setattr(engine, "_start_dockerd", lambda dockerd: None)
    monkeypatch.setattr(time, "sleep", lambda seconds: None)
    with pytest.raises(engine.EngineError, match="iptables not found"):
        engine.ensure_engine()
