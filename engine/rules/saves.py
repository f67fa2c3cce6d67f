"""Saving throws (SRD « Saving Throws »), and what a creature is immune to.

* A save is the one check mechanism (:func:`engine.core.checks.check`): d20 +
  the file's save bonus + its effects' modifiers on that save, stacked
  (:func:`engine.core.checks.stack`), against the DC; the pf1e pack makes a
  natural 1 fail and a natural 20 succeed. The :class:`~engine.core.checks.RollRecord`
  lists every modifier with its source.
* **Conditioned modifiers**: an effect whose :attr:`~engine.state.effects.Effect.when`
  names a descriptor (« fear », « mind-affecting », « poison »…) counts only on
  a save against an effect with that descriptor. The source's alignment is a
  descriptor too (« evil », « lawful », « good », « chaotic »), for protection
  effects; no source, no alignment descriptor.
* A change of the Dexterity score (fatigued, entangled…) changes the Reflex save
  by the change of its modifier.
* **Cover** (SRD « Cover »: « Cover and Reflex Saves »): against an area whose
  origin is on the other side of terrain cover, half the cover's AC bonus on the
  Reflex save (+1, +2, +4); soft cover (creatures) gives none.
* **Harmless** effects, and willing targets, roll nothing: no die is drawn.
* **Immunities**: :func:`immune` says whether a creature ignores an effect with
  some descriptors or condition — its file's ``immunities`` and the traits of
  its type (SRD « Undead Traits », « Construct Traits »…).
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.content.maps import Cell, GameMap
from engine.content.packs import D20_SAVE
from engine.core.checks import CheckKind, Modifier, RollRecord, check
from engine.core.events import SavingThrow
from engine.geometry.los import pair_geometry
from engine.state.effects import DEX, INITIATIVE, SAVE_STATS, STR, Cond, Stat, use_effects
from engine.state.fight import FightState
from engine.state.state import CombatantState

#: the saves by their names in files, and their French names
SAVE_NAMES: dict[str, str] = {"fort": "Vigueur", "ref": "Réflexes", "will": "Volonté"}

#: SRD « Creature Types »: what each type is immune to (the descriptors of an
#: effect, or the names of the conditions, of :func:`immune`)
TYPE_IMMUNITIES: dict[str, frozenset[str]] = {
    # SRD « Undead Traits »
    "undead": frozenset(
        {"mind-affecting", "bleed", "death", "disease", "paralysis", "poison", "sleep", "stun",
         "fatigue", "exhaustion", "nonlethal"}
    ),
    # SRD « Construct Traits »
    "construct": frozenset(
        {"mind-affecting", "bleed", "death", "disease", "necromancy", "paralysis", "poison",
         "sleep", "stun", "fatigue", "exhaustion", "nonlethal"}
    ),
    # SRD « Ooze Traits »
    "ooze": frozenset({"mind-affecting", "paralysis", "poison", "sleep", "stun", "gaze",
                       "illusion"}),
    # SRD « Plant Traits »
    "plant": frozenset({"mind-affecting", "paralysis", "poison", "sleep", "stun"}),
    # SRD « Vermin Traits »: mindless
    "vermin": frozenset({"mind-affecting"}),
}  # fmt: skip

#: the immunity descriptor that keeps a condition off (SRD wording of the traits)
CONDITION_IMMUNITY: dict[str, str] = {
    "paralyzed": "paralysis",
    "asleep": "sleep",
    "stunned": "stun",
    "bleeding": "bleed",
    "fatigued": "fatigue",
    "exhausted": "exhaustion",
}

#: the French names of the descriptors and immunities a transcript shows
DESCRIPTOR_LABELS: dict[str, str] = {
    "mind-affecting": "effets mentaux",
    "fear": "terreur",
    "paralysis": "paralysie",
    "sleep": "sommeil",
    "stun": "étourdissement",
    "poison": "poison",
    "disease": "maladie",
    "bleed": "saignement",
    "death": "effets de mort",
    "fatigue": "fatigue",
    "exhaustion": "épuisement",
    "nonlethal": "dégâts non létaux",
}

#: the alignment descriptors of a source's alignment letters
_ALIGNMENT: dict[str, str] = {"L": "lawful", "C": "chaotic", "G": "good", "E": "evil"}


def alignment_descriptors(alignment: str) -> tuple[str, ...]:
    """The alignment descriptors of an alignment code (« LE » → lawful, evil).

    >>> alignment_descriptors("CE"), alignment_descriptors("N")
    (('chaotic', 'evil'), ())
    """
    return tuple(_ALIGNMENT[ch] for ch in alignment if ch in _ALIGNMENT)


def immunities(target: CombatantState) -> frozenset[str]:
    """Everything ``target`` is immune to: its file's ``immunities`` and its type's traits."""
    spec = target.profile.spec
    own = frozenset(i.lower() for i in spec.immunities)
    traits = TYPE_IMMUNITIES.get(spec.creature_type or "")
    return own | traits if traits else own


def immune(
    target: CombatantState, descriptors: Iterable[str], condition: str | None = None
) -> str | None:
    """What makes ``target`` ignore an effect with ``descriptors`` that would give it
    ``condition`` (SRD: « immunity to mind-affecting effects », « to paralysis »…):
    the matching immunity, or ``None`` when it is not immune.

    >>> sorted(TYPE_IMMUNITIES["undead"] & {"mind-affecting", "paralysis", "fire"})
    ['mind-affecting', 'paralysis']
    """
    known = immunities(target)
    if not known:
        return None
    for d in descriptors:
        if d in known:
            return d
    if condition is None:
        return None
    if condition in known:
        return condition
    trait = CONDITION_IMMUNITY.get(condition)
    return trait if trait in known else None


def reflex_cover(gmap: GameMap, origin: Cell, cell: Cell) -> int:
    """SRD « Cover »: the Reflex bonus of the creature on ``cell`` against an area
    bursting from ``origin``: half the terrain cover's AC bonus (partial +2 → +1,
    cover +4 → +2, improved +8 → +4); creatures give no such bonus (soft cover).
    No line of effect from the origin: 0 (the area does not reach it)."""
    if origin == cell:
        return 0
    geo = pair_geometry(gmap, origin, cell)
    if not geo.line_of_effect:
        return 0
    return geo.ranged_cover // 2


def dex_change(score: int | None, change: int) -> int:
    """How much a change of ``change`` to a Dexterity (or Strength) score moves
    its modifier (a creature without the score: 0).

    >>> dex_change(15, -2), dex_change(14, -2), dex_change(11, -6), dex_change(None, -4)
    (-1, -1, -3, 0)
    """
    if score is None or not change:
        return 0
    return (score + change - 10) // 2 - (score - 10) // 2


#: the conditions that change the Strength or Dexterity score (fatigued, exhausted,
#: entangled, grappled)
SCORE_CONDITIONS = (
    Cond.FATIGUED.value | Cond.EXHAUSTED.value | Cond.ENTANGLED.value | Cond.GRAPPLED.value
)


def score_delta(creature: CombatantState, stat: Stat) -> int:
    """How much its effects' changes to its Strength (``STR``) or Dexterity (``DEX``)
    score move that ability's modifier (SRD « Fatigued »: −2 Str and Dex)."""
    change = creature.effects.total(stat)
    if not change:
        return 0
    abilities = creature.profile.spec.abilities
    return dex_change(abilities.str_score if stat == STR else abilities.dex_score, change)


