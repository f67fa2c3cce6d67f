"""The default heuristic's spells: which cast a caster makes this turn, if any.

:func:`choose_cast` is a pure function of the :class:`~engine.view.observation.Observation`.
It chooses only among the casts the menu offers
(:func:`engine.view.casts.cast_candidates`: a known spell with a
slot left, in range and line of effect, at a target the spell may take, each checked
by :func:`engine.rules.casting.verify_cast_spell`), so the engine never refuses it.
A creature without spells never gets here (the heuristic tests ``casting`` first).

What a spell can do to a creature is read from the spell and the creature's public
fields: the spell's and the effect's ``affects`` (type, alignment, Hit Dice), the
Hit Dice limits of a condition (*color spray*), the pool of Hit Dice of *sleep*
(a creature with more Hit Dice than the pool's maximum is never put to sleep), the
creature's immunities to the spell's descriptors and to the condition it gives
(:func:`engine.rules.saves.immune`: undead against mind-affecting spells), and a
condition it already has. Spell resistance is not in the Observation: it is not
weighed.

Priorities, the first that offers a cast wins:

1. **heal**: an ally (the caster included) below 0 hit points (dying or stable)
   or at half its hit points or less, that a healing spell can take now → the
   highest-level healing spell (ties: the file's order), at the ally below 0
   first, then the lowest share of hit points (then deployment order). Half:
   a *cure light wounds* (1d8 + CL, 5.5 to 9.5) then restores most of a low-level
   creature's loss without being wasted, and below half one or two hits drop it.
2. **area**: an area spell (not one for willing creatures) whose area catches at
   least two active enemies it can affect and no ally it can affect (*bane*
   catches allies it spares: they do not count) → the placement that affects the
   most enemies (ties: the menu's order — most enemies caught, fewest allies, then
   the aim square).
   **2b. mirror images**: *mirror image* on the caster when it has no images and an
   active enemy is within 30 ft or threatens it (before a save-or-lose: the images
   keep it casting).
3. **save-or-lose**: a spell that gives a condition that takes its target out of
   the fight (asleep, unconscious, paralyzed, helpless, stunned, dazed, cowering,
   panicked, frightened, nauseated, confused), at one enemy it can affect and
   that does not have it yet (an area that affects that one enemy and no ally
   counts: *sleep* or *color spray* on one target) → the cast whose save the
   target fails most often (DC − the target's matching save bonus: the weakest
   save), ties: the lower spell level, then the menu's order. A spell that only
   hinders (*slow*: staggered) counts here when it reaches two enemies or more,
   each chance to fail weighing half.
4. **buffs before contact**: while no active enemy threatens the caster or an
   ally, or in the first round → a buff of level 1 or more (cantrips such as
   *resistance* or *guidance* are not worth a turn) on a creature of its side
   that does not have it yet (its ``active_effects``: ``sort:<id>``); an area buff
   (*bless*) when it reaches at least two such creatures. Self first, then the
   allies in deployment order. Temporary hit points (*aid*, *false life*) and
   mirror images count as buffs (``pv-temp:<id>``, ``images:<id>``).
   *Enlarge person* goes only to an ally without spells whose best attack (mean
   damage) is a melee weapon; a buff of speed alone (*expeditious retreat*,
   *longstrider*) comes after every other buff, and only when the caster's best
   attack is melee and no enemy is within one move and its reach (to close in).
   **4b. temporary hit points at contact** (when the buffs before contact no longer
   apply): on the caster (*false life*) when an active enemy is within 30 ft or
   threatens it, on an ally an enemy threatens (*aid*: in melee); never on a
   creature that has temporary hit points already (they do not stack). The caster
   first, then the allies in deployment order; cantrips (*virtue*: 1 point) are
   not worth a turn.
5. **damage**: the cast of the highest expected damage on one enemy, its damage
   capped at the enemy's hit points (damage past them is wasted), so that a kill
   comes first and, among kills, the lower spell level (the slot rule below);
   ties: the nearest enemy, then the menu's order. Expected damage: the formula's
   mean at the caster level × the missiles or rays × the touch attack's chance
   (d20 + the touch bonus against touch AC, 5 % to 95 %; automatic for *magic
   missile*; none for a spell without an attack) × the chance the save does not
   halve or negate it, each energy the target is immune to counting 0 and its
   resistance taken off each missile; recurring damage (*acid arrow*) counts once
   per later round it burns.
6. **reduce person**: when nothing above is cast, *reduce person* at the enemy
   humanoid whose best attack is melee, the most mean damage × the chance it
   fails the save first (it cuts the dice and Strength but gives +2 AC).

**Several targets** (*haste*, *scare*, the mass spells): the menu offers one cast
per first target, with the creatures of its side nearest to it that the spell may
take too (:func:`engine.view.casts.cast_candidates`). A save-or-lose weighs the sum of
the chances its targets fail the save, a damaging cast the sum of its capped
expected damage, a buff counts the creatures that lack it (two or more rank as an
area buff; one ranks as a buff on that creature).

**Slots**: a spell of level 1 or more is never aimed at a single enemy that a
cantrip offered this turn is expected to drop (its expected damage at least the
enemy's hit points); that cantrip is cast instead. A damaging cantrip that does
not drop its target is cast only when no weapon of the caster can hit an enemy
now (a weapon's full attack is worth more than 1d3 of *ray of frost*).

**Threatened** (some enemy threatens the caster's space; the menu then offers
``defensive_cast_spell``): the spell is cast defensively when the concentration
check (d20 + caster level + casting ability, + 4 with Combat Casting, against 15 +
twice the spell's level) succeeds at least 75 % of the time; otherwise it is cast
normally and takes the attacks of opportunity (no step away first: kept simple).
A failed defensive check loses the spell for sure, while casting normally loses it
only if an attack of opportunity hits and the concentration check after the
damage fails: roughly one chance in three to one in two for a low-level caster
next to one enemy, hence the high bar.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.content.actions import TurnPlan
from engine.content.creatures import AttackProfile
from engine.content.spellbook import KnownSpell
from engine.content.spells import Spell
from engine.rules.casting import helpful
from engine.rules.concentration import concentration_modifiers, defensive_dc
from engine.rules.mirror_image import IMAGES
from engine.rules.saves import immune
from engine.rules.temp_hp import TEMP_HP
from engine.state.effects import source_with
from engine.view.casts import CastCandidate, cast_candidates
from engine.view.observation import Observation
from engine.view.snapshot import CombatantView

#: the conditions that take a creature out of the fight (a « save-or-lose »)
TAKES_OUT = frozenset(
    {
        "asleep",
        "unconscious",
        "paralyzed",
        "helpless",
        "stunned",
        "dazed",
        "cowering",
        "panicked",
        "frightened",
        "nauseated",
        "confused",
    }
)
#: conditions that hinder without taking out (*slow*'s staggered): a save-or-lose
#: only for a spell of several targets that reaches two enemies or more
HINDERS = frozenset({"staggered"})
#: what a hindered enemy counts for against one taken out
HINDER_WEIGHT = 0.5
#: the share of its hit points at or below which an ally is healed
HEAL_BELOW = 0.5
#: the least chance of the concentration check for a defensive cast
DEFENSIVE_CHANCE = 0.75


def _first_condition(spell: Spell) -> str | None:
    for e in spell.effects:
        if e.kind == "condition":
            return e.phases[0].conditions[0]
    return None


def _pool_max(spell: Spell, cl: int) -> int | None:
    """The most Hit Dice a pool of Hit Dice (*sleep*) can reach, or ``None``."""
    pool = spell.hd_pool
    if pool is None:
        return None
    return pool.dice(cl).maximum


def affects(obs: Observation, spell: Spell, cl: int, c: CombatantView) -> bool:
    """Whether ``spell`` of the actor can change anything on ``c`` (module docstring):
    its filters, a side filter, the dying filter, an immunity, an effect that acts on
    it, a pool of Hit Dice big enough, a condition it does not have yet."""
    me = obs.actor
    if c.dead:
        return False
    a = spell.affects
    if not a.admits(c.creature_type, c.alignment, c.level):
        return False
    if a.side is not None and (a.side == "allies") != (c.side == me.side):
        return False
    if a.dying is not None and a.dying != (c.hp < 0):
        return False
    first = _first_condition(spell)
    if immune(c, spell.tags, first) is not None:  # type: ignore[arg-type]
        return False
    pool = _pool_max(spell, cl)
    if pool is not None and c.level > pool:
        return False
    acting = False
    for e in spell.effects:
        ea = e.affects
        if not ea.admits(c.creature_type, c.alignment, c.level):
            continue
        if ea.side is not None and (ea.side == "allies") != (c.side == me.side):
            continue
        if ea.dying is not None and ea.dying != (c.hp < 0):
            continue
        if e.kind == "condition":
            if not e.fits(c.level):
                continue
            if all(n in c.conditions for p in e.phases for n in p.conditions):
                continue
        acting = True
    return acting


def _save_fails(spell: Spell, dc: int, target: CombatantView) -> float:
    """The chance ``target`` fails the spell's save (1 without a save)."""
    save = spell.save
    if save is None or save.outcome == "none":
        return 1.0
    bonus = getattr(target.saves, save.type)
    return min(0.95, max(0.05, (dc - bonus - 1) / 20))


