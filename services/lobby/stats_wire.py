"""The statistics and notes calls between protobuf and the use cases (player_stats.py)."""

from __future__ import annotations

from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2

from libs.lobby.notes import Note
from libs.stats import ALL_VARIANTS, Counts, ratios
from libs.tableproto.config import VARIANTS
from services.lobby.player_stats import PlayerStats
from services.lobby.wire import timestamp


def stats_to_proto(player_id: str, counts: Counts) -> lobby_pb2.PlayerStats:
    r = ratios(counts)
    answer = lobby_pb2.PlayerStats(
        player_id=player_id,
        hands=counts.hands,
        preflop_chances=counts.preflop_chances,
        vpip_hands=counts.vpip,
        pfr_hands=counts.pfr,
        three_bet_chances=counts.three_bet_chances,
        three_bets=counts.three_bets,
        saw_flop=counts.saw_flop,
        showdowns=counts.showdowns,
        showdowns_won=counts.showdowns_won,
        bets=counts.bets,
        raises=counts.raises,
        calls=counts.calls,
        checks=counts.checks,
        folds=counts.folds,
    )
    for name, value in (
        ("vpip", r.vpip),
        ("pfr", r.pfr),
        ("three_bet", r.three_bet),
        ("went_to_showdown", r.wtsd),
        ("won_at_showdown", r.wsd),
        ("aggression_factor", r.aggression_factor),
        ("aggression_frequency", r.aggression_frequency),
    ):
        if value is not None:
            setattr(answer, name, value)
    return answer


def note_to_proto(player_id: str, note: Note) -> lobby_pb2.PlayerNote:
    return lobby_pb2.PlayerNote(
        player_id=player_id, text=note.text, updated_at=timestamp(note.updated_at)
    )


def _variant(value: common_pb2.Variant.ValueType) -> str:
    if value == common_pb2.VARIANT_UNSPECIFIED:
        return ALL_VARIANTS
    return VARIANTS[value].value


async def get_stats(
    stats: PlayerStats, request: lobby_pb2.GetPlayerStatsRequest
) -> lobby_pb2.GetPlayerStatsResponse:
    subject, counts, note = await stats.stats(
        request.viewer_id, request.player_id, _variant(request.variant), request.table_id
    )
    answer = lobby_pb2.GetPlayerStatsResponse(stats=stats_to_proto(subject, counts))
    if note is not None:
        answer.note.CopyFrom(note_to_proto(subject, note))
    return answer


async def set_note(
    stats: PlayerStats, request: lobby_pb2.SetPlayerNoteRequest
) -> lobby_pb2.SetPlayerNoteResponse:
    note = await stats.set_note(
        request.viewer_id, request.player_id, request.text, request.idempotency_key
    )
    return lobby_pb2.SetPlayerNoteResponse(note=note_to_proto(request.player_id, note))


async def list_notes(
    stats: PlayerStats, request: lobby_pb2.ListPlayerNotesRequest
) -> lobby_pb2.ListPlayerNotesResponse:
    page = await stats.list_notes(request.viewer_id, request.page_size, request.page_token)
    return lobby_pb2.ListPlayerNotesResponse(
        notes=[note_to_proto(p, n) for p, n in page.notes],
        next_page_token=page.next_page_token,
    )
