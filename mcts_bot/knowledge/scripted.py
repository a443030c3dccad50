"""A scripted Blood Bowl policy: the sparring partner, and the knowledge the search plays out with.

Written from the ideas of botbowl's scripted-bot tutorials (`bots*.md`): a prioritised list of player
actions, re-planned before every player acts, so that a risky action taken by one player can open
safe ones for the others. The order is a coach's: score when it is safe, hand the ball off or pass
it to a teammate who then scores, blocks by their dice (the safest first), blitz the ball carrier,
pick up a loose ball, then move the carrier, then cage it (or mark and screen the opposing carrier),
and risky blocks last.

The policy is stateless: `scripted_action(game, rng)` reads everything from the game, so that it can
continue from any state (the search's playouts start in the middle of a player's action). A player
chosen at the turn level gets the same target when its action continues, because the rules are
evaluated for that one player in the same order. `ScriptedBot` is the botbowl agent around it,
registered as "scripted".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, Iterable, Optional, Sequence

import botbowl
import botbowl.core.pathfinding as pf
import numpy as np
from botbowl.core import Action, ActionType, Skill
from botbowl.core.procedure import (
    Apothecary,
    Block,
    CoinTossFlip,
    CoinTossKickReceive,
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
from botbowl.core.table import BBDieResult

from mcts_bot.adapter.actions import SELECT_DIE, is_available, safe_action
from mcts_bot.knowledge.block_dice import BlockDice
from mcts_bot.knowledge.passing import pass_success
from mcts_bot.knowledge.tackle_zones import TackleZones
from mcts_bot.logs import log_failure_once

SCORE_PROB = 0.7  # move the carrier into the endzone when the safest path is at least this likely
HANDOFF_SCORE_PROB = 0.6  # hand off to a teammate who then scores with at least this probability
PASS_SCORE_PROB = 0.5  # pass to a teammate who then scores with at least this probability
PICKUP_PROB = 0.33
SAFE_BLOCK_SELF_DOWN = 0.12  # a two-dice block without the Block skill (1/9) still counts as safe
CARRIER_BLITZ_PROB = 0.15  # blitz the opposing carrier if it falls (and drops the ball) this often
BLITZ_SCORE = 1.25  # the tutorial's threshold for other blitzes: p(up) + p(knock down) + p(fumble)
MIN_GAIN = 0.1  # a positional move must improve the player's square value by this much
SIDELINE = {0: 1.0, 1: 0.5}  # the carrier's cost of a square on the touchline, and one square in
# Against a passing team (square_value on defence): their free receivers marked, one player deep.
MARK_RECEIVER = 0.6  # beside an opponent who could take a pass and whom none of ours marks yet
SAFETY = 0.5  # SAFETY_DEPTH or more squares behind their carrier, near its line, when none of ours is there
SAFETY_DEPTH = 6
# On offence, a catcher free ahead of the carrier is a target for a pass (`_rule_pass`) next turn.
RECEIVER = 0.5  # free, 3 to 8 squares ahead of the carrier
RECEIVER_IN_RANGE = 0.4  # and near enough to the endzone to run in after the catch

START_TYPES = {ActionType.START_MOVE, ActionType.START_BLOCK, ActionType.START_BLITZ, ActionType.START_HANDOFF,
               ActionType.START_PASS, ActionType.START_FOUL}


@dataclass
class Plan:
    """One player action: `start` (a START_* type) for `player`, then `target` (a square) if any."""

    player: botbowl.Player
    start: ActionType
    target: Optional[botbowl.Square]
    score: float
    rule: str


class Board:
    """What the rules read from one state, computed once per decision (paths only when asked for)."""

    def __init__(self, game: botbowl.Game, team: botbowl.Team, allowed: Iterable[ActionType]):
        self.game = game
        self.team = team
        self.allowed = frozenset(allowed)  # the START_* types the rules may plan
        self.opp = game.get_opp_team(team)
        ball = game.get_ball()
        self.ball = ball.position if ball is not None and ball.position is not None and not ball.is_carried \
            and ball.on_ground else None
        self.carrier = game.get_ball_carrier()
        self.our_carrier = self.carrier if self.carrier is not None and self.carrier.team == team else None
        self.their_carrier = self.carrier if self.carrier is not None and self.carrier.team != team else None
        self.endzone_x = game.get_opp_endzone_x(team)
        self.own_endzone_x = game.get_opp_endzone_x(self.opp)
        self.opponents = [p for p in self.opp.players if p.position is not None and p.state.up]
        self.tackle_zones = TackleZones(game, team)  # the opponents' zones, for any of `team`'s players
        self.block_dice = BlockDice(game)
        self._paths: Dict[str, list] = {}
        self._receivers: Optional[list] = None
        self._deep: Optional[frozenset] = None

    def paths(self, player: botbowl.Player) -> list:
        """(end square, path) for each of the player's paths. Each call of a path's
        `get_last_step()` makes a new Square, and the rules read the ends many times."""
        paths = self._paths.get(player.player_id)
        if paths is None:
            paths = self._paths[player.player_id] = [(path.get_last_step(), path)
                                                     for path in pf.get_all_paths(self.game, player)]
        return paths

    def to_endzone(self, square) -> int:
        return abs(self.endzone_x - square.x)

    def to_own_endzone(self, square) -> int:
        return abs(self.own_endzone_x - square.x)

    def free_receivers(self) -> list:
        """(square, ids of our players marking it) of each standing opponent who could take a pass
        from their carrier: not the carrier, not behind it."""
        if self._receivers is None:
            carrier = self.their_carrier
            ours = [p for p in self.team.players if p.position is not None and p.state.up]
            self._receivers = [] if carrier is None else [
                (o.position, {p.player_id for p in ours if p.position.distance(o.position) == 1})
                for o in self.opponents
                if o is not carrier and self.to_own_endzone(o.position) <= self.to_own_endzone(carrier.position) + 1]
        return self._receivers

    def deep_players(self) -> frozenset:
        """Ids of our standing players at least SAFETY_DEPTH squares behind their carrier (toward our endzone)."""
        if self._deep is None:
            carrier = self.their_carrier
            self._deep = frozenset() if carrier is None else frozenset(
                p.player_id for p in self.team.players if p.position is not None and p.state.up
                and self.to_own_endzone(carrier.position) - self.to_own_endzone(p.position) >= SAFETY_DEPTH)
        return self._deep


def block_odds(attacker, defender, dice: int, carrier) -> tuple:
    """(attacker falls, defender falls, attacker fumbles, defender fumbles) for a block at `dice`
    (negative: the defender chooses), as `Game.get_block_probs` works them out, without the crowd;
    for a blitz from a square the attacker has not reached yet (no piece moves)."""
    p_self = 1.0 / 6.0 if attacker.has_skill(Skill.BLOCK) else 2.0 / 6.0
    p_opp = 2.0 / 6.0 - (1.0 / 6.0 if defender.has_skill(Skill.DODGE) and not attacker.has_skill(Skill.TACKLE) else 0.0)
    if dice >= 2:
        p_self -= (1.0 - p_self) * p_self
        p_opp += (1.0 - p_opp) * p_opp
    elif dice <= -2:
        p_self += (1.0 - p_self) * p_self
        p_opp -= (1.0 - p_opp) * p_opp
    return (p_self, p_opp, p_self if attacker is carrier else 0.0, p_opp if defender is carrier else 0.0)


def block_value(board: Board, attacker, defender, p_self: float, p_opp: float, fumble_self: float,
                 fumble_opp: float) -> float:
    value = p_opp - 1.5 * p_self + 2.0 * fumble_opp - 3.0 * fumble_self
    if board.our_carrier is not None and defender.position.distance(board.our_carrier.position) == 1:
        value += 0.3  # frees our carrier from a tackle zone
    return value


# ------------------------------------------------------------------------------------ the rules
# Each rule proposes the best plan among `players` (the team's players free to act, or the one
# player whose action is under way), or None.

def _rule_score(board: Board, players) -> Optional[Plan]:
    carrier = board.our_carrier
    if carrier is None or carrier not in players:
        return None
    path = pf.get_safest_path_to_endzone(board.game, carrier, allow_team_reroll=True)
    if path is None or not path.steps:
        return None
    last_turn = board.team.state.turn >= board.game.config.rounds  # of the half: nothing to lose by trying
    if path.prob >= SCORE_PROB or (last_turn and path.prob > 0):
        return Plan(carrier, ActionType.START_MOVE, path.get_last_step(), 10 + path.prob, "score")
    return None


def _rule_handoff(board: Board, players) -> Optional[Plan]:
    game, carrier = board.game, board.our_carrier
    if carrier is None or carrier not in players or ActionType.START_HANDOFF not in board.allowed:
        return None
    best = None
    for mate in board.team.players:
        if mate is carrier or mate.position is None or not mate.state.up or mate.state.used:
            continue
        if board.to_endzone(mate.position) > mate.num_moves_left() + 2:
            continue
        td_path = pf.get_safest_path_to_endzone(game, mate, allow_team_reroll=True)
        if td_path is None:
            continue
        reach = pf.get_safest_path(game, carrier, mate.position, allow_team_reroll=True)
        if reach is None:
            continue
        p = td_path.prob * reach.prob * game.get_catch_prob(mate, handoff=True, allow_team_reroll=True)
        if p >= HANDOFF_SCORE_PROB and (best is None or p > best.score):
            best = Plan(carrier, ActionType.START_HANDOFF, mate.position, p, "handoff")
    return best


def _score_after_catch(board: Board, mate) -> Optional[float]:
    """The chance `mate` scores this turn once it holds the ball (None: it cannot)."""
    if board.to_endzone(mate.position) == 0:
        return 1.0
    if board.to_endzone(mate.position) > mate.num_moves_left() + 2:
        return None
    path = pf.get_safest_path_to_endzone(board.game, mate, allow_team_reroll=True)
    return path.prob if path is not None and path.steps else None


def _rule_pass(board: Board, players) -> Optional[Plan]:
    """The carrier throws from where it stands to a teammate who can catch and then score this turn."""
    game, carrier = board.game, board.our_carrier
    if carrier is None or carrier not in players or ActionType.START_PASS not in board.allowed:
        return None
    last_turn = board.team.state.turn >= game.config.rounds
    best = None
    for mate in board.team.players:
        if mate is carrier or mate.position is None or not mate.state.up or mate.state.used \
                or not mate.can_catch() or mate.position.distance(carrier.position) <= 1 \
                or board.to_endzone(mate.position) > mate.num_moves_left() + 2:
            continue
        success = pass_success(game, carrier, mate)
        if success <= 0.0 or (success < PASS_SCORE_PROB and not last_turn):
            continue
        scores = _score_after_catch(board, mate)
        if scores is None:
            continue
        p = success * scores
        if (p >= PASS_SCORE_PROB or (last_turn and p > 0)) and (best is None or p > best.score):
            best = Plan(carrier, ActionType.START_PASS, mate.position, p, "pass")
    if best is not None and best.score <= (_score_after_catch(board, carrier) or 0.0):
        return None  # the carrier's own run is as likely to score
    return best


def _rule_blocks(board: Board, players, safe: bool) -> Optional[Plan]:
    game = board.game
    best = None
    for attacker in players:
        if attacker is board.our_carrier or attacker.position is None or not attacker.state.up:
            continue
        for defender in game.get_adjacent_players(attacker.position, team=board.opp, down=False):
            p_self, p_opp, fumble_self, fumble_opp = game.get_block_probs(attacker, defender)
            if safe:
                if p_self > SAFE_BLOCK_SELF_DOWN or fumble_self > 0:
                    continue
            elif not (p_opp > p_self or fumble_opp > 0):
                continue
            value = block_value(board, attacker, defender, p_self, p_opp, fumble_self, fumble_opp)
            if best is None or value > best.score:
                best = Plan(attacker, ActionType.START_BLOCK, defender.position, value,
                            "safe block" if safe else "risky block")
    return best


GFI_SUCCESS = 5.0 / 6.0


def _blitz_plans(board: Board, players, defenders) -> Iterable[tuple]:
    """(plan, chance to make the defender drop the ball) for each blitz of `players` on `defenders`.

    Read off the players' ordinary paths (a path ending beside a defender, then the block from
    there, which costs one more square: a go-for-it once the movement is spent), rather than from
    a pathfinding run of its own per blitzer, which costs several times as much.
    """
    game = board.game
    for blitzer in players:
        if blitzer is board.our_carrier or blitzer.position is None:
            continue
        moves_left = blitzer.num_moves_left()
        targets = [d for d in defenders if blitzer.position.distance(d.position) <= moves_left + 3]
        if not targets:
            continue
        best: Dict[str, tuple] = {}
        for square, path in [(blitzer.position, None)] + board.paths(blitzer):
            beside = [d for d in targets if square.distance(d.position) == 1]
            if not beside:
                continue
            # A path's length makes botbowl build all its squares: only for the paths that end beside a target.
            prob, length = (1.0, 0) if path is None else (path.prob, len(path.steps))
            if length + 1 > moves_left + 2:
                continue
            if length + 1 > moves_left:
                prob *= GFI_SUCCESS
            for defender in beside:
                dice = board.block_dice.at(blitzer, defender, square, blitz=True)
                p_self, p_opp, fumble_self, fumble_opp = block_odds(blitzer, defender, dice, board.carrier)
                score = prob * (1 - p_self) + prob * (p_opp + fumble_opp)
                if defender.player_id not in best or score > best[defender.player_id][0].score:
                    best[defender.player_id] = (Plan(blitzer, ActionType.START_BLITZ, defender.position, score,
                                                     "blitz"), prob * fumble_opp)
        yield from best.values()


def _rule_blitz_carrier(board: Board, players) -> Optional[Plan]:
    if board.their_carrier is None or ActionType.START_BLITZ not in board.allowed:
        return None
    best, best_p = None, 0.0
    for plan, p_fumble in _blitz_plans(board, players, [board.their_carrier]):
        if p_fumble > best_p:
            best, best_p = plan, p_fumble
    if best is not None and best_p >= CARRIER_BLITZ_PROB:
        best.rule = "blitz the carrier"
        return best
    return None


def _rule_blitz(board: Board, players) -> Optional[Plan]:
    if ActionType.START_BLITZ not in board.allowed or not board.opponents:
        return None
    # Pathfinding for blitzes is the costliest query: only players with the Block skill try.
    blitzers = [p for p in players if p.has_skill(Skill.BLOCK) and p.state.up
                and board.tackle_zones.at(p.position) == 0]
    best = max((plan for plan, _ in _blitz_plans(board, blitzers, board.opponents)), key=lambda p: p.score,
               default=None)
    return best if best is not None and best.score >= BLITZ_SCORE else None


def _rule_pickup(board: Board, players) -> Optional[Plan]:
    if board.ball is None or board.carrier is not None:
        return None
    best = None
    for player in players:
        if player.position is None or player.position.distance(board.ball) > player.num_moves_left() + 2:
            continue
        for square, path in board.paths(player):
            if square == board.ball:
                if path.prob >= PICKUP_PROB and (best is None or path.prob > best.score):
                    best = Plan(player, ActionType.START_MOVE, board.ball, path.prob, "pick up")
                break
    return best


def _threats(board: Board, square) -> int:
    """Opponents that could reach a square next to `square` in their next turn (a rough count)."""
    return sum(1 for p in board.opponents if p.position.distance(square) <= p.get_ma() + 3)


def _rule_advance_carrier(board: Board, players) -> Optional[Plan]:
    carrier = board.our_carrier
    if carrier is None or carrier not in players or board.tackle_zones.at(carrier.position) > 0:
        return None
    here = carrier.position
    best, best_value = None, 0.0
    for square, path in board.paths(carrier):
        if path.prob < 1.0 or board.tackle_zones.at(square) > 0:
            continue
        gain = board.to_endzone(here) - board.to_endzone(square)
        # forward, but not past the teammates who must cage it, and away from the sideline
        support = sum(1 for m in board.team.players if m is not carrier and m.position is not None
                      and m.state.up and m.position.distance(square) <= 2)
        value = gain + 0.6 * min(support, 3) - 0.3 * _threats(board, square) - sideline_cost(board.game, square)
        if value > best_value + 1e-9:
            best, best_value = Plan(carrier, ActionType.START_MOVE, square, value, "advance the carrier"), value
    base = 0.6 * min(3, sum(1 for m in board.team.players if m is not carrier and m.position is not None
                            and m.state.up and m.position.distance(here) <= 2)) - 0.3 * _threats(board, here) \
        - sideline_cost(board.game, here)
    return best if best is not None and best_value > base + 0.5 else None


def sideline_cost(game: botbowl.Game, square) -> float:
    """What a carrier loses at `square` by the touchline: one push from the crowd on it, trapped a square in.
    (Against `grod`, a third of the default's carrier turns ended within two squares of it; grod's 7%.)"""
    edge = min(square.y - 1, game.arena.height - 2 - square.y)
    return SIDELINE.get(edge, 0.0)


def square_value(board: Board, player, square) -> float:
    """How useful `player` (one of `board.team`) is on `square` for the team, without the ball in its hands."""
    game = board.game
    value = 0.0
    if board.our_carrier is not None:
        c = board.our_carrier.position
        dx, dy = abs(square.x - c.x), abs(square.y - c.y)
        if dx == 1 and dy == 1:
            value += 1.0  # a cage corner
        elif max(dx, dy) == 1:
            value += 0.5
        elif max(dx, dy) == 2:
            value += 0.3
        # ahead of the carrier, to clear its way
        ahead = board.to_endzone(c) - board.to_endzone(square)
        if ahead > 0 and max(dx, dy) <= 3:
            value += 0.1
        if 3 <= ahead and max(dx, dy) <= 8 and player.has_skill(Skill.CATCH) \
                and board.tackle_zones.at(square) == 0:
            value += RECEIVER + (RECEIVER_IN_RANGE if board.to_endzone(square) <= player.get_ma() else 0.0)
    elif board.their_carrier is not None:
        c = board.their_carrier.position
        d = square.distance(c)
        between = board.to_own_endzone(square) < board.to_own_endzone(c)
        if d == 1:
            value += 1.0 + (0.2 if between else 0.0)  # mark the carrier
        elif between and d <= 4:
            value += 0.7 - 0.1 * d  # screen in front of it
        else:
            value += 0.3 - 0.03 * d
        if d > 1 and any(receiver.distance(square) == 1 and not markers - {player.player_id}
                         for receiver, markers in board.free_receivers()):
            value += MARK_RECEIVER
        depth = board.to_own_endzone(c) - board.to_own_endzone(square)
        if SAFETY_DEPTH <= depth <= SAFETY_DEPTH + 3 and abs(square.y - c.y) <= 3 \
                and not board.deep_players() - {player.player_id}:
            value += SAFETY
    elif board.ball is not None:
        d = square.distance(board.ball)
        value += 0.8 - 0.1 * d
        if board.to_own_endzone(square) < board.to_own_endzone(board.ball):
            value += 0.1
    tackle_zones = board.tackle_zones.at(square)
    if board.their_carrier is None or square.distance(board.their_carrier.position) > 1:
        value -= 0.25 * tackle_zones
    if tackle_zones and (square.y <= 1 or square.y >= game.arena.height - 2):
        value -= 0.3  # next to the crowd with an opponent beside: a push out is an injury roll
    return value


def _rule_position(board: Board, players) -> Optional[Plan]:
    """The safe moves (no dice) that best improve where a player stands."""
    taken = {p.position for p in board.team.players if p.position is not None}
    best = None
    for player in players:
        if player is board.our_carrier or player.position is None or board.tackle_zones.at(player.position) > 0:
            continue
        here = square_value(board, player, player.position) if player.state.up else -0.5
        for square, path in board.paths(player):
            if path.prob < 1.0 or square in taken:
                continue
            gain = square_value(board, player, square) - here
            if gain > MIN_GAIN and (best is None or gain > best.score):
                best = Plan(player, ActionType.START_MOVE, square, gain, "position")
    return best


def _rule_stand_up(board: Board, players) -> Optional[Plan]:
    for player in players:
        if player.position is not None and not player.state.up and not player.state.stunned:
            return Plan(player, ActionType.START_MOVE, None, 0.0, "stand up")
    return None


RULES: Sequence[Callable[[Board, list], Optional[Plan]]] = (
    _rule_score,
    _rule_handoff,
    _rule_pass,
    lambda board, players: _rule_blocks(board, players, safe=True),
    _rule_blitz_carrier,
    _rule_pickup,
    _rule_blitz,
    _rule_advance_carrier,
    _rule_position,
    lambda board, players: _rule_blocks(board, players, safe=False),
    _rule_stand_up,
)


def _startable(game: botbowl.Game) -> Dict[ActionType, list]:
    return {c.action_type: list(c.players) for c in game.state.available_actions if c.action_type in START_TYPES}


def plan_turn(game: botbowl.Game, team: botbowl.Team) -> Optional[Plan]:
    """The next player action of the turn, or None to end the turn."""
    startable = _startable(game)
    board = Board(game, team, startable)
    players = [p for p in team.players if any(p in ps for ps in startable.values())]
    for rule in RULES:
        plan = rule(board, players)
        if plan is not None and plan.player in startable.get(plan.start, ()):
            return plan
    return None


# -------------------------------------------------------------------------- choosing an action

_PLAYER_ACTION_TYPES = {
    ActionType.START_MOVE: {ActionType.MOVE},
    ActionType.START_BLOCK: {ActionType.BLOCK},
    ActionType.START_BLITZ: {ActionType.BLOCK, ActionType.MOVE},
    ActionType.START_HANDOFF: {ActionType.HANDOFF, ActionType.MOVE},
    ActionType.START_PASS: {ActionType.PASS},
}
_PLAYER_ACTION_START = {
    botbowl.PlayerActionType.MOVE: ActionType.START_MOVE,
    botbowl.PlayerActionType.BLOCK: ActionType.START_BLOCK,
    botbowl.PlayerActionType.BLITZ: ActionType.START_BLITZ,
    botbowl.PlayerActionType.HANDOFF: ActionType.START_HANDOFF,
    botbowl.PlayerActionType.PASS: ActionType.START_PASS,
}


def _choices(game: botbowl.Game) -> Dict[ActionType, botbowl.ActionChoice]:
    return {c.action_type: c for c in game.state.available_actions if not c.disabled}


def _continue_action(game: botbowl.Game, player: botbowl.Player) -> Action:
    """The next step of the action `player` has started: its plan's target, then END_PLAYER_TURN."""
    choices = _choices(game)
    start = _PLAYER_ACTION_START.get(game.state.player_action_type)
    moved = player.state.moves > 0 or player.state.has_blocked
    plan = None
    if start is not None:
        board = Board(game, player.team, {start})
        rules = RULES if not moved else (_rule_score, _rule_advance_carrier) if player is board.our_carrier else ()
        for rule in rules:
            candidate = rule(board, [player])
            if candidate is not None and candidate.start == start:
                plan = candidate
                break
    if plan is not None and plan.target is not None:
        for action_type in (ActionType.BLOCK, ActionType.HANDOFF, ActionType.PASS, ActionType.MOVE):
            choice = choices.get(action_type)
            if choice is not None and action_type in _PLAYER_ACTION_TYPES[start] and plan.target in choice.positions:
                return Action(action_type, position=plan.target)
    if plan is not None and plan.target is None and ActionType.STAND_UP in choices:
        return Action(ActionType.STAND_UP)
    if ActionType.END_PLAYER_TURN in choices:
        return Action(ActionType.END_PLAYER_TURN)
    return _first(game)