def expected_damage(obs: Observation, known: KnownSpell, target: CombatantView) -> float:
    """The damage ``known`` is expected to deal ``target`` (module docstring, 5)."""
    me = obs.actor
    casting = me.casting
    assert casting is not None
    book = casting.book
    spell = known.spell
    cl = book.caster_level
    immunities = {i.lower() for i in target.immunities}
    resist = target.resistances
    per_hit = 0.0
    for e in spell.effects:
        if e.kind == "damage":
            times = 1
        elif e.kind == "recurring":  # (acid arrow): once per later round, resisted each time
            times = e.ticks.number(cl)
        else:
            continue
        if not e.affects.admits(target.creature_type, target.alignment, target.level):
            continue
        if any(t in immunities for t in e.types):
            continue
        mean = e.formula.dice(cl).mean
        cut = max((resist.get(t, 0) for t in e.types), default=0)
        per_hit += times * max(0.0, mean - cut)
    if not per_hit:
        return 0.0
    count = spell.projectile_count(cl)
    hit = 1.0
    if spell.attack in ("melee_touch", "ranged_touch"):
        touch = book.ranged_touch if spell.attack == "ranged_touch" else book.melee_touch
        hit = min(0.95, max(0.05, (21 - target.ac.touch + touch.attack_bonus) / 20))
    save = spell.save
    if save is not None and save.outcome in ("half", "negates") and not save.harmless:
        fails = _save_fails(spell, book.dc(known.level), target)
        per_hit *= fails + (1 - fails) * (0.5 if save.outcome == "half" else 0.0)
    return per_hit * count * hit


