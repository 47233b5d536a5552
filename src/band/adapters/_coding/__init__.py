"""What the coding-agent adapters (Codex, ACP) share: per-room processes, approvals relayed
to the room, room commands, detachable turns and the mapping of agent activity to events."""
