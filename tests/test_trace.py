"""The counted trace: counts that agree with each other and with the score, counts checked by hand
on positions whose dice are forced, resume, and the script's table played and read back."""
import json
from dataclasses import asdict
from types import SimpleNamespace

import botbowl
import pytest
from botbowl.core import Action, ActionType
from botbowl.core.table import BBDieResult, Skill

from conftest import arranged_position, fixed_dice, run_script, turn_position
from mcts_bot.adapter import actions
from mcts_bot.harness import trace

TINY = dict(board=1, bots=("scripted", "random"), games_per_side=1)


def consistent(counts: dict) -> None:
    """What must hold of one bot's counts, in one game or summed."""
    c = trace.Counts.from_dict(counts)
    assert c.passes_completed + c.passes_intercepted <= c.passes_tried
    assert c.handoffs_completed <= c.handoffs_tried
    for kind in ("catches", "dodges", "pickups", "gfis"):
        assert 0 <= getattr(c, f"{kind}_failed") <= getattr(c, f"{kind}_tried"), kind
    assert sum(getattr(c, f"dodges_{who}") for who in trace.DODGES) == c.dodges_tried
    assert sum(getattr(c, f"turnovers_{cause}") for cause in trace.TURNOVER_CAUSES) == c.turnovers
    assert c.touchdowns <= c.possessions
    assert c.turns_with_ball <= c.turns and c.kept_turns <= c.turns_with_ball
    assert c.kept_turns_no_gain <= c.kept_turns and c.turns_with_free_receiver <= c.turns_with_ball
    assert c.guards_0 + c.guards_1 + c.guards_2_plus == c.turn_ends_with_ball
    assert sum(getattr(c, exposure) for exposure in trace.EXPOSURES) == c.turn_ends_with_ball
    for mark in trace.GUARDS + trace.EXPOSURES:
        assert getattr(c, f"loose_after_{mark}") <= getattr(c, mark)
    for mark in trace.GUARDS:
        assert getattr(c, f"turnover_ended_{mark}") <= getattr(c, mark)
    for mark in trace.EXPOSURES:
        assert getattr(c, f"blocked_after_{mark}") <= getattr(c, mark)
    assert sum(getattr(c, f"loose_after_{k}") for k in trace.GUARDS) \
        == sum(getattr(c, f"loose_after_{k}") for k in trace.EXPOSURES)
    assert c.sideline_ends <= c.turn_ends_with_ball
    assert c.loose_after_sideline_reached_ends <= min(c.sideline_reached_ends, c.loose_after_sideline_ends)
    assert c.sideline_reached_ends <= c.sideline_ends and c.loose_after_sideline_ends <= c.sideline_ends
    assert c.sideline_reached_ends <= c.exposed_marked + c.exposed_open
    assert c.blitzes_without_block <= c.blitzes and c.carrier_blocks <= c.blocks
    assert sum(getattr(c, f"blocks_{k}") for k in trace.BLOCK_DICE) <= c.blocks
    assert all(getattr(c, f"falls_{k}") <= getattr(c, f"blocks_{k}") for k in trace.BLOCK_DICE)
    assert sum(getattr(c, f"falls_{k}") for k in trace.BLOCK_DICE) <= c.turnovers_knocked_down
    assert c.turnovers_in_turns <= c.turnovers
    assert c.falls_chosen + c.falls_forced <= c.blocks_dice_3_for + c.blocks_dice_2_for + c.blocks_dice_1
    assert sum(getattr(c, f"team_rerolls_{k}") for k in trace.REROLLED) == c.team_rerolls
    assert c.blocks_chosen_without_reroll <= c.blocks_chosen
    assert c.weak_blocks_without_reroll <= sum(getattr(c, f"weak_blocks_{k}") for k in trace.WEAK_BLOCKS)
    assert c.weak_blocks_overruled <= sum(getattr(c, f"weak_blocks_{k}") for k in trace.WEAK_BLOCKS)
    assert c.block_overrules <= c.block_searches <= c.searches and c.block_overrules <= c.overrules
    assert c.blitzes_turnover_before_block + c.blitzes_overruled_without_block <= c.blitzes_without_block
    assert c.overrules <= c.searches and c.start_searches <= c.searches and c.start_overrules <= c.overrules
    assert c.start_overrules <= c.start_searches and (c.overrules > 0 or c.overrule_gain == 0)
    assert c.searches <= c.searched_decisions <= c.search_iterations  # searched with priors, of all searches


@pytest.mark.parametrize("board,bots,side,seed", [
    (3, ("scripted", "random"), "home", 0), (3, ("random", "scripted"), "away", 1),
    (5, ("scripted", "scripted"), "home", 0), (1, ("mcts", "scripted"), "away", 2),
])
def test_counts_agree_with_each_other_and_with_the_score(board, bots, side, seed):
    record = trace.play_traced_game(trace.TraceSpec(board=board, bots=bots, side=side, seed=seed, iterations=5))
    assert record["crash"] is None
    for role, score in zip(trace.ROLES, record["score"]):
        consistent(record["counts"][role])
        assert record["counts"][role]["touchdowns"] == score
        assert record["counts"][role]["turns"] == 16  # 8 per half on every board
        assert record["counts"][role]["illegal_actions"] == record["counts"][role]["search_errors"] == 0
    assert record["holder_mismatches"] == 0  # the reports told where the ball was, as the board shows it
    a, b = record["counts"]["A"], record["counts"]["B"]
    assert a["possessions"] + b["possessions"] > 0 and a["blocks"] + b["blocks"] > 0
    for counts in (a, b):  # traced from the kick-off: every possession ends, in one way
        assert sum(counts[f"possessions_{how}"] for how in trace.POSSESSION_ENDS) == counts["possessions"]
        assert counts["possessions_touchdown"] == counts["touchdowns"] and counts["possessions_other"] == 0


