"""Per-option figures of the LLM menu, option ids, and the position-bias check."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from builders import make_map, make_profile, melee, ranged

from engine.content.actions import TurnPlan
from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.run.runner import play_fight
from engine.state.encounter import build_encounter
from harness.transcript import lines
from policies.heuristic import HeuristicPolicy
from policies.llm import (
    HIDDEN_KINDS,
    ChatRequest,
    ChatResponse,
    LLMPolicy,
    decision_grammar,
    option_ids,
    position_bias,
    reorder,
    shown_options,
)
from policies.tactics import dominated, hit_chance, option_figures, outclassed

ROOT = Path(__file__).resolve().parent.parent
ROLL = re.compile(r" vs (\S+) d20=(\d+)([+-]\d+)=-?\d+ CA (\d+)")


def _arena(players: int = 3):
    gmap = load_map(ROOT / "data/maps/sample_arena.yaml")
    g = load_combatant(ROOT / "data/monsters/goblin.json")
    o = load_combatant(ROOT / "data/monsters/orc.json")
    return build_encounter(gmap, [("players", [g] * players), ("monsters", [o, o])])


@pytest.mark.parametrize("n", range(1, 31))
def test_no_option_id_is_the_start_of_another(n):
    ids = option_ids(n)
    assert len(set(ids)) == n and len({len(i) for i in ids}) == 1
    assert not any(a != b and b.startswith(a) for a in ids for b in ids)
    grammar = decision_grammar(ids)
    # every id is a whole alternative, closed by the quote
    assert grammar.startswith('root ::= id "\\""\n')
    assert grammar.split("id ::= ", 1)[1].strip().split(" | ") == [json.dumps(i) for i in ids]


def test_hit_chance_keeps_natural_one_and_twenty():
    assert hit_chance(0, 11) == 0.5
    assert hit_chance(100, 10) == 0.95 and hit_chance(-100, 10) == 0.05


class Explorer:
    """Plays every kind of attacking option in turn and keeps its figures."""

    explain = True

    def __init__(self):
        self.figures: dict[tuple[int, str, str], object] = {}
        self.n = 0

    def decide(self, obs):
        attacking = [
            o
            for o in obs.legal_options
            if o.id.split(":")[0] in ("attack", "full_attack", "move_attack", "charge")
        ]
        if not attacking:
            return HeuristicPolicy().decide(obs)
        self.n += 1
        option = attacking[self.n % len(attacking)]
        self.figures[(obs.round, obs.acting_id, option.id)] = option_figures(obs, option)
        return TurnPlan(option.actions, option.id)


@pytest.mark.parametrize("llm_side", ["players", "monsters"])
def test_hit_chances_are_the_engine_s_odds(llm_side):
    """The figure of each option is what the engine then rolls against: the same
    modifiers and the same AC (range, cover, charge, flanking…), for the first roll."""
    explorer = Explorer()
    checked = 0
    for seed in range(1, 13):
        explorer.figures.clear()
        other = "monsters" if llm_side == "players" else "players"
        log = play_fight(
            _arena(), seed, {llm_side: explorer, other: HeuristicPolicy()}, record=True
        ).log
        pending = None
        for rnd, actor, message, _x in lines(log or ()):
            match = re.match(r"raisonnement : (\S+)", message)
            if match:
                pending = (rnd, actor, match.group(1))
                continue
            roll = ROLL.search(message)
            if pending and roll and actor == pending[1] and rnd == pending[0]:
                fig = explorer.figures.get(pending)
                if fig is not None and fig.target == roll.group(1):
                    bonus, ac = int(roll.group(3)), int(roll.group(4))
                    assert fig.hit[0] == hit_chance(bonus, ac), (pending, message)
                    checked += 1
                pending = None
    assert checked >= 20


def test_shooting_from_a_threatened_square_risks_an_attack_of_opportunity():
    gmap = make_map(["......"], zones=["AB...."], deployment={"west": "A", "east": "B"})
    archer = make_profile(name="Archer", hp_max=20, attacks=[ranged("bow", inc=100)])
    brute = make_profile(name="Brute", hp_max=8, attacks=[melee(dmg="1d2")])
    enc = build_encounter(gmap, [("west", [archer]), ("east", [brute])])
    seen = {}

    class Look:
        def decide(self, obs):
            if obs.actor.side == "west" and not seen:
                seen.update({o.id: option_figures(obs, o) for o in obs.legal_options})
            return HeuristicPolicy().decide(obs)

    play_fight(enc, 1, {"west": Look(), "east": HeuristicPolicy()}, round_cap=1)
    shot = seen["full_attack:brute:bow"]
    assert shot.provokes == ("brute",) and shot.target_hp == 8
    assert "AO 1" in shot.text() and "brute 8/8 pv" in shot.text()
    assert seen["wait"].provokes == () and seen["wait"].text() == "AO 0"
    withdraw = seen.get("withdraw")
    assert withdraw is None or withdraw.provokes == ()  # its first square never provokes


def test_dominated_options_are_not_shown_and_downed_targets_are_never_offered():
    shown_ids: list[list[str]] = []

    class Look:
        def decide(self, obs):
            shown = shown_options(obs, frozenset())
            ids = [o.id for o in shown]
            shown_ids.append(ids)
            assert not dominated(shown)
            for o in obs.legal_options:
                if o.id.startswith("attack:"):
                    assert o.id not in ids or f"full_attack:{o.id[7:]}" not in ids
                fig = option_figures(obs, o)
                if fig.target is not None:
                    assert obs.combatant(fig.target).active  # hp ≥ 0, not dead
            return HeuristicPolicy().decide(obs)

    play_fight(_arena(), 2, {"players": Look(), "monsters": HeuristicPolicy()})
    assert any(any(i.startswith("full_attack:") for i in ids) for ids in shown_ids)
    assert not any(
        i.startswith("attack:") and f"full_attack:{i[7:]}" in ids for ids in shown_ids for i in ids
    )


def test_an_option_beaten_on_its_own_target_by_the_figures_is_not_shown():
    """« approach then shoot » when shooting from here deals as much and risks no more
    attacks of opportunity is hidden, and so is « wait » when shooting from here is
    safe; options on another target never are."""
    checked = waits = 0

    class Look:
        def decide(self, obs):
            nonlocal checked, waits
            full = shown_options(obs, frozenset())
            shown = {o.id for o in full}
            figures = {o.id: option_figures(obs, o) for o in obs.legal_options}
            hidden = outclassed(obs, obs.legal_options)
            for oid in hidden:
                f = figures[oid]
                assert oid not in shown
                if oid == "wait":  # doing nothing, when shooting from here is safe
                    assert any(
                        o.split(":")[0] in ("attack", "full_attack")
                        and g.damage > 0
                        and not g.provokes
                        for o, g in figures.items()
                    )
                    waits += 1
                    continue
                beaten_by = [
                    g
                    for other, g in figures.items()
                    if other != oid
                    and g.target == f.target
                    and g.damage >= f.damage - 1e-9
                    and set(g.provokes) <= set(f.provokes)
                ]
                assert beaten_by, oid
                checked += 1
            # every target that can be attacked keeps at least one option
            targets = {figures[o.id].target for o in obs.legal_options} - {None}
            hidden_kinds = {"defensive_full_attack"}
            open_targets = {
                figures[o].target
                for o in shown
                if figures[o].target is not None and o.split(":")[0] not in hidden_kinds
            }
            assert targets <= open_targets | {
                figures[o.id].target
                for o in obs.legal_options
                if o.id.split(":")[0] in hidden_kinds
            }
            return HeuristicPolicy().decide(obs)

    for seed in (1, 2, 3):
        play_fight(_arena(), seed, {"players": Look(), "monsters": HeuristicPolicy()}, round_cap=4)
    assert checked >= 5 and waits >= 1


def test_the_menu_shows_the_attacks_best_first_and_the_rest_after():
    for obs in _situations():
        shown = shown_options(obs, frozenset())
        figures = [option_figures(obs, o) for o in shown]
        attacking = [f for f in figures if f.target is not None]
        assert figures[: len(attacking)] == attacking  # attacks first, then the others
        keys = [(-f.damage, len(f.provokes)) for f in attacking]
        assert keys == sorted(keys)
        rest = [o.id for o, f in zip(shown, figures, strict=True) if f.target is None]
        menu = [o.id for o in obs.legal_options]
        assert rest == sorted(rest, key=menu.index)  # in the engine's order


class Picker:
    """A fake model: the first option, or the option with the best expected damage."""

    model_id = "picker"

    def __init__(self, reads: bool):
        self.reads = reads

    def complete(self, request: ChatRequest) -> ChatResponse:
        lines = re.findall(r"^(\d+)\. (.+)$", request.messages[1].content, re.MULTILINE)
        if self.reads:

            def worth(line):
                m = re.search(r"dégâts (\d+,\d)", line[1])
                return (float(m.group(1).replace(",", ".")) if m else -1.0, line[1])

            pick = max(lines, key=worth)[0]
        else:
            pick = lines[0][0]
        return ChatResponse(json.dumps({"option_id": pick}), 10, 2, 0.0, self.model_id)


def _situations():
    seen = []

    class Keep:
        def decide(self, obs):
            seen.append(obs)
            return HeuristicPolicy().decide(obs)

    play_fight(_arena(), 3, {"players": Keep(), "monsters": HeuristicPolicy()}, round_cap=4)
    return seen


def test_the_position_bias_check_tells_a_reader_from_a_first_option_picker():
    situations = _situations()
    assert len(situations) >= 6
    reader = position_bias(Picker(reads=True), situations, seed=1, answer="number")
    first = position_bias(Picker(reads=False), situations, seed=1, answer="number")
    assert reader.compared == len(situations) and reader.rate == 1.0
    assert first.rate is not None and first.rate < 0.5


def test_the_position_bias_check_leaves_out_menus_of_a_single_option():
    """A menu of one option reads the same in every order: never asked, never an agreement."""
    situations = _situations()
    kinds = {o.id.split(":")[0] for obs in situations for o in obs.legal_options}
    model = Picker(reads=False)
    calls = []
    ask = model.complete
    model.complete = lambda request: calls.append(request) or ask(request)  # type: ignore[method-assign]
    only_defense = frozenset(kinds - {"total_defense"})  # « défense totale » is always offered
    check = position_bias(model, situations, seed=1, hidden_kinds=only_defense, answer="number")
    assert check.compared == 0 and check.rate is None and calls == []
    assert len(check.choices) == len(situations)


def test_reorder_is_seeded_and_keeps_the_options():
    obs = _situations()[-1]
    options = shown_options(obs, frozenset())
    again = reorder(options, obs, 7)
    assert again == reorder(options, obs, 7) and sorted(again, key=id) == sorted(options, key=id)
    if len(options) > 1:
        assert again != options
    policy = LLMPolicy(Picker(reads=False), order_seed=7, answer="number")
    assert policy.options(obs) == reorder(shown_options(obs, policy.hidden_kinds), obs, 7)


def test_the_played_plan_is_the_chosen_option():
    """Whatever the order shown, the plan is the chosen option's actions, and the
    transcript names that option's stable id."""
    for order_seed in (None, 3):
        policy = LLMPolicy(Picker(reads=True), order_seed=order_seed, answer="number")
        for obs in _situations():
            chosen = policy.choose(obs)
            assert not isinstance(chosen, str)
            plan = policy.decide(obs)
            assert plan.actions == chosen[0].actions
            assert plan.rationale is not None and plan.rationale.startswith(chosen[0].id + " — ")


