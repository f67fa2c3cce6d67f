"""The narrator's catalogue of vetted clauses and its paths, with a scripted fake model.

The fake model answers what a test scripts, so each path is pinned: accepted,
asked again after an invalid answer, template after two invalid answers or a model
error. Recorded answers of the real model are replayed in ``test_narrative_cassettes``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.analysis import analyse, fill
from harness.clauses import BY_ID, CLAUSES, offers
from harness.narrative import (
    ATTEMPTS,
    PATH_LLM,
    PATH_TEMPLATE,
    PREFILL,
    answer_grammar,
    answer_schema,
    narrate,
    options,
    parse_answer,
    render_narrative,
    template_narrative,
)
from policies.llm import ChatResponse, ModelError

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from lexicon import non_words, report_names  # noqa: E402
from report_samples import SAMPLES, build  # noqa: E402


def load(name):
    return json.loads((ROOT / "tests" / "reports" / f"{name}.json").read_text(encoding="utf-8"))


ECRASANT = load("ecrasant")  # players far ahead of monsters
BALANCED = load("equilibre_1000")


def sample(name: str) -> dict[str, Any]:
    """A report of ``bench/report_samples.py`` (built, deterministic)."""
    return build(next(s for s in SAMPLES if s.name == name))


REPORTS = [
    *(load(p.stem) for p in sorted((ROOT / "tests" / "reports").glob("*.json"))),
    *(build(s) for s in SAMPLES),
]


# -- the catalogue ----------------------------------------------------------------------------
def test_every_clause_type_has_a_real_choice_of_unique_clauses():
    for kind, opts in CLAUSES.items():
        assert len(opts) >= 4, kind
    ids = [cid for opts in CLAUSES.values() for cid, _ in opts]
    texts = [text for opts in CLAUSES.values() for _, text in opts]
    assert len(set(ids)) == len(ids) and len(set(texts)) == len(texts)
    assert set(BY_ID) == set(ids)


def test_every_clause_is_french_words_without_number_nor_name():
    for opts in CLAUSES.values():
        for _cid, text in opts:
            assert non_words(text, ()) == [], text
            assert not any(ch.isdigit() for ch in text) and "{" not in text
            assert text == text.strip() and not text.endswith(".") and text[0].islower()


def test_every_fact_sentence_is_french_words_or_names_of_the_report():
    for report in REPORTS:
        a = analyse(report)
        for fact in a.facts:
            for sentence in (fill(fact.template, a.values), fill(fact.head, a.values)):
                assert non_words(sentence, report_names(report)) == [], sentence


def test_the_lexicon_refuses_the_non_words_of_the_issue():
    text = "ce qui rend la rencontre pourplayers, nouvelleixture etcoûteux"
    assert non_words(text, ()) == ["pourplayers", "nouvelleixture", "etcoûteux"]


def test_every_fact_has_a_clause_type_of_the_catalogue_and_offers_are_disjoint():
    kinds = set()
    for report in REPORTS:
        a = analyse(report)
        offered = options(a)
        assert len(offered) == len(a.facts)
        for fact, opts in zip(a.facts, offered, strict=True):
            assert fact.clause in CLAUSES, fact.id
            assert opts and all(BY_ID[cid][0] == fact.clause for cid, _ in opts)
            kinds.add(fact.clause)
        ids = [cid for opts in offered for cid, _ in opts]
        assert len(set(ids)) == len(ids)  # no two lines can end alike
    assert {"verdict:equilibre", "verdict:ecrasante", "nuls:plafond", "inactif"} <= kinds


def test_facts_of_one_type_share_its_clauses_out():
    two = offers(["inactif", "inactif"])
    assert not {c for c, _ in two[0]} & {c for c, _ in two[1]}
    many = offers(["expose"] * 6)  # more facts than clauses: each still gets one
    assert all(len(o) == 1 for o in many)


def test_the_grammar_and_the_schema_allow_only_each_facts_own_clauses():
    a = analyse(ECRASANT)
    offered = options(a)
    grammar = answer_grammar(offered)
    schema = answer_schema(offered)["properties"]["choix"]
    assert schema["minItems"] == schema["maxItems"] == len(a.facts)
    for i, opts in enumerate(offered):
        assert f"p{i} ::= " + " | ".join(f'"{c}"' for c, _ in opts) in grammar
        assert schema["prefixItems"][i]["enum"] == [c for c, _ in opts]
    assert "[a-z" not in grammar and "word" not in grammar  # no free text at all


def test_parse_answer_accepts_only_the_offered_ids_in_order():
    offered = options(analyse(ECRASANT))
    good = [opts[-1][0] for opts in offered]
    assert parse_answer(json.dumps({"choix": good}), offered) == good
    assert "hors des suites" in str(parse_answer(json.dumps({"choix": good[::-1]}), offered))
    assert "faits" in str(parse_answer(json.dumps({"choix": good[:-1]}), offered))
    assert "JSON" in str(parse_answer("ce qui rend la rencontre équilibrée", offered))
    assert "liste" in str(parse_answer('{"choice": []}', offered))


# -- the narrator, with a scripted model --------------------------------------------------------
class Scripted:
    """A fake model: answers each request with the next scripted text (or raises it)."""

    model_id = "fake:script"

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []

    def complete(self, request):
        self.requests.append(request)
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return ChatResponse(answer, 10, 5, 0.0, self.model_id)


def choose(report, pick=-1) -> str:
    """A valid answer for ``report``: each fact's ``pick``-th offered clause."""
    return json.dumps({"choix": [opts[pick][0] for opts in options(analyse(report))]})


