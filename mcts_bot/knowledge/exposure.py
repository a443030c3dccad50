"""How the opponents could get at a ball carrier in their next turn, for every square he might stand on.

A cage works by tackle zones, not by bodies: a blitzer reaches a square beside the carrier with no
dice only if some walk gets him there without leaving a square in the carrier's team's tackle zones
(each such step is a dodge) and within his MA (each step beyond is a go-for-it). Between `grod`s on
11 players, a carrier left reachable with no dice at the end of his turn was knocked loose in the
opponent's turn 44% of the time, one reachable only with dice 8% (docs/bot-bowl-board.md).
"""
from __future__ import annotations

from typing import Optional, Set, Tuple

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

Squares = Set[Tuple[int, int]]


def _walk(start: Tuple[int, int], steps: int, blocked, zones: Optional[Squares], inside) -> Squares:
    """The squares reached from `start` in at most `steps` steps through empty squares; with `zones`,
    never leaving a square in them (that takes a dodge)."""
    reached, frontier = {start}, [start]
    for _ in range(steps):
        following = []
        for x, y in frontier:
            if zones is not None and (x, y) in zones:
                continue
            for nx in (x - 1, x, x + 1):
                for ny in (y - 1, y, y + 1):
                    if (nx, ny) not in reached and inside(nx, ny) and not blocked(nx, ny):
                        reached.add((nx, ny))
                        following.append((nx, ny))
        frontier = following
    return reached


def around(mask: np.ndarray) -> np.ndarray:
    """For each square, how many squares of the boolean grid `mask` are beside it or on it."""
    padded = np.pad(mask.astype(np.int32), 1)
    height, width = mask.shape
    return sum(padded[dy:dy + height, dx:dx + width] for dy in range(3) for dx in range(3))


def reach(game: botbowl.Game, team: botbowl.Team, carrier: Optional[botbowl.Player] = None) \
        -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where `team`'s opponents can be in their next turn, as three boolean grids: the squares they
    reach with no dice, with dice, and those of their players exerting a tackle zone now; `carrier`,
    if given, taken off the pitch first."""
    width, height = game.arena.width, game.arena.height
    board = game.state.pitch.board
    skip = None if carrier is None else (carrier.position.x, carrier.position.y)
    zones = {(p.position.x + dx, p.position.y + dy)
             for p in game.get_players_on_pitch(team) if p is not carrier and p.has_tackle_zone()
             for dx in (-1, 0, 1) for dy in (-1, 0, 1)}

    def inside(x: int, y: int) -> bool:
        return 0 < x < width - 1 and 0 < y < height - 1

    def blocked(x: int, y: int) -> bool:
        return board[y][x] is not None and (x, y) != skip

    free = np.zeros((height, width), dtype=bool)
    dice = np.zeros((height, width), dtype=bool)
    marks = np.zeros((height, width), dtype=bool)
    for player in game.get_opp_team(team).players:
        if player.position is None or player.state.stunned:
            continue
        start = (player.position.x, player.position.y)
        if player.has_tackle_zone():
            marks[start[1], start[0]] = True
        moves = player.get_ma() - (0 if player.state.up else STAND_UP)
        if moves >= 0:
            for x, y in _walk(start, moves, blocked, zones, inside):
                free[y, x] = True
        for x, y in _walk(start, max(moves, 0) + GFIS, blocked, None, inside):
            dice[y, x] = True
    return free, dice, marks


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
