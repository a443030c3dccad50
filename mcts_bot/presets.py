"""Presets: named, complete sets of the search's pluggable parts.

`vanilla` is the seed's algorithm exactly (see `../shared/seeds/000_*`): UCB1 with c = 0.707,
expansion in botbowl's order, the material heuristic, no rollouts (as in the seed's published code),
most visited child. It stays unchanged as the baseline every improvement is measured against.

`default` is what `MCTSBot()` and `botbowl.make_bot("mcts")` play: it plans with Blood Bowl
knowledge. PUCT over knowledge priors (a rule-based policy's choice first, then block dice odds,
path success and square values); each new leaf's player action finished by that policy before the
learned value (`knowledge.value`, seed 001) scores the board; a move and the end of that player's
action as one decision; the subtree of the reached state kept for the next decision; the prior's
first choice played unless the search found a better one beyond doubt (`robust_child` with z = 3:
another child's lower bound three spreads below its mean must beat the first choice's mean, on the
Bot Bowl board by 0.02 more, `BOARD_FINAL_CHOICE`; with z = 1, the default until commit 3c57d23 and
now `default-z1`, the search overruled its priors in 20-34% of 11-player decisions and lost more
to other styles). The rule-based policy is the board's
(`board_choice`): on the Bot Bowl board (11 players a side) `grod`'s, every player's plans priced
by gain and risk, mended to play as `grod` within a player action (`grod_mended_action`;
`default-unmended` plans with the choice before the mends), its carrier pricing a square by what the
opponents' blitz could reach there, a thin cage (fewer than two guards) above a full one, and its
teammates closing the ways into the cage (`exposure=True`; `default-no-exposure` is the default before
it, up to commit 4b015f2; the guards entered at eeeaedf), its ties settled in the acting team's own
frame so that it plays an arrangement as home as it plays its mirror as away (`own_frame=True`;
`default-board-order` is the default before, settling them by botbowl's board order); on smaller
boards the scripted policy's. `default-scripted` plays the scripted policy on every board, as the default did up to
commit a88d236; `default-grod` plays `grod`'s unmended choice on every board.
The search leaves out a blitz whose player can block nobody while his move is offered
(`Preset.prune_dominated`, `actions.legal_actions`): it can only move, as the move does, and it spends
the turn's blitz; `default-no-prune` is the default up to commit 16d3103, which searched them. On the
Bot Bowl board it also leaves out the blocks `grod`'s rule forbids (one die or dice against, unless on
their carrier, freeing ours or in the half's last turn: `knowledge.pruning.without_unworthy_blocks`),
measured as `default-worthy-blocks` (the default up to commit 412c249); `default-all-blocks` is the default
before, up to commit 9442fe2.
`default-openings` also leaves out, below the tree's root, what ends a blitz, pass, hand-off or foul
at its first step having done nothing of its kind (`Preset.prune_openings`: the player's action
ended, a move but onto the loose ball), for the same reason, on the default before the exposure;
not kept (3.5 points behind it over 20 games against `grod`, docs/bot-bowl-board.md).
The default plays a blitz whose own subtree would only move as that player's move (`Preset.idle_as_move`,
measured as `default-idle-blitz-as-move`): the search had started blitzes its priors did not want and spent
them on a move; `default-worthy-blocks` is the default before, up to commit 412c249.
`default-idle-actions-as-move` does the same with hand-offs, fouls and passes (69% against grod where the
default scored 59%, 80% against scripted where it scored 90%, 20 games or fewer each: not the default).
`learned` is `default-scripted`, `default-prune` the default before the exposure (`default-no-exposure`),
`default-exposure` the default before its own frame (`default-board-order`; its measurements were
run at 4b015f2, before the guards), `default-own-frame` the default before the block filter
(`default-all-blocks`) and `default-idle-blitz-as-move` today's default, under the names their
measurements were run with.

On the Bot Bowl board the default keeps the priors' first choice wherever the search's would leave our
carrier with fewer than two guards and theirs would not (`Preset.final_guard`, `core.carrier_guard`): the
search's overrules had ended turns with the carrier thin twice as often as the turns without one. It was
measured as `default-carrier-guard` (the guard on every board); `default-unguarded` is the default before,
up to commit 6ea0a8f, also under the name its measurements were run with, `default-idle-blitz-as-move`.

`default-turn-priors` plays, on the Bot Bowl board, its priors' first choice between player actions and
the default's search within them (head to head against the default 48.8% over 40 games: not the default).
`default-search-between-actions` is its other half: the search between player actions, the priors within them
(against `grod` 51.2% over 40 games, the default 47.5% on the same seeds: not the default).

`default-common-dice` gives every action of a node the same dice on its k-th visit (`Preset.common_dice`:
common random numbers), so that the search compares siblings on the same luck.

`default-threat-heuristic` is today's default with the hand-made threat heuristic at the leaves, the
leaf the default had before the learned value (up to commit 2377935). `previous` is the default
before the knowledge-based search (commit 2fa6f01): progress heuristic, best-prior-first expansion
with progressive widening, normalised UCB1. The other presets each take one idea out of the default,
for the README's measurements of what each is worth.
"""
from __future__ import annotations

