"""GrodBot-style sparring partner: a rule-based Blood Bowl bot that prices every candidate action.

Style. Where `scripted` walks a prioritised list of rules and plays the first that fires, this bot
ranks everything its players could do right now on one scale, in the manner of GrodBot (Bot Bowl I's
winner): every player that can act proposes moves to each square botbowl's pathfinding reaches (with
the path's success probability), stand-ups, blocks, blitzes (a move, then a block), pick-ups, and for
the carrier the touchdown run, hand-offs and passes; fouls come last and rarely. The bot plays the
best candidate's player action step by step, and plans again from scratch before the next one, so a
knock-down or a failed dodge changes the rest of the turn.

Evaluation. A candidate scores its expected gain minus the expected cost of a turnover:

    score = E[gain] - p(turnover) * (TURNOVER_BASE + what the other unused players would still gain)

The second term is why safe actions (no dice) come first and risky ones last: a turnover costs the
safe actions that have not been taken yet. Gains share one unit (a touchdown is TD_VALUE):
  - the ball's value at a square for the team holding it: a touchdown discounted by the turns the drive
    still needs from there (none left in the half: only denial), times the chance to keep the ball
    through the opponent's next turn (their tackle zones on it, whether any of them can reach it for a
    blitz, less what the cage around it covers, the sideline);
  - a heat map of what each square is worth to a player without the ball: cage corners around the
    square the carrier is heading for; on defence marking their carrier, a spread screen in front of
    it, free receivers marked, a deep safety; closeness to a loose ball;
  - blocks and blitzes from the dice (knock-downs, the carrier's fumble) with botbowl's dice counts;
    passes and hand-offs from the pass, catch and interception rolls and the receiver's chances.
The carrier moves last (the cage forms on its target square first) unless it scores, hands off or
passes. Blocks below two dice are left alone unless they can take the ball or free our carrier.

`GrodBot` also answers every other decision botbowl asks for (coin toss, set-up, kick-off, block dice,
re-rolls, pushes, follow-ups, apothecary), and `act` never raises: on any error it logs once and plays
a safe legal action.
"""
from __future__ import annotations

import weakref
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple, Union

import botbowl
import botbowl.core.pathfinding as pf
import numpy as np
from botbowl.core import Action, ActionType, Skill
from botbowl.core.procedure import (
    Apothecary,
    Block,
    CoinTossFlip,
    CoinTossKickReceive,
    Ejection,
    FollowUp,
    HighKick,
    Interception,
    PlaceBall,
    Push,
    Reroll,
    Setup,
    Touchback,
    Turn,
)
from botbowl.core.table import BBDieResult, PassDistance, Rules, WeatherType

from mcts_bot.adapter.actions import SELECT_DIE, is_available, safe_action
from mcts_bot.adapter.game_memos import game_memo
from mcts_bot.adapter.hashing import game_state_hash
from mcts_bot.knowledge import exposure
from mcts_bot.knowledge.block_dice import BlockDice
from mcts_bot.logs import log_failure_once

# ------------------------------------------------------------------------------------------ weights
# The ball, for the team holding it
TD_VALUE = 100.0  # a touchdown: every other value is measured against it
# A held ball is worth a touchdown discounted by the turns it still needs (the carrier's last run covers its
# MA, each turn before it the cage advances CAGE_PACE squares) and the chance to keep it through each of them.
CAGE_PACE = 4.0  # squares a cage advances in a turn
KEEP_PER_TURN = 0.7  # the chance to keep the ball through one more opponent turn
DENIAL_VALUE = 10.0  # a ball that cannot score before the half ends still keeps it from the opponent
DENIAL_PROGRESS = 0.5  # per square of progress when it cannot score in time: luck and the next drive's field
# The chance the opponent takes the ball in their next turn scales the ball's value (and costs LOOSE_BALL_COST):
BLITZ_LOSE = 0.25  # some opponent can reach the carrier (one blitz a turn): an unprotected one loses it this often
REACH_LOSE = 0.05  # per opponent able to reach it (up to four): assists and tackle zones for that blitz
CONTACT_LOSE = 0.2  # per opposing tackle zone on the carrier now: a block without a move, a dodge to leave
SIDELINE_LOSE = 0.1  # on the sideline the carrier is one push from the crowd (half of it a square in: it gets trapped)
MAX_LOSE = 0.9  # nothing is certain
CAGE_FULL = 4.0  # four supporters (the corners) make a cage
CAGE_PROTECTION = 0.8  # what a full cage takes off the blitz danger: it can still be dodged into or broken
POTENTIAL_SUPPORT = 0.5  # an unused teammate within reach is half a supporter: it can still come
# With `exposure` (the default's knowledge on the Bot Bowl board, not the sparring partner's): the chance to lose
# the ball on a square by how the opponents could get beside the carrier there (knowledge/exposure.py: marked,
# reached with no dice, only with dice, not at all), as counted between `grod`s on 11 players (200 games)...
LOSE_BY_EXPOSURE = np.array([0.68, 0.45, 0.08, 0.0])
# ...that with two guards beside him or more (`Board.support`: unused teammates within reach count half); with one
# or none a blitzer who dodges in blocks with no assist against him (counted the same way, 100 games, seed 700):
LOSE_BY_EXPOSURE_THIN = np.array([0.77, 0.58, 0.33, 0.0])
# ...and a teammate's square worth this more per square two from the carrier's target that an opponent
# reaches with no dice and none of our tackle zones covers yet, beside it: the cage corner that closes the way in.
CLOSE_VALUE = 1.0
LOOSE_BALL_COST = 15.0  # our carrier's failure leaves the ball loose for the opponent, who moves next
TAKEAWAY_VALUE = 25.0  # their carrier drops the ball
TAKEAWAY_PROGRESS = 0.5  # per square their carrier had advanced: the deeper, the more it is worth stopping
PASS_RANKS = {PassDistance.QUICK_PASS: 0, PassDistance.SHORT_PASS: 1, PassDistance.LONG_PASS: 2,
              PassDistance.LONG_BOMB: 3}  # easier throws first; a hail mary is never planned

# Risk
TURNOVER_BASE = 6.0  # a turnover hands the opponent a turn with our players out of position
OPPORTUNITY_CAP = 15.0  # one teammate's pending best action counts at most this much toward a turnover
DOWN_COST = 2.0  # our player on the ground: no tackle zone, no assist, an armour roll
SAFE = 0.999  # a path at least this likely needs no dice
PATHS_WITH_REROLL = False  # price moves without the team re-roll: it is spent once, and a dodge is not free
MIN_SCORE = 0.25  # a candidate below this is not worth a player's action
MIN_MOVE_GAIN = 0.3  # a positional move must improve the square by this much
TARGET_STICKINESS = 4.0  # the carrier keeps the target its cage is forming around unless another is clearly better

# Blocks
KNOCKDOWN_VALUE = 6.0  # an opponent on the ground: no tackle zone, no assist, an armour roll, 3 MA to stand
FREES_CARRIER = 10.0  # the opponent knocked down was marking our carrier: CONTACT_LOSE of a ball worth ~50
FREES_TEAMMATE = 1.0  # per unused teammate it was marking (two at most): they move without dodging
PUSH_INTO_CROWD = 1.0  # a push into the crowd removes the player: as good as a knock-down and then some

# Fouls: worth a player's action only when nothing else is and the assists make the armour likely to break
FOUL_VALUE = 5.0  # a broken armour: a good chance of a knock-out or a casualty
EJECTION_COST = 15.0  # our fouler sent off for the rest of the drive (beyond the turnover)

# Squares for a player without the ball (the heat map)
CAGE_CORNER = 4.0  # diagonal to the carrier's target: a cage corner
CAGE_EDGE = 1.5  # beside it: still a tackle zone in the way
CAGE_RING = 0.8  # two squares out: second line of the cage
KEEP_CLEAR = 20.0  # the carrier's target square itself must stay free
SCREEN_AHEAD = 1.0  # two to four squares in front of the carrier: clearing the road
RECEIVER_SPOT = 1.5  # free of tackle zones, ahead of the carrier, within a short pass
RECEIVER_DEPTH = 0.1  # per square further ahead: deeper receivers are worth more
RECEIVER_ENDZONE = 6.0  # free in their endzone within a short pass of the carrier: a catch there scores
RECEIVER_THREAT = 2.0  # free, within a long pass of the carrier and a run of the endzone: next turn's pass
RECEIVER_RUN = 6  # squares a receiver is assumed to run after the catch (a catcher's MA is 8, a lineman's 6)
ADVANCE_DRIFT = 0.05  # per square forward on offence: the team moves up with the ball
MARK_CARRIER = 5.0  # a tackle zone on their carrier: it must dodge, and our blitz gets assists
SCREEN_DEFENCE = 3.0  # two to five squares between their carrier and our endzone
SCREEN_OVERLAP = 1.0  # per teammate beside a screen square: tackle zones that overlap cover less ground
SAFETY = 2.5  # one player deep behind the screen, in case the carrier breaks through
MARK_RECEIVER = 2.5  # next to a free opposing receiver (shared with those already marking it)
CHASE = 1.0  # toward their carrier, so the far players come back
BALL_ATTRACT = 3.0  # toward a loose ball, fading over eight squares
NEAR_BALL = 1.5  # beside a loose ball: a pick-up next, and tackle zones on theirs
MARK_NEAR_BALL = 1.5  # next to an opponent close to a loose ball
STAND_UP_VALUE = 3.0  # a player back on its feet
TZ_EXPOSURE = 0.4  # per opposing tackle zone: a player in contact gets blocked
SIDELINE_EXPOSURE = 1.0  # in contact on the sideline: a push into the crowd

