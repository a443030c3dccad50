"""The search loop: select, expand, (roll out), evaluate, back up, on a private copy of the game.

The real game is never touched. The search deep-copies it once, enables botbowl's forward model on
the copy, and every iteration steps the copy forward from the root and reverts it afterwards, in a
`finally`, so that no exception can leave the copy half-stepped.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable, Collection, List, Optional, Protocol, Union

import botbowl
import numpy as np
from botbowl.core import Action
from botbowl.core.game import InvalidActionError

from mcts_bot.adapter import actions as game_actions
from mcts_bot.adapter import fast_reversible
from mcts_bot.adapter.hashing import game_state_hash
from mcts_bot.adapter.search_copy import SearchGame, private_copy
from mcts_bot.core.nodes import ActionNode, ChanceNode
from mcts_bot.core.preset import Preset
from mcts_bot.logs import log_failure_once


@dataclass(frozen=True)
class Budget:
    """How long one search may run: it stops at whichever limit comes first."""

    seconds: Optional[float] = None
    iterations: Optional[int] = None

    def __post_init__(self) -> None:
        if self.seconds is None and self.iterations is None:
            raise ValueError("no search budget: give seconds (e.g. seconds=1.0) and/or iterations "
                             "(e.g. iterations=200)")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"seconds must be a positive number, got {self.seconds!r}")
        if self.iterations is not None and (isinstance(self.iterations, bool) or not isinstance(self.iterations, int)
                                            or self.iterations < 1):
            raise ValueError(f"iterations must be a positive integer, got {self.iterations!r}")

    def __str__(self) -> str:
        limits = [f"{self.seconds:g} s"] if self.seconds is not None else []
        limits += [f"{self.iterations} iterations"] if self.iterations is not None else []
        return " or ".join(limits) + " per decision"


@dataclass(frozen=True)
class SearchStats:
    """What one search did.

    `seconds` is the whole search, `copy_seconds` the part spent copying the game before the first
    iteration (with search workers, also pickling the copy for them), and `botbowl_seconds` the
    part spent inside botbowl's step and revert; the rest is the search's own work (selection,
    hashing, node creation, evaluation, backup).
    """

    iterations: int
    seconds: float
    copy_seconds: float
    botbowl_seconds: float
    nodes: int
    depth_min: int
    depth_max: int
    depth_mean: float
    skipped: int = 0  # iterations dropped because a stored action no longer fitted the state
    merged_iterations: int = 0  # iterations of the search workers' searches merged into the root (workers > 1)
    late_workers: int = 0  # search workers that gave nothing by the deadline (late, not failed)
    error: Optional[str] = None

    @property
    def iterations_per_second(self) -> float:
        return self.iterations / self.seconds if self.seconds > 0 else 0.0

    @property
    def botbowl_share(self) -> float:
        """The share of the iterations' time (the copy left out) spent inside botbowl."""
        iterating = self.seconds - self.copy_seconds
        return self.botbowl_seconds / iterating if iterating > 0 else 0.0

    def __str__(self) -> str:
        text = (f"{self.iterations} iterations in {self.seconds:.2f} s ({self.iterations_per_second:.0f}/s, "
                f"{100 * self.botbowl_share:.0f}% of it in botbowl, copy {1000 * self.copy_seconds:.0f} ms), "
                f"{self.nodes} nodes, "
                f"depth {self.depth_min}/{self.depth_mean:.1f}/{self.depth_max} (min/mean/max)")
        return text if self.error is None else f"{text}, stopped by {self.error}"


@dataclass
class SearchResult:
    root: ActionNode
    stats: SearchStats
    choice: Optional[ChanceNode] = None  # the root selection's own final choice (`Preset.root_selection`), if any


def _turns(game: botbowl.Game) -> int:
    """The turns both teams have started: changes when a turn ends (and at half time)."""
    return game.state.home_team.state.turn + game.state.away_team.state.turn


class Helpers(Protocol):
    """What `run_search` needs of helpers that play iterations of its tree (`parallel.tree.TreeHelpers`)."""

    completed: int  # their iterations backed up into the tree
    skipped: int  # their iterations dropped (a stored action illegal where they played it)
    expanding: Collection[ActionNode]  # nodes whose priors a helper is working out

    @property
    def in_flight(self) -> int: ...  # iterations handed out and not back yet

    def bind(self, search: "Search", root: ActionNode) -> None: ...

    def keep_busy(self, room: float) -> None: ...  # back up what came in; hand out at most `room` more

    def finish(self, deadline: Optional[float]) -> None: ...  # wait for what is out, briefly; let go of the rest


