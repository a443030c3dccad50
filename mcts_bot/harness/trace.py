"""A trace of a game, counted: how a bot wins or loses, not only the score.

Two bots play seeded games on a board, each bot at home in half of them. `TracedAgent` wraps each
bot: before every decision it hands the game to a `GameTracer`, which reads the reports botbowl
appended since the last decision (`game.state.reports`, botbowl's own record of the game; the
game itself is never changed) and looks at the board where a count needs it (the start of a
team's turn, and its end). With `record`, the game's moves and its MCTS bots' searches are kept
as well, in self-play's format (`selfplay.DecisionRecorder`): data to learn from. The counts, one
team's over one game (`Counts`):

- touchdowns: TOUCHDOWN reports of the team.
- possessions: the team's player comes to hold the ball (SUCCESSFUL_CATCH, SUCCESSFUL_PICKUP,
  INTERCEPTION, or a touchback placing the ball on him) and the last team to hold the ball in this
  drive was the other one, or nobody held it since the kick-off. A drive ends with a touchdown or
  the half. So a completed pass or hand-off, or a fumble picked up again by a teammate, does not
  start a new possession; a ball the other team held in between does.
- how possessions ended: a touchdown; the other team came to hold the ball (or the half ended with
  it loose) after the carrier lost it in the other team's turn (a block, a blitz, a push into the
  crowd), in his own team's turn (a failed dodge or GFI, his own block), or in a pass or hand-off
  not caught by a teammate; or the half ended with the team still holding it ("other": the other
  team held it with no loss seen, which should stay 0).
- turns: the team's turns (TURN_START; the kick-off's Blitz! and Quick Snap! turns are not turns).
- turns with the ball: turns that start with one of the team's players holding the ball.
- free receivers: at the start of a turn with the ball, the team's other players who are standing,
  in no opposing tackle zone, and at most MA + 2 squares (columns) from the opponents' endzone.
- squares gained: over the turns with the ball in which the ball was never loose (no fumble, no
  bounce, no interception: a completed pass or hand-off keeps it) and that end with the team
  holding it or scoring, the ball's distance to the opponents' endzone at the start minus at the
  end (0 at a touchdown); "gained nothing" is a gain of 0 or less.
- carrier at the end of the turn: turns that end (not by a touchdown) with the team holding the
  ball: the carrier within 2 squares of a touchline (y <= 2 or y >= height - 3, botbowl's arena
  counting its out-of-bounds border; on the 1- and 3-player boards that is every row but the
  middle one), and the standing teammates next to him (guards: 0, 1, 2+).
- carrier knocked loose after a turn end with 0, 1, 2+ guards: of those turn ends, how many were
  followed by the carrier losing the ball in the opponent's turn (a block, a blitz, a push); and how
  many were cut short by a turnover (the team still holding the ball), before the guards could move.
- how exposed the carrier was at those turn ends (`exposure`), the worst that applies: an opponent
  standing beside him (marked); one reaching a square beside him with no dice (a walk through empty
  squares within its MA, less 3 to stand up, never leaving a tackle zone of the carrier's team);
  only with dice (dodges, GFIs: any walk within MA + 2); none can. And after each, how often he
  was knocked loose in the opponent's turn, and how often he was blocked in it at all (a chance the
  opponent took or missed). Those on the sideline apart from the rest: how often knocked loose
  after a sideline end and after any other, and the same for the sideline ends that left him marked
  or reached with no dice (a block there need only push him: the crowd takes the ball).
- passes tried (the PASS actions the bot chose; a Dump-off is not one) and completed (caught by a
  teammate before the ball touched the ground), intercepted; hand-offs tried (HANDOFF reports) and
  completed (the same).
- catches, dodges, pick-ups and GFIs tried and failed: one try is one roll and its re-roll, if any;
  it failed if its last roll failed. Dodges also by who held the ball: the dodger, a teammate, an
  opponent, nobody.
- team re-rolls used (REROLL_USED), by what they re-rolled (block dice, a failed dodge, GFI,
  pick-up or catch, other: a pass, say), skill re-rolls used (Dodge, Sure Feet, Sure Hands, Catch,
  Pass, or a successful Pro roll).
- blocks (one per block, its re-rolled dice included), blocks of the opposing carrier (the
  defender held the ball when the dice were rolled); blocks by their dice (3 or 2 for the blocker,
  1, 2 or 3 against: how many dice were rolled, and which team chose among them) and, of each, those
  that knocked the blocker down (both down without Block, or attacker down: a turnover). Of the
  dice the blocker's own team chose among (at one die or more for him): the falls it chose with a
  die that would have kept him up rolled beside it, and with none; its team re-rolls of dice that
  were all falls, taken and declined (a re-roll offered: botbowl asks only while one can be used);
  for a bot searching with priors, its searched decisions on those dice and re-rolls, and how many
  overruled the priors. The blocks a team chose (BLOCK actions), those with no team re-roll it
  could use (none left, or one used this turn), and those at one die or dice against by what could
  make one worth it to `grod.worth_blocking` (`weak_block`: on their carrier, in the half's last
  turn, one die beside our carrier, else "other", what that rule forbids), and of these the ones chosen in a player action in which its search overruled its priors
  and the ones with no team re-roll to use.
- turnovers (TURNOVER reports) by cause: the first failure of the team's current player action
  that ends it: a failed dodge, GFI or pick-up (after re-rolls), a pass or hand-off not caught by
  a teammate (dropped, fumbled, intercepted), the blocker knocked down by his own block; anything
  else (a fouler sent off, say) is "other". And for the turnovers in a team's turn, the players it
  still had to act: on the pitch, not yet used this turn, not stunned, not the one acting, at the
  last decision before the turnover (safe actions first leaves few).
- blitzes (BLITZ_ACTION_STARTED) and those without a block (no block dice rolled by the blitzer
  before his team's next action or the end of the turn), of which: those a turnover ended before
  the block (a failed dodge or GFI on the way, say), and of the rest those in which a bot searching
  with priors overruled them in a decision after the blitz began (the search, not its prior, left
  the block out).
- for a bot that searches with priors (MCTS): the decisions it searched, those at the start of a
  player action (botbowl's Turn procedure: which player does what), how many of each played
  another child than the priors' first choice (overruled), and the overruling child's mean value
  less the first child's, summed (its mean gain in the search's own estimate of the win chance);
  the player actions in which it overruled at least one decision, and the turnovers that ended
  such an action (is the search riskier than its priors?); the turn ends with the ball after a turn
  in which it overruled, by the carrier's guards (0, 1, 2+) and whether a turnover cut them short
  (does the search leave its carrier thinner than its priors would?).
- for any MCTS bot: its searches and their iterations (the agent's `totals`: iterations per
  searched decision), the searches stopped by an error, and the final choices its preset's final
  guard changed (`Preset.final_guard`: overrules turned back for leaving the carrier thin); for every bot, the actions it chose
  that botbowl would refuse (`matches.refused_by_botbowl`, as the evaluation counts them).

A turn that ends by a turnover on the last turn of a half with the team still holding the ball is
not looked at (the board is cleared before the next decision): `GameTracer.unobserved_turn_ends`
counts those turns.
"""
from __future__ import annotations

import time
import zlib
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import botbowl
from botbowl.core import Action, ActionType
from botbowl.core.procedure import Block, Reroll, Turn
from botbowl.core.table import BBDieResult, OutcomeType, Skill

from mcts_bot.adapter.actions import SELECT_DIE, block_dice
from mcts_bot.agent import GameTotals, MCTSBot
from mcts_bot.core.search import Budget
from mcts_bot.harness.bots import check_bot, label, make_bot, mcts_preset_of, with_models
from mcts_bot.harness.collect import save_game
from mcts_bot.harness.evaluation import paired_difference, score_interval
from mcts_bot.harness.games import check_board_size, make_game
from mcts_bot.harness.matches import SIDES, play_to_the_end, refused_by_botbowl
from mcts_bot.harness.records import play_missing, read_results
from mcts_bot.harness.selfplay import DecisionRecorder, MoveLog, game_record
from mcts_bot.knowledge.exposure import EXPOSURES, exposure
from mcts_bot.knowledge.grod import is_final_turn, worth_blocking

RESULTS_FILE = "traces.jsonl"
DECISIONS = "decisions"  # a played game's searched decisions, when recorded (`play_traced_game`)
TABLE_FILE = "trace.md"
ROLES = ("A", "B")  # the two bots of a matchup, in the order given
TURNOVER_CAUSES = ("dodge", "gfi", "pickup", "ball", "knocked_down", "other")
POSSESSION_ENDS = ("touchdown", "lost_their_turn", "lost_own_turn", "lost_pass", "half", "other")
GUARDS = ("guards_0", "guards_1", "guards_2_plus")  # the carrier's guards at the end of a turn: 0, 1, 2+
REACHED = EXPOSURES[:2]  # the carrier marked or reached with no dice
REROLLED = ("blocks", "dodges", "gfis", "pickups", "catches", "other")  # what a team re-roll was used on
DODGES = ("carrier", "offence", "defence", "loose")  # who held the ball when a player dodged
WEAK_BLOCKS = ("carrier", "last_turn", "freeing", "other")  # why a block at one die or dice against
BLOCK_DICE = ("dice_3_for", "dice_2_for", "dice_1", "dice_2_against", "dice_3_against")  # a block's dice


