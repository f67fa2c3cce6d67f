"""The Observation: the only thing a policy sees (schema ``pf1e-sim/observation@1``).

An :class:`Observation` is an immutable snapshot built by the engine before each
policy call. It holds copies of the public state of every combatant, the map
layers and the results of the actor's previous turn. Per-pair facts (distance,
usable weapon, range penalty, cover, charge, 5-foot step) and the threatened
grid are computed on first access from the snapshot itself — never from live
engine state — with the same rule functions the engine uses to resolve actions.
Mutating what a policy got never affects the fight.

``to_dict()`` gives the JSON form; :func:`observation_json_schema` its schema.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from engine.content.actions import ActionResult, CoupDeGraceAction, Option, Reason
from engine.content.creatures import AttackProfile
from engine.content.maps import Cell, GameMap, TerrainType
from engine.content.space import (
    body_distance_ft,
    footprint,
    in_band,
    inflate,
    may_share,
    sized_map,
    top_elevation,
)
from engine.geometry.grid import Path, distance_ft, neighbours, reachable
from engine.geometry.movement import (
    ChargeResult,
    can_withdraw_from,
    move_toward,
    path_to_destination,
    path_toward,
    step_allowed,
    step_toward,
)
from engine.geometry.reach import (
    attack_reason,
    body_cover,
    body_line_of_effect,
    melee_band,
    range_penalty,
    threat,
    threatens,
    weapon_for,
)
from engine.rules.attack import flanking_ally, shoots_into_melee
from engine.rules.coup_de_grace import verify_coup_de_grace
from engine.rules.moves import charge_line
from engine.rules.status import GATED, gate
from engine.state.conditions import CANT_ACT, CANT_MOVE, ONE_MOVE, TABLE
from engine.view.snapshot import CombatantView

#: no full-round action: cannot act, or one move action only (nauseated)
_NO_FULL_ROUND = CANT_ACT | ONE_MOVE

#: builds the legal-options menu of an Observation (:func:`engine.view.options.legal_options`)
Menu = Callable[["Observation", GameMap], tuple[Option, ...]]

SCHEMA_ID = "pf1e-sim/observation@1"

#: the table of conditions by name: the order of ``condition_definitions``
SORTED_CONDITIONS = tuple(sorted(TABLE, key=lambda c: c.name))


@dataclass(frozen=True, slots=True)
class MapView:
    """What a policy may know of the map: layers and terrain semantics, read-only."""

    name: str
    height: int
    width: int
    terrain: tuple[str, ...]
    elevation: tuple[str, ...]
    terrain_types: tuple[TerrainType, ...]

    @staticmethod
    def of(gmap: GameMap) -> MapView:
        cached = gmap.cache.get("map_view")
        if isinstance(cached, MapView):
            return cached
        view = MapView(
            gmap.name,
            gmap.height,
            gmap.width,
            gmap.terrain_rows,
            gmap.elevation_rows,
            gmap.terrain_types,
        )
        gmap.cache["map_view"] = view
        return view


@dataclass(frozen=True, slots=True)
class PairView:
    """What the acting combatant can do against one other combatant."""

    target_id: str
    distance_ft: int
    has_line_of_effect: bool
    #: first usable attack id (melee first in list order) or None
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
    #: a melee attack from here would get the flanking bonus (an ally opposite)
    flanking: bool
    #: a ranged attack from here would take −4 for shooting into a melee
    shooting_into_melee: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "target_id": self.target_id,
            "distance_ft": self.distance_ft,
            "has_line_of_effect": self.has_line_of_effect,
            "weapon_for": self.weapon_for,
            "weapon_reason": self.weapon_reason,
            "melee_weapon_for": self.melee_weapon_for,
            "range_penalty": self.range_penalty,
            "cover_bonus": self.cover_bonus,
            "can_charge": self.can_charge,
            "charge_reason": self.charge_reason,
            "can_step5_to_attack": self.can_step5_to_attack,
            "high_ground": self.high_ground,
            "target_threatens_me": self.target_threatens_me,
            "flanking": self.flanking,
            "shooting_into_melee": self.shooting_into_melee,
        }


class Observation:
    """Snapshot handed to a policy. Read-only by contract; lazily enriched."""

    __slots__ = (
        "_by_id",
        "_cache",
        "_gmap",
        "_menu",
        "_options",
        "_ranged_threatened",
        "_simple",
        "_threatened",
        "acting_id",
        "actor",
        "combatants",
        "fight_key",
        "initiative_order",
        "last_turn_results",
        "round",
    )

    schema = SCHEMA_ID

    def __init__(
        self,
        *,
        gmap: GameMap,
        round: int,
        acting_id: str,
        initiative_order: tuple[str, ...],
        combatants: tuple[CombatantView, ...],
        last_turn_results: tuple[ActionResult, ...],
        menu: Menu,
        fight_key: object = None,
        simple_space: bool = False,
    ) -> None:
        #: identifies the fight (its seed when seeded): lets a policy reset per-fight state
        self.fight_key = fight_key
        #: every creature fills one square and none may share (one-square fast paths)
        self._simple = simple_space
        #: engine-private: the map with its geometry caches (policies use ``map``)
        self._gmap = gmap
        self.round = round
        self.acting_id = acting_id
        self.initiative_order = initiative_order
        self.combatants = combatants
        self.last_turn_results = last_turn_results
        self._by_id = {c.id: c for c in combatants}
        #: the acting combatant's view
        self.actor: CombatantView = self._by_id[acting_id]
        #: what was computed for this observation (pairs, charges, weapons, paths …),
        #: by (what, target id)
        self._cache: dict[tuple[str, str], object] = {}
        self._threatened: tuple[tuple[bool, ...], ...] | None = None
        self._ranged_threatened: tuple[tuple[bool, ...], ...] | None = None
        #: what builds :attr:`legal_options` (the loop hands it; the view does not import it)
        self._menu = menu
        self._options: tuple[Option, ...] | None = None

    @property
    def map(self) -> MapView:
        """Read-only description of the map (layers and terrain semantics)."""
        return MapView.of(self._gmap)

    def memo(self, key: str, build: Callable[[Observation, GameMap], object]) -> object:
        """``build(self, the map)``, computed once per Observation under ``key`` (a view
        module's own derived value, e.g. :func:`engine.view.casts.cast_candidates`)."""
        slot = (key, "")
        hit = self._cache.get(slot)
        if hit is None:
            hit = self._cache[slot] = build(self, self._gmap)
        return hit

    # -- the rules' Situation (engine.state.fight.Situation) --------------------------
    def target(self, target_id: str | None) -> CombatantView | None:
        """The combatant named ``target_id`` (``None`` when unnamed or unknown)."""
        if target_id is None:
            return None
        return self._by_id.get(target_id)

    def occupied_for(self, actor: CombatantView) -> set[Cell]:
        """Anchors ``actor`` may not end a move on (:meth:`blockers` for the actor)."""
        if actor is self.actor:
            return self.blockers()[0]
        return self._blocked_for(actor, self._occupied(actor.id, sharer=actor))

    def hostile_for(self, actor: CombatantView) -> set[Cell]:
        """Anchors ``actor`` may not enter (:meth:`blockers` for the actor)."""
        if actor is self.actor:
            return self.blockers()[1]
        allies = [c.id for c in self.combatants if c.side == actor.side]
        return self._blocked_for(actor, self._occupied(*allies, sharer=actor))

    def hostile_cells(self, actor: CombatantView) -> set[Cell]:
        """Every square of ``actor``'s active enemies (:meth:`blockers` for the actor)."""
        if actor is self.actor:
            return self.blockers()[2]
        return self._occupied(*[c.id for c in self.combatants if c.side == actor.side])

    # -- combatants ---------------------------------------------------------
    def combatant(self, ident: str) -> CombatantView:
        return self._by_id[ident]

    def enemies(self, *, active_only: bool = True) -> list[CombatantView]:
        side = self.actor.side
        return [c for c in self.combatants if c.side != side and (c.active or not active_only)]

    def allies(self) -> list[CombatantView]:
        me = self.actor
        return [c for c in self.combatants if c.side == me.side and c.id != me.id and c.active]

    def _occupied(self, *exclude: str, sharer: CombatantView | None = None) -> set[Cell]:
        """Squares of the active combatants not in ``exclude`` (every square of a
        space), without those ``sharer`` may share (:func:`engine.content.space.may_share`)."""
        if self._simple:
            return {c.cell for c in self.combatants if c.active and c.id not in exclude}
        gmap = self._gmap
        out: set[Cell] = set()
        for c in self.combatants:
            if c.active and c.id not in exclude:
                if sharer is not None and may_share(sharer.very_small, c.very_small):
                    continue
                if c.space == 1:
                    out.add(c.cell)
                else:
                    out.update(footprint(gmap, c.cell, c.space))
        return out

    def _blocked_for(self, me: CombatantView, cells: set[Cell]) -> set[Cell]:
        """``cells`` as anchors the actor's space may not overlap (:func:`inflate`)."""
        return cells if me.space == 1 else inflate(self._gmap, cells, me.space)

    def blockers(self) -> tuple[set[Cell], set[Cell], set[Cell]]:
        """For the actor's movement: the anchors it may not end on (other
        creatures), those it may not enter (enemies), and the enemies' squares."""
        hit = self._cache.get(("blockers", ""))
        if hit is None and self._simple:
            me = self.actor
            side = me.side
            enemies = {c.cell for c in self.combatants if c.active and c.side != side}
            hit = ({c.cell for c in self.combatants if c.active and c is not me}, enemies, enemies)
            self._cache[("blockers", "")] = hit
        if hit is None:
            me = self.actor
            allies = [c.id for c in self.combatants if c.side == me.side]
            hit = (
                self._blocked_for(me, self._occupied(me.id, sharer=me)),
                self._blocked_for(me, self._occupied(*allies, sharer=me)),
                self._occupied(*allies),
            )
            self._cache[("blockers", "")] = hit
        return hit  # type: ignore[return-value]

    def move_toward(self, target_id: str) -> Path:
        """What a move action toward ``target_id`` would walk (same rule as the engine)."""
        key = ("move", target_id)
        hit = self._cache.get(key)
        if hit is None:
            me, tgt = self.actor, self._by_id[target_id]
            occupied, hostile, _ = self.blockers()
            hit = move_toward(
                self._gmap,
                me.cell,
                tgt.cell,
                me.attacks,
                me.speed_effective_ft,
                occupied=occupied,
                hostile=hostile,
                k=1 if self._simple else me.space,
                kt=1 if self._simple else tgt.space,
            )
            self._cache[key] = hit
        return hit  # type: ignore[return-value]

    def weapon_after_move(self, target_id: str) -> AttackProfile | None:
        """First attack able to hit ``target_id`` once a move toward it is walked."""
        path = self.move_toward(target_id)
        me, tgt = self.actor, self._by_id[target_id]
        end = path.cells[-1] if path.cells else me.cell
        ks, kt = (1, 1) if self._simple else (me.space, tgt.space)
        return weapon_for(self._gmap, end, tgt.cell, me.attacks, ks=ks, kt=kt)[0]

    # -- squares the actor could stand on (read-only, computed on request) -------
    def move_squares(self) -> dict[Cell, int]:
        """Every square (the anchor of its space) a move action to a ``destination``
        can end on, with its cost in squares: reachable around the enemies within
        the actor's speed, free, not its own square (:func:`path_to` walks there)."""
        key = ("move_squares", "")
        hit = self._cache.get(key)
        if hit is None:
            me = self.actor
            occupied, hostile, _ = self.blockers()
            costs = reachable(
                sized_map(self._gmap, me.space),
                me.cell,
                blocked=hostile,
                budget=me.speed_effective_ft // 5,
            )
            hit = {c: g for c, g in costs.items() if c != me.cell and c not in occupied}
            self._cache[key] = hit
        return hit  # type: ignore[return-value]

    def path_to(self, cell: Cell) -> Path | None:
        """What a move action to the square ``cell`` would walk (the engine's
        :func:`engine.geometry.movement.path_to_destination`), or ``None`` if it cannot."""
        me = self.actor
        occupied, hostile, _ = self.blockers()
        return path_to_destination(
            self._gmap,
            me.cell,
            cell,
            me.speed_effective_ft // 5,
            occupied=occupied,
            hostile=hostile,
            k=me.space,
        )

    def step_squares(self) -> tuple[Cell, ...]:
        """The squares a 5-foot step can reach (:func:`engine.geometry.movement.step_allowed`),
        in row-major order; none for a speed of 5 feet or less."""
        me = self.actor
        if me.speed_effective_ft <= 5:
            return ()
        occupied = self.blockers()[0]
        gmap, k = self._gmap, me.space
        around = sorted(n for n, _diag in neighbours(sized_map(gmap, k))[me.cell])
        return tuple(n for n in around if step_allowed(gmap, me.cell, n, occupied, k))

    def weapon_from(self, cell: Cell, target_id: str, *, kind: str = "any") -> AttackProfile | None:
        """First attack of the actor able to hit ``target_id`` were the actor on
        ``cell`` (``kind``: ``any``, ``melee`` or ``ranged`` attacks only)."""
        me, tgt = self.actor, self._by_id[target_id]
        attacks = me.attacks
        if kind == "ranged":
            attacks = tuple(a for a in attacks if not a.is_melee)
        ks, kt = (1, 1) if self._simple else (me.space, tgt.space)
        return weapon_for(
            self._gmap, cell, tgt.cell, attacks, melee_only=kind == "melee", ks=ks, kt=kt
        )[0]

    def flanking_from(self, cell: Cell, target_id: str) -> bool:
        """Whether a melee attack on ``target_id`` from ``cell`` would flank it."""
        me, tgt = self.actor, self._by_id[target_id]
        moved = replace(me, cell=cell)
        return flanking_ally(self._gmap, moved, tgt.cell, self.combatants, tgt.space) is not None

    def cover_from(self, cell: Cell, enemy_id: str) -> int:
        """Cover bonus of the actor standing on ``cell`` against the longest-range
        ranged attack of ``enemy_id`` (0 when it has none)."""
        me, enemy = self.actor, self._by_id[enemy_id]
        best = max(
            (a for a in enemy.attacks if not a.is_melee),
            key=lambda a: a.max_range_ft,
            default=None,
        )
        if best is None:
            return 0
        return body_cover(
            self._gmap,
            enemy.cell,
            enemy.space,
            cell,
            me.space,
            best,
            creatures=self._occupied(me.id, enemy.id),
        )

    def distance_from(self, cell: Cell, target_id: str) -> int:
        """5-10-5 distance in feet to ``target_id`` were the actor on ``cell``."""
        me, tgt = self.actor, self._by_id[target_id]
        if self._simple:
            return distance_ft(self._gmap, cell, tgt.cell)
        return body_distance_ft(self._gmap, cell, me.space, tgt.cell, tgt.space)

    def target_cover_from(self, cell: Cell, target_id: str, attack: AttackProfile) -> int:
        """Cover of ``target_id`` against ``attack`` made by the actor standing on
        ``cell`` (as the engine judges the attack roll: other creatures give cover
        against ranged attacks only)."""
        me, tgt = self.actor, self._by_id[target_id]
        creatures = () if attack.is_melee else self._occupied(me.id, tgt.id)
        return body_cover(
            self._gmap, cell, me.space, tgt.cell, tgt.space, attack, creatures=creatures
        )

    def threatens(self, source_id: str, target_id: str) -> bool:
        """Whether ``source_id`` threatens ``target_id``'s space
        (:func:`engine.geometry.reach.threat`)."""
        tgt = self._by_id[target_id]
        return threatens(self._gmap, self._by_id[source_id], tgt.cell, tgt.space)

    def threatening(self, cell: Cell) -> tuple[str, ...]:
        """Ids of the active enemies that threaten the actor's space were it on
        ``cell`` (leaving it, or shooting from it, provokes them), in deployment order."""
        me = self.actor
        return tuple(e.id for e in self.enemies() if threatens(self._gmap, e, cell, me.space))

    # -- per-pair facts -----------------------------------------------------
    def distance_ft(self, target_id: str) -> int:
        """5-10-5 distance in feet from the actor to ``target_id`` (cheap)."""
        me, tgt = self.actor, self._by_id[target_id]
        if self._simple:
            return distance_ft(self._gmap, me.cell, tgt.cell)
        return body_distance_ft(self._gmap, me.cell, me.space, tgt.cell, tgt.space)

    def coup_de_grace_weapons(self, target_id: str) -> tuple[AttackProfile, ...]:
        """The actor's weapons that can deliver a coup de grâce to ``target_id`` now
        (:func:`engine.rules.coup_de_grace.verify_coup_de_grace`), in file order;
        none when its turn cannot hold the full-round action — it cannot act, has
        one action only (nauseated, disabled, staggered, the surprise round), is
        prone — or a condition forbids it (:func:`engine.rules.status.gate`). The
        menu's ``coup_de_grace`` options are these; a policy facing a helpless
        enemy asks this without building the menu."""
        me = self.actor
        cond = me.effects.cond
        if cond & _NO_FULL_ROUND or me.prone or me.staggered or self.round == 0:
            return ()
        if cond & GATED and gate(cond, "coup_de_grace", False) is not None:
            return ()
        gmap = self._gmap
        return tuple(
            a
            for a in me.attacks
            if not isinstance(
                verify_coup_de_grace(
                    gmap, self, me, CoupDeGraceAction(target_id=target_id, weapon_id=a.id)
                ),
                Reason,
            )
        )

    def charge(self, target_id: str) -> ChargeResult:
        """Charge feasibility against ``target_id``: the engine's own judgement
        (:func:`engine.rules.moves.charge_line`, with the first attack that can)."""
        key = ("charge", target_id)
        res = self._cache.get(key)
        if res is None:
            me = self.actor
            res = charge_line(self._gmap, self, me, target_id)
            if me.effects.cond & GATED:  # a condition may forbid it (engine.rules.status.gate)
                refused = gate(me.effects.cond, "charge", True)
                if refused is not None:
                    res = ChargeResult(False, refused)
            self._cache[key] = res
        return res  # type: ignore[return-value]

    def weapon_for(self, target_id: str) -> tuple[AttackProfile | None, str | None]:
        """First listed attack of the actor able to hit ``target_id`` now, or why none."""
        key = ("w", target_id)
        res = self._cache.get(key)
        if res is None:
            me, tgt = self.actor, self._by_id[target_id]
            ks, kt = (1, 1) if self._simple else (me.space, tgt.space)
            res = weapon_for(self._gmap, me.cell, tgt.cell, me.attacks, ks=ks, kt=kt)
            self._cache[key] = res
        return res  # type: ignore[return-value]

    def melee_weapon_for(self, target_id: str) -> AttackProfile | None:
        """First melee attack of the actor reaching ``target_id`` now."""
        key = ("m", target_id)
        if key not in self._cache:
            me, tgt = self.actor, self._by_id[target_id]
            self._cache[key] = weapon_for(
                self._gmap,
                me.cell,
                tgt.cell,
                me.attacks,
                melee_only=True,
                ks=1 if self._simple else me.space,
                kt=1 if self._simple else tgt.space,
            )[0]
        return self._cache[key]  # type: ignore[return-value]

    def can_withdraw(self) -> bool:
        """Whether a withdraw moves the actor at least a square (the menu's test:
        the restricted withdraw when it has one action only)."""
        key = ("withdraw", "")
        hit = self._cache.get(key)
        if hit is None and (self.actor.prone or self.actor.effects.cond & CANT_MOVE):
            hit = False  # a prone combatant stands up first (no withdraw on its menu)
        if hit is None:
            me = self.actor
            _occupied, _hostile, enemy_cells = self.blockers()
            hit = can_withdraw_from(
                self._gmap,
                me.cell,
                enemy_cells,
                me.speed_effective_ft,
                self.blockers()[0],
                restricted=me.staggered or self.round == 0,
                k=me.space,
            )
            self._cache[key] = hit
        return hit  # type: ignore[return-value]

    def ranged_weapon_for(self, target_id: str) -> AttackProfile | None:
        """First ranged attack of the actor able to hit ``target_id`` now."""
        key = ("r", target_id)
        if key not in self._cache:
            me, tgt = self.actor, self._by_id[target_id]
            ranged = tuple(a for a in me.attacks if not a.is_melee)
            self._cache[key] = (
                weapon_for(
                    self._gmap,
                    me.cell,
                    tgt.cell,
                    ranged,
                    ks=1 if self._simple else me.space,
                    kt=1 if self._simple else tgt.space,
                )[0]
                if ranged
                else None
            )
        return self._cache[key]  # type: ignore[return-value]

    def can_step5_to_attack(self, target_id: str) -> bool:
        """Whether one 5-foot step puts ``target_id`` in the actor's melee reach."""
        key = ("s", target_id)
        if key not in self._cache:
            me, tgt = self.actor, self._by_id[target_id]
            ok = False
            if (
                tgt.active
                and tgt.side != me.side
                and not me.staggered
                and not me.effects.cond & CANT_MOVE
                and me.speed_effective_ft > 5
                and self.melee_weapon_for(target_id) is None
            ):
                _cell, ok = step_toward(
                    self._gmap,
                    me.cell,
                    tgt.cell,
                    me.attacks,
                    self.blockers()[0],
                    me.space,
                    tgt.space,
                )
            self._cache[key] = ok
        return self._cache[key]  # type: ignore[return-value]

    def cover_bonus(self, target_id: str) -> int:
        """Cover of ``target_id`` against the actor's :meth:`weapon_for` weapon (0 if none)."""
        weapon, _ = self.weapon_for(target_id)
        if weapon is None:
            return 0
        me, tgt = self.actor, self._by_id[target_id]
        return body_cover(
            self._gmap,
            me.cell,
            me.space,
            tgt.cell,
            tgt.space,
            weapon,
            creatures=self._occupied(me.id, tgt.id),
        )

    def pair(self, target_id: str) -> PairView:
        """Every per-pair fact about the acting combatant versus ``target_id``."""
        key = ("pair", target_id)
        hit = self._cache.get(key)
        if hit is not None:
            return hit  # type: ignore[return-value]
        gmap = self._gmap
        me, tgt = self.actor, self._by_id[target_id]
        dist = self.distance_ft(target_id)
        weapon, reason = self.weapon_for(target_id)
        melee = self.melee_weapon_for(target_id)
        charge_ok, charge_reason = False, None
        if tgt.side != me.side and tgt.active:
            ch = self.charge(target_id)
            charge_ok, charge_reason = ch.ok, ch.reason
        threatens_me = threatens(gmap, tgt, me.cell, me.space)
        hostile = tgt.side != me.side and tgt.active
        creatures = self.combatants
        flanking = hostile and flanking_ally(gmap, me, tgt.cell, creatures, tgt.space) is not None
        into_melee = hostile and shoots_into_melee(
            gmap, me, me.static.profile.features, tgt, creatures
        )
        pv = PairView(
            target_id=target_id,
            distance_ft=dist,
            has_line_of_effect=body_line_of_effect(gmap, me.cell, me.space, tgt.cell, tgt.space),
            weapon_for=weapon.id if weapon else None,
            weapon_reason=reason,
            melee_weapon_for=melee.id if melee else None,
            range_penalty=range_penalty(weapon, dist) if weapon else 0,
            cover_bonus=self.cover_bonus(target_id),
            can_charge=charge_ok,
            charge_reason=charge_reason,
            can_step5_to_attack=self.can_step5_to_attack(target_id),
            high_ground=top_elevation(gmap, me.cell, me.space)
            > top_elevation(gmap, tgt.cell, tgt.space),
            target_threatens_me=threatens_me,
            flanking=flanking,
            shooting_into_melee=into_melee,
        )
        self._cache[key] = pv
        return pv

    @property
    def pairs(self) -> tuple[PairView, ...]:
        """Facts versus every other combatant, in deployment order."""
        return tuple(self.pair(c.id) for c in self.combatants if c.id != self.acting_id)

    def movement_cost_ft(self, target_id: str) -> int | None:
        """Feet of movement to reach a square from which ``target_id`` is in melee
        reach (0 if already there, ``None`` if no such square can be reached)."""
        key = ("move_cost", target_id)
        if key in self._cache:
            return self._cache[key]  # type: ignore[return-value]
        me, tgt = self.actor, self._by_id[target_id]
        reach, dead = melee_band(me.attacks)
        occupied, hostile, _ = self.blockers()
        path = path_toward(
            self._gmap,
            me.cell,
            tgt.cell,
            reach,
            occupied=occupied,
            hostile=hostile,
            dead_zone_ft=dead,
            k=me.space,
            kt=tgt.space,
        )
        result: int | None
        if path is None:
            in_reach = in_band(self._gmap, me.cell, me.space, tgt.cell, tgt.space, reach, dead)
            result = 0 if in_reach else None
        else:
            last = path.cells[-1] if path.cells else me.cell
            ok = in_band(self._gmap, last, me.space, tgt.cell, tgt.space, reach, dead)
            result = 5 * path.cost if ok else None
        self._cache[key] = result
        return result

    @property
    def threatened(self) -> tuple[tuple[bool, ...], ...]:
        """Grid of squares threatened in melee by the actor's active enemies
        (:func:`engine.geometry.reach.threat`, one square at a time; impassable squares,
        where no creature stands, are never marked)."""
        if self._threatened is None:
            gmap = self._gmap
            move_cost = gmap.move_cost
            grid = [[False] * gmap.width for _ in range(gmap.height)]
            for enemy in self.enemies():
                reach = enemy.threat_reach_ft
                if reach == 0:
                    continue
                # the squares within reach of its space (threat's own first test)
                span = reach // 5
                k = enemy.space
                er, ec = gmap.rc(enemy.cell)
                for r in range(max(0, er - span), min(gmap.height, er + k + span)):
                    row = grid[r]
                    for c in range(max(0, ec - span), min(gmap.width, ec + k + span)):
                        if row[c]:
                            continue
                        cell = gmap.cell(r, c)
                        if move_cost[cell] != 0 and threat(gmap, enemy, cell) is not None:
                            row[c] = True
            self._threatened = tuple(tuple(row) for row in grid)
        return self._threatened

    def threatened_at(self, cell: Cell, k: int = 1) -> bool:
        """Whether some active enemy threatens the space of ``k`` × ``k`` squares
        anchored on ``cell`` (:func:`engine.geometry.reach.threat`; pass the actor's
        ``space`` to ask about the actor standing there). For one square it is
        :attr:`threatened` there, read from the grid once it is built."""
        gmap = self._gmap
        if k != 1:
            return any(threatens(gmap, e, cell, k) for e in self.enemies())
        if self._threatened is not None:
            r, c = gmap.rc(cell)
            return self._threatened[r][c]
        if gmap.move_cost[cell] == 0:
            return False
        return any(threat(gmap, e, cell) is not None for e in self.enemies())

    @property
    def ranged_threatened(self) -> tuple[tuple[bool, ...], ...]:
        """Grid of squares inside the field of fire of the actor's active enemies:
        within the maximum range of a ranged attack and in line of effect of the
        enemy (:func:`engine.geometry.reach.attack_reason`, as the engine judges a shot);
        not an attack-of-opportunity threat. Computed on first access."""
        if self._ranged_threatened is None:
            gmap = self._gmap
            h, w = gmap.height, gmap.width
            grid = [[False] * w for _ in range(h)]
            for enemy in self.enemies():
                # line of effect is shared by every attack: the longest range decides
                best = max(
                    (a for a in enemy.attacks if not a.is_melee),
                    key=lambda a: a.max_range_ft,
                    default=None,
                )
                if best is None:
                    continue
                span = best.max_range_ft // 5
                k = enemy.space
                own = footprint(gmap, enemy.cell, k)
                er, ec = gmap.rc(enemy.cell)
                for r in range(max(0, er - span), min(h, er + k + span)):
                    row = grid[r]
                    for c in range(max(0, ec - span), min(w, ec + k + span)):
                        if row[c]:
                            continue
                        cell = gmap.cell(r, c)
                        if cell in own or gmap.move_cost[cell] == 0:
                            continue
                        if attack_reason(gmap, enemy.cell, cell, best, k) is None:
                            row[c] = True
            self._ranged_threatened = tuple(tuple(row) for row in grid)
        return self._ranged_threatened

    @property
    def legal_options(self) -> tuple[Option, ...]:
        """The menu of budget-legal turn plans of the actor (see :mod:`engine.view.options`)."""
        if self._options is None:
            self._options = self._menu(self, self._gmap)
        return self._options

    def option(self, option_id: str) -> Option | None:
        """The legal option with this id, or ``None``."""
        for opt in self.legal_options:
            if opt.id == option_id:
                return opt
        return None

    # -- serialisation --------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The JSON form (everything computed, nothing shared with the engine)."""
        pairs: list[dict[str, Any]] = []
        for p in self.pairs:
            d = p.to_dict()
            tgt = self._by_id[p.target_id]
            d["movement_cost_ft"] = (
                self.movement_cost_ft(p.target_id)
                if tgt.active and tgt.side != self.actor.side
                else None
            )
            pairs.append(d)
        return {
            "schema": SCHEMA_ID,
            "round": self.round,
            "acting_combatant": self.acting_id,
            "initiative_order": list(self.initiative_order),
            "combatants": [c.to_dict() for c in self.combatants],
            "pairs": pairs,
            "map": {
                "name": self._gmap.name,
                "square_size_ft": 5,
                "terrain": list(self._gmap.terrain_rows),
                "elevation": list(self._gmap.elevation_rows),
                "terrain_semantics": {t.char: t.to_dict() for t in self._gmap.terrain_types},
            },
            "threatened": [list(row) for row in self.threatened],
            "ranged_threatened": [list(row) for row in self.ranged_threatened],
            "last_turn_results": [r.to_dict() for r in self.last_turn_results],
            "legal_options": [o.to_dict() for o in self.legal_options],
            "condition_definitions": [c.to_dict() for c in SORTED_CONDITIONS],
        }
