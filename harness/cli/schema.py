"""``pf1e-sim schema``: the JSON Schema of a contract."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from harness.cli.common import FrenchCommand, UserError, app
from harness.output import json_text


@app.command(
    "schema",
    cls=FrenchCommand,
    help="Imprime le schéma JSON d'un contrat : observation, action, report ou strategy.",
)
def schema_cmd(
    name: Annotated[
        str, typer.Argument(help="observation, action, report ou strategy", metavar="NOM")
    ],
) -> None:
    from engine.content.actions import action_json_schema
    from engine.run.schemas import observation_json_schema, report_json_schema
    from policies.strategy import strategy_json_schema

    schemas = {
        "observation": observation_json_schema,
        "action": action_json_schema,
        "report": report_json_schema,
        "strategy": strategy_json_schema,
    }
    if name not in schemas:
        raise UserError(f"schéma inconnu « {name} » (choix : {', '.join(schemas)})")
    sys.stdout.write(json_text(schemas[name]()))
