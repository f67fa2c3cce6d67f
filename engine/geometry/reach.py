"""Which weapon can hit which square: reach, range increments, line of effect;
and the one threat rule (:func:`threat`).

Pure functions over cells and attack profiles, shared by the engine (to resolve
actions) and by the Observation builder (to tell policies what is possible), so
the two can never disagree. :func:`threat` reads a creature through
:class:`Presence`, which a runtime :class:`~engine.state.state.CombatantState` and an
Observation's view of one both provide: attacks of opportunity, tumbling,
flanking, shooting into a melee, readied actions, the Observation's threatened
grid and the menu all ask it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol, cast

from engine.content.actions import Reason
from engine.content.creatures import AttackProfile
from engine.content.maps import Cell, GameMap
from engine.content.space import body_deltas, pairs
from engine.geometry.grid import distance_ft
from engine.geometry.los import cover_bonus, has_line_of_effect

#: −2 per full range increment beyond the first (SRD « Range »)
RANGE_PENALTY_PER_INCREMENT = -2

#: a cache miss (``None`` is a cached answer: the attack can hit)
_UNKNOWN = object()


def range_penalty(attack: AttackProfile, dist_ft: int) -> int:
    """Attack penalty for distance: 0 in melee or within the first increment.

    >>> from engine.content.creatures import load_combatant
    >>> bow = load_combatant("data/monsters/goblin.json").attacks[1]
    >>> range_penalty(bow, 60), range_penalty(bow, 65), range_penalty(bow, 125)
    (0, -2, -4)
    """
    inc = attack.range_increment_ft
    if inc is None or dist_ft <= inc:
        return 0
    return RANGE_PENALTY_PER_INCREMENT * ((dist_ft - 1) // inc)


def attack_reason(
    gmap: GameMap, src: Cell, dst: Cell, attack: AttackProfile, ks: int = 1, kt: int = 1
) -> Reason | None:
    """``None`` if ``attack`` can hit square ``dst`` from ``src``, else the reason.

    ``ks`` and ``kt``: squares per side of the attacker's and the target's
    spaces (anchored on ``src`` and ``dst``); some pair of their squares must be
    within reach or range, with line of effect. Purely geometric: cached per map
    between two squares (every attack action asks it).
    """
    if ks == 1 and kt == 1:
        cache = gmap.cache
        key = ("reason", src, dst, attack)
        hit = cache.get(key, _UNKNOWN)
        if hit is _UNKNOWN:
            hit = cache[key] = _square_reason(gmap, src, dst, attack)
        return cast("Reason | None", hit)
    in_range = False
    for a, b in pairs(gmap, src, ks, dst, kt):
        reason = _square_reason(gmap, a, b, attack)
        if reason is None:
            return None
        in_range = in_range or reason == Reason.NO_LINE_OF_EFFECT
    return Reason.NO_LINE_OF_EFFECT if in_range else Reason.OUT_OF_RANGE


def body_line_of_effect(gmap: GameMap, src: Cell, ks: int, dst: Cell, kt: int) -> bool:
    """Whether some pair of squares of two spaces has line of effect."""
    if ks == 1 and kt == 1:
        return has_line_of_effect(gmap, src, dst)
    return any(has_line_of_effect(gmap, a, b) for a, b in pairs(gmap, src, ks, dst, kt))


def body_cover(
    gmap: GameMap,
    src: Cell,
    ks: int,
    dst: Cell,
    kt: int,
    attack: AttackProfile | None,
    *,
    creatures: Collection[Cell] = (),
    melee: bool | None = None,
) -> int:
    """Cover of a target against an attack between two spaces: the attacker picks
    the pair of squares (one of each) from which ``attack`` can hit that leaves
    the least cover (SRD « Big Creatures and Cover »). ``attack`` ``None``:
    no weapon constraint, cover as for a melee attack unless ``melee`` is
    false. ``creatures``: squares giving soft cover to ranged attacks."""
    if attack is not None:
        melee = attack.is_melee
    elif melee is None:
        melee = True
    if ks == 1 and kt == 1:
        return cover_bonus(gmap, src, dst, melee=melee, creatures=creatures)
    best: int | None = None
    for a, b in pairs(gmap, src, ks, dst, kt):
        if attack is not None and _square_reason(gmap, a, b, attack) is not None:
            continue
        if not has_line_of_effect(gmap, a, b):
            continue
        value = cover_bonus(gmap, a, b, melee=melee, creatures=creatures)
        if best is None or value < best:
            best = value
    return best or 0


def _square_reason(gmap: GameMap, src: Cell, dst: Cell, attack: AttackProfile) -> Reason | None:
    dist = distance_ft(gmap, src, dst)
    if attack.is_melee:
        # distance 0: a Tiny creature sharing the square (any melee weapon but a
        # reach weapon strikes there; a zero-reach attack strikes only there)
        if dist > attack.reach_ft or (attack.dead_zone_ft and dist <= attack.dead_zone_ft):
            return Reason.OUT_OF_RANGE
    elif dist > attack.max_range_ft:
        return Reason.OUT_OF_RANGE
    if not has_line_of_effect(gmap, src, dst):
        return Reason.NO_LINE_OF_EFFECT
    return None


def weapon_for(
    gmap: GameMap,
    src: Cell,
    dst: Cell,
    attacks: Sequence[AttackProfile],
    *,
    melee_only: bool = False,
    ks: int = 1,
    kt: int = 1,
) -> tuple[AttackProfile | None, Reason | None]:
    """The first listed attack able to hit ``dst`` from ``src``, or why none can.

    The reason is ``no_weapon`` without any candidate attack, ``out_of_range`` if
    some attack has line of effect but not the reach or range, else
    ``no_line_of_effect``. ``ks``/``kt``: sizes of the spaces (see
    :func:`attack_reason`). Purely geometric, so cached per map.
    """
    key = (
        ("weapon_for", src, dst, melee_only, tuple(attacks))
        if ks == 1 and kt == 1
        else ("weapon_for", src, dst, melee_only, tuple(attacks), ks, kt)
    )
    cached = gmap.cache.get(key)
    if cached is None:
        cached = _weapon_for(gmap, src, dst, attacks, melee_only, ks, kt)
        gmap.cache[key] = cached
    return cached  # type: ignore[return-value]


def _weapon_for(
    gmap: GameMap,
    src: Cell,
    dst: Cell,
    attacks: Sequence[AttackProfile],
    melee_only: bool,
    ks: int,
    kt: int,
) -> tuple[AttackProfile | None, Reason | None]:
    reasons: list[Reason] = []
    for attack in attacks:
        if melee_only and not attack.is_melee:
            continue
        reason = attack_reason(gmap, src, dst, attack, ks, kt)
        if reason is None:
            return attack, None
        reasons.append(reason)
    if not reasons:
        return None, Reason.NO_WEAPON
    if Reason.OUT_OF_RANGE in reasons:
        return None, Reason.OUT_OF_RANGE
    return None, Reason.NO_LINE_OF_EFFECT


class Presence(Protocol):
    """What the threat and melee-position rules read of a creature: a runtime
    :class:`~engine.state.state.CombatantState` or an Observation's view of one."""

    @property
    def id(self) -> str: ...
    @property
    def side(self) -> str: ...
    @property
    def active(self) -> bool: ...
    @property
    def cell(self) -> Cell: ...
    @property
    def attacks(self) -> tuple[AttackProfile, ...]: ...
    @property
    def threat_reach_ft(self) -> int: ...
    @property
    def space(self) -> int: ...


