"""Compiling a natural-language strategy into a :class:`StrategySpec`: a compiler
that does not invent.

The text (French or English) goes through four steps:

1. :func:`check_tactical`: a text without a single word of the fighting
   vocabulary (:data:`TACTICAL_WORDS`) is refused before any model call;
2. :func:`spot` (deterministic, no model): the text is cut into fragments (at
   sentence ends, commas, « et », « puis », « then »… ; a fragment that is only
   a subordinate clause — « quand … », « until … » — joins its neighbour), and
   in each fragment every *aspect* (targets, engagement, distance, charge,
   flanking…) is looked for by its own French and English words. A field can
   only be set when the words of its aspect appear in the text: this is what
   keeps a model that copies examples from setting fields the text never asked
   for. Numbers are read by code, never by the model: distances with their
   unit (« 1,5 m » = 5 ft, « 3 cases » = 15 ft, « 30 pieds »), hit point
   thresholds (« 20 % », « la moitié », « a quarter »: a retreat or a total
   defense field, or with any other order an ``own_hp_pct_below`` phase
   condition), phase conditions (« jusqu'au contact », « quand la moitié du
   groupe est tombée », « from round 3 », « jusqu'au tour 2 »; « until » a share
   down or a threshold, which the spec only has as « from … on », sets the
   side's fields and a phase of that condition undoes them — ``stance: fight``
   for a stance — and takes what follows « puis » / « then »), zones to stay in
   (« lignes 0 à 4 », « colonnes 2-6 », « les 3 premières lignes », « the first
   two columns »; only with an order to stay there), role tags given to named
   combatants (« Norg est notre chef », « treat the kobold as their healer »:
   ``combatant_roles``, the side checked against « notre » / « leur »), and the
   names of the encounter (enemy names and ids; our own units never become
   targets);
3. :func:`ask`: for each aspect that needs a judgement (whether the text orders
   or forbids a charge, which target kinds come first, melee or ranged…), one
   narrow question to the model, with the fragments of that aspect only and a
   tiny JSON grammar: one enum (or a short list of enums) restricted to the
   values whose words appear, plus ``not_said`` and ``other`` (the text asks
   something about this aspect that the spec cannot express);
4. assembly: the answers become the fields of the side, of a role of our own
   side (« nos archers … ») or of a phase (a fragment with a condition). Every
   fragment that set no field, and every ``other`` answer, is reported to the
   user as « non compris : … » (:attr:`Compilation.not_understood`) — never
   replaced by something else.

A text that sets no field is refused (« texte non compris »), with what was not
understood. :func:`describe_strategy` renders a spec in plain French, saying
only what differs from the heuristic and what the policy will do.
:func:`cache_key` hashes (text, model, prompt, encounter names) for the
harness's cache of compiled specs.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from engine.core.errors import Pf1eSimError
from policies.answers import clean_text, complete_checked, parse_json_answer
from policies.llm import ChatMessage, ChatModel, ChatRequest, ModelError, prompt_environment
from policies.strategy import Behaviour, StrategySpec

#: tokens of one answer (the longest, a list of three target kinds, is about 25)
MAX_TOKENS = 40


class StrategyCompileError(Pf1eSimError):
    """The text could not be turned into a strategy (French message)."""


#: the fighting vocabulary of :func:`check_tactical`: regular expressions matched at the
#: start of a word of the text, lowercased and without accents (French, then English)
TACTICAL_WORDS: tuple[str, ...] = (
    # French
    r"attaqu", r"frapp", r"tape[rz]?\b", r"cogn", r"tir(?:e|ez|er|s|eur|eurs)?\b",
    r"tu(?:e|ez|er)\b", r"abat", r"achev", r"cibl", r"vis(?:e|ez|er)\b", r"ennemi",
    r"adversaire", r"archer", r"arcs?\b", r"arbal", r"epee", r"armes?\b", r"melee",
    r"corps a corps", r"contact",
    r"charg", r"recul", r"retir", r"retraite", r"fui", r"fuy", r"repli", r"defen", r"proteg",
    r"distance", r"pieds?\b", r"metres?\b", r"cases?\b", r"menac", r"concentr", r"encercl",
    r"flanc", r"tenaille", r"position", r"ligne", r"avanc", r"approch", r"points? de vie",
    r"pv\b", r"bless", r"dangereu", r"proche", r"faible", r"combat", r"bataille", r"guerr",
    r"ten(?:ez|ir)\b", r"gard", r"engag", r"fonce", r"couvert", r"abri", r"soign", r"chef",
    # English
    r"attack", r"hit\b", r"hits\b", r"strik", r"shoot", r"fire\b", r"kill", r"target",
    r"focus", r"enem", r"foe", r"opponent", r"bows?\b", r"sword", r"weapon", r"ranged?\b",
    r"retreat", r"withdraw", r"flee", r"fall back", r"back off", r"guard", r"protect",
    r"feet\b", r"foot\b", r"ft\b", r"squares?\b", r"threat", r"flank", r"gang", r"surround",
    r"hold", r"advanc", r"health", r"hit points?", r"hp\b", r"wound", r"weak",
    r"strong", r"danger", r"nearest", r"closest", r"fight", r"battle", r"ambush", r"cover",
    r"heal", r"leader", r"go after", r"go for\b", r"take (?:out|down)", r"first\b", r"chase",
    r"d abord", r"en premier", r"priorit", r"colonnes? \d", r"rows? \d", r"columns? \d",
    r"first \w+ (?:rows|columns)\b",
)  # fmt: skip
_TACTICAL = re.compile(r"\b(?:" + "|".join(TACTICAL_WORDS) + ")")


def _plain(text: str) -> str:
    """Lowercase, without accents, words separated by single spaces; a decimal
    comma or point kept as ``p`` (« 1,5 » → ``1p5``), « % » as the word ``pct``."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    bare = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    bare = re.sub(r"(?<=\d)[.,](?=\d)", "p", bare).replace("%", " pct ")
    return " ".join(re.sub(r"[^\w]+", " ", bare).split())


def check_tactical(text: str) -> None:
    """Refuse a text without one word of the fighting vocabulary.

    :raises StrategyCompileError: empty text, or no word of :data:`TACTICAL_WORDS`.
    """
    if not text.strip():
        raise StrategyCompileError("texte de stratégie vide")
    if _TACTICAL.search(_plain(text)) is None:
        shown = clean_text(" ".join(text.split()))
        shown = shown if len(shown) <= 120 else shown[:119] + "…"
        raise StrategyCompileError(
            "ce texte n'est pas une stratégie de combat : aucun mot de combat reconnu (viser, "
            "attaquer, tirer, ennemi, charger, reculer, distance, points de vie…) ; décrivez "
            f"comment votre camp doit se battre (non compris : « {shown} »)"
        )


# -- the words of each aspect (on the plain text: lowercase, no accents) -----------------


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(parts) + r")\b")


#: target criteria: the kinds of enemy ``targets`` can name
TARGET_WORDS: dict[str, re.Pattern[str]] = {
    "nearest": _rx(r"(?:le |la |les )?plus proches?", r"au plus pres", "nearest", "closest"),
    "weakest": _rx(r"(?:le |la |les )?plus faibles?", r"moins de (?:pv|points de vie)",
                   "weakest", r"fewest hit points", "frailest", "feeblest"),
    "most_wounded": _rx(r"(?:le |la |les )?plus bless\w*", r"bless\w*", r"achev\w*", "wounded",
                        "injured", r"finish (?:off|them)"),
    "strongest": _rx(r"(?:le |la |les )?plus (?:costauds?|robustes?|resistants?|solides?|forts?)",
                     r"plus de (?:pv|points de vie)", "strongest", "toughest",
                     r"most hit points", "beefiest", "sturdiest"),
    "most_dangerous": _rx(r"(?:le |la |les )?plus (?:dangereu\w*|redoutables?|mortels?)",
                          r"dangereu\w*", r"redoutables?", r"(?:most )?dangerous", "deadliest",
                          r"most threatening"),
    "ranged_first": _rx(r"(?:qui ont des |avec des |armes? )(?:armes? )?a distance",
                        r"(?:with )?ranged weapons?", r"enemies with bows"),
    "engaged": _rx(r"deja (?:au contact|engages?|aux prises)", r"already (?:fighting|engaged)",
                   r"gang up", r"en surnombre"),
}  # fmt: skip
#: enemy role tags: the kinds of enemy ``target_roles`` can name
ROLE_WORDS: dict[str, re.Pattern[str]] = {
    "caster": _rx(r"lanceurs? de sorts?", r"mages?", r"sorcier\w*", r"magicien\w*",
                  r"ensorceleu\w*", r"chamans?", r"spell ?casters?", r"casters?", r"wizards?",
                  r"sorcerers?", r"shamans?", r"witch\w*", r"warlocks?"),
    "healer": _rx(r"soigneu\w*", r"guerisseu\w*", r"pretres?", r"pretresses?", r"clercs?",
                  r"healers?", r"clerics?", r"priests?", r"medics?"),
    "ranged": _rx(r"archers?", r"tireurs?", r"arbaletriers?", r"shooters?", "bowmen",
                  r"marksm[ae]n", r"snipers?", r"bowm[ae]n"),
    "brute": _rx(r"brutes?", r"cogneurs?", r"gros bras", r"bruisers?", r"heavy hitters?",
                 r"bagarreurs?"),
    "leader": _rx(r"chefs?", r"meneu\w*", r"capitaines?", r"leaders?", r"boss", r"commandants?",
                  r"commanders?", r"captains?", r"warlords?", r"chieftains?"),
}  # fmt: skip
#: « our archers … »: a role of our own side is the subject (``roles``), not a target
_OWN = re.compile(r"\b(?:nos|notre|our|mes|my)\s+(\w+)")

