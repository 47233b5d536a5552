"""OMP (oh-my-pi, ``omp acp``): its launch flags, provider keys, approval forms and tool names.

How it works: docs/internals/sdk.md, "OMP: launch, keys, forms, tool names".
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from uuid import uuid4

from band.core.defaultmodels import OPENAI_MODEL
from band.runtime.tools.registry import (
    BAND_MCP_SERVER_NAME,
    canonicalize_mcp_tool_name,
    mcp_tool_spelling,
)

__all__ = [
    "DEFAULT_OMP_ACP_COMMAND",
    "DEFAULT_OMP_MODEL",
    "OMP_APPROVAL_FORM_TOOL_NAME",
    "OMP_APPROVAL_MODE_ALWAYS_ASK",
    "OMP_APPROVAL_MODE_YOLO",
    "OMP_APPROVE_OPTION_ID",
    "OMP_DENY_OPTION_ID",
    "OMP_FORM_APPROVE",
    "OMP_FORM_DENY",
    "approve_deny_form_field",
    "finalize_omp_command",
    "is_omp_approve_deny_form",
    "normalize_omp_mcp_device_call",
    "normalize_omp_mcp_tool_name",
    "omp_command_in_workspace",
    "omp_elicitation_call_id",
    "omp_model_provider",
    "omp_provider_api_key_env",
    "omp_provider_env",
    "validate_omp_command",
]

OMP_ACP_SUBCOMMAND = "acp"
OMP_CWD_FLAG = "--cwd"
OMP_APPROVAL_MODE_FLAG = "--approval-mode"
OMP_APPROVAL_MODE_ALWAYS_ASK = "always-ask"
OMP_APPROVAL_MODE_WRITE = "write"
OMP_APPROVAL_MODE_YOLO = "yolo"
OMP_YOLO_FLAG = "--yolo"
OMP_AUTO_APPROVE_FLAG = "--auto-approve"
DEFAULT_OMP_ACP_COMMAND: tuple[str, ...] = (
    "omp",
    OMP_ACP_SUBCOMMAND,
    OMP_APPROVAL_MODE_FLAG,
    OMP_APPROVAL_MODE_ALWAYS_ASK,
)
OMP_BARE_UNSAFE_APPROVAL_FLAGS = frozenset({OMP_YOLO_FLAG, OMP_AUTO_APPROVE_FLAG})
OMP_UNSAFE_APPROVAL_MODES = frozenset({OMP_APPROVAL_MODE_WRITE, OMP_APPROVAL_MODE_YOLO})
OMP_LAUNCH_APPROVAL_MODES = (OMP_APPROVAL_MODE_ALWAYS_ASK, OMP_APPROVAL_MODE_YOLO)

OMP_FORM_APPROVE = "Approve"
OMP_FORM_DENY = "Deny"
OMP_APPROVE_OPTION_ID = "omp-approve"
OMP_DENY_OPTION_ID = "omp-deny"
OMP_APPROVAL_FORM_TOOL_NAME = "omp_approval_form"
OMP_ELICITATION_CALL_ID_PREFIX = "omp-elicitation:"
OMP_PINNED_PACKAGE = "@oh-my-pi/pi-coding-agent@18.2.8"
OMP_MIN_BUN = "1.3.14"
DEFAULT_OMP_MODEL = f"openai/{OPENAI_MODEL}"

XD_URL_PREFIX = "xd://"
XD_MCP_PREFIX = "mcp__"
# A device write whose content is empty, "?" or "help" asks for the tool's docs.
_HELP_REQUEST = re.compile(r"^\s*(\?|help)?\s*$", re.IGNORECASE)
_KIND_EXECUTE = "execute"
_KIND_READ = "read"

_PROVIDER_KEYS = {
    "anthropic": "ANTHROPIC_API_KEY",
    "google": "GEMINI_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openrouter": "OPENROUTER_API_KEY",
    "xai": "XAI_API_KEY",
    "deepseek": "DEEPSEEK_API_KEY",
    "mistral": "MISTRAL_API_KEY",
    "groq": "GROQ_API_KEY",
    "together": "TOGETHER_API_KEY",
    "fireworks": "FIREWORKS_API_KEY",
}


def omp_model_provider(model: str) -> str:
    """The provider of ``provider/model`` (lower-cased); ValueError for another shape."""
    provider, _, name = model.strip().partition("/")
    if not model.strip():
        raise ValueError("OMP model must be a non-empty provider-qualified id")
    if not provider or not name:
        raise ValueError(f'OMP model must look like "provider/model", got "{model}"')
    return provider.lower()


def omp_provider_api_key_env(provider: str) -> str:
    """The environment variable OMP reads ``provider``'s API key from."""
    name = _PROVIDER_KEYS.get(provider.lower())
    if name is None:
        known = ", ".join(sorted(_PROVIDER_KEYS))
        raise ValueError(f"Unsupported OMP model provider {provider!r}; supported: {known}")
    return name


def omp_provider_env(*, model: str, api_key: str) -> dict[str, str]:
    """``{<model's provider key variable>: api_key}``."""
    return {omp_provider_api_key_env(omp_model_provider(model)): api_key}


def validate_omp_command(command: Sequence[str]) -> None:
    """ValueError for a flag that lets OMP act without asking (the mode is set apart)."""
    tokens = list(command)
    for index, token in enumerate(tokens):
        if token in OMP_BARE_UNSAFE_APPROVAL_FLAGS:
            raise ValueError(f"Unsafe OMP flag {token!r} is not allowed")
        flag, equals, value = token.partition("=")
        if flag.lower() != OMP_APPROVAL_MODE_FLAG:
            continue
        if not equals:
            value = tokens[index + 1] if index + 1 < len(tokens) else ""
        if value.lower() in OMP_UNSAFE_APPROVAL_MODES:
            raise ValueError(f"Unsafe OMP approval mode {value!r} is not allowed")


