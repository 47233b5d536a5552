"""``band export`` and ``band import``: argument parsing and the asyncio entry points."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from band.client.rest import ApiError, AsyncRestClient
from band.core.exceptions import BandConnectionError

from .archive import ArchiveError, ArchiveReader
from .exporter import export_archive
from .importer import NewKey, import_archive
from .progress import progress_for

__all__ = ["main_export", "main_import", "main_replay"]

DEFAULT_URL = "http://127.0.0.1:8080"


def _connection(parser: argparse.ArgumentParser, whose: str) -> None:
    parser.add_argument(
        "--url",
        default=os.environ.get("BAND_URL") or os.environ.get("BAND_REST_URL") or DEFAULT_URL,
        help=f"the platform's URL ($BAND_URL, else $BAND_REST_URL; default {DEFAULT_URL})",
    )
    parser.add_argument(
        "--key", default=os.environ.get("BAND_API_KEY"), help=f"{whose} API key ($BAND_API_KEY)"
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")


def _client(args: argparse.Namespace, command: str) -> AsyncRestClient:
    if not args.key:
        raise SystemExit(f"band {command}: give --key (or set BAND_API_KEY)")
    return AsyncRestClient(base_url=args.url, api_key=args.key, timeout=120.0)


def _size(count: int) -> str:
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.1f} {unit}" if unit != "B" else f"{count} B"
        value /= 1024
    raise AssertionError("unreachable")


def _run(command: str, work: Any) -> int:
    try:
        return int(asyncio.run(work))
    except ArchiveError as exc:
        print(f"band {command}: refused: {exc}", file=sys.stderr)
        return 2
    except ApiError as exc:
        print(f"band {command}: the platform said {exc.status_code} {exc}", file=sys.stderr)
        return 1
    except BandConnectionError as exc:
        print(f"band {command}: cannot reach the platform: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


def export_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="band export",
        description="Copy what a person (or, with --all, an admin) can read on a Band "
        "platform into one archive: rooms, messages, events, tasks, boards, files, contacts.",
    )
    parser.add_argument(
        "output", type=Path, help="the archive to write: a folder, or a .tar / .tar.gz file"
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="the whole deployment, through the admin surface (an admin's key)",
    )
    _connection(parser, "a person's (an admin's, with --all)")
    return parser


async def _export(args: argparse.Namespace) -> int:
    async with _client(args, "export") as client:
        summary = await export_archive(
            client,
            args.output,
            scope="deployment" if args.all else "person",
            source_url=args.url,
            progress=progress_for(),
        )
    if args.json:
        out = {
            "path": str(summary.path),
            "archive_id": summary.manifest.archive_id,
            "counts": summary.counts,
            "bytes": summary.size,
            "seconds": round(summary.seconds, 3),
            "notes": summary.notes,
        }
        print(json.dumps(out, indent=2))
        return 0
    counts = ", ".join(f"{n} {kind}" for kind, n in summary.counts.items() if n)
    print(f"Exported {counts}")
    print(f"into {summary.path} ({_size(summary.size)}) in {summary.seconds:.1f} s")
    for note in summary.notes:
        print(f"note: {note}")
    return 0


def main_export(argv: Sequence[str]) -> int:
    """``band export OUTPUT [--all] [--url URL] [--key KEY]``."""
    args = export_parser().parse_args(list(argv))
    return _run("export", _export(args))


def import_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="band import",
        description="Import a Band archive into a deployment of ours (an admin's key), keeping "
        "room order, per-room sequence and authors. Resumable: run it again after an "
        "interruption; a finished import run again changes nothing.",
    )
    parser.add_argument("archive", type=Path, help="the archive (a folder, .tar or .tar.gz)")
    parser.add_argument(
        "--check", action="store_true", help="only check the archive; import nothing"
    )
    parser.add_argument(
        "--batch", type=int, default=200, metavar="N", help="records per request (default 200)"
    )
    _connection(parser, "an admin's")
    return parser


def _print_key(key: NewKey) -> None:
    print(f"new {key.kind}: {key.note}  api_key: {key.api_key}  (shown once)", flush=True)


async def _import(args: argparse.Namespace) -> int:
    if args.check:
        with ArchiveReader(args.archive) as reader:
            counts = reader.verify()
        print(json.dumps(counts) if args.json else f"The archive is whole: {counts}")
        return 0
    async with _client(args, "import") as client:
        summary = await import_archive(
            client,
            args.archive,
            batch=args.batch,
            progress=progress_for(),
            on_key=None if args.json else _print_key,
        )
    if args.json:
        # Every field of the summary, in its order; the seconds rounded.
        print(json.dumps({**asdict(summary), "seconds": round(summary.seconds, 3)}, indent=2))
        return 0
    made = ", ".join(f"{n} {kind}" for kind, n in summary.created.items() if n) or "nothing new"
    state = "resumed and finished" if summary.resumed else "finished"
    print(f"Import {summary.import_id} {state} in {summary.seconds:.1f} s: made {made}")
    for note in summary.notes:
        print(f"note: {note}")
    if summary.keys:
        print("The API keys above are shown once; they are stored only as hashes.")
    return 0


def main_import(argv: Sequence[str]) -> int:
    """``band import ARCHIVE [--check] [--batch N] [--url URL] [--key KEY]``."""
    args = import_parser().parse_args(list(argv))
    return _run("import", _import(args))


def replay_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="band replay",
        description="Ask every mention of an exported room again of an adapter, on a "
        "throwaway platform in this process (offline), each with the history as it was; "
        "writes replay.json and replay.html pairing each original answer with the new one.",
    )
    parser.add_argument("archive", type=Path, help="an archive written by band export")
    parser.add_argument(
        "--adapter",
        required=True,
        metavar="MODULE:CLASS",
        help="the adapter to run, made with no arguments",
    )
    parser.add_argument(
        "--model",
        default="fake",
        metavar="fake|URL",
        help="fake: band.testing's offline scripted model (default); or an OpenAI- or "
        "Anthropic-compatible base URL (OPENAI_BASE_URL and ANTHROPIC_BASE_URL are set to it)",
    )
    parser.add_argument("--room", metavar="ID|TITLE", help="the room, when the archive has several")
    parser.add_argument("--agent", metavar="HANDLE", help="the agent (default: the most mentioned)")
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("replay-report"),
        help="folder of the report (default replay-report)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    return parser


async def _replay(args: argparse.Namespace) -> int:
    from .replay import load_adapter, replay_archive
    from .replay_report import summary, write_report

    report = await replay_archive(
        args.archive,
        load_adapter(args.adapter),
        adapter_name=args.adapter,
        room=args.room,
        agent=args.agent,
        model=args.model,
        progress=progress_for(),
    )
    json_path, html_path = write_report(report, args.out)
    totals = summary(report)
    if args.json:
        print(json.dumps({**totals, "json": str(json_path), "html": str(html_path)}, indent=2))
        return 0
    n = totals["mentions"]
    print(
        f"Replayed {n} mentions of @{report.agent['handle']} in {report.seconds:.1f} s: "
        f"answered {totals['answered_now']}/{n} now ({totals['answered_then']}/{n} then), "
        f"{totals['same_answer']} the same; tool calls {totals['tool_calls_then']} then, "
        f"{totals['tool_calls_now']} now"
    )
    print(f"Report: {html_path} (and {json_path.name})")
    return 0


def main_replay(argv: Sequence[str]) -> int:
    """``band replay ARCHIVE --adapter MODULE:CLASS [--model fake|URL] [--room] [--agent]``."""
    from .replay import ReplayError

    args = replay_parser().parse_args(list(argv))
    try:
        return _run("replay", _replay(args))
    except ReplayError as exc:
        print(f"band replay: {exc}", file=sys.stderr)
        return 2