class Search:
    """One search over a private copy (`search_copy.private_copy`) for one team.

    `iterate(root)` runs one select-expand-evaluate-backup pass; `run_search` drives it. The
    tree-parallel helpers (`parallel.tree`) use its parts on a copy of their own: `step` and
    `revert` (botbowl's, timed), `new_node`, `past_turn`, `rollout` and the preset's heuristic.
    """

    # A step that threw no dice reaches the state it reached before: with one outcome stored, the
    # search follows it without hashing. False: hash after every step (for measuring the saving).
    skip_dice_free_hash = True
    # Tree parallelism: reseed the copy's dice before every step down the tree, and note on each
    # state reached the seed that first led there and how often dice did (`parallel.tree`).
    seed_steps = False
    # Tree parallelism: nodes a helper is expanding. The search's own iterations stop there, as at a
    # leaf, rather than work out the same priors a second time (`_select_and_expand`).
    expanding: Collection[ActionNode] = ()

    def __init__(self, game: botbowl.Game, team_id: str, preset: Preset, rng: np.random.RandomState,
                 deadline: Optional[float]):
        self.game = game
        self.team_id = team_id
        self.team = game.state.team_by_id[team_id]
        self.preset = preset
        self.rng = rng
        self.deadline = deadline
        self.botbowl_seconds = 0.0
        self.after_step: Optional[Callable[[], None]] = None  # tree parallelism: feeds the helpers
        self.root_selection = None  # with `Preset.root_selection`: what selects at the root (`run_search` sets it)
        self.root_turns = _turns(game)  # for `Preset.turn_tree`
        # `Preset.common_dice`: the seeds of each visit's dice derive from this one (drawn only then, so
        # that the other presets' searches use their generator as before).
        self.dice_base = int(rng.randint(2 ** 31)) if preset.common_dice else None

    def legal_actions(self, below_root: bool) -> List[Action]:
        """The actions a node for the copy's state offers (`Preset.legal_actions`)."""
        return self.preset.legal_actions(self.game, below_root)

    def new_node(self, key: Optional[int] = None, below_root: bool = False) -> ActionNode:
        game = self.game
        active = game.active_team
        actions = self.legal_actions(below_root)
        if self.preset.priors is None and len(actions) > 1:
            actions = self.preset.action_order(game, actions, self.rng)
        return ActionNode(key=game_state_hash(game) if key is None else key,
                          actions=actions,
                          is_opponent=active is not None and active.team_id != self.team_id,
                          terminal=game.state.game_over,
                          biases=self._biases(actions))

    def _biases(self, actions: List[Action]) -> Optional[List[float]]:
        game, active = self.game, self.game.active_team
        if self.preset.prior_bias is None or len(actions) < 2 or active is None:
            return None
        # Seed 004's heuristic bias: weight / sqrt(turns the acting team has played + 1).
        played = (game.state.half - 1) * game.config.rounds + active.state.turn
        weight = self.preset.prior_bias / math.sqrt(played + 1)
        return [weight * prior for prior in self.preset.bias_priors(game, actions)]

    def offer_all(self, root: ActionNode) -> None:
        """Give a reused root (a node built below the last search's root) back what a prune leaves
        out only below the root, so that it offers what the game offers (`actions.legal_actions`)."""
        missing = [a for a in self.legal_actions(below_root=False)
                   if not any(game_actions.same_action(a, known) for known in root.actions)]
        if not missing:
            return
        root.actions = root.actions + missing  # untried without priors: after the tried ones
        root.biases = self._biases(root.actions)
        if root.children and self.preset.priors is not None:
            actions = [game_actions.localize(self.game, action) for action in root.actions]
            root.expand_all(self.preset.priors(self.game, actions))  # keeps the children it has

    def past_turn(self) -> bool:
        """With `Preset.turn_tree`: whether the copy is past the end of the turn the search decides in."""
        return self.preset.turn_tree and _turns(self.game) != self.root_turns

    def step(self, action: Action) -> None:
        start = time.perf_counter()
        try:
            game_actions.step(self.game, action, self.preset.end_moves)
        finally:
            self.botbowl_seconds += time.perf_counter() - start
        if self.after_step is not None:
            self.after_step()

    def revert(self, step: int) -> None:
        start = time.perf_counter()
        try:
            self.game.revert(step)
        finally:
            self.botbowl_seconds += time.perf_counter() - start

    def iterate(self, root: ActionNode) -> bool:
        """One iteration; False when it was dropped (see `_StaleNode`)."""
        root_step = self.game.get_step()
        try:
            try:
                path = self._select_and_expand(root)
            except _StaleNode as stale:
                # A stored action does not fit the state this node stands for now (with a state
                # key that cannot merge two states, a stale tree kept across decisions): rebuild
                # the node for this state and drop the iteration.
                fresh = self.new_node(stale.node.key, below_root=stale.node is not root)
                stale.node.actions, stale.node.biases, stale.node.children = fresh.actions, fresh.biases, []
                return False
            if self.preset.rollouts:
                self.rollout()
            value = float(self.preset.heuristic(self.game, self.team))
        finally:
            self.revert(root_step)
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"the heuristic returned {value}, outside [0, 1]")
        for node in path:
            node.visit(value)
        return True

    def _may_expand(self, node: ActionNode) -> bool:
        """Without priors: whether to try a new child rather than choose among the tried ones."""
        if node.is_fully_expanded():
            return False
        if self.preset.widening is None or not node.children:
            return True
        c, alpha = self.preset.widening
        return len(node.children) < math.ceil(c * node.visits ** alpha)

    def _choose(self, node: ActionNode) -> ChanceNode:
        if self.preset.priors is not None:
            if not node.children:  # priors are worked out only for nodes visited a second time
                actions = [game_actions.localize(self.game, action) for action in node.actions]
                node.expand_all(self.preset.priors(self.game, actions) if len(actions) > 1 else [1.0])
            if self.root_selection is not None and node is self.root_selection.root:
                return self.root_selection.select()
            return self.preset.tree_policy(node)
        return node.expand() if self._may_expand(node) else self.preset.tree_policy(node)

    def _select_and_expand(self, root: ActionNode) -> List[Union[ActionNode, ChanceNode]]:
        path: List[Union[ActionNode, ChanceNode]] = [root]
        node = root
        while not node.is_leaf:
            if node is not root and not node.children and self.preset.priors is not None and (
                    node in self.expanding or self.deadline is not None and time.perf_counter() >= self.deadline):
                # As at a leaf: a helper is working out this node's priors, or the time is up
                # (they can take tens of milliseconds: a turn's plan on 11 players).
                break
            if node is not root and self.past_turn():
                break  # a leaf, for the value to score
            chance = self._choose(node)
            seed = None
            if self.dice_base is not None:
                seed = self.common_seed(len(path), chance.visits)
            elif self.seed_steps:
                seed = int(self.rng.randint(2 ** 31))
            if seed is not None:
                self.game.rng.seed(seed)
            thrown = self.game.dice_thrown()
            try:
                self.step(chance.action)
            except InvalidActionError:
                raise _StaleNode(node) from None
            path.append(chance)
            if self.skip_dice_free_hash and len(chance.outcomes) == 1 and self.game.dice_thrown() == thrown:
                # No dice: the action led where it led before (one outcome), no need to hash the state.
                node = next(iter(chance.outcomes.values()))
                node.arrivals += 1
                path.append(node)
                continue
            key = game_state_hash(self.game)
            child = chance.outcomes.get(key)
            if child is None:
                child = chance.outcomes[key] = self.new_node(key, below_root=True)
                child.dice_seed = seed
                child.arrivals = 1
                path.append(child)
                break
            child.arrivals += 1
            path.append(child)
            node = child
        return path

    def common_seed(self, depth: int, visit: int) -> int:
        """With `Preset.common_dice`: the dice seed of an action's `visit`-th visit (from 0) at `depth` of the
        path (its index there). Every action of a node gets the same seed on its k-th visit, and each
        visit of one action a seed of its own: the outcomes of each action are sampled as before, and
        the differences between siblings lose the share of the noise that is their dice's alone."""
        return (self.dice_base + 1_000_003 * depth + 7_919 * visit) % (2 ** 31)

    def rollout(self) -> None:
        """Play the rollout policy to the horizon: the end of the turn, or of the acting player's
        action (`Preset.rollout_horizon`), or until the game or the time ends."""
        state = self.game.state
        turns = _turns(self.game)
        player = state.active_player
        if self.preset.rollout_horizon == "action" and player is None:
            return  # between player actions: nothing to finish
        for _ in range(self.preset.max_rollout_steps):
            if state.game_over or _turns(self.game) != turns:
                return
            if self.preset.rollout_horizon == "action" and state.active_player is not player:
                return
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                return
            try:
                self.step(self.preset.rollout_policy(self.game, self.rng))
            except InvalidActionError as exc:
                # botbowl refused the policy's action before changing anything: the leaf is scored
                # where the playout stands, and the search goes on (a policy's blind spot costs one
                # playout its end, not the decision its iterations).
                log_failure_once(exc, "botbowl refused a playout's action; that playout ended there")
                return


