"""The XML view of the tree: made with a real XML library, parses back, agrees with the tree."""
import xml.etree.ElementTree as ET
from types import SimpleNamespace

from botbowl.core import Action, ActionType

import mcts_bot
from conftest import turn_position
from mcts_bot import ActionNode, ChanceNode, to_xml
from mcts_bot.core.nodes import iter_action_nodes
from mcts_bot.core.policies import most_visited


def count_visits(element):
    total = {"ActionNode": 0, "ChanceNode": 0}
    for e in element.iter():
        total[e.tag] += int(e.get("visits"))
    return total


def test_xml_parses_and_agrees_with_the_tree():
    root = mcts_bot.search(turn_position(3, seed=6), iterations=250, seed=0, stop_when_decided=False)
    element = ET.fromstring(to_xml(root))
    assert element.tag == "ActionNode" and element.get("p") == "max"
    assert int(element.get("visits")) == root.visits == 250
    assert int(element.get("actions")) == len(root.actions)
    nodes = list(iter_action_nodes(root))
    assert len(element.findall(".//ActionNode")) + 1 == len(nodes)
    assert len(element.findall(".//ChanceNode")) == sum(len(n.children) for n in nodes)
    assert count_visits(element) == {"ActionNode": sum(n.visits for n in nodes),
                                     "ChanceNode": sum(c.visits for n in nodes for c in n.children)}
    for chance in element.iter("ChanceNode"):
        assert ActionType[chance.get("action")]
        assert int(chance.get("visits")) == sum(int(o.get("visits")) for o in chance)
    # the default searches with priors: every expanded node's children carry them, summing to one
    expanded = [e for e in element.iter("ActionNode") if len(e)]
    assert expanded
    for node in expanded:
        assert abs(sum(float(c.get("prior")) for c in node) - 1.0) < 1e-4


def test_children_best_first():
    root = mcts_bot.search(turn_position(3, seed=6), iterations=250, seed=0)
    element = ET.fromstring(to_xml(root))
    visits = [int(c.get("visits")) for c in element]
    assert visits == sorted(visits, reverse=True)
    assert int(element[0].get("visits")) == most_visited(root).visits


def test_max_depth_cuts_the_tree():
    root = mcts_bot.search(turn_position(3, seed=6), iterations=250, seed=0)
    assert len(ET.fromstring(to_xml(root, max_depth=0))) == 0
    shallow = ET.fromstring(to_xml(root, max_depth=1))
    assert all(len(outcome) == 0 for chance in shallow for outcome in chance)
    assert len(shallow) == len(root.children)


def test_special_characters_are_escaped():
    player = SimpleNamespace(nr=7, player_id='id"<&>', role=SimpleNamespace(name="Orc <Big> & 'Ugly'"))
    root = ActionNode(key=0, actions=[Action(ActionType.START_MOVE, player=player)], is_opponent=True, terminal=False)
    child = ChanceNode(root.actions[0], True)
    child.visits, child.total_value = 1, 0.25
    root.children.append(child)
    root.visits, root.total_value = 1, 0.25
    element = ET.fromstring(to_xml(root))
    assert element.get("p") == "min"
    assert element[0].get("player") == "#7 Orc <Big> & 'Ugly'"
    assert element[0].get("player_id") == 'id"<&>'
    assert float(element[0].get("score")) == 0.25
