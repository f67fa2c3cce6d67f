"""The public fields of a combatant: one list, from which its view, its JSON form and
the JSON Schema of the Observation's ``combatants`` are all derived.

:data:`PUBLIC_FIELDS` declares every public field once: its JSON key, its JSON type
(as a Python annotation, which :mod:`engine.run.schemas` hands to pydantic), what it
means, where the value comes from (:data:`Origin`) and how the view turns it into
JSON. From it:

* the engine builds the :class:`CombatantView` of every combatant each turn with
  one function, :func:`build_views`, compiled at import from the ``state`` fields'
  expressions (as :mod:`dataclasses` compiles an ``__init__``: inline attribute
  reads, faster than :func:`operator.attrgetter` and its string lookups);
* :meth:`CombatantView.to_dict` writes the fields in list order (:data:`DUMPERS`);
* :mod:`engine.run.schemas` builds the pydantic mirror ``CombatantModel`` (the JSON
  Schema) from the names and types.

``tests/test_snapshot.py`` checks that they agree. A new public field is one entry
here (plus, for a ``state`` field, its slot in :class:`CombatantView`, in list
order, and for the others a view property of the same name).

Policies read what a combatant *is now* from its view (``view.ac``, ``view.hp_max``,
``view.name`` …), never from ``view.profile.spec``: when an effect changes a value,
the field moves from the ``profile`` origin to the ``state`` one, and every policy
sees the effective value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, Literal

from engine.content.creatures import (
    AbilityScores,
    ACBreakdown,
    AttackProfile,
    CombatantProfile,
    DamageReduction,
    Saves,
)
from engine.content.maps import Cell
from engine.core.checks import BonusType
from engine.state.casting import Casting
from engine.state.conditions import (
    CONDITIONS,
    NO_THREAT,
    STAT_NAMES,
    TABLE_BITS,
    names_of,
)
from engine.state.effects import ATTACK, MELEE_AC, Cond, Effects, totals_against, typed_total
from engine.state.state import CombatantState, LifeStates, Readied, effective_speed

#: condition bits the view reads (plain ints: cheaper than the IntFlag's operators)
_NO_THREAT = NO_THREAT
_CHARGING = Cond.CHARGING.value
_RUNNING = Cond.RUNNING.value
_PRONE = Cond.PRONE.value

#: where a public field's value comes from:
#:
#: * ``profile``: the creature file, compiled once per fight (a property of the view);
#: * ``state``: copied from the :class:`~engine.state.state.CombatantState` attribute
#:   :attr:`PublicField.state` every turn (a slot of the view);
#: * ``readiness``: set by :func:`fill_readiness`, only in fights that use readied
#:   actions, immediate actions or running (a slot with a default);
#: * ``view``: computed by the view from the others or from the combatant's effects
#:   (:mod:`engine.state.effects`, held by the view as they were) — a property.
Origin = Literal["profile", "state", "readiness", "view"]


@dataclass(frozen=True, slots=True)
class PublicField:
    """One public field of a combatant."""

    #: its JSON key
    name: str
    #: its JSON type, as a Python annotation resolved in :mod:`engine.run.schemas`
    type: str
    #: what it means (for the reader of the JSON)
    doc: str
    origin: Origin
    #: the attribute of the view that holds it, when not :attr:`name`
    attr: str | None = None
    #: the expression over ``c``, the :class:`~engine.state.state.CombatantState`, that a
    #: ``state`` field is copied from, when not ``c.<attr>``
    state: str | None = None
    #: its JSON value, from the view (default: the view's attribute as it is)
    dump: Callable[[CombatantView], Any] | None = None

    @property
    def view_attr(self) -> str:
        """The attribute of :class:`CombatantView` that holds the field."""
        return self.attr or self.name

    @property
    def source(self) -> str:
        """The expression over ``c`` (a :class:`~engine.state.state.CombatantState`) that
        a ``state`` field is copied from."""
        return self.state or f"c.{self.view_attr}"


def _attack_dict(a: AttackProfile) -> dict[str, Any]:
    spec = a.spec
    return {
        "id": a.id,
        "name": a.name,
        "kind": a.kind,
        "attack_bonus": a.attack_bonus,
        "damage": [{"formula": d.formula, "types": list(d.types)} for d in spec.damage],
        "damage_bonus": a.damage_bonus,
        "crit_range": a.crit_range,
        "crit_mult": a.crit_mult,
        "count": a.count,
        "reach_ft": a.reach_ft,
        "range_increment_ft": a.range_increment_ft,
        "max_range_ft": a.max_range_ft,
        "natural": a.natural,
        "firearm": spec.firearm,
        "splash": spec.splash.model_dump() if spec.splash else None,
    }


def _readied(v: CombatantView) -> dict[str, Any] | None:
    r = v.readied
    if r is None:
        return None
    return {"kind": "attack", "trigger": r.trigger, "target_id": r.target_id}


F = PublicField
#: every public field of a combatant, in the order of its JSON form
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    F("id", "str", "its id in the encounter", "state"),
    F("side", "str", "the side it fights for", "state"),
    F("name", "str", "its creature's name", "profile"),
    F("level", "int", "its level (hit dice for a monster)", "profile"),
    F("size", "str", "its size category (Small, Medium, Large …)", "profile"),
    F("space", "int", "squares per side of its space, anchored on pos (Large 2, Huge 3 …)",
      "profile"),
    F("pc", "bool", "a player character (dies at −Con, not at 0)", "profile"),
    F("creature_type", "str | None", "its creature type (humanoid, undead …)", "profile"),
    F("alignment", "str", "its alignment (LE, N …)", "profile"),
    F("hp_max", "int", "its maximum hit points", "profile"),
    F("ac", "dict[str, int]", "its Armor Class: total, touch and flat-footed", "profile",
      dump=lambda v: {"total": v.ac.total, "touch": v.ac.touch, "flat_footed": v.ac.flat_footed}),
    F("saves", "dict[str, int]", "its saving throw bonuses (fort, ref, will)", "profile",
      dump=lambda v: v.saves.model_dump()),
    F("abilities", "dict[str, int | None]", "its ability scores (None: it has none)",
      "profile", dump=lambda v: v.abilities.model_dump()),
    F("bab", "int", "its base attack bonus", "profile"),
    F("initiative_mod", "int", "its initiative modifier", "profile"),
    F("speed_land_ft", "int", "its land speed in feet", "profile"),
    F("speed_fly_ft", "int | None", "its fly speed in feet (None: it does not fly)", "profile"),
    F("dr", "dict[str, Any] | None", "its damage reduction (amount, what bypasses it)",
      "profile", dump=lambda v: v.dr.model_dump() if v.dr else None),
    F("resistances", "dict[str, int]", "energy resistances by energy type", "profile",
      dump=lambda v: dict(sorted(v.resistances.items()))),
    F("immunities", "list[str]", "what it is immune to", "profile",
      dump=lambda v: sorted(v.immunities)),
    F("features", "list[str]", "its feats and features, lower-cased", "profile",
      dump=lambda v: sorted(v.features)),
    F("conditions", "list[ConditionStateModel]",
      "its conditions now (names of the table, sorted), each with its rounds left "
      "(None: until something ends it)", "view", dump=lambda v: v.condition_states()),
    F("active_effects", "list[ActiveEffectModel]",
      "every effect on it: source, typed modifiers by stat, the opponent or descriptor "
      "it is limited to, rounds left (None: until something ends it)", "view"),
    F("bleed", "int", "hit points its bleeding costs at the start of each of its turns",
      "view"),
    F("attacks", "list[AttackModel]", "every attack of its file, broken weapons included",
      "profile", attr="all_attacks", dump=lambda v: [_attack_dict(a) for a in v.all_attacks]),
    F("pos", "list[int]", "the (row, column) of its space's anchor square", "state",
      attr="cell", state="c.pos", dump=lambda v: list(v.pos)),
    F("hp", "int", "its current hit points", "state"),
    F("nonlethal", "int", "nonlethal damage (equal to hp: staggered; above: unconscious)",
      "state"),
    F("active", "bool", "able to act", "state"),
    F("dead", "bool", "dead", "state"),
    F("dying", "bool", "below 0 hit points and not stabilized", "view"),
    F("stabilized", "bool", "below 0 hit points, stable", "state", attr="stable"),
    F("disabled", "bool", "at exactly 0 hit points", "view"),
    F("staggered", "bool", "one move or standard action a turn", "view"),
    F("initiative_total", "int", "its initiative result", "state", state="c.initiative"),
    F("aoo_remaining", "int", "attacks of opportunity it can still make this round", "state",
      state="c.profile.aoo_per_round - c.aoo_used"),
    F("charging", "bool", "charged on its last turn (−2 AC)", "view"),
    F("defense_ac_bonus", "int",
      "dodge AC bonus until its next turn (total defense, fighting defensively)", "view"),
    F("aware", "bool", "aware of its opponents (else surprised in the surprise round)",
      "state"),
    F("prone", "bool", "lying on the ground: −4 to attack, −4 AC in melee, +4 AC at range",
      "view"),
    F("running", "bool", "ran on its last turn: no Dex bonus to AC (unless the Run feat)",
      "view"),
    F("delayed", "bool", "delayed its turn this round (it cannot delay again)", "state"),
    F("speed_effective_ft", "int",
      "movement of one move action (halved once when disabled, entangled or exhausted)",
      "view"),
    F("hidden_from", "list[str]", "ids of the enemies it is hidden from, sorted", "state",
      state="tuple(sorted(c.hidden_from)) if c.hidden_from else ()",
      dump=lambda v: list(v.hidden_from)),
    F("weapon_broken", "list[str]", "ids of its broken weapons, in attack order", "state",
      dump=lambda v: [a.id for a in v.all_attacks if a.id in v.weapon_broken]),
    F("readied", "dict[str, str | None] | None", "its readied action waiting for its trigger",
      "readiness", dump=_readied),
    F("aid_attack_bonus", "dict[str, int]", "aid another attack bonuses by opponent id",
      "view"),
    F("aid_ac_bonus", "dict[str, int]", "aid another AC bonuses by opponent id", "view"),
    F("immediate_used", "bool",
      "took an immediate action off-turn: no swift or immediate action until after its turn",
      "readiness"),
    F("run_rounds", "int", "consecutive rounds of running so far (0: the streak is broken)",
      "readiness"),
    F("run_rest_rounds", "int", "rounds before it may run again", "readiness"),
)  # fmt: skip
del F

#: the ``state`` fields, in the order of :class:`CombatantView`'s slots after ``static``,
#: ``width`` and ``effects``
STATE_FIELDS: tuple[PublicField, ...] = tuple(f for f in PUBLIC_FIELDS if f.origin == "state")


#: (JSON key, reader) of every public field, in JSON order
DUMPERS: tuple[tuple[str, Callable[[CombatantView], Any]], ...] = tuple(
    (f.name, f.dump or attrgetter(f.view_attr)) for f in PUBLIC_FIELDS
)


@dataclass(frozen=True, slots=True)
class ProfileView:
    """Static public facts of one combatant (built once per fight)."""

    id: str
    side: str
    profile: CombatantProfile
    #: its spells and the fight's slots left (the state's own object, read when
    #: asked: the menu asks it as the turn starts), ``None`` for a non-caster
    casting: Casting | None = None

    @property
    def attacks(self) -> tuple[AttackProfile, ...]:
        return self.profile.attacks


@dataclass(slots=True)
class CombatantView(LifeStates):
    """Public state of one combatant at the time of the observation.

    A copy made for this observation only: the engine never reads it back, so
    changing it cannot affect the fight (it is not frozen, which makes it
    cheaper to build every turn). The slots after ``static``, ``width`` and
    ``effects`` are the ``state`` fields of :data:`PUBLIC_FIELDS` in list order,
    then the ``readiness`` ones; every other public field is a property. What each
    means: :data:`PUBLIC_FIELDS`.
    """

    static: ProfileView
    width: int
    #: its effects as they were (an immutable :class:`~engine.state.effects.Effects`)
    effects: Effects
    id: str
    side: str
    cell: Cell
    hp: int
    nonlethal: int
    active: bool
    dead: bool
    stable: bool
    initiative_total: int
    aoo_remaining: int
    aware: bool
    delayed: bool
    hidden_from: tuple[str, ...]
    weapon_broken: frozenset[str]
    readied: Readied | None = None
    immediate_used: bool = False
    run_rounds: int = 0
    run_rest_rounds: int = 0

    # -- profile fields (the creature file, for now: no effect changes them yet) ----
    @property
    def profile(self) -> CombatantProfile:
        """Its compiled creature file (as the engine's state holds it)."""
        return self.static.profile

    @property
    def name(self) -> str:
        return self.static.profile.spec.name

    @property
    def level(self) -> int:
        return self.static.profile.spec.level

    @property
    def cr(self) -> str | int | float | None:
        """Its challenge rating as its file writes it (not in the JSON form)."""
        return self.static.profile.spec.cr

    @property
    def size(self) -> str:
        return self.static.profile.spec.size

    @property
    def space(self) -> int:
        """Squares per side of its space, anchored on ``cell`` (Large 2, Huge 3 …)."""
        return self.static.profile.space

    @property
    def pc(self) -> bool:
        return self.static.profile.is_pc

    @property
    def creature_type(self) -> str | None:
        return self.static.profile.spec.creature_type

    @property
    def alignment(self) -> str:
        return self.static.profile.spec.alignment

    @property
    def hp_max(self) -> int:
        return self.static.profile.spec.hp_max

    @property
    def ac(self) -> ACBreakdown:
        """Its Armor Class (``total``, ``touch``, ``flat_footed``)."""
        return self.static.profile.ac

    @property
    def saves(self) -> Saves:
        return self.static.profile.spec.saves

    @property
    def abilities(self) -> AbilityScores:
        return self.static.profile.spec.abilities

    @property
    def bab(self) -> int:
        return self.static.profile.spec.bab

    @property
    def initiative_mod(self) -> int:
        return self.static.profile.spec.initiative_mod

    @property
    def speed_land_ft(self) -> int:
        return self.static.profile.spec.speed_land_ft

    @property
    def speed_fly_ft(self) -> int | None:
        return self.static.profile.spec.speed_fly_ft

    @property
    def dr(self) -> DamageReduction | None:
        return self.static.profile.spec.dr

    @property
    def resistances(self) -> dict[str, int]:
        return self.static.profile.spec.resistances

    @property
    def immunities(self) -> Sequence[str]:
        return self.static.profile.spec.immunities

    @property
    def features(self) -> frozenset[str]:
        """Its feats and features, lower-cased (« multiattack », « run » …)."""
        return self.static.profile.features

    @property
    def conditions(self) -> tuple[str, ...]:
        """The names of its conditions now (the table's, :mod:`engine.state.conditions`),
        sorted; :meth:`condition_states` adds their rounds left."""
        cond = self.effects.cond & TABLE_BITS
        if not cond:
            return ()
        return tuple(sorted(names_of(cond)))

    def condition_states(self) -> list[dict[str, Any]]:
        """Its conditions with their rounds left (JSON form): per condition the
        longest count of the effects that give it, ``None`` when one of them lasts
        until something ends it."""
        effects = self.effects
        out: list[dict[str, Any]] = []
        for name in self.conditions:
            bit = CONDITIONS[name].bit.value
            left: int | None = 0
            for e in effects.items:
                if e.cond & bit:
                    n = effects.rounds_left(e)
                    left = None if n is None or left is None else max(left, n)
            out.append({"name": name, "rounds_left": left})
        return out

    @property
    def active_effects(self) -> list[dict[str, Any]]:
        """Every effect on it (JSON form, built when asked), in the order of its effects."""
        effects = self.effects
        return [
            {
                "source": e.source,
                "modifiers": [
                    {"stat": STAT_NAMES[stat], "value": m.value, "type": m.type.value}
                    for stat, m in e.mods
                ],
                "against": e.against,
                "when": e.when,
                "rounds_left": effects.rounds_left(e),
            }
            for e in effects.items
        ]

    @property
    def bleed(self) -> int:
        """The hit points its bleeding costs per turn (the worst of its bleed effects)."""
        items = self.effects.items
        return max((e.bleed for e in items), default=0) if items else 0

    @property
    def spells(self) -> Sequence[str]:
        """The spells its file lists (not in the JSON form)."""
        return self.static.profile.spec.spells

    @property
    def casting(self) -> Casting | None:
        """Its spells and slots left (:mod:`engine.state.casting`; not in the JSON form)."""
        return self.static.casting

    @property
    def spell_slots(self) -> dict[str, int]:
        """Its spell slots by level (not in the JSON form)."""
        return self.static.profile.spec.spell_slots

    @property
    def casting_ability(self) -> str | None:
        """Its casting ability (not in the JSON form)."""
        return self.static.profile.spec.casting_ability

    @property
    def all_attacks(self) -> tuple[AttackProfile, ...]:
        """Every attack of its file, broken weapons included."""
        return self.static.profile.attacks

    @property
    def attacks(self) -> tuple[AttackProfile, ...]:
        """Its usable attacks (broken weapons left out), as the engine sees them."""
        if not self.weapon_broken:
            return self.static.profile.attacks
        return tuple(a for a in self.static.profile.attacks if a.id not in self.weapon_broken)

    # -- view fields --------------------------------------------------------------
    @property
    def pos(self) -> tuple[int, int]:
        return divmod(self.cell, self.width)

    @property
    def threat_reach_ft(self) -> int:
        """Its longest melee reach, 0 while a condition keeps it from attacking."""
        if self.effects.cond & _NO_THREAT:
            return 0
        return self.static.profile.threat_reach_ft

    @property
    def very_small(self) -> bool:
        """Tiny or smaller: may share a bigger creature's square."""
        return self.static.profile.very_small

    @property
    def cond(self) -> int:
        """The :class:`~engine.state.effects.Cond` bits of its effects."""
        return self.effects.cond

    @property
    def charging(self) -> bool:
        return self.effects.cond & _CHARGING != 0

    @property
    def prone(self) -> bool:
        return self.effects.cond & _PRONE != 0

    @property
    def running(self) -> bool:
        return self.effects.cond & _RUNNING != 0

    @property
    def defense_ac_bonus(self) -> int:
        """The dodge bonus to AC its effects give (total defense, fighting defensively)."""
        items = self.effects.items
        return typed_total(items, MELEE_AC, BonusType.DODGE) if items else 0

    @property
    def speed_effective_ft(self) -> int:
        """Movement of one move action: max(land, fly), plus a spell's enhancement
        bonus, halved (once) when disabled, entangled, exhausted or slowed
        (:attr:`engine.state.state.CombatantState.speed_ft`)."""
        spec = self.static.profile.spec
        speed = max(spec.speed_land_ft, spec.speed_fly_ft or 0)
        fx = self.effects
        if fx.items:
            return effective_speed(speed, fx, self.hp == 0 and not self.dead)
        if self.hp == 0 and not self.dead:  # disabled
            return (speed // 10) * 5
        return speed

    @property
    def speed_ft(self) -> int:
        """:attr:`speed_effective_ft`, under the engine state's name (the rules'
        :class:`~engine.state.fight.Mover`)."""
        return self.speed_effective_ft

    @property
    def aid_attack_bonus(self) -> dict[str, int]:
        return self.aid_bonus("attack")

    @property
    def aid_ac_bonus(self) -> dict[str, int]:
        return self.aid_bonus("ac")

    def aid_bonus(self, mode: str) -> dict[str, int]:
        """Aid another bonuses by opponent id (``mode``: ``attack`` or ``ac``): what its
        conditional effects give its attack rolls or its AC against each opponent."""
        against = self.effects.against
        if not against:
            return {}
        return totals_against(against, ATTACK if mode == "attack" else MELEE_AC)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: every field of :data:`PUBLIC_FIELDS`, in its order."""
        return {name: read(self) for name, read in DUMPERS}


def _compile_build() -> Callable[
    [dict[str, ProfileView], int, Sequence[CombatantState]], tuple[CombatantView, ...]
]:
    args = ", ".join(f.source for f in STATE_FIELDS)
    source = (
        "def build_views(statics, width, combatants):\n"
        f"    return tuple([View(statics[c.id], width, c.effects, {args}) for c in combatants])\n"
    )
    namespace: dict[str, Any] = {"View": CombatantView}
    exec(compile(source, "<engine.view.snapshot.build_views>", "exec"), namespace)
    return namespace["build_views"]


#: ``build_views(statics, width, combatants)``: the views of ``combatants`` (``statics``:
#: their :class:`ProfileView` by id; ``width``: the map's), their ``readiness`` fields at
#: their defaults (:func:`fill_readiness` sets them)
build_views = _compile_build()


def fill_readiness(
    views: Sequence[CombatantView], combatants: Sequence[CombatantState], rnd: int
) -> None:
    """Copy the readiness state of each combatant (:mod:`engine.rules.readiness`) into
    its view (``views`` in ``combatants`` order) in round ``rnd``: the ``readiness``
    fields of :data:`PUBLIC_FIELDS`."""
    for view, c in zip(views, combatants, strict=True):
        view.readied = c.readied
        view.immediate_used = c.immediate_used
        view.run_rounds = c.run_rounds if c.run_last_round >= rnd - 1 else 0
        view.run_rest_rounds = max(0, c.run_rest_until - rnd)
