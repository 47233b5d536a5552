"""Rooms, their members and rosters: membership (the root of every authorisation), invites,
listing, reading."""
