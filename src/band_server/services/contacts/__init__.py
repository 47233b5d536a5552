"""Contacts and contact requests, the human surface's view of them, and peers (whom a caller
can reach)."""
