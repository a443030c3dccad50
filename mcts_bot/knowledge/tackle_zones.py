"""Tackle zones over the whole board in one pass.

botbowl's `num_tackle_zones_at(player, square)` scans the eight squares around `square` for
opponents, building a list of squares and players each time. The scripted policy, the priors and
the learned value's features ask it for hundreds of squares per decision or leaf, always about
one team's opponents in one unchanged state; one pass over those opponents answers every square.
"""
from __future__ import annotations

import botbowl


class TackleZones:
    """How many opponents of `team` exert a tackle zone on each square, in the state it was built in.

    `at(square)` equals botbowl's `game.num_tackle_zones_at(player, square)` for any player of `team`
    and any square on the pitch (`tests/test_tackle_zones.py` checks this).
    """

    __slots__ = ("_width", "_counts")

    def __init__(self, game: botbowl.Game, team: botbowl.Team):
        width, height = game.arena.width, game.arena.height
        counts = [0] * (width * height)
        for opponent in game.get_opp_team(team).players:
            position = opponent.position
            if position is None or not opponent.has_tackle_zone():
                continue
            for y in range(max(0, position.y - 1), min(height, position.y + 2)):
                row = y * width
                for x in range(max(0, position.x - 1), min(width, position.x + 2)):
                    counts[row + x] += 1
            counts[position.y * width + position.x] -= 1  # not its own square
        self._width = width
        self._counts = counts

    def at(self, square: botbowl.Square) -> int:
        return self._counts[square.y * self._width + square.x]
