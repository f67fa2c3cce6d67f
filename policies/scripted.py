"""Scripted policy: ordered rules with simple conditions, read from YAML.

A script is a list of rules tried in order each turn. A rule applies when all
its conditions hold and the engine's legal-options menu contains a matching
option; the first rule that applies decides the turn. If none applies, the
``fallback`` decides (the heuristic policy by default, or ``wait``). Because a
script can only pick options from the menu, it never produces an action the
engine rejects.

.. code-block:: yaml

    name: "Archer prudent"
    fallback: heuristic
    rules:
      - if: { own_hp_pct_below: 34 }
        do: withdraw
      - if: { target_in_range: true }
        do: full_attack
        target: weakest
        weapon: short-bow
      - do: move_attack
        target: nearest

``do`` is an option kind of :mod:`engine.view.options`. ``target`` selects among the
active enemies: ``nearest`` (default), ``weakest`` (fewest hit points),
``strongest`` (most hit points), ``first`` (deployment order) or a combatant id;
ties go to deployment order. ``weapon`` restricts the option to one attack id.
``ready`` may name its ``trigger``; ``aid_another`` aids an ally (``ally``: an
id, any if absent) against the ``target`` enemy, with ``mode`` ``attack`` or
``ac`` (either if absent).

``cast_spell`` (and ``defensive_cast_spell``) casts ``spell`` (a name, any known
spell if absent) at ``target``: an enemy selector as above, ``self``,
``dying_ally`` (the first ally of the actor below 0 hit points, not dead),
``hurt_ally`` (the creature of its side, itself included, with the lowest share
of its hit points, when below its maximum), a combatant id (for an area: a
placement aimed at one of its squares), or ``area``: the menu's first placement
of the spell's area (the one that catches the most enemies, then the fewest
allies) or its area centred on the caster.

.. code-block:: yaml

    rules:
      - do: cast_spell
        spell: cure light wounds
        target: dying_ally
      - if: { enemies_at_least: 2 }
        do: cast_spell
        spell: sleep
        target: area
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from engine.content.actions import Option, ReadyTrigger, TurnPlan, WaitAction
from engine.content.creatures import slug
from engine.content.validation import StrictModel, load_yaml, read_text, validate
from engine.core.errors import DataError
from engine.view.observation import Observation
from engine.view.snapshot import CombatantView
from policies.heuristic import HeuristicPolicy

OptionKind = Literal[
    "full_attack",
    "defensive_full_attack",
    "attack",
    "charge",
    "step_full_attack",
    "move_attack",
    "move",
    "withdraw",
    "total_defense",
    "drop_prone",
    "stand_up",
    "run",
    "stand_attack",
    "delay",
    "repair_weapon",
    "hide",
    "tumble",
    "ready",
    "aid_another",
    "coup_de_grace",
    "cast_spell",
    "defensive_cast_spell",
    "wait",
]
TARGETED = frozenset(
    {
        "full_attack",
        "defensive_full_attack",
        "attack",
        "charge",
        "step_full_attack",
        "move_attack",
        "move",
        "stand_attack",
        "run",
        "tumble",
        "coup_de_grace",
    }
)
WITH_WEAPON = frozenset(
    {
        "full_attack",
        "defensive_full_attack",
        "attack",
        "move_attack",
        "stand_attack",
        "coup_de_grace",
    }
)
#: option kinds whose id is ``<kind>:<weapon>`` (no target)
WEAPON_ONLY = frozenset({"repair_weapon"})
#: ``aid_another:<ally>:<opponent>:<mode>``: ``target`` selects the opponent
AID = "aid_another"
#: ``cast_spell:<spell>[:<target or row,col>]``: ``spell`` and ``target`` select it
CASTS = frozenset({"cast_spell", "defensive_cast_spell"})
#: the ``target`` selectors of a cast beyond the enemy ones
CAST_TARGETS = frozenset({"self", "dying_ally", "hurt_ally", "area"})


class Conditions(StrictModel):
    """Every given condition must hold (all are optional)."""

    round_at_least: int | None = Field(default=None, ge=0)
    round_at_most: int | None = Field(default=None, ge=0)
    own_hp_pct_below: int | None = Field(default=None, ge=0, le=100)
    own_hp_pct_at_least: int | None = Field(default=None, ge=0, le=100)
    enemies_at_least: int | None = Field(default=None, ge=0)
    enemies_at_most: int | None = Field(default=None, ge=0)
    allies_at_least: int | None = Field(default=None, ge=0)
    allies_at_most: int | None = Field(default=None, ge=0)
    #: a melee weapon of the actor reaches the selected target now
    target_in_reach: bool | None = None
    #: some weapon of the actor can hit the selected target now
    target_in_range: bool | None = None
    #: the actor is disabled (0 hp: a single action)
    disabled: bool | None = None


class Rule(StrictModel):
    when: Conditions = Field(default_factory=Conditions, alias="if")
    do: OptionKind
    target: str = Field(default="nearest", min_length=1)
    weapon: str | None = Field(default=None, min_length=1)
    #: ``ready`` only: the trigger to wait for (any offered one if absent)
    trigger: ReadyTrigger | None = None
    #: ``aid_another`` only: the ally to aid (an id; any if absent) and how
    ally: str | None = Field(default=None, min_length=1)
    mode: Literal["attack", "ac"] | None = None
    #: ``cast_spell`` only: the spell to cast (a name; any if absent)
    spell: str | None = Field(default=None, min_length=1)


class Script(StrictModel):
    """A scripted policy file."""

    name: str | None = None
    fallback: Literal["heuristic", "wait"] = "heuristic"
    rules: list[Rule] = Field(min_length=1)


def spell_id(name: str) -> str:
    """The id of a spell name, as the menu's options name it (its slug)."""
    return slug(name.replace("'", "").replace("’", ""))


