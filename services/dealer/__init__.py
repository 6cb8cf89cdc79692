"""Dealer service: CSPRNG seeds, provably-fair deck commitments, dealing by card index."""
