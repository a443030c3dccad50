"""Game-state hash: the key under which a ChanceNode stores each random outcome of its action.

The key covers what decides the rest of the game: score, half, round and turn counters, the
teams' re-rolls and apothecaries, every player's place and state, the balls, the weather, the
available actions, and the whole procedure stack with everything each procedure holds. botbowl
keeps much of the game inside its procedures: which injury an `Apothecary` would treat (a knock-out
or a casualty, and which casualty), the dice a `Block` rolled and who chooses among them, where a
`Push` goes, what a `Reroll` is for. Two dice outcomes of one action therefore get two keys
whenever the game can tell them apart later, even before anything visible changes.

Procedures are encoded generically, attribute by attribute, so that nothing a procedure holds is
missed (now or after a botbowl update). Left out on purpose: clocks, reports, and caches that
botbowl rebuilds from the state (a move's pathfinding results, the list of formations). Dice a
procedure keeps are encoded as rolled, so two failed rolls of different values may make two keys
where one would do: less sharing, never a wrong merge. `tests/test_hashing.py` checks the claim
on many states: equal keys have equal legal actions, and equal successors after the same action.

Built from integers only: botbowl's `Square.__hash__` (7x + 13y) collides, and `str`/`Enum`
hashes change from process to process. Integer tuples hash the same in every process, so a seeded
search builds the same tree anywhere.
"""
from __future__ import annotations

import zlib
from enum import Enum
from operator import attrgetter
from typing import Any, Dict, Tuple

import botbowl
from botbowl.core.model import ActionChoice, Catchable, DiceRoll, Die, Player, Square, Team
from botbowl.core.procedure import Procedure

_player_state = attrgetter("up", "used", "moves", "stunned", "knocked_out", "ejected", "has_blocked", "bone_headed",
                           "hypnotized", "really_stupid", "heated", "wild_animal", "taken_root", "blood_lust",
                           "picked_up", "in_air", "failed_nega_trait_this_turn")
_DUGOUT_CODES = (("reserves", 1), ("kod", 2), ("casualties", 3), ("dungeon", 4))
_DERIVED_ATTRIBUTES = frozenset({"game", "paths", "formations"})
_NESTING = 2  # procedures off the stack (a finished Reroll a Block still reads) are followed this deep

# Codes of the objects a procedure may point at, in ranges of their own (squares stay below 4096).
_TEAM, _PLAYER, _BALL, _ON_STACK = 1 << 12, 1 << 13, 1 << 14, 1 << 15
_NONE = -1

_name_ids: Dict[Any, int] = {}


def _name_id(kind: Any) -> int:
    """A process-independent integer for a class or an enum member (its name)."""
    code = _name_ids.get(kind)
    if code is None:
        name = kind.__name__ if isinstance(kind, type) else f"{type(kind).__name__}.{kind.name}"
        code = _name_ids[kind] = zlib.crc32(name.encode())
    return code


def _square(position) -> int:
    return _NONE if position is None else position.x * 64 + position.y


