"""``pf1e-sim simulate`` (also the bare form): play an encounter N times, print the report."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from harness.cli.common import (
    BaseUrlOption,
    FrenchCommand,
    FrenchInt,
    HtmlOption,
    NarratorModelOption,
    Progress,
    UserError,
    WorkersOption,
    app,
    check_outputs,
    emit,
    narrate_report,
    narrator_up_front,
    started,
    write_html,
)
from harness.cli.config import load_setup

if TYPE_CHECKING:
    from harness.models import RecordingModel
    from policies.llm import ChatModel


@app.command(
    "simulate",
    cls=FrenchCommand,
    help=(
        "Joue une rencontre N fois et imprime le rapport d'équilibrage. La rencontre vient de "
        "--map et --side, ou d'un fichier --encounter."
    ),
)
def simulate_cmd(
    map_path: Annotated[
        str | None, typer.Option("--map", help="Fichier YAML de la carte.", metavar="MAP")
    ] = None,
    side: Annotated[
        list[str] | None,
        typer.Option(
            "--side",
            help=(
                "Un camp : son nom (celui de « deployment » dans la carte) suivi d'un ou "
                "plusieurs fichiers JSON de combattants. À répéter pour chaque camp."
            ),
            metavar="NAME FILE [FILE ...]",
        ),
    ] = None,
    encounter_path: Annotated[
        str | None,
        typer.Option(
            "--encounter",
            help=(
                "Fichier YAML de rencontre (carte, camps, politiques, runs, seed, plafond) ; "
                "remplace --map et --side, les autres options l'emportent sur le fichier."
            ),
            metavar="FILE",
        ),
    ] = None,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy",
            help=(
                "Politique d'un camp : CAMP=heuristic, CAMP=scripted:SCRIPT.yaml, "
                "CAMP=strategy:STRATEGIE.yaml ou CAMP=llm (défaut : heuristic). À répéter pour "
                "chaque camp."
            ),
            metavar="SIDE=POLICY",
        ),
    ] = None,
    runs: Annotated[
        int | None,
        typer.Option(
            "--runs", help="Nombre de combats simulés (défaut : 1000).", click_type=FrenchInt(1)
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            help="Graine : le combat i utilise seed + i (défaut : 1).",
            click_type=FrenchInt(),
        ),
    ] = None,
    round_cap: Annotated[
        int | None,
        typer.Option(
            "--round-cap",
            help="Plafond de rounds par combat (entier ≥ 1, défaut : 100) ; au-delà, nul.",
            click_type=FrenchInt(1),
        ),
    ] = None,
    transcript: Annotated[
        bool,
        typer.Option("--transcript", help="Imprime le déroulé du premier combat avant le rapport."),
    ] = False,
    simple_monster_death: Annotated[
        bool,
        typer.Option(
            "--simple-monster-death",
            help="Les monstres meurent à 0 pv (les personnages joueurs jamais).",
        ),
    ] = False,
    json_path: Annotated[
        str | None,
        typer.Option(
            "--json",
            help="Écrit aussi l'objet statistique (pf1e-sim/report@1) dans PATH.",
            metavar="PATH",
        ),
    ] = None,
    workers: WorkersOption = 1,
    model: Annotated[
        str,
        typer.Option(
            "--model",
            help=(
                "Modèle des politiques llm : local (défaut), local:qwen-0.5b, gguf:CHEMIN, "
                "openai:MODELE ou replay:CASSETTE.json."
            ),
            metavar="MODEL",
        ),
    ] = "local",
    base_url: BaseUrlOption = None,
    record: Annotated[
        str | None,
        typer.Option(
            "--record",
            help="Enregistre les échanges avec le modèle dans une cassette (un seul processus).",
            metavar="CASSETTE",
        ),
    ] = None,
    narrate: Annotated[
        bool,
        typer.Option(
            "--narrate",
            help=(
                "Ajoute « Analyse » : un texte rédigé par un modèle de langage à partir des "
                "faits calculés, vérifié (repli sur un gabarit déterministe)."
            ),
        ),
    ] = False,
    narrator_model: NarratorModelOption = "local",
    html_path: HtmlOption = None,
) -> None:
    if base_url is not None:
        os.environ["OPENAI_BASE_URL"] = base_url  # read by openai:… models, workers included
    if narrate:
        from harness.reporter import check_model_spec

        check_model_spec(narrator_model)  # a typo fails before the fights, not after
    from engine.run.runner import combatant_infos, play_fight
    from engine.run.stats import build_report
    from harness.output import write_json
    from harness.parallel import PolicySet, policy_source, simulate
    from harness.report import encounter_unmodelled, render_report, render_transcript

    setup = load_setup(map_path, side, encounter_path, policy)
    config = setup.config.merge(runs, seed, round_cap, simple_monster_death)
    encounter, specs = setup.encounter, setup.policies
    uses_llm = any(spec.kind == "llm" for spec in specs)
    recorders: list[RecordingModel] = []
    policy_set: PolicySet | None = None
    if record is not None:
        if not uses_llm:
            raise UserError("--record n'a de sens qu'avec une politique llm (--policy CAMP=llm)")
        if workers > 1:
            raise UserError("--record enregistre dans un seul processus : retirez --workers")
        from harness.models import RecordingModel

        command = " ".join(["uv run pf1e-sim", *sys.argv[1:]]) if sys.argv[1:] else ""

        def wrap(inner: ChatModel) -> ChatModel:
            rec = RecordingModel(inner, Path(record), command)
            recorders.append(rec)
            return rec

        policy_set = PolicySet(specs, model, wrap)
    elif uses_llm and workers <= 1:
        policy_set = PolicySet(specs, model)
    check_outputs(json_path, html_path, record)  # a bad path must not cost the fights
    narrator = narrator_up_front(narrator_model) if narrate else None
    started()
    with Progress(config.runs) as bar:
        outcome = simulate(
            encounter,
            runs=config.runs,
            seed=config.seed,
            round_cap=config.round_cap,
            monsters_die_at_zero=config.simple_monster_death,
            workers=workers,
            progress=bar.update,
            policies=specs,
            model=model,
            policy_set=policy_set,
        )
    options: dict[str, Any] = {
        "map_file": setup.map_path,
        "side_files": setup.side_files,
        "simple_monster_death": config.simple_monster_death,
        "policies": {p.id: str(spec) for p, spec in zip(encounter.placements, specs, strict=True)},
    }
    if encounter_path is not None:
        options["encounter_file"] = encounter_path
    report = build_report(
        map_name=encounter.gmap.name,
        sides=encounter.sides,
        combatants=combatant_infos(encounter),
        runs=config.runs,
        seed=config.seed,
        round_cap=config.round_cap,
        summaries=outcome.tally,
        options=options,
        unmodelled=encounter_unmodelled(encounter),
    )
    if outcome.telemetry is not None:
        report["llm"] = {"model": model, **outcome.telemetry.to_dict()}
    out: list[str] = []
    if transcript:
        fight = play_fight(
            encounter,
            config.seed,
            policy_set or policy_source(specs, model),
            round_cap=config.round_cap,
            monsters_die_at_zero=config.simple_monster_death,
            record=True,
        )
        assert fight.log is not None
        out.append(render_transcript(fight.log))
    out.append(render_report(report))
    # The report is printed first: a file that cannot be written never costs the results.
    emit("\n".join(out))
    sys.stdout.flush()
    story = narrate_report(report, narrator_model, narrator) if narrate else None
    if html_path is not None:
        write_html(html_path, report, story)
    if json_path is not None:
        write_json(json_path, report)
    for rec in recorders:
        rec.save()
