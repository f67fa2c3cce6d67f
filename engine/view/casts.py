"""The casts of the legal-options menu (:mod:`engine.view.options`), with what each casts.

:func:`cast_options` gives the menu its ``cast_spell:<spell>:<target>``,
``cast_spell:<spell>:<row>,<col>``, ``cast_spell:<spell>`` and
``defensive_cast_spell:…`` options (the rules of each: the menu's docstring).
:func:`cast_candidates` gives a policy the same casts, in the same order, as
:class:`CastCandidate` values — the option, the spell and its level, and for an
area the creatures it catches — without building the rest of the menu (the
heuristic's spells, :mod:`policies.spellcasting`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from engine.content.actions import CastSpellAction, Option, Reason, Slot
from engine.content.maps import Cell, GameMap
from engine.content.space import body_distance_ft
from engine.geometry.areas import area_of, area_placements, creatures_in_area
from engine.rules.casting import (
    AREA_SHAPES,
    TARGETS_APART_FT,
    helpful,
    spell_range,
    verify_cast_spell,
)
from engine.rules.economy import filter_plan
from engine.rules.status import GATED, gate
from engine.rules.table import ACTIONS
from engine.state.casting import CAST_TIME_SLOTS
from engine.state.conditions import CANT_ACT, ONE_MOVE
from engine.view.observation import Observation
from engine.view.snapshot import CombatantView

if TYPE_CHECKING:  # (the spell files' models are imported only when a creature casts)
    from engine.content.spellbook import KnownSpell

#: the conditions that take options off the menu (engine.rules.status.gate, nauseated)
_LIMITING = GATED | ONE_MOVE


def _cast_targets(
    obs: Observation, gmap: GameMap, known: KnownSpell
) -> list[tuple[str, str, CastSpellAction, tuple[str, ...], tuple[str, ...]]]:
    """The candidate casts of one spell: ``(id suffix, label, action, enemies caught,
    allies caught)`` (the creatures an area catches; empty for a creature's spell)."""
    me = obs.actor
    spell = known.spell
    name = spell.id
    label = spell.label
    if spell.targeting == "self":
        return [(me.id, f"lancer {label} sur soi", CastSpellAction(spell_name=name), (), ())]
    if spell.targeting in ("creature", "ally"):
        if helpful(spell):
            harmful = [e.affects for e in spell.effects if e.kind == "damage"]
            targets: list[CombatantView] = [
                c
                for c in obs.combatants
                if not c.dead
                and (
                    c.side == me.side
                    or any(a.admits(c.creature_type, c.alignment, c.level) for a in harmful)
                )
            ]
        elif spell.attack == "none" and all(e.kind == "buff" for e in spell.effects):
            # a buff without an attack roll (*enlarge person*, *reduce person*): on an
            # ally as on an enemy
            targets = [c for c in obs.combatants if not c.dead]
        else:
            targets = obs.enemies()
        several = spell.targets
        if several is not None and me.casting is not None:
            most = several.number(me.casting.book.caster_level)
            if most > 1:
                # each creature it may take alone, judged once for every group
                takeable = [t for t in targets if _takes(obs, gmap, name, t)]
                return [_group(gmap, known, t, takeable, most) for t in targets]
        return [
            (
                t.id,
                f"lancer {label} sur {t.id}",
                CastSpellAction(spell_name=name, target_id=t.id),
                (),
                (),
            )
            for t in targets
        ]
    area = spell.area
    if area is None:  # pragma: no cover - the schema gives an area to the others
        return []
    shape = AREA_SHAPES[area.shape]
    if area.centered_on_caster:
        cells = area_of(gmap, shape, area.size_ft, me.cell, me.space, None, centred_on_caster=True)
        enemies, allies = _caught(obs, gmap, cells)
        action = CastSpellAction(spell_name=name)
        return [("", f"lancer {label} (autour de soi)", action, enemies, allies)]
    reach = spell_range(me.casting.book, spell) if me.casting is not None else None
    out: list[tuple[str, str, CastSpellAction, tuple[str, ...], tuple[str, ...]]] = []
    for p in area_placements(gmap, me, obs.combatants, shape, area.size_ft, reach or 0):
        r, c = gmap.rc(p.target_pos)
        who = f"{len(p.enemies)} ennemi{'s' if len(p.enemies) > 1 else ''}"
        if p.allies:
            who += f", {len(p.allies)} allié{'s' if len(p.allies) > 1 else ''}"
        action = CastSpellAction(spell_name=name, target_pos=(r, c))
        out.append((f"{r},{c}", f"lancer {label} en ({r},{c}) : {who}", action, p.enemies,
                    p.allies))  # fmt: skip
    return out


def _takes(obs: Observation, gmap: GameMap, name: str, t: CombatantView) -> bool:
    """Whether the actor may cast the spell ``name`` at ``t`` alone."""
    action = CastSpellAction(spell_name=name, target_id=t.id)
    return not isinstance(verify_cast_spell(gmap, obs, obs.actor, action), Reason)


def _group(
    gmap: GameMap,
    known: KnownSpell,
    first: CombatantView,
    takeable: list[CombatantView],
    most: int,
) -> tuple[str, str, CastSpellAction, tuple[str, ...], tuple[str, ...]]:
    """The cast of a spell of several targets at ``first`` and, up to ``most`` in
    all, the creatures of ``first``'s side among ``takeable`` (those the spell may
    take alone: :func:`engine.rules.casting.verify_cast_spell`), nearest to ``first``
    first (then deployment order), each within 30 feet of all those already taken."""
    spell = known.spell
    name = spell.id
    chosen = [first]
    near = sorted(
        (t for t in takeable if t.id != first.id and t.side == first.side),
        key=lambda t: body_distance_ft(gmap, first.cell, first.space, t.cell, t.space),
    )
    for t in near:
        if len(chosen) == most:
            break
        if any(
            body_distance_ft(gmap, c.cell, c.space, t.cell, t.space) > TARGETS_APART_FT
            for c in chosen
        ):
            continue
        chosen.append(t)
    others = tuple(t.id for t in chosen[1:])
    who = ", ".join(t.id for t in chosen)
    action = CastSpellAction(spell_name=name, target_id=first.id, target_ids=others)
    return (first.id, f"lancer {spell.label} sur {who}", action, (), ())


def _caught(
    obs: Observation, gmap: GameMap, cells: frozenset[Cell]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(active enemies, allies — the caster included, dead ones excepted) with a square
    in ``cells``, as :class:`engine.geometry.areas.Placement` counts them."""
    side = obs.actor.side
    enemies: list[str] = []
    allies: list[str] = []
    for c in creatures_in_area(gmap, cells, obs.combatants):
        if c.dead:
            continue
        if c.side == side:
            allies.append(c.id)
        elif c.active:
            enemies.append(c.id)
    return tuple(enemies), tuple(allies)


@dataclass(frozen=True, slots=True)
class CastCandidate:
    """One cast the menu offers (:func:`cast_candidates`): its option, the spell and
    its level, and for an area the creatures it catches (active enemies; the
    caster's side, the caster included, dead ones excepted), in deployment order."""

    option: Option
    known: KnownSpell
    enemies: tuple[str, ...] = ()
    allies: tuple[str, ...] = ()

    @property
    def action(self) -> CastSpellAction:
        action = self.option.actions[0]
        assert isinstance(action, CastSpellAction)
        return action


def _cast_candidates(obs: Observation, gmap: GameMap, single: bool) -> list[CastCandidate]:
    """Every ``cast_spell`` and ``defensive_cast_spell`` option (module docstring),
    with what it casts."""
    me = obs.actor
    casting = me.casting
    if casting is None:
        return []
    one_action = single or me.staggered or obs.round == 0
    threatened = obs.threatened_at(me.cell, me.space)
    out: list[CastCandidate] = []
    for known in casting.book.known:
        if not casting.has_slot(known.level):
            continue
        slot = CAST_TIME_SLOTS[known.spell.cast_time]
        if slot is None or (one_action and slot is Slot.FULL_ROUND):
            continue
        if slot is Slot.SWIFT and (obs.round == 0 or me.immediate_used):
            continue
        for suffix, label, action, enemies, allies in _cast_targets(obs, gmap, known):
            if isinstance(verify_cast_spell(gmap, obs, me, action), Reason):
                continue
            tail = f":{suffix}" if suffix else ""
            option = Option(f"cast_spell:{known.spell.id}{tail}", label, (action,))
            out.append(CastCandidate(option, known, enemies, allies))
            if threatened:
                option = Option(
                    f"defensive_cast_spell:{known.spell.id}{tail}",
                    f"{label}, sur la défensive",
                    (replace(action, cast_defensively=True),),
                )
                out.append(CastCandidate(option, known, enemies, allies))
    return out


def cast_options(obs: Observation, gmap: GameMap, single: bool) -> list[Option]:
    """``cast_spell`` and ``defensive_cast_spell`` options (module docstring)."""
    if obs.actor.casting is None:
        return []
    return [c.option for c in _cast_candidates(obs, gmap, single)]


def cast_candidates(obs: Observation) -> tuple[CastCandidate, ...]:
    """The casts of the menu (:func:`engine.view.options.legal_options`) alone, in its
    order, with their spells and the creatures their areas catch, computed once per
    Observation without the rest of the menu: the same conditions take them off;
    none for a creature without spells."""
    me = obs.actor
    if me.static.casting is None:
        return ()
    return obs.memo("casts", _candidates)  # type: ignore[return-value]


def _candidates(obs: Observation, gmap: GameMap) -> tuple[CastCandidate, ...]:
    me = obs.actor
    cond = me.effects.cond
    if not cond & _LIMITING:
        return tuple(_cast_candidates(obs, gmap, False))
    if cond & CANT_ACT:
        return ()
    nauseated = cond & ONE_MOVE != 0
    return tuple(
        c for c in _cast_candidates(obs, gmap, nauseated) if allowed(c.option, cond, nauseated)
    )


def allowed(option: Option, cond: int, nauseated: bool) -> bool:
    """Whether :func:`engine.rules.status.gate` lets each action of ``option`` through
    and, nauseated, it fits the one move action."""
    if cond & GATED and any(
        gate(cond, a.kind, ACTIONS[a.kind].moves) is not None for a in option.actions
    ):
        return False
    return not nauseated or all(filter_plan(option.actions, nauseated=True)[0])
