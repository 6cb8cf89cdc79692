"""Dealer service: CSPRNG seeds, provably-fair deck commitments, dealing by deck position."""
