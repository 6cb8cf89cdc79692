"""A TCP proxy in front of the gateway's HTTP port whose network can be cut: ``cut(seconds)``
closes every open connection and refuses new ones for that long, as a dropped network does to a
browser (Chromium's offline emulation leaves an open stream alone)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time


class CuttableProxy:
    def __init__(self, target_port: int) -> None:
        self.target = ("127.0.0.1", target_port)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.down_until = 0.0
        self.open: set[socket.socket] = set()
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            if time.monotonic() < self.down_until:
                client.close()
                continue
            upstream = socket.create_connection(self.target)
            with self.lock:
                self.open.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                sink.sendall(data)
        for s in (source, sink):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            with self.lock:
                self.open.discard(s)

    def cut(self, seconds: float) -> None:
        self.down_until = time.monotonic() + seconds
        with self.lock:
            for s in list(self.open):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()
            self.open.clear()

    def close(self) -> None:
        self.server.close()
