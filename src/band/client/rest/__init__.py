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

from . import models
from ._core import (
    DEFAULT_REQUEST_OPTIONS,
    NO_RETRY_REQUEST_OPTIONS,
    ApiError,
    ApiResponse,
    Record,
    RequestOptions,
)
from ._errors import NotFoundError, ParsingError, UnauthorizedError, UnprocessableEntityError
from .client import AsyncRestClient, RestClient, RestClientEnvironment, aclose_rest_client
from .models import *  # noqa: F403  (its __all__, added below)

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
    "NotFoundError",
    "ParsingError",
    "ParticipantRequest",
    "Record",
    "RenameAgentChatRequestChat",
    "RequestOptions",
    "RestClient",
    "RestClientEnvironment",
    "UnauthorizedError",
    "UnprocessableEntityError",
    "UpdateMyProfileRequestUser",
    "aclose_rest_client",
]
__all__ += models.__all__
