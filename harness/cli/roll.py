"""``pf1e-sim roll`` (one roll, explained) and ``pf1e-sim audit-dice`` (the dice audited)."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from harness.cli.common import FrenchCommand, FrenchInt, UserError, app, emit
from harness.output import json_text


@app.command(
    "roll",
    cls=FrenchCommand,
    help=(
        "Lance un jet et l'explique en entier : dés, dé gardé, chaque modificateur et sa "
        "source, cible, issue, marge ou niveau de réussite. Exemples : "
        "« pf1e-sim roll '+5 (Force) +1 (arme) vs 15' --type attack », "
        "« pf1e-sim roll '+3 (Dex) vs moyenne avantage' --pack d20-maison », "
        "« pf1e-sim roll 'sous 60 difficile bonus' --pack coc7-lite », "
        "« pf1e-sim roll 'sous 4 -5 (malus)' --pack 2d5 »."
    ),
)
def roll_cmd(
    expression: Annotated[
        str,
        typer.Argument(
            help=(
                "Le jet : modificateurs « +2 (source) », cible « vs 15 » / « sous 60 » ou "
                "difficulté nommée, avantage, désavantage, bonus, pénalité."
            ),
            metavar="JET",
        ),
    ],
    pack_name: Annotated[
        str,
        typer.Option(
            "--pack",
            help="Pack de règles : pf1e, d20-maison, d20-libre, coc7-lite, 2d5 ou fichier YAML.",
            metavar="PACK",
        ),
    ] = "pf1e",
    kind: Annotated[
        str,
        typer.Option(
            "--type",
            help="Type de jet : check, skill, save, attack, confirm, initiative, stabilize…",
            metavar="TYPE",
        ),
    ] = "check",
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed",
            click_type=FrenchInt(0),
            help="Graine du jet (par défaut tirée au hasard et affichée, pour le rejouer).",
        ),
    ] = None,
    base: Annotated[
        int | None,
        typer.Option(
            "--base",
            click_type=FrenchInt(),
            help="Valeur de base à rendre proportionnelle à la marge (packs qui le déclarent).",
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Sortie JSON.")] = False,
) -> None:
    import secrets

    from engine.content.packs import load_pack
    from engine.core.checks import CheckError, check
    from engine.core.rng import SeededRng
    from harness.rolls import RollSyntaxError, explain_roll, parse_roll, proportional_lines

    try:
        pack = load_pack(pack_name)
        mechanic = pack.mechanic(kind)
        request = parse_roll(expression, pack, mechanic)
        if base is not None and pack.percent_per_point is None:
            raise UserError(f"le pack « {pack.id} » ne déclare pas de valeurs proportionnelles")
        if base is not None and request.target is None:
            raise UserError("--base demande un jet avec une cible (la marge en dépend)")
        if seed is None:
            seed = secrets.randbelow(2**31)
        rec = check(
            SeededRng(seed), mechanic, kind, request.modifiers, request.target,
            request.edge, request.level,
        )  # fmt: skip
    except (CheckError, RollSyntaxError) as err:
        raise UserError(str(err)) from None
    if as_json:
        out: dict[str, Any] = {
            "pack": pack.id,
            "mechanic": mechanic.name,
            "seed": seed,
            "difficulty": request.difficulty,
            "roll": rec.to_dict(),
        }
        if base is not None and rec.margin is not None:
            out["proportional"] = {
                "base": base,
                "margin": rec.margin,
                "proportional": pack.proportional(base, rec.margin),
                "modified": pack.modified(base, rec.margin),
            }
        sys.stdout.write(json_text(out))
        return
    text = explain_roll(rec, pack, mechanic, request, seed)
    if base is not None and rec.margin is not None:
        text += proportional_lines(pack, base, rec.margin)
    emit(text)


@app.command(
    "audit-dice",
    cls=FrenchCommand,
    help=(
        "Audit des dés : lance N jets par cas (chaque mécanique, avec et sans avantage ou "
        "dés bonus), recalcule chaque jet depuis les dés tirés et compare la distribution "
        "des résultats gardés à la distribution exacte (khi-deux). Statut 1 si un cas échoue."
    ),
)
def audit_dice_cmd(
    packs: Annotated[
        list[str] | None,
        typer.Option(
            "--pack",
            help="Pack à auditer (répétable ; par défaut tous les packs fournis).",
            metavar="PACK",
        ),
    ] = None,
    samples: Annotated[
        int,
        typer.Option("--samples", click_type=FrenchInt(100), help="Jets par cas.", metavar="N"),
    ] = 200_000,
    seed: Annotated[
        int, typer.Option("--seed", click_type=FrenchInt(0), help="Graine du premier cas.")
    ] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Sortie JSON.")] = False,
) -> None:
    from engine.content.packs import builtin_packs, load_pack
    from engine.run.audit import audit_pack

    names = packs or builtin_packs()
    loaded = [load_pack(name) for name in names]
    results = [r for pack in loaded for r in audit_pack(pack, samples, seed)]
    ok = all(r.passed for r in results)
    if as_json:
        out = {"samples": samples, "seed": seed, "passed": ok,
               "cases": [r.to_dict() for r in results]}  # fmt: skip
        sys.stdout.write(json_text(out))
    else:
        from harness.rolls import render_audit

        emit(render_audit(results, samples, seed))
    if not ok:
        raise typer.Exit(1)
