"""Do the search's overrules of its knowledge win? Each one replayed against the choice it overruled.

The default keeps its priors' first choice (the knowledge's) unless another child's lower bound beats
it by a margin (0.02 of win chance on 11 players, `presets.BOARD_FINAL_CHOICE`). Whether an overrule
pays has only been judged by whole games (20 a run, intervals 40 points wide) or by the leaf value
that made it. This probe asks the game instead: an MCTS bot (by default `default-no-margin`, which
overrules wherever the lower bound beats the first choice's mean, so that decisions of every margin
are seen) plays `grod` at a fixed number of iterations; at each decision where it overrules, both
actions, its choice and the first choice, are played on private copies of the game with the same
dice seeds (`--rollouts` pairs), and the rest of the half is played by the knowledge for both teams
(ours `presets.board_choice`, the default's; theirs `grod`'s, as the `grod` bot plays). Two outcomes:
the learned value for us where our next turn starts, and our touchdowns less theirs from the decision
to the half's end; the gain of an overrule is its mean over the pairs, the choice's less the first
choice's. Each decision also keeps the search's
own view: both children's mean values and visits, and the margin (the choice's lower bound less the
first choice's mean, what `min_gain` is compared with).

Each game's decisions are appended to --out when the game ends (one JSON line per overrule, then
one for the game), so a rerun plays only the games not yet there. --report prints the gain with a
95% bootstrap interval by game, overall and by margin (below and above the default's 0.02) and by
the kind of the first choice, then what a game's overrules are worth together (their gains summed
per game).

    .venv/bin/python docs/probes/overrule_outcomes.py --games 6 --first-game 0 --iterations 120 --rollouts 4 --seed 31000 --out results/overrules.jsonl
    .venv/bin/python docs/probes/overrule_outcomes.py --report --out results/overrules.jsonl

(docs/bot-bowl-board.md: do the search's overrules win?)
"""
import argparse
import sys
import time
from pathlib import Path
from typing import List, Optional

import botbowl
import numpy as np
from botbowl.core import Action

from mcts_bot.adapter.actions import same_action, step
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.core.nodes import ChanceNode
from mcts_bot.core.policies import lower_bound
from mcts_bot.core.search import SearchResult
from mcts_bot.harness import probing, training
from mcts_bot.harness.records import append_result, read_results
from mcts_bot.knowledge.value import learned_value
from mcts_bot.presets import BOARD_FINAL_CHOICE, GROD_MENDED_CHOICE, board_choice, get_preset

MAX_STEPS = 20_000  # more than any half takes: a guard against a loop
# The default's final choice on the Bot Bowl board: its confidence bound's z and its margin (`min_gain`).
DEFAULT_Z = BOARD_FINAL_CHOICE.bot_bowl.keywords["z"]
DEFAULT_MARGIN = BOARD_FINAL_CHOICE.bot_bowl.keywords["min_gain"]


def td_difference(game: botbowl.Game, team_id: str) -> int:
    ours = game.get_team_by_id(team_id)
    return ours.state.score - game.get_opp_team(ours).state.score


def half_outcome(game: botbowl.Game, action: Action, team_id: str, seed: int, end_moves: bool) -> tuple:
    """`action` played on a private copy with dice `seed`, the rest of the half by the default's
    knowledge for us and `grod`'s for them: our touchdowns less theirs to the half's end, and the
    learned value for us where our next turn starts (or the half ends first)."""
    copy = private_copy(game, seed)
    rng = np.random.RandomState(seed)
    ours = copy.get_team_by_id(team_id)
    half, turn, before = copy.state.half, ours.state.turn, td_difference(copy, team_id)
    step(copy, Action(action.action_type, action.position, action.player), end_moves)
    value = None
    for _ in range(MAX_STEPS):
        if value is None and (ours.state.turn != turn or copy.state.half != half or copy.state.game_over):
            value = learned_value(copy, ours)
        if copy.state.game_over or copy.state.half != half:
            break
        team = copy.active_team
        mine = team is not None and team.team_id == team_id
        choice = board_choice(copy, rng) if mine else GROD_MENDED_CHOICE(copy, rng)
        step(copy, choice, end_moves)
    else:
        raise RuntimeError(f"the half did not end within {MAX_STEPS} steps")
    return td_difference(copy, team_id) - before, value


