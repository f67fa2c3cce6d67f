"""The table of conditions (SRD « Conditions », CRB Appendix 2): what each one
does, as data the rules read through bit masks.

A condition on a combatant is an :class:`~engine.state.effects.Effect` with the
condition's :class:`~engine.state.effects.Cond` bit, its modifiers and, for a
timed one, a duration (:func:`condition_effect`). What a condition *forbids*
(acting, attacking, moving, keeping its Dex bonus to AC, threatening…) is not
stored on the effect: each :class:`ConditionDef` lists its :class:`Flag` s and
this module turns the table into one mask per flag (:data:`CANT_ACT`,
:data:`DENIES_DEX` …), so a rule tests a whole family with one AND on
``effects.cond``.

The table has the 29 conditions of the seed's list (inventory §3.35): *bane*,
which the seed also calls a condition, is a spell's effect (a typed modifier,
issue 18), and disabled, dying, dead and stable are life states
(:mod:`engine.rules.life`), not conditions. Five technical bits of
:class:`~engine.state.effects.Cond` (charging, fighting defensively, total
defense, running) are the passing states of actions, not table entries.

>>> CONDITIONS["shaken"].label, [m.value for _, m in CONDITIONS["shaken"].mods][:2]
('secoué', [-2, -2])
>>> bool(CANT_ACT & Cond.PARALYZED), bool(CANT_ACT & Cond.SHAKEN)
(True, False)
>>> len(CONDITIONS)
29
>>> max(CANT_ACT, DENIES_DEX, HELPLESS, NO_THREAT, NO_AOO, FLEES, CONFUSED) < 2**30
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import IntFlag

from engine.content.abilities import StartingCondition
from engine.core.checks import Modifier
from engine.state.effects import (
    ABILITY_CHECK,
    ATTACK,
    CMB,
    DAMAGE,
    DEX,
    INITIATIVE,
    SKILL,
    STR,
    Cond,
    Effect,
    HasEffects,
    Moment,
    Stat,
    drop_effect,
    on_ac,
    on_saves,
)


class Flag(IntFlag):
    """What a condition does beyond its modifiers (SRD « Conditions »)."""

    NONE = 0
    #: takes no action at all (stunned, paralyzed, dazed, asleep…): its turn is lost
    CANT_ACT = 1
    #: only one move action per turn, no attack (SRD « Nauseated »)
    ONE_MOVE = 2
    #: one move or one standard action per turn (SRD « Staggered »)
    STAGGERED = 4
    #: does not move (SRD « Grappled », « Pinned », « Paralyzed »)
    CANT_MOVE = 8
    #: half speed (SRD « Entangled », « Exhausted »)
    HALF_SPEED = 16
    #: cannot run or charge (SRD « Fatigued », « Entangled »)
    NO_RUN_CHARGE = 32
    #: loses its Dex bonus to AC (SRD « Flat-Footed », « Stunned », « Cowering »…)
    DENIES_DEX = 64
    #: helpless (SRD « Helpless »): Dex 0 (−5), +4 to melee attacks against it,
    #: coup de grâce; down for victory (docs/rules.md)
    HELPLESS = 128
    #: makes no attack of opportunity (SRD « Confused », « Grappled »)
    NO_AOO = 256
    #: threatens nothing: no attack of opportunity, no flanking (a creature that
    #: cannot attack threatens no square, SRD « Threatened Squares »)
    NO_THREAT = 512
    #: flees from the source of its fear (SRD « Frightened », « Panicked »)
    FLEES = 1024
    #: rolls d% at the start of its turns (SRD « Confused »)
    CONFUSED = 2048


@dataclass(frozen=True, slots=True)
class ConditionDef:
    """One condition of the table: its file name, :class:`Cond` bit, French
    label and definition, SRD reference, modifiers and :class:`Flag` s."""

    name: str
    bit: Cond
    #: the French name a user reads (transcript, report, Observation)
    label: str
    #: its rules in one French sentence (the Observation's definitions)
    text: str
    #: the SRD heading it comes from
    srd: str
    mods: tuple[tuple[Stat, Modifier], ...] = ()
    flags: Flag = Flag.NONE
    #: the miss chance it gives attacks against its holder (SRD « Concealment »)
    miss_chance: int = 0

    def to_dict(self) -> dict[str, object]:
        """Its JSON form (the Observation's ``condition_definitions``)."""
        return {
            "name": self.name,
            "label": self.label,
            "text": self.text,
            "srd": self.srd,
            "modifiers": [
                {"stat": STAT_NAMES[stat], "value": m.value, "type": m.type.value}
                for stat, m in self.mods
            ],
            "flags": [f.name.lower() for f in Flag if f in self.flags and f.name is not None],
            "miss_chance": self.miss_chance,
        }


#: the names of the stats in JSON (engine.state.effects)
STAT_NAMES: dict[Stat, str] = {
    0: "attack",
    1: "ac_melee",
    2: "ac_ranged",
    3: "cmd",
    4: "damage",
    5: "fort",
    6: "ref",
    7: "will",
    8: "skill",
    9: "cmb",
    10: "initiative",
    11: "ability_check",
    12: "str_score",
    13: "dex_score",
    14: "speed_ft",
    15: "half_speed",
    16: "extra_attack",
    17: "size_steps",
}


def _fear(value: int) -> tuple[tuple[Stat, Modifier], ...]:
    """SRD « Shaken », « Frightened », « Panicked »: −2 on attack rolls, saving
    throws, skill checks and ability checks. One source (« peur ») for the three:
    they are degrees of one fear and their penalties do not add (the worst applies)."""
    mod = Modifier(value, "peur")
    return ((ATTACK, mod), *on_saves(mod), (SKILL, mod), (ABILITY_CHECK, mod))


def _sick() -> tuple[tuple[Stat, Modifier], ...]:
    mod = Modifier(-2, "fiévreux")
    return ((ATTACK, mod), (DAMAGE, mod), *on_saves(mod), (SKILL, mod), (ABILITY_CHECK, mod))


def _scores(source: str, value: int) -> tuple[tuple[Stat, Modifier], ...]:
    """A penalty to the Strength and Dexterity scores."""
    mod = Modifier(value, source)
    return ((STR, mod), (DEX, mod))


_A, _O, _S, _M = Flag.CANT_ACT, Flag.ONE_MOVE, Flag.STAGGERED, Flag.CANT_MOVE
_H, _N, _D, _P = Flag.HALF_SPEED, Flag.NO_RUN_CHARGE, Flag.DENIES_DEX, Flag.HELPLESS
_Q, _T, _F, _C = Flag.NO_AOO, Flag.NO_THREAT, Flag.FLEES, Flag.CONFUSED
#: what cannot act threatens nothing and makes no attack of opportunity
_OUT = _A | _T | _Q
#: helpless: cannot act, does not move, no Dex (SRD « Helpless »)
_HELPLESS = _OUT | _M | _D | _P

TABLE: tuple[ConditionDef, ...] = (
    ConditionDef(
        "shaken", Cond.SHAKEN, "secoué",
        "−2 aux jets d'attaque, de sauvegarde, de compétence et de caractéristique.",
        "Shaken", _fear(-2),
    ),
    ConditionDef(
        "sickened", Cond.SICKENED, "fiévreux",
        "−2 aux jets d'attaque, de dégâts d'arme, de sauvegarde, de compétence et de "
        "caractéristique.",
        "Sickened", _sick(),
    ),
    ConditionDef(
        "fatigued", Cond.FATIGUED, "fatigué",
        "−2 en Force et en Dextérité ; ne peut ni courir ni charger.",
        "Fatigued", _scores("fatigué", -2), _N,
    ),
    ConditionDef(
        "exhausted", Cond.EXHAUSTED, "épuisé",
        "−6 en Force et en Dextérité ; se déplace à demi-vitesse ; ne peut ni courir ni "
        "charger.",
        "Exhausted", _scores("épuisé", -6), _H | _N,
    ),
    ConditionDef(
        "entangled", Cond.ENTANGLED, "enchevêtré",
        "−2 aux jets d'attaque, −4 en Dextérité ; demi-vitesse ; ne peut ni courir ni charger.",
        "Entangled",
        ((ATTACK, Modifier(-2, "enchevêtré")), (DEX, Modifier(-4, "enchevêtré"))),
        _H | _N,
    ),
    ConditionDef(
        "dazzled", Cond.DAZZLED, "ébloui",
        "−1 aux jets d'attaque (et aux tests de Perception visuels).",
        "Dazzled", ((ATTACK, Modifier(-1, "ébloui")),),
    ),
    ConditionDef(
        "blinded", Cond.BLINDED, "aveuglé",
        "Perd son bonus de Dex à la CA, ses attaquants ont +2 ; 50 % de chances de rater "
        "toute cible ; −4 aux compétences de For et de Dex et en Perception.",
        "Blinded",
    ),
    ConditionDef(
        "deafened", Cond.DEAFENED, "assourdi",
        "−4 en initiative (et échec des sorts à composante verbale : 20 %).",
        "Deafened", ((INITIATIVE, Modifier(-4, "assourdi")),),
    ),
    ConditionDef(
        "flat_footed", Cond.FLAT_FOOTED, "pris au dépourvu",
        "Perd son bonus de Dex à la CA ; aucune attaque d'opportunité ni action immédiate.",
        "Flat-Footed", (), _D | _Q,
    ),
    ConditionDef(
        "prone", Cond.PRONE, "à terre",
        "−4 à ses jets d'attaque ; −4 à la CA contre la mêlée, +4 contre les attaques à "
        "distance ; ne se déplace pas sans se relever.",
        "Prone",
    ),
    ConditionDef(
        "stunned", Cond.STUNNED, "étourdi",
        "Ne peut pas agir ; −2 à la CA ; perd son bonus de Dex à la CA.",
        "Stunned", on_ac(Modifier(-2, "étourdi")), _OUT | _D,
    ),
    ConditionDef(
        "paralyzed", Cond.PARALYZED, "paralysé",
        "Ne peut ni bouger ni agir ; Force et Dextérité à 0 : sans défense.",
        "Paralyzed", (), _HELPLESS,
    ),
    ConditionDef(
        "nauseated", Cond.NAUSEATED, "nauséeux",
        "Ne peut ni attaquer, ni lancer de sort, ni se concentrer ; une seule action de "
        "mouvement par tour.",
        "Nauseated", (), _O | _T | _Q,
    ),
    ConditionDef(
        "dazed", Cond.DAZED, "hébété",
        "Ne peut pas agir (aucune pénalité à la CA).",
        "Dazed", (), _OUT,
    ),
    ConditionDef(
        "staggered", Cond.STAGGERED, "chancelant",
        "Une seule action de mouvement ou simple par tour (plus les actions rapides, "
        "libres et immédiates).",
        "Staggered", (), _S,
    ),
    ConditionDef(
        "frightened", Cond.FRIGHTENED, "effrayé",
        "Comme secoué, et fuit la source de sa peur ; acculé, il peut combattre.",
        "Frightened", _fear(-2), _F,
    ),
    ConditionDef(
        "panicked", Cond.PANICKED, "paniqué",
        "Comme secoué, et fuit la source de sa peur ; acculé, il se recroqueville.",
        "Panicked", _fear(-2), _F,
    ),
    ConditionDef(
        "cowering", Cond.COWERING, "recroquevillé",
        "Paralysé par la peur : ne peut pas agir ; −2 à la CA ; perd son bonus de Dex à la CA.",
        "Cowering", on_ac(Modifier(-2, "recroquevillé")), _OUT | _D,
    ),
    ConditionDef(
        "helpless", Cond.HELPLESS, "sans défense",
        "Dextérité 0 (−5) ; +4 aux attaques au corps à corps contre lui ; coup de grâce "
        "possible.",
        "Helpless", (), _HELPLESS,
    ),
    ConditionDef(
        "fascinated", Cond.FASCINATED, "fasciné",
        "Ne fait rien d'autre que regarder ce qui le fascine.",
        "Fascinated", (), _OUT,
    ),
    ConditionDef(
        "invisible", Cond.INVISIBLE, "invisible",
        "Camouflage total (50 %) ; +2 à ses attaques, et ses cibles perdent leur bonus de "
        "Dex à la CA.",
        "Invisible", miss_chance=50,
    ),
    ConditionDef(
        "bleeding", Cond.BLEEDING, "hémorragie",
        "Perd des points de vie au début de chacun de ses tours, jusqu'à un soin.",
        "Bleed",
    ),
    ConditionDef(
        "confused", Cond.CONFUSED, "confus",
        "Au début de son tour, d% : 01–25 agit normalement, 26–50 balbutie, 51–75 se "
        "blesse (1d8 + mod. de For), 76–100 attaque la créature la plus proche ; pas "
        "d'attaque d'opportunité.",
        "Confused", (), _C | _Q,
    ),
    ConditionDef(
        "grappled", Cond.GRAPPLED, "agrippé",
        "Ne bouge pas ; −4 en Dextérité ; −2 aux attaques et aux manœuvres ; pas d'attaque "
        "d'opportunité.",
        "Grappled",
        (
            (ATTACK, Modifier(-2, "agrippé")),
            (CMB, Modifier(-2, "agrippé")),
            (DEX, Modifier(-4, "agrippé")),
        ),
        _M | _Q,
    ),
    ConditionDef(
        "pinned", Cond.PINNED, "immobilisé",
        "Ne bouge pas et ne peut que tenter de se libérer ; −4 à la CA ; perd son bonus de "
        "Dex à la CA.",
        "Pinned", on_ac(Modifier(-4, "immobilisé")), _OUT | _M | _D,
    ),
    ConditionDef(
        "asleep", Cond.ASLEEP, "endormi",
        "Sans défense ; une blessure le réveille.",
        "Helpless (Sleep)", (), _HELPLESS,
    ),
    ConditionDef(
        "unconscious", Cond.UNCONSCIOUS, "inconscient",
        "Assommé et sans défense.",
        "Unconscious", (), _HELPLESS,
    ),
    ConditionDef(
        "blurred", Cond.BLURRED, "flou",
        "Camouflage : 20 % de chances de rater chaque attaque contre lui.",
        "Concealment (Blur)", miss_chance=20,
    ),
    ConditionDef(
        "displaced", Cond.DISPLACED, "décalé",
        "Camouflage total : 50 % de chances de rater chaque attaque contre lui.",
        "Concealment (Displacement)", miss_chance=50,
    ),
)  # fmt: skip

#: the table by file name
CONDITIONS: dict[str, ConditionDef] = {c.name: c for c in TABLE}
#: the table by bit
BY_BIT: dict[int, ConditionDef] = {c.bit.value: c for c in TABLE}


def _mask(flag: Flag) -> int:
    out = 0
    for c in TABLE:
        if c.flags & flag:
            out |= c.bit.value
    return out


#: the bits of the conditions with each :class:`Flag` (plain ints: one AND per test)
CANT_ACT = _mask(Flag.CANT_ACT)
ONE_MOVE = _mask(Flag.ONE_MOVE)
STAGGERED = _mask(Flag.STAGGERED)
CANT_MOVE = _mask(Flag.CANT_MOVE)
HALF_SPEED = _mask(Flag.HALF_SPEED)
NO_RUN_CHARGE = _mask(Flag.NO_RUN_CHARGE)
DENIES_DEX = _mask(Flag.DENIES_DEX)
HELPLESS = _mask(Flag.HELPLESS)
#: SRD « Helpless »: « treated as having a Dexterity of 0 (−5 modifier) »
HELPLESS_DEX_MOD = -5
NO_AOO = _mask(Flag.NO_AOO)
NO_THREAT = _mask(Flag.NO_THREAT)
FLEES = _mask(Flag.FLEES)
CONFUSED = _mask(Flag.CONFUSED)
#: the conditions that give a miss chance (the instance carries its value)
CONCEALING = Cond.BLURRED.value | Cond.DISPLACED.value | Cond.INVISIBLE.value
#: the bits of every condition of the table
TABLE_BITS = sum(c.bit.value for c in TABLE)


def condition_effect(
    name: str,
    rounds: int | None = None,
    *,
    source: str | None = None,
    origin: str | None = None,
    bleed: int = 0,
    miss_chance: int | None = None,
    ends: Moment = Moment.TURN_START,
) -> Effect:
    """The :class:`Effect` of condition ``name``: its bit and modifiers, for
    ``rounds`` rounds (ending at the ``ends`` moment of the turns of whoever keeps
    its timer: by default the start) or, with ``None``, until something ends it.
    ``source`` names it (default ``cond:<name>``); ``origin`` is the combatant
    that gave it; ``bleed``, the hit points the bleeding costs each turn;
    ``miss_chance`` overrides the table's value (Mirror Image).

    >>> e = condition_effect("shaken", 3, origin="lich")
    >>> e.source, e.turns, e.ends.name, e.origin
    ('cond:shaken', 3, 'TURN_START', 'lich')
    """
    c = CONDITIONS[name]
    return Effect(
        source or f"cond:{name}",
        c.mods,
        c.bit,
        ends=None if rounds is None else ends,
        turns=1 if rounds is None else rounds,
        miss_chance=c.miss_chance if miss_chance is None else miss_chance,
        bleed=bleed,
        origin=origin,
    )


def names_of(cond: int) -> list[str]:
    """The file names of the table's conditions among the bits ``cond``, in table
    order.

    >>> names_of(Cond.SHAKEN | Cond.PRONE | Cond.CHARGING)
    ['shaken', 'prone']
    """
    return [c.name for c in TABLE if cond & c.bit]


def file_effects(conditions: Iterable[StartingCondition]) -> tuple[Effect, ...]:
    """One effect per condition a combatant file (or an encounter file) starts it
    under (source ``file:<name>``, the table's miss chance), in their order: a
    fight-long one is permanent; a timed one ends at the end of its holder's
    ``rounds``-th turn (its own turns keep the timer).

    >>> [(e.source, e.ends, e.turns) for e in file_effects(
    ...     [StartingCondition("blurred"), StartingCondition("confused", 2)])]
    [('file:blurred', None, 1), ('file:confused', <Moment.TURN_END: 2>, 2)]
    """
    return tuple(
        condition_effect(
            c.name,
            c.rounds,
            source=f"file:{c.name}",
            bleed=c.bleed,
            ends=Moment.TURN_END,
        )
        for c in conditions
    )


def starting_cond(conditions: Iterable[StartingCondition]) -> int:
    """The :class:`Cond` bits of the conditions a combatant starts a fight under.

    >>> starting_cond([StartingCondition("blinded")]) == Cond.BLINDED
    True
    """
    cond = 0
    for c in conditions:
        cond |= CONDITIONS[c.name].bit.value
    return cond


def drop_condition(holder: HasEffects, name: str) -> bool:
    """Remove every effect of ``holder`` that sets condition ``name``'s bit;
    returns whether there was one."""
    bit = CONDITIONS[name].bit.value
    if not holder.effects.cond & bit:
        return False
    gone = False
    for e in holder.effects.items:
        if e.cond & bit:
            gone = drop_effect(holder, e.source) or gone
    return gone
