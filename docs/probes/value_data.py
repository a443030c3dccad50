"""Probe: does the learned value gain from more games? (docs/learned-value.md; the data curve)

Scores fitted values (`scripts/run.sh train_value ... --out FILE`, each on some number of training
games) on the held-out games of one split of `--data` (the split `train_value` makes with the same
`--test-share` and `--seed`, so none of those models trained on them), each less a reference model
with a 95% bootstrap interval by game, and plots held-out log-loss against training games:

    .venv/bin/python docs/probes/value_data.py --data data/value-11/* --reference mcts_bot/knowledge/models/value-11.npz \\
        --models results/valuedata/value-11-n360.npz results/valuedata/value-11-n720.npz \\
                 results/valuedata/value-11-pooled.npz --plot img/value-data-11.png
"""
import argparse
from pathlib import Path

from mcts_bot.harness import plots, training
from mcts_bot.knowledge.value import ValueModel


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, nargs="+", required=True, help="the folders whose held-out games score")
    parser.add_argument("--reference", type=Path, required=True, help="the model the others are compared with")
    parser.add_argument("--models", type=Path, nargs="+", required=True)
    parser.add_argument("--test-share", type=float, default=0.2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--plot", type=Path, default=None)
    args = parser.parse_args()
    test = training.split(training.load_games(*args.data), args.test_share, args.seed)[1]
    reference = ValueModel.load(args.reference)
    base, sizes = training.game_log_losses(reference, test)
    rows = []
    for path in [args.reference, *args.models]:
        model = ValueModel.load(path)
        losses = training.game_log_losses(model, test)[0]
        gain, low, high = training.difference_by_game(losses, base, sizes, seed=args.seed)
        rows.append((int(model.info["games"]), path.name, losses.sum() / sizes.sum(), gain, low, high))
    rows.sort()
    print(f"{len(test)} held-out games\n\n| Model | Training games | Log-loss | Less {args.reference.name}, 95% bootstrap by game |\n"
          "|---|---:|---:|---:|")
    for n, name, loss, gain, low, high in rows:
        print(f"| {name} | {n} | {loss:.4f} | {gain:+.4f} ({low:+.4f} to {high:+.4f}) |")
    if args.plot:
        fig, ax = plots.figure((5, 3.6))
        n, loss = [r[0] for r in rows], [r[2] for r in rows]
        error = [[r[3] - r[4] for r in rows], [r[5] - r[3] for r in rows]]
        ax.errorbar(n, loss, yerr=error, marker="o", capsize=3, color="C0")
        ax.set_xscale("log")
        ax.set_xticks(n, [str(v) for v in n])
        ax.minorticks_off()
        ax.set_xlabel("training games")
        ax.set_ylabel(f"held-out log-loss ({len(test)} games)")
        ax.set_title("The learned value with more games\n(bars: 95% bootstrap of the difference to the reference)",
                     fontsize=9)
        print(f"\nplot: {plots.save(fig, args.plot)}")


if __name__ == "__main__":
    main()
