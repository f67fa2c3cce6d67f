"""``pf1e-sim sweep``: deployments × strategies of one side, N fights per cell."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from harness.cli.common import (
    CheckpointOption,
    FrenchCommand,
    FrenchInt,
    LlmModelOption,
    Progress,
    UserError,
    WorkersOption,
    app,
    check_outputs,
    emit,
    input_files,
    interrupted,
    started,
)
from harness.cli.config import load_setup
from harness.output import write_atomic


@app.command(
    "sweep",
    cls=FrenchCommand,
    help=(
        "Balayage : joue chaque déploiement d'un camp (zone de la carte, autre zone, cases "
        "de départ, formation) avec chaque stratégie, N combats par case (mêmes graines dans "
        "chaque case), et imprime la matrice des taux de victoire avec leurs bandes 3σ. "
        "Déploiements et stratégies viennent de la section « sweep » du fichier de rencontre."
    ),
)
def sweep_cmd(
    encounter_path: Annotated[
        str,
        typer.Option(
            "--encounter",
            help="Fichier YAML de rencontre avec une section « sweep ».",
            metavar="FILE",
        ),
    ],
    runs: Annotated[
        int | None,
        typer.Option(
            "--runs", help="Combats par case (défaut : runs du fichier).", click_type=FrenchInt(1)
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            help="Graine : le combat i de chaque case utilise seed + i.",
            click_type=FrenchInt(),
        ),
    ] = None,
    round_cap: Annotated[
        int | None,
        typer.Option("--round-cap", help="Plafond de rounds par combat.", click_type=FrenchInt(1)),
    ] = None,
    simple_monster_death: Annotated[
        bool,
        typer.Option("--simple-monster-death", help="Les monstres meurent à 0 pv."),
    ] = False,
    workers: WorkersOption = 1,
    model: LlmModelOption = "local",
    checkpoint: CheckpointOption = None,
    csv_path: Annotated[
        str | None,
        typer.Option(
            "--csv", help="Écrit aussi une ligne par case (CSV) dans PATH.", metavar="PATH"
        ),
    ] = None,
    json_path: Annotated[
        str | None,
        typer.Option(
            "--json", help="Écrit aussi l'objet pf1e-sim/sweep@1 dans PATH.", metavar="PATH"
        ),
    ] = None,
    heatmap_path: Annotated[
        str | None,
        typer.Option(
            "--heatmap",
            help=(
                "Écrit la carte de chaleur des taux de victoire en SVG dans PATH (.svg ; pas de "
                "PNG, qui demanderait une bibliothèque de rendu : un navigateur ouvre le SVG)."
            ),
            metavar="PATH",
        ),
    ] = None,
    html_path: Annotated[
        str | None,
        typer.Option(
            "--html",
            help="Écrit aussi une page HTML autonome (carte de chaleur, tableaux) dans PATH.",
            metavar="PATH",
        ),
    ] = None,
) -> None:
    from harness.checkpoint import Checkpoint, fingerprint
    from harness.output import write_json
    from harness.report import encounter_unmodelled
    from harness.sweep import (
        Strategy,
        build_variants,
        render_sweep,
        run_sweep,
        sweep_csv,
    )

    if heatmap_path is not None and not heatmap_path.lower().endswith(".svg"):
        if heatmap_path.lower().endswith(".png"):
            raise UserError("--heatmap : le PNG n'est pas pris en charge (il demanderait une "
                            "bibliothèque de rendu) ; donnez un fichier .svg")  # fmt: skip
        raise UserError(f"--heatmap attend un fichier .svg, reçu « {heatmap_path} »")
    setup = load_setup(None, None, encounter_path, None)
    assert setup.file is not None
    loaded = setup.file
    plan = loaded.sweep
    if plan is None:
        raise UserError(f"{encounter_path} : pas de section « sweep » (déploiements et "
                        "stratégies à balayer)")  # fmt: skip
    variants = build_variants(setup.encounter, plan.side, plan.variants, encounter_path)
    strategies = [Strategy(name, spec) for name, spec in plan.strategies]
    config = setup.config.merge(runs, seed, round_cap, simple_monster_death)
    specs = [*setup.policies, *(s.policy for s in strategies)]
    uses_llm = any(s.kind == "llm" for s in specs)
    check_outputs(csv_path, json_path, heatmap_path, html_path)  # before the fights
    book = None
    if checkpoint is not None:
        params = {
            "side": plan.side, "runs": config.runs, "seed": config.seed,
            "round_cap": config.round_cap, "monsters_die_at_zero": config.simple_monster_death,
            "model": model if uses_llm else None,
        }  # fmt: skip
        book = Checkpoint(
            checkpoint,
            "sweep",
            fingerprint("sweep", input_files(encounter_path, setup.file, specs), params),
        )
    total = len(variants) * len(strategies)
    if book is not None and book.done:
        sys.stderr.write(f"Reprise : {len(book.done)} case{'s' if len(book.done) > 1 else ''} "
                         f"sur {total} lue{'s' if len(book.done) > 1 else ''} dans "
                         f"{checkpoint}.\n")  # fmt: skip
    started()
    try:
        with Progress(config.runs * total) as bar:
            result = run_sweep(
                variants,
                setup.policies,
                plan.side,
                strategies,
                runs=config.runs,
                seed=config.seed,
                round_cap=config.round_cap,
                monsters_die_at_zero=config.simple_monster_death,
                workers=workers,
                model=model,
                checkpoint=book,
                progress=lambda fights, cells: bar.update(
                    fights, f"combats (cases {cells}/{total})"
                ),
                title=loaded.name,
            )
    except KeyboardInterrupt:
        n = 0 if book is None else len(book.done)
        plural = "s" if n > 1 else ""
        interrupted(checkpoint, f"{n} case{plural} sur {total} enregistrée{plural}")
        raise
    data = result.to_dict()
    data["encounter_file"] = encounter_path
    data["unmodelled"] = encounter_unmodelled(setup.encounter)
    emit(render_sweep(data))
    sys.stdout.flush()
    if csv_path is not None:
        write_atomic(csv_path, sweep_csv(data))
    if json_path is not None:
        write_json(json_path, data)
    if heatmap_path is not None:
        from harness.html import sweep_heatmap

        write_atomic(heatmap_path, '<?xml version="1.0" encoding="UTF-8"?>\n' + sweep_heatmap(data)
               + "\n")  # fmt: skip
    if html_path is not None:
        from harness.html import render_sweep_html

        write_atomic(html_path, render_sweep_html(data))
