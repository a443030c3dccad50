"""The search tree: ActionNodes (someone chooses) alternating with ChanceNodes (an action's random outcomes).

Nodes store no game state: the search re-creates a node's state by stepping the actions on the
path from the root. Values are always from the searching team's point of view, in [0, 1]; a node
belonging to the opponent is minimised by the tree policy, not stored negated.

Statistics are running sums, `visits` and `total_value`: constant time and memory per visit.
"""
from __future__ import annotations

import math
from typing import Dict, Iterator, List, Optional

from botbowl.core import Action


class ActionNode:
    """A game state where one team chooses among `actions`.

    Without priors, `children` holds one ChanceNode per action tried so far, in the order they were
    tried; the actions still untried are `actions[len(children):]`, so the expansion order is the
    order of `actions` (a preset's action ordering decides it). With priors, `expand_all` creates
    every child at once, each with its prior, best first, and the tree policy picks among them.
    """

    __slots__ = ("key", "actions", "biases", "children", "is_opponent", "terminal", "visits", "total_value",
                 "total_square", "dice_seed", "arrivals")

    def __init__(self, key: int, actions: List[Action], is_opponent: bool, terminal: bool,
                 biases: Optional[List[float]] = None):
        self.key = key
        self.actions = actions
        self.biases = biases  # with a prior bias: one per action, handed to its ChanceNode
        self.children: List[ChanceNode] = []
        self.is_opponent = is_opponent
        self.terminal = terminal
        self.visits = 0
        self.total_value = 0.0
        self.total_square = 0.0
        # For tree parallelism (`parallel.tree`): the seed of the dice that first led here from the
        # parent's action, and how often the search's own dice did, so that a helper can be sent
        # down an outcome as often as dice reach it.
        self.dice_seed: Optional[int] = None
        self.arrivals = 0

    @property
    def value(self) -> float:
        """Mean value of the visits, from the searching team's point of view (0.5 when unvisited)."""
        return self.total_value / self.visits if self.visits else 0.5

    @property
    def is_leaf(self) -> bool:
        """True when the search cannot go below this node: the game is over or nothing can be chosen."""
        return self.terminal or not self.actions

    def is_fully_expanded(self) -> bool:
        return len(self.children) == len(self.actions)

    def expand(self) -> "ChanceNode":
        """Add the child for the next untried action."""
        i = len(self.children)
        child = ChanceNode(self.actions[i], self.is_opponent, self.biases[i] if self.biases else 0.0)
        self.children.append(child)
        return child

    def expand_all(self, priors: List[float]) -> None:
        """Create a child for every action, with its prior (one per action), highest prior first.
        A child it already has (same action object) is kept, with its statistics and the new prior."""
        if len(priors) != len(self.actions):
            raise ValueError(f"{len(priors)} priors for {len(self.actions)} actions")
        order = sorted(range(len(self.actions)), key=lambda i: -priors[i])  # stable: ties keep the order
        known = {id(child.action): child for child in self.children}
        self.actions = [self.actions[i] for i in order]
        self.children = [known.pop(id(action), None) or ChanceNode(action, self.is_opponent)
                         for action in self.actions]
        for child, i in zip(self.children, order):
            child.prior = priors[i]

    def visit(self, value: float) -> None:
        self.visits += 1
        self.total_value += value
        self.total_square += value * value

    def __repr__(self) -> str:
        side = "min" if self.is_opponent else "max"
        return f"ActionNode({side}, visits={self.visits}, value={self.value:.3f}, actions={len(self.actions)})"


class ChanceNode:
    """An action taken in its parent's state; `outcomes` maps each resulting state's hash to its ActionNode.

    It keeps its parent's side (`is_opponent`) rather than a parent pointer, so the tree has no
    reference cycles and is freed the moment the search lets go of its root.
    """

    __slots__ = ("action", "is_opponent", "bias", "prior", "outcomes", "visits", "total_value", "total_square")

    def __init__(self, action: Action, is_opponent: bool, bias: float = 0.0, prior: Optional[float] = None):
        self.action = action
        self.is_opponent = is_opponent
        self.bias = bias  # added to the tree policy's score for this child (a decaying prior; 0 without)
        self.prior = prior  # the search's prior probability for this action (PUCT), None without priors
        self.outcomes: Dict[int, ActionNode] = {}
        self.visits = 0
        self.total_value = 0.0
        self.total_square = 0.0  # the sum of squared values: with the sum, the spread of the values

    @property
    def value(self) -> float:
        return self.total_value / self.visits if self.visits else 0.5

    def visit(self, value: float) -> None:
        self.visits += 1
        self.total_value += value
        self.total_square += value * value

    def __repr__(self) -> str:
        return f"ChanceNode({describe_action(self.action)}, visits={self.visits}, value={self.value:.3f})"


def spread(node: "ActionNode | ChanceNode") -> float:
    """The sample standard deviation of the values a node was visited with (0 below two visits)."""
    if node.visits < 2:
        return 0.0
    mean = node.total_value / node.visits
    variance = max(0.0, node.total_square / node.visits - mean * mean) * node.visits / (node.visits - 1)
    return math.sqrt(variance)


def describe_action(action: Action) -> str:
    """A short readable form: `MOVE (4,2)`, `START_BLITZ #3 Blitzer`."""
    text = action.action_type.name
    if action.player is not None:
        text += f" #{action.player.nr} {action.player.role.name}"
    if action.position is not None:
        text += f" ({action.position.x},{action.position.y})"
    return text


def iter_action_nodes(root: ActionNode) -> Iterator[ActionNode]:
    """Every ActionNode of the tree, root first (iterative: trees can be deep)."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        for child in node.children:
            stack.extend(child.outcomes.values())


def find_state(root: ActionNode, key: int, max_nodes: int = 50_000) -> Optional[ActionNode]:
    """The shallowest ActionNode below `root` (not `root` itself) whose state hash is `key`, if any;
    breadth first, giving up after `max_nodes` nodes so a huge tree cannot eat a decision's time."""
    level = [root]
    seen = 0
    while level and seen < max_nodes:
        below = []
        for node in level:
            for child in node.children:
                for outcome in child.outcomes.values():
                    if outcome.key == key:
                        return outcome
                    below.append(outcome)
            seen += 1
        level = below
    return None
