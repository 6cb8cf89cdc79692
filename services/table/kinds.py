"""Which table a chip-moving service's command may reach (docs/tournaments.md, "Who may send a
tournament table what"): a table's chips are either wallets' (a cash table: the lobby's sagas buy
in, top up, cash out and close) or a tournament's (a tournament table: its director seats, moves,
removes, releases hands and closes). ``authorize_table_command`` adds that to the caller check of
libs.platform.callers: the tournament service's commands reach only tournament tables, the
lobby's only cash tables (``TABLE_KIND_OF_CALLER``); tools reach both. A refusal changes nothing.
"""

from __future__ import annotations

from holdem.table.v1 import table_pb2

from libs.platform.callers import TABLE_KIND_OF_CALLER, Caller, authorize_command
from libs.platform.server import Context
from libs.poker.errors import IllegalAction
from libs.table import errors as TE
from services.table.app import TableApp


async def authorize_table_command(
    app: TableApp, context: Context, request: table_pb2.SubmitCommandRequest, which: str
) -> Caller:
    """The caller, if it may send ``which`` to this table: PermissionDenied for a caller that
    may send it to no table, FAILED_PRECONDITION (``NOT_A_TOURNAMENT_TABLE``,
    ``TOURNAMENT_TABLE``) for a table of the other kind."""
    caller = authorize_command(context, which)
    if which == "open_table" and request.open_table.seats:
        authorize_command(context, "seat_player")  # an opening that seats brings chips in
    tournament_caller = TABLE_KIND_OF_CALLER.get(caller.service or "")
    if tournament_caller is None:
        return caller
    if which == "open_table":
        tournament = request.open_table.config.tournament
    else:
        try:
            state = (await app.existing(request.table_id)).state
        except IllegalAction:
            return caller  # never opened: the command's own refusal (TABLE_NOT_FOUND) follows
        if state.config is None:
            return caller
        tournament = state.config.tournament
    if tournament_caller and not tournament:
        raise IllegalAction(
            TE.NOT_A_TOURNAMENT_TABLE,
            f"{which} from the tournament service reaches only a tournament's table; "
            "this is a cash table",
        )
    if tournament and not tournament_caller:
        raise IllegalAction(
            TE.TOURNAMENT_TABLE,
            f"this is a tournament's table: its chips are the tournament's, so {which} "
            "(a buy-in, a top-up, a cash-out or a close paid to wallets) is refused here",
        )
    return caller