class _StaleNode(Exception):
    """A stored action of `node` is not legal in the state the search reached it in."""

    def __init__(self, node: ActionNode):
        super().__init__("stale node")
        self.node = node


def decided(root: ActionNode, iterations_left: float) -> bool:
    """True when the most visited child leads the runner-up by more than the iterations left:
    no further iteration could change a most-visited choice."""
    first = second = 0
    for child in root.children:
        if child.visits > first:
            first, second = child.visits, first
        elif child.visits > second:
            second = child.visits
    return first - second > iterations_left


def tree_shape(root: ActionNode) -> tuple:
    """(nodes, min, max and mean depth of the leaves), counting ActionNodes and ChanceNodes as nodes
    and depth in decisions (ActionNode levels) below the root; depths 0 where no child of the root was
    stepped into (a search stopped in its first iteration)."""
    nodes, depths = 0, []
    stack = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        nodes += 1 + len(node.children)
        if not node.children:
            depths.append(depth)
        for child in node.children:
            stack.extend((outcome, depth + 1) for outcome in child.outcomes.values())
    if not depths:
        return nodes, 0, 0, 0.0
    return nodes, min(depths), max(depths), sum(depths) / len(depths)


@fast_reversible.used_by  # botbowl's bookkeeping, faster, for the search's own copy (see the module)
def run_search(game: botbowl.Game, *, budget: Budget, preset: Preset, rng: np.random.RandomState,
               team: Optional[botbowl.Team] = None, deadline: Optional[float] = None,
               root: Optional[ActionNode] = None, copy: bool = True,
               helpers: Optional[Helpers] = None) -> SearchResult:
    """Search from `game`'s current state for `team` (default: the team to act). `game` is not changed.

    `copy=False`: `game` is already a private copy (`search_copy.private_copy`, or one unpickled)
    and is searched in place, with new dice; the caller drops it afterwards (an error may spoil it).

    `deadline` (a `time.perf_counter()` value) overrides the budget's seconds when it comes first; no
    iteration is started that would end past it at the mean pace so far (the first always runs), and
    one that reaches a node without its priors past it ends there, as at a leaf.
    `root` continues an earlier tree whose node stands for this very state (same hash, same team).
    An iteration that finds a stored action no longer legal (two states that shared a node) is
    dropped and that node rebuilt; it counts in `stats.skipped`, and toward an iteration budget.
    The early stop (`Preset.stop_when_decided`, for the `most_visited` final policy) forecasts the
    iterations left, under a seconds budget, at 1.5 times the pace so far.
    Any other exception inside an iteration (a plug-in raising, botbowl failing to step or revert) stops
    the search: it is logged once, with its traceback, and the tree built so far is returned, with
    `stats.error` saying what happened. The copy the error may have spoiled is dropped with the search.
    `helpers` (`parallel.tree.TreeHelpers`, their processes holding this state) play iterations of
    this tree between this process's own; they count toward the budget and in `stats.merged_iterations`.
    """
    start = time.perf_counter()
    if budget.seconds is not None:
        deadline = start + budget.seconds if deadline is None else min(deadline, start + budget.seconds)
    team = team if team is not None else game.active_team
    if team is None:
        raise ValueError("nobody is to act in this game state (is the game over?): pass the team to search for")
    if not copy and not isinstance(game, SearchGame):
        raise TypeError("run_search(copy=False) searches the search's own copy in place: pass "
                        "search_copy.private_copy(game, seed), not the game itself")
    preset = preset.for_game(game)  # its parts for this board (`ByBoard`)
    seed = int(rng.randint(2 ** 31))
    if copy:
        game = private_copy(game, seed=seed)
    else:
        game.set_seed(seed)
    search = Search(game, team.team_id, preset, rng, deadline)
    copy_seconds = time.perf_counter() - start
    if root is None:
        root = search.new_node()
    elif preset.prune_openings:
        search.offer_all(root)
    iterations, skipped, error = 0, 0, None
    stop_early = preset.stop_when_decided  # only with the most_visited final policy (`Preset`)
    iterating_since = time.perf_counter()
    pace = 0.0

    def feed_helpers() -> None:
        """Work for the helpers: the budget's iterations less one for this process, and nothing in
        the last two iterations' time, which could not be back by the deadline. Also
        called after every step of this process's own iterations (`Search.after_step`): a long
        one (a turn's plan for the priors, a rollout) would otherwise leave the helpers idle."""
        done = iterations + skipped + helpers.completed + helpers.skipped
        room = math.inf if budget.iterations is None else budget.iterations - done - helpers.in_flight - 1
        late = deadline is not None and time.perf_counter() + 2 * pace >= deadline
        helpers.keep_busy(0 if late else room)

    if preset.root_selection is not None:
        if helpers is not None:
            raise ValueError("root selection (Gumbel) searches in one process: no tree-parallel helpers")

        def progress() -> float:
            done = (iterations + skipped) / budget.iterations if budget.iterations is not None else 0.0
            if deadline is None:
                return done
            now = time.perf_counter()
            return max(done, (now - iterating_since) / max(deadline - iterating_since, 1e-9))

        search.root_selection = preset.root_selection(root, rng, progress)
    if helpers is not None:
        search.seed_steps = True
        search.after_step = feed_helpers
        search.expanding = helpers.expanding
        helpers.bind(search, root)
    while not root.is_leaf:
        done, in_flight = iterations + skipped, 0  # iterations finished, and started by the helpers
        if helpers is not None:
            done, in_flight = done + helpers.completed + helpers.skipped, helpers.in_flight
        if budget.iterations is not None and done + in_flight >= budget.iterations:
            break
        now = time.perf_counter()
        # An iteration is not started that would, at the mean pace so far, end past the deadline:
        # under a clock, or with search workers waiting to be merged, late is worse than one fewer.
        pace = (now - iterating_since) / (iterations + skipped) if iterations + skipped else 0.0
        if deadline is not None and now + pace >= deadline:
            break
        if helpers is not None:
            feed_helpers()
        if stop_early and iterations % 8 == 0 and iterations:
            left = math.inf if budget.iterations is None else budget.iterations - done - in_flight
            if deadline is not None:  # at the pace so far (the helpers' too), with room for it to speed up
                played = iterations + in_flight + (helpers.completed if helpers is not None else 0)
                left = min(left, 1.5 * played * (deadline - now) / max(now - iterating_since, 1e-9))
            if decided(root, left):
                break
        try:
            completed = search.iterate(root)
        except Exception as exc:  # noqa: BLE001 - a search must never take the game down with it
            error = f"{type(exc).__name__}: {exc}"
            log_failure_once(exc, "a search stopped early after an error")
            break
        iterations += completed
        skipped += not completed
    merged = 0
    if helpers is not None:
        helpers.finish(deadline)
        merged, skipped = helpers.completed, skipped + helpers.skipped
    nodes, depth_min, depth_max, depth_mean = tree_shape(root)
    stats = SearchStats(iterations=iterations, seconds=time.perf_counter() - start, copy_seconds=copy_seconds,
                        botbowl_seconds=search.botbowl_seconds, nodes=nodes, depth_min=depth_min,
                        depth_max=depth_max, depth_mean=depth_mean, skipped=skipped, merged_iterations=merged,
                        error=error)
    choice = search.root_selection.choice() if search.root_selection is not None else None
    return SearchResult(root=root, stats=stats, choice=choice)
