"""The narrative's checker and the narrator's paths, with a scripted fake model.

The fake model answers what a test scripts, so each path is pinned: accepted,
regenerated after a rejection, template after two rejections or a model error.
Recorded answers of the real model are replayed in ``test_narrative_cassettes``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.analysis import analyse
from harness.narrative import (
    ATTEMPTS,
    PATH_LLM,
    PATH_TEMPLATE,
    Checker,
    narrate,
    render_narrative,
    template_narrative,
)
from policies.llm import ChatResponse, ModelError

ROOT = Path(__file__).resolve().parent.parent


def load(name):
    return json.loads((ROOT / "tests" / "reports" / f"{name}.json").read_text(encoding="utf-8"))


ECRASANT = load("ecrasant")  # players far ahead of monsters
BALANCED = load("equilibre_1000")


def fact(report, fact_id):
    a = analyse(report)
    return a, next(f for f in a.facts if f.id == fact_id)


@pytest.mark.parametrize(
    ("end", "why"),
    [
        ("ce qui laisse peu de place au doute", None),
        ("si bien que players garde la main", None),
        ("players domine largement monsters", None),
        ("soit {taux_players} des combats", None),
        ("soit 92 % des combats", "chiffre"),
        ("soit quatre-vingt-douze pour cent des combats", "nombre en toutes lettres"),
        ("soit {taux_inconnu} des combats", "substitut"),
        ("soit {degats_goblin} dégâts", "substitut"),  # a placeholder of another fact
        ("ce qui rend la rencontre équilibrée", "contredit le verdict"),
        ("mais monsters domine en fin de combat", "contraire au verdict"),
        ("car monsters gagne les duels", "contraire au verdict"),
        ("et players ne domine pas vraiment", "négation"),
        ("ils dominent largement", "ambigu"),
        ("les monstres dominent", "contraire au verdict"),  # « monstres » ≈ monsters
        ("with a clear advantage for them", "français"),
        ("rend les combats difficiles pour les players", "contraire au verdict"),
        ("rend les combats difficiles pour les monsters", None),
        # the side after « favorable à », « l'avance de » is the one said to gain
        ("rend la situation très favorable pour les players", None),
        ("rend la situation très favorable pour les monsters", "contraire au verdict"),
        ("conforte l'avance de players", None),
        ("oriente la préparation en faveur de la prudence", None),
        ("creuse l'avance de monsters", "contraire au verdict"),
        ("confirme l'avance du camp players", None),  # « le camp players » is players
        ("rend le combat plus", "inachevée"),
        ("laisse au maître de jeu le choix de", "inachevée"),
        (" ".join(["mot"] * 17), "trop longue"),
        ("Les faits, dans l'ordre des lignes :", "ne continue pas"),
        ("laisse peu de marge aux deux camps", None),  # two sides: « les deux camps » is true
        # the verdict says who wins: it makes no side stronger or weaker
        ("réduit l'avance de players", "le verdict ne change"),
        ("renforce nettement monsters", "le verdict ne change"),
        # « les autres camps »: the sides but the favoured one, here monsters
        ("rend les combats difficiles pour les autres camps", None),
        ("rend la partie facile pour les autres camps", "contraire au verdict"),
        ("représente un taux de ٪ de chances", "caractère inattendu"),
        ("vaut ² fois plus", "chiffre"),
        ("mais", "courte"),
    ],
)
def test_checker_on_the_verdict_of_an_unbalanced_report(end, why):
    a, verdict = fact(ECRASANT, "verdict")
    reason = Checker(a, ECRASANT).check(verdict, end)
    if why is None:
        assert reason is None
    else:
        assert reason is not None and why in reason, reason


@pytest.mark.parametrize(
    ("end", "why"),
    [
        ("ce qui promet des parties tendues", None),
        ("mais players domine", "contredit le verdict"),
        ("la rencontre reste déséquilibrée", "contredit le verdict"),
        ("appelle un ajustement avant la séance", "contredit le verdict"),
    ],
)
def test_checker_on_a_balanced_report(end, why):
    a, verdict = fact(BALANCED, "verdict")
    reason = Checker(a, BALANCED).check(verdict, end)
    assert (reason is None) if why is None else (reason is not None and why in reason)


def sample(name: str) -> dict[str, Any]:
    """A report of ``bench/report_samples.py`` (built, deterministic)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from report_samples import SAMPLES, build

    return build(next(s for s in SAMPLES if s.name == name))


