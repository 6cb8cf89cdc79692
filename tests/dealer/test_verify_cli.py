"""``holdem verify``: a hand dealt through the real dealer verifies; any tampering fails loudly."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from holdem.dealer.v1 import dealer_pb2, dealer_pb2_grpc

from libs.cli.main import main
from libs.fairdeck import commitment, deck_from_seed, new_seed
from libs.fairdeck.audit import Reveal
from libs.fairdeck.histories import json_history, phh_history, verify_text
from libs.poker.cards import DECK
from libs.poker.commands import Call, Check, DealBoard, DealHoleCards, Show
from libs.poker.config import BettingStructure, HandConfig, Variant, position_blinds
from libs.poker.dealing import DealLayout
from libs.poker.engine import start_hand, step
from libs.poker.events import Event
from libs.poker.evolve import replay
from libs.poker.legal import legal_actions
from libs.poker.phh import replay_text
from libs.poker.state import Phase
from services.dealer.server import card_from_proto

Stub = dealer_pb2_grpc.DealerServiceStub


def play_hand(dealer: Stub, players: int = 3) -> tuple[list[Event], Reveal]:
    """A whole hold'em hand (everyone calls and checks to showdown), every card from the dealer."""
    table, hand_id = f"table-{uuid.uuid4().hex[:8]}", "hand-1"
    started = dealer.StartDeck(
        dealer_pb2.StartDeckRequest(table_id=table, hand_id=hand_id, idempotency_key="start"),
        timeout=5,
    )

    def deal(indexes: tuple[int, ...]) -> tuple[int, ...]:
        request = dealer_pb2.DealCardsRequest(deck_id=started.deck_id, indexes=indexes)
        return tuple(card_from_proto(c) for c in dealer.DealCards(request, timeout=5).cards)

    config = HandConfig(Variant.HOLDEM, BettingStructure.NO_LIMIT, position_blinds(players, 1, 2))
    layout = DealLayout(players, config.variant.hole_card_count)
    events = start_hand(config, (200,) * players, hand_id)
    state = replay(events)
    while state.phase is not Phase.COMPLETE:
        if state.phase is Phase.DEALING_HOLE:
            for p in range(players):
                cards = tuple(DECK[c] for c in deal(layout.hole(p)))
                state, new = step(state, DealHoleCards(p, cards))
                events += new
            continue
        if state.phase is Phase.DEALING_BOARD:
            street = state.street + 1
            (burn,) = deal((layout.burn(street),))
            board = tuple(DECK[c] for c in deal(layout.board(street)))
            command: object = DealBoard(board, DECK[burn])
        elif state.phase is Phase.SHOWDOWN:
            command = Show(state.showdown_queue[0])
        else:
            legal = legal_actions(state)
            assert legal is not None
            command = Call(legal.player) if legal.can_call else Check(legal.player)
        state, new = step(state, command)  # type: ignore[arg-type]
        events += new
    revealed = dealer.RevealSeed(dealer_pb2.RevealSeedRequest(deck_id=started.deck_id), timeout=5)
    return events, Reveal(revealed.seed, revealed.commitment, revealed.shuffle_algorithm)


@pytest.fixture(scope="module")
def dealt(dealer: Stub) -> tuple[list[Event], Reveal]:
    return play_hand(dealer)


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["verify", str(path)])
    return status, capsys.readouterr().out


def replace_card(text: str, line_pattern: str) -> str:
    """``text`` with the first card of the first line matching ``line_pattern`` replaced by a card
    that appears nowhere in it."""
    used = set(re.findall(r"[2-9TJQKA][cdhs]", text))
    spare = next(str(c) for c in DECK if str(c) not in used)
    match = re.search(line_pattern, text)
    assert match is not None, line_pattern
    start = match.end()
    return text[:start] + spare + text[start + 2 :]