# Kick-off
KICK_DEPTH_FRACTION = 1 / 6  # kick this far (of the pitch length) from their endzone: deep, away from the sidelines
FORMATIONS_RECEIVE = (ActionType.SETUP_FORMATION_WEDGE,  # players in the middle, ready to form the cage
                      ActionType.SETUP_FORMATION_LINE)
FORMATIONS_KICK = (ActionType.SETUP_FORMATION_ZONE,  # depth against the run, first choice where offered
                   ActionType.SETUP_FORMATION_SPREAD)

START_TYPES = (ActionType.START_MOVE, ActionType.START_BLOCK, ActionType.START_BLITZ, ActionType.START_PASS,
               ActionType.START_HANDOFF, ActionType.START_FOUL)  # the player actions the planner knows
GFI_PROB = 5.0 / 6.0  # a go-for-it fails on a 1


def check_weights(values: Dict[str, float]) -> Dict[str, float]:
    """`values` as weights of this module (a name above, a number of its type); a clear error otherwise."""
    checked = {}
    for name, value in values.items():
        shipped = globals().get(name)
        if not name.isupper() or isinstance(shipped, bool) or not isinstance(shipped, (int, float)):
            raise ValueError(f"{name!r} is not a weight of mcts_bot/knowledge/grod.py (an upper-case number there)")
        try:
            checked[name] = type(shipped)(value)
        except (TypeError, ValueError):
            raise ValueError(f"the weight {name} needs a number, got {value!r}") from None
    return checked


@contextmanager
def weights_set(values: Dict[str, float]) -> Iterator[None]:
    """This module's weights set to `values` for the duration, then restored: a bot with weights of its
    own can play in a process whose other bots play the shipped ones (the module reads them at each call)."""
    values = check_weights(values)
    saved = {name: globals()[name] for name in values}
    globals().update(values)
    try:
        yield
    finally:
        globals().update(saved)


Step = Tuple[ActionType, Optional[botbowl.Square]]


@dataclass
class Plan:
    """One player action: `start` (a START_* type) for `player`, then `steps` (an action type and its
    square), scored by `gain` (expected), `p_turnover` and, once priced, `score`."""

    player: botbowl.Player
    start: ActionType
    steps: Tuple[Step, ...]
    gain: float
    p_turnover: float
    label: str
    deferred: bool = False  # the carrier's own moves: played after everyone else
    score: float = 0.0


# ------------------------------------------------------------------------------------------ the board
def is_final_turn(game: botbowl.Game, team: botbowl.Team) -> bool:
    """Nothing follows `team`'s turn in this half: only touchdowns (and hurting opponents) still count."""
    rounds = game.config.rounds
    return team.state.turn >= rounds and game.get_opp_team(team).state.turn >= rounds


def lose_by_exposure(kind: Union[int, np.ndarray], support: Union[float, np.ndarray]) -> Union[float, np.ndarray]:
    """The chance to lose the ball by the carrier's exposure `kind` (EXPOSURES' index) with `support`
    guards: LOSE_BY_EXPOSURE with two or more, LOSE_BY_EXPOSURE_THIN with one or none, linear between
    (arrays or numbers alike)."""
    thin = np.clip(2.0 - support, 0.0, 1.0)
    return LOSE_BY_EXPOSURE[kind] + thin * (LOSE_BY_EXPOSURE_THIN - LOSE_BY_EXPOSURE)[kind]


@lru_cache(maxsize=8)
def _grid(width: int, height: int) -> Tuple[np.ndarray, np.ndarray]:
    ys, xs = np.mgrid[0:height, 0:width]
    return xs, ys


class Board:
    """What one decision reads from the game, computed once: tackle zones, reach, the ball, paths.
    With `exposure` the carrier's squares are priced by what the opponents' blitz could reach there.
    With `own_frame` equal choices are settled in the team's own frame, the square farther from the
    endzone it attacks first (`paths`, `neighbours`), so that it plays an arrangement as home as it
    plays its mirror as away; without, by botbowl's board order, which runs the same way for both
    teams: a tied blitz then pushes the defender toward one team's endzone and away from the other's."""

    def __init__(self, game: botbowl.Game, team: botbowl.Team, exposure: bool = False, own_frame: bool = False):
        self.game = game
        self.team = team
        self.exposure = exposure
        self.own_frame = own_frame
        self.opp = game.get_opp_team(team)
        self.width, self.height = game.arena.width, game.arena.height
        self.xs, self.ys = _grid(self.width, self.height)
        self.endzone_x = game.get_opp_endzone_x(team)
        self.own_endzone_x = game.get_opp_endzone_x(self.opp)
        self.forward = 1 if self.endzone_x > self.own_endzone_x else -1
        ball = game.get_ball()
        carrier = game.get_ball_carrier()
        self.our_carrier = carrier if carrier is not None and carrier.team == team else None
        self.their_carrier = carrier if carrier is not None and carrier.team != team else None
        self.ball_square = ball.position if ball is not None and carrier is None else None
        self.ball_on_ground = self.ball_square is not None and ball.on_ground
        self.ours = [p for p in team.players if p.position is not None]
        self.theirs = [p for p in self.opp.players if p.position is not None]
        self.can_reroll = game.can_use_reroll(team)
        rounds = game.config.rounds
        self.final_turn = is_final_turn(game, team)
        self.turns_left = max(0, rounds - team.state.turn)  # our turns after this one in the half
        self.opp_tz = self.zones([p for p in self.theirs if p.has_tackle_zone()])
        self.opp_tz_at = self.opp_tz.tolist()
        self._paths: Dict[str, List[tuple]] = {}
        self._ends: Dict[str, Dict[Tuple[int, int], object]] = {}
        self._reach: Optional[np.ndarray] = None
        self._reached: Optional[Tuple[np.ndarray, np.ndarray, np.ndarray]] = None
        self._ball_map: Optional[list] = None
        self._td_prob: Dict[str, float] = {}
        self.block_dice = BlockDice(game)

    # -- geometry
    def zones(self, players: Sequence[botbowl.Player]) -> np.ndarray:
        """How many of `players` exert a tackle zone on each square (not counting their own square)."""
        zones = np.zeros((self.height, self.width), dtype=np.int32)
        for p in players:
            x, y = p.position.x, p.position.y
            zones[max(0, y - 1):y + 2, max(0, x - 1):x + 2] += 1
            zones[y, x] -= 1
        return zones

    def cheb(self, square: botbowl.Square) -> np.ndarray:
        """Squares' distances (botbowl's: king moves) from `square`."""
        return np.maximum(np.abs(self.xs - square.x), np.abs(self.ys - square.y))

    def to_endzone(self, square: botbowl.Square) -> int:
        return abs(self.endzone_x - square.x)

    def progress(self, square: botbowl.Square) -> int:
        return abs(square.x - self.own_endzone_x)

    def edge_mask(self) -> np.ndarray:
        return (self.ys == 1) | (self.ys == self.height - 2)

    def neighbours(self, square: botbowl.Square) -> List[Tuple[int, int]]:
        """The eight squares around `square` as (x, y), in the order a tie between them is settled."""
        columns = (-self.forward, 0, self.forward) if self.own_frame else (-1, 0, 1)
        return [(square.x + dx, square.y + dy) for dx in columns for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]

    # -- paths
    def paths(self, player: botbowl.Player) -> List[tuple]:
        """(end square, path) for each square the player can reach, botbowl's safest path to each.
        Computed once per player and decision: the pathfinding is the bot's main cost."""
        paths = self._paths.get(player.player_id)
        if paths is None:
            found = pf.get_all_paths(self.game, player, allow_team_reroll=PATHS_WITH_REROLL and self.can_reroll)
            paths = [(path.get_last_step(), path) for path in found]
            if self.own_frame:
                paths.sort(key=lambda end: (-self.to_endzone(end[0]), end[0].y))
            self._paths[player.player_id] = paths
        return paths

    def ends(self, player: botbowl.Player) -> Dict[Tuple[int, int], object]:
        """The player's paths by end square (x, y)."""
        ends = self._ends.get(player.player_id)
        if ends is None:
            ends = self._ends[player.player_id] = {(sq.x, sq.y): path for sq, path in self.paths(player)}
        return ends

    def td_prob(self, player: botbowl.Player) -> float:
        """How likely the player reaches the endzone this turn (0 once it has acted)."""
        if player.state.used or not player.state.up:
            return 0.0
        if player.player_id not in self._td_prob:
            self._td_prob[player.player_id] = max(
                (path.prob for sq, path in self.paths(player) if sq.x == self.endzone_x), default=0.0)
        return self._td_prob[player.player_id]

    # -- the ball
    def reach(self) -> np.ndarray:
        """How many opponents can reach a square's neighbourhood in their next turn."""
        if self._reach is None:
            reach = np.zeros((self.height, self.width), dtype=np.int32)
            for p in self.theirs:
                if p.state.stunned:
                    continue  # a stunned player only turns over next turn
                moves = p.get_ma() + 2 + 1 - (0 if p.state.up else 3)
                reach += self.cheb(p.position) <= moves
            self._reach = reach
        return self._reach

    def support(self) -> np.ndarray:
        """How many of our standing players (the carrier aside) would support the carrier on each
        square: one beside it counts 1, an unused one within reach `POTENTIAL_SUPPORT`."""
        support = self._could_come(beyond=1)
        for p in self.ours:
            if p is not self.our_carrier and p.state.up:
                support += self.cheb(p.position) == 1
        return support

    def _could_come(self, beyond: int) -> np.ndarray:
        """On each square, `POTENTIAL_SUPPORT` per unused standing teammate (the carrier aside) farther
        from it than `beyond` and within his MA: who could still come to guard the carrier there."""
        potential = np.zeros((self.height, self.width), dtype=np.float64)
        for p in self.ours:
            if p is not self.our_carrier and p.state.up and not p.state.used:
                distance = self.cheb(p.position)
                potential += POTENTIAL_SUPPORT * ((distance > beyond) & (distance <= p.get_ma()))
        return potential

    def reached(self) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        """`exposure.reach` for our carrier (where the opponents get with and without dice), computed once."""
        if self._reached is None:
            self._reached = exposure.reach(self.game, self.team, self.our_carrier)
        return self._reached

    def ball_map(self) -> list:
        """The chance the opponent takes the ball from our carrier on each square in their next turn,
        as nested lists."""
        if self._ball_map is None:
            sideline = self.sideline_lose()
            if self.exposure and self.our_carrier is not None:
                p_lose = self._exposure_lose() + sideline
            else:
                cover = CAGE_PROTECTION * np.minimum(self.support(), CAGE_FULL) / CAGE_FULL
                reach = self.reach()
                p_lose = ((1.0 - cover) * (BLITZ_LOSE * (reach > 0) + REACH_LOSE * np.minimum(reach, 4))
                          + CONTACT_LOSE * self.opp_tz + sideline)
            self._ball_map = np.minimum(p_lose, MAX_LOSE).tolist()
        return self._ball_map

    def sideline_lose(self) -> np.ndarray:
        """SIDELINE_LOSE on each sideline square, half of it a square in."""
        return SIDELINE_LOSE * self.edge_mask() + SIDELINE_LOSE / 2 * ((self.ys == 2) | (self.ys == self.height - 3))

    def _exposure_lose(self) -> np.ndarray:
        """LOSE_BY_EXPOSURE on each square with every teammate where he stands; an open square's chance
        lowered as the shipped map lowers the blitz's, by the unused teammates who could still close it."""
        grid = exposure.exposure_grid(self.game, self.team, self.our_carrier, self.reached())
        potential = self._could_come(beyond=-1)  # beside the square too, unlike `support`'s count
        cover = CAGE_PROTECTION * np.minimum(potential, CAGE_FULL) / CAGE_FULL
        p_lose = lose_by_exposure(grid, self.support())
        return np.where(grid == exposure.OPEN, p_lose * (1.0 - cover), p_lose)

    def ball_value(self, player: botbowl.Player, square: botbowl.Square) -> float:
        """Our ball in `player`'s hands on `square` at the end of our turn."""
        if square.x == self.endzone_x:
            return TD_VALUE
        if self.final_turn:
            return 0.0
        lose = self.ball_map()[square.y][square.x]
        return (1.0 - lose) * self.worth(player, square) - lose * LOOSE_BALL_COST

    def worth(self, player: botbowl.Player, square: botbowl.Square) -> float:
        """Our ball in `player`'s hands on `square` if nobody takes it: a touchdown discounted by the turns
        it still needs, or, when it cannot score in time, what keeping it from the opponent is worth."""
        turns = 1.0 + max(0, self.to_endzone(square) - player.get_ma()) / CAGE_PACE
        if turns <= self.turns_left:
            return TD_VALUE * KEEP_PER_TURN ** turns
        return DENIAL_VALUE + DENIAL_PROGRESS * self.progress(square)

    def holder_value(self, player: botbowl.Player, square: botbowl.Square) -> float:
        """The ball's value once `player` (standing on `square`) catches it: a touchdown in the endzone,
        or its own run to the endzone if it has not acted yet."""
        return max(self.ball_value(player, square), self.td_prob(player) * TD_VALUE)


