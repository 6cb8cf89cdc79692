"""Lobby service: players (register, login, tokens), virtual-chip wallets, the table catalogue."""
