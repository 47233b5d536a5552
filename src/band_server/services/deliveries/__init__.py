"""Per-agent delivery of messages: the marks, /next, leases, passing over, the working indicator."""