def test_a_menu_of_ten_options_or_more_is_numbered_on_two_digits():
    class Record:
        model_id = "record"

        def __init__(self):
            self.requests: list[ChatRequest] = []

        def complete(self, request):
            self.requests.append(request)
            ids = request.json_schema["properties"]["option_id"]["enum"]
            return ChatResponse(json.dumps({"option_id": ids[-1]}), 1, 1, 0.0, self.model_id)

    model = Record()
    policy = LLMPolicy(model, hidden_kinds=frozenset(), answer="number")
    for obs in _situations():
        policy.decide(obs)
    enums = [r.json_schema["properties"]["option_id"]["enum"] for r in model.requests]
    long = [r for r, ids in zip(model.requests, enums, strict=True) if len(ids) >= 10]
    assert long
    for request in long:
        ids = request.json_schema["properties"]["option_id"]["enum"]
        assert ids[0] == "01" and all(len(i) == 2 for i in ids)
        assert request.grammar == decision_grammar(ids)
        assert f"\n{ids[-1]}. " in request.messages[1].content


class Rater:
    """A fake model for ``answer="rating"``: rates the option the prompt's last
    line names. ``how``: ``"reads"`` (its expected damage, in tenths, capped at
    9), ``"first"`` (9 for the first line of the menu, one less per line below:
    a position-biased model) or ``"flat"`` (5 for every option)."""

    model_id = "rater"

    def __init__(self, how: str):
        self.how = how
        self.requests: list[ChatRequest] = []

    def complete(self, request: ChatRequest) -> ChatResponse:
        self.requests.append(request)
        text = request.messages[1].content
        menu = re.findall(r"^- (.+) : (.+)$", text, re.MULTILINE)
        rated = re.search(r"^Note de 0 à 9 l'option « (.+) »\.$", text, re.MULTILINE)
        assert rated is not None and request.prefill == '{"note": "'
        index = [label for label, _ in menu].index(rated.group(1))
        if self.how == "first":
            note = max(0, 9 - index)
        elif self.how == "flat":
            note = 5
        else:
            m = re.search(r"dégâts (\d+),(\d)", menu[index][1])
            note = min(9, int(m.group(1)) * 10 + int(m.group(2))) if m else 0
        return ChatResponse(f'{request.prefill}{note}"}}', 10, 2, 0.0, self.model_id)