ENGAGEMENT_WORDS: dict[str, re.Pattern[str]] = {
    "melee": _rx(r"corps a corps", r"melee", r"au contact", r"lames?", r"epees?", r"haches?",
                 r"close combat", r"hand to hand", r"blades?", r"swords?", r"axes?"),
    "ranged": _rx(r"arcs?", r"tir\w*", r"a distance", r"fleches?", r"arbaletes?", r"shoot\w*",
                  r"bows?", r"arrows?", r"ranged", r"from afar", r"crossbows?", r"volleys?"),
    "any": _rx(r"toutes (?:les|vos) armes", r"n importe quelle arme", r"any weapons?",
               r"whatever weapon"),
}  # fmt: skip
POSITION_WORDS: dict[str, re.Pattern[str]] = {
    "hold": _rx(r"tenez", r"tenir", r"tien(?:t|nent)",
                r"restez (?:sur place|en place|ou vous etes|immobiles?)",
                r"ne bougez pas", r"immobiles?", r"laissez les venir", r"attendez les",
                r"holds?", r"holding", r"stay (?:put|in place|where you are)",
                r"(?:stands?|holds?|keeps?) (?:his|her|their|your|its|our) ground",
                r"stand (?:your ground|fast|still)", r"let them come", r"wait for them",
                r"don t move"),
    "advance": _rx(r"avancez", r"avancer", r"foncez", r"allez au devant", r"marchez sur",
                   r"advance", r"push forward", r"press forward", r"rush", r"close in",
                   r"go to them", r"move up"),
}  # fmt: skip
CHARGE_WORDS = _rx(r"charg\w*")
FLAG_WORDS: dict[str, re.Pattern[str]] = {
    "focus_fire": _rx(r"tous ensemble", r"ensemble", r"tous sur", r"concentr\w*",
                      r"meme cible", r"une seule cible", r"together", r"focus fire",
                      r"all on", r"same (?:enemy|target)", r"one (?:\w+ )?at a time",
                      r"une? (?:seule? )?(?:\w+ )?a la fois"),
    "avoid_provoking": _rx(r"attaques? d opportunite", r"provoqu\w*", r"opportunit\w*",
                           r"provok\w*", r"aoos?"),
    "avoid_threatened": _rx(r"cases? menacees?", r"threatened (?:squares?|spaces?)",
                            r"zones? menacees?"),
    "flank": _rx(r"flancs?", r"tenaille", r"encercl\w*", r"revers", r"en etau", r"flank\w*",
                 r"surround\w*", r"pincer", r"from both sides", r"des deux cotes"),
    "use_cover": _rx(r"couverts?", r"abris?", r"abrit\w*", r"derriere", r"planqu\w*",
                     r"cover", r"behind"),
}  # fmt: skip
DEFENSE_WORDS = _rx(r"defense totale", r"defendez\w*", r"defendre", r"defend\w*",
                    r"total defen[cs]e", r"protegez vous", r"turtle", r"bouclier")  # fmt: skip
#: back to plain fighting (``stance: fight``): what a phase or a role says after a
#: defense or a retreat (« puis combattez », « from round 3, fight »)
FIGHT_WORDS = _rx(r"combat(?:tez|tre|tons|tent|te)", r"battez vous", r"(?:se |vous )?battre",
                  r"battez", r"(?:on|il|ils) se bat\w*", r"nous nous battons",
                  r"(?:passez|repassez|partez|repartez) a l attaque", r"a l attaque",
                  r"repren\w* le combat", r"fight(?:s|ing)?", r"go on the (?:attack|offensive)",
                  r"resume (?:fighting|the fight|attacking|the attack)",
                  r"back to (?:fighting|the fight)", r"attack normally")  # fmt: skip
#: a bare attack verb: back to fighting when the fragment says nothing else (« puis attaquez »)
_BARE_ATTACK = re.compile(
    r"^(?:attaqu\w*|frapp\w*|cogn\w*|tap\w*|attack\w*|strike\w*|hit)"
    r"(?: (?:les|les ennemis|them|the enemy|normalement|again|de nouveau))?$"
)
RETREAT_WORDS = _rx(r"recul\w*", r"retir\w*", r"repli\w*", r"fu[iy]\w*", r"fuite", r"retraite",
                    r"sauve qui peut", r"decroch\w*", r"retreat\w*", r"withdraw\w*", r"flee",
                    r"run away", r"run(?! (?:at|to|toward|towards|up|in|into|past))",
                    r"fall back", r"back off", r"disengage", r"escape")  # fmt: skip

_NUMBER_WORDS = {
    "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7,
    "huit": 8, "neuf": 9, "dix": 10, "douze": 12, "quinze": 15, "vingt": 20, "trente": 30,
    "one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30,
}  # fmt: skip
_NUM = r"(\d+(?:p\d+)?|" + "|".join(_NUMBER_WORDS) + ")"
_DISTANCE = re.compile(_NUM + r" ?(m|metres?|meters?|pieds?|ft|feet|foot|cases?|squares?|pas)\b")
_KEEP = _rx(r"distances?", r"loin", r"eloign\w*", r"ecart\w*", r"recul\w*", r"retir\w*",
            r"moins de", r"plus pres", r"s approch\w*", r"approch\w*", r"away", r"keep\w*",
            r"back", r"closer", r"within", r"less than", r"stay\w*", r"rest\w*", r"gard\w*",
            r"entre (?:vous|nous) et")  # fmt: skip
_FRACTIONS = (
    (r"trois quarts|three quarters", 75), (r"deux tiers|two thirds", 67),
    (r"(?:la )?moitie|half", 50), (r"(?:un )?tiers|(?:a |one )?third", 33),
    (r"(?:un )?quart|(?:a |one )?quarter", 25),
)  # fmt: skip
_SHARE = re.compile(r"\b(?:(\d+) ?pct|" + "|".join(f"({p})" for p, _ in _FRACTIONS) + r")\b")
_HP = _rx(r"pv", r"points? de vie", r"vie", r"sante", r"hp", r"hit points?", r"health",
          r"bless\w*", r"wounded", r"vos forces")  # fmt: skip
_OURS = _rx(r"du groupe", r"de nos (?:troupes|combattants|gars|hommes|allies)", r"de nos",
            r"d entre nous", r"de notre (?:camp|groupe|equipe)", r"des notres", r"of us",
            r"of our (?:side|group|team|party|troops)", r"of the (?:group|party|team)",
            r"of our")  # fmt: skip
_THEIRS = _rx(r"des ennemis", r"d entre eux", r"de leurs (?:troupes|combattants)",
              r"of the enem(?:y|ies)", r"of them", r"of their (?:side|group|troops)",
              r"de l ennemi", r"des adversaires", r"of the foes?")  # fmt: skip
_DOWN = _rx(r"tomb\w*", r"a terre", r"hors de combat", r"morts?", r"mortes?", r"down",
            r"fallen", r"dead", r"out", r"abattus?", r"elimin\w*", r"ko")  # fmt: skip
