"""``pf1e-sim strategy compile``: a strategy text compiled into a YAML file."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from harness.cli.common import BaseUrlOption, FrenchCommand, FrenchGroup, UserError, app, emit
from harness.output import check_output, write_atomic

strategy_app = typer.Typer(
    name="strategy",
    cls=FrenchGroup,
    help="Stratégies en langage naturel : compilation en fichier YAML par un modèle de langage.",
    add_completion=False,
    no_args_is_help=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(strategy_app, name="strategy")


@strategy_app.command(
    "compile",
    cls=FrenchCommand,
    help=(
        "Traduit un texte de stratégie (français ou anglais) en fichier YAML validé "
        "(pf1e-sim/strategy@1) et l'explique en français pour vérification. Le résultat est "
        "mis en cache (texte, modèle, prompt)."
    ),
)
def strategy_compile_cmd(
    text: Annotated[str, typer.Argument(help="Le texte de la stratégie.", metavar="TEXTE")],
    output: Annotated[
        str,
        typer.Option("--output", "-o", help="Fichier YAML à écrire.", metavar="FICHIER"),
    ],
    model: Annotated[
        str,
        typer.Option(
            "--model",
            help=(
                "Modèle : local (défaut), local:qwen-0.5b, gguf:CHEMIN, openai:MODELE ou "
                "replay:CASSETTE.json."
            ),
            metavar="MODEL",
        ),
    ] = "local",
    base_url: BaseUrlOption = None,
    encounter: Annotated[
        str | None,
        typer.Option(
            "--encounter",
            help=(
                "Rencontre dont les noms sont résolus (ennemis : noms et identifiants ; nos "
                "combattants ne deviennent jamais des cibles). Avec --side."
            ),
            metavar="FICHIER",
        ),
    ] = None,
    side: Annotated[
        str | None,
        typer.Option(
            "--side", help="Notre camp dans la rencontre (avec --encounter).", metavar="CAMP"
        ),
    ] = None,
) -> None:
    from harness.strategy_compile import compile_cached, render, roster_of
    from policies.answers import clean_text
    from policies.strategy_compile import describe_strategy

    if base_url is not None:
        os.environ["OPENAI_BASE_URL"] = base_url
    if (encounter is None) != (side is None):
        raise UserError("--encounter et --side vont ensemble : donnez les deux ou aucun")
    check_output(output)  # before the model call, which may be long
    roster = None if encounter is None or side is None else roster_of(encounter, side)
    compiled, cached = compile_cached(text, model, roster=roster)
    header = f"# Compilé par {model} depuis : {' '.join(clean_text(text).split())}\n"
    write_atomic(output, header + render(compiled))
    emit(describe_strategy(compiled.spec))
    for note in compiled.not_understood:
        emit(f"non compris : {clean_text(note)}\n")
    if compiled.not_understood and roster is None:
        emit("(noms de combattants : donnez --encounter FICHIER --side CAMP pour les résoudre)\n")
    origin = "cache" if cached else model
    emit(f"Écrit dans {output} ({origin}) : relisez-le, il se modifie à la main.\n")
