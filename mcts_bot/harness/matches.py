"""Playing one whole game between MCTS and an opponent, checked and summarised as a plain record.

Used by the evaluation, the soak test and the competition scripts. Everything that makes a game
what it is lives in `GameSpec`; the game's seed seeds botbowl's dice and both bots, so a game with an
iteration budget is the same game in any process.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import asdict, dataclass
from typing import Optional

import botbowl
from botbowl.core import Action

from mcts_bot.agent import MCTSBot, check_parallel
from mcts_bot.core.search import Budget
from mcts_bot.harness.bots import check_bot, make_bot, mcts_preset_of, with_models
from mcts_bot.harness.games import check_board_size, make_game
from mcts_bot.presets import PRESETS

SIDES = ("home", "away")


@dataclass(frozen=True)
class GameSpec:
    """One game: MCTS (`preset`, `rollouts`) on `side` against `opponent`, on a board, from a seed."""

    board: int
    side: str
    rollouts: bool
    seed: int
    preset: str = "default"
    opponent: str = "random"
    seconds: Optional[float] = None
    iterations: Optional[int] = None
    team: str = "human"
    competition: bool = False
    clock_scale: float = 1.0  # with competition: the clocks scaled (0.25: 30 s a turn), for shorter games
    spend_clock: bool = False  # MCTS under a clock takes the clock's share of the turn (`MCTSBot(spend_clock=...)`)
    search_workers: int = 1  # MCTS's searches per decision (`MCTSBot(workers=...)`); its opponent's is 1
    parallel: str = "root"  # how they share it (`MCTSBot(parallel=...)`)
    opponent_seconds: Optional[float] = None  # an MCTS opponent's own seconds per decision (default: `seconds`)
    policy: Optional[str] = None  # a learned policy's file (`knowledge.policy`): MCTS's priors instead of the preset's
    value: Optional[str] = None  # a learned value's file (`knowledge.value`): MCTS's leaf value instead of the preset's

    def __post_init__(self) -> None:
        check_board_size(self.board)
        if self.search_workers < 1:
            raise ValueError(f"search workers must be at least 1, got {self.search_workers}")
        if self.side not in SIDES:
            raise ValueError(f"unknown side {self.side!r}: choose home or away")
        if self.preset not in PRESETS:
            raise ValueError(f"unknown preset {self.preset!r}: choose one of {', '.join(sorted(PRESETS))}")
        check_parallel(self.parallel, PRESETS[self.preset], self.search_workers)  # before a game, not as a crash in one
        check_bot(self.opponent)
        Budget(seconds=self.seconds, iterations=self.iterations)  # validates the budget
        if not self.clock_scale > 0:
            raise ValueError(f"the clock scale must be greater than 0, got {self.clock_scale}")
        if not self.competition and (self.clock_scale != 1.0 or self.spend_clock):
            raise ValueError("a clock scale and spending the clock are for games under clocks: add --competition")
        if self.opponent_seconds is not None:
            if mcts_preset_of(self.opponent) is None:
                raise ValueError(f"an opponent budget is for MCTS opponents (mcts, mcts-<preset>), "
                                 f"not {self.opponent!r}: drop the opponent's seconds")
            Budget(seconds=self.opponent_seconds, iterations=self.iterations)
        with_models(self.preset, self.policy, self.value)  # the models' files and preset checked before any game

    @property
    def key(self) -> str:
        """Identifies the game in a results file (what is played, not how fast the machine is)."""
        return (f"{self.board}/{self.side}/{'rollouts' if self.rollouts else 'no-rollouts'}/{self.seed}/"
                f"{self.preset}/{self.opponent}/{self.seconds}/{self.iterations}/{self.team}/{self.competition}"
                + (f"/workers{self.search_workers}" if self.search_workers > 1 else "")
                + ("/tree" if self.search_workers > 1 and self.parallel == "tree" else "")
                + (f"/opponent-seconds{self.opponent_seconds}" if self.opponent_seconds is not None else "")
                + (f"/clock{self.clock_scale:g}" if self.clock_scale != 1.0 else "")
                + ("/spend-clock" if self.spend_clock else "")
                + (f"/policy={self.policy}" if self.policy is not None else "")
                + (f"/value={self.value}" if self.value is not None else ""))


def refused_by_botbowl(game: botbowl.Game, action: Action) -> bool:
    """Whether botbowl would refuse `action` now: its own check (its game loop raises on what it
    refuses), on a copy of the action, which it fills in with a missing player or square.
    Independent of the bot's own `actions.is_available`."""
    return not game._is_action_allowed(Action(action.action_type, position=action.position, player=action.player))


