"""The figures a player weighs for each option of the menu, from the Observation.

For every turn plan of ``obs.legal_options`` :func:`option_figures` computes,
with the observation's own rule helpers (no engine state, nothing the engine's
turn loop pays for: only a policy that asks gets them):

* the chance of each attack roll to hit: d20 + the attack's bonus and the
  modifiers the observation exposes (iterative penalty, range increments,
  shooting into a melee, flanking, high ground, charge, prone, fighting
  defensively, aid) against the target's AC (touch AC for touch attacks and
  firearms in their first increment, no Dex against a running target, cover
  from the square the attack is made from, charge, prone, defence and aid
  bonuses); a natural 1 always misses and a natural 20 always hits, so every
  chance lies between 5 and 95 %;
* the expected damage: the sum over the rolls of chance × mean damage (at
  least 1 on a hit), **critical hits and damage reduction ignored** (a coup de
  grâce: a sure hit, its critical multiplier × the mean damage, the Fortitude
  save that may kill not counted), capped at
  what takes the target out of the fight (its hp + 1: below 0 it is dying), so
  a shot at a target left at 0 hp weighs at most 1;
* the target's hp left (and maximum);
* the enemies whose attack of opportunity the plan risks: those threatening a
  square it leaves (the withdraw's first square and the 5-foot step excepted),
  a square it shoots from, the square it stands up in or delivers a coup de
  grâce from, that still have an attack of opportunity this round.

Modifiers the observation does not expose from a square the plan moves to
(high ground, shooting into a melee) are taken from the current square;
concealment is ignored.

A cast (``cast_spell`` and ``defensive_cast_spell``, :func:`cast_figures`) shows
what a player weighs before spending a slot: the spell's level and the slots of
that level left (« sort mineur » for a cantrip, cast at will); for each enemy it
reaches, the expected damage (:func:`policies.spellcasting.expected_damage`: the
touch attack's chance, the save, immunities and resistances; spell resistance
is not in the Observation) capped at its hp + 1, and the chance it fails the
save against each condition the spell gives (1 without a save); for an ally,
the mean healing capped at its missing hit points, or the buff; the allies an
area catches; and the attacks of opportunity a cast risks (every enemy that
threatens the caster and has one left, unless it is cast defensively: then the
chance of the concentration check instead). A cast on a single enemy that
deals damage has that enemy as its ``target`` and ranks with the attacks.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.content.actions import (
    Action,
    AttackAction,
    CastSpellAction,
    ChargeAction,
    CoupDeGraceAction,
    FightDefensivelyAction,
    FullAttackAction,
    MoveAction,
    Option,
    RunAction,
    StandUpAction,
    WithdrawAction,
)
from engine.content.creatures import AttackProfile
from engine.content.maps import Cell
from engine.geometry.reach import range_penalty
from engine.rules.attack import (
    CHARGE_AC_PENALTY,
    CHARGE_ATTACK_BONUS,
    FIGHT_DEFENSIVELY_PENALTY,
    FLANKING_BONUS,
    HIGH_GROUND_BONUS,
    MULTIATTACK_SECONDARY,
    PRONE_AC_VS_MELEE,
    PRONE_AC_VS_RANGED,
    PRONE_ATTACK,
    SECONDARY_NATURAL,
    SHOOTING_INTO_MELEE,
    iterative_penalties,
)
from engine.view.observation import Observation
from engine.view.snapshot import CombatantView


@dataclass(frozen=True, slots=True)
class Figures:
    """What one option is worth, as a player would weigh it."""

    #: the attacked combatant (None: the plan attacks no one)
    target: str | None = None
    #: chance to hit of each attack roll, in order
    hit: tuple[float, ...] = ()
    #: expected damage, crits ignored, capped at the target's hp + 1
    damage: float = 0.0
    target_hp: int = 0
    target_hp_max: int = 0
    #: enemies whose attack of opportunity the plan risks
    provokes: tuple[str, ...] = ()
    #: a cast's own figures, in French (:func:`cast_figures`): its level and slots
    #: first, then what it does to each creature; empty for any other option
    spell: tuple[str, ...] = ()

    def text(self) -> str:
        """The French summary shown after the option's label."""
        parts: list[str] = list(self.spell[:1])
        if self.target is not None:
            if self.hit:
                hits = "/".join(f"{round(100 * p)}" for p in self.hit)
                parts.append(f"toucher {hits} %")
            parts += [
                f"dégâts {self.damage:.1f}".replace(".", ","),
                f"{self.target} {self.target_hp}/{self.target_hp_max} pv",
            ]
        parts += self.spell[1:]
        parts.append(f"AO {len(self.provokes)}")
        return " ; ".join(parts)


