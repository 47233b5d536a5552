"""The admin side of ``AsyncRestClient`` (``/api/v1/admin/...``, ours): the deployment's
directory and rooms for ``band export --all``, and archive imports for ``band import``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from band_protocol import ChatMessage, ChatParticipant

from ._core import ApiResponse, Record, RequestOptions, download
from ._routes import Namespace, Route

__all__ = ["AdminChatsApi", "AdminDirectoryApi", "AdminImportsApi"]

CHAT = "/admin/chats/{chat_id}"
KEYSET = ("cursor?", "limit?")


class AdminDirectoryApi(Namespace):
    list_people = Route("GET", "/admin/people", Record, "many", query=KEYSET)
    list_agents = Route("GET", "/admin/agents", Record, "many", query=KEYSET)
    list_chats = Route("GET", "/admin/chats", Record, "many", query=KEYSET)
    list_contacts = Route("GET", "/admin/contacts", Record, "many", query=KEYSET)


class AdminChatsApi(Namespace):
    list_chat_messages = Route(
        "GET", CHAT + "/messages", ChatMessage, "many", query=("sort_order?", *KEYSET)
    )
    list_chat_participants = Route("GET", CHAT + "/participants", ChatParticipant, "many")
    list_chat_tasks = Route("GET", CHAT + "/tasks", Record, "many", query=("state?", *KEYSET))
    get_chat_task_history = Route("GET", CHAT + "/tasks/{id}/history", Record, "many", query=KEYSET)
    get_chat_board = Route("GET", CHAT + "/board", query=("include?",))

    async def download_chat_file(
        self, chat_id: str, id: str, *, request_options: RequestOptions | None = None
    ) -> AsyncIterator[bytes]:
        """The file's bytes."""
        path = f"/admin/chats/{chat_id}/files/{id}"
        return await download(self._c, path, options=request_options)


class AdminImportsApi(Namespace):
    start_import = Route(
        "POST",
        "/admin/imports",
        json=("archive_id", "source?", "expected?"),
        doc="Begin (201) or find again (200) the import of an archive, by its archive id.",
    )
    get_import = Route("GET", "/admin/imports/{id}")
    import_records = Route(
        "POST",
        "/admin/imports/{id}/records",
        json=("kind", "records"),
        doc="Apply one batch of one kind; people and agents made carry a new ``api_key``.",
    )
    finish_import = Route("POST", "/admin/imports/{id}/finish")

    async def import_file(
        self,
        id: str,
        *,
        content: bytes,
        source_id: str,
        room_id: str,
        name: str,
        sha256: str,
        content_type: str,
        uploader_id: str | None = None,
        request_options: RequestOptions | None = None,
    ) -> ApiResponse[Any]:
        """Store one archive file in its imported room (the ids are the archive's)."""
        options: RequestOptions = dict(request_options or {})  # type: ignore[assignment]
        options["additional_headers"] = {
            **options.get("additional_headers", {}),
            "x-file-name": name,
            "x-file-sha256": sha256,
            "content-type": content_type,
        }
        params = {"source_id": source_id, "room_id": room_id, "uploader_id": uploader_id}
        body = await self._c.send(
            "PUT", f"/admin/imports/{id}/files", params=params, content=content, options=options
        )
        return ApiResponse(data=Record.model_validate((body or {}).get("data") or {}))
