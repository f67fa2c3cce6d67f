"""``pf1e-sim roll``: a check written in French, rolled and explained in full.

The expression lists modifiers with their sources, the target and the edge:

* ``+5 (Force) -2 (blessure)``: modifiers, each with its source in parentheses;
* ``vs 15``, ``contre 15``, ``sous 60``: the target (DC, AC, value to roll under),
  or a named difficulty of the pack (``vs moyenne``);
* a difficulty name alone (``difficile``): for a pack whose difficulties are
  success levels (CoC), the level required;
* ``avantage`` / ``désavantage`` (never stacking, one of each cancels),
  ``bonus`` / ``pénalité`` (one d100 bonus or penalty die each).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.content.packs import RulesPack
from engine.core.checks import (
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    CheckMechanic,
    Modifier,
    PercentileDice,
    RollRecord,
    keep_percentile,
    net_edge,
    percentile_value,
)
from engine.core.errors import suggestion
from engine.run.audit import AuditResult

KIND_FR = {
    "attack": "jet d'attaque",
    "confirm": "jet de confirmation",
    "initiative": "jet d'initiative",
    "stabilize": "jet de stabilisation",
    "save": "jet de sauvegarde",
    "skill": "test de compétence",
    "concentration": "test de concentration",
    "check": "test",
}
_TOKEN = re.compile(
    r"\s*(?:(?P<mod>[+-]\s*\d{1,6})\s*(?:\((?P<src>[^()]*)\))?"
    r"|(?P<word>[^\s()+]+)|(?P<bad>\S))"
)
_TARGET_WORDS = ("vs", "contre", "sous")
_ADV = ("avantage",)
_DIS = ("désavantage", "desavantage")
_BONUS = ("bonus",)
_PENALTY = ("pénalité", "penalite")


class RollSyntaxError(ValueError):
    """The expression cannot be read (French message)."""


@dataclass(frozen=True, slots=True)
class RollRequest:
    """A parsed roll expression."""

    modifiers: tuple[Modifier, ...]
    target: int | None
    difficulty: str | None
    edge: int
    level: str | None


def _int(text: str) -> int | None:
    return int(text) if re.fullmatch(r"-?\d{1,6}", text) else None


def parse_roll(text: str, pack: RulesPack, mechanic: CheckMechanic) -> RollRequest:
    """Read an expression against ``pack``. :raises RollSyntaxError: in French."""
    mods: list[Modifier] = []
    target: int | None = None
    difficulty: str | None = None
    level: str | None = None
    adv = dis = bonus = penalty = 0
    words = (*_TARGET_WORDS, *_ADV, *_DIS, *_BONUS, *_PENALTY, *pack.difficulties)
    pos = 0
    expect_target = False
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        pos = m.end()
        if m.group("bad") is not None:
            raise RollSyntaxError(f"caractère inattendu « {m.group('bad')} » dans le jet")
        if m.group("mod") is not None:
            value = int(m.group("mod").replace(" ", ""))
            if expect_target:
                if target is not None:
                    raise RollSyntaxError(f"deux cibles dans le jet (« {value} »)")
                target, expect_target = value, False
                continue
            source = (m.group("src") or "").strip() or "modificateur"
            mods.append(Modifier(value, source))
            continue
        word = m.group("word").lower()
        if expect_target:
            expect_target = False
            if target is not None:
                raise RollSyntaxError(f"deux cibles dans le jet (« {word} »)")
            number = _int(word)
            if number is not None:
                target = number
                continue
            if re.fullmatch(r"-?\d+", word):
                raise RollSyntaxError(f"nombre trop grand « {word} » (six chiffres au plus)")
            if word not in pack.difficulties:
                pack.difficulty(word)  # raises the French error with the known names
            value = pack.difficulties[word]
            if isinstance(value, int):
                target, difficulty = value, word
            else:
                raise RollSyntaxError(
                    f"« {word} » est un niveau de réussite : écrire « sous VALEUR {word} »"
                )
            continue
        if word in _TARGET_WORDS:
            expect_target = True
        elif word in _ADV:
            adv += 1
        elif word in _DIS:
            dis += 1
        elif word in _BONUS:
            bonus += 1
        elif word in _PENALTY:
            penalty += 1
        elif word in pack.difficulties:
            value = pack.difficulties[word]
            if isinstance(value, str):
                if level is not None:
                    raise RollSyntaxError(f"deux niveaux de réussite dans le jet (« {word} »)")
                level, difficulty = value, word
            elif target is None:
                target, difficulty = value, word
            else:
                raise RollSyntaxError(f"deux cibles dans le jet (« {word} »)")
        else:
            number = _int(word)
            hint = suggestion(word, words)
            if number is not None:
                raise RollSyntaxError(
                    f"nombre « {word} » sans signe ni « vs » : écrire « +{word} (source) » "
                    f"ou « vs {word} »"
                )
            raise RollSyntaxError(
                f"mot inconnu « {word} » dans le jet{hint} (attendus : modificateurs « +2 "
                "(source) », « vs CIBLE », avantage, désavantage, bonus, pénalité, "
                "difficultés du pack)"
            )
    if expect_target:
        raise RollSyntaxError("« vs » doit être suivi d'une cible (nombre ou difficulté)")
    if (adv or dis) and isinstance(mechanic.dice, PercentileDice):
        raise RollSyntaxError(
            f"le pack « {pack.id} » n'a pas d'avantage : utiliser « bonus » ou « pénalité »"
        )
    if (bonus or penalty) and not isinstance(mechanic.dice, PercentileDice):
        raise RollSyntaxError(
            f"dés bonus / pénalité : réservés au d100 (le pack « {pack.id} » lance "
            f"{mechanic.dice.label})"
        )
    edge = net_edge(adv, dis) if (adv or dis) else bonus - penalty
    return RollRequest(tuple(mods), target, difficulty, edge, level)


def _signed(value: int) -> str:
    return f"{value:+d}"


def _sum(left: int, right: int) -> str:
    return f"{left} {'+' if right >= 0 else '-'} {abs(right)}"


ROUNDING_FR = {"floor": "à l'inférieur", "ceil": "au supérieur", "nearest": "au plus proche"}


def _dice_line(rec: RollRecord, mechanic: CheckMechanic) -> str:
    dice = mechanic.dice
    if isinstance(dice, PercentileDice):
        raw = rec.dice
        tens, units = raw[0], raw[1]
        text = f"d100, dizaines {tens}0, unités {units} → {percentile_value(tens, units)}"
        if tens == 0 and units == 0:
            text += " (00 + 0 = 100)"
        if len(raw) > 2:
            what = "bonus" if rec.edge > 0 else "pénalité"
            cands = [percentile_value(t, units) for t in raw]
            del cands[1]
            shown = ", ".join(f"{t}0" for t in raw[2:])
            keep = "le plus bas" if rec.edge > 0 else "le plus haut"
            kept = keep_percentile(raw, rec.edge)
            text += (
                f" ; {len(raw) - 2} dé(s) {what} : dizaines {shown} → candidats "
                f"{', '.join(map(str, cands))}, gardé {kept} ({keep})"
            )
        return text
    raw: tuple[int, ...] = rec.dice or (rec.natural,)
    if rec.edge:
        half = len(raw) // 2
        first, second = raw[:half], raw[half:]

        def show(part: tuple[int, ...]) -> str:
            if len(part) > 1:
                return f"{' + '.join(map(str, part))} = {sum(part)}"
            return str(sum(part))

        what = "avantage" if rec.edge > 0 else "désavantage"
        keep = "le meilleur" if rec.edge > 0 else "le pire"
        return (
            f"{what}, {dice.label} lancé deux fois → {show(first)} et {show(second)}, "
            f"gardé {rec.natural} ({keep})"
        )
    if len(raw) > 1:
        return f"{dice.label} → {' + '.join(map(str, raw))} = {rec.natural}"
    return f"{dice.label} → {rec.natural}"


def explain_roll(
    rec: RollRecord,
    pack: RulesPack,
    mechanic: CheckMechanic,
    request: RollRequest,
    seed: int,
) -> str:
    """The full French explanation of a roll (seed 000, EX-DND-003): dice, kept
    result, each modifier with its source, target, outcome and margin or level."""
    kind = KIND_FR.get(rec.kind, rec.kind)
    lines = [f"{pack.name} ({pack.id}) — {kind}, mécanique « {mechanic.name} », graine {seed}"]
    lines.append(f"Dés : {_dice_line(rec, mechanic)}")
    if rec.modifiers:
        parts = ", ".join(f"{_signed(m.value)} ({m.source})" for m in rec.modifiers)
        lines.append(f"Modificateurs : {parts} → {_signed(rec.modifier_total)}")
    else:
        lines.append("Modificateurs : aucun")
    if rec.target is None:
        lines.append(f"Total : {rec.total} (jet ouvert, sans cible)")
        return "\n".join(lines) + "\n"
    named = f" (« {request.difficulty} »)" if request.difficulty and request.level is None else ""
    if rec.under:
        threshold = rec.threshold
        assert threshold is not None
        value = f"{rec.target}{named}"
        if rec.modifiers:
            value += (
                f", avec les modificateurs {_sum(rec.target, rec.modifier_total)} = {threshold}"
            )
        lv = mechanic.level_named(rec.required)
        if lv is None:
            lines.append(f"Valeur : {value} (réussir avec {mechanic.dice.label} ≤ {threshold})")
        else:
            lines.append(f"Valeur : {value}")
            lines.append(
                f"Niveau demandé : {rec.required} (réussir avec {mechanic.dice.label} ≤ "
                f"{threshold} / {lv.divisor}, arrondi à l'inférieur = {threshold // lv.divisor})"
            )
        lines.append(f"Résultat : {rec.natural}")
    else:
        label = "CA" if rec.kind in ("attack", "confirm") else (pack.difficulty_label or "Cible")
        lines.append(f"Total : {_sum(rec.natural, rec.modifier_total)} = {rec.total}")
        lines.append(f"{label} : {rec.target}{named}")
    verdict = "RÉUSSITE" if rec.success else "ÉCHEC"
    if rec.level == CRITICAL_SUCCESS:
        verdict += " CRITIQUE"
    elif rec.level == CRITICAL_FAILURE:
        verdict += " (maladresse)" if rec.under else " CRITIQUE"
    elif rec.level is not None:
        verdict += f", niveau {rec.level}"
    why = ""
    if rec.automatic:
        if _arithmetic_success(rec, mechanic) != rec.success:
            why = f", imposée par le résultat naturel {rec.natural}"
        else:
            why = f" (résultat naturel {rec.natural})"
    lines.append(f"Issue : {verdict}{why}, marge {rec.margin}")
    return "\n".join(lines) + "\n"


def _arithmetic_success(rec: RollRecord, mechanic: CheckMechanic) -> bool:
    """What the comparison alone says, natural results aside."""
    threshold = rec.threshold
    assert threshold is not None
    if not rec.under:
        return rec.total >= threshold
    lv = mechanic.level_named(rec.required)
    need = threshold // lv.divisor if lv is not None else threshold
    return rec.natural <= need


def proportional_lines(pack: RulesPack, base: int, margin: int) -> str:
    """Seed 004's proportional values for ``base`` and a margin."""
    pct = pack.percent_per_point
    return (
        f"Valeur proportionnelle : {base} × {margin} × {pct} % = "
        f"{pack.proportional(base, margin)} ; valeur modifiée : {base} + {base} × {margin} × "
        f"{pct} % = {pack.modified(base, margin)} (arrondi {ROUNDING_FR[pack.rounding]})\n"
    )


