"""Writes (or checks) ``sdk-ts/src/generated/contract.json``: what the TypeScript SDK shares
with the Python SDK and the platform, generated so the two languages cannot drift apart.

- ``tools``: the platform tools the TypeScript SDK offers (chat, contacts, memory), in the
  Python SDK's registry order, with its names, descriptions, JSON schemas, groups and turn
  effects;
- ``prompts``: the Python SDK's system prompt sections;
- ``openapi``: the server's OpenAPI components that the TypeScript wire models read
  (``sdk-ts/test/wire.test.ts`` checks the zod models against them).

    .venv/bin/python scripts/ts_contract.py           # rewrite the file
    .venv/bin/python scripts/ts_contract.py --check   # fail when it is out of date
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "sdk-ts" / "src" / "generated" / "contract.json"
CATEGORIES = ("chat", "contacts", "memory")
COMPONENTS = (
    "AgentMe",
    "ChatRoom",
    "AgentChatRoomListItem",
    "ChatMessage",
    "ChatParticipant",
    "Peer",
    "MessageStatusResponse",
    "MessageSentResponse",
    "EventCreatedResponse",
    "ActivityResponse",
)


def _tools() -> list[dict[str, Any]]:
    from band.runtime._schema import model_description, model_parameters
    from band.runtime.tools.models import TOOL_MODELS
    from band.runtime.tools.names import TOOL_CATEGORIES, TOOL_EFFECTS

    return [
        {
            "name": name,
            "category": str(TOOL_CATEGORIES[name]),
            "effect": str(TOOL_EFFECTS[name]),
            "description": model_description(model),
            "parameters": model_parameters(model),
        }
        for name, model in TOOL_MODELS.items()
        if str(TOOL_CATEGORIES[name]) in CATEGORIES
    ]


def _prompts() -> dict[str, str]:
    from band.runtime import prompts

    return {
        "base_instructions": prompts.BASE_INSTRUCTIONS,
        "turn_completion_guidance": prompts.TURN_COMPLETION_GUIDANCE,
        "contact_section": prompts.CONTACT_SECTION,
        "memory_section": prompts.MEMORY_SECTION,
        "system_update_prefix": prompts.SYSTEM_UPDATE_PREFIX,
    }


def _openapi() -> dict[str, Any]:
    from band_server.app import create_app
    from band_server.config import Settings

    with tempfile.TemporaryDirectory() as data:
        app = create_app(Settings(data_dir=Path(data), database_url=None, redis_url=None))
        schemas = app.openapi()["components"]["schemas"]
    return {name: schemas[name] for name in COMPONENTS}


def build() -> str:
    """The file's text: sorted keys, two-space indents, one trailing newline."""
    contract = {"tools": _tools(), "prompts": _prompts(), "openapi": _openapi()}
    return json.dumps(contract, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the file is out of date")
    args = parser.parse_args()
    text = build()
    if args.check:
        if not TARGET.exists() or TARGET.read_text(encoding="utf-8") != text:
            print(f"{TARGET} is out of date: run scripts/ts_contract.py", file=sys.stderr)
            return 1
        return 0
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
