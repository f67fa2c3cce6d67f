"""Values only: errors, dice notation, the RNG, the one check mechanism and typed
modifiers."""
