"""The gateway's calls the table answers for the caller's own seat: actions (Act), showing or
mucking at showdown, sitting out and in, seat settings (auto-muck; the blind settings and the
answer when asked to post a blind), run it twice (the standing answer and the answer when asked),
the rabbit hunt, the straddle setting and the bomb-pot vote. One table command each, for the
caller's player id; the client's idempotency key scoped by the player and the kind of call
(``scoped_key``: the table looks keys up alone, so two players' keys must never meet). A table
that says the caller has no seat there is PERMISSION_DENIED (``NOT_YOUR_SEAT``)."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Awaitable
from typing import Any, TypeVar

import grpc
from holdem.common.v1 import common_pb2
from holdem.gateway.v1 import gateway_pb2
from holdem.table.v1 import table_pb2

from libs.errors import PermissionDenied
from libs.platform.errors import error_code_of
from libs.platform.server import Context
from libs.table.errors import NOT_SEATED
from services.gateway.base import GatewayBase

T = TypeVar("T")

NOT_YOUR_SEAT = "NOT_YOUR_SEAT"
#: Table codes that, for a call about the caller's own seat, mean "you have no seat here".
_NOT_SEATED_CODES = frozenset({NOT_SEATED})


def scoped_key(kind: str, player_id: str, key: str) -> str:
    """The table's idempotency key for a client's key: per player and per kind of call (two
    players' keys never meet; a key fits the table's KEY rule whatever the client sent)."""
    if not key:
        key = uuid.uuid4().hex
    digest = hashlib.sha256(f"{player_id}\x00{key}".encode()).hexdigest()[:40]
    return f"gw-{kind}-{digest}"


class TableCommands(GatewayBase):
    async def _seat_call(self, call: Awaitable[T]) -> T:
        """A table call about the caller's own seat: no seat there is PERMISSION_DENIED."""
        try:
            return await call
        except grpc.aio.AioRpcError as exc:
            if error_code_of(exc) in _NOT_SEATED_CODES:
                raise PermissionDenied(
                    NOT_YOUR_SEAT, "you have no seat at this table: act only for your own seat"
                ) from None
            raise

    async def _command(
        self, context: Context, table_id: str, kind: str, key: str, **command: Any
    ) -> table_pb2.SubmitCommandResponse:
        claims = await self.admission.caller(context)
        await self.presence.called(claims.player_id, table_id)
        field, message = next(iter(command.items()))
        message.player_id = claims.player_id
        request = table_pb2.SubmitCommandRequest(
            table_id=table_id, idempotency_key=scoped_key(kind, claims.player_id, key)
        )
        getattr(request, field).CopyFrom(message)
        return await self._seat_call(
            self.table.SubmitCommand(request, timeout=self._timeout(context), metadata=self._meta())
        )

    async def SitOut(
        self, request: gateway_pb2.SitOutRequest, context: Context
    ) -> gateway_pb2.SitOutResponse:
        done = await self._command(
            context, request.table_id, "out", request.idempotency_key, sit_out=table_pb2.SitOut()
        )
        return gateway_pb2.SitOutResponse(sequence=done.sequence)

    async def SitIn(
        self, request: gateway_pb2.SitInRequest, context: Context
    ) -> gateway_pb2.SitInResponse:
        done = await self._command(
            context, request.table_id, "in", request.idempotency_key, sit_in=table_pb2.SitIn()
        )
        return gateway_pb2.SitInResponse(sequence=done.sequence)

    async def UpdateSeatSettings(
        self, request: gateway_pb2.UpdateSeatSettingsRequest, context: Context
    ) -> gateway_pb2.UpdateSeatSettingsResponse:
        done = await self._command(
            context,
            request.table_id,
            "set",
            request.idempotency_key,
            set_auto_muck=table_pb2.SetAutoMuck(auto_muck=request.auto_muck),
        )
        return gateway_pb2.UpdateSeatSettingsResponse(sequence=done.sequence)

    async def SetRunItTimes(
        self, request: gateway_pb2.RunItSetTimesRequest, context: Context
    ) -> gateway_pb2.RunItSetTimesResponse:
        done = await self._command(
            context,
            request.table_id,
            "runs",
            request.idempotency_key,
            set_run_it_times=table_pb2.SetRunItTimes(times=request.times),
        )
        return gateway_pb2.RunItSetTimesResponse(sequence=done.sequence)

    async def AnswerRunIt(
        self, request: gateway_pb2.RunItAnswerRequest, context: Context
    ) -> gateway_pb2.RunItAnswerResponse:
        done = await self._command(
            context,
            request.table_id,
            "answer",
            request.idempotency_key,
            answer_run_it=table_pb2.AnswerRunIt(times=request.times, hand_id=request.hand_id),
        )
        view = await self._viewed(context, request.table_id, done.view)
        return gateway_pb2.RunItAnswerResponse(sequence=done.sequence, view=view)

    async def RabbitHunt(
        self, request: gateway_pb2.RabbitHuntRequest, context: Context
    ) -> gateway_pb2.RabbitHuntResponse:
        done = await self._command(
            context,
            request.table_id,
            "rabbit",
            request.idempotency_key,
            rabbit_hunt=table_pb2.RabbitHunt(hand_id=request.hand_id),
        )
        return gateway_pb2.RabbitHuntResponse(sequence=done.sequence, rabbit=done.rabbit)

    async def SetStraddle(
        self, request: gateway_pb2.StraddleSetRequest, context: Context
    ) -> gateway_pb2.StraddleSetResponse:
        done = await self._command(
            context,
            request.table_id,
            "straddle",
            request.idempotency_key,
            set_straddle=table_pb2.SetStraddle(straddle=request.straddle),
        )
        return gateway_pb2.StraddleSetResponse(sequence=done.sequence)

    async def VoteBombPot(
        self, request: gateway_pb2.BombPotVoteRequest, context: Context
    ) -> gateway_pb2.BombPotVoteResponse:
        done = await self._command(
            context,
            request.table_id,
            "bomb",
            request.idempotency_key,
            vote_bomb_pot=table_pb2.VoteBombPot(agree=request.agree),
        )
        return gateway_pb2.BombPotVoteResponse(sequence=done.sequence)

    async def SetSeatOptions(
        self, request: gateway_pb2.SeatOptionsRequest, context: Context
    ) -> gateway_pb2.SeatOptionsResponse:
        options = table_pb2.SetSeatOptions()
        for name in ("sit_out_next_big_blind", "wait_for_big_blind", "auto_post_blinds"):
            if request.HasField(name):
                setattr(options, name, getattr(request, name))
        done = await self._command(
            context, request.table_id, "opts", request.idempotency_key, set_seat_options=options
        )
        return gateway_pb2.SeatOptionsResponse(sequence=done.sequence)

    async def AnswerBlind(
        self, request: gateway_pb2.BlindAnswerRequest, context: Context
    ) -> gateway_pb2.BlindAnswerResponse:
        done = await self._command(
            context,
            request.table_id,
            "blind",
            request.idempotency_key,
            answer_blind=table_pb2.AnswerBlind(post=request.post),
        )
        return gateway_pb2.BlindAnswerResponse(sequence=done.sequence)

    async def _viewed(
        self, context: Context, table_id: str, view: common_pb2.PlayerView
    ) -> common_pb2.PlayerView:
        """The caller's view a table command answered with (asked for when it sent none),
        with the seats named."""
        if not view.HasField("config"):
            claims = await self.admission.caller(context)
            asked = await self.table.GetPlayerView(
                table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=claims.player_id),
                timeout=self._timeout(context),
                metadata=self._meta(),
            )
            view = asked.view
        await self.names.name_seats(view)
        return view

    async def _show_or_muck(
        self, context: Context, table_id: str, hand_id: str, key: str, show: bool
    ) -> tuple[int, common_pb2.PlayerView]:
        claims = await self.admission.caller(context)
        await self.presence.called(claims.player_id, table_id)
        request = table_pb2.SubmitCommandRequest(
            table_id=table_id,
            idempotency_key=scoped_key("show" if show else "muck", claims.player_id, key),
            show_or_muck=table_pb2.ShowOrMuck(
                player_id=claims.player_id, show=show, hand_id=hand_id
            ),
        )
        timeout = self._timeout(context)
        done = await self._seat_call(
            self.table.SubmitCommand(request, timeout=timeout, metadata=self._meta())
        )
        view = done.view
        if not view.HasField("config"):  # a table service that sends no view: ask for it
            asked = await self.table.GetPlayerView(
                table_pb2.GetPlayerViewRequest(table_id=table_id, player_id=claims.player_id),
                timeout=timeout,
                metadata=self._meta(),
            )
            view = asked.view
        await self.names.name_seats(view)
        return done.sequence, view

    async def Show(
        self, request: gateway_pb2.ShowRequest, context: Context
    ) -> gateway_pb2.ShowResponse:
        sequence, view = await self._show_or_muck(
            context, request.table_id, request.hand_id, request.idempotency_key, True
        )
        return gateway_pb2.ShowResponse(sequence=sequence, view=view)

    async def Muck(
        self, request: gateway_pb2.MuckRequest, context: Context
    ) -> gateway_pb2.MuckResponse:
        sequence, view = await self._show_or_muck(
            context, request.table_id, request.hand_id, request.idempotency_key, False
        )
        return gateway_pb2.MuckResponse(sequence=sequence, view=view)

    async def Act(
        self, request: gateway_pb2.ActRequest, context: Context
    ) -> gateway_pb2.ActResponse:
        claims = await self.admission.caller(context)
        await self.presence.called(claims.player_id, request.table_id)
        response = await self._seat_call(
            self.table.SubmitAction(
                table_pb2.SubmitActionRequest(
                    table_id=request.table_id,
                    hand_id=request.hand_id,
                    player_id=claims.player_id,
                    action=request.action,
                    amount=request.amount,
                    idempotency_key=scoped_key("act", claims.player_id, request.idempotency_key),
                ),
                timeout=self._timeout(context),
                metadata=self._meta(),
            )
        )
        await self.names.name_seats(response.view)
        return gateway_pb2.ActResponse(sequence=response.sequence, view=response.view)

    async def ChangeSeat(
        self, request: gateway_pb2.ChangeSeatRequest, context: Context
    ) -> gateway_pb2.ChangeSeatResponse:
        done = await self._command(
            context,
            request.table_id,
            "move",
            request.idempotency_key,
            change_seat=table_pb2.ChangeSeat(seat=request.seat),
        )
        return gateway_pb2.ChangeSeatResponse(sequence=done.sequence)
