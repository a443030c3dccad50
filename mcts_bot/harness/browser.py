"""Headless Chromium, to look at pages as a person does: the decision view and botbowl's web UI.

Debian's `chromium` and `chromium-driver` packages (`apt-get install chromium chromium-driver`),
driven by selenium (the `test` extra); no browser is ever downloaded. The flags keep Chromium
from reaching for the network (updates, sync, ...), whose connections hang on a closed network.
"""
from __future__ import annotations

import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import Select, WebDriverWait

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
CHROMEDRIVER_NAMES = ("chromedriver",)
INSTALL_HINT = "install with apt-get install chromium chromium-driver"
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage", "--hide-scrollbars")


def find_chromium() -> Optional[Tuple[str, str]]:
    """(browser, driver) executables on the PATH or in /usr/bin, or None when either is missing."""
    def find(names: Sequence[str]) -> Optional[str]:
        for name in names:
            path = shutil.which(name) or shutil.which(name, path="/usr/bin:/usr/lib/chromium")
            if path:
                return path
        return None
    browser, driver = find(CHROMIUM_NAMES), find(CHROMEDRIVER_NAMES)
    return (browser, driver) if browser and driver else None


@contextmanager
def chromium(width: int = 1300, height: int = 1000) -> Iterator[webdriver.Chrome]:
    """A headless Chromium with a fresh profile, closed (and its profile removed) on leaving."""
    found = find_chromium()
    if found is None:
        raise RuntimeError(f"no Chromium and chromedriver found: {INSTALL_HINT}")
    browser, driver_path = found
    profile = tempfile.mkdtemp(prefix="mcts-bot-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in CHROMIUM_FLAGS + (f"--window-size={width},{height}", f"--user-data-dir={profile}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]


@contextmanager
def running_server(command: Sequence[str], url: str, *, log: Path, start_timeout: float = 120.0) -> Iterator[str]:
    """Start `command` (a web server), wait until `url` answers, yield `url`; stop the server on leaving.

    The server's output goes to `log`, which an error message points at when it does not come up.
    """
    with open(log, "wb") as out:
        process = subprocess.Popen(list(command), stdout=out, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + start_timeout
            while True:
                if process.poll() is not None:
                    raise RuntimeError(f"the server exited with {process.returncode} before answering: see {log}")
                try:
                    with urllib.request.urlopen(url, timeout=5):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"the server did not answer {url} in {start_timeout:.0f} s: see {log}")
                    time.sleep(0.2)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# The names botbowl's web UI gives its built-in formations' buttons ("SETUP_FORMATION_WEDGE" -> "Wedge").
FORMATION_BUTTONS = ("Wedge", "Line", "Spread", "Zone")

PIECES_SCRIPT = """
var pieces = [];
document.querySelectorAll('#squares .square-row').forEach(function (row, y) {
  row.querySelectorAll('.pitch-square').forEach(function (square, x) {
    var icon = square.querySelector('.playericon img');
    if (icon) { pieces.push([x, y, icon.getAttribute('src')]); }
  });
});
return pieces;
"""

LOG_SCRIPT = """
return Array.from(document.querySelectorAll('#gamelog .report'), function (report) {
  var label = report.querySelector('.label');
  var side = !label ? '' : label.classList.contains('label-primary') ? 'home' : 'away';
  return [side, report.innerText.trim()];
});
"""


@dataclass
class HumanTurn:
    """What the page showed when the human's turn came: where the bot's players stood, and the log."""

    bot_turn: Optional[int]  # the bot's turn counter on the scoreboard
    bot_pieces: Tuple[Tuple[int, int], ...]
    log: Tuple[Tuple[str, str], ...]


