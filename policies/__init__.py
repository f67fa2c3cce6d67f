"""Policies: everything that chooses actions from an Observation.

A policy sees only the :class:`engine.observation.Observation` it is given and
answers with a :class:`engine.actions.TurnPlan`.
"""

from policies.heuristic import HeuristicPolicy

__all__ = ["HeuristicPolicy"]