def test_the_searches_overrules_are_counted_for_the_searching_bot_only():
    record = trace.play_traced_game(trace.TraceSpec(board=3, bots=("mcts", "scripted"), side="home", seed=4,
                                                    iterations=30))
    a, b = (trace.Counts.from_dict(record["counts"][role]) for role in trace.ROLES)
    assert a.searches > 50 and a.start_searches > 10 and 0 < a.overrules < a.searches
    # An overrule plays a child whose lower bound beat the first's mean (or a first left with too
    # few visits to count): their gains sum above 0.
    assert a.overrule_gain > 0
    assert 0 < a.overruled_actions <= min(a.overrules, a.start_searches)
    assert a.overruled_turnovers <= a.turnovers
    assert b.searches == b.overrules == b.overruled_actions == b.overruled_turnovers == 0
    # Every search of the bot (its own totals), each of the 30 iterations asked for.
    assert a.searched_decisions == a.searches and a.search_iterations == 30 * a.searched_decisions
    assert b.searched_decisions == b.search_iterations == 0
    table = trace.markdown_table([record])
    assert f"| Searched decisions: the priors' choice overruled | {a.overrules}/{a.searches} " in table
    assert f"| Iterations per searched decision | 30.00 (n={a.searched_decisions} searches) | - |" in table
    assert "| Illegal actions / searches stopped by an error | 0 / 0 | 0 / 0 |" in table


def test_an_action_botbowl_would_refuse_is_counted_for_its_bot():
    game = turn_position(3, seed=0)
    tracer = trace.GameTracer(game)

    class Chooses(botbowl.Agent):
        def __init__(self, action):
            super().__init__("chooses")
            self.action = action

        def new_game(self, game, team):
            pass

        def act(self, game):
            return self.action

        def end_game(self, game):
            pass

    team = game.active_team
    for action, refused_so_far in ((Action(ActionType.SETUP_FORMATION_WEDGE), 1), (Action(ActionType.END_TURN), 1)):
        agent = trace.TracedAgent(Chooses(action), lambda: tracer)
        agent.new_game(game, team)
        assert agent.act(game) is action  # returned as chosen: the trace only counts
        assert tracer.counts[team.team_id].illegal_actions == refused_so_far  # a formation in a turn; not its end


def test_a_short_game_counted_by_hand():
    # random vs random on the 1-player board, its reports read one by one (see the module doc for the rules).
    record = trace.play_traced_game(trace.TraceSpec(board=1, bots=("random", "random"), side="home", seed=3))
    assert record["score"] == [1, 0]
    a, b = (trace.Counts.from_dict(record["counts"][role]) for role in trace.ROLES)
    # A picks the ball up (a possession), fumbles a pass, picks it up again after a re-roll and scores:
    # one possession, the pick-up after the fumble is the same team's.
    assert (a.possessions, a.touchdowns, a.passes_tried, a.passes_completed) == (1, 1, 1, 0)
    assert a.possessions_touchdown == 1  # the fumbled pass was picked up again: not a loss
    assert (a.catches_tried, a.catches_failed) == (3, 3)  # the re-rolled failed catch is one try
    assert (a.pickups_tried, a.pickups_failed, a.gfis_tried, a.team_rerolls) == (3, 1, 2, 2)
    assert (a.turnovers, a.turnovers_ball, a.turnovers_pickup) == (2, 1, 1)
    assert (a.blitzes, a.blitzes_without_block) == (3, 3)
    assert (a.turns_with_ball, a.kept_turns, a.turn_ends_with_ball) == (1, 0, 1)
    # B gets the ball by a touchback, stands still one turn with it, and falls dodging with it the next.
    assert (b.possessions, b.turns_with_ball, b.kept_turns, b.kept_turns_no_gain) == (1, 2, 1, 1)
    assert (b.dodges_tried, b.dodges_failed, b.turnovers, b.turnovers_dodge) == (3, 2, 2, 2)
    assert b.possessions_lost_own_turn == 1 and b.possessions_lost_their_turn == b.possessions_half == 0


def _lineman_with_the_ball(rerolls: int):
    """Our lineman (no skills) holds the ball 5 columns from the endzone, in row 3 of the 3-player
    board, marked by an opponent beside him; only those two are on the pitch."""
    game = arranged_position(3, "home", ours={3: (5, 3)}, theirs={3: (5, 2)}, carrier=3)
    game.active_team.state.rerolls = rerolls
    player = game.active_team.players[3]
    return game, player, trace.GameTracer(game)


def _play(game, tracer, action):
    tracer.observe(game)
    tracer.chosen(game, action)
    actions.advance(game, action)


def _block(game, tracer, start, attacker, defender, *choices):
    """`attacker` starts a block or blitz and blocks `defender`; then the dice decisions, as given."""
    _play(game, tracer, Action(start, player=attacker))
    _play(game, tracer, Action(ActionType.BLOCK, position=defender.position))
    for choice in choices:
        _play(game, tracer, Action(choice))


def _square(game, ahead, y):
    endzone = game.get_opp_endzone_x(game.active_team)
    return game.get_square(endzone + (ahead if endzone == 1 else -ahead), y)


def test_a_forced_failed_dodge_is_counted_as_a_dodge_turnover():
    game, player, tracer = _lineman_with_the_ball(rerolls=0)
    team = game.active_team.team_id
    _play(game, tracer, Action(ActionType.START_MOVE, player=player))
    with fixed_dice(d6=[1]):  # the dodge out of the opponent's tackle zone fails; no re-roll left
        _play(game, tracer, Action(ActionType.MOVE, position=_square(game, 4, 4)))
    tracer.observe(game)
    kinds = [r.outcome_type.name for r in game.state.reports[-12:]]
    assert "FAILED_DODGE" in kinds and "TURNOVER" in kinds and game.active_team.team_id != team
    c = tracer.counts[team]
    assert (c.dodges_tried, c.dodges_failed, c.turnovers, c.turnovers_dodge) == (1, 1, 1, 1)
    assert [getattr(c, f"dodges_{who}") for who in trace.DODGES] == [1, 0, 0, 0]  # the carrier dodged
    assert (c.turns, c.turns_with_ball, c.team_rerolls) == (1, 1, 0)
    # The carrier fell: the ball was loose, so the turn gained nothing countable and ended without it.
    assert (c.kept_turns, c.turn_ends_with_ball) == (0, 0)
    consistent(asdict(c))


