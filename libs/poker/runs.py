"""Running the board more than once ("run it twice", or three times).

When no betting is left before the river (every player but at most one is all in: a runout) and
the table offers it (``HandConfig.run_it_max`` above 1), the hand asks every player still in
(``RunItOffered``) how many times to deal the rest of the board. Each answers up to how many
runs they agree to (``AnswerRunIt``, 1 = once, i.e. no); when all have answered the board is run
the smallest number any of them gave (``RunItDecided``): everybody must agree to a second run,
and to a third. The table answers for a player who does not (their seat's setting, or once when
the short clock runs out).

The first run is dealt street by street as usual; each further run (``DealRun`` ->
``RunDealt``) takes the deck positions after a single run's river, in deck order, one burn before
each street (``DealLayout.run_streets``), so the deck stays verifiable from the revealed seed.
Each contested pot is split in equal shares, one per run, the odd chips to the first run
(``run_shares``), and each share goes to the best hand(s) on that run's board (hi-lo: split again
high/low on that board). A pot only one player can win is not split.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from . import errors as E
from .cards import Card
from .commands import AnswerRunIt, DealRun
from .dealing import DealLayout
from .events import Event, RunDealt, RunItAnswered, RunItDecided, RunItOffered
from .state import HandState, Phase

#: Most runs of the board any table offers.
MOST_RUNS = 3
#: Board cards dealt once the street of that number is dealt (0 preflop .. 3 river).
BOARD_CARDS = (0, 3, 4, 5)

Emit = Callable[[Event], None]


def run_offer(s: HandState) -> RunItOffered | None:
    """The offer due now (the board is about to be run out before the river and the table
    offers more runs), or None."""
    if s.config.run_it_max < 2 or s.run_asked or s.street >= 3 or not s.runout:
        return None
    players = tuple(s.live)
    if len(players) < 2:
        return None
    layout = DealLayout(s.player_count, s.config.variant.hole_card_count)
    most = min(s.config.run_it_max, layout.most_runs(s.street))
    if most < 2:
        return None  # the deck cannot hold a second run (e.g. ten players of Omaha)
    return RunItOffered(players, most)


def runs_decided(s: HandState) -> RunItDecided | None:
    """Once every player asked has answered: how many runs (the smallest answer)."""
    answers = [s.run_answers[p] for p in s.run_asked]
    if not answers or 0 in answers:
        return None
    return RunItDecided(max(1, min(min(answers), s.run_most)))


def decide_answer(s: HandState, command: AnswerRunIt, emit: Emit) -> None:
    times = command.times
    if not isinstance(times, int) or not 1 <= times <= MOST_RUNS:
        raise E.InvalidCommand(E.BAD_RUN_COUNT, f"run it 1 to {MOST_RUNS} times, not {times!r}")
    p = command.player
    if not 0 <= p < s.player_count:
        raise E.InvalidCommand(E.UNKNOWN_PLAYER, f"no player at position {p}")
    if s.phase is not Phase.AGREEING_RUNS:
        raise E.IllegalAction(
            E.RUN_IT_NOT_OFFERED,
            "running the board again is not being offered: it is, at a table that offers it, "
            "only when no betting is left before the river",
        )
    if p not in s.run_asked:
        raise E.IllegalAction(E.NOT_ASKED, f"position {p} is not in the hand: nothing to answer")
    emit(RunItAnswered(p, min(times, s.run_most)))


def decide_run(
    s: HandState, command: DealRun, emit: Emit, check_new: Callable[[HandState, list[Card]], None]
) -> None:
    """The next extra run: its cards (the streets after ``run_from``) and their burns."""
    if s.phase is not Phase.DEALING_RUN:
        raise E.IllegalAction(E.WRONG_PHASE, "no further run of the board is due")
    expected = BOARD_CARDS[3] - BOARD_CARDS[s.run_from]
    if len(command.cards) != expected:
        raise E.InvalidCommand(E.BAD_CARDS, f"a run here is {expected} board cards")
    if command.burns and len(command.burns) != 3 - s.run_from:
        raise E.InvalidCommand(E.BAD_CARDS, f"a run here burns {3 - s.run_from} cards")
    check_new(s, [*command.cards, *command.burns])
    emit(RunDealt(len(s.run_boards) + 2, tuple(command.cards), tuple(command.burns)))


def run_board(s: HandState, run: int) -> tuple[Card, ...]:
    """The complete board of run ``run`` (0: the first, the hand's own board)."""
    return s.board if run == 0 else s.run_boards[run - 1]


def run_shares(amount: int, runs: int) -> list[int]:
    """``amount`` in ``runs`` equal shares, the odd chips to the first run."""
    share = amount // runs
    return [amount - share * (runs - 1)] + [share] * (runs - 1)


def common_board(s: HandState) -> tuple[Card, ...]:
    """The board cards every run shares (those dealt when the runs were agreed)."""
    return s.board[: BOARD_CARDS[s.run_from]]


def run_positions(s: HandState, run: int) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Deck positions of run ``run`` (2, 3): (burn, board positions) per street."""
    layout = DealLayout(s.player_count, s.config.variant.hole_card_count)
    return layout.run_streets(run, s.run_from)


def flatten_run(streets: Sequence[tuple[int, tuple[int, ...]]]) -> tuple[list[int], list[int]]:
    """(burn positions, board positions) of a run's streets, in street order."""
    burns = [burn for burn, _ in streets]
    cards = [i for _, board in streets for i in board]
    return burns, cards
