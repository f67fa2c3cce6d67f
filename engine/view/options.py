"""The legal-options menu: concrete, budget-legal turn plans for the acting combatant.

Like the action mask of game environments (PettingZoo, OpenSpiel), the menu lets
a policy choose among moves the engine will accept instead of guessing them.
It enumerates candidate actions and keeps those whose ``verify`` — the function
of the kind's row of :data:`engine.rules.table.ACTIONS`, which the engine calls before
doing the action — returns a plan when asked on the Observation, with that
plan's path; the action of a compound option that comes after a move or a step
is verified for the actor standing where the plan ends. Kinds whose ``verify``
always accepts (total defense, wait, stand up, drop prone, fighting
defensively) are offered by the menu's own conditions. So choosing an option
never produces an engine rejection (``tests/test_conformance.py``). Ids are
stable strings: the same situation always gives the same ids in the same order.

Conditions (:mod:`engine.state.conditions`) take options off the menu with the
engine's own answers: an actor that cannot act gets ``wait`` alone; the options
of any other are kept only when :func:`engine.rules.status.gate` lets each of
their actions through (no movement when it cannot move, no charge or run when
fatigued, entangled or exhausted) and, nauseated, when they fit its single move
action (:func:`engine.rules.economy.filter_plan`: a move, a tumble, hide, repair,
stand up, or wait); staggered, it gets the one-action menu of a disabled
creature. Half speed shows in the paths (the view's ``speed_effective_ft``).

A prone combatant gets ``stand_up``, ``stand_attack:<target>:<weapon>`` (stand
up, then one attack), ``attack:<target>:<weapon>`` from the ground at −4,
``total_defense`` and ``wait``. Otherwise the options are, per active enemy in
deployment order, then the non-targeted ones:

* ``coup_de_grace:<target>:<weapon>`` — a helpless enemy finished with a weapon
  that can (:func:`engine.rules.coup_de_grace.verify_coup_de_grace`: a melee weapon
  that reaches it, a ranged one from an adjacent square); a full-round action,
  never with one action only;
* ``full_attack:<target>:<weapon>`` — every attack of one weapon that can hit now;
* ``defensive_full_attack:<target>:<weapon>`` — the same with a melee weapon,
  fighting defensively (−4 on the attacks, +2 AC until the next turn);
* ``attack:<target>:<weapon>`` — a single attack (the only attack a disabled
  combatant, or any combatant in the surprise round, can make);
* ``charge:<target>`` — a straight clear line, then one attack at +2;
* ``step_full_attack:<target>`` — a 5-foot step that brings a melee weapon in
  reach, then a full attack;
* ``move_attack:<target>:<weapon>`` — a move toward the target after which that
  weapon can hit it, then one attack (not when disabled: one action only);
* ``move:<target>`` — a move toward the target (when it moves at least a square);
* ``run:<target>`` — run in a straight line toward an enemy a double move could
  not reach (4× speed; no Dex bonus to AC until the next turn);
* ``withdraw`` — retreat up to twice the speed, or the (halved) speed for a
  disabled combatant's restricted withdraw (when it moves at least a square);
* ``tumble:<target>`` — a tumbling move toward the target (half speed,
  Acrobatics against each threatening enemy's CMD instead of provoking),
  offered to a creature with a rank of Acrobatics some square of whose space
  is threatened, when it moves at least a square;
* ``hide`` — a Stealth check (move action), offered when some active enemy
  lacks direct sight of the actor (cover, concealment, blinded);
* ``drop_prone`` — lie down (+4 AC against ranged attacks, −4 in melee), offered
  when some enemy has a ranged attack;
* ``aid_another:<ally>:<opponent>:<mode>`` — aid an ally against an enemy
  engaged with it and in the actor's melee reach (``mode``: ``attack`` or
  ``ac``);
* ``ready:<trigger>`` — ready an attack on the enemy that triggers it
  (``enemy_enters_reach`` with a melee reach, ``enemy_attacks``,
  ``enemy_hits_ally`` with allies; ``enemy_casts`` is never offered: no one
  casts spells yet);
* ``cast_spell:<spell>:<target>``, ``cast_spell:<spell>:<row>,<col>``,
  ``cast_spell:<spell>`` — cast a known spell with a slot left (cantrips at will;
  :func:`engine.rules.casting.verify_cast_spell`): at each creature it may take (a
  spell for willing creatures at the actor and its allies, and at the enemies
  one of its harmful effects acts on — a cure at an undead; a buff without an
  attack roll, *enlarge person*, at every creature; any other at each active
  enemy), at each distinct placement of its area that catches an enemy
  (:func:`engine.geometry.areas.area_placements`: most enemies first, then
  fewest allies), or once for an area centred on the caster; not a full-round
  cast with one action only nor in the surprise round, not a swift one without
  the swift action; ``defensive_cast_spell:…`` the same cast defensively, when
  the actor is threatened (prone combatants get them too); built by
  :mod:`engine.view.casts`, which also hands a policy these casts alone;
* ``repair_weapon:<weapon>`` — clear a broken (misfired) firearm, a move action
  (prone combatants get it too);
* ``escape:<spell>`` — break free of a spell that holds the actor (*web*: a
  standard action, *entangle*: a move action; :func:`engine.rules.endings.verify_escape`;
  prone combatants get it too);
* ``total_defense`` — +4 AC until the next turn (a standard action);
* ``delay`` — act at the end of the round instead (once per round);
* ``wait`` — do nothing.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from engine.content.actions import (
    AidAnotherAction,
    AttackAction,
    ChargeAction,
    CoupDeGraceAction,
    DelayAction,
    DropProneAction,
    EscapeAction,
    FightDefensivelyAction,
    FiveFootStepAction,
    FullAttackAction,
    HideAction,
    MoveAction,
    Option,
    ReadyAction,
    ReadyTrigger,
    Reason,
    RepairWeaponAction,
    RunAction,
    StandUpAction,
    TotalDefenseAction,
    WaitAction,
    WithdrawAction,
)
from engine.content.maps import GameMap
from engine.geometry.movement import step_toward
from engine.rules.endings import held_by
from engine.rules.moves import verify_charge, verify_move, verify_run, verify_step, verify_withdraw
from engine.rules.readiness import verify_aid, verify_ready
from engine.rules.skills import trained
from engine.rules.status import GATED
from engine.rules.stealth import verify_hide
from engine.rules.strikes import verify_attack
from engine.rules.table import verify_delay
from engine.rules.weapons import verify_repair
from engine.state.conditions import CANT_ACT, HELPLESS, ONE_MOVE
from engine.view.casts import allowed, cast_options
from engine.view.observation import Observation

_HELPLESS = HELPLESS
#: the conditions that take options off the menu (engine.rules.status.gate, nauseated)
_LIMITING = GATED | ONE_MOVE


def _prone_options(obs: Observation, gmap: GameMap, single: bool) -> tuple[Option, ...]:
    """A prone combatant cannot move: it stands up (a move action that provokes),
    then may attack, or attacks from the ground at −4."""
    me = obs.actor
    out: list[Option] = [Option("stand_up", "se relever", (StandUpAction(),))]
    for enemy in obs.enemies():
        tid = enemy.id
        for attack in me.attacks:
            strike = AttackAction(target_id=tid, weapon_id=attack.id)
            if isinstance(verify_attack(gmap, obs, me, strike), Reason):
                continue
            if not single:
                out.append(
                    Option(
                        f"stand_attack:{tid}:{attack.id}",
                        f"se relever puis attaque sur {tid} ({attack.name})",
                        (StandUpAction(), strike),
                    )
                )
            out.append(
                Option(
                    f"attack:{tid}:{attack.id}",
                    f"attaque à terre sur {tid} ({attack.name}, -4)",
                    (strike,),
                )
            )
    out += cast_options(obs, gmap, single)
    out += _repair_options(obs, gmap)
    if me.effects.items:  # (most actors have no effect at all)
        out += _escape_options(obs)
    out.append(Option("total_defense", "défense totale (+4 CA)", (TotalDefenseAction(),)))
    out.append(Option("wait", "attendre", (WaitAction(),)))
    return tuple(out)


def _repair_options(obs: Observation, gmap: GameMap) -> list[Option]:
    """One ``repair_weapon`` option per broken weapon, in attack list order
    (:func:`engine.rules.weapons.verify_repair`)."""
    me = obs.actor
    if not me.weapon_broken:
        return []
    out: list[Option] = []
    for a in me.static.attacks:
        action = RepairWeaponAction(weapon_id=a.id)
        if not isinstance(verify_repair(gmap, obs, me, action), Reason):
            out.append(
                Option(
                    f"repair_weapon:{a.id}", f"réparer {a.name} (action de mouvement)", (action,)
                )
            )
    return out


def _delay_option(obs: Observation, gmap: GameMap) -> list[Option]:
    """``delay`` (:func:`engine.rules.table.verify_delay`), never in the surprise round."""
    action = DelayAction()
    if obs.round == 0 or isinstance(verify_delay(gmap, obs, obs.actor, action), Reason):
        return []
    return [Option("delay", "retarder son tour (agir en fin de round)", (action,))]


_AID_MODES: tuple[tuple[Literal["attack", "ac"], str], ...] = (
    ("attack", "+2 à l'attaque"),
    ("ac", "+2 CA"),
)


def _aid_and_ready_options(obs: Observation, gmap: GameMap) -> list[Option]:
    """Aid another (per ally, per enemy engaged with it in the actor's melee
    reach, per mode: :func:`engine.rules.readiness.verify_aid`) and ready (per
    trigger that can happen: :func:`engine.rules.readiness.verify_ready`)."""
    me = obs.actor
    out: list[Option] = []
    allies = obs.allies()
    enemies = obs.enemies()
    for ally in allies:
        for enemy in enemies:
            for mode, what in _AID_MODES:
                action = AidAnotherAction(target_id=ally.id, aid_mode=mode, opponent_id=enemy.id)
                if isinstance(verify_aid(gmap, obs, me, action), Reason):
                    break  # the mode changes nothing in the judgement
                out.append(
                    Option(
                        f"aid_another:{ally.id}:{enemy.id}:{mode}",
                        f"aider {ally.id} contre {enemy.id} ({what})",
                        (action,),
                    )
                )
    triggers: list[tuple[ReadyTrigger, str]] = []
    if me.threat_reach_ft > 0:
        triggers.append(("enemy_enters_reach", "quand un ennemi entre dans son allonge"))
    triggers.append(("enemy_attacks", "quand un ennemi attaque"))
    if allies:
        triggers.append(("enemy_hits_ally", "quand un ennemi touche un allié"))
    for trigger, when in triggers:
        action = ReadyAction(ready_trigger=trigger)
        if isinstance(verify_ready(gmap, obs, me, action), Reason):
            continue
        out.append(Option(f"ready:{trigger}", f"préparer une attaque {when}", (action,)))
    return out


def _tumble_options(obs: Observation, gmap: GameMap) -> list[Option]:
    """``tumble:<target>`` when trained in Acrobatics and threatened (engine.rules.tumbling):
    the path is the one the engine walks (:func:`engine.rules.moves.verify_move`)."""
    me = obs.actor
    if not trained(me.profile, "Acrobatics") or not obs.threatened_at(me.cell, me.space):
        return []
    out: list[Option] = []
    for enemy in obs.enemies():
        action = MoveAction(target_id=enemy.id, tumble=True)
        plan = verify_move(gmap, obs, me, action)
        if not isinstance(plan, Reason) and plan.path.cells:
            out.append(
                Option(
                    f"tumble:{enemy.id}",
                    f"acrobaties vers {enemy.id} ({5 * plan.path.cost} pieds, sans provoquer)",
                    (action,),
                    plan.path.cells,
                )
            )
    return out


def _hide_option(obs: Observation, gmap: GameMap) -> list[Option]:
    """``hide`` when some active enemy lacks direct sight of the actor
    (:func:`engine.rules.stealth.verify_hide`)."""
    action = HideAction()
    if isinstance(verify_hide(gmap, obs, obs.actor, action), Reason):
        return []
    return [Option("hide", "se cacher (Discrétion)", (action,))]


def _escape_options(obs: Observation) -> list[Option]:
    """``escape:<spell>``: break free of each spell that holds the actor (*web*, *entangle*)."""
    held = held_by(obs.actor)
    if not held:
        return []
    from engine.content.spells import default_registry  # (only for a held creature)

    registry = default_registry()
    out: list[Option] = []
    for spell_id in held:
        # the French name of a shipped spell; an encounter's own spell keeps its id
        label = registry.get(spell_id).label if spell_id in registry else spell_id
        out.append(
            Option(
                f"escape:{spell_id}", f"se libérer ({label})", (EscapeAction(spell_name=spell_id),)
            )
        )
    return out


def _coup_de_grace_options(obs: Observation, tid: str) -> list[Option]:
    """``coup_de_grace:<target>:<weapon>`` per weapon that can finish the helpless
    enemy ``tid`` (:meth:`Observation.coup_de_grace_weapons`)."""
    return [
        Option(
            f"coup_de_grace:{tid}:{attack.id}",
            f"coup de grâce sur {tid} ({attack.name})",
            (CoupDeGraceAction(target_id=tid, weapon_id=attack.id),),
        )
        for attack in obs.coup_de_grace_weapons(tid)
    ]


def legal_options(obs: Observation, gmap: GameMap) -> tuple[Option, ...]:
    """The menu for ``obs.actor`` on the engine's ``gmap`` (see module docstring)."""
    cond = obs.actor.effects.cond
    if cond & _LIMITING:
        return _limited_options(obs, gmap, cond)
    return _options(obs, gmap, False)