_DIE_VALUE = {BBDieResult.DEFENDER_DOWN: 4.0, BBDieResult.PUSH: 2.0, BBDieResult.ATTACKER_DOWN: -2.0}


def die_value(block: Block, die: BBDieResult, carrier) -> float:
    """How good a block die is for the attacker (the defender's team picks the lowest)."""
    attacker, defender = block.attacker, block.defender
    if die == BBDieResult.DEFENDER_STUMBLES:
        knocks = not defender.has_skill(Skill.DODGE) or attacker.has_skill(Skill.TACKLE)
        return 4.0 if knocks else 2.0
    if die == BBDieResult.BOTH_DOWN:
        attacker_falls = not attacker.has_skill(Skill.BLOCK)
        defender_falls = not defender.has_skill(Skill.BLOCK)
        value = (3.5 if defender_falls else 1.5) - (3.0 if attacker_falls else 0.0)
        return value - (2.0 if attacker_falls and attacker is carrier else 0.0)
    value = _DIE_VALUE[die]
    return value - (2.0 if die == BBDieResult.ATTACKER_DOWN and attacker is carrier else 0.0)


def _select_die(game: botbowl.Game, block: Block, team: botbowl.Team) -> Optional[Action]:
    options = [t for t in _choices(game) if t in SELECT_DIE]
    if not options:
        return None
    carrier = game.get_ball_carrier()
    sign = 1.0 if block.attacker.team == team else -1.0
    return Action(max(options, key=lambda t: sign * die_value(block, SELECT_DIE[t], carrier)))