@pytest.mark.parametrize("holder", ["offence", "defence", "loose"])
def test_a_dodge_is_told_by_who_held_the_ball(holder):
    # Our lineman, marked, dodges away (and makes it); the ball is with our player far off, with theirs
    # far off, or on the ground.
    game = arranged_position(3, "home", ours={3: (5, 3), 0: (10, 1)}, theirs={3: (5, 2), 0: (2, 1)},
                             carrier=0 if holder == "offence" else None, ball=(12, 4) if holder == "loose" else None)
    team, opponent = game.active_team, game.get_opp_team(game.active_team)
    if holder == "defence":
        ball = game.get_ball()
        ball.move_to(opponent.players[0].position)
        ball.is_carried, ball.on_ground = True, True
    tracer = trace.GameTracer(game)
    _play(game, tracer, Action(ActionType.START_MOVE, player=team.players[3]))
    with fixed_dice(d6=[6]):
        _play(game, tracer, Action(ActionType.MOVE, position=_square(game, 4, 4)))
    tracer.observe(game)
    c = tracer.counts[team.team_id]
    assert (c.dodges_tried, c.dodges_failed) == (1, 0)
    assert [getattr(c, f"dodges_{who}") for who in trace.DODGES] == [who == holder for who in trace.DODGES]


def test_a_re_rolled_dodge_is_one_try_and_the_turn_is_measured_at_its_end():
    game, player, tracer = _lineman_with_the_ball(rerolls=1)
    team = game.active_team.team_id
    _play(game, tracer, Action(ActionType.START_MOVE, player=player))
    with fixed_dice(d6=[1, 6]):  # fails, then the team re-roll succeeds
        _play(game, tracer, Action(ActionType.MOVE, position=_square(game, 4, 4)))
        assert any(c.action_type == ActionType.USE_REROLL for c in game.state.available_actions)
        _play(game, tracer, Action(ActionType.USE_REROLL))
    _play(game, tracer, Action(ActionType.END_PLAYER_TURN, player=player))
    _play(game, tracer, Action(ActionType.END_TURN))
    tracer.observe(game)
    c = tracer.counts[team]
    assert (c.dodges_tried, c.dodges_failed, c.team_rerolls, c.turnovers) == (1, 0, 1, 0)
    assert [getattr(c, f"team_rerolls_{k}") for k in trace.REROLLED] == [0, 1, 0, 0, 0, 0]  # on the dodge
    # One column nearer the endzone, in row 4 of 5 (the sideline), no teammate beside him.
    assert (c.kept_turns, c.squares_gained, c.kept_turns_no_gain) == (1, 1, 0)
    assert (c.turn_ends_with_ball, c.sideline_ends, c.guards_0) == (1, 1, 1)


def test_a_touchdown_turn_gains_the_columns_to_the_endzone():
    game = arranged_position(3, "home", ours={3: (2, 3), 0: (4, 3), 2: (10, 5), 1: (8, 1)}, theirs={3: (9, 1)},
                             carrier=3)
    team = game.active_team
    tracer = trace.GameTracer(game)
    _play(game, tracer, Action(ActionType.START_MOVE, player=team.players[3]))
    _play(game, tracer, Action(ActionType.MOVE, position=_square(game, 0, 3)))
    tracer.observe(game)
    c = tracer.counts[team.team_id]
    assert team.state.score == c.touchdowns == 1
    assert (c.turns_with_ball, c.kept_turns, c.squares_gained) == (1, 1, 2)
    # Free receivers within reach at the start: the blitzer 4 columns out (MA 7) and the catcher 10
    # columns out (MA 8, just within MA + 2); not the thrower 8 columns out, marked by the opponent.
    assert (c.free_receivers, c.turns_with_free_receiver) == (2, 1)
    assert c.turn_ends_with_ball == 0  # a touchdown ends the turn with the ball dead


def test_a_pick_up_and_a_hand_off_are_one_possession():
    game = arranged_position(3, "home", ours={3: (6, 3), 2: (4, 3), 0: (3, 3)}, theirs={3: (11, 1)}, ball=(5, 3))
    team = game.active_team
    team.players[0].state.up = False  # lying beside the catcher: no guard
    tracer = trace.GameTracer(game)
    with fixed_dice(d6=[6, 6]):  # the pick-up, then the catch
        _play(game, tracer, Action(ActionType.START_HANDOFF, player=team.players[3]))
        _play(game, tracer, Action(ActionType.MOVE, position=_square(game, 5, 3)))
        _play(game, tracer, Action(ActionType.HANDOFF, position=_square(game, 4, 3)))
    _play(game, tracer, Action(ActionType.END_TURN))
    tracer.observe(game)
    assert game.get_ball_carrier() is team.players[2]
    c = tracer.counts[team.team_id]
    assert (c.possessions, c.pickups_tried, c.handoffs_tried, c.handoffs_completed, c.catches_tried) == (1, 1, 1, 1, 1)
    assert c.turns_with_ball == 0  # the ball lay on the ground when the turn started
    # The catcher ends the turn in row 3 (not the sideline) with the hand-off's giver beside him.
    assert (c.turn_ends_with_ball, c.sideline_ends, c.guards_1) == (1, 0, 1)


