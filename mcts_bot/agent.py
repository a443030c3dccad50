"""The package's front: `MCTSBot`, the botbowl Agent that plays each decision by a search, and
`search()`, one search of one position (for scripts, notebooks and tests)."""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple, Union

import botbowl
import numpy as np
from botbowl.core import Action

from mcts_bot.adapter import actions as game_actions
from mcts_bot.adapter import timing
from mcts_bot.adapter.hashing import game_state_hash
from mcts_bot.adapter.search_copy import SearchGame, private_copy
from mcts_bot.core.nodes import ActionNode, ChanceNode
from mcts_bot.core.policies import FinalPolicy, RolloutPolicy, TreePolicy, idle_action_as_move, most_visited
from mcts_bot.core.preset import Heuristic, Preset
from mcts_bot.core.search import Budget, SearchResult, SearchStats, run_search
from mcts_bot.knowledge.scripted import scripted_or_safe_action
from mcts_bot.logs import log_failure_once
from mcts_bot.parallel import root as root_parallel
from mcts_bot.parallel import tree as tree_parallel
from mcts_bot.parallel.workers import SearchWorkers
from mcts_bot.presets import configure

DecisionHook = Callable[[botbowl.Game, SearchResult, Action], None]
PARALLEL_SCHEMES = ("root", "tree")


def check_parallel(parallel: str, preset: Preset, workers: int = 1) -> None:
    """A clear error for an unknown scheme, tree parallelism with a preset it cannot search (a
    helper's expansion is the priors' first choice), or workers for a preset whose root selection
    keeps its own state (Gumbel's)."""
    if parallel not in PARALLEL_SCHEMES:
        raise ValueError(f"parallel must be one of {', '.join(PARALLEL_SCHEMES)}, got {parallel!r}")
    if preset.root_selection is not None and workers > 1:
        raise ValueError(f"the preset {preset.name!r} selects at the root itself (Gumbel), in one process: "
                         f"use workers=1")
    if parallel == "tree" and preset.priors is None:
        raise ValueError(f"tree parallelism (parallel='tree', --parallel tree) needs a preset with priors (PUCT), "
                         f"and {preset.name!r} has none: use root parallelism, or a preset such as 'default'")

MIN_SEARCH_SECONDS = 0.05  # with less time than this, play a safe action instead of searching
# Under a clock, held back for sending the state to the workers, waiting for a late one
# (workers.LATE_SECONDS) and merging their results.
WORKER_SECONDS = 0.15


@dataclass
class GameTotals:
    """Running totals over the current game (reset by `new_game`)."""

    decisions: int = 0
    searches: int = 0
    iterations: int = 0  # the agent's own searches and, with workers, theirs
    seconds: float = 0.0
    errors: int = 0  # searches stopped by an error, and decisions that fell back to a safe action after one
    late_workers: int = 0  # search workers' answers that came after their decision's deadline (not errors)
    safe_actions: int = 0  # decisions played without a search result (no time, or a failure)
    reused_trees: int = 0  # searches that went on from the previous search's subtree (reuse_tree)
    overruled: int = 0  # with priors: searches whose choice was not the child the priors put first
    guarded: int = 0  # final choices the preset's `final_guard` changed (the carrier's guards: the priors' kept)

    @property
    def mean_iterations(self) -> float:
        return self.iterations / self.searches if self.searches else 0.0


