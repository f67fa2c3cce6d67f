"""The « Analyse » section: a French narrative of a report that never states a false fact.

How a false statement is kept out:

1. :func:`harness.analysis.analyse` decides every fact deterministically (verdict
   from the 3σ bands, draws, length, attrition, anomalies, levers).
2. Each fact is a fixed French sentence whose numbers are placeholders
   (``{taux_players}``), filled from the report object after the check. The
   model writes one line per fact, in the analysis' order: the line starts
   with the fact's whole sentence followed by « , ce qui » (the forced start of
   the answer, ``prefill``; the lines before it are shown as their fixed
   sentences), and the model only adds the end of that clause, up to a full
   stop. It cannot reorder, drop, add or reword a fact.
3. For providers that decode under a grammar (llama.cpp), that end is 3 to
   ``LINE_WORDS`` words of Latin letters and a full stop: it cannot contain a
   digit of any script, a brace, ``%``, ``σ``, a bracket or a calculation sign,
   nor ramble on. The prompt gives the computed verdict and what each fact means.
4. :class:`Checker` rejects an end that contains a number (digit of any
   script, number word), a placeholder that is not its fact's, a combatant the
   fact is not about, a verdict word contradicting the computed verdict
   (« équilibré » in an unbalanced report; « domine », « gagne »… said of a side
   that is not the favoured one — the side named before the word, or after it
   in « favorable à monsters », « l'avance de players » —, or with no side
   named; a negation near such a word), a length or draw word contradicting the
   analysis, a lever in the wrong direction, or an unfinished sentence (cut, or
   ending on an article or a preposition). The narrator also refuses a clause
   the model already wrote for an earlier line.
5. A rejected line is asked for again, up to ``ATTEMPTS`` times in all (greedy
   first, then sampled with fixed seeds); when every attempt is rejected the
   model's text is abandoned altogether and the deterministic template
   narrative is printed instead. The report says which path produced the text
   and which model.

Everything is deterministic given the model's outputs: temperature 0 then fixed
seeds, and cassettes replay exactly.
"""

from __future__ import annotations

import difflib
import re
import time
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from harness.analysis import BALANCED, Analysis, Fact, analyse, fill
from policies.answers import clean_text, complete_checked
from policies.llm import ChatMessage, ChatModel, ChatRequest, ModelError, prompt_environment

#: most tokens the model may write to end one line
LINE_TOKENS = 48
#: a line is one sentence: the model's answer ends at its first full stop or newline
STOP = (".", "\n")
#: most words of the model's end of a line (the grammar closes the sentence there)
LINE_WORDS = 16
#: a narrative should stay within this many words: with many facts, each line's
#: end gets fewer words (see :func:`line_words`), never fewer than MIN_LINE_WORDS
TARGET_WORDS = 240
MIN_LINE_WORDS = 6
_LETTER = "a-zA-Z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u00ff\u0152\u0153"
_LOWER = "a-z\u00df-\u00f6\u00f8-\u00ff\u0153"
#: most characters of one word (« anticonstitutionnellement » has 25)
WORD_CHARS = 25


def line_grammar(words: int = LINE_WORDS) -> str:
    """GBNF of the model's end of a line (llama.cpp providers).

    One clause of three to ``words`` words of Latin letters (apostrophes inside
    words, a hyphen only between letters, a comma only between two words, a
    capital only first), closed by a full stop. A digit of any script, a
    placeholder, a percent or sigma sign, a bracket or a line break cannot be
    written at all, and the sentence cannot ramble on; other providers are held
    to the same rules by the checker. The full stop may be followed by a line
    break: the model's favourite token to end a sentence is often « .\n », and a
    grammar that refused it made the model write on past its natural end (lines
    half as long again, and more invented words). The stop strings cut the
    answer at the full stop either way.
    """
    return (
        f'root ::= " " word (","? " " word){{2,{words - 1}}} "." "\\n"?\n'
        f"word ::= [{_LETTER}] [{_LOWER}'\u2019]{{0,{WORD_CHARS - 1}}} "
        f'("-" [{_LOWER}] [{_LOWER}\'\u2019]{{0,{WORD_CHARS - 1}}})?\n'
    )