def test_checker_rejects_names_outside_the_fact_and_wrong_levers():
    report = sample("ecrasant_porteur")
    a = analyse(report)
    checker = Checker(a, report)
    carry = next(f for f in a.facts if f.kind == "carry")
    other = next(c for c in a.combatants if c not in carry.subjects)
    assert "ne le concerne pas" in (checker.check(carry, f"devant {other} et les autres") or "")
    lever = next(f for f in a.facts if f.id == "levier:porteur")
    assert checker.check(lever, "ou renforcer monsters en conséquence") is None
    assert "mauvais sens" in (checker.check(lever, "ou renforcer players en conséquence") or "")
    length = next(f for f in a.facts if f.kind == "length")
    wrong = "interminables" if a.length != "longs" else "expéditifs"
    assert "durée" in (checker.check(length, f"des combats {wrong} pour tous") or "")


def test_checker_accepts_names_of_combatants_with_digits():
    found = [
        (r, a, f)
        for r in [
            *(load(p.stem) for p in sorted((ROOT / "tests" / "reports").glob("*.json"))),
            sample("ecrasant_porteur"),
        ]
        for a in [analyse(r)]
        for f in a.facts
        if f.subjects and any(ch.isdigit() for ch in f.subjects[0])
    ]
    assert found  # goblin-2, orc-2…: the digit is part of the name
    r, a, f = found[0]
    who = f.subjects[0]
    assert Checker(a, r).check(f, f"ce qui rend {who} précieux à protéger") is None


#: distinct, harmless ends of lines (the narrator refuses a repeated clause)
ENDS = [
    " demande de l'attention au maître de jeu.",
    " oriente la préparation de la séance.",
    " éclaire le choix des adversaires.",
    " guide la mise en scène du combat.",
    " fixe les attentes de la table.",
    " aide à doser la rencontre.",
    " clarifie la lecture du rapport.",
    " sert de repère pour la suite.",
    " précise le rôle de chacun.",
]


class Scripted:
    """A fake model: answers each request with the prefill plus the next scripted end."""

    model_id = "fake:script"

    def __init__(self, ends):
        self.ends = list(ends)
        self.requests = []

    def complete(self, request):
        self.requests.append(request)
        end = self.ends.pop(0)
        if isinstance(end, Exception):
            raise end
        return ChatResponse(request.prefill + end, 10, 5, 0.0, self.model_id)


def test_every_line_accepted_gives_the_llm_path_with_placeholders_filled():
    a = analyse(ECRASANT)
    model = Scripted(ENDS[: len(a.facts)])
    story = narrate(ECRASANT, model)
    assert story.path == PATH_LLM and story.regenerated == 0
    assert len(story.lines) == len(a.facts)
    template = template_narrative(a)
    for line, fixed, end in zip(story.lines, template, ENDS, strict=False):
        assert line == fixed[:-1] + ", ce qui" + end
    assert model.requests[0].temperature == 0.0
    assert render_narrative(story).endswith("Rédaction : modèle fake:script, texte vérifié.\n")


def test_a_rejected_line_is_regenerated_once_then_accepted():
    a = analyse(ECRASANT)
    ends = [" vaut 92 % des combats.", *ENDS[: len(a.facts)]]
    model = Scripted(ends)
    story = narrate(ECRASANT, model)
    assert story.path == PATH_LLM and story.regenerated == 1
    assert story.rejections[0].fact == "verdict" and "chiffre" in story.rejections[0].reason
    retry = model.requests[1]
    assert retry.prefill == model.requests[0].prefill and retry.temperature > 0
    assert "92 %" not in story.text
    assert "1 phrase régénérée après rejet" in story.provenance()


def test_three_rejections_give_the_template_and_say_why():
    a = analyse(ECRASANT)
    model = Scripted([ENDS[0], " fait que monsters domine.", ENDS[0], " rend le combat plus."])
    story = narrate(ECRASANT, model)
    assert story.path == PATH_TEMPLATE
    assert story.lines == template_narrative(a)
    assert len(story.rejections) == ATTEMPTS == 3
    assert "rejeté 3 fois" in (story.reason or "") and "nuls" in (story.reason or "")
    assert "verdict" in story.rejections[0].reason
    assert "répétition" in story.rejections[1].reason
    assert "inachevée" in story.rejections[2].reason
    assert story.provenance().startswith("Rédaction : gabarit déterministe (texte du modèle fake")


