"""The knowledge's weights tuned by play: SPSA over `grod`'s weights, as chess engines tune theirs.

The default's knowledge on the Bot Bowl board is `grod`'s pricing (`knowledge/grod.py`): some fifty
hand-set weights (a turnover's base cost, a cage corner's worth, a screen's, a mark's...). Stockfish
tunes its evaluation's weights by SPSA (simultaneous perturbation stochastic approximation) over
millions of games; this does the same at a small scale. Each iteration draws a sign for every tuned
weight, and plays the knowledge alone (the `policy` bot: the default's priors' first choice, no
search, a few seconds a game) twice over the same games (seeds, sides, opponents): once with every
weight moved up or down by its sign (by a factor exp(c_k)), once moved the other way. The two differ
only by the weights (common random numbers), so their score difference is a gradient estimate along
the signs, and the weights (in log space) take a step along it:

    theta_{k+1} = theta_k + a_k * (score_plus - score_minus) / (2 c_k) * signs_k

with Spall's gains a_k = a / (k + 1 + A)^0.602 and c_k = c / (k + 1)^0.101, theta clipped to
[-MAX_LOG, MAX_LOG]. A weight is its shipped value times exp(theta).

Every game is written to OUT/games.jsonl as it ends. The weights of an iteration are a function of
the games before it (the signs come from the seed), so a run that stops resumes where it was, replaying
the file. The weights found are the mean of the iterates over the run's second half. `validate` then
plays them and the shipped ones on the same fresh games: the tuning's own scores favour them (each
step follows its own noise), fresh games do not.
"""
from __future__ import annotations

import json
import math
import zlib
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import botbowl
import numpy as np

from mcts_bot.harness import plots
from mcts_bot.harness.bots import check_bot, make_bot, mcts_preset_of
from mcts_bot.harness.evaluation import paired_difference, score_interval
from mcts_bot.harness.games import check_board_size, make_game
from mcts_bot.harness.matches import play_to_the_end
from mcts_bot.harness.parallel import ray_session
from mcts_bot.harness.records import play_missing, read_results
from mcts_bot.knowledge import grod

RESULTS_FILE = "games.jsonl"
WEIGHTS_FILE = "weights.json"
VALIDATION_FILE = "validation.jsonl"
SIDES = ("home", "away")
MAX_LOG = 1.5  # a weight stays within exp(+-1.5) of its shipped value: x0.22 to x4.5

# The weights tuned by default: what a coach would call the style (the costs of risk, the worth of
# squares and knock-downs), not the measured chances (the exposure's loss rates, GFI_PROB), the units
# (TD_VALUE), nor those the default's knowledge (`exposure=True`) leaves unread (BLITZ_LOSE, REACH_LOSE,
# CONTACT_LOSE). Fewer weights, less noise: SPSA's steps in weights that matter little are a random walk.
TUNABLE = (
    "TURNOVER_BASE", "LOOSE_BALL_COST", "DOWN_COST", "SIDELINE_LOSE", "CAGE_PROTECTION", "POTENTIAL_SUPPORT",
    "CAGE_CORNER", "CAGE_EDGE", "CLOSE_VALUE", "SCREEN_AHEAD", "RECEIVER_THREAT",
    "MARK_CARRIER", "SCREEN_DEFENCE", "SAFETY", "MARK_RECEIVER", "TAKEAWAY_VALUE",
    "KNOCKDOWN_VALUE", "TZ_EXPOSURE",
)


