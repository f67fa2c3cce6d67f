"""Dice audit: chi-square against exact distributions, independent recomputation,
and a deliberately biased die that must be caught."""

from __future__ import annotations

import math

import pytest

from engine.content.packs import builtin_packs, load_pack
from engine.core.checks import CheckMechanic
from engine.core.rng import SeededRng
from engine.run.audit import audit_pack, chi2_sf, chi_square
from harness.cli.main import main


class BiasedRng:
    """One face in twenty of every die is replaced by the highest face."""

    def __init__(self, seed: int) -> None:
        self.inner = SeededRng(seed)

    def die(self, sides: int, kind: str) -> int:
        if self.inner.die(20, kind) == 1:
            return sides
        return self.inner.die(sides, kind)


def test_chi2_survival_function_known_values() -> None:
    # critical values from standard tables; 2 degrees of freedom: exp(-x/2)
    assert chi2_sf(3.841458820694124, 1) == pytest.approx(0.05, abs=1e-9)
    assert chi2_sf(18.307038053275146, 10) == pytest.approx(0.05, abs=1e-9)
    assert chi2_sf(124.34211340400407, 100) == pytest.approx(0.05, abs=1e-9)
    for x in (0.5, 3.0, 40.0):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12)
    assert chi2_sf(0.0, 5) == 1.0


def test_chi_square_pools_small_cells() -> None:
    from fractions import Fraction

    exact = {1: Fraction(1, 100), 2: Fraction(49, 100), 3: Fraction(1, 2)}
    stat, dof = chi_square({1: 1, 2: 49, 3: 50}, exact, 100)
    assert (stat, dof) == (0.0, 1)  # cells 1 and 2 pooled (1 expected alone)
    stat, _dof = chi_square({4: 1, 2: 49, 3: 50}, exact, 100)
    assert stat == math.inf  # an impossible value


@pytest.mark.parametrize("name", builtin_packs())
def test_every_pack_passes_its_audit(name: str) -> None:
    results = audit_pack(load_pack(name), 5_000, seed=7)
    assert results
    for r in results:
        assert r.mismatches == 0
        assert r.passed, r


@pytest.mark.parametrize("name", ["pf1e", "2d5", "coc7-lite"])
def test_a_biased_die_fails_the_audit(name: str) -> None:
    results = audit_pack(load_pack(name), 5_000, seed=7, rng_factory=BiasedRng)
    assert not any(r.passed for r in results)
    assert all(r.mismatches == 0 for r in results)  # the rolls are read right, the die is bad


def test_recomputation_catches_a_wrong_outcome(monkeypatch: pytest.MonkeyPatch) -> None:
    judge = CheckMechanic.judge

    def lying(self: CheckMechanic, natural: int, *args: object) -> object:
        success, margin, automatic, level = judge(self, natural, *args)  # type: ignore[arg-type]
        return (not success if natural == 3 else success), margin, automatic, level

    monkeypatch.setattr(CheckMechanic, "judge", lying)
    (result,) = audit_pack(load_pack("2d5"), 2_000, seed=7)
    assert result.mismatches > 0 and not result.passed


def test_audit_dice_cli(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["audit-dice", "--pack", "2d5", "--pack", "d20-maison", "--samples", "3000"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "Résultat : RÉUSSI" in out
    assert out.count(" OK") == 4  # 2d5 plain; d20-maison plain, advantage, disadvantage
    assert "désavantage" in out
    rc = main(["audit-dice", "--pack", "2d5", "--samples", "3000", "--json"])
    import json

    data = json.loads(capsys.readouterr().out)
    assert data["passed"] is True and data["cases"][0]["samples"] == 3000
    assert main(["audit-dice", "--pack", "inconnu"]) == 2
    assert main(["audit-dice", "--samples", "5"]) == 2
    assert "pack de règles inconnu" in capsys.readouterr().err
