"""Accounts and tokens: registering (a password account, or a bot's), guests, logins, logout and
token checks. An account is a username's claim (libs/lobby/account.py) and a player's stream
(its wallet, granted the starting chips); clients' registrations and guests are limited per
address, failed logins per username and address (limits.py)."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass

from libs.auth import InvalidToken, TokenClaims, issue, verify
from libs.auth.tokens import INVALID_TOKEN
from libs.errors import AlreadyExists, InvalidArgument, Unauthenticated, echo
from libs.lobby import account, wallet_decide
from libs.lobby.account import Account, account_key
from libs.lobby.passwords import DUMMY_HASH, check_strength, hash_password, verify_password
from libs.lobby.wallet import Wallet
from services.lobby.base import LobbyBase

INVALID_USERNAME = "INVALID_USERNAME"
INVALID_DISPLAY_NAME = "INVALID_DISPLAY_NAME"
INVALID_CREDENTIALS = "INVALID_CREDENTIALS"

USERNAME = re.compile(r"^[A-Za-z0-9_.-]{3,32}$")
MAX_DISPLAY_NAME = 32


@dataclass(frozen=True)
class Session:
    token: str
    claims: TokenClaims
    player: Wallet


def _display_name(text: str, fallback: str) -> str:
    name = text.strip() or fallback
    if not 1 <= len(name) <= MAX_DISPLAY_NAME or not name.isprintable():
        raise InvalidArgument(
            INVALID_DISPLAY_NAME, f"a display name has 1-{MAX_DISPLAY_NAME} printable characters"
        )
    return name


class Accounts(LobbyBase):
    async def register(
        self,
        username: str,
        password: str,
        display_name: str = "",
        peer: str = "",
        bot: bool = False,
        client: bool = False,
    ) -> Wallet:
        """A new account; ``client``: asked by a client (through the gateway), counted per
        address like guests (RESOURCE_EXHAUSTED, TOO_MANY_ACCOUNTS, before anything is written;
        operators' tools are not counted)."""
        username = username.strip()
        if not USERNAME.match(username):
            raise InvalidArgument(
                INVALID_USERNAME, "a username has 3-32 letters, digits, '_', '-' or '.'"
            )
        display = _display_name(display_name, username)
        check_strength(password)
        key = account_key(username)
        if (await self.stores.accounts.get(key)).exists:
            raise account_taken(username)
        if client and not bot and self.accounts is not None:
            await self.accounts.take(peer)
        digest = await self.limiter.hash_work(peer, lambda: hash_password(password))
        return await self._open(key, username, display, False, digest, bot)

    async def guest(self, display_name: str, peer: str = "") -> Session:
        """A new guest player and its token; at most ``guests.per_address`` per window from one
        client address (RESOURCE_EXHAUSTED, TOO_MANY_GUESTS, before anything is written)."""
        display = _display_name(display_name, "")
        await self.guests.take(peer)
        username = f"guest-{uuid.uuid4().hex[:12]}"
        player = await self._open(account_key(username), username, display, True, "")
        return self._session(player)

    async def _open(
        self, key: str, username: str, display: str, guest: bool, digest: str, bot: bool = False
    ) -> Wallet:
        player_id = uuid.uuid4().hex
        await self.stores.player_index.put(player_id)  # findable before its first commit
        now = self.clock()
        opened = await self.stores.accounts.execute(
            key,
            lambda a: account.open_account(
                a, player_id, username, display, guest, digest, now, bot
            ),
            msg_id=f"open-{player_id}",
        )
        if opened.player_id != player_id:
            raise account_taken(username)
        return await self._complete(opened)

    async def _complete(self, opened: Account) -> Wallet:
        """The player's own stream, written after the account (again, harmlessly, on login: a
        registration cut short between the two is finished here)."""
        now = self.clock()
        player = await self.players.get(opened.player_id)
        if player.registered:
            return player
        return await self.players.execute(
            opened.player_id,
            lambda w: wallet_decide.register(
                w, opened.username, opened.display_name, opened.guest, opened.bot, self.grant, now
            ),
            msg_id="registered",
        )

    async def login(self, username: str, password: str, peer: str) -> Session:
        await self.limiter.check(username, peer)
        found = await self.stores.accounts.get(account_key(username))
        usable = found.exists and not found.guest and bool(found.password_hash)
        encoded = found.password_hash if usable else DUMMY_HASH
        # Verify even for unknown users, so the time taken does not tell which names exist.
        ok = await self.limiter.hash_work(peer, lambda: verify_password(encoded, password))
        if not (ok and usable):
            await self.limiter.failed(username, peer)
            raise Unauthenticated(INVALID_CREDENTIALS, "invalid username or password")
        await self.limiter.succeeded(username, peer)
        return self._session(await self._complete(found))

    def _session(self, player: Wallet) -> Session:
        token, claims = issue(
            self.ring,
            player_id=player.player_id,
            username=player.username,
            display_name=player.display_name,
            guest=player.guest,
            now=self.clock(),
            ttl_seconds=self.token_ttl,
        )
        return Session(token, claims, player)

    def _claims(self, token: str) -> TokenClaims:
        try:
            return verify(self.ring, token, now=self.clock())
        except InvalidToken:
            raise Unauthenticated(INVALID_TOKEN, "invalid, expired or revoked token") from None

    async def logout(self, token: str) -> None:
        await self.revocations.revoke(self._claims(token))

    async def authenticate(self, token: str) -> Wallet:
        claims = self._claims(token)
        if await self.revocations.is_revoked(claims.jti):
            raise Unauthenticated(INVALID_TOKEN, "invalid, expired or revoked token")
        return await self.player(claims.player_id)


def account_taken(username: str) -> Exception:
    return AlreadyExists(account.USERNAME_TAKEN, f"username {echo(username)} is taken")
