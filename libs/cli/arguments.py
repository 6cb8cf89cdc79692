"""Command-line values checked where argparse reads them: a number out of its range (or not a
number) is the command's usage error, before anything starts."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["number", "whole_number"]


def whole_number(low: int, high: int, what: str) -> Callable[[str], int]:
    """An argparse ``type``: an integer from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{what} must be a whole number, not {text[:20]!r}"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{what} must be {low:,} to {high:,}, got {value:,}")
        return value

    return parse


def number(low: float, high: float, what: str) -> Callable[[str], float]:
    """An argparse ``type``: a number from ``low`` to ``high`` (NaN is in no range)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{what} must be a number, not {text[:20]!r}"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"{what} must be {low:,g} to {high:,g}, got {text[:20]}"
            )
        return value

    return parse
