"""The event store's header parser gives exactly what nats-py's own gives, on ordinary and on
awkward header blocks, and a connection set to use it does."""

from __future__ import annotations

import random

import pytest
from nats.aio.client import Client as NATS

from libs.eventstore.natsheaders import headers_of_block, parse_header_lines, use_fast_headers

AWKWARD = [
    b"Nats-Msg-Id: t1/k1\r\nNats-Expected-Last-Subject-Sequence: 41\r\n\r\n",
    b"Name:Value\r\nOther:\tspaced \r\n",
    b"no colon here\r\nA: 1\r\n",
    b"Bad Name: x\r\nGood: y\r\n",
    b"\x1cLead: x\r\nTab\tIn: y\r\nTrail\x0b: z\r\n",
    b"\xc3\xa9t\xc3\xa9: accent in the name\r\nV: caf\xc3\xa9 \xff\r\n",
    b": empty name\r\n \t: blank name\r\n",
    b"Dup: 1\r\nDup: 2\r\n",
    b"",
    b"\r\n\r\n",
]


@pytest.mark.parametrize("raw", AWKWARD)
def test_it_parses_as_nats_py_does(raw: bytes) -> None:
    assert parse_header_lines(raw) == NATS._parse_header_lines(raw)


def test_random_header_blocks_parse_as_nats_py_does() -> None:
    rng = random.Random(14)
    alphabet = b"ab:Z \t\r\n\x0b\x0c\x1c\x1f\x85\xa0\xc3\xa9-_1"
    for _ in range(5000):
        raw = bytes(rng.choice(alphabet) for _ in range(rng.randrange(40)))
        assert parse_header_lines(raw) == NATS._parse_header_lines(raw), raw


def test_a_connection_set_to_use_it_does_and_others_do_not() -> None:
    mine, other = NATS(), NATS()
    use_fast_headers(mine)
    assert mine._parse_header_lines is parse_header_lines
    assert other._parse_header_lines is not parse_header_lines


GUARDED = [  # the block of a guarded append, as JetStream stores it, and near misses
    b"NATS/1.0\r\nNats-Msg-Id: t1/k1\r\nNats-Expected-Last-Subject-Sequence: 41\r\n"
    b"Nats-Expected-Stream: TABLES\r\n\r\n",
    b"NATS/1.0\r\nNats-Msg-Id: t1/k 1 \r\nNats-Expected-Last-Subject-Sequence: 41\r\n"
    b"Nats-Expected-Stream: TABLES\r\n\r\n",
    b"NATS/1.0\r\nNats-Msg-Id: t1/\xc3\xa9\xff\r\nNats-Expected-Last-Subject-Sequence: 0\r\n"
    b"Nats-Expected-Stream: T\r\n\r\n",
    b"NATS/1.0\r\nNats-Msg-Id:\r\nNats-Expected-Last-Subject-Sequence: 1\r\n"
    b"Nats-Expected-Stream: T\r\n\r\n",
    b"NATS/1.0\r\nNats-Msg-Id: a\r\nNats-Expected-Last-Subject-Sequence: 1\r\n"
    b"Nats-Expected-Stream: T\r\nExtra: x\r\n\r\n",
    b"NATS/1.0\r\nNats-Expected-Stream: T\r\nNats-Msg-Id: a\r\n"
    b"Nats-Expected-Last-Subject-Sequence: 1\r\n\r\n",
    b"NATS/1.0\r\nNats-Msg-Id: a\r\nNats-Expected-Last-Subject-Sequence:  1\t\r\n"
    b"Nats-Expected-Stream: T\r\n\r\n",
]


@pytest.mark.parametrize("block", GUARDED)
def test_a_guarded_append_block_reads_as_nats_py_reads_it(block: bytes) -> None:
    assert headers_of_block(block) == NATS._parse_header_lines(block[len(b"NATS/1.0\r\n") :])


def test_random_values_in_a_guarded_append_block_read_as_nats_py_reads_them() -> None:
    rng = random.Random(15)
    alphabet = b"aZ09/:- \t\x0b\xc3\xa9\xff"
    for _ in range(3000):
        values = [bytes(rng.choice(alphabet) for _ in range(rng.randrange(6))) for _ in range(3)]
        block = (
            b"NATS/1.0\r\nNats-Msg-Id: %b\r\nNats-Expected-Last-Subject-Sequence: %b\r\n"
            b"Nats-Expected-Stream: %b\r\n\r\n" % tuple(values)
        )
        expected = NATS._parse_header_lines(block[len(b"NATS/1.0\r\n") :])
        assert headers_of_block(block) == expected, block
