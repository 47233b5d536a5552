"""``band bridge`` and ``band runtime``: Band for runtimes that cannot hold a socket.

The bridge holds one socket per agent and forwards every event, as an envelope, to a
runtime over HTTP (in order per room, concurrently across rooms), or, in daemon mode, to a
provider process it starts per room on demand. ``band runtime`` serves the AgentCore
runtime contract (``POST /invocations``, ``GET /ping``) and calls ``OneShotInvoker``.
"""
