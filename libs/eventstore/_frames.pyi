"""Types of the optional C reader of NATS message frames (libs/eventstore/_frames.c)."""

from collections.abc import Mapping

API_VERSION: int

def take(
    buf: bytearray, sids: Mapping[int, object], /
) -> tuple[list[tuple[int, bytes, bytes, bytes, bytes | None]], int, bool]: ...