from functools import partial
from typing import Dict, Optional, Union

import botbowl
import numpy as np
from botbowl.core import Action, ActionType

from mcts_bot.adapter.boards import on_bot_bowl_board
from mcts_bot.core.carrier_guard import carrier_guard
from mcts_bot.core.gumbel import GumbelRoot
from mcts_bot.core.policies import (
    IDLE_AS_MOVE,
    RememberedChoice,
    RolloutPolicy,
    botbowl_order,
    choice_stands,
    most_visited,
    normalized_ucb1,
    priors_between_actions,
    priors_within_actions,
    puct,
    random_rollout_policy,
    robust_child,
    shuffled_order,
    ucb1,
)
from mcts_bot.core.preset import ByBoard, Preset, check_parts
from mcts_bot.knowledge.grod import grod_action, grod_mended_action
from mcts_bot.knowledge.heuristics import material_heuristic, progress_heuristic, threat_heuristic
from mcts_bot.knowledge.priors import (
    action_priors,
    knowledge_order,
    knowledge_priors,
    prior_order,
    progress_priors,
    uniform_priors,
)
from mcts_bot.knowledge.pruning import all_actions, without_unworthy_blocks
from mcts_bot.knowledge.scripted import scripted_action
from mcts_bot.knowledge.value import learned_value

# grod prices every player's plans for each choice: its choices are remembered per state (one memo
# for the priors and the playouts).
GROD_CHOICE = RememberedChoice(grod_action)
GROD_MENDED_CHOICE = RememberedChoice(grod_mended_action)
# The same, its carrier's squares priced by what the opponents' blitz could reach (`grod.Board`'s `exposure`).
GROD_EXPOSURE_CHOICE = RememberedChoice(partial(grod_mended_action, exposure=True))
# The same, its ties settled in the acting team's own frame (`grod.Board`'s `own_frame`): the default's.
GROD_OWN_FRAME_CHOICE = RememberedChoice(partial(grod_mended_action, exposure=True, own_frame=True))


def board_choice(game: botbowl.Game, rng: Optional[np.random.RandomState] = None,
                 grod: RolloutPolicy = GROD_OWN_FRAME_CHOICE) -> Action:
    """The rule-based choice the default plans with: `grod`'s on the Bot Bowl board, where the search
    on it scored better against both sparring partners than on the scripted policy's, mended to play
    as `grod` within a player action, its carrier's squares priced by what the opponents' blitz could
    reach, its ties settled in the acting team's own frame (docs/bot-bowl-board.md); the scripted
    policy's on smaller boards, where only that was measured."""
    policy = grod if on_bot_bowl_board(game) else scripted_action
    return policy(game, rng)


