"""Tournaments: the pure aggregate of libs/tournament (decide/evolve, the floor, payouts)."""
