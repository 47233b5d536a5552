"""People, agents and their keys: accounts, sign-in sessions and their devices, passwords,
invitation and reset links (and their mail), single sign-on, profiles, roles, parties and the
key cache."""
