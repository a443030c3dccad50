"""Self-play data for a learned policy and value: every searched decision, with what the search found.

A game is played by MCTS against `opponent` (another MCTS of any preset, `scripted`, `grod`...; both
sides record when both search), each searching side with a learned policy as its priors when
`policy` names one (generation N's games, for generation N + 1). With `deep_iterations`, each
searching side plays KataGo's playout cap randomisation (Wu 2019, `PlayoutCapBot`): a random
`deep_share` of its decisions searched at `deep_iterations`, the rest at `iterations`. Only deep
searches are policy targets then (`load`): a fast search's visits mostly repeat its priors
(docs/learning.md), while the positions still come from the bot's own play at its own budget.
Each decision a search made is one record:

- `state`: the state's value features (`knowledge.features`) from the deciding team's view;
- its root's children, as rows of a flat table sliced by `offsets` (decision i owns rows
  `offsets[i]:offsets[i + 1]`): `action_x` (`knowledge.policy.action_features` of each child's
  action, on the game's own players), `action_type` (botbowl's `ActionType` value), `visits`, `prior`
  (what the search started from) and `q` (the child's mean value for the deciding team; 0.5 when
  unvisited);
- `root_value` (the root's mean value), `root_spread` (the spread of its values, which the final
  choice's confidence bound reads; from format 3), `chosen` (the row of the action played, within the decision),
  `home` (the deciding team is home), `half`, `score` (home, away before the decision), `deep`
  (searched at the deep budget; format 2 on, all False without playout caps);
- once the game is over, `result` (1 win, 0.5 draw, 0 loss for the deciding team) and `next_td`
  (1 if the deciding team scores the half's next touchdown, 0 if the other does, 0.5 if nobody).

From format 3 a game can be replayed (`replay`, `refeaturize`, `scripts/run.sh refeaturize`), so
that features added later are computed on games already played, and turned into the learned
value's data (`value_data`, `refeaturize --value`): `board`, `bot`, `opponent` and
`seed` (the game's), every action either side played in order (`move_type`, `move_player`: "h" or
"a" and the player's place in its team, or "", `move_xy`: its square or (-1, -1)), each decision's
`move` (its index there) and `by_opponent` (recorded by the opponent's search), and each child's
`child_player` and `child_xy` as for the moves. botbowl's dice come from the game's own generator,
which only the moves played advance (the searches roll on copies).

The action features mark the choice the deciding bot's preset plans with (`presets.planning_choice`:
`grod`'s on 11 players for the default), as its priors did. A game's records go to `OUT/<key>.npz`
as soon as it ends (written atomically), so the same command run again plays only the games not yet
there. `load` reads folders back as one `PolicyData`. `trace --record` writes its games in this
format too (`bot` its bot A, `opponent` its bot B, each recording when it searches).
"""
from __future__ import annotations

import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence, Union

import botbowl
import numpy as np
from botbowl.core import Action, ActionType
from botbowl.core.game import InvalidActionError

from mcts_bot.adapter.actions import localize, same_action
from mcts_bot.adapter.boards import BOT_BOWL_PLAYERS
from mcts_bot.agent import DecisionHook, MCTSBot
from mcts_bot.core.nodes import spread
from mcts_bot.core.search import Budget
from mcts_bot.harness.bots import check_bot, label, make_bot, mcts_preset_of, with_models
from mcts_bot.harness.collect import next_touchdowns, saved_games, value_record, value_row
from mcts_bot.harness.games import check_board_size, make_game
from mcts_bot.knowledge.features import NUM_FEATURES, features
from mcts_bot.knowledge.policy import NUM_ACTION_FEATURES, PLAN_COLUMNS, action_features
from mcts_bot.presets import BOARD_FINAL_CHOICE, configure, planning_choice

FORMAT_VERSION = 3  # 2: `deep`, `action_type`, the preset's own choice; 3: the moves, to replay the game
READABLE_VERSIONS = (2, 3)  # `load` reads both; `refeaturize` needs 3


