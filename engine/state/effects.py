"""What a combatant is under: conditions and the modifiers they give, with one
duration mechanism.

Every condition and passing bonus a combatant has (charging, prone, total
defense, an aid another bonus, a fight-long blur…) is an :class:`Effect` in its
:class:`Effects`: where it comes from (``source``), the typed
:class:`~engine.core.checks.Modifier` it gives to each :data:`Stat`, the :class:`Cond`
bits it sets and how long it lasts. Modifiers are computed, never stored: a
stat's modifiers are the :func:`~engine.core.checks.stack` of its effects'
(cached until an effect comes or goes), and dropping one effect never removes
another's.

* **Conditions** are bits (:class:`Cond`): :attr:`Effects.cond` is the union of
  its effects' bits, a plain ``int``, so a rule tests one with one AND
  (``target.effects.cond & PRONE``). Hot sites use module constants holding the
  bits as plain ints (an :class:`~enum.IntFlag` operator is a Python-level call).
* **One duration mechanism**: an effect either lasts until something drops it
  (standing up ends prone; an event, or never: a fight-long condition) or ends
  at a :class:`Moment` of some combatant's turns — its own (a charge: the start
  of its next turn) or another's (an aid another bonus: the start of the
  aider's next turn) — after ``turns`` of them (a duration in rounds). The
  combatant whose turns time it keeps the :class:`Timer` (:attr:`Effects.timers`);
  the turn loop calls :func:`tick` at the start and the end of each turn, only
  when a timer waits.
* **Conditional effects** (a bonus against one opponent) sit in a side list,
  :attr:`Effects.against`, read only when it is not empty; a ``once`` effect is
  used up by the first roll it modifies (:func:`use_effects`).
* **Values**: a combatant's :class:`Effects` is immutable; :func:`add_effect`,
  :func:`drop_effect`, :func:`use_effects` and :func:`tick` put a new one on it.
  Most combatants have none most of the time and share :data:`NO_EFFECTS`: a
  Python container made per combatant would cost more than everything else
  here (about 2,000 instructions each).

>>> from engine.core.checks import BonusType, Modifier
>>> class Holder:
...     effects = NO_EFFECTS
>>> me = Holder()
>>> shield = Effect("total_defense", on_ac(Modifier(4, "défense", BonusType.DODGE)),
...                 Cond.TOTAL_DEFENSE, ends=Moment.TURN_START)
>>> add_effect(me, shield)
>>> me.effects.total(MELEE_AC), me.effects.conditions
(4, <Cond.TOTAL_DEFENSE: 8>)
>>> [e.source for _, e in tick(me, Moment.TURN_START)]  # the start of its next turn
['total_defense']
>>> me.effects.total(MELEE_AC), me.effects.items
(0, ())
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum, IntFlag
from typing import Protocol

from engine.core.checks import BonusType, Modifier, stack


class Cond(IntFlag):
    """The conditions the engine models (bits of :attr:`Effects.cond`).

    Their order is the order in which a stat's modifiers are listed
    (:meth:`Effects.breakdown`), which the transcript's notes follow: a charge's
    AC penalty before prone's, prone's before total defense's dodge bonus, and the
    −4 of fighting defensively before prone's on an attack roll.
    """

    #: charged on its last turn (SRD « Charge »: −2 AC until its next turn)
    CHARGING = 1
    #: fighting defensively (SRD: −4 on its attacks until its next turn)
    FIGHTING_DEFENSIVELY = 2
    #: lying on the ground (SRD « Prone »)
    PRONE = 4
    #: total defense (SRD: +4 dodge bonus to AC until its next turn)
    TOTAL_DEFENSE = 8
    #: ran on its last turn (SRD « Run »: no Dex bonus to AC until its next turn)
    RUNNING = 16
    #: SRD « Blur »: 20 % concealment
    BLURRED = 32
    #: SRD « Displacement »: 50 % concealment
    DISPLACED = 64
    #: SRD « Invisibility »: total concealment, +2 to attack, no Dex for its targets
    INVISIBLE = 128
    #: SRD « Blinded »
    BLINDED = 256
    # -- the conditions of the table (engine.state.conditions), SRD « Conditions ».
    # The bits the rules test through masks stay below 2**30: CPython's fast path
    # for ``&`` takes single-digit ints only; the three above (modifiers only,
    # never in a mask) cost a slower AND only to the creatures under them.
    SHAKEN = 1 << 9
    FATIGUED = 1 << 10
    EXHAUSTED = 1 << 11
    ENTANGLED = 1 << 12
    FLAT_FOOTED = 1 << 13
    STUNNED = 1 << 14
    PARALYZED = 1 << 15
    NAUSEATED = 1 << 16
    DAZED = 1 << 17
    STAGGERED = 1 << 18
    FRIGHTENED = 1 << 19
    PANICKED = 1 << 20
    COWERING = 1 << 21
    HELPLESS = 1 << 22
    FASCINATED = 1 << 23
    BLEEDING = 1 << 24
    CONFUSED = 1 << 25
    GRAPPLED = 1 << 26
    PINNED = 1 << 27
    ASLEEP = 1 << 28
    UNCONSCIOUS = 1 << 29
    SICKENED = 1 << 30
    DAZZLED = 1 << 31
    DEAFENED = 1 << 32


#: what an effect's modifier applies to (python-chess style: a named ``int``)
Stat = int
#: attack rolls
ATTACK: Stat = 0
#: Armor Class against melee attacks
MELEE_AC: Stat = 1
#: Armor Class against ranged attacks
RANGED_AC: Stat = 2
#: Combat Maneuver Defense
CMD: Stat = 3
#: weapon damage rolls (SRD « Sickened »: « weapon damage rolls »)
DAMAGE: Stat = 4
#: the three saving throws
FORT: Stat = 5
REF: Stat = 6
WILL: Stat = 7
#: every skill check
SKILL: Stat = 8
#: Combat Maneuver Bonus
CMB: Stat = 9
#: initiative checks
INITIATIVE: Stat = 10
#: ability checks (SRD « Shaken »: « ability checks »)
ABILITY_CHECK: Stat = 11
#: a change of the Strength / Dexterity *score* (SRD « Fatigued »: −2 Str and Dex);
#: the rules turn it into the ability modifier's change where the score is used
STR: Stat = 12
DEX: Stat = 13
#: a spell's movement and size (the buff's fields, not its file's modifiers):
#: an enhancement bonus to speed in feet (*expeditious retreat*, *haste*; the best
#: applies, CRB « Bonus Types »), half speed while positive (*slow*), one extra
#: attack on a full attack while positive (*haste*), size categories gained or
#: lost (*enlarge person* +1, *reduce person* −1; typed ``size``: the best gain
#: and the worst loss apply)
SPEED: Stat = 14
SLOWED: Stat = 15
EXTRA_ATTACK: Stat = 16
SIZE: Stat = 17
#: the stats of the three saving throws, by their names in files
SAVE_STATS: dict[str, Stat] = {"fort": FORT, "ref": REF, "will": WILL}


def on_ac(mod: Modifier) -> tuple[tuple[Stat, Modifier], ...]:
    """``mod`` on the AC against every attack, melee and ranged.

    >>> on_ac(Modifier(-2, "charge"))
    ((1, Modifier(-2, 'charge')), (2, Modifier(-2, 'charge')))
    """
    return ((MELEE_AC, mod), (RANGED_AC, mod))


def on_saves(mod: Modifier) -> tuple[tuple[Stat, Modifier], ...]:
    """``mod`` on the three saving throws.

    >>> [stat for stat, _ in on_saves(Modifier(-2, "secoué"))] == [FORT, REF, WILL]
    True
    """
    return ((FORT, mod), (REF, mod), (WILL, mod))


class Moment(IntEnum):
    """A moment of a combatant's turn at which effects timed on it end."""

    TURN_START = 1
    TURN_END = 2