def planning_choice(preset: Preset) -> RolloutPolicy:
    """The rule-based choice a knowledge preset plans with: the policy that finishes its playouts, whose
    choice also leads its priors (`knowledge_priors(..., choose=...)`). A learned policy searching in
    its place reads the same choice (`PolicyModel.with_choice`)."""
    policy = preset.rollout_policy
    if isinstance(policy, ByBoard):
        return lambda game, rng=None: policy.pick(game)(game, rng)
    return policy


VANILLA = Preset(
    name="vanilla",
    tree_policy=ucb1,
    final_policy=most_visited,
    rollout_policy=random_rollout_policy,
    heuristic=material_heuristic,
    action_order=botbowl_order,
    rollouts=False,
)

DEFAULT_SCRIPTED = VANILLA.replace(
    name="default-scripted",
    tree_policy=puct,
    final_policy=partial(robust_child, z=3.0),
    priors=knowledge_priors,
    heuristic=learned_value,
    rollouts=True,
    rollout_policy=scripted_action,
    rollout_horizon="action",
    end_moves=True,
    reuse_tree=True,
)

# On the Bot Bowl board an overrule of the priors must also beat their choice by 0.02 of win chance:
# the leaf value's own errors between siblings do not shrink with visits (docs/bot-bowl-board.md).
BOARD_FINAL_CHOICE = ByBoard(smaller=partial(robust_child, z=3.0),
                             bot_bowl=partial(robust_child, z=3.0, min_gain=0.02))

# The Bot Bowl board's choice before the carrier's exposure (`default-no-exposure`).
MENDED_BOARD_CHOICE = partial(board_choice, grod=GROD_MENDED_CHOICE)

# The default up to commit 16d3103: it searched blitzes that can block nobody (`default-no-prune`).
DEFAULT_NO_PRUNE = DEFAULT_SCRIPTED.replace(name="default-no-prune",
                                            priors=partial(knowledge_priors, choose=MENDED_BOARD_CHOICE),
                                            rollout_policy=MENDED_BOARD_CHOICE, final_policy=BOARD_FINAL_CHOICE)

# The default up to commit 4b015f2: `grod`'s carrier priced his squares by distance alone.
DEFAULT_NO_EXPOSURE = DEFAULT_NO_PRUNE.replace(name="default-no-exposure", prune_dominated=True)

# The default up to commit 9442fe2: the search could make any block (`default-all-blocks`).
DEFAULT_ALL_BLOCKS = DEFAULT_NO_EXPOSURE.replace(name="default-all-blocks",
                                                 priors=partial(knowledge_priors, choose=board_choice),
                                                 rollout_policy=board_choice)

# The default up to commit 412c249 (`default-worthy-blocks`): on the Bot Bowl board the search may not make
# a block `grod.worth_blocking` forbids (one die or dice against, not on their carrier, not freeing ours,
# not in the half's last turn).
DEFAULT_WORTHY_BLOCKS = DEFAULT_ALL_BLOCKS.replace(
    name="default-worthy-blocks", action_filter=ByBoard(smaller=all_actions, bot_bowl=without_unworthy_blocks))

# A blitz whose own subtree would only move is played as that player's move: the search started blitzes its
# priors did not want and spent them on a move (docs/bot-bowl-board.md, "Blitzes the search started, spent
# on a move").
DEFAULT_UNGUARDED = DEFAULT_WORTHY_BLOCKS.replace(name="default-unguarded",
                                                 idle_as_move=frozenset({ActionType.START_BLITZ}))

# On the Bot Bowl board the search may not overrule its priors into a carrier left with fewer than two guards
# where their choice leaves him two or more (docs/bot-bowl-board.md, "The carrier's guard in the final choice").
BOARD_FINAL_GUARD = ByBoard(smaller=choice_stands, bot_bowl=carrier_guard())
DEFAULT = DEFAULT_UNGUARDED.replace(name="default", final_guard=BOARD_FINAL_GUARD)

UNMENDED_BOARD_CHOICE = partial(board_choice, grod=GROD_CHOICE)
# The Bot Bowl board's choice before its own frame: ties settled by botbowl's board order (`default-board-order`).
BOARD_ORDER_CHOICE = partial(board_choice, grod=GROD_EXPOSURE_CHOICE)
# The default before its own frame (up to commit f1fe6e1).
DEFAULT_BOARD_ORDER = DEFAULT_ALL_BLOCKS.replace(name="default-board-order",
                                      priors=partial(knowledge_priors, choose=BOARD_ORDER_CHOICE),
                                      rollout_policy=BOARD_ORDER_CHOICE)