@dataclass
class Counts:
    """One team's counts over a game, or summed over games (see the module doc for each one)."""

    touchdowns: int = 0
    possessions: int = 0
    possessions_touchdown: int = 0  # how they ended (POSSESSION_ENDS)
    possessions_lost_their_turn: int = 0
    possessions_lost_own_turn: int = 0
    possessions_lost_pass: int = 0
    possessions_half: int = 0
    possessions_other: int = 0
    turns: int = 0
    turns_with_ball: int = 0
    free_receivers: int = 0  # summed over the turns with the ball
    turns_with_free_receiver: int = 0
    kept_turns: int = 0  # turns with the ball, never loose, ending held or in a touchdown
    squares_gained: int = 0  # summed over the kept turns
    kept_turns_no_gain: int = 0
    turn_ends_with_ball: int = 0
    sideline_ends: int = 0
    loose_after_sideline_ends: int = 0  # the carrier knocked loose in the opponent's turn after those
    sideline_reached_ends: int = 0  # of the sideline ends, those with him marked or reached with no dice
    loose_after_sideline_reached_ends: int = 0
    guards_0: int = 0
    guards_1: int = 0
    guards_2_plus: int = 0
    loose_after_guards_0: int = 0  # the carrier knocked loose in the opponent's turn after those turn ends
    loose_after_guards_1: int = 0
    loose_after_guards_2_plus: int = 0
    turnover_ended_guards_0: int = 0  # those turn ends cut short by a turnover
    turnover_ended_guards_1: int = 0
    turnover_ended_guards_2_plus: int = 0
    exposed_marked: int = 0  # the turn ends with the ball by EXPOSURES
    exposed_open: int = 0
    exposed_dice: int = 0
    exposed_none: int = 0
    loose_after_exposed_marked: int = 0  # the carrier knocked loose in the opponent's turn after those
    loose_after_exposed_open: int = 0
    loose_after_exposed_dice: int = 0
    loose_after_exposed_none: int = 0
    blocked_after_exposed_marked: int = 0  # the carrier blocked at least once in the opponent's turn after those
    blocked_after_exposed_open: int = 0
    blocked_after_exposed_dice: int = 0
    blocked_after_exposed_none: int = 0
    passes_tried: int = 0
    passes_completed: int = 0
    passes_intercepted: int = 0
    handoffs_tried: int = 0
    handoffs_completed: int = 0
    catches_tried: int = 0
    catches_failed: int = 0
    dodges_tried: int = 0
    dodges_failed: int = 0
    # Of the dodges tried, by who held the ball: the dodger, a teammate, an opponent, nobody.
    dodges_carrier: int = 0
    dodges_offence: int = 0
    dodges_defence: int = 0
    dodges_loose: int = 0
    pickups_tried: int = 0
    pickups_failed: int = 0
    gfis_tried: int = 0
    gfis_failed: int = 0
    team_rerolls: int = 0
    team_rerolls_blocks: int = 0  # of those, on block dice, a failed dodge, GFI, pick-up, catch, other
    team_rerolls_dodges: int = 0
    team_rerolls_gfis: int = 0
    team_rerolls_pickups: int = 0
    team_rerolls_catches: int = 0
    team_rerolls_other: int = 0
    skill_rerolls: int = 0
    blocks: int = 0
    carrier_blocks: int = 0
    blocks_dice_3_for: int = 0  # blocks by BLOCK_DICE
    blocks_dice_2_for: int = 0
    blocks_dice_1: int = 0
    blocks_dice_2_against: int = 0
    blocks_dice_3_against: int = 0
    falls_dice_3_for: int = 0  # of those, the blocker knocked down by his own block
    falls_dice_2_for: int = 0
    falls_dice_1: int = 0
    falls_dice_2_against: int = 0
    falls_dice_3_against: int = 0
    # The blocker's team choosing among its dice (a fall: both down without Block, attacker down):
    falls_chosen: int = 0  # a fall chosen with a die that keeps the blocker up rolled
    falls_forced: int = 0  # a fall chosen with every die rolled a fall
    block_rerolls_taken: int = 0  # a team re-roll of dice that were all falls
    block_rerolls_declined: int = 0  # offered for such dice, not taken
    blocks_chosen: int = 0  # BLOCK actions chosen (a blitz's, too)
    blocks_chosen_without_reroll: int = 0  # of those, with no team re-roll to use (none left, or used this turn)
    # Blocks chosen at one die or dice against (grod blocks so only when `worth_blocking` says so), by
    # the first that applies: on their carrier, in the half's last turn, beside our carrier, other.
    weak_blocks_carrier: int = 0
    weak_blocks_last_turn: int = 0
    weak_blocks_freeing: int = 0
    weak_blocks_other: int = 0
    weak_blocks_overruled: int = 0  # of all those, in a player action in which the search overruled its priors
    weak_blocks_without_reroll: int = 0  # of all those, with no team re-roll to use
    block_searches: int = 0  # a bot searching with priors, at a decision on its blocker's dice or their re-roll
    block_overrules: int = 0  # of those, the priors' choice overruled
    turnovers: int = 0
    turnovers_dodge: int = 0
    turnovers_gfi: int = 0
    turnovers_pickup: int = 0
    turnovers_ball: int = 0
    turnovers_knocked_down: int = 0
    turnovers_other: int = 0
    turnovers_in_turns: int = 0  # turnovers in one of the team's turns (not a kick-off's Blitz!)
    players_left_at_turnovers: int = 0  # summed over those: its players still to act
    blitzes: int = 0
    blitzes_without_block: int = 0
    blitzes_turnover_before_block: int = 0  # of those without a block
    blitzes_overruled_without_block: int = 0  # of the others without a block: the search overruled within
    searches: int = 0
    overrules: int = 0
    start_searches: int = 0  # searched at the start of a player action
    start_overrules: int = 0
    overrule_gain: float = 0.0  # summed over the overrules
    overruled_actions: int = 0  # player actions with at least one overruled decision
    overruled_turnovers: int = 0  # turnovers that ended one of those
    overruled_guards_0: int = 0  # turn ends with the ball after a turn with an overrule, by the carrier's guards
    overruled_guards_1: int = 0
    overruled_guards_2_plus: int = 0
    overruled_turnover_ended_guards_0: int = 0  # those cut short by a turnover
    overruled_turnover_ended_guards_1: int = 0
    overruled_turnover_ended_guards_2_plus: int = 0
    guarded: int = 0  # final choices the preset's final guard changed (`Preset.final_guard`)
    searched_decisions: int = 0  # an MCTS bot's searches (its `totals`), with priors or not
    search_iterations: int = 0  # summed over those searches
    search_errors: int = 0  # searches stopped by an error (the agent played on: `MCTSBot.act`)
    illegal_actions: int = 0  # actions chosen that botbowl would refuse

    def bump(self, name: str, by: int = 1) -> None:
        setattr(self, name, getattr(self, name) + by)

    def add(self, other: "Counts") -> None:
        for f in fields(self):
            self.bump(f.name, getattr(other, f.name))

    @classmethod
    def from_dict(cls, data: dict) -> "Counts":
        """A record's counts; one written before a count existed reads it as 0 (its row then says 0%)."""
        return cls(**{f.name: data.get(f.name, 0) for f in fields(cls)})


# ------------------------------------------------------------------------------------------ reading

# Rolls that can be re-rolled: (kind, success) per report.
_ROLLS = {
    OutcomeType.SUCCESSFUL_DODGE: ("dodges", True), OutcomeType.FAILED_DODGE: ("dodges", False),
    OutcomeType.SUCCESSFUL_GFI: ("gfis", True), OutcomeType.FAILED_GFI: ("gfis", False),
    OutcomeType.SUCCESSFUL_PICKUP: ("pickups", True), OutcomeType.FAILED_PICKUP: ("pickups", False),
    OutcomeType.SUCCESSFUL_CATCH: ("catches", True), OutcomeType.FAILED_CATCH: ("catches", False),
}
# The turnover cause of a failed roll (a failed catch ends a pass or hand-off, counted as such).
_ROLL_CAUSES = {"dodges": "dodge", "gfis": "gfi", "pickups": "pickup"}
# Reports botbowl makes between a failed roll and its re-roll.
_REROLL_REPORTS = {OutcomeType.REROLL_USED, OutcomeType.SKILL_USED, OutcomeType.SUCCESSFUL_PRO,
                   OutcomeType.FAILED_PRO, OutcomeType.SUCCESSFUL_LONER, OutcomeType.FAILED_LONER}
