"""A game state as a vector of numbers, from one team's point of view: the inputs of the learned value.

What a coach reads off the board, the same ingredients the threat heuristic combines by hand:
the score and the time left, whose turn it is and how many of its players can still act, where
the ball is, how safe the carrier is and how likely it scores in its team's next turn (botbowl's
pathfinding), the race for a loose ball, players down, stunned, knocked out and hurt, re-rolls,
and players standing in opposing tackle zones. Counts of players are divided by the board's
number of players, distances by the pitch's length, so one feature means the same on every board.

`features(game, team)` and `features(game, opponent)` describe the same state from both sides:
the value model is trained on both, so that the two values sum to about one.
"""
from __future__ import annotations

from typing import List, Optional

import botbowl
import numpy as np

from mcts_bot.knowledge.heuristics import carrier_danger, future_turns, game_left, next_mover, scoring_chance
from mcts_bot.knowledge.tackle_zones import TackleZones

_CARRIER = ["distance", "turns_needed_fit", "danger", "scoring_chance", "tackle_zones", "guards", "reach"]
_TEAM = ["standing", "down", "stunned", "knocked_out", "out", "rerolls", "future_turns", "unused", "exposed"]

FEATURE_NAMES: List[str] = (
    ["score_diff", "game_left", "second_half", "acting", "next_mover", "receiving",
     "ball_ours", "ball_theirs", "ball_loose", "ball_out_of_play", "loose_lead", "loose_ours_near", "loose_theirs_near"]
    + [f"our_carrier_{name}" for name in _CARRIER] + [f"their_carrier_{name}" for name in _CARRIER]
    + [f"our_{name}" for name in _TEAM] + [f"their_{name}" for name in _TEAM]
)
NUM_FEATURES = len(FEATURE_NAMES)


def _side(team: Optional[botbowl.Team], of: botbowl.Team) -> float:
    """+1 for `of`, -1 for its opponent, 0 for nobody."""
    if team is None:
        return 0.0
    return 1.0 if team.team_id == of.team_id else -1.0


def _nearest(game: botbowl.Game, team: botbowl.Team, square) -> int:
    return min((p.position.distance(square) + (0 if p.state.up else 2) for p in team.players
                if p.position is not None and not p.state.stunned), default=2 * game.arena.width)


def _carrier_features(game: botbowl.Game, carrier: botbowl.Player, moves_next: bool, length: float) -> List[float]:
    team, opp = carrier.team, game.get_opp_team(carrier.team)
    distance = game.get_distance_to_endzone(carrier)
    needed = -(-max(1, distance) // max(1, carrier.get_ma()))
    reach = sum(1 for p in opp.players if p.position is not None and not p.state.stunned
                and p.position.distance(carrier.position) <= p.get_ma() + 3)
    return [distance / length,
            1.0 if needed <= future_turns(game, team) else 0.0,
            0.0 if moves_next else carrier_danger(game, carrier),
            scoring_chance(game, carrier) if moves_next else 0.0,
            game.num_tackle_zones_in(carrier) / 4.0,
            len(game.get_adjacent_players(carrier.position, team=team, down=False)) / 4.0,
            reach / max(1, game.config.pitch_max)]


def _team_features(game: botbowl.Game, team: botbowl.Team) -> List[float]:
    size = max(1, game.config.pitch_max)
    standing = down = stunned = unused = exposed = 0
    acting = game.state.current_team is not None and game.state.current_team.team_id == team.team_id
    zones = TackleZones(game, team)
    for player in team.players:
        if player.position is None:
            continue
        if player.state.up:
            standing += 1
            if zones.at(player.position) > 0:
                exposed += 1
            if acting and not player.state.used:
                unused += 1
        elif player.state.stunned:
            stunned += 1
        else:
            down += 1
            if acting and not player.state.used:
                unused += 1
    out = len(game.get_casualties(team)) + len(game.get_dungeon(team))
    return [standing / size, down / size, stunned / size, len(game.get_knocked_out(team)) / size, out / size,
            team.state.rerolls / 4.0, future_turns(game, team) / game.config.rounds, unused / size, exposed / size]


def features(game: botbowl.Game, team: botbowl.Team) -> np.ndarray:
    """The state from `team`'s point of view, as `NUM_FEATURES` floats (names in `FEATURE_NAMES`)."""
    opp = game.get_opp_team(team)
    length = float(game.arena.width - 3)
    mover = next_mover(game)
    carrier = game.get_ball_carrier()
    ball = game.get_ball()
    loose = carrier is None and ball is not None and ball.position is not None and ball.on_ground
    in_play = carrier is not None or loose
    values = [team.state.score - opp.state.score, game_left(game), float(game.state.half > 1),
              _side(game.state.current_team, team), _side(mover, team), _side(game.state.receiving_this_drive, team),
              float(carrier is not None and carrier.team == team), float(carrier is not None and carrier.team == opp),
              float(loose), float(not in_play)]
    if loose:
        ours, theirs = _nearest(game, team, ball.position), _nearest(game, opp, ball.position)
        values += [np.tanh((theirs - ours) / 3.0), float(ours <= 2), float(theirs <= 2)]
    else:
        values += [0.0, 0.0, 0.0]
    blank = [0.0] * len(_CARRIER)
    for side in (team, opp):
        if carrier is not None and carrier.team == side:
            values += _carrier_features(game, carrier, mover is not None and mover == side, length)
        else:
            values += blank
    values += _team_features(game, team) + _team_features(game, opp)
    return np.asarray(values, dtype=np.float64)
