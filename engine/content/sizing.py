"""A creature's size changed by a spell (*enlarge person*, *reduce person*): its
melee weapons' damage dice and its reach (``docs/rules.md``, « Size changes »).

:func:`sized_profile` gives the profile of a creature ``steps`` size categories
larger (or smaller): its melee attacks roll the damage of the new size
(:func:`resize_dice`, the Paizo FAQ's damage dice progression) and reach as far as
the new size's natural reach; ranged attacks keep their dice (SRD « Enlarge
Person »: a projectile or a thrown weapon returns to its normal size). Its space
(squares), its file and everything else stay: the size modifiers to Str, Dex,
attack rolls and AC are the spell's modifiers, those to CMB and CMD the casting
rules' (:func:`cmd_size_change`).

>>> from engine.core.dice import compile_dice
>>> [str(resize_dice(compile_dice(d), "Medium", 1)) for d in ("1d4", "1d8", "2d6", "1d12")]
['1d6', '2d6', '3d6', '3d6']
>>> [str(resize_dice(compile_dice(d), "Medium", -1)) for d in ("1d8+2", "2d6", "2d4")]
['1d6+2', '1d10', '1d6']
"""

from __future__ import annotations

import dataclasses

from engine.content.creatures import NATURAL_REACH_FT, AttackProfile, CombatantProfile
from engine.core.dice import DiceExpr, DiceTerm

#: the size categories, smallest first (CRB Table 8-1)
SIZES = ("Fine", "Diminutive", "Tiny", "Small", "Medium", "Large", "Huge", "Gargantuan", "Colossal")
#: the special size modifier to CMB and CMD (CRB « Combat Maneuvers »)
CM_SIZE = {
    "Fine": -8,
    "Diminutive": -4,
    "Tiny": -2,
    "Small": -1,
    "Medium": 0,
    "Large": 1,
    "Huge": 2,
    "Gargantuan": 4,
    "Colossal": 8,
}
#: the damage dice progression chart (Paizo FAQ « Size changes, effective size
#: changes, and damage dice progression »): (count, sides), ``(1, 1)`` for 1
CHART: tuple[tuple[int, int], ...] = (
    (1, 1), (1, 2), (1, 3), (1, 4), (1, 6), (1, 8), (1, 10), (2, 6), (2, 8), (3, 6),
    (3, 8), (4, 6), (4, 8), (6, 6), (6, 8), (8, 6), (8, 8), (12, 6), (12, 8), (16, 6),
    (16, 8), (24, 6), (24, 8), (32, 6), (32, 8),
)  # fmt: skip
_STEP: dict[tuple[int, int], int] = {d: i for i, d in enumerate(CHART)}
_D6 = [n for n, s in CHART if s == 6]
_D8 = [n for n, s in CHART if s == 8]


def size_after(size: str, steps: int) -> str:
    """The size ``steps`` categories from ``size`` (kept within Fine to Colossal)."""
    i = SIZES.index(size) if size in SIZES else SIZES.index("Medium")
    return SIZES[max(0, min(len(SIZES) - 1, i + steps))]


def cmd_size_change(size: str, steps: int) -> int:
    """How much the special size modifier to CMB and CMD moves with ``steps``."""
    return CM_SIZE[size_after(size, steps)] - CM_SIZE.get(size, 0)


