"""How the opponents could get at a ball carrier in their next turn, for every square he might stand on.

A cage works by tackle zones, not by bodies: a blitzer reaches a square beside the carrier with no
dice only if some walk gets him there without leaving a square in the carrier's team's tackle zones
(each such step is a dodge) and within his MA (each step beyond is a go-for-it). Between `grod`s on
11 players, a carrier left reachable with no dice at the end of his turn was knocked loose in the
opponent's turn 44% of the time, one reachable only with dice 8% (docs/bot-bowl-board.md).
"""
from __future__ import annotations

from typing import List, Optional, Tuple

import botbowl
import numpy as np

# The carrier on a square, the most dangerous first (the index of each in `exposure_grid`):
EXPOSURES = ("exposed_marked",  # a standing opponent beside him: a block with no move at all
             "exposed_open",  # an opponent reaches a square beside him with no dice
             "exposed_dice",  # only with a dodge or a GFI (any walk within MA + 2)
             "exposed_none")  # no opponent can get beside him
MARKED, OPEN, DICE, NONE = range(len(EXPOSURES))
GFIS = 2  # go-for-its a player may add to his MA
STAND_UP = 3  # squares of movement it costs to stand up
# Squares of movement a blitz's block costs: 1 by the rules (botbowl's BlitzAction; a blitzer at MA
# steps from the carrier's side needs a go-for-it to block him). The shipped knowledge counts 0, as
# its prices were fitted with; 1 as a variant (docs/probes/grod_variants.py, `BlitzCostGrod`) scored
# 49% head to head without search over 400 games (docs/bot-bowl-board.md): not kept.
BLITZ_BLOCK_COST = 0


def _spread(starts: List[Tuple[int, Tuple[int, int]]], open_: np.ndarray, stops: Optional[np.ndarray]) \
        -> np.ndarray:
    """The squares some walker reaches, as a boolean grid: each of `starts` is (steps, square), at
    most `steps` steps through the squares `open_` allows; with `stops`, never leaving a square in
    them (that takes a dodge). One breadth-first search for all walkers: one with fewer steps joins
    the frontier later, so every square is expanded by whoever arrives with the most steps left."""
    height, width = open_.shape
    reached = np.zeros((height, width), dtype=bool)
    if not starts:
        return reached
    most = max(steps for steps, _ in starts)
    frontier = np.zeros_like(reached)
    padded = np.zeros((height + 2, width + 2), dtype=bool)
    for step in range(most + 1):
        for steps, (x, y) in starts:
            if most - steps == step:
                frontier[y, x] = reached[y, x] = True
        if step == most:
            break
        padded[1:-1, 1:-1] = frontier if stops is None else frontier & ~stops
        beside = np.zeros_like(reached)
        for dy in range(3):
            for dx in range(3):
                beside |= padded[dy:dy + height, dx:dx + width]
        frontier = beside & open_ & ~reached
        reached |= frontier
    return reached


def around(mask: np.ndarray) -> np.ndarray:
    """For each square, how many squares of the boolean grid `mask` are beside it or on it."""
    padded = np.pad(mask.astype(np.int32), 1)
    height, width = mask.shape
    return sum(padded[dy:dy + height, dx:dx + width] for dy in range(3) for dx in range(3))


def reach(game: botbowl.Game, team: botbowl.Team, carrier: Optional[botbowl.Player] = None,
          moved: Optional[Tuple[botbowl.Player, Optional[botbowl.Square]]] = None) \
        -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where `team`'s opponents can be in their next turn, as three boolean grids: the squares they
    reach with no dice, with dice (each less the blitz's block, `BLITZ_BLOCK_COST`), and those of
    their players exerting a tackle zone now; `carrier`,
    if given, taken off the pitch first; `moved`, a teammate and a square (None: off the pitch), as if
    he stood there instead."""
    board = game.state.pitch.board
    height, width = len(board), len(board[0])
    open_ = np.array([[square is None for square in row] for row in board], dtype=bool)
    open_[[0, -1], :] = open_[:, [0, -1]] = False  # the out-of-bounds ring
    mover, target = moved if moved is not None else (None, None)
    zones = np.zeros((height, width), dtype=bool)
    for player in game.get_players_on_pitch(team):
        if player is carrier or not player.has_tackle_zone() or (player is mover and target is None):
            continue
        x, y = (target.x, target.y) if player is mover else (player.position.x, player.position.y)
        zones[max(y - 1, 0):y + 2, max(x - 1, 0):x + 2] = True
    if carrier is not None:
        open_[carrier.position.y, carrier.position.x] = True
    if mover is not None:
        open_[mover.position.y, mover.position.x] = True
        if target is not None:
            open_[target.y, target.x] = False
    marks = np.zeros((height, width), dtype=bool)
    walks, runs = [], []
    for player in game.get_opp_team(team).players:
        if player.position is None or player.state.stunned:
            continue
        start = (player.position.x, player.position.y)
        if player.has_tackle_zone():
            marks[start[1], start[0]] = True
        moves = player.get_ma() - (0 if player.state.up else STAND_UP) - BLITZ_BLOCK_COST
        if moves >= 0:
            walks.append((moves, start))
        runs.append((max(moves, 0) + GFIS, start))
    return _spread(walks, open_, zones), _spread(runs, open_, None), marks


def exposure_grid(game: botbowl.Game, team: botbowl.Team, carrier: Optional[botbowl.Player] = None,
                  reached: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None) -> np.ndarray:
    """For each square, how exposed a carrier of `team` standing there would be (an index into
    EXPOSURES), with every other player where he stands; `carrier`, if given, is taken off the pitch
    first (he is the one who moves there). `reached`: `reach(game, team, carrier)` if already known."""
    free, dice, marks = reached if reached is not None else reach(game, team, carrier)
    grid = np.full(free.shape, NONE, dtype=np.int8)
    grid[around(dice) > 0] = DICE
    grid[around(free) > 0] = OPEN
    grid[around(marks) > 0] = MARKED
    return grid


def exposure(game: botbowl.Game, carrier: botbowl.Player) -> str:
    """How exposed `carrier` is where he stands (one of EXPOSURES)."""
    grid = exposure_grid(game, carrier.team, carrier)
    return EXPOSURES[grid[carrier.position.y, carrier.position.x]]