_REROLL_SKILLS = {Skill.DODGE, Skill.SURE_FEET, Skill.SURE_HANDS, Skill.CATCH, Skill.PASS}
_ACTION_STARTS = {OutcomeType.MOVE_ACTION_STARTED, OutcomeType.BLOCK_ACTION_STARTED,
                  OutcomeType.BLITZ_ACTION_STARTED, OutcomeType.PASS_ACTION_STARTED,
                  OutcomeType.FOUL_ACTION_STARTED, OutcomeType.HANDOFF_ACTION_STARTED}
_OUT_OF_TURN_ENDS = {OutcomeType.END_OF_BLITZ, OutcomeType.END_OF_QUICK_SNAP}
_HALF_ENDS = {OutcomeType.END_OF_FIRST_HALF, OutcomeType.END_OF_SECOND_HALF}


def _team_id(player) -> str:
    return player.team.team_id


def carrier(game: botbowl.Game):
    """The player holding the ball, or None (a ball on the ground or in the air has no carrier)."""
    ball = game.get_ball()
    if ball is None or not ball.is_carried or ball.position is None:
        return None
    return game.get_player_at(ball.position)


def distance_to_endzone(game: botbowl.Game, team: botbowl.Team, x: int) -> int:
    """Columns from x to the endzone `team` scores in."""
    return abs(x - game.get_opp_endzone_x(team))


def on_sideline(game: botbowl.Game, square) -> bool:
    """Within 2 squares of a touchline: rows 1-2 or the last two rows inside botbowl's border."""
    return square.y <= 2 or square.y >= game.state.pitch.height - 3


def guards(game: botbowl.Game, player) -> int:
    """Standing teammates next to `player`."""
    return len(game.get_adjacent_players(player.position, team=player.team, down=False))


def free_receivers(game: botbowl.Game, ball_carrier) -> int:
    """The carrier's teammates standing, in no opposing tackle zone, within MA + 2 of the endzone."""
    team = ball_carrier.team
    return sum(1 for player in game.get_players_on_pitch(team, up=True)
               if player is not ball_carrier and game.num_tackle_zones_in(player) == 0
               and distance_to_endzone(game, team, player.position.x) <= player.get_ma() + 2)


def knocks_blocker_down(block: Block, face: BBDieResult) -> bool:
    """The die knocks the blocker down (a turnover): attacker down, or both down without Block."""
    return face == BBDieResult.ATTACKER_DOWN or (face == BBDieResult.BOTH_DOWN
                                                 and not block.attacker.has_skill(Skill.BLOCK))


def weak_block(game: botbowl.Game, action: Action) -> Optional[str]:
    """For a block at one die or dice against, what makes it worth it to `grod.worth_blocking` (the
    first that applies): "carrier" (the defender holds the ball), "last_turn" (nothing follows in the
    half), "freeing" (one die on a player beside our carrier), or "other" (nothing: `worth_blocking`
    forbids it); None for any other action or block."""
    attacker = game.state.active_player
    defender = game.get_player_at(action.position) if action.position is not None else None
    dice = block_dice(game, action) if action.action_type == ActionType.BLOCK else None
    if attacker is None or defender is None or dice is None or dice >= 2:
        return None
    if carrier(game) is defender:
        return "carrier"
    if is_final_turn(game, attacker.team):
        return "last_turn"
    return "freeing" if worth_blocking(game, attacker, defender, dice) else "other"


def blockers_choice(game: botbowl.Game) -> Optional[Block]:
    """The block whose rolled dice the blocker's team is deciding on now (a die, or their re-roll)."""
    proc = game.get_procedure()
    if isinstance(proc, Reroll) and isinstance(proc.context, Block):
        block = proc.context
    elif isinstance(proc, Block):
        block = proc
    else:
        return None
    if block.roll is None or block.favor is None or block.favor != block.attacker.team:
        return None
    return block


@dataclass
class _Turn:
    team: str
    measured: bool = False
    with_ball: bool = False
    kept: bool = False  # the ball was never loose since the start
    start_distance: int = 0
    overruled: bool = False  # the team's search overruled its priors in a decision of this turn


@dataclass
class _Try:
    kind: str
    player_id: str
    team: str
    token: int
    failed: bool
    rerolled: bool = False


@dataclass
class _Blitz:
    team: str
    player_id: str
    blocked: bool = False
    overruled: bool = False  # the team's search overruled its priors in a decision within the blitz


@dataclass(frozen=True)
class _TurnEnd:
    """The board at the end of a turn, as far as the counts need it."""

    holder_team: Optional[str]
    distance: int = 0
    sideline: bool = False
    guards: int = 0
    exposure: str = "exposed_none"


