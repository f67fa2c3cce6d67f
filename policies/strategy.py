"""Strategies: a :class:`StrategySpec` (YAML a user can edit) played by :class:`StrategyPolicy`.

A strategy says how a side fights: whom to target, whether to focus fire, how to
engage, where to stand, when to charge, retreat or turtle, per-combatant and
per-role overrides, and phases that switch behaviour. It is data, validated
once; the policy reads only the Observation and decides at engine speed (no
LLM at play time). Every field changes what the
policy does; the defaults reproduce the heuristic policy exactly.

.. code-block:: yaml

    name: "Archers prudents"
    targets: [most_dangerous, nearest]   # lexicographic priority, then deployment order
    focus: [orc-2]                       # named enemies (id or creature name) before anyone
    focus_fire: true                     # the side keeps one target until it falls
    engagement: ranged                   # any | melee | ranged
    keep_distance_ft: 15                 # withdraw when an enemy is closer than this (0: never)
    positioning: advance                 # advance | hold
    avoid_threatened: true               # never end a plain move in a threatened square
    charge: false                        # never charge
    retreat_below_hp_pct: 25             # withdraw below this share of hit points (0: never)
    total_defense_below_hp_pct: 10       # total defense below this share (0: never)
    target_roles: [healer, ranged]       # enemy roles first, in order (after focus)
    same_target_as: Lead                 # an ally (id or creature name): its target
    prefer_charge: false                 # charge before anything else when possible
    avoid_provoking: true                # no move or shot that provokes (steps instead)
    flank: true                          # move or step to a square that flanks the target
    use_cover: true                      # end on squares with cover from enemy shooters
    hold_zone: { rows: [0, 4], cols: [0, 6] }   # never end a move outside this rectangle
    stance: fight                        # fight | total_defense | withdraw (every turn)
    roles:                               # per combatant id or our own role tag
      goblin: { engagement: melee, keep_distance_ft: 0 }
      ranged: { keep_distance_ft: 30 }   # every ally tagged ranged (an id's role wins)
    combatant_roles:                     # role tags by hand (id or creature name)
      orc-2: [leader]
    phases:                              # the first whose conditions hold applies
      - when: { until_contact: true }
        then: { stance: total_defense }
      - when: { side_down_pct_at_least: 50 }
        then: { stance: withdraw }

The turn, for the acting combatant (the side's fields, then the roles of its
role tags, then the role of its id, then the first phase that holds):

1. no active enemy → wait;
2. ``stance: total_defense`` → total defense; ``stance: withdraw`` → withdraw
   when the menu offers it; hit points below ``retreat_below_hp_pct`` → withdraw
   when the menu offers it; below ``total_defense_below_hp_pct`` → total defense;
3. the target: the last target of ``same_target_as`` while both stand, else
   ``focus_fire``'s shared target while it stands, else the first enemy by
   ``focus``, then ``target_roles``, then ``targets``;
4. a helpless target: a coup de grâce, or the first enemy that is not helpless
   when one threatens the actor (:func:`policies.limits.helpless_choice`); under
   a condition that limits the turn, :func:`policies.limits.limited_plan` (and no
   hit point guard of step 2); a caster then casts what
   :func:`policies.spellcasting.choose_cast` picks, as the heuristic does; prone or
   disabled: as the heuristic (stand up / one action);
5. an enemy closer than ``keep_distance_ft`` → withdraw when offered;
6. attack in the order of ``engagement`` (``any``: the heuristic's order — melee
   in reach, any weapon in range, charge, 5-foot step, a ranged shot at another
   enemy, move then attack; ``melee``: melee weapons only; ``ranged``: ranged
   weapons first, no charge), where ``charge: false`` removes the charge and
   ``positioning: hold`` removes every move but the 5-foot step;
7. no attack possible: ``hold`` readies an attack (or total defense without a
   melee reach); ``advance`` moves toward the target, except that
   ``avoid_threatened`` readies instead when a plain move (no attack after it)
   would end in a threatened square.

``prefer_charge``, ``avoid_provoking``, ``flank``, ``use_cover`` and
``hold_zone`` change how step 6 and 7 pick charges and squares (see
:class:`_Ground`); without them the turn is exactly the code path above, and
without phases, role-tag roles, ``target_roles`` and ``same_target_as`` the
policy keeps no per-turn state (the defaults cost what they cost before).

Role tags (:func:`role_tags`), derived from the creature files, deterministic:
``caster`` (spells, spell slots or a casting ability), ``healer`` (a spell
named « cure … » or « … heal … », a channel energy or lay on hands feature),
``ranged`` (its most damaging attack against AC 15 is a ranged one), ``brute``
(the highest expected melee damage of its side, ties by maximum hit points),
``leader`` (the highest CR of its side — its level without one — strictly above
every other member, in a side of two or more); ``combatant_roles`` adds tags by
hand.

Phase conditions (:class:`Conditions`, all given must hold): ``until_contact``
(``true``: no combatant of the side has yet threatened an enemy or been
threatened by one this fight; ``false``: after), ``side_down_pct_at_least``,
``enemies_down_pct_at_least`` (share of the side, of the enemies, not active),
``own_hp_pct_below``, ``round_at_least``, ``round_at_most``.

Target criteria (``targets``), each a sort key, lower first: ``nearest``
(distance), ``weakest`` (fewest hit points), ``most_wounded`` (lowest share of
its hit points), ``strongest`` (most hit points), ``most_dangerous`` (highest
expected damage per round of its best attack against AC 15), ``ranged_first``
(enemies with a ranged attack), ``engaged`` (enemies an ally already
threatens: gang up and flank).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field, field_validator

from engine.content.actions import (
    Action,
    AttackAction,
    ChargeAction,
    FiveFootStepAction,
    FullAttackAction,
    MoveAction,
    ReadyAction,
    StandUpAction,
    TotalDefenseAction,
    TurnPlan,
    WaitAction,
    WithdrawAction,
)
from engine.content.creatures import AttackProfile, CombatantProfile
from engine.content.maps import Cell
from engine.content.validation import (
    StrictModel,
    empty_dict,
    empty_list,
    load_yaml,
    read_text,
    validate,
)
from engine.state.conditions import HELPLESS
from engine.state.effects import Cond
from engine.view.observation import Observation
from engine.view.snapshot import CombatantView
from policies.limits import LIMITING, helpless_choice, limited_plan
from policies.spellcasting import choose_cast

_HELPLESS = HELPLESS
_LIMITING = LIMITING
#: the prone bit (a plain int: cheaper than the IntFlag member)
_PRONE = Cond.PRONE.value

STRATEGY_SCHEMA = "pf1e-sim/strategy@1"

TargetCriterion = Literal[
    "nearest", "weakest", "most_wounded", "strongest", "most_dangerous", "ranged_first", "engaged"
]
Engagement = Literal["any", "melee", "ranged"]
Positioning = Literal["advance", "hold"]


class Tactics(StrictModel):
    """The fields a side's strategy sets and a role may override."""

    #: enemy priority: criteria compared in order (lexicographic), then deployment order
    targets: list[TargetCriterion] = Field(default_factory=lambda: ["nearest", "weakest"])
    #: named enemies (combatant id or creature name, case-insensitive), first listed first;
    #: they come before every criterion while they stand
    focus: list[str] = Field(default_factory=empty_list)
    #: the side keeps one shared target until it falls (chosen by the first to act)
    focus_fire: bool = False
    #: which weapons: ``any`` (heuristic order), ``melee`` only, ``ranged`` first
    engagement: Engagement = "any"
    #: withdraw when an active enemy is closer than this (feet; 0: never)
    keep_distance_ft: int = Field(default=0, ge=0, le=1000)
    #: ``advance`` toward the target, or ``hold`` the ground (5-foot steps only)
    positioning: Positioning = "advance"
    #: never end a plain move (no attack after it) in a square an enemy threatens
    avoid_threatened: bool = False
    #: allowed to charge
    charge: bool = True
    #: withdraw below this percentage of maximum hit points (0: never)
    retreat_below_hp_pct: int = Field(default=0, ge=0, le=100)
    #: total defense below this percentage of maximum hit points (0: never)
    total_defense_below_hp_pct: int = Field(default=0, ge=0, le=100)


