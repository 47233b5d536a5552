"""``band.client.rest``: the namespaced REST client host plugins use (``link.rest``).

Names, namespaces, request models and ``.data`` answers follow band-client-rest; the
implementation is ours, on the SDK's HTTP core and ``band_protocol`` models.
"""

from band_protocol.requests import (
    AgentMemoryCreateRequest,
    AgentRegisterRequest,
    ChatEventRequest,
    ChatMessageRequest,
    ChatMessageRequestMentionsItem,
    ChatRoomRequest,
    CreateContactRequestRequestContactRequest,
    CreateMyChatRoomRequestChat,
    ParticipantRequest,
    RenameAgentChatRequestChat,
    UpdateMyProfileRequestUser,
)

from ._core import (
    DEFAULT_REQUEST_OPTIONS,
    NO_RETRY_REQUEST_OPTIONS,
    ApiError,
    ApiResponse,
    Record,
    RequestOptions,
)
from .client import AsyncRestClient, aclose_rest_client

__all__ = [
    "DEFAULT_REQUEST_OPTIONS",
    "NO_RETRY_REQUEST_OPTIONS",
    "AgentMemoryCreateRequest",
    "AgentRegisterRequest",
    "ApiError",
    "ApiResponse",
    "AsyncRestClient",
    "ChatEventRequest",
    "ChatMessageRequest",
    "ChatMessageRequestMentionsItem",
    "ChatRoomRequest",
    "CreateContactRequestRequestContactRequest",
    "CreateMyChatRoomRequestChat",
    "ParticipantRequest",
    "Record",
    "RenameAgentChatRequestChat",
    "RequestOptions",
    "UpdateMyProfileRequestUser",
    "aclose_rest_client",
]