@dataclass(frozen=True, slots=True)
class Effect:
    """One effect on a combatant.

    ``source`` names it (:func:`drop_effect` removes the effects of a source);
    each modifier names itself too (its ``source`` is what the transcript shows
    and what :func:`~engine.core.checks.stack` compares).
    """

    source: str
    #: (stat, typed modifier) pairs
    mods: tuple[tuple[Stat, Modifier], ...] = ()
    #: the :class:`Cond` bits it sets (stored as a plain ``int``)
    cond: int = 0
    #: the moment of its timer's owner's turns at which it ends; ``None``: until
    #: something drops it (or for the whole fight)
    ends: Moment | None = None
    #: how many such moments (a duration in rounds counts the starts of turns)
    turns: int = 1
    #: only against this opponent's id (a conditional effect), else ``None``
    against: str | None = None
    #: used up by the first roll it modifies (:func:`use_effects`)
    once: bool = False
    #: only on a roll against an effect with this descriptor (« fear »,
    #: « mind-affecting », « poison »; « evil »: from an evil source), else ``None``
    when: str | None = None
    #: the miss chance this instance gives attacks against its holder (SRD
    #: « Concealment »: blur 20, displacement 50; Mirror Image's own value)
    miss_chance: int = 0
    #: hit points it makes its holder lose at the start of each of its turns
    #: (SRD « Bleed »)
    bleed: int = 0
    #: what gave it (a combatant id), when it matters: a frightened creature
    #: flees from it, an aura does not affect its holder twice
    origin: str | None = None
    #: it changes the Strength or Dexterity score (a condition's −2, *bull's
    #: strength*'s +4): computed from ``mods``
    scores: bool = field(default=False, init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "cond", int(self.cond))
        object.__setattr__(self, "scores", any(s in (STR, DEX) for s, _ in self.mods))


