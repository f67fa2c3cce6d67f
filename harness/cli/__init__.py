"""The ``pf1e-sim`` command line: :mod:`harness.cli.main` parses and dispatches,
one module per command (``simulate``, ``report``, ``experiment``, ``sweep``,
``strategy``, ``roll`` with ``audit-dice``, ``schema``), :mod:`harness.cli.config`
builds the encounter and merges the run settings, :mod:`harness.cli.common`
holds what they share."""