# ------------------------------------------------------------------------------------------ blocks
_FACES = ((BBDieResult.ATTACKER_DOWN, 1 / 6), (BBDieResult.BOTH_DOWN, 1 / 6), (BBDieResult.PUSH, 2 / 6),
          (BBDieResult.DEFENDER_STUMBLES, 1 / 6), (BBDieResult.DEFENDER_DOWN, 1 / 6))


def _face_outcome(face: BBDieResult, att_block: bool, def_block: bool, stumble_knocks: bool,
                  crowd: bool) -> Tuple[int, int]:
    """(attacker falls, defender falls or leaves the pitch) for one block die."""
    if face == BBDieResult.ATTACKER_DOWN:
        return 1, 0
    if face == BBDieResult.BOTH_DOWN:
        return int(not att_block), int(not def_block)
    if face == BBDieResult.PUSH:
        return 0, int(crowd)
    if face == BBDieResult.DEFENDER_STUMBLES:
        return 0, int(stumble_knocks or crowd)
    return 0, 1


@lru_cache(maxsize=None)
def block_odds(dice: int, att_block: bool, def_block: bool, stumble_knocks: bool, crowd: bool,
               att_carries: bool = False, def_carries: bool = False) -> Tuple[float, float]:
    """(p attacker falls, p defender falls) for a block at `dice` (negative: the defender picks),
    each side picking the die it likes best: a fall counts double for the attacker (a turnover), and
    much more for whoever holds the ball."""
    outcomes = [(_face_outcome(face, att_block, def_block, stumble_knocks, crowd), p) for face, p in _FACES]
    pick = max if dice > 0 else min
    att_weight = 2.0 + (3.0 if att_carries else 0.0)
    def_weight = 1.0 + (3.0 if def_carries else 0.0)
    p_att = p_def = 0.0
    for combo in product(outcomes, repeat=abs(dice)):
        prob = float(np.prod([p for _, p in combo]))
        att, dfd = pick((o for o, _ in combo), key=lambda o: def_weight * o[1] - att_weight * o[0])
        p_att += prob * att
        p_def += prob * dfd
    return p_att, p_def


def crowd_push(board: Board, attacker_square: botbowl.Square, defender: botbowl.Player) -> bool:
    """Whether a push from `attacker_square` must send `defender` into the crowd (botbowl's push squares:
    the free squares behind it first, the crowd only when there are none)."""
    if defender.has_skill(Skill.STAND_FIRM) or defender.has_skill(Skill.SIDE_STEP):
        return False
    game, d = board.game, defender.position
    straight = attacker_square.x == d.x or attacker_square.y == d.y
    out = False
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            x, y = d.x + dx, d.y + dy
            if (dx, dy) == (0, 0):
                continue
            if straight:
                behind = max(abs(x - attacker_square.x), abs(y - attacker_square.y)) >= 2
            else:
                behind = abs(x - attacker_square.x) + abs(y - attacker_square.y) >= 3
            if not behind:
                continue
            if x <= 0 or y <= 0 or x >= board.width - 1 or y >= board.height - 1:
                out = True
            elif game.get_player_at(game.get_square(x, y)) is None:
                return False
    return out


def knockdown_value(board: Board, defender: botbowl.Player) -> float:
    """What knocking `defender` down is worth to us, before the ball."""
    if board.final_turn:
        return KNOCKDOWN_VALUE / 2  # only the armour roll is left
    value = KNOCKDOWN_VALUE
    carrier = board.our_carrier
    if carrier is not None and defender.position.distance(carrier.position) == 1:
        value += FREES_CARRIER
    marked = sum(1 for p in board.ours if p is not carrier and p.state.up and not p.state.used
                 and p.position.distance(defender.position) == 1)
    return value + FREES_TEAMMATE * min(2, marked)


def takeaway_value(board: Board) -> float:
    """Their carrier losing the ball."""
    carrier = board.their_carrier
    if carrier is None:
        return 0.0
    return TAKEAWAY_VALUE + TAKEAWAY_PROGRESS * abs(carrier.position.x - board.endzone_x)


def block_gain(board: Board, attacker: botbowl.Player, defender: botbowl.Player, square: botbowl.Square,
               dice: int) -> Tuple[float, float]:
    """(expected gain, p attacker falls) of `attacker` blocking `defender` from `square` at `dice`."""
    stumble_knocks = not defender.has_skill(Skill.DODGE) or attacker.has_skill(Skill.TACKLE)
    crowd = crowd_push(board, square, defender)
    p_att, p_def = block_odds(dice, attacker.has_skill(Skill.BLOCK), defender.has_skill(Skill.BLOCK),
                              stumble_knocks, crowd, attacker is board.our_carrier, defender is board.their_carrier)
    gain = p_def * (knockdown_value(board, defender) + (PUSH_INTO_CROWD if crowd else 0.0))
    if defender is board.their_carrier:
        gain += p_def * takeaway_value(board)
    gain -= p_att * DOWN_COST
    if attacker is board.our_carrier:
        gain -= p_att * (board.ball_value(attacker, attacker.position) + LOOSE_BALL_COST)
    return gain, p_att


