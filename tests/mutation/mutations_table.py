"""One-line bugs in the table aggregate (libs/table) and the table service's command path
(services/table), each caught by the fast table tests."""

from __future__ import annotations

from tests.mutation.model import Mutation

MUTATIONS = [
    # ---- the aggregate (libs/table)
    Mutation(
        "plan: positions start at the button (off by one)",
        "libs/table/planning.py",
        "order = [(button + k) % size for k in range(1, size + 1)",
        "order = [(button + k) % size for k in range(0, size)",
    ),
    Mutation(
        "state: acting seat from the previous position (off by one)",
        "libs/table/state.py",
        "return None if actor is None else self.hand_seats[actor]",
        "return None if actor is None else self.hand_seats[actor - 1]",
    ),
    Mutation(
        "plan: heads-up the button does not post the small blind",
        "libs/table/planning.py",
        "        if bb == button:  # two players: the button posts the small blind\n"
        "            sb, bb = button, sb\n",
        "",
    ),
    Mutation(
        "clock: acts only after the deadline, not at it",
        "libs/table/hand_commands.py",
        "if number is None or c.now < s.deadline or s.hand is None:",
        "if number is None or c.now <= s.deadline or s.hand is None:",
    ),
    Mutation(
        "clock: always folds, never checks when checking is free",
        "libs/table/hand_flow.py",
        "if options is not None and options.player == position and options.can_check:",
        "if False:",
    ),
    Mutation(
        "clock: sits out one time-out late",
        "libs/table/hand_commands.py",
        "or s.seats[number].timeouts >= s.config.timeouts_before_sit_out)",
        "or s.seats[number].timeouts > s.config.timeouts_before_sit_out)",
    ),
    Mutation(
        "clock: acting in the time bank does not spend it",
        "libs/table/hand_commands.py",
        "        x.emit(TimeBankUsed(number, used))\n",
        "",
    ),
    Mutation(
        "blinds: the seat that just paid the big blind counts as passed",
        "libs/table/seat_state.py",
        "return 0 < (seat - previous) % size <= span",
        "return 0 <= (seat - previous) % size <= span",
    ),
    Mutation(
        "seating: newcomers after the first hand play at once",
        "libs/table/seating.py",
        "starting = s.hands_started == 0 or _active_count(s) < 2",
        "starting = True",
    ),
    Mutation(
        "room: the hand limit allows one hand more",
        "libs/table/planning.py",
        "if cfg.hand_limit and s.hands_started >= cfg.hand_limit:",
        "if cfg.hand_limit and s.hands_started > cfg.hand_limit:",
    ),
    Mutation(
        "leaving: a player who asked to leave stays after the hand",
        "libs/table/hand_flow.py",
        "        if seat.leaving:\n"
        "            x.emit(PlayerLeft(number, seat.player_id, seat.stack, tournament_table(s)))\n",
        "        if False:\n            pass\n",
    ),
    Mutation(
        "seating: no seat given takes the highest free seat",
        "libs/table/planning.py",
        "    for seat in range(s.config.seats):\n        if seat not in s.seats:",
        "    for seat in reversed(range(s.config.seats)):\n        if seat not in s.seats:",
    ),
    Mutation(
        "next_due: the clock is due a moment late",
        "libs/table/automation.py",
        "if s.clock_seat is not None and now >= s.deadline:",
        "if s.clock_seat is not None and now > s.deadline:",
    ),
    # ---- the command path (services/table)
    Mutation(
        "retry: answered with the current sequence, not the first outcome",
        "services/table/idempotency.py",
        "return None if first is None else replace(first.outcome, duplicate=True)",
        "return None if first is None else replace(first.outcome, duplicate=True, sequence=max("
        "e.outcome.sequence for e in self._entries.values()))",
    ),
    Mutation(
        "restart: idempotency keys not restored from the snapshot",
        "services/table/idempotency.py",
        "            recent._entries[key] = _Entry(Outcome(sequence, []), at)\n",
        "            pass\n",
    ),
    Mutation(
        "snapshot: idempotency keys not written",
        "services/table/idempotency.py",
        "return [(key, e.outcome.sequence, e.at) for key, e in self._entries.items()]",
        "return []",
    ),
    Mutation(
        "window: the keys of automatic steps are kept too (snapshots grow with play)",
        "services/table/idempotency.py",
        "if not automatic and key not in self._entries:",
        "if key not in self._entries:",
    ),
    Mutation(
        "window: keys never expire",
        "services/table/idempotency.py",
        "            elif entry.at >= horizon:",
        "            elif True:",
    ),
    Mutation(
        "snapshot: none at hand end",
        "services/table/commits.py",
        "if not (hand_over or self.repository.snapshot_due(table.since_snapshot)):",
        "if not self.repository.snapshot_due(table.since_snapshot):",
    ),
    Mutation(
        "snapshot: the commit counter never advances",
        "services/table/commits.py",
        "        table.since_snapshot += 1\n",
        "",
    ),
    Mutation(
        "commit: a retry's landed commit is decided again instead of reloaded",
        "services/table/commits.py",
        "        if appended.result.duplicate:  # this very commit landed before",
        "        if False:  # this very commit landed before",
    ),
    Mutation(
        "commit: an automatic step decided on a stale state is not dropped",
        "services/table/app.py",
        "            if automatic and based_on is not None and table.sequence != based_on:\n"
        "                return None",
        "            if False:\n                return None",
    ),
    Mutation(
        "commit: after a conflict an automatic step is decided again",
        "services/table/app.py",
        "                    if automatic:\n"
        "                        return None\n"
        "                    # the writer may be",
        "                    # the writer may be",
    ),
    Mutation(
        "commit: the hand-end commit does not reveal the seed",
        "services/table/app.py",
        "state, events = await self.automation.reveal_at_hand_end(state, events)",
        "state, events = state, events",
    ),
    Mutation(
        "publish: hole cards go out in the public projection",
        "libs/tableproto/envelope.py",
        "    public = [public_event(e, seeds) for e in events]\n",
        "    public = list(events)\n",
    ),
    Mutation(
        "registry: an opened table is not registered (nobody adopts it)",
        "services/table/ownership.py",
        "            await self.registry.add(table_id)\n",
        "            pass\n",
    ),
    Mutation(
        "publish: a load does not publish what a dead owner appended but never published",
        "services/table/commits.py",
        "            await self.projector.catch_up(table_id, loaded.sequence)\n",
        "            pass\n",
    ),
    Mutation(
        "showdown: the evaluator is asked twice per showdown",
        "services/table/ranking.py",
        "                    await values_for_showdown(\n"
        "                        self.ranker, state.config.variant, state.hand, need, known\n"
        "                    )\n",
        "                    await values_for_showdown(\n"
        "                        self.ranker, state.config.variant, state.hand, need, known\n"
        "                    )\n"
        "                    await values_for_showdown(\n"
        "                        self.ranker, state.config.variant, state.hand, need,\n"
        "                        KnownValues(),\n"
        "                    )\n",
    ),
]