def line_words(analysis: Analysis) -> int:
    """Most words of each line's end, so that the narrative stays near TARGET_WORDS."""
    fixed = sum(len(fill(f.head, analysis.values).split()) for f in analysis.facts)
    spare = (TARGET_WORDS - fixed) // max(1, len(analysis.facts))
    return max(MIN_LINE_WORDS, min(LINE_WORDS, spare))


#: how many times a line is asked for: greedy first, then sampled with fixed seeds
ATTEMPTS = 3
#: sampling of the regenerations of a rejected line (fixed seeds: deterministic)
RETRY_TEMPERATURE = 0.7
#: words a finished French sentence does not end on
DANGLING_RE = re.compile(
    r"\b(?:le|la|les|l'|un|une|des|du|de|d'|au|aux|à|et|ou|mais|que|qu'|qui|pour|par|"
    r"sur|avec|dans|en|son|sa|ses|leur|leurs|ce|cet|cette|ces|plus|moins|très|"
    r"trop|si|sans|vers|chez|entre|afin|comme|dont|se|s'|ne|n')$"
)

PATH_LLM = "llm"
PATH_TEMPLATE = "gabarit"

# -- lexicons (lowercase; patterns match at a word start) ----------------------------------
_NUMBER_WORDS = (
    r"deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|treize|quatorze|quinze|seize|"
    r"vingts?|trente|quarante|cinquante|soixante|cents?|milles?|millions?|milliards?|moitié|"
    r"tiers|quarts?|pourcents?|pour cent|doubles?|triples?|dizaines?|centaines?|sigma"
)
NUMBER_RE = re.compile(rf"\b(?:{_NUMBER_WORDS})\b")
BOTH_SIDES_RE = re.compile(r"\b(?:les|aux|des) deux (?:camps|parties|côtés|équipes|adversaires)\b")
#: characters that only a number would need
NUMBER_CHARS = re.compile(r"[0-9%σ‰½¼¾+=<>*/^]")
#: claims that the sides are even
BALANCE_RE = re.compile(
    r"\b(?:équilibr\w*|serrée?s?|indécise?s?|incertaine?s?|égalité|égale?s?|égaux|"
    r"coude à coude|se valent|partagée?s?|pareil\w*|comparables?|similaires?)\b"
)
#: a side doing better (the subject wins)
WIN_RE = re.compile(
    r"\b(?:domin(?!é)\w*|favor\w*|faveur|avantag\w*|l'emport\w*|emport\w*|écras(?!é)\w*|"
    r"surclass(?!é)\w*|supérieur\w*|supériorité|gagn\w*|vainqueurs?|victorieu\w*|"
    r"ascendant|dessus|mène\w*|bat|battent|l'avance|favori\w*|maîtris\w*|impose\w*|"
    r"meilleur\w*|plus fort\w*|dans la plupart)\b"
)
#: a side doing worse (the subject loses)
LOSS_RE = re.compile(
    r"\b(?:dominée?s?|écrasée?s?|surclassée?s?|battue?s?|perd\w*|défavoris\w*|"
    r"désavantag\w*|inférieur\w*|vaincue?s?|infériorité|distancé\w*|"
    r"moins fort\w*|à la traîne|dépassée?s?|débordée?s?)\b"
)
#: a call to change the encounter (false when it is balanced)
ADJUST_RE = re.compile(r"\b(?:ajust\w*|rééquilibr\w*|corrig\w*|correction\w*|retouch\w*)")
UNBALANCE_RE = re.compile(r"\bdéséquilibr\w*|\bdisproportion\w*|\basymétri\w*")
NEGATION_RE = re.compile(
    r"\b(?:ne|pas|jamais|aucune?|guère|nullement|sans|moins|ni|rarement|peu)\b|\bn'"
)
#: groups a line may refer to without naming them (ambiguous subjects)
GENERIC_RE = re.compile(
    r"\b(?:adversaires?|ennemis?|opposants?|équipes?|autres?|ils|elles?|eux|leurs?|"
    r"l'un|l'autre|camps?|groupes?|on)\b"
)
DRAW_RE = re.compile(r"\b(?:nuls?|nulles?|égalité|sans vainqueur|indécis\w*)\b")
_LENGTH_LONG = re.compile(
    r"\b(?:longs?|longues?|longtemps|interminables?|lente?s?|lentement|prolongée?s?|"
    r"durables?|éternis\w*|s'étir\w*)\b"
)
_LENGTH_SHORT = re.compile(
    r"\b(?:courts?|courtes?|brefs?|brèves?|rapides?|rapidement|expéditi\w*|éclairs?|"
    r"vite|promptement|fulgurant\w*)\b"
)
_LENGTH_EXTREME = re.compile(r"\b(?:interminables?|éclairs?|expéditi\w*|fulgurant\w*)\b")
_LENGTH_ANY = re.compile(f"{_LENGTH_LONG.pattern}|{_LENGTH_SHORT.pattern}")
_DRAWS_MANY = re.compile(r"\b(?:fréquent\w*|nombreu\w*|souvent|beaucoup|majorité|multiples)\b")
_DRAWS_FEW = re.compile(r"\b(?:rares?|rarement|aucun\w*|jamais|peu|exceptionnel\w*|quelques)\b")
#: a fight said to be hard / easy for someone (« difficile pour players »)
HARD_RE = re.compile(
    r"\b(?:difficiles?|dangereu\w*|coûteu\w*|pénibles?|rudes?|éprouvant\w*|risqué\w*|"
    r"périlleu\w*|mortel\w*|défavorables?|compliqué\w*|ardue?s?|intenses?)\b"
)
EASY_RE = re.compile(r"\b(?:faciles?|favorables?|avantageu\w*|simples?|aisée?s?|confortables?)\b")
#: levers: making a side stronger / weaker (the side named next is the object)
STRENGTHEN_RE = re.compile(
    r"\b(?:augment\w*|renforc\w*|ajout\w*|amélior\w*|relev\w*|hauss\w*|aid\w*|"
    r"muscl\w*|boost\w*|accroî\w*|accroi\w*)\b"
)
WEAKEN_RE = re.compile(
    r"\b(?:baiss\w*|rédui\w*|retir\w*|affaibl\w*|diminu\w*|limit\w*|bride\w*|"
    r"pénalis\w*|enlev\w*|nerf\w*)\b"
)
ENGLISH_RE = re.compile(r"\b(?:the|and|is|are|of|with|wins?|team|fights?|which)\b")
PLACEHOLDER_RE = re.compile(r"\{([^{}]*)\}")
CLAUSE_SPLIT = re.compile(r"[,;:.!?()—–]| mais | tandis que | alors que | bien que | car ")


