"""The tournament service: tournaments stored as event-sourced aggregates (``store``) and the
director (``director``), the process manager that carries out each tournament's directives on
tables and wallets and reports back, resuming after a crash (docs/tournaments.md)."""
