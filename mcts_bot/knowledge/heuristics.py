"""Leaf evaluation: how good a game state is for `team`, in [0, 1] (1 a won game, 0 a lost one)."""
from __future__ import annotations

import math
from typing import Optional

import botbowl
import botbowl.core.pathfinding as pf


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
# The progress heuristic (the `previous` preset's): the score first, then the ball, then the players.

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


def _losses(game: botbowl.Game, team: botbowl.Team) -> tuple:
    """(down, stunned, knocked out, out): the team's players on the pitch but not standing, and those
    off it for good in this drive (knocked out) or in this game (hurt or sent off)."""
    down = stunned = 0
    for player in team.players:
        if player.position is not None and not player.state.up:
            if player.state.stunned:
                stunned += 1
            else:
                down += 1
    out = len(game.get_casualties(team)) + len(game.get_dungeon(team))
    return down, stunned, len(game.get_knocked_out(team)), out


def _players_value(game: botbowl.Game, team: botbowl.Team) -> float:
    """Minus what the team has lost: players down, stunned, knocked out, hurt or sent off."""
    down, stunned, knocked_out, out = _losses(game, team)
    return -(PLAYER_DOWN * down + PLAYER_STUNNED * stunned + PLAYER_KO * knocked_out + PLAYER_OUT * out)


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


# --------------------------------------------------------------------------------------------------
# The threat heuristic: what a coach reads off the board when the turn ends. Who moves next, how
# many turns are left, who can reach the ball carrier, how many turns the ball needs to score.
# Terms are in touchdowns and squashed into a win probability that sharpens as the game runs out.

LOOSE_BALL_VALUE = 0.35  # getting to a loose ball first, in touchdowns
POSSESSION_VALUE = 0.25  # holding the ball, beyond the chance of scoring with it
RECEIVING_VALUE = 0.3  # receiving the next kick-off
REROLL_VALUE = 0.04  # per team re-roll, shrinking as the half runs out
PLAYER_LOSS = {"down": 0.15, "stunned": 0.3, "knocked_out": 0.6, "out": 1.0}  # of one player's worth
TEAM_WORTH = 0.8  # what a whole team's players are worth, in touchdowns, spread over the board's players
TURN_SURVIVAL = 0.85  # chance a carrier keeps the ball through each later opposing turn
WIN_SHARPNESS = 0.9  # logistic slope per touchdown at kick-off; it grows as 1/sqrt(game left)
_KNOCK_DOWN = {3: 0.70, 2: 0.56, 1: 0.33, -2: 0.11, -3: 0.04}  # a block's chance to knock the defender down


def future_turns(game: botbowl.Game, team: botbowl.Team) -> int:
    """Turns the team still starts in this half; a turn in progress counts as played (the
    heuristic reads the board as if the acting team's turn ended now)."""
    return max(0, game.config.rounds - team.state.turn)


def game_left(game: botbowl.Game) -> float:
    """The share of the game's turns not yet played, in (0, 1]."""
    rounds = game.config.rounds
    played = sum(min(rounds, t.state.turn) for t in (game.state.home_team, game.state.away_team))
    if game.state.half > 1:
        played += 2 * rounds
    return max(1.0 - played / (4 * rounds), 1.0 / (4 * rounds))


def next_mover(game: botbowl.Game) -> Optional[botbowl.Team]:
    """The team that acts next once the acting team's turn is over (the receiving team before a kick-off)."""
    current = game.state.current_team
    if current is not None:
        return game.get_opp_team(current)
    return game.state.receiving_this_drive


def block_dice(attack: int, defence: int) -> int:
    """Block dice from the two strengths with assists, as botbowl counts them (negative: the defender picks)."""
    if attack > 2 * defence:
        return 3
    if attack > defence:
        return 2
    if attack == defence:
        return 1
    return -3 if 2 * attack < defence else -2


def carrier_danger(game: botbowl.Game, carrier: botbowl.Player) -> float:
    """The chance the opposing team knocks the carrier down in its next turn: blocks by the players
    already next to it, and one blitz from a player who can reach a free square beside it (harder
    through a cage: every guard beside that square stands in the way)."""
    team, opp = carrier.team, game.get_opp_team(carrier.team)
    where, strength = carrier.position, carrier.get_st()
    movers = [p for p in opp.players if p.position is not None and not p.state.stunned]
    adjacent = [p for p in movers if p.state.up and p.position.distance(where) == 1]
    standing = [p.position for p in team.players if p.position is not None and p.state.up]

    def guards(square) -> int:  # the team's standing players beside `square`
        return sum(1 for position in standing if position.distance(square) == 1)

    safe = 1.0
    if adjacent:
        helpers = guards(where)
        for blocker in adjacent:
            safe *= 1.0 - _KNOCK_DOWN[block_dice(blocker.get_st() + len(adjacent) - 1, strength + helpers)]
    blitzers = [(p.position, p.get_ma() + 2 - (0 if p.state.up else 3), p.get_st() + len(adjacent))
                for p in movers if p not in adjacent]
    best_blitz = 0.0
    for square in game.get_adjacent_squares(where, occupied=False):
        beside = guards(square) - 1  # the carrier is one
        for position, reach, attack in blitzers:
            if position.distance(square) <= reach:
                best_blitz = max(best_blitz, _KNOCK_DOWN[block_dice(attack, strength + beside)] * 0.7 ** beside)
    return 1.0 - safe * (1.0 - best_blitz)


