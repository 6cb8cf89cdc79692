"""``python -m services.tournament`` / ``holdem-tournament``: run the tournament service."""

from __future__ import annotations

import sys

from libs.platform.server import ServiceSpec, run_service
from services.tournament.config import SERVICE, VARIABLES, load_config
from services.tournament.wiring import build

SPEC = ServiceSpec(name=SERVICE, variables=VARIABLES, load_config=load_config, build=build)


def main() -> int:
    return run_service(SPEC)


if __name__ == "__main__":
    sys.exit(main())
