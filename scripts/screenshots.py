#!/usr/bin/env python3
"""The README's screenshots, taken in headless Chromium (apt-get install chromium chromium-driver):

  decision-view.png  the page of one decision (inspect_tree's position: --board, --seed, --steps)
  web-ui.png         botbowl's web UI (scripts/web.py) after three turns of a human against the bot
"""
import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
from selenium.webdriver.common.by import By

import mcts_bot
from mcts_bot.core.search import Budget
from mcts_bot.harness import browser, cli
from mcts_bot.harness.games import random_position
from mcts_bot.views.decision_page import decision_html

ROOT = Path(__file__).resolve().parent.parent


def decision_view(args: argparse.Namespace, out: Path, work: Path) -> None:
    game = random_position(args.board, seed=args.seed, steps=args.steps)
    preset = mcts_bot.configure("default")
    result = mcts_bot.run_search(game, budget=Budget(iterations=args.iterations), preset=preset,
                                 rng=np.random.RandomState(args.seed))
    page = work / "decision.html"
    page.write_text(decision_html(game, result.root, action=preset.for_game(game).final_policy(result.root).action,
                                           stats=result.stats, max_depth=2), encoding="utf-8")
    with browser.chromium(width=1300, height=1250) as driver:
        driver.get(page.as_uri())
        driver.find_element(By.CSS_SELECTOR, "#tree details.chosen > summary").click()  # open the chosen action
        driver.save_screenshot(str(out))


def web_ui(out: Path, work: Path) -> None:
    port = browser.free_port()
    command = [sys.executable, str(ROOT / "scripts" / "web.py"), "--port", str(port), "--iterations", "20",
               "--seed", "0"]
    with browser.running_server(command, f"http://127.0.0.1:{port}/", log=work / "web.log") as url, \
            browser.chromium(width=1300, height=900) as driver:
        ui = browser.WebUI(driver, url)
        ui.create_game(mode="3v3", bot="mcts")
        ui.play(end_turns=3)
        driver.save_screenshot(str(out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "img", help="folder for the PNG files (default img/)")
    parser.add_argument("--only", choices=["decision-view", "web-ui"], help="take one screenshot only")
    cli.add_board_argument(parser, default=5)
    parser.add_argument("--seed", type=cli.non_negative_int, default=8, help="(default 8)")
    parser.add_argument("--steps", type=cli.non_negative_int, default=60, help="(default 60)")
    parser.add_argument("--iterations", type=cli.positive_int, default=400, help="(default 400)")
    args = parser.parse_args()
    if browser.find_chromium() is None:
        parser.error(f"no headless Chromium and chromedriver found: {browser.INSTALL_HINT}")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work:
        if args.only in (None, "decision-view"):
            decision_view(args, args.out / "decision-view.png", Path(work))
            print(f"Wrote {args.out / 'decision-view.png'}")
        if args.only in (None, "web-ui"):
            web_ui(args.out / "web-ui.png", Path(work))
            print(f"Wrote {args.out / 'web-ui.png'}")


if __name__ == "__main__":
    main()