def scoring_chance(game: botbowl.Game, carrier: botbowl.Player) -> float:
    """The chance the carrier scores in its team's next turn, by its safest path to the endzone
    (botbowl's pathfinding: tackle zones to dodge out of, players in the way, going for it)."""
    path = pf.get_safest_path_to_endzone(game, carrier, allow_team_reroll=True)
    return path.prob if path is not None and path.steps else 0.0


def drive_value(game: botbowl.Game, carrier: botbowl.Player, moves_next: bool) -> float:
    """What holding the ball is worth to the carrier's team, in touchdowns: the chance to score in
    the turns the half has left, times what a touchdown is worth once the opponent receives the
    kick-off; else a small worth for keeping the ball. Never more than scoring now.

    If the carrier's team moves next, its first turn's chance is read off the board by pathfinding
    (so the opponents' tackle zones and screen count); else the carrier must first survive the
    opposing turn (`carrier_danger`). Later turns count at a fixed rate each."""
    distance = max(1, game.get_distance_to_endzone(carrier))
    pace = max(1, carrier.get_ma())
    needed = -(-distance // pace)
    turns = future_turns(game, carrier.team)
    keep = 1.0 if moves_next else 1.0 - carrier_danger(game, carrier)
    if turns == 0:
        chance = 0.0
    else:
        later = keep * TURN_SURVIVAL ** max(0, needed - 1) * 0.97 ** needed if needed <= turns else 0.05 * keep
        if moves_next:
            now = scoring_chance(game, carrier)
            chance = now + (1.0 - now) * TURN_SURVIVAL * later if turns > 1 else now
        else:
            chance = later
    progress = 0.02 * (1.0 - distance / (game.arena.width - 3))  # a tie-breaker: forward is better
    return chance * (1.0 - RECEIVING_VALUE) + (1.0 - chance) * (POSSESSION_VALUE * keep + progress)


def _players_lost(game: botbowl.Game, team: botbowl.Team) -> float:
    down, stunned, knocked_out, out = _losses(game, team)
    one_player = TEAM_WORTH / max(1, game.config.pitch_max)
    return one_player * (PLAYER_LOSS["down"] * down + PLAYER_LOSS["stunned"] * stunned
                         + PLAYER_LOSS["knocked_out"] * knocked_out + PLAYER_LOSS["out"] * out)


def _nearest(team: botbowl.Team, square) -> int:
    return min((p.position.distance(square) + (0 if p.state.up else 2) for p in team.players
                if p.position is not None and not p.state.stunned), default=99)


def ball_value(game: botbowl.Game, team: botbowl.Team) -> float:
    """The ball from `team`'s side, in touchdowns (positive when it favours `team`)."""
    opp = game.get_opp_team(team)
    mover = next_mover(game)
    carrier = game.get_ball_carrier()
    if carrier is not None:
        value = drive_value(game, carrier, moves_next=mover is not None and mover == carrier.team)
        return value if carrier.team == team else -value
    ball = game.get_ball()
    if ball is None or ball.position is None or not ball.on_ground or game.state.kicking_this_drive is None \
            and game.state.receiving_this_drive is None:
        receiving = game.state.receiving_this_drive
        if receiving is None:
            return 0.0
        return RECEIVING_VALUE if receiving == team else -RECEIVING_VALUE
    # a loose ball: the side that moves next is a step ahead in the race for it
    lead = _nearest(opp, ball.position) - _nearest(team, ball.position)
    lead += 2 if mover == team else -2 if mover == opp else 0
    return LOOSE_BALL_VALUE * math.tanh(lead / 3)


def threat_heuristic(game: botbowl.Game, team: botbowl.Team) -> float:
    """Win probability for `team` read off the board as if the acting team's turn ended now.

    Touchdowns first; then the ball: a carrier's chance to score in the turns the half has left,
    given who can reach it (blitz range, blockers beside it, the cage around it) and who moves
    next; a loose ball goes to whoever is nearer, the next mover a step ahead; before a kick-off
    the receiving team is ahead. Then players down, stunned, knocked out or hurt (each worth more
    on a small board), and re-rolls while the half has turns left. The sum, in touchdowns, goes
    through a logistic whose slope grows as the game runs out: a one-touchdown lead is worth
    little at kick-off and almost a win in the last turn. A finished game is 1, 0.5 or 0.
    """
    if game.state.game_over:
        return game_result(game, team)
    opp = game.get_opp_team(team)
    x = team.state.score - opp.state.score
    x += ball_value(game, team)
    x += _players_lost(game, opp) - _players_lost(game, team)
    half_left = 1.0 / game.config.rounds
    x += REROLL_VALUE * (team.state.rerolls * future_turns(game, team)
                         - opp.state.rerolls * future_turns(game, opp)) * half_left
    slope = WIN_SHARPNESS / math.sqrt(game_left(game))
    value = 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, slope * x))))
    return min(0.999, max(0.001, value))
