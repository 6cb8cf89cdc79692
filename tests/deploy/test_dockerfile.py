"""deploy/Dockerfile, read statically (no Docker engine here): two stages, the C extension built
in the first, a non-root runtime with a gRPC health check and the built web client, and only
files the build context really sends (.dockerignore) copied in."""

from __future__ import annotations

import fnmatch
import shlex
from dataclasses import dataclass

from tests.deploy.expected import DEPLOY, ROOT, WEB_PORT, WEB_ROOT

DOCKERFILE = DEPLOY / "Dockerfile"


@dataclass(frozen=True)
class Instruction:
    keyword: str
    arguments: str


def instructions() -> list[Instruction]:
    """The Dockerfile's instructions, continuation lines joined, comments dropped."""
    result: list[Instruction] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if line.startswith("#"):  # a comment inside a continued instruction
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).partition(" ")
        result.append(Instruction(keyword.upper(), arguments.strip()))
        pending = ""
    return result


def stages() -> list[list[Instruction]]:
    """The instructions of each stage (global ARGs before the first FROM left out)."""
    found: list[list[Instruction]] = []
    for instruction in instructions():
        if instruction.keyword == "FROM":
            found.append([])
        if found:
            found[-1].append(instruction)
    return found


def test_dockerfile_is_multi_stage_non_root_and_runs_a_module() -> None:
    text = DOCKERFILE.read_text()
    lines = [line.strip() for line in text.splitlines()]
    assert sum(line.startswith("FROM ") for line in lines) >= 2
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert users[-1].split(":")[0].isdigit()  # numeric, so runAsNonRoot can check it
    assert 'ENTRYPOINT ["python", "-m"]' in lines
    assert "grpc_tools.protoc" in text


def test_the_build_stage_compiles_the_c_extension_and_checks_it_runs() -> None:
    build, runtime = stages()
    runs = " ".join(i.arguments for i in build if i.keyword == "RUN")
    assert "gcc" in runs and "libc6-dev" in runs
    copied = [i.arguments.split()[0] for i in build if i.keyword == "COPY"]
    install = next(
        n
        for n, i in enumerate(build)
        if i.keyword == "RUN" and "pip install --no-deps" in i.arguments
    )
    before = {i.arguments.split()[0] for i in build[:install] if i.keyword == "COPY"}
    assert {"setup.py", "libs"} <= before, copied
    assert "assert FastEvaluator().native" in build[install].arguments
    assert "vars(envelope)['_wire']" in build[install].arguments
    assert "vars(natsraw)['_frames']" in build[install].arguments
    # bytecode compiled at build time: on a read-only root nothing could write it later
    assert "compileall" in build[install].arguments.rsplit("__pycache__", 1)[-1]
    # the checks import the installed package, not the copied source tree of the working
    # directory (where the built modules are not: every check failed there)
    workdir = [i.arguments for i in build[:install] if i.keyword == "WORKDIR"][-1]
    steps = [step.strip() for step in build[install].arguments.split("&&")]
    first_check = next(n for n, step in enumerate(steps) if step.startswith("python -c"))
    moves = [step for step in steps[:first_check] if step.startswith("cd ")]
    assert moves and moves[-1] != f"cd {workdir}" and not moves[-1].startswith("cd ."), steps
    setup = (ROOT / "setup.py").read_text()
    for source in ("libs/poker/fast/_native.c", "libs/tableproto/_wire.c"):
        assert f'"{source}"' in setup and (ROOT / source).exists()
    # only the built virtualenv reaches the runtime: no compiler there
    runtime_runs = " ".join(i.arguments for i in runtime if i.keyword == "RUN")
    assert "gcc" not in runtime_runs
    assert any(i.keyword == "COPY" and i.arguments.startswith("--from=build") for i in runtime)


def test_the_build_works_on_the_classic_builder_and_takes_its_base_from_an_argument() -> None:
    """No BuildKit-only syntax (a `# syntax=` line would make BuildKit pull a frontend image,
    which a machine without a registry cannot), the base from PYTHON_IMAGE in every stage, and
    pip given the build-certs bundle only when one is there (deploy/build-certs/README.md)."""
    text = DOCKERFILE.read_text()
    assert not any(line.startswith("# syntax=") for line in text.splitlines())
    assert "RUN --mount" not in text
    assert {i.arguments.split()[0] for i in instructions() if i.keyword == "FROM"} == {
        "${PYTHON_IMAGE}"
    }
    build = stages()[0]
    copies = [i.arguments for i in build if i.keyword == "COPY"]
    assert "deploy/build-certs/ /tmp/build-certs/" in copies
    (installs,) = [i for i in build if i.keyword == "RUN" and "-r requirements.txt" in i.arguments]
    assert "if [ -f /tmp/build-certs/pip.pem ]; then export PIP_CERT=" in installs.arguments
    assert all("build-certs" not in i.arguments for i in stages()[-1])


def test_the_image_checks_its_own_grpc_health() -> None:
    runtime = stages()[-1]
    (check,) = [i for i in runtime if i.keyword == "HEALTHCHECK"]
    options, _, command = check.arguments.partition("CMD")
    assert "--interval=" in options and "--timeout=" in options
    assert command.strip() == '["python", "-m", "libs.platform.healthcheck"]'
    assert all(i.keyword != "HEALTHCHECK" for stage in stages()[:-1] for i in stage)


def _ignored(path: str, patterns: list[str]) -> bool:
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").rstrip("/")
        if fnmatch.fnmatch(path, pattern) or path.startswith(pattern + "/"):
            ignored = not negate
    return ignored


def test_everything_copied_is_in_the_build_context() -> None:
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    copies = [i for i in instructions() if i.keyword == "COPY" and "--from=" not in i.arguments]
    assert copies
    for copy in copies:
        *sources, _destination = shlex.split(copy.arguments)
        for source in sources:
            assert (ROOT / source).exists(), f"{source} is missing (web/dist: `make web`)"
            assert not _ignored(source, patterns), f"{source} is excluded by .dockerignore"
    assert _ignored("tests/deploy", patterns)  # the check can say no


def test_the_image_carries_the_built_web_client_and_the_context_nothing_else_of_web() -> None:
    """The runtime stage copies web/dist (built outside the image by `make web`, a prerequisite
    of `make images` and `make compose-up`) where compose and Kubernetes point
    HOLDEM_GATEWAY_WEB_ROOT; the build context sends of web/ only that (no node_modules, no
    sources, no generated code)."""
    runtime = stages()[-1]
    copies = [i.arguments for i in runtime if i.keyword == "COPY" and "--from=" not in i.arguments]
    assert f"web/dist {WEB_ROOT}" in copies
    expose = " ".join(i.arguments for i in runtime if i.keyword == "EXPOSE").split()
    assert str(WEB_PORT) in expose
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert not _ignored("web/dist", patterns)
    for other in ("web/node_modules", "web/src", "web/package.json"):
        assert _ignored(other, patterns), other
    makefile = (ROOT / "Makefile").read_text()
    for target in ("images", "compose-up"):
        (line,) = [line for line in makefile.splitlines() if line.startswith(f"{target}:")]
        assert "web" in line.split(":", 1)[1].split(), line