class WebUI:
    """botbowl's web UI in a browser, driven by clicking as a person does (no calls to its API).

    The human plays the home team and only does what keeps the game going: the coin toss, a
    formation and END_SETUP, placing the kick, and END_TURN. The bot's moves arrive as the page
    polls the server, as they do for a person.
    """

    def __init__(self, driver, url: str, *, patience: float = 120.0):
        self.driver = driver
        self.url = url
        self.patience = patience  # seconds to wait for the page or the bot before giving up

    def wait(self, condition, what: str):
        # The page redraws as the bot plays: an element found a moment ago may be gone; look again then.
        return WebDriverWait(self.driver, self.patience, poll_frequency=0.2,
                             ignored_exceptions=(StaleElementReferenceException,)).until(
            condition, message=f"the page did not show {what} within {self.patience:.0f} s")

    def create_game(self, mode: str = "3v3", bot: str = "mcts") -> None:
        """Create a game from the UI's form, the human at home against `bot`, and open the human's page."""
        self.driver.get(self.url)
        self.wait(lambda d: d.find_elements(By.LINK_TEXT, "Create Game"), "the games list").__getitem__(0).click()
        self.wait(lambda d: d.find_elements(By.LINK_TEXT, mode), f"the game mode {mode}")[0].click()
        self.wait(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#homeTeam option")) > 1
                  and d.find_elements(By.CSS_SELECTOR, f"#awayPlayer option[value='{bot}']"), "the teams and bots")
        for select_id in ("homeTeam", "awayTeam"):
            Select(self.driver.find_element(By.ID, select_id)).select_by_index(1)
        Select(self.driver.find_element(By.ID, "homePlayer")).select_by_value("human")
        Select(self.driver.find_element(By.ID, "awayPlayer")).select_by_value(bot)
        self.driver.find_element(By.XPATH, "//button[contains(., 'Create Game')]").click()
        home = self.wait(lambda d: d.find_elements(By.CSS_SELECTOR, "a.btn-team.btn-primary"), "the new game")
        home[-1].click()
        self.wait(lambda d: d.find_elements(By.ID, "squares"), "the pitch")

    def buttons(self) -> Dict[str, WebElement]:
        """The human's action buttons that are shown and enabled, by their text."""
        return {b.text.strip(): b for b in self.driver.find_elements(By.CSS_SELECTOR, "button.btn-act")
                if b.is_displayed() and b.is_enabled()}

    def click(self, text: str) -> None:
        """Click the button `text` and wait for the page to show the server's answer."""
        button = self.buttons()[text]
        button.click()
        self.wait(expected_conditions.staleness_of(button), f"the answer to {text!r}")

    def pieces(self) -> List[Tuple[int, int, str]]:
        """(x, y, icon) of every player drawn on the pitch; botbowl's home icons end in "b.gif" or "ban.gif"."""
        return [tuple(p) for p in self.driver.execute_script(PIECES_SCRIPT)]

    def bot_pieces(self) -> Tuple[Tuple[int, int], ...]:
        return tuple(sorted((x, y) for x, y, icon in self.pieces() if not re.search(r"b(an)?\.gif$", icon)))

    def bot_turn(self) -> Optional[int]:
        """The away team's turn as its scoreboard label shows it ("3 / 8"), None before its first turn."""
        labels = self.driver.find_elements(By.CSS_SELECTOR, ".scoreboard .proclabel")
        found = re.match(r"\s*(\d+)\s*/", labels[0].text) if labels else None
        return int(found.group(1)) if found else None

    def log(self) -> Tuple[Tuple[str, str], ...]:
        """The game log as shown, newest first: (side, text), side "home" or "away" from the colour of the
        label naming the team or player ("" when none does)."""
        return tuple(tuple(entry) for entry in self.driver.execute_script(LOG_SCRIPT))

    def game_over(self) -> bool:
        return any("won the game" in text or "draw" in text.lower() for _, text in self.log()[:3])

    def choice(self) -> Optional[Tuple[str, object]]:
        """What the human can do now: ("buttons", {text: button}), ("squares", [square, ...]) when a square
        must be picked first (where to kick, ...), ("over", None) after the game; None while waiting."""
        buttons = self.buttons()
        if buttons:
            return "buttons", buttons
        squares = self.driver.find_elements(By.CSS_SELECTOR, "#squares .pitch-square[class*='green']")
        if squares:
            return "squares", squares
        return ("over", None) if self.game_over() else None

    def play(self, end_turns: int) -> List[HumanTurn]:
        """Play as the human until `end_turns` turns have been ended and the next one has come (or the game
        is over); return what the page showed as each of the human's turns began."""
        turns: List[HumanTurn] = []
        while True:
            kind, options = self.wait(lambda d: self.choice(), "a choice for the human")
            if kind == "over":
                return turns
            if kind == "squares":  # the middle one of the squares offered
                options[len(options) // 2].click()
                self.wait(lambda d: self.buttons(), "a button after picking a square")
            elif "End turn" in options:
                turns.append(HumanTurn(self.bot_turn(), self.bot_pieces(), self.log()))
                if len(turns) > end_turns:
                    return turns
                self.click("End turn")
            elif "End setup" in options:
                formation = next((name for name in FORMATION_BUTTONS if name in options), None)
                if formation is not None:
                    self.click(formation)
                self.click("End setup")
            else:
                known = [name for name in ("Heads", "Receive", "Place ball") if name in options]
                if not known:
                    raise RuntimeError(f"no known choice for the human among {sorted(options)}")
                self.click(known[0])
