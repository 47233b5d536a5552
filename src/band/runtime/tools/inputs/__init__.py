"""Every tool's input model, by surface and concern; docstrings are tool descriptions."""

from __future__ import annotations

from .chat import (
    AddParticipantInput,
    CreateChatroomInput,
    GetParticipantsInput,
    LookupPeersInput,
    NoReplyInput,
    RemoveParticipantInput,
    SendEventInput,
    SendMessageInput,
)
from .contacts import (
    AddContactInput,
    ListContactRequestsInput,
    ListContactsInput,
    RemoveContactInput,
    RespondContactRequestInput,
)
from .files import (
    ListRoomFilesInput,
    ReadRoomFileInput,
    SendRoomFileInput,
)
from .human_agents import (
    ListMyAgentsInput,
    RegisterMyAgentInput,
)
from .human_chats import (
    CreateMyChatRoomInput,
    GetMyChatRoomInput,
    ListMyChatsInput,
)
from .human_contacts import (
    ApproveContactRequestInput,
    CancelContactRequestInput,
    CreateContactRequestInput,
    ListMyContactsInput,
    ListReceivedContactRequestsInput,
    ListSentContactRequestsInput,
    RejectContactRequestInput,
    RemoveMyContactInput,
    ResolveHandleInput,
)
from .human_memories import (
    ArchiveUserMemoryInput,
    DeleteUserMemoryInput,
    GetUserMemoryInput,
    ListUserMemoriesInput,
    RestoreUserMemoryInput,
    SupersedeUserMemoryInput,
)
from .human_messages import (
    ListMyChatMessagesInput,
    SendMyChatMessageInput,
)
from .human_participants import (
    AddMyChatParticipantInput,
    ListMyChatParticipantsInput,
    RemoveMyChatParticipantInput,
)
from .human_profile import (
    GetMyProfileInput,
    ListMyPeersInput,
    UpdateMyProfileInput,
)
from .memory import (
    ArchiveMemoryInput,
    GetMemoryInput,
    ListMemoriesInput,
    StoreMemoryInput,
    SupersedeMemoryInput,
)
from .tasks import (
    CreateTaskInput,
    GetBoardInput,
    GetTaskHistoryInput,
    GetTaskInput,
    ListTasksInput,
    SetBoardInput,
    UpdateTaskInput,
)

__all__ = [
    "AddContactInput",
    "AddMyChatParticipantInput",
    "AddParticipantInput",
    "ApproveContactRequestInput",
    "ArchiveMemoryInput",
    "ArchiveUserMemoryInput",
    "CancelContactRequestInput",
    "CreateChatroomInput",
    "CreateContactRequestInput",
    "CreateMyChatRoomInput",
    "CreateTaskInput",
    "DeleteUserMemoryInput",
    "GetBoardInput",
    "GetMemoryInput",
    "GetMyChatRoomInput",
    "GetMyProfileInput",
    "GetParticipantsInput",
    "GetTaskHistoryInput",
    "GetTaskInput",
    "GetUserMemoryInput",
    "ListContactRequestsInput",
    "ListContactsInput",
    "ListMemoriesInput",
    "ListMyAgentsInput",
    "ListMyChatMessagesInput",
    "ListMyChatParticipantsInput",
    "ListMyChatsInput",
    "ListMyContactsInput",
    "ListMyPeersInput",
    "ListReceivedContactRequestsInput",
    "ListRoomFilesInput",
    "ListSentContactRequestsInput",
    "ListTasksInput",
    "ListUserMemoriesInput",
    "LookupPeersInput",
    "NoReplyInput",
    "ReadRoomFileInput",
    "RegisterMyAgentInput",
    "RejectContactRequestInput",
    "RemoveContactInput",
    "RemoveMyChatParticipantInput",
    "RemoveMyContactInput",
    "RemoveParticipantInput",
    "ResolveHandleInput",
    "RespondContactRequestInput",
    "RestoreUserMemoryInput",
    "SendEventInput",
    "SendMessageInput",
    "SendMyChatMessageInput",
    "SendRoomFileInput",
    "SetBoardInput",
    "StoreMemoryInput",
    "SupersedeMemoryInput",
    "SupersedeUserMemoryInput",
    "UpdateMyProfileInput",
    "UpdateTaskInput",
]