def _reroll(game: botbowl.Game, proc: Reroll, team: botbowl.Team) -> Action:
    choices = _choices(game)
    if isinstance(proc.context, Block):
        block = proc.context
        dice = [d.get_value() for d in block.roll.dice] if block.roll is not None else []
        carrier = game.get_ball_carrier()
        values = [die_value(block, d, carrier) for d in dice]
        best = max(values) if block.favor == block.attacker.team else min(values) if values else 0.0
        if best <= 0.0 and ActionType.USE_REROLL in choices:
            return Action(ActionType.USE_REROLL)
        die = _select_die(game, block, team)
        if die is not None:
            return die
        return Action(ActionType.DONT_USE_REROLL) if ActionType.DONT_USE_REROLL in choices else _first(game)
    for action_type in (ActionType.USE_SKILL, ActionType.USE_REROLL):
        if action_type in choices:
            return Action(action_type)
    return _first(game)


def _push(game: botbowl.Game, proc: Push, team: botbowl.Team) -> Action:
    choice = _choices(game)[ActionType.PUSH]
    board = Board(game, team, ())
    defender = proc.player

    def value(square) -> float:
        if square.out_of_bounds:
            return 10.0  # into the crowd: an injury roll
        v = 0.0
        if defender.team != team:
            # away from where they want to go, next to our players
            v += 0.2 * len(game.get_adjacent_players(square, team=team, down=False))
            if board.their_carrier is not None and defender is not board.their_carrier:
                v += 0.1 * square.distance(board.their_carrier.position)
            v -= 0.05 * board.to_own_endzone(square)
        return v

    return Action(ActionType.PUSH, position=max(choice.positions, key=value))


