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
from functools import partial
from typing import Any, Protocol

from engine.content.actions import (
    Action,
    ActionResult,
    AttackAction,
    DelayAction,
    FullAttackAction,
    Reason,
    Slot,
    TurnPlan,
    succeeded,
)
from engine.content.maps import GameMap
from engine.content.packs import D20_PLAIN
from engine.core.checks import CheckKind, Modifier, check
from engine.core.events import (
    ActionFailed,
    Delayed,
    Event,
    FightEnd,
    FightEndKind,
    Initiative,
    Rationale,
    Skipped,
    Strained,
    SurpriseRound,
)
from engine.core.rng import Rng
from engine.rules import readiness
from engine.rules.auras import aura_turn
from engine.rules.casting import finish_cast
from engine.rules.confusion import confused_turn
from engine.rules.economy import filter_plan
from engine.rules.endings import escape_slot, turn_end
from engine.rules.fleeing import flee_turn
from engine.rules.life import dying_turn, lose_hp
from engine.rules.recurring import recurring_turn
from engine.rules.saves import initiative_modifiers
from engine.rules.status import (
    GATED,
    bleed_turn,
    blocking_condition,
    gate,
    log_expired,
    lose_turn,
)
from engine.rules.table import ACTIONS
from engine.state.conditions import CANT_ACT, CONFUSED, FLEES, ONE_MOVE, STAGGERED
from engine.state.effects import SIZE, Cond, Moment, tick
from engine.state.fight import FightState, ReactionEvent
from engine.state.state import CombatantState
from engine.view.observation import Observation
from engine.view.options import legal_options
from engine.view.snapshot import ProfileView, build_views, fill_readiness

_PRONE = Cond.PRONE.value
_SIZE = SIZE
#: the moments of a turn (module constants: an enum member is slow to read)
_TURN_START, _TURN_END = Moment.TURN_START, Moment.TURN_END
_BLEEDING = Cond.BLEEDING.value
#: the conditions that act at the start of a turn (bleeding, cannot act, confused, fleeing)
_AT_START = _BLEEDING | CANT_ACT | CONFUSED | FLEES
#: the conditions that narrow the action budget
_BUDGET = ONE_MOVE | STAGGERED


class Policy(Protocol):
    """Anything that turns an Observation into a turn plan."""

    def decide(self, obs: Observation) -> TurnPlan: ...


class ReactionPolicy(Protocol):
    """Chooses a combatant's immediate action when an event happens (opt-in,
    see :mod:`engine.rules.readiness`)."""

    def react(self, obs: Observation, event: ReactionEvent) -> Action | None:
        """``None`` to let the event pass; otherwise an :class:`ImmediateAction`."""
        ...


