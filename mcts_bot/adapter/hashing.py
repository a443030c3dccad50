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

The key is a 128-bit BLAKE2b digest of that encoding (`state_encoding`, a tuple of ints, strings,
floats, bools and None, nested), serialised by `marshal` (format 2: no back-references, so equal
encodings give equal bytes). Nothing in it goes through Python's `hash()`, which merges what
differs (`hash(-1) == hash(-2)`; 64 bits for any tuple), nor botbowl's `Square.__hash__` (7x +
13y, which collides), nor a 32-bit checksum of a name: two states get one key only when their
encodings are equal, but for a chance of about 2^-64 at a billion states. The digest is the same
in every process, so a seeded search builds the same tree anywhere, and every node stores 16
bytes' worth of key rather than the encoding. `tests/test_hashing.py` checks it on thousands of
reachable states: equal keys exactly when the encodings are equal.
"""
from __future__ import annotations

import hashlib
import marshal
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
MARSHAL_FORMAT = 2  # the newest format that never writes a back-reference to an object met before

_names: Dict[Any, str] = {}


def _name(kind: Any) -> str:
    """A class or an enum member by its name (the same in every process)."""
    name = _names.get(kind)
    if name is None:
        name = _names[kind] = kind.__name__ if isinstance(kind, type) else f"{type(kind).__name__}.{kind.name}"
    return name


def _square(position) -> Any:
    """A square of the pitch (never outside 0..63 on any botbowl arena) as one int; None for none."""
    return None if position is None else position.x * 64 + position.y


def _sorted(items) -> tuple:
    """Encoded set or dict items in one order whatever order the container holds them in."""
    try:
        return tuple(sorted(items))
    except TypeError:  # items of kinds that do not compare: order by their text
        return tuple(sorted(items, key=repr))


class _Encoder:
    """Turns what procedures hold into plain values: objects of the game by their place in it
    (a tagged tuple: ("player", 3)), the rest by value, each kind that could share a slot with
    another in a form of its own."""

    __slots__ = ("refs",)

    def __init__(self, refs: Dict[int, tuple]):
        self.refs = refs

    def value(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if kind is bool or kind is int or kind is str or kind is float or value is None:
            return value
        ref = self.refs.get(id(value))
        if ref is not None:
            return ref
        if kind is Square:
            return "square", value.x, value.y
        if isinstance(value, Enum):
            return _name(value)
        if isinstance(value, (list, tuple)):
            return tuple([self.value(item, depth) for item in value])
        if kind is DiceRoll:
            return ("roll", _name(value.roll_type), value.modifiers, self.value(value.target, depth),
                    tuple([self.value(die.get_value(), depth) for die in value.dice]))
        if isinstance(value, Procedure):
            return self.procedure(value, depth + 1) if depth < _NESTING else _name(kind)
        if isinstance(value, Catchable):  # a ball not on the pitch yet (the kick-off's, before it is placed)
            return "ball", _square(value.position), value.on_ground, value.is_carried
        if kind is ActionChoice:
            return "choice", _name(value.action_type), len(value.players), len(value.positions)
        if isinstance(value, Die):
            return self.value(value.get_value(), depth)
        if isinstance(value, (set, frozenset)):
            return ("set",) + _sorted([self.value(item, depth) for item in value])
        if isinstance(value, dict):
            return ("dict",) + _sorted([(self.value(k, depth), self.value(v, depth)) for k, v in value.items()])
        if isinstance(value, type):
            return _name(value)
        return "object", _name(kind)  # a kind this encoder does not know: at least its kind counts

    def procedure(self, proc: Procedure, depth: int = 0) -> Tuple:
        codes = [_name(type(proc))]
        for name, item in vars(proc).items():
            if name[0] == "_" or name in _DERIVED_ATTRIBUTES:
                continue
            codes.append(name)  # attributes a procedure sets only sometimes cannot shift into each other's places
            kind = type(item)  # the common kinds inline: this runs for every procedure of every hash
            if kind is bool or kind is int or item is None:
                codes.append(item)
            else:
                codes.append(self.value(item, depth))
        return tuple(codes)


def _team_code(game: botbowl.Game, team) -> Any:
    if team is None:
        return None
    return 1 if team is game.state.home_team else 2


def _player_code(player: Player, dugout_code: int) -> tuple:
    state = player.state
    skills = 0
    for skill in state.used_skills:
        skills |= 1 << skill.value
    # botbowl records a casualty declined to the apothecary as the injury None
    injuries = tuple([None if injury is None else _name(injury) for injury in state.injuries_gained])
    return _player_state(state), _square(player.position), dugout_code, skills, injuries


def _team_key(game: botbowl.Game, team: Team, side: str, refs: Dict[int, tuple]) -> tuple:
    s = team.state
    dugout = game.state.dugouts[team.team_id]
    codes = {}
    for attr, code in _DUGOUT_CODES:
        for player in getattr(dugout, attr):
            codes[id(player)] = code
    players = []
    for index, player in enumerate(team.players):
        refs[id(player)] = (side, index)
        players.append(_player_code(player, codes.get(id(player), 0)))
    return (s.score, s.turn, s.rerolls, s.reroll_used, s.apothecaries, s.bribes, s.babes, s.fame,
            s.wizard_available, s.masterchef, tuple(players))


def state_encoding(game: botbowl.Game) -> tuple:
    """Everything the key covers (see the module doc), as a nested tuple of plain values."""
    state = game.state
    home, away = state.home_team, state.away_team
    refs: Dict[int, tuple] = {id(home): ("team", 1), id(away): ("team", 2)}
    teams = (_team_key(game, home, "home player", refs), _team_key(game, away, "away player", refs))
    pieces = list(state.pitch.balls) if state.pitch.bomb is None else [*state.pitch.balls, state.pitch.bomb]
    balls = []
    for index, piece in enumerate(pieces):
        refs[id(piece)] = ("ball", index)
        balls.append((_square(piece.position), piece.on_ground, piece.is_carried))
    stack = state.stack.items
    for index, proc in enumerate(stack):
        refs[id(proc)] = ("on the stack", index)
    encoder = _Encoder(refs)
    procs = tuple([encoder.procedure(proc) for proc in stack])
    rerolled = _sorted([refs.get(id(proc), ("off the stack",)) for proc in state.rerolled_procs])
    available = tuple([(_name(choice.action_type), len(choice.players), len(choice.positions))
                       for choice in state.available_actions])
    action_type = state.player_action_type
    active = state.active_player
    return (state.game_over, state.half, state.round, _name(state.weather), state.gentle_gust,
            None if active is None else refs.get(id(active), ("a player of neither team",)),
            _team_code(game, state.current_team), _team_code(game, state.coin_toss_winner),
            _team_code(game, state.kicking_first_half), _team_code(game, state.kicking_this_drive),
            _team_code(game, state.receiving_this_drive),
            tuple([_team_code(game, team) for team in state.turn_order]),
            None if action_type is None else _name(action_type),
            procs, rerolled, tuple(balls), available, teams)


def game_state_hash(game: botbowl.Game) -> int:
    """The state's key: equal for equal states, different when they differ (see the module doc)."""
    encoded = marshal.dumps(state_encoding(game), MARSHAL_FORMAT)
    return int.from_bytes(hashlib.blake2b(encoded, digest_size=16).digest(), "little")
