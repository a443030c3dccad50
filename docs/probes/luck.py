"""Luck told apart from play (AIVAT's idea), measured with the learned value: tried, not kept.

A game's result R is the value V at its start plus, for each decision, the change V makes from the
state before it to the state at the next decision. For a decision whose action throws dice the
change splits in two: what the action was expected to bring (the mean of V over `samples` re-rolls
of its dice on a copy of the game: the play) and the realised state's V less that mean (the luck).
Each luck term has mean zero whatever V is, so R - luck scores the game as R does on average, with
less spread the more of R's spread the dice explain through V. Decisions that throw no dice have no
luck term. A second sum (`luck_finished`) takes the value of a state after the acting player's
action is played out by the knowledge (`board_choice`), since V does not read dice a procedure holds
(a block's dice before the die is chosen, a failed roll before its re-roll is decided). Any bot can play, an MCTS
bot at --seconds a decision (the meter's work is done after the bot has chosen, outside its time).

Two bots play seeded games, each at home in half of them; each game's record (its result, both
luck sums and the numbers they rest on) is appended to --out as it ends, and a run resumes where it
stopped. The summary: the spread of R and of R - luck over the games, their ratio (the share of
games the same interval would need), and the mean luck with its standard error (about zero).

    .venv/bin/python docs/probes/luck.py --bots grod scripted --board 11 --games 80 --samples 8 --seed 40000 --out results/luck-grod-scripted.jsonl

(docs/learned-value.md: the value as a luck meter.)
"""
import argparse
import sys
from pathlib import Path
from typing import List, Optional

import botbowl
import numpy as np

from mcts_bot.adapter import fast_reversible
from mcts_bot.adapter.actions import advance
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.harness.bots import make_bot, mcts_preset_of
from mcts_bot.harness.evaluation import score_interval
from mcts_bot.harness.games import make_game
from mcts_bot.harness.matches import play_to_the_end
from mcts_bot.harness.records import append_result, read_results
from mcts_bot.knowledge.heuristics import game_result
from mcts_bot.knowledge.value import learned_value
from mcts_bot.presets import board_choice

MAX_FINISH_STEPS = 60  # a player action is never this long; a guard against a loop


class LuckMeter:
    """Both luck sums of one game, from the side of the team `team_id`."""

    def __init__(self, team_id: str, samples: int, rng: np.random.RandomState):
        self.team_id, self.samples, self.rng = team_id, samples, rng
        self.start: Optional[List[float]] = None  # V and V-finished at the first decision
        self.luck = [0.0, 0.0]  # with V, with V after the acting player's action is played out
        self.play = [0.0, 0.0]  # the expected changes: start + play + luck = result
        self.terms = 0  # decisions with dice
        self.decisions = 0
        self._last: Optional[List[float]] = None  # the values at the last decision
        self._expected: Optional[List[float]] = None  # the means after its action, if it threw dice

    def value(self, game: botbowl.Game) -> float:
        return learned_value(game, game.get_team_by_id(self.team_id))

    def finished(self, game: botbowl.Game) -> float:
        """V once the acting player's action is played out by the knowledge (the copy's own dice)."""
        state = game.state

        def turns():
            return state.half, state.home_team.state.turn, state.away_team.state.turn

        player, started = state.active_player, turns()
        for _ in range(MAX_FINISH_STEPS):
            if state.game_over or player is None or state.active_player is not player or turns() != started:
                break
            advance(game, board_choice(game, self.rng))
        return self.value(game)

    def _values(self, copy) -> List[float]:
        """[V, V-finished] of the copy's state, leaving the copy as it was."""
        mark = copy.get_step()
        values = [self.value(copy), self.finished(copy)]
        copy.revert(mark)
        return values

    def _settle(self, values: List[float]) -> None:
        if self._expected is not None:
            for i in range(2):
                self.luck[i] += values[i] - self._expected[i]
                self.play[i] += self._expected[i] - self._last[i]
        elif self._last is not None:  # no dice: all of the change is play
            for i in range(2):
                self.play[i] += values[i] - self._last[i]
        self._last, self._expected = values, None

    @fast_reversible.used_by
    def observe(self, game: botbowl.Game, action: botbowl.Action) -> None:
        """A decision: settle the last one against this state, then the dice of `action` from here."""
        self.decisions += 1
        copy = private_copy(game, seed=int(self.rng.randint(2 ** 31)))
        values = self._values(copy)
        if self.start is None:
            self.start = values
        self._settle(values)
        sums = np.zeros(2)
        for k in range(self.samples):
            copy.set_seed(int(self.rng.randint(2 ** 31)))
            before, mark = copy.dice_thrown(), copy.get_step()
            advance(copy, botbowl.Action(action.action_type, position=action.position, player=action.player))
            if k == 0 and copy.dice_thrown() == before:
                copy.revert(mark)
                return  # no dice before the next decision: the same state in every re-roll
            sums += self._values(copy)
            copy.revert(mark)
        self.terms += 1
        self._expected = list(sums / self.samples)

    def close(self, result: float) -> None:
        """The game's end: its result is the last state's value, either way."""
        self._settle([result, result])