class GameTracer:
    """Counts one game from its reports and a look at the board at each decision.

    Call `observe(game)` before each decision, `chosen(game, action)` after it, and `finish(game)`
    when the game is over. A tracer made during a turn counts that turn from there (and a ball
    already held then as held, without a possession).
    """

    def __init__(self, game: botbowl.Game):
        self.teams = {team.team_id: team for team in (game.state.home_team, game.state.away_team)}
        self.counts: Dict[str, Counts] = {team_id: Counts() for team_id in self.teams}
        self.holder_mismatches = 0  # the board showed another carrier than the reports said (should stay 0)
        self.unobserved_turn_ends = 0
        self._seen = len(game.state.reports)
        self._holder: Optional[Tuple[str, str]] = None  # (player id, team id) of the carrier
        self._last_holder_team: Optional[str] = None  # in this drive
        self._lost: Optional[str] = None  # how the last holder's team lost the ball it has not got back
        # (team, (guards field, exposure field, the sideline fields that apply)) of its last turn end with the ball
        self._end_marks: Optional[Tuple[str, Tuple[str, ...]]] = None
        self._end_blocked = False  # the carrier of `_end_marks` blocked since
        self._turn: Optional[_Turn] = None
        self._ended_by_turnover: Optional[_Turn] = None  # looked at after the reports of this decision
        self._end_turn: Optional[Tuple[_Turn, _TurnEnd]] = None  # the board when END_TURN was chosen
        self._flight: Optional[Tuple[str, str]] = None  # ("pass" or "handoff", team id), not yet caught or lost
        self._try: Optional[_Try] = None
        self._tokens = 0
        self._cause: Optional[Tuple[str, Optional[int]]] = None  # of a turnover in this player action
        self._block: Optional[Tuple[str, str]] = None  # (attacker id, defender id) of this action's last block
        self._block_rolled = False  # its dice are rolled and not chosen yet: another roll is a re-roll
        self._block_dice: Optional[Tuple[str, int]] = None  # (blocker's team, dice), until chosen: for whom
        self._block_kind: Optional[str] = None  # its BLOCK_DICE, once chosen
        self._blitz: Optional[_Blitz] = None
        self._left: Optional[int] = None  # the turn team's players still to act, at the last decision
        self.overruled: Dict[str, bool] = {}  # team id -> its search overruled in its current player action
        proc = game.get_current_turn_proc()
        if proc is not None and not proc.blitz and not proc.quick_snap and not game.state.game_over:
            self._start_turn(proc.team.team_id)
        holder = carrier(game)
        if holder is not None:
            self._holder = (holder.player_id, _team_id(holder))
            self._last_holder_team = _team_id(holder)

    # ------------------------------------------------------------------------------------ the API

    def observe(self, game: botbowl.Game) -> None:
        """Read the reports since the last call and look at the board where a count needs it."""
        reports = game.state.reports
        for report in reports[self._seen:]:
            self._read(report)
        self._seen = len(reports)
        self._reconcile(game)
        if self._ended_by_turnover is not None:
            turn, self._ended_by_turnover = self._ended_by_turnover, None
            if game.get_ball() is None:  # the half ended and the board was cleared before we could look
                self.unobserved_turn_ends += 1
            else:
                self._finish_turn(turn, self._turn_end(game, turn), by_turnover=True)
        if self._turn is not None and not self._turn.measured:
            self._measure_start(game, self._turn)
        self._left = None if self._turn is None else self._players_left(game, self._turn.team)

    def chosen(self, game: botbowl.Game, action: Optional[Action]) -> None:
        """What the deciding bot chose: a pass is tried, a block at poor dice or a fall chosen, a block's
        dice re-rolled or not, or the turn ends as the board stands."""
        if action is None:
            return
        block = blockers_choice(game)
        if block is not None:
            self._block_choice(block, action)
        if action.action_type == ActionType.BLOCK and game.state.active_player is not None:
            team = game.state.active_player.team
            counts = self.counts[team.team_id]
            no_reroll = not game.can_use_reroll(team)
            counts.blocks_chosen += 1
            counts.blocks_chosen_without_reroll += no_reroll
            why = weak_block(game, action)
            if why is not None:
                counts.bump(f"weak_blocks_{why}")
                counts.weak_blocks_without_reroll += no_reroll
                counts.weak_blocks_overruled += self.overruled.get(team.team_id, False)
        if action.action_type == ActionType.PASS and game.state.active_player is not None:
            team = _team_id(game.state.active_player)
            self.counts[team].passes_tried += 1
            self._flight = ("pass", team)
        elif action.action_type == ActionType.END_TURN and self._turn is not None:
            proc = game.get_procedure()
            if isinstance(proc, Turn) and not proc.blitz and not proc.quick_snap \
                    and proc.team.team_id == self._turn.team:
                self._end_turn = (self._turn, self._turn_end(game, self._turn))

    def _block_choice(self, block: Block, action: Action) -> None:
        """The blocker's team chose a die of its block, or whether to re-roll them."""
        counts = self.counts[_team_id(block.attacker)]
        faces = [die.get_value() for die in block.roll.dice]
        all_falls = all(knocks_blocker_down(block, face) for face in faces)
        face = SELECT_DIE.get(action.action_type)
        if face is not None and knocks_blocker_down(block, face):
            counts.bump("falls_forced" if all_falls else "falls_chosen")
        elif all_falls and action.action_type == ActionType.USE_REROLL:
            counts.block_rerolls_taken += 1
        elif all_falls and action.action_type == ActionType.DONT_USE_REROLL:
            counts.block_rerolls_declined += 1

    def finish(self, game: botbowl.Game) -> None:
        """Read the last reports (call when the game is over)."""
        self.observe(game)
        self._end_action()
        if self._turn is not None:  # a game that stopped mid-turn
            self.unobserved_turn_ends += 1
            self._turn = None

    # ------------------------------------------------------------------------------- the reports

    def _read(self, report) -> None:
        kind = report.outcome_type
        player = report.player
        if kind not in _REROLL_REPORTS and kind not in _ROLLS:
            self._try = None
        if kind in _ROLLS:
            if kind is OutcomeType.SUCCESSFUL_CATCH and report.position is not None:
                return  # PLAYER_HIT_PLAYER (a thrown team-mate landing on someone) is the same enum member
            self._roll(*_ROLLS[kind], player)
            if kind is OutcomeType.SUCCESSFUL_CATCH:
                self._caught(player)
            elif kind is OutcomeType.SUCCESSFUL_PICKUP:
                self._gain(player)
        elif kind in _REROLL_REPORTS:
            self._reroll(report)
        elif kind is OutcomeType.TURN_START:
            self._start_turn(report.team.team_id)
        elif kind is OutcomeType.END_OF_TURN:
            self._end_action()
            turn, self._turn = self._turn, None
            if turn is not None:
                if self._end_turn is not None and self._end_turn[0] is turn:
                    self._finish_turn(turn, self._end_turn[1])
                else:
                    self.unobserved_turn_ends += 1
            self._end_turn = None
        elif kind is OutcomeType.TURNOVER:
            self._turnover(report)
        elif kind is OutcomeType.TOUCHDOWN:
            self._touchdown(report)
        elif kind in _HALF_ENDS:
            self._end_action()
            if self._turn is not None:
                self.unobserved_turn_ends += 1
                self._turn = None
            if self._last_holder_team is not None:
                self._end_possession(self._last_holder_team, "half" if self._holder is not None else self._lost)
            self._new_drive()
        elif kind in _OUT_OF_TURN_ENDS:
            self._end_action()
        elif kind in _ACTION_STARTS:
            self._end_action()
            self._cause = None
            self._block, self._block_rolled, self._block_kind = None, False, None
            if kind is OutcomeType.BLITZ_ACTION_STARTED:
                self.counts[_team_id(player)].blitzes += 1
                self._blitz = _Blitz(_team_id(player), player.player_id)
        elif kind is OutcomeType.BLOCK_ROLL:
            self._block_roll(player, report.opp_player, report.rolls[0])
        elif kind is OutcomeType.ACTION_SELECT_DIE:
            self._block_rolled = False
            self._block_chosen(report.team)
        elif kind is OutcomeType.KNOCKED_DOWN:
            if (report.opp_player is not None and self._block == (player.player_id, report.opp_player.player_id)
                    and self._is_turn_team(_team_id(player))):
                self._set_cause("knocked_down")
                if self._block_kind is not None:
                    self.counts[_team_id(player)].bump(f"falls_{self._block_kind}")
            if self._holder is not None and self._holder[0] == player.player_id:
                self._loose()
        elif kind in (OutcomeType.ACCURATE_PASS, OutcomeType.INACCURATE_PASS):
            self._holder = None  # in the air
        elif kind is OutcomeType.HANDOFF:
            team = _team_id(player)
            self.counts[team].handoffs_tried += 1
            self._flight = ("handoff", team)
            self._holder = None
        elif kind is OutcomeType.FUMBLE:
            if report.rolls and self._flight is not None and self._flight[0] == "pass":
                self._holder = None  # a fumbled throw: the ball is loose when it bounces (a re-roll may save it)
            else:
                self._loose()
        elif kind is OutcomeType.INTERCEPTION:
            if self._flight is not None:
                self.counts[self._flight[1]].passes_intercepted += 1
                self._flight_lost()
            self._loose()
            self._gain(player)
        elif kind in (OutcomeType.BALL_BOUNCED, OutcomeType.BALL_OUT_OF_BOUNDS):
            if self._flight is not None:
                self._flight_lost()
            self._loose()
        elif kind is OutcomeType.TOUCHBACK_BALL_PLACED and player is not None:
            self._gain(player)

    def _roll(self, kind: str, success: bool, player) -> None:
        team = _team_id(player)
        counts = self.counts[team]
        last = self._try
        if last is not None and last.kind == kind and last.player_id == player.player_id and last.failed \
                and last.rerolled:  # the re-roll of a failed try
            if success:
                counts.bump(f"{kind}_failed", -1)
                if self._cause is not None and self._cause[1] == last.token:
                    self._cause = None
            last.failed, last.rerolled = not success, False
            return
        self._tokens += 1
        self._try = _Try(kind, player.player_id, team, self._tokens, failed=not success)
        counts.bump(f"{kind}_tried")
        if kind == "dodges":
            holder = self._holder
            counts.bump("dodges_" + ("loose" if holder is None else "carrier" if holder[0] == player.player_id
                                     else "offence" if holder[1] == team else "defence"))
        if not success:
            counts.bump(f"{kind}_failed")
            if kind in _ROLL_CAUSES and self._is_turn_team(team):
                self._set_cause(_ROLL_CAUSES[kind], self._tokens)

    def _reroll(self, report) -> None:
        kind = report.outcome_type
        if kind is OutcomeType.REROLL_USED:
            counts = self.counts[report.team.team_id]
            counts.team_rerolls += 1
            if self._try is not None and self._try.failed:
                counts.bump(f"team_rerolls_{self._try.kind}")
            else:
                counts.bump("team_rerolls_blocks" if self._block_rolled else "team_rerolls_other")
        elif (kind is OutcomeType.SKILL_USED and report.skill in _REROLL_SKILLS) or kind is OutcomeType.SUCCESSFUL_PRO:
            self.counts[_team_id(report.player)].skill_rerolls += 1
        else:
            return
        if self._try is not None and self._try.failed:
            self._try.rerolled = True

    def _block_roll(self, attacker, defender, roll) -> None:
        pair = (attacker.player_id, defender.player_id)
        if not (self._block_rolled and self._block == pair):  # not the same block's re-rolled dice
            counts = self.counts[_team_id(attacker)]
            counts.blocks += 1
            if self._holder is not None and self._holder[0] == defender.player_id:
                counts.carrier_blocks += 1
                marks = self._end_marks
                if marks is not None and marks[0] == self._holder[1] and not self._end_blocked:
                    self.counts[marks[0]].bump(f"blocked_after_{marks[1][1]}")
                    self._end_blocked = True
        if not self._block_rolled:
            self._block_dice, self._block_kind = (_team_id(attacker), len(roll.dice)), None
        self._block, self._block_rolled = pair, True
        if self._blitz is not None and self._blitz.player_id == attacker.player_id:
            self._blitz.blocked = True

    def _block_chosen(self, team) -> None:
        """The block's dice are chosen by `team`: for the blocker if it is his."""
        if self._block_dice is None or team is None:
            return
        (blocker_team, dice), self._block_dice = self._block_dice, None
        self._block_kind = "dice_1" if dice == 1 else \
            f"dice_{dice}_{'for' if team.team_id == blocker_team else 'against'}"
        self.counts[blocker_team].bump(f"blocks_{self._block_kind}")

    def _turnover(self, report) -> None:
        self._end_action(turnover=True)
        self._flight = None
        if report.team is not None:
            counts = self.counts[report.team.team_id]
            counts.turnovers += 1
            cause = self._cause[0] if self._cause is not None else "other"
            counts.bump(f"turnovers_{cause}")
            counts.overruled_turnovers += self.overruled.get(report.team.team_id, False)
            if self._left is not None and self._turn is not None and self._turn.team == report.team.team_id:
                counts.turnovers_in_turns += 1
                counts.players_left_at_turnovers += self._left
        self._cause = None
        turn, self._turn = self._turn, None
        if turn is None:
            return
        if self._holder is not None and self._holder[1] == turn.team:
            self._ended_by_turnover = turn  # the team still holds the ball: look at the board next
        else:
            self._finish_turn(turn, _TurnEnd(None))

    def _touchdown(self, report) -> None:
        self._end_action()
        team = _team_id(report.player)
        self.counts[team].touchdowns += 1
        self._end_possession(team, "touchdown")
        turn, self._turn = self._turn, None
        if turn is not None and turn.team == team and turn.with_ball and turn.kept:
            self._count_gain(self.counts[team], turn.start_distance)  # scored: 0 columns left
        self._new_drive()

    # ------------------------------------------------------------------------------------ the ball

    def _gain(self, player) -> None:
        team = _team_id(player)
        if self._last_holder_team != team:
            if self._last_holder_team is not None:
                self._end_possession(self._last_holder_team, self._lost)
            self.counts[team].possessions += 1
        self._lost = None
        self._holder = (player.player_id, team)
        self._last_holder_team = team
        if self._turn is not None and self._turn.team != team:
            self._turn.kept = False

    def _caught(self, player) -> None:
        if self._flight is not None:
            kind, team = self._flight
            if _team_id(player) == team:
                self.counts[team].passes_completed += kind == "pass"
                self.counts[team].handoffs_completed += kind == "handoff"
                self._flight = None
            else:
                self._flight_lost()
        self._gain(player)

    def _flight_lost(self) -> None:
        if self._is_turn_team(self._flight[1]):
            self._set_cause("ball")
        if self._lost is None and self._flight[1] == self._last_holder_team:
            self._lost = "lost_pass"
        self._flight = None

    def _loose(self) -> None:
        if self._holder is not None and self._lost is None:
            own = self._turn is not None and self._turn.team == self._holder[1]
            self._lost = "lost_own_turn" if own else "lost_their_turn"
            if not own and self._end_marks is not None and self._end_marks[0] == self._holder[1]:
                for mark in self._end_marks[1]:
                    self.counts[self._holder[1]].bump(f"loose_after_{mark}")
                self._end_marks = None
        self._holder = None
        if self._turn is not None:
            self._turn.kept = False

    def _end_possession(self, team: str, how: Optional[str]) -> None:
        self.counts[team].bump(f"possessions_{how or 'other'}")

    def _new_drive(self) -> None:
        self._holder = self._last_holder_team = self._flight = self._lost = self._end_marks = None
        self._end_turn = None

    def _reconcile(self, game: botbowl.Game) -> None:
        """Trust the board when it disagrees with what the reports said about the carrier.

        Not while a ball is in the air or a failed roll waits for its re-roll (a handed-off ball sits
        on the catcher's square, still marked carried, until his catch is decided), nor at the end
        (the last touchdown's ball stays on the pitch)."""
        if game.state.game_over or self._flight is not None or (self._try is not None and self._try.failed):
            return
        holder = carrier(game)
        now = None if holder is None else holder.player_id
        if now != (None if self._holder is None else self._holder[0]):
            self.holder_mismatches += 1
            if holder is None:
                self._loose()
            else:
                self._gain(holder)

    # ------------------------------------------------------------------------------------ the turn

    def _is_turn_team(self, team: str) -> bool:
        return self._turn is None or self._turn.team == team

    def _set_cause(self, cause: str, token: Optional[int] = None) -> None:
        if self._cause is None:
            self._cause = (cause, token)

    def _end_action(self, turnover: bool = False) -> None:
        blitz, self._blitz = self._blitz, None
        if blitz is not None and not blitz.blocked:
            counts = self.counts[blitz.team]
            counts.blitzes_without_block += 1
            counts.blitzes_turnover_before_block += turnover
            counts.blitzes_overruled_without_block += blitz.overruled and not turnover

    def overruled_in_turn(self, team: str) -> None:
        """`team`'s search overruled its priors in this decision: noted if it is `team`'s turn."""
        if self._turn is not None and self._turn.team == team:
            self._turn.overruled = True

    def overruled_in_blitz(self, team: str) -> None:
        """`team`'s search overruled its priors in this decision: noted if it is within `team`'s blitz."""
        if self._blitz is not None and self._blitz.team == team:
            self._blitz.overruled = True

    def _start_turn(self, team: str) -> None:
        self._end_action()
        if self._end_marks is not None and self._end_marks[0] == team:
            self._end_marks = None  # its turn again: the last turn end's marks are history
        if self._turn is not None:
            self.unobserved_turn_ends += 1
        self._turn = _Turn(team)
        self.counts[team].turns += 1
        self._cause, self._try, self._flight = None, None, None
        self._block, self._block_rolled, self._block_kind = None, False, None

    def _players_left(self, game: botbowl.Game, team: str) -> int:
        active = game.state.active_player
        return sum(1 for player in game.get_players_on_pitch(self.teams[team])
                   if not player.state.used and not player.state.stunned and player is not active)

    def _measure_start(self, game: botbowl.Game, turn: _Turn) -> None:
        turn.measured = True
        holder = carrier(game)
        if holder is None or _team_id(holder) != turn.team:
            return
        counts = self.counts[turn.team]
        turn.with_ball = turn.kept = True
        turn.start_distance = distance_to_endzone(game, holder.team, holder.position.x)
        counts.turns_with_ball += 1
        receivers = free_receivers(game, holder)
        counts.free_receivers += receivers
        counts.turns_with_free_receiver += receivers > 0

    def _turn_end(self, game: botbowl.Game, turn: _Turn) -> _TurnEnd:
        holder = carrier(game)
        if holder is None:
            return _TurnEnd(None)
        return _TurnEnd(_team_id(holder), distance_to_endzone(game, holder.team, holder.position.x),
                        on_sideline(game, holder.position), guards(game, holder), exposure(game, holder))

    def _finish_turn(self, turn: _Turn, end: _TurnEnd, by_turnover: bool = False) -> None:
        if end.holder_team != turn.team:
            return
        counts = self.counts[turn.team]
        counts.turn_ends_with_ball += 1
        counts.sideline_ends += end.sideline
        guards = GUARDS[min(end.guards, 2)]
        counts.bump(guards)
        counts.bump(f"turnover_ended_{guards}", int(by_turnover))
        if turn.overruled:
            counts.bump(f"overruled_{guards}")
            counts.bump(f"overruled_turnover_ended_{guards}", int(by_turnover))
        counts.bump(end.exposure)
        marks = (guards, end.exposure)
        if end.sideline:
            marks += ("sideline_ends",)
            if end.exposure in REACHED:
                marks += ("sideline_reached_ends",)
                counts.sideline_reached_ends += 1
        self._end_marks, self._end_blocked = (turn.team, marks), False
        if turn.with_ball and turn.kept:
            self._count_gain(counts, turn.start_distance - end.distance)

    @staticmethod
    def _count_gain(counts: Counts, gain: int) -> None:
        counts.kept_turns += 1
        counts.squares_gained += gain
        counts.kept_turns_no_gain += gain <= 0


