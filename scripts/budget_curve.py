#!/usr/bin/env python3
"""What more time buys: MCTS against an opponent on one board at several seconds per decision,
home and away; a table of the score (win 1, draw 1/2) with 95% intervals and a plot of score
against seconds.

The games go to OUT/games.jsonl as the evaluation writes them (one file can hold every budget, and
other evaluations with the same seed), so a rerun plays only what is missing.
"""
import argparse
import sys
from pathlib import Path

import mcts_bot
from mcts_bot.harness import cli, evaluation, plots
from mcts_bot.harness.bots import check_bot
from mcts_bot.harness.matches import SIDES


def plot(curve, path: Path, title: str, target: float) -> Path:
    fig, ax = plots.figure((6, 4))
    for k, side in enumerate(SIDES):
        seconds = [s * (0.96 if k == 0 else 1.04) for s, _ in curve]  # side by side, not on top
        scores = [row.score(side) for _, row in curve]
        ax.errorbar(seconds, [s for s, _, _ in scores], yerr=[[s - lo for s, lo, _ in scores],
                                                              [hi - s for s, _, hi in scores]],
                    marker="o", capsize=3, label=f"MCTS {side}")
    ax.axhline(target, color="grey", ls="--", lw=1, label=f"target {100 * target:.0f}%")
    ax.axhline(0.5, color="grey", ls=":", lw=1)
    ax.set_xscale("log")
    ax.set_xticks([s for s, _ in curve], [f"{s:g}" for s, _ in curve])
    ax.minorticks_off()
    ax.set_xlabel("seconds per decision")
    ax.set_ylabel("score: win 1, draw 1/2 (95% CI)")
    ax.set_ylim(0, 1.05)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(alpha=0.3)
    return plots.save(fig, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=3)
    parser.add_argument("--seconds", type=cli.positive_float, nargs="+", default=[0.25, 1.0, 3.0],
                        help="seconds per decision (default 0.25 1 3)")
    parser.add_argument("--games", type=cli.positive_int, nargs="+", default=[10],
                        help="games per side: one number, or one per budget (default 10)")
    cli.add_opponent_argument(parser, default="scripted")
    cli.add_preset_argument(parser)
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="base seed (default 0)")
    cli.add_worker_arguments(parser)
    parser.add_argument("--out", type=Path, default=Path("results/budget-curve"),
                        help="results folder (default results/budget-curve)")
    parser.add_argument("--plot", type=Path, default=None, help="(default img/score-vs-seconds-<board>.png)")
    args = parser.parse_args()
    if len(args.games) not in (1, len(args.seconds)):
        parser.error(f"--games: give one number or one per budget ({len(args.seconds)})")
    games = args.games * len(args.seconds) if len(args.games) == 1 else args.games
    try:
        check_bot(args.opponent)
        runs = [evaluation.Settings(boards=(args.board,), games_per_side=n, rollouts=(mcts_bot.get_preset(args.preset).rollouts,),
                                    preset=args.preset, opponent=args.opponent, seconds=seconds, base_seed=args.seed)
                for seconds, n in zip(args.seconds, games)]
    except ValueError as exc:
        parser.error(str(exc))
    cli.check_ray(parser, args)

    curve = []
    for settings in runs:
        print(settings.describe(), file=sys.stderr)
        records = evaluation.run(settings, args.out, workers=args.workers, backend=args.backend,
                                 ray_address=args.ray_address)
        curve.append((settings.seconds, evaluation.summarise(records)[0]))
    print("| Seconds | Side | W-D-L | Score | Score 95% CI | TDs for-against | Iterations | Prior overruled |")
    print("|--------:|------|------:|------:|-------------:|----------------:|-----------:|----------------:|")
    for seconds, row in curve:
        for side in SIDES:
            print("| " + " | ".join([f"{seconds:g}"] + row.score_cells(side)[1:]) + " |")
    path = plot(curve, args.plot or Path("img") / f"score-vs-seconds-{args.board}.png",
                f"MCTS ({args.preset}) vs {args.opponent}, {args.board}-player board, "
                f"{'/'.join(map(str, games))} games per side", target=0.6)
    print(f"plot: {path}")


if __name__ == "__main__":
    main()
