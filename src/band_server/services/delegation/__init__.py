"""Delegated-token exchange, target systems and people's consents, and the exchange's rate limit."""
