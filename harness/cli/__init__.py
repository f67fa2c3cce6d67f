"""The ``pf1e-sim`` command line: :mod:`harness.cli.main` parses and dispatches,
one module per command (``simulate``, ``report``, ``experiment``, ``sweep``,
``strategy``, ``roll`` with ``audit-dice``, ``schema``), :mod:`harness.cli.config`
builds the encounter and merges the run settings, :mod:`harness.cli.common`
holds what they share."""


def entry() -> None:  # pragma: no cover - exercised through the console script
    """Console entry point (``pf1e-sim``, ``python -m harness.cli``).

    The start-up (imports, pydantic models, the files read) builds a few hundred
    thousand objects that live until the process ends and makes no garbage
    worth collecting, so the cyclic garbage collector is off until a command
    starts its fights (:func:`harness.cli.common.started` freezes what the
    start-up built and turns it back on); a command without fights turns it
    back on as soon as it is dispatched. This module imports nothing, so the whole start-up runs
    without collections.
    """
    import gc

    gc.disable()
    from harness.cli.main import entry as run

    run()
