"""The Action contract (policy → engine) and the ActionResult vocabulary.

An :data:`Action` is one of a closed set of frozen dataclasses discriminated by
``kind``; each carries only its own fields. Each kind is written once, in its
class; its slot in the budget and the rule that resolves it are its row of
:data:`engine.rules.table.ACTIONS`. A policy answers a turn with an
ordered sequence of actions (a :class:`TurnPlan`). The engine checks the action
budget for every policy alike (:mod:`engine.rules.economy`) and answers each action
with an :class:`ActionResult` whose ``reason`` comes from :data:`REASONS`.

The JSON Schema of actions (for validation at the boundary and constrained
decoding) is :func:`action_json_schema`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any, Literal

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from engine.content.maps import Cell


#: ``(row, col)`` on the map.
Coord = tuple[int, int]

#: What sets off a readied action (inventory §3.52).
ReadyTrigger = Literal["enemy_enters_reach", "enemy_casts", "enemy_attacks", "enemy_hits_ally"]


@dataclass(frozen=True, slots=True)
class AttackAction:
    """Standard action: one attack (``count`` swings) with one weapon."""

    kind: Literal["attack"] = "attack"
    target_id: str | None = None
    weapon_id: str | None = None


@dataclass(frozen=True, slots=True)
class FullAttackAction:
    """Full-round action: every iterative attack of one weapon against one target."""

    kind: Literal["full_attack"] = "full_attack"
    target_id: str | None = None
    weapon_id: str | None = None


@dataclass(frozen=True, slots=True)
class CoupDeGraceAction:
    """Full-round action (SRD « Coup de Grâce »): an automatic critical hit on a
    helpless ``target_id`` with ``weapon_id`` (a melee weapon that reaches it, or
    a ranged one from an adjacent square), then a Fortitude save (DC 10 + the
    damage dealt) or it dies; provokes attacks of opportunity."""

    kind: Literal["coup_de_grace"] = "coup_de_grace"
    target_id: str | None = None
    weapon_id: str | None = None


@dataclass(frozen=True, slots=True)
class MoveAction:
    """Move action: up to speed toward ``target_id`` (stopping in reach) or to ``destination``.

    ``tumble``: at half speed, Acrobatics against each threatening opponent's CMD
    instead of provoking (:mod:`engine.rules.tumbling`; needs a rank of Acrobatics).
    """

    kind: Literal["move"] = "move"
    target_id: str | None = None
    destination: Coord | None = None
    tumble: bool = False


@dataclass(frozen=True, slots=True)
class FiveFootStepAction:
    """Free action, exclusive with any other movement: one square."""

    kind: Literal["5foot_step"] = "5foot_step"
    destination: Coord | None = None
    target_id: str | None = None


@dataclass(frozen=True, slots=True)
class ChargeAction:
    """Full-round action: straight line up to 2× speed, then one melee attack at +2."""

    kind: Literal["charge"] = "charge"
    target_id: str | None = None
    weapon_id: str | None = None


@dataclass(frozen=True, slots=True)
class WithdrawAction:
    """Full-round action: move up to 2× speed away from the nearest enemy."""

    kind: Literal["withdraw"] = "withdraw"


@dataclass(frozen=True, slots=True)
class RunAction:
    kind: Literal["run"] = "run"
    target_id: str | None = None
    destination: Coord | None = None


@dataclass(frozen=True, slots=True)
class HideAction:
    """Move action: a Stealth check against every enemy without direct sight (opt-in)."""

    kind: Literal["hide"] = "hide"


@dataclass(frozen=True, slots=True)
class ManeuverAction:
    kind: Literal["maneuver"] = "maneuver"
    maneuver: str | None = None
    target_id: str | None = None
    direction: Coord | None = None
    trick_condition: str | None = None


@dataclass(frozen=True, slots=True)
class EscapeAction:
    """Break free of a spell that holds the actor (SRD « Web »: a standard action;
    « Entangle »: a move action; :mod:`engine.rules.endings`): ``spell_name`` (``None``:
    the first that holds it)."""

    kind: Literal["escape"] = "escape"
    spell_name: str | None = None


@dataclass(frozen=True, slots=True)
class CastSpellAction:
    kind: Literal["cast_spell"] = "cast_spell"
    spell_name: str | None = None
    target_id: str | None = None
    target_pos: Coord | None = None
    metamagic: tuple[str, ...] = ()
    cast_defensively: bool = False
    #: a spell of several targets (*haste*: one creature per caster level): the
    #: creatures it takes besides ``target_id``
    target_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ChannelEnergyAction:
    kind: Literal["channel_energy"] = "channel_energy"
    channel_exclude: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HexAction:
    kind: Literal["hex"] = "hex"
    hex_name: Literal["evil_eye", "slumber", "cackle"] | None = None
    target_id: str | None = None


@dataclass(frozen=True, slots=True)
class DeedAction:
    kind: Literal["deed"] = "deed"
    deed_name: Literal["up_close_and_deadly", "quick_clear"] | None = None


@dataclass(frozen=True, slots=True)
class InspireCourageAction:
    kind: Literal["inspire_courage"] = "inspire_courage"


@dataclass(frozen=True, slots=True)
class SpellCombatAction:
    kind: Literal["spell_combat"] = "spell_combat"
    spell_name: str | None = None
    target_id: str | None = None


@dataclass(frozen=True, slots=True)
class DelayAction:
    kind: Literal["delay"] = "delay"
    target_id: str | None = None


@dataclass(frozen=True, slots=True)
class ReadyAction:
    """Standard action: one attack held until ``ready_trigger`` happens (before the
    start of the readier's next turn), on ``target_id`` or, without one, on the
    creature that triggered it. Spells and maneuvers as payload: not yet."""

    kind: Literal["ready"] = "ready"
    ready_trigger: ReadyTrigger | None = None
    target_id: str | None = None
    maneuver: str | None = None
    spell_name: str | None = None


@dataclass(frozen=True, slots=True)
class TotalDefenseAction:
    kind: Literal["total_defense"] = "total_defense"


@dataclass(frozen=True, slots=True)
class FightDefensivelyAction:
    kind: Literal["fight_defensively"] = "fight_defensively"


@dataclass(frozen=True, slots=True)
class AidAnotherAction:
    """Standard action: help the ally ``target_id`` against ``opponent_id`` (an
    enemy in the actor's melee reach engaged with that ally; the first such enemy
    when omitted): +2 on the ally's next attack against it, or +2 AC against its
    next attack (``aid_mode``)."""

    kind: Literal["aid_another"] = "aid_another"
    target_id: str | None = None
    aid_mode: Literal["attack", "ac"] = "attack"
    opponent_id: str | None = None


@dataclass(frozen=True, slots=True)
class StandUpAction:
    kind: Literal["stand_up"] = "stand_up"


@dataclass(frozen=True, slots=True)
class DropProneAction:
    kind: Literal["drop_prone"] = "drop_prone"


@dataclass(frozen=True, slots=True)
class RetrieveWeaponAction:
    kind: Literal["retrieve_weapon"] = "retrieve_weapon"
    weapon_id: str | None = None


@dataclass(frozen=True, slots=True)
class RepairWeaponAction:
    kind: Literal["repair_weapon"] = "repair_weapon"
    weapon_id: str | None = None


@dataclass(frozen=True, slots=True)
class ActivatePowerAttackAction:
    kind: Literal["activate_power_attack"] = "activate_power_attack"


@dataclass(frozen=True, slots=True)
class SwiftAction:
    kind: Literal["swift"] = "swift"


@dataclass(frozen=True, slots=True)
class FreeAction:
    kind: Literal["free"] = "free"


@dataclass(frozen=True, slots=True)
class FullRoundAction:
    kind: Literal["full_round"] = "full_round"


@dataclass(frozen=True, slots=True)
class WaitAction:
    """Do nothing this turn (always succeeds)."""

    kind: Literal["wait"] = "wait"


@dataclass(frozen=True, slots=True)
class ImmediateAction:
    """An immediate action (SRD « Immediate Actions »): on its own turn it uses
    the turn's swift action; off-turn (through a reaction policy) the next one.
    Phase 0 has no spell or feat with an immediate effect: it only spends the
    budget (``engine.rules.readiness``)."""

    kind: Literal["immediate"] = "immediate"


Action = (
    AttackAction
    | FullAttackAction
    | MoveAction
    | FiveFootStepAction
    | ChargeAction
    | WithdrawAction
    | RunAction
    | HideAction
    | ManeuverAction
    | CastSpellAction
    | ChannelEnergyAction
    | HexAction
    | DeedAction
    | InspireCourageAction
    | SpellCombatAction
    | DelayAction
    | ReadyAction
    | TotalDefenseAction
    | FightDefensivelyAction
    | AidAnotherAction
    | StandUpAction
    | DropProneAction
    | RetrieveWeaponAction
    | RepairWeaponAction
    | ActivatePowerAttackAction
    | SwiftAction
    | FreeAction
    | FullRoundAction
    | WaitAction
    | ImmediateAction
    | CoupDeGraceAction
    | EscapeAction
)


class Slot(StrEnum):
    """Where an action sits in the turn's budget (CRB « Actions in Combat »)."""

    STANDARD = "standard"
    MOVE = "move"
    SWIFT = "swift"
    FULL_ROUND = "full_round"
    FREE = "free"


class Reason(StrEnum):
    """Closed vocabulary of ``ActionResult.reason`` (``None`` means plain success)."""

    MISSING_TARGET = "missing_target"
    UNSUPPORTED_KIND = "unsupported_kind"
    DOWNGRADED_ACTION_ECONOMY = "downgraded:action_economy"
    DOWNGRADED_CAST_TIME = "downgraded:cast_time"
    DOWNGRADED_STAGGERED = "downgraded:staggered"
    DOWNGRADED_NAUSEATED = "downgraded:nauseated"
    DOWNGRADED_IMMEDIATE_SWIFT = "downgraded:immediate_swift"
    DOWNGRADED_SURPRISE = "downgraded:surprise"
    DELAYED = "delayed"
    ALREADY_DELAYED = "already_delayed"
    READY = "ready"
    NOT_PRONE = "not_prone"
    ALREADY_PRONE = "already_prone"
    WEAPON_UNAVAILABLE = "weapon_unavailable"
    INVALID_DESTINATION = "invalid_destination"
    NO_SLOT = "no_slot"
    NO_WEAPON = "no_weapon"
    UNREACHABLE_DESTINATION = "unreachable_destination"
    UNTRAINED_TUMBLE = "untrained_tumble"
    NO_LINE_OF_EFFECT = "no_line_of_effect"
    OUT_OF_RANGE = "out_of_range"
    NO_CHARGE_PATH = "no_charge_path"
    #: extension: the actor fell (dying, dead) before this action of its plan
    ACTOR_DOWN = "actor_down"
    #: extension: the target is already down (dying, dead, unconscious)
    TARGET_DOWN = "target_down"
    #: extension: a prone creature must stand up before it moves (crawling is not modelled)
    PRONE = "prone"
    #: extension: ``ready`` without a ``ready_trigger``
    MISSING_TRIGGER = "missing_trigger"
    #: extension: running is refused while resting after a failed Con check (SRD « Run »)
    RESTING = "resting"
    #: extension: ``repair_weapon`` on a weapon that is not broken (like ``not_prone``)
    NOT_BROKEN = "not_broken"
    #: extension: ``hide`` with every active enemy seeing the actor plainly (no
    #: cover, no concealment): Stealth needs one or the other
    IN_PLAIN_SIGHT = "in_plain_sight"
    #: extension: a condition keeps it from moving (grappled, pinned, paralyzed…)
    CANNOT_MOVE = "cannot_move"
    #: extension: a condition keeps it from running or charging (fatigued, entangled…)
    CANNOT_RUN_OR_CHARGE = "cannot_run_or_charge"
    #: extension: a condition keeps it from acting (stunned, dazed, asleep…)
    CANNOT_ACT = "cannot_act"
    #: extension: a coup de grâce on a target that is not helpless (SRD « Coup de Grâce »)
    NOT_HELPLESS = "not_helpless"
    #: extension: ``cast_spell`` of a spell the caster does not know
    UNKNOWN_SPELL = "unknown_spell"
    #: extension: ``cast_spell`` of a spell the caster knows but the engine does not
    #: play (listed « non modélisé »)
    SPELL_NOT_MODELLED = "spell_not_modelled"
    #: extension: a target the spell cannot take (an enemy for a spell on a willing
    #: creature, a creature its ``affects`` excludes, another creature for a
    #: personal spell)
    INVALID_TARGET = "invalid_target"
    #: extension: ``cast_spell`` naming more creatures than the spell takes at the
    #: caster's level, or several for a spell of one target
    TOO_MANY_TARGETS = "too_many_targets"
    #: extension: the targets of a spell of several targets lie more than 30 feet
    #: apart (SRD « no two of which can be more than 30 ft. apart »), or one is named twice
    TARGETS_TOO_FAR_APART = "targets_too_far_apart"
    #: extension: ``cast_spell`` with ``metamagic`` (not modelled yet)
    METAMAGIC_NOT_MODELLED = "metamagic_not_modelled"
    #: extension: the spell was cast (its slot spent) and lost: a failed
    #: concentration check, spell failure, or its caster fell (an ``ok`` result)
    SPELL_LOST = "spell_lost"
    #: extension: a one-round spell begun (an ``ok`` result): it takes effect at the
    #: start of the caster's next turn
    CASTING = "casting"
    #: extension: ``escape`` with no spell holding the actor that it may break free of
    NOT_HELD = "not_held"


REASONS = frozenset(r.value for r in Reason)


@dataclass(frozen=True, slots=True)
class ActionResult:
    """The engine's answer to one action."""

    kind: str
    ok: bool
    reason: str | None = None

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "ok": self.ok, "reason": self.reason}


