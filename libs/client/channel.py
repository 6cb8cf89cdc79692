"""How the client reaches the gateway: a grpc.aio channel, plaintext or TLS (the system's CAs,
or only a given CA: a local stack's own), that reconnects quickly after the gateway comes back."""

from __future__ import annotations

import grpc

# Reconnect quickly after the gateway comes back (gRPC's default waits up to 2 minutes).
CHANNEL_OPTIONS = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 2000),
)


def gateway_channel(target: str, tls: bool | bytes = False) -> grpc.aio.Channel:
    """A channel to the gateway at ``target``: plaintext (``tls`` False), TLS trusting the
    system's CAs (True), or TLS trusting only the CA given as PEM bytes (a stack's own)."""
    if tls is False:
        return grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS)
    ca = None if tls is True else tls
    return grpc.aio.secure_channel(
        target, grpc.ssl_channel_credentials(ca), options=CHANNEL_OPTIONS
    )