def _concentration_bonus(me: CombatantView) -> int:
    """The bonus of its defensive-casting check, as the engine counts it."""
    mods = concentration_modifiers(me, combat_casting=True)  # type: ignore[arg-type]
    return sum(m.value for m in mods)


def _plan(
    obs: Observation, chosen: CastCandidate, cands: Sequence[CastCandidate], why: str
) -> TurnPlan:
    """The plan of ``chosen``, cast defensively when the menu offers it and the
    concentration check is good enough (module docstring)."""
    me = obs.actor
    action = chosen.action
    if not action.cast_defensively:
        dc = defensive_dc(chosen.known.level)
        chance = min(1.0, max(0.0, (21 - dc + _concentration_bonus(me)) / 20))
        if chance >= DEFENSIVE_CHANCE:
            wanted = "defensive_" + chosen.option.id
            for c in cands:
                if c.option.id == wanted:
                    return TurnPlan(c.option.actions, f"{why}, sur la défensive")
    return TurnPlan((action,), why)


def _hurt_key(c: CombatantView) -> tuple[int, float]:
    return (0 if c.hp < 0 else 1, c.hp / c.hp_max)


def choose_cast(obs: Observation) -> TurnPlan | None:
    """The cast the actor makes this turn, or ``None`` (module docstring)."""
    me = obs.actor
    casting = me.casting
    if casting is None:
        return None
    every = cast_candidates(obs)
    if not every:
        return None
    # the plain casts (a defensive twin is picked by _plan)
    cands = [c for c in every if not c.action.cast_defensively]
    cl = casting.book.caster_level
    by_id = {c.id: c for c in obs.combatants}
    side = me.side
    plan = _heal(obs, cands, by_id)
    if plan is None:
        plan = _area(obs, cands, by_id, cl)
    dropping = _cantrip_kills(obs, cands, by_id)
    if plan is None:
        plan = _protect(obs, cands, by_id, side, images=True)
    if plan is None:
        plan = _save_or_lose(obs, cands, by_id, cl, dropping)
    if plan is None:
        plan = _buff(obs, cands, by_id, side)
    if plan is None:
        plan = _protect(obs, cands, by_id, side, images=False)
    if plan is None:
        plan = _damage(obs, cands, by_id, cl, dropping)
    if plan is None:
        plan = _shrink(obs, cands, by_id, cl)
    if plan is None:
        return None
    chosen, why = plan
    return _plan(obs, chosen, every, why)


