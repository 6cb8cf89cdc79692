"""Sit-and-go tournaments between two players, for measuring play under prize pressure.

One table of ``players`` seats: A in one seat (seat ``index % players`` in tournament number
``index``, so A sits everywhere equally often) and B in the others, everyone starting with
``stack`` chips; the blinds rise every ``hands_per_level`` hands through ``levels``, the button
moves to the next seat still in, and a player with no chips left is out. Places are given in
order of busting (busted in the same hand: the one who started it with more chips places
higher) and pay ``payouts`` (first place first). Every view carries the prizes (``Prizes``)
unless ``show_prizes`` is off, so a player can decide by ICM; chips are conserved hand to hand
(the engine plays every hand; nothing is estimated).

``run_sngs`` plays ``count`` tournaments and summarises A's prize per tournament: its mean and
95 % interval (Student's t over tournaments, which are independent) against A's fair share
(the prize pool over the number of players).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .arena import MatchConfig, Player, Scoring, Tally, _mix, deck, play_hand
from .stats import Summary, summarize
from .view import Prizes

LEVELS: tuple[tuple[int, int], ...] = (
    (10, 20), (15, 30), (25, 50), (50, 100), (75, 150), (100, 200), (150, 300), (200, 400),
    (300, 600), (400, 800), (600, 1200), (800, 1600), (1000, 2000), (1500, 3000), (2000, 4000),
    (3000, 6000), (4000, 8000), (6000, 12000),
)  # fmt: skip
MAX_HANDS = 2_000


@dataclass(frozen=True)
class SngConfig:
    players: int = 6
    stack: int = 1_500
    levels: tuple[tuple[int, int], ...] = LEVELS
    hands_per_level: int = 10
    payouts: tuple[int, ...] = (50, 30, 20)
    seed: int = 1
    show_prizes: bool = True

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 6:
            raise ValueError(f"a sit-and-go here seats 2 to 6 players, not {self.players}")
        if not self.payouts or len(self.payouts) > self.players or self.stack < 1:
            raise ValueError("1 to `players` payouts and a stack of at least one chip")
        Prizes(self.payouts)  # checks the payouts' order and signs
        if self.hands_per_level < 1 or not self.levels:
            raise ValueError("at least one level of at least one hand")

    @property
    def share(self) -> float:
        """A's fair share of the prizes: the pool over the players."""
        return sum(self.payouts) / self.players


@dataclass(frozen=True)
class SngResult:
    place: int  # A's finishing place, 1 = winner
    prize: float
    hands: int


def play_sng(
    a: Player, b: Player, config: SngConfig, index: int, tallies: dict[str, Tally]
) -> SngResult:
    """Play tournament number ``index`` to the end (or ``MAX_HANDS``: the rest placed by chips)."""
    n = config.players
    seat_a = index % n
    chips = [config.stack] * n
    places: dict[int, int] = {}  # seat -> finishing place
    button = 0
    hands = 0
    prizes = Prizes(config.payouts) if config.show_prizes else None
    while len(places) < n - 1 and hands < MAX_HANDS:
        alive = [s for s in range(n) if s not in places]
        while button not in alive:
            button = (button + 1) % n
        # positions: the seats after the button in order, the button last
        start = alive.index(button)
        seats = alive[start + 1 :] + alive[: start + 1]
        _, big = config.levels[min(hands // config.hands_per_level, len(config.levels) - 1)]
        match = MatchConfig(seats=len(seats), big_blind=big, scoring=Scoring.CHIPS, stack_bb=1)
        seated = [(a, "a") if s == seat_a else (b, "b") for s in seats]
        before = [chips[s] for s in seats]
        seed = _mix(config.seed, index, hands)
        nets, _ = play_hand(
            match, deck(seed, 0), seated, seed, tallies, stacks=before, prizes=prizes
        )
        for p, s in enumerate(seats):
            chips[s] = before[p] + round(nets[p])
        if sum(chips) != n * config.stack:
            raise RuntimeError(f"chips not conserved: {chips}")
        busted = sorted((s for s in seats if chips[s] == 0), key=lambda s: before[seats.index(s)])
        for s in busted:  # the smaller starting stack busts first (a worse place)
            places[s] = n - len(places)
        button = seats[-1]
        button = (button + 1) % n
        hands += 1
    remaining = sorted((s for s in range(n) if s not in places), key=lambda s: -chips[s])
    for rank, s in enumerate(remaining, start=1):
        places[s] = rank
    place = places[seat_a]
    prize = float(config.payouts[place - 1]) if place <= len(config.payouts) else 0.0
    return SngResult(place, prize, hands)


@dataclass
class SngSeries:
    a: str
    b: str
    config: SngConfig
    results: list[SngResult] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=lambda: {"a": Tally(), "b": Tally()})
    seconds: float = 0.0

    def summary(self) -> Summary:
        return summarize([r.prize for r in self.results])

    def to_json(self) -> dict[str, object]:
        s = self.summary()
        places = [
            sum(1 for r in self.results if r.place == k) for k in range(1, self.config.players + 1)
        ]
        return {
            "a": self.a,
            "b": self.b,
            "tournaments": s.n,
            "players": self.config.players,
            "payouts": list(self.config.payouts),
            "prizes_shown": self.config.show_prizes,
            "share": self.config.share,
            "mean_prize": s.mean,
            "ci95": list(s.ci95) if s.ci95 else None,
            "sd": s.sd,
            "places": places,
            "mean_hands": sum(r.hands for r in self.results) / max(1, s.n),
            "seed": self.config.seed,
            "seconds": self.seconds,
        }


def run_sngs(
    a: Player,
    b: Player,
    count: int,
    config: SngConfig,
    progress: Callable[[SngSeries], None] | None = None,
) -> SngSeries:
    if count < 1:
        raise ValueError(f"at least one tournament, not {count}")
    series = SngSeries(a.name, b.name, config)
    started = time.perf_counter()
    for index in range(count):
        series.results.append(play_sng(a, b, config, index, series.tallies))
        series.seconds = time.perf_counter() - started
        if progress is not None:
            progress(series)
    return series