class CheckedAgent(botbowl.Agent):
    """Wraps a bot: counts its decisions, the actions it returns that the game does not allow, the
    exceptions it raises, and (with clocks) its returns after its clock ran out."""

    def __init__(self, bot: botbowl.Agent):
        super().__init__(bot.name)
        self.bot = bot
        self.decisions = 0
        self.illegal = 0
        self.exceptions = 0
        self.timeouts = 0
        self.min_seconds_left: Optional[float] = None

    def new_game(self, game, team):
        self.bot.new_game(game, team)

    def end_game(self, game):
        self.bot.end_game(game)

    def act(self, game) -> Action:
        team = game.active_team
        self.decisions += 1
        try:
            action = self.bot.act(game)
        except Exception:
            self.exceptions += 1
            raise
        self.illegal += refused_by_botbowl(game, action)
        clock = game.get_clock(team) if game.config.competition_mode and team is not None else None
        if clock is not None:
            left = clock.get_seconds_left()
            self.min_seconds_left = left if self.min_seconds_left is None else min(self.min_seconds_left, left)
            self.timeouts += clock.is_done()
        return action


def make_opponent(spec: GameSpec) -> botbowl.Agent:
    seconds = spec.seconds if spec.opponent_seconds is None else spec.opponent_seconds
    return make_bot(spec.opponent, seed=spec.seed + 1, seconds=seconds, iterations=spec.iterations)


def play_to_the_end(game: botbowl.Game) -> Optional[str]:
    """Play a game between two bots to its end (botbowl plays it all inside `init`); the traceback
    if it crashed or stopped early (recorded with the game, where the soak test counts it), else None."""
    try:
        game.init()
        if not game.state.game_over:
            raise RuntimeError("the game stopped before its end")
    except Exception:  # noqa: BLE001 - a crash is a result, not the end of the run
        return traceback.format_exc()
    return None


def play_side(bot: botbowl.Agent, opponent: botbowl.Agent, board: int, side: str, seed: int) -> str:
    """Play `bot` as `side` against `opponent` on a game seeded `seed` (its id `g<seed>`) to the end;
    a line that says how it went (the score from `bot`'s side, the seconds, a crash's last line)."""
    home, away = (bot, opponent) if side == "home" else (opponent, bot)
    game = make_game(board, home, away, seed=seed, game_id=f"g{seed}")
    start = time.time()
    crash = play_to_the_end(game)
    ours = game.state.home_team if side == "home" else game.state.away_team
    crashed = f", crashed: {crash.strip().splitlines()[-1]}" if crash else ""
    return f"game {seed} {side}: {ours.state.score}-{game.get_opp_team(ours).state.score}, " \
           f"{time.time() - start:.0f} s{crashed}"


def play_game(spec: GameSpec) -> dict:
    """Play the game and return its record (a JSON-ready dict); a crash is recorded, not raised."""
    mcts = CheckedAgent(MCTSBot("mcts", seconds=spec.seconds, iterations=spec.iterations,
                                preset=with_models(spec.preset, spec.policy, spec.value),
                                rollouts=spec.rollouts, seed=spec.seed, workers=spec.search_workers,
                                parallel=spec.parallel, spend_clock=spec.spend_clock))
    opponent = CheckedAgent(make_opponent(spec))
    home, away = (mcts, opponent) if spec.side == "home" else (opponent, mcts)
    game = make_game(spec.board, home, away, seed=spec.seed, competition=spec.competition,
                     clock_scale=spec.clock_scale, team=spec.team, game_id=spec.key)
    start = time.time()
    crash = play_to_the_end(game)
    seconds = time.time() - start
    mcts_team = game.state.home_team if spec.side == "home" else game.state.away_team
    opponent_team = game.get_opp_team(mcts_team)
    mine, theirs = mcts_team.state.score, opponent_team.state.score
    totals = mcts.bot.totals
    return {
        "key": spec.key,
        "spec": asdict(spec),
        "result": None if crash else ("win" if mine > theirs else "draw" if mine == theirs else "loss"),
        "score": [mine, theirs],
        "casualties_inflicted": len(game.get_casualties(opponent_team)),
        "casualties_suffered": len(game.get_casualties(mcts_team)),
        "decisions": totals.decisions,
        "searches": totals.searches,
        "mean_iterations": totals.mean_iterations,
        "opponent_mean_iterations": (opponent.bot.totals.mean_iterations if isinstance(opponent.bot, MCTSBot)
                                     else None),
        "overruled": totals.overruled,
        "search_errors": totals.errors,
        "safe_actions": totals.safe_actions,
        "illegal_actions": mcts.illegal,
        "opponent_illegal_actions": opponent.illegal,
        "exceptions": mcts.exceptions,
        "timeouts": mcts.timeouts,
        "min_seconds_left": mcts.min_seconds_left,
        "seconds": seconds,
        "crash": crash,
    }