def _rank(effect: Effect) -> int:
    """Where ``effect`` goes among a combatant's effects: by its lowest
    :class:`Cond` bit; those without one after, in the order they came."""
    cond = effect.cond
    return cond & -cond if cond else 1 << 62


class Timer:
    """One timed effect's countdown: kept by the combatant whose turns time it
    (:attr:`Effects.timers`), and by the effect's holder (:attr:`Effects.own`, to
    cancel it when the effect goes another way, and to read the rounds left)."""

    __slots__ = ("effect", "holder", "left", "live")

    def __init__(self, holder: HasEffects, effect: Effect) -> None:
        self.holder = holder
        self.effect = effect
        #: moments still to come before it ends
        self.left = effect.turns
        #: false once the effect is gone another way (dropped, used, replaced)
        self.live = True


class Effects:
    """The effects on one combatant, an immutable value: a change puts a new one
    on the combatant (:func:`add_effect`, :func:`drop_effect`, :func:`use_effects`,
    :func:`tick`), so an Observation holds it as it is, and a combatant without
    effects shares :data:`NO_EFFECTS` (no container made per combatant).

    Totals are cached per value: computed on first use, for as long as nothing
    changes (a change is a new value, with the next :attr:`version`).
    """

    __slots__ = ("_cache", "against", "cond", "items", "own", "scores", "timers", "version")

    def __init__(
        self,
        items: tuple[Effect, ...] = (),
        timers: tuple[Timer, ...] = (),
        own: tuple[Timer, ...] = (),
        version: int = 0,
    ) -> None:
        #: every effect, in :class:`Cond` order, then in the order they came
        #: (:func:`add_effect` keeps them so)
        self.items = items
        cond = 0
        scores = False
        for e in items:
            cond |= e.cond
            if e.scores:
                scores = True
        #: the union of their :class:`Cond` bits
        self.cond = cond
        #: some effect changes its Strength or Dexterity score (the rules then read
        #: the ability modifier's change: :func:`engine.rules.saves.score_delta`)
        self.scores = scores
        #: the conditional ones (against one opponent, or on a roll with a descriptor),
        #: and the ``once`` ones (:func:`use_effects` looks for them here)
        self.against = tuple(
            [e for e in items if e.against is not None or e.when is not None or e.once]
        )
        #: the timers this combatant's turns count down: of its own effects and of
        #: those it gave others
        self.timers = timers
        #: the timers of its own effects (:meth:`rounds_left` reads them)
        self.own = own
        #: moves on every change
        self.version = version
        #: stat → (its stacked modifiers, their total)
        self._cache: dict[Stat, tuple[tuple[Modifier, ...], int]] = {}

    def __repr__(self) -> str:
        return f"Effects({[e.source for e in self.items]!r})"

    @property
    def conditions(self) -> Cond:
        """:attr:`cond` as a :class:`Cond`."""
        return Cond(self.cond)

    def breakdown(self, stat: Stat) -> tuple[Modifier, ...]:
        """The modifiers its unconditional effects give ``stat``, as they stack
        (:func:`~engine.core.checks.stack`), in effect order; cached."""
        hit = self._cache.get(stat)
        if hit is None:
            hit = self._cache[stat] = _stacked(self.items, stat)
        return hit[0]

    def total(self, stat: Stat) -> int:
        """The sum of :meth:`breakdown` (cached)."""
        hit = self._cache.get(stat)
        if hit is None:
            hit = self._cache[stat] = _stacked(self.items, stat)
        return hit[1]

    def rounds_left(self, effect: Effect) -> int | None:
        """The count of ``effect``'s timer (the moments still to come before it
        ends: its rounds left), ``None`` when it lasts until something ends it."""
        for t in self.own:
            if t.effect is effect:
                return t.left
        return None

    def against_total(self, stat: Stat, opponent: str) -> int:
        """What its conditional effects against ``opponent`` give ``stat``, stacked."""
        if not self.against:
            return 0
        return sum(m.value for m in stack(_mods(self.against, stat, opponent)))

    def when_breakdown(self, stat: Stat, descriptors: Iterable[str]) -> tuple[Modifier, ...]:
        """The modifiers its effects give ``stat`` on a roll against an effect with
        ``descriptors`` (the unconditional ones and those whose :attr:`Effect.when`
        is among them), as they stack together."""
        if not self.against:
            return self.breakdown(stat)
        tags = frozenset(descriptors)
        return stack(
            [
                m
                for e in self.items
                if e.against is None and (e.when is None or e.when in tags)
                for s, m in e.mods
                if s == stat
            ]
        )