@dataclass(frozen=True)
class SelfPlaySpec:
    """One game to play and record."""

    board: int
    bot: str  # the MCTS bot that records: "mcts" or "mcts-<preset>"
    opponent: str
    seed: int
    iterations: int
    policy: Optional[str] = None  # a learned policy's file: the priors of every searching side (a generation)
    value: Optional[str] = None  # a learned value's file: the leaf value of every searching side
    deep_iterations: Optional[int] = None  # playout caps: this budget at a `deep_share` of decisions
    deep_share: float = 0.25

    def __post_init__(self) -> None:
        check_board_size(self.board)
        if self.deep_iterations is not None and not self.deep_iterations > self.iterations:
            raise ValueError(f"deep iterations ({self.deep_iterations}) must be more than the fast budget "
                             f"({self.iterations}): playout caps search a share of decisions deeper")
        if not 0 < self.deep_share <= 1:
            raise ValueError(f"the deep share must be in (0, 1], got {self.deep_share}")
        if mcts_preset_of(check_bot(self.bot)) is None:
            raise ValueError(f"self-play records an MCTS bot's searches: {self.bot!r} is not one (use mcts or mcts-<preset>)")
        check_bot(self.opponent)
        if self.iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {self.iterations}")
        for name in (self.bot, self.opponent):  # the models' files and presets checked before any game
            if mcts_preset_of(name) is not None:
                with_models(mcts_preset_of(name), self.policy, self.value)

    @property
    def key(self) -> str:
        policy = f"-policy-{Path(self.policy).stem}" if self.policy is not None else ""
        value = f"-value-{Path(self.value).stem}" if self.value is not None else ""
        deep = f"-deep{self.deep_iterations}x{self.deep_share:g}" if self.deep_iterations is not None else ""
        # The bots by `label`: an opponent `policy:path/to/gen1.npz` or `path/to/bot.py:Class` names no folder.
        return (f"{self.board}p-{label(self.bot)}-vs-{label(self.opponent)}-seed{self.seed}-{self.iterations}it"
                f"{deep}{policy}{value}")


def specs(board: int, bot: str, opponent: Union[str, Sequence[str]], games: int, iterations: int,
          base_seed: int = 0, policy: Optional[str] = None, value: Optional[str] = None,
          deep_iterations: Optional[int] = None, deep_share: float = 0.25) -> List[SelfPlaySpec]:
    """`games` games, about half with the bot at home; each seeded from the base seed and its number.
    Several opponents make a pool (itself, `scripted`, an earlier generation alone as
    `policy:FILE.npz`...): game i is played against opponent i modulo their number."""
    pool = [opponent] if isinstance(opponent, str) else list(opponent)
    if not pool:
        raise ValueError("give at least one opponent")
    return [SelfPlaySpec(board=board, bot=bot, opponent=pool[i % len(pool)], iterations=iterations, policy=policy, value=value,
                         deep_iterations=deep_iterations, deep_share=deep_share,
                         seed=zlib.crc32(f"selfplay/{base_seed}/{board}/{bot}/{pool[i % len(pool)]}/{i}".encode())
                         & 0x7FFFFFFF)
            for i in range(games)]


class PlayoutCapBot(MCTSBot):
    """MCTS with KataGo's playout cap randomisation: each decision, with chance `share`, a deep search
    of `deep` iterations, else a fast one of `fast`. The draws have a generator of their own, so the
    searches' dice are a plain bot's; `deep_decision` tells the last decision's kind."""

    def __init__(self, name: str, *, fast: int, deep: int, share: float, seed: int, **kwargs) -> None:
        super().__init__(name, seconds=None, iterations=fast, seed=seed, **kwargs)
        self.fast, self.deep, self.share = fast, deep, share
        self._caps = np.random.RandomState((seed * 7919 + 17) & 0x7FFFFFFF)
        self.deep_decision = False

    def act(self, game: botbowl.Game) -> Action:
        self.deep_decision = bool(self._caps.random_sample() < self.share)
        self.budget = Budget(iterations=self.deep if self.deep_decision else self.fast)
        return super().act(game)


