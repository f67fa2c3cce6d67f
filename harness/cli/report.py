"""``pf1e-sim report``: a saved statistics object printed again, with its analysis."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from harness.cli.common import (
    FrenchCommand,
    HtmlOption,
    NarratorModelOption,
    app,
    check_outputs,
    emit,
    narrate_report,
    write_html,
)


@app.command(
    "report",
    cls=FrenchCommand,
    help=(
        "Relit un objet statistique enregistré (--json) : imprime le rapport et son analyse "
        "rédigée, et écrit le rapport HTML avec --html."
    ),
)
def report_cmd(
    path: Annotated[
        str, typer.Argument(help="Fichier JSON pf1e-sim/report@1 (--json).", metavar="STATS")
    ],
    narrator_model: NarratorModelOption = "local",
    html_path: HtmlOption = None,
    no_narrative: Annotated[
        bool,
        typer.Option("--no-narrate", help="Sans l'analyse rédigée."),
    ] = False,
) -> None:
    from harness.report import render_report
    from harness.reporter import load_report

    report = load_report(path)
    check_outputs(html_path)
    emit(render_report(report))
    sys.stdout.flush()
    story = None if no_narrative else narrate_report(report, narrator_model)
    if html_path is not None:
        write_html(html_path, report, story)
