"""Command line: ``pf1e-sim`` (French help and messages, English flags).

``pf1e-sim --map … --side NAME FILE [FILE …] …`` is the same as
``pf1e-sim simulate …``. Every user mistake ends with a one-line French message
on stderr and exit status 2; no traceback.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from typer.core import TyperCommand, TyperGroup

from engine.actions import action_json_schema
from engine.creatures import CombatantProfile, load_combatant
from engine.encounter import Encounter, build_encounter, check_sides
from engine.errors import Pf1eSimError, os_error_fr
from engine.maps import GameMap, load_map
from engine.runner import combatant_infos, play_fight
from engine.stats import build_report
from engine.validation import printable
from harness.encounter_file import load_encounter_file
from harness.models import RecordingModel
from harness.output import check_output, write_atomic
from harness.parallel import PolicySet, policy_source, simulate
from harness.report import render_report, render_transcript
from policies.answers import clean_text
from policies.llm import ChatModel
from policies.registry import HEURISTIC, PolicySpec, parse_policy_spec

SIDE_SEP = "\x1f"
PROG = "pf1e-sim"


def _emit(text: str) -> None:
    """Write what a user reads on stdout, without control characters or terminal
    escapes (names and texts come from files and models; JSON output is escaped
    by its encoder and written as is)."""
    sys.stdout.write(clean_text(text, newlines=True))


def _french_rich_help() -> None:
    """French titles for typer's rich help (imported only when help is shown)."""
    from typer import rich_utils

    rich_utils.OPTIONS_PANEL_TITLE = "Options"
    rich_utils.COMMANDS_PANEL_TITLE = "Commandes"
    rich_utils.ARGUMENTS_PANEL_TITLE = "Arguments"
    rich_utils.ERRORS_PANEL_TITLE = "Erreur"
    rich_utils.REQUIRED_LONG_STRING = "[obligatoire]"
    rich_utils.DEFAULT_STRING = "[défaut : {}]"


