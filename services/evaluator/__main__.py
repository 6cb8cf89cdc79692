"""``python -m services.evaluator`` / ``holdem-evaluator``: run the evaluator service."""

from __future__ import annotations

import sys

from libs.platform.server import ServiceSpec, run_service
from services.evaluator.config import SERVICE, VARIABLES, load_config
from services.evaluator.server import build

SPEC = ServiceSpec(name=SERVICE, variables=VARIABLES, load_config=load_config, build=build)


def main() -> int:
    return run_service(SPEC)


if __name__ == "__main__":
    sys.exit(main())