@dataclass(frozen=True)
class TuneSettings:
    """One tuning run: which weights, against whom, how many games an iteration, and the gains."""

    board: int = 11
    bot: str = "policy"  # the bot whose decisions the weights shape (it must plan with `grod`'s knowledge)
    opponents: Tuple[str, ...] = ("scripted", "grod")
    names: Tuple[str, ...] = TUNABLE
    games: int = 1  # games per opponent and side, for each of the two perturbations, an iteration
    iterations: int = 100
    base_seed: int = 0
    a: float = 0.05  # step gain
    c: float = 0.2  # perturbation, in log space (x1.22 at the start)
    stability: float = 10.0  # Spall's A, damping the first steps (fixed: a resumed run may add iterations)

    def __post_init__(self) -> None:
        check_board_size(self.board)
        check_bot(self.bot)
        if mcts_preset_of(self.bot) is not None:
            raise ValueError(f"a tuning plays thousands of games: tune the knowledge alone (--bot policy), not "
                             f"{self.bot}, and measure the weights found with search afterwards")
        if self.board != 11 and self.bot == "policy":
            raise ValueError("policy plans with grod's weights on the 11-player board only (the scripted "
                             "policy's on smaller ones): tune on --board 11, or tune --bot grod")
        for opponent in self.opponents:
            check_bot(opponent)
        if not self.opponents:
            raise ValueError("give at least one opponent")
        if not self.names:
            raise ValueError("give at least one weight to tune")
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"a weight is named twice in {', '.join(self.names)}")
        grod.check_weights({name: getattr(grod, name, None) for name in self.names})
        for name in self.names:
            if shipped_weight(name) <= 0:
                raise ValueError(f"{name} is {shipped_weight(name)} in grod.py: only positive weights are tuned "
                                 f"(in log space); leave it out of --names")
        if self.games < 1 or self.iterations < 1:
            raise ValueError("games and iterations must be at least 1")
        if self.a <= 0 or self.c <= 0 or self.stability < 0:
            raise ValueError("the gains a and c must be positive (and the stability A not negative)")

    def gains(self, k: int) -> Tuple[float, float]:
        """(a_k, c_k) of iteration k (from 0)."""
        return self.a / (k + 1 + self.stability) ** 0.602, self.c / (k + 1) ** 0.101

    def signs(self, k: int) -> np.ndarray:
        """Iteration k's perturbation signs, one per weight: a function of the base seed and k."""
        rng = np.random.RandomState(zlib.crc32(f"tune/{self.base_seed}/{k}".encode()) & 0x7FFFFFFF)
        return rng.choice([-1.0, 1.0], size=len(self.names))

    def seed(self, k: int, opponent: str, side: str, number: int) -> int:
        return zlib.crc32(f"tune/{self.base_seed}/{self.board}/{k}/{opponent}/{side}/{number}".encode()) & 0x7FFFFFFF


def shipped_weight(name: str) -> float:
    return getattr(grod, name)


def weights_of(names: Sequence[str], theta: np.ndarray) -> Dict[str, float]:
    """The weights at `theta` (log multipliers of the shipped values)."""
    return {name: shipped_weight(name) * math.exp(t) for name, t in zip(names, theta)}


@dataclass(frozen=True)
class TuneGame:
    """One game of a tuning run or its validation: `bot` with `weights` against `opponent`."""

    key: str
    board: int
    bot: str
    opponent: str
    side: str
    seed: int
    weights: Tuple[Tuple[str, float], ...]
    iteration: Optional[int] = None
    sign: Optional[int] = None  # +1 / -1: the perturbation; None in a validation
    arm: Optional[str] = None  # in a validation: "tuned" or "shipped"


class WeightedBot(botbowl.Agent):
    """`bot` deciding with `grod`'s weights set to `weights` (`grod.weights_set`), restored after each
    decision so that an opponent in the same process plays the shipped ones."""

    def __init__(self, bot: botbowl.Agent, weights: Dict[str, float]):
        super().__init__(bot.name)
        self.bot = bot
        self.weights = grod.check_weights(weights)

    def new_game(self, game: botbowl.Game, team: botbowl.Team) -> None:
        self.bot.new_game(game, team)

    def act(self, game: botbowl.Game):
        with grod.weights_set(self.weights):
            return self.bot.act(game)

    def end_game(self, game: botbowl.Game) -> None:
        self.bot.end_game(game)


def play_game(spec: TuneGame) -> dict:
    """Play the game; its record (JSON-ready), the score from the weighted bot's side. A crash is recorded."""
    bot = WeightedBot(make_bot(spec.bot, seed=spec.seed), dict(spec.weights))
    opponent = make_bot(spec.opponent, seed=spec.seed + 1)
    home, away = (bot, opponent) if spec.side == "home" else (opponent, bot)
    game = make_game(spec.board, home, away, seed=spec.seed, game_id=spec.key)
    crash = play_to_the_end(game)
    ours = game.state.home_team if spec.side == "home" else game.state.away_team
    mine, theirs = ours.state.score, game.get_opp_team(ours).state.score
    return {"key": spec.key, "spec": asdict(spec), "score": [mine, theirs], "crash": crash,
            "points": None if crash else 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0}


