"""Call every public method of every band-client-rest sub-client against a running server.

Runs ONLY inside a band-client-rest venv (tests/compat/.venv-rest-<version>):

    python runner.py WORLD_JSON RESULTS_JSON

WORLD_JSON holds the server's URL and the seeded people, agents, rooms and requests (written by
test_rest_client.py). The sub-clients and their methods are found by introspection of
`band_rest.RestClient`; the calls come from `calls.CALLS`. Every method gets one result:

    OK       every row for it returned the client's own parsed model and its checks held
    PARSE    the client could not parse the answer (pydantic / ParsingError)
    HTTP     the server answered a status the row did not expect (or could not be reached)
    CHECK    the answer parsed but did not mean what the docstring says
    ERROR    the row itself broke (e.g. it needed an id an earlier failed row should have kept)
    NO ROW   the method has no row in the call table
    PENDING  the method is in calls.PENDING_FILES_TASKS (listed, not failed)

RESULTS_JSON gets `{"version", "methods": {"sub.method": {"status", "detail"}}}`.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import sys
import traceback
from pathlib import Path
from typing import Any

import pydantic
from band_rest import RestClient
from band_rest.core.api_error import ApiError
from calls import CALLS, PENDING_FILES_TASKS, Call, Ctx

try:  # 0.0.46 has no ParsingError; a pydantic error is what it raises instead
    from band_rest.core.parse_error import ParsingError
except ImportError:  # pragma: no cover - depends on the installed version

    class ParsingError(Exception):  # type: ignore[no-redef]
        pass


SUB_CLIENT_PREFIXES = ("human_api_", "agent_api_")


def enumerate_methods() -> list[str]:
    """Every public method of every human_api_* / agent_api_* sub-client, as `sub.method`."""
    probe = RestClient(api_key="introspection", base_url="http://127.0.0.1:9")
    names: list[str] = []
    for sub in sorted(n for n in dir(RestClient) if n.startswith(SUB_CLIENT_PREFIXES)):
        client = getattr(probe, sub)
        for name, member in inspect.getmembers(type(client)):
            if name.startswith("_") or name == "with_raw_response" or not callable(member):
                continue
            names.append(f"{sub}.{name}")
    return names


def run_row(row: Call, ctx: Ctx) -> tuple[str, str]:
    try:
        kwargs = row.args(ctx)
        method = getattr(getattr(ctx.client(row.as_), row.sub), row.method)
        answer = method(**kwargs)
        if row.returns_bytes:  # a download: the request runs while the stream is read
            answer = b"".join(answer)
    except ApiError as exc:
        return "HTTP", f"{exc.status_code}: {str(exc.body)[:600]}"
    except (ParsingError, pydantic.ValidationError) as exc:
        return "PARSE", str(exc)[:1500]
    except (KeyError, AttributeError, TypeError) as exc:
        return "ERROR", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=3)[-800:]}"
    except Exception as exc:  # connection refused, timeouts, ...
        return "HTTP", f"{type(exc).__name__}: {exc}"
    if row.returns_none:
        if answer is not None:
            return "CHECK", f"expected no body model, got {type(answer).__name__}"
    elif row.returns_bytes:
        if not isinstance(answer, bytes):
            return "PARSE", f"expected the file's bytes, got {type(answer).__name__}"
    elif not isinstance(answer, pydantic.BaseModel):
        return "PARSE", f"expected a parsed model, got {type(answer).__name__}: {answer!r:.300}"
    try:
        if row.keep is not None:
            row.keep(answer, ctx)
        if row.check is not None:
            row.check(answer, ctx)
    except AssertionError as exc:
        return "CHECK", f"{exc}"[:1500]
    except (ParsingError, pydantic.ValidationError) as exc:
        return "PARSE", f"follow-up call: {exc}"[:1500]
    except ApiError as exc:
        return "CHECK", f"follow-up call answered {exc.status_code}: {str(exc.body)[:600]}"
    except Exception as exc:
        return "ERROR", f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=4)[-900:]}"
    return "OK", ""


def main(argv: list[str]) -> int:
    world_path, results_path = Path(argv[0]), Path(argv[1])
    version = importlib.metadata.version("band-client-rest")
    ctx = Ctx(json.loads(world_path.read_text()), version)
    methods = enumerate_methods()
    results: dict[str, dict[str, Any]] = {}
    for row in CALLS:
        if row.versions is not None and version not in row.versions:
            continue
        name = f"{row.sub}.{row.method}"
        status, detail = run_row(row, ctx)
        previous = results.get(name)
        if previous is None or previous["status"] == "OK":
            results[name] = {"status": status, "detail": detail, "label": row.label}
    out: dict[str, dict[str, Any]] = {}
    for name in methods:
        if name in PENDING_FILES_TASKS:
            out[name] = {"status": "PENDING", "detail": "files-tasks endpoints not landed yet"}
        else:
            out[name] = results.get(name, {"status": "NO ROW", "detail": "no row in calls.CALLS"})
    stray = sorted(set(results) - set(methods))
    results_path.write_text(
        json.dumps({"version": version, "methods": out, "stray_rows": stray}, indent=1)
    )
    ctx.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