def hit_chance(bonus: int, ac: int) -> float:
    """Chance that d20 + ``bonus`` ≥ ``ac``, natural 1 missing and 20 hitting.

    >>> hit_chance(4, 17), hit_chance(30, 10), hit_chance(0, 40)
    (0.4, 0.95, 0.05)
    """
    return min(0.95, max(0.05, (21 - (ac - bonus)) / 20))


def mean_damage(attack: AttackProfile) -> float:
    """Mean damage of one hit: every part's dice, the flat bonus, at least 1."""
    return max(1.0, sum(p.dice.mean for p in attack.parts) + attack.damage_bonus)


def _attack_of(me: CombatantView, weapon_id: str | None) -> AttackProfile | None:
    return next((a for a in me.attacks if a.id == weapon_id), None)


def _rolls(
    obs: Observation, action: AttackAction | FullAttackAction | ChargeAction, cell: Cell
) -> list[tuple[AttackProfile, int]]:
    """The attack rolls of one attacking action made from ``cell``: (attack, penalty)."""
    me, tid = obs.actor, action.target_id
    assert tid is not None
    weapon = _attack_of(me, action.weapon_id) if action.weapon_id else None
    if weapon is None:
        weapon = obs.weapon_from(cell, tid)
    if weapon is None:
        return []
    if isinstance(action, FullAttackAction) and weapon.natural:
        dist = obs.distance_from(cell, tid)
        return [
            (a, 0)
            for a in me.attacks
            if a.natural and (a is weapon or dist <= (a.reach_ft if a.is_melee else a.max_range_ft))
            for _ in range(a.count)
        ]
    if isinstance(action, FullAttackAction):
        pens = iterative_penalties(me.bab, weapon)
        return [(weapon, p) for p in pens for _ in range(weapon.count)]
    return [(weapon, 0)] * weapon.count


def _roll_chance(
    obs: Observation,
    attack: AttackProfile,
    penalty: int,
    target: CombatantView,
    cell: Cell,
    plan: tuple[Action, ...],
) -> float:
    me = obs.actor
    pair = obs.pair(target.id)
    charge = any(isinstance(a, ChargeAction) for a in plan)
    bonus = attack.attack_bonus + penalty
    if attack.spec.secondary:
        multi = "multiattack" in me.features
        bonus += MULTIATTACK_SECONDARY if multi else SECONDARY_NATURAL
    dist = obs.distance_from(cell, target.id)
    if attack.is_melee:
        if cell == me.cell and pair.high_ground:
            bonus += HIGH_GROUND_BONUS
        if obs.flanking_from(cell, target.id):
            bonus += FLANKING_BONUS
    else:
        bonus += range_penalty(attack, dist)
        if pair.shooting_into_melee:
            bonus += SHOOTING_INTO_MELEE
    if charge:
        bonus += CHARGE_ATTACK_BONUS
    if any(isinstance(a, FightDefensivelyAction) for a in plan):
        bonus += FIGHT_DEFENSIVELY_PENALTY
    if me.prone and not any(isinstance(a, StandUpAction) for a in plan):
        bonus += PRONE_ATTACK
    bonus += me.aid_bonus("attack").get(target.id, 0)

    base_ac = target.ac
    touch = attack.kind == "touch" or attack.spec.splash is not None
    if attack.spec.firearm and attack.range_increment_ft is not None:
        touch = dist <= attack.range_increment_ft
    ac = base_ac.touch if touch else base_ac.total
    if target.running and "run" not in target.features:
        ac -= max(0, base_ac.total - base_ac.flat_footed)
    ac += obs.target_cover_from(cell, target.id, attack)
    if target.charging:
        ac -= CHARGE_AC_PENALTY
    if target.prone:
        ac += PRONE_AC_VS_MELEE if attack.is_melee else PRONE_AC_VS_RANGED
    ac += target.defense_ac_bonus + target.aid_bonus("ac").get(me.id, 0)
    return hit_chance(bonus, ac)


def _left_squares(obs: Observation, option: Option) -> list[Cell]:
    """The squares the plan leaves by moving (those that provoke)."""
    me = obs.actor
    out: list[Cell] = []
    for action in option.actions:
        if isinstance(action, MoveAction) and action.tumble:
            continue  # Acrobatics against each threatening enemy instead of provoking
        if isinstance(action, StandUpAction):
            out.append(me.cell)
        elif isinstance(action, (MoveAction, ChargeAction, RunAction, WithdrawAction)):
            squares = [me.cell, *option.path[:-1]]
            out += squares[1:] if isinstance(action, WithdrawAction) else squares
    return out