def threat(gmap: GameMap, creature: Presence, cell: Cell, k: int = 1) -> AttackProfile | None:
    """The melee attack with which ``creature`` threatens the space of ``k`` × ``k``
    squares anchored on ``cell``, or ``None``: the one threat rule.

    SRD « Threatened Squares »: an active creature threatens every square it
    could make a melee attack into, even when it is not its turn — within a
    melee attack's reach, outside a reach weapon's dead zone, with line of
    effect, between some square of each space (the first listed attack that
    can, as :func:`weapon_for` picks). Ranged attacks threaten nothing; a zero
    reach (Tiny and smaller, SRD « Tiny, Diminutive, and Fine Creatures »)
    threatens nothing, not even its own square; a creature with reach threatens
    its own squares (a Tiny creature sharing one is 0 ft away). Inactive
    creatures (dying, unconscious) threaten nothing.

    >>> from engine.content.creatures import load_combatant
    >>> from engine.content.maps import load_map
    >>> from engine.state.state import CombatantState
    >>> gmap = load_map("data/maps/sample_arena.yaml")
    >>> orc = load_combatant("data/monsters/orc.json")
    >>> o = CombatantState("o", "B", orc, 0, gmap.cell(2, 2), orc.spec.hp_max)
    >>> threat(gmap, o, gmap.cell(3, 3)).name, threat(gmap, o, gmap.cell(4, 4))
    ('falchion', None)
    """
    reach = creature.threat_reach_ft
    if reach == 0 or not creature.active:
        return None
    src = creature.cell
    ks = creature.space
    # a cheap necessary condition first: within reach of the nearest squares
    if ks == 1 and k == 1:
        w = gmap.width
        if 5 * max(abs(src // w - cell // w), abs(src % w - cell % w)) > reach:
            return None
        return weapon_for(gmap, src, cell, creature.attacks, melee_only=True)[0]
    if 5 * max(body_deltas(gmap, src, ks, cell, k)) > reach:
        return None
    return weapon_for(gmap, src, cell, creature.attacks, melee_only=True, ks=ks, kt=k)[0]


def threatens(gmap: GameMap, creature: Presence, cell: Cell, k: int = 1) -> bool:
    """Whether ``creature`` threatens the space of ``k`` × ``k`` squares anchored
    on ``cell`` (:func:`threat`)."""
    return threat(gmap, creature, cell, k) is not None


def melee_band(attacks: Sequence[AttackProfile]) -> tuple[int, int]:
    """``(reach, dead zone)`` of the melee attacks together: some melee attack
    can hit at a distance ``d`` with ``dead < d ≤ reach`` (5 ft, 0 without any
    melee attack; the dead zone is 0 as soon as one attack has none)."""
    melee = [a for a in attacks if a.is_melee]
    if not melee:
        return 5, 0
    return max(a.reach_ft for a in melee), min(a.dead_zone_ft for a in melee)
