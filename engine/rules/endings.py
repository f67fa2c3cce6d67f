"""Spell conditions that end before their duration (SRD « Hold Person »,
« Glitterdust », « Invisibility », « Web », « Entangle »; ``docs/rules.md``,
« Spellcasting »).

A spell's condition that ends another way is an effect of its own source
(:func:`source_of`, not the condition's ``cond:<name>``: ending it leaves the same
condition from anything else) and an :class:`~engine.state.casting.Ending` on its
holder (``CombatantState.endings``, empty for almost everyone: a fight without
such spells tests one empty tuple at the end of a turn and on an attack).

* **A new save each round** (``save``, :func:`turn_end`): at the end of each of
  its holder's turns — a turn it lost to the condition included — a new saving
  throw against the spell's DC and descriptors ends it on a success. SRD « Hold
  Person »: « Each round on its turn, the subject may attempt a new saving throw
  to end the effect. This is a full-round action »: a paralyzed creature has
  nothing else to do with its turn. SRD « Glitterdust »: « at the end of their
  turns ».
* **Ends on an attack** (``attack``, :func:`attacked`): SRD « Invisibility »: « If
  the subject attacks any creature, the spell ends. […] an attack includes any
  spell targeting a foe or whose area or effect includes a foe ». The attack
  that ends it keeps its benefit (it is made while invisible).
* **Escape** (``escape``, :func:`verify_escape`, :func:`do_escape`): the holder
  breaks free with the ``escape`` action. SRD « Web »: « can break free by making a
  combat maneuver check or Escape Artist check as a standard action against the DC
  of this spell »; SRD « Entangle »: « can attempt to break free as a move action,
  making a Strength or Escape Artist check. The DC for this check is equal to the
  DC of the spell ». One d20 with the check that has the better chance: the combat
  maneuver check (BAB + Str + the special size modifier + its effects' CMB, the
  grappled −2 excepted: SRD « Grappled », « except those made to […] escape a
  grapple »; a natural 20 always succeeds and a natural 1 fails, SRD « Combat
  Maneuvers ») or the Strength check (d20 + Str + its effects' ability check
  modifiers), against Escape Artist (:func:`engine.rules.skills.state_skill_modifiers`,
  its −4 Dexterity of grappled or entangled included). A success ends every
  condition of that spell on it; a failure keeps them (the action is spent). Its
  slot is the spell's (``escape_slot``: the budget filter asks :func:`escape_slot`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.content.actions import ActionResult, EscapeAction, Reason, Slot, succeeded
from engine.content.creatures import ability_mod
from engine.content.maps import GameMap
from engine.content.packs import D20_ATTACK, D20_PLAIN
from engine.content.sizing import CM_SIZE
from engine.core.checks import BonusType, CheckKind, Modifier, check
from engine.core.events import ConditionEnded, EscapeAttempt
from engine.core.rng import RollKind
from engine.rules.saves import SCORE_CONDITIONS, roll_save, score_delta
from engine.rules.skills import state_skill_modifiers
from engine.state.casting import Ending, EndingKind
from engine.state.conditions import CONDITIONS
from engine.state.effects import ABILITY_CHECK, CMB, SKILL, STR, drop_effect, use_effects
from engine.state.fight import FightState, Situation
from engine.state.state import CombatantState

#: the effect source prefix of each kind of ending
_PREFIX: dict[EndingKind, str] = {"save": "save-each-round", "attack": "ends-on-attack",
                                  "escape": "escape"}  # fmt: skip


def source_of(kind: EndingKind, spell_id: str, condition: str) -> str:
    """The source of a spell's condition that ends by ``kind``.

    >>> source_of("escape", "web", "grappled")
    'escape:web:grappled'
    """
    return f"{_PREFIX[kind]}:{spell_id}:{condition}"


def add_ending(target: CombatantState, ending: Ending) -> None:
    """Keep ``ending`` on ``target`` (one per source: a new cast replaces it)."""
    kept = tuple([e for e in target.endings if e.source != ending.source])
    target.endings = (*kept, ending)


def _held(target: CombatantState, source: str) -> bool:
    return any(e.source == source for e in target.effects.items)


def _end(fight: FightState, target: CombatantState, ending: Ending) -> None:
    """End the effect of ``ending`` (logged when that removes the condition)."""
    drop_effect(target, ending.source)
    target.endings = tuple([e for e in target.endings if e is not ending])
    bit = CONDITIONS[ending.condition].bit.value
    if fight.log is not None and not target.effects.cond & bit:
        fight.log.append(ConditionEnded(fight.round, target.id, ending.condition))


def _prune(target: CombatantState) -> None:
    """Forget the endings whose effect is gone (its duration ran out, or it was dropped)."""
    target.endings = tuple([e for e in target.endings if _held(target, e.source)])


def turn_end(fight: FightState, actor: CombatantState) -> None:
    """The end of ``actor``'s turn: a new save against each of its spells'
    conditions that allow one (module docstring). (Callers test ``actor.endings``.)"""
    _prune(actor)
    for ending in actor.endings:
        if ending.kind != "save" or actor.dead:
            continue
        assert ending.save is not None
        origin = fight.target(ending.origin) if ending.origin is not None else None
        rec = roll_save(
            fight, actor, ending.save, ending.dc, effect=ending.label,
            descriptors=ending.descriptors, source=origin,
        )  # fmt: skip
        if rec is not None and rec.success:
            _end(fight, actor, ending)


def attacked(fight: FightState, actor: CombatantState) -> None:
    """``actor`` attacked a creature (a swing, or a spell aimed at a foe or whose
    area holds one): its conditions that end on an attack end. (Callers test
    ``actor.endings``.)"""
    _prune(actor)
    for ending in actor.endings:
        if ending.kind == "attack":
            _end(fight, actor, ending)


# -- escape ---------------------------------------------------------------------------

#: the source prefix of a condition its holder may break free of
_ESCAPE = _PREFIX["escape"] + ":"
#: SRD « Grappled »: its −2 on combat maneuver checks is not on a check to escape
_GRAPPLED_CMB = frozenset(m for stat, m in CONDITIONS["grappled"].mods if stat == CMB)


@dataclass(frozen=True, slots=True)
class EscapePlan:
    """What :func:`verify_escape` accepted: the spell to break free of."""

    spell_id: str


def held_by(actor: Any) -> list[str]:
    """The ids of the spells whose conditions ``actor`` may break free of, in the
    order of its effects (read from its effects: the state's or a view's)."""
    out: list[str] = []
    for e in actor.effects.items:
        source = e.source
        if source.startswith(_ESCAPE):
            spell_id = source.split(":", 2)[1]
            if spell_id not in out:
                out.append(spell_id)
    return out


def verify_escape(
    gmap: GameMap, s: Situation[Any], actor: Any, action: EscapeAction
) -> EscapePlan | Reason:
    """``escape``: a spell holds ``actor`` that it may break free of (``not_held``),
    the one ``spell_name`` designates or else the first."""
    held = held_by(actor) if actor.effects.items else []
    if not held:
        return Reason.NOT_HELD
    name = action.spell_name
    if name is None:
        return EscapePlan(held[0])
    from engine.content.spells import spell_key  # (imported only when a name is given)

    key = spell_key(name)
    return EscapePlan(key) if key in held else Reason.NOT_HELD


def _escapes(actor: CombatantState, spell_id: str) -> list[Ending]:
    prefix = f"{_ESCAPE}{spell_id}:"
    return [e for e in actor.endings if e.kind == "escape" and e.source.startswith(prefix)]


def escape_slot(actor: CombatantState, action: EscapeAction) -> Slot:
    """The budget slot of ``actor``'s ``escape``: its spell's (standard for *web*,
    move for *entangle*); standard when nothing holds it (the action is refused)."""
    plan = verify_escape(None, None, actor, action)  # type: ignore[arg-type]
    if isinstance(plan, Reason):
        return Slot.STANDARD
    found = _escapes(actor, plan.spell_id)
    return found[0].escape_slot if found else Slot.STANDARD


def cmb_modifiers(actor: CombatantState) -> tuple[Modifier, ...]:
    """The modifiers of ``actor``'s combat maneuver check to escape (SRD « Combat
    Maneuver Bonus »: BAB + Str + the special size modifier; its effects' CMB but
    the grappled −2; a lowered Strength)."""
    spec = actor.profile.spec
    mods = [Modifier(spec.bab, "bonus de base à l'attaque")]
    strength = ability_mod(spec.abilities.str_score)
    if strength:
        mods.append(Modifier(strength, "Force"))
    size = CM_SIZE.get(spec.size, 0)
    if size:
        mods.append(Modifier(size, "taille", BonusType.SIZE))
    fx = actor.effects
    if fx.items:
        mods.extend(m for m in fx.breakdown(CMB) if m not in _GRAPPLED_CMB)
        if fx.cond & SCORE_CONDITIONS:
            delta = score_delta(actor, STR)
            if delta:
                mods.append(Modifier(delta, "Force diminuée"))
    return tuple(mods)


def strength_modifiers(actor: CombatantState) -> tuple[Modifier, ...]:
    """The modifiers of ``actor``'s Strength check (an ability check: its Strength
    modifier, its effects' ability check modifiers, a lowered Strength)."""
    strength = ability_mod(actor.profile.spec.abilities.str_score)
    mods = [Modifier(strength, "Force")] if strength else []
    fx = actor.effects
    if fx.items:
        mods.extend(fx.breakdown(ABILITY_CHECK))
        if fx.cond & SCORE_CONDITIONS:
            delta = score_delta(actor, STR)
            if delta:
                mods.append(Modifier(delta, "Force diminuée"))
    return tuple(mods)


