"""Presets: named, complete sets of the search's pluggable parts.

`vanilla` is the seed's algorithm exactly (see `../shared/seeds/000_*`): UCB1 with c = 0.707,
expansion in botbowl's order, the material heuristic, no rollouts (as in the seed's published code),
most visited child. It stays unchanged as the baseline every improvement is measured against.

`default` is what `MCTSBot()` and `botbowl.make_bot("mcts")` play: it plans with Blood Bowl
knowledge. PUCT over knowledge priors (the scripted policy's choice first, then block dice odds,
path success and square values); each new leaf's player action finished by the scripted policy
before the learned value (`mcts_bot.value`, seed 001) scores the board; a move and the end of that
player's action as one decision; the subtree of the reached state kept for the next decision; a
search that stops once its choice cannot change. `learned` is the same settings under the name its
measurements were run with.

`default-threat-heuristic` is the default before the learned value (up to commit 2377935): the
hand-made threat heuristic at the leaves. `previous` is the default before the knowledge-based
search (commit 2fa6f01): progress heuristic, best-prior-first expansion with progressive widening,
normalised UCB1. The other presets each take one idea out of the default, for the README's
measurements of what each is worth.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import partial
from typing import Callable, Dict, List, Optional, Tuple, Union

import botbowl
from botbowl.core import Action

from mcts_bot.heuristics import material_heuristic, progress_heuristic, threat_heuristic
from mcts_bot.policies import (ActionOrder, FinalPolicy, RolloutPolicy, TreePolicy, botbowl_order, most_visited,
                               normalized_ucb1, puct, random_rollout_policy, robust_child, shuffled_order, ucb1)
from mcts_bot.priors import knowledge_order, knowledge_priors, prior_order, progress_priors, uniform_priors
from mcts_bot.scripted import scripted_action
from mcts_bot.value import learned_value

Heuristic = Callable[[botbowl.Game, botbowl.Team], float]
PriorFn = Callable[[botbowl.Game, List[Action]], List[float]]
ROLLOUT_HORIZONS = ("turn", "action")


@dataclass(frozen=True)
class Preset:
    """Everything that decides how the search plays, except its budget."""

    name: str
    tree_policy: TreePolicy
    final_policy: FinalPolicy
    rollout_policy: RolloutPolicy
    heuristic: Heuristic
    action_order: ActionOrder
    rollouts: bool
    priors: Optional[PriorFn] = None  # with priors: every child at once, with its prior (for PUCT)
    rollout_horizon: str = "turn"  # rollouts end with the turn, or with the acting player's action
    end_moves: bool = False  # a non-carrier's MOVE ends its action at once (`actions.follow_up`)
    widening: Optional[Tuple[float, float]] = None  # (c, alpha): at most ceil(c * visits ** alpha) children
    reuse_tree: bool = False  # keep the subtree of the state reached, for the team's next decision
    stop_when_decided: bool = False  # stop once more iterations cannot change a most-visited choice
    prior_bias: Optional[float] = None  # w: UCB1 adds w * prior / sqrt(turns played + 1) (seed 004)
    max_rollout_steps: int = 1000  # a guard: a rollout normally ends with the turn long before this
    turn_tree: bool = False  # the tree stops at the end of the turn it decides in: later states are leaves


VANILLA = Preset(
    name="vanilla",
    tree_policy=ucb1,
    final_policy=most_visited,
    rollout_policy=random_rollout_policy,
    heuristic=material_heuristic,
    action_order=botbowl_order,
    rollouts=False,
)

DEFAULT = dataclasses.replace(
    VANILLA,
    name="default",
    tree_policy=puct,
    final_policy=robust_child,
    priors=knowledge_priors,
    heuristic=learned_value,
    rollouts=True,
    rollout_policy=scripted_action,
    rollout_horizon="action",
    end_moves=True,
    reuse_tree=True,
    stop_when_decided=True,
)

LEARNED = dataclasses.replace(DEFAULT, name="learned")

PREVIOUS = dataclasses.replace(
    VANILLA,
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
    dataclasses.replace(DEFAULT, name="default-threat-heuristic", heuristic=threat_heuristic),
    dataclasses.replace(DEFAULT, name="default-progress-heuristic", heuristic=progress_heuristic),
    dataclasses.replace(DEFAULT, name="default-previous-priors", priors=progress_priors),
    dataclasses.replace(DEFAULT, name="default-uniform-priors", priors=uniform_priors),
    dataclasses.replace(DEFAULT, name="default-ucb1-widening", tree_policy=partial(normalized_ucb1, c=0.5),
                        priors=None, action_order=knowledge_order, widening=(1.0, 0.5)),
    dataclasses.replace(DEFAULT, name="default-no-completion", rollouts=False),
    dataclasses.replace(DEFAULT, name="default-turn-playouts", rollout_horizon="turn"),
    dataclasses.replace(DEFAULT, name="default-no-end-moves", end_moves=False),
    dataclasses.replace(DEFAULT, name="default-no-reuse", reuse_tree=False),
    dataclasses.replace(DEFAULT, name="default-most-visited", final_policy=most_visited),
    dataclasses.replace(DEFAULT, name="default-turn-tree", turn_tree=True),
    dataclasses.replace(DEFAULT, name="default-span-floor", tree_policy=partial(puct, min_span=0.1)),
    dataclasses.replace(DEFAULT, name="default-puct-greedy", tree_policy=partial(puct, c=0.75)),
    dataclasses.replace(DEFAULT, name="default-puct-wide", tree_policy=partial(puct, c=3.0)),
    dataclasses.replace(VANILLA, name="vanilla-shuffled", action_order=shuffled_order),
)

PRESETS: Dict[str, Preset] = {preset.name: preset for preset in (VANILLA, DEFAULT, LEARNED, PREVIOUS) + ABLATIONS}

PLUGIN_NAMES = tuple(field.name for field in dataclasses.fields(Preset) if field.name != "name")
CALLABLE_PARTS = ("tree_policy", "final_policy", "rollout_policy", "heuristic", "action_order", "priors")
SWITCHES = tuple(field.name for field in dataclasses.fields(Preset) if field.type in (bool, "bool"))  # on/off parts


def get_preset(preset: Union[str, Preset]) -> Preset:
    """The preset of that name (or the preset itself); a clear error for an unknown name."""
    if isinstance(preset, Preset):
        return preset
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}: choose one of {', '.join(sorted(PRESETS))}")
    return PRESETS[preset]


def configure(preset: Union[str, Preset] = "default", **overrides) -> Preset:
    """`preset` with some parts replaced; overrides that are None keep the preset's part."""
    unknown = sorted(set(overrides) - set(PLUGIN_NAMES))
    if unknown:
        raise TypeError(f"unknown search option(s) {', '.join(unknown)}: allowed are {', '.join(PLUGIN_NAMES)}")
    base = get_preset(preset)
    changes = {key: value for key, value in overrides.items() if value is not None}
    for key, value in changes.items():
        if key in CALLABLE_PARTS and not callable(value):
            raise TypeError(f"{key} must be a callable, got {value!r}")
    for key in SWITCHES:
        if key in changes and not isinstance(changes[key], bool):
            raise TypeError(f"{key} must be True or False, got {changes[key]!r}")
    if "rollout_horizon" in changes and changes["rollout_horizon"] not in ROLLOUT_HORIZONS:
        raise ValueError(f"rollout_horizon must be one of {', '.join(ROLLOUT_HORIZONS)}, "
                         f"got {changes['rollout_horizon']!r}")
    if "max_rollout_steps" in changes and changes["max_rollout_steps"] < 1:
        raise ValueError(f"max_rollout_steps must be at least 1, got {changes['max_rollout_steps']}")
    if "prior_bias" in changes and not changes["prior_bias"] >= 0:
        raise ValueError(f"prior_bias must be 0 or more, got {changes['prior_bias']}")
    if "widening" in changes:
        c, alpha = changes["widening"]
        if not (c > 0 and 0 < alpha <= 1):
            raise ValueError(f"widening must be (c, alpha) with c > 0 and 0 < alpha <= 1, got {changes['widening']}")
    if not changes:
        return base
    return dataclasses.replace(base, name=f"{base.name}+custom", **changes)
