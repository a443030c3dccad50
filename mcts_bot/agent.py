"""MCTSBot: the botbowl Agent that plays by Monte Carlo Tree Search."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Callable, Optional, Union

import botbowl
import numpy as np
from botbowl.core import Action

from mcts_bot import actions as game_actions
from mcts_bot.presets import Heuristic, Preset, configure
from mcts_bot.policies import FinalPolicy, RolloutPolicy, TreePolicy
from mcts_bot.search import Budget, SearchResult, SearchStats, run_search

logger = logging.getLogger("mcts_bot")

DecisionHook = Callable[[botbowl.Game, SearchResult, Action], None]


@dataclass
class GameTotals:
    """Running totals over the searches of the current game (reset by `new_game`)."""

    decisions: int = 0
    searches: int = 0
    iterations: int = 0
    seconds: float = 0.0
    errors: int = 0

    @property
    def mean_iterations(self) -> float:
        return self.iterations / self.searches if self.searches else 0.0


class MCTSBot(botbowl.Agent):
    """Plays each decision by one search on a private copy of the game.

    Args:
        name: the agent's name in botbowl.
        seconds, iterations: search budget per decision; the search stops at whichever comes first.
        preset: "default" (the strongest measured settings) or "vanilla" (the seed's), or a Preset.
        rollouts, tree_policy, rollout_policy, heuristic, final_policy: replace that part of the preset.
        seed: seeds every random choice of the bot (searches and the dice they imagine).
        on_decision: called after each search with (game, result, action), e.g. to log or keep trees.
    """

    def __init__(self, name: str = "mcts", *, seconds: Optional[float] = 1.0, iterations: Optional[int] = None,
                 preset: Union[str, Preset] = "default", rollouts: Optional[bool] = None,
                 tree_policy: Optional[TreePolicy] = None, rollout_policy: Optional[RolloutPolicy] = None,
                 heuristic: Optional[Heuristic] = None, final_policy: Optional[FinalPolicy] = None,
                 seed: Optional[int] = None, on_decision: Optional[DecisionHook] = None):
        super().__init__(name)
        if rollouts is not None and not isinstance(rollouts, bool):
            raise TypeError(f"rollouts must be True or False, got {rollouts!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ValueError(f"seed must be a non-negative integer or None, got {seed!r}")
        self.budget = Budget(seconds=seconds, iterations=iterations)
        self.preset = configure(preset, rollouts=rollouts, tree_policy=tree_policy, rollout_policy=rollout_policy,
                                heuristic=heuristic, final_policy=final_policy)
        self.seed = seed
        self.rng = np.random.RandomState(seed)
        self.on_decision = on_decision
        self.team_id: Optional[str] = None
        self.last_root = None  # the last search's tree, released when the next search starts
        self.last_stats: Optional[SearchStats] = None
        self.totals = GameTotals()
        self._last_formation: Optional[Action] = None

    def new_game(self, game: botbowl.Game, team: botbowl.Team) -> None:
        self.team_id = team.team_id
        self.last_root = None
        self.last_stats = None
        self.totals = GameTotals()
        self._last_formation = None

    def end_game(self, game: botbowl.Game) -> None:
        self.last_root = None
        self._last_formation = None

    def act(self, game: botbowl.Game) -> Action:
        self.totals.decisions += 1
        formation, self._last_formation = self._last_formation, None
        if formation is not None:
            follow_up = game_actions.end_setup_follow_up(game, formation)
            if follow_up is not None:
                return follow_up
        self.last_root = None  # release the previous tree before building the next
        choices = game_actions.legal_actions(game)
        if len(choices) == 1:
            return self._play(game, choices[0])
        result = run_search(game, budget=self.budget, preset=self.preset, rng=self.rng, team=game.active_team)
        self.last_root, self.last_stats = result.root, result.stats
        self.totals.searches += 1
        self.totals.iterations += result.stats.iterations
        self.totals.seconds += result.stats.seconds
        self.totals.errors += result.stats.error is not None
        if not result.root.children:
            raise RuntimeError("the search tried no action")
        action = self._play(game, self.preset.final_policy(result.root).action)
        if self.on_decision is not None:
            self.on_decision(game, result, action)
        return action

    def _play(self, game: botbowl.Game, action: Action) -> Action:
        """`action` with the real game's player and square objects; a formation is remembered so that
        the next decision can be its END_SETUP."""
        player = game.get_player(action.player.player_id) if action.player is not None else None
        position = game.get_square(action.position.x, action.position.y) if action.position is not None else None
        action = Action(action.action_type, position=position, player=player)
        if game_actions.is_formation(action):
            self._last_formation = action
        return action
