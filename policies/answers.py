"""One sanitising path for every model answer, whatever the provider.

A model's answer is untrusted text: a local model, an OpenAI-compatible server
or a replayed cassette may hand back anything. Three helpers keep it from
crashing a run or reaching the user's terminal unchanged:

* :func:`complete_checked` asks a :class:`~policies.llm.ChatModel` and makes sure
  what comes back is a well-typed :class:`~policies.llm.ChatResponse` of bounded
  size; anything else, an exception of the provider included, becomes a
  :class:`~policies.llm.ModelError` (the caller's retry, fallback and circuit
  breaker then apply). The user's own mistakes (a request missing from a
  cassette, a model that cannot be set up: :class:`~engine.core.errors.Pf1eSimError`)
  go through unchanged: they are French errors of the command line.
* :func:`parse_json_answer` reads a JSON answer with a bounded size and nesting:
  Python's ``json`` raises ``RecursionError`` on deep nesting and ``ValueError``
  on integers of more than 4300 digits; here every problem is one
  :class:`AnswerError` with a French reason.
* :func:`clean_text` strips control characters and terminal escape sequences
  from free text a model wrote before it is shown to a user (a transcript's
  rationale, a narrative line, an error message).

>>> parse_json_answer('{"option_id": "2"}')
{'option_id': '2'}
>>> parse_json_answer("[" * 1000)
Traceback (most recent call last):
...
policies.answers.AnswerError: JSON trop imbriqué (plus de 32 niveaux)
>>> clean_text("\\x1b[31mrouge\\x1b[0m\\x07 !")
'rouge !'
"""

from __future__ import annotations

import dataclasses
import json
import re
import unicodedata
from typing import TYPE_CHECKING

from engine.core.errors import Pf1eSimError

if TYPE_CHECKING:
    from policies.llm import ChatModel, ChatRequest, ChatResponse

#: longest JSON answer read, in characters (a decision is under 200, a strategy about 600)
MAX_ANSWER_CHARS = 16_000
#: deepest nesting of a JSON answer (a decision has 1 level, a strategy 2)
MAX_DEPTH = 32
#: longest answer a provider may return, in characters (every request asks for
#: at most a few hundred tokens: more is a broken server, not an answer)
MAX_RESPONSE_CHARS = 100_000


class AnswerError(ValueError):
    """A model's answer that is not a usable JSON document (French message)."""


def parse_json_answer(
    text: str, *, max_chars: int = MAX_ANSWER_CHARS, max_depth: int = MAX_DEPTH
) -> object:
    """The JSON value of ``text``, read within bounds.

    :raises AnswerError: not a string, longer than ``max_chars``, nested deeper
        than ``max_depth``, not JSON, or a number Python refuses to read.
    """
    if not isinstance(text, str):
        raise AnswerError("réponse qui n'est pas du texte")
    if len(text) > max_chars:
        raise AnswerError(f"réponse trop longue ({len(text)} caractères, au plus {max_chars})")
    if _depth(text) > max_depth:
        raise AnswerError(f"JSON trop imbriqué (plus de {max_depth} niveaux)")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise AnswerError("ce n'est pas du JSON valide") from None
    except RecursionError:  # not reached within MAX_DEPTH; kept as a last guard
        raise AnswerError(f"JSON trop imbriqué (plus de {max_depth} niveaux)") from None
    except (ValueError, OverflowError):  # int() of more than 4300 digits
        raise AnswerError("nombre trop grand dans la réponse") from None


_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"?', re.DOTALL)


def _depth(text: str) -> int:
    """The deepest bracket nesting of ``text`` outside its JSON strings."""
    depth = deepest = 0
    for ch in _STRINGS.sub("", text):
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


#: terminal escape sequences: CSI (``ESC [`` or the C1 byte ``\x9b``) up to its
#: final byte, OSC/DCS/SOS/PM/APC strings up to BEL or ST (or the end of the line:
#: an unterminated one must not swallow the rest of a report), and two-byte escapes
_ESCAPES = re.compile(
    r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
    r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
    r"|\x1b[\x20-\x7e]?"
)
#: invisible characters that reorder the text on screen (bidirectional overrides)
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_SPACES = frozenset("\t\u2028\u2029\x0b\x0c")


def clean_text(text: str, *, newlines: bool = False) -> str:
    """``text`` without terminal escapes, control characters or lone surrogates.

    Tabs, vertical tabs, form feeds and Unicode line separators become spaces; a
    newline is kept when ``newlines`` is true, else it becomes a space too;
    every other control character (C0, DEL, C1), bidirectional override and
    lone surrogate is removed. Ordinary text comes back unchanged.

    >>> clean_text("un\\ttab\\r et \\u202eun retour")
    'un tab et un retour'
    >>> clean_text("deux\\nlignes"), clean_text("deux\\nlignes", newlines=True)
    ('deux lignes', 'deux\\nlignes')
    """
    if text.isprintable():  # the common case, at C speed
        return text
    text = _ESCAPES.sub("", text)
    out: list[str] = []
    for ch in text:
        if ch == "\n":
            out.append("\n" if newlines else " ")
        elif ch in _SPACES:
            out.append(" ")
        elif ch in _BIDI or unicodedata.category(ch) in ("Cc", "Cs"):
            continue
        else:
            out.append(ch)
    return "".join(out)


def complete_checked(model: ChatModel, request: ChatRequest) -> ChatResponse:
    """``model.complete(request)``, or a :class:`~policies.llm.ModelError` (see module doc).

    :raises ModelError: the provider failed, or answered something other than a
        :class:`~policies.llm.ChatResponse` with a text of at most
        :data:`MAX_RESPONSE_CHARS` characters and non-negative integer counts.
    :raises Pf1eSimError: the user's mistake (request missing from a cassette…).
    """
    from policies.llm import ChatResponse, ModelError

    try:
        response = model.complete(request)
    except (ModelError, Pf1eSimError):
        raise
    except Exception as err:  # a provider's bug or a server's garbage: not the user's
        raise ModelError(f"réponse inutilisable du modèle ({type(err).__name__})") from err
    if not isinstance(response, ChatResponse):
        raise ModelError("réponse inutilisable du modèle (pas une réponse)")
    if not isinstance(response.text, str):
        raise ModelError("réponse inutilisable du modèle (texte manquant)")
    if len(response.text) > MAX_RESPONSE_CHARS:
        raise ModelError(f"réponse démesurée du modèle ({len(response.text)} caractères)")
    try:
        response.text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates (a cassette's or a server's "\ud800")
        text = response.text.encode("utf-8", "replace").decode("utf-8")
        response = dataclasses.replace(response, text=text)
    for count in (response.tokens_in, response.tokens_out, response.tokens_reused):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ModelError("réponse inutilisable du modèle (compte de jetons invalide)")
    if not isinstance(response.latency_s, int | float) or isinstance(response.latency_s, bool):
        raise ModelError("réponse inutilisable du modèle (durée invalide)")
    if response.truncated is not None and not isinstance(response.truncated, bool):
        raise ModelError("réponse inutilisable du modèle (troncature invalide)")
    return response