def _limited_options(obs: Observation, gmap: GameMap, cond: int) -> tuple[Option, ...]:
    """The menu of an actor under conditions that limit what it may do: the
    options whose every action :func:`engine.rules.status.gate` lets through and,
    nauseated, that fit its one move action (:func:`engine.rules.economy.filter_plan`,
    the engine's own budget); one that cannot act only waits."""
    wait = Option("wait", "attendre", (WaitAction(),))
    if cond & CANT_ACT:
        return (wait,)
    nauseated = cond & ONE_MOVE != 0
    out: list[Option] = []
    for option in _options(obs, gmap, nauseated):
        if allowed(option, cond, nauseated):
            out.append(option)
    return tuple(out)


def _options(obs: Observation, gmap: GameMap, single: bool) -> tuple[Option, ...]:
    """The menu before the conditions' limits (``single``: one action, as disabled)."""
    me = obs.actor
    if me.prone:
        return _prone_options(obs, gmap, single or me.staggered or obs.round == 0)
    out: list[Option] = []
    # one action only: disabled, nonlethal equal to hp, staggered, or the surprise round
    disabled = single or me.staggered or obs.round == 0
    k = me.space
    occupied = obs.blockers()[0]
    for enemy in obs.enemies():
        tid = enemy.id
        if not disabled and enemy.effects.cond & _HELPLESS:
            out += _coup_de_grace_options(obs, tid)
        natural_full = False  # a full attack with natural weapons uses them all: list it once
        for attack in me.attacks:
            strike = AttackAction(target_id=tid, weapon_id=attack.id)
            if isinstance(verify_attack(gmap, obs, me, strike), Reason):
                continue
            if not disabled and not (attack.natural and natural_full):
                full = FullAttackAction(target_id=tid, weapon_id=attack.id)
                if not isinstance(verify_attack(gmap, obs, me, full), Reason):
                    natural_full = natural_full or attack.natural
                    out.append(
                        Option(
                            f"full_attack:{tid}:{attack.id}",
                            f"outrance sur {tid} ({attack.name})",
                            (full,),
                        )
                    )
                    if attack.is_melee:
                        out.append(
                            Option(
                                f"defensive_full_attack:{tid}:{attack.id}",
                                f"outrance défensive sur {tid} ({attack.name}, -4, +2 CA)",
                                (FightDefensivelyAction(), full),
                            )
                        )
            out.append(
                Option(f"attack:{tid}:{attack.id}", f"attaque sur {tid} ({attack.name})", (strike,))
            )
        if disabled:
            continue
        charge = ChargeAction(target_id=tid)
        charged = verify_charge(gmap, obs, me, charge)
        if not isinstance(charged, Reason):
            out.append(
                Option(
                    f"charge:{tid}",
                    f"charge sur {tid} ({charged.attack.name})",
                    (ChargeAction(target_id=tid, weapon_id=charged.attack.id),),
                    charged.path.cells,
                )
            )
        if obs.melee_weapon_for(tid) is None:
            # the step that brings a melee weapon in reach, then a full attack from there
            cell, in_reach = step_toward(
                gmap, me.cell, enemy.cell, me.attacks, occupied, k, enemy.space
            )
            if cell is not None and in_reach:
                r, c = gmap.rc(cell)
                step = FiveFootStepAction(destination=(r, c))
                stepped = verify_step(gmap, obs, me, step)
                full = FullAttackAction(target_id=tid)
                if not isinstance(stepped, Reason) and not isinstance(
                    verify_attack(gmap, obs, replace(me, cell=stepped), full), Reason
                ):
                    out.append(
                        Option(
                            f"step_full_attack:{tid}",
                            f"pas vers ({r},{c}) puis outrance sur {tid}",
                            (step, full),
                            (stepped,),
                        )
                    )
    for enemy in obs.enemies():
        tid = enemy.id
        move = MoveAction(target_id=tid)
        walked = verify_move(gmap, obs, me, move)
        if isinstance(walked, Reason) or not walked.path.cells:
            continue
        cells = walked.path.cells
        there = replace(me, cell=cells[-1])  # the actor once the move is walked
        for attack in me.attacks:
            strike = AttackAction(target_id=tid, weapon_id=attack.id)
            if not disabled and not isinstance(verify_attack(gmap, obs, there, strike), Reason):
                out.append(
                    Option(
                        f"move_attack:{tid}:{attack.id}",
                        f"approche de {tid} puis attaque ({attack.name})",
                        (move, strike),
                        cells,
                    )
                )
        out.append(
            Option(
                f"move:{tid}", f"approche de {tid} ({5 * walked.path.cost} pieds)", (move,), cells
            )
        )
    for enemy in obs.enemies():
        # a run (4× speed, straight line) when a double move could not reach the enemy
        if (
            disabled
            or me.run_rest_rounds  # resting after a failed Constitution check
            or obs.distance_ft(enemy.id) <= 2 * me.speed_effective_ft
        ):
            continue
        run = RunAction(target_id=enemy.id)
        ran = verify_run(gmap, obs, me, run)
        if not isinstance(ran, Reason) and ran.cells:
            out.append(
                Option(
                    f"run:{enemy.id}",
                    f"course vers {enemy.id} ({5 * ran.cost} pieds, CA sans Dex)",
                    (run,),
                    ran.cells,
                )
            )
    out += _tumble_options(obs, gmap)
    withdraw = WithdrawAction()
    retreat = verify_withdraw(gmap, obs, me, withdraw)
    if not isinstance(retreat, Reason) and retreat.cells:
        label = "retraite restreinte" if disabled else "retraite"
        out.append(Option("withdraw", label, (withdraw,), retreat.cells))
    out += _hide_option(obs, gmap)
    if any(a.range_increment_ft is not None for e in obs.enemies() for a in e.attacks):
        out.append(
            Option("drop_prone", "se jeter à terre (+4 CA contre les tirs)", (DropProneAction(),))
        )
    out += _aid_and_ready_options(obs, gmap)
    out += cast_options(obs, gmap, disabled)
    out += _repair_options(obs, gmap)
    if me.effects.items:  # (most actors have no effect at all)
        out += _escape_options(obs)
    out.append(Option("total_defense", "défense totale (+4 CA)", (TotalDefenseAction(),)))
    out += _delay_option(obs, gmap)
    out.append(Option("wait", "attendre", (WaitAction(),)))
    return tuple(out)
