"""mcts_bot: Monte Carlo Tree Search for botbowl.

`import mcts_bot` registers the bot with botbowl, so `botbowl.make_bot("mcts")` works, and also
`"mcts-vanilla"` (the seed's settings) and `"scripted"` (the rule-based sparring partner) for comparisons.
"""
from functools import partial

import botbowl

from mcts_bot import fast_reversible
from mcts_bot.actions import legal_actions
from mcts_bot.agent import MCTSBot
from mcts_bot.decision_view import DecisionPages, decision_html
from mcts_bot.hashing import game_state_hash
from mcts_bot.heuristics import material_heuristic, progress_heuristic, threat_heuristic
from mcts_bot.nodes import ActionNode, ChanceNode
from mcts_bot.policies import (botbowl_order, most_visited, normalized_ucb1, puct, random_rollout_policy,
                               robust_child, shuffled_order, ucb1)
from mcts_bot.priors import knowledge_priors, prior_order
from mcts_bot.scripted import ScriptedBot, scripted_action
from mcts_bot.presets import PRESETS, Preset, configure, get_preset
from mcts_bot.render import to_xml
from mcts_bot.mcts import Budget, SearchResult, SearchStats, run_search, search

__all__ = [
    "ActionNode", "Budget", "ChanceNode", "DecisionPages", "MCTSBot", "PRESETS", "Preset", "ScriptedBot",
    "SearchResult", "SearchStats", "botbowl_order", "configure", "decision_html", "game_state_hash", "get_preset",
    "knowledge_priors", "legal_actions", "material_heuristic", "most_visited", "normalized_ucb1", "prior_order",
    "progress_heuristic", "puct", "random_rollout_policy", "robust_child", "run_search", "scripted_action", "search",
    "shuffled_order", "threat_heuristic", "to_xml", "ucb1",
]

# Only the bots a user picks from a list: ablation presets stay reachable by preset name
# (`MCTSBot(preset=...)`, `--opponent mcts-<preset>` in the scripts) without crowding botbowl's bot list.
BOT_NAMES = {"mcts": MCTSBot, "mcts-vanilla": partial(MCTSBot, preset="vanilla"), "scripted": ScriptedBot}


def _register() -> None:
    """Register each name once: botbowl's registry raises on a second registration (e.g. a reload)."""
    registered = set(botbowl.list_bots())
    for name, factory in BOT_NAMES.items():
        if name not in registered:
            botbowl.register_bot(name, factory)


_register()
fast_reversible.install()  # botbowl's forward-model bookkeeping, same behaviour, less time (see the module)