def option_figures(obs: Observation, option: Option) -> Figures:
    """The :class:`Figures` of one option of ``obs.legal_options`` (see module docstring)."""
    me = obs.actor
    if option.actions and isinstance(option.actions[0], CastSpellAction):
        return cast_figures(obs, option)
    end = option.path[-1] if option.path else me.cell
    threat_cells = _left_squares(obs, option)
    target: CombatantView | None = None
    chances: list[float] = []
    expected = 0.0
    for action in option.actions:
        if isinstance(action, CoupDeGraceAction) and action.target_id is not None:
            # an automatic critical hit, from where the actor stands (it provokes)
            target = obs.combatant(action.target_id)
            weapon = _attack_of(me, action.weapon_id)
            if weapon is not None:
                chances.append(1.0)
                expected += weapon.crit_mult * mean_damage(weapon)
            threat_cells.append(end)
            continue
        if not isinstance(action, (AttackAction, FullAttackAction, ChargeAction)):
            continue
        if action.target_id is None:
            continue
        target = obs.combatant(action.target_id)
        for attack, penalty in _rolls(obs, action, end):
            p = _roll_chance(obs, attack, penalty, target, end, option.actions)
            chances.append(p)
            expected += p * mean_damage(attack)
            if not attack.is_melee:
                threat_cells.append(end)
    provokes: list[str] = []
    for cell in dict.fromkeys(threat_cells):
        for eid in obs.threatening(cell):
            if eid not in provokes and obs.combatant(eid).aoo_remaining > 0:
                provokes.append(eid)
    if target is None:
        return Figures(provokes=tuple(provokes))
    return Figures(
        target=target.id,
        hit=tuple(chances),
        damage=min(expected, float(target.hp + 1)),
        target_hp=target.hp,
        target_hp_max=target.hp_max,
        provokes=tuple(provokes),
    )


def dominated(options: tuple[Option, ...]) -> frozenset[str]:
    """Ids of options another option of the menu does better than, everything else
    equal: a single attack when the full attack with the same weapon on the same
    target is offered (the menu's single attack leaves its move action unused),
    and a move toward a target when the same move followed by an attack is offered.
    """
    ids = {o.id for o in options}
    out: set[str] = set()
    for o in options:
        kind, _, rest = o.id.partition(":")
        if kind == "attack" and f"full_attack:{rest}" in ids:
            out.add(o.id)
        if kind == "move" and any(i.startswith(f"move_attack:{rest}:") for i in ids):
            out.add(o.id)
    return frozenset(out)


#: options that attack without moving the actor
_IN_PLACE = frozenset({"attack", "full_attack"})

#: expected damages closer than this are equal (sums in another order)
_EPS = 1e-9

#: attacking option kinds whose worth the figures show in full (the defensive full
#: attack buys armour class that the figures do not count: never outclassed)
_COMPARABLE = frozenset(
    {"attack", "full_attack", "stand_attack", "step_full_attack", "move_attack", "charge"}
)


def outclassed(
    obs: Observation, options: tuple[Option, ...], figures: dict[str, Figures] | None = None
) -> frozenset[str]:
    """Ids of attacking options that another option on the **same target** beats on
    the figures the menu shows: at least as much expected damage and no attack of
    opportunity that the other does not risk too, strictly better on one of them.

    Options on different targets are never compared (the target's hp is the
    player's call), nor options that attack no one; two options with the same
    figures are both kept. The figures ignore where each option leaves the actor.

    « attendre » (doing nothing) is outclassed too when an attack from where the
    actor stands risks no attack of opportunity: it leaves the actor in the same
    square with a chance to hurt.

    ``figures``: the options' figures when the caller has them already (by id).
    """
    known = figures or {}
    comparable = {
        o.id: known.get(o.id) or option_figures(obs, o)
        for o in options
        if o.id.split(":")[0] in _COMPARABLE
    }
    out: set[str] = set()
    for oid, f in comparable.items():
        if f.target is None:
            continue
        risks = set(f.provokes)
        for other, g in comparable.items():
            if other == oid or g.target != f.target:
                continue
            more = g.damage - f.damage
            if (
                set(g.provokes) <= risks
                and more >= -_EPS
                and (more > _EPS or len(g.provokes) < len(risks))
            ):
                out.add(oid)
                break
    if any(
        oid.split(":")[0] in _IN_PLACE and f.target is not None and f.damage > 0 and not f.provokes
        for oid, f in comparable.items()
    ):
        out.update(o.id for o in options if o.id == "wait")
    return frozenset(out)


#: the French abbreviations of the saves, as a character sheet writes them
_SAVE_LABELS = {"fort": "Vig", "ref": "Réf", "will": "Vol"}


def _pct(p: float) -> str:
    return f"{round(100 * p)} %"