def test_a_re_rolled_blitz_on_the_carrier_that_knocks_the_blitzer_down():
    game = arranged_position(3, "home", ours={0: (6, 3)}, theirs={3: (7, 3), 2: (9, 1)})
    team, opponent = game.active_team, game.get_opp_team(game.active_team)
    team.state.rerolls = 1
    ball = game.get_ball()
    ball.move_to(opponent.players[3].position)
    ball.is_carried, ball.on_ground = True, True
    game.set_available_actions()
    tracer = trace.GameTracer(game)
    assert tracer.counts[opponent.team_id].possessions == 0  # held before the tracer started
    with fixed_dice(block=[BBDieResult.ATTACKER_DOWN, BBDieResult.ATTACKER_DOWN]):  # re-rolled to no avail
        _block(game, tracer, ActionType.START_BLITZ, team.players[0], opponent.players[3],
               ActionType.USE_REROLL, ActionType.SELECT_ATTACKER_DOWN)
    tracer.observe(game)
    c = tracer.counts[team.team_id]
    assert (c.blitzes, c.blitzes_without_block, c.blocks, c.carrier_blocks, c.team_rerolls) == (1, 0, 1, 1, 1)
    assert (c.turnovers, c.turnovers_knocked_down) == (1, 1)
    assert (c.blocks_dice_1, c.falls_dice_1) == (1, 1)  # one die: a block, not two
    assert (c.block_rerolls_taken, c.block_rerolls_declined, c.falls_forced, c.falls_chosen) == (1, 0, 1, 0)
    assert [getattr(c, f"team_rerolls_{k}") for k in trace.REROLLED] == [1, 0, 0, 0, 0, 0]  # on the block dice
    assert (c.blocks_chosen, c.blocks_chosen_without_reroll) == (1, 0)
    assert [getattr(c, f"weak_blocks_{k}") for k in trace.WEAK_BLOCKS] == [1, 0, 0, 0]  # one die on their carrier
    assert c.weak_blocks_without_reroll == 0  # the re-roll was still there
    assert tracer.counts[opponent.team_id].turns == 1  # the opponents' turn has begun


@pytest.mark.parametrize("assists,kind", [(0, "dice_1"), (1, "dice_2_against")])
def test_a_block_is_counted_by_its_dice_and_who_chose(assists, kind):
    # Our blitzer (ST 3) blocks their lineman (ST 3), with no assist (one die, ours to choose) or with
    # one for him (two dice, theirs to choose): they choose the attacker down, a turnover. Two of ours
    # far from it have not acted yet.
    theirs = {3: (7, 3), 2: (5, 2)} if assists else {3: (7, 3)}
    game = arranged_position(3, "home", ours={0: (6, 3), 1: (10, 1), 3: (10, 5)}, theirs=theirs)
    team, opponent = game.active_team, game.get_opp_team(game.active_team)
    team.state.rerolls = 0
    assert abs(game.num_block_dice(team.players[0], opponent.players[3])) == assists + 1
    tracer = trace.GameTracer(game)
    with fixed_dice(block=[BBDieResult.ATTACKER_DOWN, BBDieResult.PUSH][:assists + 1]):
        _block(game, tracer, ActionType.START_BLOCK, team.players[0], opponent.players[3],
               ActionType.SELECT_ATTACKER_DOWN)
    tracer.observe(game)
    c = tracer.counts[team.team_id]
    assert [getattr(c, f"blocks_{k}") for k in trace.BLOCK_DICE] == [k == kind for k in trace.BLOCK_DICE]
    assert [getattr(c, f"falls_{k}") for k in trace.BLOCK_DICE] == [k == kind for k in trace.BLOCK_DICE]
    assert (c.blocks, c.turnovers_knocked_down) == (1, 1)
    assert (c.turnovers_in_turns, c.players_left_at_turnovers) == (1, 2)  # the blocker was acting
    assert [getattr(c, f"weak_blocks_{k}") for k in trace.WEAK_BLOCKS] == [0, 0, 0, 1]  # no ball near, turn 1
    assert c.weak_blocks_without_reroll == 1
    assert (c.blocks_chosen, c.blocks_chosen_without_reroll) == (1, 1)  # no re-roll left
    assert not any(getattr(tracer.counts[opponent.team_id], f"blocks_{k}") for k in trace.BLOCK_DICE)


@pytest.mark.parametrize("dice,fall", [
    ([BBDieResult.BOTH_DOWN, BBDieResult.PUSH], "chosen"), ([BBDieResult.BOTH_DOWN, BBDieResult.ATTACKER_DOWN], "forced"),
])
def test_a_fall_at_two_dice_for_is_told_chosen_or_forced_and_the_re_roll_declined(dice, fall):
    # Our lineman (no Block), with an assist, blocks theirs: two dice, ours to choose. With a re-roll
    # left we keep the dice and choose both down: a fall with a push beside it, or among falls only.
    game = arranged_position(3, "home", ours={3: (6, 3), 0: (8, 2)}, theirs={3: (7, 3)})
    team, opponent = game.active_team, game.get_opp_team(game.active_team)
    team.state.rerolls = 1
    assert game.num_block_dice(team.players[3], opponent.players[3]) == 2
    assert not team.players[3].has_skill(Skill.BLOCK)
    tracer = trace.GameTracer(game)
    with fixed_dice(block=dice):
        _block(game, tracer, ActionType.START_BLOCK, team.players[3], opponent.players[3],
               ActionType.DONT_USE_REROLL, ActionType.SELECT_BOTH_DOWN)
    tracer.observe(game)
    c = tracer.counts[team.team_id]
    assert (c.blocks_dice_2_for, c.falls_dice_2_for, c.turnovers_knocked_down) == (1, 1, 1)
    assert (c.falls_chosen, c.falls_forced) == ((1, 0) if fall == "chosen" else (0, 1))
    assert (c.block_rerolls_taken, c.block_rerolls_declined) == (0, fall == "forced")
    assert not any(getattr(c, f"weak_blocks_{k}") for k in trace.WEAK_BLOCKS)  # two dice for: not weak
    assert (c.blocks_chosen, c.blocks_chosen_without_reroll) == (1, 0)