_UNTIL_CONTACT = _rx(r"jusqu au contact", r"avant (?:le )?contact",
                     r"tant qu (?:ils|on) (?:ne )?(?:sont|est|n est) pas au contact",
                     r"jusqu a ce qu ils (?:arrivent|soient au contact|nous atteignent)",
                     r"jusqu a ce que (?:l ennemi|les ennemis|l adversaire|les adversaires) "
                     r"(?:arrive\w*|soi\w* au contact|nous atteign\w*)",
                     r"jusqu a leur arrivee",
                     r"until (?:contact|they (?:reach|close|engage) us|they arrive)",
                     r"before contact", r"until engaged", r"until the enemy (?:arrives|closes)",
                     r"until they are in reach")  # fmt: skip
_AFTER_CONTACT = _rx(r"apres (?:le )?contact", r"une fois au contact", r"des le contact",
                     r"after contact", r"once (?:in )?contact", r"once engaged")  # fmt: skip
#: ordinal rounds (« au troisième tour », « the 3rd round »; the first round is _FIRST_ROUND)
_ORDINALS = {
    "deuxieme": 2, "second": 2, "troisieme": 3, "third": 3, "quatrieme": 4, "fourth": 4,
    "cinquieme": 5, "fifth": 5, "sixieme": 6, "sixth": 6,
}  # fmt: skip
_ROUND_NUM = (r"(?:the |le )?(?:(?:round|tour) (\d+)|(\d+)(?:e|eme|st|nd|rd|th) (?:round|tour)"
              r"|(" + "|".join(_ORDINALS) + r") (?:round|tour))\b")  # fmt: skip
_ROUND_FROM = re.compile(r"\b(?<!jusqu )(?:a partir du|des le|au|from|after|starting|at|in) "
                         + _ROUND_NUM)  # fmt: skip
_ROUND_UNTIL = re.compile(r"\b(?:jusqu au|until|up to|through) " + _ROUND_NUM)
_FIRST_ROUND = _rx(r"(?:au|pendant le) premier (?:round|tour)", r"(?:in|during) the first round",
                   r"on the first round")  # fmt: skip
_ZONE = re.compile(
    r"\b(?:(lignes?|rows?)|(colonnes?|columns?|cols?)) (\d+) (?:a |to |through |et |and )?(\d+)\b"
)
#: « les 3 premières lignes », « the first 3 columns »: rows or columns 0 to N − 1
_ZONE_FIRST = re.compile(
    r"\b(?:(?:les |des |dans les )?" + _NUM + r" premieres? (?:(lignes)|(colonnes))"
    r"|(?:the )?first " + _NUM + r" (?:(rows)|(columns|cols)))\b"
)
#: « la ligne 3 », « row 3 »: that row or column alone (after the ranges are read)
_ZONE_ONE = re.compile(r"\b(?:(ligne|row)|(colonne|column|col)) (\d+)\b")
#: the words of a threshold (« sous la moitié de vos PV »), consumed with it
_BELOW = _rx(r"sous", r"en dessous (?:de|du|des)", r"au dessous (?:de|du|des)", r"moins de",
             r"below", r"under", r"less than", r"beneath", r"at")  # fmt: skip
#: an order to stay in a zone (« restez dans les lignes 0 à 4 »); « quittez », « sortez »,
#: « leave » only when negated (``_LEAVE``)
_STAY = _rx(r"rest\w*", r"demeur\w*", r"tene[zr]", r"tien\w*", r"confin\w*", r"cantonn\w*",
            r"stay\w*", r"remain\w*", r"keep\w*", r"hold\w*", r"limit\w*")  # fmt: skip
#: a line not to cross (« ne dépassez pas la colonne 8 »): which side is ours is not said
_BEYOND = _rx(r"depass\w*", r"franchi\w*", r"travers\w*", r"au dela", r"beyond", r"past",
              r"cross\w*", r"over")  # fmt: skip
_LEAVE = re.compile(r"\b(?:ne|n|jamais|never|don t|do not) (?:\w+ )?(?:quitt\w*|sort\w*|leave)\b")
#: « until … » before a condition that the spec only has as « from … on »
_UNTIL = _rx(r"jusqu a ce qu\w*", r"until", r"till")
#: an hit point threshold of the actor's own (« sous la moitié de vos PV ») rather than
#: of an enemy (« ceux qui ont moins de la moitié de leurs PV »)
_ENEMY_HP = _rx(r"qui", r"who", r"that", r"dont", r"whose", r"ayant", r"with", r"leurs?",
                r"their", r"ennemi\w*", r"enem\w*", r"adversaires?", r"foes?", r"eux", r"them",
                r"ceux", r"those")  # fmt: skip
#: « Norg est notre chef », « treat the kobold as their healer »: the words between a
#: name and the role tag given to it (``combatant_roles``), and before the name
_TAG_VERB = re.compile(
    r"^ (?:est|sont|sera|seront|fait office de|sert de|joue le role de|compte comme|comptent "
    r"comme|is|are|will be|acts as|act as|serves as|serve as|counts as|count as|plays|is playing)"
    r" (?:(notre|nos|our)|(leur|leurs|their)|(?:le|la|les|l|un|une|des|the|a|an))? ?"
)
_TAG_AS = re.compile(r"^ (?:comme|as|pour) (?:(notre|nos|our)|(leur|leurs|their)|"
                     r"(?:le|la|les|l|un|une|des|the|a|an))? ?")  # fmt: skip
_TAG_BEFORE = re.compile(r"\b(?:traitez|considerez|comptez|voyez|prenez|treat|consider|count|"
                         r"regard|see|take) (?:(?:le|la|les|l|the) )?$")  # fmt: skip
_SAME_TARGET = re.compile(
    r"\b(?:(?:la )?meme (?:cible|ennemi|adversaire) que|(?:la )?cible de|ce que (?:vise|attaque)"
    r"|the same (?:target|enemy) as|whatever|whoever|(?:the )?target of|aidez|help|suivez"
    r"|follow|comme|like|backs? up|soutenez|support) (?:(?:le|la|les|l|the) )?"
    r"(?!(?:is|are|was|est|sont|qui|who)\b)(\w+(?: \d+)?)"
    r"(?: (?:attaque|vise|attacks|targets|hits|target))?"
)
#: the forms of ``_SAME_TARGET`` that always name an ally (« comme », « help »… need not)
_EXPLICIT_MATE = re.compile(
    r"(?:la )?meme|the same|(?:la )?cible de|ce que|whatever|whoever|(?:the )?target of"
)
_NEGATION = _rx(r"ne", r"n", r"jamais", r"pas", r"never", r"don t", r"do not", r"not",
                r"avoid", r"evitez", r"ignore\w*", r"sauf", r"except", r"epargnez",
                r"spare")  # fmt: skip
_TARGET_VERB = _rx(r"vis\w*", r"tu\w*", r"attaqu\w*", r"abatt\w*", r"frapp\w*", r"cibl\w*",
                   r"elimin\w*", r"kill\w*", r"attack\w*", r"target\w*", r"shoot\w*", r"hit",
                   r"focus\w*", r"strike", r"tirez", r"d abord", r"first", r"priorit\w*",
                   r"chargez", r"charge")  # fmt: skip
