"""Fan-out: hands committed events to every node's realtime hub."""