def _player_ref(game: botbowl.Game, player: Optional[botbowl.Player]) -> str:
    """A player as a replay finds it again: "h" or "a" and its place in its team (botbowl's player ids
    are drawn anew in each process), "" for none."""
    if player is None:
        return ""
    home = game.state.home_team
    team = home if player.team.team_id == home.team_id else game.state.away_team
    return ("h" if team is home else "a") + str(next(i for i, p in enumerate(team.players) if p.player_id == player.player_id))


def player_of(game: botbowl.Game, ref: str) -> Optional[botbowl.Player]:
    """The player a recorded reference names in `game` (`_player_ref`'s inverse), None for ""."""
    if not ref:
        return None
    team = game.state.home_team if ref[0] == "h" else game.state.away_team
    return team.players[int(ref[1:])]


def _refs(game: botbowl.Game, actions: Sequence[Action]) -> tuple:
    """The `*_player` and `*_xy` columns of `actions` (see the module doc)."""
    players = np.array([_player_ref(game, a.player) for a in actions], dtype=str)
    xy = np.array([(a.position.x, a.position.y) if a.position is not None else (-1, -1) for a in actions],
                  dtype=np.int16).reshape(len(actions), 2)
    return players, xy


def recorded_action(game: botbowl.Game, action_type: int, player: str, xy) -> Action:
    """A recorded action on `game`'s own player and square."""
    return Action(ActionType(int(action_type)), position=game.get_square(int(xy[0]), int(xy[1])) if xy[0] >= 0 else None,
                  player=player_of(game, str(player)))


class MoveLog:
    """Every action the agents it wraps return, in the order of play: with the game's seed, the game."""

    def __init__(self) -> None:
        self.types: List[int] = []
        self.players: List[str] = []
        self.squares: List[tuple] = []

    def __len__(self) -> int:
        return len(self.types)

    def wrap(self, agent: botbowl.Agent) -> None:
        """Log what `agent` plays (on the instance: the game and the agent keep seeing the agent itself)."""
        act = agent.act

        def logged(game: botbowl.Game) -> Action:
            action = act(game)
            self.types.append(action.action_type.value)
            self.players.append(_player_ref(game, action.player))
            self.squares.append((action.position.x, action.position.y) if action.position is not None else (-1, -1))
            return action

        agent.act = logged

    def arrays(self) -> dict:
        return dict(move_type=np.array(self.types, np.int16), move_player=np.array(self.players, dtype=str),
                    move_xy=np.array(self.squares, np.int16).reshape(len(self), 2))


class DecisionRecorder:
    """Keeps each searched decision's record (see the module doc), of every bot it hooks, in the order
    of play; `log`: the game's moves, to note where in them each decision falls."""

    def __init__(self, log: Optional[MoveLog] = None) -> None:
        self.rows: list = []
        self.log = log

    def hook(self, bot: MCTSBot, by_opponent: bool = False) -> DecisionHook:
        """The `on_decision` hook that records `bot`'s searches."""
        return lambda game, result, action: self.record(bot, game, result, action, by_opponent)

    def record(self, bot: MCTSBot, game: botbowl.Game, result, action: Action, by_opponent: bool = False) -> None:
        team = game.active_team
        children = result.root.children
        if team is None or not children:
            return
        # The tree's actions point at the search copy's players: the features read the game's own.
        actions = [localize(game, Action(c.action.action_type, c.action.position, c.action.player)) for c in children]
        chosen = next((i for i, c in enumerate(children) if same_action(c.action, action)), -1)
        home = game.state.home_team
        child_player, child_xy = _refs(game, actions)
        self.rows.append(dict(
            state=features(game, team), action_x=action_features(game, actions, planning_choice(bot.preset)),
            action_type=np.array([a.action_type.value for a in actions], dtype=np.int16),
            child_player=child_player, child_xy=child_xy,
            move=len(self.log) if self.log is not None else -1, by_opponent=by_opponent,
            visits=np.array([c.visits for c in children], dtype=np.int32),
            prior=np.array([c.prior if c.prior is not None else np.nan for c in children]),
            q=np.array([c.value if c.visits else 0.5 for c in children]),
            root_value=result.root.value, root_spread=spread(result.root), chosen=chosen, home=team.team_id == home.team_id,
            half=game.state.half, score=(home.state.score, game.state.away_team.state.score),
            deep=bool(getattr(bot, "deep_decision", False))))