@dataclass(frozen=True, slots=True)
class Rejection:
    """A line the checker refused: which fact, why (French), and the model's words."""

    fact: str
    reason: str
    text: str


@dataclass(slots=True)
class Narrative:
    """The narrative and how it was produced."""

    #: the final text, placeholders filled, one paragraph per fact
    lines: list[str]
    #: ``llm`` (every line written by the model and accepted) or ``gabarit``
    path: str
    #: the model asked (None when none was available or asked)
    model: str | None
    #: why the template was used (None on the LLM path)
    reason: str | None = None
    #: lines generated a second time after a rejection
    regenerated: int = 0
    rejections: list[Rejection] = field(default_factory=list)
    model_calls: int = 0
    #: wall-clock seconds spent in the model (measured; never printed in the report)
    seconds: float = 0.0

    @property
    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    @property
    def words(self) -> int:
        return len(" ".join(self.lines).split())

    def provenance(self) -> str:
        """The French line that says which path and which model produced the text."""
        if self.path == PATH_LLM:
            extra = ""
            if self.regenerated:
                s = "s" if self.regenerated > 1 else ""
                extra = f", {self.regenerated} phrase{s} régénérée{s} après rejet"
            return f"Rédaction : modèle {self.model}, texte vérifié{extra}."
        return f"Rédaction : gabarit déterministe ({self.reason})."

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "model": self.model,
            "reason": self.reason,
            "regenerated": self.regenerated,
            "rejections": [
                {"fact": r.fact, "reason": r.reason, "text": r.text} for r in self.rejections
            ],
            "text": self.text,
        }


