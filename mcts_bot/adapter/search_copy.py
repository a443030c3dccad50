"""The search's private copy of the game: a deep copy with its own dice, no clocks, the forward
model on, and botbowl's pathfinding remembered by game state.

The copy's dice count their throws (`SearchGame.dice_thrown`): a step that threw none went the
one way it always goes from that state, which lets the search skip hashing the state it reached.

botbowl works out a moving player's paths (`MoveAction.available_actions`, the costliest call in a
search) after every step that leaves that player to choose, and the search steps the same states
again and again: every iteration walks down from the root. On the seeded benchmark positions 70-85%
of those calls were for a state the same search had already stepped into. `SearchGame` keeps each
result under the state's hash (`hashing.game_state_hash`, which leaves the paths out and keeps
everything else a path depends on) and hands it back instead of searching again.

Set-ups are remembered too: a search that reaches a kick-off (after a touchdown, or at half time)
steps formations again and again, and botbowl works out each formation's placements
(`Formation.actions`) and each team's half of the pitch (`Game.get_team_side`, a scan of the whole
board, after every step of a set-up) afresh each time. On the seeded benchmark positions that
reach a kick-off this was a fifth of the search's time.

And each square's neighbours, which botbowl lists afresh, square by square, whenever it counts
tackle zones or assists or looks for a dodge: they depend on the arena alone.
"""
from __future__ import annotations

from copy import deepcopy
from typing import Dict, List, Tuple

import botbowl
import numpy as np
from botbowl.core import Agent
from botbowl.core.model import D3, D6, D8, ActionChoice, BBDie, Formation
from botbowl.core.procedure import MoveAction

from mcts_bot.adapter import fast_reversible
from mcts_bot.adapter.hashing import game_state_hash

# Enough for the move decisions of a long search; past it the memo starts again (memory stays bounded).
MAX_REMEMBERED_PATHS = 4096


class CountingRandomState(np.random.RandomState):
    """A RandomState that counts the draws botbowl makes from it (dice, scatter, random squares)."""

    draws = 0

    def randint(self, *args, **kwargs):
        self.draws += 1
        return super().randint(*args, **kwargs)

    def choice(self, *args, **kwargs):
        self.draws += 1
        return super().choice(*args, **kwargs)

    def rand(self, *args):
        self.draws += 1
        return super().rand(*args)

    def random_sample(self, *args, **kwargs):
        self.draws += 1
        return super().random_sample(*args, **kwargs)

    def shuffle(self, *args, **kwargs):
        self.draws += 1
        return super().shuffle(*args, **kwargs)


class SearchGame(botbowl.Game):
    """A `botbowl.Game` that remembers the actions and paths of move procedures by state, set-ups,
    and the squares next to each square.

    Only `private_copy` makes these (by changing a deep copy's class); the real game stays a plain
    `botbowl.Game`.
    """

    remember_paths = True  # False: botbowl's own behaviour (for measuring what the memo saves)
    remember_setups = True  # likewise for the set-up memos
    remember_neighbours = True  # likewise for the adjacent squares
    paths_memo: Dict[int, Tuple[List[ActionChoice], dict]]
    paths_memo_hits: int
    team_sides: Dict[str, list]  # team id -> its half of the pitch (the arena never changes)
    neighbours: Dict[tuple, tuple]  # (x, y, diagonal, out) -> the adjacent squares botbowl lists
    formations_memo: Dict[tuple, list]  # (formation, team, where its players are) -> placements

    def set_seed(self, seed: int) -> None:
        self.seed, self.rng = seed, CountingRandomState(seed)

    def dice_thrown(self) -> tuple:
        """Changes whenever a step throws dice: the copy's draws and botbowl's queues of fixed dice
        (test set-ups fix dice, which then come from the queues instead)."""
        return (self.rng.draws, len(D6.FixedRolls), len(D8.FixedRolls), len(D3.FixedRolls),
                len(BBDie.FixedRolls))

    def set_available_actions(self) -> None:
        proc = self.state.stack.peek()
        if (not self.remember_paths or not isinstance(proc, MoveAction)
                or (proc.steps is not None and len(proc.steps) > 0)):
            super().set_available_actions()  # not a move, or a path still being walked: no pathfinding
            return
        key = game_state_hash(self)
        remembered = self.paths_memo.get(key)
        if remembered is not None:
            self.paths_memo_hits += 1
            actions, proc.paths = remembered
            self.state.available_actions = list(actions)
            return
        super().set_available_actions()
        if len(self.paths_memo) >= MAX_REMEMBERED_PATHS:
            self.paths_memo.clear()
        self.paths_memo[key] = (list(self.state.available_actions), proc.paths)

    def get_adjacent_squares(self, position: botbowl.Square, diagonal=True, out=False, occupied=True,
                             distance=1) -> List[botbowl.Square]:
        # The same squares in the same order as botbowl's (a new list: callers may change it).
        if distance != 1 or not self.remember_neighbours:
            return super().get_adjacent_squares(position, diagonal, out, occupied, distance)
        key = (position.x, position.y, diagonal, out)
        squares = self.neighbours.get(key)
        if squares is None:
            squares = self.neighbours[key] = tuple(super().get_adjacent_squares(position, diagonal, out))
        if occupied:
            return list(squares)
        return [square for square in squares if self.get_player_at(square) is None]

    def get_team_side(self, team: botbowl.Team) -> list:
        if not self.remember_setups:
            return super().get_team_side(team)
        side = self.team_sides.get(team.team_id)
        if side is None:
            side = self.team_sides[team.team_id] = super().get_team_side(team)
        return list(side)  # botbowl's callers may extend it


