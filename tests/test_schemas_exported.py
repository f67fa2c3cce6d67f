"""The JSON Schemas committed in docs/schemas/ are the ones the code exports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.content.actions import action_json_schema
from engine.run.schemas import observation_json_schema, report_json_schema
from policies.strategy import strategy_json_schema

DOCS = Path(__file__).resolve().parent.parent / "docs" / "schemas"


@pytest.mark.parametrize(
    ("name", "export"),
    [
        ("observation", observation_json_schema),
        ("action", action_json_schema),
        ("report", report_json_schema),
        ("strategy", strategy_json_schema),
    ],
)
def test_committed_schema_is_up_to_date(name, export):
    committed = json.loads((DOCS / f"{name}.schema.json").read_text(encoding="utf-8"))
    assert committed == export(), (
        f"docs/schemas/{name}.schema.json is stale: "
        f"uv run pf1e-sim schema {name} > docs/schemas/{name}.schema.json"
    )