def worth_blocking(game: botbowl.Game, attacker: botbowl.Player, defender: botbowl.Player, dice: int) -> bool:
    """Blocks at two dice or more; one die or dice against only when they can take the ball, free our
    carrier, or nothing comes after this turn."""
    if dice >= 2:
        return True
    carrier = game.get_ball_carrier()
    if carrier is defender or is_final_turn(game, attacker.team):
        return True
    return dice == 1 and carrier is not None and carrier is not attacker and carrier.team == attacker.team \
        and defender.position.distance(carrier.position) == 1


# ------------------------------------------------------------------------------------------ the heat map
def position_map(board: Board, target: Optional[botbowl.Square]) -> list:
    """What each square is worth to one of our players without the ball, as nested lists."""
    value = np.zeros((board.height, board.width), dtype=np.float64)
    if board.final_turn:
        return value.tolist()  # positions no longer matter
    if board.our_carrier is not None:
        target = target if target is not None else board.our_carrier.position
        _offence(board, value, target)
        if board.exposure:
            _close_the_cage(board, value, target)
    elif board.their_carrier is not None:
        _defence(board, value, board.their_carrier.position)
    elif board.ball_square is not None:
        _loose_ball(board, value, board.ball_square)
    value -= TZ_EXPOSURE * board.opp_tz
    value -= SIDELINE_EXPOSURE * (board.edge_mask() & (board.opp_tz > 0))
    return value.tolist()


def _offence(board: Board, value: np.ndarray, target: botbowl.Square) -> None:
    dx, dy = np.abs(board.xs - target.x), np.abs(board.ys - target.y)
    distance = np.maximum(dx, dy)
    value += CAGE_CORNER * ((dx == 1) & (dy == 1))
    value += CAGE_EDGE * ((dx + dy) == 1)
    value += CAGE_RING * (distance == 2)
    ahead = (board.xs - target.x) * board.forward
    value += SCREEN_AHEAD * ((ahead >= 2) & (ahead <= 4) & (dy <= 2))
    open_ahead = (ahead >= 3) & (distance <= 8) & (board.opp_tz == 0)
    value += open_ahead * (RECEIVER_SPOT + RECEIVER_DEPTH * ahead)
    free = board.opp_tz == 0
    to_endzone = np.abs(board.xs - board.endzone_x)
    value += RECEIVER_ENDZONE * ((to_endzone == 0) & free & (distance <= 6))
    value += RECEIVER_THREAT * ((to_endzone > 0) & (to_endzone <= RECEIVER_RUN) & free & (distance <= 10))
    value += ADVANCE_DRIFT * np.abs(board.xs - board.own_endzone_x)
    if board.our_carrier is not None and target != board.our_carrier.position:
        value[target.y, target.x] -= KEEP_CLEAR


def _close_the_cage(board: Board, value: np.ndarray, target: botbowl.Square) -> None:
    """CLOSE_VALUE for each square beside a square two from the carrier's target that an opponent
    reaches with no dice and none of our tackle zones covers yet: a teammate there makes the blitzer
    dodge on his last step in (a cage's corners do it for all)."""
    free = board.reached()[0]
    ours = board.zones([p for p in board.ours if p is not board.our_carrier and p.has_tackle_zone()])
    gaps = (board.cheb(target) == 2) & free & (ours == 0)
    value += CLOSE_VALUE * exposure.around(gaps)


def _defence(board: Board, value: np.ndarray, carrier_square: botbowl.Square) -> None:
    dx, dy = np.abs(board.xs - carrier_square.x), np.abs(board.ys - carrier_square.y)
    distance = np.maximum(dx, dy)
    value += MARK_CARRIER * (distance == 1)
    value += CHASE * np.maximum(0.0, 1.0 - distance / 10.0)
    back_dir = -board.forward  # toward our own endzone
    back = (board.xs - carrier_square.x) * back_dir
    screen = (back >= 2) & (back <= 5) & (dy <= back + 1)
    ours_beside = board.zones([p for p in board.ours if p.state.up])
    fade = 1.0 - dy / (np.maximum(back, 0) + 2.0)  # wider further back, as a funnel
    value += screen * (SCREEN_DEFENCE * fade - SCREEN_OVERLAP * ours_beside)
    deep = [p for p in board.ours if p.state.up and (p.position.x - carrier_square.x) * back_dir >= 6]
    if not deep:
        value += SAFETY * ((back >= 6) & (back <= 9) & (dy <= 3))
    for opponent in board.theirs:
        if opponent is board.their_carrier or not opponent.state.up:
            continue
        if (opponent.position.x - carrier_square.x) * back_dir < -1:
            continue  # behind their carrier: no receiver
        markers = sum(1 for p in board.ours if p.state.up and p.position.distance(opponent.position) == 1)
        value += (MARK_RECEIVER / (1 + markers)) * (board.cheb(opponent.position) == 1)


def _loose_ball(board: Board, value: np.ndarray, ball: botbowl.Square) -> None:
    distance = board.cheb(ball)
    value += BALL_ATTRACT * np.maximum(0.0, 1.0 - distance / 8.0)
    value += NEAR_BALL * (distance == 1)
    for opponent in board.theirs:
        if opponent.state.up and opponent.position.distance(ball) <= 3:
            value += MARK_NEAR_BALL * (board.cheb(opponent.position) == 1)


# ------------------------------------------------------------------------------------------ candidates
def _move_plans(board: Board, player: botbowl.Player, pmap: list) -> List[Plan]:
    """Positional moves and stand-ups of a player without the ball, and its pick-up of a loose ball."""
    here = player.position
    current = pmap[here.y][here.x]
    stand = 0.0 if player.state.up else STAND_UP_VALUE
    plans = []
    if not player.state.up:
        p_stand = 1.0 if player.get_ma() >= 3 or player.has_skill(Skill.JUMP_UP) else 0.5
        plans.append(Plan(player, ActionType.START_MOVE, ((ActionType.STAND_UP, None),), p_stand * stand, 0.0,
                          "stand up"))
    ball = board.ball_square if board.ball_on_ground else None
    for square, path in board.paths(player):
        p = path.prob
        if ball is not None and square == ball:
            gain = p * board.ball_value(player, square)
            plans.append(Plan(player, ActionType.START_MOVE, ((ActionType.MOVE, square),), gain, 1.0 - p, "pick up"))
            continue
        improvement = pmap[square.y][square.x] - current + stand
        if improvement < MIN_MOVE_GAIN:
            continue
        plans.append(Plan(player, ActionType.START_MOVE, ((ActionType.MOVE, square),),
                          p * improvement - (1.0 - p) * DOWN_COST, 1.0 - p, "move"))
    return plans


def _carrier_moves(board: Board, carrier: botbowl.Player, previous_target: Optional[botbowl.Square]) -> List[Plan]:
    """The carrier's touchdown runs and its moves to safer or more advanced squares (deferred)."""
    now = board.ball_value(carrier, carrier.position)
    loose = 0.0 if board.final_turn else LOOSE_BALL_COST
    plans = []
    for square, path in board.paths(carrier):
        p = path.prob
        if square.x == board.endzone_x:
            plans.append(Plan(carrier, ActionType.START_MOVE, ((ActionType.MOVE, square),),
                              p * TD_VALUE - (1.0 - p) * loose - now, 1.0 - p, "score"))
            continue
        if board.final_turn:
            continue
        value = board.ball_value(carrier, square)
        if previous_target is not None and square == previous_target:
            value += TARGET_STICKINESS
        gain = p * value - now - (1.0 - p) * (DOWN_COST + loose)
        if gain > MIN_MOVE_GAIN:
            plans.append(Plan(carrier, ActionType.START_MOVE, ((ActionType.MOVE, square),), gain, 1.0 - p,
                              "advance the carrier", deferred=True))
    return plans


def _keep_value(board: Board, carrier: botbowl.Player, carrier_moves: Sequence[Plan]) -> float:
    """What the carrier is worth keeping the ball: its square, or the best it can move to."""
    now = board.ball_value(carrier, carrier.position)
    best_move = max((plan.gain for plan in carrier_moves if plan.label != "score"), default=0.0)
    return now + max(0.0, best_move)


def _handoff_plans(board: Board, carrier: botbowl.Player, keep: float) -> List[Plan]:
    """A hand-off to each teammate who can catch, from the square next to it the carrier reaches most
    safely; worth it when the receiver holds the ball better than the carrier would (`keep`)."""
    game = board.game
    ends = board.ends(carrier)
    here = carrier.position
    loose = 0.0 if board.final_turn else LOOSE_BALL_COST
    plans = []
    for mate in board.ours:
        if mate is carrier or not mate.can_catch():
            continue
        best = None  # (prob, square) of the safest square next to the mate
        for x, y in board.neighbours(mate.position):
            if (x, y) == (here.x, here.y):
                candidate = (1.0, None)
            else:
                path = ends.get((x, y))
                if path is None:
                    continue
                candidate = (path.prob, game.get_square(x, y))
            if best is None or candidate[0] > best[0]:
                best = candidate
        if best is None:
            continue
        p = best[0] * game.get_catch_prob(mate, handoff=True, allow_team_reroll=board.can_reroll)
        steps = ((ActionType.HANDOFF, mate.position),) if best[1] is None else \
            ((ActionType.MOVE, best[1]), (ActionType.HANDOFF, mate.position))
        gain = p * board.holder_value(mate, mate.position) - (1.0 - p) * loose - keep
        plans.append(Plan(carrier, ActionType.START_HANDOFF, steps, gain, 1.0 - p, "hand off"))
    return plans


