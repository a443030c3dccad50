"""Probe: how much of the search's choice between siblings is their dice's luck, with and without
common random numbers (`Preset.common_dice`: the k-th visit of every action of a node throws the same
dice). docs/bot-bowl-board.md, "Common dice for siblings".

Positions: turn-level decisions of the home team (a player action to start, two or more offered) in
games between two `grod`s on 11 players, every `--every`-th one. Each position is searched by each
preset with `--seeds` seeds at `--iterations` iterations (an iteration budget: the same search on any
machine), and each search's root written as a line of `--out` as it ends (a rerun skips what is
there). The report, per preset, over the same positions and seeds:
- how often its final policy overrules the priors' first choice, and how often two seeds' final
  choices agree;
- for each sibling of the first choice with `--min-visits` visits or more in two seeds or more, the
  spread over seeds of its mean value less the first choice's: the noise an overrule is read from.

    .venv/bin/python docs/probes/common_dice.py --games 3 --every 8 --seeds 8 --iterations 130 --out results/common-dice.jsonl
    .venv/bin/python docs/probes/common_dice.py --report --out results/common-dice.jsonl
"""
import argparse
import itertools
import json
from collections import defaultdict
from pathlib import Path
from typing import Dict, List

import botbowl
import numpy as np
from botbowl.core.procedure import Turn

import mcts_bot  # noqa: F401 - registers the bots
from mcts_bot.adapter.search_copy import private_copy
from mcts_bot.core.nodes import describe_action
from mcts_bot.core.search import Budget, run_search
from mcts_bot.harness.games import make_game
from mcts_bot.knowledge.grod import START_TYPES, GrodBot
from mcts_bot.presets import PRESETS

PRESET_NAMES = ("default", "default-common-dice")


class SnapshotGrod(GrodBot):
    """`grod`, keeping a private copy of every `every`-th of its turn-level decisions with a choice."""

    def __init__(self, name: str, seed: int, every: int):
        super().__init__(name, seed=seed)
        self.every = every
        self.seen = 0
        self.positions: List[botbowl.Game] = []

    def act(self, game: botbowl.Game):
        if isinstance(game.state.stack.peek(), Turn) and sum(
                len(c.players) for c in game.state.available_actions if c.action_type in START_TYPES) >= 2:
            self.seen += 1
            if self.seen % self.every == 0:
                self.positions.append(private_copy(game, seed=self.seen))
        return super().act(game)


def positions(games: int, every: int, seed: int) -> List[botbowl.Game]:
    found = []
    for g in range(games):
        home = SnapshotGrod("home", seed=seed + g, every=every)
        game = make_game(11, home, GrodBot("away", seed=seed + g + 1000), seed=seed + g)
        game.init()
        found += home.positions
    return found


def search_line(position: botbowl.Game, name: str, seed: int, iterations: int) -> dict:
    preset = PRESETS[name]
    result = run_search(position, budget=Budget(iterations=iterations), preset=preset,
                        rng=np.random.RandomState(seed))
    root = result.root
    chosen = preset.for_game(position).final_policy(root)
    return {"first": describe_action(root.children[0].action), "chosen": describe_action(chosen.action),
            "children": [[describe_action(c.action), c.visits, c.value] for c in root.children if c.visits]}


def play(args) -> None:
    out = Path(args.out)
    done = set()
    if out.exists():
        done = {(line["position"], line["preset"], line["seed"]) for line in map(json.loads, out.open())}
    found = positions(args.games, args.every, args.seed)
    print(f"{len(found)} positions", flush=True)
    with out.open("a") as f:
        for p, position in enumerate(found):
            if p % args.shards != args.shard:
                continue
            for name, s in itertools.product(PRESET_NAMES, range(args.seeds)):
                if (p, name, s) in done:
                    continue
                line = {"position": p, "preset": name, "seed": s,
                        **search_line(position, name, 1000 + s, args.iterations)}
                f.write(json.dumps(line) + "\n")
                f.flush()
            print(f"position {p} done", flush=True)


def report(args) -> None:
    lines = [json.loads(line) for line in Path(args.out).open()]
    by = defaultdict(list)
    for line in lines:
        by[(line["preset"], line["position"])].append(line)
    positions_all = sorted({line["position"] for line in lines})
    # Only positions every preset searched with every seed seen for it, so that both count the same.
    complete = [p for p in positions_all
                if len({len(by[(name, p)]) for name in PRESET_NAMES}) == 1 and by[(PRESET_NAMES[0], p)]]
    print(f"{len(complete)} positions searched by both presets with the same seeds")
    for name in PRESET_NAMES:
        overrules, agree, pairs, spreads, gaps = 0, 0, 0, [], []
        searches = 0
        for p in complete:
            runs = by[(name, p)]
            searches += len(runs)
            overrules += sum(run["chosen"] != run["first"] for run in runs)
            for a, b in itertools.combinations(runs, 2):
                pairs += 1
                agree += a["chosen"] == b["chosen"]
            per_child: Dict[str, list] = defaultdict(list)
            for run in runs:
                values = {key: (visits, value) for key, visits, value in run["children"]}
                first_value = values.get(run["first"], (0, None))[1]
                if first_value is None:
                    continue
                for key, (visits, value) in values.items():
                    if key != run["first"] and visits >= args.min_visits:
                        per_child[key].append(value - first_value)
            for key, diffs in per_child.items():
                if len(diffs) >= 2:
                    spreads.append(float(np.std(diffs, ddof=1)))
                    gaps.append(float(np.mean(diffs)))
        print(f"{name}: {searches} searches, overrules {overrules} ({100 * overrules / max(searches, 1):.1f}%), "
              f"seed pairs choosing alike {agree}/{pairs} ({100 * agree / max(pairs, 1):.1f}%), "
              f"siblings' gap to the first choice: spread over seeds {np.mean(spreads):.4f} "
              f"(median {np.median(spreads):.4f}, n={len(spreads)}), mean gap {np.mean(gaps):+.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--every", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=8)
    parser.add_argument("--iterations", type=int, default=130)
    parser.add_argument("--seed", type=int, default=51000)
    parser.add_argument("--min-visits", type=int, default=4)
    parser.add_argument("--shard", type=int, default=0, help="this process's share of the positions (0-based)")
    parser.add_argument("--shards", type=int, default=1)
    parser.add_argument("--out", required=True)
    parser.add_argument("--report", action="store_true", help="report on --out, play nothing")
    args = parser.parse_args()
    report(args) if args.report else play(args)


if __name__ == "__main__":
    main()
