"""``python -m deploy.containers images|up|down``: what `make images`, `make compose-up` and
`make compose-down` run."""

from __future__ import annotations

import argparse
import sys

from deploy.containers import compose, images
from deploy.containers.docker import ImageError
from deploy.containers.engine import EngineError, engine_answers, ensure_engine


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deploy.containers")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("images", help="build every image the stack needs (make images)")
    up = commands.add_parser("up", help="docker compose up, until every container is healthy")
    up.add_argument("--monitoring", action="store_true", help="with Prometheus (and Grafana)")
    up.add_argument("--project", default=compose.DEFAULT_PROJECT)
    down = commands.add_parser("down", help="remove containers, networks and volumes")
    down.add_argument("--project", default=compose.DEFAULT_PROJECT)
    options = parser.parse_args(argv)
    try:
        if options.command == "down":
            if (why := engine_answers()) is not None:
                print(f"compose-down: no Docker engine answers ({why}): nothing to remove")
                return 0
            compose.down(options.project)
            print(
                f"compose-down: project {options.project} removed (containers, networks, volumes)"
            )
            return 0
        print(f"docker: {ensure_engine()}", file=sys.stderr)
        if options.command == "images":
            return images.main()
        seconds = compose.up(options.project, monitoring=options.monitoring)
        print(f"compose-up: every container of {options.project} healthy in {seconds:.0f} s")
        print(compose.compose(["ps"], options.project, compose.stack_environment()).stdout)
        return 0
    except (EngineError, compose.ComposeError, ImageError) as exc:
        print(f"{options.command}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
