"""Least privilege inside the local stack: one NATS user and one Redis ACL user per service,
each allowed only the subjects, streams, buckets and keys that service uses.

``StackAccess.generate()`` makes a fresh password for every user (nothing fixed, nothing
reused between runs); ``write(dir)`` writes what the servers load (``nats.conf``,
``redis-users.acl``) and ``credentials.json`` (every user's password, for operators and tests),
each file 0600. A service gets its credentials through its existing settings
(``nats://table:<password>@host:port``, ``redis://table:<password>@host:port/0``), so no service
code knows about any of this; a service with no user here (dealer, evaluator and ai on NATS;
gateway, evaluator and ai on Redis) gets the bare URL and cannot connect at all.

What each user may do (the names are the ones in the code: libs/eventstore, services/*):

- NATS ``table``: the only user that publishes to or reads ``holdem.table.>`` (every event with
  hole cards, stream ``HOLDEM_TABLES``); publishes the public projection ``holdem.public.table.>``
  (``HOLDEM_PUBLIC``); the KV buckets ``holdem_tables`` (registry), ``holdem_table_shards``
  (the shards in use) and ``holdem_table_leases`` (+ ``_members``).
- NATS ``gateway``: subscribes to ``holdem.public.table.>`` only (live watch), reads
  ``HOLDEM_PUBLIC`` through JetStream, watches the ``holdem_revoked`` bucket. It reaches nothing
  of ``HOLDEM_TABLES`` (no JetStream API on it, no ``holdem.table.>``): a player's hand history
  is asked of the table service (``GetHandHistory``), which reads its own stream. It owns chat:
  ``holdem.chat.>`` (stream ``HOLDEM_CHAT``) and the buckets ``holdem_chat_mutes`` and
  ``holdem_chat_sanctions``.
- NATS ``lobby``: ``holdem.lobby.>`` (``HOLDEM_LOBBY``), its KV buckets ``holdem_lobby_*``,
  ``holdem_revoked`` (writes revocations), and its durable cash-out consumer on ``HOLDEM_PUBLIC``.
- NATS ``tournament``: ``holdem.tournament.>`` (``HOLDEM_TOURNAMENTS``), its buckets
  ``holdem_tournaments`` (index), ``holdem_tournament_sagas`` (registrations) and
  ``holdem_tournament_leases`` (+ ``_members``: one director per tournament), and reads the
  public projection (``HOLDEM_PUBLIC``, subscribes to ``holdem.public.table.>``) for the hands'
  results; nothing of ``HOLDEM_TABLES``.
- NATS ``spectator``: the public projection only (what ``holdem stack up --demo-hands`` prints).
- Every user subscribes only to its own reply inbox ``_INBOX_<user>.>`` (libs.platform.natsconn
  sets the prefix from the URL's user), so no user reads another's JetStream deliveries.
- Redis ``table``: ``holdem:snapshot:*``; ``dealer``: ``holdem:dealer:*``; ``lobby``:
  ``holdem:lobby:*``; ``tournament``: ``holdem:tournament:*``; none may run admin or dangerous
  commands (CONFIG, KEYS, FLUSHALL, ...) or use pub/sub; the default user is off.
- ``admin`` (both servers): everything, for an operator's tools; no service uses it.
"""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, urlsplit, urlunsplit

from libs.eventstore.jetstream import TABLE_STREAM
from libs.platform.natsconn import inbox_prefix

__all__ = [
    "NATS_PERMISSIONS",
    "REDIS_KEYS",
    "NatsPermissions",
    "StackAccess",
    "inbox_prefix",
    "with_credentials",
]

ADMIN = "admin"
CREDENTIALS_FILE = "credentials.json"
NATS_CONF = "nats.conf"
REDIS_ACL = "redis-users.acl"


def _stream_api(stream: str, *, write: bool = False, durable: bool = False) -> list[str]:
    """JetStream API subjects to read stream ``stream`` through consumers and direct gets
    (``write``: also create and update it; ``durable``: durable consumers and their acks)."""
    subjects = [
        "$JS.API.INFO",
        "$JS.API.STREAM.NAMES",
        f"$JS.API.STREAM.INFO.{stream}",
        f"$JS.API.STREAM.MSG.GET.{stream}",
        f"$JS.API.DIRECT.GET.{stream}",
        f"$JS.API.DIRECT.GET.{stream}.>",
        f"$JS.API.CONSUMER.CREATE.{stream}",
        f"$JS.API.CONSUMER.CREATE.{stream}.>",
        f"$JS.API.CONSUMER.INFO.{stream}.*",
        f"$JS.API.CONSUMER.DELETE.{stream}.*",
        f"$JS.API.CONSUMER.MSG.NEXT.{stream}.*",
        f"$JS.FC.{stream}.>",
    ]
    if write:
        subjects += [f"$JS.API.STREAM.CREATE.{stream}", f"$JS.API.STREAM.UPDATE.{stream}"]
    if durable:
        subjects += [f"$JS.API.CONSUMER.DURABLE.CREATE.{stream}.*", f"$JS.ACK.{stream}.>"]
    return subjects