#: a role tag, of an enemy (``target_roles``) or of an ally (``roles`` keys); see
#: :func:`role_tags` for how each is derived
RoleTag = Literal["caster", "healer", "ranged", "brute", "leader"]
ROLE_TAGS: tuple[str, ...] = get_args(RoleTag)
#: ``fight`` (the turn as the other fields say), ``total_defense`` every turn, or
#: ``withdraw`` every turn the menu offers it (else fight)
Stance = Literal["fight", "total_defense", "withdraw"]


class Zone(StrictModel):
    """A rectangle of squares, bounds included: ``{rows: [2, 5], cols: [0, 3]}``."""

    #: first and last row (0 = the map's top row)
    rows: list[int] = Field(min_length=2, max_length=2)
    #: first and last column (0 = the map's left column)
    cols: list[int] = Field(min_length=2, max_length=2)

    @field_validator("rows", "cols")
    @classmethod
    def _ordered(cls, value: list[int]) -> list[int]:
        if value[0] < 0 or value[1] < value[0]:
            raise ValueError("deux entiers attendus, 0 ≤ premier ≤ second")
        return value

    def contains(self, row: int, col: int) -> bool:
        return self.rows[0] <= row <= self.rows[1] and self.cols[0] <= col <= self.cols[1]

    def gap(self, row: int, col: int) -> int:
        """Squares (Chebyshev) from ``(row, col)`` to the zone; 0 inside."""
        dr = max(self.rows[0] - row, 0, row - self.rows[1])
        dc = max(self.cols[0] - col, 0, col - self.cols[1])
        return max(dr, dc)


class Behaviour(Tactics):
    """Every field a side sets and a role or a phase may override: the
    :class:`Tactics` plus targeting by role and the choice of squares."""

    #: enemy roles to target first, in order (after ``focus``, before ``targets``)
    target_roles: list[RoleTag] = Field(default_factory=empty_list)
    #: an ally (id or creature name): target what it last targeted while both stand
    same_target_as: str | None = Field(default=None, min_length=1)
    #: charge before any other attack whenever a charge is possible (needs ``charge``)
    prefer_charge: bool = False
    #: never provoke an attack of opportunity by moving or shooting when another way exists
    avoid_provoking: bool = False
    #: move or step to a square that flanks the target when one is reachable with an attack
    flank: bool = False
    #: prefer end squares with cover against the enemies that have a ranged attack
    use_cover: bool = False
    #: never end a move outside this rectangle (outside it: head back into it)
    hold_zone: Zone | None = None
    #: ``fight``, ``total_defense`` every turn, or ``withdraw`` every turn it can
    stance: Stance = "fight"


class Role(StrictModel):
    """A per-combatant, per-role or per-phase override: every given field replaces the side's."""

    targets: list[TargetCriterion] | None = None
    focus: list[str] | None = None
    focus_fire: bool | None = None
    engagement: Engagement | None = None
    keep_distance_ft: int | None = Field(default=None, ge=0, le=1000)
    positioning: Positioning | None = None
    avoid_threatened: bool | None = None
    charge: bool | None = None
    retreat_below_hp_pct: int | None = Field(default=None, ge=0, le=100)
    total_defense_below_hp_pct: int | None = Field(default=None, ge=0, le=100)
    target_roles: list[RoleTag] | None = None
    same_target_as: str | None = Field(default=None, min_length=1)
    prefer_charge: bool | None = None
    avoid_provoking: bool | None = None
    flank: bool | None = None
    use_cover: bool | None = None
    hold_zone: Zone | None = None
    stance: Stance | None = None


class Conditions(StrictModel):
    """When a phase applies: every given condition must hold (none given: always)."""

    #: ``true``: no contact yet in this fight (no combatant of the side has
    #: threatened an enemy or been threatened by one); ``false``: once contact was made
    until_contact: bool | None = None
    #: at least this percentage of the side (the acting combatant included) is down
    side_down_pct_at_least: int | None = Field(default=None, ge=0, le=100)
    #: at least this percentage of the enemies is down
    enemies_down_pct_at_least: int | None = Field(default=None, ge=0, le=100)
    #: the acting combatant is below this percentage of its maximum hit points
    own_hp_pct_below: int | None = Field(default=None, ge=0, le=100)
    round_at_least: int | None = Field(default=None, ge=0)
    round_at_most: int | None = Field(default=None, ge=0)


class Phase(StrictModel):
    """A switch of behaviour: ``then`` overrides the fields while ``when`` holds."""

    when: Conditions
    then: Role


class StrategySpec(Behaviour):
    """A side's strategy (``pf1e-sim/strategy@1``): its behaviour, roles and phases."""

    name: str | None = None
    #: per combatant id (``goblin-2``…) or per role tag of our own side (``ranged``…):
    #: the fields that differ from the side's (tags in their order, then the id's)
    roles: dict[str, Role] = Field(default_factory=empty_dict)
    #: role tags given by hand, per combatant id or creature name (either side),
    #: added to the derived ones
    combatant_roles: dict[str, list[RoleTag]] = Field(default_factory=empty_dict)
    #: behaviour switches, evaluated each turn: the first whose conditions hold
    #: applies its overrides over the side's and the roles'
    phases: list[Phase] = Field(default_factory=empty_list)

    def tactics_for(
        self, combatant_id: str, tags: tuple[str, ...] = (), phase: int | None = None
    ) -> Behaviour:
        """The side's behaviour with, merged over it in this order, the roles of
        ``tags`` (our own role tags), the role of ``combatant_id`` and the
        overrides of phase number ``phase``."""
        base = {k: getattr(self, k) for k in Behaviour.model_fields}
        overrides = [self.roles.get(tag) for tag in tags]
        overrides.append(self.roles.get(combatant_id))
        if phase is not None:
            overrides.append(self.phases[phase].then)
        for role in overrides:
            if role is not None:
                base.update({k: v for k, v in role.model_dump().items() if v is not None})
                if role.hold_zone is not None:  # model_dump made it a dict
                    base["hold_zone"] = role.hold_zone
        return Behaviour.model_construct(**base)