class TracedAgent(botbowl.Agent):
    """Wraps a bot: the tracer sees the game before each of the bot's decisions and what it chose."""

    def __init__(self, bot: botbowl.Agent, tracer_of):
        super().__init__(bot.name)
        self.bot = bot
        self._tracer_of = tracer_of  # () -> the game's GameTracer, shared by both sides
        self._team_id: Optional[str] = None

    def new_game(self, game, team):
        self._team_id = team.team_id
        self.bot.new_game(game, team)

    def end_game(self, game):
        tracer = self._tracer_of()
        tracer.finish(game)
        totals = getattr(self.bot, "totals", None)  # an MCTS bot's, for the game just played
        if isinstance(totals, GameTotals):
            counts = tracer.counts[self._team_id]
            counts.searched_decisions += totals.searches
            counts.search_iterations += totals.iterations
            counts.search_errors += totals.errors
            counts.guarded += totals.guarded
        self.bot.end_game(game)

    def act(self, game) -> Action:
        tracer = self._tracer_of()
        tracer.observe(game)
        at_start = isinstance(game.get_procedure(), Turn)
        at_block = blockers_choice(game) is not None
        action = self.bot.act(game)
        if action is not None:
            tracer.counts[self._team_id].illegal_actions += refused_by_botbowl(game, action)
        if at_start:
            tracer.overruled[self._team_id] = False
        if self._count_search(tracer.counts[self._team_id], at_start, at_block):
            tracer.counts[self._team_id].overruled_actions += not tracer.overruled.get(self._team_id, False)
            tracer.overruled[self._team_id] = True
            tracer.overruled_in_turn(self._team_id)
            if not at_start:
                tracer.overruled_in_blitz(self._team_id)
        tracer.chosen(game, action)  # after the overrule is known: a weak block in an overruled action
        return action

    def _count_search(self, counts: Counts, at_start: bool, at_block: bool) -> bool:
        """The decision's search, if the bot searched it with priors: overruled or not, and by how
        much. True if it overruled."""
        root, choice = getattr(self.bot, "last_root", None), getattr(self.bot, "last_choice", None)
        if root is None or choice is None or not root.children or root.children[0].prior is None:
            return False
        overruled = choice is not root.children[0]
        counts.searches += 1
        counts.overrules += overruled
        counts.start_searches += at_start
        counts.start_overrules += overruled and at_start
        counts.block_searches += at_block
        counts.block_overrules += overruled and at_block
        if overruled:
            counts.overrule_gain += choice.value - root.children[0].value
        return overruled


