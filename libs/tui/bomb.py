"""The terminal client's straddle and bomb-pot lines and keys (docs/table-features.md): the
bomb-pot vote (who agreed, the clock, ``[v]`` to propose or agree, ``[x]`` to refuse), the bomb
pot in play and the next scheduled one, and ``[t]`` for the seat's straddle setting."""

from __future__ import annotations

from holdem.common.v1 import common_pb2 as pb


def _me(v: pb.PlayerView) -> pb.SeatView | None:
    if not v.HasField("viewer_seat"):
        return None
    return next((s for s in v.seats if s.seat == v.viewer_seat and s.player_id), None)


def vote_open(v: pb.PlayerView) -> bool:
    return v.HasField("bomb_pot_vote") and v.bomb_pot_vote.HasField("deadline")


def bomb_line(v: pb.PlayerView, now: float) -> str:
    """What the table says of bomb pots now ("" when nothing)."""
    config = v.config
    if v.bomb_pot and v.hand_id:
        return f"BOMB POT: everyone anted {config.bomb_pot_ante}, the hand starts on the flop"
    vote = v.bomb_pot_vote
    if vote_open(v):
        left = max(0, int(vote.deadline.seconds + vote.deadline.nanos / 1e9 - now + 0.999))
        asked = set(vote.asked_seats)
        ask = ""
        if v.HasField("viewer_seat") and v.viewer_seat in asked and not vote.viewer_agreed:
            ask = "  [v] agree  [x] refuse"
        return (
            f"Bomb pot vote (seat {vote.proposer_seat}): {len(vote.agreed_seats)}/{len(asked)} "
            f"agreed, {left}s left{ask}"
        )
    if v.HasField("bomb_pot_vote") and vote.agreed:
        return "Next hand: a bomb pot (everyone agreed)"
    every = config.bomb_pot_every
    if config.bomb_pot_ante and every:
        line = f"Bomb pot every {every} hands (ante {config.bomb_pot_ante})"
        if v.hand_id:  # the hand number is known during a hand
            line += f": next hand #{(v.hand_number // every + 1) * every}"
        return line
    return ""


def bomb_keys(v: pb.PlayerView) -> str:
    """The straddle and bomb-pot keys that do something now (for the action line)."""
    keys = ""
    me = _me(v)
    if me is None:
        return keys
    if v.config.straddle_allowed:
        keys += f"[t] straddle {'off' if me.straddle else 'on'}  "
    if v.config.bomb_pot_vote and not vote_open(v) and not v.bomb_pot_vote.agreed:
        keys += "[v] propose a bomb pot  "
    return keys
