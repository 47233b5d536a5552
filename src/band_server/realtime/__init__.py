"""The realtime socket: Phoenix Channels v2 framing, subscriptions and per-socket routing."""
