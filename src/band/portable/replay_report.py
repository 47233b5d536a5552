"""The report of a replay: JSON for tools, HTML for people (Jinja2, escaped), side by side."""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .replay import Case, ReplayReport

__all__ = ["summary", "to_json", "write_report"]


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return round(statistics.median(known), 3) if known else None


def summary(report: ReplayReport) -> dict[str, Any]:
    """Counts and median times, original beside replay."""
    cases = report.cases
    replays = [c.replay for c in cases if c.replay is not None]
    return {
        "mentions": len(cases),
        "answered_then": sum(c.original.status == "answered" for c in cases),
        "answered_now": sum(r.status == "answered" for r in replays),
        "failed_now": sum(r.status == "failed" for r in replays),
        "same_answer": sum(c.same for c in cases),
        "tool_calls_then": sum(len(c.original.tool_calls) for c in cases),
        "tool_calls_now": sum(len(r.tool_calls) for r in replays),
        "median_seconds_then": _median([c.original.seconds for c in cases]),
        "median_seconds_now": _median([r.seconds for r in replays]),
    }


def _case(case: Case) -> dict[str, Any]:
    m = case.mention
    return {
        "number": case.number,
        "mention": {
            "id": m.id,
            "seq": m.seq,
            "sender": m.sender_name or m.sender_id,
            "content": case.text or m.content,
            "at": m.inserted_at,
        },
        "history_before": len(case.before),
        "original": asdict(case.original),
        "replay": asdict(case.replay) if case.replay is not None else None,
        "same": case.same,
    }


def to_json(report: ReplayReport) -> dict[str, Any]:
    return {
        "archive": report.archive,
        "room": report.room,
        "agent": report.agent,
        "adapter": report.adapter,
        "model": report.model,
        "seconds": round(report.seconds, 3),
        "summary": summary(report),
        "cases": [_case(c) for c in report.cases],
    }


def write_report(report: ReplayReport, out: Path) -> tuple[Path, Path]:
    """``replay.json`` and ``replay.html`` in the folder ``out``; their paths."""
    try:
        import jinja2
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise RuntimeError("the HTML report needs Jinja2: pip install 'openband[server]'") from exc
    out.mkdir(parents=True, exist_ok=True)
    data = to_json(report)
    json_path, html_path = out / "replay.json", out / "replay.html"
    json_path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    html_path.write_text(env.get_template("replay_report.html").render(r=data), encoding="utf-8")
    return json_path, html_path
