"""mcts_bot: Monte Carlo Tree Search for botbowl.

`import mcts_bot` registers the bot with botbowl, so `botbowl.make_bot("mcts")` works, and also
`"mcts-vanilla"` (the seed's settings), the two rule-based sparring partners: `"scripted"` (a
prioritised list of rules, in the style of botbowl's tutorials) and `"grod"` (every action priced by
its gain and risk, in the style of GrodBot), and `"policy"` (the default search's knowledge priors
played alone, without search).

Importing it registers those names and changes nothing else in botbowl. The package in layers,
each importing only from the ones before it (`tests/test_layers.py`): `logs`; `adapter` (botbowl:
state keys, actions, the search's copy, clocks); `core` (nodes, policies, `Preset`, the search loop)
beside `knowledge` (scripted play, grod, priors, heuristics, the learned value); `parallel` (search
workers) and `views` (XML, SVG, HTML); `presets` and `agent`; and the `harness` for experiments,
which the bot never uses.
"""
from functools import partial

import botbowl

from mcts_bot.agent import MCTSBot, search
from mcts_bot.core.nodes import ActionNode, ChanceNode
from mcts_bot.core.preset import ByBoard, Preset
from mcts_bot.core.search import Budget, Search, SearchResult, SearchStats, run_search
from mcts_bot.knowledge.grod import GrodBot
from mcts_bot.knowledge.policy_bot import PolicyBot
from mcts_bot.knowledge.scripted import ScriptedBot
from mcts_bot.presets import PRESETS, configure, get_preset
from mcts_bot.views.decision_page import DecisionPages
from mcts_bot.views.tree_xml import to_xml

__all__ = [
    "ActionNode", "Budget", "ByBoard", "ChanceNode", "DecisionPages", "GrodBot", "MCTSBot", "PRESETS", "Preset",
    "ScriptedBot", "Search", "SearchResult", "SearchStats", "configure", "get_preset", "run_search", "search",
    "to_xml",
]

# Only the bots a user picks from a list: ablation presets stay reachable by preset name
# (`MCTSBot(preset=...)`, `--opponent mcts-<preset>` in the scripts) without crowding botbowl's bot list.
BOT_NAMES = {"mcts": MCTSBot, "mcts-vanilla": partial(MCTSBot, preset="vanilla"), "scripted": ScriptedBot,
             "grod": GrodBot, "policy": partial(PolicyBot, priors=PRESETS["default"].priors)}


def _register() -> None:
    """Register each name once: botbowl's registry raises on a second registration (e.g. a reload)."""
    registered = set(botbowl.list_bots())
    for name, factory in BOT_NAMES.items():
        if name not in registered:
            botbowl.register_bot(name, factory)


_register()
