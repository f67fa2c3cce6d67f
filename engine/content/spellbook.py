"""A creature's spells, resolved once when an encounter is put together.

A creature file lists its spells by name (``spells``), its slots per level
(``spell_slots``), its casting ability, and optionally its caster level
(``caster_level``, else ``level``), its spellcasting ``classes`` and explicit
``spell_levels``. :func:`build_spellbook` resolves the names against a
:class:`~engine.content.spells.SpellRegistry` into a :class:`Spellbook`: the
spells it can cast, each at its level, and those it cannot, each with why
(French), which the report lists under « Non modélisé »
(:func:`engine.content.modelled.unmodelled`).

* **The level a spell is cast at** (its slot and its DC): the creature's
  ``spell_levels`` entry when it names the spell; else the lowest level among
  its ``classes`` that learn it; else (no class given, or none of them learns
  it) the lowest level of any class (``Spell.class_levels``), and the record's
  base level for a spell no class learns. A choice of the engine: the files have
  no class levels, and the lowest level is the one a multiclass caster would
  use (``docs/rules.md``, « Spellcasting »).
* **Caster level**: ``caster_level`` when the file gives it, else ``level``.
* **DC**: 10 + the spell's level + the casting ability's modifier (0 when the
  file names no casting ability).
* **Touch attacks**: d20 + BAB + Strength (melee) or Dexterity (ranged) + the
  size modifier, against touch AC, compiled once as two
  :class:`~engine.content.creatures.AttackProfile` values the attack rules read
  (cover, concealment, flanking, shooting into a melee).
* **What cannot be cast** (:func:`unplayable_reason`): a name the registry does
  not know (with the closest known name), a spell whose file says it is not
  modelled, and the parts of the schema the casting rules do not play yet
  (bleeding, phases of conditions that are not nested).

>>> from engine.content.creatures import load_combatant
>>> from engine.content.spells import default_registry
>>> lich = load_combatant("data/monsters/lich.json")
>>> book = build_spellbook(lich.spec, default_registry())
>>> known = [k.spell.id for k in book.known]
>>> book.caster_level, book.dc(3), known  # doctest: +NORMALIZE_WHITESPACE
(11, 19, ['bleed', 'ray-of-frost', 'magic-missile', 'ray-of-enfeeblement', 'shield',
          'mage-armor', 'false-life', 'scorching-ray', 'fireball', 'cone-of-cold',
          'waves-of-fatigue'])
>>> book.slots[3], book.melee_touch.attack_bonus, book.ranged_touch.attack_bonus
(6, 5, 7)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from engine.content.creatures import (
    NATURAL_REACH_FT,
    SIZE_MODIFIER,
    AttackProfile,
    AttackSpec,
    Combatant,
    ability_mod,
)
from engine.content.spells import (
    ConditionEffect,
    Spell,
    SpellRegistry,
    spell_key,
)
from engine.core.errors import DataError

#: the casting abilities: the file's score
_SCORES = {"int": "int_score", "wis": "wis_score", "cha": "cha_score"}
#: the French names of the casting abilities
ABILITY_LABELS = {"int": "Intelligence", "wis": "Sagesse", "cha": "Charisme"}
#: the range of a ray, as an increment: no range penalty (SRD « Ray »: the
#: spell's range, not increments)
_RAY_INCREMENT = 10_000


@dataclass(frozen=True, slots=True)
class KnownSpell:
    """A spell a creature can cast, and the level it casts it at."""

    spell: Spell
    level: int


@dataclass(frozen=True, slots=True, eq=False)
class Spellbook:
    """What a creature casts (immutable, shared by every fight of an encounter;
    the slots left are the fight's, :class:`engine.state.casting.Casting`)."""

    caster_level: int
    #: ``int``, ``wis``, ``cha`` or ``None``
    ability: str | None
    ability_mod: int
    #: the spells it can cast, in file order
    known: tuple[KnownSpell, ...]
    #: the same, by spell id, and the spells whose casting time is too long for a
    #: fight (refused with ``downgraded:cast_time``)
    by_id: Mapping[str, KnownSpell]
    #: spells per day of each level, 0 to 9 (level 0: cantrips, cast at will)
    slots: tuple[int, ...]
    #: the spells it lists and cannot cast: (the name as the file writes it, why)
    unplayable: tuple[tuple[str, str], ...]
    #: the ids of the spells it lists that the registry knows but it cannot cast
    unplayable_ids: frozenset[str]
    melee_touch: AttackProfile
    ranged_touch: AttackProfile

    def dc(self, level: int) -> int:
        """SRD « Saving Throw »: 10 + the spell's level + the casting ability's modifier."""
        return 10 + level + self.ability_mod

    def lists(self, name: str | None) -> bool:
        """Whether ``name`` is a spell it lists that the registry knows and it cannot cast."""
        return name is not None and spell_key(name) in self.unplayable_ids

    def get(self, name: str | None) -> KnownSpell | None:
        """The castable spell ``name`` designates (any spelling :func:`spell_key` reads)."""
        if name is None:
            return None
        return self.by_id.get(spell_key(name))


def _nested(effect: ConditionEffect) -> bool:
    """Whether each condition of a phased effect lasts from the first phase through
    consecutive phases (color spray): then it is one duration, the phases' sum."""
    for name in {n for p in effect.phases for n in p.conditions}:
        held = [name in p.conditions for p in effect.phases]
        if not held[0]:
            return False
        last = max(i for i, h in enumerate(held) if h)
        if not all(held[: last + 1]):
            return False
    return True


def unplayable_reason(spell: Spell) -> str | None:
    """Why the casting rules cannot play ``spell`` (French), or ``None`` when they can."""
    if not spell.modelled:
        return spell.reason or "effet non modélisé"
    if spell.cast_time == "long":
        return "incantation de plus d'un round : jamais lancé en combat"
    if spell.targeting in ("creature", "ally") and spell.range_ft(1) is None:
        return "portée donnée en mots seulement"
    for effect in spell.effects:
        if isinstance(effect, ConditionEffect):
            if effect.bleed:
                return "saignement : pas encore joué"
            if not _nested(effect):
                return "phases de conditions disjointes : pas encore joué"
    return None


def spell_level(spec: Combatant, spell: Spell) -> int:
    """The level ``spec``'s creature casts ``spell`` at (module docstring)."""
    for name, level in spec.spell_levels.items():
        if spell_key(name) == spell.id:
            return level
    mine = [spell.class_levels[c] for c in spec.classes if c in spell.class_levels]
    if mine:
        return min(mine)
    if spell.class_levels:
        return min(spell.class_levels.values())
    return spell.level


def _touch(spec: Combatant, ranged: bool) -> AttackProfile:
    """The creature's touch attack with spells: d20 + BAB + Str (melee) or Dex
    (ranged) + size, against touch AC; melee within its natural reach."""
    abilities = spec.abilities
    score = abilities.dex_score if ranged else abilities.str_score
    bonus = spec.bab + ability_mod(score) + SIZE_MODIFIER[spec.size]
    name = "contact à distance" if ranged else "contact"
    reach = 0 if ranged else NATURAL_REACH_FT.get(spec.size, 5)
    attack = AttackSpec.model_construct(
        name=name,
        kind="touch",
        attack_bonus=bonus,
        range_increment_ft=_RAY_INCREMENT if ranged else None,
        reach_ft=reach,
    )
    return AttackProfile(
        id="ranged-touch" if ranged else "touch",
        name=name,
        kind="touch",
        attack_bonus=bonus,
        parts=(),
        damage_bonus=0,
        crit_range=20,
        crit_mult=2,
        count=1,
        range_increment_ft=_RAY_INCREMENT if ranged else None,
        reach_ft=reach,
        dead_zone_ft=0,
        natural=False,
        bypass=frozenset(),
        spec=attack,
        is_melee=not ranged,
    )


class SpellSource(Protocol):
    """Where a creature's spell names are resolved: a :class:`SpellRegistry`, or a
    :class:`LayeredRegistry`."""

    def resolve(self, name: str) -> Spell:
        """The spell ``name`` designates. :raises DataError: an unknown name."""
        ...


@dataclass(frozen=True, slots=True, eq=False)
class LayeredRegistry:
    """The spells of an encounter's own directory (``spells:`` in its file: homebrew
    or test spells), then the shipped registry's."""

    local: SpellRegistry
    base: SpellRegistry

    def resolve(self, name: str) -> Spell:
        if name in self.local:
            return self.local.resolve(name)
        return self.base.resolve(name)


def build_spellbook(spec: Combatant, registry: SpellSource) -> Spellbook:
    """Resolve ``spec``'s spells against ``registry`` (module docstring). A name the
    registry does not know is listed as unplayable with the closest known name
    (not an error: a creature file keeps its other spells and attacks)."""
    known: list[KnownSpell] = []
    by_id: dict[str, KnownSpell] = {}
    unplayable: list[tuple[str, str]] = []
    unplayable_ids: set[str] = set()
    for name in spec.spells:
        try:
            spell = registry.resolve(name)
        except DataError as err:
            unplayable.append((name.strip(), err.message))
            continue
        if spell.id in by_id or spell.id in unplayable_ids:
            continue
        why = unplayable_reason(spell)
        entry = KnownSpell(spell, spell_level(spec, spell))
        if why is not None:
            unplayable.append((name.strip(), why))
            if spell.modelled and spell.cast_time == "long":
                by_id[spell.id] = entry  # known, and refused: ``downgraded:cast_time``
            else:
                unplayable_ids.add(spell.id)
            continue
        known.append(entry)
        by_id[spell.id] = entry
    ability = spec.casting_ability
    mod = ability_mod(getattr(spec.abilities, _SCORES[ability])) if ability is not None else 0
    return Spellbook(
        caster_level=spec.caster_level if spec.caster_level is not None else spec.level,
        ability=ability,
        ability_mod=mod,
        known=tuple(known),
        by_id=by_id,
        slots=tuple(spec.spell_slots.get(str(i), 0) for i in range(10)),
        unplayable=tuple(unplayable),
        unplayable_ids=frozenset(unplayable_ids),
        melee_touch=_touch(spec, False),
        ranged_touch=_touch(spec, True),
    )


def casts(spec: Combatant) -> bool:
    """Whether a creature file lists spells (it gets a :class:`Spellbook`)."""
    return bool(spec.spells)


__all__ = [
    "ABILITY_LABELS",
    "KnownSpell",
    "LayeredRegistry",
    "SpellSource",
    "Spellbook",
    "build_spellbook",
    "casts",
    "spell_level",
    "unplayable_reason",
]