#: the effects of a combatant under none (shared: a value is never changed)
NO_EFFECTS = Effects()


class HasEffects(Protocol):
    """What carries effects: a :class:`~engine.state.state.CombatantState` (tests use
    any object with an ``effects`` attribute)."""

    effects: Effects


def add_effect(holder: HasEffects, effect: Effect, clock: HasEffects | None = None) -> None:
    """Put ``effect`` on ``holder``; an equal one already there is replaced (its
    timer starts again). A timed effect is counted down by ``clock``'s turns
    (default: the holder's own)."""
    fx = holder.effects
    if effect in fx.items:
        _remove(holder, lambda e: e == effect)
        fx = holder.effects
    rank = _rank(effect)
    items = list(fx.items)
    i = len(items)
    while i and _rank(items[i - 1]) > rank:
        i -= 1
    items.insert(i, effect)
    if effect.ends is None:
        holder.effects = Effects(tuple(items), fx.timers, fx.own, fx.version + 1)
        return
    timer = Timer(holder, effect)
    own = (*fx.own, timer)
    if clock is None or clock is holder:
        holder.effects = Effects(tuple(items), (*fx.timers, timer), own, fx.version + 1)
        return
    holder.effects = Effects(tuple(items), fx.timers, own, fx.version + 1)
    _set_timers(clock, (*clock.effects.timers, timer))


def drop_effect(holder: HasEffects, source: str) -> bool:
    """Remove ``holder``'s effects of ``source``; returns whether there was one."""
    return _remove(holder, lambda e: e.source == source)


def source_with(holder: HasEffects, prefix: str) -> str | None:
    """The source of ``holder``'s first effect whose source starts with ``prefix``
    (``pv-temp:``, ``images:``), or ``None``."""
    for e in holder.effects.items:
        if e.source.startswith(prefix):
            return e.source
    return None


def hold(
    holder: HasEffects, source: str, rounds: int | None, clock: HasEffects, origin: str
) -> None:
    """Put on ``holder`` a marker effect of ``source``: no modifier, it holds a number
    kept on the holder (its temporary hit points, its images) for ``rounds`` rounds
    of ``clock``'s turns (``None``: the rest of the fight)."""
    timed = rounds is not None
    effect = Effect(
        source,
        ends=Moment.TURN_START if timed else None,
        turns=rounds if rounds is not None else 1,
        origin=origin,
    )
    add_effect(holder, effect, clock if timed else None)


def release(holder: HasEffects, prefix: str) -> None:
    """Drop ``holder``'s marker effect whose source starts with ``prefix``, if any."""
    source = source_with(holder, prefix)
    if source is not None:
        drop_effect(holder, source)