@pytest.mark.parametrize("why,overruled", [("freeing", False), ("last_turn", True)])
def test_a_block_at_one_die_is_told_by_what_could_make_it_worth_it(why, overruled):
    # Our lineman blocks theirs at one die (an assist each); beside the defender stands our carrier, or
    # (no carrier) it is the half's last turn for both teams. The search overrules its priors at the
    # block's start and at the die (a push), or nowhere.
    game = arranged_position(3, "home", ours={3: (6, 3), 0: (8, 4)}, theirs={3: (7, 3), 2: (5, 2)},
                             carrier=0 if why == "freeing" else None)
    team, opponent = game.active_team, game.get_opp_team(game.active_team)
    team.state.rerolls = 0
    if why == "last_turn":
        team.state.turn = opponent.state.turn = game.config.rounds
    assert game.num_block_dice(team.players[3], opponent.players[3]) == 1
    tracer = trace.GameTracer(game)
    bot = trace.TracedAgent(_Searcher([(Action(ActionType.START_BLOCK, player=team.players[3]), overruled),
                                       (Action(ActionType.BLOCK, position=opponent.players[3].position), False),
                                       (Action(ActionType.SELECT_PUSH), overruled)]), lambda: tracer)
    bot.new_game(game, team)
    with fixed_dice(block=[BBDieResult.PUSH]):
        for _ in range(3):
            actions.advance(game, bot.act(game))
    c = tracer.counts[team.team_id]
    assert [getattr(c, f"weak_blocks_{k}") for k in trace.WEAK_BLOCKS] == [k == why for k in trace.WEAK_BLOCKS]
    assert (c.weak_blocks_overruled, c.block_searches, c.block_overrules) == (overruled, 1, overruled)


def test_resume_plays_only_the_missing_games(tmp_path):
    settings = trace.TraceSettings(**TINY)
    played = []
    first = trace.run(settings, tmp_path, progress=False, on_result=played.append)
    assert len(first) == len(played) == 2 and {r["spec"]["side"] for r in first} == {"home", "away"}
    # Interrupt: lose the last record, and leave a half-written line behind.
    path = tmp_path / trace.RESULTS_FILE
    lines = path.read_text().splitlines()
    path.write_text(lines[0] + "\n" + lines[1][:40])
    replayed = []
    second = trace.run(settings, tmp_path, progress=False, on_result=replayed.append)
    assert [r["key"] for r in replayed] == [json.loads(lines[1])["key"]]
    assert [r["counts"] for r in second] == [r["counts"] for r in first]
    more = []
    trace.run(trace.TraceSettings(**dict(TINY, games_per_side=2)), tmp_path, progress=False, on_result=more.append)
    assert len(more) == 2 and len(path.read_text().splitlines()) == 4


def test_the_table_sums_the_games_and_refuses_a_mix(tmp_path):
    records = trace.run(trace.TraceSettings(**dict(TINY, games_per_side=2)), tmp_path, progress=False)
    summed = trace.totals(records)
    consistent(asdict(summed["A"]))
    table = trace.markdown_table(records)
    tds = summed["A"].touchdowns
    assert f"| Touchdowns | {tds} ({tds / 4:.2f}/game) |" in table
    assert "| Count (total, per game or share) | scripted | random |" in table
    wins = sum(r["result"] == "win" for r in records)
    home_wins = sum(r["result"] == "win" for r in records if r["spec"]["side"] == "home")
    assert f"4 games: scripted against random {wins}-" in table and f"(scripted at home {home_wins}-" in table
    assert trace.describe_records(records) == "scripted vs random on the 1-player board, 4 games"
    # A run that adds games to a file: the new games' bots are a tuple, those read back a list.
    resumed = [dict(r, spec=dict(r["spec"], bots=list(r["spec"]["bots"]))) for r in records[:2]] + [
        dict(r, spec=dict(r["spec"], bots=tuple(r["spec"]["bots"]))) for r in records[2:]]
    assert trace.describe_records(resumed) == "scripted vs random on the 1-player board, 4 games"
    other = dict(records[0], spec=dict(records[0]["spec"], bots=["random", "random"]))
    with pytest.raises(ValueError, match="mix 2 settings"):
        trace.describe_records(records + [other])
    assert "(A) | random (B) |" in trace.markdown_table([other])


def test_the_script_plays_then_reports_the_same_table(tmp_path):
    out = tmp_path / "trace"
    played = run_script("trace", "--board", "1", "--games", "1", "--bots", "scripted", "random", "--workers", "1",
                        "--out", out)
    assert played.returncode == 0, played.stderr
    assert "| Turnovers |" in played.stdout and "2 games: scripted against random" in played.stdout
    assert (out / trace.TABLE_FILE).read_text() == played.stdout
    assert len((out / trace.RESULTS_FILE).read_text().splitlines()) == 2
    report = run_script("trace", "--report", "--out", out)
    assert report.returncode == 0, report.stderr
    assert report.stdout == played.stdout
    # Another base seed's run pooled with it: one table of all four games, printed only.
    other = tmp_path / "other"
    assert run_script("trace", "--board", "1", "--games", "1", "--bots", "scripted", "random", "--workers", "1",
                      "--seed", "1", "--out", other).returncode == 0
    pooled = run_script("trace", "--report", out, other)
    assert pooled.returncode == 0, pooled.stderr
    assert "scripted vs random on the 1-player board, 4 games" in pooled.stdout and "4 games: scripted against" in pooled.stdout
    assert (out / trace.TABLE_FILE).read_text() == played.stdout
    twice = run_script("trace", "--report", out, out)
    assert twice.returncode == 2 and "is in both" in twice.stderr
    assert "no results file" in run_script("trace", "--report", out, tmp_path / "missing").stderr


