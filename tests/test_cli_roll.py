"""``pf1e-sim roll``: French explanation, JSON, errors (exit 2, no traceback)."""

from __future__ import annotations

import json

import pytest

from engine.core.rng import SeededRng
from harness.cli.main import main

PREFIX = "pf1e-sim: erreur : "


def run(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    rc = main(args)
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def test_roll_pf1e_attack_explained(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, ["roll", "+5 (Force) +1 (arme) vs 15", "--type", "attack",
                                "--seed", "3"])  # fmt: skip
    assert rc == 0, err
    d20 = SeededRng(3).die(20, "check")
    total = d20 + 6
    assert f"Dés : d20 → {d20}\n" in out
    assert "Modificateurs : +5 (Force), +1 (arme) → +6\n" in out
    assert f"Total : {d20} + 6 = {total}\n" in out
    assert "CA : 15\n" in out
    hit = d20 == 20 or (d20 != 1 and total >= 15)
    assert ("RÉUSSITE" if hit else "ÉCHEC") in out
    assert f"marge {total - 15}" in out


def test_roll_2d5_json_recomputes(capsys: pytest.CaptureFixture[str]) -> None:
    for seed in range(40):
        rc, out, err = run(capsys, ["roll", "sous 4 -5 (malus)", "--pack", "2d5", "--seed",
                                    str(seed), "--base", "40", "--json"])  # fmt: skip
        assert rc == 0, err
        data = json.loads(out)
        rng = SeededRng(seed)
        a, b = rng.die(6, "check") - 1, rng.die(6, "check") - 1
        roll = data["roll"]
        assert roll["dice"] == [a, b]
        assert roll["natural"] == a + b
        assert roll["threshold"] == -1
        assert roll["modifiers"] == [{"value": -5, "source": "malus"}]
        # only a natural 0 succeeds, with margin 0 (seed 004)
        assert roll["success"] is (a + b == 0)
        assert roll["margin"] == (0 if a + b == 0 else -1 - (a + b))
        margin = roll["margin"]
        assert data["proportional"] == {
            "base": 40, "margin": margin, "proportional": (40 * margin) // 10,
            "modified": 40 + (40 * margin) // 10,
        }  # fmt: skip


def test_roll_coc_bonus_die_and_level(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, ["roll", "sous 60 difficile bonus", "--pack", "coc7-lite",
                                "--seed", "5"])  # fmt: skip
    assert rc == 0, err
    rng = SeededRng(5)
    tens, units, extra = (
        rng.die(10, "check") - 1,
        rng.die(10, "check") - 1,
        rng.die(10, "check") - 1,
    )

    def value(t: int) -> int:
        return t * 10 + units or 100

    kept = min(value(tens), value(extra))
    assert f"gardé {kept} (le plus bas)" in out
    assert (
        "Niveau demandé : difficile (réussir avec d100 ≤ 60 / 2, arrondi à l'inférieur = 30)" in out
    )
    assert f"Résultat : {kept}\n" in out
    assert ("RÉUSSITE" in out) is (kept <= 30)


def test_roll_advantage_named_difficulty(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, ["roll", "+3 (Dex) vs moyenne avantage désavantage avantage",
                                "--pack", "d20-maison", "--seed", "4", "--json"])  # fmt: skip
    assert rc == 0, err
    data = json.loads(out)
    assert data["difficulty"] == "moyenne"
    assert data["roll"]["target"] == 15
    assert data["roll"]["edge"] == 0  # one of each cancels, whatever the count
    rc, out, err = run(capsys, ["roll", "+3 (Dex) vs moyenne avantage avantage",
                                "--pack", "d20-maison", "--seed", "4"])  # fmt: skip
    rng = SeededRng(4)
    a, b = rng.die(20, "check"), rng.die(20, "check")
    assert f"avantage, d20 lancé deux fois → {a} et {b}, gardé {max(a, b)} (le meilleur)" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["roll", "vs 7 avantage", "--pack", "2d5"], "ni avantage ni désavantage"),
        (["roll", "sous 50 bonus bonus bonus", "--pack", "coc7-lite"], "au plus 2"),
        (["roll", "vs 10 bonus"], "réservés au d100"),
        (["roll", "+3 vs moyen", "--pack", "d20-maison"], "vouliez-vous dire « moyenne »"),
        (["roll", "+2 foo vs 10"], "mot inconnu « foo »"),
        (["roll", "+2 vs"], "suivi d'une cible"),
        (["roll", "vs 10", "--pack", "d20"], "pack de règles inconnu"),
        (["roll", "vs 10", "--type", "attaque"], "pas de jet « attaque »"),
        (["roll", "vs 10", "--base", "40"], "pas de valeurs proportionnelles"),
        (["roll", "vs 10", "--pack", "nulle/part.yaml"], "fichier introuvable"),
        (["roll", "vs 5 vs 6"], "deux cibles"),
        (["roll", "sous 60 difficile extrême", "--pack", "coc7-lite"], "deux niveaux"),
        (["roll", "vs 99999999"], "nombre trop grand"),
        (["roll", "+2 (a (b)) vs 5"], "caractère inattendu"),
    ],
)
def test_roll_errors_are_french(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    rc, out, err = run(capsys, args)
    assert rc == 2
    assert out == ""
    assert err.startswith(PREFIX) and message in err, err
    assert "Traceback" not in err


def test_roll_expression_may_start_with_a_penalty(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, err = run(capsys, ["roll", "-2 (malus) vs 10", "--seed", "1", "--json"])
    assert rc == 0, err
    roll = json.loads(out)["roll"]
    assert roll["modifiers"] == [{"value": -2, "source": "malus"}]
    assert roll["total"] == SeededRng(1).die(20, "check") - 2
