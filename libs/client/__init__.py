"""The typed Python client of the gateway (holdem.gateway.v1): ``GatewayClient`` for calls and
resumable watching, ``GatewayError`` for refusals, ``libs.client.view`` for reading a PlayerView.
See docs/client.md."""

from libs.client.client import GatewayClient, configs, new_key
from libs.client.errors import GatewayError
from libs.client.retry import NO_RETRY, RESUMABLE, RETRYABLE, RetryPolicy

__all__ = [
    "NO_RETRY",
    "RESUMABLE",
    "RETRYABLE",
    "GatewayClient",
    "GatewayError",
    "RetryPolicy",
    "configs",
    "new_key",
]
