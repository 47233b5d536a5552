"""Read every room of a person with the official band-client-rest (in its own venv):

    python read_rooms.py URL API_KEY OUT_JSON

OUT_JSON gets ``{title: {"participants": {id: handle}, "messages": [...oldest first]}}``,
each message as the client parsed it (its own models, dumped to JSON).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from band_rest import RestClient


def _dump(model: Any) -> dict[str, Any]:
    dump = getattr(model, "model_dump", None)
    return dump(mode="json") if dump is not None else json.loads(model.json())


def main(url: str, key: str, out: str) -> None:
    client = RestClient(api_key=key, base_url=url)
    rooms: dict[str, Any] = {}
    for room in client.human_api_chats.list_my_chats(limit=100).data:
        roster = client.human_api_participants.list_my_chat_participants(chat_id=room.id)
        messages: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = client.human_api_messages.list_my_chat_messages(
                chat_id=room.id, limit=100, cursor=cursor
            )
            messages += [_dump(m) for m in page.data]
            cursor = page.metadata.next_cursor if page.metadata else None
            if not cursor:
                break
        rooms[room.title] = {
            "participants": {p.id: p.handle for p in roster.data},
            "messages": list(reversed(messages)),  # the contract's order is newest first
        }
    with open(out, "w", encoding="utf-8") as handle:
        json.dump(rooms, handle)


if __name__ == "__main__":
    main(*sys.argv[1:])
