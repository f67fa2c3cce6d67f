"""``python -m harness.cli``: the same as the ``pf1e-sim`` console script."""

from harness.cli import entry

entry()
