"""Presets: named, complete sets of the search's pluggable parts.

`vanilla` is the seed's algorithm exactly (see `../shared/seeds/000_*`): UCB1 with c = 0.707,
expansion in botbowl's order, the material heuristic, no rollouts (as in the seed's published code),
most visited child. It stays unchanged as the baseline every improvement is measured against.
`default` is what `MCTSBot()` and `botbowl.make_bot("mcts")` play.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Dict, Union

import botbowl

from mcts_bot.heuristics import material_heuristic
from mcts_bot.policies import (ActionOrder, FinalPolicy, RolloutPolicy, TreePolicy, botbowl_order, most_visited,
                               random_rollout_policy, ucb1)

Heuristic = Callable[[botbowl.Game, botbowl.Team], float]


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
    max_rollout_steps: int = 1000  # a guard: a rollout normally ends with the turn long before this


VANILLA = Preset(
    name="vanilla",
    tree_policy=ucb1,
    final_policy=most_visited,
    rollout_policy=random_rollout_policy,
    heuristic=material_heuristic,
    action_order=botbowl_order,
    rollouts=False,
)

DEFAULT = dataclasses.replace(VANILLA, name="default")

PRESETS: Dict[str, Preset] = {preset.name: preset for preset in (VANILLA, DEFAULT)}

PLUGIN_NAMES = tuple(field.name for field in dataclasses.fields(Preset) if field.name != "name")


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
        if key not in ("rollouts", "max_rollout_steps") and not callable(value):
            raise TypeError(f"{key} must be a callable, got {value!r}")
    if "max_rollout_steps" in changes and changes["max_rollout_steps"] < 1:
        raise ValueError(f"max_rollout_steps must be at least 1, got {changes['max_rollout_steps']}")
    if not changes:
        return base
    return dataclasses.replace(base, name=f"{base.name}+custom", **changes)
