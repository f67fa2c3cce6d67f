"""Runtime state without rules: combatants, their effects, the fight state and the
Situation protocol, the encounter's deployment into a fight."""