def test_rating_asks_about_each_option_over_the_same_menu_and_plays_the_best_rated():
    obs = next(o for o in _situations() if len(shown_options(o, HIDDEN_KINDS)) >= 3)
    model = Rater("reads")
    policy = LLMPolicy(model, answer="rating")
    options = policy.options(obs)
    chosen = policy.choose(obs)
    assert not isinstance(chosen, str)
    # one question per option, in the menu's order; the prompts differ only by
    # their last line, so a local model reads the menu once
    assert len(model.requests) == len(options)
    texts = [r.messages[1].content for r in model.requests]
    assert {t.rsplit("\n", 2)[0] for t in texts} == {texts[0].rsplit("\n", 2)[0]}
    assert [re.search(r"« (.+) »\.$", t.strip()).group(1) for t in texts] == [  # type: ignore[union-attr]
        o.label for o in options
    ]
    assert all(r.messages[0] == model.requests[0].messages[0] for r in model.requests)
    figures = {o.id: option_figures(obs, o) for o in options}
    assert figures[chosen[0].id].damage == max(f.damage for f in figures.values())
    assert chosen[1] is not None and chosen[1].startswith("note ")
    # the schema and grammar allow one digit only
    assert model.requests[0].json_schema["properties"]["note"]["enum"] == list("0123456789")
    assert model.requests[0].grammar == 'root ::= [0-9] "\\"}"\n'


