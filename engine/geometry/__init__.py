"""Pure functions of the map and creature spaces: distances, paths, line of effect, cover,
reach, the one threat rule, movement paths, spell areas."""
