"""JSON Schemas of the Observation and report objects, from pydantic mirror models.

The engine builds these objects as plain dicts for speed; the models below
describe them exactly (``extra="forbid"``) and the tests validate real objects
against them, so the exported schema cannot drift from what is produced.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from engine.observation import SCHEMA_ID
from engine.stats import REPORT_SCHEMA


class _M(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DamageModel(_M):
    formula: str
    types: list[str]


class SplashModel(_M):
    damage: int
    type: str


class AttackModel(_M):
    id: str
    name: str
    kind: Literal["melee", "ranged", "touch"]
    attack_bonus: int
    damage: list[DamageModel]
    damage_bonus: int
    crit_range: int
    crit_mult: int
    count: int
    reach_ft: int
    range_increment_ft: int | None
    max_range_ft: int
    natural: bool
    firearm: bool
    splash: SplashModel | None


class CombatantModel(_M):
    id: str
    side: str
    name: str
    level: int
    size: str
    #: squares per side of its space, anchored on ``pos`` (Large 2, Huge 3 …)
    space: int
    pc: bool
    creature_type: str | None
    alignment: str
    hp_max: int
    ac: dict[str, int]
    saves: dict[str, int]
    abilities: dict[str, int | None]
    bab: int
    initiative_mod: int
    speed_land_ft: int
    speed_fly_ft: int | None
    dr: dict[str, Any] | None
    resistances: dict[str, int]
    immunities: list[str]
    features: list[str]
    conditions: list[str]
    attacks: list[AttackModel]
    pos: list[int]
    hp: int
    nonlethal: int
    active: bool
    dead: bool
    dying: bool
    stabilized: bool
    disabled: bool
    staggered: bool
    initiative_total: int
    aoo_remaining: int
    charging: bool
    defense_ac_bonus: int
    aware: bool
    prone: bool
    running: bool
    delayed: bool
    speed_effective_ft: int
    readied: dict[str, str | None] | None
    aid_attack_bonus: dict[str, int]
    aid_ac_bonus: dict[str, int]
    immediate_used: bool
    run_rounds: int
    run_rest_rounds: int
    weapon_broken: list[str]
    hidden_from: list[str]


class PairModel(_M):
    target_id: str
    distance_ft: int
    has_line_of_effect: bool
    weapon_for: str | None
    weapon_reason: str | None
    melee_weapon_for: str | None
    range_penalty: int
    cover_bonus: int
    can_charge: bool
    charge_reason: str | None
    can_step5_to_attack: bool
    high_ground: bool
    target_threatens_me: bool
    flanking: bool
    shooting_into_melee: bool
    movement_cost_ft: int | None


class TerrainModel(_M):
    type: str
    move_cost: int | None
    blocks_los: bool
    cover: bool
    cover_bonus: int


class MapViewModel(_M):
    name: str
    square_size_ft: int
    terrain: list[str]
    elevation: list[str]
    terrain_semantics: dict[str, TerrainModel]


class ActionResultModel(_M):
    kind: str
    ok: bool
    reason: str | None


class OptionModel(_M):
    id: str
    label: str
    actions: list[dict[str, Any]]


class ObservationModel(_M):
    """``pf1e-sim/observation@1``."""

    schema_: Literal["pf1e-sim/observation@1"]
    round: int
    acting_combatant: str
    initiative_order: list[str]
    combatants: list[CombatantModel]
    pairs: list[PairModel]
    map: MapViewModel
    threatened: list[list[bool]]
    ranged_threatened: list[list[bool]]
    last_turn_results: list[ActionResultModel]
    legal_options: list[OptionModel]

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def __init__(self, **data: Any) -> None:
        if "schema" in data:
            data["schema_"] = data.pop("schema")
        super().__init__(**data)


class SideRow(_M):
    name: str
    combatants: int
    wins: int
    rate: float
    band_3sigma: list[float]
    #: Wilson score interval at z = 3 (absent from older reports)
    wilson_3sigma: list[float] | None = None


class DrawRow(_M):
    count: int
    rate: float
    band_3sigma: list[float]
    wilson_3sigma: list[float] | None = None
    #: fights stopped by the round cap
    round_cap: int
    #: fights where the last combatants of every side fell in the same turn
    mutual_knockout: int


class RoundsRow(_M):
    mean: float
    distribution: dict[str, int]


class CombatantRow(_M):
    id: str
    side: str
    name: str
    hp_max: int
    hits_total: int
    hits_mean: float
    crits_total: int
    crits_mean: float
    damage_dealt_total: int
    damage_dealt_mean: float
    damage_taken_total: int
    damage_taken_mean: float
    healing_given_total: int
    healing_given_mean: float
    down_total: int
    down_mean: float
    dead_total: int
    dead_mean: float
    #: fights in which it made at least one melee attack roll (absent from
    #: reports written before the counter existed)
    melee_total: int | None = None
    melee_mean: float | None = None
    #: sum over fights of the damage it dealt squared (its variance; absent
    #: from older reports)
    damage_dealt_squares: int | None = None


class ReportModel(_M):
    """``pf1e-sim/report@1``."""

    schema_: Literal["pf1e-sim/report@1"]
    map: str
    runs: int
    seed: int
    round_cap: int
    options: dict[str, Any]
    sides: list[SideRow]
    draws: DrawRow
    rounds: RoundsRow
    combatants: list[CombatantRow]
    llm: dict[str, Any] | None = None

    def __init__(self, **data: Any) -> None:
        if "schema" in data:
            data["schema_"] = data.pop("schema")
        super().__init__(**data)


def _export(model: type[BaseModel], ident: str) -> dict[str, Any]:
    schema = model.model_json_schema()
    props = schema.get("properties", {})
    if "schema_" in props:
        props["schema"] = props.pop("schema_")
        schema["required"] = ["schema" if r == "schema_" else r for r in schema.get("required", [])]
    schema["$id"] = ident
    return schema


def observation_json_schema() -> dict[str, Any]:
    return _export(ObservationModel, SCHEMA_ID)


def report_json_schema() -> dict[str, Any]:
    return _export(ReportModel, REPORT_SCHEMA)
