"""A cheap prior over a state's actions: which to try first, read off the state without stepping.

With pathfinding a player can move to every reachable square, so a node can have a hundred
children. Trying them in botbowl's order explores toward one endzone first (the seed's home/away
gap); trying them best-prior-first, with progressive widening, spends the first visits on moves
that carry the ball forward, pick it up, support or stop its carrier, and weighs each by the
chance that its path succeeds (botbowl's pathfinding gives that probability).

Priors are from the acting team's point of view (opponent nodes get good moves first too).
"""
from __future__ import annotations

import math
from typing import Callable, Dict, List, Optional, Tuple

import botbowl
import numpy as np
from botbowl.core import Action, ActionType, PlayerActionType
from botbowl.core.procedure import Block

from mcts_bot.adapter.actions import SELECT_DIE, same_action
from mcts_bot.knowledge.passing import handoff_success, pass_success
from mcts_bot.knowledge.scripted import (
    Board,
    block_value,
    die_value,
    scripted_action,
    sideline_cost,
    square_value,
)
from mcts_bot.logs import log_failure_once

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


Lookup = Dict[Tuple[ActionType, int, int], object]  # keyed by (action type, x, y)


def offered_paths_and_dice(game: botbowl.Game) -> Tuple[Lookup, Lookup]:
    """The path and the block dice botbowl offers with each positioned action of the state."""
    paths: Lookup = {}
    dice: Lookup = {}
    for choice in game.state.available_actions:
        for i, position in enumerate(choice.positions):
            if position is None:
                continue
            key = (choice.action_type, position.x, position.y)
            if choice.paths and i < len(choice.paths):
                paths[key] = choice.paths[i]
            if choice.block_dice and i < len(choice.block_dice):
                dice[key] = choice.block_dice[i]
    return paths, dice


class _Context:
    """What the priors of one state need, computed once per state."""

    def __init__(self, game: botbowl.Game):
        self.game = game
        self.player = game.state.active_player
        balls = game.state.pitch.balls
        ball = balls[0] if balls else None
        self.ball = ball.position if ball is not None and (ball.on_ground or ball.is_carried) else None
        self.carrier = game.get_ball_carrier() if ball is not None and ball.is_carried else None
        self.paths, self.dice = offered_paths_and_dice(game)


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


# --------------------------------------------------------------------------------------------------
# Knowledge priors (the default): a probability per action, for PUCT. The scripted policy's choice
# gets a bonus on top of what the state says about each action: block dice odds from botbowl, the
# chance a path succeeds, how useful the square it ends on is, and a coach's order (blocks before
# moves, the carrier last, no fouls).

SCRIPTED_BONUS = 2.5  # logits added to the scripted policy's own choice
PATH_FAILURE = 3.0  # logits lost per unit of failure probability of a move's path
START_LOGITS = {
    ActionType.START_MOVE: 0.0,
    ActionType.START_BLOCK: 0.0,  # replaced by the best block's odds
    ActionType.START_BLITZ: 0.2,
    ActionType.START_HANDOFF: -0.5,
    ActionType.START_PASS: -0.8,
    ActionType.START_FOUL: -1.5,
    ActionType.END_TURN: -1.0,
}


# The passing game: a pass or hand-off is worth what the receiver can do with the ball beyond what the
# carrier could do itself (the ground it reaches this turn, a touchdown only it can make), at the
# chance the ball arrives; a failure is a turnover with the ball on the ground. (Until commit 3c57d23
# a sure hand-off was worth 2.5 logits for itself: a free carrier handed the ball to the teammate
# beside it instead of running.)
BALL_MOVE_GAIN = 1.0  # per receiver's MA of ground its reach this turn gains over the carrier's
BALL_MOVE_SCORE = 2.0  # the receiver can score this turn and the carrier cannot
BALL_MOVE_FAILURE = 3.0  # per unit of the chance it does not arrive: the ball on the ground, the turn over
START_BALL_MOVE = 1.0  # the carrier's START_PASS / START_HANDOFF: this times the best such move's logit

# A blitz is one player a turn, and its worth is the block: one with no standing opponent in reach, or
# a MOVE inside it (which, with `end_moves`, ends the blitz there), spends the turn's blitz on a move.
# (Against `grod` at 1 s, 23% of the default's blitzes made no block; grod's 2%.)
BLITZ_WITHOUT_BLOCK = 1.5  # logits off such a START_BLITZ and such a MOVE


def _reach(board, player) -> int:
    """How far from the endzone `player` could end this turn by running (0: it can score), with
    two rushes, when no opponent marks it."""
    distance = board.to_endzone(player.position)
    if player.state.used or board.tackle_zones.at(player.position) > 0:
        return distance
    return max(0, distance - player.num_moves_left() - 2)