def _game(bot, side, seed, result, score, opponent="grod"):
    return {"spec": {"board": 11, "bots": [bot, opponent], "side": side, "seed": seed}, "result": result,
            "score": score}


def test_two_runs_compared_on_the_games_they_share():
    first = [_game("variant", "home", 1, "win", [1, 0]), _game("variant", "away", 2, "draw", [0, 0]),
             _game("variant", "home", 3, "loss", [0, 1]), _game("variant", "away", 9, "win", [2, 0])]
    second = [_game("base", "home", 1, "draw", [1, 1]), _game("base", "away", 2, "draw", [0, 0]),
              _game("base", "home", 3, "win", [1, 0]), _game("base", "home", 4, "win", [1, 0]),
              _game("base", "away", 2, "loss", [0, 1], opponent="scripted")]
    pairs = trace.paired_games(first, second)
    assert [(a["spec"]["seed"], b["result"]) for a, b in pairs] == [(1, "draw"), (2, "draw"), (3, "win")]
    table = trace.compare_table(first, second)
    assert "| variant (first) | both | 3 | 1-1-1, score 50%" in table and "| base (second) | both | 3 | 1-2-0" in table
    # Game by game: +0.5, 0, -1.
    assert "- both: the first less the second, over 3 paired games: -0.167 (" in table
    assert "1 better, 1 worse, 1 the same." in table
    assert "- home: the first less the second, over 2 paired games: -0.250" in table
    with pytest.raises(ValueError, match="share no finished game"):
        trace.paired_games(first, [_game("base", "home", 1, "win", [1, 0], opponent="scripted")])


def test_the_script_compares_two_runs(tmp_path):
    runs = [tmp_path / name for name in ("scripted", "random")]
    for run, bot in zip(runs, ("scripted", "random")):
        assert run_script("trace", "--board", "1", "--games", "1", "--bots", bot, "random", "--workers", "1",
                          "--out", run).returncode == 0
    compared = run_script("trace", "--compare", *runs)
    assert compared.returncode == 0, compared.stderr
    assert "| scripted (first) | both | 2 |" in compared.stdout and "| random (second) | both | 2 |" in compared.stdout
    assert "- both: the first less the second, over 2 paired games:" in compared.stdout
    missing = run_script("trace", "--compare", runs[0], tmp_path / "missing")
    assert missing.returncode == 2 and "no results file" in missing.stderr


@pytest.mark.parametrize("args,message", [
    (["--bots", "nobody", "random"], "unknown bot 'nobody'"),
    (["--bots", "scripted"], "expected 2 arguments"),
    (["--board", "2"], "unknown board size '2'"),
    (["--report"], "no finished games"),
    (["--bots", "scripted", "random", "--record", "searches"], "recording keeps an MCTS bot's searches"),
])
def test_bad_arguments_fail_clearly(tmp_path, args, message):
    out = tmp_path / "out"
    result = run_script("trace", *args, "--out", out)
    assert result.returncode == 2 and message in result.stderr
    assert not (out / trace.RESULTS_FILE).exists()


def test_a_turn_end_cut_short_by_a_turnover_is_counted_with_the_carriers_guards():
    # Our carrier at (7, 3) with no teammate beside him; a lineman fails his dodge away from their
    # player: a turnover with the ball still held, the guards never moved.
    game = arranged_position(3, "home", ours={2: (7, 3), 3: (5, 3)}, theirs={3: (5, 2)}, carrier=2)
    team = game.active_team
    team.state.rerolls = 0
    tracer = trace.GameTracer(game)
    _play(game, tracer, Action(ActionType.START_MOVE, player=team.players[3]))  # a lineman: no Dodge
    with fixed_dice(d6=[1]):
        _play(game, tracer, Action(ActionType.MOVE, position=_square(game, 5, 4)))
    tracer.observe(game)
    assert game.active_team is not team
    c = tracer.counts[team.team_id]
    assert (c.turnovers, c.turn_ends_with_ball, c.guards_0, c.turnover_ended_guards_0) == (1, 1, 1, 1)
    assert c.turnover_ended_guards_1 == c.turnover_ended_guards_2_plus == 0


@pytest.mark.parametrize("row,guard_row", [(3, 2), (2, 3)])
def test_a_carrier_knocked_loose_after_a_turn_end_with_one_guard(row, guard_row):
    # Our carrier ends the turn with one teammate beside him, in the middle row of the 3-player board
    # or in row 2 (the sideline, as the trace counts it there); their blitz knocks him down.
    game = arranged_position(3, "home", ours={3: (6, row), 2: (6, guard_row)}, theirs={3: (7, row)}, carrier=3)
    team, opponent = game.active_team, game.get_opp_team(game.active_team)
    carrier = team.players[3]
    tracer = trace.GameTracer(game)
    _play(game, tracer, Action(ActionType.END_TURN))
    assert game.active_team is opponent
    with fixed_dice(block=[BBDieResult.DEFENDER_DOWN] * 3):
        _play(game, tracer, Action(ActionType.START_BLITZ, player=opponent.players[3]))
        _play(game, tracer, Action(ActionType.BLOCK, position=carrier.position))
        for _ in range(10):  # the dice chosen, the push, the follow-up: whatever botbowl asks next
            if not game.state.available_actions or not carrier.state.up:
                break
            choice = next(c for c in game.state.available_actions if c.action_type != ActionType.END_TURN)
            position = choice.positions[0] if choice.positions else None
            _play(game, tracer, Action(choice.action_type, position=position))
    tracer.observe(game)
    c = tracer.counts[team.team_id]
    assert not carrier.state.up
    assert (c.turn_ends_with_ball, c.guards_1, c.loose_after_guards_1) == (1, 1, 1)
    assert c.loose_after_guards_0 == c.loose_after_guards_2_plus == 0
    assert (c.exposed_marked, c.loose_after_exposed_marked) == (1, 1)  # the blitzer stood beside him
    assert c.blocked_after_exposed_marked == 1 and c.blocked_after_exposed_open == 0
    sideline = int(row == 2)
    assert (c.sideline_ends, c.loose_after_sideline_ends) == (sideline, sideline)
    assert (c.sideline_reached_ends, c.loose_after_sideline_reached_ends) == (sideline, sideline)  # marked


