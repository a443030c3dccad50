"""Memos kept per game object, for choices and prices that name that game's players.

They are held in a `weakref.WeakKeyDictionary` so that a game's memo goes with the game. That alone
does not let a game go: a remembered action names a player, and under the forward model a player
leads back to its game (its trajectory's log holds the game's procedures) whenever the log is not
empty. A search reverts its copy to the root after every iteration, so its copies were freed; a copy
played forward and dropped (a probe's replay of the rest of a half) was kept by its own memo, some
megabytes each. So at most `MAX_GAMES` games keep a memo; a new one drops the oldest, which costs
only the asking again.
"""
from __future__ import annotations

import weakref
from typing import Dict

import botbowl

MAX_GAMES = 8  # the real game, a decision's search copy, and room to spare


def game_memo(memos: "weakref.WeakKeyDictionary[botbowl.Game, Dict]", game: botbowl.Game) -> Dict:
    """`game`'s memo in `memos`, a new empty one if it has none (dropping the oldest past `MAX_GAMES`)."""
    memo = memos.get(game)
    if memo is None:
        while len(memos) >= MAX_GAMES:
            del memos[next(iter(memos.keys()))]  # insertion order: the oldest first
        memo = memos[game] = {}
    return memo
