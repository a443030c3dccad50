"""Shared test helpers. Tests are seeded and use iteration budgets wherever they check behaviour."""
import copy
import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import botbowl
import numpy as np
import pytest
from botbowl.core import D6, D8, Action, ActionType, BBDie, WeatherType
from botbowl.core.procedure import Turn

import mcts_bot  # noqa: F401  (registers the bots)
from mcts_bot import ActionNode, ChanceNode
from mcts_bot.adapter import actions
from mcts_bot.adapter.actions import legal_actions
from mcts_bot.core.nodes import iter_action_nodes
from mcts_bot.core.policies import random_rollout_policy
from mcts_bot.harness.games import random_position
from mcts_bot.harness.matches import refused_by_botbowl

SCRIPTS = Path(__file__).resolve().parent.parent / "scripts"


@contextmanager
def fixed_dice(d6=(), d8=(), block=()):
    """botbowl's own test trick: the next dice come out as given. The queues are process-wide, so
    they are emptied afterwards whatever happens."""
    queues = ((D6, d6), (D8, d8), (BBDie, block))
    for die, values in queues:
        die.FixedRolls.clear()
        for value in values:
            die.fix(value)
    try:
        yield
    finally:
        for die, _ in queues:
            die.FixedRolls.clear()


def advance_until(game: botbowl.Game, predicate, rng: np.random.RandomState, max_steps: int = 2000) -> botbowl.Game:
    """Play random actions until `predicate(game)` holds; fail the test if it never does."""
    for _ in range(max_steps):
        if predicate(game):
            return game
        assert not game.state.game_over, "the game ended before the wanted state came up"
        actions.step(game, random_rollout_policy(game, rng))
    pytest.fail("the wanted state did not come up")


def in_turn(game: botbowl.Game) -> bool:
    """At the start-of-action choice of a team's turn, with more than one thing to do."""
    return (not game.state.game_over and isinstance(game.get_procedure(), Turn)
            and len(legal_actions(game)) > 1)


def turn_position(board_size: int, seed: int) -> botbowl.Game:
    game = random_position(board_size, seed=seed, steps=0)
    return advance_until(game, in_turn, np.random.RandomState(seed))


def move_position(board_size: int = 3, seed: int = 4) -> botbowl.Game:
    """A position where the active player may move, with botbowl's paths to each square."""
    game = random_position(board_size, seed=seed, steps=0)
    return advance_until(game, lambda g: g.state.active_player is not None and any(
        c.action_type == ActionType.MOVE and c.paths for c in g.state.available_actions), np.random.RandomState(seed))


def longest_move(game: botbowl.Game, root: ActionNode) -> ChanceNode:
    """The root's child moving furthest (by botbowl's path), to see a path drawn whatever the search chose."""
    from mcts_bot.views.board_svg import action_path
    moves = [c for c in root.children if c.action.action_type == ActionType.MOVE]
    assert moves, "the search tried no move here"
    return max(moves, key=lambda c: len(action_path(game, c.action).steps))


def setup_position(board_size: int, seed: int) -> botbowl.Game:
    """A position where a team sets up its formation."""
    game = random_position(board_size, seed=seed, steps=0)
    return advance_until(game, lambda g: any(c.action_type == ActionType.SETUP_FORMATION_WEDGE
                                             for c in g.state.available_actions), np.random.RandomState(seed))


def with_apothecaries(game: botbowl.Game, count: int = 1) -> botbowl.Game:
    """Both rosters with `count` apothecaries, as botbowl builds a team from a roster that has them
    (`Team.apothecaries`, copied into `TeamState.apothecaries`). Call it before anyone is hurt."""
    for team in game.state.teams:
        team.apothecaries = team.state.apothecaries = count
    return game


def action_key(action: Action) -> tuple:
    """An action as plain data (type, player id, square), to compare actions across objects."""
    return (action.action_type.name, action.player.player_id if action.player else "",
            (action.position.x, action.position.y) if action.position else ())


def tree_data(root: ActionNode) -> list:
    """Every ActionNode of a search tree as plain data (state hash, visits, value, its children's
    actions), to check that two searches built the same tree."""
    return [(node.key, node.visits, round(node.total_value, 9), [action_key(c.action) for c in node.children])
            for node in iter_action_nodes(root)]