class MCTSBot(botbowl.Agent):
    """Plays each decision by one search on a private copy of the game.

    Args:
        name: the agent's name in botbowl.
        seconds, iterations: search budget per decision; the search stops at whichever comes first.
            In competition mode the game's clocks can cut a decision shorter (see `adapter.timing`, and `spend_clock`).
        preset: "default" (the strongest measured settings) or "vanilla" (the seed's), or a Preset.
        rollouts, tree_policy, rollout_policy, heuristic, final_policy: replace that part of the preset.
        seed: seeds every random choice of the bot (searches and the dice they imagine).
        workers: processes searching each decision (this one and `workers - 1` helpers, started
            once per game and stopped at its end). 1: search in this process only.
        parallel: how the workers share a decision. "root": each grows a tree of its own, their
            root statistics merged before the final choice (`mcts_bot.workers`); "tree": one tree,
            in this process, whose iterations the helpers play too (`mcts_bot.tree_parallel`;
            presets with priors only).
        on_decision: called after each search with (game, result, action), e.g. to log or keep trees.
        spend_clock: under a competition clock, give each decision the clock's share of what is left of
            the turn (`adapter.timing`), past `seconds`; False: `seconds` caps it under clocks too.
            Without a clock, `seconds` applies either way.

    `act()` never raises: whatever fails, it returns the best action found so far, or else the
    scripted policy's (which plays on rather than ending the turn), or else a safe legal one, and
    logs the failure once.
    """

    def __init__(self, name: str = "mcts", *, seconds: Optional[float] = 1.0, iterations: Optional[int] = None,
                 preset: Union[str, Preset] = "default", rollouts: Optional[bool] = None,
                 tree_policy: Optional[TreePolicy] = None, rollout_policy: Optional[RolloutPolicy] = None,
                 heuristic: Optional[Heuristic] = None, final_policy: Optional[FinalPolicy] = None,
                 seed: Optional[int] = None, on_decision: Optional[DecisionHook] = None, workers: int = 1,
                 parallel: str = "root", spend_clock: bool = False):
        super().__init__(name)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
        if on_decision is not None and not callable(on_decision):
            raise TypeError(f"on_decision must be a callable, got {on_decision!r}")
        self.budget = Budget(seconds=seconds, iterations=iterations)
        self.preset = configure(preset, rollouts=rollouts, tree_policy=tree_policy, rollout_policy=rollout_policy,
                                heuristic=heuristic, final_policy=final_policy)
        self.seed = seed
        self.rng = np.random.RandomState(seed)
        self.on_decision = on_decision
        if not isinstance(spend_clock, bool):
            raise TypeError(f"spend_clock must be True or False, got {spend_clock!r}")
        self.spend_clock = spend_clock
        check_parallel(parallel, self.preset, workers)
        self.parallel = parallel
        self.workers = SearchWorkers(workers, self.preset, seed,
                                     serve=tree_parallel.serve if parallel == "tree" else root_parallel.serve)
        self.last_root: Optional[ActionNode] = None  # the last search's tree, released when the next one starts
        self.last_choice: Optional[ChanceNode] = None  # the child of `last_root` it played
        self._played: Optional[ChanceNode] = None  # with reuse_tree: the tree's edge for the last action played
        self.last_stats: Optional[SearchStats] = None
        self.totals = GameTotals()
        self._last_action: Optional[Action] = None  # for its follow-up (`actions.follow_up`)
        self._carried_before = False  # whether the player of `_last_action` held the ball before it

    def new_game(self, game: botbowl.Game, team: botbowl.Team) -> None:
        self.last_root = self.last_choice = None
        self._played = None
        self.last_stats = None
        self.totals = GameTotals()
        self._last_action = None
        self._start_workers(game, team)

    def end_game(self, game: botbowl.Game) -> None:
        self.last_root = self.last_choice = None
        self._played = None
        self._last_action = None
        self.workers.stop()

    def _start_workers(self, game: botbowl.Game, team: botbowl.Team) -> None:
        """Start the search workers, if any, warmed up on this game; a failure leaves this process
        searching alone."""
        if self.workers.count < 2:
            return
        try:
            self.workers.start(game, team)
            self._report([])
        except Exception as exc:  # noqa: BLE001 - e.g. inside a daemonic process, which may not have children
            log_failure_once(exc, "the search workers could not start; searching in this process only")

    def act(self, game: botbowl.Game) -> Action:
        start = time.perf_counter()
        self.totals.decisions += 1
        # Release the previous tree before building the next (reuse_tree keeps a part); a decision
        # made without a search leaves them None.
        self.last_root = self.last_choice = self.last_stats = None
        try:
            return self._in_game(game, self._decide(game, start))
        except Exception as exc:  # noqa: BLE001 - a bot that raises loses the rest of its series
            log_failure_once(exc, "act() fell back to the scripted policy after an error")
            self.totals.errors += 1
        try:
            return self._in_game(game, self._fallback(game))
        except Exception as exc:  # noqa: BLE001
            log_failure_once(exc, "no safe action either; playing botbowl's first available action")
            choice = game.state.available_actions[0]
            return Action(choice.action_type, position=choice.positions[0] if choice.positions else None,
                          player=choice.players[0] if choice.players else None)

    def _decide(self, game: botbowl.Game, start: float) -> Action:
        previous, self._last_action = self._last_action, None
        follow_up = None if previous is None else \
            game_actions.follow_up(game, previous, self.preset.end_moves, self._carried_before)
        if follow_up is not None:
            # The tree's edge for the last action took its follow-up too (END_PLAYER_TURN after a move,
            # END_SETUP after a formation): its outcomes are the states after both, so the edge is
            # looked up in only once the follow-up is played.
            return follow_up
        reused = self._reusable(game)
        choices = self.preset.legal_actions(game)
        if not choices:
            return self._safe(game)
        if len(choices) == 1:
            # No search, but the tree of the last one may still hold the state this leads to.
            self._played = self._edge(reused, choices[0])
            return choices[0]
        team = game.active_team
        clock_seconds = timing.time_for_decision(game, team)
        if clock_seconds is not None and self.workers.count > 1:
            clock_seconds -= WORKER_SECONDS
        deadline = None if clock_seconds is None else start + clock_seconds
        if deadline is not None and deadline - time.perf_counter() < MIN_SEARCH_SECONDS:
            return self._fallback(game)
        budget = self.budget
        if self.spend_clock and deadline is not None:  # the clock's share, however far past `seconds`
            budget = Budget(seconds=deadline - start, iterations=budget.iterations)
        elif budget.seconds is not None:
            deadline = min(deadline or math.inf, start + budget.seconds)
        handing = time.perf_counter()
        own, pending = self._submit(game, team, budget, deadline)
        handing = time.perf_counter() - handing
        helpers = None
        if pending and self.parallel == "tree":
            helpers, pending = tree_parallel.TreeHelpers(pending, self.rng), []
        preset = self.preset.for_game(game)  # its parts for this board (`ByBoard`)
        result = run_search(game if own is None else own, budget=budget, preset=preset, rng=self.rng,
                            team=team, deadline=deadline, root=reused, copy=own is None, helpers=helpers)
        if helpers is not None:
            self._settle(result, helpers)
        if own is not None:  # its copy was made (and sent to the helpers) before the search's clock started
            result.stats = dataclasses.replace(result.stats, seconds=result.stats.seconds + handing,
                                               copy_seconds=result.stats.copy_seconds + handing)
        del own
        reused_tree = result.root.visits > result.stats.iterations + result.stats.merged_iterations
        if pending:
            self._merge(result, pending, deadline)
        del reused
        self.last_root, self.last_stats = result.root, result.stats
        self.totals.searches += 1
        self.totals.reused_trees += reused_tree
        self.totals.iterations += result.stats.iterations + result.stats.merged_iterations
        self.totals.seconds += result.stats.seconds
        self.totals.errors += result.stats.error is not None
        self.totals.late_workers += result.stats.late_workers
        chosen = result.choice if result.choice is not None else self._choose(result.root, preset)
        if chosen is None:
            return self._fallback(game)
        if preset.final_guard is not None:
            guarded = preset.final_guard(game, result.root, chosen)
            self.totals.guarded += guarded is not chosen
            chosen = guarded
        if preset.idle_as_move:
            chosen = idle_action_as_move(result.root, chosen, preset.idle_as_move)
        # expand_all put the root's children in prior order: the first is the priors' own choice.
        self.totals.overruled += self.preset.priors is not None and chosen is not result.root.children[0]
        self.last_choice = chosen
        if self.preset.reuse_tree:
            self._played = chosen
        action = chosen.action
        if self.on_decision is not None:
            try:
                # The tree's action points at the search copy's players and squares: the hook gets the game's.
                self.on_decision(game, result, game_actions.localize(game, Action(action.action_type, action.position,
                                                                                  action.player)))
            except Exception as exc:  # noqa: BLE001
                log_failure_once(exc, "the on_decision hook raised; the decision stands")
        return action

    def _submit(self, game: botbowl.Game, team: botbowl.Team, budget: Budget,
                deadline: Optional[float]) -> Tuple[Optional[SearchGame], list]:
        """Hand the decision to the search workers (none with workers=1): the private copy they were
        sent, for this process to search too (one copy instead of two), and their connections.
        A failure only costs their help."""
        if self.workers.count < 2:
            return None, []
        own = None
        try:
            own = private_copy(game, seed=0)  # run_search gives it dice of its own
            if self.parallel == "tree":
                return own, self.workers.share(own, team)
            return own, self.workers.submit(own, team, budget, deadline)
        except Exception as exc:  # noqa: BLE001
            log_failure_once(exc, "the search workers could not be given the decision; searching alone")
            return own, []

    def _report(self, errors: List[str]) -> None:
        """Log the search workers' failures (these, and those found between decisions; each kind
        once) and count the decision as having had one."""
        errors = errors + self.workers.take_errors()
        for error in errors:
            log_failure_once(RuntimeError(error), "a search worker failed; the decision went on without it")
        self.totals.errors += bool(errors)

    def _settle(self, result: SearchResult, helpers: tree_parallel.TreeHelpers) -> None:
        """After a tree-parallel search: report the helpers' failures, note the replies still due."""
        self._report(helpers.errors)
        self.workers.retire(helpers.lost)  # failed, and counted so: replaced at the next decision, not waited for
        self.workers.late([conn for conn in helpers.late if conn not in helpers.lost])
        result.stats = dataclasses.replace(result.stats, late_workers=helpers.silent)

    def _merge(self, result: SearchResult, pending: list, deadline: Optional[float]) -> None:
        try:
            statistics, iterations, errors, late = self.workers.collect(pending, deadline)
            self._report(errors)
            for root_statistics in statistics:
                root_parallel.merge(result.root, root_statistics)
            result.stats = dataclasses.replace(result.stats, merged_iterations=iterations, late_workers=late)
        except Exception as exc:  # noqa: BLE001
            log_failure_once(exc, "merging the search workers' results failed; the agent's own search decides")

    def _reusable(self, game: botbowl.Game) -> Optional[ActionNode]:
        """The node of the last tree standing for the game's state now, if any (and lets go of the rest)."""
        played, self._played = self._played, None
        if played is None:
            return None
        return played.outcomes.get(game_state_hash(game))

    @staticmethod
    def _edge(node: Optional[ActionNode], action: Action) -> Optional[ChanceNode]:
        """The child of `node` for `action`, to follow the tree through a decision made without search."""
        if node is None:
            return None
        return next((child for child in node.children if game_actions.same_action(child.action, action)), None)

    def _fallback(self, game: botbowl.Game) -> Action:
        """Without a search result: the scripted policy's action, which does not give up the turn
        for lack of time; a safe action if it fails."""
        self.totals.safe_actions += 1
        return scripted_or_safe_action(game, self.rng, "the MCTS bot")

    def _choose(self, root: ActionNode, preset: Preset) -> Optional[ChanceNode]:
        """The final policy's pick among the children that were evaluated at least once, if any."""
        if not any(child.visits for child in root.children):
            return None
        try:
            chosen = preset.final_policy(root)
        except Exception as exc:  # noqa: BLE001
            log_failure_once(exc, "the final policy raised; playing the most visited child")
            self.totals.errors += 1
            chosen = most_visited(root)
        return chosen if chosen.visits else most_visited(root)

    def _safe(self, game: botbowl.Game) -> Action:
        self.totals.safe_actions += 1
        return game_actions.safe_action(game)

    def _in_game(self, game: botbowl.Game, action: Action) -> Action:
        """`action` with the real game's player and square objects, checked against what the game allows.

        The action is remembered, so that the next decision can be its follow-up (`actions.follow_up`).
        """
        player = game.get_player(action.player.player_id) if action.player is not None else None
        position = game.get_square(action.position.x, action.position.y) if action.position is not None else None
        action = Action(action.action_type, position=position, player=player)
        if not game_actions.is_available(game, action):
            raise RuntimeError(f"the chosen action {action} is not available in the game")
        self._last_action = action
        self._carried_before = game_actions.holds_ball(game)
        return action


def search(game: botbowl.Game, *, seconds: Optional[float] = None, iterations: Optional[int] = None,
           preset: Union[str, Preset] = "default", seed: Optional[int] = None,
           team: Optional[botbowl.Team] = None, **plugins) -> ActionNode:
    """Run one search for the team to act in `game` and return the root of the tree; `game` is not changed.

    Args:
        seconds, iterations: the budget; the search stops at whichever comes first (at least one).
        preset: "default", "vanilla" or a `Preset`.
        seed: seeds the search's random choices and the copy's dice.
        team: search for this team instead of the team to act.
        plugins: replace parts of the preset (see `Preset`): tree_policy, final_policy,
            rollout_policy, heuristic, action_order, rollouts, widening, reuse_tree,
            stop_when_decided, max_rollout_steps.
    """
    result = run_search(game, budget=Budget(seconds=seconds, iterations=iterations),
                        preset=configure(preset, **plugins), rng=np.random.RandomState(seed), team=team)
    return result.root