LEARNED = DEFAULT_SCRIPTED.replace(name="learned")
# Earlier defaults and today's under the names their measurements were run with.
DEFAULT_PRUNE = DEFAULT_NO_EXPOSURE.replace(name="default-prune")
DEFAULT_OPENINGS = DEFAULT_NO_EXPOSURE.replace(name="default-openings", prune_openings=True)
DEFAULT_EXPOSURE = DEFAULT_BOARD_ORDER.replace(name="default-exposure")
DEFAULT_OWN_FRAME = DEFAULT_ALL_BLOCKS.replace(name="default-own-frame")
DEFAULT_IDLE_BLITZ_AS_MOVE = DEFAULT_UNGUARDED.replace(name="default-idle-blitz-as-move")

PREVIOUS = VANILLA.replace(
    name="previous",
    tree_policy=partial(normalized_ucb1, c=0.5),
    heuristic=progress_heuristic,
    action_order=prior_order,
    widening=(1.0, 0.5),
    reuse_tree=True,
    stop_when_decided=True,
)

# Each idea of the default taken out on its own (or one added); the seed's away fix (random
# expansion order) added to vanilla on its own: the presets behind the README's ablation rows.
ABLATIONS = (
    DEFAULT.replace(name="default-threat-heuristic", heuristic=threat_heuristic),
    DEFAULT.replace(name="default-progress-heuristic", heuristic=progress_heuristic),
    DEFAULT.replace(name="default-previous-priors", priors=progress_priors),
    DEFAULT.replace(name="default-uniform-priors", priors=uniform_priors),
    DEFAULT.replace(name="default-ucb1-widening", tree_policy=partial(normalized_ucb1, c=0.5),
                    priors=None, final_guard=None, action_order=knowledge_order, widening=(1.0, 0.5)),
    DEFAULT.replace(name="default-no-completion", rollouts=False),
    DEFAULT.replace(name="default-turn-playouts", rollout_horizon="turn"),
    DEFAULT.replace(name="default-no-end-moves", end_moves=False),
    DEFAULT.replace(name="default-no-reuse", reuse_tree=False),
    DEFAULT.replace(name="default-most-visited", final_policy=most_visited),
    DEFAULT.replace(name="default-z1", final_policy=robust_child),
    # The margin on every board, and on none (the default's final choice up to commit daf062a).
    DEFAULT.replace(name="default-margin", final_policy=BOARD_FINAL_CHOICE.bot_bowl),
    DEFAULT.replace(name="default-no-margin", final_policy=BOARD_FINAL_CHOICE.smaller),
    DEFAULT.replace(name="default-turn-tree", turn_tree=True),
    # Hand-offs, fouls and passes too: the search starts hand-offs and passes against its priors and
    # almost never hands off or throws in them (docs/bot-bowl-board.md, "The other once-a-turn actions, counted").
    DEFAULT.replace(name="default-idle-actions-as-move", idle_as_move=frozenset(IDLE_AS_MOVE)),
    # The search may not overrule its priors into a carrier left with fewer than two guards where their
    # choice leaves him two or more (`core.carrier_guard`): the search's overrules end turns with the
    # carrier thin twice as often (docs/bot-bowl-board.md, "The carrier's guards after the search's overrules").
    # As measured: on every board (the default keeps it to the Bot Bowl board).
    DEFAULT_UNGUARDED.replace(name="default-carrier-guard", final_guard=carrier_guard()),
    DEFAULT.replace(name="default-span-floor", tree_policy=partial(puct, min_span=0.1)),
    DEFAULT.replace(name="default-puct-greedy", tree_policy=partial(puct, c=0.75)),
    DEFAULT.replace(name="default-puct-wide", tree_policy=partial(puct, c=3.0)),
    VANILLA.replace(name="vanilla-shuffled", action_order=shuffled_order),
    # The other sparring partner's knowledge on every board: its choice leads the priors, and it finishes the actions.
    DEFAULT.replace(name="default-grod", priors=partial(knowledge_priors, choose=GROD_CHOICE),
                    rollout_policy=GROD_CHOICE),
    # The Bot Bowl board's grod choice without its mends (the default up to commit 97bd832; the mended
    # one was `default-mends` there): docs/bot-bowl-board.md, "The mends rebuilt as a preset".
    DEFAULT_NO_PRUNE.replace(name="default-unmended", priors=partial(knowledge_priors, choose=UNMENDED_BOARD_CHOICE),
                             rollout_policy=UNMENDED_BOARD_CHOICE),
    # Gumbel root selection (sequential halving) and its final choice, in place of PUCT and robust_child at the root.
    DEFAULT.replace(name="default-gumbel", root_selection=GumbelRoot()),
    # The same halving over the likeliest actions, with no noise: for play rather than self-play.
    DEFAULT.replace(name="default-halving", root_selection=GumbelRoot(gumbel_scale=0.0)),
    # Between player actions (which player starts what) the priors' first choice, as the knowledge alone
    # plays; within them the default's search: where its edge over its knowledge lies
    # (docs/bot-bowl-board.md, "Where the search's edge lies"; measured there as `docs/probes/search_scope.py`).
    DEFAULT.replace(name="default-turn-priors",
                    final_guard=ByBoard(smaller=choice_stands,
                                        bot_bowl=partial(priors_between_actions, within=carrier_guard()))),
    # The other half of `default-turn-priors`: the search's choice between player actions, the priors' within
    # them (docs/bot-bowl-board.md, "Where the search's edge lies").
    DEFAULT.replace(name="default-search-between-actions",
                    final_guard=ByBoard(smaller=choice_stands,
                                        bot_bowl=partial(priors_within_actions, between=carrier_guard()))),
    # Common random numbers: the k-th visit of every action of a node throws the same dice (`Preset.common_dice`),
    # so that an overrule rests less on one child's luck with the dice.
    DEFAULT.replace(name="default-common-dice", common_dice=True),
)

