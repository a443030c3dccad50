"""`Preset`: every pluggable part of the search as data, checked when it is made.

The search core reads Blood Bowl knowledge (heuristics, priors, the rollout policy) only through
these fields; the named presets that fill them in live above the core, in `mcts_bot.presets`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, FrozenSet, List, Optional, Tuple

import botbowl
import numpy as np
from botbowl.core import Action, ActionType

from mcts_bot.adapter import actions as game_actions
from mcts_bot.adapter.boards import BOT_BOWL_PLAYERS, on_bot_bowl_board
from mcts_bot.core.policies import (IDLE_AS_MOVE, ActionOrder, FinalGuard, FinalPolicy, RolloutPolicy, TreePolicy,
                                    most_visited)

Heuristic = Callable[[botbowl.Game, botbowl.Team], float]
PriorFn = Callable[[botbowl.Game, List[Action]], List[float]]
ActionFilter = Callable[[botbowl.Game, List[Action]], List[Action]]  # the legal actions the search may choose
# (root, random generator, progress of the budget in [0, 1]) -> an object with select() and choice()
RootSelection = Callable[[object, np.random.RandomState, Callable[[], float]], object]
ROLLOUT_HORIZONS = ("turn", "action")


@dataclass(frozen=True)
class ByBoard:
    """A part of a preset that differs with the board: `bot_bowl` on boards of `players` a side or
    more (the Bot Bowl board), `smaller` below. It keeps the parts' own signatures: a final policy
    sees only the tree, so the board is chosen when a search starts (`Preset.for_game`)."""

    smaller: Callable
    bot_bowl: Callable
    players: int = BOT_BOWL_PLAYERS

    def __post_init__(self) -> None:
        for name in ("smaller", "bot_bowl"):
            part = getattr(self, name)
            if not callable(part) or isinstance(part, ByBoard):
                raise TypeError(f"ByBoard.{name} must be a callable part, got {part!r}")

    def pick(self, game: botbowl.Game) -> Callable:
        return self.bot_bowl if on_bot_bowl_board(game, self.players) else self.smaller

    def __call__(self, *args, **kwargs):
        raise TypeError("a ByBoard part is picked per game: use preset.for_game(game), then call its parts")


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
    prune_dominated: bool = False  # leave out actions another one does better or as well (`actions.legal_actions`)
    prune_openings: bool = False  # below the root, also a once-a-turn action's ending at its first step (same)
    action_filter: Optional[ActionFilter] = None  # what the knowledge forbids, at every node (`knowledge.pruning`)
    widening: Optional[Tuple[float, float]] = None  # (c, alpha): at most ceil(c * visits ** alpha) children
    reuse_tree: bool = False  # keep the subtree of the state reached, for the team's next decision
    stop_when_decided: bool = False  # stop once more iterations cannot change the most visited child
    prior_bias: Optional[float] = None  # w: UCB1 adds w * prior / sqrt(turns played + 1) (seed 004)
    bias_priors: Optional[PriorFn] = None  # the priors `prior_bias` weighs
    max_rollout_steps: int = 1000  # a guard: a rollout normally ends with the turn long before this
    turn_tree: bool = False  # the tree stops at the end of the turn it decides in: later states are leaves
    # The once-a-turn actions (START_BLITZ, START_HANDOFF, START_FOUL, START_PASS) played as the
    # player's move when their own subtree would only move (`policies.idle_action_as_move`).
    idle_as_move: FrozenSet[ActionType] = frozenset()
    # With priors: a last word on the final policy's choice, which sees the game (the priors' first choice
    # kept where the search's would leave our carrier thin: `core.carrier_guard`); None: the choice stands.
    final_guard: Optional[FinalGuard] = None
    # With priors: who selects at the root and makes the final choice there (`core.gumbel.GumbelRoot`),
    # in place of the tree and final policies; None: those two.
    root_selection: Optional[RootSelection] = None
    # Common random numbers: the k-th visit of every action of a node throws the same dice, so that
    # siblings are compared on the same luck rather than each on its own (`Search.common_seed`).
    common_dice: bool = False

    def __post_init__(self) -> None:
        for name in CALLABLE_PARTS:
            value = getattr(self, name)
            if not callable(value) and not (value is None and name in OPTIONAL_PARTS):
                raise TypeError(f"{name} must be a callable, got {value!r}")
        for name in SWITCHES:
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if not isinstance(self.idle_as_move, frozenset) or not self.idle_as_move <= IDLE_AS_MOVE.keys():
            raise ValueError(f"idle_as_move must be a frozenset of {', '.join(t.name for t in IDLE_AS_MOVE)}, "
                             f"got {self.idle_as_move!r}")
        if self.final_guard is not None and self.priors is None:
            raise ValueError("final_guard weighs the choice against the priors' first choice: give the preset priors")
        if self.rollout_horizon not in ROLLOUT_HORIZONS:
            raise ValueError(f"rollout_horizon must be one of {', '.join(ROLLOUT_HORIZONS)}, "
                             f"got {self.rollout_horizon!r}")
        if self.max_rollout_steps < 1:
            raise ValueError(f"max_rollout_steps must be at least 1, got {self.max_rollout_steps}")
        if self.prior_bias is not None:
            if not self.prior_bias >= 0:
                raise ValueError(f"prior_bias must be 0 or more, got {self.prior_bias}")
            if self.bias_priors is None:
                raise ValueError("prior_bias needs bias_priors, the priors it weighs "
                                 "(e.g. mcts_bot.knowledge.priors.action_priors)")
        if self.widening is not None:
            c, alpha = self.widening
            if not (c > 0 and 0 < alpha <= 1):
                raise ValueError(f"widening must be (c, alpha) with c > 0 and 0 < alpha <= 1, got {self.widening}")
        if self.root_selection is not None and self.priors is None:
            raise ValueError("root_selection (Gumbel) draws the root's actions by their priors: give the preset priors")
        if self.stop_when_decided and self.final_policy is not most_visited:
            # Stopping once the most visited child cannot be overtaken says nothing about another final choice.
            raise ValueError(f"stop_when_decided needs the most_visited final policy, got {self.final_policy!r}: "
                             f"set stop_when_decided=False")

    def for_game(self, game: botbowl.Game) -> "Preset":
        """This preset with each `ByBoard` part replaced by the one for `game`'s board (itself if none)."""
        picks = {name: getattr(self, name).pick(game) for name in CALLABLE_PARTS
                 if isinstance(getattr(self, name), ByBoard)}
        return dataclasses.replace(self, **picks) if picks else self

    def legal_actions(self, game: botbowl.Game, below_root: bool = False) -> List[Action]:
        """The actions the search considers in `game`'s state: botbowl's (`actions.legal_actions`) less
        this preset's prunes (`prune_openings` only `below_root`) and what its `action_filter` forbids."""
        actions = game_actions.legal_actions(game, self.prune_dominated, self.prune_openings and below_root,
                                             self.end_moves)
        action_filter = self.action_filter
        if isinstance(action_filter, ByBoard):
            action_filter = action_filter.pick(game)
        return actions if action_filter is None else action_filter(game, actions)

    def replace(self, **changes) -> "Preset":
        """This preset with some parts replaced (checked like a new one); an unknown part is a TypeError."""
        check_parts(set(changes) - {"name"})
        return dataclasses.replace(self, **changes)


PARTS = tuple(field.name for field in dataclasses.fields(Preset) if field.name != "name")
CALLABLE_PARTS = ("tree_policy", "final_policy", "rollout_policy", "heuristic", "action_order", "priors",
                  "bias_priors", "root_selection", "action_filter", "final_guard")
OPTIONAL_PARTS = ("priors", "bias_priors", "root_selection", "action_filter", "final_guard")
SWITCHES = tuple(field.name for field in dataclasses.fields(Preset) if field.type in (bool, "bool"))  # on/off parts


def check_parts(names) -> None:
    """A clear error for names that are not parts of a preset."""
    unknown = sorted(set(names) - set(PARTS))
    if unknown:
        raise TypeError(f"unknown search option(s) {', '.join(unknown)}: allowed are {', '.join(PARTS)}")