# ------------------------------------------------------------------------------------------ playing

def game_seed(base_seed: int, board: int, side: str, number: int) -> int:
    """The seed of one game: a stable function of the base seed and the game's place in the run."""
    return zlib.crc32(f"trace/{base_seed}/{board}/{side}/{number}".encode()) & 0x7FFFFFFF


@dataclass(frozen=True)
class TraceSpec:
    """One game: bot A (on `side`) against bot B on a board, from a seed; MCTS bots search with the budget."""

    board: int
    bots: Tuple[str, str]
    side: str  # where bot A plays
    seed: int
    seconds: Optional[float] = None
    iterations: Optional[int] = None
    policy: Optional[str] = None  # files of a learned policy and value the MCTS bots search with
    value: Optional[str] = None
    record: bool = False  # also keep the MCTS bots' searched decisions, in the self-play format

    def __post_init__(self) -> None:
        check_board_size(self.board)
        if self.side not in SIDES:
            raise ValueError(f"unknown side {self.side!r}: choose home or away")
        if len(self.bots) != 2:
            raise ValueError(f"give two bots, got {len(self.bots)}")
        for name in self.bots:
            check_bot(name)
        presets = [preset for preset in map(mcts_preset_of, self.bots) if preset is not None]
        if presets:
            Budget(seconds=self.seconds, iterations=self.iterations)  # validates the budget
        if self.record and not presets:
            raise ValueError(f"recording keeps an MCTS bot's searches, and neither of {', '.join(self.bots)} is one: "
                             f"make one of them mcts or mcts-<preset>, or leave --record out")
        if self.policy is not None or self.value is not None:
            if not presets:
                raise ValueError(f"a learned policy or value is for an MCTS bot to search with, and neither of "
                                 f"{', '.join(self.bots)} is one: make one of them mcts or mcts-<preset>")
            for preset in presets:
                with_models(preset, self.policy, self.value)  # a clear error for a missing or stale file

    @property
    def key(self) -> str:
        models = "".join(f"/{kind}={path}" for kind, path in (("policy", self.policy), ("value", self.value)) if path)
        return (f"{self.board}/{self.bots[0]}/{self.bots[1]}/{self.side}/{self.seed}/{self.seconds}/{self.iterations}"
                + models)

    @property
    def file_key(self) -> str:
        """The game's name as a file, for its recorded decisions (`record`); the seed tells the side."""
        budget = "".join(f"-{n}{u}" for n, u in ((self.seconds, "s"), (self.iterations, "it")) if n is not None)
        models = "".join(f"-{kind}-{Path(path).stem}" for kind, path in (("policy", self.policy), ("value", self.value))
                         if path)
        return f"{self.board}p-{label(self.bots[0])}-vs-{label(self.bots[1])}-seed{self.seed}{budget}{models}"


@dataclass(frozen=True)
class TraceSettings:
    """Every game of a run: `games_per_side` games with bot A at home, as many with bot A away."""

    board: int
    bots: Tuple[str, str] = ("mcts", "scripted")
    games_per_side: int = 1
    seconds: Optional[float] = None
    iterations: Optional[int] = None
    base_seed: int = 0
    policy: Optional[str] = None
    value: Optional[str] = None
    record: Optional[str] = None  # a folder for the MCTS bots' searched decisions (`run`)

    def __post_init__(self) -> None:
        if self.games_per_side < 1:
            raise ValueError(f"games per side must be at least 1, got {self.games_per_side}")
        self.specs()  # checks the board, the bots and the budget before any game is played

    def specs(self) -> List[TraceSpec]:
        searching = any(mcts_preset_of(name) is not None for name in self.bots)
        seconds, iterations = (self.seconds, self.iterations) if searching else (None, None)
        return [TraceSpec(board=self.board, bots=tuple(self.bots), side=side,
                          seed=game_seed(self.base_seed, self.board, side, number),
                          seconds=seconds, iterations=iterations, policy=self.policy, value=self.value,
                          record=self.record is not None)
                for number in range(self.games_per_side) for side in SIDES]  # sides alternate: a cut run stays even


def play_traced_game(spec: TraceSpec) -> dict:
    """Play the game and return its record (a JSON-ready dict); a crash is recorded, not raised.
    With `spec.record`, a game that ends also returns its MCTS bots' searched decisions under
    `DECISIONS` (`selfplay.game_record`'s arrays, not JSON: `run` writes them to their own file)."""
    bots = [make_bot(name, seed=spec.seed + i, seconds=spec.seconds, iterations=spec.iterations,
                     policy=spec.policy, value=spec.value) for i, name in enumerate(spec.bots)]
    holder = {}
    agents = [TracedAgent(bot, lambda: holder["tracer"]) for bot in bots]
    recorder = DecisionRecorder(MoveLog()) if spec.record else None
    if recorder is not None:
        for i, (bot, agent) in enumerate(zip(bots, agents)):
            if isinstance(bot, MCTSBot):
                bot.on_decision = recorder.hook(bot, by_opponent=i == 1)
            recorder.log.wrap(agent)  # both sides' moves: the game can be replayed (`selfplay.replay`)
    home, away = agents if spec.side == "home" else agents[::-1]
    game = make_game(spec.board, home, away, seed=spec.seed, game_id=spec.key)
    holder["tracer"] = tracer = GameTracer(game)
    start = time.time()
    crash = play_to_the_end(game)  # a crashed game is recorded, and left out of the table
    a_team = game.state.home_team if spec.side == "home" else game.state.away_team
    teams = {"A": a_team, "B": game.get_opp_team(a_team)}
    mine, theirs = teams["A"].state.score, teams["B"].state.score
    decisions = {} if recorder is None or crash else {
        DECISIONS: game_record(spec.file_key, recorder, game, bot=spec.bots[0], opponent=spec.bots[1],
                               seed=spec.seed, board=spec.board)}
    return {
        "key": spec.key,
        "spec": asdict(spec),
        "result": None if crash else ("win" if mine > theirs else "draw" if mine == theirs else "loss"),
        "score": [mine, theirs],
        "counts": {role: asdict(tracer.counts[team.team_id]) for role, team in teams.items()},
        "holder_mismatches": tracer.holder_mismatches,
        "unobserved_turn_ends": tracer.unobserved_turn_ends,
        "seconds": time.time() - start,
        "crash": crash,
        **decisions,
    }


def run(settings: TraceSettings, out: Path, *, workers: int = 1, backend: str = "local",
        ray_address: Optional[str] = None, progress: bool = True, on_result=None) -> List[dict]:
    """Play the games of `settings` not yet in OUT/traces.jsonl, appending each record as it ends.
    With `settings.record`, each game's searched decisions go to RECORD/<game>.npz first
    (`collect.save_game`), so that a game in the results file has its decisions on disk.

    Returns every record of these settings in the file (earlier ones included), in the settings' order.
    """
    def keep(result: dict) -> None:
        decisions = result.pop(DECISIONS, None)
        if decisions is not None:
            save_game(Path(settings.record), decisions)

    return play_missing(settings.specs(), play_traced_game, out / RESULTS_FILE, workers=workers, backend=backend,
                        ray_address=ray_address, progress=progress, on_result=on_result, before_append=keep)


# ------------------------------------------------------------------------------------------ summary

SETTING_FIELDS = ("board", "bots", "seconds", "iterations", "policy", "value")


def pooled_records(paths: Sequence[Path]) -> List[dict]:
    """The finished games of several runs' results files, for one table; a clear error for a missing
    file or a game found twice (a folder given twice, or two runs of one base seed)."""
    records, seen = [], {}
    for path in paths:
        if not path.exists():
            raise ValueError(f"no results file {path}: give folders a trace run wrote (its --out)")
        for record in read_results(path):
            game = (record["spec"]["seed"], record["spec"]["side"])
            if game in seen:
                raise ValueError(f"the game of seed {game[0]} ({game[1]}) is in both {seen[game]} and {path}")
            seen[game] = path
            records.append(record)
    return records


