"""The terminal client's seat list names every seat apart: a name longer than its column keeps
its start and its end ("Normal AI 1" and "Normal AI 2" were both shown as "Normal AI"), and an
AI's mark is never cut off."""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb

from libs.tui.model import NAME_WIDTH, TableModel, fit


def test_long_names_stay_apart_and_keep_the_ai_mark() -> None:
    view = pb.PlayerView(table_id="t")  # a spectator
    names = [
        "Normal AI 1",
        "Normal AI 2",
        "Hard AI 1",
        "Alexander the Great",
        "Alexander the Small",
    ]
    for seat, name in enumerate(names):
        view.seats.add(
            seat=seat, player_id=f"p{seat}", display_name=name, stack=200, is_bot=seat < 3
        )
    model = TableModel("t")
    model.set_view(view)
    shown = [line[7 : 7 + NAME_WIDTH] for line in model.seat_lines()]
    assert shown == ["Normal… 1*", "Normal… 2*", "Hard AI 1*", "Alexand…at", "Alexand…ll"]
    assert len(set(shown)) == len(shown)
    assert fit("Ann", NAME_WIDTH) == "Ann" and fit("x" * 32, 10) == "x" * 7 + "…xx"