def ball_move_value(board, carrier, receiver, success: float) -> float:
    """The logit of giving the ball from `carrier` to `receiver` (a teammate) at chance `success`."""
    if receiver is None or receiver.team != board.team or not receiver.can_catch():
        return -BALL_MOVE_FAILURE
    gain = _reach(board, carrier) - _reach(board, receiver)
    can_score = _reach(board, receiver) == 0 and _reach(board, carrier) > 0
    last_turn = board.team.state.turn >= board.game.config.rounds  # a turnover costs nothing any more
    return (success * (BALL_MOVE_GAIN * gain / max(1, receiver.get_ma()) + (BALL_MOVE_SCORE if can_score else 0.0))
            - (0.0 if last_turn else BALL_MOVE_FAILURE) * (1.0 - success))


def best_ball_move(board, carrier, action_type: ActionType) -> Optional[float]:
    """The carrier's best pass (or hand-off) from where it stands or a step away, as a logit; None
    when there is nobody to give the ball to."""
    game = board.game
    best = None
    for mate in board.team.players:
        if mate is carrier or mate.position is None or not mate.state.up:
            continue
        if action_type == ActionType.START_HANDOFF:
            if carrier.position.distance(mate.position) > carrier.num_moves_left() + 1:
                continue
            success = handoff_success(game, mate)
        else:
            success = pass_success(game, carrier, mate)
            if success <= 0.0:
                continue
        value = ball_move_value(board, carrier, mate, success)
        best = value if best is None else max(best, value)
    return best


def _best_block(board, attacker) -> Optional[float]:
    game = board.game
    best = None
    for defender in game.get_adjacent_players(attacker.position, team=board.opp, down=False):
        value = block_value(board, attacker, defender, *game.get_block_probs(attacker, defender))
        best = value if best is None else max(best, value)
    return best


def _start_logit(board, action: Action) -> float:
    logit = START_LOGITS.get(action.action_type, 0.0)
    player = action.player
    if player is None or player.position is None:
        return logit
    if action.action_type == ActionType.START_BLOCK:
        best = _best_block(board, player)
        return logit + (2.0 * best if best is not None else -1.0)
    if player is board.our_carrier and action.action_type in (ActionType.START_PASS, ActionType.START_HANDOFF):
        best = best_ball_move(board, player, action.action_type)
        return logit + (START_BALL_MOVE * best if best is not None else -1.0)
    if player is board.our_carrier:
        logit -= 0.5  # the carrier moves last, once blocks and the cage are done
    elif board.tackle_zones.at(player.position) > 0:
        logit -= 0.5  # leaving a tackle zone takes a dodge
    if action.action_type == ActionType.START_BLITZ:
        if not _blitz_in_reach(board, player):
            logit -= BLITZ_WITHOUT_BLOCK
        elif board.their_carrier is not None and \
                player.position.distance(board.their_carrier.position) <= player.get_ma() + 3:
            logit += 1.0
    return logit


def _blitz_in_reach(board, player) -> bool:
    """Whether a standing opponent is near enough for `player` to blitz (reach a square beside it, two
    rushes allowed, and the block's one square of movement)."""
    reach = player.num_moves_left() + 2
    return any(opponent.position.distance(player.position) <= reach for opponent in board.opponents)


def _target_logit(board, player, action: Action, path) -> float:
    game = board.game
    target = action.position
    prob = path.prob if path is not None else 1.0
    logit = -PATH_FAILURE * (1.0 - prob)
    if action.action_type in (ActionType.BLOCK, ActionType.STAB):
        defender = game.get_player_at(target)
        if defender is None:
            return logit
        origin = path.steps[-2] if path is not None and len(path.steps) > 1 else player.position
        probs = game.get_blitz_probs(player, origin, defender) if origin != player.position \
            else game.get_block_probs(player, defender)
        return logit + 2.0 * block_value(board, player, defender, *probs)
    if action.action_type in (ActionType.PASS, ActionType.HANDOFF) and player is board.our_carrier:
        receiver = game.get_player_at(target)
        if receiver is None or receiver.team != board.team:
            return -BALL_MOVE_FAILURE
        success = handoff_success(game, receiver) if action.action_type == ActionType.HANDOFF \
            else pass_success(game, player, receiver)
        return ball_move_value(board, player, receiver, success)
    if action.action_type == ActionType.MOVE:
        if player is board.our_carrier:
            gain = board.to_endzone(player.position) - board.to_endzone(target)
            scores = board.to_endzone(target) == 0
            logit += gain / max(1, player.get_ma()) + (2.0 if scores else 0.0)
            return logit - 0.5 * board.tackle_zones.at(target) - (0.0 if scores else 0.5 * sideline_cost(game, target))
        if board.ball is not None and target == board.ball:
            return logit + 1.5
        if game.state.player_action_type == PlayerActionType.BLITZ:
            logit -= BLITZ_WITHOUT_BLOCK
        here = square_value(board, player, player.position) if player.state.up else -0.5
        return logit + 2.0 * (square_value(board, player, target) - here)
    return logit


