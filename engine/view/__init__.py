"""What policies see: the Observation, the combatant views, the legal-options menu."""
