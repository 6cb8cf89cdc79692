"""Deck derivation, documented so that anyone can re-implement it and check a hand.

Algorithm ``holdem-deck-v1``:

1. The dealer draws a 32-byte secret ``seed`` from the operating system's CSPRNG
   (``secrets.token_bytes``) for each hand and publishes ``commitment = SHA-256(seed)`` (hex)
   before any card is dealt. The seed is revealed when the hand ends.
2. A keyed DRBG turns the seed into a byte stream: block ``i`` (i = 0, 1, ...) is
   ``HMAC-SHA256(key=seed, msg=b"holdem-deck-v1" || i as 8 bytes big-endian)``; the stream is
   the blocks concatenated.
3. A uniform integer below ``n`` is drawn by reading the next 4 bytes as a big-endian unsigned
   integer ``x`` and rejecting it while ``x >= 2**32 - (2**32 % n)`` (so every residue is equally
   likely: no modulo bias); the result is ``x % n``.
4. Fisher-Yates: start from the 52 cards in index order (2c 2d 2h 2s 3c ... As; index =
   rank * 4 + suit, ranks 2..A, suits c d h s) and for ``i`` from 51 down to 1 swap card ``i``
   with card ``j = uniform(i + 1)``.
5. Cards are dealt by position in that deck (``libs.poker.dealing.DealLayout``): hole cards one
   at a time clockwise starting left of the button (round 1 to every player, then round 2, ...),
   then for each of flop, turn and river one burn card followed by the board cards. So a
   repeated request for a card returns the same card, and a restarted table continues the same
   deck.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import struct
from collections.abc import Iterator, Mapping, Sequence

from libs.poker.dealing import DealLayout

ALGORITHM = "holdem-deck-v1"
_TAG = ALGORITHM.encode()
SEED_BYTES = 32


class FairnessError(Exception):
    """A hand's cards do not follow from its revealed seed, or the seed from its commitment."""


def new_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> str:
    return hashlib.sha256(seed).hexdigest()


_BLOCKS_PER_BATCH = 14  # 112 words: a shuffle needs 51 and rejections are rare


def _stream(seed: bytes) -> Iterator[int]:
    """The DRBG's 32-bit words, in order (computed a batch of blocks at a time)."""
    counter = 0
    key = hmac.new(seed, digestmod=hashlib.sha256)
    while True:
        blocks = []
        for i in range(counter, counter + _BLOCKS_PER_BATCH):
            mac = key.copy()
            mac.update(_TAG + i.to_bytes(8, "big"))
            blocks.append(mac.digest())
        counter += _BLOCKS_PER_BATCH
        yield from struct.unpack(f">{_BLOCKS_PER_BATCH * 8}I", b"".join(blocks))


def _limit(n: int) -> int:
    """Words at or above this are rejected when drawing below ``n`` (no modulo bias)."""
    return (1 << 32) - ((1 << 32) % n)


_LIMITS = {n: _limit(n) for n in range(1, 53)}


def deck_from_seed(seed: bytes) -> tuple[int, ...]:
    """The 52 card indices in dealing order for this seed."""
    if len(seed) < 16:
        raise ValueError("a seed must have at least 16 bytes")
    deck = list(range(52))
    words = _stream(seed)
    for i in range(51, 0, -1):
        n = i + 1
        limit = _LIMITS[n]
        x = next(words)
        while x >= limit:
            x = next(words)
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def verify_deal(
    seed: bytes,
    expected_commitment: str,
    layout: DealLayout,
    holes: Mapping[int, Sequence[int]],
    boards: Mapping[int, Sequence[int]],
    burns: Mapping[int, int] | None = None,
) -> None:
    """Raise ``FairnessError`` unless the commitment and every given card follow from ``seed``."""
    if commitment(seed) != expected_commitment:
        raise FairnessError(
            f"commitment mismatch: SHA-256(seed) = {commitment(seed)}, "
            f"the hand committed to {expected_commitment}"
        )
    deck = deck_from_seed(seed)
    for position, cards in holes.items():
        expected = tuple(deck[i] for i in layout.hole(position))
        if tuple(cards) != expected:
            raise FairnessError(
                f"position {position} was dealt {_faces(cards)}, the seed gives {_faces(expected)}"
            )
    for street, cards in boards.items():
        expected = tuple(deck[i] for i in layout.board(street))
        if tuple(cards) != expected:
            raise FairnessError(
                f"street {street} shows {_faces(cards)}, the seed gives {_faces(expected)}"
            )
    for street, card in (burns or {}).items():
        if deck[layout.burn(street)] != card:
            raise FairnessError(f"burn before street {street} does not follow from the seed")


def _faces(cards: Sequence[int]) -> str:
    ranks, suits = "23456789TJQKA", "cdhs"
    return " ".join(ranks[c >> 2] + suits[c & 3] for c in cards)
