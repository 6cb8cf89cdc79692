"""What the screens ask of the app they run in (``Host``, which ``PlayApp`` is): the gateway
client, and logging in, creating a table and opening one, each of which may change the screen.
The screens know the app only through it, so they need not import it."""

from __future__ import annotations

from typing import Any, Protocol, cast

from textual.screen import Screen

from libs.client import GatewayClient
from libs.tui.newtable import NewTable
from libs.tui.privatetables import Access


class Host(Protocol):
    @property
    def client(self) -> GatewayClient: ...

    def log_in(
        self, *, user: str = "", password: str = "", guest: str = "", register: bool = False
    ) -> Any: ...

    def create_and_sit(self, spec: NewTable) -> Any: ...

    def open_table(
        self,
        table_id: str,
        *,
        sit: bool,
        buy_in: int | None = None,
        access: Access | None = None,
    ) -> None: ...

    def table_unavailable(self, table_id: str, message: str) -> None: ...


def host(screen: Screen[Any]) -> Host:
    """The app ``screen`` runs in."""
    return cast(Host, screen.app)