class _FrenchHelp:
    """Translate the help strings click and typer write themselves."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _french_rich_help()
        super().format_help(ctx, formatter)  # type: ignore[misc]

    def get_help_option(self, ctx: click.Context) -> click.Option | None:
        option = super().get_help_option(ctx)  # type: ignore[misc]
        if option is not None:
            option.help = "Affiche cette aide et quitte."
        return option  # type: ignore[no-any-return]

    def get_usage(self, ctx: click.Context) -> str:
        usage: str = super().get_usage(ctx)  # type: ignore[misc]
        return usage.replace("Usage:", "Utilisation :", 1)


class FrenchGroup(_FrenchHelp, TyperGroup):
    pass


class FrenchCommand(_FrenchHelp, TyperCommand):
    pass


#: options shared by several commands
NarratorModelOption = Annotated[
    str,
    typer.Option(
        "--narrator-model",
        help="Modèle de l'analyse : local (défaut), local:qwen-0.5b, gguf:CHEMIN, "
        "openai:MODELE ou replay:CASSETTE.json.",
        metavar="MODEL",
    ),
]
BaseUrlOption = Annotated[
    str | None,
    typer.Option(
        "--base-url",
        help="Serveur compatible OpenAI des modèles openai:… (sinon OPENAI_BASE_URL).",
        metavar="URL",
    ),
]
HtmlOption = Annotated[
    str | None,
    typer.Option(
        "--html",
        help="Écrit aussi un rapport HTML autonome (tableaux, graphiques, analyse) dans PATH.",
        metavar="PATH",
    ),
]

app = typer.Typer(
    name=PROG,
    cls=FrenchGroup,
    help=(
        "Simulateur de combat Pathfinder 1e : joue une rencontre des milliers de fois et "
        "imprime un rapport d'équilibrage en français. Sans sous-commande, "
        "« pf1e-sim --map … --side … » équivaut à « pf1e-sim simulate … »."
    ),
    add_completion=False,
    no_args_is_help=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode="rich",
)


class UserError(Exception):
    """A mistake of the user, shown as one French line (exit 2)."""


class FrenchInt(click.ParamType):
    """Integer option with a French error message and an optional minimum."""

    name = "entier"

    def __init__(self, minimum: int | None = None) -> None:
        self.minimum = minimum

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, int):
            number = value
        else:
            try:
                number = int(str(value).strip())
            except ValueError:
                self.fail(f"« {value} » n'est pas un entier", param, ctx)
        if self.minimum is not None and number < self.minimum:
            self.fail(f"{number} est invalide (entier ≥ {self.minimum} attendu)", param, ctx)
        return number


def _decode_sides(values: list[str]) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for raw in values:
        name, *files = raw.split(SIDE_SEP)
        out.append((name, files))
    return out


def _load_sides(sides: list[tuple[str, list[str]]]) -> list[tuple[str, list[CombatantProfile]]]:
    cache: dict[str, CombatantProfile] = {}
    out: list[tuple[str, list[CombatantProfile]]] = []
    for name, files in sides:
        profiles: list[CombatantProfile] = []
        for f in files:
            if f not in cache:
                cache[f] = load_combatant(f)
            profiles.append(cache[f])
        out.append((name, profiles))
    return out


class _Progress:
    """A rich progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, total: int, label: str = "combats") -> None:
        self.total = total
        self.label = label
        self._bar: Any = None
        self._task: Any = None
        if sys.stderr.isatty() and total >= 200:
            from rich.console import Console
            from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )

    def __enter__(self) -> _Progress:
        if self._bar is not None:
            self._bar.__enter__()
            self._task = self._bar.add_task(self.label, total=self.total)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(*exc)

    def update(self, done: int, label: str | None = None) -> None:
        if self._bar is not None:
            if label is not None:
                self._bar.update(self._task, completed=done, description=label)
            else:
                self._bar.update(self._task, completed=done)


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
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help="Processus de calcul (résultat identique quel que soit N).",
            click_type=FrenchInt(1),
        ),
    ] = 1,
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
    setup = _setup(map_path, side, encounter_path, policy)
    runs = runs if runs is not None else setup.runs
    seed = seed if seed is not None else setup.seed
    round_cap = round_cap if round_cap is not None else setup.round_cap
    simple_monster_death = simple_monster_death or setup.simple_monster_death
    encounter, specs = setup.encounter, setup.policies
    uses_llm = any(spec.kind == "llm" for spec in specs)
    recorders: list[RecordingModel] = []
    policy_set: PolicySet | None = None
    if record is not None:
        if not uses_llm:
            raise UserError("--record n'a de sens qu'avec une politique llm (--policy CAMP=llm)")
        if workers > 1:
            raise UserError("--record enregistre dans un seul processus : retirez --workers")
        command = " ".join(["uv run pf1e-sim", *sys.argv[1:]]) if sys.argv[1:] else ""

        def wrap(inner: ChatModel) -> ChatModel:
            rec = RecordingModel(inner, Path(record), command)
            recorders.append(rec)
            return rec

        policy_set = PolicySet(specs, model, wrap)
    elif uses_llm and workers <= 1:
        policy_set = PolicySet(specs, model)
    _check_outputs(json_path, html_path, record)  # a bad path must not cost the fights
    narrator = _narrator_up_front(narrator_model) if narrate else None
    with _Progress(runs) as bar:
        outcome = simulate(
            encounter,
            runs=runs,
            seed=seed,
            round_cap=round_cap,
            monsters_die_at_zero=simple_monster_death,
            workers=workers,
            progress=bar.update,
            policies=specs,
            model=model,
            policy_set=policy_set,
        )
    options: dict[str, Any] = {
        "map_file": setup.map_path,
        "side_files": setup.side_files,
        "simple_monster_death": simple_monster_death,
        "policies": {p.id: str(spec) for p, spec in zip(encounter.placements, specs, strict=True)},
    }
    if encounter_path is not None:
        options["encounter_file"] = encounter_path
    report = build_report(
        map_name=encounter.gmap.name,
        sides=encounter.sides,
        combatants=combatant_infos(encounter),
        runs=runs,
        seed=seed,
        round_cap=round_cap,
        summaries=outcome.tally,
        options=options,
    )
    if outcome.telemetry is not None:
        report["llm"] = {"model": model, **outcome.telemetry.to_dict()}
    out: list[str] = []
    if transcript:
        fight = play_fight(
            encounter,
            seed,
            policy_set or policy_source(specs, model),
            round_cap=round_cap,
            monsters_die_at_zero=simple_monster_death,
            record=True,
        )
        assert fight.log is not None
        out.append(render_transcript(fight.log))
    out.append(render_report(report))
    # The report is printed first: a file that cannot be written never costs the results.
    _emit("\n".join(out))
    sys.stdout.flush()
    story = _narrate(report, narrator_model, narrator) if narrate else None
    if html_path is not None:
        _write_html(html_path, report, story)
    if json_path is not None:
        write_atomic(json_path, json.dumps(report, ensure_ascii=False, indent=2) + "\n")
    for rec in recorders:
        rec.save()


