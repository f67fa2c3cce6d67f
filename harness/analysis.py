"""Deterministic analysis of a report object: the facts worth saying, each with an id.

The narrative (template or LLM, see :mod:`harness.narrative`) is built from these
facts only. Every fact carries:

* ``opening`` — the fixed start of its sentence: the verdict word, the side or
  the combatant it is about. Neither the template nor the model can change it;
* ``rest`` — the end of the sentence in the deterministic template narrative;
* ``placeholders`` — the names (``{taux_players}``…) the sentence may use for its
  numbers, filled from the report object after generation;
* ``subjects`` — the sides and combatants the sentence may name.

Numbers never appear in a fact's text: only placeholders, whose values are
formatted from the report object as the terminal report prints them.

Thresholds are named settings (:class:`Thresholds`), documented field by field.

>>> from harness.analysis import analyse
>>> report = {"runs": 100, "round_cap": 100, "seed": 1, "map": "m", "options": {},
...     "sides": [{"name": "a", "combatants": 1, "wins": 80, "rate": 0.8,
...                "band_3sigma": [0.68, 0.92]},
...               {"name": "b", "combatants": 1, "wins": 20, "rate": 0.2,
...                "band_3sigma": [0.08, 0.32]}],
...     "draws": {"count": 0, "rate": 0.0, "band_3sigma": [0.0, 0.0], "round_cap": 0,
...               "mutual_knockout": 0},
...     "rounds": {"mean": 4.0, "distribution": {"4": 100}}, "combatants": []}
>>> analyse(report).verdict
'desequilibre'
>>> [f.id for f in analyse(report).facts][:2]
['verdict', 'precision']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from harness.report import pct, wilson


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Named settings of the analysis (rates are fractions of all fights)."""

    #: win-rate gap between the favoured side and the next one above which the
    #: imbalance is called « nette » (clear)
    clear_margin: float = 0.20
    #: gap above which it is called « écrasante » (crushing)
    crushing_margin: float = 0.50
    #: half-width of a side's Wilson interval above which the verdict is called
    #: fragile and more runs are advised
    wide_band: float = 0.10
    #: draw rate from which draws are « fréquents »
    draws_frequent: float = 0.10
    #: share of fights stopped by the round cap from which their length is
    #: said to be bounded by the cap (the mean then says nothing of it)
    capped_length: float = 0.10
    #: the carrier (most damage dealt) is named only when its mean exceeds the
    #: next combatant's by more than this many standard errors of the difference
    carry_sigmas: float = 3.0
    #: mean fight length (rounds) at or below which fights are « courts »
    short_rounds: float = 3.0
    #: mean fight length (rounds) at or above which fights are « longs »
    long_rounds: float = 8.0
    #: share of fights a combatant of the favoured (or leading) side ends out of
    #: the fight from which it is called exposed
    exposed_down: float = 0.30
    #: share of all damage dealt below which a side's attrition is one-sided
    one_sided_share: float = 0.15
    #: share of fights below which a side whose every combatant makes a melee
    #: attack roll that rarely is said to (almost) never reach melee
    melee_rare: float = 0.05


DEFAULT_THRESHOLDS = Thresholds()

BALANCED = "equilibre"
UNBALANCED = "desequilibre"
#: no side ahead of every other, but balance not shown either: the intervals are
#: wide, or some sides are apart from others
UNDECIDED = "indecis"


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing worth saying, with its anchored opening and allowed placeholders."""

    id: str
    #: what kind of claim (verdict, draws, length, carry, exposed, one_sided,
    #: inactive, melee, outsider, precision, lever)
    kind: str
    opening: str
    rest: str
    #: what the sentence should say, for the model (French, no number)
    hint: str
    placeholders: tuple[str, ...]
    subjects: tuple[str, ...]
    #: the fact's clause type in :data:`harness.clauses.CLAUSES` (kind and direction:
    #: ``verdict:nette``, ``nuls:plafond``…): the narrator offers only its clauses
    clause: str = ""

    @property
    def template(self) -> str:
        """The whole sentence of the template narrative."""
        return f"{self.opening}{self.rest}"

    @property
    def head(self) -> str:
        """The fixed part of the model's line: the template sentence, open for a last clause."""
        return self.template.rstrip(".") + ", ce qui"


