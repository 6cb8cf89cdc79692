"""The lobby's chat in the terminal client ([F7] in the lobby; docs/client.md): the messages kept
and new ones as they come ("Name: text"), a line to type into (Enter sends; ``/mute NAME`` and
``/unmute NAME`` for a name seen in this chat), a refusal's reason and code under it; Escape
goes back to the lobby."""

from __future__ import annotations

from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, Label, RichLog, Static

from libs.client import GatewayError
from libs.tui.chatpane import MUTE_WORDS, chat_line, refused
from libs.tui.host import host


class LobbyChatScreen(Screen[None]):
    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        Binding("escape", "app.pop_screen", "back to the lobby"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.names: dict[str, str] = {}  # a sender's name (lower case) -> their player id

    def compose(self) -> ComposeResult:
        yield Static("Lobby chat · Enter sends · /mute NAME · Esc back", id="lobby-chat-header")
        yield RichLog(id="lobby-chat-log", wrap=True, markup=False, auto_scroll=True)
        yield Input(placeholder="say something", id="lobby-chat-line", max_length=500)
        yield Label("", id="lobby-chat-status", classes="error")

    def on_mount(self) -> None:
        self.query_one("#lobby-chat-line", Input).focus()
        self.follow()

    def show_status(self, text: str) -> None:
        self.query_one("#lobby-chat-status", Label).update(text)

    @on(Input.Submitted, "#lobby-chat-line")
    def submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        word, _, name = text.partition(" ")
        if word in MUTE_WORDS:
            self.mute(name.strip(), MUTE_WORDS[word])
        elif text:
            self.post(text)

    @work(group="lobby-chat")
    async def post(self, text: str) -> None:
        try:
            await host(self).client.send_chat(text)
        except GatewayError as error:
            self.show_status(refused("chat", error))
            return
        self.show_status("")

    @work(group="lobby-chat")
    async def mute(self, name: str, muted: bool) -> None:
        player_id = self.names.get(name.lower())
        if player_id is None:
            self.show_status(f"nobody called {name!r} in this chat")
            return
        try:
            everyone = await host(self).client.mute_chat_player(player_id, muted)
        except GatewayError as error:
            self.show_status(refused("mute", error))
            return
        self.show_status(f"{'muted' if muted else 'unmuted'} {name} ({len(everyone)} muted)")

    @work(group="lobby-chat-stream")
    async def follow(self) -> None:
        log = self.query_one("#lobby-chat-log", RichLog)
        try:
            async for message in host(self).client.watch_chat():
                sender = message.sender_name or message.sender_id[:8]
                self.names[sender.lower()] = message.sender_id
                log.write(chat_line(sender, message.text, spectator=False))
        except GatewayError as error:
            self.show_status(refused("chat", error))