def knowledge_board(game: botbowl.Game) -> Optional[Board]:
    """What the knowledge priors read from the state (None when no team acts)."""
    team = game.active_team
    return Board(game, team, {t for t in START_LOGITS if t != ActionType.END_TURN}) if team is not None else None


def knowledge_logits(game: botbowl.Game, actions: List[Action],
                     choose: Callable[[botbowl.Game], Action] = scripted_action,
                     board: Optional[Board] = None, paths: Optional[Lookup] = None) -> Tuple[List[float], Optional[int]]:
    """What the state says about each action, as logits, and the index of `choose`'s own choice
    among `actions` (None if it chose none of them or failed): the ingredients of `knowledge_priors`.
    `board` (`knowledge_board(game)`) and `paths` (`offered_paths_and_dice(game)[0]`): when the caller
    has them already."""
    team = game.active_team
    board = knowledge_board(game) if board is None else board
    player = game.state.active_player
    paths = offered_paths_and_dice(game)[0] if paths is None else paths
    proc = game.get_procedure()
    logits = []
    for action in actions:
        if board is None:
            logit = 0.0
        elif action.action_type in START_LOGITS:
            logit = _start_logit(board, action)
        elif action.position is not None and player is not None and player.position is not None:
            path = paths.get((action.action_type, action.position.x, action.position.y))
            logit = _target_logit(board, player, action, path)
        elif action.action_type == ActionType.END_PLAYER_TURN and player is not None:
            logit = 0.0 if player.state.moves > 0 or player.state.has_blocked else -0.5
        elif isinstance(proc, Block) and action.action_type in SELECT_DIE:
            sign = 1.0 if proc.attacker.team == team else -1.0
            logit = 0.8 * sign * die_value(proc, SELECT_DIE[action.action_type], game.get_ball_carrier())
        else:
            logit = 0.0
        logits.append(logit)
    try:
        chosen = choose(game)
    except Exception as exc:  # noqa: BLE001 - priors stay usable without the policy's opinion
        log_failure_once(exc, "the policy failed inside the priors; they go on without its choice")
        chosen = None
    if chosen is not None:
        for i, action in enumerate(actions):
            if same_action(action, chosen):
                return logits, i
    return logits, None


def knowledge_priors(game: botbowl.Game, actions: List[Action],
                     choose: Callable[[botbowl.Game], Action] = scripted_action) -> List[float]:
    """A probability for each action (summing to 1): what a coach would try first.

    The choice of a policy (`choose`: the scripted policy's by default) gets `SCRIPTED_BONUS`
    logits; the rest come from the state (`knowledge_logits`):
    block dice odds and fumble chances (`Game.get_block_probs`), the success chance of a move's
    path, the value of the square it ends on (cage, mark, screen), and an order of play (blocks
    and safe moves before the carrier's, no fouls, END_TURN last).
    """
    if not actions:
        return []
    logits, chosen = knowledge_logits(game, actions, choose)
    if chosen is not None:
        logits[chosen] += SCRIPTED_BONUS
    top = max(logits)
    weights = [math.exp(logit - top) for logit in logits]
    total = sum(weights)
    return [w / total for w in weights]


def uniform_priors(game: botbowl.Game, actions: List[Action]) -> List[float]:
    """Every action equally likely: PUCT without knowledge (an ablation)."""
    return [1.0 / len(actions)] * len(actions) if actions else []


def progress_priors(game: botbowl.Game, actions: List[Action]) -> List[float]:
    """The previous default's cheap priors (`action_priors`) as probabilities (an ablation)."""
    scores = action_priors(game, actions)
    top = max(scores, default=0.0)
    weights = [math.exp(3.0 * (score - top)) for score in scores]
    total = sum(weights)
    return [w / total for w in weights]


def knowledge_order(game: botbowl.Game, actions: List[Action], rng: np.random.RandomState) -> List[Action]:
    """Highest knowledge prior first, for expansion-order presets; ties in random order."""
    shuffled = [actions[i] for i in rng.permutation(len(actions))]
    priors = knowledge_priors(game, shuffled)
    order = sorted(range(len(shuffled)), key=lambda i: -priors[i])
    return [shuffled[i] for i in order]
