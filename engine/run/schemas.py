"""JSON Schemas of the Observation and report objects, from pydantic mirror models.

The engine builds these objects as plain dicts for speed; the models below
describe them exactly (``extra="forbid"``) and the tests validate real objects
against them, so the exported schema cannot drift from what is produced.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    create_model,
    model_validator,
)

from engine.content.validation import quote
from engine.run.stats import REPORT_SCHEMA
from engine.view.observation import SCHEMA_ID
from engine.view.snapshot import PUBLIC_FIELDS


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


class ConditionStateModel(_M):
    """A condition a combatant is under, with its rounds left (``None``: until
    something ends it)."""

    name: str
    rounds_left: int | None


class ModifierModel(_M):
    """A typed modifier of one stat (``engine.state.conditions.STAT_NAMES``)."""

    stat: str
    value: int
    type: str


class ActiveEffectModel(_M):
    """An effect on a combatant (``engine.state.effects.Effect``)."""

    source: str
    modifiers: list[ModifierModel]
    #: only against this opponent's id
    against: str | None
    #: only on rolls against an effect with this descriptor
    when: str | None
    rounds_left: int | None


class ConditionDefinitionModel(_M):
    """One condition of the table (``engine.state.conditions.ConditionDef.to_dict``)."""

    name: str
    label: str
    text: str
    srd: str
    modifiers: list[ModifierModel]
    flags: list[str]
    miss_chance: int


#: the names the JSON types of ``PUBLIC_FIELDS`` may use
FIELD_TYPES: dict[str, Any] = {
    "Any": Any,
    "AttackModel": AttackModel,
    "ConditionStateModel": ConditionStateModel,
    "ActiveEffectModel": ActiveEffectModel,
}

#: the public fields the first published schema lists last: they were added to the
#: JSON form before the fields that follow them there, and to the schema after
#: every other one; the committed schema keeps that order (and the JSON its own)
_SCHEMA_LAST = ("weapon_broken", "hidden_from")


def _combatant_model() -> type[BaseModel]:
    """The mirror of a combatant's JSON form, from :data:`engine.view.snapshot.PUBLIC_FIELDS`
    (their JSON types are annotations resolved in this module)."""
    fields = [f for f in PUBLIC_FIELDS if f.name not in _SCHEMA_LAST]
    fields += [f for name in _SCHEMA_LAST for f in PUBLIC_FIELDS if f.name == name]
    definitions: dict[str, Any] = {f.name: (f.type, ...) for f in fields}
    model = create_model("CombatantModel", __base__=_M, __module__=__name__, **definitions)
    model.model_rebuild(_types_namespace=FIELD_TYPES)
    return model


if TYPE_CHECKING:  # the checker sees a model; its fields are built at import

    class CombatantModel(_M): ...

else:
    CombatantModel = _combatant_model()


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
    #: the table of conditions, sorted by name (what each condition a combatant has does)
    condition_definitions: list[ConditionDefinitionModel]

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def __init__(self, **data: Any) -> None:
        if "schema" in data:
            data["schema_"] = data.pop("schema")
        super().__init__(**data)


class _R(BaseModel):
    """Base of the report rows: strict types (no ``"3"`` for 3, no ``true`` for 1)."""

    model_config = ConfigDict(extra="forbid", strict=True)


#: a count of fights or events
Count = Annotated[int, Field(ge=0)]
#: a share of fights
Rate = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
#: a mean per fight
Mean = Annotated[float, Field(ge=0.0, allow_inf_nan=False)]
#: the 3σ band ``[low, high]``
Band = Annotated[list[Rate], Field(min_length=2, max_length=2)]
#: a number of rounds, written as a JSON key (``"7"``)
RoundKey = Annotated[str, StringConstraints(pattern=r"^[1-9][0-9]{0,8}$")]
#: a model's latency in seconds
Seconds = Annotated[float, Field(ge=0.0, allow_inf_nan=False)]


class SideRow(_R):
    name: str
    combatants: Count
    wins: Count
    rate: Rate
    band_3sigma: Band
    #: Wilson score interval at z = 3 (absent from older reports)
    wilson_3sigma: Band | None = None


class DrawRow(_R):
    count: Count
    rate: Rate
    band_3sigma: Band
    wilson_3sigma: Band | None = None
    #: fights stopped by the round cap
    round_cap: Count
    #: fights where the last combatants of every side fell in the same turn
    mutual_knockout: Count


class RoundsRow(_R):
    mean: Mean
    distribution: dict[RoundKey, Count]


class CombatantRow(_R):
    id: str
    side: str
    name: str
    hp_max: Count
    hits_total: Count
    hits_mean: Mean
    crits_total: Count
    crits_mean: Mean
    damage_dealt_total: Count
    damage_dealt_mean: Mean
    damage_taken_total: Count
    damage_taken_mean: Mean
    healing_given_total: Count
    healing_given_mean: Mean
    down_total: Count
    down_mean: Rate
    dead_total: Count
    dead_mean: Rate
    #: fights in which it made at least one melee attack roll (absent from
    #: reports written before the counter existed)
    melee_total: Count | None = None
    melee_mean: Rate | None = None
    #: sum over fights of the damage it dealt squared (its variance; absent
    #: from older reports)
    damage_dealt_squares: Count | None = None
    #: spells it began to cast, slots it spent, table conditions it gave other
    #: creatures (absent from reports written before the counters existed)
    spells_cast_total: Count | None = None
    spells_cast_mean: Mean | None = None
    slots_spent_total: Count | None = None
    slots_spent_mean: Mean | None = None
    conditions_inflicted_total: Count | None = None
    conditions_inflicted_mean: Mean | None = None


class OptionsRow(_R):
    """The options of ``pf1e-sim run`` that produced the report (all optional)."""

    map_file: str | None = None
    side_files: dict[str, list[str]] | None = None
    simple_monster_death: bool | None = None
    #: combatant id → its policy string
    policies: dict[str, str] | None = None
    encounter_file: str | None = None


class LlmRow(_R):
    """Telemetry of the LLM policies (see ``policies.llm.Telemetry``)."""

    model: str
    decisions: Count
    model_calls: Count
    retries: Count
    cache_hits: Count
    #: fallback reason → how many turns fell back to the heuristic for it
    fallbacks: dict[str, Count]
    tokens_in: Count
    tokens_out: Count
    tokens_reused: Count = 0
    latency_p50_s: Seconds | None
    latency_p95_s: Seconds | None


class UnmodelledRow(_R):
    """Data of a creature file that no rule plays (« non modélisé »), listed once per run
    (``engine.content.modelled``)."""

    #: the creature's name
    creature: str
    #: a file field (``spells``, ``attacks[0].hardness``) or one of its ``features``
    kind: Literal["field", "feature"]
    #: the field's path, or the feature as the file writes it
    name: str
    #: why it has no effect (French)
    why: str


#: relative tolerance of a mean or a rate against the counts it is computed from
_TOLERANCE = 1e-9


def _close(value: float, expected: float) -> bool:
    return abs(value - expected) <= _TOLERANCE * max(1.0, abs(expected))


class ReportModel(_R):
    """``pf1e-sim/report@1``.

    Beyond the types, the counts must fit together: the wins of every side and the
    draws add up to ``runs``, and so do the round histogram's counts (rounds from 1
    to the cap); every rate and mean is its count over ``runs``; the combatants
    belong to the sides that list them.
    """

    schema_: Literal["pf1e-sim/report@1"]
    map: str
    runs: Annotated[int, Field(ge=1)]
    seed: int
    round_cap: Annotated[int, Field(ge=1)]
    options: OptionsRow
    sides: Annotated[list[SideRow], Field(min_length=1)]
    draws: DrawRow
    rounds: RoundsRow
    combatants: list[CombatantRow]
    llm: LlmRow | None = None
    #: what the creature files hold that no rule plays (absent from older reports)
    unmodelled: list[UnmodelledRow] | None = Field(
        default=None,
        description=(
            "Data of the creature files that no rule plays, each once, in the order of the "
            "combatants and of their files (« non modélisé »); empty when every datum is "
            "played or already counted in the file's numbers. Absent from reports written "
            "before the list existed."
        ),
    )

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)

    def __init__(self, **data: Any) -> None:
        if "schema" in data:
            data["schema_"] = data.pop("schema")
        super().__init__(**data)

    @model_validator(mode="after")
    def _consistent(self) -> ReportModel:
        n = self.runs
        names = [s.name for s in self.sides]
        if len(set(names)) != len(names):
            raise ValueError("deux camps portent le même nom")
        ids = [c.id for c in self.combatants]
        if len(set(ids)) != len(ids):
            raise ValueError("deux combattants portent le même identifiant")
        for c in self.combatants:
            if c.side not in names:
                raise ValueError(
                    f"le combattant {quote(c.id)} appartient à un camp absent : {quote(c.side)}"
                )
        d = self.draws
        if sum(s.wins for s in self.sides) + d.count != n:
            raise ValueError(f"les victoires et les nuls ne font pas « runs » ({n} combats)")
        if d.round_cap + d.mutual_knockout != d.count:
            raise ValueError("les nuls au plafond et par chute simultanée ne font pas leur total")
        for label, count, rate, (lo, hi) in [
            *((s.name, s.wins, s.rate, s.band_3sigma) for s in self.sides),
            ("nuls", d.count, d.rate, d.band_3sigma),
        ]:
            if not _close(rate, count / n):
                raise ValueError(f"le taux de {quote(label)} n'est pas son nombre sur « runs »")
            if not lo - _TOLERANCE <= rate <= hi + _TOLERANCE:
                raise ValueError(f"la bande 3σ de {quote(label)} ne contient pas son taux")
        for label, rate, wilson in [
            *((s.name, s.rate, s.wilson_3sigma) for s in self.sides),
            ("nuls", d.rate, d.wilson_3sigma),
        ]:
            if wilson is not None and not wilson[0] - _TOLERANCE <= rate <= wilson[1] + _TOLERANCE:
                raise ValueError(
                    f"l'intervalle de Wilson de {quote(label)} ne contient pas son taux"
                )
        for s in self.sides:
            if s.combatants != sum(1 for c in self.combatants if c.side == s.name):
                raise ValueError(f"le camp {quote(s.name)} ne compte pas ses combattants")
        dist = {int(k): v for k, v in self.rounds.distribution.items()}
        if sum(dist.values()) != n:
            raise ValueError(f"la répartition des rounds ne fait pas « runs » ({n} combats)")
        if dist and max(dist) > self.round_cap:
            raise ValueError(f"un combat de {max(dist)} rounds dépasse le plafond")
        used = [k for k, v in dist.items() if v]
        if not min(used) - _TOLERANCE <= self.rounds.mean <= max(used) + _TOLERANCE:
            raise ValueError("la durée moyenne sort de la répartition des rounds")
        for c in self.combatants:
            for key in ("hits", "crits", "damage_dealt", "damage_taken", "healing_given",
                        "down", "dead", "melee", "spells_cast", "slots_spent",
                        "conditions_inflicted"):  # fmt: skip
                total, mean = getattr(c, f"{key}_total"), getattr(c, f"{key}_mean")
                if (total is None) != (mean is None):
                    raise ValueError(f"{quote(c.id)} : « {key}_total » sans « {key}_mean »")
                if total is not None and not _close(mean, total / n):
                    raise ValueError(
                        f"{quote(c.id)} : « {key}_mean » n'est pas le total sur « runs »"
                    )
            squares = c.damage_dealt_squares
            # integers ≥ 0: Σx² ≥ Σx, and n·Σx² ≥ (Σx)² (Cauchy–Schwarz)
            if squares is not None and (
                squares < c.damage_dealt_total or squares * n < c.damage_dealt_total**2
            ):
                raise ValueError(
                    f"{quote(c.id)} : « damage_dealt_squares » ne peut venir de ces dégâts"
                )
        if self.unmodelled is not None:
            items = [(u.creature, u.kind, u.name, u.why) for u in self.unmodelled]
            if len(set(items)) != len(items):
                raise ValueError("« unmodelled » liste deux fois la même donnée")
        return self


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