class OverruleRecorder:
    """The on_decision hook: each overrule of one game, replayed both ways."""

    def __init__(self, key: str, rollouts: int, seed: int, end_moves: bool, z: float = DEFAULT_Z):
        self.key, self.rollouts, self.seed, self.end_moves, self.z = key, rollouts, seed, end_moves, z
        self.records: List[dict] = []
        self.decisions = 0

    def __call__(self, game: botbowl.Game, result: SearchResult, action: Action) -> None:
        root = result.root
        self.decisions += 1
        if len(root.children) < 2 or root.children[0].prior is None:
            return
        first = root.children[0]
        chosen: Optional[ChanceNode] = next((c for c in root.children if same_action(c.action, action)), None)
        if chosen is None or chosen is first:
            return
        team_id = game.active_team.team_id
        outcomes = {"chosen": [], "first": []}
        for k in range(self.rollouts):
            seed = self.seed + 1000 * len(self.records) + k
            outcomes["chosen"].append(half_outcome(game, action, team_id, seed, self.end_moves))
            outcomes["first"].append(half_outcome(game, first.action, team_id, seed, self.end_moves))
        tds, values = ({side: [o[i] for o in outcomes[side]] for side in outcomes} for i in (0, 1))
        self.records.append({
            "key": self.key, "decision": self.decisions, "half": game.state.half,
            "turn": game.get_team_by_id(team_id).state.turn,
            "first_kind": first.action.action_type.name, "chosen_kind": chosen.action.action_type.name,
            "first_q": first.value, "chosen_q": chosen.value,
            "first_visits": first.visits, "chosen_visits": chosen.visits,
            "first_prior": first.prior, "chosen_prior": chosen.prior,
            "margin": lower_bound(root, chosen, self.z) - first.value,
            "chosen_tds": tds["chosen"], "first_tds": tds["first"],
            "chosen_next": values["chosen"], "first_next": values["first"],
        })
        print(f"  {self.key}: overrule {len(self.records)} at decision {self.decisions}, "
              f"gain {gain(self.records[-1]):+.2f}", file=sys.stderr, flush=True)


def game_key(preset: str, iterations: int, side: str, seed: int, rollouts: int) -> str:
    return f"{preset}-{iterations}-{side}-{seed}-{rollouts}"


def play(preset: str, iterations: int, side: str, seed: int, rollouts: int) -> List[dict]:
    """One game against `grod`; its overrules' records, then the game's own."""
    key = game_key(preset, iterations, side, seed, rollouts)
    recorder = OverruleRecorder(key, rollouts, seed * 100_000, get_preset(preset).end_moves)
    game, ours = probing.play_searching(preset, iterations, side, seed, recorder)
    return recorder.records + [{"key": key, "game": True, "decisions": recorder.decisions,
                                "overrules": len(recorder.records),
                                "score": [ours.state.score, game.get_opp_team(ours).state.score]}]


def gain(record: dict, measure: str = "tds") -> float:
    """The choice's mean outcome less the first choice's: touchdowns to the half's end ("tds") or
    the learned value where our next turn starts ("next")."""
    return float(np.mean(record[f"chosen_{measure}"]) - np.mean(record[f"first_{measure}"]))


def bootstrap_by_game(records: List[dict], measure: str, games: Optional[List[str]] = None,
                      draws: int = 4000, seed: int = 0) -> tuple:
    """The mean gain per overrule and its 95% interval, games resampled (`training.difference_by_game`
    on each game's summed gains against none). Given `games` (keys, those without an overrule too),
    the mean of a game's summed gains instead: what a game's overrules are worth together."""
    keys = games if games is not None else sorted({r["key"] for r in records})
    total = np.array([sum(gain(r, measure) for r in records if r["key"] == k) for k in keys])
    count = np.ones(len(keys)) if games is not None else np.array([sum(r["key"] == k for r in records) for k in keys])
    return training.difference_by_game(total, np.zeros(len(keys)), count, samples=draws, seed=seed)