#: what the spec cannot express at all (spells and items are not played, nor
#: bodyguards, formations, places, manoeuvres, sizes): reported, never replaced
UNSUPPORTED = _rx(
    r"sorts?",
    r"boules? de feu",
    r"fireballs?",
    r"spells?",
    r"cast\w*",
    r"magi\w*",
    r"incant\w*",
    r"potions?",
    r"parchemins?",
    r"scrolls?",
    r"baguettes?",
    r"wands?",
    r"proteg\w*(?! vous)",
    r"protect\w*(?! yourselves)",
    r"gardes? du corps",
    r"bodyguards?",
    r"escort\w*",
    r"formations?",
    r"(?:restez|rester|stay|keep|tenez vous) group\w*",
    r"serr\w*",
    r"en ligne",
    r"in a line",
    r"tight\w*",
    r"regroup\w*",
    r"croc en jambe",
    r"trip\w*",
    r"desarm\w*",
    r"disarm\w*",
    r"lutt\w*",
    r"grappl\w*",
    r"bouscul\w*",
    r"bull rush",
    r"renvers\w*",
    r"portes?",
    r"doors?",
    r"ponts?",
    r"bridges?",
    r"collines?",
    r"hills?",
    r"cach\w*",
    r"embuscades?",
    r"ambush\w*",
    r"hid(?:e|ing)",
    r"plus grands?",
    r"plus petits?",
    r"tallest",
    r"biggest",
    r"smallest",
    r"intimid\w*",
    r"feint\w*",
    r"soign\w* (?:nos|vos|les|notre|votre)",
    r"heal (?:our|your|the)",
)
#: the words that open a subordinate clause of condition (« quand », « jusqu'à », « if »…)
_SUBORDINATE_WORDS = (
    r"quand", r"lorsqu\w*", r"si", r"s il", r"s ils", r"des que", r"une fois", r"tant qu\w*",
    r"jusqu\w*", r"apres", r"avant", r"sous", r"when", r"if", r"once", r"until", r"as soon as",
    r"while", r"after", r"before", r"below", r"under",
)  # fmt: skip
#: the words of a condition: left in a fragment once the conditions code reads were
#: consumed, a condition it did not read
_CONDITION = _rx(*_SUBORDINATE_WORDS, r"en dessous", r"moins de", r"till", r"unless", r"sauf")
#: a fragment that opens with one of these is a subordinate clause: it joins the next one
_SUBORDINATE = re.compile(r"^(?:" + "|".join(_SUBORDINATE_WORDS) + r")\b")
#: where a text is cut into fragments (a decimal comma or point is not a cut)
_CUT = re.compile(
    r"((?<!\d)[.,](?!\d)|[;:!?\n]|\s(?:et|and|puis|then|ensuite|mais|but|sinon|otherwise)\s)",
    re.IGNORECASE,
)
#: a « clause » after « et » / « and » that is only one of these belongs to the one before
_PRONOUNS = frozenset((
    "eux", "lui", "elle", "elles", "ils", "nous", "vous", "moi", "toi", "tous", "toutes",
    "autres", "them", "him", "her", "us", "you", "all", "others", "me",
))  # fmt: skip
#: … or a noun phrase of two words at most after « et » / « and » (« and the enemy »)
_ARTICLES = frozenset(("the", "le", "la", "les", "l", "un", "une", "a", "an", "leur", "leurs"))
_SENTENCE = re.compile(r"(?<!\d)\.(?!\d)|[;!?\n]")
#: a piece that is the other axis of a zone (« lignes 0 à 4, colonnes 2 à 6 »): not a clause
_ZONE_PIECE = re.compile(r"^(?:(?:les|des|the|in|dans) )?(?:lignes?|colonnes?|rows?|columns?|cols?)"
                         r" \d+(?: (?:a|to|through|et|and))? \d+$")  # fmt: skip
#: a piece that is only one of these opens the next one (« Then, charge. »)
_CONNECTORS = frozenset(("puis", "ensuite", "then", "apres ca", "apres cela", "after that",
                         "afterwards", "alors", "et", "and", "mais", "but"))  # fmt: skip
#: the connectors after which a fragment comes after the condition of the one before
_THEN = frozenset(("puis", "ensuite", "then", "apres ca", "apres cela", "after that",
                   "afterwards", "alors"))  # fmt: skip


# -- the encounter ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Unit:
    """A combatant of the encounter as the compiler sees it."""

    ident: str
    name: str
    ours: bool


@dataclass(frozen=True, slots=True)
class Roster:
    """The combatants of the encounter the text may name (``ours``: the side compiled for)."""

    units: tuple[Unit, ...]

    def key(self) -> list[list[Any]]:
        return [[u.ident, u.name, u.ours] for u in self.units]


def _skeleton(word: str) -> str:
    """A word's consonants, French and English spellings folded together (« orque »
    and « orc », « gobelin » and « goblin », « chaman » and « shaman »)."""
    w = word.replace("qu", "k").replace("ch", "sh").replace("ph", "f").replace("c", "k")
    w = re.sub(r"(?<=\w)(?:es|s|e)$", "", w)
    return re.sub(r"[aeiouy]", "", w) or w


def _folded(words: list[str]) -> list[str]:
    return [w.replace("ch", "sh", 1) if w.startswith("ch") else w for w in words]


def _find_units(plain: str, roster: Roster | None) -> list[tuple[Unit, str, int]]:
    """Units named in ``plain``: (unit, words naming it, position), ids (« orc 2 »)
    before creature names, each unit name at most once, every unit of a matched name."""
    if roster is None:
        return []
    words = plain.split()
    skel = [w[:1].replace("c", "k") + _skeleton(w) for w in _folded(words)]
    found: list[tuple[Unit, str, int]] = []
    taken: set[int] = set()
    by_len = sorted(
        {(u.ident, True) for u in roster.units} | {(u.name, False) for u in roster.units},
        key=lambda x: -len(_plain(x[0]).split()),
    )
    for label, is_id in by_len:
        parts = [w[:1].replace("c", "k") + _skeleton(w) for w in _folded(_plain(label).split())]
        n = len(parts)
        if not parts or (is_id and n == 1 and any(u.name == label for u in roster.units)):
            continue
        for i in range(len(words) - n + 1):
            if any(j in taken for j in range(i, i + n)) or skel[i : i + n] != parts:
                continue
            taken.update(range(i, i + n))
            pos = len(" ".join(words[:i]))
            said = " ".join(words[i : i + n])
            for u in roster.units:
                if (u.ident if is_id else u.name) == label:
                    found.append((u, said, pos))
    return found


# -- fragments and what each says ---------------------------------------------------------


@dataclass(slots=True)
class Fragment:
    """A piece of the text and what the deterministic pass read in it."""

    text: str
    sentence: int
    #: where its fields go: ``side``, ``role:TAG`` or ``phase:N``
    scope: str = "side"
    #: aspects for the model: aspect → candidate values (in order of appearance)
    ask: dict[str, list[str]] = field(default_factory=dict)
    #: fields read by code: field → value
    fields: dict[str, Any] = field(default_factory=dict)
    #: phase conditions read in it
    when: dict[str, Any] = field(default_factory=dict)
    #: reasons it is not (wholly) understood
    notes: list[str] = field(default_factory=list)
    #: fields it produced (after the model's answers)
    produced: list[str] = field(default_factory=list)
    #: the connector that opens it (plain: ``puis``, ``then``, ``et``…; ``""``: none)
    lead: str = ""
    #: « until … » a condition the spec only has as « from … on » (a share down, its
    #: hit points): its fields are the side's, and the phase ``resets`` (``phase:N``)
    #: of that condition puts them back to the heuristic's (``until`` holds the condition)
    until: dict[str, Any] = field(default_factory=dict)
    resets: str | None = None
    #: role tags given to named combatants (``combatant_roles``), read by code
    tags: dict[str, list[str]] = field(default_factory=dict)
    #: where its main clause starts in ``text`` (after the subordinate clauses that open it)
    main: int = 0

    @property
    def order(self) -> str:
        """What the model is asked about: the main clause when the condition of the
        subordinate ones was read by code (« Quand …, ne chargez plus » → « ne chargez
        plus »), else the whole text."""
        return self.text[self.main :] if self.main and (self.when or self.until) else self.text

    @property
    def plain(self) -> str:
        return _plain(self.text)


def fragments(text: str) -> list[Fragment]:
    """The fragments of ``text``: cut at sentence ends, commas and conjunctions; a
    subordinate clause (« quand … », « if … ») joins the next fragment of its sentence."""
    out: list[Fragment] = []
    for s, sentence in enumerate(_SENTENCE.split(text)):
        pieces: list[tuple[str, str]] = []  # (text, the connector that opens it)
        pending = ""  # a connector standing alone (« Then, charge »): it opens the next piece
        cuts = _CUT.split(sentence)
        for j in range(0, len(cuts), 2):
            piece = cuts[j].strip(" ,.-–—\"'«»")
            if not _plain(piece):
                continue
            cut = cuts[j - 1] if j else ""
            words = _plain(piece).split()
            if _plain(piece) in _CONNECTORS:
                pending = _plain(piece)
                continue
            if (
                pieces
                and cut.strip()
                and not pending
                and (
                    _plain(piece) in _PRONOUNS
                    or (len(words) <= 2 and words[0] in _ARTICLES and _plain(cut) in ("et", "and"))
                    or _ZONE_PIECE.match(_plain(piece)) is not None  # « …, colonnes 2 à 6 »
                )
            ):
                text_, lead = pieces[-1]
                pieces[-1] = (f"{text_}{cut}{piece}", lead)  # « … et eux »: not a clause
            else:
                lead = pending or _plain(cut)
                if not lead and words[0] in _THEN:  # « Puis combattez. »
                    lead = words[0]
                pieces.append((piece, lead))
            pending = ""
        i = 0
        while i < len(pieces):
            piece, lead = pieces[i]
            main = 0
            while _SUBORDINATE.match(_plain(piece)) and i + 1 < len(pieces):
                i += 1
                main = len(piece) + 2
                piece = f"{piece}, {pieces[i][0]}"
            out.append(Fragment(piece, s, lead=lead, main=main))
            i += 1
    return out


