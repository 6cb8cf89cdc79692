"""What a mutation is: one realistic one-line bug, and the tests that must catch it."""

from __future__ import annotations

from dataclasses import dataclass

# The fast table tests: what the table layer's mutations run against.
TABLE_TESTS = (
    "tests/table",
    "tests/tableproto",
    "tests/tableservice",
    "tests/services/test_table_service.py",
)


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str
    before: str  # must occur exactly once in the file
    after: str
    tests: tuple[str, ...] = TABLE_TESTS  # the pytest paths that must fail with it applied