def iteration_games(settings: TuneSettings, k: int, theta: np.ndarray) -> List[TuneGame]:
    """Iteration k's games: every opponent, side and number, with theta + c_k signs and theta - c_k signs."""
    _, c_k = settings.gains(k)
    signs = settings.signs(k)
    games = []
    for sign in (+1, -1):
        weights = tuple(weights_of(settings.names, theta + sign * c_k * signs).items())
        for opponent in settings.opponents:
            for side in SIDES:
                for number in range(settings.games):
                    games.append(TuneGame(
                        key=f"tune/{settings.board}/{k}/{'+' if sign > 0 else '-'}/{opponent}/{side}/{number}",
                        board=settings.board, bot=settings.bot, opponent=opponent, side=side,
                        seed=settings.seed(k, opponent, side, number), weights=weights, iteration=k, sign=sign))
    return games


@dataclass
class Step:
    """One iteration's outcome: the weights it started from, its two scores and the step taken."""

    iteration: int
    theta: List[float]
    plus: float
    minus: float
    crashes: int = 0
    theta_after: List[float] = field(default_factory=list)


def step(settings: TuneSettings, k: int, theta: np.ndarray, records: Sequence[dict]) -> Step:
    """The SPSA step of iteration k from its games' records. A pair with a crashed game is left out, its
    twin with it (crashes are counted; the soak test hunts them); with every pair out, no step."""
    a_k, c_k = settings.gains(k)
    by_key = {record["key"]: record for record in records}
    plus, minus, crashes = [], [], 0
    for game in iteration_games(settings, k, theta):
        if game.sign < 0:
            continue
        twin = by_key[game.key.replace("/+/", "/-/")]
        mine = by_key[game.key]
        if mine["points"] is None or twin["points"] is None:
            crashes += 1
            continue
        plus.append(mine["points"])
        minus.append(twin["points"])
    y_plus = float(np.mean(plus)) if plus else 0.5
    y_minus = float(np.mean(minus)) if minus else 0.5
    after = np.clip(theta + a_k * (y_plus - y_minus) / (2 * c_k) * settings.signs(k), -MAX_LOG, MAX_LOG)
    return Step(k, theta.tolist(), y_plus, y_minus, crashes, after.tolist())


def run(settings: TuneSettings, out: Path, *, workers: int = 1, backend: str = "local",
        ray_address: Optional[str] = None, on_step: Optional[Callable[[Step], None]] = None) -> List[Step]:
    """Play the tuning's iterations (those already in OUT/games.jsonl are read, not played), writing each
    game as it ends and the weights found so far to OUT/weights.json after each iteration. Returns the steps."""
    out.mkdir(parents=True, exist_ok=True)
    check_settings_file(settings, out)
    path = out / RESULTS_FILE
    theta = np.zeros(len(settings.names))
    steps = []
    with ray_session(workers, ray_address) if backend == "ray" else nullcontext():
        for k in range(settings.iterations):
            games = iteration_games(settings, k, theta)
            records = play_missing(games, play_game, path, workers=workers, backend=backend,
                                   ray_address=ray_address, progress=False)
            done = step(settings, k, theta, records)
            theta = np.array(done.theta_after)
            steps.append(done)
            write_weights(settings, out, steps)
            if on_step is not None:
                on_step(done)
    return steps


def check_settings_file(settings: TuneSettings, out: Path) -> None:
    """OUT/settings.json holds the run's settings; a resumed run must have the same (but the iterations)."""
    path = out / "settings.json"
    mine = {key: value for key, value in asdict(settings).items() if key != "iterations"}
    mine = json.loads(json.dumps(mine))  # tuples as lists, as read back
    if path.exists():
        theirs = {key: value for key, value in json.loads(path.read_text()).items() if key != "iterations"}
        if theirs != mine:
            changed = sorted(key for key in mine.keys() | theirs.keys() if mine.get(key) != theirs.get(key))
            raise ValueError(f"{out} holds a tuning run with other settings ({', '.join(changed)}): "
                             f"give another --out, or the same settings to resume it")
    path.write_text(json.dumps(asdict(settings), indent=1) + "\n")


