"""The table domain in protobuf: how libs.table's events, configs and actions look on the wire.

Why a package of its own: libs/table is pure like libs/poker (no protobuf, no I/O), and the
protobuf forms are needed by more than the table service: the CLI tools that read a table's
stream (``holdem chaos``, ``holdem verify``, the ``make run`` demo) decode its commits, and the
lobby validates table configs the same way the table does. A lib must never import a service,
so these translations cannot live in services/table. libs/eventstore is not the place either:
its stores deal in opaque commit payloads and stay generic over any aggregate (the lobby's
wallets will use them too), so what a table commit holds is not its business.

- ``envelope``: the table stream's storage format (one ``holdem.events.v1.Commit`` per command,
  holding its events) and the public projection published for clients.
- ``public``: decoding the public projection read from ``HOLDEM_PUBLIC`` (``read_public`` in
  libs.eventstore.projection reads it), and checking its chain of sequences for gaps.
- ``config``: ``holdem.common.v1.TableConfig`` <-> ``TableConfig`` (the table service and the
  lobby translate, and so validate, table configs the same way).
- ``actions``: ``ActionType`` <-> ``PlayerAction``, the one mapping of player actions.
"""