class _Searcher(botbowl.Agent):
    """Plays the given actions; each decision looks searched with priors, overruled where asked."""

    def __init__(self, plays):
        super().__init__("searcher")
        self.plays = list(plays)  # (action, overruled)
        self.last_root = self.last_choice = None

    def act(self, game):
        action, overruled = self.plays.pop(0)
        first, other = SimpleNamespace(prior=0.6, value=0.50), SimpleNamespace(prior=0.4, value=0.55)
        self.last_root = SimpleNamespace(children=[first, other])
        self.last_choice = other if overruled else first
        return action

    def new_game(self, game, team):
        pass

    def end_game(self, game):
        pass


@pytest.mark.parametrize("overrule_the_dodge", [True, False])
def test_a_turnover_in_a_player_action_the_search_overruled_is_counted_so(overrule_the_dodge):
    game, player, tracer = _lineman_with_the_ball(rerolls=0)
    team = game.active_team.team_id
    dodge = Action(ActionType.MOVE, position=_square(game, 4, 4))
    bot = trace.TracedAgent(_Searcher([(Action(ActionType.START_MOVE, player=player), False),
                                       (dodge, overrule_the_dodge)]), lambda: tracer)
    bot.new_game(game, game.active_team)
    actions.advance(game, bot.act(game))
    with fixed_dice(d6=[1]):  # the dodge fails; no re-roll left: a turnover
        actions.advance(game, bot.act(game))
    tracer.observe(game)
    c = tracer.counts[team]
    assert (c.searches, c.start_searches, c.turnovers) == (2, 1, 1)
    expected = (1, 1, 1) if overrule_the_dodge else (0, 0, 0)
    assert (c.overrules, c.overruled_actions, c.overruled_turnovers) == expected


@pytest.mark.parametrize("overruled", [True, False])
def test_a_turn_end_after_a_turn_with_an_overrule_is_counted_with_the_carriers_guards(overruled):
    # Our carrier with one teammate beside him; the turn's one searched decision, its end, overruled
    # or not: the turn end counts among those after an overrule only if it was.
    game = arranged_position(3, "home", ours={3: (6, 3), 2: (6, 2)}, theirs={3: (9, 3)}, carrier=3)
    team = game.active_team
    tracer = trace.GameTracer(game)
    bot = trace.TracedAgent(_Searcher([(Action(ActionType.END_TURN), overruled)]), lambda: tracer)
    bot.new_game(game, team)
    actions.advance(game, bot.act(game))
    tracer.observe(game)
    assert game.active_team is not team
    c = tracer.counts[team.team_id]
    assert (c.turn_ends_with_ball, c.guards_1, c.overrules) == (1, 1, int(overruled))
    assert (c.overruled_guards_0, c.overruled_guards_1, c.overruled_guards_2_plus) == (0, int(overruled), 0)
    assert c.overruled_turnover_ended_guards_1 == 0
    cells = dict(zip((label for label, _ in trace.ROWS), (cell(c, 1) for _, cell in trace.ROWS)))
    assert cells["Turn ends with the ball after a turn with an overrule: 0 / 1 / 2+ guards"] == \
        ("0% / 100% / 0% (n=1)" if overruled else "-")
    assert cells["- of those, cut short by a turnover (0 / 1 / 2+ guards)"] == \
        ("- / 0/1 (0%) / -" if overruled else "-")


@pytest.mark.parametrize("dodge_fails,overruled", [(True, False), (True, True), (False, True), (False, False)])
def test_a_blitz_without_a_block_is_told_by_why(dodge_fails, overruled):
    # Our lineman blitzes, dodges away from the opponent beside him and throws no block: a failed
    # dodge ends it (a turnover before the block, overruled or not), or he ends it himself after the
    # search overruled its priors' step within the blitz, or after no overrule at all.
    game = arranged_position(3, "home", ours={3: (5, 3)}, theirs={3: (5, 2)})
    game.active_team.state.rerolls = 0
    team, player = game.active_team.team_id, game.active_team.players[3]
    plays = [(Action(ActionType.START_BLITZ, player=player), False),
             (Action(ActionType.MOVE, position=_square(game, 4, 4)), overruled)]
    if not dodge_fails:
        plays.append((Action(ActionType.END_PLAYER_TURN, player=player), False))
    bot = trace.TracedAgent(_Searcher(plays), lambda: tracer)
    tracer = trace.GameTracer(game)
    bot.new_game(game, game.active_team)
    actions.advance(game, bot.act(game))
    with fixed_dice(d6=[1 if dodge_fails else 6]):
        actions.advance(game, bot.act(game))
    if not dodge_fails:
        actions.advance(game, bot.act(game))
        actions.advance(game, Action(ActionType.END_TURN))
    tracer.observe(game)
    c = tracer.counts[team]
    assert (c.blitzes, c.blitzes_without_block, c.turnovers) == (1, 1, int(dodge_fails))
    assert (c.blitzes_turnover_before_block, c.blitzes_overruled_without_block) == (int(dodge_fails), int(overruled and not dodge_fails))


