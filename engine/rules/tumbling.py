"""Tumbling: moving through threatened squares with Acrobatics (SRD « Acrobatics »).

A ``move`` with ``tumble: true`` (opt-in; the heuristic never tumbles):

* needs at least one rank of Acrobatics (else ``untrained_tumble``, nothing moves);
* goes at half speed;
* before leaving a threatened square, one Acrobatics check per opponent that
  would get an attack of opportunity there, in deployment order, against that
  opponent's CMD (:func:`engine.rules.skills.cmd`) + 2 per opponent already tested in
  the same move. No natural 1/20 rule (a skill check);
* a success: that opponent gets no attack of opportunity for the rest of this
  move (a later move in the round may still provoke it);
* a failure: the move stops on the current square and that opponent makes its
  attack of opportunity.

Opponents that could not make the attack anyway (no attack left this round,
already provoked by this creature's movement this round, cover, total
concealment) are not tested. Moving through an enemy's square (CMD + 5) is not
modelled: enemies' squares stay impassable to every movement.
"""

from __future__ import annotations

from engine.core.events import TumbleCheck
from engine.rules.aoo import LEAVES, opportunities, strike
from engine.rules.skills import cmd, skill_check
from engine.state.fight import FightState
from engine.state.state import CombatantState

#: SRD « Acrobatics »: +2 to the DC for each additional opponent avoided in one round
EXTRA_OPPONENT_DC = 2


class Tumble:
    """The state of one tumbling move: who was beaten, how many were tested."""

    __slots__ = ("passed", "tested")

    def __init__(self) -> None:
        self.passed: set[str] = set()
        self.tested = 0

    def leave(self, fight: FightState, mover: CombatantState) -> bool:
        """Test every opponent threatening ``mover``'s square before it leaves it.

        Returns whether the move goes on (every tested opponent beaten); on a
        failure, that opponent has made its attack of opportunity.
        """
        cell = mover.pos
        for enemy, weapon, blocked in opportunities(fight, mover, cell, movement=True):
            if blocked is not None or enemy.id in self.passed:
                continue
            base = cmd(enemy)
            dc = base + EXTRA_OPPONENT_DC * self.tested
            roll = skill_check(fight.rng, mover, "Acrobatics", dc)
            self.tested += 1
            if fight.log is not None:
                fight.log.append(TumbleCheck(fight.round, mover.id, enemy.id, roll, dc - base))
            if roll.success:
                self.passed.add(enemy.id)
                continue
            strike(fight, enemy, mover, weapon, LEAVES, movement=True)
            return False
        return True