@dataclass(frozen=True, slots=True)
class FightResult:
    """Outcome of one fight."""

    winner: str | None
    rounds: int
    combatants: tuple[CombatantState, ...]
    #: the transcript's events (:mod:`engine.core.events`), ``None`` when none was kept
    log: tuple[Event, ...] | None


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
        self._views = {c.id: ProfileView(c.id, c.side, c.profile, c.casting) for c in combatants}
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
        """The opt-in chooser of immediate actions off-turn (:mod:`engine.rules.readiness`)."""
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
            mods: tuple[Modifier, ...] = (Modifier(mod, "initiative"),)
            if c.effects.items:  # a starting condition (deafened: −4), a lowered Dex
                mods += initiative_modifiers(c)
            rec = check(fight.rng, D20_PLAIN, CheckKind.INITIATIVE, mods, None)
            c.initiative = rec.total
            c.init_key = float(rec.total)
            c.initiative_roll = rec
            if fight.log is not None:
                fight.log.append(Initiative(None, None, c.id, rec, mod))
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
        target = self.fight.target(self._delay_target)
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
            if actor.recurring and not actor.turn_started:  # SRD « Acid Arrow »
                recurring_turn(fight, actor)
                if fight.is_over():
                    return True
            if actor.dead:
                if actor.effects.timers:
                    self._idle(actor)
                continue
            if actor.hp < 0:
                if not actor.stable and not surprise:
                    if actor.effects.timers:
                        self._tick(actor, _TURN_START)
                    dying_turn(fight, actor)
                    if actor.effects.timers:
                        self._tick(actor, _TURN_END)
                elif actor.effects.timers:
                    self._idle(actor)
                continue
            if not actor.active:  # unconscious from nonlethal damage
                if actor.effects.timers:
                    self._idle(actor)
                continue
            if surprise and not actor.aware:
                if fight.log is not None:
                    fight.log.append(Skipped(fight.round, actor.id, "surprised"))
                if actor.effects.timers:
                    self._idle(actor)
                continue
            if actor.ready_spent_round == fight.round:  # SRD « Ready »
                if fight.log is not None:
                    fight.log.append(Skipped(fight.round, actor.id, "ready_spent"))
                if actor.effects.timers:
                    self._idle(actor)
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
        if fight.log is not None:
            fight.log.append(SurpriseRound(None, None))
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
        kind: FightEndKind
        if over and len(standing) == 1:
            winner = standing[0]
            kind = "victory"
        else:
            kind = "all_down" if over else "round_cap"
        if fight.log is not None:
            fight.log.append(FightEnd(None, None, kind, winner, rnd, self.round_cap))
        return FightResult(
            winner,
            rnd,
            tuple(self.combatants),
            tuple(fight.log) if fight.log is not None else None,
        )

    # -- observation ------------------------------------------------------------
    def observe(self, actor: CombatantState) -> Observation:
        fight = self.fight
        if fight.resized:  # a spell changed a size: the views read the new profile
            self._follow_profiles()
        snapshot = build_views(self._views, self.gmap.width, self.combatants)
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

    def _follow_profiles(self) -> None:
        views = self._views
        for c in self.combatants:
            if views[c.id].profile is not c.profile:
                views[c.id] = ProfileView(c.id, c.side, c.profile, c.casting)

    def _order_ids(self, order: list[CombatantState]) -> tuple[str, ...]:
        """The ids of ``order``, computed again only when the order list is replaced
        (every sort makes a new one)."""
        if order is not self._order_of:
            self._order_of = order
            self._order_id_tuple = tuple([c.id for c in order])
        return self._order_id_tuple

    # -- turn -----------------------------------------------------------------
    def _tick(self, actor: CombatantState, moment: Moment) -> None:
        """``moment`` of ``actor``'s turn: the one duration mechanism
        (:mod:`engine.state.effects`); the conditions that end are logged. (Callers
        test ``actor.effects.timers`` first: most turns have none.)"""
        ended = tick(actor, moment)
        if ended:
            fight = self.fight
            if fight.log is not None:
                log_expired(fight, ended)  # type: ignore[arg-type]
            if fight.resized:  # a size spell that ends gives the creature its size back
                for holder, effect in ended:
                    if isinstance(holder, CombatantState) and any(
                        stat == _SIZE for stat, _ in effect.mods
                    ):
                        holder.resize()

    def _idle(self, actor: CombatantState) -> None:
        """A turn that does not happen (dead, unconscious, surprised…) still counts
        the durations kept on ``actor``'s turns (SRD « Duration »: rounds pass at
        its initiative count)."""
        self._tick(actor, _TURN_START)
        self._tick(actor, _TURN_END)

    def _turn_start(self, actor: CombatantState) -> bool:
        """What the conditions of ``actor`` do as its turn starts (once per turn: a
        delayed turn does not replay it); returns whether that was its whole turn,
        which it then ends."""
        fight = self.fight
        fight.acting = actor
        over = self._start_conditions(actor)
        fight.acting = None
        if over:
            actor.has_acted = True
            actor.last_results = ()
            actor.turn_started = False
            actor.immediate_used = False
            if actor.endings:  # a new save each round (hold person: the lost turn)
                turn_end(fight, actor)
            if actor.effects.timers:
                self._tick(actor, _TURN_END)
        return over

    def _finish_cast(self, actor: CombatantState) -> bool:
        """A one-round spell begun on its last turn takes effect as ``actor``'s turn
        starts (:func:`engine.rules.casting.finish_cast`); returns whether the fight
        ended with it, which then ends the turn."""
        fight = self.fight
        fight.acting = actor
        finish_cast(fight, actor)
        fight.acting = None
        if not fight.is_over():
            return False
        actor.has_acted = True
        actor.last_results = ()
        actor.turn_started = False
        actor.immediate_used = False
        if actor.effects.timers:
            self._tick(actor, _TURN_END)
        return True

    def _start_conditions(self, actor: CombatantState) -> bool:
        fight = self.fight
        if actor.effects.cond & _BLEEDING:  # SRD « Bleed »: before anything else
            bleed_turn(fight, actor)
            if not actor.active:
                return True
        blocked = blocking_condition(actor)
        if blocked is not None:
            lose_turn(fight, actor, blocked)
            return True
        if actor.effects.cond & CONFUSED and confused_turn(fight, actor):
            return True
        if actor.effects.cond & FLEES:  # SRD « Frightened », « Panicked »
            return flee_turn(fight, actor)
        return False

    def take_turn(self, actor: CombatantState) -> bool:
        """Play one turn; returns whether the actor delayed it (see :meth:`_delay`)."""
        fight = self.fight
        casting = actor.casting
        if not actor.turn_started:  # (a delayed turn does not start again)
            actor.turn_started = True
            if actor.effects.timers:
                self._tick(actor, _TURN_START)
            if actor.profile.auras:  # (a plain fight pays this one test)
                aura_turn(fight, actor)
            if casting is not None and casting.pending is not None and self._finish_cast(actor):
                return False
            if actor.effects.cond & _AT_START and self._turn_start(actor):
                return False
        actor.moved_this_turn = False
        actor.swift_used_this_turn = False
        actor.has_acted = True  # no longer flat-footed
        fight.acting = actor
        if fight.readiness_used:
            readiness.turn_starts(self.fight, actor)
        obs = self.observe(actor)
        policy = self.policy_for(actor)
        plan = policy.decide(obs)
        if fight.log is not None and plan.rationale and getattr(policy, "explain", False):
            fight.log.append(Rationale(fight.round, actor.id, plan.rationale))
        actions = plan.actions
        surprise = fight.round == 0
        if surprise:  # SRD « Surprise »: a full attack becomes one attack
            actions = tuple(
                AttackAction(target_id=a.target_id, weapon_id=a.weapon_id)
                if isinstance(a, FullAttackAction)
                else a
                for a in actions
            )
        budget = actor.effects.cond & _BUDGET
        if budget:  # SRD « Staggered », « Nauseated »
            kept, results = filter_plan(
                actions,
                staggered=actor.staggered or bool(budget & STAGGERED),
                surprise=surprise,
                swift_available=not actor.immediate_used,
                nauseated=bool(budget & ONE_MOVE),
                cast_slot=casting.slot_of if casting is not None else None,
                escape_slot=partial(escape_slot, actor) if actor.endings else None,
            )
        elif casting is None and not actor.endings:
            kept, results = filter_plan(
                actions,
                staggered=actor.staggered,
                surprise=surprise,
                swift_available=not actor.immediate_used,
            )
        else:  # a cast's slot is its casting time, an escape's its spell's
            kept, results = filter_plan(
                actions,
                staggered=actor.staggered,
                surprise=surprise,
                swift_available=not actor.immediate_used,
                cast_slot=casting.slot_of if casting is not None else None,
                escape_slot=partial(escape_slot, actor) if actor.endings else None,
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
                    fight.log.append(
                        ActionFailed(fight.round, actor.id, action.kind, str(dropped.reason), True)
                    )
                continue
            if not actor.active:
                out.append(ActionResult(action.kind, False, Reason.ACTOR_DOWN))
                continue
            was_disabled = actor.disabled
            result = self.dispatch(actor, action, first=not out)
            out.append(result)
            if not result.ok and fight.log is not None:
                fight.log.append(
                    ActionFailed(fight.round, actor.id, action.kind, str(result.reason), False)
                )
            if action.kind == "delay":
                delayed = result.ok
            elif (
                result.ok
                and was_disabled
                and actor.hp == 0
                and ACTIONS[action.kind].one_action_slot is Slot.STANDARD
            ):
                lose_hp(actor, 1)
                if fight.log is not None:
                    fight.log.append(Strained(fight.round, actor.id))
                    fight.state_change(actor)
        actor.last_results = tuple(out)
        fight.acting = None
        if not delayed:  # SRD « Immediate Actions »: blocked until after this turn
            actor.immediate_used = False
            actor.turn_started = False
            if actor.endings:  # a new save at the end of its turn (glitterdust)
                turn_end(fight, actor)
            if actor.effects.timers:
                self._tick(actor, _TURN_END)
        return delayed

    def _do_delay(self, actor: CombatantState, plan: DelayAction, *, first: bool) -> ActionResult:
        """SRD « Delay »: act later this round — before ``target_id`` if it has not
        acted yet, else at the end. Once per round (:func:`engine.rules.table.verify_delay`),
        and only as the first action of a turn."""
        if not first:
            return ActionResult("delay", False, Reason.DOWNGRADED_ACTION_ECONOMY)
        actor.delayed = True
        self._delay_target = plan.target_id
        fight = self.fight
        if fight.log is not None:
            fight.log.append(Delayed(fight.round, actor.id, plan.target_id))
        return succeeded("delay", Reason.DELAYED)

    def dispatch(
        self, actor: CombatantState, action: Action, *, first: bool = True
    ) -> ActionResult:
        """Resolve one action of ``actor`` through its row of :data:`engine.rules.table.ACTIONS`:
        ``verify`` it on the fight, then ``do`` its plan. A kind without a rule is
        ``unsupported_kind``; a prone creature does not move (``prone``: crawling is
        not modelled). ``first``: no other action of the turn came before (a delay
        needs it)."""
        row = ACTIONS.get(action.kind)
        if row is None or row.verify is None:
            return ActionResult(action.kind, False, Reason.UNSUPPORTED_KIND)
        cond = actor.effects.cond
        if row.moves and cond & _PRONE:
            return ActionResult(action.kind, False, Reason.PRONE)
        if cond & GATED:
            refused = gate(cond, action.kind, row.moves)
            if refused is not None:
                return ActionResult(action.kind, False, refused)
        fight = self.fight
        plan: Any = row.verify(fight.gmap, fight, actor, action)
        if type(plan) is Reason:  # (isinstance is slower on an enum class)
            if row.refused is not None:
                row.refused(fight, actor)
            return ActionResult(action.kind, False, plan)
        if row.do is None:  # a delay re-orders this round, which the loop owns
            return self._do_delay(actor, plan, first=first)
        return row.do(fight, actor, plan)
