"""Idempotency-Key records, keys riding on a speech post's message, sealed replays."""
