"""Compat suite: the official band-sdk client against our server (see FINDINGS.md)."""
