"""Mirror images (SRD « Mirror Image »; the decisions in ``docs/rules.md``,
« Spellcasting »).

A creature's images are one number, ``CombatantState.images``, held while their
effect is on it (source ``images:<spell id>``, timed on the caster's turns), and
forgotten once that effect is gone (:func:`images_left`), as temporary hit points
are (:mod:`engine.rules.temp_hp`). The attack rolls against their holder (a
weapon's swing, a touch spell's or a ray's touch attack) read them, only when the
number is not zero: a fight without images draws no die more.

* **A hit** (the attack roll against the holder's own AC, as the Pathfinder text
  has it: « If the attack is a hit, roll randomly to see whether the selected
  target is real or a figment »): a d(images + 1) picks the target, 1 to images an
  image, which is destroyed, and the attack is spent on it (no damage, no
  confirmation, no concealment d100, a touch spell discharged harmlessly); images
  + 1 the real one, and the attack goes on.
* **A miss by 5 or less** destroys one image, without a die.
* **Not fooled**: a blinded attacker, and an attacker its target is invisible to
  (the invisible condition, or hidden from it). The creature files give no
  senses (blindsight, tremorsense): no one else sees through them.
* Area spells, spells without an attack roll (*magic missile*) and combat
  maneuvers ignore them.
"""

from __future__ import annotations

from engine.core.events import MirrorImages, MirrorImageStruck
from engine.core.rng import RollKind
from engine.state.effects import Cond, hold, release, source_with
from engine.state.fight import FightState
from engine.state.state import CombatantState

#: the source prefix of the effect that holds them (``images:mirror-image``)
IMAGES = "images:"
#: SRD « Mirror Image »: « If the attack misses by 5 or less, one of the figments
#: is destroyed by the near miss »
NEAR_MISS = 5
_BLINDED = Cond.BLINDED.value
_INVISIBLE = Cond.INVISIBLE.value
_PICK = RollKind.MIRROR_IMAGE


def images_left(target: CombatantState) -> int:
    """``target``'s mirror images, 0 once their effect is gone."""
    if target.images and source_with(target, IMAGES) is None:
        target.images = 0
    return target.images


def fooled(attacker: CombatantState, target: CombatantState) -> bool:
    """Whether ``attacker`` sees ``target``'s images (SRD: « An attacker must be able
    to see the images to be fooled »), and ``target`` still has some."""
    if attacker.effects.cond & _BLINDED or target.effects.cond & _INVISIBLE:
        return False
    if attacker.id in target.hidden_from:
        return False
    return images_left(target) > 0


def _destroy(target: CombatantState) -> None:
    target.images -= 1
    if not target.images:
        release(target, IMAGES)


def on_hit(
    fight: FightState, attacker: CombatantState, target: CombatantState
) -> tuple[bool, MirrorImageStruck | None]:
    """An attack roll of ``attacker`` hit ``target``, which has images: whether an
    image took it (and is destroyed), and the transcript's event (``None`` without
    a log). Draws the d(images + 1) only when ``attacker`` is fooled. (Callers test
    ``target.images`` first.)"""
    if not fooled(attacker, target):
        return False, None
    images = target.images
    pick = fight.rng.die(images + 1, _PICK)
    struck = pick <= images
    if struck:
        _destroy(target)
    if fight.log is None:
        return struck, None
    return struck, MirrorImageStruck(
        fight.round, target.id, attacker.id, pick, images, struck, target.images
    )


def on_miss(
    fight: FightState, attacker: CombatantState, target: CombatantState, total: int, ac: int
) -> None:
    """An attack roll of ``attacker`` (``total``) missed ``target`` (``ac``), which has
    images: a miss by 5 or less destroys one (logged). (Callers test ``target.images``.)"""
    if total < ac - NEAR_MISS or not fooled(attacker, target):
        return
    images = target.images
    _destroy(target)
    if fight.log is not None:
        fight.log.append(
            MirrorImageStruck(fight.round, target.id, attacker.id, 0, images, True, target.images)
        )


def grant(
    fight: FightState,
    target: CombatantState,
    count: int,
    spell_id: str,
    label: str,
    rounds: int | None,
    clock: CombatantState,
) -> None:
    """``target`` gets ``count`` mirror images from ``spell_id`` for ``rounds`` rounds
    of ``clock``'s turns (``None``: the rest of the fight); cast again, the new
    images replace those left (SRD: they are one spell's)."""
    release(target, IMAGES)
    target.images = count
    if count:
        hold(target, IMAGES + spell_id, rounds, clock, clock.id)
    if fight.log is not None:
        fight.log.append(MirrorImages(fight.round, target.id, label, count, rounds))