def use_effects(holder: HasEffects, stat: Stat, opponent: str) -> None:
    """A roll against ``opponent`` used ``holder``'s ``stat``: its ``once``
    effects on that stat, against that opponent or against anyone (*true strike*:
    « your next single attack roll »), are spent."""
    if any(e.once and e.against in (None, opponent) for e in holder.effects.against):
        _remove(
            holder,
            lambda e: (
                e.once and e.against in (None, opponent) and any(s == stat for s, _ in e.mods)
            ),
        )


def tick(clock: HasEffects, moment: Moment) -> list[tuple[HasEffects, Effect]]:
    """``moment`` of ``clock``'s turn has come: the timers it keeps count down,
    and the effects whose count reaches 0 end (on it or on those it gave them to).
    Returns the ``(holder, effect)`` pairs that ended.

    A count that goes down without ending is a new :class:`Timer` on new
    :class:`Effects` values (:func:`_counted`), never a change of the old one, so
    an Observation that holds the old values reads the rounds left as they were."""
    timers = clock.effects.timers
    keep: list[Timer] = []
    ended: list[tuple[HasEffects, Effect]] = []
    counted = False
    for timer in timers:
        if not timer.live:
            continue
        if timer.effect.ends is moment:
            if timer.left <= 1:
                timer.left = 0
                _expire(timer)
                ended.append((timer.holder, timer.effect))
                continue
            keep.append(_counted(timer))
            counted = True
            continue
        keep.append(timer)
    if counted or len(keep) != len(timers):
        _set_timers(clock, tuple(keep))
    return ended


def _counted(timer: Timer) -> Timer:
    """``timer`` one moment shorter: a new timer in its holder's new :class:`Effects`
    (the old one, no longer live, stays as it was in the values that hold it)."""
    new = Timer(timer.holder, timer.effect)
    new.left = timer.left - 1
    timer.live = False
    holder = timer.holder
    fx = holder.effects
    own = tuple([new if t is timer else t for t in fx.own])
    holder.effects = Effects(fx.items, fx.timers, own, fx.version + 1)
    return new


def _set_timers(clock: HasEffects, timers: tuple[Timer, ...]) -> None:
    fx = clock.effects
    clock.effects = Effects(fx.items, timers, fx.own, fx.version + 1)


def _expire(timer: Timer) -> None:
    timer.live = False
    holder = timer.holder
    fx = holder.effects
    items = list(fx.items)
    items.remove(timer.effect)
    own = tuple([t for t in fx.own if t is not timer])
    holder.effects = Effects(tuple(items), fx.timers, own, fx.version + 1)


def _remove(holder: HasEffects, gone: Callable[[Effect], bool]) -> bool:
    fx = holder.effects
    items = tuple([e for e in fx.items if not gone(e)])
    if len(items) == len(fx.items):
        return False
    own: list[Timer] = []
    for timer in fx.own:
        if gone(timer.effect):
            timer.live = False
        else:
            own.append(timer)
    holder.effects = Effects(items, fx.timers, tuple(own), fx.version + 1)
    return True


def _mods(items: Iterable[Effect], stat: Stat, against: str | None) -> list[Modifier]:
    return [
        m for e in items if e.against == against and e.when is None for s, m in e.mods if s == stat
    ]


def _stacked(items: Iterable[Effect], stat: Stat) -> tuple[tuple[Modifier, ...], int]:
    mods = stack(_mods(items, stat, None))
    return mods, sum(m.value for m in mods)


def typed_total(items: Iterable[Effect], stat: Stat, kind: BonusType) -> int:
    """What the unconditional ``items`` of type ``kind`` give ``stat``, stacked:
    ``typed_total(view.effects, MELEE_AC, BonusType.DODGE)`` is a view's dodge
    bonus to AC."""
    return sum(m.value for m in stack(_mods(items, stat, None)) if m.type is kind)


def totals_against(items: Sequence[Effect], stat: Stat) -> dict[str, int]:
    """What the conditional ``items`` give ``stat``, stacked, by opponent id (the
    opponents against whom one of them modifies ``stat``, in the order they come)."""
    out: dict[str, int] = {}
    for e in items:
        opponent = e.against
        if opponent is None or opponent in out or not any(s == stat for s, _ in e.mods):
            continue
        out[opponent] = sum(m.value for m in stack(_mods(items, stat, opponent)))
    return out