def _blank(plain: str, match: re.Match[str]) -> str:
    a, b = match.span()
    return plain[:a] + " " * (b - a) + plain[b:]


def _share(plain: str) -> tuple[int, re.Match[str]] | None:
    m = _SHARE.search(plain)
    if m is None:
        return None
    if m.group(1):
        return min(int(m.group(1)), 100), m
    for i, (_, value) in enumerate(_FRACTIONS):
        if m.group(i + 2):
            return value, m
    return None


def _feet(number: str, unit: str) -> int:
    n = float(number.replace("p", ".")) if number[0].isdigit() else _NUMBER_WORDS[number]
    if unit in ("m", "metre", "metres", "meter", "meters"):
        return 5 * max(1, round(n / 1.5))  # 1,5 m = one square = 5 ft
    if unit in ("case", "cases", "square", "squares", "pas"):
        return 5 * round(n)
    return 5 * max(1, round(n / 5))


def _combatant_tags(f: Fragment, p: str, roster: Roster | None) -> str:
    """Read « NAME est notre chef », « treat NAME as their healer » into ``f.tags``
    (``combatant_roles``: the name as the encounter spells it, an id when the text
    gives its number); the words read are blanked from ``p``, which is returned."""
    for unit, said, _pos in _find_units(p, roster):
        for m in re.finditer(rf"\b{re.escape(said)}\b", p):
            before, after = p[: m.start()], p[m.end() :]
            verb = _TAG_VERB.match(after)
            if verb is None and _TAG_BEFORE.search(before):
                verb = _TAG_AS.match(after)
            if verb is None:
                continue
            words = after[verb.end() :].split()
            tag, n = next(((t, k) for k in (3, 2, 1) for t, rx in ROLE_WORDS.items()
                           if len(words) >= k and rx.fullmatch(" ".join(words[:k]))),
                          (None, 0))  # fmt: skip
            if tag is None:
                continue
            ours, theirs = verb.group(1), verb.group(2)
            if (ours and not unit.ours) or (theirs and unit.ours):
                camp = "de notre camp" if unit.ours else "un ennemi"
                f.notes.append(f"« {said} » est {camp} : « {(ours or theirs)} "
                               f"{' '.join(words[:n])} » ne lui va pas")  # fmt: skip
            elif _NEGATION.search(before[-12:] + after[: verb.end()]):
                f.notes.append(f"ôter un rôle à « {said} » : la stratégie ne sait pas l'exprimer")
            else:
                assert roster is not None
                ident = unit.name
                if said != _plain(unit.name) and _skeleton(said.split()[-1]).isdigit():
                    ident = unit.ident
                twins = sum(1 for u in roster.units if u.name == unit.name)
                if ident == unit.name and twins > 1 and not said.endswith(("s", "x")):
                    f.notes.append(f"« {said} » : {twins} combattants de ce nom, précisez "
                                   "lequel (« … 2 »)")  # fmt: skip
                else:
                    have = f.tags.setdefault(ident, [])
                    if tag not in have:
                        have.append(tag)
            role = re.match(r"\s*" + r"\s+".join(map(re.escape, words[:n])), after[verb.end() :])
            assert role is not None
            end = m.end() + verb.end() + role.end()
            p = p[: m.start()] + " " * (end - m.start()) + p[end:]
            pre = _TAG_BEFORE.search(p[: m.start()])
            if pre is not None:
                p = _blank(p, pre)
            break
    return p


def _zone(f: Fragment, p: str) -> str:
    """Read the rows and columns of a zone to stay in (``hold_zone``) into ``f.fields``:
    « lignes 0 à 4 », « colonnes 2-6 », « les 3 premières lignes » (rows 0 to 2),
    « the first two columns », « la ligne 3 »; only with an order to stay there."""
    zone: dict[str, list[int]] = {}
    spans: list[tuple[int, int]] = []
    for m in list(_ZONE_FIRST.finditer(p)):
        number = m.group(1) or m.group(4)
        n = int(number) if number.isdigit() else _NUMBER_WORDS.get(number, 0)
        if n >= 1:
            zone["rows" if m.group(2) or m.group(5) else "cols"] = [0, n - 1]
            spans.append(m.span())
            p = _blank(p, m)
    for m in list(_ZONE.finditer(p)):
        lo, hi = sorted((int(m.group(3)), int(m.group(4))))
        zone["rows" if m.group(1) else "cols"] = [lo, hi]
        spans.append(m.span())
        p = _blank(p, m)
    for m in list(_ZONE_ONE.finditer(p)):
        axis = "rows" if m.group(1) else "cols"
        if _BEYOND.search(p[max(0, m.start() - 30) : m.start()]):
            f.notes.append(f"« {m.group()} » : une limite à ne pas franchir, sans dire de quel "
                           "côté rester ; donnez la zone (« colonnes 0 à 8 »)")  # fmt: skip
            p = _blank(p, m)
            continue
        if axis not in zone:
            zone[axis] = [int(m.group(3))] * 2
            spans.append(m.span())
            p = _blank(p, m)
    if not zone:
        return p
    start = min(a for a, _ in spans)
    stay = sorted([*_STAY.finditer(p), *_LEAVE.finditer(p)], key=lambda m: m.start())
    before = [m for m in stay if m.end() <= start]
    if not stay:
        f.notes.append("zone sans consigne d'y rester : la stratégie ne sait que rester dans "
                       "une zone (« restez dans les lignes 0 à 4 »)")  # fmt: skip
        return p
    f.fields["hold_zone"] = {"rows": zone.get("rows", [0, 999]),
                             "cols": zone.get("cols", [0, 999])}  # fmt: skip
    if before and start - before[-1].end() <= 25:
        p = _blank(p, before[-1])  # « tenez les colonnes 0 à 5 »: the zone, not a position
    return p


