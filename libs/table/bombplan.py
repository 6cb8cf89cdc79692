"""Whether the next hand is a bomb pot, and its forced bets (``planning.plan_hand`` asks).

A hand is a bomb pot at a table with ``bomb_pot_ante`` when its number is a multiple of
``bomb_pot_every`` or an agreed vote made it one (and every player dealt in agreed). A bomb pot
deals in the players ready and not waiting for the big blind (two at least, else the hand is a
usual one); each antes ``bomb_pot_ante`` (all in for less when short), nobody posts a blind or
a straddle, and what a player owed (an entry bet, a missed blind) is settled by the ante: it is
their way into the hand. The button moves as in every hand. At fixed limit a bomb pot plays as
usual from the flop (the small bet on the flop, the big bet on the turn and river).
"""

from __future__ import annotations

from libs.poker.config import BettingStructure, HandConfig

from .state import TableState


def is_bomb_pot(s: TableState, active: list[int]) -> bool:
    """Whether the next hand, dealt to ``active`` (seat numbers), is a bomb pot."""
    cfg = s.config
    if cfg is None or not cfg.bomb_pots or len(active) < 2:
        return False
    number = s.hands_started + 1
    if cfg.bomb_pot_every and number % cfg.bomb_pot_every == 0:
        return True
    agreed = s.bomb_vote.agreed
    return s.bomb_vote.for_hand == number and all(s.seats[n].player_id in agreed for n in active)


def bomb_pot_plan(
    s: TableState, button: int, active: list[int]
) -> tuple[tuple[int, ...], HandConfig]:
    """The seats dealt in by position (left of ``button`` first) and the hand's config."""
    cfg = s.config
    assert cfg is not None
    size = cfg.seats
    order = tuple((button + k) % size for k in range(1, size + 1) if (button + k) % size in active)
    n = len(order)
    fixed = cfg.structure is BettingStructure.FIXED_LIMIT
    config = HandConfig(
        variant=cfg.variant,
        structure=cfg.structure,
        blinds=(0,) * n,
        antes=(cfg.bomb_pot_ante,) * n,
        min_bet=cfg.big_blind,
        big_bet=2 * cfg.big_blind if fixed else 0,
        rake=cfg.rake,
        run_it_max=cfg.run_it_max,
        bomb_pot=True,
    )
    return order, config
