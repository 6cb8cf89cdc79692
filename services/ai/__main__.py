"""``python -m services.ai`` / ``holdem-ai``: run the ai service."""

from __future__ import annotations

import sys

from libs.platform.server import ServiceSpec, run_service
from services.ai.config import SERVICE, VARIABLES, load_config
from services.ai.server import build

SPEC = ServiceSpec(name=SERVICE, variables=VARIABLES, load_config=load_config, build=build)


def main() -> int:
    return run_service(SPEC)


if __name__ == "__main__":
    sys.exit(main())