def check_chance(bonus: int, dc: int, natural: bool) -> float:
    """The chance that d20 + ``bonus`` reaches ``dc`` (``natural``: a natural 20
    always succeeds and a natural 1 always fails).

    >>> check_chance(5, 15, False), check_chance(0, 30, True), check_chance(0, 30, False)
    (0.55, 0.05, 0.0)
    """
    chance = min(1.0, max(0.0, (21 - (dc - bonus)) / 20))
    return min(0.95, max(0.05, chance)) if natural else chance


def escape_check(
    actor: CombatantState, check_kind: str, dc: int
) -> tuple[str, tuple[Modifier, ...], bool]:
    """The check ``actor`` breaks free with (module docstring): its name
    (``cmb``, ``strength`` or ``escape_artist``), its modifiers and whether a natural
    20 or 1 decides it; the better chance against ``dc`` (ties: the maneuver or
    Strength check)."""
    natural = check_kind == "cmb"
    mods = cmb_modifiers(actor) if natural else strength_modifiers(actor)
    artist = state_skill_modifiers(actor, "escape artist")
    first = check_chance(sum(m.value for m in mods), dc, natural)
    if check_chance(sum(m.value for m in artist), dc, False) > first:
        return "escape_artist", artist, False
    return check_kind, mods, natural


def do_escape(fight: FightState, actor: CombatantState, plan: EscapePlan) -> ActionResult:
    """``actor`` tries to break free of ``plan``'s spell (module docstring)."""
    _prune(actor)
    endings = _escapes(actor, plan.spell_id)
    if not endings:  # (its effect is there without an ending: nothing to break)
        return ActionResult("escape", False, Reason.NOT_HELD)
    first = endings[0]
    name, mods, natural = escape_check(actor, first.escape_check, first.dc)
    pack = D20_ATTACK if natural else D20_PLAIN
    kind = CheckKind.SKILL if name == "escape_artist" else CheckKind.CHECK
    rec = check(fight.rng, pack, kind, mods, first.dc, roll=RollKind.ESCAPE)
    if name == "escape_artist" and actor.effects.against:
        use_effects(actor, SKILL, "")  # a ``once`` bonus to skill checks (*guidance*)
    freed = bool(rec.success)
    if fight.log is not None:
        fight.log.append(EscapeAttempt(fight.round, actor.id, first.label, name, rec, freed))
    if freed:
        for ending in endings:
            _end(fight, actor, ending)
    return succeeded("escape")
