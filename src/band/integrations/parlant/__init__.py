"""Parlant glue: running a Parlant server in-process (free ports, ready when yielded) for
callers that bring their own server to ``band.adapters.ParlantAdapter(server=...)``; Band's
tools as Parlant tools (``tools``); which room a tool call acts on (``sessiontools``)."""

from __future__ import annotations

from .ports import ServerPorts, reserve_server_ports
from .server import running_parlant_server

__all__ = ["ServerPorts", "reserve_server_ports", "running_parlant_server"]