Choice = tuple[CastCandidate, str]


def _target(c: CastCandidate, by_id: dict[str, CombatantView], me: CombatantView) -> CombatantView:
    tid = c.action.target_id
    return by_id[tid] if tid is not None else me


def _others(
    obs: Observation, c: CastCandidate, by_id: dict[str, CombatantView], cl: int
) -> list[CombatantView]:
    """The further enemies a cast of several targets acts on (besides its first)."""
    me = obs.actor
    out: list[CombatantView] = []
    for tid in c.action.target_ids:
        t = by_id[tid]
        if t.side != me.side and t.active and affects(obs, c.known.spell, cl, t):
            out.append(t)
    return out


def _heal(
    obs: Observation, cands: list[CastCandidate], by_id: dict[str, CombatantView]
) -> Choice | None:
    me = obs.actor
    best: tuple[tuple[int, int, float, int], CastCandidate] | None = None
    for i, c in enumerate(cands):
        spell = c.known.spell
        if _is_area(c):
            continue
        t = _target(c, by_id, me)
        if t.side != me.side or t.dead:
            continue
        if not (t.hp < 0 or t.hp <= HEAL_BELOW * t.hp_max):
            continue
        heals = any(
            e.kind == "heal" and e.affects.admits(t.creature_type, t.alignment, t.level)
            for e in spell.effects
        )
        if not heals:
            continue
        dying, share = _hurt_key(t)
        key = (dying, -c.known.level, share, i)
        if best is None or key < best[0]:
            best = (key, c)
    if best is None:
        return None
    t = _target(best[1], by_id, me)
    return best[1], f"soigne {t.id} ({t.hp}/{t.hp_max} pv)"


def _caught(
    obs: Observation, c: CastCandidate, by_id: dict[str, CombatantView], cl: int
) -> tuple[list[CombatantView], list[CombatantView]]:
    """(enemies, allies) the area of ``c`` catches and its spell can affect."""
    spell = c.known.spell
    enemies = [by_id[i] for i in c.enemies if affects(obs, spell, cl, by_id[i])]
    allies = [by_id[i] for i in c.allies if affects(obs, spell, cl, by_id[i])]
    return enemies, allies


def _is_area(c: CastCandidate) -> bool:
    spell = c.known.spell
    return spell.area is not None and spell.targeting in ("area", "point")


def _area(
    obs: Observation, cands: list[CastCandidate], by_id: dict[str, CombatantView], cl: int
) -> Choice | None:
    best: tuple[tuple[int, int], CastCandidate, int] | None = None
    for i, c in enumerate(cands):
        if not _is_area(c) or _friendly(c.known.spell) or len(c.enemies) < 2:
            continue
        enemies, allies = _caught(obs, c, by_id, cl)
        if len(enemies) < 2 or allies:
            continue
        key = (-len(enemies), i)
        if best is None or key < best[0]:
            best = (key, c, len(enemies))
    if best is None:
        return None
    return best[1], f"{best[1].known.spell.label} : {best[2]} ennemis pris"


