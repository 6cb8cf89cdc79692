"""Who is calling an RPC, and who may: the one place a service asks either question.

Today a caller is known only by its network address (the peer's host, without the port, so a
caller opening more connections is still one caller). When services authenticate each other
(mutual TLS or signed service tokens: issue 9, a later part), :func:`caller_of` also fills
``Caller.service`` with the verified identity, and a :class:`CallerPolicy` such as
:class:`OnlyServices` restricts methods to it; servicers already ask through :func:`authorize`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from libs.platform.errors import PermissionDenied

CALLER_NOT_ALLOWED = "CALLER_NOT_ALLOWED"


@dataclass(frozen=True, slots=True)
class Caller:
    """``address``: the peer without its port ("ipv4:127.0.0.1", "ipv6:[::1]", "unix:/path");
    ``service``: the authenticated service calling, None until services authenticate."""

    address: str
    service: str | None = None


def peer_address(peer: str) -> str:
    """``ipv4:10.0.0.7:51234`` -> ``ipv4:10.0.0.7``; ``ipv6:[::1]:5`` -> ``ipv6:[::1]``; other
    forms (``unix:...``) are kept whole."""
    kind, _, rest = peer.partition(":")
    if kind in ("ipv4", "ipv6") and ":" in rest:
        host, _, port = rest.rpartition(":")
        if port.isdigit():
            return f"{kind}:{host}"
    return peer


def caller_of(context: Any) -> Caller:
    """The caller of the call behind ``context`` (a ``grpc.aio.ServicerContext``)."""
    return Caller(address=peer_address(str(context.peer() or "unknown")))


class CallerPolicy(Protocol):
    def allows(self, caller: Caller, rpc: str) -> bool:
        """May ``caller`` call ``rpc`` (the method's name, e.g. "DealCards")?"""
        ...


class AnyCaller:
    """Everyone may call everything: the policy until services authenticate each other."""

    def allows(self, caller: Caller, rpc: str) -> bool:
        return True


@dataclass(frozen=True)
class OnlyServices:
    """Methods restricted to authenticated services (``{"RevealSeed": {"table"}}``); methods not
    listed are open to every caller."""

    allowed: Mapping[str, Collection[str]]

    def allows(self, caller: Caller, rpc: str) -> bool:
        services = self.allowed.get(rpc)
        return services is None or (caller.service is not None and caller.service in services)


def authorize(policy: CallerPolicy, context: Any, rpc: str) -> Caller:
    """The caller, or PermissionDenied when ``policy`` does not let it call ``rpc``."""
    caller = caller_of(context)
    if not policy.allows(caller, rpc):
        raise PermissionDenied(CALLER_NOT_ALLOWED, f"{rpc} is not open to this caller")
    return caller