POINTS = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def paired_games(first: Sequence[dict], second: Sequence[dict]) -> List[Tuple[dict, dict]]:
    """The finished games of two runs that share a game seed (board, side, seed and opponent the
    same; bot A may differ), in pairs, in the first run's order; a clear error if none do."""
    def game(record: dict) -> tuple:
        spec = record["spec"]
        return spec["board"], spec["side"], spec["seed"], tuple(spec["bots"])[1]

    twins = {game(r): r for r in second if r["result"] is not None}
    pairs = [(r, twins[game(r)]) for r in first if r["result"] is not None and game(r) in twins]
    if not pairs:
        raise ValueError("the two runs share no finished game (the same board, opponent, side and game seed): "
                         "play both with the same --board, second bot, --games and --seed")
    return pairs


def compare_table(first: Sequence[dict], second: Sequence[dict]) -> str:
    """Bot A of two runs on the games they share, side by side, by side and in all: W-D-L, score and
    touchdowns, then A's points in the first less the second's, game by game, with a 95% interval."""
    pairs = paired_games(first, second)
    names = [f"{records[0]['spec']['bots'][0]} ({label})" for records, label in ((first, "first"), (second, "second"))]
    lines = ["| Bot A | Side | Games | Record |", "|---|---|---:|---|"]
    for i, name in enumerate(names):
        for side in SIDES + ("both",):
            games = [pair[i] for pair in pairs if side in ("both", pair[0]["spec"]["side"])]
            if games:
                lines.append(f"| {name} | {side} | {len(games)} | {_record_line(games)} |")
    lines.append("")
    for side in SIDES + ("both",):
        differences = [POINTS[a["result"]] - POINTS[b["result"]] for a, b in pairs
                       if side in ("both", a["spec"]["side"])]
        lines.append(f"- {side}: " + paired_difference(differences, "the first", "the second"))
    return "\n".join(lines) + "\n"


def describe_records(records: Sequence[dict]) -> str:
    """A title for a table of finished games; a clear error when they mix boards, bots or budgets."""
    if not records:
        raise ValueError("no finished games to summarise: play some first (without --report)")
    # A game played in this run holds its bots as a tuple, one read back from the file as a list.
    settings = {tuple(str(tuple(v) if isinstance(v, list) else v) for v in (r["spec"].get(k) for k in SETTING_FIELDS))
                for r in records}
    if len(settings) > 1:
        listed = "; ".join(", ".join(f"{k}={v}" for k, v in zip(SETTING_FIELDS, values)) for values in sorted(settings))
        raise ValueError(f"the games mix {len(settings)} settings ({listed}): give each its own --out folder, "
                         f"and pool only runs of the same settings")
    spec = records[0]["spec"]
    a, b = spec["bots"]
    searching = spec["seconds"] is not None or spec["iterations"] is not None
    budget = f", {Budget(seconds=spec['seconds'], iterations=spec['iterations'])}" if searching else ""
    models = "".join(f", MCTS with the {kind} {spec[kind]}" for kind in ("policy", "value") if spec.get(kind))
    return f"{a} vs {b} on the {spec['board']}-player board{budget}{models}, {len(records)} games"


def totals(records: Iterable[dict]) -> Dict[str, Counts]:
    """Each bot's counts summed over the finished (not crashed) games."""
    summed = {role: Counts() for role in ROLES}
    for record in records:
        if record["result"] is None:
            continue
        for role in ROLES:
            summed[role].add(Counts.from_dict(record["counts"][role]))
    return summed


def _per_game(total: float, games: int) -> str:
    return f"{total} ({total / games:.2f}/game)" if games else str(total)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"


def _mean(total: int, n: int, unit: str = "turns") -> str:
    return f"{total / n:.2f} (n={n} {unit})" if n else "-"


def _ended(c: Counts) -> int:
    return sum(getattr(c, f"possessions_{how}") for how in POSSESSION_ENDS)


def _after(c: Counts, what: str, marks: Sequence[str]) -> str:
    """`what` ("loose_after", "blocked_after" or "turnover_ended") of the turn ends of each of `marks`,
    as shares of them."""
    if not c.turn_ends_with_ball:
        return "-"
    return " / ".join(_share(getattr(c, f"{what}_{k}"), getattr(c, k)) for k in marks)


def _sideline_after(c: Counts, reached: bool) -> str:
    """The carrier knocked loose in the opponent's turn after a turn end on the sideline / elsewhere, of
    all such turn ends, or (`reached`) of those leaving him marked or reached with no dice."""
    if reached:
        side, side_loose = c.sideline_reached_ends, c.loose_after_sideline_reached_ends
        ends = sum(getattr(c, k) for k in REACHED)
        loose = sum(getattr(c, f"loose_after_{k}") for k in REACHED)
    else:
        side, side_loose = c.sideline_ends, c.loose_after_sideline_ends
        ends, loose = c.turn_ends_with_ball, sum(getattr(c, f"loose_after_{k}") for k in GUARDS)
    if not ends:
        return "-"
    return f"{_share(side_loose, side)} / {_share(loose - side_loose, ends - side)}"


def _split(c: Counts, names: Sequence[str]) -> str:
    """The counts `names` as shares of their sum, with the sum."""
    total = sum(getattr(c, name) for name in names)
    if not total:
        return "-"
    return " / ".join(f"{100 * getattr(c, name) / total:.0f}%" for name in names) + f" (n={total})"


def _within(c: Counts, parts: Sequence[str], wholes: Sequence[str]) -> str:
    """Each count of `parts` out of its count of `wholes`."""
    if not any(getattr(c, whole) for whole in wholes):
        return "-"
    return " / ".join(_share(getattr(c, part), getattr(c, whole)) for part, whole in zip(parts, wholes))


def _block_dice(c: Counts) -> str:
    """The blocks at each of BLOCK_DICE, as shares of all whose dice were seen chosen."""
    return _split(c, [f"blocks_{k}" for k in BLOCK_DICE])


def _block_falls(c: Counts) -> str:
    """The blockers knocked down at each of BLOCK_DICE, as shares of the blocks at those dice."""
    return _within(c, [f"falls_{k}" for k in BLOCK_DICE], [f"blocks_{k}" for k in BLOCK_DICE])


def _overruled_guards(c: Counts) -> str:
    """The carrier's guards at the turn ends after a turn with an overrule, as shares of those."""
    return _split(c, [f"overruled_{k}" for k in GUARDS])


def _overruled_cut_short(c: Counts) -> str:
    """Of the turn ends after a turn with an overrule, with 0, 1, 2+ guards, those a turnover cut short."""
    return _within(c, [f"overruled_turnover_ended_{k}" for k in GUARDS], [f"overruled_{k}" for k in GUARDS])


def _shares(c: Counts, marks: Sequence[str]) -> str:
    n = c.turn_ends_with_ball
    if not n:
        return "-"
    return " / ".join(f"{100 * getattr(c, k) / n:.0f}%" for k in marks) + f" (n={n})"


