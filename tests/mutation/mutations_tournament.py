"""One-line bugs in the tournament aggregate (libs/tournament), each caught by tests/tournament."""

from __future__ import annotations

from tests.mutation.model import Mutation

TOURNAMENT_TESTS = ("tests/tournament",)

MUTATIONS = [
    Mutation(
        "tournament: a table out of balance is dealt a hand",
        "libs/tournament/floor.py",
        "        and not _out_of_balance(s, table)\n",
        "",
        TOURNAMENT_TESTS,
    ),
    Mutation(
        "tournament: hand-for-hand deals without waiting for every table",
        "libs/tournament/floor.py",
        "    if s.hand_for_hand:\n        settled = (",
        "    if False:\n        settled = (",
        TOURNAMENT_TESTS,
    ),
    Mutation(
        "tournament: a break starts while a table is in its hand",
        "libs/tournament/floor.py",
        "if not s.break_due or any(t.in_hand for t in s.tables.values()):",
        "if not s.break_due:",
        TOURNAMENT_TESTS,
    ),
    Mutation(
        "tournament: busts of one hand are not ranked by their starting stacks",
        "libs/tournament/ranking.py",
        "return (entrant.bust.order, entrant.bust.start_stack)",
        "return (entrant.bust.order, 0)",
        TOURNAMENT_TESTS,
    ),
    Mutation(
        "tournament: a bust is placed before an earlier one still deciding on a rebuy",
        "libs/tournament/floor.py",
        "e.bust.order < first_waiting]",
        "e.bust.order <= first_waiting]",
        TOURNAMENT_TESTS,
    ),
    Mutation(
        "tournament: the prizes' rounding is not given to first place",
        "libs/tournament/payouts.py",
        "    if amounts:\n        amounts[0] += pool - sum(amounts)\n",
        "",
        TOURNAMENT_TESTS,
    ),
    Mutation(
        "tournament: a hand result that creates chips is recorded",
        "libs/tournament/play.py",
        "    if before != after:\n",
        "    if False:\n",
        TOURNAMENT_TESTS,
    ),
    Mutation(
        "tournament: the player after the next big blind moves (off by one)",
        "libs/tournament/seating.py",
        "    return chips[0] if seat is None else seat\n",
        "    return chips[0] if seat is None else _after(seat, chips, s.cfg.seats_per_table)\n",
        TOURNAMENT_TESTS,
    ),
    Mutation(
        "tournament: a late entry leaves the players already out where they were",
        "libs/tournament/evolve.py",
        "            if s.status is Status.RUNNING:\n",
        "            if False:\n",
        TOURNAMENT_TESTS,
    ),
    Mutation(
        "tournament: a repeated registration key registers again",
        "libs/tournament/decide.py",
        "    if seen_key(s, c.key, c.player_id):\n        return []\n    require_not_over(s)\n"
        "    if c.player_id in s.entrants:",
        "    require_not_over(s)\n    if c.player_id in s.entrants:",
        TOURNAMENT_TESTS,
    ),
]