def load_script(path: str | Path) -> Script:
    """Read and validate a script file. :raises DataError: on any problem."""
    text, source = read_text(path, "chemin de script vide")
    return parse_script(text, source)


def parse_script(text: str, source: str | None = None) -> Script:
    script = validate(Script, load_yaml(text, source), source)
    for i, rule in enumerate(script.rules):
        if rule.trigger is not None and rule.do != "ready":
            raise DataError("« trigger » n'a de sens qu'avec ready", source=source,
                            location=f"rules[{i}].trigger")  # fmt: skip
        if rule.spell is not None and rule.do not in CASTS:
            raise DataError("« spell » n'a de sens qu'avec cast_spell", source=source,
                            location=f"rules[{i}].spell")  # fmt: skip
        for key in ("ally", "mode"):
            if getattr(rule, key) is not None and rule.do != AID:
                raise DataError(f"« {key} » n'a de sens qu'avec aid_another", source=source,
                                location=f"rules[{i}].{key}")  # fmt: skip
        if rule.weapon is not None and rule.do not in WITH_WEAPON | WEAPON_ONLY:
            raise DataError(
                f"« weapon » n'a de sens qu'avec {', '.join(sorted(WITH_WEAPON | WEAPON_ONLY))}",
                source=source,
                location=f"rules[{i}].weapon",
            )
    return script


def _pick_target(obs: Observation, selector: str) -> CombatantView | None:
    enemies = obs.enemies()
    if not enemies:
        return None
    order = {c.id: i for i, c in enumerate(obs.combatants)}
    if selector == "nearest":
        return min(enemies, key=lambda e: (obs.distance_ft(e.id), order[e.id]))
    if selector == "weakest":
        return min(enemies, key=lambda e: (e.hp, order[e.id]))
    if selector == "strongest":
        return min(enemies, key=lambda e: (-e.hp, order[e.id]))
    if selector == "first":
        return enemies[0]
    return next((e for e in enemies if e.id == selector), None)


def _pick_cast_target(obs: Observation, selector: str) -> str | None:
    """The id a cast's ``target`` selects (``"area"`` for the first area placement),
    or ``None`` when it selects nobody now."""
    me = obs.actor
    if selector == "area":
        return "area"
    if selector == "self":
        return me.id
    if selector == "dying_ally":
        return next((c.id for c in obs.combatants if c.side == me.side and c.id != me.id
                     and c.hp < 0 and not c.dead), None)  # fmt: skip
    if selector == "hurt_ally":
        hurt = [c for c in obs.combatants if c.side == me.side and not c.dead and c.hp < c.hp_max]
        order = {c.id: i for i, c in enumerate(obs.combatants)}
        best = min(hurt, key=lambda c: (c.hp / c.hp_max, order[c.id]), default=None)
        return best.id if best is not None else None
    if any(c.id == selector for c in obs.combatants):
        return selector
    enemy = _pick_target(obs, selector)
    return enemy.id if enemy is not None else None


def _squares(view: CombatantView) -> set[str]:
    """The ``row,col`` of every square of a creature's space (an area aimed there)."""
    r, c = view.pos
    return {f"{r + i},{c + j}" for i in range(view.space) for j in range(view.space)}


