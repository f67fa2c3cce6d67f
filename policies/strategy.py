"""Strategies: a :class:`StrategySpec` (YAML a user can edit) played by :class:`StrategyPolicy`.

A strategy says how a side fights: whom to target, whether to focus fire, how to
engage, where to stand, when to charge, retreat or turtle, and per-combatant
overrides. It is data, validated once; the policy reads only the Observation and
decides at engine speed (no LLM at play time). Every field changes what the
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
    roles:                               # per combatant id: only the fields that differ
      goblin: { engagement: melee, keep_distance_ft: 0 }

The turn, for the acting combatant (its role's fields merged over the side's):

1. no active enemy → wait;
2. hit points below ``retreat_below_hp_pct`` → withdraw when the menu offers it;
   below ``total_defense_below_hp_pct`` → total defense;
3. the target: ``focus_fire``'s shared target while it stands, else the first
   enemy by ``focus`` then ``targets``;
4. prone or disabled: as the heuristic (stand up / one action);
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

Target criteria (``targets``), each a sort key, lower first: ``nearest``
(distance), ``weakest`` (fewest hit points), ``most_wounded`` (lowest share of
its hit points), ``strongest`` (most hit points), ``most_dangerous`` (highest
expected damage per round of its best attack against AC 15), ``ranged_first``
(enemies with a ranged attack), ``engaged`` (enemies already in melee reach of
an ally: gang up and flank).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from engine.actions import (
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
from engine.creatures import AttackProfile, CombatantProfile
from engine.observation import CombatantView, Observation
from engine.validation import StrictModel, load_yaml, read_text, validate

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
    focus: list[str] = Field(default_factory=list)
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


class Role(StrictModel):
    """A per-combatant override: every given field replaces the side's."""

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


class StrategySpec(Tactics):
    """A side's strategy (``pf1e-sim/strategy@1``): tactics plus per-combatant roles."""

    name: str | None = None
    #: per combatant id (``goblin-1``…): the fields that differ from the side's
    roles: dict[str, Role] = Field(default_factory=dict)

    def tactics_for(self, combatant_id: str) -> Tactics:
        """The side's tactics with the role of ``combatant_id`` merged over them."""
        role = self.roles.get(combatant_id)
        base = {k: getattr(self, k) for k in Tactics.model_fields}
        if role is not None:
            base.update({k: v for k, v in role.model_dump().items() if v is not None})
        return Tactics.model_construct(**base)


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
    pos = enemy.pos
    return any(0 < _distance_ft(ally.pos, pos) <= ally.threat_reach_ft for ally in obs.allies())


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
        return lambda obs, e, d: e.hp / e.static.profile.spec.hp_max
    if crit == "strongest":
        return lambda obs, e, d: -e.hp
    if crit == "most_dangerous":

        def most_dangerous(obs: Observation, e: CombatantView, d: int) -> float:
            profile = e.static.profile
            value = dangers.get(profile)
            if value is None:
                value = dangers[profile] = danger(profile)
            return -value

        return most_dangerous
    if crit == "ranged_first":
        return lambda obs, e, d: 0 if any(not a.is_melee for a in e.attacks) else 1
    return lambda obs, e, d: 0 if _engaged(obs, e) else 1  # engaged


def key_function(tactics: Tactics, dangers: dict[CombatantProfile, float]) -> KeyFunction:
    """The enemy sort key of ``tactics``: ``focus`` rank (when it names anyone), each
    of ``targets`` in order, then the deployment order; built once per tactics, so a
    turn only calls the criteria (``dangers`` caches each profile's danger)."""
    parts: list[Criterion] = []
    if tactics.focus:
        focus = tactics.focus
        parts.append(lambda obs, e, d: _focus_rank(focus, e))
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


@dataclass(frozen=True, slots=True)
class _Compiled:
    """A combatant's tactics, with what its turns need prepared once."""

    tactics: Tactics
    key: KeyFunction
    #: the sort key reads the distance to each enemy
    nearest: bool


def _focus_rank(focus: list[str], enemy: CombatantView) -> int:
    name = enemy.static.profile.spec.name.casefold()
    for i, wanted in enumerate(focus):
        if wanted == enemy.id or wanted.casefold() == name:
            return i
    return len(focus)


def _first(item: tuple[tuple[Any, ...], CombatantView]) -> tuple[Any, ...]:
    return item[0]


# -- the policy ----------------------------------------------------------------


class StrategyPolicy:
    """Plays a :class:`StrategySpec` (deterministic; per-fight state only for focus fire)."""

    name = "strategy"

    def __init__(self, spec: StrategySpec) -> None:
        self.spec = spec
        self._tactics: dict[str, _Compiled] = {}
        self._dangers: dict[CombatantProfile, float] = {}
        #: (has a melee attack, has a ranged attack) per profile
        self._arsenals: dict[CombatantProfile, tuple[bool, bool]] = {}
        self._fight: object = None
        #: focus fire: the shared target of each side in the current fight
        self._shared: dict[str, str] = {}

    def tactics(self, combatant_id: str) -> Tactics:
        return self._compiled(combatant_id).tactics

    def _compiled(self, combatant_id: str) -> _Compiled:
        hit = self._tactics.get(combatant_id)
        if hit is None:
            t = self.spec.tactics_for(combatant_id)
            key = key_function(t, self._dangers)
            hit = self._tactics[combatant_id] = _Compiled(t, key, "nearest" in t.targets)
        return hit

    def decide(self, obs: Observation) -> TurnPlan:
        me = obs.actor
        compiled = self._compiled(me.id)
        t = compiled.tactics
        enemies = obs.enemies()
        if not enemies:
            return TurnPlan((WaitAction(),), "aucun ennemi actif")
        if t.retreat_below_hp_pct or t.total_defense_below_hp_pct:
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
        if t.focus_fire:
            target = self._shared_target(obs, target, enemies)
        tid = target.id
        if me.prone:  # stand up (a move action), then one attack if one can hit
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
        return self._engage(obs, t, tid, enemies, keyed)

    # -- pieces of the turn ------------------------------------------------------
    def _low_hp(self, obs: Observation, t: Tactics) -> TurnPlan | None:
        me = obs.actor
        pct = 100 * max(me.hp, 0) / me.static.profile.spec.hp_max
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
        profile = me.static.profile
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
            if path.cells and obs.threatened_at(path.cells[-1]):
                return self._wait_for_them(obs, "évite les cases menacées")
        return TurnPlan((MoveAction(target_id=tid),), "approche")

    @staticmethod
    def _wait_for_them(obs: Observation, why: str) -> TurnPlan:
        if obs.actor.threat_reach_ft > 0:
            ready = ReadyAction(ready_trigger="enemy_enters_reach")
            return TurnPlan((ready,), f"{why} : prépare une attaque")
        return TurnPlan((TotalDefenseAction(),), f"{why} : défense totale")