def run_script(script: str, *args, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run `scripts/<script>.py` with this interpreter; its output is captured as text."""
    return subprocess.run([sys.executable, str(SCRIPTS / f"{script}.py"), *map(str, args)],
                          capture_output=True, text=True, timeout=timeout)


def game_snapshot(game: botbowl.Game) -> tuple:
    """What a search must leave as it found it: the forward-model step, the state, the reports, the
    available actions, the dice generator and the procedure stack."""
    return (game.get_step(), game.state.to_json(ignore_clocks=True), len(game.state.reports),
            [c.to_json() for c in game.state.available_actions], str(game.rng.get_state()),
            game.get_procedure_names())


def node_with(stats, opponent=False):
    """An ActionNode whose children have the given (visits, total_value), in that order."""
    node = ActionNode(key=0, actions=[], is_opponent=opponent, terminal=False)
    for visits, total in stats:
        child = ChanceNode(Action(ActionType.END_TURN), opponent)
        child.visits, child.total_value = visits, total
        node.children.append(child)
        node.actions.append(child.action)
    node.visits = sum(v for v, _ in stats)
    return node


def arranged_position(board_size: int, side: str, ours, theirs, ball=None, carrier=None, seed: int = 0):
    """A turn of the `side` team ("home" or "away") with only the listed players on the pitch.

    `ours` and `theirs` map a player's index in its team to a square given as (ahead, y): `ahead`
    counts squares from the acting team's target endzone (0 is in it), so the same arrangement
    serves home and away. `ball` is an (ahead, y) square for a loose ball; `carrier` the index of
    our player who holds it instead.
    """
    for offset in range(50):
        game = turn_position(board_size, seed=seed + offset)
        if game.active_team is (game.state.home_team if side == "home" else game.state.away_team):
            break
    else:
        pytest.fail(f"no {side} turn came up")
    team = game.active_team
    opp = game.get_opp_team(team)
    endzone = game.get_opp_endzone_x(team)
    step = 1 if endzone == 1 else -1

    def square(ahead, y):
        return game.get_square(endzone + step * ahead, y)

    game.clear_board()
    for roster, where in ((team, ours), (opp, theirs)):
        for index, (ahead, y) in where.items():
            player = roster.players[index]
            assert player in game.get_reserves(roster), "an arranged player must be fit to play"
            game.reserves_to_pitch(player, square(ahead, y))
            player.state.up, player.state.used, player.state.stunned = True, False, False
            player.state.moves = 0
    ball_piece = game.get_ball()
    if carrier is not None:
        ball_piece.move_to(team.players[carrier].position)
        ball_piece.is_carried, ball_piece.on_ground = True, True
    elif ball is not None:
        ball_piece.move_to(square(*ball))
        ball_piece.is_carried, ball_piece.on_ground = False, True
    game.set_available_actions()
    return game


def mirror_ready(game: botbowl.Game) -> botbowl.Game:
    """The same weather, re-rolls and turn whichever seed gave an arranged position, so that an
    arrangement played as home and as away is the same problem from both ends."""
    game.state.weather = WeatherType.NICE
    game.state.half = 1
    for team in game.state.teams:
        team.state.rerolls, team.state.reroll_used, team.state.turn = 2, False, 4
    return game


def mirror_arrangements(count: int, seed: int):
    """Random 11-player arrangements for `arranged_position`: (ours, theirs, ball, carrier), eight
    players a side, our carrier (player 0) or a loose ball."""
    rng = np.random.RandomState(seed)
    for _ in range(count):
        squares = [tuple(map(int, sq)) for sq in rng.permutation(
            [(a, y) for a in range(1, 25) for y in range(1, 16)])[:17]]
        ours, theirs = dict(enumerate(squares[:8])), dict(enumerate(squares[8:16]))
        yield ours, theirs, squares[16], 0 if rng.rand() < 0.5 else None


def as_seen(game: botbowl.Game, square) -> tuple:
    """A square as `arranged_position` takes it, (ahead, y) from the acting team's target endzone."""
    endzone = game.get_opp_endzone_x(game.active_team)
    return None if square is None else (abs(square.x - endzone), square.y)


def give_ball_to_opponent(game, index):
    """The opposing team's player `index` holds the ball."""
    carrier = game.get_opp_team(game.active_team).players[index]
    ball = game.get_ball()
    ball.move_to(carrier.position)
    ball.is_carried, ball.on_ground = True, True
    game.set_available_actions()
    return carrier


def play_out_turn(game: botbowl.Game, bot: botbowl.Agent, max_decisions: int = 200):
    """Let `bot` play the acting team's turn to its end on `game`; returns the actions it chose."""
    team = game.active_team
    bot.new_game(game, team)
    turn = team.state.turn
    chosen = []
    for _ in range(max_decisions):
        if game.state.game_over or game.state.current_team is not team or team.state.turn != turn \
                or game.active_team is not team:
            return chosen
        action = bot.act(game)
        assert allowed_by_botbowl(game, action), f"illegal {action}"
        chosen.append(action)
        actions.advance(game, action)
    pytest.fail("the turn did not end")


def allowed_by_botbowl(game: botbowl.Game, action: Action) -> bool:
    """Whether botbowl's own check (the one its game loop raises on) takes `action`: legality
    judged independently of the bot's `actions.is_available` (`matches.refused_by_botbowl`)."""
    return not refused_by_botbowl(game, action)


def hang(*args, **kwargs):
    """Stands in for a helper's work to make it hang (helpers are forked with the patch)."""
    time.sleep(600)


def die(*args, **kwargs):
    """Stands in for a helper's work to make it die."""
    os._exit(3)


def visits_consistent(root: ActionNode) -> bool:
    """Every action's visits are its outcomes' (no virtual visit left, nothing backed up twice)."""
    return all(child.visits == sum(o.visits for o in child.outcomes.values())
               for node in iter_action_nodes(root) for child in node.children)


def legality_checked(bot_class):
    """A subclass of the bot class whose every action is checked against botbowl's own test of the
    game's choices: `illegal` lists (procedure, action type) of each refused one, `decisions` counts."""
    class Checked(bot_class):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.illegal = []
            self.decisions = 0

        def act(self, game):
            action = super().act(game)
            self.decisions += 1
            if not game._is_action_allowed(copy.copy(action)):
                self.illegal.append((game.get_procedure_names()[-1], action.action_type.name))
            return action

    return Checked