def strategy_json_schema() -> dict[str, Any]:
    schema = StrategySpec.model_json_schema()
    schema["$id"] = STRATEGY_SCHEMA
    return schema


def load_strategy(path: str | Path) -> StrategySpec:
    """Read and validate a strategy file. :raises DataError: on any problem."""
    text, source = read_text(path, "chemin de stratégie vide")
    return parse_strategy(text, source)


def parse_strategy(text: str, source: str | None = None) -> StrategySpec:
    data = load_yaml(text, source)
    if data is None:
        data = {}
    return validate(StrategySpec, data, source)


def dump_strategy(spec: StrategySpec) -> str:
    """YAML of a spec, only the fields that differ from the defaults (round-trips)."""
    import yaml

    data = json.loads(spec.model_dump_json(exclude_defaults=True))
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


# -- target criteria -----------------------------------------------------------


def danger(profile: CombatantProfile) -> float:
    """Expected damage per round of the best attack against AC 15 (hit chance
    clamped to 5 %–95 %, every swing of its ``count``, criticals ignored)."""
    return max((_expected(a) for a in profile.attacks), default=0.0)


def _expected(a: AttackProfile) -> float:
    chance = min(0.95, max(0.05, (21 + a.attack_bonus - 15) / 20))
    mean = sum(p.dice.mean for p in a.parts) + a.damage_bonus
    return a.count * chance * max(mean, 1.0)


