"""A cheap prior over a state's actions: which to try first, read off the state without stepping.

With pathfinding a player can move to every reachable square, so a node can have a hundred
children. Trying them in botbowl's order explores toward one endzone first (the seed's home/away
gap); trying them best-prior-first, with progressive widening, spends the first visits on moves
that carry the ball forward, pick it up, support or stop its carrier, and weighs each by the
chance that its path succeeds (botbowl's pathfinding gives that probability).

Priors are from the acting team's point of view (opponent nodes get good moves first too).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import botbowl
import numpy as np
from botbowl.core import Action, ActionType

FAILURE = 1.0  # a failed move or block costs the turn, and maybe the ball
TOUCHDOWN = 2.0

_START_PRIORS = {
    ActionType.START_MOVE: 0.3,
    ActionType.START_BLITZ: 0.35,
    ActionType.START_BLOCK: 0.4,
    ActionType.START_HANDOFF: 0.1,
    ActionType.START_PASS: 0.05,
    ActionType.START_FOUL: -0.2,
    ActionType.END_PLAYER_TURN: 0.0,
    ActionType.END_TURN: -0.5,
}


class _Context:
    """What the priors of one state need, computed once per state."""

    def __init__(self, game: botbowl.Game):
        self.game = game
        self.player = game.state.active_player
        balls = game.state.pitch.balls
        ball = balls[0] if balls else None
        self.ball = ball.position if ball is not None and (ball.on_ground or ball.is_carried) else None
        self.carrier = game.get_ball_carrier() if ball is not None and ball.is_carried else None
        self.paths: Dict[Tuple[ActionType, int, int], object] = {}
        self.dice: Dict[Tuple[ActionType, int, int], int] = {}
        for choice in game.state.available_actions:
            for i, position in enumerate(choice.positions):
                if position is None:
                    continue
                key = (choice.action_type, position.x, position.y)
                if choice.paths and i < len(choice.paths):
                    self.paths[key] = choice.paths[i]
                if choice.block_dice and i < len(choice.block_dice):
                    self.dice[key] = choice.block_dice[i]


def _endzone_distance(game: botbowl.Game, team: botbowl.Team, x: int) -> int:
    return abs(game.get_opp_endzone_x(team) - x)


def _toward(before: int, after: int, reach: int) -> float:
    return (before - after) / max(reach, 1)


def _move_prior(ctx: _Context, target, prob: float) -> float:
    game, player = ctx.game, ctx.player
    if player is None or player.position is None:
        return 0.0
    reach = player.get_ma() + 2
    if ctx.carrier is not None and ctx.carrier == player:
        after = _endzone_distance(game, player.team, target.x)
        gain = _toward(game.get_distance_to_endzone(player), after, reach) + (TOUCHDOWN if after == 0 else 0.0)
        return prob * (1.0 + gain) - (1.0 - prob) * 2 * FAILURE
    if ctx.carrier is None and ctx.ball is not None:
        if target == ctx.ball:
            return prob * 1.5 - (1.0 - prob) * FAILURE
        gain = _toward(player.position.distance(ctx.ball), target.distance(ctx.ball), reach)
        return prob * 0.6 * gain - (1.0 - prob) * FAILURE
    focus = ctx.carrier.position if ctx.carrier is not None else ctx.ball
    gain = 0.0 if focus is None else _toward(player.position.distance(focus), target.distance(focus), reach)
    forward = _toward(game.get_distance_to_endzone(player), _endzone_distance(game, player.team, target.x), reach)
    return prob * (0.3 * gain + 0.2 * forward) - (1.0 - prob) * FAILURE


def _block_prior(ctx: _Context, target, prob: float, dice: Optional[int]) -> float:
    defender = ctx.game.get_player_at(target)
    value = 0.4 + (0.2 * max(-2, min(3, dice)) if dice is not None else 0.0)
    if defender is not None and ctx.carrier is not None and defender == ctx.carrier:
        value += 0.6
    return prob * value - (1.0 - prob) * FAILURE


def _start_prior(ctx: _Context, action: Action) -> float:
    value = _START_PRIORS.get(action.action_type, 0.0)
    player = action.player
    if player is None or player.position is None:
        return value
    if ctx.carrier is not None and ctx.carrier == player:
        return value + (0.7 if action.action_type == ActionType.START_MOVE else 0.2)
    if ctx.carrier is None and ctx.ball is not None and action.action_type == ActionType.START_MOVE:
        return value + 0.5 / (1 + player.position.distance(ctx.ball))
    if ctx.carrier is not None and ctx.carrier.team != player.team and action.action_type == ActionType.START_BLITZ:
        return value + 0.4
    return value


def action_prior(ctx: _Context, action: Action) -> float:
    position = action.position
    if position is not None:
        key = (action.action_type, position.x, position.y)
        path = ctx.paths.get(key)
        prob = path.prob if path is not None else 1.0
        if action.action_type == ActionType.MOVE:
            return _move_prior(ctx, position, prob)
        if action.action_type in (ActionType.BLOCK, ActionType.STAB):
            dice = ctx.dice.get(key, path.block_dice if path is not None else None)
            return _block_prior(ctx, position, prob, dice)
        if action.action_type in (ActionType.HANDOFF, ActionType.PASS):
            return 0.2 * prob
        return 0.0
    return _start_prior(ctx, action)


def action_priors(game: botbowl.Game, actions: List[Action]) -> List[float]:
    ctx = _Context(game)
    return [action_prior(ctx, action) for action in actions]


def prior_order(game: botbowl.Game, actions: List[Action], rng: np.random.RandomState) -> List[Action]:
    """Best prior first; equal priors in random order, so neither side nor direction comes first."""
    shuffled = [actions[i] for i in rng.permutation(len(actions))]
    priors = action_priors(game, shuffled)
    order = sorted(range(len(shuffled)), key=lambda i: -priors[i])  # stable: ties keep the shuffle
    return [shuffled[i] for i in order]
