"""Test isolation from the machine: no test reads or writes the user's cache.

Every test, and every docstring example pytest collects from the packages (this
file sits at the root for them), gets an empty cache directory of its own
(``PF1E_SIM_CACHE``), as on a machine that never ran pf1e-sim. The live tests
(``-m live``) share one session-wide cache instead, so the embedded model is
assembled once per run, still from the installed packages and never from what a
previous session left.
"""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def _live_cache(tmp_path_factory: pytest.TempPathFactory):
    return tmp_path_factory.mktemp("live-cache")


@pytest.fixture(autouse=True)
def _isolated_cache(request, tmp_path_factory, monkeypatch):
    if request.node.get_closest_marker("live") is not None:
        cache = request.getfixturevalue("_live_cache")
    else:
        cache = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("PF1E_SIM_CACHE", str(cache))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    return cache
