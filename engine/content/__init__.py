"""The formats at the boundary, validated once: guarded readers, rules packs, maps,
creature spaces, creatures, what of a creature file the engine plays, the action records
policies answer with."""