def pass_prob(board: Board, passer: botbowl.Player, square: botbowl.Square, distance: PassDistance) -> float:
    """An accurate pass from `square` (botbowl's pass roll: 1 fumbles, 6 succeeds), with the Pass skill
    or a team re-roll."""
    modifiers = Rules.pass_modifiers[distance]
    if not passer.has_skill(Skill.NERVES_OF_STEEL):
        modifiers -= board.opp_tz_at[square.y][square.x]
    if board.game.state.weather == WeatherType.VERY_SUNNY:
        modifiers -= 1
    if passer.has_skill(Skill.ACCURATE):
        modifiers += 1
    if passer.has_skill(Skill.STRONG_ARM) and distance != PassDistance.QUICK_PASS:
        modifiers += 1
    if passer.has_skill(Skill.STUNTY):
        modifiers -= 1
    needed = max(2, min(6, Rules.agility_table[passer.get_ag()] - modifiers))
    p = (7 - needed) / 6.0
    if passer.has_skill(Skill.PASS) or board.can_reroll:
        p += (1.0 - p) * p
    return p


def _pass_plans(board: Board, carrier: botbowl.Player, keep: float) -> List[Plan]:
    """A pass to each teammate who can catch, thrown from the carrier's square or the safe, free
    square it can reach with the easiest throw."""
    game = board.game
    if game.state.weather == WeatherType.BLIZZARD:
        return []
    here = carrier.position
    loose = 0.0 if board.final_turn else LOOSE_BALL_COST
    spots = [(here, 1.0)] + [(sq, path.prob) for sq, path in board.paths(carrier)
                             if path.prob >= SAFE and board.opp_tz_at[sq.y][sq.x] == 0 and sq.x != board.endzone_x]
    plans = []
    for mate in board.ours:
        if mate is carrier or not mate.can_catch():
            continue
        target = mate.position
        best = None
        for square, prob in spots:
            distance = game.get_pass_distance(square, target)
            rank = PASS_RANKS.get(distance)
            if rank is None or square.distance(target) <= 1:
                continue
            key = (rank, board.opp_tz_at[square.y][square.x], square.distance(here))
            if best is None or key < best[0]:
                best = (key, square, distance, prob)
        if best is None:
            continue
        _, square, distance, prob = best
        p_intercept = max((game.get_catch_prob(o, interception=True)
                           for o in game.get_interceptors(square, target, board.opp)), default=0.0)
        p = prob * (1.0 - p_intercept) * pass_prob(board, carrier, square, distance) \
            * game.get_catch_prob(mate, accurate=True)
        steps = ((ActionType.PASS, target),) if square == here else \
            ((ActionType.MOVE, square), (ActionType.PASS, target))
        gain = p * board.holder_value(mate, target) - (1.0 - p) * loose - keep
        plans.append(Plan(carrier, ActionType.START_PASS, steps, gain, 1.0 - p, "pass"))
    return plans


def _block_plans(board: Board, player: botbowl.Player) -> List[Plan]:
    game = board.game
    plans = []
    for defender in game.get_adjacent_players(player.position, team=board.opp, down=False):
        dice = board.block_dice.at(player, defender, player.position)
        if not worth_blocking(game, player, defender, dice):
            continue
        gain, p_att = block_gain(board, player, defender, player.position, dice)
        plans.append(Plan(player, ActionType.START_BLOCK, ((ActionType.BLOCK, defender.position),), gain, p_att,
                          f"block at {dice} dice"))
    return plans


def _blitz_plans(board: Board, player: botbowl.Player, can_block: bool) -> List[Plan]:
    """A blitz on each standing opponent within reach, from the square botbowl's paths reach most
    safely (the best dice among the three safest), with the go-for-it the block may cost. Not from
    where the player stands when a plain block does the same."""
    game = board.game
    if not player.state.up:
        return []
    moves_left = player.num_moves_left()
    reach = player.num_moves_left(include_gfi=True)
    ends = board.ends(player)
    gfi_prob = GFI_PROB + (1 - GFI_PROB) * GFI_PROB if board.can_reroll or player.has_skill(Skill.SURE_FEET) \
        else GFI_PROB
    plans = []
    for defender in board.theirs:
        d = defender.position
        if not defender.state.up or player.position.distance(d) > reach + 1:
            continue
        spots = []
        for key in board.neighbours(d):
            if key == (player.position.x, player.position.y):
                if not can_block:
                    spots.append((1.0, player.position, None))
            elif key in ends:
                path = ends[key]
                spots.append((path.prob, game.get_square(*key), path))
        best = None
        for prob, square, path in sorted(spots, key=lambda s: -s[0])[:3]:
            length = 0 if path is None else len(path.steps)  # builds the path's squares: only for these few
            if length + 1 > reach:
                continue
            p_move = prob * (gfi_prob if length + 1 > moves_left else 1.0)
            dice = board.block_dice.at(player, defender, square, blitz=True)
            if not worth_blocking(game, player, defender, dice):
                continue
            gain, p_att = block_gain(board, player, defender, square, dice)
            candidate = (p_move * gain, (1.0 - p_move) + p_move * p_att, square, dice)
            if best is None or candidate[0] - candidate[1] * TURNOVER_BASE > best[0] - best[1] * TURNOVER_BASE:
                best = candidate
        if best is None:
            continue
        gain, p_turnover, square, dice = best
        steps = ((ActionType.BLOCK, d),) if square == player.position else \
            ((ActionType.MOVE, square), (ActionType.BLOCK, d))
        plans.append(Plan(player, ActionType.START_BLITZ, steps, gain, p_turnover, f"blitz at {dice} dice"))
    return plans


def _armour_break_prob(target: int) -> float:
    """P(2d6 >= target)."""
    return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= target) / 36.0


def _foul_plans(board: Board, player: botbowl.Player) -> List[Plan]:
    """Fouls on prone opponents next to a square the player reaches without dice."""
    game = board.game
    if not player.state.up:
        return []
    ends = board.ends(player)
    plans = []
    for victim in board.theirs:
        if victim.state.up:
            continue
        best = None
        for key in board.neighbours(victim.position):
            if key == (player.position.x, player.position.y):
                square = player.position
            elif key in ends and ends[key].prob >= SAFE:
                square = game.get_square(*key)
            else:
                continue
            assists_for, assists_against = game.num_assists_at(player, victim, square, foul=True)
            net = assists_for - assists_against
            if best is None or net > best[0]:
                best = (net, square)
        if best is None:
            continue
        net, square = best
        p_break = _armour_break_prob(victim.get_av() + 1 - net)
        p_eject = 1 / 6  # doubles on the armour roll
        gain = p_break * FOUL_VALUE - p_eject * EJECTION_COST
        steps = ((ActionType.FOUL, victim.position),) if square == player.position else \
            ((ActionType.MOVE, square), (ActionType.FOUL, victim.position))
        plans.append(Plan(player, ActionType.START_FOUL, steps, gain, p_eject, "foul"))
    return plans


# ------------------------------------------------------------------------------------------ choosing
def _allowed_starts(game: botbowl.Game) -> Dict[str, Set[ActionType]]:
    allowed: Dict[str, Set[ActionType]] = {}
    for choice in game.state.available_actions:
        if choice.action_type in START_TYPES:
            for player in choice.players:
                allowed.setdefault(player.player_id, set()).add(choice.action_type)
    return allowed


def turnover_cost(opportunity: Dict[str, float], player: botbowl.Player, board: Board) -> float:
    """A turnover's cost for `player`'s action: the base, plus what the others would still gain safely."""
    if board.final_turn:
        return 0.0
    return TURNOVER_BASE + sum(v for pid, v in opportunity.items() if pid != player.player_id)


def opportunities(plans: Sequence[Plan]) -> Dict[str, float]:
    """Each player's best plan priced at the base turnover cost alone (capped): what a turnover would
    cost the team of that player's action."""
    opportunity: Dict[str, float] = {}
    for plan in plans:
        value = plan.gain - plan.p_turnover * TURNOVER_BASE
        if value > 0:
            pid = plan.player.player_id
            opportunity[pid] = max(opportunity.get(pid, 0.0), min(value, OPPORTUNITY_CAP))
    return opportunity


def price(plans: List[Plan], board: Board, opportunity: Optional[Dict[str, float]] = None) -> None:
    """Score every plan: its expected gain less its turnover chance times the turnover's cost, where
    the cost counts each other player's best plan (priced at the base cost alone); `opportunity`
    gives those best plans when `plans` are not the whole turn's (a player within its action)."""
    if opportunity is None:
        opportunity = opportunities(plans)
    costs: Dict[str, float] = {}
    for plan in plans:
        pid = plan.player.player_id
        if pid not in costs:
            costs[pid] = turnover_cost(opportunity, plan.player, board)
        plan.score = plan.gain - plan.p_turnover * costs[pid]


