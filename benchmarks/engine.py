"""Hands per second: our engine against PokerKit 0.7.7, random 6-max no-limit hold'em hands.

Both sides play the same kind of hand with the same random policy: at each decision, 20% fold
(check instead when there is nothing to call), 50% check or call, 30% bet or raise to a uniformly
random legal amount (check or call when raising is not allowed); 100 big blind stacks, blinds 1/2.

- Ours: ``new_hand``, hole cards and board from a seeded random sample of the deck (with burns)
  through ``step``, decisions from ``legal_actions``, every player shows at showdown; pot
  building and the showdown evaluation (``DEFAULT_EVALUATOR``) run inside ``step`` as in
  production.
- PokerKit: ``NoLimitTexasHoldem.create_state`` with every automation (antes, blinds, burning,
  hole and board dealing from its own shuffled deck - we seed ``random`` - showdown, pushing and
  pulling chips), so only the player actions are driven from here.

Throughput is measured on process CPU time (``time.process_time``) so that other load on the
machine counts less; the two engines run interleaved, the median of ``--rounds``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks import Result
from libs.poker import (
    DECK,
    BetOrRaise,
    BettingStructure,
    Call,
    Check,
    DealBoard,
    DealHands,
    Fold,
    HandConfig,
    Phase,
    Show,
    Variant,
    legal_actions,
    new_hand,
    position_blinds,
    showdown_turn,
    step,
)

NAME = "engine"
DESCRIPTION = "hands/s of random 6-max no-limit hold'em hands: our engine vs PokerKit 0.7.7"

PLAYERS = 6
SMALL_BLIND, BIG_BLIND = 1, 2
STACK = 100 * BIG_BLIND
FOLD, CALL, RAISE = 0, 1, 2


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seconds", type=float, default=1.5, help="CPU seconds per engine and round"
    )
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds (median)")
    parser.add_argument("--seed", type=int, default=20240601)


def decision(rng: random.Random, facing_bet: bool, can_raise: bool) -> int:
    """The shared random policy: 20% fold, 50% check/call, 30% bet/raise (when allowed)."""
    r = rng.random()
    if r < 0.2:
        return FOLD if facing_bet else CALL
    if r < 0.7 or not can_raise:
        return CALL
    return RAISE


@dataclass
class Tally:
    hands: int = 0
    actions: int = 0


# --------------------------------------------------------------------------- ours


def ours_hands(count: int, seed: int, tally: Tally) -> None:
    rng = random.Random(seed)
    config = HandConfig(
        Variant.HOLDEM,
        BettingStructure.NO_LIMIT,
        position_blinds(PLAYERS, SMALL_BLIND, BIG_BLIND),
        min_bet=BIG_BLIND,
    )
    stacks = (STACK,) * PLAYERS
    for _ in range(count):
        deck = rng.sample(DECK, 2 * PLAYERS + 8)  # hole cards, then burn + flop, turn, river
        state = new_hand(config, stacks)
        holes = tuple((deck[player], deck[player + PLAYERS]) for player in range(PLAYERS))
        state, _ = step(state, DealHands(holes))  # hole cards dealt one at a time clockwise
        top = 2 * PLAYERS
        while True:
            phase = state.phase
            if phase is Phase.BETTING:
                legal = legal_actions(state)
                assert legal is not None
                p = legal.player
                choice = decision(rng, legal.can_fold, legal.can_raise)
                if choice == FOLD:
                    command: Fold | Check | Call | BetOrRaise | DealBoard | Show = Fold(p)
                elif choice == RAISE:
                    command = BetOrRaise(p, rng.randint(legal.min_to, legal.max_to))
                else:
                    command = Call(p) if legal.can_call else Check(p)
                tally.actions += 1
            elif phase is Phase.DEALING_BOARD:
                size = 3 if state.street == 0 else 1
                command = DealBoard(tuple(deck[top + 1 : top + 1 + size]), burn=deck[top])
                top += 1 + size
            elif phase is Phase.SHOWDOWN:
                turn = showdown_turn(state)
                assert turn is not None
                command = Show(turn.player)
            else:
                break
            state, _ = step(state, command)
        assert state.phase is Phase.COMPLETE
        assert sum(state.stacks) == PLAYERS * STACK
        tally.hands += 1


# --------------------------------------------------------------------------- PokerKit


def pokerkit_hands(count: int, seed: int, tally: Tally) -> None:
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    rng = random.Random(seed)
    random.seed(seed)  # PokerKit shuffles its deck with the global ``random``
    automations = tuple(Automation)
    stacks = (STACK,) * PLAYERS
    for _ in range(count):
        state = NoLimitTexasHoldem.create_state(
            automations,
            True,
            0,
            (SMALL_BLIND, BIG_BLIND),
            BIG_BLIND,
            stacks,
            PLAYERS,
            mode=Mode.CASH_GAME,
        )
        while state.status:
            if state.actor_index is None:  # pragma: no cover - everything else is automated
                raise RuntimeError("PokerKit waits for something other than a player action")
            facing_bet = bool(state.checking_or_calling_amount)
            can_raise = state.can_complete_bet_or_raise_to()
            choice = decision(rng, facing_bet, can_raise)
            if choice == FOLD:
                state.fold()
            elif choice == RAISE:
                low = state.min_completion_betting_or_raising_to_amount
                high = state.max_completion_betting_or_raising_to_amount
                assert low is not None and high is not None
                state.complete_bet_or_raise_to(rng.randint(low, high))
            else:
                state.check_or_call()
            tally.actions += 1
        tally.hands += 1


# --------------------------------------------------------------------------- measuring


def _measure(
    play: Callable[[int, int, Tally], None], seconds: float, seed: int
) -> tuple[float, Tally]:
    """Hands per CPU second, playing batches of hands until ``seconds`` have been spent."""
    tally = Tally()
    batch = 10
    elapsed = 0.0
    start = time.process_time()
    while elapsed < seconds:
        play(batch, seed + tally.hands, tally)
        elapsed = time.process_time() - start
    return tally.hands / elapsed, tally


def run(args: argparse.Namespace) -> list[Result]:
    seconds: float = args.seconds
    seed: int = args.seed
    # Warm up both (imports, caches) before timing.
    _measure(ours_hands, 0.2, seed)
    _measure(pokerkit_hands, 0.2, seed)
    # Short rounds, alternating: on a shared machine the load drifts, and it then touches both
    # engines alike; the medians of the rounds are reported (and each round's own ratio).
    ours_rates: list[float] = []
    peer_rates: list[float] = []
    ours_tally = peer_tally = Tally()
    for round_ in range(args.rounds):
        ours, ours_tally = _measure(ours_hands, seconds, seed + round_)
        peer, peer_tally = _measure(pokerkit_hands, seconds, seed + round_)
        ours_rates.append(ours)
        peer_rates.append(peer)
        print(
            f"[engine] round {round_ + 1}/{args.rounds}: ours {ours:,.0f} hands/s, "
            f"pokerkit {peer:,.0f} hands/s, ratio {ours / peer:.1f}x",
            file=sys.stderr,
        )
    ours_best, peer_best = statistics.median(ours_rates), statistics.median(peer_rates)
    print(
        f"[engine] actions per hand: ours {ours_tally.actions / ours_tally.hands:.2f}, "
        f"pokerkit {peer_tally.actions / peer_tally.hands:.2f}",
        file=sys.stderr,
    )
    return [
        Result(
            name="engine: 6-max NLHE random hands",
            ours_per_s=ours_best,
            peer="pokerkit 0.7.7",
            peer_per_s=peer_best,
        )
    ]
