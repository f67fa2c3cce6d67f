"""``pf1e-sim experiment``: arms (policies of one side) compared on the same fights."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from engine.core.errors import os_error_fr
from harness.cli.common import (
    CheckpointOption,
    FrenchCommand,
    FrenchFloat,
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

if TYPE_CHECKING:
    from policies.registry import PolicySpec


@app.command(
    "experiment",
    cls=FrenchCommand,
    help=(
        "Compare plusieurs politiques (bras) pour un camp sur les mêmes combats (mêmes graines "
        "pour chaque bras) : taux de victoire, différence avec son intervalle de confiance, "
        "test, verdict. Les bras viennent de --arm ou de la section « experiment » du fichier "
        "de rencontre."
    ),
)
def experiment_cmd(
    encounter_path: Annotated[
        str,
        typer.Option("--encounter", help="Fichier YAML de rencontre.", metavar="FILE"),
    ],
    for_side: Annotated[
        str | None,
        typer.Option("--for-side", help="Le camp dont la politique change.", metavar="SIDE"),
    ] = None,
    arm: Annotated[
        list[str] | None,
        typer.Option(
            "--arm",
            help=(
                "Un bras : [NOM=]POLITIQUE (heuristic, scripted:…, strategy:…, llm). Au moins "
                "deux ; le premier sert de référence."
            ),
            metavar="[NAME=]POLICY",
        ),
    ] = None,
    runs: Annotated[
        int | None,
        typer.Option(
            "--runs",
            help="Combats par bras (et par lot en arrêt adaptatif).",
            click_type=FrenchInt(1),
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", help="Graine : le combat i utilise seed + i.", click_type=FrenchInt()
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
    level: Annotated[
        float | None,
        typer.Option(
            "--level",
            help="Seuil du test (défaut : 0.05, soit un IC à 95 %).",
            click_type=FrenchFloat(0, 1),
        ),
    ] = None,
    target_width: Annotated[
        float | None,
        typer.Option(
            "--target-width",
            help=(
                "Arrêt adaptatif : rejoue des lots de --runs combats tant qu'un intervalle de "
                "différence est plus large que cette valeur (0.05 = 5 points)."
            ),
            click_type=FrenchFloat(0, 2),
        ),
    ] = None,
    max_runs: Annotated[
        int | None,
        typer.Option(
            "--max-runs",
            help="Arrêt adaptatif : combats par bras au plus.",
            click_type=FrenchInt(1),
        ),
    ] = None,
    workers: WorkersOption = 1,
    model: LlmModelOption = "local",
    json_path: Annotated[
        str | None,
        typer.Option(
            "--json", help="Écrit aussi l'objet pf1e-sim/experiment@1 dans PATH.", metavar="PATH"
        ),
    ] = None,
    checkpoint: CheckpointOption = None,
) -> None:
    from harness.checkpoint import Checkpoint, fingerprint
    from harness.experiment import Arm, render_experiment, run_experiment
    from harness.output import write_json
    from harness.report import encounter_unmodelled

    setup = load_setup(None, None, encounter_path, None)
    assert setup.file is not None
    # the file's values (its « experiment » section) with the flags laid over them
    config = setup.config.merge(
        runs, seed, round_cap, simple_monster_death, side=for_side or None, level=level,
        target_width=target_width, max_runs=max_runs,
    )  # fmt: skip
    side = config.side
    if side is None:
        raise UserError("experiment : donnez le camp comparé (--for-side) ou une section "
                        "« experiment » dans le fichier de rencontre")  # fmt: skip
    if side not in setup.encounter.sides:
        names = ", ".join(f"« {n} »" for n in setup.encounter.sides)
        raise UserError(f"--for-side : camp inconnu « {side} » (camps : {names})")
    if arm:  # read once the side is known to be right, as they may name files
        config = config.merge(arms=_parse_arms(arm))
    arms = [Arm(name, spec) for name, spec in config.arms]
    if len(arms) < 2:
        raise UserError("experiment : il faut au moins deux bras (--arm, à répéter)")
    target, most = config.target_width, config.max_runs
    if most is not None and target is None:
        raise UserError("--max-runs n'a de sens qu'avec l'arrêt adaptatif (--target-width)")
    if target is not None and most is None:
        most = 10 * config.runs
    check_outputs(json_path)  # a bad path must not cost the fights
    book = None
    if checkpoint is not None:
        specs = [*setup.policies, *(a.policy for a in arms)]
        params = {
            "side": side, "runs": config.runs, "seed": config.seed,
            "round_cap": config.round_cap,
            "monsters_die_at_zero": config.simple_monster_death,
            "model": model if any(s.kind == "llm" for s in specs) else None,
            "arms": [_spec_key(a.policy) for a in arms],
        }  # fmt: skip
        book = Checkpoint(
            checkpoint,
            "experiment",
            fingerprint("experiment", input_files(encounter_path, setup.file, specs), params),
        )
        saved = sum(key[1] - key[0] for key in book.done)
        if saved:
            sys.stderr.write(f"Reprise : {saved} combats par bras lus dans {checkpoint}.\n")
    started()
    try:
        with Progress((most or config.runs) * len(arms)) as bar:
            result = run_experiment(
                setup.encounter,
                setup.policies,
                side,
                arms,
                runs=config.runs,
                seed=config.seed,
                round_cap=config.round_cap,
                monsters_die_at_zero=config.simple_monster_death,
                level=config.level,
                workers=workers,
                target_width=target,
                max_runs=most,
                model=model,
                progress=lambda done, _limit: bar.update(done * len(arms)),
                checkpoint=book,
            )
    except KeyboardInterrupt:
        saved = 0 if book is None else sum(k[1] - k[0] for k in book.done)
        interrupted(checkpoint, f"{saved} combats par bras enregistrés")
        raise
    data = result.to_dict()
    data["encounter_file"] = encounter_path
    data["unmodelled"] = encounter_unmodelled(setup.encounter)
    title = setup.file.name
    emit(render_experiment(data, title))
    sys.stdout.flush()
    if json_path is not None:
        write_json(json_path, data)


def _parse_arms(values: list[str]) -> list[tuple[str, PolicySpec]]:
    """The ``--arm [NAME=]POLICY`` flags, in order (the policy's name when none is given)."""
    from policies.registry import parse_policy_spec

    arms: list[tuple[str, PolicySpec]] = []
    for raw in values:
        name, sep, policy = raw.partition("=")
        if not sep:
            name, policy = raw, raw
        if not name or not policy:
            raise UserError(f"--arm attend [NOM=]POLITIQUE, reçu « {raw} »")
        if any(known == name for known, _ in arms):
            raise UserError(f"--arm : le bras « {name} » est donné deux fois")
        arms.append((name, parse_policy_spec(policy)))
    return arms


def _spec_key(spec: PolicySpec) -> list[str | None]:
    """A policy by its kind and the content of its file (not its path)."""
    if spec.script_path is None:
        return [spec.kind, spec.model]
    import hashlib

    try:
        digest = hashlib.sha256(Path(spec.script_path).read_bytes()).hexdigest()
    except OSError as err:
        raise UserError(f"{spec.script_path} : lecture impossible : {os_error_fr(err)}") from None
    return [spec.kind, digest]
