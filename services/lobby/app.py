"""Lobby use cases, put together: ``Lobby`` is accounts and tokens (accounts.py), the table
catalogue (listings.py; private tables: private_seats.py; waiting lists: waitlists.py) and,
here, wallets: a player's ledger by page, and the house AIs (bot players with wallets, no
accounts) that CreateTable seats. Every change is a commit of an event-sourced aggregate
(libs/lobby, stored by services/lobby/store.py); nothing lives only in memory but caches and
read models rebuilt from the streams at start. Seating (the buy-in and leave sagas) is in
sagas.py, cash-outs in cashout.py, the chip audit in audit.py; protobuf in wire.py (the
servicer's side)."""

from __future__ import annotations

from libs.lobby import wallet, wallet_codec, wallet_decide
from libs.lobby.wallet import Wallet
from services.lobby.accounts import Accounts
from services.lobby.base import MAX_PAGE_SIZE, page_start
from services.lobby.private_seats import PrivateSeats
from services.lobby.waitlists import Waitlists


def house_ai_id(level: str, number: int) -> str:
    """The player id of the ``number``-th house AI of ``level`` (1, 2, ...): a table's AIs of
    one level are different players, the same ones at every table."""
    return f"ai-{level}-{number}"


class Lobby(Accounts, PrivateSeats, Waitlists):
    async def ledger(
        self, player_id: str, page_size: int, page_token: str
    ) -> tuple[list[wallet.Entry], str]:
        """One page of the player's ledger, oldest first, and the next page's token. The wallet
        keeps its latest entries (``wallet.LEDGER_WINDOW``); a page before them is folded from
        the player's stream, which keeps every event (a read of the stream up to that page)."""
        found = await self.player(player_id)
        size = min(page_size or MAX_PAGE_SIZE, MAX_PAGE_SIZE)
        start = page_start(page_token)
        oldest = found.ledger[0].index if found.ledger else found.entries + 1
        if start + 1 >= oldest or start >= found.entries:
            entries = [e for e in found.ledger if e.index > start][:size]
        else:
            commits = await self.players.repository.events.read(player_id)
            events = (event for commit in commits for event in wallet_codec.decode(commit.data))
            entries = wallet.ledger_of(player_id, events, after=start, limit=size)
        more = bool(entries) and entries[-1].index < found.entries
        return entries, str(entries[-1].index) if more else ""

    async def house_ai(self, level: str, number: int, buy_in: int, key: str) -> Wallet:
        """The house AI ``house_ai_id(level, number)``, registered on first use (a bot player
        with a wallet and the grant, no account: nobody logs in as it), its balance granted up
        to ``buy_in`` when short (the grant's commit id ``grant-<key>``)."""
        player_id = house_ai_id(level, number)
        now = self.clock()
        if not (await self.players.get(player_id)).registered:
            await self.stores.player_index.put(player_id)  # findable before its first commit
            name = f"{level.capitalize()} AI {number}"
            await self.players.execute(
                player_id,
                lambda w: wallet_decide.register(
                    w, player_id, name, False, True, self.grant, now, level
                ),
                msg_id="registered",
            )
        return await self.players.execute(
            player_id,
            lambda w: wallet_decide.house_grant(w, buy_in, self.grant, now),
            msg_id=f"grant-{key}",
        )