def test_rating_ties_go_to_the_figures_never_to_a_position():
    situations = [o for o in _situations() if len(shown_options(o, HIDDEN_KINDS)) > 1]
    for obs in situations:
        plain = LLMPolicy(Rater("flat"), answer="rating").choose(obs)
        shuffled = LLMPolicy(Rater("flat"), answer="rating", order_seed=5).choose(obs)
        assert not isinstance(plain, str) and not isinstance(shuffled, str)
        assert plain[0].id == shuffled[0].id


def test_the_position_bias_check_still_catches_a_rater_that_rates_positions():
    situations = _situations()
    reader = position_bias(Rater("reads"), situations, seed=1, answer="rating")
    first = position_bias(Rater("first"), situations, seed=1, answer="rating")
    assert reader.rate == 1.0
    assert first.rate is not None and first.rate < 0.5


def test_rating_plays_a_single_option_without_asking_and_falls_back_on_bad_ratings():
    obs = _situations()[0]
    model = Rater("reads")
    only = frozenset(o.id.split(":")[0] for o in obs.legal_options) - {"wait"}
    policy = LLMPolicy(model, answer="rating", hidden_kinds=only)
    assert len(policy.options(obs)) == 1
    assert policy.choose(obs) == (policy.options(obs)[0], None) and model.requests == []

    class Garbage:
        model_id = "garbage"

        def __init__(self):
            self.requests: list[ChatRequest] = []

        def complete(self, request):
            self.requests.append(request)
            return ChatResponse('{"note": "dix"}', 1, 1, 0.0, self.model_id)

    bad = Garbage()
    policy = LLMPolicy(bad, answer="rating")
    assert policy.choose(obs) == "invalid_output"
    # one retry, told what was wrong
    assert len(bad.requests) == 2 and "chiffre de 0 à 9" in bad.requests[1].messages[1].content
