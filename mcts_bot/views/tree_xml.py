"""The search tree as XML: a view of why the bot chose its move.

`<ActionNode p="max|min" visits score actions>` holds one `<ChanceNode>` per action tried (with
priors: per action, tried or not), and each `<ChanceNode p visits score prior action player
position>` holds one `<ActionNode>` per outcome seen; `prior` is there when the search used priors.
Children come best first: most visited, then best for the side choosing at that node. `score` is the
mean value from the searching team's point of view, so `p="min"` nodes prefer low scores.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Optional

from mcts_bot.core.nodes import ActionNode, ChanceNode


def _side(is_opponent: bool) -> str:
    return "min" if is_opponent else "max"


def best_first_key(child: ChanceNode) -> tuple:
    """Sort key putting a node's children best first: most visited, then best for the side choosing."""
    preference = 1.0 - child.value if child.is_opponent else child.value
    return (-child.visits, -preference)


def _action_node(node: ActionNode, depth: int, max_depth: Optional[int]) -> ET.Element:
    element = ET.Element("ActionNode", p=_side(node.is_opponent), visits=str(node.visits),
                         score=f"{node.value:.6f}", actions=str(len(node.actions)))
    if node.terminal:
        element.set("terminal", "true")
    if max_depth is not None and depth >= max_depth:
        return element
    for child in sorted(node.children, key=best_first_key):
        element.append(_chance_node(child, depth, max_depth))
    return element


def _chance_node(node: ChanceNode, depth: int, max_depth: Optional[int]) -> ET.Element:
    action = node.action
    element = ET.Element("ChanceNode", p=_side(node.is_opponent), visits=str(node.visits),
                         score=f"{node.value:.6f}", action=action.action_type.name)
    if node.prior is not None:
        element.set("prior", f"{node.prior:.6f}")
    if action.player is not None:
        element.set("player", f"#{action.player.nr} {action.player.role.name}")
        element.set("player_id", str(action.player.player_id))
    if action.position is not None:
        element.set("position", f"{action.position.x},{action.position.y}")
    for outcome in sorted(node.outcomes.values(), key=lambda n: -n.visits):
        element.append(_action_node(outcome, depth + 1, max_depth))
    return element


def to_element(root: ActionNode, max_depth: Optional[int] = None) -> ET.Element:
    """The tree as an ElementTree element; `max_depth` counts decisions (ActionNode levels) below the root."""
    if max_depth is not None and max_depth < 0:
        raise ValueError(f"max_depth must be None or at least 0, got {max_depth}")
    return _action_node(root, 0, max_depth)


def to_xml(root: ActionNode, max_depth: Optional[int] = None) -> str:
    """The tree as an indented XML string (see the module doc for its elements and attributes)."""
    element = to_element(root, max_depth)
    ET.indent(element)
    return ET.tostring(element, encoding="unicode")
