"""What the commands share: the typer application, French help and option types,
user errors, the progress bar, output checks and the narrative helpers.

Only click, typer and light modules are imported here: every command module is
imported when the CLI starts, so what a command alone needs is imported in its
body (see ``docs/architecture.md``, « CLI »).
"""

from __future__ import annotations

import gc
import sys
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer
from typer.core import TyperCommand, TyperGroup

from harness.output import check_output, write_atomic

if TYPE_CHECKING:
    from harness.encounter_file import LoadedEncounter
    from policies.llm import ChatModel
    from policies.registry import PolicySpec

SIDE_SEP = "\x1f"
PROG = "pf1e-sim"


def emit(text: str) -> None:
    """Write what a user reads on stdout, without control characters or terminal
    escapes (names and texts come from files and models; JSON output is escaped
    by its encoder and written as is)."""
    if not text.replace("\n", "").isprintable():
        # newlines aside, every character ``clean_text`` removes or replaces is
        # unprintable: a text without any comes back unchanged, so a report of
        # thousands of characters is not cleaned one character at a time
        from policies.answers import clean_text

        text = clean_text(text, newlines=True)
    sys.stdout.write(text)


def started() -> None:
    """The start-up is over, the fights begin: turn the garbage collector back on.

    :func:`harness.cli.entry` turns it off for the start-up; what the start-up
    built is frozen (``gc.freeze``: never scanned again, as it lives until the
    end). Where the collector is on (the tests call :func:`harness.cli.main.main`
    directly), nothing changes.
    """
    if not gc.isenabled():
        gc.freeze()
        gc.enable()


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


WorkersOption = Annotated[
    int,
    typer.Option(
        "--workers",
        help="Processus de calcul (résultat identique quel que soit N).",
        click_type=FrenchInt(1),
    ),
]

#: ``--model`` of the commands that only pass it on to llm policies
LlmModelOption = Annotated[
    str, typer.Option("--model", help="Modèle des politiques llm.", metavar="MODEL")
]


class Progress:
    """A rich progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, total: int, label: str = "combats") -> None:
        self.total = total
        self.label = label
        self._bar: Any = None
        self._task: Any = None
        if sys.stderr.isatty() and total >= 200:
            from rich.console import Console
            from rich.progress import BarColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.completed}/{task.total}"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )

    def __enter__(self) -> Progress:
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


def check_outputs(*paths: str | None) -> None:
    """Refuse, before any work, an output path that could not be written."""
    for path in paths:
        if path is not None:
            check_output(path)


def narrate_report(
    report: dict[str, Any], spec: str, opened: tuple[ChatModel | None, str | None] | None = None
) -> Any:
    """Print the « Analyse » section; returns the narrative (for the HTML report).

    ``opened``: the narrator already opened by :func:`narrator_up_front`, if it was.
    """
    from harness.narrative import narrate, render_narrative
    from harness.reporter import open_narrator

    model, unavailable = opened if opened is not None else open_narrator(spec)
    story = narrate(report, model, unavailable=unavailable)
    emit("\n" + render_narrative(story))
    sys.stdout.flush()
    return story


def narrator_up_front(spec: str) -> tuple[ChatModel | None, str | None] | None:
    """The narrator of a ``replay:`` string, opened before the fights.

    A missing or unreadable cassette is the user's mistake and must not cost the
    fights. Any other model is opened after them, as before: it is loaded only
    once the fights no longer need the memory, and its absence is not an error
    (the template narrative says why).
    """
    from harness.reporter import check_model_spec, open_narrator

    return open_narrator(spec) if check_model_spec(spec) == "replay" else None


def write_html(path: str, report: dict[str, Any], story: Any) -> None:
    from harness.html import render_html

    write_atomic(path, render_html(report, story))


def input_files(encounter_path: str, loaded: LoadedEncounter, specs: list[PolicySpec]) -> list[str]:
    """Every file whose content decides the fights of an encounter file."""
    files = [encounter_path, loaded.map_path]
    files += [f for _side, members in loaded.sides for f, _spec in members]
    files += [s.script_path for s in specs if s.script_path is not None]
    return files


def interrupted(checkpoint: str | None, saved: str) -> None:
    """What an interrupted sweep or experiment kept (stderr)."""
    if checkpoint is not None:
        sys.stderr.write(f"{PROG}: {saved} dans {checkpoint} : relancez la même commande "
                         "pour reprendre.\n")  # fmt: skip
    else:
        sys.stderr.write(f"{PROG}: sans --checkpoint, ce qui était fini est perdu.\n")
