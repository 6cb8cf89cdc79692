"""The gateway names a view's seats: a seat the table named (the lobby seated the player under
that name) costs no call; only a seat without a name is asked of the lobby, once per player."""

from __future__ import annotations

import asyncio
from typing import Any, cast

from holdem.common.v1 import common_pb2
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc

from services.gateway.names import DisplayNames


class CountingLobby:
    """GetPlayer of a lobby that knows every player as "Name of <id>", counting its calls."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def GetPlayer(
        self, request: lobby_pb2.GetPlayerRequest, **_: Any
    ) -> lobby_pb2.GetPlayerResponse:
        self.asked.append(request.player_id)
        response = lobby_pb2.GetPlayerResponse()
        response.player.player_id = request.player_id
        response.player.display_name = f"Name of {request.player_id}"
        return response


def _view(*seats: tuple[str, str]) -> common_pb2.PlayerView:
    view = common_pb2.PlayerView(table_id="t")
    for number, (player, name) in enumerate(seats):
        view.seats.add(seat=number, player_id=player, display_name=name)
    return view


def test_only_the_seats_the_table_did_not_name_are_asked_of_the_lobby() -> None:
    lobby = CountingLobby()
    names = DisplayNames(cast("lobby_pb2_grpc.LobbyServiceAsyncStub", lobby), rpc_timeout=1.0)

    async def main() -> None:
        first = _view(("ann", "Ann"), ("bob", "Bob"), ("tool", ""))
        await names.name_seats(first)
        assert [s.display_name for s in first.seats] == ["Ann", "Bob", "Name of tool"]
        assert lobby.asked == ["tool"]
        # the next views: nothing asked again
        again = _view(("ann", "Ann"), ("bob", "Bob"), ("tool", ""))
        await names.name_seats(again)
        assert [s.display_name for s in again.seats] == ["Ann", "Bob", "Name of tool"]
        assert lobby.asked == ["tool"]

    asyncio.run(main())


def test_a_full_table_of_named_seats_asks_nothing() -> None:
    lobby = CountingLobby()
    names = DisplayNames(cast("lobby_pb2_grpc.LobbyServiceAsyncStub", lobby), rpc_timeout=1.0)
    view = _view(*((f"p{i}", f"Player {i}") for i in range(6)))
    asyncio.run(names.name_seats(view))
    assert lobby.asked == []
    assert [s.display_name for s in view.seats] == [f"Player {i}" for i in range(6)]