@dataclass(frozen=True, slots=True)
class _Setup:
    encounter: Encounter
    policies: tuple[PolicySpec, ...]
    map_path: str
    side_files: dict[str, list[str]]
    runs: int = 1000
    seed: int = 1
    round_cap: int = 100
    simple_monster_death: bool = False


def _setup(
    map_path: str | None,
    side: list[str] | None,
    encounter_path: str | None,
    policy: list[str] | None,
) -> _Setup:
    """Build the encounter and one policy spec per combatant from the options."""
    overrides = _parse_policies(policy or [])
    if encounter_path is not None:
        if map_path is not None or side:
            raise UserError("--encounter remplace --map et --side : donnez l'un ou l'autre")
        loaded = load_encounter_file(encounter_path)
        gmap = load_map(loaded.map_path)
        listed = [(name, [f for f, _ in members]) for name, members in loaded.sides]
        check_sides(gmap, listed)
        _check_policy_sides(gmap, overrides)
        encounter = build_encounter(gmap, _load_sides(listed))
        by_side = {name: [spec for _, spec in members] for name, members in loaded.sides}
        specs = _specs_in_placement_order(encounter, by_side, overrides)
        return _Setup(
            encounter,
            specs,
            loaded.map_path,
            dict(listed),
            loaded.runs,
            loaded.seed,
            loaded.round_cap,
            loaded.simple_monster_death,
        )
    if map_path is None:
        raise UserError("option obligatoire manquante : --map (ou --encounter)")
    sides = _decode_sides(side or [])
    if not sides:
        raise UserError("aucun camp : ajoutez --side NOM FICHIER [FICHIER …] pour chaque camp")
    gmap = load_map(map_path)
    check_sides(gmap, sides)
    _check_policy_sides(gmap, overrides)
    encounter = build_encounter(gmap, _load_sides(sides))
    by_side = {name: [HEURISTIC] * len(files) for name, files in sides}
    specs = _specs_in_placement_order(encounter, by_side, overrides)
    return _Setup(encounter, specs, map_path, dict(sides))


def _parse_policies(values: list[str]) -> dict[str, PolicySpec]:
    out: dict[str, PolicySpec] = {}
    for raw in values:
        name, sep, spec = raw.partition("=")
        if not sep or not name or not spec:
            raise UserError(f"--policy attend CAMP=POLITIQUE, reçu « {raw} »")
        if name in out:
            raise UserError(f"--policy : le camp « {name} » est donné deux fois")
        out[name] = parse_policy_spec(spec)
    return out


def _check_policy_sides(gmap: GameMap, overrides: dict[str, PolicySpec]) -> None:
    for name in overrides:
        if name not in gmap.deployment:
            names = ", ".join(f"« {n} »" for n in gmap.deployment)
            raise UserError(f"--policy : camp inconnu « {name} » (camps de la carte : {names})")


