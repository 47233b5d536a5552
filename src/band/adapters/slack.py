"""``SlackAdapter`` under ``band.adapters`` (the code is in ``band.integrations.slack``)."""

from band.integrations.slack.adapter import SlackAdapter, SlackAdapterConfig
from band.integrations.slack.types import SlackApp, SlackSessionState

__all__ = ["SlackAdapter", "SlackAdapterConfig", "SlackApp", "SlackSessionState"]