def spot(text: str, roster: Roster | None = None) -> list[Fragment]:
    """The deterministic pass: the fragments of ``text`` with, for each, the aspects
    the model is to be asked about, the fields and conditions read by code, and
    the reasons of what it cannot express."""
    frags = fragments(text)
    phases: dict[tuple[tuple[str, Any], ...], int] = {}
    for f in frags:
        p = f" {f.plain} "
        # 1. phase conditions (their words are consumed)
        when: dict[str, Any] = {}
        for rx, value in ((_UNTIL_CONTACT, True), (_AFTER_CONTACT, False)):
            m = rx.search(p)
            if m:
                when["until_contact"] = value
                p = _blank(p, m)
        # « until … » a share down or a hit point threshold: the spec only has « from
        # … on », so the fragment's fields are the side's until a phase resets them
        until: dict[str, Any] = {}
        share = _share(p)
        if share is not None and (_OURS.search(p) or _THEIRS.search(p)):
            value, m = share
            key = "side_down_pct_at_least" if _OURS.search(p) else "enemies_down_pct_at_least"
            (until if _UNTIL.search(p[: m.start()]) else when)[key] = value
            p = _blank(p, m)
            for rx in (_OURS, _THEIRS, _DOWN):
                while (m2 := rx.search(p)) is not None:
                    p = _blank(p, m2)
        elif (
            share is not None
            and (hp := _HP.search(p)) is not None
            and not DEFENSE_WORDS.search(p)
            and not RETREAT_WORDS.search(p)
        ):
            # a threshold with another order than retreat or total defense: a condition
            value, m = share
            if _ENEMY_HP.search(p[: min(m.start(), hp.start())]):
                f.notes.append("seuil de points de vie d'un ennemi : la stratégie ne sait pas "
                               "l'exprimer (« le plus blessé » vise le plus entamé)")  # fmt: skip
            else:
                (until if _UNTIL.search(p[: m.start()]) else when)["own_hp_pct_below"] = value
            for rx in (_BELOW, _HP):
                while (m2 := rx.search(p)) is not None:
                    p = _blank(p, m2)
            p = _blank(p, m)
        if until:
            f.until = until
            f.resets = f"phase:{phases.setdefault(tuple(sorted(until.items())), len(phases))}"
            while (m2 := _UNTIL.search(p)) is not None:
                p = _blank(p, m2)
        for rx, key in ((_ROUND_FROM, "round_at_least"), (_ROUND_UNTIL, "round_at_most")):
            m = rx.search(p)
            if m:
                number = m.group(1) or m.group(2)
                when[key] = int(number) if number else _ORDINALS[m.group(3)]
                p = _blank(p, m)
        m = _FIRST_ROUND.search(p)
        if m:
            when["round_at_most"] = 1
            p = _blank(p, m)
        if when:
            f.when = when
            key = tuple(sorted(when.items()))
            f.scope = f"phase:{phases.setdefault(key, len(phases))}"
        # what cannot be expressed
        for m in list(UNSUPPORTED.finditer(p)):
            f.notes.append(f"« {m.group()} » : la stratégie ne sait pas l'exprimer")
            p = _blank(p, m)
        # 2. role tags given to named combatants (« Norg est notre chef »)
        p = _combatant_tags(f, p, roster)
        # our own role as the subject (« nos archers … »)
        for m in _OWN.finditer(p):
            tag = next((t for t, rx in ROLE_WORDS.items() if rx.fullmatch(m.group(1))), None)
            if tag is not None and not when:
                f.scope = f"role:{tag}"
                p = _blank(p, m)
                break
        # 3. an ally whose target to share
        m = _SAME_TARGET.search(p)
        if m:
            named = _find_units(m.group(1), roster)
            if named and roster is not None:
                unit = named[0][0]
                if unit.ours:
                    twins = sum(1 for u in roster.units if u.name == unit.name)
                    f.fields["same_target_as"] = unit.ident if twins > 1 else unit.name
                else:
                    f.notes.append(f"« {unit.name} » n'est pas de notre camp : on ne peut "
                                   "viser la même cible que lui")  # fmt: skip
                p = _blank(p, m)
            elif _EXPLICIT_MATE.match(m.group(0)):
                where = "dans la rencontre" if roster is not None else "sans --encounter"
                f.notes.append(f"« {m.group(1)} » : aucun allié de ce nom {where}")
                p = _blank(p, m)
        # 4. names of the encounter
        named = sorted(_find_units(p, roster), key=lambda x: x[2])
        if named:
            negated = _NEGATION.search(p) is not None
            for unit, said, pos in named:
                if unit.ours:
                    note = f"« {said} » est de notre camp : jamais une cible"
                    if (
                        _TARGET_VERB.search(p[: pos + 1])
                        and not _OWN.search(p[max(0, pos - 6) : pos + 1])
                        and note not in f.notes
                    ):
                        f.notes.append(note)
                    continue
                if negated:
                    note = f"éviter « {said} » : la stratégie ne sait pas l'exprimer"
                    if note not in f.notes:
                        f.notes.append(note)
                    continue
                ident = unit.name
                if said != _plain(unit.name) and _skeleton(said.split()[-1]).isdigit():
                    ident = unit.ident
                focus = f.fields.setdefault("focus", [])
                if ident not in focus:
                    focus.append(ident)
            for _unit, said, _pos in named:
                p = re.sub(rf"\b{re.escape(said)}\b", " " * len(said), p)
        # 5. zones
        p = _zone(f, p)
        # 6. hit point thresholds
        share = _share(p)
        if share is not None and _HP.search(p):
            value, m = share
            if DEFENSE_WORDS.search(p):
                f.fields["total_defense_below_hp_pct"] = value
                p = DEFENSE_WORDS.sub(lambda x: " " * len(x.group()), p)
            elif RETREAT_WORDS.search(p):
                f.fields["retreat_below_hp_pct"] = value
                p = RETREAT_WORDS.sub(lambda x: " " * len(x.group()), p)
            else:
                f.notes.append("seuil de points de vie sans consigne (retraite ou défense totale)")
            p = _blank(p, m)
        # 7. distance kept
        m = _DISTANCE.search(p)
        if m and _KEEP.search(p):
            f.fields["keep_distance_ft"] = _feet(m.group(1), m.group(2))
            p = _blank(p, m)
            for rx in (_KEEP, RETREAT_WORDS):
                p = rx.sub(lambda x: " " * len(x.group()), p)
            # « à distance » there says how far, not which weapons
            p = re.sub(r"\ba distance\b", "          ", p)
        # 8. target kinds and enemy roles (their words describe enemies: consumed)
        kinds: list[tuple[int, str]] = []
        for value, rx in (
            *TARGET_WORDS.items(),
            *((f"role:{k}", v) for k, v in ROLE_WORDS.items()),
        ):
            m = rx.search(p)
            if m:
                kinds.append((m.start(), value))
        if kinds:
            f.ask["targets"] = [v for _, v in sorted(kinds)]
            for _, value in kinds:
                rx = ROLE_WORDS[value[5:]] if value.startswith("role:") else TARGET_WORDS[value]
                p = rx.sub(lambda x: " " * len(x.group()), p)
        # 9. the other aspects, asked to the model
        for aspect, table in (("engagement", ENGAGEMENT_WORDS), ("positioning", POSITION_WORDS)):
            found = [(m.start(), v) for v, rx in table.items() if (m := rx.search(p))]
            if found:
                f.ask[aspect] = [v for _, v in sorted(found)]
        if CHARGE_WORDS.search(p):
            f.ask["charge"] = ["never", "allowed", "prefer"]
        for flag, rx in FLAG_WORDS.items():
            if rx.search(p):
                f.ask[flag] = ["yes", "no"]
        stances = [v for v, rx in (("total_defense", DEFENSE_WORDS), ("withdraw", RETREAT_WORDS),
                                   ("fight", FIGHT_WORDS)) if rx.search(p)]  # fmt: skip
        if (
            not stances
            and not (f.ask or f.fields or f.tags or f.notes)
            and _BARE_ATTACK.match(" ".join(p.split()))
        ):
            stances = ["fight"]  # « puis attaquez »: the verb alone, back to fighting
        if (
            set(stances) - {"fight"}
            and not (when or until)
            and (m := _CONDITION.search(p)) is not None
        ):
            # total defense or a withdraw replaces the whole turn: played at all
            # times for want of its condition (« … jusqu'au corps à corps », « if
            # half … ») it would be another order; the fragment is reported instead
            f.notes.append(f"« {m.group()} » : condition non lue, consigne non appliquée")
            f.ask.clear()
            stances = []
        if stances:
            f.ask["stance"] = stances
    # « X until C, then Y »: Y is the phase that begins with C (the reset of X's fields)
    for f, g in itertools.pairwise(frags):
        if f.resets and g.lead in _THEN and not g.when and not g.until and g.scope == "side":
            g.when, g.scope = dict(f.until), f.resets
            f.produced.append("when")
    # a fragment that holds only a condition gives it to its neighbour in the sentence
    for i, f in enumerate(frags):
        if f.when and not f.ask and not f.fields and not f.tags:
            mates = [g for g in (frags[i + 1 : i + 2] + frags[max(0, i - 1) : i])
                     if g.sentence == f.sentence and not g.when]  # fmt: skip
            if mates:
                mate = mates[0]
                mate.when, mate.scope = f.when, f.scope
                f.produced.append("when")
    return frags


# -- the questions ---------------------------------------------------------------------------

#: the model's answer when the fragments say nothing of the aspect / ask what the spec lacks
NOT_SAID, OTHER = "not_said", "other"
#: each aspect asked to the model: its template under ``prompts/strategy/``
ASPECTS: tuple[str, ...] = (
    "targets", "engagement", "positioning", "charge", "stance",
    "focus_fire", "avoid_provoking", "avoid_threatened", "flank", "use_cover",
)  # fmt: skip
#: what the user reads for an aspect the spec cannot express as the text asks
ASPECT_FR = {
    "targets": "choix des cibles", "engagement": "armes", "positioning": "position",
    "charge": "charge", "stance": "attitude", "focus_fire": "tir concentré",
    "avoid_provoking": "attaques d'opportunité", "avoid_threatened": "cases menacées",
    "flank": "prise en tenaille", "use_cover": "abri",
}  # fmt: skip


#: the aspects answered yes or no (no « other »)
FLAGS = frozenset(("focus_fire", "avoid_provoking", "avoid_threatened", "flank", "use_cover"))


def question_schema(aspect: str, values: Sequence[str]) -> dict[str, Any]:
    """The answer's JSON Schema: ``{"answer": …}``, one of ``values``, ``not_said``
    or ``other`` (not for the yes-or-no flags); for ``targets``, a list of up to
    three of ``values`` (empty: not said) or ``["other"]``."""
    if aspect in FLAGS:  # yes or no: nothing else to say about a flag
        enum = [NOT_SAID, *values]
    else:
        enum = [NOT_SAID, *values, OTHER] if aspect != "targets" else [*values, OTHER]
    answer: dict[str, Any] = {"enum": enum}
    if aspect == "targets":
        answer = {"type": "array", "items": {"enum": enum}, "maxItems": 3}
    return {
        "type": "object",
        "properties": {"answer": answer},
        "required": ["answer"],
        "additionalProperties": False,
    }