def _match_cast(
    obs: Observation, options: tuple[Option, ...], rule: Rule, target: str
) -> Option | None:
    """The first cast of ``rule``'s spell at ``target``: that creature, an area aimed
    at one of its squares, or (``area``) the first placement of an area."""
    spell = spell_id(rule.spell) if rule.spell is not None else None
    view = next((c for c in obs.combatants if c.id == target), None)
    squares = _squares(view) if view is not None else set()
    for opt in options:
        parts = opt.id.split(":")
        if parts[0] != rule.do or (spell is not None and parts[1] != spell):
            continue
        aimed = parts[2] if len(parts) > 2 else ""
        if target == "area":
            if aimed == "" or "," in aimed:
                return opt
        elif aimed == target or aimed in squares:
            return opt
    return None


def _holds(cond: Conditions, obs: Observation, target: CombatantView | None) -> bool:
    me = obs.actor
    hp_pct = 100 * max(me.hp, 0) / me.hp_max
    enemies = len(obs.enemies())
    allies = len(obs.allies())
    checks = (
        cond.round_at_least is None or obs.round >= cond.round_at_least,
        cond.round_at_most is None or obs.round <= cond.round_at_most,
        cond.own_hp_pct_below is None or hp_pct < cond.own_hp_pct_below,
        cond.own_hp_pct_at_least is None or hp_pct >= cond.own_hp_pct_at_least,
        cond.enemies_at_least is None or enemies >= cond.enemies_at_least,
        cond.enemies_at_most is None or enemies <= cond.enemies_at_most,
        cond.allies_at_least is None or allies >= cond.allies_at_least,
        cond.allies_at_most is None or allies <= cond.allies_at_most,
        cond.disabled is None or me.disabled == cond.disabled,
    )
    if not all(checks):
        return False
    if cond.target_in_reach is not None:
        reach = target is not None and obs.melee_weapon_for(target.id) is not None
        if reach != cond.target_in_reach:
            return False
    if cond.target_in_range is not None:
        in_range = target is not None and obs.weapon_for(target.id)[0] is not None
        if in_range != cond.target_in_range:
            return False
    return True


def _match(options: tuple[Option, ...], rule: Rule, target: CombatantView | None) -> Option | None:
    for opt in options:
        parts = opt.id.split(":")
        if parts[0] != rule.do:
            continue
        if rule.do == AID:
            _ally, opponent, mode = parts[1:4]
            if target is None or opponent != target.id:
                continue
            if (rule.ally is not None and _ally != rule.ally) or (
                rule.mode is not None and mode != rule.mode
            ):
                continue
        elif rule.do == "ready":
            if rule.trigger is not None and parts[1:] != [rule.trigger]:
                continue
        elif rule.do in TARGETED:
            if target is None or len(parts) < 2 or parts[1] != target.id:
                continue
            if rule.weapon is not None and (len(parts) < 3 or parts[2] != rule.weapon):
                continue
        elif rule.do in WEAPON_ONLY and rule.weapon is not None and parts[1:] != [rule.weapon]:
            continue
        return opt
    return None


class ScriptedPolicy:
    """Plays a :class:`Script` (stateless and deterministic)."""

    name = "scripted"

    def __init__(self, script: Script) -> None:
        self.script = script
        self._fallback = HeuristicPolicy()

    def decide(self, obs: Observation) -> TurnPlan:
        options = obs.legal_options
        for i, rule in enumerate(self.script.rules, 1):
            if rule.do in CASTS:
                chosen = _pick_cast_target(obs, rule.target)
                if chosen is None or not _holds(rule.when, obs, None):
                    continue
                opt = _match_cast(obs, options, rule, chosen)
                if opt is not None:
                    return TurnPlan(opt.actions, f"règle {i} : {opt.label}")
                continue
            targeted = rule.do in TARGETED or rule.do == AID
            target = _pick_target(obs, rule.target) if targeted else None
            if targeted and target is None:
                continue
            if not _holds(rule.when, obs, target):
                continue
            opt = _match(options, rule, target)
            if opt is not None:
                return TurnPlan(opt.actions, f"règle {i} : {opt.label}")
        if self.script.fallback == "wait":
            return TurnPlan((WaitAction(),), "aucune règle applicable : attendre")
        plan = self._fallback.decide(obs)
        return TurnPlan(plan.actions, f"aucune règle applicable : heuristique ({plan.rationale})")
