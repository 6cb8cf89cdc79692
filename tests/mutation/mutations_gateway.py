"""One-line bugs in how the gateway and the lobby scope idempotency keys: the table looks a
command's key up alone (per table, whoever sent it) and a wallet's saga is keyed by its id, so a
client's key must be made the caller's own (per player, per kind of call, per table for the
house's own keys) before it reaches them. Each would hand one caller another's outcome."""

from __future__ import annotations

from tests.mutation.model import Mutation

KEYS = ("tests/gateway/test_gateway_keys.py",)

MUTATIONS = [
    Mutation(
        "keys: the gateway scopes a client's key without the player",
        "services/gateway/commands.py",
        'digest = hashlib.sha256(f"{player_id}\\x00{key}".encode()).hexdigest()[:40]',
        "digest = hashlib.sha256(key.encode()).hexdigest()[:40]",
        tests=KEYS,
    ),
    Mutation(
        "keys: the gateway scopes a client's key without the kind of call",
        "services/gateway/commands.py",
        'return f"gw-{kind}-{digest}"',
        'return f"gw-{digest}"',
        tests=KEYS,
    ),
    Mutation(
        "keys: the lobby's saga id without the player",
        "services/lobby/saga_common.py",
        'hashlib.sha256(f"{kind}\\n{player_id}\\n{key}".encode())',
        'hashlib.sha256(f"{kind}\\n{key}".encode())',
        tests=(*KEYS, "tests/gateway/test_gateway_wallets.py"),
    ),
    Mutation(
        "keys: a house AI's seat key without the table",
        "services/lobby/sagas.py",
        'places.append((level, numbers[level], f"ai-{table_id}-{index}"))',
        'places.append((level, numbers[level], f"ai-{index}"))',
        tests=("tests/gateway/test_gateway_ais.py",),
    ),
]