class _Encoder:
    """Turns what procedures hold into integers: objects of the game by their place in it, the
    rest by value."""

    __slots__ = ("refs",)

    def __init__(self, refs: Dict[int, int]):
        self.refs = refs

    def value(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if kind is bool or kind is int:
            return value
        if value is None:
            return _NONE
        code = self.refs.get(id(value))
        if code is not None:
            return code
        if kind is Square:
            return value.x * 64 + value.y
        if isinstance(value, Enum):
            return _name_id(value)
        if isinstance(value, (list, tuple)):
            return tuple([self.value(item, depth) for item in value])
        if kind is DiceRoll:
            return (_name_id(value.roll_type), value.modifiers, self.value(value.target, depth),
                    tuple([self.value(die.get_value(), depth) for die in value.dice]))
        if isinstance(value, Procedure):
            return self.procedure(value, depth + 1) if depth < _NESTING else _name_id(kind)
        if isinstance(value, Catchable):  # a ball not on the pitch yet (the kick-off's, before it is placed)
            return (_square(value.position), value.on_ground, value.is_carried)
        if kind is ActionChoice:
            return (_name_id(value.action_type), len(value.players), len(value.positions))
        if isinstance(value, Die):
            return self.value(value.get_value(), depth)
        if isinstance(value, (set, frozenset)):
            return frozenset([self.value(item, depth) for item in value])
        if isinstance(value, dict):
            return frozenset([(self.value(k, depth), self.value(v, depth)) for k, v in value.items()])
        if kind is float:
            return hash(value)  # not salted: the same in every process
        if kind is str:
            return zlib.crc32(value.encode())
        return _name_id(kind)  # a kind this encoder does not know: at least its kind counts

    def procedure(self, proc: Procedure, depth: int = 0) -> Tuple:
        codes = [_name_id(type(proc))]
        for name, item in vars(proc).items():
            if name[0] == "_" or name in _DERIVED_ATTRIBUTES:
                continue
            kind = type(item)  # the common kinds inline: this runs for every procedure of every hash
            if kind is bool or kind is int:
                codes.append(item)
            elif item is None:
                codes.append(_NONE)
            else:
                codes.append(self.value(item, depth))
        return tuple(codes)


def _team_code(game: botbowl.Game, team) -> int:
    if team is None:
        return _NONE
    return 1 if team is game.state.home_team else 2


def _player_code(player: Player, dugout_code: int) -> int:
    state = player.state
    skills = 0
    for skill in state.used_skills:
        skills |= 1 << skill.value
    position = player.position
    # botbowl records a casualty declined to the apothecary as the injury None
    injuries = tuple([_NONE if injury is None else _name_id(injury) for injury in state.injuries_gained])
    return hash((_player_state(state), _NONE if position is None else position.x * 64 + position.y, dugout_code,
                 skills, injuries))


def _team_key(game: botbowl.Game, team: Team, refs: Dict[int, int]) -> Tuple[int, ...]:
    s = team.state
    dugout = game.state.dugouts[team.team_id]
    codes = {}
    for attr, code in _DUGOUT_CODES:
        for player in getattr(dugout, attr):
            codes[id(player)] = code
    base = _PLAYER + (0 if team is game.state.home_team else 256)
    players = []
    for index, player in enumerate(team.players):
        refs[id(player)] = base + index
        players.append(_player_code(player, codes.get(id(player), 0)))
    return (s.score, s.turn, s.rerolls, s.reroll_used, s.apothecaries, s.bribes, s.babes, s.fame,
            s.wizard_available, s.masterchef, *players)


def game_state_hash(game: botbowl.Game) -> int:
    """An integer that is equal for equal game states and differs when they differ (see module doc)."""
    state = game.state
    home, away = state.home_team, state.away_team
    refs = {id(home): _TEAM + 1, id(away): _TEAM + 2}
    teams = (_team_key(game, home, refs), _team_key(game, away, refs))
    pieces = list(state.pitch.balls) if state.pitch.bomb is None else [*state.pitch.balls, state.pitch.bomb]
    balls = []
    for index, piece in enumerate(pieces):
        refs[id(piece)] = _BALL + index
        balls.append((_square(piece.position), piece.on_ground, piece.is_carried))
    stack = state.stack.items
    for index, proc in enumerate(stack):
        refs[id(proc)] = _ON_STACK + index
    encoder = _Encoder(refs)
    procs = tuple([encoder.procedure(proc) for proc in stack])
    rerolled = tuple(sorted(refs.get(id(proc), _NONE) for proc in state.rerolled_procs))
    available = tuple([(_name_id(choice.action_type), len(choice.players), len(choice.positions))
                       for choice in state.available_actions])
    action_type = state.player_action_type
    key = (state.game_over, state.half, state.round, _name_id(state.weather), state.gentle_gust,
           refs.get(id(state.active_player), _NONE),
           _team_code(game, state.current_team), _team_code(game, state.coin_toss_winner),
           _team_code(game, state.kicking_first_half), _team_code(game, state.kicking_this_drive),
           _team_code(game, state.receiving_this_drive),
           tuple([_team_code(game, team) for team in state.turn_order]),
           _NONE if action_type is None else _name_id(action_type),
           procs, rerolled, tuple(balls), available, teams)
    return hash(key)
