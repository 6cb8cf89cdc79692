"""The services the fuzzer calls (``TARGETS``): for each, how to start it (its environment from
the servers and services it needs), the identity it is called with, a normal call that must
still work after the fuzzing (it returns values the fuzzed requests may reuse: ids, and under
:data:`METADATA` a session token's metadata), and the statuses that are fine for it."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import grpc
from google.protobuf.descriptor import ServiceDescriptor
from holdem.ai.v1 import ai_pb2, ai_pb2_grpc
from holdem.common.v1 import common_pb2
from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from holdem.evaluator.v1 import evaluator_pb2, evaluator_pb2_grpc
from holdem.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from holdem.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from holdem.table.v1 import table_pb2, table_pb2_grpc
from holdem.tournament.v1 import tournament_pb2, tournament_pb2_grpc

from tests.fuzz.strategies import Known

#: Seconds a normal call (and a fuzzed one) may take.
CALL_TIMEOUT = 10.0
_SERIAL = itertools.count()

Infra = Mapping[str, str]  # "nats" / "redis" -> URL, "lobby" -> host:port


Metadata = tuple[tuple[str, str], ...]
#: Key of ``Known`` under which a normal call may return metadata for the fuzzed calls.
METADATA = "__metadata__"


@dataclass(frozen=True)
class Target:
    """One service to fuzz: how to start it, a normal call that must work after the fuzzing (it
    returns values for ``Known``: ids of things it created, and under :data:`METADATA` the
    metadata fuzzed calls carry, e.g. a session token), and statuses that are fine for it."""

    service: ServiceDescriptor
    env: Callable[[Infra], dict[str, str]]
    normal_call: Callable[[grpc.Channel], Known]
    needs_lobby: bool = False
    needs_table: bool = False
    needs_tournament: bool = False
    ok_codes: frozenset[grpc.StatusCode] = field(default_factory=frozenset)
    # The service identity the fuzzer calls with (libs.platform.callers: who may call what),
    # and the methods only another identity reaches the handler of.
    identity: str = "tools"
    method_identities: Mapping[str, str] = field(default_factory=dict)


def fresh(prefix: str) -> str:
    return f"{prefix}{next(_SERIAL)}-{uuid.uuid4().hex[:8]}"


# ---- normal calls: what each service must still do after being fuzzed ---------------------------


def dealer_call(channel: grpc.Channel) -> Known:
    stub = dealer_pb2_grpc.DealerServiceStub(channel)
    table = fresh("fuzz-")
    started = stub.StartDeck(
        dealer_pb2.StartDeckRequest(table_id=table, hand_id="1", idempotency_key="k"),
        timeout=CALL_TIMEOUT,
    )
    dealt = stub.DealCards(
        dealer_pb2.DealCardsRequest(deck_id=started.deck_id, indexes=[0, 6]), timeout=CALL_TIMEOUT
    )
    assert len(dealt.cards) == 2
    return {"deck_id": [started.deck_id], "table_id": [table], "hand_id": ["1"]}


def card(face: str) -> common_pb2.Card:
    rank = "23456789TJQKA".index(face[0]) + 2
    return common_pb2.Card(rank=rank, suit="cdhs".index(face[1]) + 1)  # type: ignore[arg-type]


def hands(*faces: str) -> list[list[common_pb2.Card]]:
    return [[card(f[i : i + 2]) for i in range(0, len(f), 2)] for f in faces]


# Well-formed pieces for the evaluator, from disjoint parts of the deck (boards: T-A of spades
# and hearts; hold'em pairs: 2-7 of clubs and diamonds; Omaha hands: 2-9 of hearts and spades),
# so that a request drawn from them is often a valid deal.
EVALUATOR_KNOWN: Known = {
    "board": hands("TsJsQsKsAs", "ThJhQhKhAh", "TsJhQs", "ThJsQhKs"),
    "ResolveShowdownRequest.board": hands("TsJsQsKsAs", "ThJhQhKhAh", "TsJhQsKhAs"),
    "hole_cards": hands("2c2d", "3c3d", "4c4d", "5c5d", "6c6d", "7c7d")
    + hands("2h2s8h8s", "3h3s9h9s", "4h4s6h6s", "5h5s7h7s"),
    "ResolveShowdownRequest.contenders": [
        [
            evaluator_pb2.Contender(seat=seat, hole_cards=hole)
            for seat, hole in enumerate(hands(*holes))
        ]
        for holes in (("2c2d", "3c3d"), ("4c4d", "5c5d", "6c6d"), ("2h2s8h8s", "3h3s9h9s"))
    ],
    "seat": [0, 1],
    "eligible_seats": [[0, 1], [0], [1]],
    "odd_chip_order": [[0, 1], [1, 0]],
}


def evaluator_call(channel: grpc.Channel) -> Known:
    stub = evaluator_pb2_grpc.EvaluatorServiceStub(channel)
    royal = evaluator_pb2.Holding(hole_cards=hands("AhKh")[0], board=hands("QhJhTh")[0])
    reply = stub.EvaluateBatch(
        evaluator_pb2.EvaluateBatchRequest(variant=common_pb2.VARIANT_HOLDEM, holdings=[royal]),
        timeout=CALL_TIMEOUT,
    )
    assert reply.values[0].high.category == evaluator_pb2.HAND_CATEGORY_STRAIGHT_FLUSH
    return EVALUATOR_KNOWN


def ai_call(channel: grpc.Channel) -> Known:
    from libs.ai import Level
    from libs.aiproto.requests import decide_request
    from libs.poker import BettingStructure, Variant
    from tests.ai.spots import Hand

    stub = ai_pb2_grpc.AiServiceStub(channel)
    hand = Hand(Variant.HOLDEM, BettingStructure.NO_LIMIT, ["AsAh", "7c2d"])
    request = decide_request(hand.view(), Level.EASY, 7, 50)
    reply = stub.Decide(request, timeout=CALL_TIMEOUT)
    assert reply.action != common_pb2.ACTION_TYPE_UNSPECIFIED
    return {}


CONFIG = common_pb2.TableConfig(
    variant=common_pb2.VARIANT_HOLDEM,
    betting_structure=common_pb2.BETTING_STRUCTURE_NO_LIMIT,
    max_seats=6,
    small_blind=1,
    big_blind=2,
)


def table_call(channel: grpc.Channel) -> Known:
    stub = table_pb2_grpc.TableServiceStub(channel)
    table = fresh("fuzz-")
    stub.SubmitCommand(
        table_pb2.SubmitCommandRequest(
            table_id=table, idempotency_key="open", open_table=table_pb2.OpenTable(config=CONFIG)
        ),
        timeout=CALL_TIMEOUT,
    )
    view = stub.GetTableState(table_pb2.GetTableStateRequest(table_id=table), timeout=CALL_TIMEOUT)
    assert view.view.table_status == common_pb2.TABLE_STATUS_OPEN
    return {"table_id": [table]}


def lobby_call(channel: grpc.Channel) -> Known:
    stub = lobby_pb2_grpc.LobbyServiceStub(channel)
    name = fresh("u")[:32]
    player = stub.RegisterPlayer(
        lobby_pb2.RegisterPlayerRequest(username=name, password="correct horse"),
        timeout=CALL_TIMEOUT,
    ).player
    created = stub.CreateTable(
        lobby_pb2.CreateTableRequest(config=CONFIG, created_by_player_id=player.player_id),
        timeout=CALL_TIMEOUT,
    )
    stub.ListTables(lobby_pb2.ListTablesRequest(), timeout=CALL_TIMEOUT)
    joined = stub.JoinTable(
        lobby_pb2.JoinTableRequest(
            player_id=player.player_id,
            table_id=created.table.table_id,
            buy_in=CONFIG.big_blind * 50,
            idempotency_key=fresh("join-"),
        ),
        timeout=CALL_TIMEOUT,
    )
    assert joined.stack == CONFIG.big_blind * 50
    wallet = stub.GetWallet(
        lobby_pb2.GetWalletRequest(player_id=player.player_id), timeout=CALL_TIMEOUT
    ).wallet
    assert wallet.on_tables == joined.stack
    return {
        "player_id": [player.player_id],
        "created_by_player_id": [player.player_id],
        "table_id": [created.table.table_id],
        "username": [name],
    }


def gateway_call(channel: grpc.Channel) -> Known:
    stub = gateway_pb2_grpc.GatewayServiceStub(channel)
    name = fresh("g")[:32]
    stub.Register(
        gateway_pb2.RegisterRequest(username=name, password="correct horse battery"),
        timeout=CALL_TIMEOUT,
    )
    token = stub.Login(
        gateway_pb2.LoginRequest(username=name, password="correct horse battery"),
        timeout=CALL_TIMEOUT,
    ).token
    auth = (("authorization", f"Bearer {token}"),)
    stub.ListTables(gateway_pb2.ListTablesRequest(), timeout=CALL_TIMEOUT)
    table = stub.CreateTable(
        gateway_pb2.CreateTableRequest(config=CONFIG), metadata=auth, timeout=CALL_TIMEOUT
    ).table
    wallet = stub.GetWallet(gateway_pb2.GetWalletRequest(), metadata=auth, timeout=CALL_TIMEOUT)
    assert wallet.wallet.balance >= 0
    stub.ListTournaments(gateway_pb2.ListTournamentsRequest(), metadata=auth, timeout=CALL_TIMEOUT)
    return {"username": [name], "table_id": [table.table_id], METADATA: [auth]}


def tournament_call(channel: grpc.Channel) -> Known:
    stub = tournament_pb2_grpc.TournamentServiceStub(channel)
    config = tournament_pb2.TournamentConfig(
        name="fuzz",
        kind=tournament_pb2.TOURNAMENT_KIND_SIT_AND_GO,
        max_entrants=6,
        structure=tournament_pb2.BlindStructure(
            name="turbo", unit=tournament_pb2.LEVEL_UNIT_MINUTES
        ),
    )
    tournament_id = fresh("t")
    created = stub.CreateTournament(
        tournament_pb2.CreateTournamentRequest(
            tournament_id=tournament_id, config=config, idempotency_key=tournament_id
        ),
        timeout=CALL_TIMEOUT,
    ).tournament
    assert created.summary.status == "registering"
    got = stub.GetTournament(
        tournament_pb2.GetTournamentRequest(tournament_id=tournament_id), timeout=CALL_TIMEOUT
    )
    assert got.tournament.summary.max_entrants == 6
    stub.ListTournaments(tournament_pb2.ListTournamentsRequest(), timeout=CALL_TIMEOUT)
    return {"tournament_id": [tournament_id]}


def _infra(*names: str) -> Callable[[Infra], dict[str, str]]:
    keys = {
        "nats": "HOLDEM_NATS_URL",
        "redis": "HOLDEM_REDIS_URL",
        "lobby": "HOLDEM_LOBBY_ADDR",
        "table": "HOLDEM_TABLE_ADDR",
        "tournament": "HOLDEM_TOURNAMENT_ADDR",
    }
    return lambda infra: {keys[name]: infra[name] for name in names}


def _table_env(infra: Infra) -> dict[str, str]:
    return {
        **_infra("nats", "redis")(infra),
        "HOLDEM_TABLE_DEALER": "local",
        "HOLDEM_TABLE_EVALUATOR": "local",
        "HOLDEM_TABLE_AI": "local",
    }


TARGETS: Mapping[str, Target] = {
    "dealer": Target(
        dealer_pb2.DESCRIPTOR.services_by_name["DealerService"],
        _infra("redis"),
        dealer_call,
        identity="table",
    ),
    "evaluator": Target(
        evaluator_pb2.DESCRIPTOR.services_by_name["EvaluatorService"],
        # a short equity cap keeps the run short; exact enumerations still run in full
        lambda infra: {"HOLDEM_EVALUATOR_MAX_EQUITY_MS": "100"},
        evaluator_call,
        # its per-caller limit is part of the contract: a fuzzer is one caller
        ok_codes=frozenset({grpc.StatusCode.RESOURCE_EXHAUSTED}),
    ),
    "ai": Target(ai_pb2.DESCRIPTOR.services_by_name["AiService"], lambda infra: {}, ai_call),
    "table": Target(
        table_pb2.DESCRIPTOR.services_by_name["TableService"],
        _table_env,
        table_call,
        # chips reach a table only from the lobby or tools; a player's view only the gateway
        method_identities={"GetPlayerView": "gateway"},
    ),
    "lobby": Target(
        lobby_pb2.DESCRIPTOR.services_by_name["LobbyService"],
        # the gateway fuzzed after it logs in through this lobby from the same peer: the lobby's
        # per-peer login limit is checked by tests/services, not by exhausting it here
        lambda infra: {
            **_infra("nats", "redis", "table")(infra),
            "HOLDEM_LOBBY_LOGIN_FAILURES_PER_PEER": "100000",
        },
        lobby_call,
        needs_table=True,
        # login limits per peer and per username are part of the contract: a fuzzer is one peer
        ok_codes=frozenset({grpc.StatusCode.RESOURCE_EXHAUSTED}),
    ),
    "tournament": Target(
        tournament_pb2.DESCRIPTOR.services_by_name["TournamentService"],
        _infra("nats", "redis", "lobby", "table"),
        tournament_call,
        needs_lobby=True,
        needs_table=True,
    ),
    "gateway": Target(
        gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"],
        _infra("nats", "redis", "lobby", "table", "tournament"),
        gateway_call,
        needs_lobby=True,
        needs_table=True,
        needs_tournament=True,  # its tournament calls answer, not UNAVAILABLE
        # its per-player and per-peer rate limits are part of the contract: a fuzzer is one caller
        ok_codes=frozenset({grpc.StatusCode.RESOURCE_EXHAUSTED}),
    ),
}