def _follow_up(game: botbowl.Game, proc: FollowUp, team: botbowl.Team) -> Action:
    attacker = proc.attacker
    stay, follow = attacker.position, proc.pos_to
    if attacker is game.get_ball_carrier():
        return Action(ActionType.FOLLOW_UP, position=stay)
    # follow when it does not put the attacker in more tackle zones
    better = game.num_tackle_zones_at(attacker, follow) <= game.num_tackle_zones_in(attacker)
    return Action(ActionType.FOLLOW_UP, position=follow if better else stay)


def _setup(game: botbowl.Game, proc: Setup, team: botbowl.Team) -> Action:
    choices = _choices(game)
    on_pitch = game.get_players_on_pitch(team)
    # Legal with nobody to place (everyone is out): a formation would change nothing, forever.
    if proc.reorganize or (game.is_setup_legal(team) and (on_pitch or not game.get_reserves(team))):
        return Action(ActionType.END_SETUP)
    receiving = game.get_receiving_team() == team
    preferences = ((ActionType.SETUP_FORMATION_WEDGE, ActionType.SETUP_FORMATION_LINE) if receiving else
                   (ActionType.SETUP_FORMATION_ZONE, ActionType.SETUP_FORMATION_SPREAD))
    for action_type in preferences + tuple(t for t in choices if t.name.startswith("SETUP_FORMATION_")):
        if action_type in choices:
            return Action(action_type)
    return Action(ActionType.END_SETUP)