def _specs_in_placement_order(
    encounter: Encounter,
    by_side: dict[str, list[PolicySpec]],
    overrides: dict[str, PolicySpec],
) -> tuple[PolicySpec, ...]:
    taken = dict.fromkeys(by_side, 0)
    out: list[PolicySpec] = []
    for placement in encounter.placements:
        side = placement.side
        spec = by_side[side][taken[side]]
        taken[side] += 1
        out.append(overrides.get(side, spec))
    return tuple(out)


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
    from engine.schemas import observation_json_schema, report_json_schema
    from policies.strategy import strategy_json_schema

    schemas = {
        "observation": observation_json_schema,
        "action": action_json_schema,
        "report": report_json_schema,
        "strategy": strategy_json_schema,
    }
    if name not in schemas:
        raise UserError(f"schéma inconnu « {name} » (choix : {', '.join(schemas)})")
    sys.stdout.write(json.dumps(schemas[name](), ensure_ascii=False, indent=2) + "\n")


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

    from engine.checks import CheckError, check
    from engine.packs import load_pack
    from engine.rng import SeededRng
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
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
        return
    text = explain_roll(rec, pack, mechanic, request, seed)
    if base is not None and rec.margin is not None:
        text += proportional_lines(pack, base, rec.margin)
    _emit(text)


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
    from engine.audit import audit_pack
    from engine.packs import builtin_packs, load_pack

    names = packs or builtin_packs()
    loaded = [load_pack(name) for name in names]
    results = [r for pack in loaded for r in audit_pack(pack, samples, seed)]
    ok = all(r.passed for r in results)
    if as_json:
        out = {"samples": samples, "seed": seed, "passed": ok,
               "cases": [r.to_dict() for r in results]}  # fmt: skip
        sys.stdout.write(json.dumps(out, ensure_ascii=False, indent=2) + "\n")
    else:
        from harness.rolls import render_audit

        _emit(render_audit(results, samples, seed))
    if not ok:
        raise typer.Exit(1)


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
    from harness.reporter import load_report

    report = load_report(path)
    _check_outputs(html_path)
    _emit(render_report(report))
    sys.stdout.flush()
    story = None if no_narrative else _narrate(report, narrator_model)
    if html_path is not None:
        _write_html(html_path, report, story)


def _narrate(
    report: dict[str, Any], spec: str, opened: tuple[ChatModel | None, str | None] | None = None
) -> Any:
    """Print the « Analyse » section; returns the narrative (for the HTML report).

    ``opened``: the narrator already opened by :func:`_narrator_up_front`, if it was.
    """
    from harness.narrative import narrate, render_narrative
    from harness.reporter import open_narrator

    model, unavailable = opened if opened is not None else open_narrator(spec)
    story = narrate(report, model, unavailable=unavailable)
    _emit("\n" + render_narrative(story))
    sys.stdout.flush()
    return story


def _narrator_up_front(spec: str) -> tuple[ChatModel | None, str | None] | None:
    """The narrator of a ``replay:`` string, opened before the fights.

    A missing or unreadable cassette is the user's mistake and must not cost the
    fights. Any other model is opened after them, as before: it is loaded only
    once the fights no longer need the memory, and its absence is not an error
    (the template narrative says why).
    """
    from harness.reporter import check_model_spec, open_narrator

    return open_narrator(spec) if check_model_spec(spec) == "replay" else None


def _check_outputs(*paths: str | None) -> None:
    """Refuse, before any work, an output path that could not be written."""
    for path in paths:
        if path is not None:
            check_output(path)


def _write_html(path: str, report: dict[str, Any], story: Any) -> None:
    from harness.html import render_html

    write_atomic(path, render_html(report, story))


class FrenchFloat(click.ParamType):
    """A number strictly between two bounds, with a French error message."""

    name = "nombre"

    def __init__(self, low: float, high: float) -> None:
        self.low, self.high = low, high

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            number = float(str(value).strip().replace(",", "."))
        except ValueError:
            self.fail(f"« {value} » n'est pas un nombre", param, ctx)
        if not self.low < number < self.high:
            self.fail(f"{value} est invalide (nombre entre {self.low:g} et {self.high:g} "
                      "exclus attendu)", param, ctx)  # fmt: skip
        return number


def _write(path: str, text: str) -> None:
    write_atomic(path, text)


def _input_files(encounter_path: str, specs: list[PolicySpec]) -> list[str]:
    """Every file whose content decides the fights of an encounter file."""
    loaded = load_encounter_file(encounter_path)
    files = [encounter_path, loaded.map_path]
    files += [f for _side, members in loaded.sides for f, _spec in members]
    files += [s.script_path for s in specs if s.script_path is not None]
    return files


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


