"""A TCP forwarder run inside a host's namespace: ``python -m libs.nemesis.forward ADDRESS
PORT=TARGET:TPORT ...`` listens on ``ADDRESS:PORT`` for each mapping and copies every connection
both ways to ``TARGET:TPORT``.

What it is for: a process of the nemesis itself (a table replica run in the nemesis's process)
whose network traffic must cross one host of the nemesis network (libs/nemesis/network.py), so
that cutting that host cuts the replica: it connects to the forwarder on the host's address,
and the forwarder, in the host's namespace, connects on to the servers through the host's own
link. Isolate the host and nothing the replica sends arrives, nor anything for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Awaitable, Callable


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        with contextlib.suppress(OSError):
            writer.close()


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def _handler(target: str, port: int) -> Handler:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection(target, port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    return handle


async def main(address: str, mappings: list[str]) -> None:
    servers = []
    for mapping in mappings:
        listen, _, target = mapping.partition("=")
        host, _, port = target.rpartition(":")
        servers.append(await asyncio.start_server(_handler(host, int(port)), address, int(listen)))
    print("forwarding", flush=True)
    await asyncio.gather(*(server.serve_forever() for server in servers))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