@dataclass(frozen=True, slots=True)
class Analysis:
    """The facts of a report, the computed verdict and every placeholder's value."""

    facts: tuple[Fact, ...]
    #: ``equilibre``, ``desequilibre`` or ``indecis``
    verdict: str
    #: the side favoured by the verdict (None when balanced or undecided)
    favoured: str | None
    #: every side and combatant name the report knows (for the checker)
    sides: tuple[str, ...]
    combatants: tuple[str, ...]
    #: placeholder name → value as printed (``92.0%``, ``[89.4%, 94.6%]``, ``6.0``…)
    values: dict[str, str] = field(default_factory=dict)
    #: placeholder name → what it stands for (French, for the model)
    meanings: dict[str, str] = field(default_factory=dict)
    #: length of fights: ``courts``, ``moyens``, ``longs``, or ``plafonnes`` when
    #: many fights stop at the round cap
    length: str = "moyens"
    #: draws: ``aucun``, ``rares`` or ``frequents``
    draws: str = "aucun"


def slug(name: str) -> str:
    """A placeholder-safe form of a side or combatant name.

    >>> slug("goblin-2")
    'goblin_2'
    """
    out = re.sub(r"[^a-z0-9_]", "_", name.lower())
    return out if out and not out[0].isdigit() else f"x_{out}"


def _band(lo: float, hi: float) -> str:
    return f"[{pct(lo)}, {pct(hi)}]"


def beyond_noise(first: dict[str, Any], second: dict[str, Any], runs: int, sigmas: float) -> bool:
    """Whether ``first`` deals more damage per fight than ``second`` beyond noise:
    the difference of their means exceeds ``sigmas`` standard errors of the
    difference (their variances from ``damage_dealt_squares``, taken as
    independent). Without those sums (older reports) nothing can be told: False.

    >>> a = {"damage_dealt_mean": 6.2, "damage_dealt_squares": 4844, "damage_dealt_total": 620}
    >>> b = {"damage_dealt_mean": 6.0, "damage_dealt_squares": 4500, "damage_dealt_total": 600}
    >>> beyond_noise(a, b, 100, 3.0)
    False
    """
    if first.get("damage_dealt_squares") is None or second.get("damage_dealt_squares") is None:
        return False
    if runs <= 0:
        return False

    def variance(c: dict[str, Any]) -> float:
        mean = c["damage_dealt_total"] / runs
        return max(0.0, c["damage_dealt_squares"] / runs - mean * mean)

    se = ((variance(first) + variance(second)) / runs) ** 0.5
    return first["damage_dealt_mean"] - second["damage_dealt_mean"] > sigmas * se


def _side_list(names: list[str]) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names[:-1]) + " et " + names[-1]