PRESETS: Dict[str, Preset] = {preset.name: preset for preset in
                              (VANILLA, DEFAULT, DEFAULT_NO_PRUNE, DEFAULT_NO_EXPOSURE, DEFAULT_PRUNE,
                               DEFAULT_OPENINGS, DEFAULT_EXPOSURE, DEFAULT_BOARD_ORDER, DEFAULT_OWN_FRAME,
                               DEFAULT_ALL_BLOCKS, DEFAULT_WORTHY_BLOCKS, DEFAULT_IDLE_BLITZ_AS_MOVE, DEFAULT_UNGUARDED,
                               DEFAULT_SCRIPTED,
                               LEARNED, PREVIOUS)
                              + ABLATIONS}


def get_preset(preset: Union[str, Preset]) -> Preset:
    """The preset of that name (or the preset itself); a clear error for an unknown name."""
    if isinstance(preset, Preset):
        return preset
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}: choose one of {', '.join(sorted(PRESETS))}")
    return PRESETS[preset]


def configure(preset: Union[str, Preset] = "default", **overrides) -> Preset:
    """`preset` with some parts replaced; overrides that are None keep the preset's part.

    A final policy other than `most_visited` turns `stop_when_decided` off unless it is given too
    (the early stop is for most-visited choices), and a `prior_bias` weighs `action_priors` unless
    `bias_priors` is given.
    """
    check_parts(overrides)
    base = get_preset(preset)
    changes = {key: value for key, value in overrides.items() if value is not None}
    if not changes:
        return base
    if "final_policy" in changes and changes["final_policy"] is not most_visited:
        changes.setdefault("stop_when_decided", False)
    if "prior_bias" in changes and base.bias_priors is None:
        changes.setdefault("bias_priors", action_priors)
    return base.replace(name=f"{base.name}+custom", **changes)
