"""Agent memories: stored by one agent, seen by that agent and its owner."""