def _distance_ft(a: tuple[int, int], b: tuple[int, int]) -> int:
    """5-10-5 distance between two squares (every second diagonal costs 10 feet)."""
    dr, dc = abs(a[0] - b[0]), abs(a[1] - b[1])
    diag, straight = min(dr, dc), abs(dr - dc)
    return 5 * (straight + diag + diag // 2)


def _engaged(obs: Observation, enemy: CombatantView) -> bool:
    """Some ally of the actor threatens ``enemy`` (the engine's threat rule)."""
    return any(obs.threatens(ally.id, enemy.id) for ally in obs.allies())


#: a target criterion: (observation, enemy, its distance in feet) → sort key, lower first
Criterion = Callable[[Observation, CombatantView, int], Any]
#: the sort key of an enemy (observation, enemy, deployment order, distance): its
#: criteria, then its deployment order (all keys differ)
KeyFunction = Callable[[Observation, CombatantView, int, int], tuple[Any, ...]]


def _criterion(crit: TargetCriterion, dangers: dict[CombatantProfile, float]) -> Criterion:
    """One target criterion as a sort key of an enemy (lower first)."""
    if crit == "nearest":
        return lambda obs, e, d: d
    if crit == "weakest":
        return lambda obs, e, d: e.hp
    if crit == "most_wounded":
        return lambda obs, e, d: e.hp / e.hp_max
    if crit == "strongest":
        return lambda obs, e, d: -e.hp
    if crit == "most_dangerous":

        def most_dangerous(obs: Observation, e: CombatantView, d: int) -> float:
            profile = e.profile
            value = dangers.get(profile)
            if value is None:
                value = dangers[profile] = danger(profile)
            return -value

        return most_dangerous
    if crit == "ranged_first":
        return lambda obs, e, d: 0 if any(not a.is_melee for a in e.attacks) else 1
    return lambda obs, e, d: 0 if _engaged(obs, e) else 1  # engaged


def key_function(
    tactics: Tactics,
    dangers: dict[CombatantProfile, float],
    tags: dict[str, tuple[str, ...]] | None = None,
) -> KeyFunction:
    """The enemy sort key of ``tactics``: ``focus`` rank (when it names anyone),
    ``target_roles`` rank (when it lists any; ``tags``: the role tags of every
    combatant of the fight, filled by the policy), each of ``targets`` in order,
    then the deployment order; built once per tactics, so a turn only calls the
    criteria (``dangers`` caches each profile's danger)."""
    parts: list[Criterion] = []
    if tactics.focus:
        focus = tactics.focus
        parts.append(lambda obs, e, d: _focus_rank(focus, e))
    wanted: list[str] = getattr(tactics, "target_roles", [])
    if wanted:
        book = {} if tags is None else tags
        parts.append(lambda obs, e, d: _role_rank(wanted, book.get(e.id, ())))
    parts.extend(_criterion(crit, dangers) for crit in tactics.targets)
    if not parts:
        return lambda obs, e, i, d: (i,)
    if len(parts) == 1:
        (f,) = parts
        return lambda obs, e, i, d: (f(obs, e, d), i)
    if len(parts) == 2:
        f, g = parts
        return lambda obs, e, i, d: (f(obs, e, d), g(obs, e, d), i)
    return lambda obs, e, i, d: (*[f(obs, e, d) for f in parts], i)


def _focus_rank(focus: list[str], enemy: CombatantView) -> int:
    name = enemy.name.casefold()
    for i, wanted in enumerate(focus):
        if wanted == enemy.id or wanted.casefold() == name:
            return i
    return len(focus)


def _role_rank(wanted: list[str], tags: tuple[str, ...]) -> int:
    for i, tag in enumerate(wanted):
        if tag in tags:
            return i
    return len(wanted)


def _first(item: tuple[tuple[Any, ...], CombatantView]) -> tuple[Any, ...]:
    return item[0]


# -- role tags -------------------------------------------------------------------

#: words of a healing spell's name, and of a healing feature
HEALING_SPELL_WORDS = ("cure", "heal")
HEALING_FEATURE_WORDS = ("channel", "lay on hands")


def _melee_danger(profile: CombatantProfile) -> float:
    return max((_expected(a) for a in profile.attacks if a.is_melee), default=0.0)


def _ranged_danger(profile: CombatantProfile) -> float:
    return max((_expected(a) for a in profile.attacks if not a.is_melee), default=0.0)


def _rank(view: CombatantView) -> tuple[float, int]:
    """(CR, level) of a combatant; its level stands for a missing CR."""
    cr = view.cr
    value: float
    if isinstance(cr, str):
        num, _, den = cr.partition("/")
        try:
            value = float(num) / float(den) if den else float(num)
        except (ValueError, ZeroDivisionError):
            value = float(view.level)
    elif cr is None:
        value = float(view.level)
    else:
        value = float(cr)
    return value, view.level


def profile_tags(view: CombatantView) -> tuple[str, ...]:
    """The role tags a combatant's creature file alone gives (``caster``, ``healer``,
    ``ranged``)."""
    profile = view.profile
    out: list[str] = []
    if view.spells or any(n > 0 for n in view.spell_slots.values()) or view.casting_ability:
        out.append("caster")
    spells = [s.casefold() for s in view.spells]
    if any(w in s for s in spells for w in HEALING_SPELL_WORDS) or any(
        w in f for f in view.features for w in HEALING_FEATURE_WORDS
    ):
        out.append("healer")
    ranged = _ranged_danger(profile)
    if ranged > 0 and ranged >= _melee_danger(profile):
        out.append("ranged")
    return tuple(out)


def role_tags(
    combatants: tuple[CombatantView, ...], explicit: Mapping[str, Sequence[str]]
) -> dict[str, tuple[str, ...]]:
    """The role tags of every combatant of a fight (derived, deterministic):

    * ``caster``: its file lists spells, spell slots or a casting ability;
    * ``healer``: a spell whose name holds « cure » or « heal », or a feature
      naming channel energy or lay on hands;
    * ``ranged``: its most damaging attack (expected damage against AC 15, as
      ``most_dangerous``) is a ranged one;
    * ``brute``: the highest expected melee damage of its side (ties: the most
      maximum hit points; every combatant still tied), when it has a melee attack;
    * ``leader``: the highest CR of its side (its level when it has none; ties:
      the highest level), strictly above every other, in a side of two or more;

    plus the tags of ``explicit`` (by combatant id or creature name, case-insensitive).
    Tags come in the order of :data:`ROLE_TAGS`.
    """
    sides: dict[str, list[CombatantView]] = {}
    for c in combatants:
        sides.setdefault(c.side, []).append(c)
    extra = {k.casefold(): v for k, v in explicit.items()}
    out: dict[str, tuple[str, ...]] = {}
    for members in sides.values():
        brutish = [(_melee_danger(m.profile), m.hp_max) for m in members]
        top = max(brutish)
        ranks = [_rank(m) for m in members]
        best = max(ranks)
        leaders = [r == best for r in ranks]
        lone_leader = len(members) > 1 and leaders.count(True) == 1
        for m, b, lead in zip(members, brutish, leaders, strict=True):
            tags = set(profile_tags(m))
            if b[0] > 0 and b == top:
                tags.add("brute")
            if lone_leader and lead:
                tags.add("leader")
            tags.update(extra.get(m.id.casefold(), ()))
            tags.update(extra.get(m.name.casefold(), ()))
            out[m.id] = tuple(t for t in ROLE_TAGS if t in tags)
    return out


# -- the policy ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Compiled:
    """A combatant's behaviour, with what its turns need prepared once."""

    tactics: Behaviour
    key: KeyFunction
    #: the sort key reads the distance to each enemy
    nearest: bool
    #: a hit point threshold or a stance other than ``fight`` is set
    guard: bool
    #: ``same_target_as``
    mate: str | None
    #: the fields that choose squares and charges (``None``: none is set)
    ground: Behaviour | None


def _compile(t: Behaviour, key: KeyFunction) -> _Compiled:
    guard = bool(t.retreat_below_hp_pct or t.total_defense_below_hp_pct) or t.stance != "fight"
    ground = (
        t.prefer_charge or t.avoid_provoking or t.flank or t.use_cover or t.hold_zone is not None
    )
    return _Compiled(t, key, "nearest" in t.targets, guard, t.same_target_as,
                     t if ground else None)  # fmt: skip


def _every_behaviour(spec: StrategySpec) -> list[Tactics | Role]:
    return [spec, *spec.roles.values(), *(p.then for p in spec.phases)]


class StrategyPolicy:
    """Plays a :class:`StrategySpec` (deterministic; per-fight state only for focus
    fire, ``same_target_as``, the ``until_contact`` condition and role tags)."""

    name = "strategy"

    def __init__(self, spec: StrategySpec) -> None:
        self.spec = spec
        self._tactics: dict[object, _Compiled] = {}
        self._dangers: dict[CombatantProfile, float] = {}
        #: (has a melee attack, has a ranged attack) per profile
        self._arsenals: dict[CombatantProfile, tuple[bool, bool]] = {}
        self._fight: object = None
        #: focus fire: the shared target of each side in the current fight
        self._shared: dict[str, str] = {}
        #: per combatant, the enemy its last turn targeted (``same_target_as``)
        self._last: dict[str, str] = {}
        #: the sides that have made contact this fight (``until_contact``)
        self._contact: set[str] = set()
        #: role tags of every combatant of the fight (filled in place, see key_function)
        self._tags: dict[str, tuple[str, ...]] = {}
        every = _every_behaviour(spec)
        #: role tags that are keys of ``roles``, in their order
        self._tag_roles = tuple(k for k in spec.roles if k in ROLE_TAGS)
        self._track = any(b.same_target_as for b in every)  # type: ignore[union-attr]
        wants_tags = any(b.target_roles for b in every)  # type: ignore[union-attr]
        self._needs_tags = wants_tags or bool(self._tag_roles)
        #: no per-turn state nor per-turn choice of behaviour: the plain path
        self._plain = not (self._needs_tags or self._track or spec.phases)

    def tactics(self, combatant_id: str) -> Behaviour:
        return self._compiled(combatant_id).tactics

    def _compiled(
        self, combatant_id: str, tags: tuple[str, ...] = (), phase: int | None = None
    ) -> _Compiled:
        key: object = combatant_id if not tags and phase is None else (combatant_id, tags, phase)
        hit = self._tactics.get(key)
        if hit is None:
            t = self.spec.tactics_for(combatant_id, tags, phase)
            hit = self._tactics[key] = _compile(t, key_function(t, self._dangers, self._tags))
        return hit

    def decide(self, obs: Observation) -> TurnPlan:
        if self._plain:
            return self._decide(obs, self._compiled(obs.actor.id))
        me = obs.actor
        self._new_fight(obs)
        tags: tuple[str, ...] = ()
        if self._needs_tags:
            if not self._tags:
                self._tags.update(role_tags(obs.combatants, self.spec.combatant_roles))
            if self._tag_roles:
                mine = self._tags.get(me.id, ())
                tags = tuple(t for t in self._tag_roles if t in mine)
        phase = self._phase(obs) if self.spec.phases else None
        plan = self._decide(obs, self._compiled(me.id, tags, phase))
        if self._track:
            self._remember(me.id, plan)
        return plan

    # -- per-fight state ------------------------------------------------------------
    def _new_fight(self, obs: Observation) -> None:
        """Forget the previous fight's state (every turn when fights have no key)."""
        if obs.fight_key != self._fight or self._fight is None:
            self._fight = obs.fight_key
            self._shared = {}
            self._last = {}
            self._contact = set()
            self._tags.clear()

    def _remember(self, ident: str, plan: TurnPlan) -> None:
        for action in plan.actions:
            if (
                isinstance(action, (AttackAction, FullAttackAction, ChargeAction, MoveAction))
                and action.target_id is not None
            ):
                self._last[ident] = action.target_id
                return

    def _mate_target(self, obs: Observation, mate: str) -> CombatantView | None:
        """The active enemy the ally ``mate`` (id or creature name) last targeted."""
        me = obs.actor
        folded = mate.casefold()
        for c in obs.combatants:
            if c.side != me.side or c.id == me.id or not c.active:
                continue
            if c.id != mate and c.name.casefold() != folded:
                continue
            wanted = self._last.get(c.id)
            if wanted is not None:
                enemy = obs.combatant(wanted)
                if enemy.active and enemy.side != me.side:
                    return enemy
        return None

    def _phase(self, obs: Observation) -> int | None:
        for i, phase in enumerate(self.spec.phases):
            if self._holds(obs, phase.when):
                return i
        return None

    def _holds(self, obs: Observation, when: Conditions) -> bool:
        me = obs.actor
        if when.round_at_least is not None and obs.round < when.round_at_least:
            return False
        if when.round_at_most is not None and obs.round > when.round_at_most:
            return False
        if when.own_hp_pct_below is not None:
            pct = 100 * max(me.hp, 0) / me.hp_max
            if not pct < when.own_hp_pct_below:
                return False
        for wanted, ours in ((when.side_down_pct_at_least, True),
                             (when.enemies_down_pct_at_least, False)):  # fmt: skip
            if wanted is not None:
                group = [c for c in obs.combatants if (c.side == me.side) == ours]
                down = sum(1 for c in group if not c.active)
                if 100 * down < wanted * len(group):
                    return False
        if when.until_contact is not None:
            contact = self._contact_made(obs)
            if contact == when.until_contact:
                return False
        return True

    def _contact_made(self, obs: Observation) -> bool:
        """Whether the actor's side has been in contact this fight: one of its
        active combatants threatened by an enemy or threatening one (the engine's
        threat rule, :meth:`Observation.threatens`)."""
        side = obs.actor.side
        if side in self._contact:
            return True
        ours = [c for c in obs.combatants if c.side == side and c.active]
        made = any(
            obs.threatens(e.id, c.id) or obs.threatens(c.id, e.id)
            for c in ours
            for e in obs.enemies()
        )
        if made:
            self._contact.add(side)
        return made

    # -- the turn ---------------------------------------------------------------------
    def _decide(self, obs: Observation, compiled: _Compiled) -> TurnPlan:
        me = obs.actor
        t = compiled.tactics
        enemies = obs.enemies()
        if not enemies:
            return TurnPlan((WaitAction(),), "aucun ennemi actif")
        if compiled.guard and not me.effects.cond & _LIMITING:
            plan = self._low_hp(obs, t)
            if plan is not None:
                return plan
        keep = t.keep_distance_ft
        several = len(enemies) > 1
        # each enemy's distance, once, when the key or the distance kept reads it
        dists: list[int] | None = None
        if keep or (several and compiled.nearest):
            distance = obs.distance_ft
            dists = [distance(e.id) for e in enemies]
        # the first enemy by key; the whole order only when a fallback needs it
        keyed: list[tuple[tuple[Any, ...], CombatantView]] | None = None
        if not several:
            target = enemies[0]
        else:
            key = compiled.key
            if dists is None:
                keyed = [(key(obs, e, i, 0), e) for i, e in enumerate(enemies)]
            else:
                keyed = [(key(obs, e, i, dists[i]), e) for i, e in enumerate(enemies)]
            target = min(keyed, key=_first)[1]
        mate = None if compiled.mate is None else self._mate_target(obs, compiled.mate)
        if mate is not None:
            target = mate
        elif t.focus_fire:
            target = self._shared_target(obs, target, enemies)
        if target.effects.cond & _HELPLESS:
            ordered = [e for _, e in sorted(keyed, key=_first)] if keyed else enemies
            choice = helpless_choice(obs, target, ordered)
            if isinstance(choice, TurnPlan):
                return choice
            target = choice
        if me.effects.cond & _LIMITING:
            return limited_plan(obs, target)
        if me.static.casting is not None:  # a caster's spells, as the heuristic casts them
            cast = choose_cast(obs)
            if cast is not None:
                return cast
        tid = target.id
        # stand up (a move action), then one attack if one can hit; ``prone`` read as
        # its bit (the view's property is a call, and this runs every turn)
        if me.effects.cond & _PRONE:
            weapon = self._weapon(obs, t, tid)
            if weapon is not None and not me.staggered:
                actions = (StandUpAction(), AttackAction(target_id=tid, weapon_id=weapon.id))
                return TurnPlan(actions, "à terre : se relève puis attaque")
            return TurnPlan((StandUpAction(),), "à terre : se relève")
        if me.disabled:
            weapon = self._weapon(obs, t, tid)
            if weapon is not None:
                return TurnPlan(
                    (AttackAction(target_id=tid, weapon_id=weapon.id),),
                    "invalide : une seule attaque",
                )
            if t.positioning == "hold":
                return TurnPlan((TotalDefenseAction(),), "invalide : tient sa position")
            return TurnPlan((MoveAction(target_id=tid),), "invalide : un seul déplacement")
        if dists is not None and keep and min(dists) < keep and obs.can_withdraw():
            return TurnPlan((WithdrawAction(),), f"garde ses distances ({keep} pieds)")
        if compiled.ground is not None:
            return _Ground(obs, compiled.ground, self).engage(tid, enemies, keyed)
        return self._engage(obs, t, tid, enemies, keyed)

    # -- pieces of the turn ------------------------------------------------------
    def _low_hp(self, obs: Observation, t: Behaviour) -> TurnPlan | None:
        me = obs.actor
        stance = t.stance
        if stance == "total_defense":
            return TurnPlan((TotalDefenseAction(),), "défense totale")
        if stance == "withdraw" and not me.prone and obs.can_withdraw():
            return TurnPlan((WithdrawAction(),), "retraite")
        pct = 100 * max(me.hp, 0) / me.hp_max
        retreat = t.retreat_below_hp_pct
        if pct < retreat and not me.prone and obs.can_withdraw():
            return TurnPlan((WithdrawAction(),), f"sous {retreat} % des pv : retraite")
        if pct < t.total_defense_below_hp_pct:
            return TurnPlan(
                (TotalDefenseAction(),),
                f"sous {t.total_defense_below_hp_pct} % des pv : défense totale",
            )
        return None

    def _shared_target(
        self, obs: Observation, own: CombatantView, enemies: list[CombatantView]
    ) -> CombatantView:
        if obs.fight_key != self._fight or self._fight is None:
            self._fight = obs.fight_key
            self._shared = {}
        side = obs.actor.side
        wanted = self._shared.get(side)
        if wanted is not None:
            for e in enemies:
                if e.id == wanted:
                    return e
        self._shared[side] = own.id
        return own

    def _weapon(self, obs: Observation, t: Tactics, tid: str) -> AttackProfile | None:
        """The weapon that can hit ``tid`` now, as ``engagement`` prefers it."""
        if t.engagement == "melee" and self._arsenal(obs)[0]:
            return obs.melee_weapon_for(tid)
        if t.engagement == "ranged":
            ranged = obs.ranged_weapon_for(tid)
            if ranged is not None:
                return ranged
        return obs.weapon_for(tid)[0]

    def _arsenal(self, obs: Observation) -> tuple[bool, bool]:
        """(has a melee attack, has a ranged attack): the actor's usable attacks."""
        me = obs.actor
        if me.weapon_broken:
            attacks = me.attacks
            return any(a.is_melee for a in attacks), any(not a.is_melee for a in attacks)
        profile = me.profile
        hit = self._arsenals.get(profile)
        if hit is None:
            attacks = profile.attacks
            hit = any(a.is_melee for a in attacks), any(not a.is_melee for a in attacks)
            self._arsenals[profile] = hit
        return hit

    @staticmethod
    def _ordered(
        enemies: list[CombatantView], keyed: list[tuple[tuple[Any, ...], CombatantView]] | None
    ) -> list[CombatantView]:
        """The enemies by key (``keyed`` is None when there is only one)."""
        if keyed is None:
            return enemies
        return [e for _k, e in sorted(keyed, key=_first)]

    def _engage(
        self,
        obs: Observation,
        t: Tactics,
        tid: str,
        enemies: list[CombatantView],
        keyed: list[tuple[tuple[Any, ...], CombatantView]] | None,
    ) -> TurnPlan:
        hold = t.positioning == "hold"
        mode = t.engagement
        if mode != "any":
            has_melee, has_ranged = self._arsenal(obs)
            if not (has_melee if mode == "melee" else has_ranged):
                mode = "any"
        actions: tuple[Action, ...]
        if mode == "ranged":
            ranged = obs.ranged_weapon_for(tid)
            if ranged is not None:
                actions = (FullAttackAction(target_id=tid, weapon_id=ranged.id),)
                return TurnPlan(actions, "tir à outrance")
            for enemy in self._ordered(enemies, keyed):
                ranged = obs.ranged_weapon_for(enemy.id)
                if ranged is not None:
                    actions = (FullAttackAction(target_id=enemy.id, weapon_id=ranged.id),)
                    return TurnPlan(actions, "tir à outrance (autre cible)")
        melee = obs.melee_weapon_for(tid)
        if melee is not None:
            actions = (FullAttackAction(target_id=tid, weapon_id=melee.id),)
            return TurnPlan(actions, "au contact : attaque à outrance")
        if mode == "any":
            weapon, _ = obs.weapon_for(tid)
            if weapon is not None:
                actions = (FullAttackAction(target_id=tid, weapon_id=weapon.id),)
                return TurnPlan(actions, "à portée de tir")
        if t.charge and not hold and mode != "ranged" and obs.charge(tid).ok:
            return TurnPlan((ChargeAction(target_id=tid),), "ligne droite dégagée : charge")
        if mode != "ranged" and obs.can_step5_to_attack(tid):
            actions = (FiveFootStepAction(target_id=tid), FullAttackAction(target_id=tid))
            return TurnPlan(actions, "un pas de placement puis attaque à outrance")
        if mode == "any":
            for enemy in self._ordered(enemies, keyed):
                weapon, _ = obs.weapon_for(enemy.id)
                if weapon is not None:
                    actions = (FullAttackAction(target_id=enemy.id, weapon_id=weapon.id),)
                    return TurnPlan(actions, "à portée de tir")
        if hold:
            return self._wait_for_them(obs, "tient sa position")
        after = obs.weapon_after_move(tid)
        if after is not None and (mode == "any" or (mode == "melee") == after.is_melee):
            weapon_id = None if mode == "any" else after.id  # as the heuristic: the engine's pick
            actions = (MoveAction(target_id=tid), AttackAction(target_id=tid, weapon_id=weapon_id))
            return TurnPlan(actions, "approche puis attaque")
        if t.avoid_threatened:
            path = obs.move_toward(tid)
            if path.cells and obs.threatened_at(path.cells[-1], obs.actor.space):
                return self._wait_for_them(obs, "évite les cases menacées")
        return TurnPlan((MoveAction(target_id=tid),), "approche")

    @staticmethod
    def _wait_for_them(obs: Observation, why: str) -> TurnPlan:
        if obs.actor.threat_reach_ft > 0:
            ready = ReadyAction(ready_trigger="enemy_enters_reach")
            return TurnPlan((ready,), f"{why} : prépare une attaque")
        return TurnPlan((TotalDefenseAction(),), f"{why} : défense totale")


class _Ground:
    """One turn of a combatant whose behaviour chooses its squares and charges
    (``prefer_charge``, ``avoid_provoking``, ``flank``, ``use_cover``,
    ``hold_zone``): the order of :meth:`StrategyPolicy._engage`, where

    * ``prefer_charge`` tries the charge first;
    * ``avoid_provoking`` drops every charge or move whose walk leaves a
      threatened square (all of them from a threatened square), steps out of a
      threatened square before a ranged shot when a step keeps the shot (without
      such a step, a melee attack on whoever it reaches comes before the shot),
      then from a threatened square attacks in melee whoever it reaches, else
      steps toward the target; other moves go to the best square whose walk
      provokes nothing, and a move without an attack never ends on a threatened
      square;
    * ``flank`` steps (already in reach) or moves (before a charge) to a square
      from which the attack flanks the target;
    * ``use_cover`` steps before shooting, and ends its moves, on squares with
      cover against more of the enemies that have a ranged attack;
    * ``hold_zone`` keeps every charge, step and move ending inside the zone
      (from outside it: closer to it, between the actor and the zone).

    Without anything better than the heuristic's square, the heuristic's plan
    stands (the engine's own path and step).
    """

    def __init__(self, obs: Observation, t: Behaviour, policy: StrategyPolicy) -> None:
        self.obs = obs
        self.t = t
        self.policy = policy
        self.here = obs.actor.cell
        self.width = obs.map.width
        self._threatened_here: bool | None = None
        self._shooters: list[str] | None = None
        self._covers: dict[Cell, int] = {}

    # -- squares ----------------------------------------------------------------------
    def rc(self, cell: Cell) -> tuple[int, int]:
        return divmod(cell, self.width)

    @property
    def threatened_here(self) -> bool:
        """``avoid_provoking`` and the actor stands on a threatened square."""
        if self._threatened_here is None:
            self._threatened_here = self.t.avoid_provoking and self.obs.threatened_at(
                self.here, self.obs.actor.space
            )
        return self._threatened_here

    def zone_ok(self, cell: Cell) -> bool:
        zone = self.t.hold_zone
        if zone is None or zone.contains(*self.rc(cell)):
            return True
        # from outside the zone, only toward it: closer, between here and the zone
        (hr, hc), (r, c) = self.rc(self.here), self.rc(cell)
        return (
            not zone.contains(hr, hc)
            and zone.gap(r, c) < zone.gap(hr, hc)
            and min(hr, zone.rows[0]) <= r <= max(hr, zone.rows[1])
            and min(hc, zone.cols[0]) <= c <= max(hc, zone.cols[1])
        )

    def safe(self, cells: tuple[Cell, ...]) -> bool:
        """A walk that leaves no threatened square (always, without ``avoid_provoking``)."""
        if not self.t.avoid_provoking or not cells:
            return True
        if self.threatened_here:
            return False
        threatened, k = self.obs.threatened_at, self.obs.actor.space
        return not any(threatened(c, k) for c in cells[:-1])

    def walk_ok(self, cells: tuple[Cell, ...]) -> bool:
        return self.safe(cells) and (not cells or self.zone_ok(cells[-1]))

    def cover(self, cell: Cell) -> int:
        """Enemies with a ranged attack against which ``cell`` has cover (``use_cover``)."""
        if not self.t.use_cover:
            return 0
        hit = self._covers.get(cell)
        if hit is None:
            if self._shooters is None:
                self._shooters = [
                    e.id for e in self.obs.enemies() if any(not a.is_melee for a in e.attacks)
                ]
            cover_from = self.obs.cover_from
            hit = self._covers[cell] = sum(1 for e in self._shooters if cover_from(cell, e) > 0)
        return hit

    def score(self, cell: Cell, tid: str) -> tuple[int, int]:
        """Lower is better: flanking the target (``flank``), then cover (``use_cover``)."""
        flank = 0 if self.t.flank and self.obs.flanking_from(cell, tid) else 1
        return flank, -self.cover(cell)

    def dest(self, cell: Cell) -> tuple[int, int]:
        return self.rc(cell)

    # -- the turn -----------------------------------------------------------------------
    def engage(
        self,
        tid: str,
        enemies: list[CombatantView],
        keyed: list[tuple[tuple[Any, ...], CombatantView]] | None,
    ) -> TurnPlan:
        obs, t, policy = self.obs, self.t, self.policy
        hold = t.positioning == "hold"
        mode = t.engagement
        if mode != "any":
            has_melee, has_ranged = policy._arsenal(obs)  # pyright: ignore[reportPrivateUsage]
            if not (has_melee if mode == "melee" else has_ranged):
                mode = "any"
        may_charge = t.charge and not hold and mode != "ranged"
        if t.prefer_charge and may_charge:
            plan = self.charge(tid)
            if plan is not None:
                return plan
        ordered = policy._ordered(enemies, keyed)  # pyright: ignore[reportPrivateUsage]
        if mode == "ranged":
            for enemy in (self.obs.combatant(tid), *ordered):
                ranged = obs.ranged_weapon_for(enemy.id)
                if ranged is not None:
                    plan = self.shoot(enemy.id, ranged, "tir à outrance")
                    if plan is not None:
                        return plan
        melee = obs.melee_weapon_for(tid)
        if melee is not None:
            if t.flank and not obs.flanking_from(self.here, tid):
                cell = self.step_to_attack(tid, flanking=True)
                if cell is not None:
                    return self.step_attack(cell, tid, "pas de placement pour prendre en tenaille")
            actions: tuple[Action, ...] = (FullAttackAction(target_id=tid, weapon_id=melee.id),)
            return TurnPlan(actions, "au contact : attaque à outrance")
        if mode == "any":
            weapon, _ = obs.weapon_for(tid)
            if weapon is not None:
                plan = self.shoot(tid, weapon, "à portée de tir")
                if plan is not None:
                    return plan
        if t.flank and not hold and mode != "ranged":
            plan = self.move_attack(tid, "melee", flanking=True)
            if plan is not None:
                return plan
        if may_charge and not t.prefer_charge:
            plan = self.charge(tid)
            if plan is not None:
                return plan
        if mode != "ranged":
            if obs.can_step5_to_attack(tid) and not (t.flank or t.use_cover or t.hold_zone):
                actions = (FiveFootStepAction(target_id=tid), FullAttackAction(target_id=tid))
                return TurnPlan(actions, "un pas de placement puis attaque à outrance")
            cell = self.step_to_attack(tid)
            if cell is not None:
                return self.step_attack(cell, tid, "un pas de placement puis attaque à outrance")
        if mode == "any":
            for enemy in ordered:
                weapon, _ = obs.weapon_for(enemy.id)
                if weapon is not None:
                    plan = self.shoot(enemy.id, weapon, "à portée de tir")
                    if plan is not None:
                        return plan
        if self.threatened_here:  # every move provokes: fight whoever is in reach, or step
            for enemy in ordered:
                melee = obs.melee_weapon_for(enemy.id)
                if melee is not None:
                    actions = (FullAttackAction(target_id=enemy.id, weapon_id=melee.id),)
                    return TurnPlan(actions, "au contact, sans provoquer : attaque à outrance")
            return self.step_closer(tid)
        if hold:
            return policy._wait_for_them(obs, "tient sa position")  # pyright: ignore[reportPrivateUsage]
        plan = self.move_attack(tid, mode)
        if plan is None:
            plan = self.approach(tid)
        if plan is None:
            why = "évite les attaques d'opportunité" if t.avoid_provoking else "reste dans sa zone"
            plan = policy._wait_for_them(obs, why)  # pyright: ignore[reportPrivateUsage]
        return plan

    def charge(self, tid: str) -> TurnPlan | None:
        res = self.obs.charge(tid)
        if not res.ok or (res.path is not None and not self.walk_ok(res.path.cells)):
            return None
        return TurnPlan((ChargeAction(target_id=tid),), "ligne droite dégagée : charge")

    def shoot(self, eid: str, weapon: AttackProfile, why: str) -> TurnPlan | None:
        """A full attack on ``eid``, after a 5-foot step out of a threatened square
        (``avoid_provoking``) or into cover (``use_cover``) that keeps the shot;
        ``None`` for a shot that would provoke while a melee attack reaches an enemy."""
        obs = self.obs
        if not weapon.is_melee and (self.threatened_here or self.t.use_cover):
            avoid = self.t.avoid_provoking
            steps = [
                c
                for c in obs.step_squares()
                if self.zone_ok(c)
                and not (avoid and obs.threatened_at(c, obs.actor.space))
                and obs.weapon_from(c, eid, kind="ranged") is not None
            ]
            if steps:
                best = min(steps, key=lambda c: (-self.cover(c), c))
                if self.threatened_here or self.cover(best) > self.cover(self.here):
                    shot = obs.weapon_from(best, eid, kind="ranged")
                    assert shot is not None
                    actions: tuple[Action, ...] = (
                        FiveFootStepAction(destination=self.dest(best)),
                        FullAttackAction(target_id=eid, weapon_id=shot.id),
                    )
                    return TurnPlan(actions, f"un pas de placement puis {why}")
            if self.threatened_here and any(
                obs.melee_weapon_for(e.id) is not None for e in obs.enemies()
            ):
                return None
        return TurnPlan((FullAttackAction(target_id=eid, weapon_id=weapon.id),), why)

    def step_to_attack(self, tid: str, *, flanking: bool = False) -> Cell | None:
        """The best 5-foot step square with the target in melee reach (flanking it)."""
        obs = self.obs
        steps = [
            c
            for c in obs.step_squares()
            if self.zone_ok(c)
            and obs.weapon_from(c, tid, kind="melee") is not None
            and (not flanking or obs.flanking_from(c, tid))
        ]
        return min(steps, key=lambda c: (*self.score(c, tid), c), default=None)

    def step_attack(self, cell: Cell, tid: str, why: str) -> TurnPlan:
        weapon = self.obs.weapon_from(cell, tid, kind="melee")
        actions = (
            FiveFootStepAction(destination=self.dest(cell)),
            FullAttackAction(target_id=tid, weapon_id=None if weapon is None else weapon.id),
        )
        return TurnPlan(actions, why)

    def step_closer(self, tid: str) -> TurnPlan:
        """From a threatened square: a 5-foot step toward the target, then wait for it."""
        obs = self.obs
        target = obs.combatant(tid).pos
        here = _distance_ft(self.rc(self.here), target)
        steps = [(_distance_ft(self.rc(c), target), c) for c in obs.step_squares()
                 if self.zone_ok(c)]  # fmt: skip
        wait = self.policy._wait_for_them(obs, "évite les attaques d'opportunité")  # pyright: ignore[reportPrivateUsage]
        best = min(steps, default=None)
        if best is None or best[0] >= here:
            return wait
        step = FiveFootStepAction(destination=self.dest(best[1]))
        return TurnPlan((step, *wait.actions), f"un pas sans provoquer, puis {wait.rationale}")

    def _walked(self, cell: Cell) -> bool:
        path = self.obs.path_to(cell)
        return (
            path is not None
            and bool(path.cells)
            and path.cells[-1] == cell
            and (self.safe(path.cells))
        )

    def move_attack(self, tid: str, mode: str, *, flanking: bool = False) -> TurnPlan | None:
        """A move, then one attack on the target: the heuristic's move unless a
        square scores better (flanking, cover) or its walk is not allowed."""
        obs = self.obs
        if self.threatened_here:
            return None
        path = obs.move_toward(tid)
        after = obs.weapon_after_move(tid)
        end = path.cells[-1] if path.cells else self.here
        default = (
            after is not None
            and (mode == "any" or (mode == "melee") == after.is_melee)
            and self.walk_ok(path.cells)
            and (not flanking or obs.flanking_from(end, tid))
        )
        kind = "melee" if flanking else mode
        if default and after is not None and not (self.t.flank or self.t.use_cover):
            return self._default_move_attack(tid, mode, after)
        moves = obs.move_squares()
        cells = [
            c
            for c in moves
            if self.zone_ok(c)
            and obs.weapon_from(c, tid, kind=kind) is not None
            and (not flanking or obs.flanking_from(c, tid))
        ]
        bar = self.score(end, tid) if default else None
        for c in sorted(cells, key=lambda c: (*self.score(c, tid), moves[c], c)):
            if bar is not None and self.score(c, tid) >= bar:
                break
            if self._walked(c):
                weapon = obs.weapon_from(c, tid, kind=kind)
                assert weapon is not None
                actions = (
                    MoveAction(destination=self.dest(c)),
                    AttackAction(target_id=tid, weapon_id=weapon.id),
                )
                why = "se place en tenaille puis attaque" if flanking else "approche puis attaque"
                return TurnPlan(actions, why)
        if default and after is not None:
            return self._default_move_attack(tid, mode, after)
        return None

    @staticmethod
    def _default_move_attack(tid: str, mode: str, after: AttackProfile) -> TurnPlan:
        weapon_id = None if mode == "any" else after.id  # as the heuristic: the engine's pick
        actions = (MoveAction(target_id=tid), AttackAction(target_id=tid, weapon_id=weapon_id))
        return TurnPlan(actions, "approche puis attaque")

    def approach(self, tid: str) -> TurnPlan | None:
        """A move toward the target without an attack: the heuristic's move unless
        a square scores better (cover; from outside the zone, closer to it) or its
        walk is not allowed."""
        obs, t = self.obs, self.t
        if self.threatened_here:
            return None
        threatened, k = obs.threatened_at, obs.actor.space
        # a plain move never ends where the next move would provoke (avoid_provoking)
        wary = t.avoid_threatened or t.avoid_provoking
        path = obs.move_toward(tid)
        default = (
            bool(path.cells)
            and self.walk_ok(path.cells)
            and not (wary and threatened(path.cells[-1], k))
        )
        if default and not t.use_cover and t.hold_zone is None:
            return TurnPlan((MoveAction(target_id=tid),), "approche")
        target = obs.combatant(tid).pos
        zone = t.hold_zone
        outside = zone is not None and not zone.contains(*self.rc(self.here))
        here = _distance_ft(self.rc(self.here), target)
        moves = obs.move_squares()

        def key(c: Cell) -> tuple[int, int, int, int, Cell]:
            rc = self.rc(c)
            gap = zone.gap(*rc) if outside and zone is not None else 0
            return gap, -self.cover(c), _distance_ft(rc, target), moves.get(c, 0), c

        cells = [
            c
            for c in moves
            if self.zone_ok(c)
            and (outside or _distance_ft(self.rc(c), target) < here)
            and not (wary and threatened(c, k))
        ]
        bar = key(path.cells[-1])[:3] if default else None
        for c in sorted(cells, key=key):
            if bar is not None and key(c)[:3] >= bar:
                break
            if self._walked(c):
                return TurnPlan((MoveAction(destination=self.dest(c)),), "approche")
        return TurnPlan((MoveAction(target_id=tid),), "approche") if default else None