# -- the checker ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class _Mention:
    start: int
    end: int
    #: the sides the mention refers to (a combatant counts for its side)
    sides: frozenset[str]
    #: the exact entities (side names or combatant ids) it names, when exact
    names: frozenset[str]
    #: a generic group (« les adversaires », « ils ») or a name of several sides
    ambiguous: bool = False


class Checker:
    """Judges the model's end of each line against the analysis (see the module doc)."""

    def __init__(self, analysis: Analysis, report: dict[str, Any]) -> None:
        self.analysis = analysis
        #: most words of a line's end (:func:`line_words`)
        self.words = line_words(analysis)
        self.side_of: dict[str, str] = {c["id"]: c["side"] for c in report["combatants"]}
        # every way to name an entity: side names, combatant ids, display names
        self._exact: list[tuple[str, frozenset[str], frozenset[str]]] = []
        for s in analysis.sides:
            self._exact.append((s.lower(), frozenset({s}), frozenset({s})))
        for c in report["combatants"]:
            self._exact.append((c["id"].lower(), frozenset({c["side"]}), frozenset({c["id"]})))
        by_name: dict[str, set[str]] = {}
        for c in report["combatants"]:
            by_name.setdefault(c["name"].lower(), set()).add(c["id"])
        for name, ids in by_name.items():
            if name not in {e[0] for e in self._exact}:
                sides = frozenset(self.side_of[i] for i in ids)
                self._exact.append((name, sides, frozenset(ids)))
        self._exact.sort(key=lambda e: -len(e[0]))

    def others(self, fact: Fact) -> frozenset[str]:
        """The sides « les autres camps » means in ``fact``'s line (empty: unclear).

        Every side but the fact's own: the side of the combatant or the side the
        fact is about (carrier, exposed, inactive, melee, one-sided attrition,
        outsider), else the favoured side; none in a balanced report's general
        facts.
        """
        own: str | None = self.analysis.favoured
        if fact.kind in _SIDED_KINDS and fact.subjects:
            first = fact.subjects[0]
            own = first if first in self.analysis.sides else self.side_of.get(first)
        if own is None:
            return frozenset()
        return frozenset(s for s in self.analysis.sides if s != own)

    # mentions of sides and combatants, exact or approximate (« gobelins » ≈ goblin)
    def mentions(self, text: str, others: frozenset[str] = frozenset()) -> list[_Mention]:
        """Where ``text`` names sides or combatants; « autres camps » is ``others``."""
        low = text.lower()
        found: list[_Mention] = []
        taken = [False] * len(low)
        if others:
            for m in OTHERS_RE.finditer(low):
                for i in range(m.start(), m.end()):
                    taken[i] = True
                found.append(_Mention(m.start(), m.end(), others, others))
        for word, sides, names in self._exact:
            pattern = re.compile(rf"(?<![\w-]){re.escape(word)}(?:s|es)?(?![\w-])")
            for m in pattern.finditer(low):
                if any(taken[m.start() : m.end()]):
                    continue
                for i in range(m.start(), m.end()):
                    taken[i] = True
                found.append(_Mention(m.start(), m.end(), sides, names, len(sides) > 1))
        for m in re.finditer(r"[\w'-]+", low):
            if any(taken[m.start() : m.end()]):
                continue
            token = m.group().split("'")[-1]
            if len(token) < 3:
                continue
            if GENERIC_RE.fullmatch(token) or GENERIC_RE.fullmatch(m.group()):
                found.append(_Mention(m.start(), m.end(), frozenset(), frozenset(), True))
                continue
            near = self._approximate(token)
            if near is not None:
                sides, names = near
                found.append(_Mention(m.start(), m.end(), sides, names, len(sides) > 1))
        found.sort(key=lambda x: x.start)
        # « le camp players »: the generic word before a name is that name
        return [
            x
            for i, x in enumerate(found)
            if not (
                x.ambiguous
                and not x.sides
                and i + 1 < len(found)
                and found[i + 1].names
                and low[x.end : found[i + 1].start].strip() in ("", "de", "des", "du")
            )
        ]

    def _approximate(self, token: str) -> tuple[frozenset[str], frozenset[str]] | None:
        """Every entity whose name is close to ``token`` (« gobelins » ≈ goblin, goblin-2…)."""
        sides: set[str] = set()
        names: set[str] = set()
        for word, s, n in self._exact:
            base = word.split("-")[0]
            if len(base) < 3 or token[:3] != base[:3]:
                continue
            if difflib.SequenceMatcher(None, token, base).ratio() >= 0.6:
                sides |= s
                names |= n
        return (frozenset(sides), frozenset(names)) if names else None

    def check(self, fact: Fact, end: str, *, truncated: bool = False) -> str | None:
        """None if the model's end of ``fact``'s line is acceptable, else the French reason.

        ``truncated``: the model ran out of tokens before ending the sentence.
        """
        a = self.analysis
        text = end.strip()
        words = len(text.split())
        if words < 3:
            return "phrase vide ou trop courte"
        if words > self.words:  # what the grammar enforces, for every provider
            return "phrase trop longue"
        if not text[0].islower():  # « ce qui » goes on: no new sentence, title or list
            return "suite qui ne continue pas la phrase"
        if truncated:
            return "phrase inachevée"
        if "\n" in text or "*" in text or "#" in text:
            return "mise en forme interdite"
        for m in PLACEHOLDER_RE.finditer(text):
            if m.group(1) not in fact.placeholders:
                return f"substitut « {{{m.group(1)}}} » inconnu ou étranger à ce fait"
        bare = PLACEHOLDER_RE.sub(" ", text)
        if "{" in bare or "}" in bare:
            return "accolade hors d'un substitut"
        head = fact.head + " "
        full = f"{head}{PLACEHOLDER_RE.sub(' ', end).lstrip()}"
        offset = len(head)
        mentions = self.mentions(full, self.others(fact))
        own = [m for m in mentions if m.end > offset]
        # any side may be named (who wins is guarded by the verdict lexicon below);
        # a combatant only in the facts about it
        allowed = set(fact.subjects) | set(a.sides)
        for m in own:
            if m.ambiguous and m.sides:
                return "nom ambigu (plusieurs camps)"
            if m.names and not (m.names & allowed or (m.sides & allowed and len(m.names) > 1)):
                who = ", ".join(sorted(m.names))
                return f"« {who} » nommé dans un fait qui ne le concerne pas"
        # digits, once placeholders and exact names (goblin-2) are set aside
        masked = list(full)
        for m in mentions:
            if m.names or m.sides:  # names (goblin-2) hide their digits; generic words stay
                for i in range(m.start, m.end):
                    masked[i] = " "
        rest = "".join(masked)[offset:].lower()
        figure = next((ch for ch in rest if unicodedata.category(ch).startswith("N")), None)
        if figure is not None:
            return f"chiffre hors substitut « {figure} »"
        if NUMBER_CHARS.search(rest):
            return (
                f"chiffre ou signe de calcul hors substitut « {NUMBER_CHARS.search(rest).group()} »"  # type: ignore[union-attr]
            )
        odd = next((ch for ch in rest if not _plain(ch)), None)
        if odd is not None:
            return f"caractère inattendu « {odd} »"
        if len(a.sides) == 2:  # « les deux camps » is true of two sides, and only then
            rest = BOTH_SIDES_RE.sub(" ", rest)
        number = NUMBER_RE.search(rest)
        if number:
            return f"nombre en toutes lettres « {number.group()} »"
        if ENGLISH_RE.search(rest):
            return "texte qui n'est pas en français"
        if DANGLING_RE.search(text.rstrip(" .,").lower()):
            return "phrase inachevée"
        return (
            self._lexicon(fact, full.lower(), offset, mentions)
            or self._for_whom(full.lower(), offset, mentions)
            or self._topics(fact, rest, a)
            or self._direction(fact, full.lower(), offset, mentions)
        )

    def _for_whom(self, full: str, offset: int, mentions: list[_Mention]) -> str | None:
        """« difficile pour players », « favorable à monsters »: who is said to suffer or gain."""
        a = self.analysis
        if a.favoured is None:
            return None
        for regex, easy in ((HARD_RE, False), (EASY_RE, True)):
            for m in regex.finditer(full, offset):
                target = _beneficiary(full, m.end(), mentions)
                if target is None:
                    continue
                if target.ambiguous or not target.sides:
                    return f"« {m.group()} » pour un sujet ambigu"
                # easy for the favoured side alone; hard for sides that are all behind
                right = target.sides == {a.favoured} if easy else a.favoured not in target.sides
                if not right:
                    who = ", ".join(sorted(target.sides))
                    return f"« {m.group()} » pour {who}, contraire au verdict"
        return None

    def _direction(
        self, fact: Fact, full: str, offset: int, mentions: list[_Mention]
    ) -> str | None:
        """Who is made stronger or weaker.

        A lever (and any fact but the next one): strengthen the side behind,
        weaken the one ahead. The fact that a combatant carries the fight: its
        own side is the one made stronger (« ce qui renforce players »), the
        others weaker, whoever the verdict favours.
        """
        a = self.analysis
        own = fact.subjects[1] if fact.kind == "carry" else None
        for regex, stronger in ((STRENGTHEN_RE, True), (WEAKEN_RE, False)):
            for m in regex.finditer(full, offset):
                clause_end = m.end() + len(_clause(full[m.end() :], 0))
                after = [x for x in mentions if m.end() <= x.start < clause_end]
                if not after:
                    continue
                target = after[0]
                if a.favoured is None and not target.sides:
                    continue  # « aide à garder l'équilibre entre les camps »: no side aimed at
                if target.ambiguous or not target.sides:
                    return f"« {m.group()} » vise un sujet ambigu"
                side = ", ".join(sorted(target.sides))
                if fact.kind == "verdict":  # a verdict states who wins; it changes no side
                    return f"« {m.group()} » {side} : le verdict ne change la force d'aucun camp"
                if own is not None:  # the carrier's side stronger, the others weaker
                    if not (target.sides == {own} if stronger else own not in target.sides):
                        return f"« {m.group()} » {side} : contraire au camp de {fact.subjects[0]}"
                elif a.favoured is None or not (  # a lever: behind stronger, favoured weaker
                    a.favoured not in target.sides if stronger else target.sides == {a.favoured}
                ):
                    return f"« {m.group()} » {side} : levier dans le mauvais sens"
        return None

    def _lexicon(self, fact: Fact, full: str, offset: int, mentions: list[_Mention]) -> str | None:
        a = self.analysis
        tail = full[offset:]
        if a.verdict == BALANCED:
            if UNBALANCE_RE.search(tail):
                return "« déséquilibré » contredit le verdict (équilibré)"
            adjust = ADJUST_RE.search(tail)
            if adjust:
                return f"« {adjust.group()} » contredit le verdict (équilibré)"
        elif fact.kind != "lever" and BALANCE_RE.search(tail):  # a lever aims at balance
            return f"« {BALANCE_RE.search(tail).group()} » contredit le verdict (déséquilibré)"  # type: ignore[union-attr]
        outsider = fact.subjects[0] if fact.kind == "outsider" else None
        for regex, winning in ((WIN_RE, True), (LOSS_RE, False)):
            for m in regex.finditer(full, offset):
                word = m.group()
                clause = _clause(full, m.start())
                if NEGATION_RE.search(clause):
                    return f"négation autour de « {word} »"
                # « favorable à monsters », « avantage pour players »: the side named
                # after the word is the one said to gain (or lose)
                subject = _beneficiary(full, m.end(), mentions)
                if subject is None and word == "faveur":
                    continue  # « en faveur de la bataille »: no side said to win
                if subject is None:
                    before = [x for x in mentions if x.end <= m.start()]
                    if not before:
                        return f"« {word} » sans camp nommé avant"
                    subject = before[-1]
                if subject.ambiguous or len(subject.sides) != 1:
                    return f"« {word} » après un sujet ambigu"
                (side,) = tuple(subject.sides)
                if a.verdict == BALANCED:
                    if winning or side != outsider:
                        return f"« {word} » contredit le verdict (équilibré)"
                elif winning != (side == a.favoured):
                    return f"« {word} » attribué à {side}, contraire au verdict"
        return None

    def _topics(self, fact: Fact, rest: str, a: Analysis) -> str | None:
        draws = DRAW_RE.search(rest)
        if draws and fact.kind not in ("draws", "lever"):
            return f"« {draws.group()} » hors du fait sur les nuls"
        if fact.kind == "draws":
            wrong = _DRAWS_FEW if a.draws == "frequents" else _DRAWS_MANY
            hit = wrong.search(rest)
            if hit:
                return f"« {hit.group()} » contredit la fréquence des nuls"
        wrong_len = {
            "courts": _LENGTH_LONG,
            "longs": _LENGTH_SHORT,
            "moyens": _LENGTH_EXTREME,
            # fights cut at the cap: their real length is not measured
            "plafonnes": _LENGTH_ANY,
        }[a.length]
        hit = wrong_len.search(rest)
        if hit:
            return f"« {hit.group()} » contredit la durée des combats"
        return None