def _place_ball(game: botbowl.Game, team: botbowl.Team) -> Action:
    """Deep in the receiving half, away from the sidelines: the ball lands far from the cage."""
    positions = _choices(game)[ActionType.PLACE_BALL].positions
    their_endzone = game.get_opp_endzone_x(team)
    middle = game.arena.height // 2
    depth = max(1, (game.arena.width - 2) // 6)
    return Action(ActionType.PLACE_BALL,
                  position=min(positions, key=lambda s: (abs(abs(s.x - their_endzone) - depth) + abs(s.y - middle),
                                                         s.x, s.y)))


def _select_player(game: botbowl.Game, team: botbowl.Team, near=None) -> Action:
    choices = _choices(game)
    players = choices[ActionType.SELECT_PLAYER].players
    opp = game.get_opp_team(team)
    if near is not None:
        player = min(players, key=lambda p: (p.position.distance(near), p.nr))
    else:  # the one farthest from the opponents
        player = max(players, key=lambda p: (min((p.position.distance(o.position) for o in opp.players
                                                  if o.position is not None), default=0), -p.nr))
    return Action(ActionType.SELECT_PLAYER, player=player)


def _first(game: botbowl.Game) -> Action:
    return safe_action(game)


def scripted_action(game: botbowl.Game, rng: Optional[np.random.RandomState] = None) -> Action:
    """The scripted policy's action for whoever acts in `game` (a `RolloutPolicy`; `rng` is not needed:
    the policy is deterministic, ties going to the lower shirt number)."""
    proc = game.get_procedure()
    team = game.active_team
    choices = _choices(game)
    if team is None or not choices:
        return _first(game)
    if isinstance(proc, CoinTossFlip):
        return Action(ActionType.HEADS)
    if isinstance(proc, CoinTossKickReceive):
        return Action(ActionType.RECEIVE)
    if isinstance(proc, Setup):
        return _setup(game, proc, team)
    if isinstance(proc, PlaceBall):
        return _place_ball(game, team)
    if isinstance(proc, HighKick) and ActionType.SELECT_PLAYER in choices:
        return _select_player(game, team, near=game.get_ball_position())
    if isinstance(proc, (Touchback, Interception)) and ActionType.SELECT_PLAYER in choices:
        return _select_player(game, team)
    if isinstance(proc, Reroll):
        return _reroll(game, proc, team)
    if isinstance(proc, Block):
        die = _select_die(game, proc, team)
        if die is not None:
            return die
    if isinstance(proc, Push) and ActionType.PUSH in choices:
        return _push(game, proc, team)
    if isinstance(proc, FollowUp) and ActionType.FOLLOW_UP in choices:
        return _follow_up(game, proc, team)
    if isinstance(proc, Apothecary):
        for action_type in (ActionType.USE_APOTHECARY, ActionType.SELECT_SECOND_ROLL):
            if action_type in choices:
                return Action(action_type)
    if isinstance(proc, Turn):
        if ActionType.END_TURN in choices and not (choices.keys() & START_TYPES):
            return Action(ActionType.END_TURN)
        plan = plan_turn(game, team)
        if plan is None:
            return Action(ActionType.END_TURN) if ActionType.END_TURN in choices else _first(game)
        return Action(plan.start, player=plan.player)
    player = game.state.active_player
    if player is not None and player.team == team and game.state.player_action_type is not None:
        return _continue_action(game, player)
    for action_type in (ActionType.USE_SKILL, ActionType.USE_BRIBE, ActionType.SELECT_NONE):
        if action_type in choices:
            return Action(action_type)
    return _first(game)


def scripted_or_safe_action(game: botbowl.Game, rng: np.random.RandomState, who: str) -> Action:
    """The scripted policy's action when the game allows it, else a safe legal one; never raises
    (an error is logged once, naming `who`). Every bot's last resort."""
    try:
        action = scripted_action(game, rng)
        if is_available(game, action):
            return action
    except Exception as exc:  # noqa: BLE001 - a bot that raises loses its game
        log_failure_once(exc, f"{who}: the scripted policy raised; playing a safe action")
    return safe_action(game)


class ScriptedBot(botbowl.Agent):
    """The scripted policy as a botbowl agent ("scripted"): fast, deterministic, never raises."""

    def __init__(self, name: str = "scripted", seed: Optional[int] = None):
        super().__init__(name)
        self.rng = np.random.RandomState(seed)

    def new_game(self, game: botbowl.Game, team: botbowl.Team) -> None:
        pass

    def act(self, game: botbowl.Game) -> Action:
        return scripted_or_safe_action(game, self.rng, "the scripted bot")

    def end_game(self, game: botbowl.Game) -> None:
        pass