# (label, cell of one bot's totals over `games` games), in the table's order.
ROWS = [
    ("Touchdowns", lambda c, g: _per_game(c.touchdowns, g)),
    ("Possessions", lambda c, g: _per_game(c.possessions, g)),
    ("Touchdowns per possession", lambda c, g: f"{c.touchdowns / c.possessions:.2f}" if c.possessions else "-"),
    ("Possessions ended: by a touchdown", lambda c, g: _share(c.possessions_touchdown, _ended(c))),
    ("- the ball lost in the opponent's turn", lambda c, g: _share(c.possessions_lost_their_turn, _ended(c))),
    ("- the ball lost in its own turn", lambda c, g: _share(c.possessions_lost_own_turn, _ended(c))),
    ("- a pass or hand-off not caught", lambda c, g: _share(c.possessions_lost_pass, _ended(c))),
    ("- the half ended with the ball held", lambda c, g: _share(c.possessions_half, _ended(c))),
    ("- other", lambda c, g: _share(c.possessions_other, _ended(c))),
    ("Turns", lambda c, g: _per_game(c.turns, g)),
    ("Turns starting with the ball", lambda c, g: _per_game(c.turns_with_ball, g)),
    ("Squares gained per turn with the ball kept", lambda c, g: _mean(c.squares_gained, c.kept_turns)),
    ("Turns with the ball kept that gained nothing", lambda c, g: _share(c.kept_turns_no_gain, c.kept_turns)),
    ("Carrier on the sideline at the end of its turn", lambda c, g: _share(c.sideline_ends, c.turn_ends_with_ball)),
    ("- on the sideline / elsewhere, the carrier knocked loose in the opponent's turn",
     lambda c, g: _sideline_after(c, reached=False)),
    ("- of those marked or reached with no dice: on the sideline / elsewhere, knocked loose",
     lambda c, g: _sideline_after(c, reached=True)),
    ("Guards beside the carrier at the end of its turn: 0 / 1 / 2+", lambda c, g: _shares(c, GUARDS)),
    ("- after 0 / 1 / 2+ guards, the carrier knocked loose in the opponent's turn",
     lambda c, g: _after(c, "loose_after", GUARDS)),
    ("- of those, cut short by a turnover (0 / 1 / 2+ guards)", lambda c, g: _after(c, "turnover_ended", GUARDS)),
    ("The carrier at the end of its turn: marked / reached with no dice / only with dice / out of reach",
     lambda c, g: _shares(c, EXPOSURES)),
    ("- after each, the carrier knocked loose in the opponent's turn",
     lambda c, g: _after(c, "loose_after", EXPOSURES)),
    ("- after each, the carrier blocked in the opponent's turn", lambda c, g: _after(c, "blocked_after", EXPOSURES)),
    ("Free receivers within reach at the start of a turn with the ball",
     lambda c, g: _mean(c.free_receivers, c.turns_with_ball)),
    ("Turns with the ball with a free receiver within reach",
     lambda c, g: _share(c.turns_with_free_receiver, c.turns_with_ball)),
    ("Passes completed / tried", lambda c, g: _share(c.passes_completed, c.passes_tried)),
    ("Passes intercepted", lambda c, g: _per_game(c.passes_intercepted, g)),
    ("Hand-offs completed / tried", lambda c, g: _share(c.handoffs_completed, c.handoffs_tried)),
    ("Catches failed / tried", lambda c, g: _share(c.catches_failed, c.catches_tried)),
    ("Blocks", lambda c, g: _per_game(c.blocks, g)),
    ("Blocks of the opposing carrier", lambda c, g: _per_game(c.carrier_blocks, g)),
    ("Blocks at 3 / 2 dice for, 1 die, 2 / 3 dice against",
     lambda c, g: _block_dice(c)),
    ("- the blocker knocked down by his own block (3 / 2 for, 1, 2 / 3 against)",
     lambda c, g: _block_falls(c)),
    ("- by its team's choice of die: with one rolled keeping him up / with none",
     lambda c, g: f"{c.falls_chosen} / {c.falls_forced}"),
    ("Team re-rolls of block dice that were all falls: taken / declined",
     lambda c, g: f"{c.block_rerolls_taken} / {c.block_rerolls_declined}"),
    ("Blocks chosen with no team re-roll to use", lambda c, g: _share(c.blocks_chosen_without_reroll, c.blocks_chosen)),
    ("Blocks chosen at one die or dice against: on their carrier / last turn / beside ours / other",
     lambda c, g: " / ".join(str(getattr(c, f"weak_blocks_{k}")) for k in WEAK_BLOCKS)),
    ("- in a player action whose priors the search overruled", lambda c, g: str(c.weak_blocks_overruled)),
    ("- with no team re-roll to use", lambda c, g: str(c.weak_blocks_without_reroll)),
    ("Searched decisions on the blocker's dice or their re-roll: the priors' choice overruled",
     lambda c, g: _share(c.block_overrules, c.block_searches)),
    ("Blitzes", lambda c, g: _per_game(c.blitzes, g)),
    ("Blitzes without a block", lambda c, g: _share(c.blitzes_without_block, c.blitzes)),
    ("- ended by a turnover before the block", lambda c, g: _share(c.blitzes_turnover_before_block, c.blitzes_without_block)),
    ("- ended without one, the search having overruled its priors within it",
     lambda c, g: _share(c.blitzes_overruled_without_block, c.blitzes_without_block)),
    ("Dodges failed / tried", lambda c, g: _share(c.dodges_failed, c.dodges_tried)),
    ("- the ball held by the dodger / a teammate / an opponent / nobody",
     lambda c, g: " / ".join(str(getattr(c, f"dodges_{k}")) for k in DODGES)),
    ("Pick-ups failed / tried", lambda c, g: _share(c.pickups_failed, c.pickups_tried)),
    ("GFIs failed / tried", lambda c, g: _share(c.gfis_failed, c.gfis_tried)),
    ("Team re-rolls used", lambda c, g: _per_game(c.team_rerolls, g)),
    ("- on block dice / a dodge / a GFI / a pick-up / a catch / other",
     lambda c, g: " / ".join(str(getattr(c, f"team_rerolls_{k}")) for k in REROLLED)),
    ("Skill re-rolls used", lambda c, g: _per_game(c.skill_rerolls, g)),
    ("Turnovers", lambda c, g: _per_game(c.turnovers, g)),
    ("- by a failed dodge", lambda c, g: str(c.turnovers_dodge)),
    ("- by a failed GFI", lambda c, g: str(c.turnovers_gfi)),
    ("- by a failed pick-up", lambda c, g: str(c.turnovers_pickup)),
    ("- by a pass or hand-off not caught", lambda c, g: str(c.turnovers_ball)),
    ("- by the blocker knocked down", lambda c, g: str(c.turnovers_knocked_down)),
    ("- other", lambda c, g: str(c.turnovers_other)),
    ("Players still to act at a turnover in its turn",
     lambda c, g: _mean(c.players_left_at_turnovers, c.turnovers_in_turns, "turnovers")),
    ("Searched decisions: the priors' choice overruled", lambda c, g: _share(c.overrules, c.searches)),
    ("- at the start of a player action", lambda c, g: _share(c.start_overrules, c.start_searches)),
    ("Mean value gain of an overrule (the search's win chance)",
     lambda c, g: f"{c.overrule_gain / c.overrules:.3f}" if c.overrules else "-"),
    ("Player actions with an overrule / begun with a search",
     lambda c, g: _share(c.overruled_actions, c.start_searches)),
    ("- turnovers in them / all turnovers", lambda c, g: _share(c.overruled_turnovers, c.turnovers)),
    ("Turn ends with the ball after a turn with an overrule: 0 / 1 / 2+ guards", lambda c, g: _overruled_guards(c)),
    ("- of those, cut short by a turnover (0 / 1 / 2+ guards)", lambda c, g: _overruled_cut_short(c)),
    ("Final choices changed by the preset's final guard (the carrier's guards)", lambda c, g: str(c.guarded)),
    ("Iterations per searched decision",
     lambda c, g: _mean(c.search_iterations, c.searched_decisions, "searches")),
    ("Illegal actions / searches stopped by an error", lambda c, g: f"{c.illegal_actions} / {c.search_errors}"),
]


def bot_columns(bots: Sequence[str]) -> List[str]:
    """Column titles: the bots' names, told apart by A and B when they are the same bot."""
    a, b = bots
    return [a, b] if a != b else [f"{a} (A)", f"{b} (B)"]


def markdown_table(records: Sequence[dict]) -> str:
    """One row per count, one column per bot, then a line with the games, W-D-L and the score."""
    finished = [r for r in records if r["result"] is not None]
    games = len(finished)
    summed = totals(finished)
    titles = bot_columns(records[0]["spec"]["bots"])
    lines = [f"| Count (total, per game or share) | {titles[0]} | {titles[1]} |", "|---|---:|---:|"]
    lines += [f"| {label} | {cell(summed['A'], games)} | {cell(summed['B'], games)} |" for label, cell in ROWS]
    return "\n".join(lines) + "\n\n" + result_line(records) + "\n"


def _record_line(games: Sequence[dict]) -> str:
    """W-D-L, score (win 1, draw 1/2) with its 95% Wilson interval, touchdowns, 0-0 games."""
    n = len(games)
    wins, draws, losses = (sum(r["result"] == k for r in games) for k in ("win", "draw", "loss"))
    score, low, high = score_interval(wins, draws, n)
    goalless = sum(r["score"] == [0, 0] for r in games)
    return (f"{wins}-{draws}-{losses}, score {100 * score:.0f}% (95% CI {100 * low:.0f}-{100 * high:.0f}%), "
            f"touchdowns {sum(r['score'][0] for r in games)}-{sum(r['score'][1] for r in games)}, {goalless} 0-0")


def result_line(records: Sequence[dict]) -> str:
    """Bot A's games, in all and by side: W-D-L, score with its 95% Wilson interval, touchdowns."""
    finished = [r for r in records if r["result"] is not None]
    n = len(finished)
    a, b = bot_columns(records[0]["spec"]["bots"])
    by_side = "; ".join(f"{side} {_record_line([r for r in finished if r['spec']['side'] == side])}"
                        for side in SIDES)
    line = f"{n} games: {a} against {b} {_record_line(finished)} ({a} at {by_side})."
    crashed = len(records) - n
    if crashed:
        line += f" {crashed} crashed game(s) left out (see 'crash' in {RESULTS_FILE})."
    unobserved = sum(r["unobserved_turn_ends"] for r in finished)
    if unobserved:
        line += f" {unobserved} turn end(s) not looked at (a turnover on a half's last turn)."
    mismatches = sum(r["holder_mismatches"] for r in finished)
    if mismatches:
        line += f" {mismatches} time(s) the board showed another carrier than the reports (a tracing bug)."
    return line
