"""``OpencodeAdapterConfig``: which OpenCode server to use and how its turns behave.

Every field can also come from an ``OPENCODE_``-prefixed environment variable
(``OPENCODE_BASE_URL``, ``OPENCODE_MODEL_ID``, ...); an explicit value always wins.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import PositiveFloat, PositiveInt, model_validator

from band.adapters._coding.approvals import ApprovalMode
from band.adapters._coding.workspace import env_defaults
from band.core.adapterconfig import BaseAdapterConfig
from band.integrations.opencode.client import ApprovalReply

__all__ = ["ApprovalReply", "OpencodeAdapterConfig", "QuestionMode"]

QuestionMode = Literal["manual", "auto_reject"]
INSTALL_COMMAND = "npm install -g opencode-ai@1.18.33"


class OpencodeAdapterConfig(BaseAdapterConfig):
    """Settings of an ``OpencodeAdapter`` (frozen, unknown fields rejected).

    * ``base_url``: the ``opencode serve`` to talk to (default ``http://127.0.0.1:4096``);
      ``directory`` / ``workspace``: the project folder and workspace it works in.
    * ``provider_id`` / ``model_id`` (both or neither), ``agent``, ``variant``: sent with
      each prompt; unset, the server's own defaults apply.
    * ``fallback_send_agent_text``: when a turn did not reply through Band's tool, its final
      text is posted as the reply (OpenCode's models often just answer in text).
    * ``approval_mode``: ``manual`` relays OpenCode's permission asks to the room
      (``/approve``, ``/decline``, ``/approve-session``); ``auto_accept`` / ``auto_decline``
      answer them at once. Band's own tools are always allowed.
    * ``turn_timeout_s``: a turn running longer is aborted and reported (time spent
      waiting for an approval or an answer does not count).
    * ``question_mode``: ``manual`` posts the questions of OpenCode's question tool to the
      room, whose next message answers them (a line per question, or ``reject``) within
      ``question_wait_timeout_s``; ``auto_reject`` declines them at once.
    """

    base_url: str = "http://127.0.0.1:4096"
    directory: str | None = None
    workspace: str | None = None
    provider_id: str | None = None
    model_id: str | None = None
    agent: str | None = None
    variant: str | None = None
    custom_section: str = ""
    system_prompt: str | None = None
    include_base_instructions: bool = False
    fallback_send_agent_text: bool = True
    turn_timeout_s: PositiveFloat = 300.0
    approval_mode: ApprovalMode = ApprovalMode.MANUAL
    approval_wait_timeout_s: PositiveFloat = 300.0
    approval_timeout_reply: ApprovalReply = "reject"
    question_mode: QuestionMode = "manual"
    question_wait_timeout_s: PositiveFloat = 300.0
    session_title_prefix: str = "Band"
    mcp_server_name: str = "band"
    max_history_messages: PositiveInt = 50

    @model_validator(mode="before")
    @classmethod
    def _from_env(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        return env_defaults("OPENCODE_", cls.model_fields, data)

    @model_validator(mode="after")
    def _model_pair(self) -> OpencodeAdapterConfig:
        if (self.provider_id is None) != (self.model_id is None):
            raise ValueError("set provider_id and model_id together, or neither")
        return self

    @property
    def approval_timeout_decision(self) -> str:
        """The relay's decision for an unanswered ask."""
        return "decline" if self.approval_timeout_reply == "reject" else "accept"
