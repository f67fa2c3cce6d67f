"""A French lexicon for the narrator's audits: is every word of a text a French word?

The word list is pyspellchecker's French dictionary (a dev dependency,
``SpellChecker(language="fr")``, about 140,000 forms). A word passes when it is in
it, or is a name from the report (sides, combatant ids and names, the map's words),
or one of :data:`EXTRA` (technical tokens of the fixed sentences and the few
French words the list lacks). Numbers (``34.5%``, ``[30.1%,``) are not words: the
number audit checks them against the report object.

    >>> from lexicon import non_words
    >>> non_words("ce qui rend la rencontre pourplayers etcoûteux", names=())
    ['pourplayers', 'etcoûteux']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Any

#: tokens of the fixed sentences that are not in the word list: CLI options, the
#: name of Wilson's interval, and French words the list lacks
EXTRA = frozenset({"--runs", "--round-cap", "wilson", "attrition"})

#: a token: letters (any script), apostrophes and hyphens inside, or a CLI option
TOKEN = re.compile(r"--[a-z-]+|[^\W\d_]+(?:['’-][^\W\d_]+)*")
#: French elisions before an apostrophe
ELISIONS = frozenset({"l", "d", "qu", "n", "s", "j", "c", "m", "t", "jusqu", "lorsqu", "puisqu"})


@cache
def _words() -> Any:
    from spellchecker import SpellChecker

    return SpellChecker(language="fr", distance=1)


def is_french(word: str) -> bool:
    """Whether ``word`` (one token, any case) is in the French word list."""
    w = word.lower()
    if w in EXTRA:
        return True
    checker = _words()
    if w in checker:
        return True
    # « l'issue », « qu'aucun »: the elision and the word after it
    if "'" in w or "’" in w:
        head, _, tail = w.replace("’", "'").partition("'")
        return head in ELISIONS and is_french(tail)
    # « au-delà », « peut-être », « corps-à-corps »: each part a word
    if "-" in w:
        return all(part and (part in checker or part in EXTRA) for part in w.split("-"))
    return False


def report_names(report: dict[str, Any]) -> set[str]:
    """Every name the report gives (lowercase): sides, combatant ids and names, map words."""
    names = {s["name"].lower() for s in report["sides"]}
    for c in report["combatants"]:
        names.add(c["id"].lower())
        names.add(str(c.get("name", "")).lower())
    names.update(t.lower() for t in TOKEN.findall(str(report.get("map", ""))))
    return names


def non_words(text: str, names: Iterable[str]) -> list[str]:
    """The tokens of ``text`` that are neither French words nor ``names``, in order."""
    known = {n.lower() for n in names}
    out = []
    for token in TOKEN.findall(text):
        low = token.lower()
        if low in known:
            continue
        # a combatant id with its number (« goblin-2 ») is tokenised without the digit
        if any(n.startswith(low + "-") for n in known):
            continue
        if not is_french(token):
            out.append(token)
    return out