def _bucket(bucket: str, *, write: bool = True) -> list[str]:
    """A KV bucket (stream ``KV_<bucket>``): read and watch it; ``write``: create and put."""
    subjects = _stream_api(f"KV_{bucket}", write=write)
    return subjects + ([f"$KV.{bucket}.>"] if write else [])


@dataclass(frozen=True)
class NatsPermissions:
    """What one NATS user may publish to and subscribe to (its own inbox is added)."""

    publish: tuple[str, ...]
    subscribe: tuple[str, ...] = ()


#: Who holds each shard of tables, and where each table replica answers (read only): the callers
#: of the table service route each table's calls to its holder (libs/platform/routing.py).
TABLE_OWNERS = (
    *_bucket("holdem_table_leases", write=False),
    *_bucket("holdem_table_leases_members", write=False),
)

NATS_PERMISSIONS: Mapping[str, NatsPermissions] = {
    "table": NatsPermissions(
        publish=(
            "holdem.table.>",
            "holdem.public.table.>",
            *_stream_api(TABLE_STREAM, write=True),
            *_stream_api("HOLDEM_PUBLIC", write=True),
            *_bucket("holdem_tables"),
            *_bucket("holdem_table_leases"),
            *_bucket("holdem_table_leases_members"),
            *_bucket("holdem_table_shards"),
        ),
    ),
    "gateway": NatsPermissions(
        publish=(
            *_stream_api("HOLDEM_PUBLIC"),
            *_bucket("holdem_revoked", write=False),
            # chat (services/gateway/chatstore.py): players' words only, no game information
            "holdem.chat.>",
            *_stream_api("HOLDEM_CHAT", write=True),
            *_bucket("holdem_chat_mutes"),
            *_bucket("holdem_chat_sanctions"),
            *TABLE_OWNERS,
        ),
        subscribe=("holdem.public.table.>",),
    ),
    "lobby": NatsPermissions(
        publish=(
            "holdem.lobby.>",
            *_stream_api("HOLDEM_LOBBY", write=True),
            *_stream_api("HOLDEM_PUBLIC", write=True, durable=True),  # made if first up
            *_bucket("holdem_lobby_players"),
            *_bucket("holdem_lobby_tables"),
            *_bucket("holdem_lobby_sagas"),
            *_bucket("holdem_lobby_feed_leases"),  # who reads the feeds (feed_lease.py)
            *_bucket("holdem_lobby_feed_leases_members"),
            *_bucket("holdem_revoked"),
            *TABLE_OWNERS,
        ),
    ),
    "tournament": NatsPermissions(
        publish=(
            "holdem.tournament.>",
            *_stream_api("HOLDEM_TOURNAMENTS", write=True),
            *_stream_api("HOLDEM_PUBLIC"),  # each released hand's result (no hidden card)
            *_bucket("holdem_tournaments"),
            *_bucket("holdem_tournament_sagas"),
            *_bucket("holdem_tournament_leases"),
            *_bucket("holdem_tournament_leases_members"),
            *TABLE_OWNERS,
        ),
        subscribe=("holdem.public.table.>",),
    ),
    "spectator": NatsPermissions(
        publish=(*_stream_api("HOLDEM_PUBLIC"),), subscribe=("holdem.public.table.>",)
    ),
}

#: Redis key patterns per service user (the services' key prefixes).
REDIS_KEYS: Mapping[str, tuple[str, ...]] = {
    "table": ("holdem:snapshot:*",),
    "dealer": ("holdem:dealer:*",),
    "lobby": ("holdem:lobby:*",),
    "tournament": ("holdem:tournament:*",),
}


def nats_password_variable(user: str) -> str:
    """The environment variable a deployed nats-server reads ``user``'s password from."""
    return f"HOLDEM_NATS_{user.upper()}_PASSWORD"


