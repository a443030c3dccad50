"""The pluggable policies of the search, as plain functions with the signatures below.

- TreePolicy: picks the child to descend into at a fully expanded ActionNode.
- FinalPolicy: picks the move to play from the root once the search is over.
- FinalGuard: may change that pick, seeing the game (game, root, chosen) -> the child to play.
- RolloutPolicy: picks an action for whoever acts during a rollout (randomness from `rng` only).
- ActionOrder: orders a new node's actions; children are expanded in that order.

Options are bound with `functools.partial`, e.g. `partial(ucb1, c=1.0)`.
"""
from __future__ import annotations

import math
import weakref
from typing import Callable, Collection, Dict, List, Optional

import botbowl
import numpy as np
from botbowl.core import Action, ActionType
from botbowl.core.procedure import Turn

from mcts_bot.adapter.game_memos import game_memo
from mcts_bot.adapter.hashing import game_state_hash
from mcts_bot.core.nodes import ActionNode, ChanceNode
from mcts_bot.core.nodes import spread as value_spread

TreePolicy = Callable[[ActionNode], ChanceNode]
FinalPolicy = Callable[[ActionNode], ChanceNode]
FinalGuard = Callable[[botbowl.Game, ActionNode, ChanceNode], ChanceNode]
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


PUCT_EXPLORATION = 1.5
FIRST_PLAY_REDUCTION = 0.2  # an untried child counts as the node's own value minus this (normalised)


def puct(node: ActionNode, c: float = PUCT_EXPLORATION, min_span: float = 0.01) -> ChanceNode:
    """PUCT (AlphaZero's selection) on values normalised over the node's children.

    score = q + c * prior * sqrt(N) / (1 + n), where q is the child's mean rescaled to [0, 1] by the
    lowest and highest means among the tried children (at least `min_span` apart: greedy, which the
    README's measurements favour), from the side choosing at the node; an untried child gets the
    node's own value so rescaled, minus `FIRST_PLAY_REDUCTION`, so that tried children that did well
    are preferred to blind guesses while a high prior still gets its turn. Needs children with
    priors (`ActionNode.expand_all`). Ties go to the earlier child, which is the one with the
    higher prior.
    """
    if not node.children:
        raise ValueError("puct needs a node whose children were created with their priors")
    flip = node.is_opponent
    means = [None if ch.visits == 0 else (1.0 - ch.value if flip else ch.value) for ch in node.children]
    tried = [m for m in means if m is not None]
    own = 1.0 - node.value if flip else node.value
    low, high = (min(tried + [own]), max(tried + [own])) if tried else (own, own)
    span = max(high - low, min_span)
    untried_q = max(0.0, (own - low) / span - FIRST_PLAY_REDUCTION)
    sqrt_n = math.sqrt(max(node.visits, 1))
    best, best_score = node.children[0], -math.inf
    for child, mean in zip(node.children, means):
        q = untried_q if mean is None else (mean - low) / span
        score = q + c * (child.prior or 0.0) * sqrt_n / (1 + child.visits)
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


def robust_child(node: ActionNode, z: float = 1.0, min_visits: int = 4, min_spread: float = 0.02,
                 min_gain: float = 0.0) -> ChanceNode:
    """The prior's first choice, unless the search found a better one beyond doubt.

    With a small budget the visit counts mostly echo the priors, and the best mean is mostly the
    luckiest: both are poor final choices. This keeps the highest-prior child (the first, after
    `ActionNode.expand_all`) unless another child with at least `min_visits` visits has a lower
    confidence bound above the first child's mean; then it plays the child with the best lower
    bound (`lower_bound`). If the first child has fewer than `min_visits` visits (the search turned
    away from it), the best lower bound among the children that have them wins. `min_gain` asks the
    bound to beat the first child's mean by that much more: the leaf value's own errors between
    siblings do not shrink with visits as the sampling noise does. Without priors it is `most_visited`.
    Meant for the root (our choice).
    """
    if not node.children:
        raise ValueError("robust_child needs a node with at least one child")
    if node.children[0].prior is None:
        return most_visited(node)
    first = node.children[0]
    tried = [child for child in node.children if child.visits >= min_visits]
    if not tried:
        return most_visited(node)

    def bound(child: ChanceNode) -> float:
        return lower_bound(node, child, z, min_spread)

    best = max(tried, key=bound)
    if first.visits < min_visits or bound(best) > first.value + min_gain:
        return best
    return first


# The once-a-turn actions, each with the act it is started for. A move ends all but a pass (with
# `Preset.end_moves`, unless it picks up the ball); after a pass's move the thrower may go on.
IDLE_AS_MOVE = {ActionType.START_BLITZ: ActionType.BLOCK, ActionType.START_HANDOFF: ActionType.HANDOFF,
                ActionType.START_FOUL: ActionType.FOUL, ActionType.START_PASS: ActionType.PASS}