@functools.cache
def succeeded(kind: str, reason: Reason | None = None) -> ActionResult:
    """The result of a successful action of ``kind``: one shared immutable value
    per kind (a frozen dataclass costs a microsecond to build, and every action
    of every turn answers one).

    >>> succeeded("move") is succeeded("move"), succeeded("move")
    (True, ActionResult(kind='move', ok=True, reason=None))
    """
    return ActionResult(kind, True, reason)


@dataclass(frozen=True, slots=True)
class TurnPlan:
    """A policy's answer: ordered actions plus an optional rationale."""

    actions: tuple[Action, ...]
    rationale: str | None = None


@functools.cache
def action_adapter() -> TypeAdapter[Any]:
    """The pydantic adapter of :data:`Action` (built on first use: it is slow to build)."""
    from pydantic import Field, TypeAdapter

    return TypeAdapter(Annotated[Action, Field(discriminator="kind")])


def parse_action(data: object) -> Action:
    """Validate a JSON-like object into an Action (raises pydantic's ValidationError)."""
    result: Action = action_adapter().validate_python(data)
    return result


def action_to_dict(action: Action) -> dict[str, Any]:
    """Serialise an action (round-trips through :func:`parse_action`)."""
    data: dict[str, Any] = action_adapter().dump_python(action, mode="json")
    return data


def action_json_schema() -> dict[str, Any]:
    """JSON Schema of :data:`Action` (id ``pf1e-sim/action@1``)."""
    schema: dict[str, Any] = action_adapter().json_schema()
    schema["$id"] = "pf1e-sim/action@1"
    return schema


@dataclass(frozen=True, slots=True)
class Option:
    """One turn plan of the legal-options menu (:mod:`engine.view.options`) that the
    acting combatant may choose.

    ``path`` lists the squares the plan walks, in order, its starting square
    excluded (the anchor of a bigger creature's space); empty when it does not
    move. Policies read it to tell which squares a plan leaves (attacks of
    opportunity); it is not part of the JSON form.
    """

    id: str
    label: str
    actions: tuple[Action, ...]
    path: tuple[Cell, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "actions": [action_to_dict(a) for a in self.actions],
        }
