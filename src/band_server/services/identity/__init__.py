"""People, agents and their keys: accounts, sign-in sessions, profiles, roles, parties and the
key cache."""
