"""One list of public fields (engine.view.snapshot.PUBLIC_FIELDS) drives the combatant
views, their JSON form and the Observation's JSON Schema: they agree."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from pydantic import TypeAdapter

from engine.content.creatures import load_combatant
from engine.content.maps import load_map
from engine.run.runner import play_fight
from engine.run.schemas import FIELD_TYPES, CombatantModel, observation_json_schema
from engine.state.encounter import build_encounter
from engine.state.state import CombatantState
from engine.view.snapshot import PUBLIC_FIELDS, STATE_FIELDS, CombatantView
from policies import HeuristicPolicy

NAMESPACE: dict[str, Any] = FIELD_TYPES
NAMES = [f.name for f in PUBLIC_FIELDS]


def _type(field):
    return eval(field.type, NAMESPACE)  # the annotations of the list itself


class Spy(HeuristicPolicy):
    def __init__(self):
        super().__init__()
        self.views: list[CombatantView] = []
        self.dumps: list[dict[str, Any]] = []

    def decide(self, obs):
        self.views.extend(obs.combatants)
        self.dumps.extend(c.to_dict() for c in obs.combatants)
        return super().decide(obs)


@pytest.fixture(scope="module")
def spy():
    gmap = load_map("data/maps/sample_arena.yaml")
    g = load_combatant("data/monsters/goblin.json")
    o = load_combatant("data/monsters/orc.json")
    enc = build_encounter(gmap, [("players", [g, g, g]), ("monsters", [o, o])])
    spy = Spy()
    play_fight(enc, 3, {"players": spy, "monsters": spy})
    assert spy.dumps
    return spy


def test_names_are_unique():
    assert len(set(NAMES)) == len(NAMES)


def test_to_dict_writes_every_field_in_list_order_and_nothing_else(spy):
    for dump in spy.dumps:
        assert list(dump) == NAMES


def test_every_value_has_its_declared_type(spy):
    adapters = {f.name: TypeAdapter(_type(f)) for f in PUBLIC_FIELDS}
    for dump in spy.dumps:
        data = json.loads(json.dumps(dump))
        for name, value in data.items():
            adapters[name].validate_python(value, strict=True)


def test_the_schema_lists_every_field_with_its_type_and_nothing_else():
    schema = observation_json_schema()
    combatant = schema["$defs"]["CombatantModel"]
    assert set(combatant["properties"]) == set(NAMES)
    assert set(combatant["required"]) == set(NAMES)
    assert combatant["additionalProperties"] is False
    for f in PUBLIC_FIELDS:
        prop = dict(combatant["properties"][f.name])
        prop.pop("title")
        expected = TypeAdapter(_type(f)).json_schema(ref_template="#/$defs/{model}")
        expected.pop("$defs", None)
        assert prop == expected, f.name
    assert set(CombatantModel.model_fields) == set(NAMES)


def test_every_field_is_readable_on_the_view(spy):
    view = spy.views[0]
    for f in PUBLIC_FIELDS:
        getattr(view, f.view_attr)


def test_the_view_slots_are_the_state_fields_then_the_readiness_ones():
    slots = [x.name for x in dataclasses.fields(CombatantView)]
    n = len(STATE_FIELDS)
    assert slots[:3] == ["static", "width", "effects"]
    assert slots[3 : 3 + n] == [f.view_attr for f in STATE_FIELDS]
    readiness = [f.view_attr for f in PUBLIC_FIELDS if f.origin == "readiness"]
    assert slots[3 + n :] == readiness
    for f in PUBLIC_FIELDS:
        if f.origin in ("profile", "view"):
            assert isinstance(getattr(CombatantView, f.view_attr), property), f.name


def test_state_fields_are_copied_from_the_state(spy):
    names = {*CombatantState.__dataclass_fields__}
    for f in STATE_FIELDS:
        if f.source.startswith("c.") and f.source[2:].isidentifier():
            assert f.source[2:] in names, f.name
