"""Shared helpers: random deals (seeded) and the service starter from tests/services."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest

from libs.poker.fast import evaluator as fast_evaluator
from tests.services.conftest import start  # noqa: F401  (fixture re-export)


def random_deals(count: int, cards: int, seed: int) -> npt.NDArray[np.int64]:
    """``count`` rows of ``cards`` distinct cards each."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :cards].astype(np.int64)


def skip_module_unless_native() -> None:
    """Skip the calling test module, saying how to build it, when the C extension is not built."""
    if not fast_evaluator.NATIVE_AVAILABLE:
        pytest.skip(
            "libs.poker.fast._native is not built (no C compiler when the project was installed?); "
            "`.venv/bin/python -m pip install --no-deps -e .` builds it",
            allow_module_level=True,
        )
