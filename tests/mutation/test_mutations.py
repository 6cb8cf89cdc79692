"""``make mutate`` stays runnable: every mutation's code is in its file exactly once (the table
code moves on; a mutation whose line is gone would stop the whole check before it starts)."""

from __future__ import annotations

from tests.mutation.run import MUTATIONS, check


def test_every_mutation_applies_to_the_code_as_it_is() -> None:
    check(MUTATIONS)  # SystemExit naming the first that does not
    assert len({m.name for m in MUTATIONS}) == len(MUTATIONS)
