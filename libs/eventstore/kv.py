"""Opening a NATS KV bucket, created when it does not exist yet: the one way every bucket of the
platform is opened (leases, the registry of open tables, the lobby's indexes, revoked tokens).
"""

from __future__ import annotations

from nats.js import JetStreamContext
from nats.js.api import KeyValueConfig
from nats.js.errors import BucketNotFoundError
from nats.js.kv import KeyValue


async def open_bucket(js: JetStreamContext, config: KeyValueConfig) -> KeyValue:
    """Bucket ``config.bucket``: the existing one as it is, else a new one made with ``config``
    (two processes making it at once make one: JetStream takes the same config twice)."""
    try:
        return await js.key_value(config.bucket)
    except BucketNotFoundError:
        return await js.create_key_value(config)
