"""Slack for a Band agent: ``SlackAdapter`` wraps the adapter that thinks and adds Slack.

Events over HTTP (mount ``adapter.router``) or Socket Mode; replies into the Slack thread.
Needs ``pip install 'openband[slack]'`` (slack-sdk, aiohttp for Socket Mode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

if TYPE_CHECKING:
    from .adapter import SlackAdapter, SlackAdapterConfig
    from .types import SlackApp, SlackSessionState

__all__ = ["SlackAdapter", "SlackAdapterConfig", "SlackApp", "SlackSessionState"]

_EXPORTS = {
    "SlackAdapter": "band.integrations.slack.adapter",
    "SlackAdapterConfig": "band.integrations.slack.adapter",
    "SlackApp": "band.integrations.slack.types",
    "SlackSessionState": "band.integrations.slack.types",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())
