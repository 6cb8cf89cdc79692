"""Every repository path the README and docs/*.md cite exists (``libs/...py``, ``services/...``,
``tests/...``, ``deploy/...``, ...), and so does every page a relative link points at: files move
(issue 24 moved many), and a page that names a file that is gone sends its reader nowhere.

Templates (``services/<name>/config.py``), globs and the generated ``gen/`` tree are not checked;
nor are ``kubectl`` lines, whose ``deploy/table`` is a Kubernetes object, not a path."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP_LEVEL = ("libs", "services", "tests", "deploy", "benchmarks", "protos", "docs")
CITED = re.compile(r"(?<![\w./-])((?:" + "|".join(TOP_LEVEL) + r")/[\w./*<>{}-]*[\w/*>}])")
LINK = re.compile(r"\]\(([\w./-]+\.md)(?:#[\w-]*)?\)")


def cited_paths(page: Path) -> list[tuple[int, str]]:
    """(line number, path) of each repository path ``page`` names."""
    found = []
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if "kubectl" in line:
            continue
        for match in CITED.finditer(line):
            path = match.group(1).split("::")[0].rstrip("/.")
            if not any(c in path for c in "<>*{}"):
                found.append((number, path))
    return found


def test_every_path_the_docs_cite_exists() -> None:
    missing = [
        f"{page.relative_to(ROOT)}:{number}: {path}"
        for page in PAGES
        for number, path in cited_paths(page)
        if not (ROOT / path).exists()
    ]
    assert not missing, "cited but not in the repository:\n" + "\n".join(missing)


def test_every_page_a_link_points_at_exists() -> None:
    broken = [
        f"{page.relative_to(ROOT)}: {target}"
        for page in PAGES
        for target in LINK.findall(page.read_text())
        if not (page.parent / target).exists()
    ]
    assert not broken, "links to pages that do not exist:\n" + "\n".join(broken)


def test_a_missing_path_is_noticed(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "see `libs/table/aggregate.py` and libs/table/decide.py, services/<name>/config.py,\n"
        "kubectl scale deploy/table --replicas=2\n"
    )
    cited = [path for _, path in cited_paths(page)]
    assert cited == ["libs/table/aggregate.py", "libs/table/decide.py"]
    assert not (ROOT / cited[0]).exists() and (ROOT / cited[1]).exists()
