"""``python -m harness.cli``: the same as the ``pf1e-sim`` console script."""

from harness.cli.main import entry

entry()