def _cantrip_kills(
    obs: Observation, cands: list[CastCandidate], by_id: dict[str, CombatantView]
) -> frozenset[str]:
    """The enemies a cantrip offered this turn is expected to drop."""
    me = obs.actor
    out: set[str] = set()
    for c in cands:
        if c.known.level or _is_area(c):
            continue
        t = _target(c, by_id, me)
        if t.side != me.side and t.hp >= 0 and expected_damage(obs, c.known, t) >= t.hp + 1:
            out.add(t.id)
    return frozenset(out)


def _single_enemy(
    obs: Observation, c: CastCandidate, by_id: dict[str, CombatantView], cl: int
) -> CombatantView | None:
    """The one enemy ``c`` acts on (a creature's spell, or an area that affects one
    enemy and no ally), else ``None``."""
    me = obs.actor
    if _is_area(c):
        enemies, allies = _caught(obs, c, by_id, cl)
        return enemies[0] if len(enemies) == 1 and not allies else None
    t = _target(c, by_id, me)
    if t.side == me.side or not t.active:
        return None
    return t if affects(obs, c.known.spell, cl, t) else None


def _save_or_lose(
    obs: Observation,
    cands: list[CastCandidate],
    by_id: dict[str, CombatantView],
    cl: int,
    dropping: frozenset[str],
) -> Choice | None:
    me = obs.actor
    casting = me.casting
    assert casting is not None
    best: tuple[tuple[float, int, int], CastCandidate, CombatantView] | None = None
    for i, c in enumerate(cands):
        spell = c.known.spell
        if helpful(spell):
            continue
        given = {n for e in spell.effects if e.kind == "condition" for p in e.phases
                 for n in p.conditions}  # fmt: skip
        outs = given & TAKES_OUT
        weight = 1.0
        if not outs:
            outs = given & HINDERS
            weight = HINDER_WEIGHT
            if not outs or not c.action.target_ids:
                continue
        t = _single_enemy(obs, c, by_id, cl)
        if t is None or all(n in t.conditions for n in outs):
            continue
        others = [o for o in _others(obs, c, by_id, cl) if not all(n in o.conditions for n in outs)]
        if weight < 1 and not others:
            continue  # a hindering spell is worth a slot only on two enemies or more
        if c.known.level and t.id in dropping and not others:
            continue
        dc = casting.book.dc(c.known.level)
        fails = weight * sum(_save_fails(spell, dc, x) for x in (t, *others))
        key = (-fails, c.known.level, i)
        if best is None or key < best[0]:
            best = (key, c, t)
    if best is None:
        return None
    _, c, t = best
    return c, f"{c.known.spell.label} sur {t.id} (sauvegarde la plus faible)"


def _buff(
    obs: Observation, cands: list[CastCandidate], by_id: dict[str, CombatantView], side: str
) -> Choice | None:
    me = obs.actor
    if obs.round > 1:
        ours = [me, *obs.allies()]
        if any(obs.threatened_at(c.cell, c.space) for c in ours):
            return None
    best: tuple[tuple[int, int, int], CastCandidate] | None = None
    for i, c in enumerate(cands):
        spell = c.known.spell
        if not c.known.level or not any(e.kind == "buff" for e in spell.effects):
            continue
        if not any(e.kind in _BUFFS for e in spell.effects):
            continue
        grows = _size(spell) > 0
        speed = _speed_only(spell)
        if not (_friendly(spell) or grows or speed) or _size(spell) < 0:
            continue
        if _is_area(c):
            lacking = [
                by_id[a]
                for a in c.allies
                if by_id[a].active and not _holds(by_id[a], spell) and _buffs(spell, by_id[a])
            ]
            if len(lacking) < 2:
                continue
            rank = -1
        elif c.action.target_ids:
            group = [_target(c, by_id, me), *(by_id[t] for t in c.action.target_ids)]
            lacking = [
                t for t in group
                if t.side == side and t.active and not _holds(t, spell) and _buffs(spell, t)
            ]  # fmt: skip
            if not lacking:
                continue
            rank = -len(lacking) if len(lacking) > 1 else _rank(obs, me, lacking[0])
        else:
            t = _target(c, by_id, me)
            if t.side != side or not t.active or _holds(t, spell) or not _buffs(spell, t):
                continue
            if grows and (t.casting is not None or not _melee_first(t)):
                continue  # enlarge person: on a fighter that strikes in melee
            if speed and not (_melee_first(t) and _out_of_reach(obs, t)):
                continue  # expeditious retreat, longstrider: to close in, else a wasted turn
            rank = _rank(obs, me, t)
        key = (1 if speed else 0, rank, i)  # a speed buff after every other buff
        if best is None or key < best[0]:
            best = (key, c)
    if best is None:
        return None
    return best[1], f"avant le contact : {best[1].known.spell.label}"


