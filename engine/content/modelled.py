"""What of a combatant file the engine plays, and what it only carries.

A creature file may hold data no rule reads yet: spells it cannot cast, resources, carried
items, feats such as *Power Attack*. Such data is never silently ignored
(``docs/rules.md``, « Unmodelled data »): a misspelled field or skill name is an
error of the loader (refused with the closest known name), and what
is accepted without effect is listed once per run in the report, under « non
modélisé », by :func:`unmodelled`.

This module is the one registry of that judgement:

* :data:`READ_FEATURES`: the feats and features some rule reads, by the name the
  rules compare (the file's name stripped and lower-cased, argument included:
  « Combat Reflexes (B) » is not « combat reflexes »);
* :data:`INTEGRATED_FEATURES`: the feats whose whole effect is in a stat block's
  printed numbers, which the file gives (*Weapon Focus* in ``attack_bonus``,
  *Improved Initiative* in ``initiative_mod``, *Toughness* in ``hp_max`` …):
  « intégré aux valeurs du fichier », not a gap. They are matched
  case-insensitively, without a parenthesised argument (« Weapon Focus
  (falchion) »); :data:`SKILL_FEATS` are integrated when the file gives the
  total of each skill they raise that the engine rolls (:data:`ROLLED_SKILLS`);
* :data:`UNMODELLED_FIELDS` and :data:`UNMODELLED_ATTACK_FIELDS`: the fields the
  engine accepts without playing them, each with why, listed when the file gives
  them a value. When a rule comes to read one, its row goes (the casting fields
  went: a creature's spells are played, and each one it cannot cast is listed
  with why, from its :class:`~engine.content.spellbook.Spellbook`).

Every other feature is « non modélisé ». Fields that are labels (``name``,
``source``, ``notes``, ``cr``, ``xp``, ``level``) or that rules read whenever
the situation calls for them (``saves``, ``skills``, ``alignment``,
``creature_type``, ``resistances``, ``immunities`` …) are not listed.

>>> from engine.content.creatures import load_combatant
>>> orc = load_combatant("data/monsters/orc.json")
>>> unmodelled([orc])
()
>>> feature_status("Weapon Focus (falchion)"), feature_status("Power Attack")
('integrated', 'unmodelled')
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Literal, NamedTuple, cast

from engine.content.creatures import Combatant, CombatantProfile, skill_name

if TYPE_CHECKING:  # (the spell files' models are imported only when a creature casts)
    from engine.content.spellbook import Spellbook

#: feats and features a rule reads (``profile.features``), and where
READ_FEATURES: dict[str, str] = {
    "combat casting": "concentration sur la défensive (engine/rules/concentration.py)",
    "combat reflexes": "attaques d'opportunité (engine/content/creatures.py)",
    "endurance": "course prolongée (engine/rules/readiness.py)",
    "multiattack": "attaques naturelles secondaires (engine/rules/attack.py)",
    "precise shot": "tir dans la mêlée (engine/rules/attack.py)",
    "run": "course, Dextérité gardée à la CA (engine/rules/attack.py)",
}

#: feats whose whole effect is in the numbers a file gives, and in which field
INTEGRATED_FEATURES: dict[str, str] = {
    "improved initiative": "initiative_mod",
    "weapon focus": "attack_bonus",
    "greater weapon focus": "attack_bonus",
    "weapon finesse": "attack_bonus",
    "weapon specialization": "damage_bonus",
    "greater weapon specialization": "damage_bonus",
    "improved critical": "crit_range",
    "improved natural attack": "damage",
    "toughness": "hp_max",
    "great fortitude": "saves",
    "iron will": "saves",
    "lightning reflexes": "saves",
    "dodge": "ac",
    # in the printed CMD, when the file gives it (else 10 + BAB + Str + Dex + size)
    "defensive combat training": "cmd",
    "improved natural armor": "ac",
    "fleet": "speed_land_ft",
    # the file's numbers are those of a proficient wielder or wearer
    "armor proficiency": "attack_bonus, skills",
    "light armor proficiency": "attack_bonus, skills",
    "medium armor proficiency": "attack_bonus, skills",
    "heavy armor proficiency": "attack_bonus, skills",
    "shield proficiency": "attack_bonus, skills",
    "tower shield proficiency": "attack_bonus, skills",
    "simple weapon proficiency": "attack_bonus",
    "martial weapon proficiency": "attack_bonus",
    "exotic weapon proficiency": "attack_bonus",
}

#: skill feats (Core Rulebook « Feats »): the skills each raises
SKILL_FEATS: dict[str, tuple[str, ...]] = {
    "acrobatic": ("acrobatics", "fly"),
    "alertness": ("perception", "sense motive"),
    "animal affinity": ("handle animal", "ride"),
    "athletic": ("climb", "swim"),
    "deceitful": ("bluff", "disguise"),
    "deft hands": ("disable device", "sleight of hand"),
    "intimidating prowess": ("intimidate",),
    "magical aptitude": ("spellcraft", "use magic device"),
    "persuasive": ("diplomacy", "intimidate"),
    "self-sufficient": ("heal", "survival"),
    "stealthy": ("escape artist", "stealth"),
    # « Skill Focus (Stealth) »: the skill is its argument
    "skill focus": (),
}

#: the skills some rule rolls (``engine.rules.skills.SKILL_ROLL``; a test keeps them equal)
ROLLED_SKILLS = frozenset({"acrobatics", "perception", "stealth"})

#: fields accepted without effect, in the order of :class:`~engine.content.creatures.Combatant`,
#: each with why (French); listed when the file gives it a value. (A creature's
#: ``spells`` are played: each one it cannot cast is listed by :func:`unmodelled`
#: with its own reason, from its :class:`~engine.content.spellbook.Spellbook`.)
UNMODELLED_FIELDS: tuple[tuple[str, str], ...] = (
    ("metamagic_feats", "la métamagie n'est pas encore jouée"),
    ("resources", "aucune capacité ne dépense ces réserves"),
    ("carried_items", "aucun objet n'est utilisé en combat"),
    ("summon_duration", "pas de convocation"),
)

#: fields of an attack accepted without effect, each with why (French)
UNMODELLED_ATTACK_FIELDS: tuple[tuple[str, str], ...] = (
    ("hardness", "pas d'attaque contre les armes (destruction)"),
    ("hit_points", "pas d'attaque contre les armes (destruction)"),
)

FeatureStatus = Literal["read", "integrated", "skill", "unmodelled"]


def _argument_at(text: str) -> int:
    """Where the parenthesised argument that ends ``text`` starts (its « ( »), or -1."""
    return text.find("(") if text.endswith(")") else -1


def feature_key(name: str) -> str:
    """A feature's name compared with the registry: lower-case, spaces collapsed,
    without a parenthesised argument.

    >>> feature_key("  Weapon  Focus (falchion) "), feature_key("Dodge")
    ('weapon focus', 'dodge')
    """
    text = " ".join(name.split())
    start = _argument_at(text)
    return (text[:start].rstrip() if start >= 0 else text).casefold()


def feature_status(name: str) -> FeatureStatus:
    """How the engine takes a feature as a file writes it: a rule reads it
    (``read``), its effect is in the file's numbers (``integrated``), a skill feat
    (``skill``: integrated when the file gives the totals, see :func:`unmodelled`),
    or nothing reads it (``unmodelled``).

    >>> [feature_status(f) for f in ("Multiattack", "Multiattack (B)", "Alertness")]
    ['read', 'unmodelled', 'skill']
    """
    if name.strip().lower() in READ_FEATURES:
        return "read"
    key = feature_key(name)
    if key in INTEGRATED_FEATURES:
        return "integrated"
    if key in SKILL_FEATS:
        return "skill"
    return "unmodelled"


class Unmodelled(NamedTuple):
    """One piece of a creature's data the engine accepts without playing it.

    A named tuple rather than a frozen dataclass: every run of the command line
    imports it, and making the dataclass cost about 4 M instructions (0.3 % of the
    start-up), the named tuple under 1 M."""

    #: the creature's name (its file's ``name``)
    creature: str
    #: ``field`` (a file field: ``spells``, ``attacks[0].hardness``) or ``feature``
    #: (one entry of ``features``)
    kind: Literal["field", "feature"]
    #: the field's path, or the feature as the file writes it
    name: str
    #: why it has no effect, in French
    why: str

    def to_dict(self) -> dict[str, str]:
        return {"creature": self.creature, "kind": self.kind, "name": self.name, "why": self.why}


def unmodelled(
    profiles: Iterable[CombatantProfile],
    spellbooks: Iterable[Spellbook | None] | None = None,
) -> tuple[Unmodelled, ...]:
    """The data of ``profiles`` that no rule plays, each once: in the order of the
    combatants, then of their files (fields, the spells it cannot cast, attacks,
    features). ``spellbooks``: each profile's resolved spells (an encounter's
    placements hold them); without them, a profile's spells are resolved against
    the shipped registry.

    >>> from engine.content.creatures import parse_combatant
    >>> import json, pathlib
    >>> doc = json.loads(pathlib.Path("data/monsters/orc.json").read_text())
    >>> doc["features"] += ["Power Attack", "Multiatack"]
    >>> doc["spells"] = ["magic missile", "magic misile", "darkness"]
    >>> for u in unmodelled([parse_combatant(json.dumps(doc))] * 2):
    ...     print(u.kind, u.name, "—", u.why)  # doctest: +NORMALIZE_WHITESPACE
    field spells « magic misile » — sort inconnu « magic misile »
        (vouliez-vous dire « Magic Missile » ?)
    field spells « darkness » — ténèbres : aucune règle de lumière ni de camouflage dans une zone
    feature Power Attack — aucune règle ne le lit
    feature Multiatack — aucune règle ne le lit (vouliez-vous dire « multiattack » ?)
    """
    seen: set[Unmodelled] = set()
    out: list[Unmodelled] = []
    books = iter(spellbooks) if spellbooks is not None else None
    for profile in profiles:
        spec = profile.spec
        book = next(books) if books is not None else None
        if book is None and spec.spells:
            from engine.content.spellbook import build_spellbook
            from engine.content.spells import default_registry

            book = build_spellbook(spec, default_registry())
        for kind, name, why in _gaps(spec, book):
            item = Unmodelled(spec.name, kind, name, why)
            if item not in seen:
                seen.add(item)
                out.append(item)
    return tuple(out)


def _given(value: object) -> bool:
    """A field holds something: not ``None``, ``False``, 0 nor empty, and a dict
    of counts not only zeros."""
    if isinstance(value, dict):
        return any(cast(dict[str, int], value).values())
    return bool(value)


def _gaps(
    spec: Combatant, book: Spellbook | None
) -> Iterator[tuple[Literal["field", "feature"], str, str]]:
    if book is not None:  # (``spells`` comes first of these fields in the file's order)
        for name, why in book.unplayable:
            yield "field", f"spells « {name} »", why
    for field, why in UNMODELLED_FIELDS:
        if _given(getattr(spec, field)):
            yield "field", field, why
    for i, attack in enumerate(spec.attacks):
        for field, why in UNMODELLED_ATTACK_FIELDS:
            if getattr(attack, field) is not None:
                yield "field", f"attacks[{i}].{field}", f"« {attack.name} » : {why}"
    totals: dict[str, bool] = {}
    for name, entry in spec.skills.items():
        key = skill_name(name)
        if key is not None and key in ROLLED_SKILLS:
            totals.setdefault(key, entry.total is not None)
    for feature in spec.features:
        why = _feature_gap(feature, totals, spec)
        if why is not None:
            yield "feature", feature.strip(), why


def _feature_gap(feature: str, totals: dict[str, bool], spec: Combatant) -> str | None:
    """Why ``feature`` has no effect, or ``None`` when it has (``totals``: whether
    the file gives the total of each skill the engine rolls that it lists)."""
    status = feature_status(feature)
    if status == "read":
        return None
    key = feature_key(feature)
    if status == "integrated":
        if INTEGRATED_FEATURES[key] == "cmd" and spec.cmd is None:
            return "bonus non compté : donner « cmd », le DMD du bloc de stats"
        return None
    if status == "skill":
        raised = SKILL_FEATS[key]
        if not raised:  # Skill Focus (Stealth): the skill is the argument
            text = feature.strip()
            start = _argument_at(text)
            target = skill_name(text[start + 1 : -1]) if start >= 0 else None
            raised = (target,) if target is not None else ()
        missing = [s for s in raised if s in ROLLED_SKILLS and not totals.get(s, False)]
        if not missing:
            return None
        names = ", ".join(f"« {s} »" for s in missing)
        return f"bonus non compté : donner le « total » de {names} dans « skills »"
    if key in READ_FEATURES:
        return f"le moteur ne lit que « {key} », écrit ainsi"
    return "aucune règle ne le lit" + _close_name(key)


def _close_name(key: str) -> str:
    """A suggestion when ``key`` looks like a misspelled known feature (strict: an
    unrelated feat gets none)."""
    known = [*READ_FEATURES, *INTEGRATED_FEATURES, *SKILL_FEATS]
    best = difflib.get_close_matches(key, known, n=1, cutoff=0.85)
    return f" (vouliez-vous dire « {best[0]} » ?)" if best else ""
