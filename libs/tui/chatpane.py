"""Table chat in the terminal client (docs/client.md, docs/chat.md): the table's messages (the
players' room, and the spectators' while the reader is not seated: WatchChat decides) as lines of
the running log, "Name: text", "Name (watching): text" for a spectator; ``/`` opens the chat
input at the bottom (Enter sends, Escape goes back to the amount). Typed there, ``/mute NAME``
and ``/unmute NAME`` mute a player for oneself (a name seen at the table or in the chat). A
refused message shows the server's reason and code on the status line.

``ChatKeys`` is a mixin of the table screen, which supplies the client, the model and the
status."""

from __future__ import annotations

from typing import ClassVar

from textual import work
from textual.binding import Binding
from textual.widgets import Input

from libs.client import GatewayClient, GatewayError
from libs.tui.model import TableModel

BINDINGS = [Binding("slash", "chat", "chat")]
MUTE_WORDS = {"/mute": True, "/unmute": False}


def chat_line(sender: str, text: str, *, spectator: bool) -> str:
    """The log line of one message."""
    return f"» {sender}{' (watching)' * spectator}: {text}"


def refused(what: str, error: GatewayError) -> str:
    """The status line of a refused chat call: the reason, and the code when there is one."""
    code = f" ({error.code})" if error.code else ""
    return f"{what} refused: {error.message}{code}"


class ChatInput(Input):
    """The chat line: letters are text here, not action keys; Escape gives the keys back."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape", "close", "back to the table", show=False)
    ]

    def action_close(self) -> None:
        self.value = ""
        self.display = False
        self.screen.query_one("#amount", Input).focus()


class ChatKeys:
    """The chat's key, the line's submission and the stream of messages."""

    model: TableModel
    chat_names: dict[str, str]  # names seen in the chat (lower case) -> player id

    @property
    def client(self) -> GatewayClient:
        raise NotImplementedError

    def set_status(self, text: str) -> None:
        raise NotImplementedError

    def redraw(self) -> None:
        raise NotImplementedError

    def chat_input(self) -> ChatInput:
        raise NotImplementedError

    def action_chat(self) -> None:
        line = self.chat_input()
        line.display = True
        line.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "chat":
            return
        text = event.value.strip()
        line = self.chat_input()
        line.action_close()
        if not text:
            return
        word, _, name = text.partition(" ")
        if word in MUTE_WORDS:
            self.mute(name.strip(), MUTE_WORDS[word])
        else:
            self.post(text)

    def player_named(self, name: str) -> str | None:
        """The player id of ``name`` (a seated player's or a chat sender's), None if unknown."""
        wanted = name.lower()
        for seat, seat_name in self.model.names.items():
            if seat_name.lower() == wanted and self.model.players.get(seat):
                return self.model.players[seat]
        return self.chat_names.get(wanted)

    @work(group="chat")
    async def post(self, text: str) -> None:
        try:
            await self.client.send_chat(text, table_id=self.model.table_id)
        except GatewayError as error:
            self.set_status(refused("chat", error))

    @work(group="chat")
    async def mute(self, name: str, muted: bool) -> None:
        player_id = self.player_named(name)
        if player_id is None:
            self.set_status(f"nobody called {name!r} here")
            return
        try:
            everyone = await self.client.mute_chat_player(player_id, muted)
        except GatewayError as error:
            self.set_status(refused("mute", error))
            return
        said = "muted" if muted else "unmuted"
        self.set_status(f"{said} {name} ({len(everyone)} muted)")

    @work(group="chat-stream")
    async def follow_chat(self) -> None:
        """The table's messages into the log, resumed by the client after a drop."""
        try:
            async for message in self.client.watch_chat(table_id=self.model.table_id):
                sender = message.sender_name or message.sender_id[:8]
                self.chat_names[sender.lower()] = message.sender_id
                self.model.log.append(chat_line(sender, message.text, spectator=message.spectator))
                self.redraw()
        except GatewayError as error:
            self.set_status(refused("chat", error))
