"""Short stacks played from solved strategies: the 169 starting-hand classes, their all-in
equities, and the push-or-fold equilibrium computed by fictitious play (solver.py)."""
