"""Shared helpers: random deals (seeded) and the service starter from tests/services."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tests.services.conftest import start  # noqa: F401  (fixture re-export)


def random_deals(count: int, cards: int, seed: int) -> npt.NDArray[np.int64]:
    """``count`` rows of ``cards`` distinct cards each."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((count, 52)), axis=1)[:, :cards].astype(np.int64)