def analyse(report: dict[str, Any], thresholds: Thresholds = DEFAULT_THRESHOLDS) -> Analysis:
    """The facts of ``report`` (a ``pf1e-sim/report@1`` object), in reading order."""
    t = thresholds
    sides: list[dict[str, Any]] = report["sides"]
    combatants: list[dict[str, Any]] = report["combatants"]
    draws = report["draws"]
    rounds = report["rounds"]
    runs: int = report["runs"]
    values: dict[str, str] = {
        "combats": str(runs),
        "plafond": str(report["round_cap"]),
        "nuls_taux": pct(draws["rate"]),
        "nuls_nombre": str(draws["count"]),
        "nuls_plafond": str(draws["round_cap"]),
        "nuls_ko_mutuel": str(draws["mutual_knockout"]),
        "rounds_moyens": f"{rounds['mean']:.1f}",
    }
    #: each side's Wilson interval at z = 3: the verdict's intervals (the 3σ
    #: band shrinks to a point at 0 % and 100 %)
    bands = {s["name"]: wilson(s, "wins", runs) for s in sides}
    for s in sides:
        k = slug(s["name"])
        values[f"taux_{k}"] = pct(s["rate"])
        values[f"victoires_{k}"] = str(s["wins"])
        values[f"bande_{k}"] = _band(*bands[s["name"]])
        values[f"effectif_{k}"] = str(s["combatants"])
    for c in combatants:
        k = slug(c["id"])
        values[f"degats_{k}"] = f"{c['damage_dealt_mean']:.1f}"
        values[f"subis_{k}"] = f"{c['damage_taken_mean']:.1f}"
        values[f"hors_combat_{k}"] = pct(c["down_mean"])
        values[f"morts_{k}"] = pct(c["dead_mean"])
        values[f"touches_{k}"] = f"{c['hits_mean']:.2f}"
        if c.get("melee_mean") is not None:
            values[f"contact_{k}"] = pct(c["melee_mean"])
    dist = {int(k): v for k, v in rounds["distribution"].items()}
    if dist:
        values["rounds_min"] = str(min(dist))
        values["rounds_max"] = str(max(dist))
        values["rounds_median"] = str(_median(dist))
    side_names = [s["name"] for s in sides]
    meanings = _meanings(report)
    facts: list[Fact] = []

    # -- verdict, from the Wilson intervals ---------------------------------------
    half = max(((hi - lo) / 2 for lo, hi in bands.values()), default=0.0)
    fragile = half > t.wide_band
    ranked = sorted(sides, key=lambda s: (-s["rate"], side_names.index(s["name"])))
    top = ranked[0]
    others = ranked[1:]
    separated = bool(others) and all(bands[top["name"]][0] > bands[o["name"]][1] for o in others)
    all_ph = tuple(
        p for s in sides for p in (f"taux_{slug(s['name'])}", f"bande_{slug(s['name'])}")
    )
    favoured: str | None = None
    if separated:
        favoured = str(top["name"])
        gap = top["rate"] - others[0]["rate"]
        degree = (
            "écrasante"
            if gap >= t.crushing_margin
            else "nette"
            if gap >= t.clear_margin
            else "légère"
        )
        ft = slug(top["name"])
        rest_others = " ; ".join(
            f"{o['name']} {{taux_{slug(o['name'])}}} (intervalle {{bande_{slug(o['name'])}}})"
            for o in others
        )
        facts.append(
            Fact(
                "verdict",
                "verdict",
                f"La rencontre est déséquilibrée, avec une avance {degree} en faveur de {favoured}",
                f" : {favoured} gagne {{taux_{ft}}} des combats (intervalle de Wilson "
                f"{{bande_{ft}}}), contre {rest_others}.",
                f"{favoured} gagne plus souvent que {_side_list([o['name'] for o in others])} ; "
                "les intervalles de confiance ne se recouvrent pas.",
                all_ph,
                tuple(side_names),
                "verdict:" + {"écrasante": "ecrasante", "nette": "nette"}.get(degree, "legere"),
            )
        )
        verdict = UNBALANCED
    else:
        listing = " ; ".join(
            f"{s['name']} {{taux_{slug(s['name'])}}} (intervalle {{bande_{slug(s['name'])}}})"
            for s in sides
        )
        # pairs whose intervals do not overlap, the side ahead first
        apart = [
            (a["name"], b["name"])
            for i, a in enumerate(ranked)
            for b in ranked[i + 1 :]
            if bands[a["name"]][0] > bands[b["name"]][1]
        ]
        if not apart and not fragile:
            facts.append(
                Fact(
                    "verdict",
                    "verdict",
                    f"La rencontre est équilibrée entre {_side_list(side_names)}",
                    f" : aucun camp ne se détache au-delà des intervalles de Wilson ({listing}).",
                    "les intervalles de confiance des camps se recouvrent : aucun camp ne "
                    "l'emporte significativement.",
                    all_ph,
                    tuple(side_names),
                    "verdict:equilibre",
                )
            )
            verdict = BALANCED
        else:
            # overlapping intervals do not show a balance when they are wide, nor when
            # some sides are apart (a side at 0 wins out of 40 is not « équilibré »)
            if apart:
                gaps = ", ".join(f"{a} devant {b}" for a, b in apart)
                opening = "Aucun camp ne se détache seul en tête"
                rest = (
                    f" : {listing} ; seuls ces écarts dépassent les intervalles de Wilson : {gaps}."
                )
                hint = (
                    "aucun camp ne gagne plus souvent que tous les autres, mais certains "
                    "camps sont distancés."
                )
            else:
                opening = "Aucun camp ne se détache significativement"
                rest = (
                    " : avec {combats} combats, les intervalles de Wilson se recouvrent "
                    f"({listing})."
                )
                hint = (
                    "les intervalles de confiance sont trop larges pour conclure : ni favori "
                    "ni équilibre établi."
                )
            facts.append(
                Fact(
                    "verdict",
                    "verdict",
                    opening,
                    rest,
                    hint,
                    (*all_ph, "combats"),
                    tuple(side_names),
                    "verdict:indecis",
                )
            )
            verdict = UNDECIDED

    # -- a clear outsider among 3+ sides --------------------------------------
    if len(sides) >= 3:
        bottom = ranked[-1]
        if all(bands[bottom["name"]][1] < bands[o["name"]][0] for o in ranked[:-1]):
            b = slug(bottom["name"])
            facts.append(
                Fact(
                    "outsider",
                    "outsider",
                    f"Le camp {bottom['name']} est nettement distancé",
                    f" : il ne gagne que {{taux_{b}}} des combats.",
                    f"{bottom['name']} gagne moins souvent que chacun des autres camps.",
                    (f"taux_{b}", f"bande_{b}", f"victoires_{b}"),
                    (bottom["name"],),
                    "outsider",
                )
            )

    # -- how sure the verdict is ------------------------------------------------
    if fragile:
        facts.append(
            Fact(
                "precision",
                "precision",
                "Le verdict reste fragile",
                " : avec {combats} combats seulement, les intervalles de Wilson sont larges.",
                "trop peu de combats simulés : les intervalles de confiance sont larges, le "
                "verdict est à confirmer.",
                ("combats",),
                (),
                "precision",
            )
        )

    # -- decisiveness: draws and length ------------------------------------------
    if draws["count"] == 0:
        draw_level = "aucun"
        facts.append(
            Fact(
                "nuls",
                "draws",
                "Aucun combat ne se termine par un nul",
                " : chaque combat désigne un vainqueur.",
                "aucun match nul : chaque combat a un vainqueur.",
                ("nuls_taux", "nuls_nombre"),
                (),
                "nuls:aucun",
            )
        )
    elif draws["rate"] >= t.draws_frequent:
        draw_level = "frequents"
        by_cap = draws["round_cap"] >= draws["mutual_knockout"]
        cause = "du plafond de rounds" if by_cap else "de mises hors de combat simultanées"
        facts.append(
            Fact(
                "nuls",
                "draws",
                "Les nuls sont fréquents",
                f" : {{nuls_taux}} des combats, surtout à cause {cause}.",
                f"beaucoup de combats finissent sans vainqueur, surtout à cause {cause}.",
                ("nuls_taux", "nuls_nombre", "nuls_plafond", "nuls_ko_mutuel", "plafond"),
                (),
                "nuls:plafond" if by_cap else "nuls:ko",
            )
        )
    else:
        draw_level = "rares"
        facts.append(
            Fact(
                "nuls",
                "draws",
                "Les nuls restent rares",
                " : {nuls_taux} des combats ({nuls_nombre}).",
                "quelques combats seulement finissent sans vainqueur.",
                ("nuls_taux", "nuls_nombre", "nuls_plafond", "nuls_ko_mutuel"),
                (),
                "nuls:rares",
            )
        )
    capped = draws["round_cap"]
    decided = runs - capped
    # fights cut at the cap all last exactly the cap: the mean of the others
    mean = (rounds["mean"] * runs - capped * report["round_cap"]) / decided if decided else 0.0
    if capped:
        values["plafond_taux"] = pct(capped / runs)
        values["rounds_decides"] = f"{mean:.1f}"
    if runs and capped / runs >= t.capped_length:
        # a mean over fights cut at the cap says how long the cap is, not the fights
        length = "plafonnes"
        if decided:
            rest = (
                " : {plafond_taux} des combats l'atteignent ({plafond} rounds) ; les autres "
                "durent {rounds_decides} rounds en moyenne."
            )
            shown: tuple[str, ...] = ("plafond_taux", "plafond", "rounds_decides", "nuls_plafond")
        else:
            rest = " : tous les combats l'atteignent ({plafond} rounds)."
            shown = ("plafond_taux", "plafond", "nuls_plafond")
        facts.append(
            Fact(
                "duree",
                "length",
                "La durée des combats est bornée par le plafond de rounds",
                rest,
                "beaucoup de combats sont arrêtés par le plafond de rounds avant d'avoir un "
                "vainqueur : leur durée réelle n'est pas mesurée.",
                shown,
                (),
                "duree:plafonnes",
            )
        )
    else:
        if mean <= t.short_rounds:
            length, word = "courts", "courts"
        elif mean >= t.long_rounds:
            length, word = "longs", "longs"
        else:
            length, word = "moyens", "de durée moyenne"
        if capped:
            # the few fights cut at the cap would lengthen the mean: left out of it
            rest = (
                " : {rounds_decides} rounds en moyenne, hors des {nuls_plafond} combats arrêtés "
                "au plafond de rounds."
            )
            shown = ("rounds_decides", "nuls_plafond", "plafond")
        elif dist:
            rest = " : {rounds_moyens} rounds en moyenne (de {rounds_min} à {rounds_max} rounds)."
            shown = ("rounds_moyens", "rounds_min", "rounds_max", "rounds_median")
        else:
            rest = " : {rounds_moyens} rounds en moyenne."
            shown = ("rounds_moyens",)
        facts.append(
            Fact(
                "duree",
                "length",
                f"Les combats sont {word}",
                rest,
                f"les combats sont {word}.",
                shown,
                (),
                f"duree:{length}",
            )
        )

    # -- attrition: who carries the fight, who falls ------------------------------
    lead_side = favoured or top["name"]
    if combatants:
        total_damage = sum(c["damage_dealt_mean"] for c in combatants)
        by_damage = sorted(combatants, key=lambda c: (-c["damage_dealt_mean"], combatants.index(c)))
        carrier = by_damage[0]
        if carrier["damage_dealt_mean"] > 0 and (
            len(by_damage) == 1
            or by_damage[1]["damage_dealt_mean"] == 0
            or beyond_noise(carrier, by_damage[1], runs, t.carry_sigmas)
        ):
            k = slug(carrier["id"])
            facts.append(
                Fact(
                    "porteur",
                    "carry",
                    f"{carrier['id']} ({carrier['side']}) porte le combat",
                    f" : {{degats_{k}}} points de dégâts infligés par combat en moyenne, "
                    "le plus haut total de la rencontre.",
                    f"{carrier['id']}, du camp {carrier['side']}, inflige le plus de dégâts "
                    "de tous les combattants.",
                    (f"degats_{k}", f"touches_{k}", f"subis_{k}"),
                    (carrier["id"], carrier["side"]),
                    "porteur:equilibre"
                    if favoured is None
                    else "porteur:favori"
                    if carrier["side"] == favoured
                    else "porteur:perdant",
                )
            )
        mine = [c for c in combatants if c["side"] == lead_side]
        if mine:
            exposed = max(mine, key=lambda c: (c["down_mean"], -mine.index(c)))
            if exposed["down_mean"] >= t.exposed_down:
                k = slug(exposed["id"])
                facts.append(
                    Fact(
                        "expose",
                        "exposed",
                        f"Dans le camp {lead_side}, {exposed['id']} tombe le plus souvent",
                        f" : hors de combat à la fin de {{hors_combat_{k}}} des combats.",
                        f"{exposed['id']} est le combattant de {lead_side} le plus souvent mis "
                        "hors de combat.",
                        (f"hors_combat_{k}", f"morts_{k}", f"subis_{k}"),
                        (exposed["id"], lead_side),
                        "expose",
                    )
                )
        if total_damage > 0 and len(sides) >= 2:
            for s in sides:
                share = (
                    sum(c["damage_dealt_mean"] for c in combatants if c["side"] == s["name"])
                    / total_damage
                )
                if share < t.one_sided_share:
                    facts.append(
                        Fact(
                            f"attrition:{s['name']}",
                            "one_sided",
                            f"L'attrition est à sens unique contre {s['name']}",
                            f" : ses combattants infligent très peu de dégâts, "
                            f"{_ph_list(combatants, s['name'], 'degats')} par combat.",
                            f"le camp {s['name']} inflige très peu de dégâts comparé aux "
                            "autres camps.",
                            tuple(
                                f"degats_{slug(c['id'])}"
                                for c in combatants
                                if c["side"] == s["name"]
                            ),
                            (s["name"], *(c["id"] for c in combatants if c["side"] == s["name"])),
                            "sens_unique",
                        )
                    )
        for c in combatants:
            if c["hits_total"] == 0:
                k = slug(c["id"])
                facts.append(
                    Fact(
                        f"inactif:{c['id']}",
                        "inactive",
                        f"Anomalie : {c['id']} ({c['side']}) ne touche jamais",
                        " : aucune attaque réussie sur l'ensemble des combats.",
                        f"{c['id']} ne réussit aucune attaque : vérifier ses armes, sa portée "
                        "ou sa politique.",
                        (f"touches_{k}", f"degats_{k}"),
                        (c["id"], c["side"]),
                        "inactif",
                    )
                )

    # -- a side that (almost) never reaches melee ----------------------------------
    # (reports written before the melee counter existed lack it: no fact then)
    if len(sides) >= 2 and combatants and all(c.get("melee_mean") is not None for c in combatants):
        for s in sides:
            members = [c for c in combatants if c["side"] == s["name"]]
            if not members or max(c["melee_mean"] for c in members) >= t.melee_rare:
                continue
            never = all(c["melee_total"] == 0 for c in members)
            how = "jamais" if never else "presque jamais"
            facts.append(
                Fact(
                    f"contact:{s['name']}",
                    "melee",
                    f"Anomalie : le camp {s['name']} n'atteint {how} le corps à corps",
                    " : "
                    + (
                        "aucun de ses combattants ne porte une attaque au contact."
                        if never
                        else "part des combats où chacun attaque au contact, "
                        f"{_ph_list(combatants, s['name'], 'contact')}."
                    ),
                    f"les combattants de {s['name']} n'attaquent {how} au corps à corps : "
                    "vérifier leurs armes, le terrain ou leur politique.",
                    tuple(f"contact_{slug(c['id'])}" for c in members),
                    (s["name"], *(c["id"] for c in members)),
                    "contact:jamais" if never else "contact:presque_jamais",
                )
            )

    # -- levers ----------------------------------------------------------------------
    if favoured is not None:
        weakest = ranked[-1]
        f, w = slug(favoured), slug(weakest["name"])
        change = (
            f"retirer un combattant à {favoured} ou en ajouter un à {weakest['name']}"
            if top["combatants"] > 1
            else f"ajouter un combattant à {weakest['name']}"
        )
        facts.append(
            Fact(
                "levier:effectif",
                "lever",
                f"Levier : pour rééquilibrer, {change}",
                f" ({{effectif_{f}}} contre {{effectif_{w}}} aujourd'hui).",
                f"affaiblir {favoured} ou renforcer {weakest['name']} en changeant le nombre de "
                "combattants.",
                (f"effectif_{f}", f"effectif_{w}"),
                (favoured, weakest["name"]),
                "levier:effectif",
            )
        )
        carriers = sorted(
            (c for c in combatants if c["side"] == favoured),
            key=lambda c: (-c["damage_dealt_mean"], combatants.index(c)),
        )
        if carriers:
            best = carriers[0]
            if best["damage_dealt_mean"] > 0 and (
                len(carriers) == 1
                or carriers[1]["damage_dealt_mean"] == 0
                or beyond_noise(best, carriers[1], runs, t.carry_sigmas)
            ):
                facts.append(
                    Fact(
                        "levier:porteur",
                        "lever",
                        f"Levier : baisser l'attaque ou les dégâts de {best['id']}",
                        f" réduit le plus directement l'avance de {favoured}.",
                        f"{best['id']} inflige le plus de dégâts de {favoured} : l'affaiblir "
                        f"réduit l'avance de {favoured}.",
                        (f"degats_{slug(best['id'])}",),
                        (best["id"], *side_names),
                        "levier:porteur",
                    )
                )
    capped_lever = draw_level == "frequents" and draws["round_cap"] >= draws["mutual_knockout"]
    if verdict == BALANCED and not fragile and not capped_lever:
        facts.append(
            Fact(
                "levier:aucun",
                "lever",
                "Levier : aucun ajustement n'est nécessaire",
                " ; la rencontre peut être jouée telle quelle.",
                "la rencontre est équilibrée, il n'y a rien à changer.",
                (),
                (),
                "levier:aucun",
            )
        )
    if fragile:
        facts.append(
            Fact(
                "levier:runs",
                "lever",
                "Levier : augmenter le nombre de combats simulés (--runs)",
                " pour resserrer les intervalles de Wilson ({combats} aujourd'hui).",
                "simuler davantage de combats pour un verdict plus sûr.",
                ("combats",),
                (),
                "levier:runs",
            )
        )
    if capped_lever:
        facts.append(
            Fact(
                "levier:plafond",
                "lever",
                "Levier : relever le plafond de rounds (--round-cap)",
                " pour départager les combats bloqués ({plafond} rounds aujourd'hui).",
                "beaucoup de combats atteignent le plafond de rounds : le relever les départage.",
                ("plafond", "nuls_plafond"),
                (),
                "levier:plafond",
            )
        )
    return Analysis(
        tuple(facts),
        verdict,
        favoured,
        tuple(side_names),
        tuple(c["id"] for c in combatants),
        values,
        meanings,
        length,
        draw_level,
    )