def report(path: Path) -> str:
    lines = read_results(path)
    games = {r["key"]: r for r in lines if r.get("game")}
    overrules = [r for r in lines if not r.get("game") and r["key"] in games]
    if not overrules:
        return f"{path}: no finished game with an overrule yet"
    decisions = sum(g["decisions"] for g in games.values())
    out = [f"{len(games)} games, {decisions} searched decisions, {len(overrules)} overrules "
           f"({len(overrules) / decisions:.1%}), {len(overrules[0]['chosen_tds'])} paired rollouts each", "",
           "| Overrules | Count | Search's gain (mean value) | Value at our next turn, choice less first (95% CI by game) "
           "| Touchdowns to the half's end, choice less first (95% CI by game) |",
           "|---|---:|---:|---:|---:|"]

    def row(name: str, subset: List[dict]) -> None:
        if not subset:
            out.append(f"| {name} | 0 | | | |")
            return
        q = np.mean([r["chosen_q"] - r["first_q"] for r in subset])
        cells = ["{:+.4f} ({:+.4f} to {:+.4f})".format(*bootstrap_by_game(subset, "next")),
                 "{:+.3f} ({:+.3f} to {:+.3f})".format(*bootstrap_by_game(subset, "tds"))]
        out.append(f"| {name} | {len(subset)} | {q:+.4f} | {cells[0]} | {cells[1]} |")

    beyond = [r for r in overrules if r["margin"] >= DEFAULT_MARGIN]
    row("all", overrules)
    row(f"margin below {DEFAULT_MARGIN} (the default keeps the first choice)",
        [r for r in overrules if r["margin"] < DEFAULT_MARGIN])
    row(f"margin {DEFAULT_MARGIN} or more (the default overrules too)", beyond)
    for kind in sorted({r["first_kind"] for r in overrules}):
        row(f"first choice {kind}", [r for r in overrules if r["first_kind"] == kind])
    out += ["", "A game's overrules together (their gains summed in each game, the mean over games, 95% CI by game):"]
    for name, subset in (("all", overrules), (f"margin {DEFAULT_MARGIN} or more", beyond)):
        cells = ["{:+.3f} ({:+.3f} to {:+.3f})".format(*bootstrap_by_game(subset, measure, sorted(games)))
                 for measure in ("next", "tds")]
        out.append(f"- {name}: value at our next turn {cells[0]}, touchdowns to the half's end {cells[1]}")
    return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", default="default-no-margin")
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--games", type=int, default=2, help="games to play, home and away in turn")
    parser.add_argument("--first-game", type=int, default=0, help="the index of the first (to split a run)")
    parser.add_argument("--rollouts", type=int, default=6, help="paired replays of each overrule")
    parser.add_argument("--seed", type=int, default=31000)
    parser.add_argument("--out", type=Path, required=True, help="a JSON-lines file; a rerun plays only what is missing")
    parser.add_argument("--report", action="store_true", help="only print the report of --out")
    args = parser.parse_args()
    if args.report:
        print(report(args.out))
        return
    get_preset(args.preset)
    if args.rollouts < 1:
        parser.error(f"--rollouts {args.rollouts}: at least 1 pair")
    done = {r["key"] for r in read_results(args.out) if r.get("game")}
    for i in range(args.first_game, args.first_game + args.games):
        side = "home" if i % 2 == 0 else "away"
        if game_key(args.preset, args.iterations, side, args.seed + i, args.rollouts) in done:
            continue
        start = time.time()
        records = play(args.preset, args.iterations, side, args.seed + i, args.rollouts)
        for record in records:
            append_result(args.out, record)
        print(f"game {i}: {records[-1]['score']}, {records[-1]['overrules']} overrules of "
              f"{records[-1]['decisions']} decisions, {time.time() - start:.0f} s", file=sys.stderr, flush=True)
    print(report(args.out))


if __name__ == "__main__":
    main()