def question(aspect: str, order: str) -> tuple[ChatMessage, ...]:
    """The messages of one question: the aspect's instructions (static, first), then the order."""
    env = prompt_environment()
    system = env.get_template(f"strategy/{aspect}.j2").render()
    user = env.get_template("strategy/text.j2").render(text=order)
    return (ChatMessage("system", system), ChatMessage("user", user))


def prompt_digest() -> str:
    """Hash of every question's template (for :func:`cache_key`)."""
    digest = hashlib.sha256()
    for aspect in ASPECTS:
        for m in question(aspect, "{}"):
            digest.update(m.content.encode("utf-8") + b"\0")
    digest.update(json.dumps(question_schema("targets", ["x"])).encode())
    return digest.hexdigest()


def cache_key(text: str, model_id: str, roster: Roster | None = None) -> str:
    """Hash of the text, the model, the whole prompt (templates and schemas) and the
    encounter's names."""
    payload = {
        "text": text.strip(),
        "model": model_id,
        "prompt": prompt_digest(),
        "roster": None if roster is None else roster.key(),
    }
    data = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def ask(
    model: ChatModel, aspect: str, order: str, values: Sequence[str], *, retries: int = 1
) -> Any:
    """The model's answer to one question (a value of ``values``, ``not_said``, ``other``;
    a list for ``targets``).

    :raises StrategyCompileError: the model failed, or no valid answer after the retries.
    """
    base = question(aspect, order)
    schema = question_schema(aspect, values)
    allowed = set(schema["properties"]["answer"].get("enum") or
                  schema["properties"]["answer"]["items"]["enum"])  # fmt: skip
    msgs = base
    error = ""
    for _attempt in range(retries + 1):
        request = ChatRequest(msgs, json_schema=schema, max_tokens=MAX_TOKENS)
        try:
            answer = complete_checked(model, request).text
        except ModelError as err:
            raise StrategyCompileError(
                f"le modèle n'a pas répondu ({clean_text(str(err))}) ; réessayez ou essayez un "
                "autre modèle (--model)"
            ) from None
        try:
            data = parse_json_answer(answer)
            if not isinstance(data, dict) or set(data) != {"answer"}:
                raise ValueError('expected {"answer": …}')
            value = data["answer"]
            if aspect == "targets":
                if not isinstance(value, list) or not all(
                    isinstance(v, str) and v in allowed for v in value
                ):
                    raise ValueError(f"answer: a list of {sorted(allowed)}")
                return list(dict.fromkeys(value))[:3]
            if not isinstance(value, str) or value not in allowed:
                raise ValueError(f"answer: one of {sorted(allowed)}")
            return value
        except ValueError as err:
            error = clean_text(str(err).splitlines()[0])[:120]
            msgs = (
                *base,
                ChatMessage("assistant", answer[:400]),
                ChatMessage("user", f"Invalid answer ({error}). Answer again with valid JSON."),
            )
    raise StrategyCompileError(
        f"le modèle n'a pas produit de réponse valide ({error}) ; reformulez le texte ou "
        "essayez un autre modèle (--model)"
    )


# -- assembly ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Compilation:
    """A compiled text: the spec, and what the text asks that the spec cannot express."""

    spec: StrategySpec
    not_understood: tuple[str, ...]


def _apply(aspect: str, answer: Any) -> dict[str, Any] | None:
    """The fields of one answer (``{}``: nothing; ``None``: « other »)."""
    if aspect == "targets":
        if OTHER in answer:
            return None
        crits = [v for v in answer if not v.startswith("role:")]
        roles = [v[5:] for v in answer if v.startswith("role:")]
        out: dict[str, Any] = {}
        if crits:
            out["targets"] = crits
        if roles:
            out["target_roles"] = roles
        return out
    if answer == OTHER:
        return None
    if answer == NOT_SAID:
        return {}
    if aspect == "engagement":
        return {} if answer == "any" else {"engagement": answer}
    if aspect == "positioning":
        return {"positioning": answer}
    if aspect == "charge":
        return {"never": {"charge": False}, "prefer": {"prefer_charge": True},
                "allowed": {"charge": True}}[answer]  # fmt: skip
    if aspect == "stance":
        return {"stance": answer}
    return {aspect: answer == "yes"}  # the flags


def compile_text(text: str, model: ChatModel, roster: Roster | None = None) -> Compilation:
    """The spec ``text`` asks for, and what it asks that the spec cannot express.

    :raises StrategyCompileError: empty text, no word of combat in it
        (:func:`check_tactical`), a model failure, or nothing the spec can express.
    """
    check_tactical(text)
    frags = spot(text, roster)
    scopes: dict[str, dict[str, Any]] = {}
    # one question per aspect and scope, on the fragments that carry its words
    asked: dict[tuple[str, str], list[Fragment]] = {}
    for f in frags:
        for aspect in f.ask:
            asked.setdefault((f.scope, aspect), []).append(f)
        if f.tags:
            f.produced.append("combatant_roles")
        if f.fields:
            into = scopes.setdefault(f.scope, {})
            for k, v in f.fields.items():
                if k == "focus" and k in into:
                    into[k] = [*into[k], *(x for x in v if x not in into[k])]
                else:
                    into[k] = v
            f.produced.extend(f.fields)
    for (scope, aspect), group in asked.items():
        values: list[str] = []
        for f in group:
            values.extend(v for v in f.ask[aspect] if v not in values)
        order = " ; ".join(f.order for f in group)
        answer = ask(model, aspect, order, values)
        fields = _apply(aspect, answer)
        if fields is None:
            for f in group:
                f.notes.append(f"{ASPECT_FR[aspect]} : la stratégie ne sait pas l'exprimer")
            continue
        if aspect == "targets":  # in the order of the text, whatever the model's order
            rank = {v: i for i, v in enumerate(values)}
            for k, prefix in (("targets", ""), ("target_roles", "role:")):
                if k in fields:
                    fields[k] = sorted(fields[k], key=lambda v, p=prefix: rank[p + v])
        scopes.setdefault(scope, {}).update(fields)
        if fields:
            for f in group:
                f.produced.extend(fields)
    resets = _resets(frags, scopes)
    spec = _assemble(text, frags, scopes, resets)
    missed: list[str] = []
    for f in frags:
        shown = clean_text(f.text)
        if f.notes:
            missed.extend(f"« {shown} » ({note})" for note in f.notes)
        elif not f.produced:
            missed.append(f"« {shown} »")
    if spec.model_dump(exclude={"name"}) == StrategySpec().model_dump(exclude={"name"}):
        if not missed:  # every answer was the heuristic's own (« fight »): name the text
            missed = [f"« {clean_text(f.text)} »" for f in frags]
        detail = f" (non compris : {' ; '.join(missed)})" if missed else ""
        raise StrategyCompileError(
            "texte non compris : aucune consigne de stratégie reconnue (cibles, distance, "
            f"charge, retraite…){detail} ; reformulez plus explicitement"[:600]
        )
    return Compilation(spec, tuple(missed))


#: the fields an « until … » cannot hand back to the heuristic's (no phase unsets them)
_NO_RESET = frozenset(("same_target_as", "hold_zone"))