class RememberedFormation(Formation):
    """A formation whose placements a `SearchGame` remembers by everything they depend on: the
    formation, the team, whether it reorganises, where its players stand and who is in reserve
    (the players' skills and characteristics, which choose among them, do not change in a search)."""

    def actions(self, game: botbowl.Game, team: botbowl.Team) -> list:
        if not isinstance(game, SearchGame) or not game.remember_setups:
            return super().actions(game, team)
        key = (self.memo_key, team.team_id, game.get_procedure().reorganize,
               tuple(None if p.position is None else (p.position.x, p.position.y) for p in team.players),
               tuple(p.player_id for p in game.get_reserves(team)))
        placements = game.formations_memo.get(key)
        if placements is None:
            if len(game.formations_memo) >= MAX_REMEMBERED_PATHS:
                game.formations_memo.clear()
            placements = game.formations_memo[key] = super().actions(game, team)
        return list(placements)


def _remember_formations(config: botbowl.Configuration) -> None:
    """Turn the copy's formations (its own: deep-copied, and shared with any set-up on its stack)
    into `RememberedFormation`s. They are immutable to botbowl, hence `object.__setattr__`."""
    for kind, formations in (("defensive", config.defensive_formations), ("offensive", config.offensive_formations)):
        for formation in formations:
            object.__setattr__(formation, "__class__", RememberedFormation)
            object.__setattr__(formation, "memo_key", (kind, formation.name))


@fast_reversible.used_by
def private_copy(game: botbowl.Game, seed: int) -> SearchGame:
    """A deep copy of `game` for searching: forward model on, placeholder agents, its own dice.

    The agents are replaced by placeholders with the same ids and the same kind (bot or human), so
    that botbowl offers the same choices as in the real game, while the copy does not drag the real
    bots (and their trees) along. The search steps the copy with `actions.advance`, which never asks
    the agents; a placeholder asked anyway would raise. The ruleset, the arena and the (immutable)
    report objects are shared rather than copied: they are only read.

    The copy's forward model starts with an empty log of its own. When the real game's forward
    model is on too, its log (the game's whole history) is not copied, and the copy's report list
    logs to the copy's log, so that reverting the copy removes the reports its steps added.
    """
    home, away = game.home_agent, game.away_agent
    memo = {
        id(home): Agent(home.name, human=home.human, agent_id=home.agent_id),
        id(away): Agent(away.name, human=away.human, agent_id=away.agent_id),
        id(game.ruleset): game.ruleset,
        id(game.arena): game.arena,
    }
    if game.replay is not None:
        memo[id(game.replay)] = None
    reports = game.state.reports
    logged = game.trajectory.enabled
    if logged:
        # Every logged object of the state points at the game's trajectory; the copies point at a fresh one.
        forward_model = botbowl.core.forward_model
        trajectory = memo[id(game.trajectory)] = forward_model.Trajectory()
        memo[id(reports)] = forward_model.ReversibleList.init_reversible_list(list(reports), trajectory)
    else:
        memo[id(reports)] = list(reports)  # enable_forward_model makes it a logged list
    clone = deepcopy(game, memo)
    clone.__class__ = SearchGame
    clone.paths_memo, clone.paths_memo_hits = {}, 0
    clone.team_sides, clone.formations_memo, clone.neighbours = {}, {}, {}
    _remember_formations(clone.config)
    clone.config.competition_mode = False  # no clocks in the search
    clone.config.debug_mode = False
    clone.set_seed(seed)  # the real game's dice stay unknown to the search
    if logged:
        clone.trajectory.enabled = True
    else:
        clone.enable_forward_model()
    return clone
