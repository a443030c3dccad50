"""Probe: where the search's edge over its knowledge lies, between player actions or within them
(docs/bot-bowl-board.md, "Common dice for siblings, and where the search's choices come from").

`TurnPriorsMCTS` is today's default (`mcts`), but between player actions (botbowl's `Turn`: which
player starts what, or the end of the turn) it plays its priors' first choice, as its knowledge alone
would; within a player action and at every other decision (dice, re-rolls, pushes, set-up) the
search decides as the default does, its carrier guard included. The search still runs at every
decision, so its tree is kept for the next as the default's is. Its turn-level overrules, which the
default makes in 2-3% of them and which played out were worth nothing measurable, are what it gives up.

    scripts/run.sh trace --bots docs/probes/search_scope.py:TurnPriorsMCTS grod --board 11 --games 10 --seed 52000
"""
from typing import Optional

import botbowl
from botbowl.core.procedure import Turn

from mcts_bot import MCTSBot, configure
from mcts_bot.core.nodes import ActionNode, ChanceNode
from mcts_bot.presets import BOARD_FINAL_GUARD


def priors_between_actions(game: botbowl.Game, root: ActionNode, chosen: ChanceNode) -> ChanceNode:
    """The priors' first choice between player actions; elsewhere the default's guarded choice."""
    if isinstance(game.state.stack.peek(), Turn) and game.state.active_player is None:
        return root.children[0]
    return BOARD_FINAL_GUARD.pick(game)(game, root, chosen)


class TurnPriorsMCTS(MCTSBot):
    """The default with its turn-level choices left to its priors (`priors_between_actions`), 1 s a decision."""

    def __init__(self, name: str = "turn-priors", seed: Optional[int] = None):
        super().__init__(name, preset=configure("default", final_guard=priors_between_actions), seed=seed)
