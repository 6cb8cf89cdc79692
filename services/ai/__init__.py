"""AI service: decisions for Easy / Normal / Hard bots from a player's view only."""