def best_plan(plans: Sequence[Plan]) -> Optional[Plan]:
    """The best plan worth playing. The carrier's own moves wait while a teammate still has something
    safe to do (the cage forms first); risky actions compete with them on their scores."""
    worth = [p for p in plans if p.score >= MIN_SCORE]
    if not worth:
        return None
    best = max(worth, key=lambda p: p.score)
    if best.deferred:
        safe = [p for p in worth if not p.deferred and p.p_turnover <= 1.0 - SAFE]
        if safe:
            return max(safe, key=lambda p: p.score)
    return best


def carrier_target(board: Board, moves: Sequence[Plan]) -> Optional[botbowl.Square]:
    """The square the carrier is heading for this turn (its best deferred move), where the cage forms."""
    best = max((p for p in moves if p.deferred), key=lambda p: p.gain - p.p_turnover * TURNOVER_BASE, default=None)
    if best is None or best.gain - best.p_turnover * TURNOVER_BASE < MIN_SCORE:
        return None
    return best.steps[-1][1]


def plan_turn(board: Board, previous_target: Optional[botbowl.Square] = None) \
        -> Tuple[Optional[Plan], Optional[botbowl.Square]]:
    """The best player action for the acting team, and the square its carrier is heading for."""
    plans, target = candidate_plans(board, previous_target)
    return best_plan(plans), target


def candidate_plans(board: Board, previous_target: Optional[botbowl.Square] = None) \
        -> Tuple[List[Plan], Optional[botbowl.Square]]:
    """Every priced player action the acting team could start, and the square its carrier is heading for."""
    allowed = _allowed_starts(board.game)
    players = [p for p in board.ours if p.player_id in allowed]
    plans: List[Plan] = []
    target = None
    carrier = board.our_carrier
    carrier_moves: List[Plan] = []
    if carrier is not None and carrier.player_id in allowed and carrier.state.up:
        if ActionType.START_MOVE in allowed[carrier.player_id]:
            carrier_moves = _carrier_moves(board, carrier, previous_target)
            target = carrier_target(board, carrier_moves)
        plans += carrier_moves
    ball_plans: List[Plan] = []
    if carrier is not None and carrier.player_id in allowed and carrier.state.up:
        keep = _keep_value(board, carrier, carrier_moves)
        starts = allowed[carrier.player_id]
        if ActionType.START_HANDOFF in starts:
            ball_plans += _handoff_plans(board, carrier, keep)
        if ActionType.START_PASS in starts:
            ball_plans += _pass_plans(board, carrier, keep)
    plans += ball_plans
    # A receiver worth giving the ball to waits for it: after its own action it could not run on.
    waiting = {p.steps[-1][1] for p in ball_plans if p.gain - p.p_turnover * TURNOVER_BASE >= MIN_SCORE}
    pmap = position_map(board, target)
    for player in players:
        if player is carrier or player.position in waiting:
            continue
        starts = allowed[player.player_id]
        if ActionType.START_MOVE in starts:
            plans += _move_plans(board, player, pmap)
        if ActionType.START_BLOCK in starts and player.state.up:
            plans += _block_plans(board, player)
        if ActionType.START_BLITZ in starts:
            plans += _blitz_plans(board, player, ActionType.START_BLOCK in starts and player.state.up)
        if ActionType.START_FOUL in starts:
            plans += _foul_plans(board, player)
    price(plans, board)
    return plans, target


def continue_plans(board: Board, player: botbowl.Player, action_type: Optional[botbowl.PlayerActionType]) -> List[Plan]:
    """What the active player can still do within its action (a carrier after a pick-up, mostly)."""
    if player is not board.our_carrier or not player.state.up:
        return []
    plans = _carrier_moves(board, player, None)
    for plan in plans:
        plan.deferred = False
    keep = _keep_value(board, player, plans)
    if action_type == botbowl.PlayerActionType.HANDOFF:
        plans += _handoff_plans(board, player, keep)
    elif action_type == botbowl.PlayerActionType.PASS:
        plans += _pass_plans(board, player, keep)
    price(plans, board)
    return plans


# ------------------------------------------------------------------------------------------ other decisions
def _choices(game: botbowl.Game) -> Dict[ActionType, botbowl.ActionChoice]:
    choices: Dict[ActionType, botbowl.ActionChoice] = {}
    for choice in game.state.available_actions:
        choices.setdefault(choice.action_type, choice)
    return choices


def die_value(game: botbowl.Game, block: Block, die: BBDieResult) -> float:
    """A block die's worth to the attacker: its own fall is a turnover and, with the ball, worse."""
    attacker, defender = block.attacker, block.defender
    carrier = game.get_ball_carrier()
    falls, knocks = _face_outcome(die, attacker.has_skill(Skill.BLOCK), defender.has_skill(Skill.BLOCK),
                                  not defender.has_skill(Skill.DODGE) or attacker.has_skill(Skill.TACKLE), False)
    value = 4.0 * knocks - 6.0 * falls
    if die == BBDieResult.PUSH or (die == BBDieResult.DEFENDER_STUMBLES and not knocks):
        value += 1.0
    if knocks and defender is carrier:
        value += 3.0
    if falls and attacker is carrier:
        value -= 3.0
    return value


def _select_die(game: botbowl.Game, block: Block, team: botbowl.Team) -> Optional[Action]:
    options = [t for t in _choices(game) if t in SELECT_DIE]
    if not options:
        return None
    sign = 1.0 if block.attacker.team == team else -1.0
    return Action(max(options, key=lambda t: (sign * die_value(game, block, SELECT_DIE[t]), -t.value)))


def _reroll(game: botbowl.Game, proc: Reroll, team: botbowl.Team) -> Action:
    choices = _choices(game)
    if ActionType.USE_SKILL in choices:  # Pro
        return Action(ActionType.USE_SKILL)
    if isinstance(proc.context, Block) and proc.context.roll is not None:
        block = proc.context
        values = [die_value(game, block, d.get_value()) for d in block.roll.dice]
        outcome = (max if block.favor == block.attacker.team else min)(values) if values else 0.0
        important = block.defender is game.get_ball_carrier()
        if outcome < 0 or (important and outcome < 4.0):
            return Action(ActionType.USE_REROLL)
        return Action(ActionType.DONT_USE_REROLL)
    return Action(ActionType.USE_REROLL)  # a failed dodge, go-for-it, pick-up, pass or catch is a turnover


def _push(game: botbowl.Game, proc: Push, team: botbowl.Team, own_frame: bool = False) -> Action:
    """The push square; a tie, in the team's own frame, toward the endzone it attacks (`Board`)."""
    squares = _choices(game)[ActionType.PUSH].positions
    pushed = proc.player
    carrier = game.get_ball_carrier()
    own_endzone_x = game.get_opp_endzone_x(game.get_opp_team(team))

    def value(square: botbowl.Square) -> float:
        if pushed.team == team:  # our player (side step): somewhere quiet, on the pitch
            if square.out_of_bounds:
                return -10.0
            return -len(game.get_adjacent_players(square, team=game.get_opp_team(team), down=False))
        if square.out_of_bounds:
            return 10.0  # into the crowd: an injury roll, and the ball out if it carried it
        v = 0.3 * len(game.get_adjacent_players(square, team=team, down=False))
        if carrier is not None and carrier.team == team and square.distance(carrier.position) <= 1:
            v -= 2.0  # not next to our carrier
        if pushed is carrier:
            v += 0.2 * abs(square.x - own_endzone_x)  # their carrier away from our endzone
        return v

    endzone_x = game.get_opp_endzone_x(team)

    def key(s: botbowl.Square) -> tuple:
        tie = -abs(s.x - endzone_x) if own_frame else -s.x
        return value(s), tie, -s.y
    return Action(ActionType.PUSH, position=max(squares, key=key))


def _follow_up(game: botbowl.Game, proc: FollowUp, team: botbowl.Team) -> Action:
    attacker = proc.attacker
    stay, follow = attacker.position, proc.pos_to
    carrier = game.get_ball_carrier()
    holds_cage = carrier is not None and carrier.team == team and carrier is not attacker \
        and attacker.position.distance(carrier.position) == 1
    if attacker is carrier or holds_cage:
        return Action(ActionType.FOLLOW_UP, position=stay)
    better = game.num_tackle_zones_at(attacker, follow) <= game.num_tackle_zones_in(attacker)
    return Action(ActionType.FOLLOW_UP, position=follow if better else stay)


def _setup(game: botbowl.Game, proc: Setup, team: botbowl.Team) -> Action:
    """A formation, then END_SETUP; if the formation left the set-up illegal (injuries), repair it
    one player at a time."""
    choices = _choices(game)
    on_pitch = game.get_players_on_pitch(team)
    reserves = game.get_reserves(team)
    if proc.reorganize or game.is_setup_legal(team) and (on_pitch or not reserves):
        return Action(ActionType.END_SETUP)
    if not on_pitch:
        receiving = game.get_receiving_team() == team
        for formation in (FORMATIONS_RECEIVE if receiving else FORMATIONS_KICK):
            if formation in choices:
                return Action(formation)
        for formation in choices:
            if formation.name.startswith("SETUP_FORMATION_"):
                return Action(formation)
    repair = _repair_setup(game, team)
    return repair if repair is not None else Action(ActionType.END_SETUP)


