"""libs.fairdeck.audit, without the CLI or a dealer: a hand dealt from its seed by the deck layout
passes, and each kind of difference is named."""

from __future__ import annotations

import dataclasses

from libs.fairdeck import commitment, deck_from_seed, new_seed
from libs.fairdeck.audit import Reveal, check, dealt_from_events
from libs.poker import (
    DECK,
    BettingStructure,
    Call,
    Check,
    DealBoard,
    DealHoleCards,
    Event,
    HandConfig,
    Phase,
    Show,
    StreetDealt,
    Variant,
    legal_actions,
    position_blinds,
    replay,
    start_hand,
    step,
)
from libs.poker.dealing import DealLayout


def _dealt_hand(seed: bytes, players: int = 3) -> list[Event]:
    """A hold'em hand checked down to showdown, every card at its layout position."""
    deck = deck_from_seed(seed)
    layout = DealLayout(players, 2)
    config = HandConfig(Variant.HOLDEM, BettingStructure.NO_LIMIT, position_blinds(players, 1, 2))
    events = start_hand(config, (100,) * players)
    state = replay(events)
    for p in range(players):
        state, new = step(state, DealHoleCards(p, tuple(DECK[deck[i]] for i in layout.hole(p))))
        events += new
    while state.phase is not Phase.COMPLETE:
        if state.phase is Phase.DEALING_BOARD:
            street = state.street + 1
            board = tuple(DECK[deck[i]] for i in layout.board(street))
            state, new = step(state, DealBoard(board, DECK[deck[layout.burn(street)]]))
        elif state.phase is Phase.SHOWDOWN:
            state, new = step(state, Show(state.showdown_queue[0]))
        else:
            legal = legal_actions(state)
            assert legal is not None
            move = Call(legal.player) if legal.can_call else Check(legal.player)
            state, new = step(state, move)
        events += new
    return events


def test_an_honest_hand_has_no_difference() -> None:
    seed = new_seed()
    dealt = dealt_from_events(_dealt_hand(seed), Reveal(seed.hex(), commitment(seed)))
    assert dealt.card_count == 3 * 2 + 5 + 3
    assert check(dealt) == []


def test_a_forged_river_a_wrong_commitment_and_an_unknown_algorithm_are_named() -> None:
    seed = new_seed()
    events = _dealt_hand(seed)
    river = next(i for i, e in enumerate(events) if isinstance(e, StreetDealt) and e.street == 3)
    original = events[river]
    assert isinstance(original, StreetDealt)
    other = next(c for c in DECK if c not in original.cards and c != original.burn)
    events[river] = dataclasses.replace(original, cards=(other,))
    failures = check(dealt_from_events(events, Reveal(seed.hex(), commitment(seed))))
    assert len(failures) == 1 and failures[0].startswith("river (street 3)")

    honest = _dealt_hand(seed)
    wrong = check(dealt_from_events(honest, Reveal(seed.hex(), commitment(new_seed()))))
    assert len(wrong) == 1 and wrong[0].startswith("commitment mismatch")
    unknown = check(dealt_from_events(honest, Reveal(seed.hex(), commitment(seed), "v0")))
    assert unknown == ["unknown shuffle algorithm 'v0' (known: holdem-deck-v1)"]