class Metered(botbowl.Agent):
    """A bot whose every decision the game's meter sees."""

    def __init__(self, bot: botbowl.Agent, meter_of):
        super().__init__(bot.name)
        self.bot, self._meter_of = bot, meter_of

    def new_game(self, game, team):
        self.bot.new_game(game, team)

    def end_game(self, game):
        self.bot.end_game(game)

    def act(self, game):
        action = self.bot.act(game)
        self._meter_of().observe(game, action)
        return action


def game_key(bots: List[str], board: int, side: str, seed: int, samples: int, seconds: float) -> str:
    """A game's key in the results file: the seconds only where a bot searches."""
    searching = any(mcts_preset_of(name) is not None for name in bots)
    return f"{board}/{'/'.join(bots)}/{side}/{seed}/{samples}" + (f"/{seconds}" if searching else "")


def play(bots: List[str], board: int, side: str, seed: int, samples: int, seconds: float = 1.0) -> dict:
    """One game of bots[0] (the side luck is counted for) against bots[1], bots[0] at `side`; an MCTS
    bot searches `seconds` a decision."""
    holder = {}
    agents = [Metered(make_bot(name, seed=seed + i, seconds=seconds), lambda: holder["meter"])
              for i, name in enumerate(bots)]
    home, away = agents if side == "home" else agents[::-1]
    game = make_game(board, home, away, seed=seed)
    team = game.state.home_team if side == "home" else game.state.away_team
    meter = holder["meter"] = LuckMeter(team.team_id, samples, np.random.RandomState(seed + 7))
    crash = play_to_the_end(game)
    if crash is not None:
        raise RuntimeError(f"game {seed} crashed:\n{crash}")
    result = game_result(game, team)
    meter.close(result)
    return {"key": game_key(bots, board, side, seed, samples, seconds), "seed": seed, "side": side, "result": result,
            "score": [team.state.score, game.get_opp_team(team).state.score], "luck": meter.luck[0],
            "luck_finished": meter.luck[1], "start": meter.start, "play": meter.play, "terms": meter.terms,
            "decisions": meter.decisions}


def summary(records: List[dict]) -> str:
    """The spread of the results and of the results less each luck sum."""
    results = np.array([r["result"] for r in records])
    n = len(records)
    _, low, high = score_interval(int((results == 1.0).sum()), int((results == 0.5).sum()), n)
    lines = [f"{n} games: score {results.mean():.3f} (Wilson 95% {low:.3f}-{high:.3f}), variance {results.var():.4f}"]
    if n < 2 or results.var() == 0.0:
        return lines[0] + " (spreads need two games and two results)"
    for name in ("luck", "luck_finished"):
        luck = np.array([r[name] for r in records])
        adjusted = results - luck
        half = 1.96 * adjusted.std(ddof=1) / n ** 0.5
        lines.append(f"{name}: mean {luck.mean():+.3f} (standard error {luck.std(ddof=1) / n ** 0.5:.3f}); "
                     f"result - {name}: {adjusted.mean():.3f} (95% {adjusted.mean() - half:.3f}-"
                     f"{adjusted.mean() + half:.3f}), variance {adjusted.var():.4f}, {adjusted.var() / results.var():.2f} "
                     f"of the result's; correlation with the result {np.corrcoef(results, luck)[0, 1]:.2f}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", nargs=2, default=["grod", "scripted"])
    parser.add_argument("--board", type=int, default=11)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--samples", type=int, default=8, help="re-rolls of each decision's dice")
    parser.add_argument("--seed", type=int, default=40000)
    parser.add_argument("--seconds", type=float, default=1.0, help="an MCTS bot's search a decision")
    parser.add_argument("--out", type=Path, required=True, help="a JSON-lines file; a rerun plays only what is missing")
    args = parser.parse_args()
    if args.samples < 2:
        parser.error(f"--samples {args.samples}: at least 2 re-rolls make a mean")
    done = {r["key"]: r for r in read_results(args.out)}
    records = []
    for i in range(args.games):
        side = "home" if i % 2 == 0 else "away"
        record = done.get(game_key(args.bots, args.board, side, args.seed + i, args.samples, args.seconds))
        if record is None:
            record = play(args.bots, args.board, side, args.seed + i, args.samples, args.seconds)
            append_result(args.out, record)
            print(f"game {i + 1}/{args.games}: result {record['result']}, luck {record['luck']:+.3f}, "
                  f"finished {record['luck_finished']:+.3f}", file=sys.stderr, flush=True)
        records.append(record)
    print(summary(records))


if __name__ == "__main__":
    main()