def _rank(obs: Observation, me: CombatantView, t: CombatantView) -> int:
    """A single buff's order: the caster first, then the allies in deployment order."""
    return 0 if t.id == me.id else 1 + [x.id for x in obs.combatants].index(t.id)


def _size(spell: Spell) -> int:
    """The size steps its buff gives (*enlarge person* 1, *reduce person* −1)."""
    return sum(e.size_steps for e in spell.effects if e.kind == "buff")


def _speed_only(spell: Spell) -> bool:
    """A buff of speed alone (*expeditious retreat*, *longstrider*)."""
    return all(
        e.kind == "buff"
        and e.speed_ft
        and not (e.modifiers or e.half_speed or e.extra_attack or e.size_steps)
        for e in spell.effects
    )


def _mean(a: AttackProfile) -> float:
    return a.count * (sum(p.dice.mean for p in a.parts) + a.damage_bonus)


def _melee_first(c: CombatantView) -> bool:
    """Its attack of the highest mean damage is a melee weapon (not a touch)."""
    best = max(c.attacks, key=_mean, default=None)
    return best is not None and best.is_melee and best.kind != "touch"


def _out_of_reach(obs: Observation, c: CombatantView) -> bool:
    """``c`` is the actor (a speed buff is personal) and no active enemy is within
    one move and its reach."""
    far = c.speed_effective_ft + c.threat_reach_ft
    return c.id == obs.actor.id and all(obs.distance_ft(e.id) > far for e in obs.enemies())


def _shrink(
    obs: Observation, cands: list[CastCandidate], by_id: dict[str, CombatantView], cl: int
) -> Choice | None:
    """*Reduce person* on the enemy it weakens most: a melee striker (its dice and
    Strength go down), the mean damage of its best attack times its chance to fail
    the save; only when no other cast was chosen (it gives the target +2 AC)."""
    me = obs.actor
    casting = me.casting
    assert casting is not None
    best: tuple[tuple[float, int], CastCandidate, CombatantView] | None = None
    for i, c in enumerate(cands):
        spell = c.known.spell
        if _size(spell) >= 0 or _is_area(c):
            continue
        t = _target(c, by_id, me)
        if t.side == me.side or not t.active or _holds(t, spell):
            continue
        if not affects(obs, spell, cl, t) or not _melee_first(t):
            continue
        worth = max(_mean(a) for a in t.attacks) * _save_fails(
            spell, casting.book.dc(c.known.level), t
        )
        key = (-worth, i)
        if best is None or key < best[0]:
            best = (key, c, t)
    if best is None:
        return None
    _, c, t = best
    return c, f"{c.known.spell.label} sur {t.id}"


def _friendly(spell: Spell) -> bool:
    """A spell for the caster's side: for willing creatures, or for allies only (*bless*)."""
    return helpful(spell) or spell.affects.side == "allies"


#: the effects a buff of step 4 gives: typed modifiers, temporary hit points, images
_BUFFS = ("buff", "temp_hp", "mirror_image")
#: the effects' sources on their holder (``sort:aid``, ``pv-temp:aid``, ``images:…``)
_MARKERS = ("sort:", TEMP_HP, IMAGES)


def _holds(c: CombatantView, spell: Spell) -> bool:
    """Whether ``c`` is under some effect of ``spell`` already."""
    sources = {m + spell.id for m in _MARKERS}
    return any(e.source in sources for e in c.effects.items)


def _holds_kind(c: CombatantView, prefix: str) -> bool:
    """Whether ``c`` has temporary hit points (``TEMP_HP``) or images (``IMAGES``) of any spell."""
    return source_with(c, prefix) is not None


