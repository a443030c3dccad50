"""Setting up botbowl games on the board sizes the project evaluates on: 1, 3, 5, 7 and 11 players."""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import List, Optional

import botbowl
import numpy as np

from mcts_bot.adapter.actions import step
from mcts_bot.core.policies import random_rollout_policy

BOARD_SIZES = (1, 3, 5, 7, 11)


def check_board_size(board_size: int) -> int:
    if board_size not in BOARD_SIZES:
        raise ValueError(f"unknown board size {board_size!r}: choose one of {', '.join(map(str, BOARD_SIZES))}")
    return board_size


def load_config(board_size: int, competition: bool = False, clock_scale: float = 1.0) -> botbowl.Configuration:
    """botbowl's configuration for the board: `gym-N` with pathfinding on, as in the seed's evaluation.

    With `competition`, the clocks and time limits of botbowl's Bot Bowl configuration (`bot-bowl`:
    120 s per turn, a short secondary clock for decisions in the opponent's turn) apply; on the
    11-player board that is the Bot Bowl configuration itself. `clock_scale` scales the turn and
    secondary clocks (0.25: 30 s a turn), to measure under clocks in shorter games.
    """
    check_board_size(board_size)
    if not clock_scale > 0:
        raise ValueError(f"the clock scale must be greater than 0, got {clock_scale}")
    if competition and board_size == 11:
        config = botbowl.load_config("bot-bowl")
    else:
        config = botbowl.load_config(f"gym-{board_size}")
        if competition:
            config.time_limits = botbowl.load_config("bot-bowl").time_limits
    if clock_scale != 1.0:
        config.time_limits.turn *= clock_scale
        config.time_limits.secondary *= clock_scale
    config.competition_mode = competition
    config.pathfinding_enabled = True
    config.pathfinding_directly_to_adjacent = True
    config.fast_mode = True
    config.debug_mode = False
    return config


def make_game(board_size: int, home_agent: botbowl.Agent, away_agent: botbowl.Agent, *, seed: Optional[int] = None,
              competition: bool = False, clock_scale: float = 1.0, team: str = "human",
              game_id: str = "game") -> botbowl.Game:
    """A new, not yet initialised game between two human-race teams (or `team`) on the board."""
    config = load_config(board_size, competition, clock_scale)
    ruleset = _ruleset(config.ruleset)
    home, away = _teams(team, board_size, config.ruleset)
    return botbowl.Game(game_id, home, away, home_agent, away_agent, config, arena=_arena(config.arena),
                        ruleset=ruleset, seed=seed)


# Loading parses data files; games deep-copy their teams, so one loaded copy can serve every game.
@lru_cache(maxsize=None)
def _ruleset(name: str):
    return botbowl.load_rule_set(name, all_rules=False)


@lru_cache(maxsize=None)
def _arena(name: str):
    return botbowl.load_arena(name)


@lru_cache(maxsize=None)
def _teams(team: str, board_size: int, ruleset_name: str):
    check_team(team, board_size)
    ruleset = _ruleset(ruleset_name)
    return (botbowl.load_team_by_filename(team, ruleset, board_size=board_size),
            botbowl.load_team_by_filename(team, ruleset, board_size=board_size))


def available_teams(board_size: int) -> List[str]:
    """The team files botbowl ships for a board size (only "human" for the small boards)."""
    folder = Path(botbowl.core.util.get_data_path("teams")) / str(check_board_size(board_size))
    return sorted(path.stem for path in folder.glob("*.json"))


def check_team(team: str, board_size: int) -> str:
    teams = available_teams(board_size)
    if team not in teams:
        raise ValueError(f"unknown team {team!r} for the {board_size}-player board: choose one of {', '.join(teams)}")
    return team


def random_position(board_size: int, *, seed: int, steps: int) -> botbowl.Game:
    """A reproducible game position, advanced by `steps` random actions (fewer if the game ends
    first), all drawn from `seed`.

    The game is driven from outside with `actions.step`, but its agents count as bots, so botbowl
    offers the choices it offers bots (no UNDO, re-rolls before block dice) as in a real bot game.
    """
    if steps < 0:
        raise ValueError(f"steps must be 0 or more, got {steps}")
    game = make_game(board_size, botbowl.Agent("home", human=True), botbowl.Agent("away", human=True), seed=seed)
    game.init()  # with human agents, init() waits for START_GAME instead of playing the game itself
    game.home_agent.human = game.away_agent.human = False
    rng = np.random.RandomState(seed)
    for _ in range(steps):
        if game.state.game_over:
            break
        step(game, random_rollout_policy(game, rng))
    return game