@pytest.mark.integration
class TestDealtThroughTheDealer:
    def test_an_honest_phh_history_verifies_ok_and_replays(
        self, dealt: tuple[list[Event], Reveal], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        events, reveal = dealt
        text = phh_history(events, reveal)
        assert f'_seed = "{reveal.seed}"' in text and "_burns = [" in text
        assert replay_text(text).status == "matched"
        path = tmp_path / "hand.phh"
        path.write_text(text)
        status, out = verify(path, capsys)
        assert status == 0, out
        assert out.startswith(f"OK   {path}: commitment and all 14 dealt cards")

    def test_a_tampered_board_card_fails(
        self, dealt: tuple[list[Event], Reveal], tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        path = tmp_path / "hand.phh"
        path.write_text(replace_card(phh_history(*dealt), r'"d db '))
        status, out = verify(path, capsys)
        assert status == 1
        assert out.startswith(f"FAIL {path}: 1 difference(s)")
        assert "flop (street 1): the history has" in out and "deck positions 7, 8, 9" in out

    def test_swapped_hole_cards_fail_for_both_positions(
        self, dealt: tuple[list[Event], Reveal], capsys: pytest.CaptureFixture[str]
    ) -> None:
        text = phh_history(*dealt)
        first = re.search(r'"d dh p1 (\w+)"', text)
        second = re.search(r'"d dh p2 (\w+)"', text)
        assert first and second
        swapped = text.replace(first.group(0), "@1").replace(second.group(0), "@2")
        swapped = swapped.replace("@1", f'"d dh p1 {second.group(1)}"')
        swapped = swapped.replace("@2", f'"d dh p2 {first.group(1)}"')
        outcome = verify_text(swapped)
        assert not outcome.ok
        assert [f.split(":")[0] for f in outcome.failures] == [
            "position 0 (p1) hole cards",
            "position 1 (p2) hole cards",
        ]

    def test_unknown_hole_cards_are_skipped(self, dealt: tuple[list[Event], Reveal]) -> None:
        text = re.sub(r'"d dh p3 \w+"', '"d dh p3 ????"', phh_history(*dealt))
        outcome = verify_text(text)
        assert outcome.ok and outcome.cards == 12

    def test_a_tampered_burn_fails(self, dealt: tuple[list[Event], Reveal]) -> None:
        outcome = verify_text(replace_card(phh_history(*dealt), r"_burns = \[\""))
        assert [f.split(":")[0] for f in outcome.failures] == ["burn before the flop"]

    def test_a_seed_that_does_not_match_the_commitment_fails(
        self, dealt: tuple[list[Event], Reveal]
    ) -> None:
        events, reveal = dealt
        forged = Reveal(new_seed().hex(), reveal.commitment, reveal.algorithm)
        outcome = verify_text(phh_history(events, forged))
        assert outcome.failures[0].startswith("commitment mismatch: SHA-256(seed) = ")
        assert len(outcome.failures) > 1  # and (almost surely) the cards differ too

    def test_a_json_history_verifies_and_a_tampered_one_fails(
        self, dealt: tuple[list[Event], Reveal]
    ) -> None:
        text = json_history(*dealt)
        assert verify_text(text).ok, verify_text(text).failures
        doc = json.loads(text)
        used = set(re.findall(r"[2-9TJQKA][cdhs]", text))
        doc["board"]["3"] = [next(str(c) for c in DECK if str(c) not in used)]
        outcome = verify_text(json.dumps(doc))
        assert [f.split(":")[0] for f in outcome.failures] == ["river (street 3)"]


def test_a_hand_without_a_revealed_seed_cannot_be_verified(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "hand.json"
    path.write_text(
        json.dumps({"commitment": "00" * 32, "algorithm": "holdem-deck-v1", "players": 2})
    )
    status, out = verify(path, capsys)
    assert status == 1
    assert "cannot verify: the JSON hand has no 'seed'" in out


def test_an_unknown_algorithm_fails() -> None:
    seed = new_seed()
    doc = {"seed": seed.hex(), "commitment": commitment(seed), "algorithm": "v0", "players": 2}
    assert verify_text(json.dumps(doc)).failures == (
        "unknown shuffle algorithm 'v0' (known: holdem-deck-v1)",
    )


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tmp_path / "nope.phh")]) == 2
    assert "cannot read" in capsys.readouterr().err


def _honest_json(players: int = 2) -> dict[str, object]:
    seed = new_seed()
    deck = deck_from_seed(seed)
    layout = DealLayout(players, 2)

    def faces(positions: tuple[int, ...]) -> list[str]:
        return [str(DECK[deck[i]]) for i in positions]

    return {
        "seed": seed.hex(),
        "commitment": commitment(seed),
        "algorithm": "holdem-deck-v1",
        "players": players,
        "hole_cards": {str(p): faces(layout.hole(p)) for p in range(players)},
        "board": {str(s): faces(layout.board(s)) for s in (1, 2, 3)},
        "burns": {str(s): str(DECK[deck[layout.burn(s)]]) for s in (1, 2, 3)},
    }


def test_the_order_within_a_players_hole_cards_is_not_significant() -> None:
    doc = _honest_json()
    holes = doc["hole_cards"]
    assert isinstance(holes, dict)
    holes["1"] = holes["1"][::-1]
    assert verify_text(json.dumps(doc)).ok


def test_a_hand_dealt_from_the_wrong_positions_fails() -> None:
    doc = _honest_json(players=3)
    doc["players"] = 2  # the same cards claimed for a heads-up layout
    outcome = verify_text(json.dumps(doc))
    assert any(f.startswith("position 0 (p1) hole cards") for f in outcome.failures)
    assert any("hole cards for position 2, but the hand has 2" in f for f in outcome.failures)
