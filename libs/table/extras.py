"""Table options around the hand's end: run it twice (a seat's standing answer, a player's answer
when asked, the short clock that answers "once" for whoever did not) and the rabbit hunt (after
a hand that ended before the river, the cards that would have come, shown to the table).

The engine decides the runs themselves (libs.poker.runs); here is what the table adds: who may
answer for which position, and the rabbit hunt's rules. The rabbit's cards come in the command
(the table service reads them from the hand's revealed seed, as it gets every card from the
dealer) at the positions ``rabbit_positions`` names: the board positions the streets never
dealt would have taken (``DealLayout``; their burns stay unseen), so anyone can check them
against the seed.
"""

from __future__ import annotations

from libs.poker import commands as hc
from libs.poker import errors as E
from libs.poker.dealing import DealLayout
from libs.poker.errors import IllegalAction, InvalidCommand
from libs.poker.runs import MOST_RUNS
from libs.poker.state import Phase

from . import commands as tc
from . import errors as TE
from .events import RabbitHunted, RunItTimesSet
from .hand_flow import Scratch, hand_step, require_seated, shown_id
from .state import TableState


def set_run_it_times(x: Scratch, c: tc.SetRunItTimes) -> None:
    if not isinstance(c.times, int) or not 0 <= c.times <= MOST_RUNS:
        raise InvalidCommand(
            TE.RUN_IT_TIMES_OUT_OF_RANGE,
            f"run it 0 (ask me), 1 (once) .. {MOST_RUNS} times, not {c.times!r}",
        )
    number = require_seated(x.s, c.player_id)
    assert x.s.config is not None
    if c.times >= 2 and x.s.config.run_it_max < 2:
        raise IllegalAction(
            E.RUN_IT_NOT_OFFERED, "this table does not offer running the board more than once"
        )
    if x.s.seats[number].run_it_times != c.times:
        x.emit(RunItTimesSet(number, c.times))


def answer_run_it(x: Scratch, c: tc.AnswerRunIt) -> None:
    s = x.s
    if not isinstance(c.times, int) or not 1 <= c.times <= MOST_RUNS:
        raise InvalidCommand(E.BAD_RUN_COUNT, f"run it 1 to {MOST_RUNS} times, not {c.times!r}")
    number = require_seated(s, c.player_id)
    if c.hand_id and (c.hand_id != s.hand_id or not s.hand_in_progress):
        raise IllegalAction(E.WRONG_HAND, f"hand {shown_id(c.hand_id)} is not in play")
    position = s.position_of(number) if s.hand_in_progress else None
    if position is None or s.hand is None:
        raise IllegalAction(TE.NOT_IN_HAND, f"{shown_id(c.player_id)} is not in the hand")
    hand_step(x, hc.AnswerRunIt(position, c.times), c.now)


def run_it_timeout(x: Scratch, now: float) -> bool:
    """The run-it question's clock ran out: everyone who did not answer runs it once. False
    when the hand is not waiting for that answer."""
    s = x.s
    hand = s.hand
    if hand is None or not s.hand_in_progress or hand.phase is not Phase.AGREEING_RUNS:
        return False
    if now < s.run_it_deadline:
        return True  # nothing due yet
    for position in hand.run_asked:
        current = s.hand
        if (
            current is not None
            and current.phase is Phase.AGREEING_RUNS
            and not current.run_answers[position]
        ):
            hand_step(x, hc.AnswerRunIt(position, 1), now)
    return True


def rabbit_positions(s: TableState, player_id: str, hand_id: str = "") -> tuple[int, ...]:
    """The deck positions of the rabbit of the table's last hand (the board cards of the
    streets never dealt, in street order), or the refusal: the caller is not seated, the table
    does not offer it, a hand is in play, the hand reached the river or was voided, or its
    deck is not revealed yet."""
    require_seated(s, player_id)
    if s.config is None or not s.config.rabbit_hunt:
        raise IllegalAction(TE.RABBIT_HUNT_OFF, "this table does not offer the rabbit hunt")
    if s.hand_in_progress:
        raise IllegalAction(
            TE.HAND_IN_PROGRESS, "a hand is in play: the rabbit hunt is only after the hand"
        )
    hand = s.hand
    if hand is None or not s.hand_id:
        raise IllegalAction(TE.NO_HAND, "no hand has been played at this table yet")
    if hand_id and hand_id != s.hand_id:
        raise IllegalAction(
            E.WRONG_HAND, f"only the table's last hand ({shown_id(s.hand_id)}) can be hunted"
        )
    if hand.voided:
        raise IllegalAction(TE.NO_HAND, "the hand was voided: there is no rabbit to hunt")
    if hand.street >= 3:
        raise IllegalAction(
            TE.RABBIT_HUNT_RIVER_REACHED, "the hand reached the river: every card was dealt"
        )
    seed = s.revealed_seeds.get(s.hand_id)
    if seed is None:
        raise IllegalAction(
            TE.SEED_NOT_REVEALED, "the hand's deck is not revealed yet: ask again in a moment"
        )
    if not seed:
        raise IllegalAction(TE.NO_HAND, "the dealer lost this hand's deck: no rabbit to hunt")
    layout = DealLayout(hand.player_count, hand.config.variant.hole_card_count)
    return tuple(i for street in range(hand.street + 1, 4) for i in layout.board(street))


def rabbit_hunt(x: Scratch, c: tc.RabbitHunt) -> None:
    s = x.s
    positions = rabbit_positions(s, c.player_id, c.hand_id)
    if s.rabbit_hand == s.hand_id:
        return  # hunted already: everyone has seen it
    if len(c.cards) != len(positions) or len(set(c.cards)) != len(c.cards):
        raise InvalidCommand(E.BAD_CARDS, f"the rabbit here is {len(positions)} cards")
    assert s.hand is not None
    if any(s.hand.dealt_mask >> card & 1 for card in c.cards):
        raise InvalidCommand(E.DUPLICATE_CARD, "a rabbit card was dealt in the hand")
    number = require_seated(s, c.player_id)
    x.emit(RabbitHunted(s.hand_id, number, s.hand.street + 1, tuple(c.cards)))