def idle_action_as_move(root: ActionNode, chosen: ChanceNode,
                        kinds: Collection[ActionType] = (ActionType.START_BLITZ,)) -> ChanceNode:
    """`chosen`, unless it starts a blitz (or another of `kinds`, keys of `IDLE_AS_MOVE`) its own
    subtree would not block (hand off, foul, throw) in: then the same player's `START_MOVE`, when the
    root offers it (visited or not).

    The search's most visited continuation of the action is then `END_PLAYER_TURN`, or a `MOVE`
    after which no outcome lets him still act: none offers the act, or where one does, the search's
    most visited continuation there is `END_PLAYER_TURN` (a pass goes on after a move; with
    `Preset.end_moves` a move ends the others unless it picks up the ball). The player's move action
    does the same and leaves the turn's one blitz (hand-off, foul, pass) to another player; nothing
    in a leaf's value prices the action spent, so the search can prefer a blitz whose move it has
    seen over the same player's move it never visited (docs/bot-bowl-board.md, "Blitzes the search
    started, spent on a move")."""
    action = chosen.action
    act = IDLE_AS_MOVE.get(action.action_type)
    if act is None or action.action_type not in kinds or len(chosen.outcomes) != 1:
        return chosen
    then = _searched_continuation(next(iter(chosen.outcomes.values())))
    if then is None:  # the action's own subtree not searched yet: nothing says it would only move
        return chosen
    if then.action.action_type not in (ActionType.MOVE, ActionType.END_PLAYER_TURN) or any(
            _may_still_act(outcome, act) for outcome in then.outcomes.values()):
        return chosen
    return next((child for child in root.children if child.action.action_type == ActionType.START_MOVE
                 and child.action.player is not None and action.player is not None
                 and child.action.player.player_id == action.player.player_id), chosen)


def _may_still_act(node: ActionNode, act: ActionType) -> bool:
    """Whether `node` offers `act` and the search has not settled on ending the action there instead."""
    if not any(a.action_type == act for a in node.actions):
        return False
    then = _searched_continuation(node)
    return then is None or then.action.action_type != ActionType.END_PLAYER_TURN


def _searched_continuation(node: ActionNode) -> Optional[ChanceNode]:
    """`node`'s most visited child (the first of a tie), or None when no child was visited."""
    then = max(node.children, key=lambda child: child.visits, default=None)
    return then if then is not None and then.visits > 0 else None


def choice_stands(game: botbowl.Game, root: ActionNode, chosen: ChanceNode) -> ChanceNode:
    """The final guard that changes nothing (for a board a `ByBoard` guard leaves alone)."""
    return chosen


def priors_between_actions(game: botbowl.Game, root: ActionNode, chosen: ChanceNode,
                           within: FinalGuard = choice_stands) -> ChanceNode:
    """The priors' first choice between player actions (botbowl's `Turn` on top of the stack: which
    player starts what, or the end of the turn); at every other decision `within`'s guarded choice.

    Only the stack is read: botbowl leaves the last acting player as `active_player` after a
    touchdown, so the first turn of the next drive would not pass a test of `active_player is None`.
    """
    if isinstance(game.get_procedure(), Turn):
        return root.children[0]
    return within(game, root, chosen)


def priors_within_actions(game: botbowl.Game, root: ActionNode, chosen: ChanceNode,
                          between: FinalGuard = choice_stands) -> ChanceNode:
    """The complement of `priors_between_actions`: the priors' first choice at every decision within a
    player's action (where to move, which block die, follow up or not, a re-roll), `between`'s guarded
    choice between player actions."""
    if isinstance(game.get_procedure(), Turn):
        return between(game, root, chosen)
    return root.children[0]


def lower_bound(node: ActionNode, child: ChanceNode, z: float = 1.0, min_spread: float = 0.02) -> float:
    """`robust_child`'s confidence bound on a child's mean: mean - z * s / sqrt(visits).

    s is the spread of all the node's values (at least `min_spread`), not the child's own: after a
    few visits whose leaves happened to agree a child's own spread says little. A child not yet
    visited is taken as visited once.
    """
    spread = max(min_spread, value_spread(node))
    return child.value - z * spread / math.sqrt(max(child.visits, 1))


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


class RememberedChoice:
    """A deterministic policy's choice remembered per state of each game, for a policy worth more
    than the state's hash (`grod_action`, which on 11 players prices every player's candidates).

    Call it as a rollout policy, `(game, rng)`, or as the priors' `choose`, `(game)`: one memo serves
    both, so a new leaf's playout and, at its next visit, its priors ask the policy once. In a
    search about half the calls repeat a state seen before (the playouts' dice-free steps become
    tree nodes later). Only for a policy whose choice the state decides: the memo returns the first
    answer, whatever `rng` says. Memos are per game object (a remembered action names that game's
    players) and are not pickled with the preset.
    """

    enabled = True  # False: ask the policy every time (for measuring what the memo saves)

    def __init__(self, policy: RolloutPolicy, capacity: int = 100_000):
        self.policy, self.capacity = policy, capacity
        self._memos: "weakref.WeakKeyDictionary[botbowl.Game, Dict[int, Action]]" = weakref.WeakKeyDictionary()
        self.hits = self.misses = 0

    def __call__(self, game: botbowl.Game, rng: Optional[np.random.RandomState] = None) -> Action:
        if not self.enabled:
            return self.policy(game, rng)
        memo = game_memo(self._memos, game)
        key = game_state_hash(game)
        action = memo.get(key)
        if action is not None:
            self.hits += 1
            return action
        self.misses += 1
        action = self.policy(game, rng)
        if len(memo) >= self.capacity:
            memo.clear()
        memo[key] = action
        return action

    def __getstate__(self) -> dict:
        return {"policy": self.policy, "capacity": self.capacity}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["policy"], state["capacity"])

    def __repr__(self) -> str:
        return f"RememberedChoice({getattr(self.policy, '__name__', self.policy)!r})"
