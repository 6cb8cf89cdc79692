"""The lobby's domain, pure (no I/O): players' accounts and wallets, the table catalogue, and the
chip audit. Each aggregate is a ``decide`` (command + state -> events, or a refusal) and an
``evolve`` (state + event -> state); services/lobby stores the events as JetStream commits.

- :mod:`.codec`: events and states to and from JSON (commits and Redis snapshots).
- :mod:`.wallet`: a player's profile and wallet: grant, reservations of sagas in flight, chips at
  tables, cash-outs deduplicated by table commit, and the ledger (its events and ``evolve``);
  :mod:`.wallet_decide`, what it allows; :mod:`.wallet_codec`, how it is stored.
- :mod:`.account`: a username's credentials (the claim that makes a username unique).
- :mod:`.catalogue`: one listed table: its settings, who created it, whether it is closed.
- :mod:`.passwords`: argon2id hashing (parameters stored with the hash) and minimum strength.
- :mod:`.audit`: the chip invariant, wallets + reserved + at tables + rake = grants.

Pure like libs/table: no I/O, protobuf or grpc (the lobby service translates to and from its
messages: services/lobby/wire.py).
"""