def _buffs(spell: Spell, c: CombatantView) -> bool:
    return spell.affects.admits(c.creature_type, c.alignment, c.level) and any(
        e.kind in _BUFFS and e.affects.admits(c.creature_type, c.alignment, c.level)
        for e in spell.effects
    )


#: how near an enemy must be for images or temporary hit points on the caster (a
#: move and an attack away)
NEAR_FT = 30


def _protect(
    obs: Observation,
    cands: list[CastCandidate],
    by_id: dict[str, CombatantView],
    side: str,
    *,
    images: bool,
) -> Choice | None:
    """Mirror images on the caster with an enemy near (``images``: step 2b), else
    (step 4b) temporary hit points on the caster with an enemy near or on an ally
    in melee (module docstring)."""
    me = obs.actor
    near = any(obs.distance_ft(e.id) <= NEAR_FT for e in obs.enemies()) or obs.threatened_at(
        me.cell, me.space
    )
    best: tuple[tuple[int, int], CastCandidate] | None = None
    for i, c in enumerate(cands):
        spell = c.known.spell
        if not c.known.level or _is_area(c):
            continue
        if spell.targeting != "self" and not _friendly(spell):
            continue
        kinds = {e.kind for e in spell.effects}
        if images:
            prefix = IMAGES if "mirror_image" in kinds else None
        else:
            prefix = TEMP_HP if "temp_hp" in kinds else None
        if prefix is None:
            continue
        t = _target(c, by_id, me)
        if t.side != side or not t.active or not _buffs(spell, t):
            continue
        if _holds(t, spell) or _holds_kind(t, prefix):
            continue
        if t.id == me.id:
            if not near:
                continue
            rank = 0
        else:
            if not obs.threatened_at(t.cell, t.space):
                continue
            rank = 1 + [x.id for x in obs.combatants].index(t.id)
        key = (rank, i)
        if best is None or key < best[0]:
            best = (key, c)
    if best is None:
        return None
    c = best[1]
    t = _target(c, by_id, me)
    return c, f"au contact : {c.known.spell.label} sur {t.id}"


def _damage(
    obs: Observation,
    cands: list[CastCandidate],
    by_id: dict[str, CombatantView],
    cl: int,
    dropping: frozenset[str],
) -> Choice | None:
    best: tuple[tuple[float, int, int, int], CastCandidate, CombatantView, float] | None = None
    for i, c in enumerate(cands):
        spell = c.known.spell
        if helpful(spell) and not any(e.kind == "damage" for e in spell.effects):
            continue
        t = _single_enemy(obs, c, by_id, cl)
        if t is None:
            continue
        others = _others(obs, c, by_id, cl)
        if c.known.level and t.id in dropping and not others:
            continue
        dealt = expected_damage(obs, c.known, t)
        if dealt <= 0:
            continue
        capped = min(dealt, max(t.hp, 0) + 1)
        for o in others:
            capped += min(expected_damage(obs, c.known, o), max(o.hp, 0) + 1)
        key = (-capped, c.known.level, obs.distance_ft(t.id), i)
        if best is None or key < best[0]:
            best = (key, c, t, dealt)
    if best is None:
        return None
    _, c, t, dealt = best
    if not c.known.level and dealt < t.hp + 1 and _weapon_hits(obs):
        return None
    return c, f"{c.known.spell.label} sur {t.id}"


def _weapon_hits(obs: Observation) -> bool:
    return any(obs.weapon_for(e.id)[0] is not None for e in obs.enemies())


__all__ = ["HEAL_BELOW", "TAKES_OUT", "affects", "choose_cast", "expected_damage"]


def save_fails(spell: Spell, dc: int, target: CombatantView) -> float:
    """The chance ``target`` fails the save of ``spell`` at ``dc`` (1 without a save;
    5 % to 95 % otherwise), as the heuristic weighs it."""
    return _save_fails(spell, dc, target)


def concentration_chance(me: CombatantView, dc: int) -> float:
    """The chance of ``me``'s concentration check against ``dc`` to cast defensively."""
    return min(1.0, max(0.0, (21 - dc + _concentration_bonus(me)) / 20))