def _repair_setup(game: botbowl.Game, team: botbowl.Team) -> Optional[Action]:
    config = game.config
    on_pitch = game.get_players_on_pitch(team)
    reserves = game.get_reserves(team)
    side = game.get_team_side(team)
    free = [sq for sq in side if game.get_player_at(sq) is None]
    middle = game.arena.height / 2
    scrimmage = sorted((sq for sq in free if game.is_scrimmage(sq)), key=lambda sq: (abs(sq.y - middle), sq.y))
    wings = [p for p in on_pitch if game.is_wing(p.position, True) or game.is_wing(p.position, False)]
    if len(on_pitch) > config.pitch_max:
        return Action(ActionType.PLACE_PLAYER, player=on_pitch[-1], position=None)
    for right in (True, False):
        wing = [p for p in on_pitch if game.is_wing(p.position, right)]
        if len(wing) > config.wing_max:
            inside = [sq for sq in free if not game.is_wing(sq, True) and not game.is_wing(sq, False)]
            if inside:
                return Action(ActionType.PLACE_PLAYER, player=wing[0], position=inside[0])
            return Action(ActionType.PLACE_PLAYER, player=wing[0], position=None)
    on_line = [p for p in on_pitch if game.is_scrimmage(p.position)]
    if len(on_line) < config.scrimmage_min and scrimmage:
        movers = reserves or [p for p in on_pitch if not game.is_scrimmage(p.position) and p not in wings] \
            or [p for p in on_pitch if not game.is_scrimmage(p.position)]
        if movers:
            return Action(ActionType.PLACE_PLAYER, player=movers[0], position=scrimmage[0])
    if len(on_pitch) < config.pitch_min and reserves and free:
        inside = [sq for sq in free if not game.is_wing(sq, True) and not game.is_wing(sq, False)] or free
        return Action(ActionType.PLACE_PLAYER, player=reserves[0], position=inside[0])
    return None


def _place_ball(game: botbowl.Game, team: botbowl.Team, own_frame: bool = False) -> Action:
    """Deep in their half, in the middle: far from where they must take the ball; a tie, in the
    team's own frame, the deeper square (`Board`)."""
    positions = _choices(game)[ActionType.PLACE_BALL].positions
    their_endzone = game.get_opp_endzone_x(team)
    depth = max(1, round((game.arena.width - 2) * KICK_DEPTH_FRACTION))
    middle = game.arena.height // 2

    def key(s: botbowl.Square) -> tuple:
        tie = abs(s.x - their_endzone) if own_frame else s.x
        return abs(abs(s.x - their_endzone) - depth) + abs(s.y - middle), tie, s.y
    return Action(ActionType.PLACE_BALL, position=min(positions, key=key))


def _ball_handler_key(game: botbowl.Game, player: botbowl.Player) -> tuple:
    """Who should hold a ball: sure hands and catching first, then agility, then distance from opponents."""
    opponents = [p.position for p in game.get_opp_team(player.team).players if p.position is not None]
    room = min((player.position.distance(o) for o in opponents), default=99)
    return (player.has_skill(Skill.SURE_HANDS) or player.has_skill(Skill.CATCH), player.get_ag(), room, -player.nr)


def _select_player(game: botbowl.Game, proc, team: botbowl.Team) -> Action:
    players = _choices(game)[ActionType.SELECT_PLAYER].players
    if isinstance(proc, Interception):
        return Action(ActionType.SELECT_PLAYER, player=max(
            players, key=lambda p: (game.get_catch_prob(p, interception=True), -p.nr)))
    return Action(ActionType.SELECT_PLAYER, player=max(players, key=lambda p: _ball_handler_key(game, p)))


def _apothecary(game: botbowl.Game, proc: Apothecary) -> Action:
    choices = _choices(game)
    if ActionType.USE_APOTHECARY in choices:
        return Action(ActionType.USE_APOTHECARY)
    first, second = proc.effect_first, proc.effect_second
    if first is not None and second is not None and second.value < first.value:
        return Action(ActionType.SELECT_SECOND_ROLL)
    return Action(ActionType.SELECT_FIRST_ROLL)


def _block_skill_choice(game: botbowl.Game, proc: Block, team: botbowl.Team) -> Optional[Action]:
    """Juggernaut and wrestle (use them when they keep our player up), dump-off (no)."""
    choices = _choices(game)
    if ActionType.USE_SKILL not in choices:
        return None
    if proc.waiting_dump_off:
        return Action(ActionType.DONT_USE_SKILL)
    if proc.waiting_wrestle_defender and proc.defender.team == team:
        # Declining leaves a plain both-down: better for us unless only our player would fall.
        use = proc.attacker.has_skill(Skill.BLOCK)
        return Action(ActionType.USE_SKILL if use else ActionType.DONT_USE_SKILL)
    return Action(ActionType.USE_SKILL)


class GrodBot(botbowl.Agent):
    """The GrodBot-style bot as a botbowl agent: deterministic given `seed`, never raises. `exposure`:
    its carrier's squares priced by what the opponents' blitz could reach; `own_frame`: ties settled
    in its own frame (both `Board`'s); the sparring partner `grod` plays without either."""

    def __init__(self, name: str = "grod", seed: Optional[int] = None, exposure: bool = False,
                 own_frame: bool = False):
        super().__init__(name)
        self._seed, self._rng = seed, None
        self.exposure = exposure
        self.own_frame = own_frame
        self.team: Optional[botbowl.Team] = None
        self._plan: Optional[Plan] = None
        self._step = 0
        self._target: Optional[Tuple[tuple, str, botbowl.Square]] = None  # (turn, carrier id, square)

    @property
    def rng(self) -> np.random.RandomState:
        # Made on first use: only the coin toss draws from it, and a search makes a bot for most of
        # its `grod_action` calls (a `RandomState` costs ~2.5% of an 11-player search).
        if self._rng is None:
            self._rng = np.random.RandomState(self._seed)
        return self._rng

    def new_game(self, game: botbowl.Game, team: botbowl.Team) -> None:
        self.team = team
        self._plan, self._step, self._target = None, 0, None

    def end_game(self, game: botbowl.Game) -> None:
        pass

    def act(self, game: botbowl.Game) -> Action:
        try:
            action = self.decide(game)
            if is_available(game, action):
                return action
            raise ValueError(f"planned an action botbowl does not allow: {action.action_type.name}")
        except Exception as exc:  # noqa: BLE001 - a bot that raises loses its game
            log_failure_once(exc, "the grod bot fell back to a safe action after an error")
        self._plan = None
        return safe_action(game)

    # -- decisions
    def decide(self, game: botbowl.Game) -> Action:
        """This bot's action for the current decision (may raise; `act` guards it)."""
        proc = game.get_procedure()
        team = game.active_team if game.active_team is not None else self.team
        choices = _choices(game)
        if isinstance(proc, CoinTossFlip):
            return Action(ActionType.HEADS if self.rng.rand() < 0.5 else ActionType.TAILS)
        if isinstance(proc, CoinTossKickReceive):
            return Action(ActionType.RECEIVE)
        if isinstance(proc, Setup):
            return _setup(game, proc, team)
        if isinstance(proc, PlaceBall):
            return _place_ball(game, team, self.own_frame)
        if isinstance(proc, (HighKick, Touchback, Interception)) and ActionType.SELECT_PLAYER in choices:
            return _select_player(game, proc, team)
        if isinstance(proc, Reroll):
            return _reroll(game, proc, team)
        if isinstance(proc, Block):
            action = _select_die(game, proc, team) or _block_skill_choice(game, proc, team)
            if action is not None:
                return action
        if isinstance(proc, Push) and ActionType.PUSH in choices:
            return _push(game, proc, team, self.own_frame)
        if isinstance(proc, FollowUp) and ActionType.FOLLOW_UP in choices:
            return _follow_up(game, proc, team)
        if isinstance(proc, Apothecary):
            return _apothecary(game, proc)
        if isinstance(proc, Ejection) and ActionType.USE_BRIBE in choices:
            return Action(ActionType.USE_BRIBE)
        if isinstance(proc, Turn):
            return self._turn(game, proc, team)
        player = game.state.active_player
        if player is not None and player.team == team and game.state.player_action_type is not None \
                and ActionType.END_PLAYER_TURN in choices:
            # A player knocked out or sent off in its own action has nothing left to plan.
            return self._continue(game, player) if player.position is not None else Action(ActionType.END_PLAYER_TURN)
        if ActionType.USE_SKILL in choices:
            return Action(ActionType.USE_SKILL)
        return safe_action(game)

    def _turn(self, game: botbowl.Game, proc: Turn, team: botbowl.Team) -> Action:
        self._plan = None
        if proc.quick_snap or not (_choices(game).keys() & set(START_TYPES)):
            return Action(ActionType.END_TURN)
        board = Board(game, team, self.exposure, self.own_frame)
        turn_key = (game.state.half, team.state.turn)
        previous = None
        if self._target is not None and self._target[0] == turn_key and board.our_carrier is not None \
                and self._target[1] == board.our_carrier.player_id:
            previous = self._target[2]
        plan, target = plan_turn(board, previous)
        if board.our_carrier is not None and target is not None:
            self._target = (turn_key, board.our_carrier.player_id, target)
        if plan is None:
            return Action(ActionType.END_TURN)
        self._plan, self._step = plan, 0
        return Action(plan.start, player=plan.player)

    def _continue(self, game: botbowl.Game, player: botbowl.Player) -> Action:
        """The next step of the active player's plan; when it is played out, what the player can still
        do (a carrier after its pick-up), else the end of its action."""
        plan = self._plan
        if plan is not None and plan.player == player and self._step < len(plan.steps):
            action_type, square = plan.steps[self._step]
            self._step += 1
            action = Action(action_type, position=square)
            if is_available(game, action):
                return action
        board = Board(game, player.team, self.exposure, self.own_frame)
        follow = best_plan([p for p in continue_plans(board, player, game.state.player_action_type)
                            if is_available(game, Action(p.steps[0][0], position=p.steps[0][1]))])
        if follow is not None:
            self._plan, self._step = follow, 1
            return Action(follow.steps[0][0], position=follow.steps[0][1])
        return Action(ActionType.END_PLAYER_TURN)


