#!/usr/bin/env python3
"""Tune the knowledge's weights by play: SPSA over `grod`'s weights (mcts_bot/harness/tuning.py).

Each iteration plays the knowledge alone (`--bot`, default `policy`: the default's priors' first
choice, no search) against each opponent, home and away, with the weights perturbed up and down along
random signs on the same games, and steps along the score difference. Games are written to
OUT/games.jsonl as they end, and the weights found so far (the mean of the iterates over the run's
second half) to OUT/weights.json after every iteration; the same command resumes a stopped run (more
--iterations go on from where it ended). `--validate N`
then plays the weights found and the shipped ones on the same N fresh games per opponent and side,
the only fair measure of what the tuning found. `--report` plays nothing.

    scripts/run.sh tune --iterations 100 --out results/tune-11
    scripts/run.sh tune --iterations 100 --out results/tune-11 --validate 100
"""
import argparse
import json
import math
import sys
from pathlib import Path

from mcts_bot.harness import cli, tuning


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    cli.add_board_argument(parser, default=11)
    parser.add_argument("--bot", default="policy",
                        help="the bot the weights shape, without search (default policy: the default's knowledge)")
    parser.add_argument("--opponents", nargs="+", default=["scripted", "grod"],
                        help=f"the pool played against, each home and away: {cli.OPPONENT_HELP} "
                             f"(default: scripted grod)")
    parser.add_argument("--names", nargs="+", default=list(tuning.TUNABLE), metavar="WEIGHT",
                        help="the weights of mcts_bot/knowledge/grod.py to tune (default: the style's, "
                             f"{len(tuning.TUNABLE)} of them)")
    parser.add_argument("--iterations", type=cli.positive_int, default=100, help="SPSA iterations (default 100)")
    parser.add_argument("--games", type=cli.positive_int, default=1,
                        help="games per opponent, side and perturbation an iteration (default 1: 8 games an "
                             "iteration with two opponents)")
    parser.add_argument("--a", type=cli.positive_float, default=0.05, help="step gain (default 0.05)")
    parser.add_argument("--c", type=cli.positive_float, default=0.2,
                        help="perturbation in log space at the first iteration (default 0.2)")
    parser.add_argument("--seed", type=cli.non_negative_int, default=0, help="base seed (default 0)")
    parser.add_argument("--out", type=Path, default=Path("results/tune-11"), help="results folder")
    parser.add_argument("--validate", type=cli.positive_int, default=None, metavar="N",
                        help="after the iterations, N fresh games per opponent and side for the weights found "
                             "and for the shipped ones (the same games): the table and the paired difference")
    parser.add_argument("--validation-seed", type=cli.non_negative_int, default=1, help="the validation's base seed")
    parser.add_argument("--validation-opponents", nargs="+", default=None, metavar="BOT",
                        help="the opponents the validation plays (default: the run's --opponents): weights "
                             "tuned against one partner, checked against another")
    parser.add_argument("--report", action="store_true", help="play nothing: the run's steps and its validation")
    parser.add_argument("--plot", type=Path, default=None, help="trajectory plot (default img/<out's name>.png)")
    cli.add_worker_arguments(parser)
    args = parser.parse_args()
    cli.check_ray(parser, args)
    try:
        settings = tuning.TuneSettings(board=args.board, bot=args.bot, opponents=tuple(args.opponents),
                                       names=tuple(args.names), games=args.games, iterations=args.iterations,
                                       base_seed=args.seed, a=args.a, c=args.c)
    except ValueError as exc:
        parser.error(str(exc))
    plot = args.plot or Path("img") / f"{args.out.name}.png"

    if args.report:
        saved = args.out / "settings.json"
        if not saved.exists():
            parser.error(f"--report: no tuning run in {args.out} (no settings.json)")
        settings = tuning.TuneSettings(**{k: tuple(v) if isinstance(v, list) else v
                                          for k, v in json.loads(saved.read_text()).items()})
        steps = tuning.read_steps(settings, args.out)
    else:
        print(f"tuning {len(settings.names)} weights of {settings.bot} against {', '.join(settings.opponents)} "
              f"on {settings.board} players: {settings.iterations} iterations of "
              f"{2 * 2 * settings.games * len(settings.opponents)} games; results in {args.out}", file=sys.stderr)

        def show(step: tuning.Step) -> None:
            print(f"iteration {step.iteration + 1}/{settings.iterations}: plus {step.plus:.2f}, minus "
                  f"{step.minus:.2f}" + (f", {step.crashes} crashed" if step.crashes else ""), file=sys.stderr)

        try:
            steps = tuning.run(settings, args.out, workers=args.workers, backend=args.backend,
                               ray_address=args.ray_address, on_step=show)
        except ValueError as exc:
            parser.error(str(exc))
    if steps:
        mean = sum(s.plus + s.minus for s in steps) / (2 * len(steps))
        print(f"{len(steps)} iterations; mean score {mean:.3f}; weights found (the mean over the second half; "
              f"{args.out / tuning.WEIGHTS_FILE}), as multiples of the shipped:")
        final = dict(zip(settings.names, tuning.averaged_theta(steps)))
        for name in sorted(final, key=lambda n: -abs(final[n])):
            print(f"  {name:20s} x{math.exp(final[name]):.2f}")
        print(f"plot: {tuning.trajectory_plot(settings, steps, plot)}")
    if steps and (args.validate is not None or args.report):
        weights = tuning.read_weights(args.out / tuning.WEIGHTS_FILE)
        if args.validate is not None:
            try:
                records = tuning.validate(settings, weights, args.out, args.validate, args.validation_seed,
                                          opponents=args.validation_opponents, workers=args.workers,
                                          backend=args.backend, ray_address=args.ray_address)
            except ValueError as exc:
                parser.error(f"--validation-opponents: {exc}")
        else:
            records = tuning.validation_records(args.out, weights)
        if records:
            print("\n" + tuning.validation_table(records), end="")


if __name__ == "__main__":
    main()