def test_a_model_error_gives_the_template():
    story = narrate(ECRASANT, Scripted([ModelError("délai dépassé")]))
    assert story.path == PATH_TEMPLATE and "délai dépassé" in (story.reason or "")


def test_no_model_gives_the_template_with_the_reason():
    story = narrate(ECRASANT, None, unavailable="modèle local indisponible")
    assert story.path == PATH_TEMPLATE and story.model is None
    assert "modèle local indisponible" in story.provenance()


def test_the_word_budget_of_a_line_keeps_long_analyses_short():
    """Many facts: fewer words per line (never under MIN_LINE_WORDS); the grammar says so."""
    from harness.analysis import fill
    from harness.narrative import LINE_WORDS, MIN_LINE_WORDS, TARGET_WORDS, line_grammar, line_words

    assert line_words(analyse(ECRASANT)) == LINE_WORDS  # four facts: the full budget
    many = analyse(sample("inactif"))
    fixed = sum(len(fill(f.head, many.values).split()) for f in many.facts)
    budget = line_words(many)
    assert MIN_LINE_WORDS <= budget < LINE_WORDS
    assert fixed + budget * len(many.facts) <= TARGET_WORDS
    grammar = line_grammar(budget)
    assert f'(","? " " word){{2,{budget - 1}}} "."' in grammar  # 3 to budget words
    assert "0-9" not in grammar and "%" not in grammar


@pytest.mark.parametrize(
    ("end", "why"),
    [
        # goblin-2 (players) carries the fight, but monsters win: its own side gains
        ("augmente les chances de victoire pour players", None),
        ("affaiblit nettement le camp monsters", None),
        ("renforce nettement le camp monsters", "contraire au camp de goblin-2"),
        ("affaiblit nettement le camp players", "contraire au camp de goblin-2"),
        # « les autres camps » are the sides but goblin-2's: monsters, who win
        ("affaiblit les autres camps", None),
        ("renforce les autres camps", "contraire au camp de goblin-2"),
        ("rend les combats difficiles pour les autres camps", "contraire au verdict"),
        # it does not make players the winners
        ("laisse la rencontre en faveur de players", "contraire au verdict"),
        ("assure la domination de players", "contraire au verdict"),
    ],
)
def test_checker_on_the_fact_that_a_combatant_of_the_losing_side_carries_the_fight(end, why):
    report = sample("porteur_perdant")
    a, carry = fact(report, "porteur")
    assert (a.favoured, carry.subjects) == ("monsters", ("goblin-2", "players"))
    reason = Checker(a, report).check(carry, end)
    assert (reason is None) if why is None else (reason is not None and why in reason), reason


def test_the_other_sides_of_three_sided_reports():
    """« les autres camps » are every side but the fact's own, and only when it has one."""
    sys.path.insert(0, str(ROOT / "bench"))
    from report_samples import SAMPLES, build

    report = build(next(s for s in SAMPLES if s.name == "trois_camps"))
    a = analyse(report)
    checker = Checker(a, report)
    verdict = next(f for f in a.facts if f.kind == "verdict")
    assert a.favoured == "players"
    assert checker.others(verdict) == {"monsters", "bandits"}
    assert checker.check(verdict, "rend les combats difficiles pour les autres camps") is None
    # easy for two sides that are both behind is not what the verdict says
    assert "contraire au verdict" in (
        checker.check(verdict, "rend la partie facile pour les autres camps") or ""
    )
    outsider = next(f for f in a.facts if f.kind == "outsider")
    assert checker.others(outsider) == set(a.sides) - {outsider.subjects[0]}
    length = next(f for f in a.facts if f.kind == "length")
    assert checker.others(length) == checker.others(verdict)  # no side of its own: the favoured
    # a balanced report: the general facts have no side of their own
    balanced = load("trois_camps_outsider")
    b = analyse(balanced)
    assert b.favoured is None
    assert Checker(b, balanced).others(b.facts[0]) == frozenset()
