"""The table service as tools and tests reach it: one stub, two identities.

The table takes commands that move chips (open, seat, top up, leave, close) only from the lobby
and ``tools``, and shows a player's own cards (GetPlayerView) only to the ``gateway``
(libs.platform.callers). A test or tool that seats players and then looks at their views needs
both: :func:`table_as` gives a TableService stub whose GetPlayerView is signed as the gateway and
whose every other method is signed as tools::

    with table_as(table.address) as stub:
        stub.SubmitCommand(seat_request)           # as tools
        stub.GetPlayerView(view_request)           # as the gateway
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import grpc
from holdem.table.v1 import table_pb2_grpc

from .identity import aio_channel_as, channel_as

__all__ = ["aio_table_as", "table_as", "table_stub"]


def table_stub(tools: grpc.Channel, gateway: grpc.Channel) -> table_pb2_grpc.TableServiceStub:
    """A stub calling through ``tools`` except GetPlayerView, which goes through ``gateway``."""
    stub = table_pb2_grpc.TableServiceStub(tools)
    stub.GetPlayerView = table_pb2_grpc.TableServiceStub(gateway).GetPlayerView
    return stub


def aio_table_stub(
    tools: grpc.aio.Channel, gateway: grpc.aio.Channel
) -> table_pb2_grpc.TableServiceAsyncStub:
    """:func:`table_stub` for asyncio channels."""
    stub = table_pb2_grpc.TableServiceStub(tools)
    stub.GetPlayerView = table_pb2_grpc.TableServiceStub(gateway).GetPlayerView
    return stub


@contextmanager
def table_as(address: str) -> Iterator[table_pb2_grpc.TableServiceStub]:
    """A blocking stub of the table at ``address`` (see the module's doc) with this run's dev
    keys, channels closed after."""
    with channel_as(address) as tools, channel_as(address, "gateway") as gateway:
        yield table_stub(tools, gateway)


@asynccontextmanager
async def aio_table_as(address: str) -> AsyncIterator[table_pb2_grpc.TableServiceAsyncStub]:
    """An asyncio stub of the table at ``address`` (see the module's doc), dev keys."""
    async with aio_channel_as(address) as tools, aio_channel_as(address, "gateway") as gateway:
        yield aio_table_stub(tools, gateway)
