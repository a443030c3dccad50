"""The README and docs/ link to files and sections that exist: the experiment log is long and its
sections get renamed and moved, and a dead link sends a reader nowhere."""
import pathlib
import re
from typing import List, Set

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def anchors(page: pathlib.Path) -> Set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation but '-' and '_' dropped,
    spaces as '-', a repeated heading numbered -1, -2, ..."""
    seen: dict = {}
    found = set()
    in_code = False
    for line in page.read_text().split("\n"):
        if line.startswith("```"):
            in_code = not in_code
        heading = None if in_code else re.match(r"#{1,6} (.*)", line)
        if heading:
            anchor = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            found.add(f"{anchor}-{count}" if count else anchor)
    return found


def dead_links(page: pathlib.Path) -> List[str]:
    dead = []
    for match in LINK.finditer(page.read_text()):
        target = match.group(1)
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto: are not checked offline
            continue
        path, _, anchor = target.partition("#")
        destination = (page.parent / path) if path else page
        if not destination.exists():
            dead.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
            dead.append(f"{target}: no such section")
    return dead


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_links_reach_a_file_and_section(page):
    assert dead_links(page) == []


def test_a_dead_link_is_found(tmp_path):
    (tmp_path / "other.md").write_text("# A heading\n\n## A heading\n")
    page = tmp_path / "page.md"
    page.write_text("[ok](other.md#a-heading-1) [gone](missing.md) [no section](other.md#b) "
                    "[here](#here)\n\n## Here\n")
    assert dead_links(page) == ["missing.md: no such file", "other.md#b: no such section"]


def test_every_named_preset_is_in_the_presets_table():
    """docs/ablations.md's table of the named presets is where a reader looks a preset up: a preset
    added to `PRESETS` without a row there is one nobody can find out about."""
    from mcts_bot import PRESETS

    table = (ROOT / "docs" / "ablations.md").read_text()
    assert [name for name in sorted(PRESETS) if f"`{name}`" not in table] == []
