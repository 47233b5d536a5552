"""The Claude Desktop room view (``band-room-view``): a local stdio MCP server that lets a
Desktop conversation work in one Band room as the connected agent.

``server`` (needs the ``desktop`` extra: ``mcp``) exposes four tools (join, create, show, wait
for a room event) and the live room view resource; ``service`` reads the agent's transcript of
a room over REST; ``event_relay`` shares one Band WebSocket between Desktop's processes and
wakes waits when a room changes; ``room``, ``tools``, ``attention``, ``prompts``, ``settings``,
``view`` and ``logs`` hold the models, the tool contracts, per-room bookkeeping, the words the
model reads, configuration, the view document and logging.
"""