def _meanings(report: dict[str, Any]) -> dict[str, str]:
    out = {
        "combats": "combats simulés",
        "plafond": "plafond de rounds",
        "nuls_taux": "part de nuls",
        "nuls_nombre": "nombre de nuls",
        "nuls_plafond": "nuls au plafond",
        "nuls_ko_mutuel": "nuls par chute simultanée",
        "rounds_moyens": "rounds en moyenne",
        "rounds_min": "rounds du plus court",
        "rounds_max": "rounds du plus long",
        "rounds_median": "rounds médians",
        "plafond_taux": "part des combats arrêtés au plafond de rounds",
        "rounds_decides": "rounds en moyenne des combats qui ont un vainqueur",
    }
    for s in report["sides"]:
        k, n = slug(s["name"]), s["name"]
        out[f"taux_{k}"] = f"victoires de {n}"
        out[f"victoires_{k}"] = f"nombre de victoires de {n}"
        out[f"bande_{k}"] = f"intervalle des victoires de {n}"
        out[f"effectif_{k}"] = f"combattants de {n}"
    for c in report["combatants"]:
        k, n = slug(c["id"]), c["id"]
        out[f"degats_{k}"] = f"dégâts infligés par {n}"
        out[f"subis_{k}"] = f"dégâts subis par {n}"
        out[f"hors_combat_{k}"] = f"{n} hors de combat"
        out[f"morts_{k}"] = f"{n} mort"
        out[f"touches_{k}"] = f"touches de {n}"
        out[f"contact_{k}"] = f"part des combats où {n} attaque au corps à corps"
    return out


def _ph_list(combatants: list[dict[str, Any]], side: str, prefix: str) -> str:
    parts = [f"{c['id']} {{{prefix}_{slug(c['id'])}}}" for c in combatants if c["side"] == side]
    return _side_list(parts)


def _median(dist: dict[int, int]) -> int:
    """The lower median of a histogram ``value → count``."""
    total = sum(dist.values())
    seen = 0
    for value in sorted(dist):
        seen += dist[value]
        if 2 * seen >= total:
            return value
    return max(dist)


def fill(text: str, values: dict[str, str]) -> str:
    """Replace every ``{name}`` of ``text`` by its value (names must be known)."""
    return re.sub(r"\{([a-z_][a-z0-9_]*)\}", lambda m: values[m.group(1)], text)
