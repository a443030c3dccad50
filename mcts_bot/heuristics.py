"""Leaf evaluation: how good a game state is for `team`, in [0, 1] (1 a won game, 0 a lost one)."""
from __future__ import annotations

import botbowl


def _material(game: botbowl.Game, team: botbowl.Team) -> float:
    """The seed's weighting of one team's score, ball and losses (higher is better for `team`)."""
    on_pitch = [p for p in team.players if p.position is not None and not p.state.up]
    stunned = sum(1 for p in on_pitch if p.state.stunned)
    down = len(on_pitch) - stunned
    carrier = game.get_ball_carrier()
    has_ball = carrier is not None and carrier.team.team_id == team.team_id
    lost = len(game.get_casualties(team)) + len(game.get_dungeon(team))
    kos = len(game.get_knocked_out(team))
    return team.state.score / 10 + has_ball / 20 - lost / 30 - kos / 50 - stunned / 100 - down / 200


def game_result(game: botbowl.Game, team: botbowl.Team) -> float:
    """1 for a win, 0.5 for a draw, 0 for a loss; only meaningful once the game is over."""
    winner = game.get_winning_team()
    if winner is None:
        return 0.5
    return 1.0 if winner.team_id == team.team_id else 0.0


def material_heuristic(game: botbowl.Game, team: botbowl.Team) -> float:
    """The seed's material/score heuristic, scaled into [0, 1].

    Score (1/10 per touchdown), ball possession (1/20), casualties and ejections (1/30), knocked
    out (1/50), stunned (1/100) and down (1/200) players, for `team` minus its opponent, around 0.5.
    The seed scored a lost game -1 and let the sum leave [0, 1]; here a loss is 0 and the sum is
    clipped, the only departures from its numbers.
    """
    if game.state.game_over:
        return game_result(game, team)
    opponent = game.get_opp_team(team)
    value = 0.5 + _material(game, team) - _material(game, opponent)
    return min(1.0, max(0.0, value))
