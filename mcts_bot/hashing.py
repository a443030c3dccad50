"""Game-state hash: the key under which a ChanceNode stores each random outcome of its action.

Two states get the same key only if they agree on everything the rest of the game can depend on:
score, half and turn counters, the active team, the procedure stack, the current turn's unused
special actions, every player's place and state, the ball, the weather and the available actions.
Dice outcomes show up through what they change (a failed dodge leaves the player down, a block
roll changes the available choices), so two different outcomes of one action get two keys.

Built from integers only: botbowl's `Square.__hash__` (7x + 13y) collides, and `str`/`Enum`
hashes change from process to process. Integer tuples hash the same in every process, so a seeded
search builds the same tree anywhere.
"""
from __future__ import annotations

import zlib
from typing import Dict, Tuple

import botbowl
from botbowl.core import ActionType
from botbowl.core.procedure import Reroll, Setup

_PLAYER_FLAGS = ("up", "used", "stunned", "knocked_out", "ejected", "has_blocked", "bone_headed",
                 "hypnotized", "really_stupid", "heated", "wild_animal", "taken_root", "blood_lust",
                 "picked_up", "in_air", "failed_nega_trait_this_turn")
_DUGOUT_CODES = (("reserves", 1), ("kod", 2), ("casualties", 3), ("dungeon", 4))
_type_ids: Dict[type, int] = {}


def _type_id(cls: type) -> int:
    """A process-independent integer for a procedure class."""
    type_id = _type_ids.get(cls)
    if type_id is None:
        type_id = _type_ids[cls] = zlib.crc32(cls.__name__.encode())
    return type_id


def _square(position) -> int:
    return 0 if position is None else 1 + position.x * 64 + position.y


def _team_code(game: botbowl.Game, team) -> int:
    if team is None:
        return 0
    return 1 if team.team_id == game.state.home_team.team_id else 2


def _player_code(player, active_player, dugout_code: int) -> int:
    state = player.state
    flags = 0
    for bit, name in enumerate(_PLAYER_FLAGS):
        if getattr(state, name):
            flags |= 1 << bit
    skills = 0
    for skill in state.used_skills:
        skills |= 1 << skill.value
    return hash((flags, state.moves, _square(player.position), dugout_code, player is active_player,
                 skills, len(state.injuries_gained)))


def _team_key(game: botbowl.Game, team) -> Tuple[int, ...]:
    s = team.state
    dugout = game.state.dugouts[team.team_id]
    codes = {}
    for attr, code in _DUGOUT_CODES:
        for player in getattr(dugout, attr):
            codes[player.player_id] = code
    active = game.state.active_player
    players = tuple(_player_code(p, active, codes.get(p.player_id, 0)) for p in team.players)
    return (s.score, s.turn, s.rerolls, s.reroll_used, s.apothecaries, s.bribes, s.babes) + players


def game_state_hash(game: botbowl.Game) -> int:
    """An integer that is equal for equal game states and differs when they differ (see module doc)."""
    state = game.state
    stack = state.stack.items
    procs = tuple(_type_id(type(proc)) for proc in stack)
    top = stack[-1] if stack else None
    if isinstance(top, Setup):
        top_detail = int(top.reorganize)
    elif isinstance(top, Reroll):
        top_detail = _type_id(type(top.context))
    else:
        top_detail = 0
    turn = game.get_current_turn_proc()
    turn_key = (0,) if turn is None else (1, turn.blitz_available, turn.pass_available, turn.handoff_available,
                                         turn.foul_available, turn.quick_snap, turn.blitz)
    balls = tuple((_square(ball.position), ball.on_ground, ball.is_carried) for ball in state.pitch.balls)
    # UNDO is left out: botbowl offers it to human agents only, and the search's copy is all human,
    # so the real game and its copy would otherwise never agree.
    available = tuple((choice.action_type.value, len(choice.players), len(choice.positions))
                      for choice in state.available_actions if choice.action_type != ActionType.UNDO)
    action_type = state.player_action_type
    key = (state.game_over, state.half, state.round, state.weather.value, state.gentle_gust,
           _team_code(game, game.active_team), _team_code(game, state.current_team),
           _team_code(game, state.kicking_this_drive), _team_code(game, state.receiving_this_drive),
           0 if action_type is None else action_type.value,
           procs, top_detail, turn_key, balls, available,
           _team_key(game, state.home_team), _team_key(game, state.away_team))
    return hash(key)
