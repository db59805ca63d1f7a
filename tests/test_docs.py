"""The documentation: a short README with the project's contract names, no history outside
docs/CHANGELOG.md, no observation or action size written out by hand, and links that resolve.

The sizes and tables themselves are generated (the env's spec card, docs/SPEC.md: tests/test_env_api.py).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from necro_env.game import NUM_ACTIONS
from necro_env.observe import OBS_SIZE

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
# Targets written on another branch of the same change; remove an entry once the file is merged.
PENDING: set[str] = set()


def prose_files() -> list[Path]:
    """Every hand-written document and config comment that must describe the project as it is."""
    files = [README, ROOT / "configs" / "README.md", ROOT / "training" / "README.md"]
    files += sorted((ROOT / "docs").rglob("*.md"))
    files += sorted((ROOT / "configs").rglob("*.yaml"))
    return [f for f in files if f.name != "CHANGELOG.md"]


def test_readme_is_short_and_names_the_contract() -> None:
    """A newcomer's page: at most about 200 lines, with the names other code and users rely on."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200, "README.md is over 200 lines: move the detail to docs/"
    for name in ("necro_env.env", "necro-env simulate", "necro-env evaluate", "necro-env play", "necro-env replay",
                 "player_0", "necromancer_0", "--json", "make demo", "make test"):
        assert name in text, name
    for doc in ("docs/USAGE.md", "docs/TRAINING.md", "docs/LIBRARIES.md", "docs/RESULTS.md", "docs/SAFETY.md",
                "docs/SPEC.md", "docs/CHANGELOG.md"):
        assert f"]({doc}" in text, f"README.md does not link {doc}"


def test_readme_command_table_names_every_subcommand() -> None:
    """Every subcommand `necro-env --help` lists (built-in and installed plugins, such as `exploit`) has a row."""
    from necro_env.cli import SUBCOMMANDS, plugin_entry_points

    rows = {m.group(1) for m in re.finditer(r"^\| `necro-env ([a-z-]+)", README.read_text(encoding="utf-8"), re.M)}
    names = set(SUBCOMMANDS) | set(plugin_entry_points())
    assert "exploit" in names, "the training package's `exploit` plugin is not installed"
    assert names - rows == set(), f"README.md's command table lacks {sorted(names - rows)}"


@pytest.mark.parametrize("path", prose_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_dates_or_session_history_outside_the_changelog(path: Path) -> None:
    """Dates and "this/last session" belong in docs/CHANGELOG.md; the rest says how things are."""
    text = path.read_text(encoding="utf-8")
    found = re.findall(r"\b20\d\d-\d\d-\d\d\b|\b(?:last|this|previous|earlier|that) session\b", text, re.IGNORECASE)
    assert not found, f"{path.relative_to(ROOT)}: {found} (history goes to docs/CHANGELOG.md)"


@pytest.mark.parametrize("path", [f for f in prose_files() if f.suffix == ".md" and f.name != "SPEC.md"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_docs_name_no_size_that_can_go_stale(path: Path) -> None:
    """The observation and action sizes appear only in generated text (the spec card), never by hand."""
    text = path.read_text(encoding="utf-8")
    for size in (OBS_SIZE, NUM_ACTIONS):
        assert not re.search(rf"(?<![\w.])(?<!\d,){size}(?![\w.]|,\d)", text), \
            f"{path.relative_to(ROOT)} names {size}: write OBS_SIZE / NUM_ACTIONS and link docs/SPEC.md"


def _anchors(path: Path) -> set[str]:
    """GitHub's anchors of a markdown file's headings."""
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"#+ (.*)", line)
        if m:
            out.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return out


@pytest.mark.parametrize("path", [f for f in prose_files() if f.suffix == ".md"], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path: Path) -> None:
    """Every relative link of the docs points at a file of the repository (and a heading, if it names one)."""
    broken = []
    for link in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
        if link.startswith(("http://", "https://", "mailto:")):
            continue
        target_name, _, anchor = link.partition("#")
        target = (path.parent / target_name).resolve() if target_name else path
        rel = target.relative_to(ROOT).as_posix() if target.is_relative_to(ROOT) else str(target)
        if not target.exists():
            if rel not in PENDING:
                broken.append(link)
            continue
        if anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(link)
    assert not broken, f"{path.relative_to(ROOT)}: broken links {broken}"
