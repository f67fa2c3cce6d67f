"""Life states: disabled, dying, stabilization, death (SRD « Injury and Death »).

* hp > 0: active.
* hp = 0: **disabled** — active but staggered (one move *or* one standard
  action, no full-round action, half speed); completing a standard action costs
  1 hp, which leaves the creature dying at −1.
* hp < 0: **dying** — unconscious; at each of its turns a DC 10 Constitution check
  (d20 + Con modifier − |hp|, natural 20 always succeeds) stabilizes it, a
  failure costs 1 more hp. A stable creature stays unconscious; a new wound makes
  it dying again.
* hp ≤ −Con score: **dead**. Undead and constructs (no Con) are destroyed at 0.
* ``--simple-monster-death``: monsters (not PCs) die at hp ≤ 0.
* Temporary hit points (:mod:`engine.rules.temp_hp`) take lethal damage first.
* Nonlethal damage (SRD « Nonlethal Damage ») is a separate total, never taken
  from hp: equal to the current hp (> 0), the creature is **staggered**; above
  it, **unconscious** (inactive: it acts, threatens and flanks no more, and
  counts as down for victory). Undead and constructs are immune.
"""

from __future__ import annotations

from engine.content.packs import D20_STABILIZE, PF1E
from engine.core.checks import CheckKind, Modifier, RollRecord, check
from engine.core.events import Bled, Stabilization
from engine.core.rng import Rng
from engine.rules.temp_hp import absorb
from engine.state.fight import FightState
from engine.state.state import CombatantState

#: SRD « Dying »: DC of the stabilization check (pack data)
STABILIZE_DC = PF1E.dc("stabilize")


def update_state(target: CombatantState) -> None:
    """Apply the death thresholds after the target's hp changed."""
    if not target.dead:
        prof = target.profile
        if prof.no_con or target.dies_at_zero:
            if target.hp <= 0:
                target.dead = True
        elif target.hp <= -prof.con_score:
            target.dead = True
    target.refresh()


def apply_damage(target: CombatantState, amount: int) -> int:
    """Lethal damage to ``target`` (amount ≥ 0), then its new life state; its
    temporary hit points take it first (:mod:`engine.rules.temp_hp`). Returns the
    part they absorbed (counted in ``damage_taken`` too)."""
    if amount <= 0:
        return 0
    absorbed = 0
    if target.temp_hp:
        absorbed = absorb(target, amount)
        if absorbed == amount:
            target.damage_taken += amount
            return absorbed
    target.hp -= amount - absorbed
    target.damage_taken += amount
    target.stable = False
    update_state(target)
    return absorbed


def apply_nonlethal(target: CombatantState, amount: int) -> int:
    """Nonlethal damage (SRD « Nonlethal Damage »); returns what was taken.

    Undead and constructs are immune. Once the total reaches the maximum hit
    points, further nonlethal damage is lethal. Nonlethal damage is never
    counted in attrition.
    """
    if amount <= 0 or target.profile.no_con:
        return 0
    room = max(0, target.profile.spec.hp_max - target.nonlethal)
    kept = min(amount, room)
    target.nonlethal += kept
    target.refresh()
    if amount > kept:
        apply_damage(target, amount - kept)
    return amount


def kill(target: CombatantState) -> None:
    """``target`` dies whatever its hit points (a failed save against a coup de
    grâce, SRD « Coup de Grâce »)."""
    target.dead = True
    target.refresh()


def lose_hp(target: CombatantState, amount: int) -> None:
    """Hit points lost without an attacker (dying, disabled exertion): not attrition."""
    target.hp -= amount
    update_state(target)


def stabilization_check(rng: Rng, target: CombatantState) -> RollRecord:
    """The dying creature's turn: DC 10 Con check; failure costs 1 hp."""
    mods = (
        Modifier(target.profile.con_mod, "Constitution"),
        Modifier(target.hp, "points de vie négatifs"),
    )
    record = check(rng, D20_STABILIZE, CheckKind.STABILIZE, mods, STABILIZE_DC)
    if record.success:
        target.stable = True
    else:
        lose_hp(target, 1)
    return record


def dying_turn(fight: FightState, actor: CombatantState) -> None:
    """A dying creature's turn: its stabilization check, written in the transcript.

    A bleeding creature first loses its bleed (SRD « Bleed »: at the start of its
    turn); then, while it still bleeds, its stabilization fails without a roll
    and costs 1 hp (the seed's rule: an open wound keeps it dying)."""
    bleed = max((e.bleed for e in actor.effects.items), default=0) if actor.effects.items else 0
    if bleed:
        lose_hp(actor, bleed)
        if fight.log is not None:
            fight.log.append(Bled(fight.round, actor.id, bleed, actor.hp))
        if actor.dead:
            fight.state_change(actor)
            return
        lose_hp(actor, 1)
        if fight.log is not None:
            fight.log.append(Stabilization(fight.round, actor.id, None, actor.hp, actor.dead))
        return
    rec = stabilization_check(fight.rng, actor)
    if fight.log is not None:
        fight.log.append(Stabilization(fight.round, actor.id, rec, actor.hp, actor.dead))