def play_game(spec: SelfPlaySpec) -> dict:
    """Play one game and return its records as arrays (the module doc lists them) and its key.
    The bot plays at home in games of even seed."""
    log = MoveLog()
    recorder = DecisionRecorder(log)  # one for both sides, so that its records are in the order of play
    agents = []
    for name, seed in ((spec.bot, spec.seed + 1), (spec.opponent, spec.seed + 2)):
        preset = mcts_preset_of(name)
        if preset is None:
            agents.append(make_bot(name, seed=seed, seconds=None))
            log.wrap(agents[-1])
            continue
        preset = with_models(preset, spec.policy, spec.value)
        if spec.deep_iterations is not None:
            agent = PlayoutCapBot(name, fast=spec.iterations, deep=spec.deep_iterations, share=spec.deep_share,
                                  seed=seed, preset=preset)
        else:
            agent = MCTSBot(name, seconds=None, iterations=spec.iterations, seed=seed, preset=preset)
        agent.on_decision = recorder.hook(agent, by_opponent=len(agents) == 1)
        log.wrap(agent)
        agents.append(agent)
    home, away = agents if spec.seed % 2 == 0 else agents[::-1]
    game = make_game(spec.board, home, away, seed=spec.seed, game_id=spec.key)
    game.init()
    return game_record(spec.key, recorder, game, bot=spec.bot, opponent=spec.opponent, seed=spec.seed,
                       board=spec.board)


def game_record(key: str, recorder: DecisionRecorder, game: botbowl.Game, *, bot: str, opponent: str, seed: int,
                board: int) -> dict:
    """The file of a finished game whose searches `recorder` kept (its `log` the game's moves): the
    arrays the module doc lists. `bot` and `opponent` are the names the game was played with, `bot`'s
    searches recorded with `by_opponent` False."""
    record = _arrays(key, recorder.rows, game)
    record.update(bot=np.array(bot), opponent=np.array(opponent), seed=np.array(seed), board=np.array(board),
                  **recorder.log.arrays())
    return record


