"""The Band wire protocol: the one source of truth for payloads, bodies and shared rules.

Imported by both the platform (``band_server``) and the SDK (``band``); imports neither.
``band.protocol`` and ``band_sdk_core`` re-export it under their earlier paths.
"""

from . import messages, tasks
from ._base import Envelope, ListEnvelope, RequestModel, WireModel, iso, utcnow
from .agents import (
    AgentCredentials,
    AgentDeleted,
    AgentInfo,
    AgentMe,
    AgentRegisterBody,
    AgentRegistered,
    ProfileUpdateBody,
    UserProfile,
)
from .contacts import (
    AgentContact,
    AgentMemory,
    ContactAddBody,
    ContactAdded,
    ContactRemoveBody,
    ContactRemoved,
    ContactRequest,
    ContactRequestBody,
    ContactRequestLists,
    ContactRespondBody,
    ContactUser,
    HandleResolved,
    MemoryCreateBody,
    PartyRef,
    Peer,
    PersonContact,
)
from .errors import ErrorBody, ErrorEnvelope
from .failure import AgentFailure
from .files import MAX_ATTACHMENTS, Attachment
from .jobs import BulkDeleteAgentsBody, BulkDeleteChatsBody, BulkDeletionItem, BulkDeletionJob
from .messages import *  # noqa: F403  (its __all__, added below)
from .rooms import (
    AgentChatRoomListItem,
    ChatCreateBody,
    ChatParticipant,
    ChatRenameBody,
    ChatRoom,
    MeChatRoom,
    MeChatRoomDetail,
    MeChatRoomListItem,
    MessageCounts,
    ParticipantAddBody,
    ParticipantEvent,
    RoomEvent,
)
from .socket import (
    CLAIM_ON_PUSH_MODES,
    CLAIM_ON_PUSH_PARAM,
    TOPIC_KINDS,
    AgentControl,
    Supersede,
    split_topic,
    topic,
)
from .tasks import *  # noqa: F403  (its __all__, added below)
from .text import has_visible_text
from .turn import MISSING_REPLY_MESSAGE, TurnEffect, TurnLedger, TurnVerdict, missing_reply_message
from .validation import PayloadValidationError, validate_event_payload, validated_events

__all__ = [
    "CLAIM_ON_PUSH_MODES",
    "CLAIM_ON_PUSH_PARAM",
    "MAX_ATTACHMENTS",
    "MISSING_REPLY_MESSAGE",
    "TOPIC_KINDS",
    "AgentChatRoomListItem",
    "AgentContact",
    "AgentControl",
    "AgentCredentials",
    "AgentDeleted",
    "AgentFailure",
    "AgentInfo",
    "AgentMe",
    "AgentMemory",
    "AgentRegisterBody",
    "AgentRegistered",
    "Attachment",
    "BulkDeleteAgentsBody",
    "BulkDeleteChatsBody",
    "BulkDeletionItem",
    "BulkDeletionJob",
    "ChatCreateBody",
    "ChatParticipant",
    "ChatRenameBody",
    "ChatRoom",
    "ContactAddBody",
    "ContactAdded",
    "ContactRemoveBody",
    "ContactRemoved",
    "ContactRequest",
    "ContactRequestBody",
    "ContactRequestLists",
    "ContactRespondBody",
    "ContactUser",
    "Envelope",
    "ErrorBody",
    "ErrorEnvelope",
    "HandleResolved",
    "ListEnvelope",
    "MeChatRoom",
    "MeChatRoomDetail",
    "MeChatRoomListItem",
    "MemoryCreateBody",
    "MessageCounts",
    "ParticipantAddBody",
    "ParticipantEvent",
    "PartyRef",
    "PayloadValidationError",
    "Peer",
    "PersonContact",
    "ProfileUpdateBody",
    "RequestModel",
    "RoomEvent",
    "Supersede",
    "TurnEffect",
    "TurnLedger",
    "TurnVerdict",
    "UserProfile",
    "WireModel",
    "has_visible_text",
    "iso",
    "missing_reply_message",
    "split_topic",
    "topic",
    "utcnow",
    "validate_event_payload",
    "validated_events",
]
__all__ += tasks.__all__
__all__ += messages.__all__