# ------------------------------------------------------------------------------------------ as a policy
# The square each turn's carrier is heading for, as GrodBot keeps it for the turn: the cage forms on
# it before the carrier moves, so a target that moved with every replan would leave the cage behind.
# Keyed by the game object and the turn (mended: by the game's id, so each decision's new copy finds it).
_turn_targets: Dict[tuple, botbowl.Square] = {}
MAX_TURN_TARGETS = 10_000


@dataclass
class ActionStart:
    """What `grod_action(mended=True)` remembers from a player action's start for the steps within it,
    as `GrodBot` keeps its plan: every player's best plan (a turnover's cost) and the carrier's target."""

    opportunity: Dict[str, float]
    target: Optional[botbowl.Square]


# Keyed by the game's id (not the object: the search plans each decision on a new copy), the turn
# and the players already used: every copy and every line of play at that action start shares it.
_action_starts: Dict[tuple, ActionStart] = {}


def _turn_key(game: botbowl.Game, board: Board, mended: bool = False) -> Optional[tuple]:
    carrier = board.our_carrier
    if carrier is None:
        return None
    return game.game_id if mended else id(game), game.state.half, board.team.team_id, board.team.state.turn, \
        carrier.player_id, board.exposure, board.own_frame


def _action_start_key(board: Board) -> tuple:
    game, team = board.game, board.team
    used = frozenset(p.player_id for p in team.players if p.state.used)
    return game.game_id, game.state.half, team.team_id, team.state.turn, used, board.exposure, board.own_frame


def _remember(table: dict, key: tuple, value) -> None:
    if len(table) >= MAX_TURN_TARGETS:
        table.clear()
    table[key] = value


def _plans_within(board: Board, player: botbowl.Player, action_type, mended: bool = False) -> List[Plan]:
    """The plans `player` can still carry out within the action it has started, priced. Mended (as
    `GrodBot` plays): a blitzer that has thrown its block is done, and a move is priced and aimed with
    what the action's start saw (the teammates' plans, the carrier's target)."""
    if player is board.our_carrier:
        return continue_plans(board, player, action_type)
    kind = botbowl.PlayerActionType
    opportunity = None
    if action_type == kind.BLOCK:
        plans = _block_plans(board, player)
    elif action_type == kind.BLITZ:
        plans = [] if mended and player.state.has_blocked else _blitz_plans(board, player, can_block=False)
    elif action_type == kind.FOUL:
        plans = _foul_plans(board, player)
    elif mended:  # a move, or a pass or hand-off action of a player who has yet to pick the ball up
        start = _action_starts.get(_action_start_key(board))
        opportunity = None if start is None else start.opportunity
        plans = _move_plans(board, player, position_map(board, None if start is None else start.target))
    else:
        key = _turn_key(board.game, board)
        plans = _move_plans(board, player, position_map(board, None if key is None else _turn_targets.get(key)))
    price(plans, board, opportunity)
    return plans


@dataclass
class TurnStart:
    """A turn's decision between player actions as `grod_action` prices it: the plan it starts, and
    each player's best plan of each kind, as (score, turnover chance) by (player id, START_* type)."""

    best: Optional[Plan]
    prices: Dict[Tuple[str, ActionType], Tuple[float, float]]


# Each turn start priced, per game object (a plan names that game's players) and state: the learned
# policy's features read the prices behind the choice at the same node, which the choice's own memo
# (`RememberedChoice`) would otherwise make them price again.
_turn_start_memos: "weakref.WeakKeyDictionary[botbowl.Game, Dict[tuple, TurnStart]]" = weakref.WeakKeyDictionary()
MAX_TURN_START_MEMO = 4_000  # states per game object; a search's copy lives for one decision


def turn_start(game: botbowl.Game, team: botbowl.Team, mended: bool = False, exposure: bool = False,
               own_frame: bool = False) -> TurnStart:
    """`team`'s plans at a turn's decision between player actions, the carrier's target kept for the
    turn (and, mended, what the action's start saw kept for the steps within it); remembered per state."""
    memo = game_memo(_turn_start_memos, game)
    key = (game_state_hash(game), team.team_id, mended, exposure, own_frame)
    known = memo.get(key)
    if known is not None:
        return known
    board = Board(game, team, exposure, own_frame)
    turn_key = _turn_key(game, board, mended)
    plans, target = candidate_plans(board, None if turn_key is None else _turn_targets.get(turn_key))
    if turn_key is not None and target is not None:
        _remember(_turn_targets, turn_key, target)
    if mended:
        _remember(_action_starts, _action_start_key(board), ActionStart(opportunities(plans), target))
    prices: Dict[Tuple[str, ActionType], Tuple[float, float]] = {}
    for plan in plans:
        kind = (plan.player.player_id, plan.start)
        if kind not in prices or plan.score > prices[kind][0]:
            prices[kind] = (plan.score, plan.p_turnover)
    if len(memo) >= MAX_TURN_START_MEMO:
        memo.clear()
    memo[key] = known = TurnStart(best_plan(plans), prices)
    return known


def _turn_start(game: botbowl.Game, team: botbowl.Team, mended: bool = False, exposure: bool = False,
                own_frame: bool = False) -> Action:
    """The start of the best player action (`turn_start`)."""
    if game.get_procedure().quick_snap or not (_choices(game).keys() & set(START_TYPES)):
        return Action(ActionType.END_TURN)
    plan = turn_start(game, team, mended, exposure, own_frame).best
    return Action(ActionType.END_TURN) if plan is None else Action(plan.start, player=plan.player)


CONTACT = (ActionType.BLOCK, ActionType.HANDOFF, ActionType.FOUL)  # what botbowl offers at the end of a path


def _first_step(game: botbowl.Game, plan: Plan) -> Action:
    """The plan's first step; but for a move to make contact (a blitz's block, a hand-off, a foul) the
    contact itself when botbowl offers it at the end of a path. A search's `end_moves` ends a player's
    action after its MOVE, so a blitz played as a move, then a block, would never block."""
    if len(plan.steps) > 1 and plan.steps[0][0] == ActionType.MOVE and plan.steps[-1][0] in CONTACT:
        contact = Action(plan.steps[-1][0], position=plan.steps[-1][1])
        if is_available(game, contact):
            return contact
    return Action(plan.steps[0][0], position=plan.steps[0][1])


def grod_action(game: botbowl.Game, rng: Optional[np.random.RandomState] = None, mended: bool = False,
                exposure: bool = False, own_frame: bool = False) -> Action:
    """This bot's choice for whoever acts in `game`, as a search's playouts and priors need it: at
    the start of a player action the best plan's start; within it, the first step of the best plan
    that player can still carry out. It remembers each turn's carrier target (see `_turn_targets`),
    not the plan under way; `mended` (`grod_mended_action`) also remembers what each action's start
    saw, for the steps within it, by the game's id so that every search copy shares it
    (docs/bot-bowl-board.md: where `grod_action` played otherwise than `GrodBot`). `exposure`: the
    carrier's squares priced by what the opponents' blitz could reach; `own_frame`: ties settled in the
    acting team's own frame (both `Board`'s). Never raises."""
    try:
        player, action_type = game.state.active_player, game.state.player_action_type
        team = game.active_team
        proc = game.get_procedure()
        if isinstance(proc, Turn) and team is not None:
            return _turn_start(game, team, mended, exposure, own_frame)
        if player is not None and player.position is not None and team is not None and player.team == team \
                and action_type is not None:
            plans = [plan for plan in _plans_within(Board(game, team, exposure, own_frame), player, action_type, mended)
                     if is_available(game, Action(plan.steps[0][0], position=plan.steps[0][1]))]
            best = best_plan(plans)
            if best is not None:
                return _first_step(game, best)
            if ActionType.END_PLAYER_TURN in _choices(game):
                return Action(ActionType.END_PLAYER_TURN)
        bot = GrodBot(seed=0 if rng is None else int(rng.randint(2 ** 31)), exposure=exposure, own_frame=own_frame)
        bot.team = team
        action = bot.decide(game)
        if is_available(game, action):
            return action
    except Exception as exc:  # noqa: BLE001 - a policy inside a search must not end it
        log_failure_once(exc, "the grod policy fell back to a safe action after an error")
    return safe_action(game)


def grod_mended_action(game: botbowl.Game, rng: Optional[np.random.RandomState] = None,
                       exposure: bool = False, own_frame: bool = False) -> Action:
    """`grod_action` mended to play as `GrodBot` within a player action (see `grod_action`)."""
    return grod_action(game, rng, mended=True, exposure=exposure, own_frame=own_frame)