def _on_chart(count: int, sides: int) -> tuple[int, int]:
    """The chart's entry standing for ``count``d``sides`` (the FAQ: 2d4 counts as 1d8,
    3d4 as 2d6 and so on — an even count of d4 as half as many d8, an odd one as one
    fewer d6; 1d12 as 2d6; Xd6 off the chart as the next lower count of d6 on it taken
    as d8, Xd8 as the next higher count of d8 taken as d6)."""
    if sides == 4 and count > 1:
        return _on_chart(count // 2, 8) if count % 2 == 0 else _on_chart(count - 1, 6)
    if sides == 12:
        return _on_chart(2 * count, 6)
    if (count, sides) in _STEP:
        return (count, sides)
    if sides == 6:
        lower = max([n for n in _D6 if n < count], default=1)
        return (lower, 8) if (lower, 8) in _STEP else (lower, 6)
    if sides == 8:
        higher = min([n for n in _D8 if n > count], default=_D8[-1])
        return (higher, 6) if (higher, 6) in _STEP else (higher, 8)
    return (count, sides)  # another die: no entry (left as it is)


def _one_step(count: int, sides: int, size: str, up: bool) -> tuple[int, int]:
    """One size category up or down (the FAQ): two steps of the chart, or one when
    growing from Small or lower or from 1d6 or less, shrinking from Medium or lower
    or from 1d8 or less."""
    if sides == 10 and count > 1:  # the FAQ: 2d10 increases to 4d8, decreases to 2d8
        return (2 * count, 8) if up else (count, 8)
    entry = _on_chart(count, sides)
    if entry not in _STEP:
        return (count, sides)
    i = _STEP[entry]
    rank = SIZES.index(size) if size in SIZES else SIZES.index("Medium")
    if up:
        small = rank <= SIZES.index("Small") or i <= _STEP[(1, 6)]
        i += 1 if small else 2
    else:
        small = rank <= SIZES.index("Medium") or i <= _STEP[(1, 8)]
        i -= 1 if small else 2
    return CHART[max(0, min(len(CHART) - 1, i))]


def resize_dice(dice: DiceExpr, size: str, steps: int) -> DiceExpr:
    """``dice`` of a weapon of a ``size`` creature, ``steps`` categories larger
    (negative: smaller), one category at a time; each positive term on its own, the
    constant kept. « 1 » (1d1) is a flat 1."""
    terms: list[DiceTerm] = []
    flat = dice.flat
    for term in dice.terms:
        if term.sign < 0:
            terms.append(term)
            continue
        count, sides, now = term.count, term.sides, size
        for _ in range(abs(steps)):
            count, sides = _one_step(count, sides, now, steps > 0)
            now = size_after(now, 1 if steps > 0 else -1)
        if sides == 1:
            flat += count
        else:
            terms.append(DiceTerm(count, sides))
    return DiceExpr(tuple(terms), flat)


def _reach(attack: AttackProfile, before: int, after: int) -> tuple[int, int]:
    """(reach, dead zone) of a melee ``attack`` when the natural reach goes from
    ``before`` to ``after``: a reach weapon's doubles (SRD « Reach Weapons »), an
    explicit reach moves by the change."""
    spec = attack.spec
    if spec.reach_weapon:
        reach = spec.reach_ft + 2 * (after - before) if spec.reach_ft is not None else 2 * after
        return max(after, reach), after
    if spec.reach_ft is not None:
        return max(0, spec.reach_ft + after - before), 0
    return after, 0


def _sized_attack(attack: AttackProfile, size: str, steps: int) -> AttackProfile:
    if not attack.is_melee:
        return attack  # SRD « Enlarge Person »: projectiles keep their normal damage
    new = size_after(size, steps)
    # (a creature reduced to Tiny keeps 5 ft: it keeps its one-square space, and
    # entering a foe's square is not modelled for it)
    before = NATURAL_REACH_FT.get(size, 5)
    after = max(min(5, before), NATURAL_REACH_FT.get(new, 5))
    reach, dead = _reach(attack, before, after)
    parts = tuple(
        dataclasses.replace(p, dice=resize_dice(p.dice, size, steps)) if p.physical else p
        for p in attack.parts
    )
    return dataclasses.replace(attack, parts=parts, reach_ft=reach, dead_zone_ft=dead)


def sized_profile(profile: CombatantProfile, steps: int) -> CombatantProfile:
    """``profile`` ``steps`` size categories larger (negative: smaller): its melee
    attacks' damage dice and reach (module docstring); ``profile`` itself for 0."""
    if not steps:
        return profile
    size = profile.spec.size
    attacks = tuple(_sized_attack(a, size, steps) for a in profile.attacks)
    reach = max((a.reach_ft for a in attacks if a.is_melee), default=0)
    return dataclasses.replace(profile, attacks=attacks, threat_reach_ft=reach)


__all__ = [
    "CHART",
    "CM_SIZE",
    "SIZES",
    "cmd_size_change",
    "resize_dice",
    "size_after",
    "sized_profile",
]