def save_modifiers(
    target: CombatantState,
    save: str,
    descriptors: Iterable[str] = (),
    cover: int = 0,
) -> tuple[Modifier, ...]:
    """Every modifier of ``target``'s ``save`` (``fort``, ``ref``, ``will``) against
    an effect with ``descriptors``, each with its source: the file's bonus, its
    effects' (conditioned ones included when their descriptor is there), the
    Reflex change of a lowered Dexterity, the cover bonus."""
    spec = target.profile.spec
    mods = [Modifier(getattr(spec.saves, save), SAVE_NAMES[save])]
    effects = target.effects
    if effects.items:
        mods.extend(effects.when_breakdown(SAVE_STATS[save], descriptors))
        if save == "ref" and effects.scores:
            delta = score_delta(target, DEX)
            if delta:
                mods.append(Modifier(delta, "Dextérité"))
    if cover:
        mods.append(Modifier(cover, "abri"))
    return tuple(mods)


def roll_save(
    fight: FightState,
    target: CombatantState,
    save: str,
    dc: int,
    *,
    effect: str,
    descriptors: Iterable[str] = (),
    source: CombatantState | None = None,
    harmless: bool = False,
    origin: Cell | None = None,
    bonus: int = 0,
) -> RollRecord | None:
    """``target``'s saving throw against ``effect`` (its French name, for the
    transcript) of DC ``dc``.

    ``source``: the creature the effect comes from (its alignment adds descriptors);
    ``origin``: an area's point of origin (Reflex cover); ``bonus``: the effect's
    own bonus to the save (*hypnotism*: +2, « bonus du sort »). A ``harmless`` effect
    rolls nothing and returns ``None`` (no die drawn). The roll is logged as a
    :class:`~engine.core.events.SavingThrow`.
    """
    if harmless:
        if fight.log is not None:
            fight.log.append(SavingThrow(fight.round, target.id, effect, save, dc, None))
        return None
    tags = tuple(descriptors)
    if source is not None:
        tags += alignment_descriptors(source.profile.spec.alignment)
    cover = (
        reflex_cover(fight.gmap, origin, target.pos) if origin is not None and save == "ref" else 0
    )
    mods = save_modifiers(target, save, tags, cover)
    if bonus:
        mods = (*mods, Modifier(bonus, "bonus du sort"))
    rec = check(fight.rng, D20_SAVE, CheckKind.SAVE, mods, dc)
    if target.effects.against:  # a ``once`` bonus to saves (*guidance*) is spent
        use_effects(target, SAVE_STATS[save], source.id if source is not None else "")
    if fight.log is not None:
        fight.log.append(SavingThrow(fight.round, target.id, effect, save, dc, rec))
    return rec


def save_probability(bonus: int, dc: int) -> float:
    """P(success) of a d20 save with a total bonus ``bonus`` against ``dc``: natural
    20 succeeds, natural 1 fails (SRD « Saving Throws »).

    >>> save_probability(-1, 18), save_probability(20, 18), save_probability(-30, 10)
    (0.1, 0.95, 0.05)
    """
    return min(19, max(1, 21 + bonus - dc)) / 20


def initiative_modifiers(creature: CombatantState) -> tuple[Modifier, ...]:
    """What its effects add to its initiative check: their initiative modifiers
    (SRD « Deafened »: −4) and the change of a lowered Dexterity."""
    fx = creature.effects
    mods = fx.breakdown(INITIATIVE)
    if fx.scores:
        delta = score_delta(creature, DEX)
        if delta:
            mods += (Modifier(delta, "Dextérité"),)
    return mods
