"""band.prompts: built-in role prompts, and a prompt folder of your own taking precedence."""

from __future__ import annotations

from pathlib import Path

import pytest

from band.prompts import get_available_roles, get_role_prompt, load_role_prompt


def test_roles_name_the_agent_and_default_to_the_roles_name() -> None:
    assert get_available_roles() == ["planner", "reviewer"]
    assert "You are Design Bot." in get_role_prompt("planner", "Design Bot")
    assert "You are Reviewer." in get_role_prompt("reviewer")
    assert "@mentions you: answer" in get_role_prompt("reviewer")
    with pytest.raises(ValueError, match="Available roles: planner, reviewer"):
        get_role_prompt("poet")


def test_a_prompt_file_wins_over_the_built_in_role(tmp_path: Path) -> None:
    (tmp_path / "planner.md").write_text("Plan in haiku.", encoding="utf-8")
    assert load_role_prompt("planner", tmp_path) == "Plan in haiku."
    assert load_role_prompt("reviewer", tmp_path) == get_role_prompt("reviewer")
    assert load_role_prompt("poet", tmp_path) is None
