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


# --------------------------------------------------------------------------------------------------
# The default heuristic: the score first, then the ball, then the players.

TOUCHDOWN = 1.0  # one touchdown is worth more than anything the ball or the players can add
POSSESSION = 0.3
CARRIER_PROGRESS = 0.6  # at the edge of the opponent's endzone: on the big board 0.024 a square
CARRIER_MARKED = 0.03  # per opposing tackle zone on the carrier
CARRIER_SUPPORT = 0.01  # per standing teammate next to the carrier (up to two)
LOOSE_BALL = 0.15  # nearest player to a loose ball, ours against theirs
NEAR_BALL = 0.02  # per standing player within two squares of the ball (up to four)
PLAYER_DOWN = 0.02
PLAYER_STUNNED = 0.04
PLAYER_KO = 0.08
PLAYER_OUT = 0.15  # casualty or ejected
SCALE = 0.04  # value per unit of the sum above: linear, so a move forward counts as much when leading by two
NON_TERMINAL_RANGE = 0.48  # non-terminal values stay within 0.5 +- this: a won game (1.0) is worth more


def _players_value(game: botbowl.Game, team: botbowl.Team) -> float:
    """Minus what the team has lost: players down, stunned, knocked out, hurt or sent off."""
    down = stunned = 0
    for player in team.players:
        if player.position is not None and not player.state.up:
            if player.state.stunned:
                stunned += 1
            else:
                down += 1
    out = len(game.get_casualties(team)) + len(game.get_dungeon(team))
    return -(PLAYER_DOWN * down + PLAYER_STUNNED * stunned + PLAYER_KO * len(game.get_knocked_out(team))
             + PLAYER_OUT * out)


def _standing(team: botbowl.Team):
    return [p for p in team.players if p.position is not None and p.state.up]


def _ball_value(game: botbowl.Game, team: botbowl.Team, opponent: botbowl.Team) -> float:
    """The ball from `team`'s side: who holds it, how far it has come, how safe it is, who is near it."""
    balls = game.state.pitch.balls
    if not balls or balls[0].position is None:
        return 0.0
    ball = balls[0].position
    own, theirs = _standing(team), _standing(opponent)
    near = sum(p.position.distance(ball) <= 2 for p in own) - sum(p.position.distance(ball) <= 2 for p in theirs)
    value = NEAR_BALL * max(-4, min(4, near))
    carrier = game.get_ball_carrier() if balls[0].is_carried else None
    if carrier is None:
        d_own = min((p.position.distance(ball) for p in own), default=99)
        d_theirs = min((p.position.distance(ball) for p in theirs), default=99)
        return value + LOOSE_BALL * (d_theirs - d_own) / max(d_theirs + d_own, 1)
    length = game.arena.width - 3  # from one endzone column to the other
    progress = 1.0 - game.get_distance_to_endzone(carrier) / length
    support = len(game.get_adjacent_players(carrier.position, team=carrier.team, down=False))
    held = (POSSESSION + CARRIER_PROGRESS * progress - CARRIER_MARKED * game.num_tackle_zones_in(carrier)
            + CARRIER_SUPPORT * min(2, support))
    return value + (held if carrier.team.team_id == team.team_id else -held)


def progress_heuristic(game: botbowl.Game, team: botbowl.Team) -> float:
    """Score, then the ball (possession, progress to the endzone, the carrier's safety, players
    around it), then the players (down, stunned, out), mapped linearly around 0.5 and clipped to
    [0.02, 0.98]; a finished game is 1, 0.5 or 0, so a win is worth more than any unfinished state.

    Linear, not squashed: with a squashing function a two-touchdown lead flattened every other
    difference, and the bot stopped moving the ball. Values are small steps around 0.5, which is
    why the default tree policy normalises them (`normalized_ucb1`).
    Symmetric: the value for one team is one minus the value for the other.
    """
    if game.state.game_over:
        return game_result(game, team)
    opponent = game.get_opp_team(team)
    x = (TOUCHDOWN * (team.state.score - opponent.state.score)
         + _ball_value(game, team, opponent)
         + _players_value(game, team) - _players_value(game, opponent))
    return 0.5 + max(-NON_TERMINAL_RANGE, min(NON_TERMINAL_RANGE, SCALE * x))
