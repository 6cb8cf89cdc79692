"""Tests of libs/chat: the text rules, the flood guard, rooms and moderation (pure)."""
