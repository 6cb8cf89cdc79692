"""The `holdem` command-line tool."""
