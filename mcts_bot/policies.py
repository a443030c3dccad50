"""The pluggable policies of the search, as plain functions with the signatures below.

- TreePolicy: picks the child to descend into at a fully expanded ActionNode.
- FinalPolicy: picks the move to play from the root once the search is over.
- RolloutPolicy: picks an action for whoever acts during a rollout (randomness from `rng` only).
- ActionOrder: orders a new node's actions; children are expanded in that order.

Options are bound with `functools.partial`, e.g. `partial(ucb1, c=1.0)`.
"""
from __future__ import annotations

import math
from typing import Callable, List

import botbowl
import numpy as np
from botbowl.core import Action, ActionType

from mcts_bot.nodes import ActionNode, ChanceNode

TreePolicy = Callable[[ActionNode], ChanceNode]
FinalPolicy = Callable[[ActionNode], ChanceNode]
RolloutPolicy = Callable[[botbowl.Game, np.random.RandomState], Action]
ActionOrder = Callable[[botbowl.Game, List[Action], np.random.RandomState], List[Action]]

SEED_EXPLORATION = 0.707


def ucb1(node: ActionNode, c: float = SEED_EXPLORATION) -> ChanceNode:
    """UCB1 as in the seed: mean + 2c * sqrt(2 ln N / n), on 1 - mean at the opponent's nodes.

    Maximising 1 - mean is minimising the searching team's value: the opponent is assumed to
    play against us. Ties go to the earlier child. A child's `bias` (0 unless the preset sets a
    prior bias) is added to its score.
    """
    log_n = math.log(max(node.visits, 1))
    best, best_score = None, -math.inf
    for child in node.children:
        if child.visits == 0:
            return child
        mean = child.total_value / child.visits
        if node.is_opponent:
            mean = 1.0 - mean
        score = mean + 2 * c * math.sqrt(2 * log_n / child.visits) + child.bias
        if score > best_score:
            best, best_score = child, score
    if best is None:
        raise ValueError("ucb1 needs a node with at least one child")
    return best


def normalized_ucb1(node: ActionNode, c: float = 0.5, min_span: float = 0.01) -> ChanceNode:
    """UCB1 on the children's means rescaled by the spread between the lowest and highest of them.

    A heuristic's values for positional moves can differ by a hundredth while UCB1's exploration
    term is of order one, which makes plain UCB1 nearly uniform. Rescaling (as MuZero does with
    the tree's value bounds) lets the exploration constant mean the same on any value scale. The
    spread counts as at least `min_span`, so that differences smaller than that (the noise of a few
    dice) are not blown up into a whole unit and an option is not dropped after one unlucky roll.
    Minimises at the opponent's nodes; ties go to the earlier child.
    """
    if not node.children:
        raise ValueError("normalized_ucb1 needs a node with at least one child")
    means = []
    for child in node.children:
        if child.visits == 0:
            return child
        mean = child.total_value / child.visits
        means.append(1.0 - mean if node.is_opponent else mean)
    low, high = min(means), max(means)
    span = max(high - low, min_span)
    log_n = math.log(max(node.visits, 1))
    best, best_score = node.children[0], -math.inf
    for child, mean in zip(node.children, means):
        score = (mean - low) / span + c * math.sqrt(2 * log_n / child.visits) + child.bias
        if score > best_score:
            best, best_score = child, score
    return best


def most_visited(node: ActionNode) -> ChanceNode:
    """The most visited child; ties go to the higher mean value, then to the earlier expanded child.

    Values are the searching team's, so the value tie-break is meant for the root (always ours).
    """
    if not node.children:
        raise ValueError("most_visited needs a node with at least one child")
    return max(node.children, key=lambda child: (child.visits, child.value))


def botbowl_order(game: botbowl.Game, actions: List[Action], rng: np.random.RandomState) -> List[Action]:
    """Keep botbowl's order (the seed's): players and squares left to right, toward one endzone."""
    return actions


def shuffled_order(game: botbowl.Game, actions: List[Action], rng: np.random.RandomState) -> List[Action]:
    """A random order, so that no side or direction is explored first (OpenSpiel does the same)."""
    order = rng.permutation(len(actions))
    return [actions[i] for i in order]


_NEVER_IN_ROLLOUTS = (ActionType.PLACE_PLAYER, ActionType.UNDO)


def random_rollout_policy(game: botbowl.Game, rng: np.random.RandomState) -> Action:
    """A uniformly random action choice, then a uniformly random player and square for it.

    Never PLACE_PLAYER or UNDO, and never END_SETUP while the acting team has nobody on the pitch.
    """
    team = game.active_team
    choices = []
    for choice in game.state.available_actions:
        if choice.action_type in _NEVER_IN_ROLLOUTS:
            continue
        if choice.action_type == ActionType.END_SETUP and not game.get_players_on_pitch(team):
            continue
        choices.append(choice)
    if not choices:
        raise ValueError("no action available to the rollout policy")
    choice = choices[rng.randint(len(choices))]
    position = choice.positions[rng.randint(len(choice.positions))] if choice.positions else None
    player = choice.players[rng.randint(len(choice.players))] if choice.players else None
    return Action(choice.action_type, position=position, player=player)
