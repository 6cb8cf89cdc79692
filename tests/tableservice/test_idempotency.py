"""The idempotency window by itself: kept by age (commit time), not by count; automatic steps
are not kept; keys from an old snapshot without their time get a full window."""

from __future__ import annotations

from services.table.idempotency import Outcome, RecentCommits


def test_a_key_stays_for_the_window_however_many_commits_come_after_it() -> None:
    recent = RecentCommits(window=120.0)
    recent.record("sit-a", Outcome(1, []), at=1000.0)
    for i in range(5000):
        recent.record(f"bot-{i}", Outcome(2 + i, []), at=1000.0 + i * 0.02, automatic=True)
    first = recent.first_outcome("sit-a")
    assert first is not None and first.sequence == 1 and first.duplicate
    assert len(recent) == 1  # the bots' automatic steps are not kept


def test_a_key_older_than_the_window_is_forgotten_at_the_next_commit() -> None:
    recent = RecentCommits(window=120.0)
    recent.record("sit-a", Outcome(1, []), at=1000.0)
    recent.record("sit-b", Outcome(2, []), at=1119.0)
    assert recent.first_outcome("sit-a") is not None
    recent.record("sit-c", Outcome(3, []), at=1121.0)
    assert recent.first_outcome("sit-a") is None
    assert [k for k, _, _ in recent.snapshot_keys()] == ["sit-b", "sit-c"]


def test_keys_of_an_old_snapshot_without_their_time_get_a_full_window() -> None:
    recent = RecentCommits.from_snapshot_keys([("sit-a", 1, None)], window=120.0)
    recent.record("sit-b", Outcome(2, []), at=5000.0)  # stamped with this commit's time
    recent.record("sit-c", Outcome(3, []), at=5119.0)
    assert recent.first_outcome("sit-a") is not None
    recent.record("sit-d", Outcome(4, []), at=5121.0)
    assert recent.first_outcome("sit-a") is None


def test_a_retry_keeps_its_first_outcome_and_a_merge_adds_what_a_reload_knows() -> None:
    recent = RecentCommits(window=120.0)
    recent.record("sit-a", Outcome(1, []), at=10.0)
    recent.record("sit-a", Outcome(9, []), at=11.0)  # never a second outcome for one key
    fresh = RecentCommits.from_snapshot_keys([("sit-z", 5, 12.0)], window=120.0)
    recent.merge(fresh)
    assert [(k, s) for k, s, _ in recent.snapshot_keys()] == [("sit-a", 1), ("sit-z", 5)]
