"""One fight: initiative, rounds, turns, action dispatch, victory.

The turn loop is deliberately small: build the Observation, ask the side's
policy for a plan, filter it through the action budget, dispatch each kept
action to its rule module, record the results.

* Initiative: d20 + modifier, sorted on (total, modifier, deployment order),
  highest first, rolled once.
* A dying combatant's turn is its stabilization check; stable, dead and
  unconscious combatants (nonlethal damage above hp included) skip their turn.
* The fight ends as soon as at most one side has active combatants (that side
  wins); after ``round_cap`` rounds it is a draw.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

from engine import readiness
from engine.actions import (
    IMPLEMENTED_KINDS,
    MOVEMENT_KINDS,
    SLOT_OF_KIND,
    Action,
    ActionResult,
    AidAnotherAction,
    AttackAction,
    ChargeAction,
    DelayAction,
    DropProneAction,
    FightDefensivelyAction,
    FiveFootStepAction,
    FullAttackAction,
    HideAction,
    ImmediateAction,
    MoveAction,
    ReadyAction,
    Reason,
    RepairWeaponAction,
    RunAction,
    Slot,
    StandUpAction,
    TotalDefenseAction,
    TurnPlan,
    WithdrawAction,
)
from engine.aoo import STANDS, provoke, provoke_entering
from engine.attack import (
    FIGHT_DEFENSIVELY_AC,
    FIGHT_DEFENSIVELY_PENALTY,
    TOTAL_DEFENSE_AC,
    iterative_penalties,
    may_threaten,
    resolve_swing,
)
from engine.checks import CheckKind, Modifier, check
from engine.creatures import AttackProfile
from engine.economy import filter_plan
from engine.fight import FightState, LogEntry, ReactionEvent
from engine.life import lose_hp, stabilization_check
from engine.maps import Cell, GameMap
from engine.movement import (
    charge_path,
    move_toward,
    path_to_destination,
    run_path,
    step_allowed,
    step_toward,
    withdraw_path,
)
from engine.observation import CombatantView, Observation, ProfileView, fill_readiness
from engine.options import legal_options
from engine.packs import D20_PLAIN
from engine.reach import attack_reason, threat_weapon, weapon_for
from engine.rng import Rng
from engine.skills import trained
from engine.space import body_distance_squares, footprint
from engine.state import CombatantState
from engine.stealth import after_move, hide, reveal
from engine.tumbling import Tumble
from engine.weapons import after_swing, repair_weapon


class Policy(Protocol):
    """Anything that turns an Observation into a turn plan."""

    def decide(self, obs: Observation) -> TurnPlan: ...


class ReactionPolicy(Protocol):
    """Chooses a combatant's immediate action when an event happens (opt-in,
    see :mod:`engine.readiness`)."""

    def react(self, obs: Observation, event: ReactionEvent) -> Action | None:
        """``None`` to let the event pass; otherwise an :class:`ImmediateAction`."""
        ...


@dataclass(frozen=True, slots=True)
class FightResult:
    """Outcome of one fight."""

    winner: str | None
    rounds: int
    combatants: tuple[CombatantState, ...]
    log: tuple[LogEntry, ...] | None


class Battle:
    """The rules loop of a single fight, over the :class:`FightState` it owns
    (``fight``: what rule modules receive)."""

    def __init__(
        self,
        gmap: GameMap,
        combatants: list[CombatantState],
        sides: tuple[str, ...],
        rng: Rng,
        policies: Mapping[str, Policy] | Callable[[CombatantState], Policy],
        *,
        round_cap: int = 100,
        record: bool = False,
        reaction_policy: ReactionPolicy | None = None,
    ) -> None:
        self.fight = fight = FightState(
            gmap, combatants, sides, rng, readiness.HOOKS, record=record
        )
        #: the fight's map, combatants (list), ids and sides: ``fight``'s own objects
        self.gmap = gmap
        self.combatants = combatants
        self.by_id = fight.by_id
        self.sides = sides
        self._policies = policies
        self.round_cap = round_cap
        self._views = {c.id: ProfileView(c.id, c.side, c.profile) for c in combatants}
        self._delay_target: str | None = None
        #: the initiative order last shown to a policy, and its ids
        self._order_of: list[CombatantState] | None = None
        self._order_id_tuple: tuple[str, ...] = ()
        self._reaction_policy: ReactionPolicy | None = None
        self.reaction_policy = reaction_policy
        #: the fight's identity for policies (the seed of a seeded RNG, else a fresh object)
        self.fight_key: object = getattr(rng, "seed", None)
        if self.fight_key is None:
            self.fight_key = object()

    # -- helpers --------------------------------------------------------------
    @property
    def reaction_policy(self) -> ReactionPolicy | None:
        """The opt-in chooser of immediate actions off-turn (:mod:`engine.readiness`)."""
        return self._reaction_policy

    @reaction_policy.setter
    def reaction_policy(self, policy: ReactionPolicy | None) -> None:
        self._reaction_policy = policy
        if policy is None:
            self.fight.react = None
            return

        def react(actor: CombatantState, event: ReactionEvent) -> Action | None:
            return policy.react(self.observe(actor), event)

        self.fight.react = react

    def policy_for(self, actor: CombatantState) -> Policy:
        if callable(self._policies):
            return self._policies(actor)
        return self._policies[actor.side]

    # -- fight ----------------------------------------------------------------
    def roll_initiative(self) -> None:
        fight = self.fight
        for c in self.combatants:
            mod = c.profile.spec.initiative_mod
            rec = check(
                fight.rng,
                D20_PLAIN,
                CheckKind.INITIATIVE,
                (Modifier(mod, "initiative"),),
                None,
            )
            c.initiative = rec.total
            c.init_key = float(rec.total)
            c.initiative_roll = rec
            fight.raw(f"initiative : {c.id} d20={rec.natural}{mod:+d}={rec.total}", rec)
        self._sort_order()

    def _sort_order(self) -> None:
        self.fight.order = sorted(
            self.combatants,
            key=lambda c: (-c.init_key, -c.profile.spec.initiative_mod, c.index),
        )

    def _delay(self, actor: CombatantState, queue: list[CombatantState], done: int) -> None:
        """Re-insert a delaying ``actor`` in this round's ``queue`` (``done``
        turns already played): just before the named combatant if it has not
        acted yet, else at the end. Its new initiative is the count it acted on
        (SRD « Delay »): the target's + 0.5, so it stays just before it in later
        rounds (the seed wrote − 0.5, which would put it after), or the lowest
        − 0.5 at the end of the round."""
        target = self._target(actor, self._delay_target)
        if target is not None and target is not actor and target in queue[done:]:
            actor.init_key = target.init_key + 0.5
            queue.insert(queue.index(target, done), actor)
        else:
            actor.init_key = min(c.init_key for c in self.combatants) - 0.5
            queue.append(actor)

    def _play_round(self, surprise: bool = False) -> bool:
        """Every turn of one round in initiative order; returns whether the fight ended."""
        fight = self.fight
        queue = list(fight.order)
        done = 0
        while done < len(queue):
            actor = queue[done]
            done += 1
            if actor.dead:
                continue
            if actor.hp < 0:
                if not actor.stable and not surprise:
                    self._dying_turn(actor)
                continue
            if not actor.active:  # unconscious from nonlethal damage
                continue
            if surprise and not actor.aware:
                fight.note(actor, "surpris : ne peut pas agir")
                continue
            if actor.ready_spent_round == fight.round:  # SRD « Ready »
                fight.note(actor, "a déjà agi ce round (action préparée)")
                continue
            self._delay_target = None
            if self.take_turn(actor):
                self._delay(actor, queue, done)
            if fight.is_over():
                return True
        return False

    def surprise_round(self) -> bool:
        """SRD « Surprise »: when some active combatants are aware of their
        opponents and others are not, round 0 comes first: the aware act (one
        standard or move action), the unaware lose their turn. Returns whether
        the fight ended in it."""
        fight = self.fight
        awake = [c.aware for c in self.combatants if c.active]
        if all(awake) or not any(awake):
            return False
        fight.round = 0
        fight.raw("round de surprise")
        return self._play_round(surprise=True)

    def run(self) -> FightResult:
        fight = self.fight
        self.roll_initiative()
        winner: str | None = None
        over = self.surprise_round() or fight.is_over()
        while not over and fight.round < self.round_cap:
            fight.round += 1
            delays = False
            for c in self.combatants:
                c.aoo_used = 0
                delays = delays or c.delayed
                c.delayed = False
                if c.provoked_by:
                    c.provoked_by.clear()
            if delays or fight.reorder:
                fight.reorder = False
                self._sort_order()
            over = self._play_round()
        standing = fight.sides_standing()
        rnd = fight.round
        unit = "rounds" if rnd > 1 else "round"
        if over and len(standing) == 1:
            winner = standing[0]
            fight.raw(f"combat terminé : victoire de {winner} en {rnd} {unit}")
        elif over:
            fight.raw(f"combat terminé : nul, tous les camps sont hors de combat en {rnd} {unit}")
        else:
            fight.raw(f"combat terminé : nul (plafond de {self.round_cap} {unit} atteint)")
        return FightResult(
            winner,
            rnd,
            tuple(self.combatants),
            tuple(fight.log) if fight.log is not None else None,
        )

    def _dying_turn(self, actor: CombatantState) -> None:
        fight = self.fight
        rec = stabilization_check(fight.rng, actor)
        if fight.log is not None:
            text = f"stabilisation {rec.explain('DD')}"
            if rec.success:
                text += " : stable"
            elif actor.dead:
                text += " : meurt"
            else:
                text += f" : perd 1 pv ({actor.hp} pv)"
            fight.note(actor, text, rec)

    # -- observation ------------------------------------------------------------
    def observe(self, actor: CombatantState) -> Observation:
        fight = self.fight
        views = self._views
        w = self.gmap.width
        snapshot = tuple(
            [
                CombatantView(
                    views[c.id],
                    c.id,
                    c.side,
                    c.pos,
                    c.hp,
                    c.dead,
                    c.stable,
                    c.charging,
                    c.initiative,
                    w,
                    c.profile.aoo_per_round - c.aoo_used,
                    c.nonlethal,
                    c.defense_ac_bonus,
                    c.aware,
                    c.prone,
                    c.running,
                    c.delayed,
                    tuple(sorted(c.hidden_from)) if c.hidden_from else (),
                    weapon_broken=c.weapon_broken,
                )
                for c in self.combatants
            ]
        )
        if fight.readiness_used:
            fill_readiness(snapshot, self.combatants, fight.round)
        return Observation(
            gmap=self.gmap,
            round=fight.round,
            acting_id=actor.id,
            initiative_order=self._order_ids(fight.order),
            combatants=snapshot,
            last_turn_results=actor.last_results,
            menu=legal_options,
            fight_key=self.fight_key,
            simple_space=fight.simple_space,
        )

    def _order_ids(self, order: list[CombatantState]) -> tuple[str, ...]:
        """The ids of ``order``, computed again only when the order list is replaced
        (every sort makes a new one)."""
        if order is not self._order_of:
            self._order_of = order
            self._order_id_tuple = tuple([c.id for c in order])
        return self._order_id_tuple

    # -- turn -----------------------------------------------------------------
    def take_turn(self, actor: CombatantState) -> bool:
        """Play one turn; returns whether the actor delayed it (see :meth:`_delay`)."""
        fight = self.fight
        actor.charging = False
        actor.moved_this_turn = False
        actor.defense_ac_bonus = 0
        actor.fighting_defensively = False
        actor.running = False
        actor.swift_used_this_turn = False
        actor.has_acted = True  # no longer flat-footed
        fight.acting = actor
        if fight.readiness_used:
            readiness.turn_starts(self.fight, actor)
        obs = self.observe(actor)
        policy = self.policy_for(actor)
        plan = policy.decide(obs)
        if fight.log is not None and plan.rationale and getattr(policy, "explain", False):
            fight.note(actor, f"raisonnement : {plan.rationale}")
        actions = plan.actions
        surprise = fight.round == 0
        if surprise:  # SRD « Surprise »: a full attack becomes one attack
            actions = tuple(
                AttackAction(target_id=a.target_id, weapon_id=a.weapon_id)
                if isinstance(a, FullAttackAction)
                else a
                for a in actions
            )
        kept, results = filter_plan(
            actions,
            staggered=actor.staggered,
            surprise=surprise,
            swift_available=not actor.immediate_used,
        )
        out: list[ActionResult] = []
        delayed = False
        for action, keep, dropped in zip(actions, kept, results, strict=True):
            if delayed:  # SRD « Delay »: the rest of the turn is lost
                break
            if not keep:
                assert dropped is not None
                out.append(dropped)
                if fight.log is not None:
                    fight.note(actor, f"action refusée : {action.kind} ({dropped.reason})")
                continue
            if not actor.active:
                out.append(ActionResult(action.kind, False, Reason.ACTOR_DOWN))
                continue
            was_disabled = actor.disabled
            if isinstance(action, DelayAction):
                result = self._do_delay(actor, action, first=not out)
                delayed = result.ok
                out.append(result)
                if not result.ok and fight.log is not None:
                    fight.note(actor, f"action sans effet : delay ({result.reason})")
                continue
            result = self.dispatch(actor, action)
            out.append(result)
            if not result.ok and fight.log is not None:
                fight.note(actor, f"action sans effet : {action.kind} ({result.reason})")
            if (
                result.ok
                and was_disabled
                and actor.hp == 0
                and (SLOT_OF_KIND[action.kind] is Slot.STANDARD or action.kind == "withdraw")
            ):
                lose_hp(actor, 1)
                if fight.log is not None:
                    fight.note(actor, "s'épuise en agissant : -1 pv")
                    fight.state_change(actor)
        actor.last_results = tuple(out)
        fight.acting = None
        if not delayed:  # SRD « Immediate Actions »: blocked until after this turn
            actor.immediate_used = False
        return delayed

    def _do_delay(self, actor: CombatantState, action: DelayAction, *, first: bool) -> ActionResult:
        """SRD « Delay »: act later this round — before ``target_id`` if it has not
        acted yet, else at the end. Only as the first action of a turn; once per
        round."""
        if actor.delayed:
            return ActionResult("delay", False, Reason.ALREADY_DELAYED)
        if not first:
            return ActionResult("delay", False, Reason.DOWNGRADED_ACTION_ECONOMY)
        actor.delayed = True
        self._delay_target = action.target_id
        where = f"avant {action.target_id}" if action.target_id else "en fin de round"
        self.fight.note(actor, f"retarde son tour ({where})")
        return ActionResult("delay", True, Reason.DELAYED)

    def dispatch(self, actor: CombatantState, action: Action) -> ActionResult:
        if action.kind not in IMPLEMENTED_KINDS:
            return ActionResult(action.kind, False, Reason.UNSUPPORTED_KIND)
        if actor.prone and action.kind in MOVEMENT_KINDS:
            return ActionResult(action.kind, False, Reason.PRONE)
        if isinstance(action, (AttackAction, FullAttackAction)):
            return self._do_attack(actor, action)
        if isinstance(action, MoveAction):
            return self._do_move(actor, action)
        if isinstance(action, FiveFootStepAction):
            return self._do_step(actor, action)
        if isinstance(action, ChargeAction):
            return self._do_charge(actor, action)
        if isinstance(action, WithdrawAction):
            return self._do_withdraw(actor)
        if isinstance(action, RunAction):
            return self._do_run(actor, action)
        if isinstance(action, ReadyAction):
            return readiness.do_ready(self.fight, actor, action)
        if isinstance(action, AidAnotherAction):
            return readiness.do_aid(self.fight, actor, action)
        if isinstance(action, ImmediateAction):
            return readiness.do_immediate(self.fight, actor)
        if isinstance(action, HideAction):
            return hide(self.fight, actor)
        if isinstance(action, DropProneAction):
            if actor.prone:
                return ActionResult("drop_prone", False, Reason.ALREADY_PRONE)
            actor.prone = True
            self.fight.note(actor, "se jette à terre")
            return ActionResult("drop_prone", True)
        if isinstance(action, StandUpAction):
            if not actor.prone:
                return ActionResult("stand_up", False, Reason.NOT_PRONE)
            # SRD: standing up provokes; the attacks land while it is still prone
            if self._threat_possible(actor, movement=False):
                provoke(self.fight, actor, actor.pos, movement=False, why=STANDS)
            if actor.active:
                actor.prone = False
                self.fight.note(actor, "se relève")
            return ActionResult("stand_up", True)
        if isinstance(action, TotalDefenseAction):
            actor.defense_ac_bonus = TOTAL_DEFENSE_AC
            self.fight.note(actor, f"défense totale (+{TOTAL_DEFENSE_AC} CA)")
            return ActionResult("total_defense", True)
        if isinstance(action, RepairWeaponAction):
            return repair_weapon(self.fight, actor, action)
        if isinstance(action, FightDefensivelyAction):
            actor.fighting_defensively = True
            actor.defense_ac_bonus = max(actor.defense_ac_bonus, FIGHT_DEFENSIVELY_AC)
            self.fight.note(
                actor,
                f"combat sur la défensive ({FIGHT_DEFENSIVELY_PENALTY} à l'attaque, "
                f"+{FIGHT_DEFENSIVELY_AC} CA)",
            )
            return ActionResult("fight_defensively", True)
        return ActionResult(action.kind, True)  # wait

    def _target(self, actor: CombatantState, target_id: str | None) -> CombatantState | None:
        if target_id is None:
            return None
        return self.by_id.get(target_id)

    def _choose_weapon(
        self, actor: CombatantState, target: CombatantState, weapon_id: str | None
    ) -> tuple[AttackProfile | None, str | None]:
        if weapon_id is None:
            return weapon_for(
                self.gmap, actor.pos, target.pos, actor.attacks, ks=actor.space, kt=target.space
            )
        for attack in actor.attacks:
            if attack.id == weapon_id:
                if (
                    attack_reason(
                        self.gmap, actor.pos, target.pos, attack, actor.space, target.space
                    )
                    is None
                ):
                    return attack, None
                break
        return None, Reason.WEAPON_UNAVAILABLE

    def _do_attack(
        self, actor: CombatantState, action: AttackAction | FullAttackAction
    ) -> ActionResult:
        target = self._target(actor, action.target_id)
        if target is None:
            return ActionResult(action.kind, False, Reason.MISSING_TARGET)
        if not target.active:
            return ActionResult(action.kind, False, Reason.TARGET_DOWN)
        attack, reason = self._choose_weapon(actor, target, action.weapon_id)
        if attack is None:
            return ActionResult(action.kind, False, reason)
        swings: list[tuple[AttackProfile, int]]
        if action.kind == "full_attack" and attack.natural:
            # SRD « Natural Attacks »: a full attack uses every natural weapon
            # (those that can reach this target), each once, never iteratives.
            swings = [
                (a, 0)
                for a in actor.attacks
                if a.natural
                and (
                    a is attack
                    or attack_reason(self.gmap, actor.pos, target.pos, a, actor.space, target.space)
                    is None
                )
            ]
        elif action.kind == "full_attack":
            swings = [(attack, p) for p in iterative_penalties(actor.profile.spec.bab, attack)]
        else:
            swings = [(attack, 0)]
        fight = self.fight
        for weapon, pen in swings:
            for _ in range(weapon.count):
                # a misfire breaks the firearm: its remaining shots are lost
                if not target.active or not actor.active or weapon.id in actor.weapon_broken:
                    break
                if not weapon.is_melee and self._threat_possible(actor, movement=False):
                    provoke(fight, actor, actor.pos, movement=False)
                    if not actor.active:
                        break
                swing = resolve_swing(fight, actor, target, weapon, iterative=pen)
                spec = weapon.spec
                if (
                    swing is not None
                    and not weapon.is_melee
                    and (spec.firearm or spec.splash is not None)
                ):
                    after_swing(fight, actor, target, weapon, swing)
        return ActionResult(action.kind, True)

    def _walk(
        self,
        actor: CombatantState,
        cells: tuple[Cell, ...],
        label: str,
        *,
        provokes: bool = True,
        safe_start: bool = False,
        tumble: Tumble | None = None,
    ) -> bool:
        """Move ``actor`` square by square along ``cells``.

        Leaving a threatened square provokes attacks of opportunity (unless
        ``provokes`` is false: a 5-foot step; ``safe_start``: a withdraw's first
        square); a ``tumble`` tests Acrobatics instead and stops the walk on a
        failure. The trail is written up to each interruption. Returns whether
        the actor is still active (it stops where it fell). Afterwards, hidden
        creatures' Stealth is re-judged (:func:`engine.stealth.after_move`).
        """
        fight = self.fight
        if not cells:
            return actor.active
        actor.moved_this_turn = True
        trail = [actor.pos]
        moved = False
        for i, cell in enumerate(cells):
            if provokes and not (safe_start and i == 0) and self._threat_possible(actor):
                if fight.log is not None and len(trail) > 1:
                    fight.note(actor, f"{label} {'->'.join(fight.fmt(c) for c in trail)}")
                    trail = [actor.pos]
                if tumble is not None:
                    if not tumble.leave(self.fight, actor):
                        break
                else:
                    provoke(self.fight, actor, actor.pos, movement=True)
                if not actor.active:
                    return False
            if actor.profile.very_small and provokes and self._enemy_on(actor, cell):
                # SRD: a very small creature entering a bigger enemy's square provokes
                if fight.log is not None and len(trail) > 1:
                    fight.note(actor, f"{label} {'->'.join(fight.fmt(c) for c in trail)}")
                    trail = [actor.pos]
                provoke_entering(self.fight, actor, cell)
                if not actor.active:
                    return False
            actor.pos = cell
            moved = True
            trail.append(cell)
            if fight.watching:

                def flush() -> None:
                    nonlocal trail
                    if fight.log is not None and len(trail) > 1:
                        fight.note(actor, f"{label} {'->'.join(fight.fmt(c) for c in trail)}")
                    trail = [actor.pos]

                readiness.on_step(self.fight, actor, flush)
                if not actor.active:  # SRD « Ready »: it falls where it was stopped
                    return False
        if fight.log is not None and len(trail) > 1:
            fight.note(actor, f"{label} {'->'.join(fight.fmt(c) for c in trail)}")
        if not actor.active:
            return False
        # (a tumble stopped on its first square did not move: nothing to re-judge)
        if moved and any(c.hidden_from for c in self.combatants):
            after_move(self.fight, actor)
        return True

    def _enemy_on(self, actor: CombatantState, cell: Cell) -> bool:
        """Some active enemy's space covers ``cell``."""
        gmap = self.gmap
        for c in self.combatants:
            if c.active and c.side != actor.side:
                if c.profile.space == 1:
                    if c.pos == cell:
                        return True
                elif cell in footprint(gmap, c.pos, c.profile.space):
                    return True
        return False

    def _threat_possible(self, actor: CombatantState, *, movement: bool = True) -> bool:
        """Cheap pre-check: some enemy with an AoO left threatens the actor's square
        (and, for movement, was not provoked by this actor's movement this round)."""
        gmap = self.gmap
        pos = actor.pos
        w = gmap.width
        pr, pc = divmod(pos, w)
        side = actor.side
        km = actor.profile.space
        for enemy in self.combatants:
            prof = enemy.profile
            reach = prof.threat_reach_ft
            if reach == 0 or enemy.side == side or not enemy.active:
                continue
            ep = enemy.pos
            ke = prof.space
            # cheap necessary condition first (see engine.attack.may_threaten)
            if ke == 1 and km == 1:
                if 5 * max(abs(ep // w - pr), abs(ep % w - pc)) > reach:
                    continue
            elif not may_threaten(gmap, ep, pos, reach, ke, km):
                continue
            if enemy.aoo_used >= prof.aoo_per_round or (movement and enemy.id in actor.provoked_by):
                continue
            if threat_weapon(gmap, ep, pos, enemy.attacks, ke, km) is not None:
                return True
        return False

    def _do_move(self, actor: CombatantState, action: MoveAction) -> ActionResult:
        fight = self.fight
        speed = actor.speed_ft
        tumble: Tumble | None = None
        label = "déplacement"
        if action.tumble:
            # SRD « Acrobatics »: trained only here (seed §3.34), at half speed
            if not trained(actor.profile, "Acrobatics"):
                return ActionResult("move", False, Reason.UNTRAINED_TUMBLE)
            speed = (speed // 10) * 5
            tumble = Tumble()
            label = "déplacement acrobatique"
        budget = speed // 5
        occupied = fight.occupied_for(actor)
        hostile = fight.hostile_for(actor)
        if action.destination is not None:
            r, c = action.destination
            if not self.gmap.in_bounds(r, c):
                return ActionResult("move", False, Reason.UNREACHABLE_DESTINATION)
            path = path_to_destination(
                self.gmap,
                actor.pos,
                self.gmap.cell(r, c),
                budget,
                occupied=occupied,
                hostile=hostile,
                k=actor.space,
            )
            if path is None:
                return ActionResult("move", False, Reason.UNREACHABLE_DESTINATION)
            self._walk(actor, path.cells, label, tumble=tumble)
            return ActionResult("move", True)
        target = self._target(actor, action.target_id)
        if target is None:
            return ActionResult("move", False, Reason.MISSING_TARGET)
        walked = move_toward(
            self.gmap,
            actor.pos,
            target.pos,
            actor.attacks,
            speed,
            occupied=occupied,
            hostile=hostile,
            k=actor.space,
            kt=target.space,
        )
        self._walk(actor, walked.cells, label, tumble=tumble)
        return ActionResult("move", True)

    def _do_step(self, actor: CombatantState, action: FiveFootStepAction) -> ActionResult:
        occupied = self.fight.occupied_for(actor)
        if actor.speed_ft <= 5:
            return ActionResult("5foot_step", False, Reason.UNREACHABLE_DESTINATION)
        if action.destination is not None:
            r, c = action.destination
            if not self.gmap.in_bounds(r, c):
                return ActionResult("5foot_step", False, Reason.UNREACHABLE_DESTINATION)
            dest = self.gmap.cell(r, c)
            if not step_allowed(self.gmap, actor.pos, dest, occupied, actor.space):
                return ActionResult("5foot_step", False, Reason.UNREACHABLE_DESTINATION)
        else:
            target = self._target(actor, action.target_id) or self._nearest_enemy(actor)
            if target is None:
                return ActionResult("5foot_step", False, Reason.MISSING_TARGET)
            step, _ = step_toward(
                self.gmap, actor.pos, target.pos, actor.attacks, occupied, actor.space, target.space
            )
            if step is None:
                return ActionResult("5foot_step", False, Reason.UNREACHABLE_DESTINATION)
            dest = step
        self._walk(actor, (dest,), "pas de placement", provokes=False)
        return ActionResult("5foot_step", True)

    def _nearest_enemy(self, actor: CombatantState) -> CombatantState | None:
        best: tuple[int, int] | None = None
        found: CombatantState | None = None
        for c in self.combatants:
            if c.active and c.side != actor.side:
                key = (self._dist(actor, c), c.index)
                if best is None or key < best:
                    best, found = key, c
        return found

    def _dist(self, a: CombatantState, b: CombatantState) -> int:
        if a.profile.space != 1 or b.profile.space != 1:
            return body_distance_squares(self.gmap, a.pos, a.space, b.pos, b.space)
        w = self.gmap.width
        dr = abs(a.pos // w - b.pos // w)
        dc = abs(a.pos % w - b.pos % w)
        return max(dr, dc) + min(dr, dc) // 2

    def _do_charge(self, actor: CombatantState, action: ChargeAction) -> ActionResult:
        target = self._target(actor, action.target_id)
        if target is None:
            return ActionResult("charge", False, Reason.MISSING_TARGET)
        if not target.active:
            return ActionResult("charge", False, Reason.TARGET_DOWN)
        attacks = actor.attacks
        if action.weapon_id is not None:
            attacks = tuple(a for a in attacks if a.id == action.weapon_id and a.is_melee)
            if not attacks:
                return ActionResult("charge", False, Reason.WEAPON_UNAVAILABLE)
        res = charge_path(
            self.gmap,
            actor.pos,
            target.pos,
            attacks,
            actor.speed_ft,
            self.fight.occupied_for(actor),
            actor.space,
            target.space,
        )
        if not res.ok or res.path is None or res.attack is None:
            return ActionResult("charge", False, res.reason)
        reveal(self.fight, actor, "charge")  # SRD « Stealth »: charging breaks it
        if not self._walk(actor, res.path.cells, "charge"):
            return ActionResult("charge", True)  # fell to an attack of opportunity
        actor.charging = True
        if target.active:
            resolve_swing(self.fight, actor, target, res.attack, charge=True)
        return ActionResult("charge", True)

    def _do_run(self, actor: CombatantState, action: RunAction) -> ActionResult:
        fight = self.fight
        occupied = fight.occupied_for(actor)
        hostile = fight.hostile_for(actor)
        if action.destination is not None:
            r, c = action.destination
            if not self.gmap.in_bounds(r, c):
                return ActionResult("run", False, Reason.UNREACHABLE_DESTINATION)
            dest = self.gmap.cell(r, c)
            path = run_path(
                self.gmap,
                actor.pos,
                dest,
                actor.speed_ft,
                occupied=occupied,
                hostile=hostile,
                k=actor.space,
            )
            if not path.cells or path.cells[-1] != dest:
                return ActionResult("run", False, Reason.UNREACHABLE_DESTINATION)
        else:
            target = self._target(actor, action.target_id)
            if target is None:
                return ActionResult("run", False, Reason.MISSING_TARGET)
            path = run_path(
                self.gmap,
                actor.pos,
                target.pos,
                actor.speed_ft,
                occupied=occupied,
                hostile=hostile,
                k=actor.space,
            )
        refused = readiness.run_endurance(self.fight, actor)
        if refused is not None:
            return refused
        actor.running = True  # a run that moves nowhere still counts (SRD: it ran)
        reveal(self.fight, actor, "course")  # SRD « Stealth »: running breaks it
        self._walk(actor, path.cells, "course")
        return ActionResult("run", True)

    def _do_withdraw(self, actor: CombatantState) -> ActionResult:
        fight = self.fight
        enemies = fight.hostile_cells(actor)
        # Restricted withdraw (SRD): a creature limited to one action (disabled)
        # withdraws as a standard action, up to its (halved) speed instead of 2×.
        path = withdraw_path(
            self.gmap,
            actor.pos,
            enemies,
            actor.speed_ft,
            fight.occupied_for(actor),
            restricted=actor.staggered,
            k=actor.space,
        )
        # SRD « Withdraw »: the starting square is not threatened
        self._walk(actor, path.cells, "retraite", safe_start=True)
        return ActionResult("withdraw", True)
