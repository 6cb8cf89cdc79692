"""The gateway calls the fake gateway (fake_gateway.py) does not model: moderating the chat, private
tables, waiting lists, run it twice, the rabbit hunt, the straddle, bomb pots, the blind
settings, tournaments and notes (tested against the real gateway in tests/gateway). Each answers
UNIMPLEMENTED, as a gateway without them would."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, NoReturn

import grpc

NOT_MODELLED = "not modelled by the fake gateway (tests/gateway tests the real one)"


async def _refuse(context: Any) -> NoReturn:
    await context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_MODELLED)
    raise AssertionError("abort returned")


class Unmodelled:
    async def ModerateChat(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def DecideSeat(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def ListSeatRequests(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def GetWaitlist(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def LeaveWaitlist(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def WatchWaitlist(self, request: Any, context: Any) -> AsyncIterator[Any]:
        await _refuse(context)
        yield None

    async def SetRunItTimes(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def AnswerRunIt(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def RabbitHunt(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def SetStraddle(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def VoteBombPot(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def SetSeatOptions(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def AnswerBlind(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def ListTournaments(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def GetTournament(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def RegisterTournament(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def UnregisterTournament(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def RebuyTournament(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def AddOnTournament(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def WatchTournament(self, request: Any, context: Any) -> AsyncIterator[Any]:
        await _refuse(context)
        yield None  # a stream: refused before its first message

    async def SetPlayerNote(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def DeletePlayerNote(self, request: Any, context: Any) -> Any:
        await _refuse(context)

    async def ListPlayerNotes(self, request: Any, context: Any) -> Any:
        await _refuse(context)
