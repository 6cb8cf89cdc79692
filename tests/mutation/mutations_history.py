"""One-line bugs in the hand-history exports (libs/history, libs/poker/phh.py's action lines): a
text that no longer says what the events say. PokerKit still parses most of them, so they are
caught by the tests that read the exports against the table's events (tests/history)."""

from __future__ import annotations

from tests.mutation.model import Mutation

HISTORY_TESTS = ("tests/history",)

MUTATIONS = [
    Mutation(
        "export: PokerStars text writes a shown hand as mucked",
        "libs/history/pokerstars.py",
        'lines.append(f"{names[event.player]}: shows [{_cards(event.cards)}] (hand)")',
        'lines.append(f"{names[event.player]}: mucks hand")',
        HISTORY_TESTS,
    ),
    Mutation(
        "export: PokerStars text leaves a muck out",
        "libs/history/pokerstars.py",
        '            lines.append(f"{names[event.player]}: mucks hand")\n',
        "            pass\n",
        HISTORY_TESTS,
    ),
    Mutation(
        "export: PokerStars text pays a shared pot to its first winner only",
        "libs/history/pokerstars.py",
        "for winner, amount in event.winners:",
        "for winner, amount in event.winners[:1]:",
        HISTORY_TESTS,
    ),
    Mutation(
        "export: PokerStars total pot keeps the uncalled bet",
        "libs/history/pokerstars.py",
        "            pot_total -= event.amount\n",
        "",
        HISTORY_TESTS,
    ),
    Mutation(
        "export: PHH writes a shown hand as mucked",
        "libs/poker/phh.py",
        'out.append(f"p{event.player + 1} sm {format_cards(event.cards)}")',
        'out.append(f"p{event.player + 1} sm")',
        HISTORY_TESTS,
    ),
    Mutation(
        "export: PHH leaves a muck out",
        "libs/poker/phh.py",
        '            out.append(f"p{event.player + 1} sm")\n',
        "            pass\n",
        HISTORY_TESTS,
    ),
    Mutation(
        "export: a hand shown after the hand's end is left out of the history",
        "libs/history/hands.py",
        "if current.complete and not isinstance(event, HandShown):",
        "if current.complete:",
        HISTORY_TESTS,
    ),
]