#: facts about one side or one combatant: « les autres camps » are the sides but its own
_SIDED_KINDS = frozenset({"carry", "exposed", "inactive", "melee", "one_sided", "outsider"})
#: the sides other than the fact's own (see :meth:`Checker.others`)
OTHERS_RE = re.compile(r"(?<![\w-])autres (?:camps|équipes|groupes)(?![\w-])")

#: winning nouns whose complement is the winner (« l'avance de players »)
POSSESSED_RE = re.compile(r"(?:l'avance|avantages?|supériorité|ascendant|faveur)$")


def _beneficiary(full: str, at: int, mentions: list[_Mention]) -> _Mention | None:
    """The side or combatant named right after « pour », « à », « aux » or « au » at ``at``.

    After a winning noun (« l'avance de players »), « de », « des » and « du » too.
    """
    linkers = "pour|à|aux|au|de|des|du" if POSSESSED_RE.search(full[:at]) else "pour|à|aux|au"
    to = re.match(rf"\s+(?:{linkers})\b", full[at : at + 40])
    if to is None:
        return None
    target = next((x for x in mentions if x.start >= at + to.end()), None)
    if target is None or target.start > at + to.end() + 12:
        return None
    return target


def _clause(text: str, at: int) -> str:
    """The clause of ``text`` around position ``at``."""
    starts = [m.end() for m in CLAUSE_SPLIT.finditer(text) if m.end() <= at]
    ends = [m.start() for m in CLAUSE_SPLIT.finditer(text) if m.start() >= at]
    return text[(starts[-1] if starts else 0) : (ends[0] if ends else len(text))]