def finalize_omp_command(
    command: Sequence[str],
    *,
    model: str | None = None,
    approval_mode: str = OMP_APPROVAL_MODE_ALWAYS_ASK,
) -> list[str]:
    """``command`` (checked), then ``--model=<model>`` and ``--approval-mode <mode>``."""
    validate_omp_command(command)
    if approval_mode not in OMP_LAUNCH_APPROVAL_MODES:
        raise ValueError(f"Unsupported OMP approval mode {approval_mode!r}")
    model_flag = [f"--model={model}"] if model is not None else []
    return [*command, *model_flag, OMP_APPROVAL_MODE_FLAG, approval_mode]


def omp_command_in_workspace(command: Sequence[str], workspace: str) -> list[str]:
    """``command`` with ``--cwd=<workspace>`` right after its ``acp`` subcommand."""
    argv = list(command)
    if OMP_ACP_SUBCOMMAND not in argv:
        raise ValueError(
            f"OMP command must include the {OMP_ACP_SUBCOMMAND!r} subcommand, got {argv!r}"
        )
    at = argv.index(OMP_ACP_SUBCOMMAND) + 1
    return [*argv[:at], f"{OMP_CWD_FLAG}={workspace}", *argv[at:]]


def omp_elicitation_call_id(session_id: str) -> str:
    """A fresh call id for the room's record of a declined OMP approval form."""
    return f"{OMP_ELICITATION_CALL_ID_PREFIX}{session_id}:{uuid4()}"


def _as_mapping(value: object) -> Mapping[str, object] | None:
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    dumped = dump() if callable(dump) else None
    return dumped if isinstance(dumped, Mapping) else None


def approve_deny_form_field(requested_schema: object) -> str | None:
    """The name of the form's only field when it is exactly an ``Approve``/``Deny`` enum."""
    schema = _as_mapping(requested_schema)
    properties = schema.get("properties") if schema is not None else None
    if not isinstance(properties, Mapping) or len(properties) != 1:
        return None
    ((name, field),) = properties.items()
    field_schema = _as_mapping(field)
    if not isinstance(name, str) or field_schema is None:
        return None
    return name if field_schema.get("enum") == [OMP_FORM_APPROVE, OMP_FORM_DENY] else None


def is_omp_approve_deny_form(requested_schema: object) -> bool:
    """The form is OMP's approval question."""
    return approve_deny_form_field(requested_schema) is not None


def _wire_names(remainder: str) -> list[str]:
    """The ``<server>-<tool>`` spellings an OMP ``mcp__<remainder>`` name may stand for.

    OMP mints ``mcp__<server>_<tool>`` (dropping a tool prefix that repeats the server), so
    ``mcp__band_send_message`` is Band's ``band_send_message``; ``mcp__<server>__<tool>``
    and ``mcp__band_band_<x>`` are read too.
    """
    if "__" in remainder:
        server, _, tool = remainder.partition("__")
        return [mcp_tool_spelling(server, tool)] if server and tool else []
    names = [remainder]
    prefix = f"{BAND_MCP_SERVER_NAME}_"
    if remainder.startswith(prefix) and remainder != prefix:
        names.append(mcp_tool_spelling(BAND_MCP_SERVER_NAME, remainder.removeprefix(prefix)))
    return names


def normalize_omp_mcp_tool_name(name_or_path: str, own_names: Collection[str]) -> str | None:
    """The Band tool an OMP ``mcp__...`` name or ``xd://mcp__...`` path names, if any."""
    text = name_or_path.removeprefix(XD_URL_PREFIX)
    remainder = text.removeprefix(XD_MCP_PREFIX) if text.startswith(XD_MCP_PREFIX) else ""
    for candidate in _wire_names(remainder) if remainder else ():
        canonical = canonicalize_mcp_tool_name(candidate, own_names)
        if canonical in own_names:
            return canonical
    return None


def normalize_omp_mcp_device_call(
    name: str,
    arguments: Mapping[str, object],
    own_names: Collection[str],
    *,
    kind: str | None = None,
) -> tuple[str, dict[str, object]]:
    """``(name, arguments)`` of a tool call OMP reports, Band's tool where it is one.

    A device write (an ``xd://mcp__...`` path) OMP executes (ACP kind ``execute``) is the
    tool, its JSON content the arguments; a read, or a write asking for help, stays as
    reported. A write whose content is not a JSON object keeps the tool's name with the
    raw arguments (the tool refuses it; the failed call is still the tool's).
    """
    args = dict(arguments)
    path = next(
        (
            value
            for key in ("path", "file_path", "target")
            if isinstance(value := args.get(key), str) and value.startswith(XD_URL_PREFIX)
        ),
        None,
    )
    if path is None:
        return normalize_omp_mcp_tool_name(name, own_names) or name, args
    canonical = normalize_omp_mcp_tool_name(path, own_names)
    if canonical is None or kind == _KIND_READ:
        return name, args
    content = args.get("content")
    if not isinstance(content, str):
        return (canonical, args) if kind == _KIND_EXECUTE else (name, args)
    if _HELP_REQUEST.match(content):
        return name, args
    try:
        parsed = json.loads(content)
    except json.JSONDecodeError:
        return canonical, args
    return (canonical, parsed) if isinstance(parsed, dict) else (canonical, args)
