"""Chat, pure: what a message may say and how often (text.py: length, links, the word list;
flood.py: the rate and repeats of one sender), where it goes and who reads it (rooms.py: the
lobby room, a table's players and its spectators), and who may not speak or read (moderation.py:
one player's mutes of others, a moderator's sanctions). No I/O: the gateway stores and streams
the messages (services/gateway/chat*.py); docs/chat.md says the rules."""