def _num(x: float) -> str:
    return f"{x:.1f}".replace(".", ",")


def cast_figures(obs: Observation, option: Option) -> Figures:
    """The :class:`Figures` of a ``cast_spell`` or ``defensive_cast_spell`` option
    (module docstring). Only a policy that shows the figures pays for them."""
    from engine.rules.concentration import defensive_dc
    from engine.state.conditions import CONDITIONS
    from policies.spellcasting import (
        affects,
        concentration_chance,
        expected_damage,
        save_fails,
    )

    me = obs.actor
    action = option.actions[0]
    assert isinstance(action, CastSpellAction)
    casting = me.casting
    known = casting.book.get(action.spell_name) if casting is not None else None
    if casting is None or known is None:  # pragma: no cover - the menu offers known spells
        return Figures()
    spell, level = known.spell, known.level
    book = casting.book
    cl = book.caster_level
    left = casting.slots[level]
    head = (
        "sort mineur (à volonté)"
        if level == 0
        else f"sort niv {level} (emplacements {left} → {left - 1})"
    )
    parts: list[str] = [head]
    ids = _cast_ids(obs, option, action)
    dc = book.dc(level)
    enemies = [c for c in (obs.combatant(i) for i in ids) if c.side != me.side]
    allies = [c for c in (obs.combatant(i) for i in ids) if c.side == me.side]
    damaging = any(e.kind == "damage" for e in spell.effects)
    conditions = [n for e in spell.effects if e.kind == "condition" for n in e.phases[0].conditions]
    target: CombatantView | None = None
    damage = 0.0
    hit: tuple[float, ...] = ()
    for c in enemies:
        if not affects(obs, spell, cl, c):
            parts.append(f"{c.id} : sans effet")
            continue
        if damaging and len(ids) == 1:
            target = c
            damage = min(expected_damage(obs, known, c), float(c.hp + 1))
            if spell.attack in ("melee_touch", "ranged_touch"):
                touch = book.ranged_touch if spell.attack == "ranged_touch" else book.melee_touch
                hit = (hit_chance(touch.attack_bonus, c.ac.touch),)
        elif damaging:
            cut = min(expected_damage(obs, known, c), float(c.hp + 1))
            parts.append(f"{c.id} dégâts {_num(cut)} ({c.hp}/{c.hp_max} pv)")
        if conditions and spell.save is not None and spell.save.outcome != "none":
            save = _SAVE_LABELS.get(spell.save.type or "", "")
            labels = "/".join(CONDITIONS[n].label for n in dict.fromkeys(conditions))
            fail = save_fails(spell, dc, c)
            parts.append(f"{c.id} {labels} {_pct(fail)} (DD {dc} {save})")
        elif conditions:
            labels = "/".join(CONDITIONS[n].label for n in dict.fromkeys(conditions))
            parts.append(f"{c.id} {labels}")
    heals = [e for e in spell.effects if e.kind == "heal"]
    plain: list[str] = []
    for c in allies:
        if heals:
            mean = sum(e.formula.dice(cl).mean for e in heals)
            gain = min(mean, max(0, c.hp_max - c.hp))
            parts.append(f"soins {_num(gain)} sur {c.id} ({c.hp}/{c.hp_max} pv)")
        else:
            plain.append(c.id)
    if plain:
        harmful = damaging or conditions
        parts.append(("alliés pris : " if harmful else "pour : ") + ", ".join(plain))
    provokes: list[str] = []
    if action.cast_defensively:
        chance = concentration_chance(me, defensive_dc(level))
        parts.append(f"concentration {_pct(chance)}")
    else:
        provokes = [e for e in obs.threatening(me.cell) if obs.combatant(e).aoo_remaining > 0]
    if target is None:
        return Figures(provokes=tuple(provokes), spell=tuple(parts))
    return Figures(
        target=target.id,
        hit=hit,
        damage=damage,
        target_hp=target.hp,
        target_hp_max=target.hp_max,
        provokes=tuple(provokes),
        spell=tuple(parts),
    )


def _cast_ids(obs: Observation, option: Option, action: CastSpellAction) -> tuple[str, ...]:
    """The creatures a cast acts on: those its area catches (the menu's
    :class:`~engine.view.casts.CastCandidate`), its targets, or the caster."""
    from engine.view.casts import cast_candidates

    for c in cast_candidates(obs):
        if c.option.id == option.id:
            if c.enemies or c.allies:
                return (*c.enemies, *c.allies)
            break
    if action.target_ids:
        return (action.target_id or obs.actor.id, *action.target_ids)
    if action.target_id is not None:
        return (action.target_id,)
    return () if action.target_pos is not None else (obs.actor.id,)
