"""The ``start`` fixture of tests/services (services as processes) for the cluster tests."""

from tests.services.conftest import start  # noqa: F401  (fixture re-export)
