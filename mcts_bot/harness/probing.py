"""What the experiment probes of docs/probes/ share: the default's 11-player knowledge as a bot that
logs its own turns, games played with their records rewritten as each one ends (an interrupted
probe keeps what it had), and a game of the MCTS bot with a hook after each search."""
import argparse
import json
from pathlib import Path
from typing import Callable, List, Optional, Tuple

import botbowl
from botbowl.core.procedure import Turn

from mcts_bot.agent import MCTSBot
from mcts_bot.harness.bots import make_bot
from mcts_bot.harness.collect import saved_games
from mcts_bot.harness.games import make_game
from mcts_bot.harness.matches import play_side, play_to_the_end
from mcts_bot.knowledge.grod import GrodBot


class TurnLog(GrodBot):
    """The default's 11-player knowledge with no search (`GrodBot(exposure=True, own_frame=True)`),
    opening a record at the first decision of each of its turns and closing it at its first decision
    in a later turn, or at the game's end. Subclasses say what to record: `open_turn` returns the record or None
    (the turn is not logged), `record` sees each action played in an open turn, `close_turn` finishes
    the record before it is appended to `records`."""

    def __init__(self, records: List[dict], seed: Optional[int] = None):
        super().__init__("own-frame-grod", seed, exposure=True, own_frame=True)
        self.records, self.open, self.seen = records, None, None

    def open_turn(self, game: botbowl.Game, turn: List[int]) -> Optional[dict]:
        raise NotImplementedError

    def record(self, game: botbowl.Game, action: botbowl.Action) -> None:
        pass

    def close_turn(self, game: botbowl.Game, record: dict) -> None:
        pass

    def new_game(self, game, team):
        super().new_game(game, team)
        self.open, self.seen = None, None

    def end_game(self, game):
        self._close(game)
        super().end_game(game)

    def act(self, game):
        turn = [game.state.half, self.team.state.turn]
        if self.open is not None and self.open["turn"] != turn:
            self._close(game)
        if isinstance(game.get_procedure(), Turn) and game.active_team == self.team and self.seen != turn:
            self.seen = turn  # judged at the turn's first decision only: later ones follow our own moves
            self.open = self.open_turn(game, turn)
        action = super().act(game)
        if self.open is not None:
            self.record(game, action)
        return action

    def _close(self, game) -> None:
        if self.open is not None:
            self.close_turn(game, self.open)
            self.records.append(self.open)
            self.open = None


def play_logged(logged: Callable[[List[dict], int], botbowl.Agent], opponent: str, board: int,
                side: Callable[[int], str], seed: int, games: int, out: Optional[str]) -> List[dict]:
    """Play `games` games of `logged(records, i)` against the bot named `opponent`, game i (from 0)
    seeded `seed + i` as `side(i)`, the opponent seeded `seed + i + 1`; print each result and rewrite
    `out` (JSON lines) with all records so far as each game ends. The records, in order."""
    records: List[dict] = []
    for i in range(games):
        bot = logged(records, i)
        print(play_side(bot, make_bot(opponent, seed=seed + i + 1), board, side(i), seed + i), flush=True)
        if out is not None:
            with open(out, "w") as f:
                f.writelines(json.dumps(record) + "\n" for record in records)
    return records


def run_turn_probe(doc: str, play: Callable[[str, str, int, int, Optional[str]], List[dict]]) -> List[dict]:
    """A turn probe's command line (`--opponent --side --seed --games --out`, its docstring's first
    paragraph as the help) and `play(opponent, side, seed, games, out)`'s records."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--opponent", default="scripted")
    parser.add_argument("--side", default="home", choices=["home", "away"])
    parser.add_argument("--seed", type=int, default=13000)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--out", help="a JSON-lines file for the turns")
    args = parser.parse_args()
    return play(args.opponent, args.side, args.seed, args.games, args.out)


def recorded_games(doc: str) -> List[Path]:
    """A probe of recorded games' command line (folders written by `trace --record`, `doc` as the
    help): their games' files, or a clear error where there are none."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", type=Path, nargs="+", help="folders of recorded games (trace --record)")
    args = parser.parse_args()
    paths = saved_games(args.folders)
    if not paths:
        parser.error(f"no recorded games (*.npz) in {', '.join(map(str, args.folders))}: record some with "
                     "scripts/run.sh trace ... --record DIR")
    return paths


def play_searching(preset: str, iterations: int, side: str, seed: int, on_decision: Callable,
                   opponent: str = "grod", board: int = 11) -> Tuple[botbowl.Game, botbowl.Team]:
    """One game of the MCTS bot (`preset`, `iterations` a decision, seeded `seed`, `on_decision` called
    after each search) as `side` against `opponent` (seeded `seed` + 1), the game seeded `seed`: the
    finished game and the bot's team. A crash raises, with its traceback."""
    bot = MCTSBot("mcts", iterations=iterations, preset=preset, seed=seed, on_decision=on_decision)
    other = make_bot(opponent, seed=seed + 1)
    home, away = (bot, other) if side == "home" else (other, bot)
    game = make_game(board, home, away, seed=seed, game_id=f"g{seed}")
    crash = play_to_the_end(game)
    if crash:
        raise RuntimeError(f"game {seed} ({preset} as {side}) crashed:\n{crash}")
    return game, game.state.home_team if side == "home" else game.state.away_team