def _interrupted(checkpoint: str | None, saved: str) -> None:
    """What an interrupted sweep or experiment kept (stderr)."""
    if checkpoint is not None:
        sys.stderr.write(f"{PROG}: {saved} dans {checkpoint} : relancez la même commande "
                         "pour reprendre.\n")  # fmt: skip
    else:
        sys.stderr.write(f"{PROG}: sans --checkpoint, ce qui était fini est perdu.\n")


CheckpointOption = Annotated[
    str | None,
    typer.Option(
        "--checkpoint",
        help=(
            "Point de reprise : enregistre dans PATH chaque partie finie ; relancée avec le même "
            "PATH, la commande reprend là où elle s'était arrêtée (même résultat, rien n'est "
            "rejoué). Refusé s'il a été écrit pour d'autres combats."
        ),
        metavar="PATH",
    ),
]


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
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help="Processus de calcul (résultat identique quel que soit N).",
            click_type=FrenchInt(1),
        ),
    ] = 1,
    model: Annotated[
        str, typer.Option("--model", help="Modèle des politiques llm.", metavar="MODEL")
    ] = "local",
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

    setup = _setup(None, None, encounter_path, None)
    loaded = load_encounter_file(encounter_path).experiment
    side = for_side or (loaded.side if loaded is not None else None)
    if side is None:
        raise UserError("experiment : donnez le camp comparé (--for-side) ou une section "
                        "« experiment » dans le fichier de rencontre")  # fmt: skip
    if side not in setup.encounter.sides:
        names = ", ".join(f"« {n} »" for n in setup.encounter.sides)
        raise UserError(f"--for-side : camp inconnu « {side} » (camps : {names})")
    arms: list[Arm] = []
    if arm:
        for raw in arm:
            name, sep, policy = raw.partition("=")
            if not sep:
                name, policy = raw, raw
            if not name or not policy:
                raise UserError(f"--arm attend [NOM=]POLITIQUE, reçu « {raw} »")
            if any(a.name == name for a in arms):
                raise UserError(f"--arm : le bras « {name} » est donné deux fois")
            arms.append(Arm(name, parse_policy_spec(policy)))
    elif loaded is not None:
        arms = [Arm(name, spec) for name, spec in loaded.arms]
    if len(arms) < 2:
        raise UserError("experiment : il faut au moins deux bras (--arm, à répéter)")
    target = target_width if target_width is not None else (loaded and loaded.target_width)
    most = max_runs if max_runs is not None else (loaded and loaded.max_runs)
    if most is not None and target is None:
        raise UserError("--max-runs n'a de sens qu'avec l'arrêt adaptatif (--target-width)")
    runs = runs if runs is not None else setup.runs
    if target is not None and most is None:
        most = 10 * runs
    seed = seed if seed is not None else setup.seed
    round_cap = round_cap if round_cap is not None else setup.round_cap
    monsters_die = simple_monster_death or setup.simple_monster_death
    _check_outputs(json_path)  # a bad path must not cost the fights
    book = None
    if checkpoint is not None:
        specs = [*setup.policies, *(a.policy for a in arms)]
        params = {
            "side": side, "runs": runs, "seed": seed, "round_cap": round_cap,
            "monsters_die_at_zero": monsters_die,
            "model": model if any(s.kind == "llm" for s in specs) else None,
            "arms": [_spec_key(a.policy) for a in arms],
        }  # fmt: skip
        book = Checkpoint(
            checkpoint,
            "experiment",
            fingerprint("experiment", _input_files(encounter_path, specs), params),
        )
        saved = sum(key[1] - key[0] for key in book.done)
        if saved:
            sys.stderr.write(f"Reprise : {saved} combats par bras lus dans {checkpoint}.\n")
    try:
        with _Progress((most or runs) * len(arms)) as bar:
            result = run_experiment(
                setup.encounter,
                setup.policies,
                side,
                arms,
                runs=runs,
                seed=seed,
                round_cap=round_cap,
                monsters_die_at_zero=monsters_die,
                level=level if level is not None else (loaded.level if loaded else 0.05),
                workers=workers,
                target_width=target,
                max_runs=most,
                model=model,
                progress=lambda done, _limit: bar.update(done * len(arms)),
                checkpoint=book,
            )
    except KeyboardInterrupt:
        saved = 0 if book is None else sum(k[1] - k[0] for k in book.done)
        _interrupted(checkpoint, f"{saved} combats par bras enregistrés")
        raise
    data = result.to_dict()
    data["encounter_file"] = encounter_path
    title = load_encounter_file(encounter_path).name
    _emit(render_experiment(data, title))
    sys.stdout.flush()
    if json_path is not None:
        write_atomic(json_path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")


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
    workers: Annotated[
        int,
        typer.Option(
            "--workers",
            help="Processus de calcul (résultat identique quel que soit N).",
            click_type=FrenchInt(1),
        ),
    ] = 1,
    model: Annotated[
        str, typer.Option("--model", help="Modèle des politiques llm.", metavar="MODEL")
    ] = "local",
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
    setup = _setup(None, None, encounter_path, None)
    loaded = load_encounter_file(encounter_path)
    plan = loaded.sweep
    if plan is None:
        raise UserError(f"{encounter_path} : pas de section « sweep » (déploiements et "
                        "stratégies à balayer)")  # fmt: skip
    variants = build_variants(setup.encounter, plan.side, plan.variants, encounter_path)
    strategies = [Strategy(name, spec) for name, spec in plan.strategies]
    runs = runs if runs is not None else setup.runs
    seed = seed if seed is not None else setup.seed
    round_cap = round_cap if round_cap is not None else setup.round_cap
    monsters_die = simple_monster_death or setup.simple_monster_death
    specs = [*setup.policies, *(s.policy for s in strategies)]
    uses_llm = any(s.kind == "llm" for s in specs)
    _check_outputs(csv_path, json_path, heatmap_path, html_path)  # before the fights
    book = None
    if checkpoint is not None:
        params = {
            "side": plan.side, "runs": runs, "seed": seed, "round_cap": round_cap,
            "monsters_die_at_zero": monsters_die, "model": model if uses_llm else None,
        }  # fmt: skip
        book = Checkpoint(
            checkpoint, "sweep", fingerprint("sweep", _input_files(encounter_path, specs), params)
        )
    total = len(variants) * len(strategies)
    if book is not None and book.done:
        sys.stderr.write(f"Reprise : {len(book.done)} case{'s' if len(book.done) > 1 else ''} "
                         f"sur {total} lue{'s' if len(book.done) > 1 else ''} dans "
                         f"{checkpoint}.\n")  # fmt: skip
    try:
        with _Progress(runs * total) as bar:
            result = run_sweep(
                variants,
                setup.policies,
                plan.side,
                strategies,
                runs=runs,
                seed=seed,
                round_cap=round_cap,
                monsters_die_at_zero=monsters_die,
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
        _interrupted(checkpoint, f"{n} case{plural} sur {total} enregistrée{plural}")
        raise
    data = result.to_dict()
    data["encounter_file"] = encounter_path
    _emit(render_sweep(data))
    sys.stdout.flush()
    if csv_path is not None:
        _write(csv_path, sweep_csv(data))
    if json_path is not None:
        _write(json_path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    if heatmap_path is not None:
        from harness.html import sweep_heatmap

        _write(heatmap_path, '<?xml version="1.0" encoding="UTF-8"?>\n' + sweep_heatmap(data)
               + "\n")  # fmt: skip
    if html_path is not None:
        from harness.html import render_sweep_html

        _write(html_path, render_sweep_html(data))


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
    _emit(describe_strategy(compiled.spec))
    for note in compiled.not_understood:
        _emit(f"non compris : {clean_text(note)}\n")
    if compiled.not_understood and roster is None:
        _emit("(noms de combattants : donnez --encounter FICHIER --side CAMP pour les résoudre)\n")
    origin = "cache" if cached else model
    _emit(f"Écrit dans {output} ({origin}) : relisez-le, il se modifie à la main.\n")


COMMANDS = (
    "simulate", "schema", "report", "experiment", "sweep", "strategy", "roll", "audit-dice",
)  # fmt: skip


def _prepare(argv: list[str]) -> list[str]:
    """Route the bare form to ``simulate`` and pack ``--side NAME FILE…`` into one value."""
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv = ["simulate", *argv]
    if argv[0] == "roll":
        # a roll expression may start with a penalty (« -2 (malus) vs 10 »): a leading
        # space keeps click from reading it as an option (the parser skips spaces)
        argv = [" " + a if len(a) > 1 and a[0] == "-" and a[1].isdigit() else a for a in argv]
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":  # end of options: the rest is passed through untouched
            out += argv[i:]
            break
        if tok == "--side" or tok.startswith("--side="):
            values: list[str] = []
            if tok.startswith("--side="):
                values.append(tok.split("=", 1)[1])
            i += 1
            while i < len(argv) and not (argv[i].startswith("-") and len(argv[i]) > 1):
                values.append(argv[i])
                i += 1
            if not values:
                out.append("--side")
                continue
            out += ["--side", SIDE_SEP.join(values)]
            continue
        out.append(tok)
        i += 1
    return out


def _french_usage(err: click.ClickException) -> str:
    if isinstance(err, click.MissingParameter):
        param = err.param
        if isinstance(param, click.Argument):
            metavar = param.make_metavar(click.Context(click.Command(PROG)))
            return f"argument obligatoire manquant : {metavar}"
        name = "/".join(param.opts) if param is not None and param.opts else "?"
        return f"option obligatoire manquante : {name}"
    if isinstance(err, click.NoSuchOption):
        hint = ""
        if err.possibilities:
            hint = f" (vouliez-vous dire {' ou '.join(sorted(err.possibilities))} ?)"
        return f"option inconnue : {err.option_name}{hint}"
    if isinstance(err, click.BadParameter):
        param = err.param
        name = "/".join(param.opts) if param is not None and param.opts else "valeur"
        return f"{name} : {err.message}"
    if isinstance(err, click.BadOptionUsage):
        return f"l'option {err.option_name} attend une valeur"
    message = err.format_message()
    if message == "Missing command.":
        return "sous-commande manquante (voir --help)"
    if message.startswith("No such command"):
        return f"sous-commande inconnue : {message.split(chr(39))[1]}"
    if message.startswith("Got unexpected extra argument"):
        extra = message[message.find("(") + 1 : message.rfind(")")]
        return f"argument inattendu : {extra}"
    if message.startswith("Option") and "requires an argument" in message:
        return f"l'option {message.split(chr(39))[1]} attend une valeur"
    return f"ligne de commande invalide ({message})"


def main(argv: list[str] | None = None) -> int:
    """Console entry point. Returns the exit status (also used by the tests)."""
    args = _prepare(list(sys.argv[1:] if argv is None else argv))
    command = typer.main.get_command(app)
    try:
        code = command.main(args=args, prog_name=PROG, standalone_mode=False)
        if isinstance(code, int) and code:
            # without standalone mode typer returns the status of typer.Exit, and turns
            # Ctrl-C into 130, instead of raising
            if code == 130:
                sys.stderr.write(f"{PROG}: interrompu\n")
            return code
    except click.exceptions.Exit as done:
        return int(done.exit_code or 0)
    except click.ClickException as err:
        sys.stderr.write(printable(f"{PROG}: erreur : {_french_usage(err)}\n"))
        return 2
    except (Pf1eSimError, UserError) as err:
        sys.stderr.write(printable(f"{PROG}: erreur : {err}\n"))
        return 2
    except click.exceptions.Abort:
        sys.stderr.write(f"{PROG}: interrompu\n")
        return 130
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrompu\n")
        return 130
    return 0


def entry() -> None:  # pragma: no cover - exercised through the console script
    """Console-script entry: run, flush, and leave without tearing the interpreter down.

    Everything the command produces is written and flushed before the process
    ends; skipping the interpreter's teardown of hundreds of imported modules
    saves a noticeable part of a short run's wall time.
    """
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