def test_a_trace_searches_with_a_value_from_a_file(tmp_path):
    # A value that says 0.5 to every unfinished state: the MCTS bot's leaves are scored by it, not the shipped one.
    import numpy as np
    from mcts_bot.harness.bots import make_bot
    from mcts_bot.knowledge.value import ValueModel, model_for
    shipped = model_for(1)
    path = tmp_path / "value.npz"
    ValueModel(mean=shipped.mean, scale=shipped.scale, w2=np.zeros_like(shipped.mean), b2=0.0).save(path)
    game = turn_position(1, seed=2)
    assert make_bot("mcts", seed=0, iterations=5, value=str(path)).preset.heuristic(game, game.active_team) == 0.5
    settings = trace.TraceSettings(board=1, bots=("mcts", "random"), games_per_side=1, iterations=5, value=str(path))
    records = trace.run(settings, tmp_path, progress=False)
    assert all(r["spec"]["value"] == str(path) and r["key"].endswith(f"/value={path}") for r in records)
    assert all(r["crash"] is None and r["counts"]["A"]["searched_decisions"] > 0 for r in records)
    assert trace.describe_records(records).endswith(f"MCTS with the value {path}, 2 games")
    # Beside the same games without it, in one file: a mix, refused.
    plain = trace.run(trace.TraceSettings(board=1, bots=("mcts", "random"), games_per_side=1, iterations=5),
                      tmp_path, progress=False)
    with pytest.raises(ValueError, match="mix 2 settings"):
        trace.describe_records(records + plain)
    with pytest.raises(ValueError, match="neither of scripted, random is one"):
        trace.TraceSettings(board=1, bots=("scripted", "random"), value=str(path))
    with pytest.raises(ValueError, match="no value model at"):
        trace.TraceSettings(board=1, bots=("mcts", "random"), iterations=5, value=str(tmp_path / "none.npz"))


def test_a_recorded_trace_keeps_the_searches_of_its_games_in_the_self_play_format(tmp_path):
    import numpy as np
    from mcts_bot.harness import selfplay, training
    from mcts_bot.harness.collect import saved_games
    folder = tmp_path / "searches"
    settings = trace.TraceSettings(board=1, bots=("random", "mcts"), games_per_side=1, iterations=5,
                                   record=str(folder))
    records = trace.run(settings, tmp_path, progress=False)
    assert all(trace.DECISIONS not in r and r["crash"] is None for r in records)  # the results file stays JSON
    files = saved_games([folder])
    assert sorted(f.stem for f in files) == sorted(spec.file_key for spec in settings.specs())
    by_key = {r["key"]: r for r in records}
    for spec in settings.specs():
        record, path = by_key[spec.key], folder / f"{spec.file_key}.npz"
        with np.load(path) as data:
            # Only the MCTS bot searched, and it is bot B: its decisions are the opponent's.
            assert len(data["chosen"]) == record["counts"]["B"]["searched_decisions"] > 0
            assert data["by_opponent"].all() and str(data["opponent"]) == "mcts"
            assert tuple(data["final"])[::1 if record["spec"]["side"] == "home" else -1] == tuple(record["score"])
            assert set(np.unique(data["result"])) <= {0.0, 0.5, 1.0}
        # The moves of both sides are kept: the game replays to its score, the features come out the same.
        again = selfplay.refeaturize(path)
        with np.load(path) as data:
            assert np.allclose(again["action_x"], data["action_x"])
    assert selfplay.load([folder]).decisions > 0
    # As the value's data: every move of either side, one record each, with the game's result.
    value_folder = tmp_path / "value"
    converted = run_script("refeaturize", folder, "--value", "--out", value_folder, "--workers", "1")
    assert converted.returncode == 0, converted.stderr
    games = training.load_games(value_folder)
    assert sorted(games.keys) == sorted(f.stem for f in files)
    for key, x, result in zip(games.keys, games.x, games.result):
        with np.load(folder / f"{key}.npz") as data:
            home, away = (int(v) for v in data["final"])
            assert x.shape[:2] == (len(data["move_type"]), 2)
            assert result == (1.0 if home > away else 0.0 if home < away else 0.5)
    # Resumed, nothing is played or written again.
    written = {path: path.stat().st_mtime_ns for path in files}
    replayed = []
    again = trace.run(settings, tmp_path, progress=False, on_result=replayed.append)
    assert not replayed and [r["counts"] for r in again] == [r["counts"] for r in records]
    assert {path: path.stat().st_mtime_ns for path in saved_games([folder])} == written
    with pytest.raises(ValueError, match="recording keeps an MCTS bot's searches"):
        trace.TraceSettings(board=1, bots=("scripted", "random"), record=str(folder))


def test_a_recorded_trace_on_ray_writes_the_games_a_local_run_writes(tmp_path):
    # The searches come back from Ray's workers with the record and are written by the driver: the
    # same files as a local run, on any cluster.
    import os
    import numpy as np
    from mcts_bot.harness.collect import saved_games
    if not os.environ.get("MCTS_BOT_REQUIRE_RAY"):  # CI sets it: there, a missing Ray fails the test
        pytest.importorskip("ray", reason="Ray is not installed: the ray backend needs pip install 'mcts_bot[ray]' "
                                          "(scripts/run.sh test installs it)")
    files = {}
    for backend, workers in (("local", 1), ("ray", 2)):
        settings = trace.TraceSettings(board=1, bots=("mcts", "random"), games_per_side=1, iterations=5,
                                       record=str(tmp_path / backend / "searches"))
        trace.run(settings, tmp_path / backend, workers=workers, backend=backend, progress=False)
        files[backend] = saved_games([tmp_path / backend / "searches"])
    assert [f.name for f in files["local"]] == [f.name for f in files["ray"]] and files["local"]
    for local, on_ray in zip(files["local"], files["ray"]):
        with np.load(local) as a, np.load(on_ray) as b:
            assert sorted(a.files) == sorted(b.files)
            assert all(np.array_equal(a[k], b[k]) for k in ("move_type", "move_xy", "visits", "chosen", "final"))