def test_a_valid_answer_gives_the_llm_path_with_each_fact_and_its_clause():
    a = analyse(ECRASANT)
    model = Scripted([choose(ECRASANT)])
    story = narrate(ECRASANT, model)
    assert story.path == PATH_LLM and story.regenerated == 0 and story.model_calls == 1
    for line, fact, opts, cid in zip(story.lines, a.facts, options(a), story.choices, strict=True):
        assert cid == opts[-1][0]
        assert line == fill(fact.head, a.values) + " " + BY_ID[cid][1] + "."
    request = model.requests[0]
    assert request.temperature == 0.0 and request.prefill == PREFILL
    assert request.grammar == answer_grammar(options(a))
    assert request.json_schema == answer_schema(options(a))
    assert render_narrative(story).endswith(
        "Rédaction : modèle fake:script, suites choisies parmi des phrases vérifiées.\n"
    )


def test_an_answer_after_the_prefill_is_read_with_it():
    story = narrate(ECRASANT, Scripted([choose(ECRASANT)[len(PREFILL) :]]))
    assert story.path == PATH_LLM


def test_an_invalid_answer_is_asked_for_once_more_then_accepted():
    model = Scripted(['{"choix": ["VE1"]}', choose(ECRASANT, 0)])
    story = narrate(ECRASANT, model)
    assert story.path == PATH_LLM and story.regenerated == 1 and story.model_calls == 2
    assert "faits" in story.rejections[0].reason
    assert model.requests[1].temperature > 0 and model.requests[1].seed == 1
    assert "après une réponse invalide redemandée" in story.provenance()


@pytest.mark.parametrize(
    "free",
    [  # the issue's false clauses, as free text: no longer anything the narrator can print
        "ce qui rend la rencontre équilibrée",
        '{"choix": ["ce qui augmente le nombre de combats simulés"]}',
    ],
)
def test_two_invalid_answers_give_the_template_and_say_why(free):
    a = analyse(ECRASANT)
    story = narrate(ECRASANT, Scripted([free, free]))
    assert story.path == PATH_TEMPLATE and story.lines == template_narrative(a)
    assert len(story.rejections) == ATTEMPTS == 2
    assert "invalide 2 fois" in (story.reason or "")
    assert story.provenance().startswith("Rédaction : gabarit déterministe (réponse du modèle fake")
    assert free.split('"')[-2 if "{" in free else 0] not in story.text


def test_a_model_error_gives_the_template():
    story = narrate(ECRASANT, Scripted([ModelError("délai dépassé")]))
    assert story.path == PATH_TEMPLATE and "délai dépassé" in (story.reason or "")


def test_no_model_gives_the_template_with_the_reason():
    story = narrate(ECRASANT, None, unavailable="modèle local indisponible")
    assert story.path == PATH_TEMPLATE and story.model is None
    assert "modèle local indisponible" in story.provenance()


def test_whatever_the_model_chooses_the_delivered_text_passes_the_audit():
    """Every offered clause of every sample report, through the narrator and the bench's
    independent audit (numbers, clause type derived again from the report, lexicon)."""
    from bench_narrative import audit

    for report in REPORTS:
        offered = options(analyse(report))
        for pick in range(max(len(o) for o in offered)):
            ids = [opts[min(pick, len(opts) - 1)][0] for opts in offered]
            story = narrate(report, Scripted([json.dumps({"choix": ids})]))
            assert story.path == PATH_LLM
            assert audit(report, story) == [], (report["map"], ids)
        assert audit(report, narrate(report, None)) == []  # the template too
