"""Statistics and notes through the gateway, with real processes (lobby, table, gateway,
nats-server, redis-server): two registered players play heads-up hands to a script (the lobby
SIGKILLed and restarted after the second); each one's
statistics, as they see themselves and as the other sees them, are exactly the written-out
numbers, and exactly what the viewer's own projected hands give (the statistics spy: nothing
from a mucked or unshown hand, nothing from a hand the viewer was not dealt into); a third
player who never sat with them knows nothing of them. Notes: private to their author, bounded,
about existing players only; bad input is refused with a clear status and changes nothing."""

from __future__ import annotations

import grpc
import pytest
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2

from libs.lobby import notes
from libs.stats import Counts
from tests.conditions import wait_until_sync
from tests.gateway.chat_steps import Person, code_of, person, refused
from tests.gateway.stack import CONFIG, GatewayStack, gateway_stack
from tests.gateway.stats_steps import (
    SCRIPTS,
    counts_of,
    expected,
    play_heads_up,
    seen_by,
    table_commits,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(300)]
__all__ = ["gateway_stack"]

S = grpc.StatusCode
g = gateway_pb2


def stats(
    gw: object, viewer: Person, about: str = "", variant: int = 0, table_id: str = ""
) -> g.GetPlayerStatsResponse:
    request = g.GetPlayerStatsRequest(player_id=about, variant=variant, table_id=table_id)  # type: ignore[arg-type]
    return gw.GetPlayerStats(request, metadata=viewer.meta, timeout=30)  # type: ignore[attr-defined, no-any-return]


def test_statistics_are_exact_and_only_from_what_the_viewer_saw(
    gateway_stack: GatewayStack,
) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        ann, bob, eve = (person(gw, n) for n in ("ann", "bob", "eve"))
        config = common_pb2.TableConfig()
        config.CopyFrom(CONFIG)
        config.hand_limit = len(SCRIPTS)  # then the table closes: no hand after the scripts
        created = gw.CreateTable(
            g.CreateTableRequest(name="stats", config=config), metadata=ann.meta, timeout=60
        )
        table_id = created.table.table_id
        for who in (ann, bob):
            gw.JoinTable(
                g.JoinTableRequest(table_id=table_id, buy_in=200), metadata=who.meta, timeout=60
            )

        def restart_the_lobby(number: int) -> None:
            # the feed loses what it followed of the table and whatever it had not acknowledged:
            # it reads the table back and counts every hand once all the same
            if number == 2:
                gateway_stack.lobby.kill()
                gateway_stack.lobby.spawn().wait_serving()

        play_heads_up(gw, gateway_stack, table_id, [ann, bob], restart_the_lobby)
        wait_until_sync(
            lambda: (
                stats(gw, ann).stats.hands >= len(SCRIPTS)
                and stats(gw, bob).stats.hands >= len(SCRIPTS)
            ),
            "every hand counted",
        )
        commits = table_commits(gateway_stack.nats_url, table_id)
        truth = expected(commits)
        for viewer in (ann, bob):
            spy = seen_by(commits, viewer.player_id)  # from the viewer's projection only
            for about in (ann, bob):
                asked = "" if about is viewer else about.player_id
                got = stats(gw, viewer, asked).stats
                assert got.player_id == about.player_id
                numbers = counts_of(got)
                assert numbers == truth[about.player_id], (viewer.name, about.name)
                assert numbers == spy[about.player_id]
        mine = stats(gw, ann).stats
        assert mine.vpip == pytest.approx(mine.vpip_hands / mine.preflop_chances)
        holdem = stats(gw, ann, variant=common_pb2.VARIANT_HOLDEM).stats
        assert counts_of(holdem) == counts_of(mine)
        here = stats(gw, bob, ann.player_id, table_id=table_id).stats  # this table's hands
        assert counts_of(here) == truth[ann.player_id]
        elsewhere = stats(gw, bob, ann.player_id, table_id="another-table").stats
        assert counts_of(elsewhere) == Counts()
        omaha = stats(gw, ann, variant=common_pb2.VARIANT_OMAHA).stats
        assert omaha.hands == 0 and not omaha.HasField("vpip")  # no chance: no ratio

        # eve never sat with them: she knows nothing of their hands
        about_ann = stats(gw, eve, ann.player_id).stats
        assert counts_of(about_ann) == Counts() and not about_ann.HasField("vpip")

        unknown = refused(
            gw.GetPlayerStats, g.GetPlayerStatsRequest(player_id="nobody-here"), metadata=eve.meta
        )
        assert unknown.code() == S.NOT_FOUND and code_of(unknown) == "PLAYER_NOT_FOUND"
        bad = refused(
            gw.GetPlayerStats, g.GetPlayerStatsRequest(player_id="no spaces"), metadata=eve.meta
        )
        assert bad.code() == S.INVALID_ARGUMENT
        anonymous = refused(gw.GetPlayerStats, g.GetPlayerStatsRequest())
        assert anonymous.code() == S.UNAUTHENTICATED


