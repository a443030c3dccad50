"""Tree and final policies on hand-built nodes."""
import math
import random

from botbowl.core import Action, ActionType

from mcts_bot import ActionNode, ChanceNode, most_visited, ucb1


def node_with(stats, opponent=False):
    """An ActionNode whose children have the given (visits, total_value), in that order."""
    node = ActionNode(key=0, actions=[], is_opponent=opponent, terminal=False)
    for visits, total in stats:
        child = ChanceNode(Action(ActionType.END_TURN), opponent)
        child.visits, child.total_value = visits, total
        node.children.append(child)
        node.actions.append(child.action)
    node.visits = sum(v for v, _ in stats)
    return node


def test_ucb1_maximises_on_our_nodes():
    node = node_with([(10, 3.0), (10, 7.0), (10, 5.0)])
    assert ucb1(node) is node.children[1]


def test_ucb1_minimises_on_the_opponents_nodes():
    node = node_with([(10, 3.0), (10, 7.0), (10, 5.0)], opponent=True)
    assert ucb1(node) is node.children[0]


def test_ucb1_explores_rarely_visited_children():
    # Lower mean but far fewer visits: the exploration term wins with the seed's constant...
    node = node_with([(100, 60.0), (2, 1.0)])
    assert ucb1(node) is node.children[1]
    # ...and loses when exploration is switched off.
    assert ucb1(node, c=0.0) is node.children[0]


def test_ucb1_formula_is_the_seeds():
    node = node_with([(4, 2.0), (6, 3.6)])
    c = 0.707
    scores = [0.5 + 2 * c * math.sqrt(2 * math.log(10) / 4), 0.6 + 2 * c * math.sqrt(2 * math.log(10) / 6)]
    assert ucb1(node) is node.children[scores.index(max(scores))]


def test_ucb1_takes_an_unvisited_child_first():
    node = node_with([(5, 5.0), (0, 0.0)])
    assert ucb1(node) is node.children[1]


def test_most_visited_picks_visits_over_value():
    node = node_with([(30, 12.0), (31, 3.0), (5, 5.0)])
    assert most_visited(node) is node.children[1]


def test_most_visited_tie_break_is_value_then_order_whatever_the_order():
    stats = [(20, 8.0), (20, 12.0), (20, 12.0), (19, 19.0)]
    for seed in range(10):
        node = node_with(stats)
        random.Random(seed).shuffle(node.children)
        best = most_visited(node)
        assert (best.visits, best.total_value) == (20, 12.0)
        # among the exact ties, the earlier child in expansion order wins
        tied = [c for c in node.children if (c.visits, c.total_value) == (20, 12.0)]
        assert best is tied[0]
