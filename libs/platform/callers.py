"""Who is calling an RPC, and who may: the one place a service asks either question.

A caller is known by its network address (the peer's host, without the port, so a caller opening
more connections is still one caller) and, when it sent a valid signed service token
(:mod:`libs.platform.identity`), by the service it is: the server's identity layer
(``identity_layer`` in libs.platform.layers) verifies the token and binds the name for the call,
and :func:`caller_of` puts it in ``Caller.service``. A :class:`CallerPolicy` such as
:class:`OnlyServices` restricts methods to named services; servicers ask through
:func:`authorize`. A call without a valid token has ``service`` None and is refused every
restricted method.

The gateway calls the lobby on behalf of players: it forwards the player's own address in
``x-holdem-client-address`` (:data:`CLIENT_ADDRESS_HEADER`), which :func:`client_address`
believes only when the caller is the authenticated gateway.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

from libs.errors import PermissionDenied
from libs.platform.identity import IDENTITIES

CALLER_NOT_ALLOWED = "CALLER_NOT_ALLOWED"
#: Set by the gateway on its calls: the address of the player it calls for.
CLIENT_ADDRESS_HEADER = "x-holdem-client-address"
MAX_CLIENT_ADDRESS_CHARS = 100

#: The verified service identity of the call being served (bound by the server's identity
#: layer around the handler; None when the caller sent no valid token).
CALLER_SERVICE: ContextVar[str | None] = ContextVar("holdem_caller_service", default=None)


@dataclass(frozen=True, slots=True)
class Caller:
    """``address``: the peer without its port ("ipv4:127.0.0.1", "ipv6:[2001:db8::]/64" (a
    /64: ``peer_address``), "unix:/path"); ``service``: the authenticated service calling,
    None for a caller without a valid token."""

    address: str
    service: str | None = None


def peer_address(peer: str) -> str:
    """``ipv4:10.0.0.7:51234`` -> ``ipv4:10.0.0.7``; ``ipv6:[::1]:5`` -> ``ipv6:[::1]``; other
    forms (``unix:...``) are kept whole. An IPv6 peer is its /64
    (``ipv6:[2001:db8:1:2::]/64``): one client is given a /64 (2**64 addresses), so every
    limit counted per address (calls, guests, accounts, failed logins) would be no limit at all
    per single address; an IPv4 client of a dual-stack listener (``::ffff:a.b.c.d``) is its
    IPv4 address."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6") and ":" in rest:
        host, _, port = rest.rpartition(":")
        if port.isdigit():
            if kind == "ipv6":
                return _ipv6_caller(host)
            return f"{kind}:{host}"
    return peer


def _ipv6_caller(host: str) -> str:
    try:
        ip = ipaddress.IPv6Address(host.strip("[]").partition("%")[0])
    except ValueError:
        return f"ipv6:{host}"
    if ip.ipv4_mapped is not None:
        return f"ipv4:{ip.ipv4_mapped}"
    if ip.is_loopback:
        return f"ipv6:[{ip}]"
    return f"ipv6:[{ipaddress.IPv6Network((ip, 64), strict=False).network_address}]/64"


def caller_of(context: Any) -> Caller:
    """The caller of the call behind ``context`` (a ``grpc.aio.ServicerContext``)."""
    return Caller(
        address=peer_address(str(context.peer() or "unknown")), service=CALLER_SERVICE.get()
    )


def client_address(context: Any) -> str:
    """Whom a call is really for: the address the authenticated gateway forwards in
    ``x-holdem-client-address``, else (any other caller, or no header) the caller's own."""
    caller = caller_of(context)
    if caller.service == "gateway":
        for key, value in context.invocation_metadata() or ():
            if key == CLIENT_ADDRESS_HEADER and isinstance(value, str) and value:
                return "client:" + value[:MAX_CLIENT_ADDRESS_CHARS]
    return caller.address


class CallerPolicy(Protocol):
    def allows(self, caller: Caller, rpc: str) -> bool:
        """May ``caller`` call ``rpc`` (the method's name, e.g. "DealCards")?"""
        ...


class AnyCaller:
    """Everyone may call everything (the evaluator: pure compute, capped per call)."""

    def allows(self, caller: Caller, rpc: str) -> bool:
        return True


@dataclass(frozen=True)
class OnlyServices:
    """Methods restricted to authenticated services (``{"RevealSeed": {"table"}}``); methods not
    listed are open to every caller."""

    allowed: Mapping[str, Collection[str]]

    def allows(self, caller: Caller, rpc: str) -> bool:
        services = self.allowed.get(rpc)
        return services is None or (caller.service is not None and caller.service in services)


@dataclass(frozen=True)
class EveryMethod:
    """Every method restricted to the authenticated ``services``; ``only``: methods open to
    other services instead (and not to ``services``, unless listed there too)."""

    services: Collection[str]
    only: Mapping[str, Collection[str]] = field(default_factory=dict)

    def allows(self, caller: Caller, rpc: str) -> bool:
        allowed = self.only.get(rpc, self.services)
        return caller.service is not None and caller.service in allowed


# ---- who may call what: the one place ----------------------------------------------------------
# ``tools`` is the identity of the CLI, tests and benchmarks (libs.devstack.identity).

