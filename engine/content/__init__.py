"""The formats at the boundary, validated once: guarded readers, rules packs, maps,
creature spaces, creatures, the action records policies answer with."""