def averaged_theta(steps: Sequence[Step]) -> np.ndarray:
    """The weights the run found, in log space: the mean of the iterates over its second half (Polyak's
    averaging: the last iterate carries its last steps' noise, the mean of many cancels most of it)."""
    return np.mean([s.theta_after for s in steps[len(steps) // 2:]], axis=0)


def write_weights(settings: TuneSettings, out: Path, steps: Sequence[Step]) -> None:
    """OUT/weights.json: the weights found so far (`averaged_theta`), the shipped ones beside them."""
    theta = averaged_theta(steps)
    (out / WEIGHTS_FILE).write_text(json.dumps({
        "iterations": len(steps), "weights": weights_of(settings.names, theta),
        "shipped": {name: shipped_weight(name) for name in settings.names},
        "log_multipliers": dict(zip(settings.names, theta.tolist())),
    }, indent=1) + "\n")


def read_weights(path: Path) -> Dict[str, float]:
    """The `weights` of a tuning's weights.json; a clear error for a missing or foreign file."""
    try:
        data = json.loads(Path(path).read_text())
        return grod.check_weights(data["weights"])
    except FileNotFoundError:
        raise ValueError(f"no weights file {str(path)!r}: run scripts/run.sh tune first (it writes OUT/weights.json)") \
            from None
    except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
        raise ValueError(f"{str(path)!r} is not a tuning's weights.json (a JSON object with \"weights\")") from None


# ------------------------------------------------------------------------------------------ validation
def weights_digest(weights: Dict[str, float]) -> str:
    """A short name for a set of weights: a validation's games are keyed by it, so that validating the
    weights of a run that has since gone on plays new games instead of reading the old ones."""
    return f"{zlib.crc32(json.dumps(sorted(weights.items())).encode()):08x}"


def validation_games(settings: TuneSettings, weights: Dict[str, float], games: int, seed: int,
                     opponents: Optional[Sequence[str]] = None) -> List[TuneGame]:
    """The tuned weights and the shipped ones, each on the same `games` fresh games per opponent and side;
    against `opponents` (bot names), or the run's own pool when None."""
    shipped = {name: shipped_weight(name) for name in weights}
    digest = weights_digest(weights)
    opponents = settings.opponents if opponents is None else tuple(check_bot(o) for o in opponents)
    specs = []
    for arm, arm_weights in (("tuned", weights), ("shipped", shipped)):
        for opponent in opponents:
            for side in SIDES:
                for number in range(games):
                    game_seed = zlib.crc32(f"validate/{seed}/{settings.board}/{opponent}/{side}/{number}".encode()) \
                        & 0x7FFFFFFF
                    key = f"validate/{digest}/{seed}/{settings.board}/{arm}/{opponent}/{side}/{number}"
                    specs.append(TuneGame(key=key, board=settings.board, bot=settings.bot, opponent=opponent,
                                          side=side, seed=game_seed, weights=tuple(arm_weights.items()), arm=arm))
    return specs


def validate(settings: TuneSettings, weights: Dict[str, float], out: Path, games: int, seed: int, *,
             opponents: Optional[Sequence[str]] = None, workers: int = 1, backend: str = "local",
             ray_address: Optional[str] = None, progress: bool = True) -> List[dict]:
    """Play (or read, from OUT/validation.jsonl) the validation's games (`validation_games`); their records."""
    return play_missing(validation_games(settings, weights, games, seed, opponents), play_game, out / VALIDATION_FILE,
                        workers=workers, backend=backend, ray_address=ray_address, progress=progress)


def validation_records(out: Path, weights: Dict[str, float]) -> List[dict]:
    """The games in OUT/validation.jsonl that validated `weights` (with their shipped twins)."""
    prefix = f"validate/{weights_digest(weights)}/"
    return [r for r in read_results(out / VALIDATION_FILE) if r["key"].startswith(prefix)]


def validation_table(records: Sequence[dict]) -> str:
    """Markdown: each arm's score per opponent and side (W-D-L, 95% interval), and the paired difference."""
    lines = ["| Weights | Against | Side | Games | W-D-L | Score (95% CI) | TDs |", "|---|---|---|---:|---:|---:|---:|"]
    played = [r for r in records if r["points"] is not None]
    opponents = sorted({r["spec"]["opponent"] for r in played})
    groups = [(opponent, side) for opponent in opponents for side in SIDES + ("both",)] + [("all", "both")]
    for arm in ("tuned", "shipped"):
        for opponent, side in groups:
            rows = [r for r in played if r["spec"]["arm"] == arm and opponent in ("all", r["spec"]["opponent"])
                    and side in ("both", r["spec"]["side"])]
            if rows:
                lines.append(f"| {arm} | {opponent} | {side} | " + _score_cells(rows) + " |")
    lines.append("")
    lines.append(tuned_less_shipped(played))
    crashes = sum(r["points"] is None for r in records)
    if crashes:
        lines.append(f"{crashes} game(s) crashed, left out (and their twins with them from the difference).")
    return "\n".join(lines) + "\n"


def _score_cells(rows: Sequence[dict]) -> str:
    n = len(rows)
    wins = sum(r["points"] == 1.0 for r in rows)
    draws = sum(r["points"] == 0.5 for r in rows)
    score, low, high = score_interval(wins, draws, n)
    tds_for = sum(r["score"][0] for r in rows)
    tds_against = sum(r["score"][1] for r in rows)
    return f"{n} | {wins}-{draws}-{n - wins - draws} | {score:.1%} ({low:.0%}-{high:.0%}) | {tds_for}-{tds_against}"


def tuned_less_shipped(records: Sequence[dict]) -> str:
    """The tuned arm's score less the shipped arm's, game by game on the same seeds, with a 95% interval."""
    by_key = {r["key"]: r for r in records}
    differences = []
    for record in records:
        if record["spec"]["arm"] != "tuned":
            continue
        twin = by_key.get(record["key"].replace("/tuned/", "/shipped/"))
        if twin is not None:
            differences.append(record["points"] - twin["points"])
    return paired_difference(differences, "Tuned", "shipped")


def trajectory_plot(settings: TuneSettings, steps: Sequence[Step], path: Path, top: int = 8) -> Path:
    """The log multipliers of the `top` weights that moved most, and each iteration's two scores, by iteration."""
    from matplotlib.ticker import FuncFormatter

    theta = np.array([s.theta_after for s in steps])
    moved = np.argsort(-np.abs(theta[-1]))[:top]
    fig, (ax, bx) = plots.figure((8, 7), nrows=2, sharex=True, gridspec_kw={"height_ratios": [2, 1]})
    iterations = np.arange(1, len(steps) + 1)
    for i in moved:
        ax.plot(iterations, np.exp(theta[:, i]), label=settings.names[i])
    ax.axhline(1.0, color="grey", lw=0.8)
    ax.set_yscale("log")
    times = FuncFormatter(lambda value, _: f"x{value:.2g}")
    ax.yaxis.set_major_formatter(times)
    ax.yaxis.set_minor_formatter(times)
    ax.set_ylabel("weight / shipped weight")
    ax.legend(fontsize=8, ncol=2)
    ax.set_title(f"SPSA on grod's weights, {settings.bot} against {', '.join(settings.opponents)}, "
                 f"{settings.board} players")
    window = max(1, len(steps) // 10)
    mean = np.convolve([(s.plus + s.minus) / 2 for s in steps], np.ones(window) / window, mode="valid")
    bx.plot(iterations[window - 1:], mean, color="black")
    bx.set_ylabel(f"score ({window}-iteration mean)")
    bx.set_xlabel("iteration")
    return plots.save(fig, path)


def read_steps(settings: TuneSettings, out: Path) -> List[Step]:
    """The steps of the iterations whose games are all in OUT/games.jsonl (a report plays nothing)."""
    records = read_results(out / RESULTS_FILE)
    by_key = {record["key"]: record for record in records}
    theta = np.zeros(len(settings.names))
    steps = []
    for k in range(settings.iterations):
        games = iteration_games(settings, k, theta)
        if any(game.key not in by_key for game in games):
            break
        done = step(settings, k, theta, [by_key[game.key] for game in games])
        theta = np.array(done.theta_after)
        steps.append(done)
    return steps
