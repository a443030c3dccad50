"""A policy alone, with no search: each decision, the action its priors rate highest.

What the search starts from, played as it is: the knowledge priors (`knowledge_priors`; "policy", as
`import mcts_bot` registers it, is the default preset's, led on 11 players by `grod`'s choice) or a
learned `PolicyModel` (issue 30 asks for its score without search, about 10 ms a
decision). It plays the actions the search's tree offers (`adapter.actions.legal_actions`) with the
same follow-ups as the default preset (END_SETUP after a formation, END_PLAYER_TURN after a move),
so that the priors are read on the decisions they were made for.
"""
from __future__ import annotations

from typing import Callable, List, Optional

import botbowl
import numpy as np
from botbowl.core import Action

from mcts_bot.adapter import actions as game_actions
from mcts_bot.knowledge.priors import knowledge_priors
from mcts_bot.knowledge.scripted import scripted_or_safe_action
from mcts_bot.logs import log_failure_once

PriorFn = Callable[[botbowl.Game, List[Action]], List[float]]


class PolicyBot(botbowl.Agent):
    """Plays argmax of `priors` over the legal actions (the first of equals, in botbowl's order).
    Never raises: on an error, the scripted policy's action, else a safe one."""

    def __init__(self, name: str = "policy", *, priors: PriorFn = knowledge_priors, seed: Optional[int] = None,
                 end_moves: bool = True):
        super().__init__(name)
        if not callable(priors):
            raise TypeError(f"priors must be a callable (game, actions) -> probabilities, got {priors!r}")
        self.priors = priors
        self.end_moves = end_moves
        self.rng = np.random.RandomState(seed)
        self._last_action: Optional[Action] = None
        self._carried_before = False
        self.fallbacks = 0  # decisions the scripted policy made: nothing to choose from, or an error

    def new_game(self, game: botbowl.Game, team: botbowl.Team) -> None:
        self._last_action = None

    def end_game(self, game: botbowl.Game) -> None:
        self._last_action = None

    def act(self, game: botbowl.Game) -> Action:
        try:
            action = self._decide(game)
        except Exception as exc:  # noqa: BLE001 - a bot that raises loses its game
            log_failure_once(exc, "the policy bot fell back to the scripted policy after an error")
            action = None
        if action is not None and not game_actions.is_available(game, action):
            log_failure_once(RuntimeError(f"{action} is not available"), "the policy bot chose an unavailable action")
            action = None
        if action is None:
            self.fallbacks += 1
            action = scripted_or_safe_action(game, self.rng, "the policy bot")
        self._last_action = action
        self._carried_before = game_actions.holds_ball(game)
        return action

    def _decide(self, game: botbowl.Game) -> Optional[Action]:
        previous, self._last_action = self._last_action, None
        if previous is not None:
            forced = game_actions.follow_up(game, previous, self.end_moves, self._carried_before)
            if forced is not None:
                return forced
        choices = game_actions.legal_actions(game)
        if len(choices) < 2:
            return choices[0] if choices else None
        return choices[int(np.argmax(self.priors(game, choices)))]