def _resets(frags: list[Fragment], scopes: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per phase scope, the side's fields that « until … » fragments set, back at the
    heuristic's value (``stance: fight``…): what the phase of their condition undoes."""
    out: dict[str, dict[str, Any]] = {}
    side = scopes.get("side", {})
    for f in frags:
        if f.resets is None or f.scope != "side":
            continue
        for k in dict.fromkeys(f.produced):
            if k not in side or k not in Behaviour.model_fields:
                continue
            if k in _NO_RESET:
                f.notes.append(f"« jusqu'à ce que … » : la stratégie ne sait pas annuler « {k} » "
                               "ensuite")  # fmt: skip
                continue
            info = Behaviour.model_fields[k]
            default = info.get_default(call_default_factory=True)
            out.setdefault(f.resets, {})[k] = default
    return out


def _assemble(
    text: str,
    frags: list[Fragment],
    scopes: dict[str, dict[str, Any]],
    resets: dict[str, dict[str, Any]] | None = None,
) -> StrategySpec:
    resets = resets or {}
    data: dict[str, Any] = {"name": _title(text), **scopes.get("side", {})}
    roles = {k[5:]: v for k, v in scopes.items() if k.startswith("role:") and v}
    if roles:
        data["roles"] = roles
    tags: dict[str, list[str]] = {}
    for f in frags:
        for who, wanted in f.tags.items():
            have = tags.setdefault(who, [])
            have.extend(t for t in wanted if t not in have)
    if tags:
        data["combatant_roles"] = tags
    phases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for f in frags:
        for scope, when in ((f.scope, f.when), (f.resets, f.until)):
            if scope is None or not scope.startswith("phase:") or scope in seen:
                continue
            then = {**resets.get(scope, {}), **scopes.get(scope, {})}
            if then:
                seen.add(scope)
                phases.append({"when": when, "then": then})
    if phases:
        data["phases"] = phases
    try:
        return StrategySpec.model_validate(data)
    except ValidationError as err:  # a bug of the compiler, not of the user
        raise StrategyCompileError(
            f"stratégie invalide ({clean_text(str(err).splitlines()[0])}) ; reformulez le texte"
        ) from None


def compile_strategy(text: str, model: ChatModel, roster: Roster | None = None) -> StrategySpec:
    """The spec of :func:`compile_text` alone."""
    return compile_text(text, model, roster).spec


def _title(text: str) -> str:
    """The spec's name: the text on one line, cut at 80 characters."""
    flat = " ".join(clean_text(text).split())
    return flat if len(flat) <= 80 else flat[:79].rstrip() + "…"


# -- the French summary ---------------------------------------------------------------------

_TARGETS = {
    "nearest": "le plus proche",
    "weakest": "celui qui a le moins de points de vie",
    "most_wounded": "le plus blessé (en proportion)",
    "strongest": "celui qui a le plus de points de vie",
    "most_dangerous": "le plus dangereux",
    "ranged_first": "ceux qui ont une attaque à distance",
    "engaged": "ceux déjà au contact d'un allié",
}
_ROLES = {
    "caster": "lanceurs de sorts", "healer": "soigneurs", "ranged": "tireurs",
    "brute": "cogneurs", "leader": "chef",
}  # fmt: skip
#: one combatant's role tag (``combatant_roles``)
_ROLE = {
    "caster": "lanceur de sorts", "healer": "soigneur", "ranged": "tireur", "brute": "cogneur",
    "leader": "chef",
}  # fmt: skip
_STANCES = {"total_defense": "défense totale à chaque tour",
            "withdraw": "se retire à chaque tour où il le peut"}  # fmt: skip


def _behaviour_fr(fields: dict[str, Any], base: Behaviour) -> list[str]:
    """French phrases for ``fields`` (the fields set, over ``base``, the behaviour
    they change): only what the policy will do."""
    t = base.model_copy(update=fields)
    out: list[str] = []
    if fields.get("stance") in _STANCES:
        return [_STANCES[fields["stance"]]]  # nothing else is played
    if fields.get("stance") == "fight" and base.stance != "fight":
        out.append("reprend le combat (ni défense totale ni retraite)")
    if fields.get("focus"):
        out.append("vise d'abord : " + ", ".join(f"« {f} »" for f in fields["focus"]))
    if fields.get("target_roles"):
        out.append(
            "vise d'abord les " + ", puis les ".join(_ROLES[r] for r in fields["target_roles"])
        )
    if "targets" in fields:
        out.append(
            "cibles par priorité : " + ", puis ".join(_TARGETS[c] for c in fields["targets"])
        )
    if fields.get("same_target_as"):
        out.append(f"vise la cible de « {fields['same_target_as']} » (son dernier tour) tant "
                   "que tous deux tiennent debout")  # fmt: skip
    if "focus_fire" in fields:
        out.append("le camp garde une cible commune jusqu'à sa chute" if t.focus_fire
                   else "chacun sa cible")  # fmt: skip
    ranged = t.engagement == "ranged"
    if "engagement" in fields:
        fallback = "toutes ses armes" + ("" if t.charge else ", sans charger")
        out.append(f"armes à distance d'abord, sans charger (sans arme à distance : {fallback})"
                   if ranged else {"melee": "armes de contact seulement",
                                   "any": "toutes ses armes"}[t.engagement])  # fmt: skip
    if fields.get("keep_distance_ft"):
        out.append(f"se retire quand un ennemi est à moins de {t.keep_distance_ft} pieds")
    if "positioning" in fields:
        out.append("tient sa position (pas de placement seulement, sinon prépare une attaque)"
                   if t.positioning == "hold" else "avance vers sa cible")  # fmt: skip
    charges = t.charge and not ranged and t.positioning != "hold"
    if "charge" in fields and not t.charge and not ranged:
        out.append("ne charge jamais")
    if fields.get("prefer_charge") and charges:
        out.append("charge dès qu'une charge est possible")
    if fields.get("avoid_threatened"):
        out.append("ne finit pas un simple déplacement dans une case menacée")
    if fields.get("avoid_provoking"):
        out.append("évite les attaques d'opportunité (contourne, pas de placement)")
    if fields.get("flank"):
        out.append("se place pour prendre sa cible en tenaille")
    if fields.get("use_cover"):
        out.append("préfère les cases à l'abri des tireurs ennemis")
    zone = fields.get("hold_zone")
    if zone:
        axes = [f"{word} {zone[k][0]} à {zone[k][1]}" if zone[k][1] < 999 else
                f"{word} {zone[k][0]} et suivantes"
                for k, word in (("rows", "lignes"), ("cols", "colonnes"))
                if zone[k] != [0, 999]]  # fmt: skip
        out.append("reste dans la zone " + ", ".join(axes or ["de toute la carte"]))
    for key, what in (("retreat_below_hp_pct", "se retire"),
                      ("total_defense_below_hp_pct", "défense totale")):  # fmt: skip
        if fields.get(key):
            out.append(f"{what} sous {fields[key]} % de ses points de vie")
    return out


def _when_fr(when: dict[str, Any]) -> str:
    parts: list[str] = []
    if when.get("until_contact") is True:
        parts.append("tant que le camp n'a pas été au contact")
    if when.get("until_contact") is False:
        parts.append("après le premier contact")
    if when.get("side_down_pct_at_least") is not None:
        parts.append(f"dès que {when['side_down_pct_at_least']} % du camp est hors de combat")
    if when.get("enemies_down_pct_at_least") is not None:
        parts.append(
            f"dès que {when['enemies_down_pct_at_least']} % des ennemis sont hors de combat"
        )
    if when.get("own_hp_pct_below") is not None:
        parts.append(f"sous {when['own_hp_pct_below']} % de ses points de vie")
    if when.get("round_at_least") is not None:
        parts.append(f"à partir du round {when['round_at_least']}")
    if when.get("round_at_most") is not None:
        parts.append(f"jusqu'au round {when['round_at_most']}")
    return " et ".join(parts) or "toujours"


def describe_strategy(spec: StrategySpec) -> str:
    """The spec in plain French, one point per line: only what differs from the
    heuristic, as the policy plays it (see :func:`_behaviour_fr`)."""
    lines = [f"Stratégie « {spec.name} » :" if spec.name else "Stratégie :"]
    side = json.loads(
        spec.model_dump_json(include=set(Behaviour.model_fields), exclude_defaults=True)
    )
    said = _behaviour_fr(side, Behaviour())
    lines += [f"- {s}" for s in said]
    for ident, role in spec.roles.items():
        fields = {k: v for k, v in role.model_dump().items() if v is not None}
        who = f"nos {_ROLES[ident]}" if ident in _ROLES else ident
        lines.append(f"- {who} : " + " ; ".join(_behaviour_fr(fields, spec.tactics_for(""))))
    every = [spec, *spec.roles.values(), *(p.then for p in spec.phases)]
    used = {t for b in every for t in (b.target_roles or ())} | set(spec.roles)
    for ident, tags in spec.combatant_roles.items():
        idle = (
            ""
            if used & set(tags)
            else " (sans effet : aucune consigne ne vise ce rôle ni ne le règle)"
        )
        lines.append(f"- « {ident} » compte comme : " + ", ".join(_ROLE[t] for t in tags) + idle)
    for phase in spec.phases:
        fields = {k: v for k, v in phase.then.model_dump().items() if v is not None}
        what = " ; ".join(_behaviour_fr(fields, spec.tactics_for(""))) or "comme le reste"
        lines.append(f"- {_when_fr(phase.when.model_dump())} : {what}")
    if not said and len(lines) == 1:
        lines.append("- comme l'heuristique")
    return "\n".join(lines) + "\n"
