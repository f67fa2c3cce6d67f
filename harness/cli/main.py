"""Command line: ``pf1e-sim`` (French help and messages, English flags).

``pf1e-sim --map … --side NAME FILE [FILE …] …`` is the same as
``pf1e-sim simulate …``. Every user mistake ends with a one-line French message
on stderr and exit status 2; no traceback.

This module parses and dispatches; each command lives in its own module of
:mod:`harness.cli`, which registers it on the shared typer application
(:data:`harness.cli.common.app`) when imported.
"""

from __future__ import annotations

import importlib
import os
import sys

import click
import typer

from engine.core.errors import Pf1eSimError
from harness.cli.common import PROG, SIDE_SEP, UserError, app, started

#: the module of each command, in the order of ``--help`` (the ``strategy`` group last)
COMMAND_MODULES = {
    "simulate": "simulate", "schema": "schema", "roll": "roll", "audit-dice": "roll",
    "report": "report", "experiment": "experiment", "sweep": "sweep", "strategy": "strategy",
}  # fmt: skip


def _register(command: str) -> None:
    """Import the module of ``command`` (every module for the top-level help).

    A command registers itself on :data:`~harness.cli.common.app` when its module
    is imported; building only the one a run needs keeps typer from converting the
    options of all the others at each start. The commands stay in the order of
    :data:`COMMAND_MODULES` whatever was imported before.
    """
    wanted = [COMMAND_MODULES[command]] if command in COMMAND_MODULES else COMMAND_MODULES.values()
    for module in dict.fromkeys(wanted):
        importlib.import_module(f"harness.cli.{module}")
    order = list(COMMAND_MODULES)
    app.registered_commands.sort(key=lambda info: order.index(info.name or ""))


def _prepare(argv: list[str]) -> list[str]:
    """Route the bare form to ``simulate`` and pack ``--side NAME FILE…`` into one value."""
    if not argv or (argv[0] not in COMMAND_MODULES and argv[0] not in ("-h", "--help")):
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


#: the commands that turn the garbage collector back on themselves, when their fights begin
_FIGHT_COMMANDS = frozenset(("simulate", "experiment", "sweep"))


def main(argv: list[str] | None = None) -> int:
    """Console entry point. Returns the exit status (also used by the tests)."""
    args = _prepare(list(sys.argv[1:] if argv is None else argv))
    _register(args[0])
    if args[0] in COMMAND_MODULES and args[0] not in _FIGHT_COMMANDS:
        started()  # no fights to wait for (a model may run): the collector is back on
    command = typer.main.get_group(app)  # a group even when one command is registered
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
        from engine.content.validation import printable

        sys.stderr.write(printable(f"{PROG}: erreur : {_french_usage(err)}\n"))
        return 2
    except (Pf1eSimError, UserError) as err:
        from engine.content.validation import printable

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
