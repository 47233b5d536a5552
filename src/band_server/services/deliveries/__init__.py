"""Per-agent delivery of messages: the marks, /next, leases, passing over, the working
indicator, and an agent's turn on a message as a person opens it."""