# -- the narrator -----------------------------------------------------------------------------
def template_narrative(analysis: Analysis) -> list[str]:
    """The deterministic French narrative: each fact's template sentence, filled."""
    return [fill(f.template, analysis.values) for f in analysis.facts]


def messages(report: dict[str, Any], analysis: Analysis) -> tuple[ChatMessage, ...]:
    """The narrator's prompt (``prompts/narrative/``): static rules first, then the facts."""
    env = prompt_environment()
    system = env.get_template("narrative/system.j2").render()
    user = env.get_template("narrative/facts.j2").render(
        map=report["map"],
        sides=[
            {
                "name": s["name"],
                "members": [c["id"] for c in report["combatants"] if c["side"] == s["name"]],
            }
            for s in report["sides"]
        ],
        favoured=analysis.favoured,
        words=line_words(analysis),
        facts=[{"id": f.id, "hint": f.hint} for f in analysis.facts],
    )
    return (ChatMessage("system", system), ChatMessage("user", user))


def narrate(
    report: dict[str, Any],
    model: ChatModel | None,
    *,
    seed: int = 0,
    unavailable: str | None = None,
    analysis: Analysis | None = None,
) -> Narrative:
    """The narrative of ``report``, written by ``model`` and checked, or the template.

    ``model`` None: the template, with ``unavailable`` (French) as the reason.
    A model error (after the provider's own retries) also falls back to the
    template, with the error as the reason.
    """
    a = analysis or analyse(report)
    if model is None:
        return Narrative(template_narrative(a), PATH_TEMPLATE, None, unavailable or "sans modèle")
    checker = Checker(a, report)
    chat = messages(report, a)
    grammar = line_grammar(checker.words)
    done: list[str] = []  # accepted lines, placeholders unfilled
    said: set[str] = set()  # the model's accepted words, to refuse a repeated clause
    narrative = Narrative([], PATH_LLM, model.model_id)
    start = time.perf_counter()
    for fact in a.facts:
        # the lines before are shown as their fixed sentences: the model sees no
        # earlier clause of its own to copy, and each line depends on the facts only
        prefill = "".join(f.template + "\n" for f in a.facts[: len(done)]) + fact.head
        accepted: str | None = None
        for attempt in range(ATTEMPTS):
            request = ChatRequest(
                chat,
                None,
                LINE_TOKENS,
                0.0 if attempt == 0 else RETRY_TEMPERATURE,
                seed + attempt,
                prefill=prefill,
                grammar=grammar,
                stop=STOP,
            )
            try:
                response = complete_checked(model, request)
            except ModelError as err:
                narrative.seconds = time.perf_counter() - start
                why = clean_text(str(err))
                return _fallback(a, narrative, f"erreur du modèle {model.model_id} : {why}")
            narrative.model_calls += 1
            raw = response.text
            end = raw[len(prefill) :] if raw.startswith(prefill) else raw
            # the line as it would be printed: no control character or terminal escape
            end = clean_text(end.split("\n", 1)[0]).rstrip()
            cut = response.truncated
            if cut is None:
                cut = response.tokens_out >= LINE_TOKENS
            reason = checker.check(fact, end, truncated=cut)
            if reason is None and _words(end) in said:
                reason = "répétition d'une phrase précédente"
            if reason is None:
                accepted = end
                break
            narrative.rejections.append(Rejection(fact.id, reason, end))
            if attempt == 0:
                narrative.regenerated += 1
        if accepted is None:
            narrative.seconds = time.perf_counter() - start
            last = narrative.rejections[-1]
            return _fallback(
                a,
                narrative,
                f"texte du modèle {model.model_id} rejeté {ATTEMPTS} fois, fait « {last.fact} » : "
                f"{last.reason}",
            )
        done.append(f"{fact.head} {accepted.strip().rstrip('.')}.")
        said.add(_words(accepted))
    narrative.seconds = time.perf_counter() - start
    narrative.lines = [fill(line, a.values) for line in done]
    return narrative


def _plain(ch: str) -> bool:
    """A letter of the Latin script, a space or common French punctuation."""
    if ch.isspace() or ch in ",;:'’-–—«»()!?…\".":
        return True
    return unicodedata.category(ch).startswith("L") and unicodedata.name(ch, "").startswith("LATIN")


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _fallback(a: Analysis, narrative: Narrative, reason: str) -> Narrative:
    narrative.lines = template_narrative(a)
    narrative.path = PATH_TEMPLATE
    narrative.reason = reason
    return narrative


def render_narrative(narrative: Narrative) -> str:
    """The « Analyse » section of the terminal report."""
    return "\n".join(["=== Analyse ===", *narrative.lines, "", narrative.provenance()]) + "\n"
