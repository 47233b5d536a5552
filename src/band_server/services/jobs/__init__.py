"""Background jobs a node runs for its people: bulk deletions of their rooms and agents."""
