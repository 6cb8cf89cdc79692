"""Tournaments, pure (no I/O): the settings of a tournament and their validators.

- :mod:`.config`, :mod:`.structure`, :mod:`.payouts`: settings, blind structures and presets,
  payout tables; each with its validator.
"""
