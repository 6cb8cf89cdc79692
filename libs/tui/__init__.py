"""The terminal client (``holdem play`` / ``holdem watch``): the textual app and its screens, and
the pure model of what they show."""
