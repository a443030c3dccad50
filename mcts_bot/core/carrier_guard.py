"""The carrier's guards in the final choice: an overrule that would leave him thin must win by more.

Against `grod` on 11 players the default's carrier ended a turn with one guard or none beside him
twice as often as its knowledge alone's (30% of turn ends against 16%), and most of that after turns
in which the search overruled its priors (42% of those turn ends against 20%;
docs/bot-bowl-board.md, "The carrier's guards after the search's overrules"); a thin carrier is
knocked loose about half the time. The search prices a player's action at its end, mid-turn, where
a thin carrier is still to be mended by the players yet to act, and its overrules are mostly
near-ties. So where the search's choice would leave our carrier with fewer than two guards and the
priors' own choice would not, the choice must beat the priors' by `margin` (a larger bar than the
final policy's), or the priors' choice is played.

Where a choice leaves the carrier is read from the tree, not played: the choice's player action
followed along its most visited line (the likeliest outcome of each roll) to where that player
stands when it ends; every other player stays where he is.
"""
from __future__ import annotations

import math
from functools import partial
from typing import Iterable, Optional, TypeVar

import botbowl
from botbowl.core import ActionType

from mcts_bot.core.nodes import ActionNode, ChanceNode
from mcts_bot.core.policies import FinalGuard, lower_bound

# Actions that end the acting player's action, or start another's: the walk stops before them.
_ENDS = frozenset({ActionType.END_PLAYER_TURN, ActionType.END_TURN})
# Actions that put the acting player on their square, and those that give the ball to the teammate there.
_RELOCATES = frozenset({ActionType.MOVE, ActionType.FOLLOW_UP})
_GIVES_BALL = frozenset({ActionType.HANDOFF, ActionType.PASS})

Node = TypeVar("Node", ActionNode, ChanceNode)


def _most_visited(items: Iterable[Node]) -> Optional[Node]:
    best = max(items, key=lambda item: item.visits, default=None)
    return best if best is not None and best.visits > 0 else None


def guards_after(game: botbowl.Game, child: ChanceNode) -> Optional[int]:
    """The standing teammates beside our carrier where `child` (a root child of a search of `game`'s
    state, for the team to act) ends its player's action along the search's most visited line.
    None when the team to act does not hold the ball, or the line scores."""
    team = game.active_team
    carrier = game.get_ball_carrier()
    if team is None or carrier is None or carrier.team is not team or carrier.position is None:
        return None
    action = child.action
    actor = action.player if action.action_type.name.startswith("START_") else game.state.active_player
    actor_id = actor.player_id if actor is not None else None
    # The standing players, and the actor, who stands up to act if he is down.
    where = {player.player_id: (player.position.x, player.position.y) for player in team.players
             if player.position is not None and (player.state.up or player.player_id == actor_id)}
    carrier_id = carrier.player_id
    node: Optional[ChanceNode] = child
    while node is not None:
        act = node.action
        kind = act.action_type
        if node is not child and (kind in _ENDS or kind.name.startswith("START_")):
            break
        if act.position is not None and actor_id in where:
            square = (act.position.x, act.position.y)
            if kind in _RELOCATES:
                where[actor_id] = square
            elif kind in _GIVES_BALL:
                receiver = next((pid for pid, at in where.items() if at == square), None)
                if receiver is not None:
                    carrier_id = receiver
        outcome = _most_visited(node.outcomes.values())
        if outcome is None or outcome.is_opponent or outcome.terminal:
            break
        node = _most_visited(outcome.children)
    x, y = where[carrier_id]
    if x == game.get_opp_endzone_x(team):
        return None
    return sum(1 for pid, (gx, gy) in where.items()
               if pid != carrier_id and max(abs(gx - x), abs(gy - y)) == 1)


def thins_carrier(game: botbowl.Game, child: ChanceNode) -> bool:
    """Whether `child` leaves our carrier with fewer than two guards (`guards_after`)."""
    guards = guards_after(game, child)
    return guards is not None and guards < 2


def guarded_carrier_choice(game: botbowl.Game, root: ActionNode, chosen: ChanceNode, margin: float = math.inf,
                           z: float = 3.0, min_spread: float = 0.02) -> ChanceNode:
    """`chosen` (the final policy's pick at `root`, a search of `game`'s state), unless it overrules
    the priors' first choice into a thinner carrier (`thins_carrier`, where the first choice does
    not) without its confidence bound (`policies.lower_bound`, z and min_spread as the default's
    final choice) beating the first choice's mean by `margin`: then the first choice.
    `margin=math.inf`: never overrule into a thin carrier."""
    first = root.children[0]
    if chosen is first or first.visits == 0 or not thins_carrier(game, chosen) or thins_carrier(game, first):
        return chosen
    if not math.isinf(margin) and lower_bound(root, chosen, z, min_spread) > first.value + margin:
        return chosen
    return first


def carrier_guard(margin: float = math.inf) -> FinalGuard:
    """The final guard (`Preset.final_guard`) of `guarded_carrier_choice` with that margin."""
    if not margin >= 0:
        raise ValueError(f"the carrier guard's margin must be 0 or more (math.inf: never overrule), got {margin}")
    return partial(guarded_carrier_choice, margin=margin)