#: Decks, cards and seeds go to the table service only: nobody else can have a card (or the seed
#: that yields every card) before the table deals or reveals it.
DEALER_CALLERS = OnlyServices(
    {"StartDeck": {"table"}, "DealCards": {"table"}, "RevealSeed": {"table"}}
)
_CHIPS = frozenset({"lobby", "tools"})
_TOURNAMENT_CHIPS = frozenset({"lobby", "tournament", "tools"})
_PLAYERS = frozenset({"gateway", "tools"})
#: Table commands (the ``command`` field of SubmitCommandRequest) by who may send them. Chips
#: come to and leave a table only through the lobby's sagas (open, seat with a buy-in, top up,
#: leave, close), so no other service can put chips on a table or take them off; a player's
#: own seat settings and showdown choices come through the gateway, for the authenticated
#: player; starting a hand by hand is for tools (tables start their hands themselves). The
#: tournament service (its director) opens its tables, seats, moves and removes its players with
#: tournament chips, and releases each hand.
TABLE_COMMAND_CALLERS: Mapping[str, frozenset[str]] = {
    "open_table": _TOURNAMENT_CHIPS,
    "seat_player": _TOURNAMENT_CHIPS,
    "add_chips": _TOURNAMENT_CHIPS,
    "leave_seat": _TOURNAMENT_CHIPS,
    "close_table": _TOURNAMENT_CHIPS,
    "release_hand": frozenset({"tournament", "tools"}),
    "sit_out": _PLAYERS,
    "sit_in": _PLAYERS,
    "show_or_muck": _PLAYERS,
    "set_auto_muck": _PLAYERS,
    "change_seat": _PLAYERS,
    "set_run_it_times": _PLAYERS,
    "answer_run_it": _PLAYERS,
    "rabbit_hunt": _PLAYERS,
    "set_straddle": _PLAYERS,
    "vote_bomb_pot": _PLAYERS,
    "set_seat_options": _PLAYERS,
    "answer_blind": _PLAYERS,
    "mark_connection": _PLAYERS,  # the gateway sees who is connected
    "start_hand": frozenset({"tools"}),
}
#: The services whose table commands reach one kind of table only (services/table/kinds.py):
#: True, tournament tables (the tournament's chips); False, cash tables (wallets' chips). Tools
#: (the CLI, tests) and the players' commands through the gateway reach both.
TABLE_KIND_OF_CALLER: Mapping[str, bool] = {"tournament": True, "lobby": False}
#: Per-viewer views (hole cards of the viewer) only to the gateway, which asks on behalf of the
#: authenticated player; hand histories (read from the table's private stream, projected for one
#: player) to the gateway and tools. Commands only from a service that has a reason to send
#: them (which command from whom: :data:`TABLE_COMMAND_CALLERS`); actions from the gateway (the
#: players) and tools. Public reads (GetTableState) stay open: they show nothing hidden.
TABLE_CALLERS = OnlyServices(
    {
        "GetPlayerView": {"gateway"},
        "GetHandHistory": {"gateway", "tools"},
        # whoever may send one of the commands (each checked by the handler)
        "SubmitCommand": frozenset().union(*TABLE_COMMAND_CALLERS.values()),
        "SubmitAction": {"gateway", "tools"},
    }
)
#: Bots' decisions are asked by the table (and the CLI's arena, as tools); a bot's policy (its
#: action with every holding: analysis, exploitability) only by tools, never by a table.
AI_CALLERS = OnlyServices({"Decide": {"table", "tools"}, "Policy": {"tools"}})
#: Accounts, wallets and seats: through the gateway (players) or tools (house, audit, tests).
#: Tournament money (buy-ins, prizes, refunds) only from the tournament service (and tools).
LOBBY_CALLERS = EveryMethod(
    frozenset({"gateway", "tools"}),
    only={
        "PayTournament": frozenset({"tournament", "tools"}),
        "CreditTournament": frozenset({"tournament", "tools"}),
    },
)
#: Tournaments: any authenticated service (and tools) may create one; players register,
#: unregister, rebuy and buy the add-on through the gateway (or tools); only the tournament
#: service itself and tools cancel one. Reading them (GetTournament, ListTournaments) shows
#: nothing hidden: open.
TOURNAMENT_CALLERS = OnlyServices(
    {
        "CreateTournament": frozenset(IDENTITIES),
        "Register": frozenset({"gateway", "tools"}),
        "Unregister": frozenset({"gateway", "tools"}),
        "Rebuy": frozenset({"gateway", "tools"}),
        "AddOn": frozenset({"gateway", "tools"}),
        "Cancel": frozenset({"tournament", "tools"}),
    }
)
#: The evaluator is pure compute (capped per call): open to every caller.
EVALUATOR_CALLERS = AnyCaller()


def authorize(policy: CallerPolicy, context: Any, rpc: str) -> Caller:
    """The caller, or PermissionDenied when ``policy`` does not let it call ``rpc``."""
    caller = caller_of(context)
    if not policy.allows(caller, rpc):
        raise PermissionDenied(CALLER_NOT_ALLOWED, f"{rpc} is not open to this caller")
    return caller


def authorize_command(context: Any, command: str) -> Caller:
    """The caller, or PermissionDenied unless it may send table command ``command``
    (:data:`TABLE_COMMAND_CALLERS`; a command not listed there is open to nobody)."""
    caller = caller_of(context)
    allowed = TABLE_COMMAND_CALLERS.get(command, frozenset())
    if caller.service is None or caller.service not in allowed:
        who = "no valid service token" if caller.service is None else f"identity {caller.service}"
        raise PermissionDenied(
            CALLER_NOT_ALLOWED,
            f"the table command {command[:32]} is only for other holdem services; this caller "
            f"has {who}",
        )
    return caller