def _arrays(key: str, rows: list, game: botbowl.Game) -> dict:
    final = (game.state.home_team.state.score, game.state.away_team.state.score)
    home_result = 1.0 if final[0] > final[1] else 0.0 if final[0] < final[1] else 0.5
    n = len(rows)
    sizes = np.array([len(row["visits"]) for row in rows], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    home = np.array([row["home"] for row in rows], dtype=bool)
    halves = np.array([row["half"] for row in rows], dtype=np.int32).reshape(n)
    scores = np.array([row["score"] for row in rows], dtype=np.int32).reshape(n, 2)
    next_home = next_touchdowns(halves, scores, final) if n else np.zeros(0)
    return dict(
        key=key, version=np.array(FORMAT_VERSION),
        state=np.array([row["state"] for row in rows]).reshape(n, NUM_FEATURES),
        action_x=np.concatenate([row["action_x"] for row in rows]) if n else np.zeros((0, NUM_ACTION_FEATURES)),
        action_type=np.concatenate([row["action_type"] for row in rows]) if n else np.zeros(0, np.int16),
        child_player=np.concatenate([row["child_player"] for row in rows]) if n else np.zeros(0, str),
        child_xy=np.concatenate([row["child_xy"] for row in rows]) if n else np.zeros((0, 2), np.int16),
        move=np.array([row["move"] for row in rows], dtype=np.int64).reshape(n),
        by_opponent=np.array([row["by_opponent"] for row in rows], dtype=bool).reshape(n),
        visits=np.concatenate([row["visits"] for row in rows]) if n else np.zeros(0, np.int32),
        prior=np.concatenate([row["prior"] for row in rows]) if n else np.zeros(0),
        q=np.concatenate([row["q"] for row in rows]) if n else np.zeros(0),
        offsets=offsets, root_value=np.array([row["root_value"] for row in rows]),
        root_spread=np.array([row["root_spread"] for row in rows]).reshape(n),
        chosen=np.array([row["chosen"] for row in rows], dtype=np.int32), home=home, half=halves, score=scores,
        deep=np.array([row["deep"] for row in rows], dtype=bool).reshape(n),
        result=np.where(home, home_result, 1.0 - home_result),
        next_td=np.where(home, next_home, 1.0 - next_home),
        final=np.array(final))


class _Replayer(botbowl.Agent):
    """One side of a recorded game played back: both sides share the cursor into its moves."""

    def __init__(self, name: str, moves: list, cursor: List[int], visit: Callable[[int, botbowl.Game], None]) -> None:
        super().__init__(name)
        self.moves, self.cursor, self.visit = moves, cursor, visit

    def new_game(self, game: botbowl.Game, team: botbowl.Team) -> None:
        pass

    def act(self, game: botbowl.Game) -> Action:
        i = self.cursor[0]
        if i >= len(self.moves):
            raise ValueError(f"the replay asked for move {i + 1} of a game of {len(self.moves)}: it diverged")
        self.cursor[0] += 1
        self.visit(i, game)
        return recorded_action(game, *self.moves[i])

    def end_game(self, game: botbowl.Game) -> None:
        pass


DecisionVisit = Callable[[int, botbowl.Game, List[Action]], None]  # (decision, game at it, its root's actions)


def replay(data, visit: DecisionVisit) -> None:
    """Play a recorded game (format 3: `np.load` of its file) from its seed and moves, calling `visit`
    at each recorded decision with the game there and the root's actions on its players. Raises when
    the replay leaves the record: a root action botbowl does not offer, or another final score."""
    decisions = {int(move): i for i, move in enumerate(data["move"])}
    offsets, types, players, squares = data["offsets"], data["action_type"], data["child_player"], data["child_xy"]

    def at_move(i: int, game: botbowl.Game) -> None:
        decision = decisions.get(i)
        if decision is None:
            return
        rows = range(offsets[decision], offsets[decision + 1])
        actions = [recorded_action(game, types[r], players[r], squares[r]) for r in rows]
        if not all(game._is_action_allowed(a) for a in actions):
            raise ValueError(f"the replay left the record at decision {decision}: botbowl does not offer its actions")
        visit(decision, game, actions)

    replay_moves(data, at_move)


def replay_moves(data, at_move: Callable[[int, botbowl.Game], None]) -> None:
    """Play a recorded game (format 3) from its seed and moves, calling `at_move(i, game)` before its
    move i is played, at every move of either side. Raises when the replay leaves the record."""
    if int(data["version"]) < 3:
        raise ValueError(f"a game recorded in format {int(data['version'])} keeps no moves to replay: record it again")
    moves = list(zip(data["move_type"], data["move_player"], data["move_xy"]))
    cursor = [0]
    game = make_game(int(data["board"]), _Replayer("home", moves, cursor, at_move),
                     _Replayer("away", moves, cursor, at_move), seed=int(data["seed"]), game_id=str(data["key"]))
    try:
        game.init()
    except InvalidActionError as exc:
        raise ValueError(f"the replay left the record at move {cursor[0]}: botbowl refused it ({exc})") from exc
    final = (game.state.home_team.state.score, game.state.away_team.state.score)
    if cursor[0] != len(moves) or final != tuple(data["final"]):
        raise ValueError(f"the replay left the record: {cursor[0]} of {len(moves)} moves, score {final} "
                         f"where {tuple(data['final'])} was recorded")


def read_game(path: Path) -> dict:
    """A recorded game's arrays, read into memory, with its `key` (the file's name) as `replay` needs it."""
    with np.load(path) as data:
        record = {k: data[k] for k in data.files}
    record["key"] = Path(path).stem
    return record


def value_data(path: Path) -> dict:
    """A recorded game (format 3) replayed into the learned value's data (`collect`'s format: every
    decision of either side, both teams' views, the targets), for `train_value --data`/`--more-data`:
    the search's own games as value data."""
    record = read_game(path)
    rows: list = []
    replay_moves(record, lambda i, game: rows.append(value_row(game)))
    return value_record(record["key"], rows, *(int(score) for score in record["final"]))


def refeaturize(path: Path) -> dict:
    """A recorded game (format 3) with each root action's features computed again by this version's
    `action_features`, by replaying it: features added after the game was played."""
    record = read_game(path)
    rows = np.split(np.arange(len(record["action_type"])), record["offsets"][1:-1])
    choices = {side: planning_choice(configure(mcts_preset_of(str(record[side])))) for side in ("bot", "opponent")
               if mcts_preset_of(str(record[side])) is not None}
    x = np.zeros((len(record["action_type"]), NUM_ACTION_FEATURES))

    def visit(decision: int, game: botbowl.Game, actions: List[Action]) -> None:
        side = "opponent" if record["by_opponent"][decision] else "bot"
        x[rows[decision]] = action_features(game, actions, choices[side])

    replay(record, visit)
    record["action_x"] = x
    return record


@dataclass
class PolicyData:
    """Decisions of many games for `fit_policy`: rows of action features, the search's visit shares
    as targets, offsets slicing them by decision, and each decision's game (for splits by game) and
    state features (for a policy with context)."""

    x: np.ndarray
    target: np.ndarray
    offsets: np.ndarray
    game: np.ndarray
    states: np.ndarray

    @property
    def decisions(self) -> int:
        return len(self.offsets) - 1

    def subset(self, games: Sequence[int]) -> "PolicyData":
        """The decisions of `games`."""
        return self.take(np.flatnonzero(np.isin(self.game, games)))

    def take(self, keep: Sequence[int]) -> "PolicyData":
        """The decisions numbered `keep`, in that order."""
        keep = np.asarray(keep, dtype=np.int64)
        rows = np.concatenate([np.arange(self.offsets[i], self.offsets[i + 1]) for i in keep]) if len(keep) \
            else np.zeros(0, np.int64)
        sizes = np.diff(self.offsets)[keep]
        return PolicyData(self.x[rows], self.target[rows], np.concatenate([[0], np.cumsum(sizes)]), self.game[keep],
                          self.states[keep])


TARGETS = {"visits": "visit shares", "improved": "improved policy", "margin": "margin's choice"}
MARGIN = BOARD_FINAL_CHOICE.bot_bowl.keywords["min_gain"]  # the Bot Bowl board's margin for an overrule


def improved_policy(prior: np.ndarray, q: np.ndarray, visits: np.ndarray, root_value: float,
                    c_visit: float = 50.0, c_scale: float = 0.1) -> np.ndarray:
    """Gumbel MuZero's improved policy (Danihelka et al. 2022): softmax(log prior + sigma(completed q)).

    Visit shares at a small budget mostly repeat the prior (PUCT spends its visits where the prior
    points); the improved policy moves the prior toward the children whose values were better. The
    completed q is each visited child's mean value and the root's value for the unvisited ones,
    rescaled to [0, 1] over the children; sigma(q) = (c_visit + max visits) * c_scale * q (mctx's
    defaults). A prior that is missing (a preset without priors) counts as uniform.
    """
    if not np.all(np.isfinite(prior)) or prior.sum() <= 0:
        prior = np.full(len(q), 1.0 / len(q))
    completed = np.where(visits > 0, q, root_value)
    span = completed.max() - completed.min()
    rescaled = (completed - completed.min()) / span if span > 1e-9 else np.zeros_like(completed)
    logits = np.log(np.maximum(prior, 1e-12)) + (c_visit + visits.max()) * c_scale * rescaled
    e = np.exp(logits - logits.max())
    return e / e.sum()


def margin_choice(prior: np.ndarray, q: np.ndarray, visits: np.ndarray, margin: float = MARGIN) -> np.ndarray:
    """One-hot on the prior's favourite, unless the most visited child's mean value beats the
    favourite's by `margin`: roughly what the default's final choice (`robust_child` with its
    `min_gain`) would play, without its confidence bound (the root's spread is not recorded). Most of
    a deep search's overrules on 11 players are by less (docs/learning.md): near-ties whose visit
    shares teach a policy noise."""
    favourite, best = int(np.argmax(prior)), int(np.argmax(visits))
    out = np.zeros(len(q))
    out[best if visits[favourite] == 0 or q[best] > q[favourite] + margin else favourite] = 1.0
    return out


def _action_x(path: Path, data) -> np.ndarray:
    """A game's action features as this version computes them: a game off the Bot Bowl board recorded
    before the `plan_*` features (which are 0 there) gets them as 0."""
    x = data["action_x"]
    board = int(data["board"]) if "board" in data.files else int(path.name.split("p-", 1)[0])
    if x.shape[1] == NUM_ACTION_FEATURES - len(PLAN_COLUMNS) and board < BOT_BOWL_PLAYERS:
        x = np.insert(x, [PLAN_COLUMNS[0]] * len(PLAN_COLUMNS), 0.0, axis=1)
    if int(data["version"]) not in READABLE_VERSIONS or x.shape[1] != NUM_ACTION_FEATURES:
        raise ValueError(f"{path} was recorded by another version (format {int(data['version'])}, "
                         f"{data['action_x'].shape[1]} action features): record it again, or, from "
                         f"format 3, compute them again (scripts/run.sh refeaturize FOLDER --out NEW)")
    return x


def load(folders: Sequence[Path], target: str = "visits") -> PolicyData:
    """Every recorded decision in `folders` with at least two actions and one visit (of a game played
    with playout caps, its deep ones only); the target per decision is its root's visit shares, with
    target="improved" the `improved_policy`, with target="margin" the `margin_choice`."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    xs, targets, sizes, games, states = [], [], [], [], []
    files = saved_games(folders)
    if not files:
        raise FileNotFoundError(f"no self-play games in {', '.join(map(str, folders))}: play some with scripts/run.sh selfplay")
    for number, path in enumerate(files):
        with np.load(path) as data:
            x = _action_x(path, data)
            offsets, visits = data["offsets"], data["visits"].astype(float)
            prior, q, root_value, deep = data["prior"], data["q"], data["root_value"], data["deep"]
            for i in range(len(offsets) - 1):
                a, b = offsets[i], offsets[i + 1]
                total = visits[a:b].sum()
                if b - a < 2 or total <= 0 or (deep.any() and not deep[i]):
                    continue
                xs.append(x[a:b])
                targets.append(visits[a:b] / total if target == "visits"
                               else improved_policy(prior[a:b], q[a:b], visits[a:b], float(root_value[i]))
                               if target == "improved" else margin_choice(prior[a:b], q[a:b], visits[a:b]))
                sizes.append(b - a)
                games.append(number)
                states.append(data["state"][i])
    if not sizes:
        raise ValueError(f"the games in {', '.join(map(str, folders))} hold no decision with a choice")
    return PolicyData(np.concatenate(xs), np.concatenate(targets), np.concatenate([[0], np.cumsum(sizes)]),
                      np.array(games), np.array(states))
