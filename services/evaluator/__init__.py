"""Evaluator service: hand ranking (high and 8-or-better low), showdown resolution, equity.
Stateless."""
