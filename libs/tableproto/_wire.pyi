"""Types of the optional C reader of stored commits (libs/tableproto/_wire.c)."""

API_VERSION: int

def split(payload: bytes, /) -> tuple[int, int, bool, list[str], list[int], bytes, bool]: ...
