"""What a ``holdem chaos`` run found (``Report``), and the checks made from the table's stream
once it is over (``verify``): every hand completed or voided by rule, the chip total unchanged,
no commit applied twice, no sequence gap, every completed hand's cards following from its
revealed seed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from libs.eventstore.jetstream import TABLE_STREAM, JetStreamEventStore
from libs.fairdeck.audit import outcomes_from_stream
from libs.platform.natsconn import connect_nats
from libs.poker.events import HandEnded, HandVoided, RunItDecided
from libs.table import replay
from libs.table.events import Event, PlayerLeft, PlayerSeated, TableClosed
from libs.tableproto.envelope import decode_commit

TABLE_ID = "chaos"
STREAM = TABLE_STREAM


@dataclass
class Report:
    hands_completed: int = 0
    hands_voided: int = 0
    kills: int = 0
    kills_by_target: dict[str, int] = field(default_factory=dict)
    kill_points: dict[str, int] = field(default_factory=dict)  # after commits, in a call, ...
    redis_restarts: int = 0
    replacements: int = 0  # bots that lost every chip, replaced by new ones (new buy-ins)
    chips_before: int = 0
    chips_after: int = 0
    duplicate_commits: int = 0
    sequence_gaps: int = 0
    commits: int = 0
    decks_verified: int = 0
    hands_run_again: int = 0  # all-in hands whose board was run two or three times
    decks_unverifiable: int = 0  # completed, but the dealer's store was wiped before the reveal
    fairness_failures: list[str] = field(default_factory=list)
    # From a kill of the table service until it is SERVING again, and until the table's next
    # commit (its lease taken back, its projection caught up): median and worst, in seconds.
    restart_serving_p50: float = 0.0
    restart_serving_max: float = 0.0
    restart_commit_p50: float = 0.0
    restart_commit_max: float = 0.0
    prewarmed: bool = True
    replicas: int = 1  # table services sharing the table by lease
    nats_nodes: int = 1  # nats-servers (a JetStream cluster when more than one)
    seconds: float = 0.0
    ok: bool = False

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


async def verify(nats_url: str, hands: int, report: Report) -> None:
    nc = await connect_nats(nats_url)
    try:
        store = JetStreamEventStore(nc, stream=STREAM)
        commits = await store.read(TABLE_ID)
    finally:
        await nc.close()
    report.commits = len(commits)
    ids = Counter(c.msg_id for c in commits)
    report.duplicate_commits = sum(n - 1 for n in ids.values() if n > 1)
    previous = 0
    events: list[Event] = []
    for commit in commits:
        expected = commit.headers.get("Nats-Expected-Last-Subject-Sequence")
        if expected is None or int(expected) != previous:
            report.sequence_gaps += 1
        previous = commit.sequence
        events.extend(decode_commit(commit.data)[1])
    report.chips_before = sum(e.stack for e in events if isinstance(e, PlayerSeated))
    state = replay(events)
    left = sum(e.stack for e in events if isinstance(e, PlayerLeft))
    closed = sum(stack for e in events if isinstance(e, TableClosed) for _, _, stack in e.stacks)
    report.chips_after = left + (closed if state.closed else state.total_chips())
    report.hands_completed = sum(isinstance(e, HandEnded) for e in events)
    report.hands_voided = sum(isinstance(e, HandVoided) for e in events)
    report.hands_run_again = sum(isinstance(e, RunItDecided) and e.runs > 1 for e in events)
    _verify_decks(events, report)
    report.ok = (
        report.hands_completed + report.hands_voided == hands
        and report.chips_before == report.chips_after
        and report.duplicate_commits == 0
        and report.sequence_gaps == 0
        and not report.fairness_failures
        and state.closed
    )


def _verify_decks(events: list[Event], report: Report) -> None:
    """Every completed hand's cards must follow from its revealed seed and commitment (the
    checks of ``holdem verify --table``); voided hands are not checked."""
    for outcome in outcomes_from_stream(events):
        if outcome.voided:
            continue
        if outcome.seed_lost:  # revealed empty: the dealer lost it (redis-server restarted)
            report.decks_unverifiable += 1
        elif outcome.ok:
            report.decks_verified += 1
        else:
            report.fairness_failures.append(f"{outcome.path}: {'; '.join(outcome.failures)}")
