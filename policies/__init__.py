"""Policies: everything that chooses actions from an Observation.

A policy sees only the :class:`engine.view.observation.Observation` it is given and
answers with a :class:`engine.content.actions.TurnPlan`.
"""

from policies.heuristic import HeuristicPolicy

__all__ = ["HeuristicPolicy"]
