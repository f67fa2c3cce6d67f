"""Deterministic Pathfinder 1e combat engine.

The engine knows its own data formats (maps, combatants), the rules, the runtime
state of a fight, the Observation handed to policies and the Actions they answer
with. It knows nothing of LLMs, terminals or the command line.
"""
