"""What a refused or failed gateway call raises: the gRPC status, the server's message (the reason
a person reads) and the platform's stable error code (trailing metadata ``x-error-code``)."""

from __future__ import annotations

import grpc

from libs.platform.errors import error_code_of


class GatewayError(Exception):
    """A gateway call that ended with a non-OK status (after any retries)."""

    def __init__(self, status: grpc.StatusCode, message: str, code: str | None = None) -> None:
        super().__init__(message or status.name)
        self.status = status
        self.message = message or status.name
        self.code = code

    @classmethod
    def from_rpc(cls, error: grpc.aio.AioRpcError) -> GatewayError:
        return cls(error.code(), error.details() or "", error_code_of(error))

    def __str__(self) -> str:
        prefix = f"{self.status.name}"
        if self.code:
            prefix += f" {self.code}"
        return f"{prefix}: {self.message}"
