"""Tiny pure-Python core shared by the SDK: failures and payload validation."""
