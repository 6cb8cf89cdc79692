"""What a refused or failed gateway call raises: the gRPC status, the server's message (the reason
a person reads) and the platform's stable error code (trailing metadata ``x-error-code``)."""

from __future__ import annotations

import grpc

ERROR_CODE_HEADER = "x-error-code"


class GatewayError(Exception):
    """A gateway call that ended with a non-OK status (after any retries)."""

    def __init__(self, status: grpc.StatusCode, message: str, code: str | None = None) -> None:
        super().__init__(message or status.name)
        self.status = status
        self.message = message or status.name
        self.code = code

    @classmethod
    def from_rpc(cls, error: grpc.aio.AioRpcError) -> GatewayError:
        code = None
        for key, value in error.trailing_metadata() or ():
            if key == ERROR_CODE_HEADER:
                code = value if isinstance(value, str) else value.decode()
        return cls(error.code(), error.details() or "", code)

    def __str__(self) -> str:
        prefix = f"{self.status.name}"
        if self.code:
            prefix += f" {self.code}"
        return f"{prefix}: {self.message}"