def _notes(gw: object, who: Person) -> list[tuple[str, str]]:
    listed = gw.ListPlayerNotes(  # type: ignore[attr-defined]
        g.ListPlayerNotesRequest(), metadata=who.meta, timeout=30
    )
    return [(n.player_id, n.text) for n in listed.notes]


def test_notes_are_private_to_their_author(gateway_stack: GatewayStack) -> None:
    with grpc.insecure_channel(gateway_stack.gateway.address) as channel:
        gw = gateway_stack.gateway_stub(channel)
        ann, bob, cat = (person(gw, n) for n in ("ann", "bob", "cat"))
        write = g.SetPlayerNoteRequest(
            player_id=bob.player_id, text=" calls every river ", idempotency_key="n1"
        )
        first = gw.SetPlayerNote(write, metadata=ann.meta, timeout=30)
        again = gw.SetPlayerNote(write, metadata=ann.meta, timeout=30)  # a retry: once
        assert first.note.text == again.note.text == "calls every river"
        assert first.note.updated_at == again.note.updated_at
        gw.SetPlayerNote(
            g.SetPlayerNoteRequest(player_id=cat.player_id, text="tight", idempotency_key="n2"),
            metadata=ann.meta,
            timeout=30,
        )
        assert _notes(gw, ann) == sorted(
            [(bob.player_id, "calls every river"), (cat.player_id, "tight")]
        )
        assert stats(gw, ann, bob.player_id).note.text == "calls every river"
        # nobody else reads them: not bob (the note is about him), not cat
        assert _notes(gw, bob) == [] and _notes(gw, cat) == []
        assert not stats(gw, cat, bob.player_id).HasField("note")
        assert not stats(gw, bob, ann.player_id).HasField("note")

        # bad input: clear errors, nothing changed
        before = _notes(gw, ann)
        cases = [
            ("nobody-here", "hi", S.NOT_FOUND, "PLAYER_NOT_FOUND"),
            (ann.player_id, "me", S.INVALID_ARGUMENT, notes.NOTE_ABOUT_SELF),
            (bob.player_id, "x" * 1001, S.INVALID_ARGUMENT, notes.NOTE_TOO_LONG),
            (bob.player_id, "   ", S.INVALID_ARGUMENT, notes.NOTE_EMPTY),
            (bob.player_id, "two\nlines", S.INVALID_ARGUMENT, ""),
            (bob.player_id, "", S.INVALID_ARGUMENT, ""),
        ]
        for about, text, status, code in cases:
            error = refused(
                gw.SetPlayerNote,
                g.SetPlayerNoteRequest(player_id=about, text=text, idempotency_key=f"bad{about}"),
                metadata=ann.meta,
            )
            assert error.code() == status, (about, text, error.details())
            if code:
                assert code_of(error) == code, error.details()
        gone = refused(
            gw.DeletePlayerNote,
            g.DeletePlayerNoteRequest(player_id="nobody-here", idempotency_key="d0"),
            metadata=ann.meta,
        )
        assert gone.code() == S.NOT_FOUND
        assert _notes(gw, ann) == before

        # edit, delete (twice: a retry), list in pages
        gw.SetPlayerNote(
            g.SetPlayerNoteRequest(
                player_id=bob.player_id, text="folds to 3-bets", idempotency_key="n3"
            ),
            metadata=ann.meta,
            timeout=30,
        )
        assert dict(_notes(gw, ann))[bob.player_id] == "folds to 3-bets"
        for _ in range(2):
            gw.DeletePlayerNote(
                g.DeletePlayerNoteRequest(player_id=bob.player_id, idempotency_key="d1"),
                metadata=ann.meta,
                timeout=30,
            )
        assert _notes(gw, ann) == [(cat.player_id, "tight")]
        page = gw.ListPlayerNotes(
            g.ListPlayerNotesRequest(page_size=1), metadata=ann.meta, timeout=30
        )
        assert len(page.notes) == 1 and page.next_page_token == ""