def _edge_fr(dice: str, edge: int) -> str:
    if not edge:
        return "aucun"
    if dice == "d100":
        return f"{abs(edge)} dé(s) {'bonus' if edge > 0 else 'pénalité'}"
    return "avantage" if edge > 0 else "désavantage"


def render_audit(results: list[AuditResult], samples: int, seed: int) -> str:
    """French table of a dice audit."""
    from harness.text import table

    rows = [
        [
            r.pack, r.mechanic, r.dice, _edge_fr(r.dice, r.edge), str(r.mismatches),
            f"{r.chi2:.2f}", str(r.dof), f"{r.p_value:.4f}", f"{r.alpha:.2g}",
            "OK" if r.passed else "ÉCHEC",
        ]
        for r in results
    ]  # fmt: skip
    head = [
        "Pack", "Mécanique", "Dés", "Avantage / dés bonus", "Recalculs faux", "χ²", "ddl",
        "p", "Seuil", "Verdict",
    ]  # fmt: skip
    failed = sum(not r.passed for r in results)
    verdict = "RÉUSSI" if not failed else f"ÉCHEC ({failed} cas sur {len(results)})"
    return (
        f"Audit des dés : {samples} jets par cas, graine {seed} ; chaque jet est recalculé "
        "depuis les dés tirés, la distribution des résultats gardés est comparée à la "
        "distribution exacte (khi-deux, seuil 0,001 partagé entre les cas d'un pack).\n"
        + "\n".join(table(head, rows, right={4, 5, 6, 7, 8}))
        + f"\nRésultat : {verdict}\n"
    )
