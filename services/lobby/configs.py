"""A listed table's config as the catalogue keeps it: the holdem.common.v1.TableConfig message
the client named, base64 (``TableListed.config``), which is also what the table service is
opened with. Read back as the table it describes (``table_config``) by the use cases, which
know it only as text."""

from __future__ import annotations

import base64

from holdem.common.v1 import common_pb2

from libs.table import TableConfig
from libs.tableproto.config import config_from_proto


def encode_config(config: common_pb2.TableConfig) -> str:
    return base64.b64encode(config.SerializeToString()).decode()


def decode_config(text: str) -> common_pb2.TableConfig:
    return common_pb2.TableConfig.FromString(base64.b64decode(text))


def table_config(text: str) -> TableConfig:
    """The table a listing's stored config describes."""
    return config_from_proto(decode_config(text))
