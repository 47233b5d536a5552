"""Rooms, their members and rosters: membership (the root of every authorisation), invites,
listing, reading, a person's notification levels, and the room's files."""