def nats_users_config(password: Callable[[str], str]) -> str:
    """The ``authorization`` block of a nats-server configuration: every user of
    ``NATS_PERMISSIONS`` with its permissions (and its own inbox), and ``admin``.
    ``password(user)`` is the password as configuration text: a quoted string (the local stack)
    or ``$VARIABLE`` (deploy/nats/holdem-users.conf, filled from the environment)."""
    lines = ["authorization {", "  users = ["]
    for name, perms in NATS_PERMISSIONS.items():
        publish = json.dumps(list(dict.fromkeys(perms.publish)))
        subscribe = json.dumps([*perms.subscribe, f"{inbox_prefix(name)}.>"])
        lines.append(
            f"    {{user: {json.dumps(name)}, password: {password(name)}, permissions: "
            f"{{publish: {{allow: {publish}}}, subscribe: {{allow: {subscribe}}}}}}}"
        )
    lines.append(f"    {{user: {json.dumps(ADMIN)}, password: {password(ADMIN)}}}")
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def nats_users_template() -> str:
    """What deploy/nats/holdem-users.conf holds: the users, passwords from the environment."""
    header = (
        "# Generated from libs/devstack/access.py (nats_users_template); tests/deploy keeps it\n"
        "# equal. Each password comes from the environment (HOLDEM_NATS_<USER>_PASSWORD).\n"
    )
    return header + nats_users_config(lambda user: f"${nats_password_variable(user)}")


def redis_user_rule(user: str, password: str) -> str:
    """The ACL rule of a service's Redis user (``user ...``, as in an ACL file; without the
    leading "user " it is the value of redis-server's ``--user`` option)."""
    keys = " ".join(f"~{p}" for p in REDIS_KEYS[user])
    return f"user {user} on >{password} {keys} resetchannels +@all -@admin -@dangerous"


def _password() -> str:
    return secrets.token_urlsafe(24)  # URL-safe: it goes into nats:// and redis:// URLs as is


def with_credentials(url: str, user: str, password: str) -> str:
    """``url`` (or each of a comma-separated list) with ``user:password@`` in it."""
    out = []
    for one in url.split(","):
        parts = urlsplit(one.strip())
        netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{parts.hostname}"
        if parts.port is not None:
            netloc += f":{parts.port}"
        out.append(urlunsplit(parts._replace(netloc=netloc)))
    return ",".join(out)


@dataclass(frozen=True)
class StackAccess:
    """The users of one stack and their passwords."""

    nats_passwords: Mapping[str, str]
    redis_passwords: Mapping[str, str]

    @classmethod
    def generate(cls) -> StackAccess:
        return cls(
            {name: _password() for name in [*NATS_PERMISSIONS, ADMIN]},
            {name: _password() for name in [*REDIS_KEYS, ADMIN]},
        )

    # -- what the servers load -------------------------------------------------------------

    def nats_config(self) -> str:
        """nats-server configuration: the users, their passwords and permissions."""
        return nats_users_config(lambda user: json.dumps(self.nats_passwords[user]))

    def redis_acl(self) -> str:
        """A Redis ACL file: the default user off, one user per service on its key patterns."""
        lines = ["user default off"]
        lines += [redis_user_rule(name, self.redis_passwords[name]) for name in REDIS_KEYS]
        lines.append(f"user {ADMIN} on >{self.redis_passwords[ADMIN]} ~* &* +@all")
        return "\n".join(lines) + "\n"

    def write(self, directory: Path) -> dict[str, Path]:
        """Write ``nats.conf``, ``redis-users.acl`` and ``credentials.json`` into ``directory``
        (made 0700), each 0600; their paths by name."""
        directory.mkdir(parents=True, exist_ok=True)
        directory.chmod(0o700)
        files = {
            NATS_CONF: self.nats_config(),
            REDIS_ACL: self.redis_acl(),
            CREDENTIALS_FILE: json.dumps(
                {"nats": dict(self.nats_passwords), "redis": dict(self.redis_passwords)},
                indent=2,
            )
            + "\n",
        }
        paths = {}
        for name, text in files.items():
            path = directory / name
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(text)
            path.chmod(0o600)  # an older file of another mode
            paths[name] = path
        return paths

    # -- what the clients get --------------------------------------------------------------

    def nats_url(self, user: str, url: str) -> str:
        """``url`` with ``user``'s credentials (the bare URL for a user that has none: it
        cannot connect)."""
        password = self.nats_passwords.get(user)
        return url if password is None else with_credentials(url, user, password)

    def redis_url(self, user: str, url: str) -> str:
        password = self.redis_passwords.get(user)
        return url if password is None else with_credentials(url, user, password)

    def users(self) -> Sequence[str]:
        return sorted({*self.nats_passwords, *self.redis_passwords})
